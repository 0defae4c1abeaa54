// Topic 5: confidence bounds on leakage. Scores sampled from an adjustable distribution; the ECDF with its DKW band
// (and the true CDF); the Clopper–Pearson bound on one leak event converging as samples grow, beside DKW's; a
// sample-size calculator. analysis/src/teach/bounds.rs `bounds` / `bounds.plan` (lethe::leakage, lethe::binomial — as
// `lethe bounds`).
import { h, fill } from '../dom.js';
import { download } from '../export.js';
import { num } from '../format.js';
import { ecdfPlot } from '../views/ecdf.js';
import { linePlot } from '../views/lines.js';
import { PALETTE } from '../views/svg.js';
import { button, channel, checkbox, debounce, figureBlock, f6, handoff, isAbort, number, prose, readout, responsive, select, siteRoot, slider, topicFrame } from './common.js';

const nOf = (v) => Math.round(10 ** v);

export function boundsTopic(ctx, { number: nr } = {}) {
  const parts = topicFrame({ id: 'bounds', title: 'Confidence bounds on leakage', number: nr });
  fill(
    parts.explain,
    prose(
      'Ask a language model the same question n times and score each answer’s leakage between 0 and 1: 1 if the secret appears, or how much of it appears. What can be promised about the next answer, from n samples only?',
      'The empirical CDF F_n(x), the fraction of scores ≤ x, estimates the true CDF. The Dvoretzky–Kiefer–Wolfowitz inequality puts a band of half-width ε = √(ln(2/α)/2n) around it that holds the whole true CDF with probability at least 1 − α, for any distribution at all (dashed: the true CDF these samples were drawn from). Hence Pr(X > x) ≤ M_gen(x) = 1 − F_n(x) + ε, at every x at once.',
      'For one event — “the answer leaks more than x₀” — count the scores above x₀. With S of n, the Clopper–Pearson interval is exact for a binomial proportion and tighter than the DKW band, because it speaks about one x only. Both shrink like 1/√n: four times the samples halve the width (second figure).',
      'The calculator turns this around: how many samples for a bound of ± w? DKW needs n ≥ ln(2/α)/(2w²) whatever the distribution; Clopper–Pearson depends on the leak rate you expect — rare leaks need fewer samples.',
      'Which α? conbo, the authors’ code, states every bound as two-sided at level 1 − α; the paper’s M_bin and M_gen are one-sided at 1 − α. Lethe follows conbo and offers the paper’s form (the checkbox).',
    ),
  );
  const run = channel(ctx.engine, 'bounds');
  const planCh = channel(ctx.engine, 'bounds.plan');
  const f = {
    family: select({ key: 'family', label: 'Leakage scores', value: 'scores', options: [['scores', 'graded: 0 (no leak) or U^k'], ['flags', 'binary: the secret appeared or not']], onChange: () => (sync(), changed()) }),
    n: slider({ key: 'n', label: 'Samples n (log scale)', min: 1, max: 3.7, step: 0.05, value: Math.log10(200), format: (v) => `n = ${nOf(v)}`, onInput: () => changed() }),
    p0: slider({ key: 'p0', label: 'Share of answers that leak nothing', min: 0, max: 0.95, step: 0.05, value: 0.6, format: (v) => v.toFixed(2), onInput: () => changed() }),
    k: slider({ key: 'k', label: 'Shape k of U^k (larger: smaller scores)', min: 0.2, max: 5, step: 0.1, value: 1.5, format: (v) => v.toFixed(1), onInput: () => changed() }),
    p: slider({ key: 'p', label: 'Leak probability p', min: 0, max: 0.5, step: 0.01, value: 0.05, format: (v) => v.toFixed(2), onInput: () => changed() }),
    x0: slider({ key: 'x0', label: 'Leak event: score above x₀', min: 0, max: 0.99, step: 0.01, value: 0.5, format: (v) => v.toFixed(2), onInput: () => changed() }),
    alpha: select({ key: 'alpha', label: 'α', value: '0.05', options: [['0.01', '0.01'], ['0.05', '0.05'], ['0.1', '0.1'], ['0.2', '0.2']], onChange: () => (changed(), planChanged()) }),
    one_sided: checkbox({ key: 'one_sided', label: 'one-sided (the paper’s M_bin, M_gen)', value: false, onChange: () => (changed(), planChanged()) }),
    seed: number({ key: 'seed', label: 'Seed', value: 0, min: 0, step: 1, onChange: () => changed() }),
  };
  const sync = () => {
    const flags = f.family.get() === 'flags';
    f.p0.el.hidden = flags;
    f.k.el.hidden = flags;
    f.p.el.hidden = !flags;
  };
  sync();
  fill(parts.controls, Object.values(f).map((x) => x.el));
  const spec = () => ({ family: f.family.get(), n: nOf(f.n.get()), p0: f.p0.get(), k: f.k.get(), p: f.p.get(), seed: Math.max(0, Math.floor(f.seed.get() || 0)) });
  const request = () => ({ data: spec(), alpha: Number(f.alpha.get()), x0: f.x0.get(), one_sided: f.one_sided.get() });

  let last = null;
  let lastReq = null;
  const ecdf = responsive((w) =>
    last
      ? ecdfPlot(last.band, { width: w, height: 270, level: `1 − ${lastReq.alpha}`, truth: last.truth, truthLabel: 'true CDF', marker: { x: lastReq.x0, label: `M_gen(${lastReq.x0}) = ${f6(last.m_gen.upper[0])}` }, xlabel: 'leakage score x', label: 'Empirical CDF with its DKW band and the true CDF' })
      : h('div'),
  );
  const conv = responsive((w) => {
    if (!last) return h('div');
    const c = last.convergence;
    const n = c.map((r) => r.n);
    return linePlot(
      [
        { name: `Clopper–Pearson ${lastReq.one_sided ? 'one-sided bound' : 'interval'}`, kind: 'band', x: n, y: c.map((r) => r.lower), y2: c.map((r) => r.upper), color: PALETTE.sky },
        { name: 'CP upper bound', kind: 'line', x: n, y: c.map((r) => r.upper), color: PALETTE.it, legend: false },
        { name: `DKW: M_gen(${lastReq.x0})`, kind: 'line', x: n, y: c.map((r) => r.dkw_upper), color: PALETTE.accent, dash: '6 3' },
        { name: 'observed share above x₀', kind: 'line', x: n, y: c.map((r) => r.rate), color: PALETTE.ink, strokeWidth: 1.2 },
      ],
      { width: w, height: 250, xlog: true, ylim: [0, 1], xlabel: 'samples used (the first n)', ylabel: `Pr(X > ${lastReq.x0})`, hlines: [{ y: last.true_tail, label: `true ${f6(last.true_tail)}`, color: PALETTE.oot }], label: 'Bounds on the leak probability as the number of samples grows' },
    );
  });
  fill(parts.figure, figureBlock('Empirical CDF of the scores, its DKW band, and the true CDF', ecdf.el), figureBlock('Bounds on Pr(score > x₀) from the first n samples', conv.el));

  // The sample-size calculator.
  const plan = {
    width: slider({ key: 'plan_width', label: 'Bound width ± w', min: 0.005, max: 0.2, step: 0.005, value: 0.05, format: (v) => v.toFixed(3), onInput: () => planChanged() }),
    rate: slider({ key: 'plan_rate', label: 'Leak rate you expect', min: 0, max: 0.5, step: 0.01, value: 0, format: (v) => v.toFixed(2), onInput: () => planChanged() }),
  };
  const planOut = h('div', { 'aria-live': 'polite' });
  const planEl = h('div', { class: 'teach-plan' }, h('h3', {}, 'How many samples? (α and sidedness as above)'), h('div', { class: 'teach-controls' }, plan.width.el, plan.rate.el), planOut);
  parts.extra.append(planEl);
  async function planUpdate() {
    const q = { width: plan.width.get(), alpha: Number(f.alpha.get()), leak_rate: plan.rate.get(), one_sided: f.one_sided.get() };
    try {
      const p = await planCh(q);
      fill(
        planOut,
        readout([
          ['DKW band of ± w (any distribution)', String(p.dkw_n), `half-width at that n: ${f6(p.dkw_eps)}`, 'plan.dkw'],
          ['Clopper–Pearson bound ≤ rate + w', String(p.binomial_n), `upper bound at that n: ${f6(p.binomial_upper)}`, 'plan.binomial'],
          ['Enough for both', String(p.n), '', 'plan.n'],
        ]),
      );
      parts.updated();
    } catch (e) {
      if (!isAbort(e)) fill(planOut, h('span', { class: 'error', role: 'alert' }, e.message));
    }
  }
  const planChanged = debounce(planUpdate, 60);

  function render() {
    const r = last;
    const side = lastReq.one_sided ? 'one-sided' : 'two-sided (conbo)';
    fill(
      parts.numbers,
      readout([
        ['n', String(r.scores.length), `${lastReq.data.family === 'flags' ? 'binary flags' : 'graded scores'}, seed ${lastReq.data.seed}`, 'bounds.n'],
        [`M_gen(${lastReq.x0}) ≥ Pr(X > ${lastReq.x0})`, f6(r.m_gen.upper[0]), `DKW, ${side}, ε = ${f6(r.m_gen.eps)}`, 'bounds.mgen'],
        [`Clopper–Pearson on Pr(X > ${lastReq.x0})`, lastReq.one_sided ? `≤ ${f6(r.m_bin.upper)}` : `[${f6(r.m_bin.lower)}, ${f6(r.m_bin.upper)}]`, `${r.m_bin.leaks} of ${r.m_bin.n} above x₀; ${side}`, 'bounds.cp'],
        ['True Pr(X > x₀)', f6(r.true_tail), 'of the distribution the samples came from', 'bounds.true_tail'],
        ['E[X] ∈', `[${f6(r.expectation.lower)}, ${f6(r.expectation.upper)}]`, `sample mean ${f6(r.expectation.mean)}; true mean ${f6(r.true_mean)}`, 'bounds.mean'],
      ]),
    );
    ecdf.render();
    conv.render();
    parts.updated();
  }

  async function update() {
    const req = request();
    lastReq = req;
    renderHandoff();
    parts.busy(true);
    try {
      last = await run(req);
      render();
      parts.ok('');
    } catch (e) {
      if (!isAbort(e)) parts.error(e);
    }
  }
  const changed = debounce(update, 60);

  const exportData = async () => {
    const files = await ctx.engine.request('teach', { topic: 'export', request: { topic: 'bounds', ...lastReq.data } });
    for (const file of files) download(file.name, file.bytes, 'application/octet-stream');
  };
  const renderHandoff = () => {
    const r = lastReq;
    const q = new URLSearchParams({ example: '0', teach: 'bounds', ...Object.fromEntries(Object.entries(r.data).map(([k, v]) => [k, String(v)])), alpha: String(r.alpha), x0: String(r.x0), one_sided: String(r.one_sided) });
    fill(
      parts.handoff,
      handoff({
        text: 'The leakage-bounds panel computes every bound on your own scores (a file or pasted numbers, or ROUGE-L of generations against a secret), with M_gen at any x, the expectation and SD bounds and the ED score. The link opens it on these samples.',
        links: [{ href: `${new URL('index.html', siteRoot()).href}?${q}#lethe-bounds`, label: 'Open these scores in the bounds panel →', action: 'handoff' }],
        cli: [`lethe bounds teach_scores_seed${r.data.seed}.npy --alpha ${r.alpha} --x ${r.x0}${r.one_sided ? ' --one-sided' : ''}`],
      }),
      h('p', {}, button({ action: 'download-data', label: 'Download the scores (.npy)', onClick: () => exportData().catch((e) => parts.error(e)) })),
    );
  };
  const ready = Promise.all([update(), planUpdate()]);
  return { id: 'bounds', el: parts.el, ready, state: () => ({ request: lastReq, result: last }) };
}
