// An x–y plot on the shared axes of svg.js: lines, steps, points, bars and shaded bands, optionally on a log x axis,
// with vertical markers. Used by the teaching figures (scatter plots, null distributions, curves against n or σ).
import { h } from '../dom.js';
import { PALETTE, axes, frame, legend, scale, ticks } from './svg.js';
import { num } from '../format.js';

const finite = (v) => Number.isFinite(v);
// A white outline under labels drawn over data, so they stay readable.
const HALO = { stroke: '#ffffff', 'stroke-width': 3, 'paint-order': 'stroke' };

/** Tick positions of a log10 axis between lo and hi (both > 0): 1, 2, 5 × powers of ten. */
function logTicks(lo, hi) {
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
    }
  }
  return out.length >= 2 ? out : [lo, hi];
}

/**
 * series: [{name, color, kind: 'line'|'step'|'points'|'bars'|'band', x, y, y2 (band: upper), dash, width (bars),
 *           legend: false to leave it out, title: per-point tooltips (points)}];
 * opts: {width, height, xlabel, ylabel, xlog, xlim: [lo, hi], ylim: [lo, hi], markers: [{x, label, color}],
 *        hlines: [{y, label, color}], title, label}.
 */
export function linePlot(series, opts = {}) {
  const width = opts.width || 640;
  const height = opts.height || 260;
  const entries = series.filter((s) => s.legend !== false && s.name).map((s) => [s.name, s.color, s.kind === 'line' || s.kind === 'step' ? (s.dash ? 'line' : 'solid') : s.kind === 'points' ? 'dot' : undefined]);
  const top = entries.length ? 18 + 16 * Math.ceil(entries.reduce((a, e) => a + 22 + e[0].length * 6.6, 0) / Math.max(1, width - 80)) : 12;
  const { svg, area } = frame({ width, height, m: { l: 56, r: 16, t: top + 6, b: 44 }, title: opts.title, label: opts.label });
  const xs = series.flatMap((s) => s.x.map(num)).filter((v) => finite(v) && (!opts.xlog || v > 0));
  const ys = series.flatMap((s) => [...s.y.map(num), ...(s.y2 || []).map(num)]).filter(finite);
  let [x0, x1] = opts.xlim || (xs.length ? [Math.min(...xs), Math.max(...xs)] : [0, 1]);
  let [y0, y1] = opts.ylim || (ys.length ? [Math.min(0, ...ys), Math.max(...ys)] : [0, 1]);
  // One x value (the first cell of a live trend, say): widen around it — by a factor of 2 on a log axis, whose
  // domain must stay positive.
  if (!(x1 > x0)) [x0, x1] = opts.xlog ? [x0 / 2, x0 * 2] : [x0 - 0.5, x0 + 0.5];
  if (!(y1 > y0)) [y0, y1] = [y0 - 0.5, y0 + 0.5];
  if (!opts.ylim) y1 += (y1 - y0) * 0.05;
  const lx = opts.xlog ? (v) => Math.log10(v) : (v) => v;
  const xs_ = scale(lx(x0), lx(x1), area.x0, area.x1);
  const x = (v) => xs_(lx(v));
  x.domain = [x0, x1];
  const y = scale(y0, y1, area.y1, area.y0);
  const xticks = opts.xlog ? logTicks(x0, x1) : ticks(x0, x1, Math.max(3, Math.floor(width / 110)));
  axes(svg, area, x, y, { xlabel: opts.xlabel, ylabel: opts.ylabel, xticks, yticks: ticks(y0, y1, 4) });
  const clipX = (v) => Math.min(area.x1, Math.max(area.x0, v));
  const clipY = (v) => Math.min(area.y1, Math.max(area.y0, v));
  for (const s of series) {
    const pts = s.x.map((xv, i) => [num(xv), num(s.y[i])]).filter(([a, b]) => finite(a) && finite(b) && (!opts.xlog || a > 0));
    const c = s.color || PALETTE.it;
    if (s.kind === 'band') {
      const up = s.x.map((xv, i) => [num(xv), num(s.y2[i])]).filter(([a, b]) => finite(a) && finite(b));
      if (!pts.length) continue;
      let d = pts.map(([a, b], i) => `${i ? 'L' : 'M'}${x(a)},${clipY(y(b))}`).join('');
      d += up.reverse().map(([a, b]) => `L${x(a)},${clipY(y(b))}`).join('');
      svg.append(h('svg:path', { d: d + 'Z', fill: c, 'fill-opacity': 0.25, stroke: 'none', class: 'band', 'data-name': s.name || '' }));
    } else if (s.kind === 'bars') {
      const w = Math.max(1, Math.abs(x(s.width || 1) - x(0)) * 0.85);
      for (const [a, b] of pts) {
        svg.append(h('svg:rect', { x: x(a) - w / 2, y: y(Math.max(0, b)), width: w, height: Math.max(0, y(0) - y(Math.max(0, b))), fill: (s.highlight && s.highlight(a)) || c, 'fill-opacity': 0.8, class: 'bar' }));
      }
    } else if (s.kind === 'points') {
      pts.forEach(([a, b], i) => {
        svg.append(h('svg:circle', { cx: x(a), cy: clipY(y(b)), r: s.r || 3, fill: c, 'fill-opacity': 0.75, class: 'point' }, s.title ? h('svg:title', {}, s.title[i]) : null));
      });
    } else {
      let d = '';
      pts.forEach(([a, b], i) => {
        const px = clipX(x(a));
        const py = clipY(y(b));
        if (s.kind === 'step' && i) d += `L${px},${clipY(y(pts[i - 1][1]))}`;
        d += `${i ? 'L' : 'M'}${px},${py}`;
      });
      if (d) svg.append(h('svg:path', { d, fill: 'none', stroke: c, 'stroke-width': s.strokeWidth || 2, 'stroke-dasharray': s.dash || null, class: 'line', 'data-name': s.name || '' }));
    }
  }
  for (const hl of opts.hlines || []) {
    if (!finite(hl.y) || hl.y < y0 || hl.y > y1) continue;
    const py = y(hl.y);
    svg.append(h('svg:line', { x1: area.x0, x2: area.x1, y1: py, y2: py, stroke: hl.color || PALETTE.ink, 'stroke-dasharray': '6 4', 'stroke-width': 1.2 }));
    if (hl.label) svg.append(h('svg:text', { x: area.x1 - 4, y: py - 4, 'text-anchor': 'end', fill: hl.color || PALETTE.ink, ...HALO }, hl.label));
  }
  for (const mk of opts.markers || []) {
    if (!finite(mk.x) || mk.x < x0 || mk.x > x1) continue;
    const px = x(mk.x);
    svg.append(h('svg:line', { x1: px, x2: px, y1: area.y0, y2: area.y1, stroke: mk.color || PALETTE.ink, 'stroke-dasharray': mk.dash || '4 3', 'stroke-width': 1.5 }));
    if (mk.label) {
      const right = px > (area.x0 + area.x1) / 2;
      svg.append(h('svg:text', { x: right ? px - 4 : px + 4, y: area.y0 + 12 + (mk.row || 0) * 14, 'text-anchor': right ? 'end' : 'start', fill: mk.color || PALETTE.ink, ...HALO }, mk.label));
    }
  }
  legend(svg, area, entries);
  svg.plotArea = area;
  svg.xScale = x;
  svg.yScale = y;
  return svg;
}
