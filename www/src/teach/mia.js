// Topic 6: the membership audit. Two overlapping score distributions (members and non-members), a threshold moved
// with a slider or dragged on the histogram, its point on the ROC on linear and on log–log axes; the AUC beside TPR
// at a low FPR (and an equal-variance attack with the same AUC), the Clopper–Pearson band, and the FPR a rule's
// threshold really has. analysis/src/teach/mia.rs `mia` (lethe::roc, lethe::delong, lethe::binomial — as `lethe mia`).
// Every control is an ordinary form control; the figures are images (role=img) with nothing focusable inside.
import { h, fill } from '../dom.js';
import { download } from '../export.js';
import { num } from '../format.js';
import { histogramPlot } from '../views/hist.js';
import { linePlot } from '../views/lines.js';
import { PALETTE, axes, frame, legend } from '../views/svg.js';
import { button, channel, debounce, figureBlock, f6, handoff, isAbort, number, prose, readout, responsive, select, siteRoot, slider, topicFrame } from './common.js';

const RULE_TEXT = { leakpro: 'LeakPro: largest TPR with FPR ≤ target', 'privacy-meter': 'privacy-meter: last point with FPR ≤ target', 'jax-privacy': 'jax_privacy: convex hull, interpolated' };
const ci = (i) => (i ? `[${f6(num(i.lo))}, ${f6(num(i.hi))}]` : '—');
const T_MIN = -4;
const T_MAX = 12;
const T_STEP = 0.05;
const roundT = (v) => Math.round(Math.min(T_MAX, Math.max(T_MIN, v)) / T_STEP) * T_STEP;
const tText = (v) => Number(v.toFixed(2)).toString();
/** A rate or count as typed (0.001, 3), not the readout's fixed six decimals. */
const short = (v) => String(Number(num(v).toPrecision(6)));

/** Tick positions of a log10 axis between lo and hi: the powers of ten. */
function decades(lo, hi) {
  const out = [];
  for (let e = Math.ceil(Math.log10(lo) - 1e-9); e <= Math.floor(Math.log10(hi) + 1e-9); e++) out.push(10 ** e);
  return out.length >= 2 ? out : [lo, hi];
}

/**
 * The ROC on log–log axes: the exact curve, the generating distributions' curve and the equal-variance one with the
 * same AUC (dashed), chance, LeakPro's Clopper–Pearson band at log-spaced FPRs, the target FPR, and the threshold's
 * point with its intervals on both rates.
 */
function logRoc(v, target, { width }) {
  const n0 = Math.round(1 / num(v.resolution));
  const x0 = Math.min(0.5 / n0, target / 2);
  const y0 = 1e-3;
  const { svg, area } = frame({ width, height: 320, m: { l: 56, r: 16, t: 58, b: 44 }, label: 'ROC on log–log axes with the Clopper–Pearson band, the target FPR and the threshold’s point' });
  const lx = (f) => area.x0 + ((Math.log10(Math.max(f, x0)) - Math.log10(x0)) / -Math.log10(x0)) * (area.x1 - area.x0);
  const ly = (t) => area.y1 - ((Math.log10(Math.max(t, y0)) - Math.log10(y0)) / -Math.log10(y0)) * (area.y1 - area.y0);
  axes(svg, area, lx, ly, { xlabel: 'false positive rate (log; non-members flagged)', ylabel: 'true positive rate (log)', xticks: decades(x0, 1), yticks: decades(y0, 1) });
  const path = (xs, ys, attrs) => {
    let d = '';
    xs.forEach((f, i) => {
      const fv = num(f);
      const tv = num(ys[i]);
      if (!(fv >= x0) || !(tv > 0)) return;
      d += `${d ? 'L' : 'M'}${lx(fv).toFixed(2)},${ly(tv).toFixed(2)}`;
    });
    if (d) svg.append(h('svg:path', { d, fill: 'none', ...attrs }));
  };
  // The band: LeakPro's TPR interval at each reading, at the FPR its threshold realizes.
  const b = v.band.filter((p) => p.tpr_interval);
  if (b.length >= 2) {
    const up = b.map((p) => `${lx(num(p.realized_fpr)).toFixed(2)},${ly(num(p.tpr_interval.hi)).toFixed(2)}`);
    const down = b.map((p) => `${lx(num(p.realized_fpr)).toFixed(2)},${ly(num(p.tpr_interval.lo)).toFixed(2)}`).reverse();
    svg.append(h('svg:path', { d: `M${up.join('L')}L${down.join('L')}Z`, fill: PALETTE.sky, 'fill-opacity': 0.3, stroke: 'none', class: 'band', 'data-name': 'cp-band' }));
  }
  svg.append(h('svg:line', { x1: lx(y0), y1: ly(y0), x2: lx(1), y2: ly(1), stroke: PALETTE.grid, 'stroke-width': 1.5, 'stroke-dasharray': '6 4' }));
  path(v.truth.fpr, v.truth.equal_variance_tpr, { stroke: PALETTE.oot, 'stroke-width': 1.6, 'stroke-dasharray': '5 3', 'data-name': 'equal-variance' });
  path(v.truth.fpr, v.truth.tpr, { stroke: PALETTE.it, 'stroke-width': 1.6, 'stroke-dasharray': '2 3', 'data-name': 'truth' });
  path(v.curve.fpr, v.curve.tpr, { stroke: PALETTE.ink, 'stroke-width': 2, 'data-name': 'roc' });
  // The target FPR.
  svg.append(h('svg:line', { x1: lx(target), x2: lx(target), y1: area.y0, y2: area.y1, stroke: PALETTE.target, 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }));
  svg.append(h('svg:text', { x: lx(target) + 4, y: area.y1 - 6, fill: PALETTE.target, stroke: '#fff', 'stroke-width': 3, 'paint-order': 'stroke' }, `target ${short(target)}`));
  // The threshold's point with its intervals.
  const p = v.threshold;
  const px = lx(num(p.fpr));
  const py = ly(num(p.tpr));
  svg.append(h('svg:line', { x1: px, x2: px, y1: ly(num(p.tpr_interval.lo)), y2: ly(num(p.tpr_interval.hi)), stroke: PALETTE.purple, 'stroke-width': 2 }));
  svg.append(h('svg:line', { x1: lx(Math.max(num(p.fpr_interval.lo), x0)), x2: lx(num(p.fpr_interval.hi)), y1: py, y2: py, stroke: PALETTE.purple, 'stroke-width': 2 }));
  svg.append(h('svg:circle', { cx: px, cy: py, r: 5, fill: PALETTE.purple, stroke: '#fff', 'stroke-width': 1.5, class: 'threshold-point' }));
  legend(svg, area, [
    ['this sample’s ROC', PALETTE.ink, 'solid'],
    ['true ROC', PALETTE.it, 'line'],
    ['equal-variance attack, same AUC', PALETTE.oot, 'line'],
    ['95% Clopper–Pearson band (LeakPro)', PALETTE.sky],
    ['threshold t', PALETTE.purple, 'dot'],
  ]);
  return svg;
}

export function miaTopic(ctx, { number: nr } = {}) {
  const parts = topicFrame({ id: 'mia', title: 'Membership audit: ROC, TPR at low FPR, and honest intervals', number: nr });
  fill(
    parts.explain,
    prose(
      'A membership-inference attack gives every row a score; it calls a row a member (in the training set) when the score is at least a threshold t. Here members’ scores (blue) and non-members’ (orange) overlap, as they do for real attacks. Each t flags some members — the true-positive rate TPR — and some non-members — the false-positive rate FPR. Move t with the slider, or drag on the histogram: its point moves along the ROC, the curve of every threshold.',
      'On linear axes every threshold that matters for privacy is squeezed against the left edge: FPR 0.001 is a tenth of a pixel. On log–log axes the low-FPR end is spread out. That is where an audit looks (Carlini et al. 2022): can the attack pick out some members with almost no false alarms?',
      'Why not just the AUC? It averages over all thresholds. With a wide members’ spread a few members stand far out; an attack whose members are merely shifted (equal variance, the dashed orange curve) can have exactly the same AUC and a TPR at FPR 0.001 many times lower. The readout compares both at the target FPR.',
      'How sure is a TPR at FPR 0.001? With 3000 non-members that FPR means about 3 false positives. A rate estimated from 3 of 3000 has an exact (Clopper–Pearson) 95% interval from about 0.0002 to 0.003 — a factor of ten. The shaded band is the interval on TPR at each FPR; to read TPR at 1e-4 you need at least 10,000 non-members, and ten times that for a useful interval.',
      'The “realized FPR” trap: FPRs come in steps of 1/n₀. A rule that reads “the TPR with FPR ≤ target” (LeakPro, privacy-meter) picks a threshold whose FPR can lie well below the target — at 1e-4 with 3000 non-members it is 0 — and reporting that TPR “at 1e-4” misstates the attack (LeakPro PR 438). jax_privacy interpolates on the convex hull, reaching the target by mixing two thresholds. Lethe shows the realized FPR, with its own interval, beside every TPR.',
    ),
  );
  const run = channel(ctx.engine, 'mia');
  const f = {
    n_members: select({ key: 'n_members', label: 'Members n₁', value: '1000', options: [['100', '100'], ['300', '300'], ['1000', '1000'], ['3000', '3000'], ['10000', '10000']], onChange: () => changed() }),
    n_non_members: select({ key: 'n_non_members', label: 'Non-members n₀', value: '3000', options: [['300', '300'], ['1000', '1000'], ['3000', '3000'], ['10000', '10000'], ['30000', '30000'], ['100000', '100000']], onChange: () => changed() }),
    shift: slider({ key: 'shift', label: 'Members’ mean shift', min: 0, max: 3, step: 0.05, value: 0.5, format: (v) => v.toFixed(2), onInput: () => changed() }),
    spread: slider({ key: 'spread', label: 'Members’ spread (non-members: 1)', min: 0.5, max: 4, step: 0.1, value: 2, format: (v) => v.toFixed(1), onInput: () => changed() }),
    score_threshold: slider({ key: 'score_threshold', label: 'Threshold t (member if score ≥ t)', min: T_MIN, max: T_MAX, step: T_STEP, value: 3, format: (v) => `t = ${tText(v)}`, onInput: () => changed(), hint: 'or drag on the histogram' }),
    target_fpr: select({ key: 'target_fpr', label: 'Target FPR', value: '0.001', options: [['0.0001', '0.0001'], ['0.001', '0.001'], ['0.01', '0.01'], ['0.1', '0.1']], onChange: () => changed() }),
    seed: number({ key: 'seed', label: 'Seed', value: 0, min: 0, step: 1, onChange: () => changed() }),
  };
  fill(parts.controls, Object.values(f).map((x) => x.el));
  let thresholdSet = false;
  const spec = () => ({ n_members: Number(f.n_members.get()), n_non_members: Number(f.n_non_members.get()), shift: f.shift.get(), spread: f.spread.get(), seed: Math.max(0, Math.floor(f.seed.get() || 0)) });
  const request = () => ({ data: spec(), threshold: thresholdSet ? f.score_threshold.get() : null, target_fpr: Number(f.target_fpr.get()), alpha: 0.05 });

  let last = null;
  let lastReq = null;
  const target = () => Number(lastReq.target_fpr);
  const hist = responsive((w) => {
    if (!last) return h('div');
    const t = num(last.threshold.threshold);
    const svg = histogramPlot(last.histograms, {
      width: w,
      height: 240,
      xlabel: 'attack score (member if ≥ t)',
      labels: { it: `members (${lastReq.data.n_members})`, oot: `non-members (${lastReq.data.n_non_members})` },
      markers: [{ x: t, label: `t = ${tText(t)}`, color: PALETTE.purple }],
      label: 'Histograms of the members’ and non-members’ scores with the threshold t (drag to move it)',
    });
    // Dragging on the plot moves the slider (the slider is the keyboard's way; nothing inside the image is focusable).
    const a = svg.plotArea || { x0: 52, x1: w - 14 };
    const [d0, d1] = [last.histograms.edges[0], last.histograms.edges[last.histograms.edges.length - 1]];
    const toData = (clientX) => {
      const r = svg.getBoundingClientRect();
      const sx = (clientX - r.left) * (svg.viewBox.baseVal.width / r.width);
      return d0 + ((sx - a.x0) * (d1 - d0)) / (a.x1 - a.x0);
    };
    let dragging = false;
    const move = (e) => {
      f.score_threshold.set(roundT(toData(e.clientX)));
      thresholdSet = true;
      changed();
    };
    svg.style.cursor = 'ew-resize';
    svg.style.touchAction = 'none';
    svg.addEventListener('pointerdown', (e) => {
      dragging = true;
      svg.setPointerCapture?.(e.pointerId);
      move(e);
      e.preventDefault();
    });
    svg.addEventListener('pointermove', (e) => dragging && move(e));
    svg.addEventListener('pointerup', () => (dragging = false));
    svg.addEventListener('pointercancel', () => (dragging = false));
    return svg;
  });
  const linear = responsive((w) => {
    if (!last) return h('div');
    const v = last;
    const p = v.threshold;
    return linePlot(
      [
        { name: 'this sample’s ROC', kind: 'line', x: v.curve.fpr, y: v.curve.tpr, color: PALETTE.ink },
        { name: 'true ROC', kind: 'line', x: v.truth.fpr, y: v.truth.tpr, color: PALETTE.it, dash: '2 3', strokeWidth: 1.6 },
        { name: 'chance', kind: 'line', x: [0, 1], y: [0, 1], color: PALETTE.grid, dash: '6 4', strokeWidth: 1.5 },
        { name: 'threshold t', kind: 'points', x: [p.fpr], y: [p.tpr], color: PALETTE.purple, r: 5, title: [`t = ${tText(num(p.threshold))}: TPR ${f6(num(p.tpr))}, FPR ${f6(num(p.fpr))}`] },
      ],
      { width: w, height: 280, xlim: [0, 1], ylim: [0, 1], xlabel: 'false positive rate (linear)', ylabel: 'true positive rate', markers: [{ x: target(), label: `target ${short(target())}`, color: PALETTE.target }], label: 'ROC on linear axes with the threshold’s point' },
    );
  });
  const loglog = responsive((w) => (last ? logRoc(last, target(), { width: w }) : h('div')));
  fill(
    parts.figure,
    figureBlock('Scores of members and non-members; the purple line is the threshold t', hist.el),
    figureBlock('ROC on linear axes: the low-FPR end is squeezed against the left edge', linear.el),
    figureBlock('The same ROC on log–log axes, with the Clopper–Pearson band', loglog.el, 'Dotted blue: the true ROC of the distributions the scores were drawn from; dashed orange: an attack with the same AUC whose members are only shifted (equal variance).'),
  );

  function render() {
    const v = last;
    const p = v.threshold;
    const n1 = lastReq.data.n_members;
    const n0 = lastReq.data.n_non_members;
    const tf = target();
    const lp = v.at_target.find((x) => x.rule === 'leakpro');
    const fp = lp.fp ?? 0;
    fill(
      parts.numbers,
      readout(
        [
          ['Threshold t', tText(num(p.threshold)), 'a score ≥ t is called a member', 'mia.t'],
          ['TPR at t', `${f6(num(p.tpr))} ${ci(p.tpr_interval)}`, `${p.tp} of ${n1} members flagged; 95% Clopper–Pearson`, 'mia.t_tpr'],
          ['FPR at t', `${f6(num(p.fpr))} ${ci(p.fpr_interval)}`, `${p.fp} of ${n0} non-members flagged`, 'mia.t_fpr'],
        ],
        'The attack at the threshold you set',
      ),
      readout(
        [
          ['AUC', f6(num(v.auc)), 'Mann–Whitney U / (n₁ n₀), as lethe mia', 'mia.auc'],
          ['DeLong 95% CI', ci(v.delong.interval), `standard error ${f6(num(v.delong.standard_error))}`, 'mia.delong'],
          ['True AUC', f6(num(v.truth.auc)), `Φ(shift / √(1 + spread²)); the equal-variance attack’s shift is ${f6(num(v.truth.equal_variance_shift))}`, 'mia.true_auc'],
          [`True TPR at FPR ${short(tf)}`, `${f6(num(v.truth.tpr_at_target))} vs ${f6(num(v.truth.equal_variance_tpr_at_target))}`, 'this attack vs the equal-variance attack with the same AUC', 'mia.same_auc'],
        ],
        'AUC against TPR at a low FPR',
      ),
      readout(
        [
          ['Non-members the target flags', short(v.expected_fp_at_target), `n₀ × ${short(tf)}; the smallest FPR above 0 is 1/n₀ = ${f6(num(v.resolution))}`, 'mia.expected_fp'],
          [`LeakPro’s TPR at FPR ${short(tf)}`, `${f6(num(lp.tpr))} ${ci(lp.tpr_interval)}`, `${lp.tp} of ${n1} members; 95% Clopper–Pearson`, 'mia.tpr_at_target'],
          ['Its realized FPR', `${f6(num(lp.realized_fpr))} ${ci(lp.fpr_interval)}`, num(lp.realized_fpr) < tf ? `${fp} false positive(s): below the target — the TPR is not “at ${short(tf)}”` : `${fp} false positive(s)`, 'mia.realized_fpr'],
        ],
        'How well the non-members resolve the target FPR',
      ),
      h(
        'div',
        { class: 'teach-table-scroll' },
        h(
          'table',
          { class: 'numbers teach-readout', 'data-value': 'mia.rules' },
          h('caption', {}, `Three tools’ rules at target FPR ${short(tf)}`),
          h('thead', {}, h('tr', {}, ['rule', 'TPR', 'realized FPR'].map((c) => h('th', { scope: 'col' }, c)))),
          h(
            'tbody',
            {},
            v.at_target.map((x) => h('tr', {}, h('th', { scope: 'row' }, RULE_TEXT[x.rule] || x.rule), h('td', { 'data-value': `mia.rule.${x.rule}` }, f6(num(x.tpr))), h('td', { 'data-value': `mia.rule_fpr.${x.rule}` }, f6(num(x.realized_fpr))))),
          ),
        ),
      ),
    );
    hist.render();
    linear.render();
    loglog.render();
    parts.updated();
  }

  async function update() {
    const req = request();
    lastReq = req;
    renderHandoff();
    parts.busy(true);
    try {
      last = await run(req);
      if (!thresholdSet) {
        // The first threshold: LeakPro's at the target, moved up onto the slider's grid (so its FPR stays at or
        // below the target), and the figure computed at exactly that t.
        f.score_threshold.set(Math.min(T_MAX, Math.ceil(num(last.threshold.threshold) / T_STEP - 1e-9) * T_STEP));
        thresholdSet = true;
        return update();
      }
      render();
      parts.ok('');
    } catch (e) {
      if (!isAbort(e)) parts.error(e);
    }
  }
  const changed = debounce(update, 60);
  // A moved threshold slider is the person's threshold from now on.
  f.score_threshold.input.addEventListener('input', () => (thresholdSet = true));

  const exportData = async () => {
    const files = await ctx.engine.request('teach', { topic: 'export', request: { topic: 'mia', ...lastReq.data } });
    for (const file of files) download(file.name, file.bytes, 'application/octet-stream');
  };
  const renderHandoff = () => {
    const r = lastReq;
    const s = r.data.seed;
    fill(
      parts.handoff,
      handoff({
        text: 'The Membership audit panel runs the same audit on your attack’s scores (two files, or scores with 0/1 labels): the exact ROC, the AUC with DeLong’s or a bootstrap interval, TPR at each target FPR by every tool’s rule with the realized FPR, and the log–log plot with its band. The link opens it on these scores, read at this target FPR by all three rules.',
        links: [{ href: `${new URL('index.html', siteRoot()).href}?${new URLSearchParams({ example: '0', teach: 'mia', ...Object.fromEntries(Object.entries(r.data).map(([k, v]) => [k, String(v)])), target_fpr: String(r.target_fpr) })}#lethe-mia`, label: 'Open these scores in the Membership audit panel →', action: 'handoff' }],
        cli: [`lethe mia teach_members_seed${s}.npy teach_non_members_seed${s}.npy --fpr ${r.target_fpr} --rule all`],
      }),
      h('p', {}, button({ action: 'download-data', label: 'Download the scores (.npy)', onClick: () => exportData().catch((e) => parts.error(e)) })),
    );
  };
  const ready = update();
  return { id: 'mia', el: parts.el, ready, state: () => ({ request: lastReq, result: last }) };
}
