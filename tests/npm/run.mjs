// The npm package as a user installs it (issue 25): target/dist/lethe-eval-VERSION.tgz (tools/npm_package.mjs,
// ./build.sh dist) installed into four fresh apps — Vite + React 19, webpack 5, esbuild, VitePress (Vue 3, server
// rendered) — each built with its own tool as tests/npm/APP/ configures it, served under a sub-path, and driven in
// headless Chromium (playwright-core, /usr/bin/chromium): the built-in example runs to its headline, the element's
// worker stops when it leaves the page (React unmounts it, VitePress navigates away), no request leaves the page's
// origin, no error is logged (for VitePress: no hydration mismatch). The Vite app also type-checks a TypeScript file
// against the package's types (tsc --noEmit).
//
//   node tests/npm/run.mjs [app-filter]      (after ./build.sh dist, or node tools/npm_package.mjs)
//
// The apps' own dependencies (their package-lock.json, from the npm registry) are installed once under
// target/npm-apps/APP/ and again only when the lock changes; the tarball is installed into each on every run.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, ROOT, SHOTS, SITE, assert, eq } from '../browser/lib.mjs';

const filter = process.argv[2] || '';
const HERE = path.join(ROOT, 'tests/npm');
const WORK = path.join(ROOT, 'target/npm-apps');
const DIST = path.join(ROOT, 'target/dist');
const tgz = existsSync(DIST) && readdirSync(DIST).filter((f) => /^lethe-eval-.*\.tgz$/.test(f)).sort().at(-1);
if (!tgz) {
  console.error('target/dist/lethe-eval-*.tgz is missing: run ./build.sh dist (or node tools/npm_package.mjs) first');
  process.exit(2);
}
const TARBALL = path.join(DIST, tgz);
mkdirSync(WORK, { recursive: true });
mkdirSync(SHOTS, { recursive: true });
const t0 = Date.now();
const secs = (t) => ((Date.now() - t) / 1000).toFixed(1);
const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20, ...opts });

/** The apps: where each one's build lands, and the page to open under its mount. */
const APPS = {
  'vite-react': { out: 'dist', mount: '/sub/vite/', page: '' },
  webpack: { out: 'dist', mount: '/sub/webpack/', page: '', html: true },
  esbuild: { out: 'dist', mount: '/sub/esbuild/', page: '', html: true },
  vitepress: { out: 'docs/.vitepress/dist', mount: '/sub/vp/', page: 'analysis.html' },
};

/** Installs the app's locked dependencies (cached), then the tarball, copies its sources and builds it. */
function build(name) {
  const src = path.join(HERE, name);
  const dir = path.join(WORK, name);
  const t = Date.now();
  mkdirSync(dir, { recursive: true });
  const lock = readFileSync(path.join(src, 'package-lock.json'), 'utf8');
  const stamp = path.join(dir, 'node_modules/.lethe-lock.json');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lock) {
    for (const f of ['package.json', 'package-lock.json']) cpSync(path.join(src, f), path.join(dir, f));
    run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir });
    writeFileSync(stamp, lock);
  }
  // The app as it is in tests/npm/ (package.json without the tarball: a lock cannot hold a file that changes with
  // every build), then the tarball, as a user would add it.
  for (const f of readdirSync(src)) {
    if (f === 'node_modules') continue;
    rmSync(path.join(dir, f), { recursive: true, force: true });
    cpSync(path.join(src, f), path.join(dir, f), { recursive: true });
  }
  // VitePress: Lethe's whole site in public/ too (the stand-alone page the home page links to; srcExclude).
  if (name === 'vitepress') cpSync(SITE, path.join(dir, 'docs/public/lethe'), { recursive: true });
  run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--loglevel=error', TARBALL], { cwd: dir });
  const installed = JSON.parse(readFileSync(path.join(dir, 'node_modules/lethe-eval/package.json'), 'utf8')).version;
  const install = secs(t);
  const t1 = Date.now();
  const out = run('npm', ['run', '--silent', 'build'], { cwd: dir });
  if (APPS[name].html) cpSync(path.join(src, 'index.html'), path.join(dir, APPS[name].out, 'index.html'));
  const built = secs(t1);
  // The package's TypeScript types (the Vite app's src/types.ts, `tsc --noEmit`).
  let types = '';
  if (JSON.parse(readFileSync(path.join(src, 'package.json'), 'utf8')).scripts.typecheck) {
    const t2 = Date.now();
    run('npm', ['run', '--silent', 'typecheck'], { cwd: dir });
    types = `, types checked by tsc in ${secs(t2)} s`;
  }
  return { install, build: built, types, version: installed, log: out };
}

// --- the server: each app's build output under its own sub-path, one origin ------------------------------------------
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.txt': 'text/plain', '.npy': 'application/octet-stream', '.npz': 'application/zip',
  '.png': 'image/png', '.woff2': 'font/woff2',
};
const notFound = [];
const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (url.pathname === '/favicon.ico') {
    res.writeHead(204);
    return res.end();
  }
  const app = Object.entries(APPS).find(([, a]) => url.pathname.startsWith(a.mount));
  if (!app) {
    notFound.push(url.pathname);
    res.writeHead(404);
    return res.end();
  }
  const root = path.join(WORK, app[0], app[1].out);
  let file = path.join(root, path.normalize(decodeURIComponent(url.pathname.slice(app[1].mount.length))).replace(/^([/\\]|\.\.)+/, ''));
  if (url.pathname.endsWith('/')) file = path.join(file, 'index.html');
  else if (!path.extname(file)) file += '.html';
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
    res.end(body);
  } catch {
    notFound.push(url.pathname);
    res.writeHead(404);
    res.end();
  }
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const ORIGIN = `http://127.0.0.1:${server.address().port}`;

// --- the checks --------------------------------------------------------------------------------------------------
async function open(context, p) {
  const page = await context.newPage({ viewport: { width: 1280, height: 900 } });
  page.errors = [];
  page.requests = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => (m.type() === 'error' || /hydration/i.test(m.text())) && page.errors.push(`console ${m.type()}: ${m.text()}`));
  // Every request, the workers' included (the context sees those).
  context.on('request', (r) => page.requests.push(r.url()));
  await page.goto(ORIGIN + p);
  return page;
}

const headline = (page) => page.locator('lethe-eval [data-value="headline"]').first().waitFor({ timeout: 90000 });

async function noWorkersLeft(page, what) {
  for (let i = 0; i < 100 && page.workers().length > 0; i++) await page.waitForTimeout(100);
  eq(page.workers().length, 0, `workers left after ${what}`);
}

function offOrigin(page) {
  const away = page.requests.filter((u) => !u.startsWith(`${ORIGIN}/`) && !/^(blob|data):/.test(u));
  assert(away.length === 0, `requests outside the page's origin: ${away.join(', ')}`);
}

/** The example to its headline, with its worker; then `leave()` takes the element off the page. */
async function check(name, context, leave) {
  const app = APPS[name];
  const page = await open(context, app.mount + app.page);
  const t = Date.now();
  await headline(page);
  const ran = secs(t);
  const text = (await page.locator('lethe-eval [data-value="headline.text"]').first().textContent()).trim();
  const workers = page.workers().map((w) => new URL(w.url()).pathname);
  assert(workers.length >= 1, 'the element runs a worker');
  const assets = [...new Set(page.requests.filter((u) => /\.wasm$|worker[^/]*\.js$/.test(u)).map((u) => new URL(u).pathname))];
  await page.screenshot({ path: path.join(SHOTS, `npm-${name}.png`), fullPage: true });
  await leave(page);
  await noWorkersLeft(page, 'the element left the page');
  offOrigin(page);
  assert(page.errors.length === 0, page.errors.join('; '));
  return `headline in ${ran} s: "${text.slice(0, 80)}"; worker ${workers[0]}; loaded ${assets.join(', ')}`;
}

const tests = {
  'vite-react': (context) =>
    check('vite-react', context, async (page) => {
      await page.click('#toggle');
      await page.waitForFunction(() => !document.querySelector('lethe-eval'));
    }),
  webpack: (context) => check('webpack', context, (page) => page.click('#toggle')),
  esbuild: (context) => check('esbuild', context, (page) => page.click('#toggle')),
  vitepress: async (context) => {
    const note = await check('vitepress', context, async (page) => {
      // VitePress's own theme is styled (it takes a .css file of the bundle for its stylesheet: the package has none).
      const vpBg = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--vp-c-bg').trim());
      assert(vpBg, "VitePress's theme stylesheet is not applied (--vp-c-bg unset)");
      // The server-rendered page holds the element as written (isCustomElement), and hydration kept it.
      const html = await (await fetch(`${ORIGIN}/sub/vp/analysis.html`)).text();
      // Lethe's .md files in public/lethe/ made no pages (srcExclude); the copy itself is served as it is.
      const out = path.join(WORK, 'vitepress', APPS.vitepress.out);
      assert(existsSync(path.join(out, 'lethe/index.html')), 'public/lethe/ copied into the build');
      const madePages = ['public/lethe/docs/sde-calibration.html', 'public/lethe/data/digits/README.html'].filter((p) => existsSync(path.join(out, p)));
      assert(madePages.length === 0, `VitePress made pages of Lethe's own Markdown: ${madePages.join(', ')}`);
      assert(/<lethe-eval analysis="sde" example(="")? shuffles="100" seed="0">/.test(html), `the server-rendered page lacks the element: ${html.match(/<main[\s\S]{0,400}/)?.[0]}`);
      await page.evaluate(() => (window.__letheSamePage = true));
      await page.locator('.vp-doc a', { hasText: 'Back home' }).click();
      await page.waitForFunction(() => !document.querySelector('lethe-eval'));
      assert(await page.evaluate(() => window.__letheSamePage === true), 'client-side navigation kept the page');
      // A teaching topic from the package (its data from the bundled files; no links into Lethe's site, which the
      // package does not have), then away again.
      await noWorkersLeft(page, 'leaving the analysis page');
      await page.locator('.vp-doc a', { hasText: 'a teaching topic' }).click();
      await page.locator('lethe-eval[topic="sde"] .lethe-teach-root[data-state="ready"]').waitFor({ timeout: 90000 });
      const dead = await page.evaluate(() => [...document.querySelector('lethe-eval').shadowRoot.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')).filter((h) => !/^(https?:|#)/.test(h)));
      assert(dead.length === 0, `links the package cannot serve: ${dead.join(', ')}`);
      await page.locator('.vp-doc a', { hasText: 'Back home' }).click();
      await page.waitForFunction(() => !document.querySelector('lethe-eval'));
    });
    return `${note}; teaching topic sde ready`;
  },
};

let passed = 0;
let failed = 0;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
try {
  for (const name of Object.keys(APPS)) {
    if (filter && !name.includes(filter)) continue;
    const ts = Date.now();
    const context = await browser.newContext();
    try {
      const b = build(name);
      const note = await tests[name](context);
      passed++;
      console.log(`ok   npm ${name}: lethe-eval ${b.version} installed in ${b.install} s, built in ${b.build} s${b.types}; ${note} (${secs(ts)} s)`);
    } catch (e) {
      failed++;
      const out = [e.stdout, e.stderr].filter(Boolean).join('\n').slice(-3000);
      console.log(`FAIL npm ${name} (${secs(ts)} s)\n     ${String(e.stack || e).split('\n').slice(0, 6).join('\n     ')}${out ? `\n${out}` : ''}`);
      console.log(`     404s: ${notFound.splice(0).join(', ')}`);
    } finally {
      await context.close();
    }
  }
} finally {
  await browser.close();
  server.close();
}
console.log(`${passed} passed, ${failed} failed (npm package ${tgz}, ${secs(t0)} s in all)`);
process.exit(failed ? 1 : 0);
