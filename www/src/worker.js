// The computation worker: owns the wasm module and all loaded data; answers the page's messages (protocol.md).
// Module worker (`new Worker(url, {type: 'module'})`).
import init, * as wasm from '../pkg/lethe_web.js';

let ready = null;
const cancelled = new Set();

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
    await ready;
    return { version: wasm.version(), maxBytes: wasm.maxBytes() };
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
    case 'run':
      return wasm.run(m.analysis, m.request, async (p) => {
        post({ id, type: 'progress', fraction: p.fraction, phase: p.phase, eta_s: p.eta_s });
        await macrotask();
        return !cancelled.has(id);
      });
    case 'synthetic':
      return wasm.synthetic(m.kind, m.seed >>> 0);
    // Teaching mode (teach.html, <lethe-eval mode="teach">): small requests, answered at once.
    case 'teach':
      return wasm.teach(m.topic, m.request);
    case 'teach-data':
      return wasm.teachData(m.name, new Uint8Array(m.bytes));
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
    post({ id: m.id, type: 'error', message: String((err && err.message) || err), input: err && err.input });
  } finally {
    cancelled.delete(m.id);
  }
};
