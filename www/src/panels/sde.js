// SDE panel: split-half dependence evaluation — the paper's verdict (JSD of shuffle distributions, Mann–Whitney
// separation, OTR/F1 over many targets) and, beside it, the calibrated verdict on exact shuffle means with its
// diagnostics (lethe calibrate). Every number comes from the core's SdeReport / CalibratedReport; this module lays
// them out.
import { h, fill } from '../dom.js';
import { fmt, num } from '../format.js';
import { histogramPlot } from '../views/hist.js';
import { stripPlot } from '../views/strip.js';
import { PALETTE } from '../views/svg.js';
import { inputSlot, field, rowsControl, panelFrame, runner, showError, numbers, plotBlock, exportBar, warningsBox, cliLine, envelope, backendLine, preflight, headlineBox, layerWarnings, checkLine, resetExampleRows, clearNoticeOnEdit, refuseExampleMix, say, loadWarnings, tableBox } from './common.js';

const LABELS = { it: 'in-training reference', oot: 'out-of-training reference' };
const CALL = { in_training: 'in training', out_of_training: 'out of training', inconclusive: 'inconclusive' };
const callClass = (c) => (c === 'in_training' ? 'verdict-in' : c === 'out_of_training' ? 'verdict-out' : 'verdict-none');
// A rule's in/out call as the report gives it: true, false, or null where the two distances tie (no call).
const said = (inTraining) => (inTraining == null ? 'no call (tie)' : inTraining ? 'in training' : 'out of training');
// Short keys of the core's rule names (RuleSummary.rule), for data-value attributes.
const RULE_KEYS = {
  calibrated: 'calibrated',
  'nearest exact mean (single pair)': 'nearest',
  'whole-subset kernel dispersion': 'dispersion',
  'mean max-softmax confidence': 'confidence',
  'paper (JSD, one reference pair)': 'paper_first_pair',
};

/** Why a run of both rules stopped in its second step has no calibrated verdict. */
const STOPPED_CALIBRATED = 'The calibrated verdict was stopped before it finished: the paper rule’s result is complete; run again for the calibrated verdict.';

/** Same activation matrix? (the calibrated verdict takes rows of one file) */
const sameData = (a, b) => a && b && a.source === b.source && (a.tensor || null) === (b.tensor || null);

export function sdePanel(ctx) {
  const parts = panelFrame({
    id: 'lethe-sde',
    title: 'SDE — split-half dependence',
    intro:
      'Is a target set in the training data? Each subset is split in halves; HSIC between the halves over T shuffles gives a distribution. The paper calls the target in training when its distribution is closer (Jensen–Shannon) to the in-training reference’s than to the out-of-training reference’s. Beside it, the calibrated verdict compares the exact mean of that distribution (closed form, no shuffles) with R reference subsets per class, with diagnostics that show what the signal is.',
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

  // The calibrated verdict's reference pools: rows of the same activation file as the references.
  const pools = {
    it_pool: rowsControl(ctx.store, { key: 'it_pool', label: 'In-training pool', withAll: false }),
    oot_pool: rowsControl(ctx.store, { key: 'oot_pool', label: 'Out-of-training pool', withAll: false }),
  };
  const poolErrors = { it_pool: h('div', { class: 'error', role: 'alert', 'data-error-for': 'it_pool' }), oot_pool: h('div', { class: 'error', role: 'alert', 'data-error-for': 'oot_pool' }) };
  const poolChecks = { it_pool: h('div', { class: 'slot-checks', 'data-check-for': 'it_pool' }), oot_pool: h('div', { class: 'slot-checks', 'data-check-for': 'oot_pool' }) };
  const poolNotices = { it_pool: h('div'), oot_pool: h('div') };
  const poolNotice = h('div', { class: 'slot-notice', 'data-notice-for': 'pools', 'aria-live': 'polite' }, poolNotices.it_pool, poolNotices.oot_pool);
  for (const k of Object.keys(pools)) clearNoticeOnEdit(pools[k], poolNotices[k]);
  const poolBox = h(
    'div',
    { class: 'slot pools', 'data-slot': 'pools' },
    h('div', { class: 'slot-label' }, 'Calibrated verdict: reference pools'),
    h('div', { class: 'hint muted' }, 'R reference subsets per class are drawn from these rows of the in-training reference’s file (disjoint from the targets and, where the pools allow, from each other). Empty: the reference’s own rows.'),
    h('div', { class: 'pool-row' }, h('span', { class: 'sub-label' }, 'in training'), pools.it_pool.el),
    poolErrors.it_pool,
    poolChecks.it_pool,
    h('div', { class: 'pool-row' }, h('span', { class: 'sub-label' }, 'out of training'), pools.oot_pool.el),
    poolErrors.oot_pool,
    poolChecks.oot_pool,
    poolNotice,
  );
  const poolSlots = Object.keys(pools).map((key) => ({
    key,
    showError: (m) => fill(poolErrors[key], say(m)),
    clearError: () => fill(poolErrors[key]),
    showChecks: (list, labels) => fill(poolChecks[key], (list || []).filter((c) => say(c.message, labels) !== poolErrors[key].textContent).map((c) => checkLine(c, labels))),
  }));
  // A person's own file in place of the example's: the example's pool ranges (rows of the digits file) are cleared.
  parts.inputs.addEventListener('lethe-change', (e) => {
    const item = e.detail?.item;
    if (!item || item.origin === 'example' || !slots[e.detail.key]) return;
    for (const [k, label, ref] of [['it_pool', 'In-training pool', 'in-training'], ['oot_pool', 'Out-of-training pool', 'out-of-training']]) {
      const notes = resetExampleRows([[label, pools[k], `they were cleared — the ${ref} reference’s own rows are used unless you give other rows of your file`]]);
      if (notes.length) fill(poolNotices[k], notes.map((n) => h('div', { class: 'warning', 'data-value': 'pools.rows-reset' }, n)));
    }
  });

  const p = {
    rule: field({
      key: 'rule',
      label: 'Verdict',
      type: 'select',
      value: 'both',
      options: [['both', 'paper + calibrated'], ['paper', 'paper rule only'], ['calibrated', 'calibrated only']],
      help: 'calibrated: exact means, no shuffles',
    }),
    shuffles: field({ key: 'shuffles', label: 'Shuffles T', value: 200, min: 1, step: 1 }),
    sigma: field({ key: 'sigma', label: 'Bandwidth σ', type: 'text', value: 'sqrt_dim', help: 'sqrt_dim, median or a number' }),
    seed: field({ key: 'seed', label: 'Seed', value: 0, min: 0, step: 1 }),
    bins: field({ key: 'bins', label: 'JSD bins', value: 30, min: 1, step: 1 }),
    refs: field({ key: 'refs', label: 'Reference subsets R', value: 20, min: 1, step: 1, help: 'per class, calibrated verdict' }),
    // The layer's default (lethe-analysis DEFAULT_MARGIN): targets within half a reference sd of the midpoint, and
    // references closer than about one sd, are inconclusive.
    margin: field({ key: 'margin', label: 'Margin (sds)', value: 0.5, min: 0, step: 'any', help: 'calibrated: inconclusive within ± margin' }),
    split: field({ key: 'split', label: 'Split', type: 'select', value: 'first', options: [['first', 'first / second half'], ['random', 'seeded random halves']] }),
    precision: field({ key: 'precision', label: 'Kernel precision', type: 'select', value: 'f64', options: [['f64', 'f64 (reference)'], ['f32', 'f32 (faster)']] }),
    backend: field({
      key: 'backend',
      label: 'Backend',
      type: 'select',
      value: 'auto',
      options: [['auto', 'auto'], ['cpu', 'CPU (wasm)'], ['webgpu', 'WebGPU']],
      help: 'auto: WebGPU for f32 kernels when there is one',
    }),
    workers: field({
      key: 'workers',
      label: 'Workers',
      type: 'select',
      value: 'pool',
      options: [['pool', 'pool'], ['one', 'one']],
      help: 'CPU: subsets split across workers',
    }),
    baselines: field({ key: 'baselines', label: 'MMD / Wasserstein baselines', type: 'checkbox', value: false }),
    equal_size: field({
      key: 'equal_size',
      label: 'Equal-size subsets',
      type: 'checkbox',
      value: false,
      help: 'larger subsets: a seeded draw of the smallest one’s size (else different sizes are refused)',
    }),
  };
  const syncMode = () => {
    const many = mode.get() === 'many';
    slots.target.el.hidden = many;
    multi.hidden = !many;
    const rule = p.rule.get();
    poolBox.hidden = rule === 'paper';
    for (const k of ['shuffles', 'bins', 'baselines', 'workers']) p[k].el.hidden = rule === 'calibrated';
    for (const k of ['refs', 'margin']) p[k].el.hidden = rule === 'paper';
  };
  mode.input.addEventListener('change', syncMode);
  p.rule.input.addEventListener('change', syncMode);
  fill(parts.inputs, mode.el, slots.in_training.el, slots.out_of_training.el, slots.target.el, multi, poolBox);
  parts.params.append(...Object.values(p).map((f) => f.el));
  syncMode();

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
      equal_size: p.equal_size.get(),
    };
  };

  /** Whether the user gave a calibrated pool (else the reference's own rows are used). */
  const poolGiven = (ctl) => {
    const r = ctl.get();
    return !!r && !(r.kind === 'text' && !r.text.trim());
  };

  /**
   * The calibrated request (`lethe calibrate`'s options) for an SDE request, or `{skip: reason}` when its inputs
   * are not rows of one activation matrix. The pools default to the references' own rows.
   */
  const calibrateRequest = (req) => {
    const data = req.in_training;
    const inputs = [req.out_of_training, ...req.target, req.draw_from, req.draw_in, req.draw_out].filter(Boolean);
    if (!data || inputs.some((i) => !sameData(i, data))) {
      return { skip: 'The calibrated verdict takes the references and the targets as rows of one activation file (one model, one layer); here they come from different files or tensors, so it was not computed.' };
    }
    const pool = (ctl, ref) => (poolGiven(ctl) ? ctl.get() : ref.rows);
    return {
      data: { source: data.source, tensor: data.tensor || null },
      it_pool: pool(pools.it_pool, req.in_training),
      oot_pool: pool(pools.oot_pool, req.out_of_training),
      target: req.target.map((t) => t.rows),
      target_in: [],
      target_out: [],
      draw_from: req.draw_from ? req.draw_from.rows : null,
      draw_in: req.draw_in ? req.draw_in.rows : null,
      draw_out: req.draw_out ? req.draw_out.rows : null,
      draw: req.draw,
      size: req.size,
      refs: p.refs.get(),
      margin: p.margin.get(),
      // The paper rule runs on the panel's own reference pair (above), not inside the calibrated evaluation.
      paper_shuffles: 0,
      sigma: req.sigma,
      split: req.split,
      bins: req.bins,
      seed: req.seed,
      precision: req.precision,
      backend: req.backend,
      equal_size: req.equal_size,
    };
  };

  const allSlots = () => [...Object.values(slots), ...poolSlots];
  /** A failure of the GPU (no adapter, a lost device, a device limit): the same run on the CPU, one click away. */
  const offerCpu = (e) => {
    const retry = h('button', { type: 'button', class: 'button button-small', 'data-action': 'retry-cpu' }, 'Retry on the CPU');
    retry.addEventListener('click', () => {
      p.backend.set('cpu');
      run.run().catch(() => {});
    });
    fill(parts.error, h('span', {}, `The GPU run failed: ${e.message} `), retry);
  };
  const run = runner(ctx, parts, {
    label: 'Run SDE',
    fields: [...Object.values(p), draw, size],
    start: async (signal, onProgress) => {
      for (const s of allSlots()) s.clearError();
      pre.clear();
      const req = request();
      const rule = p.rule.get();
      if (!req.target.length && !req.draw_from && !req.draw_in && !req.draw_out) {
        (mode.get() === 'many' ? slots['draw-from'] : slots.target).showError('choose a target set (or a pool to draw targets from)');
        throw new Error('no target');
      }
      try {
        await refuseExampleMix(ctx, 'sde', req, { it_pool: poolGiven(pools.it_pool) ? pools.it_pool.get() : null, oot_pool: poolGiven(pools.oot_pool) ? pools.oot_pool.get() : null });
        let cal = null;
        let calSkip = null;
        let creq = null;
        // Pools left empty: the calibrated references are drawn from the reference sets' own rows.
        const defaulted = { in_training: !poolGiven(pools.it_pool), out_of_training: !poolGiven(pools.oot_pool) };
        // Both rules: the paper rule (stopped, a partial report), then the calibrated verdict, each filling half
        // of the bar, the step named (issue 24).
        const steps = rule === 'both' ? 2 : 1;
        const step = (k, what) => (q) =>
          onProgress(steps === 1 ? q : { ...q, fraction: (k + q.fraction) / steps, phase: `step ${k + 1} of ${steps}, ${what}: ${q.phase}`, step: k + 1 < steps });
        const out =
          rule === 'calibrated'
            ? null
            : await ctx.engine.request('run', { analysis: 'sde', request: req, pool: p.workers.get() !== 'one' }, { signal, onProgress: step(0, 'paper rule') });
        if (rule !== 'paper') {
          creq = calibrateRequest(req);
          if (creq.skip) {
            calSkip = creq.skip;
            if (rule === 'calibrated') throw Object.assign(new Error(calSkip), { input: 'target' });
          } else if (signal.aborted) {
            calSkip = 'The calibrated verdict was not computed: the run was stopped before it started.';
          } else {
            const t0 = performance.now();
            try {
              cal = await ctx.engine.request('run', { analysis: 'calibrate', request: creq }, { signal, onProgress: step(steps - 1, 'calibrated verdict') });
              // Stopped among its targets: left out whole.
              if (rule === 'both' && signal.aborted && cal?.result && !cal.result.complete) {
                cal = null;
                calSkip = STOPPED_CALIBRATED;
              }
            } catch (e) {
              // Beside the paper rule, a calibrated verdict that cannot be computed (pools too small once the
              // targets' rows are left out, say) or was stopped is reported.
              if (rule === 'calibrated') throw e;
              calSkip = signal.aborted
                ? STOPPED_CALIBRATED
                : `The calibrated verdict could not be computed: ${say(e.message)}`;
              if (!signal.aborted && (e.input === 'it_pool' || e.input === 'oot_pool')) showError(parts, poolSlots, e);
            }
            parts.el.dataset.calibratedMs = String(Math.round(performance.now() - t0));
          }
        }
        last = { req, creq, out, cal, calSkip, defaulted };
        render(last);
        ctx.emit('result', { panel: 'sde', output: out || cal, report: report(last) });
        return out || cal;
      } catch (e) {
        // A calibrated-only run stopped among its references has nothing to show.
        if (signal.aborted) throw new DOMException('cancelled', 'AbortError');
        if (e.name !== 'AbortError') {
          showError(parts, allSlots(), e);
          if (e.backend) offerCpu(e);
          ctx.emit('error', { panel: 'sde', message: e.message, input: e.input, backend: e.backend });
        }
        throw e;
      }
    },
  });

  // Checks before Run: the requests a run would send, once the references and a target (or a pool) are chosen.
  const pre = preflight(ctx, parts, {
    busy: () => run.busy(),
    slots: allSlots,
    build: () => {
      const req = request();
      const rule = p.rule.get();
      if (!req.in_training || !req.out_of_training || (!req.target.length && !req.draw_from && !req.draw_in && !req.draw_out)) return null;
      const jobs = [];
      if (rule !== 'calibrated') jobs.push({ analysis: 'sde', request: req });
      if (rule !== 'paper') {
        const creq = calibrateRequest(req);
        if (!creq.skip) jobs.push({ analysis: 'calibrate', request: creq });
      }
      return jobs;
    },
  });
  parts.onChange = () => pre.schedule();

  const specOf = (out, role) => out.inputs.filter((r) => r.role === role).map((r) => r.spec);
  const sdeEnvelope = ({ req, out }) => {
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
      ['equal-size', req.equal_size],
    ];
    return envelope(ctx, { command: 'sde', parameters, seed: req.seed, output: out, cli: cliLine('sde', args) });
  };
  const calEnvelope = (cal) => {
    const q = cal.parameters;
    const drawn = q.draw_from || q.draw_in || q.draw_out;
    const args = [
      ['data', q.data],
      ['it-pool', q.it_pool],
      ['oot-pool', q.oot_pool],
      ...q.target.map((t) => ['target', t]),
      ...q.target_in.map((t) => ['target-in', t]),
      ...q.target_out.map((t) => ['target-out', t]),
      ['draw-from', q.draw_from],
      ['draw-in', q.draw_in],
      ['draw-out', q.draw_out],
      ['draw', drawn ? q.draw : null],
      ['size', q.size],
      ['refs', q.refs],
      ['margin', q.margin],
      ['paper-shuffles', q.paper_shuffles],
      ['sigma', q.sigma],
      ['split', q.split],
      ['bins', q.bins],
      ['seed', q.seed],
      ['precision', q.precision],
      ['equal-size', q.equal_size],
    ];
    const env = envelope(ctx, { command: 'calibrate', parameters: q, seed: q.seed, output: cal, cli: cliLine('calibrate', args) });
    // Reference classes drawn from too few rows for R distinct subsets (the page flags the verdict unreliable).
    if (cal.thin_pools?.length) env.thin_pools = cal.thin_pools;
    return env;
  };
  /**
   * The JSON report: `lethe sde --json`'s envelope with the calibrated evaluation (`lethe calibrate --json`'s
   * envelope) under `calibrated`; with the calibrated verdict only, that envelope itself.
   */
  const report = (l) => {
    if (!l.out) return calEnvelope(l.cal);
    const env = sdeEnvelope(l);
    // A stopped run: what its shuffles support (the core's, on the values so far; not a CLI field).
    if (l.out.partial) env.partial = l.out.partial;
    env.calibrated = l.cal ? calEnvelope(l.cal) : l.calSkip ? { skipped: l.calSkip } : null;
    return env;
  };

  const table = ({ out, cal }) => {
    if (out) {
      const r = out.result;
      const rows = [['subset', 'shuffle', 'hsic']];
      const add = (name, d) => d && d.values.forEach((v, i) => rows.push([name, i, num(v)]));
      add('in_training', r.in_training_reference);
      add('out_of_training', r.out_of_training_reference);
      for (const t of r.targets) add(t.name, t.distribution);
      // A stopped run: the unfinished targets' shuffles so far.
      for (const t of out.partial?.unfinished_targets || []) add(t.complete ? t.name : `${t.name} (partial)`, t);
      return rows;
    }
    const c = cal.result;
    const rows = [['subset', 'class', 'exact_mean', 'shuffle_sd', 'dispersion', 'confidence', 'z', 'calibrated']];
    const ref = (cls, rc) => rc.stats.forEach((s, k) => rows.push([`${cls} reference ${k}`, cls, num(s.moments.mean), num(s.moments.sd), num(s.dispersion), s.confidence ?? '', '', '']));
    ref('in_training', c.in_training);
    ref('out_of_training', c.out_of_training);
    for (const t of c.targets) rows.push([t.name, t.label == null ? 'target' : t.label ? 'target (label in)' : 'target (label out)', num(t.stats.moments.mean), num(t.stats.moments.sd), num(t.stats.dispersion), t.stats.confidence ?? '', num(t.score), t.calibrated]);
    return rows;
  };

  /**
   * The calibrated verdict flagged as unreliable: reference subsets drawn from fewer than 2 × |S| rows (the core's
   * `thin_pools`; with a 100-row reference and |S| = 100 they are re-splits of the same rows), with what to do.
   */
  const unreliableBox = (cal, defaulted) => {
    const thin = cal?.thin_pools || [];
    if (!thin.length) return null;
    const size = thin[0].size;
    const own = thin.filter((t) => defaulted?.[t.class]);
    return h('div', { class: 'unreliable', role: 'note', 'data-value': 'sde.cal.unreliable' },
      h('strong', {}, 'Calibrated verdict not reliable here. '),
      own.length ? `No ${own.map((t) => (t.class === 'in_training' ? 'in-training' : 'out-of-training')).join(' or ')} pool was given, so the reference subsets were drawn from the reference set’s own rows. ` : '',
      thin.map((t) => say(t.message)).map((m) => `${m[0].toUpperCase()}${m.slice(1)}. `).join(''),
      `Give each class a pool of at least 2 × ${size} = ${2 * size} rows (ideally R × |S| = ${thin[0].references * size}) under “Calibrated verdict: reference pools” — e.g. all retain rows and all test rows of the same file.`);
  };

  /** One line per calibrated call: the verdict and why. */
  const calVerdict = (c, t, unreliable, demoted) => {
    const r = c.rule;
    const R = c.params.references;
    const why =
      R >= 2
        ? ` — exact shuffle mean ${fmt(t.stats.moments.mean)}, ${fmt(Math.abs(num(t.score)))} reference sds on the ${num(t.score) > 0 ? 'in-training' : 'out-of-training'} side of the midpoint ${fmt(r.threshold)} (R = ${R} subsets of ${c.params.subset_size} rows per class${c.params.margin > 0 ? `, margin ${c.params.margin}` : ''})`
        : ` — exact shuffle mean ${fmt(t.stats.moments.mean)} is ${t.nearest_single_pair == null ? 'as near one reference’s as the other’s' : `nearer the ${t.nearest_single_pair ? 'in-training' : 'out-of-training'} reference’s`} (one reference subset per class)`;
    return h('p', { class: `verdict ${callClass(t.calibrated)}${demoted ? ' verdict-rule' : ''}`, 'data-value': 'sde.cal.verdict' }, `Calibrated: ${t.name}: ${CALL[t.calibrated]}`,
      unreliable ? h('span', { class: 'badge badge-unreliable', 'data-value': 'sde.cal.verdict.unreliable', title: 'the reference subsets share most of their rows: see the note below' }, 'unreliable') : null,
      h('span', { class: 'muted' }, why));
  };

  /** Statistic × (target, references, separation, call): what the calibrated verdict and its diagnostics read. */
  const diagnostics = (c, t) => {
    const rows = [
      ['exact shuffle mean (the SDE statistic)', t.stats.moments.mean, c.rule, t.calibrated, 'mean'],
      ['whole-subset kernel dispersion', t.stats.dispersion, c.dispersion_rule, t.dispersion, 'dispersion'],
      c.confidence_rule && t.stats.confidence != null && ['mean max-softmax confidence', t.stats.confidence, c.confidence_rule, t.confidence, 'confidence'],
    ].filter(Boolean);
    return tableBox({ class: 'table-scroll' }, h('table', { class: 'targets diagnostics' },
      h('caption', {}, 'Diagnostics under the same references and midpoint rule'),
      h('thead', {}, h('tr', {}, ['statistic', 'target', 'in-training refs', 'out-of-training refs', 'apart (sds)', 'call'].map((x) => h('th', { scope: 'col' }, x)))),
      h('tbody', {}, rows.map(([name, v, rule, call, key]) => h('tr', {},
        h('th', { scope: 'row' }, name),
        h('td', { 'data-value': `sde.cal.${key}` }, fmt(v)),
        h('td', {}, fmt(rule.in_training_mean)),
        h('td', {}, fmt(rule.out_of_training_mean)),
        h('td', { 'data-value': `sde.cal.${key}.separation` }, fmt(rule.separation)),
        h('td', { 'data-value': `sde.cal.${key}.call` }, CALL[call]))))));
  };

  const notesBox = (c) =>
    h('div', { class: 'notes', role: 'note' }, h('strong', {}, 'What the signal is'), h('ul', {}, c.result.notes.map((n) => h('li', {}, say(n)))));

  /** Per-target exact means against the reference subsets' (calibrated verdict), with the midpoint. */
  const meansPlot = (c) =>
    plotBlock({
      title: 'Exact shuffle means: reference subsets and targets',
      filename: 'sde-exact-means',
      draw: (width) => {
        const color = (call) => (call === 'in_training' ? PALETTE.it : call === 'out_of_training' ? PALETTE.oot : '#888888');
        const ring = (t) => (t.label == null ? null : t.label ? PALETTE.ink : PALETTE.accent);
        return stripPlot(
          [
            { label: 'in-training refs', points: c.in_training.stats.map((s, k) => ({ value: num(s.moments.mean), color: PALETTE.it, title: `in-training reference ${k}` })) },
            { label: 'out-of-training', points: c.out_of_training.stats.map((s, k) => ({ value: num(s.moments.mean), color: PALETTE.oot, title: `out-of-training reference ${k}` })) },
            { label: 'targets', points: c.targets.map((t) => ({ value: num(t.stats.moments.mean), color: color(t.calibrated), ring: ring(t), title: `${t.name}: ${CALL[t.calibrated]}` })) },
          ],
          {
            width,
            xlabel: 'exact mean of the split-half shuffle distribution (HSIC)',
            label: 'Strip plot of the exact shuffle means of the reference subsets and the targets',
            markers: c.params.references >= 2 ? [{ x: num(c.rule.threshold), label: 'midpoint' }] : [],
            legend: [['called in training', PALETTE.it, 'dot'], ['called out of training', PALETTE.oot, 'dot'], ['inconclusive', '#888888', 'dot']],
          },
        );
      },
    }).el;

  /**
   * Exactly what a stopped run finished, from the state of every subset (the pool's workers may finish a later
   * subset before an earlier one): references and targets complete, stopped part-way, or not started.
   */
  const stoppedSummary = (r, partial) => {
    const NAMES = { in_training: 'in-training reference', out_of_training: 'out-of-training reference' };
    if (!partial) return `${r.targets.length} target(s) finished.`;
    const state = (s) => (s.complete ? 'complete' : s.shuffles_done ? `stopped after ${s.shuffles_done} of ${s.shuffles_planned} shuffles` : 'not started');
    const refs = partial.subsets.slice(0, 2).map((s) => `${NAMES[s.name] || s.name} ${state(s)}`);
    const targets = partial.subsets.slice(2);
    const done = targets.filter((s) => s.complete);
    const rest = targets.filter((s) => !s.complete);
    const restText = rest.length
      ? ` (${rest.slice(0, 4).map((s) => `${s.name} ${state(s)}`).join(', ')}${rest.length > 4 ? `, and ${rest.length - 4} more` : ''})`
      : '';
    const unused = done.length - r.targets.length;
    return `${refs.join('; ')}; ${done.length} of ${targets.length} target(s) complete${restText}.` +
      (unused > 0 ? ` ${unused} complete target(s) come after an unfinished one or before the references were complete, so the run’s verdicts, OTR and F1 leave them out.` : '');
  };

  /**
   * What a stopped run's shuffles support (the core's `partial`): every subset's shuffles done with its exact
   * moments (closed form over all shuffles, so unaffected by stopping), and the paper rule and Mann–Whitney on the
   * shuffles so far for each unfinished target — labelled partial.
   */
  const partialBox = (p) => {
    const NAMES = { in_training: 'in-training reference', out_of_training: 'out-of-training reference' };
    const subsets = numbers(
      p.subsets.map((s) => [
        NAMES[s.name] || s.name,
        `${s.shuffles_done} of ${s.shuffles_planned}${s.complete ? ' (complete)' : ''}`,
        s.shuffles_done || s.complete ? `exact mean ± sd over all shuffles: ${fmt(s.moments.mean)} ± ${fmt(s.moments.sd)}` : 'not started',
        `sde.partial.${s.name}.done`,
      ]),
      'Shuffles done per subset',
    );
    const targets =
      p.targets.length > 0 &&
      tableBox({ class: 'table-scroll' }, h('table', { class: 'targets partial-targets' },
        h('caption', {}, 'Paper rule on the shuffles so far (partial: more shuffles can change it)'),
        h('thead', {}, h('tr', {}, ['target', 'shuffles', 'JSD to IT', 'JSD to OOT', 'verdict', 'MW p, > OOT'].map((x) => h('th', { scope: 'col' }, x)))),
        h('tbody', {}, p.targets.map((t) => h('tr', {},
          h('th', { scope: 'row' }, t.name),
          h('td', { 'data-value': `sde.partial.${t.name}.shuffles` }, String(t.shuffles_done)),
          h('td', { 'data-value': `sde.partial.${t.name}.jsd_it` }, fmt(t.verdict.jsd_target_it)),
          h('td', { 'data-value': `sde.partial.${t.name}.jsd_oot` }, fmt(t.verdict.jsd_target_oot)),
          h('td', { 'data-value': `sde.partial.${t.name}.verdict` }, `${said(t.verdict.in_training)} (partial)`),
          h('td', { 'data-value': `sde.partial.${t.name}.mw` }, fmt(t.mann_whitney_target_vs_oot.p_value)))))));
    return h('div', { class: 'partial-numbers', 'data-value': 'sde.partial' },
      subsets,
      targets,
      p.reference_separation &&
        h('p', {}, 'References separable on the shuffles so far? One-sided Mann–Whitney p, IT > OOT: ',
          h('strong', { 'data-value': 'sde.partial.separation' }, fmt(p.reference_separation.p_value)), h('span', { class: 'muted' }, ' (partial)')),
      !p.targets.length && h('p', { class: 'muted' }, 'No target has shuffles next to values of both references yet, so there is no verdict to show.'),
      h('p', { class: 'muted' }, 'SDE compares distributions by JSD rather than testing one observed value against shuffles, so it has no permutation p-value (and no p-value interval) to report.'));
  };

  function render({ req, out, cal, calSkip, defaulted }) {
    const r = out?.result;
    const c = cal?.result;
    const single = !req.draw_from && !req.draw_in && !req.draw_out && req.target.length === 1;
    const blocks = [];
    // The one call first (the layer's headline), then what supports it. The layer's warnings go next to the input
    // they concern; those about no input, under the headline.
    const hd = (r && out.headline) || (c && cal.headline) || null;
    blocks.push(headlineBox(hd));
    const left = pre.place([...(out?.warnings || []), ...(cal?.warnings || [])], true);
    blocks.push(layerWarnings(left));
    if (r && !r.complete) {
      blocks.push(h('div', { class: 'partial', role: 'status', 'data-value': 'sde.stopped' }, h('strong', {}, 'Stopped early — partial result. '), stoppedSummary(r, out.partial), ' Numbers below use only what was computed.'));
      if (out.partial) blocks.push(partialBox(out.partial));
    } else if (!r && c && !c.complete) {
      blocks.push(h('div', { class: 'partial', role: 'status', 'data-value': 'sde.stopped' }, h('strong', {}, 'Stopped early — partial result. '), `${c.targets.length} target(s) finished.`));
    }
    // The layer's warnings hold the core's and the readers' (older modules gave them as text, shown apart).
    if (!out?.warnings) blocks.push(warningsBox(r?.warnings, 'Read this first'));
    if (!cal?.warnings) blocks.push(warningsBox(c?.warnings, 'Calibrated verdict: reference subsets'));
    if (!out?.warnings && !cal?.warnings) blocks.push(loadWarnings([...(out?.load_warnings || []), ...(!out ? cal?.load_warnings || [] : [])]));
    if (calSkip) blocks.push(h('p', { class: 'muted', 'data-value': 'sde.cal.skipped' }, calSkip));

    if (single) {
      const t = r?.targets[0];
      const ct = c?.targets[0];
      if (t) {
        const v = t.verdict;
        blocks.push(
          h('p', { class: `verdict ${v.in_training == null ? 'verdict-none' : v.in_training ? 'verdict-in' : 'verdict-out'}${hd ? ' verdict-rule' : ''}`, 'data-value': 'sde.verdict' },
            `${c ? 'Paper rule: ' : ''}${t.name}: ${said(v.in_training)}`,
            h('span', { class: 'muted' }, ` — JSD to the in-training reference ${fmt(v.jsd_target_it)} ${v.in_training == null ? '=' : v.in_training ? '<' : '≥'} JSD to the out-of-training reference ${fmt(v.jsd_target_oot)}`)),
        );
      }
      if (ct) blocks.push(calVerdict(c, ct, cal.thin_pools?.length > 0, !!hd), unreliableBox(cal, defaulted));
      if (t) {
        const v = t.verdict;
        const sep = r.reference_separation;
        blocks.push(
          numbers(
            [
              ['JSD(target, in-training ref.)', fmt(v.jsd_target_it), `natural log, ${req.bins} bins; scipy jensenshannon = ${fmt(v.jsd_sqrt_target_it)}`, 'sde.jsd_it'],
              ['JSD(target, out-of-training ref.)', fmt(v.jsd_target_oot), `scipy jensenshannon = ${fmt(v.jsd_sqrt_target_oot)}`, 'sde.jsd_oot'],
              ['Mann–Whitney p, target > out-of-training', fmt(t.mann_whitney_target_vs_oot.p_value), 'one-sided', 'sde.mw_target'],
              sep && ['References separable? Mann–Whitney p, IT > OOT', fmt(sep.p_value), 'the paper requires p < 0.01', 'sde.separation'],
              ['Exact mean ± sd over all shuffles, target', `${fmt(t.distribution.moments.mean)} ± ${fmt(t.distribution.moments.sd)}`, 'closed form (the dashed lines in the plot)', 'sde.moments'],
              t.baselines && ['MMD² to IT / to OOT', `${fmt(t.baselines.mmd_target_it)} / ${fmt(t.baselines.mmd_target_oot)}`, `MMD says ${said(t.baselines.mmd_in_training)}`],
              t.baselines && ['Wasserstein-1 to IT / to OOT', `${fmt(t.baselines.wasserstein_target_it)} / ${fmt(t.baselines.wasserstein_target_oot)}`, `W1 says ${said(t.baselines.wasserstein_in_training)}`],
            ],
            c ? 'Paper rule (one reference pair, T shuffles)' : null,
          ),
        );
      }
      if (ct) {
        blocks.push(
          numbers(
            [
              ['z, reference sds (+: in-training side)', fmt(ct.score), c.params.references >= 2 ? `threshold ${fmt(c.rule.threshold)}, pooled sd ${fmt(c.rule.pooled_sd)}` : 'one reference per class: nearest mean', 'sde.cal.z'],
              ['In-training references: exact mean ± sd', `${fmt(c.in_training.mean)} ± ${fmt(c.in_training.sd)}`, `${c.in_training.subsets.length} subsets${c.in_training.disjoint ? ', disjoint' : ', overlapping'}`, 'sde.cal.it'],
              ['Out-of-training references: exact mean ± sd', `${fmt(c.out_of_training.mean)} ± ${fmt(c.out_of_training.sd)}`, `${c.out_of_training.subsets.length} subsets${c.out_of_training.disjoint ? ', disjoint' : ', overlapping'}`, 'sde.cal.oot'],
              ['Nearest exact mean, first reference pair', ct.nearest_single_pair == null ? 'no call (tie)' : ct.nearest_single_pair ? 'in training' : 'out of training', 'the single-pair rule', 'sde.cal.nearest'],
            ],
            'Calibrated verdict (exact shuffle means, no shuffles)',
          ),
        );
        blocks.push(diagnostics(c, ct), notesBox(cal));
      }
    } else {
      const rows = [];
      if (r) rows.push(['paper rule (JSD, the reference pair above)', r.out_of_training_rate, r.f1, 0, r.targets.length, 'paper']);
      if (c) for (const s of c.summaries) rows.push([s.rule, s.out_of_training_rate, s.f1, s.inconclusive, c.targets.length, RULE_KEYS[s.rule] || s.rule]);
      // Each rule's OTR pools every target; the headline's is the unlabelled targets' own, the controls apart.
      const pooled = [...(r?.targets || []), ...(c?.targets || [])].some((t) => t.label != null);
      blocks.push(
        tableBox({ class: 'table-scroll' }, h('table', { class: 'targets rules' },
          h('caption', {}, 'Rules side by side'),
          h('thead', {}, h('tr', {}, ['rule', pooled ? 'OTR (all targets, controls included)' : 'OTR', 'F1 (in-training positive)', 'inconclusive'].map((x) => h('th', { scope: 'col' }, x)))),
          h('tbody', {}, rows.map(([name, otr, f1, inc, n, key]) => h('tr', {},
            h('th', { scope: 'row' }, name),
            h('td', { 'data-value': key === 'paper' ? 'sde.otr' : `sde.otr.${key}` }, otr == null ? '—' : fmt(otr)),
            h('td', { 'data-value': key === 'paper' ? 'sde.f1' : `sde.f1.${key}` }, f1 ? fmt(f1.f1) : '—'),
            h('td', {}, `${inc} of ${n}`))))),
        ),
      );
      blocks.push(
        numbers([
          r?.f1_mmd && ['F1 (MMD baseline)', fmt(r.f1_mmd.f1), '', 'sde.f1_mmd'],
          r?.f1_wasserstein && ['F1 (Wasserstein baseline)', fmt(r.f1_wasserstein.f1), '', 'sde.f1_w'],
          r?.reference_separation && ['References separable? Mann–Whitney p, IT > OOT', fmt(r.reference_separation.p_value), 'the paper requires p < 0.01', 'sde.separation'],
          c && ['Calibrated references: exact means', `${fmt(c.in_training.mean)} ± ${fmt(c.in_training.sd)} vs ${fmt(c.out_of_training.mean)} ± ${fmt(c.out_of_training.sd)}`, `R = ${c.params.references} per class, ${fmt(c.rule.separation)} sds apart`, 'sde.cal.refs'],
        ]),
      );
      if (c) blocks.push(unreliableBox(cal, defaulted), notesBox(cal));
      const n = Math.max(r?.targets.length || 0, c?.targets.length || 0);
      if (n) {
        const byName = new Map((c?.targets || []).map((t) => [t.name, t]));
        const names = (r?.targets || c.targets).map((t) => t.name);
        const pt = new Map((r?.targets || []).map((t) => [t.name, t]));
        // The layer's call per target (both rules of the one reference pair agreeing), beside each rule's.
        const calls = new Map((out?.calls || []).map((x) => [x.name, x]));
        const cols = ['target', 'label', ...(calls.size ? ['call'] : []), ...(r ? ['JSD to IT', 'JSD to OOT', 'paper'] : []), ...(c ? ['exact mean', 'z', 'calibrated', 'dispersion', 'confidence'] : [])];
        blocks.push(
          tableBox({ class: 'table-scroll', label: 'Each target' }, h('table', { class: 'targets' },
            h('thead', {}, h('tr', {}, cols.map((x) => h('th', { scope: 'col' }, x)))),
            h('tbody', {}, names.map((name) => {
              const t = pt.get(name);
              const ct = byName.get(name);
              const label = (t || ct).label;
              return h('tr', {},
                h('td', {}, name), h('td', {}, label == null ? '—' : label ? 'in' : 'out'),
                calls.size > 0 && h('td', { title: say(calls.get(name)?.reason || '') }, calls.get(name) ? CALL[calls.get(name).call] : '—'),
                r && [h('td', {}, t ? fmt(t.verdict.jsd_target_it) : '—'), h('td', {}, t ? fmt(t.verdict.jsd_target_oot) : '—'), h('td', {}, t ? said(t.verdict.in_training) : '—')],
                c && [h('td', {}, ct ? fmt(ct.stats.moments.mean) : '—'), h('td', {}, ct ? fmt(ct.score) : '—'), h('td', {}, ct ? CALL[ct.calibrated] : '—'),
                  h('td', {}, ct ? CALL[ct.dispersion] : '—'), h('td', {}, ct?.confidence ? CALL[ct.confidence] : '—')]);
            })))),
        );
      }
      if (r?.targets.length) {
        const color = (t) => (t.verdict.in_training == null ? PALETTE.grid : t.verdict.in_training ? PALETTE.it : PALETTE.oot);
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
                // Coloured by the paper's JSD rule alone, which the headline may not follow: the legend says whose call it is.
                { width, xlabel: 'Jensen–Shannon divergence (nats)', label: 'Strip plot of per-target JSD', legend: [['paper rule: in training', PALETTE.it, 'dot'], ['paper rule: out of training', PALETTE.oot, 'dot'], ...(r.targets.some((t) => t.verdict.in_training == null) ? [['paper rule: no call (tie)', PALETTE.grid, 'dot']] : [])] },
              ),
          }).el,
        );
      }
    }
    if (c && c.targets.length) blocks.push(meansPlot(c));
    if (out?.histograms) {
      // Finished targets, then (a stopped run) the unfinished ones with their shuffles so far, named "… (partial)".
      const tseries = out.histograms.series.filter((s) => s.role === 'target');
      const momentsOf = (k) => r.targets[k]?.distribution || out.partial?.subsets.find((s) => s.name === tseries[k]?.name.replace(/ \(partial\)$/, ''));
      const choose = h('select', { 'aria-label': 'Target shown in the histogram' }, tseries.map((t, i) => h('option', { value: i }, t.name)));
      const plot = plotBlock({
        title: 'HSIC split-half distributions',
        filename: 'sde-distributions',
        draw: (width) => {
          const k = Number(choose.value || 0);
          const series = out.histograms.series.filter((s) => s.role !== 'target').concat(tseries[k] || []);
          const dists = [['it', r.in_training_reference], ['oot', r.out_of_training_reference], ['target', tseries[k] && momentsOf(k)]];
          const moments = dists.filter(([, d]) => d).map(([role, d]) => ({ role, mean: num(d.moments.mean), sd: num(d.moments.sd) }));
          return histogramPlot(
            { edges: out.histograms.edges.map(num), series },
            { width, xlabel: 'HSIC(S₁, S₂ shuffled)', labels: LABELS, moments, label: 'Overlaid histograms of the in-training, out-of-training and target distributions, with each distribution’s exact mean ± sd over all shuffles' },
          );
        },
      });
      choose.addEventListener('change', plot.render);
      blocks.push(tseries.length > 1 ? h('div', { class: 'row' }, h('span', { class: 'muted' }, 'target shown:'), choose) : null, plot.el);
    }
    const bits = [];
    if (r) {
      const it = r.in_training_reference;
      bits.push(`T = ${req.shuffles} shuffles · σ = ${req.sigma} (${fmt(it.sigma_1)}) · halves of ${it.half} rows · ${req.bins} bins`);
    }
    if (c) bits.push(`calibrated: R = ${c.params.references} × ${c.params.subset_size} rows per class, margin ${c.params.margin}`);
    bits.push(`seed ${req.seed} · split ${req.split} · ${(r || c).params.precision} · RNG ${(r || c).rng}`);
    blocks.push(
      h('p', { class: 'params-line muted' }, bits.join(' · ')),
      backendLine((r || c).backend, [out?.pool && `the paper rule's ${out.partial ? out.partial.subsets.length : r.targets.length + 2} subsets split across ${out.pool.workers} workers`, (out || cal).backend_choice?.note].filter(Boolean).join(' · ')),
      exportBar({ engine: ctx.engine, name: `lethe-sde-seed${req.seed}`, report: () => report(last), table: () => table(last) }),
    );
    fill(parts.results, blocks);
  }

  return {
    id: 'sde',
    el: parts.el,
    slots,
    fields: { ...p, mode, draw, size },
    /** The mode that data for `roles` needs (a pool to draw targets from → many; one target set → single). */
    modeFor: (roles) => (roles.some((r) => r.startsWith('draw-')) ? 'many' : roles.includes('target') ? 'single' : null),
    /** The rows set now are the built-in example's: a person's own file in their place clears them. */
    markExample() {
      for (const c of [...Object.values(slots).map((x) => x.rows), pools.it_pool, pools.oot_pool]) c?.markExample();
    },
    run: (signal) => run.run(signal),
    cancel: () => run.cancel(),
    last: () => last && report(last),
    /** Labels the backend choices with what this worker found: the adapter, or why there is no WebGPU. */
    setWebGpu(gpu) {
      const opt = p.backend.input.querySelector('option[value="webgpu"]');
      opt.textContent = gpu?.available ? `WebGPU (${gpu.adapter})` : 'WebGPU (not available here)';
      opt.disabled = !gpu?.available;
      if (!gpu?.available && p.backend.get() === 'webgpu') p.backend.set('auto');
    },
    set(opts) {
      for (const [k, v] of Object.entries(opts)) {
        if (slots[k]) slots[k].set(v);
        else if (p[k]) p[k].set(v);
        else if (pools[k]) pools[k].set(typeof v === 'string' ? { kind: 'text', text: v } : v);
        else if (k === 'mode') mode.set(v);
        else if (k === 'draw') draw.set(v);
        else if (k === 'size') size.set(v);
      }
      syncMode();
    },
  };
}
