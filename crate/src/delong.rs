//! DeLong's confidence interval for the AUC (DeLong, DeLong & Clarke-Pearson 1988), computed from the exact ROC's
//! steps in one pass (the midrank form of Sun & Xu 2014, with ties counted ½).
//!
//! With `ψ(x, y) = 1` if `x > y`, `½` if `x = y`, else 0, the structural components are
//!
//! ```text
//! V₁₀(xᵢ) = (1/n₀) Σⱼ ψ(xᵢ, yⱼ)          V₀₁(yⱼ) = (1/n₁) Σᵢ ψ(xᵢ, yⱼ)
//! S₁₀ = Σᵢ (V₁₀(xᵢ) − AUC)² / (n₁ − 1)   S₀₁ = Σⱼ (V₀₁(yⱼ) − AUC)² / (n₀ − 1)
//! Var(AUC) = S₁₀/n₁ + S₀₁/n₀,   CI = AUC ± z₁₋α/₂ · √Var, clipped to [0, 1]   (as pROC's `ci.auc(method="delong")`)
//! ```
//!
//! Every member of one tie group has the same `V₁₀` (the non-members below it, plus half of those tied with it),
//! every non-member the same `V₀₁`, so the sums run over the curve's steps, not the scores: `O(distinct scores)`
//! after the ROC's sort.
//!
//! Why DeLong is the default interval of `lethe mia`: it is deterministic (no seed, the same report every run),
//! costs one pass over the sorted scores, and is the interval the ROC literature and pROC report; in the seeded
//! simulation of `crate/tests/golden_mia.rs` its 95% interval covers the true AUC at about 95%. It is a normal
//! approximation: near AUC 0 or 1 with few scores of one class it can be too narrow, and it needs at least 2
//! scores of each class. The seeded bootstrap ([`crate::roc_bootstrap`]) is offered beside it.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::roc::{Interval, Roc};

/// DeLong's variance of the AUC and the interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeLong {
    #[serde(serialize_with = "crate::json::f64")]
    pub auc: f64,
    /// `S₁₀ / n₁ + S₀₁ / n₀`.
    #[serde(serialize_with = "crate::json::f64")]
    pub variance: f64,
    /// `√variance`.
    #[serde(serialize_with = "crate::json::f64")]
    pub standard_error: f64,
    /// Two-sided interval at level `1 − alpha`, clipped to `[0, 1]`.
    pub interval: Interval,
    #[serde(serialize_with = "crate::json::f64")]
    pub alpha: f64,
}

/// `Φ⁻¹(1 − a)` for `a ∈ (0, 1)`: `√2 · erfc⁻¹(2a)`.
pub fn z_upper(a: f64) -> f64 {
    std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(2.0 * a)
}

/// DeLong's interval for the AUC of `r` at level `1 − alpha`.
///
/// # Errors
/// [`Error::TooSmall`] when a class has fewer than 2 scores (the variance needs `n − 1 > 0`);
/// [`Error::InvalidParameter`] for `alpha ∉ (0, 1)`.
///
/// # Examples
/// ```
/// let r = lethe::roc::roc(&[3.0, 2.0, 4.0], &[1.0, 2.5, 0.0]).unwrap();
/// let d = lethe::delong::delong(&r, 0.05).unwrap();
/// assert!((d.auc - 8.0 / 9.0).abs() < 1e-15);
/// assert!(d.interval.lo < d.auc && d.auc <= d.interval.hi);
/// ```
pub fn delong(r: &Roc, alpha: f64) -> Result<DeLong> {
    crate::check::unit_open("alpha", alpha)?;
    for (name, n) in [("members", r.n_members), ("non_members", r.n_non_members)] {
        if n < 2 {
            return Err(Error::TooSmall {
                input: name.into(),
                got: n as usize,
                need: 2,
                unit: "scores",
                procedure: "DeLong's interval",
            });
        }
    }
    let (n1, n0) = (r.n_members as f64, r.n_non_members as f64);
    let auc = crate::roc::summary(r).auc;
    let (mut s10, mut s01) = (0.0f64, 0.0f64);
    for k in 1..r.tp.len() {
        let dtp = (r.tp[k] - r.tp[k - 1]) as f64;
        let dfp = (r.fp[k] - r.fp[k - 1]) as f64;
        if dtp > 0.0 {
            // Non-members strictly below this group, plus half the tied ones.
            let below = (r.n_non_members - r.fp[k]) as f64 + dfp / 2.0;
            let d = below / n0 - auc;
            s10 += dtp * d * d;
        }
        if dfp > 0.0 {
            // Members strictly above, plus half the tied ones.
            let above = r.tp[k - 1] as f64 + dtp / 2.0;
            let d = above / n1 - auc;
            s01 += dfp * d * d;
        }
    }
    let variance = s10 / (n1 - 1.0) / n1 + s01 / (n0 - 1.0) / n0;
    let se = variance.sqrt();
    let z = z_upper(alpha / 2.0);
    Ok(DeLong {
        auc,
        variance,
        standard_error: se,
        interval: Interval {
            lo: (auc - z * se).max(0.0),
            hi: (auc + z * se).min(1.0),
        },
        alpha,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The O(n₁n₀) definition.
    fn brute(x: &[f64], y: &[f64]) -> f64 {
        let psi = |a: f64, b: f64| {
            if a > b {
                1.0
            } else if a == b {
                0.5
            } else {
                0.0
            }
        };
        let (n1, n0) = (x.len() as f64, y.len() as f64);
        let v10: Vec<f64> = x
            .iter()
            .map(|&a| y.iter().map(|&b| psi(a, b)).sum::<f64>() / n0)
            .collect();
        let v01: Vec<f64> = y
            .iter()
            .map(|&b| x.iter().map(|&a| psi(a, b)).sum::<f64>() / n1)
            .collect();
        let auc = v10.iter().sum::<f64>() / n1;
        let s10 = v10.iter().map(|v| (v - auc).powi(2)).sum::<f64>() / (n1 - 1.0);
        let s01 = v01.iter().map(|v| (v - auc).powi(2)).sum::<f64>() / (n0 - 1.0);
        s10 / n1 + s01 / n0
    }

    #[test]
    fn variance_equals_the_definition_with_ties() {
        let x = [3.0, 2.0, 2.0, 5.0, 1.0, 2.0, 7.0];
        let y = [1.0, 2.0, 0.0, 4.0, 2.0];
        let d = delong(&crate::roc::roc(&x, &y).unwrap(), 0.05).unwrap();
        assert!(
            (d.variance - brute(&x, &y)).abs() < 1e-15,
            "{} vs {}",
            d.variance,
            brute(&x, &y)
        );
        assert!((z_upper(0.025) - 1.959_963_984_540_054).abs() < 1e-13);
    }

    #[test]
    fn one_score_of_a_class_is_too_few() {
        let r = crate::roc::roc(&[1.0], &[0.0, 2.0]).unwrap();
        assert!(delong(&r, 0.05).unwrap_err().to_string().contains("members"));
    }
}
