//! Probabilistic leakage bounds for sampled LLM outputs (Scholten, Günnemann & Schwinn, "A Probabilistic
//! Perspective on Unlearning and Alignment for Large Language Models", 2024), following the authors' `conbo`
//! package (yascho/conbo, `conbo/confidence_bounds.py`).
//!
//! A prompt is answered `n` times by sampling; a leakage score `X_i = h(Y_i) ∈ [0, 1]` is computed for each
//! answer (a 0/1 "the secret appeared" flag, or a ROUGE-L recall, see [`crate::rouge`]). From the `X_i`:
//!
//! * **Binary leakage bound** ([`m_bin`]): with `S` leaks in `n` samples, the Clopper–Pearson upper bound
//!   `M_bin = Beta(S + 1, n − S).ppf(1 − a)` on the leak probability `p` (`= 1` when `S = n`).
//! * **General leakage bound** ([`m_gen`]): with the empirical CDF `F_n(x) = #{X_i ≤ x}/n` and the
//!   Dvoretzky–Kiefer–Wolfowitz (DKW, Massart's constant) half-width `ε`,
//!   `Pr(X > x) ≤ M_gen(x) = min(1 − F_n(x) + ε, 1)` simultaneously for all `x`. See [`dkw_epsilon`].
//! * **Expectation bounds** ([`expectation_bounds`], Anderson 1969): on the grid `τ = linspace(0, 1, s)`,
//!   `E[X] = 1 − ∫₀¹ F`, so the left and right Riemann sums of the DKW band bound it:
//!   `μ̲ = 1 − Σ_{i≥1} Δτ_{i−1} min(F_n(τ_i) + ε, 1)`, `μ̄ = 1 − Σ_{i<s−1} Δτ_i max(F_n(τ_i) − ε, 0)`.
//! * **Variance / standard-deviation bounds** ([`variance_bounds`], [`std_bounds`], after Schuchardt et al.
//!   2023): `Var X ≤ Σ_i η_i P(X ∈ cell i)` with `η_i = max_{κ ∈ {τ_i, τ_{i+1}}, a ∈ {μ̲, μ̄}} (κ − a)²`, the
//!   cell probabilities bounded through the DKW band. Three variants, see [`SdMethod`].
//! * **ED score** ([`ed_score`]): `mean + ρ · population sd`, the paper's development-time summary.
//! * **Sample-size planning** ([`plan_sample_size`]): the smallest `n` that makes the DKW band or the
//!   Clopper–Pearson bound as tight as asked.
//!
//! # Which alpha is which
//!
//! conbo states every confidence statement as **two-sided at level `1 − alpha`**: its intervals and bands
//! put `alpha/2` in each tail (DKW: `ε = sqrt(ln(2/alpha)/(2n))`), so an upper bound *used alone* holds with
//! probability `1 − alpha/2`. The paper's `M_bin` and `M_gen` are **one-sided at level `1 − alpha`**
//! (`Beta.ppf(1 − alpha, ·)`, `ε = sqrt(ln(1/alpha)/(2n))`). Lethe follows conbo by default
//! ([`Sidedness::TwoSided`]) and offers the paper's form as [`Sidedness::OneSided`]. The paper's `M_bin` at
//! `alpha` therefore equals Lethe's default at `2·alpha`. The expectation and variance bounds use the
//! two-sided band in both conbo and the paper and take no [`Sidedness`].
//!
//! # Exactness
//!
//! Sums are numpy's pairwise sums and grids are `np.linspace`'s points ([`crate::numpy`]), so the bounds equal
//! conbo's bit for bit up to the last-ulp differences of `ln`/`sqrt` between numpy and Rust's libm.

pub mod convergence;
mod plan;
mod report;
mod variance;

use serde::{Deserialize, Serialize};

pub use plan::{SampleSizeParams, SampleSizePlan, binomial_sample_size, dkw_sample_size, plan_sample_size};
pub use report::{LeakageParams, LeakageReport, report};
pub use variance::{SdMethod, StdBounds, VarianceBounds, VarianceParams, std_bounds, variance_bounds};

use crate::binomial;
use crate::check;
use crate::error::{Error, Result};
use crate::note::{Note, NoteKind};
use crate::numpy;

/// conbo's default significance level (`alpha = 0.01` in every conbo function).
pub const DEFAULT_ALPHA: f64 = 0.01;
/// conbo's default grid size: `stepsize = 100` points `np.linspace(0, 1, 100)`.
pub const DEFAULT_STEPSIZE: usize = 100;
/// The paper's ED-score weight (`ρ = 2` in its unlearning experiments).
pub const DEFAULT_RHO: f64 = 2.0;

/// How `alpha` is spent by a bound that is used on one side only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Sidedness {
    /// conbo's convention (the default): the bound is one side of a two-sided interval/band at level
    /// `1 − alpha`, so the upper bound alone holds with probability at least `1 − alpha/2`.
    #[default]
    TwoSided,
    /// The paper's convention for `M_bin` and `M_gen`: a one-sided upper bound at level `1 − alpha`.
    OneSided,
}

/// The binary leakage bound `M_bin` (see [`m_bin`]).
#[derive(Debug, Clone, Serialize)]
pub struct BinaryLeakageBound {
    /// `S`, the number of samples that leaked.
    pub leaks: u64,
    /// `n`, the number of samples.
    pub n: u64,
    /// `S / n`.
    pub leak_rate: f64,
    /// Lower confidence bound on the leak probability (two-sided: the Clopper–Pearson lower end at
    /// `alpha/2`; one-sided: 0, the trivial bound).
    pub lower: f64,
    /// Upper confidence bound on the leak probability: `M_bin`.
    pub upper: f64,
    /// The one-sided lower Clopper–Pearson bound at level `1 − alpha`, whatever `sidedness`:
    /// `Beta(S, n − S + 1).ppf(alpha)` (0 when `S = 0`; scipy's `beta.ppf`, statsmodels'
    /// `proportion_confint(S, n, 2·alpha, "beta")[0]`): the leak probability is at least this with confidence
    /// `1 − alpha`.
    pub lower_one_sided: f64,
    /// The significance level passed in.
    pub alpha: f64,
    /// How `alpha` was spent.
    pub sidedness: Sidedness,
}

/// Binary leakage bound from a count: `S` leaks in `n` samples.
///
/// * [`Sidedness::TwoSided`] (default, conbo `binomial_bounds(samples, alpha)` = statsmodels
///   `proportion_confint(S, n, alpha, method="beta")`): `lower = Beta(S, n − S + 1).ppf(alpha/2)`,
///   `upper = Beta(S + 1, n − S).ppf(1 − alpha/2)` — together a `1 − alpha` interval; `upper` alone is a
///   one-sided bound at level `1 − alpha/2`.
/// * [`Sidedness::OneSided`] (the paper's Metric 1): `upper = M_bin = Beta(S + 1, n − S).ppf(1 − alpha)`,
///   `lower = 0`.
///
/// `upper = 1` when `S = n` and `lower = 0` when `S = 0`. The quantiles come from [`crate::binomial`].
///
/// # Errors
/// [`Error::InvalidParameter`] when `n = 0`, `leaks > n` or `alpha ∉ (0, 1)`.
///
/// # Examples
/// ```
/// use lethe::leakage::{m_bin, Sidedness};
/// // No leak in 100 samples. Paper (one-sided, alpha = 0.05): 1 − 0.05^(1/100).
/// let b = m_bin(0, 100, 0.05, Sidedness::OneSided).unwrap();
/// assert!((b.upper - 0.029513049607039925).abs() < 1e-12);
/// // conbo's default convention: the same number needs alpha = 0.1.
/// let c = m_bin(0, 100, 0.1, Sidedness::TwoSided).unwrap();
/// assert!((c.upper - b.upper).abs() < 1e-12);
/// ```
pub fn m_bin(leaks: u64, n: u64, alpha: f64, sidedness: Sidedness) -> Result<BinaryLeakageBound> {
    if n == 0 {
        return Err(Error::param("n", n, "at least one sample"));
    }
    if leaks > n {
        return Err(Error::param("leaks", leaks, format!("a count between 0 and n = {n}")));
    }
    check::unit_open("alpha", alpha)?;
    let (lower, upper) = match sidedness {
        Sidedness::TwoSided => binomial::two_sided(leaks, n, alpha)?,
        Sidedness::OneSided => (0.0, binomial::upper_one_sided(leaks, n, alpha)?),
    };
    Ok(BinaryLeakageBound {
        leaks,
        n,
        leak_rate: leaks as f64 / n as f64,
        lower,
        upper,
        lower_one_sided: binomial::lower_one_sided(leaks, n, alpha)?,
        alpha,
        sidedness,
    })
}

/// Binary leakage bound from per-sample flags (`true` = the sample leaked); see [`m_bin`].
///
/// # Errors
/// [`Error::Empty`] for no flags; otherwise as [`m_bin`].
///
/// # Examples
/// ```
/// use lethe::leakage::{m_bin_flags, Sidedness};
/// let b = m_bin_flags(&[false, true, false, false], 0.05, Sidedness::TwoSided).unwrap();
/// assert_eq!((b.leaks, b.n), (1, 4));
/// assert!(b.lower < 0.25 && 0.25 < b.upper);
/// ```
pub fn m_bin_flags(flags: &[bool], alpha: f64, sidedness: Sidedness) -> Result<BinaryLeakageBound> {
    check::nonempty("flags", flags)?;
    let leaks = flags.iter().filter(|&&f| f).count();
    m_bin(leaks as u64, flags.len() as u64, alpha, sidedness)
}

/// Binary leakage bound from 0/1 scores (the form conbo's `binomial_bounds(samples, alpha)` takes: it sums
/// the array); see [`m_bin`].
///
/// # Errors
/// [`Error::Empty`] for no scores, [`Error::NonFinite`] for NaN/±inf, [`Error::OutOfDomain`] at the first
/// score that is neither 0 nor 1 (threshold continuous scores first, or use [`m_gen`]); otherwise as
/// [`m_bin`].
///
/// # Examples
/// ```
/// use lethe::leakage::{m_bin_scores, Sidedness};
/// let b = m_bin_scores(&[0.0, 1.0, 1.0, 0.0], 0.05, Sidedness::TwoSided).unwrap();
/// assert_eq!(b.leaks, 2);
/// assert!(m_bin_scores(&[0.0, 0.5], 0.05, Sidedness::TwoSided).is_err());
/// ```
pub fn m_bin_scores(scores: &[f64], alpha: f64, sidedness: Sidedness) -> Result<BinaryLeakageBound> {
    check::sample("scores", scores)?;
    if let Some(i) = scores.iter().position(|&v| v != 0.0 && v != 1.0) {
        return Err(Error::OutOfDomain {
            input: "scores".into(),
            value: scores[i],
            location: format!("index {i}"),
            domain: "{0, 1} (binary leak flags)",
        });
    }
    let leaks = scores.iter().filter(|&&v| v == 1.0).count();
    m_bin(leaks as u64, scores.len() as u64, alpha, sidedness)
}

/// The DKW half-width for `n` samples: `sqrt(ln(2/alpha)/(2n))` two-sided (conbo), `sqrt(ln(1/alpha)/(2n))`
/// one-sided (the paper's `M_gen`).
///
/// Two-sided, `sup_x |F_n(x) − F(x)| ≤ ε` holds with probability at least `1 − alpha` (Massart 1990). The
/// one-sided `sup_x (F_n(x) − F(x)) ≤ ε` holds with probability at least `1 − alpha` for `alpha ≤ 1/2`.
///
/// # Errors
/// [`Error::InvalidParameter`] when `n = 0` or `alpha ∉ (0, 1)`.
///
/// # Examples
/// ```
/// use lethe::leakage::{dkw_epsilon, Sidedness};
/// let e = dkw_epsilon(200, 0.05, Sidedness::TwoSided).unwrap();
/// assert!((e - (40f64.ln() / 400.0).sqrt()).abs() < 1e-15);
/// ```
pub fn dkw_epsilon(n: usize, alpha: f64, sidedness: Sidedness) -> Result<f64> {
    if n == 0 {
        return Err(Error::param("n", n, "at least one sample"));
    }
    check::unit_open("alpha", alpha)?;
    Ok(eps_unchecked(n as f64, alpha, sidedness))
}

/// `np.sqrt(np.log(c/alpha)/(2*n))`, `c = 2` two-sided, `1` one-sided.
fn eps_unchecked(n: f64, alpha: f64, sidedness: Sidedness) -> f64 {
    let c = match sidedness {
        Sidedness::TwoSided => 2.0,
        Sidedness::OneSided => 1.0,
    };
    ((c / alpha).ln() / (2.0 * n)).sqrt()
}

/// The one-sided DKW inequality is proven only for `alpha ≤ 1/2`; flag uses beyond it.
fn one_sided_alpha_warning(alpha: f64, sidedness: Sidedness, warnings: &mut Vec<Note>) {
    if sidedness == Sidedness::OneSided && alpha > 0.5 {
        warnings.push(Note::new(
            NoteKind::AlphaAboveHalf,
            format!(
                "alpha = {alpha} > 0.5: the one-sided DKW inequality behind this bound is proven only for alpha ≤ 0.5"
            ),
        ));
    }
}

/// Empirical CDF of a validated sample: `F_n(x) = #{X_i ≤ x}/n`, evaluated by binary search.
struct Ecdf {
    sorted: Vec<f64>,
}

impl Ecdf {
    fn new(samples: &[f64]) -> Self {
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        Ecdf { sorted }
    }

    fn n(&self) -> f64 {
        self.sorted.len() as f64
    }

    /// `(samples <= x).mean()`: the count is exact, so this is `count / n` as numpy computes it.
    fn at(&self, x: f64) -> f64 {
        self.sorted.partition_point(|&s| s <= x) as f64 / self.n()
    }
}

fn check_points(x: &[f64]) -> Result<()> {
    check::nonempty("x", x)?;
    match x.iter().position(|v| v.is_nan()) {
        None => Ok(()),
        Some(i) => Err(Error::NonFinite {
            input: "x".into(),
            value: x[i],
            location: format!("position {i}"),
        }),
    }
}

/// Leakage scores for the moment bounds: non-empty, finite and inside [0, 1] (conbo asserts the same).
pub(crate) fn check_unit_samples(samples: &[f64]) -> Result<()> {
    check::sample("samples", samples)?;
    match samples.iter().position(|&v| !(0.0..=1.0).contains(&v)) {
        None => Ok(()),
        Some(i) => Err(Error::OutOfDomain {
            input: "samples".into(),
            value: samples[i],
            location: format!("index {i}"),
            domain: "[0, 1] (rescale the scores to [0, 1] first)",
        }),
    }
}

/// A grid of `stepsize` points for `n` samples: at least 2 points, and no more memory or work than one computation
/// may take ([`check::limits`]); `lp`: the exact LP of [`SdMethod::Lp`], whose work grows as points × values.
fn check_stepsize(stepsize: usize, n: usize, lp: bool) -> Result<()> {
    if stepsize < 2 {
        return Err(Error::param(
            "stepsize",
            stepsize,
            "at least 2 grid points (np.linspace(0, 1, stepsize) must contain both 0 and 1)",
        ));
    }
    check::Budget::default()
        .add(
            check::Cause::param("stepsize", stepsize),
            format!("a grid of {stepsize} points"),
            grid_bytes(stepsize),
            grid_steps(stepsize, n, lp),
            format!("use a coarser grid (the default is {DEFAULT_STEPSIZE} points)"),
        )
        .check()
}

/// Bytes the moment bounds hold at their peak for a grid of `stepsize` points: the band (points, CDF, lower and
/// upper ends), the cell widths and Riemann terms, and the variance bounds' per-cell vectors (at most 16 vectors
/// of the grid's length). Saturating.
pub fn grid_bytes(stepsize: usize) -> u64 {
    check::mul(stepsize, 16 * 8)
}

/// Steps of work of the moment bounds on a grid of `stepsize` points for `n` samples: a binary search of the
/// samples per point and, for the exact LP ([`SdMethod::Lp`]), its dynamic programme over points × the band's
/// distinct values (at most `2·min(points, n + 1) + 2`). Saturating.
pub fn grid_steps(stepsize: usize, n: usize, lp: bool) -> u64 {
    let search = u64::from(usize::BITS - n.leading_zeros()) + 1;
    let points = (stepsize as u64).saturating_mul(search + 16);
    if lp {
        let values = stepsize.min(n.saturating_add(1)).saturating_mul(2).saturating_add(2);
        points.saturating_add(check::mul(stepsize, values))
    } else {
        points
    }
}

/// Empirical CDF with its two-sided DKW band at the points `x` (see [`cdf_bounds`]).
#[derive(Debug, Clone, Serialize)]
pub struct CdfBand {
    /// The evaluation points, as passed.
    pub x: Vec<f64>,
    /// `F_n(x) = #{X_i ≤ x}/n`.
    pub cdf: Vec<f64>,
    /// `max(F_n(x) − ε, 0)`.
    pub lower: Vec<f64>,
    /// `min(F_n(x) + ε, 1)`.
    pub upper: Vec<f64>,
    /// The DKW half-width `ε = sqrt(ln(2/alpha)/(2n))`.
    pub eps: f64,
    /// Number of samples.
    pub n: usize,
}

/// Empirical CDF and its DKW confidence band, exactly conbo's `cdf_bounds(samples, x, alpha)`.
///
/// `cdf = F_n(x)`, `lower = max(cdf − ε, 0)`, `upper = min(cdf + ε, 1)` with the **two-sided**
/// `ε = sqrt(ln(2/alpha)/(2n))`: the whole band holds simultaneously for all `x` with probability at least
/// `1 − alpha`. Samples may be any finite numbers (conbo does not restrict them to [0, 1] here).
///
/// # Errors
/// [`Error::Empty`] for no samples or no points, [`Error::NonFinite`] for NaN/±inf samples or NaN points
/// (±inf points are fine), [`Error::InvalidParameter`] for `alpha ∉ (0, 1)`.
///
/// # Examples
/// ```
/// let band = lethe::leakage::cdf_bounds(&[0.1, 0.4, 0.4, 0.9], &[0.4], 0.05).unwrap();
/// assert_eq!(band.cdf, vec![0.75]);
/// assert!((band.upper[0] - 1.0).abs() < 1e-15); // 0.75 + 0.68 clipped
/// ```
pub fn cdf_bounds(samples: &[f64], x: &[f64], alpha: f64) -> Result<CdfBand> {
    check::sample("samples", samples)?;
    check_points(x)?;
    check::unit_open("alpha", alpha)?;
    let ecdf = Ecdf::new(samples);
    let eps = eps_unchecked(ecdf.n(), alpha, Sidedness::TwoSided);
    let cdf: Vec<f64> = x.iter().map(|&v| ecdf.at(v)).collect();
    Ok(CdfBand {
        x: x.to_vec(),
        lower: cdf.iter().map(|&c| (c - eps).max(0.0)).collect(),
        upper: cdf.iter().map(|&c| (c + eps).min(1.0)).collect(),
        cdf,
        eps,
        n: samples.len(),
    })
}

/// Empirical survival function with its two-sided DKW band (see [`survival_bounds`]).
#[derive(Debug, Clone, Serialize)]
pub struct SurvivalBand {
    /// The evaluation points, as passed.
    pub x: Vec<f64>,
    /// `1 − F_n(x)`, the fraction of samples above `x`.
    pub survival: Vec<f64>,
    /// `1 − min(F_n(x) + ε, 1)`.
    pub lower: Vec<f64>,
    /// `1 − max(F_n(x) − ε, 0)`.
    pub upper: Vec<f64>,
    /// The two-sided DKW half-width.
    pub eps: f64,
    /// Number of samples.
    pub n: usize,
}

/// Survival function `Pr(X > x)` with its DKW band, exactly conbo's `survival_bounds(samples, x, alpha)`:
/// `1 − cdf`, `1 − cdf_upper`, `1 − cdf_lower` of [`cdf_bounds`] (two-sided, level `1 − alpha`).
///
/// # Errors
/// As [`cdf_bounds`].
///
/// # Examples
/// ```
/// let s = lethe::leakage::survival_bounds(&[0.1, 0.4, 0.4, 0.9], &[0.4], 0.05).unwrap();
/// assert_eq!(s.survival, vec![0.25]);
/// assert!(s.lower[0] <= 0.25 && 0.25 <= s.upper[0]);
/// ```
pub fn survival_bounds(samples: &[f64], x: &[f64], alpha: f64) -> Result<SurvivalBand> {
    let band = cdf_bounds(samples, x, alpha)?;
    Ok(SurvivalBand {
        survival: band.cdf.iter().map(|&c| 1.0 - c).collect(),
        lower: band.upper.iter().map(|&c| 1.0 - c).collect(),
        upper: band.lower.iter().map(|&c| 1.0 - c).collect(),
        x: band.x,
        eps: band.eps,
        n: band.n,
    })
}

/// The general leakage bound `M_gen(x)` (see [`m_gen`]).
#[derive(Debug, Clone, Serialize)]
pub struct GeneralLeakageBound {
    /// The thresholds, as passed.
    pub x: Vec<f64>,
    /// `F_n(x)`.
    pub ecdf: Vec<f64>,
    /// `M_gen(x)`: upper bound on `Pr(X > x)`, simultaneously for all `x`.
    pub upper: Vec<f64>,
    /// The DKW half-width used (two- or one-sided, see `sidedness`).
    pub eps: f64,
    /// The significance level passed in.
    pub alpha: f64,
    /// How `alpha` was spent.
    pub sidedness: Sidedness,
    /// Number of samples.
    pub n: usize,
    /// Caveats (one-sided use with `alpha > 1/2`).
    pub warnings: Vec<Note>,
}

/// General leakage bound: an upper bound on `Pr(X > x)`, the probability that the next sample leaks more
/// than `x`, simultaneously for all thresholds `x`.
///
/// * [`Sidedness::TwoSided`] (default, conbo): `M_gen(x) = 1 − max(F_n(x) − ε₂, 0)` with
///   `ε₂ = sqrt(ln(2/alpha)/(2n))`, i.e. the upper end of conbo's `survival_bounds(samples, x, alpha)`;
///   holds with probability at least `1 − alpha/2` on its own (`1 − alpha` with the lower end).
/// * [`Sidedness::OneSided`] (the paper's Metric 2): `M_gen(x) = clip(1 − F_n(x) + ε₁, 0, 1)` with
///   `ε₁ = sqrt(ln(1/alpha)/(2n))`; holds with probability at least `1 − alpha` for `alpha ≤ 1/2` (a warning
///   is attached above that).
///
/// # Errors
/// As [`cdf_bounds`].
///
/// # Examples
/// ```
/// use lethe::leakage::{m_gen, Sidedness};
/// let scores = [0.0, 0.1, 0.2, 0.8];
/// let b = m_gen(&scores, &[0.5], 0.05, Sidedness::OneSided).unwrap();
/// let eps = (20f64.ln() / 8.0).sqrt();
/// assert!((b.upper[0] - (0.25 + eps)).abs() < 1e-15);
/// ```
pub fn m_gen(samples: &[f64], x: &[f64], alpha: f64, sidedness: Sidedness) -> Result<GeneralLeakageBound> {
    check::sample("samples", samples)?;
    check_points(x)?;
    check::unit_open("alpha", alpha)?;
    let ecdf = Ecdf::new(samples);
    let eps = eps_unchecked(ecdf.n(), alpha, sidedness);
    let cdf: Vec<f64> = x.iter().map(|&v| ecdf.at(v)).collect();
    // Each form keeps its reference's operation order, so each matches its reference to the last bit.
    let upper = cdf
        .iter()
        .map(|&c| match sidedness {
            Sidedness::TwoSided => 1.0 - (c - eps).max(0.0),
            Sidedness::OneSided => (1.0 - c + eps).clamp(0.0, 1.0),
        })
        .collect();
    let mut warnings = Vec::new();
    one_sided_alpha_warning(alpha, sidedness, &mut warnings);
    Ok(GeneralLeakageBound {
        x: x.to_vec(),
        ecdf: cdf,
        upper,
        eps,
        alpha,
        sidedness,
        n: samples.len(),
        warnings,
    })
}

/// The DKW band on conbo's grid `np.linspace(0, 1, stepsize)`, shared by the moment bounds.
struct GridBand {
    t: Vec<f64>,
    cdf: Vec<f64>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    eps: f64,
}

impl GridBand {
    fn new(ecdf: &Ecdf, alpha: f64, stepsize: usize) -> Self {
        let t = numpy::linspace(0.0, 1.0, stepsize);
        let eps = eps_unchecked(ecdf.n(), alpha, Sidedness::TwoSided);
        let cdf: Vec<f64> = t.iter().map(|&v| ecdf.at(v)).collect();
        GridBand {
            lower: cdf.iter().map(|&c| (c - eps).max(0.0)).collect(),
            upper: cdf.iter().map(|&c| (c + eps).min(1.0)).collect(),
            t,
            cdf,
            eps,
        }
    }

    /// Anderson's bounds: `(1 − Σ h·upper[1:], 1 − Σ h·lower[:-1])`, `h = np.diff(t)` (right and left rule).
    fn expectation(&self) -> (f64, f64) {
        let h: Vec<f64> = self.t.windows(2).map(|w| w[1] - w[0]).collect();
        let right: Vec<f64> = self.upper[1..].iter().zip(&h).map(|(u, h)| u * h).collect();
        let left: Vec<f64> = self.lower.iter().zip(&h).map(|(l, h)| l * h).collect();
        (1.0 - numpy::sum(&right), 1.0 - numpy::sum(&left))
    }
}

/// Confidence bounds on `E[X]` (see [`expectation_bounds`]).
#[derive(Debug, Clone, Serialize)]
pub struct ExpectationBounds {
    /// The sample mean.
    pub mean: f64,
    /// Lower bound `μ̲` on `E[X]` (right Riemann sum of the upper CDF band).
    pub lower: f64,
    /// Upper bound `μ̄` on `E[X]`: the paper's Metric 3 `M_μ` (left Riemann sum of the lower CDF band).
    pub upper: f64,
    /// The two-sided DKW half-width.
    pub eps: f64,
    /// Grid size used.
    pub stepsize: usize,
    /// Number of samples.
    pub n: usize,
}

/// Distribution-free bounds on `E[X]` for `X ∈ [0, 1]` (Anderson 1969), exactly conbo's
/// `expectation_bounds(samples, alpha, stepsize)`.
///
/// With `τ = np.linspace(0, 1, stepsize)`, `h = np.diff(τ)` and the two-sided DKW band of [`cdf_bounds`]:
/// `lower = 1 − Σ_{i≥1} h_{i−1} · min(F_n(τ_i) + ε, 1)`, `upper = 1 − Σ_{i<stepsize−1} h_i · max(F_n(τ_i) − ε, 0)`.
/// `[lower, upper]` holds with probability at least `1 − alpha` (each end alone: `1 − alpha/2`). The paper's
/// Proposition 3 with `K` cells is `stepsize = K + 1`. Defaults: [`DEFAULT_ALPHA`], [`DEFAULT_STEPSIZE`].
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`], [`Error::OutOfDomain`] (first sample outside [0, 1]);
/// [`Error::InvalidParameter`] for `alpha ∉ (0, 1)` or `stepsize < 2`.
///
/// # Examples
/// ```
/// use lethe::leakage::{expectation_bounds, DEFAULT_ALPHA, DEFAULT_STEPSIZE};
/// let scores = vec![0.2; 1000];
/// let e = expectation_bounds(&scores, DEFAULT_ALPHA, DEFAULT_STEPSIZE).unwrap();
/// assert!(e.lower <= 0.2 && 0.2 <= e.upper);
/// ```
pub fn expectation_bounds(samples: &[f64], alpha: f64, stepsize: usize) -> Result<ExpectationBounds> {
    check_unit_samples(samples)?;
    check::unit_open("alpha", alpha)?;
    check_stepsize(stepsize, samples.len(), false)?;
    let ecdf = Ecdf::new(samples);
    let band = GridBand::new(&ecdf, alpha, stepsize);
    let (lower, upper) = band.expectation();
    Ok(ExpectationBounds {
        mean: numpy::mean(samples),
        lower,
        upper,
        eps: band.eps,
        stepsize,
        n: samples.len(),
    })
}

/// The ED score (see [`ed_score`]).
#[derive(Debug, Clone, Serialize)]
pub struct EdScore {
    /// `mean + rho · sd`.
    pub score: f64,
    /// Sample mean.
    pub mean: f64,
    /// Population standard deviation (divisor `n`).
    pub sd: f64,
    /// The weight passed in.
    pub rho: f64,
}

/// Expectation–deviation score `S_ED = mean + ρ · sd` (the paper's §4.3), with the population standard
/// deviation `sd = sqrt(Σ (X_i − mean)² / n)` computed as `np.std` does (two passes, pairwise sums). The
/// paper uses `ρ = 2` ([`DEFAULT_RHO`]). No confidence statement is attached: it is a development-time summary.
///
/// # Errors
/// [`Error::Empty`], [`Error::NonFinite`] for the samples; [`Error::InvalidParameter`] when `rho` is not a
/// finite number `≥ 0`.
///
/// # Examples
/// ```
/// let ed = lethe::leakage::ed_score(&[0.0, 1.0], 2.0).unwrap();
/// assert_eq!((ed.mean, ed.sd, ed.score), (0.5, 0.5, 1.5));
/// ```
pub fn ed_score(samples: &[f64], rho: f64) -> Result<EdScore> {
    check::sample("samples", samples)?;
    if !(rho.is_finite() && rho >= 0.0) {
        return Err(Error::param("rho", rho, "a finite weight >= 0 (the paper uses 2)"));
    }
    let mean = numpy::mean(samples);
    let sd = numpy::std(samples);
    Ok(EdScore {
        score: mean + rho * sd,
        mean,
        sd,
        rho,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    #[test]
    fn m_bin_sidedness_relation() {
        for &(s, n) in &[(0, 1), (0, 10), (3, 10), (10, 10), (7, 1000)] {
            let one = m_bin(s, n, 0.05, Sidedness::OneSided).unwrap();
            let two = m_bin(s, n, 0.1, Sidedness::TwoSided).unwrap();
            assert!((one.upper - two.upper).abs() < 1e-14, "S={s} n={n}");
            assert_eq!(one.lower, 0.0);
            assert!(two.lower <= one.upper);
        }
        assert_eq!(m_bin(5, 5, 0.05, Sidedness::TwoSided).unwrap().upper, 1.0);
        assert_eq!(m_bin(0, 5, 0.05, Sidedness::TwoSided).unwrap().lower, 0.0);
    }

    #[test]
    fn m_bin_rejects_bad_parameters() {
        assert!(matches!(
            m_bin(0, 0, 0.05, Sidedness::TwoSided),
            Err(Error::InvalidParameter { name: "n", .. })
        ));
        assert!(matches!(
            m_bin(3, 2, 0.05, Sidedness::TwoSided),
            Err(Error::InvalidParameter { name: "leaks", .. })
        ));
        for a in [0.0, 1.0, -0.1, f64::NAN] {
            assert!(matches!(
                m_bin(0, 2, a, Sidedness::OneSided),
                Err(Error::InvalidParameter { name: "alpha", .. })
            ));
        }
        assert!(matches!(
            m_bin_flags(&[], 0.05, Sidedness::TwoSided),
            Err(Error::Empty { .. })
        ));
        assert!(matches!(
            m_bin_scores(&[0.0, f64::NAN], 0.05, Sidedness::TwoSided),
            Err(Error::NonFinite { .. })
        ));
        match m_bin_scores(&[0.0, 1.0, 0.3], 0.05, Sidedness::TwoSided) {
            Err(Error::OutOfDomain { location, .. }) => assert_eq!(location, "index 2"),
            other => panic!("expected OutOfDomain, got {other:?}"),
        }
    }

    #[test]
    fn ecdf_counts_ties_as_at_most() {
        let e = Ecdf::new(&[0.5, 0.5, 0.2, 1.0]);
        assert_eq!(e.at(0.5), 0.75);
        assert_eq!(e.at(0.4999), 0.25);
        assert_eq!(e.at(f64::NEG_INFINITY), 0.0);
        assert_eq!(e.at(f64::INFINITY), 1.0);
    }

    #[test]
    fn cdf_band_edges_and_errors() {
        let b = cdf_bounds(&[0.3], &[f64::NEG_INFINITY, 0.3, f64::INFINITY], 0.5).unwrap();
        assert_eq!(b.cdf, vec![0.0, 1.0, 1.0]);
        assert_eq!(b.lower[0], 0.0);
        assert_eq!(b.upper[2], 1.0);
        assert!(matches!(cdf_bounds(&[], &[0.0], 0.5), Err(Error::Empty { .. })));
        assert!(matches!(cdf_bounds(&[0.1], &[], 0.5), Err(Error::Empty { .. })));
        assert!(matches!(
            cdf_bounds(&[0.1], &[f64::NAN], 0.5),
            Err(Error::NonFinite { .. })
        ));
        assert!(matches!(
            cdf_bounds(&[f64::INFINITY], &[0.0], 0.5),
            Err(Error::NonFinite { .. })
        ));
        // Samples outside [0, 1] are allowed for the CDF band, as in conbo.
        assert!(cdf_bounds(&[-3.0, 7.0], &[0.0], 0.5).is_ok());
    }

    #[test]
    fn m_gen_forms_and_warning() {
        let s: Vec<f64> = (0..100).map(|i| f64::from(i) / 100.0).collect();
        let two = m_gen(&s, &[0.25, 2.0], 0.05, Sidedness::TwoSided).unwrap();
        let conbo = survival_bounds(&s, &[0.25, 2.0], 0.05).unwrap();
        assert_eq!(two.upper, conbo.upper);
        let one = m_gen(&s, &[0.25], 0.05, Sidedness::OneSided).unwrap();
        assert!(one.upper[0] < two.upper[0]);
        assert!(one.warnings.is_empty());
        let loose = m_gen(&s, &[0.25], 0.7, Sidedness::OneSided).unwrap();
        assert_eq!(loose.warnings.len(), 1);
    }

    #[test]
    fn expectation_bounds_contain_mean_and_check_domain() {
        let s: Vec<f64> = (0..50).map(|i| f64::from(i) / 49.0).collect();
        for stepsize in [2, 3, 10, 100, 1000] {
            let e = expectation_bounds(&s, 0.05, stepsize).unwrap();
            assert!(e.lower <= e.mean && e.mean <= e.upper, "stepsize {stepsize}: {e:?}");
            assert!((0.0..=1.0).contains(&e.lower) && (0.0..=1.0).contains(&e.upper));
        }
        match expectation_bounds(&[0.2, 1.5, -1.0], 0.05, 100) {
            Err(Error::OutOfDomain { location, value, .. }) => assert_eq!((location.as_str(), value), ("index 1", 1.5)),
            other => panic!("expected OutOfDomain, got {other:?}"),
        }
        assert!(matches!(
            expectation_bounds(&[0.2], 0.05, 1),
            Err(Error::InvalidParameter { name: "stepsize", .. })
        ));
        assert!(matches!(
            expectation_bounds(&[0.2, f64::NAN], 0.05, 10),
            Err(Error::NonFinite { .. })
        ));
        // K = 1 (stepsize 2): lower = 1 − min(F(1) + eps, 1) = 0, upper = 1 − max(F(0) − eps, 0).
        let k1 = expectation_bounds(&[0.0; 100], 0.5, 2).unwrap();
        assert_eq!(k1.lower, 0.0);
        assert!((k1.upper - k1.eps).abs() < 1e-15);
    }

    #[test]
    fn ed_score_edges() {
        assert_eq!(ed_score(&[0.3], 2.0).unwrap().score, 0.3);
        assert!(matches!(
            ed_score(&[0.3], -1.0),
            Err(Error::InvalidParameter { name: "rho", .. })
        ));
        assert!(matches!(ed_score(&[], 2.0), Err(Error::Empty { .. })));
        assert!(matches!(
            ed_score(&[f64::NEG_INFINITY], 2.0),
            Err(Error::NonFinite { .. })
        ));
    }

    #[test]
    fn results_are_send_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<BinaryLeakageBound>();
        assert_send_sync::<GeneralLeakageBound>();
        assert_send_sync::<ExpectationBounds>();
        assert_send_sync::<VarianceBounds>();
        assert_send_sync::<SampleSizePlan>();
    }

    /// A grid of 2⁶⁴ − 1 points is refused before its band is built; an exact LP of 10⁷ points over 10⁵ samples for
    /// its time; the default grid passes.
    #[test]
    fn huge_grids_are_refused_before_they_are_built() {
        let s = vec![0.25; 1000];
        let e = expectation_bounds(&s, 0.05, usize::MAX).unwrap_err();
        assert!(matches!(e, Error::ParameterTooLarge { name: "stepsize", .. }), "{e}");
        assert!(
            e.to_string().contains("use a coarser grid (the default is 100 points)"),
            "{e}"
        );
        let lp = VarianceParams {
            method: SdMethod::Lp { atom_at_zero: true },
            stepsize: 10_000_000,
            ..Default::default()
        };
        let many: Vec<f64> = (0..100_000).map(|i| f64::from(i) / 100_000.0).collect();
        if grid_steps(10_000_000, many.len(), true) > check::limits().work {
            let e = variance_bounds(&many, &lp).unwrap_err().to_string();
            assert!(e.contains("steps of work"), "{e}");
        }
        // The arithmetic: the LP's values are bounded by the samples as well as by the grid.
        assert_eq!(grid_bytes(100), 100 * 128);
        assert!(grid_steps(10_000_000, 100_000, true) >= 10_000_000 * 200_002);
        assert!(grid_steps(10_000_000, 1, true) < 10_000_000 * 64);
        assert!(grid_steps(10_000_000, 100_000, false) < 10_000_000 * 64);
        let mut b = check::Budget::default();
        b.add(
            check::Cause::param("stepsize", 100),
            "g",
            grid_bytes(100),
            grid_steps(100, 5, true),
            "f",
        );
        check::tests::boundary(&b);
        expectation_bounds(&s, 0.05, DEFAULT_STEPSIZE).unwrap();
    }
}
