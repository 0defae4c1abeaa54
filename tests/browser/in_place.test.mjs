// 10. Reading in place: an SDE input whose rows would take more than 64 MiB as f64 is not loaded into the worker but
//     read from its File a panel of columns at a time while each subset's kernels are built (analysis/src/workspace.rs,
//     lethe::data::ArrayFile). The slot says so, and the report equals `lethe sde --json` on the same file.
import path from 'node:path';
import { assert, cli, compare, downloadJson, eq, open, rng, runDone, slot, write } from './lib.mjs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** .npy bytes of `rows × cols` float32 values (ReLU-like activations from a seeded generator). */
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
    const scale = 0.5 + (i % 7) / 7; // rows differ in spread, so the kernels are not flat
    for (let j = 0; j < cols; j++) values[i * cols + j] = Math.max(0, (u() - 0.4) * scale);
  }
  return buf;
}

export const tests = [
  {
    name: 'SDE on a file read in place (draw pool of 2500 × 4096 float32: 82 MB as f64) equals `lethe sde --json`',
    async fn({ context, base }) {
      const dir = mkdtempSync(path.join(tmpdir(), 'lethe-in-place-'));
      const file = write(dir, 'wide.npy', npyF32(2500, 4096, 7));
      const page = await open(context, base, '/?example=0');
      const sde = page.locator('#lethe-sde');
      await sde.locator('[data-param=mode]').selectOption('many');
      const [it, oot, pool] = ['in_training', 'out_of_training', 'draw-from'].map((role) => slot(sde, role));
      await it.pick(file);
      await it.rows('0..200');
      await it.status().filter({ hasText: '200 × 4096' }).waitFor();
      await oot.choose('wide.npy');
      await oot.rows('200..400');
      await pool.choose('wide.npy');
      await sde.locator('[data-role="draw-from-rows-mode"]').first().selectOption('all');
      await pool.status().filter({ hasText: /2500 × 4096 .* read in place from the file/ }).waitFor({ timeout: 15000 });
      assert(!/read in place/.test(await it.status().textContent()), 'small subsets are loaded');
      await sde.locator('[data-param=draw]').fill('3');
      await sde.locator('[data-param=size]').fill('200');
      await sde.locator('[data-param=shuffles]').fill('50');
      await sde.locator('[data-param=seed]').fill('2');
      await runDone(sde, 120000);
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      const c = cli(['sde', '--it', 'wide.npy@0..200', '--oot', 'wide.npy@200..400', '--draw-from', 'wide.npy', '--draw', '3', '--size', '200', '--shuffles', '50', '--seed', '2', '--in-place', 'always'], dir);
      // As in calibrated.test.mjs: the exact shuffle variance E[Γ²] − E[Γ]² cancels when a subset's kernel entries
      // are close to one another (as on these wide rows at σ = √4096 = 64), which magnifies the
      // last-bit differences between wasm's and x86-64's SIMD summation orders (~2e-10 seen); everything else
      // equals the CLI to 1e-12.
      const cancelling = { re: /moments\.(variance|sd)$/, rel: 1e-9 };
      const r = compare(report.result, c.result, { rel: 1e-12, abs: 1e-10, absPaths: /kernels\.(kc|l)_sums\./, loose: cancelling, at: 'result', ignore: ['result.backend.device'] });
      assert(r.diffs.length === 0, `result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
      for (const part of ['inputs', 'parameters']) {
        const d = compare(report[part], c[part], { at: part });
        assert(d.diffs.length === 0, `${part} differ:\n${d.diffs.slice(0, 8).join('\n')}`);
      }
      eq(c.result.targets.length, 3, 'targets drawn');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${r.compared} numbers equal the CLI (${r.inexact} in the last bits, max rel ${r.maxRel.toExponential(1)}; shuffle variances ${(r.maxLoose || 0).toExponential(1)}); the pool was read in place`;
    },
  },
];
