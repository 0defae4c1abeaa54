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

use lethe::backend::{Backend, BackendInfo, CpuBackend, Precision};
use lethe::data::{MatrixRef, Scalar};
use lethe::kernel::{self, Bandwidth};
use lethe::permute::{Permutations, Stream};
use lethe::progress::Silent;
use lethe::sde::{self, RowSubset, SdeParams};

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

    async fn prepare<S: Scalar>(
        &mut self,
        x: MatrixRef<'_, S>,
        y: MatrixRef<'_, S>,
        bw_x: Bandwidth,
        bw_y: Bandwidth,
    ) -> lethe::Result<Self::Pair> {
        let t = now_ms();
        let r = self.inner.prepare(x, y, bw_x, bw_y).await;
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
            source: pool,
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
/// the multiply→add latency). wasm simd128 has no FMA: a multiply and an add, 2 flops per lane.
pub fn peak_gflops(iters: u32) -> f64 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
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

// ---------------------------------------------------------------------------------------------------------------
// Raw exports for JS.
// ---------------------------------------------------------------------------------------------------------------

thread_local! {
    static RESULT: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    static ERROR: RefCell<String> = const { RefCell::new(String::new()) };
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
        Err(e) => {
            ERROR.with(|m| *m.borrow_mut() = e.to_string());
            1
        }
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
    }
}
