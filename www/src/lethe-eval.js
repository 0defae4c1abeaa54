// <lethe-eval>: the widget as a custom element.
//
//   <lethe-eval analysis="sde" shuffles="500" seed="1"></lethe-eval>
//   el.data = { in_training: file, out_of_training: {data: buffer, rows: '0..100'}, target: {values, shape} };
//   el.addEventListener('result', (e) => console.log(e.detail.report));
//   await el.run({ signal });
//
//   <lethe-eval mode="teach" topic="hsic"></lethe-eval>   one teaching topic (hsic, sde, ranks, epsilon, bounds):
//   an explanation beside a live figure (www/src/teach/, docs/teaching.md); loaded only in this mode.
//
// Importing this module does no work and touches no browser global beyond `typeof` checks, so a docs site can
// import it while rendering on the server; the element registers itself where `customElements` exists and builds
// its shadow DOM, worker and wasm only in connectedCallback.
import { create } from './widget.js';

const ANALYSES = ['sde', 'ruler', 'epsilon', 'bounds', 'mia'];
// Attributes that set panel parameters (kebab-case → the panel's snake_case names).
const PARAMS = [
  'mode', 'rule', 'shuffles', 'sigma', 'seed', 'bins', 'split', 'precision', 'baselines', 'draw', 'size', 'refs', 'margin',
  'it-pool', 'oot-pool', 'backend', 'workers',
  'forget', 'retain', 'ties', 'fdr', 'variant', 'alpha', 'eps-max', 'delta', 'accuracies',
  'one-sided', 'x', 'stepsize', 'sd-method', 'atom-at-zero', 'rho', 'plan-width', 'stemmer',
  'ci', 'resamples', 'fpr', 'lower-is-member',
];
const BOOLEAN = new Set(['baselines', 'one-sided', 'atom-at-zero', 'stemmer', 'lower-is-member']);

const Base = typeof HTMLElement === 'undefined' ? class {} : HTMLElement;

export class LetheEval extends Base {
  static get observedAttributes() {
    return PARAMS;
  }

  constructor() {
    super();
    this._data = null;
    this._widget = null;
    this._ready = null;
  }

  /** Which analysis this element shows: sde (default), ruler, epsilon, bounds, mia (the membership audit). */
  get analysis() {
    const a = this.getAttribute('analysis') || 'sde';
    return ANALYSES.includes(a) ? a : 'sde';
  }

  /** Inputs by role: File/Blob, ArrayBuffer, CSV text, {values, shape}, or {data, rows, tensor, name}. */
  get data() {
    return this._data;
  }

  set data(v) {
    this._data = v;
    if (this._widget) this._ready = this._widget.ready.then(() => this._applyData());
  }

  /** True for `mode="teach"`: a teaching topic instead of an analysis panel. */
  get teaching() {
    return this.getAttribute('mode') === 'teach';
  }

  connectedCallback() {
    if (this._widget || this._teach) return;
    const root = this.shadowRoot || this.attachShadow({ mode: 'open' });
    if (this.teaching) {
      this._teach = this._connectTeach(root);
      return;
    }
    const css = document.createElement('link');
    css.rel = 'stylesheet';
    css.href = new URL('../widget.css', import.meta.url).href;
    const host = document.createElement('div');
    root.append(css, host);
    this._widget = create(host, {
      panels: [this.analysis],
      header: false,
      showInputs: this.hasAttribute('inputs'),
      example: this.hasAttribute('example'),
      onEvent: (type, detail) => {
        if (type === 'progress' || type === 'result' || type === 'error' || type === 'ready') {
          this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
        }
      },
    });
    this._applyParams();
    this._ready = this._widget.ready.then(() => this._applyData());
    if (this.hasAttribute('autorun')) this._ready.then(() => this.run()).catch(() => {});
  }

  /** Teaching mode: widget.css + teach.css, and the topic module loaded on demand (not by analysis elements). */
  async _connectTeach(root) {
    const host = document.createElement('div');
    for (const sheet of ['../widget.css', '../teach.css']) {
      const css = document.createElement('link');
      css.rel = 'stylesheet';
      css.href = new URL(sheet, import.meta.url).href;
      root.append(css);
    }
    root.append(host);
    const { createTeach } = await import('./teach/index.js');
    const teach = createTeach(host, { topics: [this.getAttribute('topic') || 'hsic'] });
    teach.ready.then(
      (info) => this.dispatchEvent(new CustomEvent('ready', { detail: info, bubbles: true, composed: true })),
      (e) => this.dispatchEvent(new CustomEvent('error', { detail: { message: e.message }, bubbles: true, composed: true })),
    );
    return teach;
  }

  attributeChangedCallback() {
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

  async _applyData() {
    if (this._data) await this._widget.setData(this.analysis, this._data);
  }

  /** Runs the analysis; resolves to the JSON report (as the page's "Download JSON report"). */
  async run({ signal } = {}) {
    if (this.teaching) throw new Error('<lethe-eval mode="teach"> has no analysis to run: its figure updates as the controls move');
    if (!this._widget) throw new Error('<lethe-eval> must be in the document before run()');
    await this._ready;
    return this._widget.run(this.analysis, { signal });
  }
}

if (typeof customElements !== 'undefined' && !customElements.get('lethe-eval')) {
  customElements.define('lethe-eval', LetheEval);
}
