//! The few numpy kernels the leakage bounds depend on, reproduced operation for operation.
//!
//! conbo (the bounds' reference implementation) is numpy code, and its results depend on how numpy sums
//! (pairwise, 8-way unrolled blocks of at most 128 values) and how `np.linspace` places its grid points
//! (`i · (1/(num − 1))`, last point forced to `stop`). Reproducing both makes Lethe's bounds equal to conbo's
//! to the last bit rather than to a tolerance; a grid point that lands one ulp off can change which samples
//! the empirical CDF counts.

/// Values per leaf block of numpy's pairwise summation (`PW_BLOCKSIZE` in numpy's `loops_utils.h.src`).
const PW_BLOCKSIZE: usize = 128;

/// `np.add.reduce` over a contiguous float64 array: numpy's pairwise summation.
///
/// Below 8 values a plain loop; up to 128 values eight interleaved partial sums combined as
/// `((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))`, then the remainder; beyond that the array is split
/// at a multiple of 8 near its middle and both halves are summed recursively.
pub(crate) fn sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        let mut res = 0.0;
        for &v in a {
            res += v;
        }
        res
    } else if n <= PW_BLOCKSIZE {
        let mut r = [a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]];
        let mut i = 8;
        while i < n - n % 8 {
            for (j, rj) in r.iter_mut().enumerate() {
                *rj += a[i + j];
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for &v in &a[i..] {
            res += v;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        sum(&a[..n2]) + sum(&a[n2..])
    }
}

/// `np.mean` of a non-empty float64 array: the pairwise sum divided by the length.
pub(crate) fn mean(a: &[f64]) -> f64 {
    sum(a) / a.len() as f64
}

/// `np.std(a)` (population, `ddof = 0`): two passes, `sqrt(sum((a − mean)²) / n)` with pairwise sums.
pub(crate) fn std(a: &[f64]) -> f64 {
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

/// `np.linspace(0, 1, num)` for `num ≥ 2`: `i · (1/(num − 1))`, with the last point set to exactly 1.
pub(crate) fn linspace01(num: usize) -> Vec<f64> {
    debug_assert!(num >= 2, "callers validate the grid size");
    let step = 1.0 / (num - 1) as f64;
    let mut t: Vec<f64> = (0..num).map(|i| i as f64 * step).collect();
    if let Some(last) = t.last_mut() {
        *last = 1.0;
    }
    t
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    #[test]
    fn sum_is_exact_on_integers_and_matches_naive_on_short_input() {
        let v: Vec<f64> = (1..=1000).map(f64::from).collect();
        assert_eq!(sum(&v), 500_500.0);
        assert_eq!(sum(&[0.1, 0.2, 0.3]), 0.1 + 0.2 + 0.3);
        assert_eq!(sum(&[]), 0.0);
    }

    #[test]
    fn pairwise_order_differs_from_naive_where_numpy_does() {
        // 1e16 swamps each 1.0 in a left-to-right sum; numpy's eight partial sums lose only the one 1.0 that
        // shares a lane with 1e16 (ulp(1e16) = 2) and add the other fourteen in pairs.
        let mut v = vec![1.0; 16];
        v[0] = 1e16;
        let naive = v.iter().fold(0.0, |a, b| a + b);
        assert_eq!(naive, 1e16);
        assert_eq!(sum(&v), 1e16 + 14.0);
    }

    #[test]
    fn linspace_matches_numpy_rounding() {
        let t = linspace01(11);
        assert_eq!(t.len(), 11);
        // numpy: 3 * 0.1 = 0.30000000000000004, not 0.3.
        assert_eq!(t[3], 3.0 * 0.1);
        assert_ne!(t[3], 0.3);
        assert_eq!(t[10], 1.0);
        assert_eq!(linspace01(2), vec![0.0, 1.0]);
    }

    #[test]
    fn std_is_population_std() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert!((std(&v) - 1.25f64.sqrt()).abs() < 1e-15);
        assert_eq!(std(&[0.5; 10]), 0.0);
    }
}
