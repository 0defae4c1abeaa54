// lethe.widget(…) in a real Jupyter front end in headless Chromium: analyses run in the notebook's browser by the wasm
// module, on arrays (and files) the kernel sent as binary buffers. The 1.5 MB engine is sent once per notebook page
// (asked of the kernel by the first view), not with each widget: five widgets, one message over 1 MB.
// - The form shows every option of the analysis, those the call left out at their default (alpha for mia).
// - MIA on arrays: the browser's report equals the kernel's lethe.mia report (numbers within 1e-12 relative: wasm's
//   libm against the native one; cli_parity's tolerances), is drawn (headline, ROC), and comes back to the kernel as `widget.report`.
// - A changed option clears the result here and in the kernel (`report` None, status "stale"); Run computes with it.
// - Cancel stops a long bootstrap within seconds, keeping the resamples done.
// - SDE on files named as the CLI names them (PATH@ROWS): the files' bytes travel, the report equals lethe.sde's.
// - Bad input (a NaN) is refused in the widget with the kernel's own message.
// - compare on a runs table (a CSV file): the browser's report equals lethe.compare's, its plots drawn.
// - A fix naming an option (bounds, alpha above 0.5) is in Python's words (`alpha=`), shown and in the report, as the
//   kernel's.
// - No request leaves 127.0.0.1 and no .wasm file is requested at all.
// Usage: node tests/notebook/widget.test.mjs [VENV] [--app lab|notebook|all]
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { withNotebook, parseArgs, ROOT, assert } from './lib.mjs';
import { compare } from '../browser/lib.mjs';

const { venv, apps } = parseArgs(process.argv.slice(2));
const scores = path.join(ROOT, 'examples/data/digits/mia_scores.npz');
const act = path.join(ROOT, 'examples/data/digits/act_unlearned.npy');
const runs = path.join(ROOT, 'examples/compare/runs.csv');

// The tolerances of tests/browser/cli_parity.test.mjs (the page against the CLI): 1e-12 relative (wasm32's libm
// against glibc's), the centred kernel sums that are 0 up to rounding compared absolutely, and the backend's device
// (wasm32 vs x86_64) left out.
const same = (got, want, what) => {
  for (const k of ['command', 'parameters', 'seed', 'inputs', 'headline', 'warnings', 'result']) {
    const r = compare(got[k], want[k], { rel: 1e-12, abs: 1e-10, absPaths: /kernels\.(kc|l)_sums\./, at: k, ignore: ['result.backend.device'] });
    assert(r.diffs.length === 0, `${what}: the browser's report differs from the kernel's:\n${r.diffs.slice(0, 5).join('\n')}`);
  }
};

for (const app of apps) {
  const t0 = Date.now();
  await withNotebook(
    {
      venv,
      app,
      cells: (dir) => [
        [
          'import numpy as np, lethe',
          `s = np.load(${JSON.stringify(scores)})["lira_unlearned"]`,
          'r = lethe.mia(s[:144], s[144:503], ci="both", resamples=200, seed=0)',
          `open(${JSON.stringify(path.join(dir, 'mia.json'))}, "w").write(r.to_json())`,
          'w = lethe.widget("mia", s[:144], s[144:503], ci="both", resamples=200, seed=0)',
          'w',
        ].join('\n'),
        [
          `q = lethe.sde(${JSON.stringify(`${act}@144..244`)}, ${JSON.stringify(`${act}@544..644`)}, target=[${JSON.stringify(`${act}@0..100`)}], shuffles=50, seed=0)`,
          `open(${JSON.stringify(path.join(dir, 'sde.json'))}, "w").write(q.to_json())`,
          `ws = lethe.widget("sde", ${JSON.stringify(`${act}@144..244`)}, ${JSON.stringify(`${act}@544..644`)}, target=[${JSON.stringify(`${act}@0..100`)}], shuffles=50, seed=0)`,
          'ws',
        ].join('\n'),
        [
          'bad = s[:144].copy(); bad[7] = np.nan',
          'try:\n    lethe.mia(bad, s[144:503])\nexcept lethe.LetheError as e:\n    kernel_message = str(e)',
          `open(${JSON.stringify(path.join(dir, 'bad.txt'))}, "w").write(kernel_message)`,
          'wb = lethe.widget("mia", bad, s[144:503])',
          'wb',
        ].join('\n'),
        [
          `kw = dict(metrics=["forget_accuracy:closest=retrain", "test_accuracy:higher"], baseline="finetune", resamples=500, seed=0)`,
          `c = lethe.compare(${JSON.stringify(runs)}, **kw)`,
          `open(${JSON.stringify(path.join(dir, 'compare.json'))}, "w").write(c.to_json())`,
          `wc = lethe.widget("compare", ${JSON.stringify(runs)}, **kw)`,
          'wc',
        ].join('\n'),
        [
          'u = np.random.default_rng(0).random(100)',
          'bd = lethe.bounds(u, alpha=0.7, one_sided=True)',
          `open(${JSON.stringify(path.join(dir, 'bounds.json'))}, "w").write(bd.to_json())`,
          'wbd = lethe.widget("bounds", u, alpha=0.7, one_sided=True)',
          'wbd',
        ].join('\n'),
      ],
    },
    async ({ page, dir, routes, outside, server, bigFrames }) => {
      const kernel = async (code) => {
        // Runs `code` in the notebook's kernel and returns what it printed.
        return page.evaluate(async (code) => {
          const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
          let out = '';
          const f = k.requestExecute({ code });
          f.onIOPub = (m) => {
            if (m.header.msg_type === 'stream') out += m.content.text;
            if (m.header.msg_type === 'error') out += `ERROR ${m.content.ename}: ${m.content.evalue}`;
          };
          await f.done;
          return out;
        }, code);
      };
      // The widget's state reaches the kernel after the browser drew it: ipywidgets holds a second state message back
      // until the kernel has answered the first ('running'), so a fast run's 'done' can arrive after the drawing.
      // Wait until the kernel's status for `name` is `want` (by default: anything but 'running'); 20 s at most.
      const settled = async (name, want = (s) => s !== 'running' && s !== '') => {
        let s;
        for (const t0 = Date.now(); Date.now() - t0 < 20_000; await new Promise((r) => setTimeout(r, 100))) {
          s = (await kernel(`print(${name}.status)`)).trim();
          if (want(s)) return s;
        }
        throw new Error(`the kernel's ${name}.status stayed "${s}" for 20 s after the browser drew the result`);
      };
      const views = page.locator('.lethe-notebook-run');
      await views.first().waitFor({ timeout: 60_000 });
      const [mia, sde, bad, cmp, bnd] = [0, 1, 2, 3, 4].map((k) => views.nth(k));

      // MIA: drawn in the browser, equal to the kernel's report, and back in the kernel.
      await mia.locator('.lethe-headline').waitFor({ timeout: 60_000 });
      const want = JSON.parse(readFileSync(path.join(dir, 'mia.json'), 'utf8'));
      assert((await mia.locator('.lethe-headline').first().innerText()).includes(want.headline.text.slice(0, 40)), 'the MIA headline is not drawn');
      assert((await mia.locator('svg').count()) > 0, 'the MIA widget drew no plot');
      await mia.screenshot({ path: path.join(ROOT, `target/notebook-widget-run-${app}.png`) });
      // Every option of mia in the form, not only those the call gave: alpha (not passed) at its default.
      assert((await mia.locator('[data-param="alpha"]').count()) === 1, 'the MIA form has no field for alpha, an option the call left out');
      assert((await mia.locator('[data-param="alpha"]').inputValue()) === '', 'alpha, left out by the call, is not shown at its default');
      await settled('w');
      const back = JSON.parse(await kernel('print(w.status); print(w.report.to_json())').then((t) => t.slice(t.indexOf('\n') + 1)));
      same(back, want, 'MIA');

      // A changed option clears the result, here and in the kernel; Run computes with it.
      await mia.locator('[data-param="resamples"]').fill('100');
      await mia.locator('[data-role="report"] .lethe-headline').waitFor({ state: 'detached' });
      await settled('w', (s) => s === 'stale');
      const stale = await kernel('print(w.status, w.report is None)');
      assert(stale.trim() === 'stale True', `after a changed option the kernel sees "${stale.trim()}", not "stale True"`);
      await mia.locator('[data-action="run"]').click();
      await mia.locator('.lethe-headline').waitFor({ timeout: 60_000 });
      await settled('w');
      const rerun = await kernel('print(w.status, w.report.parameters["resamples"], w.request["resamples"])');
      assert(rerun.trim() === 'done 100 100', `after Run with resamples 100 the kernel sees "${rerun.trim()}"`);

      // Cancel stops a long bootstrap and keeps what it did.
      await mia.locator('[data-param="resamples"]').fill('1000000');
      await mia.locator('[data-action="run"]').click();
      // Once the bootstrap reports progress (1,000,000 resamples take seconds here), cancel it.
      await page.waitForFunction((el) => el.querySelector('progress')?.value > 0, await mia.elementHandle(), { timeout: 30_000 });
      const tc = Date.now();
      await mia.locator('[data-action="cancel"]').click();
      await mia.locator('[data-action="run"]:not([disabled])').waitFor({ timeout: 20_000 });
      const stoppedIn = Date.now() - tc;
      await settled('w');
      const cancelled = await kernel('b = (w.report.result.get("bootstrap") or {}) if w.report else {}; print(w.status, b.get("resamples_done"), b.get("complete"))');
      assert(/^done \d+ False$/.test(cancelled.trim()), `after Cancel the kernel sees "${cancelled.trim()}" (expected a stopped bootstrap)`);

      // SDE on files: their bytes travel; the report equals the kernel's.
      await sde.scrollIntoViewIfNeeded();
      await sde.locator('.lethe-headline').waitFor({ timeout: 120_000 });
      const wantSde = JSON.parse(readFileSync(path.join(dir, 'sde.json'), 'utf8'));
      await settled('ws');
      const backSde = JSON.parse(await kernel('print(ws.report.to_json())'));
      same(backSde, wantSde, 'SDE');
      // Its histograms, from the plot data the wasm layer counted (as the page's).
      assert((await sde.locator('[data-plot], svg').count()) > 0, 'the SDE widget drew no histogram');

      // Bad input: refused in the widget with the kernel's message.
      const message = readFileSync(path.join(dir, 'bad.txt'), 'utf8');
      await bad.locator('.lethe-error:not(:empty)').waitFor({ state: 'attached', timeout: 60_000 });
      const shown = await bad.locator('.lethe-error').textContent();
      const core = message.replace(/^\[[^\]]*\]\s*/, '').replace(/^[a-z_]+: /, '');
      assert(shown.includes(core.slice(0, 30)) || shown.includes('not a number'), `the widget shows "${shown}" for a NaN; the kernel said "${message}"`);
      const status = await settled('wb');
      assert(status.startsWith('error:'), `the kernel sees status "${status.trim()}" for the refused run`);

      // Methods × seeds from a runs table (a text file the kernel sent): the browser's report equals lethe.compare's,
      // with its forest plot drawn.
      await cmp.scrollIntoViewIfNeeded();
      await cmp.locator('.lethe-headline').waitFor({ timeout: 120_000 });
      const wantCmp = JSON.parse(readFileSync(path.join(dir, 'compare.json'), 'utf8'));
      await settled('wc');
      const backCmp = JSON.parse(await kernel('print(wc.report.to_json())'));
      same(backCmp, wantCmp, 'compare');
      assert((await cmp.locator('svg').count()) > 0, 'the compare widget drew no plot');

      // A fix that names an option (the leakage bounds with alpha above 0.5): in a Python user's words in the widget
      // and in its report, as the kernel's (the worker says the layer's marks by the module's words.rs `python`).
      await bnd.scrollIntoViewIfNeeded();
      await bnd.locator('.lethe-headline').waitFor({ timeout: 60_000 });
      const wantBnd = JSON.parse(readFileSync(path.join(dir, 'bounds.json'), 'utf8'));
      const fix = wantBnd.warnings.find((w) => w.code === 'alpha_above_half')?.fix ?? '';
      assert(fix.includes('(alpha=)'), `the kernel's fix for alpha above 0.5 names alpha= : "${fix}"`);
      assert((await bnd.innerText()).includes(fix), `the widget does not show the kernel's fix "${fix}"`);
      await settled('wbd');
      const backBnd = JSON.parse(await kernel('print(wbd.report.to_json())'));
      same(backBnd, wantBnd, 'bounds');

      // Five widgets ran, each in its own worker; the engine (over 1 MB) reached the page once.
      assert(bigFrames.length === 1, `${bigFrames.length} messages over 1 MB reached the page (${bigFrames.join(', ')} bytes): the engine is to be sent once per notebook`);
      assert(outside.length === 0, `requests left 127.0.0.1: ${outside.join(', ')}`);
      const wasm = routes.filter((r) => /\.wasm\b/.test(r));
      assert(wasm.length === 0, `a .wasm file was requested: ${wasm.join(', ')}`);
      console.log(`ok: lethe.widget in ${server.name} — MIA equal to the kernel's (1e-12), a changed option cleared it, Run recomputed, Cancel answered in ${stoppedIn} ms, SDE on files equal, compare of a runs table equal, the NaN refused with the kernel's message, the bounds' fix in Python's words as the kernel's, ${routes.length} requests, none outside 127.0.0.1, no .wasm fetched, the engine sent once (${(bigFrames[0] / 1e6).toFixed(2)} MB) (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    },
  );
}
