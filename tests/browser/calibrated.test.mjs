// 8. The calibrated SDE verdict in the page (issue 5, item 5): beside the paper's JSD verdict, the SDE panel shows
//    the calibrated verdict on exact shuffle means with its diagnostics and notes, the exact mean ± sd markers on
//    the histograms, and in multi-target mode OTR/F1 of both rules side by side. Its numbers must equal
//    `target/release/lethe calibrate … --json` on the same files, rows and seed: the exported report carries
//    `lethe calibrate`'s envelope (under `calibrated`, or at the top with the calibrated verdict only), compared
//    field by field as cli_parity.test.mjs compares the other analyses; the displayed numbers are the CLI's values
//    formatted as the CLI prints them. The calibrated mode needs no shuffles: its time for 100 targets is reported.
import path from 'node:path';
import { SHOTS, assert, cli, compare, downloadJson, eq, fmt, npy, open, rng, runDone, slot, values, workdir, write } from './lib.mjs';

const PARITY_REL = 1e-12;
// Kernel sums of centred kernels are rounding noise around 0 (see cli_parity.test.mjs): compared absolutely.
const ABS_SUMS = 1e-10;
// The exact shuffle variance is E[Γ²] − E[Γ]² (sde/moments.rs), which cancels when a subset's kernel entries are
// all close to one another, as on probability rows: the last-bit differences between wasm's SIMD summation order
// and x86-64's in the kernel sums grow there (at σ = √10 to ~5e-11 relative in the variance, its sd and the sd of
// the reference means, and ~1e-12 in the means themselves, whose 1 − K̄ cancels too). Allowed 1e-9 on the variance
// and the sds (and what is divided by them: the pooled sd, the separation, z); the test below uses the median
// heuristic, where the means stay within PARITY_REL.
const CANCELLING = { re: /(moments\.(variance|sd)|(in_training|out_of_training)\.sd|pooled_sd|separation|\.score)$/, rel: 1e-9 };
let worstLoose = 0;

function same(page, c, label, { absPaths = /kernels\.(kc|l)_sums\./, ignore = [] } = {}) {
  const r = compare(page.result, c.result, { rel: PARITY_REL, abs: ABS_SUMS, absPaths, loose: CANCELLING, at: `${label}.result`, ignore: [`${label}.result.backend.device`, ...ignore.map((p) => `${label}.result.${p}`)] });
  worstLoose = Math.max(worstLoose, r.maxLoose || 0);
  assert(r.diffs.length === 0, `${label}: result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
  for (const k of ['inputs', 'parameters']) {
    const d = compare(page[k], c[k], { at: `${label}.${k}` });
    assert(d.diffs.length === 0, `${label}: ${k} differ:\n${d.diffs.slice(0, 8).join('\n')}`);
  }
  for (const k of ['lethe_version', 'command', 'seed']) eq(page[k], c[k], `${label}: ${k}`);
  return r.compared;
}

export const tests = [
  {
    name: 'one target: calibrated verdict, diagnostics and exact-mean markers beside the paper verdict equal `lethe calibrate --json`',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      const it = slot(sde, 'in_training');
      await it.pick(path.join(dir, 'act_unlearned.npy'));
      await it.status().filter({ hasText: '744 × 128' }).waitFor({ timeout: 15000 });
      await it.rows('144..244');
      await slot(sde, 'out_of_training').choose('act_unlearned.npy');
      await slot(sde, 'out_of_training').rows('544..644');
      await slot(sde, 'target').choose('act_unlearned.npy');
      await slot(sde, 'target').rows('0..100');
      await sde.locator('[data-role="it_pool-rows"]').fill('144..544');
      await sde.locator('[data-role="oot_pool-rows"]').fill('544..744');
      await sde.locator('[data-param=refs]').fill('10');
      await sde.locator('[data-param=margin]').fill('0.5');
      await sde.locator('[data-param=seed]').fill('3');
      await sde.locator('[data-param=shuffles]').fill('120');
      await slot(sde, 'target').status().filter({ hasText: '100 × 128' }).waitFor();
      await runDone(sde);
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      eq(report.command, 'sde', 'the paper rule is the report');
      const c = cli(['calibrate', '--data', 'act_unlearned.npy', '--it-pool', '144..544', '--oot-pool', '544..744', '--target', '0..100', '--size', '100', '--refs', '10', '--margin', '0.5', '--paper-shuffles', '0', '--seed', '3'], dir);
      const n = same(report.calibrated, c, 'calibrated');
      assert(report.calibrated.cli_equivalent.startsWith('lethe calibrate --data act_unlearned.npy --it-pool 144..544'), report.calibrated.cli_equivalent);
      // The paper rule is unchanged by the calibrated verdict beside it.
      const s = cli(['sde', '--it', 'act_unlearned.npy@144..244', '--oot', 'act_unlearned.npy@544..644', '--target', 'act_unlearned.npy@0..100', '--shuffles', '120', '--seed', '3'], dir);
      const n2 = same(report, s, 'sde');

      const t = c.result.targets[0];
      const v = await values(sde);
      const call = { in_training: 'in training', out_of_training: 'out of training', inconclusive: 'inconclusive' };
      assert(v['sde.cal.verdict'].startsWith(`Calibrated: target[0]: ${call[t.calibrated]}`), `calibrated verdict: ${v['sde.cal.verdict']}`);
      assert(v['sde.verdict'].startsWith('Paper rule: target[0]: '), `paper verdict still shown: ${v['sde.verdict']}`);
      eq(v['sde.cal.z'], fmt(t.score), 'z');
      eq(v['sde.cal.mean'], fmt(t.stats.moments.mean), 'target exact mean');
      eq(v['sde.cal.dispersion'], fmt(t.stats.dispersion), 'kernel dispersion');
      eq(v['sde.cal.mean.separation'], fmt(c.result.rule.separation), 'reference separation');
      eq(v['sde.cal.dispersion.call'], call[t.dispersion], 'dispersion call');
      eq(v['sde.cal.it'], `${fmt(c.result.in_training.mean)} ± ${fmt(c.result.in_training.sd)}`, 'in-training references');
      eq(v['sde.moments'], `${fmt(s.result.targets[0].distribution.moments.mean)} ± ${fmt(s.result.targets[0].distribution.moments.sd)}`, 'exact moments of the target distribution');
      assert(v['sde.cal.confidence'] === undefined, 'activations are not probabilities: no confidence row');
      const notes = await sde.locator('.lethe-notes li').allTextContents();
      eq(notes.join('\n'), c.result.notes.join('\n'), 'plain-language notes');
      // The layer's warnings sit next to the input they concern (here the pools), or under the headline.
      const warned = await sde.locator('.lethe-warnings, [data-check-for]').allTextContents();
      assert(warned.some((w) => w.includes('reference subsets overlap')), 'the overlap of reference subsets is said');
      // Exact mean ± sd of each of the three distributions on the histogram.
      eq(await sde.locator('svg .lethe-moment').count(), 3, 'exact-mean markers');
      eq(await sde.locator('svg .lethe-moment[data-role="target"] line').count(), 4, 'target marker: mean line, sd bar, two ticks');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${n} + ${n2} numbers equal the CLI`;
    },
  },
  {
    name: 'no pools and a 100-row reference with |S| = 100: the calibrated verdict is flagged unreliable (re-splits of the same rows); with pools it is not',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      const it = slot(sde, 'in_training');
      await it.pick(path.join(dir, 'act_unlearned.npy'));
      await it.status().filter({ hasText: '744 × 128' }).waitFor({ timeout: 15000 });
      await it.rows('144..244');
      await slot(sde, 'out_of_training').choose('act_unlearned.npy');
      await slot(sde, 'out_of_training').rows('544..644');
      await slot(sde, 'target').choose('act_unlearned.npy');
      await slot(sde, 'target').rows('0..100');
      await sde.locator('[data-param=rule]').selectOption('calibrated');
      await slot(sde, 'target').status().filter({ hasText: '100 × 128' }).waitFor();
      await runDone(sde);
      // The numbers are still the CLI's on the same rows (pools = the references' own rows, R = 20 by default).
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      const c = cli(['calibrate', '--data', 'act_unlearned.npy', '--it-pool', '144..244', '--oot-pool', '544..644', '--target', '0..100', '--size', '100', '--refs', '20', '--paper-shuffles', '0'], dir);
      // Every reference subset is the same 100 rows, so their whole-subset kernel dispersions are equal and the
      // dispersion rule's pooled sd is rounding noise (compared absolutely); its separation is noise over noise.
      const n = same(report, c, 'calibrated', { absPaths: /kernels\.(kc|l)_sums\.|dispersion_rule\.pooled_sd$/, ignore: ['dispersion_rule.separation'] });
      eq(report.thin_pools.map((t) => `${t.class}:${t.rows}:${t.shared}`).join(' '), 'in_training:100:100 out_of_training:100:100', 'thin pools in the report');
      // ... but flagged next to the verdict, with what to do.
      const badge = sde.locator('[data-value="sde.cal.verdict"] .lethe-badge-unreliable');
      assert(await badge.isVisible(), 'an "unreliable" badge next to the calibrated verdict');
      const note = await sde.locator('[data-value="sde.cal.unreliable"]').textContent();
      assert(note.includes('not reliable') && note.includes('No in-training or out-of-training pool was given'), `the note says why: ${note}`);
      assert(note.includes('all the same 100 rows') && note.includes('at least 2 × 100 = 200 rows'), `the note says what to give: ${note}`);
      await sde.locator('.lethe-results').screenshot({ path: path.join(SHOTS, 'calibrated-unreliable.png') });

      // With pools of enough rows the flag goes.
      await sde.locator('[data-role="it_pool-rows"]').fill('144..544');
      await sde.locator('[data-role="oot_pool-rows"]').fill('544..744');
      await runDone(sde);
      eq(await sde.locator('.lethe-badge-unreliable').count(), 0, 'no badge with pools');
      eq(await sde.locator('[data-value="sde.cal.unreliable"]').count(), 0, 'no note with pools');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${n} numbers equal the CLI; flagged without pools, not with them`;
    },
  },
  {
    name: '100 labelled targets: calibrated only (milliseconds), then both rules side by side, equal the CLI',
    async fn({ context, base }) {
      const dir = workdir();
      // An index file for a pool, as the CLI takes it.
      write(dir, 'oot_pool.txt', Array.from({ length: 100 }, (_, i) => 544 + i).join('\n') + '\n');
      const page = await open(context, base, '/?example=0');
      await page.locator('[data-role="inputs-file"]').setInputFiles([path.join(dir, 'oot_pool.txt')]);
      await page.locator('.lethe-card[data-name="oot_pool.txt"] .lethe-hash').waitFor({ timeout: 15000 });
      const sde = page.locator('#lethe-sde');
      await sde.locator('[data-param=mode]').selectOption('many');
      const it = slot(sde, 'in_training');
      await it.pick(path.join(dir, 'act_retrained.npy'));
      await it.status().filter({ hasText: '744 × 128' }).waitFor({ timeout: 15000 });
      await it.rows('144..244');
      await slot(sde, 'out_of_training').choose('act_retrained.npy');
      await slot(sde, 'out_of_training').rows('544..644');
      await slot(sde, 'draw-in').choose('act_retrained.npy');
      await slot(sde, 'draw-in').rows('344..544');
      await slot(sde, 'draw-out').choose('act_retrained.npy');
      await slot(sde, 'draw-out').rows('644..744');
      await sde.locator('[data-role="it_pool-rows"]').fill('144..344');
      await sde.locator('[data-role="oot_pool-rows-mode"]').selectOption('file');
      await sde.locator('[data-role="oot_pool-rows-source"]').selectOption({ label: 'oot_pool.txt' });
      await sde.locator('[data-param=draw]').fill('50');
      await sde.locator('[data-param=size]').fill('50');
      await sde.locator('[data-param=refs]').fill('10');
      await sde.locator('[data-param=seed]').fill('11');
      await sde.locator('[data-param=rule]').selectOption('calibrated');
      await slot(sde, 'draw-out').status().filter({ hasText: '100 × 128' }).waitFor();
      const args = ['calibrate', '--data', 'act_retrained.npy', '--it-pool', '144..344', '--oot-pool', 'oot_pool.txt', '--draw-in', '344..544', '--draw-out', '644..744', '--draw', '50', '--size', '50', '--refs', '10', '--paper-shuffles', '0', '--seed', '11'];
      const c = cli(args, dir);
      eq(c.result.targets.length, 100, 'targets');
      // Best of three runs (the first includes loading the file into the worker).
      const ms = [];
      for (let k = 0; k < 3; k++) {
        await runDone(sde);
        ms.push(Number(await sde.getAttribute('data-calibrated-ms')));
      }
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      eq(report.command, 'calibrate', 'calibrated only: the report is lethe calibrate’s');
      const n = same(report, c, 'calibrate');
      const v = await values(sde);
      const sum = (rule) => c.result.summaries.find((x) => x.rule === rule);
      eq(v['sde.otr.calibrated'], fmt(sum('calibrated').out_of_training_rate), 'calibrated OTR');
      eq(v['sde.f1.calibrated'], fmt(sum('calibrated').f1.f1), 'calibrated F1');
      eq(v['sde.f1.dispersion'], fmt(sum('whole-subset kernel dispersion').f1.f1), 'dispersion F1');
      eq(v['sde.f1.nearest'], fmt(sum('nearest exact mean (single pair)').f1.f1), 'single-pair F1');
      assert(await sde.locator('figcaption', { hasText: 'Exact shuffle means' }).count() === 1, 'exact means strip plot');
      eq(await sde.locator('svg .lethe-moment').count(), 0, 'no shuffle histograms without shuffles');

      // Both rules: the paper rule's OTR/F1 (lethe sde on the same drawn targets) beside the calibrated ones.
      // The paper rule's references have the drawn targets' 50 rows (subsets of different sizes are refused).
      await sde.locator('[data-param=rule]').selectOption('both');
      await sde.locator('[data-param=shuffles]').fill('40');
      await it.rows('144..194');
      await slot(sde, 'out_of_training').rows('544..594');
      await runDone(sde);
      const both = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      const s = cli(['sde', '--it', 'act_retrained.npy@144..194', '--oot', 'act_retrained.npy@544..594', '--draw-in', 'act_retrained.npy@344..544', '--draw-out', 'act_retrained.npy@644..744', '--draw', '50', '--size', '50', '--shuffles', '40', '--seed', '11'], dir);
      const n2 = same(both, s, 'sde') + same(both.calibrated, c, 'calibrated');
      const v2 = await values(sde);
      eq(v2['sde.otr'], fmt(s.result.out_of_training_rate), 'paper OTR');
      eq(v2['sde.f1'], fmt(s.result.f1.f1), 'paper F1');
      eq(v2['sde.otr.calibrated'], fmt(sum('calibrated').out_of_training_rate), 'calibrated OTR beside it');
      eq(v2['sde.f1.calibrated'], fmt(sum('calibrated').f1.f1), 'calibrated F1 beside it');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${n} + ${n2} numbers equal the CLI; calibrated verdict for 100 targets (|S| = 50, R = 10) in ${ms.join(' / ')} ms (page round trip)`;
    },
  },
  {
    name: 'probability outputs: the max-softmax-confidence diagnostic and its note equal the CLI',
    async fn({ context, base }) {
      const dir = workdir();
      // Softmax-like rows of 10 classes: rows 0–299 confident (top ≈ 0.9), rows 300–599 diffuse (top ≈ 0.5).
      const u = rng(7);
      const rows = [];
      for (let i = 0; i < 600; i++) {
        const top = (i < 300 ? 0.9 : 0.5) + 0.05 * (u() - 0.5);
        const c = Math.floor(u() * 10);
        const rest = Array.from({ length: 9 }, () => u());
        const sum = rest.reduce((a, b) => a + b, 0);
        let k = 0;
        for (let j = 0; j < 10; j++) rows.push(j === c ? top : ((1 - top) * rest[k++]) / sum);
      }
      write(dir, 'softmax.npy', npy(rows, [600, 10]));
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      const it = slot(sde, 'in_training');
      await it.pick(path.join(dir, 'softmax.npy'));
      await it.status().filter({ hasText: '600 × 10' }).waitFor({ timeout: 15000 });
      await it.rows('0..100');
      await slot(sde, 'out_of_training').choose('softmax.npy');
      await slot(sde, 'out_of_training').rows('300..400');
      await slot(sde, 'target').choose('softmax.npy');
      await slot(sde, 'target').rows('200..300');
      await sde.locator('[data-role="it_pool-rows"]').fill('0..200');
      await sde.locator('[data-role="oot_pool-rows"]').fill('300..600');
      await sde.locator('[data-param=refs]').fill('3');
      // The median heuristic: at σ = √10 every kernel entry of probability rows is within ~0.1 of 1 and the exact
      // moments cancel (see CANCELLING).
      await sde.locator('[data-param=sigma]').fill('median');
      await sde.locator('[data-param=rule]').selectOption('calibrated');
      await slot(sde, 'target').status().filter({ hasText: '100 × 10' }).waitFor();
      await runDone(sde);
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      const c = cli(['calibrate', '--data', 'softmax.npy', '--it-pool', '0..200', '--oot-pool', '300..600', '--target', '200..300', '--size', '100', '--refs', '3', '--sigma', 'median', '--paper-shuffles', '0'], dir);
      const n = same(report, c, 'calibrate');
      const t = c.result.targets[0];
      assert(t.stats.confidence != null && c.result.confidence_rule, 'the CLI found probability rows');
      const v = await values(sde);
      eq(v['sde.cal.confidence'], fmt(t.stats.confidence), 'mean max-softmax confidence');
      eq(v['sde.cal.confidence.separation'], fmt(c.result.confidence_rule.separation), 'confidence classes apart');
      const notes = await sde.locator('.lethe-notes li').allTextContents();
      eq(notes.join('\n'), c.result.notes.join('\n'), 'plain-language notes');
      assert(notes.some((x) => x.includes('probability vectors')), 'the confidence note is shown');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${n} numbers equal the CLI (shuffle variances and sds, which cancel here, within ${worstLoose.toExponential(1)} relative); confidence ${fmt(t.stats.confidence)}, call ${t.confidence}`;
    },
  },
];
