// Runs a benchmark plan on lethe_bench.wasm in headless Chromium, in a dedicated worker (bench/web/; `poolJob`
// tasks on a pool of workers, bench/web/pool.mjs; `compare` tasks on the page's module pkg/lethe_web.js in a
// worker of their own, bench/web/compare.mjs), served from 127.0.0.1 by this script (data files under /data/).
// Flags as in docs/toolchain.md (Playwright gives each launch a fresh profile); --enable-unsafe-webgpu is not needed
// (CPU wasm only).
//   node bench/browser.mjs WASM PLAN.json DATA_DIR OUT.json
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const [wasmPath, planPath, dataDir, outPath] = process.argv.slice(2);
const pkgDir = process.env.LETHE_PKG || path.join(here, '..', 'pkg');
const files = {
  '/bench.html': [path.join(here, 'web/bench.html'), 'text/html'],
  '/worker.mjs': [path.join(here, 'web/worker.mjs'), 'text/javascript'],
  '/pool.mjs': [path.join(here, 'web/pool.mjs'), 'text/javascript'],
  '/pool-worker.mjs': [path.join(here, 'web/pool-worker.mjs'), 'text/javascript'],
  '/compare.mjs': [path.join(here, 'web/compare.mjs'), 'text/javascript'],
  '/compare-worker.mjs': [path.join(here, 'web/compare-worker.mjs'), 'text/javascript'],
  '/compare-table.mjs': [path.join(here, 'web/compare-table.mjs'), 'text/javascript'],
  // The page's full module, for the plan's `compare` tasks (LETHE_PKG: another build's pkg/ folder).
  '/pkg/lethe_web.js': [path.join(pkgDir, 'lethe_web.js'), 'text/javascript'],
  '/pkg/lethe_web_bg.wasm': [path.join(pkgDir, 'lethe_web_bg.wasm'), 'application/wasm'],
  '/pkg/lethe_web_relaxed_bg.wasm': [path.join(pkgDir, 'lethe_web_relaxed_bg.wasm'), 'application/wasm'],
  '/lethe-wasm.mjs': [path.join(here, 'lethe-wasm.mjs'), 'text/javascript'],
  '/plan.json': [planPath, 'application/json'],
  '/lethe_bench.wasm': [wasmPath, 'application/wasm'],
};
const server = http.createServer((req, res) => {
  const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  let file = files[url];
  if (!file && url.startsWith('/data/') && !url.includes('..')) file = [path.join(dataDir, url.slice(6)), 'application/octet-stream'];
  if (!file || !fs.existsSync(file[0])) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': file[1] });
  fs.createReadStream(file[0]).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update',
    '--disable-sync'],
});
try {
  const page = await browser.newPage();
  page.on('console', (m) => console.error(`  [chromium console] ${m.text()}`));
  await page.goto(`http://127.0.0.1:${port}/bench.html?plan=plan.json&wasm=lethe_bench.wasm`);
  const version = browser.version();
  // Relay the worker's log lines while it runs.
  let shown = 0;
  const poll = setInterval(async () => {
    const text = await page.locator('#log').textContent().catch(() => '');
    const lines = text.split('\n').filter(Boolean);
    for (; shown < lines.length; shown++) console.error(`  [chromium] ${lines[shown]}`);
  }, 500);
  const r = await page.evaluate(() => window.benchDone);
  clearInterval(poll);
  if (r.error) throw new Error(`benchmark failed in the worker: ${r.error}`);
  fs.writeFileSync(outPath, JSON.stringify({ runtime: `chromium ${version} (headless, dedicated worker)`, results: r.results }));
} finally {
  await browser.close();
  server.close();
}
