// Issue 23, the comparison panel: the built-in example (examples/compare/runs.csv, five methods × 5 seeds) loads and
// runs; its headline, warnings, result and parameters are those of `target/release/lethe compare` on the same file
// with the same options; the forest plots and the probability-of-improvement matrices are drawn, and a table with
// tasks draws the critical-difference diagram; each chart downloads as SVG and PNG; at 375 px no chart text runs
// past its SVG; a runs table with a NaN, or with a method and seed twice, gets the layer's message (the CLI's).
// Result files grouped by method, as a new user gives them (a folder of methods' seedN folders chosen, files
// chosen): the report equals `lethe compare --method NAME=FILE,… --json`, and the CLI line the panel shows is that;
// the folder is sent whole and the analysis layer picks its result files (the page holds no copy of the rule).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CLI, ROOT, SHOTS, assert, cli, compare, downloadJson, eq, open, rng, waitRun, workdir, write } from './lib.mjs';

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

/**
 * Result files of 3 methods × 5 seeds in a scratch folder: `runs/NPO/seedN/` and `runs/GradDiff/seedN/` each hold
 * an open-unlearning SUMMARY file (`json.dump(dict(sorted(logs.items())), f, indent=4)`, as its `Evaluator.summarize`
 * writes them), the EVAL file beside it (the same run: to be passed over), a model's config.json and Hydra's
 * .hydra/config.yaml (not runs); `ga_seedN.json` at the top are GradAscent's, a JSON object of metrics each.
 * forget_truth_ratio has no built-in direction: left out, with a warning.
 */
function resultFiles(dir) {
  const r = rng(23);
  const summary = (o) => `{\n${Object.keys(o).sort().map((k) => `    "${k}": ${o[k]}`).join(',\n')}\n}`;
  const run = (fq, mu) => ({ forget_quality: +(fq * (0.7 + 0.6 * r())).toPrecision(12), model_utility: +(mu + 0.02 * (r() - 0.5)).toPrecision(12), forget_truth_ratio: +(0.5 + 0.2 * r()).toPrecision(12) });
  const files = {};
  for (const [m, fq, mu] of [['NPO', 0.4, 0.61], ['GradDiff', 0.05, 0.55]]) {
    for (let s = 0; s < 5; s++) {
      const at = `runs/${m}/seed${s}`;
      mkdirSync(path.join(dir, at, '.hydra'), { recursive: true });
      const o = run(fq, mu);
      write(dir, `${at}/TOFU_SUMMARY.json`, summary(o));
      write(dir, `${at}/TOFU_EVAL.json`, JSON.stringify(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, { agg_value: v }])), null, 4));
      write(dir, `${at}/config.json`, JSON.stringify({ model_type: 'llama', hidden_size: 4096 }));
      write(dir, `${at}/.hydra/config.yaml`, 'seed: 0\n');
      (files[m] ||= []).push(`${at}/TOFU_SUMMARY.json`);
    }
  }
  for (let s = 0; s < 5; s++) {
    write(dir, `ga_seed${s}.json`, JSON.stringify(run(1e-3, 0.3)));
    (files.GradAscent ||= []).push(`ga_seed${s}.json`);
  }
  return files;
}

export const tests = [
  {
    name: 'result files grouped by method (a folder of methods’ seed folders, and chosen files) give `lethe compare --method`’s report',
    async fn({ context, base }) {
      const { page, panel } = await openPanel(context, base);
      const dir = workdir();
      const files = resultFiles(dir);
      // As a new user: result files grouped by method; the folder above the methods' folders into the first method
      // (sent whole: the layer picks its result files and makes a method of each folder, named after it),
      // GradAscent's files chosen into another, named by hand.
      await panel.locator('[data-role="compare-input"]').selectOption('methods');
      await panel.locator('[data-role="method-dir"]').first().setInputFiles(path.join(dir, 'runs'));
      const names = panel.locator('[data-role="method-name"]');
      await panel.locator('[data-method="1"] [data-value="method-files"] li[data-folder="runs"]').waitFor();
      eq(await panel.locator('[data-method="1"] [data-value="method-files"] li').textContent(), 'runs/ 40 file(s) ×', 'the folder, all its files');
      await names.nth(1).fill('GradAscent');
      await panel.locator('[data-method="2"] [data-role="method-files"]').setInputFiles(files.GradAscent.map((f) => path.join(dir, f)));
      await panel.locator('[data-method="2"] [data-value="method-files"] li').nth(4).waitFor();
      await panel.locator('[data-param="baseline"]').fill('NPO');
      await panel.locator('[data-action="run"]').click();
      const t = await waitRun(panel);
      assert(/done in/.test(t), `run: ${t} ${await panel.locator('.lethe-error').allTextContents()}`);
      const report = await downloadJson(page, panel.locator('[data-action="export-json"]'));
      const args = ['compare', ...['GradDiff', 'NPO', 'GradAscent'].flatMap((m) => ['--method', `${m}=${files[m].join(',')}`]), '--baseline', 'NPO', '--resamples', '10000', '--seed', '0'];
      const want = cli(args, dir);
      eq(JSON.stringify(report.headline), JSON.stringify(want.headline), 'headline');
      // The layer's warnings, and what it passed over in the folder (the explicit files pass nothing over).
      const passed = report.warnings.find((w) => w.code === 'files_passed_over');
      assert(passed && passed.message.includes('`runs` (methods `GradDiff`, `NPO`): 10 result files, 30 other files passed over'), `passed over: ${passed?.message}`);
      eq(JSON.stringify(report.warnings.filter((w) => w !== passed)), JSON.stringify(want.warnings), 'warnings');
      assert(want.warnings.some((w) => w.code === 'metrics_left_out'), 'forget_truth_ratio left out, with a warning');
      eq(await panel.locator('[data-value="headline.text"]').textContent(), want.headline.text, 'the headline shown');
      const r = compare(report.result, want.result, { rel: 1e-12, at: 'result' });
      assert(r.diffs.length === 0, `result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
      const p = compare(report.parameters, want.parameters, { at: 'parameters' });
      assert(p.diffs.length === 0, `parameters differ:\n${p.diffs.slice(0, 8).join('\n')}`);
      // One input per file, by its path (the seed read from it), with the CLI's SHA-256.
      const inputs = (x) => JSON.stringify(x.inputs.map((i) => [i.role, i.spec, i.path, i.sha256, i.rows_used]));
      eq(inputs(report), inputs(want), 'inputs');
      eq(report.result.metrics.map((m) => m.summaries.map((s) => s.n).join()).join(';'), want.result.metrics.map(() => '5,5,5').join(';'), 'runs per method');
      // The CLI line shown is the one that made `want`.
      const line = `lethe ${args.join(' ')} --json`;
      eq(await panel.locator('[data-value="compare.cli"]').textContent(), line, 'the CLI line');
      eq(report.cli_equivalent, line, 'the report’s CLI line');
      // The CLI given the methods' folders picks the files the page picked (a binary from before folders were
      // read refuses a folder: that check then waits for a rebuilt one).
      const folders = ['compare', '--method', 'GradDiff=runs/GradDiff', '--method', 'NPO=runs/NPO', '--method', `GradAscent=${files.GradAscent.join(',')}`, '--baseline', 'NPO'];
      const got = spawnSync(CLI, [...folders, '--json'], { cwd: dir, encoding: 'utf8' });
      assert(got.status === 0 || /is a directory/.test(got.stderr), `the CLI on the folders: ${got.stderr}`);
      const byFolder = got.status === 0 ? JSON.parse(got.stdout) : null;
      if (byFolder) {
        eq(inputs(byFolder), inputs(want), 'the CLI’s folders');
        const note = byFolder.warnings.find((w) => w.code === 'files_passed_over');
        assert(note && note.message.includes('`runs/NPO` (method `NPO`): 5 result files, 15 other files passed over'), `the CLI’s note: ${note?.message}`);
      }
      // Charts: a forest plot and a PoI matrix per metric.
      eq(await panel.locator('svg.lethe-plot[aria-label^="Forest plot"]').count(), want.result.metrics.length, 'forest plots');
      mkdirSync(SHOTS, { recursive: true });
      const clip = await panel.evaluate((el) => {
        const a = el.getBoundingClientRect();
        const b = el.querySelectorAll('figure.lethe-plot-block')[0].getBoundingClientRect();
        return { x: a.x + scrollX, y: a.y + scrollY, width: a.width, height: b.bottom - a.top + 8 };
      });
      await page.screenshot({ path: path.join(SHOTS, 'compare-methods-panel.png'), fullPage: true, clip });
      // Renaming a method leaves the results out of date, their downloads disabled.
      await names.nth(1).fill('GA');
      await panel.locator('[data-value="stale"]').waitFor();
      assert(await panel.locator('[data-action="export-json"]').isDisabled(), 'export disabled while out of date');
      // A method without a name: the layer's message, under the methods.
      await names.nth(1).fill('');
      await panel.locator('[data-action="run"]').click();
      assert(/failed/.test(await waitRun(panel)), 'a method without a name was run');
      const msg = await panel.locator('[data-error-for="methods"]').textContent();
      assert(/needs its method.s name/.test(msg), `the page says “${msg}”`);
      // One method's folder named by hand, with the folder above it: the layer refuses it as the CLI refuses
      // `--method x=runs` (two runs of one seed), its message under the methods.
      await names.nth(1).fill('GradAscent');
      await names.nth(0).fill('x');
      await panel.locator('[data-action="run"]').click();
      assert(/failed/.test(await waitRun(panel)), 'a named folder of several methods was run');
      const two = await panel.locator('[data-error-for="methods"]').textContent();
      const cliTwo = spawnSync(CLI, ['compare', '--method', 'x=runs', '--json'], { cwd: dir, encoding: 'utf8' });
      assert(/two runs with seed 0/.test(two) && (cliTwo.status !== 0), `the page says “${two}”; the CLI “${cliTwo.stderr}”`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `“${want.headline.text.slice(0, 80)}…”; ${r.compared} numbers equal the CLI's (max rel ${r.maxRel.toExponential(1)}); ${report.inputs.length} files; folders ${byFolder ? 'picked as the CLI picks them' : 'not checked: this CLI reads no folders'}`;
    },
  },
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
