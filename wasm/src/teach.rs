//! Teaching mode: the numbers behind the figures of `teach.html` and `<lethe-eval mode="teach">`.
//!
//! Each topic's figure asks the page's worker for small, quick results (a slider moved, a shuffle step). Every
//! statistic comes from the `lethe` core — the same functions the CLI and the analysis panels call; this module only
//!
//! * generates the topics' illustrative data, seeded (splitmix64 + Box–Muller: the same numbers on every
//!   platform), and says what the generating distribution is where a figure compares with it;
//! * picks rows of the built-in digits example for the SDE topic (the row layout of `examples/data/digits`);
//! * keeps the HSIC topic's permutation run between steps, so the null histogram can grow shuffle by shuffle;
//! * chooses display ranges and bins (counted by the core's `histogram`).
//!
//! Everything but the `#[wasm_bindgen]` exports at the end builds natively and is unit-tested without a browser.
//! Requests and results are documented in `www/src/protocol.md` (message type `teach`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::ops::Range;
use std::pin::pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use lethe::backend::{Backend, CpuBackend, Precision, PreparedPair};
use lethe::competition::{
    self, AttackRule, Bucket, CompetitionParams, DELTA, ExampleEpsilon, ThresholdAttack, Variant,
};
use lethe::data::{LoadOptions, load_bytes};
use lethe::divergence::histogram;
use lethe::hsic::{PermutationRun, permutation_p_value};
use lethe::kernel::{self, Bandwidth};
use lethe::leakage::{
    self, BinaryLeakageBound, CdfBand, ExpectationBounds, GeneralLeakageBound, SampleSizeParams, SampleSizePlan,
    Sidedness,
};
use lethe::mann_whitney::{self, MannWhitneyResult};
use lethe::permute::{Permutations, Stream};
use lethe::rank::{NullDistribution, rank_with_ties, tie_correction_term};
use lethe::sde::calibrated::{self, CalibratedParams, CalibratedReport, TargetRows};
use lethe::sde::moments::exact_mean_rbf;
use lethe::sde::{self, SdeParams, SdeReport, Split, Target};
use lethe::wilcoxon::{self, SignedRankTable, WilcoxonParams, WilcoxonResult, ZeroMethod};
use lethe::{Alternative, Matrix, PValueMethod};
use serde::{Deserialize, Serialize};

use crate::plots::{Histograms, ecdf_grid, shared_histograms};
use crate::synthetic::Rng;
use crate::{WebError, WebResult};

/// Drives a CPU-backend future, which completes without waiting, on the current thread.
fn ready<F: Future>(f: F) -> WebResult<F::Output> {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Ok(v),
        Poll::Pending => Err(WebError::msg(
            "internal error: a CPU computation did not complete at once",
        )),
    }
}

fn check_range<T: PartialOrd + std::fmt::Display + Copy>(name: &str, v: T, lo: T, hi: T) -> WebResult<T> {
    if v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(WebError::at(name, format!("`{name}` = {v} is outside {lo}..={hi}")))
    }
}

fn check_unit(name: &str, v: f64) -> WebResult<f64> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(WebError::at(name, format!("`{name}` = {v} must be a number in [0, 1]")))
    }
}

fn check_finite(name: &str, v: f64, lo: f64, hi: f64) -> WebResult<f64> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(WebError::at(
            name,
            format!("`{name}` = {v} must be a number in [{lo}, {hi}]"),
        ))
    }
}

fn column(values: &[f64]) -> WebResult<Matrix> {
    Ok(Matrix::from_vec(values.len(), 1, values.to_vec())?)
}

// --- 1. HSIC and the permutation null ------------------------------------------------------------------------

/// How `y` depends on `x` in the HSIC topic's data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dependence {
    /// `y = s·x + √(1 − s²)·e`: correlation `s`.
    #[default]
    Linear,
    /// `y = s·(x² − 1)/√2 + √(1 − s²)·e`: uncorrelated with `x` for every `s`, yet dependent when `s > 0`.
    Nonlinear,
    /// `y = e`: independent of `x` (the strength is ignored).
    None,
}

/// The HSIC topic's paired data: `x, e ~ N(0, 1)` independent, `y` from [`Dependence`] and strength `s ∈ [0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PairsSpec {
    pub kind: Dependence,
    pub strength: f64,
    pub n: usize,
    pub seed: u64,
}

impl Default for PairsSpec {
    fn default() -> Self {
        Self {
            kind: Dependence::Linear,
            strength: 0.5,
            n: 60,
            seed: 0,
        }
    }
}

/// Largest sample of the HSIC topic (its kernel heat maps send n² values per matrix to the page).
pub const MAX_HSIC_N: usize = 300;
/// Most shuffles of the HSIC topic.
pub const MAX_PERMUTATIONS: usize = 5000;
/// Bins of the growing null histogram.
const HSIC_BINS: usize = 30;

/// The pairs `(x, y)`, ordered by `x` (HSIC is unchanged when the pairs are reordered together; ordering by `x`
/// makes the kernel heat maps readable).
///
/// # Errors
/// `n` outside `4..=300`, a strength outside [0, 1].
pub fn pairs(spec: &PairsSpec) -> WebResult<(Vec<f64>, Vec<f64>)> {
    check_range("n", spec.n, 4, MAX_HSIC_N)?;
    let s = check_unit("strength", spec.strength)?;
    let mut rng = Rng::new(spec.seed, 0x4a51_c001);
    let noise = (1.0 - s * s).sqrt();
    let mut xy: Vec<(f64, f64)> = (0..spec.n)
        .map(|_| {
            let x = rng.normal();
            let e = rng.normal();
            let y = match spec.kind {
                Dependence::Linear => s * x + noise * e,
                Dependence::Nonlinear => s * (x * x - 1.0) / std::f64::consts::SQRT_2 + noise * e,
                Dependence::None => e,
            };
            (x, y)
        })
        .collect();
    xy.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(xy.into_iter().unzip())
}

/// An HSIC permutation test to run step by step.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HsicRequest {
    pub data: PairsSpec,
    /// Bandwidth of both kernels (`median`, `sqrt_dim` = 1 for one column, or `{fixed: σ}`).
    pub sigma: Bandwidth,
    /// Shuffles B.
    pub permutations: usize,
}

impl Default for HsicRequest {
    fn default() -> Self {
        Self {
            data: PairsSpec::default(),
            sigma: Bandwidth::Median,
            permutations: 999,
        }
    }
}

/// What the HSIC figure shows before any shuffle: the data, the kernels, the observed statistic and the exact
/// mean and sd of its permutation null.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HsicPrepared {
    /// Identifies the permutation run for [`hsic_step`].
    pub session: u64,
    pub n: usize,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    /// RBF kernel of `x` (n × n, row-major, rows in the order of `x`).
    pub k: Vec<f64>,
    /// RBF kernel of `y`.
    pub l: Vec<f64>,
    /// The kernel of `y` after the run's first shuffle of the rows of `y` (`L[p(i), p(j)]`).
    pub l_shuffled: Vec<f64>,
    pub sigma_x: f64,
    pub sigma_y: f64,
    /// Observed biased HSIC, `Tr(K H L H)/(n − 1)²` (as `lethe hsic`).
    pub statistic: f64,
    /// Exact mean and sd of HSIC over all shuffles (`lethe::sde::moments`: the permutation null's moments).
    pub null_mean: f64,
    pub null_sd: f64,
    /// Edges of the null histogram.
    pub edges: Vec<f64>,
    pub permutations: usize,
    pub seed: u64,
}

/// One step of the run: the new shuffled values, the histogram so far and the p-value so far.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HsicStep {
    pub session: u64,
    /// Values of the shuffles scored in this step, in order.
    pub values: Vec<f64>,
    /// Shuffles scored so far, of `total`.
    pub done: usize,
    pub total: usize,
    /// `b`: shuffled values ≥ the observed statistic so far.
    pub exceedances: usize,
    /// `(1 + b)/(1 + done)`.
    pub p_value: f64,
    /// Counts of all values so far on the prepared edges, and those beyond either end.
    pub counts: Vec<u64>,
    pub below: usize,
    pub above: usize,
    pub complete: bool,
}

struct HsicSession {
    id: u64,
    backend: CpuBackend,
    run: PermutationRun<<CpuBackend as Backend>::Pair>,
    observed: f64,
    range: (f64, f64),
}

/// Runs kept at once (several figures can share a worker); the oldest is dropped first.
const MAX_SESSIONS: usize = 8;

thread_local! {
    static SESSIONS: RefCell<Vec<HsicSession>> = const { RefCell::new(Vec::new()) };
    static NEXT_SESSION: Cell<u64> = const { Cell::new(1) };
}

/// Builds the kernels of a new HSIC permutation run (the shuffles come in [`hsic_step`]).
///
/// # Errors
/// Bad data parameters, an invalid bandwidth, `permutations` outside `1..=5000`.
pub fn hsic_prepare(req: &HsicRequest) -> WebResult<HsicPrepared> {
    let (x, y) = pairs(&req.data)?;
    check_range("permutations", req.permutations, 1, MAX_PERMUTATIONS)?;
    let sigma = req.sigma.validate().map_err(|e| WebError::from(e).or_at("sigma"))?;
    let (xm, ym) = (column(&x)?, column(&y)?);
    let n = x.len();
    let mut backend = CpuBackend::new(Precision::F64);
    let pair = ready(backend.prepare(xm.view(), ym.view(), sigma, sigma))??;
    // The observed statistic exactly as the permutation test computes it: the identity permutation's score.
    let identity: Vec<u32> = (0..n as u32).collect();
    let mut observed = [0.0];
    ready(backend.score(&pair, &identity, &mut observed))??;
    let stats = pair.stats();
    let moments = sde::shuffle_moments(&stats.kc_sums, &stats.l_sums);
    let k: kernel::Kernel<f64> = kernel::rbf(xm.view(), sigma)?;
    let l: kernel::Kernel<f64> = kernel::rbf(ym.view(), sigma)?;
    let mut p = vec![0u32; n];
    Permutations::for_subset(req.data.seed, Stream::Shuffles, 0).fill(&mut p);
    let l_shuffled = (0..n * n)
        .map(|ij| l.values[p[ij / n] as usize * n + p[ij % n] as usize])
        .collect();
    // The histogram spans the null's bulk (HSIC ≥ 0); an observed value far beyond it is marked at the edge.
    let lo = (moments.mean - 4.0 * moments.sd).max(0.0);
    let hi = (moments.mean + 6.0 * moments.sd).max(lo + f64::EPSILON.max(moments.mean * 1e-9));
    let edges = histogram(&[], HSIC_BINS, Some((lo, hi)))?.edges;
    let id = NEXT_SESSION.with(|c| {
        let id = c.get();
        c.set(id + 1);
        id
    });
    let run = PermutationRun::new(pair, req.data.seed, 0, req.permutations);
    SESSIONS.with(|s| {
        let mut s = s.borrow_mut();
        if s.len() >= MAX_SESSIONS {
            s.remove(0);
        }
        s.push(HsicSession {
            id,
            backend,
            run,
            observed: observed[0],
            range: (lo, hi),
        });
    });
    Ok(HsicPrepared {
        session: id,
        n,
        x,
        y,
        k: k.values,
        l: l.values,
        l_shuffled,
        sigma_x: stats.x.sigma,
        sigma_y: stats.y.sigma,
        statistic: observed[0],
        null_mean: moments.mean,
        null_sd: moments.sd,
        edges,
        permutations: req.permutations,
        seed: req.data.seed,
    })
}

/// A step request: up to `max` more shuffles of run `session`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HsicStepRequest {
    pub session: u64,
    pub max: usize,
}

/// Scores up to `max` more shuffles of a prepared run (the permutation stream of `lethe hsic --seed`, in order).
///
/// # Errors
/// An unknown (replaced or dropped) session.
pub fn hsic_step(req: &HsicStepRequest) -> WebResult<HsicStep> {
    SESSIONS.with(|s| {
        let mut s = s.borrow_mut();
        let session = s
            .iter_mut()
            .find(|x| x.id == req.session)
            .ok_or_else(|| WebError::msg(format!("HSIC run {} is no longer kept; prepare it again", req.session)))?;
        let start = session.run.values().len();
        if !session.run.is_done() {
            ready(
                session
                    .run
                    .step(&mut session.backend, req.max.clamp(1, MAX_PERMUTATIONS)),
            )??;
        }
        let values = session.run.values();
        let p = permutation_p_value(session.observed, values);
        let (lo, hi) = session.range;
        let h = histogram(values, HSIC_BINS, Some((lo, hi)))?;
        Ok(HsicStep {
            session: req.session,
            values: values[start..].to_vec(),
            done: values.len(),
            total: session.run.total(),
            exceedances: p.exceedances,
            p_value: p.p_value,
            counts: h.counts,
            below: values.iter().filter(|&&v| v < lo).count(),
            above: values.iter().filter(|&&v| v > hi).count(),
            complete: session.run.is_done(),
        })
    })
}

// --- 2. Split-half dependence on the digits example ---------------------------------------------------------

/// Rows of the built-in example (`examples/data/digits/README.md`): the forget set D_f, the retain rows split into
/// a reference half and a target half (so reference and target rows never coincide), and the test rows.
pub const FORGET: Range<usize> = 0..144;
pub const RETAIN_REFERENCES: Range<usize> = 144..344;
pub const RETAIN_TARGETS: Range<usize> = 344..544;
pub const TEST: Range<usize> = 544..744;
/// Rows of each example matrix.
pub const EXAMPLE_ROWS: usize = 744;

/// Which outputs of the digits models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Representation {
    /// Penultimate-layer activations (128-d), `act_<model>.npy`.
    #[default]
    Penultimate,
    /// Softmax outputs (10 classes), `softmax.npz#<model>`.
    Softmax,
}

/// Which of the three digits models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    Original,
    #[default]
    Retrained,
    Unlearned,
}

impl Model {
    pub const ALL: [Model; 3] = [Model::Original, Model::Retrained, Model::Unlearned];
    pub fn name(self) -> &'static str {
        match self {
            Model::Original => "original",
            Model::Retrained => "retrained",
            Model::Unlearned => "unlearned",
        }
    }
}

/// Where the target subset is drawn from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetPool {
    /// The forget set D_f (rows 0..144).
    #[default]
    Forget,
    /// Retain rows not used by the references (344..544): in training under every model.
    Retain,
}

thread_local! {
    static EXAMPLE: RefCell<HashMap<(Representation, Model), Rc<Matrix>>> = RefCell::new(HashMap::new());
}

/// Loads one file of the built-in example into the teaching store: `act_<model>.npy` (penultimate activations) or
/// `softmax.npz` (arrays `original`, `retrained`, `unlearned`). Returns the matrices it added.
///
/// # Errors
/// An unknown file name, a file that does not load, or a matrix without the example's 744 rows.
pub fn add_example_file(name: &str, bytes: &[u8]) -> WebResult<Vec<String>> {
    let mut added = Vec::new();
    let mut put = |rep: Representation, model: Model, opts: LoadOptions| -> WebResult<()> {
        let m = load_bytes::<f64>(name, bytes, &opts)?.matrix;
        if m.rows() != EXAMPLE_ROWS {
            return Err(WebError::at(
                name,
                format!("`{name}` has {} rows; the example has {EXAMPLE_ROWS}", m.rows()),
            ));
        }
        added.push(format!("{rep:?}/{}", model.name()).to_lowercase());
        EXAMPLE.with(|e| e.borrow_mut().insert((rep, model), Rc::new(m)));
        Ok(())
    };
    if name == "softmax.npz" {
        for model in Model::ALL {
            put(
                Representation::Softmax,
                model,
                LoadOptions {
                    name: Some(model.name().into()),
                    ..Default::default()
                },
            )?;
        }
    } else if let Some(model) = Model::ALL.into_iter().find(|m| name == format!("act_{}.npy", m.name())) {
        put(Representation::Penultimate, model, LoadOptions::default())?;
    } else {
        return Err(WebError::at(
            name,
            format!("`{name}` is not a file of the built-in example"),
        ));
    }
    Ok(added)
}

fn example(rep: Representation, model: Model) -> WebResult<Rc<Matrix>> {
    EXAMPLE.with(|e| e.borrow().get(&(rep, model)).cloned()).ok_or_else(|| {
        WebError::msg(format!(
            "the example's {} outputs of the {} model are not loaded yet",
            match rep {
                Representation::Penultimate => "penultimate",
                Representation::Softmax => "softmax",
            },
            model.name()
        ))
    })
}

/// One SDE experiment on the example: a target subset, R reference pairs, the paper's verdict with each pair, and
/// the calibrated verdict.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SdeRequest {
    pub representation: Representation,
    pub model: Model,
    pub target: TargetPool,
    /// |S|, rows per subset.
    pub size: usize,
    pub sigma: Bandwidth,
    /// T, shuffles per subset.
    pub shuffles: usize,
    /// R, reference subsets per class.
    pub references: usize,
    pub seed: u64,
}

impl Default for SdeRequest {
    fn default() -> Self {
        Self {
            representation: Representation::Penultimate,
            model: Model::Retrained,
            target: TargetPool::Forget,
            size: 100,
            sigma: Bandwidth::SqrtDim,
            shuffles: 200,
            references: 10,
            seed: 0,
        }
    }
}

/// Whether the target rows were in the model's training data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Membership {
    In,
    Out,
    /// In the original training data; the unlearned model was fine-tuned to forget them (weakly, 5 epochs).
    Unlearned,
}

/// The paper's verdict against one reference pair.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PairVerdict {
    pub jsd_target_it: f64,
    pub jsd_target_oot: f64,
    pub in_training: bool,
    /// Exact shuffle means of the pair's references.
    pub it_mean: f64,
    pub oot_mean: f64,
}

/// Where the target's exact mean comes from: `h(1 − K̄₁)(1 − L̄₂,off)/(h − 1)²`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ExactMeanParts {
    pub half: usize,
    /// Mean of all entries of S1's kernel.
    pub k_mean_all: f64,
    /// Mean off-diagonal entry of S2's kernel.
    pub l_mean_offdiag: f64,
    /// The closed form from those two numbers (`lethe::sde::moments::exact_mean_rbf`).
    pub closed_form: f64,
    /// The mean of the T shuffled values shown (numpy's mean), which scatters around the exact mean.
    pub shuffle_mean: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SdeExperiment {
    pub truth: Membership,
    pub target_rows: Vec<usize>,
    pub it_pool: Vec<usize>,
    pub oot_pool: Vec<usize>,
    /// `lethe sde` with the first reference pair and the target (the three distributions and the paper's verdict).
    pub sde: SdeReport,
    /// The three distributions on shared edges (roles `it`, `oot`, `target`).
    pub histograms: Histograms,
    pub exact_mean: ExactMeanParts,
    /// The paper's verdict with each of the R reference pairs (the target's distribution is the same throughout).
    pub pairs: Vec<PairVerdict>,
    /// How many of those pairs call the target in training.
    pub pairs_in_training: usize,
    /// `lethe calibrate` with the R reference subsets per class and the target.
    pub calibrated: CalibratedReport,
    /// Columns of the representation (for σ = sqrt(dim)).
    pub dim: usize,
}

fn rows_of(r: Range<usize>) -> Vec<usize> {
    r.collect()
}

fn sde_params(req: &SdeRequest) -> SdeParams {
    SdeParams {
        bandwidth: req.sigma,
        shuffles: req.shuffles,
        seed: req.seed,
        split: Split::First,
        bins: 30,
        precision: Precision::F64,
        baselines: false,
    }
}

fn check_sde(req: &SdeRequest) -> WebResult<()> {
    check_range("size", req.size, 4, FORGET.len())?;
    check_range("shuffles", req.shuffles, 1, 2000)?;
    check_range("references", req.references, 1, 40)?;
    req.sigma.validate().map_err(|e| WebError::from(e).or_at("sigma"))?;
    Ok(())
}

/// The target's rows: one subset of `size` rows drawn from its pool as `lethe calibrate --draw-from POOL --draw 1
/// --size SIZE --seed SEED` draws it.
///
/// # Errors
/// A size larger than the pool.
pub fn target_rows(pool: TargetPool, size: usize, seed: u64) -> WebResult<Vec<usize>> {
    let rows = rows_of(match pool {
        TargetPool::Forget => FORGET,
        TargetPool::Retain => RETAIN_TARGETS,
    });
    let draw = sde::draw_targets(None, rows.len(), 1, size, seed)?;
    Ok(draw[0].iter().map(|&i| rows[i]).collect())
}

/// Runs one SDE experiment on the example (see [`SdeExperiment`]).
///
/// # Errors
/// Parameters out of range, the example not loaded, or a core error (e.g. a bandwidth of 0).
pub fn sde_experiment_on(data: &Matrix, req: &SdeRequest) -> WebResult<SdeExperiment> {
    check_sde(req)?;
    let target = target_rows(req.target, req.size, req.seed)?;
    let (it_pool, oot_pool) = (rows_of(RETAIN_REFERENCES), rows_of(TEST));
    let targets = [TargetRows {
        name: "target".into(),
        rows: target.clone(),
        label: None,
    }];
    let params = CalibratedParams {
        bandwidth: req.sigma,
        subset_size: req.size,
        references: req.references,
        margin: 0.0,
        split: Split::First,
        seed: req.seed,
        precision: Precision::F64,
        paper_shuffles: req.shuffles,
        bins: 30,
    };
    let cal = calibrated::calibrated(data.view(), &it_pool, &oot_pool, &targets, &params)?;
    let t = data.select_rows(&target, "target")?;
    let sp = sde_params(req);
    let mut pairs = Vec::with_capacity(req.references);
    let mut first = None;
    for (it_rows, oot_rows) in cal.in_training.subsets.iter().zip(&cal.out_of_training.subsets) {
        let it = data.select_rows(it_rows, "in_training")?;
        let oot = data.select_rows(oot_rows, "out_of_training")?;
        let r = sde::sde(
            it.view(),
            oot.view(),
            &[Target {
                name: "target",
                data: t.view(),
                label: None,
            }],
            &sp,
        )?;
        let v = r.targets[0].verdict;
        let oot_mean = r
            .out_of_training_reference
            .as_ref()
            .map_or(f64::NAN, |o| o.moments.mean);
        pairs.push(PairVerdict {
            jsd_target_it: v.jsd_target_it,
            jsd_target_oot: v.jsd_target_oot,
            in_training: v.in_training,
            it_mean: r.in_training_reference.moments.mean,
            oot_mean,
        });
        if first.is_none() {
            first = Some(r);
        }
    }
    let report = first.ok_or_else(|| WebError::msg("no reference pair was drawn"))?;
    let tgt = &report.targets[0].distribution;
    let oot_values = report
        .out_of_training_reference
        .as_ref()
        .map_or(&[][..], |o| &o.values[..]);
    let histograms = shared_histograms(
        &[
            (
                "in-training reference".into(),
                "it",
                &report.in_training_reference.values,
            ),
            ("out-of-training reference".into(), "oot", oot_values),
            ("target".into(), "target", &tgt.values),
        ],
        30,
    )?;
    let exact_mean = ExactMeanParts {
        half: tgt.half,
        k_mean_all: tgt.kernels.x.mean_all,
        l_mean_offdiag: tgt.kernels.y.mean_offdiag,
        closed_form: exact_mean_rbf(tgt.half, tgt.kernels.x.mean_all, tgt.kernels.y.mean_offdiag),
        shuffle_mean: lethe::numpy::mean(&tgt.values),
    };
    let truth = match (req.target, req.model) {
        (TargetPool::Retain, _) | (TargetPool::Forget, Model::Original) => Membership::In,
        (TargetPool::Forget, Model::Retrained) => Membership::Out,
        (TargetPool::Forget, Model::Unlearned) => Membership::Unlearned,
    };
    Ok(SdeExperiment {
        truth,
        target_rows: target,
        it_pool,
        oot_pool,
        sde: report,
        histograms,
        exact_mean,
        pairs_in_training: pairs.iter().filter(|p| p.in_training).count(),
        pairs,
        calibrated: cal,
        dim: data.cols(),
    })
}

/// [`sde_experiment_on`] on the loaded example.
///
/// # Errors
/// As [`sde_experiment_on`].
pub fn sde_experiment(req: &SdeRequest) -> WebResult<SdeExperiment> {
    sde_experiment_on(&*example(req.representation, req.model)?, req)
}

/// One cell of the paper's Figure 3 / Table 1 trends on the example: the controlled experiment on the retrained
/// model (targets from the retain rows are in training, targets from the forget set are not) at one |S| and σ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepRequest {
    pub representation: Representation,
    pub size: usize,
    pub sigma: Bandwidth,
    pub shuffles: usize,
    pub references: usize,
    /// Targets drawn per class.
    pub draw: usize,
    pub seed: u64,
}

impl Default for SweepRequest {
    fn default() -> Self {
        Self {
            representation: Representation::Penultimate,
            size: 100,
            sigma: Bandwidth::SqrtDim,
            shuffles: 100,
            references: 10,
            draw: 10,
            seed: 0,
        }
    }
}

/// How much the subsets of one kind share rows: the mean, over every pair of them, of `|A ∩ B| / |S|`.
///
/// Subsets drawn independently from a pool of `N` rows share `|S|/N` of their rows on average. At |S| = 140 the
/// ten forget-set targets (pool 144) are nearly the same subset ten times, and ten reference subsets of a
/// 200-row pool overlap from |S| = 30 on: the F1 of a cell then rests on far fewer independent subsets than it
/// counts, which the teaching page says next to the trend.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SubsetOverlap {
    /// Rows in the pool the subsets were drawn from.
    pub pool: usize,
    pub subsets: usize,
    /// Mean pairwise shared fraction (0: disjoint, 1: identical); NaN with fewer than two subsets.
    #[serde(serialize_with = "lethe::json::f64")]
    pub mean: f64,
    /// The largest pairwise shared fraction.
    #[serde(serialize_with = "lethe::json::f64")]
    pub max: f64,
    /// Distinct rows over all the subsets together.
    pub distinct_rows: usize,
}

/// [`SubsetOverlap`] of `sets`, all of `size` rows, drawn from a pool of `pool` rows.
pub fn subset_overlap(sets: &[Vec<usize>], pool: usize) -> SubsetOverlap {
    let sorted: Vec<Vec<usize>> = sets
        .iter()
        .map(|s| {
            let mut v = s.clone();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let (mut sum, mut max, mut pairs) = (0.0, f64::NAN, 0usize);
    for (i, a) in sorted.iter().enumerate() {
        for b in &sorted[i + 1..] {
            let (mut x, mut y, mut shared) = (0, 0, 0usize);
            while x < a.len() && y < b.len() {
                match a[x].cmp(&b[y]) {
                    std::cmp::Ordering::Less => x += 1,
                    std::cmp::Ordering::Greater => y += 1,
                    std::cmp::Ordering::Equal => {
                        shared += 1;
                        x += 1;
                        y += 1;
                    }
                }
            }
            let f = shared as f64 / a.len().min(b.len()).max(1) as f64;
            sum += f;
            max = if max.is_nan() { f } else { max.max(f) };
            pairs += 1;
        }
    }
    let mut all: Vec<usize> = sorted.iter().flatten().copied().collect();
    all.sort_unstable();
    all.dedup();
    SubsetOverlap {
        pool,
        subsets: sets.len(),
        mean: if pairs > 0 { sum / pairs as f64 } else { f64::NAN },
        max,
        distinct_rows: all.len(),
    }
}

/// The row overlap within each kind of subset of a sweep cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SweepOverlap {
    pub in_training_references: SubsetOverlap,
    pub out_of_training_references: SubsetOverlap,
    /// Targets labelled in training (retain rows 344..544).
    pub in_targets: SubsetOverlap,
    /// Targets labelled out of training (the forget set, 144 rows).
    pub out_targets: SubsetOverlap,
}

/// F1 of each rule in one sweep cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepCell {
    pub size: usize,
    /// σ as used: the fixed value, `sqrt(dim)`, or NaN for the median heuristic (one σ per subset half).
    #[serde(serialize_with = "lethe::json::f64")]
    pub sigma: f64,
    /// `(rule, F1)` of each rule `lethe calibrate` reports (paper, nearest, calibrated, dispersion, confidence).
    pub f1: Vec<(String, Option<f64>)>,
    /// How far apart the reference classes' exact means are, in reference sds.
    pub separation: f64,
    /// How much the cell's subsets share rows (see [`SubsetOverlap`]).
    pub overlap: SweepOverlap,
    /// The calibrated report's warnings (e.g. overlapping reference subsets).
    pub warnings: Vec<String>,
}

/// Runs one sweep cell; equal to `lethe calibrate --data <retrained> --it-pool 144..344 --oot-pool 544..744
/// --draw-in 344..544 --draw-out 0..144 --draw D --size S --refs R --paper-shuffles T --sigma σ --seed SEED`.
///
/// # Errors
/// Parameters out of range, the example not loaded, or a core error.
pub fn sweep_cell_on(data: &Matrix, req: &SweepRequest) -> WebResult<SweepCell> {
    check_range("size", req.size, 4, FORGET.len())?;
    check_range("shuffles", req.shuffles, 1, 2000)?;
    check_range("references", req.references, 1, 40)?;
    check_range("draw", req.draw, 1, 40)?;
    let mut targets = Vec::new();
    for (label, pool, role) in [(true, RETAIN_TARGETS, "draw-in"), (false, FORGET, "draw-out")] {
        let rows = rows_of(pool);
        for (k, pos) in sde::draw_targets(Some(label), rows.len(), req.draw, req.size, req.seed)?
            .into_iter()
            .enumerate()
        {
            targets.push(TargetRows {
                name: format!("{role}[{k}]"),
                rows: pos.iter().map(|&i| rows[i]).collect(),
                label: Some(label),
            });
        }
    }
    let params = CalibratedParams {
        bandwidth: req.sigma,
        subset_size: req.size,
        references: req.references,
        margin: 0.0,
        split: Split::First,
        seed: req.seed,
        precision: Precision::F64,
        paper_shuffles: req.shuffles,
        bins: 30,
    };
    let r = calibrated::calibrated(
        data.view(),
        &rows_of(RETAIN_REFERENCES),
        &rows_of(TEST),
        &targets,
        &params,
    )?;
    let sigma = match req.sigma {
        Bandwidth::SqrtDim => (data.cols() as f64).sqrt(),
        Bandwidth::Median => f64::NAN,
        Bandwidth::Fixed(v) => v,
    };
    let drawn = |label: bool| -> Vec<Vec<usize>> {
        targets
            .iter()
            .filter(|t| t.label == Some(label))
            .map(|t| t.rows.clone())
            .collect()
    };
    let overlap = SweepOverlap {
        in_training_references: subset_overlap(&r.in_training.subsets, RETAIN_REFERENCES.len()),
        out_of_training_references: subset_overlap(&r.out_of_training.subsets, TEST.len()),
        in_targets: subset_overlap(&drawn(true), RETAIN_TARGETS.len()),
        out_targets: subset_overlap(&drawn(false), FORGET.len()),
    };
    Ok(SweepCell {
        size: req.size,
        sigma,
        f1: r
            .summaries
            .iter()
            .map(|s| (s.rule.to_string(), s.f1.as_ref().map(|f| f.f1)))
            .collect(),
        separation: r.rule.separation,
        overlap,
        warnings: r.warnings,
    })
}

/// [`sweep_cell_on`] on the loaded example's retrained model.
///
/// # Errors
/// As [`sweep_cell_on`].
pub fn sweep_cell(req: &SweepRequest) -> WebResult<SweepCell> {
    sweep_cell_on(&*example(req.representation, Model::Retrained)?, req)
}

// --- 3. Rank tests --------------------------------------------------------------------------------------------

/// The rank topic's data: `x ~ N(shift, 1)` (`n_x` values) against `y ~ N(0, 1)` (`n_y`) for Mann–Whitney, and
/// `n_x` pairs with differences `N(shift, 1)` for Wilcoxon; with `ties`, every value is rounded to a multiple of ½.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankRequest {
    pub n_x: usize,
    pub n_y: usize,
    pub shift: f64,
    pub ties: bool,
    pub alternative: Alternative,
    pub seed: u64,
}

impl Default for RankRequest {
    fn default() -> Self {
        Self {
            n_x: 8,
            n_y: 7,
            shift: 0.8,
            ties: false,
            alternative: Alternative::TwoSided,
            seed: 0,
        }
    }
}

/// Most values per sample in the rank topic.
pub const MAX_RANK_N: usize = 40;

/// One value of the pooled samples, in ascending order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PooledValue {
    pub value: f64,
    /// `x` or `y`.
    pub sample: char,
    /// Position in its sample.
    pub index: usize,
    /// Average rank in the pooled sample.
    pub rank: f64,
    /// Tie group (0, 1, …) when the value ties with another, else `None`.
    pub tie: Option<usize>,
}

/// A test result under one method, or why that method does not apply.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Outcome<T> {
    Ok(T),
    Err { error: String },
}

impl<T> From<lethe::Result<T>> for Outcome<T> {
    fn from(r: lethe::Result<T>) -> Self {
        match r {
            Ok(v) => Outcome::Ok(v),
            Err(e) => Outcome::Err { error: e.to_string() },
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct MannWhitneyView {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub pooled: Vec<PooledValue>,
    /// `R₁`, the rank sum of `x`.
    pub rank_sum_x: f64,
    pub exact: Outcome<MannWhitneyResult>,
    pub asymptotic: Outcome<MannWhitneyResult>,
    /// scipy's rule (`method = auto`), as `lethe mwu`.
    pub auto: MannWhitneyResult,
    /// Exact no-ties null of U with the tie-corrected normal the asymptotic method uses.
    pub null: NullDistribution,
}

/// One pair of the Wilcoxon table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SignedRow {
    pub x: f64,
    pub y: f64,
    pub d: f64,
    /// Rank of `|d|` (0: a zero difference, dropped).
    pub rank: f64,
    pub sign: i8,
    pub tie: Option<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct WilcoxonView {
    pub rows: Vec<SignedRow>,
    pub table: SignedRankTable,
    pub exact: Outcome<WilcoxonResult>,
    pub asymptotic: Outcome<WilcoxonResult>,
    pub auto: WilcoxonResult,
    /// Exact no-ties null of T⁺ for the non-zero differences (absent when every difference is 0).
    pub null: Option<NullDistribution>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RankView {
    pub mann_whitney: MannWhitneyView,
    pub wilcoxon: WilcoxonView,
}

/// Tie group of each value (`None` for untied values), numbered in ascending order of value.
fn tie_groups(values: &[f64]) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![None; values.len()];
    let mut group = 0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        if end - start > 1 {
            for &i in &order[start..end] {
                out[i] = Some(group);
            }
            group += 1;
        }
        start = end;
    }
    out
}

/// Two samples.
pub type Samples = (Vec<f64>, Vec<f64>);

/// The rank topic's samples: `(x, y)` for Mann–Whitney and `(a, b)` pairs for Wilcoxon.
///
/// # Errors
/// Sizes outside `2..=40`, a non-finite shift or one beyond ±5.
pub fn rank_samples(req: &RankRequest) -> WebResult<(Samples, Samples)> {
    check_range("n_x", req.n_x, 2, MAX_RANK_N)?;
    check_range("n_y", req.n_y, 2, MAX_RANK_N)?;
    let shift = check_finite("shift", req.shift, -5.0, 5.0)?;
    let mut rng = Rng::new(req.seed, 0x7a4c_5e11);
    let round = |v: f64| if req.ties { (v * 2.0).round() / 2.0 } else { v };
    let x: Vec<f64> = (0..req.n_x).map(|_| round(shift + rng.normal())).collect();
    let y: Vec<f64> = (0..req.n_y).map(|_| round(rng.normal())).collect();
    let mut a = Vec::with_capacity(req.n_x);
    let mut b = Vec::with_capacity(req.n_x);
    for _ in 0..req.n_x {
        let base = 2.0 * rng.normal();
        b.push(round(base));
        a.push(round(base + shift + rng.normal()));
    }
    Ok(((x, y), (a, b)))
}

/// Mann–Whitney and Wilcoxon on the rank topic's samples, with their ranks and exact/normal nulls.
///
/// # Errors
/// As [`rank_samples`].
pub fn ranks(req: &RankRequest) -> WebResult<RankView> {
    let ((x, y), (a, b)) = rank_samples(req)?;
    // Mann–Whitney: pooled ranks (as the test ranks them) and both nulls.
    let pooled: Vec<f64> = x.iter().chain(&y).copied().collect();
    let ranked = rank_with_ties(&pooled)?;
    let ties = tie_groups(&pooled);
    let mut table: Vec<PooledValue> = pooled
        .iter()
        .enumerate()
        .map(|(i, &value)| PooledValue {
            value,
            sample: if i < x.len() { 'x' } else { 'y' },
            index: if i < x.len() { i } else { i - x.len() },
            rank: ranked.ranks[i],
            tie: ties[i],
        })
        .collect();
    table.sort_by(|p, q| p.value.total_cmp(&q.value).then(p.sample.cmp(&q.sample)));
    let alt = req.alternative;
    let mw = |method| mann_whitney::mann_whitney_u(&x, &y, alt, method, true);
    let mann_whitney = MannWhitneyView {
        rank_sum_x: lethe::numpy::sum(&ranked.ranks[..x.len()]),
        exact: mw(PValueMethod::Exact).into(),
        asymptotic: mw(PValueMethod::Asymptotic).into(),
        auto: mw(PValueMethod::Auto)?,
        null: mann_whitney::null_distribution(x.len(), y.len(), tie_correction_term(&ranked.tie_counts))?,
        x,
        y,
        pooled: table,
    };
    // Wilcoxon: the signed-rank table and both nulls.
    let st = wilcoxon::signed_ranks(&a, Some(&b), ZeroMethod::Wilcox)?;
    let nonzero: Vec<f64> = st.differences.iter().filter(|&&d| d != 0.0).map(|d| d.abs()).collect();
    let abs: Vec<f64> = st.differences.iter().map(|d| d.abs()).collect();
    let dties = tie_groups(&abs);
    let rows = (0..a.len())
        .map(|i| SignedRow {
            x: a[i],
            y: b[i],
            d: st.differences[i],
            rank: st.ranks[i],
            sign: st.signs[i],
            tie: if st.signs[i] == 0 { None } else { dties[i] },
        })
        .collect();
    let wp = |method| WilcoxonParams {
        zero_method: ZeroMethod::Wilcox,
        correction: false,
        alternative: alt,
        method,
    };
    let null = if nonzero.is_empty() {
        None
    } else {
        let tt = tie_correction_term(&rank_with_ties(&nonzero)?.tie_counts);
        Some(wilcoxon::null_distribution(nonzero.len(), tt)?)
    };
    let wilcoxon = WilcoxonView {
        rows,
        exact: wilcoxon::wilcoxon(&a, Some(&b), &wp(PValueMethod::Exact)).into(),
        asymptotic: wilcoxon::wilcoxon(&a, Some(&b), &wp(PValueMethod::Asymptotic)).into(),
        auto: wilcoxon::wilcoxon(&a, Some(&b), &wp(PValueMethod::Auto))?,
        table: st,
        null,
    };
    Ok(RankView { mann_whitney, wilcoxon })
}

// --- 4. Epsilon from an attack --------------------------------------------------------------------------------

/// The epsilon topic's data: one forget-set example's output (e.g. logit-scaled confidence) under `n_models`
/// retrained models, `N(0, 1)`, and `n_models` unlearned models, `N(shift, spread²)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EpsilonSpec {
    pub n_models: usize,
    pub shift: f64,
    pub spread: f64,
    pub seed: u64,
}

impl Default for EpsilonSpec {
    fn default() -> Self {
        Self {
            n_models: 64,
            shift: 1.5,
            spread: 1.0,
            seed: 0,
        }
    }
}

/// Most models per side in the epsilon topic.
pub const MAX_MODELS: usize = 1024;

/// Which side of the threshold is called "retrained" (the exhaustive family's two rule directions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    AtLeast,
    Below,
}

impl Direction {
    fn rule(self, threshold: f64) -> AttackRule {
        match self {
            Direction::AtLeast => AttackRule::AtLeast { threshold },
            Direction::Below => AttackRule::Below { threshold },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EpsilonRequest {
    pub data: EpsilonSpec,
    /// Two-sided level of the Clopper–Pearson variant.
    pub alpha: f64,
    /// A threshold to evaluate (the draggable one), with its direction.
    pub threshold: Option<f64>,
    pub direction: Option<Direction>,
}

impl Default for EpsilonRequest {
    fn default() -> Self {
        Self {
            data: EpsilonSpec::default(),
            alpha: 0.05,
            threshold: None,
            direction: None,
        }
    }
}

/// A threshold attack with the bucket and points its epsilon earns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ThresholdView {
    pub attack: ThresholdAttack,
    pub direction: Direction,
    pub bucket: Option<usize>,
    pub points: f64,
}

/// `(threshold, epsilon)` of every exhaustive attack in one direction (epsilon NaN where discarded).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EpsilonCurve {
    pub threshold: Vec<f64>,
    #[serde(serialize_with = "lethe::json::vec_f64")]
    pub epsilon: Vec<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct EpsilonView {
    pub retrained: Vec<f64>,
    pub unlearned: Vec<f64>,
    pub histograms: Histograms,
    /// `⌈ln(N − 1)⌉` and its buckets.
    pub eps_max: f64,
    pub buckets: Vec<Bucket>,
    pub official: ExampleEpsilon,
    pub exhaustive: ExampleEpsilon,
    pub clopper_pearson: ExampleEpsilon,
    /// The direction in which the retrained outputs are the larger (official: larger median).
    pub direction: Direction,
    pub at_least: EpsilonCurve,
    pub below: EpsilonCurve,
    pub threshold: Option<ThresholdView>,
}

/// The two samples of the epsilon topic.
///
/// # Errors
/// `n_models` outside `4..=1024`, a shift beyond ±10 or a spread outside [0.05, 10].
pub fn epsilon_samples(spec: &EpsilonSpec) -> WebResult<(Vec<f64>, Vec<f64>)> {
    check_range("n_models", spec.n_models, 4, MAX_MODELS)?;
    let shift = check_finite("shift", spec.shift, -10.0, 10.0)?;
    let spread = check_finite("spread", spec.spread, 0.05, 10.0)?;
    let mut rng = Rng::new(spec.seed, 0xe951_1000);
    let r = (0..spec.n_models).map(|_| rng.normal()).collect();
    let u = (0..spec.n_models).map(|_| shift + spread * rng.normal()).collect();
    Ok((r, u))
}

fn threshold_view(r: &[f64], u: &[f64], t: f64, direction: Direction) -> WebResult<ThresholdView> {
    let attack = competition::threshold_attack(r, u, direction.rule(t), DELTA)
        .map_err(|e| WebError::from(e).or_at("threshold"))?;
    let (bucket, points) = competition::score_epsilon(
        attack.epsilon,
        &competition::bucket_table(competition::official_eps_max(u.len())),
    );
    Ok(ThresholdView {
        attack,
        direction,
        bucket,
        points,
    })
}

/// The whole epsilon figure: both samples, the three variants' best attacks, the epsilon of every exhaustive
/// threshold, and (if asked) one threshold's attack.
///
/// # Errors
/// Bad data parameters, `alpha ∉ (0, 1)`, a non-finite threshold.
pub fn epsilon(req: &EpsilonRequest) -> WebResult<EpsilonView> {
    let (r, u) = epsilon_samples(&req.data)?;
    let variant = |v| competition::example_epsilon(&r, &u, &CompetitionParams::with_variant(v));
    let official = variant(Variant::Official)?;
    let exhaustive = variant(Variant::Exhaustive)?;
    let clopper_pearson =
        variant(Variant::HighProbability { alpha: req.alpha }).map_err(|e| WebError::from(e).or_at("alpha"))?;
    let direction = if official.positive_is_retrained {
        Direction::AtLeast
    } else {
        Direction::Below
    };
    let mut at_least = EpsilonCurve {
        threshold: Vec::new(),
        epsilon: Vec::new(),
    };
    let mut below = EpsilonCurve {
        threshold: Vec::new(),
        epsilon: Vec::new(),
    };
    for a in competition::exhaustive_attacks(&r, &u, DELTA)? {
        let (curve, t) = match a.rule {
            AttackRule::AtLeast { threshold } => (&mut at_least, threshold),
            AttackRule::Below { threshold } => (&mut below, threshold),
            AttackRule::Interval { .. } => continue,
        };
        curve.threshold.push(t);
        curve.epsilon.push(a.epsilon);
    }
    let threshold = match req.threshold {
        Some(t) => Some(threshold_view(&r, &u, t, req.direction.unwrap_or(direction))?),
        None => None,
    };
    let histograms = shared_histograms(
        &[("retrained".into(), "it", &r[..]), ("unlearned".into(), "oot", &u[..])],
        40,
    )?;
    let eps_max = competition::official_eps_max(u.len());
    Ok(EpsilonView {
        histograms,
        eps_max,
        buckets: competition::bucket_table(eps_max),
        official,
        exhaustive,
        clopper_pearson,
        direction,
        at_least,
        below,
        threshold,
        retrained: r,
        unlearned: u,
    })
}

/// Only the attack at one threshold (the drag), without the rest of the figure.
///
/// # Errors
/// As [`epsilon`].
pub fn epsilon_threshold(req: &EpsilonRequest) -> WebResult<ThresholdView> {
    let (r, u) = epsilon_samples(&req.data)?;
    let t = req
        .threshold
        .ok_or_else(|| WebError::at("threshold", "no threshold given"))?;
    let direction = match req.direction {
        Some(d) => d,
        None => {
            let o = competition::example_epsilon(&r, &u, &CompetitionParams::default())?;
            if o.positive_is_retrained {
                Direction::AtLeast
            } else {
                Direction::Below
            }
        }
    };
    threshold_view(&r, &u, t, direction)
}

// --- 5. Confidence bounds ---------------------------------------------------------------------------------------

/// The distribution of the leakage scores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// With probability `p0` exactly 0 (no leak), else `U^k` with `U` uniform on [0, 1].
    #[default]
    Scores,
    /// 1 (the secret appeared) with probability `p`, else 0.
    Flags,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScoresSpec {
    pub family: Family,
    pub n: usize,
    pub p0: f64,
    pub k: f64,
    pub p: f64,
    pub seed: u64,
}

impl Default for ScoresSpec {
    fn default() -> Self {
        Self {
            family: Family::Scores,
            n: 200,
            p0: 0.6,
            k: 1.5,
            p: 0.05,
            seed: 0,
        }
    }
}

/// Most sampled scores in the bounds topic.
pub const MAX_SCORES: usize = 20_000;

impl ScoresSpec {
    fn check(&self) -> WebResult<()> {
        check_range("n", self.n, 1, MAX_SCORES)?;
        check_unit("p0", self.p0)?;
        check_unit("p", self.p)?;
        check_finite("k", self.k, 0.05, 20.0)?;
        Ok(())
    }

    /// The generating distribution's `P(X ≤ x)`.
    pub fn cdf(&self, x: f64) -> f64 {
        if x < 0.0 {
            return 0.0;
        }
        if x >= 1.0 {
            return 1.0;
        }
        match self.family {
            Family::Scores => self.p0 + (1.0 - self.p0) * x.powf(1.0 / self.k),
            Family::Flags => 1.0 - self.p,
        }
    }

    /// The generating distribution's mean.
    pub fn mean(&self) -> f64 {
        match self.family {
            Family::Scores => (1.0 - self.p0) / (1.0 + self.k),
            Family::Flags => self.p,
        }
    }
}

/// The bounds topic's scores.
///
/// # Errors
/// `n` outside `1..=20000`, probabilities outside [0, 1], `k` outside [0.05, 20].
pub fn scores(spec: &ScoresSpec) -> WebResult<Vec<f64>> {
    spec.check()?;
    let mut rng = Rng::new(spec.seed, 0xb0a1_d500);
    Ok((0..spec.n)
        .map(|_| match spec.family {
            Family::Scores => {
                if rng.uniform() < spec.p0 {
                    0.0
                } else {
                    rng.uniform().powf(spec.k)
                }
            }
            Family::Flags => f64::from(u8::from(rng.uniform() < spec.p)),
        })
        .collect())
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BoundsRequest {
    pub data: ScoresSpec,
    pub alpha: f64,
    /// The threshold of the leak event `X > x0`.
    pub x0: f64,
    /// The paper's one-sided M_bin / M_gen instead of conbo's two-sided convention.
    pub one_sided: bool,
}

impl Default for BoundsRequest {
    fn default() -> Self {
        Self {
            data: ScoresSpec::default(),
            alpha: 0.05,
            x0: 0.5,
            one_sided: false,
        }
    }
}

/// The bounds on the first `n` samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Convergence {
    pub n: usize,
    /// Fraction of the first `n` scores above `x0`.
    pub rate: f64,
    /// Clopper–Pearson interval on `P(X > x0)` (lower 0 when one-sided).
    pub lower: f64,
    pub upper: f64,
    /// DKW's `M_gen(x0)` on the same samples.
    pub dkw_upper: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct BoundsView {
    pub scores: Vec<f64>,
    /// ECDF with its two-sided DKW band (conbo's `cdf_bounds`) at every distinct score.
    pub band: CdfBand,
    /// The generating distribution's CDF on a grid.
    pub truth: CdfCurve,
    /// `M_gen(x0) ≥ P(X > x0)`, for all thresholds at once.
    pub m_gen: GeneralLeakageBound,
    /// Clopper–Pearson bound on the leak probability `P(X > x0)`, from the count of scores above `x0`.
    pub m_bin: BinaryLeakageBound,
    pub true_tail: f64,
    pub expectation: ExpectationBounds,
    pub true_mean: f64,
    pub convergence: Vec<Convergence>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CdfCurve {
    pub x: Vec<f64>,
    pub cdf: Vec<f64>,
}

fn sidedness(one_sided: bool) -> Sidedness {
    if one_sided {
        Sidedness::OneSided
    } else {
        Sidedness::TwoSided
    }
}

/// Sample sizes of the convergence curve: about 40 points, log-spaced from 10 (or `n`) to `n`.
fn growth(n: usize) -> Vec<usize> {
    let lo = n.min(10) as f64;
    let steps = 40;
    let mut out: Vec<usize> = (0..=steps)
        .map(|j| (lo * (n as f64 / lo).powf(j as f64 / steps as f64)).round() as usize)
        .map(|v| v.clamp(1, n))
        .collect();
    out.dedup();
    out
}

/// Every number of the bounds figure.
///
/// # Errors
/// Bad data parameters, `alpha ∉ (0, 1)`, `x0 ∉ [0, 1]`.
pub fn bounds(req: &BoundsRequest) -> WebResult<BoundsView> {
    let s = scores(&req.data)?;
    let x0 = check_unit("x0", req.x0)?;
    let side = sidedness(req.one_sided);
    let alpha_err = |e: lethe::Error| WebError::from(e).or_at("alpha");
    let band = leakage::cdf_bounds(&s, &ecdf_grid(&s), req.alpha).map_err(alpha_err)?;
    let grid = lethe::numpy::linspace(0.0, 1.0, 201);
    let mut tx = vec![-0.0001];
    tx.extend(&grid);
    let truth = CdfCurve {
        cdf: tx.iter().map(|&x| req.data.cdf(x)).collect(),
        x: tx,
    };
    let m_gen = leakage::m_gen(&s, &[x0], req.alpha, side).map_err(alpha_err)?;
    let above = |v: &[f64]| v.iter().filter(|&&x| x > x0).count() as u64;
    let m_bin = leakage::m_bin(above(&s), s.len() as u64, req.alpha, side).map_err(alpha_err)?;
    let expectation = leakage::expectation_bounds(&s, req.alpha, leakage::DEFAULT_STEPSIZE).map_err(alpha_err)?;
    let mut convergence = Vec::new();
    for n in growth(s.len()) {
        let head = &s[..n];
        let b = leakage::m_bin(above(head), n as u64, req.alpha, side)?;
        let g = leakage::m_gen(head, &[x0], req.alpha, side)?;
        convergence.push(Convergence {
            n,
            rate: b.leak_rate,
            lower: b.lower,
            upper: b.upper,
            dkw_upper: g.upper[0],
        });
    }
    Ok(BoundsView {
        band,
        truth,
        m_gen,
        m_bin,
        true_tail: 1.0 - req.data.cdf(x0),
        expectation,
        true_mean: req.data.mean(),
        convergence,
        scores: s,
    })
}

/// The sample-size calculator's question.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PlanRequest {
    pub width: f64,
    pub alpha: f64,
    pub leak_rate: f64,
    pub one_sided: bool,
}

impl Default for PlanRequest {
    fn default() -> Self {
        Self {
            width: 0.05,
            alpha: 0.05,
            leak_rate: 0.0,
            one_sided: false,
        }
    }
}

/// `lethe::leakage::plan_sample_size`.
///
/// # Errors
/// A width outside (0, 1], `alpha ∉ (0, 1)`, a leak rate outside [0, 1], or a plan beyond 2^40 samples.
pub fn plan(req: &PlanRequest) -> WebResult<SampleSizePlan> {
    Ok(leakage::plan_sample_size(&SampleSizeParams {
        width: req.width,
        alpha: req.alpha,
        leak_rate: req.leak_rate,
        sidedness: sidedness(req.one_sided),
    })?)
}

// --- Hand-off: a topic's data as files ---------------------------------------------------------------------------

/// A generated file (`.npy`), for "try it on your data" and for checking the page against the CLI.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExportFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Which topic's data to export, with that topic's request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "topic", rename_all = "snake_case")]
pub enum ExportRequest {
    Hsic(PairsSpec),
    Ranks(RankRequest),
    Epsilon(EpsilonSpec),
    Bounds(ScoresSpec),
}

/// The data of a topic as `.npy` files (one column each; the epsilon samples as `models × 1` matrices, the layout
/// `lethe epsilon` and the competition panel read).
///
/// # Errors
/// As the topic's data generator.
pub fn export(req: &ExportRequest) -> WebResult<Vec<ExportFile>> {
    let col = |name: String, v: &[f64]| ExportFile {
        name,
        bytes: crate::npy::f64_bytes(v, &[v.len(), 1]),
    };
    Ok(match req {
        ExportRequest::Hsic(spec) => {
            let (x, y) = pairs(spec)?;
            let s = spec.seed;
            vec![
                col(format!("hsic_x_seed{s}.npy"), &x),
                col(format!("hsic_y_seed{s}.npy"), &y),
            ]
        }
        ExportRequest::Ranks(r) => {
            let ((x, y), (a, b)) = rank_samples(r)?;
            vec![
                col("mwu_x.npy".into(), &x),
                col("mwu_y.npy".into(), &y),
                col("wilcoxon_x.npy".into(), &a),
                col("wilcoxon_y.npy".into(), &b),
            ]
        }
        ExportRequest::Epsilon(spec) => {
            let (r, u) = epsilon_samples(spec)?;
            let s = spec.seed;
            vec![
                col(format!("teach_retrained_seed{s}.npy"), &r),
                col(format!("teach_unlearned_seed{s}.npy"), &u),
            ]
        }
        ExportRequest::Bounds(spec) => vec![col(format!("teach_scores_seed{}.npy", spec.seed), &scores(spec)?)],
    })
}

// --- The wasm exports --------------------------------------------------------------------------------------------

#[cfg(target_arch = "wasm32")]
mod exports {
    use js_sys::{Array, Object, Reflect, Uint8Array};
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use wasm_bindgen::prelude::*;

    use super::*;

    fn to_js(e: WebError) -> JsValue {
        let err = js_sys::Error::new(&e.message);
        if let Some(input) = &e.input {
            let _ = Reflect::set(&err, &"input".into(), &input.into());
        }
        err.into()
    }

    fn run<Q: DeserializeOwned, R: Serialize>(
        topic: &str,
        request: JsValue,
        f: impl FnOnce(&Q) -> WebResult<R>,
    ) -> Result<JsValue, JsValue> {
        let q: Q = serde_wasm_bindgen::from_value(request)
            .map_err(|e| to_js(WebError::msg(format!("bad `{topic}` request: {e}"))))?;
        let r = f(&q).map_err(to_js)?;
        r.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .map_err(|e| to_js(WebError::msg(format!("internal error converting the result: {e}"))))
    }

    /// A teaching request (`www/src/protocol.md`, message `teach`): `topic` names the computation.
    #[wasm_bindgen]
    pub fn teach(topic: &str, request: JsValue) -> Result<JsValue, JsValue> {
        match topic {
            "hsic.prepare" => run(topic, request, hsic_prepare),
            "hsic.step" => run(topic, request, hsic_step),
            "sde.experiment" => run(topic, request, sde_experiment),
            "sde.sweep" => run(topic, request, sweep_cell),
            "ranks" => run(topic, request, ranks),
            "epsilon" => run(topic, request, epsilon),
            "epsilon.threshold" => run(topic, request, epsilon_threshold),
            "bounds" => run(topic, request, bounds),
            "bounds.plan" => run(topic, request, plan),
            "export" => {
                let q: ExportRequest = serde_wasm_bindgen::from_value(request)
                    .map_err(|e| to_js(WebError::msg(format!("bad `export` request: {e}"))))?;
                let files = export(&q).map_err(to_js)?;
                let out = Array::new();
                for f in &files {
                    let o = Object::new();
                    let _ = Reflect::set(&o, &"name".into(), &f.name.as_str().into());
                    let _ = Reflect::set(&o, &"bytes".into(), &Uint8Array::from(f.bytes.as_slice()).into());
                    out.push(&o);
                }
                Ok(out.into())
            }
            other => Err(to_js(WebError::msg(format!("unknown teaching request `{other}`")))),
        }
    }

    /// Adds a file of the built-in example (`act_<model>.npy`, `softmax.npz`) for the SDE topic.
    #[wasm_bindgen(js_name = teachData)]
    pub fn teach_data(name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
        let added = add_example_file(name, bytes).map_err(to_js)?;
        let out = Array::new();
        for a in added {
            out.push(&a.into());
        }
        Ok(out.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digits(name: &str) -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/data/digits")
            .join(name);
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    #[test]
    fn generated_data_is_seeded_and_shaped() {
        let spec = PairsSpec {
            kind: Dependence::Nonlinear,
            strength: 0.7,
            n: 50,
            seed: 3,
        };
        let (x, y) = pairs(&spec).unwrap();
        assert_eq!((x.len(), y.len()), (50, 50));
        assert_eq!(pairs(&spec).unwrap(), (x.clone(), y.clone()));
        assert_ne!(pairs(&PairsSpec { seed: 4, ..spec }).unwrap().0, x);
        assert!(x.windows(2).all(|w| w[0] <= w[1]), "ordered by x");
        // Independent data does not depend on the strength.
        let none = |s| {
            pairs(&PairsSpec {
                kind: Dependence::None,
                strength: s,
                ..spec
            })
            .unwrap()
        };
        assert_eq!(none(0.1), none(0.9));
        assert!(pairs(&PairsSpec { n: 3, ..spec }).is_err());
        assert!(pairs(&PairsSpec { strength: 1.5, ..spec }).is_err());

        let r = RankRequest {
            ties: true,
            ..Default::default()
        };
        let ((a, b), (c, d)) = rank_samples(&r).unwrap();
        assert_eq!((a.len(), b.len(), c.len(), d.len()), (8, 7, 8, 8));
        assert!(
            a.iter().chain(&b).all(|v| (v * 2.0).fract() == 0.0),
            "rounded to halves"
        );
        assert_eq!(rank_samples(&r).unwrap(), ((a, b), (c, d)));

        let (u, v) = epsilon_samples(&EpsilonSpec::default()).unwrap();
        assert_eq!((u.len(), v.len()), (64, 64));
        assert!(
            epsilon_samples(&EpsilonSpec {
                n_models: 2,
                ..Default::default()
            })
            .is_err()
        );

        let s = scores(&ScoresSpec::default()).unwrap();
        assert_eq!(s.len(), 200);
        assert!(s.iter().all(|v| (0.0..=1.0).contains(v)));
        let f = scores(&ScoresSpec {
            family: Family::Flags,
            p: 0.3,
            ..Default::default()
        })
        .unwrap();
        assert!(f.iter().all(|&v| v == 0.0 || v == 1.0));
        assert!(
            scores(&ScoresSpec {
                n: 0,
                ..Default::default()
            })
            .is_err()
        );
    }

    #[test]
    fn generators_follow_their_stated_distributions() {
        // Large samples: the generating CDF and mean the figures draw are the data's.
        let spec = ScoresSpec {
            n: 20_000,
            p0: 0.4,
            k: 2.0,
            seed: 1,
            ..Default::default()
        };
        let s = scores(&spec).unwrap();
        let mean = s.iter().sum::<f64>() / s.len() as f64;
        assert!((mean - spec.mean()).abs() < 0.01, "{mean} vs {}", spec.mean());
        for x in [0.0, 0.1, 0.5, 0.9] {
            let emp = s.iter().filter(|&&v| v <= x).count() as f64 / s.len() as f64;
            assert!((emp - spec.cdf(x)).abs() < 0.015, "F({x}): {emp} vs {}", spec.cdf(x));
        }
        let flags = ScoresSpec {
            family: Family::Flags,
            p: 0.2,
            n: 20_000,
            ..Default::default()
        };
        let f = scores(&flags).unwrap();
        assert!((f.iter().sum::<f64>() / 20_000.0 - 0.2).abs() < 0.01);
        assert_eq!(flags.cdf(0.5), 0.8);
        // Linear strength s gives correlation ≈ s.
        let (x, y) = pairs(&PairsSpec {
            kind: Dependence::Linear,
            strength: 0.6,
            n: 300,
            seed: 2,
        })
        .unwrap();
        let m = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let (mx, my) = (m(&x), m(&y));
        let cov: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
        let sx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum::<f64>().sqrt();
        let sy: f64 = y.iter().map(|b| (b - my).powi(2)).sum::<f64>().sqrt();
        assert!((cov / (sx * sy) - 0.6).abs() < 0.12);
    }

    #[test]
    fn hsic_steps_equal_the_permutation_test() {
        let req = HsicRequest {
            data: PairsSpec {
                n: 40,
                strength: 0.4,
                seed: 7,
                ..Default::default()
            },
            sigma: Bandwidth::Median,
            permutations: 50,
        };
        let prep = hsic_prepare(&req).unwrap();
        assert_eq!(prep.k.len(), 40 * 40);
        let mut values = Vec::new();
        let mut last = None;
        for max in [1, 3, 10, 100] {
            let s = hsic_step(&HsicStepRequest {
                session: prep.session,
                max,
            })
            .unwrap();
            values.extend(s.values.iter().copied());
            assert_eq!(s.done, values.len());
            assert_eq!(s.counts.iter().sum::<u64>() as usize + s.below + s.above, s.done);
            last = Some(s);
        }
        let last = last.unwrap();
        assert!(last.complete && last.done == 50);
        // The same numbers as `lethe hsic --sigma-x median --sigma-y median --permutations 50 --seed 7`.
        let (x, y) = pairs(&req.data).unwrap();
        let p = lethe::hsic::HsicTestParams {
            bandwidth_x: Bandwidth::Median,
            bandwidth_y: Bandwidth::Median,
            permutations: 50,
            seed: 7,
            precision: Precision::F64,
        };
        let t = lethe::hsic::hsic_test(column(&x).unwrap().view(), column(&y).unwrap().view(), &p).unwrap();
        assert_eq!(t.statistic, prep.statistic);
        assert_eq!(t.null, values);
        assert_eq!((t.p_value, t.exceedances), (last.p_value, last.exceedances));
        assert_eq!((t.sigma_x, t.sigma_y), (prep.sigma_x, prep.sigma_y));
        // The exact null mean is the mean over all shuffles: 50 shuffles land near it.
        let mean = values.iter().sum::<f64>() / 50.0;
        assert!((mean - prep.null_mean).abs() < 4.0 * prep.null_sd / 50f64.sqrt());
        // Kernels are symmetric with unit diagonal; the shuffled kernel is a relabelling of L.
        assert!((0..40).all(|i| prep.k[i * 41] == 1.0 && prep.l_shuffled[i * 41] == 1.0));
        let mut a = prep.l.clone();
        let mut b = prep.l_shuffled.clone();
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        assert_eq!(a, b);
        // A replaced session is an error, not a panic.
        for _ in 0..MAX_SESSIONS {
            hsic_prepare(&req).unwrap();
        }
        assert!(
            hsic_step(&HsicStepRequest {
                session: prep.session,
                max: 1
            })
            .is_err()
        );
        assert!(hsic_prepare(&HsicRequest { permutations: 0, ..req }).is_err());
        assert!(
            hsic_prepare(&HsicRequest {
                sigma: Bandwidth::Fixed(-1.0),
                ..req
            })
            .is_err()
        );
    }

    #[test]
    fn sde_experiment_matches_the_cli_steps() {
        let added = add_example_file("act_retrained.npy", &digits("act_retrained.npy")).unwrap();
        assert_eq!(added, vec!["penultimate/retrained"]);
        assert!(add_example_file("other.npy", b"").is_err());
        let req = SdeRequest {
            size: 40,
            shuffles: 50,
            references: 3,
            seed: 2,
            ..Default::default()
        };
        let e = sde_experiment(&req).unwrap();
        assert_eq!(e.truth, Membership::Out);
        assert_eq!(e.target_rows.len(), 40);
        assert!(e.target_rows.iter().all(|r| FORGET.contains(r)));
        assert_eq!(e.target_rows, target_rows(TargetPool::Forget, 40, 2).unwrap());
        assert_eq!(e.pairs.len(), 3);
        // The first pair's verdict is the calibrated report's paper verdict (same subsets, streams and seed).
        let paper = e.calibrated.targets[0].paper.unwrap();
        assert_eq!(paper.jsd_target_it, e.pairs[0].jsd_target_it);
        assert_eq!(paper.jsd_target_oot, e.pairs[0].jsd_target_oot);
        assert_eq!(paper.in_training, e.sde.targets[0].verdict.in_training);
        // Every pair sees the same target distribution; the exact means are the calibrated report's.
        for (k, p) in e.pairs.iter().enumerate() {
            assert_eq!(p.it_mean, e.calibrated.in_training.stats[k].moments.mean);
            assert_eq!(p.oot_mean, e.calibrated.out_of_training.stats[k].moments.mean);
        }
        assert_eq!(
            e.sde.targets[0].distribution.moments.mean,
            e.calibrated.targets[0].stats.moments.mean
        );
        let c = e.exact_mean;
        assert!(
            (c.closed_form - e.sde.targets[0].distribution.moments.mean).abs() < 1e-12 * c.closed_form.abs().max(1e-12)
        );
        assert_eq!(e.histograms.series.len(), 3);
        assert!(sde_experiment(&SdeRequest { size: 200, ..req }).is_err());
        assert!(
            sde_experiment(&SdeRequest {
                representation: Representation::Softmax,
                model: Model::Original,
                ..req
            })
            .is_err_and(|e| e.message.contains("not loaded"))
        );
        // A sweep cell: F1 of every rule on the controlled experiment.
        let cell = sweep_cell(&SweepRequest {
            size: 20,
            shuffles: 20,
            references: 3,
            draw: 3,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(cell.sigma, 128f64.sqrt());
        assert!(cell.f1.iter().any(|(r, f)| r.starts_with("paper") && f.is_some()));
        // 3 × 20 rows fit in the 200-row pools: disjoint references, no warning about them.
        assert_eq!(cell.overlap.in_training_references.mean, 0.0);
        assert_eq!(cell.overlap.in_training_references.distinct_rows, 60);
        assert!(cell.warnings.is_empty(), "{:?}", cell.warnings);
        // At |S| = 140 the forget-set targets are near-duplicates and the references overlap, with a warning.
        let big = sweep_cell(&SweepRequest {
            size: 140,
            shuffles: 10,
            references: 10,
            draw: 10,
            ..Default::default()
        })
        .unwrap();
        let o = big.overlap;
        assert_eq!((o.out_targets.pool, o.out_targets.subsets), (144, 10));
        assert!(o.out_targets.mean > 0.95 && o.out_targets.distinct_rows <= 144, "{o:?}");
        assert!(
            o.in_training_references.mean > 0.5 && o.in_training_references.distinct_rows <= 200,
            "{o:?}"
        );
        assert!(big.warnings.iter().any(|w| w.contains("overlap")), "{:?}", big.warnings);
    }

    #[test]
    fn subset_overlap_counts_shared_rows() {
        let o = subset_overlap(&[vec![0, 1, 2, 3], vec![3, 2, 9, 8], vec![4, 5, 6, 7]], 10);
        // Pairs: {2,3} shared of 4 → 0.5; 0; 0.
        assert_eq!(
            (o.mean, o.max, o.distinct_rows, o.subsets, o.pool),
            (0.5 / 3.0, 0.5, 10, 3, 10)
        );
        assert!(subset_overlap(&[vec![1, 2]], 5).mean.is_nan());
        // Independent uniform draws share |S|/N on average.
        let sets = lethe::sde::draw_subsets(&(0..144).collect::<Vec<_>>(), 40, 100, 7).unwrap();
        let m = subset_overlap(&sets, 144).mean;
        assert!((m - 100.0 / 144.0).abs() < 0.02, "{m}");
    }

    #[test]
    fn softmax_file_loads_three_models() {
        let added = add_example_file("softmax.npz", &digits("softmax.npz")).unwrap();
        assert_eq!(added.len(), 3);
        let m = example(Representation::Softmax, Model::Original).unwrap();
        assert_eq!((m.rows(), m.cols()), (EXAMPLE_ROWS, 10));
        assert!((0..m.rows()).all(|i| (m.row(i).iter().sum::<f64>() - 1.0).abs() < 1e-5));
    }

    #[test]
    fn ranks_show_what_the_tests_use() {
        let v = ranks(&RankRequest {
            ties: true,
            n_x: 10,
            n_y: 9,
            seed: 5,
            ..Default::default()
        })
        .unwrap();
        let mw = &v.mann_whitney;
        assert_eq!(mw.pooled.len(), 19);
        assert!(mw.pooled.windows(2).all(|w| w[0].value <= w[1].value));
        let r1: f64 = mw.pooled.iter().filter(|p| p.sample == 'x').map(|p| p.rank).sum();
        assert_eq!(r1, mw.rank_sum_x);
        assert_eq!(mw.auto.statistic, r1 - 55.0);
        // Tied values share a group and a rank.
        for p in &mw.pooled {
            if let Some(g) = p.tie {
                assert!(
                    mw.pooled
                        .iter()
                        .filter(|q| q.tie == Some(g))
                        .all(|q| q.value == p.value && q.rank == p.rank)
                );
            }
        }
        assert!(mw.auto.has_ties && mw.pooled.iter().any(|p| p.tie.is_some()));
        assert_eq!(mw.null.pmf.len(), 91);
        let w = &v.wilcoxon;
        let plus: f64 = w.rows.iter().filter(|r| r.sign > 0).map(|r| r.rank).sum();
        assert_eq!(plus, w.auto.r_plus);
        assert!(matches!(w.exact, Outcome::Ok(_)));
        assert!(
            ranks(&RankRequest {
                n_x: 1,
                ..Default::default()
            })
            .is_err()
        );
    }

    #[test]
    fn epsilon_threshold_agrees_with_the_best_attack() {
        let req = EpsilonRequest::default();
        let v = epsilon(&req).unwrap();
        assert_eq!(v.eps_max, 63f64.ln().ceil());
        let best = v.exhaustive.best_attack.unwrap();
        let t = match best.rule {
            AttackRule::AtLeast { threshold } | AttackRule::Below { threshold } => threshold,
            AttackRule::Interval { .. } => unreachable!(),
        };
        let dir = if matches!(best.rule, AttackRule::AtLeast { .. }) {
            Direction::AtLeast
        } else {
            Direction::Below
        };
        let at = epsilon_threshold(&EpsilonRequest {
            threshold: Some(t),
            direction: Some(dir),
            ..req
        })
        .unwrap();
        assert_eq!(at.attack.epsilon, v.exhaustive.epsilon);
        assert_eq!((at.bucket, at.points), (v.exhaustive.bucket, v.exhaustive.points));
        let top = v
            .at_least
            .epsilon
            .iter()
            .chain(&v.below.epsilon)
            .filter(|e| !e.is_nan())
            .fold(0.0f64, |a, &b| a.max(b));
        assert_eq!(top, v.exhaustive.epsilon);
        // The unlearned outputs are shifted up, so the retrained side is below the threshold.
        assert_eq!(v.direction, Direction::Below);
        assert!(v.clopper_pearson.epsilon <= v.exhaustive.epsilon);
        assert!(
            epsilon_threshold(&EpsilonRequest {
                threshold: Some(f64::NAN),
                ..req
            })
            .is_err()
        );
    }

    #[test]
    fn bounds_converge_and_cover() {
        let req = BoundsRequest {
            data: ScoresSpec {
                n: 2000,
                ..Default::default()
            },
            ..Default::default()
        };
        let v = bounds(&req).unwrap();
        assert_eq!(v.convergence.last().unwrap().n, 2000);
        assert_eq!(v.convergence[0].n, 10);
        assert!(v.convergence.windows(2).all(|w| w[0].n < w[1].n));
        let first = v.convergence[0];
        let last = v.convergence.last().unwrap();
        assert!(
            last.upper - last.lower < first.upper - first.lower,
            "the interval narrows"
        );
        assert_eq!((last.lower, last.upper), (v.m_bin.lower, v.m_bin.upper));
        assert_eq!(last.dkw_upper, v.m_gen.upper[0]);
        assert!(v.m_bin.lower <= v.true_tail && v.true_tail <= v.m_bin.upper);
        assert!(v.expectation.lower <= v.true_mean && v.true_mean <= v.expectation.upper);
        assert!(bounds(&BoundsRequest { alpha: 0.0, ..req }).is_err_and(|e| e.input.as_deref() == Some("alpha")));
        let p = plan(&PlanRequest {
            width: 0.05,
            alpha: 0.05,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(p.dkw_n, 738);
    }

    #[test]
    fn exports_are_npy_columns() {
        let files = export(&ExportRequest::Epsilon(EpsilonSpec::default())).unwrap();
        assert_eq!(files.len(), 2);
        let m = lethe::data::load_bytes::<f64>("r.npy", &files[0].bytes, &Default::default())
            .unwrap()
            .matrix;
        assert_eq!((m.rows(), m.cols()), (64, 1));
        assert_eq!(m.as_slice(), &epsilon_samples(&EpsilonSpec::default()).unwrap().0[..]);
        let json = serde_json::to_value(ExportRequest::Bounds(ScoresSpec::default())).unwrap();
        assert_eq!(json["topic"], "bounds");
        let back: ExportRequest = serde_json::from_value(serde_json::json!({"topic": "hsic", "n": 30})).unwrap();
        assert_eq!(
            back,
            ExportRequest::Hsic(PairsSpec {
                n: 30,
                ..Default::default()
            })
        );
    }
}
