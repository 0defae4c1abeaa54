// A Lethe report drawn with the page's own modules: headline, warnings, plots, numbers, JSON/SVG/PNG exports. Used by
// lethe.show (view.js: a report computed in the kernel) and lethe.widget (run.js: a report computed in the notebook's
// browser by the inlined wasm module). python/widget/build.py inlines the imports below.
import { h, fill } from '../../www/src/dom.js';
import { fmt, num } from '../../www/src/format.js';
import { histogramPlot } from '../../www/src/views/hist.js';
import { numbers, plotBlock, exportBar, headlineBox, layerWarnings } from '../../www/src/panels/common.js';
import { rocPlot } from '../../www/src/panels/mia.js';
import { rankPlot } from '../../www/src/panels/ruler.js';
import { epsilonPlot, NAMES } from '../../www/src/panels/epsilon.js';
import { boundsPlot } from '../../www/src/panels/bounds.js';
import { forestPlot, poiPlot, cdPlot } from '../../www/src/views/compare.js';

// Messages reach the widgets in a Python user's words already: the kernel's reports from the package, a browser
// run's from its worker (engine_worker.js, the module's words.rs `python`).

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

/**
 * The page's plots of a report, from the plot data the analysis layer counted for it (`extra`, named as the
 * analyses' outputs name it: SDE `histograms`, RULER `rank_histograms`, epsilon `plots`, leakage bounds `ecdf`, compare
 * `comparison`):
 * lethe.show gets it from the kernel (plots::of_report), lethe.widget from the wasm layer's output. Nothing is
 * counted here; the ROC is drawn from the report's own curve, as on the page.
 */
function plots(report, extra = {}) {
  const r = report.result || {};
  const out = [];
  const block = (title, filename, draw) => out.push(plotBlock({ title, filename: `lethe-${filename}`, draw }).el);
  const roc = r.curve && r.summary && r.tpr_at_fpr ? r : r.audit?.curve && r.audit.summary && r.audit.tpr_at_fpr ? r.audit : null;
  if (roc) block(`${report.command === 'lira' ? 'LiRA: ' : ''}ROC (log–log) with Clopper–Pearson intervals at the target FPRs`, `${report.command}-roc`, (width) => rocPlot(roc, { width }));
  const data = report.command === 'sde' ? extra.histograms : null;
  if (data) {
    const dists = [r.in_training_reference, r.out_of_training_reference, ...(r.targets || []).map((t) => t.distribution)];
    const moments = data.series.map((s, i) => (dists[i]?.moments ? { role: s.role, mean: num(dists[i].moments.mean), sd: num(dists[i].moments.sd) } : null));
    const refs = data.series.filter((s) => s.role !== 'target');
    const targets = data.series.filter((s) => s.role === 'target');
    targets.forEach((t) => {
      const k = data.series.indexOf(t);
      block(`HSIC split-half distributions${targets.length > 1 ? `: ${t.name}` : ''}`, `sde-distributions${targets.length > 1 ? `-${targets.indexOf(t)}` : ''}`, (width) =>
        histogramPlot({ edges: data.edges, series: refs.concat(t) }, {
          width,
          xlabel: 'HSIC(S₁, S₂ shuffled)',
          moments: moments.filter((m, i) => m && (data.series[i].role !== 'target' || i === k)),
          label: 'Overlaid histograms of the in-training, out-of-training and target distributions, with each distribution’s exact mean ± sd over all shuffles',
        }),
      );
    });
  }
  if (report.command === 'ruler') {
    (extra.rank_histograms || []).forEach((hg, k, all) => {
      block(`Nearest-neighbour percentile ranks of forget records${all.length > 1 ? ` (run ${k + 1})` : ''}`, `ruler-ranks-run${k + 1}`, (width) => rankPlot(hg, width));
    });
  }
  if (report.command === 'epsilon') {
    (r.results || []).forEach((v, k) => {
      const plot = extra.plots?.[k];
      if (plot) block(`Per-example ε (${NAMES[v.variant.kind]})`, `epsilon-${v.variant.kind}`, (width) => epsilonPlot(v, plot, width));
    });
  }
  // A comparison: per metric its forest plot, the probability-of-improvement matrix and, across tasks, the
  // critical-difference diagram, as the page's compare panel draws them.
  if (report.command === 'compare' && extra.comparison) {
    const slug = (s) => String(s).replace(/[^\w.-]+/g, '_');
    for (const f of extra.comparison.forest || []) block(`${f.metric}: mean and 95% intervals per method`, `compare-forest-${slug(f.metric)}`, (width) => forestPlot(f, { width }));
    for (const m of extra.comparison.poi || []) block(`${m.metric}: probability of improvement (row better than column)`, `compare-poi-${slug(m.metric)}`, (width) => poiPlot(m, { width }));
    for (const c of extra.comparison.cd || []) block(`${c.metric}: average ranks and critical difference (Friedman p ${fmt(c.p_value)}, ${c.blocks} tasks)`, `compare-cd-${slug(c.metric)}`, (width) => cdPlot(c, { width }));
  }
  // Leakage bounds: the ECDF of the scores, which a `rouge … --bounds` report holds (each generation's ROUGE-L
  // F-measure) and a `bounds` report does not (lethe.widget's run has them: its output carries the ECDF).
  const bounds = report.command === 'rouge' ? r.bounds : report.command === 'bounds' ? r : null;
  if (bounds?.general) {
    const alpha = num(bounds.general.alpha);
    if (extra.ecdf) {
      const gx = bounds.general.x.map(num);
      const i = gx.reduce((b, x, j) => (Math.abs(x - 0.5) < Math.abs(gx[b] - 0.5) ? j : b), 0);
      const marker = gx.length ? { x: gx[i], label: `M_gen(${gx[i]}) = ${fmt(bounds.general.upper[i])}` } : null;
      block('Empirical CDF of the scores with its DKW band', 'bounds-ecdf', (width) => boundsPlot(extra.ecdf, alpha, marker, width));
    } else {
      out.push(h('p', { class: 'muted', 'data-value': 'plot-note' }, 'No plot of the scores: this report holds their bounds, not the scores themselves (a ROUGE-L report with bounds holds both).'));
    }
  }
  return out;
}

/** Every scalar of the result, under a summary: folded when there are more than a screenful (SDE has hundreds). */
function allNumbers(rows) {
  if (!rows.length) return null;
  return h('details', { class: 'all-numbers', open: rows.length <= 24 ? true : null }, h('summary', {}, `All numbers of the result (${rows.length})`), numbers(rows, 'Results'));
}

/** Draws the report given as JSON text into `el`, with the plot data the layer counted for it (see `plots`). */
export function draw(el, text, extra) {
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
      plots(report, extra || {}),
      allNumbers(scalars(report.result, '', [])),
      exportBar({ name: `lethe-${report.command}${report.seed !== null && report.seed !== undefined ? `-seed${report.seed}` : ''}`, report: () => report }),
    ),
  );
}
