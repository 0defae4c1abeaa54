// Topic 1: HSIC and the permutation null. Paired data with a chosen kind and strength of dependence; the kernel
// matrices as heat maps; the observed HSIC; the null histogram growing shuffle by shuffle (animated, pausable; the
// final state at once under reduced motion) with p = (1 + b)/(1 + B) updating. The worker keeps the permutation run
// (analysis/src/teach/hsic.rs `hsic.prepare` / `hsic.step`), the same stream as `lethe hsic --seed`.
import { h, fill } from '../dom.js';
import { download } from '../export.js';
import { histogramPlot } from '../views/hist.js';
import { heatmap } from '../views/heatmap.js';
import { linePlot } from '../views/lines.js';
import { PALETTE } from '../views/svg.js';
import { button, channel, debounce, figureBlock, f6, handoff, isAbort, number, prose, readout, reducedMotion, responsive, select, siteRoot, slider, topicFrame } from './common.js';

const sig = (v) => Number(v.toPrecision(3));

export function hsicTopic(ctx, { number: num } = {}) {
  const parts = topicFrame({ id: 'hsic', title: 'HSIC and the permutation null', number: num });
  const reduced = reducedMotion();
  fill(
    parts.explain,
    prose(
      'Two measurements of the same things are dependent when knowing one tells you something about the other. The Hilbert–Schmidt Independence Criterion (HSIC) measures dependence of any shape, not only straight lines.',
      'It compares similarities. A kernel k(x, x′) = exp(−(x − x′)² / 2σ²) says how alike two values are: 1 for identical, near 0 for far apart. The heat maps show these similarity matrices, K for x and L for y, with the points sorted by x. When similar x’s come with similar y’s the two matrices share their pattern, and HSIC = Tr(K H L H) / (n − 1)², the overlap of the centred matrices, is large.',
      'How large is large? Shuffle the y’s: that breaks every link to x but keeps both samples exactly as they are. The HSIC of shuffled data is what independence looks like — the permutation null. After one shuffle (third heat map) L has lost its pattern. The p-value counts the shuffles b that reach the observed HSIC: p = (1 + b) / (1 + B). The +1 counts the observed pairing as one of the equally likely arrangements, so p is never 0.',
      'Try the nonlinear kind: x and y are uncorrelated — a straight-line fit finds nothing — yet HSIC detects the dependence. Move σ: too small and each point is only like itself, too large and all points look alike; both hide the pattern. The median heuristic sets σ to the median distance between points.',
      'The dashed line in the histogram is the exact mean of the null over all n! shuffles, in closed form — no shuffling needed. The same formula explains what the SDE statistic measures (the split-half dependence topic).',
    ),
  );

  const run = channel(ctx.engine, 'hsic.prepare');
  const step = channel(ctx.engine, 'hsic.step');
  const fields = {
    kind: select({ key: 'kind', label: 'Kind of dependence', value: 'linear', options: [['linear', 'linear: y = s·x + noise'], ['nonlinear', 'nonlinear: y = s·(x² − 1)/√2 + noise'], ['none', 'none: y independent of x']], onChange: () => changed() }),
    strength: slider({ key: 'strength', label: 'Dependence strength s', min: 0, max: 1, step: 0.05, value: 0.7, format: (v) => v.toFixed(2), onInput: () => changed() }),
    n: slider({ key: 'n', label: 'Sample size n', min: 10, max: 200, step: 5, value: 60, onInput: () => changed() }),
    rule: select({ key: 'sigma_rule', label: 'Bandwidth σ', value: 'median', options: [['median', 'median heuristic'], ['fixed', 'fixed (slider below)']], onChange: () => (syncRule(), changed()) }),
    sigma: slider({ key: 'sigma', label: 'Fixed σ (log scale)', min: -1.3, max: 1, step: 0.05, value: 0, format: (v) => `σ = ${sig(10 ** v)}`, onInput: () => changed() }),
    permutations: select({ key: 'permutations', label: 'Shuffles B', value: '999', options: [['99', '99'], ['199', '199'], ['499', '499'], ['999', '999'], ['1999', '1999']], onChange: () => changed() }),
    seed: number({ key: 'seed', label: 'Seed', value: 0, min: 0, step: 1, onChange: () => changed() }),
  };
  const syncRule = () => {
    fields.sigma.el.hidden = fields.rule.get() !== 'fixed';
    fields.strength.input.disabled = fields.kind.get() === 'none';
  };
  fields.kind.input.addEventListener('change', syncRule);
  syncRule();
  let playing = !reduced;
  const playBtn = button({ action: 'play', label: playing ? 'Pause' : 'Play', onClick: () => setPlaying(!playing) });
  playBtn.setAttribute('aria-pressed', String(playing));
  const stepBtn = button({ action: 'step', label: 'One shuffle', onClick: () => (setPlaying(false), advance(1)) });
  const endBtn = button({ action: 'finish', label: 'All shuffles', onClick: () => (setPlaying(false), advance(Infinity)) });
  const resetBtn = button({ action: 'reset', label: 'Restart', onClick: () => prepare({ autorun: false }) });
  const motionNote = reduced ? h('p', { class: 'muted teach-note' }, 'Animation is off (your system asks for reduced motion): all shuffles are shown at once. “One shuffle” still steps by hand after a restart.') : null;
  fill(parts.controls, Object.values(fields).map((f) => f.el), h('div', { class: 'teach-buttons' }, playBtn, stepBtn, endBtn, resetBtn), motionNote);

  const request = () => ({
    data: { kind: fields.kind.get(), strength: fields.strength.get(), n: fields.n.get(), seed: Math.max(0, Math.floor(fields.seed.get() || 0)) },
    sigma: fields.rule.get() === 'fixed' ? { fixed: sig(10 ** fields.sigma.get()) } : 'median',
    permutations: Number(fields.permutations.get()),
  });

  let prep = null;
  let cur = null; // latest step
  let gen = 0;
  let lastReq = null;
  const scatter = responsive((w) =>
    linePlot([{ name: '', kind: 'points', x: prep?.x || [], y: prep?.y || [], color: PALETTE.it, legend: false }], { width: Math.min(w, 420), height: 240, xlabel: 'x', ylabel: 'y', label: 'Scatter plot of the paired data' }),
  );
  const maps = h('div', { class: 'teach-heatmaps' });
  const nullPlot = responsive((w) => drawNull(w));
  const nullFig = figureBlock('Permutation null: HSIC of shuffled data, one shuffle at a time', nullPlot.el);
  fill(
    parts.figure,
    h('div', { class: 'teach-row' }, figureBlock('The data (points sorted by x)', scatter.el), figureBlock('Kernel matrices (similarity of every pair of points)', maps, null, { wide: true })),
    nullFig,
  );

  function drawNull(w) {
    if (!prep) return h('div', { class: 'muted' }, '…');
    const counts = cur ? cur.counts : new Array(prep.edges.length - 1).fill(0);
    const hi = prep.edges[prep.edges.length - 1];
    const svg = histogramPlot(
      { edges: prep.edges, series: [{ name: `shuffled HSIC (${cur ? cur.done : 0} of ${prep.permutations})`, role: 'target', counts }] },
      {
        width: w,
        height: 260,
        xlabel: 'HSIC of shuffled pairs',
        label: 'Histogram of shuffled HSIC values with the observed value',
        markers: [
          { x: prep.null_mean, label: 'exact null mean', color: PALETTE.ink },
          { x: prep.statistic, label: `observed ${f6(prep.statistic)}`, color: PALETTE.oot },
        ],
      },
    );
    if (prep.statistic > hi && svg.plotArea) {
      const a = svg.plotArea;
      svg.append(
        h('svg:text', { x: a.x1 - 4, y: a.y0 + 30, 'text-anchor': 'end', fill: PALETTE.oot, 'font-weight': 600 }, `observed ${f6(prep.statistic)} →`),
        h('svg:text', { x: a.x1 - 4, y: a.y0 + 44, 'text-anchor': 'end', fill: PALETTE.oot }, '(beyond this axis: null mean + 6 sd)'),
      );
    }
    return svg;
  }

  function renderData() {
    const n = prep.n;
    const size = Math.min(170, Math.max(84, Math.floor(((maps.clientWidth || 480) - 24) / 3)));
    fill(
      maps,
      heatmap(prep.k, n, { size, title: 'K: x vs x', label: `Heat map of the ${n} × ${n} kernel matrix K of x` }),
      heatmap(prep.l, n, { size, title: 'L: y vs y', label: `Heat map of the kernel matrix L of y` }),
      heatmap(prep.l_shuffled, n, { size, title: 'L after one shuffle of y', label: 'Heat map of L after shuffling the y values once' }),
    );
    scatter.render();
  }

  function renderNumbers() {
    const done = cur ? cur.done : 0;
    fill(
      parts.numbers,
      readout([
        ['Observed HSIC', f6(prep.statistic), `n = ${prep.n}`, 'hsic.statistic'],
        ['Bandwidths σ_x, σ_y', `${f6(prep.sigma_x)}, ${f6(prep.sigma_y)}`, lastReq.sigma === 'median' ? 'median heuristic' : 'fixed', 'hsic.sigma'],
        ['Exact null mean ± sd', `${f6(prep.null_mean)} ± ${f6(prep.null_sd)}`, 'over all n! shuffles, in closed form', 'hsic.null'],
        ['Shuffles done', `${done} of ${prep.permutations}`, cur?.above ? `${cur.above} beyond the plot’s right edge` : '', 'hsic.done'],
        ['b: shuffles ≥ observed', cur ? String(cur.exceedances) : '0', '', 'hsic.b'],
        ['p = (1 + b)/(1 + shuffles)', cur ? f6(cur.p_value) : '—', done < prep.permutations ? 'so far' : `with all B = ${prep.permutations}`, 'hsic.p'],
      ]),
    );
    parts.el.dataset.done = String(done);
    parts.el.dataset.complete = String(!!cur?.complete);
  }

  function setPlaying(on) {
    playing = on && !reduced;
    fill(playBtn, playing ? 'Pause' : 'Play');
    playBtn.setAttribute('aria-pressed', String(playing));
    if (playing) loop(gen);
  }

  async function advance(max) {
    if (!prep) return null;
    const mine = gen;
    try {
      const s = await step({ session: prep.session, max: Number.isFinite(max) ? max : prep.permutations });
      if (mine !== gen) return null;
      cur = s;
      nullPlot.render();
      renderNumbers();
      parts.updated();
      if (s.complete) {
        parts.ok(`All ${s.total} shuffles done.`);
        if (playing) setPlaying(false);
      }
      return s;
    } catch (e) {
      if (!isAbort(e) && mine === gen) parts.error(e);
      return null;
    }
  }

  // Animation: one shuffle per frame at first, then faster (about 5 s for 999 shuffles); the next step is asked
  // for only after the previous one has been drawn.
  async function loop(mine) {
    while (playing && mine === gen && !(cur && cur.complete)) {
      const done = cur ? cur.done : 0;
      const s = await advance(Math.max(1, Math.ceil((done + 1) / 25)));
      if (!s) return;
      await new Promise((r) => requestAnimationFrame(() => r()));
    }
  }

  // A fresh run of the current settings. Under reduced motion it completes at once, except after Restart (so the
  // shuffles can still be stepped through by hand).
  async function prepare({ autorun = true } = {}) {
    const mine = ++gen;
    lastReq = request();
    renderHandoff();
    parts.busy(true, 'building the kernels…');
    try {
      const p = await run(lastReq);
      if (mine !== gen) return;
      prep = p;
      cur = null;
      renderData();
      nullPlot.render();
      renderNumbers();
      parts.updated();
      parts.ok(reduced ? (autorun ? '' : 'Step through the shuffles with “One shuffle”, or show them all.') : playing ? 'shuffling…' : 'Paused: press Play or step.');
      if (reduced && autorun) await advance(Infinity);
      else if (playing) loop(mine);
    } catch (e) {
      if (!isAbort(e) && mine === gen) parts.error(e);
    }
  }
  const changed = debounce(() => prepare(), 80);

  const exportData = async () => {
    const files = await ctx.engine.request('teach', { topic: 'export', request: { topic: 'hsic', ...lastReq.data } });
    for (const f of files) download(f.name, f.bytes, 'application/octet-stream');
  };
  const cli = () => {
    const r = lastReq || request();
    const s = r.sigma === 'median' ? 'median' : r.sigma.fixed;
    return `lethe hsic hsic_x_seed${r.data.seed}.npy hsic_y_seed${r.data.seed}.npy --sigma-x ${s} --sigma-y ${s} --permutations ${r.permutations} --seed ${r.data.seed}`;
  };
  const renderHandoff = () =>
    fill(
      parts.handoff,
      handoff({
        text: 'The SDE panel computes this statistic on your own model outputs: for each subset of rows it takes HSIC between the subset’s two halves (one half’s outputs as x, the other’s as y) over T shuffles of the second half, and compares those distributions — by Jensen–Shannon divergence and a Mann–Whitney test — with in- and out-of-training references. It has no place for one pair (x, y): the link opens it on the built-in example (activations of three small MLPs), ready for your files. For your own paired samples, the command line runs exactly this figure’s test (download the data shown here to see the same numbers).',
        links: [{ href: `${new URL('index.html', siteRoot()).href}?teach=hsic#lethe-sde`, label: 'SDE panel: HSIC between the halves of your subsets →', action: 'handoff' }],
        cli: [cli()],
      }),
      h('p', {}, button({ action: 'download-data', label: 'Download x and y (.npy)', onClick: () => exportData().catch((e) => parts.error(e)) })),
    );
  const first = prepare();

  return {
    id: 'hsic',
    el: parts.el,
    ready: first,
    /** For tests: the current request and its prepared numbers. */
    state: () => ({ request: lastReq, prepared: prep && { statistic: prep.statistic, sigma_x: prep.sigma_x, null_mean: prep.null_mean, n: prep.n }, step: cur }),
    pause: () => setPlaying(false),
  };
}
