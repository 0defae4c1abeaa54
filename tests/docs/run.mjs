// The docs site (issue 25, ./build.sh docs → target/docs-site/) in headless Chromium, served under a sub-path as
// GitHub Pages serves a project's site (http://127.0.0.1:PORT/lethe/): every page the build wrote loads with no 404,
// no request outside the origin and no error; each statistic page's teaching topic renders and its <lethe-eval> runs
// its example to the analysis's headline; every docs/*.md is a page of the site, and so are the generated CLI and
// Python references (the CLI one with every subcommand `lethe --help` lists, cli/tests/reference.rs checks the rest).
//
//   node tests/docs/run.mjs [page-filter]     (after ./build.sh docs; ./build.sh test runs it)
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, ROOT, SHOTS, assert, eq } from '../browser/lib.mjs';

const DOCS = path.join(ROOT, 'target/docs-site');
const BASE = '/lethe/';
const filter = process.argv[2] || '';
if (!existsSync(path.join(DOCS, 'index.html'))) {
  console.error('target/docs-site is missing: run ./build.sh docs first');
  process.exit(2);
}
const t0 = Date.now();
const secs = (t) => ((Date.now() - t) / 1000).toFixed(1);

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.json': 'application/json', '.svg': 'image/svg+xml', '.xml': 'application/xml', '.txt': 'text/plain', '.npy': 'application/octet-stream',
  '.png': 'image/png', '.woff2': 'font/woff2', '.ico': 'image/x-icon', '.md': 'text/markdown',
};
const notFound = [];
const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  let file = null;
  if (url.pathname.startsWith(BASE)) {
    file = path.join(DOCS, path.normalize(decodeURIComponent(url.pathname.slice(BASE.length))).replace(/^([/\\]|\.\.)+/, ''));
    if (url.pathname.endsWith('/') || (existsSync(file) && statSync(file).isDirectory())) file = path.join(file, 'index.html');
  }
  try {
    if (!file) throw new Error('outside the sub-path');
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

// Every page MkDocs wrote (the widget's own pages under lethe/ are the widget's tests').
const walk = (d) => readdirSync(d).flatMap((f) => (statSync(path.join(d, f)).isDirectory() ? walk(path.join(d, f)) : [path.join(d, f)]));
const pages = walk(DOCS)
  .filter((f) => f.endsWith('index.html') && !path.relative(DOCS, f).startsWith('lethe'))
  .map((f) => path.relative(DOCS, path.dirname(f)).split(path.sep).join('/'))
  .map((rel) => BASE + (rel ? `${rel}/` : ''))
  .sort();

// Each statistic page: its teaching topic, and the analysis its element runs (what shows its example ran).
const STATISTICS = {
  'statistics/sde/': { topic: 'sde', analysis: 'sde' },
  'statistics/hsic/': { topic: 'hsic', analysis: 'sde' },
  'statistics/ranks/': { topic: 'ranks', analysis: 'ruler' },
  'statistics/epsilon/': { topic: 'epsilon', analysis: 'epsilon' },
  'statistics/bounds/': { topic: 'bounds', analysis: 'bounds' },
  'statistics/mia/': { topic: 'mia', analysis: 'mia' },
};

let passed = 0;
let failed = 0;
async function test(name, fn) {
  if (filter && !name.includes(filter)) return;
  const ts = Date.now();
  try {
    const note = await fn();
    passed++;
    console.log(`ok   docs-site: ${name} (${secs(ts)} s)${note ? ` — ${note}` : ''}`);
  } catch (e) {
    failed++;
    console.log(`FAIL docs-site: ${name} (${secs(ts)} s)\n     ${String(e.stack || e).split('\n').slice(0, 6).join('\n     ')}`);
  }
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
try {
  await test('every docs/*.md and both generated references are pages of the site', async () => {
    const docs = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `${BASE}${f.slice(0, -3)}/`);
    for (const p of [...docs, `${BASE}cli-reference/`, `${BASE}python-reference/`]) assert(pages.includes(p), `${p} is not a page of the site (pages: ${pages.join(', ')})`);
    // The CLI reference has a section for every subcommand the binary lists.
    const cli = path.join(ROOT, 'target/release/lethe');
    const bin = process.env.LETHE_BIN || cli;
    const help = execFileSync(bin, ['--help'], { encoding: 'utf8' });
    const subs = help.split('Commands:\n')[1].split('\n\n')[0].split('\n').filter((l) => /^ {2}\S/.test(l)).map((l) => l.trim().split(/\s+/)[0]);
    const ref = readFileSync(path.join(DOCS, 'cli-reference/index.html'), 'utf8');
    for (const s of subs) assert(ref.includes(`id="lethe-${s}"`), `the CLI reference page has no section lethe ${s}`);
    const py = readFileSync(path.join(DOCS, 'python-reference/index.html'), 'utf8');
    for (const f of ['sde', 'mia', 'calibrate', 'run']) assert(py.includes(`lethe.${f}`), `the Python reference lacks lethe.${f}`);
    return `${docs.length} docs pages, ${pages.length} pages in all; CLI reference: ${subs.length} subcommands`;
  });

  await test('every page loads under the sub-path: no 404, no request outside the origin, no error', async () => {
    const context = await browser.newContext();
    const outside = [];
    // Requests elsewhere are refused and recorded (the machine is offline anyway: a refusal is the honest answer).
    await context.route((u) => !u.href.startsWith(ORIGIN) && !/^(data|blob):/.test(u.protocol), (route) => {
      outside.push(route.request().url());
      return route.abort();
    });
    const page = await context.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(`${page.url()}: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && errors.push(`${page.url()}: console: ${m.text()}`));
    page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
    for (const p of pages) {
      const r = await page.goto(ORIGIN + p, { waitUntil: 'load' });
      eq(r.status(), 200, `${p} status`);
      await page.locator('.md-content h1').first().waitFor({ timeout: 10000 });
      // The theme's own assets came from the sub-path.
      const css = await page.evaluate(() => [...document.styleSheets].map((s) => s.href).filter(Boolean));
      assert(css.length && css.every((h) => new URL(h).pathname.startsWith('/lethe/')), `${p}: stylesheets ${css}`);
    }
    // The 404 page, as a host serves it for a missing path, styled from the sub-path.
    await page.goto(`${ORIGIN}${BASE}404.html`);
    await page.waitForTimeout(300);
    await context.close();
    assert(outside.length === 0, `requests outside the origin: ${outside.join(', ')}`);
    const nf = notFound.splice(0);
    assert(nf.length === 0, `404s: ${nf.join(', ')}`);
    assert(errors.length === 0, errors.join('; '));
    return `${pages.length} pages`;
  });

  for (const [p, { topic, analysis }] of Object.entries(STATISTICS)) {
    await test(`${p}: the ${topic} teaching topic renders and the ${analysis} element runs its example to its headline`, async () => {
      const context = await browser.newContext();
      const outside = [];
      await context.route((u) => !u.href.startsWith(ORIGIN) && !/^(data|blob):/.test(u.protocol), (route) => {
        outside.push(route.request().url());
        return route.abort();
      });
      const page = await context.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
      const tl = Date.now();
      await page.goto(ORIGIN + BASE + p);
      await page.locator(`lethe-eval[topic="${topic}"] .lethe-teach-root[data-state="ready"]`).waitFor({ timeout: 90000 });
      const teachS = secs(tl);
      const figure = await page.locator(`lethe-eval[topic="${topic}"] svg, lethe-eval[topic="${topic}"] canvas`).count();
      assert(figure > 0, `the ${topic} topic drew no figure`);
      const headline = page.locator(`lethe-eval[analysis="${analysis}"] [data-value="headline.text"]`).first();
      await headline.waitFor({ timeout: 120000 });
      const text = (await headline.textContent()).trim();
      const call = await page.locator(`lethe-eval[analysis="${analysis}"] [data-value="headline"]`).first().getAttribute('data-call');
      assert(text.length > 10 && call, `headline ${JSON.stringify(text)} call ${call}`);
      // Each input once (the page's script gives the element its data once it has started).
      const twice = await page.locator(`lethe-eval[analysis="${analysis}"] option`, { hasText: / \(2\)$/ }).allTextContents();
      assert(twice.length === 0, `inputs listed twice: ${twice.join(', ')}`);
      if (p === 'statistics/epsilon/') {
        // docs/docs-site.png and docs/docs-site-analysis.png (README), at 1280 px.
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.waitForTimeout(500);
        // Two views of the full page: the top (navigation, text, the teaching figure), and the analysis from its
        // heading to its headline and first results.
        await page.screenshot({ path: path.join(SHOTS, 'docs-site.png'), fullPage: true, clip: { x: 0, y: 0, width: 1280, height: 2000 } });
        const y = await page.evaluate(() => document.querySelectorAll('.md-content h2')[1].getBoundingClientRect().top + window.scrollY - 16);
        const hb = await page.locator('lethe-eval[analysis="epsilon"] [data-value="headline"]').first().boundingBox();
        await page.screenshot({ path: path.join(SHOTS, 'docs-site-analysis.png'), fullPage: true, clip: { x: 0, y, width: 1280, height: Math.min(2400, hb.y + hb.height + 700 - y) } });
      }
      await context.close();
      assert(outside.length === 0, `requests outside the origin: ${outside.join(', ')}`);
      const nf = notFound.splice(0);
      assert(nf.length === 0, `404s: ${nf.join(', ')}`);
      assert(errors.length === 0, errors.join('; '));
      return `topic ready ${teachS} s, headline after ${secs(tl)} s: [${call}] ${text.slice(0, 110)}`;
    });
  }
} finally {
  await browser.close();
  server.close();
}
console.log(`${passed} passed, ${failed} failed (docs-site, ${secs(t0)} s in all)`);
process.exit(failed ? 1 : 0);
