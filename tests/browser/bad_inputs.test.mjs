// 4. Bad inputs: each gives a clear message next to the input it concerns, the page stays usable, and what was
//    loaded before is still there.
import { closeSync, openSync, ftruncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import { assert, open, shot, waitExample, waitRun, workdir, write } from './lib.mjs';

const card = (page, name) => page.locator(`.lethe-card[data-name="${name}"]`);
const errorFor = (panel, role) => panel.locator(`[data-error-for="${role}"]`).first();

async function addFile(page, file) {
  await page.locator('[data-role="inputs-file"]').setInputFiles(file);
  await card(page, path.basename(file)).waitFor();
}

/** A real sparse file of `bytes` data bytes behind a valid .npy header declaring that size (f8, rows × 1024). */
function hugeNpy(dir, bytes) {
  const rows = bytes / 8 / 1024;
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': (${rows}, 1024), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const head = Buffer.alloc(10 + header.length);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(header.length, 8);
  head.write(header, 10, 'latin1');
  const p = path.join(dir, 'huge.npy');
  const fd = openSync(p, 'w');
  writeSync(fd, head);
  ftruncateSync(fd, head.length + bytes);
  closeSync(fd);
  return p;
}

export const tests = [
  {
    name: 'wrong format, truncated .npy, 3 GB file, mismatched widths, NaN, too few rows, forget index out of range',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/');
      await waitExample(page);
      const before = await page.locator('.lethe-card').count();
      const verdictBefore = await page.locator('[data-value="sde.verdict"]').textContent();

      // Wrong format: PNG bytes, and garbage named .npy.
      await addFile(page, write(dir, 'picture.png', Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(64)])));
      await card(page, 'picture.png').locator('.lethe-error').filter({ hasText: 'unrecognised file format' }).waitFor();
      await addFile(page, write(dir, 'fake.npy', Buffer.concat([Buffer.from('PK'), Buffer.alloc(100)])));
      await card(page, 'fake.npy').locator('.lethe-error').filter({ hasText: /named like \.npy|not a \.npy header|unrecognised/ }).waitFor();

      // Truncated .npy: the header promises 744 × 128 float32, the file stops early.
      const full = await import('node:fs').then((fs) => fs.readFileSync(path.join(dir, 'act_unlearned.npy')));
      await addFile(page, write(dir, 'cut.npy', full.subarray(0, 100000)));
      await card(page, 'cut.npy').locator('.lethe-error').filter({ hasText: 'truncated' }).waitFor();

      // A 3 GB file (sparse on disk): refused from its header, never read or hashed.
      const huge = hugeNpy(dir, 3 * 1024 ** 3);
      const t0 = Date.now();
      await addFile(page, huge);
      await card(page, 'huge.npy').locator('.lethe-error').filter({ hasText: /over this page's limit of 1\.00 GiB/ }).waitFor();
      const hugeMs = Date.now() - t0;
      assert((await card(page, 'huge.npy').locator('.lethe-hash').count()) === 0, 'the 3 GB file is not hashed');
      // Loading all of it is refused (here for the leakage scores, which are loaded)...
      const b = page.locator('#lethe-bounds');
      await b.locator('select[data-role="scores"]').selectOption({ label: 'huge.npy' });
      await b.locator('[data-slot="scores"] .lethe-error').filter({ hasText: /needs \d+ bytes, more than the limit of 1073741824 bytes/ }).waitFor();
      // ... while SDE reads it in place, a panel of columns at a time: the whole file is a valid input.
      const sde = page.locator('#lethe-sde');
      await sde.locator('select[data-role="in_training"]').selectOption({ label: 'huge.npy' });
      await sde.locator('[data-role="in_training-rows-mode"]').selectOption('all');
      await sde.locator('[data-slot="in_training"] .lethe-slot-status').filter({ hasText: /393216 × 1024 .* read in place/ }).waitFor();
      assert((await sde.locator('[data-slot="in_training"] .lethe-error').textContent()) === '', 'no error for the whole file');
      // Its halves' kernels would not fit this tab: a run is refused before any work, next to the input. (Every
      // subset the whole file: subsets of different sizes would be refused first.)
      for (const role of ['out_of_training', 'target']) {
        await sde.locator(`select[data-role="${role}"]`).selectOption({ label: 'huge.npy' });
        await sde.locator(`[data-role="${role}-rows-mode"]`).selectOption('all');
      }
      await sde.locator('[data-action="run"]').click();
      await waitRun(sde);
      await errorFor(sde, 'in_training').filter({ hasText: /is too large: a split half of 196608 rows needs about \d+\.\d GiB/ }).waitFor();
      for (const [role, rows] of [['out_of_training', '544..644'], ['target', '0..100']]) {
        await sde.locator(`select[data-role="${role}"]`).selectOption({ label: 'act_unlearned.npy' });
        await sde.locator(`[data-role="${role}-rows-mode"]`).selectOption('text');
        await sde.locator(`[data-role="${role}-rows"]`).fill(rows);
      }
      // A subset within the limit loads from the same file, reading only those rows (sparse zeros).
      await sde.locator('[data-role="in_training-rows-mode"]').selectOption('text');
      await sde.locator('[data-role="in_training-rows"]').fill('0..10');
      await sde.locator('[data-slot="in_training"] .lethe-slot-status').filter({ hasText: '10 × 1024' }).waitFor();
      assert(hugeMs < 10000, `refusing the 3 GB file took ${hugeMs} ms`);

      // Mismatched widths: a 3-column CSV as the out-of-training reference.
      await sde.locator('select[data-role="in_training"]').selectOption({ label: 'act_unlearned.npy' });
      await sde.locator('[data-role="in_training-rows"]').fill('144..244');
      const narrow = Array.from({ length: 100 }, (_, i) => `${i % 7},${(i * 3) % 5},${i % 2}`).join('\n') + '\n';
      await addFile(page, write(dir, 'narrow.csv', narrow));
      await sde.locator('select[data-role="out_of_training"]').selectOption({ label: 'narrow.csv' });
      await sde.locator('[data-role="out_of_training-rows-mode"]').selectOption('all');
      await sde.locator('[data-slot="out_of_training"] .lethe-slot-status').filter({ hasText: '100 × 3' }).waitFor();
      await sde.locator('[data-action="run"]').click();
      await waitRun(sde);
      // The other input is named by its label on the page (the layer names it by its role).
      await errorFor(sde, 'out_of_training').filter({ hasText: /has 3 columns but .*has 128/ }).waitFor();

      // Too few rows in the target.
      await sde.locator('select[data-role="out_of_training"]').selectOption({ label: 'act_unlearned.npy' });
      await sde.locator('[data-role="out_of_training-rows-mode"]').selectOption('text');
      await sde.locator('[data-role="out_of_training-rows"]').fill('544..644');
      await sde.locator('[data-role="target-rows"]').fill('0..3');
      await sde.locator('[data-slot="target"] .lethe-slot-status').filter({ hasText: '3 × 128' }).waitFor();
      await sde.locator('[data-action="run"]').click();
      await waitRun(sde);
      await errorFor(sde, 'target').filter({ hasText: /has 3 rows, but .* needs at least 4/ }).waitFor();

      // NaN in a CSV: a warning next to the slot when chosen, an error next to it when run.
      await addFile(page, write(dir, 'nan.csv', '0.1\n0.4\nnan\n0.2\n'));
      await b.locator('select[data-role="scores"]').selectOption({ label: 'nan.csv' });
      await b.locator('[data-slot="scores"] .lethe-warning').filter({ hasText: 'non-finite' }).waitFor();
      await b.locator('[data-action="run"]').click();
      await waitRun(b);
      await errorFor(b, 'scores').filter({ hasText: 'non-finite' }).waitFor();

      // A forget index out of range (RULER).
      const ruler = page.locator('#lethe-ruler');
      await ruler.locator('[data-role="forget-rows-mode"]').selectOption('text');
      await ruler.locator('[data-role="forget-rows"]').fill('0,1,9999');
      await ruler.locator('[data-action="run"]').click();
      await waitRun(ruler);
      await errorFor(ruler, 'forget').filter({ hasText: /index 9999 .* out of range: the data has 744 rows/ }).waitFor();
      await shot(page, 'bad-inputs.png', { fullPage: false });

      // An emptied number field is caught in the page, with the field named and focused.
      await sde.locator('[data-param=shuffles]').fill('');
      await sde.locator('[data-action="run"]').click();
      await sde.locator('.lethe-panel-error').filter({ hasText: '“Shuffles T” needs a number.' }).waitFor();
      assert(await sde.locator('[data-param=shuffles]').evaluate((e) => e === document.activeElement), 'the field is focused');
      await sde.locator('[data-param=shuffles]').fill('200');

      // Nothing lost, and the page still works.
      const after = await page.locator('.lethe-card').count();
      assert(after === before + 6, `all earlier inputs still listed (${before} → ${after})`);
      assert((await page.locator('[data-value="sde.verdict"]').textContent()) === verdictBefore, 'the earlier SDE result is still shown');
      await ruler.locator('[data-role="forget-rows-mode"]').selectOption('file');
      await ruler.locator('[data-role="forget-rows-source"]').selectOption({ label: 'forget.txt' });
      await ruler.locator('[data-action="run"]').click();
      assert(/done in/.test(await waitRun(ruler)), 'RULER runs after the errors');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `3 GB file refused in ${hugeMs} ms`;
    },
  },
];
