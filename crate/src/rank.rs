//! Ranks with ties, and the small numerical helpers the rank tests share.
//!
//! For a sample `x₁ … xₙ` sorted ascending, a run of `t` equal values occupying ordinal positions
//! `i + 1 … i + t` all receive the average rank
//!
//! ```text
//! rank = (i + 1) + (t − 1) / 2
//! ```
//!
//! exactly as `scipy.stats.rankdata(x, method="average")`. The ranks always sum to `n(n + 1)/2`. Ties enter the
//! variance of rank statistics through the tie-correction term `Σ (t³ − t)` summed over the tie groups (groups of
//! size one contribute nothing), which is what [`tie_correction_term`] returns and what both
//! [`crate::mann_whitney`] and [`crate::wilcoxon`] use.
//!
//! Average ranks are multiples of ½, so every rank and every rank sum below 2⁵³ is exact in `f64`.
//!
//! NaN has no place in an order, so it is an error here rather than propagated (scipy's default propagates it to
//! every rank). ±∞ are ordinary, orderable values and are ranked. `-0.0` and `+0.0` are equal and tie.

use crate::error::{Error, Result};

pub mod ties;

/// Average ranks together with the sizes of the tie groups.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TieRanks {
    /// Average rank of each input value, in input order (1-based, as scipy).
    pub ranks: Vec<f64>,
    /// Size of every group of equal values (groups of one included), in ascending order of the values.
    pub tie_counts: Vec<usize>,
}

impl TieRanks {
    /// `true` when at least two values are equal.
    ///
    /// # Examples
    /// ```
    /// assert!(!lethe::rank::rank_with_ties(&[1.0, 2.0]).unwrap().has_ties());
    /// ```
    pub fn has_ties(&self) -> bool {
        self.tie_counts.iter().any(|&t| t > 1)
    }
}

/// Average ranks of `x`, as `scipy.stats.rankdata(x, method="average")`.
///
/// Ties share the mean of the ordinal positions they occupy; the ranks sum to `n(n + 1)/2`. An empty input gives an
/// empty output, as scipy.
///
/// # Errors
/// [`Error::NonFinite`] naming `x` and the position of the first NaN (±∞ are ranked normally).
///
/// # Examples
/// ```
/// let r = lethe::rank::rankdata_average(&[3.0, 1.0, 3.0, 2.0]).unwrap();
/// assert_eq!(r, vec![3.5, 1.0, 3.5, 2.0]);
/// ```
pub fn rankdata_average(x: &[f64]) -> Result<Vec<f64>> {
    Ok(rank_with_ties(x)?.ranks)
}

/// Average ranks of `x` and its tie-group sizes (the `return_ties` form scipy's rank tests use internally).
///
/// # Errors
/// [`Error::NonFinite`] naming `x` and the position of the first NaN.
///
/// # Examples
/// ```
/// let t = lethe::rank::rank_with_ties(&[2.0, 1.0, 2.0, 2.0]).unwrap();
/// assert_eq!(t.ranks, vec![3.0, 1.0, 3.0, 3.0]);
/// assert_eq!(t.tie_counts, vec![1, 3]);
/// assert!(t.has_ties());
/// ```
pub fn rank_with_ties(x: &[f64]) -> Result<TieRanks> {
    reject_nan("x", x)?;
    Ok(rank_average(x))
}

/// The tie-correction term `Σ (t³ − t)` over tie-group sizes `t`, evaluated in `f64` as scipy does.
///
/// # Examples
/// ```
/// // One pair and one triple: (8 − 2) + (27 − 3) = 30.
/// assert_eq!(lethe::rank::tie_correction_term(&[1, 2, 3]), 30.0);
/// ```
pub fn tie_correction_term(tie_counts: &[usize]) -> f64 {
    tie_counts
        .iter()
        .map(|&t| {
            let t = t as f64;
            t * t * t - t
        })
        .sum()
}

/// The exact no-ties null distribution of a rank statistic on its integer support `0, 1, …, max`, beside the
/// normal approximation the asymptotic p-values refer the statistic to (for display and teaching: the rank tests
/// themselves read their tails from the same exact counts).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NullDistribution {
    /// The support, `0..=max` (as f64 for plotting).
    pub support: Vec<f64>,
    /// Exact probability of each support value when there are no ties.
    pub pmf: Vec<f64>,
    /// The null mean of the statistic.
    pub mean: f64,
    /// The null standard deviation the asymptotic method uses (tie-corrected by the `tie_term` passed in).
    pub sd: f64,
    /// The normal density with that mean and sd at each support value (comparable to `pmf`: unit spacing).
    pub normal_density: Vec<f64>,
}

impl NullDistribution {
    pub(crate) fn new(pmf: Vec<f64>, mean: f64, sd: f64) -> Self {
        let support: Vec<f64> = (0..pmf.len()).map(|k| k as f64).collect();
        let normal_density = support
            .iter()
            .map(|&u| {
                let z = (u - mean) / sd;
                (-0.5 * z * z).exp() / (sd * (2.0 * std::f64::consts::PI).sqrt())
            })
            .collect();
        NullDistribution {
            support,
            pmf,
            mean,
            sd,
            normal_density,
        }
    }
}

/// Fails with [`Error::NonFinite`] at the first NaN in `x` (±∞ pass).
pub(crate) fn reject_nan(input: &str, x: &[f64]) -> Result<()> {
    match x.iter().position(|v| v.is_nan()) {
        None => Ok(()),
        Some(i) => Err(Error::NonFinite {
            input: input.to_string(),
            value: f64::NAN,
            location: format!("position {i} (rank statistics cannot order NaN)"),
        }),
    }
}

/// Average ranks of NaN-free data (callers validate with their own input names first).
pub(crate) fn rank_average(x: &[f64]) -> TieRanks {
    debug_assert!(x.iter().all(|v| !v.is_nan()));
    let n = x.len();
    let mut order: Vec<usize> = (0..n).collect();
    // total_cmp puts -0.0 just before +0.0; the `!=` test below still treats them as one tie group.
    order.sort_by(|&a, &b| x[a].total_cmp(&x[b]));
    let mut ranks = vec![0.0; n];
    let mut tie_counts = Vec::new();
    let mut start = 0;
    while start < n {
        let mut end = start + 1;
        while end < n && x[order[end]] == x[order[start]] {
            end += 1;
        }
        let t = end - start;
        // scipy: ordinal rank of the group's first member + (t − 1)/2.
        let r = (start + 1) as f64 + (t as f64 - 1.0) / 2.0;
        for &i in &order[start..end] {
            ranks[i] = r;
        }
        tie_counts.push(t);
        start = end;
    }
    TieRanks { ranks, tie_counts }
}

/// Standard normal CDF, as `scipy.special.ndtr` (scipy 1.17.1 evaluates it with Cephes' `ndtr`, ported here
/// with the same coefficients and operation order so rank-test p-values agree with scipy to the last bit or so).
///
/// statrs 0.19.1's `erf`/`erfc` were tried first and are off by up to ~5e-11 relative for arguments in
/// `[0.5, 3]` (e.g. `erf(1)`), which would show up directly in asymptotic p-values, hence the port.
pub fn ndtr(a: f64) -> f64 {
    if a.is_nan() {
        return f64::NAN;
    }
    let x = a * std::f64::consts::FRAC_1_SQRT_2;
    let z = x.abs();
    if z < 1.0 {
        0.5 + 0.5 * cephes::erf(x)
    } else {
        let y = 0.5 * cephes::erfc(z);
        if x > 0.0 { 1.0 - y } else { y }
    }
}

/// Cephes' `erf`/`erfc` (Cephes Math Library 2.2, © 1984–1992 Stephen L. Moshier, as carried in scipy's `xsf`).
// The coefficients are kept digit for digit as published, so they can be checked against the source.
#[allow(clippy::excessive_precision)]
mod cephes {
    const P: [f64; 9] = [
        2.46196981473530512524E-10,
        5.64189564831068821977E-1,
        7.46321056442269912687E0,
        4.86371970985681366614E1,
        1.96520832956077098242E2,
        5.26445194995477358631E2,
        9.34528527171957607540E2,
        1.02755188689515710272E3,
        5.57535335369399327526E2,
    ];
    const Q: [f64; 8] = [
        1.32281951154744992508E1,
        8.67072140885989742329E1,
        3.54937778887819891062E2,
        9.75708501743205489753E2,
        1.82390916687909736289E3,
        2.24633760818710981792E3,
        1.65666309194161350182E3,
        5.57535340817727675546E2,
    ];
    const R: [f64; 6] = [
        5.64189583547755073984E-1,
        1.27536670759978104416E0,
        5.01905042251180477414E0,
        6.16021097993053585195E0,
        7.40974269950448939160E0,
        2.97886665372100240670E0,
    ];
    const S: [f64; 6] = [
        2.26052863220117276590E0,
        9.39603524938001434673E0,
        1.20489539808096656605E1,
        1.70814450747565897222E1,
        9.60896809063285878198E0,
        3.36907645100081516050E0,
    ];
    const T: [f64; 5] = [
        9.60497373987051638749E0,
        9.00260197203842689217E1,
        2.23200534594684319226E3,
        7.00332514112805075473E3,
        5.55923013010394962768E4,
    ];
    const U: [f64; 5] = [
        3.35617141647503099647E1,
        5.21357949780152679795E2,
        4.59432382970980127987E3,
        2.26290000613890934246E4,
        4.92673942608635921086E4,
    ];
    /// ln(f64::MAX), Cephes' MAXLOG.
    const MAXLOG: f64 = 7.09782712893383996843E2;

    /// Horner's rule, leading coefficient first.
    fn polevl(x: f64, c: &[f64]) -> f64 {
        c.iter().skip(1).fold(c[0], |acc, &ci| acc * x + ci)
    }

    /// Horner's rule with an implicit leading coefficient 1.
    fn p1evl(x: f64, c: &[f64]) -> f64 {
        c.iter().skip(1).fold(x + c[0], |acc, &ci| acc * x + ci)
    }

    pub(super) fn erf(x: f64) -> f64 {
        if x.is_nan() {
            return f64::NAN;
        }
        if x < 0.0 {
            return -erf(-x);
        }
        if x > 1.0 {
            return 1.0 - erfc(x);
        }
        let z = x * x;
        x * polevl(z, &T) / p1evl(z, &U)
    }

    pub(super) fn erfc(a: f64) -> f64 {
        if a.is_nan() {
            return f64::NAN;
        }
        let x = a.abs();
        if x < 1.0 {
            return 1.0 - erf(a);
        }
        let z = -a * a;
        let under = if a < 0.0 { 2.0 } else { 0.0 };
        if z < -MAXLOG {
            return under;
        }
        let z = z.exp();
        let (p, q) = if x < 8.0 {
            (polevl(x, &P), p1evl(x, &Q))
        } else {
            (polevl(x, &R), p1evl(x, &S))
        };
        let mut y = (z * p) / q;
        if a < 0.0 {
            y = 2.0 - y;
        }
        if y != 0.0 { y } else { under }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_match_scipy_docs_example() {
        // scipy.stats.rankdata([0, 2, 3, 2]) -> [1. , 2.5, 4. , 2.5]
        let r = rankdata_average(&[0.0, 2.0, 3.0, 2.0]).expect("finite input");
        assert_eq!(r, vec![1.0, 2.5, 4.0, 2.5]);
    }

    #[test]
    fn empty_and_single() {
        assert!(rankdata_average(&[]).expect("empty is fine").is_empty());
        assert_eq!(rankdata_average(&[7.0]).expect("one value"), vec![1.0]);
    }

    #[test]
    fn infinities_rank_and_signed_zeros_tie() {
        let t = rank_with_ties(&[f64::INFINITY, 0.0, -0.0, f64::NEG_INFINITY]).expect("no NaN");
        assert_eq!(t.ranks, vec![4.0, 2.5, 2.5, 1.0]);
        assert_eq!(t.tie_counts, vec![1, 2, 1]);
    }

    #[test]
    fn nan_is_a_named_error() {
        let e = rankdata_average(&[1.0, f64::NAN]).expect_err("NaN must fail");
        let msg = e.to_string();
        let msg = crate::words::cli(&msg);
        assert!(msg.contains("`x`") && msg.contains("position 1"), "{msg}");
    }

    #[test]
    fn tie_term_ignores_singletons() {
        assert_eq!(tie_correction_term(&[1, 1, 1]), 0.0);
        assert_eq!(tie_correction_term(&[4]), 60.0);
    }

    #[test]
    fn ndtr_matches_scipy_peers() {
        // tests/fixtures/peers/ranks_misc.json: scipy.special.ndtr (scipy 1.17.1), from tests/peers/ranks_peers.py.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/peers/ranks_misc.json");
        let text = std::fs::read_to_string(path).expect("peer fixture");
        let v: serde_json::Value = serde_json::from_str(&text).expect("json");
        let as_f64 = |v: &serde_json::Value| v.as_f64().expect("finite number");
        let xs = v["ndtr"]["x"].as_array().expect("x");
        let want = v["ndtr"]["scipy_special_ndtr"].as_array().expect("values");
        let (mut max_rel, mut differing) = (0.0f64, 0);
        for (x, w) in xs.iter().zip(want) {
            let (x, w) = (as_f64(x), as_f64(w));
            let got = ndtr(x);
            if got != w {
                differing += 1;
                max_rel = max_rel.max((got - w).abs() / w);
            }
        }
        println!(
            "ndtr vs scipy: {differing} of {} differ, max rel {max_rel:.3e}",
            xs.len()
        );
        assert!(max_rel < 1e-15, "ndtr max relative deviation {max_rel:e}");
    }

    #[test]
    fn ndtr_reference_points() {
        assert_eq!(ndtr(0.0), 0.5);
        assert_eq!(ndtr(f64::INFINITY), 1.0);
        assert_eq!(ndtr(f64::NEG_INFINITY), 0.0);
        // scipy.special.ndtr(-1.0) = 0.15865525393145707, ndtr(-10) = 7.61985302416047e-24
        assert!(
            (ndtr(-1.0) - 0.158_655_253_931_457_07).abs() < 2e-17,
            "{:e}",
            ndtr(-1.0)
        );
        assert!((ndtr(-10.0) / 7.619_853_024_160_47e-24 - 1.0).abs() < 1e-14);
    }
}
