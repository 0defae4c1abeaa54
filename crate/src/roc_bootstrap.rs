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
use crate::progress::{Monitor, Progress};
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

/// The generator's 32-bit outputs, read a block at a time (the same words, in the same order, as `next_u32`).
struct Words {
    rng: ChaCha8Rng,
    bytes: [u8; 4096],
    next: usize,
}

impl Words {
    fn new(rng: ChaCha8Rng) -> Self {
        Self {
            rng,
            bytes: [0; 4096],
            next: 4096,
        }
    }

    fn next_u32(&mut self) -> u32 {
        if self.next == self.bytes.len() {
            self.rng.fill_bytes(&mut self.bytes);
            self.next = 0;
        }
        let w = &self.bytes[self.next..self.next + 4];
        self.next += 4;
        u32::from_le_bytes([w[0], w[1], w[2], w[3]])
    }
}

fn below(rng: &mut Words, bound: u32) -> u32 {
    let mut m = u64::from(rng.next_u32()) * u64::from(bound);
    if (m as u32) < bound {
        let threshold = bound.wrapping_neg() % bound;
        while (m as u32) < threshold {
            m = u64::from(rng.next_u32()) * u64::from(bound);
        }
    }
    (m >> 32) as u32
}

/// For member `i` (members sorted descending): the non-members at or above its score (`hi`) and strictly above it
/// (`lo`), as positions in the non-members sorted descending. With `C₀[k]` the resample's count of the `k` highest
/// non-members, member `i` scores `2n₀ − C₀[hiᵢ] − C₀[loᵢ]` in `2U` (twice the non-members below it, plus those
/// tied).
struct Ranks {
    hi: Vec<u32>,
    lo: Vec<u32>,
}

fn ranks(r: &Roc) -> Ranks {
    let n1 = r.n_members as usize;
    let (mut hi, mut lo) = (Vec::with_capacity(n1), Vec::with_capacity(n1));
    for k in 1..r.tp.len() {
        for _ in r.tp[k - 1]..r.tp[k] {
            hi.push(r.fp[k] as u32);
            lo.push(r.fp[k - 1] as u32);
        }
    }
    Ranks { hi, lo }
}

/// Scratch of one thread: the resample's counts of each member and non-member (one byte each, so that the random
/// increments stay in cache; draws past 255 of one score are kept in `extra1`/`extra0`), and `C₀`.
struct Scratch {
    counts1: Vec<u8>,
    counts0: Vec<u8>,
    extra1: Vec<u32>,
    extra0: Vec<u32>,
    prefix0: Vec<u64>,
}

impl Scratch {
    fn new(n1: usize, n0: usize) -> Self {
        Self {
            counts1: vec![0; n1],
            counts0: vec![0; n0],
            extra1: Vec::new(),
            extra0: Vec::new(),
            prefix0: vec![0; n0 + 1],
        }
    }
}

/// Draws `draws` indices of `0..counts.len()` with replacement, counting them.
fn draw(rng: &mut Words, counts: &mut [u8], extra: &mut Vec<u32>, draws: usize) {
    counts.iter_mut().for_each(|c| *c = 0);
    extra.clear();
    let n = counts.len() as u32;
    for _ in 0..draws {
        let i = below(rng, n);
        let c = &mut counts[i as usize];
        if *c == u8::MAX {
            extra.push(i);
        } else {
            *c += 1;
        }
    }
}

/// The AUC of resample `b`.
fn resample_auc(ranks: &Ranks, seed: u64, b: u64, s: &mut Scratch) -> f64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(b.wrapping_mul(4).wrapping_add(3));
    let mut rng = Words::new(rng);
    let (d1, d0) = (s.counts1.len(), s.counts0.len());
    draw(&mut rng, &mut s.counts1, &mut s.extra1, d1);
    draw(&mut rng, &mut s.counts0, &mut s.extra0, d0);
    twice_u(ranks, s) as f64 / (2.0 * d1 as f64 * d0 as f64)
}

/// `2U` of the resample counted in `s` (the draws of a class add up to its size).
fn twice_u(ranks: &Ranks, s: &mut Scratch) -> u128 {
    let n0 = s.counts0.len();
    let mut acc = 0u64;
    s.prefix0[0] = 0;
    for (k, &c) in s.counts0.iter().enumerate() {
        acc += u64::from(c);
        s.prefix0[k + 1] = acc;
    }
    for &i in &s.extra0 {
        s.prefix0[i as usize + 1..].iter_mut().for_each(|p| *p += 1);
    }
    let two_n0 = 2 * n0 as u64;
    let value = |i: usize| two_n0 - s.prefix0[ranks.hi[i] as usize] - s.prefix0[ranks.lo[i] as usize];
    let mut twice_u: u128 = 0;
    for (i, &c) in s.counts1.iter().enumerate() {
        if c > 0 {
            twice_u += u128::from(u64::from(c) * value(i));
        }
    }
    for &i in &s.extra1 {
        twice_u += u128::from(value(i as usize));
    }
    twice_u
}

/// numpy's `quantile(v, q, method="linear")` of sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    let h = (v.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(v.len() - 1);
    let t = h - lo as f64;
    v[lo] + (v[hi] - v[lo]) * t
}

/// Draws of scores one block of resamples aims at on each thread (`n₁ + n₀` per resample): about 10–40 ms of work
/// in a browser, so that a cancel between blocks is answered promptly and progress moves, whatever the class sizes.
const BLOCK_DRAWS: usize = 1 << 21;

/// Most resamples of one block on each thread (small inputs: the checkpoint between blocks stays cheap beside them).
const MAX_BLOCK: usize = 256;

/// A bootstrap in progress: the resamples are computed a block at a time ([`BootstrapRun::step`]), so that a
/// caller can report progress and stop between blocks (the async [`bootstrap_monitored`] asks a
/// [`Monitor`] there; [`bootstrap`] a plain callback). The block size changes nothing in the result: resample `b`
/// draws from its own stream.
pub struct BootstrapRun {
    ranks: Ranks,
    resamples: usize,
    seed: u64,
    alpha: f64,
    block: usize,
    values: Vec<f64>,
    scratch: Vec<Scratch>,
}

impl BootstrapRun {
    /// Checks the request and counts its memory and work (nothing is resampled yet).
    ///
    /// # Errors
    /// As [`bootstrap`].
    pub fn new(r: &Roc, resamples: usize, seed: u64, alpha: f64, threads: usize) -> Result<Self> {
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
        // Known before it starts: each resample draws and counts every score of both classes once (and keeps one
        // AUC); each thread holds its counts and a prefix of the non-members' (u32 each, as Scratch).
        let mut budget = crate::check::Budget::default();
        let per_resample = (n1 as u64).saturating_add(n0 as u64).saturating_mul(4).max(1);
        budget.add(
            crate::check::Cause::param("resamples", resamples),
            format!("a bootstrap of {resamples} resamples of {n1} + {n0} scores"),
            crate::check::mul(resamples, 8).saturating_add(
                (threads as u64).saturating_mul((n1 as u64).saturating_add(2 * n0 as u64 + 1).saturating_mul(4)),
            ),
            (resamples as u64).saturating_mul(per_resample),
            "use fewer resamples, or the DeLong interval (one pass over the scores, no resampling)",
        );
        budget.check()?;
        let per_thread = (BLOCK_DRAWS / (n1 + n0).max(1)).clamp(1, MAX_BLOCK);
        Ok(Self {
            ranks: ranks(r),
            resamples,
            seed,
            alpha,
            block: threads * per_thread,
            values: Vec::with_capacity(resamples),
            scratch: (0..threads).map(|_| Scratch::new(n1, n0)).collect(),
        })
    }

    /// Resamples done so far.
    pub fn done(&self) -> usize {
        self.values.len()
    }

    /// Resamples asked for.
    pub fn total(&self) -> usize {
        self.resamples
    }

    /// Whether every resample is done.
    pub fn is_done(&self) -> bool {
        self.values.len() >= self.resamples
    }

    /// Computes the next block of resamples (nothing once all are done); returns the resamples done.
    pub fn step(&mut self) -> usize {
        let start = self.values.len();
        let end = (start + self.block).min(self.resamples);
        if end > start {
            let mut out = vec![0.0; end - start];
            run_block(&self.ranks, self.seed, start, &mut out, &mut self.scratch);
            self.values.extend(out);
        }
        self.values.len()
    }

    /// The interval over the resamples done (`complete` when all of them were).
    pub fn finish(self) -> Bootstrap {
        let BootstrapRun {
            resamples,
            seed,
            alpha,
            mut values,
            ..
        } = self;
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
        Bootstrap {
            resamples,
            resamples_done: done,
            seed,
            rng: RNG_ID,
            alpha,
            interval,
            standard_error: se,
            complete: done >= resamples,
        }
    }
}

/// The seeded bootstrap interval of `r`'s AUC at level `1 − alpha`, `resamples` resamples, on `threads` threads
/// (native; the result does not depend on it). `progress(done, total)` is called between blocks of resamples;
/// returning `false` stops, and the interval is taken over the resamples done.
///
/// # Errors
/// [`Error::InvalidParameter`] for `alpha ∉ (0, 1)`, no resamples, more than [`MAX_RESAMPLES`], or a class of more
/// than `u32::MAX` scores; [`Error::ParameterTooLarge`] when the resamples' work or memory exceeds
/// [`crate::check::limits`].
pub fn bootstrap(
    r: &Roc,
    resamples: usize,
    seed: u64,
    alpha: f64,
    threads: usize,
    progress: &mut dyn FnMut(usize, usize) -> bool,
) -> Result<Bootstrap> {
    let mut run = BootstrapRun::new(r, resamples, seed, alpha, threads)?;
    while !run.is_done() {
        let done = run.step();
        if !progress(done, resamples) {
            break;
        }
    }
    Ok(run.finish())
}

/// [`bootstrap`] asking `monitor` between blocks (phase "bootstrap resamples", the fraction of resamples done): a
/// browser worker yields to its event loop there, so a cancel stops the bootstrap within one block, and the
/// interval is taken over the resamples done.
///
/// # Errors
/// As [`bootstrap`].
pub async fn bootstrap_monitored<M: Monitor>(
    r: &Roc,
    resamples: usize,
    seed: u64,
    alpha: f64,
    threads: usize,
    monitor: &mut M,
) -> Result<Bootstrap> {
    let mut run = BootstrapRun::new(r, resamples, seed, alpha, threads)?;
    while !run.is_done() {
        let done = run.step();
        let p = Progress {
            fraction: done as f64 / resamples as f64,
            phase: PHASE.into(),
        };
        if !monitor.checkpoint(&p).await {
            break;
        }
    }
    Ok(run.finish())
}

/// The phase a monitored bootstrap reports.
pub const PHASE: &str = "bootstrap resamples";

#[cfg(not(target_arch = "wasm32"))]
fn run_block(r: &Ranks, seed: u64, start: usize, out: &mut [f64], scratch: &mut [Scratch]) {
    let threads = scratch.len();
    if threads <= 1 {
        for (i, v) in out.iter_mut().enumerate() {
            *v = resample_auc(r, seed, (start + i) as u64, &mut scratch[0]);
        }
        return;
    }
    let per = out.len().div_ceil(threads);
    std::thread::scope(|s| {
        for (t, (chunk, sc)) in out.chunks_mut(per).zip(scratch.iter_mut()).enumerate() {
            s.spawn(move || {
                for (i, v) in chunk.iter_mut().enumerate() {
                    *v = resample_auc(r, seed, (start + t * per + i) as u64, sc);
                }
            });
        }
    });
}

#[cfg(target_arch = "wasm32")]
fn run_block(r: &Ranks, seed: u64, start: usize, out: &mut [f64], scratch: &mut [Scratch]) {
    for (i, v) in out.iter_mut().enumerate() {
        *v = resample_auc(r, seed, (start + i) as u64, &mut scratch[0]);
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
    fn a_bootstrap_past_the_work_limit_is_refused_before_it_starts() {
        // 300k + 300k scores × 10^6 resamples ≈ 2.4e12 steps, over the 1e12 default: refused at once, naming the
        // resamples and the DeLong alternative (unless the machine's limit was raised by LETHE_WORK_LIMIT).
        if std::env::var_os("LETHE_WORK_LIMIT").is_some() {
            return;
        }
        let x: Vec<f64> = (0..300_000).map(|i| f64::from(i % 1000)).collect();
        let y: Vec<f64> = (0..300_000).map(|i| f64::from(i % 997)).collect();
        let r = crate::roc::roc(&x, &y).unwrap();
        let t = std::time::Instant::now();
        let e = bootstrap(&r, MAX_RESAMPLES, 1, 0.05, 1, &mut |_, _| true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("resamples") && e.contains("DeLong"), "{e}");
        assert!(t.elapsed().as_secs() < 5, "refused before any resample");
    }

    #[test]
    fn a_resample_of_all_ones_is_the_auc() {
        // With every count 1 the resample's AUC is the AUC: check the counting on ties.
        let r = crate::roc::roc(&[3.0, 2.0, 2.0, 1.0, 2.0], &[2.0, 0.0, 2.0, 5.0]).unwrap();
        let rk = ranks(&r);
        let n0 = r.n_non_members;
        // C₀[k] = k when every count is 1.
        let twice_u: u64 = rk
            .hi
            .iter()
            .zip(&rk.lo)
            .map(|(&h, &l)| 2 * n0 - u64::from(h) - u64::from(l))
            .sum();
        assert_eq!(u128::from(twice_u), r.twice_u());
    }

    #[test]
    fn block_reads_are_the_generators_words() {
        let mut a = ChaCha8Rng::seed_from_u64(5);
        a.set_stream(7);
        let mut b = Words::new(a.clone());
        for _ in 0..5000 {
            assert_eq!(a.next_u32(), b.next_u32());
        }
    }

    #[test]
    fn counts_past_a_byte_are_kept() {
        // 1000 draws into 2 scores: each count passes 255 and the draws past it are kept aside.
        let mut rng = Words::new(ChaCha8Rng::seed_from_u64(1));
        let (mut counts, mut extra) = (vec![0u8; 2], Vec::new());
        draw(&mut rng, &mut counts, &mut extra, 1000);
        assert!(!extra.is_empty());
        assert_eq!(
            counts.iter().map(|&c| usize::from(c)).sum::<usize>() + extra.len(),
            1000
        );
    }

    /// Counts past a byte (kept aside) count as the draws they stand for: the same `2U` as a brute force over the
    /// resample's multiset.
    #[test]
    fn overflowed_counts_enter_the_auc() {
        // 300 members and 300 non-members with ties between the classes (scores k/3 and k/2).
        let x: Vec<f64> = (0..300).map(|k| f64::from(k) / 3.0).collect();
        let y: Vec<f64> = (0..300).map(|k| f64::from(k) / 2.0).collect();
        let r = crate::roc::roc(&x, &y).unwrap();
        let rk = ranks(&r);
        let (mut xs, mut ys) = (x.clone(), y.clone());
        xs.sort_by(|a, b| b.total_cmp(a));
        ys.sort_by(|a, b| b.total_cmp(a));
        // Member 40 (sorted) drawn 299 times, member 7 once; non-member 100 drawn 290 times, non-member 3 ten times.
        let mut s = Scratch::new(300, 300);
        s.counts1[40] = 255;
        s.extra1 = vec![40; 44];
        s.counts1[7] = 1;
        s.counts0[100] = 255;
        s.extra0 = vec![100; 35];
        s.counts0[3] = 10;
        let mut want = 0u128;
        for (i, ci) in [(40usize, 299u128), (7, 1)] {
            for (j, cj) in [(100usize, 290u128), (3, 10)] {
                let psi2 = if xs[i] > ys[j] { 2 } else { u128::from(xs[i] == ys[j]) };
                want += ci * cj * psi2;
            }
        }
        assert_eq!(twice_u(&rk, &mut s), want);
    }

    /// Drives a future whose monitor never waits (a plain callback), as the CLI does.
    fn now<F: std::future::Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        match f
            .as_mut()
            .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
        {
            std::task::Poll::Ready(v) => v,
            std::task::Poll::Pending => panic!("a callback monitor never waits"),
        }
    }

    #[test]
    fn the_monitored_bootstrap_is_the_plain_one_and_stops_between_blocks() {
        let x: Vec<f64> = (0..3000).map(|i| ((i * 37) % 1001) as f64 / 10.0 + 1.0).collect();
        let y: Vec<f64> = (0..2000).map(|i| ((i * 53) % 997) as f64 / 10.0).collect();
        let r = crate::roc::roc(&x, &y).unwrap();
        let plain = bootstrap(&r, 900, 3, 0.05, 2, &mut |_, _| true).unwrap();
        let mut seen = Vec::new();
        let mut all = |p: &Progress| {
            seen.push(p.fraction);
            assert_eq!(p.phase, PHASE);
            true
        };
        let monitored = now(bootstrap_monitored(&r, 900, 3, 0.05, 1, &mut all)).unwrap();
        assert_eq!(plain, monitored);
        // Blocks of 2^21 / 5000 = 419 resamples, capped at 256: progress after each, rising to 1.
        assert!(seen.len() >= 4, "{seen:?}");
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]) && seen.last() == Some(&1.0),
            "{seen:?}"
        );
        // A stop at the first checkpoint keeps that block: the first resamples of the same streams.
        let mut first = |_: &Progress| false;
        let stopped = now(bootstrap_monitored(&r, 900, 3, 0.05, 1, &mut first)).unwrap();
        assert!(!stopped.complete && stopped.resamples_done == 256, "{stopped:?}");
        let head = bootstrap(&r, 256, 3, 0.05, 1, &mut |_, _| true).unwrap();
        assert_eq!(stopped.interval, head.interval);
    }

    #[test]
    fn stopping_keeps_what_was_done() {
        let r = crate::roc::roc(&[3.0, 2.0, 4.0], &[1.0, 2.5, 0.0]).unwrap();
        let b = bootstrap(&r, 1000, 0, 0.05, 1, &mut |done, _| done < 16).unwrap();
        assert!(!b.complete && b.resamples_done >= 16 && b.resamples_done < 1000);
        assert!(bootstrap(&r, 0, 0, 0.05, 1, &mut |_, _| true).is_err());
    }
}
