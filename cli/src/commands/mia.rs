//! `lethe mia` (ROC audit of membership-inference scores) and `lethe fdr` (multiple-testing corrections of a list of
//! p-values): arguments → a request of the analysis layer (`lethe_analysis::analyses::{MiaRequest, FdrRequest}`),
//! which loads, checks and computes; this module prints the report.

use std::ffi::OsString;

use lethe_analysis::Workspace;
use lethe_analysis::analyses::{self as layer, FdrRequest, MiaRequest};

use super::*;
use crate::report::{emit_report, layer_error};

#[derive(Args)]
pub struct MiaArgs {
    /// Members' scores, PATH[#TENSOR][@ROWS] (higher = member, unless --lower-is-member)
    #[arg(required_unless_present = "scores")]
    members: Option<OsString>,
    /// Non-members' scores, PATH[#TENSOR][@ROWS] (e.g. the same file: scores.npy@split.csv==test)
    #[arg(required_unless_present = "scores")]
    non_members: Option<OsString>,
    /// Instead of two inputs: every score, PATH[#TENSOR][@ROWS], with --labels
    #[arg(long, requires = "labels", conflicts_with_all = ["members", "non_members"])]
    scores: Option<OsString>,
    /// 0/1 labels of --scores, row for row (1 = member), PATH[#TENSOR][@ROWS] (e.g. data.csv#columns=member)
    #[arg(long, requires = "scores")]
    labels: Option<OsString>,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: MiaRequest,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct FdrArgs {
    /// A file of p-values (one column or one row), PATH[#TENSOR][@ROWS]
    pvalues: OsString,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: FdrRequest,
    #[command(flatten)]
    out: Out,
}

fn workspace() -> Workspace {
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    ws
}

/// The paths the arguments name, by role, for error messages.
fn files(args: &[(&'static str, &OsString)]) -> Vec<(&'static str, String)> {
    args.iter()
        .map(|(role, arg)| {
            let shown = arg.to_string_lossy().into_owned();
            let path = arg
                .to_str()
                .and_then(|s| lethe_analysis::spec::parse_input(s, &lethe_analysis::spec::is_file).ok())
                .map_or(shown, |spec| spec.path.display().to_string());
            (*role, path)
        })
        .collect()
}

fn error(files: &[(&'static str, String)], e: lethe_analysis::Error) -> CliError {
    let f: Vec<(&str, &str)> = files.iter().map(|(r, p)| (*r, p.as_str())).collect();
    layer_error(e, &f)
}

pub(super) fn mia_cmd(a: MiaArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let mut named: Vec<(&'static str, &OsString)> = Vec::new();
    for (role, arg) in [
        ("members", &a.members),
        ("non_members", &a.non_members),
        ("scores", &a.scores),
        ("labels", &a.labels),
    ] {
        if let Some(arg) = arg {
            named.push((role, arg));
        }
    }
    let files = files(&named);
    let mut req = a.options;
    for (role, arg) in &named {
        let r = Some(ws.input_arg_os(role, arg).map_err(|e| error(&files, e))?);
        match *role {
            "members" => req.members = r,
            "non_members" => req.non_members = r,
            "scores" => req.scores = r,
            _ => req.labels = r,
        }
    }
    let job = layer::prepare_mia(&mut ws, &req).map_err(|e| error(&files, e))?;
    let report = job
        .run(a.threads.count()?, &mut |_, _| true)
        .map_err(|e| error(&files, e))?;
    let level = 100.0 * (1.0 - req.alpha);
    emit_report(&report, a.out.json, |r| {
        let s = &r.summary;
        let mut t = format!(
            "AUC = {} (Mann–Whitney U = {}; {} members, {} non-members, {} distinct scores); with the labels flipped {}\n",
            fmt_num(s.auc),
            fmt_num(s.mann_whitney_u),
            s.n_members,
            s.n_non_members,
            s.distinct_thresholds,
            fmt_num(r.auc_flipped)
        );
        if let Some(d) = &r.delong {
            let _ = writeln!(
                t,
                "  DeLong {level}% CI [{}, {}] (se {})",
                fmt_num(d.interval.lo),
                fmt_num(d.interval.hi),
                fmt_num(d.standard_error)
            );
        }
        if let Some(b) = &r.bootstrap {
            let i = b
                .interval
                .map_or("-".to_string(), |i| format!("[{}, {}]", fmt_num(i.lo), fmt_num(i.hi)));
            let _ = writeln!(
                t,
                "  bootstrap {level}% CI {i} ({} of {} resamples, seed {}, {})",
                b.resamples_done, b.resamples, b.seed, b.rng
            );
        }
        let _ = writeln!(
            t,
            "max TPR − FPR = {} at threshold {} (balanced accuracy {}); convex-hull AUC {}",
            fmt_num(s.max_tpr_minus_fpr),
            fmt_num(s.balanced_threshold),
            fmt_num(s.balanced_accuracy),
            fmt_num(r.hull_auc)
        );
        let _ = writeln!(
            t,
            "  {:<13} {:>10} {:>10} {:>12} {:>13} {:<25} {:<25}",
            "rule", "target FPR", "TPR", "realized FPR", "threshold", "TPR CI", "FPR CI"
        );
        let ci = |i: Option<lethe::roc::Interval>| {
            i.map_or("-".to_string(), |i| format!("[{}, {}]", fmt_num(i.lo), fmt_num(i.hi)))
        };
        for p in &r.tpr_at_fpr {
            let _ = writeln!(
                t,
                "  {:<13} {:>10} {:>10} {:>12} {:>13} {:<25} {:<25}",
                p.rule.name(),
                fmt_num(p.target_fpr),
                fmt_num(p.tpr),
                fmt_num(p.realized_fpr),
                fmt_num(p.threshold),
                ci(p.tpr_interval),
                ci(p.fpr_interval)
            );
        }
        t
    })
}

pub(super) fn fdr_cmd(a: FdrArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let files = files(&[("pvalues", &a.pvalues)]);
    let pvalues = Some(ws.input_arg_os("pvalues", &a.pvalues).map_err(|e| error(&files, e))?);
    let req = FdrRequest { pvalues, ..a.options };
    let report = layer::run_fdr(&mut ws, &req).map_err(|e| error(&files, e))?;
    emit_report(&report, a.out.json, |r| {
        let mut t = format!(
            "{} at alpha {}: alphacSidak {}, alphacBonf {}\n  {:>6} {:>12} {:>7}\n",
            r.method,
            fmt_num(r.alpha),
            fmt_num(r.alphac_sidak),
            fmt_num(r.alphac_bonf),
            "#",
            "adjusted p",
            "reject"
        );
        for (i, (adj, rej)) in r.pvals_corrected.iter().zip(&r.reject).enumerate() {
            let _ = writeln!(t, "  {i:>6} {:>12} {:>7}", fmt_num(*adj), rej);
        }
        t
    })
}
