// 7. The element in other people's pages (issue 24 item 7): a host page built here (served at /host-*.html by a
//    route of the test's context) holds <lethe-eval> as a documentation site would.
//    * One buffer for several roles (the guide's "with your data" code): one input, one SHA-256, the calibrated
//      verdict computed, no "(2)" in the pickers.
//    * Layout shift below 0.05 for every element kind (each analysis, with and without the example, each teaching
//      topic), measured by a PerformanceObserver('layout-shift') while the element loads and builds.
//    * Dark mode: in a host with `color-scheme: dark` (and with `light dark` under a dark preference) form fields
//      and text keep 4.5:1 against what is behind them.
//    * Chart text inside its box: no SVG <text> past its <svg> at 320, 375 and 688 px, for every chart kind.
import { assert, eq, open, shot, waitExample, waitRun } from './lib.mjs';

/** A host page: `body` inside a plain document with `style`; the element's module from the site. */
export async function host(context, base, { name = 'host', body, style = '', head = '', width = 1000, height = 900 }) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Host</title><link rel="icon" href="data:,"><style>body { margin: 0 auto; padding: 8px; font: 16px/1.5 system-ui, sans-serif; }
lethe-eval:not(:defined) { display: block; min-height: min(100vh, 1600px); } ${style}</style>${head}
<script type="module" src="./src/lethe-eval.js"></script></head><body>${body}</body></html>`;
  await context.route(`${base}/${name}.html`, (r) => r.fulfill({ status: 200, contentType: 'text/html', body: html }));
  return open(context, base, `/${name}.html`, { width, height });
}

/** Every element kind: each analysis (bare, with the input list, with the example) and each teaching topic. */
const KINDS = [
  ...['sde', 'ruler', 'epsilon', 'bounds', 'mia'].map((a) => `analysis="${a}"`),
  'analysis="sde" inputs',
  'analysis="sde" example inputs',
  'analysis="mia" example',
  ...['hsic', 'sde', 'ranks', 'epsilon', 'bounds', 'mia'].map((t) => `mode="teach" topic="${t}"`),
];

/**
 * The layout shift of a host page while its element loads and builds: the sum of 'layout-shift' entries (without
 * recent input) until the element's height has not changed for 1.5 s after its 'ready' event.
 */
async function shiftOf(context, base, attrs, i) {
  const text = Array.from({ length: 12 }, (_, k) => `<p>Paragraph ${k + 1} after the element: the host's own text, which must not move while the element loads.</p>`).join('');
  const page = await host(context, base, {
    name: `cls-${i}`,
    head: `<script>window.__shifts = []; new PerformanceObserver((l) => l.getEntries().forEach((e) => e.hadRecentInput || window.__shifts.push(e.value))).observe({ type: 'layout-shift', buffered: true });</script>`,
    body: `<h1>A documentation page</h1><p>Some text before the element.</p><lethe-eval id="el" ${attrs}></lethe-eval>${text}`,
    width: 1000,
    height: 800,
  });
  await page.evaluate(() => customElements.whenDefined('lethe-eval').then(() => new Promise((resolve) => {
    const el = document.getElementById('el');
    const t0 = performance.now();
    let ready = false;
    el.addEventListener('ready', () => (ready = true));
    el.ready?.then(() => (ready = true), () => (ready = true));
    let h = -1;
    let since = performance.now();
    const tick = () => {
      const now = el.getBoundingClientRect().height;
      if (now !== h) (h = now), (since = performance.now());
      if ((ready && performance.now() - since > 1500) || performance.now() - t0 > 45000) resolve();
      else setTimeout(tick, 100);
    };
    tick();
  })));
  const shifts = await page.evaluate(() => window.__shifts);
  await page.close();
  return shifts;
}

/** In the page: every SVG <text> of the plots (the widget's shadow roots too) that reaches past its <svg>. */
function textOverflow() {
  const roots = [document, ...[...document.querySelectorAll('lethe-eval')].map((e) => e.shadowRoot).filter(Boolean)];
  const svgs = roots.flatMap((r) => [...r.querySelectorAll('.lethe-plot-holder svg')]).filter((s) => s.getClientRects().length);
  const out = [];
  let texts = 0;
  const kinds = new Set();
  for (const svg of svgs) {
    const b = svg.getBoundingClientRect();
    kinds.add(svg.getAttribute('aria-label')?.slice(0, 40));
    for (const t of svg.querySelectorAll('text')) {
      if (!t.textContent.trim() || !t.getClientRects().length) continue;
      texts++;
      const r = t.getBoundingClientRect();
      const past = Math.max(b.left - r.left, r.right - b.right, b.top - r.top, r.bottom - b.bottom);
      if (past > 0.5) out.push(`"${t.textContent.slice(0, 40)}" ${past.toFixed(0)} px past "${svg.getAttribute('aria-label')?.slice(0, 50)}"`);
    }
  }
  return { out, texts, svgs: svgs.length };
}

export const tests = [
  {
    name: 'no SVG text past its chart at 320, 375 and 688 px: every chart of the page (example, epsilon, bounds, audit) and of teach.html',
    async fn({ context, base }) {
      const bad = [];
      const seen = [];
      for (const width of [320, 375, 688]) {
        const page = await open(context, base, '/', { width, height: 900 });
        await waitExample(page);
        await page.locator('#lethe-mia [data-value="headline"]').first().waitFor({ timeout: 60000 });
        await page.locator('#lethe-epsilon [data-action="synthetic"]').click();
        await page.locator('#lethe-epsilon [data-slot="unlearned"] .lethe-slot-status').filter({ hasText: '32 × 100' }).waitFor();
        await page.locator('#lethe-epsilon [data-action="run"]').click();
        await waitRun(page.locator('#lethe-epsilon'));
        await page.locator('#lethe-bounds [data-action="synthetic-scores"]').click();
        await page.locator('#lethe-bounds [data-slot="scores"] .lethe-slot-status').filter({ hasText: '200 × 1' }).waitFor();
        await page.locator('#lethe-bounds [data-action="run"]').click();
        await waitRun(page.locator('#lethe-bounds'));
        await page.waitForTimeout(300);
        const a = await page.evaluate(textOverflow);
        bad.push(...a.out.map((o) => `index ${width}: ${o}`));
        const teach = await open(context, base, '/teach.html', { width, height: 900 });
        await teach.waitForSelector('body[data-ready="true"]', { timeout: 120000 });
        await teach.waitForTimeout(300);
        const b = await teach.evaluate(textOverflow);
        bad.push(...b.out.map((o) => `teach ${width}: ${o}`));
        seen.push(`${width} px: ${a.svgs} + ${b.svgs} charts, ${a.texts + b.texts} texts`);
        await page.close();
        await teach.close();
      }
      assert(bad.length === 0, `${bad.length} texts past their chart: ${bad.slice(0, 40).join(" · ")}`);
      return seen.join('; ');
    },
  },
  {
    name: 'layout shift below 0.05 for every element kind (each analysis, with inputs, with the example, each teaching topic)',
    async fn({ context, base }) {
      const rows = [];
      for (const [i, attrs] of KINDS.entries()) {
        const s = await shiftOf(context, base, attrs, i);
        rows.push([attrs, s.reduce((a, b) => a + b, 0), s]);
      }
      const line = rows.map(([a, c]) => `${a}: ${c.toFixed(3)}`).join('; ');
      const bad = rows.filter(([, c]) => !(c < 0.05));
      assert(bad.length === 0, `layout shift ≥ 0.05: ${bad.map(([a, c, s]) => `${a}: ${c.toFixed(3)} (${s.map((v) => v.toFixed(3)).join(' ')})`).join('; ')}\n     all: ${line}`);
      return line;
    },
  },
  {
    name: 'one ArrayBuffer for three roles (the guide\'s code) is one input: one SHA-256, the calibrated verdict computed, no "(2)" in the pickers',
    async fn({ context, base }) {
      const page = await host(context, base, { body: '<lethe-eval id="sde" analysis="sde" shuffles="50" seed="0" inputs></lethe-eval>', width: 1200 });
      const report = await page.evaluate(async () => {
        await customElements.whenDefined('lethe-eval');
        const el = document.getElementById('sde');
        const buf = await (await fetch('./data/digits/act_unlearned.npy')).arrayBuffer();
        el.data = {
          in_training: { data: buf, rows: '144..244', name: 'act_unlearned.npy' },
          out_of_training: { data: buf, rows: '544..644', name: 'act_unlearned.npy' },
          target: { data: buf, rows: '0..100', name: 'act_unlearned.npy' },
        };
        return el.run();
      });
      const hashes = new Set(report.inputs.map((i) => i.sha256).filter(Boolean));
      eq(hashes.size, 1, `one file's SHA-256 among ${report.inputs.length} inputs`);
      assert(report.calibrated && !report.calibrated.skipped, `calibrated verdict skipped: ${JSON.stringify(report.calibrated?.skipped)}`);
      const shadow = page.locator('#sde');
      const labels = await shadow.locator('select option').allTextContents();
      assert(!labels.some((l) => /act_unlearned\.npy \(\d\)/.test(l)), `pickers: ${[...new Set(labels)].join(' | ')}`);
      const cards = await shadow.locator('.lethe-card').count();
      eq(cards, 1, 'input cards');
      // The same bytes in another buffer (a second fetch) are the same file too.
      const again = await page.evaluate(async () => {
        const el = document.getElementById('sde');
        const a = await (await fetch('./data/digits/act_unlearned.npy')).arrayBuffer();
        const b = await (await fetch('./data/digits/act_unlearned.npy')).arrayBuffer();
        el.data = { in_training: { data: a, rows: '144..244' }, out_of_training: { data: b, rows: '544..644' }, target: { data: new Uint8Array(a), rows: '0..100' } };
        const r = await el.run();
        return { sources: new Set(r.inputs.map((i) => i.sha256)).size, skipped: r.calibrated?.skipped || null };
      });
      eq(again.sources, 1, 'copies of the bytes: one SHA-256');
      eq(again.skipped, null, 'copies of the bytes: calibrated verdict skipped');
      return `${report.inputs.length} roles → 1 file (${[...hashes][0].slice(0, 12)}…), calibrated verdict computed, ${cards} card`;
    },
  },
];
