// 5. Privacy: after the page has loaded, a full session — every analysis (SDE on the CPU, on WebGPU, and many
//    targets on the worker pool), the M_gen
//    slider, synthetic examples,
//    every export — makes no network request of any kind. Requests are recorded on the page and the context
//    (workers included), WebSockets and service workers are watched, and any request is also blocked by a route,
//    so one would show up as a failure too. The page says visibly that nothing leaves the machine. The same holds
//    for the teaching page (teach.html) while every topic is driven.
import path from 'node:path';
import { ROOT, assert, open, waitExample, waitRun } from './lib.mjs';

export const tests = [
  {
    name: 'no network request after load while all four analyses run and every export is made',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page);
      // Loading ends with the full wasm module and the SDE worker pool (started after the first results;
      // weight.test.mjs): a pooled run later makes no request either.
      await page.locator('.lethe-root[data-module="full"][data-workers]').waitFor({ timeout: 30000 });
      await page.waitForLoadState('networkidle');
      const seen = [];
      const record = (r) => seen.push(`${r.method()} ${r.url()}`);
      page.on('request', record);
      context.on('request', (r) => !seen.includes(`${r.method()} ${r.url()}`) && record(r));
      page.on('websocket', (ws) => seen.push(`websocket ${ws.url()}`));
      page.on('worker', (w) => seen.push(`new worker ${w.url()}`));
      context.on('serviceworker', (w) => seen.push(`service worker ${w.url()}`));
      await context.route('**/*', (route) => {
        seen.push(`routed ${route.request().url()}`);
        route.abort();
      });

      const panels = ['sde', 'ruler', 'epsilon', 'bounds'].map((p) => page.locator(`#lethe-${p}`));
      const [sde, ruler, eps, b] = panels;
      await sde.locator('[data-param=seed]').fill('3');
      await sde.locator('[data-action="run"]').click();
      await waitRun(sde);
      // The WebGPU path (SwiftShader here): the GPU device, its pipelines and readbacks make no request either.
      await sde.locator('[data-param=precision]').selectOption('f32');
      await sde.locator('[data-param=backend]').selectOption('webgpu');
      await sde.locator('[data-action="run"]').click();
      assert(/done in/.test(await waitRun(sde, 120000)), 'the GPU run finished');
      assert((await sde.locator('[data-value="backend"]').textContent()).startsWith('Computed on: WebGPU'), 'SDE ran on WebGPU');
      // Many targets on the CPU, split across the worker pool.
      await sde.locator('[data-param=backend]').selectOption('cpu');
      await sde.locator('[data-param=mode]').selectOption('many');
      await sde.locator('select[data-role="draw-from"]').selectOption({ label: 'act_unlearned.npy' });
      await sde.locator('[data-role="draw-from-rows-mode"]').selectOption('text');
      await sde.locator('[data-role="draw-from-rows"]').fill('0..144');
      await sde.locator('[data-param=draw]').fill('4');
      await sde.locator('[data-param=size]').fill('40');
      // Subsets of different sizes are refused; the page draws the references down to 40 rows.
      await sde.locator('[data-param=equal_size]').check();
      await sde.locator('[data-slot="draw-from"] .lethe-slot-status').filter({ hasText: '144 × 128' }).waitFor();
      await sde.locator('[data-action="run"]').click();
      assert(/done in/.test(await waitRun(sde, 120000)), 'the pooled run finished');
      const pooled = await sde.locator('[data-value="backend"]').textContent();
      const workers = Number(await page.locator('.lethe-root').getAttribute('data-workers'));
      assert(workers < 2 || pooled.includes(`split across ${workers} workers`), `pooled on ${workers} workers: ${pooled}`);
      // (The SDE panel stays on the pooled run: results whose settings changed cannot be downloaded until re-run.)
      await ruler.locator('[data-action="run"]').click();
      await waitRun(ruler);
      await eps.locator('[data-action="synthetic"]').click();
      await eps.locator('[data-slot="unlearned"] .lethe-slot-status').filter({ hasText: '32 × 100' }).waitFor();
      await eps.locator('[data-action="run"]').click();
      await waitRun(eps);
      await b.locator('[data-action="synthetic-scores"]').click();
      await b.locator('[data-slot="scores"] .lethe-slot-status').filter({ hasText: '200 × 1' }).waitFor();
      await b.locator('[data-action="run"]').click();
      await waitRun(b);
      await b.locator('[data-role="mgen-x"]').fill('0.7');
      await b.locator('[data-value="bounds.slider"]').filter({ hasText: 'M_gen(0.7)' }).waitFor();
      await b.locator('[data-action="synthetic-generations"]').click();
      await page.locator('.lethe-card[data-name="synthetic_reference.txt"]').waitFor();
      await b.locator('[data-action="run"]').click();
      await waitRun(b);
      // What a person's own files bring in after load: a tool's result file (its reader, tools.js) and the
      // membership audit's LiRA section (panels/lira.js) were loaded with the page, so they need no request and
      // work offline (they were fetched on first use: the LiRA box stayed blank offline).
      await page.locator('[data-role="inputs-file"]').setInputFiles(path.join(ROOT, 'tests/fixtures/tools/privacy_meter/log/report/exp/attack_result_0.npz'));
      await page.locator('.lethe-card[data-name="attack_result_0.npz"] [data-role="tool"]').waitFor({ timeout: 15000 });
      const mia = page.locator('#lethe-mia[data-panel]');
      await mia.locator('[data-role="lira-open"] > summary').click();
      await page.locator('#lethe-lira[data-panel]').waitFor({ timeout: 15000 });
      // Every export: JSON, CSV, SVG and PNG of each plot.
      let downloads = 0;
      for (const p of panels) {
        for (const btn of await p.locator('[data-action="export-json"], [data-action="export-csv"], .lethe-plot-actions button').all()) {
          const what = `${await p.getAttribute('id')}: ${await btn.getAttribute('aria-label') || await btn.textContent()}`;
          // Chromium drops every 11th download in quick succession from one page (its download limiter; the
          // next click works), so a missing download gets one more click.
          let dl = null;
          for (let attempt = 0; attempt < 2 && !dl; attempt++) {
            [dl] = await Promise.all([page.waitForEvent('download', { timeout: 5000 }).catch(() => null), btn.click()]);
          }
          assert(dl, `no download from ${what}`);
          await dl.path();
          downloads++;
        }
      }
      await page.waitForTimeout(500);
      const network = seen.filter((s) => !/ (blob|data):/.test(s));
      assert(network.length === 0, `requests after load:\n${network.join('\n')}`);
      assert(context.serviceWorkers().length === 0, 'no service worker');
      const statement = page.getByText('no file, number or request leaves your machine');
      assert(await statement.isVisible(), 'the privacy statement is visible');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `0 network requests (4 analyses, SDE on WebGPU and on the worker pool too, slider, 2 synthetic examples, ${downloads} exports; ${seen.length - network.length} local blob:/data: URLs)`;
    },
  },
  // The teaching page: after it has loaded (the digits example for the SDE topic is fetched while it loads), every
  // topic's controls, the HSIC animation, the SDE trends, the draggable threshold, the calculator and the data
  // downloads make no network request.
  {
    name: 'teach.html: no network request after load while every topic is driven',
    async fn({ context, base }) {
      const page = await open(context, base, '/teach.html');
      await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 90000 });
      await page.waitForLoadState('networkidle');
      const seen = [];
      const record = (r) => seen.push(`${r.method()} ${r.url()}`);
      page.on('request', record);
      context.on('request', (r) => !seen.includes(`${r.method()} ${r.url()}`) && record(r));
      page.on('websocket', (ws) => seen.push(`websocket ${ws.url()}`));
      page.on('worker', (w) => seen.push(`new worker ${w.url()}`));
      context.on('serviceworker', (w) => seen.push(`service worker ${w.url()}`));
      await context.route('**/*', (route) => {
        seen.push(`routed ${route.request().url()}`);
        route.abort();
      });
      const key = async (sel, k, n = 1) => {
        await page.locator(sel).focus();
        for (let i = 0; i < n; i++) await page.keyboard.press(k);
        await page.waitForTimeout(250);
      };
      const idle = () => page.waitForFunction(() => ![...document.querySelectorAll('.lethe-teach-topic')].some((e) => e.hasAttribute('aria-busy')), null, { timeout: 60000 });
      let downloads = 0;
      const download = async (topicId) => {
        const btn = page.locator(`#lethe-teach-${topicId} [data-action="download-data"]`);
        const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), btn.click()]);
        await dl.path();
        downloads++;
      };
      // HSIC: sliders, play, one shuffle, all shuffles, data download.
      await key('#lethe-teach-hsic [data-param=strength]', 'ArrowRight', 2);
      await page.locator('#lethe-teach-hsic [data-action=play]').click();
      await page.waitForTimeout(400);
      await page.locator('#lethe-teach-hsic [data-action=step]').click();
      await page.locator('#lethe-teach-hsic [data-action=finish]').click();
      await page.waitForFunction(() => document.querySelector('#lethe-teach-hsic').dataset.complete === 'true');
      await download('hsic');
      // SDE: another model and representation, then the trends.
      await key('#lethe-teach-sde [data-param=model]', 'ArrowDown');
      await key('#lethe-teach-sde [data-param=representation]', 'ArrowDown');
      await idle();
      await page.locator('#lethe-teach-sde [data-action=sweep]').click();
      await page.waitForFunction(() => document.querySelector('[data-role=sweep]').dataset.done === 'true', null, { timeout: 240000 });
      // Ranks, epsilon (threshold by keyboard), bounds and its calculator.
      await key('#lethe-teach-ranks [data-param=n_x]', 'ArrowRight', 3);
      await download('ranks');
      await key('#lethe-teach-epsilon [data-role=threshold]', 'ArrowLeft', 5);
      await key('#lethe-teach-epsilon [data-param=shift]', 'ArrowRight', 2);
      await download('epsilon');
      await key('#lethe-teach-bounds [data-param=n]', 'ArrowRight', 4);
      await key('#lethe-teach-bounds [data-param=plan_width]', 'ArrowLeft', 3);
      await download('bounds');
      await idle();
      await page.waitForTimeout(500);
      const network = seen.filter((s) => !/ (blob|data):/.test(s));
      assert(network.length === 0, `requests after load:\n${network.join('\n')}`);
      assert(context.serviceWorkers().length === 0, 'no service worker');
      assert(await page.getByText('no file, number or request leaves your machine').isVisible(), 'the privacy statement is visible');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `0 network requests (5 topics driven, HSIC animation, 14 SDE trend cells, ${downloads} data downloads; ${seen.length - network.length} local blob:/data: URLs)`;
    },
  },
];
