// 8. Teaching mode (teach.html, <lethe-eval mode="teach">): every topic's controls driven from the keyboard (and the
//    epsilon threshold with the mouse), the figure and its numbers updating, and the displayed numbers compared with
//    the CLI (`lethe hsic`, `sde`, `calibrate`, `mwu`, `wilcoxon`, `epsilon`, `bounds`) on the same data — the topic's
//    data fetched from the worker's `export` request and written as .npy, or the digits example's rows. Also:
//    reduced motion, 375 px, one topic embedded in a plain page, every control named, and the hand-off links.
import { copyFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { DEMO, SHOTS, SITE, assert, cli, compare, eq, fmt, num, open, shot, workdir } from './lib.mjs';

// Same inputs, same numbers — up to the last bits where a derived number cancels: the kernels are built with the
// platform's SIMD (wasm simd128 here, AVX-512 in the CLI), so entries can differ in the last ulp, and the exact
// shuffle moments, their variances and the reference classes' separation subtract nearly equal sums (a centred
// kernel's total is rounding noise); the shuffled HSIC values of 10-d softmax outputs differ in the last bits too.
// Up to 4e-11 relative was observed; the displayed (6-decimal) numbers are compared exactly.
const DERIVED_REL = 1e-9;

const CONTROLS = new Set(['button', 'textbox', 'combobox', 'checkbox', 'slider', 'spinbutton', 'link', 'listbox', 'radio', 'switch']);

async function teachPage(context, base, { width = 1280, reduced = false, path: p = '/teach.html' } = {}) {
  if (reduced) await context.close().catch(() => {});
  const page = await open(context, base, p, { width });
  if (reduced) await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 90000 });
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
    name: 'SDE: controls by keyboard; distributions, pair verdicts and the calibrated verdict equal `lethe sde` and `lethe calibrate`',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page, 'sde');
      const v0 = await shown(t);
      await press(page, t, t.locator('[data-param=size]'), 'ArrowLeft', 4);
      await press(page, t, t.locator('[data-param=references]'), 'ArrowLeft', 6);
      await press(page, t, t.locator('[data-param=shuffles]'), 'ArrowLeft', 2);
      await press(page, t, t.locator('[data-param=model]'), 'ArrowDown');
      const v1 = await shown(t);
      assert(v1['sde.jsd'] !== v0['sde.jsd'], 'the verdict numbers change');
      const st = await state(page, 'sde');
      const r = st.request;
      eq(r.size, 60, '|S| by keyboard');
      eq(r.references, 4, 'R by keyboard');
      eq(r.shuffles, 100, 'T by keyboard');
      eq(r.model, 'retrained', 'model by keyboard');
      const dir = workdir();
      copyFileSync(path.join(DEMO, 'softmax.npz'), path.join(dir, 'softmax.npz'));
      const data = r.representation === 'softmax' ? `softmax.npz#${r.model}` : `act_${r.model}.npy`;
      const cal = cli(['calibrate', '--data', data, '--it-pool', '144..344', '--oot-pool', '544..744', '--draw-from', '0..144', '--draw', '1', '--size', String(r.size), '--refs', String(r.references), '--paper-shuffles', String(r.shuffles), '--sigma', 'sqrt_dim', '--seed', String(r.seed)], dir).result;
      // Same subsets, same numbers (the target's name differs: the page calls it `target`).
      const c = compare(st.result.calibrated, cal, { rel: DERIVED_REL, ignore: ['$.backend.device', '$.targets[0].name'] });
      assert(c.diffs.length === 0, `calibrated report differs from the CLI:\n${c.diffs.slice(0, 6).join('\n')}`);
      const rows = (list) => `${data}@${list.join(',')}`;
      const sde = cli(['sde', '--it', rows(cal.in_training.subsets[0]), '--oot', rows(cal.out_of_training.subsets[0]), '--target', rows(st.result.target_rows), '--shuffles', String(r.shuffles), '--seed', String(r.seed)], dir).result;
      const s = compare(st.result.sde, sde, { rel: DERIVED_REL, abs: 1e-10, absPaths: /kernels\.(kc|l)_sums\./, ignore: ['$.backend.device', '$.targets[0].name'] });
      assert(s.diffs.length === 0, `SDE report differs from the CLI:\n${s.diffs.slice(0, 6).join('\n')}`);
      const v = await shown(t);
      const vt = sde.targets[0].verdict;
      eq(v['sde.jsd'], `${fmt(vt.jsd_target_it)} / ${fmt(vt.jsd_target_oot)}`, 'displayed JSDs');
      eq(v['sde.paper'], `Paper’s verdict (first reference pair): ${vt.in_training ? 'in training' : 'out of training'}`, 'paper verdict');
      eq(v['sde.exact_mean'], fmt(cal.targets[0].stats.moments.mean), 'exact mean');
      eq(v['sde.z'], fmt(cal.targets[0].score), 'calibrated score');
      eq(v['sde.class_separation'], `${fmt(cal.rule.separation)} sds`, 'class separation');
      eq(v['sde.separation_p'], fmt(sde.reference_separation.p_value), 'Mann–Whitney separation');
      const call = { in_training: 'in training', out_of_training: 'out of training', inconclusive: 'inconclusive' }[cal.targets[0].calibrated];
      eq(v['sde.calibrated'], `Calibrated verdict: ${call}`, 'calibrated verdict');
      eq(v['sde.pairs_in'], `${st.result.pairs.filter((p) => p.in_training).length} of 4`, 'pair tally');
      eq(st.result.pairs_in_training, st.result.pairs.filter((p) => p.in_training).length, 'tally from the worker');
      eq(st.result.pairs[0].jsd_target_it, vt.jsd_target_it, 'first pair = sde');
      await t.screenshot({ path: path.join(SHOTS, 'teach-sde.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${c.compared + s.compared} numbers of calibrate + sde equal the CLI (${c.inexact + s.inexact} in the last bits, max rel ${Math.max(c.maxRel, s.maxRel).toExponential(1)}, e.g. ${[...c.inexactPaths.slice(0, 2), ...s.inexactPaths.slice(0, 2)].join(', ')}); z = ${v['sde.z']}`;
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
        const c = cli(['calibrate', '--data', data, '--it-pool', '144..344', '--oot-pool', '544..744', '--draw-in', '344..544', '--draw-out', '0..144', '--draw', '10', '--size', String(cell.size), '--refs', '10', '--paper-shuffles', '100', '--sigma', sigma, '--seed', String(r.seed)], dir).result;
        for (const s of c.summaries) {
          const got = cell.f1.find(([rule]) => rule === s.rule);
          eq(got && got[1], s.f1 ? s.f1.f1 : null, `F1 of ${s.rule} at |S| = ${cell.size}, σ = ${sigma}`);
        }
        const rel = Math.abs(cell.separation - c.rule.separation) / Math.abs(c.rule.separation);
        assert(rel <= DERIVED_REL, `class separation ${cell.separation} vs ${c.rule.separation} (rel ${rel})`);
      }
      const lines = await t.locator('[data-role=sweep] svg path.lethe-line').count();
      assert(lines >= 4, `F1 curves drawn (${lines})`);
      await t.locator('[data-role=sweep]').screenshot({ path: path.join(SHOTS, 'teach-sde-trends.png') });
      // Stop works: a new run stopped at once leaves the note saying so and the button usable.
      await t.locator('[data-action=sweep]').click();
      await t.locator('[data-action=stop-sweep]').click();
      assert(await t.locator('[data-action=sweep]').isEnabled(), 'sweep can be run again');
      await t.getByText(/^Stopped after \d+ of 14 cells\.$/).waitFor();
      const f1 = st.sweep.size.map((c) => c.f1.find(([q]) => q === 'calibrated')[1].toFixed(2)).join(' ');
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
      const view = st.view;
      const check = async (label) => {
        const s = await state(page, 'epsilon');
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
      await t.screenshot({ path: path.join(SHOTS, 'teach-bounds.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `M_gen(0.4) ${v['bounds.mgen']}, CP ${v['bounds.cp']}; plan ${vp['plan.dkw']} (DKW) / ${vp['plan.binomial']} (CP at 0.1)`;
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
      for (const id of ['hsic', 'sde', 'ranks', 'epsilon', 'bounds']) {
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
      await context.route(`${base}/plain-teach.html`, (route) =>
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
    name: '“Try it on your data”: each hand-off link opens its panel on the topic’s data and the panel shows the figure’s numbers',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const vs = await shown(topic(page, 'sde'));
      const ve = await shown(topic(page, 'epsilon'));
      const vb = await shown(topic(page, 'bounds'));
      const follow = async (id) => {
        const href = await topic(page, id).locator('[data-action=handoff]').getAttribute('href');
        const p = await open(context, base, href.replace(base, ''));
        const panel = p.locator(`#lethe-${id}`);
        await panel.locator('.lethe-progress-text').filter({ hasText: /done in|failed/ }).waitFor({ timeout: 60000 });
        eq(await panel.locator('.lethe-progress-text').textContent().then((s) => /done in/.test(s)), true, `${id} panel ran`);
        const values = await panel.locator('[data-value]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.value, e.textContent])));
        assert(p.errors.length === 0, p.errors.join('; '));
        return { p, values };
      };
      const sde = await follow('sde');
      eq(`${sde.values['sde.jsd_it']} / ${sde.values['sde.jsd_oot']}`, vs['sde.jsd'], 'SDE panel shows the figure’s JSDs');
      await shot(sde.p, 'teach-handoff-sde.png');
      const eps = await follow('epsilon');
      const official = await eps.p.locator('#lethe-epsilon').getByText('Forgetting quality F').count();
      assert(official > 0, 'epsilon panel shows its results');
      const bounds = await follow('bounds');
      eq(bounds.values['bounds.m_gen.0'], vb['bounds.mgen'], 'bounds panel M_gen at the figure’s x₀');
      return `SDE ${vs['sde.jsd']}; epsilon official ${ve['eps.official']}; bounds M_gen ${vb['bounds.mgen']}`;
    },
  },
];
