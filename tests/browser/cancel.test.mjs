// 3. Cancelling a long run: the page keeps responding while the worker computes, Cancel stops the core at its next
//    checkpoint, the partial result is shown, and a new run afterwards works.
import { assert, open, waitExample, waitRun } from './lib.mjs';

export const tests = [
  {
    name: 'a long SDE run stays responsive, cancels to a partial result, and a new run works',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page);
      const sde = page.locator('#lethe-sde');
      // All 744 rows in each subset and 200,000 shuffles: about a minute of work.
      for (const k of ['in_training', 'out_of_training', 'target']) await sde.locator(`[data-role="${k}-rows"]`).fill('0..744');
      await sde.locator('[data-param=shuffles]').fill('200000');
      await sde.locator('[data-slot="target"] .lethe-slot-status').filter({ hasText: '744 × 128' }).waitFor();
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
      assert(/about .* left/.test(await sde.locator('.lethe-progress-text').textContent()), 'an ETA is shown');

      const t1 = Date.now();
      await sde.getByRole('button', { name: 'Cancel' }).click();
      const text = await waitRun(sde, 10000);
      const stopMs = Date.now() - t1;
      assert(/stopped in/.test(text), `stopped: ${text}`);
      const partial = await sde.locator('.lethe-partial').textContent();
      assert(partial.includes('Stopped early') && /In-training reference: \d+ of 200000 shuffles/.test(partial), `partial result shown: ${partial}`);
      assert(await sde.locator('.lethe-plot-block svg').first().isVisible(), 'the partial distribution is plotted');

      // A new run afterwards completes.
      await sde.locator('[data-param=shuffles]').fill('50');
      await sde.locator('[data-action="run"]').click();
      const again = await waitRun(sde, 30000);
      assert(/done in/.test(again), `second run: ${again}`);
      assert((await sde.locator('.lethe-partial').count()) === 0, 'no partial banner after a complete run');
      await sde.locator('[data-value="sde.verdict"]').waitFor();
      assert(page.errors.length === 0, page.errors.join('; '));
      return `UI reacted in ${react} ms during the run; cancel took effect in ${stopMs} ms`;
    },
  },
];
