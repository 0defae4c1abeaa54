// A real Jupyter front end in headless Chromium for the notebook tests: start a pip-installed JupyterLab or Jupyter
// Notebook 7 on a free port of 127.0.0.1 (its own config, runtime and home folders in a temporary directory), write
// a notebook of the given cells, open it, run all cells, and route and log every request (one to another host than
// 127.0.0.1 is aborted and recorded). A test file needs only:
//
//   import { withNotebook, parseArgs } from './lib.mjs';
//   const { venv, apps } = parseArgs(process.argv.slice(2));
//   for (const app of apps) {
//     await withNotebook({ venv, app, cells: ['import lethe', 'lethe.show(…)'] }, async ({ page, dir, outside }) => {
//       await page.locator('.lethe-notebook').waitFor();  // … checks; `dir` is the notebook's folder
//     });
//   }
//
// `withNotebook` reports a failure with the server's log and sets the exit status; it always stops the browser and
// the server and removes the folder.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT, CHROMIUM_ARGS, assert } from '../browser/lib.mjs';

export { ROOT, assert };
export { eq } from '../browser/lib.mjs';

/** The two front ends: JupyterLab (`jupyter lab`, /lab/tree/FILE) and Jupyter Notebook 7 (`jupyter notebook`, /notebooks/FILE). */
export const APPS = {
  lab: { name: 'JupyterLab', command: 'lab', page: (file) => `/lab/tree/${file}`, options: ['--LabApp.news_url=', '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate'] },
  notebook: { name: 'Jupyter Notebook', command: 'notebook', page: (file) => `/notebooks/${file}`, options: [] },
};

/** `VENV [--app lab|notebook|all]` → {venv, apps}; without --app, both front ends. */
export function parseArgs(argv) {
  let venv = path.join(ROOT, 'target/python-venv');
  let app = 'all';
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--app') app = argv[++i];
    else if (argv[i].startsWith('--app=')) app = argv[i].slice(6);
    else venv = argv[i];
  }
  const apps = app === 'all' ? Object.keys(APPS) : [app];
  for (const a of apps) assert(APPS[a], `--app ${a}: expected lab, notebook or all`);
  return { venv: path.resolve(venv), apps };
}

/** A free TCP port of 127.0.0.1. */
export const freePort = () =>
  new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
  });

/** An nbformat 4.5 notebook of code cells (each a string of source). */
export function notebook(cells) {
  return {
    cells: cells.map((source, i) => ({ id: `cell-${i}`, cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source })),
    metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

/** Starts `jupyter APP` of `venv` serving `dir` on a free port; resolves once its API answers. */
export async function startJupyter({ venv, app = 'lab', dir }) {
  const a = APPS[app];
  const token = `t${Math.random().toString(36).slice(2)}`;
  const port = await freePort();
  // Its own settings: no news or update notification (a toast over the notebook, and a request to jupyter.org).
  const settings = path.join(dir, '.settings');
  mkdirSync(path.join(settings, '@jupyterlab/apputils-extension'), { recursive: true });
  writeFileSync(path.join(settings, '@jupyterlab/apputils-extension/notification.jupyterlab-settings'), JSON.stringify({ checkForUpdates: false, fetchNews: 'false' }));
  const env = { ...process.env, HOME: dir, JUPYTER_CONFIG_DIR: path.join(dir, '.cfg'), JUPYTER_RUNTIME_DIR: path.join(dir, '.rt'), JUPYTERLAB_SETTINGS_DIR: settings, JUPYTER_PLATFORM_DIRS: '1', PATH: `${venv}/bin:${process.env.PATH}` };
  const args = [a.command, '--no-browser', '--allow-root', '--expose-app-in-browser', `--ServerApp.token=${token}`, `--port=${port}`, '--ServerApp.ip=127.0.0.1', '--ServerApp.port_retries=0', `--ServerApp.root_dir=${dir}`, ...a.options];
  const proc = spawn(path.join(venv, 'bin/jupyter'), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  proc.stdout.on('data', (d) => (log += d));
  proc.stderr.on('data', (d) => (log += d));
  const base = `http://127.0.0.1:${port}`;
  const server = {
    app,
    name: a.name,
    base,
    token,
    log: () => log,
    url: (file) => `${base}${a.page(file)}?token=${token}`,
    async stop() {
      if (proc.exitCode !== null) return;
      proc.kill('SIGTERM');
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)));
    },
  };
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/status?token=${token}`)).ok) break;
    } catch {}
    if (i >= 240 || proc.exitCode !== null) {
      await server.stop();
      throw new Error(`${a.name} did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return server;
}

/** Routes every request of `ctx`: logs it in `routes`, and aborts (and records in `outside`) any to another host. */
export async function routeAll(ctx) {
  const routes = [];
  const outside = [];
  await ctx.route('**/*', (route) => {
    const u = new URL(route.request().url());
    routes.push(`${route.request().method()} ${u.protocol}//${u.host}${u.pathname}`);
    if (/^(https?|wss?):$/.test(u.protocol) && u.hostname !== '127.0.0.1') {
      outside.push(u.href);
      return route.abort();
    }
    return route.continue();
  });
  return { routes, outside };
}

/** Waits for the notebook's kernel (both front ends expose `window.jupyterapp`), then runs all its cells. */
export async function runAllCells(page) {
  await page.waitForFunction(() => window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel, null, { timeout: 120_000 });
  await page.evaluate(async () => {
    const nbw = window.jupyterapp.shell.currentWidget;
    await nbw.sessionContext.ready;
    await window.jupyterapp.commands.execute('notebook:run-all-cells');
  });
}

/** Waits until every code cell of the open notebook has run (has an execution count). */
export async function waitForCells(page, timeout = 180_000) {
  await page.waitForFunction(
    () => {
      const nb = window.jupyterapp?.shell?.currentWidget?.content;
      const cells = nb?.widgets || [];
      return cells.length > 0 && cells.every((c) => c.model.type !== 'code' || c.model.executionCount != null);
    },
    null,
    { timeout },
  );
}

/**
 * Starts `app`, writes `cells` as `name` into a fresh folder, opens it in headless Chromium (every request routed and
 * logged), runs all cells and calls `fn({page, ctx, dir, server, routes, outside, bigFrames})` (`bigFrames`: the
 * sizes of the WebSocket messages over 1 MB the page received). On a failure it prints the error
 * and the server's log and sets process.exitCode = 1; it always stops the browser and the server and removes `dir`.
 * Resolves true when `fn` passed.
 */
export async function withNotebook({ venv, app = 'lab', cells, name = 'audit.ipynb', viewport = { width: 1280, height: 1000 }, setup }, fn) {
  const dir = mkdtempSync(path.join(tmpdir(), 'lethe-nb-'));
  let server;
  let browser;
  try {
    await setup?.(dir);
    writeFileSync(path.join(dir, name), JSON.stringify(notebook(typeof cells === 'function' ? cells(dir) : cells)));
    server = await startJupyter({ venv, app, dir });
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
    const ctx = await browser.newContext({ acceptDownloads: true, viewport });
    const { routes, outside } = await routeAll(ctx);
    const page = await ctx.newPage();
    // The sizes of the kernel's messages over 1 MB that reached the page (what travels per widget, per notebook).
    const bigFrames = [];
    page.on('websocket', (ws) => {
      routes.push(`WS ${ws.url().replace(/token=[^&]+/, 'token=…')}`);
      ws.on('framereceived', (f) => f.payload.length > 1_000_000 && bigFrames.push(f.payload.length));
    });
    await page.goto(server.url(name));
    await runAllCells(page);
    await fn({ page, ctx, dir, server, routes, outside, bigFrames });
    return true;
  } catch (e) {
    console.error(`FAIL ${APPS[app]?.name ?? app}: ${e.stack || e}`);
    if (server) console.error(`--- jupyter ${app} log ---\n${server.log().slice(-4000)}`);
    process.exitCode = 1;
    return false;
  } finally {
    await browser?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
