//! The Hilbert–Schmidt Independence Criterion and its permutation test.
//!
//! Biased HSIC (Gretton et al. 2005) with Gaussian RBF kernels `K` on `X` and `L` on `Y`:
//!
//! ```text
//! HSIC(X, Y) = Tr(K H L H) / (n − 1)² = ⟨H K H, L⟩_F / (n − 1)²,      H = I − 11ᵀ/n
//! ```
//!
//! It is ≥ 0 (both centred kernels are PSD) and unchanged when the rows of `X` and `Y` are permuted jointly.
//! [`HsicResult::cka`] is the normalised form `⟨Kc, Lc⟩ / sqrt(⟨Kc, Kc⟩⟨Lc, Lc⟩)`; hyppo's `Hsic(bias=True)`
//! reports `sqrt(cka)` as its statistic, not raw HSIC.
//!
//! The permutation test shuffles the rows of `Y` B times and reports `p = (1 + b) / (1 + B)`, where `b` counts
//! shuffled values `≥` the observed one (the +1 correction makes p a valid p-value, never 0).

use serde::{Deserialize, Serialize};

use crate::backend::{now, Backend, BackendInfo, CpuBackend, PairStats, Precision, PreparedPair};
use crate::check;
use crate::data::{MatrixRef, Scalar};
use crate::error::{Error, Result};
use crate::kernel::{self, Bandwidth};
use crate::permute::{Permutations, Stream, RNG_ID};

/// HSIC of one pair of samples.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HsicResult {
    /// Biased HSIC, Tr(KHLH)/(n−1)².
    pub statistic: f64,
    /// Centred kernel alignment ⟨Kc,Lc⟩/sqrt(⟨Kc,Kc⟩⟨Lc,Lc⟩) (hyppo's statistic is its square root); 0 when a
    /// centred kernel is 0 (constant rows: no dependence can be measured), as the golden reference defines it.
    pub cka: f64,
    pub sigma_x: f64,
    pub sigma_y: f64,
    pub n: usize,
}

fn check_pair<S: Scalar>(x: MatrixRef<'_, S>, y: MatrixRef<'_, S>, procedure: &'static str) -> Result<()> {
    check::matrix("x", x, 2, procedure)?;
    check::matrix("y", y, 2, procedure)?;
    if x.rows() != y.rows() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "x has {} rows but y has {}; HSIC pairs row i of x with row i of y, so they must match",
                x.rows(),
                y.rows()
            ),
        });
    }
    if x.rows() > u32::MAX as usize {
        return Err(Error::param("n", x.rows(), "at most 2^32 − 1 rows"));
    }
    Ok(())
}

/// Biased HSIC of `x` and `y` (rows paired), f64 throughout.
///
/// # Errors
/// Empty, non-finite or single-row inputs, differing row counts, or an invalid fixed bandwidth.
///
/// # Examples
/// ```
/// use lethe::{hsic::hsic, kernel::Bandwidth, Matrix};
/// let x = Matrix::from_rows(&[[0.0], [1.0], [2.0], [3.0]]).unwrap();
/// let r = hsic(x.view(), x.view(), Bandwidth::SqrtDim, Bandwidth::SqrtDim).unwrap();
/// assert!(r.statistic > 0.0 && (r.cka - 1.0).abs() < 1e-12);
/// ```
pub fn hsic<S: Scalar>(x: MatrixRef<'_, S>, y: MatrixRef<'_, S>, bw_x: Bandwidth, bw_y: Bandwidth) -> Result<HsicResult> {
    check_pair(x, y, "HSIC")?;
    let n = x.rows();
    let k = kernel::rbf::<S, f64>(x, bw_x)?;
    let l = kernel::rbf::<S, f64>(y, bw_y)?;
    let kc = kernel::center_kernel(&k.values, n);
    let lc = kernel::center_kernel(&l.values, n);
    let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(u, v)| u * v).sum::<f64>();
    let kl = dot(&kc, &lc);
    let denom = (dot(&kc, &kc) * dot(&lc, &lc)).sqrt();
    Ok(HsicResult {
        statistic: dot(&kc, &l.values) / ((n - 1) * (n - 1)) as f64,
        cka: if denom > 0.0 { kl / denom } else { 0.0 },
        sigma_x: k.stats.sigma,
        sigma_y: l.stats.sigma,
        n,
    })
}

/// A resumable run of `total` shuffle scores on one prepared pair: call [`PermutationRun::step`] until
/// [`PermutationRun::is_done`]; between steps a caller can report progress, check for cancellation, or stop and
/// keep the values so far. The permutations are those of `Permutations::new(seed, Stream::Shuffles)`, in order, so
/// a run split into any steps gives the same values as one uninterrupted run.
#[derive(Debug)]
pub struct PermutationRun<P> {
    pair: P,
    n: usize,
    total: usize,
    perms: Permutations,
    values: Vec<f64>,
    buf: Vec<u32>,
}

impl<P: PreparedPair> PermutationRun<P> {
    pub fn new(pair: P, seed: u64, total: usize) -> Self {
        let n = pair.stats().n;
        Self {
            pair,
            n,
            total,
            perms: Permutations::new(seed, Stream::Shuffles),
            values: Vec::with_capacity(total),
            buf: Vec::new(),
        }
    }

    /// Scores up to `max` more shuffles (at least one unless done).
    ///
    /// # Errors
    /// Backend failures.
    pub async fn step<B: Backend<Pair = P>>(&mut self, backend: &mut B, max: usize) -> Result<()> {
        let count = max.max(1).min(self.total - self.values.len());
        if count == 0 {
            return Ok(());
        }
        self.buf.clear();
        self.perms.extend(self.n, count, &mut self.buf);
        let start = self.values.len();
        self.values.resize(start + count, 0.0);
        backend.score(&self.pair, &self.buf, &mut self.values[start..]).await
    }

    pub fn is_done(&self) -> bool {
        self.values.len() >= self.total
    }
    /// Fraction of the planned shuffles scored so far.
    pub fn progress(&self) -> f64 {
        if self.total == 0 { 1.0 } else { self.values.len() as f64 / self.total as f64 }
    }
    pub fn values(&self) -> &[f64] {
        &self.values
    }
    pub fn total(&self) -> usize {
        self.total
    }
    pub fn pair(&self) -> &P {
        &self.pair
    }
    pub fn into_values(self) -> Vec<f64> {
        self.values
    }
}

/// Parameters of [`hsic_test`].
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HsicTestParams {
    pub bandwidth_x: Bandwidth,
    pub bandwidth_y: Bandwidth,
    /// Number of shuffles B.
    pub permutations: usize,
    pub seed: u64,
    pub precision: Precision,
}

impl Default for HsicTestParams {
    fn default() -> Self {
        Self {
            bandwidth_x: Bandwidth::SqrtDim,
            bandwidth_y: Bandwidth::SqrtDim,
            permutations: 1000,
            seed: 0,
            precision: Precision::F64,
        }
    }
}

/// Result of an HSIC permutation test (possibly stopped early: see `complete`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HsicTestResult {
    pub statistic: f64,
    /// `(1 + b) / (1 + B)` over the shuffles completed.
    pub p_value: f64,
    /// If stopped early: the interval the p-value of the full planned run must lie in.
    pub p_value_bounds: (f64, f64),
    /// `b`: shuffled values ≥ the observed statistic.
    pub exceedances: usize,
    pub permutations_done: usize,
    pub permutations_planned: usize,
    pub complete: bool,
    pub null: Vec<f64>,
    pub sigma_x: f64,
    pub sigma_y: f64,
    pub n: usize,
    pub kernels: PairStats,
    pub seed: u64,
    pub rng: &'static str,
    pub backend: BackendInfo,
}

/// Prepares an HSIC permutation test: validates inputs, builds kernels on `backend`, scores the observed
/// statistic. Drive the returned run with [`PermutationRun::step`] and finish with [`finish_hsic_test`].
///
/// # Errors
/// Bad inputs (see [`hsic`]), `permutations == 0`, backend failures.
pub async fn start_hsic_test<B: Backend, S: Scalar>(
    backend: &mut B,
    x: MatrixRef<'_, S>,
    y: MatrixRef<'_, S>,
    params: &HsicTestParams,
) -> Result<(f64, PermutationRun<B::Pair>)> {
    check_pair(x, y, "the HSIC permutation test")?;
    if params.permutations == 0 {
        return Err(Error::param("permutations", 0, "at least 1 shuffle"));
    }
    let n = x.rows();
    let pair = backend.prepare(x, y, params.bandwidth_x, params.bandwidth_y).await?;
    let identity: Vec<u32> = (0..n as u32).collect();
    let mut observed = [0.0];
    backend.score(&pair, &identity, &mut observed).await?;
    Ok((observed[0], PermutationRun::new(pair, params.seed, params.permutations)))
}

/// Turns a (possibly partial) run into the test result.
pub fn finish_hsic_test<P: PreparedPair>(
    observed: f64,
    run: PermutationRun<P>,
    params: &HsicTestParams,
    backend: BackendInfo,
) -> HsicTestResult {
    let stats = run.pair().stats();
    let planned = run.total();
    let complete = run.is_done();
    let null = run.into_values();
    let done = null.len();
    let b = null.iter().filter(|&&v| v >= observed).count();
    let p = (1 + b) as f64 / (1 + done) as f64;
    let remaining = planned - done;
    HsicTestResult {
        statistic: observed,
        p_value: p,
        p_value_bounds: (
            (1 + b) as f64 / (1 + planned) as f64,
            (1 + b + remaining) as f64 / (1 + planned) as f64,
        ),
        exceedances: b,
        permutations_done: done,
        permutations_planned: planned,
        complete,
        null,
        sigma_x: stats.x.sigma,
        sigma_y: stats.y.sigma,
        n: stats.n,
        kernels: stats,
        seed: params.seed,
        rng: RNG_ID,
        backend,
    }
}

/// HSIC permutation test on the CPU, run to completion.
///
/// # Errors
/// See [`start_hsic_test`].
///
/// # Examples
/// ```
/// use lethe::{hsic::{hsic_test, HsicTestParams}, Matrix};
/// let x = Matrix::from_rows(&(0..20).map(|i| [i as f64]).collect::<Vec<_>>()).unwrap();
/// let y = Matrix::from_rows(&(0..20).map(|i| [(i as f64).sin()]).collect::<Vec<_>>()).unwrap();
/// let r = hsic_test(x.view(), y.view(), &HsicTestParams { permutations: 99, ..Default::default() }).unwrap();
/// assert!(r.p_value > 0.0 && r.p_value <= 1.0 && r.complete);
/// ```
pub fn hsic_test<S: Scalar>(x: MatrixRef<'_, S>, y: MatrixRef<'_, S>, params: &HsicTestParams) -> Result<HsicTestResult> {
    let mut backend = CpuBackend::new(params.precision);
    now(async {
        let (observed, mut run) = start_hsic_test(&mut backend, x, y, params).await?;
        while !run.is_done() {
            run.step(&mut backend, 64).await?;
        }
        Ok(finish_hsic_test(observed, run, params, backend.info()))
    })
}
