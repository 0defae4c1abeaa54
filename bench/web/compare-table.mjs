// The runs table of `cargo bench -p lethe-analysis --bench compare` (analysis/benches/compare.rs, `table()`), built
// the same way here so the page's compare can be timed on issue 23's size: method `methodK` has mean K/100 plus
// metric j's offset j/10, values spread by the bench's seeded LCG (u64 arithmetic in BigInt), six decimals.
// `node bench/web/compare-table.mjs METHODS SEEDS METRICS` prints it (to compare with the bench's
// `COMPARE_BENCH_TABLE=FILE`).

const MASK = (1n << 64n) - 1n;

/** The CSV text: columns method, seed, metric0 … metric{metrics−1}; `seeds` rows per method. */
export function compareTable(methods, seeds, metrics) {
  let s = 23n;
  const next = () => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & MASK;
    return Number(s >> 11n) / 2 ** 53;
  };
  const lines = [['method', 'seed', ...Array.from({ length: metrics }, (_, j) => `metric${j}`)].join(',')];
  for (let m = 0; m < methods; m++) {
    for (let seed = 0; seed < seeds; seed++) {
      const row = [`method${m}`, String(seed)];
      for (let j = 0; j < metrics; j++) row.push((m / 100 + j / 10 + 0.2 * (next() - 0.5)).toFixed(6));
      lines.push(row.join(','));
    }
  }
  return lines.join('\n') + '\n';
}

/** The request the bench sends: every metric higher-is-better, `baseline` or every pair, `resamples`, seed 0. */
export function compareRequest(text, { metrics, baseline = null, resamples = 10000 }) {
  return {
    runs: { kind: 'text', text },
    metrics: Array.from({ length: metrics }, (_, j) => `metric${j}:higher`),
    baseline,
    published: [],
    margin: null,
    correction: 'holm',
    resamples,
    seed: 0,
  };
}

if (typeof process !== 'undefined' && process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  const [methods, seeds, metrics] = process.argv.slice(2).map(Number);
  process.stdout.write(compareTable(methods || 50, seeds || 10, metrics || 20));
}
