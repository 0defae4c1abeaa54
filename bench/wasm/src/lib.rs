//! Benchmark entry points of the Lethe core, compiled to wasm32 (+simd128) for `bench/run.sh`: Node and headless
//! Chromium (in a worker) load the `.wasm` directly and call these raw exports, timing them with
//! `performance.now()`. No wasm-bindgen: the JS side (`bench/lethe-wasm.mjs`) is a few lines and the same in both
//! runtimes. Nothing here does statistics of its own: every number comes from `lethe`.
//!
//! Memory protocol: JS asks for buffers with [`lb_alloc`], writes f32 inputs into them, calls a job; results are
//! an f64 buffer ([`lb_result_ptr`], [`lb_result_len`]) and, on failure, a UTF-8 message ([`lb_error_ptr`]).
//! The time split inside a job comes from [`Timed`], a backend wrapper that times `prepare` (kernels) and
//! `score` (shuffles) with the host's clock (`env.lb_now`, milliseconds).

use std::cell::RefCell;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use lethe::backend::{Backend, BackendInfo, CpuBackend, PairStats, Precision};
use lethe::data::{Columns, Matrix, MatrixRef, Scalar};
use lethe::kernel::{self, Bandwidth, KernelStats, MatrixSums};
use lethe::permute::{Permutations, Stream};
use lethe::progress::Silent;
use lethe::sde::{self, RowSubset, SdeParams, ShuffleMoments, SplitHalf};

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "env")]
unsafe extern "C" {
    /// The host's monotonic clock in milliseconds (`performance.now()`).
    fn lb_now() -> f64;
}

/// Milliseconds on a monotonic clock.
pub fn now_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        // SAFETY: a plain import with no arguments, provided by bench/lethe-wasm.mjs.
        unsafe { lb_now() }
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed().as_secs_f64() * 1e3
    }
}

fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => v,
        Poll::Pending => unreachable!("CPU backend futures complete on first poll"),
    }
}

/// A [`CpuBackend`] that adds up the time spent building kernels and scoring shuffles.
pub struct Timed {
    pub inner: CpuBackend,
    pub prepare_ms: f64,
    pub score_ms: f64,
}

impl Backend for Timed {
    type Pair = <CpuBackend as Backend>::Pair;

    fn info(&self) -> BackendInfo {
        self.inner.info()
    }

    async fn prepare_columns<S: Scalar>(
        &mut self,
        x: &mut dyn Columns<S>,
        y: &mut dyn Columns<S>,
        bw_x: Bandwidth,
        bw_y: Bandwidth,
    ) -> lethe::Result<Self::Pair> {
        let t = now_ms();
        let r = self.inner.prepare_columns(x, y, bw_x, bw_y).await;
        self.prepare_ms += now_ms() - t;
        r
    }

    fn preferred_batch(&self) -> usize {
        self.inner.preferred_batch()
    }

    async fn score(&mut self, pair: &Self::Pair, perms: &[u32], out: &mut [f64]) -> lethe::Result<()> {
        let t = now_ms();
        let r = self.inner.score(pair, perms, out).await;
        self.score_ms += now_ms() - t;
        r
    }
}

/// What a job returns: `[prepare_ms, score_ms, otr, subsets, shuffles, values of every subset...]` (references
/// first, then targets, each `shuffles` values).
#[allow(clippy::too_many_arguments)]
pub fn job(
    it: MatrixRef<'_, f32>,
    oot: MatrixRef<'_, f32>,
    pool: MatrixRef<'_, f32>,
    draws: usize,
    size: usize,
    shuffles: usize,
    precision: Precision,
    seed: u64,
) -> lethe::Result<Vec<f64>> {
    // The CLI's `--draw-from`: unlabelled targets, the same draws for the same seed.
    let rows = sde::draw_targets(None, pool.rows(), draws, size, seed)?;
    let names: Vec<String> = (0..rows.len()).map(|k| format!("draw-from[{k}]")).collect();
    let targets: Vec<RowSubset<'_, f32>> = rows
        .iter()
        .zip(&names)
        .map(|(r, name)| RowSubset {
            name,
            source: lethe::data::Source::Memory(pool),
            rows: Some(r),
            label: None,
        })
        .collect();
    let params = SdeParams {
        shuffles,
        seed,
        precision,
        ..Default::default()
    };
    let mut backend = Timed {
        inner: CpuBackend::new(precision),
        prepare_ms: 0.0,
        score_ms: 0.0,
    };
    let r = block_on(sde::sde_subsets_with(
        &mut backend,
        &mut Silent,
        RowSubset::all("in_training", it, None),
        RowSubset::all("out_of_training", oot, None),
        &targets,
        &params,
    ))?;
    let mut out = vec![
        backend.prepare_ms,
        backend.score_ms,
        r.out_of_training_rate.unwrap_or(f64::NAN),
    ];
    let mut dists = vec![&r.in_training_reference];
    dists.extend(r.out_of_training_reference.as_ref());
    dists.extend(r.targets.iter().map(|t| &t.distribution));
    out.push(dists.len() as f64);
    out.push(shuffles as f64);
    for d in dists {
        out.extend(&d.values);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------------------------
// The same job split over a pool of workers (bench/web/pool.mjs): each worker (its own wasm instance) computes the
// subsets it is handed with `sde::split_half_with` (subset k shuffles with stream k, so any worker gives the same
// values), and one of them assembles the report from every subset's distribution with `sde::target_outcome` and
// `sde::report`, as `sde_subsets_with` does. Distributions cross workers as f64 arrays ([`encode`]).
// ---------------------------------------------------------------------------------------------------------------

/// The inputs of a pooled job, held by each worker's instance.
pub struct PoolJob {
    pub it: Matrix<f32>,
    pub oot: Matrix<f32>,
    pub pool: Matrix<f32>,
    pub draws: usize,
    pub size: usize,
    pub params: SdeParams,
    /// The drawn targets' rows (drawn on first use, as `job` draws them).
    pub rows: Option<Vec<Vec<usize>>>,
}

impl PoolJob {
    /// Subsets in the job: the two references and the drawn targets.
    pub fn subsets(&self) -> usize {
        2 + self.draws
    }

    /// Subset `k`'s distribution (0, 1: references; 2 + i: target i) and the time in kernels and shuffles.
    pub fn subset(&mut self, k: usize) -> lethe::Result<(SplitHalf, f64, f64)> {
        let mut backend = Timed {
            inner: CpuBackend::new(self.params.precision),
            prepare_ms: 0.0,
            score_ms: 0.0,
        };
        let params = self.params;
        let h = match k {
            0 => block_on(sde::split_half_with(
                &mut backend,
                &mut Silent,
                &RowSubset::all("in_training", self.it.view(), None),
                &params,
                0,
                (0.0, 1.0),
            ))?,
            1 => block_on(sde::split_half_with(
                &mut backend,
                &mut Silent,
                &RowSubset::all("out_of_training", self.oot.view(), None),
                &params,
                1,
                (0.0, 1.0),
            ))?,
            _ => {
                if self.rows.is_none() {
                    self.rows = Some(sde::draw_targets(
                        None,
                        self.pool.rows(),
                        self.draws,
                        self.size,
                        params.seed,
                    )?);
                }
                let rows = self.rows.as_ref().map(|r| &r[k - 2]).ok_or(lethe::Error::Cancelled)?;
                let name = format!("draw-from[{}]", k - 2);
                let target = RowSubset {
                    name: &name,
                    source: lethe::data::Source::Memory(self.pool.view()),
                    rows: Some(rows),
                    label: None,
                };
                block_on(sde::split_half_with(
                    &mut backend,
                    &mut Silent,
                    &target,
                    &params,
                    k as u64,
                    (0.0, 1.0),
                ))?
            }
        };
        Ok((h, backend.prepare_ms, backend.score_ms))
    }
}

/// The report from every subset's distribution, in subset order: `[otr, subsets, shuffles, values...]` (as `job`
/// returns after its two timings).
pub fn assemble(params: &SdeParams, mut parts: Vec<SplitHalf>) -> lethe::Result<Vec<f64>> {
    if parts.len() < 2 {
        return Err(lethe::Error::Cancelled);
    }
    let targets = parts.split_off(2);
    let oot = parts.pop().ok_or(lethe::Error::Cancelled)?;
    let it = parts.pop().ok_or(lethe::Error::Cancelled)?;
    let mut outcomes = Vec::with_capacity(targets.len());
    for (i, t) in targets.into_iter().enumerate() {
        outcomes.push(sde::target_outcome(
            &format!("draw-from[{i}]"),
            None,
            t,
            None,
            &it,
            &oot,
            params,
        )?);
    }
    let r = sde::report(
        params,
        CpuBackend::new(params.precision).info(),
        it,
        Some(oot),
        outcomes,
        true,
        Vec::new(),
    )?;
    let mut out = vec![r.out_of_training_rate.unwrap_or(f64::NAN)];
    let mut dists = vec![&r.in_training_reference];
    dists.extend(r.out_of_training_reference.as_ref());
    dists.extend(r.targets.iter().map(|t| &t.distribution));
    out.push(dists.len() as f64);
    out.push(params.shuffles as f64);
    for d in dists {
        out.extend(&d.values);
    }
    Ok(out)
}

fn kernel_stats(k: &KernelStats) -> [f64; 4] {
    [k.n as f64, k.sigma, k.mean_all, k.mean_offdiag]
}

fn sums(m: &MatrixSums) -> [f64; 11] {
    [
        m.h as f64,
        m.total,
        m.trace,
        m.row_sq,
        m.col_sq,
        m.row_col,
        m.diag_row,
        m.diag_col,
        m.diag_sq,
        m.sq,
        m.sq_transpose,
    ]
}

/// A distribution as f64s (exact: JS numbers are f64): `[len, values..., every other field]`.
pub fn encode(h: &SplitHalf, out: &mut Vec<f64>) {
    out.push(h.values.len() as f64);
    out.extend(&h.values);
    out.extend([h.half as f64, h.rows as f64, h.sigma_1, h.sigma_2, h.kernels.n as f64]);
    out.extend(kernel_stats(&h.kernels.x));
    out.extend(kernel_stats(&h.kernels.y));
    out.extend(sums(&h.kernels.kc_sums));
    out.extend(sums(&h.kernels.l_sums));
    out.extend([
        h.moments.mean,
        h.moments.variance,
        h.moments.sd,
        h.shuffles_planned as f64,
        f64::from(u8::from(h.complete)),
    ]);
}

/// Reads one [`encode`]d distribution from the front of `v`, returning it and the rest.
pub fn decode(v: &[f64]) -> Option<(SplitHalf, &[f64])> {
    let (&len, v) = v.split_first()?;
    let len = len as usize;
    let (values, v) = v.split_at_checked(len)?;
    let (f, rest) = v.split_at_checked(5 + 4 + 4 + 11 + 11 + 5)?;
    let ks = |a: &[f64]| KernelStats {
        n: a[0] as usize,
        sigma: a[1],
        mean_all: a[2],
        mean_offdiag: a[3],
    };
    let ms = |a: &[f64]| MatrixSums {
        h: a[0] as usize,
        total: a[1],
        trace: a[2],
        row_sq: a[3],
        col_sq: a[4],
        row_col: a[5],
        diag_row: a[6],
        diag_col: a[7],
        diag_sq: a[8],
        sq: a[9],
        sq_transpose: a[10],
    };
    let h = SplitHalf {
        values: values.to_vec(),
        half: f[0] as usize,
        rows: f[1] as usize,
        sigma_1: f[2],
        sigma_2: f[3],
        kernels: PairStats {
            n: f[4] as usize,
            x: ks(&f[5..9]),
            y: ks(&f[9..13]),
            kc_sums: ms(&f[13..24]),
            l_sums: ms(&f[24..35]),
        },
        moments: ShuffleMoments {
            mean: f[35],
            variance: f[36],
            sd: f[37],
        },
        shuffles_planned: f[38] as usize,
        complete: f[39] != 0.0,
    };
    Some((h, rest))
}

/// Seeded uniform values in [-1, 1) (a 64-bit LCG; benchmark inputs only).
pub fn seeded(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u32 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Fastest of `reps` runs of `f`, in milliseconds.
fn min_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps.max(1))
        .map(|_| {
            let t = now_ms();
            f();
            now_ms() - t
        })
        .fold(f64::INFINITY, f64::min)
}

/// Fastest Gram `X Xᵀ` (`n × d`, f32 or f64) of `reps`, ms: the squared-distance pass of the kernels
/// ([`kernel::sq_dists`]), whose cost is the Gram.
pub fn gram_ms(n: usize, d: usize, reps: usize, f32_storage: bool) -> f64 {
    let x = seeded(n * d, 7);
    if f32_storage {
        let xc: Vec<f32> = kernel::center_columns(MatrixRef::new(n, d, &x).expect("shape"));
        min_ms(reps, || drop(std::hint::black_box(kernel::sq_dists(&xc, n, d))))
    } else {
        let xc: Vec<f64> = kernel::center_columns(MatrixRef::new(n, d, &x).expect("shape"));
        min_ms(reps, || drop(std::hint::black_box(kernel::sq_dists(&xc, n, d))))
    }
}

/// Fastest `prepare` of one pair of `n × d` halves (both kernels, centring, sums), ms.
pub fn prepare_ms(n: usize, d: usize, reps: usize, precision: Precision) -> f64 {
    let (x, y) = (seeded(n * d, 1), seeded(n * d, 2));
    let (x, y) = (
        MatrixRef::new(n, d, &x).expect("shape"),
        MatrixRef::new(n, d, &y).expect("shape"),
    );
    let mut b = CpuBackend::new(precision);
    min_ms(reps, || {
        drop(std::hint::black_box(block_on(b.prepare(
            x,
            y,
            Bandwidth::SqrtDim,
            Bandwidth::SqrtDim,
        ))));
    })
}

/// Fastest scoring of `shuffles` shuffles of one prepared pair (`n` rows per half, d = 64), ms.
pub fn score_ms(n: usize, shuffles: usize, reps: usize, precision: Precision) -> f64 {
    let d = 64;
    let (x, y) = (seeded(n * d, 1), seeded(n * d, 2));
    let (x, y) = (
        MatrixRef::new(n, d, &x).expect("shape"),
        MatrixRef::new(n, d, &y).expect("shape"),
    );
    let mut b = CpuBackend::new(precision);
    let pair = block_on(b.prepare(x, y, Bandwidth::SqrtDim, Bandwidth::SqrtDim)).expect("prepare");
    let mut perms = Vec::new();
    Permutations::new(0, Stream::Shuffles).extend(n, shuffles, &mut perms);
    let mut out = vec![0.0; shuffles];
    min_ms(reps, || block_on(b.score(&pair, &perms, &mut out)).expect("score"))
}

/// Fastest `exp` of `len` kernel-range values (f32 path: [`kernel::exp_f32`]), ms.
pub fn exp_ms(len: usize, reps: usize) -> f64 {
    let x: Vec<f32> = seeded(len, 3).iter().map(|v| (v - 1.0) * 20.0).collect();
    let mut out = vec![0f32; len];
    min_ms(reps, || {
        for (o, v) in out.iter_mut().zip(&x) {
            *o = kernel::exp_f32(*v);
        }
        std::hint::black_box(&out);
    })
}

/// Peak f32 multiply-add throughput of this build's SIMD, GFLOP/s: twelve independent chains `c = c·a + b` of
/// f32x4 (no memory traffic; 12 chains + 2 constants fit V8's ~15 usable SIMD registers, and 12 in flight cover
/// the multiply→add latency). wasm simd128 has no FMA: a multiply and an add, 2 flops per lane. The relaxed-SIMD
/// build (feature `relaxed-simd`) measures `f32x4.relaxed_madd` chains instead (one fused multiply-add where the
/// hardware has FMA; still 2 flops per lane).
pub fn peak_gflops(iters: u32) -> f64 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128", feature = "relaxed-simd"))]
    return peak_relaxed(iters);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[allow(unreachable_code)]
    {
        use core::arch::wasm32::*;
        let t = now_ms();
        let a = f32x4_splat(0.999_9);
        let b = f32x4_splat(1e-4);
        let mut c: [v128; 12] = std::array::from_fn(|k| f32x4_splat(k as f32 * 0.01));
        for _ in 0..iters {
            // Unrolled by the compiler (a fixed-length array of locals).
            for v in &mut c {
                *v = f32x4_add(f32x4_mul(*v, a), b);
            }
        }
        std::hint::black_box(c);
        let ms = now_ms() - t;
        f64::from(iters) * 12.0 * 8.0 / (ms * 1e6)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        let _ = iters;
        f64::NAN
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128", feature = "relaxed-simd"))]
#[target_feature(enable = "relaxed-simd")]
fn peak_relaxed(iters: u32) -> f64 {
    use core::arch::wasm32::*;
    let t = now_ms();
    let a = f32x4_splat(0.999_9);
    let b = f32x4_splat(1e-4);
    let mut c: [v128; 12] = std::array::from_fn(|k| f32x4_splat(k as f32 * 0.01));
    for _ in 0..iters {
        for v in &mut c {
            *v = f32x4_relaxed_madd(*v, a, b);
        }
    }
    std::hint::black_box(c);
    let ms = now_ms() - t;
    f64::from(iters) * 12.0 * 8.0 / (ms * 1e6)
}

/// 1 for the relaxed-SIMD build, 0 for the simd128 one.
pub fn relaxed_build() -> u32 {
    u32::from(cfg!(feature = "relaxed-simd"))
}

// ---------------------------------------------------------------------------------------------------------------
// Raw exports for JS.
// ---------------------------------------------------------------------------------------------------------------

thread_local! {
    static RESULT: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    static ERROR: RefCell<String> = const { RefCell::new(String::new()) };
    static POOL_JOB: RefCell<Option<PoolJob>> = const { RefCell::new(None) };
}

fn set_error(e: &lethe::Error) -> i32 {
    ERROR.with(|m| *m.borrow_mut() = e.to_string());
    1
}

fn set_result(v: Vec<f64>) -> i32 {
    RESULT.with(|r| *r.borrow_mut() = v);
    0
}

fn precision(f32_storage: u32) -> Precision {
    if f32_storage != 0 {
        Precision::F32
    } else {
        Precision::F64
    }
}

/// A zeroed buffer of `bytes` bytes for JS to fill (8-byte aligned); never freed by Rust unless [`lb_free`].
#[unsafe(no_mangle)]
pub extern "C" fn lb_alloc(bytes: usize) -> *mut u8 {
    let v = vec![0u64; bytes.div_ceil(8)];
    Box::leak(v.into_boxed_slice()).as_mut_ptr().cast()
}

/// Frees a buffer from [`lb_alloc`] of the same size.
///
/// # Safety
/// `ptr` must come from `lb_alloc(bytes)` and not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lb_free(ptr: *mut u8, bytes: usize) {
    let len = bytes.div_ceil(8);
    // SAFETY: the caller passes a pointer and size from `lb_alloc`, which leaked a boxed [u64] of `len`.
    drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr.cast::<u64>(), len)) });
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_result_ptr() -> *const f64 {
    RESULT.with(|r| r.borrow().as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_result_len() -> usize {
    RESULT.with(|r| r.borrow().len())
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_error_ptr() -> *const u8 {
    ERROR.with(|e| e.borrow().as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_error_len() -> usize {
    ERROR.with(|e| e.borrow().len())
}

/// Runs the SDE job (see [`job`]) on f32 inputs at the given addresses; 0 on success (result buffer), 1 on error
/// (message buffer).
///
/// # Safety
/// Each pointer must address `rows × d` f32 values written by JS into an [`lb_alloc`] buffer.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn lb_job(
    it: *const f32,
    oot: *const f32,
    ref_rows: usize,
    pool: *const f32,
    pool_rows: usize,
    d: usize,
    draws: usize,
    size: usize,
    shuffles: usize,
    f32_storage: u32,
    seed: u32,
) -> i32 {
    // SAFETY: the caller guarantees the addresses and lengths (see above).
    let (it, oot, pool) = unsafe {
        (
            std::slice::from_raw_parts(it, ref_rows * d),
            std::slice::from_raw_parts(oot, ref_rows * d),
            std::slice::from_raw_parts(pool, pool_rows * d),
        )
    };
    let run = || -> lethe::Result<Vec<f64>> {
        job(
            MatrixRef::new(ref_rows, d, it)?,
            MatrixRef::new(ref_rows, d, oot)?,
            MatrixRef::new(pool_rows, d, pool)?,
            draws,
            size,
            shuffles,
            precision(f32_storage),
            u64::from(seed),
        )
    };
    match run() {
        Ok(v) => set_result(v),
        Err(e) => set_error(&e),
    }
}

/// Holds a pooled job's inputs (copied from the [`lb_alloc`] buffers, which JS may free) for [`lb_pool_subset`].
///
/// # Safety
/// As [`lb_job`].
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn lb_pool_load(
    it: *const f32,
    oot: *const f32,
    ref_rows: usize,
    pool: *const f32,
    pool_rows: usize,
    d: usize,
    draws: usize,
    size: usize,
    shuffles: usize,
    f32_storage: u32,
    seed: u32,
) -> i32 {
    // SAFETY: the caller guarantees the addresses and lengths (see above).
    let (it, oot, pool) = unsafe {
        (
            std::slice::from_raw_parts(it, ref_rows * d),
            std::slice::from_raw_parts(oot, ref_rows * d),
            std::slice::from_raw_parts(pool, pool_rows * d),
        )
    };
    let load = || -> lethe::Result<PoolJob> {
        Ok(PoolJob {
            it: Matrix::from_vec(ref_rows, d, it.to_vec())?,
            oot: Matrix::from_vec(ref_rows, d, oot.to_vec())?,
            pool: Matrix::from_vec(pool_rows, d, pool.to_vec())?,
            draws,
            size,
            params: SdeParams {
                shuffles,
                seed: u64::from(seed),
                precision: precision(f32_storage),
                ..Default::default()
            },
            rows: None,
        })
    };
    match load() {
        Ok(j) => {
            POOL_JOB.with(|p| *p.borrow_mut() = Some(j));
            0
        }
        Err(e) => set_error(&e),
    }
}

/// Subset `k` of the loaded pooled job: result `[prepare_ms, score_ms, encoded distribution...]`.
#[unsafe(no_mangle)]
pub extern "C" fn lb_pool_subset(k: usize) -> i32 {
    let r = POOL_JOB.with(|p| match p.borrow_mut().as_mut() {
        Some(job) if k < job.subsets() => job.subset(k),
        _ => Err(lethe::Error::param(
            "k",
            k,
            "a subset of the loaded job (lb_pool_load first)",
        )),
    });
    match r {
        Ok((h, prep, score)) => {
            let mut out = vec![prep, score];
            encode(&h, &mut out);
            set_result(out)
        }
        Err(e) => set_error(&e),
    }
}

/// Assembles the loaded job's report from `len` f64s at `parts`: every subset's encoded distribution, in subset
/// order. Result as [`lb_job`]'s after its two timings: `[otr, subsets, shuffles, values...]`.
///
/// # Safety
/// `parts` must address `len` f64 values written by JS into an [`lb_alloc`] buffer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn lb_pool_assemble(parts: *const f64, len: usize) -> i32 {
    // SAFETY: the caller guarantees the address and length.
    let mut v = unsafe { std::slice::from_raw_parts(parts, len) };
    let mut dists = Vec::new();
    while !v.is_empty() {
        match decode(v) {
            Some((h, rest)) => {
                dists.push(h);
                v = rest;
            }
            None => return set_error(&lethe::Error::param("parts", len, "encoded distributions")),
        }
    }
    let r = POOL_JOB.with(|p| match p.borrow().as_ref() {
        Some(job) => assemble(&job.params, dists),
        None => Err(lethe::Error::param("job", "none", "lb_pool_load first")),
    });
    match r {
        Ok(out) => set_result(out),
        Err(e) => set_error(&e),
    }
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_gram_ms(n: usize, d: usize, reps: usize, f32_storage: u32) -> f64 {
    gram_ms(n, d, reps, f32_storage != 0)
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_prepare_ms(n: usize, d: usize, reps: usize, f32_storage: u32) -> f64 {
    prepare_ms(n, d, reps, precision(f32_storage))
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_score_ms(n: usize, shuffles: usize, reps: usize, f32_storage: u32) -> f64 {
    score_ms(n, shuffles, reps, precision(f32_storage))
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_exp_ms(len: usize, reps: usize) -> f64 {
    exp_ms(len, reps)
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_peak_gflops(iters: u32) -> f64 {
    peak_gflops(iters)
}

#[unsafe(no_mangle)]
pub extern "C" fn lb_relaxed() -> u32 {
    relaxed_build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The job gives the CLI's numbers: the same draws and values as `lethe::sde` on copied rows.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn job_matches_the_core() {
        let (d, size) = (6, 24);
        let (it, oot, pool) = (seeded(size * d, 1), seeded(size * d, 2), seeded(60 * d, 3));
        fn m(v: &[f32], r: usize) -> MatrixRef<'_, f32> {
            MatrixRef::new(r, v.len() / r, v).unwrap()
        }
        let out = job(
            m(&it, size),
            m(&oot, size),
            m(&pool, 60),
            3,
            size,
            10,
            Precision::F64,
            4,
        )
        .unwrap();
        assert_eq!((out[3], out[4]), (5.0, 10.0));
        let rows = sde::draw_targets(None, 60, 3, size, 4).unwrap();
        let pool_m = lethe::Matrix::from_vec(60, d, pool.clone()).unwrap();
        let copies: Vec<lethe::Matrix<f32>> = rows.iter().map(|r| pool_m.select_rows(r, "pool").unwrap()).collect();
        let targets: Vec<sde::Target<'_, f32>> = copies
            .iter()
            .map(|c| sde::Target {
                name: "t",
                data: c.view(),
                label: None,
            })
            .collect();
        let r = sde::sde(
            m(&it, size),
            m(&oot, size),
            &targets,
            &SdeParams {
                shuffles: 10,
                seed: 4,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(&out[5..15], &r.in_training_reference.values[..]);
        assert_eq!(&out[out.len() - 10..], &r.targets[2].distribution.values[..]);
        assert_eq!(out[2], r.out_of_training_rate.unwrap());

        // The pooled job: subsets computed apart (in any order), encoded, decoded and assembled give the same.
        let mut pj = PoolJob {
            it: lethe::Matrix::from_vec(size, d, it.clone()).unwrap(),
            oot: lethe::Matrix::from_vec(size, d, oot.clone()).unwrap(),
            pool: pool_m,
            draws: 3,
            size,
            params: SdeParams {
                shuffles: 10,
                seed: 4,
                ..Default::default()
            },
            rows: None,
        };
        let mut parts: Vec<Vec<f64>> = vec![Vec::new(); 5];
        for k in [4, 0, 2, 1, 3] {
            let (h, _, _) = pj.subset(k).unwrap();
            encode(&h, &mut parts[k]);
            let (back, rest) = decode(&parts[k]).unwrap();
            assert!(rest.is_empty());
            assert_eq!(back, h);
        }
        let flat: Vec<f64> = parts.concat();
        let mut dists = Vec::new();
        let mut v = &flat[..];
        while let Some((h, rest)) = decode(v) {
            dists.push(h);
            v = rest;
        }
        assert_eq!(assemble(&pj.params, dists).unwrap(), out[2..].to_vec());
    }
}
