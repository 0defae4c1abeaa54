// Downloads: JSON reports, CSV tables, SVG and PNG of plots. Everything is made in the page (Blob + object URL);
// nothing is sent anywhere.

export function download(name, data, type) {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export const json = (v) => JSON.stringify(v, null, 2);

/** rows: array of arrays; the first is the header. */
export function csv(rows) {
  const cell = (v) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return rows.map((r) => r.map(cell).join(',')).join('\n') + '\n';
}

export function svgText(svg) {
  const clone = svg.cloneNode(true);
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + new XMLSerializer().serializeToString(clone);
}

/**
 * The SVG with heading lines above it (a title, then e.g. the AUC), so that an exported chart stands alone: a new SVG,
 * taller by the heading, holding the lines and the chart. Each line is a string or {text, attrs} (attributes on its
 * <text>, e.g. the exact number it shows). No lines: the SVG itself.
 */
export function withHeading(svg, lines) {
  if (!lines || !lines.length) return svg;
  const NS = 'http://www.w3.org/2000/svg';
  const w = Number(svg.getAttribute('width'));
  const hgt = Number(svg.getAttribute('height'));
  // Wrapped at spaces to the chart's width (a width estimated from the characters: the copy is not laid out).
  const rows = [];
  lines.forEach((line, i) => {
    const { text, attrs = {} } = typeof line === 'string' ? { text: line } : line;
    const size = i === 0 ? 15 : 13;
    const fits = Math.max(12, Math.floor((w - 16) / (size * 0.6)));
    let cur = '';
    const parts = [];
    for (const word of text.split(' ')) {
      if (cur && cur.length + 1 + word.length > fits) {
        parts.push(cur);
        cur = word;
      } else cur = cur ? `${cur} ${word}` : word;
    }
    parts.push(cur);
    parts.forEach((p, k) => rows.push({ text: p, size, bold: i === 0, attrs: k === 0 ? attrs : {} }));
  });
  const step = 18;
  const top = rows.length * step + 8;
  const out = document.createElementNS(NS, 'svg');
  for (const [k, v] of Object.entries({ width: w, height: hgt + top, viewBox: `0 0 ${w} ${hgt + top}`, role: 'img' })) out.setAttribute(k, String(v));
  const bg = document.createElementNS(NS, 'rect');
  for (const [k, v] of Object.entries({ width: w, height: hgt + top, fill: '#ffffff' })) bg.setAttribute(k, String(v));
  out.append(bg);
  rows.forEach(({ text, size, bold, attrs }, i) => {
    const t = document.createElementNS(NS, 'text');
    const base = { x: 8, y: (i + 1) * step, fill: '#1f2328', 'font-family': 'system-ui, sans-serif', 'font-size': size, 'font-weight': bold ? 600 : 400 };
    for (const [k, v] of Object.entries({ ...base, ...attrs })) t.setAttribute(k, String(v));
    t.textContent = text;
    out.append(t);
  });
  const chart = svg.cloneNode(true);
  chart.setAttribute('x', '0');
  chart.setAttribute('y', String(top));
  out.append(chart);
  return out;
}

/** Draws the SVG onto a canvas at 2× and resolves to a PNG Blob (a data: URL, so no request is made). */
export function pngBlob(svg) {
  const w = Number(svg.getAttribute('width'));
  const hgt = Number(svg.getAttribute('height'));
  const img = new Image();
  const src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svgText(svg));
  return new Promise((resolve, reject) => {
    img.onload = () => {
      const c = document.createElement('canvas');
      c.width = w * 2;
      c.height = hgt * 2;
      const g = c.getContext('2d');
      g.scale(2, 2);
      g.drawImage(img, 0, 0);
      c.toBlob((b) => (b ? resolve(b) : reject(new Error('PNG encoding failed'))), 'image/png');
    };
    img.onerror = () => reject(new Error('could not render the plot'));
    img.src = src;
  });
}
