//! Wasserstein-1 distance between two sets of activations (the SDE paper's Table 3 baseline).
//!
//! Between the empirical distributions of the rows of `X` and `Y` with Euclidean ground cost,
//! `W1 = min_π Σ_ij π_ij ‖x_i − y_j‖` over couplings with uniform marginals. When both sets have the same size n
//! (the SDE protocol: every subset has |S| rows) an optimal coupling is a permutation (Birkhoff), so
//! `W1 = min_σ (1/n) Σ_i ‖x_i − y_σ(i)‖`, solved exactly here by the Hungarian algorithm (shortest augmenting
//! paths, O(n³)) — the same optimum as `scipy.optimize.linear_sum_assignment` on the distance matrix.
//! For one-dimensional data any sizes are allowed and `W1 = ∫ |F_X − F_Y|`, as `scipy.stats.wasserstein_distance`.
//!
//! The SDE paper does not specify its Wasserstein computation (its code is not public); this is the exact
//! distance. Sets of different sizes in more than one dimension are refused rather than approximated.

use serde::Serialize;

use crate::check::{self, Budget, Cause, mul};
use crate::data::{MatrixRef, Scalar};
use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WassersteinResult {
    pub distance: f64,
    /// "assignment" (equal sizes, d ≥ 1) or "cdf" (d = 1, any sizes).
    pub method: &'static str,
    pub n_x: usize,
    pub n_y: usize,
}

/// Exact Wasserstein-1 distance between the rows of `x` and `y`.
///
/// # Errors
/// Empty or non-finite inputs, differing column counts, or different row counts when `d > 1`.
///
/// # Examples
/// ```
/// use lethe::{wasserstein::wasserstein1, Matrix};
/// let x = Matrix::from_rows(&[[0.0], [1.0], [3.0]]).unwrap();
/// let y = Matrix::from_rows(&[[5.0], [6.0], [8.0]]).unwrap();
/// assert!((wasserstein1(x.view(), y.view()).unwrap().distance - 5.0).abs() < 1e-12);
/// ```
pub fn wasserstein1<S: Scalar>(x: MatrixRef<'_, S>, y: MatrixRef<'_, S>) -> Result<WassersteinResult> {
    check::matrix("x", x, 1, "the Wasserstein distance")?;
    check::matrix("y", y, 1, "the Wasserstein distance")?;
    if x.cols() != y.cols() {
        return Err(Error::ShapeMismatch {
            message: format!("x has {} columns but y has {}", x.cols(), y.cols()),
        });
    }
    let (n, m) = (x.rows(), y.rows());
    if x.cols() == 1 {
        let a: Vec<f64> = x.as_slice().iter().map(|v| v.to_f64()).collect();
        let b: Vec<f64> = y.as_slice().iter().map(|v| v.to_f64()).collect();
        let distance = wasserstein_1d(&a, &b);
        if !distance.is_finite() {
            return Err(overflow(x, y));
        }
        return Ok(WassersteinResult {
            distance,
            method: "cdf",
            n_x: n,
            n_y: m,
        });
    }
    if n != m {
        return Err(Error::ShapeMismatch {
            message: format!(
                "x has {n} rows and y has {m}: the exact multivariate distance is computed for equal-size sets \
                 (draw subsets of the same size, as the SDE protocol does)"
            ),
        });
    }
    Budget::default()
        .add(
            Cause::input("x"),
            format!("the assignment problem of {n} rows"),
            assignment_bytes(n),
            assignment_steps(n, x.cols()),
            "use fewer rows: the exact distance in more than one dimension needs memory growing as rows² and \
             time as rows³ (compare random subsets of a few thousand rows, as the SDE protocol does)",
        )
        .check()?;
    let cost: Vec<f64> = (0..n)
        .flat_map(|i| {
            let xi = x.row(i);
            (0..n).map(move |j| {
                xi.iter()
                    .zip(y.row(j))
                    .map(|(a, b)| (a.to_f64() - b.to_f64()).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
        })
        .collect();
    // Distances that overflow (values beyond about 1e154) would leave the assignment without a finite optimum.
    if cost.iter().any(|c| !c.is_finite()) {
        return Err(overflow(x, y));
    }
    let total = assignment_min_cost(&cost, n)
        .filter(|t| t.is_finite())
        .ok_or_else(|| overflow(x, y))?;
    Ok(WassersteinResult {
        distance: total / n as f64,
        method: "assignment",
        n_x: n,
        n_y: m,
    })
}

/// The refusal of inputs whose distances overflow f64, naming the value of largest magnitude.
fn overflow<S: Scalar>(x: MatrixRef<'_, S>, y: MatrixRef<'_, S>) -> Error {
    let largest = |m: MatrixRef<'_, S>| {
        m.as_slice()
            .iter()
            .map(|v| v.to_f64())
            .enumerate()
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
            .unwrap_or((0, 0.0))
    };
    let ((i, a), (j, b)) = (largest(x), largest(y));
    let (input, k, value, cols) = if a.abs() >= b.abs() {
        ("x", i, a, x.cols())
    } else {
        ("y", j, b, y.cols())
    };
    Error::OutOfDomain {
        input: input.into(),
        value,
        location: format!(
            "row {}, column {} (both counting from 0)",
            k / cols.max(1),
            k % cols.max(1)
        ),
        domain: "values whose distances fit in a double, below about 1e150 in magnitude (rescale both inputs: the \
                 distance scales with them)",
    }
}

/// Bytes of the exact multivariate distance between two sets of `n` rows: the `n × n` cost matrix and the
/// assignment's vectors. Saturating.
pub fn assignment_bytes(n: usize) -> u64 {
    mul(n, n).saturating_mul(8).saturating_add(mul(n, 64))
}

/// Steps of work of the exact multivariate distance between two sets of `n` rows of `d` columns: `n²d` for the
/// cost matrix and the assignment problem's worst case `n³` (shortest augmenting paths). Saturating.
pub fn assignment_steps(n: usize, d: usize) -> u64 {
    mul(n, n)
        .saturating_mul(d as u64)
        .saturating_add(mul(n, n).saturating_mul(n as u64))
}

/// `∫ |F_a − F_b|` of two 1-D samples (scipy.stats.wasserstein_distance with unit weights).
pub fn wasserstein_1d(a: &[f64], b: &[f64]) -> f64 {
    let mut sa = a.to_vec();
    let mut sb = b.to_vec();
    sa.sort_by(f64::total_cmp);
    sb.sort_by(f64::total_cmp);
    let mut all: Vec<f64> = sa.iter().chain(&sb).copied().collect();
    all.sort_by(f64::total_cmp);
    let (na, nb) = (sa.len() as f64, sb.len() as f64);
    let mut total = 0.0;
    for w in all.windows(2) {
        let (lo, hi) = (w[0], w[1]);
        let fa = sa.partition_point(|&v| v <= lo) as f64 / na;
        let fb = sb.partition_point(|&v| v <= lo) as f64 / nb;
        total += (fa - fb).abs() * (hi - lo);
    }
    total
}

/// Minimum-cost perfect matching of a dense `n × n` cost matrix (Hungarian algorithm with potentials and
/// shortest augmenting paths; Kuhn–Munkres in the Jonker–Volgenant form). Returns the optimal total cost, or `None`
/// when an augmenting path finds no column (only with costs or potentials that are not finite numbers, where the
/// search would otherwise never end).
fn assignment_min_cost(cost: &[f64], n: usize) -> Option<f64> {
    // 1-based arrays as in the classic formulation; column 0 is a virtual start.
    let mut u = vec![0.0; n + 1];
    let mut v = vec![0.0; n + 1];
    let mut p = vec![0usize; n + 1]; // p[j]: row matched to column j
    let mut way = vec![0usize; n + 1];
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0;
        let mut minv = vec![f64::INFINITY; n + 1];
        let mut used = vec![false; n + 1];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = f64::INFINITY;
            let mut j1 = 0;
            for j in 1..=n {
                if !used[j] {
                    let cur = cost[(i0 - 1) * n + (j - 1)] - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=n {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            if j1 == 0 {
                return None;
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    Some((1..=n).map(|j| cost[(p[j] - 1) * n + (j - 1)]).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over all permutations for small n.
    fn brute(cost: &[f64], n: usize) -> f64 {
        fn rec(cost: &[f64], n: usize, row: usize, used: &mut Vec<bool>, acc: f64, best: &mut f64) {
            if row == n {
                *best = best.min(acc);
                return;
            }
            for j in 0..n {
                if !used[j] {
                    used[j] = true;
                    rec(cost, n, row + 1, used, acc + cost[row * n + j], best);
                    used[j] = false;
                }
            }
        }
        let mut best = f64::INFINITY;
        rec(cost, n, 0, &mut vec![false; n], 0.0, &mut best);
        best
    }

    #[test]
    fn hungarian_matches_brute_force() {
        let mut s = 12345u64;
        for n in 1..=7 {
            for _ in 0..20 {
                let cost: Vec<f64> = (0..n * n)
                    .map(|_| {
                        s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
                        ((s >> 33) % 1000) as f64 / 7.0
                    })
                    .collect();
                let (a, b) = (assignment_min_cost(&cost, n).unwrap(), brute(&cost, n));
                assert!((a - b).abs() < 1e-9, "n={n}: {a} vs {b}");
            }
        }
    }

    #[test]
    fn one_dimensional_matches_scipy_examples() {
        // scipy docs: wasserstein_distance([0, 1, 3], [5, 6, 8]) = 5.0; ([0, 1], [0, 1]) = 0.
        assert!((wasserstein_1d(&[0.0, 1.0, 3.0], &[5.0, 6.0, 8.0]) - 5.0).abs() < 1e-12);
        assert_eq!(wasserstein_1d(&[0.0, 1.0], &[0.0, 1.0]), 0.0);
        // Unequal sizes: ([0, 10], [0]) → half the mass moves 10 → 5.
        assert!((wasserstein_1d(&[0.0, 10.0], &[0.0]) - 5.0).abs() < 1e-12);
    }

    /// The assignment problem needs n² memory and n³ time: 30000 2-D rows are refused for their time before any
    /// cost is computed, a million for their memory.
    #[test]
    fn large_assignment_problems_are_refused() {
        assert_eq!(assignment_bytes(30_000), 30_000 * 30_000 * 8 + 30_000 * 64);
        assert_eq!(assignment_steps(30_000, 2), 27_000_000_000_000 + 1_800_000_000);
        let mut b = crate::check::Budget::default();
        b.add(
            crate::check::Cause::input("x"),
            "it",
            assignment_bytes(30_000),
            assignment_steps(30_000, 2),
            "",
        );
        let e = b
            .check_within(&crate::check::tests::at(u64::MAX, crate::check::WORK_STEPS))
            .unwrap_err();
        assert!(e.to_string().contains("steps of work"), "{e}");
        let big = crate::Matrix::from_vec(1_000_000, 2, vec![0.5; 2_000_000]).unwrap();
        let e = wasserstein1(big.view(), big.view()).unwrap_err().to_string();
        let e = crate::words::cli(&e);
        assert!(
            e.starts_with("input `x` is too large: the assignment problem of 1000000 rows"),
            "{e}"
        );
        // One dimension is sorted, not matched: any size is fine.
        let line = crate::Matrix::from_vec(1_000_000, 1, (0..1_000_000).map(f64::from).collect()).unwrap();
        assert_eq!(wasserstein1(line.view(), line.view()).unwrap().distance, 0.0);
    }

    /// Values whose distances overflow made the assignment search loop forever (found by the `stats` fuzz
    /// target): refused, naming the largest value; in one dimension a NaN distance is refused too.
    #[test]
    fn overflowing_distances_are_refused() {
        let x = crate::Matrix::from_rows(&[[0.0, 2.0], [-1e300, 1.0], [0.0, 2.0]]).unwrap();
        let y = crate::Matrix::from_rows(&[[-1e300, 0.0], [1e300, 1.0], [3.0, 2.0]]).unwrap();
        let e = wasserstein1(x.view(), y.view()).unwrap_err().to_string();
        let e = crate::words::cli(&e);
        assert!(
            e.starts_with("input `x` has value -1000000")
                && e.contains("at row 1, column 0 (both counting from 0), outside values whose"),
            "{e}"
        );
        // One dimension: the same two values on each side gave 0 · inf = NaN for the gap between them.
        let a = crate::Matrix::from_rows(&[[-1e308], [1e308]]).unwrap();
        assert!(wasserstein_1d(a.as_slice(), a.as_slice()).is_nan());
        assert!(wasserstein1(a.view(), a.view()).is_err());
        assert_eq!(assignment_min_cost(&[f64::INFINITY; 4], 2), None);
        assert_eq!(assignment_min_cost(&[1.0, 2.0, 3.0, 0.5], 2), Some(1.5));
    }
}
