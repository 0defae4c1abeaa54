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
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: ForgetQualityRequest,
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
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: PrivleakRequest,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct ToolRougeArgs {
    /// The file with generations, PATH[#METRIC]: open-unlearning's EVAL file (#METRIC: a ROUGE metric, default
    /// forget_Q_A_ROUGE) or a TOFU eval log (#TASK of an aggregated log)
    file: OsString,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: ToolRougeRequest,
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
        ..a.options
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
        ..a.options
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
    let req = ToolRougeRequest { file, ..a.options };
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
