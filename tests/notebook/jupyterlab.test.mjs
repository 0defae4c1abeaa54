// lethe.show(report) in a real JupyterLab and Jupyter Notebook 7 (pip-installed in the Python venv) in headless
// Chromium: a notebook runs the analyses and shows their reports; each rendered headline must equal the report's,
// the JSON export must equal report.to_json(), each report with a plot on the page must draw it and its SVG export
// must hold it, and no request may leave 127.0.0.1 (every request is routed and logged; one to another host is
// aborted and fails the test). Screenshots of each plot land in target/screenshots/notebook-APP-COMMAND-K.png.
// Usage: node tests/notebook/jupyterlab.test.mjs VENV [--app lab|notebook|all]   (default: both front ends; VENV
// has jupyterlab, notebook, anywidget and lethe installed)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { APPS, ROOT, assert, eq, parseArgs, waitForCells, withNotebook } from './lib.mjs';

const { venv, apps } = parseArgs(process.argv.slice(2));
const D = path.join(ROOT, 'examples/data/digits');
const shots = path.join(ROOT, 'target/screenshots');
mkdirSync(shots, { recursive: true });
const py = JSON.stringify;

/** The notebook's cells: each analysis writes its report's JSON next to the notebook and shows it. */
const cells = (dir) => {
  const save = (v, name) => `open(${py(path.join(dir, `${name}.json`))}, "w").write(${v}.to_json())`;
  const golden = path.join(ROOT, 'tests/fixtures/golden/neurips2023.json');
  return [
    ['import json, numpy as np, lethe', `s = np.load(${py(path.join(D, 'mia_scores.npz'))})["lira_unlearned"]`, 'r = lethe.mia(s[:144], s[144:503], ci="both", resamples=200, seed=0)', save('r', 'mia'), 'lethe.show(r)'].join('\n'),
    // SDE: its report's split-half HSIC values become the page's overlaid histograms.
    [`a = np.load(${py(path.join(D, 'act_unlearned.npy'))})`, 'q = lethe.sde(a[144:244], a[544:644], target=[a[0:100]], shuffles=50, seed=0)', save('q', 'sde'), 'lethe.show(q)'].join('\n'),
    // RULER on the digits example's three models: the forget records' nearest-neighbour percentile ranks.
    [
      `runs = [{"unlearned": a, "oracle": np.load(${py(path.join(D, 'act_retrained.npy'))}), "original": np.load(${py(path.join(D, 'act_original.npy'))})}]`,
      `u = lethe.ruler(runs=runs, forget=${py(path.join(D, 'forget.txt'))}, retain=${py(path.join(D, 'retain.txt'))})`,
      save('u', 'ruler'),
      'lethe.show(u)',
    ].join('\n'),
    // The NeurIPS 2023 competition's epsilon on the golden fixture's confidences, all three variants.
    [
      `g = json.load(open(${py(golden)}))["forgetting_quality_case"]`,
      'acc = g["accuracies"]',
      'e = lethe.epsilon(retrained=np.array(g["retrained_confs"]), unlearned=np.array(g["unlearned_confs"]), variant="all", accuracies=[acc["ra_u"], acc["ra_r"], acc["ta_u"], acc["ta_r"]])',
      save('e', 'epsilon'),
      'lethe.show(e)',
    ].join('\n'),
    // Leakage bounds of ROUGE-L-scored generations (the report holds the scores: the ECDF and its DKW band) …
    [
      `gen = ${py(path.join(dir, 'gen.txt'))}`,
      'open(gen, "w").write("\\n".join(["the cat sat on the mat", "a dog is on the mat", "the cat is on the mat", "no cat here", "the mat is red", "on the mat sat the cat"] * 5))',
      'b = lethe.rouge(predictions=gen, reference_text="the cat is on the mat", bounds=True, x=[0.25, 0.5, 0.75])',
      save('b', 'rouge'),
      'lethe.show(b)',
    ].join('\n'),
    // … and of scores given as an array (the report holds the bounds, not the scores: no plot, a note).
    ['c = lethe.bounds(np.random.default_rng(1).uniform(0, 1, 200), x=[0.5, 0.9])', save('c', 'bounds'), 'lethe.show(c)'].join('\n'),
    // LiRA on 16 models' scores of 200 examples: the audit's ROC, as the page's LiRA section draws it.
    [
      'rng = np.random.default_rng(3)',
      'keep = (rng.uniform(size=(16, 200)) < 0.5).astype(np.float64)',
      'l = lethe.lira(scores=rng.standard_normal((16, 200, 2)) + keep[:, :, None] * 0.8, keep=keep, variant="online-fixed-variance")',
      save('l', 'lira'),
      'lethe.show(l)',
    ].join('\n'),
  ];
};

/** numpy.histogram(values, bins, range) of each list in `series` (range: [lo, hi], or null for their joint range). */
function numpyCounts(venv, series, bins, range) {
  const code = `import json, sys, numpy as np
s = [np.asarray(v, float) for v in json.load(sys.stdin)]
r = ${range ? `(${range[0]}, ${range[1]})` : '(min(v.min() for v in s), max(v.max() for v in s))'}
print(json.dumps([np.histogram(v, ${bins}, r)[0].tolist() for v in s]))`;
  return JSON.parse(execFileSync(path.join(venv, 'bin/python'), ['-c', code], { input: JSON.stringify(series) }).toString());
}

/**
 * The bar heights of the histogram series named `name` in an exported SVG, as fractions of the tallest (the step path
 * goes up and across each bin in turn from the baseline), to compare with counts / max(counts).
 */
function barShares(svg, name) {
  const d = svg.match(new RegExp(`<path d="([^"]+)"[^>]*data-name="${name.replace(/[[\]().*+?^$|\\]/g, '\\$&')}"`))?.[1];
  assert(d, `no histogram series “${name}” in the SVG export`);
  const ys = [...d.matchAll(/[ML]\s*[-\d.e]+\s*,\s*([-\d.e]+)/g)].map((m) => Number(m[1]));
  const base = ys[0];
  const heights = ys.slice(1, -1).filter((_, i) => i % 2 === 0).map((y) => base - y);
  const top = Math.max(...heights);
  return heights.map((v) => v / top);
}

/** `shares` (barShares) equal `counts` / max(counts), to rounding. */
function sameBars(shares, counts, what) {
  const top = Math.max(...counts);
  eq(shares.length, counts.length, `${what}: number of bins`);
  shares.forEach((v, k) => assert(Math.abs(v - counts[k] / top) < 1e-9, `${what}: bin ${k} is ${v} of the tallest, numpy counts ${counts[k]} of ${top}`));
}

/** The SVG export of the plot titled like `title` in `box`: its text. */
async function svgExport(page, box, title) {
  const [dl] = await Promise.all([page.waitForEvent('download'), box.getByRole('button', { name: new RegExp(`Download ${title}.* as SVG`) }).first().click()]);
  const svg = readFileSync(await dl.path(), 'utf8');
  assert(svg.startsWith('<?xml') && svg.includes('<svg'), `SVG export of “${title}” is not an SVG: ${svg.slice(0, 200)}`);
  return svg;
}

for (const app of apps) {
  const t0 = Date.now();
  await withNotebook({ venv, app, cells }, async ({ page, dir, routes, outside }) => {
    const report = (command) => JSON.parse(readFileSync(path.join(dir, `${command}.json`), 'utf8'));
    const box = (command) => page.locator(`.lethe-notebook[data-command=${command}]`);
    const headline = async (command) => {
      const want = report(command);
      await box(command).locator('.lethe-headline-text').waitFor({ timeout: 120_000 });
      eq(await box(command).locator('.lethe-headline-text').textContent(), want.headline.text, `${command}: rendered headline`);
      eq(await box(command).locator('.lethe-headline').getAttribute('data-call'), want.headline.call, `${command}: headline call`);
      return want;
    };
    // Each plot as the notebook shows it (the whole report can be taller than the notebook's view).
    const shot = async (command) => {
      const figures = box(command).locator('figure');
      for (let k = 0; k < (await figures.count()); k++) await figures.nth(k).screenshot({ path: path.join(shots, `notebook-${app}-${command}-${k}.png`) });
    };
    await box('mia').locator('.lethe-headline-text').waitFor({ timeout: 120_000 });
    const routesAtLoad = routes.length;

    // MIA: the JSON export is the report itself; the ROC's SVG export holds the curve and its Clopper–Pearson bands.
    const mia = await headline('mia');
    let [dl] = await Promise.all([page.waitForEvent('download'), box('mia').locator('[data-action=export-json]').click()]);
    eq(JSON.stringify(JSON.parse(readFileSync(await dl.path(), 'utf8'))), JSON.stringify(mia), 'exported JSON = report.to_json()');
    eq(dl.suggestedFilename(), `lethe-mia-seed${mia.seed}.json`, 'export file name');
    const roc = await svgExport(page, box('mia'), 'ROC');
    assert(roc.includes('data-name="roc"') && /class="[^"]*band/.test(roc), `SVG export lacks the ROC or its bands: ${roc.slice(0, 300)}`);
    [dl] = await Promise.all([page.waitForEvent('download'), box('mia').getByRole('button', { name: /Download ROC .* as PNG/ }).click()]);
    eq(readFileSync(await dl.path()).subarray(1, 4).toString(), 'PNG', 'PNG export signature');
    await shot('mia');

    // Wait for the last cell's output: every report below is drawn by then.
    await waitForCells(page);
    await box('lira').locator('.lethe-headline-text').waitFor({ timeout: 120_000 });

    // SDE: one histogram of the in-training, out-of-training and target distributions, with each one's mean ± sd.
    const q = (await headline('sde')).result;
    eq(await box('sde').locator('figure svg').count(), 1, 'SDE histograms (one target)');
    const sde = await svgExport(page, box('sde'), 'HSIC split-half');
    eq((sde.match(/class="lethe-series"/g) || []).length, 3, 'SDE: three distributions overlaid');
    assert(sde.includes('class="lethe-moment"'), 'SDE: the exact means ± sd are drawn');
    // The bars are the page's: numpy's counts in 30 bins over the three distributions' joint range (plots.rs).
    const dists = [q.in_training_reference, q.out_of_training_reference, q.targets[0].distribution].map((d) => d.values);
    numpyCounts(venv, dists, 30, null).forEach((c, k) => sameBars(barShares(sde, ['in-training reference', 'out-of-training reference', q.targets[0].name][k]), c, `SDE series ${k}`));
    await shot('sde');

    // RULER: one histogram of the forget records' percentile ranks per run, ten bins over [0, 1].
    const ruler = await headline('ruler');
    eq(await box('ruler').locator('figure svg').count(), ruler.result.runs.length, 'RULER: one rank histogram per run');
    const ranks = await svgExport(page, box('ruler'), 'Nearest-neighbour percentile ranks');
    assert(ranks.includes('data-name="forget records"') && ranks.includes('percentile rank among retain records'), `RULER: the SVG export lacks the rank histogram: ${ranks.slice(0, 300)}`);
    sameBars(barShares(ranks, 'forget records'), numpyCounts(venv, [ruler.result.runs[0].nn_percentile_rank.ranks], 10, [0, 1])[0], 'RULER ranks');
    await shot('ruler');

    // Epsilon: one histogram of per-example ε per variant, ε_max marked.
    const eps = await headline('epsilon');
    eq(await box('epsilon').locator('figure svg').count(), eps.result.results.length, 'epsilon: one histogram per variant');
    const epsSvg = await svgExport(page, box('epsilon'), 'Per-example ε');
    assert(epsSvg.includes('data-name="examples"') && epsSvg.includes('ε_max'), `epsilon: the SVG export lacks the histogram or ε_max: ${epsSvg.slice(0, 300)}`);
    await shot('epsilon');

    // Leakage bounds of ROUGE-L scores: the ECDF with its DKW band, the marker at M_gen(0.5).
    const rouge = await headline('rouge');
    const ecdf = await svgExport(page, box('rouge'), 'Empirical CDF');
    assert(ecdf.includes('class="lethe-ecdf"') && ecdf.includes('class="lethe-band"'), `bounds: the SVG export lacks the ECDF or its band: ${ecdf.slice(0, 300)}`);
    assert(rouge.result.bounds.general.x.includes(0.5) && ecdf.includes('M_gen(0.5) = '), 'bounds: M_gen(0.5) is marked');
    await shot('rouge');
    // A bounds report without its scores: no plot, and a note that says why.
    await headline('bounds');
    eq(await box('bounds').locator('figure svg').count(), 0, 'bounds without scores: no plot');
    assert(/not the scores/.test(await box('bounds').locator('[data-value=plot-note]').textContent()), 'bounds without scores: the note');
    await shot('bounds');
    // LiRA: the audit's ROC with its bands.
    await headline('lira');
    const lira = await svgExport(page, box('lira'), 'LiRA: ROC');
    assert(lira.includes('data-name="roc"') && /class="[^"]*band/.test(lira), 'LiRA: the SVG export lacks the ROC or its bands');
    await shot('lira');

    writeFileSync(path.join(shots, `notebook-${app}-routes.txt`), routes.join('\n') + '\n');
    console.log(`routes after the first report (${routes.length - routesAtLoad} new):\n  ${routes.slice(routesAtLoad).join('\n  ') || '(none)'}`);
    eq(outside.length, 0, `requests outside 127.0.0.1: ${outside.join(', ')}`);
    console.log(`ok: lethe.show in ${APPS[app].name} — 7 reports (mia, sde, ruler, epsilon, rouge bounds, bounds, lira): headlines, JSON/SVG/PNG exports, plots; ${routes.length} requests, none outside 127.0.0.1 (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  });
}
