//! The official NeurIPS 2023 forget score at the competition's size: 512 retrained and 512 unlearned models ×
//! 1,000 forget-set examples (seeded synthetic confidences; per example the unlearned sample is shifted and
//! rescaled by a varying amount, so interval and single-threshold attacks both matter).
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lethe::Matrix;
use lethe::competition::{CompetitionParams, Variant, forget_score};

/// SplitMix64 + Box–Muller: seeded inputs without a dependency.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform().max(1e-300), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

fn inputs(models: usize, examples: usize, seed: u64) -> (Matrix, Matrix) {
    let mut rng = Rng(seed);
    let centre: Vec<f64> = (0..examples).map(|_| 2.0 + 2.0 * rng.normal()).collect();
    let shift: Vec<f64> = (0..examples).map(|_| 0.5 * rng.normal()).collect();
    let scale: Vec<f64> = (0..examples).map(|_| 0.3 + rng.uniform()).collect();
    let mut r = Vec::with_capacity(models * examples);
    let mut u = Vec::with_capacity(models * examples);
    for _ in 0..models {
        for e in 0..examples {
            r.push(centre[e] + rng.normal());
            u.push(centre[e] + shift[e] + scale[e] * rng.normal());
        }
    }
    (
        Matrix::from_vec(models, examples, r).expect("shape"),
        Matrix::from_vec(models, examples, u).expect("shape"),
    )
}

fn bench(c: &mut Criterion) {
    let (models, examples) = (512, 1000);
    let (r, u) = inputs(models, examples, 2023);
    let mut g = c.benchmark_group("competition");
    g.sample_size(10);
    g.throughput(Throughput::Elements(examples as u64));
    for (name, variant) in [
        ("official_512x1000", Variant::Official),
        ("exhaustive_512x1000", Variant::Exhaustive),
        ("high_probability_512x1000", Variant::HighProbability { alpha: 0.05 }),
    ] {
        let params = CompetitionParams::with_variant(variant);
        g.bench_function(name, |b| {
            b.iter(|| forget_score(black_box(r.view()), black_box(u.view()), &params).expect("valid inputs"))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
