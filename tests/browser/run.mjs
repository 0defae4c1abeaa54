// Runs the browser tests (tests/browser/*.test.mjs) against the built site (target/site, from ./build.sh site):
// starts a static server on 127.0.0.1 (its PID recorded; exactly that process is stopped at the end), launches
// headless Chromium (/usr/bin/chromium) once, gives each test a fresh context, prints `N passed, N failed`.
//   node tests/browser/run.mjs [name-filter]
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CLI, ROOT, SITE } from './lib.mjs';

const filter = process.argv[2] || '';
if (!existsSync(path.join(SITE, 'index.html'))) {
  console.error('target/site is missing: run ./build.sh site first');
  process.exit(2);
}
if (!existsSync(CLI)) {
  console.error('target/release/lethe is missing: cargo build --release -p lethe-cli');
  process.exit(2);
}

const port = await new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', SITE], { stdio: 'ignore' });
console.log(`static server pid ${server.pid} on http://127.0.0.1:${port}/`);
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) {
  try {
    if ((await fetch(base + '/index.html')).ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 100));
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
let passed = 0;
let failed = 0;
const files = readdirSync(path.join(ROOT, 'tests/browser')).filter((f) => f.endsWith('.test.mjs')).sort();
try {
  for (const f of files) {
    const mod = await import(path.join(ROOT, 'tests/browser', f));
    for (const t of mod.tests) {
      const name = `${f.replace('.test.mjs', '')}: ${t.name}`;
      if (filter && !name.includes(filter)) continue;
      const context = await browser.newContext({ acceptDownloads: true });
      const t0 = Date.now();
      try {
        const note = await t.fn({ context, base, browser });
        passed++;
        console.log(`ok   ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${note ? ` — ${note}` : ''}`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n     ${String(e.stack || e).split('\n').slice(0, 6).join('\n     ')}`);
      } finally {
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  server.kill('SIGTERM');
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
