// The widget factory: create(el, opts) → {setData, run, on, off, destroy, ready}. One page can hold several
// widgets; they share one worker. Importing this module does no work and touches no browser global; everything
// starts in create().
import { h, fill } from './dom.js';
import { engine as sharedEngine, unsupported } from './engine.js';
import { InputStore, inputsView } from './inputs.js';
import { sdePanel } from './panels/sde.js';
import { rulerPanel } from './panels/ruler.js';
import { exportedReport } from './panels/common.js';
import { bytes } from './format.js';
import { assetUrl } from './base.js';

const PANELS = { sde: sdePanel, ruler: rulerPanel };
/**
 * Panels the page's first results do not need (the example runs SDE and RULER): their modules are fetched after
 * those results — or at once when the widget opens without the example — so the initial page stays within its
 * budget. Until then each has a placeholder with its title.
 */
const LAZY = {
  epsilon: ['Competition epsilon', () => import('./panels/epsilon.js').then((m) => m.epsilonPanel)],
  bounds: ['Leakage bounds', () => import('./panels/bounds.js').then((m) => m.boundsPanel)],
  mia: ['Membership audit', () => import('./panels/mia.js').then((m) => m.miaPanel)],
  compare: ['Compare methods', () => import('./panels/compare.js').then((m) => m.comparePanel)],
};

/** Default options; see widget.d.ts for the documented shape. */
export const DEFAULTS = {
  panels: ['sde', 'ruler', 'epsilon', 'bounds', 'mia', 'compare'],
  example: false,
  exampleBase: null,
  showInputs: true,
  header: true,
  params: {},
  /** Workers of a pooled multi-target SDE run (default min(hardwareConcurrency, 4)); the page's first widget sets it. */
  workers: null,
};

export const PRIVACY =
  'Everything runs in this browser tab. After the page has loaded, no file, number or request leaves your machine — there is no server and no analytics.';

export const EXAMPLE_NOTE =
  'Built-in example: 128-d penultimate-layer activations of three small MLPs on scikit-learn digits — the original model, a model retrained without the 144 forget rows (the oracle), and the original fine-tuned 5 epochs on the retain rows (“unlearned”). SDE tests 100 forget rows against 100 retain rows (in training) and 100 test rows (not) by the paper’s rule, and against 10 reference subsets of retain and of test rows by the calibrated rule; on a model this small the split-half signal is weak, so read the warnings and the notes.';

const lockIcon = () =>
  h('svg:svg', { viewBox: '0 0 16 16', width: 16, height: 16, 'aria-hidden': 'true', class: 'lock' },
    h('svg:rect', { x: 3, y: 7, width: 10, height: 8, rx: 1.5, fill: 'currentColor' }),
    h('svg:path', { d: 'M5 7V5a3 3 0 0 1 6 0v2', fill: 'none', stroke: 'currentColor', 'stroke-width': 1.6 }));

/** Turns a host-supplied value into an InputStore.add() argument. */
function asInput(value, role) {
  const v = value && typeof value === 'object' && 'data' in value ? value : { data: value };
  const d = v.data;
  const name = v.name || (typeof File !== 'undefined' && d instanceof File ? d.name : `${role}`);
  if (typeof Blob !== 'undefined' && d instanceof Blob) return { file: d, name, origin: 'data' };
  if (d instanceof ArrayBuffer || ArrayBuffer.isView(d) && !(d instanceof Float32Array || d instanceof Float64Array)) return { bytes: d, name, origin: 'data' };
  if (typeof d === 'string') return { text: d, name: v.name || `${role}.csv`, origin: 'data' };
  if (d && (d.values || d instanceof Float32Array || d instanceof Float64Array || Array.isArray(d))) {
    const values = d.values || d;
    const shape = d.shape || v.shape || [values.length, 1];
    return { matrix: { values: values instanceof Float32Array || values instanceof Float64Array ? values : Float64Array.from(values), shape }, name: v.name || `${role}.npy`, origin: 'data' };
  }
  throw new Error(`data for \`${role}\`: give a File/Blob, ArrayBuffer, CSV text, or {values, shape}`);
}

/** Roles whose value is a row subset of the panel's inputs, not an input (RULER's rows; the calibrated pools). */
const ROW_ROLES = { ruler: ['forget', 'retain'], sde: ['it_pool', 'oot_pool'] };
/** `a..b`, a comma list of indices, or `all` (the CLI's @ROWS). */
const ROW_SPEC = /^\s*(all|\d+\s*\.\.\s*\d+|\d+(\s*,\s*\d+)*)\s*$/i;

/**
 * A row subset from host data: `'a..b'` / `'3,1,4'`; an index file (File/Blob, ArrayBuffer, its text, or
 * `{data, name}`); `{data, split: value}` for the rows whose split-column entry equals `value`; or a rows object as
 * the panels take it (`{kind: 'text' | 'file' | 'split', …}`).
 */
async function asRows(store, value, role) {
  if (typeof value === 'string' && ROW_SPEC.test(value)) return { kind: 'text', text: value.trim() };
  if (value && typeof value === 'object' && typeof value.kind === 'string') return value;
  const wrapped = value && typeof value === 'object' && 'data' in value ? value : { data: value };
  const split = wrapped.split ?? wrapped.value;
  const input = asInput({ ...wrapped, name: wrapped.name || (typeof File !== 'undefined' && wrapped.data instanceof File ? wrapped.data.name : `${role}.txt`) }, role);
  const item = await store.add(input);
  // A split column may be text labels (not a numeric table), so only an input the worker could not take fails.
  if (item.status === 'error' || (item.status !== 'ready' && split == null)) {
    throw Object.assign(new Error(item.error || `the ${role} rows cannot be read: give a..b, a list such as 3,1,4, or an index file`), { input: role });
  }
  return split == null ? { kind: 'file', source: item.id } : { kind: 'split', source: item.id, value: String(split) };
}

/**
 * Builds the widget into `el`.
 * @param {Element} el
 * @param {object} opts see DEFAULTS and widget.d.ts
 */
export function create(el, opts = {}) {
  opts = { ...DEFAULTS, ...opts };
  const listeners = new Map();
  const eng = opts.engine || sharedEngine({ workers: opts.workers });
  const send = (type, detail) => {
    for (const f of listeners.get(type) || []) f(detail);
    opts.onEvent?.(type, detail);
  };
  const emit = (type, detail) => {
    // A host gets a report as the page's "Download JSON report" gives it: the layer's option marks in the CLI's words.
    if (!detail?.report) return send(type, detail);
    exportedReport(detail.report, eng).then((report) => send(type, { ...detail, report }));
  };
  const store = new InputStore(eng);
  const ctx = { engine: eng, store, emit, version: null };
  const root = h('div', { class: 'root', 'data-state': 'starting' });
  fill(el, root);

  const why = unsupported();
  if (why) {
    fill(root, h('div', { class: 'error', role: 'alert' }, `Lethe cannot run in this browser: ${why}. Use a current Chrome, Edge, Firefox or Safari.`));
    return { ready: Promise.reject(new Error(why)), on() {}, off() {}, destroy() {}, setData() {}, run() {} };
  }

  const panels = {};
  /** Panels whose mode the host set explicitly (setData then leaves it alone). */
  const explicitMode = new Set();
  /** Each panel's element: the panel, or a placeholder until its module is in. */
  const places = {};
  for (const id of opts.panels) {
    if (PANELS[id]) places[id] = (panels[id] = PANELS[id](ctx)).el;
    // (Not a `panel`: a link that lands on the panel waits for the panel itself.)
    else if (LAZY[id]) places[id] = h('section', { class: 'panel-placeholder', id: `lethe-${id}`, 'aria-busy': 'true' }, h('h2', {}, LAZY[id][0]), h('p', { class: 'muted' }, 'loading…'));
  }
  /** Parameters given before a panel's module was in. */
  const early = {};
  let gpuInfo = null;
  let lazy = null;
  const loadPanels = () =>
    (lazy ||= Promise.all([
      // Needed once a person works with their own files: loaded now, so that nothing later makes a request (a
      // tool's result file dropped, the membership audit's LiRA section opened) and both work offline.
      import('./panels/guard.js'),
      import('./tools.js'),
      ...(opts.panels.includes('mia') ? [import('./panels/lira.js')] : []),
      ...opts.panels.filter((id) => LAZY[id] && !panels[id]).map(async (id) => {
        const p = (await LAZY[id][1]())(ctx);
        panels[id] = p;
        places[id].replaceWith(p.el);
        places[id] = p.el;
        if (gpuInfo) p.setWebGpu?.(gpuInfo);
        for (const params of early[id] || []) p.set(params);
      }),
    ]));
  const versionEl = h('span', { class: 'version muted' }, 'loading…');
  // Shown at once (the page's largest text: before the worker, wasm and data load).
  const activationsNote = opts.example && opts.panels.some((p) => p === 'sde' || p === 'ruler');
  const exampleEl = h('p', { class: 'example-note', hidden: !activationsNote }, activationsNote ? EXAMPLE_NOTE : null);
  const statusEl = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  const header = opts.header
    ? h(
        'header',
        { class: 'header' },
        h('div', { class: 'title-row' }, h('h1', {}, 'Lethe'), h('span', { class: 'tagline' }, 'unlearning & membership evaluation in your browser'), versionEl),
        h('p', { class: 'privacy', 'data-role': 'privacy' }, lockIcon(), PRIVACY),
      )
    : h('p', { class: 'privacy privacy-compact', 'data-role': 'privacy' }, PRIVACY);
  const nav =
    opts.panels.length > 1
      ? h('nav', { class: 'nav', 'aria-label': 'Analyses' }, Object.values(places).map((el) => h('a', { href: `#${el.id}` }, el.querySelector('h2').textContent.split(' — ')[0])))
      : null;
  const inputsEl = opts.showInputs ? inputsView(store, { maxBytesText: '1 GiB' }) : null;
  // Room kept for the example's files (widget.css): the panels do not move as they arrive.
  if (activationsNote && inputsEl) inputsEl.classList.add('lethe-inputs-example');
  fill(root, header, exampleEl, statusEl, inputsEl, nav, Object.values(places));

  const ready = eng.start().then(
    (info) => {
      ctx.version = info.version;
      const gpu = info.webgpu;
      fill(
        versionEl,
        `v${info.version} · CPU (wasm)`,
        gpu?.available ? ` + WebGPU (${gpu.adapter})` : h('span', { class: 'webgpu-note', title: gpu?.reason || '' }, ' · no WebGPU here, the CPU computes'),
        ` · limit ${bytes(info.maxBytes)} per input`,
      );
      versionEl.dataset.webgpu = gpu?.available ? 'available' : 'unavailable';
      gpuInfo = gpu;
      for (const p of Object.values(panels)) p.setWebGpu?.(gpu);
      root.dataset.state = 'ready';
      emit('ready', info);
      return info;
    },
    (e) => {
      root.dataset.state = 'failed';
      fill(statusEl, h('div', { class: 'error', role: 'alert' }, e.message));
      throw e;
    },
  );

  const api = {
    store,
    panels,
    ready,
    /** Resolves once every panel's module is in (`panels` then holds them all). */
    panelsReady: () => loadPanels(),
    on(type, fn) {
      if (!listeners.has(type)) listeners.set(type, new Set());
      listeners.get(type).add(fn);
      return api;
    },
    off(type, fn) {
      listeners.get(type)?.delete(fn);
      return api;
    },
    /** Sets panel inputs from host data: {role: File|ArrayBuffer|string|{values, shape}|{data, rows, tensor, name}}. */
    async setData(panelId, data) {
      await ready;
      if (LAZY[panelId]) await loadPanels();
      const panel = panels[panelId];
      if (!panel) throw new Error(`no panel ${panelId}`);
      const set = {};
      for (const [role, value] of Object.entries(data || {})) {
        if (value == null) continue;
        if (ROW_ROLES[panelId]?.includes(role)) {
          set[role] = await asRows(store, value, role);
          continue;
        }
        // Text inputs: ROUGE's generations and reference, the comparison's runs table (CSV/TSV/JSON text, read by the
        // layer, not as an array).
        const text = role === 'predictions' || role === 'reference' || (panelId === 'compare' && role === 'runs');
        if (text && typeof value === 'string') {
          set[role] = { kind: 'text', text: value };
          continue;
        }
        const item = await store.add(asInput(value, role));
        if (item.status !== 'ready' && !(text && item.status === 'unreadable')) throw Object.assign(new Error(item.error || `data for ${role} cannot be read`), { input: role });
        const rows = value.rows == null ? { kind: 'all' } : typeof value.rows === 'string' ? { kind: 'text', text: value.rows } : value.rows;
        set[role] = text ? { kind: 'source', source: item.id } : { source: item.id, tensor: value.tensor, rows };
      }
      // The roles given choose the panel's mode (draw-* → many targets, logits → logits, generations → ROUGE-L),
      // unless the host set the mode itself (setParams, the element's `mode` attribute, the frame's ?mode=).
      if (!explicitMode.has(panelId)) {
        const m = panel.modeFor?.(Object.keys(set));
        if (m) set.mode = m;
      }
      panel.set(set);
    },
    /** Runs a panel; resolves to its report (JSON envelope) or null when cancelled before anything was computed. */
    async run(panelId, { signal } = {}) {
      await ready;
      if (LAZY[panelId]) await loadPanels();
      const panel = panels[panelId];
      if (!panel) throw new Error(`no panel ${panelId}`);
      const out = await panel.run(signal);
      return out ? await exportedReport(panel.last(), eng) : null;
    },
    /** Applies parameters to a panel ({shuffles: 500, seed: 1, ...}); a `mode` given here wins over setData's. */
    setParams(panelId, params) {
      if (params && params.mode != null) explicitMode.add(panelId);
      if (panels[panelId]) panels[panelId].set(params);
      else if (LAZY[panelId] && params) (early[panelId] ||= []).push(params);
    },
    async loadExample() {
      await ready;
      await loadExample(api, ctx, exampleEl, opts.exampleBase);
    },
    destroy() {
      fill(el);
      listeners.clear();
    },
  };
  for (const [id, params] of Object.entries(opts.params || {})) api.setParams(id, params);
  // The page opens on the lean wasm module; the full one (every reader and analysis, WebGPU) is fetched once the
  // first results are shown (or right after start without the example), so that later work needs no request.
  eng.onModule?.((m) => (root.dataset.module = m));
  const prefetch = () => {
    performance.mark?.('lethe:full-requested');
    return eng
      .loadFull?.()
      .then((r) => (root.dataset.workers = String(r?.workers ?? 1)))
      .catch(() => {});
  };
  ctx.prefetch = prefetch;
  ctx.loadPanels = loadPanels;
  // `built`: the first view that stays. A panel loaded later (membership audit, epsilon, leakage bounds) is a
  // placeholder first, and with the example it fills in once the audit has run: <lethe-eval> shows it only then.
  const whole = opts.panels.some((id) => LAZY[id]);
  if (opts.example) {
    const all = ready
      .then(() => api.loadExample())
      .catch((e) => fill(statusEl, h('div', { class: 'error', role: 'alert' }, `The built-in example could not be loaded: ${e.message}`)))
      .finally(() => inputsEl?.classList.remove('lethe-inputs-example'))
      .then(() => prefetch().then(loadPanels));
    api.built = whole ? all : ready;
  } else {
    const all = ready.then(() => {
      const panelsIn = loadPanels();
      prefetch();
      return panelsIn;
    });
    api.built = whole ? all : ready;
  }
  api.built.catch(() => {});
  return api;
}

/**
 * Fetches the built-in digits example, sets the SDE and RULER panels to it and runs them; then (the first results
 * shown) has the full wasm module fetched and adds the example's index files, which the lean module does not read.
 */
async function loadExample(api, ctx, noteEl, base) {
  const root = base ? new URL(base, document.baseURI) : null;
  // (assetUrl: lethe.html holds these files itself.)
  const url = (n) => (root ? new URL(n, root) : assetUrl(`data/digits/${n}`));
  const { sde, ruler } = api.panels;
  // Only SDE and RULER use these.
  const names = sde || ruler ? ['act_unlearned.npy', 'act_retrained.npy', 'act_original.npy', 'forget.txt', 'retain.txt', 'test.txt'] : [];
  const files = await Promise.all(
    names.map(async (n) => {
      const r = await fetch(url(n));
      if (!r.ok) throw new Error(`${n}: HTTP ${r.status}`);
      return new File([await r.blob()], n);
    }),
  );
  const items = {};
  for (const f of files.filter((f) => f.name.endsWith('.npy'))) items[f.name] = await ctx.store.add({ file: f, origin: 'example' });
  if (names.length && noteEl.hidden) (noteEl.hidden = false), fill(noteEl, EXAMPLE_NOTE);
  const id = (n) => items[n].id;
  // Rows as ranges: rows 0–143 are the forget set (forget.txt), 144–543 retain rows (retain.txt), 544–743 test rows
  // (test.txt); the lean module the page opens with reads .npy only.
  sde?.set({
    mode: 'single',
    in_training: { source: id('act_unlearned.npy'), rows: { kind: 'text', text: '144..244' } },
    out_of_training: { source: id('act_unlearned.npy'), rows: { kind: 'text', text: '544..644' } },
    target: { source: id('act_unlearned.npy'), rows: { kind: 'text', text: '0..100' } },
    // The calibrated verdict draws its reference subsets from all retain rows and all test rows.
    it_pool: '144..544',
    oot_pool: '544..744',
    refs: 10,
  });
  ruler?.set({
    unlearned: { source: id('act_unlearned.npy') },
    oracle: { source: id('act_retrained.npy') },
    original: { source: id('act_original.npy') },
    forget: { kind: 'text', text: '0..144' },
    retain: { kind: 'text', text: '144..544' },
  });
  // These ranges are rows of the example's files: a person's own file in their place clears them.
  sde?.markExample();
  ruler?.markExample();
  const t0 = performance.now();
  await Promise.all([sde?.run().catch(() => {}), ruler?.run().catch(() => {})]);
  noteEl.dataset.exampleMs = String(Math.round(performance.now() - t0));
  performance.mark?.('lethe:first-results');
  ctx.emit('example', { ms: performance.now() - t0 });
  await ctx.prefetch?.();
  // The other panels' modules, after the full module was asked for (neither is part of the initial page).
  await ctx.loadPanels?.();
  // The membership audit's example (panels/mia.js): attack scores on the same models' outputs, audited at once.
  await api.panels.mia?.loadExample?.(url).catch(() => {});
  // The comparison's example table (panels/compare.js), fetched now so that its button makes no request later.
  await api.panels.compare?.prefetchExample?.(url).catch(() => {});
  for (const f of files.filter((f) => f.name.endsWith('.txt'))) await ctx.store.add({ file: f, origin: 'example', note: 'row indices (one per line)' });
  // Every file of the example is listed now (tests wait for this before counting inputs).
  noteEl.dataset.exampleFiles = String(files.length);
}
