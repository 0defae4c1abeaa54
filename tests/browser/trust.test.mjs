// Answers a first-time user can trust (issue 11, the page), each scenario from the user's side: load files written
// here, change things, run, read the headline and the warnings.
// 1. Results belong to what made them: a changed setting, a removed input or a failed run marks them out of date
//    (greyed, a note, downloads disabled) until the next run.
// 2. The built-in example's row ranges never carry over to a person's own file.
// 3. Checks run when an input changes, before Run, and say what is wrong next to the input concerned.
// 4. Every analysis shows its one headline first; the export carries `headline` and `warnings` at the top level.
// 5. Per-example ε and per-generation ROUGE-L are on the page, equal to the export.
// 6. Files of the same name are told apart; text files are not shown as parse errors.
// 7. A stopped SDE run says exactly what finished.
// 8. No developer words in the page's messages.
import { assert, downloadJson, eq, fmt, npy, open, rng, runDone, slot, waitExample, waitRun, workdir, write } from './lib.mjs';
import { say } from '../../www/src/panels/common.js';
import '../../www/src/panels/guard.js'; // the page's wordings once its panels are loaded

/** A rows × cols .npy of seeded uniform values. */
const matrix = (rows, cols, seed) => {
  const r = rng(seed);
  return npy(Array.from({ length: rows * cols }, () => r()), [rows, cols]);
};

const stale = (panel) => panel.locator('.lethe-results').getAttribute('data-stale');
const exportJson = (panel) => panel.locator('[data-action="export-json"]');
const card = (page, label) => page.locator(`.lethe-card[data-label="${label}"]`);

/** Words of the code that must not reach a person: role keys in backticks, type paths, debug output. */
const DEV_WORDS = /\{(opt|cmd):|`(in_training|out_of_training|it_pool|oot_pool|draw-from|retrained_logits|unlearned_logits)`|SdMethod|::|Some\(|None\b|unwrap|panicked|serde|JsValue|\[object Object\]|undefined|bad \w+ request|metric\.py would stop|compute_logit_scaled|\b(in_training|out_of_training)\b/;

export const tests = [
  {
    name: 'a changed setting, a removed input and a failed run mark results out of date, downloads disabled, until re-run',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page);
      const sde = page.locator('#lethe-sde');
      const ruler = page.locator('#lethe-ruler');
      eq(await stale(sde), null, 'fresh after the example');
      assert(await exportJson(sde).isEnabled(), 'export enabled on fresh results');

      // A parameter.
      await sde.locator('[data-param=shuffles]').fill('150');
      await sde.locator('[data-value="stale"]').filter({ hasText: /Out of date: “Shuffles T” changed/ }).waitFor();
      eq(await stale(sde), 'true', 'stale after a parameter change');
      assert(await exportJson(sde).isDisabled(), 'JSON download disabled while out of date');
      assert(await sde.locator('.lethe-plot-actions button').first().isDisabled(), 'plot downloads disabled while out of date');
      const opacity = await sde.locator('.lethe-results > .lethe-numbers, .lethe-results > .lethe-verdict').first().evaluate((e) => getComputedStyle(e).opacity);
      assert(Number(opacity) < 1, `results greyed (opacity ${opacity})`);
      await runDone(sde);
      eq(await stale(sde), null, 'fresh after the run');
      assert(await exportJson(sde).isEnabled(), 'export enabled again');
      eq((await downloadJson(page, exportJson(sde))).parameters.shuffles, 150, 'the export is the new run');

      // A selection (rows).
      await slot(sde, 'target').rows('0..80');
      await sde.locator('[data-value="stale"]').filter({ hasText: /Target set/ }).waitFor();

      // A failed run: the previous results stay greyed, not current.
      await slot(sde, 'target').rows('0..3');
      await sde.locator('[data-action="run"]').click();
      eq(await waitRun(sde), 'failed', 'the run fails');
      await sde.locator('[data-value="stale"]').filter({ hasText: /the last run failed/ }).waitFor();
      assert(await exportJson(sde).isDisabled(), 'export disabled after a failed run');

      // A removed input: RULER's original model (its slot empties).
      eq(await stale(ruler), null, 'RULER fresh');
      await card(page, 'act_original.npy').getByRole('button', { name: /Remove/ }).click();
      await ruler.locator('[data-value="stale"]').filter({ hasText: /removed/ }).waitFor();
      assert(await exportJson(ruler).isDisabled(), 'RULER export disabled after its input was removed');
      await runDone(ruler);
      eq(await stale(ruler), null, 'RULER fresh after a new run');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'the example’s row ranges do not carry over to a person’s own file (SDE slot and pools, RULER rows)',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/');
      await waitExample(page);
      const sde = page.locator('#lethe-sde');
      const ruler = page.locator('#lethe-ruler');
      // The case: a 569-row file; the example's in-training pool 144..544 would mix its rows.
      const mine = write(dir, 'mine.npy', matrix(569, 8, 1));
      await slot(sde, 'in_training').pick(mine);
      await slot(sde, 'in_training').status().filter({ hasText: '569 × 8' }).waitFor();
      eq(await sde.locator('[data-role="in_training-rows-mode"]').inputValue(), 'all', 'rows reset to all rows of the new file');
      const note = await sde.locator('[data-value="in_training.rows-reset"]').textContent();
      assert(/144\.\.244/.test(note) && /do not carry over/.test(note), `the slot says so: ${note}`);
      eq(await sde.locator('[data-role="it_pool-rows"]').inputValue(), '', 'in-training pool cleared');
      eq(await sde.locator('[data-role="oot_pool-rows"]').inputValue(), '', 'out-of-training pool cleared');
      const pools = await sde.locator('[data-value="pools.rows-reset"]').allTextContents();
      assert(pools.some((t) => t.includes('144..544')) && pools.some((t) => t.includes('544..744')), `the pools say so: ${pools.join(' | ')}`);
      // Rows a person typed are theirs: choosing another file keeps them.
      await slot(sde, 'target').rows('0..50');
      await sde.locator('select[data-role="target"]').selectOption({ label: 'mine.npy' });
      eq(await sde.locator('[data-role="target-rows"]').inputValue(), '0..50', 'typed rows kept');
      eq(await sde.locator('[data-value="target.rows-reset"]').count(), 0, 'no reset note for typed rows');

      // RULER: the example's forget/retain ranges are cleared for the person's embeddings.
      await slot(ruler, 'unlearned').pick(mine);
      await ruler.locator('[data-value="forget.rows-reset"]').filter({ hasText: '0..144' }).waitFor();
      eq(await ruler.locator('[data-role="forget-rows"]').inputValue(), '', 'forget rows cleared');
      eq(await ruler.locator('[data-role="retain-rows"]').inputValue(), '', 'retain rows cleared');
      await ruler.locator('[data-action="run"]').click();
      eq(await waitRun(ruler), 'failed', 'RULER asks for rows instead of running on the example’s');
      await ruler.locator('[data-error-for="forget"]').filter({ hasText: /choose the rows/ }).waitFor();

      // The notes say what the page did; once the person chooses rows themselves they go (they said "all its rows
      // are used" beside the index file the person had just picked).
      await slot(sde, 'in_training').rows('0..100');
      eq(await sde.locator('[data-value="in_training.rows-reset"]').count(), 0, 'the slot’s note goes once rows are chosen');
      assert(pools.every((t) => /own rows are used/.test(t)), `empty pools are not an error: ${pools.join(' | ')}`);
      await sde.locator('[data-role="it_pool-rows"]').fill('0..300');
      const left = await sde.locator('[data-value="pools.rows-reset"]').allTextContents();
      assert(left.length === 1 && left[0].includes('544..744'), `only the untouched pool’s note is left: ${left.join(' | ')}`);
      // A person's own forget.txt beside the example's: theirs keeps the plain name and the example's is marked, so
      // the "forget.txt" a person picks is theirs (it was "forget.txt (2)", and "forget.txt" the example's 144 rows).
      await page.locator('[data-role="inputs-file"]').setInputFiles(write(workdir(), 'forget.txt', '3\n4\n5\n'));
      await card(page, 'forget.txt (built-in example)').waitFor();
      const own = await card(page, 'forget.txt').getAttribute('data-source');
      await slot(ruler, 'forget').rowsFile('forget.txt');
      eq(await ruler.locator('[data-role="forget-rows-source"]').inputValue(), own, '“forget.txt” is the person’s file');
      const sources = await ruler.locator('[data-role="forget-rows-source"] option').allTextContents();
      assert(sources.includes('forget.txt (built-in example)'), `the example’s file is marked: ${sources.join(' | ')}`);
      eq(await ruler.locator('[data-value="forget.rows-reset"]').count(), 0, 'RULER’s note goes once rows are chosen');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'the built-in example’s files beside a person’s own are refused before a number (SDE, RULER’s index files, the audit)',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/');
      await waitExample(page);
      // A person replaces one SDE input with their own 128-wide activations: the other two are still the example's
      // (the page opens with them chosen). The run gave "target[0] looks out of training" on that mix.
      const sde = page.locator('#lethe-sde');
      await slot(sde, 'in_training').pick(write(dir, 'own.npy', matrix(300, 128, 3)));
      await slot(sde, 'in_training').rows('0..100');
      await slot(sde, 'in_training').status().filter({ hasText: '100 × 128 · float64 · own.npy' }).waitFor();
      await sde.locator('[data-action="run"]').click();
      eq(await waitRun(sde), 'failed', 'SDE refuses the mix');
      const msg = await sde.locator('[data-error-for="out_of_training"]').textContent();
      assert(/“Out-of-training reference” and “Target set” still come from the built-in example \(act_unlearned\.npy\), beside your own own\.npy/.test(msg) && !DEV_WORDS.test(msg), `SDE: ${msg}`);
      eq(await stale(sde), 'true', 'the example’s result is not taken for the new run');
      // RULER on a person's embeddings with the example's forget.txt / retain.txt as index files.
      const ruler = page.locator('#lethe-ruler');
      for (const [role, seed] of [['unlearned', 4], ['oracle', 5], ['original', 6]]) {
        await slot(ruler, role).pick(write(dir, `${role}.npy`, matrix(744, 8, seed)));
        await slot(ruler, role).status().filter({ hasText: `${role}.npy` }).waitFor();
      }
      await slot(ruler, 'forget').rowsFile('forget.txt');
      await slot(ruler, 'retain').rowsFile('retain.txt');
      await ruler.locator('[data-action="run"]').click();
      eq(await waitRun(ruler), 'failed', 'RULER refuses the example’s index files for a person’s embeddings');
      const rmsg = await ruler.locator('[data-error-for="forget"]').textContent();
      assert(/^“Forget rows” and “Retain rows” still come from the built-in example \(forget\.txt, retain\.txt\)/.test(rmsg), `RULER: ${rmsg}`);
      await slot(ruler, 'forget').rows('0..144');
      await slot(ruler, 'retain').rows('144..544');
      await runDone(ruler);
      // The membership audit: a person's scores beside the example's non-members.
      const mia = page.locator('#lethe-mia');
      await slot(mia, 'members').pick(write(dir, 'members.npy', npy(Array.from({ length: 50 }, (_, i) => i / 50), [50])));
      await slot(mia, 'members').status().filter({ hasText: 'members.npy' }).waitFor();
      await mia.locator('[data-action="run"]').click();
      eq(await waitRun(mia), 'failed', 'the audit refuses the mix');
      await mia.locator('[data-error-for="non_members"]').filter({ hasText: /^“Non-members’ scores” still comes from the built-in example \(mia_scores\.npz\)/ }).waitFor();
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'checks before Run: too few rows and mismatched shapes are shown next to their input when chosen',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/');
      await waitExample(page);
      const sde = page.locator('#lethe-sde');
      // A target of 3 rows beside references of 100: refused next to an input before any run.
      await slot(sde, 'target').rows('0..3');
      await sde.locator('[data-check-for] [data-check="error"]').filter({ hasText: /3 rows|different sizes/ }).first().waitFor({ timeout: 10000 });
      // A target of 50 rows beside references of 100: refused before Run, with the fix; the page's option for
      // equal-size subsets takes the refusal away.
      await slot(sde, 'target').rows('0..50');
      const refusal = sde.locator('[data-check-for] [data-check="error"]').filter({ hasText: /different sizes/ });
      await refusal.first().waitFor({ timeout: 10000 });
      const said = await refusal.first().textContent();
      assert(/Equal-size subsets/.test(said), `the fix names the page's option: ${said}`);
      await sde.locator('[data-param=equal_size]').check();
      await refusal.first().waitFor({ state: 'detached', timeout: 10000 });
      await runDone(sde);
      // Odd row counts: the note names the subsets as the page does (it said "in_training, out_of_training").
      await slot(sde, 'target').rows('0..49');
      await runDone(sde);
      const odd = await sde.locator('[data-value="warnings"]').textContent();
      assert(/last row of “In-training reference”, “Out-of-training reference”, “Target set\[0\]” is not used/.test(odd) && !DEV_WORDS.test(odd), `odd row counts in the page's words: ${odd}`);
      await sde.locator('[data-param=equal_size]').uncheck();
      await slot(sde, 'target').rows('0..100');

      // A reference of another width (3 columns beside 128): said next to it when chosen, before Run.
      const narrow = Array.from({ length: 100 }, (_, i) => `${i % 7},${(i * 3) % 5},${i % 2}`).join('\n') + '\n';
      const runs = await sde.locator('.lethe-progress-text').textContent();
      await slot(sde, 'out_of_training').pick(write(dir, 'narrow.csv', narrow));
      await sde.locator('[data-check-for="out_of_training"] [data-check="error"]').filter({ hasText: /3 columns/ }).waitFor({ timeout: 10000 });
      eq(await sde.locator('.lethe-progress-text').textContent(), runs, 'no run was started');

      // Epsilon: retrained and unlearned confidences (logit-scaled, so beyond [0, 1]) of different widths.
      const eps = page.locator('#lethe-epsilon');
      const conf = (rows, cols, seed) => {
        const r = rng(seed);
        return npy(Array.from({ length: rows * cols }, () => 8 * r() - 4), [rows, cols]);
      };
      await slot(eps, 'retrained').pick(write(dir, 'retrained.npy', conf(8, 20, 2)));
      await slot(eps, 'unlearned').pick(write(dir, 'unlearned.npy', conf(8, 19, 3)));
      const found = eps.locator('[data-check-for="retrained"], [data-check-for="unlearned"], .lethe-checks').filter({ hasText: /19|20/ });
      await found.first().waitFor({ timeout: 10000 });
      const text = (await found.allTextContents()).join(' ');
      assert(!DEV_WORDS.test(text), `the check speaks a user's words: ${text}`);
      // Probabilities where the score expects logit-scaled confidences: refused before Run, with the page's fix.
      await slot(eps, 'retrained').pick(write(dir, 'probs_r.npy', matrix(8, 20, 4)));
      await slot(eps, 'unlearned').pick(write(dir, 'probs_u.npy', matrix(8, 20, 5)));
      const probs = eps.locator('[data-check-for] [data-check="error"], .lethe-checks [data-check="error"]').filter({ hasText: /probabilit/ });
      await probs.first().waitFor({ timeout: 10000 });
      const fix = await probs.first().textContent();
      assert(/“Inputs are: logits \+ labels”/.test(fix) && /logit-scaled confidences already/.test(fix), `the fix names the page's options: ${fix}`);
      assert(!DEV_WORDS.test(fix) && !/p_y|Σ_\{/.test(fix), `the refusal speaks a user's words: ${fix}`);
      await eps.locator('[data-param=logit_scaled]').check();
      await probs.first().waitFor({ state: 'detached', timeout: 10000 });
      eq(await eps.locator('.lethe-results').textContent(), '', 'nothing was run');
      assert(page.errors.length === 0, page.errors.join('; '));
      return text.slice(0, 160);
    },
  },
  {
    name: 'every analysis shows its one headline first; the JSON export carries headline and warnings like the CLI’s',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page);
      const seen = [];
      const check = async (panel, name) => {
        const results = panel.locator('.lethe-results');
        const first = await results.evaluate((el) => [...el.children].find((c) => !c.classList.contains('lethe-stale-note'))?.dataset.value);
        eq(first, 'headline', `${name}: the headline comes first`);
        const shown = await results.locator('[data-value="headline.text"]').textContent();
        const report = await downloadJson(page, exportJson(panel));
        assert(report.headline && typeof report.headline.call === 'string', `${name}: export has a headline`);
        eq(say(report.headline.text), shown, `${name}: export headline = page headline`);
        assert(Array.isArray(report.warnings), `${name}: export has warnings`);
        eq(Object.keys(report).slice(0, 8).join(','), 'lethe_version,command,parameters,seed,inputs,headline,warnings,result', `${name}: envelope order`);
        seen.push(`${name}: ${report.headline.call}`);
      };
      await check(page.locator('#lethe-sde'), 'SDE');
      // SDE's rules sit beneath the one call, not as competing headlines.
      eq(await page.locator('#lethe-sde .lethe-headline').count(), 1, 'one headline in SDE');
      await check(page.locator('#lethe-ruler'), 'RULER');
      const eps = page.locator('#lethe-epsilon');
      await eps.locator('[data-action="synthetic"]').click();
      await slot(eps, 'unlearned').status().filter({ hasText: '×' }).waitFor();
      await runDone(eps);
      await check(eps, 'epsilon');
      const b = page.locator('#lethe-bounds');
      await b.locator('[data-action="synthetic-scores"]').click();
      await slot(b, 'scores').status().filter({ hasText: '×' }).waitFor();
      await runDone(b);
      await check(b, 'bounds');

      // RULER with forget and retain rows that overlap: the warning sits next to the rows, with its fix.
      const ruler = page.locator('#lethe-ruler');
      await slot(ruler, 'retain').rows('100..544');
      await runDone(ruler);
      const w = ruler.locator('[data-check-for="forget"] [data-code], [data-check-for="retain"] [data-code]');
      await w.first().waitFor({ timeout: 5000 });
      const codes = await w.evaluateAll((els) => els.map((e) => e.dataset.code));
      assert(codes.some((c) => /overlap/.test(c)), `overlap warning next to the rows: ${codes.join(', ')}`);
      const report = await downloadJson(page, exportJson(ruler));
      assert(report.warnings.some((x) => codes.includes(x.code)), 'the export lists the same warning');
      assert(page.errors.length === 0, page.errors.join('; '));
      return seen.join('; ');
    },
  },
  {
    name: 'per-example ε and per-generation ROUGE-L are on the page and equal the export; text files are not errors',
    async fn({ context, base }) {
      const page = await open(context, base, '/?example=0');
      await page.locator('.lethe-root[data-state="ready"]').waitFor();
      const eps = page.locator('#lethe-epsilon');
      await eps.locator('[data-action="synthetic"]').click();
      // The synthetic files are added and chosen asynchronously: run once both slots hold them.
      for (const role of ['retrained', 'unlearned']) await slot(eps, role).status().filter({ hasText: '×' }).waitFor();
      await runDone(eps);
      const report = await downloadJson(page, exportJson(eps));
      for (const r of report.result.results) {
        const kind = r.variant.kind;
        const shown = await eps.locator(`[data-eps^="${kind}."]`).allTextContents();
        eq(shown.length, r.per_example.length, `${kind}: a row per example`);
        r.per_example.forEach((e, i) => assert(shown[i].startsWith(fmt(e.epsilon)), `${kind} example ${i}: ${shown[i]} vs ${fmt(e.epsilon)}`));
      }
      // Examples that the official attack separates perfectly (ε = ∞, capped at 50 by metric.py) are counted apart
      // from the range rule's peaky ones (the page said "Peaky examples (ε = 50): 0" beside bars at 50).
      const u = rng(11);
      const conf = (sep) => npy(Array.from({ length: 8 * 6 }, (_, k) => (k % 6 === 0 ? sep * (3 + u()) : 4 * u() - 2)), [8, 6]);
      const dir = workdir();
      await slot(eps, 'retrained').pick(write(dir, 'sep_retrained.npy', conf(-1)));
      await slot(eps, 'unlearned').pick(write(dir, 'sep_unlearned.npy', conf(1)));
      for (const role of ['retrained', 'unlearned']) await slot(eps, role).status().filter({ hasText: 'sep_' }).waitFor();
      await runDone(eps);
      const off = (await downloadJson(page, exportJson(eps))).result.results.find((r) => r.variant.kind === 'official');
      const capped = off.per_example.filter((e) => !e.peaky && e.epsilon === 50).length;
      assert(capped >= 1, `example 0 is perfectly separated: ${JSON.stringify(off.per_example[0])}`);
      eq(await eps.locator('[data-value="eps.official.capped"]').textContent(), String(capped), 'ε capped at 50 shown');
      eq(await eps.locator('[data-value="eps.official.peaky"]').textContent(), String(off.per_example.filter((e) => e.peaky).length), 'peaky shown');
      const b = page.locator('#lethe-bounds');
      await b.locator('[data-action="synthetic-generations"]').click();
      await runDone(b);
      const rep = await downloadJson(page, exportJson(b));
      const f = await b.locator('[data-rouge]').allTextContents();
      eq(f.length, rep.result.scores.fmeasure.length, 'a row per generation');
      rep.result.scores.fmeasure.forEach((v, i) => eq(f[i], fmt(v), `generation ${i}`));
      // The generations and the reference are text files: listed as text, not in red.
      for (const name of ['synthetic_generations_seed0.txt', 'synthetic_reference.txt']) {
        const c = card(page, name);
        await c.waitFor();
        eq(await c.locator('.lethe-error').count(), 0, `${name}: no parse error shown`);
        eq(await c.locator('[data-kind="text"]').count(), 1, `${name}: marked as text`);
      }
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'files of the same name are told apart in the inputs, the pickers and the rows sources',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      await page.locator('.lethe-root[data-state="ready"]').waitFor();
      const picker = page.locator('[data-role="inputs-file"]');
      const a = write(dir, 'act.npy', matrix(40, 4, 5));
      await picker.setInputFiles(a);
      await card(page, 'act.npy').waitFor();
      const dir2 = workdir();
      await picker.setInputFiles(write(dir2, 'act.npy', matrix(60, 4, 6)));
      await card(page, 'act.npy (2)').locator('.lethe-arrays').filter({ hasText: '60' }).waitFor();
      const sde = page.locator('#lethe-sde');
      const options = await sde.locator('select[data-role="in_training"] option').allTextContents();
      assert(options.includes('act.npy') && options.includes('act.npy (2)'), `picker options: ${options.join(' | ')}`);
      await slot(sde, 'in_training').choose('act.npy (2)');
      await slot(sde, 'in_training').status().filter({ hasText: '60 × 4' }).waitFor();
      const sources = await sde.locator('[data-role="in_training-rows-source"] option').allTextContents();
      assert(sources.includes('act.npy (2)'), `rows sources: ${sources.join(' | ')}`);
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'a stopped multi-target SDE run says exactly what finished, and its plot holds every finished distribution',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page);
      await page.locator('.lethe-root[data-module="full"][data-workers]').waitFor({ timeout: 30000 });
      const sde = page.locator('#lethe-sde');
      await sde.locator('[data-param=rule]').selectOption('paper');
      await sde.locator('[data-param=mode]').selectOption('many');
      await slot(sde, 'draw-in').choose('act_unlearned.npy');
      await slot(sde, 'draw-in').rows('144..544');
      await slot(sde, 'draw-out').choose('act_unlearned.npy');
      await slot(sde, 'draw-out').rows('544..744');
      await sde.locator('[data-param=draw]').fill('6');
      await sde.locator('[data-param=size]').fill('100');
      // Long enough that the cancel lands mid-run on an idle machine too (150,000 shuffles took 2.2 s there, and the
      // progress line went from below 30% to done between two looks), cancelled at the first progress of 10% or more.
      await sde.locator('[data-param=shuffles]').fill('1500000');
      await sde.locator('[data-action="run"]').click();
      await sde.locator('.lethe-progress-text').filter({ hasText: /\b[1-9]\d%/ }).waitFor({ timeout: 120000 });
      await sde.getByRole('button', { name: 'Cancel' }).click();
      const t = await waitRun(sde, 20000);
      assert(/stopped in|done in/.test(t), t);
      if (/done in/.test(t)) return 'finished before the cancel landed (nothing to check)';
      const report = await downloadJson(page, exportJson(sde));
      const subsets = report.partial.subsets;
      const summary = await sde.locator('[data-value="sde.stopped"]').textContent();
      const ref = { in_training: 'in-training reference', out_of_training: 'out-of-training reference' };
      for (const s of subsets.slice(0, 2)) {
        const state = s.complete ? 'complete' : s.shuffles_done ? `stopped after ${s.shuffles_done} of ${s.shuffles_planned} shuffles` : 'not started';
        assert(summary.includes(`${ref[s.name]} ${state}`), `summary says the ${ref[s.name]} is ${state}: ${summary}`);
      }
      const done = subsets.slice(2).filter((s) => s.complete).length;
      assert(summary.includes(`${done} of ${subsets.length - 2} target(s) complete`), `summary counts ${done} complete targets: ${summary}`);
      // The histogram holds every reference with shuffles done, and every target with shuffles done is offered.
      const hist = sde.locator('.lethe-plot-block').filter({ hasText: 'HSIC split-half distributions' });
      await hist.locator('svg').waitFor();
      const drawn = await hist.locator('svg path.lethe-series').evaluateAll((ps) => ps.map((p) => p.dataset.name));
      for (const s of subsets.slice(0, 2)) if (s.shuffles_done) assert(drawn.includes(ref[s.name]), `${ref[s.name]} drawn: ${drawn.join(', ')}`);
      const offered = await sde.locator('select[aria-label="Target shown in the histogram"] option').allTextContents();
      const started = subsets.slice(2).filter((s) => s.shuffles_done > 0).length;
      // One started target is drawn beside the references instead of being offered in a picker.
      const refsDrawn = subsets.slice(0, 2).filter((s) => s.shuffles_done > 0).length;
      assert(offered.length === started || (started === 1 && drawn.length >= refsDrawn + 1), `targets offered ${offered.length}, started ${started}, drawn ${drawn.join(', ')}`);
      assert(!DEV_WORDS.test(summary), summary);
      assert(page.errors.length === 0, page.errors.join('; '));
      return summary.slice(0, 200);
    },
  },
  {
    name: 'a CSV with a header and a label column: the label is left out and said; the column picker keeps or chooses columns',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      await page.locator('.lethe-root[data-state="ready"]').waitFor();
      const r = rng(9);
      const lines = ['id,f0,f1,label', ...Array.from({ length: 40 }, (_, i) => `${i},${r().toFixed(4)},${r().toFixed(4)},${i % 2}`)];
      const sde = page.locator('#lethe-sde');
      const s = slot(sde, 'in_training');
      await s.pick(write(dir, 'table.csv', lines.join('\n') + '\n'));
      await s.status().filter({ hasText: /40 × 2\b/ }).waitFor({ timeout: 15000 });
      const said = (await sde.locator('[data-slot="in_training"] .lethe-warning').allTextContents()).join(' ');
      assert(/label/.test(said) && /columns: all/.test(said), `the slot says the label column was left out, and how to keep it: ${said}`);
      assert(!/command line|#columns/.test(said), `in the page's words: ${said}`);
      // The same note on the input's card (it printed the command line's `table.csv#columns=all`).
      const card = page.locator('.lethe-card[data-name="table.csv"]');
      await card.locator('.lethe-warning, .lethe-muted').filter({ hasText: /label/ }).first().waitFor({ timeout: 15000 });
      const onCard = (await card.textContent()) || '';
      assert(/columns: all/.test(onCard) && !/command line|#columns/.test(onCard), `the card says it in the page's words: ${onCard}`);
      await sde.locator('[data-role="in_training-columns-mode"]').selectOption('all');
      await s.status().filter({ hasText: /40 × 4\b/ }).waitFor();
      await sde.locator('[data-role="in_training-columns-mode"]').selectOption('use');
      await sde.locator('[data-role="in_training-columns"]').fill('f1,f0');
      await s.status().filter({ hasText: /40 × 2\b.*columns=f1,f0/ }).waitFor();
      await sde.locator('[data-role="in_training-columns-mode"]').selectOption('drop');
      await sde.locator('[data-role="in_training-columns"]').fill('id');
      await s.status().filter({ hasText: /40 × 3\b/ }).waitFor();
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'messages after common mistakes name inputs by their labels, with no words from the code',
    async fn({ context, base }) {
      // Only a marked role (the layer's `{role:NAME}`) is said as its input's label: a compare method or an array that is
      // called like a role stays as it is (say() used to turn any backticked `retain` into “Retain rows”).
      eq(say('`f.json` (method `retain`), `original` and {role:retain}, `{role:target[2]}`'), '`f.json` (method `retain`), `original` and “Retain rows”, “Target set[2]”', 'roles are marked, not guessed from backticks');
      const dir = workdir();
      const page = await open(context, base, '/');
      await waitExample(page);
      const sde = page.locator('#lethe-sde');
      // Mismatched widths.
      const narrow = Array.from({ length: 100 }, (_, i) => `${i % 7},${(i * 3) % 5},${i % 2}`).join('\n') + '\n';
      await slot(sde, 'out_of_training').pick(write(dir, 'narrow.csv', narrow));
      await slot(sde, 'out_of_training').status().filter({ hasText: '100 × 3' }).waitFor();
      await sde.locator('[data-action="run"]').click();
      await waitRun(sde);
      const msg = await sde.locator('[data-error-for="out_of_training"]').textContent();
      assert(/3 columns/.test(msg) && /in-training reference/i.test(msg), `the message names the other input in the page's words: ${msg}`);
      // A NaN in the scores, an index out of range.
      const b = page.locator('#lethe-bounds');
      await slot(b, 'scores').pick(write(dir, 'nan.csv', '0.1\n0.4\nnan\n0.2\n'));
      await b.locator('[data-action="run"]').click();
      await waitRun(b);
      // A table where one score per row is expected (the layer's `{pick:one-column}`): the fix in the page's controls,
      // not the CLI's FILE#columns=NAME (the page rewrote "shape mismatch: … takes a 1-D sample … pass one column").
      await slot(b, 'scores').pick(write(dir, 'wide.csv', '0.1,0.2\n0.3,0.4\n0.5,0.6\n'));
      await slot(b, 'scores').status().filter({ hasText: 'wide.csv' }).waitFor();
      await b.locator('[data-action="run"]').click();
      await waitRun(b);
      await page.waitForTimeout(500);
      const wide = await b.locator('[data-error-for="scores"]').textContent();
      assert(/3×2/.test(wide) && /one number per row/.test(wide) && /columns: only these/.test(wide) && !/#columns=|`#|1-D/.test(wide), `the fix in the page's words: ${wide}`);
      // Five scores: the SD bound says it carries no information, with the panel's field as the fix and the bound
      // as the page shows numbers (it said "1.2443223127878038 … (sd-method lp)").
      await slot(b, 'scores').pick(write(dir, 'five.csv', '0.2\n0.3\n0.3\n0.2\n0.4\n'));
      await slot(b, 'scores').status().filter({ hasText: 'five.csv' }).waitFor();
      await runDone(b);
      const sd = await b.locator('[data-check-for="scores"], .lethe-warnings').filter({ hasText: 'exceeds 1/4' }).first().textContent();
      assert(/\(“SD bound: exact LP”\)/.test(sd) && !/sd-method|\d\.\d{7}/.test(sd), `the SD note in the page's words: ${sd}`);
      const ruler = page.locator('#lethe-ruler');
      await slot(ruler, 'forget').rows('0,1,9999');
      await ruler.locator('[data-action="run"]').click();
      await waitRun(ruler);
      // A table where one score per row is expected: the fix names the page's controls, not the CLI's FILE#columns=.
      const mia = page.locator('#lethe-mia');
      await slot(mia, 'members').pick(write(dir, 'scores_2d.npy', matrix(6, 40, 7)));
      await mia.locator('[data-action="run"]').click();
      eq(await waitRun(mia), 'failed', 'a 6 × 40 table is refused as members’ scores');
      // The run's message stays beside the input once the slot's own check of the pick (debounced) has run: that
      // check used to wipe it, leaving "failed" and "see the message on the left" with no message anywhere.
      await page.waitForTimeout(500);
      const two = await mia.locator('[data-error-for="members"]').textContent();
      assert(/6×40/.test(two) && /columns: only these/.test(two) && !/#columns=|`#/.test(two), `the fix in the page's words: ${two}`);
      const texts = await page.locator('.lethe-error, .lethe-warning, .lethe-warnings, .lethe-checks, .lethe-headline, .lethe-partial').allTextContents();
      const bad = texts.filter((t) => DEV_WORDS.test(t));
      assert(bad.length === 0, `developer words on the page: ${bad.join(' | ')}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${texts.filter(Boolean).length} messages read`;
    },
  },
];
