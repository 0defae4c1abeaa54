// docs/notebook-widget.png: lethe.show's reports as JupyterLab draws them (RULER, epsilon, ROUGE-L leakage bounds,
// SDE), each from its title to its first plot, two by two. Not a test: run it after a change to the widget's look,
// then `pngquant` the result (docs/python.md keeps it under ~150 KB).
// Usage: node tests/notebook/screenshot.mjs [VENV] [OUT.png]
import path from 'node:path';
import { ROOT, withNotebook } from './lib.mjs';

const venv = path.resolve(process.argv[2] || path.join(ROOT, 'target/python-venv'));
const out = path.resolve(process.argv[3] || path.join(ROOT, 'docs/notebook-widget.png'));
const D = path.join(ROOT, 'examples/data/digits');
const py = JSON.stringify;
const cells = (dir) => [
  [
    'import json, numpy as np, lethe',
    `a = np.load(${py(path.join(D, 'act_unlearned.npy'))})`,
    `runs = [{"unlearned": a, "oracle": np.load(${py(path.join(D, 'act_retrained.npy'))}), "original": np.load(${py(path.join(D, 'act_original.npy'))})}]`,
    `lethe.show(lethe.ruler(runs=runs, forget=${py(path.join(D, 'forget.txt'))}, retain=${py(path.join(D, 'retain.txt'))}))`,
  ].join('\n'),
  [
    `g = json.load(open(${py(path.join(ROOT, 'tests/fixtures/golden/neurips2023.json'))}))["forgetting_quality_case"]`,
    'lethe.show(lethe.epsilon(retrained=np.array(g["retrained_confs"]), unlearned=np.array(g["unlearned_confs"])))',
  ].join('\n'),
  [
    `gen = ${py(path.join(dir, 'gen.txt'))}`,
    'open(gen, "w").write("\\n".join(["the cat sat on the mat", "a dog is on the mat", "the cat is on the mat", "no cat here", "the mat is red", "on the mat sat the cat"] * 5))',
    'lethe.show(lethe.rouge(predictions=gen, reference_text="the cat is on the mat", bounds=True, x=[0.25, 0.5, 0.75]))',
  ].join('\n'),
  'lethe.show(lethe.sde(a[144:244], a[544:644], target=[a[0:100]], shuffles=50, seed=0))',
];

await withNotebook({ venv, app: 'lab', cells, viewport: { width: 1100, height: 1400 } }, async ({ page, ctx }) => {
  const shots = [];
  for (const command of ['ruler', 'epsilon', 'rouge', 'sde']) {
    const box = page.locator(`.lethe-notebook[data-command=${command}]`);
    await box.locator('figure svg').first().waitFor({ timeout: 120_000 });
    await box.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.waitForTimeout(300);
    const top = await box.locator('h3').first().boundingBox();
    const fig = await box.locator('figure').first().boundingBox();
    const clip = { x: fig.x - 8, y: top.y - 8, width: fig.width + 16, height: fig.y + fig.height - top.y + 16 };
    shots.push((await page.screenshot({ clip })).toString('base64'));
  }
  const grid = await ctx.newPage();
  await grid.setViewportSize({ width: 2000, height: 600 });
  await grid.setContent(
    `<body style="margin:0;background:#fff;display:grid;grid-template-columns:1fr 1fr;gap:4px;width:max-content">${shots.map((s) => `<img src="data:image/png;base64,${s}">`).join('')}</body>`,
  );
  await grid.locator('body').screenshot({ path: out });
  console.log(`wrote ${out}`);
});
