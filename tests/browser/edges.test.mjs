// Issue 24 item 8, the page's loose ends, from a person's own files:
// * a table's header row read as column names is a note (muted), not a warning, on the card and at the slot, while
//   a real problem of the same file (a label column left out) stays a warning;
// * a stored array of more than two dimensions is said as stored, then as read (16 × 150 × 3 read as 16 × 450).
import path from 'node:path';
import { assert, npy, open, slot, workdir, write } from './lib.mjs';

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
];
