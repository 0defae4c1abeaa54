//! Analyses of open-unlearning / TOFU / MUSE result files (issue 14): forget quality, privleak, and ROUGE-L of the
//! generations a file holds. The files are read by `lethe::tools::{open_unlearning, tofu, muse}` (each reader says
//! which version of the writer it follows); here two files become the numbers the tools report, recomputed with
//! their intervals, and the membership audit and the leakage bounds read the same files through `PATH#KEY`
//! (`lethe mia --members EVAL.json#mia_min_k/forget --non-members EVAL.json#mia_min_k/holdout --lower-is-member`).
//!
//! * Forget quality — open-unlearning's `ks_test` (`src/evals/metrics/privacy.py`): `ks_2samp(forget_tr, retain_tr)
//!   .pvalue` of the unlearned model's `forget_truth_ratio` scores against the retain model's (its TOFU_EVAL.json);
//!   the original TOFU's `aggregate_eval_stat.py` `get_forget_quality` the same test on `exp(mean(
//!   average_perturb_loss) − avg_paraphrased_loss)` of each model's `eval_log_forget.json`. The p-value is
//!   `lethe::ks::ks_2samp`'s (scipy's, checked against it).
//! * privleak — open-unlearning's `privleak` (`privacy.py`): with `a` the MIA metric's AUC (`mia_auc`:
//!   `roc_auc_score` with forget labelled 0, holdout 1, on loss-signed scores), `score = 1 − a_unlearned`, `ref = 1
//!   − a_retain` (or `1 − ref_value`, 0.5 by default, without the retain model's logs), `privleak = (score − ref) /
//!   (ref + 1e-10) · 100`. MUSE's (`eval.py`): `(auc − AUC_RETRAIN) / AUC_RETRAIN · 100` with `auc` the
//!   `forget_holdout_Min-40%` AUC of `metrics/privleak.py` `sweep` (= `1 − a` in open-unlearning's convention).
//!   The interval is the seeded percentile bootstrap of the unlearned model's AUC (`lethe::roc_bootstrap`, classes
//!   resampled separately), mapped through the formula (privleak is affine in that AUC for a fixed reference); the
//!   reference AUC is taken as given, which the report says.
//!
//! The membership AUC these report is open-unlearning's `a`, which is also the audit's: forget samples as members,
//! lower score = member. An AUC far below 0.5 (open-unlearning issue 167: 0.00002, privleak 5215) is an attack that
//! is reliably wrong — the forget samples look *less* like training data than unseen holdout samples — and is
//! reported as such, not as a large leak.

use lethe::Alternative;
use lethe::ks::{Ks2Result, KsMethod, ks_2samp};
use lethe::roc::{self, Interval};
use lethe::roc_bootstrap::{self, Bootstrap};
use lethe::tools::{muse, open_unlearning as ou, tofu};
use serde_json::Value;

use super::*;
use crate::report::{Headline, Report, Warning, num};
use crate::words;

/// The level below which forget quality's KS test calls the models different (open-unlearning and TOFU report
/// the p-value itself; 0.05 is the conventional reading).
pub const FQ_LEVEL: f64 = 0.05;

/// Which writer a result file comes from, as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ResultFormat {
    OpenUnlearning,
    Tofu,
    MuseLog,
    MuseAuc,
}

impl ResultFormat {
    /// The kind of file, in a user's words.
    fn kind(self) -> &'static str {
        match self {
            Self::OpenUnlearning => "an open-unlearning EVAL file",
            Self::Tofu => "a TOFU eval log",
            Self::MuseLog => "a MUSE privleak log.json",
            Self::MuseAuc => "a MUSE auc.json",
        }
    }
}

struct ToolInput {
    value: Value,
    format: ResultFormat,
    record: InputRecord,
}

fn read_source(ws: &mut Workspace, role: &str, input: Option<&InputRef>) -> Result<ToolInput> {
    let input = input.ok_or_else(|| {
        Error::at(
            role,
            format!("`{}` is required: give the result file", crate::words::role(role)),
        )
    })?;
    let (name, data) = {
        let src = ws.source(input.source)?;
        (src.name.clone(), Arc::clone(&src.data))
    };
    let len = data.len();
    if len > lethe::data::DEFAULT_MAX_BYTES {
        return Err(Error::at(
            role,
            format!("`{name}` has {len} bytes, more than a result file this reads whole may have"),
        ));
    }
    let mut bytes = vec![0u8; usize::try_from(len).map_err(|e| Error::at(role, e.to_string()))?];
    data.read_at(0, &mut bytes)
        .map_err(|e| Error::at(role, format!("reading `{name}`: {e}")))?;
    let value = ou::parse_python_json(&bytes).map_err(|e| {
        Error::at(
            role,
            format!("`{name}` is not JSON ({e}); give the EVAL / eval_log / privleak file the tool wrote"),
        )
    })?;
    // The format, and how many samples it holds (the most any metric / statistic has; MUSE: all texts).
    let (format, samples) = if let Some(r) = ou::read(&value) {
        let f = r.map_err(|e| Error::at(role, format!("`{name}`: {e}")))?;
        let n = f
            .metrics
            .iter()
            .map(|m| match &m.shape {
                ou::MetricShape::PerSample { samples, .. } => *samples,
                ou::MetricShape::Mia { forget, holdout, .. } => forget + holdout,
                ou::MetricShape::Aggregate => 0,
            })
            .max()
            .unwrap_or(0);
        (ResultFormat::OpenUnlearning, n)
    } else if let Some(r) = tofu::read(&value) {
        let t = r.map_err(|e| Error::at(role, format!("`{name}`: {e}")))?;
        (ResultFormat::Tofu, t.iter().map(|t| t.2).max().unwrap_or(0))
    } else if muse::scores(&value, "forget", "PPL").is_ok() || muse::scores(&value, "forget", "Min-40%").is_ok() {
        let n = ["forget", "retain", "holdout"]
            .iter()
            .map(|s| value.get(*s).and_then(Value::as_array).map_or(0, Vec::len))
            .sum();
        (ResultFormat::MuseLog, n)
    } else if muse::column_of_value(&value, "forget_holdout_Min-40%").is_some() {
        (ResultFormat::MuseAuc, 0)
    } else {
        return Err(Error::at(
            role,
            format!(
                "`{name}` is not an open-unlearning EVAL file, a TOFU eval log or a MUSE privleak log/auc.json; \
                 {} on it says what it is",
                words::cmd("inspect")
            ),
        ));
    };
    let sha256 = ws.sha256(input.source, |_, _| {})?;
    let record = InputRecord {
        role: role.to_string(),
        spec: name.clone(),
        path: name,
        sha256,
        format: "json".into(),
        dtype: "float64".into(),
        shape: vec![samples as u64],
        tensor: input.tensor.clone(),
        rows_used: samples,
        row_file: None,
    };
    Ok(ToolInput { value, format, record })
}

fn no_nan(role: &str, file: &str, what: &str, v: &[f64]) -> Result<()> {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return Err(Error::at(
            role,
            format!(
                "`{file}`: {what} of the sample at position {i} (in index order) is missing or NaN; the writer could \
                 not score it. Drop that sample from both files or re-run the evaluation"
            ),
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------------
// Forget quality

/// `lethe forget-quality`'s options. With the `clap` feature (the CLI's), the options are the subcommand's
/// arguments: each is declared here once.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct ForgetQualityRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub unlearned: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub retain: Option<InputRef>,
    /// open-unlearning's truth-ratio metric to compare
    // The request's default (none given) is the same metric.
    #[cfg_attr(feature = "clap", arg(long, default_value = "forget_truth_ratio"))]
    pub metric: Option<String>,
    /// The KS p-value: auto (exact up to 10000 values per sample), exact or asymp (scipy's ks_2samp methods)
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["auto", "exact", "asymp"], default_value = "auto"))]
    pub method: String,
    /// The alternative hypothesis (scipy's ks_2samp): two-sided, less or greater
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["two-sided", "less", "greater"], default_value = "two-sided"))]
    pub alternative: String,
}

impl Default for ForgetQualityRequest {
    fn default() -> Self {
        Self {
            unlearned: None,
            retain: None,
            metric: None,
            method: "auto".into(),
            alternative: "two-sided".into(),
        }
    }
}

/// Forget quality's parameters as reports record them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ForgetQualityParameters {
    pub unlearned: String,
    pub retain: String,
    pub metric: String,
    pub method: KsMethod,
    pub alternative: Alternative,
}

/// Forget quality's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ForgetQualityResult {
    /// The writer of the two files (`open-unlearning` or `tofu`).
    pub format: ResultFormat,
    /// The KS test; `forget_quality` is its p-value.
    #[serde(serialize_with = "lethe::json::f64")]
    pub forget_quality: f64,
    pub ks: Ks2Result,
    pub n_unlearned: usize,
    pub n_retain: usize,
    /// The forget quality the unlearned file states (open-unlearning's `forget_quality.agg_value`), if any.
    #[serde(serialize_with = "lethe::json::opt_f64")]
    pub stated: Option<f64>,
}

/// Forget quality of an unlearned model against the retain model, from their result files.
///
/// # Errors
/// Files that are not both open-unlearning EVAL files or both TOFU forget logs, missing truth ratios, NaN.
pub fn run_forget_quality(
    ws: &mut Workspace,
    req: &ForgetQualityRequest,
) -> Result<Report<ForgetQualityParameters, ForgetQualityResult>> {
    let method: KsMethod = req.method.parse().map_err(Error::from)?;
    let alternative: Alternative = req.alternative.parse().map_err(Error::from)?;
    let u = read_source(ws, "unlearned", req.unlearned.as_ref())?;
    let r = read_source(ws, "retain", req.retain.as_ref())?;
    if u.format != r.format {
        return Err(Error::at(
            "retain",
            format!(
                "`{}` is {} but `{}` {}; forget quality compares two files of one kind (both open-unlearning \
                 TOFU_EVAL.json, or both TOFU eval_log_forget.json)",
                u.record.path,
                u.format.kind(),
                r.record.path,
                r.format.kind()
            ),
        ));
    }
    let metric = req.metric.clone().unwrap_or_else(|| "forget_truth_ratio".into());
    let truth = |t: &ToolInput, role: &str| -> Result<Vec<f64>> {
        let v = match t.format {
            ResultFormat::OpenUnlearning => ou::truth_ratios(&t.value, Some(&metric)),
            ResultFormat::Tofu => tofu::truth_ratios(&t.value),
            _ => Err(
                "a MUSE file holds no truth ratios; forget quality is TOFU's (open-unlearning's TOFU_EVAL.json, \
                      or TOFU's eval_log_forget.json)"
                    .into(),
            ),
        }
        .map_err(|e| Error::at(role, format!("`{}`: {e}", t.record.path)))?;
        no_nan(role, &t.record.path, "the truth ratio", &v)?;
        Ok(v)
    };
    let tu = truth(&u, "unlearned")?;
    let tr = truth(&r, "retain")?;
    let ks = ks_2samp(&tu, &tr, alternative, method).map_err(|e| Error::msg(e.to_string()))?;
    let mut warnings = Vec::new();
    if ks.fell_back {
        warnings.push(Warning::new(
            "ks_exact_fell_back",
            None,
            "the exact KS p-value could not be computed for these sample sizes; the asymptotic one is reported (as \
             scipy does)",
            None,
        ));
    }
    if tu.len() != tr.len() {
        warnings.push(Warning::new(
            "unequal_sample_sizes",
            Some("retain"),
            format!(
                "the unlearned file has {} truth ratios and the retain file {}; the two evaluations usually cover the \
                 same forget split",
                tu.len(),
                tr.len()
            ),
            Some("check that both evaluations used the same forget split".into()),
        ));
    }
    let stated = (u.format == ResultFormat::OpenUnlearning)
        .then(|| ou::agg_value(&u.value, "forget_quality"))
        .flatten();
    if let Some(s) = stated
        && (s - ks.pvalue).abs() > 1e-12 * s.abs().max(1e-300)
    {
        warnings.push(Warning::new(
            "stated_forget_quality_differs",
            Some("unlearned"),
            format!(
                "the unlearned file states forget quality {}, Lethe computes {} from these two files; the file's was \
                 computed against another retain model's logs (retain_logs_path)",
                num(s),
                num(ks.pvalue)
            ),
            None,
        ));
    }
    // The smallest p-value these sizes allow: completely separated samples.
    let sep_u: Vec<f64> = (0..tu.len()).map(|i| i as f64).collect();
    let sep_r: Vec<f64> = (0..tr.len()).map(|i| (i + tu.len()) as f64).collect();
    let p_min = ks_2samp(&sep_u, &sep_r, alternative, method).map_or(0.0, |k| k.pvalue);
    let headline = if p_min >= FQ_LEVEL {
        Headline::inconclusive(
            "Inconclusive: too few truth ratios for the KS test to show a difference",
            format!(
                "with {} and {} truth ratios the smallest p-value the test can give is {}, not below {FQ_LEVEL}",
                tu.len(),
                tr.len(),
                num(p_min)
            ),
        )
    } else if ks.pvalue < FQ_LEVEL {
        Headline::new(
            "differs_from_retain",
            format!(
                "Forget quality {}: the unlearned model's truth ratios differ from the retain model's (KS D = {}, p \
                 below {FQ_LEVEL}); on this test the model has not forgotten like a model never trained on the \
                 forget set",
                num(ks.pvalue),
                num(ks.statistic)
            ),
        )
    } else {
        Headline::new(
            "no_evidence_of_difference",
            format!(
                "Forget quality {}: no evidence that the unlearned model's truth ratios differ from the retain \
                 model's (KS D = {}, p not below {FQ_LEVEL}); this does not show that they are the same",
                num(ks.pvalue),
                num(ks.statistic)
            ),
        )
    };
    let parameters = ForgetQualityParameters {
        unlearned: u.record.spec.clone(),
        retain: r.record.spec.clone(),
        metric: if u.format == ResultFormat::Tofu {
            "truth ratio (TOFU's aggregate_eval_stat.py)".into()
        } else {
            metric
        },
        method,
        alternative,
    };
    let result = ForgetQualityResult {
        format: u.format,
        forget_quality: ks.pvalue,
        n_unlearned: tu.len(),
        n_retain: tr.len(),
        ks,
        stated,
    };
    Ok(Report::new(
        "forget-quality",
        parameters,
        None,
        vec![u.record, r.record],
        headline,
        warnings,
        result,
    ))
}

// ---------------------------------------------------------------------------------------------------------------
// privleak

/// `lethe privleak`'s options. With the `clap` feature (the CLI's), the options are the subcommand's arguments:
/// each is declared here once.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct PrivleakRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub unlearned: Option<InputRef>,
    /// The retain model's file (open-unlearning EVAL, MUSE log.json or auc.json): its AUC is the reference.
    #[cfg_attr(feature = "clap", arg(skip))]
    pub retain: Option<InputRef>,
    /// open-unlearning: the MIA metric (default mia_min_k); MUSE: the score type (default Min-40%)
    // open-unlearning's default is its privleak config's.
    #[cfg_attr(feature = "clap", arg(long))]
    pub metric: Option<String>,
    /// The reference AUC in the file's own convention, instead of --retain
    // open-unlearning's `ref_value`, 0.5 by default; MUSE: `AUC_RETRAIN`.
    #[cfg_attr(feature = "clap", arg(long, conflicts_with = "retain"))]
    pub ref_auc: Option<f64>,
    /// MUSE's corpus for its constant retrained AUC (constants.py), instead of --retain
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["news", "books"], conflicts_with_all = ["retain", "ref_auc"]))]
    pub corpus: Option<String>,
    /// Bootstrap resamples of the unlearned model's AUC
    #[cfg_attr(feature = "clap", arg(long, default_value_t = PrivleakRequest::default().resamples))]
    pub resamples: usize,
    /// Seed of the bootstrap's resamples
    #[cfg_attr(feature = "clap", arg(long, default_value_t = PrivleakRequest::default().seed))]
    pub seed: u64,
    /// 1 − the level of the interval (0.05: 95%)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = PrivleakRequest::default().alpha))]
    pub alpha: f64,
}

impl Default for PrivleakRequest {
    fn default() -> Self {
        Self {
            unlearned: None,
            retain: None,
            metric: None,
            ref_auc: None,
            corpus: None,
            resamples: 1000,
            seed: 0,
            alpha: 0.05,
        }
    }
}

/// privleak's parameters as reports record them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PrivleakParameters {
    pub unlearned: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retain: Option<String>,
    pub metric: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ref_auc: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corpus: Option<String>,
    pub resamples: usize,
    pub alpha: f64,
}

/// privleak's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PrivleakResult {
    /// `open-unlearning` (its `privleak`) or `muse` (MUSE's eval.py).
    pub formula: &'static str,
    #[serde(serialize_with = "lethe::json::f64")]
    pub privleak: f64,
    /// The bootstrap interval of privleak (from the unlearned model's AUC's; the reference held fixed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// The unlearned model's membership AUC on forget (members) vs holdout, lower score = member: open-unlearning's
    /// `auc`, and 1 − MUSE's `forget_holdout` AUC.
    #[serde(serialize_with = "lethe::json::f64")]
    pub auc_unlearned: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auc_interval: Option<Interval>,
    /// The reference model's AUC in the same convention, and where it came from.
    #[serde(serialize_with = "lethe::json::f64")]
    pub auc_reference: f64,
    pub reference: String,
    /// The AUC the unlearned file states, in the same convention (open-unlearning's `auc`), if any.
    #[serde(serialize_with = "lethe::json::opt_f64")]
    pub auc_stated: Option<f64>,
    /// The attack is reliably wrong on the unlearned model: its AUC interval lies below 0.5.
    pub flipped: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bootstrap: Option<Bootstrap>,
    pub n_forget: usize,
    pub n_holdout: usize,
}

/// The forget / holdout scores (loss-signed) and the stated AUC (open-unlearning's convention) of a file, or just
/// an AUC (MUSE auc.json).
enum Auc {
    Scores(Vec<f64>, Vec<f64>, Option<f64>),
    Value(f64),
}

fn auc_of(t: &ToolInput, role: &str, metric: &str) -> Result<Auc> {
    let at = |e: String| Error::at(role, format!("`{}`: {e}", t.record.path));
    match t.format {
        ResultFormat::OpenUnlearning => {
            let (f, h, a) = ou::mia_scores(&t.value, metric).map_err(at)?;
            Ok(Auc::Scores(f, h, a))
        }
        ResultFormat::MuseLog => {
            let f = muse::scores(&t.value, "forget", metric).map_err(at)?;
            let h = muse::scores(&t.value, "holdout", metric).map_err(at)?;
            Ok(Auc::Scores(f, h, None))
        }
        ResultFormat::MuseAuc => muse::auc(&t.value, &format!("forget_holdout_{metric}"))
            .map(|a| Auc::Value(1.0 - a))
            .ok_or_else(|| at(format!("it has no AUC `forget_holdout_{metric}`"))),
        ResultFormat::Tofu => Err(at(
            "a TOFU eval log holds no membership scores; privleak needs open-unlearning's MIA metric or MUSE's privleak \
             log"
            .into(),
        )),
    }
}

fn ou_roc(forget: &[f64], holdout: &[f64]) -> Result<lethe::roc::Roc> {
    // open-unlearning's auc = P(holdout score > forget score): holdout as the positive class of loss-signed scores.
    roc::roc(holdout, forget).map_err(|e| Error::msg(e.to_string()))
}

/// privleak of an unlearned model's result file against a reference (the retain model's file, a given AUC, or the
/// tools' defaults), with a bootstrap interval.
///
/// # Errors
/// Files that hold no membership scores, NaN scores, bad options.
pub fn run_privleak(ws: &mut Workspace, req: &PrivleakRequest) -> Result<Report<PrivleakParameters, PrivleakResult>> {
    if !(req.alpha > 0.0 && req.alpha < 1.0) {
        return Err(Error::at("alpha", format!("alpha {} is not between 0 and 1", req.alpha)).usage());
    }
    // One reference: the retain model's file, a reference AUC, or MUSE's corpus (the CLI's arguments conflict).
    let given = [req.retain.is_some(), req.ref_auc.is_some(), req.corpus.is_some()];
    if given.iter().filter(|g| **g).count() > 1 {
        return Err(Error::at(
            "retain",
            "give one reference: the retain model's file, the reference AUC, or MUSE's corpus, not several",
        )
        .usage());
    }
    if let Some(c) = req.corpus.as_deref()
        && !matches!(c, "news" | "books")
    {
        return Err(Error::at("corpus", format!("the corpus `{c}` is not one of MUSE's: news, books")).usage());
    }
    let u = read_source(ws, "unlearned", req.unlearned.as_ref())?;
    let muse = matches!(u.format, ResultFormat::MuseLog | ResultFormat::MuseAuc);
    let metric = req
        .metric
        .clone()
        .unwrap_or_else(|| if muse { "Min-40%".into() } else { "mia_min_k".into() });
    let mut warnings = Vec::new();
    let (auc_u, n_forget, n_holdout, auc_stated, boot) = match auc_of(&u, "unlearned", &metric)? {
        Auc::Value(a) => {
            warnings.push(Warning::new(
                "no_interval",
                Some("unlearned"),
                "an auc.json holds the AUC only, so there is no interval; give the privleak log.json for one",
                None,
            ));
            (a, 0, 0, None, None)
        }
        Auc::Scores(f, h, stated) => {
            no_nan("unlearned", &u.record.path, "the forget score", &f)?;
            no_nan("unlearned", &u.record.path, "the holdout score", &h)?;
            let r = ou_roc(&f, &h)?;
            let a = roc::summary(&r).auc;
            let b = roc_bootstrap::bootstrap(&r, req.resamples, req.seed, req.alpha, 1, &mut |_, _| true)
                .map_err(|e| Error::at("resamples", e.to_string()))?;
            (a, f.len(), h.len(), stated, Some(b))
        }
    };
    let (auc_r, reference) = if let Some(rr) = req.retain.as_ref() {
        let r = read_source(ws, "retain", Some(rr))?;
        let a = match auc_of(&r, "retain", &metric)? {
            Auc::Value(a) => a,
            Auc::Scores(f, h, stated) => match stated {
                Some(s) => s,
                None => roc::summary(&ou_roc(&f, &h)?).auc,
            },
        };
        (a, format!("the retain model's file `{}`", r.record.path))
    } else if let Some(a) = req.ref_auc {
        if muse {
            (1.0 - a, format!("the given reference AUC {a} (MUSE's convention)"))
        } else {
            (a, format!("the given reference AUC {a}"))
        }
    } else if muse {
        match req.corpus.as_deref() {
            Some("news") => (
                1.0 - muse::AUC_RETRAIN_NEWS,
                "MUSE's AUC_RETRAIN for news (constants.py)".into(),
            ),
            Some("books") => (
                1.0 - muse::AUC_RETRAIN_BOOKS,
                "MUSE's AUC_RETRAIN for books (constants.py)".into(),
            ),
            _ => {
                return Err(Error::at(
                    "retain",
                    "MUSE's privleak compares with the retrained model's AUC: give the retrained model's log.json or \
                     auc.json, the corpus (news or books) for MUSE's constants, or the reference AUC",
                )
                .usage());
            }
        }
    } else {
        warnings.push(Warning::new(
            "default_reference",
            Some("retain"),
            "no retain model's file was given, so the reference AUC is open-unlearning's default ref_value 0.5 (as its \
             privleak does without retain_logs_path)",
            Some("give the retain model's EVAL file for the reference open-unlearning would use".into()),
        ));
        (0.5, "open-unlearning's default ref_value 0.5".into())
    };
    // open-unlearning: score = 1 − auc, ref = 1 − ref_auc, (score − ref) / (ref + 1e-10) · 100; MUSE without the
    // 1e-10.
    let eps = if muse { 0.0 } else { 1e-10 };
    let leak = |a: f64| ((1.0 - a) - (1.0 - auc_r)) / ((1.0 - auc_r) + eps) * 100.0;
    let privleak = leak(auc_u);
    let auc_interval = boot.as_ref().and_then(|b| b.interval);
    let interval = auc_interval.map(|i| Interval {
        lo: leak(i.hi),
        hi: leak(i.lo),
    });
    if boot.is_some() {
        warnings.push(Warning::new(
            "reference_fixed",
            Some("retain"),
            "the interval resamples the unlearned model's forget and holdout scores; the reference AUC is taken as \
             given",
            None,
        ));
    }
    if let Some(s) = auc_stated
        && (s - auc_u).abs() > 1e-9
    {
        warnings.push(Warning::new(
            "stated_auc_differs",
            Some("unlearned"),
            format!(
                "the file states AUC {} but its scores give {}; the scores were edited or come from another run",
                num(s),
                num(auc_u)
            ),
            None,
        ));
    }
    let flipped = auc_interval.map_or(auc_u < 0.5, |i| i.hi < 0.5);
    let ref_den = 1.0 - auc_r;
    let iv = |i: &Option<Interval>| {
        i.map_or(String::new(), |i| {
            format!(
                ", {}% interval [{}, {}]",
                num((1.0 - req.alpha) * 100.0),
                num(i.lo),
                num(i.hi)
            )
        })
    };
    let headline = if n_forget > 0 && (n_forget < 2 || n_holdout < 2) {
        Headline::inconclusive(
            "Inconclusive: too few forget or holdout scores",
            format!("{n_forget} forget and {n_holdout} holdout scores cannot show a difference"),
        )
    } else if flipped {
        Headline::new(
            "attack_reliably_wrong",
            format!(
                "The membership attack is reliably wrong on the unlearned model (AUC {}{}): its forget samples look \
                 less like training data than unseen holdout samples, so the forgetting itself is detectable \
                 (over-unlearning). privleak = {} reads this as a large value because it divides by the reference's \
                 1 − AUC = {}",
                num(auc_u),
                iv(&auc_interval),
                num(privleak),
                num(ref_den)
            ),
        )
    } else if interval.is_some_and(|i| i.lo <= 0.0 && i.hi >= 0.0) {
        Headline::new(
            "close_to_reference",
            format!(
                "privleak {}{}: the interval includes 0, so the forget set's membership signal is not distinguishable \
                 from the reference's (AUC {} vs {})",
                num(privleak),
                iv(&interval),
                num(auc_u),
                num(auc_r)
            ),
        )
    } else if privleak < 0.0 {
        Headline::new(
            "forget_set_leaks",
            format!(
                "privleak {}{}: the forget set still looks more like training data than the reference model shows \
                 (AUC {} vs {})",
                num(privleak),
                iv(&interval),
                num(auc_u),
                num(auc_r)
            ),
        )
    } else {
        Headline::new(
            "over_unlearned",
            format!(
                "privleak {}{}: the forget set looks less like training data than on the reference model (AUC {} vs \
                 {}): over-unlearning",
                num(privleak),
                iv(&interval),
                num(auc_u),
                num(auc_r)
            ),
        )
    };
    let parameters = PrivleakParameters {
        unlearned: u.record.spec.clone(),
        retain: None,
        metric,
        ref_auc: req.ref_auc,
        corpus: req.corpus.clone(),
        resamples: req.resamples,
        alpha: req.alpha,
    };
    let mut inputs = vec![u.record];
    let mut parameters = parameters;
    if let Some(rr) = req.retain.as_ref() {
        let r = read_source(ws, "retain", Some(rr))?;
        parameters.retain = Some(r.record.spec.clone());
        inputs.push(r.record);
    }
    let result = PrivleakResult {
        formula: if muse { "muse" } else { "open-unlearning" },
        privleak,
        interval,
        auc_unlearned: auc_u,
        auc_interval,
        auc_reference: auc_r,
        reference,
        auc_stated,
        flipped,
        bootstrap: boot,
        n_forget,
        n_holdout,
    };
    Ok(Report::new(
        "privleak",
        parameters,
        Some(req.seed),
        inputs,
        headline,
        warnings,
        result,
    ))
}

// ---------------------------------------------------------------------------------------------------------------
// ROUGE-L of a file's generations

/// `lethe tool-rouge`'s options. With the `clap` feature (the CLI's), the options are the subcommand's arguments:
/// each is declared here once.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct ToolRougeRequest {
    /// The file, with `#METRIC` naming open-unlearning's ROUGE metric (default `forget_Q_A_ROUGE`; for TOFU logs
    /// `#TASK` of an aggregated file).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub file: Option<InputRef>,
    /// Score without Porter stemming (open-unlearning and TOFU stem)
    // The request's `stemmer` (open-unlearning and TOFU score with `use_stemmer=True`); the flag turns it off.
    #[cfg_attr(feature = "clap", arg(long = "no-stemmer", action = clap::ArgAction::SetFalse))]
    pub stemmer: bool,
}

impl Default for ToolRougeRequest {
    fn default() -> Self {
        Self {
            file: None,
            stemmer: true,
        }
    }
}

/// ROUGE-L's parameters as reports record them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolRougeParameters {
    pub file: String,
    pub metric: String,
    pub stemmer: bool,
}

/// ROUGE-L of each generation against its ground truth, and the largest gap to the values the file states.
#[derive(Clone, Debug, Serialize)]
pub struct ToolRougeResult {
    pub rouge: lethe::rouge::RougeBatch,
    #[serde(serialize_with = "lethe::json::f64")]
    pub mean_fmeasure: f64,
    #[serde(serialize_with = "lethe::json::f64")]
    pub mean_recall: f64,
    /// Largest |Lethe − file| over the samples, for the file's `rougeL_recall` and (open-unlearning) `rougeL_f1`.
    #[serde(serialize_with = "lethe::json::opt_f64")]
    pub max_gap_recall: Option<f64>,
    #[serde(serialize_with = "lethe::json::opt_f64")]
    pub max_gap_f1: Option<f64>,
    /// Samples the writer could not score (no generation), left out.
    pub skipped: usize,
}

/// ROUGE-L of the generations an open-unlearning ROUGE metric or a TOFU log holds, against their ground truths.
///
/// # Errors
/// No generations in the file.
pub fn run_tool_rouge(
    ws: &mut Workspace,
    req: &ToolRougeRequest,
) -> Result<Report<ToolRougeParameters, ToolRougeResult>> {
    let t = read_source(ws, "file", req.file.as_ref())?;
    let key = req.file.as_ref().and_then(|f| f.tensor.clone());
    let at = |e: String| Error::at("file", format!("`{}`: {e}", t.record.path));
    let (metric, pairs, stated_recall, stated_f1) = match t.format {
        ResultFormat::OpenUnlearning => {
            let metric = key.unwrap_or_else(|| "forget_Q_A_ROUGE".into());
            let g = ou::texts(&t.value, &metric, "generation").map_err(at)?;
            let r = ou::texts(&t.value, &metric, "ground_truth").map_err(at)?;
            let rec = ou::field(&t.value, &metric, "rougeL_recall")
                .ok()
                .map(|m| m.as_slice().to_vec());
            let f1 = ou::field(&t.value, &metric, "rougeL_f1")
                .ok()
                .map(|m| m.as_slice().to_vec());
            let pairs: Vec<Option<(String, String)>> = g.into_iter().zip(r).map(|(a, b)| a.zip(b)).collect();
            (metric, pairs, rec, f1)
        }
        ResultFormat::Tofu => {
            let task = key.clone();
            let pairs = tofu::generations(&t.value, task.as_deref()).map_err(at)?;
            let rec = tofu::stat(&t.value, task.as_deref(), "rougeL_recall")
                .ok()
                .map(|m| m.as_slice().to_vec());
            (
                task.unwrap_or_else(|| "generated_text".into()),
                pairs.into_iter().map(Some).collect(),
                rec,
                None,
            )
        }
        _ => return Err(at("a MUSE privleak file holds no generations".into())),
    };
    let mut batch = lethe::rouge::RougeBatch::default();
    let (mut gap_r, mut gap_f) = (None::<f64>, None::<f64>);
    let mut skipped = 0;
    for (i, p) in pairs.iter().enumerate() {
        let Some((generation, truth)) = p else {
            skipped += 1;
            continue;
        };
        let s = lethe::rouge::rouge_l(truth, generation, req.stemmer);
        batch.precision.push(s.precision);
        batch.recall.push(s.recall);
        batch.fmeasure.push(s.fmeasure);
        if let Some(x) = stated_recall.as_ref().and_then(|v| v.get(i)).filter(|x| !x.is_nan()) {
            gap_r = Some(gap_r.unwrap_or(0.0).max((x - s.recall).abs()));
        }
        if let Some(x) = stated_f1.as_ref().and_then(|v| v.get(i)).filter(|x| !x.is_nan()) {
            gap_f = Some(gap_f.unwrap_or(0.0).max((x - s.fmeasure).abs()));
        }
    }
    let n = batch.fmeasure.len();
    if n == 0 {
        return Err(at("no sample has a generation and a ground truth".into()));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mf, mr) = (mean(&batch.fmeasure), mean(&batch.recall));
    let mut warnings = Vec::new();
    if gap_r.is_some_and(|g| g > 1e-12) || gap_f.is_some_and(|g| g > 1e-12) {
        warnings.push(Warning::new(
            "rouge_differs_from_file",
            Some("file"),
            format!(
                "Lethe's ROUGE-L differs from the file's by up to {} (recall) / {} (F1); the writer scored with \
                 rouge-score{}",
                num(gap_r.unwrap_or(0.0)),
                num(gap_f.unwrap_or(0.0)),
                if req.stemmer {
                    " and stemming, as here"
                } else {
                    " with stemming: add the stemmer"
                }
            ),
            None,
        ));
    }
    let headline = Headline::new(
        "rouge_l",
        format!(
            "ROUGE-L of {n} generations against their ground truth: mean recall {}, mean F-measure {}{}",
            num(mr),
            num(mf),
            gap_r.map_or(String::new(), |g| format!(
                " (largest gap to the file's recall {})",
                num(g)
            ))
        ),
    );
    let parameters = ToolRougeParameters {
        file: t.record.spec.clone(),
        metric,
        stemmer: req.stemmer,
    };
    let result = ToolRougeResult {
        rouge: batch,
        mean_fmeasure: mf,
        mean_recall: mr,
        max_gap_recall: gap_r,
        max_gap_f1: gap_f,
        skipped,
    };
    Ok(Report::new(
        "tool-rouge",
        parameters,
        None,
        vec![t.record],
        headline,
        warnings,
        result,
    ))
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entries. Tool files (open-unlearning / TOFU / MUSE) are inputs `PATH[#KEY]`

/// `lethe forget-quality` in the registry ([`crate::registry`]).
pub struct ForgetQuality;

/// `lethe privleak` in the registry ([`crate::registry`]).
pub struct Privleak;

/// `lethe tool-rouge` in the registry ([`crate::registry`]).
pub struct ToolRouge;

in_browser_at_once!(ForgetQuality, "forget-quality", ForgetQualityRequest => Report<ForgetQualityParameters, ForgetQualityResult>, run_forget_quality);
in_browser_at_once!(Privleak, "privleak", PrivleakRequest => Report<PrivleakParameters, PrivleakResult>, run_privleak);
in_browser_at_once!(ToolRouge, "tool-rouge", ToolRougeRequest => Report<ToolRougeParameters, ToolRougeResult>, run_tool_rouge);

registered! {
impl crate::registry::Analysis for ForgetQuality {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = ForgetQualityRequest;
    const ROLES: Roles = Roles::inputs(&["unlearned", "retain"]);
    fn run(ws: &mut Workspace, req: &ForgetQualityRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_forget_quality(ws, req)?)
    }
}

impl crate::registry::Analysis for Privleak {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = PrivleakRequest;
    const ROLES: Roles = Roles::inputs(&["unlearned", "retain"]);
    fn run(ws: &mut Workspace, req: &PrivleakRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_privleak(ws, req)?)
    }
}

impl crate::registry::Analysis for ToolRouge {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = ToolRougeRequest;
    const ROLES: Roles = Roles::inputs(&["file"]);
    fn run(ws: &mut Workspace, req: &ToolRougeRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_tool_rouge(ws, req)?)
    }
}

}
