// SDE panel: split-half dependence evaluation (the paper's verdict, Mann–Whitney separation, OTR/F1 over many
// targets). Every number comes from the core's SdeReport; this module lays it out.
import { h, fill } from '../dom.js';
import { fmt, num } from '../format.js';
import { histogramPlot } from '../views/hist.js';
import { stripPlot } from '../views/strip.js';
import { PALETTE } from '../views/svg.js';
import { inputSlot, field, panelFrame, runner, showError, numbers, plotBlock, exportBar, warningsBox, cliLine, envelope } from './common.js';

const LABELS = { it: 'in-training reference', oot: 'out-of-training reference' };

export function sdePanel(ctx) {
  const parts = panelFrame({
    id: 'lethe-sde',
    title: 'SDE — split-half dependence',
    intro:
      'Is a target set in the training data? Each subset is split in halves; HSIC between the halves over T shuffles gives a distribution. The target is called in training when its distribution is closer (Jensen–Shannon) to the in-training reference’s than to the out-of-training reference’s.',
  });
  const mode = field({ key: 'mode', label: 'Targets', type: 'select', value: 'single', options: [['single', 'one target set'], ['many', 'many targets drawn from pools (OTR, F1)']] });
  const slots = {
    in_training: inputSlot(ctx, { key: 'in_training', label: 'In-training reference', hint: 'rows known to be in the training set (e.g. retain rows)' }),
    out_of_training: inputSlot(ctx, { key: 'out_of_training', label: 'Out-of-training reference', hint: 'rows known not to be (e.g. test rows)' }),
    target: inputSlot(ctx, { key: 'target', label: 'Target set', hint: 'the rows whose membership is in question (e.g. forget rows)' }),
    'draw-from': inputSlot(ctx, { key: 'draw-from', label: 'Pool of unlabelled targets', hint: 'targets are drawn from these rows (Algorithm 3: the forget set)', optional: true }),
    'draw-in': inputSlot(ctx, { key: 'draw-in', label: 'Pool labelled in training', hint: 'controlled experiment: targets known to be in training', optional: true }),
    'draw-out': inputSlot(ctx, { key: 'draw-out', label: 'Pool labelled out of training', hint: 'controlled experiment: targets known not to be', optional: true }),
  };
  const draw = field({ key: 'draw', label: 'Targets per pool', value: 10, min: 1, step: 1 });
  const size = field({ key: 'size', label: 'Rows per target', value: 50, min: 4, step: 1 });
  const multi = h('div', { class: 'multi' }, slots['draw-from'].el, slots['draw-in'].el, slots['draw-out'].el, h('div', { class: 'row' }, draw.el, size.el));
  const syncMode = () => {
    const many = mode.get() === 'many';
    slots.target.el.hidden = many;
    multi.hidden = !many;
  };
  mode.input.addEventListener('change', syncMode);
  fill(parts.inputs, mode.el, slots.in_training.el, slots.out_of_training.el, slots.target.el, multi);
  syncMode();

  const p = {
    shuffles: field({ key: 'shuffles', label: 'Shuffles T', value: 200, min: 1, step: 1 }),
    sigma: field({ key: 'sigma', label: 'Bandwidth σ', type: 'text', value: 'sqrt_dim', help: 'sqrt_dim, median or a number' }),
    seed: field({ key: 'seed', label: 'Seed', value: 0, min: 0, step: 1 }),
    bins: field({ key: 'bins', label: 'JSD bins', value: 30, min: 1, step: 1 }),
    split: field({ key: 'split', label: 'Split', type: 'select', value: 'first', options: [['first', 'first / second half'], ['random', 'seeded random halves']] }),
    precision: field({ key: 'precision', label: 'Kernel precision', type: 'select', value: 'f64', options: [['f64', 'f64 (reference)'], ['f32', 'f32 (faster)']] }),
    backend: field({ key: 'backend', label: 'Backend', type: 'select', value: 'cpu', options: [['cpu', 'CPU (wasm)']] }),
    baselines: field({ key: 'baselines', label: 'MMD / Wasserstein baselines', type: 'checkbox', value: false }),
  };
  parts.params.append(...Object.values(p).map((f) => f.el));

  let last = null;
  const request = () => {
    const many = mode.get() === 'many';
    return {
      in_training: slots.in_training.get(),
      out_of_training: slots.out_of_training.get(),
      target: !many && slots.target.get() ? [slots.target.get()] : [],
      target_in: [],
      target_out: [],
      draw_from: many ? slots['draw-from'].get() : null,
      draw_in: many ? slots['draw-in'].get() : null,
      draw_out: many ? slots['draw-out'].get() : null,
      draw: draw.get(),
      size: many ? size.get() : null,
      sigma: p.sigma.get().trim(),
      shuffles: p.shuffles.get(),
      seed: p.seed.get(),
      split: p.split.get(),
      bins: p.bins.get(),
      precision: p.precision.get(),
      baselines: p.baselines.get(),
      backend: p.backend.get(),
    };
  };

  const run = runner(ctx, parts, {
    label: 'Run SDE',
    fields: [...Object.values(p), draw, size],
    start: async (signal, onProgress) => {
      for (const s of Object.values(slots)) s.clearError();
      const req = request();
      if (!req.target.length && !req.draw_from && !req.draw_in && !req.draw_out) {
        (mode.get() === 'many' ? slots['draw-from'] : slots.target).showError('choose a target set (or a pool to draw targets from)');
        throw new Error('no target');
      }
      try {
        const out = await ctx.engine.request('run', { analysis: 'sde', request: req }, { signal, onProgress });
        last = { req, out };
        render(last);
        ctx.emit('result', { panel: 'sde', output: out, report: report(last) });
        return out;
      } catch (e) {
        if (e.name !== 'AbortError') {
          showError(parts, Object.values(slots), e);
          ctx.emit('error', { panel: 'sde', message: e.message, input: e.input });
        }
        throw e;
      }
    },
  });

  const specOf = (out, role) => out.inputs.filter((r) => r.role === role).map((r) => r.spec);
  const report = ({ req, out }) => {
    const one = (role) => specOf(out, role)[0] ?? null;
    const parameters = {
      it: one('in_training'),
      oot: one('out_of_training'),
      target: specOf(out, 'target'),
      target_in: specOf(out, 'target_in'),
      target_out: specOf(out, 'target_out'),
      draw_from: one('draw-from'),
      draw_in: one('draw-in'),
      draw_out: one('draw-out'),
      draw: req.draw,
      size: req.size,
      sigma: req.sigma,
      shuffles: req.shuffles,
      seed: req.seed,
      split: req.split,
      bins: req.bins,
      precision: req.precision,
      baselines: req.baselines,
    };
    const args = [
      ['it', parameters.it],
      ['oot', parameters.oot],
      ...parameters.target.map((t) => ['target', t]),
      ['draw-from', parameters.draw_from],
      ['draw-in', parameters.draw_in],
      ['draw-out', parameters.draw_out],
      ['draw', parameters.draw_from || parameters.draw_in || parameters.draw_out ? req.draw : null],
      ['size', req.size],
      ['sigma', req.sigma],
      ['shuffles', req.shuffles],
      ['seed', req.seed],
      ['split', req.split],
      ['bins', req.bins],
      ['precision', req.precision],
      ['baselines', req.baselines],
    ];
    return envelope(ctx, { command: 'sde', parameters, seed: req.seed, output: out, cli: cliLine('sde', args) });
  };

  const table = ({ out }) => {
    const r = out.result;
    const rows = [['subset', 'shuffle', 'hsic']];
    const add = (name, d) => d && d.values.forEach((v, i) => rows.push([name, i, num(v)]));
    add('in_training', r.in_training_reference);
    add('out_of_training', r.out_of_training_reference);
    for (const t of r.targets) add(t.name, t.distribution);
    return rows;
  };

  function render({ req, out }) {
    const r = out.result;
    const single = r.targets.length === 1 && !req.draw_from && !req.draw_in && !req.draw_out;
    const it = r.in_training_reference;
    const sep = r.reference_separation;
    const blocks = [];
    if (!r.complete) {
      blocks.push(
        h('div', { class: 'partial', role: 'status' }, h('strong', {}, 'Stopped early — partial result. '),
          `In-training reference: ${it.values.length} of ${it.shuffles_planned} shuffles; ` +
            (r.out_of_training_reference ? `out-of-training reference: ${r.out_of_training_reference.values.length} of ${r.out_of_training_reference.shuffles_planned}; ` : 'out-of-training reference not started; ') +
            `${r.targets.length} target(s) finished. Numbers below use only what was computed.`),
      );
    }
    blocks.push(warningsBox(r.warnings, 'Read this first'));
    blocks.push(warningsBox(out.load_warnings.map((w) => `${w.role}: ${w.message}`), 'Input warnings'));
    if (single && r.targets[0]) {
      const t = r.targets[0];
      const v = t.verdict;
      blocks.push(
        h('p', { class: `verdict ${v.in_training ? 'verdict-in' : 'verdict-out'}`, 'data-value': 'sde.verdict' },
          `${t.name}: ${v.in_training ? 'in training' : 'out of training'}`,
          h('span', { class: 'muted' }, ` — JSD to the in-training reference ${fmt(v.jsd_target_it)} ${v.in_training ? '<' : '≥'} JSD to the out-of-training reference ${fmt(v.jsd_target_oot)}`)),
      );
      blocks.push(
        numbers([
          ['JSD(target, in-training ref.)', fmt(v.jsd_target_it), `natural log, ${req.bins} bins; scipy jensenshannon = ${fmt(v.jsd_sqrt_target_it)}`, 'sde.jsd_it'],
          ['JSD(target, out-of-training ref.)', fmt(v.jsd_target_oot), `scipy jensenshannon = ${fmt(v.jsd_sqrt_target_oot)}`, 'sde.jsd_oot'],
          ['Mann–Whitney p, target > out-of-training', fmt(t.mann_whitney_target_vs_oot.p_value), 'one-sided', 'sde.mw_target'],
          sep && ['References separable? Mann–Whitney p, IT > OOT', fmt(sep.p_value), 'the paper requires p < 0.01', 'sde.separation'],
          t.baselines && ['MMD² to IT / to OOT', `${fmt(t.baselines.mmd_target_it)} / ${fmt(t.baselines.mmd_target_oot)}`, t.baselines.mmd_in_training ? 'MMD says in training' : 'MMD says out of training'],
          t.baselines && ['Wasserstein-1 to IT / to OOT', `${fmt(t.baselines.wasserstein_target_it)} / ${fmt(t.baselines.wasserstein_target_oot)}`, t.baselines.wasserstein_in_training ? 'W1 says in training' : 'W1 says out of training'],
        ]),
      );
    } else {
      blocks.push(
        numbers([
          r.out_of_training_rate != null && ['Out-of-training rate (OTR)', fmt(r.out_of_training_rate), `over ${r.targets.length} targets`, 'sde.otr'],
          r.f1 && ['F1 (SDE, in-training positive)', fmt(r.f1.f1), 'over labelled targets', 'sde.f1'],
          r.f1_mmd && ['F1 (MMD baseline)', fmt(r.f1_mmd.f1), '', 'sde.f1_mmd'],
          r.f1_wasserstein && ['F1 (Wasserstein baseline)', fmt(r.f1_wasserstein.f1), '', 'sde.f1_w'],
          sep && ['References separable? Mann–Whitney p, IT > OOT', fmt(sep.p_value), 'the paper requires p < 0.01', 'sde.separation'],
        ]),
      );
      if (r.targets.length) {
        blocks.push(
          h('div', { class: 'table-scroll' }, h('table', { class: 'targets' },
            h('thead', {}, h('tr', {}, ['target', 'label', 'JSD to IT', 'JSD to OOT', 'verdict'].map((c) => h('th', { scope: 'col' }, c)))),
            h('tbody', {}, r.targets.map((t) => h('tr', {},
              h('td', {}, t.name), h('td', {}, t.label == null ? '—' : t.label ? 'in' : 'out'),
              h('td', {}, fmt(t.verdict.jsd_target_it)), h('td', {}, fmt(t.verdict.jsd_target_oot)),
              h('td', {}, t.verdict.in_training ? 'in training' : 'out of training')))))),
        );
        const color = (t) => (t.verdict.in_training ? PALETTE.it : PALETTE.oot);
        const ring = (t) => (t.label == null ? null : t.label ? PALETTE.ink : PALETTE.accent);
        blocks.push(
          plotBlock({
            title: 'Per-target JSD to each reference',
            filename: 'sde-targets',
            draw: (width) =>
              stripPlot(
                [
                  { label: 'to in-training', points: r.targets.map((t) => ({ value: num(t.verdict.jsd_target_it), color: color(t), ring: ring(t), title: t.name })) },
                  { label: 'to out-of-train.', points: r.targets.map((t) => ({ value: num(t.verdict.jsd_target_oot), color: color(t), ring: ring(t), title: t.name })) },
                ],
                { width, xlabel: 'Jensen–Shannon divergence (nats)', label: 'Strip plot of per-target JSD', legend: [['called in training', PALETTE.it, 'dot'], ['called out of training', PALETTE.oot, 'dot']] },
              ),
          }).el,
        );
      }
    }
    if (out.histograms) {
      const choose = h('select', { 'aria-label': 'Target shown in the histogram' }, r.targets.map((t, i) => h('option', { value: i }, t.name)));
      const plot = plotBlock({
        title: 'HSIC split-half distributions',
        filename: 'sde-distributions',
        draw: (width) => {
          const k = Number(choose.value || 0);
          const series = out.histograms.series.filter((s) => s.role !== 'target').concat(out.histograms.series.filter((s) => s.role === 'target')[k] || []);
          return histogramPlot({ edges: out.histograms.edges.map(num), series }, { width, xlabel: 'HSIC(S₁, S₂ shuffled)', labels: LABELS, label: 'Overlaid histograms of the in-training, out-of-training and target distributions' });
        },
      });
      choose.addEventListener('change', plot.render);
      blocks.push(r.targets.length > 1 ? h('div', { class: 'row' }, h('span', { class: 'muted' }, 'target shown:'), choose) : null, plot.el);
    }
    const sig = it.sigma_1;
    blocks.push(
      h('p', { class: 'params-line muted' },
        `T = ${req.shuffles} shuffles · σ = ${req.sigma} (${fmt(sig)}) · halves of ${it.half} rows · seed ${req.seed} · ${req.bins} bins · split ${req.split} · ${r.params.precision} · backend ${r.backend.name} · RNG ${r.rng}`),
      exportBar({ name: `lethe-sde-seed${req.seed}`, report: () => report({ req, out }), table: () => table({ req, out }) }),
    );
    fill(parts.results, blocks);
  }

  return {
    id: 'sde',
    el: parts.el,
    slots,
    fields: { ...p, mode, draw, size },
    run: (signal) => run.run(signal),
    cancel: () => run.cancel(),
    last: () => last && report(last),
    set(opts) {
      for (const [k, v] of Object.entries(opts)) {
        if (slots[k]) slots[k].set(v);
        else if (p[k]) p[k].set(v);
        else if (k === 'mode') (mode.set(v), syncMode());
        else if (k === 'draw') draw.set(v);
        else if (k === 'size') size.set(v);
      }
    },
  };
}
