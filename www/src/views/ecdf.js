// Empirical CDF with its DKW confidence band (values from the core's cdf_bounds), and an optional marker at x.
import { h } from '../dom.js';
import { PALETTE, axes, frame, legend, scale, ticks } from './svg.js';
import { num } from '../format.js';

/** band: {x, cdf, lower, upper}; opts: {width, marker: {x, label}}. */
export function ecdfPlot(band, opts = {}) {
  const width = opts.width || 640;
  const height = opts.height || 280;
  const entries = [
    ['empirical CDF', PALETTE.it, 'solid'],
    [`DKW band (1 − α = ${opts.level ?? ''})`, PALETTE.sky],
    ...(opts.truth ? [[opts.truthLabel || 'true CDF', PALETTE.ink, 'line']] : []),
  ];
  // Room for the legend's rows: they wrap on narrow plots, entry by entry as svg.js `legend` places them.
  const m = { l: 52, r: 14 };
  let rows = 1;
  for (let i = 0, x = m.l; i < entries.length; i++) {
    const w = 24 + entries[i][0].length * 6.9;
    if (x + w > width - m.r && x > m.l) {
      rows++;
      x = m.l;
    }
    x += w;
  }
  const { svg, area } = frame({ width, height, m: { ...m, t: Math.max(30, 12 + 16 * rows), b: 44 }, title: opts.title, label: opts.label });
  const xs = band.x.map(num);
  const x = scale(Math.min(0, xs[0]), Math.max(1, xs[xs.length - 1]), area.x0, area.x1);
  const y = scale(0, 1, area.y1, area.y0);
  axes(svg, area, x, y, { xlabel: opts.xlabel || 'score x', ylabel: 'Pr(X ≤ x)', xticks: ticks(x.domain[0], x.domain[1], 5), yticks: [0, 0.25, 0.5, 0.75, 1] });
  // Right-continuous steps: the value at x[i] holds until x[i+1].
  const step = (ys) => {
    let d = '';
    xs.forEach((v, i) => {
      const nx = i + 1 < xs.length ? xs[i + 1] : x.domain[1];
      d += `${i ? 'L' : 'M'}${x(v)},${y(num(ys[i]))}L${x(nx)},${y(num(ys[i]))}`;
    });
    return d;
  };
  let band_d = step(band.upper);
  for (let i = xs.length - 1; i >= 0; i--) {
    const nx = i + 1 < xs.length ? xs[i + 1] : x.domain[1];
    band_d += `L${x(nx)},${y(num(band.lower[i]))}L${x(xs[i])},${y(num(band.lower[i]))}`;
  }
  svg.append(h('svg:path', { d: band_d + 'Z', fill: PALETTE.sky, 'fill-opacity': 0.35, stroke: 'none', class: 'band' }));
  svg.append(h('svg:path', { d: step(band.cdf), fill: 'none', stroke: PALETTE.it, 'stroke-width': 2, class: 'ecdf' }));
  // Optional: the true CDF of the distribution the sample came from ({x, cdf}, drawn as steps on its own points).
  if (opts.truth) {
    const t = opts.truth;
    let d = '';
    t.x.forEach((v, i) => {
      const nx = i + 1 < t.x.length ? t.x[i + 1] : x.domain[1];
      d += `${i ? 'L' : 'M'}${x(Math.max(v, x.domain[0]))},${y(num(t.cdf[i]))}L${x(Math.min(nx, x.domain[1]))},${y(num(t.cdf[i]))}`;
    });
    svg.append(h('svg:path', { d, fill: 'none', stroke: PALETTE.ink, 'stroke-width': 1.5, 'stroke-dasharray': '5 4', class: 'truth' }));
  }
  if (opts.marker && Number.isFinite(opts.marker.x)) {
    const px = x(opts.marker.x);
    svg.append(h('svg:line', { x1: px, x2: px, y1: area.y0, y2: area.y1, stroke: PALETTE.oot, 'stroke-width': 1.5, 'stroke-dasharray': '4 3' }));
    svg.append(h('svg:text', { x: Math.min(px + 4, area.x1 - 120), y: area.y0 + 12, fill: PALETTE.oot, stroke: '#ffffff', 'stroke-width': 3, 'paint-order': 'stroke' }, opts.marker.label || ''));
  }
  legend(svg, area, entries);
  return svg;
}
