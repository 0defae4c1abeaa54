//! Compute backends for the heavy part of HSIC permutation tests.
//!
//! A backend does two things: build the kernels of one `(X, Y)` pair (the centred RBF kernel `Kc` of `X` and the
//! RBF kernel `L` of `Y`), and score batches of permutations `p` of `Y`'s rows,
//!
//! ```text
//! HSIC(X, Y[p]) = Σ_ij Kc_ij · L_{p(i) p(j)} / (n − 1)²          (biased HSIC, Tr(K H L H) / (n−1)²)
//! ```
//!
//! Everything else — drawing permutations, p-values, JSD, verdicts — is backend-agnostic code that consumes the
//! scores. Permutations are generated on the CPU from the seed ([`crate::permute`]) and handed to the backend as
//! index buffers, so every backend scores the same shuffles and results can be compared value by value.
//!
//! The interface is async because GPU readback is async on the web; [`CpuBackend`]'s futures complete
//! immediately, and the crate's synchronous convenience functions drive them with [`now`].

mod cpu;

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use serde::{Deserialize, Serialize};

pub use cpu::CpuBackend;

use crate::data::{Columns, MatrixRef, RowsOf, Scalar};
use crate::error::Result;
use crate::kernel::{Bandwidth, KernelStats, MatrixSums};

/// Storage precision of kernel matrices. Totals are accumulated in f64 either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// f64 kernels: the reference path that the goldens check.
    #[default]
    F64,
    /// f32 kernels with f64 totals: the fast path (and the GPU's storage type).
    F32,
}

impl std::str::FromStr for Precision {
    type Err = crate::Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "f64" => Ok(Self::F64),
            "f32" => Ok(Self::F32),
            _ => Err(crate::Error::param("precision", s, "f64 or f32")),
        }
    }
}

impl Precision {
    /// Bytes of one kernel value.
    pub fn bytes(self) -> usize {
        match self {
            Self::F64 => 8,
            Self::F32 => 4,
        }
    }
}

/// Bytes the CPU backend holds at its peak while it prepares a pair of `n` rows (`d_x` and `d_y` columns of
/// `in_bytes`-byte values): the first kernel, and the second while it is built ([`crate::kernel::rbf_bytes`]).
/// Other backends hold at most this on the host.
pub fn pair_bytes(
    n: usize,
    (d_x, d_y): (usize, usize),
    in_bytes: usize,
    precision: Precision,
    bw: (Bandwidth, Bandwidth),
) -> u64 {
    let elem = precision.bytes();
    let one = |d, bw| crate::kernel::rbf_bytes(n, d, in_bytes, elem, bw);
    // The first kernel's values stay while the second is built (the larger of the two builds is counted).
    let kept = crate::check::mul(n, n).saturating_mul(elem as u64);
    kept.saturating_add(one(d_x, bw.0).max(one(d_y, bw.1)))
}

/// Steps of work of preparing a pair of `n` rows ([`crate::kernel::rbf_steps`] of each kernel, plus centring).
pub fn pair_steps(n: usize, (d_x, d_y): (usize, usize)) -> u64 {
    use crate::kernel::rbf_steps;
    rbf_steps(n, d_x)
        .saturating_add(rbf_steps(n, d_y))
        .saturating_add(crate::check::mul(n, n))
}

/// What [`Backend::prepare`]'s checks say the inputs are for.
const KERNELS: &str = "HSIC's kernel matrices";

/// What ran, for reports.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BackendInfo {
    /// "cpu" or "webgpu"/"vulkan"/...
    pub name: String,
    pub precision: Precision,
    /// Adapter / device description where there is one.
    pub device: String,
}

/// Kernel statistics of a prepared pair.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct PairStats {
    pub n: usize,
    pub x: KernelStats,
    pub y: KernelStats,
    /// Sums of the centred kernel `Kc` of `x` and of the kernel `L` of `y`, for the exact shuffle moments.
    pub kc_sums: MatrixSums,
    pub l_sums: MatrixSums,
}

/// A pair of kernels resident on a backend.
pub trait PreparedPair {
    fn stats(&self) -> PairStats;
}

/// The backend interface; see the module docs.
#[allow(async_fn_in_trait)]
pub trait Backend {
    type Pair: PreparedPair;

    fn info(&self) -> BackendInfo;

    /// Builds `Kc` of `x` and `L` of `y` from their rows read by column panels (same number of rows, `n ≥ 2`,
    /// validated by the caller; non-finite values are errors), holding one panel of the inputs at a time.
    async fn prepare_columns<S: Scalar>(
        &mut self,
        x: &mut dyn Columns<S>,
        y: &mut dyn Columns<S>,
        bw_x: Bandwidth,
        bw_y: Bandwidth,
    ) -> Result<Self::Pair>;

    /// [`Backend::prepare_columns`] of two in-memory matrices, checked first (non-empty, finite).
    async fn prepare<S: Scalar>(
        &mut self,
        x: MatrixRef<'_, S>,
        y: MatrixRef<'_, S>,
        bw_x: Bandwidth,
        bw_y: Bandwidth,
    ) -> Result<Self::Pair> {
        crate::check::matrix("x", x, 1, KERNELS)?;
        crate::check::matrix("y", y, 1, KERNELS)?;
        self.prepare_columns(&mut RowsOf::all("x", x), &mut RowsOf::all("y", y), bw_x, bw_y)
            .await
    }

    /// Shuffles per `score` call that suit this backend: a CPU reports progress every few dozen, a GPU wants
    /// whole runs per round trip. Callers may use fewer (e.g. at the end of a run).
    fn preferred_batch(&self) -> usize {
        32
    }

    /// Scores `perms.len() / n` permutations (row-major, each a permutation of `0..n`), writing
    /// `HSIC(X, Y[p])` for each into `out` (same count).
    async fn score(&mut self, pair: &Self::Pair, perms: &[u32], out: &mut [f64]) -> Result<()>;
}

/// Drives a future that is known to complete without waiting (the CPU backend's), on the current thread.
///
/// Only the crate's synchronous wrappers around [`CpuBackend`] call this; those futures have no pending points.
pub(crate) fn now<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    match f.as_mut().poll(&mut cx) {
        Poll::Ready(v) => v,
        Poll::Pending => unreachable!("CPU backend futures complete on first poll"),
    }
}

/// Checks a permutation buffer for `n` rows, as every backend's `score` must: `out_len` whole permutations,
/// every index `< n` (duplicates are not searched for; they give a well-defined, non-permutation sum).
///
/// # Errors
/// [`crate::Error::ShapeMismatch`] or [`crate::Error::IndexOutOfRange`].
pub fn check_perms(perms: &[u32], n: usize, out_len: usize) -> Result<()> {
    if n == 0 || !perms.len().is_multiple_of(n) || perms.len() / n != out_len {
        return Err(crate::Error::ShapeMismatch {
            message: format!(
                "permutation buffer of {} indices is not {out_len} permutations of {n} rows",
                perms.len()
            ),
        });
    }
    if let Some(&bad) = perms.iter().find(|&&p| p as usize >= n) {
        return Err(crate::Error::IndexOutOfRange {
            input: "permutation".into(),
            index: bad as usize,
            len: n,
        });
    }
    Ok(())
}
