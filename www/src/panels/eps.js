// ε lower bound from a membership audit (issue 13 item 3), a section of the Membership audit panel: the analysis
// layer's `eps-lower` request on the same member and non-member scores the panel audits (run after each audit, or
// again with other options from here), or on the one-run audit's counts alone. The report is the same as
// `lethe eps-lower … --json`. Results belong to the scores and options that made them: a change of either clears
// them.
import { h, fill } from '../dom.js';
import { cls } from '../classes.js';
import { fmt, num } from '../format.js';
import { field, panelFrame, runner, numbers, exportBar, cliLine, envelope, headlineBox, layerWarnings, say } from './common.js';

const METHODS = [
  ['clopper-pearson', 'Clopper–Pearson (default)'],
  ['one-run', 'one-run audit (Steinke et al. 2023)'],
  ['gdp', 'GDP estimate (jax-privacy)'],
];
const RULES = [
  ['jax-privacy', 'jax-privacy (default)'],
  ['privacy-estimates', 'privacy-estimates (microsoft)'],
];
const METHOD_NAME = { 'clopper-pearson': 'Clopper–Pearson', 'one-run': 'one-run audit', gdp: 'GDP estimate' };
/** δ as the headline writes it: 1e-5, not 0.00001. */
const delta = (v) => (v !== 0 && Math.abs(v) < 1e-4 ? v.toExponential() : String(v));

/** The confidence in % as the significance the request takes: 95 → 0.05 (to 12 digits, so 99.9 → 0.001 exactly). */
export const significanceOf = (pct) => +((100 - pct) / 100).toPrecision(12);

/** The member/non-member scores of a Membership audit request (its inputs and direction), or null when incomplete. */
export function scoresOf(req) {
  if (!req) return null;
  const two = req.members && req.non_members;
  const one = req.scores && req.labels;
  if (!two && !one) return null;
  return {
    members: two ? req.members : null,
    non_members: two ? req.non_members : null,
    scores: two ? null : req.scores,
    labels: two ? null : req.labels,
    lower_is_member: !!req.lower_is_member,
  };
}
const keyOf = (s) => JSON.stringify(s);

/**
 * The section. `current()`: the panel's current audit request (its inputs as the slots hold them); `watch`: the
 * panel's element, whose changes of inputs clear a bound computed from scores.
 */
export function epsSection(ctx, { current, watch }) {
  const parts = panelFrame({
    id: 'lethe-eps',
    title: 'ε lower bound',
    intro:
      'How private can the trained model at most be? An attack that tells members from non-members this well rules out differential privacy with a smaller ε: a lower bound on ε, with the δ and the confidence stated. Computed from the scores above after each audit.',
  });
  // A section of the panel: its title one level below the panel's.
  const h2 = parts.el.querySelector('h2');
  h2.replaceWith(h('h3', { id: h2.id }, h2.textContent));
  // Inside the panel's element, its hooks (values, actions, the progress line) are its own: `eps.…`, `eps-…`, so
  // that the panel's (its headline, Run, export) stay the only ones of their names there.
  const own = (root) => {
    for (const e of root.querySelectorAll('[data-value]')) if (!e.dataset.value.startsWith('eps.')) e.dataset.value = `eps.${e.dataset.value}`;
    for (const e of root.querySelectorAll('[data-action]')) if (!e.dataset.action.startsWith('eps-')) e.dataset.action = `eps-${e.dataset.action}`;
    for (const e of root.querySelectorAll('.lethe-progress-text')) e.className = cls('eps-progress');
    return root;
  };

  const p = {
    delta: field({ key: 'eps-delta', label: 'δ', value: 0, min: 0, max: 1, step: 'any', help: 'the δ of the (ε, δ) guarantee tested; 0 for pure ε-DP. The GDP estimate needs δ above 0 (e.g. 1e-5).' }),
    confidence: field({ key: 'eps-confidence', label: 'Confidence (%)', value: 95, min: 50, max: 100, step: 'any' }),
    method: field({ key: 'eps-method', label: 'Method', type: 'select', value: 'clopper-pearson', options: METHODS }),
    guess_members: field({ key: 'eps-guess-members', label: 'Guess “member” for the highest', value: '', min: 0, step: 1, help: 'this many scores: chosen before looking at them' }),
    guess_non_members: field({ key: 'eps-guess-non-members', label: 'Guess “non-member” for the lowest', value: 0, min: 0, step: 1 }),
    rule: field({ key: 'eps-rule', label: 'Clopper–Pearson rule', type: 'select', value: 'jax-privacy', options: RULES, help: 'privacy-estimates also counts an attack that is reliably wrong, and both directions' }),
    two_sided: field({ key: 'eps-two-sided', label: 'Also try the reverse rule (members score lower)', type: 'checkbox', value: false }),
  };
  // Boxes within the parameters: a line of their own, their fields laid out as the parameters' (set through the
  // CSSOM, which a strict Content-Security-Policy allows). A <details> element's content inherits from its slot, not
  // from the widget's root: border-box is set again, else its inputs and buttons come out larger than the others.
  const row = (...els) => h('div', { style: { display: 'flex', flexWrap: 'wrap', gap: '8px 18px', alignItems: 'flex-start', boxSizing: 'border-box' } }, els);
  const box = { flexBasis: '100%', minWidth: '0' };
  const more = h('details', { class: 'eps-more', 'data-role': 'eps-more', style: box }, h('summary', {}, 'More options'), row(p.rule.el, p.two_sided.el));
  // The one-run audit from its counts alone (no scores): canaries m, guesses r, correct guesses v.
  const c = {
    m: field({ key: 'eps-m', label: 'Canaries (m)', value: '', min: 1, step: 1 }),
    r: field({ key: 'eps-r', label: 'Guesses made (r)', value: '', min: 0, step: 1 }),
    v: field({ key: 'eps-v', label: 'Correct guesses (v)', value: '', min: 0, step: 1 }),
  };
  const countsBtn = h('button', { type: 'button', class: 'button button-secondary', 'data-action': 'eps-counts' }, 'Bound from these counts');
  // Its own changes clear only a bound from counts (data-nostale: the section's results are not marked by them).
  const countsBox = h(
    'details',
    { class: 'eps-counts', 'data-role': 'eps-counts', 'data-nostale': true, style: box },
    h('summary', {}, 'From counts alone: the one-run audit'),
    h('div', { style: { boxSizing: 'border-box' } },
      h('p', { class: 'hint muted' }, 'm canaries, each put in training with probability ½; the auditor guessed r of them (abstaining on the rest) and v guesses were right. Uses δ and the confidence above.'),
      row(Object.values(c).map((f) => f.el)),
      countsBtn),
  );
  const syncMethod = () => {
    const m = p.method.get();
    p.guess_members.el.hidden = p.guess_non_members.el.hidden = m !== 'one-run';
    more.hidden = m !== 'clopper-pearson';
  };
  p.method.input.addEventListener('change', syncMethod);
  syncMethod();
  parts.params.append(p.delta.el, p.confidence.el, p.method.el, p.guess_members.el, p.guess_non_members.el, more, countsBox);
  const from = h('p', { class: 'muted', 'data-value': 'eps.from' }, 'From the members’ and non-members’ scores of the audit above (and its “lower score means member”).');
  fill(parts.inputs, from);

  // The scores the next bound is computed from: those of the audit last run (set by `follow`), else the panel's.
  let audited = null;
  let last = null;
  let useCounts = false;

  /** What is wrong with the options, in the page's words, or null. */
  const problem = (method) => {
    const d = p.delta.get();
    const conf = p.confidence.get();
    if (!Number.isFinite(d) || d < 0 || d >= 1) return '“δ” must be at least 0 and below 1 (0 for pure ε-DP, or e.g. 1e-5).';
    if (method === 'gdp' && !(d > 0)) return 'The GDP estimate needs “δ” above 0 (e.g. 1e-5): at δ = 0 a Gaussian privacy curve gives no finite ε.';
    const lo = method === 'one-run' ? 0 : 50;
    if (!Number.isFinite(conf) || conf <= lo || conf >= 100) return `“Confidence (%)” must lie strictly between ${lo} and 100 (95 is usual).`;
    return null;
  };
  const int = (f) => {
    const v = f.get();
    return Number.isInteger(v) && v >= 0 ? v : null;
  };
  const options = (method) => ({ method, significance: significanceOf(p.confidence.get()), delta: p.delta.get() });

  const request = () => {
    if (useCounts) {
      const [m, r, v] = [int(c.m), int(c.r), int(c.v)];
      if (m === null || r === null || v === null) throw new Error('Give the canaries m, the guesses r and the correct guesses v as whole numbers.');
      if (!(m >= 1 && r <= m && v <= r)) throw new Error(`The counts do not add up: give at least one canary, at most m (${m}) guesses, and at most r (${r}) correct ones.`);
      const bad = problem('one-run');
      if (bad) throw new Error(bad);
      return { ...options('one-run'), one_run: { m, r, v } };
    }
    const method = p.method.get();
    const s = audited || scoresOf(current());
    if (!s) throw new Error('Choose the members’ and non-members’ scores above (or the scores with their labels) first.');
    const bad = problem(method);
    if (bad) throw new Error(bad);
    const req = { ...s, ...options(method) };
    if (method === 'clopper-pearson') Object.assign(req, { rule: p.rule.get(), two_sided: p.two_sided.get() });
    if (method === 'one-run') {
      const k = int(p.guess_members);
      if (k === null) throw new Error('The one-run audit needs the number of guesses: how many of the highest scores are guessed members (“Guess “member” for the highest”), chosen before looking at the scores.');
      req.guess_members = k;
      req.guess_non_members = int(p.guess_non_members) ?? 0;
    }
    return req;
  };

  const report = ({ req, out }) => {
    const par = out.parameters;
    const or = req.one_run;
    const args = [
      ['_members', par.members],
      ['_non_members', par.non_members],
      ['scores', par.scores],
      ['labels', par.labels],
      ['one-run', or ? `${or.m},${or.r},${or.v}` : null],
      ['lower-is-member', !or && req.lower_is_member],
      ['method', req.method],
      ['rule', req.rule],
      ['two-sided', req.two_sided],
      ['guess-members', req.guess_members],
      ['guess-non-members', req.guess_non_members || null],
      ['significance', req.significance],
      ['delta', req.delta],
    ];
    return envelope(ctx, { command: 'eps-lower', parameters: par, seed: null, output: out, cli: cliLine('eps-lower', args) });
  };

  const run = runner(ctx, parts, {
    label: 'Compute the bound',
    fields: [p.delta, p.confidence],
    start: async (signal, onProgress) => {
      let req;
      try {
        req = request();
      } catch (e) {
        fill(parts.results);
        fill(parts.error, say(e.message));
        throw e;
      } finally {
        useCounts = false;
      }
      try {
        const out = await ctx.engine.request('run', { analysis: 'eps-lower', request: req }, { signal, onProgress });
        last = { req, out, key: req.one_run ? null : keyOf(scoresOf(req)) };
        render(last);
        ctx.emit('result', { panel: 'eps', output: out, report: report(last) });
        return out;
      } catch (e) {
        if (e.name !== 'AbortError') {
          fill(parts.results);
          fill(parts.error, say(e.message, { members: 'Members’ scores', non_members: 'Non-members’ scores' }));
          ctx.emit('error', { panel: 'eps', message: e.message, input: e.input });
        }
        throw e;
      }
    },
  });
  own(parts.el);
  countsBtn.addEventListener('click', () => {
    useCounts = true;
    run.run().catch(() => {});
  });

  /** Clears the bound shown (it no longer matches what the section would compute), saying why. */
  const clear = (why) => {
    // An input and a change event both come: the second finds the bound cleared, and only takes back its mark.
    parts.fresh();
    if (!last) return;
    last = null;
    parts.fresh();
    fill(parts.results, h('p', { class: 'stale-note', role: 'status', 'data-value': 'eps.cleared' }, h('strong', {}, 'Cleared: '), `${why}. Compute the bound again for the new settings.`));
  };
  // This section's options: a change clears the bound (panelFrame has just marked it out of date).
  parts.onChange = (e) => {
    if (e.target === p.method.input) syncMethod();
    const label = e.target.closest?.('.lethe-field')?.querySelector('label')?.textContent;
    clear(label ? `“${label.trim()}” changed` : 'the settings changed');
  };
  // The panel's inputs: once they differ from the scores the bound came from, it is cleared (a file picked, rows
  // or the direction changed). Slots settle after their event, so this looks again shortly after.
  const inputsChanged = (e) => {
    if (parts.el.contains(e.target) || e.target.closest?.('[data-panel="lethe-lira"], [data-role="lira-open"]')) return;
    const look = () => {
      const now = scoresOf(current());
      if (audited && keyOf(now) !== keyOf(audited)) audited = null;
      if (last && last.key && keyOf(now) !== last.key) clear('the scores above changed');
    };
    look();
    setTimeout(look, 0);
    setTimeout(look, 400);
  };
  for (const t of ['input', 'change', 'lethe-change']) watch?.addEventListener(t, inputsChanged);
  countsBox.addEventListener('input', (e) => {
    if (last?.req.one_run) clear(`“${e.target.closest('.lethe-field')?.querySelector('label')?.textContent.trim() || 'the counts'}” changed`);
  });

  function render({ req, out }) {
    const r = out.result;
    const cp = r.clopper_pearson;
    const one = r.one_run;
    const g = r.gdp;
    const level = `${+(100 * r.confidence).toPrecision(6)}%`;
    const dir = cp && cp.direction === 'members_lower' ? '≤' : '≥';
    // The best test's threshold and rates only where it shows something (ε > 0).
    const shown = num(r.epsilon) > 0;
    fill(
      parts.results,
      headlineBox(out.headline),
      layerWarnings(out.warnings),
      numbers([
        ['ε lower bound', fmt(num(r.epsilon)), `${METHOD_NAME[r.method] || r.method}; δ = ${delta(num(r.delta))}, ${level} confidence${shown ? '' : ': no ε above 0 is shown'}`, 'eps.epsilon'],
        r.examples_needed != null && ['Sample size needed', String(r.examples_needed), one ? 'canaries, all guessed right, for any ε > 0' : 'members and as many non-members, separated perfectly, for any ε > 0', 'eps.examples_needed'],
        shown && cp && cp.threshold != null && ['Best threshold', fmt(num(cp.threshold)), `“member” at a score ${dir} this flags ${cp.counts.tp} of ${cp.members} members and ${cp.counts.fp} of ${cp.non_members} non-members`, 'eps.threshold'],
        shown && cp && cp.threshold != null && ['Error rates, upper bounds', `FPR ${fmt(num(cp.fpr_upper))}, FNR ${fmt(num(cp.fnr_upper))}`, 'Clopper–Pearson, at the Bonferroni share of the confidence', 'eps.rates'],
        cp && ['Thresholds tried', String(cp.tests), `each tested at ${fmt(num(cp.per_test_significance))} (Bonferroni: ${+cp.significance.toPrecision(12)} split over ${cp.tests}); the ${cp.rule} rule${cp.one_sided ? '' : ', both directions'}`, 'eps.tests'],
        cp && ['Most this sample can show', fmt(num(cp.best_possible)), `ε a perfect attack would give on ${cp.members} members and ${cp.non_members} non-members`, 'eps.best_possible'],
        one && ['Guesses', `${one.v} correct of ${one.r}`, `on ${one.m} canaries; p-value at ε = 0: ${fmt(num(one.p_value_at_zero))}`, 'eps.guesses'],
        one && ['Most these canaries can show', fmt(num(one.best_possible)), `ε if all ${one.m} were guessed, all right`, 'eps.best_possible'],
        g && ['μ (Gaussian DP)', fmt(num(g.mu)), `the largest the error-rate bounds show, Bonferroni over ${g.tests} bounds`, 'eps.mu'],
      ]),
      h('p', { class: 'params-line muted' }, `${req.one_run ? 'one-run counts' : 'scores of the audit above'} · ${METHOD_NAME[req.method]}${req.rule ? ` (${req.rule})` : ''} · δ = ${delta(req.delta)} · confidence ${level}`),
      exportBar({ engine: ctx.engine, name: 'lethe-eps-lower', report: () => report({ req, out }) }),
    );
    own(parts.results);
  }

  return {
    id: 'eps',
    el: parts.el,
    fields: { ...p, ...c },
    /** The audit ran on `req` (the panel's request): the bound follows it, on the same scores. */
    follow(req) {
      audited = scoresOf(req);
      if (audited) run.run().catch(() => {});
    },
    run: (signal) => run.run(signal),
    /** The one-run audit from counts {m, r, v}. */
    runCounts(counts) {
      for (const [k, v] of Object.entries(counts)) c[k].set(v);
      useCounts = true;
      return run.run();
    },
    last: () => last && report(last),
  };
}
