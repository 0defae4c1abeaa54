// Competition epsilon panel: per-example epsilon, forgetting quality and final score of the NeurIPS 2023 unlearning
// competition — official (metric.py, bit for bit), exhaustive and Clopper–Pearson variants side by side.
import { h, fill } from '../dom.js';
import { fmt, num } from '../format.js';
import { histogramPlot } from '../views/hist.js';
import { inputSlot, field, panelFrame, runner, showError, numbers, plotBlock, exportBar, warningsBox, cliLine, envelope, preflight, headlineBox, layerWarnings, loadWarnings, tableBox } from './common.js';

export const NAMES = { official: 'Official (metric.py)', exhaustive: 'Exhaustive thresholds', high_probability: 'Clopper–Pearson bound' };

/** One variant's histogram of per-example ε (`r`: its result, `plot`: {histogram}, the core's counts), ε_max marked. */
export function epsilonPlot(r, plot, width) {
  return histogramPlot({ edges: plot.histogram.edges.map(num), series: plot.histogram.series.map((s) => ({ ...s, name: 'examples' })) }, {
    width,
    xlabel: 'ε per example (bins = scoring buckets of width 0.5)',
    labels: { epsilon: 'examples' },
    markers: [{ x: num(r.eps_max), label: `ε_max ${fmt(r.eps_max).replace(/\.?0+$/, '')}: no points beyond` }],
    label: `Histogram of per-example epsilon, ${NAMES[r.variant.kind]}`,
  });
}

export function epsilonPanel(ctx) {
  const parts = panelFrame({
    id: 'lethe-epsilon',
    title: 'Competition epsilon — NeurIPS 2023 unlearning score',
    intro:
      'For each forget example, how well can an attacker tell the unlearned models’ outputs from the retrained models’? Each example’s ε earns points by bucket; the forgetting quality F is their mean.',
  });
  const mode = field({
    key: 'mode',
    label: 'Inputs are',
    type: 'select',
    value: 'conf',
    options: [['conf', 'logit-scaled confidences (models × examples)'], ['logits', 'logits (models × examples × classes) + labels'], ['probs', 'class probabilities (models × examples × classes) + labels']],
    help: 'the score is computed on logit-scaled confidences, log p(true class) − log Σ p(other classes); from logits or probabilities Lethe computes them as the competition does',
  });
  const slots = {
    retrained: inputSlot(ctx, { key: 'retrained', label: 'Retrained models', hint: 'one row per model, one column per forget example' }),
    unlearned: inputSlot(ctx, { key: 'unlearned', label: 'Unlearned models', hint: 'same examples, same order' }),
    retrained_logits: inputSlot(ctx, { key: 'retrained_logits', label: 'Retrained models’ logits' }),
    unlearned_logits: inputSlot(ctx, { key: 'unlearned_logits', label: 'Unlearned models’ logits' }),
    retrained_probs: inputSlot(ctx, { key: 'retrained_probs', label: 'Retrained models’ class probabilities' }),
    unlearned_probs: inputSlot(ctx, { key: 'unlearned_probs', label: 'Unlearned models’ class probabilities' }),
    labels: inputSlot(ctx, { key: 'labels', label: 'Labels (true class per example)' }),
  };
  const scaled = field({ key: 'logit_scaled', label: 'These values are logit-scaled confidences already (values in [0, 1] are otherwise taken for probabilities and refused)', type: 'checkbox', value: false });
  const seed = field({ key: 'synthetic_seed', label: 'Synthetic seed', value: 0, min: 0, step: 1 });
  seed.el.dataset.nostale = '';
  const synthNote = h('div', { class: 'muted', 'aria-live': 'polite' });
  const synthBtn = h('button', { type: 'button', class: 'button button-secondary', 'data-action': 'synthetic' }, 'Generate a synthetic example');
  synthBtn.addEventListener('click', async () => {
    const s = await ctx.engine.request('synthetic', { kind: 'competition', seed: seed.get() || 0 });
    const items = [];
    for (const f of s.files) items.push(await ctx.store.add({ bytes: f.bytes, name: f.name, origin: 'synthetic', note: s.description }));
    mode.set('conf');
    syncMode();
    slots.retrained.set({ source: items[0].id, rows: { kind: 'all' } });
    slots.unlearned.set({ source: items[1].id, rows: { kind: 'all' } });
    fill(synthNote, s.description + '. Not real data: for trying the panel.');
    p.accuracies.set('0.97, 0.98, 0.90, 0.91');
  });
  const syncMode = () => {
    const m = mode.get();
    for (const k of ['retrained', 'unlearned']) slots[k].el.hidden = m !== 'conf';
    scaled.el.hidden = m !== 'conf';
    for (const k of ['retrained_logits', 'unlearned_logits']) slots[k].el.hidden = m !== 'logits';
    for (const k of ['retrained_probs', 'unlearned_probs']) slots[k].el.hidden = m !== 'probs';
    slots.labels.el.hidden = m === 'conf';
  };
  mode.input.addEventListener('change', syncMode);
  fill(parts.inputs, h('div', { class: 'synthetic row' }, synthBtn, seed.el), synthNote, mode.el, Object.values(slots).map((s) => s.el), scaled.el);
  syncMode();

  const p = {
    variant: field({ key: 'variant', label: 'Variants', type: 'select', value: 'all', options: [['all', 'all three side by side'], ['official', 'official'], ['exhaustive', 'exhaustive'], ['clopper-pearson', 'Clopper–Pearson']] }),
    alpha: field({ key: 'alpha', label: 'α (Clopper–Pearson, two-sided)', value: 0.05, min: 0, max: 1, step: 0.01 }),
    eps_max: field({ key: 'eps_max', label: 'ε_max', type: 'text', value: 'official', help: '“official” = ⌈ln(N − 1)⌉, or a number' }),
    delta: field({ key: 'delta', label: 'δ', value: 1e-5, step: 'any' }),
    accuracies: field({ key: 'accuracies', label: 'Accuracies for the final score', type: 'text', value: '', size: 22, help: 'RA unlearned, RA retrained, TA unlearned, TA retrained (optional)' }),
  };
  parts.params.append(...Object.values(p).map((f) => f.el));

  let last = null;
  const request = () => {
    const m = mode.get();
    const acc = p.accuracies.get().trim();
    const of = (k, want) => (m === want ? slots[k].get() : null);
    return {
      retrained: of('retrained', 'conf'),
      unlearned: of('unlearned', 'conf'),
      retrained_logits: of('retrained_logits', 'logits'),
      unlearned_logits: of('unlearned_logits', 'logits'),
      retrained_probs: of('retrained_probs', 'probs'),
      unlearned_probs: of('unlearned_probs', 'probs'),
      labels: m === 'conf' ? null : slots.labels.get(),
      confidences: m === 'conf' && scaled.get() ? 'logit-scaled' : 'auto',
      variant: p.variant.get(),
      alpha: p.alpha.get(),
      eps_max: p.eps_max.get().trim(),
      delta: p.delta.get(),
      accuracies: acc ? acc.split(/[,\s]+/).filter(Boolean).map(Number) : null,
    };
  };
  const report = ({ req, out }) => {
    const one = (role) => out.inputs.find((x) => x.role === role)?.spec ?? null;
    const parameters = {
      retrained: one('retrained'),
      unlearned: one('unlearned'),
      retrained_logits: one('retrained_logits'),
      unlearned_logits: one('unlearned_logits'),
      labels: one('labels'),
      variant: req.variant,
      alpha: req.alpha,
      eps_max: req.eps_max,
      delta: req.delta,
      accuracies: req.accuracies,
    };
    const args = [
      ['retrained', parameters.retrained],
      ['unlearned', parameters.unlearned],
      ['retrained-logits', parameters.retrained_logits],
      ['unlearned-logits', parameters.unlearned_logits],
      ['retrained-probs', one('retrained_probs')],
      ['unlearned-probs', one('unlearned_probs')],
      ['labels', parameters.labels],
      ['confidences', req.confidences !== 'auto' ? req.confidences : null],
      ['variant', req.variant],
      ['alpha', req.alpha],
      ['eps-max', req.eps_max],
      ['delta', req.delta],
      ['accuracies', req.accuracies && req.accuracies.join(',')],
    ];
    return envelope(ctx, { command: 'epsilon', parameters, seed: null, output: out, cli: cliLine('epsilon', args) });
  };
  const table = ({ out }) => {
    const rows = [['variant', 'example', 'epsilon', 'bucket', 'points', 'peaky']];
    for (const r of out.result.results) r.per_example.forEach((e, i) => rows.push([r.variant.kind, i, num(e.epsilon), e.bucket ?? '', e.points, e.peaky]));
    return rows;
  };

  const run = runner(ctx, parts, {
    label: 'Compute epsilon',
    fields: Object.values(p),
    start: async (signal) => {
      for (const s of Object.values(slots)) s.clearError();
      pre.clear();
      const req = request();
      try {
        const out = await ctx.engine.request('run', { analysis: 'epsilon', request: req }, { signal });
        last = { req, out };
        render(last);
        ctx.emit('result', { panel: 'epsilon', output: out, report: report(last) });
        return out;
      } catch (e) {
        if (e.name !== 'AbortError') {
          showError(parts, Object.values(slots), e);
          ctx.emit('error', { panel: 'epsilon', message: e.message, input: e.input });
        }
        throw e;
      }
    },
  });

  // Checks before Run, once both inputs of the chosen kind are there.
  const pre = preflight(ctx, parts, {
    busy: () => run.busy(),
    slots: () => Object.values(slots),
    build: () => {
      const req = request();
      const m = mode.get();
      const ready = m === 'logits' ? req.retrained_logits && req.unlearned_logits && req.labels : m === 'probs' ? req.retrained_probs && req.unlearned_probs && req.labels : req.retrained && req.unlearned;
      return ready ? [{ analysis: 'epsilon', request: req }] : null;
    },
  });
  parts.onChange = () => pre.schedule();

  /** Every example's ε and points, one column per variant (what the histograms count), on the page. */
  const perExample = (res) => {
    const n = res.results[0]?.per_example.length || 0;
    if (!n) return null;
    const head = res.results.flatMap((r) => [`ε, ${NAMES[r.variant.kind]}`, 'points']);
    return h('details', { class: 'per-example-box', open: true },
      h('summary', {}, `Per-example ε (${n} examples)`),
      tableBox({ class: 'table-scroll per-example', label: 'Per-example ε' }, h('table', { class: 'targets', 'data-value': 'eps.per_example' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'example (from 0)'), head.map((x) => h('th', { scope: 'col' }, x)))),
        h('tbody', {}, Array.from({ length: n }, (_, i) => h('tr', {},
          h('th', { scope: 'row' }, String(i)),
          res.results.map((r) => {
            const e = r.per_example[i];
            return [h('td', { 'data-eps': `${r.variant.kind}.${i}` }, `${fmt(e.epsilon)}${e.peaky ? ' (peaky)' : ''}`), h('td', {}, fmt(e.points))];
          })))))));
  };

  function render({ req, out }) {
    const res = out.result;
    const left = pre.place(out.warnings, true);
    const cols = res.results.map((r, k) => {
      const kind = r.variant.kind;
      const eps = r.per_example.map((e) => num(e.epsilon));
      const plot = out.plots[k];
      return h(
        'div',
        { class: 'variant', 'data-variant': kind },
        h('h3', {}, NAMES[kind] + (kind === 'high_probability' ? ` (α = ${r.variant.alpha})` : '')),
        numbers([
          ['Forgetting quality F', fmt(r.forget_score), kind === 'high_probability' ? `mean points over ${eps.length} examples; ε here is a lower confidence bound, so F is higher than with point estimates` : `mean points over ${eps.length} examples`, `eps.${kind}.F`],
          res.final_scores[k] != null && ['Final score', fmt(res.final_scores[k]), 'F · RA_U/RA_R · TA_U/TA_R', `eps.${kind}.final`],
          ['ε_max', fmt(r.eps_max), `${r.buckets.length} scoring buckets`, `eps.${kind}.eps_max`],
          plot.infinite > 0 && ['Examples with ε = ∞', String(plot.infinite), 'perfectly separated'],
          // Both kinds of ε = 50 apart: the range rule's, and a perfect separation (∞) that metric.py caps at 50
          // (the row said "Peaky examples (ε = 50): 0" beside a histogram with examples at 50).
          kind === 'official' && ['Peaky examples (ε set to 50)', String(r.per_example.filter((e) => e.peaky).length), 'metric.py’s range rule: one side’s confidences nearly constant', `eps.${kind}.peaky`],
          kind === 'official' && ['Examples with ε capped at 50', String(r.per_example.filter((e) => !e.peaky && num(e.epsilon) === 50).length), 'perfectly separated (ε = ∞), which metric.py caps at 50', `eps.${kind}.capped`],
        ]),
        out.warnings ? null : warningsBox(r.warnings),
        plotBlock({
          title: `Per-example ε (${NAMES[kind]})`,
          filename: `epsilon-${kind}`,
          draw: (width) => epsilonPlot(r, plot, width),
        }).el,
      );
    });
    const buckets = res.results[0]?.buckets || [];
    fill(
      parts.results,
      headlineBox(out.headline),
      layerWarnings(left),
      out.warnings ? null : loadWarnings(out.load_warnings),
      h('div', { class: 'variants' }, cols),
      perExample(res),
      buckets.length > 0 &&
        h('details', { class: 'buckets' }, h('summary', {}, 'Scoring buckets'),
          tableBox({ label: 'Scoring buckets' }, h('table', { class: 'targets' }, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'ε in'), h('th', { scope: 'col' }, 'points H'))),
            h('tbody', {}, buckets.map((b) => h('tr', {}, h('td', {}, `[${num(b.start)}, ${num(b.end)})`), h('td', {}, fmt(b.points)))))))),
      h('p', { class: 'params-line muted' }, `δ = ${req.delta} · ε_max ${req.eps_max} · α = ${req.alpha}`),
      exportBar({ engine: ctx.engine, name: 'lethe-epsilon', report: () => report({ req, out }), table: () => table({ out }) }),
    );
  }

  return {
    id: 'epsilon',
    el: parts.el,
    slots,
    fields: { ...p, mode, logit_scaled: scaled },
    /** The mode that data for `roles` needs (logits and labels → logits; confidences → conf). */
    modeFor: (roles) =>
      roles.some((r) => r.endsWith('_probs')) ? 'probs' : roles.some((r) => ['retrained_logits', 'unlearned_logits', 'labels'].includes(r)) ? 'logits' : roles.some((r) => r === 'retrained' || r === 'unlearned') ? 'conf' : null,
    synthetic: () => synthBtn.click(),
    run: (signal) => run.run(signal),
    cancel: () => run.cancel(),
    last: () => last && report(last),
    set(opts) {
      for (const [k, v] of Object.entries(opts)) {
        if (slots[k]) slots[k].set(v);
        else if (p[k]) p[k].set(Array.isArray(v) ? v.join(', ') : v);
        else if (k === 'mode') (mode.set(v), syncMode());
        else if (k === 'logit_scaled' || k === 'confidences') scaled.set(v === true || v === 'logit-scaled');
      }
    },
  };
}
