//! Confidence bounds on leakage: seeded leakage scores (or flags), the ECDF with its DKW band against the
//! generating CDF, `M_gen` and `M_bin` at one threshold, the bounds on the mean, how the bounds tighten as samples
//! accumulate, and the sample-size calculator.

use lethe::leakage::convergence::{Convergence, convergence};
use lethe::leakage::{
    self, BinaryLeakageBound, CdfBand, ExpectationBounds, GeneralLeakageBound, SampleSizeParams, SampleSizePlan,
    Sidedness,
};
use serde::{Deserialize, Serialize};

use super::{check_finite, check_range, check_unit};
use crate::plots::ecdf_grid;
use crate::synthetic::Rng;
use crate::{Error, Result};

/// The distribution of the leakage scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// With probability `p0` exactly 0 (no leak), else `U^k` with `U` uniform on [0, 1].
    #[default]
    Scores,
    /// 1 (the secret appeared) with probability `p`, else 0.
    Flags,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScoresSpec {
    pub family: Family,
    pub n: usize,
    pub p0: f64,
    pub k: f64,
    pub p: f64,
    pub seed: u64,
}

impl Default for ScoresSpec {
    fn default() -> Self {
        Self {
            family: Family::Scores,
            n: 200,
            p0: 0.6,
            k: 1.5,
            p: 0.05,
            seed: 0,
        }
    }
}

/// Most sampled scores in the bounds topic.
pub const MAX_SCORES: usize = 20_000;

impl ScoresSpec {
    fn check(&self) -> Result<()> {
        check_range("n", self.n, 1, MAX_SCORES)?;
        check_unit("p0", self.p0)?;
        check_unit("p", self.p)?;
        check_finite("k", self.k, 0.05, 20.0)?;
        Ok(())
    }

    /// The generating distribution's `P(X ≤ x)`.
    pub fn cdf(&self, x: f64) -> f64 {
        if x < 0.0 {
            return 0.0;
        }
        if x >= 1.0 {
            return 1.0;
        }
        match self.family {
            Family::Scores => self.p0 + (1.0 - self.p0) * x.powf(1.0 / self.k),
            Family::Flags => 1.0 - self.p,
        }
    }

    /// The generating distribution's mean.
    pub fn mean(&self) -> f64 {
        match self.family {
            Family::Scores => (1.0 - self.p0) / (1.0 + self.k),
            Family::Flags => self.p,
        }
    }
}

/// The bounds topic's scores.
///
/// # Errors
/// `n` outside `1..=20000`, probabilities outside [0, 1], `k` outside [0.05, 20].
pub fn scores(spec: &ScoresSpec) -> Result<Vec<f64>> {
    spec.check()?;
    let mut rng = Rng::new(spec.seed, 0xb0a1_d500);
    Ok((0..spec.n)
        .map(|_| match spec.family {
            Family::Scores => {
                if rng.uniform() < spec.p0 {
                    0.0
                } else {
                    rng.uniform().powf(spec.k)
                }
            }
            Family::Flags => f64::from(u8::from(rng.uniform() < spec.p)),
        })
        .collect())
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BoundsRequest {
    pub data: ScoresSpec,
    pub alpha: f64,
    /// The threshold of the leak event `X > x0`.
    pub x0: f64,
    /// The paper's one-sided M_bin / M_gen instead of conbo's two-sided convention.
    pub one_sided: bool,
}

impl Default for BoundsRequest {
    fn default() -> Self {
        Self {
            data: ScoresSpec::default(),
            alpha: 0.05,
            x0: 0.5,
            one_sided: false,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct BoundsView {
    pub scores: Vec<f64>,
    /// ECDF with its two-sided DKW band (conbo's `cdf_bounds`) at every distinct score.
    pub band: CdfBand,
    /// The generating distribution's CDF on a grid.
    pub truth: CdfCurve,
    /// `M_gen(x0) ≥ P(X > x0)`, for all thresholds at once.
    pub m_gen: GeneralLeakageBound,
    /// Clopper–Pearson bound on the leak probability `P(X > x0)`, from the count of scores above `x0`.
    pub m_bin: BinaryLeakageBound,
    pub true_tail: f64,
    pub expectation: ExpectationBounds,
    pub true_mean: f64,
    /// The bounds on the first `n` scores, `n` log-spaced up to all of them.
    pub convergence: Vec<Convergence>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CdfCurve {
    pub x: Vec<f64>,
    pub cdf: Vec<f64>,
}

fn sidedness(one_sided: bool) -> Sidedness {
    if one_sided {
        Sidedness::OneSided
    } else {
        Sidedness::TwoSided
    }
}

/// Every number of the bounds figure.
///
/// # Errors
/// Bad data parameters, `alpha ∉ (0, 1)`, `x0 ∉ [0, 1]`.
pub fn bounds(req: &BoundsRequest) -> Result<BoundsView> {
    let s = scores(&req.data)?;
    let x0 = check_unit("x0", req.x0)?;
    let side = sidedness(req.one_sided);
    let alpha_err = |e: lethe::Error| Error::from(e).or_at("alpha");
    let band = leakage::cdf_bounds(&s, &ecdf_grid(&s), req.alpha).map_err(alpha_err)?;
    let grid = lethe::numpy::linspace(0.0, 1.0, 201);
    let mut tx = vec![-0.0001];
    tx.extend(&grid);
    let truth = CdfCurve {
        cdf: tx.iter().map(|&x| req.data.cdf(x)).collect(),
        x: tx,
    };
    let m_gen = leakage::m_gen(&s, &[x0], req.alpha, side).map_err(alpha_err)?;
    let leaks = s.iter().filter(|&&x| x > x0).count() as u64;
    let m_bin = leakage::m_bin(leaks, s.len() as u64, req.alpha, side).map_err(alpha_err)?;
    let expectation = leakage::expectation_bounds(&s, req.alpha, leakage::DEFAULT_STEPSIZE).map_err(alpha_err)?;
    let convergence = convergence(&s, x0, req.alpha, side)?;
    Ok(BoundsView {
        band,
        truth,
        m_gen,
        m_bin,
        true_tail: 1.0 - req.data.cdf(x0),
        expectation,
        true_mean: req.data.mean(),
        convergence,
        scores: s,
    })
}

/// The sample-size calculator's question.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlanRequest {
    pub width: f64,
    pub alpha: f64,
    pub leak_rate: f64,
    pub one_sided: bool,
}

impl Default for PlanRequest {
    fn default() -> Self {
        Self {
            width: 0.05,
            alpha: 0.05,
            leak_rate: 0.0,
            one_sided: false,
        }
    }
}

/// `lethe::leakage::plan_sample_size`.
///
/// # Errors
/// A width outside (0, 1], `alpha ∉ (0, 1)`, a leak rate outside [0, 1], or a plan beyond 2^40 samples.
pub fn plan(req: &PlanRequest) -> Result<SampleSizePlan> {
    Ok(leakage::plan_sample_size(&SampleSizeParams {
        width: req.width,
        alpha: req.alpha,
        leak_rate: req.leak_rate,
        sidedness: sidedness(req.one_sided),
    })?)
}
