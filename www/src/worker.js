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

let ready = null;
let webgpu = null;
/** The module new requests go to: lean until the full one has taken over. */
let active = lean;
let full = null;
const cancelled = new Set();
/** What was added, to give to the full module when it takes over (dropped once it has). */
let sources = new Map();

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
        await m.start();
        for (const [id, s] of sources) addTo(m.wasm, id, s);
        sources = null;
        active = m.wasm;
        // The lean module's copies are no longer needed (a run still going there holds its own references).
        lean.clearAll();
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
 * (`#[cfg(feature = "full")]` in web/src/wasm.rs) can simply call `(await loadFull()).theExport(…)`.
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

async function handle(m) {
  const { id } = m;
  if (m.type === 'init') {
    ready =
      ready ||
      initLean({ module_or_path: new URL('../pkg/lethe_lean_bg.wasm', import.meta.url) }).catch((e) => {
        throw startError('the WebAssembly module', e);
      });
    [webgpu] = await Promise.all([webgpu || detectWebGpu(), ready]);
    return { version: lean.version(), maxBytes: lean.maxBytes(), webgpu, module: active.module() };
  }
  if (!ready) throw new Error('the worker was not initialised');
  await ready;
  switch (m.type) {
    case 'full':
      await loadFull();
      return { module: 'full' };
    case 'add': {
      const s = { file: m.file, bytes: m.bytes, matrix: m.matrix, name: m.name };
      if (!s.file && !s.bytes && !s.matrix) throw new Error('nothing to add');
      // Kept for the full module while the lean one is active (a full module still starting gets it on taking over).
      if (sources) sources.set(m.source, s);
      addTo(active, m.source, s);
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
      lean.removeSource(m.source);
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
    case 'synthetic':
      return (await loadFull()).synthetic(m.kind, m.seed >>> 0);
    default:
      throw new Error(`unknown request type ${m.type}`);
  }
}

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type === 'cancel') {
    cancelled.add(m.target);
    return;
  }
  try {
    const value = await handle(m);
    post({ id: m.id, type: 'result', value });
  } catch (err) {
    post({ id: m.id, type: 'error', message: String((err && err.message) || err), input: err && err.input, backend: !!(err && err.backend) });
  } finally {
    cancelled.delete(m.id);
  }
};
