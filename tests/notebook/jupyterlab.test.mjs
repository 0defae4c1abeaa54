// lethe.show(report) in a real JupyterLab (pip-installed in the Python venv) in headless Chromium: a notebook runs an
// analysis and shows its report; the rendered headline must equal the report's, the JSON export must equal
// report.to_json(), the plot's SVG export must hold the ROC, and no request may leave 127.0.0.1 (every request is
// routed and logged; one to another host is aborted and fails the test).
// Usage: node tests/notebook/jupyterlab.test.mjs VENV   (VENV has jupyterlab, anywidget and lethe installed)
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, CHROMIUM_ARGS, assert, eq } from '../browser/lib.mjs';

const venv = path.resolve(process.argv[2] || path.join(ROOT, 'target/python-venv'));
const dir = mkdtempSync(path.join(tmpdir(), 'lethe-nb-'));
const token = `t${Math.random().toString(36).slice(2)}`;
const port = await new Promise((res) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => res(p));
  });
});
const scores = path.join(ROOT, 'examples/data/digits/mia_scores.npz');
const expected = path.join(dir, 'expected.json');
const code = [
  'import numpy as np, lethe',
  `s = np.load(${JSON.stringify(scores)})["lira_unlearned"]`,
  'r = lethe.mia(s[:144], s[144:503], ci="both", resamples=200, seed=0)',
  `open(${JSON.stringify(expected)}, "w").write(r.to_json())`,
  'lethe.show(r)',
].join('\n');
// A second cell: SDE, whose report's split-half HSIC values become the page's overlaid histograms.
const act = path.join(ROOT, 'examples/data/digits/act_unlearned.npy');
const sdeCode = [
  `a = np.load(${JSON.stringify(act)})`,
  'q = lethe.sde(a[144:244], a[544:644], target=[a[0:100]], shuffles=50, seed=0)',
  `open(${JSON.stringify(expected.replace(/json$/, 'sde.json'))}, "w").write(q.to_json())`,
  'lethe.show(q)',
].join('\n');
const cell = (id, source) => ({ id, cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source });
const nb = {
  cells: [cell('lethe-show', code), cell('lethe-show-sde', sdeCode)],
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
  nbformat: 4,
  nbformat_minor: 5,
  // (ids: nbformat 4.5)
};
writeFileSync(path.join(dir, 'audit.ipynb'), JSON.stringify(nb));

const env = { ...process.env, HOME: dir, JUPYTER_CONFIG_DIR: path.join(dir, 'cfg'), JUPYTER_RUNTIME_DIR: path.join(dir, 'rt'), JUPYTER_PLATFORM_DIRS: '1', PATH: `${venv}/bin:${process.env.PATH}` };
const lab = spawn(path.join(venv, 'bin/jupyter'), ['lab', '--no-browser', '--allow-root', '--expose-app-in-browser', `--ServerApp.token=${token}`, `--port=${port}`, '--ServerApp.ip=127.0.0.1', '--ServerApp.port_retries=0', `--ServerApp.root_dir=${dir}`, '--LabApp.news_url=', '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
let labLog = '';
lab.stdout.on('data', (d) => (labLog += d));
lab.stderr.on('data', (d) => (labLog += d));
const base = `http://127.0.0.1:${port}`;
let browser;
const t0 = Date.now();
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/status?token=${token}`)).ok) break;
    } catch {}
    assert(i < 240 && lab.exitCode === null, `JupyterLab did not start:\n${labLog}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const ctx = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 1000 } });
  const routes = [];
  const outside = [];
  await ctx.route('**/*', (route) => {
    const u = new URL(route.request().url());
    routes.push(`${route.request().method()} ${u.protocol}//${u.host}${u.pathname}`);
    if ((u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'ws:' || u.protocol === 'wss:') && u.hostname !== '127.0.0.1') {
      outside.push(u.href);
      return route.abort();
    }
    return route.continue();
  });
  const page = await ctx.newPage();
  page.on('websocket', (ws) => routes.push(`WS ${ws.url().replace(/token=[^&]+/, 'token=…')}`));
  await page.goto(`${base}/lab/tree/audit.ipynb?token=${token}`);
  await page.waitForFunction(() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel, null, { timeout: 120_000 });
  await page.evaluate(async () => {
    const nbw = window.jupyterapp.shell.currentWidget;
    await nbw.sessionContext.ready;
    await window.jupyterapp.commands.execute('notebook:run-all-cells');
  });
  const headline = page.locator('.lethe-notebook[data-command=mia] .lethe-headline-text');
  await headline.waitFor({ timeout: 120_000 });
  const routesAtLoad = routes.length;
  const report = JSON.parse(readFileSync(expected, 'utf8'));
  eq(await headline.textContent(), report.headline.text, 'rendered headline');
  eq(await page.locator('.lethe-notebook[data-command=mia] .lethe-headline').getAttribute('data-call'), report.headline.call, 'headline call');
  // The JSON export is the report itself.
  let [dl] = await Promise.all([page.waitForEvent('download'), page.locator('.lethe-notebook[data-command=mia] [data-action=export-json]').click()]);
  const exported = JSON.parse(readFileSync(await dl.path(), 'utf8'));
  eq(JSON.stringify(exported), JSON.stringify(report), 'exported JSON = report.to_json()');
  eq(dl.suggestedFilename(), `lethe-mia-seed${report.seed}.json`, 'export file name');
  // The ROC's SVG export: the page's plot, with the curve and the Clopper–Pearson bands.
  [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /Download ROC .* as SVG/ }).click()]);
  const svg = readFileSync(await dl.path(), 'utf8');
  assert(svg.startsWith('<?xml') && svg.includes('<svg') && svg.includes('data-name="roc"') && /class="[^"]*band/.test(svg), `SVG export lacks the ROC or its bands: ${svg.slice(0, 300)}`);
  [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /Download ROC .* as PNG/ }).click()]);
  const png = readFileSync(await dl.path());
  eq(png.subarray(1, 4).toString(), 'PNG', 'PNG export signature');
  // SDE: its headline and one histogram of the in-training, out-of-training and target distributions.
  const sde = page.locator('.lethe-notebook[data-command=sde]');
  await sde.waitFor({ timeout: 120_000 });
  const sdeReport = JSON.parse(readFileSync(expected.replace(/json$/, 'sde.json'), 'utf8'));
  eq(await sde.locator('.lethe-headline-text').textContent(), sdeReport.headline.text, 'SDE headline');
  eq(await sde.locator('figure svg').count(), 1, 'SDE histograms (one target)');
  assert((await sde.locator('figure svg path, figure svg rect').count()) > 3, 'SDE histogram drawn');
  await page.screenshot({ path: path.join(ROOT, 'target/screenshots/notebook-show.png') });
  console.log(`routes after load (${routes.length - routesAtLoad} new):\n  ${routes.slice(routesAtLoad).join('\n  ') || '(none)'}`);
  eq(outside.length, 0, `requests outside 127.0.0.1: ${outside.join(', ')}`);
  console.log(`ok: lethe.show in JupyterLab — headline "${report.headline.text}", JSON/SVG/PNG exports, ${routes.length} requests, none outside 127.0.0.1 (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
} catch (e) {
  console.error(e.stack || e);
  console.error(`--- jupyter lab log ---\n${labLog.slice(-4000)}`);
  process.exitCode = 1;
} finally {
  await browser?.close();
  lab.kill('SIGTERM');
  await new Promise((r) => (lab.exitCode !== null ? r() : lab.once('exit', r)));
  rmSync(dir, { recursive: true, force: true });
}
