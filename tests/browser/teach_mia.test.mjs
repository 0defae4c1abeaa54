// Teaching mode, membership-audit topic (issue 13, item 5): every control moved from the keyboard (and the threshold
// dragged with the mouse on the histogram), the figures redrawn, and the displayed numbers equal to `lethe mia` on
// the topic's data (exported by the worker as .npy): AUC, DeLong's interval, each rule's TPR and realized FPR at the
// target, LeakPro's Clopper–Pearson intervals; the threshold's counts equal the rows at or above it. Nothing inside
// the figures is focusable (they are images); `<lethe-eval mode="teach" topic="mia">` works on its own.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SHOTS, assert, cli, downloadJson, eq, fmt, open, shot, workdir } from './lib.mjs';

const topic = (page) => page.locator('#lethe-teach-mia');
const version = (t) => t.evaluate((e) => Number(e.dataset.version || 0));

async function teachPage(context, base) {
  const page = await open(context, base, '/teach.html', { width: 1280 });
  await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 90000 });
  return page;
}

/** Waits until the topic has redrawn past version `v` and is not busy. */
function redrawn(t, v) {
  return t.evaluate((e, before) => new Promise((resolve, reject) => {
    const stop = setTimeout(() => reject(new Error(`no redraw after ${before}`)), 30000);
    const check = () => (Number(e.dataset.version || 0) > before && !e.hasAttribute('aria-busy') ? (clearTimeout(stop), resolve()) : setTimeout(check, 25));
    check();
  }), v);
}

async function press(page, t, control, key, times = 1) {
  const before = await version(t);
  await control.focus();
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
  await redrawn(t, before);
}

async function shown(t) {
  await t.evaluate((e) => new Promise((resolve) => {
    const check = () => (e.hasAttribute('aria-busy') ? setTimeout(check, 25) : setTimeout(resolve, 150));
    check();
  }));
  return t.locator('[data-value]').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.value, e.textContent])));
}

const state = (page) => page.evaluate(() => JSON.parse(JSON.stringify(window.letheTeach.topics.mia.state())));

/** The topic's scores as .npy files (the worker's `export`), written into `dir`; also their values. */
async function exported(page, data, dir) {
  const files = await page.evaluate(async (r) => {
    const f = await window.letheTeach.engine.request('teach', { topic: 'export', request: { topic: 'mia', ...r } });
    return f.map((x) => ({ name: x.name, bytes: Array.from(x.bytes) }));
  }, data);
  return files.map((f) => {
    writeFileSync(path.join(dir, f.name), Buffer.from(f.bytes));
    return f.name;
  });
}

/** The float64 values of a little-endian .npy written by the worker. */
function readNpy(file) {
  const b = readFileSync(file);
  const header = b.readUInt16LE(8);
  const start = 10 + header;
  return Array.from({ length: (b.length - start) / 8 }, (_, i) => b.readDoubleLE(start + 8 * i));
}

const ci = (i) => `[${fmt(i.lo)}, ${fmt(i.hi)}]`;

/** The topic's numbers against `lethe mia --rule all` on its exported data. */
async function compareWithCli(page, t, dir, label) {
  const st = await state(page);
  const v = await shown(t);
  const [fm, fn] = await exported(page, st.request.data, dir);
  const target = st.request.target_fpr;
  const c = cli(['mia', fm, fn, '--fpr', String(target), '--rule', 'all'], dir).result;
  eq(v['mia.auc'], fmt(c.summary.auc), `${label}: AUC`);
  eq(v['mia.delong'], ci(c.delong.interval), `${label}: DeLong interval`);
  for (const r of c.tpr_at_fpr) {
    eq(v[`mia.rule.${r.rule}`], fmt(r.tpr), `${label}: ${r.rule} TPR at ${target}`);
    eq(v[`mia.rule_fpr.${r.rule}`], fmt(r.realized_fpr), `${label}: ${r.rule} realized FPR`);
  }
  const lp = c.tpr_at_fpr.find((r) => r.rule === 'leakpro');
  eq(v['mia.tpr_at_target'], `${fmt(lp.tpr)} ${ci(lp.tpr_interval)}`, `${label}: LeakPro TPR with its interval`);
  eq(v['mia.realized_fpr'], `${fmt(lp.realized_fpr)} ${ci(lp.fpr_interval)}`, `${label}: realized FPR with its interval`);
  // The threshold's counts: the exported rows at or above t.
  const tv = st.result.threshold.threshold;
  const m = readNpy(path.join(dir, fm));
  const n = readNpy(path.join(dir, fn));
  eq(st.result.threshold.tp, m.filter((x) => x >= tv).length, `${label}: members at or above t`);
  eq(st.result.threshold.fp, n.filter((x) => x >= tv).length, `${label}: non-members at or above t`);
  eq(m.length, st.request.data.n_members, `${label}: n₁`);
  eq(n.length, st.request.data.n_non_members, `${label}: n₀`);
  return { v, c, st };
}

export const tests = [
  {
    name: 'membership audit: controls by keyboard, the threshold dragged on the histogram; the numbers equal `lethe mia`; nothing focusable inside the figures',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page);
      await t.scrollIntoViewIfNeeded();
      const dir = workdir();
      // At the defaults (3000 non-members, target 1e-3): the threshold starts at LeakPro's, its FPR ≤ the target.
      const d = await compareWithCli(page, t, dir, 'defaults');
      assert(d.st.result.threshold.fpr <= 1e-3, `the first threshold realizes FPR ≤ 1e-3: ${d.st.result.threshold.fpr}`);
      eq(d.v['mia.expected_fp'], '3', 'about 3 false positives at 1e-3 with 3000 non-members');
      eq(Number(d.v['mia.t']), Number(await t.locator('[data-param=score_threshold]').inputValue()), 'the threshold shown is the slider’s');
      const same = d.st.result.truth;
      assert(same.tpr_at_target > 10 * same.equal_variance_tpr_at_target, `same AUC, far more TPR at 1e-3: ${same.tpr_at_target} vs ${same.equal_variance_tpr_at_target}`);
      await t.screenshot({ path: path.join(SHOTS, 'teach-mia.png') });

      // Keyboard: shift, spread, the sizes, the target and the threshold.
      await press(page, t, t.locator('[data-param=shift]'), 'ArrowRight', 4);
      await press(page, t, t.locator('[data-param=spread]'), 'ArrowLeft', 3);
      await press(page, t, t.locator('[data-param=n_non_members]'), 'ArrowDown');
      await press(page, t, t.locator('[data-param=target_fpr]'), 'ArrowUp');
      const before = Number(await t.locator('[data-param=score_threshold]').inputValue());
      await press(page, t, t.locator('[data-param=score_threshold]'), 'ArrowLeft', 6);
      let st = await state(page);
      eq(st.request.data.shift, 0.7, 'shift moved by keyboard');
      eq(st.request.data.spread, 1.7, 'spread moved by keyboard');
      eq(st.request.data.n_non_members, 10000, 'n₀ chosen by keyboard');
      eq(st.request.target_fpr, 0.0001, 'target chosen by keyboard');
      eq(Number(st.request.threshold.toFixed(2)), Number((before - 0.3).toFixed(2)), 'threshold moved by keyboard');
      const k = await compareWithCli(page, t, dir, 'after the keyboard');
      // 1e-4 with 10000 non-members: one false positive at most; the realized FPR is shown beside the TPR.
      eq(k.v['mia.expected_fp'], '1', 'n₀ × target');

      // The mouse: a drag on the histogram moves the threshold (and the slider with it).
      const hist = t.locator('figure').first().locator('svg');
      const box = await hist.boundingBox();
      const v0 = await version(t);
      await page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.6);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.35, box.y + box.height * 0.6, { steps: 5 });
      await page.mouse.up();
      await redrawn(t, v0);
      st = await state(page);
      const slider = Number(await t.locator('[data-param=score_threshold]').inputValue());
      eq(Number(st.request.threshold.toFixed(2)), Number(slider.toFixed(2)), 'the drag moved the slider');
      assert(Math.abs(st.request.threshold - k.st.request.threshold) > 0.1, `the drag moved t: ${k.st.request.threshold} → ${st.request.threshold}`);
      await compareWithCli(page, t, dir, 'after the drag');

      // Keyboard users reach every control; the figures are images with nothing focusable inside.
      const inside = await t.locator('svg [tabindex], svg a, svg [role=slider]').count();
      eq(inside, 0, 'focusable elements inside the figures');
      const roles = await t.locator('figure svg').evaluateAll((els) => els.map((e) => e.getAttribute('role')));
      assert(roles.length === 3 && roles.every((r) => r === 'img'), `three figures, each an image: ${roles}`);
      await t.locator('[data-param=seed]').focus();
      await page.keyboard.press('Control+A');
      await page.keyboard.type('4');
      await press(page, t, t.locator('[data-param=seed]'), 'Tab');
      const s4 = await compareWithCli(page, t, dir, 'seed 4');
      eq(s4.st.request.data.seed, 4, 'seed typed');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `defaults: AUC ${d.v['mia.auc']} ${d.v['mia.delong']}, LeakPro TPR at 1e-3 ${d.v['mia.tpr_at_target']} (realized ${d.v['mia.realized_fpr']}); true TPR ${same.tpr_at_target.toFixed(4)} vs ${same.equal_variance_tpr_at_target.toFixed(4)} at the same AUC; keyboard, drag and seed all equal the CLI`;
    },
  },
  {
    name: 'membership audit: “Try it on your data” opens the Membership audit panel on the figure’s scores (focused) with its AUC and TPR at the target',
    async fn({ context, base }) {
      const page = await teachPage(context, base);
      const t = topic(page);
      await press(page, t, t.locator('[data-param=spread]'), 'ArrowLeft', 2);
      await press(page, t, t.locator('[data-param=target_fpr]'), 'ArrowDown');
      const v = await shown(t);
      const st = await state(page);
      const href = await t.locator('[data-action=handoff]').getAttribute('href');
      const p = await open(context, base, href.replace(base, ''));
      const panel = p.locator('#lethe-mia');
      await panel.locator('.lethe-progress-text').filter({ hasText: /done in|failed/ }).waitFor({ timeout: 60000 });
      assert(/done in/.test(await panel.locator('.lethe-progress-text').textContent()), 'the panel ran');
      await p.waitForFunction(() => document.activeElement?.closest('section.lethe-panel')?.id === 'lethe-mia', null, { timeout: 30000 });
      const report = await downloadJson(p, panel.locator('[data-action="export-json"]'));
      eq(fmt(report.result.summary.auc), v['mia.auc'], 'the panel’s AUC is the figure’s');
      eq(report.result.summary.n_non_members, st.request.data.n_non_members, 'the figure’s non-members');
      for (const r of report.result.tpr_at_fpr) {
        eq(r.target_fpr, st.request.target_fpr, 'the figure’s target FPR');
        eq(fmt(r.tpr), v[`mia.rule.${r.rule}`], `${r.rule}: the figure’s TPR`);
        eq(fmt(r.realized_fpr), v[`mia.rule_fpr.${r.rule}`], `${r.rule}: the figure’s realized FPR`);
      }
      await p.locator('#lethe-mia').screenshot({ path: path.join(SHOTS, 'teach-handoff-mia.png') });
      assert(p.errors.length === 0, p.errors.join('; '));
      return `panel AUC ${fmt(report.result.summary.auc)} = figure; ${report.result.tpr_at_fpr.length} rules at ${st.request.target_fpr}`;
    },
  },
  {
    name: '<lethe-eval mode="teach" topic="mia"> in a plain page: one topic, live from the keyboard',
    async fn({ context, base }) {
      await context.route((u) => u.href.startsWith(`${base}/plain-mia.html`), (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>Auditing notes</title>
            <script type="module" src="/src/lethe-eval.js"></script></head>
            <body style="font-family: serif; max-width: 900px; margin: 0 auto; padding: 12px"><h1>Reading an ROC at low FPR</h1>
            <lethe-eval id="t" mode="teach" topic="mia"></lethe-eval></body></html>`,
        }),
      );
      const page = await open(context, base, '/plain-mia.html', { width: 960 });
      await page.waitForFunction(() => document.getElementById('t').shadowRoot?.querySelector('[data-topic=mia]')?.dataset.version, null, { timeout: 60000 });
      eq(await page.locator('lethe-eval [data-topic]').count(), 1, 'exactly one topic');
      const t = page.locator('lethe-eval [data-topic=mia]');
      const v0 = await shown(t);
      await press(page, t, t.locator('[data-param=spread]'), 'ArrowRight', 2);
      const v1 = await shown(t);
      assert(v1['mia.auc'] !== v0['mia.auc'], `the embedded figure updates (${v0['mia.auc']} → ${v1['mia.auc']})`);
      await shot(page, 'teach-embed-mia.png', { fullPage: true });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `embedded: AUC ${v0['mia.auc']} → ${v1['mia.auc']}`;
    },
  },
];
