// 1. The page opens on the built-in example and shows a finished SDE and RULER analysis within seconds, with the
//    CLI's numbers (`lethe sde`/`lethe ruler` on the same demo files and rows, formatted as the CLI prints them).
import path from 'node:path';
import { SHOTS, assert, cli, eq, fmt, open, shot, values, waitExample, workdir } from './lib.mjs';

export const tests = [
  {
    name: 'opens on the built-in example with finished SDE and RULER results that equal the CLI',
    async fn({ context, base }) {
      const t0 = Date.now();
      const page = await open(context, base, '/');
      await waitExample(page, 20000);
      const ms = Date.now() - t0;
      assert(ms < 15000, `example took ${ms} ms`);
      const computeMs = await page.locator('.lethe-example-note').getAttribute('data-example-ms');
      const dir = workdir();
      const sde = cli(['sde', '--it', 'act_unlearned.npy@144..244', '--oot', 'act_unlearned.npy@544..644', '--target', 'act_unlearned.npy@0..100'], dir);
      const ruler = cli(['ruler', '--unlearned', 'act_unlearned.npy', '--oracle', 'act_retrained.npy', '--original', 'act_original.npy', '--forget', 'forget.txt', '--retain', 'retain.txt'], dir);
      const v = await values(page.locator('body'));
      const t = sde.result.targets[0].verdict;
      eq(v['sde.jsd_it'], fmt(t.jsd_target_it), 'JSD to IT');
      eq(v['sde.jsd_oot'], fmt(t.jsd_target_oot), 'JSD to OOT');
      eq(v['sde.mw_target'], fmt(sde.result.targets[0].mann_whitney_target_vs_oot.p_value), 'Mann–Whitney p');
      eq(v['sde.separation'], fmt(sde.result.reference_separation.p_value), 'separation p');
      assert(v['sde.verdict'].includes(t.in_training ? 'in training' : 'out of training'), 'verdict');
      const r = ruler.result.runs[0];
      eq(v['ruler.0.m1'], fmt(r.oracle_similarity), 'm1');
      eq(v['ruler.0.m2'], fmt(r.calibration_gap), 'm2');
      eq(v['ruler.0.m3'], fmt(r.representation_shift), 'm3');
      eq(v['ruler.0.m4'], fmt(r.nn_percentile_rank.value), 'm4');
      // The example is explained in one line and the weak-signal warning is prominent.
      assert(await page.locator('.lethe-example-note').isVisible(), 'example note');
      // The one call comes first, and on this weak signal it is inconclusive with its reason, or warned about.
      const weak = (await page.locator('#lethe-sde .lethe-headline, #lethe-sde .lethe-warnings').allTextContents()).join(' ');
      assert(/inconclusive|not clearly (separable|different)|lower shuffle values/.test(weak), `SDE warning shown: ${weak}`);
      // The calibrated verdict beside the paper's, as `lethe calibrate` gives it on the same rows.
      const cal = cli(['calibrate', '--data', 'act_unlearned.npy', '--it-pool', '144..544', '--oot-pool', '544..744', '--target', '0..100', '--refs', '10', '--paper-shuffles', '0'], dir);
      const ct = cal.result.targets[0];
      eq(v['sde.cal.z'], fmt(ct.score), 'calibrated z');
      assert(v['sde.cal.verdict'].includes(ct.calibrated === 'in_training' ? 'in training' : ct.calibrated === 'out_of_training' ? 'out of training' : 'inconclusive'), 'calibrated verdict');
      eq(v['sde.cal.dispersion'], fmt(ct.stats.dispersion), 'kernel dispersion');
      await shot(page, 'desktop-example.png');
      await shot(page, 'desktop-full.png', { fullPage: true });
      await page.locator('#lethe-sde').screenshot({ path: path.join(SHOTS, 'panel-sde.png') });
      await page.locator('#lethe-ruler').screenshot({ path: path.join(SHOTS, 'panel-ruler.png') });
      eq(page.errors.length, 0, `page errors: ${page.errors.join('; ')}`);
      return `example shown ${ms} ms after navigation (SDE + RULER computed in ${computeMs} ms)`;
    },
  },
];
