// Issue 22: verdicts that know their own power, in the page, on files written here (a new user's mistakes and the
// data that fooled the headlines), each against `lethe … --json` on the same files:
// 1. SDE: a target spread unlike both references gets no call (dispersion_outside_references); references given the
//    wrong way round get a swap hint and no call (references_reversed).
//    Placebo subsets: on rows of one distribution the reference pair's rules agree on a call for some seeds; the
//    placebo check withholds it, and the page says why and what SDE can detect here (= CLI, `result.placebos`).
// 2. RULER: the unlearned model is the original model's file: named (unlearned_is_original).
// 3. The competition score: the same file in both slots is refused before a number (identical_inputs).
// 4. The membership audit: members and non-members that share rows of one file are counted (members_non_members_overlap).
// 5. Many-targets SDE on rows of one distribution: no call, the headline the CLI's, and the per-target JSD plot says
//    its colours are the paper rule's calls (it said "called in training" beside an all-inconclusive headline).
// 6. The competition score: class probabilities given as logits are refused in the panel's words (the fix named the
//    command line's option, "(retrained-probs)").
import path from 'node:path';
import { assert, cli, compare, downloadJson, eq, npy, open, rng, runDone, slot, workdir, write } from './lib.mjs';

/** n × d uniform values on ±scale (seeded). */
const rows = (n, d, seed, scale) => {
  const u = rng(seed);
  return Array.from({ length: n * d }, () => (u() * 2 - 1) * scale);
};

const warningsText = (panel) => panel.locator('.lethe-warnings, .lethe-slot-warnings, .lethe-slot-checks').allTextContents().then((t) => t.join(' | '));

export const tests = [
  {
    name: 'SDE: a target spread unlike both references gets no call; swapped references get a hint and no call (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      write(dir, 'spread.npy', npy([...rows(300, 8, 1, 1.0), ...rows(100, 8, 2, 1.6)], [400, 8]));
      write(dir, 'refs.npy', npy([...rows(200, 8, 3, 1.5), ...rows(100, 8, 4, 1.0)], [300, 8]));
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      await sde.waitFor();
      await page.locator('[data-role="inputs-file"]').setInputFiles(['spread.npy', 'refs.npy'].map((f) => path.join(dir, f)));
      await page.locator('.lethe-card[data-name="refs.npy"] .lethe-hash').waitFor({ timeout: 15000 });
      const runWith = async (file, it, oot, target) => {
        for (const [role, r] of [['in_training', it], ['out_of_training', oot], ['target', target]]) {
          await slot(sde, role).choose(file);
          await slot(sde, role).rows(r);
        }
        await sde.locator('[data-param=seed]').fill('1');
        await runDone(sde);
        const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
        const c = cli(['sde', '--it', `${file}@${it}`, '--oot', `${file}@${oot}`, '--target', `${file}@${target}`, '--seed', '1', '--shuffles', String(report.parameters.shuffles)], dir);
        eq(report.headline.call, c.headline.call, `${file}: the page's call is the CLI's`);
        eq(report.headline.text, c.headline.text, `${file}: the page's headline is the CLI's`);
        return report;
      };
      let r = await runWith('spread.npy', '0..100', '100..200', '300..400');
      eq(r.headline.call, 'inconclusive', 'the spread target gets no call');
      assert(r.warnings.some((w) => w.code === 'dispersion_outside_references'), JSON.stringify(r.warnings.map((w) => w.code)));
      assert(/spread unlike either reference/.test(await warningsText(sde)), 'the dispersion warning is on the page');
      r = await runWith('refs.npy', '200..300', '0..100', '100..200');
      eq(r.headline.call, 'inconclusive', 'swapped references: no call');
      assert(r.warnings.some((w) => w.code === 'references_reversed' && /may be swapped/.test(w.message)), JSON.stringify(r.warnings));
      assert(/may be swapped/.test(await warningsText(sde)), 'the swap hint is on the page');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'SDE: placebo subsets keep one reference pair from calling noise; the page says what SDE can detect (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      write(dir, 'same.npy', npy(rows(700, 8, 11, 1.0), [700, 8]));
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      await sde.waitFor();
      await page.locator('[data-role="inputs-file"]').setInputFiles([path.join(dir, 'same.npy')]);
      await page.locator('.lethe-card[data-name="same.npy"] .lethe-hash').waitFor({ timeout: 15000 });
      for (const [role, r] of [['in_training', '0..300'], ['out_of_training', '300..600'], ['target', '600..700']]) {
        await slot(sde, role).choose('same.npy');
        await slot(sde, role).rows(r);
      }
      await sde.locator('[data-param=equal_size]').check();
      // Seed 7: the paper's JSD rule and the pair's exact means agree on "out of training", which the placebo check
      // withholds (seed 5: they disagree).
      let withheld = 0;
      for (const seed of ['5', '7']) {
        await sde.locator('[data-param=seed]').fill(seed);
        await runDone(sde);
        const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
        const c = cli(['sde', '--it', 'same.npy@0..300', '--oot', 'same.npy@300..600', '--target', 'same.npy@600..700', '--equal-size', '--seed', seed, '--shuffles', String(report.parameters.shuffles)], dir);
        eq(report.headline.text, c.headline.text, `seed ${seed}: the page's headline is the CLI's`);
        // wasm32's libm against glibc's: 1e-12 relative, as tests/browser/cli_parity.test.mjs.
        const d = compare(report.result.placebos, c.result.placebos, { rel: 1e-12, abs: 1e-15, at: 'placebos' });
        assert(d.diffs.length === 0, `seed ${seed}: the placebo check differs from the CLI's: ${d.diffs.slice(0, 3).join('; ')}`);
        eq(report.headline.call, 'inconclusive', `seed ${seed}: noise gets no call`);
        eq(report.result.placebos.draws, 40, 'placebos per class');
        if (/placebo subsets per class/.test(report.headline.reason || '')) {
          withheld += 1;
          const shown = await sde.locator('[data-value="headline"]').innerText();
          assert(/told apart in \d+ of 40 placebo draws/.test(shown), `the page shows what SDE can detect: ${shown}`);
        }
      }
      assert(withheld > 0, 'no seed had a call for the placebo check to withhold: the test checks nothing');
      await sde.screenshot({ path: path.join(process.cwd(), 'target/screenshots/sde-placebo.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'RULER: the unlearned model given as the original model’s file is named (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      write(dir, 'original.npy', npy(rows(200, 8, 5, 1), [200, 8]));
      write(dir, 'oracle.npy', npy(rows(200, 8, 6, 1), [200, 8]));
      write(dir, 'forget.txt', Array.from({ length: 40 }, (_, i) => i).join('\n') + '\n');
      const page = await open(context, base, '/?example=0');
      const ruler = page.locator('#lethe-ruler');
      await ruler.waitFor();
      await page.locator('[data-role="inputs-file"]').setInputFiles(['original.npy', 'oracle.npy', 'forget.txt'].map((f) => path.join(dir, f)));
      await page.locator('.lethe-card[data-name="forget.txt"] .lethe-hash').waitFor({ timeout: 15000 });
      await slot(ruler, 'unlearned').choose('original.npy');
      await slot(ruler, 'oracle').choose('oracle.npy');
      await slot(ruler, 'original').choose('original.npy');
      await slot(ruler, 'forget').rowsFile('forget.txt');
      await slot(ruler, 'retain').rows('40..200');
      await runDone(ruler);
      const report = await downloadJson(page, ruler.locator('[data-action="export-json"]'));
      assert(report.warnings.some((w) => w.code === 'unlearned_is_original'), JSON.stringify(report.warnings.map((w) => w.code)));
      assert(/the original model/.test(await warningsText(ruler)), 'named on the page');
      const c = cli(['ruler', '--unlearned', 'original.npy', '--oracle', 'oracle.npy', '--original', 'original.npy', '--forget', 'forget.txt', '--retain', '40..200'], dir);
      eq(report.headline.text, c.headline.text, 'the page’s headline is the CLI’s');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'competition: the same file in both slots is refused with its reason; the headline gives a perfect unlearner’s F',
    async fn({ context, base }) {
      const dir = workdir();
      const conf = (seed, lift) => {
        const out = [];
        for (let m = 0; m < 16; m++) for (let e = 0; e < 40; e++) out.push(1 + 0.05 * e + Math.sin(((m + seed * 97) * 31 + e * 7) * 0.618) + lift * (e % 2));
        return out;
      };
      write(dir, 'r.npy', npy(conf(1, 0), [16, 40]));
      write(dir, 'u.npy', npy(conf(2, 1.5), [16, 40]));
      const page = await open(context, base, '/?example=0');
      const eps = page.locator('#lethe-epsilon[data-panel]');
      await eps.waitFor({ timeout: 30000 });
      await page.locator('[data-role="inputs-file"]').setInputFiles(['r.npy', 'u.npy'].map((f) => path.join(dir, f)));
      await page.locator('.lethe-card[data-name="u.npy"] .lethe-hash').waitFor({ timeout: 15000 });
      await slot(eps, 'retrained').choose('r.npy');
      await slot(eps, 'unlearned').choose('r.npy');
      await eps.locator('[data-action="run"]').click();
      await eps.locator('.lethe-error').filter({ hasText: /hold the same values/ }).first().waitFor({ timeout: 30000 });
      await slot(eps, 'unlearned').choose('u.npy');
      await runDone(eps);
      const report = await downloadJson(page, eps.locator('[data-action="export-json"]'));
      assert(/a perfect unlearner/.test(report.headline.text), report.headline.text);
      const c = cli(['epsilon', '--retrained', 'r.npy', '--unlearned', 'u.npy'], dir);
      eq(report.result.baseline.perfect_mean, c.result.baseline.perfect_mean, 'the baseline is the CLI’s');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'membership audit: members and non-members sharing rows of one file are counted (= CLI)',
    async fn({ context, base }) {
      const dir = workdir();
      write(dir, 'scores.npy', npy(Array.from({ length: 100 }, (_, i) => ((i * 0.37) % 1) + (i < 40 ? 1 : 0)), [100]));
      const page = await open(context, base, '/?example=0');
      const mia = page.locator('#lethe-mia[data-panel]');
      await mia.waitFor({ timeout: 30000 });
      await page.locator('[data-role="inputs-file"]').setInputFiles(path.join(dir, 'scores.npy'));
      await page.locator('.lethe-card[data-name="scores.npy"] .lethe-hash').waitFor({ timeout: 15000 });
      await slot(mia, 'members').choose('scores.npy');
      await slot(mia, 'members').rows('0..40');
      await slot(mia, 'non_members').choose('scores.npy');
      await slot(mia, 'non_members').rows('30..100');
      await runDone(mia);
      const report = await downloadJson(page, mia.locator('[data-action="export-json"]'));
      const w = report.warnings.find((x) => x.code === 'members_non_members_overlap');
      assert(w && /^10 of the 40 members' rows are also among the 70 non-members' rows/.test(w.message), JSON.stringify(report.warnings));
      assert(/10 of the 40 members/.test(await warningsText(mia)), 'counted on the page');
      const c = cli(['mia', 'scores.npy@0..40', 'scores.npy@30..100'], dir);
      eq(report.result.summary.auc, c.result.summary.auc, 'the AUC is the CLI’s');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'many-targets SDE on noise: no call (= CLI), and the JSD plot names the paper rule as the one whose calls it colours',
    async fn({ context, base }) {
      const dir = workdir();
      write(dir, 'noise.npy', npy(rows(700, 8, 21, 1.0), [700, 8]));
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      await sde.waitFor();
      await page.locator('[data-role="inputs-file"]').setInputFiles([path.join(dir, 'noise.npy')]);
      await page.locator('.lethe-card[data-name="noise.npy"] .lethe-hash').waitFor({ timeout: 15000 });
      await sde.locator('[data-param=mode]').selectOption('many');
      for (const [role, r] of [['in_training', '0..300'], ['out_of_training', '300..600'], ['draw-from', '600..700'], ['draw-in', '0..300'], ['draw-out', '300..600']]) {
        await slot(sde, role).choose('noise.npy');
        await slot(sde, role).rows(r);
      }
      await sde.locator('[data-param=size]').fill('30');
      await sde.locator('[data-param=equal_size]').check();
      await sde.locator('[data-param=seed]').fill('1');
      await runDone(sde, 120000);
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      const c = cli(['sde', '--it', 'noise.npy@0..300', '--oot', 'noise.npy@300..600', '--draw-from', 'noise.npy@600..700', '--draw-in', 'noise.npy@0..300', '--draw-out', 'noise.npy@300..600', '--draw', String(report.parameters.draw ?? 10), '--size', '30', '--equal-size', '--seed', '1', '--shuffles', String(report.parameters.shuffles)], dir);
      eq(report.headline.text, c.headline.text, 'the page’s headline is the CLI’s');
      eq(report.headline.call, 'inconclusive', 'noise gets no call');
      const legend = (await sde.locator('figure.lethe-plot-block').filter({ hasText: 'Per-target JSD to each reference' }).locator('svg text').allTextContents()).join(' | ');
      assert(/paper rule: in training/.test(legend) && !/called in training/.test(legend), `the JSD plot's legend names the paper rule: ${legend}`);
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'competition: class probabilities given as logits are refused with the panel’s choice as the fix, no option name',
    async fn({ context, base }) {
      const dir = workdir();
      const u = rng(31);
      const [models, examples, classes] = [4, 6, 3];
      const logits = Array.from({ length: models * examples * classes }, () => 4 * u() - 2);
      const probs = [];
      for (let k = 0; k < models * examples; k++) {
        const e = logits.slice(k * classes, (k + 1) * classes).map(Math.exp);
        const s = e.reduce((a, b) => a + b, 0);
        probs.push(...e.map((x) => x / s));
      }
      write(dir, 'r_probs.npy', npy(probs, [models, examples, classes]));
      write(dir, 'u_logits.npy', npy(logits, [models, examples, classes]));
      write(dir, 'labels.txt', Array.from({ length: examples }, (_, i) => i % classes).join('\n') + '\n');
      const page = await open(context, base, '/?example=0');
      const eps = page.locator('#lethe-epsilon[data-panel]');
      await eps.waitFor({ timeout: 30000 });
      await page.locator('[data-role="inputs-file"]').setInputFiles(['r_probs.npy', 'u_logits.npy', 'labels.txt'].map((f) => path.join(dir, f)));
      await page.locator('.lethe-card[data-name="labels.txt"] .lethe-hash').waitFor({ timeout: 15000 });
      await eps.locator('[data-param=mode]').selectOption('logits');
      await slot(eps, 'retrained_logits').choose('r_probs.npy');
      await slot(eps, 'unlearned_logits').choose('u_logits.npy');
      await slot(eps, 'labels').choose('labels.txt');
      await eps.locator('[data-action="run"]').click();
      const shown = eps.locator('.lethe-error, [data-check="error"]').filter({ hasText: /class probabilities, not logits/ }).first();
      await shown.waitFor({ timeout: 30000 });
      const text = await shown.textContent();
      assert(/Inputs are: class probabilities \+ labels/.test(text) && !/-probs\)|--/.test(text), `the fix names the panel's choice: ${text}`);
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
];
