// Compare methods (issue 23): a runs table — one row per run, columns method, seed, optional task, one per metric —
// compared by the analysis layer's `compare` request (analyses/compare.rs): per method and metric the mean with its t
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

export function comparePanel(ctx) {
  const parts = panelFrame({
    id: 'lethe-compare',
    title: 'Compare methods — is A better than B beyond seed noise?',
    intro:
      'Several methods, each run with several seeds: per method and metric the mean with its t and bootstrap intervals, the probability that one method beats another (rliable), tests of every comparison corrected as one family, average ranks with Nemenyi’s critical difference across tasks (autorank), and checks of published values — with one verdict a person can act on, “inconclusive” when the seeds cannot tell.',
  });
  const runs = runsSource(ctx);
  const exampleBtn = h('button', { type: 'button', class: 'button button-secondary', 'data-action': 'compare-example' }, 'Load the built-in example');
  const note = h('p', { class: 'muted', 'data-value': 'compare.example', hidden: true }, `Built-in example: ${EXAMPLE.note}.`);
  fill(parts.inputs, h('div', { class: 'row' }, exampleBtn), note, runs.el);
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
    const r = runs.get();
    if (!r) return null;
    const margin = p.margin.get();
    return {
      runs: r,
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
      ['_runs', name ?? '(pasted)'],
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
      const req = request();
      if (!req) {
        fill(parts.error, 'Give a runs table first: choose a file, paste it, or load the built-in example.');
        throw new Error('no input');
      }
      const name = runs.name();
      try {
        const out = await ctx.engine.request('run', { analysis: 'compare', request: req }, { signal });
        last = { req, out, name };
        render(last);
        ctx.emit('result', { panel: 'compare', output: out, report: report(last) });
        return out;
      } catch (e) {
        if (e.name !== 'AbortError') {
          if (e.input === 'runs') runs.showError(e.message);
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
        ['Comparisons', String(r.comparisons.length), `${calls('better') + calls('worse')} with a difference, ${calls('no_difference')} with none the data could show, ${calls('inconclusive')} inconclusive; ${r.correction} over the family; calls at ${+(100 * (1 - r.level)).toPrecision(6)}%, intervals at ${+(100 * r.level).toPrecision(6)}%`, 'compare.comparisons'],
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
      exportBar({ name: 'lethe-compare', report: () => report({ req, out, name }), table: () => table({ out }) }),
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
    for (const [k, v] of Object.entries(EXAMPLE.params)) p[k].set(v);
    note.hidden = false;
    return run.run().catch(() => {});
  };
  exampleBtn.addEventListener('click', () => loadExample().catch((e) => fill(parts.error, say(e.message))));

  return {
    id: 'compare',
    el: parts.el,
    slots: { runs },
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
        if (k === 'runs') runs.set(typeof v === 'string' ? { kind: 'text', text: v } : v);
        else if (p[k]) p[k].set(Array.isArray(v) ? v.join(', ') : v);
      }
    },
  };
}
