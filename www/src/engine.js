// Page side of the worker protocol (protocol.md): one worker per page, shared by every widget on it, started on
// first use (never at import time). Requests are Promises; an AbortSignal cancels a run.

import { spawnWorker } from './spawn.js';
import { BUNDLED, assetUrl, basePath, bundledWasm, fileUrl, inlinedWasm } from './base.js';

// From the base URL (base.js): not import.meta.url, which a bundler rewrites.
const WORKER_URL = (base) => simd(base ? fileUrl('src/worker.js', base) : assetUrl('src/worker.js'));
// `?lethe-simd=simd128|relaxed` on the page forces the worker's wasm build (worker.js; the browser tests run each).
const simd = (url) => {
  const forced = typeof location !== 'undefined' && new URLSearchParams(location.search).get('lethe-simd');
  if (forced) url.searchParams.set('simd', forced);
  return url;
};

/** Why this browser cannot run the widget, or null. */
export function unsupported() {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.instantiate !== 'function') return 'this browser has no WebAssembly';
  if (typeof Worker !== 'function') return 'this browser has no Web Workers';
  if (typeof AbortController !== 'function') return 'this browser is too old (no AbortController)';
  return null;
}

export class Engine {
  /** `workers`: how many workers a pooled SDE run uses (default min(hardwareConcurrency, 4)). */
  constructor({ workers, base } = {}) {
    this.workers = workers;
    this.base = base || null;
    this.worker = null;
    this.pending = new Map();
    this.seq = 0;
    this.sourceSeq = 0;
    this.info = null;
    this.ready = null;
    this.failure = null;
    /** Which wasm module answers: 'lean' until the full one has taken over ('full'). */
    this.module = null;
    this.moduleListeners = new Set();
    this.full = null;
  }

  /** Calls `fn(module)` now and whenever the worker switches modules. */
  onModule(fn) {
    this.moduleListeners.add(fn);
    if (this.module) fn(this.module);
    return () => this.moduleListeners.delete(fn);
  }

  _setModule(m) {
    this.module = m;
    for (const f of this.moduleListeners) f(m);
  }

  /**
   * Has the worker fetch the full wasm module (every reader and analysis, WebGPU) now rather than on first need.
   * The page calls it once its first results are shown, so that later work makes no network request.
   */
  loadFull() {
    if (!this.full) this.full = this.start().then(() => this.request('full')).then((r) => (this.poolInfo = r));
    return this.full;
  }

  /** Workers a pooled SDE run uses, once the full module and the pool have started (else null). */
  get poolWorkers() {
    return this.poolInfo?.workers ?? null;
  }

  /** Starts the worker and the wasm module once; resolves to `{version, maxBytes}`. */
  start() {
    if (this.ready) return this.ready;
    const why = unsupported();
    if (why) return (this.ready = Promise.reject(new Error(`Lethe cannot run here: ${why}.`)));
    try {
      this.worker = spawnWorker(WORKER_URL(this.base));
    } catch (e) {
      this.failure = e.message;
      return (this.ready = Promise.reject(e));
    }
    this.worker.onmessage = (e) => this._receive(e.data);
    this.worker.onerror = (e) => {
      const msg = `the computation worker failed to start (${e.message || 'module workers unsupported?'})`;
      this.failure = msg;
      for (const p of this.pending.values()) p.reject(new Error(msg));
      this.pending.clear();
    };
    // lethe.html hands its wasm modules over, the npm package their URLs as the site's bundler resolved them (base.js).
    const wasm = inlinedWasm() || (String(this.base || basePath(null)) === BUNDLED ? bundledWasm() : null);
    this.ready = this.request('init', { ...(this.workers ? { workers: this.workers } : {}), ...(wasm ? { wasm } : {}) }).then((info) => {
      this.info = info;
      if (!this.module) this._setModule(info.module);
      return info;
    });
    return this.ready;
  }

  /** A fresh source id (unique across the page's widgets). */
  newSource() {
    return ++this.sourceSeq;
  }

  _receive(m) {
    if (m.type === 'module') return this._setModule(m.module);
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'progress') {
      p.onProgress?.(m);
      return;
    }
    this.pending.delete(m.id);
    if (m.type === 'result') p.resolve(m.value);
    else {
      const err = new Error(m.message);
      err.input = m.input;
      // A guardrail's refusal carries its stable code (the CLI's and the report's).
      err.code = m.code || null;
      // A failure of the compute backend (WebGPU): the page offers the same run on the CPU.
      err.backend = !!m.backend;
      p.reject(err);
    }
  }

  /**
   * Sends a request. `signal` cancels a `run` (the worker answers with the partial result); other requests are
   * rejected with an AbortError at once and their answer is dropped.
   */
  request(type, payload = {}, { signal, onProgress, transfer } = {}) {
    if (this.failure) return Promise.reject(new Error(this.failure));
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      const entry = { resolve, reject, onProgress };
      this.pending.set(id, entry);
      if (signal) {
        const abort = () => {
          if (type === 'run' && (payload.analysis === 'sde' || payload.analysis === 'calibrate')) {
            this.worker.postMessage({ type: 'cancel', target: id });
          } else if (this.pending.get(id) === entry) {
            this.pending.delete(id);
            reject(new DOMException('cancelled', 'AbortError'));
          }
        };
        if (signal.aborted) abort();
        else signal.addEventListener('abort', abort, { once: true });
      }
      this.worker.postMessage({ id, type, ...payload }, transfer || []);
    });
  }

  /** Ends the worker and its SDE pool (the last <lethe-eval> left the page); pending requests are rejected. */
  stop() {
    this.worker?.terminate();
    this.worker = null;
    this.failure = 'Lethe was removed from the page';
    const err = new DOMException(this.failure, 'AbortError');
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    this.moduleListeners.clear();
    if (shared === this) shared = null;
  }
}

let shared = null;
/** The page's engine (created on first call, or after stop(); `opts` only counts then). */
export function engine(opts) {
  if (!shared) shared = new Engine(opts);
  return shared;
}
