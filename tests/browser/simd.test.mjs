// 11. The two wasm builds (issue 16). The worker runs the relaxed-SIMD build of its modules (pkg/*_relaxed_bg.wasm:
//     `f32x4.relaxed_madd` in the f32 Gram and exp) where the browser validates relaxed SIMD, the simd128 build
//     otherwise; `?lethe-simd=simd128|relaxed` on the page forces one. Each build is forced here (the rest of the
//     suite runs whichever the browser picks: relaxed in this Chromium), checked by the files the worker fetched, and
//     runs the same SDE request (calibrated, f64 then f32). Stated differences:
//     * f64 (the reference, equal to the CLI: cli_parity.test.mjs): bit-identical between the builds — the relaxed
//       build leaves the f64 kernels as they are;
//     * f32: each build's shuffle values within the f32 tolerance of gpu/tests/suite (`Tolerances::F32`, as
//       webgpu.test.mjs) of the same page's f64 values, so within twice it of each other; they may differ in the
//       last bits (fused multiply-adds round once).
import path from 'node:path';
import { assert, compare, downloadJson, eq, num, open, runDone, workdir } from './lib.mjs';

const SCORE_ULPS = 1.0;
const U32 = 2 ** -24;

/** gpu/tests/suite's f32 score tolerance (webgpu.test.mjs): score_ulps · u · (1 + log2 n²) · κ. */
function scoreTolerance(kernels) {
  const n = kernels.n;
  const kappa = (4 * n * n * num(kernels.x.mean_all)) / ((n - 1) * (n - 1));
  return SCORE_ULPS * U32 * (1 + Math.log2(n * n)) * kappa;
}

/** The distributions of an SDE result (references, then targets). */
const halves = (r) => [r.in_training_reference, r.out_of_training_reference, ...r.targets.map((t) => t.distribution)];

/** Largest |a − b| over the shuffle values, in units of the f32 tolerance of `ref`'s kernels. */
function worstInTol(a, b, ref, what) {
  let worst = 0;
  halves(a).forEach((h, k) => {
    const tol = scoreTolerance(halves(ref)[k].kernels);
    const other = halves(b)[k].values;
    eq(h.values.length, other.length, `${what}: shuffles`);
    h.values.forEach((v, i) => (worst = Math.max(worst, Math.abs(num(v) - num(other[i])) / tol)));
  });
  return worst;
}

async function run(context, base, build) {
  const fetched = [];
  const seen = (r) => {
    const p = new URL(r.url()).pathname;
    if (p.endsWith('.wasm')) fetched.push(p.replace(/^.*\//, ''));
  };
  context.on('request', seen);
  const dir = workdir();
  const page = await open(context, base, `/?example=0&lethe-simd=${build}`);
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
  await sde.locator('[data-param=backend]').selectOption('cpu');
  await sde.locator('[data-slot="target"] .lethe-slot-status').filter({ hasText: '100 × 128' }).waitFor();
  const out = {};
  for (const p of ['f64', 'f32']) {
    await sde.locator('[data-param=precision]').selectOption(p);
    await runDone(sde, 120000);
    out[p] = await downloadJson(page, sde.locator('[data-action="export-json"]'));
    eq(out[p].result.params.precision, p, `${build}: precision`);
    eq(out[p].result.backend.name, 'cpu', `${build}: CPU backend`);
  }
  assert(page.errors.length === 0, page.errors.join('; '));
  // Only this build's modules were fetched (the lean one at least; the full one if the run needed it).
  const mine = build === 'relaxed' ? /_relaxed_bg\.wasm$/ : /^lethe_(lean|web)_bg\.wasm$/;
  assert(fetched.some((f) => /^lethe_lean/.test(f)), `${build}: the lean module was fetched: ${fetched.join(' ')}`);
  assert(fetched.every((f) => mine.test(f)), `${build}: only the ${build} build's modules were fetched: ${fetched.join(' ')}`);
  await page.close();
  context.off('request', seen);
  return { ...out, fetched: [...new Set(fetched)] };
}

export const tests = [
  {
    name: 'both wasm builds (simd128, relaxed SIMD) forced in turn: f64 bit-identical, f32 within the f32 tolerance of f64',
    async fn({ context, base }) {
      const s = await run(context, base, 'simd128');
      const r = await run(context, base, 'relaxed');
      const same = compare(r.f64.result, s.f64.result, { at: 'f64' });
      assert(same.diffs.length === 0 && same.inexact === 0, `f64 differs between the builds:\n${same.diffs.slice(0, 8).join('\n')}`);
      const cal = compare(r.f64.calibrated.result, s.f64.calibrated.result, { at: 'f64.calibrated.result' });
      assert(cal.diffs.length === 0 && cal.inexact === 0, `f64 calibrated verdict differs between the builds:\n${cal.diffs.slice(0, 8).join('\n')}`);
      const ws = worstInTol(s.f32.result, s.f64.result, s.f64.result, 'simd128 f32 vs f64');
      const wr = worstInTol(r.f32.result, r.f64.result, r.f64.result, 'relaxed f32 vs f64');
      assert(ws <= 1 && wr <= 1, `f32 beyond the f32 tolerance of f64: simd128 ${ws.toFixed(3)}, relaxed ${wr.toFixed(3)} tolerances`);
      const between = worstInTol(r.f32.result, s.f32.result, s.f64.result, 'relaxed vs simd128 f32');
      assert(between <= 2, `the builds' f32 values differ by ${between.toFixed(3)} tolerances (allowed 2)`);
      const vs = halves(r.f32.result).flatMap((h) => h.values);
      const vs0 = halves(s.f32.result).flatMap((h) => h.values);
      const identical = vs.filter((v, i) => v === vs0[i]).length;
      return (
        `simd128 fetched ${s.fetched.join(', ')}; relaxed fetched ${r.fetched.join(', ')}; f64 identical; f32 vs f64 within ` +
        `${ws.toFixed(3)} (simd128) and ${wr.toFixed(3)} (relaxed) of the tolerance; ${identical} of ${vs.length} f32 values bit-identical between the builds`
      );
    },
  },
];
