//! Every field of statsmodels' `multipletests` (statsmodels 0.15.0) for its methods `bonferroni`, `sidak`,
//! `holm-sidak`, `holm`, `simes-hochberg`, `hommel`, `fdr_bh`, `fdr_by`, `fdr_tsbh` and `fdr_tsbky` (all but
//! `fdr_gbs` and `lfdr`): `reject` and `pvals_corrected` from [`crate::multiple_testing`], and the corrected levels
//! statsmodels returns beside them,
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
    /// statsmodels' name of the method ([`METHODS`]).
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

/// statsmodels' name of each correction, in the order statsmodels' documentation lists them.
pub const METHODS: [(&str, Correction); 10] = [
    ("bonferroni", Correction::Bonferroni),
    ("sidak", Correction::Sidak),
    ("holm-sidak", Correction::HolmSidak),
    ("holm", Correction::Holm),
    ("simes-hochberg", Correction::SimesHochberg),
    ("hommel", Correction::Hommel),
    ("fdr_bh", Correction::BenjaminiHochberg),
    ("fdr_by", Correction::BenjaminiYekutieli),
    ("fdr_tsbh", Correction::TwoStageBenjaminiHochberg),
    ("fdr_tsbky", Correction::TwoStageBenjaminiKriegerYekutieli),
];

/// statsmodels' other names for the methods (`multitest_alias`), and `bh` for `fdr_bh`.
const ALIASES: [(&str, &str); 19] = [
    ("b", "bonferroni"),
    ("bonf", "bonferroni"),
    ("s", "sidak"),
    ("h", "holm"),
    ("hs", "holm-sidak"),
    ("sh", "simes-hochberg"),
    ("ho", "hommel"),
    ("bh", "fdr_bh"),
    ("fdr_i", "fdr_bh"),
    ("fdr_p", "fdr_bh"),
    ("fdri", "fdr_bh"),
    ("fdrp", "fdr_bh"),
    ("fdr_n", "fdr_by"),
    ("fdr_c", "fdr_by"),
    ("fdrn", "fdr_by"),
    ("fdrcorr", "fdr_by"),
    ("fdr_2sbh", "fdr_tsbh"),
    ("fdr_2sbky", "fdr_tsbky"),
    ("fdr_twostage", "fdr_tsbky"),
];

/// statsmodels' method name of a correction.
pub fn method_name(c: Correction) -> &'static str {
    METHODS.iter().find(|(_, m)| *m == c).map_or("fdr_bh", |(name, _)| name)
}

/// A correction from statsmodels' method name or one of its aliases (`multitest_alias`: `b`, `bonf`, `s`, `h`,
/// `hs`, `sh`, `ho`, `fdr_i`, `fdr_n`, `fdr_2sbh`, `fdr_twostage`, …; `bh` is taken for `fdr_bh`), in any case,
/// as statsmodels.
///
/// # Errors
/// [`Error::InvalidParameter`] for other names, `fdr_gbs` and `lfdr` included (not ported).
///
/// # Examples
/// ```
/// use lethe::multiple_testing::Correction;
/// assert_eq!(lethe::fdr::parse_method("Holm-Sidak").unwrap(), Correction::HolmSidak);
/// assert_eq!(lethe::fdr::parse_method("fdr_twostage").unwrap(), Correction::TwoStageBenjaminiKriegerYekutieli);
/// assert!(lethe::fdr::parse_method("fdr_gbs").is_err());
/// ```
pub fn parse_method(s: &str) -> Result<Correction> {
    let lower = s.to_lowercase();
    let name = ALIASES
        .iter()
        .find(|(alias, _)| *alias == lower)
        .map_or(lower.as_str(), |(_, name)| name);
    METHODS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, c)| *c)
        .ok_or_else(|| {
            let names: Vec<&str> = METHODS.iter().map(|(n, _)| *n).collect();
            Error::param("method", s, format!("one of {}", names.join(", ")))
        })
}

/// `multipletests(p, alpha, method)`.
///
/// # Errors
/// No p-values ([`Error::Empty`]: statsmodels' corrected levels would be NaN), a p-value outside `[0, 1]` or NaN,
/// `alpha ∉ (0, 1)`, Hommel's work past the limits (as [`crate::multiple_testing`]).
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
    let r = multiple_testing::correct(p, alpha, method)?;
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
