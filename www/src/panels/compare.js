// Compare methods (issue 23): a runs table — one row per run, columns method, seed, optional task, one per metric —
// or result files grouped by method (one run a file: open-unlearning's EVAL/SUMMARY files, ML Privacy Meter's
// attack_result_0.npz, Lethe's JSON reports, `lethe merge` tables; each file named by its path inside a chosen or dropped folder, so that `seedN` folders give
// the seeds), compared by the analysis layer's `compare` request (analyses/compare.rs): per method and metric the mean with its t
// and bootstrap intervals, the probability of improvement, pairwise tests corrected as one family, Friedman with
// Nemenyi's critical difference across tasks, and reproduction checks of published values. The report is the same as
// `lethe compare … --json`; the pictures are drawn from the plot data the layer made for it (plots.rs
// `compare_plots`).
import { h, fill, nextId } from '../dom.js';
import { assetUrl } from '../base.js';
import { fmt, num } from '../format.js';
import { forestPlot, poiPlot, cdPlot } from '../views/compare.js';
import { field, panelFrame, runner, numbers, plotBlock, exportBar, cliLine, envelope, headlineBox, layerWarnings, say, tableBox, checkLine } from './common.js';

/** The built-in example: five unlearning methods × 5 seeds on the digits demo (examples/compare/runs.csv). */
export const EXAMPLE = {
  file: 'compare_runs.csv',
  name: 'runs.csv',
  note: 'five unlearning methods × 5 seeds on the digits demo, each run scored by Lethe (examples/compare/make.py)',
  // The question 5 seeds can answer (examples/compare/README.md): one metric against the retrained models.
  params: { metrics: 'test_accuracy', baseline: 'retrain' },
};

const CORRECTIONS = [
  ['holm', 'Holm (family-wise error, any dependence)'],
  ['fdr_bh', 'Benjamini–Hochberg (false discovery rate)'],
  ['bonferroni', 'Bonferroni'],
  ['hommel', 'Hommel'],
  ['simes-hochberg', 'Hochberg'],
  ['fdr_by', 'Benjamini–Yekutieli'],
];
const list = (s) => String(s || '').split(/[,;\n]+/).map((x) => x.trim()).filter(Boolean);
const p4 = (v) => (v === null || v === undefined ? '—' : fmt(num(v)));

/** The runs table: a file (chosen here or among the page's inputs) or pasted text. */
function runsSource(ctx) {
  const id = nextId('runs');
  const area = h('textarea', { id, rows: 6, placeholder: 'method,seed,forget_quality,model_utility\nnpo,0,0.41,0.62\n…', 'data-role': 'runs', spellcheck: 'false' });
  const picker = h('input', { type: 'file', accept: '.csv,.tsv,.txt,.json', 'data-role': 'runs-file', 'aria-label': 'Choose a runs table (CSV, TSV or JSON)' });
  const src = h('select', { 'aria-label': 'Runs table: or a file among the inputs', 'data-role': 'runs-source' });
  const error = h('div', { class: 'error', role: 'alert', 'data-error-for': 'runs' });
  const checks = h('div', { class: 'slot-checks', 'data-check-for': 'runs' });
  const fillSources = () => {
    const cur = src.value;
    fill(src, h('option', { value: '' }, '— or choose a file among the inputs —'), ctx.store.sources().map((i) => h('option', { value: i.id }, ctx.store.label(i))));
    src.value = cur;
    if (cur && src.value !== cur) src.dispatchEvent(new CustomEvent('lethe-change', { bubbles: true, detail: { why: 'the runs table was removed' } }));
  };
  ctx.store.on(fillSources);
  fillSources();
  const el = h(
    'div',
    { class: 'slot', 'data-slot': 'runs' },
    h('label', { for: id, class: 'slot-label' }, 'Runs table (CSV, TSV or JSON): one row per run — method, seed, optional task, one column per metric'),
    h('div', { class: 'row' }, picker),
    area,
    h('div', { class: 'row' }, src),
    error,
    checks,
  );
  const slot = {
    key: 'runs',
    label: 'runs table',
    el,
    showChecks: (l, labels) => fill(checks, (l || []).map((c) => checkLine(c, labels))),
    get: () => (src.value ? { kind: 'source', source: Number(src.value) } : area.value.trim() ? { kind: 'text', text: area.value } : null),
    /** The file's name for the CLI line, or null for pasted text. */
    name: () => (src.value ? ctx.store.sources().find((i) => String(i.id) === src.value)?.name ?? null : null),
    set: (v) => {
      fillSources();
      if (v?.kind === 'source') src.value = String(v.source);
      else {
        src.value = '';
        area.value = v?.text || '';
      }
      el.dispatchEvent(new CustomEvent('lethe-change', { bubbles: true, detail: { why: 'the runs table changed' } }));
    },
    showError: (m) => fill(error, say(m)),
    clearError: () => fill(error),
  };
  picker.addEventListener('change', async () => {
    const f = picker.files?.[0];
    if (!f) return;
    const item = await ctx.store.add({ file: f });
    slot.set({ kind: 'source', source: item.id });
  });
  return slot;
}

/** A path's folders and name, `/`-separated (to name a chosen or dropped folder by its path; which of its files are
 * runs, and their seeds, the analysis layer decides: `compare_files::pick_result_files`). */
const segments = (p) => String(p).replace(/\\/g, '/').split('/').filter(Boolean);

/** Every file under a dropped entry (a folder is walked), with its path. */
async function walk(entry, prefix = '') {
  const path = prefix ? `${prefix}/${entry.name}` : entry.name;
  if (entry.isFile) return [{ file: await new Promise((ok, bad) => entry.file(ok, bad)), path }];
  const reader = entry.createReader();
  const out = [];
  for (;;) {
    const batch = await new Promise((ok, bad) => reader.readEntries(ok, bad));
    if (!batch.length) break;
    for (const e of batch) out.push(...(await walk(e, path)));
  }
  return out;
}

/**
 * Result files grouped by method: one row per method — its name, its files (chosen, a folder chosen or dropped, or
 * inputs already on the page), each file an input named by its path inside the folder, so the layer reads the seed
 * from `seedN` in it. `get()`: the request's `methods`, `[{method, files: [{kind: 'source', source}]}]`.
 */
function methodsSource(ctx, onFiles) {
  const rows = [];
  const list = h('div', { class: 'method-rows' });
  const error = h('div', { class: 'error', role: 'alert', 'data-error-for': 'methods' });
  const changed = (why) => el.dispatchEvent(new CustomEvent('lethe-change', { bubbles: true, detail: { why } }));
  const addBtn = h('button', { type: 'button', class: 'button button-secondary button-small', 'data-action': 'add-method' }, 'Add a method');
  const el = h(
    'div',
    { class: 'slot', 'data-slot': 'methods' },
    h('div', { class: 'slot-label' }, 'Result files grouped by method: one file per run'),
    h('p', { class: 'muted' }, 'open-unlearning’s TOFU/MUSE EVAL or SUMMARY files, ML Privacy Meter’s attack results (report/exp/attack_result_0.npz), Lethe’s JSON reports, lethe merge tables. Choose or drop a folder of a method’s runs (seed0/, seed1/, …: each run’s seed is read from its path), or the folder above several methods’ folders (one method each).'),
    list,
    h('div', { class: 'row' }, addBtn),
    error,
  );

  /** Files [{file, path}] added as inputs named by their paths, to `row`. */
  const addFiles = async (row, files) => {
    const items = await Promise.all(files.map(({ file, path }) => ctx.store.add({ file, name: segments(path).join('/') })));
    row.files.push(...items.map((i) => i.id));
    row.render();
    onFiles();
    changed(`the files of method “${row.name.value.trim() || 'unnamed'}” changed`);
  };
  /**
   * A chosen or dropped folder (`files`: [{file, path}], every file in it): its files added as inputs named by their
   * paths, sent as the folder's contents; the analysis layer picks the result files among them, as it picks a folder
   * given to the CLI, names the method after the folder when the row has no name (one method per folder when it
   * holds several methods' folders), and says what it passed over. Several folders dropped at once: a row each.
   */
  const takeFolder = async (row, files) => {
    fill(row.note);
    const roots = new Map();
    const loose = [];
    for (const f of files) {
      const s = segments(f.path);
      if (s.length < 2) loose.push(f);
      else (roots.get(s[0]) || roots.set(s[0], []).get(s[0])).push(f);
    }
    let k = 0;
    for (const [root, fs] of roots) {
      const r = k++ === 0 && (row.folder || !row.files.length) ? row : rows.find((x) => x !== row && !x.files.length && !x.name.value.trim()) || addRow();
      r.files = [];
      r.folder = root;
      await addFiles(r, fs);
      fill(r.note, `${fs.length} file(s) from ${root}/: the comparison picks the result files among them, one run each (seedN in a path gives the seed), and names the others it passes over${r.name.value.trim() ? '' : '; the method is named after the folder, or a method per folder when it holds several methods’ folders'}`);
    }
    if (loose.length) await addFiles(row.folder ? rows.find((x) => !x.files.length) || addRow() : row, loose);
  };

  let made = 0;
  function addRow({ method = '', files = [], folder = null } = {}) {
    const k = ++made;
    const nameId = nextId('method');
    const row = { files: [...files], folder };
    row.name = h('input', { id: nameId, type: 'text', size: 14, value: method, 'data-role': 'method-name', 'aria-label': `Method ${k}: name`, placeholder: 'e.g. NPO' });
    const picker = h('input', { type: 'file', multiple: true, accept: '.json,.csv,.npz', 'data-role': 'method-files', 'aria-label': `Method ${k}: choose its result files` });
    const dir = h('input', { type: 'file', multiple: true, webkitdirectory: true, 'data-role': 'method-dir', 'aria-label': `Method ${k}: choose a folder of its runs` });
    const src = h('select', { 'data-role': 'method-source', 'aria-label': `Method ${k}: add a file among the inputs` });
    const shown = h('ul', { class: 'method-files', 'data-value': 'method-files' });
    row.note = h('div', { class: 'muted', 'data-value': 'method-note' });
    const remove = h('button', { type: 'button', class: 'icon-button', 'aria-label': `Remove method ${k}`, title: 'Remove this method', 'data-action': 'remove-method' }, '×');
    row.fillSources = () => fill(src, h('option', { value: '' }, '— add a file among the inputs —'), ctx.store.sources().map((i) => h('option', { value: i.id }, ctx.store.label(i))));
    row.render = () => {
      row.fillSources();
      const drop = (why, f) => () => {
        f();
        row.render();
        changed(why);
      };
      if (row.folder) {
        // A folder: one line, its files all sent; the layer's picks are the report's inputs.
        fill(shown, row.files.length ? h('li', { 'data-folder': row.folder }, h('code', {}, `${row.folder}/`), h('span', { class: 'muted' }, ` ${row.files.length} file(s)`), ' ',
          h('button', { type: 'button', class: 'icon-button', 'aria-label': `Remove the folder ${row.folder} from the method`, onclick: drop('a folder was removed', () => {
            row.files = [];
            row.folder = null;
            fill(row.note);
          }) }, '×')) : []);
        return;
      }
      fill(shown, row.files.map((id) => {
        const it = ctx.store.get(id);
        return h('li', { 'data-source': id }, h('code', {}, it?.name ?? `input ${id}`), ' ',
          h('button', { type: 'button', class: 'icon-button', 'aria-label': `Remove ${it?.name ?? 'this file'} from the method`, onclick: drop('a result file was removed', () => {
            row.files = row.files.filter((x) => x !== id);
          }) }, '×'));
      }));
    };
    row.el = h(
      'div',
      { class: 'method-row', 'data-method': k, style: { borderTop: '1px solid rgba(127,127,127,.3)', padding: '6px 0' } },
      h('div', { class: 'row' }, h('label', { for: nameId }, `Method ${k}`), row.name, remove),
      h('div', { class: 'row' }, h('label', {}, 'Files ', picker), h('label', {}, 'or a folder ', dir)),
      h('div', { class: 'row' }, src),
      h('div', { class: 'dropzone', 'data-drop': 'method' }, h('p', { class: 'muted' }, 'or drop its files or folder here')),
      shown,
      row.note,
    );
    picker.addEventListener('change', () => {
      const fs = [...picker.files].map((file) => ({ file, path: file.name }));
      picker.value = '';
      addFiles(row.folder ? addRow({ method: row.name.value.trim() }) : row, fs).catch((e) => fill(row.note, say(e.message)));
    });
    dir.addEventListener('change', () => {
      const fs = [...dir.files].map((file) => ({ file, path: file.webkitRelativePath || file.name }));
      dir.value = '';
      takeFolder(row, fs).catch((e) => fill(row.note, say(e.message)));
    });
    src.addEventListener('change', () => {
      const id = Number(src.value);
      src.value = '';
      if (!id && id !== 0) return;
      if (row.folder) {
        // A folder's contents are the folder's: an input chosen beside it makes a group of its own.
        addRow({ method: row.name.value.trim(), files: [id] });
        onFiles();
        changed('a result file was added');
        return;
      }
      if (!row.files.includes(id)) row.files.push(id);
      row.render();
      onFiles();
      changed('a result file was added');
    });
    const zone = row.el.querySelector('[data-drop="method"]');
    zone.addEventListener('dragover', (e) => e.preventDefault());
    zone.addEventListener('drop', async (e) => {
      e.preventDefault();
      e.stopPropagation();
      const entries = [...(e.dataTransfer?.items || [])].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
      const fs = entries.length ? (await Promise.all(entries.map((en) => walk(en)))).flat() : [...(e.dataTransfer?.files || [])].map((file) => ({ file, path: file.name }));
      const folder = fs.some((f) => f.path.includes('/'));
      (folder ? takeFolder(row, fs) : addFiles(row.folder ? addRow({ method: row.name.value.trim() }) : row, fs)).catch((err) => fill(row.note, say(err.message)));
    });
    remove.addEventListener('click', () => {
      rows.splice(rows.indexOf(row), 1);
      row.el.remove();
      changed('a method was removed');
    });
    rows.push(row);
    list.append(row.el);
    row.render();
    return row;
  }
  addBtn.addEventListener('click', () => addRow().name.focus());
  // An input removed from the page leaves the methods that held it.
  ctx.store.on(() => {
    for (const r of rows) {
      const kept = r.files.filter((id) => ctx.store.get(id));
      const gone = kept.length !== r.files.length;
      r.files = kept;
      if (gone && !kept.length) r.folder = null;
      r.render();
      if (gone) changed('a result file was removed from the inputs');
    }
  });
  addRow();
  addRow();
  const used = () => rows.filter((r) => r.files.length || r.name.value.trim());
  return {
    key: 'methods',
    label: 'result files by method',
    el,
    /** The request's `methods`, or null when no method has files. */
    get: () => (rows.some((r) => r.files.length) ? used().map((r) => ({ method: r.name.value.trim(), files: r.files.map((id) => ({ kind: 'source', source: id })), ...(r.folder ? { folder: r.folder } : {}) })) : null),
    /** `[{method, files: [{kind: 'source', source} | source id], folder?}]`, replacing every method (`folder`: the
     * files are that folder's contents, named by their paths in it). */
    set: (groups) => {
      for (const r of rows.splice(0)) r.el.remove();
      for (const g of groups || []) addRow({ method: g.method, folder: g.folder ?? null, files: (g.files || []).map((f) => (typeof f === 'object' ? f.source : f)) });
      if (!rows.length) addRow();
      changed('the result files changed');
    },
    /** Folders' files [{file, path}] as a person would choose them, into the first method without files. */
    takeFolder: (files) => takeFolder(rows.find((r) => !r.files.length) || addRow(), files),
    showError: (m) => fill(error, say(m)),
    clearError: () => fill(error),
  };
}

export function comparePanel(ctx) {
  const parts = panelFrame({
    id: 'lethe-compare',
    title: 'Compare methods — is A better than B beyond seed noise?',
    intro:
      'Several methods, each run with several seeds: per method and metric the mean with its t and bootstrap intervals, the probability that one method beats another (rliable), tests of every comparison corrected as one family, average ranks with Nemenyi’s critical difference across tasks (autorank), and checks of published values — with one verdict a person can act on, “inconclusive” when the seeds cannot tell.',
  });
  const runs = runsSource(ctx);
  const modeId = nextId('cmp-input');
  const mode = h('select', { id: modeId, 'data-role': 'compare-input' }, h('option', { value: 'runs' }, 'a runs table (one row per run)'), h('option', { value: 'methods' }, 'result files grouped by method (one file per run)'));
  const showMode = () => {
    runs.el.hidden = mode.value !== 'runs';
    methods.el.hidden = mode.value !== 'methods';
  };
  const methods = methodsSource(ctx, () => {
    mode.value = 'methods';
    showMode();
  });
  mode.addEventListener('change', showMode);
  runs.el.addEventListener('lethe-change', () => {
    if (runs.get() && mode.value !== 'runs') {
      mode.value = 'runs';
      showMode();
    }
  });
  showMode();
  const exampleBtn = h('button', { type: 'button', class: 'button button-secondary', 'data-action': 'compare-example' }, 'Load the built-in example');
  const note = h('p', { class: 'muted', 'data-value': 'compare.example', hidden: true }, `Built-in example: ${EXAMPLE.note}.`);
  fill(parts.inputs, h('div', { class: 'row' }, exampleBtn), note, h('div', { class: 'row' }, h('label', { for: modeId }, 'Your runs as '), mode), runs.el, methods.el);
  const p = {
    metrics: field({ key: 'metrics', label: 'Metrics and directions', type: 'text', value: '', size: 30, help: 'NAME, NAME:higher, NAME:lower, NAME:closest=METHOD or NAME:closest=NUMBER, comma-separated; empty: every metric with a built-in direction' }),
    baseline: field({ key: 'baseline', label: 'Baseline method', type: 'text', value: '', size: 14, help: 'compare every method with this one; empty: every pair' }),
    published: field({ key: 'published', label: 'Published values', type: 'text', value: '', size: 30, help: 'METHOD:METRIC=VALUE, optionally ±SD and /N, or METHOD:METRIC=LOW..HIGH; comma-separated' }),
    margin: field({ key: 'margin', label: 'Equivalence margin', value: '', min: 0, step: 0.01, help: 'in the metric’s units; empty: 10% of the published value' }),
    correction: field({ key: 'correction', label: 'Correction of the family', type: 'select', value: 'holm', options: CORRECTIONS }),
    resamples: field({ key: 'resamples', label: 'Bootstrap resamples', value: 10000, min: 1, step: 1 }),
    seed: field({ key: 'seed', label: 'Bootstrap seed', value: 0, min: 0, step: 1 }),
  };
  parts.params.append(...Object.values(p).map((f) => f.el));

  let last = null;
  let exampleBlob = null;
  const request = () => {
    const byMethod = mode.value === 'methods';
    const r = byMethod ? methods.get() : runs.get();
    if (!r) return null;
    const margin = p.margin.get();
    return {
      ...(byMethod ? { methods: r } : { runs: r }),
      metrics: list(p.metrics.get()),
      baseline: p.baseline.get().trim() || null,
      published: list(p.published.get()),
      margin: Number.isFinite(margin) ? margin : null,
      correction: p.correction.get(),
      resamples: p.resamples.get(),
      seed: p.seed.get(),
    };
  };
  const report = ({ req, out, name }) => {
    const args = [
      // Each method's files as the layer read them (a folder's: those it picked), NAME=FILE,….
      ...(req.methods ? (out.parameters.methods || []).map((m) => ['method', m]) : [['_runs', name ?? '(pasted)']]),
      ['baseline', req.baseline],
      ...req.metrics.map((m) => ['metric', m]),
      ...req.published.map((v) => ['published', v]),
      ['margin', req.margin],
      ['correction', req.correction !== 'holm' ? req.correction : null],
      ['resamples', req.resamples],
      ['seed', req.seed],
    ];
    return envelope(ctx, { command: 'compare', parameters: out.parameters, seed: out.seed ?? null, output: out, cli: cliLine('compare', args) });
  };
  const table = ({ out }) => {
    const rows = [['metric', 'task', 'a', 'b', 'n_a', 'n_b', 'difference', 'test', 'p_value', 'p_adjusted', 'probability_of_improvement', 'min_detectable_difference', 'call']];
    for (const c of out.result.comparisons) rows.push([c.metric, c.task ?? '', c.a, c.b, c.n_a, c.n_b, num(c.difference), c.test ?? '', c.p_value ?? '', c.p_adjusted ?? '', num(c.probability_of_improvement), c.min_detectable_difference ?? '', c.call]);
    return rows;
  };

  const run = runner(ctx, parts, {
    label: 'Compare',
    fields: Object.values(p).filter((f) => f.key !== 'margin'),
    start: async (signal) => {
      runs.clearError();
      methods.clearError();
      const req = request();
      if (!req) {
        fill(parts.error, mode.value === 'methods' ? 'Give result files first: for each method its name and its files, or a folder of its runs.' : 'Give a runs table first: choose a file, paste it, or load the built-in example.');
        throw new Error('no input');
      }
      const name = req.methods ? null : runs.name();
      try {
        const out = await ctx.engine.request('run', { analysis: 'compare', request: req }, { signal });
        last = { req, out, name };
        render(last);
        ctx.emit('result', { panel: 'compare', output: out, report: report(last) });
        return out;
      } catch (e) {
        if (e.name !== 'AbortError') {
          if (e.input === 'runs') runs.showError(e.message);
          else if (e.input === 'methods') methods.showError(e.message);
          else fill(parts.error, say(e.message));
          ctx.emit('error', { panel: 'compare', message: e.message, input: e.input });
        }
        throw e;
      }
    },
  });

  function render({ req, out, name }) {
    const r = out.result;
    const pics = out.comparison || { forest: [], poi: [], cd: [] };
    const calls = (c) => r.comparisons.filter((x) => x.call === c).length;
    const slug = (s) => String(s).replace(/[^\w.-]+/g, '_');
    const blocks = [
      headlineBox(out.headline),
      layerWarnings(out.warnings),
      numbers([
        ['Methods', String(r.methods.length), r.methods.join(', '), 'compare.methods'],
        r.tasks.length > 1 && ['Tasks', String(r.tasks.length), r.tasks.join(', '), 'compare.tasks'],
        ['Metrics', String(r.metrics.length), r.metrics.map((m) => `${m.metric} (${m.direction})`).join('; '), 'compare.metrics'],
        ['Comparisons', String(r.comparisons.length), `${calls('better') + calls('worse')} with a difference, ${calls('no_difference')} with none the data could show, ${calls('inconclusive')} inconclusive; ${(CORRECTIONS.find(([k]) => k === r.correction)?.[1] || r.correction).replace(/ \(.*\)$/, '')} over the family; calls at ${+(100 * (1 - r.level)).toPrecision(6)}%, intervals at ${+(100 * r.level).toPrecision(6)}%`, 'compare.comparisons'],
        ['Bootstrap', `${r.bootstrap.resamples} resamples`, `seed ${r.bootstrap.seed}; stratified by task (rliable)`, 'compare.bootstrap'],
      ]),
    ];
    for (const f of pics.forest) {
      blocks.push(plotBlock({ title: `${f.metric}: mean and 95% intervals per method`, filename: `lethe-compare-forest-${slug(f.metric)}`, heading: [`lethe compare · ${f.metric} (better: ${f.direction})`], draw: (width) => forestPlot(f, { width }) }).el);
    }
    for (const m of pics.poi) {
      blocks.push(plotBlock({ title: `${m.metric}: probability of improvement (row better than column)`, filename: `lethe-compare-poi-${slug(m.metric)}`, heading: [`lethe compare · P(row better than column) on ${m.metric}`], draw: (width) => poiPlot(m, { width }) }).el);
    }
    for (const c of pics.cd) {
      blocks.push(plotBlock({ title: `${c.metric}: average ranks and critical difference (Friedman p ${fmt(c.p_value)}, ${c.blocks} tasks)`, filename: `lethe-compare-cd-${slug(c.metric)}`, heading: [`lethe compare · ${c.metric}: mean ranks, Nemenyi CD ${fmt(c.critical_difference)}`], draw: (width) => cdPlot(c, { width }) }).el);
    }
    if (!pics.cd.length) blocks.push(h('p', { class: 'muted', 'data-value': 'compare.cd-note' }, 'No critical-difference diagram: Friedman’s test ranks the methods across tasks, and needs at least 3 methods on at least 2 tasks that each have every method.'));
    blocks.push(
      tableBox({ class: 'table-scroll' },
        h('table', { class: 'targets', 'data-value': 'compare.table' },
          h('caption', {}, 'Every comparison: difference of means in the metric’s direction (positive: a better), the deciding test, its p-value before and after the correction, P(a better than b), the smallest difference the test would find 80% of the time'),
          h('thead', {}, h('tr', {}, ['metric', 'a vs b', 'difference', 'test', 'p', 'adjusted p', 'P(a > b)', 'detectable', 'call'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, r.comparisons.map((c) => h('tr', { 'data-call': c.call },
            h('td', {}, c.task ? `${c.metric} (${c.task})` : c.metric),
            h('th', { scope: 'row' }, `${c.a} vs ${c.b}`),
            h('td', {}, p4(c.difference)),
            h('td', {}, c.test ?? '—'),
            h('td', {}, p4(c.p_value)),
            h('td', {}, p4(c.p_adjusted)),
            h('td', {}, p4(c.probability_of_improvement)),
            h('td', {}, p4(c.min_detectable_difference)),
            h('td', { title: say(c.text) }, c.call.replace(/_/g, ' '))))))),
    );
    if (r.reproductions.length) {
      blocks.push(tableBox({ class: 'table-scroll' },
        h('table', { class: 'targets', 'data-value': 'compare.reproductions' },
          h('caption', {}, 'Published values against these runs'),
          h('thead', {}, h('tr', {}, ['method', 'metric', 'published', 'your mean', '95% t interval', 'margin', 'call'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, r.reproductions.map((x) => h('tr', { 'data-call': x.call },
            h('th', { scope: 'row' }, x.method), h('td', {}, x.metric), h('td', {}, p4(x.published)), h('td', {}, p4(x.mean)),
            h('td', {}, x.t_interval ? `[${p4(x.t_interval.lo)}, ${p4(x.t_interval.hi)}]` : '—'), h('td', {}, p4(x.margin)),
            h('td', { title: say(x.text) }, x.call)))))));
    }
    blocks.push(
      h('p', { class: 'params-line muted', 'data-value': 'compare.cli' }, h('code', {}, report({ req, out, name }).cli_equivalent)),
      exportBar({ engine: ctx.engine, name: 'lethe-compare', report: () => report({ req, out, name }), table: () => table({ out }) }),
    );
    fill(parts.results, blocks);
  }

  /** The example's bytes, fetched while the page loads its example (no request later); `url(name)` as widget.js's. */
  const prefetch = async (url) => {
    if (exampleBlob) return exampleBlob;
    const r = await fetch(url(EXAMPLE.file));
    if (!r.ok) throw new Error(`${EXAMPLE.file}: HTTP ${r.status}`);
    exampleBlob = await r.blob();
    return exampleBlob;
  };
  let exampleUrl = (n) => assetUrl(`data/digits/${n}`);
  const loadExample = async (url = exampleUrl) => {
    const blob = exampleBlob || (await prefetch(url));
    const item = await ctx.store.add({ file: new File([blob], EXAMPLE.name), origin: 'example', note: EXAMPLE.note });
    runs.set({ kind: 'source', source: item.id });
    mode.value = 'runs';
    showMode();
    for (const [k, v] of Object.entries(EXAMPLE.params)) p[k].set(v);
    note.hidden = false;
    return run.run().catch(() => {});
  };
  exampleBtn.addEventListener('click', () => loadExample().catch((e) => fill(parts.error, say(e.message))));

  return {
    id: 'compare',
    el: parts.el,
    slots: { runs, methods },
    fields: p,
    run: (signal) => run.run(signal),
    cancel: () => run.cancel(),
    last: () => last && report(last),
    /** Fetches the example's table now (widget.js, while the page loads its example), so the button needs no request. */
    prefetchExample: (url) => {
      exampleUrl = url;
      return prefetch(url);
    },
    /** Where the example's table is when it was not fetched with the page (a widget opened without the example). */
    setExampleUrl: (url) => (exampleUrl = url),
    loadExample,
    set(opts) {
      for (const [k, v] of Object.entries(opts)) {
        if (k === 'runs') {
          runs.set(typeof v === 'string' ? { kind: 'text', text: v } : v);
          mode.value = 'runs';
          showMode();
        } else if (k === 'methods') {
          // [{method, files: [{kind: 'source', source} | source id]}], or {METHOD: [files]}.
          methods.set(Array.isArray(v) ? v : Object.entries(v).map(([method, files]) => ({ method, files })));
          mode.value = 'methods';
          showMode();
        }
        else if (p[k]) p[k].set(Array.isArray(v) ? v.join(', ') : v);
      }
    },
  };
}
