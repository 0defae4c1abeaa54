// Times the Membership audit panel of the real page (target/site, from ./build.sh site) in headless Chromium on two
// score files: the exact ROC + AUC + DeLong interval (ci = delong, twice: the first run includes reading the files
// into the worker), then the seeded exact-rank bootstrap (ci = bootstrap, RESAMPLES resamples), then how soon
// Cancel answers during a second bootstrap. Each time is the panel's own, from pressing Run to the results shown
// (its data-last-run-ms). Prints one JSON object. Called by tests/peers/mia_speed.py (which times scikit-learn on
// the same scores in the same run):
//   node bench/mia_page.mjs MEMBERS.npy NON_MEMBERS.npy [RESAMPLES]
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, SITE, open, slot, waitRun } from '../tests/browser/lib.mjs';

const [members, nonMembers, resamplesArg] = process.argv.slice(2);
const resamples = Number(resamplesArg || 1000);
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
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
const load = () => os.loadavg().map((x) => Number(x.toFixed(2)));
const out = { runtime: `chromium ${browser.version()} (headless), the page's worker (wasm, one thread)`, cores: os.cpus().length };
try {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await open(context, base, '/?example=0');
  const mia = page.locator('#lethe-mia[data-panel]');
  await mia.waitFor({ timeout: 60000 });
  await slot(mia, 'members').pick(members);
  await slot(mia, 'non_members').pick(nonMembers);
  await slot(mia, 'non_members').status().filter({ hasText: '× 1' }).waitFor({ timeout: 60000 });
  const ms = () => mia.evaluate((e) => Number(e.dataset.lastRunMs));
  const run = async (timeout) => {
    await mia.locator('[data-action="run"]').click();
    const t = await waitRun(mia, timeout);
    if (!/done in/.test(t)) throw new Error(`the run did not finish: ${t}`);
    return ms();
  };
  out.load_before = load();
  await mia.locator('[data-param=ci]').selectOption('delong');
  out.roc_delong_first_ms = await run(300000);
  out.roc_delong_ms = await run(300000);
  out.auc = await mia.locator('[data-value="mia.auc"]').textContent();
  out.delong = await mia.locator('[data-value="mia.delong"]').textContent();
  await mia.locator('[data-param=ci]').selectOption('bootstrap');
  await mia.locator('[data-param=resamples]').fill(String(resamples));
  await mia.locator('[data-param=seed]').fill('0');
  out.load_before_bootstrap = load();
  out.resamples = resamples;
  out.bootstrap_ms = await run(1800000);
  out.bootstrap = await mia.locator('[data-value="mia.bootstrap"]').textContent();
  out.load_after_bootstrap = load();
  // Cancel during a bootstrap: from the click to the panel saying so.
  await mia.locator('[data-param=seed]').fill('1');
  await mia.locator('[data-action="run"]').click();
  const text = mia.locator('.lethe-progress-text');
  await text.filter({ hasText: /[1-9]\d*% · bootstrap resamples/ }).waitFor({ timeout: 600000 });
  out.progress_seen = await text.textContent();
  const t0 = Date.now();
  await mia.locator('[data-action="cancel"]').click();
  await text.filter({ hasText: 'cancelled' }).waitFor({ timeout: 60000 });
  out.cancel_answered_ms = Date.now() - t0;
  // The worker is free again at once: a DeLong run right after.
  await mia.locator('[data-param=ci]').selectOption('delong');
  out.next_run_after_cancel_ms = await run(300000);
  out.page_errors = page.errors;
  await context.close();
} finally {
  await browser.close();
  server.kill();
}
console.log(JSON.stringify(out));
