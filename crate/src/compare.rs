//! Comparing methods across seeds (issue 23): the statistics behind `lethe compare`, each checked against the peer
//! that defines it (golden vectors in `tests/fixtures/golden_compare/`, made by its `make.py`).
//!
//! * Per method: n, mean, sd (`ddof = 1`), median, the interquartile mean as rliable 1.2.0's `aggregate_iqm`
//!   (`scipy.stats.trim_mean(x, 0.25)` over every run of every task), Student's t interval of the mean, and the
//!   stratified bootstrap percentile interval as rliable's `get_interval_estimates` computes it (runs resampled
//!   with replacement within each task, the statistic of each resample, the percentiles of those statistics with
//!   numpy's linear interpolation). The resamples come from Lethe's ChaCha8 stream ([`crate::permute`]): resample
//!   `r` draws from its own sub-stream, so the interval is the same for any thread count and on every platform; it
//!   cannot equal rliable's numpy draws bit for bit, so it is checked by its coverage.
//! * Probability of improvement as rliable's `probability_of_improvement`: per task `U / (n_x n_y)` (Mann–Whitney's
//!   U of `x`: pairs with `x > y`, ties ½; 0.5 where the task's two columns are identical arrays), averaged over
//!   tasks; its interval by the stratified *independent* bootstrap (x and y resampled separately within each task).
//! * Two-sample tests: Welch's t (`scipy.stats.ttest_ind(equal_var=False)`), the exact permutation test of the
//!   difference of means (`scipy.stats.permutation_test`, `permutation_type="independent"`, two-sided, every split
//!   enumerated up to [`EXACT_SPLITS`]; past it a seeded Monte-Carlo test with scipy's `(k + 1)/(R + 1)`), and
//!   TOST equivalence (`statsmodels.stats.weightstats.ttost_ind`, pooled or Welch; one-sample `ttost_paired`).
//!   Mann–Whitney and Wilcoxon are [`crate::mann_whitney`] and [`crate::wilcoxon`], the family's correction
//!   [`crate::fdr`].
//! * Friedman's test (`scipy.stats.friedmanchisquare`), the average ranks and the Nemenyi critical difference as
//!   autorank 1.3.0 computes them: `CD = q_{1−α}(k, ∞) · sqrt(k(k + 1)/(12 N))`, with `q` the studentized range
//!   quantile. autorank takes `q` from statsmodels' `qsturng` (an interpolation of Gleason's tables, good to about
//!   3 digits); Lethe computes it exactly from the range distribution of `k` standard normals,
//!   `P(Q ≤ q) = k ∫ φ(z) [Φ(z) − Φ(z − q)]^{k−1} dz` (checked against `scipy.stats.studentized_range`), so its CD
//!   differs from autorank's by qsturng's own error (the goldens record the size).
//! * The minimum detectable difference of a two-sided two-sample t test at a level and power (statsmodels'
//!   `TTestIndPower().solve_power`, noncentral t computed by quadrature), times the pooled sd.

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF, StudentsT};

use crate::error::{Error, Result};
use crate::permute::{GROUP, Permutations, Stream, SubStreams};
use crate::rank::{ndtr, rank_average};

/// The most splits the exact permutation test enumerates (C(20, 10) = 184 756 fits; C(24, 12) = 2.7e6 does not).
pub const EXACT_SPLITS: u64 = 1_000_000;

fn invalid(name: &'static str, reason: impl Into<String>) -> Error {
    Error::param(name, "", reason)
}

/// The mean (numpy's pairwise sum / n).
pub fn mean(x: &[f64]) -> f64 {
    crate::numpy::sum(x) / x.len() as f64
}

/// The sample standard deviation (`ddof = 1`); NaN for fewer than 2 values.
pub fn sd(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return f64::NAN;
    }
    let m = mean(x);
    let d: Vec<f64> = x.iter().map(|v| (v - m) * (v - m)).collect();
    (crate::numpy::sum(&d) / (x.len() - 1) as f64).sqrt()
}

fn sorted(x: &[f64]) -> Vec<f64> {
    let mut s = x.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

/// The median (numpy's: the mean of the two middle values for an even count).
pub fn median(x: &[f64]) -> f64 {
    let s = sorted(x);
    let n = s.len();
    if n == 0 {
        return f64::NAN;
    }
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// `scipy.stats.trim_mean(x, proportion)`: the mean of the sorted values with `⌊proportion · n⌋` cut from each end.
pub fn trim_mean(x: &[f64], proportion: f64) -> f64 {
    let s = sorted(x);
    let n = s.len();
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let cut = (proportion * n as f64) as usize;
    if n == 0 || cut >= n - cut {
        return f64::NAN;
    }
    mean(&s[cut..n - cut])
}

/// rliable's interquartile mean: [`trim_mean`] with 0.25.
pub fn iqm(x: &[f64]) -> f64 {
    trim_mean(x, 0.25)
}

/// numpy's `percentile(x, q)` (linear interpolation), `q` in `[0, 100]`, of sorted values.
pub fn percentile_sorted(s: &[f64], q: f64) -> f64 {
    let n = s.len();
    if n == 0 {
        return f64::NAN;
    }
    let (lo, hi, g) = percentile_position(n, q);
    numpy_lerp(s[lo], s[hi], g)
}

/// The two order statistics numpy's linear `percentile(x, q)` reads of `n > 0` values, and the weight between them.
fn percentile_position(n: usize, q: f64) -> (usize, usize, f64) {
    let h = (n - 1) as f64 * q / 100.0;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let lo = (h.floor() as usize).min(n - 1);
    (lo, (lo + 1).min(n - 1), h - lo as f64)
}

/// numpy's `_lerp`: a + (b − a)·g, from the other end when g ≥ 0.5.
fn numpy_lerp(a: f64, b: f64, g: f64) -> f64 {
    let d = b - a;
    if g >= 0.5 { b - d * (1.0 - g) } else { a + d * g }
}

fn t_dist(df: f64) -> Result<StudentsT> {
    StudentsT::new(0.0, 1.0, df).map_err(|e| invalid("df", e.to_string()))
}

/// The two-sided `level` quantile of Student's t with `df` degrees of freedom (`t.ppf(1 − (1 − level)/2, df)`).
///
/// # Errors
/// `df ≤ 0` or `level ∉ (0, 1)`.
pub fn t_quantile(level: f64, df: f64) -> Result<f64> {
    if !(level > 0.0 && level < 1.0) {
        return Err(invalid("level", "must be in (0, 1)"));
    }
    Ok(t_dist(df)?.inverse_cdf(1.0 - (1.0 - level) / 2.0))
}

/// Student's t interval of the mean at `level`: `mean ± t · sd/√n`; `None` for fewer than 2 values.
///
/// # Errors
/// `level ∉ (0, 1)`.
pub fn t_interval(x: &[f64], level: f64) -> Result<Option<(f64, f64)>> {
    if x.len() < 2 {
        return Ok(None);
    }
    let n = x.len() as f64;
    let half = t_quantile(level, n - 1.0)? * sd(x) / n.sqrt();
    let m = mean(x);
    Ok(Some((m - half, m + half)))
}

/// Mann–Whitney's U of `x` against `y` (pairs with `x > y`, ties counting ½): the same number as
/// [`crate::mann_whitney::mann_whitney_u`]'s statistic, counted pair by pair so a bootstrap can call it cheaply.
pub fn u_pairs(x: &[f64], y: &[f64]) -> f64 {
    // Twice U, counted in integers without branches (the same number: halves add exactly).
    let mut twice = 0u64;
    for &a in x {
        for &b in y {
            twice += 2 * u64::from(a > b) + u64::from(a == b);
        }
    }
    twice as f64 / 2.0
}

/// rliable's probability of improvement of `x` over `y`: per task (`x[t]`, `y[t]`: the runs of task `t`)
/// `U / (n_x n_y)`, 0.5 where the two tasks' runs are equal arrays, averaged over tasks.
pub fn probability_of_improvement(x: &[Vec<f64>], y: &[Vec<f64>]) -> f64 {
    let per: Vec<f64> = x
        .iter()
        .zip(y)
        .map(|(a, b)| {
            if a == b {
                0.5
            } else {
                u_pairs(a, b) / (a.len() * b.len()) as f64
            }
        })
        .collect();
    mean(&per)
}

/// A bootstrap's settings: resamples, the interval's level, the seed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bootstrap {
    pub resamples: usize,
    pub level: f64,
    pub seed: u64,
}

impl Default for Bootstrap {
    fn default() -> Self {
        Self {
            resamples: 10_000,
            level: 0.95,
            seed: 0,
        }
    }
}

/// The percentile interval of bootstrap statistics (NaN-free), as arch's `conf_int(method="percentile")`.
///
/// Only the (at most four) order statistics the two percentiles interpolate between are found, without a sort:
/// the `k`-th value in `f64::total_cmp`'s order is one bit pattern however it is found, so the interval equals
/// the sorted one bit for bit. Narrow tails (the usual 2.5% of 10,000 resamples) keep the few smallest and
/// largest values in a pass per tail (see `smallest_two`); wide ones select (`select_nth_unstable_by`, linear time).
fn percentile_interval(mut stats: Vec<f64>, level: f64) -> (f64, f64) {
    let tail = (1.0 - level) / 2.0 * 100.0;
    let n = stats.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let (lo_a, lo_b, lo_g) = percentile_position(n, tail);
    let (hi_a, hi_b, hi_g) = percentile_position(n, 100.0 - tail);
    if (lo_b + 1).max(n - hi_a) <= n / 16 {
        // The lo_b + 1 smallest: ranks lo_b, then lo_b − 1; the n − hi_a largest: ranks hi_a, then hi_a + 1.
        let ((sb, sa), (la, lb)) = tails(&stats, lo_b + 1, n - hi_a);
        let lo = numpy_lerp(if lo_a == lo_b { sb } else { sa }, sb, lo_g);
        let hi = numpy_lerp(la, if hi_a == hi_b { la } else { lb }, hi_g);
        return (lo, hi);
    }
    (
        percentile_select(&mut stats, tail),
        percentile_select(&mut stats, 100.0 - tail),
    )
}

/// `f64::total_cmp`'s order as `i64`'s (an involution: it maps a key back to its value's bits).
#[allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)]
fn total_key(bits: i64) -> i64 {
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

#[allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)]
fn key_value(key: i64) -> f64 {
    f64::from_bits(total_key(key) as u64)
}

/// In a pass over `v` per tail (`1 ≤ k_low, k_high ≤ v.len()`), in `total_cmp`'s order: the `k_low`-th smallest
/// value and the one before it (the same again where `k_low = 1`), and the `k_high`-th largest and the one before it.
fn tails(v: &[f64], k_low: usize, k_high: usize) -> ((f64, f64), (f64, f64)) {
    #[allow(clippy::cast_possible_wrap)]
    let keys = v.iter().map(|x| total_key(x.to_bits() as i64));
    let (s1, s2) = smallest_two(keys.clone(), k_low);
    // The largest are the smallest of the negated keys (`!k` reverses i64's order without overflow).
    let (l1, l2) = smallest_two(keys.map(|k| !k), k_high);
    let two = |first: Option<i64>, next: Option<i64>| {
        let a = first.map_or(f64::NAN, key_value);
        (a, next.map_or(a, key_value))
    };
    (two(s1, s2), two(l1.map(|k| !k), l2.map(|k| !k)))
}

/// The `k`-th smallest key (`k ≥ 1`) and the one before it (`None` where `k = 1`), in one pass: keys below a
/// threshold gather in a buffer of `2k`; a full buffer keeps its `k` smallest (selected in linear time) and their
/// largest becomes the threshold, so the `k` smallest so far are always in the buffer.
fn smallest_two(keys: impl Iterator<Item = i64>, k: usize) -> (Option<i64>, Option<i64>) {
    let mut buf: Vec<i64> = Vec::with_capacity(2 * k);
    let mut threshold = i64::MAX;
    let mut full = false;
    for key in keys {
        if !full || key < threshold {
            buf.push(key);
            if buf.len() == 2 * k {
                buf.select_nth_unstable(k - 1);
                buf.truncate(k);
                threshold = buf[k - 1];
                full = true;
            }
        }
    }
    if buf.len() < k {
        return (None, None);
    }
    let (before, &mut kth, _) = buf.select_nth_unstable(k - 1);
    (Some(kth), before.iter().copied().max())
}

/// [`percentile_sorted`] of unsorted values, by selecting the two order statistics it reads (reorders `v`).
fn percentile_select(v: &mut [f64], q: f64) -> f64 {
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    let (lo, hi, g) = percentile_position(n, q);
    let (_, &mut a, rest) = v.select_nth_unstable_by(lo, f64::total_cmp);
    // The next order statistic is the smallest of those after the `lo`-th.
    let b = if hi == lo {
        a
    } else {
        rest.iter().copied().min_by(f64::total_cmp).unwrap_or(a)
    };
    numpy_lerp(a, b, g)
}

fn check_bootstrap(b: &Bootstrap) -> Result<()> {
    if b.resamples == 0 {
        return Err(invalid("resamples", "must be at least 1"));
    }
    if !(b.level > 0.0 && b.level < 1.0) {
        return Err(invalid("level", "must be in (0, 1)"));
    }
    Ok(())
}

/// The stratified bootstrap percentile interval of `stat` over `tasks` (each task's runs), as rliable's
/// `StratifiedBootstrap`: resample `r` redraws every task's runs with replacement from sub-stream `r` of `seed`
/// (subset `subset`: independent intervals for different methods).
///
/// # Errors
/// Bad settings; an empty task.
pub fn stratified_bootstrap(
    tasks: &[Vec<f64>],
    stat: impl Fn(&[Vec<f64>]) -> f64,
    b: &Bootstrap,
    subset: u64,
) -> Result<(f64, f64)> {
    check_bootstrap(b)?;
    check_tasks(tasks)?;
    let sizes: Vec<usize> = tasks.iter().map(Vec::len).collect();
    let mut boot: Vec<Vec<f64>> = tasks.iter().map(|t| Vec::with_capacity(t.len())).collect();
    let mut stats = Vec::with_capacity(b.resamples);
    for_each_resample(b, subset, &sizes, |idx, lanes| {
        for l in 0..lanes {
            let mut i = 0;
            for (t, out) in tasks.iter().zip(boot.iter_mut()) {
                out.clear();
                out.extend(idx[i..i + t.len()].iter().map(|k| t[k[l] as usize]));
                i += t.len();
            }
            stats.push(stat(&boot));
        }
    });
    Ok(percentile_interval(stats, b.level))
}

/// [`stratified_bootstrap`] of [`mean_tasks`], without a closure or an allocation per resample: each resample is
/// drawn task by task into one flat buffer (the order [`mean_tasks`] flattens in) and summed as numpy does, so the
/// interval equals `stratified_bootstrap(tasks, mean_tasks, b, subset)` bit for bit.
///
/// # Errors
/// Bad settings; an empty task.
pub fn stratified_bootstrap_mean(tasks: &[Vec<f64>], b: &Bootstrap, subset: u64) -> Result<(f64, f64)> {
    check_bootstrap(b)?;
    check_tasks(tasks)?;
    let sizes: Vec<usize> = tasks.iter().map(Vec::len).collect();
    let total: usize = sizes.iter().sum();
    // Draw `d` redraws a run of task `of_row[d]`.
    let of_row: Vec<&[f64]> = tasks
        .iter()
        .flat_map(|t| std::iter::repeat_n(t.as_slice(), t.len()))
        .collect();
    let mut vals = vec![[0.0; GROUP]; total];
    let mut stats = Vec::with_capacity(b.resamples);
    for_each_resample(b, subset, &sizes, |idx, lanes| {
        for ((v, k), t) in vals.iter_mut().zip(idx).zip(&of_row) {
            for l in 0..GROUP {
                // Lanes past `lanes` hold indices drawn for resamples past the last: in range, never read.
                v[l] = t[k[l] as usize];
            }
        }
        let sums = sum_lanes(&vals);
        stats.extend(sums[..lanes].iter().map(|s| s / total as f64));
    });
    Ok(percentile_interval(stats, b.level))
}

/// `numpy::sum` of every lane's values (`vals[d][l]`: value `d` of lane `l`), the lanes abreast: each lane goes
/// through the same additions in the same order as `numpy::sum` of its values alone, so each sum is the same.
fn sum_lanes(vals: &[[f64; GROUP]]) -> [f64; GROUP] {
    let p = pairwise_lanes(vals);
    std::array::from_fn(|l| 0.0 + p[l])
}

/// numpy's pairwise summation (`crate::numpy`'s `pairwise`) lane by lane.
#[allow(clippy::needless_range_loop)]
fn pairwise_lanes(a: &[[f64; GROUP]]) -> [f64; GROUP] {
    let n = a.len();
    if n < 8 {
        let mut acc = [0.0; GROUP];
        for row in a {
            for l in 0..GROUP {
                acc[l] += row[l];
            }
        }
        acc
    } else if n <= crate::numpy::PW_BLOCKSIZE {
        let mut r: [[f64; GROUP]; 8] = std::array::from_fn(|j| a[j]);
        let body = n - n % 8;
        for chunk in a[8..body].chunks_exact(8) {
            for (acc, v) in r.iter_mut().zip(chunk) {
                for l in 0..GROUP {
                    acc[l] += v[l];
                }
            }
        }
        let mut res: [f64; GROUP] = std::array::from_fn(|l| {
            ((r[0][l] + r[1][l]) + (r[2][l] + r[3][l])) + ((r[4][l] + r[5][l]) + (r[6][l] + r[7][l]))
        });
        for v in &a[body..] {
            for l in 0..GROUP {
                res[l] += v[l];
            }
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        let (x, y) = (pairwise_lanes(&a[..n2]), pairwise_lanes(&a[n2..]));
        std::array::from_fn(|l| x[l] + y[l])
    }
}

fn check_tasks(tasks: &[Vec<f64>]) -> Result<()> {
    if tasks.is_empty() || tasks.iter().any(Vec::is_empty) {
        return Err(Error::Empty {
            input: "runs".into(),
            fix: "give at least one run per task".into(),
        });
    }
    Ok(())
}

/// Resamples `0..b.resamples` of a stratified bootstrap, in order, [`GROUP`] at a time. Resample `r` draws from its
/// own sub-stream, `Permutations::for_subset(b.seed ^ subset · φ, Split, r)` (so resample `r` is the same whatever
/// else is computed and on every thread count): for each `n` in `sizes` in turn, `n` indices below `n` (a task's
/// runs redrawn with replacement). `f(idx, lanes)` gets resamples `r₀ .. r₀ + lanes` (the next ones in order):
/// `idx[d][l]` is draw `d` of resample `r₀ + l`, group after group.
///
/// The words are [`SubStreams::group`]'s, 16 resamples' blocks computed abreast and read where the lanes left
/// them. Draw `d` reads word `d` unless an earlier draw of that resample was rejected (Lemire's draw rejects a
/// word whose product with the bound has its low half below `2^32 mod bound`, probability < bound / 2^32): a
/// resample where any product's low half is below the bound itself is drawn again word by word, exactly as
/// [`Permutations::index_below`] draws it, so every index is the generator's.
fn for_each_resample(b: &Bootstrap, subset: u64, sizes: &[usize], f: impl FnMut(&[[u32; GROUP]], usize)) {
    for_each_resample_with(b, subset, sizes, false, f);
}

/// [`for_each_resample`]; `redraw_all`: draw every resample word by word (the tests' check of that path).
fn for_each_resample_with(
    b: &Bootstrap,
    subset: u64,
    sizes: &[usize],
    redraw_all: bool,
    mut f: impl FnMut(&[[u32; GROUP]], usize),
) {
    let streams = resample_streams(b, subset);
    #[allow(clippy::cast_possible_truncation)]
    let bounds: Vec<u32> = sizes.iter().flat_map(|&n| std::iter::repeat_n(n as u32, n)).collect();
    let draws = bounds.len();
    let mut blocks = vec![[[0u32; GROUP]; 16]; draws.div_ceil(16).max(1)];
    let mut idx = vec![[0u32; GROUP]; draws];
    let mut start = 0;
    while start < b.resamples {
        let lanes = (b.resamples - start).min(GROUP);
        for (c, block) in blocks.iter_mut().enumerate() {
            streams.group(start as u64, c as u64, block);
        }
        let mut suspect = [u32::from(redraw_all); GROUP];
        draw_rows(&blocks, &bounds, &mut idx, &mut suspect);
        for (l, _) in suspect.iter().enumerate().take(lanes).filter(|(_, s)| **s != 0) {
            let mut words = streams.words((start + l) as u64, &[]);
            for (row, &bound) in idx.iter_mut().zip(&bounds) {
                row[l] = words.index_below(bound);
            }
        }
        f(&idx, lanes);
        start += lanes;
    }
}

/// The sub-streams of an interval's resamples (resample `r`: sub-stream `r`).
fn resample_streams(b: &Bootstrap, subset: u64) -> SubStreams {
    SubStreams::new(b.seed ^ subset.wrapping_mul(0x9E37_79B9_7F4A_7C15), Stream::Split)
}

/// Lemire's draw of every lane of every row at once: `idx[d][l]` from word `d` of lane `l` and `bounds[d]`, and
/// `suspect[l]` set where a product's low half is below its bound (where a rejection is possible). Compiled for
/// AVX-512 or AVX2 where the CPU has them (the same integer arithmetic, more lanes at a time).
fn draw_rows(blocks: &[[[u32; GROUP]; 16]], bounds: &[u32], idx: &mut [[u32; GROUP]], suspect: &mut [u32; GROUP]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above).
            unsafe { draw_rows_avx512(blocks, bounds, idx, suspect) };
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { draw_rows_avx2(blocks, bounds, idx, suspect) };
            return;
        }
    }
    draw_rows_lanes(blocks, bounds, idx, suspect);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn draw_rows_avx512(
    blocks: &[[[u32; GROUP]; 16]],
    bounds: &[u32],
    idx: &mut [[u32; GROUP]],
    suspect: &mut [u32; GROUP],
) {
    draw_rows_lanes(blocks, bounds, idx, suspect);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn draw_rows_avx2(blocks: &[[[u32; GROUP]; 16]], bounds: &[u32], idx: &mut [[u32; GROUP]], suspect: &mut [u32; GROUP]) {
    draw_rows_lanes(blocks, bounds, idx, suspect);
}

#[inline(always)]
fn draw_rows_lanes(
    blocks: &[[[u32; GROUP]; 16]],
    bounds: &[u32],
    idx: &mut [[u32; GROUP]],
    suspect: &mut [u32; GROUP],
) {
    // Flags gathered in a local (kept in a register), not through the caller's array row after row.
    let mut flags = *suspect;
    for (d, (row, &bound)) in idx.iter_mut().zip(bounds).enumerate() {
        let words = &blocks[d / 16][d % 16];
        for l in 0..GROUP {
            let m = u64::from(words[l]) * u64::from(bound);
            #[allow(clippy::cast_possible_truncation)]
            {
                row[l] = (m >> 32) as u32;
                flags[l] |= u32::from((m as u32) < bound);
            }
        }
    }
    *suspect = flags;
}

/// The IQM of every run of every task (rliable's `aggregate_iqm` on a runs × tasks matrix).
pub fn iqm_tasks(tasks: &[Vec<f64>]) -> f64 {
    let all: Vec<f64> = tasks.iter().flatten().copied().collect();
    iqm(&all)
}

/// The mean of every run of every task.
pub fn mean_tasks(tasks: &[Vec<f64>]) -> f64 {
    let all: Vec<f64> = tasks.iter().flatten().copied().collect();
    mean(&all)
}

/// The probability of improvement of `x` over `y` with its stratified independent bootstrap interval (rliable's
/// `StratifiedIndependentBootstrap`: x's and y's runs redrawn separately within each task).
///
/// # Errors
/// Bad settings; tasks that do not pair up; an empty task.
pub fn poi_interval(x: &[Vec<f64>], y: &[Vec<f64>], b: &Bootstrap, subset: u64) -> Result<(f64, (f64, f64))> {
    poi_interval_with(x, y, b, subset, false)
}

/// [`poi_interval`]; `redraw_all`: draw every resample word by word (the tests' check of that path).
fn poi_interval_with(
    x: &[Vec<f64>],
    y: &[Vec<f64>],
    b: &Bootstrap,
    subset: u64,
    redraw_all: bool,
) -> Result<(f64, (f64, f64))> {
    check_bootstrap(b)?;
    if x.len() != y.len() || x.is_empty() || x.iter().chain(y).any(Vec::is_empty) {
        return Err(invalid("tasks", "both methods need runs on the same tasks"));
    }
    let point = probability_of_improvement(x, y);
    let sizes: Vec<usize> = x.iter().chain(y).map(Vec::len).collect();
    let x_draws: usize = x.iter().map(Vec::len).sum();
    let tables: Vec<PoiTask> = x.iter().zip(y).map(|(a, b)| PoiTask::new(a, b)).collect();
    let mut stats = Vec::with_capacity(b.resamples);
    if let ([t], [a], [c]) = (&tables[..], x, y)
        && let Some(packed) = PoiPacked::new(a, c)
    {
        // One task, few runs: U of every resample from one table of packed counts (same numbers).
        let (n, m) = (a.len(), c.len());
        #[cfg(target_arch = "x86_64")]
        if !t.may_be_equal && n <= 16 && m <= 16 && std::arch::is_x86_feature_detected!("avx512f") {
            // No resample can be two equal arrays: every one is its twice U, 16 at a time from the words.
            let streams = resample_streams(b, subset);
            let mut blocks = vec![[[0u32; GROUP]; 16]; (n + m).div_ceil(16)];
            let mut start = 0;
            while start < b.resamples {
                let lanes = (b.resamples - start).min(GROUP);
                for (k, block) in blocks.iter_mut().enumerate() {
                    streams.group(start as u64, k as u64, block);
                }
                let mut twice = [0u64; GROUP];
                // SAFETY: the CPU has AVX-512F (checked above); n, m ≤ 16 and n + m draws' blocks are computed.
                let mut suspect = unsafe { packed.twice_u_avx512(&blocks, m, &mut twice) };
                if redraw_all {
                    suspect = u32::MAX;
                }
                suspect &= (1u32 << lanes) - 1;
                while suspect != 0 {
                    // A draw may have been rejected: this resample drawn word by word, as the generator draws it.
                    let l = suspect.trailing_zeros() as usize;
                    suspect &= suspect - 1;
                    let mut words = streams.words((start + l) as u64, &[]);
                    let mut col = [[0u32; GROUP]; 32];
                    #[allow(clippy::cast_possible_truncation)]
                    for (d, row) in col.iter_mut().enumerate().take(n + m) {
                        row[0] = words.index_below(if d < n { n as u32 } else { m as u32 });
                    }
                    twice[l] = packed.twice_u(&col[..n + m], 0);
                }
                stats.extend(twice[..lanes].iter().map(|&t| packed.stat[t as usize]));
                start += lanes;
            }
            return Ok((point, percentile_interval(stats, b.level)));
        }
        let mut ix = Vec::with_capacity(n);
        let mut iy = Vec::with_capacity(m);
        // The statistic of a resample whose x and y are equal arrays (as in the general path below).
        let equal_stat = mean(&[0.5]);
        for_each_resample_with(b, subset, &sizes, redraw_all, |idx, lanes| {
            for l in 0..lanes {
                let equal = t.may_be_equal && n == m && {
                    ix.clear();
                    iy.clear();
                    ix.extend(idx[..n].iter().map(|k| k[l]));
                    iy.extend(idx[n..].iter().map(|k| k[l]));
                    ix.iter().zip(&iy).all(|(&i, &j)| a[i as usize] == c[j as usize])
                };
                stats.push(if equal {
                    equal_stat
                } else {
                    packed.stat[packed.twice_u(idx, l) as usize]
                });
            }
        });
        return Ok((point, percentile_interval(stats, b.level)));
    }
    let mut per = Vec::with_capacity(x.len());
    let mut counts = Vec::new();
    let mut ix = Vec::with_capacity(x_draws);
    let mut iy = Vec::with_capacity(sizes.iter().sum::<usize>() - x_draws);
    for_each_resample_with(b, subset, &sizes, redraw_all, |idx, lanes| {
        let (idx_x, idx_y) = idx.split_at(x_draws);
        for l in 0..lanes {
            ix.clear();
            iy.clear();
            ix.extend(idx_x.iter().map(|k| k[l]));
            iy.extend(idx_y.iter().map(|k| k[l]));
            per.clear();
            let (mut i, mut j) = (0, 0);
            for (t, (a, b)) in tables.iter().zip(x.iter().zip(y)) {
                let (n, m) = (a.len(), b.len());
                per.push(t.resampled(a, b, &ix[i..i + n], &iy[j..j + m], &mut counts));
                i += n;
                j += m;
            }
            stats.push(mean(&per));
        }
    });
    Ok((point, percentile_interval(stats, b.level)))
}

/// One task's twice-U for [`poi_interval`] in a few operations a resample, where `n_x` fields of `w` bits (`2 n_y
/// < 2^w`) fit in 64: `table[j]` holds, in field `i`, the pair (x_i, y_j)'s share of twice U (2 if `x_i > y_j`, 1
/// if equal, else 0). The sum of `table` over a resample's y indices holds in field `i` the share of `x_i` against
/// that whole resample (at most `2 n_y`, so fields never carry into each other); adding up the fields of the
/// resample's x indices gives twice U, the integer [`PoiTask::resampled`] counts.
///
/// Twice U takes one of `2 n_x n_y + 1` values, so the resample's statistic is read from `stat`, where each was
/// computed once as the general path computes it (`mean` of the one task's `twice / 2 / (n_x n_y)`).
struct PoiPacked {
    /// Per y index (padded with zeros to a power of two), the packed shares.
    table: Vec<u64>,
    nx: usize,
    width: u32,
    mask: u64,
    stat: Vec<f64>,
}

/// The most values of twice U [`PoiPacked`] tabulates the statistic of.
const POI_STATS_MAX: usize = 1 << 16;

impl PoiPacked {
    fn new(x: &[f64], y: &[f64]) -> Option<Self> {
        let width = u64::BITS - (2 * y.len() as u64).leading_zeros();
        let pairs = x.len().checked_mul(y.len())?;
        if x.len() * width as usize > 64 || pairs >= POI_STATS_MAX / 2 || x.iter().chain(y).any(|v| v.is_nan()) {
            return None;
        }
        let stat = (0..=2 * pairs as u64)
            .map(|twice| mean(&[twice as f64 / 2.0 / pairs as f64]))
            .collect();
        let mut table: Vec<u64> = y
            .iter()
            .map(|&b| {
                x.iter().enumerate().fold(0u64, |acc, (i, &a)| {
                    acc | ((2 * u64::from(a > b) + u64::from(a == b)) << (width as usize * i))
                })
            })
            .collect();
        table.resize(y.len().next_power_of_two(), 0);
        Some(Self {
            table,
            nx: x.len(),
            width,
            mask: (1u64 << width) - 1,
            stat,
        })
    }

    /// Twice U of the 16 resamples of `blocks` (their words, [`SubStreams::group`]'s layout: x's `n_x` draws,
    /// then y's `m`), each draw Lemire's from its word as [`draw_rows`] computes it, 8 resamples to a register:
    /// the table is two registers (`m ≤ 16`) read by a permutation, each x index a variable shift. Returns the
    /// lanes (bits) where a draw may have been rejected, whose `out` is to be recomputed.
    ///
    /// # Safety
    /// The CPU has AVX-512F; `n_x, m ≤ 16`; `blocks` holds at least `n_x + m` words.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::cast_possible_wrap)]
    unsafe fn twice_u_avx512(&self, blocks: &[[[u32; GROUP]; 16]], m: usize, out: &mut [u64; GROUP]) -> u32 {
        use std::arch::x86_64::{
            __m256i, __m512i, _mm256_loadu_si256, _mm512_add_epi64, _mm512_and_si512, _mm512_cmplt_epu64_mask,
            _mm512_cvtepu32_epi64, _mm512_mul_epu32, _mm512_permutex2var_epi64, _mm512_set1_epi64,
            _mm512_setzero_si512, _mm512_srli_epi64, _mm512_srlv_epi64, _mm512_storeu_si512,
        };
        let n = self.nx;
        let mut table = [0u64; 16];
        table[..self.table.len()].copy_from_slice(&self.table);
        // SAFETY: `table` is 16 u64, two unaligned 64-byte loads.
        let (t_lo, t_hi) = unsafe {
            (
                std::arch::x86_64::_mm512_loadu_si512(table.as_ptr().cast::<__m512i>()),
                std::arch::x86_64::_mm512_loadu_si512(table.as_ptr().add(8).cast::<__m512i>()),
            )
        };
        let low32 = _mm512_set1_epi64(0xFFFF_FFFF);
        let (bound_x, bound_y) = (_mm512_set1_epi64(n as i64), _mm512_set1_epi64(m as i64));
        let width = _mm512_set1_epi64(i64::from(self.width));
        let mask = _mm512_set1_epi64(self.mask as i64);
        let mut suspect = 0u32;
        for half in 0..2 {
            // Draw `d` of the 8 resamples of this half: its index (as u64 lanes) and the lanes that may reject.
            let draw = |d: usize, bound: __m512i| {
                let words = &blocks[d / 16][d % 16][half * 8..half * 8 + 8];
                // SAFETY: 8 u32, one unaligned 32-byte load.
                let w = _mm512_cvtepu32_epi64(unsafe { _mm256_loadu_si256(words.as_ptr().cast::<__m256i>()) });
                let product = _mm512_mul_epu32(w, bound);
                let may_reject = _mm512_cmplt_epu64_mask(_mm512_and_si512(product, low32), bound);
                (_mm512_srli_epi64::<32>(product), u32::from(may_reject) << (half * 8))
            };
            let mut s = _mm512_setzero_si512();
            for d in n..n + m {
                let (j, flags) = draw(d, bound_y);
                suspect |= flags;
                s = _mm512_add_epi64(s, _mm512_permutex2var_epi64(t_lo, j, t_hi));
            }
            let mut twice = _mm512_setzero_si512();
            for d in 0..n {
                let (i, flags) = draw(d, bound_x);
                suspect |= flags;
                let field = _mm512_and_si512(_mm512_srlv_epi64(s, _mm512_mul_epu32(i, width)), mask);
                twice = _mm512_add_epi64(twice, field);
            }
            // SAFETY: `out[half·8 ..]` is 8 u64, one unaligned 64-byte store.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(half * 8).cast::<__m512i>(), twice) };
        }
        suspect
    }

    /// Twice U of resample lane `l` of `idx` (x's `n_x` draws, then y's).
    #[inline(always)]
    fn twice_u(&self, idx: &[[u32; GROUP]], l: usize) -> u64 {
        let (ix, iy) = idx.split_at(self.nx);
        // Indices are below n_y; the mask (the table is padded to a power of two) spares the bounds checks.
        let last = self.table.len() - 1;
        let s: u64 = iy.iter().map(|k| self.table[k[l] as usize & last]).sum();
        ix.iter().map(|k| (s >> (self.width * k[l])) & self.mask).sum()
    }
}

/// One task of [`poi_interval`]: a resample's `U / (n_x n_y)` from the indices it drew, in `O(n_x + n_y)`
/// instead of comparing every pair of resampled values, with the same number.
struct PoiTask {
    /// Per value of x, how many of y's values lie below it and at or below it (`lt`, `le`), and per value of y
    /// its place among y's values sorted (`place`); `None` where a NaN leaves no such order (then pairs are
    /// compared as [`u_pairs`] does).
    cut: Option<(Vec<u32>, Vec<u32>, Vec<u32>)>,
    /// Whether some value of x equals some value of y, so that a resample of x can equal its resample of y.
    may_be_equal: bool,
}

impl PoiTask {
    fn new(x: &[f64], y: &[f64]) -> Self {
        let may_be_equal = x.iter().any(|a| y.contains(a));
        if x.iter().chain(y).any(|v| v.is_nan()) {
            return Self {
                cut: None,
                may_be_equal,
            };
        }
        let mut order: Vec<usize> = (0..y.len()).collect();
        order.sort_by(|&i, &j| y[i].total_cmp(&y[j]));
        let sorted: Vec<f64> = order.iter().map(|&i| y[i]).collect();
        let mut place = vec![0u32; y.len()];
        #[allow(clippy::cast_possible_truncation)]
        for (p, &i) in order.iter().enumerate() {
            place[i] = p as u32;
        }
        // Without NaN, total_cmp's order agrees with `<` (−0 and +0 compare equal and sit side by side), so the y
        // below (at or below) a value are a prefix of the sorted ones.
        #[allow(clippy::cast_possible_truncation)]
        let lt = x.iter().map(|&a| sorted.partition_point(|&v| v < a) as u32).collect();
        #[allow(clippy::cast_possible_truncation)]
        let le = x.iter().map(|&a| sorted.partition_point(|&v| v <= a) as u32).collect();
        Self {
            cut: Some((lt, le, place)),
            may_be_equal,
        }
    }

    /// The resample's per-task value of [`probability_of_improvement`]: 0.5 where the resampled x and y are equal
    /// arrays, else twice U counted in integers, halved, over `n_x n_y` (as [`u_pairs`]).
    fn resampled(&self, x: &[f64], y: &[f64], ix: &[u32], iy: &[u32], counts: &mut Vec<u32>) -> f64 {
        if self.may_be_equal && ix.len() == iy.len() && ix.iter().zip(iy).all(|(&i, &j)| x[i as usize] == y[j as usize])
        {
            return 0.5;
        }
        let twice = match &self.cut {
            Some((lt, le, place)) => {
                // counts[k]: how many of the resample's y are among the k smallest of y.
                counts.clear();
                counts.resize(y.len() + 1, 0);
                for &j in iy {
                    counts[place[j as usize] as usize + 1] += 1;
                }
                for k in 1..counts.len() {
                    counts[k] += counts[k - 1];
                }
                ix.iter()
                    .map(|&i| u64::from(counts[lt[i as usize] as usize] + counts[le[i as usize] as usize]))
                    .sum::<u64>()
            }
            None => {
                let mut twice = 0u64;
                for &i in ix {
                    let a = x[i as usize];
                    for &j in iy {
                        let b = y[j as usize];
                        twice += 2 * u64::from(a > b) + u64::from(a == b);
                    }
                }
                twice
            }
        };
        twice as f64 / 2.0 / (ix.len() * iy.len()) as f64
    }
}

/// A two-sample t test: statistic, degrees of freedom, two-sided p, and the difference of means.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct TTest {
    pub statistic: f64,
    pub df: f64,
    pub p_value: f64,
    pub difference: f64,
}

/// Welch's t test of `x` against `y`, two-sided (`scipy.stats.ttest_ind(x, y, equal_var=False)`).
///
/// # Errors
/// Fewer than 2 values in a sample, or both variances zero (the statistic is 0/0).
pub fn welch(x: &[f64], y: &[f64]) -> Result<TTest> {
    if x.len() < 2 || y.len() < 2 {
        return Err(invalid(
            "samples",
            "Welch's t test needs at least 2 values in each sample",
        ));
    }
    welch_stats((mean(x), sd(x), x.len() as f64), (mean(y), sd(y), y.len() as f64))
}

/// [`welch`] from each sample's (mean, sd, n): the user's runs against a published mean with its sd and n.
///
/// # Errors
/// `n < 2`, or both standard errors zero.
pub fn welch_stats(a: (f64, f64, f64), b: (f64, f64, f64)) -> Result<TTest> {
    let ((mx, sx, nx), (my, sy, ny)) = (a, b);
    if nx < 2.0 || ny < 2.0 {
        return Err(invalid(
            "samples",
            "Welch's t test needs at least 2 values in each sample",
        ));
    }
    let (vx, vy) = (sx * sx / nx, sy * sy / ny);
    let se2 = vx + vy;
    if se2.is_nan() || se2 <= 0.0 {
        return Err(invalid(
            "samples",
            "both samples are constant: the t statistic is undefined",
        ));
    }
    let d = mx - my;
    let t = d / se2.sqrt();
    let df = se2 * se2 / (vx * vx / (nx - 1.0) + vy * vy / (ny - 1.0));
    let p = (2.0 * t_dist(df)?.sf(t.abs())).min(1.0);
    Ok(TTest {
        statistic: t,
        df,
        p_value: p,
        difference: d,
    })
}

/// The one-sample t test of `mean(x) = value`, two-sided (`scipy.stats.ttest_1samp(x, value)`).
///
/// # Errors
/// Fewer than 2 values, or constant values.
pub fn one_sample_t(x: &[f64], value: f64) -> Result<TTest> {
    if x.len() < 2 {
        return Err(invalid("samples", "a t test needs at least 2 values"));
    }
    let n = x.len() as f64;
    let se = sd(x) / n.sqrt();
    if se.is_nan() || se <= 0.0 {
        return Err(invalid(
            "samples",
            "the values are constant: the t statistic is undefined",
        ));
    }
    let d = mean(x) - value;
    let t = d / se;
    let p = (2.0 * t_dist(n - 1.0)?.sf(t.abs())).min(1.0);
    Ok(TTest {
        statistic: t,
        df: n - 1.0,
        p_value: p,
        difference: d,
    })
}

/// Hedges' g of `x` against `y`: the difference of means over the pooled sd, times `1 − 3/(4(n_x + n_y) − 9)`.
/// `None` where the pooled sd is 0 or a sample has fewer than 2 values.
pub fn hedges_g(x: &[f64], y: &[f64]) -> Option<f64> {
    let sp = pooled_sd(x, y)?;
    let n = (x.len() + y.len()) as f64;
    Some((mean(x) - mean(y)) / sp * (1.0 - 3.0 / (4.0 * n - 9.0)))
}

/// The pooled sd `sqrt(((n_x−1)s_x² + (n_y−1)s_y²)/(n_x + n_y − 2))`; `None` if 0 or undefined.
pub fn pooled_sd(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() < 2 || y.len() < 2 {
        return None;
    }
    let (nx, ny) = (x.len() as f64, y.len() as f64);
    let v = ((nx - 1.0) * sd(x).powi(2) + (ny - 1.0) * sd(y).powi(2)) / (nx + ny - 2.0);
    (v > 0.0).then(|| v.sqrt())
}

/// A permutation test's result.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PermutationTest {
    /// `mean(x) − mean(y)`.
    pub statistic: f64,
    pub p_value: f64,
    /// Whether every split was enumerated (else `resamples` seeded random splits).
    pub exact: bool,
    /// Splits counted: all of them (exact) or the random ones.
    pub splits: u64,
}

fn binomial(n: u64, k: u64) -> u64 {
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        c = c * u128::from(n - i) / u128::from(i + 1);
        if c > u128::from(u64::MAX) {
            return u64::MAX;
        }
    }
    #[allow(clippy::cast_possible_truncation)]
    let c = c as u64;
    c
}

/// The two-sided permutation test of the difference of means, as `scipy.stats.permutation_test((x, y),
/// lambda a, b: mean(a) − mean(b), permutation_type="independent", alternative="two-sided")`: exact (every
/// assignment of the pooled values to groups of sizes `n_x`, `n_y`) when there are at most [`EXACT_SPLITS`] of
/// them, else `resamples` seeded random splits with scipy's `p = (k + 1)/(R + 1)` per tail. scipy's tolerance
/// (`γ = 100 ε |observed|`) counts null values within rounding of the observed one as ties; `p = min(1, 2 min(p₋,
/// p₊))`.
///
/// # Errors
/// An empty sample.
pub fn permutation_test(x: &[f64], y: &[f64], resamples: usize, seed: u64) -> Result<PermutationTest> {
    permutation_test_with(x, y, resamples, seed, true, &mut PermutationMemo::default())
}

/// [`permutation_test`], keeping the sorted subset sums of each half it splits the pooled values into in `memo`
/// for later tests with the same half (comparing one method with many others: its runs are a half of every
/// split of two equal-sized samples). The same result as [`permutation_test`].
///
/// # Errors
/// An empty sample.
pub fn permutation_test_memo(
    x: &[f64],
    y: &[f64],
    resamples: usize,
    seed: u64,
    memo: &mut PermutationMemo,
) -> Result<PermutationTest> {
    permutation_test_with(x, y, resamples, seed, true, memo)
}

/// Halves [`permutation_test_memo`] has seen: per half (its values' bits), its subset sums (by mask) and those
/// sums grouped by subset size, each group sorted.
#[derive(Debug, Default)]
pub struct PermutationMemo {
    halves: std::collections::HashMap<Vec<u64>, std::rc::Rc<HalfSums>>,
}

#[derive(Debug)]
struct HalfSums {
    by_mask: Vec<f64>,
    by_size: Vec<Vec<f64>>,
}

impl PermutationMemo {
    fn half(&mut self, half: &[f64]) -> std::rc::Rc<HalfSums> {
        let key: Vec<u64> = half.iter().map(|v| v.to_bits()).collect();
        self.halves
            .entry(key)
            .or_insert_with(|| std::rc::Rc::new(HalfSums::new(half)))
            .clone()
    }
}

impl HalfSums {
    fn new(half: &[f64]) -> Self {
        let mut by_mask = vec![0.0; 1 << half.len()];
        for mask in 1usize..by_mask.len() {
            let low = mask.trailing_zeros() as usize;
            by_mask[mask] = by_mask[mask & (mask - 1)] + half[low];
        }
        let mut by_size: Vec<Vec<f64>> = (0..=half.len())
            .map(|k| Vec::with_capacity(binomial(half.len() as u64, k as u64) as usize))
            .collect();
        for (mask, &s) in by_mask.iter().enumerate() {
            by_size[mask.count_ones() as usize].push(s);
        }
        // `total_cmp`'s order is the order of these integer keys; equal keys are equal bits, so any sort of the
        // keys gives the one sequence a stable sort by `total_cmp` gives.
        #[allow(clippy::cast_possible_wrap, clippy::cast_sign_loss)]
        for v in &mut by_size {
            let mut keys: Vec<i64> = v.iter().map(|x| total_key(x.to_bits() as i64)).collect();
            keys.sort_unstable();
            v.clear();
            v.extend(keys.into_iter().map(key_value));
        }
        Self { by_mask, by_size }
    }
}

/// [`permutation_test`]; `halves`: count an exact test's tails by [`exact_tails`] where the sample is short enough
/// (else, and in the tests that check it against them, split by split).
fn permutation_test_with(
    x: &[f64],
    y: &[f64],
    resamples: usize,
    seed: u64,
    halves: bool,
    memo: &mut PermutationMemo,
) -> Result<PermutationTest> {
    if x.is_empty() || y.is_empty() {
        return Err(invalid(
            "samples",
            "the permutation test needs at least one value in each sample",
        ));
    }
    let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
    let (nx, n) = (x.len(), pooled.len());
    let observed = mean(x) - mean(y);
    let gamma = (100.0 * f64::EPSILON * observed).abs();
    let (mut less, mut greater, mut count) = (0u64, 0u64, 0u64);
    let mut tally = |s: f64| {
        if s <= observed + gamma {
            less += 1;
        }
        if s >= observed - gamma {
            greater += 1;
        }
        count += 1;
    };
    let total = binomial(n as u64, nx as u64);
    let split_stat = |a: &[f64], b: &[f64]| mean(a) - mean(b);
    let exact = total <= EXACT_SPLITS;
    if exact && halves && n <= 2 * MITM_HALF_MAX {
        let (less, greater) = exact_tails(&pooled, nx, observed, gamma, memo);
        let c = total as f64;
        let p = (2.0 * (less as f64 / c).min(greater as f64 / c)).min(1.0);
        return Ok(PermutationTest {
            statistic: observed,
            p_value: p,
            exact: true,
            splits: total,
        });
    }
    let (mut a, mut b) = (Vec::with_capacity(nx), Vec::with_capacity(n - nx));
    if exact {
        // Every nx-subset of 0..n in lexicographic order.
        let mut idx: Vec<usize> = (0..nx).collect();
        loop {
            a.clear();
            b.clear();
            let mut k = 0;
            for (i, &v) in pooled.iter().enumerate() {
                if k < nx && idx[k] == i {
                    a.push(v);
                    k += 1;
                } else {
                    b.push(v);
                }
            }
            tally(split_stat(&a, &b));
            // The next combination: the rightmost index that can move, moved, and the ones after it packed behind.
            let mut i = nx;
            while i > 0 && idx[i - 1] == n - nx + i - 1 {
                i -= 1;
            }
            if i == 0 {
                break;
            }
            idx[i - 1] += 1;
            for j in i..nx {
                idx[j] = idx[j - 1] + 1;
            }
        }
        let c = count as f64;
        let p = (2.0 * (less as f64 / c).min(greater as f64 / c)).min(1.0);
        return Ok(PermutationTest {
            statistic: observed,
            p_value: p,
            exact: true,
            splits: count,
        });
    }
    let mut rng = Permutations::new(seed, Stream::Shuffles);
    let mut perm = vec![0u32; n];
    for _ in 0..resamples {
        rng.fill(&mut perm);
        a.clear();
        b.clear();
        for (k, &i) in perm.iter().enumerate() {
            if k < nx {
                a.push(pooled[i as usize]);
            } else {
                b.push(pooled[i as usize]);
            }
        }
        tally(split_stat(&a, &b));
    }
    let r = resamples as f64;
    let p = (2.0 * ((less as f64 + 1.0) / (r + 1.0)).min((greater as f64 + 1.0) / (r + 1.0))).min(1.0);
    Ok(PermutationTest {
        statistic: observed,
        p_value: p,
        exact: false,
        splits: count,
    })
}

/// The largest half the exact permutation test splits the pooled values into for [`exact_tails`] (2^14 subset
/// sums a half); longer samples enumerate every split.
const MITM_HALF_MAX: usize = 14;

/// The exact permutation test's two tail counts by meeting in the middle: every split's statistic depends only on
/// the sum `s` of the values assigned to `x`, through `f(s) = s/n_x − (T − s)/n_y`, which floating point keeps
/// non-decreasing in `s`. So the pooled values are cut in two halves; every subset sum of the right half is listed
/// by size and sorted, and for each subset of the left half a binary search counts the right subsets completing it
/// to a split at or below `observed + γ` (and at or above `observed − γ`). `2^h` sums and as many searches
/// instead of `C(n, n_x)` splits; the statistic the counts compare is `f` of the split's sum, with the observed
/// split's own `f` standing for `observed` (so the observed split and exact ties count as scipy's tolerance
/// means them to).
fn exact_tails(pooled: &[f64], nx: usize, observed: f64, gamma: f64, memo: &mut PermutationMemo) -> (u64, u64) {
    let n = pooled.len();
    let ny = n - nx;
    let h = n / 2;
    let (left, right) = pooled.split_at(h);
    let total = crate::numpy::sum(pooled);
    let (fx, fy) = (nx as f64, ny as f64);
    let f = |s: f64| s / fx - (total - s) / fy;
    // Subset sums of a half, grouped by subset size and sorted; by mask for the observed split.
    let (lh, rh) = (memo.half(left), memo.half(right));
    let (ls, rs) = (&lh.by_mask, &rh.by_mask);
    let (left_by_size, right_by_size) = (&lh.by_size, &rh.by_size);
    // The observed split: x is the first n_x pooled values.
    let xl = nx.min(h);
    let (xmask_l, xmask_r) = ((1usize << xl) - 1, (1usize << (nx - xl)) - 1);
    let obs = f(ls[xmask_l] + rs[xmask_r]);
    let _ = observed;
    let (hi_bound, lo_bound) = (obs + gamma, obs - gamma);
    // `f` is non-decreasing in the sum (each rounding step is monotone), so `f(s) ≤ hi_bound` holds exactly for
    // the sums at or below one float, and `f(s) < lo_bound` for those at or below another: found once by bisection,
    // they replace the two divisions a comparison of `f`'s with a comparison of sums (the same counts). Where a
    // value or a sum is not finite, `f` is compared as it is.
    let finite = total.is_finite() && ls.iter().chain(rs.iter()).all(|v| v.is_finite());
    let (l, r) = (left_by_size.as_slice(), right_by_size.as_slice());
    if finite {
        let s_hi = last_true(|s| f(s) <= hi_bound);
        let s_lo = last_true(|s| f(s) < lo_bound);
        tail_walk(l, r, nx, |s| s <= s_hi, |s| s <= s_lo)
    } else {
        tail_walk(l, r, nx, |s| f(s) <= hi_bound, |s| f(s) < lo_bound)
    }
}

/// [`exact_tails`]' counts: the splits whose sum `s` (a left subset's plus a right one's, `n_x` values in all)
/// satisfies `at_most_hi(s)`, and those that fail `below_lo(s)`; both predicates hold up to some sum and fail after.
fn tail_walk(
    left_by_size: &[Vec<f64>],
    right_by_size: &[Vec<f64>],
    nx: usize,
    at_most_hi: impl Fn(f64) -> bool,
    below_lo: impl Fn(f64) -> bool,
) -> (u64, u64) {
    let right_len = right_by_size.len() - 1;
    // For a left sum `l`, the right sums completing a split at or below `hi_bound` are a prefix of the sorted ones
    // (`f(l + v)` is non-decreasing in `v`), and that prefix can only shorten as `l` grows (`f(l + v)` is
    // non-decreasing in `l` too): so the left sums of each size, in ascending order, walk one pointer down the
    // right sums of the complementary size (each count the binary search `partition_point` would give).
    let (mut less, mut greater) = (0u64, 0u64);
    for (k, lefts) in left_by_size.iter().enumerate() {
        if k > nx || nx - k > right_len {
            continue;
        }
        let r = &right_by_size[nx - k];
        let (mut at_most, mut below) = (r.len(), r.len());
        for &l in lefts {
            while at_most > 0 && !at_most_hi(l + r[at_most - 1]) {
                at_most -= 1;
            }
            while below > 0 && !below_lo(l + r[below - 1]) {
                below -= 1;
            }
            less += at_most as u64;
            greater += (r.len() - below) as u64;
        }
    }
    (less, greater)
}

/// The largest finite float where `p`, a predicate that holds up to some point and fails after it (on finite floats
/// in `total_cmp`'s order, −0 and +0 alike), holds; −∞ where it holds nowhere, +∞ where it holds everywhere (so
/// that `s <= last_true(p)` is `p(s)` for every finite `s`).
fn last_true(p: impl Fn(f64) -> bool) -> f64 {
    #[allow(clippy::cast_possible_wrap)]
    let key = |v: f64| total_key(v.to_bits() as i64);
    let (mut lo, mut hi) = (key(f64::MIN), key(f64::MAX));
    if !p(f64::MIN) {
        return f64::NEG_INFINITY;
    }
    if p(f64::MAX) {
        return f64::INFINITY;
    }
    // p(lo) holds, p(hi) fails (the keys span more than i64's range: their midpoint is taken in i128).
    while i128::from(hi) - i128::from(lo) > 1 {
        #[allow(clippy::cast_possible_truncation)]
        let mid = ((i128::from(lo) + i128::from(hi)) / 2) as i64;
        if p(key_value(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    key_value(lo)
}

/// The two one-sided tests of equivalence.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tost {
    /// `max(p_lower, p_upper)`: equivalence within `(low, upp)` is shown when it is below the level.
    pub p_value: f64,
    /// H0: difference ≤ low.
    pub lower: TTest,
    /// H0: difference ≥ upp.
    pub upper: TTest,
}

/// TOST from summary statistics (difference `d`, its standard error `se`, `df`), margins `(low, upp)` on the
/// difference.
fn tost_from(d: f64, se: f64, df: f64, low: f64, upp: f64) -> Result<Tost> {
    if se.is_nan() || se <= 0.0 {
        return Err(invalid(
            "samples",
            "the standard error is zero: equivalence cannot be tested",
        ));
    }
    let t = t_dist(df)?;
    let t1 = (d - low) / se;
    let t2 = (d - upp) / se;
    let lower = TTest {
        statistic: t1,
        df,
        p_value: t.sf(t1),
        difference: d,
    };
    let upper = TTest {
        statistic: t2,
        df,
        p_value: t.cdf(t2),
        difference: d,
    };
    Ok(Tost {
        p_value: lower.p_value.max(upper.p_value),
        lower,
        upper,
    })
}

/// statsmodels' `ttost_ind(x1, x2, low, upp, usevar)`: `pooled` (its default) or Welch's `unequal` variances.
///
/// # Errors
/// Fewer than 2 values in a sample; a zero standard error.
pub fn tost_ind(x1: &[f64], x2: &[f64], low: f64, upp: f64, pooled: bool) -> Result<Tost> {
    if x1.len() < 2 || x2.len() < 2 {
        return Err(invalid("samples", "TOST needs at least 2 values in each sample"));
    }
    tost_stats(
        (mean(x1), sd(x1), x1.len() as f64),
        (mean(x2), sd(x2), x2.len() as f64),
        low,
        upp,
        pooled,
    )
}

/// [`tost_ind`] from each sample's (mean, sd, n): a published value with its sd and n against the user's runs.
///
/// # Errors
/// `n < 2`; a zero standard error.
pub fn tost_stats(a: (f64, f64, f64), b: (f64, f64, f64), low: f64, upp: f64, pooled: bool) -> Result<Tost> {
    let ((m1, s1, n1), (m2, s2, n2)) = (a, b);
    if n1 < 2.0 || n2 < 2.0 {
        return Err(invalid("samples", "TOST needs at least 2 values in each sample"));
    }
    let (v1, v2) = (s1 * s1, s2 * s2);
    let (se, df) = if pooled {
        let df = n1 + n2 - 2.0;
        let vp = ((n1 - 1.0) * v1 + (n2 - 1.0) * v2) / df;
        ((vp * (1.0 / n1 + 1.0 / n2)).sqrt(), df)
    } else {
        let (a, b) = (v1 / n1, v2 / n2);
        (
            (a + b).sqrt(),
            (a + b).powi(2) / (a * a / (n1 - 1.0) + b * b / (n2 - 1.0)),
        )
    };
    tost_from(m1 - m2, se, df, low, upp)
}

/// One-sample TOST of `x` against `value` (statsmodels' `ttost_paired(x, value)`): is `mean(x) − value` within
/// `(low, upp)`?
///
/// # Errors
/// Fewer than 2 values; constant values.
pub fn tost_one(x: &[f64], value: f64, low: f64, upp: f64) -> Result<Tost> {
    if x.len() < 2 {
        return Err(invalid("samples", "TOST needs at least 2 values"));
    }
    let n = x.len() as f64;
    tost_from(mean(x) - value, sd(x) / n.sqrt(), n - 1.0, low, upp)
}

/// Friedman's test with the average ranks (autorank's procedure: rank 1 the best, here the largest value).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Friedman {
    pub statistic: f64,
    pub p_value: f64,
    /// Per method, its mean rank over the blocks (1 = best).
    pub mean_ranks: Vec<f64>,
    /// Nemenyi's critical difference of mean ranks at `alpha`.
    pub critical_difference: f64,
    pub q_alpha: f64,
    pub alpha: f64,
    pub blocks: usize,
}

/// `scipy.stats.friedmanchisquare` of `k` methods over `N` blocks (`data[block][method]`, larger is better for
/// the ranks), with autorank's mean ranks and Nemenyi CD at `alpha`.
///
/// # Errors
/// Fewer than 3 methods or 2 blocks; ragged blocks; NaN.
pub fn friedman(data: &[Vec<f64>], alpha: f64) -> Result<Friedman> {
    let n = data.len();
    let k = data.first().map_or(0, Vec::len);
    if k < 3 || n < 2 {
        return Err(invalid(
            "blocks",
            "Friedman's test needs at least 3 methods and 2 tasks",
        ));
    }
    if data.iter().any(|b| b.len() != k || b.iter().any(|v| v.is_nan())) {
        return Err(invalid("blocks", "every task needs one finite value per method"));
    }
    let mut sums = vec![0.0; k];
    let mut desc_sums = vec![0.0; k];
    let mut ties = 0.0;
    for b in data {
        let r = rank_average(b);
        for (s, v) in sums.iter_mut().zip(&r.ranks) {
            *s += v;
        }
        for (s, v) in desc_sums.iter_mut().zip(&r.ranks) {
            *s += (k + 1) as f64 - v;
        }
        ties += r.tie_counts.iter().map(|&t| (t * t * t - t) as f64).sum::<f64>();
    }
    let (nf, kf) = (n as f64, k as f64);
    let ssbn: f64 = sums.iter().map(|s| s * s).sum();
    let c = 1.0 - ties / (kf * (kf * kf - 1.0) * nf);
    let stat = (12.0 / (kf * nf * (kf + 1.0)) * ssbn - 3.0 * nf * (kf + 1.0)) / c;
    let chi = ChiSquared::new(kf - 1.0).map_err(|e| invalid("k", e.to_string()))?;
    let q = studentized_range_quantile(1.0 - alpha, k)?;
    Ok(Friedman {
        statistic: stat,
        p_value: chi.sf(stat),
        mean_ranks: desc_sums.iter().map(|s| s / nf).collect(),
        critical_difference: q * (kf * (kf + 1.0) / (12.0 * nf)).sqrt(),
        q_alpha: q,
        alpha,
        blocks: n,
    })
}

/// The normal density.
fn phi(z: f64) -> f64 {
    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// The CDF of the range of `k` independent standard normals (the studentized range with infinite df):
/// `k ∫ φ(z) [Φ(z) − Φ(z − q)]^{k−1} dz`, by composite Simpson on [−9, 9] (4000 panels; the integrand is smooth
/// and negligible outside).
pub fn studentized_range_cdf(q: f64, k: usize) -> f64 {
    if q <= 0.0 {
        return 0.0;
    }
    let (a, b, m) = (-9.0, 9.0, 4000usize);
    let h = (b - a) / m as f64;
    let f = |z: f64| phi(z) * (ndtr(z) - ndtr(z - q)).powi(k as i32 - 1);
    let mut s = f(a) + f(b);
    for i in 1..m {
        let z = a + h * i as f64;
        s += if i % 2 == 1 { 4.0 } else { 2.0 } * f(z);
    }
    (k as f64 * s * h / 3.0).clamp(0.0, 1.0)
}

/// The `p` quantile of the studentized range of `k` means with infinite df (`scipy.stats.studentized_range.ppf(p,
/// k, inf)`), by bisection on [`studentized_range_cdf`] to 1e-12.
///
/// # Errors
/// `k < 2` or `p ∉ (0, 1)`.
pub fn studentized_range_quantile(p: f64, k: usize) -> Result<f64> {
    if k < 2 || !(p > 0.0 && p < 1.0) {
        return Err(invalid(
            "alpha",
            "the studentized range needs k ≥ 2 and a level in (0, 1)",
        ));
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while studentized_range_cdf(hi, k) < p {
        hi *= 2.0;
    }
    while hi - lo > 1e-12 * hi {
        let mid = 0.5 * (lo + hi);
        if studentized_range_cdf(mid, k) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(0.5 * (lo + hi))
}

/// The noncentral t CDF `P(T ≤ t)`, `T = (Z + δ)/sqrt(V/ν)`, by quadrature over `V`'s chi distribution:
/// `∫ Φ(t·s − δ) f(s) ds`, `s = sqrt(V/ν)` (Simpson in `s` over the chi density's mass).
pub fn nct_cdf(t: f64, df: f64, nc: f64) -> f64 {
    // Density of s = sqrt(V/ν), V ~ χ²_ν: f(s) = 2 ν s · g(ν s²), g the χ² density.
    let ln_norm = (df / 2.0) * (df / 2.0).ln() - statrs::function::gamma::ln_gamma(df / 2.0);
    let dens = |s: f64| {
        if s <= 0.0 {
            return 0.0;
        }
        (ln_norm + (df - 1.0) * s.ln() - df * s * s / 2.0).exp() * 2.0
    };
    // s concentrates near 1 with sd ≈ 1/sqrt(2ν).
    let spread = 1.0 / (2.0 * df).sqrt();
    let (a, b) = ((1.0 - 12.0 * spread).max(0.0), 1.0 + 14.0 * spread + 2.0 / df);
    let m = 6000usize;
    let h = (b - a) / m as f64;
    let f = |s: f64| ndtr(t * s - nc) * dens(s);
    let mut sum = f(a) + f(b);
    for i in 1..m {
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * f(a + h * i as f64);
    }
    (sum * h / 3.0).clamp(0.0, 1.0)
}

/// The power of a two-sided two-sample t test (statsmodels `TTestIndPower().power(d, n1, alpha, ratio)`):
/// `P(T > c) + P(T < −c)` under the noncentral t with `δ = d·sqrt(n1 n2/(n1 + n2))`, `df = n1 + n2 − 2`.
///
/// # Errors
/// `n1 + n2 < 3`.
pub fn t_power(d: f64, n1: f64, n2: f64, alpha: f64) -> Result<f64> {
    let df = n1 + n2 - 2.0;
    let c = t_dist(df)?.inverse_cdf(1.0 - alpha / 2.0);
    let nc = d * (n1 * n2 / (n1 + n2)).sqrt();
    Ok((1.0 - nct_cdf(c, df, nc)) + nct_cdf(-c, df, nc))
}

/// The smallest standardized difference `d` a two-sided two-sample t test detects with `power` at `alpha`
/// (statsmodels `TTestIndPower().solve_power(nobs1=n1, ratio=n2/n1, alpha, power)`), by bisection.
///
/// # Errors
/// `n1 + n2 < 3`, or power / alpha outside (0, 1).
pub fn min_detectable_effect(n1: f64, n2: f64, alpha: f64, power: f64) -> Result<f64> {
    if !(power > 0.0 && power < 1.0 && alpha > 0.0 && alpha < 1.0) {
        return Err(invalid("power", "power and level must be in (0, 1)"));
    }
    if n1 < 2.0 || n2 < 2.0 {
        return Err(invalid("samples", "a t test needs at least 2 values in each sample"));
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while t_power(hi, n1, n2, alpha)? < power {
        hi *= 2.0;
        if hi > 1e6 {
            return Err(invalid("samples", "no difference is detectable at this size"));
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if t_power(mid, n1, n2, alpha)? < power {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-13 * hi {
            break;
        }
    }
    Ok(0.5 * (lo + hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The halves' tail counts give the split-by-split test's p-value, on samples with and without ties (values on
    /// a coarse decimal grid tie often and do not add exactly in binary), equal and unequal sizes.
    #[test]
    fn exact_tails_equal_every_split_enumerated() {
        let mut memo = PermutationMemo::default();
        let mut s: u64 = 7;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        for (nx, ny) in [(1, 1), (2, 3), (5, 5), (3, 9), (8, 8), (10, 10), (7, 12)] {
            for grid in [0.0, 0.1, 0.25] {
                let mut draw = |shift: f64| {
                    let v = next() + shift;
                    if grid > 0.0 { (v / grid).round() * grid } else { v }
                };
                let x: Vec<f64> = (0..nx).map(|_| draw(0.2)).collect();
                let y: Vec<f64> = (0..ny).map(|_| draw(0.0)).collect();
                let x2: Vec<f64> = (0..nx).map(|_| draw(-0.1)).collect();
                // Both orders, and a second x against the same y: halves the memo has seen.
                for (a, b) in [(&x, &y), (&y, &x), (&x2, &y), (&x, &y)] {
                    check(a, b, &mut memo);
                }
            }
        }
        // Sums of zero, of either sign, and a total of zero.
        check(&[0.5, -0.5, 0.0, -0.0], &[-0.0, 0.25, -0.25, 0.0], &mut memo);
        check(&[0.0, -0.0], &[-0.0, 0.0, 0.0], &mut memo);
        check(&[-0.0; 4], &[-0.0; 4], &mut memo);
    }

    fn check(x: &[f64], y: &[f64], memo: &mut PermutationMemo) {
        let fast = permutation_test_with(x, y, 0, 0, true, memo).expect("halves");
        let alone = permutation_test(x, y, 0, 0).expect("halves, no memo");
        let slow = permutation_test_with(x, y, 0, 0, false, memo).expect("splits");
        assert!(fast.exact && slow.exact);
        assert_eq!(fast, alone);
        assert_eq!(fast.splits, slow.splits, "{x:?} {y:?}");
        assert_eq!(fast.p_value, slow.p_value, "{x:?} {y:?}");
        assert_eq!(fast.statistic, slow.statistic);
    }

    /// The percentile interval by selection equals the sorted one.
    #[test]
    fn percentile_by_selection_equals_the_sorted_one() {
        let mut s: u64 = 11;
        for n in [1usize, 2, 3, 10, 39, 40, 41, 1000] {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ((s >> 40) % 17) as f64 * 0.1
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_by(f64::total_cmp);
            for q in [0.0, 2.5, 50.0, 97.5, 100.0] {
                let mut w = v.clone();
                assert_eq!(
                    percentile_select(&mut w, q),
                    percentile_sorted(&sorted, q),
                    "n {n} q {q}"
                );
            }
        }
    }

    /// The percentile interval by the tails' buffers (narrow tails) and by selection equals the one read off the
    /// sorted values, with ties, negative zeros and both signs.
    #[test]
    fn percentile_interval_equals_the_sorted_one() {
        let mut s: u64 = 13;
        for n in [1usize, 2, 15, 16, 40, 41, 200, 1000, 10_000, 10_001] {
            for grid in [0.0, 0.25] {
                let v: Vec<f64> = (0..n)
                    .map(|i| {
                        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        let u = (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                        if i % 7 == 3 {
                            -0.0
                        } else if grid > 0.0 {
                            (u / grid).round() * grid
                        } else {
                            u
                        }
                    })
                    .collect();
                let mut sorted = v.clone();
                sorted.sort_by(f64::total_cmp);
                for level in [0.95, 0.99, 0.9, 0.5, 0.999] {
                    let tail = (1.0 - level) / 2.0 * 100.0;
                    let want = (
                        percentile_sorted(&sorted, tail),
                        percentile_sorted(&sorted, 100.0 - tail),
                    );
                    let got = percentile_interval(v.clone(), level);
                    assert_eq!(
                        (got.0.to_bits(), got.1.to_bits()),
                        (want.0.to_bits(), want.1.to_bits()),
                        "n {n} grid {grid} level {level}"
                    );
                }
            }
        }
    }

    /// The allocation-free bootstrap of the mean gives the closure's interval bit for bit.
    /// Resample `r`'s indices as the definition draws them: a generator of its own sub-stream, draw after draw.
    fn reference_indices(b: &Bootstrap, subset: u64, sizes: &[usize], r: usize) -> Vec<u32> {
        let mut g = Permutations::for_subset(
            b.seed ^ subset.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            Stream::Split,
            r as u64,
        );
        sizes
            .iter()
            .flat_map(|&n| std::iter::repeat_n(n, n))
            .map(|n| g.index_below(n as u32))
            .collect()
    }

    /// The grouped draws (and the word-by-word redraw) give every resample the definition's indices, and the
    /// probability of improvement's interval (packed counts for one task of few runs, counts by sorted order
    /// otherwise) and the mean's equal the definition's: each resample's U over every pair (`u_pairs`), its mean,
    /// the interval read off the sorted statistics. Ties, −0, NaN, sizes 1 to 17 (packed and not), several tasks,
    /// resample counts that leave a partial group.
    #[test]
    fn grouped_resamples_equal_the_definition() {
        let mut s: u64 = 11;
        let mut next = move || {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            s >> 33
        };
        for case in 0..40 {
            // Every tenth case from the fifth compares a method with itself (resamples that can be equal arrays).
            let tasks = if case % 10 == 5 { 1 + case / 20 } else { 1 + case % 3 };
            let mut draw = |len: usize, coarse: bool| -> Vec<f64> {
                (0..len)
                    .map(|_| {
                        let v = next();
                        if coarse {
                            (v % 4) as f64 * 0.5 - 1.0
                        } else {
                            v as f64 / 1e9
                        }
                    })
                    .collect()
            };
            let x: Vec<Vec<f64>> = (0..tasks)
                .map(|t| {
                    draw(
                        if case % 10 == 5 {
                            1 + case / 20
                        } else {
                            1 + (case * 7 + t) % 17
                        },
                        case % 2 == 0,
                    )
                })
                .collect();
            let mut y: Vec<Vec<f64>> = (0..tasks)
                .map(|t| draw(1 + (case * 5 + t) % 13, case % 4 == 0))
                .collect();
            if case % 10 == 3 {
                y[0][0] = f64::NAN;
            }
            if case % 10 == 5 {
                y[0][0] = -0.0;
                y = x.clone();
            }
            let b = Bootstrap {
                resamples: if case % 10 == 5 {
                    1000
                } else {
                    [1, 15, 16, 17, 333][case % 5]
                },
                level: 0.9,
                seed: case as u64,
            };
            let subset = case as u64 * 3;
            let sizes: Vec<usize> = x.iter().chain(&y).map(Vec::len).collect();
            let want_idx: Vec<Vec<u32>> = (0..b.resamples)
                .map(|r| reference_indices(&b, subset, &sizes, r))
                .collect();
            for redraw in [false, true] {
                let mut got = Vec::new();
                for_each_resample_with(&b, subset, &sizes, redraw, |idx, lanes| {
                    for l in 0..lanes {
                        got.push(idx.iter().map(|k| k[l]).collect::<Vec<u32>>());
                    }
                });
                assert_eq!(got, want_idx, "case {case} redraw {redraw}");
            }
            let x_draws: usize = x.iter().map(Vec::len).sum();
            let stats: Vec<(f64, f64)> = want_idx
                .iter()
                .map(|ix| {
                    let (ix, iy) = ix.split_at(x_draws);
                    let (mut i, mut j) = (0, 0);
                    let per: Vec<(f64, f64)> = x
                        .iter()
                        .zip(&y)
                        .map(|(a, c)| {
                            let ra: Vec<f64> = ix[i..i + a.len()].iter().map(|&k| a[k as usize]).collect();
                            let rc: Vec<f64> = iy[j..j + c.len()].iter().map(|&k| c[k as usize]).collect();
                            i += a.len();
                            j += c.len();
                            (
                                probability_of_improvement(std::slice::from_ref(&ra), std::slice::from_ref(&rc)),
                                probability_of_improvement(&[rc], &[ra]),
                            )
                        })
                        .collect();
                    let (ab, ba): (Vec<f64>, Vec<f64>) = per.into_iter().unzip();
                    (mean(&ab), mean(&ba))
                })
                .collect();
            let (mut stats, mut reverse): (Vec<f64>, Vec<f64>) = stats.into_iter().unzip();
            stats.sort_by(f64::total_cmp);
            reverse.sort_by(f64::total_cmp);
            let tail = (1.0 - b.level) / 2.0 * 100.0;
            let want = (percentile_sorted(&stats, tail), percentile_sorted(&stats, 100.0 - tail));
            // The same resamples' P(y > x) (ties ½, so 1 − P(x > y) each, where no value is NaN): its percentile
            // interval is the mirror (1 − hi, 1 − lo), as the analysis reports the matrix's cell (y, x), to rounding.
            let reverse = (
                percentile_sorted(&reverse, tail),
                percentile_sorted(&reverse, 100.0 - tail),
            );
            if !x.iter().chain(&y).flatten().any(|v| v.is_nan()) {
                assert!(
                    (reverse.0 - (1.0 - want.1)).abs() <= 1e-15 && (reverse.1 - (1.0 - want.0)).abs() <= 1e-15,
                    "case {case}: P(y > x) {reverse:?}, mirrored P(x > y) {want:?}"
                );
            }
            for redraw in [false, true] {
                let (_, got) = poi_interval_with(&x, &y, &b, subset, redraw).expect("poi");
                assert_eq!(
                    (got.0.to_bits(), got.1.to_bits()),
                    (want.0.to_bits(), want.1.to_bits()),
                    "case {case} redraw {redraw}: {got:?} {want:?}"
                );
            }
            assert_eq!(
                stratified_bootstrap_mean(&x, &b, subset).expect("fast"),
                stratified_bootstrap(&x, mean_tasks, &b, subset).expect("general")
            );
        }
    }

    /// The lanes' pairwise sums are `numpy::sum` of each lane's values, for every branch of the pairwise
    /// summation (short, one block, split in halves), with values whose sums round differently in each order.
    #[test]
    fn lane_sums_equal_numpy_sums() {
        let mut s: u64 = 3;
        let mut next = move || {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 10f64.powi((s % 17) as i32 - 8)
        };
        for n in [1usize, 7, 8, 9, 15, 16, 17, 127, 128, 129, 300, 1000] {
            let vals: Vec<[f64; GROUP]> = (0..n).map(|_| std::array::from_fn(|_| next())).collect();
            let got = sum_lanes(&vals);
            for l in 0..GROUP {
                let col: Vec<f64> = vals.iter().map(|v| v[l]).collect();
                assert_eq!(got[l].to_bits(), crate::numpy::sum(&col).to_bits(), "n {n} lane {l}");
            }
        }
    }

    #[test]
    fn bootstrap_of_the_mean_equals_the_general_one() {
        let tasks = vec![vec![0.1, 0.5, 0.3, 0.9, 0.2], vec![1.0, 1.5, 0.7], vec![0.4]];
        let b = Bootstrap {
            resamples: 777,
            level: 0.9,
            seed: 5,
        };
        for subset in [0, 3] {
            assert_eq!(
                stratified_bootstrap_mean(&tasks, &b, subset).expect("fast"),
                stratified_bootstrap(&tasks, mean_tasks, &b, subset).expect("general")
            );
        }
    }
}
