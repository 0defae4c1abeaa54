//! GPU vs CPU on the SDE paper's Table 9 subset shape: |S| = 1000 split into halves of n = 500 rows, d = 512
//! activations, T = 200 shuffles (docs/performance.md, "The workload").
//!
//! Each iteration is what one SDE subset costs: `prepare` (upload, kernels, statistics readback) plus scoring
//! 200 permutations (permutation upload, dispatch, partial-sum readback), on the same seeded data and the same
//! permutations for every backend. The pieces are also timed on their own, and the GPU once more through
//! `hsic_test_with`, which scores in batches of `lethe::hsic::BATCH` (one readback each).
//!
//! Without a GPU the "gpu" rows run on lavapipe (Vulkan on the CPU): those are CPU numbers.
//!
//! Run: `cargo bench -p lethe-gpu --bench gpu` (set `WGPU_BACKEND=vulkan` to skip GL probing).
#![allow(clippy::unwrap_used, clippy::expect_used)]

// Criterion and pollster are native-only dev-dependencies; on wasm32 (where the browser has its own timing) this
// bench is an empty program.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::benches();
    criterion::Criterion::default().configure_from_args().final_summary();
}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::time::Duration;

    use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
    use lethe::Matrix;
    use lethe::backend::{Backend, CpuBackend, Precision};
    use lethe::hsic::{HsicTestParams, hsic_test_with};
    use lethe::kernel::Bandwidth;
    use lethe::permute::{Permutations, Stream};
    use lethe::progress::Silent;
    use lethe_gpu::{GpuBackend, GpuOptions};

    const N: usize = 500;
    const D: usize = 512;
    const SHUFFLES: usize = 200;

    fn seeded(rows: usize, cols: usize, seed: u64) -> Matrix<f32> {
        let mut s = seed;
        let v = (0..rows * cols)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
            })
            .collect();
        Matrix::from_vec(rows, cols, v).unwrap()
    }

    /// One SDE subset: kernels of both halves, then all shuffles in one `score` call.
    async fn subset<B: Backend>(b: &mut B, s1: &Matrix<f32>, s2: &Matrix<f32>, perms: &[u32], out: &mut [f64]) {
        let bw = Bandwidth::SqrtDim;
        let pair = b.prepare(s1.view(), s2.view(), bw, bw).await.unwrap();
        b.score(&pair, perms, out).await.unwrap();
    }

    fn bench(c: &mut Criterion) {
        let (s1, s2) = (seeded(N, D, 1), seeded(N, D, 2));
        let mut perms = Vec::new();
        Permutations::new(0, Stream::Shuffles).extend(N, SHUFFLES, &mut perms);
        let mut out = vec![0.0; SHUFFLES];

        let options = GpuOptions {
            backends: lethe_gpu::wgpu::Backends::PRIMARY,
            ..Default::default()
        };
        let mut gpu = pollster::block_on(GpuBackend::request(&options))
            .unwrap_or_else(|e| panic!("the GPU bench needs an adapter: {e}"));
        println!("gpu: {:?}", lethe::backend::Backend::info(&gpu));
        let mut cpu32 = CpuBackend::new(Precision::F32);
        let mut cpu64 = CpuBackend::new(Precision::F64);

        // Same permutations, same answers (to f32 accuracy) before timing anything.
        let mut check = vec![0.0; SHUFFLES];
        pollster::block_on(subset(&mut gpu, &s1, &s2, &perms, &mut out));
        pollster::block_on(subset(&mut cpu64, &s1, &s2, &perms, &mut check));
        let worst = out
            .iter()
            .zip(&check)
            .map(|(g, w)| ((g - w) / w).abs())
            .fold(0.0, f64::max);
        println!("gpu vs cpu f64 on the bench data: max relative difference {worst:.2e}");

        let mut g = c.benchmark_group(format!("sde_subset_n{N}_d{D}"));
        g.sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(8));
        g.throughput(Throughput::Elements(SHUFFLES as u64));
        let id = |name: &str| BenchmarkId::new("prepare+200_shuffles", name);
        g.bench_function(id("gpu"), |b| {
            b.iter(|| pollster::block_on(subset(&mut gpu, &s1, &s2, &perms, &mut out)))
        });
        g.bench_function(id("cpu_f32"), |b| {
            b.iter(|| pollster::block_on(subset(&mut cpu32, &s1, &s2, &perms, &mut out)))
        });
        g.bench_function(id("cpu_f64"), |b| {
            b.iter(|| pollster::block_on(subset(&mut cpu64, &s1, &s2, &perms, &mut out)))
        });
        g.finish();

        let mut g = c.benchmark_group(format!("parts_n{N}_d{D}"));
        g.sample_size(10)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(5));
        let bw = Bandwidth::SqrtDim;
        macro_rules! parts {
            ($name:literal, $b:expr) => {{
                let b = $b;
                g.bench_function(BenchmarkId::new("prepare", $name), |it| {
                    it.iter(|| pollster::block_on(b.prepare(s1.view(), s2.view(), bw, bw)).unwrap())
                });
                let pair = pollster::block_on(b.prepare(s1.view(), s2.view(), bw, bw)).unwrap();
                g.bench_function(BenchmarkId::new("score_200", $name), |it| {
                    it.iter(|| pollster::block_on(b.score(&pair, &perms, &mut out)).unwrap())
                });
            }};
        }
        parts!("gpu", &mut gpu);
        parts!("cpu_f32", &mut cpu32);
        parts!("cpu_f64", &mut cpu64);
        let params = HsicTestParams {
            permutations: SHUFFLES,
            ..Default::default()
        };
        g.bench_function(BenchmarkId::new("hsic_test_with_batches_of_32", "gpu"), |it| {
            it.iter(|| {
                pollster::block_on(hsic_test_with(&mut gpu, &mut Silent, s1.view(), s2.view(), &params)).unwrap()
            })
        });
        g.finish();
    }

    criterion_group!(benches, bench);
}
