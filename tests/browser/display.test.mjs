// Issue 24 item 8, display: wide tables scroll inside their own box (keyboard-focusable, named) at 1400 px and
// 375 px instead of being cut off or widening the page; the membership audit's exported ROC stands alone (its title
// and the report's AUC in the SVG); RULER's results say which split column and value chose the forget and retain
// rows (and which index file), as the report records them.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SHOTS, assert, downloadJson, eq, fmt, npy, num, open, rng, runDone, slot, waitExample, workdir, write } from './lib.mjs';

/** Every result table of the page: its box, and whether anything of it is hidden or widens the page. */
async function tableFacts(page) {
  return page.evaluate(() => {
    const out = [];
    for (const t of document.querySelectorAll('.lethe-results table')) {
      if (!t.getClientRects().length) continue; // in a closed <details> or a hidden panel
      const box = t.closest('.lethe-table-scroll');
      const rt = t.getBoundingClientRect();
      const res = t.closest('.lethe-results').getBoundingClientRect();
      const name = t.querySelector('caption')?.textContent.slice(0, 40) || t.className;
      if (t.classList.contains('lethe-numbers')) {
        // A list of numbers wraps its text: it fits its column without a box.
        out.push({ name, numbers: true, past: rt.right - res.right });
        continue;
      }
      const rb = box?.getBoundingClientRect();
      out.push({
        name,
        boxed: !!box,
        tabindex: box?.getAttribute('tabindex'),
        label: box?.getAttribute('aria-label') || '',
        overflowX: box ? getComputedStyle(box).overflowX : '',
        // The box scrolls to the table's whole width, and the box itself is inside the results column.
        short: box ? rt.width - box.scrollWidth : null,
        past: box ? rb.right - res.right : rt.right - res.right,
      });
    }
    return { tables: out, page: document.documentElement.scrollWidth, inner: innerWidth };
  });
}

/** Fails unless every shown result table is in a focusable, named scroll box as wide as the column that scrolls to
 * the table's whole width (a list of numbers: inside the column), and the page does not scroll sideways. */
async function checkTables(page, width) {
  const f = await tableFacts(page);
  const bad = [];
  for (const t of f.tables) {
    if (t.numbers) {
      if (t.past > 1) bad.push(`${t.name}: ${t.past} px past the results' edge`);
      continue;
    }
    if (!t.boxed) bad.push(`${t.name}: not in a scroll box`);
    else {
      if (t.tabindex !== '0') bad.push(`${t.name}: box not focusable (tabindex ${t.tabindex})`);
      if (!t.label) bad.push(`${t.name}: box has no aria-label`);
      if (t.overflowX !== 'auto') bad.push(`${t.name}: box overflow-x ${t.overflowX}`);
      if (t.short > 1) bad.push(`${t.name}: the box scrolls ${t.short} px short of the table`);
      if (t.past > 1) bad.push(`${t.name}: the box is ${t.past} px past the results' edge`);
    }
  }
  eq(bad.length, 0, `tables at ${width} px:\n${bad.join('\n')}`);
  assert(f.page <= f.inner, `the page scrolls sideways at ${width} px: ${f.page} > ${f.inner}`);
  return f;
}

export const tests = [
  ...[1400, 375].map((width) => ({
    name: `wide tables scroll in their own focusable, named box at ${width} px; the page does not scroll sideways`,
    async fn({ context, base }) {
      const page = await open(context, base, '/', { width, height: 900 });
      await waitExample(page, 60000);
      await page.locator('#lethe-mia [data-value="headline"]').waitFor({ timeout: 30000 });
      // The SDE's per-target table with its many columns, and the diagnostics, are in the example's results.
      await page.locator('#lethe-sde .lethe-results table.lethe-targets').first().waitFor({ timeout: 30000 });
      const f = await checkTables(page, width);
      const boxed = f.tables.filter((t) => !t.numbers);
      assert(boxed.length >= 2, `the example shows its wide tables (${JSON.stringify(f.tables.map((t) => t.name))})`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${boxed.length} boxed tables, ${f.tables.length - boxed.length} number lists; page ${f.page} ≤ ${f.inner} px`;
    },
  })),
  ...[1400, 375].map((width) => ({
    name: `SDE with 100 targets: the per-target table (many columns) and the rules side by side scroll in their box at ${width} px`,
    async fn({ context, base }) {
      const dir = workdir();
      const page = await open(context, base, '/?example=0', { width, height: 900 });
      const sde = page.locator('#lethe-sde');
      await sde.locator('[data-param=mode]').selectOption('many');
      const it = slot(sde, 'in_training');
      await it.pick(path.join(dir, 'act_retrained.npy'));
      await it.status().filter({ hasText: '744 × 128' }).waitFor({ timeout: 15000 });
      await it.rows('144..244');
      await slot(sde, 'out_of_training').choose('act_retrained.npy');
      await slot(sde, 'out_of_training').rows('544..644');
      await slot(sde, 'draw-in').choose('act_retrained.npy');
      await slot(sde, 'draw-in').rows('344..544');
      await slot(sde, 'draw-out').choose('act_retrained.npy');
      await slot(sde, 'draw-out').rows('644..744');
      await sde.locator('[data-role="it_pool-rows"]').fill('144..344');
      await sde.locator('[data-role="oot_pool-rows"]').fill('544..744');
      for (const [k, v] of [['draw', '50'], ['size', '50'], ['refs', '10'], ['seed', '11']]) await sde.locator(`[data-param=${k}]`).fill(v);
      await sde.locator('[data-param=rule]').selectOption('calibrated');
      await slot(sde, 'draw-out').status().filter({ hasText: '100 × 128' }).waitFor();
      await runDone(sde);
      const f = await checkTables(page, width);
      const wide = f.tables.find((t) => t.label === 'Each target');
      assert(wide, `the per-target table is shown in its box (${JSON.stringify(f.tables.map((t) => t.name))})`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${f.tables.length} tables; page ${f.page} ≤ ${f.inner} px`;
    },
  })),
  {
    name: 'RULER: the results name the split column and value that chose the forget and retain rows, and an index file',
    async fn({ context, base }) {
      const dir = workdir();
      // One label per row of the 744-row demo files; 'retain' on 400 rows and 'forget' on the first 144.
      const split = Array.from({ length: 744 }, (_, i) => (i < 144 ? 'forget' : i < 544 ? 'retain' : 'test'));
      write(dir, 'split.txt', split.join('\n') + '\n');
      const page = await open(context, base, '/?example=0', { width: 1400, height: 900 });
      await page.locator('[data-role="inputs-file"]').setInputFiles(['act_unlearned.npy', 'act_retrained.npy', 'split.txt', 'retain.txt'].map((f) => path.join(dir, f)));
      await page.locator('.lethe-card[data-name="split.txt"] .lethe-hash').waitFor();
      await page.locator('.lethe-card[data-name="retain.txt"] .lethe-hash').waitFor();
      const ruler = page.locator('#lethe-ruler');
      await ruler.locator('select[data-role="unlearned"]').selectOption({ label: 'act_unlearned.npy' });
      await ruler.locator('select[data-role="oracle"]').selectOption({ label: 'act_retrained.npy' });
      await ruler.locator('[data-role="forget-rows-mode"]').selectOption('split');
      await ruler.locator('[data-role="forget-rows-source"]').selectOption({ label: 'split.txt' });
      await ruler.locator('[data-role="forget-split-value"]').fill('forget');
      await ruler.locator('[data-role="retain-rows-mode"]').selectOption('file');
      await ruler.locator('[data-role="retain-rows-source"]').selectOption({ label: 'retain.txt' });
      await runDone(ruler);
      const report = await downloadJson(page, ruler.locator('[data-action="export-json"]'));
      const rec = (role) => report.inputs.find((x) => x.role === role && x.format === 'rows');
      eq(rec('forget')?.spec, 'split.txt==forget', 'the report records the split column and value');
      const said = ruler.locator('[data-value="ruler.rows_source"]');
      const forget = await said.locator('[data-role="forget"]').textContent();
      const retain = await said.locator('[data-role="retain"]').textContent();
      eq(forget, `forget: ${report.result.runs[0].n_forget} rows where column split.txt = forget`, 'the forget rows’ source');
      eq(retain, `retain: ${report.result.runs[0].n_retain} rows listed in retain.txt`, 'the retain rows’ source');
      eq(report.result.runs[0].n_forget, 144, 'forget rows from the split column');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${forget}; ${retain}`;
    },
  },
  {
    name: 'membership audit: one score file split by a column goes in twice; the results name the column and each value',
    async fn({ context, base }) {
      const dir = workdir();
      const r = rng(7);
      const labels = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? 'member' : 'non'));
      write(dir, 'scores.npy', npy(labels.map((l) => r() + (l === 'member' ? 0.3 : 0)), [300]));
      write(dir, 'who.txt', labels.join('\n') + '\n');
      const page = await open(context, base, '/?example=0', { width: 1400, height: 900 });
      await page.locator('[data-role="inputs-file"]').setInputFiles(['scores.npy', 'who.txt'].map((f) => path.join(dir, f)));
      await page.locator('.lethe-card[data-name="who.txt"] .lethe-hash').waitFor();
      const mia = page.locator('#lethe-mia[data-panel]');
      for (const [role, value] of [['members', 'member'], ['non_members', 'non']]) {
        await slot(mia, role).choose('scores.npy');
        await mia.locator(`[data-role="${role}-rows-mode"]`).selectOption('split');
        await mia.locator(`[data-role="${role}-rows-source"]`).selectOption({ label: 'who.txt' });
        await mia.locator(`[data-role="${role}-split-value"]`).fill(value);
      }
      await runDone(mia);
      const report = await downloadJson(page, mia.locator('[data-action="export-json"]'));
      const said = mia.locator('[data-value="mia.rows_source"]');
      const members = await said.locator('[data-role="members"]').textContent();
      const non = await said.locator('[data-role="non_members"]').textContent();
      eq(members, `members: ${report.result.summary.n_members} rows where column who.txt = member`, 'the members’ source');
      eq(non, `non-members: ${report.result.summary.n_non_members} rows where column who.txt = non`, 'the non-members’ source');
      eq(report.result.summary.n_members, 100, 'members from the split column');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${members}; ${non}`;
    },
  },
  {
    name: 'the exported membership-audit ROC (SVG, and the PNG drawn from it) carries its title and the report’s AUC with its interval',
    async fn({ context, base }) {
      const page = await open(context, base, '/', { width: 1400, height: 900 });
      await waitExample(page, 60000);
      const mia = page.locator('#lethe-mia[data-panel]');
      await mia.locator('[data-value="headline"]').waitFor({ timeout: 30000 });
      await mia.locator('svg.lethe-plot path[data-name="roc"]').first().waitFor({ timeout: 5000 });
      const report = await downloadJson(page, mia.locator('[data-action="export-json"]'));
      const button = mia.getByRole('button', { name: /Download ROC .* as SVG/ });
      const [dl] = await Promise.all([page.waitForEvent('download'), button.click()]);
      const svg = readFileSync(await dl.path(), 'utf8');
      const doc = await page.evaluate((text) => {
        const d = new DOMParser().parseFromString(text, 'image/svg+xml');
        const root = d.documentElement;
        const texts = [...root.children].filter((e) => e.localName === 'text');
        const auc = texts.find((e) => e.getAttribute('data-name') === 'auc');
        return { root: root.localName, title: texts[0]?.textContent || '', auc: auc?.getAttribute('data-auc'), aucText: texts.slice(texts.indexOf(auc)).map((e) => e.textContent).join(' '), chart: !!root.querySelector('svg path[data-name="roc"]') };
      }, svg);
      eq(doc.root, 'svg', 'the export is an SVG');
      assert(/Membership audit: ROC/.test(doc.title), `the export has a title: "${doc.title}"`);
      assert(doc.chart, 'the export holds the chart');
      const auc = num(report.result.summary.auc);
      eq(Number(doc.auc), auc, "the export's AUC is the report's");
      assert(doc.aucText.includes(`AUC ${fmt(auc)}`), `the AUC is written: "${doc.aucText}"`);
      const ivl = report.result.delong?.interval || report.result.bootstrap?.interval;
      if (ivl) assert(doc.aucText.includes(`[${fmt(num(ivl.lo))}, ${fmt(num(ivl.hi))}]`), `its interval is written: "${doc.aucText}"`);
      // The PNG is drawn from the same titled SVG: 2× its width and height (the heading included).
      const [w, hgt] = await page.evaluate((text) => {
        const root = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
        return [Number(root.getAttribute('width')), Number(root.getAttribute('height'))];
      }, svg);
      const chartH = await mia.locator('.lethe-plot-holder svg').first().getAttribute('height');
      assert(hgt > Number(chartH), `the export is taller than the chart by its heading: ${hgt} vs ${chartH}`);
      const pngButton = mia.getByRole('button', { name: /Download ROC .* as PNG/ });
      const [pd] = await Promise.all([page.waitForEvent('download'), pngButton.click()]);
      const png = readFileSync(await pd.path());
      writeFileSync(path.join(SHOTS, 'mia-roc-export.png'), png);
      eq(png.toString('latin1', 12, 16), 'IHDR', 'a PNG');
      eq(`${png.readUInt32BE(16)} × ${png.readUInt32BE(20)}`, `${2 * w} × ${2 * hgt}`, 'the PNG holds the titled SVG at 2×');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${doc.aucText}; PNG ${png.readUInt32BE(16)} × ${png.readUInt32BE(20)}`;
    },
  },
];
