// <lethe-eval>: the widget as a custom element.
//
//   <lethe-eval analysis="sde" shuffles="500" seed="1"></lethe-eval>
//   el.data = { in_training: file, out_of_training: {data: buffer, rows: '0..100'}, target: {values, shape} };
//   el.addEventListener('result', (e) => console.log(e.detail.report));
//   await el.run({ signal });
//
//   <lethe-eval mode="teach" topic="hsic"></lethe-eval>   one teaching topic (hsic, sde, ranks, epsilon, bounds, mia, seeds, forget-quality):
//   an explanation beside a live figure (www/src/teach/, docs/teaching.md); loaded only in this mode.
//
// Importing this module does no work and touches no browser global beyond `typeof` checks, so a docs site can
// import it while rendering on the server, or bundle it: every asset (worker, wasm, stylesheets, example data) is
// resolved at run time from the site's base URL (base.js: the `base` attribute, setBasePath(), data-lethe-base,
// or this module's own URL when it is not bundled). The element builds its shadow DOM, worker and wasm only in
// connectedCallback, and a removal (a docs site's client-side navigation, a framework unmounting it) stops its
// worker and the worker pool once no element is left on the page; inserted again, it starts afresh.
import { create } from './widget.js';
import { say } from './panels/common.js';
import { Engine } from './engine.js';
import { BUNDLED, basePath, bundledStyle, fileUrl, onBasePath, setBasePath } from './base.js';
import { VERSION } from './version.js';

export { setBasePath, VERSION };

const ANALYSES = ['sde', 'ruler', 'epsilon', 'bounds', 'mia', 'compare'];
// Attributes that set panel parameters (kebab-case → the panel's snake_case names).
const PARAMS = [
  'mode', 'rule', 'shuffles', 'sigma', 'seed', 'bins', 'split', 'precision', 'baselines', 'draw', 'size', 'refs', 'margin',
  'it-pool', 'oot-pool', 'backend', 'workers',
  'forget', 'retain', 'ties', 'fdr', 'variant', 'alpha', 'eps-max', 'delta', 'accuracies',
  'one-sided', 'x', 'stepsize', 'sd-method', 'atom-at-zero', 'rho', 'plan-width', 'stemmer',
  'ci', 'resamples', 'fpr', 'lower-is-member',
  'metrics', 'baseline', 'published', 'correction',
];
const BOOLEAN = new Set(['baselines', 'one-sided', 'atom-at-zero', 'stemmer', 'lower-is-member']);
/** Attributes that choose what the element builds: a change rebuilds it. */
const STRUCTURE = ['analysis', 'topic', 'base', 'inputs', 'example'];
/** Present-or-absent attributes (their properties are true/false). */
const FLAGS = new Set(['inputs', 'example', 'autorun']);
/** Every attribute with a property of its own (kebab-case attributes also get a camelCase property). */
const ATTRIBUTES = Array.from(new Set(STRUCTURE.concat(['layout', 'autorun'], PARAMS)));
const camel = (a) => a.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
const PROPS = Array.from(new Set(ATTRIBUTES.flatMap((a) => [a, camel(a)])));

const Base = typeof HTMLElement === 'undefined' ? class {} : HTMLElement;

/**
 * The workers of the page's elements, one per base URL (so one worker on a page, as a rule), each with the elements
 * using it: stopped when the last of them leaves the page.
 */
const engines = new Map();
function engineFor(el, base) {
  let e = engines.get(base.href);
  if (!e) engines.set(base.href, (e = { engine: new Engine({ base }), users: new Set() }));
  e.users.add(el);
  el._engineKey = base.href;
  return e.engine;
}
function release(el, key = el._engineKey) {
  const e = engines.get(key);
  if (el._engineKey === key) el._engineKey = null;
  if (!e) return;
  e.users.delete(el);
  if (e.users.size === 0) {
    e.engine.stop();
    engines.delete(e.engine.base.href);
  }
}

const event = (el, type, detail) => el.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));

export class LetheEval extends Base {
  static get observedAttributes() {
    return Array.from(new Set(PARAMS.concat(STRUCTURE, ['layout'])));
  }

  constructor() {
    super();
    this._data = null;
    this._widget = null;
    this._teach = null;
    this._ready = null;
    this._built = false;
    this._teardown = null;
    this._engineKey = null;
    this._waitBase = null;
    this._pendingBuild = false;
    this._upgradeAll();
  }

  /** Properties a host set on the element before it was defined (they shadow the setters): passed through them. */
  _upgradeAll() {
    for (const p of ['data', ...PROPS]) {
      if (Object.prototype.hasOwnProperty.call(this, p)) {
        const v = this[p];
        delete this[p];
        this[p] = v;
      }
    }
  }

  /** Which analysis this element shows: sde (default), ruler, epsilon, bounds, mia (the membership audit), compare. */
  get analysis() {
    const a = this.getAttribute('analysis') || 'sde';
    return ANALYSES.includes(a) ? a : 'sde';
  }

  set analysis(v) {
    this._setAttr('analysis', v);
  }

  /** Inputs by role: File/Blob, ArrayBuffer, CSV text, {values, shape}, or {data, rows, tensor, name}. */
  get data() {
    return this._data;
  }

  set data(v) {
    this._data = v;
    this._appliedData = null;
    if (this._widget) this._ready = this._widget.ready.then(() => this._applyData());
    this._ready?.catch(() => {});
  }

  /** Lethe's version (as `lethe --version` and every report's `lethe_version`), known before the wasm loads. */
  get version() {
    return VERSION;
  }

  /** Read-only: ignored (a framework that sets a `version` attribute as a property would throw on a getter alone). */
  set version(_) {}

  /** True for `mode="teach"`: a teaching topic instead of an analysis panel. */
  get teaching() {
    return this.getAttribute('mode') === 'teach';
  }

  /** Resolves once the element has started (its worker and wasm are in); rejects with what failed. */
  get ready() {
    // Inserted just now: its build runs after the current script.
    if (this._pendingBuild) return Promise.resolve().then(() => this.ready);
    return this._widget?.ready ?? this._teach?.then((t) => t.ready) ?? Promise.reject(new Error('<lethe-eval> is not in the document'));
  }

  _setAttr(name, v) {
    if (FLAGS.has(name)) {
      if (v == null || v === false || v === 'false') this.removeAttribute(name);
      else this.setAttribute(name, '');
    } else if (BOOLEAN.has(name)) {
      if (v == null) this.removeAttribute(name);
      else this.setAttribute(name, v === false || v === 'false' ? 'false' : '');
    } else if (v == null || v === false) this.removeAttribute(name);
    else this.setAttribute(name, String(v));
  }

  connectedCallback() {
    this._upgradeAll();
    // Moved (removed and inserted again within one task, as a router or framework does): keep everything.
    clearTimeout(this._teardown);
    this._teardown = null;
    // After the current script: a page or bundle that defines the element while it is already in the document (a
    // server-rendered page) can still call setBasePath() right after the import.
    if (!this._built) {
      this._built = true;
      this._pendingBuild = true;
      queueMicrotask(() => {
        this._pendingBuild = false;
        if (this.isConnected) this._build();
        else this._built = false;
      });
    }
  }

  disconnectedCallback() {
    clearTimeout(this._teardown);
    this._teardown = setTimeout(() => {
      this._teardown = null;
      if (!this.isConnected) this._destroy();
    }, 0);
  }

  /** Stops everything this element started; the worker too when no other element is left on the page. */
  _destroy({ keepWorker = false } = {}) {
    this._waitBase?.();
    this._waitBase = null;
    this._widget?.destroy();
    this._teach?.then((t) => t?.destroy?.(), () => {});
    this._widget = null;
    this._teach = null;
    this._ready = null;
    this._appliedData = null;
    this._applying = null;
    this._built = false;
    this.shadowRoot?.replaceChildren();
    if (!keepWorker) release(this);
  }

  _build() {
    this._built = true;
    const root = this.shadowRoot || this.attachShadow({ mode: 'open' });
    root.replaceChildren();
    const host = document.createElement('div');
    host.className = 'lethe-host';
    this._layout(host);
    const base = basePath(this);
    if (!base) {
      const msg =
        'Lethe cannot find its files (worker, wasm, stylesheets): give the element a base attribute (<lethe-eval base="/lethe/">) or call setBasePath("/lethe/") with the URL of the directory holding Lethe\'s site.';
      host.setAttribute('role', 'alert');
      host.setAttribute('data-state', 'failed');
      host.style.cssText = 'color:light-dark(#b3261e,#ff8a80);border:1px solid light-dark(#b3261e,#ff8a80);border-radius:8px;padding:8px 12px;font:15px/1.45 system-ui,sans-serif';
      host.textContent = msg;
      root.append(host);
      event(this, 'error', { message: msg, input: null });
      this._waitBase = onBasePath(() => this.isConnected && (this._destroy({ keepWorker: true }), this._build()));
      return;
    }
    const sheets = this.teaching ? ['widget.css', 'teach.css'] : ['widget.css'];
    // Shown once its stylesheets are in (no flash of unstyled content, whose height would shift the page twice).
    // Until then the element keeps a window's height, so that what follows it on the page is not moved into view
    // and out again (layout shift); a constructed sheet, which a page's CSP does not govern as it does <style>.
    // The room is kept, and the contents hidden (a line says it is loading), until the element is built too: a
    // teaching topic's first figure, a panel whose module loads later, the membership audit's example run. Shown
    // half-built they would move inside the room and push what follows (layout shift 0.06–0.83 measured).
    host.style.display = 'none';
    const reserve = this._reserve(root);
    let pending = sheets.length;
    let release = null;
    const built = new Promise((resolve) => (release = resolve));
    const styled = () => {
      if (--pending) return;
      host.style.display = '';
      host.style.visibility = 'hidden';
      const t = setTimeout(release, 30000);
      built.then(() => {
        clearTimeout(t);
        host.style.visibility = '';
        reserve?.replaceSync(':host { display: block; }');
      });
    };
    for (const sheet of sheets) {
      // The npm package's (its text, as a constructed sheet): in place at once.
      const text = bundledStyle(sheet, base);
      if (text) {
        const s = new CSSStyleSheet();
        s.replaceSync(text);
        root.adoptedStyleSheets = [...root.adoptedStyleSheets, s];
        styled();
        continue;
      }
      const css = document.createElement('link');
      css.rel = 'stylesheet';
      css.href = fileUrl(sheet, base).href;
      css.addEventListener('load', styled);
      css.addEventListener('error', () => {
        styled();
        this._fail(host, `Lethe's stylesheet could not be loaded from ${css.href}: check the element's base attribute or setBasePath().`);
      });
      root.append(css);
    }
    root.append(host);
    const eng = engineFor(this, base);
    if (this.teaching) {
      this._teach = this._connectTeach(host, eng);
      this._teach.catch(() => {});
      this._teach.then((t) => t?.ready).finally(release).catch(() => {});
      return;
    }
    this._widget = create(host, {
      engine: eng,
      panels: [this.analysis],
      header: false,
      showInputs: this.hasAttribute('inputs'),
      example: this.hasAttribute('example'),
      // The bundled files have no directory: the example's files are looked up one by one (widget.js, assetUrl).
      exampleBase: base.href === BUNDLED ? null : new URL('data/digits/', base).href,
      onEvent: (type, detail) => {
        if (type === 'progress' || type === 'result' || type === 'error' || type === 'ready') event(this, type, detail);
      },
    });
    (this._widget.built || this._widget.ready).finally(release).catch(() => {});
    this._applyParams();
    this._widget.ready.catch((e) => event(this, 'error', { message: say(e.message), input: null }));
    this._ready = this._widget.ready.then(() => this._applyData());
    this._ready.catch(() => {});
    if (this.hasAttribute('autorun')) this._ready.then(() => this.run()).catch(() => {});
  }

  /** A constructed stylesheet on the shadow root holding the element's place while it loads (null if unsupported). */
  _reserve(root) {
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(':host { display: block; position: relative; min-height: min(100vh, 1600px); } :host::before { content: "Loading Lethe…"; position: absolute; top: 16px; left: 16px; font: 15px/1.45 system-ui, sans-serif; opacity: 0.7; }');
      root.adoptedStyleSheets = [sheet];
      return sheet;
    } catch {
      return null;
    }
  }

  /** A failure to load an asset, shown in the element (not left at "starting"). */
  _fail(host, message) {
    const root = host.querySelector('.lethe-root');
    if (root) root.dataset.state = 'failed';
    const box = document.createElement('div');
    box.className = 'lethe-error';
    box.setAttribute('role', 'alert');
    box.textContent = message;
    host.prepend(box);
    event(this, 'error', { message, input: null });
  }

  /** Teaching mode: widget.css + teach.css, and the topic module loaded on demand (not by analysis elements). */
  async _connectTeach(host, eng) {
    const { createTeach } = await import('./teach/index.js');
    if (!host.isConnected && !this._built) return null;
    const teach = createTeach(host, { engine: eng, topics: [this.getAttribute('topic') || 'hsic'] });
    teach.ready.then(
      (info) => event(this, 'ready', info),
      (e) => event(this, 'error', { message: say(e.message) }),
    );
    return teach;
  }

  _layout(host = this.shadowRoot?.querySelector('.lethe-host')) {
    if (!host) return;
    const l = this.getAttribute('layout');
    if (l === 'narrow' || l === 'wide') host.dataset.layout = l;
    else delete host.dataset.layout;
  }

  attributeChangedCallback(name, old, value) {
    if (old === value || !this._built) return;
    if (name === 'layout') return this._layout();
    // What the element shows changed (another analysis, topic, base; the teaching mode on or off): rebuild it.
    if (STRUCTURE.includes(name) || (name === 'mode' && (old === 'teach') !== (value === 'teach'))) {
      // The worker stays when the base is the same (no restart for another analysis or topic).
      const key = this._engineKey;
      this._destroy({ keepWorker: true });
      this._build();
      if (key && key !== this._engineKey) release(this, key);
      return;
    }
    if (this._widget) this._applyParams();
  }

  _applyParams() {
    const params = {};
    for (const a of PARAMS) {
      if (!this.hasAttribute(a)) continue;
      params[a.replace(/-/g, '_')] = BOOLEAN.has(a) ? this.getAttribute(a) !== 'false' : this.getAttribute(a);
    }
    this._widget.setParams(this.analysis, params);
  }

  /** Sets `.data` on the panel once per value (the build and the setter both ask for it when set early). */
  _applyData() {
    if (!this._data || !this._widget) return undefined;
    if (this._appliedData === this._data && this._applying) return this._applying;
    this._appliedData = this._data;
    return (this._applying = this._widget.setData(this.analysis, this._data));
  }

  /** Runs the analysis; resolves to the JSON report (as the page's "Download JSON report"). */
  async run({ signal } = {}) {
    if (this.teaching) throw new Error('<lethe-eval mode="teach"> has no analysis to run: its figure updates as the controls move');
    // Appended just now: its build runs after the current script (connectedCallback).
    if (this._pendingBuild) await null;
    if (!this._widget) throw new Error('<lethe-eval> must be in the document before run()');
    await this._ready;
    return this._widget.run(this.analysis, { signal });
  }
}

// A property per attribute (React 19 sets an attribute as a property when the element has one of that name; a
// getter alone would throw). Kebab-case attributes have a camelCase property too (`itPool` ↔ `it-pool`).
for (const a of ATTRIBUTES) {
  if (a === 'analysis') continue;
  const desc = {
    configurable: true,
    enumerable: true,
    get() {
      if (FLAGS.has(a)) return this.hasAttribute(a);
      if (BOOLEAN.has(a)) return this.hasAttribute(a) ? this.getAttribute(a) !== 'false' : null;
      return this.getAttribute(a);
    },
    set(v) {
      this._setAttr(a, v);
    },
  };
  for (const p of Array.from(new Set([a, camel(a)]))) Object.defineProperty(LetheEval.prototype, p, desc);
}

if (typeof customElements !== 'undefined' && !customElements.get('lethe-eval')) {
  customElements.define('lethe-eval', LetheEval);
}
