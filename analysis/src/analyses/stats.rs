//! The statistics on their own, as `lethe inspect`, `hsic`, `mwu`, `wilcoxon`, `jsd`, `mmd` and `wasserstein`:
//! a request per statistic (the CLI's option names and defaults), the checks that load its inputs and say what
//! is wrong in the files' own coordinates, the core's computation, and one [`Report`] with a headline a person can
//! act on.
//!
//! What the checks decide, once for every front end:
//! * The file readers' warnings (bytes after the data, a header row, a label column, ...) are warnings of the
//!   report ([`reader_warnings`]).
//! * NaN is refused everywhere, named by file, row and column. ±inf (and numbers beyond float64's range, such as
//!   `1e400`, which read as ±inf) are refused by the kernels, the histogram and the distances, which are not
//!   defined on them, and accepted with a warning by the rank tests, which order them as the most extreme values.
//! * Calls are made at the 5% level ([`LEVEL`]). A test whose sample sizes (or shuffles) cannot reach it, a
//!   Wilcoxon test whose differences are all zero, or constant inputs give "inconclusive" with the reason, never a
//!   NaN p-value as an answer. Distances (JSD, MMD, Wasserstein) state the distance and that it is not a test.

use lethe::data::FileInfo;
use lethe::divergence::{self, JsdResult, LogBase};
use lethe::hsic::{self, HsicTestParams, HsicTestResult};
use lethe::mann_whitney::{self, MannWhitneyResult};
use lethe::mmd::{self, MmdEstimator, MmdResult};
use lethe::wasserstein::{self, WassersteinResult};
use lethe::wilcoxon::{self, WilcoxonParams, WilcoxonResult, ZeroMethod};
use lethe::{Alternative, PValueMethod};

use super::*;
use crate::report::{Headline, Report, Warning};

/// The level at which the tests here call a result: p below 5%.
pub const LEVEL: f64 = 0.05;

/// The name of a core option value as requests and reports write it (`two-sided`, `auto`, `wilcox`, `f64`).
fn name_of<T: Serialize>(v: T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------------------------
// Requests, with the CLI's option names and the core's defaults.

/// `lethe hsic`'s options. With the `clap` feature (the CLI's), the options are the subcommand's arguments: each is
/// declared here once (the backend is the CLI's own `--backend`).
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct HsicRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub x: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub y: Option<InputRef>,
    /// Bandwidth of x: sqrt_dim, median, or a number
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<Bandwidth>, default_value_t = HsicRequest::default().sigma_x))]
    pub sigma_x: String,
    /// Bandwidth of y: sqrt_dim, median, or a number
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<Bandwidth>, default_value_t = HsicRequest::default().sigma_y))]
    pub sigma_y: String,
    /// Shuffles of the permutation test (p = (1 + b)/(1 + B); fewer than 19 can never give p < 0.05)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = HsicRequest::default().permutations))]
    pub permutations: usize,
    /// Seed of the shuffles
    #[cfg_attr(feature = "clap", arg(long, default_value_t = HsicRequest::default().seed))]
    pub seed: u64,
    /// Kernel storage: f64 or f32 [default: f64 on the CPU; the GPU computes in f32 only]
    // `None`: f64 on the CPU, f32 (the only precision) on a GPU.
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<lethe::backend::Precision>))]
    pub precision: Option<String>,
    /// `cpu`, or a GPU (`gpu` natively, `webgpu` in the browser); the caller runs the job on that backend.
    #[cfg_attr(feature = "clap", arg(skip = HsicRequest::default().backend))]
    pub backend: String,
}

impl Default for HsicRequest {
    fn default() -> Self {
        let p = HsicTestParams::default();
        Self {
            x: None,
            y: None,
            sigma_x: p.bandwidth_x.to_string(),
            sigma_y: p.bandwidth_y.to_string(),
            permutations: p.permutations,
            seed: p.seed,
            precision: None,
            backend: "cpu".into(),
        }
    }
}

/// `lethe mwu`'s options.
///
/// With the `clap` feature (the CLI's) the options are `lethe mwu`'s arguments, declared here once; a doc comment is
/// the option's `--help` line.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct MwuRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub x: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub y: Option<InputRef>,
    /// two-sided, less or greater (greater: x tends to be larger than y)
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<Alternative>, default_value_t = MwuRequest::default().alternative))]
    pub alternative: String,
    /// auto, exact or asymptotic (as scipy)
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<PValueMethod>, default_value_t = MwuRequest::default().method))]
    pub method: String,
    /// Disable the continuity correction of the asymptotic p-value
    #[cfg_attr(feature = "clap", arg(long))]
    pub no_continuity: bool,
}

/// A CLI argument's value, kept as its text once the core's parser accepts it.
#[cfg(feature = "clap")]
pub(super) fn checked<T: std::str::FromStr<Err = lethe::Error>>(s: &str) -> std::result::Result<String, String> {
    s.parse::<T>().map(|_| s.to_string()).map_err(|e| e.to_string())
}

impl Default for MwuRequest {
    fn default() -> Self {
        Self {
            x: None,
            y: None,
            alternative: name_of(Alternative::default()),
            method: name_of(PValueMethod::default()),
            no_continuity: false,
        }
    }
}

/// `lethe wilcoxon`'s options: the differences `x − y`, or `x` alone as the differences. With the `clap` feature
/// (the CLI's), the options are the subcommand's arguments: each is declared here once.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct WilcoxonRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub x: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub y: Option<InputRef>,
    /// wilcox, pratt or zsplit
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<lethe::wilcoxon::ZeroMethod>, default_value_t = WilcoxonRequest::default().zero_method))]
    pub zero_method: String,
    /// two-sided, less or greater (greater: x − y tends to be positive)
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<Alternative>, default_value_t = WilcoxonRequest::default().alternative))]
    pub alternative: String,
    /// auto, exact or asymptotic (as scipy)
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<PValueMethod>, default_value_t = WilcoxonRequest::default().method))]
    pub method: String,
    /// Continuity correction of the asymptotic p-value
    #[cfg_attr(feature = "clap", arg(long))]
    pub correction: bool,
    /// Every difference zero: scipy (its statistic and p-value, which depend on method and zero method) or nan
    /// (the stricter rule: no p-value); the headline says "inconclusive" either way
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["scipy", "nan"], default_value = "scipy"))]
    pub all_zero: String,
}

impl Default for WilcoxonRequest {
    fn default() -> Self {
        let p = WilcoxonParams::default();
        Self {
            x: None,
            y: None,
            zero_method: name_of(p.zero_method),
            alternative: name_of(p.alternative),
            method: name_of(p.method),
            correction: p.correction,
            all_zero: "scipy".into(),
        }
    }
}

/// `lethe jsd`'s options.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct JsdRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub x: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub y: Option<InputRef>,
    /// Equal-width bins over the range of both samples
    #[cfg_attr(feature = "clap", arg(long, default_value_t = JsdRequest::default().bins))]
    pub bins: usize,
    /// Logarithm base: e (default) or 2
    #[cfg_attr(feature = "clap", arg(long, value_parser = log_base, default_value_t = JsdRequest::default().base))]
    pub base: String,
}

/// `--base`: e or 2.
#[cfg(feature = "clap")]
fn log_base(s: &str) -> std::result::Result<String, String> {
    match s {
        "e" | "2" => Ok(s.to_string()),
        _ => Err("the logarithm base is e or 2".into()),
    }
}

impl Default for JsdRequest {
    fn default() -> Self {
        Self {
            x: None,
            y: None,
            bins: divergence::DEFAULT_JSD_BINS,
            base: "e".into(),
        }
    }
}

/// `lethe mmd`'s options.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct MmdRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub x: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub y: Option<InputRef>,
    /// Kernel bandwidth: sqrt_dim, median, or a number
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<Bandwidth>, default_value_t = MmdRequest::default().sigma))]
    pub sigma: String,
    /// The unbiased estimator (at least 2 rows per set) instead of the biased one
    #[cfg_attr(feature = "clap", arg(long))]
    pub unbiased: bool,
}

impl Default for MmdRequest {
    fn default() -> Self {
        Self {
            x: None,
            y: None,
            sigma: Bandwidth::default().to_string(),
            unbiased: MmdEstimator::default() == MmdEstimator::Unbiased,
        }
    }
}

/// `lethe wasserstein`'s inputs.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct WassersteinRequest {
    pub x: Option<InputRef>,
    pub y: Option<InputRef>,
}

/// `lethe inspect`'s file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default)]
pub struct InspectRequest {
    pub source: Option<u32>,
}

// ---------------------------------------------------------------------------------------------------------------
// Parameters as `lethe … --json` reports them (the CLI's arguments, inputs as their specs).

/// The two inputs of a two-sample command, as their specs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Samples {
    pub x: String,
    pub y: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HsicParameters {
    pub x: String,
    pub y: String,
    pub sigma_x: String,
    pub sigma_y: String,
    pub permutations: usize,
    pub seed: u64,
    pub precision: String,
    /// Recorded only for a GPU: CPU reports keep the parameters they always had.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MwuParameters {
    pub samples: Samples,
    pub alternative: String,
    pub method: String,
    pub no_continuity: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WilcoxonParameters {
    pub x: String,
    pub y: Option<String>,
    pub zero_method: String,
    pub alternative: String,
    pub method: String,
    pub correction: bool,
    pub all_zero: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JsdParameters {
    pub samples: Samples,
    pub bins: usize,
    pub base: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MmdParameters {
    pub samples: Samples,
    pub sigma: String,
    pub unbiased: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WassersteinParameters {
    pub samples: Samples,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InspectParameters {
    pub file: String,
}

/// `lethe wilcoxon`'s result: the test and the matched-pairs rank-biserial correlation (`None` where it is 0/0).
#[derive(Clone, Debug, Serialize)]
pub struct WilcoxonOutput {
    pub test: WilcoxonResult,
    pub rank_biserial: Option<f64>,
}

pub type HsicReport = Report<HsicParameters, HsicTestResult>;
pub type MwuReport = Report<MwuParameters, MannWhitneyResult>;
pub type WilcoxonReport = Report<WilcoxonParameters, WilcoxonOutput>;
pub type JsdReport = Report<JsdParameters, JsdResult>;
pub type MmdReport = Report<MmdParameters, MmdResult>;
pub type WassersteinReport = Report<WassersteinParameters, WassersteinResult>;
pub type InspectReport = Report<InspectParameters, InspectResult>;

/// `lethe inspect`'s result: the file's arrays, and for a file one of the tools users run wrote (issue 14) what that
/// tool's reader makes of it (absent for other files, whose reports are unchanged).
#[derive(Clone, Debug, Serialize)]
pub struct InspectResult {
    #[serde(flatten)]
    pub info: FileInfo,
    #[cfg(feature = "full")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<super::tools::ToolFile>,
}

impl std::ops::Deref for InspectResult {
    type Target = FileInfo;
    fn deref(&self) -> &FileInfo {
        &self.info
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Inputs: loading, the readers' warnings, non-finite values in the files' coordinates.

/// The warnings a file reader attached to a loaded input, as report warnings for `role`: bytes after the data, a
/// detected header row or label column, an array name that a single-array file ignores, bare NaN tokens in JSON.
/// The reader's note on non-finite values is left out: every analysis says what it does with them itself.
pub fn reader_warnings(role: &str, input: &Input) -> Vec<Warning> {
    input
        .warnings
        .iter()
        .filter(|w| w.kind != NoteKind::NonFinite)
        .map(|w| file_warning(Some(role), w))
        .collect()
}

/// An input loaded for a statistic: the matrix, its record, the warnings its reader gave.
pub(super) struct Loaded {
    role: &'static str,
    pub(super) input: Arc<Input>,
    rows: Rows,
}

impl Loaded {
    pub(super) fn matrix(&self) -> &Matrix {
        &self.input.matrix
    }

    /// The file's name and rows as the request gave them (`act.npy@0..100`), for messages.
    pub(super) fn spec(&self) -> &str {
        &self.input.record.spec
    }

    /// The file's path as given.
    fn path(&self) -> &str {
        &self.input.record.path
    }

    /// The place of element `k` (row-major) in the file's coordinates: `row R` or `row R, column C`.
    fn place(&self, ws: &mut Workspace, k: usize) -> String {
        place(ws, self.role, &self.rows, self.matrix(), k)
    }
}

/// The place of element `k` (row-major) of `m`, loaded for `role` with `rows`, in the file's coordinates: `row R`
/// (one column) or `row R, column C`, R the row of the file (the row subset's R-th index), counted from 0.
pub(super) fn place(ws: &mut Workspace, role: &str, rows: &Rows, m: &Matrix, k: usize) -> String {
    let cols = m.cols().max(1);
    let (i, j) = (k / cols, k % cols);
    let row = match ws.resolve_rows(role, rows) {
        Ok((Some(rows), _, _)) => rows.get(i).copied().unwrap_or(i),
        _ => i,
    };
    if cols == 1 {
        format!("row {row}")
    } else {
        format!("row {row}, column {j}")
    }
}

fn load(ws: &mut Workspace, role: &'static str, r: Option<&InputRef>) -> Result<Loaded> {
    let r = r.ok_or_else(|| Error::at(role, format!("choose the input `{}`", crate::words::role(role))).usage())?;
    let input = ws.load(role, r)?;
    Ok(Loaded {
        role,
        input,
        rows: r.rows.clone(),
    })
}

/// A 1-D sample: one column, or one row.
fn load_sample(ws: &mut Workspace, role: &'static str, r: Option<&InputRef>) -> Result<Loaded> {
    let l = load(ws, role, r)?;
    let m = l.matrix();
    if m.cols() != 1 && m.rows() != 1 {
        return Err(Error::at(
            role,
            format!(
                "`{}` is {}×{}, but this statistic takes a 1-D sample: one column of numbers (or one row); pick \
                 a single column or tensor",
                l.spec(),
                m.rows(),
                m.cols()
            ),
        ));
    }
    Ok(l)
}

/// Counts of non-finite values and where the first of each kind is.
#[derive(Default)]
struct NonFinite {
    nan: usize,
    pos_inf: usize,
    neg_inf: usize,
    first_nan: Option<usize>,
    first_inf: Option<usize>,
}

impl NonFinite {
    fn scan(values: &[f64]) -> Self {
        let mut s = Self::default();
        for (k, &v) in values.iter().enumerate() {
            if v.is_nan() {
                s.nan += 1;
                s.first_nan.get_or_insert(k);
            } else if v.is_infinite() {
                if v > 0.0 {
                    s.pos_inf += 1;
                } else {
                    s.neg_inf += 1;
                }
                s.first_inf.get_or_insert(k);
            }
        }
        s
    }

    fn infinite(&self) -> usize {
        self.pos_inf + self.neg_inf
    }

    fn counts(&self) -> String {
        let mut parts = Vec::new();
        for (n, what) in [(self.nan, "NaN"), (self.pos_inf, "+inf"), (self.neg_inf, "−inf")] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        parts.join(", ")
    }
}

const TOO_LARGE: &str = "numbers beyond float64's range, such as 1e400, are read as ±inf";

/// Refuses NaN and ±inf in an input of a statistic that is not defined on them (`what`), naming the file, the
/// counts and the first one's place in the file.
fn refuse_nonfinite(ws: &mut Workspace, l: &Loaded, what: &str) -> Result<()> {
    check_finite(ws, l.role, &l.rows, &l.input, what)
}

/// Refuses NaN and ±inf in `input`, loaded for `role` with `rows`, for a statistic that cannot use them (`what`,
/// e.g. "An RBF kernel"): code `non_finite`, naming the file, the counts and the first one's row and column of the
/// file (not of the row subset). For every analysis whose core would otherwise name an internal input and a
/// position within the subset.
///
/// # Errors
/// The refusal, when there is a NaN or ±inf.
pub(super) fn check_finite(ws: &mut Workspace, role: &str, rows: &Rows, input: &Input, what: &str) -> Result<()> {
    check_finite_rows(ws, role, rows, input, None, what)
}

/// [`check_finite`] over the rows of `input` an analysis uses (`used[i]`: row i of the loaded matrix is used; `None`:
/// every row), so a value the analysis never reads is no reason to refuse.
///
/// # Errors
/// The refusal, when a used row has a NaN or ±inf.
pub(super) fn check_finite_rows(
    ws: &mut Workspace,
    role: &str,
    rows: &Rows,
    input: &Input,
    used: Option<&[bool]>,
    what: &str,
) -> Result<()> {
    let m = &input.matrix;
    let cols = m.cols().max(1);
    let s = match used {
        None => NonFinite::scan(m.as_slice()),
        Some(used) => {
            let mut s = NonFinite::default();
            for i in (0..m.rows()).filter(|&i| used.get(i).copied().unwrap_or(false)) {
                let row = NonFinite::scan(m.row(i));
                s.nan += row.nan;
                s.pos_inf += row.pos_inf;
                s.neg_inf += row.neg_inf;
                s.first_nan = s.first_nan.or(row.first_nan.map(|j| i * cols + j));
                s.first_inf = s.first_inf.or(row.first_inf.map(|j| i * cols + j));
            }
            s
        }
    };
    let Some(first) = s.first_nan.into_iter().chain(s.first_inf).min() else {
        return Ok(());
    };
    let place = place(ws, role, rows, m, first);
    let note = if s.infinite() > 0 {
        format!("; {TOO_LARGE}")
    } else {
        String::new()
    };
    Err(Error::refused(
        "non_finite",
        Some(role),
        format!(
            "`{}` has non-finite values: {}, the first ({}) at {place} of the file (counting from 0){note}. {what} cannot use them: \
             remove or impute those rows, or select the finite rows",
            input.record.path,
            s.counts(),
            fmt_value(m.as_slice()[first])
        ),
    ))
}

/// Which of `n` rows the row lists use (`None` in a list: every row), for [`check_finite_rows`].
pub(super) fn used_rows(n: usize, lists: &[&Option<Vec<usize>>]) -> Option<Vec<bool>> {
    if lists.iter().any(|l| l.is_none()) {
        return None;
    }
    let mut used = vec![false; n];
    for &i in lists.iter().filter_map(|l| l.as_deref()).flatten() {
        if let Some(u) = used.get_mut(i) {
            *u = true;
        }
    }
    Some(used)
}

/// For a rank test: NaN is refused (it cannot be ordered); ±inf is ordered as the most extreme value, with a
/// warning that names the file and the first one's place.
fn rank_nonfinite(ws: &mut Workspace, l: &Loaded, warnings: &mut Vec<Warning>) -> Result<()> {
    let s = NonFinite::scan(l.matrix().as_slice());
    if let Some(first) = s.first_nan {
        let place = l.place(ws, first);
        return Err(Error::refused(
            "non_finite",
            Some(l.role),
            format!(
                "`{}` has {} (the first at {place} of the file, counting from 0): a rank test cannot order NaN. Remove or impute \
                 those rows, or select the other rows",
                l.path(),
                s.counts()
            ),
        ));
    }
    if let Some(first) = s.first_inf {
        let place = l.place(ws, first);
        warnings.push(Warning::new(
            "infinite_values",
            Some(l.role),
            format!(
                "`{}` has {} (the first at {place} of the file, counting from 0; {TOO_LARGE}): the rank test counts +inf above and \
                 −inf below every finite value",
                l.path(),
                s.counts()
            ),
            Some(
                "if they stand for missing or overflowed values rather than extremes, remove those rows or select \
                 the finite ones"
                    .into(),
            ),
        ));
    }
    Ok(())
}

/// A value for messages.
fn fmt_value(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+inf".into() } else { "−inf".into() }
    } else {
        v.to_string()
    }
}

use crate::report::num;

/// The file name of an input with its tensor and rows (`act.npy@0..100`), for headlines.
pub(super) fn short(l: &Loaded) -> String {
    let spec = l.spec();
    let dir = std::path::Path::new(l.path())
        .parent()
        .map(|p| p.to_string_lossy().len())
        .unwrap_or(0);
    match spec.get(dir..) {
        Some(rest) if dir > 0 => rest.trim_start_matches(['/', '\\']).to_string(),
        _ => spec.to_string(),
    }
}

/// A core error of a statistic over `inputs`: attributed to the role it names, and naming the files it concerns
/// (the core names roles, not files).
pub(super) fn core_error(e: lethe::Error, inputs: &[&Loaded]) -> Error {
    let roles: Vec<&str> = inputs.iter().map(|l| l.role).collect();
    let about_data = !matches!(
        e,
        lethe::Error::InvalidParameter { .. } | lethe::Error::ParameterTooLarge { .. } | lethe::Error::Backend(_)
    );
    let mut err = attribute(e, &roles);
    if !about_data {
        return err;
    }
    let named: Vec<&&Loaded> = match &err.input {
        Some(role) => inputs.iter().filter(|l| l.role == role).collect(),
        None => inputs.iter().collect(),
    };
    let files: Vec<String> = named
        .iter()
        .filter(|l| !err.message.contains(l.path()))
        .map(|l| format!("{} = `{}`", l.role, l.spec()))
        .collect();
    if !files.is_empty() {
        err.message = format!("{} ({})", err.message, files.join(", "));
    }
    err
}

/// A parameter that does not parse: a malformed request.
pub(super) fn option<T: std::str::FromStr<Err = lethe::Error>>(s: &str) -> Result<T> {
    s.parse().map_err(|e: lethe::Error| Error::from(e).usage())
}

/// The core's notes on a result (ties under an exact method, ...), as report warnings.
fn notes(warnings: &[String]) -> Vec<Warning> {
    warnings
        .iter()
        .map(|w| Warning::new("test_note", None, w.clone(), None))
        .collect()
}

// ---------------------------------------------------------------------------------------------------------------
// Rank tests.

/// Which way a significant rank test points, in words.
fn direction(alt: Alternative, positive: bool, larger: &str, smaller: &str) -> String {
    match alt {
        Alternative::Greater => larger.to_string(),
        Alternative::Less => smaller.to_string(),
        Alternative::TwoSided if positive => larger.to_string(),
        Alternative::TwoSided => smaller.to_string(),
    }
}

fn sided(alt: Alternative) -> &'static str {
    match alt {
        Alternative::TwoSided => "",
        _ => "one-sided ",
    }
}

/// The two 1-D samples `x` and `y` of a test that orders values (Mann–Whitney, Kolmogorov–Smirnov), with the readers'
/// warnings: each must hold a value; NaN is refused and ±inf ranked with a warning ([`rank_nonfinite`]).
pub(super) fn two_ordered_samples(
    ws: &mut Workspace,
    x: Option<&InputRef>,
    y: Option<&InputRef>,
) -> Result<(Loaded, Loaded, Vec<Warning>)> {
    let x = load_sample(ws, "x", x)?;
    let y = load_sample(ws, "y", y)?;
    let mut warnings = reader_warnings("x", &x.input);
    warnings.extend(reader_warnings("y", &y.input));
    for l in [&x, &y] {
        if l.matrix().as_slice().is_empty() {
            return Err(Error::at(
                l.role,
                format!(
                    "`{}` has no values; the test needs at least one in each sample",
                    l.spec()
                ),
            ));
        }
        rank_nonfinite(ws, l, &mut warnings)?;
    }
    Ok((x, y, warnings))
}

/// Mann–Whitney U of two samples (as scipy.stats.mannwhitneyu), with its call.
///
/// # Errors
/// Missing or unreadable inputs, inputs that are not 1-D, NaN (named by file and row), bad options.
pub fn run_mwu(ws: &mut Workspace, req: &MwuRequest) -> Result<MwuReport> {
    let alt: Alternative = option(&req.alternative)?;
    let method: PValueMethod = option(&req.method)?;
    let (x, y, mut warnings) = two_ordered_samples(ws, req.x.as_ref(), req.y.as_ref())?;
    let (xs, ys) = (x.matrix().as_slice(), y.matrix().as_slice());
    let r =
        mann_whitney::mann_whitney_u(xs, ys, alt, method, !req.no_continuity).map_err(|e| core_error(e, &[&x, &y]))?;
    warnings.extend(notes(&r.warnings));

    let (nx, ny) = (xs.len(), ys.len());
    let (lo, hi) = xs
        .iter()
        .chain(ys)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    // The smallest p-value these sample sizes allow: the core's p for samples that do not overlap at all.
    let apart = |n: usize, from: usize| (from..from + n).map(|v| v as f64).collect::<Vec<_>>();
    let (sep_x, sep_y) = match alt {
        Alternative::Less => (apart(nx, 0), apart(ny, nx)),
        _ => (apart(nx, ny), apart(ny, 0)),
    };
    let p_min =
        mann_whitney::mann_whitney_u(&sep_x, &sep_y, alt, method, !req.no_continuity).map_or(0.0, |m| m.p_value);
    let (sx, sy) = (short(&x), short(&y));
    let headline = if lo == hi {
        Headline::inconclusive(
            "Inconclusive: the samples cannot be told apart by rank",
            format!(
                "every value of both samples is {}: the ranks carry no information",
                num(lo)
            ),
        )
    } else if p_min >= LEVEL {
        Headline::inconclusive(
            "Inconclusive: these samples are too small for the test to show a difference",
            format!(
                "with {nx} and {ny} values the smallest {}p-value the test can give is {}, not below {LEVEL}; use \
                 more values",
                sided(alt),
                num(p_min)
            ),
        )
    } else if r.p_value < LEVEL {
        let way = direction(
            alt,
            r.rank_biserial > 0.0,
            &format!("values of {sx} tend to be larger than those of {sy}"),
            &format!("values of {sx} tend to be smaller than those of {sy}"),
        );
        Headline::new(
            "differ",
            format!(
                "The samples differ ({}p = {}, below {LEVEL}): {way} (rank-biserial r = {})",
                sided(alt),
                num(r.p_value),
                num(r.rank_biserial)
            ),
        )
    } else {
        Headline::new(
            "no_evidence",
            format!(
                "No evidence that the samples differ ({}p = {}, not below {LEVEL}); this does not show that they \
                 are the same",
                sided(alt),
                num(r.p_value)
            ),
        )
    };
    let parameters = MwuParameters {
        samples: Samples {
            x: x.spec().to_string(),
            y: y.spec().to_string(),
        },
        alternative: req.alternative.clone(),
        method: req.method.clone(),
        no_continuity: req.no_continuity,
    };
    let inputs = vec![x.input.record.clone(), y.input.record.clone()];
    Ok(Report::new("mwu", parameters, None, inputs, headline, warnings, r))
}

/// Wilcoxon signed-rank test of `x − y` (or of `x`), as scipy.stats.wilcoxon, with the rank-biserial correlation
/// and its call.
///
/// # Errors
/// Missing or unreadable inputs, inputs that are not 1-D or of different lengths, NaN or `inf − inf` (named by
/// file and row), bad options.
pub fn run_wilcoxon(ws: &mut Workspace, req: &WilcoxonRequest) -> Result<WilcoxonReport> {
    let zero: ZeroMethod = option(&req.zero_method)?;
    let params = WilcoxonParams {
        zero_method: zero,
        correction: req.correction,
        alternative: option(&req.alternative)?,
        method: option(&req.method)?,
    };
    let x = load_sample(ws, "x", req.x.as_ref())?;
    let y = req.y.as_ref().map(|r| load_sample(ws, "y", Some(r))).transpose()?;
    let mut warnings = reader_warnings("x", &x.input);
    let mut loaded = vec![&x];
    if let Some(y) = &y {
        warnings.extend(reader_warnings("y", &y.input));
        loaded.push(y);
    }
    for l in &loaded {
        if l.matrix().as_slice().is_empty() {
            return Err(Error::at(
                l.role,
                format!("`{}` has no values; the test needs at least one", l.spec()),
            ));
        }
        rank_nonfinite(ws, l, &mut warnings)?;
    }
    let xs = x.matrix().as_slice();
    let ys = y.as_ref().map(|y| y.matrix().as_slice());
    if let (Some(y), Some(yv)) = (&y, ys) {
        if yv.len() != xs.len() {
            return Err(Error::at(
                "y",
                format!(
                    "`{}` has {} values but `{}` has {}: the signed-rank test pairs value i of x with value i of \
                     y, so both need the same number",
                    x.spec(),
                    xs.len(),
                    y.spec(),
                    yv.len()
                ),
            ));
        }
        if let Some(k) = xs.iter().zip(yv).position(|(a, b)| (a - b).is_nan()) {
            let (px, py) = (x.place(ws, k), y.place(ws, k));
            return Err(Error::refused(
                "non_finite",
                Some("x"),
                format!(
                    "{px} of `{}` and {py} of `{}` are both {}: their difference is undefined. Remove that pair",
                    x.path(),
                    y.path(),
                    fmt_value(xs[k])
                ),
            ));
        }
    }
    let all_zero: wilcoxon::AllZero = req.all_zero.parse().map_err(|_| {
        Error::msg(format!(
            "`{}` is not one of scipy, nan (what a test of all-zero differences reports)",
            req.all_zero
        ))
        .usage()
    })?;
    let test = wilcoxon::wilcoxon_with(xs, ys, &params, all_zero).map_err(|e| core_error(e, &loaded))?;
    let rank_biserial = wilcoxon::rank_biserial(xs, ys, zero).ok();
    warnings.extend(notes(&test.warnings));

    let alt = params.alternative;
    let paired = y.is_some();
    let what = if paired {
        "the differences x − y"
    } else {
        "the values"
    };
    let n = xs.len();
    // The smallest p-value `n_used` differences allow: the core's p for differences 1..n of one sign.
    let p_min = if test.n_used == 0 {
        1.0
    } else {
        let sign = if alt == Alternative::Less { -1.0 } else { 1.0 };
        let d: Vec<f64> = (1..=test.n_used).map(|v| sign * v as f64).collect();
        wilcoxon::wilcoxon(&d, None, &params).map_or(0.0, |t| t.p_value)
    };
    let headline = if test.n_zero == n {
        Headline::inconclusive(
            "Inconclusive: there is no difference to test",
            if paired {
                format!(
                    "all {n} differences x − y are zero (`{}` and `{}` are equal pair by pair), so the signed-rank \
                     test has nothing to rank",
                    x.spec(),
                    y.as_ref().map_or("", |y| y.spec())
                )
            } else {
                format!(
                    "all {n} values of `{}` are zero, so the signed-rank test has nothing to rank",
                    x.spec()
                )
            },
        )
    } else if test.p_value.is_nan() {
        Headline::inconclusive(
            "Inconclusive: the test gave no p-value",
            "the p-value is undefined for these values",
        )
    } else if p_min >= LEVEL {
        Headline::inconclusive(
            "Inconclusive: too few non-zero differences for the test to show a shift",
            format!(
                "with {} non-zero difference(s) the smallest {}p-value the test can give is {}, not below {LEVEL}; \
                 use more pairs",
                test.n_used,
                sided(alt),
                num(p_min)
            ),
        )
    } else if test.p_value < LEVEL {
        let r = rank_biserial.unwrap_or(test.rank_biserial);
        let way = direction(
            alt,
            test.r_plus > test.r_minus,
            &format!("{what} tend to be positive"),
            &format!("{what} tend to be negative"),
        );
        let call = if paired {
            "The samples differ pair by pair"
        } else {
            "The values are shifted away from zero"
        };
        Headline::new(
            "differ",
            format!(
                "{call} ({}p = {}, below {LEVEL}): {way} (rank-biserial r = {})",
                sided(alt),
                num(test.p_value),
                num(r)
            ),
        )
    } else {
        Headline::new(
            "no_evidence",
            format!(
                "No evidence of a shift in {what} ({}p = {}, not below {LEVEL}); this does not show that there is \
                 none",
                sided(alt),
                num(test.p_value)
            ),
        )
    };
    let parameters = WilcoxonParameters {
        x: x.spec().to_string(),
        y: y.as_ref().map(|y| y.spec().to_string()),
        zero_method: req.zero_method.clone(),
        alternative: req.alternative.clone(),
        method: req.method.clone(),
        correction: req.correction,
        all_zero: req.all_zero.clone(),
    };
    let mut inputs = vec![x.input.record.clone()];
    inputs.extend(y.as_ref().map(|y| y.input.record.clone()));
    let result = WilcoxonOutput { test, rank_biserial };
    Ok(Report::new(
        "wilcoxon", parameters, None, inputs, headline, warnings, result,
    ))
}

// ---------------------------------------------------------------------------------------------------------------
// Distances.

/// The inputs of a two-sample distance, loaded and checked: finite values, something in each.
fn two_inputs(
    ws: &mut Workspace,
    x: Option<&InputRef>,
    y: Option<&InputRef>,
    one_d: bool,
    what: &str,
) -> Result<(Loaded, Loaded, Vec<Warning>)> {
    let load_one = |ws: &mut Workspace, role, r| {
        if one_d {
            load_sample(ws, role, r)
        } else {
            load(ws, role, r)
        }
    };
    let x = load_one(ws, "x", x)?;
    let y = load_one(ws, "y", y)?;
    let mut warnings = reader_warnings("x", &x.input);
    warnings.extend(reader_warnings("y", &y.input));
    for l in [&x, &y] {
        if l.matrix().as_slice().is_empty() {
            return Err(Error::at(l.role, format!("`{}` has no values", l.spec())));
        }
        refuse_nonfinite(ws, l, what)?;
    }
    Ok((x, y, warnings))
}

/// Two sets of rows must have the same number of columns (activations of the same layer).
fn same_columns(x: &Loaded, y: &Loaded) -> Result<()> {
    let (a, b) = (x.matrix().cols(), y.matrix().cols());
    if a == b {
        return Ok(());
    }
    Err(Error::at(
        "y",
        format!(
            "`{}` has {a} columns but `{}` has {b}: the rows of both must be of the same kind (e.g. activations of \
             the same layer)",
            x.spec(),
            y.spec()
        ),
    ))
}

fn samples(x: &Loaded, y: &Loaded) -> Samples {
    Samples {
        x: x.spec().to_string(),
        y: y.spec().to_string(),
    }
}

const NOT_A_TEST: &str = "A distance, not a test: it does not say whether the difference is more than chance";

/// Jensen–Shannon divergence of two samples' histograms on shared bins.
///
/// # Errors
/// Missing or unreadable inputs, inputs that are not 1-D, NaN or ±inf (named by file, row and column), bad bins.
pub fn run_jsd(ws: &mut Workspace, req: &JsdRequest) -> Result<JsdReport> {
    let base = match req.base.as_str() {
        "e" => LogBase::Natural,
        "2" => LogBase::Two,
        other => {
            return Err(Error::msg(format!("the logarithm base is e or 2, not `{other}`")).usage());
        }
    };
    let (x, y, warnings) = two_inputs(ws, req.x.as_ref(), req.y.as_ref(), true, "A histogram (JSD)")?;
    let r = divergence::jsd_with_base(x.matrix().as_slice(), y.matrix().as_slice(), req.bins, base)
        .map_err(|e| core_error(e, &[&x, &y]))?;
    let (unit, most) = match base {
        LogBase::Natural => ("nats", "ln 2 = 0.6931"),
        LogBase::Two => ("bits", "1"),
    };
    let headline = Headline::new(
        "distance",
        format!(
            "JSD between the histograms of {} and {} is {} {unit} (0 = the same histogram, at most {most}; {} \
             bins). {NOT_A_TEST}",
            short(&x),
            short(&y),
            num(r.jsd),
            r.edges.len().saturating_sub(1)
        ),
    );
    let parameters = JsdParameters {
        samples: samples(&x, &y),
        bins: req.bins,
        base: req.base.clone(),
    };
    let inputs = vec![x.input.record.clone(), y.input.record.clone()];
    Ok(Report::new("jsd", parameters, None, inputs, headline, warnings, r))
}

/// Maximum mean discrepancy (RBF kernel) between two sets of rows.
///
/// # Errors
/// Missing or unreadable inputs, NaN or ±inf (named by file, row and column), different column counts, too few
/// rows, a bad bandwidth.
pub fn run_mmd(ws: &mut Workspace, req: &MmdRequest) -> Result<MmdReport> {
    let bw: Bandwidth = option(&req.sigma)?;
    let est = if req.unbiased {
        MmdEstimator::Unbiased
    } else {
        MmdEstimator::Biased
    };
    let (x, y, warnings) = two_inputs(ws, req.x.as_ref(), req.y.as_ref(), false, "An RBF kernel")?;
    same_columns(&x, &y)?;
    if est == MmdEstimator::Unbiased {
        for l in [&x, &y] {
            if l.matrix().rows() < 2 {
                return Err(Error::at(
                    l.role,
                    format!(
                        "`{}` has {} row: the unbiased estimate needs at least 2 rows in each set (the biased one \
                         needs 1)",
                        l.spec(),
                        l.matrix().rows()
                    ),
                ));
            }
        }
    }
    let r = mmd::mmd(x.matrix().view(), y.matrix().view(), bw, est).map_err(|e| core_error(e, &[&x, &y]))?;
    let negative = if r.mmd2 < 0.0 {
        " (the unbiased estimate can fall below 0 when the sets are alike)"
    } else {
        ""
    };
    let headline = Headline::new(
        "distance",
        format!(
            "MMD² between the rows of {} and {} is {}{negative} ({} estimate, kernel width σ = {}; 0 = the same \
             distribution as the kernel sees it). {NOT_A_TEST}",
            short(&x),
            short(&y),
            num(r.mmd2),
            name_of(est),
            num(r.sigma)
        ),
    );
    let parameters = MmdParameters {
        samples: samples(&x, &y),
        sigma: req.sigma.clone(),
        unbiased: req.unbiased,
    };
    let inputs = vec![x.input.record.clone(), y.input.record.clone()];
    Ok(Report::new("mmd", parameters, None, inputs, headline, warnings, r))
}

/// Exact Wasserstein-1 distance between two sets of rows (equal sizes, or 1-D).
///
/// # Errors
/// Missing or unreadable inputs, NaN or ±inf (named by file, row and column), different column counts, sets of
/// different sizes in more than one dimension.
pub fn run_wasserstein(ws: &mut Workspace, req: &WassersteinRequest) -> Result<WassersteinReport> {
    let (x, y, warnings) = two_inputs(ws, req.x.as_ref(), req.y.as_ref(), false, "The Wasserstein distance")?;
    same_columns(&x, &y)?;
    let (n, m) = (x.matrix().rows(), y.matrix().rows());
    if x.matrix().cols() > 1 && n != m {
        return Err(Error::at(
            "y",
            format!(
                "`{}` has {n} rows and `{}` has {m}: the exact distance between rows of more than one column is \
                 computed for sets of the same size; select the same number of rows from each",
                x.spec(),
                y.spec()
            ),
        ));
    }
    let r = wasserstein::wasserstein1(x.matrix().view(), y.matrix().view()).map_err(|e| core_error(e, &[&x, &y]))?;
    let headline = Headline::new(
        "distance",
        format!(
            "The Wasserstein-1 distance between {} and {} is {} (in the units of the data; 0 = the same set of \
             values). {NOT_A_TEST}",
            short(&x),
            short(&y),
            num(r.distance)
        ),
    );
    let parameters = WassersteinParameters {
        samples: samples(&x, &y),
    };
    let inputs = vec![x.input.record.clone(), y.input.record.clone()];
    Ok(Report::new(
        "wasserstein",
        parameters,
        None,
        inputs,
        headline,
        warnings,
        r,
    ))
}

// ---------------------------------------------------------------------------------------------------------------
// HSIC.

/// An HSIC permutation test with its inputs loaded and checked, to run on a backend.
pub struct HsicJob {
    x: Loaded,
    y: Loaded,
    params: HsicTestParams,
    parameters: HsicParameters,
    warnings: Vec<Warning>,
}

/// Whether a request's backend names a GPU.
fn is_gpu(backend: &str) -> bool {
    matches!(backend, "gpu" | "webgpu")
}

/// Loads and checks the inputs of an HSIC permutation test.
///
/// # Errors
/// Missing or unreadable inputs, NaN or ±inf (named by file, row and column), different row counts, too few rows,
/// bad options (f64 asked of a GPU among them).
pub fn prepare_hsic(ws: &mut Workspace, req: &HsicRequest) -> Result<HsicJob> {
    let gpu = match req.backend.as_str() {
        "" | "cpu" => false,
        b if is_gpu(b) => true,
        other => {
            return Err(Error::msg(format!("backend `{other}` is not one of cpu, gpu")).usage());
        }
    };
    let precision = match (gpu, req.precision.as_deref()) {
        (true, Some("f64")) => {
            return Err(Error::msg(
                "the GPU computes in f32 only (WebGPU and Lethe's shaders have no f64): ask for f32, or run on the \
                 CPU",
            )
            .usage());
        }
        (true, _) => "f32".to_string(),
        (false, p) => p.map_or_else(|| name_of(HsicTestParams::default().precision), str::to_string),
    };
    let params = HsicTestParams {
        bandwidth_x: option(&req.sigma_x)?,
        bandwidth_y: option(&req.sigma_y)?,
        permutations: req.permutations,
        seed: req.seed,
        precision: option(&precision)?,
    };
    if req.permutations == 0 {
        return Err(Error::msg(
            "the permutation test needs at least 1 shuffle (1000 is the default)",
        ));
    }
    let (x, y, warnings) = two_inputs(ws, req.x.as_ref(), req.y.as_ref(), false, "An RBF kernel")?;
    let (n, m) = (x.matrix().rows(), y.matrix().rows());
    if n != m {
        return Err(Error::at(
            "y",
            format!(
                "`{}` has {n} rows but `{}` has {m}: HSIC pairs row i of x with row i of y, so both need the same \
                 rows (e.g. activations of the same examples)",
                x.spec(),
                y.spec()
            ),
        ));
    }
    if n < 2 {
        return Err(Error::at(
            "x",
            format!("`{}` has {n} row: HSIC needs at least 2 paired rows", x.spec()),
        ));
    }
    let parameters = HsicParameters {
        x: x.spec().to_string(),
        y: y.spec().to_string(),
        sigma_x: req.sigma_x.clone(),
        sigma_y: req.sigma_y.clone(),
        permutations: req.permutations,
        seed: req.seed,
        precision,
        backend: gpu.then(|| req.backend.clone()),
    };
    Ok(HsicJob {
        x,
        y,
        params,
        parameters,
        warnings,
    })
}

impl HsicJob {
    /// Runs the test on `backend` (the CPU, or a GPU the front end built), reporting to `monitor`, which may stop
    /// it: the report then holds the shuffles done, and its call follows the interval the p-value must lie in.
    ///
    /// # Errors
    /// The core's errors; backend failures are marked so (the same request can run on the CPU).
    pub async fn run_on<B: Backend, M: Monitor>(self, backend: &mut B, monitor: &mut M) -> Result<HsicReport> {
        let r = hsic::hsic_test_with(
            backend,
            monitor,
            self.x.matrix().view(),
            self.y.matrix().view(),
            &self.params,
        )
        .await
        .map_err(|e| core_error(e, &[&self.x, &self.y]))?;
        Ok(self.report(r))
    }

    /// Runs the test on the CPU with the shuffles scored on `threads` threads (the result is the same for every
    /// count), reporting to `monitor`. Native only.
    ///
    /// # Errors
    /// The core's errors.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run_threaded(self, threads: usize, monitor: &mut lethe::parallel::ProgressFn<'_>) -> Result<HsicReport> {
        let r = hsic::hsic_test_threaded(
            threads,
            monitor,
            self.x.matrix().view(),
            self.y.matrix().view(),
            &self.params,
        )
        .map_err(|e| core_error(e, &[&self.x, &self.y]))?;
        Ok(self.report(r))
    }

    fn report(self, r: HsicTestResult) -> HsicReport {
        let headline = self.headline(&r);
        let inputs = vec![self.x.input.record.clone(), self.y.input.record.clone()];
        Report::new(
            "hsic",
            self.parameters,
            Some(self.params.seed),
            inputs,
            headline,
            self.warnings,
            r,
        )
    }

    fn headline(&self, r: &HsicTestResult) -> Headline {
        let (sx, sy) = (short(&self.x), short(&self.y));
        let constant = [&self.x, &self.y].into_iter().find(|l| {
            let m = l.matrix();
            (1..m.rows()).all(|i| m.row(i) == m.row(0))
        });
        let b = self.params.permutations;
        let p_min = 1.0 / (b as f64 + 1.0);
        let (lo, hi) = r.p_value_bounds;
        if let Some(l) = constant {
            return Headline::inconclusive(
                "Inconclusive: a constant input has no dependence to measure",
                format!("every row of `{}` is the same", l.spec()),
            );
        }
        if p_min >= LEVEL {
            return Headline::inconclusive(
                "Inconclusive: too few shuffles for the test to show dependence",
                format!(
                    "with {b} shuffles the smallest p-value is 1/({b} + 1) = {}, not below {LEVEL}; use at least \
                     19 shuffles (the default is {})",
                    num(p_min),
                    HsicTestParams::default().permutations
                ),
            );
        }
        let dependent = || {
            Headline::new(
                "dependent",
                format!(
                    "{sx} and {sy} are dependent: HSIC = {} is reached by {} of {} shuffles (p = {}, below \
                     {LEVEL})",
                    num(r.statistic),
                    r.exceedances,
                    r.permutations_done,
                    num(r.p_value)
                ),
            )
        };
        let none = || {
            Headline::new(
                "no_evidence",
                format!(
                    "No evidence of dependence between {sx} and {sy} (p = {}, not below {LEVEL}); this does not \
                     show that they are independent",
                    num(r.p_value)
                ),
            )
        };
        if r.complete {
            return if r.p_value < LEVEL { dependent() } else { none() };
        }
        if hi < LEVEL {
            dependent()
        } else if lo >= LEVEL {
            none()
        } else {
            Headline::inconclusive(
                "Inconclusive: the test was stopped before it could decide",
                format!(
                    "after {} of {} shuffles the p-value lies between {} and {}",
                    r.permutations_done,
                    r.permutations_planned,
                    num(lo),
                    num(hi)
                ),
            )
        }
    }

    /// Whether the request asked for a GPU (the front end builds it and calls [`HsicJob::run_on`]).
    pub fn gpu(&self) -> bool {
        self.parameters.backend.is_some()
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Inspect.

/// Whether an array's only problem is that it is 0-d (a scalar of a dtype Lethe reads).
fn is_scalar_only(a: &lethe::data::ArrayInfo) -> bool {
    a.problem
        .as_deref()
        .is_some_and(|p| p.starts_with("a 0-d (scalar) array"))
}

/// A file's format, arrays, dtypes and shapes, from its headers (text formats are parsed whole).
///
/// # Errors
/// No file, an unknown format, corrupt or truncated headers; the message names the file.
pub fn run_inspect(ws: &mut Workspace, req: &InspectRequest) -> Result<InspectReport> {
    let id = req
        .source
        .ok_or_else(|| Error::at("file", "choose a file to inspect").usage())?;
    let src = ws.source(id).map_err(|e| Error::at("file", e.message))?;
    let name = src.name.clone();
    // A file one of the tools users run wrote (issue 14) is summarised by that tool's reader even where the plain
    // reader finds no array in it (MUSE's privleak log: objects of numbers), and the plain reader's notes on keys it
    // ignored are dropped: the tool's reader says what every key is.
    #[cfg(feature = "full")]
    let claimed = super::tools::tool_file(ws, id).filter(|t| t.summary.is_some());
    #[cfg(not(feature = "full"))]
    let claimed: Option<()> = None;
    let info = match lethe::data::inspect(&name, &*src.data) {
        Ok(mut info) => {
            if claimed.is_some() {
                info.warnings.retain(|w| w.kind != NoteKind::IgnoredKeys);
            }
            info
        }
        Err(_) if claimed.is_some() => FileInfo {
            input: name.clone(),
            format: lethe::data::detect(&name, &*src.data).map_err(|e| Error::data("file", "", &e))?,
            file_size: src.data.len(),
            arrays: Vec::new(),
            warnings: Vec::new(),
        },
        Err(e) => return Err(Error::data("file", "", &e)),
    };
    let warnings: Vec<Warning> = info
        .warnings
        .iter()
        .map(|w| file_warning(Some("file"), w))
        // A 0-d array is a scalar (ML Privacy Meter's `auc`, `one_tenth_fpr`, `zero_fpr`): shown with its shape `()`
        // and no warning, though it is no data matrix to load; an unsupported dtype is warned of whatever the shape.
        .chain(
            info.arrays
                .iter()
                .filter(|a| !(a.shape.is_empty() && is_scalar_only(a)))
                .filter_map(|a| {
                    a.problem.as_ref().map(|p| {
                        Warning::new(
                            "unreadable_array",
                            Some("file"),
                            format!(
                                "`{name}`: array {} cannot be read: {p}",
                                a.name
                                    .as_deref()
                                    .map_or_else(|| "(unnamed)".to_string(), |n| format!("`{n}`"))
                            ),
                            None,
                        )
                    })
                }),
        )
        .collect();
    let readable = info.arrays.iter().filter(|a| a.problem.is_none()).count();
    let format = name_of(info.format);
    let headline = match (info.arrays.as_slice(), readable) {
        ([], _) => Headline::inconclusive(
            format!("`{name}` holds no arrays"),
            "the file was read, but there is nothing in it to analyse",
        ),
        ([a], 1) => Headline::new(
            "readable",
            format!(
                "`{name}` ({format}) holds one {} array of shape {:?} ({} × {} as rows × columns)",
                a.dtype, a.shape, a.rows, a.cols
            ),
        ),
        (all, n) if n == all.len() => Headline::new(
            "readable",
            format!(
                "`{name}` ({format}) holds {n} arrays; pick one as PATH#NAME (e.g. `{name}#{}`)",
                all[0].name.as_deref().unwrap_or("NAME")
            ),
        ),
        (all, n) => Headline::new(
            "partly_readable",
            format!(
                "`{name}` ({format}) holds {} arrays, of which {n} can be read (see the warnings)",
                all.len()
            ),
        ),
    };
    #[cfg(feature = "full")]
    let (tool, headline, warnings) = {
        let tool = claimed.or_else(|| super::tools::tool_file(ws, id));
        let (mut headline, mut warnings) = (headline, warnings);
        if let Some(s) = tool.as_ref().and_then(|t| t.summary.as_ref()) {
            let offers: Vec<&str> = s.offers.iter().map(|o| o.label.as_str()).collect();
            headline = Headline::new(
                "tool_file",
                format!(
                    "`{name}` is {}{}",
                    s.description,
                    if offers.is_empty() {
                        String::new()
                    } else {
                        format!("; it offers: {}", offers.join("; "))
                    }
                ),
            );
        }
        if let Some(p) = tool.as_ref().and_then(|t| t.problem.as_ref()) {
            warnings.push(Warning::new("tool_file_almost", Some("file"), p.message.clone(), None));
        }
        (tool, headline, warnings)
    };
    let parameters = InspectParameters { file: name };
    Ok(Report::new(
        "inspect",
        parameters,
        None,
        Vec::new(),
        headline,
        warnings,
        InspectResult {
            info,
            #[cfg(feature = "full")]
            tool,
        },
    ))
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entries

registered! {
/// `lethe hsic` in the registry ([`crate::registry`]).
pub struct Hsic;

impl crate::registry::Analysis for Hsic {
    const NAME: &'static str = "hsic";
    type Request = HsicRequest;
    const ROLES: Roles = Roles::inputs(&["x", "y"]);
    fn run(ws: &mut Workspace, req: &HsicRequest, ctl: &mut Control<'_>) -> Result<serde_json::Value> {
        if !matches!(req.backend.as_str(), "" | "cpu") {
            return Err(Error::msg("this runs HSIC on the CPU; use the CLI's --backend gpu for the GPU").usage());
        }
        let job = prepare_hsic(ws, req)?;
        let monitor = &mut *ctl.monitor;
        report(&job.run_threaded(ctl.threads.max(1), &mut |p| monitor(p))?)
    }
}

/// `lethe mwu` in the registry ([`crate::registry`]).
pub struct Mwu;

impl crate::registry::Analysis for Mwu {
    const NAME: &'static str = "mwu";
    type Request = MwuRequest;
    const ROLES: Roles = Roles::inputs(&["x", "y"]);
    fn run(ws: &mut Workspace, req: &MwuRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_mwu(ws, req)?)
    }
}

/// `lethe wilcoxon` in the registry ([`crate::registry`]).
pub struct Wilcoxon;

impl crate::registry::Analysis for Wilcoxon {
    const NAME: &'static str = "wilcoxon";
    type Request = WilcoxonRequest;
    const ROLES: Roles = Roles::inputs(&["x", "y"]);
    fn run(ws: &mut Workspace, req: &WilcoxonRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_wilcoxon(ws, req)?)
    }
}

/// `lethe jsd` in the registry ([`crate::registry`]).
pub struct Jsd;

impl crate::registry::Analysis for Jsd {
    const NAME: &'static str = "jsd";
    type Request = JsdRequest;
    const ROLES: Roles = Roles::inputs(&["x", "y"]);
    fn run(ws: &mut Workspace, req: &JsdRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_jsd(ws, req)?)
    }
}

/// `lethe mmd` in the registry ([`crate::registry`]).
pub struct Mmd;

impl crate::registry::Analysis for Mmd {
    const NAME: &'static str = "mmd";
    type Request = MmdRequest;
    const ROLES: Roles = Roles::inputs(&["x", "y"]);
    fn run(ws: &mut Workspace, req: &MmdRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_mmd(ws, req)?)
    }
}

/// `lethe wasserstein` in the registry ([`crate::registry`]).
pub struct Wasserstein;

impl crate::registry::Analysis for Wasserstein {
    const NAME: &'static str = "wasserstein";
    type Request = WassersteinRequest;
    const ROLES: Roles = Roles::inputs(&["x", "y"]);
    fn run(ws: &mut Workspace, req: &WassersteinRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_wasserstein(ws, req)?)
    }
}

/// `lethe inspect` in the registry ([`crate::registry`]).
pub struct Inspect;

impl crate::registry::Analysis for Inspect {
    const NAME: &'static str = "inspect";
    type Request = InspectRequest;
    const ROLES: Roles = Roles::texts(&["file"]);
    /// Its request's `source`, written by the resolve step from the `file` a front end gives.
    const RESOLVED_KEYS: &'static [&'static str] = &["source"];
    fn options() -> &'static [&'static str] {
        &["file"]
    }
    fn run(ws: &mut Workspace, req: &InspectRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_inspect(ws, req)?)
    }
}

}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::tests::ws_with;

    /// Found trying `lethe inspect attack_result_0.npz` (bench/trial_compare): ML Privacy Meter saves `auc`,
    /// `one_tenth_fpr` and `zero_fpr` as 0-d arrays, and each drew `unreadable_array` ("save a 1-d or 2-d array").
    /// A scalar is shown with its shape and no warning.
    #[test]
    fn a_scalar_array_is_inspected_without_a_warning() {
        let npz = crate::workspace::tests::stored_npz("auc.npy", &crate::npy::f64_bytes(&[0.62], &[]));
        let mut ws = ws_with(&[(1, "attack_result_0.npz", &npz)]);
        let r = run_inspect(&mut ws, &InspectRequest { source: Some(1) }).expect("inspect");
        assert!(
            r.warnings.iter().all(|w| w.code != "unreadable_array"),
            "{:?}",
            r.warnings
        );
        let a = &r.result.arrays[0];
        assert!(a.shape.is_empty() && a.dtype == "float64", "{a:?}");
    }

    fn input(source: u32, rows: &str) -> Option<InputRef> {
        Some(InputRef {
            source,
            tensor: None,
            rows: Rows::Text { text: rows.into() },
        })
    }

    #[test]
    fn requests_default_to_the_cores_parameters_and_read_json() {
        let r: MwuRequest = serde_json::from_str("{}").unwrap();
        assert_eq!((r.alternative.as_str(), r.method.as_str()), ("two-sided", "auto"));
        let r: WilcoxonRequest = serde_json::from_str(r#"{"zero_method": "pratt"}"#).unwrap();
        assert_eq!((r.zero_method.as_str(), r.alternative.as_str()), ("pratt", "two-sided"));
        let r: HsicRequest = serde_json::from_str(r#"{"x": {"source": 1}, "permutations": 99}"#).unwrap();
        assert_eq!((r.sigma_x.as_str(), r.permutations, r.seed), ("sqrt_dim", 99, 0));
        assert_eq!(r.x.map(|x| x.rows), Some(Rows::All));
        let r: JsdRequest = serde_json::from_str("{}").unwrap();
        assert_eq!((r.bins, r.base.as_str()), (divergence::DEFAULT_JSD_BINS, "e"));
        let r: MmdRequest = serde_json::from_str("{}").unwrap();
        assert_eq!((r.sigma.as_str(), r.unbiased), ("sqrt_dim", false));
    }

    /// The job runs on any backend (the CLI hands it the GPU's) and gives the threaded CPU run's report.
    #[test]
    fn hsic_on_a_backend_equals_the_threaded_run() {
        let x: Vec<f64> = (0..40).map(|v| (f64::from(v) * 0.3).sin()).collect();
        let y: Vec<f64> = (0..40)
            .map(|v| (f64::from(v) * 0.3).cos() + f64::from(v) * 0.01)
            .collect();
        let mut ws = ws_with(&[
            (1, "x.npy", &crate::npy::f64_bytes(&x, &[20, 2])),
            (2, "y.npy", &crate::npy::f64_bytes(&y, &[20, 2])),
        ]);
        let req = HsicRequest {
            x: input(1, ""),
            y: input(2, ""),
            permutations: 99,
            ..HsicRequest::default()
        };
        let job = prepare_hsic(&mut ws, &req).unwrap();
        let mut backend = lethe::backend::CpuBackend::new(lethe::backend::Precision::F64);
        let mut silent = lethe::progress::Silent;
        let mut fut = std::pin::pin!(job.run_on(&mut backend, &mut silent));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let std::task::Poll::Ready(on) = fut.as_mut().poll(&mut cx) else {
            panic!("the CPU backend never waits")
        };
        let on = on.unwrap();
        let threaded = prepare_hsic(&mut ws, &req)
            .unwrap()
            .run_threaded(2, &mut |_| true)
            .unwrap();
        assert_eq!(on.result.null, threaded.result.null);
        assert_eq!(on.result.statistic, threaded.result.statistic);
        assert_eq!(on.headline, threaded.headline);
        assert_eq!(on.parameters.backend, None, "a CPU run records no backend");
    }

    #[test]
    fn numbers_for_headlines() {
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(0.054321), "0.05432");
        assert_eq!(num(12.3456), "12.35");
        assert_eq!(num(0.0001234), "1.234e-4");
        assert_eq!(num(0.0), "0");
    }

    #[test]
    fn rank_tests_order_inf_with_a_warning_in_file_rows_and_refuse_nan() {
        let mut ws = ws_with(&[
            (1, "x.csv", b"9\n1\n2\ninf\n4\n5\n"),
            (2, "y.csv", b"3\n4\n5\n6\n7\n8\n"),
            (3, "n.csv", b"1\n2\n3\nnan\n"),
        ]);
        let req = MwuRequest {
            x: input(1, "1..6"),
            y: input(2, ""),
            ..MwuRequest::default()
        };
        let r = run_mwu(&mut ws, &req).unwrap();
        let w = r.warnings.iter().find(|w| w.code == "infinite_values").unwrap();
        assert!(
            w.message.contains("row 3 of the file, counting from 0") && w.message.contains("x.csv"),
            "the row's numbering is named: {w:?}"
        );
        assert_eq!(r.parameters.samples.x, "x.csv@1..6");
        let req = MwuRequest {
            x: input(3, ""),
            y: input(2, ""),
            ..MwuRequest::default()
        };
        let e = run_mwu(&mut ws, &req).unwrap_err();
        assert_eq!(e.code.as_deref(), Some("non_finite"));
        assert!(
            e.message.contains("n.csv") && e.message.contains("row 3"),
            "{}",
            e.message
        );
    }

    #[test]
    fn kernels_refuse_inf_naming_file_row_and_column() {
        let mut ws = ws_with(&[(1, "a.csv", b"1,2\n3,4\n5,1e400\n"), (2, "b.csv", b"1,2\n3,4\n5,6\n")]);
        let req = MmdRequest {
            x: input(1, "1..3"),
            y: input(2, ""),
            ..MmdRequest::default()
        };
        let e = run_mmd(&mut ws, &req).unwrap_err();
        assert_eq!(e.input.as_deref(), Some("x"));
        assert!(
            e.message.contains("a.csv") && e.message.contains("row 2, column 1") && e.message.contains("1e400"),
            "{}",
            e.message
        );
    }

    #[test]
    fn wilcoxon_with_all_zero_differences_is_inconclusive() {
        let mut ws = ws_with(&[(1, "a.csv", b"1\n2\n3\n4\n"), (2, "b.csv", b"1\n2\n3\n4\n")]);
        let req = WilcoxonRequest {
            x: input(1, ""),
            y: input(2, ""),
            ..WilcoxonRequest::default()
        };
        let r = run_wilcoxon(&mut ws, &req).unwrap();
        assert!(r.headline.is_inconclusive());
        assert!(r.headline.reason.as_deref().unwrap().contains("all 4 differences"));
        // The number is scipy's (4 pairs: the permutation null, p = 1); the strict rule gives NaN.
        assert_eq!(r.result.test.p_value, 1.0);
        let strict = WilcoxonRequest {
            all_zero: "nan".into(),
            ..req
        };
        let r = run_wilcoxon(&mut ws, &strict).unwrap();
        assert!(r.headline.is_inconclusive() && r.result.test.p_value.is_nan());
    }

    #[test]
    fn small_samples_are_inconclusive_and_clear_shifts_differ() {
        let mut ws = ws_with(&[
            (1, "a.csv", b"1\n2\n3\n"),
            (2, "b.csv", b"4\n5\n6\n"),
            (3, "c.csv", b"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"),
            (4, "d.csv", b"11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n"),
        ]);
        let small = MwuRequest {
            x: input(1, ""),
            y: input(2, ""),
            ..MwuRequest::default()
        };
        let r = run_mwu(&mut ws, &small).unwrap();
        assert!(r.headline.is_inconclusive(), "{:?}", r.headline);
        let big = MwuRequest {
            x: input(3, ""),
            y: input(4, ""),
            ..MwuRequest::default()
        };
        let r = run_mwu(&mut ws, &big).unwrap();
        assert_eq!(r.headline.call, "differ");
        assert!(r.headline.text.contains("smaller"), "{}", r.headline.text);
    }

    #[test]
    fn trailing_bytes_are_a_warning_of_the_report() {
        let mut npy = crate::npy::f64_bytes(&[1.0, 2.0, 3.0, 4.0], &[4]);
        npy.extend_from_slice(b"junk");
        let mut ws = ws_with(&[(1, "g.npy", &npy), (2, "b.csv", b"5\n6\n7\n8\n")]);
        let req = WassersteinRequest {
            x: input(1, ""),
            y: input(2, ""),
        };
        let r = run_wasserstein(&mut ws, &req).unwrap();
        let w = &r.warnings[0];
        assert_eq!((w.code.as_str(), w.input.as_deref()), ("trailing_bytes", Some("x")));
        assert_eq!(r.headline.call, "distance");
    }
}
