// 7. The element in other people's pages (issue 24 item 7): a host page built here (served at /host-*.html by a
//    route of the test's context) holds <lethe-eval> as a documentation site would.
//    * One buffer for several roles (the guide's "with your data" code): one input, one SHA-256, the calibrated
//      verdict computed, no "(2)" in the pickers.
//    * Layout shift below 0.05 for every element kind (each analysis, with and without the example, each teaching
//      topic), measured by a PerformanceObserver('layout-shift') while the element loads and builds.
//    * Dark mode: in a host with `color-scheme: dark` (and with `light dark` under a dark preference) form fields
//      and text keep 4.5:1 against what is behind them.
//    * Chart text inside its box: no SVG <text> past its <svg> at 320, 375 and 688 px, for every chart kind.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, assert, eq, open, shot, waitExample, waitRun } from './lib.mjs';

/** axe-core from package.json's devDependencies (`npm ci`); LETHE_AXE names another copy of axe.min.js. */
const AXE = [process.env.LETHE_AXE, path.join(ROOT, 'node_modules/axe-core/axe.min.js')].find((p) => p && existsSync(p));
if (!AXE) throw new Error('axe-core is missing: run `npm ci` (package.json lists axe-core 4.14.1)');

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
  ...['hsic', 'sde', 'ranks', 'epsilon', 'bounds', 'mia', 'seeds', 'forget-quality'].map((t) => `mode="teach" topic="${t}"`),
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

/**
 * In the page: text and form fields (the widget's shadow roots too) whose colour is below 4.5:1 against the
 * background behind them (the first opaque background up the tree, across shadow boundaries). Plots are checked
 * against their white in a11y.test.mjs; disabled and stale (greyed) parts are exempt, as WCAG 1.4.3 allows.
 */
function textContrast() {
  const rgba = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const parent = (e) => e.parentElement || (e.getRootNode() instanceof ShadowRoot ? e.getRootNode().host : null);
  const behind = (e) => {
    for (let n = e; n; n = parent(n)) {
      const c = rgba(getComputedStyle(n).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3);
    }
    return getComputedStyle(document.documentElement).colorScheme.includes('dark') && matchMedia('(prefers-color-scheme: dark)').matches ? [18, 18, 18] : [255, 255, 255];
  };
  const roots = [document, ...[...document.querySelectorAll('lethe-eval')].map((e) => e.shadowRoot).filter(Boolean)];
  const els = roots.flatMap((r) => [...r.querySelectorAll('.lethe-root *, .lethe-root')]);
  const bad = [];
  let checked = 0;
  for (const e of els) {
    if (e.closest('svg, .lethe-stale, .lethe-visually-hidden, [disabled]') || !e.getClientRects().length) continue;
    const field = e.matches('input[type=text], input[type=number], select, textarea');
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.data.trim());
    if (!field && !own) continue;
    const st = getComputedStyle(e);
    if (st.visibility !== 'visible' || Number(st.opacity) < 1) continue;
    checked++;
    const r = ratio(rgba(st.color).slice(0, 3), behind(e));
    if (r < 4.5) bad.push(`${e.tagName.toLowerCase()}.${e.getAttribute('class') || ''} "${(field ? e.value || e.selectedOptions?.[0]?.text || '' : e.textContent).trim().slice(0, 30)}" ${st.color} on ${behind(e).join(',')} ${r.toFixed(2)}:1`);
  }
  return { bad: [...new Set(bad)].slice(0, 12), checked };
}

/** axe's colour-contrast rule (shadow roots included) when axe-core is installed. */
async function axeContrast(page) {
  await page.addScriptTag({ content: readFileSync(AXE, 'utf8') });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: ['color-contrast'] });
    return r.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.any.map((a) => a.message).join('; ')}`));
  });
}

const DARK_HOST = 'html { color-scheme: dark; background: #121212; color: #e8e8e8; } a { color: #8ab4f8; }';

export const tests = [
  {
    name: 'dark mode: in a host with color-scheme: dark (and with light dark under a dark preference), text and form fields at 4.5:1 or more, light mode unchanged; own pages follow the preference',
    async fn({ context, base, browser }) {
      const body = '<h1>Dark docs</h1><lethe-eval id="a" analysis="sde" inputs example></lethe-eval><lethe-eval analysis="mia" example></lethe-eval><lethe-eval analysis="bounds"></lethe-eval><lethe-eval mode="teach" topic="ranks"></lethe-eval>';
      const notes = [];
      const bad = [];
      const check = async (page, label) => {
        await page.waitForFunction(() => [...document.querySelectorAll('lethe-eval')].every((e) => e.shadowRoot?.querySelector('.lethe-root')?.dataset.state === 'ready'), null, { timeout: 90000 });
        await page.locator('lethe-eval#a [data-value="sde.verdict"]').first().waitFor({ timeout: 60000 }).catch(() => {});
        await page.waitForTimeout(500);
        const a = await page.evaluate(textContrast);
        const x = await axeContrast(page);
        bad.push(...a.bad.map((b) => `${label}: ${b}`), ...(x || []).slice(0, 8).map((b) => `${label} (axe): ${b}`));
        notes.push(`${label}: ${a.checked} texts/fields${x ? `, axe ${x.length} violations` : ''}`);
        return a;
      };
      // 1. A dark host (color-scheme: dark), any preference.
      const dark = await host(context, base, { name: 'dark', style: DARK_HOST, body, width: 375, height: 812 });
      await check(dark, 'color-scheme: dark');
      const field = await dark.locator('lethe-eval#a select').first().evaluate((s) => [getComputedStyle(s).color, getComputedStyle(s).backgroundColor]);
      assert(field[0] !== field[1], `a field's text and background are both ${field[0]}`);
      await shot(dark, 'dark-host-375.png', { fullPage: true });
      // 2. A host following the preference (light dark), in a dark-preferring browser; and the light scheme.
      for (const scheme of ['dark', 'light']) {
        const ctx = await browser.newContext({ colorScheme: scheme });
        try {
          const page = await host(ctx, base, { name: 'follow', style: 'html { color-scheme: light dark; background: Canvas; color: CanvasText; }', body, width: 375, height: 812 });
          await check(page, `light dark, prefers ${scheme}`);
          const bg = await page.locator('lethe-eval#a .lethe-root').first().evaluate((e) => getComputedStyle(e).backgroundColor);
          if (scheme === 'dark') assert(bg !== 'rgb(255, 255, 255)', 'the widget stays white in a dark host');
          else eq(bg, 'rgb(255, 255, 255)', 'light scheme: the widget background');
          // Lethe's own page follows the preference too.
          const own = await open(ctx, base, '/', { width: 375, height: 812 });
          await waitExample(own);
          await check(own, `index.html, prefers ${scheme}`);
          if (scheme === 'dark') await shot(own, 'dark-index-375.png');
          if (scheme === 'dark') {
            const teach = await open(ctx, base, '/teach.html', { width: 375, height: 812 });
            await teach.waitForSelector('body[data-ready="true"]', { timeout: 120000 });
            const a = await teach.evaluate(textContrast);
            const x = await axeContrast(teach);
            bad.push(...a.bad.map((b) => `teach.html dark: ${b}`), ...(x || []).slice(0, 8).map((b) => `teach.html dark (axe): ${b}`));
            notes.push(`teach.html, prefers dark: ${a.checked} texts/fields${x ? `, axe ${x.length} violations` : ''}`);
          }
        } finally {
          await ctx.close();
        }
      }
      assert(bad.length === 0, `${bad.length} below 4.5:1: ${bad.slice(0, 16).join(' · ')}`);
      return notes.join('; ');
    },
  },
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
      // CSV text set early (before the worker is ready) is added once per role, not twice.
      const fresh = await host(context, base, { name: 'csv', body: '<lethe-eval id="b" analysis="bounds" inputs></lethe-eval>' });
      const text = await fresh.evaluate(async () => {
        await customElements.whenDefined('lethe-eval');
        await new Promise((r) => setTimeout(r, 0));
        const el = document.getElementById('b');
        el.data = { scores: '0.1\n0.2\n0.3\n0.4\n0.5\n0.6\n0.7\n0.8\n' };
        await el.run();
        return [...el.shadowRoot.querySelectorAll('.lethe-card-name')].map((c) => c.textContent);
      });
      eq(text.join(' | '), 'scores.csv', 'cards after CSV text set once');
      eq(again.sources, 1, 'copies of the bytes: one SHA-256');
      eq(again.skipped, null, 'copies of the bytes: calibrated verdict skipped');
      return `${report.inputs.length} roles → 1 file (${[...hashes][0].slice(0, 12)}…), calibrated verdict computed, ${cards} card`;
    },
  },
];
