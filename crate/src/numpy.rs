//! The few numpy kernels whose exact rounding Lethe reproduces, so results equal the reference implementations
//! (scipy, conbo, RULER, metric.py — all numpy code) to the last bit rather than to a tolerance: a grid point or a
//! sum one ulp off can move a value across a `≤`.
//!
//! * [`sum`]: `np.add.reduce` over a contiguous float64 array — pairwise summation: below 8 values a plain loop;
//!   up to 128 values eight interleaved partial sums combined as `((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`
//!   then the remainder; beyond that a split at a multiple of 8 near the middle, both halves recursively
//!   (`pairwise_sum_DOUBLE` in numpy's `loops_utils.h.src`, `PW_BLOCKSIZE` = 128). The reduction starts from 0.0,
//!   so a sum of `[-0.0]` is `0.0`, as in numpy.
//! * [`mean`], [`std`]: `np.mean`, `np.std` (population, two passes) on top of [`sum`].
//! * [`linspace`]: `np.linspace(start, stop, num)` (endpoint included): `i·step + start` with
//!   `step = (stop − start)/(num − 1)`, the last point set to `stop`; when `step == 0`, `(i/(num − 1))·delta + start`.

/// Values per leaf block of numpy's pairwise summation.
pub(crate) const PW_BLOCKSIZE: usize = 128;

fn pairwise(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        a.iter().fold(0.0, |acc, &v| acc + v)
    } else if n <= PW_BLOCKSIZE {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let body = n - n % 8;
        for chunk in a[8..body].chunks_exact(8) {
            for (acc, v) in r.iter_mut().zip(chunk) {
                *acc += v;
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for v in &a[body..] {
            res += v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise(&a[..n2]) + pairwise(&a[n2..])
    }
}

/// `np.sum` of a contiguous float64 array, bit for bit.
///
/// # Examples
/// ```
/// assert_eq!(lethe::numpy::sum(&[1.0, 2.0, 3.0]), 6.0);
/// assert_eq!(lethe::numpy::sum(&[]), 0.0);
/// ```
pub fn sum(a: &[f64]) -> f64 {
    0.0 + pairwise(a)
}

/// `np.mean` of a non-empty float64 array (NaN when empty, as numpy).
pub fn mean(a: &[f64]) -> f64 {
    sum(a) / a.len() as f64
}

/// `np.std(a)` (population, `ddof = 0`): `sqrt(sum((a − mean)²) / n)`.
pub fn std(a: &[f64]) -> f64 {
    let m = mean(a);
    let sq: Vec<f64> = a
        .iter()
        .map(|&v| {
            let d = v - m;
            d * d
        })
        .collect();
    (sum(&sq) / a.len() as f64).sqrt()
}

/// `np.linspace(start, stop, num)` in float64.
///
/// # Examples
/// ```
/// assert_eq!(lethe::numpy::linspace(0.0, 1.0, 3), vec![0.0, 0.5, 1.0]);
/// assert_eq!(lethe::numpy::linspace(2.0, 3.0, 1), vec![2.0]);
/// ```
pub fn linspace(start: f64, stop: f64, num: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(num);
    linspace_into(start, stop, num, &mut out);
    out
}

/// [`linspace`] into a caller buffer (cleared first), so hot loops reuse one allocation.
pub(crate) fn linspace_into(start: f64, stop: f64, num: usize, out: &mut Vec<f64>) {
    out.clear();
    if num == 0 {
        return;
    }
    let delta = stop - start;
    if num == 1 {
        out.push(0.0 * delta + start);
        return;
    }
    let div = (num - 1) as f64;
    let step = delta / div;
    if step == 0.0 {
        out.extend((0..num).map(|i| (i as f64 / div) * delta + start));
    } else {
        out.extend((0..num).map(|i| i as f64 * step + start));
    }
    if let Some(last) = out.last_mut() {
        *last = stop;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sum_is_exact_on_integers_and_groups_like_numpy() {
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(sum(&v), 500_500.0);
        assert_eq!(sum(&[0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3);
        assert_eq!(sum(&[-0.0]).to_bits(), 0.0f64.to_bits());
        // 1e16 swamps each 1.0 in a left-to-right sum; numpy's eight partial sums lose only the one 1.0 that
        // shares a lane with 1e16 (ulp(1e16) = 2) and add the other fourteen in pairs.
        let mut w = vec![1.0; 16];
        w[0] = 1e16;
        assert_eq!(w.iter().fold(0.0, |a, b| a + b), 1e16);
        assert_eq!(sum(&w), 1e16 + 14.0);
    }

    #[test]
    fn linspace_matches_numpy_rounding() {
        let t = linspace(0.0, 1.0, 11);
        // numpy: 3 * 0.1 = 0.30000000000000004, not 0.3.
        assert_eq!(t[3], 3.0 * 0.1);
        assert_ne!(t[3], 0.3);
        assert_eq!(t[10], 1.0);
        assert_eq!(linspace(-1.0, 1.0, 5), vec![-1.0, -0.5, 0.0, 0.5, 1.0]);
        assert_eq!(linspace(1.0, 1.0, 4), vec![1.0; 4]);
        assert!(linspace(0.0, 1.0, 0).is_empty());
    }

    #[test]
    fn std_is_population_std() {
        assert!((std(&[1.0, 2.0, 3.0, 4.0]) - 1.25f64.sqrt()).abs() < 1e-15);
        assert_eq!(std(&[0.5; 10]), 0.0);
    }
}
