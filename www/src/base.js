// Where Lethe's files are served from: the directory that holds src/, pkg/, widget.css, teach.css and data/ (the
// built site, target/site/). Every asset the page side loads — the worker, the stylesheets, the example's data — is
// resolved from it at run time, so that a bundler that takes the element's modules into a site's own bundle neither
// tries to bundle those assets nor bakes the build machine's path into the bundle. (The worker resolves the wasm
// from its own URL: it is always loaded from this base, never bundled.) Nothing here runs at import time.
//
// The base is, first found:
//   1. the element's `base` attribute (<lethe-eval base="/lethe/">);
//   2. setBasePath('/lethe/') — one line, before or after the element is defined;
//   3. a `data-lethe-base` attribute on any element of the page (<script type="module" src="…/src/lethe-eval.js"
//      data-lethe-base="/lethe/">), as Shoelace's `data-shoelace`;
//   4. this module's own URL, when it is still an http(s) URL ending in /src/base.js (not bundled);
//   5. the src of a <script> ending in /src/lethe-eval.js.
// Relative values are resolved against the page's URL.

let explicit = null;
const waiting = new Set();

/** Sets the base URL of Lethe's files for every element on the page (relative to the page, or absolute). */
export function setBasePath(url) {
  explicit = url == null || url === '' ? null : String(url);
  // Elements that started before it was set (and showed that they could not find their files) start again.
  for (const f of [...waiting]) f();
  waiting.clear();
}

/** Calls `fn` once when setBasePath() is next called. */
export function onBasePath(fn) {
  waiting.add(fn);
  return () => waiting.delete(fn);
}

const dir = (u) => (u.endsWith('/') ? u : `${u}/`);

/** This module's own URL, if it is where the site's files are (a bundler rewrites or replaces import.meta). */
function ownBase() {
  let here = null;
  try {
    here = import.meta.url;
  } catch {
    return null;
  }
  if (typeof here !== 'string' || typeof location === 'undefined') return null;
  let u;
  try {
    u = new URL(here);
  } catch {
    return null;
  }
  // A bundled copy: file:///build/machine/… baked in, or a chunk URL that is not src/base.js.
  if (u.protocol !== location.protocol && !(/^https?:$/.test(u.protocol) && /^https?:$/.test(location.protocol))) return null;
  if (!u.pathname.endsWith('/src/base.js')) return null;
  return new URL('../', u);
}

/**
 * The base URL (a URL ending in /), or null when none can be found. `el`: the element asking (its `base` attribute
 * wins).
 */
export function basePath(el) {
  if (typeof document === 'undefined') return null;
  const page = document.baseURI;
  const given = el?.getAttribute?.('base') || explicit || document.querySelector('[data-lethe-base]')?.getAttribute('data-lethe-base');
  if (given) return new URL(dir(given), page);
  const own = ownBase();
  if (own) return own;
  for (const s of document.querySelectorAll('script[src]')) {
    const u = new URL(s.getAttribute('src'), page);
    if (u.pathname.endsWith('/src/lethe-eval.js')) return new URL('../', u);
  }
  return null;
}

/** `path` (relative to the site root, e.g. 'src/worker.js') as a URL; throws a message for people when no base. */
export function assetUrl(path, el) {
  const b = basePath(el);
  if (!b) {
    throw new Error(
      'Lethe cannot find its files (worker, wasm, stylesheets): give the element a base attribute (<lethe-eval base="/lethe/">) or call setBasePath("/lethe/") with the URL of the directory you copied Lethe\'s site to',
    );
  }
  return new URL(path, b);
}
