//! Maximum mean discrepancy between two sets of activations (the SDE paper's Table 3 baseline).
//!
//! With a Gaussian RBF kernel `k` of bandwidth σ on the pooled rows of `X` (n × d) and `Y` (m × d):
//!
//! ```text
//! biased   MMD²_b = mean_{i,i'} k(x_i, x_i') + mean_{j,j'} k(y_j, y_j') − 2 mean_{i,j} k(x_i, y_j)
//! unbiased MMD²_u = Σ_{i≠i'} k(x_i,x_i')/(n(n−1)) + Σ_{j≠j'} k(y_j,y_j')/(m(m−1)) − 2 mean_{i,j} k(x_i, y_j)
//! ```
//!
//! (Gretton et al. 2012, Eqs. 3 and 5). The SDE paper does not spell out its MMD (and its code is not public);
//! Lethe uses the biased form with the bandwidth rule the SDE statistic uses: σ = sqrt(d) by default, or the
//! median heuristic over the pooled rows, or a fixed σ. The baseline verdict calls a target in-training when
//! `MMD(target, in-training reference) < MMD(target, out-of-training reference)`.

use serde::{Deserialize, Serialize};

use crate::check::{self, Budget, Cause, mul};
use crate::data::{MatrixRef, Scalar};
use crate::error::{Error, Result};
use crate::kernel::{self, Bandwidth};

/// Which MMD² estimator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MmdEstimator {
    #[default]
    Biased,
    Unbiased,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MmdResult {
    /// MMD² (the unbiased estimate can be slightly negative).
    pub mmd2: f64,
    /// sqrt(max(MMD², 0)).
    pub mmd: f64,
    pub sigma: f64,
    pub estimator: MmdEstimator,
    pub n_x: usize,
    pub n_y: usize,
}

/// Bytes [`mmd`] holds at its peak for `n` and `m` rows of `d` columns: the pooled rows in f64 and the kernel
/// matrix of all `n + m` of them ([`kernel::rbf_bytes`]). Saturating.
pub fn mmd_bytes(n: usize, m: usize, d: usize, bw: Bandwidth) -> u64 {
    let t = n.saturating_add(m);
    mul(t, d)
        .saturating_mul(8)
        .saturating_add(kernel::rbf_bytes(t, d, 8, 8, bw))
}

/// MMD² between the rows of `x` and `y` with an RBF kernel.
///
/// # Errors
/// Empty or non-finite inputs, differing column counts, fewer than 2 rows per input for the unbiased estimator,
/// invalid fixed bandwidth.
///
/// # Examples
/// ```
/// use lethe::{mmd::{mmd, MmdEstimator}, kernel::Bandwidth, Matrix};
/// let x = Matrix::from_rows(&[[0.0], [1.0]]).unwrap();
/// let r = mmd(x.view(), x.view(), Bandwidth::SqrtDim, MmdEstimator::Biased).unwrap();
/// assert!(r.mmd2.abs() < 1e-15);
/// ```
pub fn mmd<S: Scalar>(
    x: MatrixRef<'_, S>,
    y: MatrixRef<'_, S>,
    bw: Bandwidth,
    estimator: MmdEstimator,
) -> Result<MmdResult> {
    let min_rows = if estimator == MmdEstimator::Unbiased { 2 } else { 1 };
    check::matrix("x", x, min_rows, "MMD")?;
    check::matrix("y", y, min_rows, "MMD")?;
    if x.cols() != y.cols() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "x has {} columns but y has {}; both must be activations of the same layer",
                x.cols(),
                y.cols()
            ),
        });
    }
    let (n, m, d) = (x.rows(), y.rows(), x.cols());
    Budget::default()
        .add(
            Cause::input(if n >= m { "x" } else { "y" }),
            format!("MMD of {n} and {m} rows"),
            mmd_bytes(n, m, d, bw),
            kernel::rbf_steps(n.saturating_add(m), d),
            "use fewer rows (the kernel matrix grows as the square of both inputs' rows together)",
        )
        .check()?;
    // Pool the rows: one kernel matrix over X ∪ Y gives all three blocks (and the pooled median).
    let mut pooled = Vec::with_capacity((n + m) * d);
    pooled.extend(x.as_slice().iter().map(|v| v.to_f64()));
    pooled.extend(y.as_slice().iter().map(|v| v.to_f64()));
    let z = MatrixRef::new(n + m, d, &pooled)?;
    let k: kernel::Kernel<f64> = kernel::rbf(z, bw)?;
    let t = n + m;
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for i in 0..t {
        let row = &k.values[i * t..(i + 1) * t];
        if i < n {
            sxx += row[..n].iter().sum::<f64>();
            sxy += row[n..].iter().sum::<f64>();
        } else {
            syy += row[n..].iter().sum::<f64>();
        }
    }
    let (nf, mf) = (n as f64, m as f64);
    let mmd2 = match estimator {
        MmdEstimator::Biased => sxx / (nf * nf) + syy / (mf * mf) - 2.0 * sxy / (nf * mf),
        // Diagonal entries are exp(0) = 1.
        MmdEstimator::Unbiased => {
            (sxx - nf) / (nf * (nf - 1.0)) + (syy - mf) / (mf * (mf - 1.0)) - 2.0 * sxy / (nf * mf)
        }
    };
    Ok(MmdResult {
        mmd2,
        mmd: mmd2.max(0.0).sqrt(),
        sigma: k.stats.sigma,
        estimator,
        n_x: n,
        n_y: m,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;
    use crate::Matrix;

    /// 100000 rows a side need a kernel of 200000² values: refused before the pooled copy is made; the arithmetic
    /// counts the pooled rows and the kernel.
    #[test]
    fn large_inputs_are_refused_before_their_kernel() {
        let x = Matrix::from_vec(100_000, 1, vec![0.25; 100_000]).unwrap();
        let e = mmd(x.view(), x.view(), Bandwidth::Median, MmdEstimator::Biased).unwrap_err();
        let m = e.to_string();
        let m = crate::words::cli(&m);
        assert!(matches!(e, Error::TooLarge { .. }), "{m}");
        assert!(
            m.starts_with("input `x` is too large: MMD of 100000 and 100000 rows needs about"),
            "{m}"
        );
        let b = mmd_bytes(1000, 500, 3, Bandwidth::SqrtDim);
        assert!((1500 * 1500 * 8 + 1500 * 3 * 8..1500 * 1500 * 16).contains(&b), "{b}");
        // The median heuristic's copy of the 1500·1499/2 distances comes on top.
        assert_eq!(mmd_bytes(1000, 500, 3, Bandwidth::Median) - b, 1500 * 1499 / 2 * 8);
        assert_eq!(mmd_bytes(usize::MAX, 2, 2, Bandwidth::Median), u64::MAX);
    }
}
