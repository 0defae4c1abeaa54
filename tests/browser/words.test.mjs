// The analysis layer's messages name options, inputs and choices within a file by marks (crate/src/words.rs:
// `{opt:NAME}`, `{opt:NAME=VALUE}`, `{role:NAME}`, `{pick:WHAT}`), which each front end says in its own words: the page
// by its fields' labels (www/src/panels/common.js `say`, `OPTION_LABELS`), the command line by its options. The regex
// rules that once rewrote the CLI's wording in the page are gone, and no other browser test triggers these messages;
// each test here writes its own files, drives the page to the message, and checks the page's words beside the
// command line's on the same files:
// 1. RULER, models with different row counts (row_counts_differ): `{pick:same-rows}` is nothing in the page (its models
//    have no row choice), `(or select the same rows of each with PATH@ROWS)` on the command line.
// 2. The competition score's confidence unit (CONFIDENCE_UNIT): probability-valued confidences refused, and scored
//    when “These values are logit-scaled confidences already” is ticked: the unit in a user's words, not metric.py's
//    function name.
// 3. ε_max: a bucket cut-off that is neither `official` nor a number; and two models, whose official cut-off leaves no
//    buckets (no_buckets): “ε_max” in the page, `--eps-max` on the command line.
// 4. The accuracies of the final score out of [0, 1], or a retrained one at 0: “Accuracies for the final score” in the
//    page, `--accuracies` on the command line.
// 5. The leakage bounds, one-sided with α above 0.5 (alpha_above_half): the fix names the bounds panel's α field.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CLI, SHOTS, assert, cli, downloadJson, eq, npy, open, rng, runDone, scratch, slot, waitRun, write } from './lib.mjs';

// Each test's scratch directory (only the files it writes) is removed when the test ends.
const { workdir, cleaned } = scratch(() => mkdtempSync(path.join(tmpdir(), 'lethe-words-')));

/** n values uniform on [offset − scale, offset + scale] (seeded). */
const uniform = (n, seed, scale = 1, offset = 0) => {
  const u = rng(seed);
  return Array.from({ length: n }, () => (u() * 2 - 1) * scale + offset);
};

/** What the command line says when it refuses (its exit status is not 0): its standard error. */
const cliRefusal = (args, cwd) => {
  try {
    execFileSync(CLI, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    return String(e.stderr);
  }
  throw new Error(`lethe ${args.join(' ')} did not refuse`);
};

/** The first message (an error, a check before the run, a run's warning) in `panel` that matches `re`: its text. */
const message = async (panel, re, timeout = 30000) => {
  const m = panel.locator('.lethe-error, [data-check], .lethe-warnings li').filter({ hasText: re }).first();
  await m.waitFor({ timeout });
  // As shown: a check's fix on its own line.
  return m.evaluate((el) => el.innerText);
};

/** Opens the page without the example and adds `files` (in `dir`) to its inputs. */
const openWith = async (context, base, panelId, dir, files) => {
  const page = await open(context, base, '/?example=0');
  const panel = page.locator(`#${panelId}[data-panel]`);
  await panel.waitFor({ timeout: 30000 });
  await page.locator('[data-role="inputs-file"]').setInputFiles(files.map((f) => path.join(dir, f)));
  await page.locator(`.lethe-card[data-name="${files[files.length - 1]}"] .lethe-hash`).waitFor({ timeout: 15000 });
  return { page, panel };
};

/** The competition panel with confidences (models × examples) `r` and `u` chosen. */
const competition = async (context, base, dir, [r, u]) => {
  const { page, panel } = await openWith(context, base, 'lethe-epsilon', dir, [r, u]);
  await slot(panel, 'retrained').choose(r);
  await slot(panel, 'unlearned').choose(u);
  return { page, panel };
};

export const tests = [
  {
    name: 'RULER: models with different row counts are named, with no command-line row syntax (= CLI’s PATH@ROWS)',
    fn: cleaned(async ({ context, base }) => {
      const dir = workdir();
      write(dir, 'fifty.npy', npy(uniform(50 * 8, 1), [50, 8]));
      write(dir, 'forty.npy', npy(uniform(40 * 8, 2), [40, 8]));
      write(dir, 'forget.txt', Array.from({ length: 10 }, (_, i) => i).join('\n') + '\n');
      const { page, panel } = await openWith(context, base, 'lethe-ruler', dir, ['fifty.npy', 'forty.npy', 'forget.txt']);
      await slot(panel, 'unlearned').choose('fifty.npy');
      await slot(panel, 'oracle').choose('forty.npy');
      await slot(panel, 'forget').rowsFile('forget.txt');
      await slot(panel, 'retain').rows('10..40');
      await panel.locator('[data-action="run"]').click();
      await waitRun(panel);
      const text = await message(panel, /has 40 rows/);
      assert(/forty\.npy/.test(text) && /fifty\.npy/.test(text), `the page names both files: ${text}`);
      assert(/Export each model's embeddings of the same records/.test(text), `the fix is there: ${text}`);
      // The layer quotes file names in backticks (`forty.npy`), as in every message the page shows; any other backtick
      // would be the command line's syntax.
      const bare = text.replace(/`(fifty|forty)\.npy`/g, '$1.npy');
      assert(!/PATH@ROWS|@ROWS|\{pick|`/.test(bare), `no command-line row syntax, mark or backtick in the page: ${text}`);
      assert(!/records\s*\(|\(\s*$/.test(text), `no stray "(" where the choice was: ${text}`);
      await panel.screenshot({ path: path.join(SHOTS, 'words-ruler-rows.png') });
      const said = cliRefusal(['ruler', '--unlearned', 'fifty.npy', '--oracle', 'forty.npy', '--forget', 'forget.txt', '--retain', '10..40'], dir);
      assert(/\[row_counts_differ\]/.test(said) && /\(or select the same rows of each with PATH@ROWS\)/.test(said), `the command line says its row syntax: ${said}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return text.trim();
    }),
  },
  {
    name: 'competition: the confidence unit in a user’s words, refused and accepted (= CLI), never metric.py’s function',
    fn: cleaned(async ({ context, base }) => {
      const dir = workdir();
      write(dir, 'r_p.npy', npy(uniform(16 * 40, 3, 0.5, 0.5), [16, 40]));
      write(dir, 'u_p.npy', npy(uniform(16 * 40, 4, 0.5, 0.5), [16, 40]));
      const { page, panel } = await competition(context, base, dir, ['r_p.npy', 'u_p.npy']);
      const unit = (text, what) => {
        assert(text.includes('log p(true class) − log Σ p(other classes)'), `${what}: the unit: ${text}`);
        assert(text.includes("as the competition's metric.py computes them"), `${what}: as metric.py: ${text}`);
        assert(!/compute_logit_scaled_confidence/.test(text), `${what}: no function name: ${text}`);
        assert(!/--|\{opt|\{role/.test(text), `${what}: no option or mark: ${text}`);
      };
      // Refused: the fix names the panel's inputs and its checkbox.
      await panel.locator('[data-action="run"]').click();
      await waitRun(panel);
      const refused = await message(panel, /these look like probabilities/);
      unit(refused, 'refused');
      assert(refused.includes('say so (“These values are logit-scaled confidences already”)'), `the checkbox is named: ${refused}`);
      // The inputs it asks for are hidden in this mode: named as the choice that shows them, each once.
      assert(refused.includes('Give the logits (“Inputs are: logits + labels”: models × examples × classes) or all classes\' probabilities (“Inputs are: class probabilities + labels”) with the labels'), `the choice that shows the logits' inputs is named: ${refused}`);
      const cliSaid = cliRefusal(['epsilon', '--retrained', 'r_p.npy', '--unlearned', 'u_p.npy'], dir);
      assert(cliSaid.includes('log p(true class) − log Σ p(other classes)') && cliSaid.includes('say so (--confidences logit-scaled)'), `the CLI's refusal: ${cliSaid}`);
      // Accepted: scored as asked, with a warning that says the unit.
      await panel.locator('[data-param=logit_scaled]').check();
      await runDone(panel);
      const accepted = await message(panel, /scored as logit-scaled confidences, as asked/);
      unit(accepted, 'accepted');
      const report = await downloadJson(page, panel.locator('[data-action="export-json"]'));
      const c = cli(['epsilon', '--retrained', 'r_p.npy', '--unlearned', 'u_p.npy', '--confidences', 'logit-scaled'], dir);
      const w = (r) => r.warnings.find((x) => x.code === 'probabilities_accepted');
      assert(w(report) && w(c), `both warn: ${JSON.stringify(report.warnings)} ${JSON.stringify(c.warnings)}`);
      eq(w(report).message, w(c).message, 'the downloaded warning is the CLI’s');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${refused.trim()} ‖ ${accepted.trim()}`;
    }),
  },
  {
    name: 'competition: a bucket cut-off that is neither “official” nor a number is refused as “ε_max” (CLI: --eps-max)',
    fn: cleaned(async ({ context, base }) => {
      const dir = workdir();
      write(dir, 'r.npy', npy(uniform(16 * 40, 5, 2), [16, 40]));
      write(dir, 'u.npy', npy(uniform(16 * 40, 6, 2, 0.5), [16, 40]));
      const { page, panel } = await competition(context, base, dir, ['r.npy', 'u.npy']);
      await panel.locator('[data-param=eps_max]').fill('six');
      await panel.locator('[data-action="run"]').click();
      await waitRun(panel);
      const text = await message(panel, /bucket cut-off/);
      assert(text.includes('the bucket cut-off (“ε_max”) takes `official` or a number'), `the field is named: ${text}`);
      assert(!/--eps-max|eps_max/.test(text), `no option or field name: ${text}`);
      const said = cliRefusal(['epsilon', '--retrained', 'r.npy', '--unlearned', 'u.npy', '--eps-max', 'six'], dir);
      assert(/--eps-max/.test(said), `the command line names its option: ${said}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return text.trim();
    }),
  },
  {
    name: 'competition: two models leave the official cut-off no buckets; the fix names “ε_max” (CLI and report: --eps-max)',
    fn: cleaned(async ({ context, base }) => {
      const dir = workdir();
      write(dir, 'r2.npy', npy(uniform(2 * 40, 7, 2), [2, 40]));
      write(dir, 'u2.npy', npy(uniform(2 * 40, 8, 2), [2, 40]));
      const { page, panel } = await competition(context, base, dir, ['r2.npy', 'u2.npy']);
      await runDone(panel);
      const text = await message(panel, /has no buckets/);
      const report = await downloadJson(page, panel.locator('[data-action="export-json"]'));
      const c = cli(['epsilon', '--retrained', 'r2.npy', '--unlearned', 'u2.npy'], dir);
      const w = (r) => r.warnings.find((x) => x.code === 'no_buckets');
      assert(w(report) && w(c), `both warn: ${JSON.stringify(report.warnings)} ${JSON.stringify(c.warnings)}`);
      eq(w(report).fix, w(c).fix, 'the downloaded fix is the CLI’s');
      assert(/a fixed bucket cut-off \(--eps-max, e\.g\. 6\.5\)/.test(w(c).fix), `the CLI names its option: ${w(c).fix}`);
      assert(text.includes('a fixed bucket cut-off (“ε_max”, e.g. 6.5)'), `the page names the field: ${text}`);
      assert(!/--eps-max/.test(text), `no command-line option in the page: ${text}`);
      // The core's note (crate/src/competition/mod.rs, NoBuckets) said "use more models or a fixed eps_max", unmarked.
      assert(!/eps_max/.test(text), `no field name from the program in the page: ${text}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return text.trim();
    }),
  },
  {
    name: 'competition: accuracies out of [0, 1] or a retrained one at 0 are refused as “Accuracies for the final score” (CLI: --accuracies)',
    fn: cleaned(async ({ context, base }) => {
      const dir = workdir();
      write(dir, 'r.npy', npy(uniform(16 * 40, 9, 2), [16, 40]));
      write(dir, 'u.npy', npy(uniform(16 * 40, 10, 2, 0.5), [16, 40]));
      const { page, panel } = await competition(context, base, dir, ['r.npy', 'u.npy']);
      const seen = [];
      for (const [typed, named] of [['0.9, 0, 0.8, 0.8', 'RA_retrained is 0'], ['1.5, 0.9, 0.8, 0.8', 'RA_unlearned is 1.5']]) {
        await panel.locator('[data-param=accuracies]').fill(typed);
        await panel.locator('[data-action="run"]').click();
        await waitRun(panel);
        const text = await message(panel, new RegExp(named.replace('.', '\\.')));
        assert(text.includes('the accuracies (“Accuracies for the final score”) are RA_unlearned, RA_retrained, TA_unlearned, TA_retrained'), `${typed}: the field is named: ${text}`);
        assert(!/--accuracies/.test(text), `${typed}: no command-line option in the page: ${text}`);
        const said = cliRefusal(['epsilon', '--retrained', 'r.npy', '--unlearned', 'u.npy', '--accuracies', typed.replace(/\s/g, '')], dir);
        assert(said.includes('the accuracies (--accuracies) are') && said.includes(named), `${typed}: the command line names its option: ${said}`);
        seen.push(text.trim());
      }
      await panel.screenshot({ path: path.join(SHOTS, 'words-accuracies.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return seen.join(' ‖ ');
    }),
  },
  {
    name: 'leakage bounds: one-sided with α above 0.5 is flagged, the fix naming the panel’s “α” (= CLI’s warning)',
    fn: cleaned(async ({ context, base }) => {
      const dir = workdir();
      write(dir, 'scores.npy', npy(uniform(100, 11, 0.5, 0.5), [100]));
      const { page, panel } = await openWith(context, base, 'lethe-bounds', dir, ['scores.npy']);
      await slot(panel, 'scores').choose('scores.npy');
      await panel.locator('[data-param=alpha]').fill('0.7');
      await panel.locator('[data-param=one_sided]').check();
      await runDone(panel);
      const text = await message(panel, /alpha = 0\.7 > 0\.5/);
      assert(/one-sided DKW inequality behind this bound is proven only for alpha ≤ 0\.5/.test(text), `the note: ${text}`);
      const report = await downloadJson(page, panel.locator('[data-action="export-json"]'));
      const c = cli(['bounds', 'scores.npy', '--alpha', '0.7', '--one-sided'], dir);
      const w = (r) => r.warnings.find((x) => x.code === 'alpha_above_half');
      assert(w(report) && w(c), `both warn: ${JSON.stringify(report.warnings)} ${JSON.stringify(c.warnings)}`);
      eq(w(report).message, w(c).message, 'the downloaded warning is the CLI’s');
      eq(w(report).fix, w(c).fix, 'the downloaded fix is the CLI’s');
      // 1 − alpha in percent (the headline said “3% confidence”, its zero trimmed).
      assert(/with 30% confidence/.test(c.headline.text) && report.headline.text === c.headline.text, c.headline.text);
      assert(!/--alpha/.test(text), `no command-line option in the page: ${text}`);
      await panel.screenshot({ path: path.join(SHOTS, 'words-bounds-alpha.png') });
      // The fix names the option (`use alpha ≤ 0.5 ({opt:alpha}), or the two-sided form`), the page as its field α.
      assert(text.includes('use alpha ≤ 0.5 (“α”), or the two-sided form'), `the fix names the panel's α field: ${text}`);
      assert(/use alpha ≤ 0\.5 \(--alpha\), or the two-sided form/.test(w(c).fix), `the CLI names its option: ${w(c).fix}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return text.trim();
    }),
  },
];
