// The body of lethe.widget's worker. python/widget/build.py appends it to the full wasm module's wasm-bindgen glue
// (pkg/lethe_web.js) and inlines the result as text; run.js starts it as a module worker from a blob: URL and hands
// it the compiled module, so nothing is fetched. One run at a time: the sources (the kernel's arrays as .npy bytes,
// the files its request names) are added, hashed as the CLI hashes them, and the analysis runs through the wasm
// layer's `run`, whose checkpoint posts progress and stops the run when a cancel has arrived. Its output and errors
// leave in a Python user's words (the module's `words`: words.rs `python`), as the kernel's reports say them.
/* global initSync, clearAll, addBytes, sha256, run, version, words */

const cancelled = new Set();
const post = (m) => self.postMessage(m);

// A macrotask without setTimeout's clamping: lets a queued `cancel` message in before the core goes on.
const macrotask = () =>
  new Promise((resolve) => {
    const c = new MessageChannel();
    c.port1.onmessage = () => {
      c.port1.close();
      resolve();
    };
    c.port2.postMessage(null);
  });

/** Every string of `v` with the layer's marks in Python's words (string by string: those words hold quotes). */
const pythonic = (v) => {
  if (typeof v === 'string') return words('python', v);
  if (Array.isArray(v)) return v.map(pythonic);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, pythonic(x)]));
  return v;
};

async function handle(m) {
  if (m.type === 'init') {
    initSync({ module: m.module });
    return version();
  }
  if (m.type === 'run') {
    clearAll();
    for (const s of m.sources) {
      addBytes(s.id, s.bytes, s.name);
      sha256(s.id, () => {});
    }
    const out = await run(m.analysis, m.request, async (p) => {
      post({ id: m.id, type: 'progress', fraction: p.fraction, phase: p.phase });
      await macrotask();
      return !cancelled.has(m.id);
    });
    return pythonic(out);
  }
  throw new Error(`unknown request ${m.type}`);
}

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type === 'cancel') {
    cancelled.add(m.target);
    return;
  }
  try {
    post({ id: m.id, type: 'result', value: await handle(m) });
  } catch (err) {
    post({ id: m.id, type: 'error', message: pythonic(String((err && err.message) || err)), input: (err && err.input) || null, code: (err && err.code) || null });
  } finally {
    cancelled.delete(m.id);
  }
};
