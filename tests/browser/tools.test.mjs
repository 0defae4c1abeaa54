// Tools' files dropped on the page (issue 14): each sample file the tools' own code wrote (tests/fixtures/tools,
// PROVENANCE*.md there) is dropped on the inputs, and
//   * its card says which tool wrote it — the same tool and kind as `lethe inspect --json` on the file — with the
//     analyses it offers as buttons;
//   * a membership-audit offer fills the Membership audit panel and runs there: the panel's exported JSON equals
//     `lethe … --json` of the offer's own command line (result, inputs, parameters, headline);
//   * the competition's two files together give the forget and final score, with the accuracies main.py's np.mean
//     gives (`lethe epsilon … --json`'s result and parameters);
//   * privacy-meter's memberships + signals dropped together are recognised as a set, whose per-model audits run;
//   * an almost-right file shows what is wrong and the fix on its card.
import { copyFileSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT, assert, cli, compare, downloadJson, eq, open } from './lib.mjs';

const TOOLS = path.join(ROOT, 'tests/fixtures/tools');

/** Copies `rels` (paths under tests/fixtures/tools) into a scratch folder under their base names. */
function scratch(rels) {
  const dir = mkdtempSync(path.join(tmpdir(), 'lethe-tools-'));
  for (const r of rels) copyFileSync(path.join(TOOLS, r), path.join(dir, path.basename(r)));
  return dir;
}

async function drop(page, dir, names) {
  await page.locator('[data-role="inputs-file"]').setInputFiles(names.map((n) => path.join(dir, n)));
}

/** The card of input `name` once its tool box (or almost-right note) is shown. */
async function toolCard(page, name, what = '[data-role="tool"]') {
  const card = page.locator(`.lethe-card[data-name="${name}"]`);
  await card.locator(what).first().waitFor({ timeout: 60000 });
  return card;
}

/** Runs the membership-audit offer `label` of `card` and returns the Membership audit panel's exported report. */
async function auditFromOffer(page, card, label) {
  const mia = page.locator('#lethe-mia[data-panel]');
  await card.locator('[data-role="tool-offer"]', { hasText: label }).first().click();
  await card.locator('[data-role="tool-result"], [data-role="tool-error"]').first().waitFor({ timeout: 60000 });
  const err = await card.locator('[data-role="tool-error"]').allTextContents();
  assert(err.length === 0, `the offer failed: ${err.join(' ')}`);
  return downloadJson(page, mia.locator('[data-action="export-json"]'));
}

function sameAsCli(report, c, what) {
  const r = compare(report.result, c.result, { rel: 1e-12, loose: { re: /_interval\.(lo|hi)$/, rel: 1e-9 }, at: `${what}.result` });
  assert(r.diffs.length === 0, `${what}: result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
  for (const k of ['inputs', 'parameters']) {
    const d = compare(report[k], c[k], { at: `${what}.${k}` });
    assert(d.diffs.length === 0, `${what}: ${k} differ from the CLI:\n${d.diffs.slice(0, 8).join('\n')}`);
  }
  eq(report.headline.call, c.headline.call, `${what}: headline call`);
}

/** The offer's command line as CLI arguments (its files are bare names in `dir`; single quotes as a POSIX shell). */
function argsOf(offerCli) {
  const words = [];
  for (const m of offerCli.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)) words.push(m[1] != null ? m[1].replaceAll("'\\''", "'") : m[2]);
  return words.slice(1);
}

export const tests = [
  {
    name: 'privacy-meter and LeakPro results: the card names the tool, the audit it offers runs in the Membership audit panel and equals the CLI',
    async fn({ context, base }) {
      const files = ['privacy_meter/log/report/exp/attack_result_0.npz', 'privacy_meter/log/report/exp/attack_result_average.npz', 'leakpro/rmia-3f2a9c0d1e4b5a67.json'];
      const dir = scratch(files);
      const page = await open(context, base, '/?example=0');
      const names = files.map((f) => path.basename(f));
      await drop(page, dir, names);
      const notes = [];
      for (const name of names) {
        const card = await toolCard(page, name);
        const ins = cli(['inspect', name], dir);
        const t = ins.result.tool.summary;
        eq(await card.locator('[data-role="tool"]').getAttribute('data-tool'), t.tool, `${name}: tool`);
        eq(await card.locator('[data-role="tool"]').getAttribute('data-kind'), t.kind, `${name}: kind`);
        const offer = t.offers.find((o) => o.analysis === 'mia');
        const report = await auditFromOffer(page, card, offer.label);
        sameAsCli(report, cli(argsOf(offer.cli), dir), name);
        notes.push(`${name}: AUC ${report.result.summary.auc}`);
      }
      assert(page.errors.length === 0, page.errors.join('\n'));
      return notes.join('; ');
    },
  },
  {
    name: "privacy-meter memberships + signals dropped together are a set; model 2's audit equals the CLI",
    async fn({ context, base }) {
      const dir = scratch(['privacy_meter/log/memberships.npy', 'privacy_meter/log/signals/rmia_signals.npy']);
      const page = await open(context, base, '/?example=0');
      await drop(page, dir, ['memberships.npy', 'rmia_signals.npy']);
      const set = page.locator('.lethe-card-toolset');
      await set.locator('[data-role="tool"][data-tool="privacy-meter"]').waitFor({ timeout: 60000 });
      const report = await auditFromOffer(page, set, 'Membership audit of model 2');
      sameAsCli(report, cli(['mia', '--scores', 'rmia_signals.npy#model=2', '--labels', 'memberships.npy#model=2'], dir), 'model 2');
      assert(page.errors.length === 0, page.errors.join('\n'));
    },
  },
  {
    name: "the competition's two files give the forget and final score with main.py's accuracies, as `lethe epsilon`",
    async fn({ context, base }) {
      const dir = scratch(['competition/retrain_confs.npz', 'competition/unlearned_confs.npz']);
      const page = await open(context, base, '/?example=0');
      await drop(page, dir, ['retrain_confs.npz', 'unlearned_confs.npz']);
      const card = await toolCard(page, 'retrain_confs.npz');
      eq(await card.locator('[data-role="tool"]').getAttribute('data-kind'), 'retrain_confs', 'kind');
      await card.locator('[data-role="tool-offer"]').first().click();
      await card.locator('[data-role="tool-result"], [data-role="tool-error"]').first().waitFor({ timeout: 60000 });
      const run = await page.evaluate(() => {
        const item = window.lethe.store.list().find((i) => i.name === 'retrain_confs.npz');
        return Object.values(item.runs)[0];
      });
      assert(!run.error, run.error);
      const c = cli(['epsilon', '--retrained', 'retrain_confs.npz#retrained_confs', '--unlearned', 'unlearned_confs.npz#unlearned_confs'], dir);
      const r = compare(run.out.result, c.result, { rel: 1e-12, at: 'epsilon.result' });
      assert(r.diffs.length === 0, `result differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
      const d = compare(run.out.parameters, c.parameters, { at: 'epsilon.parameters' });
      assert(d.diffs.length === 0, `parameters differ:\n${d.diffs.join('\n')}`);
      assert(run.out.warnings.some((w) => w.code === 'accuracies_from_files'), 'accuracies_from_files warning');
      assert(page.errors.length === 0, page.errors.join('\n'));
      return `final score ${run.out.result.final_scores[0]}`;
    },
  },
  {
    name: 'almost-right files say what is wrong and the fix on their card',
    async fn({ context, base }) {
      const dir = scratch(['leakpro/almost_counts_only.json', 'competition/almost_flat_confs.npz']);
      const page = await open(context, base, '/?example=0');
      await drop(page, dir, ['almost_counts_only.json', 'almost_flat_confs.npz']);
      const a = await toolCard(page, 'almost_counts_only.json', '[data-role="tool-problem"]');
      assert((await a.textContent()).includes('from_full_scores'), 'LeakPro counts-only fix');
      const b = await toolCard(page, 'almost_flat_confs.npz', '[data-role="tool-problem"]');
      assert((await b.textContent()).includes('re-save them stacked'), 'competition flat fix');
    },
  },
  {
    name: "the other engineers' formats (open-unlearning, TOFU, MUSE) dropped: the card names the tool; a membership-audit offer equals the CLI",
    async fn({ context, base }) {
      const rels = [];
      const walk = (d) => {
        for (const f of readdirSync(path.join(TOOLS, d))) {
          const r = path.join(d, f);
          if (statSync(path.join(TOOLS, r)).isDirectory()) walk(r);
          else if (f.endsWith('.json')) rels.push(r);
        }
      };
      for (const d of ['open_unlearning', 'tofu', 'muse']) {
        try {
          walk(d);
        } catch {}
      }
      if (!rels.length) return 'no such sample files yet';
      const notes = [];
      for (const rel of rels) {
        const dir = scratch([rel]);
        const name = path.basename(rel);
        const ins = cli(['inspect', name], dir);
        const t = ins.result.tool?.summary;
        if (!t) continue;
        const page = await open(context, base, '/?example=0');
        await drop(page, dir, [name]);
        const card = await toolCard(page, name);
        eq(await card.locator('[data-role="tool"]').getAttribute('data-tool'), t.tool, `${rel}: tool`);
        const offer = t.offers.find((o) => o.analysis === 'mia' && o.inputs.every((i) => i.file === name));
        if (offer) {
          const report = await auditFromOffer(page, card, offer.label);
          sameAsCli(report, cli(argsOf(offer.cli), dir), rel);
          notes.push(`${rel}: ${offer.label}`);
        } else notes.push(`${rel}: ${t.tool} ${t.kind}`);
        assert(page.errors.length === 0, page.errors.join('\n'));
        await page.close();
      }
      return notes.join('; ');
    },
  },
];
