//! A seeded bootstrap interval for the AUC, exact on every resample.
//!
//! Each resample draws `n₁` members and `n₀` non-members with replacement (stratified: the class sizes stay
//! fixed, as pROC's and jax_privacy's bootstraps) and computes its AUC **exactly** — the Mann–Whitney `U` of the
//! resample counted in integers, ties ½ — from the original ROC's order: a resample only changes how many times
//! each score occurs, so no resample is sorted again. Cost per resample: `n₁ + n₀` uniform draws and one pass over
//! the sorted scores (10⁶ + 10⁶ scores × 1,000 resamples: a few seconds natively, see BENCHMARKS.md).
//!
//! The interval is the percentile interval: the `alpha/2` and `1 − alpha/2` quantiles of the resampled AUCs, by
//! numpy's default (`linear`, Hyndman–Fan type 7) rule.
//!
//! Randomness: resample `b` draws from Lethe's ChaCha8 stream (`lethe::permute`'s generator,
//! `ChaCha8Rng::seed_from_u64(seed)`) on stream number `4·b + 3` (purpose 3: bootstrap resamples; 0–2 are the
//! permutation streams'), with Lemire's unbiased bounded draws on 32-bit outputs: the same seed gives the same
//! resamples natively and in wasm, whatever the number of threads.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::roc::{Interval, Roc};

/// The generator and resampling scheme, recorded in reports.
pub const RNG_ID: &str = "chacha8-bootstrap-v1";

/// Most resamples one request may ask for.
pub const MAX_RESAMPLES: usize = 1_000_000;

/// A bootstrap interval of the AUC.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bootstrap {
    /// Resamples asked for, and done (fewer when stopped).
    pub resamples: usize,
    pub resamples_done: usize,
    pub seed: u64,
    pub rng: &'static str,
    #[serde(serialize_with = "crate::json::f64")]
    pub alpha: f64,
    /// The percentile interval; `None` when no resample was done.
    pub interval: Option<Interval>,
    /// Standard deviation of the resampled AUCs.
    #[serde(serialize_with = "crate::json::opt_f64")]
    pub standard_error: Option<f64>,
    pub complete: bool,
}

fn below(rng: &mut ChaCha8Rng, bound: u32) -> u32 {
    let mut m = u64::from(rng.next_u32()) * u64::from(bound);
    if (m as u32) < bound {
        let threshold = bound.wrapping_neg() % bound;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(bound);
        }
    }
    (m >> 32) as u32
}

/// The AUC of resample `b`. `counts1`/`counts0` are scratch of length `n₁`/`n₀`.
fn resample_auc(r: &Roc, seed: u64, b: u64, counts1: &mut [u32], counts0: &mut [u32]) -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(b.wrapping_mul(4).wrapping_add(3));
    counts1.iter_mut().for_each(|c| *c = 0);
    counts0.iter_mut().for_each(|c| *c = 0);
    let (n1, n0) = (counts1.len() as u32, counts0.len() as u32);
    for _ in 0..n1 {
        counts1[below(&mut rng, n1) as usize] += 1;
    }
    for _ in 0..n0 {
        counts0[below(&mut rng, n0) as usize] += 1;
    }
    // Members and non-members sorted descending: point k's group is tp[k-1]..tp[k] (fp likewise).
    let mut twice_u: u128 = 0;
    let mut w0_above: u64 = 0;
    let n0_total = u64::from(n0);
    for k in 1..r.tp.len() {
        let w1: u64 = counts1[r.tp[k - 1] as usize..r.tp[k] as usize]
            .iter()
            .map(|&c| u64::from(c))
            .sum();
        let w0: u64 = counts0[r.fp[k - 1] as usize..r.fp[k] as usize]
            .iter()
            .map(|&c| u64::from(c))
            .sum();
        w0_above += w0;
        if w1 > 0 {
            twice_u += u128::from(w1) * u128::from(2 * (n0_total - w0_above) + w0);
        }
    }
    twice_u as f64 / (2.0 * f64::from(n1) * f64::from(n0))
}

/// numpy's `quantile(v, q, method="linear")` of sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    let t = h - lo as f64;
    v[lo] + (v[hi] - v[lo]) * t
}

/// The seeded bootstrap interval of `r`'s AUC at level `1 − alpha`, `resamples` resamples, on `threads` threads
/// (native; the result does not depend on it). `progress(done, total)` is called between blocks of resamples;
/// returning `false` stops, and the interval is taken over the resamples done.
///
/// # Errors
/// [`Error::InvalidParameter`] for `alpha ∉ (0, 1)`, no resamples, more than [`MAX_RESAMPLES`], or a class of more
/// than `u32::MAX` scores.
pub fn bootstrap(
    r: &Roc,
    resamples: usize,
    seed: u64,
    alpha: f64,
    threads: usize,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Bootstrap> {
    crate::check::unit_open("alpha", alpha)?;
    if resamples == 0 || resamples > MAX_RESAMPLES {
        return Err(Error::param(
            "resamples",
            resamples,
            format!("a number of resamples from 1 to {MAX_RESAMPLES}"),
        ));
    }
    if r.n_members > u64::from(u32::MAX) || r.n_non_members > u64::from(u32::MAX) {
        return Err(Error::param(
            "scores",
            r.n_members.max(r.n_non_members),
            "at most 4294967295 scores per class",
        ));
    }
    let (n1, n0) = (r.n_members as usize, r.n_non_members as usize);
    let threads = threads.max(1);
    let block = (threads * 8).max(1);
    let mut values: Vec<f64> = Vec::with_capacity(resamples);
    let mut complete = true;
    let mut scratch: Vec<(Vec<u32>, Vec<u32>)> = (0..threads).map(|_| (vec![0; n1], vec![0; n0])).collect();
    while values.len() < resamples {
        let start = values.len();
        let end = (start + block).min(resamples);
        let mut out = vec![0.0; end - start];
        run_block(r, seed, start, &mut out, &mut scratch);
        values.extend(out);
        if !progress(values.len(), resamples) && values.len() < resamples {
            complete = false;
            break;
        }
    }
    let done = values.len();
    let se = (done > 1).then(|| {
        let mean = values.iter().sum::<f64>() / done as f64;
        (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (done - 1) as f64).sqrt()
    });
    values.sort_unstable_by(f64::total_cmp);
    let interval = (done > 0).then(|| Interval {
        lo: quantile(&values, alpha / 2.0),
        hi: quantile(&values, 1.0 - alpha / 2.0),
    });
    Ok(Bootstrap {
        resamples,
        resamples_done: done,
        seed,
        rng: RNG_ID,
        alpha,
        interval,
        standard_error: se,
        complete,
    })
}

#[cfg(not(target_arch = "wasm32"))]
fn run_block(r: &Roc, seed: u64, start: usize, out: &mut [f64], scratch: &mut [(Vec<u32>, Vec<u32>)]) {
    let threads = scratch.len();
    if threads <= 1 {
        let (c1, c0) = &mut scratch[0];
        for (i, v) in out.iter_mut().enumerate() {
            *v = resample_auc(r, seed, (start + i) as u64, c1, c0);
        }
        return;
    }
    let per = out.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (t, (chunk, (c1, c0))) in out.chunks_mut(per).zip(scratch.iter_mut()).enumerate() {
            s.spawn(move || {
                for (i, v) in chunk.iter_mut().enumerate() {
                    *v = resample_auc(r, seed, (start + t * per + i) as u64, c1, c0);
                }
            });
        }
    });
}

#[cfg(target_arch = "wasm32")]
fn run_block(r: &Roc, seed: u64, start: usize, out: &mut [f64], scratch: &mut [(Vec<u32>, Vec<u32>)]) {
    let (c1, c0) = &mut scratch[0];
    for (i, v) in out.iter_mut().enumerate() {
        *v = resample_auc(r, seed, (start + i) as u64, c1, c0);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_interval_for_any_thread_count() {
        let x: Vec<f64> = (0..300).map(|i| ((i * 37) % 101) as f64 / 10.0 + 1.0).collect();
        let y: Vec<f64> = (0..200).map(|i| ((i * 53) % 97) as f64 / 10.0).collect();
        let r = crate::roc::roc(&x, &y).unwrap();
        let a = bootstrap(&r, 200, 7, 0.05, 1, &mut |_, _| true).unwrap();
        let b = bootstrap(&r, 200, 7, 0.05, 3, &mut |_, _| true).unwrap();
        assert_eq!(a, b);
        let c = bootstrap(&r, 200, 8, 0.05, 1, &mut |_, _| true).unwrap();
        assert_ne!(a.interval, c.interval);
        let auc = crate::roc::summary(&r).auc;
        let i = a.interval.unwrap();
        assert!(i.lo < auc && auc < i.hi, "{i:?} {auc}");
    }

    #[test]
    fn a_resample_of_all_ones_is_the_auc() {
        // With every count 1 the resample's AUC is the AUC: check the counting on ties.
        let r = crate::roc::roc(&[3.0, 2.0, 2.0, 1.0], &[2.0, 0.0, 2.0]).unwrap();
        let mut twice_u = 0u128;
        let n0 = r.n_non_members;
        let mut above = 0;
        for k in 1..r.tp.len() {
            let (w1, w0) = (r.tp[k] - r.tp[k - 1], r.fp[k] - r.fp[k - 1]);
            above += w0;
            twice_u += u128::from(w1) * u128::from(2 * (n0 - above) + w0);
        }
        assert_eq!(twice_u, r.twice_u());
    }

    #[test]
    fn stopping_keeps_what_was_done() {
        let r = crate::roc::roc(&[3.0, 2.0, 4.0], &[1.0, 2.5, 0.0]).unwrap();
        let b = bootstrap(&r, 1000, 0, 0.05, 1, &mut |done, _| done < 16).unwrap();
        assert!(!b.complete && b.resamples_done >= 16 && b.resamples_done < 1000);
        assert!(bootstrap(&r, 0, 0, 0.05, 1, &mut |_, _| true).is_err());
    }
}
