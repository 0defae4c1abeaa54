//! Issue 23's speed target: `lethe compare` on 50 methods × 10 seeds × 20 metrics with 10,000 bootstrap
//! resamples (under 1 s natively, one thread). A seeded synthetic runs table built in memory and run through the
//! layer's `run_compare`, as every front end calls it: every pair of methods (the default), and each method
//! against a baseline.
//!
//! `COMPARE_BENCH_ONCE=1 cargo bench -p lethe-analysis --bench compare` times one run of each case instead of
//! criterion's samples (`COMPARE_BENCH_ONCE=baseline`: only the cases whose name holds that word);
//! `COMPARE_BENCH_REPORT=PREFIX` also writes each timed case's JSON report (not timed) to `PREFIX<case>.json`;
//! `COMPARE_BENCH_TABLE=FILE` writes the runs table there (the page's bench builds the same one,
//! bench/web/compare-table.mjs).

use criterion::{Criterion, criterion_group, criterion_main};
use lethe_analysis::analyses::{CompareRequest, TextInput, run_compare};
use lethe_analysis::workspace::Workspace;

const SEEDS: usize = 10;

/// (methods, metrics, resamples): the target's sizes under `cargo bench`; a small table when `cargo test
/// --all-targets` runs the bench once as a test (unoptimised, it took minutes at the full size).
fn sizes() -> (usize, usize, usize) {
    if std::env::args().any(|a| a == "--bench") {
        (50, 20, 10_000)
    } else {
        (6, 2, 200)
    }
}

/// The runs table: method `mK` has mean `K/100` plus a per-metric offset, values spread by a seeded LCG.
fn table(methods: usize, metrics: usize) -> String {
    let mut s: u64 = 23;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut t = String::from("method,seed");
    for j in 0..metrics {
        t.push_str(&format!(",metric{j}"));
    }
    t.push('\n');
    for m in 0..methods {
        for seed in 0..SEEDS {
            t.push_str(&format!("method{m},{seed}"));
            for j in 0..metrics {
                let v = m as f64 / 100.0 + j as f64 / 10.0 + 0.2 * (next() - 0.5);
                t.push_str(&format!(",{v:.6}"));
            }
            t.push('\n');
        }
    }
    t
}

fn request(text: &str, baseline: Option<&str>, metrics: usize, resamples: usize) -> CompareRequest {
    CompareRequest {
        runs: Some(TextInput::Text { text: text.into() }),
        metrics: (0..metrics).map(|j| format!("metric{j}:higher")).collect(),
        baseline: baseline.map(str::to_string),
        resamples,
        seed: 0,
        ..CompareRequest::default()
    }
}

fn run(req: &CompareRequest) -> usize {
    let mut ws = Workspace::new();
    let r = run_compare(&mut ws, req).expect("compare");
    r.result.comparisons.len()
}

/// `COMPARE_BENCH_REPORT=PREFIX`: each case's JSON report to `PREFIX<case>.json` (to compare the numbers of two
/// builds at this size byte for byte).
fn write_report(req: &CompareRequest, name: &str) {
    if let Some(prefix) = std::env::var_os("COMPARE_BENCH_REPORT") {
        let mut ws = Workspace::new();
        let r = run_compare(&mut ws, req).expect("compare");
        let path = format!("{}{name}.json", prefix.to_string_lossy());
        std::fs::write(path, serde_json::to_string(&r).expect("json")).expect("write the report");
    }
}

fn bench(c: &mut Criterion) {
    let (methods, metrics, resamples) = sizes();
    let text = table(methods, metrics);
    // The table itself, to check the page bench's copy (bench/web/compare-table.mjs) against it.
    if let Some(path) = std::env::var_os("COMPARE_BENCH_TABLE") {
        std::fs::write(path, &text).expect("write the table");
    }
    let cases = [
        ("50x10x20_all_pairs", request(&text, None, metrics, resamples)),
        (
            "50x10x20_vs_baseline",
            request(&text, Some("method0"), metrics, resamples),
        ),
    ];
    if let Some(only) = std::env::var_os("COMPARE_BENCH_ONCE") {
        let only = only.to_string_lossy().into_owned();
        for (name, req) in cases.iter().filter(|(n, _)| only == "1" || n.contains(only.as_str())) {
            let t = std::time::Instant::now();
            let n = run(req);
            println!("{name}: {:.3} s (one run, {n} comparisons)", t.elapsed().as_secs_f64());
            write_report(req, name);
        }
        return;
    }
    let mut g = c.benchmark_group("compare");
    g.sample_size(10);
    for (name, req) in &cases {
        g.bench_function(*name, |b| b.iter(|| run(req)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
