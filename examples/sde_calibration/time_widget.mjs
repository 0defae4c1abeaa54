// Measures the widget's calibrated SDE verdict for 100 targets at |S| = 100 (the size of docs/sde-calibration.md)
// in headless Chromium: the figure README.md quotes. Not a test (speed targets belong in benchmarks, not in pass/fail
// checks); run it on a quiet machine after ./build.sh site:
//
//   node examples/sde_calibration/time_widget.mjs [runs=7]
//
// The built site (target/site) is served on 127.0.0.1 by python3 -m http.server (exactly that process is stopped at
// the end). The page opens without its example; the SDE panel gets the digits example's act_retrained.npy (744 ×
// 128 penultimate activations) as in the controlled experiment: in-training references from rows 144..344,
// out-of-training references from 544..744, 50 targets labelled in training drawn from 344..544 and 50 labelled
// out of training from the forget set 0..144, |S| = 100, R = 20 reference subsets per class, σ = sqrt(dim),
// calibrated verdict only (no shuffles). Timed: the SDE panel's own `data-calibrated-ms`, from sending the
// `calibrate` request to the worker to its answer (drawing the result is not included); the first run, which also
// moves the file into the worker, is reported apart. The same job through the CLI (one thread) is timed beside it.
import { execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SITE = path.join(ROOT, 'target/site');
const CLI = path.join(ROOT, 'target/release/lethe');
const runs = Number(process.argv[2] || 7);
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];

const port = await new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', SITE], { stdio: 'ignore' });
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 100; i++) {
  try {
    if ((await fetch(`${base}/index.html`)).ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 100));
}
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  await page.goto(`${base}/index.html?example=0`);
  await page.waitForFunction(() => window.lethe && document.querySelector('#lethe-sde'));
  await page.evaluate(async () => {
    const w = window.lethe;
    await w.ready;
    const blob = await (await fetch('data/digits/act_retrained.npy')).blob();
    const item = await w.store.add({ file: new File([blob], 'act_retrained.npy'), origin: 'example' });
    const rows = (text) => ({ source: item.id, rows: { kind: 'text', text } });
    w.panels.sde.set({
      mode: 'many',
      in_training: rows('144..244'),
      out_of_training: rows('544..644'),
      'draw-in': rows('344..544'),
      'draw-out': rows('0..144'),
      it_pool: '144..344',
      oot_pool: '544..744',
      draw: 50,
      size: 100,
      refs: 20,
      rule: 'calibrated',
      seed: 0,
    });
  });
  const ms = [];
  for (let k = 0; k < runs + 1; k++) {
    const out = await page.evaluate(async () => {
      const r = await window.lethe.run('sde');
      return { ms: Number(document.querySelector('#lethe-sde').dataset.calibratedMs), targets: r.result.targets.length, size: r.result.params.subset_size, refs: r.result.params.references };
    });
    if (out.targets !== 100 || out.size !== 100 || out.refs !== 20) throw new Error(`unexpected job: ${JSON.stringify(out)}`);
    ms.push(out.ms);
  }
  const [first, ...rest] = ms;
  const cliMs = [];
  const args = ['calibrate', '--data', path.join(SITE, 'data/digits/act_retrained.npy'), '--it-pool', '144..344', '--oot-pool', '544..744', '--draw-in', '344..544', '--draw-out', '0..144', '--draw', '50', '--size', '100', '--refs', '20', '--paper-shuffles', '0', '--seed', '0', '--threads', '1', '--json'];
  for (let k = 0; k < runs; k++) {
    const t0 = process.hrtime.bigint();
    execFileSync(CLI, args, { maxBuffer: 64 << 20 });
    cliMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  console.log(`calibrated verdict, 100 targets, |S| = 100, R = 20, digits act_retrained.npy (744 × 128), seed 0`);
  console.log(`widget (headless Chromium ${browser.version()}, one worker): first run ${first} ms (includes moving the file to the worker); next ${rest.length} runs ${rest.join(', ')} ms, median ${median(rest)} ms`);
  console.log(`CLI (--threads 1, whole process incl. reading the file): median ${median(cliMs).toFixed(0)} ms of ${runs}`);
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0].model}; load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
} finally {
  await browser.close();
  server.kill('SIGTERM');
}
