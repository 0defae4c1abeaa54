// Topic 8: forget quality. TOFU's forget quality is the p-value of the two-sample KS test between the unlearned
// model's truth ratios on the forget set and the retain model's; it rewards matching the retain model, not
// forgetting more (open-unlearning issue 111). Truth ratios are seeded log-normal draws (draws.js, the simulation
// only), written as open-unlearning EVAL files; every number is `lethe forget-quality`'s
// (analysis/src/analyses/tools_ou.rs, lethe::ks::ks_2samp, checked against scipy) run by the worker on those files.
import { h, fill } from '../dom.js';
import { download } from '../export.js';
import { fmt } from '../format.js';
import { linePlot } from '../views/lines.js';
import { PALETTE } from '../views/svg.js';
import { button, debounce, figureBlock, handoff, isAbort, number, prose, readout, responsive, select, slider, topicFrame } from './common.js';
import { stream, normals } from './draws.js';

/** The retain model's truth ratios: log-normal with this median and sd of the natural log. */
export const RETAIN_MEDIAN = 0.6;
export const LOG_SD = 0.5;
/** The draw group of this topic's streams (member 0: retain model, 1: unlearned model). */
export const FQ_GROUP = 2000;
/** The slider's range (log10 of the unlearned model's median truth ratio: 0.158 to 3.98) and the sweep's points
 * across it (every 0.05 in log10). Medians are rounded to 4 decimals, as the tests' reference values take them. */
export const LO = -0.8;
export const HI = 0.6;
export const SWEEP = 29;
export const medianOf = (log10) => Number((10 ** log10).toFixed(4));

const med = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** Truth ratios of one model: exp(ln(median) + sd · z) over the stream's first n normals. */
export function truthRatios(seed, member, n, median, sd = LOG_SD) {
  return normals(stream(seed, FQ_GROUP, member), n).map((z) => Math.exp(Math.log(median) + sd * z));
}

/** An open-unlearning TOFU_EVAL.json holding only `forget_truth_ratio` (its per-question `score`s). */
export function evalFile(ratios) {
  const value_by_index = Object.fromEntries(ratios.map((v, i) => [String(i), { score: v }]));
  const agg = ratios.reduce((a, b) => a + b, 0) / ratios.length;
  return JSON.stringify({ forget_truth_ratio: { agg_value: agg, value_by_index } });
}

/** The ECDF of `v` as step points over [lo, hi]. */
function ecdf(v, lo, hi) {
  const s = [...v].sort((a, b) => a - b);
  const x = [lo];
  const y = [0];
  s.forEach((t, i) => {
    x.push(t);
    y.push((i + 1) / s.length);
  });
  x.push(hi);
  y.push(1);
  return { x, y };
}
const ecdfAt = (v, t) => v.filter((a) => a <= t).length / v.length;

/** Histogram counts (as shares) of `v` in log-spaced bins between lo and hi, as step points. */
function histogram(v, lo, hi, bins) {
  const l0 = Math.log10(lo);
  const w = (Math.log10(hi) - l0) / bins;
  const c = new Array(bins).fill(0);
  for (const a of v) c[Math.min(bins - 1, Math.max(0, Math.floor((Math.log10(a) - l0) / w)))] += 1;
  const x = [];
  const y = [];
  c.forEach((k, i) => {
    x.push(10 ** (l0 + i * w), 10 ** (l0 + (i + 1) * w));
    y.push(k / v.length, k / v.length);
  });
  return { x, y };
}

export function fqTopic(ctx, { number: nr } = {}) {
  const title = 'Forget quality: a KS test against the retain model, not a score of forgetting';
  const parts = topicFrame({ id: 'forget-quality', title, number: nr });
  fill(
    parts.explain,
    prose(
      'TOFU asks a model questions about fictitious authors it was fine-tuned on. For each question of the forget set the truth ratio compares how likely the model finds wrong (perturbed) answers against the right (paraphrased) one: near 0 the model knows the answer, near 1 it cannot tell right from wrong, above 1 it prefers the wrong ones.',
      'Forget quality is not a measure of how much was forgotten. It is the p-value of the two-sample Kolmogorov–Smirnov test between the unlearned model’s truth ratios and those of the retain model — the same model trained without the forget set. The KS statistic D is the largest vertical gap between the two empirical CDFs (marked in the second figure); the p-value says how surprising a gap that large would be if both models’ truth ratios came from one distribution.',
      'Move the slider: the unlearned model’s truth ratios shift (blue). Where they sit over the retain model’s (orange), D is small and forget quality is high. Move them further right — the model now prefers wrong answers more than a model that never saw the forget set — and it “looks more forgotten”, yet D grows again and forget quality falls, as far as it falls for a model that forgot too little. The third figure shows the whole curve: it peaks where the unlearned model matches the retain model, not at the most forgetting. This is why a method that forgets harder can score a worse forget quality (open-unlearning’s users ask this, its issue 111).',
      'Two more things to see: a spread that differs from the retain model’s lowers forget quality even with the same median, and with 40 questions (TOFU’s forget01) the test has little power — forget quality stays high over a wide range — while 400 (forget10) separates small shifts. A p-value is not a score: a high one means “no evidence of a difference”, not “the same”.',
    ),
  );
  const f = {
    median: slider({ key: 'median', label: 'Unlearned model: typical truth ratio (median, log scale)', min: LO, max: HI, step: 0.02, value: 0.08, format: (v) => (10 ** v).toFixed(2), onInput: () => changed() }),
    spread: slider({ key: 'spread', label: 'Unlearned model: spread (sd of the log truth ratio)', min: 0.2, max: 1, step: 0.05, value: LOG_SD, format: (v) => v.toFixed(2), onInput: () => (changed(), sweepChanged()) }),
    n: select({ key: 'n', label: 'Forget-set questions', value: '400', options: [['40', '40 (forget01)'], ['200', '200 (forget05)'], ['400', '400 (forget10)']], onChange: () => (changed(), sweepChanged()) }),
    seed: number({ key: 'seed', label: 'Seed', value: 0, min: 0, step: 1, onChange: () => (changed(), sweepChanged()) }),
  };
  fill(parts.controls, Object.values(f).map((x) => x.el));
  const request = () => ({ median: medianOf(f.median.get()), spread: f.spread.get(), n: Number(f.n.get()), seed: Math.max(0, Math.floor(f.seed.get() || 0)) });

  // The files go to the worker as sources; the ones of the previous request are removed.
  const held = new Set();
  const add = async (text, name) => {
    const source = ctx.engine.newSource();
    held.add(source);
    await ctx.engine.request('add', { source, bytes: new TextEncoder().encode(text), name, inspect: false });
    return source;
  };
  const drop = (sources) => {
    for (const s of sources) {
      held.delete(s);
      ctx.engine.request('remove', { source: s }).catch(() => {});
    }
  };
  const forgetQuality = async (unlearned, retain) => {
    const u = await add(evalFile(unlearned), 'unlearned_TOFU_EVAL.json');
    const r = await add(evalFile(retain), 'retain_TOFU_EVAL.json');
    try {
      return await ctx.engine.request('run', { analysis: 'forget-quality', request: { unlearned: { source: u }, retain: { source: r }, method: 'auto', alternative: 'two-sided' } });
    } finally {
      drop([u, r]);
    }
  };

  let last = null;
  let lastReq = null;
  let sweep = null;
  const XLIM = [0.05, 12];
  const hist = responsive((w) => {
    if (!last) return h('div', { style: { height: '250px' } });
    const u = histogram(last.unlearned, XLIM[0], XLIM[1], 36);
    const r = histogram(last.retain, XLIM[0], XLIM[1], 36);
    return linePlot(
      [
        { name: 'retain model', kind: 'line', x: r.x, y: r.y, color: PALETTE.oot },
        { name: 'unlearned model', kind: 'line', x: u.x, y: u.y, color: PALETTE.it },
      ],
      { width: w, height: 250, xlog: true, xlim: XLIM, xlabel: 'truth ratio (log scale; higher: prefers wrong answers)', ylabel: 'share of questions', markers: [{ x: 1, label: '1', color: '#5f6b7a' }], label: 'Histograms of the truth ratios of the retain and the unlearned model' },
    );
  });
  const cdf = responsive((w) => {
    if (!last) return h('div', { style: { height: '270px' } });
    const ks = last.report.result.ks;
    const u = ecdf(last.unlearned, XLIM[0], XLIM[1]);
    const r = ecdf(last.retain, XLIM[0], XLIM[1]);
    const at = ks.statistic_location;
    const gap = [ecdfAt(last.unlearned, at), ecdfAt(last.retain, at)];
    return linePlot(
      [
        { name: 'retain model', kind: 'step', x: r.x, y: r.y, color: PALETTE.oot },
        { name: 'unlearned model', kind: 'step', x: u.x, y: u.y, color: PALETTE.it },
        { name: `KS distance D = ${fmt(ks.statistic)}`, kind: 'line', x: [at, at], y: gap, color: PALETTE.ink, strokeWidth: 3 },
      ],
      { width: w, height: 270, xlog: true, xlim: XLIM, ylim: [0, 1], xlabel: 'truth ratio (log scale)', ylabel: 'share of questions ≤ x', label: 'Empirical CDFs of the two models’ truth ratios with the KS distance marked' },
    );
  });
  const curve = responsive((w) => {
    if (!sweep || !last) return h('div', { style: { height: '250px' } });
    const floor = -30;
    const y = (p) => Math.max(floor, Math.log10(p));
    return linePlot(
      [
        { name: 'log₁₀ forget quality', kind: 'line', x: sweep.map((s) => s.median), y: sweep.map((s) => y(s.p)), color: PALETTE.it },
        { name: 'this model', kind: 'points', x: [lastReq.median], y: [y(last.report.result.forget_quality)], color: PALETTE.it },
      ],
      { width: w, height: 250, xlog: true, ylim: [floor, 0], xlabel: 'unlearned model’s median truth ratio (log scale)', ylabel: 'log₁₀ forget quality', markers: [{ x: RETAIN_MEDIAN, label: 'retain', color: PALETTE.oot }], hlines: [{ y: Math.log10(0.05), label: '0.05', color: '#5f6b7a' }], label: 'Forget quality against the unlearned model’s median truth ratio: highest where it matches the retain model' },
    );
  });
  fill(
    parts.figure,
    figureBlock('Truth ratios on the forget set: retain model (orange) and unlearned model (blue)', hist.el),
    figureBlock('Their empirical CDFs and the KS distance D (black bar)', cdf.el),
    figureBlock('Forget quality as the unlearned model moves (log scale; below 1e-30 drawn at 1e-30)', curve.el, `Same seed, questions and spread; ${SWEEP} unlearned models from 0.16 to 4.`),
  );

  function render() {
    const r = last.report.result;
    const mu = med(last.unlearned);
    const mr = med(last.retain);
    fill(
      parts.numbers,
      h('p', { class: 'teach-call', 'data-value': 'fq.call' }, last.report.headline.text),
      readout([
        ['Forget quality (KS p-value)', fmt(r.forget_quality), `${r.ks.method_used === 'exact' ? 'exact' : 'asymptotic'} p-value, two-sided`, 'fq.p'],
        ['KS distance D', fmt(r.ks.statistic), `largest gap between the CDFs, at truth ratio ${fmt(r.ks.statistic_location)}`, 'fq.d'],
        ['Median truth ratio, unlearned', fmt(mu), mu > mr ? 'looks more forgotten than the retain model' : 'looks less forgotten than the retain model', 'fq.median_u'],
        ['Median truth ratio, retain', fmt(mr), `${r.n_retain} questions`, 'fq.median_r'],
        ['Best forget quality on the curve', sweep ? `${fmt(Math.max(...sweep.map((s) => s.p)))} at median ${fmt(sweep.reduce((a, b) => (b.p > a.p ? b : a)).median)}` : '…', 'where the unlearned model matches the retain model', 'fq.best'],
      ]),
    );
    hist.render();
    cdf.render();
    curve.render();
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
      const retain = truthRatios(req.seed, 0, req.n, RETAIN_MEDIAN);
      const unlearned = truthRatios(req.seed, 1, req.n, req.median, req.spread);
      const report = await forgetQuality(unlearned, retain);
      if (mine !== ticket) return;
      last = { request: req, retain, unlearned, report };
      if (sweep && sweep.key === sweepKey(req)) render();
      parts.ok('');
    } catch (e) {
      if (mine === ticket && !isAbort(e)) parts.error(e);
    }
  }
  const sweepKey = (r) => `${r.n}/${r.spread}/${r.seed}`;
  let sweepTicket = 0;
  async function sweepUpdate() {
    const req = request();
    const mine = ++sweepTicket;
    try {
      const retain = truthRatios(req.seed, 0, req.n, RETAIN_MEDIAN);
      const out = [];
      for (let i = 0; i < SWEEP; i++) {
        const median = medianOf(LO + ((HI - LO) * i) / (SWEEP - 1));
        const rep = await forgetQuality(truthRatios(req.seed, 1, req.n, median, req.spread), retain);
        if (mine !== sweepTicket) return;
        out.push({ median, p: rep.result.forget_quality });
      }
      out.key = sweepKey(req);
      sweep = out;
      if (last && sweepKey(last.request) === sweep.key) render();
    } catch (e) {
      if (mine === sweepTicket && !isAbort(e)) parts.error(e);
    }
  }
  const changed = debounce(update, 60);
  const sweepChanged = debounce(sweepUpdate, 200);

  const renderHandoff = () => {
    fill(
      parts.handoff,
      handoff({
        text: 'With the evaluation files of your own unlearned and retain models (open-unlearning’s TOFU_EVAL.json, or TOFU’s eval_log_forget.json), the command line recomputes forget quality exactly as here, says when the file’s stated value came from another retain model, and when too few questions make the test unable to show a difference. Download this figure’s two files to see the same numbers.',
        cli: ['lethe forget-quality --unlearned unlearned_TOFU_EVAL.json --retain retain_TOFU_EVAL.json'],
      }),
      h(
        'p',
        {},
        button({
          action: 'download-data',
          label: 'Download the two EVAL files (.json)',
          onClick: () => {
            if (!last) return;
            download('unlearned_TOFU_EVAL.json', evalFile(last.unlearned), 'application/json');
            download('retain_TOFU_EVAL.json', evalFile(last.retain), 'application/json');
          },
        }),
      ),
    );
  };
  const ready = Promise.all([update(), sweepUpdate()]).then(() => {
    if (last && sweep) render();
  });
  return { id: 'forget-quality', el: parts.el, ready, state: () => ({ request: lastReq, result: last, sweep }) };
}
