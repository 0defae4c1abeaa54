// 3. Cancelling a long run: the page keeps responding while the worker computes, Cancel stops the core at its next
//    checkpoint, the partial result is shown — the shuffles done per subset, the paper rule and Mann–Whitney on the
//    target's shuffles so far (labelled partial), the target's partial distribution in the histogram — and a new run
//    afterwards works. The target's shuffles so far are the first k of the stream `lethe sde` draws for it.
import path from 'node:path';
import { SHOTS, assert, cli, compare, downloadJson, eq, fmt, open, values, waitExample, waitRun, workdir } from './lib.mjs';

export const tests = [
  {
    name: 'a long SDE run stays responsive, cancels to a partial result, and a new run works',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page);
      const sde = page.locator('#lethe-sde');
      // Three subsets of 200 rows (subsets of different sizes are refused), 1,000,000 shuffles each (seconds of work
      // per subset), on one worker so that they run in order: the cancel below waits until the target is computed.
      await sde.locator('[data-param=rule]').selectOption('paper');
      await sde.locator('[data-param=workers]').selectOption('one');
      await sde.locator('[data-role="in_training-rows"]').fill('144..344');
      await sde.locator('[data-role="out_of_training-rows"]').fill('544..744');
      await sde.locator('[data-role="target-rows"]').fill('344..544');
      await sde.locator('[data-param=shuffles]').fill('1000000');
      await sde.locator('[data-slot="target"] .lethe-slot-status').filter({ hasText: '200 × 128' }).waitFor();
      await sde.locator('[data-action="run"]').click();
      await sde.locator('.lethe-progress-text').filter({ hasText: /%/ }).waitFor({ timeout: 10000 });

      // The page reacts while the worker computes: open the paste box, type into a field.
      const t0 = Date.now();
      await page.locator('.lethe-paste-box summary').click();
      await page.waitForFunction(() => document.querySelector('.lethe-paste-box').open, null, { timeout: 2000 });
      const react = Date.now() - t0;
      await page.getByRole('textbox', { name: 'Name of the pasted input' }).fill('still responsive');
      assert((await page.getByRole('textbox', { name: 'Name of the pasted input' }).inputValue()) === 'still responsive', 'typing works');
      const progress1 = await sde.locator('progress').evaluate((p) => p.value);
      await page.waitForTimeout(600);
      const progress2 = await sde.locator('progress').evaluate((p) => p.value);
      assert(progress2 > progress1, `progress moves during the run (${progress1} → ${progress2})`);
      const eta = await sde.locator('.lethe-progress-text').textContent();
      assert(/about .* left/.test(eta), `an ETA is shown: ${eta}`);

      await sde.locator('.lethe-progress-text').filter({ hasText: /^(7\d|8\d|9[0-4])%/ }).waitFor({ timeout: 60000 });
      const t1 = Date.now();
      await sde.getByRole('button', { name: 'Cancel' }).click();
      const text = await waitRun(sde, 10000);
      const stopMs = Date.now() - t1;
      assert(/stopped in/.test(text), `stopped: ${text}`);
      const partial = await sde.locator('.lethe-partial').textContent();
      // The summary says exactly what finished (issue 11: it had said "not started" above a table showing both done).
      assert(partial.includes('Stopped early') && /in-training reference complete; out-of-training reference complete; 0 of 1 target\(s\) complete \(target\[0\] stopped after \d+ of 1000000 shuffles\)/.test(partial), `partial result shown: ${partial}`);

      // The partial numbers: shuffles per subset, and the paper rule / Mann–Whitney on the target's shuffles so far,
      // as the report's `partial` (computed by the core) has them.
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      eq(report.result.complete, false, 'report is partial');
      const pt = report.partial.targets[0];
      assert(pt && pt.name === 'target[0]' && pt.shuffles_done > 0 && pt.shuffles_done < 1000000, `partial target: ${JSON.stringify(pt && { name: pt.name, k: pt.shuffles_done })}`);
      const v = await values(sde);
      eq(v['sde.partial.in_training.done'], '1000000 of 1000000 (complete)', 'in-training shuffles shown');
      eq(v['sde.partial.out_of_training.done'], '1000000 of 1000000 (complete)', 'out-of-training shuffles shown');
      eq(v['sde.partial.target[0].done'], `${pt.shuffles_done} of 1000000`, 'target shuffles shown');
      eq(v['sde.partial.target[0].jsd_it'], fmt(pt.verdict.jsd_target_it), 'partial JSD to IT shown');
      eq(v['sde.partial.target[0].jsd_oot'], fmt(pt.verdict.jsd_target_oot), 'partial JSD to OOT shown');
      eq(v['sde.partial.target[0].verdict'], `${pt.verdict.in_training ? 'in training' : 'out of training'} (partial)`, 'partial verdict shown, labelled');
      eq(v['sde.partial.target[0].mw'], fmt(pt.mann_whitney_target_vs_oot.p_value), 'partial Mann–Whitney p shown');
      eq(v['sde.partial.separation'], fmt(report.partial.reference_separation.p_value), 'reference separation shown');
      assert(pt.verdict.jsd_target_it >= 0 && pt.verdict.jsd_target_it <= Math.LN2, `a JSD in [0, ln 2]: ${pt.verdict.jsd_target_it}`);

      // The histogram (not the first plot of the panel) draws the target's partial distribution.
      const hist = sde.locator('.lethe-plot-block').filter({ hasText: 'HSIC split-half distributions' });
      await hist.locator('svg').waitFor();
      const drawn = await hist.locator('svg path.lethe-series').evaluateAll((ps) => ps.map((p) => p.dataset.name));
      assert(drawn.includes('target[0] (partial)') && drawn.length === 3, `histogram series: ${drawn.join(', ')}`);
      await sde.locator('.lethe-results').screenshot({ path: path.join(SHOTS, 'cancel-partial.png') });

      // The target's shuffles so far are a prefix of the CLI's stream for the same target and seed.
      const k = pt.shuffles_done;
      const values0 = report.partial.unfinished_targets[0].values;
      eq(values0.length, k, 'values so far in the report');
      const c = cli(['sde', '--it', 'act_unlearned.npy@144..344', '--oot', 'act_unlearned.npy@544..744', '--target', 'act_unlearned.npy@344..544', '--shuffles', String(Math.min(k, 400)), '--seed', '0'], workdir());
      const prefix = compare(values0.slice(0, Math.min(k, 400)), c.result.targets[0].distribution.values, { rel: 1e-12 });
      assert(prefix.diffs.length === 0, `partial values ≠ the CLI's first shuffles: ${prefix.diffs.slice(0, 3).join('; ')}`);

      // A new run afterwards completes.
      await sde.locator('[data-param=shuffles]').fill('50');
      await sde.locator('[data-action="run"]').click();
      const again = await waitRun(sde, 30000);
      assert(/done in/.test(again), `second run: ${again}`);
      assert((await sde.locator('.lethe-partial').count()) === 0, 'no partial banner after a complete run');
      await sde.locator('[data-value="sde.verdict"]').waitFor();
      assert(page.errors.length === 0, page.errors.join('; '));
      return `UI reacted in ${react} ms during the run; cancel took effect in ${stopMs} ms; partial verdict on ${k} of 1000000 target shuffles`;
    },
  },
];
