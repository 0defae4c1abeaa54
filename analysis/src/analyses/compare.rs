//! `lethe compare` (issue 23): methods × seeds from a runs table, with honest intervals, a verdict per comparison
//! and a reproduction check against published values. Every number comes from [`lethe::compare`] and the core's
//! rank tests; this module decides the directions, the family, the calls and the warnings.
//!
//! * Every metric has a direction: higher or lower is better, or closest to a reference (a method's mean on the
//!   same task, such as the retrained oracle, or a value). Known metrics have theirs built in ([`KNOWN_METRICS`],
//!   each with its reason); another metric without one is refused with the fix.
//! * Per method × metric (× task): n, mean, sd, median, IQM, Student's t interval and the stratified bootstrap
//!   interval (resampled within tasks, as rliable). Per ordered pair of methods: the probability of improvement
//!   (the forest plot and the PoI matrix are drawn from these), with its bootstrap interval for every pair while
//!   at most [`POI_INTERVALS_ALL_PAIRS_MAX`] methods are compared, else for the pairs with the baseline only.
//! * Per comparison (a metric, a task, two methods: each against the baseline, or every pair): the exact
//!   permutation test of the difference of means decides (exact while the splits are few; Welch's t past
//!   [`lethe::compare::EXACT_SPLITS`]), Welch's t and Mann–Whitney beside it, Wilcoxon's signed-rank test when the
//!   runs pair up by seed; the family corrected by Holm (or another of `lethe fdr`'s methods); Hedges' g; the
//!   minimum detectable difference (two-sided two-sample t, power 0.8, at the level) times the pooled sd.
//! * Calls: "A is better than B on M" when the adjusted p is below the level; "no difference the data could show"
//!   with the difference they could have shown; "inconclusive" when a method has fewer than 3 seeds or the test
//!   cannot reach the level at these sizes.
//! * Across ≥ 3 methods on ≥ 2 tasks that all have every method: Friedman's test, mean ranks, Nemenyi's CD.

use lethe::compare::{self as core, Bootstrap, Friedman, PermutationTest, TTest, Tost};
use lethe::mann_whitney;
use lethe::multiple_testing::Correction;
use lethe::roc::Interval;
use lethe::wilcoxon::{self, WilcoxonParams};
use lethe::{Alternative, PValueMethod};

use super::compare_runs::{RunsTable, read_runs};
use super::*;
use crate::report::{Headline, Report, Warning, num};

/// The level of every call and interval: 5% (95% intervals).
pub const COMPARE_LEVEL: f64 = 0.05;

/// Power at which the minimum detectable difference is stated.
pub const POWER: f64 = 0.8;

/// Up to this many compared methods every ordered pair's probability of improvement gets its bootstrap interval;
/// with more, only the pairs with the baseline do (none without one). The point estimate is always given. Each
/// interval is a bootstrap of its own (10,000 resamples by default): 50 methods have 2,450 ordered pairs a metric.
pub const POI_INTERVALS_ALL_PAIRS_MAX: usize = 8;

/// Metrics whose direction is built in: names (lowercased, `-` and spaces as `_`), the direction, and why.
pub const KNOWN_METRICS: &[(&[&str], &str, &str)] = &[
    (
        &["forget_quality", "forget_quality_p", "fq"],
        "higher",
        "TOFU's forget quality is the KS test's p-value of the truth ratios against the retained model's: higher \
         means the forget set looks more like it was never trained on",
    ),
    (
        &["privleak", "priv_leak", "privleak_score"],
        "closest=0",
        "MUSE's PrivLeak is the relative gap of the MIA AUC to the retrained model's: 0 is the retrained model's \
         privacy, and either sign is a leak (under- or over-unlearning)",
    ),
    (
        &[
            "mia_auc",
            "auc",
            "mia_min_k",
            "mia_loss",
            "mia_zlib",
            "mia_gradnorm",
            "mia_min_k_plus_plus",
        ],
        "closest=0.5",
        "a membership attack's AUC on forget against held-out data is 0.5 when it cannot tell them apart, as for a \
         model that never saw the forget set; far from 0.5 on either side, it can",
    ),
    (
        &["model_utility", "utility", "mu"],
        "higher",
        "model utility (TOFU's harmonic mean of retain, real-author and world-facts scores) is what unlearning \
         should keep",
    ),
    (
        &["test_accuracy", "test_acc"],
        "higher",
        "accuracy on held-out test rows is the model's utility, which unlearning should keep",
    ),
    (
        &["m1", "ruler_m1", "oracle_similarity"],
        "higher",
        "RULER m1: mean cosine similarity of the forget records to the oracle's embeddings; higher is closer to \
         the retrained oracle",
    ),
    (
        &["m2", "ruler_m2", "calibration_gap"],
        "closest=0",
        "RULER m2: forget similarity minus the retain records' median; 0 when the forget records look like \
         retained ones",
    ),
    (
        &["m3", "ruler_m3", "representation_shift"],
        "higher",
        "RULER m3: shift of the forget records towards the oracle from the original model; higher moved further \
         towards retraining",
    ),
    (
        &["m4", "ruler_m4", "nn_percentile_rank"],
        "closest=0.5",
        "RULER m4: nearest-retain-neighbour percentile rank; 0.5 when the forget records rank like retained ones",
    ),
];

/// `lethe compare`'s options. With the `clap` feature (the CLI's), the options are the subcommand's arguments: each
/// is declared here once (the runs table and the methods' files are the CLI's own arguments).
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct CompareRequest {
    /// The runs table (CSV, TSV or JSON).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub runs: Option<TextInput>,
    /// Or result files grouped by method, one run a file (a `lethe merge` table: a run a row): open-unlearning's
    /// TOFU/MUSE EVAL and SUMMARY files, a JSON object of metrics (MUSE's auc.json), ML Privacy Meter's attack
    /// results (attack_result_0.npz: its scores audited as `lethe mia` audits them), Lethe's own JSON reports and
    /// `lethe merge` tables; the seed is the number after `seed` in a file's path (see `compare_files`).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub methods: Vec<MethodFiles>,
    /// Compare every method against this one (default: every pair)
    #[cfg_attr(feature = "clap", arg(long))]
    pub baseline: Option<String>,
    /// A metric's direction, NAME:higher, NAME:lower, NAME:closest=METHOD or NAME:closest=NUMBER (a bare NAME
    /// keeps its built-in direction); repeat for several; when given, only these metrics are compared
    #[cfg_attr(feature = "clap", arg(long = "metric"))]
    pub metrics: Vec<String>,
    /// A published value to check: METHOD:METRIC=VALUE[±SD][/N] or METHOD:METRIC=LOW..HIGH; repeat for several
    // `±SD` may be written `+-SD`.
    #[cfg_attr(feature = "clap", arg(long))]
    pub published: Vec<String>,
    /// The equivalence margin of the reproduction check, in the metric's units (default: 10% of the published value)
    #[cfg_attr(feature = "clap", arg(long))]
    pub margin: Option<f64>,
    /// The family's correction: holm (default) or any of lethe fdr's methods
    #[cfg_attr(feature = "clap", arg(long, default_value_t = CompareRequest::default().correction))]
    pub correction: String,
    /// Bootstrap resamples of every interval
    #[cfg_attr(feature = "clap", arg(long, default_value_t = CompareRequest::default().resamples))]
    pub resamples: usize,
    /// Seed of the bootstrap's resamples
    #[cfg_attr(feature = "clap", arg(long, default_value_t = CompareRequest::default().seed))]
    pub seed: u64,
}

impl Default for CompareRequest {
    fn default() -> Self {
        let b = Bootstrap::default();
        Self {
            runs: None,
            methods: Vec::new(),
            metrics: Vec::new(),
            baseline: None,
            published: Vec::new(),
            margin: None,
            correction: "holm".into(),
            resamples: b.resamples,
            seed: b.seed,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareParameters {
    /// The runs table, when the runs come from one.
    pub runs: Option<String>,
    /// The result files by method, `METHOD=FILE,FILE,…`, when the runs come from them.
    pub methods: Vec<String>,
    pub metrics: Vec<String>,
    pub baseline: Option<String>,
    pub published: Vec<String>,
    pub margin: Option<f64>,
    pub correction: String,
    pub level: f64,
    pub resamples: usize,
    pub seed: u64,
}

/// Which way a metric is better.
#[derive(Clone, Debug, PartialEq)]
pub enum Direction {
    Higher,
    Lower,
    /// Closest to another method's mean on the same task.
    ClosestTo(String),
    /// Closest to a value.
    ClosestValue(f64),
}

impl Direction {
    fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        match s.to_ascii_lowercase().as_str() {
            "higher" | "max" => return Some(Self::Higher),
            "lower" | "min" => return Some(Self::Lower),
            _ => {}
        }
        let r = s
            .strip_prefix("closest=")
            .or_else(|| s.strip_prefix("closest:"))?
            .trim();
        if r.is_empty() {
            return None;
        }
        Some(match r.parse::<f64>() {
            Ok(v) if v.is_finite() => Self::ClosestValue(v),
            _ => Self::ClosestTo(r.to_string()),
        })
    }

    fn name(&self) -> String {
        match self {
            Self::Higher => "higher".into(),
            Self::Lower => "lower".into(),
            Self::ClosestTo(m) => format!("closest to {m}"),
            Self::ClosestValue(v) => format!("closest to {}", num(*v)),
        }
    }
}

fn normalize(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace(['-', ' ', '.'], "_")
}

/// The built-in direction of a metric and its reason.
///
/// A dotted name (a Lethe report's `summary.auc`, a `lethe merge` table's column without `result.`) falls back to its
/// last part when the whole name is not known.
pub fn known_direction(name: &str) -> Option<(Direction, &'static str)> {
    let find = |n: &str| {
        let n = normalize(n);
        KNOWN_METRICS
            .iter()
            .find(|(names, _, _)| names.contains(&n.as_str()))
            .and_then(|(_, d, why)| Direction::parse(d).map(|d| (d, *why)))
    };
    find(name).or_else(|| name.rsplit_once('.').and_then(|(_, last)| find(last)))
}

/// The range of a known metric bounded to [0, 1]: forget quality (a p-value), an MIA AUC, model utility, test
/// accuracy, RULER's m4 (a percentile rank). By the same names and normalisation as [`known_direction`].
pub fn known_range(name: &str) -> Option<(f64, f64)> {
    const BOUNDED: [&str; 5] = ["forget_quality", "mia_auc", "model_utility", "test_accuracy", "m4"];
    let group = |n: &str| {
        let n = normalize(n);
        KNOWN_METRICS
            .iter()
            .find(|(names, _, _)| names.contains(&n.as_str()))
            .map(|(names, _, _)| names[0])
    };
    group(name)
        .or_else(|| name.rsplit_once('.').and_then(|(_, last)| group(last)))
        .filter(|g| BOUNDED.contains(g))
        .map(|_| (0.0, 1.0))
}

/// Whether a metric is forget quality (a p-value), by its known names.
fn is_p_value_metric(name: &str) -> bool {
    let n = normalize(name);
    let last = normalize(name.rsplit_once('.').map_or(name, |(_, l)| l));
    KNOWN_METRICS[0].0.contains(&n.as_str()) || KNOWN_METRICS[0].0.contains(&last.as_str())
}

/// One method's numbers on one metric (and task; `task: None` pools every task, stratified by task).
#[derive(Clone, Debug, Serialize)]
pub struct MethodSummary {
    pub method: String,
    pub task: Option<String>,
    pub n: usize,
    pub mean: f64,
    pub sd: Option<f64>,
    pub median: f64,
    pub iqm: f64,
    /// Student's t interval of the mean (95%); none with one run.
    pub t_interval: Option<Interval>,
    /// The stratified bootstrap percentile interval of the mean (95%); none with one run.
    pub bootstrap_interval: Option<Interval>,
    /// For a `closest` metric: the mean distance to the reference (what is compared).
    pub mean_distance: Option<f64>,
    /// A method with one run whose file carries per-example values (open-unlearning's `value_by_index`): their
    /// mean and Student's t interval over the examples. It stands in for no interval over seeds: it shows how the
    /// score moves with the examples drawn, not with the seed (warning `examples_not_seeds`), and no comparison
    /// uses it.
    pub over_examples: Option<OverExamples>,
}

/// The per-example values of a method's single run.
#[derive(Clone, Debug, Serialize)]
pub struct OverExamples {
    /// How many examples.
    pub n: usize,
    pub mean: f64,
    pub sd: Option<f64>,
    /// Student's t interval of the mean over the examples (95%).
    pub t_interval: Option<Interval>,
}

/// P(a > b) on a metric, "better" in the metric's direction, over every task (rliable's), with its interval.
#[derive(Clone, Debug, Serialize)]
pub struct PoiCell {
    pub a: String,
    pub b: String,
    pub probability: f64,
    /// The bootstrap interval: for every pair up to [`POI_INTERVALS_ALL_PAIRS_MAX`] compared methods, else only
    /// for the pairs with the baseline. One bootstrap per pair: the cell (b, a) is (1 − hi, 1 − lo) of (a, b).
    pub interval: Option<Interval>,
}

/// Per metric: the direction, every method's summary, the PoI matrix, Friedman across tasks.
#[derive(Clone, Debug, Serialize)]
pub struct MetricResult {
    pub metric: String,
    pub direction: String,
    /// Why this direction: the built-in reason, or "as requested".
    pub reason: String,
    pub summaries: Vec<MethodSummary>,
    pub probability_of_improvement: Vec<PoiCell>,
    pub friedman: Option<Friedman>,
}

/// A rank test as reported (p-values only where they are numbers).
#[derive(Clone, Debug, Serialize)]
pub struct RankTest {
    pub statistic: f64,
    pub p_value: Option<f64>,
}

/// One comparison: metric, task, `a` against `b`, "better" in the metric's direction.
#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub metric: String,
    pub task: Option<String>,
    pub a: String,
    pub b: String,
    pub n_a: usize,
    pub n_b: usize,
    /// mean(a) − mean(b) of the compared scores (distances for a `closest` metric, with the sign turned so that a
    /// positive difference is in a's favour).
    pub difference: f64,
    /// Which test's p-value decides: `permutation (exact)`, `welch`.
    pub test: Option<String>,
    pub p_value: Option<f64>,
    pub p_adjusted: Option<f64>,
    pub permutation: Option<PermutationTest>,
    pub welch: Option<TTest>,
    pub mann_whitney: Option<RankTest>,
    /// Wilcoxon's signed-rank test of the runs paired by seed, when every seed of one is a seed of the other.
    pub wilcoxon_by_seed: Option<RankTest>,
    pub hedges_g: Option<f64>,
    pub probability_of_improvement: f64,
    /// Its bootstrap interval: against a baseline, or between all pairs of at most
    /// [`POI_INTERVALS_ALL_PAIRS_MAX`] compared methods; none otherwise. The PoI matrix cell's where that cell was
    /// drawn from the same runs (one task in common).
    pub poi_interval: Option<Interval>,
    /// The smallest difference of means the test would find 80% of the time at this n and spread, at
    /// [`Comparison::detectable_at`]: the level a test alone in its corrected family must reach.
    pub min_detectable_difference: Option<f64>,
    /// The per-test level the minimum detectable difference is stated at: the largest p-value that the family's
    /// correction still calls significant when every other test of the family has p = 1 (Holm and BH over m tests:
    /// level/m). A difference the corrected family could not have shown is never called "no difference".
    pub detectable_at: Option<f64>,
    /// The pooled sd of the two samples (the minimum detectable difference's unit), kept until the family is known.
    #[serde(skip)]
    pooled_sd: Option<f64>,
    /// `better`, `worse`, `no_difference` or `inconclusive`.
    pub call: String,
    pub text: String,
}

/// A published value against the user's runs.
#[derive(Clone, Debug, Serialize)]
pub struct Reproduction {
    pub method: String,
    pub metric: String,
    pub published: f64,
    pub published_sd: Option<f64>,
    pub published_n: Option<f64>,
    pub published_interval: Option<Interval>,
    pub n: usize,
    pub mean: f64,
    pub t_interval: Option<Interval>,
    pub inside_interval: Option<bool>,
    pub margin: f64,
    pub tost: Option<Tost>,
    pub difference_p: Option<f64>,
    /// A single run against the published spread across seeds (published sd, with its n when given): where 95% of
    /// single runs fall, `published ± q · sd · sqrt(1 + 1/n)` (Student's t with n − 1 degrees of freedom; the
    /// normal quantile when n is not given, the sd then taken as known). `difference_p` and `tost` are then this
    /// prediction's two-sided test and equivalence test of the one run (normal tests have `df` null).
    pub prediction_interval: Option<Interval>,
    /// `reproduces`, `differs` or `inconclusive`.
    pub call: String,
    pub text: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct CompareResult {
    pub methods: Vec<String>,
    pub tasks: Vec<String>,
    pub metrics: Vec<MetricResult>,
    pub comparisons: Vec<Comparison>,
    pub reproductions: Vec<Reproduction>,
    pub correction: String,
    pub level: f64,
    pub bootstrap: Bootstrap,
}

pub type CompareReport = Report<CompareParameters, CompareResult>;

fn fin(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

fn pair(v: Option<(f64, f64)>) -> Option<Interval> {
    v.filter(|(a, b)| a.is_finite() && b.is_finite()).map(Interval::from)
}

fn usage(msg: impl Into<String>) -> Error {
    Error::msg(msg).usage()
}

/// The runs table's text and record.
fn read_input(ws: &mut Workspace, t: &TextInput) -> Result<(String, String, InputRecord)> {
    match t {
        TextInput::Text { text } => {
            let sha256 = lethe::digest::sha256_hex(&text.as_bytes().to_vec(), |_, _| ())
                .map_err(|e| Error::at("runs", format!("pasted text: {e}")))?;
            let rec = record(super::PASTED, sha256);
            Ok((super::PASTED.to_string(), text.clone(), rec))
        }
        TextInput::Source { source } => {
            let src = ws.source(*source).map_err(|e| Error::at("runs", e.message))?;
            let name = src.name.clone();
            if src.data.len() > crate::workspace::MAX_BYTES {
                return Err(Error::at("runs", format!("`{name}` is too large for a runs table")));
            }
            let len = usize::try_from(src.data.len()).map_err(|_| Error::at("runs", "the file is too large"))?;
            let mut bytes = vec![0u8; len];
            src.data
                .read_at(0, &mut bytes)
                .map_err(|e| Error::at("runs", format!("`{name}`: {e}")))?;
            let text = String::from_utf8(bytes)
                .map_err(|_| Error::at("runs", format!("`{name}` is not UTF-8 text: save the table as UTF-8")))?;
            let sha256 = ws.sha256(*source, |_, _| ())?;
            Ok((name.clone(), text, record(&name, sha256)))
        }
    }
}

fn record(path: &str, sha256: String) -> InputRecord {
    InputRecord {
        role: "runs".into(),
        spec: path.into(),
        path: path.into(),
        sha256,
        format: "runs table".into(),
        dtype: "text".into(),
        shape: Vec::new(),
        tensor: None,
        rows_used: 0,
        row_file: None,
    }
}

/// A published value as given.
struct Published {
    method: String,
    metric: String,
    value: f64,
    sd: Option<f64>,
    n: Option<f64>,
    interval: Option<(f64, f64)>,
    text: String,
}

fn parse_published(s: &str) -> Result<Published> {
    let bad = || {
        usage(format!(
            "the published value `{s}` is not METHOD:METRIC=VALUE (optionally ±SD and /N, e.g. \
             `npo:forget_quality=0.42±0.05/5`), or METHOD:METRIC=LOW..HIGH for an interval"
        ))
    };
    let (key, val) = s.split_once('=').ok_or_else(bad)?;
    let (method, metric) = key.split_once(':').ok_or_else(bad)?;
    let val = val.trim();
    let f = |x: &str| x.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    let (value, sd, n, interval) = if let Some((lo, hi)) = val.split_once("..") {
        let (lo, hi) = (f(lo).ok_or_else(bad)?, f(hi).ok_or_else(bad)?);
        if lo > hi {
            return Err(bad());
        }
        ((lo + hi) / 2.0, None, None, Some((lo, hi)))
    } else {
        let (rest, n) = match val.split_once('/') {
            Some((r, n)) => (r, Some(f(n).filter(|n| *n >= 1.0).ok_or_else(bad)?)),
            None => (val, None),
        };
        let (v, sd) = match rest.split_once('±').or_else(|| rest.split_once("+-")) {
            Some((v, sd)) => (
                f(v).ok_or_else(bad)?,
                Some(f(sd).filter(|s| *s >= 0.0).ok_or_else(bad)?),
            ),
            None => (f(rest).ok_or_else(bad)?, None),
        };
        (v, sd, n, None)
    };
    Ok(Published {
        method: method.trim().to_string(),
        metric: metric.trim().to_string(),
        value,
        sd,
        n,
        interval,
        text: s.to_string(),
    })
}

/// Runs of one method on one metric, by task (tasks in table order).
type ByTask = Vec<(String, Vec<(String, f64)>)>;

fn runs_of(table: &RunsTable, tasks: &[String], method: &str, metric: usize) -> ByTask {
    tasks
        .iter()
        .map(|t| {
            let v = table
                .runs
                .iter()
                .filter(|r| r.method == method && r.task.as_deref().unwrap_or("") == t)
                .filter_map(|r| r.values[metric].map(|v| (r.seed.clone(), v)))
                .collect();
            (t.clone(), v)
        })
        .collect()
}

fn values(v: &[(String, f64)]) -> Vec<f64> {
    v.iter().map(|(_, x)| *x).collect()
}

fn correction(name: &str) -> Result<Correction> {
    lethe::fdr::parse_method(name).map_err(|_| {
        let names: Vec<&str> = FDR_METHODS.iter().map(|(n, _)| *n).collect();
        usage(format!("the correction `{name}` is not one of {}", names.join(", ")))
    })
}

/// Compares the methods of a runs table.
///
/// # Errors
/// No runs table; an unreadable table or a bad cell (named by file, line and column); duplicate (method, seed,
/// task) runs; a metric without a direction; a reference or baseline method not in the table; a malformed
/// published value; bad options.
#[allow(clippy::too_many_lines)]
pub fn run_compare(ws: &mut Workspace, req: &CompareRequest) -> Result<CompareReport> {
    let alpha = COMPARE_LEVEL;
    let corr = correction(&req.correction)?;
    if req.resamples == 0 {
        return Err(usage("the bootstrap needs at least 1 resample"));
    }
    if let Some(m) = req.margin
        && !(m.is_finite() && m > 0.0)
    {
        return Err(usage(format!(
            "the equivalence margin must be a positive number, not {m}"
        )));
    }
    // The runs: a runs table, or result files grouped by method. `file` names where the runs come from in messages.
    // A folder's files given as sources: the result files picked among them, as a folder read by path.
    let (groups, picked) = super::compare_files::resolve_folders(ws, &req.methods)?;
    let (file, name, table, recs, mut warnings) = match (&req.runs, req.methods.is_empty()) {
        (Some(_), false) => {
            return Err(Error::at(
                "methods",
                "give either a runs table or result files by method, not both: put every run in one of them",
            )
            .usage());
        }
        (Some(input), true) => {
            let (name, text, rec) = read_input(ws, input)?;
            let table = read_runs(&name, &text)?;
            (format!("`{name}`"), Some(name), table, vec![rec], Vec::new())
        }
        (None, false) => {
            let wanted: Vec<String> = req
                .metrics
                .iter()
                .map(|s| s.split_once(':').map_or(s.as_str(), |(n, _)| n).trim().to_string())
                .collect();
            let (table, recs, mut warnings) = super::compare_files::read_methods(ws, &groups, &wanted)?;
            warnings.splice(0..0, picked);
            ("the result files".to_string(), None, table, recs, warnings)
        }
        (None, true) => {
            return Err(Error::at(
                "runs",
                "choose the runs table (one row per run, with method, seed and metrics), or each method's result \
                 files",
            )
            .usage());
        }
    };

    // The role the design warnings concern.
    let role = if req.runs.is_some() { "runs" } else { "methods" };
    // The input a warning about some methods' runs names: the runs table; with result files by method, none (a front
    // end names a role's first file, another method's), the message naming the methods' own files instead.
    let design_input = req.runs.is_some().then_some(role);
    let files_of = |m: &str| -> String {
        if req.runs.is_some() {
            return String::new();
        }
        let mut places: Vec<&str> = Vec::new();
        for r in table.runs.iter().filter(|r| r.method == m) {
            if !places.contains(&r.place.as_str()) {
                places.push(&r.place);
            }
        }
        let more = places.len() > 3;
        places.truncate(3);
        format!(": {}{}", places.join(", "), if more { ", …" } else { "" })
    };
    // Duplicate runs: the same method, seed and task twice.
    {
        let mut seen: std::collections::HashMap<(&str, &str, &str), &str> = std::collections::HashMap::new();
        for r in &table.runs {
            let key = (r.method.as_str(), r.seed.as_str(), r.task.as_deref().unwrap_or(""));
            if let Some(first) = seen.insert(key, &r.place) {
                return Err(Error::refused(
                    "duplicate_run",
                    Some(role),
                    format!(
                        "{file} has method `{}`, seed `{}`{} twice, at {first} and {}: each run would count twice. \
                         Remove the copy, or give the runs their own seeds",
                        r.method,
                        r.seed,
                        r.task.as_ref().map(|t| format!(", task `{t}`")).unwrap_or_default(),
                        r.place
                    ),
                ));
            }
        }
    }

    let mut methods: Vec<String> = Vec::new();
    let mut tasks: Vec<String> = Vec::new();
    for r in &table.runs {
        if !methods.contains(&r.method) {
            methods.push(r.method.clone());
        }
        let t = r.task.clone().unwrap_or_default();
        if !tasks.contains(&t) {
            tasks.push(t);
        }
    }
    if table.runs.is_empty() {
        return Err(Error::refused("empty_table", Some(role), format!("{file}: no runs")));
    }
    let in_table = |m: &str, what: &str| -> Result<()> {
        if methods.iter().any(|x| x == m) {
            Ok(())
        } else {
            Err(usage(format!(
                "the {what} `{m}` is not a method of {file}; its methods are {}",
                methods.join(", ")
            )))
        }
    };
    if let Some(b) = &req.baseline {
        in_table(b, "baseline")?;
    }

    // Metrics and their directions.
    let mut chosen: Vec<(usize, Direction, String)> = Vec::new();
    let specs: Vec<(String, Option<String>)> = req
        .metrics
        .iter()
        .map(|s| match s.split_once(':') {
            Some((n, d)) => (n.trim().to_string(), Some(d.trim().to_string())),
            None => (s.trim().to_string(), None),
        })
        .collect();
    let names: Vec<String> = if specs.is_empty() {
        table.metrics.clone()
    } else {
        specs.iter().map(|(n, _)| n.clone()).collect()
    };
    for name in &names {
        let Some(col) = table.metrics.iter().position(|m| m == name) else {
            return Err(usage(format!(
                "{file} has no metric `{name}`; its metrics are {}",
                table.metrics.join(", ")
            )));
        };
        let given = specs.iter().find(|(n, _)| n == name).and_then(|(_, d)| d.clone());
        let (dir, reason) = match given {
            Some(d) => (
                Direction::parse(&d).ok_or_else(|| {
                    usage(format!(
                        "the direction `{d}` of `{name}` is not higher, lower, closest=METHOD or closest=NUMBER"
                    ))
                })?,
                "as requested".to_string(),
            ),
            None => match known_direction(name) {
                Some((d, why)) => (d, why.to_string()),
                None => {
                    return Err(Error::refused(
                        "unknown_metric_direction",
                        Some(role),
                        format!(
                            "the metric `{name}` of {file} has no known direction: say whether higher or lower is \
                             better, or which method (or value) it should be closest to, e.g. `{name}:higher`, \
                             `{name}:lower`, `{name}:closest=retrain`; or leave it out by naming the metrics to \
                             compare"
                        ),
                    ));
                }
            },
        };
        if let Direction::ClosestTo(m) = &dir {
            in_table(m, "reference method")?;
            if req.baseline.as_deref() == Some(m.as_str()) {
                return Err(usage(format!(
                    "`{m}` is both the baseline and the method `{}` should be closest to, so no method is left to \
                     compare with it: name another baseline, or none to compare every pair of the other methods",
                    table.metrics[col]
                )));
            }
        }
        chosen.push((col, dir, reason));
    }

    // Warnings about the design.
    let mut seeds: Vec<(String, usize)> = methods
        .iter()
        .map(|m| {
            let n = table.runs.iter().filter(|r| &r.method == m).count() / tasks.len().max(1);
            (m.clone(), n)
        })
        .collect();
    seeds.sort_by_key(|(_, n)| *n);
    let few: Vec<String> = seeds
        .iter()
        .filter(|(_, n)| *n < 3)
        .map(|(m, n)| format!("{m} ({n}{})", files_of(m)))
        .collect();
    if !few.is_empty() {
        warnings.push(Warning::new(
            "few_seeds",
            design_input,
            format!(
                "fewer than 3 seeds per task for {}: one or two seeds say little about a method's spread, and no \
                 test at these sizes can show a difference",
                few.join(", ")
            ),
            Some("run every method with at least 3 seeds, better 5 to 10".into()),
        ));
    }
    if seeds.first().map(|s| s.1) != seeds.last().map(|s| s.1) {
        let list: Vec<String> = seeds.iter().map(|(m, n)| format!("{m} {n}")).collect();
        warnings.push(Warning::new(
            "unequal_seeds",
            design_input,
            format!(
                "the methods have different numbers of runs per task ({})",
                list.join(", ")
            ),
            Some(
                "run every method with the same seeds, so that no method's interval is narrower only because it \
                 was run more often"
                    .into(),
            ),
        ));
    }
    for t in &tasks {
        let missing: Vec<&str> = methods
            .iter()
            .filter(|m| {
                !table
                    .runs
                    .iter()
                    .any(|r| &r.method == *m && r.task.as_deref().unwrap_or("") == t)
            })
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            warnings.push(Warning::new(
                "task_missing_methods",
                Some(role),
                format!(
                    "task `{t}` has no runs of {}: those methods are not compared on it, and the ranking across \
                     tasks (Friedman) is left out",
                    missing.join(", ")
                ),
                Some("run every method on every task, or remove the task's runs".into()),
            ));
        }
    }
    // Identical runs: two rows of one method with the same value in every metric (a copied file).
    for (i, a) in table.runs.iter().enumerate() {
        if let Some(b) = table.runs[i + 1..].iter().find(|b| {
            b.method == a.method && b.task == a.task && a.values.iter().any(Option::is_some) && b.values == a.values
        }) {
            warnings.push(Warning::new(
                "identical_runs",
                design_input,
                format!(
                    "{file}: the runs of {} at {} (seed {}) and {} (seed {}) have the same value in every metric: \
                     a copied result file, or a seed that was not used",
                    a.method, a.place, a.seed, b.place, b.seed
                ),
                Some("check that each run's results come from its own training and evaluation".into()),
            ));
        }
    }

    let boot = Bootstrap {
        resamples: req.resamples,
        level: 1.0 - alpha,
        seed: req.seed,
    };
    let mut metric_results = Vec::new();
    let mut comparisons: Vec<Comparison> = Vec::new();
    // Methods with one run whose per-example values give an interval over examples (warning `examples_not_seeds`).
    let mut over_examples: Vec<String> = Vec::new();
    let mut subset = 0u64;
    for (col, dir, reason) in &chosen {
        let name = &table.metrics[*col];
        // The reference's mean on each task, for `closest` metrics.
        let reference: Vec<Option<f64>> = tasks
            .iter()
            .map(|t| match dir {
                Direction::ClosestTo(m) => {
                    let v: Vec<f64> = runs_of(&table, std::slice::from_ref(t), m, *col)
                        .into_iter()
                        .flat_map(|(_, v)| values(&v))
                        .collect();
                    (!v.is_empty()).then(|| core::mean(&v))
                }
                Direction::ClosestValue(v) => Some(*v),
                _ => None,
            })
            .collect();
        // The score compared: higher is better.
        let score = |x: f64, task: usize| -> Option<f64> {
            match dir {
                Direction::Higher => Some(x),
                Direction::Lower => Some(-x),
                _ => reference[task].map(|r| -(x - r).abs()),
            }
        };
        let compared: Vec<&String> = methods
            .iter()
            .filter(|m| !matches!(dir, Direction::ClosestTo(r) if r == *m))
            .collect();
        let mut summaries = Vec::new();
        // Scores by method, by task (for PoI and Friedman).
        let mut scores: Vec<(String, Vec<Vec<f64>>)> = Vec::new();
        for m in &methods {
            let by = runs_of(&table, &tasks, m, *col);
            let mut per_task_scores = Vec::new();
            for (ti, (t, v)) in by.iter().enumerate() {
                let x = values(v);
                per_task_scores.push(x.iter().filter_map(|&x| score(x, ti)).collect::<Vec<f64>>());
                if x.is_empty() {
                    continue;
                }
                let strata = vec![x.clone()];
                subset += 1;
                let mut one = summary(
                    m,
                    table.has_task.then(|| t.clone()),
                    &x,
                    &strata,
                    &boot,
                    subset,
                    reference[ti],
                )?;
                // One run with per-example values: their interval, said to stand in for none over seeds.
                if x.len() == 1
                    && let Some(e) = table
                        .runs
                        .iter()
                        .find(|r| &r.method == m && r.task.as_deref().unwrap_or("") == t && r.values[*col].is_some())
                        .and_then(|r| r.examples.get(*col).cloned().flatten())
                {
                    one.over_examples = Some(OverExamples {
                        n: e.len(),
                        mean: core::mean(&e),
                        sd: fin(core::sd(&e)),
                        t_interval: pair(core::t_interval(&e, boot.level).map_err(Error::from)?),
                    });
                    over_examples.push(format!("{m} on {name} ({} examples)", e.len()));
                }
                summaries.push(one);
            }
            if table.has_task && tasks.len() > 1 {
                let strata: Vec<Vec<f64>> = by.iter().map(|(_, v)| values(v)).filter(|v| !v.is_empty()).collect();
                let all: Vec<f64> = strata.iter().flatten().copied().collect();
                if !all.is_empty() {
                    subset += 1;
                    summaries.push(summary(m, None, &all, &strata, &boot, subset, None)?);
                }
            }
            scores.push((m.clone(), per_task_scores));
        }
        // PoI matrix over every task where both have runs. Intervals: see POI_INTERVALS_ALL_PAIRS_MAX. Every
        // cell keeps its subset number whether or not it is bootstrapped, so no other interval depends on it.
        // One bootstrap per unordered pair: ties count ½, so resample by resample P(b > a) = 1 − P(a > b), and
        // the cell (b, a) is the percentile interval of those same resamples, (1 − hi, 1 − lo) of the cell (a, b)
        // computed first (numpy's linear percentiles at q and 100 − q read mirrored order statistics; equal to
        // rounding, `lethe::compare`'s test `grouped_resamples_equal_the_definition`).
        let all_intervals = compared.len() <= POI_INTERVALS_ALL_PAIRS_MAX;
        let mut poi = Vec::new();
        // The bootstrapped cells by ordered pair, with the runs they were drawn from (for the comparisons).
        let mut poi_boots: std::collections::HashMap<(&String, &String), PoiDrawn> = std::collections::HashMap::new();
        for (a, sa) in scores.iter().filter(|(m, _)| compared.contains(&m)) {
            for (b, sb) in scores.iter().filter(|(m, _)| compared.contains(&m)) {
                if a == b {
                    continue;
                }
                let (xa, xb): (Vec<Vec<f64>>, Vec<Vec<f64>>) = sa
                    .iter()
                    .zip(sb)
                    .filter(|(x, y)| !x.is_empty() && !y.is_empty())
                    .map(|(x, y)| (x.clone(), y.clone()))
                    .unzip();
                if xa.is_empty() {
                    continue;
                }
                subset += 1;
                let with_baseline = req.baseline.as_ref().is_some_and(|m| m == a || m == b);
                let p = core::probability_of_improvement(&xa, &xb);
                let interval = if all_intervals || with_baseline {
                    // (A NaN score, which ties with nothing, would break the identity: then its own bootstrap.)
                    let nan = xa.iter().chain(&xb).flatten().any(|v| v.is_nan());
                    let interval = match poi_boots.get(&(b, a)) {
                        Some((_, _, i)) if !nan => Interval {
                            lo: 1.0 - i.hi,
                            hi: 1.0 - i.lo,
                        },
                        _ => {
                            let (_, (lo, hi)) = core::poi_interval(&xa, &xb, &boot, subset).map_err(Error::from)?;
                            Interval { lo, hi }
                        }
                    };
                    poi_boots.insert((a, b), (xa, xb, interval));
                    Some(interval)
                } else {
                    None
                };
                poi.push(PoiCell {
                    a: a.clone(),
                    b: b.clone(),
                    probability: p,
                    interval,
                });
            }
        }
        // Friedman across tasks: per task, the mean score of every compared method.
        let friedman = if tasks.len() >= 2 && compared.len() >= 3 {
            let blocks: Option<Vec<Vec<f64>>> = (0..tasks.len())
                .map(|ti| {
                    compared
                        .iter()
                        .map(|m| {
                            let s = &scores.iter().find(|(x, _)| x == *m)?.1[ti];
                            (!s.is_empty()).then(|| core::mean(s))
                        })
                        .collect()
                })
                .collect();
            blocks.and_then(|b| core::friedman(&b, alpha).ok())
        } else {
            None
        };

        // Pairwise comparisons, per task.
        for (ti, t) in tasks.iter().enumerate() {
            let pairs: Vec<(&String, &String)> = match &req.baseline {
                Some(base) => compared
                    .iter()
                    .filter(|m| *m != &base)
                    .map(|m| (*m, base))
                    .filter(|(_, b)| compared.contains(b))
                    .collect(),
                None => compared
                    .iter()
                    .enumerate()
                    .flat_map(|(i, a)| compared[i + 1..].iter().map(move |b| (*a, *b)))
                    .collect(),
            };
            // Each compared method's runs on this task, read once (not once per pair); the permutation tests'
            // memo keeps each method's sorted subset sums for its other comparisons.
            let runs: std::collections::HashMap<&String, Vec<(String, f64)>> = compared
                .iter()
                .map(|m| {
                    let by = runs_of(&table, std::slice::from_ref(t), m, *col);
                    (*m, by.into_iter().next().map(|(_, v)| v).unwrap_or_default())
                })
                .collect();
            let mut memo = core::PermutationMemo::default();
            for (a, b) in pairs {
                let (ra, rb) = (&runs[a], &runs[b]);
                if ra.is_empty() || rb.is_empty() {
                    continue;
                }
                let sa: Vec<f64> = ra.iter().filter_map(|(_, x)| score(*x, ti)).collect();
                let sb: Vec<f64> = rb.iter().filter_map(|(_, x)| score(*x, ti)).collect();
                subset += 1;
                // The matrix cell's interval where it was drawn from exactly these runs (one task in common).
                let same = |x: &[Vec<f64>], s: &[f64]| {
                    x.len() == 1 && x[0].len() == s.len() && x[0].iter().zip(s).all(|(u, v)| u.to_bits() == v.to_bits())
                };
                let poi_boot = match poi_boots.get(&(a, b)) {
                    Some((xa, xb, i)) if same(xa, &sa) && same(xb, &sb) => PoiBoot::Given(*i),
                    _ if all_intervals || req.baseline.is_some() => PoiBoot::Draw,
                    _ => PoiBoot::None,
                };
                comparisons.push(compare_pair(
                    name,
                    table.has_task.then(|| t.clone()),
                    (a, ra, &sa),
                    (b, rb, &sb),
                    &boot,
                    subset,
                    poi_boot,
                    &mut memo,
                )?);
            }
        }
        // A metric bounded to [0, 1] (a p-value, an AUC, a rate): a t interval reaching past a bound (a p-value's
        // mean minus t·se below 0) is clipped to it; the values cannot lie there.
        if let Some((lo, hi)) = known_range(name) {
            let clip = |i: &mut Option<Interval>| {
                if let Some(i) = i {
                    i.lo = i.lo.clamp(lo, hi);
                    i.hi = i.hi.clamp(lo, hi);
                }
            };
            for s in &mut summaries {
                clip(&mut s.t_interval);
                if let Some(e) = &mut s.over_examples {
                    clip(&mut e.t_interval);
                }
            }
        }
        // Forget quality is a p-value: across orders of magnitude, its raw mean is the largest runs' alone.
        if is_p_value_metric(name) {
            let v: Vec<f64> = table.runs.iter().filter_map(|r| r.values[*col]).collect();
            let lo = v.iter().copied().filter(|x| *x > 0.0).fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(0.0f64, f64::max);
            if v.iter().any(|x| *x <= 0.0) || (lo.is_finite() && hi >= 100.0 * lo) {
                warnings.push(Warning::new(
                    "p_value_scale",
                    design_input,
                    format!(
                        "{name} is a p-value (open-unlearning's forget quality: the KS test of the truth ratios \
                         against the retain model's), and its runs span {}…{}, orders of magnitude: on this raw scale \
                         the means, t intervals and detectable differences are driven by the largest runs and say \
                         little about the others (the t intervals are clipped to [0, 1]; open-unlearning's papers plot \
                         forget quality on a log scale)",
                        num(v.iter().copied().fold(f64::INFINITY, f64::min)),
                        num(hi)
                    ),
                    Some(format!(
                        "compare its log10 as well: a runs table with a column log10_{name} holding each run's \
                         log10 of {name}, named with its direction (log10_{name}:higher)"
                    )),
                ));
            }
        }
        metric_results.push(MetricResult {
            metric: name.clone(),
            direction: dir.name(),
            reason: reason.clone(),
            summaries,
            probability_of_improvement: poi,
            friedman,
        });
    }

    if !over_examples.is_empty() {
        warnings.push(Warning::new(
            "examples_not_seeds",
            design_input,
            format!(
                "one run, with per-example values, for {}: the interval over its examples shows how the score moves \
                 with the examples evaluated, not with the seed. It ignores the seed-to-seed variation (the training's \
                 random initialisation, data order and sampling, the hardware) that decides whether one method beats \
                 another, and is narrower than an interval over seeds; the comparisons stay inconclusive without it",
                over_examples.join(", ")
            ),
            Some("run each method with at least 3 seeds (better 5 to 10) and give one result file per seed".into()),
        ));
    }

    // The family: every comparison with a p-value, corrected together.
    let idx: Vec<usize> = (0..comparisons.len())
        .filter(|&i| comparisons[i].p_value.is_some())
        .collect();
    // The best each test could do after the correction: the family corrected as if every exact permutation test had
    // reached its smallest p-value (2 / C(n_a + n_b, n_a)) and every other test p = 0. Where even that stays at or
    // above alpha, these seeds could not have shown any difference, however large, and nothing is called "no
    // difference" (5 seeds each give 2/252 = 0.0079, which Holm over 20 tests takes to 0.16).
    let mut best = vec![None; comparisons.len()];
    if !idx.is_empty() {
        let p: Vec<f64> = idx.iter().filter_map(|&i| comparisons[i].p_value).collect();
        let adj = lethe::fdr::multipletests(&p, alpha, corr).map_err(Error::from)?;
        let floors: Vec<f64> = idx
            .iter()
            .map(|&i| {
                let c = &comparisons[i];
                c.permutation
                    .filter(|t| t.exact)
                    .map_or(0.0, |_| smallest_p(c.n_a, c.n_b))
            })
            .collect();
        let floor_adj = lethe::fdr::multipletests(&floors, alpha, corr).map_err(Error::from)?;
        for (k, &i) in idx.iter().enumerate() {
            comparisons[i].p_adjusted = fin(adj.pvals_corrected[k]);
            best[i] = fin(floor_adj.pvals_corrected[k]);
        }
    }
    let corr_name = lethe::fdr::method_name(corr);
    let family = idx.len();
    // What the data could show, at the level a test alone in this corrected family must reach. The minimum
    // detectable effect depends only on the two sizes and that level (a bisection over noncentral t quadratures,
    // milliseconds each): computed once per pair of sizes.
    let level = family_level(corr, family, alpha)?;
    let mut mde: std::collections::HashMap<(usize, usize), Option<f64>> = std::collections::HashMap::new();
    for c in &mut comparisons {
        let Some(sp) = c.pooled_sd else { continue };
        let d = *mde
            .entry((c.n_a, c.n_b))
            .or_insert_with(|| core::min_detectable_effect(c.n_a as f64, c.n_b as f64, level, POWER).ok());
        c.min_detectable_difference = d.and_then(|d| fin(sp * d));
        c.detectable_at = c.min_detectable_difference.map(|_| level);
    }
    // How the family could be smaller: one baseline against every other method instead of every pair (where there
    // are more than two methods and no baseline), fewer metrics (where there are several).
    let k = methods.len();
    let mut smaller: Vec<String> = Vec::new();
    if req.baseline.is_none() && k > 2 {
        smaller.push(format!(
            "compare each method with one baseline method ({}: {} pairs per metric instead of {})",
            crate::words::opt("baseline"),
            k - 1,
            k * (k - 1) / 2
        ));
    }
    if chosen.len() > 1 {
        smaller.push(format!(
            "compare fewer metrics than these {} (name only the ones the question is about)",
            chosen.len()
        ));
    }
    let fewer = if smaller.is_empty() {
        String::new()
    } else {
        format!(", or shrink the family: {}", smaller.join(", or "))
    };
    for (c, best) in comparisons.iter_mut().zip(best) {
        call_comparison(c, corr_name, alpha, best, family, &fewer);
    }

    // Reproduction checks.
    let mut reproductions = Vec::new();
    for s in &req.published {
        let p = parse_published(s)?;
        in_table(&p.method, "published method")?;
        let Some(col) = table.metrics.iter().position(|m| m == &p.metric) else {
            return Err(usage(format!(
                "`{}`: {file} has no metric `{}`; its metrics are {}",
                p.text,
                p.metric,
                table.metrics.join(", ")
            )));
        };
        let x: Vec<f64> = table
            .runs
            .iter()
            .filter(|r| r.method == p.method)
            .filter_map(|r| r.values[col])
            .collect();
        reproductions.push(reproduce(&p, &x, req.margin, alpha)?);
    }

    let headline = headline(&comparisons, &reproductions, &metric_results);
    let params = CompareParameters {
        runs: name,
        methods: {
            let mut paths = recs.iter().map(|r| r.path.as_str());
            groups
                .iter()
                .map(|g| {
                    let files: Vec<&str> = paths.by_ref().take(g.files.len()).collect();
                    format!("{}={}", g.method, files.join(","))
                })
                .collect()
        },
        metrics: req.metrics.clone(),
        baseline: req.baseline.clone(),
        published: req.published.clone(),
        margin: req.margin,
        correction: corr_name.to_string(),
        level: 1.0 - alpha,
        resamples: req.resamples,
        seed: req.seed,
    };
    let mut recs = recs;
    if req.runs.is_some()
        && let Some(rec) = recs.first_mut()
    {
        rec.rows_used = table.runs.len();
        rec.shape = vec![table.runs.len() as u64, table.metrics.len() as u64];
    }
    Ok(Report::new(
        "compare",
        params,
        Some(req.seed),
        recs,
        headline,
        warnings,
        CompareResult {
            methods,
            tasks: if table.has_task { tasks } else { Vec::new() },
            metrics: metric_results,
            comparisons,
            reproductions,
            correction: corr_name.to_string(),
            level: 1.0 - alpha,
            bootstrap: boot,
        },
    ))
}

fn summary(
    method: &str,
    task: Option<String>,
    x: &[f64],
    strata: &[Vec<f64>],
    boot: &Bootstrap,
    subset: u64,
    reference: Option<f64>,
) -> Result<MethodSummary> {
    let t = core::t_interval(x, boot.level).map_err(Error::from)?;
    let b = if x.len() >= 2 {
        Some(core::stratified_bootstrap_mean(strata, boot, subset).map_err(Error::from)?)
    } else {
        None
    };
    Ok(MethodSummary {
        method: method.to_string(),
        task,
        n: x.len(),
        mean: core::mean(x),
        sd: fin(core::sd(x)),
        median: core::median(x),
        iqm: core::iqm(x),
        t_interval: pair(t),
        bootstrap_interval: pair(b),
        mean_distance: reference.map(|r| core::mean(&x.iter().map(|v| (v - r).abs()).collect::<Vec<_>>())),
        over_examples: None,
    })
}

type Side<'a> = (&'a String, &'a Vec<(String, f64)>, &'a Vec<f64>);

/// A bootstrapped PoI matrix cell: the runs it was drawn from (a's and b's, by task) and its interval.
type PoiDrawn = (Vec<Vec<f64>>, Vec<Vec<f64>>, Interval);

/// A comparison's probability-of-improvement interval: the matrix cell's (drawn from the same runs), its own
/// bootstrap, or none.
enum PoiBoot {
    Given(Interval),
    Draw,
    None,
}

#[allow(clippy::too_many_arguments)]
fn compare_pair(
    metric: &str,
    task: Option<String>,
    a: Side<'_>,
    b: Side<'_>,
    boot: &Bootstrap,
    subset: u64,
    poi_boot: PoiBoot,
    memo: &mut core::PermutationMemo,
) -> Result<Comparison> {
    let (name_a, runs_a, sa) = a;
    let (name_b, runs_b, sb) = b;
    let (na, nb) = (sa.len(), sb.len());
    let difference = core::mean(sa) - core::mean(sb);
    let enough = na >= 2 && nb >= 2;
    let welch = if enough { core::welch(sa, sb).ok() } else { None };
    let permutation = core::permutation_test_memo(sa, sb, 9999, boot.seed, memo).ok();
    let mann_whitney = mann_whitney::mann_whitney_u(sa, sb, Alternative::TwoSided, PValueMethod::Auto, true)
        .ok()
        .map(|m| RankTest {
            statistic: m.statistic,
            p_value: fin(m.p_value),
        });
    // Pairs by seed: every seed of the smaller side is a seed of the other.
    let paired: Vec<(f64, f64)> = runs_a
        .iter()
        .zip(sa)
        .filter_map(|((s, _), x)| {
            runs_b
                .iter()
                .zip(sb)
                .find(|((t, _), _)| t == s && !s.starts_with('#'))
                .map(|(_, y)| (*x, *y))
        })
        .collect();
    let wilcoxon_by_seed = if paired.len() == na.min(nb) && paired.len() >= 2 {
        let (x, y): (Vec<f64>, Vec<f64>) = paired.into_iter().unzip();
        wilcoxon::wilcoxon(&x, Some(&y), &WilcoxonParams::default())
            .ok()
            .map(|w| RankTest {
                statistic: w.statistic,
                p_value: fin(w.p_value),
            })
    } else {
        None
    };
    let (test, p_value) = match (&permutation, &welch) {
        (Some(p), _) if p.exact => (Some("permutation (exact)".to_string()), fin(p.p_value)),
        (_, Some(w)) => (Some("welch".to_string()), fin(w.p_value)),
        (Some(p), None) => (Some("permutation (random splits)".to_string()), fin(p.p_value)),
        _ => (None, None),
    };
    let poi = core::probability_of_improvement(std::slice::from_ref(sa), std::slice::from_ref(sb));
    let poi_interval = match poi_boot {
        PoiBoot::Given(i) => Some(i),
        PoiBoot::Draw => core::poi_interval(std::slice::from_ref(sa), std::slice::from_ref(sb), boot, subset)
            .ok()
            .map(|(_, (lo, hi))| Interval { lo, hi }),
        PoiBoot::None => None,
    };
    // The pooled sd (0 for two constant samples); the detectable difference is stated once the family is known.
    let pooled_sd = if enough {
        Some(core::pooled_sd(sa, sb).unwrap_or(0.0))
    } else {
        None
    };
    Ok(Comparison {
        metric: metric.to_string(),
        task,
        a: name_a.clone(),
        b: name_b.clone(),
        n_a: na,
        n_b: nb,
        difference,
        test,
        p_value,
        p_adjusted: None,
        permutation,
        welch,
        mann_whitney,
        wilcoxon_by_seed,
        hedges_g: core::hedges_g(sa, sb).and_then(fin),
        probability_of_improvement: poi,
        poi_interval,
        min_detectable_difference: None,
        detectable_at: None,
        pooled_sd,
        call: String::new(),
        text: String::new(),
    })
}

/// The level a single test must reach to be called significant in a family of `family` tests corrected by `corr`
/// at `alpha`: the largest p for which the correction of `[p, 1, …, 1]` still gives an adjusted p below `alpha`
/// (Holm, Bonferroni, BH: `alpha / family`; Šidák: `1 − (1 − alpha)^(1/family)`; BY: `alpha / (family · Σ 1/i)`),
/// found by bisection so that every correction `lethe fdr` offers is covered by one rule. `alpha` for one test.
fn family_level(corr: Correction, family: usize, alpha: f64) -> Result<f64> {
    if family <= 1 {
        return Ok(alpha);
    }
    let mut p = vec![1.0; family];
    let mut significant = |t: f64| -> Result<bool> {
        p[0] = t;
        let adj = lethe::fdr::multipletests(&p, alpha, corr).map_err(Error::from)?;
        Ok(adj.pvals_corrected[0] < alpha)
    };
    // The answer lies in (0, alpha): a family never makes a test easier to pass than alone.
    let (mut lo, mut hi) = (0.0, alpha);
    if significant(hi)? {
        return Ok(alpha);
    }
    for _ in 0..80 {
        let mid = 0.5 * (lo + hi);
        if significant(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * hi {
            break;
        }
    }
    Ok(lo)
}

/// The smallest two-sided p-value the exact permutation test can give at these sizes: 2 / C(n_a + n_b, n_a).
fn smallest_p(na: usize, nb: usize) -> f64 {
    let mut c = 1.0f64;
    let n = na + nb;
    for i in 0..na.min(nb) {
        c = c * (n - i) as f64 / (i + 1) as f64;
    }
    (2.0 / c).min(1.0)
}

/// The call of one comparison. `best`: the smallest adjusted p-value the family's correction could give this test
/// (its exact test at its floor, every other test at its own); `family`: the number of tests corrected together;
/// `smaller`: how the request could make the family smaller (empty when it cannot), said after "add seeds".
fn call_comparison(c: &mut Comparison, corr: &str, alpha: f64, best: Option<f64>, family: usize, smaller: &str) {
    let on = match &c.task {
        Some(t) => format!("{} (task {t})", c.metric),
        None => c.metric.clone(),
    };
    let corr_word = match corr {
        "holm" => "Holm",
        "fdr_bh" => "BH",
        other => other,
    };
    // One test is no family: no correction to name, and no fewer pairs to compare.
    let (after, fewer) = if family > 1 {
        (format!(" after {corr_word} over {family} tests"), smaller)
    } else {
        (String::new(), "")
    };
    let mdd = c.min_detectable_difference.map(num).unwrap_or_else(|| "unknown".into());
    // Where the family makes the test stricter than `alpha`, the detectable difference says at which level.
    let at_level = c
        .detectable_at
        .filter(|l| *l < alpha)
        .map(|l| {
            format!(
                " at the level {} a test needs after {corr_word} over {family} tests",
                num(l)
            )
        })
        .unwrap_or_default();
    let (n_min, n_max) = (c.n_a.min(c.n_b), c.n_a.max(c.n_b));
    let seeds = if n_min == n_max {
        format!("{n_min} seeds")
    } else {
        format!("{n_min} and {n_max} seeds")
    };
    let exact_floor = c.permutation.filter(|p| p.exact).map(|_| smallest_p(c.n_a, c.n_b));
    if n_min < 2 {
        c.call = Headline::INCONCLUSIVE.into();
        // Name both methods: against one single run, every comparison would otherwise read the same.
        let one = if c.n_a < c.n_b { &c.a } else { &c.b };
        c.text = format!(
            "inconclusive between {} and {} on {on}: {one} has only {n_min} run, so it has no spread and no \
             interval",
            c.a, c.b
        );
        return;
    }
    let (Some(p), Some(adj)) = (c.p_value, c.p_adjusted) else {
        c.call = Headline::INCONCLUSIVE.into();
        c.text = format!(
            "inconclusive: no test could be computed for {} against {} on {on}",
            c.a, c.b
        );
        return;
    };
    let _ = p;
    if adj < alpha {
        let (better, worse, prob) = if c.difference > 0.0 {
            (&c.a, &c.b, c.probability_of_improvement)
        } else {
            (&c.b, &c.a, 1.0 - c.probability_of_improvement)
        };
        c.call = if c.difference > 0.0 { "better" } else { "worse" }.into();
        c.text = format!(
            "{better} is better than {worse} on {on} ({corr_word}-adjusted p {}, P({better} > {worse}) = {})",
            num(adj),
            num(prob)
        );
    } else if let Some(b) = best.filter(|b| *b >= alpha && n_min >= 3) {
        c.call = Headline::INCONCLUSIVE.into();
        c.text = format!(
            "inconclusive on {on}: with {seeds} no difference between {} and {} could be shown{after} ({}): add \
             seeds{fewer}",
            c.a,
            c.b,
            if family > 1 {
                format!(
                    "the exact test's smallest p-value, {}, adjusts to at least {}",
                    num(exact_floor.unwrap_or(0.0)),
                    num(b)
                )
            } else {
                format!("the exact test's smallest p-value is {}", num(b))
            }
        );
    } else if n_min >= 3 && c.min_detectable_difference.is_some_and(|m| c.difference.abs() >= m) {
        c.call = Headline::INCONCLUSIVE.into();
        c.text = format!(
            "inconclusive on {on}: {} and {} differ by {}, as much as {seeds} could detect ({mdd}{}), but not \
             significantly{after} ({}p {}): add seeds{fewer}",
            c.a,
            c.b,
            num(c.difference.abs()),
            at_level,
            if family > 1 { "adjusted " } else { "" },
            num(adj)
        );
    } else if n_min < 3 || exact_floor.is_some_and(|f| f >= alpha) {
        c.call = Headline::INCONCLUSIVE.into();
        c.text = format!(
            "inconclusive on {on}: with {seeds} the smallest detectable difference is {mdd}{at_level}{}",
            exact_floor
                .filter(|f| *f >= alpha)
                .map(|f| format!(" and the test's smallest p-value is {}", num(f)))
                .unwrap_or_default()
        );
    } else {
        c.call = "no_difference".into();
        c.text = format!(
            "no difference the data could show between {} and {} on {on} ({corr_word}-adjusted p {}): with {seeds} a \
             difference of {mdd} or more would have been found 80% of the time{at_level}; smaller ones could not",
            c.a,
            c.b,
            num(adj)
        );
    }
}

fn reproduce(p: &Published, x: &[f64], margin: Option<f64>, alpha: f64) -> Result<Reproduction> {
    let margin = margin.unwrap_or_else(|| 0.1 * p.value.abs());
    let n = x.len();
    let mean = if n > 0 { core::mean(x) } else { f64::NAN };
    let t = core::t_interval(x, 1.0 - alpha).map_err(Error::from)?;
    let inside = match (p.interval, t) {
        (Some((lo, hi)), Some((a, b))) => Some(lo <= b && a <= hi),
        (None, Some((a, b))) => Some(a <= p.value && p.value <= b),
        _ => None,
    };
    let mut out = Reproduction {
        method: p.method.clone(),
        metric: p.metric.clone(),
        published: p.value,
        published_sd: p.sd,
        published_n: p.n,
        published_interval: p.interval.map(Interval::from),
        n,
        mean,
        t_interval: pair(t),
        inside_interval: inside,
        margin,
        tost: None,
        difference_p: None,
        prediction_interval: None,
        call: Headline::INCONCLUSIVE.into(),
        text: String::new(),
    };
    let what = format!("{} on {}", p.method, p.metric);
    if n == 1
        && let Some(sd) = p.sd.filter(|s| *s > 0.0)
        && margin > 0.0
    {
        single_run(&mut out, p, sd, x[0], margin, alpha, &what)?;
        return Ok(out);
    }
    if n < 2 {
        out.text = if n == 1 {
            format!(
                "inconclusive: {what} has 1 run, so its spread across seeds is unknown: run at least 3 seeds, or give \
                 the published sd across seeds (±SD, with /N seeds) to compare the one run with that spread"
            )
        } else {
            format!("inconclusive: {what} has no run with a value; run at least 3 seeds")
        };
        out.mean = fin(mean).unwrap_or(0.0);
        return Ok(out);
    }
    if margin <= 0.0 {
        out.text = format!("inconclusive: the published value of {what} is 0, so give an equivalence margin");
        return Ok(out);
    }
    let (tost, diff_p) = match (p.sd, p.n) {
        (Some(sd), Some(pn)) if pn >= 2.0 => (
            core::tost_stats((mean, core::sd(x), n as f64), (p.value, sd, pn), -margin, margin, false).ok(),
            core::welch_stats((mean, core::sd(x), n as f64), (p.value, sd, pn))
                .ok()
                .map(|w| w.p_value),
        ),
        _ => (
            core::tost_one(x, p.value, -margin, margin).ok(),
            core::one_sample_t(x, p.value).ok().map(|w| w.p_value),
        ),
    };
    out.tost = tost;
    out.difference_p = diff_p.and_then(fin);
    let d = mean - p.value;
    match (out.tost.map(|t| t.p_value), out.difference_p) {
        (Some(tp), _) if tp < alpha => {
            out.call = "reproduces".into();
            out.text = format!(
                "{what} reproduces the published value {} within noise: the mean of {n} runs is {} (equivalent within \
                 ±{}, TOST p {})",
                num(p.value),
                num(mean),
                num(margin),
                num(tp)
            );
        }
        (_, Some(dp)) if dp < alpha => {
            out.call = "differs".into();
            out.text = format!(
                "{what} differs from the published value {} by {} (mean of {n} runs {}, p {})",
                num(p.value),
                num(d),
                num(mean),
                num(dp)
            );
        }
        _ => {
            out.text = format!(
                "inconclusive: {what}'s {n} runs (mean {}, 95% interval {}) can neither show the published value {} \
                 nor rule it out within ±{}",
                num(mean),
                out.t_interval
                    .map(|i| format!("[{}, {}]", num(i.lo), num(i.hi)))
                    .unwrap_or_else(|| "none".into()),
                num(p.value),
                num(margin)
            );
        }
    }
    Ok(out)
}

/// `P(T > t)` for Student's t with `df` degrees of freedom (the standard normal when `df` is infinite), by the
/// core's noncentral t CDF at noncentrality 0.
fn t_sf(t: f64, df: f64) -> f64 {
    if df.is_infinite() {
        lethe::rank::ndtr(-t)
    } else {
        core::nct_cdf(-t, df, 0.0)
    }
}

/// One run `x` against the published mean and its spread across seeds `sd` (over `p.n` seeds when given): the
/// prediction interval of a single run, the two-sided test of `x` against it, and the equivalence test (TOST) of
/// `x − published` within `±margin` with the single run's standard error `sd · sqrt(1 + 1/n)`.
fn single_run(
    out: &mut Reproduction,
    p: &Published,
    sd: f64,
    x: f64,
    margin: f64,
    alpha: f64,
    what: &str,
) -> Result<()> {
    let (df, factor) = match p.n {
        Some(n) if n >= 2.0 => (n - 1.0, (1.0 + 1.0 / n).sqrt()),
        _ => (f64::INFINITY, 1.0),
    };
    let se = sd * factor;
    let q = if df.is_infinite() {
        1.959_963_984_540_054
    } else {
        core::t_quantile(1.0 - alpha, df).map_err(Error::from)?
    };
    let d = x - p.value;
    let t = d / se;
    let diff_p = (2.0 * t_sf(t.abs(), df)).min(1.0);
    let (t1, t2) = ((d + margin) / se, (d - margin) / se);
    let test = |statistic: f64, p_value: f64| TTest {
        statistic,
        df,
        p_value,
        difference: d,
    };
    let lower = test(t1, t_sf(t1, df));
    let upper = test(t2, t_sf(-t2, df));
    let tost = Tost {
        p_value: lower.p_value.max(upper.p_value),
        lower,
        upper,
    };
    let (lo, hi) = (p.value - q * se, p.value + q * se);
    out.prediction_interval = Some(Interval { lo, hi });
    out.difference_p = fin(diff_p);
    // Without n the tests are normal: their degrees of freedom are infinite, written null in the report.
    out.tost = tost.p_value.is_finite().then_some(tost);
    out.mean = x;
    let spread = match p.n {
        Some(n) => format!("{} ± {} over {} seeds", num(p.value), num(sd), num(n)),
        None => format!("{} ± {}", num(p.value), num(sd)),
    };
    let range = format!("[{}, {}]", num(lo), num(hi));
    if tost.p_value < alpha {
        out.call = "reproduces".into();
        out.text = format!(
            "{what}: the one run, {}, reproduces the published {spread} within ±{} (equivalence p {} against the \
             published spread across seeds)",
            num(x),
            num(margin),
            num(tost.p_value)
        );
    } else if diff_p < alpha {
        out.call = "differs".into();
        out.text = format!(
            "{what}: the one run, {}, differs from the published {spread} by {}: outside the range {range} where 95% of \
             single runs fall (p {}); one run says nothing of your own seeds' spread, so run more seeds before \
             blaming the published number",
            num(x),
            num(d),
            num(diff_p)
        );
    } else {
        out.text = format!(
            "inconclusive: {what}'s one run, {}, lies within the published spread ({spread}: 95% of single runs fall in \
             {range}), but one run cannot show it reproduces within ±{}: run at least 3 seeds",
            num(x),
            num(margin)
        );
    }
    Ok(())
}

fn headline(comparisons: &[Comparison], reproductions: &[Reproduction], metrics: &[MetricResult]) -> Headline {
    let shown: Vec<&Comparison> = comparisons
        .iter()
        .filter(|c| c.call == "better" || c.call == "worse")
        .collect();
    let undecided = comparisons.iter().filter(|c| c.call == Headline::INCONCLUSIVE).count();
    let none = comparisons.iter().filter(|c| c.call == "no_difference").count();
    let mut parts: Vec<String> = shown.iter().take(3).map(|c| c.text.clone()).collect();
    if shown.len() > 3 {
        let more = shown.len() - 3;
        parts.push(format!("{more} more difference{}", if more == 1 { "" } else { "s" }));
    }
    let repro: Vec<String> = reproductions.iter().map(|r| r.text.clone()).collect();
    if !shown.is_empty() {
        let mut text = parts.join("; ");
        if none + undecided > 0 {
            text.push_str(&format!(
                "; {none} {} with no difference the data could show, {undecided} inconclusive",
                if none == 1 { "comparison" } else { "comparisons" }
            ));
        }
        for r in repro {
            text.push_str("; ");
            text.push_str(&r);
        }
        return Headline::new("difference", text);
    }
    if comparisons.is_empty() {
        if let Some(first) = reproductions.first() {
            let all_same = reproductions.iter().all(|r| r.call == first.call);
            let text = repro.join("; ");
            return if first.call == Headline::INCONCLUSIVE || !all_same {
                Headline::inconclusive(text, "the runs do not settle every reproduction check")
            } else {
                Headline::new(&first.call, text)
            };
        }
        let _ = metrics;
        return Headline::inconclusive(
            "Inconclusive: there is nothing to compare",
            "the table has one method per metric and no published value",
        );
    }
    let mut text = if undecided == 0 {
        comparisons
            .first()
            .filter(|_| comparisons.len() == 1)
            .map(|c| c.text.clone())
            .unwrap_or_else(|| {
                format!("no difference the data could show in any of the {none} comparisons (each says what it could have shown)")
            })
    } else {
        comparisons
            .iter()
            .find(|c| c.call == Headline::INCONCLUSIVE)
            .map(|c| c.text.clone())
            .unwrap_or_default()
    };
    for r in repro {
        text.push_str("; ");
        text.push_str(&r);
    }
    if undecided == 0 {
        Headline::new("no_difference", text)
    } else {
        let reason = format!(
            "{undecided} of {} comparisons cannot be decided at these numbers of seeds",
            comparisons.len()
        );
        Headline::inconclusive(upper_first(&text), reason)
    }
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entry. The runs table is a text file, or pasted text

/// `lethe compare` in the registry ([`crate::registry`]).
pub struct Compare;

in_browser_at_once!(Compare, "compare", CompareRequest => CompareOutput, compare_output, for_check = one_resample);

/// Compare's check before a run: its warnings come from the runs, not the bootstrap, so one resample instead of
/// 10,000 (a check of a 50-method table would otherwise cost as much as the run it precedes).
fn one_resample(req: CompareRequest) -> CompareRequest {
    CompareRequest { resamples: 1, ..req }
}

registered! {
impl crate::registry::Analysis for Compare {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = CompareRequest;
    const ROLES: Roles = Roles::texts(&["runs"]);
    /// Result files by method as the CLI, Python and batch write them ([`compare_methods`]) become the request's
    /// `methods`, each path opened as a text file.
    fn resolve(ws: &mut Workspace, m: &mut serde_json::Map<String, serde_json::Value>) -> Result<()> {
        if let Some(v) = m.remove("methods") {
            m.insert("methods".into(), compare_methods(ws, v)?);
        }
        Ok(())
    }
    /// Forest plots, probability-of-improvement matrices, critical-difference diagrams.
    fn plots(r: &serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        plots::json(Ok(plots::compare_plots(r)))
            .map(|p| ("comparison".to_string(), p))
            .into_iter()
            .collect()
    }
    fn run(ws: &mut Workspace, req: &CompareRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_compare(ws, req)?)
    }
}

}

/// What the page's worker returns for a comparison: the report's parameters, seed, inputs, headline, warnings and
/// result, in the report's order (the page and the notebook wrap them in the envelope `lethe compare --json` prints),
/// and beside them `comparison`, the pictures drawn from that report ([`crate::plots::compare_plots`], the plot data
/// `lethe.show` gets from the same report).
#[derive(Clone, Debug, Serialize)]
pub struct CompareOutput {
    pub parameters: CompareParameters,
    pub seed: Option<u64>,
    pub inputs: Vec<InputRecord>,
    pub headline: Headline,
    pub warnings: Vec<Warning>,
    pub result: CompareResult,
    pub comparison: crate::plots::ComparePlots,
}

/// [`run_compare`] with the pictures, for the page.
///
/// # Errors
/// As [`run_compare`].
pub fn compare_output(ws: &mut Workspace, req: &CompareRequest) -> Result<CompareOutput> {
    let r = run_compare(ws, req)?;
    let result = serde_json::to_value(&r.result).map_err(|e| Error::msg(format!("internal error: {e}")))?;
    Ok(CompareOutput {
        comparison: crate::plots::compare_plots(&result),
        parameters: r.parameters,
        seed: r.seed,
        inputs: r.inputs,
        headline: r.headline,
        warnings: r.warnings,
        result: r.result,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, f: impl FnOnce(&mut CompareRequest)) -> Result<CompareReport> {
        let mut ws = Workspace::new();
        let mut req = CompareRequest {
            runs: Some(TextInput::Text { text: text.into() }),
            resamples: 500,
            ..CompareRequest::default()
        };
        f(&mut req);
        run_compare(&mut ws, &req)
    }

    /// A table of `methods` (name, values per seed) on one metric.
    fn table(metric: &str, methods: &[(&str, &[f64])]) -> String {
        let mut s = format!("method,seed,{metric}\n");
        for (m, v) in methods {
            for (i, x) in v.iter().enumerate() {
                s.push_str(&format!("{m},{i},{x}\n"));
            }
        }
        s
    }

    fn codes(r: &CompareReport) -> Vec<&str> {
        r.warnings.iter().map(|w| w.code.as_str()).collect()
    }

    /// The page's check before a run (issue 26: declared here, not in the page's worker): compare's run, its
    /// warnings kept (the wasm module's `check`), on one bootstrap resample instead of the request's 10,000.
    #[test]
    fn the_check_before_a_run_has_the_runs_warnings_from_one_resample() {
        use crate::browser::InBrowser;
        let text = table("forget_quality", &[("a", &[0.9, 0.95]), ("b", &[0.1, 0.12])]);
        let req = CompareRequest {
            runs: Some(TextInput::Text { text }),
            ..CompareRequest::default()
        };
        let quick = <Compare as InBrowser>::for_check(req.clone());
        assert_eq!(quick.resamples, 1);
        let checked = <Compare as InBrowser>::prepare(&mut Workspace::new(), quick).unwrap();
        let run = run_compare(&mut Workspace::new(), &req).unwrap();
        assert!(codes(&run).contains(&"few_seeds"));
        assert_eq!(
            serde_json::to_value(&checked).unwrap()["warnings"],
            serde_json::to_value(&run.warnings).unwrap()
        );
    }

    /// One bootstrap per unordered pair: the PoI matrix's cell (b, a) is the mirror (1 − hi, 1 − lo) of the cell
    /// (a, b), and each comparison's interval is its matrix cell's (one task: the same runs), with every pair (up
    /// to POI_INTERVALS_ALL_PAIRS_MAX methods) and against a baseline among more methods. Before, every ordered
    /// cell and every comparison drew resamples of its own.
    #[test]
    fn poi_intervals_are_one_per_pair_mirrored_and_reused() {
        let rows: Vec<(String, Vec<f64>)> = (0..10)
            .map(|m| {
                let v = (0..6)
                    .map(|s| ((m * 7 + s * 13) % 10) as f64 * 0.01 + m as f64 * 0.004)
                    .collect();
                (format!("m{m}"), v)
            })
            .collect();
        let named: Vec<(&str, &[f64])> = rows.iter().map(|(m, v)| (m.as_str(), v.as_slice())).collect();
        for (methods, baseline) in [(3, None), (10, Some("m4"))] {
            let r = run(&table("forget_quality", &named[..methods]), |q| {
                q.baseline = baseline.map(String::from)
            })
            .expect("run");
            let cells = &r.result.metrics[0].probability_of_improvement;
            let at = |a: &str, b: &str| cells.iter().position(|c| c.a == a && c.b == b).expect("cell");
            let cell = |a: &str, b: &str| &cells[at(a, b)];
            let mut mirrored = 0;
            // The cell of each pair that comes first is drawn; the other is its mirror.
            for (_, c) in cells.iter().enumerate().filter(|(k, c)| *k < at(&c.b, &c.a)) {
                let Some(i) = c.interval else { continue };
                let j = cells[at(&c.b, &c.a)]
                    .interval
                    .expect("the mirror cell has an interval too");
                assert_eq!((j.lo, j.hi), (1.0 - i.hi, 1.0 - i.lo), "{} vs {}", c.a, c.b);
                assert!(i.lo < i.hi, "{} vs {}: {i:?}", c.a, c.b);
                mirrored += 1;
            }
            assert_eq!(mirrored, if baseline.is_some() { 9 } else { 3 });
            assert_eq!(r.result.comparisons.len(), if baseline.is_some() { 9 } else { 3 });
            for c in &r.result.comparisons {
                let i = c.poi_interval.expect("comparison interval");
                assert_eq!(Some(i), cell(&c.a, &c.b).interval, "{} vs {}", c.a, c.b);
            }
        }
    }

    #[test]
    fn two_seeds_are_inconclusive_with_the_detectable_difference() {
        let r = run(
            &table("forget_quality", &[("a", &[0.9, 0.95]), ("b", &[0.1, 0.12])]),
            |_| {},
        )
        .expect("run");
        assert!(r.headline.is_inconclusive(), "{:?}", r.headline);
        assert!(
            r.headline
                .text
                .contains("with 2 seeds the smallest detectable difference is"),
            "{}",
            r.headline.text
        );
        assert!(codes(&r).contains(&"few_seeds"));
        let c = &r.result.comparisons[0];
        // The exact test's smallest p at 2 + 2 is 2/6.
        assert!((c.p_value.expect("p") - 1.0 / 3.0).abs() < 1e-12);
        assert!(c.min_detectable_difference.expect("mdd") > 0.0);
    }

    #[test]
    fn a_clear_difference_is_called_with_holm_and_poi() {
        let a: &[f64] = &[0.9, 0.92, 0.95, 0.91, 0.93];
        let b: &[f64] = &[0.1, 0.15, 0.12, 0.11, 0.14];
        let r = run(&table("forget_quality", &[("b", b), ("a", a)]), |_| {}).expect("run");
        assert_eq!(r.headline.call, "difference");
        assert!(
            r.headline
                .text
                .starts_with("a is better than b on forget_quality (Holm-adjusted p 0.007937, P(a > b) = 1)"),
            "{}",
            r.headline.text
        );
        assert!(!codes(&r).contains(&"few_seeds"));
        // Lower is better turns the call around.
        let r = run(&table("loss", &[("b", b), ("a", a)]), |q| {
            q.metrics = vec!["loss:lower".into()]
        })
        .expect("run");
        assert!(
            r.headline.text.starts_with("b is better than a on loss"),
            "{}",
            r.headline.text
        );
    }

    #[test]
    fn no_difference_says_what_the_data_could_have_shown() {
        let a: &[f64] = &[0.50, 0.52, 0.48, 0.51, 0.49, 0.50, 0.53, 0.47, 0.50, 0.51];
        let b: &[f64] = &[0.51, 0.49, 0.50, 0.52, 0.48, 0.50, 0.47, 0.53, 0.49, 0.50];
        let r = run(&table("model_utility", &[("a", a), ("b", b)]), |_| {}).expect("run");
        assert_eq!(r.headline.call, "no_difference", "{:?}", r.headline);
        let c = &r.result.comparisons[0];
        assert_eq!(c.test.as_deref(), Some("permutation (exact)"));
        let mdd = c.min_detectable_difference.expect("mdd");
        assert!(
            r.headline
                .text
                .contains(&format!("a difference of {} or more", num(mdd))),
            "{}",
            r.headline.text
        );
        // The MDD is the statsmodels-checked effect size times the pooled sd.
        let d = core::min_detectable_effect(10.0, 10.0, 0.05, 0.8).expect("d");
        assert!((mdd - d * core::pooled_sd(a, b).expect("sd")).abs() < 1e-12);
    }

    /// Three methods, all pairs: Holm over 3 tests calls a test significant only below 0.05/3 when the others are
    /// null, so the difference the data could show is the one detectable at 0.05/3, larger than at 0.05. Before,
    /// the detectable difference was stated at 0.05 whatever the family, and "no difference … a difference of X or
    /// more would have been found" named a difference the corrected family could not have found 80% of the time.
    #[test]
    fn the_detectable_difference_is_at_the_family_corrected_level() {
        let a: &[f64] = &[0.50, 0.52, 0.48, 0.51, 0.49, 0.50, 0.53, 0.47, 0.50, 0.51];
        let b: &[f64] = &[0.51, 0.49, 0.50, 0.52, 0.48, 0.50, 0.47, 0.53, 0.49, 0.50];
        let c: &[f64] = &[0.50, 0.51, 0.49, 0.50, 0.52, 0.48, 0.50, 0.51, 0.49, 0.50];
        let t = table("model_utility", &[("a", a), ("b", b), ("c", c)]);
        for (corr, level) in [
            ("holm", 0.05 / 3.0),
            ("fdr_bh", 0.05 / 3.0),
            ("bonferroni", 0.05 / 3.0),
            ("fdr_by", 0.05 / (3.0 * (1.0 + 0.5 + 1.0 / 3.0))),
            ("sidak", 1.0 - 0.95f64.powf(1.0 / 3.0)),
        ] {
            let r = run(&t, |q| q.correction = corr.into()).expect("run");
            assert_eq!(r.result.comparisons.len(), 3);
            for cmp in &r.result.comparisons {
                let at = cmp.detectable_at.expect("level");
                assert!((at - level).abs() < 1e-9 * level, "{corr}: {at} vs {level}");
                let (x, y) = match (cmp.a.as_str(), cmp.b.as_str()) {
                    ("a", "b") => (a, b),
                    ("a", "c") => (a, c),
                    _ => (b, c),
                };
                let sp = core::pooled_sd(x, y).expect("sd");
                let want = core::min_detectable_effect(10.0, 10.0, at, 0.8).expect("d") * sp;
                let mdd = cmp.min_detectable_difference.expect("mdd");
                assert!((mdd - want).abs() < 1e-12, "{corr}: {mdd} vs {want}");
                let at_05 = core::min_detectable_effect(10.0, 10.0, 0.05, 0.8).expect("d") * sp;
                assert!(mdd > at_05 * 1.1, "{corr}: {mdd} not above the uncorrected {at_05}");
                if cmp.call == "no_difference" {
                    assert!(
                        cmp.text.contains(&format!("a difference of {} or more", num(mdd))),
                        "{}",
                        cmp.text
                    );
                    assert!(cmp.text.contains(&format!("at the level {}", num(at))), "{}", cmp.text);
                }
            }
        }
        // One test alone: the level itself (the existing statsmodels-checked number).
        let r = run(&table("model_utility", &[("a", a), ("b", b)]), |_| {}).expect("run");
        assert_eq!(r.result.comparisons[0].detectable_at, Some(0.05));
    }

    #[test]
    fn an_unknown_metric_is_refused_with_the_fix() {
        let t = table("score", &[("a", &[1.0, 2.0, 3.0]), ("b", &[1.0, 2.0, 4.0])]);
        let e = run(&t, |_| {}).expect_err("unknown");
        assert_eq!(e.code.as_deref(), Some("unknown_metric_direction"));
        assert!(e.message.contains("`score:higher`"), "{}", e.message);
        run(&t, |q| q.metrics = vec!["score:higher".into()]).expect("with a direction");
        let e = run(&t, |q| q.metrics = vec!["score:sideways".into()]).expect_err("bad direction");
        assert!(e.message.contains("sideways"));
    }

    #[test]
    fn duplicate_runs_are_refused_naming_both_lines() {
        let e = run("method,seed,auc\na,0,0.5\na,1,0.6\na,0,0.7\n", |_| {}).expect_err("dup");
        assert_eq!(e.code.as_deref(), Some("duplicate_run"));
        assert!(
            e.message.contains("line 2") && e.message.contains("line 4"),
            "{}",
            e.message
        );
    }

    #[test]
    fn design_warnings_unequal_seeds_identical_runs_missing_tasks() {
        let t = "method,seed,task,fq\na,0,t1,0.5\na,1,t1,0.5\na,2,t1,0.7\nb,0,t1,0.1\nb,1,t1,0.2\nb,2,t1,0.3\nb,3,t1,0.25\n\
                 a,0,t2,0.4\na,1,t2,0.45\na,2,t2,0.5\n";
        let r = run(t, |_| {}).expect("run");
        let c = codes(&r);
        for want in ["unequal_seeds", "identical_runs", "task_missing_methods"] {
            assert!(c.contains(&want), "{want} in {c:?}");
        }
        let w = r
            .warnings
            .iter()
            .find(|w| w.code == "identical_runs")
            .expect("identical");
        assert!(
            w.message.contains("line 2") && w.message.contains("line 3"),
            "{}",
            w.message
        );
    }

    #[test]
    fn closest_to_a_reference_method_compares_distances() {
        // b sits near the oracle, c far above it: b is better on closeness though c is higher.
        let t = table(
            "m1x",
            &[
                ("oracle", &[0.50, 0.51, 0.49, 0.50, 0.50]),
                ("b", &[0.52, 0.49, 0.51, 0.50, 0.52]),
                ("c", &[0.90, 0.92, 0.95, 0.91, 0.93]),
            ],
        );
        let r = run(&t, |q| q.metrics = vec!["m1x:closest=oracle".into()]).expect("run");
        assert_eq!(r.result.comparisons.len(), 1, "the reference is not compared");
        let c = &r.result.comparisons[0];
        assert_eq!((c.a.as_str(), c.b.as_str()), ("b", "c"));
        assert_eq!(c.call, "better");
        let e = run(&t, |q| q.metrics = vec!["m1x:closest=nobody".into()]).expect_err("unknown reference");
        assert!(e.message.contains("oracle, b, c"));
    }

    #[test]
    fn the_baseline_cannot_be_the_reference_it_is_measured_against() {
        let t = table(
            "m1x",
            &[
                ("oracle", &[0.5, 0.51, 0.49]),
                ("b", &[0.52, 0.49, 0.51]),
                ("c", &[0.9, 0.92, 0.95]),
            ],
        );
        let e = run(&t, |q| {
            q.metrics = vec!["m1x:closest=oracle".into()];
            q.baseline = Some("oracle".into());
        })
        .expect_err("no method left to compare");
        assert!(e.message.contains("both the baseline and the method"), "{}", e.message);
    }

    /// Five methods × 5 seeds, ten pairs: each exact test's smallest p-value 2/252 = 0.0079 becomes at least 0.079
    /// after Holm over 10 tests, so no pair can be decided however far apart, and none is called "no difference";
    /// a pair further apart than the detectable difference is never "no difference" either.
    #[test]
    fn a_family_too_large_for_its_seeds_is_inconclusive_not_no_difference() {
        let m: Vec<(String, Vec<f64>)> = (0..5)
            .map(|k| (format!("m{k}"), (0..5).map(|i| k as f64 + 0.01 * i as f64).collect()))
            .collect();
        let rows: Vec<(&str, &[f64])> = m.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
        let r = run(&table("model_utility", &rows), |_| {}).expect("run");
        assert_eq!(r.result.comparisons.len(), 10);
        for c in &r.result.comparisons {
            assert_eq!(c.call, Headline::INCONCLUSIVE, "{}", c.text);
            assert!(c.text.contains("after Holm over 10 tests"), "{}", c.text);
        }
        assert!(r.headline.is_inconclusive(), "{:?}", r.headline);
        // Against a baseline (4 tests: 4 × 0.0079 = 0.032 < 0.05) the same runs are decided.
        let r = run(&table("model_utility", &rows), |q| q.baseline = Some("m0".into())).expect("run");
        assert!(
            r.result.comparisons.iter().all(|c| c.call == "better"),
            "{:?}",
            r.headline
        );
    }

    /// One pair is no family: its text names no correction "over 1 tests" and no fewer pairs to compare. Two
    /// methods × 3 seeds far apart: the exact test's smallest p-value, 2/20 = 0.1, cannot reach 0.05.
    #[test]
    fn a_single_comparison_names_no_family() {
        let r = run(
            &table("model_utility", &[("a", &[1.0, 1.1, 1.2]), ("b", &[5.0, 5.1, 5.2])]),
            |_| {},
        )
        .expect("run");
        let [c] = r.result.comparisons.as_slice() else {
            panic!("{:?}", r.result.comparisons)
        };
        assert_eq!(c.call, Headline::INCONCLUSIVE, "{}", c.text);
        assert!(
            c.text.contains("the exact test's smallest p-value is 0.1"),
            "{}",
            c.text
        );
        assert!(
            !c.text.contains("over 1 tests") && !c.text.contains("fewer pairs"),
            "{}",
            c.text
        );
    }

    /// Found trying compare on open-unlearning's files (bench/trial_compare): 3 methods × 3 metrics × 5 seeds, every
    /// pair, Holm over 9 tests; the fix read "add seeds or compare fewer pairs" without saying how. It now names the
    /// baseline option (3 methods, none chosen) and fewer metrics (several), and only what would shrink the family.
    #[test]
    fn the_fix_for_a_large_family_says_how_to_shrink_it() {
        let mut t = String::from("method,seed,x,y,z\n");
        for (m, base) in [("a", 1.0), ("b", 2.0), ("c", 3.0)] {
            for s in 0..5 {
                let v = base + 0.01 * s as f64;
                t.push_str(&format!("{m},{s},{v},{v},{v}\n"));
            }
        }
        let metrics =
            |q: &mut CompareRequest| q.metrics = vec!["x:higher".into(), "y:higher".into(), "z:higher".into()];
        let r = run(&t, metrics).expect("run");
        let c = &r.result.comparisons[0];
        assert_eq!(c.call, Headline::INCONCLUSIVE, "{}", c.text);
        let cli = crate::words::cli(&c.text);
        assert!(
            cli.contains(
                "add seeds, or shrink the family: compare each method with one baseline method (--baseline: 2 \
                          pairs per metric instead of 3), or compare fewer metrics than these 3"
            ),
            "{cli}"
        );
        // With a baseline already chosen, only the metrics could be fewer.
        let r = run(&t, |q| {
            metrics(q);
            q.baseline = Some("a".into());
        })
        .expect("run");
        for c in &r.result.comparisons {
            assert!(!c.text.contains("baseline"), "{}", c.text);
        }
        // Two methods on one metric in three tasks: neither would shrink the family; no advice to.
        let mut t = String::from("method,seed,task,x\n");
        for task in ["t1", "t2", "t3"] {
            for (m, base) in [("a", 1.0), ("b", 2.0)] {
                for s in 0..3 {
                    t.push_str(&format!("{m},{s},{task},{}\n", base + 0.01 * s as f64));
                }
            }
        }
        let r = run(&t, |q| q.metrics = vec!["x:higher".into()]).expect("run");
        for c in &r.result.comparisons {
            assert!(
                !c.text.contains("shrink") && !c.text.contains("fewer pairs"),
                "{}",
                c.text
            );
        }
    }

    /// Found trying compare (bench/trial_compare): the headline read "3 comparison(s) with no difference …".
    #[test]
    fn the_headline_counts_comparisons_in_words() {
        let a: Vec<f64> = (0..10).map(|i| 1.0 + 0.013 * ((i * 7) % 10) as f64).collect();
        let b: Vec<f64> = a.iter().map(|x| x + 4.0).collect();
        let c: Vec<f64> = a.iter().map(|x| x + 0.0005).collect();
        let r = run(&table("model_utility", &[("a", &a), ("b", &b), ("c", &c)]), |_| {}).expect("run");
        let calls: Vec<&str> = r.result.comparisons.iter().map(|c| c.call.as_str()).collect();
        assert_eq!(calls.iter().filter(|c| **c == "no_difference").count(), 1, "{calls:?}");
        assert!(
            r.headline
                .text
                .contains("; 1 comparison with no difference the data could show, 0 inconclusive"),
            "{}",
            r.headline.text
        );
        assert!(!r.headline.text.contains("(s)"), "{}", r.headline.text);
    }

    /// Found trying compare on open-unlearning's files (bench/trial_compare): GradAscent's forget quality (a KS
    /// p-value, 1e-16…1e-4 over 5 seeds) had mean 2.7e-5 and t interval [−4.4e-5, 9.9e-5], below 0 for a p-value,
    /// with no word that the raw scale says little. The t intervals of [0, 1] metrics are clipped, and forget
    /// quality spanning orders of magnitude is warned of, with the log10 comparison as the fix.
    #[test]
    fn forget_quality_is_a_p_value_its_intervals_stay_in_0_1_and_its_scale_is_warned_of() {
        let ga = [1e-16, 3e-9, 2e-6, 1e-5, 1.2e-4];
        let npo = [0.01, 0.02, 0.05, 0.03, 0.04];
        let r = run(&table("forget_quality", &[("ga", &ga), ("npo", &npo)]), |_| {}).expect("run");
        let s = &r.result.metrics[0].summaries[0];
        assert_eq!(s.method, "ga");
        let t = s.t_interval.expect("t");
        assert!(t.lo == 0.0 && t.hi > 0.0 && t.hi < 1.0, "{t:?}");
        let w = r.warnings.iter().find(|w| w.code == "p_value_scale").expect("warning");
        assert!(w.message.contains("1e-16…0.05"), "{}", w.message);
        assert!(
            w.fix
                .as_deref()
                .is_some_and(|f| f.contains("log10_forget_quality:higher")),
            "{w:?}"
        );
        // Forget qualities of one order of magnitude: no warning.
        let r = run(
            &table("forget_quality", &[("a", &[0.3, 0.5, 0.9]), ("b", &[0.2, 0.4, 0.6])]),
            |_| {},
        )
        .expect("run");
        assert!(r.warnings.iter().all(|w| w.code != "p_value_scale"), "{:?}", r.warnings);
        // An AUC's interval stays in [0, 1] too; an unbounded metric's is not clipped.
        let r = run(
            &table("mia_auc", &[("a", &[0.99, 0.999, 0.5]), ("b", &[0.5, 0.51, 0.52])]),
            |_| {},
        )
        .expect("run");
        let t = r.result.metrics[0].summaries[0].t_interval.expect("t");
        assert_eq!(t.hi, 1.0, "{t:?}");
        let r = run(
            &table("privleak", &[("a", &[-0.9, 0.0, 0.9]), ("b", &[0.5, 0.51, 0.52])]),
            |_| {},
        )
        .expect("run");
        let t = r.result.metrics[0].summaries[0].t_interval.expect("t");
        assert!(t.lo < -1.0, "{t:?}");
    }

    #[test]
    fn reproduction_reproduces_differs_or_cannot_tell() {
        let t = table(
            "forget_quality",
            &[("npo", &[0.40, 0.41, 0.39, 0.40, 0.42, 0.41, 0.40, 0.39])],
        );
        let r = run(&t, |q| q.published = vec!["npo:forget_quality=0.40".into()]).expect("run");
        assert_eq!(r.headline.call, "reproduces", "{:?}", r.headline);
        let r = run(&t, |q| q.published = vec!["npo:forget_quality=0.30±0.01/5".into()]).expect("run");
        assert_eq!(r.headline.call, "differs", "{:?}", r.headline);
        let r = run(&t, |q| {
            q.published = vec!["npo:forget_quality=0.40".into()];
            q.margin = Some(0.001);
        })
        .expect("run");
        assert!(r.headline.is_inconclusive(), "{:?}", r.headline);
        let e = run(&t, |q| q.published = vec!["npo=0.4".into()]).expect_err("malformed");
        assert!(e.message.contains("METHOD:METRIC=VALUE"));
    }

    /// A single run against the published spread across seeds. Numbers from scipy 1.17.1:
    /// `t.ppf(0.975, 4)` = 2.7764451051977934 (the prediction interval's quantile, 5 published seeds),
    /// `2 * t.sf(0.09 / (0.02 * sqrt(1.2)), 4)` = 0.014757205754675026 (the one run 0.31 against 0.40 ± 0.02 over 5
    /// seeds), `2 * norm.sf(2.5)` = 0.012419330651552265
    /// for the case without n.
    #[test]
    fn a_single_run_against_the_published_spread_across_seeds() {
        let one = |v: f64| table("forget_quality", &[("npo", &[v])]);
        // Far outside the spread: differs, with the prediction interval.
        let r = run(&one(0.31), |q| {
            q.published = vec!["npo:forget_quality=0.40±0.02/5".into()]
        })
        .expect("run");
        assert_eq!(r.headline.call, "differs", "{:?}", r.headline);
        let rp = &r.result.reproductions[0];
        let se = 0.02 * 1.2f64.sqrt();
        let pi = rp.prediction_interval.expect("interval");
        assert!((pi.lo - (0.40 - 2.7764451051977934 * se)).abs() < 1e-12, "{pi:?}");
        assert!((pi.hi - (0.40 + 2.7764451051977934 * se)).abs() < 1e-12, "{pi:?}");
        let p = rp.difference_p.expect("p");
        assert!((p - 0.014_757_205_754_675_026).abs() < 1e-9, "{p}");
        assert!(
            r.headline
                .text
                .contains("the one run, 0.31, differs from the published 0.4 ± 0.02 over 5 seeds")
        );
        // Inside the spread but a margin too narrow for one run: inconclusive, saying so.
        let r = run(&one(0.41), |q| {
            q.published = vec!["npo:forget_quality=0.40±0.02/5".into()]
        })
        .expect("run");
        assert!(r.headline.is_inconclusive(), "{:?}", r.headline);
        assert!(
            r.headline.text.contains("lies within the published spread"),
            "{}",
            r.headline.text
        );
        // A tight spread and a wide margin: the one run reproduces.
        let r = run(&one(0.401), |q| {
            q.published = vec!["npo:forget_quality=0.40±0.002/10".into()];
            q.margin = Some(0.02);
        })
        .expect("run");
        assert_eq!(r.headline.call, "reproduces", "{:?}", r.headline);
        // Without n: the sd taken as known, the normal distribution (2 · norm.sf(2.5) = 0.01241933).
        let r = run(&one(0.45), |q| {
            q.published = vec!["npo:forget_quality=0.40±0.02".into()]
        })
        .expect("run");
        let rp = &r.result.reproductions[0];
        assert!((rp.difference_p.expect("p") - 0.012_419_330_651_552_265).abs() < 1e-12);
        assert_eq!(r.headline.call, "differs");
        // Without an sd, one run says nothing: inconclusive, with the fix.
        let r = run(&one(0.31), |q| q.published = vec!["npo:forget_quality=0.40".into()]).expect("run");
        assert!(r.headline.is_inconclusive());
        assert!(
            r.headline.text.contains("give the published sd across seeds"),
            "{}",
            r.headline.text
        );
        assert!(!serde_json::to_string(&r).expect("json").contains("NaN"));
    }

    #[test]
    fn friedman_across_tasks_and_reports_are_finite() {
        let mut s = String::from("method,seed,task,model_utility\n");
        for (ti, task) in ["t1", "t2", "t3", "t4"].iter().enumerate() {
            for (mi, m) in ["a", "b", "c"].iter().enumerate() {
                for seed in 0..3 {
                    let v = 0.1 * mi as f64 + 0.01 * seed as f64 + 0.001 * ti as f64;
                    s.push_str(&format!("{m},{seed},{task},{v}\n"));
                }
            }
        }
        let r = run(&s, |_| {}).expect("run");
        let f = r.result.metrics[0].friedman.as_ref().expect("friedman");
        assert_eq!(f.mean_ranks, vec![3.0, 2.0, 1.0]);
        let json = serde_json::to_string(&r).expect("json");
        assert!(
            !json.contains("NaN") && !json.contains("inf"),
            "non-finite in the report"
        );
        // One constant method: no sd-based numbers, still a report.
        let r = run(&table("fq", &[("a", &[0.5, 0.5, 0.5]), ("b", &[0.5, 0.5, 0.5])]), |q| {
            q.metrics = vec!["fq:higher".into()];
        })
        .expect("constant");
        assert!(serde_json::to_value(&r).is_ok());
    }

    #[test]
    fn the_page_gets_the_report_and_its_pictures() {
        // compare_output (the page's worker): the report's parts without the envelope's version and command, and
        // beside them the pictures lethe.show draws from the report alone (plots::of_report).
        let mut s = String::from("method,seed,task,model_utility\n");
        for (ti, task) in ["t1", "t2", "t3"].iter().enumerate() {
            for (mi, m) in ["a", "b", "c"].iter().enumerate() {
                for seed in 0..3 {
                    let v = 0.1 * mi as f64 + 0.01 * seed as f64 + 0.001 * ti as f64;
                    s.push_str(&format!("{m},{seed},{task},{v}\n"));
                }
            }
        }
        let req = CompareRequest {
            runs: Some(TextInput::Text { text: s.clone() }),
            resamples: 200,
            ..CompareRequest::default()
        };
        let out = serde_json::to_value(compare_output(&mut Workspace::new(), &req).expect("output")).expect("json");
        let report = serde_json::to_value(run(&s, |q| q.resamples = 200).expect("run")).expect("json");
        for k in ["parameters", "seed", "inputs", "headline", "warnings", "result"] {
            assert_eq!(out[k], report[k], "{k}");
        }
        assert!(out.get("lethe_version").is_none() && out.get("command").is_none());
        assert_eq!(out["comparison"], crate::plots::of_report(&report)["comparison"]);
        let pics = &out["comparison"];
        assert_eq!(
            pics["forest"][0]["rows"].as_array().map(Vec::len),
            Some(3),
            "the pooled rows"
        );
        assert_eq!(pics["poi"][0]["methods"], serde_json::json!(["a", "b", "c"]));
        // c is best on every task: rank 1; a and c are 2 ranks apart.
        assert_eq!(pics["cd"][0]["methods"], serde_json::json!(["c", "b", "a"]));
        assert_eq!(pics["cd"][0]["mean_ranks"], serde_json::json!([1.0, 2.0, 3.0]));
    }
}
