//! Split-half Dependence Evaluation (SDE), as in "Unlearning Evaluation through Subset Statistical
//! Independence" (ICLR 2026), §3 and Appendix C.
//!
//! **Split-half dependence** of a subset S (n rows of activations): S1 = the first ⌊n/2⌋ rows, S2 = the next ⌊n/2⌋
//! (an odd last row is dropped; [`Split::Random`] draws a seeded random split instead), and the distribution
//! `H(S) = {HSIC(S1, S2[p_t])}_{t=1..T}` over T shuffles of S2 (default 200). Each half gets its own RBF bandwidth
//! (σ = sqrt(dim) by default, the paper's choice). Kernels are built once per subset; each shuffle costs O(h²) on
//! the centred kernel (see [`crate::backend`]).
//!
//! **Verdict** (Eq. 2, Algorithm 2): the target is *in training* when
//! `JSD(H(S_tar), H(S_IT)) < JSD(H(S_tar), H(S_OOT))`, each JSD on a 30-bin histogram over its own pair's union
//! range ([`crate::divergence::jsd`]). A tie counts as **out of training** (the strict `<` of Algorithm 2).
//!
//! **Over many targets** (Algorithm 3): the out-of-training rate (OTR) is the fraction of targets not called in
//! training; with labelled targets (the paper's controlled experiments: subsets of D_r labelled in-training and of
//! D_f labelled out-of-training under a retrained model) the F1 score has in-training as the positive class.
//!
//! The one-sided Mann–Whitney U test of `H(S_IT) > H(S_OOT)` (§3.1) is reported as a check that the two references
//! are separable at all; per target, `H(S_tar) > H(S_OOT)` is tested likewise.
//!
//! **Baselines** (Table 3): MMD and Wasserstein-1 between the target's activations and each reference's; a target
//! is called in training when it is closer to the in-training reference (ties → out of training).
//!
//! **Exact shuffle moments** ([`moments`]): the mean and variance of each subset's shuffle distribution over all
//! permutations, in closed form (the mean depends only on each half's own kernel spread; see the module docs).
//!
//! **Randomness**: subset k of an analysis draws its shuffles (and random split) from its own stream of the seed
//! ([`crate::permute`]): k = 0 is the in-training reference, 1 the out-of-training reference, 2 + i target i.

pub mod calibrated;
pub mod moments;
pub mod overlap;
pub mod placebo;
#[cfg(not(target_arch = "wasm32"))]
pub mod threaded;

pub use moments::{ShuffleMoments, shuffle_moments};

use serde::{Deserialize, Serialize};

use crate::backend::{
    Backend, BackendInfo, CpuBackend, PairStats, Precision, PreparedPair, now, pair_bytes, pair_steps,
};
use crate::check::{Budget, Cause, mul};
use crate::classification::{F1Result, f1_score, out_of_training_rate};
use crate::data::{Matrix, MatrixRef, Scalar, Source};
use crate::divergence::jsd;
use crate::error::{Error, Result};
use crate::hsic::{PermutationRun, shuffle_bytes, shuffle_steps};
use crate::kernel::{Bandwidth, rbf_steps};
use crate::mann_whitney::{MannWhitneyResult, mann_whitney_u};
use crate::mmd::{MmdEstimator, mmd, mmd_bytes};
use crate::note::{Note, NoteKind};
use crate::options::{Alternative, PValueMethod};
use crate::permute::{Permutations, RNG_ID, Stream};
use crate::progress::{Monitor, Progress, Silent};
use crate::wasserstein::{assignment_bytes, assignment_steps, wasserstein1};

/// How a subset is split into halves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// S1 = rows [0, h), S2 = rows [h, 2h): Algorithm 1 (the caller's row order should already be random).
    #[default]
    First,
    /// A seeded random split (stream `Split` of the subset's number).
    Random,
}

/// SDE parameters. Defaults are the paper's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SdeParams {
    pub bandwidth: Bandwidth,
    /// T, shuffles of S2 per subset.
    pub shuffles: usize,
    pub seed: u64,
    pub split: Split,
    /// Histogram bins of the JSD.
    pub bins: usize,
    pub precision: Precision,
    /// Also compute the MMD and Wasserstein-1 baseline verdicts (Table 3).
    pub baselines: bool,
}

impl Default for SdeParams {
    fn default() -> Self {
        Self {
            bandwidth: Bandwidth::SqrtDim,
            shuffles: 200,
            seed: 0,
            split: Split::First,
            bins: 30,
            precision: Precision::F64,
            baselines: false,
        }
    }
}

impl SdeParams {
    fn validate(&self) -> Result<()> {
        self.bandwidth.validate()?;
        if self.shuffles == 0 {
            return Err(Error::param("shuffles", 0, "at least 1 (the paper uses 200)"));
        }
        if self.bins == 0 {
            return Err(Error::param("bins", 0, "at least 1 (the default is 30)"));
        }
        Ok(())
    }
}

/// The split-half dependence distribution of one subset.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitHalf {
    /// HSIC(S1, S2[p_t]) for each shuffle done.
    pub values: Vec<f64>,
    /// Rows per half.
    pub half: usize,
    /// Rows in the subset (an odd last row is not used).
    pub rows: usize,
    pub sigma_1: f64,
    pub sigma_2: f64,
    pub kernels: PairStats,
    /// Exact mean and variance of this distribution over all shuffles ([`moments`]).
    pub moments: ShuffleMoments,
    pub shuffles_planned: usize,
    pub complete: bool,
}

/// The paper's verdict for one target. Serialized with `in_training: null` where the rule ties (or a distance is not
/// a number): a report must not state a call the rule could not make.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// JSD (natural log) between the target's and the in-training reference's distributions.
    pub jsd_target_it: f64,
    pub jsd_target_oot: f64,
    /// The same as scipy.spatial.distance.jensenshannon reports them (square roots).
    pub jsd_sqrt_target_it: f64,
    pub jsd_sqrt_target_oot: f64,
    /// `jsd_target_it < jsd_target_oot` (a tie is out of training, as in the paper's code; [`Verdict::decided`]
    /// and the report say "no call" there).
    pub in_training: bool,
}

impl Verdict {
    /// The paper's call, or `None` where the two distances tie (the same distance to both references, as on
    /// constant rows: 0 against 0) or one is not a number.
    #[must_use]
    pub fn decided(&self) -> Option<bool> {
        (self.jsd_target_it.is_finite() && self.jsd_target_oot.is_finite() && self.jsd_target_it != self.jsd_target_oot)
            .then_some(self.in_training)
    }
}

impl Serialize for Verdict {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Verdict", 5)?;
        st.serialize_field("jsd_target_it", &self.jsd_target_it)?;
        st.serialize_field("jsd_target_oot", &self.jsd_target_oot)?;
        st.serialize_field("jsd_sqrt_target_it", &self.jsd_sqrt_target_it)?;
        st.serialize_field("jsd_sqrt_target_oot", &self.jsd_sqrt_target_oot)?;
        st.serialize_field("in_training", &self.decided())?;
        st.end()
    }
}

/// The paper's decision rule (Eq. 2) on three distributions.
///
/// # Errors
/// Empty or non-finite distributions, `bins = 0`.
///
/// # Examples
/// ```
/// let it = [5.0, 5.1, 5.2, 5.3];
/// let oot = [1.0, 1.1, 1.2, 1.3];
/// let v = lethe::sde::paper_verdict(&[5.05, 5.15, 5.25, 5.2], &it, &oot, 30).unwrap();
/// assert!(v.in_training);
/// ```
pub fn paper_verdict(target: &[f64], it: &[f64], oot: &[f64], bins: usize) -> Result<Verdict> {
    let a = jsd(target, it, bins)?;
    let b = jsd(target, oot, bins)?;
    Ok(Verdict {
        jsd_target_it: a.jsd,
        jsd_target_oot: b.jsd,
        jsd_sqrt_target_it: a.jsd_sqrt,
        jsd_sqrt_target_oot: b.jsd_sqrt,
        in_training: a.jsd < b.jsd,
    })
}

/// A subset to evaluate.
#[derive(Clone, Copy, Debug)]
pub struct Target<'a, S> {
    pub name: &'a str,
    pub data: MatrixRef<'a, S>,
    /// Known membership for controlled experiments (`Some(true)` = in training); enables F1.
    pub label: Option<bool>,
}

/// Distances of the Table 3 baselines and their verdicts: in training when the target is nearer the in-training
/// reference; `None` (no call) when it is as near both (as on constant rows: 0 against 0) or a distance is not a
/// number.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BaselineVerdicts {
    pub mmd_target_it: f64,
    pub mmd_target_oot: f64,
    pub mmd_in_training: Option<bool>,
    pub wasserstein_target_it: f64,
    pub wasserstein_target_oot: f64,
    pub wasserstein_in_training: Option<bool>,
}

/// Whether `to_it` is the smaller distance; `None` on a tie or a distance that is not a number.
fn nearer_in(to_it: f64, to_oot: f64) -> Option<bool> {
    (to_it.is_finite() && to_oot.is_finite() && to_it != to_oot).then_some(to_it < to_oot)
}

/// One target's outcome.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetOutcome {
    pub name: String,
    pub label: Option<bool>,
    pub distribution: SplitHalf,
    pub verdict: Verdict,
    /// One-sided U test that the target's values exceed the out-of-training reference's.
    pub mann_whitney_target_vs_oot: MannWhitneyResult,
    pub baselines: Option<BaselineVerdicts>,
}

/// Everything an SDE run produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SdeReport {
    pub params: SdeParams,
    pub rng: &'static str,
    pub backend: BackendInfo,
    pub in_training_reference: SplitHalf,
    /// `None` only when the run was stopped before this reference started.
    pub out_of_training_reference: Option<SplitHalf>,
    /// One-sided U test of H(S_IT) > H(S_OOT): are the references separable at all? (`None` if a run stopped
    /// before both had values.)
    pub reference_separation: Option<MannWhitneyResult>,
    /// Targets evaluated (all of them unless the run was stopped).
    pub targets: Vec<TargetOutcome>,
    /// Fraction of targets called out of training (Algorithm 3).
    pub out_of_training_rate: Option<f64>,
    /// F1 with in-training positive, over labelled targets.
    pub f1: Option<F1Result>,
    pub f1_mmd: Option<F1Result>,
    pub f1_wasserstein: Option<F1Result>,
    pub complete: bool,
    pub warnings: Vec<Note>,
    /// The placebo check of the calls, filled in by the analysis layer (absent where there was nothing to check,
    /// and from the core alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placebos: Option<placebo::Placebos>,
}

/// A subset given as rows of a source, evaluated without copying the source: each half's rows are read by column
/// panels only while its kernels are built. Many subsets drawn from one pool (Algorithm 3's targets, controlled
/// experiments) then cost the pool's memory once, not once per subset; a source read in place from its file
/// ([`Source::File`]) costs a panel's memory, whatever its size.
#[derive(Clone, Copy, Debug)]
pub struct RowSubset<'a, S> {
    pub name: &'a str,
    pub source: Source<'a, S>,
    /// Rows of `source`, in this order (repeats allowed); `None` = every row, in order.
    pub rows: Option<&'a [usize]>,
    /// Known membership for controlled experiments (`Some(true)` = in training); enables F1.
    pub label: Option<bool>,
}

impl<'a, S: Scalar> RowSubset<'a, S> {
    /// Every row of `data`.
    pub fn all(name: &'a str, data: MatrixRef<'a, S>, label: Option<bool>) -> Self {
        Self {
            name,
            source: Source::Memory(data),
            rows: None,
            label,
        }
    }

    /// Rows in the subset.
    pub fn len(&self) -> usize {
        self.rows.map_or(self.source.rows(), <[usize]>::len)
    }

    /// Whether the subset has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Validates as [`crate::check::matrix`] does for a copied subset: at least `min_rows` rows, a column, every
    /// index inside the source, all values finite (non-finite values are located by subset row and source row).
    /// Values read in place from a file are checked as they are read.
    pub(super) fn check(&self, min_rows: usize, procedure: &'static str) -> Result<()> {
        if let (Source::Memory(m), None) = (self.source, self.rows) {
            return crate::check::matrix(self.name, m, min_rows, procedure);
        }
        let rows = self.len();
        if let Some(&bad) = self.rows.unwrap_or(&[]).iter().find(|&&r| r >= self.source.rows()) {
            return Err(Error::IndexOutOfRange {
                input: self.name.to_string(),
                index: bad,
                len: self.source.rows(),
            });
        }
        crate::check::shape(self.name, rows, self.source.cols(), min_rows, procedure)?;
        let (Source::Memory(m), Some(sel)) = (self.source, self.rows) else {
            return Ok(());
        };
        for (k, &r) in sel.iter().enumerate() {
            // A branch-free pass (it vectorises; a search for the first bad value does not), then the search only
            // in a row that has one.
            let row = m.row(r);
            if row.iter().fold(true, |ok, v| ok & v.to_f64().is_finite()) {
                continue;
            }
            if let Some(c) = row.iter().position(|v| !v.to_f64().is_finite()) {
                return Err(Error::NonFinite {
                    input: self.name.to_string(),
                    value: row[c].to_f64(),
                    location: format!("row {k} (row {r} of its source), column {c}, all counting from 0"),
                });
            }
        }
        Ok(())
    }

    /// The subset as a matrix (for the baselines, which need whole rows): borrowed when it is every row of a
    /// matrix in memory, else gathered or read.
    ///
    /// # Errors
    /// A row index past the end of the source; read errors and non-finite values of a source read in place.
    pub fn gathered(&self) -> Result<Gathered<'a, S>> {
        match (self.source, self.rows) {
            (Source::Memory(m), None) => Ok(Gathered::Borrowed(m)),
            (Source::Memory(m), Some(rows)) => Ok(Gathered::Owned(m.select_rows(rows, self.name)?)),
            (source, rows) => {
                let mut v = Vec::new();
                source.columns(self.name, rows)?.read(0, source.cols(), &mut v)?;
                Ok(Gathered::Owned(Matrix::from_vec(self.len(), source.cols(), v)?))
            }
        }
    }
}

/// A subset's rows as a matrix ([`RowSubset::gathered`]).
pub enum Gathered<'a, S> {
    Borrowed(MatrixRef<'a, S>),
    Owned(Matrix<S>),
}

impl<S: Scalar> Gathered<'_, S> {
    pub fn view(&self) -> MatrixRef<'_, S> {
        match self {
            Gathered::Borrowed(m) => *m,
            Gathered::Owned(m) => m.view(),
        }
    }
}

/// Rows of the source in each half of a subset that [`RowSubset::check`] has passed (at least 4 rows, indices in
/// range): the first ⌊n/2⌋ rows and the next ⌊n/2⌋, or a seeded random split.
pub(super) fn split_rows<S: Scalar>(
    data: &RowSubset<'_, S>,
    split: Split,
    seed: u64,
    subset: u64,
) -> (Vec<usize>, Vec<usize>) {
    let h = data.len() / 2;
    // Positions (into the subset) of each half's rows.
    let (first, second): (Vec<usize>, Vec<usize>) = match split {
        Split::First => ((0..h).collect(), (h..2 * h).collect()),
        Split::Random => {
            let mut order = vec![0u32; data.len()];
            Permutations::for_subset(seed, Stream::Split, subset).fill(&mut order);
            let idx: Vec<usize> = order.iter().map(|&i| i as usize).collect();
            (idx[..h].to_vec(), idx[h..2 * h].to_vec())
        }
    };
    let source_rows = |pos: Vec<usize>| match data.rows {
        None => pos,
        Some(rows) => pos.into_iter().map(|k| rows[k]).collect(),
    };
    (source_rows(first), source_rows(second))
}

/// Work units of a subset, for progress fractions: the shuffle loop dominates, O(h²) per shuffle.
fn work(rows: usize, shuffles: usize) -> f64 {
    let h = (rows / 2) as f64;
    h * h * shuffles as f64
}

/// Computes one subset's split-half distribution on `backend`; `span` is this subset's share of the overall
/// progress. Returns the distribution (marked incomplete if the monitor stopped it).
async fn split_half_on<B: Backend, M: Monitor, S: Scalar>(
    backend: &mut B,
    monitor: &mut M,
    name: &str,
    data: MatrixRef<'_, S>,
    params: &SdeParams,
    subset: u64,
    span: (f64, f64),
) -> Result<SplitHalf> {
    let data = RowSubset::all(name, data, None);
    data.check(4, SPLIT_HALF)?;
    check_size(
        &[&data],
        &SdeParams {
            baselines: false,
            ..*params
        },
        1,
    )?;
    split_half_rows_on(backend, monitor, &data, params, subset, span).await
}

/// What [`RowSubset::check`] says a subset is too small for.
const SPLIT_HALF: &str = "split-half dependence (two halves of at least 2 rows)";

/// [`split_half_on`] of a subset given as rows of a source, already checked ([`RowSubset::check`]; each subset is
/// checked once, before any work); the halves exist only while the kernels are built.
pub(super) async fn split_half_rows_on<B: Backend, M: Monitor, S: Scalar>(
    backend: &mut B,
    monitor: &mut M,
    data: &RowSubset<'_, S>,
    params: &SdeParams,
    subset: u64,
    span: (f64, f64),
) -> Result<SplitHalf> {
    // The halves are read from the source by column panels while the kernels are built (no gathered copies).
    let pair = {
        let (first, second) = split_rows(data, params.split, params.seed, subset);
        let mut s1 = data.source.columns(data.name, Some(&first))?;
        let mut s2 = data.source.columns(data.name, Some(&second))?;
        backend
            .prepare_columns(&mut *s1, &mut *s2, params.bandwidth, params.bandwidth)
            .await?
    };
    let name = data.name;
    let mut run = PermutationRun::new(pair, params.seed, subset, params.shuffles);
    let batch = backend.preferred_batch();
    run.run(backend, monitor, batch, span, name).await?;
    let kernels = run.pair().stats();
    let complete = run.is_done();
    Ok(SplitHalf {
        half: kernels.n,
        rows: data.len(),
        sigma_1: kernels.x.sigma,
        sigma_2: kernels.y.sigma,
        kernels,
        moments: shuffle_moments(&kernels.kc_sums, &kernels.l_sums),
        shuffles_planned: params.shuffles,
        complete,
        values: run.into_values(),
    })
}

/// The split-half dependence distribution of one subset, on the CPU.
///
/// # Errors
/// Fewer than 4 rows, non-finite values, invalid parameters.
///
/// # Examples
/// ```
/// use lethe::{sde::{split_half, SdeParams}, Matrix};
/// let s = Matrix::from_rows(&(0..40).map(|i| [(i as f64 * 0.7).sin(), i as f64 % 5.0]).collect::<Vec<_>>()).unwrap();
/// let h = split_half(s.view(), &SdeParams { shuffles: 50, ..Default::default() }).unwrap();
/// assert_eq!((h.values.len(), h.half), (50, 20));
/// ```
pub fn split_half<S: Scalar>(subset: MatrixRef<'_, S>, params: &SdeParams) -> Result<SplitHalf> {
    params.validate()?;
    let mut backend = CpuBackend::new(params.precision);
    now(split_half_on(
        &mut backend,
        &mut Silent,
        "subset",
        subset,
        params,
        0,
        (0.0, 1.0),
    ))
}

fn baseline<S: Scalar>(
    target: MatrixRef<'_, S>,
    it: MatrixRef<'_, S>,
    oot: MatrixRef<'_, S>,
    params: &SdeParams,
) -> Result<BaselineVerdicts> {
    let m_it = mmd(target, it, params.bandwidth, MmdEstimator::Biased)?.mmd2;
    let m_oot = mmd(target, oot, params.bandwidth, MmdEstimator::Biased)?.mmd2;
    let w_it = wasserstein1(target, it)?.distance;
    let w_oot = wasserstein1(target, oot)?.distance;
    Ok(BaselineVerdicts {
        mmd_target_it: m_it,
        mmd_target_oot: m_oot,
        mmd_in_training: nearer_in(m_it, m_oot),
        wasserstein_target_it: w_it,
        wasserstein_target_oot: w_oot,
        wasserstein_in_training: nearer_in(w_it, w_oot),
    })
}

fn labelled_f1(targets: &[TargetOutcome], pred: impl Fn(&TargetOutcome) -> Option<bool>) -> Result<Option<F1Result>> {
    let pairs: Vec<(bool, bool)> = targets.iter().filter_map(|t| Some((t.label?, pred(t)?))).collect();
    if pairs.is_empty() {
        return Ok(None);
    }
    let (truth, p): (Vec<bool>, Vec<bool>) = pairs.into_iter().unzip();
    f1_score(&truth, &p).map(Some)
}

/// One subset's split-half distribution exactly as [`sde_with`] computes subset number `subset` of an analysis
/// (0: the in-training reference, 1: the out-of-training reference, 2 + i: target i; the number picks the
/// subset's shuffle stream), so that the subsets of one analysis can be computed apart — by several workers, say —
/// and give the same values. `span` is this subset's share of the monitor's progress. The subset is rows of a
/// source ([`RowSubset`]): the same values as on a copy of those rows; a source read in place costs a panel of
/// memory.
///
/// # Errors
/// Invalid parameters, fewer than 4 rows, a row index past the end of the source, non-finite values, backend
/// failures.
pub async fn split_half_with<B: Backend, M: Monitor, S: Scalar>(
    backend: &mut B,
    monitor: &mut M,
    data: &RowSubset<'_, S>,
    params: &SdeParams,
    subset: u64,
    span: (f64, f64),
) -> Result<SplitHalf> {
    params.validate()?;
    data.check(4, SPLIT_HALF)?;
    check_size(
        &[data],
        &SdeParams {
            baselines: false,
            ..*params
        },
        1,
    )?;
    split_half_rows_on(backend, monitor, data, params, subset, span).await
}

/// The MMD and Wasserstein-1 baseline verdicts of one target (Table 3), as [`sde_with`] computes them with
/// `params.baselines` (subsets given as rows: [`RowSubset::gathered`], the references once for all targets).
///
/// # Errors
/// Inputs of different widths, empty or non-finite inputs.
pub fn baseline_verdicts<S: Scalar>(
    target: MatrixRef<'_, S>,
    in_training: MatrixRef<'_, S>,
    out_of_training: MatrixRef<'_, S>,
    params: &SdeParams,
) -> Result<BaselineVerdicts> {
    baseline(target, in_training, out_of_training, params)
}

/// A target's outcome from its distribution and the references': the paper's verdict (Eq. 2) and the one-sided
/// Mann–Whitney test against the out-of-training reference, with the baselines if computed.
///
/// # Errors
/// Empty or non-finite distributions, `bins = 0`.
pub fn target_outcome(
    name: &str,
    label: Option<bool>,
    distribution: SplitHalf,
    baselines: Option<BaselineVerdicts>,
    in_training: &SplitHalf,
    out_of_training: &SplitHalf,
    params: &SdeParams,
) -> Result<TargetOutcome> {
    let verdict = paper_verdict(
        &distribution.values,
        &in_training.values,
        &out_of_training.values,
        params.bins,
    )?;
    let mw = mann_whitney_u(
        &distribution.values,
        &out_of_training.values,
        Alternative::Greater,
        PValueMethod::Auto,
        true,
    )?;
    Ok(TargetOutcome {
        name: name.to_string(),
        label,
        distribution,
        verdict,
        mann_whitney_target_vs_oot: mw,
        baselines,
    })
}

/// The report of an SDE run from its parts: the reference separation test (and its warning), OTR and F1 over the
/// targets' verdicts (and the baselines'). `warnings` are [`check_subsets`]'.
///
/// # Errors
/// Only from the statistics on malformed parts (non-finite distributions).
pub fn report(
    params: &SdeParams,
    backend: BackendInfo,
    in_training: SplitHalf,
    out_of_training: Option<SplitHalf>,
    targets: Vec<TargetOutcome>,
    complete: bool,
    mut warnings: Vec<Note>,
) -> Result<SdeReport> {
    let reference_separation = match &out_of_training {
        Some(o) if !in_training.values.is_empty() && !o.values.is_empty() => Some(mann_whitney_u(
            &in_training.values,
            &o.values,
            Alternative::Greater,
            PValueMethod::Auto,
            true,
        )?),
        _ => None,
    };
    if let Some(sep) = reference_separation.as_ref().filter(|s| s.p_value >= 0.01) {
        warnings.push(Note::new(
            NoteKind::ReferencesNotSeparable,
            format!(
                "the references are not clearly separable: one-sided Mann–Whitney p = {:.2e} for H(IT) > H(OOT) \
             (the paper requires p < 0.01); verdicts on this data are close to chance",
                sep.p_value
            ),
        ));
    }
    // A tie is no call: it counts neither way in the OTR (no rate where no target was called).
    let calls: Vec<bool> = targets.iter().filter_map(|t| t.verdict.decided()).collect();
    Ok(SdeReport {
        params: *params,
        rng: RNG_ID,
        backend,
        out_of_training_rate: if calls.is_empty() {
            None
        } else {
            Some(out_of_training_rate(&calls)?)
        },
        f1: labelled_f1(&targets, |t| t.verdict.decided())?,
        f1_mmd: labelled_f1(&targets, |t| t.baselines.and_then(|b| b.mmd_in_training))?,
        f1_wasserstein: labelled_f1(&targets, |t| t.baselines.and_then(|b| b.wasserstein_in_training))?,
        in_training_reference: in_training,
        out_of_training_reference: out_of_training,
        reference_separation,
        targets,
        complete,
        warnings,
        placebos: None,
    })
}

/// Refuses a run over `subsets` (already checked one by one) whose kernels, shuffle values and baselines need more
/// memory or work than one computation may take ([`crate::check::limits`]), `threads` subsets at a time.
fn check_size<S: Scalar>(subsets: &[&RowSubset<'_, S>], params: &SdeParams, threads: usize) -> Result<()> {
    let mut b = Budget::default();
    add_size(&mut b, subsets, params, threads);
    b.check()
}

/// Adds an SDE run's needs over `subsets` (see [`check_size`]) to `b`.
pub(crate) fn add_size<S: Scalar>(b: &mut Budget, subsets: &[&RowSubset<'_, S>], params: &SdeParams, threads: usize) {
    let Some(largest) = subsets.iter().max_by_key(|t| t.len()) else {
        return;
    };
    let d = largest.source.cols();
    let in_bytes = size_of::<S>();
    let (t, count) = (params.shuffles, subsets.len());
    let batch = CpuBackend::new(params.precision).preferred_batch();
    let threads = threads.clamp(1, count);
    let bws = (params.bandwidth, params.bandwidth);
    // Memory: the kernels of the `threads` largest subsets at once, each with its batch of permutations.
    let mut sizes: Vec<&RowSubset<'_, S>> = subsets.to_vec();
    sizes.sort_by_key(|t| std::cmp::Reverse(t.len()));
    for s in &sizes[..threads] {
        let h = s.len() / 2;
        b.add(
            Cause::input(s.name),
            format!("a split half of {h} rows"),
            pair_bytes(h, (d, d), in_bytes, params.precision, bws).saturating_add(shuffle_bytes(h, 0, batch, 1)),
            0,
            if threads > 1 {
                "use subsets of fewer rows (kernels grow as rows²) or fewer threads (each holds one subset's kernels)"
            } else {
                "use subsets of fewer rows (kernels grow as rows²)"
            },
        );
    }
    // The shuffle values every subset keeps, and the work of the kernels and of the shuffles.
    let kernel_steps = subsets
        .iter()
        .fold(0u64, |a, s| a.saturating_add(pair_steps(s.len() / 2, (d, d))));
    let shuffle_work = subsets
        .iter()
        .fold(0u64, |a, s| a.saturating_add(shuffle_steps(s.len() / 2, t)));
    b.add(
        Cause::input(largest.name),
        format!("building the kernels of {count} subsets"),
        0,
        kernel_steps,
        "use fewer or smaller subsets",
    );
    b.add(
        Cause::param("shuffles", t),
        format!("{t} shuffles of each of {count} subsets"),
        mul(t, count).saturating_mul(8),
        shuffle_work,
        "use fewer shuffles (the paper uses 200)",
    );
    if params.baselines {
        // The references gathered once; per target, its rows gathered, its MMD kernel and its assignment problem.
        let (it, oot) = (subsets[0], subsets.get(1).copied().unwrap_or(subsets[0]));
        let refs = mul(it.len().saturating_add(oot.len()), d).saturating_mul(in_bytes as u64);
        let targets = subsets.get(2..).unwrap_or(&[]);
        let mut per: Vec<(u64, u64, &str, usize)> = targets
            .iter()
            .map(|s| {
                let r = it.len().max(oot.len());
                let bytes = mmd_bytes(s.len(), r, d, params.bandwidth).max(assignment_bytes(s.len()));
                let steps = rbf_steps(s.len().saturating_add(r), d)
                    .saturating_add(assignment_steps(s.len(), d))
                    .saturating_mul(2);
                (
                    mul(s.len(), d).saturating_mul(in_bytes as u64).saturating_add(bytes),
                    steps,
                    s.name,
                    s.len(),
                )
            })
            .collect();
        per.sort_by_key(|p| std::cmp::Reverse(p.0));
        let fix = "leave out the MMD and Wasserstein baselines, or use subsets of fewer rows (the exact Wasserstein \
                   distance takes time growing as rows³)";
        if let Some(&(_, _, name, rows)) = per.first() {
            // The references, and the `threads` largest targets' baselines at once.
            let held = per[..threads.min(per.len())]
                .iter()
                .fold(refs, |a, p| a.saturating_add(p.0));
            let steps = per.iter().fold(0u64, |a, p| a.saturating_add(p.1));
            b.add(
                Cause::input(name),
                format!("the baselines of a target of {rows} rows"),
                held,
                steps,
                fix,
            );
        }
    }
}

/// Each subset's share of the progress of an SDE run, `(start, width)` in evaluation order (references, then the
/// targets): the shuffle loop dominates, O(h²) per shuffle.
pub fn progress_spans(rows: &[usize], shuffles: usize) -> Vec<(f64, f64)> {
    let weights: Vec<f64> = rows.iter().map(|&r| work(r, shuffles)).collect();
    let total: f64 = weights.iter().sum();
    weights
        .iter()
        .scan(0.0, |start, w| {
            let s = (*start, w / total);
            *start += w / total;
            Some(s)
        })
        .collect()
}

/// Checks an SDE run's inputs before any work — parameters, equal widths, every subset of at least 4 finite rows
/// inside its source (values read in place are checked as they are read) — and returns the warnings its report
/// carries about them (odd row counts). [`sde_with`] starts with this; callers that compute the subsets apart
/// ([`split_half_with`]) call it once.
///
/// # Errors
/// Invalid parameters; a subset with fewer than 4 rows, non-finite values or a row index past the end of its
/// source (named); inputs of different widths.
pub fn check_subsets<S: Scalar>(
    in_training: &RowSubset<'_, S>,
    out_of_training: &RowSubset<'_, S>,
    targets: &[RowSubset<'_, S>],
    params: &SdeParams,
) -> Result<Vec<Note>> {
    check_subsets_on(in_training, out_of_training, targets, params, 1)
}

/// [`check_subsets`] for a run that computes `threads` subsets at a time (each thread holds one subset's kernels).
///
/// # Errors
/// As [`check_subsets`].
pub fn check_subsets_on<S: Scalar>(
    in_training: &RowSubset<'_, S>,
    out_of_training: &RowSubset<'_, S>,
    targets: &[RowSubset<'_, S>],
    params: &SdeParams,
    threads: usize,
) -> Result<Vec<Note>> {
    params.validate()?;
    let d = in_training.source.cols();
    for (name, cols) in std::iter::once((out_of_training.name, out_of_training.source.cols()))
        .chain(targets.iter().map(|t| (t.name, t.source.cols())))
    {
        if cols != d {
            return Err(Error::ShapeMismatch {
                message: format!(
                    "`{}` has {cols} columns but `{}` has {d}; all subsets must be activations of the same layer",
                    crate::words::role(name),
                    crate::words::role(in_training.name)
                ),
            });
        }
    }
    // Validate every subset before any work (the targets first, so a bad target is named even when a reference
    // is bad too, as when the references were checked only as they were split).
    for t in targets.iter().chain([in_training, out_of_training]) {
        t.check(4, SPLIT_HALF)?;
    }
    let all: Vec<&RowSubset<'_, S>> = [in_training, out_of_training].into_iter().chain(targets).collect();
    check_size(&all, params, threads)?;
    let mut warnings = Vec::new();
    // Named as marked roles (`words::role`): each front end says them its own way.
    let odd: Vec<String> = [in_training, out_of_training]
        .into_iter()
        .chain(targets)
        .filter(|t| t.len() % 2 == 1)
        .map(|t| crate::words::role(t.name))
        .collect();
    if !odd.is_empty() {
        warnings.push(Note::new(
            NoteKind::OddRows,
            format!(
                "odd row counts: the last row of {} is not used (halves must be equal)",
                odd.join(", ")
            ),
        ));
    }
    Ok(warnings)
}

/// Runs SDE on any backend: the two reference distributions, then each target's distribution and verdict, OTR,
/// F1 over labelled targets and (optionally) the baselines. If `monitor` stops the run, the report holds the
/// targets finished so far (`complete: false`); stopped inside a reference, it has no targets.
///
/// The steps are public ([`check_subsets`], [`split_half_with`], [`baseline_verdicts`], [`target_outcome`],
/// [`report`]) so that the subsets can be computed apart and assembled into the same report.
///
/// # Errors
/// Invalid parameters; a subset with fewer than 4 rows or non-finite values (named); inputs of different widths.
pub async fn sde_with<B: Backend, M: Monitor, S: Scalar>(
    backend: &mut B,
    monitor: &mut M,
    in_training: MatrixRef<'_, S>,
    out_of_training: MatrixRef<'_, S>,
    targets: &[Target<'_, S>],
    params: &SdeParams,
) -> Result<SdeReport> {
    let targets: Vec<RowSubset<'_, S>> = targets
        .iter()
        .map(|t| RowSubset::all(t.name, t.data, t.label))
        .collect();
    sde_subsets_with(
        backend,
        monitor,
        RowSubset::all("in_training", in_training, None),
        RowSubset::all("out_of_training", out_of_training, None),
        &targets,
        params,
    )
    .await
}

/// [`sde_with`] on subsets given as rows of one or more sources ([`RowSubset`]): e.g. many targets drawn from one
/// pool ([`draw_targets`]) without a copy of each. Each subset's rows are gathered only while its kernels are built,
/// so memory stays at the sources plus one subset. The results are those of [`sde_with`] on copies of the same rows,
/// bit for bit. The references' names in messages are their `name`s.
///
/// # Errors
/// As [`sde_with`]; a row index past the end of its source ([`Error::IndexOutOfRange`], naming the subset).
pub async fn sde_subsets_with<B: Backend, M: Monitor, S: Scalar>(
    backend: &mut B,
    monitor: &mut M,
    in_training: RowSubset<'_, S>,
    out_of_training: RowSubset<'_, S>,
    targets: &[RowSubset<'_, S>],
    params: &SdeParams,
) -> Result<SdeReport> {
    let warnings = check_subsets(&in_training, &out_of_training, targets, params)?;
    let rows: Vec<usize> = [in_training.len(), out_of_training.len()]
        .into_iter()
        .chain(targets.iter().map(RowSubset::len))
        .collect();
    let spans = progress_spans(&rows, params.shuffles);

    let it = split_half_rows_on(backend, monitor, &in_training, params, 0, spans[0]).await?;
    let oot = if it.complete {
        Some(split_half_rows_on(backend, monitor, &out_of_training, params, 1, spans[1]).await?)
    } else {
        None
    };
    let mut complete = oot.as_ref().is_some_and(|o| o.complete);
    let mut outcomes = Vec::with_capacity(targets.len());
    // The baselines compare each target with the whole references: gathered once.
    let refs = if params.baselines && complete {
        Some((in_training.gathered()?, out_of_training.gathered()?))
    } else {
        None
    };
    if let (true, Some(oot)) = (complete, &oot) {
        for (i, t) in targets.iter().enumerate() {
            let dist = split_half_rows_on(backend, monitor, t, params, 2 + i as u64, spans[2 + i]).await?;
            if !dist.complete {
                complete = false;
                break;
            }
            let baselines = match &refs {
                Some((r_it, r_oot)) => Some(baseline(t.gathered()?.view(), r_it.view(), r_oot.view(), params)?),
                None => None,
            };
            outcomes.push(target_outcome(t.name, t.label, dist, baselines, &it, oot, params)?);
            let (start, width) = spans[2 + i];
            let p = Progress {
                fraction: start + width,
                phase: format!("target {}/{}", i + 1, targets.len()),
            };
            if !monitor.checkpoint(&p).await {
                complete = i + 1 == targets.len();
                break;
            }
        }
    }
    report(params, backend.info(), it, oot, outcomes, complete, warnings)
}

/// [`sde_with`] on the CPU, run to completion.
///
/// # Errors
/// See [`sde_with`].
pub fn sde<S: Scalar>(
    in_training: MatrixRef<'_, S>,
    out_of_training: MatrixRef<'_, S>,
    targets: &[Target<'_, S>],
    params: &SdeParams,
) -> Result<SdeReport> {
    let mut backend = CpuBackend::new(params.precision);
    now(sde_with(
        &mut backend,
        &mut Silent,
        in_training,
        out_of_training,
        targets,
        params,
    ))
}

/// [`sde_subsets_with`] on the CPU, run to completion.
///
/// # Errors
/// See [`sde_subsets_with`].
pub fn sde_subsets<S: Scalar>(
    in_training: RowSubset<'_, S>,
    out_of_training: RowSubset<'_, S>,
    targets: &[RowSubset<'_, S>],
    params: &SdeParams,
) -> Result<SdeReport> {
    let mut backend = CpuBackend::new(params.precision);
    now(sde_subsets_with(
        &mut backend,
        &mut Silent,
        in_training,
        out_of_training,
        targets,
        params,
    ))
}

/// Draws `count` target subsets of `size` positions from a pool of `pool_len` rows (positions into the pool), for
/// targets labelled `label`. The seed is offset by the label (+0 unlabelled, +1 in-training, +2 out-of-training)
/// so that drawing in- and out-of-training targets with one seed gives independent draws; the CLI and the widget
/// both use this, so the same seed draws the same targets.
///
/// # Errors
/// As [`draw_subsets`].
pub fn draw_targets(
    label: Option<bool>,
    pool_len: usize,
    count: usize,
    size: usize,
    seed: u64,
) -> Result<Vec<Vec<usize>>> {
    if size > 0 && size <= pool_len {
        check_draws("draw", pool_len, count, size)?;
    }
    let offset = match label {
        None => 0,
        Some(true) => 1,
        Some(false) => 2,
    };
    let positions: Vec<usize> = (0..pool_len).collect();
    draw_subsets(&positions, count, size, seed.wrapping_add(offset))
}

/// Draws `count` subsets of `size` distinct rows from `pool` (row indices), each independently, seeded
/// (stream `Subsets`). Used for Algorithm 3's targets and for controlled experiments.
///
/// # Errors
/// `size` larger than the pool, or zero `size`/`count`.
/// Bytes of `count` drawn subsets of `size` rows from a pool of `pool` rows: the subsets' row numbers and the
/// pool's positions, copied once per draw. Saturating.
pub fn draw_bytes(pool: usize, count: usize, size: usize) -> u64 {
    mul(count, size.saturating_add(3))
        .saturating_mul(8)
        .saturating_add(mul(pool, 12))
}

/// Steps of work of `count` draws of `size` rows from a pool of `pool` rows (each draw numbers the pool).
pub fn draw_steps(pool: usize, count: usize, size: usize) -> u64 {
    mul(count, pool.saturating_add(size))
}

/// Refuses `count` draws (parameter `name`) that need more memory or work than one computation may take.
fn check_draws(name: &'static str, pool: usize, count: usize, size: usize) -> Result<()> {
    Budget::default()
        .add(
            Cause::param(name, count),
            format!("drawing {count} subsets of {size} rows"),
            draw_bytes(pool, count, size),
            draw_steps(pool, count, size),
            "draw fewer subsets",
        )
        .check()
}

pub fn draw_subsets(pool: &[usize], count: usize, size: usize, seed: u64) -> Result<Vec<Vec<usize>>> {
    if size == 0 || count == 0 {
        return Err(Error::param(
            "size/count",
            format!("{size}/{count}"),
            "positive subset size and count",
        ));
    }
    if size > pool.len() {
        return Err(Error::TooSmall {
            input: "pool".into(),
            got: pool.len(),
            need: size,
            unit: "rows",
            procedure: "drawing subsets of the requested size",
        });
    }
    check_draws("count", pool.len(), count, size)?;
    let mut rng = Permutations::new(seed, Stream::Subsets);
    Ok((0..count)
        .map(|_| rng.subset(pool.len(), size).into_iter().map(|i| pool[i]).collect())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows with a shared latent factor per pair of rows across halves (dependent) vs independent rows.
    fn subset(n: usize, coupled: bool, seed: u64) -> Matrix {
        let mut s = seed;
        let mut u = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let h = n / 2;
        let latent: Vec<f64> = (0..h).map(|_| u() * 6.0).collect();
        let mut rows = Vec::new();
        for i in 0..n {
            let z = if coupled { latent[i % h] } else { u() * 6.0 };
            rows.push(vec![z + u() * 0.1, z * 0.5 + u() * 0.1, u()]);
        }
        Matrix::from_rows(&rows).unwrap()
    }

    #[test]
    fn odd_rows_drop_the_last_and_small_subsets_fail() {
        let s = subset(11, false, 1);
        let h = split_half(
            s.view(),
            &SdeParams {
                shuffles: 5,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!((h.half, h.rows), (5, 11));
        let tiny = subset(3, false, 1);
        let e = split_half(tiny.view(), &SdeParams::default()).unwrap_err().to_string();
        assert!(e.contains("at least 4"), "{e}");
    }

    #[test]
    fn random_split_is_seeded() {
        let s = subset(40, true, 2);
        let p = SdeParams {
            split: Split::Random,
            shuffles: 20,
            seed: 9,
            ..Default::default()
        };
        let a = split_half(s.view(), &p).unwrap();
        let b = split_half(s.view(), &p).unwrap();
        assert_eq!(a.values, b.values);
        let c = split_half(s.view(), &SdeParams { seed: 10, ..p }).unwrap();
        assert_ne!(a.values, c.values);
    }

    #[test]
    fn end_to_end_on_synthetic_subsets() {
        // Shuffling destroys the coupling, so the shuffle distributions of coupled vs independent subsets mostly
        // differ through each half's kernel spread; here the coupled subsets have a narrower spread (shared latent)
        // and the verdicts follow that.
        let it = subset(60, true, 3);
        let oot = subset(60, false, 4);
        let t_in = subset(60, true, 5);
        let t_out = subset(60, false, 6);
        let targets = [
            Target {
                name: "t_in",
                data: t_in.view(),
                label: Some(true),
            },
            Target {
                name: "t_out",
                data: t_out.view(),
                label: Some(false),
            },
        ];
        let p = SdeParams {
            shuffles: 100,
            baselines: true,
            ..Default::default()
        };
        let r = sde(it.view(), oot.view(), &targets, &p).unwrap();
        assert!(r.complete);
        assert_eq!(r.targets.len(), 2);
        assert!(r.f1.is_some() && r.f1_mmd.is_some() && r.f1_wasserstein.is_some());
        let otr = r.out_of_training_rate.unwrap();
        assert!((0.0..=1.0).contains(&otr));
        // Same seed, same report.
        assert_eq!(sde(it.view(), oot.view(), &targets, &p).unwrap(), r);
    }

    #[test]
    fn stopping_keeps_finished_targets() {
        let it = subset(40, true, 3);
        let oot = subset(40, false, 4);
        let ts: Vec<Matrix> = (0..4).map(|k| subset(40, k % 2 == 0, 10 + k)).collect();
        let targets: Vec<Target<'_, f64>> = ts
            .iter()
            .map(|m| Target {
                name: "t",
                data: m.view(),
                label: None,
            })
            .collect();
        let p = SdeParams {
            shuffles: 32,
            ..Default::default()
        };
        // One checkpoint per subset's batch plus one per finished target: stop after the second target.
        let mut calls = 0;
        let mut stop = |pr: &Progress| {
            calls += 1;
            !pr.phase.starts_with("target 2/")
        };
        let r = now(sde_with(
            &mut CpuBackend::default(),
            &mut stop,
            it.view(),
            oot.view(),
            &targets,
            &p,
        ))
        .unwrap();
        assert!(!r.complete);
        assert_eq!(r.targets.len(), 2);
        assert!(calls >= 6);
    }

    #[test]
    fn mismatched_widths_and_bad_targets_fail_before_work() {
        let it = subset(20, true, 1);
        let narrow = Matrix::from_rows(&vec![[0.0, 1.0]; 20]).unwrap();
        let targets = [Target {
            name: "narrow",
            data: narrow.view(),
            label: None,
        }];
        let e = sde(it.view(), it.view(), &targets, &SdeParams::default())
            .unwrap_err()
            .to_string();
        assert!(e.contains("narrow") && e.contains("columns"), "{e}");
    }

    /// Targets drawn from a pool and evaluated as rows of it give the report of the same rows copied out, bit for
    /// bit: both precisions, both splits, baselines on, references given as rows too.
    #[test]
    fn row_subsets_of_a_pool_match_copied_rows() {
        let pool = subset(90, true, 21);
        let pool32: Matrix<f32> = pool.cast();
        let draws = draw_targets(Some(true), pool.rows(), 3, 30, 5).unwrap();
        let refs: [Vec<usize>; 2] = [(0..30).collect(), (40..70).rev().collect()];
        for split in [Split::First, Split::Random] {
            for precision in [Precision::F64, Precision::F32] {
                let p = SdeParams {
                    shuffles: 40,
                    split,
                    precision,
                    baselines: true,
                    seed: 3,
                    ..Default::default()
                };
                let copies: Vec<Matrix<f32>> = draws.iter().map(|r| pool32.select_rows(r, "pool").unwrap()).collect();
                let targets: Vec<Target<'_, f32>> = copies
                    .iter()
                    .enumerate()
                    .map(|(k, m)| Target {
                        name: ["a", "b", "c"][k],
                        data: m.view(),
                        label: Some(k != 1),
                    })
                    .collect();
                let (it, oot) = (
                    pool32.select_rows(&refs[0], "it").unwrap(),
                    pool32.select_rows(&refs[1], "oot").unwrap(),
                );
                let want = sde(it.view(), oot.view(), &targets, &p).unwrap();
                let rows: Vec<RowSubset<'_, f32>> = draws
                    .iter()
                    .enumerate()
                    .map(|(k, r)| RowSubset {
                        name: ["a", "b", "c"][k],
                        source: Source::Memory(pool32.view()),
                        rows: Some(r),
                        label: Some(k != 1),
                    })
                    .collect();
                let got = now(sde_subsets_with(
                    &mut CpuBackend::new(precision),
                    &mut Silent,
                    RowSubset {
                        name: "in_training",
                        source: Source::Memory(pool32.view()),
                        rows: Some(&refs[0]),
                        label: None,
                    },
                    RowSubset {
                        name: "out_of_training",
                        source: Source::Memory(pool32.view()),
                        rows: Some(&refs[1]),
                        label: None,
                    },
                    &rows,
                    &p,
                ))
                .unwrap();
                assert_eq!(got, want, "{split:?} {precision:?}");
            }
        }
        // Bad rows are named errors before any work.
        let bad = [0usize, 1, 2, 900];
        let t = [RowSubset {
            name: "drawn[0]",
            source: Source::Memory(pool.view()),
            rows: Some(&bad[..]),
            label: None,
        }];
        let e = now(sde_subsets_with(
            &mut CpuBackend::default(),
            &mut Silent,
            RowSubset::all("in_training", pool.view(), None),
            RowSubset::all("out_of_training", pool.view(), None),
            &t,
            &SdeParams::default(),
        ))
        .unwrap_err()
        .to_string();
        assert!(e.contains("drawn[0]") && e.contains("900"), "{e}");
        let mut nan = pool.clone();
        nan.as_mut_slice()[5 * 3 + 1] = f64::NAN;
        let t = [RowSubset {
            name: "drawn[1]",
            source: Source::Memory(nan.view()),
            rows: Some(&[9, 5, 1, 2][..]),
            label: None,
        }];
        let e = now(sde_subsets_with(
            &mut CpuBackend::default(),
            &mut Silent,
            RowSubset::all("in_training", pool.view(), None),
            RowSubset::all("out_of_training", pool.view(), None),
            &t,
            &SdeParams::default(),
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("drawn[1]") && e.contains("row 1 (row 5 of its source), column 1"),
            "{e}"
        );
    }

    #[test]
    fn draws_are_seeded_subsets_of_the_pool() {
        let pool: Vec<usize> = (100..200).collect();
        let d = draw_subsets(&pool, 3, 10, 1).unwrap();
        assert_eq!(d, draw_subsets(&pool, 3, 10, 1).unwrap());
        assert!(d.iter().flatten().all(|i| (100..200).contains(i)));
        assert!(draw_subsets(&pool, 1, 101, 1).is_err());
    }

    /// Shuffles, drawn targets and subsets past the limits are refused before any work or allocation (values for
    /// `usize::MAX` shuffles, or that many drawn subsets, would abort the test); the arithmetic holds at the limit.
    #[test]
    fn requests_past_the_limits_are_refused_before_work() {
        let it = subset(40, true, 1);
        let oot = subset(40, false, 2);
        let p = SdeParams {
            shuffles: usize::MAX,
            ..Default::default()
        };
        let e = sde(it.view(), oot.view(), &[], &p).unwrap_err();
        assert!(matches!(e, Error::ParameterTooLarge { name: "shuffles", .. }), "{e}");
        assert!(e.to_string().contains("use fewer shuffles (the paper uses 200)"), "{e}");
        let e = split_half(it.view(), &p).unwrap_err();
        assert!(matches!(e, Error::ParameterTooLarge { name: "shuffles", .. }), "{e}");
        let e = draw_targets(Some(true), 1000, usize::MAX, 100, 0).unwrap_err();
        assert!(matches!(e, Error::ParameterTooLarge { name: "draw", .. }), "{e}");
        let e = draw_subsets(&[1, 2, 3, 4, 5], usize::MAX, 4, 0).unwrap_err();
        assert!(matches!(e, Error::ParameterTooLarge { name: "count", .. }), "{e}");
        assert_eq!(draw_bytes(1000, 50, 100), 50 * 103 * 8 + 12_000);
        assert_eq!(draw_steps(1000, 50, 100), 50 * 1100);

        // The arithmetic: each thread holds one subset's kernels; every subset keeps its shuffle values.
        let big = subset(400, true, 3);
        let sets = [
            RowSubset::all("in_training", it.view(), None),
            RowSubset::all("out_of_training", oot.view(), None),
            RowSubset::all("t", big.view(), None),
        ];
        let refs: Vec<&RowSubset<'_, f64>> = sets.iter().collect();
        let budget = |threads: usize, baselines: bool| {
            let mut b = Budget::default();
            let p = SdeParams {
                shuffles: 1000,
                baselines,
                ..Default::default()
            };
            add_size(&mut b, &refs, &p, threads);
            b
        };
        let one = budget(1, false);
        crate::check::tests::boundary(&one);
        let kernels = |h: usize| pair_bytes(h, (3, 3), 8, Precision::F64, (Bandwidth::SqrtDim, Bandwidth::SqrtDim));
        assert!(one.bytes() >= kernels(200) + 3 * 1000 * 8, "{}", one.bytes());
        assert!(
            one.steps() >= 1000 * (200 * 200 / 2 + 2 * 20 * 20 / 2),
            "{}",
            one.steps()
        );
        // A second thread holds the next largest subset's kernels too.
        let two = budget(2, false);
        assert!(
            two.bytes() - one.bytes() >= kernels(20),
            "{} {}",
            two.bytes(),
            one.bytes()
        );
        assert_eq!(
            budget(3, false).bytes(),
            budget(9, false).bytes(),
            "at most one thread per subset"
        );
        // The baselines add the target's MMD kernel against a reference, and its assignment problem's time.
        let with = budget(1, true);
        assert!(with.bytes() - one.bytes() >= mmd_bytes(400, 40, 3, Bandwidth::SqrtDim));
        assert!(with.steps() - one.steps() >= 2 * 400 * 400 * 400);
        // The limit case: a half of `h` rows whose kernels alone exceed the limit names its subset.
        let e = check_subsets(&sets[0], &sets[1], &sets[2..], &SdeParams::default());
        assert!(e.is_ok(), "{e:?}");
    }
}
