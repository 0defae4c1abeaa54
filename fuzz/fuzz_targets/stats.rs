#![no_main]
//! The statistics' entry points with arbitrary shapes and parameters: HSIC and its permutation test (one thread
//! and two), MMD, Wasserstein-1, SDE (a split half, whole runs with baselines, threaded runs, drawn targets), the
//! calibrated verdict, the leakage bounds (every SD method, the report, the planner), RULER's m4, the rank tests,
//! the JSD and the competition score.
//!
//! Counts (shuffles, permutations, reference subsets, grid points, draws, subset rows) range from 0 to
//! `usize::MAX`; subsets may repeat rows, so a subset of 200 000 rows costs the target 1.6 MB while its kernels
//! would need terabytes. The checks: no panic; no hang (libFuzzer's `-timeout`); no allocation past the limits
//! the core states, which `init` sets low (`LETHE_MEMORY_LIMIT` = 256 MiB, `LETHE_WORK_LIMIT` = 10⁷ steps), so
//! that an estimate below what a computation really allocates or does shows up as an out-of-memory
//! (`-rss_limit_mb`, `-malloc_limit_mb`) or a timeout; every error has a message, and every refusal for size
//! says how much the request needs and the limit.

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

use lethe::competition::{CompetitionParams, EpsMax, Variant, forget_score};
use lethe::data::Source;
use lethe::hsic::{HsicTestParams, hsic, hsic_test, hsic_test_threaded};
use lethe::kernel::Bandwidth;
use lethe::leakage::{self, LeakageParams, SdMethod, Sidedness, VarianceParams};
use lethe::mmd::{MmdEstimator, mmd};
use lethe::sde::calibrated::{CalibratedParams, TargetRows, calibrated};
use lethe::sde::threaded::{calibrated_threaded, sde_subsets_threaded};
use lethe::sde::{RowSubset, SdeParams, Split, draw_subsets, draw_targets, sde_subsets, split_half_with};
use lethe::wasserstein::wasserstein1;
use lethe::{Alternative, Error, Matrix, MatrixRef, PValueMethod};

/// Most rows an index list may have (8 bytes each in the target itself).
const MAX_INDEX_ROWS: usize = 200_000;

/// A count that is mostly small, sometimes large and sometimes absurd.
fn count(u: &mut Unstructured<'_>) -> Result<usize> {
    Ok(match u.int_in_range(0u8..=9)? {
        0..=4 => u.int_in_range(0..=40)?,
        5 | 6 => u.int_in_range(0..=3000)?,
        7 => u.int_in_range(0..=10_000_000)?,
        8 => u.arbitrary::<u32>()? as usize,
        _ => usize::MAX - u.int_in_range(0..=2)?,
    })
}

/// A value: mostly small and finite, sometimes ±inf, NaN, huge or subnormal.
fn value(u: &mut Unstructured<'_>) -> Result<f64> {
    Ok(match u.int_in_range(0u8..=15)? {
        0 => f64::from_bits(u.arbitrary()?),
        1 => [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1e300,
            5e-324,
            0.0,
            -0.0,
        ][u.int_in_range(0..=7)?],
        _ => f64::from(u.arbitrary::<i16>()?) / 256.0,
    })
}

/// A probability-like value: mostly inside (0, 1), sometimes on or past its ends.
fn unit(u: &mut Unstructured<'_>) -> Result<f64> {
    Ok(match u.int_in_range(0u8..=7)? {
        0 => value(u)?,
        _ => f64::from(u.int_in_range(1u16..=999)?) / 1000.0,
    })
}

/// A matrix of at most 2000 values, `cols` columns (0 allowed): its shape from `p`, its values from `u`.
fn matrix(p: &mut Unstructured<'_>, u: &mut Unstructured<'_>, cols: usize) -> Result<Matrix> {
    let rows = p.int_in_range(0..=(2000 / cols.max(1)).min(300))?;
    let mut v = Vec::with_capacity(rows * cols);
    for _ in 0..rows * cols {
        v.push(value(u)?);
    }
    Ok(Matrix::from_vec(rows, cols, v).unwrap_or_else(|_| Matrix::from_vec(0, 0, Vec::new()).expect("empty")))
}

/// Row indices into `len` rows (some out of range), possibly very many (repeats).
fn rows(u: &mut Unstructured<'_>, len: usize) -> Result<Vec<usize>> {
    let n = count(u)?.min(MAX_INDEX_ROWS);
    let out_of_range = u.ratio(1u8, 16)?;
    let step = u.int_in_range(1..=7usize)?;
    Ok((0..n)
        .map(|i| {
            if out_of_range && i == n / 2 {
                len + i
            } else {
                (i * step) % len.max(1)
            }
        })
        .collect())
}

/// Rows `rows` of `m` as an SDE subset.
fn subset<'a>(m: MatrixRef<'a, f64>, rows: &'a [usize], label: Option<bool>) -> RowSubset<'a, f64> {
    RowSubset {
        name: "data",
        source: Source::Memory(m),
        rows: Some(rows),
        label,
    }
}

fn bandwidth(u: &mut Unstructured<'_>) -> Result<Bandwidth> {
    Ok(match u.int_in_range(0u8..=2)? {
        0 => Bandwidth::SqrtDim,
        1 => Bandwidth::Median,
        _ => Bandwidth::Fixed(value(u)?),
    })
}

fn precision(u: &mut Unstructured<'_>) -> Result<lethe::backend::Precision> {
    Ok(if u.arbitrary()? {
        lethe::backend::Precision::F32
    } else {
        lethe::backend::Precision::F64
    })
}

fn sde_params(u: &mut Unstructured<'_>) -> Result<SdeParams> {
    Ok(SdeParams {
        bandwidth: bandwidth(u)?,
        shuffles: count(u)?,
        seed: u.arbitrary()?,
        split: if u.arbitrary()? { Split::Random } else { Split::First },
        bins: count(u)?,
        precision: precision(u)?,
        baselines: u.arbitrary()?,
    })
}

/// Drives a future of the CPU backend, which completes on its first poll.
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    match f
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => unreachable!("CPU backend futures complete on their first poll"),
    }
}

/// Every error has a message; a refusal for size says what it needs and the limit.
fn check<T>(r: std::result::Result<T, Error>) {
    if let Err(e) = r {
        let m = e.to_string();
        assert!(!m.is_empty());
        if matches!(e, Error::TooLarge { .. } | Error::ParameterTooLarge { .. }) {
            assert!(m.contains("needs about") && m.contains("more than the"), "{m}");
        }
    }
}

fn run(which: u8, p: &mut Unstructured<'_>, u: &mut Unstructured<'_>) -> Result<()> {
    let cols = p.int_in_range(0..=6usize)?;
    let x = matrix(p, u, cols)?;
    let y_cols = if p.ratio(1u8, 8)? { cols + 1 } else { cols };
    let y = matrix(p, u, y_cols)?;
    let (xv, yv) = (x.view(), y.view());
    match which % 14 {
        0 => check(hsic(xv, yv, bandwidth(p)?, bandwidth(p)?)),
        1 | 2 => {
            let hp = HsicTestParams {
                bandwidth_x: bandwidth(p)?,
                bandwidth_y: bandwidth(p)?,
                permutations: count(p)?,
                seed: p.arbitrary()?,
                precision: precision(p)?,
            };
            if p.arbitrary()? {
                check(hsic_test(xv, yv, &hp));
            } else {
                check(hsic_test_threaded(2, &mut |_| true, xv, yv, &hp));
            }
        }
        3 => {
            let est = if p.arbitrary()? {
                MmdEstimator::Biased
            } else {
                MmdEstimator::Unbiased
            };
            check(mmd(xv, yv, bandwidth(p)?, est));
        }
        4 => check(wasserstein1(xv, yv)),
        5..=7 => {
            let params = sde_params(p)?;
            let (r_it, r_oot) = (rows(p, x.rows())?, rows(p, x.rows())?);
            let targets: Vec<Vec<usize>> = (0..p.int_in_range(0..=3)?)
                .map(|_| rows(p, x.rows()))
                .collect::<Result<_>>()?;
            let ts: Vec<RowSubset<'_, f64>> = targets.iter().map(|r| subset(xv, r, Some(r.len() % 2 == 0))).collect();
            let (it, oot) = (subset(xv, &r_it, None), subset(xv, &r_oot, None));
            match p.int_in_range(0u8..=2)? {
                0 => check(block_on(split_half_with(
                    &mut lethe::backend::CpuBackend::default(),
                    &mut lethe::progress::Silent,
                    &it,
                    &params,
                    0,
                    (0.0, 1.0),
                ))),
                1 => check(sde_subsets(it, oot, &ts, &params)),
                _ => check(sde_subsets_threaded(2, &mut |_| true, it, oot, &ts, &params)),
            }
        }
        8 => {
            let (pool, n, size, seed) = (count(p)?, count(p)?, count(p)?, p.arbitrary()?);
            let label = [None, Some(true), Some(false)][p.int_in_range(0..=2)?];
            check(draw_targets(label, pool.min(MAX_INDEX_ROWS), n, size, seed));
            let pool = rows(p, usize::MAX)?;
            check(draw_subsets(&pool, n, size, seed));
        }
        9 => {
            let params = CalibratedParams {
                bandwidth: bandwidth(p)?,
                subset_size: count(p)?,
                references: count(p)?,
                margin: value(p)?,
                split: if p.arbitrary()? { Split::Random } else { Split::First },
                seed: p.arbitrary()?,
                precision: precision(p)?,
                paper_shuffles: count(p)?,
                bins: count(p)?,
            };
            let (it, oot) = (rows(p, x.rows())?, rows(p, x.rows())?);
            let targets = (0..p.int_in_range(0..=3)?)
                .map(|k| {
                    Ok(TargetRows {
                        name: format!("t{k}"),
                        rows: rows(p, x.rows())?,
                        label: [None, Some(true), Some(false)][k % 3],
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            if p.arbitrary()? {
                check(calibrated(xv, &it, &oot, &targets, &params));
            } else {
                check(calibrated_threaded(2, &mut |_| true, xv, &it, &oot, &targets, &params));
            }
        }
        10 => {
            let scores = x.as_slice();
            let stepsize = count(p)?;
            let method = match p.int_in_range(0u8..=2)? {
                0 => SdMethod::Conbo,
                1 => SdMethod::PerBin {
                    atom_at_zero: p.arbitrary()?,
                },
                _ => SdMethod::Lp {
                    atom_at_zero: p.arbitrary()?,
                },
            };
            let alpha = unit(p)?;
            let sidedness = if p.arbitrary()? {
                Sidedness::OneSided
            } else {
                Sidedness::TwoSided
            };
            check(leakage::expectation_bounds(scores, alpha, stepsize));
            check(leakage::variance_bounds(
                scores,
                &VarianceParams {
                    alpha,
                    stepsize,
                    method,
                },
            ));
            let lp = LeakageParams {
                alpha,
                sidedness,
                x: y.as_slice().to_vec(),
                stepsize,
                sd_method: method,
                rho: value(p)?,
                plan_width: unit(p)?,
            };
            check(leakage::report(scores, &lp));
            check(leakage::m_gen(scores, y.as_slice(), alpha, sidedness));
        }
        11 => {
            let tie = if p.arbitrary()? {
                lethe::ruler::TieRule::AtMost
            } else {
                lethe::ruler::TieRule::Half
            };
            check(lethe::ruler::nn_percentile_rank(xv, yv, tie));
        }
        12 => {
            let (a, b) = (x.as_slice(), y.as_slice());
            let alt = [Alternative::TwoSided, Alternative::Less, Alternative::Greater][p.int_in_range(0..=2)?];
            let method = [PValueMethod::Auto, PValueMethod::Exact, PValueMethod::Asymptotic][p.int_in_range(0..=2)?];
            check(lethe::mann_whitney::mann_whitney_u(a, b, alt, method, p.arbitrary()?));
            let w = lethe::wilcoxon::WilcoxonParams {
                alternative: alt,
                method,
                correction: p.arbitrary()?,
                ..Default::default()
            };
            check(lethe::wilcoxon::wilcoxon(
                a,
                if p.arbitrary()? { Some(b) } else { None },
                &w,
            ));
            check(lethe::divergence::jsd(a, b, count(p)?));
        }
        _ => {
            let variant = match p.int_in_range(0u8..=2)? {
                0 => Variant::Official,
                1 => Variant::Exhaustive,
                _ => Variant::HighProbability { alpha: unit(p)? },
            };
            let eps_max = if p.arbitrary()? {
                EpsMax::Official
            } else {
                EpsMax::Fixed(value(p)?)
            };
            let cp = CompetitionParams {
                variant,
                delta: unit(p)?,
                eps_max,
            };
            check(forget_score(xv, yv, &cp));
        }
    }
    Ok(())
}

fuzz_target!(
    init: {
        // SAFETY: init runs once, before any input and before any other thread exists.
        unsafe {
            std::env::set_var("LETHE_MEMORY_LIMIT", "256M");
            std::env::set_var("LETHE_WORK_LIMIT", "1e7");
        }
    },
    |bytes: &[u8]| {
        // The first byte picks the entry point, the next 48 its parameters and shapes, the rest the values: short
        // inputs still reach every entry point with every kind of parameter.
        let Some((&which, rest)) = bytes.split_first() else {
            return;
        };
        let (params, values) = rest.split_at(rest.len().min(48));
        let _ = run(which, &mut Unstructured::new(params), &mut Unstructured::new(values));
    }
);
