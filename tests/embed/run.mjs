// Embedding in real documentation sites (issue 17): builds a MkDocs-Material site (instant navigation on), a
// Docusaurus 3 site (React 19, MDX, client-side navigation, the element's module through the site's bundler) and a
// Sphinx site (reStructuredText and MyST Markdown; issue 25) from the registries with <lethe-eval> embedded as docs/embedding.md says, serves them under sub-paths beside a plain
// page, a strict-CSP page and an iframe host, and drives them in headless Chromium (playwright-core, /usr/bin/chromium).
//
//   node tests/embed/run.mjs [name-filter]      (after ./build.sh site; ./build.sh test runs it)
//
// Installs are cached under target/embed/ (pip venvs, node_modules) and redone only when their pins change.
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, ROOT, SHOTS, SITE, assert, eq } from '../browser/lib.mjs';

const filter = process.argv[2] || '';
const HERE = path.join(ROOT, 'tests/embed');
const WORK = path.join(ROOT, 'target/embed');
if (!existsSync(path.join(SITE, 'src/lethe-eval.js'))) {
  console.error('target/site is missing: run ./build.sh site first');
  process.exit(2);
}
mkdirSync(WORK, { recursive: true });
const t0 = Date.now();
const secs = (t) => ((Date.now() - t) / 1000).toFixed(1);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
const copySite = (to) => {
  rmSync(to, { recursive: true, force: true });
  cpSync(SITE, to, { recursive: true });
  // The site's docs/ copy is for the teaching page's links; a docs generator would render it as pages.
  rmSync(path.join(to, 'docs'), { recursive: true, force: true });
};

const port = await new Promise((resolve) => {
  const s = net.createServer();
  s.listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const ORIGIN = `http://127.0.0.1:${port}`;
const timings = {};

// --- MkDocs Material ---------------------------------------------------------------------------------------------
function buildMkdocs() {
  const t = Date.now();
  const venv = path.join(WORK, 'mkdocs-venv');
  const req = readFileSync(path.join(HERE, 'mkdocs/requirements.txt'), 'utf8');
  const stamp = path.join(venv, 'lethe-requirements.txt');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== req) {
    rmSync(venv, { recursive: true, force: true });
    run('python3', ['-m', 'venv', venv]);
    run(path.join(venv, 'bin/pip'), ['install', '-q', '-r', path.join(HERE, 'mkdocs/requirements.txt')]);
    writeFileSync(stamp, req);
  }
  timings.mkdocsInstall = secs(t);
  const t1 = Date.now();
  const src = path.join(WORK, 'mkdocs-site');
  rmSync(src, { recursive: true, force: true });
  cpSync(path.join(HERE, 'mkdocs'), src, { recursive: true });
  copySite(path.join(src, 'docs/lethe'));
  run(path.join(venv, 'bin/mkdocs'), ['build', '-q', '-d', path.join(WORK, 'mkdocs-out')], {
    cwd: src,
    env: { ...process.env, LETHE_SITE_URL: `${ORIGIN}/sub/mk/`, NO_MKDOCS_2_WARNING: '1' },
  });
  timings.mkdocsBuild = secs(t1);
}

// --- Sphinx (reStructuredText and MyST Markdown) ------------------------------------------------------------------
function buildSphinx() {
  const t = Date.now();
  const venv = path.join(WORK, 'sphinx-venv');
  const req = readFileSync(path.join(HERE, 'sphinx/requirements.txt'), 'utf8');
  const stamp = path.join(venv, 'lethe-requirements.txt');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== req) {
    rmSync(venv, { recursive: true, force: true });
    run('python3', ['-m', 'venv', venv]);
    run(path.join(venv, 'bin/pip'), ['install', '-q', '-r', path.join(HERE, 'sphinx/requirements.txt')]);
    writeFileSync(stamp, req);
  }
  timings.sphinxInstall = secs(t);
  const t1 = Date.now();
  const src = path.join(WORK, 'sphinx-site');
  rmSync(src, { recursive: true, force: true });
  cpSync(path.join(HERE, 'sphinx'), src, { recursive: true });
  // The whole site, its docs/ and the example's README.md included: Sphinx reads no sources in html_static_path.
  rmSync(path.join(src, '_static/lethe'), { recursive: true, force: true });
  cpSync(SITE, path.join(src, '_static/lethe'), { recursive: true });
  const out = path.join(WORK, 'sphinx-out');
  rmSync(out, { recursive: true, force: true });
  const log = run(path.join(venv, 'bin/sphinx-build'), ['-q', '-b', 'html', src, out], { stdio: ['ignore', 'pipe', 'pipe'] });
  assert(!/warning/i.test(log), `sphinx-build warned:\n${log.slice(-2000)}`);
  timings.sphinxBuild = secs(t1);
}

// --- Docusaurus 3 -------------------------------------------------------------------------------------------------
function buildDocusaurus() {
  const t = Date.now();
  const dir = path.join(WORK, 'docusaurus');
  mkdirSync(dir, { recursive: true });
  const lock = readFileSync(path.join(HERE, 'docusaurus/package-lock.json'), 'utf8');
  const stamp = path.join(dir, 'node_modules/.lethe-lock.json');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lock) {
    for (const f of ['package.json', 'package-lock.json']) cpSync(path.join(HERE, 'docusaurus', f), path.join(dir, f));
    run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
    writeFileSync(stamp, lock);
  }
  // package.json also carries the browserslist a new Docusaurus site has (create-docusaurus's).
  cpSync(path.join(HERE, 'docusaurus/package.json'), path.join(dir, 'package.json'));
  timings.docusaurusInstall = secs(t);
  const t1 = Date.now();
  for (const f of ['docusaurus.config.js', 'src', 'docs']) {
    rmSync(path.join(dir, f), { recursive: true, force: true });
    cpSync(path.join(HERE, 'docusaurus', f), path.join(dir, f), { recursive: true });
  }
  // The element from the npm package (target/dist/lethe-eval-*.tgz, ./build.sh dist): src/lethe.js imports it in a
  // client module, and Docusaurus's webpack copies the worker, wasm and data it names into the build; no base URL.
  // Lethe's site in static/lethe/ is for the React page only, whose `base` prop (a base attribute wins over the
  // package's own files) points at it.
  const dist = path.join(ROOT, 'target/dist');
  const tgz = existsSync(dist) && readdirSync(dist).filter((f) => /^lethe-eval-.*\.tgz$/.test(f)).sort().at(-1);
  assert(tgz, 'target/dist/lethe-eval-*.tgz is missing: run ./build.sh dist (or node tools/npm_package.mjs) first');
  copySite(path.join(dir, 'static/lethe'));
  run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', path.join(dist, tgz)], { cwd: dir });
  rmSync(path.join(dir, 'build'), { recursive: true, force: true });
  const out = run('npx', ['docusaurus', 'build', '--out-dir', 'build'], { cwd: dir, env: { ...process.env, LETHE_BASE_URL: '/sub/dz/' } });
  assert(!/\bwarning\b/i.test(out.replace(/\[webpackbar\][^\n]*/g, '')), `the Docusaurus build warned:\n${out.slice(-2000)}`);
  timings.docusaurusBuild = secs(t1);
}

// --- the server: the two sites, Lethe under a sub-path, the plain, CSP and iframe pages --------------------------
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.xml': 'application/xml', '.txt': 'text/plain', '.npy': 'application/octet-stream',
  '.png': 'image/png', '.woff2': 'font/woff2', '.ico': 'image/x-icon',
};
const MOUNTS = [
  ['/sub/mk/', () => path.join(WORK, 'mkdocs-out')],
  ['/sub/dz/', () => path.join(WORK, 'docusaurus/build')],
  ['/sub/sx/', () => path.join(WORK, 'sphinx-out')],
  ['/sub/lethe/', () => SITE],
  ['/sub/lethe-copy/', () => SITE],
  ['/pages/', () => path.join(HERE, 'pages')],
];
// The strict policy of the CSP page: no inline script, Lethe on the page's own origin.
const STRICT_CSP = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; connect-src 'self'; style-src 'self'; img-src data:";

/** Paths answered 404 (printed with a failure). */
const notFound = [];
const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, ORIGIN);
  if (url.pathname === '/favicon.ico') {
    res.writeHead(204);
    return res.end();
  }
  const mount = MOUNTS.find(([p]) => url.pathname.startsWith(p));
  if (!mount) {
    notFound.push(url.pathname);
    res.writeHead(404);
    return res.end();
  }
  let file = path.join(mount[1](), path.normalize(decodeURIComponent(url.pathname.slice(mount[0].length))).replace(/^([/\\]|\.\.)+/, ''));
  if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
  else if (!path.extname(file) && existsSync(path.join(file, 'index.html'))) file = path.join(file, 'index.html');
  try {
    const body = await readFile(file);
    const headers = { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' };
    if (url.pathname === '/pages/csp.html') headers['content-security-policy'] = STRICT_CSP;
    res.writeHead(200, headers);
    res.end(body);
  } catch {
    notFound.push(url.pathname);
    res.writeHead(404);
    res.end();
  }
});

// --- helpers -------------------------------------------------------------------------------------------------------
const opened = [];
async function open(context, p, { width = 1280, height = 900 } = {}) {
  const page = await context.newPage({ viewport: { width, height } });
  opened.push(page);
  // Layout shifts (CLS, as Lighthouse counts them: not after input) on this page's first load.
  await page.addInitScript(() => {
    window.__letheCls = 0;
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) if (!e.hadRecentInput) window.__letheCls += e.value;
    }).observe({ type: 'layout-shift', buffered: true });
  });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(process.env.LETHE_STACKS ? e.stack : e.message));
  if (process.env.LETHE_EMBED_DEBUG) {
    page.on('console', (m) => console.log(`     [console ${m.type()}] ${m.text()}`));
    page.on('request', (r) => console.log(`     [request] ${r.url()}`));
  }
  page.on('console', (m) => m.type() === 'error' && page.errors.push(`console: ${m.text()}`));
  await page.goto(ORIGIN + p);
  return page;
}

/**
 * Lethe's dedicated workers in the page (the element's worker and its SDE pool's; not e.g. Material's search worker;
 * in Docusaurus, the package's worker as webpack emitted it).
 */
const workers = (page) => page.workers().filter((w) => /\/src\/worker\.js$|^blob:|\/sub\/dz\/assets\/js\/[\w.-]+\.js$/.test(w.url())).length;

async function noWorkersLeft(page, what) {
  for (let i = 0; i < 100 && workers(page) > 0; i++) await page.waitForTimeout(100);
  eq(workers(page), 0, `workers left after ${what}`);
}

/** Every <lethe-eval> no wider than its container, and nothing inside it reaching past it (SVG insides aside). */
async function widthCheck(page) {
  return page.evaluate(() => {
    const bad = [];
    for (const el of document.querySelectorAll('lethe-eval')) {
      const box = el.getBoundingClientRect();
      const parent = el.parentElement.getBoundingClientRect();
      if (box.width > parent.width + 1) bad.push(`lethe-eval ${Math.round(box.width)} > container ${Math.round(parent.width)}`);
      for (const e of el.shadowRoot.querySelectorAll('*')) {
        if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
        if (!e.getClientRects().length) continue;
        // Inside a scrolling box (wide tables scroll), the box itself counts.
        if (e.parentElement?.closest('.lethe-table-scroll, .lethe-teach-table-scroll, .lethe-per-example')) continue;
        const r = e.getBoundingClientRect();
        if (r.right > box.right + 1 || r.left < box.left - 1) bad.push(`${e.tagName}.${e.getAttribute('class')} ${Math.round(r.left)}..${Math.round(r.right)} outside ${Math.round(box.left)}..${Math.round(box.right)}`);
      }
    }
    return { bad: bad.slice(0, 6), widths: [...document.querySelectorAll('lethe-eval')].map((e) => Math.round(e.getBoundingClientRect().width)) };
  });
}

/**
 * The width check at the site's own column (1280 px window), in a 688 px column (Material's at 1280 px; forced on
 * `column` for the other site), and at a 320 px window; returns the widths seen.
 */
async function widths(page, column) {
  const seen = [];
  const check = async (what) => {
    const w = await widthCheck(page);
    assert(w.bad.length === 0, `${what}: wider than the container: ${w.bad.join('; ')}`);
    seen.push(`${what}: ${w.widths.join('/')} px`);
  };
  await check('1280 px window');
  if (column) {
    const style = await page.addStyleTag({ content: `${column} { max-width: 688px !important; }` });
    await page.waitForTimeout(200);
    await check('688 px column');
    await style.evaluate((s) => s.remove());
  }
  await page.setViewportSize({ width: 320, height: 800 });
  await page.waitForTimeout(300);
  await check('320 px window');
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.waitForTimeout(200);
  return seen.join(', ');
}

/** A screenshot from the top of the page (a fixed header would otherwise be drawn where the page was scrolled). */
async function shot(page, name, opts = {}) {
  await page.evaluate(() => {
    document.activeElement?.blur?.();
    window.scrollTo(0, 0);
  });
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(SHOTS, name), ...opts });
}

/** Waits for the SDE verdict of the element on the analysis page (the built-in example run to the end). */
const sdeDone = (page, timeout = 60000) => page.locator('lethe-eval [data-value="sde.verdict"]').first().waitFor({ timeout });

/** Moves the first teaching slider with the keyboard and waits for its readout to change. */
async function moveControl(page) {
  const slider = page.locator('lethe-eval[topic="hsic"] input[type="range"]').first();
  await slider.waitFor();
  const out = page.locator('lethe-eval[topic="hsic"] .lethe-teach-output').first();
  const before = await out.textContent();
  await slider.focus();
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  await page.waitForFunction(([b]) => document.querySelector('lethe-eval[topic="hsic"]').shadowRoot.querySelector('.lethe-teach-output').textContent !== b, [before]);
  // The figure follows: the topic's root is back at "ready" with a redrawn plot.
  await page.locator('lethe-eval[topic="hsic"] .lethe-teach-root[data-state="ready"]').waitFor();
  return `${before} → ${await out.textContent()}`;
}

/** The page's JS heap after a full garbage collection, in MB (workers' memory is gone with them: noWorkersLeft). */
async function heapMB(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  await cdp.detach();
  return metrics.find((m) => m.name === 'JSHeapUsedSize').value / 2 ** 20;
}

/**
 * Client-side navigation away from the analysis page and back, `n` times: a run completes each time, no Lethe worker
 * is left after leaving, and the page's heap after leaving does not grow from visit to visit. Returns the heaps.
 */
async function awayAndBack(page, { away, back, n = 5 }) {
  const heaps = [];
  for (let i = 0; i < n; i++) {
    await away();
    await page.waitForFunction(() => !document.querySelector('lethe-eval'));
    await noWorkersLeft(page, `leaving the analysis page (visit ${i + 1})`);
    heaps.push(await heapMB(page));
    await back();
    await sdeDone(page);
  }
  // Growth from the second departure to the last (the first one still holds what the first load cached).
  assert(heaps.at(-1) - heaps[1] < 2, `the page's heap grows with each visit: ${heaps.map((h) => h.toFixed(1)).join(' → ')} MB`);
  return `heap after leaving ${heaps.map((h) => h.toFixed(1)).join(' → ')} MB`;
}

// --- tests ---------------------------------------------------------------------------------------------------------
const tests = [
  {
    name: 'MkDocs Material (instant navigation, sub-path): first load, navigation away and back five times, teaching control moved, 688 px column',
    async fn({ context }) {
      const page = await open(context, '/sub/mk/analysis/');
      const tl = Date.now();
      await sdeDone(page);
      const firstRun = secs(tl);
      const cls = await page.evaluate(() => window.__letheCls);
      assert(cls < 0.05, `layout shift while the element loads and runs: CLS ${cls}`);
      const w = await widths(page, null);
      await shot(page, 'embed-mkdocs-analysis.png', { fullPage: true });
      // Instant navigation: Material swaps the content without a page load (the marker survives). It intercepts
      // links once it has the site's sitemap.xml.
      await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/sitemap.xml') && e.responseEnd > 0));
      await page.waitForTimeout(200);
      await page.evaluate(() => (window.__letheSamePage = true));
      const heaps = await awayAndBack(page, {
        away: () => page.locator('.md-nav__link', { hasText: 'Home' }).first().click(),
        back: () => page.locator('.md-nav__link', { hasText: 'Analysis' }).first().click(),
      });
      assert(await page.evaluate(() => window.__letheSamePage === true), 'instant navigation kept the page (no reload)');
      await page.locator('.md-nav__link', { hasText: 'Teaching' }).first().click();
      await page.locator('lethe-eval[topic="epsilon"] .lethe-teach-root[data-state="ready"]').waitFor({ timeout: 60000 });
      await page.locator('lethe-eval[topic="hsic"] .lethe-teach-root[data-state="ready"]').waitFor({ timeout: 60000 });
      const moved = await moveControl(page);
      await shot(page, 'embed-mkdocs-teaching.png', { fullPage: true });
      const wt = await widths(page, null);
      await page.locator('.md-nav__link', { hasText: 'Home' }).first().click();
      await noWorkersLeft(page, 'leaving the teaching page');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `first run ${firstRun} s, CLS ${cls.toFixed(3)}; ${heaps}; analysis ${w}; teaching ${wt}; slider ${moved}`;
    },
  },
  {
    name: 'Docusaurus 3 (React 19, MDX, bundled module, sub-path): first load, client navigation away and back five times, teaching control moved, 688 px column',
    async fn({ context }) {
      const page = await open(context, '/sub/dz/analysis');
      const tl = Date.now();
      await sdeDone(page);
      const firstRun = secs(tl);
      const cls = await page.evaluate(() => window.__letheCls);
      assert(cls < 0.05, `layout shift while the element loads and runs: CLS ${cls}`);
      const w = await widths(page, 'article');
      await shot(page, 'embed-docusaurus-analysis.png', { fullPage: true });
      await page.evaluate(() => (window.__letheSamePage = true));
      const heaps = await awayAndBack(page, {
        away: () => page.locator('article a', { hasText: 'Home' }).first().click(),
        back: () => page.locator('article a', { hasText: 'The SDE analysis' }).first().click(),
      });
      assert(await page.evaluate(() => window.__letheSamePage === true), 'client-side navigation kept the page (no reload)');
      await page.locator('article a', { hasText: 'Home' }).first().click();
      await page.locator('article a', { hasText: 'The teaching topics' }).first().click();
      await page.locator('lethe-eval[topic="epsilon"] .lethe-teach-root[data-state="ready"]').waitFor({ timeout: 60000 });
      await page.locator('lethe-eval[topic="hsic"] .lethe-teach-root[data-state="ready"]').waitFor({ timeout: 60000 });
      const moved = await moveControl(page);
      await shot(page, 'embed-docusaurus-teaching.png', { fullPage: true });
      const wt = await widths(page, 'article');
      await page.locator('article a', { hasText: 'Home' }).first().click();
      await noWorkersLeft(page, 'leaving the teaching page');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `first run ${firstRun} s, CLS ${cls.toFixed(3)}; ${heaps}; analysis ${w}; teaching ${wt}; slider ${moved}`;
    },
  },
  {
    name: 'a React 19 page sets every attribute as a property, changes them, removes and re-inserts the element',
    async fn({ context }) {
      const page = await open(context, '/sub/dz/react');
      await page.waitForFunction(() => window.letheReact?.el()?.shadowRoot?.querySelector('.lethe-root[data-state="ready"]'), null, { timeout: 30000 });
      const attrs = await page.evaluate(() => Object.fromEntries([...window.letheReact.el().attributes].map((a) => [a.name, a.value])));
      for (const [k, v] of Object.entries({ alpha: '0.05', analysis: 'bounds', layout: 'narrow', 'it-pool': '0..10', 'one-sided': '', baselines: 'false' })) eq(attrs[k], v, `attribute ${k} set through its property`);
      assert(!('inputs' in attrs) && !('autorun' in attrs), `false flags are absent: ${Object.keys(attrs)}`);
      const runBounds = () =>
        page.evaluate(async () => {
          const el = window.letheReact.el();
          el.data = { scores: { values: new Float64Array([0, 0.1, 0.5, 0, 0.9, 0.2, 0, 0.3]), shape: [8, 1] } };
          return (await el.run()).result.params.alpha;
        });
      eq(await runBounds(), 0.05, 'alpha from the property');
      await page.evaluate(() => window.letheReact.set({ alpha: '0.1' }));
      await page.waitForFunction(() => window.letheReact.el().getAttribute('alpha') === '0.1');
      eq(await runBounds(), 0.1, 'alpha after React changed it');
      for (let i = 0; i < 5; i++) {
        await page.evaluate(() => window.letheReact.show(false));
        await noWorkersLeft(page, `React removed the element (${i + 1})`);
        await page.evaluate(() => window.letheReact.show(true));
        await page.waitForFunction(() => window.letheReact.el()?.shadowRoot?.querySelector('.lethe-root[data-state="ready"]'), null, { timeout: 30000 });
      }
      eq(await runBounds(), 0.1, 'a run after five removals');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${Object.keys(attrs).length} attributes set as properties; five unmounts left no worker`;
    },
  },
  {
    name: 'a plain page: .data set before the element is defined, moved in the DOM, removed and inserted again; a wrong base is shown as an error',
    async fn({ context }) {
      const page = await open(context, '/pages/plain.html');
      await page.waitForFunction(() => document.getElementById('out').textContent.startsWith('n='), null, { timeout: 30000 });
      eq(await page.locator('#out').textContent(), 'n=8 alpha=0.05', 'the run with data set before definition');
      // Moved (a framework's reorder): the same worker keeps going, no restart.
      const moved = await page.evaluate(async () => {
        const el = document.getElementById('early');
        document.getElementById('elsewhere').append(el);
        await new Promise((r) => setTimeout(r, 50));
        return (await el.run()).result.n;
      });
      eq(moved, 8, 'a run after a move');
      // Inserted, removed and inserted again around the element's deferred start; `ready` right after insertion.
      const churn = await page.evaluate(async () => {
        const el = document.createElement('lethe-eval');
        el.setAttribute('analysis', 'bounds');
        document.body.append(el);
        el.remove();
        await null;
        document.body.append(el);
        const info = await el.ready;
        el.data = { scores: { values: new Float64Array([0, 0.2, 0.4, 0.9]), shape: [4, 1] } };
        const n = (await el.run()).result.n;
        el.remove();
        return { version: info.version, n };
      });
      eq(churn.n, 4, 'a run after insert/remove/insert');
      assert(churn.version, 'ready resolved with the version');
      for (let i = 0; i < 5; i++) {
        await page.evaluate(() => window.detach());
        await noWorkersLeft(page, `removing the element (${i + 1})`);
        eq(await page.evaluate(() => window.attachAndRun()), 8, `a run after re-inserting (${i + 1})`);
      }
      const bad = page.locator('#bad .lethe-root[data-state="failed"] [role="alert"], #bad [role="alert"]').first();
      await bad.waitFor({ timeout: 15000 });
      const msg = await bad.textContent();
      assert(/worker|load|start/i.test(msg), `the wrong base is shown as an error: ${msg}`);
      // Only the page's own errors count (the wrong base's 404s are expected).
      const errs = page.errors.filter((e) => !/404|Failed to load|worker/i.test(e));
      assert(errs.length === 0, errs.join('; '));
      return `moved and 5 × removed/inserted; wrong base says: ${msg.slice(0, 90)}`;
    },
  },
  {
    name: 'a strict CSP with no inline script (Lethe on the page origin, under a sub-path)',
    async fn({ context }) {
      const page = await open(context, '/pages/csp.html');
      await page.waitForFunction(() => document.getElementById('out').textContent.startsWith('n='), null, { timeout: 30000 });
      eq(await page.locator('#out').textContent(), 'n=8 alpha=0.05', 'ran under the strict CSP');
      const fromBase = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => /widget\.css$|worker\.js$/.test(p)));
      assert(fromBase.length && fromBase.every((p) => p.startsWith('/sub/lethe-copy/')), `files from data-lethe-base: ${fromBase}`);
      const csp = page.errors.filter((e) => /Content Security Policy|Refused/i.test(e));
      assert(csp.length === 0, `CSP violations: ${csp.join('; ')}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return STRICT_CSP;
    },
  },
  {
    name: 'the iframe reports its content height and the documented host snippet resizes it',
    async fn({ context }) {
      const page = await open(context, '/pages/frame.html', { width: 900 });
      const frame = page.locator('#lethe');
      await page.waitForFunction(() => document.getElementById('lethe').offsetHeight > 300, null, { timeout: 30000 });
      const fit = async () =>
        page.evaluate(() => {
          const f = document.getElementById('lethe');
          const app = f.contentDocument.getElementById('app');
          return { frame: f.getBoundingClientRect().height, content: Math.ceil(app.getBoundingClientRect().height), scroll: f.contentDocument.documentElement.scrollHeight };
        });
      await page.waitForFunction(() => {
        const f = document.getElementById('lethe');
        return Math.abs(f.getBoundingClientRect().height - Math.ceil(f.contentDocument.getElementById('app').getBoundingClientRect().height)) <= 2;
      });
      const a = await fit();
      // The content grows (results shown after a run): the frame follows.
      await page.evaluate(() => window.runIt());
      await page.waitForFunction((h) => document.getElementById('lethe').getBoundingClientRect().height > h + 50, a.frame, { timeout: 30000 });
      await page.waitForTimeout(300);
      const b = await fit();
      assert(Math.abs(b.frame - b.content) <= 2, `frame ${b.frame} px for content ${b.content} px`);
      assert(b.scroll <= b.frame + 2, `no scrollbar inside the frame: ${b.scroll} > ${b.frame}`);
      await frame.screenshot({ path: path.join(SHOTS, 'embed-iframe.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `frame ${Math.round(a.frame)} px before the run, ${Math.round(b.frame)} px after (content ${b.content} px)`;
    },
  },
];

tests.push({
  name: 'Sphinx (reStructuredText raw html and MyST Markdown, Lethe in _static/, sub-path): the example to its verdict, a teaching topic',
  async fn({ context }) {
    const page = await open(context, '/sub/sx/analysis.html');
    await sdeDone(page);
    const from = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname).filter((p) => /widget\.css$|worker\.js$/.test(p)));
    assert(from.length === 2 && from.every((p) => p.startsWith('/sub/sx/_static/lethe/')), `files from the module's own URL: ${from}`);
    await page.goto(`${ORIGIN}/sub/sx/teaching.html`);
    await page.locator('lethe-eval[topic="epsilon"] .lethe-teach-root[data-state="ready"]').waitFor({ timeout: 60000 });
    // Lethe's own Markdown in _static/lethe/ made no pages (Sphinx reads no sources there).
    const pages = ['_static/lethe/docs/sde-calibration.html', '_static/lethe/data/digits/README.html'].filter((p) => existsSync(path.join(WORK, 'sphinx-out', p)));
    assert(pages.length === 0, `Sphinx made pages of Lethe's own Markdown: ${pages}`);
    await shot(page, 'embed-sphinx-teaching.png', { fullPage: true });
    assert(page.errors.length === 0, page.errors.join('; '));
    return `files from ${path.posix.dirname(from.find((p) => p.endsWith('widget.css')))}/; teaching topic ready`;
  },
});

/** nginx with tests/embed/nginx.conf (the deployment note's configuration) serving target/site under /lethe/. */
async function nginx() {
  const bin = ['/usr/sbin/nginx', '/usr/bin/nginx'].find(existsSync);
  assert(bin, 'nginx is not installed (./build.sh test installs nginx-light)');
  const tmp = path.join(WORK, 'nginx');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const p = await new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const q = s.address().port;
      s.close(() => resolve(q));
    });
  });
  const conf = readFileSync(path.join(HERE, 'nginx.conf'), 'utf8').replaceAll('@SITE@', SITE).replaceAll('@PORT@', String(p)).replaceAll('@TMP@', tmp);
  writeFileSync(path.join(tmp, 'nginx.conf'), conf);
  const proc = spawn(bin, ['-c', path.join(tmp, 'nginx.conf'), '-p', tmp], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const origin = `http://127.0.0.1:${p}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${origin}/lethe/index.html`)).ok) return { origin, stop: () => proc.kill('SIGTERM') };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill('SIGTERM');
  throw new Error(`nginx did not start: ${stderr}`);
}

tests.push({
  name: 'the deployment note: nginx with tests/embed/nginx.conf sends application/wasm, gzip, no-cache + ETag (304 on revalidation), and the element works from it',
  async fn({ context }) {
    const ng = await nginx();
    try {
      const seen = [];
      for (const [file, type] of [['pkg/lethe_web_bg.wasm', 'application/wasm'], ['pkg/lethe_lean_bg.wasm', 'application/wasm'], ['src/worker.js', 'javascript'], ['widget.css', 'text/css'], ['data/digits/act_unlearned.npy', 'application/octet-stream']]) {
        const r = await fetch(`${ng.origin}/lethe/${file}`, { headers: { 'accept-encoding': 'gzip' } });
        eq(r.status, 200, `${file} status`);
        assert((r.headers.get('content-type') || '').includes(type), `${file}: content-type ${r.headers.get('content-type')}`);
        eq(r.headers.get('content-encoding'), 'gzip', `${file} compressed`);
        eq(r.headers.get('cache-control'), 'no-cache', `${file} cache-control`);
        const etag = r.headers.get('etag');
        assert(etag, `${file} has an ETag`);
        await r.arrayBuffer();
        // Bytes on the wire (fetch decompresses): a raw request.
        const wire = await new Promise((resolve, reject) =>
          http.get(`${ng.origin}/lethe/${file}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
            let n = 0;
            res.on('data', (d) => (n += d.length));
            res.on('end', () => resolve(n));
          }).on('error', reject),
        );
        const again = await fetch(`${ng.origin}/lethe/${file}`, { headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } });
        eq(again.status, 304, `${file} revalidated`);
        const plain = readFileSync(path.join(SITE, file));
        assert(wire < plain.length * 0.8, `${file}: ${wire} bytes sent for ${plain.length}`);
        seen.push(`${file.split('/').pop()} ${Math.round(plain.length / 1024)} → ${Math.round(wire / 1024)} KB`);
      }
      // The element from nginx: the built-in example page of the site.
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${ng.origin}/lethe/embed.html`);
      await page.waitForFunction(() => document.getElementById('sde-out').textContent.includes('jsd_target_it'), null, { timeout: 30000 });
      assert(errors.length === 0, errors.join('; '));
      return seen.join(', ');
    } finally {
      ng.stop();
    }
  },
});

// --- main ------------------------------------------------------------------------------------------------------------
let passed = 0;
let failed = 0;
await new Promise((r) => server.listen(port, '127.0.0.1', r));
let browser = null;
try {
  const tb = Date.now();
  // Always (1-2 s): its site_url holds this run's port, which Material's instant navigation compares links with.
  buildMkdocs();
  if (!filter || /docusaurus|react/i.test(filter)) buildDocusaurus();
  if (!filter || /sphinx/i.test(filter)) buildSphinx();
  console.log(`sites built in ${secs(tb)} s (${Object.entries(timings).map(([k, v]) => `${k} ${v} s`).join(', ')})`);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  for (const t of tests) {
    if (filter && !t.name.toLowerCase().includes(filter.toLowerCase())) continue;
    const context = await browser.newContext();
    const ts = Date.now();
    try {
      const note = await t.fn({ context });
      passed++;
      console.log(`ok   embed-sites: ${t.name} (${secs(ts)} s)${note ? ` — ${note}` : ''}`);
    } catch (e) {
      failed++;
      console.log(`FAIL embed-sites: ${t.name} (${secs(ts)} s)\n     ${String(e.stack || e).split('\n').slice(0, 6).join('\n     ')}`);
      console.log(`     404s: ${notFound.splice(0).join(', ')}`);
      for (const page of opened.splice(0)) {
        const state = await page
          .evaluate(() => [...document.querySelectorAll('lethe-eval')].map((el) => `${el.outerHTML.slice(0, 120)} → ${el.shadowRoot?.querySelector('.lethe-root')?.dataset.state} ${el.shadowRoot?.textContent.slice(0, 1500)}}`).join('\n'))
          .catch((err) => String(err));
        console.log(`     page ${page.url()}: errors ${JSON.stringify(page.errors)}\n     ${state}`);
      }
    } finally {
      await context.close();
    }
  }
} finally {
  await browser?.close();
  server.close();
}
console.log(`${passed} passed, ${failed} failed (embed-sites, ${secs(t0)} s in all)`);
process.exit(failed ? 1 : 0);
