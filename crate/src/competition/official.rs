//! The official per-example epsilon of the NeurIPS 2023 unlearning competition (`metric.py`, `_get_epsilons`),
//! reproduced to the bit with sorted data instead of metric.py's dense `[models × thresholds]` indicator tensors.
//!
//! For one example, metric.py scores ~160,000 interval attacks and ~100·range single-threshold attacks. Each
//! attack's epsilon depends only on its two counts (false positives `c_fp`, false negatives `c_fn`) and on its
//! family's float32 rate factor. Among attacks with the same `c_fn`, the one with the fewest false positives has
//! the largest epsilon by a margin of at least `≈ log(1 + 1/N)`, which dwarfs the ≤ 4 ulp error of numpy's float32
//! log, so only the per-`c_fn` minima (≤ N + 1 pairs per family) need evaluating — with exactly metric.py's float32
//! operations. Counts come from binary searches and monotone pointer sweeps over the sorted samples; the grids
//! themselves are generated point for point as numpy/torch generate them (see [`super::emulate`]).

use super::emulate::{cuda_mean_factor, cuda_rate, numpy_log_f32, torch_linspace_f32};
use super::{Attack, AttackRule, EPSILON_CAP, ExampleEpsilon, Outcome};

/// Thresholds per unit of confidence in both grids (`NUM_THRESHOLDS_PER_UNIT`).
const PER_UNIT: f64 = 100.0;
/// Half-width of the interval grids (`buffer`).
const BUFFER: f64 = 2.0;
/// Left thresholds per right threshold: `ceil(2 · buffer · 100)`.
const NUM_LEFT: usize = 400;
/// metric.py's "peaky" cut-off on the ratio of the two ranges.
const PEAKY_RATIO: f64 = 0.01;

/// One sample of an example, sorted, with its extremes as numpy computes them on the unsorted column.
struct Sorted {
    v: Vec<f64>,
}

impl Sorted {
    fn new(x: &[f64]) -> Self {
        let mut v = x.to_vec();
        v.sort_by(f64::total_cmp);
        Sorted { v }
    }
    fn min(&self) -> f64 {
        self.v.first().copied().unwrap_or(f64::NAN)
    }
    fn max(&self) -> f64 {
        self.v.last().copied().unwrap_or(f64::NAN)
    }
    /// Number of values `< t`.
    fn count_lt(&self, t: f64) -> usize {
        self.v.partition_point(|&x| x < t)
    }
    /// Number of values `≤ t`.
    fn count_le(&self, t: f64) -> usize {
        self.v.partition_point(|&x| x <= t)
    }
}

/// `ceil(span · 100)` as metric.py turns it into a count; a non-finite or negative span gives no thresholds.
fn grid_size(span: f64) -> usize {
    let n = (span * PER_UNIT).ceil();
    if n.is_finite() && n > 0.0 { n as usize } else { 0 }
}

/// Per-`c_fn` minimum of `c_fp ≥ 1` over one family, with the first attack index reaching it, plus the first
/// attack with no errors at all.
struct Frontier {
    /// `best[c_fn] = (c_fp, index)`; `c_fp == usize::MAX` when no attack had that `c_fn` with `c_fp ≥ 1`.
    best: Vec<(usize, usize)>,
    first_perfect: Option<usize>,
}

impl Frontier {
    fn new(n: usize) -> Self {
        Frontier {
            best: vec![(usize::MAX, 0); n + 1],
            first_perfect: None,
        }
    }
    #[inline]
    fn add(&mut self, c_fp: usize, c_fn: usize, index: usize) {
        if c_fp == 0 {
            if c_fn == 0 && self.first_perfect.is_none() {
                self.first_perfect = Some(index);
            }
            return;
        }
        if c_fn == 0 {
            return;
        }
        if let Some(slot) = self.best.get_mut(c_fn)
            && c_fp < slot.0
        {
            *slot = (c_fp, index);
        }
    }
}

/// metric.py's float32 epsilon of one attack from its rates, `None` where it discards the attack (NaN).
///
/// `clip(fmax(log(D − fpr) − log(fnr), log(D − fnr) − log(fpr)), 0)` with `D = f32(1 − δ)`, every operation in
/// float32 and `log` as numpy's float32 kernel.
pub(crate) fn pair_epsilon(fpr: f32, fnr: f32, one_minus_delta: f32) -> Option<f32> {
    let a = numpy_log_f32(one_minus_delta - fpr) - numpy_log_f32(fnr);
    let b = numpy_log_f32(one_minus_delta - fnr) - numpy_log_f32(fpr);
    let m = match (a.is_nan(), b.is_nan()) {
        (true, true) => return None,
        (true, false) => b,
        (false, true) => a,
        (false, false) => a.max(b),
    };
    Some(m.max(0.0))
}

/// The interval ("double threshold") family's grid for one example: right thresholds and the left-grid recipe.
struct IntervalGrid {
    right: Vec<f64>,
    width: f64,
    /// Whether the family's positive class (the peakier sample) is metric.py's original negative.
    swapped: bool,
}

impl IntervalGrid {
    fn new(pos: &Sorted, neg: &Sorted) -> Self {
        let pos_diff = pos.max() - pos.min();
        let neg_diff = neg.max() - neg.min();
        let smallest = if pos_diff > neg_diff { neg_diff } else { pos_diff };
        let swapped = pos_diff >= neg_diff;
        let p = if swapped { neg } else { pos };
        let min = p.min() + smallest - BUFFER;
        let max = p.max() + BUFFER;
        let mut right = Vec::new();
        crate::numpy::linspace_into(min, max, grid_size(max - min), &mut right);
        IntervalGrid {
            right,
            width: smallest,
            swapped,
        }
    }
    fn left_into(&self, right: f64, out: &mut Vec<f64>) {
        let centre = right - self.width;
        crate::numpy::linspace_into(centre - BUFFER, centre + BUFFER, NUM_LEFT, out);
    }
    fn len(&self) -> usize {
        self.right.len() * NUM_LEFT
    }
}

/// Counts `#{x : l ≤ x}` for a row of left thresholds that numpy produces non-decreasing except possibly at its
/// last point (set to `stop`, which may round below its neighbour): a forward pointer, with a binary search where
/// the grid steps back.
struct Sweep<'a> {
    v: &'a [f64],
    pos: usize,
    last: f64,
}

impl<'a> Sweep<'a> {
    fn new(s: &'a Sorted, first: f64) -> Self {
        let pos = s.count_lt(first);
        Sweep {
            v: &s.v,
            pos,
            last: first,
        }
    }
    /// Number of values `< l`.
    #[inline]
    fn lt(&mut self, l: f64) -> usize {
        if l < self.last {
            self.pos = self.v.partition_point(|&x| x < l);
        } else {
            while self.pos < self.v.len() && self.v[self.pos] < l {
                self.pos += 1;
            }
        }
        self.last = l;
        self.pos
    }
}

/// One example under the official rules. `pos`/`neg` are metric.py's positive (larger median) and negative
/// samples, of equal length `n ≥ 1`.
pub(crate) fn example(pos: &[f64], neg: &[f64], positive_is_retrained: bool, delta: f64) -> (ExampleEpsilon, Outcome) {
    let n = pos.len();
    let sp = Sorted::new(pos);
    let sn = Sorted::new(neg);

    let pos_diff = sp.max() - sp.min();
    let neg_diff = sn.max() - sn.min();
    let largest = if pos_diff > neg_diff { pos_diff } else { neg_diff };
    let smallest = if pos_diff > neg_diff { neg_diff } else { pos_diff };
    // 0/0 (both samples constant) is NaN, and NaN < 0.01 is false: metric.py goes on to the attacks.
    if smallest / largest < PEAKY_RATIO {
        return (
            ExampleEpsilon {
                epsilon: EPSILON_CAP,
                best_attack: None,
                positive_is_retrained,
                peaky: true,
                bucket: None,
                points: 0.0,
            },
            Outcome::Scored,
        );
    }

    let one_minus_delta = (1.0 - delta) as f32;

    // Interval family (metric.py's `_get_double_threshold_rates`), attack index = row · 400 + column.
    let grid = IntervalGrid::new(&sp, &sn);
    let (fam_pos, fam_neg) = if grid.swapped { (&sn, &sp) } else { (&sp, &sn) };
    let mut interval = Frontier::new(n);
    let mut left = Vec::with_capacity(NUM_LEFT);
    for (i, &r) in grid.right.iter().enumerate() {
        grid.left_into(r, &mut left);
        let le_pos = fam_pos.count_le(r);
        let le_neg = fam_neg.count_le(r);
        let first = left.first().copied().unwrap_or(r);
        let mut sweep_pos = Sweep::new(fam_pos, first);
        let mut sweep_neg = Sweep::new(fam_neg, first);
        let mut previous = (usize::MAX, usize::MAX);
        for (j, &l) in left.iter().enumerate() {
            let inside_pos = le_pos.saturating_sub(sweep_pos.lt(l));
            let inside_neg = le_neg.saturating_sub(sweep_neg.lt(l));
            let pair = (inside_neg, n - inside_pos);
            // The same counts at a later index can neither lower the minimum nor become the first argmax.
            if pair != previous {
                interval.add(pair.0, pair.1, i * NUM_LEFT + j);
                previous = pair;
            }
        }
    }
    let interval_len = grid.len();

    // Single-threshold family (`_get_single_threshold_rates`), float32 grid, rule x ≥ t.
    let lo = sp.min().min(sn.min());
    let hi = sp.max().max(sn.max());
    let singles = torch_linspace_f32(lo, hi, grid_size(hi - lo));
    let mut single = Frontier::new(n);
    for (j, &t) in singles.iter().enumerate() {
        let t = f64::from(t);
        let c_fn = sp.count_lt(t);
        let c_fp = n - sn.count_lt(t);
        single.add(c_fp, c_fn, interval_len + j);
    }

    // Evaluate each family's frontier with its own CUDA rate factor.
    let mut best: Option<(f32, usize, usize, usize)> = None; // (eps, index, c_fp, c_fn)
    for (frontier, len) in [(&interval, interval_len), (&single, singles.len())] {
        if len == 0 {
            continue;
        }
        let factor = cuda_mean_factor(n, len);
        let one = cuda_rate(n, factor);
        // fpr + fnr == 0 and tpr + tnr == 2; where N·factor rounds below 1 metric.py discards these instead.
        if let Some(index) = frontier.first_perfect
            && one + one == 2.0
        {
            consider(&mut best, f32::INFINITY, index, 0, 0);
        }
        for (c_fn, &(c_fp, index)) in frontier.best.iter().enumerate() {
            if c_fp == usize::MAX {
                continue;
            }
            if let Some(eps) = pair_epsilon(cuda_rate(c_fp, factor), cuda_rate(c_fn, factor), one_minus_delta) {
                consider(&mut best, eps, index, c_fp, c_fn);
            }
        }
    }

    let Some((eps, index, c_fp, c_fn)) = best else {
        // metric.py's `assert thr_eps` would stop here. A perfect separation that the float32 rates failed to
        // recognise (N·factor ≠ 1, e.g. N = 41) is what metric.py's rules mean by ε = ∞: score it as the cap.
        // Otherwise nothing distinguishes the samples (e.g. both constant and equal): ε = 0.
        let perfect = interval.first_perfect.or(single.first_perfect);
        let (epsilon, best_attack, outcome) = match perfect {
            Some(index) => (
                EPSILON_CAP,
                Some(describe(
                    index,
                    0,
                    0,
                    n,
                    &grid,
                    &singles,
                    positive_is_retrained,
                    &mut left,
                )),
                Outcome::UnrecognisedPerfect,
            ),
            None => (0.0, None, Outcome::NoAttack),
        };
        return (
            ExampleEpsilon {
                epsilon,
                best_attack,
                positive_is_retrained,
                peaky: false,
                bucket: None,
                points: 0.0,
            },
            outcome,
        );
    };
    let attack = describe(index, c_fp, c_fn, n, &grid, &singles, positive_is_retrained, &mut left);
    (
        ExampleEpsilon {
            epsilon: f64::from(eps).clamp(0.0, EPSILON_CAP),
            best_attack: Some(attack),
            positive_is_retrained,
            peaky: false,
            bucket: None,
            points: 0.0,
        },
        Outcome::Scored,
    )
}

/// Keeps the largest epsilon, and among equal ones the earliest attack (numpy's `argmax`).
fn consider(best: &mut Option<(f32, usize, usize, usize)>, eps: f32, index: usize, c_fp: usize, c_fn: usize) {
    match best {
        Some((b, i, _, _)) if eps < *b || (eps == *b && index > *i) => {}
        _ => *best = Some((eps, index, c_fp, c_fn)),
    }
}

#[allow(clippy::too_many_arguments)]
fn describe(
    index: usize,
    c_fp: usize,
    c_fn: usize,
    n: usize,
    grid: &IntervalGrid,
    singles: &[f32],
    positive_is_retrained: bool,
    left: &mut Vec<f64>,
) -> Attack {
    let interval_len = grid.len();
    let factor_len = if index < interval_len {
        interval_len
    } else {
        singles.len()
    };
    let factor = cuda_mean_factor(n, factor_len);
    let (rule, family_positive_is_retrained) = if index < interval_len {
        let (i, j) = (index / NUM_LEFT, index % NUM_LEFT);
        let right = grid.right.get(i).copied().unwrap_or(f64::NAN);
        grid.left_into(right, left);
        let lo = left.get(j).copied().unwrap_or(f64::NAN);
        (
            AttackRule::Interval { left: lo, right },
            positive_is_retrained != grid.swapped,
        )
    } else {
        let t = singles.get(index - interval_len).copied().map_or(f64::NAN, f64::from);
        (AttackRule::AtLeast { threshold: t }, positive_is_retrained)
    };
    Attack {
        rule,
        positive_is_retrained: family_positive_is_retrained,
        false_positives: c_fp,
        false_negatives: c_fn,
        fpr: f64::from(cuda_rate(c_fp, factor)),
        fnr: f64::from(cuda_rate(c_fn, factor)),
        index,
    }
}

/// The straightforward dense-grid version of [`example`] (every attack's rates and epsilon, as metric.py),
/// kept to check the fast path.
#[cfg(test)]
pub(crate) fn example_dense(pos: &[f64], neg: &[f64], delta: f64) -> Option<(f32, usize)> {
    let n = pos.len();
    let (sp, sn) = (Sorted::new(pos), Sorted::new(neg));
    let pos_diff = sp.max() - sp.min();
    let neg_diff = sn.max() - sn.min();
    let largest = if pos_diff > neg_diff { pos_diff } else { neg_diff };
    let smallest = if pos_diff > neg_diff { neg_diff } else { pos_diff };
    if smallest / largest < PEAKY_RATIO {
        return Some((EPSILON_CAP as f32, usize::MAX));
    }
    let d = (1.0 - delta) as f32;
    // (tpr, fnr, fpr, tnr) per attack, in metric.py's order.
    let mut rates: Vec<(f32, f32, f32, f32)> = Vec::new();
    let grid = IntervalGrid::new(&sp, &sn);
    let (p, q) = if grid.swapped { (neg, pos) } else { (pos, neg) };
    let fd = cuda_mean_factor(n, grid.len());
    let mut left = Vec::new();
    for &r in &grid.right {
        grid.left_into(r, &mut left);
        for &l in &left {
            let pp_p = p.iter().filter(|&&x| l <= x && x <= r).count();
            let pp_q = q.iter().filter(|&&x| l <= x && x <= r).count();
            rates.push((
                cuda_rate(pp_p, fd),
                cuda_rate(n - pp_p, fd),
                cuda_rate(pp_q, fd),
                cuda_rate(n - pp_q, fd),
            ));
        }
    }
    let lo = sp.min().min(sn.min());
    let hi = sp.max().max(sn.max());
    let singles = torch_linspace_f32(lo, hi, grid_size(hi - lo));
    let fs = cuda_mean_factor(n, singles.len());
    for &t in &singles {
        let t = f64::from(t);
        let tp = pos.iter().filter(|&&x| x >= t).count();
        let fp = neg.iter().filter(|&&x| x >= t).count();
        rates.push((
            cuda_rate(tp, fs),
            cuda_rate(n - tp, fs),
            cuda_rate(fp, fs),
            cuda_rate(n - fp, fs),
        ));
    }
    let mut best: Option<(f32, usize)> = None;
    for (i, &(tpr, fnr, fpr, tnr)) in rates.iter().enumerate() {
        let eps = if fpr + fnr == 0.0 && tpr + tnr == 2.0 {
            Some(f32::INFINITY)
        } else if fpr * fnr == 0.0 {
            None
        } else {
            pair_epsilon(fpr, fnr, d)
        };
        if let Some(e) = eps
            && best.is_none_or(|(b, _)| e > b)
        {
            best = Some((e, i));
        }
    }
    best
}
