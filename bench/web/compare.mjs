// Issue 23's page target (under 2 s, one worker): `lethe compare` on 50 methods × 10 seeds × 20 metrics with
// 10,000 resamples, run in one dedicated worker by the page's own module (compare-worker.mjs). A plan task
// {kind: 'compare', name, methods, seeds, metrics, resamples, baseline, repeat, relaxed} runs here once the
// single-worker plan is done (bench.html), like the `poolJob` tasks.

/** Runs one `compare` task in a fresh worker; `pkg` is where lethe_web.js and its wasm are served from. */
export function runCompare(task, pkg, log = () => {}) {
  const worker = new Worker(new URL('./compare-worker.mjs', import.meta.url), { type: 'module' });
  return new Promise((resolve, reject) => {
    worker.onmessage = (e) => {
      if (e.data.log) log(e.data.log);
      else if (e.data.error) reject(new Error(e.data.error));
      else if (e.data.done) {
        const best = e.data.runs.reduce((a, b) => (b.ms < a.ms ? b : a));
        resolve({ ...task, ms: best.ms, all_ms: e.data.runs.map((r) => r.ms), comparisons: best.comparisons });
      }
    };
    worker.onerror = (e) => reject(new Error(e.message || 'worker error'));
    worker.postMessage({ task, pkg });
  }).finally(() => worker.terminate());
}
