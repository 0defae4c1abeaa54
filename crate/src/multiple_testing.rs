//! Multiple-testing corrections, as `statsmodels.stats.multitest.multipletests` (statsmodels 0.15.0, its default
//! `maxiter=1`), every method but `fdr_gbs` and `lfdr`.
//!
//! For `m` p-values sorted ascending, `p₍₁₎ ≤ … ≤ p₍ₘ₎`, and level `α`:
//!
//! * **Bonferroni** (`bonferroni`, FWER under any dependence): reject `p ≤ α/m`; adjusted `min(1, m·p)`.
//! * **Šidák** (`sidak`, FWER under independence): reject `p ≤ 1 − (1 − α)^(1/m)`; adjusted `1 − (1 − p)^m`,
//!   computed as `−expm1(m·log1p(−p))`.
//! * **Holm** (`holm`, step-down FWER): reject while `p₍ᵢ₎ ≤ α/(m − i + 1)`; adjusted
//!   `p̃₍ᵢ₎ = max_{j ≤ i} (m − j + 1)·p₍ⱼ₎`, capped at 1.
//! * **Holm–Šidák** (`holm-sidak`): reject while `p₍ᵢ₎ ≤ 1 − (1 − α)^(1/(m − i + 1))`; adjusted
//!   `max_{j ≤ i} 1 − (1 − p₍ⱼ₎)^(m − j + 1)` (as `−expm1(k·log1p(−p))`).
//! * **Simes–Hochberg** (`simes-hochberg`, step-up FWER under independence or positive dependence): reject
//!   `H₍₁₎ … H₍ₖ₎` for the largest `k` with `p₍ₖ₎ ≤ α/(m − k + 1)`; adjusted `min_{j ≥ i} (m − j + 1)·p₍ⱼ₎`.
//! * **Hommel** (`hommel`, closed testing with Simes tests): statsmodels' loop over subset sizes `k = m … 2`:
//!   `c_k = min_{j ≤ k} k·p₍ₘ₋ₖ₊ⱼ₎/j`; the last `k` adjusted values rise to at least `c_k`, the others to at least
//!   `min(k·p, c_k)`; reject adjusted `≤ α`. It takes `m²` steps, checked against [`crate::check::limits`].
//! * **Benjamini–Hochberg** (`fdr_bh`, FDR under independence or positive dependence): reject
//!   `H₍₁₎ … H₍ₖ₎` for the largest `k` with `p₍ₖ₎ ≤ (k/m)·α`; adjusted `p̃₍ᵢ₎ = min_{j ≥ i} p₍ⱼ₎ / (j/m)`,
//!   capped at 1.
//! * **Benjamini–Yekutieli** (`fdr_by`, FDR under any dependence): Benjamini–Hochberg with `(k/m)/c(m)`,
//!   `c(m) = Σ_{j ≤ m} 1/j` (numpy's pairwise sum, [`crate::numpy::sum`]).
//! * **Two-stage Benjamini–Hochberg** (`fdr_tsbh`) and **Benjamini–Krieger–Yekutieli** (`fdr_tsbky`, Definition 6
//!   of their 2006 paper), FDR under independence, adaptive: a first Benjamini–Hochberg pass at `α′` (`α` for
//!   `fdr_tsbh`, `α/(1 + α)` for `fdr_tsbky`) rejects `r₁`; if `0 < r₁ < m`, a second pass at
//!   `α* = α′·m/m₀` with `m₀ = m − r₁` decides, and the adjusted values are the second pass's (capped at 1) times
//!   `m₀/m` (and `1 + α` for `fdr_tsbky`); otherwise the first pass decides and its adjusted values are multiplied
//!   by `1 + α` (`fdr_tsbky`) or 1. These adjusted values depend on `α`; compare them with that `α` only.
//!
//! Results are returned in the input order. The float operations follow statsmodels' (e.g. BH divides by
//! `(i/m)` rather than multiplying by `m/i`, Hommel computes `(k·p)/j`), so adjusted p-values agree to the last
//! bit wherever the platform's `pow`, `log1p` and `expm1` round as numpy's do (`tests/fixtures/golden_mia`).

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
    /// statsmodels `sidak`.
    Sidak,
    /// statsmodels `holm-sidak`.
    HolmSidak,
    /// statsmodels `simes-hochberg`.
    SimesHochberg,
    /// statsmodels `hommel`.
    Hommel,
    /// statsmodels `fdr_by`.
    BenjaminiYekutieli,
    /// statsmodels `fdr_tsbh`.
    TwoStageBenjaminiHochberg,
    /// statsmodels `fdr_tsbky`.
    TwoStageBenjaminiKriegerYekutieli,
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
    let (reject, adjusted) = step_up(&sorted, &ecdf(sorted.len()), alpha);
    Ok(finish(order, reject, adjusted, alpha, Correction::BenjaminiHochberg))
}

/// Benjamini–Yekutieli FDR control under any dependence, as `multipletests(p, alpha, method="fdr_by")`:
/// Benjamini–Hochberg with every level divided by `Σ_{j ≤ m} 1/j`.
///
/// # Errors
/// As [`benjamini_hochberg`].
///
/// # Examples
/// ```
/// let r = lethe::multiple_testing::benjamini_yekutieli(&[0.01, 0.04, 0.03, 0.5], 0.05).unwrap();
/// // c(4) = 1 + 1/2 + 1/3 + 1/4 = 25/12; 0.01 > (1/4)·0.05/c(4) = 0.006: nothing is rejected.
/// assert_eq!(r.reject, vec![false; 4]);
/// assert!((r.p_adjusted[0] - 0.04 * 25.0 / 12.0).abs() < 1e-15);
/// ```
pub fn benjamini_yekutieli(p: &[f64], alpha: f64) -> Result<MultipleTestResult> {
    let (order, sorted) = prepare(p, alpha)?;
    let m = sorted.len();
    // statsmodels: cm = np.sum(1.0 / np.arange(1, m + 1)); ecdffactor = _ecdf(p) / cm.
    let harmonic: Vec<f64> = (1..=m).map(|j| 1.0 / j as f64).collect();
    let cm = crate::numpy::sum(&harmonic);
    let factor: Vec<f64> = ecdf(m).into_iter().map(|f| f / cm).collect();
    let (reject, adjusted) = step_up(&sorted, &factor, alpha);
    Ok(finish(order, reject, adjusted, alpha, Correction::BenjaminiYekutieli))
}

/// The two-stage adaptive FDR procedures, as `multipletests(p, alpha, method="fdr_tsbh")` (`bky` false) and
/// `method="fdr_tsbky"` (`bky` true) with statsmodels' default `maxiter=1` (`fdrcorrection_twostage`).
///
/// The adjusted p-values are scaled by the estimated share of true nulls, so they belong to this `alpha`: compare
/// them with it, not with another level.
///
/// # Errors
/// As [`benjamini_hochberg`].
///
/// # Examples
/// ```
/// let p = [0.001, 0.002, 0.003, 0.2, 0.6, 0.9];
/// let bh = lethe::multiple_testing::benjamini_hochberg(&p, 0.05).unwrap();
/// let ts = lethe::multiple_testing::two_stage(&p, 0.05, false).unwrap();
/// // The first pass rejects 3 of 6: the second runs at 0.05·6/3 and scales the adjusted values by 3/6.
/// assert_eq!(ts.reject, bh.reject);
/// assert!((ts.p_adjusted[0] - bh.p_adjusted[0] * 0.5).abs() < 1e-18);
/// ```
pub fn two_stage(p: &[f64], alpha: f64, bky: bool) -> Result<MultipleTestResult> {
    let (order, sorted) = prepare(p, alpha)?;
    let m = sorted.len();
    let ecdf = ecdf(m);
    let (fact, alpha_prime) = if bky {
        (1.0 + alpha, alpha / (1.0 + alpha))
    } else {
        (1.0, alpha)
    };
    let (reject1, mut adjusted1) = step_up(&sorted, &ecdf, alpha_prime);
    cap(&mut adjusted1);
    let r1 = reject1.iter().filter(|&&r| r).count();
    let (reject, adjusted) = if r1 == 0 || r1 == m {
        adjusted1.iter_mut().for_each(|a| *a *= fact);
        (reject1, adjusted1)
    } else {
        let m0 = m as f64 - r1 as f64;
        let alpha_star = alpha_prime * m as f64 / m0;
        let (reject2, mut adjusted2) = step_up(&sorted, &ecdf, alpha_star);
        cap(&mut adjusted2);
        let share = m0 / m as f64;
        for a in &mut adjusted2 {
            *a *= share;
            if bky {
                *a *= 1.0 + alpha;
            }
        }
        (reject2, adjusted2)
    };
    let correction = if bky {
        Correction::TwoStageBenjaminiKriegerYekutieli
    } else {
        Correction::TwoStageBenjaminiHochberg
    };
    Ok(finish(order, reject, adjusted, alpha, correction))
}

/// statsmodels' `_ecdf`: `arange(1, m + 1) / m`.
fn ecdf(m: usize) -> Vec<f64> {
    let mf = m as f64;
    (1..=m).map(|i| i as f64 / mf).collect()
}

/// statsmodels' `fdrcorrection` on sorted p-values with level factors `factor` (`ecdffactor`): reject up to the
/// last `p₍ᵢ₎ ≤ factor[i]·α`; adjusted `min_{j ≥ i} p₍ⱼ₎ / factor[j]` (not capped).
fn step_up(sorted: &[f64], factor: &[f64], alpha: f64) -> (Vec<bool>, Vec<f64>) {
    let m = sorted.len();
    let mut reject: Vec<bool> = sorted.iter().zip(factor).map(|(&p, &f)| p <= f * alpha).collect();
    if let Some(last) = reject.iter().rposition(|&r| r) {
        reject[..last].iter_mut().for_each(|r| *r = true);
    }
    let mut adjusted: Vec<f64> = sorted.iter().zip(factor).map(|(&p, &f)| p / f).collect();
    for i in (0..m.saturating_sub(1)).rev() {
        adjusted[i] = adjusted[i].min(adjusted[i + 1]);
    }
    (reject, adjusted)
}

/// `x[x > 1] = 1`.
fn cap(x: &mut [f64]) {
    x.iter_mut().for_each(|a| *a = a.min(1.0));
}

/// statsmodels' step-down rejection: every hypothesis before the first `p₍ᵢ₎ > level[i]`.
fn step_down(sorted: &[f64], level: impl Iterator<Item = f64>) -> Vec<bool> {
    let m = sorted.len();
    let first_kept = sorted.iter().zip(level).position(|(&p, l)| p > l).unwrap_or(m);
    (0..m).map(|i| i < first_kept).collect()
}

/// `maximum.accumulate` in place.
fn running_max(x: &mut [f64]) {
    for i in 1..x.len() {
        x[i] = x[i].max(x[i - 1]);
    }
}

/// `1 − (1 − p)^k` as statsmodels computes it: `−expm1(k·log1p(−p))`.
fn sidak_adjust(p: f64, k: f64) -> f64 {
    -(k * (-p).ln_1p()).exp_m1()
}

/// `1 − (1 − α)^(1/k)` as statsmodels computes it.
fn sidak_level(alpha: f64, k: f64) -> f64 {
    1.0 - (1.0 - alpha).powf(1.0 / k)
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
    let reject = step_down(&sorted, steps.iter().map(|&k| alpha / k));
    let mut adjusted: Vec<f64> = sorted.iter().zip(&steps).map(|(&p, &k)| p * k).collect();
    running_max(&mut adjusted);
    Ok(finish(order, reject, adjusted, alpha, Correction::Holm))
}

/// Holm's step-down correction with Šidák's levels, as `multipletests(p, alpha, method="holm-sidak")`.
///
/// # Errors
/// As [`benjamini_hochberg`].
///
/// # Examples
/// ```
/// let r = lethe::multiple_testing::holm_sidak(&[0.01, 0.04, 0.03], 0.05).unwrap();
/// assert_eq!(r.reject, vec![true, false, false]);
/// // 1 − 0.99³, then max(…, 1 − 0.97²) for both larger values.
/// assert!((r.p_adjusted[0] - (1.0 - 0.99f64.powi(3))).abs() < 1e-15);
/// assert!((r.p_adjusted[1] - (1.0 - 0.97f64.powi(2))).abs() < 1e-15);
/// ```
pub fn holm_sidak(p: &[f64], alpha: f64) -> Result<MultipleTestResult> {
    let (order, sorted) = prepare(p, alpha)?;
    let m = sorted.len();
    let steps: Vec<f64> = (0..m).map(|i| (m - i) as f64).collect();
    let reject = step_down(&sorted, steps.iter().map(|&k| sidak_level(alpha, k)));
    let mut adjusted: Vec<f64> = sorted.iter().zip(&steps).map(|(&p, &k)| sidak_adjust(p, k)).collect();
    running_max(&mut adjusted);
    Ok(finish(order, reject, adjusted, alpha, Correction::HolmSidak))
}

/// Hochberg's step-up correction (Simes' levels), as `multipletests(p, alpha, method="simes-hochberg")`.
///
/// # Errors
/// As [`benjamini_hochberg`].
///
/// # Examples
/// ```
/// let r = lethe::multiple_testing::simes_hochberg(&[0.01, 0.04, 0.03], 0.05).unwrap();
/// // 0.04 ≤ 0.05/1: the largest p-value is rejected, so every one is.
/// assert_eq!(r.reject, vec![true, true, true]);
/// for (got, want) in r.p_adjusted.iter().zip([0.03, 0.04, 0.04]) {
///     assert!((got - want).abs() < 1e-15);
/// }
/// ```
pub fn simes_hochberg(p: &[f64], alpha: f64) -> Result<MultipleTestResult> {
    let (order, sorted) = prepare(p, alpha)?;
    let m = sorted.len();
    let steps: Vec<f64> = (0..m).map(|i| (m - i) as f64).collect();
    let mut reject: Vec<bool> = sorted.iter().zip(&steps).map(|(&p, &k)| p <= alpha / k).collect();
    if let Some(last) = reject.iter().rposition(|&r| r) {
        reject[..last].iter_mut().for_each(|r| *r = true);
    }
    let mut adjusted: Vec<f64> = sorted.iter().zip(&steps).map(|(&p, &k)| k * p).collect();
    for i in (0..m.saturating_sub(1)).rev() {
        adjusted[i] = adjusted[i].min(adjusted[i + 1]);
    }
    Ok(finish(order, reject, adjusted, alpha, Correction::SimesHochberg))
}

/// Hommel's closed Simes procedure, as `multipletests(p, alpha, method="hommel")` (statsmodels' `O(m²)` loop,
/// the same float operations).
///
/// # Errors
/// As [`benjamini_hochberg`]; [`Error::TooLarge`] naming `p` when its `m²` steps exceed what one computation may
/// take ([`crate::check::limits`]).
///
/// # Examples
/// ```
/// let r = lethe::multiple_testing::hommel(&[0.01, 0.04, 0.03], 0.05).unwrap();
/// assert_eq!(r.reject, vec![true, true, true]);
/// for (got, want) in r.p_adjusted.iter().zip([0.03, 0.04, 0.04]) {
///     assert!((got - want).abs() < 1e-15);
/// }
/// ```
pub fn hommel(p: &[f64], alpha: f64) -> Result<MultipleTestResult> {
    hommel_budget(p.len()).check()?;
    let (order, sorted) = prepare(p, alpha)?;
    let n = sorted.len();
    let mut a = sorted.clone();
    for k in (2..=n).rev() {
        let kf = k as f64;
        let (head, tail) = sorted.split_at(n - k);
        // cim = np.min(m * pvals[-m:] / np.arange(1, m + 1.0))
        let cim = tail
            .iter()
            .enumerate()
            .map(|(j, &p)| kf * p / (j + 1) as f64)
            .fold(f64::INFINITY, f64::min);
        let (a_head, a_tail) = a.split_at_mut(n - k);
        a_tail.iter_mut().for_each(|x| *x = x.max(cim));
        for (x, &p) in a_head.iter_mut().zip(head) {
            *x = x.max((kf * p).min(cim));
        }
    }
    let reject = a.iter().map(|&x| x <= alpha).collect();
    Ok(finish(order, reject, a, alpha, Correction::Hommel))
}

/// What [`hommel`] on `m` p-values needs: its sorted copy, the adjusted values and the order (24 bytes a value),
/// and `1.5·m²` steps (for each subset size `k`, `k` quotients for `c_k` and one update of all `m` values).
pub(crate) fn hommel_budget(m: usize) -> crate::check::Budget {
    let mut budget = crate::check::Budget::default();
    let square = crate::check::mul(m, m);
    budget.add(
        crate::check::Cause::input("p"),
        format!("Hommel's procedure on {m} p-values (its work grows as their number squared)"),
        crate::check::mul(m, 24),
        square.saturating_add(square / 2),
        "use Holm's or Hochberg's correction (`holm`, `simes-hochberg`), which take one pass, or fewer p-values",
    );
    budget
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

/// Šidák's one-step correction, as `multipletests(p, alpha, method="sidak")`.
///
/// # Errors
/// As [`benjamini_hochberg`].
///
/// # Examples
/// ```
/// let r = lethe::multiple_testing::sidak(&[0.01, 0.04], 0.05).unwrap();
/// // Level 1 − 0.95^(1/2) = 0.0253.
/// assert_eq!(r.reject, vec![true, false]);
/// assert!((r.p_adjusted[0] - (1.0 - 0.99f64 * 0.99)).abs() < 1e-15);
/// ```
pub fn sidak(p: &[f64], alpha: f64) -> Result<MultipleTestResult> {
    let (order, sorted) = prepare(p, alpha)?;
    let mf = sorted.len() as f64;
    let level = sidak_level(alpha, mf);
    let reject = sorted.iter().map(|&p| p <= level).collect();
    let adjusted = sorted.iter().map(|&p| sidak_adjust(p, mf)).collect();
    Ok(finish(order, reject, adjusted, alpha, Correction::Sidak))
}

/// The correction `c`, as `multipletests(p, alpha, method)`.
///
/// # Errors
/// As the correction's own function.
pub fn correct(p: &[f64], alpha: f64, c: Correction) -> Result<MultipleTestResult> {
    match c {
        Correction::BenjaminiHochberg => benjamini_hochberg(p, alpha),
        Correction::Holm => holm(p, alpha),
        Correction::Bonferroni => bonferroni(p, alpha),
        Correction::Sidak => sidak(p, alpha),
        Correction::HolmSidak => holm_sidak(p, alpha),
        Correction::SimesHochberg => simes_hochberg(p, alpha),
        Correction::Hommel => hommel(p, alpha),
        Correction::BenjaminiYekutieli => benjamini_yekutieli(p, alpha),
        Correction::TwoStageBenjaminiHochberg => two_stage(p, alpha, false),
        Correction::TwoStageBenjaminiKriegerYekutieli => two_stage(p, alpha, true),
    }
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
                crate::words::cli(&e.to_string()).contains("`p`") && e.to_string().contains("position 1"),
                "{e}"
            );
        }
        assert!(benjamini_hochberg(&[0.1], 0.0).is_err());
        assert!(benjamini_hochberg(&[0.1], 1.0).is_err());
    }

    /// Hommel's m² steps are counted before it starts (1.5·m²: 9.6e5 for 800 p-values, 1.5e6 for 1000).
    #[test]
    fn hommel_refuses_work_past_the_limit_naming_the_fix() {
        let small = crate::check::Limits {
            memory: 1 << 30,
            memory_source: "a test".into(),
            work: 1_000_000,
            work_source: "a test".into(),
        };
        hommel_budget(800).check_within(&small).expect("fits");
        let e = hommel_budget(1000).check_within(&small).unwrap_err().to_string();
        let e = crate::words::cli(&e);
        assert!(
            e.starts_with("input `p` is too large: Hommel's procedure on 1000 p-values"),
            "{e}"
        );
        assert!(e.contains("use Holm's or Hochberg's correction"), "{e}");
    }

    /// The two-stage methods' branches: nothing or everything rejected at the first stage (its adjusted values,
    /// times 1 + α for BKY), or a second stage (scaled by m₀/m).
    #[test]
    fn two_stage_takes_statsmodels_branches() {
        let none = [0.5, 0.9];
        let bh = benjamini_hochberg(&none, 0.05).unwrap();
        let bky = two_stage(&none, 0.05, true).unwrap();
        assert_eq!(bky.reject, vec![false, false]);
        assert_eq!(bky.p_adjusted, vec![(0.9 * 1.05f64).min(1.0), (0.9 * 1.05f64).min(1.0)]);
        assert_eq!(two_stage(&none, 0.05, false).unwrap().p_adjusted, bh.p_adjusted);
        let some = [0.001, 0.002, 0.04, 0.6];
        let bh = benjamini_hochberg(&some, 0.05).unwrap();
        let ts = two_stage(&some, 0.05, false).unwrap();
        // First stage rejects 2 of 4; the second runs at 0.05·4/2 = 0.1: 0.04 ≤ (3/4)·0.1 joins.
        assert_eq!(bh.reject, vec![true, true, false, false]);
        assert_eq!(ts.reject, vec![true, true, true, false]);
        assert_eq!(ts.p_adjusted[2], bh.p_adjusted[2] * (2.0 / 4.0));
    }

    #[test]
    fn holm_caps_and_is_monotone() {
        let r = holm(&[0.9, 0.5, 0.01], 0.05).expect("valid");
        assert_eq!(&r.p_adjusted[..2], &[1.0, 1.0]);
        assert!((r.p_adjusted[2] - 0.03).abs() < 1e-15);
    }
}
