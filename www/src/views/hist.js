// Overlaid histograms on shared edges (counts come from the core). Each series is drawn as a translucent step area.
import { h } from '../dom.js';
import { PALETTE, SERIES, axes, frame, legend, scale, ticks } from './svg.js';

/**
 * data: {edges, series: [{name, role, counts}]}; opts: {width, height, xlabel, ylabel, title, labels: {role → text},
 * markers: [{x, label}], moments: [{role, mean, sd}]} — `moments` draws each series' exact mean (dashed line) and
 * ± one sd (a bar with end ticks near the top) in the series' colour.
 */
export function histogramPlot(data, opts = {}) {
  const width = opts.width || 640;
  const height = opts.height || 280;
  const { edges } = data;
  const shown = data.series.filter((s) => s.counts.length);
  const colorOf = (s, i) => PALETTE[s.role] || SERIES[i % SERIES.length];
  const entries = shown.map((s, i) => [opts.labels?.[s.role] ?? s.name, colorOf(s, i)]);
  const moments = (opts.moments || []).filter((m) => Number.isFinite(m.mean));
  if (moments.length) entries.push(['exact mean ± sd', PALETTE.ink, 'line']);
  const top = 18 + 16 * Math.ceil(entries.reduce((a, e) => a + 22 + e[0].length * 6.6, 0) / Math.max(1, width - 80));
  const { svg, area } = frame({ width, height, m: { l: 52, r: 14, t: top + 6, b: 44 }, title: opts.title, label: opts.label });
  const ymax = Math.max(1, ...shown.flatMap((s) => s.counts));
  const x = scale(edges[0], edges[edges.length - 1], area.x0, area.x1);
  const y = scale(0, ymax * 1.05, area.y1, area.y0);
  axes(svg, area, x, y, {
    xlabel: opts.xlabel,
    ylabel: opts.ylabel || 'count',
    xticks: ticks(edges[0], edges[edges.length - 1], Math.max(3, Math.floor(width / 110))),
    yticks: ticks(0, ymax * 1.05, 4).filter((v) => Number.isInteger(v) || ymax < 4),
  });
  shown.forEach((s, i) => {
    const c = colorOf(s, i);
    let d = `M${x(edges[0])},${y(0)}`;
    s.counts.forEach((n, k) => {
      d += `L${x(edges[k])},${y(n)}L${x(edges[k + 1])},${y(n)}`;
    });
    d += `L${x(edges[edges.length - 1])},${y(0)}Z`;
    svg.append(h('svg:path', { d, fill: c, 'fill-opacity': 0.25, stroke: c, 'stroke-width': 1.6, class: 'series', 'data-name': s.name }));
  });
  moments.forEach((m, k) => {
    const i = shown.findIndex((s) => s.role === m.role);
    const c = i >= 0 ? colorOf(shown[i], i) : PALETTE.ink;
    const px = x(m.mean);
    const g = h('svg:g', { class: 'moment', 'data-role': m.role }, h('svg:title', {}, `${opts.labels?.[m.role] ?? m.role}: exact mean ${m.mean.toPrecision(6)} ± ${m.sd.toPrecision(4)} (sd over all shuffles)`));
    if (px >= area.x0 && px <= area.x1) {
      g.append(h('svg:line', { x1: px, x2: px, y1: area.y0, y2: area.y1, stroke: c, 'stroke-dasharray': '5 3', 'stroke-width': 1.8 }));
    }
    if (Number.isFinite(m.sd)) {
      const clamp = (v) => Math.min(area.x1, Math.max(area.x0, v));
      const lo = clamp(x(m.mean - m.sd));
      const hi = clamp(x(m.mean + m.sd));
      const py = area.y0 + 6 + 7 * k;
      g.append(h('svg:line', { x1: lo, x2: hi, y1: py, y2: py, stroke: c, 'stroke-width': 2 }));
      for (const e of [lo, hi]) g.append(h('svg:line', { x1: e, x2: e, y1: py - 3, y2: py + 3, stroke: c, 'stroke-width': 2 }));
    }
    svg.append(g);
  });
  for (const mk of opts.markers || []) {
    const px = x(mk.x);
    if (!(px >= area.x0 && px <= area.x1)) continue;
    svg.append(h('svg:line', { x1: px, x2: px, y1: area.y0, y2: area.y1, stroke: mk.color || PALETTE.ink, 'stroke-dasharray': '4 3', 'stroke-width': 1.5 }));
    const end = px + mk.label.length * 7 > area.x1; // the label left of the line, not past the plot's edge
    svg.append(h('svg:text', { x: end ? px - 4 : px + 4, y: area.y0 + 12, 'text-anchor': end && 'end', fill: mk.color || PALETTE.ink, stroke: '#ffffff', 'stroke-width': 3, 'paint-order': 'stroke' }, mk.label));
  }
  legend(svg, area, entries);
  // For overlays drawn by the caller (e.g. a draggable threshold): the plot area and the x scale.
  svg.plotArea = area;
  svg.xScale = x;
  return svg;
}
