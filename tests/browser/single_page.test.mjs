// 6. The single-file page (target/dist/lethe.html, tools/single_page.mjs; issue 25): opened from disk through a
//    file:// URL with every request refused — a route aborts anything but the page itself, and every request of the
//    page, its workers and the context is recorded — it runs the built-in example to its SDE and RULER headlines,
//    then analyses a person's own .npy picked through the file input (SDE, to its headline; the exported report
//    names that file and its SHA-256). No request other than the page may appear: a fetched .wasm, module or
//    example file would be refused and recorded (and the example would not finish).
//
//    Also runs alone, without the static server and the CLI that run.mjs needs:
//      node tests/browser/single_page.test.mjs
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_ARGS, ROOT, SHOTS, assert, downloadJson, eq, npy, rng, runDone, slot, waitExample, write } from './lib.mjs';

export const SINGLE = path.join(ROOT, 'target/dist/lethe.html');

export const tests = [
  {
    name: 'lethe.html from file:// runs the example and an own .npy with no request but the page',
    async fn({ context }) {
      assert(existsSync(SINGLE), `${SINGLE} is missing: ./build.sh single`);
      const pageUrl = pathToFileURL(SINGLE).href;
      const seen = [];
      const local = [];
      // blob: and data: URLs are the page's own inlined files (its worker is a data: URL); anything else left the page.
      const record = (what) => (/^[\w ]*?\b(blob|data):/.test(what) ? local : seen).push(what.length > 160 ? `${what.slice(0, 160)}…` : what);
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url === pageUrl) return route.continue();
        record(`routed ${url}`);
        return route.abort();
      });
      context.on('request', (r) => r.url() !== pageUrl && record(`${r.method()} ${r.url()}`));
      context.on('serviceworker', (w) => record(`service worker ${w.url()}`));
      const page = await context.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
      page.on('websocket', (ws) => record(`websocket ${ws.url()}`));
      const workers = [];
      page.on('worker', (w) => {
        workers.push(w.url());
        record(`worker from ${w.url()}`);
      });
      page.on('request', (r) => r.url() !== pageUrl && !seen.includes(`${r.method()} ${r.url()}`) && record(`${r.method()} ${r.url()}`));
      await page.goto(pageUrl);

      // The built-in example, inlined: SDE and RULER to their headlines, then the full module, the worker pool, the
      // lazy panels and the membership audit's example (all inlined too).
      await waitExample(page, 60000);
      for (const p of ['sde', 'ruler']) {
        const h = (await page.locator(`#lethe-${p} .lethe-headline`).first().textContent()).trim();
        assert(h.length > 20, `${p}: a headline on the example (${h})`);
      }
      await page.locator('.lethe-root[data-module="full"][data-workers]').waitFor({ timeout: 60000 });
      // The SDE pool started too (its workers are the same data: URL, handed the same wasm modules).
      const cores = await page.evaluate(() => Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)));
      eq(await page.locator('.lethe-root').getAttribute('data-workers'), String(cores), 'workers of the SDE pool');
      await page.locator('#lethe-mia[data-panel] .lethe-headline').first().waitFor({ timeout: 60000 });
      const exampleHeadline = (await page.locator('#lethe-sde .lethe-headline').first().textContent()).trim();

      // A person's own file, picked through the SDE panel's file input: 300 rows × 16 columns (rows 0–99 in
      // training, 100–199 out of training, 200–299 the target).
      const dir = mkdtempSync(path.join(tmpdir(), 'lethe-single-'));
      const r = rng(25);
      const file = write(dir, 'own_activations.npy', npy(Array.from({ length: 300 * 16 }, () => r()), [300, 16]));
      const sha = createHash('sha256').update(readFileSync(file)).digest('hex');
      const sde = page.locator('#lethe-sde');
      const it = slot(sde, 'in_training');
      await it.pick(file);
      await it.status().filter({ hasText: '300 × 16' }).waitFor({ timeout: 30000 });
      await it.rows('0..100');
      await slot(sde, 'out_of_training').choose('own_activations.npy');
      await slot(sde, 'out_of_training').rows('100..200');
      await slot(sde, 'target').choose('own_activations.npy');
      await slot(sde, 'target').rows('200..300');
      await slot(sde, 'target').status().filter({ hasText: '100 × 16' }).waitFor({ timeout: 30000 });
      await runDone(sde, 120000);
      const headline = (await sde.locator('.lethe-headline').first().textContent()).trim();
      assert(headline.length > 20 && headline !== exampleHeadline, `SDE headline on the own file: ${headline}`);
      const report = await downloadJson(page, sde.locator('[data-action="export-json"]'));
      assert(report.headline && report.headline.text, 'the report has its headline');
      const inputs = JSON.stringify(report.inputs);
      assert(inputs.includes('own_activations.npy') && inputs.includes(sha), `the report's inputs are the own file (sha256 ${sha}): ${inputs.slice(0, 300)}`);

      await page.waitForTimeout(500);
      const shotPath = path.join(SHOTS, 'single_page.png');
      // The SDE panel on the own file: its inputs, its headline and the evidence.
      await sde.evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: shotPath });
      await page.screenshot({ path: path.join(SHOTS, 'single_page-full.png'), fullPage: true });
      assert(seen.length === 0, `requests besides the page:\n${seen.join('\n')}`);
      assert(context.serviceWorkers().length === 0, 'no service worker');
      eq(errors.length, 0, `page errors: ${errors.join('; ')}`);
      const size = readFileSync(SINGLE).length;
      return `${(size / 1e6).toFixed(2)} MB page; example and own-file SDE (“${headline.slice(0, 60)}…”) with 0 requests besides the page (${local.length} blob:/data: URLs, ${workers.length} data: workers); ${path.relative(ROOT, shotPath)}`;
    },
  },
];

// Alone: headless Chromium as run.mjs launches it, this file's tests only.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  let failed = 0;
  try {
    for (const t of tests) {
      const context = await browser.newContext({ acceptDownloads: true });
      const t0 = Date.now();
      try {
        const note = await t.fn({ context });
        console.log(`ok   single_page: ${t.name} (${((Date.now() - t0) / 1000).toFixed(1)} s) — ${note}`);
      } catch (e) {
        failed++;
        console.log(`FAIL single_page: ${t.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)\n     ${String(e.stack || e).split('\n').slice(0, 8).join('\n     ')}`);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
  process.exit(failed ? 1 : 0);
}
