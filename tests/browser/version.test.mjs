// One version (issue 25): <lethe-eval>'s `version` (www/src/version.js, known before the wasm loads), the version
// its wasm module reports when it starts, the `lethe_version` of the report its run() gives, `lethe --version` and
// Cargo.toml's workspace version (tools/version.sh) are one number.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CLI, ROOT, assert, eq, open } from './lib.mjs';
import { VERSION } from '../../www/src/version.js';

export const tests = [
  {
    name: "<lethe-eval>'s version, its wasm module's and its report's equal `lethe --version` and Cargo.toml's",
    async fn({ context, base }) {
      const workspace = execFileSync('bash', [path.join(ROOT, 'tools/version.sh')], { encoding: 'utf8' }).trim();
      const cli = execFileSync(CLI, ['--version'], { encoding: 'utf8' }).trim();
      eq(cli, `lethe ${workspace}`, 'lethe --version');
      eq(VERSION, workspace, 'www/src/version.js');
      const page = await open(context, base, '/embed.html', { width: 1100 });
      const got = await page.evaluate(async () => {
        await customElements.whenDefined('lethe-eval');
        const el = document.createElement('lethe-eval');
        el.setAttribute('analysis', 'bounds');
        // Before it is in the document: no worker, no wasm yet.
        const before = el.version;
        const exported = (await import(new URL('./src/lethe-eval.js', document.baseURI).href)).VERSION;
        document.body.append(el);
        const info = await el.ready;
        el.data = { scores: { values: new Float64Array([0, 0.1, 0.5, 0, 0.9, 0.2, 0, 0.3]), shape: [8, 1] } };
        const report = await el.run();
        el.version = '9.9.9';
        return { before, exported, module: info.version, report: report.lethe_version, after: el.version, keys: Object.keys(report), headline: Object.keys(report.headline || {}) };
      });
      eq(got.before, workspace, "the element's version before it starts");
      eq(got.exported, workspace, "lethe-eval.js's VERSION");
      eq(got.module, workspace, "the wasm module's version");
      eq(got.report, workspace, "the report's lethe_version");
      eq(got.after, workspace, 'version is read-only');
      // The report's envelope is the published schema's (schema/report.schema.json; cli/tests/report_schema.rs
      // validates the CLI's reports in full): its required keys, and no key the schema does not list.
      const schema = JSON.parse(readFileSync(path.join(ROOT, 'schema/report.schema.json'), 'utf8'));
      eq(schema.$id, `urn:lethe:report-schema:${workspace}`, "the schema's $id");
      for (const k of schema.required) assert(got.keys.includes(k), `the element's report lacks ${k}`);
      for (const k of got.keys) assert(k in schema.properties, `the element's report has ${k}, which the schema does not list`);
      eq(got.headline.join(','), schema.$defs.headline.required.join(','), 'headline keys');
      assert(!page.errors.length, `page errors: ${page.errors.join('; ')}`);
      return `version ${workspace} everywhere`;
    },
  },
];
