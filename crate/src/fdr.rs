//! Every field of statsmodels' `multipletests` (statsmodels 0.15.0) for Benjamini–Hochberg, Holm and Bonferroni:
//! `reject` and `pvals_corrected` from [`crate::multiple_testing`], and the corrected levels statsmodels returns
//! beside them,
//!
//! ```text
//! alphacSidak = 1 − (1 − α)^(1/m)      alphacBonf = α / m
//! ```
//!
//! (`m` p-values), computed with the same float operations as `multipletests`.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::multiple_testing::{self, Correction};

/// statsmodels `multipletests(p, alpha, method)`'s return value, field by field.
#[derive(Debug, Clone, Serialize)]
pub struct MultipleTests {
    /// statsmodels' name of the method: `fdr_bh`, `holm` or `bonferroni`.
    pub method: &'static str,
    #[serde(serialize_with = "crate::json::f64")]
    pub alpha: f64,
    /// `true` where the hypothesis is rejected at `alpha` (input order).
    pub reject: Vec<bool>,
    /// Adjusted p-values (input order), capped at 1.
    #[serde(serialize_with = "crate::json::vec_f64")]
    pub pvals_corrected: Vec<f64>,
    /// `1 − (1 − α)^(1/m)`: the Šidák-corrected level.
    #[serde(rename = "alphacSidak", serialize_with = "crate::json::f64")]
    pub alphac_sidak: f64,
    /// `α / m`: the Bonferroni-corrected level.
    #[serde(rename = "alphacBonf", serialize_with = "crate::json::f64")]
    pub alphac_bonf: f64,
}

/// statsmodels' method name of a correction.
pub fn method_name(c: Correction) -> &'static str {
    match c {
        Correction::BenjaminiHochberg => "fdr_bh",
        Correction::Holm => "holm",
        Correction::Bonferroni => "bonferroni",
    }
}

/// A correction from statsmodels' method name (`fdr_bh`, `holm`, `bonferroni`; `bh` is taken for `fdr_bh`).
///
/// # Errors
/// [`Error::InvalidParameter`] for other names.
pub fn parse_method(s: &str) -> Result<Correction> {
    match s {
        "fdr_bh" | "bh" => Ok(Correction::BenjaminiHochberg),
        "holm" => Ok(Correction::Holm),
        "bonferroni" => Ok(Correction::Bonferroni),
        other => Err(Error::param("method", other, "one of fdr_bh, holm, bonferroni")),
    }
}

/// `multipletests(p, alpha, method)`.
///
/// # Errors
/// No p-values ([`Error::Empty`]: statsmodels would divide by zero), a p-value outside `[0, 1]` or NaN, `alpha ∉
/// (0, 1)` (as [`crate::multiple_testing`]).
///
/// # Examples
/// ```
/// use lethe::multiple_testing::Correction;
/// let r = lethe::fdr::multipletests(&[0.01, 0.04, 0.03], 0.05, Correction::Holm).unwrap();
/// assert_eq!(r.reject, vec![true, false, false]);
/// assert!((r.alphac_bonf - 0.05 / 3.0).abs() < 1e-18);
/// assert!((r.alphac_sidak - (1.0 - 0.95f64.powf(1.0 / 3.0))).abs() < 1e-18);
/// ```
pub fn multipletests(p: &[f64], alpha: f64, method: Correction) -> Result<MultipleTests> {
    if p.is_empty() {
        return Err(Error::Empty {
            input: "p".into(),
            fix: "give at least one p-value".into(),
        });
    }
    let r = match method {
        Correction::BenjaminiHochberg => multiple_testing::benjamini_hochberg(p, alpha)?,
        Correction::Holm => multiple_testing::holm(p, alpha)?,
        Correction::Bonferroni => multiple_testing::bonferroni(p, alpha)?,
    };
    let m = p.len() as f64;
    Ok(MultipleTests {
        method: method_name(method),
        alpha,
        reject: r.reject,
        pvals_corrected: r.p_adjusted,
        alphac_sidak: 1.0 - (1.0 - alpha).powf(1.0 / m),
        alphac_bonf: alpha / m,
    })
}
