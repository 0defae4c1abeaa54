// Heat map of an n × n matrix (e.g. a kernel matrix): one canvas pixel per entry, scaled up without smoothing, with
// a colour bar. A canvas rather than SVG: n² rectangles would be far too many DOM nodes at n = 300.
import { h } from '../dom.js';

// Sequential colour map (light → dark blue-purple, after matplotlib's "cividis"/"viridis" ends; readable in grey).
const STOPS = [
  [0, [255, 255, 229]],
  [0.25, [199, 233, 180]],
  [0.5, [65, 182, 196]],
  [0.75, [34, 94, 168]],
  [1, [8, 29, 88]],
];

/** The colour of `t` in [0, 1] as [r, g, b]. */
export function colour(t) {
  const v = Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0;
  for (let i = 1; i < STOPS.length; i++) {
    const [t1, c1] = STOPS[i];
    if (v <= t1) {
      const [t0, c0] = STOPS[i - 1];
      const f = (v - t0) / (t1 - t0);
      return c0.map((c, k) => Math.round(c + (c1[k] - c) * f));
    }
  }
  return STOPS[STOPS.length - 1][1];
}

/**
 * values: row-major n × n numbers; opts: {size (CSS px), min, max, label (accessible description), title}.
 * Returns a <figure> holding the canvas and a small colour bar.
 */
export function heatmap(values, n, opts = {}) {
  const lo = opts.min ?? 0;
  const hi = opts.max ?? 1;
  const canvas = h('canvas', { width: n, height: n, role: 'img', 'aria-label': opts.label || 'heat map', class: 'heatmap-canvas' });
  canvas.style.width = `${opts.size || 180}px`;
  canvas.style.height = `${opts.size || 180}px`;
  const ctx = canvas.getContext && canvas.getContext('2d');
  if (ctx) {
    const img = ctx.createImageData(n, n);
    for (let i = 0; i < n * n; i++) {
      const [r, g, b] = colour((values[i] - lo) / (hi - lo || 1));
      img.data[4 * i] = r;
      img.data[4 * i + 1] = g;
      img.data[4 * i + 2] = b;
      img.data[4 * i + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  }
  const bar = h('span', { class: 'heatmap-bar', 'aria-hidden': 'true' });
  bar.style.background = `linear-gradient(to right, ${STOPS.map(([t, c]) => `rgb(${c.join(',')}) ${t * 100}%`).join(', ')})`;
  return h(
    'figure',
    { class: 'heatmap' },
    h('figcaption', {}, opts.title || ''),
    canvas,
    h('div', { class: 'heatmap-scale muted', 'aria-hidden': 'true' }, h('span', {}, String(lo)), bar, h('span', {}, String(hi))),
  );
}
