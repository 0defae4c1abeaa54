// The base URL of Lethe's files (worker, stylesheets, data), not import.meta.url, which bundlers rewrite; the order
// it is found in: docs/embedding.md, "the base URL". Nothing runs at import time.

let explicit = null;
const waiting = new Set();
/** lethe.html's own files (tools/single_page.mjs): `{urls, wasm}`, or null. */
let inlined = null;

/** lethe.html only: assetUrl() answers from `urls` (site path → URL); `wasm` (path → Blob) goes to the worker. */
export function setInlinedFiles(files) {
  inlined = files || null;
}

export const inlinedWasm = () => inlined?.wasm || null;

/**
 * The npm package's files as the site's bundler resolved them (the package's index.js, tools/npm_package.mjs): site
 * path → URL (its self-contained worker as 'src/worker.js'), or null. Used when no base is given (below).
 */
let bundled = null;
/** The npm package's stylesheets as text (name → CSS): no .css file in a bundle (VitePress takes one for its own). */
let bundledStyles = null;

export function setBundledFiles(files, styles) {
  bundled = files || null;
  bundledStyles = styles || null;
}

/** Stylesheet `name`'s text when `base` is BUNDLED and the package holds it, else null (then: a <link> to it). */
export const bundledStyle = (name, base) => (String(base) === BUNDLED && bundledStyles?.[name]) || null;

/** The base URL that stands for the bundled files: basePath() answers it, fileUrl() looks paths up in them. */
export const BUNDLED = 'lethe-bundled:/';

/** The wasm modules of the bundled files (path → URL), handed to the worker in `init`, or null. */
export const bundledWasm = () => (bundled ? Object.fromEntries(Object.entries(bundled).filter(([p]) => p.endsWith('.wasm'))) : null);

/** Site path `path` under base URL `base` (a URL, or BUNDLED: the bundled files). */
export function fileUrl(path, base) {
  if (String(base) !== BUNDLED) return new URL(path, base);
  const u = bundled?.[path];
  if (!u) throw new Error(`the lethe-eval package does not hold ${path}`);
  return new URL(u, typeof document === 'undefined' ? undefined : document.baseURI);
}

/** Sets the base URL of Lethe's files for every element on the page (relative to the page, or absolute). */
export function setBasePath(url) {
  explicit = url == null || url === '' ? null : String(url);
  // Elements that could not find their files start again.
  for (const f of Array.from(waiting)) f();
  waiting.clear();
}

/** Calls `fn` once when setBasePath() is next called. */
export function onBasePath(fn) {
  waiting.add(fn);
  return () => waiting.delete(fn);
}

const dir = (u) => (u.endsWith('/') ? u : `${u}/`);

/** This module's own URL's site root, unless bundled. */
function ownBase() {
  let u;
  try {
    u = new URL(import.meta.url);
  } catch {
    return null;
  }
  // Bundled: the build machine's file:// path, or a chunk's URL.
  if (u.protocol !== location.protocol && !(/^https?:$/.test(u.protocol) && /^https?:$/.test(location.protocol))) return null;
  if (!u.pathname.endsWith('/src/base.js')) return null;
  return new URL('../', u);
}

/** The base URL (ending in /) for element `el`, or null. */
export function basePath(el) {
  if (typeof document === 'undefined') return null;
  const page = document.baseURI;
  const given = el?.getAttribute?.('base') || explicit || document.querySelector('[data-lethe-base]')?.getAttribute('data-lethe-base');
  if (given) return new URL(dir(given), page);
  if (bundled) return new URL(BUNDLED);
  const own = ownBase();
  if (own) return own;
  for (const s of document.querySelectorAll('script[src]')) {
    const u = new URL(s.getAttribute('src'), page);
    if (u.pathname.endsWith('/src/lethe-eval.js')) return new URL('../', u);
  }
  return null;
}

/** `path` under the base URL; throws when there is none. */
export function assetUrl(path, el) {
  if (inlined) {
    if (!inlined.urls[path]) throw new Error(`lethe.html does not hold ${path}`);
    return new URL(inlined.urls[path]);
  }
  const b = basePath(el);
  if (!b) {
    throw new Error("Lethe cannot find its files: give the element a base attribute or call setBasePath('/lethe/') with where Lethe's site is");
  }
  return fileUrl(path, b);
}
