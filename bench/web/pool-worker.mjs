// One worker of bench/web/pool.mjs: its own lethe_bench.wasm instance with the job's inputs loaded.
import { instantiate, parseNpy } from './lethe-wasm.mjs';

let api;
self.onmessage = async (e) => {
  try {
    const m = e.data;
    if (m.load) {
      api = await instantiate(await (await fetch(m.load.wasm)).arrayBuffer());
      const inp = {};
      for (const k of ['it', 'oot', 'pool']) {
        const r = await fetch(`data/${m.load.task.dir}/${k}.npy`);
        if (!r.ok) throw new Error(`${m.load.task.dir}/${k}.npy: HTTP ${r.status}`);
        inp[k] = parseNpy(await r.arrayBuffer());
      }
      api.poolLoad(inp, m.load.task);
      self.postMessage({ loaded: true });
    } else if (m.subset !== undefined) {
      const r = api.poolSubset(m.subset);
      self.postMessage(r, [r.encoded.buffer]);
    } else if (m.assemble) {
      self.postMessage(api.poolAssemble(m.assemble));
    }
  } catch (err) {
    self.postMessage({ error: String(err && err.stack ? err.stack : err) });
  }
};
