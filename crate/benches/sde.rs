//! The SDE paper's Table 9 shape per subset: |S| = 1000 → halves of n = 500 rows, d = 512, T = 200 shuffles.
//! Kernels (Gram + RBF + centring) and the permutation loop, in f64 (reference) and f32 (fast) storage.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use lethe::Matrix;
use lethe::backend::{Backend, CpuBackend, Precision};
use lethe::kernel::{self, Bandwidth};
use lethe::permute::{Permutations, Stream};

fn data(n: usize, d: usize, seed: u64) -> Matrix<f32> {
    let mut s = seed;
    let v = (0..n * d)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u32 << 24) as f32) * 2.0 - 1.0
        })
        .collect();
    Matrix::from_vec(n, d, v).expect("shape")
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    match f
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("CPU futures are ready"),
    }
}

fn bench(c: &mut Criterion) {
    let (n, d, t) = (500, 512, 200);
    let (x, y) = (data(n, d, 1), data(n, d, 2));
    let mut g = c.benchmark_group("table9_subset");
    g.sample_size(20);
    g.throughput(Throughput::Elements(1));
    let xc32: Vec<f32> = kernel::center_columns(x.view());
    let xc64: Vec<f64> = kernel::center_columns(x.view());
    g.bench_function("sq_dists_500x512_f32", |b| b.iter(|| kernel::sq_dists(&xc32, n, d)));
    g.bench_function("sq_dists_500x512_f64", |b| b.iter(|| kernel::sq_dists(&xc64, n, d)));
    let mut perms = Vec::new();
    Permutations::new(0, Stream::Shuffles).extend(n, t, &mut perms);
    for p in [Precision::F64, Precision::F32] {
        let mut be = CpuBackend::new(p);
        g.bench_with_input(BenchmarkId::new("prepare_pair", format!("{p:?}")), &p, |b, _| {
            b.iter(|| {
                block_on(be.prepare(x.view(), y.view(), Bandwidth::SqrtDim, Bandwidth::SqrtDim)).expect("prepare")
            })
        });
        let pair = block_on(be.prepare(x.view(), y.view(), Bandwidth::SqrtDim, Bandwidth::SqrtDim)).expect("prepare");
        let mut out = vec![0.0; t];
        g.bench_with_input(BenchmarkId::new("shuffles_200", format!("{p:?}")), &p, |b, _| {
            b.iter(|| block_on(be.score(&pair, &perms, &mut out)).expect("score"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
