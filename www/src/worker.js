// The computation worker: owns the wasm modules and all loaded data; answers the page's messages (protocol.md).
// Module worker (`new Worker(url, {type: 'module'})`).
//
// Two wasm modules (docs/embedding.md, "Two wasm modules"): the lean one (pkg/lethe_lean: .npy, SDE with the
// calibrated verdict, RULER on the CPU) starts at once; the full one (pkg/lethe_web: every reader and analysis,
// WebGPU) is fetched when the page asks for it (after its first results) or when a request needs it — the lean
// module answers such a request with an error marked `full`. The full module is then given every source the lean
// one holds (files, bytes, matrices; SHA-256 digests already computed) and takes over every later request;
// requests already running on the lean module finish there.
import initLean, * as lean from '../pkg/lethe_lean.js';
import { spawnWorker } from './spawn.js';

/**
 * Which build of the two wasm modules this worker runs (issue 16): `relaxed` (pkg/*_relaxed_bg.wasm: the f32 kernels
 * with relaxed SIMD's fused multiply-add; f32 results may differ in the last bits, f64 is the same) where this browser
 * validates a relaxed-SIMD instruction, `simd128` (pkg/*_bg.wasm) otherwise. Both share one JS glue. `?simd=…` on
 * this worker's URL (the page's `?lethe-simd=…`, engine.js) forces one: the browser tests run each.
 */
const SIMD = (() => {
  const forced = new URL(import.meta.url).searchParams.get('simd');
  if (forced === 'simd128' || forced === 'relaxed') return forced;
  // (module (func (result v128) (f32x4.relaxed_madd (i32x4.splat (i32.const 0)) … ×3)))
  const madd = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 19, 1, 17, 0, 65, 0, 253, 17, 65, 0, 253, 17, 65, 0, 253, 17, 253, 133, 2, 11];
  try {
    return WebAssembly.validate(new Uint8Array(madd)) ? 'relaxed' : 'simd128';
  } catch {
    return 'simd128';
  }
})();
/**
 * Wasm modules handed over in `init`, or null: fetched from beside this worker. lethe.html: path → Blob (simd128
 * builds); the npm package: path → URL as the site's bundler resolved them (both builds).
 */
let given = null;
const givenWasm = (name) => {
  const g = (SIMD === 'relaxed' && given[`pkg/${name}_relaxed_bg.wasm`]) || given[`pkg/${name}_bg.wasm`];
  return typeof g === 'string' ? g : new Response(g);
};
const LEAN_WASM = () =>
  given
    ? givenWasm('lethe_lean')
    : SIMD === 'relaxed'
      ? new URL('../pkg/lethe_lean_relaxed_bg.wasm', import.meta.url)
      : new URL('../pkg/lethe_lean_bg.wasm', import.meta.url);

let ready = null;
let leanStarted = false;
let webgpu = null;
/** The module new requests go to: lean until the full one has taken over. */
let active = lean;
let full = null;
const cancelled = new Set();
/** What was added, to give to the full module when it takes over (dropped once it has). */
let sources = new Map();
/** Every source's name and, for files, its File handle (cheap), to give to the pool's workers. */
const registry = new Map();
/** Cancelling a run also runs its hook (a pooled run forwards the cancel to its workers). */
const cancelHooks = new Map();

const post = (m) => self.postMessage(m);

// A macrotask, without setTimeout's 4 ms clamping: lets queued messages (a `cancel`) run before the core goes on.
const macrotask = () =>
  new Promise((resolve) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => {
      c.port1.close();
      resolve();
    };
    c.port2.postMessage(null);
  });

const startError = (what, e) => {
  const csp = /wasm-unsafe-eval|unsafe-eval|Content Security Policy/i.test(String(e && e.message));
  return new Error(
    `${what} could not be started: ${e && e.message}` +
      (csp ? " — this page's Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src (see docs/embedding.md)" : ''),
  );
};

/** Adds a source to module `mod` (`s` as the page sent it). */
function addTo(mod, id, s) {
  if (s.file) mod.addFile(id, s.file, s.name);
  else if (s.bytes) mod.addBytes(id, new Uint8Array(s.bytes), s.name);
  else if (s.matrix) {
    const { values, rows, cols } = s.matrix;
    if (values instanceof Float32Array) mod.addMatrixF32(id, values, rows, cols, s.name);
    else mod.addMatrixF64(id, Float64Array.from(values), rows, cols, s.name);
  } else throw new Error('nothing to add');
  if (s.sha256) mod.setSha256(id, s.sha256);
}

/** Loads the full module once and hands it the lean module's sources; resolves when it has taken over. */
function loadFull() {
  if (!full) {
    full = import('./full.js')
      .then(async (m) => {
        await m.start(SIMD, given && givenWasm('lethe_web'));
        for (const [id, s] of sources) addTo(m.wasm, id, s);
        sources = null;
        active = m.wasm;
        // The lean module's copies are no longer needed (a run still going there holds its own references).
        if (leanStarted) lean.clearAll();
        post({ type: 'module', module: 'full' });
        return m.wasm;
      })
      .catch((e) => {
        full = null;
        throw startError('the full module (every reader and analysis, WebGPU)', e);
      });
  }
  return full;
}

/**
 * Runs `f(module)` on the active module; a request the lean module cannot serve (an error marked `full`, or an
 * export it does not have) goes to the full one. A new request type whose export exists only in the full module
 * (`#[cfg(feature = "full")]` in wasm/src/wasm.rs) can simply call `(await loadFull()).theExport(…)`.
 */
async function call(f) {
  try {
    return await f(active);
  } catch (e) {
    const missing = e instanceof TypeError && /is not a function/.test(e.message);
    if (!((e && e.full) || missing) || active !== lean) throw e;
    return f(await loadFull());
  }
}

/**
 * Whether WebGPU can run here — detected inside this worker, where the GPU work happens (a page may have WebGPU
 * while its workers do not). `{available, adapter}` or `{available: false, reason}`.
 */
async function detectWebGpu() {
  const gpu = typeof navigator !== 'undefined' ? navigator.gpu : undefined;
  if (!gpu) return { available: false, reason: 'this browser offers no WebGPU to workers (navigator.gpu is missing)' };
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return { available: false, reason: 'WebGPU found no adapter (disabled, or the GPU is blocklisted)' };
    const info = adapter.info || {};
    const name = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ') || 'unnamed adapter';
    return { available: true, adapter: name + (info.isFallbackAdapter || adapter.isFallbackAdapter ? ' (software fallback adapter)' : '') };
  } catch (e) {
    return { available: false, reason: `requesting a WebGPU adapter failed: ${(e && e.message) || e}` };
  }
}

const backendError = (message) => Object.assign(new Error(message), { backend: true });

/**
 * The backend a run uses: `cpu`, `webgpu`, or `auto` — WebGPU when this worker has an adapter and f32 kernels are
 * asked for (WebGPU has no f64; the f64 default stays on the CPU, where it equals the CLI), the CPU otherwise.
 * A WebGPU run is an f32 run, and its request says so. Returns what was asked, what is used, and why.
 */
function resolveBackend(req) {
  const asked = req.backend || 'auto';
  const gpu = webgpu || { available: false, reason: 'not detected yet' };
  if (asked === 'cpu') return { asked, used: 'cpu', note: null };
  if (asked === 'webgpu') {
    if (!gpu.available) throw backendError(`WebGPU cannot be used: ${gpu.reason}.`);
    req.precision = 'f32';
    return { asked, used: 'webgpu', note: 'WebGPU computes in f32' };
  }
  if (asked !== 'auto') throw new Error(`unknown backend ${asked}`);
  if (!gpu.available) return { asked, used: 'cpu', note: `auto chose the CPU: ${gpu.reason}` };
  if (req.precision !== 'f32') return { asked, used: 'cpu', note: 'auto chose the CPU: f64 kernels were asked for, and WebGPU computes in f32 (choose f32 to use the GPU)' };
  return { asked, used: 'webgpu', note: `auto chose WebGPU (${gpu.adapter})` };
}

// ---------------------------------------------------------------------------------------------------------------
// A pool of plain Web Workers for multi-target SDE on the CPU (no SharedArrayBuffer): this worker and up to three
// more, each with its own wasm instance (the full module), split the run's subsets (lethe-web `SdeJob::plan`, equal
// work); each subset draws its shuffles from its own stream (k = 0, 1 the references, 2 + i target i), so the
// report this worker assembles from the parts is bit for bit the single-worker one. The pool's workers are started
// while the page loads (after the full module), so a pooled run makes no network request.

/** Workers of the pool besides this one, started by `warmPool`. */
let pool = [];
let poolSize = 1;

/** A pool worker: the same worker.js, started with `{pool: true}`, driven through the page protocol. */
class PoolWorker {
  constructor() {
    // The same URL as this worker's (a forced wasm build, `?simd=…`, carries over to the pool).
    this.worker = spawnWorker(new URL(import.meta.url));
    this.seq = 0;
    this.pending = new Map();
    this.has = new Set();
    this.current = null;
    this.worker.onmessage = (e) => {
      const r = e.data;
      const p = this.pending.get(r.id);
      if (!p) return;
      if (r.type === 'progress') return p.onProgress?.(r);
      this.pending.delete(r.id);
      if (r.type === 'result') p.resolve(r.value);
      else p.reject(Object.assign(new Error(r.message), { input: r.input, code: r.code }));
    };
    this.worker.onerror = (e) => {
      for (const p of this.pending.values()) p.reject(new Error(`a pool worker failed: ${e.message || e}`));
      this.pending.clear();
    };
    this.ready = this.request('init', { pool: true, ...(given ? { wasm: given } : {}) });
  }

  request(type, payload = {}, onProgress, transfer = []) {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ id, type, ...payload }, transfer);
      if (type === 'run') this.current = id;
    });
  }

  /** Gives the worker the sources `ids` it does not have yet: File handles, or the bytes this worker holds. */
  async ensure(ids) {
    await this.ready;
    for (const id of ids) {
      if (this.has.has(id)) continue;
      const r = registry.get(id);
      if (!r) throw new Error(`input ${id} is no longer loaded`);
      if (r.file) await this.request('add', { source: id, file: r.file, name: r.name, inspect: false });
      else {
        const bytes = active.sourceBytes(id).buffer;
        await this.request('add', { source: id, bytes, name: r.name, inspect: false }, null, [bytes]);
      }
      this.has.add(id);
    }
  }

  cancel() {
    if (this.current) this.worker.postMessage({ type: 'cancel', target: this.current });
  }
}

/** How long a stopped pooled run waits for a helper's partial result before ending that helper. */
const CANCEL_GRACE_MS = 400;

/** Ends pool worker `p` (busy in a long step after a cancel) and starts a fresh one in its place. */
function replaceHelper(p) {
  const k = pool.indexOf(p);
  if (k < 0) return;
  p.worker.terminate();
  for (const q of p.pending.values()) q.reject(new DOMException('stopped', 'AbortError'));
  p.pending.clear();
  pool[k] = new PoolWorker();
}

/** Starts the pool's workers (`workers` in all, this one included; at most 4). */
function warmPool(workers) {
  poolSize = Math.max(1, Math.min(4, workers | 0));
  if (typeof Worker !== 'function') poolSize = 1;
  while (pool.length < poolSize - 1) pool.push(new PoolWorker());
  return Promise.all(pool.map((p) => p.ready)).then(() => poolSize);
}

/** Source ids a request refers to (inputs and the index/split files of their rows). */
function sourceIds(request) {
  const ids = new Set();
  const visit = (v) => {
    if (!v || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.forEach(visit);
    if (typeof v.source === 'number') ids.add(v.source);
    for (const k of Object.keys(v)) visit(v[k]);
  };
  visit(request);
  return [...ids];
}

/**
 * A multi-target SDE run on the CPU split across the pool, or null when it would not be split (fewer than two
 * parts). Progress is the parts' combined; a cancel reaches every part, and the report keeps what finished.
 */
async function pooledSde(id, request) {
  if (poolSize < 2 || !pool.length) return null;
  const plan = active.sdePlan(request, poolSize);
  if (plan.length < 2) return null;
  const helpers = pool.slice(0, plan.length - 1);
  // The cancel hook is in place before the first await: a cancel while the helpers receive their inputs must
  // reach them too (their runs start right after, and are stopped at once).
  let started = false;
  cancelHooks.set(id, () => started && helpers.forEach((p) => p.cancel()));
  try {
    await Promise.all(helpers.map((p) => p.ensure(sourceIds(request))));
  } catch (e) {
    cancelHooks.delete(id);
    throw e;
  }
  const t0 = performance.now();
  const fractions = plan.map(() => 0);
  let last = 0;
  const progress = (k, p) => {
    fractions[k] = p.fraction;
    const now = performance.now();
    if (now - last < 50) return;
    last = now;
    const f = fractions.reduce((a, b) => a + b, 0) / fractions.length;
    post({ id, type: 'progress', fraction: f, phase: `${p.phase} · ${plan.length} workers`, eta_s: f > 0 ? ((now - t0) / 1000) * (1 - f) / f : NaN });
  };
  try {
    const theirs = helpers.map((p, k) => p.request('run', { analysis: 'sde', request: { ...request, part: plan[k + 1] } }, (r) => progress(k + 1, r)));
    started = true;
    // Cancelled while the inputs were handed over: each helper stops at its first checkpoint.
    if (cancelled.has(id)) helpers.forEach((p) => p.cancel());
    const mine = active.run('sde', { ...request, part: plan[0] }, async (p) => {
      progress(0, p);
      await macrotask();
      return !cancelled.has(id);
    });
    // Stopped: a helper busy in a long step (opening its inputs, reading rows in place) and silent CANCEL_GRACE_MS
    // after this worker's part is ended and replaced; its subsets count as not started (issue 24).
    const late = Symbol('late');
    const parts = await Promise.all([
      mine,
      ...theirs.map((t, k) =>
        Promise.race([t, mine.then(() => (cancelled.has(id) ? new Promise((r) => setTimeout(() => r(late), CANCEL_GRACE_MS)) : t))]).then((v) => {
          if (v === late) replaceHelper(helpers[k]);
          return v;
        }),
      ),
    ]).catch((e) => {
      helpers.forEach((p) => p.cancel());
      throw e;
    });
    const done = parts.filter((v) => v !== late);
    // Assembling computes the placebo check (seconds on a large file): its progress is the whole run's, and a
    // Cancel stops it (the report then calls no target and says why; issue 24).
    const out = await active.run('sde', { ...request, assemble: done.flatMap((p) => p.subsets) }, async (p) => {
      fractions.fill(p.fraction);
      progress(0, p);
      await macrotask();
      return !cancelled.has(id);
    });
    out.pool = { workers: plan.length };
    return out;
  } finally {
    cancelHooks.delete(id);
  }
}

async function handle(m) {
  const { id } = m;
  if (m.type === 'init') {
    if (m.wasm) given = m.wasm;
    if (m.pool) {
      // A worker of another worker's pool: the full module at once (already in the HTTP cache), no WebGPU.
      ready = ready || loadFull();
      await ready;
      webgpu = { available: false, reason: 'a pool worker computes on the CPU' };
      return { version: active.version(), maxBytes: active.maxBytes(), webgpu, module: 'full' };
    }
    leanStarted = true;
    ready =
      ready ||
      initLean({ module_or_path: LEAN_WASM() }).catch((e) => {
        throw startError('the WebAssembly module', e);
      });
    [webgpu] = await Promise.all([webgpu || detectWebGpu(), ready]);
    // min(hardwareConcurrency, 4) workers for pooled runs, this one included (the page may ask for another count).
    const cores = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency || 1 : 1;
    poolSize = Math.max(1, Math.min(4, (m.workers || cores) | 0));
    return { version: lean.version(), maxBytes: lean.maxBytes(), webgpu, module: active.module() };
  }
  if (!ready) throw new Error('the worker was not initialised');
  await ready;
  switch (m.type) {
    case 'full': {
      await loadFull();
      // The pool's workers start now, while the page still loads (their module files come from the HTTP cache).
      const workers = await warmPool(poolSize).catch(() => 1);
      return { module: 'full', workers };
    }
    case 'add': {
      const s = { file: m.file, bytes: m.bytes, matrix: m.matrix, name: m.name };
      if (!s.file && !s.bytes && !s.matrix) throw new Error('nothing to add');
      // Kept for the full module while the lean one is active (a full module still starting gets it on taking over).
      if (sources) sources.set(m.source, s);
      registry.set(m.source, { name: m.name, file: m.file });
      addTo(active, m.source, s);
      if (m.inspect === false) return { ok: true, value: null };
      // The source stays in the worker even when its headers cannot be read: a text file of generations is not a
      // table but is still an input (ROUGE-L). The page shows the problem next to the file.
      try {
        return { ok: true, value: await call((w) => w.inspect(m.source)) };
      } catch (err) {
        return { ok: false, message: String((err && err.message) || err) };
      }
    }
    case 'hash': {
      let last = 0;
      const hex = await call((w) =>
        w.sha256(m.source, (done, total) => {
          const now = performance.now();
          if (now - last > 100 || done === total) {
            last = now;
            post({ id, type: 'progress', fraction: total ? done / total : 1, phase: 'SHA-256', eta_s: NaN });
          }
        }),
      );
      const s = sources && sources.get(m.source);
      if (s) s.sha256 = hex;
      return hex;
    }
    case 'remove':
      if (sources) sources.delete(m.source);
      registry.delete(m.source);
      for (const p of pool) if (p.has.delete(m.source)) p.request('remove', { source: m.source }).catch(() => {});
      if (leanStarted) lean.removeSource(m.source);
      if (active !== lean) active.removeSource(m.source);
      return null;
    case 'load':
      return call((w) => w.loadInput(m.role, m.input));
    case 'run': {
      const request = { ...m.request };
      const choice = m.analysis === 'sde' || m.analysis === 'calibrate' ? resolveBackend(request) : null;
      if (choice) request.backend = choice.used;
      // WebGPU lives in the full module.
      if (choice && choice.used === 'webgpu') await loadFull();
      // Many targets on the CPU: split across the pool (not for a request that is itself a part).
      const pooled =
        m.analysis === 'sde' && choice.used === 'cpu' && !request.part && !request.assemble && m.pool !== false && active !== lean
          ? await pooledSde(id, request)
          : null;
      if (pooled) {
        pooled.backend_choice = choice;
        return pooled;
      }
      const value = await call((w) =>
        w.run(m.analysis, request, async (p) => {
          post({ id, type: 'progress', fraction: p.fraction, phase: p.phase, eta_s: p.eta_s });
          await macrotask();
          return !cancelled.has(id);
        }),
      );
      if (choice) value.backend_choice = choice;
      return value;
    }
    case 'check': {
      // Before a run: what it would warn about or refuse. Each analysis declares its check in the layer (SDE and
      // the calibrated verdict stop before computing, compare runs one resample, the quick ones run).
      return call((w) => w.check(m.analysis, m.request));
    }
    // The layer's marks said as the command line (or Python) says them, by the module's own words (a download).
    case 'words':
      return call((w) => w.words(m.voice, m.text));
    case 'synthetic':
      return (await loadFull()).synthetic(m.kind, m.seed >>> 0);
    // Which tool wrote these sources (issue 14; lethe::tools, from their content): summaries and offers.
    case 'tools':
      return (await loadFull()).toolFiles(Uint32Array.from(m.sources), m.paths || null);
    // Teaching mode (teach.html, <lethe-eval mode="teach">): small requests, answered at once by the full module.
    case 'teach':
      return (await loadFull()).teach(m.topic, m.request);
    case 'teach-data':
      return (await loadFull()).teachData(m.name, new Uint8Array(m.bytes));
    default:
      throw new Error(`unknown request type ${m.type}`);
  }
}

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type === 'cancel') {
    cancelled.add(m.target);
    cancelHooks.get(m.target)?.();
    return;
  }
  try {
    const value = await handle(m);
    post({ id: m.id, type: 'result', value });
  } catch (err) {
    post({ id: m.id, type: 'error', message: String((err && err.message) || err), input: err && err.input, code: (err && err.code) || null, backend: !!(err && err.backend) });
  } finally {
    cancelled.delete(m.id);
  }
};
