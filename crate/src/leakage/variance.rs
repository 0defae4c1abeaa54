//! Variance and standard-deviation bounds for a leakage score `X ∈ [0, 1]`.
//!
//! On the grid `τ = np.linspace(0, 1, s)` (cells `[τ_i, τ_{i+1}]`, `K = s − 1` of them) and with expectation
//! bounds `μ̲ ≤ E[X] ≤ μ̄`,
//!
//! ```text
//! Var X = Σ_i ∫_cell i (x − E X)² dF ≤ Σ_i η_i P(X ∈ cell i),   η_i = max_{κ ∈ {τ_i, τ_{i+1}}, a ∈ {μ̲, μ̄}} (κ − a)²
//! ```
//!
//! and the cell probabilities are bounded through the two-sided DKW band `L_j ≤ F(τ_j) ≤ U_j`. The three
//! [`SdMethod`]s differ only in that last step:
//!
//! * `Conbo` (the default; conbo's `variance_bounds`, the paper's Metric 4): Abel summation
//!   `Σ η_i (F(τ_{i+1}) − F(τ_i)) = η_{K−1} − η_0 F(τ_0) + Σ_{i=1}^{K−1} (η_{i−1} − η_i) F(τ_i)`, then each
//!   `F(τ_i)` replaced by `F_n(τ_i) ± ε` according to the sign of its coefficient (the band is *not* clipped to
//!   [0, 1] there) and `F(τ_0)` by its clipped lower band. Two caveats, both inherited from the reference:
//!   the cell sum starts with `F(τ_1) − F(τ_0)`, so probability mass exactly at 0 (an atom, common for
//!   ROUGE-type scores) is left out; and `μ̲, μ̄` always come from conbo's default 100-point grid whatever
//!   `stepsize` is (conbo calls `expectation_bounds(samples, alpha)` without passing `stepsize`).
//! * `PerBin { atom_at_zero }`: each cell probability bounded on its own, `P(cell i) ≤ U_{i+1} − L_i`, with
//!   `U_K = L_K = 1` (`F(1) = 1` on [0, 1]) and, if `atom_at_zero`, `L_0 = 0` so that the first cell covers the
//!   atom at 0. Valid, but it spends the band once per cell and is loose for fine grids (it can exceed the
//!   trivial `Var ≤ 1/4`).
//! * `Lp { atom_at_zero }`: the exact maximum of `Σ η_i (F(τ_{i+1}) − F(τ_i))` (first term `η_0 F(τ_1)` if
//!   `atom_at_zero`) over all non-decreasing `F` inside the band — the tightest bound this `η` allows.
//!
//! `PerBin` and `Lp` use `μ̲, μ̄` from the same grid. They follow the golden reference's derivation
//! (tests/fixtures/golden/leakage.json, `sd_bound_cases`); `Lp` there was solved with HiGHS, here exactly by
//! the dynamic programme described at [`SdMethod::Lp`].

use serde::{Deserialize, Serialize};

use super::{DEFAULT_ALPHA, DEFAULT_STEPSIZE, Ecdf, GridBand, check_stepsize, check_unit_samples, numpy};
use crate::check;
use crate::error::Result;
use crate::note::{Note, NoteKind};

/// Largest variance of any distribution on [0, 1]; a bound above it carries no information.
const MAX_VARIANCE_ON_UNIT_INTERVAL: f64 = 0.25;

/// Which bound on the cell probabilities the variance bound uses (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SdMethod {
    /// conbo's `variance_bounds` line by line (also gives a lower bound). The default.
    #[default]
    Conbo,
    /// Each cell probability bounded by `U_{i+1} − L_i` on its own.
    PerBin {
        /// Count the probability mass exactly at 0 in the first cell (`L_0 = 0`). Without it the bound
        /// ignores `P(X = 0)`, as the paper's formula does.
        atom_at_zero: bool,
    },
    /// The exact maximum over monotone CDFs in the DKW band.
    ///
    /// The maximum of the linear objective `c·f` over `{f : L_j ≤ f_j ≤ U_j, f_{j−1} ≤ f_j}` (a non-empty
    /// polytope: `f = L` is in it) is attained at a vertex. At a vertex, split the indices into maximal runs
    /// joined by tight `f_{j−1} = f_j`; each run shares one value, and unless some bound `L_j` or `U_j` of
    /// the run is tight the run could be shifted without leaving the face, so the point would not be a
    /// vertex. Hence every vertex has all coordinates in `V = {L_j} ∪ {U_j}`, and a dynamic programme over
    /// non-decreasing sequences with values in `V` (a running maximum over sorted `V`, `O(K·|V|)`) attains
    /// the LP optimum exactly.
    Lp {
        /// As for [`SdMethod::PerBin`].
        atom_at_zero: bool,
    },
}

/// Settings of [`variance_bounds`] / [`std_bounds`]; the defaults are conbo's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct VarianceParams {
    /// Significance level: the two-sided DKW band at `1 − alpha` (conbo default 0.01). conbo warns not to
    /// pass `2·alpha` for a one-sided use, because the bound uses both sides of the band.
    pub alpha: f64,
    /// Grid size `s` of `np.linspace(0, 1, s)` (conbo default 100); `K = s − 1` cells.
    pub stepsize: usize,
    /// How the cell probabilities are bounded.
    pub method: SdMethod,
}

impl Default for VarianceParams {
    fn default() -> Self {
        VarianceParams {
            alpha: DEFAULT_ALPHA,
            stepsize: DEFAULT_STEPSIZE,
            method: SdMethod::Conbo,
        }
    }
}

/// Confidence bounds on `Var X` (see [`variance_bounds`]).
#[derive(Debug, Clone, Serialize)]
pub struct VarianceBounds {
    /// conbo's sample variance `max(mean(X²) − mean(X)², 0)` (one pass, population).
    pub sample_variance: f64,
    /// Lower bound (conbo only: `None` for `PerBin` and `Lp`). conbo takes `η` minima over the four cell
    /// corners, which is not the minimum over the cell when `[μ̲, μ̄]` overlaps it, so treat it as indicative.
    pub lower: Option<f64>,
    /// Upper bound on `Var X`: the paper's `M_σ²`.
    pub upper: f64,
    /// The expectation bounds `μ̲` that entered `η`.
    pub mu_lower: f64,
    /// The expectation bounds `μ̄` that entered `η`.
    pub mu_upper: f64,
    /// Two-sided DKW half-width.
    pub eps: f64,
    /// Grid size used.
    pub stepsize: usize,
    /// Method used.
    pub method: SdMethod,
    /// Number of samples.
    pub n: usize,
    /// Caveats: an omitted atom at 0, a vacuous bound.
    pub warnings: Vec<Note>,
}

/// Confidence bounds on the standard deviation (see [`std_bounds`]).
#[derive(Debug, Clone, Serialize)]
pub struct StdBounds {
    /// `sqrt` of conbo's sample variance.
    pub sample_std: f64,
    /// `sqrt` of the variance lower bound (conbo only).
    pub lower: Option<f64>,
    /// `sqrt` of the variance upper bound: the paper's Metric 4 `M_σ`.
    pub upper: f64,
    /// See [`VarianceBounds::mu_lower`].
    pub mu_lower: f64,
    /// See [`VarianceBounds::mu_upper`].
    pub mu_upper: f64,
    /// Two-sided DKW half-width.
    pub eps: f64,
    /// Grid size used.
    pub stepsize: usize,
    /// Method used.
    pub method: SdMethod,
    /// Number of samples.
    pub n: usize,
    /// Caveats, as for [`VarianceBounds`].
    pub warnings: Vec<Note>,
}

/// Distribution-free bounds on `Var X` for `X ∈ [0, 1]`, holding with probability at least `1 − alpha`
/// (the two-sided DKW band; conbo's convention).
///
/// The default, [`SdMethod::Conbo`], is conbo's `variance_bounds(samples, alpha, stepsize)` ported line by
/// line (same `η` maxima/minima, same sign rule `2·(diff > 0) − 1`, same final `max(·, 0)` on the lower
/// bound, same pairwise sums). The stricter [`SdMethod::PerBin`] and [`SdMethod::Lp`] follow the golden
/// reference; see the module documentation for how the three differ. Warnings are attached when samples at
/// exactly 0 are present but the method leaves out the atom at 0, and when the upper bound exceeds 1/4.
///
/// # Errors
/// [`crate::Error::Empty`], [`crate::Error::NonFinite`], [`crate::Error::OutOfDomain`] (first sample outside
/// [0, 1]); [`crate::Error::InvalidParameter`] for `alpha ∉ (0, 1)` or `stepsize < 2`.
///
/// # Examples
/// ```
/// use lethe::leakage::{variance_bounds, SdMethod, VarianceParams};
/// let scores: Vec<f64> = (0..500).map(|i| (i % 10) as f64 / 10.0).collect();
/// let conbo = variance_bounds(&scores, &VarianceParams::default()).unwrap();
/// assert!(conbo.upper >= conbo.sample_variance);
/// let lp = VarianceParams { method: SdMethod::Lp { atom_at_zero: true }, stepsize: 21, ..Default::default() };
/// let tight = variance_bounds(&scores, &lp).unwrap();
/// assert!(tight.upper >= tight.sample_variance && tight.lower.is_none());
/// ```
pub fn variance_bounds(samples: &[f64], params: &VarianceParams) -> Result<VarianceBounds> {
    check_unit_samples(samples)?;
    check::unit_open("alpha", params.alpha)?;
    check_stepsize(
        params.stepsize,
        samples.len(),
        matches!(params.method, SdMethod::Lp { .. }),
    )?;
    let ecdf = Ecdf::new(samples);
    let band = GridBand::new(&ecdf, params.alpha, params.stepsize);

    let (lower, upper, mu_lower, mu_upper, atom_covered) = match params.method {
        SdMethod::Conbo => {
            let (lo, up, mu_lo, mu_hi) = conbo(&ecdf, &band, params.alpha);
            (Some(lo), up, mu_lo, mu_hi, false)
        }
        SdMethod::PerBin { atom_at_zero } | SdMethod::Lp { atom_at_zero } => {
            let (mu_lo, mu_hi) = band.expectation();
            let eta = eta_max(&band.t, mu_lo, mu_hi);
            let (l, u) = cell_band(&band, atom_at_zero);
            let up = if matches!(params.method, SdMethod::Lp { .. }) {
                lp_max(&eta, &l, &u, atom_at_zero)
            } else {
                let terms: Vec<f64> = eta.iter().enumerate().map(|(i, e)| e * (u[i + 1] - l[i])).collect();
                numpy::sum(&terms)
            };
            (None, up, mu_lo, mu_hi, atom_at_zero)
        }
    };

    let sq: Vec<f64> = samples.iter().map(|v| v * v).collect();
    let m = numpy::mean(samples);
    let sample_variance = (numpy::mean(&sq) - m * m).max(0.0);

    let mut warnings = Vec::new();
    let zeros = samples.iter().filter(|&&v| v == 0.0).count();
    if zeros > 0 && !atom_covered {
        warnings.push(Note::new(
            NoteKind::MassAtZeroLeftOut,
            format!(
                "{zeros} of {} samples are exactly 0; this bound leaves out the probability mass at 0 (the paper's \
             formula starts at F(tau_1) - F(tau_0)), so it may under-cover; use the LP method, or the per-bin \
             method with the mass at 0 counted in the first cell",
                samples.len()
            ),
        ));
    }
    if upper > MAX_VARIANCE_ON_UNIT_INTERVAL {
        warnings.push(Note::new(
            NoteKind::SdBoundUninformative,
            format!(
            "the variance bound {upper:.6} exceeds 1/4, the largest variance of any distribution on [0, 1]; it carries \
             no information (more samples, a coarser grid or the LP method tighten it)"
        ),
        ));
    }

    Ok(VarianceBounds {
        sample_variance,
        lower,
        upper,
        mu_lower,
        mu_upper,
        eps: band.eps,
        stepsize: params.stepsize,
        method: params.method,
        n: samples.len(),
        warnings,
    })
}

/// Distribution-free bounds on the standard deviation of `X ∈ [0, 1]`: the square roots of
/// [`variance_bounds`] (conbo's `std_bounds`; the paper's Metric 4 `M_σ` is `upper`).
///
/// # Errors
/// As [`variance_bounds`].
///
/// # Examples
/// ```
/// use lethe::leakage::{std_bounds, VarianceParams};
/// let s = std_bounds(&[0.1, 0.2, 0.3, 0.4, 0.5], &VarianceParams::default()).unwrap();
/// assert!(s.upper >= s.sample_std);
/// ```
pub fn std_bounds(samples: &[f64], params: &VarianceParams) -> Result<StdBounds> {
    let v = variance_bounds(samples, params)?;
    Ok(StdBounds {
        sample_std: v.sample_variance.sqrt(),
        lower: v.lower.map(f64::sqrt),
        upper: v.upper.sqrt(),
        mu_lower: v.mu_lower,
        mu_upper: v.mu_upper,
        eps: v.eps,
        stepsize: v.stepsize,
        method: v.method,
        n: v.n,
        warnings: v.warnings,
    })
}

/// The four squared corner distances `(τ − a)²` of cell `i`, in conbo's stacking order.
fn corners(t: &[f64], i: usize, mu_lo: f64, mu_hi: f64) -> [f64; 4] {
    let sq = |x: f64| x * x;
    [
        sq(t[i] - mu_lo),
        sq(t[i] - mu_hi),
        sq(t[i + 1] - mu_lo),
        sq(t[i + 1] - mu_hi),
    ]
}

fn eta_max(t: &[f64], mu_lo: f64, mu_hi: f64) -> Vec<f64> {
    (0..t.len() - 1)
        .map(|i| {
            corners(t, i, mu_lo, mu_hi)
                .into_iter()
                .fold(f64::NEG_INFINITY, f64::max)
        })
        .collect()
}

fn eta_min(t: &[f64], mu_lo: f64, mu_hi: f64) -> Vec<f64> {
    (0..t.len() - 1)
        .map(|i| corners(t, i, mu_lo, mu_hi).into_iter().fold(f64::INFINITY, f64::min))
        .collect()
}

/// conbo `variance_bounds`, "second inequality": returns `(var_lower, var_upper, μ̲, μ̄)`.
fn conbo(ecdf: &Ecdf, band: &GridBand, alpha: f64) -> (f64, f64, f64, f64) {
    // conbo calls expectation_bounds(samples, alpha=alpha): the mean bounds always use its default grid.
    let (mu_lo, mu_hi) = GridBand::new(ecdf, alpha, DEFAULT_STEPSIZE).expectation();
    let e_max = eta_max(&band.t, mu_lo, mu_hi);
    let e_min = eta_min(&band.t, mu_lo, mu_hi);
    let k = e_max.len();
    let eps = band.eps;
    // `(2*(diff > 0) - 1) * eps` is ±eps exactly; interior grid points only (`cdf[1:-1]`), band unclipped.
    let signed = |diff: f64| if diff > 0.0 { eps } else { -eps };

    let up_terms: Vec<f64> = (0..k - 1)
        .map(|j| {
            let diff = e_max[j] - e_max[j + 1];
            (band.cdf[j + 1] + signed(diff)) * diff
        })
        .collect();
    let var_upper = numpy::sum(&up_terms) + (e_max[k - 1] - e_max[0] * band.lower[0]);

    let lo_terms: Vec<f64> = (0..k - 1)
        .map(|j| {
            let diff = e_min[j] - e_min[j + 1];
            (band.cdf[j + 1] - signed(diff)) * diff
        })
        .collect();
    let var_lower = (numpy::sum(&lo_terms) + (e_min[k - 1] - e_min[0] * band.upper[0])).max(0.0);

    (var_lower, var_upper, mu_lo, mu_hi)
}

/// The band at the grid points for the cell bounds: `F(1) = 1` pins the last point, and `atom_at_zero` frees
/// `F(τ_0)` down to 0 so that the first cell includes `P(X = 0)`.
fn cell_band(band: &GridBand, atom_at_zero: bool) -> (Vec<f64>, Vec<f64>) {
    let mut l = band.lower.clone();
    let mut u = band.upper.clone();
    if let (Some(lk), Some(uk)) = (l.last_mut(), u.last_mut()) {
        *lk = 1.0;
        *uk = 1.0;
    }
    if atom_at_zero && let Some(l0) = l.first_mut() {
        *l0 = 0.0;
    }
    (l, u)
}

/// Exact `max Σ_j c_j f_j` over non-decreasing `f` with `l_j ≤ f_j ≤ u_j`, where the objective is
/// `Σ_i η_i (f_{i+1} − f_i)` (with `f_0` dropped from the first cell when `atom_at_zero`). See [`SdMethod::Lp`].
fn lp_max(eta: &[f64], l: &[f64], u: &[f64], atom_at_zero: bool) -> f64 {
    let k = eta.len();
    let mut c = vec![0.0; k + 1];
    for (i, &e) in eta.iter().enumerate() {
        c[i + 1] += e;
        if !(atom_at_zero && i == 0) {
            c[i] -= e;
        }
    }
    let mut values: Vec<f64> = l.iter().chain(u).copied().collect();
    values.sort_by(f64::total_cmp);
    values.dedup();

    let inside = |j: usize, v: f64| l[j] <= v && v <= u[j];
    let mut best: Vec<f64> = values
        .iter()
        .map(|&v| if inside(0, v) { c[0] * v } else { f64::NEG_INFINITY })
        .collect();
    for (j, &cj) in c.iter().enumerate().skip(1) {
        // best over f_{j-1} ≤ v, then f_j = v.
        let mut run = f64::NEG_INFINITY;
        for (b, &v) in best.iter_mut().zip(&values) {
            run = run.max(*b);
            *b = if inside(j, v) && run > f64::NEG_INFINITY {
                run + cj * v
            } else {
                f64::NEG_INFINITY
            };
        }
    }
    let opt = best.into_iter().fold(f64::NEG_INFINITY, f64::max);
    debug_assert!(
        opt.is_finite(),
        "f = l is always feasible, so the programme has a finite optimum"
    );
    opt
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    /// Tiny deterministic generator (SplitMix64) for seeded invariant checks.
    fn uniforms(seed: u64, n: usize) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                (z >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect()
    }

    /// Brute force over all non-decreasing sequences on a fine value lattice, for tiny problems.
    fn lp_brute(eta: &[f64], l: &[f64], u: &[f64], atom: bool) -> f64 {
        let mut vals: Vec<f64> = l.iter().chain(u).copied().collect();
        vals.extend((0..=40).map(|i| f64::from(i) / 40.0));
        vals.sort_by(f64::total_cmp);
        vals.dedup();
        fn rec(
            j: usize,
            prev: f64,
            f: &mut Vec<f64>,
            v: &[f64],
            l: &[f64],
            u: &[f64],
            obj: &dyn Fn(&[f64]) -> f64,
        ) -> f64 {
            if j == l.len() {
                return obj(f);
            }
            let mut best = f64::NEG_INFINITY;
            for &x in v.iter().filter(|&&x| x >= prev && l[j] <= x && x <= u[j]) {
                f.push(x);
                best = best.max(rec(j + 1, x, f, v, l, u, obj));
                f.pop();
            }
            best
        }
        let obj = |f: &[f64]| {
            eta.iter()
                .enumerate()
                .map(|(i, e)| e * (f[i + 1] - if atom && i == 0 { 0.0 } else { f[i] }))
                .sum::<f64>()
        };
        rec(0, f64::NEG_INFINITY, &mut Vec::new(), &vals, l, u, &obj)
    }

    #[test]
    fn lp_dynamic_programme_matches_brute_force() {
        for seed in 0..40 {
            let r = uniforms(seed, 12);
            // A non-decreasing band on 5 points with the last pinned at 1.
            let mut f: Vec<f64> = r[..4].to_vec();
            f.sort_by(f64::total_cmp);
            f.push(1.0);
            let eps = 0.05 + 0.2 * r[4];
            let mut l: Vec<f64> = f.iter().map(|v| (v - eps).max(0.0)).collect();
            let mut u: Vec<f64> = f.iter().map(|v| (v + eps).min(1.0)).collect();
            l[4] = 1.0;
            u[4] = 1.0;
            let eta: Vec<f64> = r[5..9].to_vec();
            for atom in [false, true] {
                if atom {
                    l[0] = 0.0;
                }
                let dp = lp_max(&eta, &l, &u, atom);
                let bf = lp_brute(&eta, &l, &u, atom);
                assert!((dp - bf).abs() < 1e-12, "seed {seed} atom {atom}: dp {dp} brute {bf}");
            }
        }
    }

    #[test]
    fn bounds_are_ordered_and_cover_the_sample_variance() {
        for seed in 0..20 {
            let s: Vec<f64> = uniforms(100 + seed, 300).into_iter().map(|v| v * v).collect();
            for stepsize in [2, 5, 11, 100] {
                let lp = variance_bounds(
                    &s,
                    &VarianceParams {
                        alpha: 0.05,
                        stepsize,
                        method: SdMethod::Lp { atom_at_zero: true },
                    },
                )
                .unwrap();
                let pb = variance_bounds(
                    &s,
                    &VarianceParams {
                        alpha: 0.05,
                        stepsize,
                        method: SdMethod::PerBin { atom_at_zero: true },
                    },
                )
                .unwrap();
                assert!(
                    lp.upper <= pb.upper + 1e-12,
                    "LP is the tightest cell bound: {} > {}",
                    lp.upper,
                    pb.upper
                );
                assert!(lp.upper >= lp.sample_variance, "seed {seed} stepsize {stepsize}");
                let c = variance_bounds(
                    &s,
                    &VarianceParams {
                        alpha: 0.05,
                        stepsize,
                        method: SdMethod::Conbo,
                    },
                )
                .unwrap();
                let lo = c.lower.unwrap_or(f64::NAN);
                assert!(lo >= 0.0 && lo <= c.upper);
            }
        }
    }

    #[test]
    fn atom_warning_and_vacuous_warning() {
        let mut s = vec![0.0; 10];
        s.extend([0.5, 0.9]);
        let conbo = variance_bounds(&s, &VarianceParams::default()).unwrap();
        assert!(conbo.warnings.iter().any(|w| w.contains("exactly 0")));
        let lp = variance_bounds(
            &s,
            &VarianceParams {
                method: SdMethod::Lp { atom_at_zero: true },
                ..Default::default()
            },
        )
        .unwrap();
        assert!(!lp.warnings.iter().any(|w| w.contains("exactly 0")));
        let pb = variance_bounds(
            &[0.3],
            &VarianceParams {
                stepsize: 21,
                method: SdMethod::PerBin { atom_at_zero: true },
                ..Default::default()
            },
        )
        .unwrap();
        assert!(pb.upper > 1.0 && pb.warnings.iter().any(|w| w.contains("exceeds 1/4")));
    }

    #[test]
    fn std_is_sqrt_of_variance() {
        let s = uniforms(7, 64);
        let p = VarianceParams::default();
        let v = variance_bounds(&s, &p).unwrap();
        let d = std_bounds(&s, &p).unwrap();
        assert_eq!(d.upper, v.upper.sqrt());
        assert_eq!(d.lower, v.lower.map(f64::sqrt));
        assert_eq!(d.sample_std, v.sample_variance.sqrt());
    }

    #[test]
    fn params_deserialize_with_defaults() {
        let p: VarianceParams = serde_json::from_str(r#"{"method": {"Lp": {"atom_at_zero": true}}}"#).unwrap();
        assert_eq!(p.alpha, DEFAULT_ALPHA);
        assert_eq!(p.stepsize, DEFAULT_STEPSIZE);
        assert_eq!(p.method, SdMethod::Lp { atom_at_zero: true });
    }
}
