// The pictures of a comparison (lethe compare, issue 23), drawn from the plot data the analysis layer made for the
// report (analysis/src/plots.rs `compare_plots`): a forest plot per metric, the probability-of-improvement matrix, and
// the critical-difference diagram (autorank's). Nothing is computed here but positions and colours.
import { h } from '../dom.js';
import { fmt } from '../format.js';
import { PALETTE, axes, frame, legend, scale, ticks } from './svg.js';

const HALO = { stroke: '#ffffff', 'stroke-width': 3, 'paint-order': 'stroke' };
/** Room for the longest of `names` at 12 px, within a share of the plot's width. */
const labelRoom = (names, width, share = 0.34) => Math.min(Math.floor(width * share), 12 + Math.max(4, ...names.map((n) => n.length)) * 6.8);
/** 4 significant digits, for labels inside a chart (the tooltips and the tables keep the CLI's digits). */
const short = (v) => String(Number(Number(v).toPrecision(4)));
/** Rows the legend (svg.js `legend`) takes for `entries` between x0 and x1. */
function legendRows(entries, x0, x1) {
  let x = x0;
  let rows = 1;
  for (const [label] of entries) {
    const w = 24 + label.length * 6.9;
    if (x + w > x1 && x > x0) {
      x = x0;
      rows++;
    }
    x += w;
  }
  return rows;
}

/**
 * Forest plot of one metric (plots.rs `Forest`): per method its mean (dot), 95% t interval (thin line with caps) and
 * 95% stratified bootstrap interval (thick band), on one axis; a `closest` metric's reference as a dashed line.
 */
export function forestPlot(f, { width = 640 } = {}) {
  const rows = f.rows;
  const label = (r) => (r.task ? `${r.method} (${r.task})` : r.method);
  const left = labelRoom(rows.map(label), width);
  const rowH = 30;
  const entries = [['mean', PALETTE.ink, 'dot'], ['95% t', PALETTE.it, 'solid'], ['95% bootstrap', PALETTE.sky]];
  if (f.reference !== null && f.reference !== undefined) entries.push([`reference ${short(f.reference)}`, PALETTE.oot, 'line']);
  const top = 14 + 16 * legendRows(entries, left, width - 18) + 8;
  const height = top + rows.length * rowH + 46;
  const { svg, area } = frame({ width, height, m: { l: left, r: 18, t: top, b: 46 }, label: `Forest plot of ${f.metric}: each method's mean with its 95% t and bootstrap intervals` });
  const x = scale(f.range[0], f.range[1], area.x0, area.x1);
  const y = scale(0, rows.length, area.y0, area.y1);
  axes(svg, area, x, y, { xlabel: `${f.metric} (better: ${f.direction})`, xticks: ticks(f.range[0], f.range[1], Math.max(3, Math.floor((area.x1 - area.x0) / 90))), yticks: [] });
  if (f.reference !== null && f.reference !== undefined) {
    const px = x(f.reference);
    svg.append(h('svg:line', { x1: px, x2: px, y1: area.y0, y2: area.y1, stroke: PALETTE.oot, 'stroke-dasharray': '4 3', 'stroke-width': 1.5, class: 'reference' }));
  }
  rows.forEach((r, i) => {
    const cy = y(i + 0.5);
    const g = h('svg:g', { class: 'forest-row', 'data-method': r.method });
    g.append(h('svg:text', { x: area.x0 - 8, y: cy + 4, 'text-anchor': 'end', fill: PALETTE.ink }, label(r)));
    if (r.bootstrap_interval) {
      const [lo, hi] = r.bootstrap_interval.map(x);
      g.append(h('svg:rect', { x: lo, y: cy - 5, width: Math.max(1, hi - lo), height: 10, fill: PALETTE.sky, 'fill-opacity': 0.55, class: 'bootstrap' }, h('svg:title', {}, `bootstrap 95%: [${fmt(r.bootstrap_interval[0])}, ${fmt(r.bootstrap_interval[1])}]`)));
    }
    if (r.t_interval) {
      const [lo, hi] = r.t_interval.map(x);
      g.append(h('svg:line', { x1: lo, x2: hi, y1: cy, y2: cy, stroke: PALETTE.it, 'stroke-width': 1.5, class: 't-interval' }));
      for (const px of [lo, hi]) g.append(h('svg:line', { x1: px, x2: px, y1: cy - 6, y2: cy + 6, stroke: PALETTE.it, 'stroke-width': 1.5 }));
    }
    g.append(h('svg:circle', { cx: x(r.mean), cy, r: 4.5, fill: PALETTE.ink, class: 'mean' }, h('svg:title', {}, `${label(r)}: mean ${fmt(r.mean)} (n = ${r.n})${r.t_interval ? `, t 95% [${fmt(r.t_interval[0])}, ${fmt(r.t_interval[1])}]` : ', no interval'}`)));
    svg.append(g);
  });
  legend(svg, area, entries);
  return svg;
}

/** Blue for P > ½ (the row's method better), orange below, white at ½. */
function poiColour(p) {
  const t = Math.min(1, Math.abs(p - 0.5) * 2);
  const [r, g, b] = p >= 0.5 ? [0, 114, 178] : [213, 94, 0];
  const rgb = [r, g, b].map((c) => Math.round(255 + (c - 255) * t));
  // Black or white, whichever contrasts more with the cell (WCAG relative luminance): at least 4.58:1 either way.
  const lin = (c) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  const L = 0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2]);
  return { fill: `rgb(${rgb.join(',')})`, ink: 1.05 / (L + 0.05) > (L + 0.05) / 0.05 ? '#ffffff' : '#000000' };
}

/**
 * The probability-of-improvement matrix of one metric (plots.rs `PoiMatrix`): cell (row i, column j) is P(method i
 * better than method j) in the metric's direction, as rliable defines it; its bootstrap interval in the tooltip.
 */
export function poiPlot(m, { width = 640 } = {}) {
  const k = m.methods.length;
  const left = labelRoom(m.methods, width, 0.3);
  const cell = Math.max(26, Math.min(64, Math.floor((width - left - 16) / Math.max(1, k))));
  const top = Math.min(140, 18 + Math.max(...m.methods.map((n) => n.length)) * 6.6);
  const height = top + k * cell + 40;
  const { svg, area } = frame({ width, height, m: { l: left, r: 16, t: top, b: 40 }, label: `Probability of improvement on ${m.metric}: row better than column` });
  const x0 = area.x0;
  const y0 = area.y0;
  m.methods.forEach((name, i) => {
    svg.append(h('svg:text', { x: x0 - 6, y: y0 + i * cell + cell / 2 + 4, 'text-anchor': 'end', fill: PALETTE.ink }, name));
    const cx = x0 + i * cell + cell / 2;
    svg.append(h('svg:text', { x: cx + 4, y: y0 - 6, transform: `rotate(-90 ${cx + 4} ${y0 - 6})`, 'text-anchor': 'start', fill: PALETTE.ink }, name));
  });
  const size = cell < 34 ? 10 : 12;
  m.cells.forEach((row, i) =>
    row.forEach((p, j) => {
      const x = x0 + j * cell;
      const y = y0 + i * cell;
      if (p === null || p === undefined) {
        svg.append(h('svg:rect', { x, y, width: cell, height: cell, fill: '#f2f2f2', stroke: '#ffffff' }));
        return;
      }
      const c = poiColour(p);
      const iv = m.intervals?.[i]?.[j];
      const tip = `P(${m.methods[i]} better than ${m.methods[j]}) = ${fmt(p)}${iv ? `, 95% bootstrap [${fmt(iv[0])}, ${fmt(iv[1])}]` : ''}`;
      svg.append(h('svg:rect', { x, y, width: cell, height: cell, fill: c.fill, stroke: '#ffffff', class: 'poi-cell', 'data-row': m.methods[i], 'data-col': m.methods[j], 'data-p': String(p) }, h('svg:title', {}, tip)));
      svg.append(h('svg:text', { x: x + cell / 2, y: y + cell / 2 + 4, 'text-anchor': 'middle', fill: c.ink, 'font-size': size }, p.toFixed(2)));
    }),
  );
  svg.append(h('svg:text', { x: x0, y: y0 + k * cell + 24, fill: PALETTE.ink, 'font-size': 11 }, 'P(row better than column)'));
  return svg;
}

/**
 * The critical-difference diagram of one metric (plots.rs `CdDiagram`), as autorank draws it: the mean-rank axis
 * (1 = best) on top, each method joined to its rank, the Nemenyi CD as a bar, and thick bars joining the methods
 * whose mean ranks differ by no more than the CD (not significantly different).
 */
export function cdPlot(cd, { width = 640 } = {}) {
  const k = cd.methods.length;
  const half = Math.ceil(k / 2);
  const names = cd.methods.map((n, i) => `${n} (${cd.mean_ranks[i].toFixed(2)})`);
  const need = 12 + Math.max(...names.map((n) => n.length)) * 6.8;
  // autorank's layout (the better half labelled on the left, the rest on the right) where the labels fit beside the
  // axis; on a narrow screen every method on its own row under the axis, labelled beside its line.
  const wide = need <= width * 0.3;
  const side = wide ? need : 16;
  const axisY = 58;
  const groupsH = 10 + cd.groups.length * 8;
  const lineStep = 20;
  const rowsBelow = wide ? Math.max(half, k - half) : k;
  const height = axisY + groupsH + rowsBelow * lineStep + 24;
  const { svg, area } = frame({ width, height, m: { l: side, r: side, t: axisY, b: 10 }, label: `Critical-difference diagram of ${cd.metric}: mean ranks with the Nemenyi critical difference ${short(cd.critical_difference)}` });
  const x = scale(1, Math.max(2, k), area.x0, area.x1);
  const ax = h('svg:g', { class: 'axes' });
  ax.append(h('svg:line', { x1: area.x0, x2: area.x1, y1: axisY, y2: axisY, stroke: PALETTE.ink }));
  for (let r = 1; r <= k; r++) {
    ax.append(h('svg:line', { x1: x(r), x2: x(r), y1: axisY - 5, y2: axisY, stroke: PALETTE.ink }));
    ax.append(h('svg:text', { x: x(r), y: axisY - 9, 'text-anchor': 'middle', fill: PALETTE.ink }, String(r)));
  }
  svg.append(ax);
  // The CD bar, from rank 1.
  const cdEnd = x(Math.min(Math.max(2, k), 1 + cd.critical_difference));
  svg.append(h('svg:line', { x1: x(1), x2: cdEnd, y1: 18, y2: 18, stroke: PALETTE.ink, 'stroke-width': 2, class: 'cd-bar' }));
  for (const px of [x(1), cdEnd]) svg.append(h('svg:line', { x1: px, x2: px, y1: 13, y2: 23, stroke: PALETTE.ink, 'stroke-width': 1.5 }));
  svg.append(h('svg:text', { x: x(1), y: 35, fill: PALETTE.ink, 'font-size': 11 }, `CD = ${short(cd.critical_difference)}`));
  // Groups: thick bars just below the axis.
  cd.groups.forEach(([a, b], g) => {
    const gy = axisY + 10 + g * 8;
    svg.append(h('svg:line', { x1: x(cd.mean_ranks[a]) - 3, x2: x(cd.mean_ranks[b]) + 3, y1: gy, y2: gy, stroke: PALETTE.ink, 'stroke-width': 4, 'stroke-linecap': 'round', class: 'cd-group' }, h('svg:title', {}, `${cd.methods.slice(a, b + 1).join(', ')}: no significant difference`)));
  });
  const base = axisY + groupsH + 8;
  cd.methods.forEach((name, i) => {
    const px = x(cd.mean_ranks[i]);
    if (wide) {
      const left = i < half;
      const ly = base + (left ? i : k - 1 - i) * lineStep;
      const ex = left ? area.x0 - 6 : area.x1 + 6;
      svg.append(h('svg:path', { d: `M${px},${axisY}V${ly}H${ex}`, fill: 'none', stroke: PALETTE.ink, 'stroke-width': 1, class: 'cd-method', 'data-method': name }));
      svg.append(h('svg:text', { x: left ? ex - 4 : ex + 4, y: ly + 4, 'text-anchor': left ? 'end' : 'start', fill: PALETTE.ink, ...HALO }, names[i]));
      return;
    }
    const ly = base + i * lineStep;
    const room = px - 8 - 2;
    const before = names[i].length * 6.8 <= room || px > (area.x0 + area.x1) / 2;
    svg.append(h('svg:path', { d: `M${px},${axisY}V${ly}`, fill: 'none', stroke: PALETTE.ink, 'stroke-width': 1, class: 'cd-method', 'data-method': name }));
    svg.append(h('svg:circle', { cx: px, cy: ly, r: 2.5, fill: PALETTE.ink }));
    svg.append(h('svg:text', { x: before ? px - 6 : px + 6, y: ly + 4, 'text-anchor': before ? 'end' : 'start', fill: PALETTE.ink, ...HALO }, names[i]));
  });
  return svg;
}
