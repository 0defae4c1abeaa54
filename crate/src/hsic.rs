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

use crate::backend::{Backend, BackendInfo, CpuBackend, PairStats, Precision, PreparedPair, now};
use crate::backend::{pair_bytes, pair_steps};
use crate::check::{self, Budget, Cause, mul};
use crate::data::{MatrixRef, Scalar};
use crate::error::{Error, Result};
use crate::kernel::{self, Bandwidth};
use crate::permute::{Permutations, RNG_ID, Stream};
use crate::progress::{Monitor, Progress, Silent};

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

/// What a fix for kernels of too many rows says.
const FEWER_ROWS: &str = "use fewer rows (the kernel matrices grow as rows²)";

/// Bytes of a run of `shuffles` shuffle scores of `n` rows, `batch` at a time on each of `threads` threads: the
/// values kept (twice while the threads' batches are joined), each thread's batch of permutations and the
/// scorer's index buffer. Saturating.
pub fn shuffle_bytes(n: usize, shuffles: usize, batch: usize, threads: usize) -> u64 {
    let values = mul(shuffles, if threads > 1 { 16 } else { 8 });
    let per_thread = mul(batch, n)
        .saturating_mul(4)
        .saturating_add(mul(n, 32))
        .saturating_add(mul(batch, 8));
    values.saturating_add(per_thread.saturating_mul(threads.max(1) as u64))
}

/// Steps of work of `shuffles` shuffle scores of `n` rows: the upper triangle of the kernels once per shuffle,
/// drawing the permutation, and a fixed cost per shuffle (its batch's bookkeeping, and later its share of sorting
/// the values for the rank tests and histograms: about 200 ns a shuffle, measured on subsets of 4 rows).
/// Saturating.
pub fn shuffle_steps(n: usize, shuffles: usize) -> u64 {
    (mul(n, n) / 2)
        .saturating_add(n as u64)
        .saturating_add(256)
        .saturating_mul(shuffles as u64)
}

/// Refuses a permutation test whose kernels and null distribution need more memory or work than one computation
/// may take ([`check::limits`]), before any of it is allocated.
fn check_test_size(
    n: usize,
    dims: (usize, usize),
    in_bytes: usize,
    params: &HsicTestParams,
    threads: usize,
) -> Result<()> {
    test_budget(n, dims, in_bytes, params, threads).check()
}

/// What [`hsic`] of `n` rows needs: both kernels in f64, and their centred copies.
pub(crate) fn stat_budget(n: usize, dims: (usize, usize), in_bytes: usize, bws: (Bandwidth, Bandwidth)) -> Budget {
    let mut b = Budget::default();
    b.add(
        Cause::input("x"),
        format!("HSIC of {n} rows"),
        pair_bytes(n, dims, in_bytes, Precision::F64, bws).saturating_add(mul(n, n).saturating_mul(16)),
        pair_steps(n, dims),
        FEWER_ROWS,
    );
    b
}

/// What a permutation test of `n` rows (`dims` columns of `in_bytes`-byte values) needs on `threads` threads.
pub(crate) fn test_budget(
    n: usize,
    dims: (usize, usize),
    in_bytes: usize,
    params: &HsicTestParams,
    threads: usize,
) -> Budget {
    let bws = (params.bandwidth_x, params.bandwidth_y);
    let p = params.permutations;
    let batch = CpuBackend::new(params.precision).preferred_batch();
    let mut b = Budget::default();
    b.add(
        Cause::input("x"),
        format!("the kernel matrices of {n} rows"),
        pair_bytes(n, dims, in_bytes, params.precision, bws),
        pair_steps(n, dims),
        FEWER_ROWS,
    )
    .add(
        Cause::param("permutations", p),
        format!("a null distribution of {p} shuffles of {n} rows"),
        shuffle_bytes(n, p, batch, threads),
        shuffle_steps(n, p),
        "use fewer permutations (999 resolve p-values down to 0.001) or fewer rows",
    );
    b
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
pub fn hsic<S: Scalar>(
    x: MatrixRef<'_, S>,
    y: MatrixRef<'_, S>,
    bw_x: Bandwidth,
    bw_y: Bandwidth,
) -> Result<HsicResult> {
    check_pair(x, y, "HSIC")?;
    let n = x.rows();
    stat_budget(n, (x.cols(), y.cols()), size_of::<S>(), (bw_x, bw_y)).check()?;
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

/// The permutation p-value of an observed statistic against the shuffled values so far.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PermutationPValue {
    /// `b`: shuffled values `≥` the observed one.
    pub exceedances: usize,
    /// `B`: shuffled values counted.
    pub permutations: usize,
    /// `(1 + b) / (1 + B)`: never 0, and a valid p-value for any `B` (the observed pairing counts as one of the
    /// `B + 1` equally likely arrangements under independence).
    pub p_value: f64,
}

/// `p = (1 + b) / (1 + B)` of `observed` against the shuffled values `null` (`b` counts values `≥ observed`), as
/// [`hsic_test_with`] reports it; with no shuffles yet, `p = 1`.
///
/// # Examples
/// ```
/// let p = lethe::hsic::permutation_p_value(0.5, &[0.1, 0.7, 0.5, 0.2]);
/// assert_eq!((p.exceedances, p.permutations), (2, 4));
/// assert_eq!(p.p_value, 3.0 / 5.0);
/// ```
pub fn permutation_p_value(observed: f64, null: &[f64]) -> PermutationPValue {
    let b = null.iter().filter(|&&v| v >= observed).count();
    PermutationPValue {
        exceedances: b,
        permutations: null.len(),
        p_value: (1 + b) as f64 / (1 + null.len()) as f64,
    }
}

/// A resumable run of `total` shuffle scores on one prepared pair: call [`PermutationRun::step`] until
/// [`PermutationRun::is_done`]; between steps a caller can report progress, check for cancellation, or stop and
/// keep the values so far. The permutations come from `Permutations::for_subset(seed, Stream::Shuffles, subset)`
/// in order, so a run split into any steps gives the same values as one uninterrupted run.
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
    pub fn new(pair: P, seed: u64, subset: u64, total: usize) -> Self {
        let n = pair.stats().n;
        Self {
            pair,
            n,
            total,
            perms: Permutations::for_subset(seed, Stream::Shuffles, subset),
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

    /// Runs to completion in batches of `batch`, calling `monitor` after each with the overall progress
    /// `base + span · (own fraction)`. Returns `false` if the monitor asked to stop (values so far are kept).
    ///
    /// # Errors
    /// Backend failures.
    pub async fn run<B: Backend<Pair = P>, M: Monitor>(
        &mut self,
        backend: &mut B,
        monitor: &mut M,
        batch: usize,
        (base, span): (f64, f64),
        phase: &str,
    ) -> Result<bool> {
        while !self.is_done() {
            self.step(backend, batch).await?;
            let progress = Progress {
                fraction: base + span * self.progress(),
                phase: phase.to_string(),
            };
            if !monitor.checkpoint(&progress).await {
                return Ok(false);
            }
        }
        Ok(true)
    }

    pub fn is_done(&self) -> bool {
        self.values.len() >= self.total
    }
    /// Fraction of the planned shuffles scored so far.
    pub fn progress(&self) -> f64 {
        if self.total == 0 {
            1.0
        } else {
            self.values.len() as f64 / self.total as f64
        }
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

/// HSIC permutation test on any backend, reporting to `monitor` between batches. If the monitor asks to stop, the
/// result holds the shuffles done so far (`complete: false`) with the interval the full run's p-value must lie in.
///
/// # Errors
/// Bad inputs (see [`hsic`]), `permutations == 0`, backend failures.
pub async fn hsic_test_with<B: Backend, M: Monitor, S: Scalar>(
    backend: &mut B,
    monitor: &mut M,
    x: MatrixRef<'_, S>,
    y: MatrixRef<'_, S>,
    params: &HsicTestParams,
) -> Result<HsicTestResult> {
    check_pair(x, y, "the HSIC permutation test")?;
    if params.permutations == 0 {
        return Err(Error::param("permutations", 0, "at least 1 shuffle"));
    }
    let n = x.rows();
    check_test_size(n, (x.cols(), y.cols()), size_of::<S>(), params, 1)?;
    let pair = backend.prepare(x, y, params.bandwidth_x, params.bandwidth_y).await?;
    let identity: Vec<u32> = (0..n as u32).collect();
    let mut observed = [0.0];
    backend.score(&pair, &identity, &mut observed).await?;
    let observed = observed[0];
    let mut run = PermutationRun::new(pair, params.seed, 0, params.permutations);
    let batch = backend.preferred_batch();
    run.run(backend, monitor, batch, (0.0, 1.0), "HSIC shuffles").await?;

    let stats = run.pair().stats();
    let null = run.into_values();
    Ok(test_result(observed, null, stats, params, backend.info()))
}

/// The test's result from the observed value and the shuffled values done (a prefix of the planned stream).
fn test_result(
    observed: f64,
    null: Vec<f64>,
    stats: PairStats,
    params: &HsicTestParams,
    backend: BackendInfo,
) -> HsicTestResult {
    let planned = params.permutations;
    let done = null.len();
    let PermutationPValue {
        exceedances: b,
        p_value,
        ..
    } = permutation_p_value(observed, &null);
    let remaining = planned - done;
    HsicTestResult {
        statistic: observed,
        p_value,
        p_value_bounds: (
            (1 + b) as f64 / (1 + planned) as f64,
            (1 + b + remaining) as f64 / (1 + planned) as f64,
        ),
        exceedances: b,
        permutations_done: done,
        permutations_planned: planned,
        complete: done == planned,
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

/// [`hsic_test`] with the shuffles scored on up to `threads` threads (`threads ≤ 1`: on this thread, by
/// [`hsic_test_with`]), reporting to `monitor`. The kernels are built once and shared; the shuffles are drawn from
/// the one stream in batches, in order (batch j's permutations are drawn after batch j − 1's, whichever thread
/// scores them), and each value depends only on its permutation: the result is the same for every thread count.
/// Stopped, it keeps the batches finished in order, as [`hsic_test_with`] does. Native only.
///
/// # Errors
/// As [`hsic_test_with`].
#[cfg(not(target_arch = "wasm32"))]
pub fn hsic_test_threaded<S: Scalar>(
    threads: usize,
    mut monitor: &mut crate::parallel::ProgressFn<'_>,
    x: MatrixRef<'_, S>,
    y: MatrixRef<'_, S>,
    params: &HsicTestParams,
) -> Result<HsicTestResult> {
    use std::sync::{Condvar, Mutex, PoisonError};

    let mut backend = CpuBackend::new(params.precision);
    if threads <= 1 {
        return now(hsic_test_with(&mut backend, &mut monitor, x, y, params));
    }
    check_pair(x, y, "the HSIC permutation test")?;
    if params.permutations == 0 {
        return Err(Error::param("permutations", 0, "at least 1 shuffle"));
    }
    let n = x.rows();
    check_test_size(n, (x.cols(), y.cols()), size_of::<S>(), params, threads)?;
    let pair = now(backend.prepare(x, y, params.bandwidth_x, params.bandwidth_y))?;
    let identity: Vec<u32> = (0..n as u32).collect();
    let mut observed = [0.0];
    now(backend.score(&pair, &identity, &mut observed))?;
    let observed = observed[0];

    let (total, batch) = (params.permutations, backend.preferred_batch());
    let weights: Vec<f64> = (0..total.div_ceil(batch))
        .map(|j| batch.min(total - j * batch) as f64)
        .collect();
    // The stream and the next batch to draw; batch j waits for its turn (batches are handed out in order and each
    // one, once handed out, is drawn, so the turn always comes).
    let stream = (
        Mutex::new((Permutations::for_subset(params.seed, Stream::Shuffles, 0), 0usize)),
        Condvar::new(),
    );
    let job = |backend: &mut CpuBackend, j: usize, _: &mut dyn FnMut(f64) -> bool| -> Result<Vec<f64>> {
        let count = batch.min(total - j * batch);
        let mut perms = Vec::with_capacity(count * n);
        {
            let (lock, turn) = &stream;
            let mut g = lock.lock().unwrap_or_else(PoisonError::into_inner);
            while g.1 != j {
                g = turn.wait(g).unwrap_or_else(PoisonError::into_inner);
            }
            g.0.extend(n, count, &mut perms);
            g.1 += 1;
            turn.notify_all();
        }
        let mut out = vec![0.0; count];
        now(backend.score(&pair, &perms, &mut out))?;
        Ok(out)
    };
    let mut results = crate::parallel::run_items(
        threads,
        &weights,
        monitor,
        &|_, _| "HSIC shuffles".to_string(),
        &|| CpuBackend::new(params.precision),
        &job,
    );
    crate::parallel::first_error(&mut results)?;
    let null: Vec<f64> = results
        .into_iter()
        .map_while(|r| r.and_then(Result::ok))
        .flatten()
        .collect();
    Ok(test_result(observed, null, pair.stats(), params, backend.info()))
}

/// HSIC permutation test on the CPU, run to completion.
///
/// # Errors
/// See [`hsic_test_with`].
///
/// # Examples
/// ```
/// use lethe::{hsic::{hsic_test, HsicTestParams}, Matrix};
/// let x = Matrix::from_rows(&(0..20).map(|i| [i as f64]).collect::<Vec<_>>()).unwrap();
/// let y = Matrix::from_rows(&(0..20).map(|i| [(i as f64).sin()]).collect::<Vec<_>>()).unwrap();
/// let r = hsic_test(x.view(), y.view(), &HsicTestParams { permutations: 99, ..Default::default() }).unwrap();
/// assert!(r.p_value > 0.0 && r.p_value <= 1.0 && r.complete);
/// ```
pub fn hsic_test<S: Scalar>(
    x: MatrixRef<'_, S>,
    y: MatrixRef<'_, S>,
    params: &HsicTestParams,
) -> Result<HsicTestResult> {
    now(hsic_test_with(
        &mut CpuBackend::new(params.precision),
        &mut Silent,
        x,
        y,
        params,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Matrix;

    fn line(n: usize, f: impl Fn(f64) -> f64) -> Matrix {
        Matrix::from_rows(&(0..n).map(|i| [f(i as f64)]).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn dependent_data_is_significant_and_independent_is_not() {
        let x = line(40, |i| i);
        let y = line(40, |i| (i * 0.3).sin() + i * 0.05);
        let p = HsicTestParams {
            permutations: 199,
            seed: 3,
            ..Default::default()
        };
        assert!(hsic_test(x.view(), y.view(), &p).unwrap().p_value <= 0.01);
        let z = line(40, |i| ((i * 7.0) % 13.0) - 6.0);
        assert!(hsic_test(x.view(), z.view(), &p).unwrap().p_value > 0.05);
    }

    #[test]
    fn cancelling_keeps_partial_null_and_bounds_the_p_value() {
        let x = line(30, |i| i);
        let y = line(30, |i| (i * 1.7).cos());
        let p = HsicTestParams {
            permutations: 200,
            ..Default::default()
        };
        let mut calls = 0;
        let mut stop_after_two = |_: &Progress| {
            calls += 1;
            calls < 2
        };
        let r = now(hsic_test_with(
            &mut CpuBackend::default(),
            &mut stop_after_two,
            x.view(),
            y.view(),
            &p,
        ))
        .unwrap();
        assert!(!r.complete);
        assert_eq!(r.permutations_done, 2 * CpuBackend::default().preferred_batch());
        assert!(r.p_value_bounds.0 <= r.p_value_bounds.1);
        let full = hsic_test(x.view(), y.view(), &p).unwrap();
        // The partial null is a prefix of the full one (same permutation stream), and the full p lies in the bounds.
        assert_eq!(&full.null[..r.null.len()], &r.null[..]);
        assert!(r.p_value_bounds.0 <= full.p_value && full.p_value <= r.p_value_bounds.1);
    }

    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn threads_give_the_one_thread_result() {
        let x = line(60, |i| (i * 0.37).sin());
        let y = line(60, |i| (i * 0.21).cos() + i * 0.01);
        for precision in [Precision::F64, Precision::F32] {
            let p = HsicTestParams {
                permutations: 199,
                seed: 4,
                precision,
                ..Default::default()
            };
            let want = hsic_test(x.view(), y.view(), &p).unwrap();
            for threads in [2, 3] {
                let got = hsic_test_threaded(threads, &mut |_: &Progress| true, x.view(), y.view(), &p).unwrap();
                assert_eq!(got, want, "{precision:?} {threads}");
            }
            // Stopped: a prefix of the full null (whole batches, in order), with bounds that hold the full p.
            let part = hsic_test_threaded(2, &mut |_: &Progress| false, x.view(), y.view(), &p).unwrap();
            assert_eq!(&want.null[..part.null.len()], &part.null[..]);
            assert_eq!(part.complete, part.null.len() == 199);
            assert!(part.p_value_bounds.0 <= want.p_value && want.p_value <= part.p_value_bounds.1);
        }
    }

    #[test]
    fn permutation_p_value_counts_ties_as_exceedances() {
        let p = permutation_p_value(1.0, &[]);
        assert_eq!((p.exceedances, p.permutations, p.p_value), (0, 0, 1.0));
        let p = permutation_p_value(2.0, &[2.0, 1.0, 3.0, 0.5]);
        assert_eq!(p.exceedances, 2);
        assert_eq!(p.p_value, 0.6);
        // The test's own p-value is this helper on its null.
        let x = line(25, |i| i);
        let y = line(25, |i| (i * 0.9).sin());
        let r = hsic_test(
            x.view(),
            y.view(),
            &HsicTestParams {
                permutations: 99,
                ..Default::default()
            },
        )
        .unwrap();
        let q = permutation_p_value(r.statistic, &r.null);
        assert_eq!((q.exceedances, q.p_value), (r.exceedances, r.p_value));
    }

    /// splitmix64: seeded values in [-1, 1) for the invariant checks.
    fn seeded(seed: u64, len: usize) -> Vec<f64> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = s;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                (z >> 11) as f64 / (1u64 << 52) as f64 - 1.0
            })
            .collect()
    }

    /// Biased HSIC is Tr(KcL)/(n−1)² of two positive semi-definite kernels, so it is ≥ 0 (and CKA in [0, 1]); it
    /// pairs row i of x with row i of y only, so permuting both inputs' rows together leaves it unchanged (up to
    /// the order of the sums), while permuting one of them alone changes it. Seeded random data, every bandwidth
    /// rule, n from 2 to 40.
    #[test]
    fn hsic_is_non_negative_and_unchanged_by_permuting_rows_jointly() {
        let mut checked = 0;
        let mut worst = 0.0f64;
        for seed in 0..12u64 {
            let n = [2, 3, 5, 17, 40][seed as usize % 5];
            let (dx, dy) = (1 + seed as usize % 4, 1 + (seed as usize / 3) % 3);
            let xs = seeded(seed, n * dx);
            // y depends on x (plus noise), so a permutation of one input alone moves HSIC.
            let noise = seeded(seed + 1000, n * dy);
            let ys: Vec<f64> = (0..n * dy).map(|k| xs[(k / dy) * dx] * 2.0 + 0.3 * noise[k]).collect();
            let x = Matrix::from_vec(n, dx, xs).unwrap();
            let y = Matrix::from_vec(n, dy, ys).unwrap();
            // A seeded Fisher–Yates permutation of the rows.
            let mut perm: Vec<usize> = (0..n).collect();
            let u = seeded(seed + 2000, n);
            for i in (1..n).rev() {
                let j = (((u[i] + 1.0) / 2.0) * (i + 1) as f64) as usize;
                perm.swap(i, j.min(i));
            }
            let (px, py) = (x.select_rows(&perm, "x").unwrap(), y.select_rows(&perm, "y").unwrap());
            for bw in [Bandwidth::SqrtDim, Bandwidth::Median, Bandwidth::Fixed(0.7)] {
                let a = hsic(x.view(), y.view(), bw, bw).unwrap();
                let b = hsic(px.view(), py.view(), bw, bw).unwrap();
                let ctx = format!("seed {seed} n {n} {bw}");
                let (ha, hb) = (a.statistic, b.statistic);
                assert!(ha >= 0.0 && hb >= 0.0, "{ctx}: {ha} {hb}");
                assert!((0.0..=1.0 + 1e-12).contains(&a.cka), "{ctx}: cka {}", a.cka);
                // The median heuristic sees the same distances, each rounded in its own pair order.
                for (u, v) in [(a.sigma_x, b.sigma_x), (a.sigma_y, b.sigma_y)] {
                    assert!((u - v).abs() <= 1e-14 * u, "{ctx}: sigma {u} vs {v}");
                }
                let d = (ha - hb).abs();
                assert!(d <= 1e-14 + 1e-12 * ha, "{ctx}: {ha} vs {hb}");
                worst = worst.max(d);
                if n >= 17 {
                    let one = hsic(x.view(), py.view(), bw, bw).unwrap();
                    let moved = (one.statistic - ha).abs();
                    assert!(moved > 1e-6 * ha, "{ctx}: y alone permuted");
                }
                checked += 1;
            }
        }
        assert_eq!(checked, 36);
        println!("HSIC under joint row permutations: {checked} cases, largest change {worst:e}");
    }

    #[test]
    fn bad_inputs_are_errors() {
        let x = line(10, |i| i);
        let y = line(9, |i| i);
        assert!(hsic_test(x.view(), y.view(), &HsicTestParams::default()).is_err());
        let p0 = HsicTestParams {
            permutations: 0,
            ..Default::default()
        };
        assert!(hsic_test(x.view(), x.view(), &p0).is_err());
        let nan = line(10, |i| if i == 3.0 { f64::NAN } else { i });
        let e = hsic_test(nan.view(), x.view(), &HsicTestParams::default())
            .unwrap_err()
            .to_string();
        let e = crate::words::cli(&e);
        assert!(e.contains("`x`") && e.contains("row 3"), "{e}");
    }

    /// Too many permutations or rows are refused before anything is allocated (a `Vec::with_capacity` of
    /// `usize::MAX` values would abort the test), and the arithmetic accepts what fits.
    #[test]
    fn too_many_permutations_or_rows_are_refused_before_any_allocation() {
        let x = line(10, |i| i);
        let p = HsicTestParams {
            permutations: usize::MAX,
            ..Default::default()
        };
        let e = hsic_test(x.view(), x.view(), &p).unwrap_err();
        assert!(
            matches!(
                e,
                Error::ParameterTooLarge {
                    name: "permutations",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("use fewer permutations"), "{e}");
        #[cfg(not(target_arch = "wasm32"))]
        {
            let e = hsic_test_threaded(2, &mut |_: &Progress| true, x.view(), x.view(), &p).unwrap_err();
            assert!(
                matches!(
                    e,
                    Error::ParameterTooLarge {
                        name: "permutations",
                        ..
                    }
                ),
                "{e}"
            );
        }
        // A million rows: terabytes of kernels, refused for either statistic (the input itself is 8 MB).
        let big = line(1_000_000, |i| i);
        for e in [
            hsic(big.view(), big.view(), Bandwidth::SqrtDim, Bandwidth::SqrtDim).unwrap_err(),
            hsic_test(big.view(), big.view(), &HsicTestParams::default()).unwrap_err(),
        ] {
            let m = e.to_string();
            assert!(
                matches!(e, Error::TooLarge { .. }) && m.contains("1000000 rows needs about"),
                "{m}"
            );
        }
        // The arithmetic: kernels of both inputs plus the null distribution, exactly up to the limit.
        for (threads, precision) in [(1, Precision::F64), (3, Precision::F32)] {
            let p = HsicTestParams {
                permutations: 999,
                precision,
                ..Default::default()
            };
            let b = test_budget(1000, (5, 7), 8, &p, threads);
            check::tests::boundary(&b);
            let kernels = 2 * 1000 * 1000 * precision.bytes() as u64;
            assert!(
                b.bytes() >= kernels + 999 * 8 && b.bytes() < kernels * 2,
                "{}",
                b.bytes()
            );
            assert!(b.steps() >= 999 * 1000 * 1000 / 2, "{}", b.steps());
        }
        // The most shuffles this machine accepts for 100 rows: about a twentieth of its limit in values.
        let limit = check::limits().memory;
        let fits = |permutations: usize| {
            let p = HsicTestParams {
                permutations,
                ..Default::default()
            };
            test_budget(100, (1, 1), 8, &p, 1)
                .check_within(&check::tests::at(limit, u64::MAX))
                .is_ok()
        };
        assert!(fits((limit / 9) as usize) && !fits((limit / 8) as usize + 1));
    }
}
