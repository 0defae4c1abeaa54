// The ε lower bound section of the Membership audit panel (issue 13 item 3): computed after each audit from the same
// member and non-member scores, and
//   * on the built-in example (the digits demo's LiRA-style scores), the section's exported JSON report equals
//     `target/release/lethe eps-lower mia_scores.npz#…@0..144 mia_scores.npz#…@144..503 --json` (result, inputs,
//     parameters, headline, warnings, version, command);
//   * a change of δ clears the bound shown (its headline and export gone, a note says why), the panel's own results
//     stay; computed again, it equals `lethe eps-lower … --delta 1e-5`;
//   * on uploaded score files: the GDP estimate at 99% confidence, the one-run audit with guesses, and the
//     Clopper–Pearson bound with privacy-estimates' rule each equal the CLI's report on the same files; too few
//     scores give "inconclusive" with the sample size needed, as the CLI; the one-run audit from counts alone equals
//     `lethe eps-lower --one-run M,R,V`; picking other scores clears the bound;
//   * screenshots at 1280 and 375 px (target/screenshots/eps-section*.png), nothing past the section's right edge.
import path from 'node:path';
import { ROOT, SHOTS, assert, cli, compare, downloadJson, eq, npy, open, rng, runDone, slot, waitExample, workdir, write } from './lib.mjs';
import { EXAMPLE } from '../../www/src/panels/mia.js';

/** n normal draws (Box–Muller on the seeded generator), shifted by `mu`, rounded to 4 decimals. */
function normals(u, n, mu) {
  const out = [];
  while (out.length < n) {
    const r = Math.sqrt(-2 * Math.log(1 - u()));
    const t = 2 * Math.PI * u();
    out.push(Math.round((mu + r * Math.cos(t)) * 10000) / 10000);
  }
  return out;
}

/** Waits for the section's bound (its headline) and returns the section's progress text. */
async function bound(eps, timeout = 60000) {
  await eps.locator('.lethe-eps-progress').filter({ hasText: /done in|failed/ }).waitFor({ timeout });
  const t = await eps.locator('.lethe-eps-progress').textContent();
  assert(/done in/.test(t), `the bound was not computed: ${t} ${await eps.locator('.lethe-error').allTextContents()}`);
  await eps.locator('[data-value="eps.headline"]').waitFor({ timeout: 5000 });
  return t;
}

/** The section's report against the CLI's: everything but the page's own fields (`computed_by`, `cli_equivalent`). */
function same(report, c, at) {
  // wasm32's libm and glibc may differ in the last ulp; the Clopper–Pearson bounds invert the beta distribution
  // iteratively and carry such an ulp further (as in mia.test.mjs).
  const r = compare(report.result, c.result, { rel: 1e-9, abs: 1e-15, at: `${at}.result` });
  assert(r.diffs.length === 0, `${at}: result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
  for (const k of ['inputs', 'parameters']) {
    const d = compare(report[k], c[k], { at: `${at}.${k}` });
    assert(d.diffs.length === 0, `${at}: ${k} differ from the CLI:\n${d.diffs.slice(0, 8).join('\n')}`);
  }
  eq(JSON.stringify(report.headline), JSON.stringify(c.headline), `${at}: headline`);
  eq(JSON.stringify(report.warnings), JSON.stringify(c.warnings), `${at}: warnings`);
  eq(report.lethe_version, c.lethe_version, `${at}: version`);
  eq(report.command, 'eps-lower', `${at}: command`);
  return r;
}

/** Fills a number field and tells the page (as typing does). */
async function set(eps, key, value) {
  await eps.locator(`[data-param="${key}"]`).fill(String(value));
}

/** Nothing of the section past its right edge (px). */
const overflow = (eps) =>
  eps.evaluate((el) => {
    const right = el.getBoundingClientRect().right;
    return [...el.querySelectorAll('*')].filter((e) => e.getClientRects().length).map((e) => Math.round(e.getBoundingClientRect().right - right)).filter((d) => d > 1);
  });

export const tests = [
  {
    name: 'ε lower bound on the built-in example equals `lethe eps-lower --json`; a change of δ clears it, computed again it equals `--delta 1e-5`',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page, 60000);
      const mia = page.locator('#lethe-mia[data-panel]');
      const eps = mia.locator('#lethe-eps[data-panel]');
      await mia.locator('[data-value="headline"]').waitFor({ timeout: 30000 });
      await bound(eps);
      const x = EXAMPLE;
      const m = `${x.file}#${x.score}@${x.members}`;
      const n = `${x.file}#${x.score}@${x.non_members}`;
      const dir = path.join(ROOT, 'examples/data/digits');
      const c = cli(['eps-lower', m, n], dir);
      const report = await downloadJson(page, eps.locator('[data-action="eps-export-json"]'));
      const r = same(report, c, 'example');
      eq(await eps.locator('[data-value="eps.headline.text"]').textContent(), c.headline.text, 'headline shown');
      assert(/at 95% confidence \(δ = 0\)/.test(c.headline.text), `the headline states ε, δ and the confidence: ${c.headline.text}`);
      eq(report.cli_equivalent, `lethe eps-lower ${m} ${n} --method clopper-pearson --rule jax-privacy --significance 0.05 --delta 0 --json`, 'cli line');

      // δ changed: the bound is cleared (the audit's own results stay), and computed again for the new δ.
      await set(eps, 'eps-delta', '1e-5');
      await eps.locator('[data-value="eps.cleared"]').waitFor({ timeout: 5000 });
      eq(await eps.locator('[data-value="eps.headline"]').count(), 0, 'no headline after δ changed');
      eq(await eps.locator('[data-action="eps-export-json"]').count(), 0, 'no export after δ changed');
      eq(await eps.locator('.lethe-stale-note').count(), 1, 'one note: cleared, not also out of date');
      assert(/“δ” changed/.test(await eps.locator('[data-value="eps.cleared"]').textContent()), 'the note says δ changed');
      eq(await mia.locator('[data-value="headline"]').count(), 1, 'the audit’s results stay');
      eq(await mia.locator('.lethe-results').first().getAttribute('data-stale'), null, 'the audit is not out of date');
      await eps.locator('[data-action="eps-run"]').click();
      await bound(eps);
      const c2 = cli(['eps-lower', m, n, '--delta', '1e-5'], dir);
      const report2 = await downloadJson(page, eps.locator('[data-action="eps-export-json"]'));
      const r2 = same(report2, c2, 'example δ = 1e-5');
      eq(report2.parameters.delta, 1e-5, 'δ recorded');

      await page.setViewportSize({ width: 1280, height: 1000 });
      await eps.scrollIntoViewIfNeeded();
      await eps.screenshot({ path: path.join(SHOTS, 'eps-section.png') });
      await page.setViewportSize({ width: 375, height: 900 });
      await page.waitForTimeout(300);
      const over = await overflow(eps);
      await eps.screenshot({ path: path.join(SHOTS, 'eps-section-375.png') });
      eq(over.length, 0, `elements past the section's right edge at 375 px by ${over.join(', ')} px`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${r.compared + r2.compared} numbers equal the CLI's (${r.inexact + r2.inexact} in the last bits, max rel ${Math.max(r.maxRel, r2.maxRel)}); ${c.headline.text} | δ = 1e-5: ${c2.headline.text}; screenshots eps-section.png, eps-section-375.png`;
    },
  },
  {
    name: 'ε lower bound on uploaded score files: GDP at 99%, one-run with guesses, privacy-estimates, too few scores (inconclusive, sample size needed) and one-run counts equal `lethe eps-lower --json`',
    async fn({ context, base }) {
      const dir = workdir();
      const u = rng(31);
      write(dir, 'members.npy', npy(normals(u, 1500, 1.2), [1500]));
      write(dir, 'non_members.npy', npy(normals(u, 2500, 0), [2500]));
      write(dir, 'few_members.npy', npy([2.1, 1.7, 3.3, 0.4, 2.9], [5]));
      write(dir, 'few_non_members.npy', npy([-0.3, 0.2, -1.1, 0.8, -0.6, 0.1], [6]));
      const page = await open(context, base, '/?example=0');
      const mia = page.locator('#lethe-mia[data-panel]');
      await mia.waitFor({ timeout: 30000 });
      const eps = mia.locator('#lethe-eps[data-panel]');
      await slot(mia, 'members').pick(path.join(dir, 'members.npy'));
      await slot(mia, 'non_members').pick(path.join(dir, 'non_members.npy'));
      await slot(mia, 'non_members').status().filter({ hasText: '2500 × 1' }).waitFor({ timeout: 15000 });
      await eps.locator('[data-param="eps-method"]').selectOption('gdp');
      await set(eps, 'eps-delta', '1e-5');
      await set(eps, 'eps-confidence', '99');
      await runDone(mia);
      await bound(eps);
      const notes = [];
      const check = async (args, at) => {
        const c = cli(['eps-lower', ...args], dir);
        const report = await downloadJson(page, eps.locator('[data-action="eps-export-json"]'));
        same(report, c, at);
        eq(await eps.locator('[data-value="eps.headline.text"]').textContent(), c.headline.text, `${at}: headline shown`);
        notes.push(`${at}: ${c.headline.text}`);
        return c;
      };
      await check(['members.npy', 'non_members.npy', '--method', 'gdp', '--delta', '1e-5', '--significance', '0.01'], 'gdp');

      // The one-run audit: without the number of guesses the section says what to give.
      await eps.locator('[data-param="eps-method"]').selectOption('one-run');
      await eps.locator('[data-value="eps.cleared"]').waitFor({ timeout: 5000 });
      await eps.locator('[data-action="eps-run"]').click();
      await eps.locator('.lethe-eps-progress').filter({ hasText: 'failed' }).waitFor({ timeout: 10000 });
      const msg = await eps.locator('.lethe-error').first().textContent();
      assert(/number of guesses/.test(msg) && !/guess_members|--guess/.test(msg), `the missing guesses named in the page's words: ${msg}`);
      await set(eps, 'eps-guess-members', '300');
      await set(eps, 'eps-guess-non-members', '200');
      await eps.locator('[data-action="eps-run"]').click();
      await bound(eps);
      await check(['members.npy', 'non_members.npy', '--method', 'one-run', '--guess-members', '300', '--guess-non-members', '200', '--delta', '1e-5', '--significance', '0.01'], 'one-run');

      // Clopper–Pearson with privacy-estimates' rule, both directions (under More options).
      await eps.locator('[data-param="eps-method"]').selectOption('clopper-pearson');
      await eps.locator('[data-role="eps-more"] > summary').click();
      await eps.locator('[data-param="eps-rule"]').selectOption('privacy-estimates');
      await set(eps, 'eps-confidence', '95');
      await eps.locator('[data-action="eps-run"]').click();
      await bound(eps);
      await check(['members.npy', 'non_members.npy', '--rule', 'privacy-estimates', '--delta', '1e-5'], 'privacy-estimates');

      // Other scores picked: the bound is cleared; audited again, too few scores are inconclusive, with the size needed.
      await slot(mia, 'members').pick(path.join(dir, 'few_members.npy'));
      await eps.locator('[data-value="eps.cleared"]').waitFor({ timeout: 10000 });
      assert(/scores above changed/.test(await eps.locator('[data-value="eps.cleared"]').textContent()), 'the note says the scores changed');
      await slot(mia, 'non_members').pick(path.join(dir, 'few_non_members.npy'));
      await slot(mia, 'non_members').status().filter({ hasText: '6 × 1' }).waitFor({ timeout: 15000 });
      await runDone(mia);
      await bound(eps);
      const c = await check(['few_members.npy', 'few_non_members.npy', '--rule', 'privacy-estimates', '--delta', '1e-5'], 'too few');
      eq(c.headline.call, 'inconclusive', 'five members and six non-members are too few');
      assert(c.result.examples_needed > 6, `the size needed is stated: ${c.result.examples_needed}`);
      eq(await eps.locator('[data-value="eps.examples_needed"]').textContent(), String(c.result.examples_needed), 'size needed shown');
      assert(/at least \d+ members/.test(await eps.locator('[data-value="eps.headline.reason"]').textContent()), 'the reason names the size needed');
      await page.setViewportSize({ width: 1280, height: 1200 });
      await eps.scrollIntoViewIfNeeded();
      await eps.screenshot({ path: path.join(SHOTS, 'eps-section-inconclusive.png') });

      // The one-run audit from counts alone.
      await eps.locator('[data-role="eps-counts"] > summary').click();
      await set(eps, 'eps-m', '1000');
      await set(eps, 'eps-r', '100');
      await set(eps, 'eps-v', '96');
      await eps.locator('[data-action="eps-counts"]').click();
      await bound(eps);
      await check(['--one-run', '1000,100,96', '--delta', '1e-5'], 'one-run counts');
      // The options a one-run audit shows, both boxes open: at 1280 and 375 px, nothing past the section's edge.
      await eps.locator('[data-param="eps-method"]').selectOption('one-run');
      await page.setViewportSize({ width: 1280, height: 1400 });
      await eps.scrollIntoViewIfNeeded();
      await eps.screenshot({ path: path.join(SHOTS, 'eps-section-options.png') });
      await page.setViewportSize({ width: 375, height: 900 });
      await page.waitForTimeout(300);
      const over = await overflow(eps);
      await eps.screenshot({ path: path.join(SHOTS, 'eps-section-options-375.png') });
      eq(over.length, 0, `elements past the section's right edge at 375 px by ${over.join(', ')} px`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return notes.join(' | ');
    },
  },
];
