// Runs a benchmark plan on lethe_bench.wasm in Node (single thread).
//   node bench/node.mjs WASM PLAN.json DATA_DIR OUT.json
import fs from 'node:fs';
import path from 'node:path';
import { runPlan } from './lethe-wasm.mjs';

const [wasmPath, planPath, dataDir, outPath] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(planPath, 'utf8'));
const results = await runPlan(fs.readFileSync(wasmPath), plan, async (p) => fs.readFileSync(path.join(dataDir, p)), (m) => console.error(`  [node] ${m}`));
fs.writeFileSync(outPath, JSON.stringify({ runtime: `node ${process.version}`, results }));
