// LiRA from shadow models (issue 13 item 2), a section of the Membership audit panel: a folder in the layout
// tensorflow/privacy's research/mi_lira_2021 writes (experiment*/keep.npy with scores/*.npy, or logits/*.npy and
// y_train.npy) — chosen with a folder picker or dropped — or stacked arrays (scores + keep files, or one .npz holding
// both). The analysis layer's `lira` request reads, checks, scores (each variant named after the plot.py function it
// follows) and audits the scores as `mia`; the report is the same as `lethe lira … --json`.
import { h, fill } from '../dom.js';
import { fmt, num } from '../format.js';
import { field, panelFrame, runner, numbers, plotBlock, exportBar, cliLine, envelope, preflight, headlineBox, layerWarnings, say, tableBox } from './common.js';
import { rocPlot } from './mia.js';

const VARIANTS = [
  ['online', 'online — plot.py generate_ours'],
  ['online-fixed-variance', 'online, fixed variance — generate_ours(fix_variance=True)'],
  ['offline', 'offline — generate_ours_offline'],
  ['offline-fixed-variance', 'offline, fixed variance — generate_ours_offline(fix_variance=True)'],
  ['global', 'global threshold — generate_global'],
];
const ci = (i) => (i ? `[${fmt(num(i.lo))}, ${fmt(num(i.hi))}]` : '—');

/**
 * The files of a folder the layout can use, as the CLI picks them: every keep.npy and y_train.npy, and the last file
 * (by name) of each experiment's scores/ and logits/. `files`: [{file, path}] with `/`-separated relative paths.
 */
export function layoutFiles(files) {
  const out = [];
  const last = new Map();
  for (const f of files) {
    const p = f.path.replace(/\\/g, '/');
    const name = p.slice(p.lastIndexOf('/') + 1);
    const parent = p.slice(0, Math.max(0, p.lastIndexOf('/')));
    if (name === 'keep.npy' || name === 'y_train.npy') out.push({ ...f, path: p });
    else if (/\/(scores|logits)$/.test(parent) && /(^|\/)experiment[^/]*\/(scores|logits)$/.test(parent)) {
      const cur = last.get(parent);
      if (!cur || p > cur.path) last.set(parent, { ...f, path: p });
    }
  }
  out.push(...last.values());
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Every file under a dropped entry (a folder is walked), with its path. */
async function walk(entry, prefix = '') {
  if (!entry) return [];
  const path = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) return [{ file: await new Promise((ok, bad) => entry.file(ok, bad)), path }];
  const reader = entry.createReader();
  const all = [];
  for (;;) {
    const batch = await new Promise((ok, bad) => reader.readEntries(ok, bad));
    if (!batch.length) break;
    all.push(...batch);
  }
  const out = [];
  for (const e of all) out.push(...(await walk(e, path)));
  return out;
}

export function liraSection(ctx) {
  const parts = panelFrame({
    id: 'lethe-lira',
    title: 'LiRA from shadow models',
    intro:
      'The likelihood-ratio attack (Carlini et al. 2022) from shadow-model results, computed as tensorflow/privacy’s mi_lira_2021 code does: choose or drop the folder its scripts write (experiment folders with keep.npy and scores/), or stacked arrays. One model is the target, the others are shadows; the target’s scores are audited like the attack scores above.',
  });
  const dirInput = h('input', { type: 'file', webkitdirectory: true, multiple: true, 'data-role': 'lira-dir', 'aria-label': 'Choose a folder of shadow-model results' });
  const filesInput = h('input', { type: 'file', multiple: true, accept: '.npy,.npz', 'data-role': 'lira-files', 'aria-label': 'Choose stacked scores and keep files' });
  const drop = h('div', { class: 'drop-zone', 'data-role': 'lira-drop' }, 'Drop the folder (or the stacked scores + keep files) here');
  const summary = h('p', { class: 'muted', 'data-value': 'lira.summary', 'aria-live': 'polite' }, 'No shadow-model results chosen yet.');
  fill(
    parts.inputs,
    h('div', { class: 'field' }, h('label', {}, 'Folder (mi_lira_2021’s experiment folders)', h('br'), dirInput)),
    h('div', { class: 'field' }, h('label', {}, 'Or stacked arrays: scores (models × examples × augmentations) and keep (models × examples), or one .npz with both', h('br'), filesInput)),
    drop,
    summary,
  );
  const p = {
    variant: field({ key: 'variant', label: 'LiRA score', type: 'select', value: 'online', options: VARIANTS }),
    target: field({ key: 'target', label: 'Target model(s)', type: 'text', value: '', size: 10, help: 'comma-separated, numbered from 0; empty: the last model (as plot.py)' }),
    from: field({ key: 'from', label: 'Folder scores from', type: 'select', value: 'auto', options: [['auto', 'scores/ where present'], ['scores', 'scores/ (score.py)'], ['logits', 'logits/ + y_train.npy, as score.py converts them']] }),
    augmentations: field({ key: 'augmentations', label: 'Augmentations used', value: '', min: 1, step: 1, help: 'the first K; empty: all' }),
    ci: field({ key: 'ci', label: 'Interval on the AUC', type: 'select', value: 'delong', options: [['delong', 'DeLong'], ['bootstrap', 'seeded bootstrap'], ['both', 'both']] }),
    resamples: field({ key: 'resamples', label: 'Bootstrap resamples', value: 1000, min: 1, step: 1 }),
    seed: field({ key: 'seed', label: 'Bootstrap seed', value: 0, min: 0, step: 1 }),
    rule: field({ key: 'rule', label: 'TPR at a target FPR, read by', type: 'select', value: 'leakpro', options: [['leakpro', 'LeakPro'], ['privacy-meter', 'privacy-meter'], ['jax-privacy', 'jax_privacy'], ['all', 'all three']] }),
    fpr: field({ key: 'fpr', label: 'Target FPRs', type: 'text', value: '0, 0.0001, 0.001, 0.01, 0.1', size: 22 }),
    alpha: field({ key: 'alpha', label: 'α (1 − level of every interval)', value: 0.05, min: 0, max: 1, step: 0.01 }),
  };
  const syncCi = () => (p.resamples.el.hidden = p.seed.el.hidden = p.ci.get() === 'delong');
  p.ci.input.addEventListener('change', syncCi);
  syncCi();
  parts.params.append(...Object.values(p).map((f) => f.el));

  // What was given: {kind: 'dir', dir, ids, paths} or {kind: 'stacked', scores, keep, names}.
  let given = null;
  let last = null;
  const remove = () => {
    if (!given) return;
    for (const id of given.ids) ctx.engine.request('remove', { source: id }).catch(() => {});
  };
  const addAll = async (list) => {
    await ctx.engine.start();
    const ids = [];
    for (const { file, path } of list) {
      const id = ctx.engine.newSource();
      await ctx.engine.request('add', { source: id, file, name: path, inspect: false });
      ids.push(id);
    }
    return ids;
  };

  /** Takes files with their relative paths (a chosen or dropped folder) or plain files (stacked arrays). */
  async function take(files) {
    parts.fresh?.();
    fill(parts.error);
    const withDirs = files.some((f) => f.path.includes('/'));
    remove();
    given = null;
    if (withDirs) {
      const used = layoutFiles(files);
      const experiments = new Set(used.filter((f) => /\/keep\.npy$/.test(f.path)).map((f) => f.path.slice(0, -'/keep.npy'.length)));
      const withScores = new Set(used.filter((f) => /\/(scores|logits)\//.test(f.path)).map((f) => f.path.replace(/\/(scores|logits)\/[^/]*$/, '')));
      const dir = used.length ? used[0].path.split('/')[0] : '';
      const ids = await addAll(used);
      given = { kind: 'dir', dir, ids, paths: used.map((f) => f.path) };
      fill(summary, `${dir}/: ${experiments.size} experiment folder(s) with keep.npy, ${withScores.size} with scores or logits; ${used.length} of the ${files.length} files are read (keep.npy, y_train.npy and the last file of each scores/ and logits/).`);
    } else {
      const npz = files.find((f) => /\.npz$/i.test(f.path));
      if (npz && files.length === 1) {
        const [id] = await addAll([npz]);
        given = { kind: 'stacked', ids: [id], scores: { source: id, tensor: 'scores' }, keep: { source: id, tensor: 'keep' }, names: [`${npz.path}#scores`, `${npz.path}#keep`] };
      } else {
        const keep = files.find((f) => /keep/i.test(f.path));
        const scores = files.find((f) => f !== keep);
        if (!keep || !scores || files.length !== 2) {
          fill(summary, 'Give the folder, or two files — the scores and the keep flags (its name containing “keep”) — or one .npz holding arrays named scores and keep.');
          return;
        }
        const [s, k] = await addAll([scores, keep]);
        given = { kind: 'stacked', ids: [s, k], scores: { source: s }, keep: { source: k }, names: [scores.path, keep.path] };
      }
      fill(summary, `Stacked arrays: scores ${given.names[0]}, keep ${given.names[1]}.`);
    }
    parts.markStale?.('other shadow-model results were chosen');
    pre.schedule();
  }
  dirInput.addEventListener('change', () => take([...dirInput.files].map((file) => ({ file, path: file.webkitRelativePath || file.name }))).catch((e) => fill(parts.error, say(e.message))));
  filesInput.addEventListener('change', () => take([...filesInput.files].map((file) => ({ file, path: file.name }))).catch((e) => fill(parts.error, say(e.message))));
  drop.addEventListener('dragover', (e) => e.preventDefault());
  drop.addEventListener('drop', async (e) => {
    e.preventDefault();
    const entries = [...(e.dataTransfer?.items || [])].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
    const files = entries.length ? (await Promise.all(entries.map((en) => walk(en)))).flat() : [...(e.dataTransfer?.files || [])].map((file) => ({ file, path: file.name }));
    take(files).catch((err) => fill(parts.error, say(err.message)));
  });

  const list = (s) => String(s).split(/[,\s]+/).filter(Boolean).map(Number);
  const request = () => {
    const base = {
      variant: p.variant.get(),
      targets: list(p.target.get()),
      from: p.from.get(),
      augmentations: p.augmentations.get() ?? null,
      alpha: p.alpha.get(),
      ci: p.ci.get(),
      resamples: p.resamples.get(),
      seed: p.seed.get(),
      rule: p.rule.get(),
      fpr: list(p.fpr.get()),
    };
    if (!given) return null;
    if (given.kind === 'dir') return { ...base, files: given.ids, dir: given.dir };
    return { ...base, scores: given.scores, keep: given.keep };
  };
  const report = ({ req, out }) => {
    const args = [
      ['_dir', given?.kind === 'dir' ? given.dir : null],
      ['scores', given?.kind === 'stacked' ? given.names[0] : null],
      ['keep', given?.kind === 'stacked' ? given.names[1] : null],
      ['variant', req.variant],
      ['target', req.targets.length ? req.targets.join(',') : null],
      ['from', given?.kind === 'dir' && req.from !== 'auto' ? req.from : null],
      ['augmentations', req.augmentations],
      ['alpha', req.alpha],
      ['ci', req.ci],
      ['resamples', req.ci !== 'delong' ? req.resamples : null],
      ['seed', req.ci !== 'delong' ? req.seed : null],
      ['rule', req.rule],
      ['fpr', req.fpr.join(',')],
    ];
    return envelope(ctx, { command: 'lira', parameters: out.parameters, seed: out.seed ?? null, output: out, cli: cliLine('lira', args) });
  };
  const table = ({ out }) => {
    const rows = [['target_example', 'score', 'member']];
    out.result.scores.forEach((s, i) => rows.push([i, num(s), out.result.labels[i]]));
    return rows;
  };

  const run = runner(ctx, parts, {
    label: 'Run LiRA',
    fields: Object.values(p).filter((f) => f.key !== 'augmentations'),
    start: async (signal, onProgress) => {
      pre.clear();
      const req = request();
      if (!req) {
        fill(parts.error, 'Choose or drop a folder of shadow-model results (or the stacked arrays) first.');
        throw new Error('no input');
      }
      try {
        const out = await ctx.engine.request('run', { analysis: 'lira', request: req }, { signal, onProgress });
        last = { req, out };
        render(last);
        ctx.emit('result', { panel: 'lira', output: out, report: report(last) });
        return out;
      } catch (e) {
        if (e.name !== 'AbortError') {
          fill(parts.error, say(e.message));
          ctx.emit('error', { panel: 'lira', message: e.message, input: e.input });
        }
        throw e;
      }
    },
  });
  const pre = preflight(ctx, parts, {
    busy: () => run.busy(),
    slots: () => [],
    build: () => {
      const req = request();
      return req ? [{ analysis: 'lira', request: { ...req, ci: 'delong', curve_points: 2 } }] : null;
    },
  });
  parts.onChange = () => pre.schedule();

  function render({ req, out }) {
    const r = out.result;
    const a = r.audit;
    const s = a.summary;
    const c = r.shadow_counts;
    const level = `${+(100 * (1 - req.alpha)).toPrecision(6)}%`;
    fill(
      parts.results,
      headlineBox(out.headline),
      layerWarnings(pre.place(out.warnings, true)),
      numbers([
        ['LiRA score', r.variant, `follows ${r.follows}`, 'lira.variant'],
        ['Models', `${r.models}`, `${r.examples} examples × ${r.augmentations} augmentation(s)${r.augmentations < r.augmentations_available ? ` (of ${r.augmentations_available})` : ''}; target ${r.targets.join(', ')}, ${c.shadows} shadows`, 'lira.models'],
        ['Shadows per example', `IN ${c.fewest_in}–${c.most_in}, OUT ${c.fewest_out}–${c.most_out}`, `the fit uses ${c.in_used} IN and ${c.out_used} OUT per example (plot.py: the smallest count)`, 'lira.shadows'],
        ['AUC', fmt(num(s.auc)), `${r.members} members, ${r.non_members} non-members of the target`, 'lira.auc'],
        a.delong && [`DeLong ${level} CI`, ci(a.delong.interval), '', 'lira.delong'],
        a.bootstrap && [`Bootstrap ${level} CI`, ci(a.bootstrap.interval), `${a.bootstrap.resamples_done} resamples, seed ${a.bootstrap.seed}`, 'lira.bootstrap'],
        ['Balanced accuracy', fmt(num(s.balanced_accuracy)), 'plot.py’s “accuracy”', 'lira.balanced_accuracy'],
      ]),
      plotBlock({ title: 'LiRA: ROC (log–log) with Clopper–Pearson intervals at the target FPRs', filename: 'lethe-lira-roc', draw: (width) => rocPlot(a, { width }) }).el,
      tableBox({ class: 'table-scroll' },
        h('table', { class: 'targets', 'data-value': 'lira.tpr_at_fpr' },
          h('caption', {}, 'TPR at each target FPR, and the FPR the chosen threshold really has'),
          h('thead', {}, h('tr', {}, ['rule', 'target FPR', 'TPR', 'realized FPR'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, a.tpr_at_fpr.map((t) => h('tr', { 'data-rule': t.rule, 'data-target': String(num(t.target_fpr)) },
            h('td', {}, t.rule), h('th', { scope: 'row' }, fmt(num(t.target_fpr))),
            h('td', {}, fmt(num(t.tpr)), h('br'), h('small', { class: 'muted' }, ci(t.tpr_interval))),
            h('td', {}, fmt(num(t.realized_fpr)), h('br'), h('small', { class: 'muted' }, ci(t.fpr_interval)))))))),
      exportBar({ engine: ctx.engine, name: 'lethe-lira', report: () => report({ req, out }), table: () => table({ out }) }),
    );
  }

  return {
    id: 'lira',
    el: parts.el,
    fields: p,
    /** Gives files with their relative paths (as a chosen folder lists them): `[{file, path}]`. */
    take,
    run: (signal) => run.run(signal),
    last: () => last && report(last),
  };
}
