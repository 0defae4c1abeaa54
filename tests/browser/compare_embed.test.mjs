// Issue 23, the comparison in the custom element: <lethe-eval analysis="compare"> given a runs table as .data (CSV
// text, and a File) with its options as attributes runs the layer's compare; its report's headline, warnings and
// result are those of `target/release/lethe compare` on the same table with the same options.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, assert, cli, compare, eq, open, workdir, write } from './lib.mjs';

const RUNS = readFileSync(path.join(ROOT, 'examples/compare/runs.csv'), 'utf8');

export const tests = [
  {
    name: '<lethe-eval analysis="compare">: a runs table as .data (text and a File) gives the headline and result of `lethe compare`',
    async fn({ context, base }) {
      const page = await open(context, base, '/embed.html', { width: 1100 });
      const out = await page.evaluate(async (runs) => {
        const element = (attrs) => {
          const el = document.createElement('lethe-eval');
          el.setAttribute('analysis', 'compare');
          for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
          document.body.append(el);
          return el;
        };
        const a = element({ baseline: 'retrain', metrics: 'mia_auc, test_accuracy', resamples: '500', seed: '3' });
        a.data = { runs };
        const byText = await a.run();
        const b = element({ metrics: 'test_accuracy', resamples: '500' });
        b.data = { runs: new File([runs], 'runs.csv') };
        const byFile = await b.run();
        return { byText, byFile, analysis: a.analysis };
      }, RUNS);
      eq(out.analysis, 'compare', 'the element keeps analysis="compare"');
      const dir = workdir();
      write(dir, 'runs.csv', RUNS);
      const wantText = cli(['compare', 'runs.csv', '--baseline', 'retrain', '--metric', 'mia_auc', '--metric', 'test_accuracy', '--resamples', '500', '--seed', '3'], dir);
      const wantFile = cli(['compare', 'runs.csv', '--metric', 'test_accuracy', '--resamples', '500'], dir);
      for (const [got, want, what] of [[out.byText, wantText, 'pasted table, baseline'], [out.byFile, wantFile, 'file, one metric']]) {
        eq(got.command, 'compare', `${what}: command`);
        eq(JSON.stringify(got.headline), JSON.stringify(want.headline), `${what}: headline`);
        eq(JSON.stringify(got.warnings), JSON.stringify(want.warnings), `${what}: warnings`);
        // The wasm build's libm may differ from the native one in the last bits of a p-value (as in compare.test.mjs).
        const r = compare(got.result, want.result, { at: 'result', rel: 1e-12 });
        assert(!r.diffs.length, `${what}: result differs from the CLI's: ${r.diffs.slice(0, 3).join('; ')}`);
      }
      assert(out.byText.result.comparisons.every((c) => c.a === 'retrain' || c.b === 'retrain'), 'the baseline attribute reached the request');
      eq(out.byFile.result.metrics.map((m) => m.metric).join(), 'test_accuracy', 'the metrics attribute reached the request');
      return `headline: ${out.byText.headline.text.slice(0, 80)}…`;
    },
  },
];
