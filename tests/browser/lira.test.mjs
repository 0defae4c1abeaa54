// LiRA from shadow models (issue 13 item 2; issue 14's LiRA folder), the section of the Membership audit panel: the
// folder tests/fixtures/golden_lira/exp (mi_lira_2021's layout, made by its make.py) is chosen with the folder picker,
// LiRA runs, and
//   * the exported JSON report equals `target/release/lethe lira exp … --json` run beside it: `result` (the LiRA
//     scores and the audit), `parameters`, `inputs`, `headline`, `warnings`, version, command, seed;
//   * the headline shown is the layer's, and the LiRA numbers are shown;
//   * stacked arrays (scores.npy + keep.npy picked as two files) give `lethe lira --scores … --keep …`'s report;
//   * a copy of the folder with one keep.npy missing gives the reader's message naming that folder and the fix.
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, assert, cli, compare, downloadJson, eq, npy, open, runDone, values, waitRun, write } from './lib.mjs';

const FIXTURE = path.join(ROOT, 'tests/fixtures/golden_lira');

/** The data of a .npy file (format 1.0) as numbers: `<f8` or `|b1` (as 0/1). */
function readNpy(file) {
  const b = readFileSync(file);
  const len = b.readUInt16LE(8);
  const header = b.subarray(10, 10 + len).toString('latin1');
  const data = b.subarray(10 + len);
  if (header.includes("'<f8'")) return Array.from(new Float64Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)));
  if (header.includes("'|b1'")) return Array.from(data, (v) => (v ? 1 : 0));
  throw new Error(`${file}: dtype not handled here: ${header}`);
}

async function liraSection(page) {
  const mia = page.locator('#lethe-mia[data-panel]');
  await mia.waitFor({ timeout: 30000 });
  await mia.locator('[data-role="lira-open"] > summary').click();
  const lira = page.locator('#lethe-lira[data-panel]');
  await lira.waitFor({ timeout: 30000 });
  return lira;
}

export const tests = [
  {
    name: 'LiRA on a chosen mi_lira_2021 folder equals `lethe lira --json`; a folder missing a keep.npy names it',
    async fn({ context, base }) {
      const page = await open(context, base, '/?example=0');
      const lira = await liraSection(page);
      await lira.locator('[data-role="lira-dir"]').setInputFiles(path.join(FIXTURE, 'exp'));
      await lira.locator('[data-value="lira.summary"]').filter({ hasText: /16 with scores/ }).waitFor({ timeout: 30000 });
      await lira.locator('[data-param=variant]').selectOption('online-fixed-variance');
      await lira.locator('[data-param=ci]').selectOption('both');
      await lira.locator('[data-param=resamples]').fill('200');
      await lira.locator('[data-param=seed]').fill('3');
      await runDone(lira);
      const report = await downloadJson(page, lira.locator('[data-action="export-json"]'));
      const c = cli(['lira', 'exp', '--variant', 'online-fixed-variance', '--ci', 'both', '--resamples', '200', '--seed', '3'], FIXTURE);
      // wasm32's libm and glibc may differ in the last ulp (ln in the Gaussian densities; the Clopper–Pearson
      // inversions carry such an ulp further), as in mia.test.mjs.
      const r = compare(report.result, c.result, { rel: 1e-12, abs: 1e-12, loose: { re: /tpr_at_fpr\[\d+\]\.(tpr|fpr)_interval\.(lo|hi)$/, rel: 1e-9 }, at: 'lira.result' });
      assert(r.diffs.length === 0, `result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
      for (const k of ['inputs', 'parameters']) {
        const d = compare(report[k], c[k], { at: `lira.${k}` });
        assert(d.diffs.length === 0, `${k} differ from the CLI:\n${d.diffs.slice(0, 8).join('\n')}`);
      }
      eq(JSON.stringify(report.headline), JSON.stringify(c.headline), 'headline');
      eq(JSON.stringify(report.warnings), JSON.stringify(c.warnings), 'warnings');
      eq(report.lethe_version, c.lethe_version, 'version');
      eq(report.command, 'lira', 'command');
      eq(report.seed, c.seed, 'seed');
      eq(report.cli_equivalent.split(' ').slice(0, 3).join(' '), 'lethe lira exp', 'cli line');
      eq(c.result.models, 16, 'models');
      const v = await values(lira);
      eq(v['headline.text'], c.headline.text, 'headline shown');
      assert(/online-fixed-variance/.test(v['lira.variant']), `variant shown: ${v['lira.variant']}`);
      await lira.locator('svg.lethe-plot path[data-name="roc"]').first().waitFor({ timeout: 5000 });

      // Stacked arrays (two files: the scores, and keep with "keep" in its name), as np.stack would make them.
      const dir = mkdtempSync(path.join(tmpdir(), 'lethe-lira-'));
      const scores = [];
      const keep = [];
      for (let m = 0; m < 16; m++) {
        scores.push(...readNpy(path.join(FIXTURE, `exp/experiment-${m}_16/scores/0000000100.npy`)));
        keep.push(...readNpy(path.join(FIXTURE, `exp/experiment-${m}_16/keep.npy`)));
      }
      write(dir, 'scores.npy', npy(scores, [16, 200, 2]));
      write(dir, 'keep.npy', npy(keep, [16, 200]));
      await lira.locator('[data-role="lira-files"]').setInputFiles([path.join(dir, 'scores.npy'), path.join(dir, 'keep.npy')]);
      await lira.locator('[data-value="lira.summary"]').filter({ hasText: /Stacked arrays/ }).waitFor({ timeout: 30000 });
      await lira.locator('[data-param=variant]').selectOption('offline');
      await lira.locator('[data-param=ci]').selectOption('delong');
      await lira.locator('[data-param=target]').fill('0');
      await runDone(lira);
      const stacked = await downloadJson(page, lira.locator('[data-action="export-json"]'));
      const cs = cli(['lira', '--scores', 'scores.npy', '--keep', 'keep.npy', '--variant', 'offline', '--target', '0'], dir);
      const rs = compare(stacked.result, cs.result, { rel: 1e-12, abs: 1e-12, loose: { re: /tpr_at_fpr\[\d+\]\.(tpr|fpr)_interval\.(lo|hi)$/, rel: 1e-9 }, at: 'lira.stacked' });
      assert(rs.diffs.length === 0, `stacked result differs from the CLI:\n${rs.diffs.slice(0, 8).join('\n')}`);
      for (const k of ['inputs', 'parameters']) {
        const d = compare(stacked[k], cs[k], { at: `lira.stacked.${k}` });
        assert(d.diffs.length === 0, `stacked ${k} differ from the CLI:\n${d.diffs.slice(0, 8).join('\n')}`);
      }
      eq(JSON.stringify(stacked.warnings), JSON.stringify(cs.warnings), 'stacked warnings');
      eq(stacked.cli_equivalent.split(' ').slice(0, 6).join(' '), 'lethe lira --scores scores.npy --keep keep.npy', 'stacked cli line');
      rmSync(dir, { recursive: true, force: true });
      await lira.locator('[data-param=target]').fill('');

      // An almost-right folder: experiment-5_16 without its keep.npy.
      const tmp = mkdtempSync(path.join(tmpdir(), 'lethe-lira-'));
      const broken = path.join(tmp, 'exp');
      cpSync(path.join(FIXTURE, 'exp'), broken, { recursive: true });
      rmSync(path.join(broken, 'experiment-5_16/keep.npy'));
      await lira.locator('[data-role="lira-dir"]').setInputFiles(broken);
      await lira.locator('[data-value="lira.summary"]').filter({ hasText: /16 experiment folder/ }).waitFor({ timeout: 30000 });
      await lira.locator('[data-action="run"]').click();
      const t = await waitRun(lira);
      assert(/failed/.test(t), `the run should fail: ${t}`);
      const err = (await lira.locator('.lethe-panel-error').allTextContents()).join(' ');
      assert(/experiment-5_16\//.test(err) && /no keep\.npy/.test(err) && /copy the keep\.npy/.test(err), `message: ${err}`);
      rmSync(tmp, { recursive: true, force: true });
      assert(page.errors.length === 0, page.errors.join('; '));
      return `page = CLI on ${c.result.members}+${c.result.non_members} target examples (AUC ${c.result.audit.summary.auc}); missing keep.npy named`;
    },
  },
];
