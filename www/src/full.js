// The full wasm module (every reader and analysis, WebGPU), imported by the worker when it is needed: after the
// page's first results, or on the first request the lean module cannot serve. Not part of the initial page.
import init, * as wasm from '../pkg/lethe_web.js';

export { wasm };

/** Fetches and instantiates the module. */
export const start = () => init({ module_or_path: new URL('../pkg/lethe_web_bg.wasm', import.meta.url) });
