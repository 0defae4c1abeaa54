// Seeded normal draws for the teaching topics "one seed is not a result" and "forget quality" — the simulation only.
// Every statistic those figures show (intervals, p-values, Holm, the KS test) comes from the core through the
// worker (`lethe compare`, `lethe forget-quality`); this module only makes the illustrative numbers the core is
// given, reproducibly: splitmix64 (Steele, Lea & Flood 2014; the generator of analysis/src/teach/) and Box–Muller,
// one normal per two uniforms. tests/browser/teach_compare_ref.py ports it to Python to compute the reference
// values of the browser tests with scipy.
const MASK = (1n << 64n) - 1n;

/** A splitmix64 stream from a 64-bit state. */
function splitmix(state) {
  let s = BigInt.asUintN(64, state);
  return () => {
    s = (s + 0x9e3779b97f4a7c15n) & MASK;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK;
    return z ^ (z >> 31n);
  };
}

/** The stream of a (seed, group, member) key: seed · 2³² + group · 2⁸ + member (group < 2²⁴, member < 2⁸). */
export function stream(seed, group, member) {
  return splitmix((BigInt(seed >>> 0) << 32n) | (BigInt(group) << 8n) | BigInt(member));
}

/** `n` standard normal draws from a stream: √(−2 ln u₁) cos(2π u₂), u₁ in (0, 1], u₂ in [0, 1). */
export function normals(next, n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const u1 = (Number(next() >> 11n) + 1) / 2 ** 53;
    const u2 = Number(next() >> 11n) / 2 ** 53;
    out[i] = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }
  return out;
}

/** `n` draws of mean + sd · N(0, 1) for the key (seed, group, member): the first k are the same for every n ≥ k. */
export const draw = (seed, group, member, n, mean = 0, sd = 1) => normals(stream(seed, group, member), n).map((z) => mean + sd * z);
