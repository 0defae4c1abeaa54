// 6. Embedding: the <lethe-eval> custom element (events, run({signal}), bad data), the iframe postMessage mode of
//    examples/embed.html (ready → load-data → result), and SSR safety (importing the modules in Node, which has no
//    DOM, does not throw and starts nothing).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { DEMO, ROOT, SITE, assert, cli, compare, eq, open, shot, workdir, write } from './lib.mjs';

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * Compares a page's RULER/SDE result with the CLI's: 1e-12 relative, and the sums of centred kernels (rounding
 * noise around 0) absolutely, as cli_parity.test.mjs does.
 */
function sameResult(page, c, label) {
  const r = compare(page, c, { rel: 1e-12, abs: 1e-10, absPaths: /kernels\.(kc|l)_sums\./, at: label, ignore: [`${label}.backend.device`] });
  assert(r.diffs.length === 0, `${label} differs from the CLI:\n${r.diffs.slice(0, 8).join('\n')}`);
  return r.compared;
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json' };

/**
 * A static server for the site that sends CORS headers (as GitHub Pages does), plus /xo.html: a host page with a
 * strict Content-Security-Policy that embeds <lethe-eval> from the *other* origin (127.0.0.1 vs localhost).
 */
async function corsServer() {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname === '/xo.html') {
      const widget = `http://127.0.0.1:${server.address().port}`;
      const wasm = url.searchParams.get('wasm') === '0' ? '' : " 'wasm-unsafe-eval'";
      const csp = `default-src 'none'; script-src ${widget}${wasm}; worker-src blob:; connect-src ${widget}; style-src ${widget}; img-src data:`;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<!doctype html><html><head><meta http-equiv="Content-Security-Policy" content="${csp}"><link rel="icon" href="data:,">
        <script type="module" src="${widget}/src/lethe-eval.js"></script></head>
        <body><h1>Host on another origin, strict CSP</h1><lethe-eval id="el" analysis="bounds" alpha="0.05"></lethe-eval></body></html>`);
      return;
    }
    const file = path.join(SITE, path.normalize(url.pathname).replace(/^([/\\])+/, ''));
    try {
      const body = await readFile(file.endsWith(path.sep) ? path.join(file, 'index.html') : file);
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'access-control-allow-origin': '*' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return server;
}

export const tests = [
  {
    name: 'examples/embed.html: custom element and iframe results equal the CLI',
    async fn({ context, base }) {
      const page = await open(context, base, '/embed.html', { width: 1100 });
      await page.waitForFunction(() => document.getElementById('sde-out').textContent.includes('jsd_target_it'), null, { timeout: 30000 });
      await page.waitForFunction(() => document.getElementById('frame-out').textContent.includes('m4'), null, { timeout: 30000 });
      const dir = workdir();
      const sde = cli(['sde', '--it', 'act_unlearned.npy@144..244', '--oot', 'act_unlearned.npy@544..644', '--target', 'act_unlearned.npy@0..100'], dir);
      const verdict = JSON.parse(await page.locator('#sde-out').textContent());
      const c = compare(verdict, sde.result.targets[0].verdict, { rel: 1e-12 });
      assert(c.diffs.length === 0, `custom element verdict differs: ${c.diffs.join('; ')}`);
      const ruler = cli(['ruler', '--unlearned', 'act_unlearned.npy', '--oracle', 'act_retrained.npy', '--original', 'act_original.npy', '--forget', '0..144', '--retain', '144..544'], dir);
      const r = ruler.result.runs[0];
      const m = JSON.parse(await page.locator('#frame-out').textContent());
      eq(m.m1, r.oracle_similarity, 'iframe m1');
      eq(m.m4, r.nn_percentile_rank.value, 'iframe m4');
      // The frame is as tall as its content (lethe:resize), not the browser's 150 px nor the page's first guess.
      await page.waitForFunction(() => {
        const f = document.getElementById('frame');
        const app = f.contentDocument.getElementById('app');
        return Math.abs(f.getBoundingClientRect().height - Math.ceil(app.getBoundingClientRect().height)) <= 2;
      }, null, { timeout: 10000 });
      const note = page.locator('#csp-note');
      assert(await note.isVisible(), 'the CSP note is visible');
      const noteText = await note.textContent();
      for (const w of ["'wasm-unsafe-eval'", 'worker-src blob:', 'frame-src']) assert(noteText.includes(w), `the CSP note names ${w}: ${noteText}`);
      await shot(page, 'embed.png', { fullPage: true });
      assert(page.errors.length === 0, page.errors.join('; '));
      return 'custom element verdict and iframe metrics match';
    },
  },
  {
    name: '<lethe-eval> fires progress/result/error events and run({signal}) cancels',
    async fn({ context, base }) {
      const page = await open(context, base, '/embed.html', { width: 1100 });
      await page.waitForFunction(() => document.getElementById('sde-out').textContent.includes('jsd_target_it'), null, { timeout: 30000 });
      const out = await page.evaluate(async () => {
        const log = [];
        // Bounds on a matrix handed over as a typed array.
        const el = document.createElement('lethe-eval');
        el.setAttribute('analysis', 'bounds');
        el.setAttribute('alpha', '0.05');
        document.body.append(el);
        for (const t of ['progress', 'result', 'error']) el.addEventListener(t, (e) => log.push(t));
        el.data = { scores: { values: new Float64Array([0, 0.1, 0.5, 0, 0.9, 0.2, 0, 0.3]), shape: [8, 1] } };
        const report = await el.run();
        // Bad data: a score outside [0, 1] → rejected run and an error event naming the input.
        el.data = { scores: { values: new Float64Array([0.5, 2]), shape: [2, 1] } };
        let rejected = null;
        try {
          await el.run();
        } catch (e) {
          rejected = e.message;
        }
        // SDE cancelled through run({signal}): a partial report.
        const s = document.createElement('lethe-eval');
        s.setAttribute('analysis', 'sde');
        s.setAttribute('shuffles', '500000');
        document.body.append(s);
        const rows = (n) => Float64Array.from({ length: n * 16 }, (_, i) => Math.sin(i * 0.37) + (i % 5));
        s.data = { in_training: { values: rows(400), shape: [400, 16] }, out_of_training: { values: rows(400).map((v) => v * 1.1), shape: [400, 16] }, target: { values: rows(400).map((v) => v + 0.5), shape: [400, 16] } };
        let progress = 0;
        s.addEventListener('progress', () => progress++);
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 1500);
        const partial = await s.run({ signal: ac.signal });
        return { log, alpha: report.result.params.alpha, n: report.result.n, rejected, partialComplete: partial.result.complete, partialShuffles: partial.result.in_training_reference.values.length, progress };
      });
      eq(out.alpha, 0.05, 'alpha attribute applied');
      eq(out.n, 8, 'typed-array data used');
      assert(out.log.includes('result') && out.log.includes('error'), `events: ${out.log}`);
      assert(/outside \[0, 1\]/.test(out.rejected || ''), `bad data rejected: ${out.rejected}`);
      eq(out.partialComplete, false, 'cancelled run is partial');
      assert(out.partialShuffles > 0 && out.partialShuffles < 500000, `partial shuffles ${out.partialShuffles}`);
      assert(out.progress > 0, 'progress events');
      return `partial SDE after abort: ${out.partialShuffles} shuffles, ${out.progress} progress events`;
    },
  },
  {
    name: 'the iframe ignores lethe:load-data from a window that is not its parent, and reports errors to its parent as lethe:error',
    async fn({ context, base }) {
      const page = await open(context, base, '/embed.html', { width: 1100 });
      await page.waitForFunction(() => document.getElementById('frame-out').textContent.includes('m4'), null, { timeout: 30000 });
      const got = await page.evaluate(async () => {
        const frame = document.getElementById('frame');
        const origin = new URL(frame.src).origin;
        const replies = [];
        let errorSeen = null;
        const error = new Promise((resolve) => {
          window.addEventListener('message', (e) => {
            if (e.source !== frame.contentWindow) return;
            // The frame's own height reports are no reply (it posts one whenever its content grows or shrinks).
            if (e.data.type === 'lethe:resize') return;
            replies.push(e.data.type);
            if (e.data.type === 'lethe:error') resolve((errorSeen = e.data));
          });
        });
        // Rows out of range for a 10-row input: if the frame took this data and ran, it would answer lethe:error.
        const bad = { type: 'lethe:load-data', data: { unlearned: { values: new Float64Array(40), shape: [10, 4] } }, params: { forget: '0..5', retain: '5..50' }, run: true };
        // 1. From a sibling frame of the same origin (not the lethe frame's parent), posted by the sibling's own
        //    script (so the message's source is the sibling): must be ignored.
        const sibling = document.createElement('iframe');
        sibling.title = 'another frame';
        sibling.srcdoc = `<script>addEventListener('message', (e) => {
          parent.document.getElementById('frame').contentWindow.postMessage(e.data.message, e.data.origin);
          parent.postMessage({ type: 'sibling:sent' }, '*');
        });<\/script>`;
        const loaded = new Promise((r) => sibling.addEventListener('load', r, { once: true }));
        document.body.append(sibling);
        await loaded;
        const sent = new Promise((r) => window.addEventListener('message', (e) => e.data?.type === 'sibling:sent' && r(), { once: false }));
        sibling.contentWindow.postMessage({ message: bad, origin }, '*');
        await sent;
        // 2. Long enough for a run on 10 rows to have answered (it takes milliseconds).
        await new Promise((r) => setTimeout(r, 3000));
        const ignored = { replies: [...replies], error: errorSeen };
        const unlearnedStatus = frame.contentDocument.querySelector('[data-slot="unlearned"] .lethe-slot-status')?.textContent;
        // 3. The same message from the parent: taken, run, and answered with an error naming the input.
        frame.contentWindow.postMessage(bad, origin);
        const err = await error;
        return { ignored, unlearnedStatus, replies, err };
      });
      eq(got.ignored.replies.length, 0, `no reply to a non-parent's message (got ${got.ignored.replies.join(', ')})`);
      assert(/744 × 128/.test(got.unlearnedStatus || ''), `the frame kept its data: ${got.unlearnedStatus}`);
      assert(got.err.message.includes('out of range'), `error message: ${got.err.message}`);
      eq(got.err.input, 'retain', 'error names the input');
      return `non-parent message ignored (3 s, no reply, data kept); from the parent: ${got.replies.join(' → ')}`;
    },
  },
  {
    name: '<lethe-eval> from another origin works under the documented strict CSP, and says what is missing without wasm-unsafe-eval',
    async fn({ context }) {
      const server = await corsServer();
      const port = server.address().port;
      try {
        const page = await open(context, `http://localhost:${port}`, '/xo.html', { width: 1000 });
        const out = await page.evaluate(async () => {
          const el = document.getElementById('el');
          el.data = { scores: { values: new Float64Array([0, 0.2, 0.4, 0, 0.9, 0, 0.1, 0.3]), shape: [8, 1] } };
          const report = await el.run();
          return { n: report.result.n, alpha: report.result.params.alpha };
        });
        eq(out.n, 8, 'ran under the strict CSP');
        eq(out.alpha, 0.05, 'attribute applied');
        await shot(page, 'cross-origin-csp.png');
        const csp = page.errors.filter((e) => /Content Security Policy/i.test(e));
        assert(csp.length === 0, `CSP violations: ${csp.join('; ')}`);
        const blocked = await open(context, `http://localhost:${port}`, '/xo.html?wasm=0', { width: 1000 });
        const msg = await blocked.evaluate(() => document.getElementById('el').run().then(() => 'ran', (e) => e.message));
        assert(/wasm-unsafe-eval/.test(msg), `message without 'wasm-unsafe-eval': ${msg}`);
        return 'cross-origin element ran under default-src none + script-src widget wasm-unsafe-eval + worker-src blob:';
      } finally {
        server.close();
      }
    },
  },
  {
    name: '<lethe-eval analysis="ruler">: forget/retain as attributes, as an index file, and as a split column in .data equal `lethe ruler --json`',
    async fn({ context, base }) {
      const page = await open(context, base, '/embed.html', { width: 1100 });
      await page.waitForFunction(() => document.getElementById('sde-out').textContent.includes('jsd_target_it'), null, { timeout: 30000 });
      const out = await page.evaluate(async () => {
        const base = new URL('./data/digits/', location.href);
        const get = (n) => fetch(new URL(n, base));
        const [unlearned, oracle, original] = await Promise.all(['act_unlearned.npy', 'act_retrained.npy', 'act_original.npy'].map((n) => get(n).then((r) => r.arrayBuffer())));
        const models = {
          unlearned: { data: unlearned, name: 'act_unlearned.npy' },
          oracle: { data: oracle, name: 'act_retrained.npy' },
          original: { data: original, name: 'act_original.npy' },
        };
        const element = (attrs) => {
          const el = document.createElement('lethe-eval');
          el.setAttribute('analysis', 'ruler');
          for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
          document.body.append(el);
          return el;
        };
        // 1. Rows as attributes, as in the iframe's query string.
        const a = element({ forget: '0..144', retain: '144..544' });
        a.data = models;
        const byAttr = await a.run();
        // 2. Rows in .data: the forget index file (a Blob of forget.txt) and a retain range.
        const b = element({});
        b.data = { ...models, forget: { data: await get('forget.txt').then((r) => r.blob()), name: 'forget.txt' }, retain: '144..544' };
        const byFile = await b.run();
        // 3. A split column: one label per row (forget, retain, test), rows chosen by label.
        const labels = Array.from({ length: 744 }, (_, i) => (i < 144 ? 'forget' : i < 544 ? 'retain' : 'test')).join('\n') + '\n';
        const split = new File([labels], 'split.txt');
        const c = element({});
        c.data = { ...models, forget: { data: split, split: 'forget' }, retain: { data: split, split: 'retain' } };
        const bySplit = await c.run();
        return { byAttr, byFile, bySplit, labels };
      });
      const dir = workdir();
      const args = ['ruler', '--unlearned', 'act_unlearned.npy', '--oracle', 'act_retrained.npy', '--original', 'act_original.npy', '--retain', '144..544'];
      const byRange = cli([...args, '--forget', '0..144'], dir);
      const byFile = cli([...args, '--forget', 'forget.txt'], dir);
      let n = sameResult(out.byAttr.result, byRange.result, 'attributes');
      eq(out.byAttr.parameters.forget, '0..144', 'forget attribute in the report');
      eq(out.byAttr.parameters.retain, '144..544', 'retain attribute in the report');
      n += sameResult(out.byFile.result, byFile.result, 'index file');
      eq(out.byFile.parameters.forget, 'forget.txt', 'index file named in the report');
      const rec = out.byFile.inputs.find((i) => i.role === 'forget');
      assert(rec, `the forget index file is among the report's inputs: ${JSON.stringify(out.byFile.inputs.map((i) => i.role))}`);
      eq(rec.sha256, sha256(readFileSync(path.join(DEMO, 'forget.txt'))), 'forget.txt SHA-256 in the report');
      n += sameResult(out.bySplit.result, byRange.result, 'split column');
      eq(out.bySplit.parameters.forget, 'split.txt==forget', 'split column named in the report');
      eq(out.bySplit.result.runs[0].n_forget, 144, 'forget rows from the split column');
      // The report's own `lethe …` command reproduces it, split column and all (inputs with their SHA-256).
      write(dir, 'split.txt', out.labels);
      const cmd = out.bySplit.cli_equivalent.split(' ');
      assert(cmd[0] === 'lethe' && cmd.at(-1) === '--json', out.bySplit.cli_equivalent);
      const again = cli(cmd.slice(1, -1), dir);
      n += sameResult(out.bySplit.result, again.result, 'cli_equivalent');
      for (const k of ['inputs', 'parameters']) {
        const d = compare(out.bySplit[k], again[k], { at: k });
        assert(d.diffs.length === 0, `${k} differ from the cli_equivalent's:\n${d.diffs.slice(0, 6).join('\n')}`);
      }
      eq(out.bySplit.inputs.find((i) => i.role === 'retain').sha256, sha256(Buffer.from(out.labels)), 'split file SHA-256');
      return `${n} numbers equal the CLI (rows by attribute, index file, split column)`;
    },
  },
  {
    name: 'setting .data switches the panel mode (draw pools → many targets; generations → ROUGE-L), an explicit mode wins; pasted text has a digest',
    async fn({ context, base }) {
      const page = await open(context, base, '/embed.html', { width: 1100 });
      await page.waitForFunction(() => document.getElementById('sde-out').textContent.includes('jsd_target_it'), null, { timeout: 30000 });
      const gens = 'the launch code is amber\nsorry I cannot say\nthe code is amber falcon\n';
      const ref = 'the launch code is amber falcon seven';
      const out = await page.evaluate(async ({ gens, ref }) => {
        const act = await fetch(new URL('./data/digits/act_retrained.npy', location.href)).then((r) => r.arrayBuffer());
        const file = (rows) => ({ data: act, rows, name: 'act_retrained.npy' });
        const sde = (attrs) => {
          const el = document.createElement('lethe-eval');
          el.setAttribute('analysis', 'sde');
          for (const [k, v] of Object.entries({ rule: 'paper', shuffles: '40', seed: '2', draw: '2', size: '100', ...attrs })) el.setAttribute(k, v);
          document.body.append(el);
          el.data = { in_training: file('144..244'), out_of_training: file('544..644'), 'draw-in': file('244..544'), 'draw-out': file('644..744') };
          return el;
        };
        const modeOf = (el) => el.shadowRoot.querySelector('[data-param="mode"]').value;
        // No mode attribute: the draw pools switch the panel to many targets.
        const many = sde({});
        const report = await many.run();
        const manyMode = modeOf(many);
        // mode="single" set by the host wins: the pools are set but not used (no target set → an error).
        const single = sde({ mode: 'single' });
        const singleError = await single.run().then(() => null, (e) => e.message);
        const singleMode = modeOf(single);
        // Bounds: generations and reference as text switch to ROUGE-L; pasted text is recorded with its SHA-256.
        const b = document.createElement('lethe-eval');
        b.setAttribute('analysis', 'bounds');
        document.body.append(b);
        b.data = { predictions: gens, reference: ref };
        const rouge = await b.run();
        return { report, manyMode, singleError, singleMode, boundsMode: modeOf(b), rouge };
      }, { gens, ref });
      eq(out.manyMode, 'many', 'mode after setting draw pools');
      const c = cli(['sde', '--it', 'act_retrained.npy@144..244', '--oot', 'act_retrained.npy@544..644', '--draw-in', 'act_retrained.npy@244..544', '--draw-out', 'act_retrained.npy@644..744', '--draw', '2', '--size', '100', '--shuffles', '40', '--seed', '2'], workdir());
      const n = sameResult(out.report.result, c.result, 'many targets');
      eq(out.report.result.targets.length, 4, 'targets drawn from the two pools');
      eq(out.singleMode, 'single', 'an explicit mode attribute wins');
      assert(/target/.test(out.singleError || ''), `single mode without a target set: ${out.singleError}`);
      eq(out.boundsMode, 'generations', 'bounds mode after setting generations');
      eq(out.rouge.command, 'rouge', 'ROUGE-L report');
      const [p, r] = ['predictions', 'reference'].map((role) => out.rouge.inputs.find((i) => i.role === role));
      eq(p.path, '(pasted)', 'pasted generations named');
      eq(p.sha256, sha256(Buffer.from(gens, 'utf8')), 'SHA-256 of the pasted generations');
      eq(r.sha256, sha256(Buffer.from(ref, 'utf8')), 'SHA-256 of the pasted reference');
      eq(out.rouge.parameters.predictions, '(pasted)', 'report parameters');
      return `many-target SDE from .data equals the CLI (${n} numbers); explicit mode kept; pasted digests recorded`;
    },
  },
  {
    name: '<lethe-eval analysis="mia" example> fetches only the membership audit\'s example data and shows no SDE/RULER note',
    async fn({ context, base }) {
      const html = '<!doctype html><html><head><link rel="icon" href="data:,"><script type="module" src="src/lethe-eval.js"></script></head><body><lethe-eval analysis="mia" example></lethe-eval></body></html>';
      await context.route((u) => u.href.startsWith(`${base}/mia-element.html`), (r) => r.fulfill({ contentType: 'text/html', body: html }));
      const paths = [];
      context.on('request', (r) => paths.push(new URL(r.url()).pathname));
      const page = await open(context, base, '/mia-element.html');
      const note = page.locator('lethe-eval .lethe-example-note[data-example-files]');
      await note.waitFor({ state: 'attached', timeout: 60000 });
      await page.locator('lethe-eval [data-value="mia.example"]').waitFor({ timeout: 60000 });
      const data = paths.filter((p) => p.includes('/data/'));
      eq(data.join(' '), '/data/digits/mia_scores.npz', 'example data fetched');
      eq(await note.evaluate((n) => n.hidden && n.textContent), '', 'SDE/RULER example note');
      eq(page.errors.join('; '), '', 'page errors');
      return `fetched ${data.join(', ')} only`;
    },
  },
  {
    name: 'importing the modules without a DOM (Node, as a docs site renders) does not throw',
    async fn() {
      const script = `
        const el = await import('./www/src/lethe-eval.js');
        const w = await import('./www/src/widget.js');
        if (typeof el.LetheEval !== 'function' || typeof w.create !== 'function') throw new Error('exports missing');
        if (typeof globalThis.customElements !== 'undefined') throw new Error('unexpected DOM');
        console.log('imported');`;
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
      eq(out.trim(), 'imported', 'node output');
      return 'lethe-eval.js and widget.js import cleanly in Node';
    },
  },
];
