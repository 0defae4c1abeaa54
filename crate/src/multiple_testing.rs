//! Multiple-testing corrections, as `statsmodels.stats.multitest.multipletests` (statsmodels 0.15.0).
//!
//! For `m` p-values sorted ascending, `p₍₁₎ ≤ … ≤ p₍ₘ₎`:
//!
//! * **Benjamini–Hochberg** (`fdr_bh`, FDR control under independence or positive dependence): reject
//!   `H₍₁₎ … H₍ₖ₎` for the largest `k` with `p₍ₖ₎ ≤ (k/m)·α`; adjusted `p̃₍ᵢ₎ = min_{j ≥ i} p₍ⱼ₎ / (j/m)`,
//!   capped at 1.
//! * **Holm** (step-down FWER): reject while `p₍ᵢ₎ ≤ α/(m − i + 1)`; adjusted
//!   `p̃₍ᵢ₎ = max_{j ≤ i} (m − j + 1)·p₍ⱼ₎`, capped at 1.
//! * **Bonferroni**: reject `p ≤ α/m`; adjusted `min(1, m·p)`.
//!
//! Results are returned in the input order. The float operations follow statsmodels' (e.g. BH divides by
//! `(i/m)` rather than multiplying by `m/i`), so adjusted p-values agree to the last bit.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Which correction produced a [`MultipleTestResult`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Correction {
    /// statsmodels `fdr_bh`.
    BenjaminiHochberg,
    /// statsmodels `holm`.
    Holm,
    /// statsmodels `bonferroni`.
    Bonferroni,
}

/// Rejections and adjusted p-values, in the input order.
#[derive(Debug, Clone, Serialize)]
pub struct MultipleTestResult {
    /// `true` where the null hypothesis is rejected at level `alpha`.
    pub reject: Vec<bool>,
    /// Adjusted p-values (capped at 1), comparable with `alpha` directly.
    pub p_adjusted: Vec<f64>,
    /// The level used.
    pub alpha: f64,
    /// The correction applied.
    pub correction: Correction,
}

/// The Benjamini–Hochberg result (the brief's name for [`MultipleTestResult`]).
pub type BhResult = MultipleTestResult;

/// Benjamini–Hochberg FDR control, as `multipletests(p, alpha, method="fdr_bh")`.
///
/// Ties in `p` receive equal adjusted values and equal decisions, whatever their order. An empty input gives an
/// empty result, as statsmodels.
///
/// # Errors
/// * [`Error::OutOfDomain`] naming `p` and the position of a value outside `[0, 1]` or NaN (statsmodels does
///   not check).
/// * [`Error::InvalidParameter`] if `alpha ∉ (0, 1)`.
///
/// # Examples
/// ```
/// let r = lethe::multiple_testing::benjamini_hochberg(&[0.01, 0.04, 0.03, 0.5], 0.05).unwrap();
/// // Sorted 0.01, 0.03, 0.04, 0.5: raw p/(i/m) = 0.04, 0.06, 0.0533, 0.5; running minimum from the top
/// // gives 0.04, 0.0533, 0.0533, 0.5. Only 0.01 ≤ (1/4)·0.05.
/// assert_eq!(r.reject, vec![true, false, false, false]);
/// assert!((r.p_adjusted[0] - 0.04).abs() < 1e-15);
/// assert!((r.p_adjusted[1] - 0.04 / 0.75).abs() < 1e-15);
/// ```
pub fn benjamini_hochberg(p: &[f64], alpha: f64) -> Result<BhResult> {
    let (order, sorted) = prepare(p, alpha)?;
    let m = sorted.len();
    let mf = m as f64;
    // statsmodels' _ecdf: arange(1, m + 1) / m.
    let ecdf: Vec<f64> = (1..=m).map(|i| i as f64 / mf).collect();
    let mut reject: Vec<bool> = sorted.iter().zip(&ecdf).map(|(&p, &f)| p <= f * alpha).collect();
    if let Some(last) = reject.iter().rposition(|&r| r) {
        reject[..last].iter_mut().for_each(|r| *r = true);
    }
    let mut adjusted: Vec<f64> = sorted.iter().zip(&ecdf).map(|(&p, &f)| p / f).collect();
    for i in (0..m.saturating_sub(1)).rev() {
        adjusted[i] = adjusted[i].min(adjusted[i + 1]);
    }
    Ok(finish(order, reject, adjusted, alpha, Correction::BenjaminiHochberg))
}

/// Holm's step-down correction, as `multipletests(p, alpha, method="holm")`.
///
/// # Errors
/// As [`benjamini_hochberg`].
///
/// # Examples
/// ```
/// let r = lethe::multiple_testing::holm(&[0.01, 0.04, 0.03], 0.05).unwrap();
/// assert_eq!(r.reject, vec![true, false, false]);
/// // 3·0.01, then max(3·0.01, 2·0.03) for both larger values.
/// for (got, want) in r.p_adjusted.iter().zip([0.03, 0.06, 0.06]) {
///     assert!((got - want).abs() < 1e-15);
/// }
/// ```
pub fn holm(p: &[f64], alpha: f64) -> Result<MultipleTestResult> {
    let (order, sorted) = prepare(p, alpha)?;
    let m = sorted.len();
    let steps: Vec<f64> = (0..m).map(|i| (m - i) as f64).collect();
    let first_kept = sorted
        .iter()
        .zip(&steps)
        .position(|(&p, &k)| p > alpha / k)
        .unwrap_or(m);
    let reject: Vec<bool> = (0..m).map(|i| i < first_kept).collect();
    let mut adjusted: Vec<f64> = sorted.iter().zip(&steps).map(|(&p, &k)| p * k).collect();
    for i in 1..m {
        adjusted[i] = adjusted[i].max(adjusted[i - 1]);
    }
    Ok(finish(order, reject, adjusted, alpha, Correction::Holm))
}

/// Bonferroni correction, as `multipletests(p, alpha, method="bonferroni")`.
///
/// # Errors
/// As [`benjamini_hochberg`].
///
/// # Examples
/// ```
/// let r = lethe::multiple_testing::bonferroni(&[0.01, 0.04], 0.05).unwrap();
/// assert_eq!(r.reject, vec![true, false]);
/// assert_eq!(r.p_adjusted, vec![0.02, 0.08]);
/// ```
pub fn bonferroni(p: &[f64], alpha: f64) -> Result<MultipleTestResult> {
    let (order, sorted) = prepare(p, alpha)?;
    let mf = sorted.len() as f64;
    let reject = sorted.iter().map(|&p| p <= alpha / mf).collect();
    let adjusted = sorted.iter().map(|&p| p * mf).collect();
    Ok(finish(order, reject, adjusted, alpha, Correction::Bonferroni))
}

/// Validates, then sorts ascending (stable; statsmodels' argsort order among ties does not change any output).
fn prepare(p: &[f64], alpha: f64) -> Result<(Vec<usize>, Vec<f64>)> {
    crate::check::unit_open("alpha", alpha)?;
    if let Some(i) = p.iter().position(|v| !(0.0..=1.0).contains(v)) {
        return Err(Error::OutOfDomain {
            input: "p".into(),
            value: p[i],
            location: format!("position {i}"),
            domain: "[0, 1] (p-values; NaN is not allowed)",
        });
    }
    let mut order: Vec<usize> = (0..p.len()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let sorted = order.iter().map(|&i| p[i]).collect();
    Ok((order, sorted))
}

/// Caps at 1 and scatters back to the input order.
fn finish(
    order: Vec<usize>,
    reject_sorted: Vec<bool>,
    adjusted_sorted: Vec<f64>,
    alpha: f64,
    correction: Correction,
) -> MultipleTestResult {
    let m = order.len();
    let mut reject = vec![false; m];
    let mut p_adjusted = vec![0.0; m];
    for ((&i, r), a) in order.iter().zip(reject_sorted).zip(adjusted_sorted) {
        reject[i] = r;
        p_adjusted[i] = a.min(1.0);
    }
    MultipleTestResult {
        reject,
        p_adjusted,
        alpha,
        correction,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_gives_empty_result() {
        let r = benjamini_hochberg(&[], 0.05).expect("empty is fine");
        assert!(r.reject.is_empty() && r.p_adjusted.is_empty());
        assert!(holm(&[], 0.05).expect("empty").reject.is_empty());
    }

    #[test]
    fn bad_p_values_are_named_errors() {
        for bad in [f64::NAN, -0.1, 1.5] {
            let e = benjamini_hochberg(&[0.1, bad], 0.05).expect_err("must fail");
            assert!(
                e.to_string().contains("`p`") && e.to_string().contains("position 1"),
                "{e}"
            );
        }
        assert!(benjamini_hochberg(&[0.1], 0.0).is_err());
        assert!(benjamini_hochberg(&[0.1], 1.0).is_err());
    }

    #[test]
    fn holm_caps_and_is_monotone() {
        let r = holm(&[0.9, 0.5, 0.01], 0.05).expect("valid");
        assert_eq!(&r.p_adjusted[..2], &[1.0, 1.0]);
        assert!((r.p_adjusted[2] - 0.03).abs() < 1e-15);
    }
}
