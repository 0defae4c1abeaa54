// Issue 23, the comparison panel: the built-in example (examples/compare/runs.csv, five methods × 5 seeds) loads and
// runs; its headline, warnings, result and parameters are those of `target/release/lethe compare` on the same file
// with the same options; the forest plots and the probability-of-improvement matrices are drawn, and a table with
// tasks draws the critical-difference diagram; each chart downloads as SVG and PNG; at 375 px no chart text runs
// past its SVG; a runs table with a NaN, or with a method and seed twice, gets the layer's message (the CLI's).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CLI, ROOT, SHOTS, assert, cli, compare, downloadJson, eq, open, waitRun, workdir, write } from './lib.mjs';

const RUNS = path.join(ROOT, 'examples/compare/runs.csv');
const panelOf = (page) => page.locator('#lethe-compare[data-panel]');

/** Opens the page with the panel in (its module is loaded after the page's first results, or at once without them). */
async function openPanel(context, base, opts) {
  const page = await open(context, base, '/?example=0', opts);
  const panel = panelOf(page);
  await panel.waitFor({ timeout: 60000 });
  return { page, panel };
}

/** Every <text> of the panel's charts that reaches past its SVG's box (after the page fitted them). */
async function overflowing(panel) {
  return panel.locator('svg.lethe-plot').evaluateAll((svgs) => {
    const bad = [];
    for (const svg of svgs) {
      const vb = svg.viewBox.baseVal;
      for (const t of svg.querySelectorAll('text')) {
        const b = t.getBBox();
        if (!b.width) continue;
        const rotated = t.hasAttribute('transform');
        const [lo, span, room] = rotated ? [b.y, b.height, vb.height] : [b.x, b.width, vb.width];
        if (lo < -0.5 || lo + span > room + 0.5) bad.push(`${svg.getAttribute('aria-label').slice(0, 40)}: “${t.textContent}” ${lo.toFixed(1)}..${(lo + span).toFixed(1)} of ${room}`);
      }
    }
    return bad;
  });
}

/** The CLI's error message for a runs table (its exit status must say it failed). */
function cliError(file) {
  const r = spawnSync(CLI, ['compare', file, '--json'], { encoding: 'utf8' });
  assert(r.status !== 0, `the CLI accepted ${file}`);
  return r.stderr;
}

export const tests = [
  {
    name: 'the built-in example runs; headline, warnings, result and parameters equal `lethe compare`; charts drawn and exported',
    async fn({ context, base }) {
      const { page, panel } = await openPanel(context, base);
      await panel.locator('[data-action="compare-example"]').click();
      const t = await waitRun(panel);
      assert(/done in/.test(t), `run: ${t} ${await panel.locator('.lethe-error').allTextContents()}`);
      const report = await downloadJson(page, panel.locator('[data-action="export-json"]'));
      const metrics = report.parameters.metrics;
      const args = ['compare', 'runs.csv', ...metrics.flatMap((m) => ['--metric', m]), '--baseline', report.parameters.baseline];
      const dir = workdir();
      write(dir, 'runs.csv', readFileSync(RUNS));
      const want = cli(args, dir);
      eq(JSON.stringify(report.headline), JSON.stringify(want.headline), 'headline');
      eq(JSON.stringify(report.warnings), JSON.stringify(want.warnings), 'warnings');
      const shown = await panel.locator('[data-value="headline.text"]').textContent();
      eq(shown, want.headline.text, 'the headline shown');
      const r = compare(report.result, want.result, { at: 'result' });
      assert(r.diffs.length === 0, `result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
      const p = compare(report.parameters, want.parameters, { at: 'parameters' });
      assert(p.diffs.length === 0, `parameters differ:\n${p.diffs.slice(0, 8).join('\n')}`);
      eq(report.inputs[0].sha256, want.inputs[0].sha256, 'SHA-256 of the runs table');
      // The pictures: one forest plot per metric (a row per method), one PoI matrix per metric.
      const n = want.result.metrics.length;
      eq(await panel.locator('svg.lethe-plot[aria-label^="Forest plot"]').count(), n, 'forest plots');
      eq(await panel.locator('svg.lethe-plot[aria-label^="Probability of improvement"]').count(), n, 'PoI matrices');
      eq(await panel.locator('svg[aria-label^="Forest plot"]').first().locator('g.lethe-forest-row').count(), want.result.metrics[0].summaries.length, 'forest rows');
      // The matrix's first cell is the report's P(a > b) for that pair.
      const cell = panel.locator('rect.lethe-poi-cell').first();
      const [a, b, pv] = await Promise.all(['data-row', 'data-col', 'data-p'].map((k) => cell.getAttribute(k)));
      const poi = want.result.metrics[0].probability_of_improvement.find((c) => c.a === a && c.b === b);
      eq(Number(pv), poi.probability, `P(${a} > ${b})`);
      // No tasks in the example: no critical-difference diagram, and the panel says why.
      await panel.locator('[data-value="compare.cd-note"]').waitFor();
      // SVG and PNG of a chart.
      const block = panel.locator('figure.lethe-plot-block').first();
      const [svgDl] = await Promise.all([page.waitForEvent('download'), block.getByRole('button', { name: /as SVG$/ }).click()]);
      const svg = readFileSync(await svgDl.path(), 'utf8');
      assert(svgDl.suggestedFilename().endsWith('.svg') && svg.includes('<svg') && svg.includes(want.result.metrics[0].metric), `SVG export: ${svgDl.suggestedFilename()}`);
      const [pngDl] = await Promise.all([page.waitForEvent('download'), block.getByRole('button', { name: /as PNG$/ }).click()]);
      const png = readFileSync(await pngDl.path());
      assert(pngDl.suggestedFilename().endsWith('.png') && png.subarray(1, 4).toString() === 'PNG' && png.length > 1000, `PNG export: ${pngDl.suggestedFilename()} ${png.length} bytes`);
      // docs/compare-panel.png: the panel from its title down to the PoI matrix (the first two charts).
      const clip = await panel.evaluate((el) => {
        const a = el.getBoundingClientRect();
        const b = el.querySelectorAll('figure.lethe-plot-block')[1].getBoundingClientRect();
        return { x: a.x + scrollX, y: a.y + scrollY, width: a.width, height: b.bottom - a.top + 8 };
      });
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SHOTS, 'compare-panel.png'), fullPage: true, clip });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `“${shown}”; ${r.compared} numbers equal the CLI's; ${n} forest plots, ${n} PoI matrices; SVG ${svg.length} B, PNG ${png.length} B`;
    },
  },
  {
    name: 'a table with tasks draws the critical-difference diagram; at 375 px no chart text leaves its SVG',
    async fn({ context, base }) {
      const { page, panel } = await openPanel(context, base, { width: 375, height: 800 });
      // 4 methods × 3 seeds on 5 tasks, long method names (the labels must fit at 375 px).
      const methods = ['retrain_from_scratch', 'gradient_ascent_long_name', 'finetune', 'noop'];
      let text = 'method,seed,task,model_utility\n';
      methods.forEach((m, i) => {
        for (let t = 0; t < 5; t++) for (let s = 0; s < 3; s++) text += `${m},${s},t${t},${(0.9 - 0.07 * i + 0.013 * ((i * 7 + t * 3 + s) % 5)).toFixed(4)}\n`;
      });
      await panel.locator('textarea[data-role="runs"]').fill(text);
      await panel.locator('[data-action="run"]').click();
      const t = await waitRun(panel);
      assert(/done in/.test(t), `run: ${t} ${await panel.locator('.lethe-error').allTextContents()}`);
      const cd = panel.locator('svg.lethe-plot[aria-label^="Critical-difference diagram"]');
      await cd.waitFor();
      eq(await cd.locator('.lethe-cd-method').count(), methods.length, 'a line per method');
      const report = await downloadJson(page, panel.locator('[data-action="export-json"]'));
      assert(report.result.metrics[0].friedman, 'the report holds Friedman’s test');
      const dir = workdir();
      write(dir, 'tasks.csv', text);
      const want = cli(['compare', 'tasks.csv'], dir);
      eq(JSON.stringify(report.headline), JSON.stringify(want.headline), 'headline');
      // Every chart fitted to 375 px.
      await page.waitForTimeout(300);
      const bad = await overflowing(panel);
      eq(bad.length, 0, `chart text past its SVG at 375 px:\n${bad.join('\n')}`);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert(width <= 375, `the page scrolls sideways: ${width} px`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${await panel.locator('svg.lethe-plot').count()} charts fit at 375 px`;
    },
  },
  {
    name: 'a NaN or a duplicate (method, seed) in the runs table gets the layer’s message, as the CLI says it',
    async fn({ context, base }) {
      const { page, panel } = await openPanel(context, base);
      const dir = workdir();
      const good = readFileSync(RUNS, 'utf8').split('\n');
      const cases = [
        ['nan.csv', [good[0], good[1].replace(/,[^,]+$/, ',nan'), ...good.slice(2)].join('\n'), /NaN|not a (finite )?number|finite/i],
        ['dup.csv', [...good.slice(0, 3), good[2], ...good.slice(3)].join('\n'), /twice|duplicate|more than once/i],
      ];
      const said = [];
      for (const [name, text, pattern] of cases) {
        write(dir, name, text);
        const stderr = cliError(path.join(dir, name));
        await panel.locator('textarea[data-role="runs"]').fill(text);
        await panel.locator('[data-action="run"]').click();
        const t = await waitRun(panel);
        assert(/failed/.test(t), `${name}: the run did not fail: ${t}`);
        const msg = (await panel.locator('[data-error-for="runs"]').textContent()) || (await panel.locator('.lethe-panel-error').textContent());
        assert(pattern.test(msg), `${name}: the page says “${msg}”`);
        // The layer's sentence, as the CLI prints it (the CLI names the file where the page says the pasted text).
        const core = msg.replace(/^.*?: /, '').slice(0, 40);
        assert(stderr.includes(core) || stderr.replace(/`[^`]*`/g, '').includes(core.replace(/`[^`]*`/g, '')), `${name}: the CLI says “${stderr.trim()}”, the page “${msg}”`);
        said.push(msg);
      }
      assert(page.errors.length === 0, page.errors.join('; '));
      return said.join(' | ');
    },
  },
];
