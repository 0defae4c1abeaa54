// Topic 7: one seed is not a result. Runs of two methods with a true difference, drawn at 2, 3, 5 or 10 seeds: each
// method's interval, the test's p-value and the ranking, for one experiment and for the same experiment repeated;
// then six methods with no true difference and the multiple-comparisons trap, uncorrected against Holm. The runs
// are seeded normal draws (draws.js, the simulation only); every statistic is `lethe compare`'s
// (analysis/src/analyses/compare.rs, lethe::compare) run by the worker on the runs table the figure shows.
import { h, fill } from '../dom.js';
import { download } from '../export.js';
import { fmt } from '../format.js';
import { PALETTE, axes, frame, legend, scale, ticks } from '../views/svg.js';
import { button, debounce, figureBlock, handoff, isAbort, number, prose, readout, responsive, select, slider, topicFrame } from './common.js';
import { draw } from './draws.js';

/** The simulated metric: accuracy in %, method B's true mean, and the seed-to-seed spread (sd) of every method. */
export const BASE = 80;
export const SPREAD = 1;
/** How many times the two-method experiment is repeated, and how many six-method experiments the trap counts. */
export const REPEATS = 12;
export const TRAP_EXPERIMENTS = 20;
export const SIX = ['M1', 'M2', 'M3', 'M4', 'M5', 'M6'];
/** The bootstrap resamples of the compare runs (the figures use no bootstrap interval; 1000 keeps them quick). */
const RESAMPLES = 1000;
/** Draw groups: the two-method experiments are groups 0…REPEATS−1, the six-method ones from TRAP_GROUP on. */
export const TRAP_GROUP = 1000;

const round = (v) => Number(v.toFixed(6));
/** The runs of one experiment: {method: values} — each method its own stream, so more seeds keep the first ones. */
export function twoMethods(seed, experiment, n, difference) {
  return { A: draw(seed, experiment, 0, n, BASE + difference, SPREAD).map(round), B: draw(seed, experiment, 1, n, BASE, SPREAD).map(round) };
}
export function sixMethods(seed, experiment, n) {
  return Object.fromEntries(SIX.map((m, i) => [m, draw(seed, TRAP_GROUP + experiment, i, n, BASE, SPREAD).map(round)]));
}

/** A runs table (CSV) of [{task?, runs: {method: values}}]: one row per method × seed. */
export function runsCsv(blocks) {
  const tasks = blocks.length > 1;
  const lines = [tasks ? 'method,seed,task,accuracy' : 'method,seed,accuracy'];
  for (const { task, runs } of blocks) for (const [m, vs] of Object.entries(runs)) vs.forEach((v, s) => lines.push(tasks ? `${m},${s + 1},${task},${v}` : `${m},${s + 1},${v}`));
  return `${lines.join('\n')}\n`;
}

/** Intervals on one axis: rows of [{label, color?, items: [{mean, lo, hi, color, points?}]}], true values marked. */
function intervalPlot(rows, { width, xlabel, markers = [], entries = [], rowH = 22, label, lo: xlo, hi: xhi }) {
  const left = 58;
  const top = entries.length ? 10 + 16 * Math.ceil(entries.reduce((a, e) => a + 24 + e[0].length * 6.9, 0) / Math.max(1, width - left - 16)) + 8 : 12;
  const height = top + rows.length * rowH + 48;
  const { svg, area } = frame({ width, height, m: { l: left, r: 16, t: top, b: 48 }, label });
  const x = scale(xlo, xhi, area.x0, area.x1);
  const y = scale(0, rows.length, area.y0, area.y1);
  axes(svg, area, x, y, { xlabel, xticks: ticks(xlo, xhi, Math.max(4, Math.floor(width / 90))), yticks: [] });
  const clip = (v) => Math.min(area.x1, Math.max(area.x0, v));
  for (const mk of markers) {
    const px = x(mk.x);
    if (px < area.x0 || px > area.x1) continue;
    svg.append(h('svg:line', { x1: px, x2: px, y1: area.y0, y2: area.y1, stroke: mk.color || PALETTE.ink, 'stroke-dasharray': '4 3', 'stroke-width': 1.5 }));
  }
  rows.forEach((r, i) => {
    const cy = y(i + 0.5);
    if (r.shade) svg.append(h('svg:rect', { x: area.x0, y: y(i), width: area.x1 - area.x0, height: rowH, fill: r.shade, 'fill-opacity': 0.14 }));
    svg.append(h('svg:text', { x: area.x0 - 6, y: cy + 4, 'text-anchor': 'end', fill: r.color || PALETTE.ink, 'font-weight': r.color ? 'bold' : null }, r.label));
    r.items.forEach((it, k) => {
      const off = r.items.length > 1 ? (k - (r.items.length - 1) / 2) * Math.min(8, rowH / 3) : 0;
      const py = cy + off;
      for (const [j, v] of (it.points || []).entries()) {
        const jitter = (((j * 7919) % 13) / 13 - 0.5) * rowH * 0.35;
        svg.append(h('svg:circle', { cx: clip(x(v)), cy: py + jitter, r: 3.5, fill: it.color, 'fill-opacity': 0.45 }));
      }
      if (Number.isFinite(it.lo) && Number.isFinite(it.hi)) {
        const a = x(it.lo);
        const b = x(it.hi);
        svg.append(h('svg:line', { x1: clip(a), x2: clip(b), y1: py, y2: py, stroke: it.color, 'stroke-width': 2.5 }));
        // An interval running past the axis ends in an arrow-like open end.
        if (a < area.x0) svg.append(h('svg:path', { d: `M${area.x0 + 6},${py - 4}L${area.x0},${py}L${area.x0 + 6},${py + 4}`, fill: 'none', stroke: it.color, 'stroke-width': 1.5 }));
        if (b > area.x1) svg.append(h('svg:path', { d: `M${area.x1 - 6},${py - 4}L${area.x1},${py}L${area.x1 - 6},${py + 4}`, fill: 'none', stroke: it.color, 'stroke-width': 1.5 }));
      }
      if (Number.isFinite(it.mean)) svg.append(h('svg:rect', { x: clip(x(it.mean)) - 2, y: py - 6, width: 4, height: 12, fill: it.color }, h('svg:title', {}, it.title || '')));
      if (Number.isFinite(it.dot)) svg.append(h('svg:circle', { cx: clip(x(it.dot)), cy: py, r: 4.5, fill: it.fill ? it.color : '#ffffff', stroke: it.color, 'stroke-width': 2 }, h('svg:title', {}, it.title || '')));
    });
  });
  if (entries.length) legend(svg, { ...area, x0: 8 }, entries);
  return svg;
}

/** A log10 axis of p-values: rows of pairs, each its uncorrected p (open) and its Holm-adjusted p (filled). */
function pvaluePlot(rows, { width, label }) {
  const left = 64;
  const entries = [
    ['uncorrected p', PALETTE.oot, 'dot'],
    ['Holm-adjusted p', PALETTE.it, 'dot'],
    ['0.05', PALETTE.ink, 'line'],
  ];
  const top = 10 + 16 * Math.ceil(entries.reduce((a, e) => a + 24 + e[0].length * 6.9, 0) / Math.max(1, width - 24)) + 8;
  const rowH = 16;
  const height = top + rows.length * rowH + 48;
  const { svg, area } = frame({ width, height, m: { l: left, r: 16, t: top, b: 48 }, label });
  const lo = 1e-3;
  const lx = scale(Math.log10(lo), 0, area.x0, area.x1);
  const x = (p) => lx(Math.log10(Math.max(lo, p)));
  const y = scale(0, rows.length, area.y0, area.y1);
  axes(svg, area, x, y, { xlabel: 'p-value (log scale; below 0.001 drawn at 0.001)', xticks: [0.001, 0.01, 0.05, 0.2, 1], yticks: [] });
  svg.append(h('svg:line', { x1: x(0.05), x2: x(0.05), y1: area.y0, y2: area.y1, stroke: PALETTE.ink, 'stroke-dasharray': '4 3', 'stroke-width': 1.5 }));
  rows.forEach((r, i) => {
    const cy = y(i + 0.5);
    if (r.p < 0.05) svg.append(h('svg:rect', { x: area.x0, y: y(i), width: area.x1 - area.x0, height: rowH, fill: PALETTE.oot, 'fill-opacity': 0.12 }));
    svg.append(h('svg:text', { x: area.x0 - 6, y: cy + 4, 'text-anchor': 'end', fill: PALETTE.ink, 'font-size': 11 }, r.label));
    svg.append(h('svg:line', { x1: x(r.p), x2: x(r.adjusted), y1: cy, y2: cy, stroke: '#9aa5b1', 'stroke-width': 1 }));
    svg.append(h('svg:circle', { cx: x(r.p), cy, r: 4, fill: '#ffffff', stroke: PALETTE.oot, 'stroke-width': 2 }, h('svg:title', {}, `${r.label}: p ${fmt(r.p)}`)));
    svg.append(h('svg:circle', { cx: x(r.adjusted), cy, r: 4, fill: PALETTE.it }, h('svg:title', {}, `${r.label}: Holm ${fmt(r.adjusted)}`)));
  });
  legend(svg, { ...area, x0: 8 }, entries);
  return svg;
}

const summary = (report, method, task = null) => report.result.metrics[0].summaries.find((s) => s.method === method && (s.task ?? null) === task);
const ci = (i) => (i ? `[${fmt(i.lo)}, ${fmt(i.hi)}]` : 'none (one seed)');
const pairOf = (report, task = null) => report.result.comparisons.find((c) => (c.task ?? null) === task);

export function seedsTopic(ctx, { number: nr } = {}) {
  const title = 'One seed is not a result: seeds, intervals and many comparisons';
  const parts = topicFrame({ id: 'seeds', title, number: nr });
  fill(
    parts.explain,
    prose(
      'Train a model with another random seed and its scores move. So one run of a method is one draw from that method’s spread of results, and one run of each of two methods says little about which is better.',
      'Here method A is truly better than method B: its accuracy is on average d points higher (the slider; dashed lines: the true means), and every run lands around its method’s mean with a spread (sd) of 1 point from seed to seed. The dots are the runs you drew; the bar through each is the 95% interval of the method’s mean (Student’s t, from those seeds only).',
      'With 2 seeds that interval is very wide: with n seeds it is the sample sd times a t quantile over √n, and the t quantile is 12.7 at 2 seeds, 4.3 at 3, 2.8 at 5 and 2.3 at 10. Redraw: the means swap places, the p-value jumps between draws, and the intervals of most draws overlap. The second figure repeats the same experiment 12 times — rows in orange are draws where B came out ahead of A although A is better.',
      'Lethe’s call (the same as the command line’s lethe compare): the exact permutation test of the difference in means decides (no assumption about the shape of the spread), Welch’s t and Mann–Whitney are shown beside it, and P(A > B) is the chance that a run of A beats a run of B. With 2 seeds per method no test can reach 5% — there are only 6 ways to split 4 runs — so Lethe says “inconclusive” and how large a difference the seeds could have shown.',
      h('h3', {}, 'Six methods, no difference: the multiple-comparisons trap'),
      'Now six methods that are all the same. Compare every pair and you run 15 tests; each alone is wrong 5% of the time, so together some pair looks “significant” far more often than 5% (up to 1 − 0.95¹⁵ ≈ 54% if the tests were independent). Holm’s correction multiplies the smallest p-value by 15, the next by 14, and so on (never letting them decrease), which keeps the chance of any false “better” at most 5%.',
      'The third figure shows one such experiment’s 15 pairs, the last numbers how often, out of 20 experiments, some pair crossed 0.05 without and with Holm. With 2 or 3 seeds even the uncorrected exact test rarely gets there: few seeds cannot show a difference, real or not.',
    ),
  );
  const f = {
    seeds: select({ key: 'seeds', label: 'Seeds per method', value: '3', options: [['2', '2 seeds'], ['3', '3 seeds'], ['5', '5 seeds'], ['10', '10 seeds']], onChange: () => changed() }),
    difference: slider({ key: 'difference', label: 'True difference d (points of accuracy; seed sd = 1)', min: 0, max: 2, step: 0.1, value: 0.8, format: (v) => v.toFixed(1), onInput: () => changed() }),
    seed: number({ key: 'seed', label: 'Draw (seed of the runs)', value: 0, min: 0, step: 1, onChange: () => changed() }),
  };
  const redraw = button({
    action: 'redraw',
    label: 'Redraw the runs',
    secondary: false,
    onClick: () => {
      f.seed.set(Math.max(0, Math.floor(f.seed.get() || 0)) + 1);
      changed();
    },
  });
  fill(parts.controls, Object.values(f).map((x) => x.el), h('div', { class: 'teach-control' }, redraw));
  const request = () => ({ seeds: Number(f.seeds.get()), difference: f.difference.get(), seed: Math.max(0, Math.floor(f.seed.get() || 0)) });

  const compare = (blocks) =>
    ctx.engine.request('run', { analysis: 'compare', request: { runs: { kind: 'text', text: runsCsv(blocks) }, metrics: ['accuracy:higher'], resamples: RESAMPLES, seed: 0 } });

  let last = null;
  let lastReq = null;
  // The x range of the two-method figures: the true means ± 4 sd, so draws and intervals are seen on one scale.
  const range = () => [BASE - 4 * SPREAD, BASE + (lastReq?.difference ?? 0) + 4 * SPREAD];
  const truth = () => [
    { x: BASE + lastReq.difference, color: PALETTE.it },
    { x: BASE, color: PALETTE.oot },
  ];
  const one = responsive((w) => {
    if (!last) return h('div', { class: 'teach-plot-room', style: { height: '190px' } });
    const r = last.one.report;
    const rows = ['A', 'B'].map((m) => {
      const s = summary(r, m);
      return { label: m, items: [{ mean: s.mean, lo: s.t_interval?.lo, hi: s.t_interval?.hi, color: m === 'A' ? PALETTE.it : PALETTE.oot, points: last.one.runs[m], title: `${m}: mean ${fmt(s.mean)}, 95% t interval ${ci(s.t_interval)}` }] };
    });
    const [lo, hi] = range();
    return intervalPlot(rows, { width: w, rowH: 44, lo, hi, xlabel: 'accuracy (%)', markers: truth(), entries: [['a run', '#9aa5b1', 'dot'], ['mean and 95% interval', PALETTE.ink, 'solid'], ['true mean', PALETTE.ink, 'line']], label: 'The runs of methods A and B, each method’s mean and 95% interval, and the true means' });
  });
  const dance = responsive((w) => {
    if (!last) return h('div', { class: 'teach-plot-room', style: { height: '360px' } });
    const rows = last.repeats.map((d, i) => {
      const a = summary(last.repeatsReport, 'A', d.task);
      const b = summary(last.repeatsReport, 'B', d.task);
      const c = pairOf(last.repeatsReport, d.task);
      const flipped = b.mean > a.mean;
      return {
        label: `#${i + 1}`,
        color: flipped ? PALETTE.oot : null,
        shade: flipped ? PALETTE.oot : null,
        items: [
          { mean: a.mean, lo: a.t_interval?.lo, hi: a.t_interval?.hi, color: PALETTE.it, title: `draw ${i + 1}: A ${fmt(a.mean)} ${ci(a.t_interval)}; p ${fmt(c.p_value)}` },
          { mean: b.mean, lo: b.t_interval?.lo, hi: b.t_interval?.hi, color: PALETTE.oot, title: `draw ${i + 1}: B ${fmt(b.mean)} ${ci(b.t_interval)}; p ${fmt(c.p_value)}` },
        ],
      };
    });
    const [lo, hi] = range();
    return intervalPlot(rows, { width: w, rowH: 22, lo, hi, xlabel: 'accuracy (%): mean and 95% interval of each draw', markers: truth(), entries: [['A', PALETTE.it, 'solid'], ['B', PALETTE.oot, 'solid'], ['B ahead of A', PALETTE.oot, undefined]], label: 'The same experiment repeated 12 times: each draw’s means and intervals, draws where B came out ahead marked' });
  });
  const trap = responsive((w) => {
    if (!last) return h('div', { class: 'teach-plot-room', style: { height: '340px' } });
    const rows = pairOf(last.six.report) ? last.six.report.result.comparisons.map((c) => ({ label: `${c.a}–${c.b}`, p: c.p_value, adjusted: c.p_adjusted })).sort((a, b) => a.p - b.p) : [];
    return pvaluePlot(rows, { width: w, label: 'The 15 pairs of six equal methods: each pair’s p-value without and with Holm’s correction' });
  });
  const oneNumbers = h('div');
  const danceNumbers = h('div');
  const trapNumbers = h('div');
  fill(
    parts.figure,
    figureBlock('One experiment: the runs of A and B, each mean with its 95% interval', one.el),
    oneNumbers,
    figureBlock('The same experiment, drawn 12 times (orange rows: B ahead of A)', dance.el),
    danceNumbers,
    h('h3', {}, 'Six methods with no true difference'),
    figureBlock('One experiment’s 15 pairs: p-values without and with Holm', trap.el),
    trapNumbers,
  );

  function render() {
    const r = last.one.report;
    const c = pairOf(r);
    const a = summary(r, 'A');
    const b = summary(r, 'B');
    const n = lastReq.seeds;
    const better = a.mean >= b.mean ? 'A' : 'B';
    fill(
      oneNumbers,
      h('p', { class: 'teach-call', 'data-value': 'seeds.call' }, r.headline.text),
      readout([
        ['Mean of A, 95% interval', `${fmt(a.mean)} ${ci(a.t_interval)}`, `${n} seeds; true mean ${fmt(BASE + lastReq.difference)}`, 'seeds.a'],
        ['Mean of B, 95% interval', `${fmt(b.mean)} ${ci(b.t_interval)}`, `${n} seeds; true mean ${fmt(BASE)}`, 'seeds.b'],
        ['Ranked first', `method ${better}`, better === 'A' ? 'the truth' : 'the wrong way round: B is the worse method', 'seeds.first'],
        ['Difference A − B', fmt(c.difference), `true difference ${fmt(lastReq.difference)}`, 'seeds.difference'],
        [`p-value (${c.test})`, fmt(c.p_value), 'the test Lethe decides with', 'seeds.p'],
        ['Welch’s t-test p', fmt(c.welch?.p_value), c.welch ? `t = ${fmt(c.welch.statistic)}, df = ${fmt(c.welch.df)}` : '', 'seeds.welch'],
        ['Mann–Whitney p', fmt(c.mann_whitney?.p_value), 'rank test', 'seeds.mwu'],
        ['P(A > B)', fmt(c.probability_of_improvement), 'a run of A beats a run of B (ties count ½)', 'seeds.poi'],
        ['Smallest difference these seeds could show', fmt(c.min_detectable_difference), 'at 5%, with 80% power', 'seeds.mdd'],
      ]),
    );
    const flips = last.repeats.filter((d) => summary(last.repeatsReport, 'B', d.task).mean > summary(last.repeatsReport, 'A', d.task).mean).length;
    const sig = last.repeats.filter((d) => pairOf(last.repeatsReport, d.task).p_value < 0.05).length;
    const ps = last.repeats.map((d) => pairOf(last.repeatsReport, d.task).p_value);
    fill(
      danceNumbers,
      readout([
        ['B ranked ahead of A', `${flips} of ${REPEATS}`, 'draws where the worse method came out first', 'seeds.flips'],
        ['p < 0.05 (uncorrected)', `${sig} of ${REPEATS}`, `p from ${fmt(Math.min(...ps))} to ${fmt(Math.max(...ps))}`, 'seeds.significant'],
      ]),
    );
    // The 20 experiments are counted after the figures are drawn (the first is the figure's): "…" until then.
    const counted = last.six.tally.length === TRAP_EXPERIMENTS;
    const raw = counted ? String(last.six.tally.filter((t) => t.raw > 0).length) : `… (${last.six.tally.length} counted)`;
    const holm = counted ? String(last.six.tally.filter((t) => t.holm > 0).length) : '…';
    const k = last.six.report.result.comparisons.length;
    fill(
      trapNumbers,
      readout([
        ['Pairs compared', String(k), 'every pair of six methods', 'seeds.pairs'],
        ['This experiment: p < 0.05', `${last.six.tally[0].raw} uncorrected, ${last.six.tally[0].holm} after Holm`, 'every “better” here is false', 'seeds.trap_one'],
        [`Experiments with some pair p < 0.05, of ${TRAP_EXPERIMENTS}`, raw, 'uncorrected', 'seeds.trap_raw'],
        [`… after Holm, of ${TRAP_EXPERIMENTS}`, holm, 'at most 5% expected', 'seeds.trap_holm'],
      ]),
    );
    one.render();
    dance.render();
    trap.render();
    parts.updated();
  }

  let ticket = 0;
  async function update() {
    const req = request();
    const mine = ++ticket;
    lastReq = req;
    renderHandoff();
    parts.busy(true);
    try {
      const oneRuns = twoMethods(req.seed, 0, req.seeds, req.difference);
      const repeats = Array.from({ length: REPEATS }, (_, e) => ({ task: `draw ${String(e + 1).padStart(2, '0')}`, runs: twoMethods(req.seed, e, req.seeds, req.difference) }));
      const oneReport = await compare([{ runs: oneRuns }]);
      if (mine !== ticket) return;
      const repeatsReport = await compare(repeats);
      if (mine !== ticket) return;
      const tally = [];
      const experiment = async (e) => {
        const runs = sixMethods(req.seed, e, req.seeds);
        const report = await compare([{ runs }]);
        const cs = report.result.comparisons;
        tally.push({ raw: cs.filter((c) => c.p_value < 0.05).length, holm: cs.filter((c) => c.p_adjusted < 0.05).length });
        return { runs, report };
      };
      const first = await experiment(0);
      if (mine !== ticket) return;
      // The figures now; the topic stays busy while the other experiments of the trap are counted.
      last = { request: req, one: { runs: oneRuns, report: oneReport }, repeats, repeatsReport, six: { ...first, tally } };
      render();
      drawnOnce();
      parts.busy(true, `counting the ${TRAP_EXPERIMENTS} experiments of six methods…`);
      for (let e = 1; e < TRAP_EXPERIMENTS; e++) {
        await experiment(e);
        if (mine !== ticket) return;
      }
      render();
      parts.ok('');
    } catch (e) {
      if (mine === ticket && !isAbort(e)) parts.error(/unknown analysis `compare`/.test(e.message) ? new Error('This copy of Lethe’s WebAssembly module has no comparison analysis yet; the command line (lethe compare) computes these numbers.') : e);
    } finally {
      drawnOnce();
    }
  }
  const changed = debounce(update, 80);

  const renderHandoff = () => {
    fill(
      parts.handoff,
      handoff({
        text: 'With runs of your own methods — a table with one row per run (method, seed, optional task, one column per metric) — lethe compare computes every number shown here, for every metric and pair, with the call and its warnings (fewer than 3 seeds, unequal seeds, copied runs). Download the first figure’s runs to see the same numbers.',
        cli: ['lethe compare runs.csv --metric accuracy:higher'],
      }),
      h('p', {}, button({ action: 'download-data', label: 'Download the runs (.csv)', onClick: () => last && download('runs.csv', runsCsv([{ runs: last.one.runs }]), 'text/csv') })),
    );
  };
  // Ready once the first figures are drawn (or the first attempt failed), not after the trap's count.
  let drawnOnce;
  const ready = new Promise((resolve) => (drawnOnce = resolve));
  update();
  return { id: 'seeds', el: parts.el, ready, state: () => ({ request: lastReq, result: last }) };
}
