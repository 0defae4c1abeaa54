// 11. A long SDE run on a file read in place (issue 24 item 8: on a 1 GiB file, progress went from "100% · target
//     1/1" back to 12%, Cancel took 12 s and no partial result appeared). A 64 MiB float32 file whose pool of targets
//     (131 MB as f64) is read in place stands in for it. Both rules ("paper + calibrated", the default) are two
//     runs; the bar never goes back and the progress line names the step. Cancel during the paper rule stops within
//     2 s and shows its partial result, and says the calibrated verdict was not computed.
import path from 'node:path';
import { assert, downloadJson, eq, open, rng, slot, waitRun, write } from './lib.mjs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** .npy bytes of `rows × cols` float32 ReLU-like values from a seeded generator. */
function npyF32(rows, cols, seed) {
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${rows}, ${cols}), }`;
  header += ' '.repeat((64 - ((10 + header.length + 1) % 64)) % 64) + '\n';
  const buf = Buffer.alloc(10 + header.length + rows * cols * 4);
  buf.write('\x93NUMPY', 0, 'latin1');
  buf[6] = 1;
  buf.writeUInt16LE(header.length, 8);
  buf.write(header, 10, 'latin1');
  const u = rng(seed);
  const values = new Float32Array(buf.buffer, buf.byteOffset + 10 + header.length, rows * cols);
  for (let i = 0; i < rows; i++) {
    const scale = 0.5 + (i % 7) / 7;
    for (let j = 0; j < cols; j++) values[i * cols + j] = Math.max(0, (u() - 0.4) * scale);
  }
  return buf;
}

/** Starts recording the panel's progress line: [ms, text] on every change. */
const record = (sde) =>
  sde.locator('.lethe-progress-text').evaluate((el) => {
    window.__progress = [];
    window.__observer?.disconnect();
    const t0 = performance.now();
    window.__observer = new MutationObserver(() => window.__progress.push([Math.round(performance.now() - t0), el.textContent]));
    window.__observer.observe(el, { childList: true, characterData: true, subtree: true });
  });
const recorded = (page) => page.evaluate(() => window.__progress);
const percents = (log) => log.map(([, t]) => t.match(/^(\d+)%/)).filter(Boolean).map((m) => Number(m[1]));

export const tests = [
  {
    name: 'SDE on a 64 MiB file read in place: both rules, progress monotone with the step named; Cancel stops in < 2 s with the partial result',
    async fn({ context, base }) {
      const dir = mkdtempSync(path.join(tmpdir(), 'lethe-in-place-progress-'));
      const file = write(dir, 'big.npy', npyF32(16384, 1024, 11));
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      await sde.locator('[data-param=mode]').selectOption('many');
      const [it, oot, pool] = ['in_training', 'out_of_training', 'draw-from'].map((role) => slot(sde, role));
      await it.pick(file);
      await it.rows('0..200');
      await it.status().filter({ hasText: '200 × 1024' }).waitFor({ timeout: 30000 });
      await oot.choose('big.npy');
      await oot.rows('200..400');
      await pool.choose('big.npy');
      // Targets are drawn from the rows after the references' (the calibrated verdict's references come from
      // these): 15,984 rows, 131 MB as f64, over the 64 MiB at which a pool is read in place.
      await pool.rows('400..16384');
      await pool.status().filter({ hasText: /15984 × 1024 .* read in place from the file/ }).waitFor({ timeout: 30000 });
      eq(await sde.locator('[data-param=rule]').inputValue(), 'both', 'both rules by default');
      await sde.locator('[data-param=draw]').fill('3');
      await sde.locator('[data-param=size]').fill('200');

      // A complete run: one bar over both steps, never going back.
      await sde.locator('[data-param=shuffles]').fill('50');
      await record(sde);
      await sde.locator('[data-action="run"]').click();
      const first = await waitRun(sde, 180000);
      assert(/done in/.test(first), `run finished: ${first} ${await sde.locator('.lethe-error').allTextContents()}`);
      const log1 = await recorded(page);
      const p1 = percents(log1);
      assert(p1.every((v, k) => k === 0 || v >= p1[k - 1]), `progress went back: ${p1.join(' ')}`);
      const texts = log1.map(([, t]) => t);
      const paperAt = texts.findIndex((t) => /step 1 of 2, paper rule: /.test(t));
      const calAt = texts.findIndex((t) => /step 2 of 2, calibrated verdict: /.test(t));
      const skip = await sde.locator('[data-value="sde.cal.skipped"]').allTextContents();
      assert(paperAt >= 0 && calAt > paperAt, `both steps named, in order: ${[...new Set(texts.map((t) => t.replace(/^\d+% · /, '').replace(/: .*/, '')))].join(' | ')} ${skip}`);
      assert(p1[p1.length - 1] >= 50 && texts.slice(calAt).every((t) => !/^\d+%/.test(t) || Number(t.match(/^(\d+)/)[1]) >= 50), 'the calibrated step fills the second half');
      await sde.locator('[data-value="sde.verdict"], [data-value="sde.otr"]').first().waitFor();

      // A long run stopped during the paper rule: within 2 s, its partial result, and no calibrated verdict.
      await sde.locator('[data-param=shuffles]').fill('100000');
      await record(sde);
      await sde.locator('[data-action="run"]').click();
      await sde.locator('.lethe-progress-text').filter({ hasText: /^(1\d|2\d|3\d|4[0-5])% · step 1 of 2, paper rule: / }).waitFor({ timeout: 180000 });
      const t1 = Date.now();
      await sde.getByRole('button', { name: 'Cancel' }).click();
      const text = await waitRun(sde, 30000);
      const stopMs = Date.now() - t1;
      assert(/stopped in/.test(text), `stopped: ${text}`);
      assert(stopMs < 2000, `Cancel took ${stopMs} ms`);
      const p2 = percents(await recorded(page));
      assert(p2.every((v, k) => k === 0 || v >= p2[k - 1]), `progress went back: ${p2.join(' ')}`);
      const partial = await sde.locator('[data-value="sde.stopped"]').textContent();
      assert(/Stopped early — partial result/.test(partial), `partial banner: ${partial}`);
      await sde.locator('[data-value="sde.partial"]').waitFor();
      const skipped = await sde.locator('[data-value="sde.cal.skipped"]').textContent();
      assert(/calibrated verdict was not computed: the run was stopped/.test(skipped), `calibrated step: ${skipped}`);
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      eq(report.result.complete, false, 'the report is partial');
      assert(/not computed: the run was stopped/.test(report.calibrated?.skipped), `the export says why there is no calibrated verdict: ${JSON.stringify(report.calibrated)}`);
      assert(report.partial && report.partial.subsets.length === 5, `partial covers the 5 subsets: ${report.partial && report.partial.subsets.length}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `complete run: ${p1.length} progress steps 0→${p1[p1.length - 1]}%, monotone; cancel at ${p2[p2.length - 1]}% took ${stopMs} ms; partial: ${partial.slice(0, 140)}`;
    },
  },
];
