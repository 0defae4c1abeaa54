// Building blocks of the analysis panels: input slots (choose/drop a file, tensor, rows), parameter fields, the
// run/cancel/progress strip, results with exports. Panels describe their inputs and parameters; this module wires
// them to the worker. Every control has a visible label (or an aria-label) and is reachable by keyboard.
import { h, fill, nextId } from '../dom.js';
import { cls } from '../classes.js';
import { fmt, seconds } from '../format.js';
import { arraysOf, noteOnly, wireDrop, setNoteWords } from '../inputs.js';
import { download, json, csv, svgText, pngBlob, withHeading } from '../export.js';
import { fitTexts, widthOf } from '../views/svg.js';

/** What the page calls each input role (the layer's messages name roles as the request does). */
export const ROLE_LABELS = {
  in_training: 'In-training reference', it: 'In-training reference', out_of_training: 'Out-of-training reference', oot: 'Out-of-training reference',
  target: 'Target set', target_in: 'Target set', target_out: 'Target set', 'draw-from': 'Pool of unlabelled targets', draw_from: 'Pool of unlabelled targets',
  'draw-in': 'Pool labelled in training', draw_in: 'Pool labelled in training', 'draw-out': 'Pool labelled out of training', draw_out: 'Pool labelled out of training',
  it_pool: 'In-training pool', oot_pool: 'Out-of-training pool', data: 'activations',
  unlearned: 'Unlearned model', oracle: 'Retrained oracle', original: 'Original model', forget: 'Forget rows', retain: 'Retain rows',
  retrained: 'Retrained models', retrained_logits: 'Retrained models’ logits', unlearned_logits: 'Unlearned models’ logits', labels: 'Labels',
  retrained_probs: 'Retrained models’ class probabilities', unlearned_probs: 'Unlearned models’ class probabilities',
  scores: 'Scores', predictions: 'Generations', reference: 'Reference',
};

/**
 * The options the layer's messages name (analysis `words`: `{opt:NAME}`, `{opt:NAME=VALUE}`, by the request's field
 * name), as the page names them: the visible label of the field that sets it (`NAME=VALUE` when setting it to that
 * value is a control of its own). An input role falls back to its slot's label.
 */
export const OPTION_LABELS = {
  equal_size: 'Equal-size subsets', refs: 'Reference subsets R', margin: 'Margin (sds)', shuffles: 'Shuffles T', size: 'Rows per target',
  variant: 'LiRA score', 'variant=online-fixed-variance': 'LiRA score: online, fixed variance',
  'variant=offline-fixed-variance': 'LiRA score: offline, fixed variance',
  eps_max: 'ε_max', fdr: 'FDR level (across runs)', sd_method: 'SD bound', 'sd_method=lp': 'SD bound: exact LP', atom_at_zero: 'mass at 0 in the first cell',
  'confidences=logit-scaled': 'These values are logit-scaled confidences already', accuracies: 'Accuracies for the final score',
  baseline: 'Baseline method', alpha: 'α',
  // The competition's inputs, named as options (“give the logits”): the panel's choice that shows their fields (the
  // other modes hide them).
  retrained: 'Inputs are: logit-scaled confidences', unlearned: 'Inputs are: logit-scaled confidences',
  retrained_logits: 'Inputs are: logits + labels', unlearned_logits: 'Inputs are: logits + labels',
  retrained_probs: 'Inputs are: class probabilities + labels', unlearned_probs: 'Inputs are: class probabilities + labels',
};
/** The analyses the layer's messages name (`{cmd:NAME}`), as the page offers them. */
const COMMAND_WORDS = { calibrate: 'the calibrated verdict', sde: 'the SDE panel' };

/** The choices within a file the layer's messages name (words.rs `pick`: `{pick:WHAT}`, `{pick:WHAT=VALUE}`) as the
 * page's controls. */
const PICK_PAGE = {
  'one-column': () =>
    'choose the one column that holds them (a CSV/TSV table: “columns: only these…” under the input; an .npz or .safetensors archive: its array beside the file), or one row of it (“rows”), or save them as a 1-d array',
  'all-columns': () => 'choose “columns: all” under the input',
  // An example of rows (`SCORES@forget.txt`) as the rows control that gives them.
  rows: (spec) => `the rows in ${spec.slice(spec.lastIndexOf('@') + 1)} (“rows” under the input)`,
  // The inputs that ask for it (RULER's models) have no row choice on the page.
  'same-rows': () => '',
};

/**
 * The layer's marks (analysis `words.rs`: `{opt:NAME}`, `{opt:NAME=VALUE}`, `{cmd:NAME}`, `{role:NAME}` or
 * `{role:NAME[k]}`, `{pick:WHAT}` or `{pick:WHAT=VALUE}`, in backticks or not) in a front end's words:
 * `opt(name, value, tick)`, `cmd(name)`, `role(name, k, tick)` and `pick(what, value)` say each (a role is named as
 * the request names it where the front end gives no words of its own; a choice `pick` has no words for is kept);
 * the rest of `text` is kept.
 */
const renderMarks = (text, { opt, cmd, role, pick }) =>
  String(text ?? '')
    .replace(/\{pick:([a-z-]+)(?:=([^{}]+))?\}/g, (m, what, value) => {
      const said = pick(what, value);
      return typeof said === 'string' ? said : m;
    })
    .replace(/(`?)\{(opt|cmd|role):([a-z0-9_-]+)(\[\d+\])?(?:=([^{}]+))?\}\1/g, (m, tick, kind, name, k, value) => {
      if (kind === 'role') return value === undefined ? (role ? role(name, k || '', tick) : `${tick}${name}${k || ''}${tick}`) : m;
      if (k !== undefined) return m;
      if (kind === 'cmd') return value === undefined ? cmd(name) : m;
      return opt(name, value, tick);
    });

/** The page's words for the marks: an option as its field's label, in quotes; an analysis as its panel; an input as
 * its slot's label. */
const pageMarks = (labels) => ({
  opt: (name, value) => {
    const own = value !== undefined && OPTION_LABELS[`${name}=${value}`];
    if (own) return `“${own}”`;
    const label = OPTION_LABELS[name] || labels[name] || ROLE_LABELS[name] || name.replace(/_/g, ' ');
    return value === undefined || value === 'true' ? `“${label}”` : `“${label}”: ${value}`;
  },
  cmd: (name) => COMMAND_WORDS[name] || `the ${name} panel`,
  role: (name, k) => `“${labels[name] || ROLE_LABELS[name] || name.replace(/_/g, ' ')}${k}”`,
  pick: (what, value) => PICK_PAGE[what]?.(value),
});

/** A message in the page's words: the marked options, commands and inputs as the page's labels and panels (two
 * options the page sets with one control said once). What is not marked is kept: a compare method or an array called
 * `retain` is not the “Retain rows” input. */
export const say = (text, labels = {}) => renderMarks(text, pageMarks(labels)).replace(/(“[^“”]+”)(?:, \1)+/g, '$1');

// The files' cards say their readers' notes in the same words.
setNoteWords((t) => say(t));

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
    fill(src, h('option', { value: '' }, '— choose an input —'), store.sources().map((i) => h('option', { value: i.id }, store.label(i))));
    src.value = cur;
    // The index file or split column chosen here was removed: results made with its rows are out of date.
    if (cur && src.value !== cur && !src.hidden) changedEvent(src, `the file chosen for the rows of “${label}” was removed`);
  };
  const sync = () => {
    text.hidden = mode.value !== 'text';
    src.hidden = !(mode.value === 'file' || mode.value === 'split');
    value.hidden = mode.value !== 'split';
  };
  // Rows the built-in example set (its ranges mean nothing in a user's file): cleared when a person edits them.
  let example = false;
  store.on(fillSources);
  fillSources();
  for (const el of [mode, text, src, value]) el.addEventListener('change', () => ((example = false), sync(), onchange?.()));
  text.addEventListener('input', () => ((example = false), onchange?.()));
  sync();
  const el = h('span', { class: 'rows' }, h('label', { for: modeId, class: 'sub-label' }, 'rows'), mode, text, src, value);
  return {
    el,
    get() {
      switch (mode.value) {
        case 'text':
          // No rows given yet (e.g. the example's cleared for a person's file): nothing chosen.
          return text.value.trim() ? { kind: 'text', text: text.value } : null;
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
      example = false;
      sync();
    },
    /** Marks the rows as the built-in example's (they are reset when a person's own file takes its place). */
    markExample() {
      example = mode.value === 'text' && !!text.value.trim();
    },
    /** The example's rows (their text), or null when a person chose these rows. */
    exampleRows: () => (example ? text.value : null),
    withAll,
    /** Forgets the example's rows: all rows where that is allowed, else empty (for the person to choose). */
    reset() {
      this.set(withAll ? { kind: 'all' } : { kind: 'text', text: '' });
    },
  };
}

/** Tells the panel (stale results, checks) that an input or a setting changed; `why` says what, for the note. */
export function changedEvent(el, why) {
  el.dispatchEvent(new CustomEvent('lethe-change', { bubbles: true, detail: { why } }));
}

/**
 * A person's own file took the example's place in a slot: row controls still holding the example's ranges are
 * reset (a range such as 144..544 of the digits example would select arbitrary rows of another file), and the
 * slot says so. Returns the notes, one per control reset.
 */
export function resetExampleRows(controls) {
  const notes = [];
  for (const [label, ctl, cleared] of controls) {
    const rows = ctl?.exampleRows();
    if (rows == null) continue;
    ctl.reset();
    notes.push(`${label}: the built-in example’s rows ${rows} do not carry over to your file, so ${ctl.withAll ? 'all its rows are used now — choose rows if you mean fewer' : cleared || 'they were cleared — give the rows of your file'}.`);
  }
  return notes;
}

/** Clears a rows-reset note once the person chooses rows themselves (the page's own resets fire no events). */
export function clearNoticeOnEdit(ctl, notice) {
  for (const ev of ['change', 'input']) ctl.el.addEventListener(ev, () => fill(notice));
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
  // Columns of a CSV/TSV table: by default a header's label/ID columns are left out of the features (the reader
  // says which); here a person keeps every column, or names the columns to use or to leave out.
  const colMode = h(
    'select',
    { 'aria-label': `${label}: which columns`, 'data-role': `${key}-columns-mode`, hidden: true },
    h('option', { value: 'auto' }, 'columns: features (label/ID columns left out)'),
    h('option', { value: 'all' }, 'columns: all'),
    h('option', { value: 'use' }, 'columns: only these…'),
    h('option', { value: 'drop' }, 'columns: all but these…'),
  );
  const colText = h('input', { type: 'text', size: 14, placeholder: 'names or numbers: f0,f1', 'aria-label': `${label}: columns (header names or numbers from 1, comma-separated)`, 'data-role': `${key}-columns`, hidden: true });
  const status = h('div', { class: 'slot-status muted', id: statusId, 'aria-live': 'polite' });
  const error = h('div', { class: 'error', id: errId, role: 'alert', 'data-error-for': key });
  const warn = h('div', { class: 'slot-warnings' });
  // What the checks before a run (and a run's warnings) say about this input; and rows reset for a person's file.
  const checks = h('div', { class: 'slot-checks', 'data-check-for': key, 'aria-live': 'polite' });
  const notice = h('div', { class: 'slot-notice', 'data-notice-for': key, 'aria-live': 'polite' });
  let seq = 0;
  // A run's message outlives the (debounced) check of a change made before that run.
  let changes = 0;
  let runErrorAt = -1;
  const validate = debounce(async () => {
    const ref = api.get();
    const mine = ++seq;
    if (runErrorAt !== changes) fill(error);
    fill(warn);
    if (!ref) {
      fill(status, optional ? 'not used' : '');
      return;
    }
    fill(status, 'checking…');
    try {
      const s = await engine.request('load', { role: key, input: ref });
      if (mine !== seq) return;
      // A stored shape of more than two dimensions is said as stored, then as read (16 × 150 × 3 as 16 × 450).
      const dims = s.record.shape || [];
      fill(status, `${dims.length > 2 ? `${dims.join(' × ')} read as ` : ''}${s.rows} × ${s.cols} · ${s.record.dtype} · ${s.record.spec}${s.in_place ? ' · read in place from the file' : ''}`);
      fill(warn, s.warnings.map((w) => h('div', { class: noteOnly(w) ? 'muted' : 'warning' }, say(w))));
    } catch (e) {
      if (mine !== seq) return;
      fill(status);
      fill(error, say(e.message));
    }
  }, 120);
  const changed = (why) => {
    changes++;
    syncTensor();
    validate();
    onchange?.();
    const item = store.get(Number(select.value)) || null;
    el.dispatchEvent(new CustomEvent('lethe-change', { bubbles: true, detail: { why: typeof why === 'string' ? why : `“${label}” changed`, item, key } }));
  };
  /** Another input chosen here: the example's rows do not carry over to a person's own file. */
  const sourceChanged = () => {
    const item = store.get(Number(select.value));
    if (item && item.origin !== 'example' && rowsCtl) {
      const notes = resetExampleRows([['Rows', rowsCtl]]);
      fill(notice, notes.map((n) => h('div', { class: 'warning', 'data-value': `${key}.rows-reset` }, n)));
    } else if (!item) fill(notice);
    changed();
  };
  const rowsCtl = rows ? rowsControl(store, { key, label, onchange: changed }) : null;
  if (rowsCtl) clearNoticeOnEdit(rowsCtl, notice);
  const fillOptions = () => {
    const cur = select.value;
    fill(select, h('option', { value: '' }, optional ? '— none —' : '— choose an input —'), store.tables().map((i) => h('option', { value: i.id }, store.label(i))));
    if ([...select.options].some((o) => o.value === cur)) select.value = cur;
    syncTensor();
    // The input chosen here was removed: the slot is empty now, and results made with it are out of date.
    if (cur && select.value !== cur) changed(`the input chosen for “${label}” was removed`);
  };
  const syncTensor = () => {
    const item = store.get(Number(select.value));
    const table = item?.info?.format === 'csv';
    colMode.hidden = !table;
    colText.hidden = !table || colMode.value === 'auto' || colMode.value === 'all';
    const arrays = arraysOf(item).filter((a) => a.name);
    tensor.hidden = arrays.length < 2;
    const cur = tensor.value;
    fill(tensor, arrays.map((a) => h('option', { value: a.name }, `${a.name} [${a.shape.join('×')}]`)));
    if (arrays.some((a) => a.name === cur)) tensor.value = cur;
  };
  store.on(fillOptions);
  select.addEventListener('change', sourceChanged);
  tensor.addEventListener('change', changed);
  colMode.addEventListener('change', changed);
  colText.addEventListener('input', changed);
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
      sourceChanged();
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
    h('div', { class: 'row columns' }, colMode, colText),
    rowsCtl && rowsCtl.el,
    notice,
    status,
    error,
    warn,
    checks,
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
      // The column choice travels as the table's array name (the command line's FILE#columns=…, FILE#drop=…).
      const cols = colText.value.replace(/\s+/g, '');
      if (!colMode.hidden && colMode.value === 'all') ref.tensor = 'columns=all';
      else if (!colMode.hidden && colMode.value !== 'auto' && cols) ref.tensor = `${colMode.value === 'use' ? 'columns' : 'drop'}=${cols}`;
      const r = rowsCtl ? rowsCtl.get() : { kind: 'all' };
      if (r === null) return null;
      ref.rows = r;
      return ref;
    },
    set(ref) {
      fillOptions();
      select.value = ref ? String(ref.source) : '';
      const choice = /^(columns|drop)=(.*)$/.exec(ref?.tensor || '');
      colMode.value = !choice ? 'auto' : choice[2] === 'all' ? 'all' : choice[1] === 'columns' ? 'use' : 'drop';
      colText.value = choice && choice[2] !== 'all' ? choice[2] : '';
      syncTensor();
      if (ref?.tensor && !choice) tensor.value = ref.tensor;
      rowsCtl?.set(ref?.rows);
      fill(notice);
      changed();
    },
    /** The rows control (its example mark), or null for a slot without rows. */
    rows: rowsCtl,
    showError(msg) {
      runErrorAt = changes;
      fill(error, say(msg));
      el.scrollIntoView?.({ block: 'nearest' });
    },
    clearError() {
      runErrorAt = -1;
      fill(error);
    },
    /** Shows what the checks (or a run) found about this input: `[{level: 'error' | 'warning', message, fix, code}]`. */
    showChecks(list, labels) {
      const known = [error.textContent, ...[...warn.children].map((w) => w.textContent)];
      fill(checks, (list || []).filter((c) => !known.includes(say(c.message, labels))).map((c) => checkLine(c, labels)));
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

/** One finding of a check or a run about an input: the problem, then what to do. */
export function checkLine(c, labels) {
  return h(
    'div',
    { class: c.level === 'error' ? 'error check-error' : 'warning check-warning', 'data-code': c.code || null, 'data-check': c.level || 'warning' },
    say(c.message, labels),
    c.fix ? h('div', { class: 'fix' }, say(c.fix, labels)) : null,
  );
}

/** What changed, in the words of the control a person touched. */
const whyOf = (target) => {
  const field = target.closest?.('.lethe-field');
  const slot = target.closest?.('.lethe-slot');
  const label = field?.querySelector('label')?.textContent || slot?.querySelector('.lethe-slot-label')?.firstChild?.textContent;
  return label ? `“${label.trim()}” changed` : 'the inputs or settings changed';
};

/**
 * Panel skeleton. Results belong to the inputs and settings that made them: any change among the panel's controls
 * marks them out of date (greyed, with a note, their downloads disabled) until the next run (`parts.fresh()`).
 */
export function panelFrame({ id, title, intro }) {
  const parts = {
    inputs: h('div', { class: 'panel-inputs' }),
    params: h('fieldset', { class: 'params' }, h('legend', {}, 'Parameters')),
    checks: h('div', { class: 'checks', 'data-value': 'checks', 'aria-live': 'polite' }),
    actions: h('div', { class: 'actions' }),
    progress: h('div', { class: 'progress', 'aria-live': 'polite' }),
    error: h('div', { class: 'error panel-error', role: 'alert' }),
    results: h('div', { class: 'results' }),
  };
  const staleNote = h('div', { class: 'stale-note', role: 'status', 'data-value': 'stale' });
  const disabled = [];
  parts.fresh = () => {
    delete parts.results.dataset.stale;
    parts.results.classList.remove(cls('stale'));
    staleNote.remove();
    disabled.length = 0;
  };
  parts.markStale = (why) => {
    const shown = [...parts.results.children].some((c) => c !== staleNote);
    if (!shown) return;
    parts.results.dataset.stale = 'true';
    parts.results.classList.add(cls('stale'));
    fill(staleNote, h('strong', {}, 'Out of date: '), `${why || 'the inputs or settings changed'}. These results were computed before; run again to update them.`);
    parts.results.prepend(staleNote);
    for (const b of parts.results.querySelectorAll('.lethe-export-bar button, .lethe-plot-actions button')) {
      if (!b.disabled) disabled.push(b);
      b.disabled = true;
      b.title = 'Out of date: run again to download these results';
    }
  };
  const controls = h('div', { class: 'panel-controls' }, parts.inputs, parts.params, parts.checks, parts.actions, parts.progress, parts.error);
  const touched = (e) => {
    if (e.target.closest?.('[data-nostale]')) return;
    parts.markStale(e.type === 'lethe-change' ? e.detail?.why : whyOf(e.target));
    parts.onChange?.(e);
  };
  for (const t of ['input', 'change', 'lethe-change']) controls.addEventListener(t, touched);
  const headId = nextId('h');
  parts.el = h(
    'section',
    { class: 'panel', id, 'aria-labelledby': headId, 'data-panel': id },
    h('h2', { id: headId }, title),
    intro && h('p', { class: 'intro' }, intro),
    h('div', { class: 'panel-body' }, controls, parts.results),
  );
  return parts;
}

/**
 * Checks a panel's inputs when they change, before Run: `build()` gives the requests a run would send (or null while
 * a required input is missing); the worker prepares each as a run would — reading the inputs, resolving rows,
 * comparing shapes — without computing, and what it finds is shown next to the input it concerns (`slots()`, by
 * role), or above the Run button. Returns `{schedule(), clear(), place(list)}`.
 */
export function preflight(ctx, parts, { build, slots, busy }) {
  let seq = 0;
  const bySlot = (role) => {
    const all = slots();
    if (!role) return null;
    const m = /^source:(\d+)$/.exec(role);
    if (m) return all.find((s) => s.get?.()?.source === Number(m[1])) || null;
    return all.find((s) => s.key === role && !s.el?.closest('[hidden]')) || all.find((s) => s.key === role) || null;
  };
  /** Shows findings next to their inputs; those that name none go above the Run button (or to `rest`). */
  const place = (list, rest) => {
    const per = new Map();
    const left = [];
    for (const c of list || []) {
      const s = bySlot(c.input);
      if (s?.showChecks) {
        if (!per.has(s)) per.set(s, []);
        per.get(s).push(c);
      } else left.push(c);
    }
    // This panel's names for its inputs (a role such as `unlearned` is labelled differently in two panels).
    const labels = Object.fromEntries(slots().filter((s) => s.label).map((s) => [s.key, s.label]));
    for (const s of slots()) s.showChecks?.(per.get(s) || [], labels);
    if (rest) return Object.assign(left, { labels });
    fill(parts.checks, left.length ? [h('strong', {}, 'Before you run:'), left.map((c) => checkLine(c, labels))] : []);
    return [];
  };
  let timer = null;
  // A run supersedes a check still waiting (its findings would replace the run's warnings).
  const clear = () => {
    clearTimeout(timer);
    seq++;
    place([]);
  };
  const check = async () => {
    if (busy()) return;
    const jobs = build();
    const mine = ++seq;
    if (!jobs || !jobs.length) return place([]);
    const found = [];
    for (const { analysis, request } of jobs) {
      try {
        const r = await ctx.engine.request('check', { analysis, request });
        for (const w of r?.warnings || []) found.push(typeof w === 'string' ? { message: w, level: 'warning' } : { ...w, level: 'warning' });
      } catch (e) {
        found.push({ input: e.input, level: 'error', message: e.message, code: e.code || null });
      }
      if (mine !== seq) return;
    }
    if (mine === seq && !busy()) place(found);
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(check, 300);
  };
  return { schedule, clear, place };
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
  // The bar never goes back in a run; `step: true`: the ETA is the step's.
  let shown = 0;
  const onProgress = (p) => {
    shown = Math.max(shown, Number.isFinite(p.fraction) ? p.fraction : 0);
    bar.value = shown;
    const eta = seconds(p.eta_s);
    fill(text, `${Math.round(shown * 100)}% · ${p.phase}${eta ? ` · about ${eta} left${p.step ? ' in this step' : ''}` : ''}`);
    ctx.emit('progress', { panel: parts.el.id, fraction: shown, phase: p.phase, eta_s: p.eta_s });
  };
  const run = async (outer) => {
    if (controller) controller.abort();
    controller = new AbortController();
    const mine = controller;
    if (outer) outer.addEventListener('abort', () => mine.abort(), { once: true });
    runBtn.disabled = true;
    cancelBtn.disabled = false;
    parts.progress.hidden = false;
    shown = 0;
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
      parts.fresh?.();
      return out;
    } catch (e) {
      if (e.name === 'AbortError') {
        fill(text, 'cancelled');
        return null;
      }
      fill(text, 'failed');
      parts.markStale?.('the last run failed (see the message on the left)');
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

/** Refuses a run that mixes the built-in example's files with a person's own (panels/guard.js). */
export const refuseExampleMix = async (ctx, ...args) => {
  if (ctx.store.list().some((i) => i.origin !== 'example')) await (await import('./guard.js')).refuseExampleMix(ctx, ...args);
};

/** Shows an error next to the slot it names, else at panel level. */
export function showError(parts, slots, e) {
  const slot = e.input && slots.find((s) => s && s.key === e.input);
  if (slot) slot.showError(e.message);
  else fill(parts.error, say(e.message));
}

/**
 * A table's own scroll box: a table wider than its column scrolls inside this box instead of being cut off or widening
 * the page. Focusable (tabindex 0) so keyboard users can scroll it, a region named by `label` or the table's caption.
 */
export function tableBox({ label, ...attrs }, table) {
  const named = label || table.querySelector('caption')?.textContent || 'table';
  return h('div', { ...attrs, class: attrs.class || 'table-scroll', tabindex: 0, role: 'region', 'aria-label': named }, table);
}

/**
 * Where rows given on their own came from (ruler's forget and retain rows), from the report's inputs: the layer
 * records an index or split file as an input of that role (format `rows`), its spec `FILE==VALUE` for a split column
 * and `FILE` for an index file. Says "forget: 144 rows where column `split.txt` = forget"; null where no row came from
 * a file (rows typed as ranges).
 */
export function rowSources(inputs, roles, key, labels = {}) {
  const items = [];
  for (const role of roles) {
    for (const r of (inputs || []).filter((x) => x.role === role)) {
      // Rows given on their own (the record is the row file), or an input's `PATH@FILE==VALUE` (its row_file).
      const own = r.format === 'rows';
      const file = own ? r.path : r.row_file?.path;
      if (!file) continue;
      const spec = own ? r.spec : r.spec.slice(r.spec.lastIndexOf(`@${file}`) + 1);
      const split = spec.startsWith(`${file}==`) ? spec.slice(file.length + 2) : null;
      const n = `${r.rows_used} row${r.rows_used === 1 ? '' : 's'}`;
      const name = labels[role] || role;
      items.push(
        h('span', { 'data-role': role, 'data-column': split == null ? null : file, 'data-split-value': split },
          split == null
            ? [`${name}: ${n} listed in `, h('code', {}, file)]
            : [`${name}: ${n} where column `, h('code', {}, file), ' = ', h('code', {}, split)]),
      );
    }
  }
  if (!items.length) return null;
  return h('p', { class: 'muted rows-source', 'data-value': key }, items.flatMap((x, i) => (i ? ['; ', x] : [x])));
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

/**
 * A plot block: title, the SVG (re-drawn on resize), SVG/PNG export buttons. `heading` (lines: a string or {text,
 * attrs}) goes above the chart in the exported SVG and PNG, so that the file says what it shows without the page.
 */
export function plotBlock({ title, draw, filename, heading }) {
  const holder = h('div', { class: 'plot-holder' });
  const render = () => {
    fill(holder, draw(widthOf(holder)));
    fitTexts(holder.querySelector('svg'));
  };
  const svgBtn = h('button', { type: 'button', class: 'button button-small button-secondary', 'aria-label': `Download ${title} as SVG` }, 'SVG');
  const pngBtn = h('button', { type: 'button', class: 'button button-small button-secondary', 'aria-label': `Download ${title} as PNG` }, 'PNG');
  const exported = () => withHeading(holder.querySelector('svg'), heading);
  svgBtn.addEventListener('click', () => download(`${filename}.svg`, svgText(exported()), 'image/svg+xml'));
  pngBtn.addEventListener('click', async () => download(`${filename}.png`, await pngBlob(exported())));
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

/**
 * A report as it is downloaded: every string's marks said as `lethe … --json` says them, by the module's own words
 * (words.rs `cli`, asked of `engine`), so the file is the CLI's report. Without an engine (the notebook widgets,
 * whose reports are in Python's words already), or where the module cannot say them (its worker stopped), it is kept
 * as it is. Resolves to the report as JSON reads it.
 */
export async function exportedReport(v, engine) {
  const text = JSON.stringify(v);
  const said = engine && (await engine.request('words', { voice: 'cli', text }).catch(() => null));
  return JSON.parse(said ?? text);
}

/** JSON report + CSV buttons (`engine`: the one whose module says the report's words, see exportedReport). */
export function exportBar({ engine, name, report, table }) {
  const jsonBtn = h('button', { type: 'button', class: 'button button-small button-secondary', 'data-action': 'export-json' }, 'Download JSON report');
  jsonBtn.addEventListener('click', async () => download(`${name}.json`, json(await exportedReport(report(), engine)), 'application/json'));
  const csvBtn = table && h('button', { type: 'button', class: 'button button-small button-secondary', 'data-action': 'export-csv' }, 'Download CSV');
  csvBtn?.addEventListener('click', () => download(`${name}.csv`, csv(table()), 'text/csv'));
  return h('div', { class: 'export-bar' }, jsonBtn, csvBtn);
}

const CALL_CLASS = { inconclusive: 'headline-inconclusive', in_training: 'headline-in', out_of_training: 'headline-out' };

/** The one call of an analysis (the layer's headline: call, text, and the reason), first among its results. */
export function headlineBox(hd) {
  if (!hd || !hd.text) return null;
  return h(
    'div',
    { class: `headline ${CALL_CLASS[hd.call] || 'headline-call'}`, role: 'status', 'data-value': 'headline', 'data-call': hd.call },
    h('p', { class: 'headline-text', 'data-value': 'headline.text' }, say(hd.text)),
    hd.reason ? h('p', { class: 'headline-reason', 'data-value': 'headline.reason' }, say(hd.reason)) : null,
  );
}

/** A result's warnings that concern no input on the page: under the headline. */
export function layerWarnings(list, heading = 'Read this first') {
  if (!list || !list.length) return null;
  return h('div', { class: 'warnings', role: 'note', 'data-value': 'warnings' }, h('strong', {}, heading), list.map((w) => checkLine({ ...w, level: 'warning' }, list.labels)));
}

/** What the readers noticed in the inputs (non-finite values, a detected header), each under its input's name. */
export const loadWarnings = (list) => warningsBox((list || []).map((w) => `${ROLE_LABELS[w.role] || w.role}: ${w.message}`), 'Input warnings');

/** Warnings of a result, prominently. */
export function warningsBox(list, heading = 'Warnings') {
  if (!list || !list.length) return null;
  return h('div', { class: 'warnings', role: 'note' }, h('strong', {}, heading), h('ul', {}, list.map((w) => h('li', {}, typeof w === 'string' ? say(w) : checkLine(w)))));
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

/**
 * The report envelope, as the CLI's (`lethe_version`, `command`, `parameters`, `seed`, `inputs`, `headline`,
 * `warnings`, `result`), with what computed it and the command that reproduces it.
 */
export function envelope(ctx, { command, parameters, seed = null, output, cli }) {
  return {
    lethe_version: ctx.version,
    command,
    // The layer's record of the parameters where it gives one (the CLI's report is built from the same value).
    parameters: output.parameters ?? parameters,
    seed,
    inputs: output.inputs,
    headline: output.headline ?? null,
    warnings: output.warnings ?? [],
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
