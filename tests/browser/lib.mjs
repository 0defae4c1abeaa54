// Shared helpers of the browser tests: paths, Chromium launch (docs/toolchain.md flags), the CLI, test files, exact
// comparison of reports.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, copyFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SITE = path.join(ROOT, 'target/site');
export const DEMO = path.join(ROOT, 'examples/data/digits');
export const CLI = path.join(ROOT, 'target/release/lethe');
export const SHOTS = path.join(ROOT, 'target/screenshots');
mkdirSync(SHOTS, { recursive: true });

// The page's own formatter (cli/src/report.rs fmt_num in JS): the tests compare displayed text with it.
export { fmt, num } from '../../www/src/format.js';

// --enable-unsafe-webgpu: WebGPU on SwiftShader (no GPU needed; docs/toolchain.md), so the page's WebGPU path is
// exercised; webgpu.test.mjs launches a browser without it for the CPU fallback.
export const WEBGPU_FLAG = '--enable-unsafe-webgpu';
export const CHROMIUM_ARGS = [
  WEBGPU_FLAG,
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export class AssertionError extends Error {}
export function assert(cond, msg) {
  if (!cond) throw new AssertionError(msg);
}
export function eq(a, b, msg) {
  if (a !== b) throw new AssertionError(`${msg}: expected ${JSON.stringify(b)}, got ${JSON.stringify(a)}`);
}

/** Runs the CLI in `cwd` and parses its JSON report. */
export function cli(args, cwd) {
  const out = execFileSync(CLI, [...args, '--json'], { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out);
}

/** A scratch directory with copies of the demo files (so page names and CLI paths are the same bare names). */
export function workdir() {
  const dir = mkdtempSync(path.join(tmpdir(), 'lethe-browser-'));
  for (const f of ['act_unlearned.npy', 'act_retrained.npy', 'act_original.npy', 'forget.txt', 'retain.txt', 'test.txt']) {
    copyFileSync(path.join(DEMO, f), path.join(dir, f));
  }
  return dir;
}

/**
 * Scratch folders removed when a test ends: `workdir()` makes one (with `make`: the example's files by default),
 * `cleaned(fn)` wraps a test's function so that every folder it made is removed after it, passed or failed.
 */
export function scratch(make = workdir) {
  const made = [];
  return {
    workdir: () => {
      const dir = make();
      made.push(dir);
      return dir;
    },
    cleaned: (fn) => async (args) => {
      try {
        return await fn(args);
      } finally {
        for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** .npy bytes (format 1.0, little-endian f8, C order). */
export function npy(values, shape) {
  const dims = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': ${dims}, }`;
  const pad = (64 - ((10 + header.length + 1) % 64)) % 64;
  header += ' '.repeat(pad) + '\n';
  const buf = Buffer.alloc(10 + header.length + values.length * 8);
  buf.write('\x93NUMPY', 0, 'latin1');
  buf[6] = 1;
  buf[7] = 0;
  buf.writeUInt16LE(header.length, 8);
  buf.write(header, 10, 'latin1');
  values.forEach((v, i) => buf.writeDoubleLE(v, 10 + header.length + i * 8));
  return buf;
}

/** A seeded uniform generator (LCG) for test data. */
export function rng(seed) {
  let s = BigInt(seed) + 12345n;
  return () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number(s >> 11n) / 2 ** 53;
  };
}

export function write(dir, name, data) {
  const p = path.join(dir, name);
  writeFileSync(p, data);
  return p;
}

export const read = (p) => readFileSync(p, 'utf8');

/**
 * Compares two JSON values. Numbers must be equal, or within `rel` relative difference (reported). Returns
 * {diffs: [paths that differ beyond rel], maxRel, compared}.
 */
export function compare(a, b, { rel = 0, abs = 0, absPaths = null, loose = null, at = '$', ignore = [] } = {}) {
  const res = { diffs: [], maxRel: 0, maxAbs: 0, compared: 0, inexact: 0, inexactPaths: [] };
  const walk = (x, y, p) => {
    if (ignore.includes(p)) return;
    if (typeof x === 'number' && typeof y === 'number') {
      res.compared++;
      if (x === y || (Number.isNaN(x) && Number.isNaN(y))) return;
      res.inexact++;
      if (res.inexactPaths.length < 5) res.inexactPaths.push(p);
      if (absPaths && absPaths.test(p)) {
        res.maxAbs = Math.max(res.maxAbs, Math.abs(x - y));
        if (!(Math.abs(x - y) <= abs)) res.diffs.push(`${p}: ${x} vs ${y} (absolute)`);
        return;
      }
      const r = Math.abs(x - y) / Math.max(Math.abs(x), Math.abs(y));
      // `loose: {re, rel}`: paths whose computation cancels get their own relative tolerance (reported apart).
      if (loose && loose.re.test(p)) {
        res.maxLoose = Math.max(res.maxLoose || 0, r);
        if (!(r <= loose.rel)) res.diffs.push(`${p}: ${x} vs ${y} (tolerance ${loose.rel})`);
        return;
      }
      res.maxRel = Math.max(res.maxRel, r);
      if (!(r <= rel)) res.diffs.push(`${p}: ${x} vs ${y}`);
      return;
    }
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return res.diffs.push(`${p}: length ${x.length} vs ${y.length}`);
      x.forEach((v, i) => walk(v, y[i], `${p}[${i}]`));
      return;
    }
    if (x && y && typeof x === 'object' && typeof y === 'object') {
      const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
      for (const k of keys) walk(x[k], y[k], `${p}.${k}`);
      return;
    }
    if (x !== y) res.diffs.push(`${p}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`);
  };
  walk(a, b, at);
  return res;
}

/**
 * `LETHE_SIMD=simd128|relaxed` runs the whole suite on one wasm build (issue 16: both builds pass the same suite):
 * every page opened here gets `?lethe-simd=…`, which the page's worker and pool obey (engine.js). A test that
 * forces a build itself (simd.test.mjs) keeps its own.
 */
function withSimd(p) {
  const build = process.env.LETHE_SIMD;
  if (!build || p.includes('lethe-simd=')) return p;
  const [path, hash = ''] = p.split('#');
  return `${path}${path.includes('?') ? '&' : '?'}lethe-simd=${build}${hash ? `#${hash}` : ''}`;
}

/** Opens a page of the site and collects page errors. */
export async function open(context, base, p = '/', { width = 1280, height = 900 } = {}) {
  const page = await context.newPage({ viewport: { width, height } });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(process.env.LETHE_STACKS ? e.stack : e.message));
  page.on('console', (m) => m.type() === 'error' && page.errors.push(`console: ${m.text()}`));
  await page.setViewportSize({ width, height });
  await page.goto(base + withSimd(p));
  return page;
}

/** Waits until the built-in example's SDE and RULER results are shown. */
export async function waitExample(page, timeout = 30000) {
  await page.waitForSelector('[data-value="sde.verdict"]', { timeout });
  await page.waitForSelector('[data-value="ruler.0.m4"]', { timeout });
  // The example's index files are listed after the first results (once the full module is in): wait for them too,
  // so that what a test counts or picks afterwards is settled.
  await page.waitForSelector('.lethe-example-note[data-example-files]', { state: 'attached', timeout });
}

/** Clicks `locator` and returns the parsed JSON of the download it starts. */
export async function downloadJson(page, locator) {
  const [dl] = await Promise.all([page.waitForEvent('download'), locator.click()]);
  return JSON.parse(readFileSync(await dl.path(), 'utf8'));
}

/** A panel's input slot by role: pick a file into it, choose a listed input, give row text or a row file, and
 * its status line. */
export const slot = (panel, role) => ({
  pick: (file) => panel.locator(`[data-role="${role}-file"]`).first().setInputFiles(file),
  choose: (label) => panel.locator(`select[data-role="${role}"]`).first().selectOption({ label }),
  rows: async (text) => {
    await panel.locator(`[data-role="${role}-rows-mode"]`).first().selectOption('text');
    await panel.locator(`[data-role="${role}-rows"]`).first().fill(text);
  },
  rowsFile: async (label, mode = 'file') => {
    await panel.locator(`[data-role="${role}-rows-mode"]`).first().selectOption(mode);
    await panel.locator(`[data-role="${role}-rows-source"]`).first().selectOption({ label });
  },
  status: () => panel.locator(`[data-slot="${role}"] .lethe-slot-status`).first(),
});

/** Runs a panel and fails (with the panel's error messages) unless the run is done; returns its progress text. */
export async function runDone(panel, timeout = 60000) {
  await panel.locator('[data-action="run"]').click();
  const t = await waitRun(panel, timeout);
  assert(/done in/.test(t), `run did not finish: ${t} ${await panel.locator('.lethe-error').allTextContents()}`);
  return t;
}

/** Waits until a panel's run finished (its progress line says done/stopped/failed). */
export async function waitRun(panel, timeout = 60000) {
  await panel.locator('.lethe-progress-text').filter({ hasText: /done in|stopped in|failed|cancelled/ }).waitFor({ timeout });
  return panel.locator('.lethe-progress-text').textContent();
}

/** Text of every [data-value] in `scope`. */
export async function values(scope) {
  return scope.locator('[data-value]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.value, e.textContent])));
}

export async function shot(page, name, opts = {}) {
  const p = path.join(SHOTS, name);
  await page.screenshot({ path: p, ...opts });
  return p;
}
