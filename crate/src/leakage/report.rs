//! Every leakage bound on one sample of scores, as the CLI and the widget show them.

use serde::{Deserialize, Serialize};

use super::{
    BinaryLeakageBound, DEFAULT_ALPHA, DEFAULT_RHO, DEFAULT_STEPSIZE, EdScore, ExpectationBounds, GeneralLeakageBound,
    SampleSizeParams, SampleSizePlan, SdMethod, Sidedness, StdBounds, VarianceParams,
};
use crate::error::Result;
use crate::note::Note;

/// Settings of [`report`]; defaults follow conbo (two-sided alpha = 0.01, stepsize 100) and the paper (rho = 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LeakageParams {
    pub alpha: f64,
    /// How `alpha` is spent by `M_bin` and `M_gen` (the expectation and SD bounds always use the two-sided band).
    pub sidedness: Sidedness,
    /// Points at which `M_gen(x) ≥ Pr(X > x)` is reported.
    pub x: Vec<f64>,
    pub stepsize: usize,
    pub sd_method: SdMethod,
    pub rho: f64,
    /// Half-width asked of the sample-size planner.
    pub plan_width: f64,
}

impl Default for LeakageParams {
    fn default() -> Self {
        Self {
            alpha: DEFAULT_ALPHA,
            sidedness: Sidedness::TwoSided,
            x: vec![0.25, 0.5, 0.75],
            stepsize: DEFAULT_STEPSIZE,
            sd_method: SdMethod::Conbo,
            rho: DEFAULT_RHO,
            plan_width: 0.05,
        }
    }
}

/// All bounds for one sample.
#[derive(Debug, Clone, Serialize)]
pub struct LeakageReport {
    pub n: usize,
    /// Present when every score is exactly 0 or 1 (binary leak flags).
    pub binary: Option<BinaryLeakageBound>,
    pub general: GeneralLeakageBound,
    pub expectation: ExpectationBounds,
    pub std: StdBounds,
    pub ed: EdScore,
    /// Samples needed for a band (and, for binary flags, a bound) of half-width `plan_width` at the observed rate.
    pub plan: SampleSizePlan,
    pub params: LeakageParams,
    pub warnings: Vec<Note>,
}

/// Computes [`super::m_bin_scores`] (for 0/1 data), [`super::m_gen`], [`super::expectation_bounds`],
/// [`super::std_bounds`], [`super::ed_score`] and [`super::plan_sample_size`] on `scores` in [0, 1].
///
/// # Errors
/// As the individual bounds: empty input, values outside [0, 1] or non-finite, invalid parameters.
///
/// # Examples
/// ```
/// let scores = [0.0, 0.1, 0.0, 0.4, 0.2, 0.0, 0.9, 0.05];
/// let r = lethe::leakage::report(&scores, &Default::default()).unwrap();
/// assert!(r.binary.is_none() && r.expectation.upper >= r.expectation.mean);
/// ```
pub fn report(scores: &[f64], params: &LeakageParams) -> Result<LeakageReport> {
    let binary_data = !scores.is_empty() && scores.iter().all(|&v| v == 0.0 || v == 1.0);
    let binary = if binary_data {
        Some(super::m_bin_scores(scores, params.alpha, params.sidedness)?)
    } else {
        None
    };
    let vp = VarianceParams {
        alpha: params.alpha,
        stepsize: params.stepsize,
        method: params.sd_method,
    };
    let std = super::std_bounds(scores, &vp)?;
    let mut warnings = std.warnings.clone();
    let expectation = super::expectation_bounds(scores, params.alpha, params.stepsize)?;
    let general = super::m_gen(scores, &params.x, params.alpha, params.sidedness)?;
    warnings.extend(general.warnings.iter().cloned());
    let leak_rate = binary.as_ref().map_or(0.0, |b| b.leak_rate);
    let plan = super::plan_sample_size(&SampleSizeParams {
        width: params.plan_width,
        alpha: params.alpha,
        leak_rate,
        sidedness: params.sidedness,
    })?;
    warnings.sort_by(|a, b| a.message.cmp(&b.message));
    warnings.dedup_by(|a, b| a.message == b.message);
    Ok(LeakageReport {
        n: scores.len(),
        binary,
        general,
        expectation,
        std,
        ed: super::ed_score(scores, params.rho)?,
        plan,
        params: params.clone(),
        warnings,
    })
}
