// Topic 4: epsilon from an attack. Two overlapping output distributions (retrained vs unlearned models on one
// forget example), a draggable threshold (mouse, touch and keyboard) with its FPR/FNR and the epsilon they certify,
// the best attack of each variant, and the bucket score. analysis/src/teach/epsilon.rs `epsilon` / `epsilon.threshold`
// (lethe::competition: threshold_attack, example_epsilon, bucket_table, score_epsilon — as `lethe epsilon`).
import { h, fill } from '../dom.js';
import { download } from '../export.js';
import { num } from '../format.js';
import { histogramPlot } from '../views/hist.js';
import { linePlot } from '../views/lines.js';
import { PALETTE } from '../views/svg.js';
import { button, channel, debounce, figureBlock, f6, handoff, isAbort, number, prose, readout, responsive, select, siteRoot, slider, topicFrame } from './common.js';

const STEP = 0.01;
const snap = (v) => Math.round(v / STEP) * STEP;
const fixed2 = (v) => Number(v.toFixed(2));
const ruleText = (d, t) => (d === 'below' ? `output < ${t} → “retrained”` : `output ≥ ${t} → “retrained”`);
const epsText = (e) => (num(e) === Infinity ? '∞ (perfect separation)' : Number.isNaN(num(e)) ? 'discarded (one rate is 0)' : f6(e));

export function epsilonTopic(ctx, { number: nr } = {}) {
  const parts = topicFrame({ id: 'epsilon', title: 'Epsilon from an attack', number: nr });
  fill(
    parts.explain,
    prose(
      'The NeurIPS 2023 unlearning competition measures forgetting with a privacy-style ε. For one example of the forget set, many models are trained from scratch without it (retrained) and the unlearning algorithm is run many times (unlearned). Each model gives an output for the example — say its confidence — so there are two samples: the two histograms.',
      'An attacker sees one output and guesses which kind of model produced it, for instance “retrained if the output is below t”. Drag the threshold (or focus it and use the arrow keys): the false-positive rate FPR (unlearned outputs called retrained) and the false-negative rate FNR (retrained outputs missed) trade off against each other.',
      'If unlearning were (ε, δ)-differentially private, no attack could do better than FPR + e^ε · FNR ≥ 1 − δ, and the same with the rates swapped. Solving for ε gives the ε an attack certifies:',
      h('p', { class: 'teach-formula' }, h('span', { class: 'teach-nowrap' }, 'ε = max{ ln((1 − δ − FPR)/FNR),'), ' ', h('span', { class: 'teach-nowrap' }, 'ln((1 − δ − FNR)/FPR) },'), ' ', h('span', { class: 'teach-nowrap' }, 'δ = 10⁻⁵')),
      'drawn for every threshold in the second figure. The example’s ε is the best attack’s. The official scoring code searches a grid of thresholds and intervals; “exhaustive” tries every distinct output value; the Clopper–Pearson variant replaces both rates by upper confidence bounds, so its ε is a lower confidence bound — honest about N models being a small sample.',
      'Scoring: ε falls into a bucket of width 0.5, and bucket k earns 2/2ᵏ points (1, ½, ¼, …); only buckets up to ε_max = ⌈ln(N − 1)⌉ count. The forgetting quality is the mean over forget examples. With N models every rate is a multiple of 1/N, so a small N cannot certify a large ε — hence ε_max grows with ln N.',
    ),
  );
  const full = channel(ctx.engine, 'epsilon');
  const one = channel(ctx.engine, 'epsilon.threshold');
  const f = {
    n_models: select({ key: 'n_models', label: 'Models per side N', value: '64', options: ['8', '16', '32', '64', '128', '256', '512'].map((v) => [v, v]), onChange: () => changed() }),
    shift: slider({ key: 'shift', label: 'Unlearned outputs shifted by', min: -4, max: 4, step: 0.1, value: 1.5, format: (v) => v.toFixed(1), onInput: () => changed() }),
    spread: slider({ key: 'spread', label: 'Spread of unlearned outputs', min: 0.3, max: 3, step: 0.1, value: 1, format: (v) => `× ${v.toFixed(1)}`, onInput: () => changed() }),
    alpha: select({ key: 'alpha', label: 'Clopper–Pearson α', value: '0.05', options: [['0.01', '0.01'], ['0.05', '0.05'], ['0.1', '0.1']], onChange: () => changed() }),
    direction: select({ key: 'direction', label: 'The attack calls “retrained”', value: 'below', options: [['below', 'outputs below t'], ['at_least', 'outputs at or above t']], onChange: () => ((userDirection = true), moved()) }),
    seed: number({ key: 'seed', label: 'Seed', value: 0, min: 0, step: 1, onChange: () => changed() }),
  };
  let userDirection = false;
  fill(parts.controls, Object.values(f).map((x) => x.el));
  const data = () => ({ n_models: Number(f.n_models.get()), shift: f.shift.get(), spread: f.spread.get(), seed: Math.max(0, Math.floor(f.seed.get() || 0)) });

  let view = null; // the full figure
  let at = null; // the attack at the threshold
  let t = null;
  let lastData = null;
  let handle = null; // {line, knob, label, g, x}
  const bounds = () => [view.histograms.edges[0], view.histograms.edges[view.histograms.edges.length - 1]];

  const histPlot = responsive((w) => {
    if (!view) return h('div');
    const best = view.exhaustive.best_attack;
    const bestT = best && (best.rule.threshold ?? null);
    const svg = histogramPlot(view.histograms, {
      width: w,
      height: 280,
      xlabel: 'output of the model on this example (e.g. logit-scaled confidence)',
      labels: { it: `retrained (${view.retrained.length} models)`, oot: `unlearned (${view.unlearned.length} models)` },
      markers: bestT != null ? [{ x: bestT, label: 'best', color: PALETTE.ink }] : [],
      label: 'Histograms of the retrained and unlearned outputs with a draggable threshold',
    });
    drawHandle(svg);
    return svg;
  });

  function drawHandle(svg) {
    // The figure holds a focusable slider: a labelled group, not an image (an image's children are presentational,
    // so screen readers would never reach the slider).
    svg.setAttribute('role', 'group');
    const a = svg.plotArea;
    const x = svg.xScale;
    const [lo, hi] = bounds();
    const px = x(t);
    const surface = h('svg:rect', { x: a.x0, y: a.y0, width: a.x1 - a.x0, height: a.y1 - a.y0, fill: 'transparent', class: 'teach-drag-surface' });
    const line = h('svg:line', { x1: px, x2: px, y1: a.y0, y2: a.y1, stroke: PALETTE.purple, 'stroke-width': 2.5 });
    const knob = h('svg:circle', { cx: px, cy: a.y0 + 10, r: 9, fill: PALETTE.purple, stroke: '#fff', 'stroke-width': 2 });
    const label = h('svg:text', { x: px, y: a.y1 - 6, 'text-anchor': 'middle', fill: PALETTE.purple, 'font-weight': 600, stroke: '#ffffff', 'stroke-width': 4, 'paint-order': 'stroke' }, `t = ${t}`);
    const g = h(
      'svg:g',
      { class: 'teach-handle', role: 'slider', tabindex: 0, 'aria-label': 'Threshold t of the attack', 'aria-valuemin': lo, 'aria-valuemax': hi, 'aria-valuenow': t, 'aria-valuetext': `threshold ${t}`, 'data-role': 'threshold' },
      line,
      knob,
      label,
    );
    const toData = (clientX) => {
      const r = svg.getBoundingClientRect();
      const sx = (clientX - r.left) * (svg.viewBox.baseVal.width / r.width);
      const [d0, d1] = x.domain;
      return d0 + ((sx - a.x0) * (d1 - d0)) / (a.x1 - a.x0);
    };
    let dragging = false;
    const down = (e) => {
      dragging = true;
      svg.setPointerCapture?.(e.pointerId);
      g.focus({ preventScroll: true });
      setT(toData(e.clientX));
      e.preventDefault();
    };
    svg.addEventListener('pointerdown', (e) => {
      if (e.target === surface || g.contains(e.target)) down(e);
    });
    svg.addEventListener('pointermove', (e) => dragging && setT(toData(e.clientX)));
    svg.addEventListener('pointerup', () => (dragging = false));
    svg.addEventListener('pointercancel', () => (dragging = false));
    g.addEventListener('keydown', (e) => {
      const big = (hi - lo) / 10;
      const delta = { ArrowLeft: -STEP * 5, ArrowDown: -STEP * 5, ArrowRight: STEP * 5, ArrowUp: STEP * 5, PageDown: -big, PageUp: big }[e.key];
      if (delta !== undefined) setT(t + delta);
      else if (e.key === 'Home') setT(lo);
      else if (e.key === 'End') setT(hi);
      else return;
      e.preventDefault();
    });
    svg.append(surface, g);
    handle = { line, knob, label, g, x };
  }

  const moveHandle = () => {
    if (!handle) return;
    const px = handle.x(t);
    handle.line.setAttribute('x1', px);
    handle.line.setAttribute('x2', px);
    handle.knob.setAttribute('cx', px);
    handle.label.setAttribute('x', px);
    handle.label.textContent = `t = ${t}`;
    handle.g.setAttribute('aria-valuenow', t);
    handle.g.setAttribute('aria-valuetext', `threshold ${t}`);
  };

  function setT(v) {
    if (!view) return;
    const [lo, hi] = bounds();
    const nt = fixed2(Math.min(hi, Math.max(lo, snap(v))));
    if (nt === t) return;
    t = nt;
    moveHandle();
    moved();
  }

  const curvePlot = responsive((w) => {
    if (!view) return h('div');
    const c = f.direction.get() === 'below' ? view.below : view.at_least;
    const eps = c.epsilon.map(num);
    const finite = eps.filter(Number.isFinite);
    const top = Math.max(1, ...finite) * 1.1;
    const infinite = c.threshold.filter((_, i) => eps[i] === Infinity);
    return linePlot(
      [
        { name: `ε of the rule “${f.direction.get() === 'below' ? 'below t' : 'at or above t'}” at each threshold`, kind: 'step', x: c.threshold, y: eps.map((e) => (e === Infinity ? top : e)), color: PALETTE.it },
        ...(infinite.length ? [{ name: '∞ (perfect separation)', kind: 'points', x: infinite, y: infinite.map(() => top), color: PALETTE.oot }] : []),
      ],
      { width: w, height: 200, xlabel: 'threshold t', ylabel: 'ε', ylim: [0, top], hlines: [{ y: view.eps_max, label: `ε_max = ${view.eps_max}` }], markers: [{ x: t, label: at ? `ε(t) = ${epsText(at.attack.epsilon)}` : '', color: PALETTE.purple }], label: 'Epsilon certified by the attack at each threshold' },
    );
  });
  const buckets = h('div', { class: 'teach-buckets', role: 'list', 'aria-label': 'Scoring buckets' });
  const bestNumbers = h('div');
  fill(
    parts.figure,
    figureBlock('Outputs of retrained and unlearned models on one forget example (drag the purple threshold)', histPlot.el),
    figureBlock('The ε each threshold certifies (gaps: the attack is discarded — exactly one rate is 0)', curvePlot.el),
    figureBlock('Buckets: points for an ε in each (orange outline: this threshold’s ε; blue: the best attack’s)', buckets),
    bestNumbers,
  );

  function renderBuckets() {
    const best = view.exhaustive.bucket;
    const here = at?.bucket;
    fill(
      buckets,
      view.buckets.map((b, k) =>
        h('span', { class: `teach-bucket${k === best ? ' teach-bucket-best' : ''}${k === here ? ' teach-bucket-here' : ''}`, role: 'listitem', title: `ε in [${b.start}, ${b.end}): ${b.points} points` }, `[${b.start}, ${b.end})`, h('br'), `${b.points}`),
      ),
      view.buckets.length ? null : h('span', { class: 'muted' }, 'no buckets: ε_max < 0.5 (use more models)'),
    );
  }

  function renderAttack() {
    if (!at) return;
    const a = at.attack;
    fill(
      parts.numbers,
      readout([
        ['Rule', ruleText(at.direction, t), '', 'eps.rule'],
        ['FPR: unlearned called retrained', `${a.false_positives}/${view.unlearned.length} = ${f6(a.fpr)}`, '', 'eps.fpr'],
        ['FNR: retrained missed', `${a.false_negatives}/${view.retrained.length} = ${f6(a.fnr)}`, '', 'eps.fnr'],
        ['ε this attack certifies', epsText(a.epsilon), 'δ = 1e-5', 'eps.threshold'],
        ['Points for that ε', at.bucket == null ? '0' : String(at.points), at.bucket == null ? 'beyond ε_max, infinite or discarded' : `bucket ${at.bucket + 1}`, 'eps.points'],
      ], 'The attack at the threshold you set'),
    );
    renderBuckets();
    curvePlot.render();
    parts.updated();
  }

  function renderBest() {
    const row = (name, e, key, note) => [name, epsText(e.epsilon), `${note}; ${e.points} point${e.points === 1 ? '' : 's'}`, key];
    const ba = view.exhaustive.best_attack;
    fill(
      bestNumbers,
      readout(
        [
          row('Official (metric.py)', view.official, 'eps.official', view.official.peaky ? 'peaky rule' : 'grid of thresholds and intervals'),
          row('Exhaustive', view.exhaustive, 'eps.exhaustive', ba ? `best: ${ruleText(ba.rule.kind === 'below' ? 'below' : 'at_least', f6(ba.rule.threshold))}` : 'no attack survived'),
          row(`Clopper–Pearson (α = ${f.alpha.get()})`, view.clopper_pearson, 'eps.cp', 'a lower confidence bound'),
          ['ε_max = ⌈ln(N − 1)⌉', String(view.eps_max), `${view.buckets.length} buckets`, 'eps.eps_max'],
        ],
        'The best attack of each variant',
      ),
    );
  }

  async function moved() {
    if (!view) return;
    try {
      at = await one({ data: lastData, alpha: Number(f.alpha.get()), threshold: t, direction: f.direction.get() });
      renderAttack();
    } catch (e) {
      if (!isAbort(e)) parts.error(e);
    }
  }

  async function update() {
    lastData = data();
    renderHandoff();
    parts.busy(true);
    try {
      const v = await full({ data: lastData, alpha: Number(f.alpha.get()) });
      view = v;
      if (!userDirection) f.direction.set(v.direction);
      const [lo, hi] = bounds();
      t = fixed2(t == null ? snap((lo + hi) / 2) : Math.min(hi, Math.max(lo, t)));
      histPlot.render();
      renderBest();
      parts.ok('');
      await moved();
    } catch (e) {
      if (!isAbort(e)) parts.error(e);
    }
  }
  const changed = debounce(update, 80);

  const exportData = async () => {
    const files = await ctx.engine.request('teach', { topic: 'export', request: { topic: 'epsilon', ...lastData } });
    for (const file of files) download(file.name, file.bytes, 'application/octet-stream');
  };
  const renderHandoff = () => {
    const d = lastData;
    const q = new URLSearchParams({ example: '0', teach: 'epsilon', n_models: d.n_models, shift: d.shift, spread: d.spread, seed: d.seed, alpha: f.alpha.get() });
    fill(
      parts.handoff,
      handoff({
        text: 'The competition-epsilon panel scores whole forget sets (models × examples, or logits and labels) with all three variants and the final score. The link opens it on these two samples (as one example).',
        links: [{ href: `${new URL('index.html', siteRoot()).href}?${q}#lethe-epsilon`, label: 'Open this example in the epsilon panel →', action: 'handoff' }],
        cli: [`lethe epsilon --retrained teach_retrained_seed${d.seed}.npy --unlearned teach_unlearned_seed${d.seed}.npy --variant all --alpha ${f.alpha.get()}`],
      }),
      h('p', {}, button({ action: 'download-data', label: 'Download both samples (.npy)', onClick: () => exportData().catch((e) => parts.error(e)) })),
    );
  };
  const ready = update();
  return {
    id: 'epsilon',
    el: parts.el,
    ready,
    state: () => ({ data: lastData, threshold: t, attack: at, view }),
  };
}
