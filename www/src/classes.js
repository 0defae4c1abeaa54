// Every CSS class the widget uses, prefixed `lethe-` so a host page's styles and ours never collide
// (the habit of uPlot's domClasses.js). widget.css styles exactly these.
export const P = 'lethe-';
export const cls = (...names) => names.filter(Boolean).map((n) => P + n).join(' ');
