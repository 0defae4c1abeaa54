//! The Wilcoxon signed-rank test, as `scipy.stats.wilcoxon` (scipy 1.17.1), and the matched-pairs
//! rank-biserial correlation.
//!
//! On the differences `d = x − y` (or `d = x` for one sample), rank `|d|` with average ranks and sum them by sign:
//!
//! ```text
//! T⁺ = Σ_{d_i > 0} rank|d_i|,   T⁻ = Σ_{d_i < 0} rank|d_i|
//! ```
//!
//! Zero differences are handled by `zero_method`:
//! * `Wilcox`: zeros are dropped before ranking (`n_used` = number of non-zero differences).
//! * `Pratt`: zeros are ranked with the rest but counted in neither sum (`n_used = n`).
//! * `Zsplit`: zeros are ranked and half their rank sum is added to each of `T⁺` and `T⁻` (`n_used = n`).
//!
//! The statistic is `T⁺` for one-sided alternatives and `min(T⁺, T⁻)` for `two-sided`, as scipy. P-values:
//!
//! * **exact**: the no-ties null of `T⁺` for `n_used` differences (each rank `1..=n_used` positive with
//!   probability ½), scipy's float recursion. With ties or zeros `T⁺` may be fractional; as scipy, it is rounded up
//!   before the lower tail (`less`) and down before the upper tail (`greater`); two-sided doubles the smaller tail
//!   and clips to 1.
//! * **asymptotic**: `z = (T⁺ − μ)/σ` with `μ = n_used(n_used+1)/4`,
//!   `σ² = [n_used(n_used+1)(2n_used+1) − Σ(t³ − t)/2] / 24`; for `Pratt` the zeros' share is removed,
//!   `μ −= z₀(z₀+1)/4` and `σ²·24 −= z₀(z₀+1)(2z₀+1)` (`z₀` zeros, whose tie group leaves the tie term, Cureton
//!   1967). With `correction`, `z` moves ½/σ toward zero (toward the alternative's side for one-sided tests).
//!   `p = Φ(z)`, `1 − Φ(z)` or `2Φ(−|z|)`; the reported two-sided `z` is `−|z|`, as scipy.
//! * **permutation** (only chosen by `Auto`): the exact conditional null of `T⁺` given the observed `|d|`, by
//!   enumerating all `2ⁿ` sign flips, which is what scipy's `permutation_test` does for `n ≤ 13`
//!   (`2¹³ < 9999` resamples). Counts are exact, so the p-values are those of scipy.
//! * **auto** (scipy 1.17.1): asymptotic if `n > 50` (`n` counting zeros); otherwise exact if there are neither
//!   ties among the non-zero `|d|` nor zeros; otherwise the permutation null if `n ≤ 13`; otherwise asymptotic.
//!
//! Rank-biserial correlation (matched pairs): `r = (T⁺ − T⁻)/(T⁺ + T⁻)` with the sums of the chosen
//! `zero_method` (so `Zsplit`'s denominator is the sum of all ranks, `n(n+1)/2`), as the golden reference defines
//! it. The RULER paper computes its effect size from the Wilcoxon statistic `T` and the number `n` of non-tied
//! (non-zero) pairs; the usual form of that, `1 − 4T/(n(n+1))` with `T = min(T⁺, T⁻)`, is `|r|` under `Wilcox`.
//! Lethe keeps the sign, positive when `x` tends to exceed `y`.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::numpy::sum as numpy_sum;
use crate::options::{Alternative, PValueMethod};
use crate::rank::{ndtr, rank_average, reject_nan, tie_correction_term};

/// Above this `n`, `Auto` goes asymptotic without looking at ties (scipy 1.17.1).
const AUTO_ASYMPTOTIC_ABOVE: usize = 50;
/// Largest `n` for which scipy's default `PermutationMethod` (9999 resamples) enumerates all `2ⁿ` sign flips.
const PERMUTATION_EXACT_MAX: usize = 13;
/// Largest exact-table job accepted, in floating-point operations (`≈ n³/4`; about half a second native, a few
/// times that in a browser), i.e. `n ≲ 1250`.
const EXACT_WORK_LIMIT: u128 = 500_000_000;

/// How zero differences are treated, as scipy's `zero_method`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZeroMethod {
    /// Drop zeros before ranking (scipy's default).
    #[default]
    Wilcox,
    /// Rank zeros, then leave them out of both sums.
    Pratt,
    /// Rank zeros and split their ranks equally between `T⁺` and `T⁻`.
    Zsplit,
}

impl std::str::FromStr for ZeroMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "wilcox" => Ok(Self::Wilcox),
            "pratt" => Ok(Self::Pratt),
            "zsplit" => Ok(Self::Zsplit),
            _ => Err(Error::param("zero_method", s, "one of wilcox, pratt, zsplit")),
        }
    }
}

/// Settings of [`wilcoxon`]; `Default` is scipy's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct WilcoxonParams {
    /// Treatment of zero differences (default `Wilcox`).
    pub zero_method: ZeroMethod,
    /// Continuity correction of the normal approximation (default `false`, as scipy).
    pub correction: bool,
    /// Alternative hypothesis about `x − y` (default two-sided).
    pub alternative: Alternative,
    /// `Auto`, `Exact` or `Asymptotic` (default `Auto`, scipy 1.17.1's rule).
    pub method: PValueMethod,
}

impl Default for WilcoxonParams {
    fn default() -> Self {
        Self {
            zero_method: ZeroMethod::Wilcox,
            correction: false,
            alternative: Alternative::TwoSided,
            method: PValueMethod::Auto,
        }
    }
}

/// What the test reports when every difference is zero (the test has nothing to rank).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AllZero {
    /// scipy 1.17.1's numbers (default): the statistic and p-value its code gives, which depend on `n`, `method`
    /// and `zero_method` — p = 1 from `auto` up to 13 differences, NaN from `auto` above 13 under `wilcox` and
    /// `pratt` and from `asymptotic` there, `2^{1−n}`-like tails from `exact` under `pratt` (see
    /// tests/fixtures/golden_gaps/wilcoxon_all_zero.json). None of them is evidence of anything: a warning says so.
    #[default]
    Scipy,
    /// NaN for every method and zero method (stricter: RULER's paper code reports no test below 5 non-zero
    /// differences, and Lethe's RULER across runs keeps that).
    Nan,
}

impl std::str::FromStr for AllZero {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "scipy" => Ok(Self::Scipy),
            "nan" => Ok(Self::Nan),
            _ => Err(Error::param("all_zero", s, "scipy or nan")),
        }
    }
}

/// The null distribution a Wilcoxon p-value was taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WilcoxonMethodUsed {
    /// Exact no-ties distribution of `T⁺`.
    Exact,
    /// Normal approximation with tie (and Pratt zero) corrections.
    Asymptotic,
    /// Exact sign-flip distribution conditional on the observed `|d|` (scipy's permutation test for `n ≤ 13`).
    Permutation,
}

/// Result of [`wilcoxon`].
#[derive(Debug, Clone, Serialize)]
pub struct WilcoxonResult {
    /// scipy's statistic: `min(T⁺, T⁻)` for two-sided, `T⁺` otherwise.
    #[serde(serialize_with = "crate::json::f64")]
    pub statistic: f64,
    /// The p-value (when every difference is zero: scipy's value or NaN, see [`AllZero`], with a warning). A NaN
    /// is written `null` in a report: there is no p-value, and the warning says why.
    #[serde(serialize_with = "crate::json::finite")]
    pub p_value: f64,
    /// Standardised statistic when the asymptotic method was used (`−|z|` for two-sided, as scipy; includes the
    /// continuity correction when requested). scipy attaches it only when `method="asymptotic"` was requested;
    /// Lethe also gives it when `Auto` resolved to asymptotic. NaN when every difference is zero (zero variance):
    /// written `null` in a report.
    #[serde(serialize_with = "crate::json::opt_finite")]
    pub z_statistic: Option<f64>,
    /// The null distribution used.
    pub method_used: WilcoxonMethodUsed,
    /// Number of differences ranked: non-zero ones for `Wilcox`, all for `Pratt` and `Zsplit`.
    pub n_used: usize,
    /// Number of zero differences.
    pub n_zero: usize,
    /// Sum of ranks of positive differences (plus half the zero ranks under `Zsplit`).
    pub r_plus: f64,
    /// Sum of ranks of negative differences (plus half the zero ranks under `Zsplit`).
    pub r_minus: f64,
    /// `(T⁺ − T⁻)/(T⁺ + T⁻)`, see [`rank_biserial`]; NaN when both sums are zero (every difference zero), written
    /// `null` in a report.
    #[serde(serialize_with = "crate::json::finite")]
    pub rank_biserial: f64,
    /// Whether non-zero `|d|` values tie (zeros tying with each other do not count).
    pub has_ties: bool,
    /// The alternative tested.
    pub alternative: Alternative,
    /// Partial problems (all-zero differences, an exact p-value despite ties or zeros).
    pub warnings: Vec<String>,
}

/// Wilcoxon signed-rank test, exactly as `scipy.stats.wilcoxon(x, y, zero_method, correction, alternative,
/// method)` in scipy 1.17.1 (see the module documentation for the statistic, the three nulls and `Auto`'s rule).
///
/// `alternative = Greater` tests whether the differences `x − y` are shifted above zero.
///
/// **Every difference zero**: scipy's statistic and p-value, computed by the same steps (p = 1 from `auto` up to
/// 13 differences, NaN from `auto` above that under `wilcox`/`pratt`, a small exact tail under `pratt` with
/// `exact`: see [`AllZero`]), with a warning that they are not evidence; [`wilcoxon_with`] and [`AllZero::Nan`] give
/// NaN instead for every method. (scipy raises for `auto` with one difference; Lethe gives the permutation null's
/// p = 1.)
///
/// Deviations from scipy, all deliberate and documented:
/// * Empty input is an error (scipy returns NaN); NaN in `x`, `y` or `x − y` (∞ − ∞) is an error (scipy
///   propagates NaN). Infinite differences are ranked as the largest, as scipy.
/// * `z_statistic` is also reported when `Auto` chose the normal approximation.
/// * `Exact` refuses (with an error) `n` so large that its table would take more than about half a second
///   (`n ≳ 1250`); scipy would take minutes there.
///
/// # Errors
/// * [`Error::Empty`] if `x` is empty.
/// * [`Error::ShapeMismatch`] if `y` is given with a different length.
/// * [`Error::NonFinite`] naming `x`, `y` or `x − y` at the first NaN.
/// * [`Error::InvalidParameter`] (`method`) if an exact table is requested for very large `n`.
///
/// # Examples
/// ```
/// use lethe::wilcoxon::{wilcoxon, WilcoxonParams, WilcoxonMethodUsed};
///
/// // Six positive differences with distinct sizes: T⁺ = 21, exact two-sided p = 2/2⁶.
/// let r = wilcoxon(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], None, &WilcoxonParams::default()).unwrap();
/// assert_eq!(r.statistic, 0.0); // min(T⁺, T⁻)
/// assert_eq!(r.method_used, WilcoxonMethodUsed::Exact);
/// assert!((r.p_value - 0.03125).abs() < 1e-15);
/// assert_eq!(r.rank_biserial, 1.0);
/// ```
pub fn wilcoxon(x: &[f64], y: Option<&[f64]>, params: &WilcoxonParams) -> Result<WilcoxonResult> {
    wilcoxon_with(x, y, params, AllZero::Scipy)
}

/// [`wilcoxon`] with the all-zero rule named: [`AllZero::Scipy`] (what [`wilcoxon`] does) or [`AllZero::Nan`]
/// (p-value NaN, and `z = NaN` when asymptotic, for every method).
///
/// # Errors
/// As [`wilcoxon`].
pub fn wilcoxon_with(
    x: &[f64],
    y: Option<&[f64]>,
    params: &WilcoxonParams,
    all_zero_rule: AllZero,
) -> Result<WilcoxonResult> {
    let d = differences(x, y)?;
    let n = d.len();
    let n_zero = d.iter().filter(|&&v| v == 0.0).count();
    let ranked = SignedRanks::new(&d, params.zero_method);

    let mut method = match params.method {
        PValueMethod::Asymptotic => WilcoxonMethodUsed::Asymptotic,
        PValueMethod::Exact => WilcoxonMethodUsed::Exact,
        PValueMethod::Auto if n > AUTO_ASYMPTOTIC_ABOVE => WilcoxonMethodUsed::Asymptotic,
        PValueMethod::Auto => WilcoxonMethodUsed::Exact, // refined below, once ties are known
    };
    if params.method == PValueMethod::Auto && method == WilcoxonMethodUsed::Exact && (ranked.has_ties || n_zero > 0) {
        method = if n <= PERMUTATION_EXACT_MAX {
            WilcoxonMethodUsed::Permutation
        } else {
            WilcoxonMethodUsed::Asymptotic
        };
    }

    let alternative = params.alternative;
    let mut warnings = Vec::new();
    let all_zero = n_zero == n;
    if all_zero && all_zero_rule == AllZero::Scipy {
        warnings.push(format!(
            "all {n} differences are zero, so the signed-rank test has no information; the p-value is scipy's \
             for this method and zero_method (1, NaN or a small exact tail) and is not evidence of anything (the \
             stricter all-zero rule reports NaN)"
        ));
    }
    let (p_value, z_statistic) = if all_zero && all_zero_rule == AllZero::Nan {
        warnings.push(format!(
            "all {n} differences are zero, so the signed-rank test has no information; the p-value is NaN \
             (scipy would report an arbitrary value here: 1, NaN or a small exact tail depending on method and \
             zero_method)"
        ));
        (f64::NAN, (method == WilcoxonMethodUsed::Asymptotic).then_some(f64::NAN))
    } else {
        match method {
            WilcoxonMethodUsed::Asymptotic => {
                let mut z = ranked.z();
                if params.correction {
                    let sign = match alternative {
                        Alternative::Greater => 1.0,
                        Alternative::Less => -1.0,
                        Alternative::TwoSided => sign(z),
                    };
                    z -= sign * 0.5 / ranked.se;
                }
                let p = match alternative {
                    Alternative::Less => ndtr(z),
                    Alternative::Greater => ndtr(-z),
                    Alternative::TwoSided => 2.0 * ndtr(-z.abs()),
                };
                let z = if alternative == Alternative::TwoSided {
                    -z.abs()
                } else {
                    z
                };
                (p, Some(z))
            }
            WilcoxonMethodUsed::Exact => {
                if ranked.has_ties || n_zero > 0 {
                    warnings.push(
                        "the exact signed-rank distribution assumes no ties and no zeros, but the differences have \
                         some; the statistic was rounded conservatively as scipy does (auto would use the \
                         permutation or normal null)"
                            .into(),
                    );
                }
                (exact_p(ranked.r_plus, ranked.count, alternative)?, None)
            }
            WilcoxonMethodUsed::Permutation => (ranked.permutation_p(alternative), None),
        }
    };

    let statistic = match alternative {
        Alternative::TwoSided => ranked.r_plus.min(ranked.r_minus),
        _ => ranked.r_plus,
    };
    Ok(WilcoxonResult {
        statistic,
        p_value,
        z_statistic,
        method_used: method,
        n_used: ranked.count,
        n_zero,
        r_plus: ranked.r_plus,
        r_minus: ranked.r_minus,
        rank_biserial: (ranked.r_plus - ranked.r_minus) / (ranked.r_plus + ranked.r_minus),
        has_ties: ranked.has_ties,
        alternative,
        warnings,
    })
}

/// Matched-pairs rank-biserial correlation `r = (T⁺ − T⁻)/(T⁺ + T⁻)` of `d = x − y` (or `x`), with the rank sums
/// of `zero_method`:
///
/// * `Wilcox`: zeros dropped, ranks `1..=n_nonzero`;
/// * `Pratt`: zeros ranked but counted in neither sum, so the denominator excludes the zeros' ranks;
/// * `Zsplit`: half the zero ranks go to each sum, so the numerator is as `Pratt`'s and the denominator is the sum
///   of all ranks `n(n+1)/2`.
///
/// Positive when `x` tends to exceed `y`; `±1` when all non-zero differences share a sign. The unsigned form
/// `1 − 4T/(n(n+1))` (T the two-sided statistic, n the non-zero pairs), as effect sizes from a Wilcoxon `T` are
/// usually reported (RULER), is the absolute value of the `Wilcox` form.
///
/// # Errors
/// * As [`wilcoxon`] for empty, mismatched or NaN input.
/// * [`Error::TooSmall`] when every difference is zero under `Wilcox` or `Pratt` (the ratio is 0/0; `Zsplit`
///   gives 0 there).
///
/// # Examples
/// ```
/// use lethe::wilcoxon::{rank_biserial, ZeroMethod};
/// // |d| ranks 1..5, negatives at ranks 1 and 2: (12 − 3)/15 = 0.6.
/// let r = rank_biserial(&[-1.0, -2.0, 3.0, 4.0, 5.0], None, ZeroMethod::Wilcox).unwrap();
/// assert!((r - 0.6).abs() < 1e-15);
/// ```
pub fn rank_biserial(x: &[f64], y: Option<&[f64]>, zero_method: ZeroMethod) -> Result<f64> {
    let d = differences(x, y)?;
    let ranked = SignedRanks::new(&d, zero_method);
    let denominator = ranked.r_plus + ranked.r_minus;
    if denominator == 0.0 {
        return Err(Error::TooSmall {
            input: if y.is_some() { "x − y".into() } else { "x".into() },
            got: 0,
            need: 1,
            unit: "non-zero differences",
            procedure: "the rank-biserial correlation",
        });
    }
    Ok((ranked.r_plus - ranked.r_minus) / denominator)
}

/// Validated differences `x − y` (or `x`).
fn differences(x: &[f64], y: Option<&[f64]>) -> Result<Vec<f64>> {
    if x.is_empty() {
        return Err(Error::Empty {
            input: "x".into(),
            fix: "the signed-rank test needs at least one pair".into(),
        });
    }
    reject_nan("x", x)?;
    let Some(y) = y else {
        return Ok(x.to_vec());
    };
    if y.len() != x.len() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "`x` has {} values but `y` has {}; the signed-rank test needs paired samples of equal length",
                x.len(),
                y.len()
            ),
        });
    }
    reject_nan("y", y)?;
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    if let Some(i) = d.iter().position(|v| v.is_nan()) {
        return Err(Error::NonFinite {
            input: "x − y".into(),
            value: f64::NAN,
            location: format!("position {i} (x and y are the same infinity there)"),
        });
    }
    Ok(d)
}

/// The rank sums and normal-approximation moments of scipy's `_wilcoxon_statistic`.
struct SignedRanks {
    /// `|d|` rank of each difference (0 for zeros dropped under `Wilcox`).
    ranks: Vec<f64>,
    /// Sign of each difference: +1, −1 or 0.
    signs: Vec<i8>,
    /// `T⁺` and `T⁻` (Zsplit's half zero ranks included).
    r_plus: f64,
    r_minus: f64,
    /// Half the zero ranks under `Zsplit` (0 otherwise): the constant part of `T⁺` under sign flips.
    zero_half: f64,
    /// Number of differences ranked.
    count: usize,
    /// Standard deviation of `T⁺` under the null, with tie (and Pratt zero) corrections.
    se: f64,
    /// Null mean of `T⁺`.
    mean: f64,
    has_ties: bool,
}

impl SignedRanks {
    fn new(d: &[f64], zero_method: ZeroMethod) -> Self {
        let n = d.len();
        let signs: Vec<i8> = d
            .iter()
            .map(|&v| {
                if v > 0.0 {
                    1
                } else if v < 0.0 {
                    -1
                } else {
                    0
                }
            })
            .collect();
        let n_zero = signs.iter().filter(|&&s| s == 0).count();

        // Wilcox ranks only the non-zero |d| (scipy turns zeros into NaN, which rank last and add nothing).
        let (ranks, tie_counts) = if zero_method == ZeroMethod::Wilcox {
            let keep: Vec<usize> = (0..n).filter(|&i| signs[i] != 0).collect();
            let abs: Vec<f64> = keep.iter().map(|&i| d[i].abs()).collect();
            let r = rank_average(&abs);
            let mut ranks = vec![0.0; n];
            for (&i, &ri) in keep.iter().zip(&r.ranks) {
                ranks[i] = ri;
            }
            (ranks, r.tie_counts)
        } else {
            let abs: Vec<f64> = d.iter().map(|v| v.abs()).collect();
            let r = rank_average(&abs);
            (r.ranks, r.tie_counts)
        };

        let masked = |want: i8| -> Vec<f64> {
            ranks
                .iter()
                .zip(&signs)
                .map(|(&r, &s)| if s == want { r } else { 0.0 })
                .collect()
        };
        let mut r_plus = numpy_sum(&masked(1));
        let mut r_minus = numpy_sum(&masked(-1));
        let mut zero_half = 0.0;
        if zero_method == ZeroMethod::Zsplit {
            zero_half = numpy_sum(&masked(0)) / 2.0;
            r_plus += zero_half;
            r_minus += zero_half;
        }

        // Zeros are the smallest |d|, so under Pratt/Zsplit they form the first tie group.
        let zero_group = usize::from(zero_method != ZeroMethod::Wilcox && n_zero > 0);
        let has_ties = tie_counts.iter().skip(zero_group).any(|&t| t > 1);

        let count = if zero_method == ZeroMethod::Wilcox {
            n - n_zero
        } else {
            n
        };
        let c = count as f64;
        let mut mean = c * (c + 1.0) * 0.25;
        let mut se = c * (c + 1.0) * (2.0 * c + 1.0);
        let tie_term = if zero_method == ZeroMethod::Pratt {
            let z0 = n_zero as f64;
            mean -= z0 * (z0 + 1.0) * 0.25;
            se -= z0 * (z0 + 1.0) * (2.0 * z0 + 1.0);
            // The zeros' tie group leaves the correction (Cureton 1967; scipy zeroes t[0]).
            tie_correction_term(&tie_counts[zero_group.min(tie_counts.len())..])
        } else {
            tie_correction_term(&tie_counts)
        };
        let se = ((se - tie_term / 2.0) / 24.0).sqrt();

        SignedRanks {
            ranks,
            signs,
            r_plus,
            r_minus,
            zero_half,
            count,
            se,
            mean,
            has_ties,
        }
    }

    fn z(&self) -> f64 {
        (self.r_plus - self.mean) / self.se
    }

    /// scipy's `permutation_test(..., permutation_type='samples')` p-value for `n ≤ 13`: every sign pattern of the
    /// differences (zeros flip to themselves) is enumerated. `T⁺` is a multiple of ¼, so in units of ¼ the null is
    /// an integer subset-sum distribution, counted exactly.
    fn permutation_p(&self, alternative: Alternative) -> f64 {
        let quarter = |v: f64| (v * 4.0).round() as usize;
        let weights: Vec<usize> = self
            .ranks
            .iter()
            .zip(&self.signs)
            .filter(|&(_, &s)| s != 0)
            .map(|(&r, _)| quarter(r))
            .collect();
        let max: usize = weights.iter().sum();
        let mut counts = vec![0u64; max + 1];
        counts[0] = 1;
        for &w in &weights {
            for s in (w..=max).rev() {
                counts[s] += counts[s - w];
            }
        }
        // Each of the 2^n patterns: flipping a zero leaves T⁺ unchanged, so every non-zero pattern repeats
        // 2^(n_zero) times; the ratio is the same either way, computed as scipy: count / 2^n.
        let n_zero = self.signs.iter().filter(|&&s| s == 0).count();
        let repeat = 2f64.powi(n_zero as i32);
        let total = 2f64.powi(self.signs.len() as i32);
        let observed = quarter(self.r_plus - self.zero_half);
        let le: u64 = counts[..=observed.min(max)].iter().sum();
        let ge: u64 = counts[observed.min(max + 1)..].iter().sum();
        let p_less = le as f64 * repeat / total;
        let p_greater = ge as f64 * repeat / total;
        let p = match alternative {
            Alternative::Less => p_less,
            Alternative::Greater => p_greater,
            Alternative::TwoSided => 2.0 * p_less.min(p_greater),
        };
        p.clamp(0.0, 1.0)
    }
}

/// The signed ranks behind [`wilcoxon`]: each difference's `|d|` rank (average ranks for ties) and its sign.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SignedRankTable {
    /// `d = x − y` (or `x`).
    pub differences: Vec<f64>,
    /// Rank of `|d|` among the ranked differences; 0 for a zero dropped under `Wilcox`.
    pub ranks: Vec<f64>,
    /// +1, −1 or 0.
    pub signs: Vec<i8>,
    /// `T⁺` and `T⁻` as [`wilcoxon`] reports them (`Zsplit`'s half zero ranks included).
    pub r_plus: f64,
    pub r_minus: f64,
}

/// The signed-rank table of `d = x − y` (or `x`) under `zero_method`, exactly as [`wilcoxon`] ranks it.
///
/// # Errors
/// As [`wilcoxon`]: empty, mismatched or NaN input.
///
/// # Examples
/// ```
/// use lethe::wilcoxon::{signed_ranks, ZeroMethod};
/// let t = signed_ranks(&[-1.0, 0.0, 3.0, 3.0], None, ZeroMethod::Wilcox).unwrap();
/// assert_eq!(t.ranks, vec![1.0, 0.0, 2.5, 2.5]);
/// assert_eq!((t.r_plus, t.r_minus), (5.0, 1.0));
/// ```
pub fn signed_ranks(x: &[f64], y: Option<&[f64]>, zero_method: ZeroMethod) -> Result<SignedRankTable> {
    let d = differences(x, y)?;
    let r = SignedRanks::new(&d, zero_method);
    Ok(SignedRankTable {
        differences: d,
        ranks: r.ranks,
        signs: r.signs,
        r_plus: r.r_plus,
        r_minus: r.r_minus,
    })
}

/// The exact null distribution of `T⁺` for `n` untied, non-zero differences (`P(T⁺ = t)`, `t = 0..=n(n+1)/2`, the
/// pmf the exact p-value sums), with the normal approximation of the asymptotic method: mean `n(n+1)/4` and
/// `σ² = (n(n+1)(2n+1) − tie_term/2)/24`, `tie_term = Σ(t³ − t)` over the tie groups of `|d|` (0 without ties).
///
/// # Errors
/// [`Error::InvalidParameter`] for `n = 0`, a negative or non-finite `tie_term`, or `n` too large to tabulate.
///
/// # Examples
/// ```
/// let d = lethe::wilcoxon::null_distribution(3, 0.0).unwrap();
/// assert_eq!(d.pmf, vec![0.125, 0.125, 0.125, 0.25, 0.125, 0.125, 0.125]);
/// assert_eq!(d.mean, 3.0);
/// ```
pub fn null_distribution(n: usize, tie_term: f64) -> Result<crate::rank::NullDistribution> {
    if n == 0 {
        return Err(Error::param("n", n, "at least one non-zero difference"));
    }
    if !(tie_term >= 0.0 && tie_term.is_finite()) {
        return Err(Error::param(
            "tie_term",
            tie_term,
            "Σ(t³ − t) over tie groups: a finite number ≥ 0",
        ));
    }
    if (n as u128).pow(3) / 4 > EXACT_WORK_LIMIT {
        return Err(Error::param(
            "n",
            n,
            "fewer differences: the exact table would be too large",
        ));
    }
    let dist = SignedRankNull::new(n);
    let c = n as f64;
    let var = (c * (c + 1.0) * (2.0 * c + 1.0) - tie_term / 2.0) / 24.0;
    Ok(crate::rank::NullDistribution::new(dist.pmf, dist.mean, var.sqrt()))
}

/// `np.sign`: −1, 0 or 1, NaN for NaN.
fn sign(z: f64) -> f64 {
    if z > 0.0 {
        1.0
    } else if z < 0.0 {
        -1.0
    } else {
        z * 0.0
    }
}

/// scipy's exact branch: `WilcoxonDistribution(count)` with the statistic rounded outward.
fn exact_p(r_plus: f64, count: usize, alternative: Alternative) -> Result<f64> {
    let work = (count as u128).pow(3) / 4;
    if work > EXACT_WORK_LIMIT {
        return Err(Error::param(
            "method",
            "exact",
            format!("the asymptotic method (or auto) for {count} differences: the exact table is too large"),
        ));
    }
    let dist = SignedRankNull::new(count);
    Ok(match alternative {
        Alternative::Less => dist.cdf(r_plus.ceil() as usize),
        Alternative::Greater => dist.sf(r_plus.floor() as usize),
        Alternative::TwoSided => {
            let p = 2.0 * dist.sf(r_plus.floor() as usize).min(dist.cdf(r_plus.ceil() as usize));
            p.clamp(0.0, 1.0)
        }
    })
}

/// scipy's `WilcoxonDistribution`: the pmf of `T⁺` for `n` untied, non-zero differences.
struct SignedRankNull {
    pmf: Vec<f64>,
    mean: f64,
}

impl SignedRankNull {
    /// `_get_wilcoxon_distr`: start from `[1]` and, for each rank `k`, mix the pmf with itself shifted by `k`,
    /// each half-weighted. Same operations as scipy, so the pmf is bit-identical.
    fn new(n: usize) -> Self {
        let mut c = vec![1.0];
        for k in 1..=n {
            let m = c.len();
            let mut next = vec![0.0; k * (k + 1) / 2 + 1];
            for (dst, &src) in next.iter_mut().zip(&c) {
                *dst = src * 0.5;
            }
            let len = next.len();
            for (dst, &src) in next[len - m..].iter_mut().zip(&c) {
                *dst += src * 0.5;
            }
            c = next;
        }
        let nf = n as f64;
        SignedRankNull {
            pmf: c,
            mean: nf * (nf + 1.0) / 4.0,
        }
    }

    fn head(&self, k: usize) -> f64 {
        numpy_sum(&self.pmf[..(k + 1).min(self.pmf.len())])
    }

    fn tail(&self, k: usize) -> f64 {
        numpy_sum(&self.pmf[k.min(self.pmf.len())..])
    }

    /// `P(T⁺ ≤ k)`, summing whichever side of the mean scipy sums.
    fn cdf(&self, k: usize) -> f64 {
        if k as f64 <= self.mean {
            self.head(k)
        } else {
            1.0 - self.tail(k + 1)
        }
    }

    /// `P(T⁺ ≥ k)`.
    fn sf(&self, k: usize) -> f64 {
        if k as f64 <= self.mean {
            self.tail(k)
        } else {
            1.0 - if k == 0 { 0.0 } else { self.head(k - 1) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn null_pmf_sums_to_one_and_is_symmetric() {
        for n in [0, 1, 2, 5, 10, 20] {
            let d = SignedRankNull::new(n);
            let s: f64 = d.pmf.iter().sum();
            assert!((s - 1.0).abs() < 1e-15);
            let len = d.pmf.len();
            for i in 0..len {
                assert_eq!(d.pmf[i], d.pmf[len - 1 - i]);
            }
        }
    }

    #[test]
    fn signed_ranks_and_null_distribution_agree_with_the_test() {
        let x = [1.5, -0.5, 2.0, 0.0, -2.0, 3.0, 0.5, 2.0];
        for zm in [ZeroMethod::Wilcox, ZeroMethod::Pratt, ZeroMethod::Zsplit] {
            let t = signed_ranks(&x, None, zm).unwrap();
            let r = wilcoxon(
                &x,
                None,
                &WilcoxonParams {
                    zero_method: zm,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!((t.r_plus, t.r_minus), (r.r_plus, r.r_minus));
            assert_eq!(t.ranks.len(), x.len());
        }
        let d = null_distribution(7, 0.0).unwrap();
        assert_eq!(d.pmf.len(), 29);
        assert!((d.pmf.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        // Upper tail from the pmf = the exact p-value of a one-sided test with T⁺ = 25 (no ties, no zeros).
        let y = [1.0, 2.0, -3.0, 4.0, 5.0, 6.0, 7.0];
        let r = wilcoxon(
            &y,
            None,
            &WilcoxonParams {
                alternative: Alternative::Greater,
                method: PValueMethod::Exact,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(r.r_plus, 25.0);
        let tail: f64 = d.pmf[25..].iter().sum();
        assert!((tail - r.p_value).abs() < 1e-15);
        let c = 7.0f64;
        assert!((d.sd - (c * (c + 1.0) * (2.0 * c + 1.0) / 24.0).sqrt()).abs() < 1e-12);
        assert!(null_distribution(0, 0.0).is_err());
        assert!(null_distribution(5, f64::NAN).is_err());
    }

    #[test]
    fn permutation_equals_exact_without_ties() {
        let d = [1.0, -2.0, 3.5, 4.0, -5.5, 6.0, 7.25];
        let r = SignedRanks::new(&d, ZeroMethod::Wilcox);
        for alt in [Alternative::Less, Alternative::Greater, Alternative::TwoSided] {
            let perm = r.permutation_p(alt);
            let exact = exact_p(r.r_plus, r.count, alt).expect("small");
            assert!((perm - exact).abs() < 1e-15, "{alt:?}: {perm} vs {exact}");
        }
    }

    #[test]
    fn pratt_drops_the_zero_group_from_the_tie_term() {
        // Two zeros tie with each other only: Pratt's variance equals the untied formula minus the zeros' share.
        let d = [0.0, 0.0, 1.0, -2.0, 3.0];
        let r = SignedRanks::new(&d, ZeroMethod::Pratt);
        assert!(!r.has_ties);
        let want = ((5.0 * 6.0 * 11.0 - 2.0 * 3.0 * 5.0) / 24.0f64).sqrt();
        assert_eq!(r.se, want);
    }
}
