// Issue 22, the scenarios whose CLI tests (cli/tests/ruler_controls.rs, competition_controls.rs, mia.rs, lira.rs) had
// no browser test beside them (controls.test.mjs holds the first ones). Each drives the page as a person would — files
// written here and chosen with the file picker, options picked, Run — and checks that the page shows the warning or
// the refusal in the page's words (no command-line options, no codes from the program) and that the headline makes
// no call the data cannot support; each also runs a case that must not warn (or must call), so that each can fail:
// 1. RULER: the unlearned model given as the oracle's file is named (unlearned_is_oracle).
// 2. RULER: the oracle as m4's negative control: near-copies that every model (the oracle too) keeps read as
//    "residual memorisation" without the oracle, and inconclusive with it (m4_null_does_not_hold).
// 3. RULER: the original model as m4's positive control: on the digits example the original itself shows no sign of
//    the forget records, so m4 cannot detect memorisation (m4_cannot_detect); an original that memorises gives no
//    such warning.
// 4. RULER: five runs where m3 is 0 in every run: m3 not tested, m2 and m4 still tested, no NaN (metric_not_tested).
// 5. The competition score: a models × examples file given transposed (more_models_than_examples).
// 6. The membership audit: members and non-members that are the same rows of one file are refused
//    (members_are_non_members); overlapping rows are counted (members_non_members_overlap) in the page's words.
// 7. The membership audit with "a lower score means member": thresholds shown in the scores' units (losses), not
//    negated.
// 8. LiRA given a .npz that also holds `target` and `member` arrays: named, not ignored (lira_arrays_unused).
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, assert, cli, eq, fmt, npy, open, rng, runDone, scratch, slot, waitRun, write } from './lib.mjs';

// Each test's scratch directory (a copy of the digits example's files, 5.7 MB) is removed when the test ends.
const { workdir, cleaned } = scratch();

// What a message on the page must not hold: the command line's options and syntax, the program's identifiers and
// codes (trust.test.mjs's DEV_WORDS, and the warning codes of these scenarios), and non-numbers.
const DEV_WORDS =
  /--[a-z]|\{(opt|cmd):|SdMethod|::|Some\(|None\b|unwrap|panicked|serde|JsValue|\[object Object\]|undefined|\bNaN\b|\binf\b|\b[A-Z]{3,}@|`[a-z]+_[a-z_]+`|\b(unlearned_is_oracle|unlearned_is_original|m4_null_does_not_hold|m4_cannot_detect|metric_not_tested|more_models_than_examples|members_are_non_members|members_non_members_overlap|lira_arrays_unused|representation_shift|calibration_gap|nn_percentile_rank)\b/;
const pageWords = (text, what) => {
  const m = DEV_WORDS.exec(text);
  assert(!m, `${what} is not in the page's words (“${m?.[0]}”): ${text}`);
};

/** Loads `files` of `dir` with the page's file picker and waits until the last one is read. */
async function load(page, dir, files) {
  await page.locator('[data-role="inputs-file"]').setInputFiles(files.map((f) => path.join(dir, f)));
  await page.locator(`.lethe-card[data-name="${files[files.length - 1]}"] .lethe-hash`).waitFor({ timeout: 15000 });
}

/** The warning with `code` shown in `panel` (next to its input or under the headline): its text, or null. */
async function shown(panel, code) {
  const w = panel.locator(`[data-code="${code}"]`);
  if ((await w.count()) === 0) return null;
  return (await w.evaluateAll((els) => els.map((e) => e.innerText))).join(' | ');
}

const headline = async (panel) => {
  const box = panel.locator('.lethe-results [data-value="headline"]');
  return { call: await box.getAttribute('data-call'), text: await box.innerText() };
};

/** Pseudo-random embeddings in [−1, 1) (seeded), n × d. */
const random = (n, d, seed) => {
  const u = rng(seed);
  return Array.from({ length: n * d }, () => u() * 2 - 1);
};
const [N, D] = [80, 8];
/** A model whose forget records (rows 0..20) are near-copies of retain records (rows 20..40): m4 near 1. */
const memorising = (seed) => {
  const v = random(N, D, seed);
  const noise = random(20, D, seed + 1000);
  for (let i = 0; i < 20; i++) for (let j = 0; j < D; j++) v[i * D + j] = v[(20 + i) * D + j] + 1e-3 * noise[i * D + j];
  return v;
};

/** RULER with one run: models by file name (oracle/original optional), forget and retain rows. */
async function ruler(page, { unlearned, oracle = '', original = '', forget, retain }) {
  const panel = page.locator('#lethe-ruler');
  // An optional model left out: the slot's "— none —".
  for (const [role, file] of [['unlearned', unlearned], ['oracle', oracle], ['original', original]]) {
    await panel.locator(`select[data-role="${role}"]`).first().selectOption(file ? { label: file } : { value: '' });
  }
  for (const [role, rows] of [['forget', forget], ['retain', retain]]) {
    if (/\.txt$/.test(rows)) await slot(panel, role).rowsFile(rows);
    else await slot(panel, role).rows(rows);
  }
  await runDone(panel);
  return panel;
}
const rulerCli = ({ unlearned, oracle, original, forget, retain }, dir) =>
  cli(['ruler', '--unlearned', unlearned, ...(oracle ? ['--oracle', oracle] : []), ...(original ? ['--original', original] : []), '--forget', forget, '--retain', retain], dir);

/** `models × examples` logit-scaled confidences (competition_controls.rs's `confidences`). */
const confidences = (models, examples, seed, lift) => {
  const out = [];
  for (let m = 0; m < models; m++) for (let e = 0; e < examples; e++) out.push(1 + 0.05 * e + Math.sin(((m + seed * 97) * 31 + e * 7) * 0.618) + lift * (e % 2));
  return out;
};

const cases = [
  {
    name: 'RULER: the unlearned model given as the oracle’s file is named, in the page’s words, and the headline says so (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      await page.locator('#lethe-ruler').waitFor();
      await load(page, dir, ['act_unlearned.npy', 'act_retrained.npy', 'act_original.npy', 'forget.txt', 'retain.txt']);
      const args = { unlearned: 'act_retrained.npy', oracle: 'act_retrained.npy', original: 'act_original.npy', forget: 'forget.txt', retain: 'retain.txt' };
      const panel = await ruler(page, args);
      const w = await shown(panel, 'unlearned_is_oracle');
      assert(w && /m1 is 1 and m2 is 0 by construction/.test(w), `the page names the oracle: ${w}`);
      pageWords(w, 'the warning');
      const hd = await headline(panel);
      const c = rulerCli(args, dir);
      eq(hd.call, c.headline.call, 'the page’s call is the CLI’s');
      assert(!['residual_memorisation', 'over_displaced', 'at_null'].includes(hd.call), `no call on the oracle itself: ${hd.call}`);
      assert(/the unlearned model is the oracle/.test(hd.text), `the headline names it: ${hd.text}`);
      pageWords(hd.text, 'the headline');
      // The model after unlearning (another file): no such warning.
      await ruler(page, { ...args, unlearned: 'act_unlearned.npy' });
      eq(await shown(panel, 'unlearned_is_oracle'), null, 'the real unlearned model is not the oracle');
      assert(!/the unlearned model is the oracle/.test((await headline(panel)).text), 'nor does the headline say so');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'RULER: the oracle is m4’s negative control: records every model keeps close read “residual memorisation” without it, inconclusive with it (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      write(dir, 'unlearned.npy', npy(memorising(1), [N, D]));
      write(dir, 'oracle.npy', npy(memorising(2), [N, D]));
      const page = await open(context, base, '/?example=0');
      await page.locator('#lethe-ruler').waitFor();
      await load(page, dir, ['unlearned.npy', 'oracle.npy']);
      const alone = { unlearned: 'unlearned.npy', forget: '0..20', retain: '20..80' };
      const panel = await ruler(page, alone);
      eq((await headline(panel)).call, 'residual_memorisation', 'without the oracle m4 calls memorisation');
      eq(rulerCli(alone, dir).headline.call, 'residual_memorisation', 'the CLI too');
      eq(await shown(panel, 'm4_null_does_not_hold'), null, 'no oracle, no control');
      const args = { ...alone, oracle: 'oracle.npy' };
      await ruler(page, args);
      const hd = await headline(panel);
      const c = rulerCli(args, dir);
      eq(hd.call, 'inconclusive', 'the oracle reads the same: no call');
      eq(hd.call, c.headline.call, 'the page’s call is the CLI’s');
      assert(/m4['’]s null does not hold on this data/.test(hd.text), `the headline says why: ${hd.text}`);
      pageWords(hd.text, 'the headline');
      const w = await shown(panel.locator('[data-slot="oracle"]'), 'm4_null_does_not_hold');
      assert(w, 'the warning is next to the oracle');
      pageWords(w, 'the warning');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'RULER: the original model is m4’s positive control: where it shows no sign of the forget records, m4 makes no call (digits example; = CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      write(dir, 'original.npy', npy(memorising(1), [N, D]));
      write(dir, 'unlearned.npy', npy(random(N, D, 1), [N, D]));
      write(dir, 'oracle.npy', npy(random(N, D, 5), [N, D]));
      const page = await open(context, base, '/?example=0');
      await page.locator('#lethe-ruler').waitFor();
      await load(page, dir, ['act_unlearned.npy', 'act_retrained.npy', 'act_original.npy', 'forget.txt', 'retain.txt', 'original.npy', 'unlearned.npy', 'oracle.npy']);
      const args = { unlearned: 'act_unlearned.npy', oracle: 'act_retrained.npy', original: 'act_original.npy', forget: 'forget.txt', retain: 'retain.txt' };
      const panel = await ruler(page, args);
      const hd = await headline(panel);
      const c = rulerCli(args, dir);
      eq(hd.call, 'inconclusive', 'm4 cannot see memorisation here: no call');
      eq(hd.call, c.headline.call, 'the page’s call is the CLI’s');
      assert(/m4 cannot detect memorisation on this data/.test(hd.text), `the headline says why: ${hd.text}`);
      pageWords(hd.text, 'the headline');
      const w = await shown(panel.locator('[data-slot="original"]'), 'm4_cannot_detect');
      assert(w && /6 or more seeds/.test(w), `the warning, with what would help, next to the original model: ${w}`);
      pageWords(w, 'the warning');
      const m4 = await panel.locator('[data-value="ruler.calls"] li[data-metric="m4"]').innerText();
      assert(/but m4 cannot detect memorisation on this data/.test(m4), `m4's own line: ${m4}`);
      // An original that keeps its forget records near retain records: m4 can see memorisation, the control passes,
      // and m4's reading of an unlearned model that forgot stands.
      const good = { unlearned: 'unlearned.npy', oracle: 'oracle.npy', original: 'original.npy', forget: '0..20', retain: '20..80' };
      await ruler(page, good);
      eq(await shown(panel, 'm4_cannot_detect'), null, 'an original that remembers passes the control');
      const hd2 = await headline(panel);
      eq(hd2.call, 'at_null', `m4's call stands: ${hd2.text}`);
      eq(hd2.call, rulerCli(good, dir).headline.call, 'the page’s call is the CLI’s');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'RULER: across five runs where m3 is 0 in every run, m3 is not tested and m2, m4 are; no NaN (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      const names = [];
      for (let k = 0; k < 5; k++) {
        write(dir, `model_${k}.npy`, npy(random(N, D, 10 + k), [N, D]));
        write(dir, `oracle_${k}.npy`, npy(random(N, D, 20 + k), [N, D]));
        names.push(`model_${k}.npy`, `oracle_${k}.npy`);
      }
      const page = await open(context, base, '/?example=0');
      const panel = page.locator('#lethe-ruler');
      await panel.waitFor();
      await load(page, dir, names);
      const add = panel.getByRole('button', { name: /Add a run/ });
      for (let k = 1; k < 5; k++) await add.click();
      for (let k = 0; k < 5; k++) {
        const run = panel.locator(`[data-run="${k}"]`);
        await slot(run, 'unlearned').choose(`model_${k}.npy`);
        await slot(run, 'oracle').choose(`oracle_${k}.npy`);
        await slot(run, 'original').choose(`model_${k}.npy`);
      }
      await slot(panel, 'forget').rows('0..20');
      await slot(panel, 'retain').rows('20..80');
      await panel.locator('[data-action="run"]').click();
      const t = await waitRun(panel);
      assert(/done in/.test(t), `five runs with m3 = 0 in each run to a report: ${t} ${await panel.locator('.lethe-error').allTextContents()}`);
      const args = ['ruler'];
      for (let k = 0; k < 5; k++) args.push('--unlearned', `model_${k}.npy`, '--oracle', `oracle_${k}.npy`, '--original', `model_${k}.npy`);
      const c = cli([...args, '--forget', '0..20', '--retain', '20..80'], dir);
      const hd = await headline(panel);
      eq(hd.call, 'inconclusive', 'five runs of an unlearned model that is its original: no call');
      eq(hd.call, c.headline.call, 'the page’s call is the CLI’s');
      const results = await panel.locator('.lethe-results').innerText();
      assert(!/\bNaN\b/.test(results), 'no NaN on the page');
      const m3 = await panel.locator('[data-value="ruler.calls"] li[data-metric="m3"]').innerText();
      assert(/not tested across the 5 runs: every run gives exactly 0/.test(m3), `m3's line says why it is not tested: ${m3}`);
      const w = await shown(panel, 'metric_not_tested');
      assert(w && /m3 is not tested across runs/.test(w) && /the other metrics are still tested/.test(w), `the warning: ${w}`);
      pageWords(w, 'the warning');
      const tested = await panel.locator('tr[data-key^="ruler.across."]').evaluateAll((rs) => rs.map((r) => r.dataset.key.replace('ruler.across.', '')));
      eq(JSON.stringify(tested), JSON.stringify(c.result.across_runs.map((m) => m.metric)), 'the metrics tested across runs are the CLI’s');
      eq(JSON.stringify(tested), JSON.stringify(['calibration_gap', 'nn_percentile_rank']), 'm2 and m4 are still tested, m3 is not');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'competition: a models × examples file given transposed is named next to the input, with the fix in the page’s words (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      write(dir, 'r_t.npy', npy(confidences(40, 16, 1, 0), [40, 16]));
      write(dir, 'u_t.npy', npy(confidences(40, 16, 2, 1.5), [40, 16]));
      write(dir, 'r.npy', npy(confidences(16, 40, 1, 0), [16, 40]));
      write(dir, 'u.npy', npy(confidences(16, 40, 2, 1.5), [16, 40]));
      const page = await open(context, base, '/?example=0');
      const eps = page.locator('#lethe-epsilon[data-panel]');
      await eps.waitFor({ timeout: 30000 });
      await load(page, dir, ['r_t.npy', 'u_t.npy', 'r.npy', 'u.npy']);
      await slot(eps, 'retrained').choose('r_t.npy');
      await slot(eps, 'unlearned').choose('u_t.npy');
      await runDone(eps);
      const w = await shown(eps.locator('[data-slot="retrained"]'), 'more_models_than_examples');
      assert(w && /40 models × 16 examples/.test(w) && /transposed/.test(w), `named next to the retrained models: ${w}`);
      pageWords(w, 'the warning');
      const c = cli(['epsilon', '--retrained', 'r_t.npy', '--unlearned', 'u_t.npy', '--variant', 'all'], dir);
      assert(c.warnings.some((x) => x.code === 'more_models_than_examples'), 'the CLI warns too');
      const hd = await headline(eps);
      eq(hd.text.replace(/\s+/g, ' '), c.headline.text, 'the page’s headline is the CLI’s');
      // Not "the score to report": F beside what a perfect unlearner scores with as many models, and the counts read.
      assert(/40 retrained and 40 unlearned models/.test(hd.text) && /a perfect unlearner/.test(hd.text) && !/the score to report/.test(hd.text), hd.text);
      pageWords(hd.text, 'the headline');
      // The same confidences the right way round: no warning.
      await slot(eps, 'retrained').choose('r.npy');
      await slot(eps, 'unlearned').choose('u.npy');
      await runDone(eps);
      eq(await shown(eps, 'more_models_than_examples'), null, '16 models × 40 examples is not named');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'membership audit: members and non-members that are the same rows are refused, overlapping rows counted, in the page’s words (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      write(dir, 'scores.npy', npy(Array.from({ length: 100 }, (_, i) => ((i * 0.37) % 1) + (i < 40 ? 1 : 0)), [100]));
      const page = await open(context, base, '/?example=0');
      const mia = page.locator('#lethe-mia[data-panel]');
      await mia.waitFor({ timeout: 30000 });
      await load(page, dir, ['scores.npy']);
      const choose = async (members, nonMembers) => {
        await slot(mia, 'members').choose('scores.npy');
        await slot(mia, 'members').rows(members);
        await slot(mia, 'non_members').choose('scores.npy');
        await slot(mia, 'non_members').rows(nonMembers);
      };
      await choose('0..40', '0..40');
      await mia.locator('[data-action="run"]').click();
      eq(await waitRun(mia), 'failed', 'the same rows on both sides: refused');
      const refusal = mia.locator('.lethe-error, [data-check="error"]').filter({ hasText: /the same 40 rows/ }).first();
      await refusal.waitFor({ timeout: 30000 });
      const text = await refusal.textContent();
      assert(/AUC of 0\.5 by construction/.test(text), `the refusal says why: ${text}`);
      pageWords(text, 'the refusal');
      eq(await mia.locator('.lethe-results [data-value="headline"]').count(), 0, 'no headline for a refused audit');
      assert(/members_are_non_members/.test(String(cliFails(['mia', 'scores.npy@0..40', 'scores.npy@0..40'], dir))), 'the CLI refuses it too');

      await choose('0..40', '30..100');
      await runDone(mia);
      const w = await shown(mia, 'members_non_members_overlap');
      assert(w && /10 of the 40 members' rows are also among the 70 non-members' rows/.test(w) && /disjoint rows/.test(w), `counted, with the fix: ${w}`);
      pageWords(w, 'the warning');
      const c = cli(['mia', 'scores.npy@0..40', 'scores.npy@30..100'], dir);
      const hd = await headline(mia);
      eq(hd.call, c.headline.call, 'the page’s call is the CLI’s');
      // Disjoint rows of one file: no warning.
      await choose('0..40', '40..100');
      await runDone(mia);
      eq(await shown(mia, 'members_non_members_overlap'), null, 'disjoint rows are not counted as shared');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'membership audit, “a lower score means member”: the thresholds shown are losses, as the CLI gives them, not negated',
    async fn({ context, base }) {
      const dir = workdir();
      // Members' losses 0..0.49, non-members' 0.3..1.09 (mia.rs's lower_is_member_thresholds_are_in_the_scores_units).
      write(dir, 'loss_members.csv', Array.from({ length: 50 }, (_, i) => `${0.01 * i}`).join('\n') + '\n');
      write(dir, 'loss_non_members.csv', Array.from({ length: 80 }, (_, i) => `${0.3 + 0.01 * i}`).join('\n') + '\n');
      const page = await open(context, base, '/?example=0');
      const mia = page.locator('#lethe-mia[data-panel]');
      await mia.waitFor({ timeout: 30000 });
      await load(page, dir, ['loss_members.csv', 'loss_non_members.csv']);
      await slot(mia, 'members').choose('loss_members.csv');
      await slot(mia, 'non_members').choose('loss_non_members.csv');
      await mia.locator('[data-param=lower_is_member]').check();
      await mia.locator('[data-param=fpr]').fill('0.1');
      await runDone(mia);
      const c = cli(['mia', 'loss_members.csv', 'loss_non_members.csv', '--lower-is-member', '--fpr', '0.1'], dir);
      const hd = await headline(mia);
      eq(hd.call, 'distinguishes', `low losses are members: the attack tells them apart, not reversed: ${hd.text}`);
      eq(hd.call, c.headline.call, 'the page’s call is the CLI’s');
      // The balanced threshold: a loss between the two groups (members ≤ 0.49, non-members ≥ 0.3).
      const balanced = await mia.locator('tr[data-key="mia.balanced_accuracy"] td.lethe-note').innerText();
      const bt = Number(/at threshold (-?[\d.]+)/.exec(balanced)?.[1]);
      assert(bt >= 0.3 && bt <= 0.49, `the balanced threshold is a loss between the groups: ${balanced}`);
      assert(balanced.includes(`at threshold ${fmt(c.result.summary.balanced_threshold)}`), `the CLI's threshold ${c.result.summary.balanced_threshold}: ${balanced}`);
      // The threshold at FPR 0.1: the loss at or below which a row is flagged a member.
      const cells = await mia.locator('[data-value="mia.tpr_at_fpr"] tbody tr').evaluateAll((rs) => rs.map((r) => r.lastElementChild.textContent));
      eq(cells.length, c.result.tpr_at_fpr.length, 'one row per target FPR');
      cells.forEach((cell, k) => {
        const want = c.result.tpr_at_fpr[k].threshold;
        eq(cell, fmt(want), `threshold at FPR ${c.result.tpr_at_fpr[k].target_fpr} as the CLI's`);
        assert(Number(cell) >= 0 && Number(cell) <= 1.09, `a loss, not its negation: ${cell}`);
      });
      assert(/lower score = member/.test(await mia.locator('.lethe-params-line').first().innerText()), 'the page says which way the scores read');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'LiRA: a .npz that also holds `target` and `member` arrays gets them named as the file names them, with the fix (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      copyFileSync(path.join(ROOT, 'tests/fixtures/known_truth_mia/lira_stacked.npz'), path.join(dir, 'lira_stacked.npz'));
      const page = await open(context, base, '/?example=0');
      const mia = page.locator('#lethe-mia[data-panel]');
      await mia.waitFor({ timeout: 30000 });
      await mia.locator('[data-role="lira-open"] > summary').click();
      const lira = page.locator('#lethe-lira[data-panel]');
      await lira.waitFor({ timeout: 30000 });
      await lira.locator('[data-role="lira-files"]').setInputFiles(path.join(dir, 'lira_stacked.npz'));
      await lira.locator('[data-value="lira.summary"]').filter({ hasText: /Stacked arrays/ }).waitFor({ timeout: 30000 });
      await runDone(lira);
      const w = await shown(lira, 'lira_arrays_unused');
      assert(w, 'the arrays LiRA does not read are named on the page');
      const c = cli(['lira', '--scores', 'lira_stacked.npz#scores', '--keep', 'lira_stacked.npz#keep'], dir);
      assert(c.warnings.some((x) => x.code === 'lira_arrays_unused'), 'the CLI names them');
      // The arrays as the file names them: `target` is an array of this file, not SDE's “Target set”.
      assert(/\btarget\b/.test(w) && /\bmember\b/.test(w) && !/Target set/.test(w), `the arrays named as the file names them: ${w}`);
      assert(/membership audit/.test(w) && /by its number/.test(w), `the fix: ${w}`);
      pageWords(w.replace(/`(target|member)`/g, '$1'), 'the warning');
      const hd = await headline(lira);
      eq(hd.call, c.headline.call, 'the page’s call is the CLI’s');
      assert(/target model 7/.test(hd.text), `the headline says which model was audited (not the file's \`target\` array): ${hd.text}`);
      // mi_lira_2021's folder layout (one array per file): nothing to name.
      await lira.locator('[data-role="lira-dir"]').setInputFiles(path.join(ROOT, 'tests/fixtures/golden_lira/exp'));
      await lira.locator('[data-value="lira.summary"]').filter({ hasText: /16 with scores/ }).waitFor({ timeout: 30000 });
      await runDone(lira);
      eq(await shown(lira, 'lira_arrays_unused'), null, 'a folder has no arrays LiRA leaves unread');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
];

/** Runs the CLI expecting a refusal; its stderr. */
function cliFails(args, cwd) {
  try {
    cli(args, cwd);
  } catch (e) {
    return String(e.stderr || e.message);
  }
  throw new Error(`lethe ${args.join(' ')} should have refused`);
}

export const tests = cases.map((t) => ({ ...t, fn: cleaned(t.fn) }));
