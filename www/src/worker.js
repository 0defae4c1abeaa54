// The computation worker: owns the wasm module and all loaded data; answers the page's messages (protocol.md).
// Module worker (`new Worker(url, {type: 'module'})`).
import init, * as wasm from '../pkg/lethe_web.js';

let ready = null;
let webgpu = null;
const cancelled = new Set();

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

async function handle(m) {
  const { id } = m;
  if (m.type === 'init') {
    ready =
      ready ||
      init({ module_or_path: m.wasmUrl }).catch((e) => {
        const csp = /wasm-unsafe-eval|unsafe-eval|Content Security Policy/i.test(String(e && e.message));
        throw new Error(
          `the WebAssembly module could not be started: ${e && e.message}` +
            (csp ? " — this page's Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src (see docs/embedding.md)" : ''),
        );
      });
    [webgpu] = await Promise.all([webgpu || detectWebGpu(), ready]);
    if (webgpu.available && !wasm.hasWebGpu()) webgpu = { available: false, reason: 'this build has no WebGPU backend' };
    return { version: wasm.version(), maxBytes: wasm.maxBytes(), webgpu };
  }
  if (!ready) throw new Error('the worker was not initialised');
  await ready;
  switch (m.type) {
    case 'add':
      if (m.file) wasm.addFile(m.source, m.file, m.name);
      else if (m.bytes) wasm.addBytes(m.source, new Uint8Array(m.bytes), m.name);
      else if (m.matrix) {
        const { values, rows, cols } = m.matrix;
        if (values instanceof Float32Array) wasm.addMatrixF32(m.source, values, rows, cols, m.name);
        else wasm.addMatrixF64(m.source, Float64Array.from(values), rows, cols, m.name);
      } else throw new Error('nothing to add');
      // The source stays in the worker even when its headers cannot be read: a text file of generations is not a
      // table but is still an input (ROUGE-L). The page shows the problem next to the file.
      try {
        return { ok: true, value: wasm.inspect(m.source) };
      } catch (err) {
        return { ok: false, message: String((err && err.message) || err) };
      }
    case 'hash': {
      let last = 0;
      return wasm.sha256(m.source, (done, total) => {
        const now = performance.now();
        if (now - last > 100 || done === total) {
          last = now;
          post({ id, type: 'progress', fraction: total ? done / total : 1, phase: 'SHA-256', eta_s: NaN });
        }
      });
    }
    case 'remove':
      wasm.removeSource(m.source);
      return null;
    case 'load':
      return wasm.loadInput(m.role, m.input);
    case 'run': {
      const request = { ...m.request };
      const choice = m.analysis === 'sde' || m.analysis === 'calibrate' ? resolveBackend(request) : null;
      if (choice) request.backend = choice.used;
      const value = await wasm.run(m.analysis, request, async (p) => {
        post({ id, type: 'progress', fraction: p.fraction, phase: p.phase, eta_s: p.eta_s });
        await macrotask();
        return !cancelled.has(id);
      });
      if (choice) value.backend_choice = choice;
      return value;
    }
    case 'synthetic':
      return wasm.synthetic(m.kind, m.seed >>> 0);
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
