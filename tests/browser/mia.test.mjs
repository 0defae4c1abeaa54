// The Membership audit panel (issue 13): two score .npy files written here are picked into the panel, the audit runs
// (DeLong and a seeded bootstrap, every TPR-at-FPR rule), and
//   * the headline shown is the layer's, first among the results, and a warning about an input (too few
//     non-members for the lowest target FPR) is shown next to that input;
//   * the exported JSON report equals `target/release/lethe mia … --json` on the same files: `result`, `inputs`,
//     `parameters`, `headline`, `warnings`, version, command, seed (numbers exactly; the bootstrap's resamples do not
//     depend on the thread count);
//   * the log–log ROC is drawn with a Clopper–Pearson interval at each target FPR, and the table has a row per
//     (rule, target FPR);
//   * bad inputs give their message next to the input: a NaN score (members), and labels of one class only (labels).
// A screenshot of the panel with its results goes to target/screenshots/mia-panel.png.
import path from 'node:path';
import { ROOT, SHOTS, assert, cli, compare, downloadJson, eq, fmt, npy, num, open, rng, runDone, shot, slot, values, waitExample, waitRun, workdir, write } from './lib.mjs';
import { EXAMPLE } from '../../www/src/panels/mia.js';

/** n normal draws (Box–Muller on the seeded generator), shifted by `mu`, rounded to 3 decimals (so some tie). */
function normals(u, n, mu) {
  const out = [];
  while (out.length < n) {
    const r = Math.sqrt(-2 * Math.log(1 - u()));
    const t = 2 * Math.PI * u();
    out.push(Math.round((mu + r * Math.cos(t)) * 1000) / 1000);
  }
  return out;
}

async function miaPanel(page) {
  const mia = page.locator('#lethe-mia[data-panel]');
  await mia.waitFor({ timeout: 30000 });
  return mia;
}

export const tests = [
  {
    name: 'membership audit (two score files, DeLong + bootstrap, every rule) equals `lethe mia --json`; headline, warning at its input, log-log ROC',
    async fn({ context, base }) {
      const dir = workdir();
      const u = rng(13);
      write(dir, 'members.npy', npy(normals(u, 2000, 0.6), [2000]));
      write(dir, 'non_members.npy', npy(normals(u, 3000, 0), [3000]));
      const page = await open(context, base, '/?example=0');
      const mia = await miaPanel(page);
      await slot(mia, 'members').pick(path.join(dir, 'members.npy'));
      await slot(mia, 'non_members').pick(path.join(dir, 'non_members.npy'));
      await slot(mia, 'non_members').status().filter({ hasText: '3000 × 1' }).waitFor({ timeout: 15000 });
      await mia.locator('[data-param=ci]').selectOption('both');
      await mia.locator('[data-param=resamples]').fill('300');
      await mia.locator('[data-param=seed]').fill('5');
      await mia.locator('[data-param=rule]').selectOption('all');
      await runDone(mia);
      const report = await downloadJson(page, mia.locator('[data-action="export-json"]'));
      const c = cli(['mia', 'members.npy', 'non_members.npy', '--ci', 'both', '--resamples', '300', '--seed', '5', '--rule', 'all'], dir);
      // wasm32's libm (exp/ln) and glibc's may differ in the last ulp (PARITY_REL, as in cli_parity.test.mjs); the
      // Clopper–Pearson bounds invert the beta distribution iteratively, which can carry such an ulp further
      // (observed: 9.8e-13 relative on a lower bound of 1.2e-4), so they get their own tolerance, reported.
      const r = compare(report.result, c.result, { rel: 1e-12, loose: { re: /tpr_at_fpr\[\d+\]\.(tpr|fpr)_interval\.(lo|hi)$/, rel: 1e-9 }, at: 'mia.result' });
      assert(r.diffs.length === 0, `result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
      for (const k of ['inputs', 'parameters']) {
        const d = compare(report[k], c[k], { at: `mia.${k}` });
        assert(d.diffs.length === 0, `${k} differ from the CLI:\n${d.diffs.slice(0, 8).join('\n')}`);
      }
      eq(JSON.stringify(report.headline), JSON.stringify(c.headline), 'headline');
      eq(JSON.stringify(report.warnings), JSON.stringify(c.warnings), 'warnings');
      eq(report.lethe_version, c.lethe_version, 'version');
      eq(report.command, 'mia', 'command');
      eq(report.seed, c.seed, 'seed');
      eq(report.cli_equivalent.split(' ').slice(0, 4).join(' '), 'lethe mia members.npy non_members.npy', 'cli line');
      assert(c.result.bootstrap && c.result.bootstrap.resamples_done === 300, 'the bootstrap ran every resample');

      // The headline first, as the layer wrote it; the warning about the non-members next to that input.
      const v = await values(mia);
      eq(v['headline.text'], c.headline.text, 'headline shown');
      const first = await mia.locator('.lethe-results > *').first().getAttribute('data-value');
      eq(first, 'headline', 'the headline comes first');
      const w = c.warnings.find((x) => x.code === 'fpr_below_resolution');
      assert(w && w.input === 'non_members', `the CLI warns that 3000 non-members do not resolve FPR 1e-4: ${JSON.stringify(c.warnings)}`);
      await mia.locator('[data-check-for="non_members"] [data-code="fpr_below_resolution"]').waitFor({ timeout: 5000 });

      // The plot: the ROC line and one Clopper–Pearson point per (rule, target FPR); the table has the same rows.
      await mia.locator('svg.lethe-plot path[data-name="roc"]').first().waitFor({ timeout: 5000 });
      const points = await mia.locator('g.lethe-cp').count();
      eq(points, c.result.tpr_at_fpr.length, 'interval points on the plot');
      const rows = await mia.locator('[data-value="mia.tpr_at_fpr"] tbody tr').count();
      eq(rows, c.result.tpr_at_fpr.length, 'table rows');
      const leak = c.result.tpr_at_fpr.find((t) => t.rule === 'leakpro' && t.target_fpr === 0.01);
      const shown = await mia.locator('[data-tpr="leakpro.0.01"]').textContent();
      eq(shown, fmt(num(leak.tpr)), 'TPR at FPR 0.01 (LeakPro) shown');
      const png = path.join(SHOTS, 'mia-panel.png');
      await page.setViewportSize({ width: 1280, height: 1800 });
      await mia.screenshot({ path: png });
      return `${r.compared} numbers equal the CLI's (${r.inexact} in the last bits: max rel ${r.maxRel}, Clopper–Pearson bounds ${r.maxLoose ?? 0}); AUC ${c.result.summary.auc}; ${points} interval points; screenshot ${png}`;
    },
  },
  {
    name: 'membership audit: the built-in example (a LiRA-style attack on the digits demo’s unlearned model) opens on a log–log ROC with its band, equal to `lethe mia` on mia_scores.npz',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page, 60000);
      const mia = await miaPanel(page);
      await mia.locator('[data-value="headline"]').waitFor({ timeout: 30000 });
      // The plot: the curve, and the Clopper–Pearson band through the target FPRs' intervals.
      await mia.locator('svg.lethe-plot path[data-name="roc"]').first().waitFor({ timeout: 5000 });
      const bands = await mia.locator('svg.lethe-plot path.lethe-band').count();
      assert(bands >= 1, `the log–log ROC has its band (${bands})`);
      assert(await mia.locator('[data-value="mia.example"]').isVisible(), 'the example is said to be the example');
      const report = await downloadJson(page, mia.locator('[data-action="export-json"]'));
      const x = EXAMPLE;
      const m = `${x.file}#${x.score}@${x.members}`;
      const n = `${x.file}#${x.score}@${x.non_members}`;
      const p = x.params;
      const c = cli(['mia', m, n, '--ci', p.ci, '--resamples', String(p.resamples), '--seed', String(p.seed), '--rule', p.rule, '--fpr', p.fpr.join(','), '--alpha', String(p.alpha)], path.join(ROOT, 'examples/data/digits'));
      const r = compare(report.result, c.result, { rel: 1e-12, loose: { re: /tpr_at_fpr\[\d+\]\.(tpr|fpr)_interval\.(lo|hi)$/, rel: 1e-9 }, at: 'example.result' });
      assert(r.diffs.length === 0, `the example's result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
      for (const k of ['inputs', 'parameters']) {
        const d = compare(report[k], c[k], { at: `example.${k}` });
        assert(d.diffs.length === 0, `${k} differ from the CLI:\n${d.diffs.slice(0, 8).join('\n')}`);
      }
      eq(JSON.stringify(report.headline), JSON.stringify(c.headline), 'headline');
      eq(c.headline.call, 'distinguishes', 'the unlearned model still gives its forget rows away');
      assert(c.result.bootstrap.complete && c.result.bootstrap.resamples_done === 1000, 'the bootstrap ran every resample');
      // The table fits its column: nothing past the results' right edge.
      const over = await mia.evaluate((el) => {
        const res = el.querySelector('.lethe-results').getBoundingClientRect();
        return [...el.querySelectorAll('.lethe-results table, .lethe-results caption')].map((e) => e.getBoundingClientRect().right - res.right).filter((d) => d > 1);
      });
      eq(over.length, 0, `tables past the results' right edge by ${over.join(', ')} px`);
      await page.setViewportSize({ width: 1280, height: 2200 });
      await mia.scrollIntoViewIfNeeded();
      await mia.screenshot({ path: path.join(SHOTS, 'mia-example.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${r.compared} numbers equal the CLI's; ${c.headline.text}; screenshot mia-example.png`;
    },
  },
  {
    name: '<lethe-eval analysis="mia">: the built-in example with its log–log ROC and band; scores set as .data with attribute parameters, run() equals `lethe mia --json`',
    async fn({ context, base }) {
      const dir = workdir();
      const u = rng(21);
      const m = normals(u, 400, 0.8);
      const n = normals(u, 900, 0);
      write(dir, 'em.npy', npy(m, [400]));
      write(dir, 'en.npy', npy(n, [900]));
      await context.route((u) => u.href.startsWith(`${base}/plain-mia.html`), (route) =>
        route.fulfill({
          contentType: 'text/html',
          body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Audit notes</title>
            <script type="module" src="/src/lethe-eval.js"></script></head>
            <body style="max-width: 1000px; margin: 0 auto"><h1>Our attack, audited</h1>
            <lethe-eval id="ex" analysis="mia" example></lethe-eval>
            <lethe-eval id="own" analysis="mia" ci="both" resamples="200" seed="3" fpr="0.01,0.1" rule="all"></lethe-eval></body></html>`,
        }),
      );
      const page = await open(context, base, '/plain-mia.html', { width: 1100 });
      // The example element: the panel's example, its plot with the band.
      const ex = page.locator('#ex');
      await ex.locator('[data-value="headline"]').waitFor({ timeout: 60000 });
      await ex.locator('svg.lethe-plot path.lethe-band').first().waitFor({ timeout: 5000 });
      const headline = await ex.locator('[data-value="headline.text"]').textContent();
      assert(/^The attack tells members from non-members: AUC = 0\.5757/.test(headline), `the example's headline: ${headline}`);
      // The other element: scores as .data (typed arrays), parameters from its attributes, run() → the report.
      const report = await page.evaluate(async ({ m, n }) => {
        const el = document.getElementById('own');
        el.data = { members: { values: Float64Array.from(m), shape: [m.length, 1], name: 'em.npy' }, non_members: { values: Float64Array.from(n), shape: [n.length, 1], name: 'en.npy' } };
        return el.run();
      }, { m, n });
      const c = cli(['mia', 'em.npy', 'en.npy', '--ci', 'both', '--resamples', '200', '--seed', '3', '--fpr', '0.01,0.1', '--rule', 'all'], dir);
      const r = compare(report.result, c.result, { rel: 1e-12, loose: { re: /tpr_at_fpr\[\d+\]\.(tpr|fpr)_interval\.(lo|hi)$/, rel: 1e-9 }, at: 'element.result' });
      assert(r.diffs.length === 0, `the element's result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
      eq(JSON.stringify(report.headline), JSON.stringify(c.headline), 'headline');
      eq(report.result.bootstrap.resamples_done, 200, 'the resamples attribute reached the run');
      eq(report.result.tpr_at_fpr.length, 6, 'two target FPRs × three rules (fpr and rule attributes)');
      // In the element's narrower results column the table still fits (its intervals wrap instead).
      const over = await page.locator('#own').evaluate((el) => {
        const res = el.shadowRoot.querySelector('.lethe-results').getBoundingClientRect();
        return [...el.shadowRoot.querySelectorAll('.lethe-results table')].map((e) => e.getBoundingClientRect().right - res.right).filter((d) => d > 1);
      });
      eq(over.length, 0, `tables past the element's results column by ${over.join(', ')} px`);
      await shot(page, 'mia-element.png', { fullPage: true });
      await page.locator('#own').screenshot({ path: path.join(SHOTS, 'mia-element-own.png') });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `example element: ${headline.slice(0, 70)}…; .data + attributes: ${r.compared} numbers equal the CLI`;
    },
  },
  {
    name: 'membership audit: a long bootstrap shows its progress, Cancel stops it, and the next run is done',
    async fn({ context, base }) {
      const dir = workdir();
      const u = rng(7);
      const n = 300000;
      write(dir, 'big_m.npy', npy(Array.from({ length: n }, () => u() + 0.05), [n]));
      write(dir, 'big_n.npy', npy(Array.from({ length: n }, () => u()), [n]));
      const page = await open(context, base, '/?example=0');
      const mia = await miaPanel(page);
      await slot(mia, 'members').pick(path.join(dir, 'big_m.npy'));
      await slot(mia, 'non_members').pick(path.join(dir, 'big_n.npy'));
      await slot(mia, 'non_members').status().filter({ hasText: `${n} × 1` }).waitFor({ timeout: 15000 });
      await mia.locator('[data-param=ci]').selectOption('bootstrap');
      await mia.locator('[data-param=resamples]').fill('2000');
      await mia.locator('[data-action="run"]').click();
      const text = mia.locator('.lethe-progress-text');
      await text.filter({ hasText: /\d+% · bootstrap resamples/ }).waitFor({ timeout: 30000 });
      const seen = await text.textContent();
      const t0 = Date.now();
      await mia.locator('[data-action="cancel"]').click();
      await text.filter({ hasText: 'cancelled' }).waitFor({ timeout: 2000 });
      const answered = Date.now() - t0;
      // The bootstrap stops within a block of resamples (protocol.md, Cancellation): the next run does not wait for
      // the cancelled bootstrap (its time is reported; with the bootstrap left running it was ~12 s here).
      await mia.locator('[data-param=ci]').selectOption('delong');
      const done = await runDone(mia, 120000);
      const v = await values(mia);
      assert(/^The attack tells members from non-members/.test(v['headline.text']), `headline after the cancelled run: ${v['headline.text']}`);
      return `progress “${seen}”, cancelled in ${answered} ms, next run ${done}`;
    },
  },
  {
    name: 'membership audit: a NaN score and labels of one class are refused next to their inputs',
    async fn({ context, base }) {
      const dir = workdir();
      const u = rng(3);
      const bad = normals(u, 50, 1);
      bad[7] = NaN;
      write(dir, 'm_nan.npy', npy(bad, [50]));
      write(dir, 'n_ok.npy', npy(normals(u, 60, 0), [60]));
      write(dir, 'scores.npy', npy(normals(u, 40, 0), [40]));
      write(dir, 'ones.npy', npy(Array(40).fill(1), [40]));
      const page = await open(context, base, '/?example=0');
      const mia = await miaPanel(page);
      await slot(mia, 'members').pick(path.join(dir, 'm_nan.npy'));
      await slot(mia, 'non_members').pick(path.join(dir, 'n_ok.npy'));
      await slot(mia, 'non_members').status().filter({ hasText: '60 × 1' }).waitFor({ timeout: 15000 });
      await mia.locator('[data-action="run"]').click();
      const t = await waitRun(mia);
      assert(/failed/.test(t), `the run with a NaN score failed: ${t}`);
      const msg = await mia.locator('[data-error-for="members"]').textContent();
      assert(/NaN/.test(msg) && /row 7/.test(msg) && /m_nan\.npy/.test(msg), `the NaN is named next to the members' input, with its file and row: ${msg}`);

      await mia.locator('[data-param=mode]').selectOption('labels');
      await slot(mia, 'scores').pick(path.join(dir, 'scores.npy'));
      await slot(mia, 'labels').pick(path.join(dir, 'ones.npy'));
      await slot(mia, 'labels').status().filter({ hasText: '40 × 1' }).waitFor({ timeout: 15000 });
      await mia.locator('[data-action="run"]').click();
      assert(/failed/.test(await waitRun(mia)), 'the run with one class failed');
      const msg2 = await mia.locator('[data-error-for="labels"]').textContent();
      assert(/every label/.test(msg2) && /non-member/.test(msg2), `one class is named next to the labels: ${msg2}`);
      return `NaN: “${msg.slice(0, 80)}…”; one class: “${msg2.slice(0, 80)}…”`;
    },
  },
];
