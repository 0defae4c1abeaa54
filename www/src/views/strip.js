// Strip plot: one row per category, a dot per item (e.g. each target's JSD to the in-training and to the
// out-of-training reference), coloured by a class (the verdict) and outlined by another (the known label).
import { h } from '../dom.js';
import { PALETTE, axes, frame, legend, scale, ticks } from './svg.js';

/**
 * rows: [{label, points: [{value, color, ring, title}]}]; opts: {width, xlabel, legend: [[label, color, kind]],
 * markers: [{x, label}]} (dashed vertical lines, e.g. a decision threshold).
 */
export function stripPlot(rows, opts = {}) {
  const width = opts.width || 640;
  const rowH = 46;
  const height = 60 + rows.length * rowH + 44;
  const { svg, area } = frame({ width, height, m: { l: 110, r: 16, t: 44, b: 44 }, title: opts.title, label: opts.label });
  const vals = rows.flatMap((r) => r.points.map((p) => p.value)).concat((opts.markers || []).map((m) => m.x)).filter(Number.isFinite);
  let lo = Math.min(...vals);
  let hi = Math.max(...vals);
  // A single value (or values equal to rounding, e.g. JSDs that all reached ln 2) gets a unit-wide axis.
  if (!(hi - lo > 1e-9 * Math.max(Math.abs(lo), Math.abs(hi)))) {
    lo -= 0.5;
    hi += 0.5;
  }
  const pad = (hi - lo) * 0.05;
  const x = scale(lo - pad, hi + pad, area.x0, area.x1);
  const y = scale(0, rows.length, area.y0, area.y1);
  axes(svg, area, x, y, { xlabel: opts.xlabel, xticks: ticks(lo - pad, hi + pad, Math.max(3, Math.floor(width / 120))), yticks: [] });
  rows.forEach((r, i) => {
    const cy = y(i + 0.5);
    svg.append(h('svg:text', { x: area.x0 - 8, y: cy + 4, 'text-anchor': 'end', fill: PALETTE.ink }, r.label));
    r.points.forEach((p, k) => {
      // Deterministic jitter so overlapping dots stay visible.
      const jitter = ((k * 7919) % 23) / 23 - 0.5;
      svg.append(
        h('svg:circle', { cx: x(p.value), cy: cy + jitter * rowH * 0.5, r: 5, fill: p.color, 'fill-opacity': 0.85, stroke: p.ring || 'none', 'stroke-width': 2 }, h('svg:title', {}, p.title || '')),
      );
    });
  });
  // Vertical reference lines: [{x, label, color}] (e.g. a decision threshold).
  for (const mk of opts.markers || []) {
    const px = x(mk.x);
    if (!(px >= area.x0 && px <= area.x1)) continue;
    svg.append(h('svg:line', { x1: px, x2: px, y1: area.y0, y2: area.y1, stroke: mk.color || PALETTE.ink, 'stroke-dasharray': '4 3', 'stroke-width': 1.5 }));
    svg.append(h('svg:text', { x: Math.min(px + 4, area.x1 - 60), y: area.y0 + 12, fill: mk.color || PALETTE.ink, stroke: '#ffffff', 'stroke-width': 3, 'paint-order': 'stroke' }, mk.label || ''));
  }
  if (opts.legend) legend(svg, area, opts.legend);
  return svg;
}
