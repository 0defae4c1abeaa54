// One self-contained lethe.html from the built site (issue 25): the page with its styles, its modules, its worker,
// both wasm modules and the built-in example's data inlined, so it works opened from disk (file://) with the network
// off, and makes no request of any kind.
//
//   node tools/single_page.mjs [SITE=target/site] [OUT=target/dist/lethe.html]
//
// No bundler: every file the page needs (the module graph from src/main.js — static and dynamic imports — the
// worker's from src/worker.js, both wasm modules and the example's files) goes, gzip-compressed and base64-encoded,
// into one inert <script> element. A small loader unpacks it with DecompressionStream and gives each module a URL —
// the page's a blob: URL, the worker's a data: URL (see `worker` below for why) — writing each after the modules it
// imports, with those specifiers replaced by their URLs. It then tells base.js which files the page holds (assetUrl()
// answers the worker's and the example's URLs from them, and the engine hands the wasm modules to the worker in
// `init`) and imports src/main.js. The page's modules run as they are, worker pool and lazy panels included.
//
// The relaxed-SIMD twins of the wasm modules (pkg/*_relaxed_bg.wasm) are left out (another 1.26 MB gzipped for f32
// kernels that differ in the last bits): the worker runs the simd128 builds it is handed, which every browser with
// WebAssembly SIMD runs (as the notebook widget's python/widget/build.py does).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SITE = path.resolve(process.argv[2] || path.join(ROOT, 'target/site'));
const OUT = path.resolve(process.argv[3] || path.join(ROOT, 'target/dist/lethe.html'));

/** The built-in example's files: widget.js's loadExample (SDE, RULER) and panels/mia.js's EXAMPLE.file. */
const DATA = ['act_unlearned.npy', 'act_retrained.npy', 'act_original.npy', 'forget.txt', 'retain.txt', 'test.txt', 'mia_scores.npz', 'compare_runs.csv'].map(
  (n) => `data/digits/${n}`,
);
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm', '.npy': 'application/octet-stream', '.npz': 'application/zip', '.txt': 'text/plain', '.csv': 'text/csv' };

// Relative references in a module, as the page's modules and wasm-bindgen's glue write them; group 2 is the
// specifier. The loader replaces an import's match by its URL; a wasm asset's stays (the worker is handed those).
const REFS = [
  ['static', /(?<=\b(?:import|export)\b[^;'"]*?\bfrom\s*)(['"])(\.\.?\/[^'"]+)\1/g],
  ['dynamic', /\bimport\(\s*(['"])(\.\.?\/[^'"]+)\1\s*\)/g],
  ['asset', /\bnew URL\(\s*(['"])([^'"]+)\1\s*,\s*import\.meta\.url\s*\)/g],
];

const fail = (msg) => {
  console.error(`single_page: ${msg}`);
  process.exit(1);
};
const read = (p) => {
  try {
    return readFileSync(path.join(SITE, p));
  } catch {
    return fail(`${path.join(SITE, p)} is missing (build the site first: ./build.sh site)`);
  }
};

// A module graph from `entry`, each module after what it refers to (the loader needs a referred-to file's URL before
// it can write the referring module): {modules: [{path, refs}], assets: Set of wasm paths}.
class Cycle extends Error {}
const texts = new Map();
function graph(entry, { late }) {
  const modules = [];
  const assets = new Set();
  const state = new Map();
  function visit(p, stack) {
    if (state.get(p) === 'done') return;
    if (state.get(p) === 'open') throw new Cycle([...stack, p].join(' → '));
    state.set(p, 'open');
    if (!texts.has(p)) texts.set(p, read(p).toString('utf8'));
    const text = texts.get(p);
    const refs = [];
    for (const [kind, re] of REFS) {
      for (const m of text.matchAll(re)) {
        refs.push({ at: m.index, end: m.index + m[0].length, target: path.posix.normalize(path.posix.join(path.posix.dirname(p), m[2])), kind });
      }
    }
    refs.sort((x, y) => x.at - y.at);
    const after = [];
    for (const ref of refs) {
      if (ref.kind === 'asset') {
        assets.add(ref.target);
      } else if (ref.kind === 'static' || !late) visit(ref.target, [...stack, p]);
      else {
        // A dynamic import whose target leads back here (panels/common.js → guard.js → common.js): the target is
        // written after this module, and the import looks its URL up when it runs ('late').
        const saved = [new Map(state), modules.length, new Set(assets)];
        try {
          visit(ref.target, [...stack, p]);
        } catch (e) {
          if (!(e instanceof Cycle)) throw e;
          state.clear();
          for (const [k, v] of saved[0]) state.set(k, v);
          modules.length = saved[1];
          assets.clear();
          for (const x of saved[2]) assets.add(x);
          ref.kind = 'late';
          after.push(ref.target);
        }
      }
    }
    // Offsets into the UTF-8 text the loader decodes are UTF-16 offsets, as here.
    modules.push({ path: p, refs: refs.map((r) => [r.at, r.end, r.target, r.kind]) });
    state.set(p, 'done');
    for (const t of after) visit(t, [...stack, p]);
  }
  try {
    visit(entry, []);
  } catch (e) {
    if (e instanceof Cycle) fail(`circular import ${e.message}: the loader cannot give either module the other's URL`);
    throw e;
  }
  return { modules, assets };
}
// The page (blob: URLs). The worker, started by engine.js from assetUrl('src/worker.js'), is a graph of data: URLs:
// a page opened from file:// cannot start a module worker from a blob: URL, nor can its workers read its blob: URLs
// (Chromium gives each an opaque origin of its own), while a data: URL carries its content wherever it goes — the
// worker's pool of workers (the same URL) included. A data: URL cannot point back at its referrer, hence no 'late',
// and Chromium refuses a worker URL over 2 MB, hence the wasm modules are handed over rather than inlined in it.
const page = graph('src/main.js', { late: true });
const worker = graph('src/worker.js', { late: false });
if (page.assets.size) fail(`the page's own modules refer to ${[...page.assets].join(', ')}: only the worker's are inlined`);
// The wasm modules the worker would fetch; the page hands them over (worker.js `given`), so their references stay.
const WASM = [...worker.assets].filter((a) => !a.endsWith('_relaxed_bg.wasm')).sort();
for (const a of WASM) if (!/^pkg\/[\w-]+_bg\.wasm$/.test(a)) fail(`${a}: not a wasm module of pkg/ (the worker is handed only those)`);
if (process.env.SINGLE_PAGE_VERBOSE) for (const m of [...page.modules, ...worker.modules]) console.log(m.path, m.refs.map((r) => `${r[3]}:${r[2]}`).join(' '));

// The payload: every file's bytes, once, one after the other, gzipped once.
const files = [];
const chunks = [];
const add = (p, bytes) => {
  files.push({ path: p, size: bytes.length, type: TYPES[path.extname(p)] || 'application/octet-stream' });
  chunks.push(bytes);
};
for (const a of WASM) add(a, read(a));
for (const d of DATA) add(d, read(d));
for (const p of new Set([...page.modules, ...worker.modules].map((m) => m.path))) add(p, Buffer.from(texts.get(p), 'utf8'));
const raw = Buffer.concat(chunks);
const payload = gzipSync(raw, { level: 9 }).toString('base64');

// The loader: unpack; the page's modules and the example's files as blob: URLs, the worker's modules as data: URLs
// (each written after what it refers to, with those references replaced); then the page.
const loader = `
const manifest = ${JSON.stringify({ files, page: page.modules, worker: worker.modules })};
const b64 = document.getElementById('lethe-payload').textContent.trim();
const packed = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
const raw = new Uint8Array(await new Response(new Blob([packed]).stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer());
const bytes = {};
let at = 0;
for (const f of manifest.files) bytes[f.path] = new Blob([raw.subarray(at, (at += f.size))], { type: f.type });
const text = async (p) => new TextDecoder().decode(await bytes[p].arrayBuffer());
// A module's text with its imports' specifiers replaced by URLs (a 'late' one looked up when it runs; wasm assets stay).
const rewrite = (s, refs, url, late) => {
  let out = '', from = 0;
  for (const [a, b, target, kind] of refs) {
    if (kind === 'asset') continue;
    const u = url(target);
    if (!u && kind !== 'late') throw new Error('lethe.html: ' + target + ' is not written before the module that refers to it');
    const q = JSON.stringify(u);
    out += s.slice(from, a) + (kind === 'static' ? q : kind === 'dynamic' ? 'import(' + q + ')' : late(target));
    from = b;
  }
  return out + s.slice(from);
};
// The page's URLs, also as a module of their own, for imports written before their target.
const registry = URL.createObjectURL(new Blob(['export const urls = {};'], { type: 'text/javascript' }));
const { urls } = await import(registry);
const late = (t) => 'import(' + JSON.stringify(registry) + ').then((r) => import(r.urls[' + JSON.stringify(t) + ']))';
for (const f of manifest.files) if (f.path.startsWith('data/')) urls[f.path] = URL.createObjectURL(bytes[f.path]);
for (const m of manifest.page) urls[m.path] = URL.createObjectURL(new Blob([rewrite(await text(m.path), m.refs, (t) => urls[t], late)], { type: 'text/javascript' }));
// data: URLs: the text, only what a URL would read otherwise escaped.
const escape = (s) => s.replace(/[%#\\t\\n\\r]/g, (c) => '%' + c.charCodeAt(0).toString(16).padStart(2, '0'));
const data = {};
for (const m of manifest.worker) data[m.path] = 'data:text/javascript;charset=utf-8,' + escape(rewrite(await text(m.path), m.refs, (t) => data[t], null));
const wasm = {};
for (const f of manifest.files) if (f.path.endsWith('.wasm')) wasm[f.path] = bytes[f.path];
(await import(urls['src/base.js'])).setInlinedFiles({ urls: { ...urls, 'src/worker.js': data['src/worker.js'] }, wasm });
await import(urls['src/main.js']);
`;

// The page: index.html with its stylesheet inlined, its module preloads dropped (they would be requests) and its
// entry script replaced by the loader.
let html = read('index.html').toString('utf8');
const css = read('widget.css').toString('utf8');
const replace = (what, by) => {
  if (!what.test(html)) fail(`index.html has no ${what} (the page changed: update tools/single_page.mjs)`);
  html = html.replace(what, by);
};
const safe = (s) => s.replace(/<\/(script|style)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
replace(/<link rel="stylesheet" href="widget.css">/, () => `<style>\n${safe(css)}</style>`);
replace(/\s*<link rel="modulepreload"[^>]*>/g, '');
// The teaching page is another file; the single page is the widget alone.
replace(/\s*<p class="lethe-site-link">.*?<\/p>/, '');
replace(
  /<script type="module" src="src\/main.js"><\/script>/,
  () => `<script type="application/octet-stream" id="lethe-payload">\n${payload.replace(/.{1,120}/g, '$&\n')}</script>\n  <script type="module">${safe(loader)}</script>`,
);
if (/\b(?:src|href)="(?!data:|#)/.test(html)) fail(`the page still refers to a file: ${html.match(/\b(?:src|href)="(?!data:|#)[^"]*"/)[0]}`);

mkdirSync(path.dirname(OUT), { recursive: true });
writeFileSync(OUT, html);
const gz = gzipSync(Buffer.from(html), { level: 9 }).length;
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const size = Buffer.byteLength(html);
console.log(
  `${path.relative(process.cwd(), OUT)}: ${mb(size)} (${mb(gz)} gzipped); ${texts.size} modules, ${WASM.length} wasm modules, ${DATA.length} example files, ${mb(raw.length)} unpacked`,
);
