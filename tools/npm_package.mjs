// The npm package of the element (issue 25): target/npm/lethe-eval/ assembled from the built site, then `npm pack`ed
// into target/dist/lethe-eval-VERSION.tgz.
//
//   node tools/npm_package.mjs [SITE=target/site] [DIST=target/dist]      (./build.sh dist runs it after the site)
//
// What a bundler needs (docs/embedding.md, "From npm"): plain ES modules (src/, the page side of the element, as in
// the site), an entry, index.js, that names each file the element loads at run time with `new URL('./…',
// import.meta.url)` — the pattern Vite, webpack 5, Rollup and Parcel resolve, copying the file into the build and
// writing its URL — and hands those URLs to base.js (setBundledFiles). Those files are in lethe-assets/: the worker
// as ONE self-contained module (esbuild bundles src/worker.js with the wasm-bindgen glue, so that a bundler may emit
// it as it is under any name; the page hands it the wasm modules' URLs), the four wasm modules and the built-in
// example's data. The stylesheets go in as text (styles.js): VitePress takes a .css file of the bundle for its own. A bundler that does not resolve the pattern (esbuild) leaves it as it is, relative to
// the bundle: copying lethe-assets/ beside the bundle is then all it takes.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SITE = path.resolve(process.argv[2] || path.join(ROOT, 'target/site'));
const DIST = path.resolve(process.argv[3] || path.join(ROOT, 'target/dist'));
const NAME = 'lethe-eval';
const OUT = path.join(ROOT, 'target/npm', NAME);
const TOOLS = path.join(ROOT, 'target/npm-tools');

const fail = (msg) => {
  console.error(`npm_package: ${msg}`);
  process.exit(1);
};
if (!existsSync(path.join(SITE, 'src/lethe-eval.js'))) fail(`${SITE} is not a built site (run ./build.sh site first)`);

// One version for everything: the workspace's (Cargo.toml [workspace.package]).
const cargo = readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8');
const VERSION = cargo.match(/\[workspace\.package\][^[]*?\nversion\s*=\s*"([^"]+)"/)?.[1] || fail('no [workspace.package] version in Cargo.toml');
const LICENSE = cargo.match(/\[workspace\.package\][^[]*?\nlicense\s*=\s*"([^"]+)"/)?.[1] || 'MIT OR Apache-2.0';

// esbuild (tools/npm/package-lock.json), installed once under target/npm-tools/ from the npm registry.
function esbuild() {
  const lock = readFileSync(path.join(ROOT, 'tools/npm/package-lock.json'), 'utf8');
  const stamp = path.join(TOOLS, 'node_modules/.lethe-lock.json');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lock) {
    mkdirSync(TOOLS, { recursive: true });
    for (const f of ['package.json', 'package-lock.json']) cpSync(path.join(ROOT, 'tools/npm', f), path.join(TOOLS, f));
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: TOOLS, stdio: 'inherit' });
    writeFileSync(stamp, lock);
  }
  return path.join(TOOLS, 'node_modules/.bin/esbuild');
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(path.join(OUT, 'lethe-assets/data/digits'), { recursive: true });

// The page side: the site's modules (the worker's own modules are in lethe-assets/worker.js instead).
cpSync(path.join(SITE, 'src'), path.join(OUT, 'src'), { recursive: true });
for (const f of ['worker.js', 'full.js', 'protocol.md']) rmSync(path.join(OUT, 'src', f), { force: true });

// The worker, self-contained. Its `new URL('../pkg/…wasm', import.meta.url)` stay (esbuild leaves them) and go unused:
// the page hands the worker the wasm modules' URLs in `init` (base.js bundledWasm, worker.js `given`).
execFileSync(esbuild(), [path.join(SITE, 'src/worker.js'), '--bundle', '--format=esm', '--target=es2022', '--log-level=warning', `--outfile=${path.join(OUT, 'lethe-assets/worker.js')}`], {
  stdio: 'inherit',
});

// Files the element loads at run time, by their site path (base.js looks them up by it).
const files = { 'src/worker.js': 'worker.js' };
for (const f of readdirSync(path.join(SITE, 'pkg')).filter((f) => f.endsWith('.wasm'))) files[`pkg/${f}`] = f;
// The built-in example's files (widget.js loadExample, panels/mia.js), not its README (a docs generator would make a
// page of it).
for (const f of readdirSync(path.join(SITE, 'data/digits')).filter((f) => !f.endsWith('.md'))) files[`data/digits/${f}`] = `data/digits/${f}`;
for (const [site, asset] of Object.entries(files)) if (site !== 'src/worker.js') cpSync(path.join(SITE, site), path.join(OUT, 'lethe-assets', asset));

// The entry: each file as a literal `new URL(…, import.meta.url)` (bundlers resolve only literals), read when the
// module is evaluated, which touches no browser global (server rendering imports it).
const entry = `// lethe-eval ${VERSION}: the <lethe-eval> custom element (docs/embedding.md). Importing this module registers
// the element where customElements exists, and tells it where its files are: each below is written as
// new URL('./lethe-assets/…', import.meta.url), which Vite and webpack 5 copy into the build.
// With a bundler that leaves such URLs as they are (esbuild), copy lethe-assets/ beside the bundle.
// The stylesheets come as text (styles.js), not as .css files: a docs generator may take any .css file of the
// bundle for its own stylesheet (VitePress does).
import { setBundledFiles } from './src/base.js';
import styles from './styles.js';

setBundledFiles(
  {
${Object.entries(files)
  .map(([site, asset]) => `    ${JSON.stringify(site)}: new URL(${JSON.stringify(`./lethe-assets/${asset}`)}, import.meta.url).href,`)
  .join('\n')}
  },
  styles,
);

export { LetheEval, setBasePath } from './src/lethe-eval.js';
export { create } from './src/widget.js';
export const version = ${JSON.stringify(VERSION)};
`;
writeFileSync(path.join(OUT, 'index.js'), entry);
const css = Object.fromEntries(['widget.css', 'teach.css'].map((f) => [f, readFileSync(path.join(SITE, f), 'utf8')]));
writeFileSync(path.join(OUT, 'styles.js'), `// Lethe's stylesheets (widget.css, teach.css), for the element's shadow root.\nexport default ${JSON.stringify(css)};\n`);

// Types: the widget's (www/widget.d.ts), and the element's tag for TypeScript's DOM and JSX users.
const dts = readFileSync(path.join(SITE, 'widget.d.ts'), 'utf8');
writeFileSync(
  path.join(OUT, 'index.d.ts'),
  `${dts}
export const version: string;

declare global {
  interface HTMLElementTagNameMap {
    'lethe-eval': LetheEval;
  }
}
`,
);
for (const f of ['widget.css', 'teach.css']) cpSync(path.join(SITE, f), path.join(OUT, f));

const pkg = {
  name: NAME,
  version: VERSION,
  description: 'Machine-unlearning and membership evaluation in the browser: the <lethe-eval> custom element (WebAssembly, runs in a Web Worker, no network).',
  license: LICENSE,
  type: 'module',
  main: './index.js',
  module: './index.js',
  types: './index.d.ts',
  exports: {
    '.': { types: './index.d.ts', default: './index.js' },
    './widget.css': './widget.css',
    './teach.css': './teach.css',
    './lethe-assets/*': './lethe-assets/*',
    './package.json': './package.json',
  },
  // Importing the entry registers the custom element and sets where its files are.
  sideEffects: ['./index.js', './src/lethe-eval.js'],
  files: ['index.js', 'index.d.ts', 'styles.js', 'widget.css', 'teach.css', 'src/', 'lethe-assets/', 'README.md'],
  keywords: ['machine-unlearning', 'membership-inference', 'web-component', 'custom-element', 'webassembly'],
};
writeFileSync(path.join(OUT, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
writeFileSync(
  path.join(OUT, 'README.md'),
  `# lethe-eval ${VERSION}

The \`<lethe-eval>\` custom element of Lethe: machine-unlearning and membership evaluation in the browser. Everything
runs in a Web Worker of the visitor's tab (WebAssembly); no data leaves the page.

\`\`\`js
import 'lethe-eval';   // registers <lethe-eval>; your bundler copies its worker, wasm, styles and example data
\`\`\`

\`\`\`html
<lethe-eval analysis="sde" example shuffles="100" seed="0"></lethe-eval>
\`\`\`

Vite, webpack 5 (Docusaurus) and VitePress copy the files themselves. esbuild: copy \`node_modules/lethe-eval/lethe-assets/\`
beside your bundle. Vue/VitePress: declare the element a custom element (\`isCustomElement\`). See Lethe's
docs/embedding.md, "From npm".
`,
);

mkdirSync(DIST, { recursive: true });
const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', DIST], { cwd: OUT, encoding: 'utf8' }))[0];
const tgz = path.join(DIST, packed.filename);
const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
console.log(`${path.relative(ROOT, tgz)}: ${kb(statSync(tgz).size)} (unpacked ${kb(packed.unpackedSize)}, ${packed.entryCount} files)`);
