// RULER panel: representation-level metrics m1–m4 per run, Wilcoxon + Benjamini–Hochberg across runs. Numbers from
// the core's RulerReport (as `lethe ruler --json`).
import { h, fill, nextId } from '../dom.js';
import { fmt, num } from '../format.js';
import { histogramPlot } from '../views/hist.js';
import { inputSlot, field, panelFrame, runner, showError, numbers, plotBlock, exportBar, warningsBox, cliLine, envelope, rowsControl, preflight, headlineBox, layerWarnings, checkLine, resetExampleRows, clearNoticeOnEdit, refuseExampleMix, changedEvent, say, loadWarnings, tableBox, rowSources } from './common.js';

/** One run's histogram of nearest-neighbour percentile ranks (the core's counts). */
export function rankPlot(hg, width) {
  return histogramPlot({ edges: hg.edges.map(num), series: hg.series.map((s) => ({ ...s, name: 'forget records' })) }, {
    width,
    xlabel: 'percentile rank among retain records (uniform under the null)',
    labels: { ranks: 'forget records' },
    label: 'Histogram of nearest-neighbour percentile ranks',
  });
}

export function rulerPanel(ctx) {
  const parts = panelFrame({
    id: 'lethe-ruler',
    title: 'RULER — representation-level metrics',
    intro:
      'How close are the unlearned model’s embeddings of the forget records to the retrained oracle’s (m1–m3), and do forget records still sit unusually close to retain records (m4, needs no oracle)?',
  });
  const runsEl = h('div', { class: 'runs' });
  const runs = [];
  const addRun = () => {
    const k = runs.length;
    const tag = runs.length ? ` (run ${k + 1})` : '';
    const r = {
      unlearned: inputSlot(ctx, { key: 'unlearned', label: `Unlearned model embeddings${tag}`, hint: k ? null : 'one row per record (all records; forget/retain rows are chosen below)', rows: false }),
      oracle: inputSlot(ctx, { key: 'oracle', label: `Retrained oracle embeddings${tag}`, optional: true, rows: false }),
      original: inputSlot(ctx, { key: 'original', label: `Original model embeddings${tag}`, optional: true, rows: false, hint: k ? null : 'enables m3' }),
    };
    r.el = h('div', { class: 'run', 'data-run': k }, k ? h('h3', {}, `Run ${k + 1}`) : null, r.unlearned.el, r.oracle.el, r.original.el);
    if (k) {
      r.el.append(h('button', { type: 'button', class: 'button button-small button-secondary', 'aria-label': `Remove run ${k + 1}`, onclick: () => { runs.splice(runs.indexOf(r), 1); r.el.remove(); changedEvent(runsEl, `run ${k + 1} was removed`); } }, 'remove run'));
    }
    runs.push(r);
    runsEl.append(r.el);
    return r;
  };
  addRun();
  const forgetId = nextId('forget');
  const retainId = nextId('retain');
  const forget = rowsControl(ctx.store, { key: 'forget', label: 'Forget rows', withAll: false });
  const retain = rowsControl(ctx.store, { key: 'retain', label: 'Retain rows', withAll: false });
  const forgetErr = h('div', { class: 'error', role: 'alert', 'data-error-for': 'forget' });
  const retainErr = h('div', { class: 'error', role: 'alert', 'data-error-for': 'retain' });
  const rowSlot = (key, label, ctl, err, id) => {
    const checks = h('div', { class: 'slot-checks', 'data-check-for': key });
    const notice = h('div', { class: 'slot-notice', 'data-notice-for': key, 'aria-live': 'polite' });
    return {
      key,
      notice,
      el: h('div', { class: 'slot', 'data-slot': key, id }, h('div', { class: 'slot-label' }, label), ctl.el, notice, err, checks),
      showError: (m) => fill(err, say(m)),
      clearError: () => fill(err),
      showChecks: (list, labels) => fill(checks, (list || []).filter((c) => say(c.message, labels) !== err.textContent).map((c) => checkLine(c, labels))),
    };
  };
  const forgetSlot = rowSlot('forget', 'Forget rows', forget, forgetErr, forgetId);
  const retainSlot = rowSlot('retain', 'Retain rows', retain, retainErr, retainId);
  clearNoticeOnEdit(forget, forgetSlot.notice);
  clearNoticeOnEdit(retain, retainSlot.notice);
  fill(
    parts.inputs,
    runsEl,
    h('button', { type: 'button', class: 'button button-small button-secondary', onclick: addRun }, 'Add a run (another seed) for Wilcoxon across runs'),
    forgetSlot.el,
    retainSlot.el,
  );
  const p = {
    ties: field({ key: 'ties', label: 'm4 ties', type: 'select', value: 'at-most', options: [['at-most', '≤ counts (authors’ code)'], ['half', 'ties count ½']] }),
    fdr: field({ key: 'fdr', label: 'FDR level (across runs)', value: 0.05, min: 0, max: 1, step: 0.01 }),
  };
  parts.params.append(p.ties.el, p.fdr.el);

  const allSlots = () => [...runs.flatMap((r) => [r.unlearned, r.oracle, r.original]), forgetSlot, retainSlot];
  // A person's own embeddings in place of the example's: its forget/retain ranges (rows of the digits files) clear.
  parts.inputs.addEventListener('lethe-change', (e) => {
    const item = e.detail?.item;
    if (!item || item.origin === 'example') return;
    for (const [sl, ctl, name] of [[forgetSlot, forget, 'Forget rows'], [retainSlot, retain, 'Retain rows']]) {
      const notes = resetExampleRows([[name, ctl]]);
      if (notes.length) fill(sl.notice, notes.map((n) => h('div', { class: 'warning', 'data-value': `${sl.key}.rows-reset` }, n)));
    }
  });
  let last = null;
  const request = () => ({
    runs: runs
      .map((r) => ({ unlearned: r.unlearned.get(), oracle: r.oracle.get(), original: r.original.get() }))
      .filter((r) => r.unlearned),
    forget: forget.get(),
    retain: retain.get(),
    ties: p.ties.get(),
    fdr: p.fdr.get(),
  });
  const rowsText = (r, out) => {
    if (!r) return null;
    if (r.kind === 'text') return r.text;
    const name = ctx.store.get(r.source)?.name;
    return r.kind === 'file' ? name : `${name}==${r.value}`;
  };
  const report = ({ req, out }) => {
    const specs = (role) => out.inputs.filter((x) => x.role === role).map((x) => x.spec);
    const parameters = {
      unlearned: specs('unlearned'),
      oracle: specs('oracle'),
      original: specs('original'),
      forget: rowsText(req.forget, out),
      retain: rowsText(req.retain, out),
      ties: req.ties,
      fdr: req.fdr,
    };
    const args = [
      ...parameters.unlearned.map((s) => ['unlearned', s]),
      ...parameters.oracle.map((s) => ['oracle', s]),
      ...parameters.original.map((s) => ['original', s]),
      ['forget', parameters.forget],
      ['retain', parameters.retain],
      ['ties', req.ties],
      ['fdr', req.fdr],
    ];
    return envelope(ctx, { command: 'ruler', parameters, seed: null, output: out, cli: cliLine('ruler', args) });
  };
  const table = ({ out }) => {
    const rows = [['run', 'forget_record', 'nn_percentile_rank', 'forget_nn_similarity']];
    // m4 is null where it was withheld (the same rows for forget and retain).
    out.result.runs.forEach((r, k) => (r.nn_percentile_rank?.ranks ?? []).forEach((v, i) => rows.push([k, i, num(v), num(r.nn_percentile_rank.forget_nn[i])])));
    return rows;
  };

  const run = runner(ctx, parts, {
    label: 'Run RULER',
    fields: Object.values(p),
    start: async (signal) => {
      for (const s of allSlots()) s.clearError();
      pre.clear();
      const req = request();
      if (!req.runs.length) {
        runs[0].unlearned.showError('choose the unlearned model’s embeddings');
        throw new Error('no input');
      }
      if (!req.forget || !req.retain) {
        (req.forget ? retainSlot : forgetSlot).showError('choose the rows (a..b, a list, an index file or a split column)');
        throw new Error('no rows');
      }
      try {
        await refuseExampleMix(ctx, 'ruler', req);
        const out = await ctx.engine.request('run', { analysis: 'ruler', request: req }, { signal });
        last = { req, out };
        render(last);
        ctx.emit('result', { panel: 'ruler', output: out, report: report(last) });
        return out;
      } catch (e) {
        if (e.name !== 'AbortError') {
          showError(parts, allSlots(), e);
          ctx.emit('error', { panel: 'ruler', message: e.message, input: e.input });
        }
        throw e;
      }
    },
  });

  // Checks before Run, once the unlearned embeddings and both row sets are chosen.
  const pre = preflight(ctx, parts, {
    busy: () => run.busy(),
    slots: allSlots,
    build: () => {
      const req = request();
      return req.runs.length && req.forget && req.retain ? [{ analysis: 'ruler', request: req }] : null;
    },
  });
  parts.onChange = () => pre.schedule();

  function render({ req, out }) {
    const res = out.result;
    const left = pre.place(out.warnings, true);
    // The call on each metric against its null, beneath the one call.
    const calls = out.metric_calls?.length
      ? h('ul', { class: 'metric-calls', 'data-value': 'ruler.calls' }, out.metric_calls.map((m) => h('li', { 'data-call': m.call, 'data-metric': m.metric }, h('strong', {}, `${m.metric}: `), m.text)))
      : null;
    const blocks = [headlineBox(out.headline), calls, layerWarnings(left), ...(out.warnings ? [] : [warningsBox(res.warnings), loadWarnings(out.load_warnings)]), rowSources(out.inputs, ['forget', 'retain'], 'ruler.rows_source')];
    res.runs.forEach((r, k) => {
      const m4 = r.nn_percentile_rank;
      const opt = (v) => (v == null ? '—' : fmt(v));
      blocks.push(
        numbers(
          [
            ['m1 oracle similarity', opt(r.oracle_similarity), 'mean cosine, forget records; no fixed null', `ruler.${k}.m1`],
            ['m2 calibration gap', opt(r.calibration_gap), `null ${r.nulls.calibration_gap}; < 0 residual memorisation, > 0 over-correction`, `ruler.${k}.m2`],
            ['m3 representation shift', opt(r.representation_shift), `null ${r.nulls.representation_shift}; > 0 moved towards the oracle`, `ruler.${k}.m3`],
            ['m4 NN percentile rank', m4 ? fmt(m4.value) : '—', m4 ? `null ${r.nulls.nn_percentile_rank} ± ${fmt(m4.null_sd)} (sd); > 0.5 forget records closer to retain than retain to each other` : 'withheld: needs retain rows distinct from the forget rows', `ruler.${k}.m4`],
          ],
          res.runs.length > 1 ? `Run ${k + 1}: ${r.n_forget} forget, ${r.n_retain} retain records` : `${r.n_forget} forget, ${r.n_retain} retain records`,
        ),
      );
    });
    if (res.across_runs.length) {
      blocks.push(
        tableBox({ class: 'table-scroll' }, h('table', { class: 'targets' },
          h('caption', {}, `Across ${res.runs.length} runs: Wilcoxon signed-rank against the null, Benjamini–Hochberg at FDR ${req.fdr}`),
          h('thead', {}, h('tr', {}, ['metric', 'null', 'Wilcoxon p', 'BH-adjusted', 'rank-biserial', ''].map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, res.across_runs.map((m) => h('tr', { 'data-key': `ruler.across.${m.metric}` },
            h('td', {}, m.metric), h('td', {}, String(m.null)), h('td', {}, fmt(m.wilcoxon.p_value)), h('td', {}, fmt(m.p_adjusted)),
            h('td', {}, m.rank_biserial == null ? '—' : fmt(m.rank_biserial)), h('td', {}, m.reject ? 'significant' : 'not significant'))))),
        ),
      );
    } else if (res.runs.length === 1) {
      blocks.push(h('p', { class: 'muted' }, 'Load runs from several seeds (“Add a run”) to test each metric against its null with Wilcoxon across runs.'));
    }
    out.rank_histograms.forEach((hg, k) => {
      blocks.push(
        plotBlock({
          title: `Nearest-neighbour percentile ranks of forget records${out.rank_histograms.length > 1 ? ` (run ${k + 1})` : ''}`,
          filename: `ruler-ranks-run${k + 1}`,
          draw: (width) => rankPlot(hg, width),
        }).el,
      );
    });
    blocks.push(
      h('p', { class: 'params-line muted' }, `ties ${req.ties} · FDR ${req.fdr} · row-wise L2-normalised embeddings (ε = 1e-12), as the authors’ metrics.py`),
      exportBar({ engine: ctx.engine, name: 'lethe-ruler', report: () => report({ req, out }), table: () => table({ out }) }),
    );
    fill(parts.results, blocks);
  }

  return {
    id: 'ruler',
    el: parts.el,
    runs,
    addRun,
    fields: p,
    run: (signal) => run.run(signal),
    cancel: () => run.cancel(),
    last: () => last && report(last),
    /** The rows set now are the built-in example's: a person's own file in their place clears them. */
    markExample() {
      forget.markExample();
      retain.markExample();
    },
    set(opts) {
      for (const [k, v] of Object.entries(opts)) {
        if (k === 'unlearned' || k === 'oracle' || k === 'original') runs[0][k].set(v);
        else if (k === 'forget') forget.set(typeof v === 'string' ? { kind: 'text', text: v } : v);
        else if (k === 'retain') retain.set(typeof v === 'string' ? { kind: 'text', text: v } : v);
        else if (p[k]) p[k].set(v);
      }
    },
  };
}
