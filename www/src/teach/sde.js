// Topic 2: split-half dependence (SDE). The paper's argument, then what the numbers show on the built-in digits
// models: the three distributions and the JSD verdict, how the verdict changes with the reference draw, the exact
// shuffle mean (each half's kernel spread), the calibrated verdict, and the |S| / σ trends (paper Figure 3 and
// Table 1) run live. Every number: web/src/teach.rs `sde.experiment` / `sde.sweep` (the steps of `lethe sde` and
// `lethe calibrate`).
import { h, fill } from '../dom.js';
import { num } from '../format.js';
import { histogramPlot } from '../views/hist.js';
import { linePlot } from '../views/lines.js';
import { stripPlot } from '../views/strip.js';
import { PALETTE, SERIES } from '../views/svg.js';
import { button, channel, debounce, figureBlock, f6, handoff, isAbort, number, prose, readout, responsive, select, siteRoot, slider, topicFrame } from './common.js';

const FILES = ['act_original.npy', 'act_retrained.npy', 'act_unlearned.npy', 'softmax.npz'];
const DIM = { penultimate: 128, softmax: 10 };
const MULTIPLES = [0.125, 0.25, 0.5, 1, 2, 4, 8];
const SIZES = [20, 40, 60, 80, 100, 120, 140];
const sig4 = (v) => Number(v.toPrecision(4));
const RULE_COLORS = {
  'paper (JSD, one reference pair)': PALETTE.oot,
  calibrated: PALETTE.it,
  'nearest exact mean (single pair)': PALETTE.purple,
  'whole-subset kernel dispersion': PALETTE.accent,
  'mean max-softmax confidence': PALETTE.target,
};
const SHORT = {
  'paper (JSD, one reference pair)': 'paper JSD rule',
  calibrated: 'calibrated (exact means)',
  'nearest exact mean (single pair)': 'nearest exact mean',
  'whole-subset kernel dispersion': 'kernel dispersion',
  'mean max-softmax confidence': 'max-softmax confidence',
};

/** The bandwidth choices: sqrt(dim), the median heuristic, and fixed multiples of sqrt(dim). */
function sigmaOptions(rep) {
  const root = Math.sqrt(DIM[rep]);
  return [
    ['sqrt_dim', `sqrt(dim) = ${sig4(root)} (paper default)`],
    ['median', 'median heuristic'],
    ...MULTIPLES.filter((m) => m !== 1).map((m) => [String(sig4(m * root)), `${sig4(m * root)} (${m} × sqrt(dim))`]),
  ];
}
const sigmaValue = (v) => (v === 'sqrt_dim' || v === 'median' ? v : { fixed: Number(v) });
const sigmaText = (s) => (typeof s === 'string' ? s : String(s.fixed));

export function sdeTopic(ctx, { number: nr } = {}) {
  const parts = topicFrame({ id: 'sde', title: 'Split-half dependence (SDE): the argument, and what the numbers show', number: nr });
  fill(
    parts.explain,
    h('h3', {}, 'The argument'),
    prose(
      'A model is trained on all its training examples at once: every weight update is pulled by many of them, so the model’s outputs on two training examples share a common influence. The SDE paper (ICLR 2026) turns this into a test. Split a subset S of examples into halves S1 and S2 and measure the dependence between the model’s outputs on the two halves with HSIC (topic 1): training should couple the halves, so a subset the model was trained on should show more split-half dependence than one it never saw.',
      'To get a distribution instead of one number, S2 is shuffled T = 200 times, giving H(S). A target subset is called “in training” when H(target) is closer — by Jensen–Shannon divergence of two 30-bin histograms — to H(S_IT) of a reference subset known to be in training than to H(S_OOT) of one known not to be.',
    ),
    h('h3', {}, 'What the numbers show'),
    prose(
      'S1 and S2 hold different rows, so how their rows are paired is arbitrary: every shuffled value, the unshuffled one included, is a draw from HSIC’s permutation null. Its exact mean over all shuffles has a closed form,',
      h('p', { class: 'teach-formula' }, 'E[HSIC] = h · (1 − K̄₁) · (1 − L̄₂,off) / (h − 1)²'),
      'with h rows per half, K̄₁ the mean similarity within S1 (all entries of its kernel) and L̄₂,off the mean similarity between distinct rows of S2. No term links the halves: the statistic measures how spread out each half’s outputs are, not a dependence between them. A subset’s 200 shuffles scatter around that mean more widely than subsets differ from each other, so the verdict changes with the reference pair drawn — see the second figure.',
      'Lethe’s calibrated verdict compares the exact means instead (no shuffles, no histogram noise): R reference subsets per class give each class’s mean and spread, and a target is called by the side of the midpoint it falls on, in reference standard deviations.',
    ),
    h(
      'div',
      { class: 'teach-honest', role: 'note' },
      h('strong', {}, 'Where it fails'),
      prose(
        'On the penultimate activations of these small MLPs every rule is near chance: the two reference classes are less than one standard deviation apart (docs/sde-calibration.md measures F1 0.48–0.63 over 5 splits, for the paper’s rule and the calibrated one alike).',
        'On the softmax outputs the rules do better (F1 ≈ 0.65 for the paper’s rule, ≈ 0.74 calibrated), but what they track is the model’s confidence: the mean max-softmax confidence alone reaches F1 ≈ 0.96 with the same references. The paper used ResNet-18 on CIFAR and larger subsets; these are small models on small data. The figures show the signal where it is, and show when it is not there.',
      ),
    ),
  );

  const exp = channel(ctx.engine, 'sde.experiment');
  const f = {
    representation: select({ key: 'representation', label: 'Model outputs', value: 'softmax', options: [['softmax', 'softmax outputs (10-d)'], ['penultimate', 'penultimate activations (128-d)']], onChange: () => (syncSigma(), changed()) }),
    model: select({ key: 'model', label: 'Model', value: 'original', options: [['original', 'original (trained on everything)'], ['retrained', 'retrained without the forget set'], ['unlearned', 'unlearned (fine-tuned 5 epochs on the rest)']], onChange: () => changed() }),
    target: select({ key: 'target', label: 'Target subset', value: 'forget', options: [['forget', 'drawn from the forget set D_f'], ['retain', 'drawn from retain rows (always in training)']], onChange: () => changed() }),
    size: slider({ key: 'size', label: 'Subset size |S|', min: 20, max: 140, step: 10, value: 100, onInput: () => changed() }),
    sigma: select({ key: 'sigma', label: 'Bandwidth σ', value: 'sqrt_dim', options: sigmaOptions('softmax'), onChange: () => changed() }),
    shuffles: slider({ key: 'shuffles', label: 'Shuffles T', min: 50, max: 400, step: 50, value: 200, onInput: () => changed() }),
    references: slider({ key: 'references', label: 'Reference pairs R', min: 2, max: 20, step: 1, value: 10, onInput: () => changed() }),
    seed: number({ key: 'seed', label: 'Seed (subset draws)', value: 0, min: 0, step: 1, onChange: () => changed() }),
  };
  const syncSigma = () => {
    const cur = f.sigma.get();
    fill(f.sigma.input, sigmaOptions(f.representation.get()).map(([v, t]) => h('option', { value: v }, t)));
    f.sigma.set(cur === 'median' ? 'median' : 'sqrt_dim');
  };
  fill(parts.controls, Object.values(f).map((x) => x.el));

  const request = () => ({
    representation: f.representation.get(),
    model: f.model.get(),
    target: f.target.get(),
    size: f.size.get(),
    sigma: sigmaValue(f.sigma.get()),
    shuffles: f.shuffles.get(),
    references: f.references.get(),
    seed: Math.max(0, Math.floor(f.seed.get() || 0)),
  });

  let last = null;
  let lastReq = null;
  const distPlot = responsive((w) => {
    if (!last) return h('div', { class: 'muted' }, 'loading the digits example…');
    const s = last.sde;
    const means = [
      { x: s.in_training_reference.moments.mean, color: PALETTE.it },
      { x: s.out_of_training_reference.moments.mean, color: PALETTE.oot },
      { x: s.targets[0].distribution.moments.mean, color: PALETTE.target },
    ];
    return histogramPlot(last.histograms, { width: w, height: 270, xlabel: 'HSIC(S1, S2 shuffled)', labels: { it: 'in-training reference', oot: 'out-of-training reference', target: 'target' }, markers: means.map((m) => ({ ...m, label: '' })), label: 'Histograms of the three split-half distributions, with their exact means' });
  });
  const pairPlot = responsive((w) => {
    if (!last) return h('div');
    const pts = last.pairs.map((p, k) => ({
      value: num(p.jsd_target_it) - num(p.jsd_target_oot),
      color: p.in_training ? PALETTE.it : PALETTE.oot,
      title: `pair ${k + 1}: JSD to IT ${f6(p.jsd_target_it)}, to OOT ${f6(p.jsd_target_oot)} → ${p.in_training ? 'in' : 'out of'} training`,
    }));
    return stripPlot([{ label: 'reference pairs', points: pts }], {
      width: w,
      xlabel: 'JSD(target, IT) − JSD(target, OOT)   (negative: called in training)',
      markers: [{ x: 0, label: 'tie' }],
      legend: [['called in training', PALETTE.it, 'dot'], ['called out of training', PALETTE.oot, 'dot']],
      label: 'The paper verdict with each reference pair',
    });
  });
  const meanPlot = responsive((w) => {
    if (!last) return h('div');
    const c = last.calibrated;
    const t = c.targets[0];
    const dot = (color, title) => (v) => ({ value: v, color, title: `${title}: exact mean ${f6(v)}` });
    return stripPlot(
      [
        { label: 'in-training refs', points: c.in_training.stats.map((s) => s.moments.mean).map(dot(PALETTE.it, 'in-training reference')) },
        { label: 'out-of-training', points: c.out_of_training.stats.map((s) => s.moments.mean).map(dot(PALETTE.oot, 'out-of-training reference')) },
        { label: 'target', points: [dot(PALETTE.target, 'target')(t.stats.moments.mean)] },
      ],
      { width: w, xlabel: 'exact mean of the shuffle distribution (no shuffles needed)', markers: c.in_training.stats.length > 1 ? [{ x: c.rule.threshold, label: 'midpoint' }] : [], label: 'Exact shuffle means of every reference subset and of the target' },
    );
  });
  const verdictEl = h('div', { 'aria-live': 'polite' });
  const pairText = h('p', { class: 'teach-plot-note' });
  const calText = h('div', {});
  const notes = h('div', {});
  fill(
    parts.figure,
    verdictEl,
    figureBlock('The three distributions H(S) over T shuffles (dashed: each one’s exact mean)', distPlot.el),
    figureBlock('The paper’s verdict against each of R reference pairs (the target’s distribution stays the same)', pairPlot.el, null),
    pairText,
    figureBlock('Calibrated: exact shuffle means of R reference subsets per class and of the target', meanPlot.el),
    calText,
    notes,
  );

  const callText = (c) => (c === 'in_training' ? 'in training' : c === 'out_of_training' ? 'out of training' : 'inconclusive');
  const truthText = { in: 'in training', out: 'not in training', unlearned: 'in the original training data; the unlearned model was fine-tuned to forget them' };

  function render() {
    const e = last;
    const s = e.sde;
    const v = s.targets[0].verdict;
    const c = e.calibrated;
    const t = c.targets[0];
    const inCount = e.pairs_in_training;
    fill(
      verdictEl,
      h('p', { class: 'muted' }, `Target: ${e.target_rows.length} rows ${lastReq.target === 'forget' ? 'of the forget set' : 'of the retain rows'} — ${truthText[e.truth]} under the ${lastReq.model} model.`),
      h('p', { class: `teach-verdict teach-verdict-${v.in_training ? 'in' : 'out'}`, 'data-value': 'sde.paper' }, `Paper’s verdict (first reference pair): ${v.in_training ? 'in training' : 'out of training'}`),
    );
    fill(pairText, `${inCount} of ${e.pairs.length} reference pairs call the target in training, ${e.pairs.length - inCount} call it out of training.`);
    const dispersion = callText(t.dispersion);
    const confidence = t.confidence ? callText(t.confidence) : null;
    fill(
      calText,
      h('p', { class: `teach-verdict teach-verdict-${t.calibrated === 'in_training' ? 'in' : 'out'}`, 'data-value': 'sde.calibrated' }, `Calibrated verdict: ${callText(t.calibrated)}`),
      h('p', { class: 'teach-plot-note' }, `Same references and rule on simpler statistics: whole-subset kernel dispersion → ${dispersion}${confidence ? `; mean max-softmax confidence → ${confidence}` : ''}.`),
    );
    fill(
      parts.numbers,
      readout([
        ['JSD(target, IT) / JSD(target, OOT)', `${f6(v.jsd_target_it)} / ${f6(v.jsd_target_oot)}`, 'first reference pair; 30 bins', 'sde.jsd'],
        ['References separable? (Mann–Whitney p)', f6(s.reference_separation.p_value), 'one-sided H(IT) > H(OOT); the paper asks p < 0.01', 'sde.separation_p'],
        ['Pairs calling it in training', `${inCount} of ${e.pairs.length}`, 'the paper’s rule, each reference pair', 'sde.pairs_in'],
        ['Target’s exact mean', f6(t.stats.moments.mean), `h = ${e.exact_mean.half}: h(1 − ${f6(e.exact_mean.k_mean_all)})(1 − ${f6(e.exact_mean.l_mean_offdiag)})/(h − 1)² = ${f6(e.exact_mean.closed_form)}`, 'sde.exact_mean'],
        ['Mean of its T shuffles', f6(e.exact_mean.shuffle_mean), `sd ${f6(s.targets[0].distribution.moments.sd)} exactly (over all shuffles)`, 'sde.shuffle_mean'],
        ['Reference classes apart', `${f6(c.rule.separation)} sds`, c.rule.separation < 1 ? 'under 1: too close to tell subsets apart' : 'in pooled reference standard deviations', 'sde.class_separation'],
        ['Target score z', f6(t.score), 'signed distance from the midpoint, in reference sds (positive: in-training side)', 'sde.z'],
      ]),
    );
    fill(notes, c.notes.length || c.warnings.length ? h('div', { class: 'warnings', role: 'note' }, h('strong', {}, 'What Lethe’s report says'), h('ul', {}, [...c.notes, ...c.warnings].map((n) => h('li', {}, n)))) : null);
    distPlot.render();
    pairPlot.render();
    meanPlot.render();
    parts.updated();
  }

  async function update() {
    const req = request();
    lastReq = req;
    renderHandoff();
    parts.busy(true, 'computing R reference pairs, the calibrated verdict and the target…');
    try {
      const e = await exp(req);
      last = e;
      render();
      parts.ok('');
    } catch (err) {
      if (!isAbort(err)) parts.error(err);
    }
  }
  const changed = debounce(update, 150);

  // --- The |S| and σ trends (paper Figure 3 / Table 1), one cell per request, cancellable. ---
  const sweepNote = h('p', { class: 'muted teach-note' });
  const sizePlotHolder = h('div');
  const sigmaPlotHolder = h('div');
  let sweep = { size: [], sigma: [], gen: 0, running: false };
  const sweepBtn = button({ action: 'sweep', label: 'Run the |S| and σ trends', secondary: false, onClick: () => runSweep() });
  const stopBtn = button({ action: 'stop-sweep', label: 'Stop', onClick: () => stopSweep() });
  stopBtn.disabled = true;
  const f1Plot = (cells, xOf, opts) => {
    const rules = [...new Set(cells.flatMap((c) => c.f1.map(([r]) => r)))].filter((r) => r !== 'nearest exact mean (single pair)' && r !== 'whole-subset kernel dispersion');
    const series = rules.map((r, i) => ({
      name: SHORT[r] || r,
      color: RULE_COLORS[r] || SERIES[i],
      kind: 'line',
      x: cells.map(xOf),
      y: cells.map((c) => c.f1.find(([q]) => q === r)?.[1] ?? NaN),
    }));
    const pts = series.map((s) => ({ ...s, kind: 'points', legend: false, name: '' }));
    return linePlot([...series, ...pts], { ...opts, ylim: [0, 1], hlines: [{ y: 0.5, label: 'chance' }], ylabel: 'F1' });
  };
  const sizePlot = responsive((w) => (sweep.size.length ? f1Plot(sweep.size, (c) => c.size, { width: w, height: 240, xlabel: 'subset size |S|', label: 'F1 against subset size' }) : h('div', { class: 'muted' }, 'Not run yet.')));
  const sigmaPlot = responsive((w) =>
    sweep.sigma.length
      ? f1Plot(sweep.sigma, (c) => num(c.sigma), { width: w, height: 240, xlabel: 'bandwidth σ (log scale)', xlog: true, markers: [{ x: Math.sqrt(DIM[sweepRep]), label: 'sqrt(dim)' }], label: 'F1 against kernel bandwidth' })
      : h('div', { class: 'muted' }, 'Not run yet.'),
  );
  fill(sizePlotHolder, sizePlot.el);
  fill(sigmaPlotHolder, sigmaPlot.el);
  let sweepRep = 'softmax';
  const sweepEl = h(
    'div',
    { class: 'teach-sweep', 'data-role': 'sweep' },
    h('h3', {}, 'What changes with |S| and σ (the paper’s Table 1 and Figure 3, live)'),
    h('p', {}, 'A controlled experiment on the retrained model: 10 targets from the retain rows (in training) and 10 from the forget set (not), R = 10 reference subsets per class, T = 100 shuffles, for the outputs chosen above. F1 = 1 tells every target apart; 0.5 is chance. The paper reports F1 rising with |S| and a broad plateau in σ around sqrt(dim).'),
    h('div', { class: 'teach-buttons' }, sweepBtn, stopBtn),
    sweepNote,
    h('div', { class: 'teach-row' }, figureBlock('F1 against |S| (σ as chosen above)', sizePlotHolder), figureBlock('F1 against σ (|S| as chosen above)', sigmaPlotHolder)),
  );
  parts.extra.append(sweepEl);

  function stopSweep() {
    if (sweep.running) fill(sweepNote, `Stopped after ${sweep.size.length + sweep.sigma.length} of 14 cells.`);
    sweep.gen++;
    sweep.running = false;
    sweepBtn.disabled = false;
    stopBtn.disabled = true;
  }
  async function runSweep() {
    const mine = ++sweep.gen;
    const base = request();
    sweepRep = base.representation;
    sweep = { size: [], sigma: [], gen: mine, running: true };
    delete sweepEl.dataset.done;
    sweepBtn.disabled = true;
    stopBtn.disabled = false;
    const root = Math.sqrt(DIM[base.representation]);
    const cells = [
      ...SIZES.map((size) => ['size', { size, sigma: base.sigma }]),
      ...MULTIPLES.map((m) => ['sigma', { size: base.size, sigma: m === 1 ? 'sqrt_dim' : { fixed: sig4(m * root) } }]),
    ];
    const t0 = performance.now();
    let done = 0;
    for (const [kind, cell] of cells) {
      if (sweep.gen !== mine) return;
      fill(sweepNote, `cell ${done + 1} of ${cells.length}: |S| = ${cell.size}, σ = ${sigmaText(cell.sigma)}…`);
      try {
        const r = await ctx.engine.request('teach', { topic: 'sde.sweep', request: { representation: base.representation, size: cell.size, sigma: cell.sigma, shuffles: 100, references: 10, draw: 10, seed: base.seed } });
        if (sweep.gen !== mine) return;
        sweep[kind].push(r);
        (kind === 'size' ? sizePlot : sigmaPlot).render();
      } catch (e) {
        if (sweep.gen !== mine) return;
        fill(sweepNote, h('span', { class: 'error', role: 'alert' }, e.message));
        stopSweep();
        return;
      }
      done++;
    }
    sweep.running = false;
    stopSweep();
    fill(sweepNote, `${cells.length} cells in ${((performance.now() - t0) / 1000).toFixed(1)} s (${base.representation} outputs, seed ${base.seed}).`);
    sweepEl.dataset.done = 'true';
    parts.updated();
  }

  // --- Hand-off ---
  const renderHandoff = () => {
    const r = lastReq;
    const data = r.representation === 'softmax' ? `examples/data/digits/softmax.npz#${r.model}` : `examples/data/digits/act_${r.model}.npy`;
    const pool = r.target === 'forget' ? '0..144' : '344..544';
    const params = new URLSearchParams({ example: '0', teach: 'sde', representation: r.representation, model: r.model, target: r.target, size: r.size, sigma: sigmaText(r.sigma), shuffles: r.shuffles, references: r.references, seed: r.seed });
    fill(
      parts.handoff,
      handoff({
        text: 'The SDE panel runs the paper’s analysis on your own activations (one target or many drawn from pools, OTR and F1); the command line also runs the calibrated verdict. The link opens the panel on this experiment: the same rows, parameters and seed.',
        links: [{ href: `${new URL('index.html', siteRoot()).href}?${params}#lethe-sde`, label: 'Open this experiment in the SDE panel →', action: 'handoff' }],
        cli: [
          `lethe calibrate --data ${data} --it-pool 144..344 --oot-pool 544..744 --draw-from ${pool} --draw 1 --size ${r.size} --refs ${r.references} --paper-shuffles ${r.shuffles} --sigma ${sigmaText(r.sigma)} --seed ${r.seed}`,
        ],
      }),
    );
  };

  // The example's files are fetched while the page loads (nothing is requested after that).
  const base = new URL('data/digits/', siteRoot());
  const ready = (async () => {
    parts.busy(true, 'loading the digits example (1.2 MB)…');
    lastReq = request();
    renderHandoff();
    try {
      for (const name of FILES) {
        const res = await fetch(new URL(name, base));
        if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
        const bytes = await res.arrayBuffer();
        await ctx.engine.request('teach-data', { name, bytes }, { transfer: [bytes] });
      }
    } catch (e) {
      parts.error(new Error(`The digits example could not be loaded: ${e.message}`));
      return;
    }
    await update();
  })();

  return {
    id: 'sde',
    el: parts.el,
    ready,
    state: () => ({ request: lastReq, result: last, sweep }),
    runSweep,
  };
}
