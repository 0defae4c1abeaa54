// lethe.widget(command, …): an analysis run in the notebook's browser by Lethe's full wasm module, on arrays the kernel
// sent once as binary buffers (never JSON lists). anywidget loads no second file by URL (anywidget issue 921), and an
// ES module inlining the engine travels with every widget, so the engine (lethe/static/engine.json, written by
// python/widget/build.py: the .wasm gzip-compressed and base64-encoded, and the worker's source: wasm-bindgen's glue +
// engine_worker.js) is asked of the kernel by the first view of a page that lacks it, by a custom message, and kept
// on the page under its id (engine.gen.js: a hash of its bytes) for every later widget; it runs in a worker started
// from a blob: URL, with progress and a Cancel button. The request's options can be changed and the analysis run again
// here, without the kernel; a change clears the result (here and in the kernel's `widget.report`) until it is run.
// The report is drawn by report.js and sent back to the kernel as JSON text (trait `report_json`).
import { h, fill } from '../../www/src/dom.js';
import { field, runner, say } from '../../www/src/panels/common.js';
import { draw } from './report.js';
import { ENGINE_ID } from './engine.gen.js';

/** The page's engines by id: `{ source, compiled }` promises shared by every widget of the notebook's page. */
const ENGINES = (globalThis.__letheEngines ??= new Map());

/** The engine's source ({ wasm, worker }): asked of the kernel once per page, by the first view that needs it. */
function engineSource(model) {
  let e = ENGINES.get(ENGINE_ID);
  if (!e) {
    e = {};
    e.source = new Promise((resolve) => {
      const on = (msg) => {
        if (msg?.type !== 'engine' || msg.id !== ENGINE_ID) return;
        model.off('msg:custom', on);
        resolve({ wasm: msg.wasm, worker: msg.worker });
      };
      model.on('msg:custom', on);
      model.send({ type: 'engine?', id: ENGINE_ID });
    });
    ENGINES.set(ENGINE_ID, e);
  }
  return e;
}

/** The wasm module, decoded and compiled once per page (every widget of the notebook shares it). */
function compileEngine(e, source) {
  e.compiled ??= (async () => {
    const raw = Uint8Array.from(atob(source.wasm), (c) => c.charCodeAt(0));
    const wasm = await new Response(new Blob([raw]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
    return WebAssembly.compile(wasm);
  })();
  return e.compiled;
}

/** One worker for one view: `call(message, onProgress)` → the reply's value; `cancel()` stops the current run. */
async function startEngine(model) {
  const e = engineSource(model);
  const source = await e.source;
  const url = URL.createObjectURL(new Blob([source.worker], { type: 'text/javascript' }));
  let worker;
  try {
    worker = new Worker(url, { type: 'module' });
  } catch (e) {
    throw new Error(`this notebook page does not allow a worker started from a blob: URL (${e.message}): run the analysis in the kernel (lethe.<analysis>(…)) and show it with lethe.show(report)`);
  } finally {
    URL.revokeObjectURL(url);
  }
  const pending = new Map();
  let next = 1;
  let current = null;
  worker.onmessage = (e) => {
    const m = e.data;
    const p = pending.get(m.id);
    if (!p) return;
    if (m.type === 'progress') return p.onProgress?.(m);
    pending.delete(m.id);
    if (m.type === 'result') p.resolve(m.value);
    else p.reject(Object.assign(new Error(m.message), { input: m.input, code: m.code }));
  };
  let broken = null;
  worker.onerror = (e) => {
    // A module worker that fails to load (a page whose origin is opaque, a policy against blob: workers) says
    // nothing more than that it failed.
    broken = new Error(`the in-browser engine stopped: ${e.message || 'its worker could not start on this page'}`);
    for (const p of pending.values()) p.reject(broken);
    pending.clear();
  };
  const call = (message, onProgress, transfer = []) =>
    new Promise((resolve, reject) => {
      if (broken) return reject(broken);
      const id = next++;
      pending.set(id, { resolve, reject, onProgress });
      current = id;
      worker.postMessage({ ...message, id }, transfer);
    });
  const ready = compileEngine(e, source).then((module) => call({ type: 'init', module }));
  return {
    ready,
    call: (message, onProgress) => ready.then(() => call(message, onProgress)),
    cancel: () => current && worker.postMessage({ type: 'cancel', target: current }),
    stop: () => worker.terminate(),
  };
}

/** The kernel's sources as the worker adds them: .npy header + the array's buffer (DataViews from the comm). */
function sourcesOf(list) {
  return (list || []).map((s) => {
    const parts = [s.header, s.data].filter(Boolean).map((d) => new Uint8Array(d.buffer, d.byteOffset, d.byteLength));
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    return { id: s.id, name: s.name, bytes };
  });
}

/** An option the call left at its default: an empty field ("default"); a value typed there is read as a number,
 *  true/false or a word, and an emptied field returns the option to its default. */
function defaultField(key, label) {
  const f = field({ key, label, type: 'text', value: '', size: 10 });
  f.input.placeholder = 'default';
  return {
    ...f,
    get() {
      const t = f.input.value.trim();
      if (t === '') return undefined;
      if (t === 'true' || t === 'false') return t === 'true';
      const n = Number(t);
      return Number.isFinite(n) && /^[-+0-9.eE]+$/.test(t) ? n : t;
    },
  };
}

/** The analysis's options a person may change here: those the call gave (its numbers, flags and words; inputs and
 *  lists stay as sent), then every other option of the analysis (`options`, the layer's list) at its default. */
function optionFields(request, options = []) {
  const out = [];
  for (const [key, v] of Object.entries(request)) {
    const label = key.replace(/_/g, ' ');
    if (typeof v === 'number') out.push(field({ key, label, value: v }));
    else if (typeof v === 'boolean') out.push(field({ key, label, type: 'checkbox', value: v }));
    else if (typeof v === 'string') out.push(field({ key, label, type: 'text', value: v, size: 14 }));
  }
  for (const key of options) if (!(key in request)) out.push(defaultField(key, key.replace(/_/g, ' ')));
  return out;
}

/** The report envelope of a run: the layer's report where the wasm layer returns one, else built from its output. */
function reportOf(command, output, version) {
  if (output && output.lethe_version) return output;
  return {
    lethe_version: version,
    command,
    parameters: output.parameters ?? null,
    seed: output.seed ?? null,
    inputs: output.inputs ?? [],
    headline: output.headline ?? null,
    warnings: output.warnings ?? [],
    result: output.result,
  };
}

function render({ model, el }) {
  const command = model.get('_analysis');
  const request = JSON.parse(model.get('_request') || '{}');
  const sources = sourcesOf(model.get('_sources'));
  const fields = optionFields(request, model.get('_options') || []);
  const parts = {
    el: h('div', { class: 'panel notebook-run', 'data-command': command }),
    actions: h('div', { class: 'actions' }),
    progress: h('div', { class: 'progress' }),
    error: h('div', { class: 'error', role: 'alert' }),
  };
  const note = h('p', { class: 'muted', 'data-role': 'run-note' });
  const out = h('div', { 'data-role': 'report' });
  const inputs = sources.map((s) => `${s.name} (${(s.bytes.length / 1024).toFixed(1)} KiB)`).join(', ');
  fill(
    parts.el,
    h('p', { class: 'muted' }, `lethe ${command}, computed in this browser on inputs the kernel sent once: ${inputs || 'none'}. Nothing leaves this page.`),
    fields.length ? h('div', { class: 'fields', style: { display: 'flex', flexWrap: 'wrap', gap: '4px 18px', alignItems: 'end' } }, fields.map((f) => f.el)) : null,
    parts.actions,
    parts.progress,
    parts.error,
    note,
    out,
  );
  fill(el, h('div', { class: 'root notebook' }, parts.el));

  let engine = null;
  const current = () => {
    const r = { ...request };
    for (const f of fields) {
      const v = f.get();
      if (v === undefined) delete r[f.key];
      else r[f.key] = v;
    }
    return r;
  };
  const strip = runner({ emit() {} }, parts, {
    label: 'Run in this browser',
    fields,
    start: async (signal, onProgress) => {
      engine ??= await startEngine(model);
      const version = await engine.ready;
      signal.addEventListener('abort', () => engine.cancel(), { once: true });
      const r = current();
      fill(note);
      model.set('_request', JSON.stringify(r));
      model.set('status', 'running');
      model.save_changes();
      try {
        // The sources travel by structured clone: the view keeps its own copy for the next run.
        const output = await engine.call({ type: 'run', analysis: command, request: r, sources }, onProgress);
        const report = reportOf(command, output, version);
        const text = JSON.stringify(report, null, 2);
        // The plot data the wasm layer counted for the page, in its output beside the report's values (kept with
        // the report, so a view drawn again draws it too).
        const extra = { histograms: output.histograms, rank_histograms: output.rank_histograms, plots: output.plots, ecdf: output.ecdf, comparison: output.comparison };
        draw(out, text, extra);
        model.set('report_json', text);
        model.set('_plots', JSON.stringify(extra));
        model.set('status', 'done');
        model.save_changes();
        return report;
      } catch (e) {
        fill(parts.error, say(e.input ? `${e.input}: ${e.message}` : e.message));
        model.set('status', `error: ${e.input ? `${e.input}: ` : ''}${e.message}`);
        model.save_changes();
        throw e;
      }
    },
  });
  // A changed option makes the shown result stale: it is cleared, here and in the kernel, until the next run.
  for (const f of fields) {
    f.input.addEventListener('input', () => {
      if (!model.get('report_json') && !out.firstChild) return;
      fill(out);
      fill(note, 'Options changed: the result was cleared. Run again to compute with them.');
      model.set('report_json', '');
      model.set('status', 'stale');
      model.save_changes();
    });
  }
  const shown = model.get('report_json');
  if (shown) draw(out, shown, JSON.parse(model.get('_plots') || '{}'));
  else strip.run().catch(() => {});
  return () => {
    strip.cancel();
    engine?.stop();
  };
}

export default { render };
