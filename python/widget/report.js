// A Lethe report drawn with the page's own modules: headline, warnings, plots, numbers, JSON/SVG/PNG exports. Used by
// lethe.show (view.js: a report computed in the kernel) and lethe.widget (run.js: a report computed in the notebook's
// browser by the inlined wasm module). python/widget/build.py inlines the imports below.
import { h, fill } from '../../www/src/dom.js';
import { fmt, num } from '../../www/src/format.js';
import { histogramPlot } from '../../www/src/views/hist.js';
import { numbers, plotBlock, exportBar, headlineBox, layerWarnings, setVoice } from '../../www/src/panels/common.js';
import { rocPlot } from '../../www/src/panels/mia.js';
import { rankPlot } from '../../www/src/panels/ruler.js';
import { epsilonPlot, NAMES } from '../../www/src/panels/epsilon.js';
import { boundsPlot } from '../../www/src/panels/bounds.js';

// Messages in a Python user's words, as the package's exceptions say them (python/src/lib.rs `_pythonic`): the CLI's
// option `--flag-name` is the keyword `flag_name`, `lethe command` is `lethe.command(…)`.
setVoice((t) =>
  t.replace(/(^|[^\p{L}\p{N}_-])--([a-z][a-z0-9-]*)/gu, (m, pre, f) => pre + f.replace(/-/g, '_')).replace(/`lethe ([a-z-]+)`/g, (m, c) => `\`lethe.${c.replace(/-/g, '_')}(…)\``),
);

/** Every scalar of a value under its dotted path (lists of numbers are left to the plots and the JSON export). */
function scalars(v, path, out) {
  if (v === null || v === undefined) return out;
  if (Array.isArray(v)) {
    // Lists of records (RULER's runs, SDE's targets, the TPR-at-FPR rows) under their index; lists of numbers and
    // long lists are the plots' and the JSON export's.
    if (v.length <= 20 && v.every((x) => x && typeof x === 'object' && !Array.isArray(x))) v.forEach((x, i) => scalars(x, `${path}[${i}]`, out));
    return out;
  }
  if (typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) scalars(x, path ? `${path}.${k}` : k, out);
    return out;
  }
  out.push([path, typeof v === 'number' && !Number.isInteger(v) ? fmt(v) : String(v), null, path]);
  return out;
}

// The page's plots are drawn from data the core counts for it (analysis/src/plots.rs), which the report does not
// hold; the few display choices below count the same values from the report the same way, so the bars are the page's.

/** numpy.histogram's edges and counts over [lo, hi], as the core counts them (lethe::divergence::histogram). */
function histogramIn(values, bins, lo, hi) {
  if (lo === hi) [lo, hi] = [lo - 0.5, hi + 0.5];
  const step = (hi - lo) / bins;
  const edges = Array.from({ length: bins + 1 }, (_, i) => (step === 0 ? (i / bins) * (hi - lo) + lo : i * step + lo));
  edges[bins] = hi;
  const counts = new Array(bins).fill(0);
  for (const v of values) {
    if (!(v >= lo && v <= hi)) continue;
    let i = Math.trunc(((v - lo) / (hi - lo)) * bins);
    if (i === bins) i--;
    if (v < edges[i]) i--;
    else if (v >= edges[i + 1] && i !== bins - 1) i++;
    counts[i]++;
  }
  return { edges, counts };
}

/** Histograms of several series on shared edges over their finite values' range (plots.rs shared_histograms). */
function sharedHistograms(series, bins) {
  const all = series.flatMap((s) => s.values).filter(Number.isFinite);
  if (!all.length) return null;
  const lo = all.reduce((a, b) => Math.min(a, b));
  const hi = all.reduce((a, b) => Math.max(a, b));
  const out = series.map((s) => ({ ...s, ...histogramIn(s.values.filter(Number.isFinite), bins, lo, hi) }));
  return { edges: out[0].edges, series: out.map(({ name, role, counts }) => ({ name, role, counts })) };
}

/** Per-example ε in bins of a scoring bucket's width (0.5) from 0 past ε_max and the largest finite ε (plots.rs). */
function epsilonHistogram(r) {
  const eps = r.per_example.map((e) => num(e.epsilon));
  const finite = eps.filter(Number.isFinite);
  const top = Math.max(finite.reduce((a, b) => Math.max(a, b), 0), num(r.eps_max), 0.5);
  const bins = Math.min(Math.floor(top / 0.5) + 1, 200);
  const { edges, counts } = histogramIn(finite, bins, 0, bins * 0.5);
  return { histogram: { edges, series: [{ name: '', role: 'epsilon', counts }] }, infinite: eps.length - finite.length };
}

/** The empirical CDF of `values` at 0, each distinct value and 1, with the two-sided DKW band at level 1 − α. */
function ecdfBand(values, alpha) {
  const v = values.map(num).filter(Number.isFinite).sort((a, b) => a - b);
  const n = v.length;
  const x = [...new Set([0, 1, ...v])].sort((a, b) => a - b);
  const eps = Math.sqrt(Math.log(2 / alpha) / (2 * n));
  let k = 0;
  const cdf = x.map((t) => {
    while (k < n && v[k] <= t) k++;
    return k / n;
  });
  return { x, cdf, lower: cdf.map((c) => Math.max(c - eps, 0)), upper: cdf.map((c) => Math.min(c + eps, 1)) };
}

function plots(report) {
  const r = report.result || {};
  const out = [];
  const block = (title, filename, draw) => out.push(plotBlock({ title, filename: `lethe-${filename}`, draw }).el);
  const roc = r.curve && r.summary && r.tpr_at_fpr ? r : r.audit?.curve && r.audit.summary && r.audit.tpr_at_fpr ? r.audit : null;
  if (roc) block(`${report.command === 'lira' ? 'LiRA: ' : ''}ROC (log–log) with Clopper–Pearson intervals at the target FPRs`, `${report.command}-roc`, (width) => rocPlot(roc, { width }));
  if (report.command === 'sde' && r.in_training_reference?.values) {
    const dists = [
      { name: 'in-training reference', role: 'it', d: r.in_training_reference },
      { name: 'out-of-training reference', role: 'oot', d: r.out_of_training_reference },
      ...(r.targets || []).map((t) => ({ name: t.name, role: 'target', d: t.distribution })),
    ].filter((s) => s.d?.values);
    const data = sharedHistograms(dists.map((s) => ({ name: s.name, role: s.role, values: s.d.values.map(num) })), 30);
    const targets = data ? data.series.filter((s) => s.role === 'target') : [];
    targets.forEach((t, k) => {
      const shown = [...dists.filter((s) => s.role !== 'target'), dists.filter((s) => s.role === 'target')[k]];
      const moments = shown.filter((s) => s.d.moments).map((s) => ({ role: s.role, mean: num(s.d.moments.mean), sd: num(s.d.moments.sd) }));
      block(`HSIC split-half distributions${targets.length > 1 ? `: ${t.name}` : ''}`, `sde-distributions${targets.length > 1 ? `-${k}` : ''}`, (width) =>
        histogramPlot({ edges: data.edges, series: data.series.filter((s) => s.role !== 'target').concat(t) }, {
          width,
          xlabel: 'HSIC(S₁, S₂ shuffled)',
          moments,
          label: 'Overlaid histograms of the in-training, out-of-training and target distributions, with each distribution’s exact mean ± sd over all shuffles',
        }),
      );
    });
  }
  if (report.command === 'ruler') {
    (r.runs || []).forEach((run, k, runs) => {
      const { edges, counts } = histogramIn(run.nn_percentile_rank.ranks.map(num).filter(Number.isFinite), 10, 0, 1);
      const hg = { edges, series: [{ name: '', role: 'ranks', counts }] };
      block(`Nearest-neighbour percentile ranks of forget records${runs.length > 1 ? ` (run ${k + 1})` : ''}`, `ruler-ranks-run${k + 1}`, (width) => rankPlot(hg, width));
    });
  }
  if (report.command === 'epsilon') {
    for (const v of r.results || []) {
      const plot = epsilonHistogram(v);
      block(`Per-example ε (${NAMES[v.variant.kind]})`, `epsilon-${v.variant.kind}`, (width) => epsilonPlot(v, plot, width));
    }
  }
  // Leakage bounds: the page's ECDF needs the scores, which a `rouge … --bounds` report holds (each generation's
  // ROUGE-L F-measure) and a `bounds` report does not.
  const bounds = report.command === 'rouge' ? r.bounds : report.command === 'bounds' ? r : null;
  if (bounds?.general) {
    const scores = r.scores?.fmeasure;
    const alpha = num(bounds.general.alpha);
    if (scores?.length) {
      const gx = bounds.general.x.map(num);
      const i = gx.reduce((b, x, j) => (Math.abs(x - 0.5) < Math.abs(gx[b] - 0.5) ? j : b), 0);
      const marker = gx.length ? { x: gx[i], label: `M_gen(${gx[i]}) = ${fmt(bounds.general.upper[i])}` } : null;
      const band = ecdfBand(scores, alpha);
      block('Empirical CDF of the scores with its DKW band', 'bounds-ecdf', (width) => boundsPlot(band, alpha, marker, width));
    } else {
      out.push(h('p', { class: 'muted', 'data-value': 'plot-note' }, 'No plot of the scores: this report holds their bounds, not the scores themselves (a ROUGE-L report with bounds holds both).'));
    }
  }
  return out;
}

/** Draws the report given as JSON text into `el`. */
/** Every scalar of the result, under a summary: folded when there are more than a screenful (SDE has hundreds). */
function allNumbers(rows) {
  if (!rows.length) return null;
  return h('details', { class: 'all-numbers', open: rows.length <= 24 ? true : null }, h('summary', {}, `All numbers of the result (${rows.length})`), numbers(rows, 'Results'));
}

export function draw(el, text) {
  let report;
  try {
    report = JSON.parse(text || 'null');
  } catch (e) {
    fill(el, h('p', { class: 'error' }, `The report could not be read: ${e.message}`));
    return;
  }
  if (!report) return fill(el, h('p', { class: 'muted' }, 'No report.'));
  fill(
    el,
    h(
      'div',
      { class: 'root notebook', 'data-command': report.command },
      h('h3', {}, `lethe ${report.command}`, report.lethe_version ? h('span', { class: 'muted' }, ` · Lethe ${report.lethe_version}`) : null),
      headlineBox(report.headline),
      layerWarnings(report.warnings),
      plots(report),
      allNumbers(scalars(report.result, '', [])),
      exportBar({ name: `lethe-${report.command}${report.seed !== null && report.seed !== undefined ? `-seed${report.seed}` : ''}`, report: () => report }),
    ),
  );
}
