// 6. Embedding: the <lethe-eval> custom element (events, run({signal}), bad data), the iframe postMessage mode of
//    examples/embed.html (ready → load-data → result), and SSR safety (importing the modules in Node, which has no
//    DOM, does not throw and starts nothing).
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { ROOT, SITE, assert, cli, compare, eq, open, shot, workdir } from './lib.mjs';

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
    name: 'the iframe answers only its parent and reports errors as lethe:error',
    async fn({ context, base }) {
      const page = await open(context, base, '/embed.html', { width: 1100 });
      await page.waitForFunction(() => document.getElementById('frame-out').textContent.includes('m4'), null, { timeout: 30000 });
      const got = await page.evaluate(async () => {
        const frame = document.getElementById('frame');
        const origin = new URL(frame.src).origin;
        const replies = [];
        const done = new Promise((resolve) => {
          window.addEventListener('message', (e) => {
            if (e.source !== frame.contentWindow) return;
            replies.push(e.data.type);
            if (e.data.type === 'lethe:error') resolve(e.data);
          });
        });
        // Rows out of range for a 744-row input.
        frame.contentWindow.postMessage({ type: 'lethe:load-data', data: { unlearned: { values: new Float64Array(40), shape: [10, 4] } }, params: { forget: '0..5', retain: '5..50' }, run: true }, origin);
        const err = await done;
        return { replies, err };
      });
      assert(got.err.message.includes('out of range'), `error message: ${got.err.message}`);
      eq(got.err.input, 'retain', 'error names the input');
      return `messages: ${got.replies.join(' → ')}`;
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
