// The full wasm module (every reader and analysis, WebGPU), imported by the worker when it is needed: after the
// page's first results, or on the first request the lean module cannot serve. Not part of the initial page.
import init, * as wasm from '../pkg/lethe_web.js';

export { wasm };

/**
 * Fetches and instantiates the module: its relaxed-SIMD build when `simd` is `relaxed` (worker.js decides), or
 * `given`, what the page handed over (worker.js: a Response of the single-file page's bytes, or the npm package's URL).
 */
export const start = (simd, given) =>
  init({
    module_or_path: given
      ? given
      : simd === 'relaxed'
        ? new URL('../pkg/lethe_web_relaxed_bg.wasm', import.meta.url)
        : new URL('../pkg/lethe_web_bg.wasm', import.meta.url),
  });
