// Issue 23's compare in node (the same V8 as Chromium) with the page's full module, for a CPU-time figure that a
// loaded machine inflates less than the page's wall time (bench/web/compare.mjs): the bench's table
// (web/compare-table.mjs), `run('compare')` as the worker calls it, wall and CPU time (`process.cpuUsage`, every
// thread of the process: V8's compiler threads and GC included) per run.
//   node bench/compare-node.mjs PKG_DIR baseline|all_pairs REPEAT [DUMP.json [METHODS METRICS RESAMPLES]]
// DUMP.json: the first run's report as JSON (to compare two builds' numbers byte for byte).
import fs from 'node:fs';
import path from 'node:path';
import { compareRequest, compareTable } from './web/compare-table.mjs';

const [pkg, which, repeat = '2', dump, methods = '50', metrics = '20', resamples = '10000'] = process.argv.slice(2);
const mod = await import(path.resolve(pkg, 'lethe_web.js'));
mod.initSync({ module: fs.readFileSync(path.resolve(pkg, 'lethe_web_bg.wasm')) });
const baseline = which === 'baseline' ? 'method0' : null;
const table = compareTable(+methods, 10, +metrics);
const request = compareRequest(table, { metrics: +metrics, baseline, resamples: +resamples });
for (let r = 0; r < +repeat; r++) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = await mod.run('compare', request, () => true);
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const cpu = (c.user + c.system) / 1e6;
  const n = out.result.comparisons.length;
  console.log(`${which}: wall ${(ms / 1e3).toFixed(3)} s, CPU ${cpu.toFixed(3)} s (${n} comparisons)`);
  if (dump && r === 0) fs.writeFileSync(dump, JSON.stringify(out));
}
