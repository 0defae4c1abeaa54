//! Native measurements for `bench/run.sh`: the machine's own f32 FMA peak (AVX2 and AVX-512, measured like the
//! wasm simd128 ceiling in `lethe_bench::peak_gflops`), the core clock (a chain of dependent integer adds), the f32
//! Gram on each SIMD path the kernels can take (the same `lethe::kernel` code as the CLI), and the shuffle loop.
//! Prints one JSON object. Benchmarks only; x86-64 (elsewhere the peaks are `null`).
//!
//!   lethe-bench-native "500:512 1000:512 1000:8192"

use lethe::backend::Precision;
use lethe::data::MatrixRef;
use lethe::kernel::{self, GramPath};

fn min_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps.max(1))
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(target_arch = "x86_64")]
mod peak {
    use std::arch::x86_64::*;

    /// Twelve independent chains `c = c·a + b` (FMA latency 4 × 2 pipes needs ≥ 8 in flight), 2 flops per lane.
    #[target_feature(enable = "avx2,fma")]
    pub fn avx2(iters: u64) -> f64 {
        let (a, b) = (_mm256_set1_ps(0.999_9), _mm256_set1_ps(1e-4));
        let mut c: [__m256; 12] = [_mm256_setzero_ps(); 12];
        for (k, v) in c.iter_mut().enumerate() {
            *v = _mm256_set1_ps(k as f32 * 0.01);
        }
        let t = std::time::Instant::now();
        for _ in 0..iters {
            for v in &mut c {
                *v = _mm256_fmadd_ps(*v, a, b);
            }
        }
        std::hint::black_box(c);
        iters as f64 * 12.0 * 16.0 / (t.elapsed().as_secs_f64() * 1e9)
    }

    #[target_feature(enable = "avx512f")]
    pub fn avx512(iters: u64) -> f64 {
        let (a, b) = (_mm512_set1_ps(0.999_9), _mm512_set1_ps(1e-4));
        let mut c: [__m512; 12] = [_mm512_setzero_ps(); 12];
        for (k, v) in c.iter_mut().enumerate() {
            *v = _mm512_set1_ps(k as f32 * 0.01);
        }
        let t = std::time::Instant::now();
        for _ in 0..iters {
            for v in &mut c {
                *v = _mm512_fmadd_ps(*v, a, b);
            }
        }
        std::hint::black_box(c);
        iters as f64 * 12.0 * 32.0 / (t.elapsed().as_secs_f64() * 1e9)
    }

    /// Core clock in GHz: ten dependent one-cycle integer adds per iteration.
    pub fn clock_ghz(iters: u64) -> f64 {
        let t = std::time::Instant::now();
        let mut x: u64 = 1;
        for _ in 0..iters {
            // SAFETY: register arithmetic only.
            unsafe {
                std::arch::asm!(
                    "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
                    "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1", "add {x}, 1",
                    x = inout(reg) x, options(nomem, nostack)
                );
            }
        }
        std::hint::black_box(x);
        iters as f64 * 10.0 / (t.elapsed().as_secs_f64() * 1e9)
    }
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn best(reps: usize, f: impl Fn() -> f64) -> f64 {
    (0..reps).map(|_| f()).fold(0.0, f64::max)
}

fn main() {
    let grams = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "500:512 1000:512 1000:8192".into());
    let mut out = String::from("{");
    #[cfg(target_arch = "x86_64")]
    {
        let avx2 = if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            // SAFETY: AVX2 and FMA are present.
            format!("{:.2}", best(30, || unsafe { peak::avx2(5_000_000) }))
        } else {
            "null".into()
        };
        let avx512 = if is_x86_feature_detected!("avx512f") {
            // SAFETY: AVX-512F is present.
            format!("{:.2}", best(30, || unsafe { peak::avx512(5_000_000) }))
        } else {
            "null".into()
        };
        let ghz = best(30, || peak::clock_ghz(2_000_000));
        out += &format!("\"peak_avx2_gflops\": {avx2}, \"peak_avx512_gflops\": {avx512}, \"clock_ghz\": {ghz:.3}, ");
    }
    out += &format!("\"gram_path\": \"{:?}\", \"grams\": [", GramPath::auto());
    let mut first = true;
    for g in grams.split_whitespace() {
        let (n, d) = g.split_once(':').expect("N:D");
        let (n, d): (usize, usize) = (n.parse().expect("N"), d.parse().expect("D"));
        let x = lethe_bench::seeded(n * d, 7);
        let xc: Vec<f32> = kernel::center_columns(MatrixRef::new(n, d, &x).expect("shape"));
        let reps = if d <= 512 { 20 } else { 5 };
        for path in [GramPath::Auto, GramPath::Avx2, GramPath::Avx512] {
            if kernel::gram_f32_on(path, &xc, n, d).is_none() {
                continue;
            }
            // A warm-up first (allocator, caches, clock), then the fastest of `reps`.
            let run = || drop(std::hint::black_box(kernel::gram_f32_on(path, &xc, n, d)));
            min_ms(3, run);
            let ms = min_ms(reps, run);
            let gflops = (n * (n + 1) * d) as f64 / (ms * 1e6);
            out += &format!(
                "{}{{\"n\": {n}, \"d\": {d}, \"path\": \"{path:?}\", \"ms\": {ms:.4}, \"gflops\": {gflops:.2}}}",
                if first { "" } else { ", " }
            );
            first = false;
        }
        // The kernels' own pass (Gram + distances + mirroring), as the wasm `gram` task times it.
        let ms = lethe_bench::gram_ms(n, d, reps, true);
        let gflops = (n * (n + 1) * d) as f64 / (ms * 1e6);
        out +=
            &format!(", {{\"n\": {n}, \"d\": {d}, \"path\": \"sq_dists\", \"ms\": {ms:.4}, \"gflops\": {gflops:.2}}}");
    }
    let n0 = 500;
    let score = lethe_bench::score_ms(n0, 200, 10, Precision::F32);
    let exp = lethe_bench::exp_ms(n0 * n0, 10);
    let prepare = lethe_bench::prepare_ms(n0, 512, 10, Precision::F32);
    out += &format!(
        "], \"score_ms\": {score:.4}, \"score_n\": {n0}, \"score_shuffles\": 200, \"exp_ms\": {exp:.4}, \"exp_len\": {}, \"prepare_f32_ms\": {prepare:.4}}}",
        n0 * n0
    );
    println!("{out}");
}
