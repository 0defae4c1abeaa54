// Number formatting for display. `num` reads the core's JSON convention (non-finite floats arrive as the strings
// "inf", "-inf", "nan"); `fmt` prints exactly as the CLI's human summary (cli/src/report.rs `fmt_num`): 6 decimals,
// or 4-digit scientific when tiny or huge. The browser tests compare these strings with the CLI's JSON values.

/** The number a core JSON value stands for. */
export function num(v) {
  if (typeof v === 'number') return v;
  if (v === 'inf') return Infinity;
  if (v === '-inf') return -Infinity;
  if (v === 'nan' || v === null || v === undefined) return NaN;
  return Number(v);
}

/** cli/src/report.rs fmt_num. */
export function fmt(v) {
  v = num(v);
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  if (v !== 0 && (Math.abs(v) < 1e-4 || Math.abs(v) >= 1e6)) return v.toExponential(4).replace('e+', 'e');
  return v.toFixed(6);
}

/** Short form for axis ticks. */
export function tick(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e4 || a < 1e-3) return v.toExponential(1).replace('e+', 'e');
  return String(Number(v.toPrecision(3)));
}

export function bytes(n) {
  if (n < 1024) return `${n} B`;
  const u = ['KiB', 'MiB', 'GiB', 'TiB'];
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
  return `${n.toFixed(n < 10 ? 2 : 1)} ${u[i]}`;
}

export function seconds(s) {
  if (!Number.isFinite(s)) return '';
  if (s < 1) return '<1 s';
  if (s < 90) return `${Math.round(s)} s`;
  return `${Math.round(s / 60)} min`;
}

export const shape = (s) => (s && s.length ? s.join(' × ') : 'scalar');
