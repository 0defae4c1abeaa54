//! `lethe forget-quality`, `lethe privleak`, `lethe tool-rouge`: open-unlearning / TOFU / MUSE result files →
//! the analysis layer's requests (`lethe_analysis::analyses::{ForgetQualityRequest, PrivleakRequest,
//! ToolRougeRequest}`), which read, check and compute; this module prints the report.

use std::ffi::OsString;

use lethe_analysis::Workspace;
use lethe_analysis::analyses::{self as layer, ForgetQualityRequest, PrivleakRequest, ToolRougeRequest};

use super::*;
use crate::report::{emit_report, layer_error};

#[derive(Args)]
pub struct ForgetQualityArgs {
    /// The unlearned model's results: open-unlearning's TOFU_EVAL.json, or TOFU's eval_log_forget.json (or its
    /// eval_log_aggregated.json)
    #[arg(long)]
    unlearned: OsString,
    /// The retain model's results, of the same kind
    #[arg(long)]
    retain: OsString,
    /// open-unlearning's truth-ratio metric to compare
    #[arg(long, default_value = "forget_truth_ratio")]
    metric: String,
    /// The KS p-value: auto (exact up to 10000 values per sample), exact or asymp (scipy's ks_2samp methods)
    #[arg(long, value_parser = ["auto", "exact", "asymp"], default_value = "auto")]
    method: String,
    /// The alternative hypothesis (scipy's ks_2samp): two-sided, less or greater
    #[arg(long, value_parser = ["two-sided", "less", "greater"], default_value = "two-sided")]
    alternative: String,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct PrivleakArgs {
    /// The unlearned model's results: open-unlearning's EVAL file (an MIA metric), or MUSE's privleak log.json /
    /// auc.json
    #[arg(long)]
    unlearned: OsString,
    /// The retain (retrained) model's results of the same kind: its AUC is the reference
    #[arg(long)]
    retain: Option<OsString>,
    /// open-unlearning: the MIA metric (default mia_min_k); MUSE: the score type (default Min-40%)
    #[arg(long)]
    metric: Option<String>,
    /// The reference AUC in the file's own convention, instead of --retain
    #[arg(long, conflicts_with = "retain")]
    ref_auc: Option<f64>,
    /// MUSE's corpus for its constant retrained AUC (constants.py), instead of --retain
    #[arg(long, value_parser = ["news", "books"], conflicts_with_all = ["retain", "ref_auc"])]
    corpus: Option<String>,
    /// Bootstrap resamples of the unlearned model's AUC
    #[arg(long, default_value_t = PrivleakRequest::default().resamples)]
    resamples: usize,
    /// Seed of the bootstrap's resamples
    #[arg(long, default_value_t = PrivleakRequest::default().seed)]
    seed: u64,
    /// 1 − the level of the interval (0.05: 95%)
    #[arg(long, default_value_t = PrivleakRequest::default().alpha)]
    alpha: f64,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct ToolRougeArgs {
    /// The file with generations, PATH[#METRIC]: open-unlearning's EVAL file (#METRIC: a ROUGE metric, default
    /// forget_Q_A_ROUGE) or a TOFU eval log (#TASK of an aggregated log)
    file: OsString,
    /// Score without Porter stemming (open-unlearning and TOFU stem)
    #[arg(long)]
    no_stemmer: bool,
    #[command(flatten)]
    out: Out,
}

fn workspace() -> Workspace {
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    ws
}

fn error(files: &[(&'static str, String)], e: lethe_analysis::Error) -> CliError {
    let f: Vec<(&str, &str)> = files.iter().map(|(r, p)| (*r, p.as_str())).collect();
    layer_error(e, &f)
}

fn shown(role: &'static str, a: &OsString) -> (&'static str, String) {
    (role, a.to_string_lossy().into_owned())
}

pub(super) fn forget_quality_cmd(a: ForgetQualityArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let files = vec![shown("unlearned", &a.unlearned), shown("retain", &a.retain)];
    let unlearned = Some(
        ws.input_arg_os("unlearned", &a.unlearned)
            .map_err(|e| error(&files, e))?,
    );
    let retain = Some(ws.input_arg_os("retain", &a.retain).map_err(|e| error(&files, e))?);
    let req = ForgetQualityRequest {
        unlearned,
        retain,
        metric: Some(a.metric),
        method: a.method,
        alternative: a.alternative,
    };
    let report = layer::run_forget_quality(&mut ws, &req).map_err(|e| error(&files, e))?;
    emit_report(&report, a.out.json, |r| {
        format!(
            "forget quality (KS p-value) = {} (D = {}, {} method{}); {} unlearned vs {} retain truth ratios{}\n",
            fmt_num(r.forget_quality),
            fmt_num(r.ks.statistic),
            match r.ks.method_used {
                lethe::ks::KsMethod::Exact => "exact",
                _ => "asymptotic",
            },
            if r.ks.fell_back { ", exact failed" } else { "" },
            r.n_unlearned,
            r.n_retain,
            r.stated
                .map_or(String::new(), |s| format!("; the file states {}", fmt_num(s)))
        )
    })
}

pub(super) fn privleak_cmd(a: PrivleakArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let mut files = vec![shown("unlearned", &a.unlearned)];
    let unlearned = Some(
        ws.input_arg_os("unlearned", &a.unlearned)
            .map_err(|e| error(&files, e))?,
    );
    let retain = match &a.retain {
        Some(r) => {
            files.push(shown("retain", r));
            Some(ws.input_arg_os("retain", r).map_err(|e| error(&files, e))?)
        }
        None => None,
    };
    let req = PrivleakRequest {
        unlearned,
        retain,
        metric: a.metric,
        ref_auc: a.ref_auc,
        corpus: a.corpus,
        resamples: a.resamples,
        seed: a.seed,
        alpha: a.alpha,
    };
    let report = layer::run_privleak(&mut ws, &req).map_err(|e| error(&files, e))?;
    let level = 100.0 * (1.0 - req.alpha);
    emit_report(&report, a.out.json, |r| {
        let iv = |i: Option<lethe::roc::Interval>| {
            i.map_or(String::new(), |i| {
                format!(" ({level}% CI [{}, {}])", fmt_num(i.lo), fmt_num(i.hi))
            })
        };
        format!(
            "privleak = {}{} ({}'s formula); AUC forget vs holdout {}{}, reference {} ({}){}\n",
            fmt_num(r.privleak),
            iv(r.interval),
            r.formula,
            fmt_num(r.auc_unlearned),
            iv(r.auc_interval),
            fmt_num(r.auc_reference),
            r.reference,
            if r.flipped {
                "; the attack is reliably wrong (flipped)"
            } else {
                ""
            }
        )
    })
}

pub(super) fn tool_rouge_cmd(a: ToolRougeArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let files = vec![shown("file", &a.file)];
    let file = Some(ws.input_arg_os("file", &a.file).map_err(|e| error(&files, e))?);
    let req = ToolRougeRequest {
        file,
        stemmer: !a.no_stemmer,
    };
    let report = layer::run_tool_rouge(&mut ws, &req).map_err(|e| error(&files, e))?;
    emit_report(&report, a.out.json, |r| {
        let mut t = format!(
            "{} generations: mean ROUGE-L recall {}, F-measure {}",
            r.rouge.fmeasure.len(),
            fmt_num(r.mean_recall),
            fmt_num(r.mean_fmeasure)
        );
        if let Some(g) = r.max_gap_recall {
            let _ = write!(t, "; largest gap to the file's recall {}", fmt_num(g));
        }
        if let Some(g) = r.max_gap_f1 {
            let _ = write!(t, ", F1 {}", fmt_num(g));
        }
        t.push('\n');
        t
    })
}
