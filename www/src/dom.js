// Small DOM helpers. Nothing here runs at import time, so the modules can be imported where there is no DOM
// (server-side rendering of a docs site): `document` is only touched when a helper is called.
import { cls } from './classes.js';

/**
 * h('div', {class: 'panel', onclick: f, 'aria-label': 'x'}, child, 'text', [more]) → Element.
 * `class` takes unprefixed names (space-separated) and prefixes them; `className` is used verbatim.
 */
export function h(tag, attrs, ...children) {
  const svg = tag.startsWith('svg:');
  const el = svg
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.setAttribute('class', cls(...String(v).split(/\s+/)));
    else if (k === 'className') el.setAttribute('class', v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
    else if (k === 'value' && !svg) el.value = v;
    else if (k === 'checked' && !svg) el.checked = !!v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  clear(el);
  return append(el, children);
}

let uid = 0;
/** A page-unique id for label/aria wiring (several widgets can share a page). */
export const nextId = (p) => `lethe-${p}-${++uid}`;
