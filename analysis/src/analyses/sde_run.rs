//! SDE: split-half dependence of subsets, the paper's verdicts, and what a stopped run supports; the guardrails
//! every front end gets (subsets of one size, enough rows, finite values named in the file's own rows) and the one
//! headline that reconciles the paper's rule with the exact shuffle means.

#[cfg(feature = "clap")]
use super::stats::checked;
use super::*;
use crate::report::{Headline, Warning};
use crate::words;

mod placebo;
pub use lethe::sde::placebo::{PlaceboClass, PlaceboTarget, Placebos};
pub(super) use lethe::sde::placebo::{null_sd, t95};
use placebo::{NoPlacebos, PlaceboCheck, PlaceboWords};

/// `lethe sde`'s options (same names and defaults) plus the backend. With the `clap` feature (the CLI's), the
/// options are `lethe sde`'s arguments, declared here once, in the order `lethe sde --help` lists them (the CLI
/// reads the inputs itself).
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct SdeRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub in_training: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub out_of_training: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub target: Vec<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub target_in: Vec<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub target_out: Vec<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub draw_from: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub draw_in: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub draw_out: Option<InputRef>,
    /// Number of targets drawn from each pool
    #[cfg_attr(feature = "clap", arg(long, default_value_t = SdeRequest::default().draw))]
    pub draw: usize,
    /// Rows per drawn target
    #[cfg_attr(feature = "clap", arg(long))]
    pub size: Option<usize>,
    /// Subsets of different sizes are refused (HSIC's shuffle mean tracks the size); with this, the smallest size
    /// is drawn (seeded) from every larger subset instead
    #[cfg_attr(feature = "clap", arg(long))]
    pub equal_size: bool,
    /// Bandwidth: sqrt_dim (paper default), median, or a number
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<Bandwidth>, default_value_t = SdeRequest::default().sigma))]
    pub sigma: String,
    /// Shuffles of the second half per subset (T)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = SdeRequest::default().shuffles))]
    pub shuffles: usize,
    #[cfg_attr(feature = "clap", arg(long, default_value_t = SdeRequest::default().seed))]
    pub seed: u64,
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["first", "random"], default_value_t = SdeRequest::default().split))]
    pub split: String,
    /// Histogram bins of the JSD
    #[cfg_attr(feature = "clap", arg(long, default_value_t = SdeRequest::default().bins))]
    pub bins: usize,
    /// Kernel storage: f64 or f32 [default: f64 on the CPU; the GPU computes in f32 only]
    // `None`: the backend's, decided here ([`SdeRequest::kernel_precision`]), so that every front end runs a request
    // that names no precision the same way.
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<Precision>))]
    pub precision: Option<String>,
    /// Compute backend: cpu, or gpu (lethe-gpu through wgpu: Vulkan or GL; f32 only, one device, no --threads)
    // `cpu` or `webgpu` (wgpu: the page's WebGPU, the CLI's lethe-gpu); the command line calls the latter `gpu`.
    #[cfg_attr(feature = "clap", arg(long, value_parser = cli_backend(), default_value = "cpu"))]
    pub backend: String,
    /// Also compute the MMD and Wasserstein-1 baseline verdicts
    #[cfg_attr(feature = "clap", arg(long))]
    pub baselines: bool,
    /// One worker's part of a pooled run: the subsets (0, 1: references; 2 + i: target i) to compute. Pooled runs
    /// happen in the full module only (this and `assemble` keep their reading code out of the lean one).
    #[cfg(feature = "full")]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub part: Option<Vec<u64>>,
    /// The parts of a pooled run, to assemble into its report.
    #[cfg(feature = "full")]
    #[cfg_attr(feature = "clap", arg(skip))]
    pub assemble: Option<Vec<PartSubset>>,
}

/// `--backend`'s values: the command line's `cpu` and `gpu`, the latter the request's `webgpu` (the same wgpu
/// backend; the CLI runs it natively through lethe-gpu).
#[cfg(feature = "clap")]
fn cli_backend() -> impl clap::builder::TypedValueParser<Value = String> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(["cpu", "gpu"]).map(|b| if b == "gpu" { "webgpu".to_string() } else { b })
}

impl Default for SdeRequest {
    fn default() -> Self {
        let p = SdeParams::default();
        Self {
            in_training: None,
            out_of_training: None,
            target: Vec::new(),
            target_in: Vec::new(),
            target_out: Vec::new(),
            draw_from: None,
            draw_in: None,
            draw_out: None,
            draw: 10,
            size: None,
            equal_size: false,
            sigma: "sqrt_dim".into(),
            shuffles: p.shuffles,
            seed: p.seed,
            split: "first".into(),
            bins: p.bins,
            precision: None,
            backend: "cpu".into(),
            baselines: p.baselines,
            #[cfg(feature = "full")]
            part: None,
            #[cfg(feature = "full")]
            assemble: None,
        }
    }
}

impl SdeRequest {
    /// The kernels' storage precision, as given (`f64` or `f32`), else the backend's: f64 on the CPU (the
    /// reference), f32 on WebGPU (its only precision: WebGPU and Lethe's shaders have no f64).
    ///
    /// # Errors
    /// f64 asked of WebGPU, an unknown backend (usage errors).
    pub fn kernel_precision(&self) -> Result<&str> {
        let gpu = backend_choice(&self.backend)? == BackendChoice::WebGpu;
        match (gpu, self.precision.as_deref()) {
            (true, Some(p)) if p.parse::<Precision>().is_ok_and(|p| p == Precision::F64) => Err(Error::msg(format!(
                "{} computes in f32 only (WebGPU and Lethe's shaders have no f64): drop {}, or use {}",
                words::opt_is("backend", "webgpu"),
                words::opt_is("precision", "f64"),
                words::opt_is("backend", "cpu")
            ))
            .usage()),
            (_, Some(p)) => Ok(p),
            (true, None) => Ok("f32"),
            (false, None) => Ok("f64"),
        }
    }
}

/// The parameters `lethe sde --json` reports (its arguments; inputs as their specs), built once here so that the
/// CLI's report and the page's export agree field for field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SdeParameters {
    pub it: String,
    pub oot: String,
    pub target: Vec<String>,
    pub target_in: Vec<String>,
    pub target_out: Vec<String>,
    pub draw_from: Option<String>,
    pub draw_in: Option<String>,
    pub draw_out: Option<String>,
    pub draw: usize,
    pub size: Option<usize>,
    pub sigma: String,
    pub shuffles: usize,
    pub seed: u64,
    pub split: String,
    pub bins: usize,
    pub precision: String,
    /// Recorded only when it is not the CPU (the CLI's `gpu`, the page's `webgpu`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    pub baselines: bool,
    /// Recorded only when asked for.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub equal_size: bool,
}

pub(super) const SDE_ROLES: [&str; 8] = [
    "in_training",
    "out_of_training",
    "target",
    "target_in",
    "target_out",
    "draw-from",
    "draw-in",
    "draw-out",
];

/// Whether an input for `role` is opened as SDE and the calibrated verdict open theirs ([`Workspace::open`]: read
/// in place when large), so that a slot's check shows what a run will do. RULER's model files too: its run loads
/// only the forget and retain rows of a large file (`ruler_run::selected_rows`), so its slot must not load, and be
/// refused for, every row of it (issue 24: a 1 GiB file with index files selecting 1,050 rows was shown as
/// needing 2.15 GB, "load a subset of rows").
pub fn opens_in_place(role: &str) -> bool {
    role == "data" || SDE_ROLES.contains(&role) || RULER_MODEL_ROLES.contains(&role)
}

/// One subset of an SDE run: rows of one of the run's inputs (all of them when `rows` is `None`).
struct SubsetDef {
    name: String,
    input: usize,
    /// Rows of the input's source: drawn targets are rows of their pool (never copied out of it), and an input
    /// read in place keeps its own row selection here.
    rows: Option<Vec<usize>>,
    label: Option<bool>,
}

/// Every input must hold activations of the same layer: as many values per row as the in-training reference set.
/// A mismatch names both files, their shapes and the fix.
fn same_layer(inputs: &[Holding], roles: &[&str]) -> Result<()> {
    let Some(first) = inputs.first() else {
        return Ok(());
    };
    let d = first.cols();
    let shape = |h: &Holding| format!("{} × {}", h.rows(), h.cols());
    for (h, role) in inputs.iter().zip(roles).skip(1) {
        if h.cols() != d {
            let what = match *role {
                "out_of_training" => "the out-of-training reference set",
                "target" | "target_in" | "target_out" => "a target",
                _ => "a pool to draw targets from",
            };
            return Err(Error::at(
                *role,
                format!(
                    "`{}` ({what}, {}) has {} columns but the in-training reference set `{}` ({}) has {d}: \
                     all subsets must be activations of the same layer of the same model. Give every subset from \
                     the same layer's activations",
                    h.record().path,
                    shape(h),
                    h.cols(),
                    first.record().path,
                    shape(first)
                ),
            ));
        }
    }
    Ok(())
}

/// An input of a run as it is held: as the workspace opened it, or (see [`prepare_sde_exact_f32`]) loaded as f32
/// when f32 holds its stored values exactly (with the loader's warnings).
enum Holding {
    Held(Held),
    F32(Box<(Matrix<f32>, InputRecord, Vec<Note>)>),
}

impl Holding {
    fn record(&self) -> &InputRecord {
        match self {
            Holding::Held(h) => h.record(),
            Holding::F32(b) => &b.1,
        }
    }

    fn rows(&self) -> usize {
        self.record().rows_used
    }

    /// Values per row (an input read in place: the file's shape after its first axis).
    fn cols(&self) -> usize {
        match self {
            Holding::Held(Held::Loaded(i)) => i.matrix.cols(),
            Holding::Held(h) => h.record().shape.iter().skip(1).map(|&d| d as usize).product(),
            Holding::F32(b) => b.0.cols(),
        }
    }

    fn file(&self) -> Result<Option<lethe::data::ArrayFile<'_>>> {
        match self {
            Holding::Held(h) => h.file(),
            Holding::F32(..) => Ok(None),
        }
    }

    fn source<'a, S: HeldScalar>(
        &'a self,
        file: Option<&'a lethe::data::ArrayFile<'a>>,
    ) -> Result<lethe::data::Source<'a, S>> {
        if let Some(m) = S::memory(self) {
            return Ok(lethe::data::Source::Memory(m));
        }
        match (self, file) {
            (Holding::Held(Held::InPlace(_)), Some(f)) => Ok(lethe::data::Source::File(f)),
            _ => Err(Error::at(
                &self.record().role,
                "internal error: an input is held in another precision than the run's",
            )),
        }
    }
}

/// The element types a run holds its inputs in: f64 as loaded, or f32 ([`prepare_sde_exact_f32`]).
trait HeldScalar: lethe::data::Scalar {
    fn memory(h: &Holding) -> Option<lethe::MatrixRef<'_, Self>>;
}

impl HeldScalar for f64 {
    fn memory(h: &Holding) -> Option<lethe::MatrixRef<'_, f64>> {
        match h {
            Holding::Held(Held::Loaded(i)) => Some(i.matrix.view()),
            _ => None,
        }
    }
}

impl HeldScalar for f32 {
    fn memory(h: &Holding) -> Option<lethe::MatrixRef<'_, f32>> {
        match h {
            Holding::F32(b) => Some(b.0.view()),
            _ => None,
        }
    }
}

/// Stored types whose every value an f32 holds exactly (so a run on f32 copies gives the same numbers).
const EXACT_IN_F32: [&str; 8] = [
    "float32", "float16", "bfloat16", "int8", "uint8", "int16", "uint16", "bool",
];

/// An SDE run with its inputs opened (no borrow of the workspace, so the page can add files while it runs).
pub struct SdeJob {
    /// The inputs in the CLI's order: the references, the given targets, the pools; loaded or read in place.
    inputs: Vec<Holding>,
    /// Whether the loaded inputs are held as f32 ([`prepare_sde_exact_f32`]).
    f32: bool,
    /// Subset 0 the in-training reference, 1 the out-of-training one, 2 + i target i.
    subsets: Vec<SubsetDef>,
    params: SdeParams,
    parameters: SdeParameters,
    records: Vec<InputRecord>,
    load_warnings: Vec<LoadWarning>,
    /// The checks' warnings so far (the loaders', equal-size draws).
    warnings: Vec<Warning>,
}

/// What an SDE run returns to the page.
#[derive(Clone, Debug, Serialize)]
pub struct SdeOutput {
    /// The one call: per target in or out of training or inconclusive (the paper's rule and the exact shuffle
    /// means must agree), for many targets how many of each; "inconclusive" with the reason.
    pub headline: Headline,
    /// What a person should know before trusting the result (stable codes), the loaders' included.
    pub warnings: Vec<Warning>,
    /// As `lethe sde --json` prints under `parameters`.
    pub parameters: SdeParameters,
    /// Each finished target's call under both rules and the reconciled one.
    pub calls: Vec<TargetCall>,
    /// The core's report with the layer's placebo check (`placebos`), as `lethe sde --json` prints under `result`.
    pub result: SdeReport,
    pub seed: u64,
    pub inputs: Vec<InputRecord>,
    pub load_warnings: Vec<LoadWarning>,
    /// Histograms of every distribution on shared edges (the core's `numpy.histogram`); a stopped run's started
    /// but unfinished targets are included (role `target`, after the finished ones, named as in `partial`).
    pub histograms: Option<Histograms>,
    /// For a stopped run (`result.complete == false`): what the shuffles computed so far support.
    pub partial: Option<SdePartial>,
}

impl SdeOutput {
    /// The report `lethe sde --json` prints, the Python package returns and the page exports.
    pub fn report(&self) -> crate::Report<&SdeParameters, &SdeReport> {
        crate::Report::new(
            "sde",
            &self.parameters,
            Some(self.seed),
            self.inputs.clone(),
            self.headline.clone(),
            self.warnings.clone(),
            &self.result,
        )
    }
}

/// One target's call: the paper's JSD rule, the exact shuffle means of the same reference pair (the calibrated
/// rule with one reference per class: the nearer mean), and the call both support.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetCall {
    pub name: String,
    pub label: Option<bool>,
    /// `in_training`, `out_of_training` or `inconclusive`.
    pub call: String,
    /// The paper's rule: `Some(true)` in training; `None` on a tie of the two JSDs.
    pub paper: Option<bool>,
    /// The nearer exact shuffle mean: `Some(true)` the in-training reference's; `None` on a tie.
    pub exact_mean: Option<bool>,
    /// Why the call is inconclusive.
    pub reason: Option<String>,
}

/// One subset of a stopped run: how far it got, and its exact moments (closed form over all shuffles, so
/// available however few shuffles were done).
#[derive(Clone, Debug, Serialize)]
pub struct PartialSubset {
    /// `in_training`, `out_of_training`, or the target's name (`target[0]`, `draw-in[3]`, ...).
    pub name: String,
    pub shuffles_done: usize,
    pub shuffles_planned: usize,
    pub complete: bool,
    pub moments: sde::ShuffleMoments,
}

/// The paper's rule and the Mann–Whitney test of a target on the shuffles done so far — of the target and of
/// both references (each a prefix of the stream the full run would draw). Not the full run's result: with more
/// shuffles the histograms, and so the JSDs and the verdict, can change.
#[derive(Clone, Debug, Serialize)]
pub struct PartialTarget {
    pub name: String,
    pub label: Option<bool>,
    pub shuffles_done: usize,
    pub complete: bool,
    pub verdict: sde::Verdict,
    pub mann_whitney_target_vs_oot: lethe::mann_whitney::MannWhitneyResult,
}

/// What a stopped SDE run's shuffles support, computed by the core on the values so far.
#[derive(Clone, Debug, Serialize)]
pub struct SdePartial {
    /// Every subset in the run's order (references, then targets), started or not.
    pub subsets: Vec<PartialSubset>,
    /// The one-sided Mann–Whitney test IT > OOT on the reference shuffles done so far (both started).
    pub reference_separation: Option<lethe::mann_whitney::MannWhitneyResult>,
    /// Targets with shuffles done that the report's `targets` does not hold (unfinished, or finished after an
    /// unfinished one by another worker), each on the shuffles so far; only when both references have values.
    pub targets: Vec<PartialTarget>,
    /// SDE compares distributions (JSD) rather than testing an observed statistic against shuffles, so it has no
    /// permutation p-value and no p-value interval to report for a stopped run.
    pub p_value_interval: Option<(f64, f64)>,
    /// The shuffle values of every started target that the report's `targets` does not hold: the distribution so
    /// far (a prefix of the stream the full run draws for that target).
    pub unfinished_targets: Vec<UnfinishedTarget>,
}

/// A target's shuffle values so far (see [`SdePartial::unfinished_targets`]).
#[derive(Clone, Debug, Serialize)]
pub struct UnfinishedTarget {
    pub name: String,
    pub label: Option<bool>,
    pub complete: bool,
    pub values: Vec<f64>,
}

/// Rows of the source an input uses as a whole: `None` when loaded (its matrix is the selection), its row
/// selection when read in place.
fn selection(h: &Holding) -> Option<Vec<usize>> {
    match h {
        Holding::Held(Held::InPlace(p)) => p.rows.clone(),
        _ => None,
    }
}

/// Opens `r` for `role`: as the workspace opens it (in place when its policy says so, else loaded), loaded as
/// f32 when `f32` and it is not read in place.
fn open(ws: &mut Workspace, role: &str, r: &InputRef, f32: bool) -> Result<Holding> {
    // Only the CLI holds f32 copies: the lean wasm module leaves that code out.
    if !(cfg!(feature = "full") && f32) {
        return Ok(Holding::Held(ws.open(role, r)?));
    }
    if let Some(h) = ws.open_in_place(role, r)? {
        return Ok(Holding::Held(h));
    }
    let loaded = ws.load_as::<f32>(role, r).map_err(|e| e.or_at(role))?;
    Ok(Holding::F32(Box::new(loaded)))
}

/// Whether the array `r` names stores values that f32 holds exactly (from its headers; text formats are parsed
/// as f64 and never qualify).
fn exact_in_f32(ws: &Workspace, r: &InputRef) -> bool {
    let Ok(src) = ws.source(r.source) else {
        return false;
    };
    let name = src.name.to_ascii_lowercase();
    if [".csv", ".tsv", ".txt", ".json"].iter().any(|e| name.ends_with(e)) {
        return false;
    }
    lethe::data::inspect(&src.name, &*src.data).is_ok_and(|info| {
        info.array(r.tensor.as_deref())
            .is_some_and(|a| EXACT_IN_F32.contains(&a.dtype.as_str()))
    })
}

/// Targets drawn from a pool (`lethe::sde::draw_targets`, as the CLI: the seed offset depends on the label), as
/// rows of the pool's source.
fn draw_targets(
    pool: &Holding,
    role: &str,
    label: Option<bool>,
    count: usize,
    size: Option<usize>,
    seed: u64,
) -> Result<Vec<(String, Vec<usize>)>> {
    let size = size.ok_or_else(|| {
        Error::at(
            role,
            format!(
                "drawing targets from `{}` needs a target size (rows per drawn target)",
                crate::words::role(role)
            ),
        )
        .usage()
    })?;
    let draws = sde::draw_targets(label, pool.rows(), count, size, seed).map_err(|e| Error::at(role, e.to_string()))?;
    let sel = selection(pool);
    Ok(draws
        .into_iter()
        .enumerate()
        .map(|(k, pos)| {
            let rows = pos.iter().map(|&i| sel.as_ref().map_or(i, |s| s[i])).collect();
            (format!("{role}[{k}]"), rows)
        })
        .collect())
}

/// A subset's name as a person reads it.
pub(super) fn subset_label(name: &str) -> String {
    match name {
        "in_training" => "the in-training reference".into(),
        "out_of_training" => "the out-of-training reference".into(),
        other => other.to_string(),
    }
}

/// The smallest subset SDE can split: two halves of at least 2 rows.
pub(super) const MIN_ROWS: usize = 4;

/// Refuses a subset under [`MIN_ROWS`] rows (`what`: the subset as a person reads it, with its input's spec).
pub(super) fn too_few_rows(role: &str, what: &str, rows: usize) -> Error {
    Error::refused(
        "too_few_rows",
        Some(role),
        format!(
            "{what} has {rows} row{}, but SDE splits every subset into two halves of at least 2 rows, so it needs at \
             least {MIN_ROWS}: choose more rows for it",
            if rows == 1 { "" } else { "s" }
        ),
    )
}

/// "a, b and c".
pub(super) fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Seeded positions of `size` of `n` rows for subset `k` of a run (`Subsets` stream, subset number `1 + k`: never
/// the stream that draws targets or reference subsets, which use subset number 0 of their seeds).
pub(super) fn equal_size_draw(seed: u64, k: usize, n: usize, size: usize) -> Vec<usize> {
    let mut rng = lethe::permute::Permutations::for_subset(seed, lethe::permute::Stream::Subsets, 1 + k as u64);
    rng.subset(n, size)
}

/// The refusal of subsets of different sizes: each subset (grouped: a pool's drawn targets once) with its rows.
pub(super) fn unequal_sizes(role: &str, sizes: &[(String, usize)], smallest: usize, flag: &str) -> Error {
    let listed: Vec<String> = sizes
        .iter()
        .take(6)
        .map(|(what, n)| format!("{what}: {n} rows"))
        .collect();
    let more = if sizes.len() > 6 {
        format!(" and {} more", sizes.len() - 6)
    } else {
        String::new()
    };
    Error::refused(
        "unequal_subset_sizes",
        Some(role),
        format!(
            "the subsets have different sizes ({}{more}). HSIC's mean over shuffles grows as a subset gets smaller, \
             so a verdict between subsets of different sizes reflects their sizes, not whether they were in \
             training: give every subset the same number of rows, or {flag} to use {smallest} rows (the smallest \
             subset's size) drawn, seeded, from each larger one",
            and_list(&listed)
        ),
    )
}

/// The first non-finite value in rows `rows` (all when `None`) of `m`: (row of `m`, column, value).
pub(super) fn first_non_finite<S: lethe::data::Scalar>(
    m: lethe::MatrixRef<'_, S>,
    rows: Option<&[usize]>,
) -> Option<(usize, usize, f64)> {
    let check = |r: usize| {
        let row = m.row(r);
        if row.iter().fold(true, |ok, v| ok & v.to_f64().is_finite()) {
            None
        } else {
            row.iter()
                .position(|v| !v.to_f64().is_finite())
                .map(|c| (r, c, row[c].to_f64()))
        }
    };
    match rows {
        None => (0..m.rows()).find_map(check),
        Some(rows) => {
            // Each row once, in row order (drawn targets share rows of their pool).
            let mut used = vec![false; m.rows()];
            for &r in rows {
                if let Some(u) = used.get_mut(r) {
                    *u = true;
                }
            }
            (0..m.rows()).filter(|&r| used[r]).find_map(check)
        }
    }
}

/// The refusal of a non-finite value at row `row` (of the file), column `col` of input `record`.
pub(super) fn non_finite(role: &str, record: &InputRecord, row: usize, col: usize, value: f64) -> Error {
    let tensor = record
        .tensor
        .as_ref()
        .map_or(String::new(), |t| format!(" (array `{t}`)"));
    Error::refused(
        "non_finite",
        Some(role),
        format!(
            "`{}`{tensor} has a non-finite value ({value}) in row {row}, column {col} of the file (counting from \
             0); SDE needs finite numbers: fix or remove that row, or choose rows without it",
            record.path
        ),
    )
}

/// Loads everything an SDE run needs, in the CLI's order (records: references, targets, pools), and checks it:
/// every subset of at least [`MIN_ROWS`] rows, all of one size (or drawn to one size when asked), finite values
/// (named by the row of the file they are in).
///
/// # Errors
/// Missing references, unreadable inputs, bad parameters, the refusals above; attributed to the role concerned.
pub fn prepare_sde(ws: &mut Workspace, req: &SdeRequest) -> Result<SdeJob> {
    prepare(ws, req, false)
}

/// [`prepare_sde`], holding the inputs as f32 when every input (loaded or read in place) stores values that f32
/// holds exactly (float32, float16, bfloat16, 8- and 16-bit integers, bool): the values, and so every number of
/// the report, are the same, in half the memory and with less of it to stream through the kernels (the CLI: the
/// Table 9 job is about 4% faster and needs 24 instead of 40 MB).
///
/// # Errors
/// As [`prepare_sde`].
pub fn prepare_sde_exact_f32(ws: &mut Workspace, req: &SdeRequest) -> Result<SdeJob> {
    let all = [
        &req.in_training,
        &req.out_of_training,
        &req.draw_from,
        &req.draw_in,
        &req.draw_out,
    ]
    .into_iter()
    .flatten()
    .chain(req.target.iter().chain(&req.target_in).chain(&req.target_out));
    let exact = all.into_iter().all(|r| exact_in_f32(ws, r));
    prepare(ws, req, exact)
}

fn prepare(ws: &mut Workspace, req: &SdeRequest, f32: bool) -> Result<SdeJob> {
    let precision = req.kernel_precision()?;
    // The baselines (MMD, Wasserstein-1) are the full module's: the lean one leaves their code out.
    if !cfg!(feature = "full") && req.baselines {
        return Err(Error::needs_full("the baselines are computed by the full module"));
    }
    let it_ref = req
        .in_training
        .as_ref()
        .ok_or_else(|| Error::at("in_training", "choose the in-training reference set"))?;
    let oot_ref = req
        .out_of_training
        .as_ref()
        .ok_or_else(|| Error::at("out_of_training", "choose the out-of-training reference set"))?;
    let mut inputs = vec![
        open(ws, "in_training", it_ref, f32)?,
        open(ws, "out_of_training", oot_ref, f32)?,
    ];
    let mut refs = vec![it_ref.clone(), oot_ref.clone()];
    let mut subsets = vec![
        SubsetDef {
            name: "in_training".into(),
            input: 0,
            rows: selection(&inputs[0]),
            label: None,
        },
        SubsetDef {
            name: "out_of_training".into(),
            input: 1,
            rows: selection(&inputs[1]),
            label: None,
        },
    ];
    let mut roles = vec!["in_training", "out_of_training"];
    for (list, label, role) in [
        (&req.target, None, "target"),
        (&req.target_in, Some(true), "target_in"),
        (&req.target_out, Some(false), "target_out"),
    ] {
        for (k, r) in list.iter().enumerate() {
            let t = open(ws, role, r, f32)?;
            subsets.push(SubsetDef {
                name: format!("{role}[{k}]"),
                input: inputs.len(),
                rows: selection(&t),
                label,
            });
            inputs.push(t);
            refs.push(r.clone());
            roles.push(role);
        }
    }
    for (pool, label, role) in [
        (&req.draw_from, None, "draw-from"),
        (&req.draw_in, Some(true), "draw-in"),
        (&req.draw_out, Some(false), "draw-out"),
    ] {
        if let Some(r) = pool {
            let p = open(ws, role, r, f32)?;
            for (name, rows) in draw_targets(&p, role, label, req.draw, req.size, req.seed)? {
                subsets.push(SubsetDef {
                    name,
                    input: inputs.len(),
                    rows: Some(rows),
                    label,
                });
            }
            inputs.push(p);
            refs.push(r.clone());
            roles.push(role);
        }
    }
    let records: Vec<InputRecord> = inputs.iter().map(|h| h.record().clone()).collect();
    same_layer(&inputs, &roles)?;
    let mut warnings = equal_sizes(&mut subsets, &inputs, &roles, &records, req)?;
    check_finite(ws, &subsets, &inputs, &roles, &refs)?;
    // Not in the page's lean module (its size is budgeted; it computes the built-in example's first results, and
    // the full module, which takes over after them, runs this check for a person's own files).
    #[cfg(feature = "full")]
    warnings.extend(shared_rows(&subsets, &inputs));
    let half = subsets
        .iter()
        .map(|d| d.rows.as_ref().map_or_else(|| inputs[d.input].rows(), Vec::len) / 2)
        .min()
        .unwrap_or(0);
    warnings.extend(few_shuffles(half, req.shuffles));
    let params = SdeParams {
        bandwidth: parse::<Bandwidth>(&req.sigma)?,
        shuffles: req.shuffles,
        seed: req.seed,
        split: match req.split.as_str() {
            "first" => Split::First,
            "random" => Split::Random,
            other => return Err(Error::msg(format!("split `{other}` is not one of first, random")).usage()),
        },
        bins: req.bins,
        precision: parse::<Precision>(precision)?,
        baselines: req.baselines,
    };
    let loaded: Vec<(&str, &Input)> = roles
        .iter()
        .zip(&inputs)
        .filter_map(|(r, h)| match h {
            Holding::Held(Held::Loaded(i)) => Some((*r, &**i)),
            _ => None,
        })
        .collect();
    let mut load_warnings = load_warnings(&loaded);
    for (role, h) in roles.iter().zip(&inputs) {
        if let Holding::F32(b) = h {
            load_warnings.extend(b.2.iter().map(|w| LoadWarning {
                role: (*role).to_string(),
                message: w.clone(),
            }));
        }
    }
    let mut all_warnings: Vec<Warning> = load_warnings.iter().map(reader_warning).collect();
    all_warnings.extend(warnings);
    let spec = |role: &str| records.iter().find(|r| r.role == role).map(|r| r.spec.clone());
    let specs = |role: &str| {
        records
            .iter()
            .filter(|r| r.role == role)
            .map(|r| r.spec.clone())
            .collect()
    };
    let parameters = SdeParameters {
        it: spec("in_training").unwrap_or_default(),
        oot: spec("out_of_training").unwrap_or_default(),
        target: specs("target"),
        target_in: specs("target_in"),
        target_out: specs("target_out"),
        draw_from: spec("draw-from"),
        draw_in: spec("draw-in"),
        draw_out: spec("draw-out"),
        draw: req.draw,
        size: req.size,
        sigma: req.sigma.clone(),
        shuffles: req.shuffles,
        seed: req.seed,
        split: req.split.clone(),
        bins: req.bins,
        precision: precision.to_string(),
        backend: (req.backend != "cpu" && !req.backend.is_empty()).then(|| req.backend.clone()),
        baselines: req.baselines,
        equal_size: req.equal_size,
    };
    Ok(SdeJob {
        inputs,
        f32,
        subsets,
        params,
        parameters,
        records,
        load_warnings,
        warnings: all_warnings,
    })
}

/// A warning when halves of `half` rows have fewer distinct orders (half!) than the `shuffles` asked for: the
/// shuffles then repeat, and each distribution holds at most half! distinct values.
pub(super) fn few_shuffles(half: usize, shuffles: usize) -> Option<Warning> {
    let orders = (1..=half).try_fold(1usize, |acc, k| acc.checked_mul(k).filter(|&v| v < shuffles));
    let orders = orders.filter(|&o| o < shuffles)?;
    Some(Warning::new(
        "few_distinct_shuffles",
        None,
        format!(
            "the smallest subset splits into halves of {half} rows, which can be shuffled in only {orders} \
             distinct orders: the {shuffles} shuffles asked for repeat them, so its distribution holds at most \
             {orders} distinct values"
        ),
        Some("use subsets of at least 12 rows (halves of 6: 720 orders)".into()),
    ))
}

/// A loader's warning (a detected header, bytes after the data, ...) as a report warning about its input.
pub(super) fn reader_warning(w: &LoadWarning) -> Warning {
    super::file_warning(Some(&w.role), &w.message)
}

/// Refuses subsets under [`MIN_ROWS`] rows and subsets of different sizes (halves of different sizes: an odd last
/// row is never used) — or, with `equal_size`, draws the smallest size from every larger subset.
fn equal_sizes(
    subsets: &mut [SubsetDef],
    inputs: &[Holding],
    roles: &[&str],
    records: &[InputRecord],
    req: &SdeRequest,
) -> Result<Vec<Warning>> {
    let len = |d: &SubsetDef| d.rows.as_ref().map_or_else(|| inputs[d.input].rows(), Vec::len);
    // Drawn targets are named after their pool's role (`draw-in[3]`); given ones `target_in[0]`.
    let what = |d: &SubsetDef| {
        let spec = &records[d.input].spec;
        if d.name.contains('-') {
            format!("{} (drawn from {spec})", d.name)
        } else {
            format!("{} ({spec})", subset_label(&d.name))
        }
    };
    for d in subsets.iter() {
        if len(d) < MIN_ROWS {
            return Err(too_few_rows(roles[d.input], &what(d), len(d)));
        }
    }
    let smallest = subsets.iter().map(len).min().unwrap_or(0);
    if subsets.iter().all(|d| len(d) / 2 == smallest / 2) {
        return Ok(Vec::new());
    }
    if !req.equal_size {
        // Each reference and given target, and a pool's drawn targets once.
        let mut sizes: Vec<(String, usize)> = Vec::new();
        for d in subsets.iter() {
            let entry = if d.name.contains('-') {
                (format!("the targets drawn from {}", records[d.input].spec), len(d))
            } else {
                (subset_label(&d.name), len(d))
            };
            if !sizes.contains(&entry) {
                sizes.push(entry);
            }
        }
        let role = subsets
            .iter()
            .find(|d| len(d) / 2 != len(&subsets[0]) / 2)
            .map_or("in_training", |d| roles[d.input]);
        return Err(unequal_sizes(
            role,
            &sizes,
            smallest,
            &format!("ask for equal-size subsets (`{}`)", words::opt_is("equal_size", "true")),
        ));
    }
    let mut drawn = Vec::new();
    for (k, d) in subsets.iter_mut().enumerate() {
        let n = len(d);
        if n / 2 == smallest / 2 {
            continue;
        }
        let pos = equal_size_draw(req.seed, k, n, smallest);
        let rows = pos.iter().map(|&i| d.rows.as_ref().map_or(i, |r| r[i])).collect();
        d.rows = Some(rows);
        drawn.push(format!("{} ({n} rows)", subset_label(&d.name)));
    }
    Ok(vec![Warning::new(
        "equal_size_draw",
        None,
        format!(
            "{smallest} rows (the smallest subset's size) were drawn, seeded, from {}, so that every subset has \
             the same size",
            and_list(&drawn)
        ),
        None,
    )])
}

/// Refuses a non-finite value in any row a loaded input's subsets use, naming the row of the file (inputs read in
/// place are checked by the core as they are read, in the file's rows).
fn check_finite(
    ws: &mut Workspace,
    subsets: &[SubsetDef],
    inputs: &[Holding],
    roles: &[&str],
    refs: &[InputRef],
) -> Result<()> {
    for (k, h) in inputs.iter().enumerate() {
        if matches!(h, Holding::Held(Held::InPlace(_))) {
            continue;
        }
        let mut rows: Vec<usize> = Vec::new();
        let mut whole = false;
        for d in subsets.iter().filter(|d| d.input == k) {
            match &d.rows {
                None => whole = true,
                Some(r) => rows.extend(r),
            }
        }
        let used = (!whole).then_some(rows.as_slice());
        let bad = match h {
            Holding::Held(Held::Loaded(i)) => first_non_finite(i.matrix.view(), used),
            Holding::F32(b) => first_non_finite(b.0.view(), used),
            Holding::Held(Held::InPlace(_)) => None,
        };
        if let Some((r, c, v)) = bad {
            // The loaded matrix holds the input's selected rows: row r of it is row sel[r] of the file.
            let (sel, _, _) = ws.resolve_rows(roles[k], &refs[k].rows)?;
            let file_row = sel.as_ref().map_or(r, |s| s[r]);
            return Err(non_finite(roles[k], h.record(), file_row, c, v));
        }
    }
    Ok(())
}

/// Fingerprints of a subset's rows (a 64-bit FNV-1a hash of each row's values, bit for bit), for a loaded input;
/// `None` for an input read in place (its rows are not in memory before the run).
#[cfg(feature = "full")]
fn row_prints(h: &Holding, rows: Option<&[usize]>) -> Option<Vec<u64>> {
    fn prints<S: lethe::data::Scalar>(m: lethe::MatrixRef<'_, S>, rows: Option<&[usize]>) -> Vec<u64> {
        let one = |r: usize| {
            m.row(r).iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, v| {
                (h ^ v.to_f64().to_bits()).wrapping_mul(0x0100_0000_01b3)
            })
        };
        match rows {
            None => (0..m.rows()).map(one).collect(),
            Some(rs) => rs.iter().filter(|&&r| r < m.rows()).map(|&r| one(r)).collect(),
        }
    }
    match h {
        Holding::Held(Held::Loaded(i)) => Some(prints(i.matrix.view(), rows)),
        Holding::F32(b) => Some(prints(b.0.view(), rows)),
        Holding::Held(Held::InPlace(_)) => None,
    }
}

/// A warning for every subset that shares rows with a reference (the same values, row for row): a target that is
/// part of the in-training reference is compared with itself, and the call says so whatever the model remembers
/// (a target given as the reference's own rows, a pool the references were also taken from, one file twice).
#[cfg(feature = "full")]
fn shared_rows(subsets: &[SubsetDef], inputs: &[Holding]) -> Vec<Warning> {
    let prints = |d: &SubsetDef| row_prints(&inputs[d.input], d.rows.as_deref());
    let refs: Vec<Option<Vec<u64>>> = subsets
        .iter()
        .take(2)
        .map(|d| {
            let mut p = prints(d)?;
            p.sort_unstable();
            Some(p)
        })
        .collect();
    let mut out = Vec::new();
    for (k, d) in subsets.iter().enumerate().skip(1) {
        let Some(rows) = prints(d) else { continue };
        // The out-of-training reference is checked against the in-training one; a target against both.
        let mut shared = Vec::new();
        for (r, set) in refs.iter().enumerate().take(k.min(2)) {
            let Some(set) = set else { continue };
            let n = rows.iter().filter(|p| set.binary_search(p).is_ok()).count();
            if n > 0 {
                shared.push(format!(
                    "{n} of its {} rows with {}",
                    rows.len(),
                    subset_label(&subsets[r].name)
                ));
            }
        }
        if !shared.is_empty() {
            out.push(Warning::new(
                "rows_shared",
                d.name.split('[').next(),
                format!(
                    "{} shares {} (the same values, row for row): a subset compared with a reference it is part \
                     of looks like that reference whatever the model remembers",
                    subset_label(&d.name),
                    and_list(&shared)
                ),
                Some("take each subset from rows the others do not use".into()),
            ));
        }
    }
    out
}

impl SdeJob {
    /// What the checks found before any computing (readers' notes, equal-size draws, too few distinct shuffles):
    /// the page shows them beside their inputs before Run.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The kernel precision asked for (the CPU backend's; the GPU computes in f32).
    pub fn precision(&self) -> Precision {
        self.params.precision
    }

    /// The inputs read in place from their files, as `path (role)`.
    pub fn read_in_place(&self) -> Vec<String> {
        self.inputs
            .iter()
            .filter(|h| matches!(h, Holding::Held(Held::InPlace(_))))
            .map(|h| format!("{} ({})", h.record().path, h.record().role))
            .collect()
    }

    /// Runs SDE on the CPU backend, reporting to `monitor` (which may stop it: the report is then partial).
    ///
    /// # Errors
    /// See [`SdeJob::run_on`].
    pub async fn run<M: Monitor>(self, monitor: &mut M) -> Result<SdeOutput> {
        let mut backend = CpuBackend::new(self.params.precision);
        self.run_on(&mut backend, monitor).await
    }

    /// Runs SDE on `backend` (the CPU, or a GPU), reporting to `monitor`: every subset in the run's order with
    /// its own shuffle stream, assembled by the core's steps ([`sde::target_outcome`], [`sde::report`]) into the
    /// report `lethe::sde::sde_with` gives, bit for bit. A stopped run keeps the unfinished subset's shuffles for
    /// [`SdeOutput::partial`].
    ///
    /// # Errors
    /// The core's errors, attributed to the role they name; backend failures are marked so.
    pub async fn run_on<B: Backend, M: Monitor>(self, backend: &mut B, monitor: &mut M) -> Result<SdeOutput> {
        let warnings = self.check()?;
        let all: Vec<u64> = (0..self.subset_rows().len() as u64).collect();
        let part = self.subsets_on(backend, monitor, &all).await?;
        self.assemble_checked(part.subsets, backend.info(), warnings, monitor)
            .await
    }

    /// Runs SDE on the CPU with its subsets on up to `threads` native threads (`lethe::sde::threaded`): the same
    /// report as [`SdeJob::run`], bit for bit, for every thread count.
    ///
    /// # Errors
    /// As [`SdeJob::run_on`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run_threaded(self, threads: usize) -> Result<SdeOutput> {
        self.run_threaded_with(threads, &mut |_| true)
    }

    /// [`SdeJob::run_threaded`] reporting to `monitor`, which may stop it (the Python package's progress bar and
    /// Ctrl-C).
    ///
    /// # Errors
    /// As [`SdeJob::run_on`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run_threaded_with(self, threads: usize, monitor: &mut lethe::parallel::ProgressFn<'_>) -> Result<SdeOutput> {
        // The subsets fill the bar up to the placebo check's share, the check the rest.
        let scale = 1.0 - self.placebo_share();
        let mut subsets = |p: &Progress| {
            monitor(&Progress {
                fraction: p.fraction * scale,
                phase: p.phase.clone(),
            })
        };
        let report = if self.f32 {
            self.threaded_as::<f32>(threads, &mut subsets)?
        } else {
            self.threaded_as::<f64>(threads, &mut subsets)?
        };
        // A monitor that is a plain callback never waits.
        let placebos = at_once(self.placebo_check(&report, &mut |p: &Progress| monitor(p)));
        self.output(report, None, None, placebos)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn threaded_as<S: HeldScalar>(
        &self,
        threads: usize,
        monitor: &mut lethe::parallel::ProgressFn<'_>,
    ) -> Result<SdeReport> {
        let files = self.files()?;
        let all = (0..self.subsets.len())
            .map(|i| self.row_subset::<S>(i, &files))
            .collect::<Result<Vec<_>>>()?;
        sde::threaded::sde_subsets_threaded(threads, monitor, all[0], all[1], &all[2..], &self.params)
            .map_err(|e| attribute(e, &SDE_ROLES))
    }

    /// The placebo check of `report` ([`SdeJob::placebos`]) in the inputs' precision, reporting to `monitor`.
    async fn placebo_check<M: Monitor>(&self, report: &SdeReport, monitor: &mut M) -> PlaceboCheck {
        if self.holds_f32() {
            self.placebos::<f32, M>(report, monitor).await
        } else {
            self.placebos::<f64, M>(report, monitor).await
        }
    }

    /// The output around a report: the headline and warnings, records, loader warnings, histograms on shared
    /// edges; `oot_so_far`: the out-of-training reference's values (and whether they are complete) when the report
    /// cannot hold them because the in-training reference did not finish; `placebos`: the report's placebo check.
    fn output(
        self,
        report: SdeReport,
        partial: Option<SdePartial>,
        oot_so_far: Option<(Vec<f64>, bool)>,
        placebos: PlaceboCheck,
    ) -> Result<SdeOutput> {
        let planned = self.subsets.len() - 2;
        let spread = if self.holds_f32() {
            self.dispersion::<f32>(&report)
        } else {
            self.dispersion::<f64>(&report)
        };
        let (headline, found, calls) = verdicts(&report, planned, spread.as_ref(), &placebos)?;
        let mut warnings = self.warnings;
        warnings.extend(found);
        let mut series: Vec<(String, &str, &[f64])> = vec![(
            "in-training reference".into(),
            "it",
            &report.in_training_reference.values,
        )];
        if let Some(o) = &report.out_of_training_reference {
            series.push(("out-of-training reference".into(), "oot", &o.values));
        } else if let Some((values, complete)) = &oot_so_far {
            let name = if *complete {
                "out-of-training reference"
            } else {
                "out-of-training reference (partial)"
            };
            series.push((name.into(), "oot", values));
        }
        for t in &report.targets {
            series.push((t.name.clone(), "target", &t.distribution.values));
        }
        for t in partial.iter().flat_map(|p| &p.unfinished_targets) {
            let name = if t.complete {
                t.name.clone()
            } else {
                format!("{} (partial)", t.name)
            };
            series.push((name, "target", &t.values));
        }
        let histograms = plots::shared_histograms(&series, plots::DISPLAY_BINS).ok();
        Ok(SdeOutput {
            headline,
            warnings,
            parameters: self.parameters,
            calls,
            seed: self.params.seed,
            inputs: self.records,
            load_warnings: self.load_warnings,
            histograms,
            partial,
            result: SdeReport {
                placebos: placebos.ok().flatten(),
                ..report
            },
        })
    }

    /// What a stopped run's shuffles support: every subset's progress and exact moments, the paper's rule and
    /// Mann–Whitney on the shuffles so far, and the unfinished targets' values.
    fn partial(&self, by: &[Option<PartSubset>], finished: usize) -> Result<SdePartial> {
        let n = self.subset_rows().len() as u64;
        let mut subsets = Vec::new();
        for i in 0..n {
            let name = &self.subsets[i as usize].name;
            if let Some(p) = by[i as usize].as_ref() {
                let d = &p.distribution;
                subsets.push(PartialSubset {
                    name: name.to_string(),
                    shuffles_done: d.values.len(),
                    shuffles_planned: d.shuffles_planned,
                    complete: d.complete,
                    moments: d.moments,
                });
            } else {
                subsets.push(PartialSubset {
                    name: name.to_string(),
                    shuffles_done: 0,
                    shuffles_planned: self.params.shuffles,
                    complete: false,
                    moments: sde::ShuffleMoments {
                        mean: f64::NAN,
                        variance: f64::NAN,
                        sd: f64::NAN,
                    },
                });
            }
        }
        let values = |i: u64| {
            by[i as usize]
                .as_ref()
                .map(|p| p.distribution.values.as_slice())
                .filter(|v| !v.is_empty())
        };
        let (it, oot) = (values(0), values(1));
        let reference_separation = match (it, oot) {
            (Some(a), Some(b)) => Some(
                lethe::mann_whitney::mann_whitney_u(a, b, lethe::Alternative::Greater, lethe::PValueMethod::Auto, true)
                    .map_err(|e| attribute(e, &SDE_ROLES))?,
            ),
            _ => None,
        };
        let mut targets = Vec::new();
        let mut unfinished = Vec::new();
        for (k, SubsetDef { name, label, .. }) in self.subsets[2..].iter().enumerate().skip(finished) {
            let Some(p) = by[2 + k].as_ref().filter(|p| !p.distribution.values.is_empty()) else {
                continue;
            };
            let d = &p.distribution;
            unfinished.push(UnfinishedTarget {
                name: name.clone(),
                label: *label,
                complete: d.complete,
                values: d.values.clone(),
            });
            if let (Some(a), Some(b)) = (it, oot) {
                targets.push(PartialTarget {
                    name: name.clone(),
                    label: *label,
                    shuffles_done: d.values.len(),
                    complete: d.complete,
                    verdict: sde::paper_verdict(&d.values, a, b, self.params.bins)
                        .map_err(|e| attribute(e, &SDE_ROLES))?,
                    mann_whitney_target_vs_oot: lethe::mann_whitney::mann_whitney_u(
                        &d.values,
                        b,
                        lethe::Alternative::Greater,
                        lethe::PValueMethod::Auto,
                        true,
                    )
                    .map_err(|e| attribute(e, &SDE_ROLES))?,
                });
            }
        }
        Ok(SdePartial {
            subsets,
            reference_separation,
            targets,
            p_value_interval: None,
            unfinished_targets: unfinished,
        })
    }

    /// The kernel dispersion of each finished target and the range of [`DISPERSION_DRAWS`] seeded subsets of the
    /// same size drawn from the two references' rows (see [`Dispersion`]); `None` where an input is read in place,
    /// a reference did not finish, or the rows are too wide to check in reasonable time.
    fn dispersion<S: HeldScalar>(&self, report: &SdeReport) -> Option<Dispersion> {
        let oot = report.out_of_training_reference.as_ref()?;
        if !report.in_training_reference.complete || !oot.complete || report.targets.is_empty() {
            return None;
        }
        let sigma = report.in_training_reference.kernels.x.sigma;
        let view = |i: usize| S::memory(&self.inputs[self.subsets.get(i)?.input]);
        let rows_of = |i: usize| -> Option<Vec<usize>> {
            let d = self.subsets.get(i)?;
            Some(
                d.rows
                    .clone()
                    .unwrap_or_else(|| (0..self.inputs[d.input].rows()).collect()),
            )
        };
        let (it, ot) = (view(0)?, view(1)?);
        if it.cols() != ot.cols() || !(sigma.is_finite() && sigma > 0.0) {
            return None;
        }
        // The pairs one estimate compares: at most DISPERSION_ROWS rows of a subset.
        let size = rows_of(2)?.len().min(DISPERSION_ROWS);
        let work = (DISPERSION_DRAWS + report.targets.len()) as u64 * (size * size / 2) as u64 * it.cols() as u64;
        if size < 4 || work > DISPERSION_WORK {
            return None;
        }
        let pool: Vec<(bool, usize)> = rows_of(0)?
            .into_iter()
            .map(|r| (false, r))
            .chain(rows_of(1)?.into_iter().map(|r| (true, r)))
            .collect();
        let draws: Vec<f64> = (0..DISPERSION_DRAWS)
            .map(|k| {
                let picked = equal_size_draw(self.params.seed ^ DISPERSION_SEED, k, pool.len(), size);
                let rows: Vec<&[S]> = picked
                    .iter()
                    .map(|&p| {
                        let (second, r) = pool[p];
                        if second { ot.row(r) } else { it.row(r) }
                    })
                    .collect();
                dispersion_of(&rows, sigma)
            })
            .collect();
        // Subset i's dispersion (a seeded draw of `size` of its rows, stream DISPERSION_DRAWS + i).
        let of_subset = |i: usize| -> Option<f64> {
            let m = view(i)?;
            let all = rows_of(i)?;
            if m.cols() != it.cols() || all.len() < 4 {
                return None;
            }
            let picked = equal_size_draw(
                self.params.seed ^ DISPERSION_SEED,
                DISPERSION_DRAWS + i,
                all.len(),
                size.min(all.len()),
            );
            let rows: Vec<&[S]> = picked.iter().map(|&p| m.row(all[p])).collect();
            Some(dispersion_of(&rows, sigma))
        };
        let (d_it, d_oot) = (of_subset(0)?, of_subset(1)?);
        let targets = (0..report.targets.len())
            .map(|k| of_subset(2 + k))
            .collect::<Option<Vec<_>>>()?;
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let sd = (draws.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (draws.len() - 1) as f64).sqrt();
        Some(Dispersion {
            targets,
            lo: d_it.min(d_oot) - DISPERSION_SDS * sd,
            hi: d_it.max(d_oot) + DISPERSION_SDS * sd,
            references: (d_it, d_oot),
            sd,
        })
    }

    /// Rows of every subset in the run's order: the two references, then the targets (subset 2 + i).
    fn subset_rows(&self) -> Vec<usize> {
        self.subsets
            .iter()
            .map(|d| d.rows.as_ref().map_or_else(|| self.inputs[d.input].rows(), Vec::len))
            .collect()
    }

    /// Splits the run's subsets into at most `workers` contiguous parts of about equal work (the core's progress
    /// weights, O(h²) per shuffle), for a pool of workers; every part is non-empty.
    pub fn plan(&self, workers: usize) -> Vec<Vec<u64>> {
        let spans = sde::progress_spans(&self.subset_rows(), self.params.shuffles.max(1));
        let w = workers.clamp(1, spans.len());
        let mut parts: Vec<Vec<u64>> = vec![Vec::new(); w];
        let mut k = 0;
        for (i, (start, width)) in spans.iter().enumerate() {
            // Move on when this part has its share, leaving at least one subset for each later part.
            let left = spans.len() - i;
            if k + 1 < w && !parts[k].is_empty() && (start + width / 2.0 >= (k + 1) as f64 / w as f64 || left < w - k) {
                k += 1;
            }
            parts[k].push(i as u64);
        }
        parts
    }

    /// The arrays of the inputs read in place, opened from their headers (`None` for loaded inputs).
    fn files(&self) -> Result<Vec<Option<lethe::data::ArrayFile<'_>>>> {
        self.inputs.iter().map(Holding::file).collect()
    }

    /// Subset `i` as rows of its input's source (`files` from [`SdeJob::files`]).
    fn row_subset<'a, S: HeldScalar>(
        &'a self,
        i: usize,
        files: &'a [Option<lethe::data::ArrayFile<'a>>],
    ) -> Result<sde::RowSubset<'a, S>> {
        let d = self
            .subsets
            .get(i)
            .ok_or_else(|| Error::msg(format!("this run has no subset {i}")))?;
        Ok(sde::RowSubset {
            name: &d.name,
            source: self.inputs[d.input].source(files[d.input].as_ref())?,
            rows: d.rows.as_deref(),
            label: d.label,
        })
    }

    /// Whether the loaded inputs are held as f32: only through [`prepare_sde_exact_f32`] (the CLI's), so the lean
    /// wasm module, which never does, leaves out the f32 copies of the run's code.
    fn holds_f32(&self) -> bool {
        cfg!(feature = "full") && self.f32
    }

    fn check(&self) -> Result<Vec<Note>> {
        if self.holds_f32() {
            self.check_as::<f32>()
        } else {
            self.check_as::<f64>()
        }
    }

    fn check_as<S: HeldScalar>(&self) -> Result<Vec<Note>> {
        let files = self.files()?;
        let all = (0..self.subsets.len())
            .map(|i| self.row_subset::<S>(i, &files))
            .collect::<Result<Vec<_>>>()?;
        sde::check_subsets(&all[0], &all[1], &all[2..], &self.params).map_err(|e| attribute(e, &SDE_ROLES))
    }

    /// Computes the subsets numbered `subsets` (one worker's part of a pooled run), exactly as the whole run
    /// computes them (each subset's shuffle stream is its number's), with the baselines of targets when asked for.
    /// Stops early when `monitor` says so (`complete: false`).
    ///
    /// # Errors
    /// As [`SdeJob::run_on`]; an unknown subset number.
    pub async fn run_part_on<B: Backend, M: Monitor>(
        self,
        backend: &mut B,
        monitor: &mut M,
        subsets: &[u64],
    ) -> Result<SdePart> {
        self.check()?;
        self.subsets_on(backend, monitor, subsets).await
    }

    async fn subsets_on<B: Backend, M: Monitor>(
        &self,
        backend: &mut B,
        monitor: &mut M,
        subsets: &[u64],
    ) -> Result<SdePart> {
        if self.holds_f32() {
            self.subsets_as::<f32, B, M>(backend, monitor, subsets).await
        } else {
            self.subsets_as::<f64, B, M>(backend, monitor, subsets).await
        }
    }

    /// [`SdeJob::run_part_on`] after the inputs were checked. A stopped subset is kept with the shuffles it did.
    async fn subsets_as<S: HeldScalar, B: Backend, M: Monitor>(
        &self,
        backend: &mut B,
        monitor: &mut M,
        subsets: &[u64],
    ) -> Result<SdePart> {
        let all = self.subset_rows();
        let rows: Vec<usize> = subsets
            .iter()
            .map(|&i| {
                all.get(i as usize)
                    .copied()
                    .ok_or_else(|| Error::msg(format!("this run has no subset {i}")))
            })
            .collect::<Result<_>>()?;
        // The subsets fill the bar up to the placebo check's share (the whole run's: a pooled run's parts each end
        // there, and the check fills the rest as the report is assembled).
        let scale = 1.0 - self.placebo_share();
        let spans: Vec<(f64, f64)> = sde::progress_spans(&rows, self.params.shuffles)
            .into_iter()
            .map(|(start, width)| (start * scale, width * scale))
            .collect();
        let files = self.files()?;
        // The baselines compare each target with the whole references: gathered once for this part's targets
        // (the full module's: the lean one refuses them in `prepare`, and leaves their code out).
        #[cfg(feature = "full")]
        let refs = if self.params.baselines && subsets.iter().any(|&i| i >= 2) {
            let gather = |i| {
                self.row_subset::<S>(i, &files)?
                    .gathered()
                    .map_err(|e| attribute(e, &SDE_ROLES))
            };
            Some((gather(0)?, gather(1)?))
        } else {
            None
        };
        let mut out = Vec::with_capacity(subsets.len());
        for (k, &i) in subsets.iter().enumerate() {
            let data = self.row_subset::<S>(i as usize, &files)?;
            let name = data.name;
            let distribution = sde::split_half_with(backend, monitor, &data, &self.params, i, spans[k])
                .await
                .map_err(|e| attribute(e, &SDE_ROLES))?;
            let done = distribution.complete;
            #[cfg(not(feature = "full"))]
            let baselines = None;
            #[cfg(feature = "full")]
            let baselines = match (&refs, i >= 2 && done) {
                (Some((it, oot)), true) => Some(
                    data.gathered()
                        .and_then(|t| sde::baseline_verdicts(t.view(), it.view(), oot.view(), &self.params))
                        .map_err(|e| attribute(e, &SDE_ROLES))?,
                ),
                _ => None,
            };
            out.push(PartSubset {
                subset: i,
                distribution,
                baselines,
            });
            let (start, width) = spans[k];
            let p = Progress {
                fraction: start + width,
                phase: format!("{name} ({}/{})", k + 1, subsets.len()),
            };
            if !done || !monitor.checkpoint(&p).await {
                return Ok(SdePart {
                    subsets: out,
                    complete: done && k + 1 == subsets.len(),
                });
            }
        }
        Ok(SdePart {
            subsets: out,
            complete: true,
        })
    }

    /// The report of a pooled run from its workers' parts — the same report as [`SdeJob::run_on`] on `backend`
    /// (the references, then the targets in order, each outcome computed by the core). A run stopped early keeps
    /// the targets up to the first one missing or incomplete.
    ///
    /// # Errors
    /// A part without the in-training reference; the core's errors.
    pub fn assemble(self, parts: Vec<PartSubset>, backend: lethe::backend::BackendInfo) -> Result<SdeOutput> {
        at_once(self.assemble_with(parts, backend, &mut lethe::progress::Silent))
    }

    /// [`SdeJob::assemble`] reporting the placebo check's progress to `monitor`, which may stop it (the report then
    /// calls no target and says why).
    ///
    /// # Errors
    /// As [`SdeJob::assemble`].
    pub async fn assemble_with<M: Monitor>(
        self,
        parts: Vec<PartSubset>,
        backend: lethe::backend::BackendInfo,
        monitor: &mut M,
    ) -> Result<SdeOutput> {
        let warnings = self.check()?;
        self.assemble_checked(parts, backend, warnings, monitor).await
    }

    /// [`SdeJob::assemble_with`] with the inputs' warnings already computed.
    async fn assemble_checked<M: Monitor>(
        self,
        parts: Vec<PartSubset>,
        backend: lethe::backend::BackendInfo,
        warnings: Vec<Note>,
        monitor: &mut M,
    ) -> Result<SdeOutput> {
        // Parts by subset number (a plain vector: a BTreeMap's code would weigh on the lean module).
        let mut by: Vec<Option<PartSubset>> = (0..self.subset_rows().len()).map(|_| None).collect();
        for p in parts {
            let slot = usize::try_from(p.subset)
                .ok()
                .and_then(|i| by.get_mut(i))
                .ok_or_else(|| Error::msg(format!("this run has no subset {}", p.subset)))?;
            *slot = Some(p);
        }
        let stopped = by.iter().any(|p| !p.as_ref().is_some_and(|p| p.distribution.complete));
        let partial = if stopped {
            let finished = self.finished_targets(&by);
            Some(self.partial(&by, finished)?)
        } else {
            None
        };
        let it = by[0]
            .take()
            .ok_or_else(|| Error::msg("the pooled run returned no in-training reference"))?
            .distribution;
        // The report holds the out-of-training reference only after a complete in-training one; a stopped pooled
        // run may have finished (or started) it all the same, and its histogram is shown.
        let oot_so_far = if it.complete {
            None
        } else {
            by[1]
                .as_ref()
                .filter(|p| !p.distribution.values.is_empty())
                .map(|p| (p.distribution.values.clone(), p.distribution.complete))
        };
        let oot = if it.complete {
            by[1].take().map(|p| p.distribution)
        } else {
            None
        };
        let mut complete = oot.as_ref().is_some_and(|o| o.complete);
        let mut outcomes = Vec::new();
        if let (true, Some(o)) = (complete, &oot) {
            for (i, SubsetDef { name, label, .. }) in self.subsets[2..].iter().enumerate() {
                match by[2 + i].take() {
                    Some(p) if p.distribution.complete => outcomes.push(
                        sde::target_outcome(name, *label, p.distribution, p.baselines, &it, o, &self.params)
                            .map_err(|e| attribute(e, &SDE_ROLES))?,
                    ),
                    _ => {
                        complete = false;
                        break;
                    }
                }
            }
        }
        let report = sde::report(&self.params, backend, it, oot, outcomes, complete, warnings)
            .map_err(|e| attribute(e, &SDE_ROLES))?;
        let placebos = self.placebo_check(&report, monitor).await;
        self.output(report, partial, oot_so_far, placebos)
    }

    /// How many targets the report of these parts holds: those up to the first one missing or unfinished, when
    /// both references are complete.
    fn finished_targets(&self, by: &[Option<PartSubset>]) -> usize {
        let done = |i: usize| by[i].as_ref().is_some_and(|p| p.distribution.complete);
        if !(done(0) && done(1)) {
            return 0;
        }
        (0..self.subsets.len() - 2).take_while(|&k| done(2 + k)).count()
    }
}

pub(super) use crate::report::num;

/// Drives a future that never waits — the CPU backend's, with a monitor that is a plain callback — on this thread
/// (the synchronous runs', as the core's `backend::now`).
fn at_once<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match f.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => unreachable!("a run on the CPU with a callback monitor never waits"),
    }
}

/// Whether every value is the same (a distribution that carries no information); false when there are none.
pub(super) fn constant(v: &[f64]) -> bool {
    !v.is_empty() && v.iter().all(|x| *x == v[0])
}

/// `Some(true)` when `a < b`, `Some(false)` when `a > b`, `None` on a tie.
fn nearer(a: f64, b: f64) -> Option<bool> {
    match a.partial_cmp(&b) {
        Some(std::cmp::Ordering::Less) => Some(true),
        Some(std::cmp::Ordering::Greater) => Some(false),
        _ => None,
    }
}

fn side(in_training: bool) -> &'static str {
    if in_training { "in training" } else { "out of training" }
}

/// The core's notes as report warnings, with the codes they were raised with (the separability note is replaced by
/// the two-sided check of [`verdicts`]).
fn core_warnings(report: &SdeReport) -> Vec<Warning> {
    report
        .warnings
        .iter()
        .filter(|w| w.kind != NoteKind::ReferencesNotSeparable)
        .map(|w| Warning::new(w.code(), None, w.message.clone(), None))
        .collect()
}

/// Seeded subsets of the references' pooled rows whose spread (sd) says how much a subset's dispersion varies by
/// chance at this size.
const DISPERSION_DRAWS: usize = 40;
/// How many of those sds a target's dispersion may lie beyond both references' before its call is withheld (a
/// subset like either reference lies further out about 5% of the time or less).
const DISPERSION_SDS: f64 = 2.0;
/// Rows of a subset its dispersion is estimated from (a seeded draw of them when it has more).
const DISPERSION_ROWS: usize = 100;
/// The most kernel evaluations × columns the check may take (about a second natively); wider rows skip it.
const DISPERSION_WORK: u64 = 4_000_000_000;
/// Mixed into the run's seed for the check's draws, so they are not the targets' or the splits' streams.
const DISPERSION_SEED: u64 = 0x6469_7370_6572_7365;

/// The spread of subsets under the run's kernel: SDE's statistic grows with it, so a target more (or less) spread
/// than either reference can be called in (or out of) training by spread alone. `targets[i]` is target i's
/// dispersion, `references` the two references', `sd` the chance variation of a subset's dispersion at this size,
/// and `lo..hi` the references' span widened by [`DISPERSION_SDS`] of it.
#[derive(Clone, Debug)]
struct Dispersion {
    targets: Vec<f64>,
    lo: f64,
    hi: f64,
    references: (f64, f64),
    sd: f64,
}

/// Kernel dispersion of `rows`: 1 − the mean RBF kernel `exp(−‖x − y‖² / 2σ²)` over their pairs (0: all rows
/// alike; near 1: all far apart at this bandwidth).
fn dispersion_of<S: lethe::data::Scalar>(rows: &[&[S]], sigma: f64) -> f64 {
    let (mut sum, mut pairs) = (0.0, 0u64);
    let scale = -0.5 / (sigma * sigma);
    for (i, a) in rows.iter().enumerate() {
        for b in &rows[i + 1..] {
            let d2: f64 = a
                .iter()
                .zip(b.iter())
                .map(|(x, y)| (x.to_f64() - y.to_f64()).powi(2))
                .sum();
            sum += (d2 * scale).exp();
            pairs += 1;
        }
    }
    1.0 - sum / pairs as f64
}

/// The one call of an SDE report (`planned` targets asked for), the warnings its numbers raise, and each
/// finished target's call.
///
/// A target is called in or out of training only when the paper's JSD rule and the exact shuffle means of the
/// same reference pair (the calibrated rule with one reference per class: the nearer mean) agree; a tie of either,
/// or a disagreement, is inconclusive with the reason. No target gets a call when the references' shuffle
/// distributions are constant or not clearly different (two-sided Mann–Whitney p ≥ 0.01: the paper's own
/// requirement, without its assumption that in-training subsets have the larger values), or when the run was
/// stopped.
fn verdicts(
    report: &SdeReport,
    planned: usize,
    spread: Option<&Dispersion>,
    placebos: &PlaceboCheck,
) -> Result<(Headline, Vec<Warning>, Vec<TargetCall>)> {
    let mut warnings = core_warnings(report);
    let it = &report.in_training_reference;
    let oot = report.out_of_training_reference.as_ref();
    let constant_refs: Vec<String> = std::iter::once(("in_training", &it.values))
        .chain(oot.map(|o| ("out_of_training", &o.values)))
        .filter(|(_, v)| constant(v))
        .map(|(n, _)| subset_label(n))
        .collect();
    let constant_targets: Vec<String> = report
        .targets
        .iter()
        .filter(|t| constant(&t.distribution.values))
        .map(|t| t.name.clone())
        .collect();
    let flat: Vec<String> = constant_refs.iter().chain(&constant_targets).cloned().collect();
    if !flat.is_empty() {
        warnings.push(Warning::new(
            "constant_subset",
            None,
            format!(
                "every shuffle of {} gives the same value: {} rows are constant or identical, so {} \
                 distribution carries no information and no verdict can rest on it",
                and_list(&flat),
                if flat.len() == 1 { "its" } else { "their" },
                if flat.len() == 1 { "its" } else { "each" }
            ),
            Some(
                "check that these rows hold the model's outputs for distinct examples (not a constant column, \
                  padding or repeated rows)"
                    .into(),
            ),
        ));
    }
    // The references' separation, both directions.
    let mut separable = None;
    let mut reversed = false;
    if let Some(o) = oot.filter(|o| o.complete && it.complete && !o.values.is_empty() && !it.values.is_empty()) {
        let two = lethe::mann_whitney::mann_whitney_u(
            &it.values,
            &o.values,
            lethe::Alternative::TwoSided,
            lethe::PValueMethod::Auto,
            true,
        )
        .map_err(|e| attribute(e, &SDE_ROLES))?;
        let one = report.reference_separation.as_ref().map_or(f64::NAN, |m| m.p_value);
        if two.p_value.is_nan() || two.p_value >= 0.01 {
            warnings.push(Warning::new(
                "references_not_separable",
                None,
                format!(
                    "the two references' shuffle distributions are not clearly different (two-sided Mann–Whitney \
                     p = {}; the paper asks for p < 0.01), so no rule can tell in-training rows from others on \
                     this data",
                    num(two.p_value)
                ),
                Some(format!(
                    "use larger subsets, another layer or output of the model, or {}, which pools many reference \
                     subsets per class",
                    words::cmd("calibrate")
                )),
            ));
            separable = Some((false, two.p_value));
        } else {
            if one.is_nan() || one >= 0.01 {
                reversed = true;
                warnings.push(Warning::new(
                    "references_reversed",
                    None,
                    format!(
                        "the in-training reference has the lower shuffle values here (two-sided Mann–Whitney \
                         p = {}); the paper expects them higher, and its one-sided check fails (p = {}). Either the \
                         references may be swapped (rows the model never saw given as in-training, and rows it \
                         trained on as out-of-training), or this data runs against the paper's assumption (the \
                         digits example does for some of its models, with its references right). The reference rows alone cannot \
                         tell which, and either turns the rule's calls around, so no target is called",
                        num(two.p_value),
                        num(one)
                    ),
                    Some(format!(
                        "check that the in-training reference holds rows the model was trained on (such as retain \
                         rows) and the out-of-training reference rows it never saw (such as test rows); if they are \
                         right, this data does not behave as the paper assumes: pool many reference subsets per class \
                         with {}",
                        words::cmd("calibrate")
                    )),
                ));
            }
            separable = Some((true, two.p_value));
        }
    }
    // Each finished target under both rules.
    let mut calls = Vec::new();
    let mut outside = Vec::new();
    if let Some(o) = oot {
        let (lo, hi) = it
            .values
            .iter()
            .chain(&o.values)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
        let (mi, mo) = (it.moments.mean, o.moments.mean);
        for t in &report.targets {
            let v = &t.verdict;
            let m = t.distribution.moments.mean;
            if m < lo || m > hi {
                outside.push(format!(
                    "{} (exact shuffle mean {}; every reference shuffle lies in {}–{})",
                    t.name,
                    num(m),
                    num(lo),
                    num(hi)
                ));
            }
            let paper = nearer(v.jsd_target_it, v.jsd_target_oot);
            let exact_mean = nearer((m - mi).abs(), (m - mo).abs());
            let reason = match (paper, exact_mean) {
                (Some(a), Some(b)) if a == b => None,
                (None, _) => Some(format!(
                    "the paper's JSD rule ties: the target's distribution is as far from both references (JSD {})",
                    num(v.jsd_target_it)
                )),
                (_, None) => Some(format!(
                    "its exact shuffle mean ({}) is as near one reference's as the other's",
                    num(m)
                )),
                (Some(a), Some(_)) => Some(format!(
                    "the paper's JSD rule says {} (JSD {} to the in-training reference, {} to the out-of-training \
                     one) but its exact shuffle mean ({}) is nearer the {} reference's ({} in-training, {} \
                     out-of-training); with one reference pair neither rule is reliable here: {} pools many \
                     reference subsets per class",
                    side(a),
                    num(v.jsd_target_it),
                    num(v.jsd_target_oot),
                    num(m),
                    if a { "out-of-training" } else { "in-training" },
                    num(mi),
                    num(mo),
                    words::cmd("calibrate")
                )),
            };
            let call = match (&reason, paper) {
                (None, Some(true)) => "in_training",
                (None, Some(false)) => "out_of_training",
                _ => Headline::INCONCLUSIVE,
            };
            calls.push(TargetCall {
                name: t.name.clone(),
                label: t.label,
                call: call.into(),
                paper,
                exact_mean,
                reason,
            });
        }
    }
    if !outside.is_empty() {
        warnings.push(Warning::new(
            "target_outside_references",
            Some("target"),
            format!(
                "{} outside the range of both references: unlike either reference set, so any call on it \
                 extrapolates",
                if outside.len() == 1 {
                    format!("{} lies", outside[0])
                } else {
                    format!("{} lie", and_list(&outside))
                }
            ),
            Some(
                "check that the target rows come from the same model, layer and preprocessing as the references".into(),
            ),
        ));
    }
    // A target spread unlike the references' subsets of its size: its call may be spread, not membership.
    if let Some(d) = spread {
        let mut odd = Vec::new();
        for (c, v) in calls.iter_mut().zip(&d.targets) {
            if *v >= d.lo && *v <= d.hi {
                continue;
            }
            odd.push(format!("{} ({})", c.name, num(*v)));
            if c.call != Headline::INCONCLUSIVE {
                c.call = Headline::INCONCLUSIVE.into();
                c.reason = Some(format!(
                    "its rows are {} spread out than either reference's (kernel dispersion {} against {} and {}, \
                     which subsets of this size vary by ± {} by chance), and SDE's statistic follows spread, so a \
                     call could not tell spread from membership",
                    if *v > d.hi { "more" } else { "less" },
                    num(*v),
                    num(d.references.0),
                    num(d.references.1),
                    num(d.sd)
                ));
            }
        }
        if !odd.is_empty() {
            warnings.push(Warning::new(
                "dispersion_outside_references",
                Some("target"),
                format!(
                    "{} spread unlike either reference: kernel dispersion outside {}–{} (the in-training reference's \
                     {} and the out-of-training one's {}, widened by {DISPERSION_SDS} times the ± {} by which \
                     {DISPERSION_DRAWS} subsets of the same size drawn from the references' rows vary), so no call is \
                     made on {}",
                    if odd.len() == 1 {
                        format!("{} is", odd[0])
                    } else {
                        format!("{} are", and_list(&odd))
                    },
                    num(d.lo),
                    num(d.hi),
                    num(d.references.0),
                    num(d.references.1),
                    num(d.sd),
                    if odd.len() == 1 { "it" } else { "them" }
                ),
                Some(format!(
                    "compare subsets of like spread: references drawn from rows like the target's (the same classes \
                     in the same proportions), or pool many reference subsets per class with {}",
                    words::cmd("calibrate")
                )),
            ));
        }
    }
    // No target gets a call that the references cannot support.
    let unsupported = if !constant_refs.is_empty() {
        Some("the references' shuffles do not vary (constant or identical rows)".to_string())
    } else if let Some((false, p)) = separable {
        Some(format!(
            "the two references' shuffle distributions are not clearly different (two-sided Mann–Whitney p = {})",
            num(p)
        ))
    } else {
        None
    };
    // References the other way round from the paper's: no target is called (a call keeps its own reason when it
    // already had none to give).
    if reversed {
        for c in calls.iter_mut().filter(|c| c.call != Headline::INCONCLUSIVE) {
            c.call = Headline::INCONCLUSIVE.into();
            c.reason = Some(
                "the in-training reference has the lower shuffle values, against the paper's assumption: the \
                 references may be swapped, or this data runs against that assumption"
                    .to_string(),
            );
        }
    }
    if let Some(why) = unsupported {
        for c in &mut calls {
            c.call = Headline::INCONCLUSIVE.into();
            c.reason = Some(why.clone());
        }
    }
    // A call stands only where subsets of the other class rarely reach the target's exact mean (the placebo check:
    // at most 5% false calls on this data), and only where that could be measured.
    match placebos {
        Err(NoPlacebos::Stopped) => {
            warnings.push(Warning::new(
                "placebo_stopped",
                Some("target"),
                "no target is called: the run was stopped during the placebo check, which measures how often a \
                 call would be wrong on this data (every subset's shuffles finished, so the paper rule's result \
                 is complete)",
                Some("run it again to the end for a call".into()),
            ));
            for c in calls.iter_mut().filter(|c| c.call != Headline::INCONCLUSIVE) {
                c.call = Headline::INCONCLUSIVE.into();
                c.reason = Some(
                    "the run was stopped before its false-call rate on this data was measured (the placebo check)"
                        .into(),
                );
            }
        }
        Err(NoPlacebos::Unavailable(why)) => {
            let decided = calls.iter().any(|c| c.call != Headline::INCONCLUSIVE);
            if decided {
                warnings.push(Warning::new(
                    "placebo_unavailable",
                    Some("target"),
                    format!(
                        "no target is called: how often the call would be wrong on this data cannot be measured, \
                         because {why}"
                    ),
                    Some(
                        "give each reference as all the rows of its class (for example all the retain rows as \
                         in-training and all the test rows as out-of-training, with equal sizes drawn), at least \
                         twice the target's rows each, so that placebo subsets of the target's size can be drawn \
                         from them"
                            .into(),
                    ),
                ));
            }
            for c in calls.iter_mut().filter(|c| c.call != Headline::INCONCLUSIVE) {
                c.call = Headline::INCONCLUSIVE.into();
                c.reason = Some(format!("its false-call rate cannot be measured on this data: {why}"));
            }
        }
        Ok(Some(p)) => {
            for (c, t) in calls.iter_mut().zip(&p.targets) {
                let in_training = match c.call.as_str() {
                    "in_training" => true,
                    "out_of_training" => false,
                    _ => continue,
                };
                let z = if in_training {
                    t.z_out_of_training
                } else {
                    t.z_in_training
                };
                if z >= p.threshold {
                    continue;
                }
                c.call = Headline::INCONCLUSIVE.into();
                c.reason = Some(format!(
                    "{} subsets of its {} rows reach its exact shuffle mean ({}) by chance: it lies {} of their \
                     standard deviations beyond them, and a call needs {} (at most 5% false calls, measured on {} \
                     placebo subsets per class drawn from the references' rows); on this data {}",
                    if in_training { "out-of-training" } else { "in-training" },
                    p.rows,
                    num(t.exact_mean),
                    num(z),
                    num(p.threshold),
                    p.draws,
                    p.power(in_training)
                ));
            }
        }
        Ok(None) => {}
    }
    // Targets labelled out of training are placebos with known truth: where the rule calls more than 5% of them
    // in training on this data, no unlabelled target is called.
    let controls = Controls::of(calls.iter().map(|c| (c.label, c.call == "in_training")));
    if let Some((why, warning)) = controls.gate(
        "use references closer to the targets (same classes, same size), larger subsets, or `lethe calibrate`, \
         which pools many reference subsets per class; then check the controls again",
    ) {
        warnings.push(warning);
        for c in calls
            .iter_mut()
            .filter(|c| c.label.is_none() && c.call != Headline::INCONCLUSIVE)
        {
            c.call = Headline::INCONCLUSIVE.into();
            c.reason = Some(why.clone());
        }
    }
    let headline = headline(report, planned, &calls, &constant_refs, separable, placebos);
    Ok((headline, warnings, calls))
}

/// How the calls went on targets of known truth (`--target-in`/`--target-out`, `--draw-in`/`--draw-out`): the
/// rule's measured false calls ("in training" on subsets it never trained on) and detections on this data. SDE and
/// `lethe calibrate` (its calibrated rule) share it: the same tally, gate, warning and headline text.
pub(super) struct Controls {
    /// Labelled out of training: how many, and how many were called in training.
    out: (usize, usize),
    /// Labelled in training: how many, and how many were called in training.
    r#in: (usize, usize),
}

/// The most false calls on labelled out-of-training targets under which the rule's other calls stand.
const CONTROL_FALSE_RATE: f64 = 0.05;

impl Controls {
    /// Tallies each target's label (`None`: unlabelled, not a control) and whether it was called in training.
    pub(super) fn of(calls: impl IntoIterator<Item = (Option<bool>, bool)>) -> Self {
        let (mut out, mut r#in) = ((0, 0), (0, 0));
        for (label, called_in) in calls {
            let t = match label {
                Some(true) => &mut r#in,
                Some(false) => &mut out,
                None => continue,
            };
            t.0 += 1;
            t.1 += usize::from(called_in);
        }
        Self { out, r#in }
    }

    /// Where the rule calls more than [`CONTROL_FALSE_RATE`] of the known out-of-training targets in training:
    /// why (each withheld call's reason) and the `controls_false_calls` warning, with `fix`.
    pub(super) fn gate(&self, fix: &str) -> Option<(String, Warning)> {
        self.too_many_false_calls().map(|why| {
            let warning = Warning::new(
                "controls_false_calls",
                Some("target"),
                format!("{why}, so its calls on the other targets are withheld"),
                Some(fix.into()),
            );
            (why, warning)
        })
    }

    /// Why the rule's calls cannot be trusted on this data, when its false-call rate on the labelled
    /// out-of-training targets is over [`CONTROL_FALSE_RATE`].
    fn too_many_false_calls(&self) -> Option<String> {
        let (n, wrong) = self.out;
        (n > 0 && wrong as f64 > CONTROL_FALSE_RATE * n as f64).then(|| {
            format!(
                "on the targets known to be out of training the rule called {wrong} of {n} in training (more than {}%)",
                num(CONTROL_FALSE_RATE * 100.0)
            )
        })
    }

    /// "; controls: 0 of 10 known out-of-training subsets called in training, 7 of 10 known in-training detected".
    pub(super) fn text(&self) -> String {
        let mut parts = Vec::new();
        if self.out.0 > 0 {
            parts.push(format!(
                "{} of {} known out-of-training called in training",
                self.out.1, self.out.0
            ));
        }
        if self.r#in.0 > 0 {
            parts.push(format!("{} of {} known in-training detected", self.r#in.1, self.r#in.0));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("; controls: {}", parts.join(", "))
        }
    }
}

fn headline(
    report: &SdeReport,
    planned: usize,
    calls: &[TargetCall],
    constant_refs: &[String],
    separable: Option<(bool, f64)>,
    check: &PlaceboCheck,
) -> Headline {
    let placebos = check.as_ref().ok().and_then(Option::as_ref);
    let n = planned;
    let who = || {
        if n == 1 {
            calls.first().map_or("the target".to_string(), |c| c.name.clone())
        } else {
            format!("all {n} targets")
        }
    };
    if !report.complete {
        let refs_done = report.out_of_training_reference.as_ref().is_some_and(|o| o.complete);
        return Headline::inconclusive(
            "No call: the run was stopped before it finished",
            if refs_done {
                format!(
                    "{} of {n} targets finished; run it to the end for a call",
                    report.targets.len()
                )
            } else {
                "the references were not finished, so no target could be compared with them".to_string()
            },
        );
    }
    if matches!(check, Err(NoPlacebos::Stopped)) {
        return Headline::inconclusive(
            "No call: the run was stopped before it finished",
            "every subset's shuffles finished, but not the placebo check, which measures how often a call would be \
             wrong on this data; run it to the end for a call",
        );
    }
    if !constant_refs.is_empty() {
        return Headline::inconclusive(
            format!("No call on {}: the references carry no information", who()),
            format!(
                "every shuffle of {} gives the same value (constant or identical rows), so a target cannot be \
                 nearer one reference than the other",
                and_list(constant_refs)
            ),
        );
    }
    if n == 0 {
        let sep = match separable {
            Some((true, p)) => format!("clearly different (two-sided Mann–Whitney p = {})", num(p)),
            Some((false, p)) => format!("not clearly different (two-sided Mann–Whitney p = {})", num(p)),
            None => "not compared".into(),
        };
        return Headline::new(
            "no_targets",
            format!("No target was given; the two references' shuffle distributions are {sep}"),
        );
    }
    if let Some((false, p)) = separable {
        return Headline::inconclusive(
            if n == 1 {
                format!("{}: inconclusive", who())
            } else {
                format!("All {n} targets: inconclusive")
            },
            format!(
                "the two references' shuffle distributions are not clearly different (two-sided Mann–Whitney p = \
                 {}; the paper asks for p < 0.01), so neither rule can tell in-training rows from others on this \
                 data",
                num(p)
            ),
        );
    }
    if let [c] = calls {
        return match c.call.as_str() {
            "in_training" | "out_of_training" => {
                let in_training = c.call == "in_training";
                Headline::new(
                    &c.call,
                    format!(
                        "{} looks {}: the paper's JSD rule and the exact shuffle means both put it nearer the \
                         {} reference{}",
                        c.name,
                        side(in_training),
                        if in_training { "in-training" } else { "out-of-training" },
                        placebos.map_or(String::new(), |p| p.evidence(0, in_training))
                    ),
                )
            }
            _ => Headline::inconclusive(
                format!("{}: inconclusive", c.name),
                c.reason.clone().unwrap_or_default(),
            ),
        };
    }
    // The unlabelled targets are the question; labelled ones are controls, counted apart (their calls would
    // otherwise be pooled into the rate: 14/30 where the forget targets alone gave 1/10).
    let unlabelled: Vec<&TargetCall> = calls.iter().filter(|c| c.label.is_none()).collect();
    let asked: Vec<&TargetCall> = if unlabelled.is_empty() {
        calls.iter().collect()
    } else {
        unlabelled
    };
    let n = if asked.len() == calls.len() { n } else { asked.len() };
    let count = |call: &str| asked.iter().filter(|c| c.call == call).count();
    let (i, o, u) = (
        count("in_training"),
        count("out_of_training"),
        count(Headline::INCONCLUSIVE),
    );
    let controls = if asked.len() == calls.len() && calls.iter().all(|c| c.label.is_none()) {
        String::new()
    } else {
        Controls::of(calls.iter().map(|c| (c.label, c.call == "in_training"))).text()
    };
    // The paper's rate over the asked targets (a JSD tie counts as out of training, as the paper's rule does).
    let paper_out = asked.iter().filter(|c| c.paper != Some(true)).count();
    let otr = report.out_of_training_rate.map_or(String::new(), |_| {
        format!(
            "; the paper's rule alone gives an out-of-training rate (OTR) of {}",
            num(paper_out as f64 / asked.len().max(1) as f64)
        )
    });
    let power = placebos.map_or(String::new(), |p| format!("; {}", p.power(true)));
    let otr = format!("{otr}{controls}{power}");
    let f1 = report
        .f1
        .as_ref()
        .map_or(String::new(), |f| format!(", F1 {} against the labels", num(f.f1)));
    if i + o == 0 {
        // One reason for all (withheld by the controls, swapped references, ...), or the list of kinds.
        let mut reasons: Vec<&str> = asked.iter().filter_map(|c| c.reason.as_deref()).collect();
        reasons.sort_unstable();
        reasons.dedup();
        let why = match reasons.as_slice() {
            [one] => (*one).to_string(),
            _ => "on each target the paper's rule and the exact shuffle means disagree, one of them ties, or the \
                  call is withheld (each target's reason is in the table)"
                .to_string(),
        };
        return Headline::inconclusive(format!("All {n} targets: inconclusive{otr}{f1}"), why);
    }
    Headline {
        call: "out_of_training_rate".into(),
        text: format!(
            "{n} targets: {o} out of training, {i} in training{}{otr}{f1}",
            if u > 0 {
                format!(", {u} inconclusive")
            } else {
                String::new()
            }
        ),
        reason: (u > 0).then(|| {
            let withheld = asked
                .iter()
                .filter_map(|c| c.reason.as_deref())
                .find(|r| r.starts_with("on the targets known"));
            withheld.map_or_else(
                || {
                    format!(
                        "on {u} target{} the paper's rule and the exact shuffle means disagree, or one of them ties",
                        if u == 1 { "" } else { "s" }
                    )
                },
                str::to_string,
            )
        }),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entry

/// `lethe sde` in the registry ([`crate::registry`]).
pub struct Sde;

/// The page's SDE run: on the backend its request names ([`Compute`]), or, in the full module, one worker's part of
/// a pooled run on the CPU, or the assembly of the parts by the page's worker.
pub struct SdeBrowserJob {
    job: SdeJob,
    choice: BackendChoice,
    #[cfg(feature = "full")]
    part: Option<Vec<u64>>,
    #[cfg(feature = "full")]
    assemble: Option<Vec<PartSubset>>,
}

/// What the page's SDE run returns: the run's output, or one worker's part of a pooled run (as it is, no tag).
#[derive(Serialize)]
#[serde(untagged)]
pub enum SdeBrowserOutput {
    Run(Box<SdeOutput>),
    Part(SdePart),
}

impl BackendJob for SdeJob {
    type Output = SdeOutput;
    fn precision(&self) -> Precision {
        SdeJob::precision(self)
    }
    async fn run_on<B: Backend, M: Monitor>(self, backend: &mut B, monitor: &mut M) -> Result<SdeOutput> {
        SdeJob::run_on(self, backend, monitor).await
    }
}

impl InBrowser for Sde {
    const NAME: &'static str = "sde";
    const LEAN: bool = true;
    const CHECK: bool = true;
    type Request = SdeRequest;
    type Job = SdeBrowserJob;
    type Output = SdeBrowserOutput;
    #[allow(unused_mut)] // the lean module has no pooled runs
    fn prepare(ws: &mut Workspace, mut req: SdeRequest) -> Result<SdeBrowserJob> {
        let choice = backend_choice(&req.backend)?;
        #[cfg(feature = "full")]
        let (part, assemble) = (req.part.take(), req.assemble.take());
        Ok(SdeBrowserJob {
            job: prepare_sde(ws, &req)?,
            choice,
            #[cfg(feature = "full")]
            part,
            #[cfg(feature = "full")]
            assemble,
        })
    }
    async fn finish<C: Compute, M: Monitor>(
        j: SdeBrowserJob,
        compute: &mut C,
        monitor: &mut M,
    ) -> Result<SdeBrowserOutput> {
        // A pool of workers runs on the CPU: one part per worker, assembled by the page's worker.
        #[cfg(feature = "full")]
        if let Some(subsets) = j.part {
            let mut cpu = CpuBackend::new(j.job.precision());
            return Ok(SdeBrowserOutput::Part(
                j.job.run_part_on(&mut cpu, monitor, &subsets).await?,
            ));
        }
        #[cfg(feature = "full")]
        if let Some(parts) = j.assemble {
            let info = Backend::info(&CpuBackend::new(j.job.precision()));
            // The placebo check reports its progress and stops on a Cancel (issue 24).
            return Ok(SdeBrowserOutput::Run(Box::new(
                j.job.assemble_with(parts, info, monitor).await?,
            )));
        }
        Ok(SdeBrowserOutput::Run(Box::new(
            compute.run(j.choice, j.job, monitor).await?,
        )))
    }
    /// Nothing is computed, so the backend does not matter: the CPU (the page's `auto` is resolved for runs only).
    fn for_check(req: SdeRequest) -> SdeRequest {
        SdeRequest {
            backend: "cpu".into(),
            ..req
        }
    }
    /// The prepare step's warnings, and a part of no subsets: the run's checks (shapes, sizes, kernels that fit)
    /// and no shuffle computed.
    async fn check<M: Monitor>(j: SdeBrowserJob, silent: &mut M) -> Result<Vec<Warning>> {
        let warnings = j.job.warnings().to_vec();
        let mut cpu = CpuBackend::new(j.job.precision());
        j.job.run_part_on(&mut cpu, silent, &[]).await?;
        Ok(warnings)
    }
}

registered! {
impl crate::registry::Analysis for Sde {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = SdeRequest;
    const ROLES: Roles = Roles::inputs(&[
        "in_training",
        "out_of_training",
        "target",
        "target_in",
        "target_out",
        "draw_from",
        "draw_in",
        "draw_out",
    ]);
    /// The references' and every target's distribution on shared edges.
    fn plots(r: &serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        let mut series: Vec<(String, &str, Vec<f64>)> = Vec::new();
        let mut add = |name: String, role, d: &serde_json::Value| {
            if let Some(v) = plots::numbers(&d["values"]) {
                series.push((name, role, v));
            }
        };
        add("in-training reference".into(), "it", &r["in_training_reference"]);
        add(
            "out-of-training reference".into(),
            "oot",
            &r["out_of_training_reference"],
        );
        for t in r["targets"].as_array().into_iter().flatten() {
            add(
                t["name"].as_str().unwrap_or("target").to_string(),
                "target",
                &t["distribution"],
            );
        }
        let refs: Vec<(String, &str, &[f64])> = series.iter().map(|(n, k, v)| (n.clone(), *k, v.as_slice())).collect();
        plots::json(plots::shared_histograms(&refs, plots::DISPLAY_BINS))
            .map(|h| ("histograms".to_string(), h))
            .into_iter()
            .collect()
    }
    fn run(ws: &mut Workspace, req: &SdeRequest, ctl: &mut Control<'_>) -> Result<serde_json::Value> {
        let job = prepare_sde_exact_f32(ws, req)?;
        let monitor = &mut *ctl.monitor;
        let out = job.run_threaded_with(ctl.threads.max(1), &mut |p| monitor(p))?;
        report(&out.report())
    }
}

}

#[cfg(test)]
mod tests {
    use super::*;

    fn now<F: std::future::Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match f.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(v) => v,
            std::task::Poll::Pending => panic!("the CPU backend never waits"),
        }
    }

    /// The digits example (float32 activations, 744 × 128) as source 1.
    fn digits() -> Workspace {
        let mut ws = Workspace::new();
        let act = include_bytes!("../../../examples/data/digits/act_unlearned.npy");
        ws.add(1, "act.npy", Arc::new(act.to_vec()));
        ws
    }

    fn rows(t: &str) -> InputRef {
        InputRef {
            source: 1,
            tensor: None,
            rows: Rows::Text { text: t.into() },
        }
    }

    fn request(it: &str, oot: &str, target: &str) -> SdeRequest {
        SdeRequest {
            in_training: Some(rows(it)),
            out_of_training: Some(rows(oot)),
            target: vec![rows(target)],
            shuffles: 40,
            ..SdeRequest::default()
        }
    }

    /// The page's SDE run through [`InBrowser`] (issue 26) returns what the wasm module returned before it did: the
    /// job's output on the CPU, written as the output itself (the untagged enum adds nothing), and a pooled part as
    /// the part; its check returns the prepare step's warnings.
    #[test]
    fn the_precision_is_the_backends_unless_given() {
        // f64 on the CPU (the reference), f32 on WebGPU (its only precision); one given is kept; f64 asked of WebGPU
        // is refused as a usage error naming both options (the CLI says `--backend gpu`, `--precision f64`).
        let req = |backend: &str, precision: Option<&str>| SdeRequest {
            backend: backend.into(),
            precision: precision.map(str::to_string),
            ..SdeRequest::default()
        };
        assert_eq!(req("cpu", None).kernel_precision().unwrap(), "f64");
        assert_eq!(req("webgpu", None).kernel_precision().unwrap(), "f32");
        assert_eq!(req("cpu", Some("f32")).kernel_precision().unwrap(), "f32");
        assert_eq!(req("webgpu", Some("f32")).kernel_precision().unwrap(), "f32");
        let e = req("webgpu", Some("f64")).kernel_precision().unwrap_err();
        assert!(e.usage);
        assert_eq!(
            words::cli(&e.message),
            "--backend gpu computes in f32 only (WebGPU and Lethe's shaders have no f64): drop --precision f64, or \
             use --backend cpu"
        );
        assert!(req("tpu", None).kernel_precision().is_err());
    }

    #[test]
    fn the_page_run_writes_the_output_itself() {
        struct Cpu;
        impl Compute for Cpu {
            async fn run<J: BackendJob, M: Monitor>(
                &mut self,
                _: BackendChoice,
                job: J,
                m: &mut M,
            ) -> Result<J::Output> {
                let mut cpu = CpuBackend::new(job.precision());
                job.run_on(&mut cpu, m).await
            }
        }
        let silent = &mut lethe::progress::Silent;
        let req = request("144..205", "544..604", "0..60");
        let mut ws = digits();
        let direct = now(prepare_sde(&mut ws, &req).unwrap().run(silent)).unwrap();
        let job = <Sde as InBrowser>::prepare(&mut ws, req.clone()).unwrap();
        let page = now(<Sde as InBrowser>::finish(job, &mut Cpu, silent)).unwrap();
        assert_eq!(
            serde_json::to_value(&page).unwrap(),
            serde_json::to_value(&direct).unwrap()
        );
        let part_req = SdeRequest {
            part: Some(vec![0, 2]),
            ..req.clone()
        };
        let job = prepare_sde(&mut ws, &part_req).unwrap();
        let mut cpu = CpuBackend::new(job.precision());
        let direct = now(job.run_part_on(&mut cpu, silent, &[0, 2])).unwrap();
        let job = <Sde as InBrowser>::prepare(&mut ws, part_req).unwrap();
        let page = now(<Sde as InBrowser>::finish(job, &mut Cpu, silent)).unwrap();
        assert_eq!(
            serde_json::to_value(&page).unwrap(),
            serde_json::to_value(&direct).unwrap()
        );
        let warnings = prepare_sde(&mut ws, &req).unwrap().warnings().to_vec();
        let job = <Sde as InBrowser>::prepare(&mut ws, req).unwrap();
        let checked = now(<Sde as InBrowser>::check(job, silent)).unwrap();
        assert_eq!(
            serde_json::to_value(&checked).unwrap(),
            serde_json::to_value(&warnings).unwrap()
        );
    }

    #[test]
    fn unequal_sizes_are_refused_and_equal_size_draws_the_smallest() {
        let mut ws = digits();
        let e = prepare_sde(&mut ws, &request("144..544", "544..744", "0..60"))
            .err()
            .unwrap();
        assert_eq!(e.code.as_deref(), Some("unequal_subset_sizes"));
        assert_eq!(e.input.as_deref(), Some("out_of_training"));
        for n in ["400 rows", "200 rows", "60 rows", "use 60 rows"] {
            assert!(e.message.contains(n), "{n}: {}", e.message);
        }
        // An odd last row is never used: 61 and 60 rows are halves of 30 either way.
        assert!(prepare_sde(&mut ws, &request("144..205", "544..604", "0..60")).is_ok());
        let req = SdeRequest {
            equal_size: true,
            ..request("144..544", "544..744", "0..60")
        };
        let out = now(prepare_sde(&mut ws, &req).unwrap().run(&mut lethe::progress::Silent)).unwrap();
        assert_eq!(out.result.in_training_reference.rows, 60);
        assert_eq!(out.result.out_of_training_reference.as_ref().unwrap().rows, 60);
        assert!(out.warnings.iter().any(|w| w.code == "equal_size_draw"));
        assert!(out.parameters.equal_size);
        // Seeded: the same request draws the same rows.
        let again = now(prepare_sde(&mut ws, &req).unwrap().run(&mut lethe::progress::Silent)).unwrap();
        assert_eq!(again.result, out.result);
    }

    #[test]
    fn too_few_rows_are_refused_before_unequal_sizes() {
        let mut ws = digits();
        let e = prepare_sde(&mut ws, &request("0..3", "3..9", "9..20")).err().unwrap();
        assert_eq!(e.code.as_deref(), Some("too_few_rows"));
        assert_eq!(e.input.as_deref(), Some("in_training"));
        assert!(
            e.message.contains("3 rows") && e.message.contains("at least 4"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_non_finite_value_is_named_by_its_row_in_the_file() {
        let mut v: Vec<f64> = (0..200 * 3).map(|i| f64::from(i % 17) / 7.0).collect();
        v[150 * 3 + 1] = f64::NAN;
        let mut ws = Workspace::new();
        ws.add(1, "x.npy", Arc::new(crate::npy::f64_bytes(&v, &[200, 3])));
        let e = prepare_sde(&mut ws, &request("100..200", "0..100", "0..100"))
            .err()
            .unwrap();
        assert_eq!(e.code.as_deref(), Some("non_finite"));
        assert_eq!(e.input.as_deref(), Some("in_training"));
        assert!(e.message.contains("row 150, column 1"), "{}", e.message);
    }

    #[test]
    fn exact_f32_holding_changes_no_number() {
        let mut ws = digits();
        let req = SdeRequest {
            draw_in: Some(rows("0..144")),
            draw: 3,
            size: Some(100),
            split: "random".into(),
            baselines: true,
            ..request("144..244", "544..644", "244..344")
        };
        let f64_job = prepare_sde(&mut ws, &req).unwrap();
        assert!(!f64_job.f32);
        let want = now(f64_job.run(&mut lethe::progress::Silent)).unwrap();
        let job = prepare_sde_exact_f32(&mut ws, &req).unwrap();
        assert!(job.f32, "float32 inputs are held as f32");
        assert!(job.inputs.iter().all(|h| matches!(h, Holding::F32(_))));
        let got = now(job.run(&mut lethe::progress::Silent)).unwrap();
        assert_eq!(got.result, want.result);
        assert_eq!(got.parameters, want.parameters);
        // A float64 file is not held as f32.
        let v: Vec<f64> = (0..40 * 2).map(|i| f64::from(i) / 3.0).collect();
        let mut ws = Workspace::new();
        ws.add(1, "x.npy", Arc::new(crate::npy::f64_bytes(&v, &[40, 2])));
        assert!(
            !prepare_sde_exact_f32(&mut ws, &request("0..10", "10..20", "20..30"))
                .unwrap()
                .f32
        );
    }

    #[test]
    fn the_headline_needs_both_rules_to_agree() {
        // On the digits example the paper's JSD rule says "in training" and the exact shuffle means "nearer the
        // out-of-training reference": inconclusive, with both in the reason.
        let mut ws = digits();
        let req = SdeRequest {
            shuffles: 200,
            ..request("144..244", "544..644", "0..100")
        };
        let out = now(prepare_sde(&mut ws, &req).unwrap().run(&mut lethe::progress::Silent)).unwrap();
        let c = &out.calls[0];
        assert_eq!((c.paper, c.exact_mean), (Some(true), Some(false)));
        assert_eq!(c.call, "inconclusive");
        assert!(out.headline.is_inconclusive());
        let reason = out.headline.reason.as_deref().unwrap();
        assert!(reason.contains("the paper's JSD rule says in training"), "{reason}");
        // The references differ the other way round from the paper's expectation: said, not hidden.
        assert!(out.warnings.iter().any(|w| w.code == "references_reversed"));
    }

    #[test]
    fn constant_rows_get_no_call() {
        let mut ws = Workspace::new();
        ws.add(1, "flat.npy", Arc::new(crate::npy::f64_bytes(&[1.5; 60 * 2], &[60, 2])));
        let out = now(prepare_sde(&mut ws, &request("0..20", "20..40", "40..60"))
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .unwrap();
        // The 0-vs-0 JSD tie is no call, in `result` too: no OTR counts it, and its verdict reads null in the report.
        assert_eq!(out.result.out_of_training_rate, None);
        assert_eq!(out.result.targets[0].verdict.decided(), None);
        let json = serde_json::to_value(out.report()).unwrap();
        assert!(
            json["result"]["targets"][0]["verdict"]["in_training"].is_null(),
            "{json}"
        );
        assert!(out.headline.is_inconclusive(), "{:?}", out.headline);
        assert_eq!(out.calls[0].paper, None);
        assert!(out.warnings.iter().any(|w| w.code == "constant_subset"));
        assert!(!out.headline.text.contains("NaN") && !out.headline.text.contains("inf "));
    }

    /// Subsets of another width name both files, their shapes and the fix (not the subsets' internal names).
    #[test]
    fn subsets_of_another_width_name_both_files() {
        let mut ws = digits();
        let narrow: Vec<f64> = (0..300).map(|i| f64::from(i % 7)).collect();
        ws.add(2, "narrow.npy", Arc::new(crate::npy::f64_bytes(&narrow, &[100, 3])));
        let req = SdeRequest {
            out_of_training: Some(InputRef {
                source: 2,
                tensor: None,
                rows: Rows::All,
            }),
            ..request("144..244", "0..1", "0..100")
        };
        let e = prepare_sde(&mut ws, &req).err().unwrap();
        assert_eq!(e.input.as_deref(), Some("out_of_training"));
        for needle in ["`narrow.npy`", "100 × 3", "`act.npy`", "100 × 128", "same layer"] {
            assert!(e.message.contains(needle), "{needle}: {}", e.message);
        }
        assert!(!e.message.contains("`in_training`"), "{}", e.message);
    }

    #[test]
    fn tiny_halves_are_warned_of_repeated_shuffles() {
        assert_eq!(few_shuffles(2, 200).unwrap().code, "few_distinct_shuffles");
        assert!(
            few_shuffles(5, 200)
                .unwrap()
                .message
                .contains("only 120 distinct orders")
        );
        assert!(few_shuffles(6, 200).is_none());
        assert!(few_shuffles(50, 200).is_none());
        assert!(few_shuffles(3, 6).is_none());
    }

    #[test]
    fn numbers_in_sentences_are_short() {
        assert_eq!(num(0.068130), "0.06813");
        assert_eq!(num(1.0), "1");
        assert_eq!(num(2.5e-23), "2.5e-23");
        assert_eq!(num(0.0), "0");
    }
}
