// One dedicated worker running `lethe compare` as the page's worker does (www/src/worker.js → the full module's
// `run('compare', request, checkpoint)`, pkg/lethe_web.js), on the bench's synthetic runs table
// (compare-table.mjs). Only the `run` call is timed: building the table and loading the module are not.
import { compareRequest, compareTable } from './compare-table.mjs';

self.onmessage = async (e) => {
  try {
    const { task, pkg } = e.data;
    const at = (name) => new URL(`${pkg}/${name}`, self.location.href);
    const mod = await import(at('lethe_web.js').href);
    await mod.default({ module_or_path: at(task.relaxed ? 'lethe_web_relaxed_bg.wasm' : 'lethe_web_bg.wasm') });
    const text = compareTable(task.methods, task.seeds, task.metrics);
    const request = compareRequest(text, task);
    const runs = [];
    for (let rep = 0; rep < (task.repeat ?? 1); rep++) {
      const t = performance.now();
      const out = await mod.run('compare', request, () => true);
      const ms = performance.now() - t;
      const comparisons = out?.result?.comparisons?.length ?? null;
      runs.push({ ms, comparisons });
      self.postMessage({ log: `${task.name}: ${(ms / 1e3).toFixed(3)} s (${comparisons} comparisons, one worker)` });
    }
    self.postMessage({ done: true, runs });
  } catch (err) {
    self.postMessage({ error: String(err && err.stack ? err.stack : err) });
  }
};
