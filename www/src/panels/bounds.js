// Leakage bounds panel (Scholten et al., following conbo): M_bin, M_gen(x) with a slider, expectation and SD
// bounds, ED score, and the sample size for a bound of a given width; scores from a file, pasted, or ROUGE-L of
// pasted generations against a reference.
import { h, fill, nextId } from '../dom.js';
import { fmt, num } from '../format.js';
import { ecdfPlot } from '../views/ecdf.js';
import { inputSlot, field, panelFrame, runner, showError, numbers, plotBlock, exportBar, warningsBox, cliLine, envelope, preflight, headlineBox, layerWarnings, checkLine, say, loadWarnings, tableBox } from './common.js';

/** Pasted text or a file of lines, for `key`. */
function textSource(ctx, { key, label, placeholder, rows = 5 }) {
  const id = nextId('text');
  const area = h('textarea', { id, rows, placeholder, 'data-role': key });
  const src = h('select', { 'aria-label': `${label}: or a text file`, 'data-role': `${key}-source` });
  const error = h('div', { class: 'error', role: 'alert', 'data-error-for': key });
  const checks = h('div', { class: 'slot-checks', 'data-check-for': key });
  const fillSources = () => {
    const cur = src.value;
    fill(src, h('option', { value: '' }, '— or choose a text file —'), ctx.store.sources().map((i) => h('option', { value: i.id }, ctx.store.label(i))));
    src.value = cur;
    if (cur && src.value !== cur) src.dispatchEvent(new CustomEvent('lethe-change', { bubbles: true, detail: { why: `the file chosen for “${label}” was removed` } }));
  };
  ctx.store.on(fillSources);
  fillSources();
  const el = h('div', { class: 'slot', 'data-slot': key }, h('label', { for: id, class: 'slot-label' }, label), area, h('div', { class: 'row' }, src), error, checks);
  return {
    key,
    el,
    showChecks: (list, labels) => fill(checks, (list || []).filter((c) => say(c.message, labels) !== error.textContent).map((c) => checkLine(c, labels))),
    get: () => (src.value ? { kind: 'source', source: Number(src.value) } : area.value.trim() ? { kind: 'text', text: area.value } : null),
    set: (v) => {
      fillSources();
      if (v?.kind === 'source') src.value = String(v.source);
      else {
        src.value = '';
        area.value = v?.text || '';
      }
      el.dispatchEvent(new CustomEvent('lethe-change', { bubbles: true, detail: { why: `“${label}” changed` } }));
    },
    showError: (m) => fill(error, say(m)),
    clearError: () => fill(error),
  };
}

/** The scores' empirical CDF with its DKW band at level 1 − `alpha` ({x, cdf, lower, upper}: the core's), `marker` at x. */
export function boundsPlot(ecdf, alpha, marker, width) {
  return ecdfPlot(ecdf, { width, level: `1 − ${alpha}`, marker, label: 'Empirical CDF with DKW confidence band' });
}

export function boundsPanel(ctx) {
  const parts = panelFrame({
    id: 'lethe-bounds',
    title: 'Leakage bounds — how much can sampled answers leak?',
    intro:
      'From n sampled answers and a leakage score in [0, 1] for each (0/1 “the secret appeared”, or ROUGE-L against the secret), distribution-free upper bounds on what the next answer leaks.',
  });
  const mode = field({ key: 'mode', label: 'Scores come from', type: 'select', value: 'scores', options: [['scores', 'a file or pasted numbers in [0, 1] (or 0/1 flags)'], ['generations', 'generations scored by ROUGE-L against a reference']] });
  const slots = {
    scores: inputSlot(ctx, { key: 'scores', label: 'Scores', hint: 'one column (or one row) of numbers in [0, 1]; all 0/1 gives M_bin too' }),
    predictions: textSource(ctx, { key: 'predictions', label: 'Generations (one per line)', placeholder: 'answer 1\nanswer 2\n…' }),
    reference: textSource(ctx, { key: 'reference', label: 'Reference (the secret; one line, or one per generation)', placeholder: 'the text that must not leak', rows: 2 }),
  };
  const stemmer = field({ key: 'stemmer', label: 'Porter stemming (rouge-score use_stemmer)', type: 'checkbox', value: false });
  const seed = field({ key: 'synthetic_seed', label: 'Synthetic seed', value: 0, min: 0, step: 1 });
  seed.el.dataset.nostale = '';
  const synthNote = h('div', { class: 'muted', 'aria-live': 'polite' });
  const synth = async (kind) => {
    const s = await ctx.engine.request('synthetic', { kind, seed: seed.get() || 0 });
    const items = [];
    for (const f of s.files) items.push(await ctx.store.add({ bytes: f.bytes, name: f.name, origin: 'synthetic', note: s.description }));
    if (kind === 'scores') {
      mode.set('scores');
      slots.scores.set({ source: items[0].id, rows: { kind: 'all' } });
    } else {
      mode.set('generations');
      slots.predictions.set({ kind: 'source', source: items[0].id });
      slots.reference.set({ kind: 'source', source: items[1].id });
    }
    syncMode();
    fill(synthNote, s.description + '. Not real data: for trying the panel.');
  };
  const genBtns = h(
    'div',
    { class: 'synthetic row' },
    h('button', { type: 'button', class: 'button button-secondary', 'data-action': 'synthetic-scores', onclick: () => synth('scores') }, 'Synthetic scores'),
    h('button', { type: 'button', class: 'button button-secondary', 'data-action': 'synthetic-generations', onclick: () => synth('generations') }, 'Synthetic generations'),
    seed.el,
  );
  const syncMode = () => {
    const gen = mode.get() === 'generations';
    slots.scores.el.hidden = gen;
    slots.predictions.el.hidden = !gen;
    slots.reference.el.hidden = !gen;
    stemmer.el.hidden = !gen;
  };
  mode.input.addEventListener('change', syncMode);
  fill(parts.inputs, genBtns, synthNote, mode.el, slots.scores.el, slots.predictions.el, slots.reference.el, stemmer.el);
  syncMode();

  const p = {
    alpha: field({ key: 'alpha', label: 'α', value: 0.01, min: 0, max: 1, step: 0.005, help: 'conbo: two-sided level 1 − α' }),
    one_sided: field({ key: 'one_sided', label: 'one-sided M_bin / M_gen (the paper’s form)', type: 'checkbox', value: false }),
    x: field({ key: 'x', label: 'M_gen at x', type: 'text', value: '0.25, 0.5, 0.75', size: 16 }),
    stepsize: field({ key: 'stepsize', label: 'Grid points', value: 100, min: 2, step: 1 }),
    sd_method: field({ key: 'sd_method', label: 'SD bound', type: 'select', value: 'conbo', options: [['conbo', 'conbo'], ['perbin', 'per bin'], ['lp', 'exact LP']] }),
    atom_at_zero: field({ key: 'atom_at_zero', label: 'mass at 0 in the first cell', type: 'checkbox', value: false }),
    rho: field({ key: 'rho', label: 'ED weight ρ', value: 2, min: 0, step: 0.5 }),
    plan_width: field({ key: 'plan_width', label: 'Bound width wanted (± w)', value: 0.05, min: 0, max: 1, step: 0.01 }),
  };
  parts.params.append(...Object.values(p).map((f) => f.el));

  let last = null;
  const request = (extra = {}) => {
    const gen = mode.get() === 'generations';
    const xs = p.x.get().split(/[,\s]+/).filter(Boolean).map(Number);
    return {
      scores: gen ? null : slots.scores.get(),
      predictions: gen ? slots.predictions.get() : null,
      reference: gen ? slots.reference.get() : null,
      stemmer: gen && stemmer.get(),
      alpha: p.alpha.get(),
      one_sided: p.one_sided.get(),
      x: xs,
      stepsize: p.stepsize.get(),
      sd_method: p.sd_method.get(),
      atom_at_zero: p.atom_at_zero.get(),
      rho: p.rho.get(),
      plan_width: p.plan_width.get(),
      ...extra,
    };
  };
  const report = ({ req, out }) => {
    const bound = { alpha: req.alpha, one_sided: req.one_sided, x: req.x, stepsize: req.stepsize, sd_method: req.sd_method, atom_at_zero: req.atom_at_zero, rho: req.rho, plan_width: req.plan_width };
    const bargs = [['alpha', req.alpha], ['one-sided', req.one_sided], ...req.x.map((v) => ['x', v]), ['stepsize', req.stepsize], ['sd-method', req.sd_method], ['atom-at-zero', req.atom_at_zero], ['rho', req.rho], ['plan-width', req.plan_width]];
    if (out.command === 'bounds') {
      const scores = out.inputs[0]?.spec ?? null;
      return envelope(ctx, { command: 'bounds', parameters: { scores, bounds: bound }, seed: null, output: out, cli: cliLine('bounds', [['_scores', scores], ...bargs]) });
    }
    const rec = (role) => out.inputs.find((x) => x.role === role)?.path ?? null;
    const parameters = { predictions: rec('predictions') ?? '(pasted)', reference: rec('reference') ?? '(pasted)', reference_text: null, stemmer: req.stemmer, bounds: true, bound_args: bound };
    return envelope(ctx, { command: 'rouge', parameters, seed: null, output: out, cli: cliLine('rouge', [['predictions', parameters.predictions], ['reference', parameters.reference], ['stemmer', req.stemmer], ['bounds', true], ...bargs]) });
  };
  const table = ({ out }) => {
    const rows = [['x', 'ecdf', 'dkw_lower', 'dkw_upper']];
    out.ecdf.x.forEach((x, i) => rows.push([num(x), num(out.ecdf.cdf[i]), num(out.ecdf.lower[i]), num(out.ecdf.upper[i])]));
    return rows;
  };

  const run = runner(ctx, parts, {
    label: 'Compute bounds',
    fields: Object.values(p),
    start: async (signal) => {
      for (const s of Object.values(slots)) s.clearError();
      pre.clear();
      const req = request();
      try {
        const out = await ctx.engine.request('run', { analysis: 'bounds', request: req }, { signal });
        last = { req, out };
        render(last);
        ctx.emit('result', { panel: 'bounds', output: out, report: report(last) });
        return out;
      } catch (e) {
        if (e.name !== 'AbortError') {
          showError(parts, Object.values(slots), e);
          ctx.emit('error', { panel: 'bounds', message: e.message, input: e.input });
        }
        throw e;
      }
    },
  });

  // Checks before Run, once the scores (or generations and a reference) are there.
  const pre = preflight(ctx, parts, {
    busy: () => run.busy(),
    slots: () => Object.values(slots),
    build: () => {
      const req = request();
      const ready = mode.get() === 'generations' ? req.predictions && req.reference : req.scores;
      return ready ? [{ analysis: 'bounds', request: req }] : null;
    },
  });
  parts.onChange = () => pre.schedule();

  /** Each generation's ROUGE-L against the reference (the scores the bounds take), on the page. */
  const perGeneration = (req, scores) => {
    const n = scores?.fmeasure.length || 0;
    if (!n) return null;
    const text = req.predictions?.kind === 'text' ? req.predictions.text.split(/\r?\n/) : null;
    const clip = (t) => (t.length > 90 ? `${t.slice(0, 89)}…` : t);
    return h('details', { class: 'per-example-box', open: true },
      h('summary', {}, `ROUGE-L of each generation (${n})`),
      tableBox({ class: 'table-scroll per-example', label: 'ROUGE-L of each generation' }, h('table', { class: 'targets', 'data-value': 'rouge.per_generation' },
        h('thead', {}, h('tr', {}, ['generation (from 0)', text && 'text', 'ROUGE-L F', 'precision', 'recall'].filter(Boolean).map((x) => h('th', { scope: 'col' }, x)))),
        h('tbody', {}, Array.from({ length: n }, (_, i) => h('tr', {},
          h('th', { scope: 'row' }, String(i)),
          text && h('td', { class: 'muted' }, clip(text[i] ?? '')),
          h('td', { 'data-rouge': String(i) }, fmt(scores.fmeasure[i])),
          h('td', {}, fmt(scores.precision[i])),
          h('td', {}, fmt(scores.recall[i]))))))));
  };

  function render({ req, out }) {
    const rep = out.command === 'rouge' ? out.result.bounds : out.result;
    const left = pre.place(out.warnings, true);
    const blocks = [headlineBox(out.headline), layerWarnings(left), ...(out.warnings ? [] : [warningsBox(rep.warnings), loadWarnings(out.load_warnings)])];
    const side = req.one_sided ? 'one-sided' : 'two-sided (conbo)';
    blocks.push(
      numbers([
        ['n', String(rep.n), out.command === 'rouge' ? 'generations (ROUGE-L F-measure scores)' : 'scores'],
        rep.binary && ['M_bin: leak probability ≤', fmt(rep.binary.upper), `${rep.binary.leaks} leaks in ${rep.binary.n}; Clopper–Pearson, ${side}, α = ${req.alpha}`, 'bounds.m_bin'],
        ...rep.general.x.map((x, i) => [`M_gen(${num(x)}): Pr(X > ${num(x)}) ≤`, fmt(rep.general.upper[i]), `DKW, ${side}`, `bounds.m_gen.${i}`]),
        ['E[X] ∈', `[${fmt(rep.expectation.lower)}, ${fmt(rep.expectation.upper)}]`, `sample mean ${fmt(rep.expectation.mean)}`, 'bounds.expectation'],
        ['SD(X) ≤', fmt(rep.std.upper), `sample SD ${fmt(rep.std.sample_std)}; ${req.sd_method}`, 'bounds.sd'],
        ['ED score (mean + ρ·SD)', fmt(rep.ed.score), `ρ = ${rep.ed.rho}`, 'bounds.ed'],
        ['Samples for a ± ' + req.plan_width + ' bound', String(rep.plan.n), `DKW band needs ${rep.plan.dkw_n}; binomial bound needs ${rep.plan.binomial_n}`, 'bounds.plan'],
      ]),
    );
    if (out.command === 'rouge') blocks.push(perGeneration(req, out.result.scores));
    // The slider asks the core for M_gen at its x (no arithmetic here).
    const sliderId = nextId('x');
    const slider = h('input', { type: 'range', id: sliderId, min: 0, max: 1, step: 0.01, value: 0.5, 'data-role': 'mgen-x' });
    const readout = h('output', { for: sliderId, class: 'mgen-readout', 'data-value': 'bounds.slider' });
    let markerX = 0.5;
    let markerText = '';
    // The slider's last reading, exported beside the report (what the page shows is what the file says).
    let reading = null;
    const plot = plotBlock({
      title: 'Empirical CDF of the scores with its DKW band',
      filename: 'bounds-ecdf',
      draw: (width) => boundsPlot(out.ecdf, req.alpha, { x: markerX, label: markerText }, width),
    });
    let seq = 0;
    const update = async () => {
      const x = Number(slider.value);
      const mine = ++seq;
      try {
        const g = await ctx.engine.request('run', { analysis: 'mgen', request: request({ ...req, x: [x] }) });
        if (mine !== seq) return;
        markerX = x;
        markerText = `M_gen(${x}) = ${fmt(g.upper[0])}`;
        reading = { x, m_gen: g.upper[0], ecdf: g.ecdf[0] };
        fill(readout, `M_gen(${x}) = ${fmt(g.upper[0])}: the next answer scores above ${x} with probability at most this (F_n(${x}) = ${fmt(g.ecdf[0])})`);
        plot.render();
      } catch (e) {
        fill(readout, say(e.message));
      }
    };
    slider.addEventListener('input', update);
    blocks.push(h('div', { class: 'slider' }, h('label', { for: sliderId }, 'x for M_gen(x)'), slider, readout), plot.el);
    blocks.push(
      h('p', { class: 'params-line muted' }, `α = ${req.alpha} (${side}) · grid ${req.stepsize} points · SD ${req.sd_method} · ρ = ${req.rho}`),
      exportBar({ engine: ctx.engine, name: 'lethe-bounds', report: () => ({ ...report({ req, out }), ...(reading && { slider: reading }) }), table: () => table({ out }) }),
    );
    fill(parts.results, blocks);
    update();
  }

  return {
    id: 'bounds',
    el: parts.el,
    slots,
    fields: { ...p, mode, stemmer },
    /** The mode that data for `roles` needs (generations and a reference → generations; scores → scores). */
    modeFor: (roles) => (roles.some((r) => r === 'predictions' || r === 'reference') ? 'generations' : roles.includes('scores') ? 'scores' : null),
    synthetic: synth,
    run: (signal) => run.run(signal),
    cancel: () => run.cancel(),
    last: () => last && report(last),
    set(opts) {
      for (const [k, v] of Object.entries(opts)) {
        if (slots[k]) slots[k].set(v);
        else if (p[k]) p[k].set(Array.isArray(v) ? v.join(', ') : v);
        else if (k === 'mode') (mode.set(v), syncMode());
        else if (k === 'stemmer') stemmer.set(v);
      }
    },
  };
}
