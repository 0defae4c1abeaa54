//! HSIC and its permutation null, step by step: paired data with a chosen dependence, the two kernels, the
//! observed statistic, the exact mean and sd of its permutation null, and the null growing shuffle by shuffle (the
//! permutation stream of `lethe hsic --seed`, in order).

use lethe::backend::{Backend, CpuBackend, Precision, PreparedPair};
use lethe::divergence::histogram;
use lethe::hsic::{PermutationRun, permutation_p_value};
use lethe::kernel::{self, Bandwidth};
use lethe::permute::{Permutations, Stream};
use lethe::sde;
use serde::{Deserialize, Serialize};

use super::{Teaching, check_range, check_unit, column, ready};
use crate::synthetic::Rng;
use crate::{Error, Result};

/// How `y` depends on `x` in the HSIC topic's data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dependence {
    /// `y = s·x + √(1 − s²)·e`: correlation `s`.
    #[default]
    Linear,
    /// `y = s·(x² − 1)/√2 + √(1 − s²)·e`: uncorrelated with `x` for every `s`, yet dependent when `s > 0`.
    Nonlinear,
    /// `y = e`: independent of `x` (the strength is ignored).
    None,
}

/// The HSIC topic's paired data: `x, e ~ N(0, 1)` independent, `y` from [`Dependence`] and strength `s ∈ [0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PairsSpec {
    pub kind: Dependence,
    pub strength: f64,
    pub n: usize,
    pub seed: u64,
}

impl Default for PairsSpec {
    fn default() -> Self {
        Self {
            kind: Dependence::Linear,
            strength: 0.5,
            n: 60,
            seed: 0,
        }
    }
}

/// Largest sample of the HSIC topic (its kernel heat maps send n² values per matrix to the page).
pub const MAX_HSIC_N: usize = 300;
/// Most shuffles of the HSIC topic.
pub const MAX_PERMUTATIONS: usize = 5000;
/// Bins of the growing null histogram.
const HSIC_BINS: usize = 30;

/// The pairs `(x, y)`, ordered by `x` (HSIC is unchanged when the pairs are reordered together; ordering by `x`
/// makes the kernel heat maps readable).
///
/// # Errors
/// `n` outside `4..=300`, a strength outside [0, 1].
pub fn pairs(spec: &PairsSpec) -> Result<(Vec<f64>, Vec<f64>)> {
    check_range("n", spec.n, 4, MAX_HSIC_N)?;
    let s = check_unit("strength", spec.strength)?;
    let mut rng = Rng::new(spec.seed, 0x4a51_c001);
    let noise = (1.0 - s * s).sqrt();
    let mut xy: Vec<(f64, f64)> = (0..spec.n)
        .map(|_| {
            let x = rng.normal();
            let e = rng.normal();
            let y = match spec.kind {
                Dependence::Linear => s * x + noise * e,
                Dependence::Nonlinear => s * (x * x - 1.0) / std::f64::consts::SQRT_2 + noise * e,
                Dependence::None => e,
            };
            (x, y)
        })
        .collect();
    xy.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(xy.into_iter().unzip())
}

/// An HSIC permutation test to run step by step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HsicRequest {
    pub data: PairsSpec,
    /// Bandwidth of both kernels (`median`, `sqrt_dim` = 1 for one column, or `{fixed: σ}`).
    pub sigma: Bandwidth,
    /// Shuffles B.
    pub permutations: usize,
}

impl Default for HsicRequest {
    fn default() -> Self {
        Self {
            data: PairsSpec::default(),
            sigma: Bandwidth::Median,
            permutations: 999,
        }
    }
}

/// What the HSIC figure shows before any shuffle: the data, the kernels, the observed statistic and the exact
/// mean and sd of its permutation null.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HsicPrepared {
    /// Identifies the permutation run for [`Teaching::hsic_step`].
    pub session: u64,
    pub n: usize,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    /// RBF kernel of `x` (n × n, row-major, rows in the order of `x`).
    pub k: Vec<f64>,
    /// RBF kernel of `y`.
    pub l: Vec<f64>,
    /// The kernel of `y` after the run's first shuffle of the rows of `y` (`L[p(i), p(j)]`).
    pub l_shuffled: Vec<f64>,
    pub sigma_x: f64,
    pub sigma_y: f64,
    /// Observed biased HSIC, `Tr(K H L H)/(n − 1)²` (as `lethe hsic`).
    pub statistic: f64,
    /// Exact mean and sd of HSIC over all shuffles (`lethe::sde::moments`: the permutation null's moments).
    pub null_mean: f64,
    pub null_sd: f64,
    /// Edges of the null histogram.
    pub edges: Vec<f64>,
    pub permutations: usize,
    pub seed: u64,
}

/// One step of the run: the new shuffled values, the histogram so far and the p-value so far.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HsicStep {
    pub session: u64,
    /// Values of the shuffles scored in this step, in order.
    pub values: Vec<f64>,
    /// Shuffles scored so far, of `total`.
    pub done: usize,
    pub total: usize,
    /// `b`: shuffled values ≥ the observed statistic so far.
    pub exceedances: usize,
    /// `(1 + b)/(1 + done)`.
    pub p_value: f64,
    /// Counts of all values so far on the prepared edges, and those beyond either end.
    pub counts: Vec<u64>,
    pub below: usize,
    pub above: usize,
    pub complete: bool,
}

/// A permutation run kept between steps.
pub(crate) struct HsicSession {
    id: u64,
    backend: CpuBackend,
    run: PermutationRun<<CpuBackend as Backend>::Pair>,
    observed: f64,
    range: (f64, f64),
}

/// Runs kept at once (several figures can share a worker); the oldest is dropped first.
pub const MAX_SESSIONS: usize = 8;

/// A step request: up to `max` more shuffles of run `session`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HsicStepRequest {
    pub session: u64,
    pub max: usize,
}

impl Teaching {
    /// Builds the kernels of a new HSIC permutation run (the shuffles come in [`Teaching::hsic_step`]).
    ///
    /// # Errors
    /// Bad data parameters, an invalid bandwidth, `permutations` outside `1..=5000`.
    pub fn hsic_prepare(&mut self, req: &HsicRequest) -> Result<HsicPrepared> {
        let (x, y) = pairs(&req.data)?;
        check_range("permutations", req.permutations, 1, MAX_PERMUTATIONS)?;
        let sigma = req.sigma.validate().map_err(|e| Error::from(e).or_at("sigma"))?;
        let (xm, ym) = (column(&x)?, column(&y)?);
        let n = x.len();
        let mut backend = CpuBackend::new(Precision::F64);
        let pair = ready(backend.prepare(xm.view(), ym.view(), sigma, sigma))??;
        // The observed statistic exactly as the permutation test computes it: the identity permutation's score.
        let identity: Vec<u32> = (0..n as u32).collect();
        let mut observed = [0.0];
        ready(backend.score(&pair, &identity, &mut observed))??;
        let stats = pair.stats();
        let moments = sde::shuffle_moments(&stats.kc_sums, &stats.l_sums);
        let k: kernel::Kernel<f64> = kernel::rbf(xm.view(), sigma)?;
        let l: kernel::Kernel<f64> = kernel::rbf(ym.view(), sigma)?;
        let mut p = vec![0u32; n];
        Permutations::for_subset(req.data.seed, Stream::Shuffles, 0).fill(&mut p);
        let l_shuffled = (0..n * n)
            .map(|ij| l.values[p[ij / n] as usize * n + p[ij % n] as usize])
            .collect();
        // The histogram spans the null's bulk (HSIC ≥ 0); an observed value far beyond it is marked at the edge.
        let lo = (moments.mean - 4.0 * moments.sd).max(0.0);
        let hi = (moments.mean + 6.0 * moments.sd).max(lo + f64::EPSILON.max(moments.mean * 1e-9));
        let edges = histogram(&[], HSIC_BINS, Some((lo, hi)))?.edges;
        let id = self.next_session;
        self.next_session += 1;
        let run = PermutationRun::new(pair, req.data.seed, 0, req.permutations);
        if self.sessions.len() >= MAX_SESSIONS {
            self.sessions.remove(0);
        }
        self.sessions.push(HsicSession {
            id,
            backend,
            run,
            observed: observed[0],
            range: (lo, hi),
        });
        Ok(HsicPrepared {
            session: id,
            n,
            x,
            y,
            k: k.values,
            l: l.values,
            l_shuffled,
            sigma_x: stats.x.sigma,
            sigma_y: stats.y.sigma,
            statistic: observed[0],
            null_mean: moments.mean,
            null_sd: moments.sd,
            edges,
            permutations: req.permutations,
            seed: req.data.seed,
        })
    }

    /// Scores up to `max` more shuffles of a prepared run (the permutation stream of `lethe hsic --seed`, in order).
    ///
    /// # Errors
    /// An unknown (replaced or dropped) session.
    pub fn hsic_step(&mut self, req: &HsicStepRequest) -> Result<HsicStep> {
        let session = self
            .sessions
            .iter_mut()
            .find(|x| x.id == req.session)
            .ok_or_else(|| Error::msg(format!("HSIC run {} is no longer kept; prepare it again", req.session)))?;
        let start = session.run.values().len();
        if !session.run.is_done() {
            ready(
                session
                    .run
                    .step(&mut session.backend, req.max.clamp(1, MAX_PERMUTATIONS)),
            )??;
        }
        let values = session.run.values();
        let p = permutation_p_value(session.observed, values);
        let (lo, hi) = session.range;
        let h = histogram(values, HSIC_BINS, Some((lo, hi)))?;
        Ok(HsicStep {
            session: req.session,
            values: values[start..].to_vec(),
            done: values.len(),
            total: session.run.total(),
            exceedances: p.exceedances,
            p_value: p.p_value,
            counts: h.counts,
            below: values.iter().filter(|&&v| v < lo).count(),
            above: values.iter().filter(|&&v| v > hi).count(),
            complete: session.run.is_done(),
        })
    }
}
