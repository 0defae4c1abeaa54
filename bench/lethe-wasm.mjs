// The benchmark driver shared by Node (bench/node.mjs) and the browser worker (bench/worker.mjs): instantiates
// lethe_bench.wasm (bench/wasm, raw exports), copies .npy inputs into its memory and runs a plan of tasks, timing
// each call with performance.now(). Single-threaded: one wasm instance, no threads, no SharedArrayBuffer. (The
// `poolJob` tasks, the same job on a pool of workers each with its own instance, run in bench/web/pool.mjs.)

/** Parses a little-endian float32 C-order .npy file (what bench/gen.py writes). */
export function parseNpy(buf) {
  const bytes = new Uint8Array(buf);
  if (bytes[0] !== 0x93 || String.fromCharCode(...bytes.subarray(1, 6)) !== 'NUMPY') throw new Error('not an .npy file');
  const major = bytes[6];
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hlen = major === 1 ? dv.getUint16(8, true) : dv.getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  const header = new TextDecoder().decode(bytes.subarray(start, start + hlen));
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header)) throw new Error(`unsupported .npy header ${header}`);
  const shape = header.match(/'shape':\s*\(([^)]*)\)/)[1].split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  const off = start + hlen;
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset + off, bytes.byteOffset + bytes.byteLength));
  return { shape, data };
}

export async function instantiate(wasmBytes) {
  const module = await WebAssembly.compile(wasmBytes);
  // The core's dependency tree links wasm-bindgen placeholders (zip → getrandom) that no benchmarked path calls:
  // stubs that throw if one ever is.
  const imports = { env: { lb_now: () => performance.now() } };
  for (const imp of WebAssembly.Module.imports(module)) {
    imports[imp.module] ??= {};
    imports[imp.module][imp.name] ??= () => {
      throw new Error(`unexpected call to ${imp.module}.${imp.name}`);
    };
  }
  const instance = await WebAssembly.instantiate(module, imports);
  const x = instance.exports;
  const mem = () => x.memory.buffer;
  const put = (arr) => {
    const ptr = x.lb_alloc(arr.byteLength);
    new Float32Array(mem(), ptr, arr.length).set(arr);
    return { ptr, bytes: arr.byteLength };
  };
  const free = (b) => x.lb_free(b.ptr, b.bytes);
  const result = () => new Float64Array(mem(), x.lb_result_ptr(), x.lb_result_len()).slice();
  const error = () => new TextDecoder().decode(new Uint8Array(mem(), x.lb_error_ptr(), x.lb_error_len()));
  return {
    exports: x,
    /** The SDE job on npy inputs {it, oot, pool}: Lethe's draws, as `lethe sde --draw-from`. */
    job(inp, { draws, size, shuffles, f32, seed }) {
      const [rows, d] = inp.it.shape;
      const bufs = [put(inp.it.data), put(inp.oot.data), put(inp.pool.data)];
      try {
        const t = performance.now();
        const rc = x.lb_job(bufs[0].ptr, bufs[1].ptr, rows, bufs[2].ptr, inp.pool.shape[0], d, draws, size, shuffles, f32 ? 1 : 0, seed);
        const ms = performance.now() - t;
        if (rc !== 0) throw new Error(`lethe: ${error()}`);
        const r = result();
        const [prepareMs, scoreMs, otr, subsets, t2] = r;
        return { ms, prepareMs, scoreMs, otr, subsets, shuffles: t2, values: Array.from(r.subarray(5)) };
      } finally {
        bufs.forEach(free);
      }
    },
    /** A pooled job (bench/web/pool.mjs): copies the inputs into this instance for `poolSubset`. */
    poolLoad(inp, { draws, size, shuffles, f32, seed }) {
      const [rows, d] = inp.it.shape;
      const bufs = [put(inp.it.data), put(inp.oot.data), put(inp.pool.data)];
      try {
        const rc = x.lb_pool_load(bufs[0].ptr, bufs[1].ptr, rows, bufs[2].ptr, inp.pool.shape[0], d, draws, size, shuffles, f32 ? 1 : 0, seed);
        if (rc !== 0) throw new Error(`lethe: ${error()}`);
      } finally {
        bufs.forEach(free);
      }
    },
    /** Subset k of the loaded job: its time split and its distribution, encoded (bench/wasm `encode`). */
    poolSubset(k) {
      if (x.lb_pool_subset(k) !== 0) throw new Error(`lethe: ${error()}`);
      const r = result();
      return { prepareMs: r[0], scoreMs: r[1], encoded: r.slice(2) };
    },
    /** The report from every subset's encoded distribution, in subset order (one Float64Array). */
    poolAssemble(parts) {
      const ptr = x.lb_alloc(parts.byteLength);
      new Float64Array(mem(), ptr, parts.length).set(parts);
      try {
        if (x.lb_pool_assemble(ptr, parts.length) !== 0) throw new Error(`lethe: ${error()}`);
      } finally {
        x.lb_free(ptr, parts.byteLength);
      }
      const r = result();
      return { otr: r[0], subsets: r[1], shuffles: r[2], values: Array.from(r.subarray(3)) };
    },
    gramMs: (n, d, reps, f32) => x.lb_gram_ms(n, d, reps, f32 ? 1 : 0),
    prepareMs: (n, d, reps, f32) => x.lb_prepare_ms(n, d, reps, f32 ? 1 : 0),
    scoreMs: (n, shuffles, reps, f32) => x.lb_score_ms(n, shuffles, reps, f32 ? 1 : 0),
    expMs: (len, reps) => x.lb_exp_ms(len, reps),
    peakGflops: (iters) => x.lb_peak_gflops(iters),
  };
}

/**
 * Runs `plan.tasks` in order; `load(path)` returns an .npy file's bytes (fs in Node, fetch in the browser).
 * `log` reports progress. Returns one result object per task.
 */
export async function runPlan(wasmBytes, plan, load, log = () => {}) {
  const api = await instantiate(wasmBytes);
  const out = [];
  for (const task of plan.tasks) {
    const r = { ...task };
    if (task.kind === 'peak') {
      api.peakGflops(2e6); // warm-up: tier up to the optimising compiler
      r.gflops = Math.max(...Array.from({ length: task.reps ?? 5 }, () => api.peakGflops(task.iters ?? 5e7)));
    } else if (task.kind === 'gram') {
      api.gramMs(task.n, task.d, 1, task.f32);
      r.ms = api.gramMs(task.n, task.d, task.reps ?? 10, task.f32);
      // Useful flops: the upper triangle with its diagonal, 2·d per entry.
      r.gflops = (task.n * (task.n + 1) * task.d) / (r.ms * 1e6);
    } else if (task.kind === 'prepare') {
      r.ms = api.prepareMs(task.n, task.d, task.reps ?? 10, task.f32);
    } else if (task.kind === 'score') {
      r.ms = api.scoreMs(task.n, task.shuffles, task.reps ?? 5, task.f32);
    } else if (task.kind === 'exp') {
      r.ms = api.expMs(task.len, task.reps ?? 10);
    } else if (task.kind === 'job') {
      const inp = {};
      for (const k of ['it', 'oot', 'pool']) inp[k] = parseNpy(await load(`${task.dir}/${k}.npy`));
      const runs = [];
      for (let i = 0; i < (task.repeat ?? 1); i++) {
        const j = api.job(inp, task);
        runs.push(j);
        log(`${task.name} ${task.f32 ? 'f32' : 'f64'}: ${(j.ms / 1e3).toFixed(3)} s (kernels ${(j.prepareMs / 1e3).toFixed(3)} s, shuffles ${(j.scoreMs / 1e3).toFixed(3)} s)`);
      }
      const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
      Object.assign(r, { ms: best.ms, all_ms: runs.map((j) => j.ms), prepare_ms: best.prepareMs, score_ms: best.scoreMs, otr: best.otr, subsets: best.subsets });
      if (task.keepValues) r.values = best.values;
    } else if (task.kind === 'poolJob' || task.kind === 'compare') {
      // Needs Web Workers (poolJob) or the page's module (compare): bench/web/bench.html runs these in the page
      // once this plan is done.
      r.pending = true;
    } else {
      throw new Error(`unknown task ${task.kind}`);
    }
    if (task.kind !== 'job' && task.kind !== 'poolJob' && task.kind !== 'compare') log(`${task.kind} ${JSON.stringify(task)}: ${r.ms !== undefined ? r.ms.toFixed(3) + ' ms' : ''} ${r.gflops ? r.gflops.toFixed(1) + ' GFLOP/s' : ''}`);
    out.push(r);
  }
  return out;
}
