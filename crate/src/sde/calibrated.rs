//! A calibrated SDE verdict from the exact shuffle mean, with diagnostics that show what the signal is.
//!
//! **Why.** S1 and S2 hold different rows, so their row pairing is arbitrary and every shuffled value is a draw
//! from HSIC's permutation null; its exact mean `h(1 − K̄₁)(1 − L̄₂,off)/(h − 1)²` ([`super::moments`]) depends only on
//! each half's kernel spread. On the shared demo models one subset's shuffle spread is 1.5–14× the between-subset
//! spread of its mean, and the in/out-of-training shift is 0.1–0.3 shuffle standard deviations, so two histograms of
//! 200 shuffles differ mostly by noise and the paper's JSD rule depends heavily on which single reference pair is
//! drawn. The exact mean needs no shuffles and has no shuffle noise; pooling R reference subsets per class averages
//! out the reference draw.
//!
//! **Rules** (all on the exact mean `m` of a subset):
//! * *midpoint* (R ≥ 2 references per class): with reference means `μ_IT`, `μ_OOT` and their sample standard
//!   deviations, the threshold is `t = (μ_IT + μ_OOT)/2` and the score `z = (m − t)·sign(μ_IT − μ_OOT)/s_pooled`
//!   (`s_pooled = sqrt((s_IT² + s_OOT²)/2)`): positive is the in-training side. Called in training when
//!   `z > margin`, out of training when `z < −margin` (a tie at margin 0 is out of training, as the paper's strict
//!   rule), otherwise *inconclusive*. The direction is learnt from the references: on some models in-training
//!   subsets have the *lower* mean.
//! * *nearest* (one reference per class): in training when `|m − m_IT| < |m − m_OOT|`.
//! * the paper's JSD rule on shuffles (optional), with the first reference subset of each class, side by side.
//!
//! **Diagnostics**, under the same midpoint rule and references: the whole-subset kernel dispersion
//! `1 − mean off-diagonal K(S)` (all |S| rows, one kernel) and, when the rows are probability vectors, the mean
//! max-softmax confidence. On softmax outputs the SDE statistic tracks mean confidence closely; when the calibrated
//! verdicts agree with these simpler rules, the report says so in plain words, so users see what the signal is.
//!
//! **Rows.** Everything is drawn from one activation matrix by row index. Reference subsets are drawn (seeded, stream
//! `Subsets`) from their pools minus every target row, disjoint from each other when the pool holds `R·|S|` such
//! rows; otherwise they overlap and the report says so.

use serde::{Deserialize, Serialize};

use super::moments::{ShuffleMoments, shuffle_moments};
use super::{RowSubset, SdeParams, Split, SplitHalf, Verdict, paper_verdict, split_half_rows_on, split_rows};
use crate::backend::{Backend, BackendInfo, CpuBackend, Precision, PreparedPair, now, pair_bytes, pair_steps};
use crate::check::{Budget, Cause, mul};
use crate::classification::{F1Result, f1_score};
use crate::data::{Columns, Scalar, Source};
use crate::error::{Error, Result};
use crate::hsic::{shuffle_bytes, shuffle_steps};
use crate::kernel::{self, Bandwidth};
use crate::note::{Note, NoteKind};
use crate::permute::{Permutations, RNG_ID, Stream};
use crate::progress::{Monitor, Progress, Silent};

/// Parameters of the calibrated verdict.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CalibratedParams {
    pub bandwidth: Bandwidth,
    /// Rows per subset |S| (references; drawn targets).
    pub subset_size: usize,
    /// Reference subsets per class, R.
    pub references: usize,
    /// Decision margin in pooled reference standard deviations (0: plain midpoint).
    pub margin: f64,
    pub split: Split,
    pub seed: u64,
    pub precision: Precision,
    /// Shuffles for the paper's JSD rule beside the calibrated one (0: skip it).
    pub paper_shuffles: usize,
    /// Histogram bins of the paper's JSD rule.
    pub bins: usize,
}

impl Default for CalibratedParams {
    fn default() -> Self {
        Self {
            bandwidth: Bandwidth::SqrtDim,
            subset_size: 100,
            references: 20,
            margin: 0.0,
            split: Split::First,
            seed: 0,
            precision: Precision::F64,
            paper_shuffles: 200,
            bins: 30,
        }
    }
}

/// A target subset, by row indices into the activation matrix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetRows {
    pub name: String,
    pub rows: Vec<usize>,
    /// Known membership (controlled experiments): enables F1.
    pub label: Option<bool>,
}

/// A three-way call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Call {
    InTraining,
    OutOfTraining,
    Inconclusive,
}

impl Call {
    /// `Some(true)` in training, `Some(false)` out of training, `None` inconclusive.
    pub fn in_training(self) -> Option<bool> {
        match self {
            Call::InTraining => Some(true),
            Call::OutOfTraining => Some(false),
            Call::Inconclusive => None,
        }
    }
}

/// Per-subset quantities every rule reads.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SubsetStats {
    /// Exact shuffle moments of the split-half distribution.
    pub moments: ShuffleMoments,
    /// `1 − mean off-diagonal K(S)` over all rows of the subset.
    pub dispersion: f64,
    /// Mean of each row's largest entry, when every row is a probability vector.
    pub confidence: Option<f64>,
}

/// One class's reference subsets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReferenceClass {
    pub subsets: Vec<Vec<usize>>,
    pub stats: Vec<SubsetStats>,
    /// Mean and sample sd of the reference exact means.
    pub mean: f64,
    pub sd: f64,
    /// Whether the subsets are pairwise disjoint (and disjoint from every target).
    pub disjoint: bool,
}

/// A midpoint rule fitted on the references for one statistic.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MidpointRule {
    pub in_training_mean: f64,
    pub out_of_training_mean: f64,
    pub threshold: f64,
    pub pooled_sd: f64,
    /// True when in-training references have the larger value.
    pub in_training_higher: bool,
    /// `|μ_IT − μ_OOT| / s_pooled`: how far apart the classes are, in reference standard deviations.
    pub separation: f64,
}

impl MidpointRule {
    fn fit(it: &[f64], oot: &[f64]) -> Self {
        let (mi, si) = mean_sd(it);
        let (mo, so) = mean_sd(oot);
        let pooled = ((si * si + so * so) / 2.0).sqrt();
        Self {
            in_training_mean: mi,
            out_of_training_mean: mo,
            threshold: (mi + mo) / 2.0,
            pooled_sd: pooled,
            in_training_higher: mi > mo,
            separation: if pooled > 0.0 {
                (mi - mo).abs() / pooled
            } else {
                f64::INFINITY
            },
        }
    }

    /// Signed distance from the threshold towards the in-training side, in pooled sds (±inf when sd = 0).
    fn score(&self, v: f64) -> f64 {
        let d = (v - self.threshold) * if self.in_training_higher { 1.0 } else { -1.0 };
        if self.pooled_sd > 0.0 {
            d / self.pooled_sd
        } else {
            d * f64::INFINITY
        }
    }

    fn call(&self, v: f64, margin: f64) -> (f64, Call) {
        let z = self.score(v);
        let call = if z > margin {
            Call::InTraining
        } else if z < -margin || (margin == 0.0 && z == 0.0) {
            Call::OutOfTraining
        } else {
            Call::Inconclusive
        };
        (z, call)
    }
}

fn mean_sd(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = if v.len() > 1 {
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (m, var.sqrt())
}

/// One target's outcome under every rule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibratedTarget {
    pub name: String,
    pub label: Option<bool>,
    pub rows: usize,
    pub stats: SubsetStats,
    /// Midpoint score in pooled reference sds (positive: in-training side); NaN with one reference per class.
    /// Serialized as `null` where it is not a finite number (one reference per class, references that do not vary):
    /// the report says why beside it.
    #[serde(serialize_with = "crate::json::finite")]
    pub score: f64,
    /// The calibrated call: midpoint rule (R ≥ 2) or nearest exact mean (R = 1).
    pub calibrated: Call,
    /// Nearest exact mean to the first reference pair: the single-pair rule.
    /// `None` where the target's exact mean is as near one reference's as the other's (no call).
    pub nearest_single_pair: Option<bool>,
    /// The paper's JSD rule on shuffles with the first reference pair, if run.
    pub paper: Option<Verdict>,
    pub dispersion: Call,
    pub confidence: Option<Call>,
}

/// OTR and F1 of one rule over the targets.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RuleSummary {
    pub rule: &'static str,
    /// Fraction of decided targets called out of training.
    pub out_of_training_rate: Option<f64>,
    pub inconclusive: usize,
    /// F1 (in-training positive) over labelled, decided targets.
    pub f1: Option<F1Result>,
}

/// Everything the calibrated evaluation produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibratedReport {
    pub params: CalibratedParams,
    pub rng: &'static str,
    pub backend: BackendInfo,
    pub in_training: ReferenceClass,
    pub out_of_training: ReferenceClass,
    pub rule: MidpointRule,
    pub dispersion_rule: MidpointRule,
    pub confidence_rule: Option<MidpointRule>,
    pub targets: Vec<CalibratedTarget>,
    pub summaries: Vec<RuleSummary>,
    /// Plain-language reading of the result (what the signal is, how well the references separate).
    pub notes: Vec<String>,
    pub warnings: Vec<Note>,
    pub complete: bool,
}

/// What [`subset_stats`]' checks say the rows are for.
const CALIBRATED: &str = "the calibrated SDE verdict (two halves of at least 2 rows)";

/// Whole-subset kernel dispersion `1 − mean off-diagonal K` with the same bandwidth rule.
fn dispersion<S: Scalar>(s: &mut dyn Columns<S>, bw: Bandwidth) -> Result<f64> {
    let k: kernel::Kernel<f64> = kernel::rbf_columns(s, bw)?;
    Ok(1.0 - k.stats.mean_offdiag)
}

/// Mean max-probability when every row is a probability vector (entries ≥ 0, summing to 1 within 1e-3); the rows
/// are read a panel at a time, each row's sum taken in column order.
fn confidence<S: Scalar>(s: &mut dyn Columns<S>) -> Result<Option<f64>> {
    let (n, d) = (s.rows(), s.cols());
    let width = kernel::panel_width::<S, S>(n, d);
    let (mut sum, mut max) = (vec![0f64; n], vec![f64::NEG_INFINITY; n]);
    let mut panel = Vec::with_capacity(n * width);
    let mut start = 0;
    while start < d {
        let w = width.min(d - start);
        s.read(start, w, &mut panel)?;
        for ((row, sum), max) in panel.chunks_exact(w).zip(&mut sum).zip(&mut max) {
            for v in row {
                let v = v.to_f64();
                if v < 0.0 {
                    return Ok(None);
                }
                *sum += v;
                *max = max.max(v);
            }
        }
        start += w;
    }
    if sum.iter().any(|s| (s - 1.0).abs() > 1e-3) {
        return Ok(None);
    }
    Ok(Some(max.iter().sum::<f64>() / n as f64))
}

/// The exact shuffle moments and diagnostics of rows `rows` of `data` (split as the paper rule splits them), each
/// half and the whole subset read by column panels.
pub(super) async fn subset_stats<B: Backend, S: Scalar>(
    backend: &mut B,
    data: Source<'_, S>,
    rows: &[usize],
    params: &CalibratedParams,
    subset: u64,
    name: &str,
) -> Result<SubsetStats> {
    let set = RowSubset {
        name,
        source: data,
        rows: Some(rows),
        label: None,
    };
    set.check(4, CALIBRATED)?;
    let (first, second) = split_rows(&set, params.split, params.seed, subset);
    let pair = {
        let (mut s1, mut s2) = (data.columns(name, Some(&first))?, data.columns(name, Some(&second))?);
        backend
            .prepare_columns(&mut *s1, &mut *s2, params.bandwidth, params.bandwidth)
            .await?
    };
    let st = pair.stats();
    Ok(SubsetStats {
        moments: shuffle_moments(&st.kc_sums, &st.l_sums),
        dispersion: dispersion(&mut *data.columns(name, Some(rows))?, params.bandwidth)?,
        confidence: confidence(&mut *data.columns(name, Some(rows))?)?,
    })
}

/// The paper rule's split-half distribution of rows `rows` of `data` (checked by [`subset_stats`]), as subset
/// number `subset` of an SDE run.
pub(super) async fn paper_distribution<B: Backend, M: Monitor, S: Scalar>(
    backend: &mut B,
    monitor: &mut M,
    data: Source<'_, S>,
    rows: &[usize],
    name: &str,
    params: &SdeParams,
    subset: u64,
) -> Result<SplitHalf> {
    let set = RowSubset {
        name,
        source: data,
        rows: Some(rows),
        label: None,
    };
    split_half_rows_on(backend, monitor, &set, params, subset, (0.0, 1.0)).await
}

/// Draws `r` subsets of `size` rows from `pool` minus `exclude`; disjoint when the pool allows.
fn draw_references(
    pool: &[usize],
    exclude: &std::collections::HashSet<usize>,
    r: usize,
    size: usize,
    rng: &mut Permutations,
    class: &str,
    warnings: &mut Vec<Note>,
) -> Result<(Vec<Vec<usize>>, bool)> {
    let mut avail: Vec<usize> = pool.iter().copied().filter(|i| !exclude.contains(i)).collect();
    avail.sort_unstable();
    avail.dedup();
    if avail.len() < size {
        return Err(Error::TooSmall {
            input: format!("{class} pool"),
            got: avail.len(),
            need: size,
            unit: "rows not used by a target",
            procedure: "drawing a reference subset",
        });
    }
    let order = rng.subset(avail.len(), avail.len());
    if avail.len() as u64 >= mul(r, size) {
        let subsets = (0..r)
            .map(|k| order[k * size..(k + 1) * size].iter().map(|&i| avail[i]).collect())
            .collect();
        Ok((subsets, true))
    } else {
        let kind = if class == "in-training" {
            NoteKind::OverlappingInTraining
        } else {
            NoteKind::OverlappingOutOfTraining
        };
        warnings.push(Note::new(
            kind,
            format!(
                "the {class} pool has {} rows outside the targets, fewer than {r} × {size} = {}: its {r} reference \
             subsets overlap (each is drawn independently)",
                avail.len(),
                mul(r, size)
            ),
        ));
        let subsets = (0..r)
            .map(|_| rng.subset(avail.len(), size).into_iter().map(|i| avail[i]).collect())
            .collect();
        Ok((subsets, false))
    }
}

/// The out-of-training rate and F1 of one rule's `call`s over `targets` (inconclusive ones counted apart).
///
/// # Errors
/// None in practice (F1 over the labelled, decided targets).
pub fn summary(
    rule: &'static str,
    targets: &[CalibratedTarget],
    call: impl Fn(&CalibratedTarget) -> Option<bool>,
) -> Result<RuleSummary> {
    let decided: Vec<(Option<bool>, bool)> = targets.iter().filter_map(|t| call(t).map(|c| (t.label, c))).collect();
    let inconclusive = targets.len() - decided.len();
    let otr = if decided.is_empty() {
        None
    } else {
        Some(decided.iter().filter(|(_, c)| !c).count() as f64 / decided.len() as f64)
    };
    let labelled: Vec<(bool, bool)> = decided.iter().filter_map(|(l, c)| l.map(|l| (l, *c))).collect();
    let f1 = if labelled.is_empty() {
        None
    } else {
        let (t, p): (Vec<bool>, Vec<bool>) = labelled.into_iter().unzip();
        Some(f1_score(&t, &p)?)
    };
    Ok(RuleSummary {
        rule,
        out_of_training_rate: otr,
        inconclusive,
        f1,
    })
}

/// What the calibrated evaluation fixes before any kernel is built: the reference subsets of each class and the
/// warnings about them.
pub(super) struct Plan {
    pub warnings: Vec<Note>,
    pub it_sets: Vec<Vec<usize>>,
    pub it_disjoint: bool,
    pub oot_sets: Vec<Vec<usize>>,
    pub oot_disjoint: bool,
}

/// Checks the parameters and row indices and draws the reference subsets (seeded, stream `Subsets`).
/// The shape of the rows a calibrated run draws from: rows, columns and bytes per value.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DataShape {
    pub rows: usize,
    pub cols: usize,
    pub in_bytes: usize,
}

impl DataShape {
    pub(crate) fn of<S: Scalar>(data: Source<'_, S>) -> Self {
        Self {
            rows: data.rows(),
            cols: data.cols(),
            in_bytes: size_of::<S>(),
        }
    }
}

/// Refuses a calibrated run whose reference subsets, kernels and paper shuffles need more memory or work than one
/// computation may take ([`crate::check::limits`]), `threads` subsets at a time, before anything is drawn.
fn check_size(
    data: DataShape,
    in_training_pool: &[usize],
    out_of_training_pool: &[usize],
    targets: &[TargetRows],
    params: &CalibratedParams,
    threads: usize,
) -> Result<()> {
    let pools = in_training_pool.len().max(out_of_training_pool.len());
    size_budget(data, pools, targets, params, threads).check()
}

/// What a calibrated run needs (see [`check_size`]); `pools`: rows of the larger pool.
pub(crate) fn size_budget(
    data: DataShape,
    pools: usize,
    targets: &[TargetRows],
    params: &CalibratedParams,
    threads: usize,
) -> Budget {
    let (r, size, d) = (params.references, params.subset_size, data.cols);
    let elem = params.precision;
    let bw = params.bandwidth;
    // One subset's peak: its halves' pair of kernels, then (the pair still held) its whole kernel in f64.
    let subset_bytes = |n: usize| {
        pair_bytes(n / 2, (d, d), data.in_bytes, elem, (bw, bw))
            .saturating_add(kernel::rbf_bytes(n, d, data.in_bytes, 8, bw))
            .saturating_add(mul(n, 24))
    };
    let subset_steps = |n: usize| pair_steps(n / 2, (d, d)).saturating_add(kernel::rbf_steps(n, d));
    let mut b = Budget::default();
    // The references: their rows (both classes), drawing them, and computing each one's kernels.
    let per_class = mul(r, size.saturating_add(3)).saturating_mul(8);
    let draw_steps = mul(r, pools.saturating_add(size)).saturating_mul(2);
    b.add(
        Cause::param("references", r),
        format!("{r} reference subsets of {size} rows per class"),
        per_class
            .saturating_mul(2 + 4)
            .saturating_add(mul(pools, 40).saturating_mul(2)),
        subset_steps(size).saturating_mul(mul(r, 2)).saturating_add(draw_steps),
        "use fewer reference subsets (10–20 are recommended) or smaller ones",
    );
    // The kernels of the `threads` largest subsets at once.
    let mut sizes: Vec<(Cause, usize)> = targets
        .iter()
        .map(|t| (Cause::input(&t.name), t.rows.len()))
        .chain([(Cause::param("subset_size", size), size)])
        .collect();
    sizes.sort_by_key(|s| std::cmp::Reverse(s.1));
    let count = r.max(1).saturating_mul(2).saturating_add(targets.len());
    for (cause, n) in sizes.into_iter().take(threads.clamp(1, count)) {
        b.add(
            cause,
            format!("a subset of {n} rows"),
            subset_bytes(n),
            0,
            if threads > 1 {
                "use subsets of fewer rows (kernels grow as rows²) or fewer threads (each holds one subset's kernels)"
            } else {
                "use subsets of fewer rows (kernels grow as rows²)"
            },
        );
    }
    if let Some(t) = targets.iter().max_by_key(|t| t.rows.len()) {
        let steps = targets
            .iter()
            .fold(0u64, |a, t| a.saturating_add(subset_steps(t.rows.len())));
        b.add(
            Cause::input(&t.name),
            format!("the kernels of {} targets", targets.len()),
            mul(targets.len(), 64),
            steps,
            "use fewer or smaller targets",
        );
    }
    // The paper's verdict: shuffles of the first reference of each class and of every target.
    let t = params.paper_shuffles;
    if t > 0 {
        let halves = [size / 2, size / 2]
            .into_iter()
            .chain(targets.iter().map(|t| t.rows.len() / 2));
        let steps = halves.fold(0u64, |a, h| a.saturating_add(shuffle_steps(h, t)));
        let batch = CpuBackend::new(elem).preferred_batch();
        let n = sizes_max(targets, size) / 2;
        b.add(
            Cause::param("paper_shuffles", t),
            format!("{t} shuffles of each of {} subsets", targets.len() + 2),
            mul(t, targets.len() + 2)
                .saturating_mul(8)
                .saturating_add(shuffle_bytes(n, 0, batch, threads)),
            steps,
            "use fewer shuffles for the paper's verdict (200 as in the paper, or 0 to leave it out)",
        );
    }
    b
}

/// The most rows of any subset of a calibrated run.
fn sizes_max(targets: &[TargetRows], subset_size: usize) -> usize {
    targets.iter().map(|t| t.rows.len()).fold(subset_size, usize::max)
}

pub(super) fn plan(
    data: DataShape,
    in_training_pool: &[usize],
    out_of_training_pool: &[usize],
    targets: &[TargetRows],
    params: &CalibratedParams,
    threads: usize,
) -> Result<Plan> {
    let data_rows = data.rows;
    params.bandwidth.validate()?;
    if params.references == 0 {
        return Err(Error::param(
            "references",
            0,
            "at least 1 reference subset per class (10–20 recommended)",
        ));
    }
    if params.subset_size < 4 {
        return Err(Error::param("subset_size", params.subset_size, "at least 4 rows"));
    }
    if !(params.margin >= 0.0 && params.margin.is_finite()) {
        return Err(Error::param(
            "margin",
            params.margin,
            "a non-negative number of reference standard deviations",
        ));
    }
    // The largest kernel is the whole-subset dispersion kernel (f64, with its Gram sum beside it); targets given
    // as row lists can be larger than |S|.
    check_size(data, in_training_pool, out_of_training_pool, targets, params, threads)?;
    for (name, rows) in [
        ("in_training pool", in_training_pool),
        ("out_of_training pool", out_of_training_pool),
    ]
    .into_iter()
    .chain(targets.iter().map(|t| (t.name.as_str(), t.rows.as_slice())))
    {
        if let Some(&bad) = rows.iter().find(|&&i| i >= data_rows) {
            return Err(Error::IndexOutOfRange {
                input: name.to_string(),
                index: bad,
                len: data_rows,
            });
        }
    }
    let mut warnings = Vec::new();
    let exclude: std::collections::HashSet<usize> = targets.iter().flat_map(|t| t.rows.iter().copied()).collect();
    let mut rng = Permutations::new(params.seed, Stream::Subsets);
    let r = params.references;
    let (it_sets, it_disjoint) = draw_references(
        in_training_pool,
        &exclude,
        r,
        params.subset_size,
        &mut rng,
        "in-training",
        &mut warnings,
    )?;
    let (oot_sets, oot_disjoint) = draw_references(
        out_of_training_pool,
        &exclude,
        r,
        params.subset_size,
        &mut rng,
        "out-of-training",
        &mut warnings,
    )?;
    let overlap: usize = {
        let a: std::collections::HashSet<&usize> = it_sets.iter().flatten().collect();
        oot_sets.iter().flatten().filter(|i| a.contains(i)).count()
    };
    if overlap > 0 {
        warnings.push(Note::new(
            NoteKind::SharedReferenceRows,
            format!("{overlap} rows appear in both the in-training and out-of-training references"),
        ));
    }
    Ok(Plan {
        warnings,
        it_sets,
        it_disjoint,
        oot_sets,
        oot_disjoint,
    })
}

/// The SDE parameters of the paper rule run beside the calibrated one.
pub(super) fn sde_params(params: &CalibratedParams) -> SdeParams {
    SdeParams {
        bandwidth: params.bandwidth,
        shuffles: params.paper_shuffles.max(1),
        seed: params.seed,
        split: params.split,
        bins: params.bins,
        precision: params.precision,
        baselines: false,
    }
}

/// The calibrated evaluation on any backend: draws R reference subsets per class from the pools (disjoint from
/// the targets), computes every subset's exact shuffle moments and diagnostics, applies the rules, and — when
/// `paper_shuffles > 0` — the paper's JSD rule with the first reference pair beside them.
///
/// # Errors
/// Invalid parameters, row indices out of range, pools too small for one subset, subsets under 4 rows or with
/// non-finite values.
pub async fn calibrated_with<'a, B: Backend, M: Monitor, S: Scalar>(
    backend: &mut B,
    monitor: &mut M,
    data: impl Into<Source<'a, S>>,
    in_training_pool: &[usize],
    out_of_training_pool: &[usize],
    targets: &[TargetRows],
    params: &CalibratedParams,
) -> Result<CalibratedReport> {
    let data = data.into();
    let plan = plan(
        DataShape::of(data),
        in_training_pool,
        out_of_training_pool,
        targets,
        params,
        1,
    )?;
    let r = params.references;

    // Progress: one unit per subset, plus the paper rule's shuffles when asked for.
    let total = (2 * r + targets.len()) as f64;
    let mut done = 0.0;
    // Subset numbers for the RNG streams: in-training references 0..r, out-of-training r..2r, targets after.
    let mut it_stats = Vec::with_capacity(r);
    let mut oot_stats = Vec::with_capacity(r);
    for (sets, base, out, class) in [
        (&plan.it_sets, 0, &mut it_stats, "in-training"),
        (&plan.oot_sets, r, &mut oot_stats, "out-of-training"),
    ] {
        for (k, rows) in sets.iter().enumerate() {
            let id = (base + k) as u64;
            out.push(subset_stats(backend, data, rows, params, id, &format!("{class} reference {k}")).await?);
            done += 1.0;
            if !monitor
                .checkpoint(&Progress {
                    fraction: done / total,
                    phase: format!("{class} references"),
                })
                .await
            {
                return Err(Error::Cancelled);
            }
        }
    }

    // The paper rule's reference distributions (first pair), if asked for.
    let sde_params = sde_params(params);
    let paper_refs = match (params.paper_shuffles > 0, plan.it_sets.first(), plan.oot_sets.first()) {
        (true, Some(a), Some(b)) => {
            let ha = paper_distribution(backend, monitor, data, a, "in_training", &sde_params, 0).await?;
            let hb = paper_distribution(backend, monitor, data, b, "out_of_training", &sde_params, 1).await?;
            Some((ha.values, hb.values))
        }
        _ => None,
    };

    let mut computed = Vec::with_capacity(targets.len());
    let mut complete = true;
    for (i, t) in targets.iter().enumerate() {
        let id = (2 * r + i) as u64;
        let st = subset_stats(backend, data, &t.rows, params, id, &t.name).await?;
        let paper = match &paper_refs {
            Some(_) => Some(
                paper_distribution(backend, monitor, data, &t.rows, &t.name, &sde_params, 2 + i as u64)
                    .await?
                    .values,
            ),
            None => None,
        };
        computed.push((st, paper));
        done += 1.0;
        if !monitor
            .checkpoint(&Progress {
                fraction: done / total,
                phase: format!("target {}/{}", i + 1, targets.len()),
            })
            .await
        {
            complete = i + 1 == targets.len();
            break;
        }
    }
    assemble(
        params,
        backend.info(),
        plan,
        it_stats,
        oot_stats,
        paper_refs,
        targets,
        computed,
        complete,
    )
}

/// The report from the computed parts: every reference's statistics, the paper rule's reference distributions
/// (if run) and, for the first `computed.len()` targets, their statistics and paper-rule distributions.
#[allow(clippy::too_many_arguments)]
pub(super) fn assemble(
    params: &CalibratedParams,
    backend: BackendInfo,
    plan: Plan,
    it_stats: Vec<SubsetStats>,
    oot_stats: Vec<SubsetStats>,
    paper_refs: Option<(Vec<f64>, Vec<f64>)>,
    targets: &[TargetRows],
    computed: Vec<(SubsetStats, Option<Vec<f64>>)>,
    complete: bool,
) -> Result<CalibratedReport> {
    let r = params.references;
    let means = |v: &[SubsetStats]| v.iter().map(|s| s.moments.mean).collect::<Vec<f64>>();
    let rule = MidpointRule::fit(&means(&it_stats), &means(&oot_stats));
    let disp = |v: &[SubsetStats]| v.iter().map(|s| s.dispersion).collect::<Vec<f64>>();
    let dispersion_rule = MidpointRule::fit(&disp(&it_stats), &disp(&oot_stats));
    let conf = |v: &[SubsetStats]| v.iter().map(|s| s.confidence).collect::<Option<Vec<f64>>>();
    let confidence_rule = match (conf(&it_stats), conf(&oot_stats)) {
        (Some(a), Some(b)) => Some(MidpointRule::fit(&a, &b)),
        _ => None,
    };

    let (it_m0, oot_m0) = (it_stats[0].moments.mean, oot_stats[0].moments.mean);
    let mut out = Vec::with_capacity(computed.len());
    for (t, (st, paper_values)) in targets.iter().zip(computed) {
        let mean = st.moments.mean;
        let (score, calibrated) = if r >= 2 {
            rule.call(mean, params.margin)
        } else {
            let (di, dof) = ((mean - it_m0).abs(), (mean - oot_m0).abs());
            // A tie (as on constant rows: 0 against 0) or a distance that is not a number is no call.
            let call = if di < dof {
                Call::InTraining
            } else if di > dof {
                Call::OutOfTraining
            } else {
                Call::Inconclusive
            };
            (f64::NAN, call)
        };
        let paper = match (&paper_refs, paper_values) {
            (Some((a, b)), Some(h)) => Some(paper_verdict(&h, a, b, params.bins)?),
            _ => None,
        };
        out.push(CalibratedTarget {
            name: t.name.clone(),
            label: t.label,
            rows: t.rows.len(),
            score,
            calibrated,
            nearest_single_pair: {
                let (di, dof) = ((mean - it_m0).abs(), (mean - oot_m0).abs());
                (di != dof && di.is_finite() && dof.is_finite()).then_some(di < dof)
            },
            paper,
            dispersion: dispersion_rule.call(st.dispersion, params.margin).1,
            confidence: confidence_rule
                .zip(st.confidence)
                .map(|(r, c)| r.call(c, params.margin).1),
            stats: st,
        });
    }

    let mut summaries = vec![
        summary("calibrated", &out, |t| t.calibrated.in_training())?,
        summary("nearest exact mean (single pair)", &out, |t| t.nearest_single_pair)?,
        summary("whole-subset kernel dispersion", &out, |t| t.dispersion.in_training())?,
    ];
    if confidence_rule.is_some() {
        summaries.push(summary("mean max-softmax confidence", &out, |t| {
            t.confidence.and_then(Call::in_training)
        })?);
    }
    if paper_refs.is_some() {
        summaries.insert(
            0,
            summary("paper (JSD, one reference pair)", &out, |t| {
                t.paper.and_then(|p| p.decided())
            })?,
        );
    }

    let notes = reading(&rule, confidence_rule.as_ref(), &out, r);
    let (it_mean, it_sd) = mean_sd(&means(&it_stats));
    let (oot_mean, oot_sd) = mean_sd(&means(&oot_stats));
    let Plan {
        warnings,
        it_sets,
        it_disjoint,
        oot_sets,
        oot_disjoint,
    } = plan;
    Ok(CalibratedReport {
        params: *params,
        rng: RNG_ID,
        backend,
        in_training: ReferenceClass {
            subsets: it_sets,
            stats: it_stats,
            mean: it_mean,
            sd: it_sd,
            disjoint: it_disjoint,
        },
        out_of_training: ReferenceClass {
            subsets: oot_sets,
            stats: oot_stats,
            mean: oot_mean,
            sd: oot_sd,
            disjoint: oot_disjoint,
        },
        rule,
        dispersion_rule,
        confidence_rule,
        targets: out,
        summaries,
        notes,
        warnings,
        complete,
    })
}

/// Plain-language notes: how separable the references are, and whether simpler statistics give the same calls.
fn reading(
    rule: &MidpointRule,
    confidence: Option<&MidpointRule>,
    targets: &[CalibratedTarget],
    r: usize,
) -> Vec<String> {
    let mut notes = Vec::new();
    if r >= 2 {
        notes.push(format!(
            "In-training references have {} exact shuffle means than out-of-training ones ({:.4e} vs {:.4e}); the \
             classes are {:.2} reference standard deviations apart{}.",
            if rule.in_training_higher { "higher" } else { "lower" },
            rule.in_training_mean,
            rule.out_of_training_mean,
            rule.separation,
            if rule.separation < 1.0 {
                " — too close to tell subsets apart reliably"
            } else {
                ""
            }
        ));
    } else {
        notes.push("One reference subset per class: the nearest-exact-mean rule is used (no spread is known).".into());
    }
    let decided: Vec<&CalibratedTarget> = targets.iter().filter(|t| t.calibrated != Call::Inconclusive).collect();
    if !decided.is_empty() {
        let agree = |f: &dyn Fn(&CalibratedTarget) -> Option<Call>| {
            decided.iter().filter(|t| f(t) == Some(t.calibrated)).count()
        };
        let d = agree(&|t| Some(t.dispersion));
        notes.push(format!(
            "The whole-subset kernel dispersion, under the same references and rule, gives the same call on {d} of {} \
             targets{}.",
            decided.len(),
            if d == decided.len() {
                ": here the SDE verdict is a calibrated test of how spread out the subset's outputs are"
            } else {
                ""
            }
        ));
        if let Some(c) = confidence {
            let n = agree(&|t| t.confidence);
            notes.push(format!(
                "These rows are probability vectors: mean max-softmax confidence gives the same call on {n} of {} \
                 targets{} (confidence classes {:.2} sds apart, SDE {:.2}).",
                decided.len(),
                if n == decided.len() {
                    ", so the SDE signal here is essentially the model's confidence"
                } else {
                    ""
                },
                c.separation,
                rule.separation
            ));
        }
    }
    notes
}

/// [`calibrated_with`] on the CPU.
///
/// # Errors
/// See [`calibrated_with`].
pub fn calibrated<'a, S: Scalar>(
    data: impl Into<Source<'a, S>>,
    in_training_pool: &[usize],
    out_of_training_pool: &[usize],
    targets: &[TargetRows],
    params: &CalibratedParams,
) -> Result<CalibratedReport> {
    let mut backend = CpuBackend::new(params.precision);
    now(calibrated_with(
        &mut backend,
        &mut Silent,
        data,
        in_training_pool,
        out_of_training_pool,
        targets,
        params,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Matrix;

    /// Rows whose spread depends on the row index: rows < `split` are tight (scale 0.3), the rest wide (scale 3),
    /// so subsets from the two pools have clearly different kernel spreads and exact means.
    fn data(n: usize, d: usize, split: usize) -> Matrix {
        let mut s = 9u64;
        let mut u = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let rows: Vec<Vec<f64>> = (0..n)
            .map(|i| (0..d).map(|_| u() * if i < split { 0.3 } else { 3.0 }).collect())
            .collect();
        Matrix::from_rows(&rows).unwrap()
    }

    fn targets(pool: std::ops::Range<usize>, size: usize, label: bool, count: usize) -> Vec<TargetRows> {
        let rows: Vec<usize> = pool.collect();
        (0..count)
            .map(|k| TargetRows {
                name: format!("t{label}{k}"),
                rows: rows[k * size..(k + 1) * size].to_vec(),
                label: Some(label),
            })
            .collect()
    }

    #[test]
    fn separable_pools_give_perfect_f1_and_learn_the_direction() {
        let m = data(400, 3, 200);
        let mut ts = targets(0..60, 20, true, 3);
        ts.extend(targets(200..260, 20, false, 3));
        let p = CalibratedParams {
            subset_size: 20,
            references: 5,
            paper_shuffles: 20,
            ..Default::default()
        };
        let it_pool: Vec<usize> = (0..200).collect();
        let oot_pool: Vec<usize> = (200..400).collect();
        let r = calibrated(m.view(), &it_pool, &oot_pool, &ts, &p).unwrap();
        assert!(r.in_training.disjoint && r.out_of_training.disjoint, "{:?}", r.warnings);
        // References never reuse target rows.
        let used: std::collections::HashSet<usize> = ts.iter().flat_map(|t| t.rows.clone()).collect();
        assert!(
            r.in_training
                .subsets
                .iter()
                .chain(&r.out_of_training.subsets)
                .flatten()
                .all(|i| !used.contains(i))
        );
        // Tight subsets have a larger mean kernel, hence a smaller exact mean: in-training is the lower side here.
        assert!(!r.rule.in_training_higher);
        let cal = r.summaries.iter().find(|s| s.rule == "calibrated").unwrap();
        assert_eq!(cal.f1.as_ref().unwrap().f1, 1.0);
        assert_eq!(cal.out_of_training_rate, Some(0.5));
        assert!(r.targets.iter().all(|t| t.paper.is_some()));
        assert!(r.notes.iter().any(|n| n.contains("dispersion")));
        assert!(r.confidence_rule.is_none(), "these rows are not probability vectors");
    }

    #[test]
    fn margin_makes_borderline_targets_inconclusive_and_one_reference_uses_nearest() {
        let m = data(300, 3, 150);
        // A target straddling both populations sits near the midpoint.
        let mixed = TargetRows {
            name: "mixed".into(),
            rows: (140..160).collect(),
            label: None,
        };
        let it_pool: Vec<usize> = (0..140).collect();
        let oot_pool: Vec<usize> = (160..300).collect();
        let p = CalibratedParams {
            subset_size: 20,
            references: 6,
            margin: 50.0,
            paper_shuffles: 0,
            ..Default::default()
        };
        let r = calibrated(m.view(), &it_pool, &oot_pool, std::slice::from_ref(&mixed), &p).unwrap();
        assert_eq!(r.targets[0].calibrated, Call::Inconclusive);
        assert_eq!(r.summaries[0].inconclusive, 1);
        let one = CalibratedParams {
            references: 1,
            margin: 0.0,
            ..p
        };
        let r1 = calibrated(m.view(), &it_pool, &oot_pool, &[mixed], &one).unwrap();
        assert!(r1.targets[0].score.is_nan());
        assert_eq!(
            r1.targets[0].calibrated.in_training(),
            r1.targets[0].nearest_single_pair
        );
    }

    #[test]
    fn small_pools_overlap_with_a_warning_and_bad_rows_are_errors() {
        let m = data(100, 3, 50);
        let it_pool: Vec<usize> = (0..50).collect();
        let oot_pool: Vec<usize> = (50..100).collect();
        let p = CalibratedParams {
            subset_size: 20,
            references: 5,
            paper_shuffles: 0,
            ..Default::default()
        };
        let r = calibrated(m.view(), &it_pool, &oot_pool, &[], &p).unwrap();
        assert!(!r.in_training.disjoint && r.warnings.iter().any(|w| w.contains("overlap")));
        let bad = TargetRows {
            name: "bad".into(),
            rows: vec![0, 1, 2, 100],
            label: None,
        };
        let e = calibrated(m.view(), &it_pool, &oot_pool, &[bad], &p)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bad") && e.contains("100"), "{e}");
        let tiny: Vec<usize> = (0..10).collect();
        assert!(calibrated(m.view(), &tiny, &oot_pool, &[], &p).is_err());
    }

    #[test]
    fn probability_rows_get_the_confidence_diagnostic() {
        // Softmax-like rows: confident (one large entry) vs diffuse.
        let mut s = 3u64;
        let rows: Vec<Vec<f64>> = (0..200)
            .map(|i| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
                let c = (s >> 60) as usize % 4;
                let top = if i < 100 { 0.97 } else { 0.55 };
                (0..4).map(|j| if j == c { top } else { (1.0 - top) / 3.0 }).collect()
            })
            .collect();
        let m = Matrix::from_rows(&rows).unwrap();
        let it_pool: Vec<usize> = (0..100).collect();
        let oot_pool: Vec<usize> = (100..200).collect();
        let p = CalibratedParams {
            subset_size: 20,
            references: 3,
            paper_shuffles: 0,
            ..Default::default()
        };
        let t = vec![TargetRows {
            name: "t".into(),
            rows: (0..20).collect(),
            label: Some(true),
        }];
        let r = calibrated(m.view(), &it_pool, &oot_pool, &t, &p).unwrap();
        let c = r.confidence_rule.unwrap();
        assert!(c.in_training_higher && c.in_training_mean > 0.9);
        assert_eq!(r.targets[0].confidence, Some(Call::InTraining));
    }

    /// Reference subsets and paper shuffles past the limits are refused before anything is drawn (drawing
    /// `usize::MAX` subsets would abort the test); the arithmetic holds at the limit.
    #[test]
    fn requests_past_the_limits_are_refused_before_drawing() {
        let m = data(80, 3, 40);
        let (it, oot): (Vec<usize>, Vec<usize>) = ((0..40).collect(), (40..80).collect());
        for (params, name) in [
            (
                CalibratedParams {
                    references: usize::MAX,
                    subset_size: 10,
                    ..Default::default()
                },
                "references",
            ),
            (
                CalibratedParams {
                    references: 2,
                    subset_size: 10,
                    paper_shuffles: usize::MAX,
                    ..Default::default()
                },
                "paper_shuffles",
            ),
        ] {
            let e = calibrated(m.view(), &it, &oot, &[], &params).unwrap_err();
            assert!(
                matches!(&e, Error::ParameterTooLarge { name: n, .. } if *n == name),
                "{name}: {e}"
            );
        }
        let shape = DataShape {
            rows: 80,
            cols: 3,
            in_bytes: 8,
        };
        let targets = [TargetRows {
            name: "t".into(),
            rows: (0..30).collect(),
            label: None,
        }];
        let p = CalibratedParams {
            references: 5,
            subset_size: 10,
            ..Default::default()
        };
        let one = size_budget(shape, 40, &targets, &p, 1);
        crate::check::tests::boundary(&one);
        // 2 × 5 reference subsets' rows, and 200 shuffle values for the 3 subsets of the paper's verdict.
        assert!(one.bytes() >= 2 * 5 * 10 * 8 + 3 * 200 * 8);
        assert!(
            size_budget(shape, 40, &targets, &p, 2).bytes() > one.bytes(),
            "a second thread's subset"
        );
        // A target of a million rows needs terabytes of kernels: refused, naming it.
        let huge = [TargetRows {
            name: "huge".into(),
            rows: vec![0; 1_000_000],
            label: None,
        }];
        let e = calibrated(m.view(), &it, &oot, &huge, &p).unwrap_err().to_string();
        let e = crate::words::cli(&e);
        assert!(
            e.starts_with("input `huge` is too large: a subset of 1000000 rows needs about"),
            "{e}"
        );
    }
}
