// The benchmark in a dedicated worker: fetch the plan and the wasm, run it (bench/lethe-wasm.mjs), post results.
import { runPlan } from './lethe-wasm.mjs';

self.onmessage = async (e) => {
  try {
    const plan = await (await fetch(e.data.plan)).json();
    const wasm = await (await fetch(e.data.wasm)).arrayBuffer();
    const load = async (p) => {
      const r = await fetch(`data/${p}`);
      if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
      return r.arrayBuffer();
    };
    const results = await runPlan(wasm, plan, load, (m) => self.postMessage({ log: m }));
    self.postMessage({ done: true, results });
  } catch (err) {
    self.postMessage({ done: true, error: String(err && err.stack ? err.stack : err) });
  }
};
