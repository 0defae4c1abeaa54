// 11. A pool of plain Web Workers for multi-target SDE on the CPU (issue 4, CPU path): the page's worker and up to
//     three more (min(hardwareConcurrency, 4); `?workers=3` here), each its own wasm instance, no SharedArrayBuffer,
//     split the run's subsets. Each subset has its own shuffle stream (k = 2 + i for target i), so the pooled report
//     must equal the single-worker one number for number; progress covers the whole pool and a cancel reaches every
//     worker (partial result, then a new run works).
import path from 'node:path';
import { assert, compare, downloadJson, eq, open, runDone, waitRun, workdir } from './lib.mjs';

async function setUp(page, dir) {
  const sde = page.locator('#lethe-sde');
  await sde.locator('[data-param=mode]').selectOption('many');
  await sde.locator('[data-role="in_training-file"]').setInputFiles(path.join(dir, 'act_retrained.npy'));
  await sde.locator('[data-slot="in_training"] .lethe-slot-status').filter({ hasText: '744 × 128' }).waitFor({ timeout: 15000 });
  for (const [role, rows] of [['in_training', '144..244'], ['out_of_training', '544..644'], ['draw-in', '244..544'], ['draw-out', '644..744']]) {
    if (role !== 'in_training') await sde.locator(`select[data-role="${role}"]`).selectOption({ label: 'act_retrained.npy' });
    await sde.locator(`[data-role="${role}-rows-mode"]`).selectOption('text');
    await sde.locator(`[data-role="${role}-rows"]`).fill(rows);
  }
  await sde.locator('[data-param=rule]').selectOption('paper');
  await sde.locator('[data-param=draw]').fill('6');
  await sde.locator('[data-param=size]').fill('100');
  await sde.locator('[data-param=seed]').fill('4');
  await sde.locator('[data-param=split]').selectOption('random');
  await sde.locator('[data-param=baselines]').check();
  await sde.locator('[data-slot="draw-out"] .lethe-slot-status').filter({ hasText: '100 × 128' }).waitFor();
  return sde;
}

async function runOk(sde) {
  await runDone(sde, 120000);
  return Number(await sde.getAttribute('data-last-run-ms'));
}

/**
 * Starts a pooled SDE run on a source the pool's workers have not been given yet and cancels it at once — while
 * the page's worker is still handing that source to the others — and returns how long the partial result took.
 */
async function cancelAtStart(page, shuffles) {
  return page.evaluate(async (shuffles) => {
    const w = window.lethe;
    const n = 600;
    const d = 16;
    const values = Float64Array.from({ length: n * d }, (_, i) => Math.sin(i * 0.731) + ((i * 7919) % 13) / 13);
    const item = await w.store.add({ matrix: { values, shape: [n, d] }, name: `fresh-${Math.random()}` });
    const rows = (text) => ({ source: item.id, rows: { kind: 'text', text } });
    const request = { in_training: rows('0..200'), out_of_training: rows('200..400'), target: [], target_in: [], target_out: [], draw_from: rows('400..600'), draw: 6, size: 100, shuffles, seed: 1, backend: 'cpu', equal_size: true };
    const ac = new AbortController();
    const t0 = performance.now();
    const p = w.store.engine.request('run', { analysis: 'sde', request, pool: true }, { signal: ac.signal });
    ac.abort();
    const out = await p;
    return { ms: performance.now() - t0, complete: out.result.complete, pool: out.pool?.workers ?? 1, targets: out.result.targets.length };
  }, shuffles);
}

export const tests = [
  {
    name: 'a pooled multi-target SDE run (3 workers) equals the single-worker run number for number; progress and cancel work',
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0&workers=3');
      await page.locator('.lethe-root[data-workers="3"]').waitFor({ timeout: 30000 });
      const sde = await setUp(page, dir);
      await sde.locator('[data-param=shuffles]').fill('150');
      await sde.locator('[data-param=workers]').selectOption('one');
      const msOne = await runOk(sde);
      const one = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      assert(!(await sde.locator('[data-value="backend"]').textContent()).includes('workers'), 'one worker');

      await page.evaluate(() => {
        window.__phases = [];
        window.lethe.on('progress', (p) => window.__phases.push([p.fraction, p.phase]));
      });
      await sde.locator('[data-param=workers]').selectOption('pool');
      const msPool = await runOk(sde);
      const pooled = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      const line = await sde.locator('[data-value="backend"]').textContent();
      assert(line.includes('split across 3 workers'), `the pool is said: ${line}`);
      const c = compare(pooled.result, one.result, { at: 'pooled' });
      assert(c.diffs.length === 0 && c.inexact === 0, `pooled ≠ single worker:\n${c.diffs.slice(0, 6).join('\n')} (${c.inexact} inexact)`);
      eq(pooled.result.targets.length, 12, 'targets');
      const phases = await page.evaluate(() => window.__phases);
      assert(phases.length > 0 && phases.every(([, ph]) => ph.includes('3 workers')), `pool progress: ${JSON.stringify(phases.slice(0, 3))}`);
      const fr = phases.map(([f]) => f);
      assert(fr.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= fr[i - 1] - 1e-9)), `progress rises: ${fr.join(' ')}`);

      // Cancel reaches every worker: a long pooled run stops with a partial result, and a new run works.
      await sde.locator('[data-param=shuffles]').fill('40000');
      await sde.locator('[data-action="run"]').click();
      await sde.locator('.lethe-progress-text').filter({ hasText: /[1-9]\d*% ·.*3 workers/ }).waitFor({ timeout: 60000 });
      const t0 = Date.now();
      await sde.getByRole('button', { name: 'Cancel' }).click();
      const stopped = await waitRun(sde, 30000);
      const stopMs = Date.now() - t0;
      assert(/stopped in/.test(stopped), `stopped: ${stopped}`);
      if ((await sde.locator('.lethe-partial').count()) === 0) {
        // Say what came back (a complete report? an error?) rather than time out.
        const r = await downloadJson(page, sde.locator('[data-action="export-json"]')).catch((e) => ({ error: e.message }));
        const errors = await sde.locator('.lethe-error').allTextContents();
        throw new Error(`no partial result after cancel (${stopped}, ${stopMs} ms): complete ${r.result?.complete}, targets ${r.result?.targets?.length}, partial ${!!r.partial}, shuffles ${r.parameters?.shuffles}; errors ${errors.join(' | ')}; page errors ${page.errors.join('; ')}`);
      }
      assert((await sde.locator('.lethe-partial').textContent()).includes('Stopped early'), 'partial result shown');
      await sde.locator('[data-param=shuffles]').fill('40');
      await runOk(sde);
      assert((await sde.locator('.lethe-partial').count()) === 0, 'a complete run afterwards');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${c.compared} numbers identical; 14 subsets × 150 shuffles in ${msOne} ms on one worker, ${msPool} ms on 3 (this machine: ${await page.evaluate(() => navigator.hardwareConcurrency)} cores, shared); cancel took effect in ${stopMs} ms`;
    },
  },
  {
    name: 'a cancel right after a pooled run starts (while its workers receive their inputs) stops every worker',
    async fn({ context, base }) {
      const page = await open(context, base, '/?example=0&workers=3');
      await page.locator('.lethe-root[data-workers="3"]').waitFor({ timeout: 30000 });
      // 8 subsets × 1,000,000 shuffles of 50-row halves: each pool worker's part is many seconds of work; a worker
      // that missed the cancel would hold the (partial) result back until its part was done.
      const r = await cancelAtStart(page, 1000000);
      eq(r.pool, 3, 'the run was pooled');
      eq(r.complete, false, 'a partial result');
      assert(r.ms < 3000, `the cancel reached every worker: the partial result came after ${Math.round(r.ms)} ms`);
      // The pool still works: a short pooled run completes.
      const again = await page.evaluate(async () => {
        const w = window.lethe;
        const item = w.store.list().at(-1);
        const rows = (text) => ({ source: item.id, rows: { kind: 'text', text } });
        const out = await w.store.engine.request('run', { analysis: 'sde', request: { in_training: rows('0..200'), out_of_training: rows('200..400'), draw_from: rows('400..600'), draw: 6, size: 100, shuffles: 30, seed: 1, backend: 'cpu', equal_size: true }, pool: true });
        return { complete: out.result.complete, targets: out.result.targets.length, pool: out.pool?.workers };
      });
      assert(again.complete && again.targets === 6 && again.pool === 3, `a pooled run afterwards: ${JSON.stringify(again)}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `partial result ${Math.round(r.ms)} ms after a cancel sent with the run`;
    },
  },
];
