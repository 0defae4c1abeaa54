//! The Mann–Whitney U test, as `scipy.stats.mannwhitneyu` (scipy 1.17.1).
//!
//! Pool `x` (size `n₁`) and `y` (size `n₂`), rank the pool with average ranks for ties, and let `R₁` be the rank
//! sum of `x`. Then
//!
//! ```text
//! U₁ = R₁ − n₁(n₁ + 1)/2          (U of x: the number of pairs with x > y, ties counting ½)
//! U₂ = n₁n₂ − U₁
//! ```
//!
//! The reported statistic is `U₁`, as scipy. The p-value refers `U = U₁` (`greater`), `U = U₂` (`less`) or
//! `U = max(U₁, U₂)` (`two-sided`, p doubled) to the upper tail of the null distribution, and is clipped to
//! `[0, 1]`:
//!
//! * **exact**: `P(U' ≥ ⌊U⌋)` under the permutation null without ties, whose counts are the coefficients of the
//!   Gaussian binomial `[n₁+n₂ choose n₁]_q = Π_{i=1}^{m} (1 − q^{n+i}) / (1 − q^i)` (`m = min(n₁,n₂)`,
//!   `n = max`). Lethe expands this product in exact wide-integer arithmetic, so the p-value is the exact
//!   rational rounded to `f64` (scipy uses a float recursion that is good to about `1e-13` relative). As in scipy,
//!   ties are ignored by the exact method and a half-integer `U` is truncated before the tail is taken.
//! * **asymptotic**: `z = (U − n₁n₂/2 − ½·[continuity]) / σ` with the tie-corrected
//!   `σ² = n₁n₂/12 · ((n + 1) − Σ(t³ − t)/(n(n − 1)))`, `n = n₁ + n₂`, and `p = Φ(−z)`.
//! * **auto** (scipy 1.17's `_mwu_choose_method`): asymptotic when both samples exceed 8 values, otherwise exact
//!   unless the pooled data contain ties. For the SDE shape (200 vs 200) auto is therefore asymptotic.
//!
//! The rank-biserial correlation for independent samples is `r = 2U₁/(n₁n₂) − 1` (positive when `x` tends to
//! exceed `y`).

use serde::Serialize;

use crate::error::{Error, Result};
use crate::numpy::sum as numpy_sum;
use crate::options::{Alternative, PValueMethod};
use crate::rank::{ndtr, rank_average, reject_nan, tie_correction_term};

/// Largest exact-distribution job accepted, in wide-integer limb operations (about half a second native, a few
/// times that in a browser): 200 × 200 needs ~3e7, the limit sits near 240 × 240 with `U ≈ n₁n₂/2`. (It was 5e8,
/// said to be half a second: measured, a job near it took 15 s in the fuzz smoke run's build, past its 10 s limit.)
const EXACT_WORK_LIMIT: u128 = 50_000_000;
/// Largest table (limbs) the exact distribution may allocate: 32 Mi limbs = 256 MiB.
const EXACT_MEMORY_LIMIT: u128 = 1 << 25;

/// Result of [`mann_whitney_u`].
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MannWhitneyResult {
    /// `U₁`, the U statistic of `x` (scipy's `statistic`).
    #[serde(serialize_with = "crate::json::f64")]
    pub statistic: f64,
    /// `U₂ = n₁n₂ − U₁`, the U statistic of `y`.
    pub u_y: f64,
    /// The p-value for `alternative`, clipped to `[0, 1]` as scipy. NaN (as scipy's) when every pooled value is
    /// tied and the continuity correction is off: written `null` in a report, with the core's warning.
    #[serde(serialize_with = "crate::json::finite")]
    pub p_value: f64,
    /// The standardised statistic referred to the normal (continuity-corrected when requested), present when the
    /// asymptotic method was used. It is built from the `U` the alternative uses (`U₁` for greater, `U₂` for less,
    /// `max(U₁, U₂)` for two-sided), so `p = Φ(−z)` (doubled for two-sided). scipy does not return it. When every
    /// pooled value is tied the normal approximation has zero variance and z is ±∞ or NaN (as scipy's): a report
    /// writes `null` there, with the core's warning, for it is no number a pipeline should read.
    #[serde(serialize_with = "crate::json::opt_finite")]
    pub z_statistic: Option<f64>,
    /// Method actually used (`Exact` or `Asymptotic`; `Auto` is resolved).
    pub method_used: PValueMethod,
    /// The alternative tested.
    pub alternative: Alternative,
    /// Rank-biserial correlation `2U₁/(n₁n₂) − 1`, in `[−1, 1]`.
    #[serde(serialize_with = "crate::json::f64")]
    pub rank_biserial: f64,
    /// Sizes of `x` and `y`.
    pub n_x: usize,
    pub n_y: usize,
    /// Whether the pooled sample contains ties.
    pub has_ties: bool,
    /// Partial problems worth telling the user about (e.g. an exact p-value computed despite ties).
    pub warnings: Vec<String>,
}

/// Mann–Whitney U test of `x` against `y`, exactly as `scipy.stats.mannwhitneyu(x, y, use_continuity,
/// alternative, method=...)` in scipy 1.17.1.
///
/// `alternative = Greater` tests whether `x` is stochastically larger than `y` (the SDE paper's one-sided test
/// `H(S_IT) > H(S_OOT)`). `method = Auto` follows scipy's rule (asymptotic when `min(n₁, n₂) > 8` or when there
/// are ties, otherwise exact); see the module documentation for the formulas. scipy's defaults are
/// `Alternative::TwoSided`, `PValueMethod::Auto`, `use_continuity = true`.
///
/// Deviations from scipy, all deliberate:
/// * NaN is an error (scipy raises too, or propagates under its axis/NaN policy); empty inputs are errors (scipy
///   raises). ±∞ are ranked like any value, as scipy.
/// * The exact distribution is computed in exact integer arithmetic, so it agrees with scipy to scipy's own float
///   error (≲ 2e-13 relative) and to within an ulp of the exact rational; it refuses (with an error) sizes whose
///   exact table would take more than about half a second or 256 MiB (around 400 × 400 when `U` is near
///   `n₁n₂/2`). The SDE's 200 × 200 takes ~60 ms in a release build.
/// * scipy's `PermutationMethod` is not offered.
///
/// # Errors
/// * [`Error::Empty`] if `x` or `y` is empty.
/// * [`Error::NonFinite`] naming `x` or `y` at the first NaN.
/// * [`Error::InvalidParameter`] (`method`) if an exact p-value is requested for samples too large to tabulate.
///
/// # Examples
/// ```
/// use lethe::{Alternative, PValueMethod};
/// use lethe::mann_whitney::mann_whitney_u;
///
/// // Every x exceeds every y: U₁ = n₁n₂ = 9, exact one-sided p = 1 / C(6, 3) = 0.05.
/// let r = mann_whitney_u(&[4.0, 5.0, 6.0], &[1.0, 2.0, 3.0], Alternative::Greater, PValueMethod::Auto, true)
///     .unwrap();
/// assert_eq!(r.statistic, 9.0);
/// assert_eq!(r.method_used, PValueMethod::Exact);
/// assert!((r.p_value - 0.05).abs() < 1e-15);
/// assert_eq!(r.rank_biserial, 1.0);
/// ```
pub fn mann_whitney_u(
    x: &[f64],
    y: &[f64],
    alternative: Alternative,
    method: PValueMethod,
    use_continuity: bool,
) -> Result<MannWhitneyResult> {
    for (name, s) in [("x", x), ("y", y)] {
        if s.is_empty() {
            return Err(Error::Empty {
                input: name.into(),
                fix: "the Mann–Whitney U test needs at least one value in each sample".into(),
            });
        }
        reject_nan(name, s)?;
    }
    let (n1, n2) = (x.len(), y.len());
    let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
    let ranked = rank_average(&pooled);
    let has_ties = ranked.has_ties();

    let (n1f, n2f) = (n1 as f64, n2 as f64);
    let r1 = numpy_sum(&ranked.ranks[..n1]);
    let u1 = r1 - n1f * (n1f + 1.0) / 2.0;
    let n1n2 = n1f * n2f;
    let u2 = n1n2 - u1;
    let (u, factor) = match alternative {
        Alternative::Greater => (u1, 1.0),
        Alternative::Less => (u2, 1.0),
        Alternative::TwoSided => (u1.max(u2), 2.0),
    };

    let method_used = match method {
        PValueMethod::Auto => {
            if (n1 > 8 && n2 > 8) || has_ties {
                PValueMethod::Asymptotic
            } else {
                PValueMethod::Exact
            }
        }
        m => m,
    };

    let mut warnings = Vec::new();
    let (p_one, z_statistic) = match method_used {
        PValueMethod::Exact => {
            if has_ties {
                warnings.push(
                    "the exact Mann–Whitney distribution assumes no ties, but the data contain ties; the p-value \
                     is approximate (scipy does the same; the asymptotic method corrects for ties)"
                        .into(),
                );
            }
            // scipy casts U to int64, truncating a tie-induced half.
            let k = u.trunc() as u64;
            (exact_sf(k, n1, n2)?, None)
        }
        _ => {
            let z = mwu_z(u, n1f, n2f, tie_correction_term(&ranked.tie_counts), use_continuity);
            if z.is_nan() || z.is_infinite() {
                warnings.push(
                    "all pooled values are tied, so the normal approximation has zero variance; the p-value is \
                     degenerate (as scipy's)"
                        .into(),
                );
            }
            (ndtr(-z), Some(z))
        }
    };
    let p_value = clip01(p_one * factor);

    Ok(MannWhitneyResult {
        statistic: u1,
        u_y: u2,
        p_value,
        z_statistic,
        method_used,
        alternative,
        rank_biserial: 2.0 * u1 / n1n2 - 1.0,
        n_x: n1,
        n_y: n2,
        has_ties,
        warnings,
    })
}

/// Rank-biserial correlation of two independent samples from `U₁`: `r = 2U₁/(n₁n₂) − 1`.
///
/// `r = 1` when every `x` exceeds every `y`, `−1` in the opposite case, 0 under perfect overlap.
///
/// # Errors
/// [`Error::InvalidParameter`] when `n_x` or `n_y` is zero, or `u_x` is outside `[0, n_x·n_y]`.
///
/// # Examples
/// ```
/// let r = lethe::mann_whitney::rank_biserial_from_u(15.0, 5, 7).unwrap();
/// assert!((r - (2.0 * 15.0 / 35.0 - 1.0)).abs() < 1e-15);
/// ```
pub fn rank_biserial_from_u(u_x: f64, n_x: usize, n_y: usize) -> Result<f64> {
    if n_x == 0 || n_y == 0 {
        return Err(Error::param(
            "n_x, n_y",
            format!("{n_x}, {n_y}"),
            "two positive sample sizes",
        ));
    }
    let n1n2 = n_x as f64 * n_y as f64;
    if !(0.0..=n1n2).contains(&u_x) {
        return Err(Error::param(
            "u_x",
            u_x,
            format!("a U statistic between 0 and n_x·n_y = {n1n2}"),
        ));
    }
    Ok(2.0 * u_x / n1n2 - 1.0)
}

/// scipy's `_get_mwu_z`, same operation order.
/// The exact null distribution of `U` for samples of `n_x` and `n_y` untied values (`P(U = u)`, `u = 0..=n_x·n_y`,
/// from the same exact integer counts as the exact p-value), with the normal approximation of the asymptotic
/// method: mean `n_x·n_y/2` and `σ² = n_x·n_y/12 · ((n + 1) − tie_term/(n(n − 1)))`, `tie_term = Σ(t³ − t)` over
/// the pooled sample's tie groups (0 without ties; see [`crate::rank::tie_correction_term`]).
///
/// # Errors
/// [`Error::InvalidParameter`] when a size is zero, `tie_term` is negative or non-finite, or the table would be too
/// large (as the exact p-value; a few hundred values per sample is fine).
///
/// # Examples
/// ```
/// let d = lethe::mann_whitney::null_distribution(3, 3, 0.0).unwrap();
/// assert_eq!(d.pmf.len(), 10); // U = 0..=9
/// assert!((d.pmf[0] - 1.0 / 20.0).abs() < 1e-15); // one of C(6, 3) = 20 orderings
/// assert_eq!(d.mean, 4.5);
/// ```
pub fn null_distribution(n_x: usize, n_y: usize, tie_term: f64) -> Result<crate::rank::NullDistribution> {
    if n_x == 0 || n_y == 0 {
        return Err(Error::param(
            "n_x, n_y",
            format!("{n_x}, {n_y}"),
            "at least one value in each sample",
        ));
    }
    if !(tie_term >= 0.0 && tie_term.is_finite()) {
        return Err(Error::param(
            "tie_term",
            tie_term,
            "Σ(t³ − t) over tie groups: a finite number ≥ 0",
        ));
    }
    let (m, n) = (n_x.min(n_y), n_x.max(n_y));
    let mn = m * n;
    let limbs = (m + n) / 64 + 2;
    let work = m as u128 * (mn as u128 + 1) * limbs as u128;
    if work > EXACT_WORK_LIMIT || (mn as u128 + 1) * limbs as u128 > EXACT_MEMORY_LIMIT {
        return Err(Error::param(
            "n_x, n_y",
            format!("{n_x}, {n_y}"),
            "smaller samples: the exact null distribution would be too large to tabulate",
        ));
    }
    let coeffs = gaussian_binomial_prefix(m, n, mn, limbs);
    let total = Wide::binomial((m + n) as u64, m as u64, limbs);
    let pmf = coeffs
        .chunks_exact(limbs)
        .map(|c| Wide(c.to_vec()).ratio(&total))
        .collect();
    let (nx, ny) = (n_x as f64, n_y as f64);
    let nn = nx + ny;
    let var = nx * ny / 12.0 * ((nn + 1.0) - if nn > 1.0 { tie_term / (nn * (nn - 1.0)) } else { 0.0 });
    Ok(crate::rank::NullDistribution::new(pmf, nx * ny / 2.0, var.sqrt()))
}

fn mwu_z(u: f64, n1: f64, n2: f64, tie_term: f64, continuity: bool) -> f64 {
    let mu = n1 * n2 / 2.0;
    let n = n1 + n2;
    let s = (n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
    let mut numerator = u - mu;
    if continuity {
        numerator -= 0.5;
    }
    numerator / s
}

fn clip01(p: f64) -> f64 {
    // f64::clamp passes NaN through, as np.clip does.
    p.clamp(0.0, 1.0)
}

/// `P(U ≥ k)` under the no-ties null for sample sizes `(n1, n2)`, from exact integer counts.
fn exact_sf(k: u64, n1: usize, n2: usize) -> Result<f64> {
    let (m, n) = (n1.min(n2) as u64, n1.max(n2) as u64);
    let mn = m * n;
    if k == 0 {
        return Ok(1.0);
    }
    if k > mn {
        return Ok(0.0);
    }
    // By symmetry P(U ≥ k) = P(U ≤ mn − k); use whichever tail needs coefficients only up to mn/2.
    let kc = mn - k;
    let (upto, complement) = if k < kc { (k - 1, true) } else { (kc, false) };

    let limbs = (m + n) as usize / 64 + 2; // |every intermediate| < 2^(m+n) fits with a sign bit to spare
    let work = u128::from(m) * u128::from(upto + 1) * limbs as u128;
    let memory = u128::from(upto + 1) * limbs as u128;
    if work > EXACT_WORK_LIMIT || memory > EXACT_MEMORY_LIMIT {
        return Err(Error::param(
            "method",
            "exact",
            format!(
                "the asymptotic method (or auto) for samples of {n1} and {n2} values: the exact null distribution \
                 would need about {work} wide-integer operations"
            ),
        ));
    }
    let coeffs = gaussian_binomial_prefix(m as usize, n as usize, upto as usize, limbs);
    let mut tail = Wide::zero(limbs);
    for c in coeffs.chunks_exact(limbs) {
        tail.add_assign(c);
    }
    let total = Wide::binomial(m + n, m, limbs);
    let numerator = if complement { total.sub(&tail) } else { tail };
    Ok(numerator.ratio(&total))
}

/// Coefficients `c₀ … c_K` of `[m+n choose m]_q`, each `limbs` little-endian u64 words (two's complement,
/// wrapping). Built as `Π_{i=1}^{m} (1 − q^{n+i}) / (1 − q^i)`: after step `i` the array holds
/// `[n+i choose i]_q` exactly, and every intermediate lies in `(−C(n+m, m), C(n+m, m))`, inside the width.
fn gaussian_binomial_prefix(m: usize, n: usize, k_max: usize, limbs: usize) -> Vec<u64> {
    let mut c = vec![0u64; (k_max + 1) * limbs];
    c[0] = 1;
    for i in 1..=m {
        let a = n + i;
        // × (1 − q^a), descending so each source coefficient is still the old one.
        for u in (a..=k_max).rev() {
            let (lo, hi) = c.split_at_mut(u * limbs);
            wrapping_sub(&mut hi[..limbs], &lo[(u - a) * limbs..(u - a + 1) * limbs]);
        }
        // ÷ (1 − q^i): c_u += c_{u−i}, ascending so the source is already divided.
        for u in i..=k_max {
            let (lo, hi) = c.split_at_mut(u * limbs);
            wrapping_add(&mut hi[..limbs], &lo[(u - i) * limbs..(u - i + 1) * limbs]);
        }
    }
    c
}

fn wrapping_add(dst: &mut [u64], src: &[u64]) {
    let mut carry = false;
    for (d, &s) in dst.iter_mut().zip(src) {
        let (v, c1) = d.overflowing_add(s);
        let (v, c2) = v.overflowing_add(u64::from(carry));
        *d = v;
        carry = c1 || c2;
    }
}

fn wrapping_sub(dst: &mut [u64], src: &[u64]) {
    let mut borrow = false;
    for (d, &s) in dst.iter_mut().zip(src) {
        let (v, b1) = d.overflowing_sub(s);
        let (v, b2) = v.overflowing_sub(u64::from(borrow));
        *d = v;
        borrow = b1 || b2;
    }
}

/// A non-negative fixed-width integer (little-endian u64 limbs), just enough arithmetic for the exact tail.
struct Wide(Vec<u64>);

impl Wide {
    fn zero(limbs: usize) -> Self {
        Wide(vec![0; limbs])
    }

    fn add_assign(&mut self, other: &[u64]) {
        wrapping_add(&mut self.0, other);
    }

    fn sub(&self, other: &Wide) -> Wide {
        let mut out = Wide(self.0.clone());
        wrapping_sub(&mut out.0, &other.0);
        out
    }

    /// `C(n, k)` via `C(n−k+i, i) = C(n−k+i−1, i−1)·(n−k+i)/i`, exact at every step.
    fn binomial(n: u64, k: u64, limbs: usize) -> Wide {
        let mut w = Wide::zero(limbs);
        w.0[0] = 1;
        for i in 1..=k {
            w.mul_small(n - k + i);
            w.div_small(i);
        }
        w
    }

    fn mul_small(&mut self, f: u64) {
        let mut carry: u128 = 0;
        for d in self.0.iter_mut() {
            let v = u128::from(*d) * u128::from(f) + carry;
            *d = v as u64;
            carry = v >> 64;
        }
    }

    fn div_small(&mut self, f: u64) {
        let mut rem: u128 = 0;
        for d in self.0.iter_mut().rev() {
            let v = (rem << 64) | u128::from(*d);
            *d = (v / u128::from(f)) as u64;
            rem = v % u128::from(f);
        }
        debug_assert_eq!(rem, 0, "binomial steps divide exactly");
    }

    /// `(mantissa, e)` with `self ≈ mantissa · 2^e`, the mantissa carrying the top 128 bits (relative error
    /// below 2⁻⁶⁴).
    fn to_f64_parts(&self) -> (f64, i64) {
        match self.0.iter().rposition(|&d| d != 0) {
            None => (0.0, 0),
            Some(0) => (self.0[0] as f64, 0),
            Some(t) => {
                let top = (u128::from(self.0[t]) << 64) | u128::from(self.0[t - 1]);
                (top as f64, 64 * (t as i64 - 1))
            }
        }
    }

    /// `self / other` rounded to f64 (both non-negative, `other > 0`).
    fn ratio(&self, other: &Wide) -> f64 {
        let (a, ea) = self.to_f64_parts();
        let (b, eb) = other.to_f64_parts();
        ldexp(a / b, ea - eb)
    }
}

/// `x · 2^e`, in steps that cannot overflow or underflow prematurely.
fn ldexp(mut x: f64, mut e: i64) -> f64 {
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_distribution_matches_enumeration_and_the_exact_tail() {
        for &(m, n) in &[(1, 1), (2, 3), (4, 4), (3, 7), (6, 5)] {
            let d = null_distribution(m, n, 0.0).unwrap();
            assert_eq!(d.pmf.len(), m * n + 1);
            assert!((d.pmf.iter().sum::<f64>() - 1.0).abs() < 1e-14);
            // P(U ≥ k) from the pmf equals brute force and the exact tail the test uses.
            for k in 0..=(m * n) as u64 {
                let tail: f64 = d.pmf[k as usize..].iter().sum();
                assert!((tail - brute_sf(k, m, n)).abs() < 1e-14, "{m}x{n} k={k}");
                assert!((tail - exact_sf(k, m, n).unwrap()).abs() < 1e-14);
            }
            // Symmetric about the mean; the normal curve has the asymptotic method's sd.
            let len = d.pmf.len();
            for i in 0..len {
                assert!((d.pmf[i] - d.pmf[len - 1 - i]).abs() < 1e-15);
            }
            let (mf, nf) = (m as f64, n as f64);
            assert_eq!(d.mean, mf * nf / 2.0);
            assert!((d.sd - (mf * nf * (mf + nf + 1.0) / 12.0).sqrt()).abs() < 1e-12);
        }
        // Ties shrink the sd as the asymptotic z uses it.
        let tied = null_distribution(4, 4, 6.0).unwrap();
        assert!(tied.sd < null_distribution(4, 4, 0.0).unwrap().sd);
        assert!(null_distribution(0, 3, 0.0).is_err());
        assert!(null_distribution(3, 3, -1.0).is_err());
        assert!(null_distribution(100_000, 100_000, 0.0).is_err());
    }

    /// Brute-force count of subsets: P(U ≥ k) by enumerating every split of ranks 1..=m+n.
    fn brute_sf(k: u64, m: usize, n: usize) -> f64 {
        let total = m + n;
        let (mut hit, mut all) = (0u64, 0u64);
        for mask in 0u32..(1 << total) {
            if mask.count_ones() as usize != m {
                continue;
            }
            let r: usize = (0..total).filter(|b| mask >> b & 1 == 1).map(|b| b + 1).sum();
            let u = (r - m * (m + 1) / 2) as u64;
            all += 1;
            if u >= k {
                hit += 1;
            }
        }
        hit as f64 / all as f64
    }

    #[test]
    fn exact_tail_matches_enumeration() {
        for (m, n) in [(1, 1), (1, 5), (2, 3), (3, 3), (4, 6), (5, 7), (6, 6)] {
            for k in 0..=(m * n) as u64 + 1 {
                let got = exact_sf(k, m, n).expect("small");
                let want = brute_sf(k, m, n);
                assert!((got - want).abs() < 1e-15, "m={m} n={n} k={k}: {got} vs {want}");
                // The distribution is symmetric in the two sample sizes.
                assert_eq!(got, exact_sf(k, n, m).expect("small"));
            }
        }
    }

    #[test]
    fn wide_binomial_is_exact() {
        let w = Wide::binomial(40, 20, 2);
        assert_eq!(w.0, vec![137_846_528_820, 0]);
        let big = Wide::binomial(400, 200, 8);
        let (mant, e) = big.to_f64_parts();
        // C(400, 200) ≈ 1.0295250013541444e119 (Python: float(math.comb(400, 200)))
        let v = ldexp(mant, e);
        assert!((v / 1.029_525_001_354_144_4e119 - 1.0).abs() < 1e-15, "{v:e}");
    }

    #[test]
    fn too_large_exact_request_is_refused() {
        let e = exact_sf(250_000, 1000, 1000).expect_err("too large");
        assert!(e.to_string().contains("asymptotic"), "{e}");
    }
}
