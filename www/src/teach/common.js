// Building blocks of the teaching topics: labelled controls (every one keyboard-operable), the topic layout
// (explanation beside the figure), live requests to the worker (one in flight per figure, the newest waiting one
// replaces older ones), reduced-motion detection and the "try it on your data" hand-off. No statistics here: every
// number shown comes from the worker (analysis/src/teach/ → the lethe core).
import { h, fill, nextId } from '../dom.js';
import { BUNDLED, assetUrl, basePath } from '../base.js';
import { fmt } from '../format.js';
import { fitTexts } from '../views/svg.js';

/** True when the user asked the system for reduced motion: no animation, the final state at once. */
export const reducedMotion = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

export const debounce = (f, ms) => {
  let t;
  return (...a) => {
    clearTimeout(t);
    t = setTimeout(() => f(...a), ms);
  };
};

const superseded = () => (typeof DOMException === 'function' ? new DOMException('superseded by a newer request', 'AbortError') : Object.assign(new Error('superseded'), { name: 'AbortError' }));

/**
 * A live request channel for one figure: `call(request)` sends `{type: 'teach', topic, request}` to the worker.
 * At most one request is in flight; a newer call replaces the one waiting (whose promise rejects with an
 * AbortError, never sent). Answers come back in order, so each shown answer is the freshest there is.
 */
export function channel(engine, topic) {
  let inflight = false;
  let waiting = null;
  const pump = () => {
    if (inflight || !waiting) return;
    const { request, resolve, reject } = waiting;
    waiting = null;
    inflight = true;
    engine
      .request('teach', { topic, request })
      .then(resolve, reject)
      .finally(() => {
        inflight = false;
        pump();
      });
  };
  const call = (request) =>
    new Promise((resolve, reject) => {
      if (waiting) waiting.reject(superseded());
      waiting = { request, resolve, reject };
      pump();
    });
  call.busy = () => inflight || !!waiting;
  return call;
}

export const isAbort = (e) => e && e.name === 'AbortError';

/** A labelled range slider with its value shown; `format(v)` renders the value. */
export function slider({ key, label, min, max, step, value, format = String, onInput, hint }) {
  const id = nextId('t');
  const input = h('input', { id, type: 'range', min, max, step, value, 'data-param': key, 'aria-describedby': hint ? `${id}-hint` : null });
  const out = h('output', { for: id, class: 'teach-output', 'data-output': key });
  const show = () => {
    fill(out, format(Number(input.value)));
    input.setAttribute('aria-valuetext', format(Number(input.value)));
  };
  input.addEventListener('input', () => {
    show();
    onInput?.(Number(input.value));
  });
  show();
  const el = h('div', { class: 'teach-control teach-slider' }, h('label', { for: id }, label), h('div', { class: 'teach-slider-row' }, input, out), hint && h('div', { class: 'hint muted', id: `${id}-hint` }, hint));
  return {
    key,
    el,
    input,
    get: () => Number(input.value),
    set(v) {
      input.value = v;
      show();
    },
  };
}

/** A labelled select of [value, text] options. */
export function select({ key, label, options, value, onChange }) {
  const id = nextId('t');
  const input = h('select', { id, 'data-param': key }, options.map(([v, t]) => h('option', { value: v }, t)));
  input.value = value;
  input.addEventListener('change', () => onChange?.(input.value));
  const el = h('div', { class: 'teach-control' }, h('label', { for: id }, label), input);
  return { key, el, input, get: () => input.value, set: (v) => (input.value = v) };
}

/** A labelled number field. */
export function number({ key, label, value, min, max, step = 1, onChange }) {
  const id = nextId('t');
  const input = h('input', { id, type: 'number', value, min, max, step, 'data-param': key, inputmode: 'decimal' });
  input.addEventListener('change', () => onChange?.(Number(input.value)));
  const el = h('div', { class: 'teach-control' }, h('label', { for: id }, label), input);
  return { key, el, input, get: () => Number(input.value), set: (v) => (input.value = v) };
}

/** A labelled checkbox. */
export function checkbox({ key, label, value, onChange }) {
  const id = nextId('t');
  const input = h('input', { id, type: 'checkbox', checked: !!value, 'data-param': key });
  input.addEventListener('change', () => onChange?.(input.checked));
  const el = h('div', { class: 'teach-control teach-checkbox' }, input, h('label', { for: id }, label));
  return { key, el, input, get: () => input.checked, set: (v) => (input.checked = !!v) };
}

export function button({ action, label, onClick, secondary = true, title }) {
  return h('button', { type: 'button', class: `button button-small${secondary ? ' button-secondary' : ''}`, 'data-action': action, title, onclick: onClick }, label);
}

/**
 * The frame of a topic: heading, the plain-language explanation on one side and the live figure (controls, plots,
 * numbers, hand-off) on the other; stacked on narrow screens.
 */
export function topicFrame({ id, title, number }) {
  const headId = nextId('h');
  const parts = {
    explain: h('div', { class: 'teach-explain' }),
    controls: h('div', { class: 'teach-controls', role: 'group', 'aria-label': `${title}: controls` }),
    status: h('div', { class: 'teach-status muted', role: 'status', 'aria-live': 'polite' }),
    figure: h('div', { class: 'teach-figure' }),
    numbers: h('div', { class: 'teach-numbers' }),
    handoff: h('div', { class: 'teach-handoff' }),
    extra: h('div', { class: 'teach-extra' }),
  };
  parts.el = h(
    'section',
    { class: 'teach-topic', id: `lethe-teach-${id}`, 'data-topic': id, 'aria-labelledby': headId },
    h('h2', { id: headId }, number ? h('span', { class: 'teach-number', 'aria-hidden': 'true' }, `${number}. `) : null, title),
    h('div', { class: 'teach-body' }, parts.explain, h('div', { class: 'teach-live' }, parts.controls, parts.status, parts.figure, parts.numbers, parts.handoff, parts.extra)),
  );
  let version = 0;
  /** Marks the figure as redrawn (tests and screen-reader users see it change). */
  parts.updated = () => {
    parts.el.dataset.version = String(++version);
  };
  parts.busy = (on, text = 'computing…') => {
    parts.el.toggleAttribute('aria-busy', on);
    if (on) fill(parts.status, text);
  };
  parts.error = (e) => {
    parts.el.removeAttribute('aria-busy');
    fill(parts.status, h('span', { class: 'error', role: 'alert' }, e.message || String(e)));
  };
  parts.ok = (text = '') => {
    parts.el.removeAttribute('aria-busy');
    fill(parts.status, text);
  };
  return parts;
}

/** Paragraphs of explanation: strings become <p>, elements pass through. */
export function prose(...blocks) {
  return blocks.map((b) => (typeof b === 'string' ? h('p', {}, b) : b));
}

/** A table of [term, value, note, key] rows; values get `data-value` (as the analysis panels' numbers). */
export function readout(rows, caption) {
  return h(
    'table',
    { class: 'numbers teach-readout' },
    caption && h('caption', {}, caption),
    h('tbody', {}, rows.filter(Boolean).map(([term, value, note, key]) => h('tr', {}, h('th', { scope: 'row' }, term), h('td', { class: 'value', 'data-value': key || null }, value), h('td', { class: 'note muted' }, note || '')))),
  );
}

export const f6 = fmt;

/** A figure block: caption, content, and an optional note under it. */
export function figureBlock(caption, content, note, { wide = false } = {}) {
  return h('figure', { class: `teach-plot${wide ? ' teach-wide' : ''}` }, h('figcaption', {}, caption), content, note ? h('p', { class: 'teach-plot-note muted' }, note) : null);
}

/** Re-draws `draw(width)` into a holder at the holder's width (and on resize). */
export function responsive(draw) {
  const holder = h('div', { class: 'plot-holder' });
  let last = 0;
  const render = () => {
    const w = Math.max(260, Math.min(900, Math.floor(holder.clientWidth || 600)));
    last = w;
    fill(holder, draw(w));
    for (const svg of holder.querySelectorAll('svg')) fitTexts(svg);
  };
  if (typeof ResizeObserver === 'function') {
    new ResizeObserver(() => {
      if (holder.clientWidth && Math.abs(holder.clientWidth - last) > 8) render();
    }).observe(holder);
  }
  queueMicrotask(render);
  return { el: holder, render };
}

/** The site root (where index.html and teach.html live), from this module's URL. */
// The site's base URL (base.js), not import.meta.url, which a bundler rewrites. The npm package has no site (no
// index.html, no docs/): its root is BUNDLED, and links into it are left out (handoff, `onSite`).
export const siteRoot = () => (String(basePath(null)) === BUNDLED ? new URL(BUNDLED) : assetUrl(''));

/** Whether `href` leads to a page of Lethe's site (false for the npm package, which has none). */
export const onSite = (href) => !String(href).startsWith(BUNDLED);

/**
 * "Try it on your data": a link to the main widget's panel (with this topic's data where it can take it) and the
 * CLI command that computes the same numbers from files.
 */
export function handoff({ text, links: all = [], cli = [] }) {
  const links = all.filter((l) => onSite(l.href));
  return h(
    'div',
    { class: 'teach-handoff-box' },
    h('strong', {}, 'Try it on your data'),
    h('p', {}, text),
    links.length ? h('p', { class: 'teach-links' }, links.map(({ href, label, action }) => h('a', { href, class: 'button button-small', 'data-action': action || null }, label))) : null,
    cli.length ? h('div', { class: 'teach-cli' }, h('span', { class: 'muted' }, 'Command line (same numbers, files as below):'), cli.map((c) => h('code', {}, c))) : null,
  );
}

/** Formats a p-value or probability for prose (the readouts use fmt, the CLI's format). */
export const pct = (v) => `${(100 * v).toFixed(v < 0.1 ? 1 : 0)}%`;
