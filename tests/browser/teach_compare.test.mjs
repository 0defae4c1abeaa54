// Teaching mode, issue 23 item 5: the topics "one seed is not a result" (seeds.js) and "forget quality" (fq.js).
// Both build, their figures react to every control (from the keyboard, and the redraw button), and the numbers they
// show equal scipy's and statsmodels' on the same seeded draws (REFS below, from teach_compare_ref.py, which ports
// draws.js to Python): Welch's t, Student's t intervals, Mann–Whitney, the exact permutation test, Holm over the 15
// pairs of six methods, and ks_2samp for forget quality, at every point of its curve. The layout does not shift
// while a topic builds (< 0.05), no SVG text leaves its chart at 320, 375 and 688 px, and both work on their own as
// <lethe-eval mode="teach" topic="…">.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, SHOTS, assert, eq, fmt, open } from './lib.mjs';

const REFS = JSON.parse(readFileSync(path.join(ROOT, 'tests/browser/teach_compare_ref.json'), 'utf8'));

const topic = (page, id) => page.locator(`#lethe-teach-${id}`);
const version = (t) => t.evaluate((e) => Number(e.dataset.version || 0));

/** Waits until the topic has redrawn past version `v` and is not busy. */
function redrawn(t, v, ms = 120000) {
  return t.evaluate(
    (e, [before, wait]) =>
      new Promise((resolve, reject) => {
        const stop = setTimeout(() => reject(new Error(`no redraw after ${before}: ${e.querySelector('.lethe-teach-status')?.textContent}`)), wait);
        const check = () => (Number(e.dataset.version || 0) > before && !e.hasAttribute('aria-busy') ? (clearTimeout(stop), resolve()) : setTimeout(check, 25));
        check();
      }),
    [v, ms],
  );
}

/** Waits for the topic's first figure. */
function drawn(t, ms = 180000) {
  return redrawn(t, 0, ms);
}

async function press(page, t, control, key, times = 1) {
  const before = await version(t);
  await control.focus();
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
  await redrawn(t, before);
}

async function choose(page, t, key, value) {
  const before = await version(t);
  await t.locator(`[data-param=${key}]`).selectOption(value);
  await redrawn(t, before);
}

/** The shown numbers (data-value → text), once the topic is idle. */
async function shown(t) {
  await t.evaluate((e) => new Promise((resolve) => {
    const check = () => (e.hasAttribute('aria-busy') ? setTimeout(check, 25) : setTimeout(resolve, 150));
    check();
  }));
  return t.locator('[data-value]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.value, e.textContent])));
}

const state = (page, id) => page.evaluate((i) => JSON.parse(JSON.stringify(window.letheTeach.topics[i].state())), id);

function close(a, b, msg, rel = 1e-9) {
  assert(Math.abs(a - b) <= rel * Math.max(1e-300, Math.abs(b)) || Math.abs(a - b) < 1e-12, `${msg}: ${a} vs ${b}`);
}
const ci = (lo, hi) => `[${fmt(lo)}, ${fmt(hi)}]`;

async function teachPage(context, base, { width = 1280 } = {}) {
  const page = await open(context, base, '/teach.html', { width });
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 300000 });
  return page;
}

/** The seeds topic's shown numbers and state against one REFS.seeds case. */
async function seedsEqualRefs(page, t, ref, label) {
  const st = await state(page, 'seeds');
  const v = await shown(t);
  const r = st.result;
  eq(st.request.seeds, ref.n, `${label}: seeds`);
  eq(st.request.seed, ref.seed, `${label}: seed`);
  close(st.request.difference, ref.d, `${label}: difference`);
  const one = ref.one;
  r.one.runs.A.forEach((x, i) => close(x, one.a[i], `${label}: run ${i + 1} of A`, 0));
  r.one.runs.B.forEach((x, i) => close(x, one.b[i], `${label}: run ${i + 1} of B`, 0));
  eq(v['seeds.a'], `${fmt(one.mean_a)} ${ci(...one.t_a)}`, `${label}: A's mean and t interval`);
  eq(v['seeds.b'], `${fmt(one.mean_b)} ${ci(...one.t_b)}`, `${label}: B's mean and t interval`);
  eq(v['seeds.welch'], fmt(one.welch), `${label}: Welch's p`);
  eq(v['seeds.mwu'], fmt(one.mwu), `${label}: Mann–Whitney p`);
  eq(v['seeds.p'], fmt(one.perm), `${label}: the exact permutation test's p`);
  eq(v['seeds.difference'], fmt(one.mean_a - one.mean_b), `${label}: difference`);
  eq(v['seeds.first'], `method ${one.mean_a >= one.mean_b ? 'A' : 'B'}`, `${label}: ranked first`);
  eq(v['seeds.flips'], `${ref.flips} of 12`, `${label}: draws with B ahead`);
  eq(v['seeds.significant'].split(' ')[0], String(ref.significant), `${label}: repeated draws with p < 0.05`);
  const rep = r.repeatsReport.result.comparisons;
  rep.forEach((c, i) => close(c.p_value, ref.repeat_p[i], `${label}: draw ${i + 1}'s p`));
  const pairs = Object.fromEntries(r.six.report.result.comparisons.map((c) => [`${c.a}-${c.b}`, [c.p_value, c.p_adjusted]]));
  for (const [k, [p, adj]] of Object.entries(ref.trap_first)) {
    close(pairs[k][0], p, `${label}: ${k} p`);
    close(pairs[k][1], adj, `${label}: ${k} Holm`);
  }
  const raw = ref.trap_tally.filter(([a]) => a > 0).length;
  const holm = ref.trap_tally.filter(([, b]) => b > 0).length;
  eq(v['seeds.trap_raw'], String(raw), `${label}: experiments with some pair p < 0.05`);
  eq(v['seeds.trap_holm'], String(holm), `${label}: … after Holm`);
  eq(v['seeds.trap_one'], `${ref.trap_tally[0][0]} uncorrected, ${ref.trap_tally[0][1]} after Holm`, `${label}: this experiment's counts`);
  return { v, st, raw, holm };
}

/** The forget-quality topic against one REFS.fq case (and the curve against REFS.sweep). */
async function fqEqualsRefs(page, t, ref, label) {
  const st = await state(page, 'forget-quality');
  const v = await shown(t);
  eq(st.request.n, ref.n, `${label}: n`);
  close(st.request.median, ref.median, `${label}: median`, 0);
  close(st.request.spread, ref.spread, `${label}: spread`);
  const ks = st.result.report.result.ks;
  close(ks.pvalue, ref.p, `${label}: KS p-value (scipy ks_2samp)`);
  close(ks.statistic, ref.d, `${label}: KS D`);
  close(ks.statistic_location, ref.location, `${label}: where D is attained`);
  eq(v['fq.p'].split(' ')[0], fmt(ref.p), `${label}: forget quality shown`);
  eq(v['fq.d'], fmt(ref.d), `${label}: D shown`);
  eq(v['fq.median_u'], fmt(ref.median_u), `${label}: the unlearned model's median`);
  eq(v['fq.median_r'], fmt(ref.median_r), `${label}: the retain model's median`);
  const key = `${ref.seed}/${ref.n}/${ref.spread}`;
  if (REFS.sweep[key]) {
    eq(st.sweep.length, REFS.sweep[key].length, `${label}: points of the curve`);
    st.sweep.forEach((s, i) => {
      close(s.median, REFS.sweep[key][i][0], `${label}: curve point ${i}'s median`, 0);
      close(s.p, REFS.sweep[key][i][1], `${label}: curve point ${i}'s forget quality`);
    });
  }
  return { v, st };
}

/** The SVG texts of `root`'s charts that run past their chart. */
function textOverflow(sel) {
  const out = [];
  let texts = 0;
  for (const svg of document.querySelectorAll(`${sel} .lethe-plot-holder svg`)) {
    const b = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim() || !t.getClientRects().length) continue;
      texts++;
      const r = t.getBoundingClientRect();
      const past = Math.max(b.left - r.left, r.right - b.right, b.top - r.top, r.bottom - b.bottom);
      if (past > 0.5) out.push(`"${t.textContent.slice(0, 40)}" ${past.toFixed(0)} px past "${svg.getAttribute('aria-label')?.slice(0, 50)}"`);
    }
  }
  return { out, texts };
}

/** Layout shift in a host page while <lethe-eval mode="teach" topic> loads and builds (as host.test.mjs measures). */
async function shiftOf(context, base, id) {
  const text = Array.from({ length: 12 }, (_, k) => `<p>Paragraph ${k + 1} after the element: the host's own text, which must not move while the element loads.</p>`).join('');
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Host</title><link rel="icon" href="data:,"><style>body { margin: 0 auto; padding: 8px; font: 16px/1.5 system-ui, sans-serif; }
lethe-eval:not(:defined) { display: block; min-height: min(100vh, 1600px); }</style>
<script>window.__shifts = []; new PerformanceObserver((l) => l.getEntries().forEach((e) => e.hadRecentInput || window.__shifts.push(e.value))).observe({ type: 'layout-shift', buffered: true });</script>
<script type="module" src="./src/lethe-eval.js"></script></head><body><h1>A documentation page</h1><p>Some text before the element.</p><lethe-eval id="el" mode="teach" topic="${id}"></lethe-eval>${text}</body></html>`;
  await context.route(`${base}/cls-${id}.html`, (r) => r.fulfill({ status: 200, contentType: 'text/html', body: html }));
  const page = await open(context, base, `/cls-${id}.html`, { width: 1000, height: 800 });
  await page.waitForFunction((i) => document.getElementById('el').shadowRoot?.querySelector(`[data-topic="${i}"]`)?.dataset.version, id, { timeout: 300000 });
  // Until the height has not changed for 1.5 s.
  await page.evaluate(() => new Promise((resolve) => {
    const el = document.getElementById('el');
    let h = -1;
    let since = performance.now();
    const tick = () => {
      const now = el.getBoundingClientRect().height;
      if (now !== h) (h = now), (since = performance.now());
      if (performance.now() - since > 1500) resolve();
      else setTimeout(tick, 100);
    };
    tick();
  }));
  const shifts = await page.evaluate(() => window.__shifts);
  assert(page.errors.length === 0, page.errors.join('; '));
  await page.close();
  return shifts.reduce((a, b) => a + b, 0);
}

export const tests = [
  {
    name: 'one seed is not a result: seeds, redraw and the true difference from the keyboard; intervals, Welch, Mann–Whitney, the permutation test and Holm equal scipy/statsmodels',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page, 'seeds');
      await t.scrollIntoViewIfNeeded();
      await drawn(t);
      const d = await seedsEqualRefs(page, t, REFS.seeds[0], '3 seeds');
      assert(/inconclusive/i.test(d.v['seeds.call']), `3 seeds: the call is inconclusive: ${d.v['seeds.call']}`);
      await t.screenshot({ path: path.join(SHOTS, 'teach-seeds.png') });

      await choose(page, t, 'seeds', '10');
      const ten = await seedsEqualRefs(page, t, REFS.seeds[1], '10 seeds');
      assert(ten.raw > ten.holm, `the trap: more experiments with a false “significant” pair uncorrected (${ten.raw}) than after Holm (${ten.holm})`);
      const w3 = (s) => s.one.report.result.metrics[0].summaries.find((x) => x.method === 'A' && x.task == null).t_interval;
      const narrower = w3(ten.st.result).hi - w3(ten.st.result).lo < w3(d.st.result).hi - w3(d.st.result).lo;
      assert(narrower, 'ten seeds give A a narrower interval than three');

      const v0 = await version(t);
      await t.locator('[data-action=redraw]').click();
      await redrawn(t, v0);
      await seedsEqualRefs(page, t, REFS.seeds[2], 'redrawn (seed 1)');

      await press(page, t, t.locator('[data-param=difference]'), 'ArrowRight', 4);
      const moved = await seedsEqualRefs(page, t, REFS.seeds[3], 'difference 1.2');
      await t.screenshot({ path: path.join(SHOTS, 'teach-seeds-10.png') });
      const roles = await t.locator('figure svg').evaluateAll((els) => els.map((e) => e.getAttribute('role')));
      assert(roles.length === 3 && roles.every((r) => r === 'img'), `three figures, each an image: ${roles}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `3 seeds: p ${d.v['seeds.p']} (${d.v['seeds.call'].slice(0, 40)}…); 10 seeds: trap ${ten.raw}/20 uncorrected vs ${ten.holm}/20 Holm; d = 1.2: p ${moved.v['seeds.p']}, B ahead in ${moved.v['seeds.flips']}`;
    },
  },
  {
    name: 'forget quality: the unlearned model moved past the retain model, questions and spread from the keyboard; the KS p-value, D and the whole curve equal scipy ks_2samp',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page, 'forget-quality');
      await t.scrollIntoViewIfNeeded();
      await drawn(t);
      const more = await fqEqualsRefs(page, t, REFS.fq[0], 'median 1.2');
      await t.screenshot({ path: path.join(SHOTS, 'teach-forget-quality.png') });
      await press(page, t, t.locator('[data-param=median]'), 'ArrowLeft', 15);
      const match = await fqEqualsRefs(page, t, REFS.fq[1], 'median 0.6 (the retain model’s)');
      // The point of the topic: the model that looks more forgotten scores the worse forget quality.
      const mu = (x) => x.st.result.unlearned.slice().sort((a, b) => a - b)[200];
      assert(mu(more) > mu(match), 'the first model looks more forgotten (higher truth ratios)');
      assert(more.st.result.report.result.forget_quality < match.st.result.report.result.forget_quality / 100, `…and scores a far worse forget quality: ${more.v['fq.p']} vs ${match.v['fq.p']}`);
      const best = match.st.sweep.reduce((a, b) => (b.p > a.p ? b : a));
      assert(best.median > 0.45 && best.median < 0.8, `the curve peaks near the retain model's median 0.6: ${best.median}`);
      await choose(page, t, 'n', '40');
      await page.waitForFunction(() => window.letheTeach.topics['forget-quality'].state().sweep?.key === '40/0.5/0', null, { timeout: 60000 });
      await fqEqualsRefs(page, t, REFS.fq[2], '40 questions');
      await press(page, t, t.locator('[data-param=spread]'), 'ArrowRight', 4);
      await fqEqualsRefs(page, t, REFS.fq[3], 'spread 0.7');
      assert(/forget quality/i.test(await t.locator('[data-value="fq.call"]').textContent()), 'the layer’s headline is shown');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `median 1.20: FQ ${more.v['fq.p']} (D ${more.v['fq.d']}); at the retain model's median: FQ ${match.v['fq.p']}; curve peaks at ${best.median}`;
    },
  },
  {
    name: 'the two new topics: no SVG text past its chart at 320, 375 and 688 px, no horizontal overflow, dark mode screenshots',
    async fn({ context, base }) {
      const bad = [];
      const seen = [];
      for (const width of [320, 375, 688]) {
        const page = await teachPage(context, base, { width });
        for (const id of ['seeds', 'forget-quality']) {
          const t = topic(page, id);
          await t.scrollIntoViewIfNeeded();
          await drawn(t);
          await page.waitForTimeout(300);
          const o = await page.evaluate(textOverflow, `#lethe-teach-${id}`);
          bad.push(...o.out.map((x) => `${id} ${width}: ${x}`));
          seen.push(`${id}@${width}: ${o.texts} texts`);
          if (width === 375) await t.screenshot({ path: path.join(SHOTS, `teach-${id}-375.png`) });
        }
        const overflow = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
        assert(overflow.doc <= overflow.view, `${width} px: horizontal overflow ${JSON.stringify(overflow)}`);
        assert(page.errors.length === 0, page.errors.join('; '));
        await page.close();
      }
      assert(bad.length === 0, `${bad.length} texts past their chart: ${bad.slice(0, 20).join(' · ')}`);
      await context.emulateMedia?.({ colorScheme: 'dark' });
      const dark = await teachPage(context, base, { width: 900 });
      await dark.emulateMedia({ colorScheme: 'dark' });
      for (const id of ['seeds', 'forget-quality']) {
        const t = topic(dark, id);
        await t.scrollIntoViewIfNeeded();
        await drawn(t);
        await t.screenshot({ path: path.join(SHOTS, `teach-${id}-dark.png`) });
      }
      return seen.join('; ');
    },
  },
  {
    name: '<lethe-eval mode="teach" topic="seeds"> and topic="forget-quality": one topic each, layout shift below 0.05 while they build',
    async fn({ context, base }) {
      const rows = [];
      for (const id of ['seeds', 'forget-quality']) {
        const s = await shiftOf(context, base, id);
        rows.push(`${id}: ${s.toFixed(3)}`);
        assert(s < 0.05, `layout shift of topic ${id}: ${s}`);
      }
      return rows.join('; ');
    },
  },
];
