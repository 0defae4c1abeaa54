// A Lethe report drawn with the page's own modules: headline, warnings, plots, numbers, JSON/SVG/PNG exports. Used by
// lethe.show (view.js: a report computed in the kernel) and lethe.widget (run.js: a report computed in the notebook's
// browser by the inlined wasm module). python/widget/build.py inlines the imports below.
import { h, fill } from '../../www/src/dom.js';
import { fmt, num } from '../../www/src/format.js';
import { histogramPlot } from '../../www/src/views/hist.js';
import { numbers, plotBlock, exportBar, headlineBox, layerWarnings } from '../../www/src/panels/common.js';
import { rocPlot } from '../../www/src/panels/mia.js';

/** Every scalar of a value under its dotted path (arrays are left to the plots and the JSON export). */
function scalars(v, path, out) {
  if (v === null || v === undefined) return out;
  if (Array.isArray(v)) return out;
  if (typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) scalars(x, path ? `${path}.${k}` : k, out);
    return out;
  }
  out.push([path, typeof v === 'number' && !Number.isInteger(v) ? fmt(v) : String(v), null, path]);
  return out;
}

/** Equal-width counts of each series over their joint range (the page's SDE histogram gets its counts from the core). */
function binned(series, bins) {
  const all = series.flatMap((s) => s.values).filter(Number.isFinite);
  if (!all.length) return null;
  let lo = Math.min(...all);
  let hi = Math.max(...all);
  if (!(hi > lo)) hi = lo + 1;
  const edges = Array.from({ length: bins + 1 }, (_, i) => lo + ((hi - lo) * i) / bins);
  return {
    edges,
    series: series.map((s) => {
      const counts = new Array(bins).fill(0);
      for (const x of s.values) if (Number.isFinite(x)) counts[Math.min(bins - 1, Math.floor(((x - lo) / (hi - lo)) * bins))]++;
      return { name: s.name, role: s.role, counts };
    }),
  };
}

function plots(report) {
  const r = report.result || {};
  const out = [];
  if (r.curve && r.summary && r.tpr_at_fpr) {
    out.push(plotBlock({ title: 'ROC (log–log) with Clopper–Pearson intervals at the target FPRs', filename: `lethe-${report.command}-roc`, draw: (width) => rocPlot(r, { width }) }).el);
  }
  if (report.command === 'sde' && r.in_training_reference?.values) {
    const series = [
      { name: 'in-training', role: 'it', values: r.in_training_reference.values.map(num) },
      { name: 'out-of-training', role: 'oot', values: (r.out_of_training_reference?.values || []).map(num) },
      ...(r.targets || []).filter((t) => t.distribution?.values).map((t) => ({ name: t.label || t.name, role: 'target', values: t.distribution.values.map(num) })),
    ];
    const bins = Number(report.parameters?.bins) || 30;
    series.forEach((s, k) => {
      if (s.role !== 'target') return;
      const data = binned([series[0], series[1], s], bins);
      if (!data) return;
      out.push(
        plotBlock({
          title: `HSIC split-half distributions: ${s.name}`,
          filename: `lethe-sde-distributions-${k - 2}`,
          draw: (width) => histogramPlot(data, { width, xlabel: 'HSIC(S₁, S₂ shuffled)', label: 'Overlaid histograms of the in-training, out-of-training and target distributions' }),
        }).el,
      );
    });
  }
  return out;
}

/** Draws the report given as JSON text into `el`. */
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
      numbers(scalars(report.result, '', []), 'Results'),
      exportBar({ name: `lethe-${report.command}${report.seed !== null && report.seed !== undefined ? `-seed${report.seed}` : ''}`, report: () => report }),
    ),
  );
}
