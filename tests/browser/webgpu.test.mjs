// 9. WebGPU in the page (issue 4, "In the page"). The worker feature-detects WebGPU itself; with
//    --enable-unsafe-webgpu (SwiftShader, no GPU needed) the page picks WebGPU for f32 SDE work, shows the adapter
//    next to the results and in the JSON report, and its numbers agree with the CPU f32 path on the same shuffles
//    within the tolerances stated in gpu/tests/suite (mod.rs, `Tolerances::F32`); a lost device becomes an error with
//    a one-click CPU retry, never a hang; a browser launched without WebGPU falls back to the CPU and says so.
//    Problem sizes are modest: SwiftShader runs the shaders on the CPU.
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, WEBGPU_FLAG, assert, downloadJson, eq, num, open, runDone, waitRun, workdir } from './lib.mjs';

// gpu/tests/suite/mod.rs, Tolerances::F32 and MEAN_ATOL: scores within score_ulps · u (1 + log2 n²) · κ of the f64
// reference (κ: the score's magnitude scale), kernel means within 1e-5 relative + 1e-15, exact moments within 1e-4
// relative (exact_moments_match_cpu_f64).
const SCORE_ULPS = 1.0;
const KERNEL_MEAN_REL = 1e-5;
const MEAN_ATOL = 1e-15;
const MOMENTS_REL = 1e-4;
const U32 = 2 ** -24;

/**
 * The suite's κ = Σ_ij K̄_ij L_{p(i)p(j)} / (n−1)² with K̄_ij = K_ij + r_i + r_j + g is bounded, since 0 ≤ L ≤ 1 and
 * Σ_ij K̄_ij = 4 n² mean(K), by 4 n² mean_all(K) / (n−1)² — computable from the report's kernel statistics.
 * Both the GPU and the CPU f32 path are within the tolerance of the f64 reference, so they are within twice it of
 * each other.
 */
function scoreTolerance(kernels) {
  const n = kernels.n;
  const kappa = (4 * n * n * num(kernels.x.mean_all)) / ((n - 1) * (n - 1));
  return SCORE_ULPS * U32 * (1 + Math.log2(n * n)) * kappa;
}

/** Compares two SplitHalf distributions (same shuffles); returns the largest score error in tolerance units. */
function closeHalves(gpu, cpu, what) {
  eq(gpu.values.length, cpu.values.length, `${what}: shuffles`);
  const tol = scoreTolerance(cpu.kernels);
  let worst = 0;
  gpu.values.forEach((v, i) => {
    const d = Math.abs(num(v) - num(cpu.values[i]));
    worst = Math.max(worst, d / tol);
    assert(d <= 2 * tol, `${what}: shuffle ${i}: GPU ${v} vs CPU f32 ${cpu.values[i]} (|Δ| ${d.toExponential(2)} > 2 × ${tol.toExponential(2)})`);
  });
  for (const side of ['x', 'y']) {
    for (const k of ['mean_all', 'mean_offdiag']) {
      const [a, b] = [num(gpu.kernels[side][k]), num(cpu.kernels[side][k])];
      assert(Math.abs(a - b) <= 2 * (KERNEL_MEAN_REL * Math.abs(b) + MEAN_ATOL), `${what}: kernel ${side}.${k} ${a} vs ${b}`);
    }
    const [s, t] = [num(gpu.kernels[side].sigma), num(cpu.kernels[side].sigma)];
    assert(Math.abs(s - t) <= 1e-6 * t, `${what}: σ ${s} vs ${t}`);
  }
  closeMoments(gpu.moments, cpu.moments, what);
  return worst;
}

function closeMoments(a, b, what) {
  for (const k of ['mean', 'sd']) {
    const [x, y] = [num(a[k]), num(b[k])];
    assert(Math.abs(x - y) <= 2 * MOMENTS_REL * Math.abs(y), `${what}: exact ${k} ${x} vs ${y}`);
  }
}

async function setUp(page, dir) {
  const sde = page.locator('#lethe-sde');
  await sde.locator('[data-role="in_training-file"]').setInputFiles(path.join(dir, 'act_unlearned.npy'));
  await sde.locator('[data-slot="in_training"] .lethe-slot-status').filter({ hasText: '744 × 128' }).waitFor({ timeout: 15000 });
  for (const [role, rows] of [['in_training', '144..244'], ['out_of_training', '544..644'], ['target', '0..100']]) {
    if (role !== 'in_training') await sde.locator(`select[data-role="${role}"]`).selectOption({ label: 'act_unlearned.npy' });
    await sde.locator(`[data-role="${role}-rows-mode"]`).selectOption('text');
    await sde.locator(`[data-role="${role}-rows"]`).fill(rows);
  }
  await sde.locator('[data-role="it_pool-rows"]').fill('144..544');
  await sde.locator('[data-role="oot_pool-rows"]').fill('544..744');
  await sde.locator('[data-param=refs]').fill('5');
  await sde.locator('[data-param=precision]').selectOption('f32');
  await sde.locator('[data-slot="target"] .lethe-slot-status').filter({ hasText: '100 × 128' }).waitFor();
  return sde;
}

export const tests = [
  {
    name: 'with WebGPU (SwiftShader) the page picks WebGPU for f32 work, names the adapter, and agrees with the CPU f32 path',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      await page.locator('.lethe-version[data-webgpu]').waitFor({ timeout: 20000 });
      eq(await page.locator('.lethe-version').getAttribute('data-webgpu'), 'available', 'the worker found a WebGPU adapter');
      const sde = await setUp(page, dir);
      const option = await sde.locator('[data-param=backend] option[value="webgpu"]').textContent();
      assert(/^WebGPU \(.+\)$/.test(option), `the WebGPU choice names the adapter: ${option}`);
      eq(await sde.locator('[data-param=backend]').inputValue(), 'auto', 'auto by default');
      const tg = await runDone(sde, 120000);
      const line = await sde.locator('[data-value="backend"]').textContent();
      assert(/^Computed on: WebGPU, f32 kernels — .+/.test(line) && line.includes('auto chose WebGPU'), `backend shown: ${line}`);
      const gpu = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      eq(gpu.result.backend.name, 'webgpu', 'report: backend');
      eq(gpu.computed_by.backend.name, 'webgpu', 'report: computed_by');
      assert(gpu.result.backend.device.length > 3, 'report: adapter');
      eq(gpu.calibrated.result.backend.name, 'webgpu', 'the calibrated verdict ran on the GPU too');

      await sde.locator('[data-param=backend]').selectOption('cpu');
      await runDone(sde, 120000);
      const cpu = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      eq(cpu.result.backend.name, 'cpu', 'CPU run');
      eq(cpu.result.params.precision, 'f32', 'CPU f32 path');
      const [g, c] = [gpu.result, cpu.result];
      let worst = 0;
      worst = Math.max(worst, closeHalves(g.in_training_reference, c.in_training_reference, 'in-training reference'));
      worst = Math.max(worst, closeHalves(g.out_of_training_reference, c.out_of_training_reference, 'out-of-training reference'));
      worst = Math.max(worst, closeHalves(g.targets[0].distribution, c.targets[0].distribution, 'target'));
      const [gc, cc] = [gpu.calibrated.result, cpu.calibrated.result];
      const subsets = (r) => [...r.in_training.stats, ...r.out_of_training.stats, ...r.targets.map((t) => t.stats)];
      subsets(gc).forEach((s, i) => closeMoments(s.moments, subsets(cc)[i].moments, `calibrated subset ${i}`));
      assert(page.errors.length === 0, page.errors.join('; '));
      return `GPU run ${tg.replace('done in ', '')} on ${g.backend.device}; largest score error ${(worst).toFixed(3)} of the suite's tolerance (allowed 2 against CPU f32)`;
    },
  },
  {
    name: 'a lost GPU device becomes an error with a one-click CPU retry (no hang), and the next GPU run gets a new device',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0');
      await page.locator('.lethe-version[data-webgpu="available"]').waitFor({ timeout: 20000 });
      // Keep the devices the worker's wgpu requests, so the test can destroy them (as a driver reset would).
      const [worker] = page.workers();
      await worker.evaluate(() => {
        const request = GPUAdapter.prototype.requestDevice;
        self.__letheDevices = [];
        GPUAdapter.prototype.requestDevice = async function (...args) {
          const d = await request.apply(this, args);
          self.__letheDevices.push(d);
          return d;
        };
      });
      const sde = await setUp(page, dir);
      await sde.locator('[data-param=rule]').selectOption('paper');
      await sde.locator('[data-param=backend]').selectOption('webgpu');
      await sde.locator('[data-param=shuffles]').fill('40000');
      await sde.locator('[data-action="run"]').click();
      await sde.locator('.lethe-progress-text').filter({ hasText: /[1-9]\d*% ·/ }).waitFor({ timeout: 60000 });
      const lost = await worker.evaluate(() => {
        for (const d of self.__letheDevices) d.destroy();
        return self.__letheDevices.length;
      });
      assert(lost >= 1, 'the GPU run requested a device');
      const t0 = Date.now();
      const text = await waitRun(sde, 30000);
      const ms = Date.now() - t0;
      assert(/failed/.test(text), `the run ends in an error: ${text}`);
      const message = await sde.locator('.lethe-panel-error').textContent();
      assert(/GPU/.test(message), `the error names the GPU: ${message}`);
      await sde.locator('[data-param=shuffles]').fill('300');
      await sde.getByRole('button', { name: 'Retry on the CPU' }).click();
      await waitRun(sde, 60000);
      eq(await sde.locator('[data-param=backend]').inputValue(), 'cpu', 'the retry switched to the CPU');
      assert((await sde.locator('[data-value="backend"]').textContent()).startsWith('Computed on: CPU'), 'the retry ran on the CPU');
      // A new GPU run requests a new device.
      await sde.locator('[data-param=backend]').selectOption('webgpu');
      await runDone(sde, 120000);
      assert((await sde.locator('[data-value="backend"]').textContent()).startsWith('Computed on: WebGPU'), 'GPU again');
      const devices = await worker.evaluate(() => self.__letheDevices.length);
      assert(devices === lost + 1, `a fresh device after the loss (${devices} requested)`);
      const errors = page.errors.filter((e) => !/GPU|device|Device/.test(e));
      assert(errors.length === 0, errors.join('; '));
      return `the error was shown ${ms} ms after the device was destroyed: ${message.slice(0, 140)}…`;
    },
  },
  {
    name: 'a browser without WebGPU falls back to the CPU and says so',
    async fn({ base }) {
      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS.filter((a) => a !== WEBGPU_FLAG) });
      try {
        const context = await browser.newContext({ acceptDownloads: true });
        const page = await open(context, base, '/');
        await page.locator('.lethe-version[data-webgpu]').waitFor({ timeout: 20000 });
        eq(await page.locator('.lethe-version').getAttribute('data-webgpu'), 'unavailable', 'no WebGPU found by the worker');
        const note = await page.locator('.lethe-webgpu-note').textContent();
        assert(/no WebGPU/.test(note), `visible note: ${note}`);
        await page.locator('[data-value="sde.verdict"]').waitFor({ timeout: 30000 });
        const sde = page.locator('#lethe-sde');
        assert(await sde.locator('[data-param=backend] option[value="webgpu"]').isDisabled(), 'WebGPU cannot be chosen');
        await sde.locator('[data-param=precision]').selectOption('f32');
        await runDone(sde, 120000);
        const line = await sde.locator('[data-value="backend"]').textContent();
        assert(line.startsWith('Computed on: CPU (wasm), f32') && line.includes('auto chose the CPU'), `fallback said: ${line}`);
        const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
        eq(report.computed_by.backend.name, 'cpu', 'report: CPU');
        assert(page.errors.length === 0, page.errors.join('; '));
        return line;
      } finally {
        await browser.close();
      }
    },
  },
];
