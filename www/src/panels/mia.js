// Membership audit panel: the ROC of a membership-inference attack's scores (members vs non-members), its AUC with
// DeLong's and/or a seeded bootstrap interval, and TPR at low target FPRs with the realized FPR and Clopper–Pearson
// intervals on both — the analysis layer's `mia` request, the same report as `lethe mia --json`.
import { h, fill } from '../dom.js';
import { fmt, num } from '../format.js';
import { PALETTE, SERIES, axes, frame, legend } from '../views/svg.js';
import { inputSlot, field, panelFrame, runner, showError, numbers, plotBlock, exportBar, cliLine, envelope, preflight, headlineBox, layerWarnings, refuseExampleMix, tableBox, rowSources } from './common.js';
import { epsSection } from './eps.js';

const RULES = { leakpro: 'LeakPro (largest TPR, FPR ≤ target)', 'privacy-meter': 'privacy-meter (last point, FPR ≤ target)', 'jax-privacy': 'jax_privacy (convex hull)' };
const RULE_COLOR = { leakpro: PALETTE.it, 'privacy-meter': PALETTE.oot, 'jax-privacy': PALETTE.target };
const ci = (i) => (i ? `[${fmt(num(i.lo))}, ${fmt(num(i.hi))}]` : '—');

/**
 * The built-in example (examples/mia/demo_scores.py writes examples/data/digits/mia_scores.npz): attack scores of the
 * digits demo's 144 forget rows (rows 0–143: members of the original model's training set) and its 359 test rows
 * (rows 144–502: in no model's training set), audited on the unlearned model with a LiRA-style score.
 */
export const EXAMPLE = {
  file: 'mia_scores.npz',
  score: 'lira_unlearned',
  members: '0..144',
  non_members: '144..503',
  params: { ci: 'both', resamples: 1000, seed: 0, rule: 'leakpro', fpr: [0, 0.003, 0.01, 0.03, 0.1, 0.3], alpha: 0.05, lower_is_member: false },
};
const EXAMPLE_NOTE =
  'Built-in example: a LiRA-style attack on the digits demo’s “unlearned” model (the original fine-tuned 5 epochs on the retain rows). Each row’s score is its logit-scaled confidence log(p_y / (1 − p_y)) under the unlearned model minus the same under the retrained model, which saw none of these rows; members are the 144 forget rows, non-members the 359 test rows. A plain loss threshold (loss_unlearned in the same file, lower = member) finds nothing here; this calibrated score still finds the forget rows.';

/** Tick positions of a log10 axis between lo and hi (both > 0): the powers of ten. */
function decades(lo, hi) {
  const out = [];
  for (let e = Math.ceil(Math.log10(lo) - 1e-9); e <= Math.floor(Math.log10(hi) + 1e-9); e++) out.push(10 ** e);
  return out.length >= 2 ? out : [lo, hi];
}

/**
 * The ROC on log–log axes (both rates from the smallest the data resolve to 1), the chance line, and at each target
 * FPR the point its rule read with Clopper–Pearson intervals on TPR (vertical) and FPR (horizontal), joined by a band.
 */
export function rocPlot(res, { width = 640, height = 360, rules } = {}) {
  const n1 = res.summary.n_members;
  const n0 = res.summary.n_non_members;
  const fx = res.curve.fpr.map(num);
  const ty = res.curve.tpr.map(num);
  const pts = res.tpr_at_fpr.filter((p) => !rules || rules.includes(p.rule));
  const targets = pts.map((p) => num(p.target_fpr)).filter((t) => t > 0);
  const x0 = Math.min(0.5 / n0, ...targets.map((t) => t / 2));
  const y0 = Math.min(0.5 / n1, ...ty.filter((v) => v > 0));
  const { svg, area } = frame({ width, height, m: { l: 56, r: 16, t: 42, b: 44 }, label: 'ROC curve of the attack on log–log axes, with Clopper–Pearson intervals at the target FPRs' });
  const lx = (v) => area.x0 + ((Math.log10(Math.max(v, x0)) - Math.log10(x0)) / -Math.log10(x0)) * (area.x1 - area.x0);
  const ly = (v) => area.y1 - ((Math.log10(Math.max(v, y0)) - Math.log10(y0)) / -Math.log10(y0)) * (area.y1 - area.y0);
  axes(svg, area, lx, ly, { xlabel: 'False positive rate (log; non-members flagged)', ylabel: 'True positive rate (log)', xticks: decades(x0, 1), yticks: decades(y0, 1) });
  // Chance: TPR = FPR.
  const lo = Math.max(x0, y0);
  svg.append(h('svg:line', { x1: lx(lo), y1: ly(lo), x2: lx(1), y2: ly(1), stroke: PALETTE.grid, 'stroke-width': 1.5, 'stroke-dasharray': '6 4', class: 'chance' }));
  // The curve: every point with both rates above 0 (the rest lie on the axes' floor).
  let d = '';
  fx.forEach((f, i) => {
    if (!(f > 0) || !(ty[i] > 0)) return;
    d += `${d ? 'L' : 'M'}${lx(f).toFixed(2)},${ly(ty[i]).toFixed(2)}`;
  });
  if (d) svg.append(h('svg:path', { d, fill: 'none', stroke: PALETTE.ink, 'stroke-width': 2, class: 'line', 'data-name': 'roc' }));
  const byRule = new Map();
  for (const p of pts) (byRule.get(p.rule) || byRule.set(p.rule, []).get(p.rule)).push(p);
  const entries = [['ROC', PALETTE.ink, 'solid'], ['chance', PALETTE.grid, 'line']];
  [...byRule.entries()].forEach(([rule, list], k) => {
    const c = RULE_COLOR[rule] || SERIES[k % SERIES.length];
    entries.push([`${rule}: TPR at each target FPR, Clopper–Pearson`, c, 'dot']);
    const shown = list.filter((p) => p.tpr_interval).map((p) => ({ x: Math.max(num(p.realized_fpr), x0), lo: num(p.tpr_interval.lo), hi: num(p.tpr_interval.hi) }));
    if (shown.length >= 2) {
      const up = shown.map((s) => `${lx(s.x).toFixed(2)},${ly(s.hi).toFixed(2)}`);
      const down = shown.map((s) => `${lx(s.x).toFixed(2)},${ly(s.lo).toFixed(2)}`).reverse();
      svg.append(h('svg:path', { d: `M${up.join('L')}L${down.join('L')}Z`, fill: c, 'fill-opacity': 0.18, stroke: 'none', class: 'band', 'data-name': rule }));
    }
    for (const p of list) {
      const x = Math.max(num(p.realized_fpr), x0);
      const y = num(p.tpr);
      const g = h('svg:g', { class: 'cp', 'data-rule': rule, 'data-target': String(num(p.target_fpr)) });
      if (p.tpr_interval) g.append(h('svg:line', { x1: lx(x), x2: lx(x), y1: ly(num(p.tpr_interval.lo)), y2: ly(num(p.tpr_interval.hi)), stroke: c, 'stroke-width': 1.5 }));
      if (p.fpr_interval) g.append(h('svg:line', { x1: lx(Math.max(num(p.fpr_interval.lo), x0)), x2: lx(num(p.fpr_interval.hi)), y1: ly(y), y2: ly(y), stroke: c, 'stroke-width': 1.5 }));
      g.append(
        h('svg:circle', { cx: lx(x), cy: ly(y), r: 3.5, fill: c },
          h('svg:title', {}, `${rule} at target FPR ${fmt(num(p.target_fpr))}: TPR ${fmt(y)} ${ci(p.tpr_interval)}, realized FPR ${fmt(num(p.realized_fpr))} ${ci(p.fpr_interval)}`)),
      );
      svg.append(g);
    }
  });
  legend(svg, area, entries);
  return svg;
}

/**
 * Lets the intervals under each value and the column titles wrap (the table's cells do not), so that the table fits a
 * narrow results column (375 px) instead of scrolling: set through the CSSOM, which a strict Content-Security-Policy
 * allows.
 */
function fitTable(el) {
  for (const s of el.querySelectorAll('small, thead th')) s.style.whiteSpace = 'normal';
  return el;
}

export function miaPanel(ctx) {
  const parts = panelFrame({
    id: 'lethe-mia',
    title: 'Membership audit — ROC, AUC and TPR at low FPR',
    intro:
      'Scores of a membership-inference attack on rows known to be members (in training) and non-members: how well does the attack tell them apart? AUC with an interval, and the true-positive rate at low false-positive rates, read at the FPR the chosen threshold really has.',
  });
  const mode = field({
    key: 'mode',
    label: 'Inputs are',
    type: 'select',
    value: 'two',
    options: [['two', 'two score inputs: members and non-members'], ['labels', 'one score input + 0/1 labels (1 = member)']],
    help: 'one number per row; a file split by a column goes in twice with row subsets (rows where the column equals a value)',
  });
  const slots = {
    members: inputSlot(ctx, { key: 'members', label: 'Members’ scores', hint: 'one score per member row' }),
    non_members: inputSlot(ctx, { key: 'non_members', label: 'Non-members’ scores', hint: 'one score per non-member row' }),
    scores: inputSlot(ctx, { key: 'scores', label: 'Scores', hint: 'one score per row' }),
    labels: inputSlot(ctx, { key: 'labels', label: 'Labels (1 = member, 0 = non-member)', hint: 'row for row with the scores' }),
  };
  const syncMode = () => {
    const two = mode.get() === 'two';
    slots.members.el.hidden = slots.non_members.el.hidden = !two;
    slots.scores.el.hidden = slots.labels.el.hidden = two;
  };
  mode.input.addEventListener('change', syncMode);
  const note = h('p', { class: 'notes', 'data-value': 'mia.example', hidden: true }, EXAMPLE_NOTE);
  let exampleSource = null;
  fill(parts.inputs, note, mode.el, Object.values(slots).map((s) => s.el));
  syncMode();

  const p = {
    lower_is_member: field({ key: 'lower_is_member', label: 'A lower score means member (a loss, a distance)', type: 'checkbox', value: false }),
    ci: field({ key: 'ci', label: 'Interval on the AUC', type: 'select', value: 'delong', options: [['delong', 'DeLong (default: one pass)'], ['bootstrap', 'seeded bootstrap'], ['both', 'both']] }),
    resamples: field({ key: 'resamples', label: 'Bootstrap resamples', value: 1000, min: 1, step: 1 }),
    seed: field({ key: 'seed', label: 'Bootstrap seed', value: 0, min: 0, step: 1 }),
    rule: field({ key: 'rule', label: 'TPR at a target FPR, read by', type: 'select', value: 'leakpro', options: [...Object.entries(RULES), ['all', 'all three side by side']] }),
    fpr: field({ key: 'fpr', label: 'Target FPRs', type: 'text', value: '0, 0.0001, 0.001, 0.01, 0.1', size: 22, help: 'comma-separated rates between 0 and 1' }),
    alpha: field({ key: 'alpha', label: 'α (1 − level of every interval)', value: 0.05, min: 0, max: 1, step: 0.01 }),
  };
  const syncCi = () => (p.resamples.el.hidden = p.seed.el.hidden = p.ci.get() === 'delong');
  p.ci.input.addEventListener('change', syncCi);
  syncCi();
  parts.params.append(...Object.values(p).map((f) => f.el));

  let last = null;
  const fprs = () => p.fpr.get().split(/[,\s]+/).filter(Boolean).map(Number);
  const request = () => {
    const two = mode.get() === 'two';
    return {
      members: two ? slots.members.get() : null,
      non_members: two ? slots.non_members.get() : null,
      scores: two ? null : slots.scores.get(),
      labels: two ? null : slots.labels.get(),
      lower_is_member: p.lower_is_member.get(),
      alpha: p.alpha.get(),
      ci: p.ci.get(),
      resamples: p.resamples.get(),
      seed: p.seed.get(),
      rule: p.rule.get(),
      fpr: fprs(),
    };
  };
  const report = ({ req, out }) => {
    const par = out.parameters;
    const args = [
      ['_members', par.members],
      ['_non_members', par.non_members],
      ['scores', par.scores],
      ['labels', par.labels],
      ['lower-is-member', req.lower_is_member],
      ['alpha', req.alpha],
      ['ci', req.ci],
      ['resamples', req.ci !== 'delong' ? req.resamples : null],
      ['seed', req.ci !== 'delong' ? req.seed : null],
      ['rule', req.rule],
      ['fpr', req.fpr.join(',')],
    ];
    return envelope(ctx, { command: 'mia', parameters: par, seed: out.seed ?? null, output: out, cli: cliLine('mia', args) });
  };
  const table = ({ out }) => {
    const rows = [['rule', 'target_fpr', 'tpr', 'tpr_lo', 'tpr_hi', 'realized_fpr', 'fpr_lo', 'fpr_hi', 'threshold', 'tp', 'fp']];
    for (const t of out.result.tpr_at_fpr) {
      rows.push([t.rule, num(t.target_fpr), num(t.tpr), t.tpr_interval ? num(t.tpr_interval.lo) : '', t.tpr_interval ? num(t.tpr_interval.hi) : '', num(t.realized_fpr), t.fpr_interval ? num(t.fpr_interval.lo) : '', t.fpr_interval ? num(t.fpr_interval.hi) : '', num(t.threshold), t.tp ?? '', t.fp ?? '']);
    }
    return rows;
  };

  const run = runner(ctx, parts, {
    label: 'Run the audit',
    fields: Object.values(p),
    start: async (signal, onProgress) => {
      for (const s of Object.values(slots)) s.clearError();
      pre.clear();
      const req = request();
      try {
        await refuseExampleMix(ctx, 'mia', { ...req, resamples: 1, curve_points: 2 });
        const out = await ctx.engine.request('run', { analysis: 'mia', request: req }, { signal, onProgress });
        last = { req, out };
        render(last);
        ctx.emit('result', { panel: 'mia', output: out, report: report(last) });
        return out;
      } catch (e) {
        if (e.name !== 'AbortError') {
          showError(parts, Object.values(slots), e);
          ctx.emit('error', { panel: 'mia', message: e.message, input: e.input });
        }
        throw e;
      }
    },
  });

  // Checks before Run, once the inputs of the chosen kind are there: the request runs with one bootstrap resample
  // (what the checks find does not depend on the resamples), so a check never waits for a long bootstrap.
  const pre = preflight(ctx, parts, {
    busy: () => run.busy(),
    slots: () => Object.values(slots),
    build: () => {
      const req = request();
      const ready = mode.get() === 'two' ? req.members && req.non_members : req.scores && req.labels;
      return ready ? [{ analysis: 'mia', request: { ...req, resamples: 1, curve_points: 2 } }] : null;
    },
  });
  parts.onChange = () => {
    const req = request();
    const mine = mode.get() === 'two' && req.members?.source === exampleSource && req.non_members?.source === exampleSource;
    note.hidden = !mine;
    pre.schedule();
  };

  function render({ req, out }) {
    const r = out.result;
    const s = r.summary;
    const left = pre.place(out.warnings, true);
    const level = `${+(100 * (1 - req.alpha)).toPrecision(6)}%`;
    const rows = r.tpr_at_fpr;
    // One rule: its name goes into the caption, and the table keeps to four columns (it fits 375 px).
    const oneRule = new Set(rows.map((t) => t.rule)).size === 1;
    fill(
      parts.results,
      headlineBox(out.headline),
      layerWarnings(left),
      numbers([
        ['AUC', fmt(num(s.auc)), `Mann–Whitney U = ${fmt(num(s.mann_whitney_u))}; ${s.n_members} members, ${s.n_non_members} non-members, ${s.distinct_thresholds} distinct scores`, 'mia.auc'],
        r.delong && [`DeLong ${level} CI`, ci(r.delong.interval), `standard error ${fmt(num(r.delong.standard_error))}`, 'mia.delong'],
        r.bootstrap && [`Bootstrap ${level} CI`, ci(r.bootstrap.interval), `${r.bootstrap.resamples_done} of ${r.bootstrap.resamples} resamples, seed ${r.bootstrap.seed}${r.bootstrap.complete ? '' : ' (stopped early)'}`, 'mia.bootstrap'],
        ['AUC with the labels flipped', fmt(num(r.auc_flipped)), '1 − AUC: the attack that flags low scores as members', 'mia.auc_flipped'],
        ['AUC of the convex hull', fmt(num(r.hull_auc)), 'jax_privacy’s attack AUROC', 'mia.hull_auc'],
        ['Balanced accuracy', fmt(num(s.balanced_accuracy)), `at threshold ${fmt(num(s.balanced_threshold))}: TPR ${fmt(num(s.balanced_tpr))}, FPR ${fmt(num(s.balanced_fpr))}`, 'mia.balanced_accuracy'],
        ['Max TPR − FPR', fmt(num(s.max_tpr_minus_fpr)), 'the attack’s advantage', 'mia.advantage'],
      ]),
      rowSources(out.inputs, ['members', 'non_members', 'scores'], 'mia.rows_source', { non_members: 'non-members' }),
      plotBlock({
        title: 'ROC (log–log) with Clopper–Pearson intervals at the target FPRs',
        filename: 'lethe-mia-roc',
        heading: [
          'Membership audit: ROC (log–log) with Clopper–Pearson intervals at the target FPRs',
          { text: `AUC ${fmt(num(s.auc))} · ${s.n_members} members, ${s.n_non_members} non-members`, attrs: { 'data-name': 'auc', 'data-auc': String(num(s.auc)) } },
          r.delong && `DeLong ${level} CI ${ci(r.delong.interval)}`,
          r.bootstrap && `Bootstrap ${level} CI ${ci(r.bootstrap.interval)}`,
        ].filter(Boolean),
        draw: (width) => rocPlot(r, { width }),
      }).el,
      r.curve.thinned ? h('p', { class: 'muted' }, `The curve is drawn through ${r.curve.fpr.length} of its ${r.curve.points} points; every statistic uses them all.`) : null,
      fitTable(tableBox({ class: 'table-scroll' },
        h('table', { class: 'targets', 'data-value': 'mia.tpr_at_fpr' },
          h('caption', {}, `TPR at each target FPR, and the FPR the chosen threshold really has (${level} Clopper–Pearson intervals below each)${oneRule ? `; ${rows[0].rule}’s rule` : ''}`),
          h('thead', {}, h('tr', {}, [oneRule ? null : 'rule', 'target FPR', 'TPR', 'realized FPR', 'threshold'].filter(Boolean).map((c) => h('th', { scope: 'col' }, c)))),
          h('tbody', {}, rows.map((t) => h('tr', { 'data-rule': t.rule, 'data-target': String(num(t.target_fpr)) },
            oneRule ? null : h('td', {}, t.rule),
            h('th', { scope: 'row' }, String(num(t.target_fpr))),
            h('td', {}, h('span', { 'data-tpr': `${t.rule}.${num(t.target_fpr)}` }, fmt(num(t.tpr))), h('br'), h('small', { class: 'muted' }, ci(t.tpr_interval))),
            h('td', { class: num(t.realized_fpr) < num(t.target_fpr) ? 'below-target' : null }, h('span', {}, fmt(num(t.realized_fpr))), h('br'), h('small', { class: 'muted' }, ci(t.fpr_interval))),
            h('td', {}, t.mixed_threshold != null ? [fmt(num(t.threshold)), h('br'), h('small', { class: 'muted' }, `/ ${fmt(num(t.mixed_threshold))} (mixed, weight ${fmt(num(t.mixing_weight))})`)] : fmt(num(t.threshold))))))),
      )),
      h('p', { class: 'params-line muted' }, `${req.lower_is_member ? 'lower score = member · ' : ''}interval ${req.ci} · rule ${req.rule} · α = ${req.alpha}`),
      exportBar({ engine: ctx.engine, name: 'lethe-mia', report: () => report({ req, out }), table: () => table({ out }) }),
    );
    eps.follow(req);
  }

  // The ε lower bound on the same scores (panels/eps.js): follows each audit, cleared when the scores change.
  const eps = epsSection(ctx, { current: () => request(), watch: parts.el });
  parts.el.append(eps.el);

  // LiRA from shadow models (panels/lira.js, loaded when opened): a folder of shadow-model results.
  const liraBox = h('details', { class: 'lira-box', 'data-role': 'lira-open' }, h('summary', {}, 'LiRA from shadow models: a folder of shadow-model results (tensorflow/privacy mi_lira_2021), or stacked arrays'));
  liraBox.addEventListener('toggle', () => {
    if (!liraBox.open || liraBox.dataset.loaded) return;
    liraBox.dataset.loaded = '1';
    import('./lira.js').then((m) => liraBox.append(m.liraSection(ctx).el));
  });
  parts.el.append(liraBox);

  return {
    id: 'mia',
    el: parts.el,
    slots,
    eps,
    fields: { ...p, mode },
    /** The mode that data for `roles` needs (scores/labels → one input with labels; members → two inputs). */
    modeFor: (roles) => (roles.some((r) => r === 'scores' || r === 'labels') ? 'labels' : roles.some((r) => r === 'members' || r === 'non_members') ? 'two' : null),
    run: (signal) => run.run(signal),
    cancel: () => run.cancel(),
    last: () => last && report(last),
    /**
     * Sets the panel to the built-in example (mia_scores.npz, fetched from `url(name)`, the example's files) and runs it:
     * the log–log ROC with its Clopper–Pearson band is what the panel shows first.
     */
    async loadExample(url) {
      const r = await fetch(url(EXAMPLE.file));
      if (!r.ok) throw new Error(`${EXAMPLE.file}: HTTP ${r.status}`);
      const item = await ctx.store.add({ file: new File([await r.blob()], EXAMPLE.file), origin: 'example', note: 'membership-attack scores (examples/mia/demo_scores.py)' });
      exampleSource = item.id;
      mode.set('two');
      syncMode();
      for (const [k, v] of Object.entries(EXAMPLE.params)) p[k].set(Array.isArray(v) ? v.join(', ') : v);
      syncCi();
      slots.members.set({ source: item.id, tensor: EXAMPLE.score, rows: { kind: 'text', text: EXAMPLE.members } });
      slots.non_members.set({ source: item.id, tensor: EXAMPLE.score, rows: { kind: 'text', text: EXAMPLE.non_members } });
      slots.members.rows?.markExample();
      slots.non_members.rows?.markExample();
      note.hidden = false;
      return run.run().catch(() => {});
    },
    /**
     * Runs the audit on `inputs` given as the layer's input references (a tools' file's offer, issue 14, whose
     * `#KEY`s the slots' pickers do not list), with the panel's options; shown and exported as a Run's result.
     */
    async runInputs(inputs) {
      const req = { ...request(), members: null, non_members: null, scores: null, labels: null, ...inputs };
      const out = await ctx.engine.request('run', { analysis: 'mia', request: req });
      last = { req, out };
      render(last);
      ctx.emit('result', { panel: 'mia', output: out, report: report(last) });
      return out;
    },
    set(opts) {
      for (const [k, v] of Object.entries(opts)) {
        if (slots[k]) slots[k].set(v);
        else if (k === 'mode') (mode.set(v), syncMode());
        else if (p[k]) (p[k].set(Array.isArray(v) ? v.join(', ') : v), k === 'ci' && syncCi());
      }
    },
  };
}
