// 10. The initial page stays under its budget (issue 3: ~300 KB gzipped). From the network log of a real load of
//     index.html: everything requested before the first analysis is shown — the page, its stylesheet, its modules,
//     the worker and the lean wasm module (the example's data/ not counted) — must be exactly what
//     `./build.sh site_sizes` measures (tests/browser/weight.mjs), and its gzipped size within the budget. The full
//     module is requested only after the first results (performance marks `lethe:first-results` ≤
//     `lethe:full-requested`), with the pool's workers for multi-target SDE; once it has loaded the page can read
//     every format.
import { SITE, assert, eq, open, waitExample } from './lib.mjs';
import { BUDGET_BYTES, initialPage, weigh } from './weight.mjs';

export const tests = [
  {
    name: 'the initial page (network log of a real load) is what site_sizes measures, within its gzipped budget (weight.mjs BUDGET_BYTES)',
    async fn({ context, base }) {
      const requested = [];
      context.on('request', (r) => requested.push(new URL(r.url()).pathname.replace(/^\//, '') || 'index.html'));
      const page = await open(context, base, '/');
      await waitExample(page);
      // Loading ends with the full module and the SDE worker pool started (their files come from the HTTP cache).
      await page.locator('.lethe-root[data-module="full"][data-workers]').waitFor({ timeout: 30000 });
      // The example's index files were read by the full module.
      await page.locator('.lethe-card[data-name="forget.txt"] .lethe-hash').waitFor({ timeout: 15000 });
      const marks = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('lethe:')).map((m) => [m.name, m.startTime])));
      assert(marks['lethe:first-results'] <= marks['lethe:full-requested'], `the full module was asked for only after the first results: ${JSON.stringify(marks)}`);

      const firstFull = requested.findIndex((p) => p === 'src/full.js' || p.startsWith('pkg/lethe_web'));
      assert(firstFull > 0, `the full module was requested: ${requested.join(' ')}`);
      const initial = [...new Set(requested.slice(0, firstFull).filter((p) => !p.startsWith('data/')))];
      const measured = initialPage(SITE);
      // A module's two builds are one entry (weight.mjs counts the larger): the relaxed twin Chromium picks, or the
      // simd128 build a LETHE_SIMD=simd128 run forces.
      const one = (p) => p.replace(/_relaxed_bg\.wasm$/, '_bg.wasm');
      const missing = measured.filter((p) => !initial.map(one).includes(one(p)));
      const extra = initial.filter((p) => !measured.map(one).includes(one(p)));
      assert(missing.length === 0 && extra.length === 0, `site_sizes and the network log disagree: measured but not loaded ${missing.join(', ') || '—'}; loaded but not measured ${extra.join(', ') || '—'}`);
      // One of the lean module's two builds (simd128, or its relaxed-SIMD twin where the browser has it: worker.js).
      assert(initial.some((p) => /^pkg\/lethe_lean(_relaxed)?_bg\.wasm$/.test(p)), 'the lean module is part of the initial page');
      const w = weigh(SITE, initial);
      const kb = (b) => (b / 1024).toFixed(1);
      assert(w.total <= BUDGET_BYTES, `initial page ${kb(w.total)} KB gzipped, over the budget of ${kb(BUDGET_BYTES)} KB`);
      const after = [...new Set(requested.slice(firstFull).filter((p) => !p.startsWith('data/')))];
      const fullWasm = after.find((p) => /^pkg\/lethe_web(_relaxed)?_bg\.wasm$/.test(p)) || 'pkg/lethe_web_bg.wasm';
      const fullModule = ['pkg/lethe_web.js', fullWasm, 'src/full.js'];
      assert(fullModule.every((p) => after.includes(p)), `the full module was loaded: ${after.join(' ')}`);
      // The pool's workers (pool.test.mjs) load worker.js and its imports again, and the full module; the panels the
      // first results do not need (competition epsilon, leakage bounds, membership audit) come after them too, with
      // what the panels need once a person works with their own files (panels/guard.js, tools.js, panels/lira.js), and the
      // comparison panel (panels/compare.js, views/compare.js).
      const later = ['src/worker.js', 'src/spawn.js', 'pkg/lethe_lean.js', 'src/panels/epsilon.js', 'src/panels/bounds.js', 'src/panels/mia.js', 'src/panels/eps.js', 'src/views/ecdf.js', 'src/panels/guard.js', 'src/tools.js', 'src/panels/lira.js', 'src/panels/compare.js', 'src/views/compare.js'];
      const strays = after.filter((p) => !fullModule.includes(p) && !later.includes(p));
      assert(strays.length === 0, `requests after the first results beyond the full module and the pool's workers: ${strays.join(' ')}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${initial.length} files before the first results, ${kb(w.total)} KB gzipped (JS ${kb(w.js)} + wasm ${kb(w.wasm)} + CSS ${kb(w.css)} + HTML ${kb(w.html)}) ≤ ${kb(BUDGET_BYTES)} KB; then the full module and the SDE pool (${after.join(' ')})`;
    },
  },
];
