// Issue 24 item 8, the page's loose ends, from a person's own files:
// * a table's header row read as column names is a note (muted), not a warning, on the card and at the slot, while
//   a real problem of the same file (a label column left out) stays a warning;
// * a stored array of more than two dimensions is said as stored, then as read (16 × 150 × 3 read as 16 × 450);
// * removing the index file a panel's rows come from marks its results out of date, downloads disabled (as removing
//   an input does), where they stayed current;
// * the leakage bounds' slider reading (M_gen at the chosen x) is in the exported report, as shown.
import path from 'node:path';
import { assert, downloadJson, eq, fmt, npy, open, rng, runDone, slot, workdir, write } from './lib.mjs';

export const tests = [
  {
    name: 'a CSV header is a note, not a warning; a 3-D array is said as stored and as read',
    async fn({ context, base }) {
      const dir = workdir();
      const rows = Array.from({ length: 40 }, (_, i) => `${(i * 0.37) % 1},${(i * 0.61) % 1},${i % 3}`);
      write(dir, 'acts.csv', `f0,f1,label\n${rows.join('\n')}\n`);
      write(dir, 'cube.npy', npy(Array.from({ length: 16 * 150 * 3 }, (_, i) => (i % 97) / 97), [16, 150, 3]));
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      await sde.waitFor();
      await page.locator('[data-role="inputs-file"]').setInputFiles(['acts.csv', 'cube.npy'].map((f) => path.join(dir, f)));
      const card = page.locator('.lethe-card[data-name="acts.csv"]');
      await card.locator('.lethe-hash').waitFor({ timeout: 15000 });
      const header = card.getByText(/was read as column names/);
      await header.waitFor();
      const cls = await header.getAttribute('class');
      assert(/muted/.test(cls) && !/warning/.test(cls), `the header note is muted, not a warning: class "${cls}"`);
      const label = card.getByText(/named like a label or ID column/);
      assert(/warning/.test(await label.getAttribute('class')), 'the label column left out stays a warning');

      await slot(sde, 'target').choose('cube.npy');
      await slot(sde, 'target').status().filter({ hasText: '16 × 150 × 3 read as 16 × 450' }).waitFor({ timeout: 15000 });
      await slot(sde, 'in_training').choose('acts.csv');
      await slot(sde, 'in_training').status().filter({ hasText: '40 × 2' }).waitFor({ timeout: 15000 });
      const at = sde.locator('[data-slot="in_training"]');
      const note = at.getByText(/was read as column names/);
      if (await note.count()) assert(/muted/.test(await note.first().getAttribute('class')), 'at the slot too, a note');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'removing the index file of RULER\u2019s forget rows marks its results out of date, downloads disabled',
    async fn({ context, base }) {
      const dir = workdir();
      const emb = (seed) => {
        const u = rng(seed);
        return npy(Array.from({ length: 200 * 8 }, () => u() - 0.5), [200, 8]);
      };
      write(dir, 'unlearned.npy', emb(1));
      write(dir, 'oracle.npy', emb(2));
      write(dir, 'my_forget.txt', Array.from({ length: 40 }, (_, i) => i).join('\n') + '\n');
      const page = await open(context, base, '/?example=0');
      const ruler = page.locator('#lethe-ruler');
      await ruler.waitFor();
      await page.locator('[data-role="inputs-file"]').setInputFiles(['unlearned.npy', 'oracle.npy', 'my_forget.txt'].map((f) => path.join(dir, f)));
      await page.locator('.lethe-card[data-name="my_forget.txt"] .lethe-hash').waitFor({ timeout: 15000 });
      await slot(ruler, 'unlearned').choose('unlearned.npy');
      await slot(ruler, 'oracle').choose('oracle.npy');
      await slot(ruler, 'forget').rowsFile('my_forget.txt');
      await slot(ruler, 'retain').rows('40..200');
      await runDone(ruler);
      eq(await ruler.locator('.lethe-results').getAttribute('data-stale'), null, 'RULER fresh after its run');
      await page.locator('.lethe-card[data-name="my_forget.txt"]').getByRole('button', { name: /Remove/ }).click();
      await ruler.locator('[data-value="stale"]').filter({ hasText: /removed/ }).waitFor({ timeout: 10000 });
      eq(await ruler.locator('.lethe-results').getAttribute('data-stale'), 'true', 'stale after its rows\u2019 file was removed');
      assert(await ruler.locator('[data-action="export-json"]').isDisabled(), 'JSON download disabled');
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
  {
    name: 'the bounds slider\u2019s reading is exported with the report',
    async fn({ context, base }) {
      const page = await open(context, base, '/?example=0');
      const b = page.locator('#lethe-bounds[data-panel]');
      await b.waitFor({ timeout: 30000 });
      await b.locator('[data-action="synthetic-scores"]').click();
      await b.locator('[data-slot="scores"] .lethe-slot-status').filter({ hasText: '200 × 1' }).waitFor();
      await runDone(b);
      await b.locator('[data-role="mgen-x"]').fill('0.7');
      const shown = await b.locator('[data-value="bounds.slider"]').filter({ hasText: 'M_gen(0.7)' }).textContent();
      const report = await downloadJson(page, b.locator('[data-action="export-json"]'));
      eq(report.slider?.x, 0.7, 'the slider\u2019s x is exported');
      assert(shown.includes(`M_gen(0.7) = ${fmt(report.slider.m_gen)}`), `the exported M_gen is the one shown: ${shown} vs ${JSON.stringify(report.slider)}`);
      assert(page.errors.length === 0, page.errors.join('; '));
    },
  },
];
