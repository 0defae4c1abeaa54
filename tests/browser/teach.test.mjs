// 8. Teaching mode (teach.html, <lethe-eval mode="teach">): every topic's controls driven from the keyboard (and the
//    epsilon threshold with the mouse), the figure and its numbers updating, and the displayed numbers compared with
//    the CLI (`lethe hsic`, `sde`, `calibrate`, `mwu`, `wilcoxon`, `epsilon`, `bounds`) on the same data — the topic's
//    data fetched from the worker's `export` request and written as .npy, or the digits example's rows. Also:
//    reduced motion, 375 px, one topic embedded in a plain page, every control named, and the hand-off links.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { DEMO, ROOT, SHOTS, SITE, assert, cli, compare, downloadJson, eq, fmt, num, open, shot, waitExample, workdir } from './lib.mjs';
import { pct } from '../../www/src/teach/common.js';
import { QUOTED } from '../../www/src/teach/sde.js';

// Same inputs, same numbers — up to the last bits where a derived number cancels: the kernels are built with the
// platform's SIMD (wasm simd128 here, AVX-512 in the CLI), so entries can differ in the last ulp, and the exact
// shuffle moments, their variances and the reference classes' separation subtract nearly equal sums (a centred
// kernel's total is rounding noise); the shuffled HSIC values of 10-d softmax outputs differ in the last bits too.
// Up to 4e-11 relative was observed; the displayed (6-decimal) numbers are compared exactly.
const DERIVED_REL = 1e-9;

/** Mean over pairs of subsets of the fraction of rows they share (as wasm/src/teach.rs `subset_overlap`). */
function meanOverlap(sets) {
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < sets.length; i++) {
    const a = new Set(sets[i]);
    for (let j = i + 1; j < sets.length; j++) {
      sum += sets[j].filter((x) => a.has(x)).length / Math.min(a.size, new Set(sets[j]).size);
      pairs++;
    }
  }
  return pairs ? sum / pairs : NaN;
}

const CONTROLS = new Set(['button', 'textbox', 'combobox', 'checkbox', 'slider', 'spinbutton', 'link', 'listbox', 'radio', 'switch']);

async function teachPage(context, base, { width = 1280, reduced = false, path: p = '/teach.html' } = {}) {
  if (reduced) await context.close().catch(() => {});
  const page = await open(context, base, p, { width });
  if (reduced) await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 240000 });
  return page;
}

const topic = (page, id) => page.locator(`#lethe-teach-${id}`);
const version = (loc) => loc.evaluate((e) => Number(e.dataset.version || 0));

/** Presses `key` on `control` and waits until the topic has redrawn; returns the new version. */
async function press(page, t, control, key, times = 1) {
  const before = await version(t);
  await control.focus();
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
  await t.evaluate((e, v) => new Promise((resolve, reject) => {
    const stop = setTimeout(() => reject(new Error(`no redraw after ${v}`)), 30000);
    const check = () => (Number(e.dataset.version || 0) > v && !e.hasAttribute('aria-busy') ? (clearTimeout(stop), resolve()) : setTimeout(check, 25));
    check();
  }), before);
  return version(t);
}

/** Waits until the topic is idle (no request in flight) and returns its [data-value] texts. */
async function shown(t) {
  await t.evaluate((e) => new Promise((resolve) => {
    const check = () => (e.hasAttribute('aria-busy') ? setTimeout(check, 25) : setTimeout(resolve, 150));
    check();
  }));
  return t.locator('[data-value]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.value, e.textContent])));
}

/** The topic's data as files, from the worker's `export` request, written into `dir`. */
async function exported(page, request, dir) {
  const files = await page.evaluate(async (r) => {
    const f = await window.letheTeach.engine.request('teach', { topic: 'export', request: r });
    return f.map((x) => ({ name: x.name, bytes: Array.from(x.bytes) }));
  }, request);
  return files.map((f) => {
    const p = path.join(dir, f.name);
    writeFileSync(p, Buffer.from(f.bytes));
    return f.name;
  });
}

const state = (page, id) => page.evaluate((t) => JSON.parse(JSON.stringify(window.letheTeach.topics[t].state())), id);

async function unnamedControls(page) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  const controls = nodes.filter((n) => !n.ignored && CONTROLS.has(n.role?.value));
  return { total: controls.length, unnamed: controls.filter((n) => !(n.name?.value || '').trim()).map((n) => `${n.role.value}#${n.backendDOMNodeId}`) };
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.npy': 'application/octet-stream', '.npz': 'application/octet-stream' };

/**
 * The site with CORS headers (as GitHub Pages sends them), plus /host.html: a docs page on the other origin
 * (localhost vs 127.0.0.1) with docs/teaching.md's strict Content-Security-Policy, embedding one topic.
 */
async function crossOrigin(topicId) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const widget = `http://127.0.0.1:${server.address().port}`;
    if (url.pathname === '/host.html') {
      const csp = `default-src 'none'; script-src ${widget} 'wasm-unsafe-eval'; worker-src blob:; connect-src ${widget}; style-src ${widget}`;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${csp}">
        <script type="module" src="${widget}/src/lethe-eval.js"></script></head>
        <body><h1>Course notes on another origin, strict CSP</h1><lethe-eval id="t" mode="teach" topic="${topicId}"></lethe-eval></body></html>`);
      return;
    }
    try {
      const file = path.join(SITE, path.normalize(url.pathname).replace(/^([/\\])+/, ''));
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'access-control-allow-origin': '*' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

/**
 * The SDE topic's current experiment against the CLI: `lethe calibrate` on the same pools, draw and seed, and `lethe
 * sde` with the first reference pair; the report fields and the displayed numbers.
 */
async function sdeEqualsCli(page, t, dir) {
  const st = await state(page, 'sde');
  const r = st.request;
  const data = r.representation === 'softmax' ? `softmax.npz#${r.model}` : `act_${r.model}.npy`;
  const sigma = typeof r.sigma === 'string' ? r.sigma : String(r.sigma.fixed);
  const pool = r.target === 'forget' ? '0..144' : '344..544';
  const cal = cli(['calibrate', '--data', data, '--it-pool', '144..344', '--oot-pool', '544..744', '--draw-from', pool, '--draw', '1', '--size', String(r.size), '--refs', String(r.references), '--paper-shuffles', String(r.shuffles), '--sigma', sigma, '--seed', String(r.seed), '--margin', '0'], dir).result;
  // Same subsets, same numbers (the target's name differs: the page calls it `target`).
  const c = compare(st.result.calibrated, cal, { rel: DERIVED_REL, ignore: ['$.backend.device', '$.targets[0].name'] });
  assert(c.diffs.length === 0, `calibrated report differs from the CLI:\n${c.diffs.slice(0, 6).join('\n')}`);
  const rows = (list) => `${data}@${list.join(',')}`;
  const sde = cli(['sde', '--it', rows(cal.in_training.subsets[0]), '--oot', rows(cal.out_of_training.subsets[0]), '--target', rows(st.result.target_rows), '--shuffles', String(r.shuffles), '--sigma', sigma, '--seed', String(r.seed)], dir).result;
  const s = compare(st.result.sde, sde, { rel: DERIVED_REL, abs: 1e-10, absPaths: /kernels\.(kc|l)_sums\./, ignore: ['$.backend.device', '$.targets[0].name'] });
  assert(s.diffs.length === 0, `SDE report differs from the CLI:\n${s.diffs.slice(0, 6).join('\n')}`);
  const v = await shown(t);
  const vt = sde.targets[0].verdict;
  eq(v['sde.jsd'], `${fmt(vt.jsd_target_it)} / ${fmt(vt.jsd_target_oot)}`, 'displayed JSDs');
  eq(v['sde.paper'], `Paper’s verdict (first reference pair): ${vt.in_training ? 'in training' : 'out of training'}`, 'paper verdict');
  eq(v['sde.exact_mean'], fmt(cal.targets[0].stats.moments.mean), 'exact mean');
  eq(v['sde.z'], fmt(cal.targets[0].score), 'calibrated score');
  eq(v['sde.class_separation'], `${fmt(cal.rule.separation)} sds`, 'class separation');
  // The classes' gap in a fresh subset's null sds, from the CLI's report by the placebo check's formula
  // (crate/src/sde/placebo.rs null_sd: finite-pool corrected, widened for the pool's and the references' error).
  const nullSd = (c) => {
    const pool = new Set(c.subsets.flat()).size, n = c.subsets[0].length, R = c.subsets.length;
    return Math.sqrt(c.sd ** 2 * (pool - 1) / Math.max(pool - n, 1) * (1 + n / pool) + c.sd ** 2 / R);
  };
  const nullSep = Math.abs(cal.rule.in_training_mean - cal.rule.out_of_training_mean) / Math.max(nullSd(cal.in_training), nullSd(cal.out_of_training));
  assert(Math.abs(Number(v['sde.null_separation']) - nullSep) <= 1e-3 * nullSep, `null separation ${v['sde.null_separation']} vs ${nullSep}`);
  eq(v['sde.separation_p'], fmt(sde.reference_separation.p_value), 'Mann–Whitney separation');
  const call = { in_training: 'in training', out_of_training: 'out of training', inconclusive: 'inconclusive' }[cal.targets[0].calibrated];
  eq(v['sde.calibrated'], `Calibrated verdict: ${call}`, 'calibrated verdict');
  eq(v['sde.pairs_in'], `${st.result.pairs.filter((p) => p.in_training).length} of ${r.references}`, 'pair tally');
  eq(st.result.pairs_in_training, st.result.pairs.filter((p) => p.in_training).length, 'tally from the worker');
  eq(st.result.pairs[0].jsd_target_it, vt.jsd_target_it, 'first pair = sde');
  return `${c.compared + s.compared} numbers equal the CLI (${c.inexact + s.inexact} in the last bits, max rel ${Math.max(c.maxRel, s.maxRel).toExponential(1)}); z = ${v['sde.z']}`;
}

// Every control of each topic, in an order that reveals the hidden ones first (the fixed σ after “fixed”, p after
// “binary flags”). The test of all controls checks this list against the page, so a new control must be added here.
const CONTROLS_BY_TOPIC = {
  hsic: ['kind', 'strength', 'n', 'sigma_rule', 'sigma', 'permutations', 'seed'],
  sde: ['representation', 'model', 'target', 'size', 'sigma', 'shuffles', 'references', 'seed'],
  ranks: ['n_x', 'n_y', 'shift', 'ties', 'alternative', 'seed'],
  epsilon: ['n_models', 'shift', 'spread', 'alpha', 'direction', 'seed', 'threshold'],
  bounds: ['p0', 'k', 'n', 'x0', 'alpha', 'one_sided', 'seed', 'family', 'p', 'plan_width', 'plan_rate'],
  mia: ['n_members', 'n_non_members', 'shift', 'spread', 'score_threshold', 'target_fpr', 'seed'],
  seeds: ['seeds', 'difference', 'seed'],
  'forget-quality': ['median', 'spread', 'n', 'seed'],
};
// Controls that change numbers and no drawing: the Clopper–Pearson α of the epsilon topic (its ε is a number in the
// table of best attacks; the plots show point estimates) and the sample-size calculator.
const NUMBERS_ONLY = { epsilon: ['alpha'], bounds: ['plan_width', 'plan_rate'] };

/** The topic's numbers ([data-value] texts) and its drawings (SVG markup without generated ids, canvas pixels). */
const fingerprint = (t) =>
  t.evaluate((e) => ({
    numbers: JSON.stringify([...e.querySelectorAll('[data-value]')].map((x) => [x.dataset.value, x.textContent])),
    figure: [...e.querySelectorAll('svg')].map((s) => s.outerHTML.replace(/lethe-[a-z]+-\d+/g, 'id')).join('') + [...e.querySelectorAll('canvas')].map((c) => c.toDataURL()).join(''),
  }));

/** Moves one control from the keyboard by one step (the way its kind of control moves) and waits for the redraw. */
async function move(page, t, key) {
  const c = key === 'threshold' ? t.locator('[data-role=threshold]') : t.locator(`[data-param="${key}"]`);
  const info = await c.evaluate((e) => ({ tag: e.tagName.toLowerCase(), type: e.type, value: e.value, max: e.max, idx: e.selectedIndex, n: e.options?.length }));
  if (info.tag === 'select') return press(page, t, c, info.idx === info.n - 1 ? 'ArrowUp' : 'ArrowDown');
  if (info.type === 'checkbox') return press(page, t, c, 'Space');
  if (info.type === 'number') {
    await c.focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type(String(Number(info.value) + 1));
    return press(page, t, c, 'Tab');
  }
  if (info.type === 'range') return press(page, t, c, Number(info.value) >= Number(info.max) ? 'ArrowLeft' : 'ArrowRight');
  return press(page, t, c, 'ArrowRight'); // the epsilon threshold, an SVG slider
}

export const tests = [
  {
    name: 'HSIC: sliders and selects by keyboard redraw the figure; the numbers equal `lethe hsic` on the same data',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page, 'hsic');
      const v0 = await shown(t);
      await t.getByRole('button', { name: 'Pause' }).click();
      // Strength, sample size, kind, bandwidth rule, fixed σ, shuffles and seed, all from the keyboard.
      await press(page, t, t.locator('[data-param=strength]'), 'ArrowLeft', 2);
      const v1 = await shown(t);
      assert(v1['hsic.statistic'] !== v0['hsic.statistic'], `the statistic changes with the strength (${v0['hsic.statistic']} → ${v1['hsic.statistic']})`);
      await press(page, t, t.locator('[data-param=n]'), 'ArrowRight', 2);
      await press(page, t, t.locator('[data-param=kind]'), 'ArrowDown');
      await press(page, t, t.locator('[data-param=sigma_rule]'), 'ArrowDown');
      await press(page, t, t.locator('[data-param=sigma]'), 'ArrowRight', 3);
      await press(page, t, t.locator('[data-param=permutations]'), 'ArrowUp');
      await t.locator('[data-param=seed]').focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('3');
      await press(page, t, t.locator('[data-param=seed]'), 'Tab');
      const st = await state(page, 'hsic');
      eq(st.request.data.kind, 'nonlinear', 'kind chosen by keyboard');
      eq(st.request.data.n, 70, 'n moved by keyboard');
      eq(st.request.data.strength, 0.6, 'strength moved by keyboard');
      eq(st.request.sigma.fixed, 1.41, 'σ = 10^0.15 rounded to 3 digits');
      eq(st.request.permutations, 499, 'B chosen by keyboard');
      eq(st.request.data.seed, 3, 'seed typed');
      // One shuffle by hand, then the rest.
      const stepBtn = t.locator('[data-action=step]');
      await stepBtn.focus();
      await page.keyboard.press('Enter');
      await t.locator('[data-value="hsic.done"]').filter({ hasText: /^1 of 499$/ }).waitFor();
      await t.locator('[data-action=finish]').focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('#lethe-teach-hsic').dataset.complete === 'true');
      const v = await shown(t);
      const dir = workdir();
      const [fx, fy] = await exported(page, { topic: 'hsic', ...st.request.data }, dir);
      const c = cli(['hsic', fx, fy, '--sigma-x', '1.41', '--sigma-y', '1.41', '--permutations', '499', '--seed', '3'], dir).result;
      eq(v['hsic.statistic'], fmt(c.statistic), 'observed HSIC');
      eq(v['hsic.p'], fmt(c.p_value), 'p-value');
      eq(v['hsic.b'], String(c.exceedances), 'b');
      eq(v['hsic.sigma'], `${fmt(c.sigma_x)}, ${fmt(c.sigma_y)}`, 'bandwidths');
      eq(v['hsic.done'], '499 of 499', 'shuffles done');
      // The median heuristic too (σ chosen per sample).
      await press(page, t, t.locator('[data-param=sigma_rule]'), 'ArrowUp');
      await t.locator('[data-action=finish]').click();
      await page.waitForFunction(() => document.querySelector('#lethe-teach-hsic').dataset.complete === 'true');
      const vm = await shown(t);
      const cm = cli(['hsic', fx, fy, '--sigma-x', 'median', '--sigma-y', 'median', '--permutations', '499', '--seed', '3'], dir).result;
      eq(vm['hsic.statistic'], fmt(cm.statistic), 'observed HSIC (median)');
      eq(vm['hsic.p'], fmt(cm.p_value), 'p-value (median)');
      // Play, then pause: the run advances and then stops.
      await t.getByRole('button', { name: 'Restart' }).click();
      await t.getByRole('button', { name: 'Play' }).click();
      await page.waitForFunction(() => Number(document.querySelector('#lethe-teach-hsic').dataset.done) > 20);
      await t.getByRole('button', { name: 'Pause' }).click();
      await page.waitForTimeout(300);
      const paused = await t.evaluate((e) => e.dataset.done);
      await page.waitForTimeout(500);
      eq(await t.evaluate((e) => e.dataset.done), paused, 'no shuffles while paused');
      assert(Number(paused) < 499, `paused before the end (${paused})`);
      const canvases = await t.locator('canvas').count();
      eq(canvases, 3, 'three kernel heat maps');
      await t.screenshot({ path: path.join(SHOTS, 'teach-hsic.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `HSIC ${v['hsic.statistic']}, p ${v['hsic.p']} (fixed σ) and ${vm['hsic.p']} (median) = CLI; paused at ${paused}`;
    },
  },
  {
    name: 'SDE: every control by keyboard; distributions, pair verdicts and the calibrated verdict equal `lethe sde` and `lethe calibrate` (softmax and penultimate, forget and retain targets, σ = sqrt(dim) and median)',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page, 'sde');
      const dir = workdir();
      copyFileSync(path.join(DEMO, 'softmax.npz'), path.join(dir, 'softmax.npz'));
      const v0 = await shown(t);
      await press(page, t, t.locator('[data-param=size]'), 'ArrowLeft', 4);
      await press(page, t, t.locator('[data-param=references]'), 'ArrowLeft', 6);
      await press(page, t, t.locator('[data-param=shuffles]'), 'ArrowLeft', 2);
      await press(page, t, t.locator('[data-param=model]'), 'ArrowDown');
      const v1 = await shown(t);
      assert(v1['sde.jsd'] !== v0['sde.jsd'], 'the verdict numbers change');
      let st = await state(page, 'sde');
      eq(st.request.size, 60, '|S| by keyboard');
      eq(st.request.references, 4, 'R by keyboard');
      eq(st.request.shuffles, 100, 'T by keyboard');
      eq(st.request.model, 'retrained', 'model by keyboard');
      eq(st.request.representation, 'softmax', 'softmax outputs first');
      const first = await sdeEqualsCli(page, t, dir);
      await t.screenshot({ path: path.join(SHOTS, 'teach-sde.png') });
      // The other three selects and the seed: penultimate activations, retain-row targets, the median heuristic.
      const before = await shown(t);
      await press(page, t, t.locator('[data-param=representation]'), 'ArrowDown');
      const vr = await shown(t);
      assert(vr['sde.jsd'] !== before['sde.jsd'] && vr['sde.exact_mean'] !== before['sde.exact_mean'], `the representation changes the numbers (${before['sde.jsd']} → ${vr['sde.jsd']})`);
      await press(page, t, t.locator('[data-param=target]'), 'ArrowDown');
      const vt = await shown(t);
      assert(vt['sde.exact_mean'] !== vr['sde.exact_mean'], 'the target pool changes the target’s exact mean');
      assert(/of the retain rows — in training under the retrained model/.test(await t.locator('.lethe-muted', { hasText: 'Target:' }).first().textContent()), 'retain targets are said to be in training');
      await press(page, t, t.locator('[data-param=sigma]'), 'ArrowDown');
      const vs = await shown(t);
      assert(vs['sde.exact_mean'] !== vt['sde.exact_mean'], 'σ changes the exact mean');
      await t.locator('[data-param=seed]').focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('4');
      await press(page, t, t.locator('[data-param=seed]'), 'Tab');
      st = await state(page, 'sde');
      eq(st.request.representation, 'penultimate', 'representation by keyboard');
      eq(st.request.target, 'retain', 'target by keyboard');
      eq(st.request.sigma, 'median', 'σ by keyboard');
      eq(st.request.seed, 4, 'seed typed');
      const second = await sdeEqualsCli(page, t, dir);
      await t.screenshot({ path: path.join(SHOTS, 'teach-sde-penultimate.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `softmax/forget/sqrt_dim: ${first}; penultimate/retain/median: ${second}`;
    },
  },
  {
    name: 'SDE: the |S| and σ trends run cell by cell (stoppable) and each cell equals `lethe calibrate` with labelled draws',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page, 'sde');
      await t.locator('[data-action=sweep]').focus();
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelector('[data-role=sweep]').dataset.done === 'true', null, { timeout: 240000 });
      const st = await state(page, 'sde');
      eq(st.sweep.size.length, 7, '|S| cells');
      eq(st.sweep.sigma.length, 7, 'σ cells');
      const dir = workdir();
      copyFileSync(path.join(DEMO, 'softmax.npz'), path.join(dir, 'softmax.npz'));
      const r = st.request;
      const data = r.representation === 'softmax' ? 'softmax.npz#retrained' : 'act_retrained.npy';
      for (const [cell, sigma] of [[st.sweep.size[1], 'sqrt_dim'], [st.sweep.sigma[5], String(st.sweep.sigma[5].sigma)]]) {
        const c = cli(['calibrate', '--data', data, '--it-pool', '144..344', '--oot-pool', '544..744', '--draw-in', '344..544', '--draw-out', '0..144', '--draw', '10', '--size', String(cell.size), '--refs', '10', '--paper-shuffles', '100', '--sigma', sigma, '--seed', String(r.seed), '--margin', '0'], dir).result;
        for (const s of c.summaries) {
          const got = cell.f1.find(([rule]) => rule === s.rule);
          eq(got && got[1], s.f1 ? s.f1.f1 : null, `F1 of ${s.rule} at |S| = ${cell.size}, σ = ${sigma}`);
        }
        const rel = Math.abs(cell.separation - c.rule.separation) / Math.abs(c.rule.separation);
        assert(rel <= DERIVED_REL, `class separation ${cell.separation} vs ${c.rule.separation} (rel ${rel})`);
        // The cell's warnings are the CLI's, and its reference overlap is counted from the CLI's reference rows.
        eq(JSON.stringify(cell.warnings), JSON.stringify(c.warnings), `warnings at |S| = ${cell.size}, σ = ${sigma}`);
        for (const [k, cls] of [['in_training_references', 'in_training'], ['out_of_training_references', 'out_of_training']]) {
          const want = meanOverlap(c[cls].subsets);
          assert(Math.abs(num(cell.overlap[k].mean) - want) <= 1e-12, `${k} overlap at |S| = ${cell.size}: ${cell.overlap[k].mean} vs ${want} from the CLI's rows`);
        }
      }
      // What each cell rests on, shown beside the trend: the table, the note on the largest |S| and the warnings.
      const vw = await shown(t);
      for (const cell of st.sweep.size) {
        const o = cell.overlap;
        eq(vw[`sweep.size.${cell.size}.refs`], `${pct(num(o.in_training_references.mean))} / ${pct(num(o.out_of_training_references.mean))}`, `reference overlap shown at |S| = ${cell.size}`);
        eq(vw[`sweep.size.${cell.size}.out_targets`], `${pct(num(o.out_targets.mean))} (${o.out_targets.distinct_rows} of 144 rows)`, `forget-target overlap shown at |S| = ${cell.size}`);
        eq(vw[`sweep.size.${cell.size}.separation`], num(cell.separation).toFixed(2), `classes apart shown at |S| = ${cell.size}`);
      }
      // 10 × 20 rows fit the 200-row pools: disjoint references and no warning; at |S| = 140 any two of the 144
      // forget rows' subsets share at least 136 rows, and the references overlap with a warning.
      const [small, large] = [st.sweep.size[0], st.sweep.size.at(-1)];
      eq(small.size, 20, 'smallest |S|');
      eq(num(small.overlap.in_training_references.mean), 0, 'disjoint references at |S| = 20');
      eq(small.warnings.length, 0, 'no warning at |S| = 20');
      eq(large.size, 140, 'largest |S|');
      assert(num(large.overlap.out_targets.mean) >= 136 / 140 && large.overlap.out_targets.distinct_rows <= 144, `forget targets at |S| = 140: ${JSON.stringify(large.overlap.out_targets)}`);
      assert(large.warnings.some((w) => /overlap/.test(w)), `a warning at |S| = 140: ${large.warnings}`);
      const note = await t.locator('[data-role=overlap-note]').textContent();
      assert(note.includes(`At |S| = 140, two of the 10 forget-set targets share ${pct(num(large.overlap.out_targets.mean))} of their rows`) && /they overlap too/.test(note), `the note says how much the subsets share: ${note}`);
      const warnedCells = [...st.sweep.size, ...st.sweep.sigma].filter((c) => c.warnings.length);
      eq(await t.locator('[data-role=sweep-warnings] strong').textContent(), `Lethe’s report warned in ${warnedCells.length} of 14 cells`, 'warned cells counted');
      eq(await t.locator('[data-role=sweep-warnings] li').count(), warnedCells.reduce((a, c) => a + c.warnings.length, 0), 'every warning listed');
      eq(await t.locator('[data-role=sweep] svg path.lethe-line[data-name^="rows two forget-set targets share"]').count(), 1, 'the targets’ overlap drawn beside the F1 curves');
      const lines = await t.locator('[data-role=sweep] svg path.lethe-line').count();
      assert(lines >= 4, `F1 curves drawn (${lines})`);
      await t.locator('[data-role=sweep]').screenshot({ path: path.join(SHOTS, 'teach-sde-trends.png') });
      // Stop works: a new run stopped at once leaves the note saying so and the button usable.
      // (Both clicks in one task: a whole run takes well under a second, so a second click could come too late.)
      await t.evaluate((e) => {
        e.querySelector('[data-action=sweep]').click();
        e.querySelector('[data-action=stop-sweep]').click();
      });
      assert(await t.locator('[data-action=sweep]').isEnabled(), 'sweep can be run again');
      await t.getByText(/^Stopped after \d+ of 14 cells\.$/).waitFor();
      assert(page.errors.length === 0, page.errors.join('; '));
      // (null: every target of the cell inconclusive, as `lethe calibrate` reports it.)
      const f1 = st.sweep.size.map((c) => c.f1.find(([q]) => q === 'calibrated')[1]?.toFixed(2) ?? '–').join(' ');
      return `14 cells; calibrated F1 over |S| = 20…140: ${f1}`;
    },
  },
  {
    name: 'rank tests: sizes, shift, ties and alternative by keyboard; ranks, ties and p-values equal `lethe mwu` and `lethe wilcoxon`',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page, 'ranks');
      await press(page, t, t.locator('[data-param=n_x]'), 'ArrowRight', 3);
      await press(page, t, t.locator('[data-param=n_y]'), 'ArrowRight');
      await press(page, t, t.locator('[data-param=shift]'), 'ArrowLeft', 3);
      await t.locator('[data-param=ties]').focus();
      await press(page, t, t.locator('[data-param=ties]'), 'Space');
      await press(page, t, t.locator('[data-param=alternative]'), 'ArrowDown');
      const st = await state(page, 'ranks');
      eq(st.request.n_x, 10, 'n_x');
      eq(st.request.n_y, 7, 'n_y');
      eq(st.request.ties, true, 'ties on');
      eq(st.request.alternative, 'greater', 'alternative');
      const ties = await t.locator('tr.lethe-teach-tie').count();
      assert(ties > 0, 'tied rows are highlighted');
      const v = await shown(t);
      const dir = workdir();
      const [mx, my, wx, wy] = await exported(page, { topic: 'ranks', ...st.request }, dir);
      const mw = (m) => cli(['mwu', mx, my, '--alternative', 'greater', '--method', m], dir).result;
      const [exact, asym, auto] = ['exact', 'asymptotic', 'auto'].map(mw);
      eq(v['ranks.u'], String(auto.statistic), 'U₁');
      eq(v['ranks.mw.exact'], fmt(exact.p_value), 'exact p');
      eq(v['ranks.mw.asymptotic'], fmt(asym.p_value), 'normal p');
      eq(auto.method_used, 'asymptotic', 'auto uses the normal approximation with ties');
      const used = await t.locator('.lethe-teach-pval-used [data-value^="ranks.mw."]').first().getAttribute('data-value');
      eq(used, 'ranks.mw.asymptotic', 'the card auto uses is marked');
      // Ranks as the test uses them: x's rank sum gives U₁.
      const r1 = await t.locator('tr.lethe-teach-x').evaluateAll((rows) => rows.filter((r) => r.closest('table').querySelector('th').textContent === 'rank').reduce((a, r) => a + Number(r.dataset.rank), 0));
      eq(r1 - (10 * 11) / 2, auto.statistic, 'U₁ from the ranks shown');
      const w = (m) => cli(['wilcoxon', wx, wy, '--alternative', 'greater', '--method', m], dir).result.test;
      const [wexact, wasym, wauto] = ['exact', 'asymptotic', 'auto'].map(w);
      eq(v['ranks.tplus'], String(wauto.r_plus), 'T⁺');
      eq(v['ranks.w.exact'], fmt(wexact.p_value), 'Wilcoxon exact p');
      eq(v['ranks.w.asymptotic'], fmt(wasym.p_value), 'Wilcoxon normal p');
      if (wauto.method_used === 'permutation') eq(v['ranks.w.permutation'], fmt(wauto.p_value), 'Wilcoxon permutation p');
      // A new seed draws new samples: the numbers follow, still equal to the CLI.
      await t.locator('[data-param=seed]').focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('7');
      await press(page, t, t.locator('[data-param=seed]'), 'Tab');
      const s7 = await state(page, 'ranks');
      eq(s7.request.seed, 7, 'seed typed');
      const v7 = await shown(t);
      assert(v7['ranks.mw.exact'] !== v['ranks.mw.exact'] || v7['ranks.u'] !== v['ranks.u'], 'the seed changes the samples and U');
      const [mx7, my7] = await exported(page, { topic: 'ranks', ...s7.request }, dir);
      const e7 = cli(['mwu', mx7, my7, '--alternative', 'greater', '--method', 'exact'], dir).result;
      eq(v7['ranks.u'], String(e7.statistic), 'U₁ at seed 7');
      eq(v7['ranks.mw.exact'], fmt(e7.p_value), 'exact p at seed 7');
      await t.screenshot({ path: path.join(SHOTS, 'teach-ranks.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `U₁ = ${auto.statistic}, exact p ${fmt(exact.p_value)} vs normal ${fmt(asym.p_value)}; ${ties} tied rows; Wilcoxon auto: ${wauto.method_used}`;
    },
  },
  {
    name: 'epsilon: the threshold moves by keyboard and by mouse drag; FPR/FNR/ε follow the counts and the best attacks equal `lethe epsilon`',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page, 'epsilon');
      await press(page, t, t.locator('[data-param=n_models]'), 'ArrowDown');
      await press(page, t, t.locator('[data-param=shift]'), 'ArrowLeft', 5);
      const handle = t.locator('[data-role=threshold]');
      const before = Number(await handle.getAttribute('aria-valuenow'));
      await press(page, t, handle, 'ArrowRight', 4);
      const afterKeys = Number(await handle.getAttribute('aria-valuenow'));
      eq(Number((afterKeys - before).toFixed(2)), 0.2, 'four arrow presses move t by 4 × 0.05');
      const st = await state(page, 'epsilon');
      eq(st.data.n_models, 128, 'N by keyboard');
      eq(st.data.shift, 1, 'shift by keyboard');
      const dir = workdir();
      const [fr, fu] = await exported(page, { topic: 'epsilon', ...st.data }, dir);
      const check = async (label) => {
        const s = await state(page, 'epsilon');
        const view = s.view;
        const v = await shown(t);
        const tt = s.threshold;
        const below = s.attack.direction === 'below';
        // The oracle: count the two samples directly.
        const fp = view.unlearned.filter((x) => (below ? x < tt : x >= tt)).length;
        const fn = view.retrained.filter((x) => (below ? x >= tt : x < tt)).length;
        const N = view.retrained.length;
        eq(v['eps.fpr'], `${fp}/${N} = ${fmt(fp / N)}`, `${label}: FPR`);
        eq(v['eps.fnr'], `${fn}/${N} = ${fmt(fn / N)}`, `${label}: FNR`);
        const [a, b] = [fp / N, fn / N];
        const d = 1e-5;
        const want = a === 0 && b === 0 ? Infinity : a === 0 || b === 0 ? NaN : Math.max(0, ...[[1 - d - a, b], [1 - d - b, a]].filter(([n]) => n > 0).map(([n, m]) => Math.log(n / m)));
        const got = num(s.attack.attack.epsilon);
        assert(Object.is(got, want) || Math.abs(got - want) < 1e-12, `${label}: ε ${got} vs ${want}`);
        return tt;
      };
      const t1 = await check('keyboard');
      // Mouse: drag the handle to 30% of the plot's width.
      const svg = t.locator('svg:has([data-role=threshold])');
      const box = await svg.boundingBox();
      const knob = await handle.locator('circle').boundingBox();
      await page.mouse.move(knob.x + knob.width / 2, knob.y + knob.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.45, knob.y + 40, { steps: 8 });
      await page.mouse.move(box.x + box.width * 0.3, knob.y + 40, { steps: 8 });
      await page.mouse.up();
      await page.waitForFunction((v) => Number(document.querySelector('[data-role=threshold]').getAttribute('aria-valuenow')) !== v, t1);
      const t2 = await check('mouse');
      assert(t2 < t1, `dragged left: ${t1} → ${t2}`);
      await t.screenshot({ path: path.join(SHOTS, 'teach-epsilon.png') });
      const c = cli(['epsilon', '--retrained', fr, '--unlearned', fu, '--variant', 'all', '--alpha', '0.05'], dir).result;
      const v = await shown(t);
      const by = (kind) => c.results.find((x) => x.variant.kind === kind).per_example[0];
      const e = (x) => (num(x.epsilon) === Infinity ? '∞ (perfect separation)' : fmt(x.epsilon));
      eq(v['eps.official'], e(by('official')), 'official ε');
      eq(v['eps.exhaustive'], e(by('exhaustive')), 'exhaustive ε');
      eq(v['eps.cp'], e(by('high_probability')), 'Clopper–Pearson ε');
      eq(v['eps.eps_max'], String(c.results[0].eps_max), 'ε_max');
      // Spread, α, seed and the attack's direction: the samples, the Clopper–Pearson bound and the rule follow.
      await press(page, t, t.locator('[data-param=spread]'), 'ArrowRight', 3);
      const vs = await shown(t);
      assert(vs['eps.exhaustive'] !== v['eps.exhaustive'] || vs['eps.fpr'] !== v['eps.fpr'], `the spread changes the samples (${v['eps.exhaustive']} → ${vs['eps.exhaustive']})`);
      await press(page, t, t.locator('[data-param=alpha]'), 'ArrowDown');
      const va = await shown(t);
      assert(va['eps.cp'] !== vs['eps.cp'], `α changes the Clopper–Pearson ε (${vs['eps.cp']} → ${va['eps.cp']})`);
      eq(va['eps.exhaustive'], vs['eps.exhaustive'], 'α leaves the point estimates alone');
      await t.locator('[data-param=seed]').focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('2');
      await press(page, t, t.locator('[data-param=seed]'), 'Tab');
      const dirSel = t.locator('[data-param=direction]');
      const dir0 = await dirSel.inputValue();
      const rule0 = (await shown(t))['eps.rule'];
      await press(page, t, dirSel, dir0 === 'below' ? 'ArrowDown' : 'ArrowUp');
      const s2 = await state(page, 'epsilon');
      eq(s2.data.spread, 1.3, 'spread by keyboard');
      eq(s2.data.seed, 2, 'seed typed');
      eq(s2.attack.direction, dir0 === 'below' ? 'at_least' : 'below', 'direction by keyboard');
      assert((await shown(t))['eps.rule'] !== rule0, 'the rule shown follows the direction');
      await check('other direction');
      const [fr2, fu2] = await exported(page, { topic: 'epsilon', ...s2.data }, dir);
      const c2 = cli(['epsilon', '--retrained', fr2, '--unlearned', fu2, '--variant', 'all', '--alpha', '0.1'], dir).result;
      const v2 = await shown(t);
      const by2 = (kind) => c2.results.find((x) => x.variant.kind === kind).per_example[0];
      eq(v2['eps.official'], e(by2('official')), 'official ε (spread 1.3, seed 2)');
      eq(v2['eps.exhaustive'], e(by2('exhaustive')), 'exhaustive ε (spread 1.3, seed 2)');
      eq(v2['eps.cp'], e(by2('high_probability')), 'Clopper–Pearson ε at α = 0.1');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `t ${before} → ${t1} (keys) → ${t2} (mouse); best ε official ${v['eps.official']}, exhaustive ${v['eps.exhaustive']}, CP ${v['eps.cp']}`;
    },
  },
  {
    name: 'bounds: family, n, x₀ and α by keyboard; M_gen, Clopper–Pearson, E[X] and the sample-size plan equal `lethe bounds`',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page, 'bounds');
      const v0 = await shown(t);
      await press(page, t, t.locator('[data-param=n]'), 'ArrowRight', 6);
      await press(page, t, t.locator('[data-param=x0]'), 'ArrowLeft', 10);
      await press(page, t, t.locator('[data-param=alpha]'), 'ArrowUp');
      const v1 = await shown(t);
      assert(v1['bounds.mgen'] !== v0['bounds.mgen'], 'M_gen changes');
      let st = await state(page, 'bounds');
      eq(st.request.data.n, 398, 'n = 10^(log10 200 + 0.3), rounded');
      eq(st.request.x0, 0.4, 'x₀');
      eq(st.request.alpha, 0.01, 'α');
      const dir = workdir();
      const [scores] = await exported(page, { topic: 'bounds', ...st.request.data }, dir);
      const c = cli(['bounds', scores, '--alpha', '0.01', '--x', '0.4', '--plan-width', '0.05'], dir).result;
      eq(v1['bounds.mgen'] === undefined, false, 'shown');
      const v = await shown(t);
      eq(v['bounds.mgen'], fmt(c.general.upper[0]), 'M_gen(x₀)');
      eq(v['bounds.mean'], `[${fmt(c.expectation.lower)}, ${fmt(c.expectation.upper)}]`, 'E[X] bounds');
      // The Clopper–Pearson bound on Pr(X > x₀): the flags X > x₀ given to `lethe bounds` as 0/1 scores.
      const flags = st.result.scores.map((x) => (x > 0.4 ? 1 : 0));
      writeFileSync(path.join(dir, 'flags.json'), JSON.stringify(flags));
      const cb = cli(['bounds', 'flags.json', '--alpha', '0.01', '--x', '0.5'], dir).result;
      eq(v['bounds.cp'], `[${fmt(cb.binary.lower)}, ${fmt(cb.binary.upper)}]`, 'Clopper–Pearson interval');
      // The graded distribution's shape (p₀, k) and the seed: new scores, the same bounds as the CLI on them.
      await press(page, t, t.locator('[data-param=p0]'), 'ArrowLeft', 2);
      const vp0 = await shown(t);
      assert(vp0['bounds.true_tail'] !== v['bounds.true_tail'] && vp0['bounds.mean'] !== v['bounds.mean'], `p₀ changes the distribution (${v['bounds.true_tail']} → ${vp0['bounds.true_tail']})`);
      await press(page, t, t.locator('[data-param=k]'), 'ArrowRight', 3);
      const vk = await shown(t);
      assert(vk['bounds.true_tail'] !== vp0['bounds.true_tail'] && vk['bounds.mean'] !== vp0['bounds.mean'], `k changes the distribution (${vp0['bounds.true_tail']} → ${vk['bounds.true_tail']})`);
      await t.locator('[data-param=seed]').focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('5');
      await press(page, t, t.locator('[data-param=seed]'), 'Tab');
      st = await state(page, 'bounds');
      eq(st.request.data.p0, 0.5, 'p₀ by keyboard');
      eq(st.request.data.k, 1.8, 'k by keyboard');
      eq(st.request.data.seed, 5, 'seed typed');
      const [s5] = await exported(page, { topic: 'bounds', ...st.request.data }, dir);
      const c5 = cli(['bounds', s5, '--alpha', '0.01', '--x', '0.4'], dir).result;
      const v5 = await shown(t);
      eq(v5['bounds.mgen'], fmt(c5.general.upper[0]), 'M_gen(x₀) (p₀ 0.5, k 1.8, seed 5)');
      eq(v5['bounds.mean'], `[${fmt(c5.expectation.lower)}, ${fmt(c5.expectation.upper)}]`, 'E[X] bounds (p₀ 0.5, k 1.8, seed 5)');
      writeFileSync(path.join(dir, 'flags5.json'), JSON.stringify(st.result.scores.map((x) => (x > 0.4 ? 1 : 0))));
      const cb5 = cli(['bounds', 'flags5.json', '--alpha', '0.01', '--x', '0.5'], dir).result;
      eq(v5['bounds.cp'], `[${fmt(cb5.binary.lower)}, ${fmt(cb5.binary.upper)}]`, 'Clopper–Pearson interval (seed 5)');
      // Binary flags, one-sided (the paper's form).
      await press(page, t, t.locator('[data-param=family]'), 'ArrowDown');
      await t.locator('[data-param=one_sided]').focus();
      await press(page, t, t.locator('[data-param=one_sided]'), 'Space');
      st = await state(page, 'bounds');
      eq(st.request.data.family, 'flags', 'family');
      const [f2] = await exported(page, { topic: 'bounds', ...st.request.data }, dir);
      const c2 = cli(['bounds', f2, '--alpha', '0.01', '--x', '0.4', '--one-sided'], dir).result;
      const v2 = await shown(t);
      eq(v2['bounds.cp'], `≤ ${fmt(c2.binary.upper)}`, 'M_bin one-sided (X > 0.4 ⇔ leak)');
      eq(v2['bounds.mgen'], fmt(c2.general.upper[0]), 'M_gen one-sided');
      // The leak probability of the flags (shown only for binary flags).
      await press(page, t, t.locator('[data-param=p]'), 'ArrowRight', 3);
      st = await state(page, 'bounds');
      eq(st.request.data.p, 0.08, 'p by keyboard');
      const [f3] = await exported(page, { topic: 'bounds', ...st.request.data }, dir);
      const c3 = cli(['bounds', f3, '--alpha', '0.01', '--x', '0.4', '--one-sided'], dir).result;
      const v3 = await shown(t);
      assert(v3['bounds.true_tail'] !== v2['bounds.true_tail'], 'p changes the true leak probability');
      eq(v3['bounds.cp'], `≤ ${fmt(c3.binary.upper)}`, 'M_bin one-sided at p = 0.08');
      eq(v3['bounds.true_tail'], fmt(0.08), 'true Pr(X > x₀) = p');
      // The calculator: width and expected rate by keyboard, against the CLI's planner at the same rate.
      const planBefore = (await shown(t))['plan.binomial'];
      await press(page, t, t.locator('[data-param=plan_rate]'), 'ArrowRight', 10);
      const vp = await shown(t);
      assert(vp['plan.binomial'] !== planBefore, 'the binomial plan changes with the expected rate');
      const rate = Array.from({ length: 100 }, (_, i) => (i < 10 ? 1 : 0));
      writeFileSync(path.join(dir, 'rate.json'), JSON.stringify(rate));
      const cp = cli(['bounds', 'rate.json', '--alpha', '0.01', '--one-sided', '--plan-width', '0.05'], dir).result.plan;
      eq(vp['plan.dkw'], String(cp.dkw_n), 'DKW sample size');
      eq(vp['plan.binomial'], String(cp.binomial_n), 'Clopper–Pearson sample size at rate 0.1');
      // The band width asked of the planner.
      await press(page, t, t.locator('[data-param=plan_width]'), 'ArrowRight', 2);
      const vw = await shown(t);
      assert(vw['plan.dkw'] !== vp['plan.dkw'], 'the DKW plan changes with the width');
      const cw = cli(['bounds', 'rate.json', '--alpha', '0.01', '--one-sided', '--plan-width', '0.06'], dir).result.plan;
      eq(vw['plan.dkw'], String(cw.dkw_n), 'DKW sample size for ± 0.06');
      eq(vw['plan.binomial'], String(cw.binomial_n), 'Clopper–Pearson sample size for ± 0.06 at rate 0.1');
      await t.screenshot({ path: path.join(SHOTS, 'teach-bounds.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `M_gen(0.4) ${v['bounds.mgen']}, CP ${v['bounds.cp']}; plan ${vp['plan.dkw']} (DKW) / ${vp['plan.binomial']} (CP at 0.1)`;
    },
  },
  {
    name: 'every control of every topic, moved from the keyboard, redraws its figure and changes its numbers',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      // Paused for stable drawings; where the page took long to be ready (the seeds topic answered by the native CLI)
      // the null has already stopped growing.
      const pause = topic(page, 'hsic').getByRole('button', { name: 'Pause' });
      if (await pause.count()) await pause.click().catch(() => {});
      const moved = [];
      for (const [id, keys] of Object.entries(CONTROLS_BY_TOPIC)) {
        const t = topic(page, id);
        const present = await t.locator('[data-param]').evaluateAll((els) => els.map((e) => e.dataset.param));
        if (await t.locator('[data-role=threshold]').count()) present.push('threshold');
        eq(JSON.stringify([...present].sort()), JSON.stringify([...keys].sort()), `${id}: the controls this test moves are the topic's controls`);
        for (const key of keys) {
          const before = await fingerprint(t);
          const v = await move(page, t, key);
          const after = await fingerprint(t);
          assert(after.numbers !== before.numbers, `${id}/${key}: the numbers did not change (version ${v})`);
          if (!NUMBERS_ONLY[id]?.includes(key)) assert(after.figure !== before.figure, `${id}/${key}: the figure did not change`);
          else eq(after.figure, before.figure, `${id}/${key} changes numbers only (the figure stays)`);
          moved.push(`${id}/${key}`);
        }
      }
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${moved.length} controls, each redrew its topic: ${moved.join(' ')}`;
    },
  },
  {
    name: 'SDE “Where it fails”: the figures it quotes equal docs/sde-calibration.md’s table, and its link opens the doc',
    async fn({ context, base }) {
      const doc = readFileSync(path.join(ROOT, 'docs/sde-calibration.md'), 'utf8');
      // The controlled-F1 table: | data | representation | σ | |S| | apart | paper | nearest | calibrated | dispersion | confidence |
      const table = doc.slice(doc.indexOf('## Controlled F1'), doc.indexOf('\n## ', doc.indexOf('## Controlled F1') + 5));
      const rows = table.split('\n').filter((l) => /^\| (digits|mnist5k) \|/.test(l)).map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
      const mean = (cell) => Number(cell.split(' ± ')[0]);
      const digits = (rep, sigma) => rows.filter((r) => r[0] === 'digits' && r[1] === rep && (!sigma || r[2] === sigma));
      const pen = digits('penultimate');
      assert(pen.length === 2 && digits('softmax', 'sqrt_dim').length === 1, `digits rows of the table: ${rows.length}`);
      const penF1 = pen.flatMap((r) => [r[5], r[6], r[7]].map(mean));
      const soft = digits('softmax', 'sqrt_dim')[0];
      const want = {
        'penultimate.f1_min': Math.min(...penF1).toFixed(2),
        'penultimate.f1_max': Math.max(...penF1).toFixed(2),
        'penultimate.separation_max': Math.max(...pen.map((r) => mean(r[4]))).toFixed(2),
        'softmax.paper': mean(soft[5]).toFixed(2),
        'softmax.calibrated': mean(soft[7]).toFixed(2),
        'softmax.confidence': mean(soft[9]).toFixed(2),
      };
      const page = await teachPage(context, base);
      const box = topic(page, 'sde').locator('[data-role=fails]');
      const quoted = await box.locator('[data-quote]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.quote, e.textContent])));
      eq(JSON.stringify(quoted, Object.keys(want).sort()), JSON.stringify(want, Object.keys(want).sort()), 'quoted figures = the doc’s table');
      const [rep, key] = ['penultimate', 'f1_min'];
      eq(QUOTED[rep][key], want[`${rep}.${key}`], 'the module’s constant');
      const href = await box.locator('a[data-action=doc]').getAttribute('href');
      const res = await page.request.get(href);
      eq(res.status(), 200, `${href} is served with the site`);
      eq(await res.text(), doc, 'the linked doc is the one quoted');
      await box.screenshot({ path: path.join(SHOTS, 'teach-sde-fails.png') });
      return `quoted ${Object.entries(want).map(([k, v]) => `${k} ${v}`).join(', ')}`;
    },
  },
  {
    name: 'reduced motion: the HSIC null appears complete at once (no animation); with motion it grows step by step',
    async fn({ browser, base }) {
      const record = () => {
        window.__done = [];
        new MutationObserver(() => {
          const e = document.querySelector('#lethe-teach-hsic');
          if (e && e.dataset.done !== window.__done.at(-1)) window.__done.push(e.dataset.done);
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-done'] });
      };
      const run = async (reducedMotion) => {
        const context = await browser.newContext({ reducedMotion });
        try {
          await context.addInitScript(record);
          const page = await open(context, base, '/teach.html');
          await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 90000 });
          await page.waitForFunction(() => document.querySelector('#lethe-teach-hsic').dataset.complete === 'true', null, { timeout: 60000 });
          const seq = await page.evaluate(() => window.__done);
          const note = await page.getByText('Animation is off').count();
          const anim = await page.evaluate(() => getComputedStyle(document.querySelector('.lethe-teach-topic')).transitionDuration);
          let stepped = null;
          if (reducedMotion === 'reduce') {
            await shot(page, 'teach-reduced-motion.png');
            // Restart keeps the run at 0 so that it can be stepped through by hand.
            await page.locator('#lethe-teach-hsic [data-action=reset]').click();
            await page.waitForFunction(() => document.querySelector('#lethe-teach-hsic').dataset.done === '0');
            await page.locator('#lethe-teach-hsic [data-action=step]').click();
            await page.waitForFunction(() => document.querySelector('#lethe-teach-hsic').dataset.done === '1');
            stepped = await page.evaluate(() => document.querySelector('#lethe-teach-hsic').dataset.complete);
          }
          return { seq, note, anim, stepped, errors: page.errors };
        } finally {
          await context.close();
        }
      };
      const reduced = await run('reduce');
      eq(JSON.stringify(reduced.seq), JSON.stringify(['0', '999']), 'reduced motion: nothing between 0 and all shuffles');
      eq(reduced.note, 1, 'the page says the animation is off');
      eq(reduced.stepped, 'false', 'after Restart one shuffle can be stepped by hand');
      const moving = await run('no-preference');
      assert(moving.seq.length > 10, `with motion the null grows in steps (${moving.seq.length} states)`);
      eq(moving.note, 0, 'no note without the preference');
      assert(reduced.errors.length + moving.errors.length === 0, [...reduced.errors, ...moving.errors].join('; '));
      return `reduced: ${reduced.seq.join(' → ')}; with motion: ${moving.seq.length} intermediate states`;
    },
  },
  {
    name: 'teach.html at 375 px: no horizontal overflow, every topic usable',
    async fn({ context, base }) {
      const page = await teachPage(context, base, { width: 375 });
      const overflow = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, body: document.body.scrollWidth, view: window.innerWidth }));
      assert(overflow.doc <= overflow.view && overflow.body <= overflow.view, `horizontal overflow: ${JSON.stringify(overflow)}`);
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll('body *')]
          .filter((e) => (e.tagName.toLowerCase() === 'svg' || !e.closest('svg')) && !e.closest('.lethe-teach-table-scroll') && e.getClientRects().length && e.getBoundingClientRect().right > window.innerWidth + 1)
          .map((e) => `${e.tagName}.${e.getAttribute('class')} right=${Math.round(e.getBoundingClientRect().right)}`)
          .slice(0, 5),
      );
      assert(wide.length === 0, `elements past the right edge: ${wide.join(', ')}`);
      for (const id of ['hsic', 'sde', 'ranks', 'epsilon', 'bounds', 'mia', 'seeds', 'forget-quality']) {
        const t = topic(page, id);
        await t.scrollIntoViewIfNeeded();
        await t.screenshot({ path: path.join(SHOTS, `teach-375-${id}.png`) });
      }
      // Still operable at this width: a slider by keyboard redraws its figure.
      const t = topic(page, 'bounds');
      await press(page, t, t.locator('[data-param=x0]'), 'ArrowRight');
      return `scrollWidth ${overflow.doc} ≤ ${overflow.view}`;
    },
  },
  {
    name: 'every control on teach.html has an accessible name; the page links back to the widget and is linked from it',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const a = await unnamedControls(page);
      assert(a.unnamed.length === 0, `controls without a name: ${a.unnamed.join(', ')}`);
      for (const [role, name] of [['slider', 'Dependence strength s'], ['slider', 'Threshold t of the attack'], ['combobox', 'Model outputs'], ['checkbox', 'Round to halves (makes ties and zeros)'], ['button', 'Run the |S| and σ trends'], ['link', /Open this experiment in the SDE panel/]]) {
        assert((await page.getByRole(role, { name }).count()) > 0, `no ${role} named ${name}`);
      }
      // Every topic at its defaults (the HSIC null complete, the SDE trends run): docs/teach-*.png come from these.
      await page.locator('#lethe-teach-hsic [data-action=finish]').click();
      await page.waitForFunction(() => document.querySelector('#lethe-teach-hsic').dataset.complete === 'true');
      await page.locator('#lethe-teach-sde [data-action=sweep]').click();
      await page.waitForFunction(() => document.querySelector('[data-role=sweep]').dataset.done === 'true', null, { timeout: 240000 });
      await page.locator('#lethe-teach-sde [data-action=sweep]').blur();
      for (const id of Object.keys(CONTROLS_BY_TOPIC)) await topic(page, id).screenshot({ path: path.join(SHOTS, `teach-default-${id}.png`) });
      assert(page.errors.length === 0, page.errors.join('; '));
      const main = await open(context, base, '/?example=0');
      const link = main.getByRole('link', { name: /explained beside a live figure/ });
      await link.click();
      await main.waitForURL(/teach\.html$/);
      return `${a.total} controls, all named; index.html → teach.html`;
    },
  },
  {
    name: '<lethe-eval mode="teach" topic="hsic"> in a plain page: one topic, live, keyboard-operable, loading no example data',
    async fn({ context, base }) {
      const requests = [];
      context.on('request', (r) => requests.push(r.url()));
      await context.route((u) => u.href.startsWith(`${base}/plain-teach.html`), (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>Course notes</title>
            <script type="module" src="/src/lethe-eval.js"></script></head>
            <body style="font-family: serif; max-width: 760px; margin: 0 auto; padding: 12px"><h1>Week 3: independence tests</h1><p>Move the sliders below.</p>
            <lethe-eval id="t" mode="teach" topic="hsic"></lethe-eval><p>More text after the figure.</p></body></html>`,
        }),
      );
      const page = await open(context, base, '/plain-teach.html', { width: 800 });
      await page.waitForFunction(() => document.getElementById('t').shadowRoot?.querySelector('[data-topic=hsic]')?.dataset.version, null, { timeout: 60000 });
      eq(await page.locator('lethe-eval [data-topic]').count(), 1, 'exactly one topic');
      const t = page.locator('lethe-eval [data-topic=hsic]');
      await t.getByRole('button', { name: /Pause|Play/ }).first().click();
      const v0 = await shown(t);
      await press(page, t, t.locator('[data-param=strength]'), 'ArrowRight');
      const v1 = await shown(t);
      assert(v1['hsic.statistic'] !== v0['hsic.statistic'], 'the embedded figure updates');
      const run = await page.evaluate(() => document.getElementById('t').run().then(() => 'ran', (e) => e.message));
      assert(/no analysis to run/.test(run), `run() explains teach mode: ${run}`);
      // A misspelt topic says what the topics are (and fires `error`).
      const bad = await page.evaluate(() => new Promise((resolve) => {
        const el = document.createElement('lethe-eval');
        el.setAttribute('mode', 'teach');
        el.setAttribute('topic', 'hsci');
        el.addEventListener('error', (e) => resolve({ event: e.detail.message, shown: el.shadowRoot.querySelector('[role=alert]')?.textContent }));
        document.body.append(el);
      }));
      assert(/Unknown teaching topic “hsci”: use one of hsic, sde, ranks, epsilon, bounds/.test(bad.shown) && bad.event === bad.shown, `unknown topic: ${JSON.stringify(bad)}`);
      const data = requests.filter((u) => /data\/digits/.test(u));
      eq(data.length, 0, 'the HSIC topic alone fetches no example data');
      await shot(page, 'teach-embed.png', { fullPage: true });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `embedded topic updates; ${requests.length} requests while loading, none for example data`;
    },
  },
  {
    name: '<lethe-eval mode="teach"> from another origin under docs/teaching.md’s strict CSP (the SDE topic, which fetches the example)',
    async fn({ context }) {
      const server = await crossOrigin('sde');
      try {
        const page = await open(context, `http://localhost:${server.address().port}`, '/host.html', { width: 1100 });
        await page.waitForFunction(() => document.getElementById('t').shadowRoot?.querySelector('[data-topic=sde]')?.dataset.version, null, { timeout: 90000 });
        const t = page.locator('lethe-eval [data-topic=sde]');
        const v = await shown(t);
        assert(/^\d\.\d{6} \/ \d\.\d{6}$/.test(v['sde.jsd']), `JSDs shown: ${v['sde.jsd']}`);
        const csp = page.errors.filter((e) => /Content Security Policy/i.test(e));
        assert(csp.length === 0, `CSP violations: ${csp.join('; ')}`);
        assert(page.errors.length === 0, page.errors.join('; '));
        await page.locator('lethe-eval').screenshot({ path: path.join(SHOTS, 'teach-cross-origin-csp.png') });
        return `cross-origin SDE topic under the documented CSP: JSDs ${v['sde.jsd']}`;
      } finally {
        server.close();
      }
    },
  },
  {
    name: '“Try it on your data”: each hand-off link lands on its panel with the focus; SDE, epsilon and bounds open on the topic’s data and show the figure’s numbers',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const vs = await shown(topic(page, 'sde'));
      const ve = await shown(topic(page, 'epsilon'));
      const se = await state(page, 'epsilon');
      const vb = await shown(topic(page, 'bounds'));
      /** Opens a hand-off link and checks that the page lands on `panelId`: its heading focused and in view. */
      const landOn = async (p, panelId) => {
        await p.waitForFunction((id) => document.activeElement?.closest('section.lethe-panel')?.id === id, panelId, { timeout: 30000 }).catch(async (e) => {
          const at = await p.evaluate(() => ({ url: location.href, active: `${document.activeElement?.tagName}#${document.activeElement?.id}`, landed: [...document.querySelectorAll('[data-landed]')].map((x) => x.id) }));
          throw new Error(`${panelId} not focused: ${JSON.stringify(at)}; ${p.errors.join('; ')} (${e.message.split('\n')[0]})`);
        });
        const where = await p.evaluate((id) => {
          const head = document.getElementById(id).querySelector('h2');
          const r = head.getBoundingClientRect();
          return { focused: document.activeElement === head, top: r.top, bottom: r.bottom, view: innerHeight };
        }, panelId);
        assert(where.focused && where.top >= -1 && where.bottom <= where.view, `${panelId}: heading focused and in view (${JSON.stringify(where)})`);
      };
      const follow = async (id, action = 'handoff', panelId = `lethe-${id}`) => {
        const href = await topic(page, id).locator(`[data-action=${action}]`).getAttribute('href');
        const p = await open(context, base, href.replace(base, ''));
        await landOn(p, panelId);
        return p;
      };
      const ran = async (p, id) => {
        const panel = p.locator(`#lethe-${id}`);
        await panel.locator('.lethe-progress-text').filter({ hasText: /done in|failed/ }).waitFor({ timeout: 60000 });
        eq(await panel.locator('.lethe-progress-text').textContent().then((s) => /done in/.test(s)), true, `${id} panel ran`);
        await landOn(p, `lethe-${id}`);
        const values = await panel.locator('[data-value]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.value, e.textContent])));
        assert(p.errors.length === 0, p.errors.join('; '));
        return { p, panel, values };
      };
      const sde = await ran(await follow('sde'), 'sde');
      eq(`${sde.values['sde.jsd_it']} / ${sde.values['sde.jsd_oot']}`, vs['sde.jsd'], 'SDE panel shows the figure’s JSDs');
      await shot(sde.p, 'teach-handoff-sde.png');
      // Epsilon: the panel scores the figure's two samples as one forget example; each variant's ε (from the panel's
      // JSON report), its points (the forgetting quality of one example) and ε_max are the figure's.
      const eps = await ran(await follow('epsilon'), 'epsilon');
      const report = await downloadJson(eps.p, eps.panel.locator('[data-action="export-json"]'));
      const figure = { official: [se.view.official, ve['eps.official']], exhaustive: [se.view.exhaustive, ve['eps.exhaustive']], high_probability: [se.view.clopper_pearson, ve['eps.cp']] };
      for (const r of report.result.results) {
        const [want, text] = figure[r.variant.kind];
        eq(r.per_example.length, 1, `${r.variant.kind}: one forget example`);
        const got = num(r.per_example[0].epsilon);
        assert(Object.is(got, num(want.epsilon)), `${r.variant.kind}: ε ${got} in the panel, ${num(want.epsilon)} in the figure`);
        eq(num(r.per_example[0].epsilon) === Infinity ? '∞ (perfect separation)' : fmt(r.per_example[0].epsilon), text, `${r.variant.kind}: ε as the figure shows it`);
        eq(eps.values[`eps.${r.variant.kind}.F`], fmt(want.points), `${r.variant.kind}: the example's points are the forgetting quality`);
        eq(eps.values[`eps.${r.variant.kind}.eps_max`], fmt(se.view.eps_max), `${r.variant.kind}: ε_max`);
      }
      eq(report.result.results.find((r) => r.variant.kind === 'high_probability').variant.alpha, 0.05, 'the figure’s α');
      const bounds = await ran(await follow('bounds'), 'bounds');
      eq(bounds.values['bounds.m_gen.0'], vb['bounds.mgen'], 'bounds panel M_gen at the figure’s x₀');
      // HSIC and the rank tests have no panel of their own: the hand-off says which panel uses the statistic on your
      // data and lands there (focused), on the built-in example's results.
      const text = async (id) => topic(page, id).locator('.lethe-teach-handoff-box').textContent();
      assert(/HSIC between the subset’s two halves/.test(await text('hsic')), 'the HSIC hand-off says what the SDE panel computes');
      const rt = await text('ranks');
      assert(/SDE panel runs a one-sided Mann–Whitney test/.test(rt) && /RULER panel runs Wilcoxon signed-rank across runs/.test(rt), 'the ranks hand-off says what each panel computes');
      const hsic = await follow('hsic', 'handoff', 'lethe-sde');
      await waitExample(hsic);
      await landOn(hsic, 'lethe-sde');
      assert(/^\d\.\d{6}$/.test(await hsic.locator('#lethe-sde [data-value="sde.jsd_it"]').textContent()), 'the SDE panel shows HSIC distributions of the example');
      await shot(hsic, 'teach-handoff-hsic.png');
      const mw = await follow('ranks', 'handoff', 'lethe-sde');
      await waitExample(mw);
      await landOn(mw, 'lethe-sde');
      assert((await mw.locator('#lethe-sde [data-value="sde.separation"]').count()) === 1, 'the SDE panel shows its Mann–Whitney separation test');
      const wil = await follow('ranks', 'handoff-ruler', 'lethe-ruler');
      await waitExample(wil);
      await landOn(wil, 'lethe-ruler');
      assert(/Wilcoxon across runs/.test(await wil.locator('#lethe-ruler').textContent()), 'the RULER panel says where Wilcoxon comes in');
      await shot(wil, 'teach-handoff-ruler.png');
      for (const p of [hsic, mw, wil]) assert(p.errors.length === 0, p.errors.join('; '));
      return `SDE ${vs['sde.jsd']}; epsilon ${ve['eps.official']} / ${ve['eps.exhaustive']} / ${ve['eps.cp']} = panel; bounds M_gen ${vb['bounds.mgen']}; HSIC → SDE, ranks → SDE and RULER, focused`;
    },
  },
];
