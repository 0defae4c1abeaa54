// The inputs a widget knows about: a model (InputStore: files, pasted text and data handed over by a host page, each
// a source in the worker) and its view (drop zone, file picker, paste box, one card per input with its detected
// format, dtype, shape, size, SHA-256 and any problem, shown next to it).
import { h, fill, nextId } from './dom.js';
import { bytes, shape } from './format.js';

/** A reader's note in the page's words (panels/common.js sets its `say`: the layer's marked options and analyses). */
let noteWords = (t) => t;
export const setNoteWords = (f) => (noteWords = f);

/** A reader's note that is no problem: a table's header row read as column names, as almost every CSV has. */
export const noteOnly = (w) => / was read as column names /.test(w);

/** The SHA-256 of `bytes` in hex, as the worker's hash of a source; null where the browser has no Web Crypto (an http: page). */
async function sha256(bytes) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  try {
    const d = new Uint8Array(await subtle.digest('SHA-256', bytes));
    return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return null;
  }
}

export class InputStore {
  constructor(engine) {
    this.engine = engine;
    this.items = new Map();
    this.listeners = new Set();
    this.toolSets = [];
    /** Inputs by their bytes (the buffer object, and its SHA-256 where the browser computes it): see add(). */
    this.byBuffer = new WeakMap();
    this.byContent = new Map();
  }

  on(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  _changed(item) {
    for (const f of this.listeners) f(item);
  }

  list() {
    return [...this.items.values()];
  }

  get(id) {
    return this.items.get(id);
  }

  byName(name) {
    return this.list().find((i) => i.name === name);
  }

  /**
   * The name a person sees for `item`: its file name, told apart from other inputs of the same name by a number in
   * the order they were added ("act.npy (2)"); beside a person's own file, the example's is "(built-in example)".
   */
  label(item) {
    if (!item) return '';
    const same = this.list().filter((i) => i.name === item.name);
    if (same.length < 2) return item.name;
    const example = item.origin === 'example';
    if (example && same.some((i) => i.origin !== 'example')) return `${item.name} (built-in example)`;
    const k = same.filter((i) => (i.origin === 'example') === example).indexOf(item);
    return k <= 0 ? item.name : `${item.name} (${k + 1})`;
  }

  /** Whether `item` is a text file rather than a table (generations, references, index files, labels). */
  isText(item) {
    return item?.status === 'unreadable' && (/\.(txt|text|md)$/i.test(item.name) || /cannot parse|not a number|no numbers/i.test(item.error || ''));
  }

  /** Inputs that load as matrices. */
  tables() {
    return this.list().filter((i) => i.status === 'ready');
  }

  /** Inputs that exist in the worker (tables, and files usable only as text). */
  sources() {
    return this.list().filter((i) => i.status === 'ready' || i.status === 'unreadable');
  }

  /**
   * Adds one input: `{file}` (File/Blob, read in slices by the worker), `{text}` (pasted), `{bytes}` (a file's
   * bytes) or `{matrix: {values, shape}}`; `name` names it in messages and reports. Resolves to the item, which
   * carries `error` instead of throwing when the input cannot be used.
   */
  add(input) {
    // Identical bytes are one input: a host handing the same buffer (or a copy of its bytes, or the same File) for
    // several roles gets one file, listed once, with one SHA-256, and the panels see the roles as rows of one file.
    // The promises are registered before any await, so that roles set at the same time find each other.
    const raw = input.bytes;
    if (input.origin === 'example' || !(raw || (input.file && input.origin === 'data'))) return this._add(input);
    const live = async (p) => {
      const item = await p?.catch(() => null);
      return item && this.items.get(item.id) === item && item.status !== 'error' ? item : null;
    };
    const obj = raw ? (raw instanceof ArrayBuffer ? raw : raw.buffer) : input.file;
    const view = raw && (raw instanceof ArrayBuffer ? new Uint8Array(raw) : new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength));
    const key = raw ? `${view.byteOffset}:${view.byteLength}` : 'file';
    const spans = this.byBuffer.get(obj) || {};
    const before = spans[key];
    const p = (async () => {
      const same = await live(before);
      if (same) return same;
      const hash = raw ? await sha256(view) : null;
      if (!hash) return this._add(input);
      const earlier = this.byContent.get(hash);
      const q = live(earlier).then((known) => known || this._add(input));
      this.byContent.set(hash, q);
      return q;
    })();
    spans[key] = p;
    this.byBuffer.set(obj, spans);
    return p;
  }

  async _add({ file, text, bytes: raw, matrix, name, origin = 'file', note = null }) {
    await this.engine.start();
    const id = this.engine.newSource();
    const item = { id, name: name || file?.name || `input-${id}`, size: file?.size ?? null, origin, note, status: 'reading', info: null, error: null, warnings: [], overLimit: null, sha256: null, hashing: null };
    this.items.set(id, item);
    this._changed(item);
    const payload = { source: id, name: item.name };
    let transfer = [];
    if (file) payload.file = file;
    else if (text !== undefined) {
      const buf = new TextEncoder().encode(text).buffer;
      payload.bytes = buf;
      transfer = [buf];
    } else if (raw) {
      const buf = raw instanceof ArrayBuffer ? raw.slice(0) : raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength);
      payload.bytes = buf;
      transfer = [buf];
    } else if (matrix) {
      const [rows, cols = 1] = matrix.shape || [matrix.values.length];
      payload.matrix = { values: matrix.values, rows, cols };
    }
    try {
      const r = await this.engine.request('add', payload, { transfer });
      if (r.ok) {
        const si = r.value;
        Object.assign(item, { status: 'ready', info: si.info, size: si.size, overLimit: si.over_limit, warnings: si.info?.warnings || [] });
      } else {
        // Kept as a source (usable as text), but not as a matrix.
        Object.assign(item, { status: 'unreadable', error: r.message });
      }
      this._changed(item);
      if (!item.overLimit) this._hash(item);
    } catch (e) {
      Object.assign(item, { status: 'error', error: e.message });
      this._changed(item);
    }
    return item;
  }

  async _hash(item) {
    item.hashing = 0;
    try {
      item.sha256 = await this.engine.request('hash', { source: item.id }, {
        onProgress: (p) => {
          item.hashing = p.fraction;
          this._changed(item);
        },
      });
    } catch (e) {
      item.hashError = e.message;
    }
    item.hashing = null;
    this._changed(item);
  }

  /**
   * Adds files (a drop, the picker); files that may be a tool's (issue 14: not a lone .npy/CSV) go to tools.js,
   * which asks the full module which tool wrote them and shows the summaries and offers.
   */
  async addFiles(files) {
    const items = await Promise.all(files.map((f) => this.add({ file: f })));
    const paths = files.map((f) => f.webkitRelativePath || f.name);
    const maybe = (i) => i.status === 'unreadable' || /npz|json/.test(i.info?.format);
    if (items.some(maybe) || (items.length > 1 && (items.some((i) => i.info?.arrays?.some((a) => a.dtype === 'bool')) || paths.some((p) => p.includes('/')))))
      await import('./tools.js').then((m) => m.detect(this, items, paths)).catch(() => {});
    return items;
  }

  runOffer(offer, owner) {
    return this.toolView.runOffer(this, offer, owner);
  }

  remove(id) {
    if (!this.items.has(id)) return;
    this.items.delete(id);
    this.engine.request('remove', { source: id }).catch(() => {});
    this._changed(null);
  }
}

/** The arrays of an item that can be loaded (for tensor pickers). */
export const arraysOf = (item) => item?.info?.arrays || [];

function card(store, item) {
  const arrays = arraysOf(item);
  const errId = nextId('err');
  const label = store.label(item);
  const name = item.origin === 'example' ? item.name : label;
  // A text file (generations, a reference, row indices) is an input in its own right, not a table that failed.
  const text = store.isText(item);
  const error = text ? null : item.error;
  const fmtName = item.info ? { npy: '.npy', npz: '.npz', safetensors: '.safetensors', csv: 'CSV/TSV', json: 'JSON' }[item.info.format] : '';
  return h(
    'li',
    { class: `card ${error ? 'card-error' : ''}`, 'data-source': item.id, 'data-name': item.name, 'data-label': label, 'aria-describedby': error ? errId : null },
    h(
      'div',
      { class: 'card-head' },
      h('strong', { class: 'card-name' }, name),
      fmtName && h('span', { class: 'badge' }, fmtName),
      text && h('span', { class: 'badge badge-text', 'data-kind': 'text' }, 'text'),
      item.size != null && h('span', { class: 'muted size' }, bytes(item.size)),
      item.origin === 'example' && h('span', { class: 'badge badge-example' }, 'built-in example'),
      item.origin === 'synthetic' && h('span', { class: 'badge badge-synthetic' }, 'synthetic'),
      h('button', { type: 'button', class: 'icon-button', 'aria-label': `Remove ${label}`, title: 'Remove', onclick: () => store.remove(item.id) }, '×'),
    ),
    item.status === 'reading' && h('div', { class: 'muted' }, 'reading headers…'),
    error && h('div', { class: 'error', role: 'alert', id: errId }, error),
    text && h('div', { class: 'muted', 'data-value': 'text-note' }, 'A text file: usable as generations, a reference, row indices or a split column (not as a table of numbers).'),
    item.overLimit && h('div', { class: 'error', role: 'alert' }, item.overLimit),
    arrays.length > 0 &&
      h(
        'ul',
        { class: 'arrays' },
        arrays.map((a) =>
          h(
            'li',
            {},
            a.name ? [h('code', {}, a.name), ' '] : null,
            `${a.dtype} [${shape(a.shape)}]`,
            a.rows && (a.shape.length !== 2 || a.shape[0] !== a.rows || a.shape[1] !== a.cols) ? ` → ${a.rows} × ${a.cols}` : '',
            arrays.length > 1 ? ` · ${bytes(a.byte_size)}` : '',
            a.note ? h('span', { class: 'muted' }, ` (${a.note})`) : null,
            a.problem ? h('span', { class: 'error' }, ` — ${a.problem}`) : null,
          ),
        ),
      ),
    item.note && h('span', { class: 'muted' }, item.note),
    item.tool && store.toolView?.toolBox(store, item.tool, item),
    (item.warnings || []).map((w) => h('div', { class: noteOnly(w) ? 'muted' : 'warning' }, noteWords(w))),
    item.sha256
      ? h('div', { class: 'hash', title: item.sha256 }, 'SHA-256 ', h('code', {}, item.sha256.slice(0, 16) + '…'))
      : item.hashing != null
        ? h('div', { class: 'muted' }, `SHA-256: ${Math.round(item.hashing * 100)}%`)
        : null,
  );
}

/** The inputs section: drop zone, picker, paste box, cards. */
export function inputsView(store, { maxBytesText = '1 GiB' } = {}) {
  const list = h('ul', { class: 'cards', 'aria-label': 'Loaded inputs' });
  const picker = h('input', {
    type: 'file',
    multiple: true,
    hidden: true,
    tabindex: -1,
    'aria-label': 'Choose input files',
    'data-role': 'inputs-file',
    accept: '.npy,.npz,.safetensors,.csv,.tsv,.txt,.json',
    onchange: (e) => {
      store.addFiles([...e.target.files]);
      e.target.value = '';
    },
  });
  const drop = h(
    'div',
    { class: 'dropzone', 'data-drop': 'inputs' },
    h('p', {}, 'Drop .npy, .npz, .safetensors, CSV/TSV or JSON files here, or ', h('button', { type: 'button', class: 'button button-secondary button-small', onclick: () => picker.click() }, 'choose files'), picker,
      h('span', { class: 'muted' }, ` — read in slices inside this tab, up to ${maxBytesText} per input.`)),
  );
  wireDrop(drop, (files) => store.addFiles(files));
  const pasteArea = h('textarea', { rows: 4, class: 'paste', 'aria-label': 'Numbers to paste (one per line, or CSV rows)', placeholder: '0.12\n0.5\n…   or   1,2,3\\n4,5,6' });
  const pasteName = h('input', { type: 'text', value: '', 'aria-label': 'Name of the pasted input', placeholder: 'pasted.csv', size: 14 });
  let pasted = 0;
  const paste = h(
    'details',
    { class: 'paste-box' },
    h('summary', {}, 'Paste numbers (one per line, or CSV rows)'),
    pasteArea,
    h(
      'div',
      { class: 'row' },
      pasteName,
      h('button', {
        type: 'button',
        class: 'button button-secondary',
        onclick: () => {
          if (!pasteArea.value.trim()) return;
          store.add({ text: pasteArea.value, name: pasteName.value.trim() || `pasted-${++pasted}.csv`, origin: 'paste' });
          pasteArea.value = '';
        },
      }, 'Add pasted input'),
    ),
  );
  const render = () =>
    fill(list, store.toolSets.map((t) => h('li', { class: 'card card-toolset', 'data-toolset': t.id }, h('div', { class: 'card-head' }, h('strong', {}, Object.keys(t.toolFiles).join(' + '))), store.toolView?.toolBox(store, t.tool, t))), store.list().map((i) => card(store, i)));
  store.on(render);
  render();
  return h('section', { class: 'inputs', 'aria-label': 'Inputs' }, h('h2', {}, 'Inputs'), drop, paste, list);
}

/** Makes `el` a drop target calling `onFiles(File[])`. */
export function wireDrop(el, onFiles) {
  el.addEventListener('dragover', (e) => {
    if (!e.dataTransfer || ![...e.dataTransfer.types].includes('Files')) return;
    e.preventDefault();
    el.classList.add('lethe-dragover');
  });
  el.addEventListener('dragleave', () => el.classList.remove('lethe-dragover'));
  el.addEventListener('drop', (e) => {
    e.preventDefault();
    e.stopPropagation();
    el.classList.remove('lethe-dragover');
    const files = [...(e.dataTransfer?.files || [])];
    if (files.length) onFiles(files);
  });
}
