// Shared pieces of the hand-written SVG plots: linear scales, "nice" ticks, axes with labels, legends. Plots are
// drawn at the container's pixel width (re-drawn on resize by the caller) so text stays readable at 375 px.
import { h } from '../dom.js';
import { tick } from '../format.js';

// Okabe–Ito: distinguishable with every common colour-vision deficiency.
export const PALETTE = {
  it: '#0072B2',
  oot: '#D55E00',
  target: '#009E73',
  accent: '#E69F00',
  sky: '#56B4E9',
  purple: '#CC79A7',
  ink: '#222222',
  grid: '#d9d9d9',
};
export const SERIES = ['#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#F0E442', '#000000'];

export function scale(d0, d1, r0, r1) {
  const k = d1 === d0 ? 0 : (r1 - r0) / (d1 - d0);
  const f = (v) => r0 + (v - d0) * k;
  f.domain = [d0, d1];
  return f;
}

/** About `count` round tick values covering [lo, hi]. */
export function ticks(lo, hi, count = 5) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw) || raw;
  // Index-based (never `v += step`): a range of a few ulps would otherwise never advance and grow the array
  // without bound.
  const first = Math.ceil(lo / step - 1e-9);
  const n = Math.min(1000, Math.floor(hi / step + 1e-9) - first + 1);
  const out = [];
  for (let k = 0; k < n; k++) {
    const v = (first + k) * step;
    out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  }
  return out.length ? out : [lo];
}

/** An <svg> of width × height with the plot area inset by `m` ({l, r, t, b}). */
export function frame({ width, height, m, title, label }) {
  const svg = h('svg:svg', {
    xmlns: 'http://www.w3.org/2000/svg',
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
    'aria-label': label || title || 'plot',
    class: 'plot',
    'font-family': 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif',
    'font-size': 12,
  });
  svg.append(h('svg:rect', { x: 0, y: 0, width, height, fill: '#ffffff' }));
  if (title) svg.append(h('svg:title', {}, title));
  const area = { x0: m.l, x1: width - m.r, y0: m.t, y1: height - m.b };
  return { svg, area };
}

/** Tick labels for `values`: the short form, with more digits where the short form would repeat a label. */
export function tickLabels(values) {
  let labels = values.map(tick);
  for (let digits = 2; digits <= 5 && new Set(labels).size < labels.length; digits++) {
    labels = values.map((v) => (v === 0 ? '0' : Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(digits).replace('e+', 'e') : String(Number(v.toPrecision(digits + 1)))));
  }
  return labels;
}

/** Bottom and left axes with tick labels, grid lines and axis titles. */
export function axes(svg, area, x, y, { xlabel, ylabel, xticks, yticks }) {
  const g = h('svg:g', { class: 'axes' });
  const ylab = tickLabels(yticks);
  yticks.forEach((v, i) => {
    const py = y(v);
    g.append(h('svg:line', { x1: area.x0, x2: area.x1, y1: py, y2: py, stroke: PALETTE.grid, 'stroke-width': 1 }));
    g.append(h('svg:text', { x: area.x0 - 6, y: py + 4, 'text-anchor': 'end', fill: PALETTE.ink }, ylab[i]));
  });
  const xlab = tickLabels(xticks);
  xticks.forEach((v, i) => {
    const px = x(v);
    g.append(h('svg:line', { x1: px, x2: px, y1: area.y1, y2: area.y1 + 4, stroke: PALETTE.ink }));
    g.append(h('svg:text', { x: px, y: area.y1 + 17, 'text-anchor': 'middle', fill: PALETTE.ink }, xlab[i]));
  });
  g.append(h('svg:line', { x1: area.x0, x2: area.x1, y1: area.y1, y2: area.y1, stroke: PALETTE.ink }));
  g.append(h('svg:line', { x1: area.x0, x2: area.x0, y1: area.y0, y2: area.y1, stroke: PALETTE.ink }));
  if (xlabel) {
    // Narrow plots: shrink a long label (down to 9 px), then drop its parenthetical, so it is never clipped.
    const room = area.x1 - area.x0 + 40;
    let text = xlabel;
    let size = Math.max(9, Math.min(12, (room / (text.length * 6.4)) * 12));
    if (text.length * 6.4 * (size / 12) > room && text.includes(' (')) {
      text = text.slice(0, text.indexOf(' ('));
      size = Math.max(9, Math.min(12, (room / (text.length * 6.4)) * 12));
    }
    g.append(h('svg:text', { x: (area.x0 + area.x1) / 2, y: area.y1 + 34, 'text-anchor': 'middle', fill: PALETTE.ink, 'font-size': size.toFixed(1) }, text, h('svg:title', {}, xlabel)));
  }
  if (ylabel) {
    const cy = (area.y0 + area.y1) / 2;
    g.append(h('svg:text', { x: 13, y: cy, transform: `rotate(-90 13 ${cy})`, 'text-anchor': 'middle', fill: PALETTE.ink }, ylabel));
  }
  svg.append(g);
}

/** A legend of [label, colour, kind] entries laid out in rows across the top. */
export function legend(svg, area, entries) {
  let x = area.x0;
  let y = 14;
  const g = h('svg:g', { class: 'legend' });
  for (const [label, color, kind] of entries) {
    const w = 24 + label.length * 6.9;
    if (x + w > area.x1 && x > area.x0) {
      x = area.x0;
      y += 16;
    }
    g.append(
      kind === 'line' || kind === 'solid'
        ? h('svg:line', { x1: x, x2: x + 14, y1: y - 4, y2: y - 4, stroke: color, 'stroke-width': 2, 'stroke-dasharray': kind === 'solid' ? null : '4 3' })
        : kind === 'dot'
          ? h('svg:circle', { cx: x + 6, cy: y - 4, r: 4.5, fill: color })
          : h('svg:rect', { x, y: y - 10, width: 14, height: 10, fill: color, 'fill-opacity': 0.35, stroke: color }),
    );
    g.append(h('svg:text', { x: x + 18, y, fill: PALETTE.ink }, label));
    x += w;
  }
  svg.append(g);
  return y;
}

/** Pixel width to draw at for a container (clamped so plots stay legible). */
export const widthOf = (el) => Math.max(280, Math.min(1000, Math.floor((el && el.clientWidth) || 640)));

/**
 * Keeps every <text> of a drawn plot inside its box, measured once the plot is in the page (the layouts above
 * estimate text widths, which a narrow plot, a long legend entry or another font outgrows): a label is moved back
 * in where it can be (not a legend entry, which sits beside its swatch), then made smaller (down to 9 px), then
 * shortened with "…" (the whole text in its tooltip). Does nothing for a plot that is not laid out (hidden).
 */
export function fitTexts(svg) {
  const vb = svg?.viewBox?.baseVal;
  if (!vb || !vb.width || typeof svg.getBBox !== 'function' || !svg.getClientRects().length) return;
  const W = vb.width;
  const H = vb.height;
  const pad = 1;
  for (const t of svg.querySelectorAll('text')) {
    let b;
    try {
      b = t.getBBox();
    } catch {
      continue;
    }
    if (!b.width) continue;
    const rotated = t.hasAttribute('transform');
    // Horizontal extent (a label rotated by -90° spans the plot's height).
    const lo = rotated ? b.y : b.x;
    const span = rotated ? b.height : b.width;
    const room = (rotated ? H : W) - 2 * pad;
    const over = () => {
      const r = t.getBBox();
      return rotated ? Math.max(pad - r.y, r.y + r.height - (H - pad)) : Math.max(pad - r.x, r.x + r.width - (W - pad));
    };
    if (!(lo < pad - 0.01 || lo + span > (rotated ? H : W) - pad + 0.01)) continue;
    // 1. Moved in, when it fits and is a free label.
    if (!rotated && span <= room && !t.closest('.lethe-legend')) {
      const dx = lo < pad ? pad - lo : W - pad - (lo + span);
      t.setAttribute('x', String(Number(t.getAttribute('x') || 0) + dx));
      if (over() <= 0.01) continue;
      t.setAttribute('x', String(Number(t.getAttribute('x')) - dx));
    }
    // Room for the text where it starts (a legend entry keeps its place) or in the whole box.
    const anchor = t.getAttribute('text-anchor') || 'start';
    const avail = rotated || t.closest('.lethe-legend') === null ? room : W - pad - b.x;
    const size = Number(t.getAttribute('font-size') || getComputedStyle(t).fontSize.replace('px', '') || 12);
    // 2. Smaller, down to 9 px.
    const smaller = Math.max(9, Math.floor(size * Math.min(1, avail / span) * 10) / 10);
    if (smaller < size) t.setAttribute('font-size', smaller.toFixed(1));
    if (over() <= 0.01) continue;
    // 3. Shortened, the whole text kept as its tooltip.
    const node = [...t.childNodes].find((n) => n.nodeType === 3);
    if (!node) continue;
    const full = node.data;
    if (!t.querySelector('title')) t.append(document.createElementNS('http://www.w3.org/2000/svg', 'title'));
    const title = t.querySelector('title');
    if (!title.textContent) title.textContent = full;
    let lo2 = 1;
    let hi2 = full.length;
    while (lo2 < hi2) {
      const mid = Math.ceil((lo2 + hi2) / 2);
      node.data = full.slice(0, mid).trimEnd() + '…';
      if (over() <= 0.01) lo2 = mid;
      else hi2 = mid - 1;
    }
    node.data = full.slice(0, lo2).trimEnd() + '…';
    // Centred labels shortened may still sit off-centre past an edge: move them in.
    if (over() > 0.01 && anchor !== 'start' && !rotated) {
      const r = t.getBBox();
      const dx = r.x < pad ? pad - r.x : W - pad - (r.x + r.width);
      t.setAttribute('x', String(Number(t.getAttribute('x') || 0) + dx));
    }
  }
}
