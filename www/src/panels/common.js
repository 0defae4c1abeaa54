// Building blocks of the analysis panels: input slots (choose/drop a file, tensor, rows), parameter fields, the
// run/cancel/progress strip, results with exports. Panels describe their inputs and parameters; this module wires
// them to the worker. Every control has a visible label (or an aria-label) and is reachable by keyboard.
import { h, fill, nextId } from '../dom.js';
import { fmt, seconds } from '../format.js';
import { arraysOf, wireDrop } from '../inputs.js';
import { download, json, csv, svgText, pngBlob } from '../export.js';
import { widthOf } from '../views/svg.js';

const debounce = (f, ms) => {
  let t;
  return (...a) => {
    clearTimeout(t);
    t = setTimeout(() => f(...a), ms);
  };
};

/**
 * Row choice: all rows, text (`a..b` or `3,1,4`, as the CLI's @ROWS), an index file, or a split column.
 * `withAll: false` for forget/retain where "all" makes no sense.
 */
export function rowsControl(store, { key, label, onchange, withAll = true }) {
  const modeId = nextId('rows');
  const mode = h(
    'select',
    { id: modeId, 'data-role': `${key}-rows-mode`, 'aria-label': `${label}: which rows` },
    withAll && h('option', { value: 'all' }, 'all rows'),
    h('option', { value: 'text' }, 'rows a..b or list'),
    h('option', { value: 'file' }, 'index file'),
    h('option', { value: 'split' }, 'split column'),
  );
  const text = h('input', { type: 'text', 'aria-label': `${label}: rows (a..b or 3,1,4)`, placeholder: '0..100', size: 12, 'data-role': `${key}-rows` });
  const src = h('select', { 'aria-label': `${label}: index file or split column`, 'data-role': `${key}-rows-source` });
  const value = h('input', { type: 'text', 'aria-label': `${label}: split value`, placeholder: 'value', size: 8, 'data-role': `${key}-split-value` });
  const fillSources = () => {
    const cur = src.value;
    fill(src, h('option', { value: '' }, '— choose an input —'), store.sources().map((i) => h('option', { value: i.id }, i.name)));
    src.value = cur;
  };
  const sync = () => {
    text.hidden = mode.value !== 'text';
    src.hidden = !(mode.value === 'file' || mode.value === 'split');
    value.hidden = mode.value !== 'split';
  };
  store.on(fillSources);
  fillSources();
  for (const el of [mode, text, src, value]) el.addEventListener('change', () => (sync(), onchange?.()));
  text.addEventListener('input', () => onchange?.());
  sync();
  const el = h('span', { class: 'rows' }, h('label', { for: modeId, class: 'sub-label' }, 'rows'), mode, text, src, value);
  return {
    el,
    get() {
      switch (mode.value) {
        case 'text':
          return { kind: 'text', text: text.value };
        case 'file':
          return src.value ? { kind: 'file', source: Number(src.value) } : null;
        case 'split':
          return src.value ? { kind: 'split', source: Number(src.value), value: value.value } : null;
        default:
          return { kind: 'all' };
      }
    },
    set(r) {
      r = r || { kind: 'all' };
      mode.value = r.kind === 'all' && !withAll ? 'text' : r.kind;
      text.value = r.text || '';
      fillSources();
      src.value = r.source ?? '';
      value.value = r.value || '';
      sync();
    },
  };
}

/**
 * An input slot for role `key`: which input, which tensor, which rows; validated by loading it in the worker,
 * with the summary (rows × cols, dtype) or the problem shown right under it. Files dropped on the slot (or picked
 * with its button) are added to the inputs and chosen here.
 */
export function inputSlot(ctx, { key, label, hint, optional = false, rows = true, onchange }) {
  const { store, engine } = ctx;
  const selId = nextId('slot');
  const statusId = nextId('status');
  const errId = nextId('error');
  const select = h('select', { id: selId, 'data-role': key, 'aria-describedby': `${statusId} ${errId}` });
  const tensor = h('select', { 'aria-label': `${label}: array / tensor`, 'data-role': `${key}-tensor`, hidden: true });
  const status = h('div', { class: 'slot-status muted', id: statusId, 'aria-live': 'polite' });
  const error = h('div', { class: 'error', id: errId, role: 'alert', 'data-error-for': key });
  const warn = h('div', { class: 'slot-warnings' });
  let seq = 0;
  const validate = debounce(async () => {
    const ref = api.get();
    const mine = ++seq;
    fill(error);
    fill(warn);
    if (!ref) {
      fill(status, optional ? 'not used' : '');
      return;
    }
    fill(status, 'checking…');
    try {
      const s = await engine.request('load', { role: key, input: ref });
      if (mine !== seq) return;
      fill(status, `${s.rows} × ${s.cols} · ${s.record.dtype} · ${s.record.spec}${s.in_place ? ' · read in place from the file' : ''}`);
      fill(warn, s.warnings.map((w) => h('div', { class: 'warning' }, w)));
    } catch (e) {
      if (mine !== seq) return;
      fill(status);
      fill(error, e.message);
    }
  }, 120);
  const changed = () => {
    syncTensor();
    validate();
    onchange?.();
  };
  const rowsCtl = rows ? rowsControl(store, { key, label, onchange: changed }) : null;
  const fillOptions = () => {
    const cur = select.value;
    fill(select, h('option', { value: '' }, optional ? '— none —' : '— choose an input —'), store.tables().map((i) => h('option', { value: i.id }, i.name)));
    if ([...select.options].some((o) => o.value === cur)) select.value = cur;
    syncTensor();
  };
  const syncTensor = () => {
    const item = store.get(Number(select.value));
    const arrays = arraysOf(item).filter((a) => a.name);
    tensor.hidden = arrays.length < 2;
    const cur = tensor.value;
    fill(tensor, arrays.map((a) => h('option', { value: a.name }, `${a.name} [${a.shape.join('×')}]`)));
    if (arrays.some((a) => a.name === cur)) tensor.value = cur;
  };
  store.on(fillOptions);
  select.addEventListener('change', changed);
  tensor.addEventListener('change', changed);
  const picker = h('input', {
    type: 'file',
    hidden: true,
    tabindex: -1,
    'aria-label': `Choose a file for ${label}`,
    'data-role': `${key}-file`,
    onchange: async (e) => {
      const f = e.target.files[0];
      e.target.value = '';
      if (f) await adopt(f);
    },
  });
  const adopt = async (file) => {
    const item = await store.add({ file });
    if (item.status === 'ready') {
      select.value = String(item.id);
      changed();
    } else {
      fill(error, item.error || 'this file cannot be used');
    }
  };
  const el = h(
    'div',
    { class: 'slot', 'data-slot': key },
    h('label', { for: selId, class: 'slot-label' }, label, optional ? h('span', { class: 'muted' }, ' (optional)') : null),
    hint && h('div', { class: 'hint muted' }, hint),
    h(
      'div',
      { class: 'row' },
      select,
      tensor,
      h('button', { type: 'button', class: 'button button-small button-secondary', 'aria-label': `Choose a file for ${label}`, title: 'Choose or drop a file', onclick: () => picker.click() }, 'file…'),
      picker,
    ),
    rowsCtl && rowsCtl.el,
    status,
    error,
    warn,
  );
  wireDrop(el, (files) => adopt(files[0]));
  fillOptions();
  const api = {
    key,
    el,
    get() {
      if (!select.value) return null;
      const ref = { source: Number(select.value) };
      if (!tensor.hidden && tensor.value) ref.tensor = tensor.value;
      const r = rowsCtl ? rowsCtl.get() : { kind: 'all' };
      if (r === null) return null;
      ref.rows = r;
      return ref;
    },
    set(ref) {
      fillOptions();
      select.value = ref ? String(ref.source) : '';
      syncTensor();
      if (ref?.tensor) tensor.value = ref.tensor;
      rowsCtl?.set(ref?.rows);
      changed();
    },
    showError(msg) {
      fill(error, msg);
      el.scrollIntoView?.({ block: 'nearest' });
    },
    clearError() {
      fill(error);
    },
    label,
    optional,
  };
  return api;
}

/** A labelled parameter. type: number | text | select | checkbox. */
export function field({ key, label, type = 'number', value, options, min, max, step, help, size }) {
  const id = nextId('param');
  let input;
  if (type === 'select') {
    input = h('select', { id, 'data-param': key }, options.map(([v, t]) => h('option', { value: v }, t)));
    input.value = value;
  } else if (type === 'checkbox') {
    input = h('input', { id, type: 'checkbox', checked: !!value, 'data-param': key });
  } else {
    input = h('input', { id, type: type === 'number' ? 'number' : 'text', value: value ?? '', min, max, step: step ?? 'any', size: size || 8, 'data-param': key, inputmode: type === 'number' ? 'decimal' : null });
  }
  const el = h('div', { class: `field field-${type}` }, type === 'checkbox' ? [input, h('label', { for: id }, label)] : [h('label', { for: id }, label), input], help && h('div', { class: 'hint muted' }, help));
  return {
    key,
    el,
    input,
    get() {
      if (type === 'checkbox') return input.checked;
      if (type === 'number') return input.value.trim() === '' ? null : Number(input.value);
      return input.value;
    },
    set(v) {
      if (type === 'checkbox') input.checked = !!v;
      else input.value = v;
    },
  };
}

/** Panel skeleton. */
export function panelFrame({ id, title, intro }) {
  const parts = {
    inputs: h('div', { class: 'panel-inputs' }),
    params: h('fieldset', { class: 'params' }, h('legend', {}, 'Parameters')),
    actions: h('div', { class: 'actions' }),
    progress: h('div', { class: 'progress', 'aria-live': 'polite' }),
    error: h('div', { class: 'error panel-error', role: 'alert' }),
    results: h('div', { class: 'results' }),
  };
  const headId = nextId('h');
  parts.el = h(
    'section',
    { class: 'panel', id, 'aria-labelledby': headId, 'data-panel': id },
    h('h2', { id: headId }, title),
    intro && h('p', { class: 'intro' }, intro),
    h(
      'div',
      { class: 'panel-body' },
      h('div', { class: 'panel-controls' }, parts.inputs, parts.params, parts.actions, parts.progress, parts.error),
      parts.results,
    ),
  );
  return parts;
}

/**
 * Run/Cancel buttons and the progress line for a panel; `start(signal)` does the work and resolves when done.
 * Returns `{run(signal?), cancel(), busy()}`.
 */
export function runner(ctx, parts, { label, start, fields = [] }) {
  let controller = null;
  const runBtn = h('button', { type: 'button', class: 'button', 'data-action': 'run' }, label || 'Run');
  const cancelBtn = h('button', { type: 'button', class: 'button button-secondary', 'data-action': 'cancel', disabled: true }, 'Cancel');
  const bar = h('progress', { max: 1, value: 0, 'aria-label': `${label || 'Run'} progress` });
  const text = h('span', { class: 'progress-text' });
  fill(parts.progress, bar, text);
  parts.progress.hidden = true;
  fill(parts.actions, runBtn, cancelBtn);
  const onProgress = (p) => {
    bar.value = p.fraction;
    const eta = seconds(p.eta_s);
    fill(text, `${Math.round(p.fraction * 100)}% · ${p.phase}${eta ? ` · about ${eta} left` : ''}`);
    ctx.emit('progress', { panel: parts.el.id, fraction: p.fraction, phase: p.phase, eta_s: p.eta_s });
  };
  const run = async (outer) => {
    if (controller) controller.abort();
    controller = new AbortController();
    const mine = controller;
    if (outer) outer.addEventListener('abort', () => mine.abort(), { once: true });
    runBtn.disabled = true;
    cancelBtn.disabled = false;
    parts.progress.hidden = false;
    bar.value = 0;
    fill(text, 'starting…');
    fill(parts.error);
    // Number fields must hold numbers (an empty box would otherwise reach the core as null).
    const bad = fields.find((f) => f.input.type === 'number' && !f.el.closest('[hidden]') && !Number.isFinite(f.get()));
    if (bad) {
      fill(parts.error, `“${bad.el.querySelector('label').textContent}” needs a number.`);
      bad.input.focus();
      runBtn.disabled = false;
      cancelBtn.disabled = true;
      parts.progress.hidden = true;
      return null;
    }
    parts.el.setAttribute('aria-busy', 'true');
    const t0 = performance.now();
    try {
      const out = await start(mine.signal, onProgress);
      const ms = performance.now() - t0;
      bar.value = 1;
      fill(text, `${mine.signal.aborted ? 'stopped' : 'done'} in ${(ms / 1000).toFixed(2)} s`);
      parts.el.dataset.lastRunMs = String(Math.round(ms));
      return out;
    } catch (e) {
      if (e.name === 'AbortError') {
        fill(text, 'cancelled');
        return null;
      }
      fill(text, 'failed');
      throw e;
    } finally {
      if (controller === mine) controller = null;
      runBtn.disabled = false;
      cancelBtn.disabled = true;
      parts.el.removeAttribute('aria-busy');
    }
  };
  runBtn.addEventListener('click', () => run().catch(() => {}));
  cancelBtn.addEventListener('click', () => controller?.abort());
  return { run, cancel: () => controller?.abort(), busy: () => !!controller, runBtn, cancelBtn };
}

/** Shows an error next to the slot it names, else at panel level. */
export function showError(parts, slots, e) {
  const slot = e.input && slots.find((s) => s && s.key === e.input);
  if (slot) slot.showError(e.message);
  else fill(parts.error, e.message);
}

/** A definition list of [term, value, note?] rows; values get `data-value` (for tests and screen readers). */
export function numbers(rows, caption) {
  return h(
    'table',
    { class: 'numbers' },
    caption && h('caption', {}, caption),
    h(
      'tbody',
      {},
      rows.filter(Boolean).map(([term, value, note, key]) =>
        h('tr', { 'data-key': key || null }, h('th', { scope: 'row' }, term), h('td', { class: 'value', 'data-value': key || null }, value), h('td', { class: 'note muted' }, note || '')),
      ),
    ),
  );
}

export const n6 = fmt;

/** A plot block: title, the SVG (re-drawn on resize), SVG/PNG export buttons. */
export function plotBlock({ title, draw, filename }) {
  const holder = h('div', { class: 'plot-holder' });
  const render = () => fill(holder, draw(widthOf(holder)));
  const svgBtn = h('button', { type: 'button', class: 'button button-small button-secondary', 'aria-label': `Download ${title} as SVG` }, 'SVG');
  const pngBtn = h('button', { type: 'button', class: 'button button-small button-secondary', 'aria-label': `Download ${title} as PNG` }, 'PNG');
  svgBtn.addEventListener('click', () => download(`${filename}.svg`, svgText(holder.querySelector('svg')), 'image/svg+xml'));
  pngBtn.addEventListener('click', async () => download(`${filename}.png`, await pngBlob(holder.querySelector('svg'))));
  const el = h('figure', { class: 'plot-block' }, h('figcaption', {}, h('span', {}, title), h('span', { class: 'plot-actions' }, svgBtn, pngBtn)), holder);
  if (typeof ResizeObserver === 'function') {
    let w = 0;
    new ResizeObserver(() => {
      if (holder.clientWidth && Math.abs(holder.clientWidth - w) > 8) {
        w = holder.clientWidth;
        render();
      }
    }).observe(holder);
  }
  queueMicrotask(render);
  return { el, render };
}

/** JSON report + CSV buttons. */
export function exportBar({ name, report, table }) {
  const jsonBtn = h('button', { type: 'button', class: 'button button-small button-secondary', 'data-action': 'export-json' }, 'Download JSON report');
  jsonBtn.addEventListener('click', () => download(`${name}.json`, json(report()), 'application/json'));
  const csvBtn = table && h('button', { type: 'button', class: 'button button-small button-secondary', 'data-action': 'export-csv' }, 'Download CSV');
  csvBtn?.addEventListener('click', () => download(`${name}.csv`, csv(table()), 'text/csv'));
  return h('div', { class: 'export-bar' }, jsonBtn, csvBtn);
}

/** Warnings of a result, prominently. */
export function warningsBox(list, heading = 'Warnings') {
  if (!list || !list.length) return null;
  return h('div', { class: 'warnings', role: 'note' }, h('strong', {}, heading), h('ul', {}, list.map((w) => h('li', {}, w))));
}

/** The shell-quoted CLI equivalent of a request: `lethe <cmd> --flag value …`. */
export function cliLine(cmd, args) {
  const q = (s) => (/^[\w@#.,:/=+-]+$/.test(s) ? s : `'${String(s).replace(/'/g, `'\\''`)}'`);
  const parts = ['lethe', cmd];
  for (const [k, v] of args) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('_')) parts.push(q(String(v)));
    else if (v === true) parts.push(`--${k}`);
    else parts.push(`--${k}`, q(String(v)));
  }
  parts.push('--json');
  return parts.join(' ');
}

/** The report envelope, as the CLI's (`lethe_version`, `command`, `parameters`, `seed`, `inputs`, `result`). */
export function envelope(ctx, { command, parameters, seed = null, output, cli }) {
  return {
    lethe_version: ctx.version,
    command,
    parameters,
    seed,
    inputs: output.inputs,
    result: output.result,
    computed_by: { widget: 'lethe-web', backend: output.result?.backend ?? null, user_agent: typeof navigator !== 'undefined' ? navigator.userAgent : null, at: new Date().toISOString() },
    cli_equivalent: cli,
  };
}

/** Which backend computed a result (the core's BackendInfo), next to the results. */
export function backendLine(info, note) {
  if (!info) return null;
  const what = info.name === 'cpu' ? `CPU (wasm), ${info.precision} kernels` : `${info.name === 'webgpu' ? 'WebGPU' : info.name}, ${info.precision} kernels — ${info.device}`;
  return h('p', { class: 'backend-line muted', 'data-value': 'backend' }, `Computed on: ${what}`, note ? h('span', { class: 'backend-note' }, ` · ${note}`) : null);
}
