//! One check suite for every backend (burn's testgen pattern): each check is written once, as an async function
//! over any [`Backend`] that can also show its kernels ([`Probe`]), and instantiated per backend by
//! `backends.rs` (native: CPU f64, CPU f32, GPU on lavapipe) and `web.rs` (WebGPU in headless Chromium).
//!
//! The reference is always [`CpuBackend`] with f64 kernels. Tolerances for f32 backends are the named constants
//! below; every check prints the largest error it saw so the constants can be justified from measurements.
//!
//! Golden sources (tests/fixtures/golden, provenance in README.md there, versions in versions.json):
//! - sde.json `cases[*].results[*]`: `ref_H` = HSIC(S1, S2[perm]) for the stored permutations, float64 numpy
//!   reference; `sigma_1`, `sigma_2` per half.
//! - hsic.json `cases[*]`: `results[*].ref_hsic`, `sigma_x`, `sigma_y` (float64 numpy reference of Tr(KHLH)/(n−1)²),
//!   and `K_sqrt_dim`, `Kc_sqrt_dim` (X's kernel and centred kernel at σ = sqrt(dim)) where stored.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use lethe::Matrix;
use lethe::backend::{Backend, CpuBackend, Precision, PreparedPair};
use lethe::data::{MatrixRef, Scalar};
use lethe::hsic::{HsicTestParams, hsic_test_with};
use lethe::kernel::{self, Bandwidth};
use lethe::permute::{Permutations, Stream};
use lethe::progress::Silent;
use serde_json::Value;

use crate::common::{MaxDev, matrix, num, nums};

/// `println!` natively; the browser console on wasm (where stdout goes nowhere), which wasm-bindgen-test-runner
/// shows in its output.
#[cfg(not(target_arch = "wasm32"))]
macro_rules! say {
    ($($t:tt)*) => { println!($($t)*) };
}
#[cfg(target_arch = "wasm32")]
macro_rules! say {
    ($($t:tt)*) => { wasm_bindgen_test::console_log!($($t)*) };
}
#[allow(unused_imports)] // used by the browser tests only
pub(crate) use say;

/// `MaxDev::report` through `say!`.
fn report(dev: &MaxDev, what: &str) {
    say!("max deviation [{what}]: abs {:.3e}, rel {:.3e}", dev.abs, dev.rel);
}

pub const SDE_JSON: &str = include_str!("../../../tests/fixtures/golden/sde.json");
pub const HSIC_JSON: &str = include_str!("../../../tests/fixtures/golden/hsic.json");

/// A backend whose prepared kernels can be inspected.
#[allow(async_fn_in_trait)]
pub trait Probe: Backend {
    /// `(Kc, L)` of `pair` as the backend stores them, widened to f64.
    async fn kernels(
        &mut self,
        pair: &Self::Pair,
        x: MatrixRef<'_>,
        y: MatrixRef<'_>,
        bw: (Bandwidth, Bandwidth),
    ) -> (Vec<f64>, Vec<f64>);
}

/// The CPU backend keeps its kernels private; its `prepare` is exactly `kernel::rbf` + `kernel::center_kernel`
/// in the storage precision (crate/src/backend/cpu.rs), so the probe recomputes them that way.
impl Probe for CpuBackend {
    async fn kernels(
        &mut self,
        _: &Self::Pair,
        x: MatrixRef<'_>,
        y: MatrixRef<'_>,
        bw: (Bandwidth, Bandwidth),
    ) -> (Vec<f64>, Vec<f64>) {
        fn widen<T: Scalar>(v: &[T]) -> Vec<f64> {
            v.iter().map(|t| t.to_f64()).collect()
        }
        let n = x.rows();
        match self.info().precision {
            Precision::F64 => {
                let k = kernel::rbf::<f64, f64>(x, bw.0).unwrap();
                let l = kernel::rbf::<f64, f64>(y, bw.1).unwrap();
                (kernel::center_kernel(&k.values, n), l.values)
            }
            Precision::F32 => {
                let k = kernel::rbf::<f64, f32>(x, bw.0).unwrap();
                let l = kernel::rbf::<f64, f32>(y, bw.1).unwrap();
                (widen(&kernel::center_kernel(&k.values, n)), widen(&l.values))
            }
        }
    }
}

impl Probe for lethe_gpu::GpuBackend {
    async fn kernels(
        &mut self,
        pair: &Self::Pair,
        _: MatrixRef<'_>,
        _: MatrixRef<'_>,
        _: (Bandwidth, Bandwidth),
    ) -> (Vec<f64>, Vec<f64>) {
        let (kc, l) = self.read_kernels(pair).await.unwrap();
        (
            kc.iter().map(|&v| f64::from(v)).collect(),
            l.iter().map(|&v| f64::from(v)).collect(),
        )
    }
}

/// How close a backend must come to the CPU f64 reference.
#[derive(Clone, Copy, Debug)]
pub struct Tolerances {
    /// Absolute error of a kernel entry (`Kc` and `L`) in units of `u · λ` (see [`kernel_scale`]).
    pub kernel_ulps: f64,
    /// Relative error of σ from the median heuristic (f32 distances move the median by ~1 ulp of f32).
    pub sigma_median: f64,
    /// Relative error of the kernel means (`KernelStats`), on top of [`MEAN_ATOL`].
    pub kernel_mean: f64,
    /// Score error in units of `u · (1 + log2 n²) · κ` (see [`score_scale`]).
    pub score_ulps: f64,
    /// Allowed difference in exceedance counts of a permutation test with the same shuffles (f32 rounding can
    /// move a shuffle that nearly ties the observed value to the other side).
    pub exceedances: usize,
}

impl Tolerances {
    /// The f64 CPU backend checked against itself: agreement to rounding.
    pub const F64: Self = Self {
        kernel_ulps: 1e-8,
        sigma_median: 1e-15,
        kernel_mean: 1e-15,
        score_ulps: 1e-6,
        exceedances: 0,
    };
    /// f32 kernels with f64 totals (CPU f32 and the GPU); each constant is justified by the errors the suite
    /// prints (see the table in `backends.rs`):
    /// - `kernel_ulps`: entries in units of `u · λ` ([`kernel_scale`]); measured ≤ 2.3 on the GPU (lavapipe
    ///   Vulkan 2.3, llvmpipe GL 2.3, SwiftShader WebGPU 2.0) and ≤ 1.4 on the CPU f32 path, allowed 8.
    /// - `kernel_mean`: the means of tiny entries (exponent |a| ≈ 15–40) carry (2 + |a|)·u ≈ 2.5e-6 relative
    ///   error; measured ≤ 2.3e-6, allowed 1e-5.
    /// - `score_ulps`: scores in units of `u (1 + log2 n²) κ` ([`score_scale`]); measured ≤ 0.06 (GPU) and ≤ 0.03
    ///   (CPU f32) for n = 2 … 500, allowed 1: the bound is a worst case, the measured errors partly cancel.
    pub const F32: Self = Self {
        kernel_ulps: 8.0,
        sigma_median: 1e-6,
        kernel_mean: 1e-5,
        score_ulps: 1.0,
        exceedances: 3,
    };
}

/// Absolute floor for the kernel means: the reference's own rounding. The core computes `mean_offdiag` as
/// `(Σ K − trace) / (n² − n)`, which cancels to 0 when every off-diagonal entry is below ~1e-16 · n; the GPU sums the
/// off-diagonal entries directly. 1e-15 covers that cancellation for n ≤ 5000.
pub const MEAN_ATOL: f64 = 1e-15;

/// The error scale `λ` of f32 kernel entries of the rows of `m` at bandwidth `sigma`:
///
/// ```text
/// λ = 1 + 2 s max_i ‖x̃_i‖²,     s = 1/(2σ²),  x̃ = column-centred rows
/// ```
///
/// A squared distance from the Gram form `G_ii + G_jj − 2 G_ij` carries an absolute f32 error of a few
/// `u (G_ii + G_jj)`, which the exponent multiplies by `s`; `exp` itself, the `−r_i − r_j + g` of the centring and
/// the rounding of the stored value add a few `u` (the `1`). Entries are ≤ 1 in magnitude, so `u · λ` bounds
/// their absolute error up to a small constant.
pub fn kernel_scale(m: &Matrix, sigma: f64) -> f64 {
    let (n, d) = (m.rows(), m.cols());
    let xc: Vec<f64> = kernel::center_columns(m.view());
    let max_norm = (0..n)
        .map(|i| xc[i * d..(i + 1) * d].iter().map(|v| v * v).sum::<f64>())
        .fold(0.0, f64::max);
    1.0 + 2.0 * max_norm / (2.0 * sigma * sigma)
}

/// Unit roundoff of f32.
pub const EPS32: f64 = f32::EPSILON as f64 / 2.0;

/// The magnitude scale of one shuffle score, `κ = Σ_ij K̄_ij L_{p(i)p(j)} / (n−1)²` with
/// `K̄_ij = K_ij + r_i + r_j + g` (the non-negative quantities whose f32 rounding makes `Kc_ij`; `|Kc_ij| ≤ K̄_ij`).
///
/// The score's f32 error is then bounded by `c · u · (1 + log2 n²) · κ`: each entry of `Kc` and `L` carries a few
/// ulps of the magnitudes combined to make it (`c`), and summing n² terms in f32 — short sequential runs per
/// invocation, then a tree — adds a relative error that grows like `log2 n²` of the sum of absolute values.
/// The tolerance therefore grows with n like the error of an f32 sum of n² terms.
pub fn score_scale(k: &[f64], l: &[f64], n: usize, p: &[u32]) -> f64 {
    let nf = n as f64;
    let r: Vec<f64> = (0..n).map(|i| k[i * n..(i + 1) * n].iter().sum::<f64>() / nf).collect();
    let g = r.iter().sum::<f64>() / nf;
    let mut s = 0.0;
    for i in 0..n {
        let pi = p[i] as usize;
        for j in 0..n {
            s += (k[i * n + j] + r[i] + r[j] + g) * l[pi * n + p[j] as usize];
        }
    }
    s / ((nf - 1.0) * (nf - 1.0))
}

/// The score tolerance factor `u · (1 + log2 n²)`.
pub fn score_ulp_factor(n: usize) -> f64 {
    EPS32 * (1.0 + ((n * n) as f64).log2())
}

/// Deterministic uniform values in [lo, hi) (an LCG: no RNG dependency in the tests).
pub fn seeded(rows: usize, cols: usize, seed: u64, lo: f64, hi: f64) -> Matrix {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    let v = (0..rows * cols)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect();
    Matrix::from_vec(rows, cols, v).unwrap()
}

/// `(X, Y)` with `Y` depending on `X` (so HSIC values spread) plus noise.
pub fn dependent_pair(n: usize, dx: usize, dy: usize, seed: u64) -> (Matrix, Matrix) {
    let x = seeded(n, dx, seed, -2.0, 2.0);
    let noise = seeded(n, dy, seed + 1000, -1.0, 1.0);
    let mut y = Matrix::zeros(n, dy);
    for i in 0..n {
        for c in 0..dy {
            y.as_mut_slice()[i * dy + c] = (x.row(i)[c % dx] * 1.3).sin() + 0.5 * noise.row(i)[c];
        }
    }
    (x, y)
}

/// Kernels (`Kc`, `L` entries), σ and kernel statistics vs CPU f64, for each bandwidth rule, at sizes that hit
/// the gram shader's tile edges. Returns the largest entry error seen.
pub async fn kernels_match_cpu_f64<B: Probe>(b: &mut B, tol: &Tolerances, sizes: &[(usize, usize)]) -> f64 {
    let (mut dev_k, mut dev_sigma, mut dev_mean) = (MaxDev::default(), MaxDev::default(), MaxDev::default());
    let mut worst_units = 0.0f64;
    for &(n, d) in sizes {
        let (x, y) = dependent_pair(n, d, 3, n as u64 * 7 + d as u64);
        for bw in [Bandwidth::SqrtDim, Bandwidth::Median, Bandwidth::Fixed(0.75)] {
            let ctx = format!("n={n} d={d} bw={bw}");
            let mut reference = CpuBackend::new(Precision::F64);
            let rp = reference.prepare(x.view(), y.view(), bw, bw).await.unwrap();
            let pair = b.prepare(x.view(), y.view(), bw, bw).await.unwrap();
            let (rs, s) = (rp.stats(), pair.stats());
            assert_eq!(s.n, n);
            for (got, want, what) in [(s.x, rs.x, "x"), (s.y, rs.y, "y")] {
                let sigma_tol = if bw == Bandwidth::Median { tol.sigma_median } else { 0.0 };
                assert!(
                    (got.sigma - want.sigma).abs() <= sigma_tol * want.sigma,
                    "{ctx} sigma_{what}: {} vs {}",
                    got.sigma,
                    want.sigma
                );
                dev_sigma.add(got.sigma, want.sigma);
                for (g, w, m) in [
                    (got.mean_all, want.mean_all, "mean_all"),
                    (got.mean_offdiag, want.mean_offdiag, "mean_offdiag"),
                ] {
                    assert!(
                        (g - w).abs() <= tol.kernel_mean * w.abs() + MEAN_ATOL,
                        "{ctx} {what} {m}: {g:e} vs {w:e}"
                    );
                    dev_mean.add(g, w);
                }
            }
            let (kc, l) = b.kernels(&pair, x.view(), y.view(), (bw, bw)).await;
            let (rkc, rl) = reference.kernels(&rp, x.view(), y.view(), (bw, bw)).await;
            let scales = [kernel_scale(&x, rs.x.sigma), kernel_scale(&y, rs.y.sigma)];
            for ((what, got, want), scale) in [("Kc", &kc, &rkc), ("L", &l, &rl)].into_iter().zip(scales) {
                assert_eq!(got.len(), n * n, "{ctx} {what}");
                let unit = EPS32 * scale;
                for (e, (g, w)) in got.iter().zip(want.iter()).enumerate() {
                    let err = (g - w).abs();
                    assert!(
                        err <= tol.kernel_ulps * unit,
                        "{ctx} {what}[{}][{}]: {g:e} vs {w:e} (|Δ| = {err:e}, u·λ = {unit:e})",
                        e / n,
                        e % n
                    );
                    worst_units = worst_units.max(err / unit);
                    dev_k.add(*g, *w);
                }
            }
        }
    }
    say!("kernel entries: max |Δ|/(u·λ) = {worst_units:.3}");
    report(&dev_k, "Kc and L entries vs CPU f64");
    report(&dev_sigma, "sigma (sqrt_dim, median, fixed) vs CPU f64");
    report(&dev_mean, "kernel means (KernelStats) vs CPU f64");
    dev_k.abs
}

/// Shuffle scores value by value vs CPU f64 for the same permutations. Returns the largest error in units of
/// `u · (1 + log2 n²) · κ` (see [`score_scale`]) and the largest plain relative error `|Δ|/|H|`.
pub async fn shuffle_scores_match_cpu_f64<B: Backend>(
    b: &mut B,
    tol: &Tolerances,
    n: usize,
    shuffles: usize,
) -> (f64, f64) {
    let (x, y) = dependent_pair(n, 16, 4, n as u64);
    let (bx, by) = (Bandwidth::SqrtDim, Bandwidth::Median);
    let mut perms: Vec<u32> = (0..n as u32).collect(); // the identity first: the observed statistic
    Permutations::new(n as u64, Stream::Shuffles).extend(n, shuffles - 1, &mut perms);
    let mut want = vec![0.0; shuffles];
    let mut reference = CpuBackend::new(Precision::F64);
    let rp = reference.prepare(x.view(), y.view(), bx, by).await.unwrap();
    reference.score(&rp, &perms, &mut want).await.unwrap();
    let pair = b.prepare(x.view(), y.view(), bx, by).await.unwrap();
    let mut got = vec![0.0; shuffles];
    b.score(&pair, &perms, &mut got).await.unwrap();

    let k = kernel::rbf::<f64, f64>(x.view(), bx).unwrap().values;
    let l = kernel::rbf::<f64, f64>(y.view(), by).unwrap().values;
    let (mut worst_units, mut worst_rel) = (0.0f64, 0.0f64);
    for (t, (g, w)) in got.iter().zip(&want).enumerate() {
        let p = &perms[t * n..(t + 1) * n];
        let unit = score_ulp_factor(n) * score_scale(&k, &l, n, p);
        let err = (g - w).abs();
        assert!(
            err <= tol.score_ulps * unit,
            "n={n} shuffle {t}: {g:e} vs {w:e}, |Δ| = {err:e} > {} · u(1 + log2 n²)κ = {:e}",
            tol.score_ulps,
            tol.score_ulps * unit
        );
        worst_units = worst_units.max(err / unit);
        worst_rel = worst_rel.max(err / w.abs());
    }
    say!(
        "shuffle scores n={n} ({shuffles} shuffles): max |Δ|/(u(1+log2 n²)κ) = {worst_units:.3}, max |Δ|/|H| = {worst_rel:.3e}"
    );
    (worst_units, worst_rel)
}

/// A full permutation test through `hsic_test_with` on the backend vs CPU f64: same statistic to f32 accuracy,
/// exceedance counts within `tol.exceedances` (p within that many counts of 1/(B+1)).
pub async fn hsic_test_matches_cpu_f64<B: Backend>(b: &mut B, tol: &Tolerances, n: usize) {
    let mut worst = 0usize;
    for (name, seed, coupling) in [("dependent", 1u64, 0.35), ("independent", 2, 0.0)] {
        let x = seeded(n, 5, seed, -1.0, 1.0);
        let noise = seeded(n, 2, seed + 50, -1.0, 1.0);
        let mut y = noise.clone();
        for i in 0..n {
            y.as_mut_slice()[i * 2] += coupling * x.row(i)[0];
        }
        let params = HsicTestParams {
            permutations: 199,
            seed: 11,
            ..Default::default()
        };
        let want = hsic_test_with(
            &mut CpuBackend::new(Precision::F64),
            &mut Silent,
            x.view(),
            y.view(),
            &params,
        )
        .await
        .unwrap();
        let got = hsic_test_with(b, &mut Silent, x.view(), y.view(), &params)
            .await
            .unwrap();
        assert!(got.complete && got.permutations_done == 199);
        // Within the score tolerance of shuffle_scores_match_cpu_f64 (a few u·log2 n² of magnitudes ≤ 1).
        assert!(
            (got.statistic - want.statistic).abs() <= tol.score_ulps * score_ulp_factor(n),
            "{name}: statistic {:e} vs {:e}",
            got.statistic,
            want.statistic
        );
        let diff = got.exceedances.abs_diff(want.exceedances);
        assert!(
            diff <= tol.exceedances,
            "{name} n={n}: exceedances {} vs {} (p {} vs {})",
            got.exceedances,
            want.exceedances,
            got.p_value,
            want.p_value
        );
        say!(
            "hsic test {name} n={n}: p = {} (backend) vs {} (CPU f64), exceedances {} vs {}",
            got.p_value,
            want.p_value,
            got.exceedances,
            want.exceedances
        );
        worst = worst.max(diff);
    }
    say!(
        "hsic test: largest exceedance-count difference {worst} (allowed {})",
        tol.exceedances
    );
}

fn spec(v: &Value) -> Bandwidth {
    match v {
        Value::String(s) => s.parse().expect("sigma spec"),
        Value::Number(n) => Bandwidth::Fixed(n.as_f64().expect("number")),
        _ => panic!("sigma spec {v}"),
    }
}

/// The golden SDE split-half shuffles (sde.json) through the backend: `ref_H` for the stored permutations and
/// σ per half. f32 tolerance as the core's f32 CPU test: 1e-6 absolute + 1e-4 relative.
pub async fn golden_sde_matches_reference<B: Backend>(b: &mut B, tol: &Tolerances) {
    let g: Value = serde_json::from_str(SDE_JSON).unwrap();
    let (mut dev, mut dev_sigma) = (MaxDev::default(), MaxDev::default());
    let (atol, rtol) = if tol.kernel_ulps < 1.0 {
        (1e-11, 1e-10)
    } else {
        (1e-6, 1e-4)
    };
    for c in g["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let s = matrix(&c["S"]);
        let h = c["half"].as_u64().unwrap() as usize;
        let perms: Vec<u32> = c["perms"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|p| p.as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as u32))
            .collect();
        let t = perms.len() / h;
        let (s1, s2) = (s.row_block(0, h).unwrap(), s.row_block(h, 2 * h).unwrap());
        for r in c["results"].as_array().unwrap() {
            let bw = spec(&r["sigma_spec"]);
            let pair = b.prepare(s1, s2, bw, bw).await.unwrap();
            let st = pair.stats();
            for (got, want) in [(st.x.sigma, num(&r["sigma_1"])), (st.y.sigma, num(&r["sigma_2"]))] {
                assert!(
                    (got - want).abs() <= 1e-12 + tol.sigma_median * want,
                    "{name} {bw}: sigma {got} vs {want}"
                );
                dev_sigma.add(got, want);
            }
            let mut out = vec![0.0; t];
            b.score(&pair, &perms, &mut out).await.unwrap();
            for (k, (got, want)) in out.iter().zip(nums(&r["ref_H"])).enumerate() {
                assert!(
                    (got - want).abs() <= atol + rtol * want.abs(),
                    "{name} {bw} shuffle {k}: {got:e} vs {want:e}"
                );
                dev.add(*got, want);
            }
        }
    }
    report(&dev, "sde.json ref_H through the backend");
    report(&dev_sigma, "sde.json sigma_1/sigma_2 through the backend");
}

/// The golden HSIC cases (hsic.json) through the backend: the statistic is the identity permutation's score;
/// σ per input; `K_sqrt_dim`/`Kc_sqrt_dim` entries where stored.
pub async fn golden_hsic_matches_reference<B: Probe>(b: &mut B, tol: &Tolerances) {
    let g: Value = serde_json::from_str(HSIC_JSON).unwrap();
    let (mut dev, mut dev_k) = (MaxDev::default(), MaxDev::default());
    let (atol, rtol) = if tol.kernel_ulps < 1.0 {
        (1e-11, 1e-10)
    } else {
        (1e-6, 1e-4)
    };
    let mut checked = 0;
    for c in g["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let (x, y) = (matrix(&c["X"]), matrix(&c["Y"]));
        let n = x.rows();
        let identity: Vec<u32> = (0..n as u32).collect();
        for r in c["results"].as_array().unwrap() {
            let bw = spec(&r["sigma_spec"]);
            let pair = b.prepare(x.view(), y.view(), bw, bw).await.unwrap();
            let st = pair.stats();
            for (got, want) in [(st.x.sigma, num(&r["sigma_x"])), (st.y.sigma, num(&r["sigma_y"]))] {
                assert!(
                    (got - want).abs() <= 1e-12 + tol.sigma_median * want,
                    "{name} {bw}: sigma {got} vs {want}"
                );
            }
            let mut out = [0.0];
            b.score(&pair, &identity, &mut out).await.unwrap();
            let want = num(&r["ref_hsic"]);
            assert!(
                (out[0] - want).abs() <= atol + rtol * want.abs(),
                "{name} {bw}: HSIC {} vs {want}",
                out[0]
            );
            dev.add(out[0], want);
            checked += 1;
            if let (Bandwidth::SqrtDim, Some(kw), Some(kcw)) = (bw, c.get("K_sqrt_dim"), c.get("Kc_sqrt_dim")) {
                let (kc, _) = b.kernels(&pair, x.view(), y.view(), (bw, bw)).await;
                let unit = EPS32 * kernel_scale(&x, st.x.sigma);
                for (got, want) in kc.iter().zip(matrix(kcw).as_slice()) {
                    // The golden values are float64 numpy: allow the f64 path its own rounding too.
                    let allowed = (tol.kernel_ulps * unit).max(1e-12);
                    assert!((got - want).abs() <= allowed, "{name} Kc: {got:e} vs {want:e}");
                    dev_k.add(*got, *want);
                }
                // K itself is not kept (only Kc), but its mean is: compare KernelStats with the stored K.
                let kw = matrix(kw);
                let mean: f64 = kw.as_slice().iter().sum::<f64>() / (n * n) as f64;
                assert!(
                    (st.x.mean_all - mean).abs() <= tol.kernel_mean.max(1e-14) * mean,
                    "{name} mean K"
                );
            }
        }
    }
    assert_eq!(checked, 28);
    report(&dev, "hsic.json ref_hsic through the backend");
    report(&dev_k, "hsic.json Kc_sqrt_dim entries through the backend");
}

/// Bad inputs are errors, never panics or garbage, through the core's driver (which validates before any backend
/// sees the data) and at the backend's own `score`; an empty batch is fine; n = 2 (the smallest valid input)
/// matches the CPU.
pub async fn edge_cases<B: Backend>(b: &mut B) {
    let x = seeded(4, 2, 9, -1.0, 1.0);
    let params = HsicTestParams {
        permutations: 9,
        ..Default::default()
    };
    for (what, xa, ya) in [
        ("n = 1", seeded(1, 2, 9, -1.0, 1.0), seeded(1, 2, 9, -1.0, 1.0)),
        ("row mismatch", x.clone(), seeded(3, 2, 9, -1.0, 1.0)),
        ("NaN", with(&x, 3, f64::NAN), x.clone()),
        ("-inf", x.clone(), with(&x, 0, f64::NEG_INFINITY)),
        ("empty", Matrix::zeros(0, 2), Matrix::zeros(0, 2)),
    ] {
        assert!(
            hsic_test_with(b, &mut Silent, xa.view(), ya.view(), &params)
                .await
                .is_err(),
            "{what}"
        );
    }

    let pair = b
        .prepare(x.view(), x.view(), Bandwidth::SqrtDim, Bandwidth::SqrtDim)
        .await
        .unwrap();
    let mut one_out = [0.0];
    assert!(
        b.score(&pair, &[0, 1, 2, 4], &mut one_out).await.is_err(),
        "index past n"
    );
    assert!(
        b.score(&pair, &[0, 1, 2], &mut one_out).await.is_err(),
        "partial permutation"
    );
    assert!(
        b.score(&pair, &[0, 1, 2, 3], &mut [0.0; 2]).await.is_err(),
        "count mismatch"
    );
    b.score(&pair, &[], &mut []).await.unwrap();

    let two = seeded(2, 3, 4, -1.0, 1.0);
    let bw = (Bandwidth::SqrtDim, Bandwidth::Median);
    let pair = b.prepare(two.view(), two.view(), bw.0, bw.1).await.unwrap();
    let mut out = [0.0; 2];
    b.score(&pair, &[0, 1, 1, 0], &mut out).await.unwrap();
    let mut cpu = CpuBackend::new(Precision::F64);
    let rp = cpu.prepare(two.view(), two.view(), bw.0, bw.1).await.unwrap();
    let mut want = [0.0; 2];
    cpu.score(&rp, &[0, 1, 1, 0], &mut want).await.unwrap();
    for (g, w) in out.iter().zip(want) {
        assert!((g - w).abs() <= 1e-6 * w.abs() + 1e-9, "n=2: {g} vs {w}");
    }
}

fn with(m: &Matrix, at: usize, v: f64) -> Matrix {
    let mut m = m.clone();
    m.as_mut_slice()[at] = v;
    m
}

/// Identical rows have exactly zero distance (so the median heuristic falls back to σ = 1 for constant data, as
/// on the CPU), and HSIC of a constant `Y` is 0 up to rounding.
pub async fn duplicate_rows_have_zero_distance<B: Probe>(b: &mut B) {
    let n = 37;
    let mut x = seeded(n, 5, 3, -3.0, 3.0);
    let row: Vec<f64> = x.row(4).to_vec();
    for i in [9, 20, 36] {
        x.as_mut_slice()[i * 5..(i + 1) * 5].copy_from_slice(&row);
    }
    let constant = Matrix::from_vec(n, 2, vec![0.3; 2 * n]).unwrap();
    let pair = b
        .prepare(x.view(), constant.view(), Bandwidth::SqrtDim, Bandwidth::Median)
        .await
        .unwrap();
    assert_eq!(pair.stats().y.sigma, 1.0, "constant rows: median 0 → σ = 1");
    assert_eq!(
        pair.stats().y.mean_offdiag,
        1.0,
        "constant rows: every L entry is exp(0) = 1"
    );
    let (kc, l) = b
        .kernels(
            &pair,
            x.view(),
            constant.view(),
            (Bandwidth::SqrtDim, Bandwidth::Median),
        )
        .await;
    assert!(l.iter().all(|&v| v == 1.0));
    for i in [9, 20, 36] {
        assert_eq!(
            kc[4 * n + i],
            kc[4 * n + 4],
            "row {i} duplicates row 4: same kernel entries"
        );
    }
    let identity: Vec<u32> = (0..n as u32).collect();
    let mut out = [1.0];
    b.score(&pair, &identity, &mut out).await.unwrap();
    assert!(out[0].abs() < 1e-6, "HSIC with constant Y: {}", out[0]);
}

/// The exact shuffle moments (core `sde::moments`) from this backend's kernel sums against the CPU f64 ones.
/// f32 kernels carry ~1e-7 relative error per entry; the sums behind the moments are O(n²) such entries with
/// cancellation in the centred kernel, so the moments are compared to 1e-4 relative.
pub async fn exact_moments_match_cpu_f64<B: Backend>(b: &mut B) {
    use lethe::sde::shuffle_moments;
    let mut reference = CpuBackend::new(Precision::F64);
    for n in [4, 17, 64, 200] {
        let (x, y) = dependent_pair(n, 6, 5, 7 + n as u64);
        let bw = Bandwidth::SqrtDim;
        let ours = b.prepare(x.view(), y.view(), bw, bw).await.unwrap().stats();
        let refs = reference.prepare(x.view(), y.view(), bw, bw).await.unwrap().stats();
        let (m, r) = (
            shuffle_moments(&ours.kc_sums, &ours.l_sums),
            shuffle_moments(&refs.kc_sums, &refs.l_sums),
        );
        let rel = |a: f64, w: f64| (a - w).abs() / w.abs().max(1e-300);
        println!(
            "n {n}: mean rel err {:.2e}, sd rel err {:.2e}",
            rel(m.mean, r.mean),
            rel(m.sd, r.sd)
        );
        assert!(
            rel(m.mean, r.mean) < 1e-4 && rel(m.sd, r.sd) < 1e-4,
            "n={n}: {m:?} vs {r:?}"
        );
    }
}
