// The SDE job on a pool of plain Web Workers (no SharedArrayBuffer, no wasm threads): each worker instantiates its
// own lethe_bench.wasm and loads the inputs; the page hands out subsets one at a time to whichever worker is free
// (subset k shuffles with its own stream, so the values do not depend on which worker computes it), then one
// worker assembles the report from every subset's distribution. Timed from handing out the first subset to the
// assembled report (loading the wasm and the inputs into each instance is not timed, as in the one-worker job).

function call(worker, msg, transfer = []) {
  return new Promise((resolve, reject) => {
    worker.onmessage = (e) => (e.data.error ? reject(new Error(e.data.error)) : resolve(e.data));
    worker.onerror = (e) => reject(new Error(e.message || 'worker error'));
    worker.postMessage(msg, transfer);
  });
}

/** Runs one `poolJob` task: {name, dir, draws, size, shuffles, f32, seed, workers, repeat, keepValues}. */
export async function runPoolJob(task, wasmUrl, log = () => {}) {
  const n = task.workers ?? 2;
  const workers = Array.from({ length: n }, () => new Worker(new URL('./pool-worker.mjs', import.meta.url), { type: 'module' }));
  try {
    await Promise.all(workers.map((w) => call(w, { load: { wasm: wasmUrl, task } })));
    const count = task.draws + 2;
    const runs = [];
    for (let rep = 0; rep < (task.repeat ?? 1); rep++) {
      const parts = new Array(count);
      const perWorker = workers.map(() => 0);
      let next = 0;
      let prepareMs = 0;
      let scoreMs = 0;
      const t0 = performance.now();
      await Promise.all(
        workers.map(async (w, i) => {
          for (let k = next++; k < count; k = next++) {
            const r = await call(w, { subset: k });
            parts[k] = r.encoded;
            prepareMs += r.prepareMs;
            scoreMs += r.scoreMs;
            perWorker[i]++;
          }
        }),
      );
      const flat = new Float64Array(parts.reduce((s, p) => s + p.length, 0));
      parts.reduce((off, p) => (flat.set(p, off), off + p.length), 0);
      const report = await call(workers[0], { assemble: flat }, [flat.buffer]);
      const ms = performance.now() - t0;
      runs.push({ ms, prepareMs, scoreMs, perWorker, ...report });
      log(`${task.name} ${task.f32 ? 'f32' : 'f64'} on ${n} workers: ${(ms / 1e3).toFixed(3)} s (kernels ${(prepareMs / 1e3).toFixed(3)} s, shuffles ${(scoreMs / 1e3).toFixed(3)} s summed over workers; subsets per worker ${perWorker.join('/')})`);
    }
    const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
    const r = { ...task, ms: best.ms, all_ms: runs.map((j) => j.ms), prepare_ms: best.prepareMs, score_ms: best.scoreMs, otr: best.otr, subsets: best.subsets, per_worker: best.perWorker };
    if (task.keepValues) r.values = best.values;
    return r;
  } finally {
    workers.forEach((w) => w.terminate());
  }
}
