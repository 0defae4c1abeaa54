// 2. Same inputs + same seed → same numbers as the CLI. Real .npy files are picked into each panel (the repository's
//    digits activations; for the competition and bounds panels, .npy/.txt files written here), the analyses run,
//    and then
//    * the exported JSON report is compared with `target/release/lethe <command> … --json` run on the same files
//      (same bare names, in a scratch directory): `result`, `inputs` (SHA-256, shapes, row files) and `parameters`
//      must be identical — numbers exactly equal (the largest relative deviation is reported if any differ; none is
//      tolerated beyond PARITY_REL);
//    * the displayed numbers must equal the CLI's values formatted as the CLI prints them (fmt_num, 6 decimals).
import path from 'node:path';
import { assert, cli, compare, downloadJson, eq, fmt, npy, open, rng, runDone, slot, values, workdir, write } from './lib.mjs';

// wasm32's libm (exp/ln) and glibc's may differ in the last ulp; none was observed, and 1e-12 would flag anything
// beyond rounding.
const PARITY_REL = 1e-12;
// The kernel sums reported for the exact shuffle moments (`kernels.kc_sums`, `l_sums`) include sums of a centred
// kernel, which are 0 up to rounding: their values are rounding noise (|x| ~ 1e-13 for n² ~ 10⁴ terms of size ≤ 1,
// summed in a different order by wasm's simd128 kernels and x86-64's), so they are compared absolutely.
const ABS_SUMS = 1e-10;
let worst = { maxRel: 0, compared: 0, inexact: 0 };

function same(page, cliReport, label) {
  // The backend's `device` names the machine (wasm32 vs x86_64), not a number of the analysis.
  const r = compare(page.result, cliReport.result, { rel: PARITY_REL, abs: ABS_SUMS, absPaths: /kernels\.(kc|l)_sums\./, at: `${label}.result`, ignore: [`${label}.result.backend.device`] });
  worst = { maxRel: Math.max(worst.maxRel, r.maxRel), compared: worst.compared + r.compared, inexact: worst.inexact + r.inexact };
  if (r.inexact) console.log(`     ${label}: ${r.inexact} of ${r.compared} numbers differ in the last bits (max rel ${r.maxRel}), e.g. ${r.inexactPaths.join(', ')}`);
  assert(r.diffs.length === 0, `${label}: result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
  const i = compare(page.inputs, cliReport.inputs, { at: `${label}.inputs` });
  assert(i.diffs.length === 0, `${label}: inputs differ:\n${i.diffs.slice(0, 8).join('\n')}`);
  const p = compare(page.parameters, cliReport.parameters, { at: `${label}.parameters` });
  assert(p.diffs.length === 0, `${label}: parameters differ:\n${p.diffs.slice(0, 8).join('\n')}`);
  eq(page.lethe_version, cliReport.lethe_version, 'version');
  eq(page.command, cliReport.command, 'command');
  eq(page.seed, cliReport.seed, 'seed');
  // The one call and the warnings, as the CLI prints them first (both from the analysis layer's one value).
  eq(JSON.stringify(page.headline), JSON.stringify(cliReport.headline), `${label}: headline`);
  eq(JSON.stringify(page.warnings), JSON.stringify(cliReport.warnings), `${label}: warnings`);
  return `${r.compared} numbers`;
}

async function picked(s, text) {
  await s.status().filter({ hasText: text }).waitFor({ timeout: 15000 });
}

async function addInputs(page, files) {
  await page.locator('[data-role="inputs-file"]').setInputFiles(files);
  for (const f of files) {
    await page.locator(`.lethe-card[data-name="${path.basename(f)}"] .lethe-hash`).last().waitFor({ timeout: 15000 });
  }
}

export const tests = [
  {
    name: 'SDE (one target, random split, baselines) equals `lethe sde --json`',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      const it = slot(sde, 'in_training');
      await it.pick(path.join(dir, 'act_unlearned.npy'));
      await picked(it, '744 × 128');
      await it.rows('144..244');
      await slot(sde, 'out_of_training').choose('act_unlearned.npy');
      await slot(sde, 'out_of_training').rows('544..644');
      await slot(sde, 'target').choose('act_unlearned.npy');
      await slot(sde, 'target').rows('0..100');
      await sde.locator('[data-param=shuffles]').fill('300');
      await sde.locator('[data-param=seed]').fill('7');
      await sde.locator('[data-param=bins]').fill('25');
      await sde.locator('[data-param=split]').selectOption('random');
      await sde.locator('[data-param=baselines]').check();
      await picked(slot(sde, 'target'), '100 × 128');
      await runDone(sde);
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      const c = cli(['sde', '--it', 'act_unlearned.npy@144..244', '--oot', 'act_unlearned.npy@544..644', '--target', 'act_unlearned.npy@0..100', '--shuffles', '300', '--seed', '7', '--bins', '25', '--split', 'random', '--baselines'], dir);
      const n = same(report, c, 'sde');
      const v = await values(sde);
      eq(v['sde.jsd_it'], fmt(c.result.targets[0].verdict.jsd_target_it), 'displayed JSD to IT');
      eq(v['sde.jsd_oot'], fmt(c.result.targets[0].verdict.jsd_target_oot), 'displayed JSD to OOT');
      eq(v['sde.mw_target'], fmt(c.result.targets[0].mann_whitney_target_vs_oot.p_value), 'displayed MW p');
      eq(report.cli_equivalent.replace(/ --json$/, '').split(' ')[1], 'sde', 'cli line');
      return n;
    },
  },
  {
    name: 'SDE many targets from labelled pools with index-file rows (OTR, F1, baselines) equals the CLI',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      await addInputs(page, ['retain.txt', 'test.txt'].map((f) => path.join(dir, f)));
      const sde = page.locator('#lethe-sde');
      await sde.locator('[data-param=mode]').selectOption('many');
      const it = slot(sde, 'in_training');
      await it.pick(path.join(dir, 'act_retrained.npy'));
      await picked(it, '744 × 128');
      await it.rows('144..244');
      await slot(sde, 'out_of_training').choose('act_retrained.npy');
      await slot(sde, 'out_of_training').rows('544..644');
      await slot(sde, 'draw-in').choose('act_retrained.npy');
      await slot(sde, 'draw-in').rowsFile('retain.txt');
      await slot(sde, 'draw-out').choose('act_retrained.npy');
      await slot(sde, 'draw-out').rowsFile('test.txt');
      await sde.locator('[data-param=draw]').fill('4');
      await sde.locator('[data-param=size]').fill('100');
      await sde.locator('[data-param=shuffles]').fill('100');
      await sde.locator('[data-param=seed]').fill('5');
      await sde.locator('[data-param=baselines]').check();
      await picked(slot(sde, 'draw-out'), '200 × 128');
      await runDone(sde);
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      const c = cli(['sde', '--it', 'act_retrained.npy@144..244', '--oot', 'act_retrained.npy@544..644', '--draw-in', 'act_retrained.npy@retain.txt', '--draw-out', 'act_retrained.npy@test.txt', '--draw', '4', '--size', '100', '--shuffles', '100', '--seed', '5', '--baselines'], dir);
      const n = same(report, c, 'sde-many');
      const v = await values(sde);
      eq(v['sde.otr'], fmt(c.result.out_of_training_rate), 'displayed OTR');
      eq(v['sde.f1'], fmt(c.result.f1.f1), 'displayed F1');
      eq(v['sde.f1_mmd'], fmt(c.result.f1_mmd.f1), 'displayed F1 (MMD)');
      eq(v['sde.f1_w'], fmt(c.result.f1_wasserstein.f1), 'displayed F1 (Wasserstein)');
      eq(c.result.targets.length, 8, 'targets drawn');
      return n;
    },
  },
  {
    name: 'RULER over three runs (Wilcoxon + BH across runs) equals `lethe ruler --json`',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      await addInputs(page, ['act_retrained.npy', 'act_original.npy', 'forget.txt', 'retain.txt'].map((f) => path.join(dir, f)));
      const ruler = page.locator('#lethe-ruler');
      const addRun = ruler.getByRole('button', { name: /Add a run/ });
      await addRun.click();
      await addRun.click();
      const un = ruler.locator('[data-role="unlearned-file"]');
      await un.nth(0).setInputFiles(path.join(dir, 'act_unlearned.npy'));
      await ruler.locator('[data-slot="unlearned"] .lethe-slot-status').first().filter({ hasText: '744 × 128' }).waitFor();
      const unlearned = ['act_unlearned.npy', 'act_original.npy', 'act_retrained.npy'];
      for (let k = 0; k < 3; k++) {
        await ruler.locator('select[data-role="unlearned"]').nth(k).selectOption({ label: unlearned[k] });
        await ruler.locator('select[data-role="oracle"]').nth(k).selectOption({ label: 'act_retrained.npy' });
        await ruler.locator('select[data-role="original"]').nth(k).selectOption({ label: 'act_original.npy' });
      }
      await slot(ruler, 'forget').rowsFile('forget.txt');
      await slot(ruler, 'retain').rowsFile('retain.txt');
      await runDone(ruler);
      const report = await downloadJson(page, ruler.locator('[data-action="export-json"]'));
      const args = ['ruler'];
      for (const u of unlearned) args.push('--unlearned', u);
      for (let k = 0; k < 3; k++) args.push('--oracle', 'act_retrained.npy', '--original', 'act_original.npy');
      args.push('--forget', 'forget.txt', '--retain', 'retain.txt');
      const c = cli(args, dir);
      const n = same(report, c, 'ruler');
      assert(c.result.across_runs.length === 3, 'three metrics tested across runs');
      const v = await values(ruler);
      for (let k = 0; k < 3; k++) {
        const r = c.result.runs[k];
        eq(v[`ruler.${k}.m1`], fmt(r.oracle_similarity), `run ${k} m1`);
        eq(v[`ruler.${k}.m2`], fmt(r.calibration_gap), `run ${k} m2`);
        eq(v[`ruler.${k}.m3`], fmt(r.representation_shift), `run ${k} m3`);
        eq(v[`ruler.${k}.m4`], fmt(r.nn_percentile_rank.value), `run ${k} m4`);
      }
      const shown = await ruler.locator('[data-key="ruler.across.nn_percentile_rank"] td').allTextContents();
      eq(shown[2], fmt(c.result.across_runs[2].wilcoxon.p_value), 'Wilcoxon p shown');
      eq(shown[3], fmt(c.result.across_runs[2].p_adjusted), 'BH p shown');
      return n;
    },
  },
  {
    name: 'competition epsilon (all variants, final score; logits + labels) equals `lethe epsilon --json`',
    async fn({ context, base }) {
      const dir = workdir();
      const u = rng(1);
      const N = 32;
      const E = 60;
      const level = Array.from({ length: E }, () => 4 * u() - 1);
      const shift = Array.from({ length: E }, (_, e) => (e % 3 === 0 ? 1.5 * u() : 0));
      const noise = () => u() + u() + u() - 1.5;
      const r = [];
      const un = [];
      for (let m = 0; m < N; m++) for (let e = 0; e < E; e++) (r.push(level[e] + noise()), un.push(level[e] + shift[e] + noise()));
      write(dir, 'eps_retrained.npy', npy(r, [N, E]));
      write(dir, 'eps_unlearned.npy', npy(un, [N, E]));
      const page = await open(context, base, '/?example=0');
      const eps = page.locator('#lethe-epsilon');
      await slot(eps, 'retrained').pick(path.join(dir, 'eps_retrained.npy'));
      await slot(eps, 'unlearned').pick(path.join(dir, 'eps_unlearned.npy'));
      await picked(slot(eps, 'unlearned'), '32 × 60');
      await eps.locator('[data-param=accuracies]').fill('0.97, 0.98, 0.9, 0.91');
      await runDone(eps);
      const report = await downloadJson(page, eps.locator('[data-action="export-json"]'));
      const c = cli(['epsilon', '--retrained', 'eps_retrained.npy', '--unlearned', 'eps_unlearned.npy', '--variant', 'all', '--accuracies', '0.97,0.98,0.9,0.91'], dir);
      const n1 = same(report, c, 'epsilon');
      const v = await values(eps);
      const kinds = ['official', 'exhaustive', 'high_probability'];
      kinds.forEach((k, i) => {
        eq(v[`eps.${k}.F`], fmt(c.result.results[i].forget_score), `${k} F`);
        eq(v[`eps.${k}.final`], fmt(c.result.final_scores[i]), `${k} final score`);
      });

      // Logits (models × examples × classes) with labels, official variant.
      const C = 4;
      const E2 = 20;
      const labels = Array.from({ length: E2 }, (_, e) => e % C);
      const logits = (shiftBy) => {
        const out = [];
        for (let m = 0; m < 10; m++) for (let e = 0; e < E2; e++) for (let k = 0; k < C; k++) out.push((k === labels[e] ? 2 + (e % 2) * shiftBy : 0) + noise());
        return out;
      };
      write(dir, 'rl.npy', npy(logits(0), [10, E2, C]));
      write(dir, 'ul.npy', npy(logits(1.5), [10, E2, C]));
      write(dir, 'labels.npy', npy(labels, [E2]));
      await eps.locator('[data-param=mode]').selectOption('logits');
      await slot(eps, 'retrained_logits').pick(path.join(dir, 'rl.npy'));
      await slot(eps, 'unlearned_logits').pick(path.join(dir, 'ul.npy'));
      await slot(eps, 'labels').pick(path.join(dir, 'labels.npy'));
      await picked(slot(eps, 'labels'), '20 × 1');
      await eps.locator('[data-param=variant]').selectOption('official');
      await eps.locator('[data-param=accuracies]').fill('');
      await runDone(eps);
      const report2 = await downloadJson(page, eps.locator('[data-action="export-json"]'));
      const c2 = cli(['epsilon', '--retrained-logits', 'rl.npy', '--unlearned-logits', 'ul.npy', '--labels', 'labels.npy'], dir);
      const n2 = same(report2, c2, 'epsilon-logits');
      eq((await values(eps))['eps.official.F'], fmt(c2.result.results[0].forget_score), 'logits F');
      return `${n1} + ${n2}`;
    },
  },
  {
    name: 'leakage bounds (scores .npy, 0/1 flags, ROUGE-L of generations) equal `lethe bounds/rouge --json`',
    async fn({ context, base }) {
      const dir = workdir();
      const u = rng(2);
      const scores = Array.from({ length: 150 }, () => (u() < 0.5 ? 0 : u() ** 2));
      write(dir, 'scores.npy', npy(scores, [150]));
      write(dir, 'flags.csv', Array.from({ length: 80 }, (_, i) => (i % 9 === 0 ? 1 : 0)).join('\n') + '\n');
      const words = ['the', 'launch', 'code', 'is', 'amber', 'falcon', 'seven', 'sorry', 'cannot', 'say', 'running', 'codes'];
      const gens = Array.from({ length: 40 }, () => Array.from({ length: 5 + Math.floor(u() * 6) }, () => words[Math.floor(u() * words.length)]).join(' '));
      write(dir, 'generations.txt', gens.join('\n') + '\n');
      write(dir, 'reference.txt', 'the launch code is amber falcon seven\n');
      const page = await open(context, base, '/?example=0');
      const b = page.locator('#lethe-bounds');
      await slot(b, 'scores').pick(path.join(dir, 'scores.npy'));
      await picked(slot(b, 'scores'), '150 × 1');
      await b.locator('[data-param=alpha]').fill('0.05');
      await b.locator('[data-param=x]').fill('0.1, 0.3');
      await b.locator('[data-param=sd_method]').selectOption('lp');
      await b.locator('[data-param=atom_at_zero]').check();
      await b.locator('[data-param=rho]').fill('1.5');
      await b.locator('[data-param=plan_width]').fill('0.1');
      await runDone(b);
      const report = await downloadJson(page, b.locator('[data-action="export-json"]'));
      const bargs = ['--alpha', '0.05', '--x', '0.1', '--x', '0.3', '--sd-method', 'lp', '--atom-at-zero', '--rho', '1.5', '--plan-width', '0.1'];
      const c = cli(['bounds', 'scores.npy', ...bargs], dir);
      const n1 = same(report, c, 'bounds');
      const v = await values(b);
      eq(v['bounds.m_gen.0'], fmt(c.result.general.upper[0]), 'M_gen(0.1)');
      eq(v['bounds.m_gen.1'], fmt(c.result.general.upper[1]), 'M_gen(0.3)');
      eq(v['bounds.sd'], fmt(c.result.std.upper), 'SD bound');
      eq(v['bounds.ed'], fmt(c.result.ed.score), 'ED score');
      eq(v['bounds.plan'], String(c.result.plan.n), 'samples planned');
      eq(v['bounds.expectation'], `[${fmt(c.result.expectation.lower)}, ${fmt(c.result.expectation.upper)}]`, 'E[X] bounds');
      // The slider asks the core for M_gen at its x: at 0.3 it must equal the CLI's M_gen(0.3).
      await b.locator('[data-role="mgen-x"]').fill('0.3');
      await b.locator('[data-value="bounds.slider"]').filter({ hasText: `M_gen(0.3) = ${fmt(c.result.general.upper[1])}` }).waitFor({ timeout: 5000 });

      // 0/1 leak flags pasted in the inputs box → M_bin.
      await page.locator('.lethe-paste-box summary').click();
      await page.getByRole('textbox', { name: 'Numbers to paste (one per line, or CSV rows)' }).fill(Array.from({ length: 80 }, (_, i) => (i % 9 === 0 ? 1 : 0)).join('\n') + '\n');
      await page.getByRole('textbox', { name: 'Name of the pasted input' }).fill('flags.csv');
      await page.getByRole('button', { name: 'Add pasted input' }).click();
      await page.locator('.lethe-card[data-name="flags.csv"] .lethe-hash').waitFor();
      await slot(b, 'scores').choose('flags.csv');
      await b.locator('[data-param=x]').fill('0.25, 0.5, 0.75');
      await b.locator('[data-param=sd_method]').selectOption('conbo');
      await b.locator('[data-param=atom_at_zero]').uncheck();
      await b.locator('[data-param=rho]').fill('2');
      await b.locator('[data-param=plan_width]').fill('0.05');
      await picked(slot(b, 'scores'), '80 × 1');
      await runDone(b);
      const report2 = await downloadJson(page, b.locator('[data-action="export-json"]'));
      const c2 = cli(['bounds', 'flags.csv', '--alpha', '0.05', '--x', '0.25', '--x', '0.5', '--x', '0.75'], dir);
      const n2 = same(report2, c2, 'bounds-flags');
      eq((await values(b))['bounds.m_bin'], fmt(c2.result.binary.upper), 'M_bin');

      // Generations against a reference (ROUGE-L with stemming), then the bounds on the F-measures.
      await page.locator('[data-role="inputs-file"]').setInputFiles([path.join(dir, 'generations.txt'), path.join(dir, 'reference.txt')]);
      await page.locator('.lethe-card[data-name="reference.txt"] .lethe-hash').waitFor();
      await b.locator('[data-param=mode]').selectOption('generations');
      await b.locator('[data-role="predictions-source"]').selectOption({ label: 'generations.txt' });
      await b.locator('[data-role="reference-source"]').selectOption({ label: 'reference.txt' });
      await b.locator('[data-param=stemmer]').check();
      await b.locator('[data-param=alpha]').fill('0.01');
      await runDone(b);
      const report3 = await downloadJson(page, b.locator('[data-action="export-json"]'));
      const c3 = cli(['rouge', '--predictions', 'generations.txt', '--reference', 'reference.txt', '--stemmer', '--bounds', '--x', '0.25', '--x', '0.5', '--x', '0.75'], dir);
      const n3 = same(report3, c3, 'rouge');
      eq((await values(b))['bounds.ed'], fmt(c3.result.bounds.ed.score), 'ROUGE ED score');
      return `${n1} + ${n2} + ${n3}; over all parity checks ${worst.compared} numbers compared, ${worst.inexact} not bit-identical (max relative deviation ${worst.maxRel})`;
    },
  },
];
