//! `lethe eps-lower` (ε lower bounds from a membership-inference audit): arguments → the analysis layer's
//! `EpsAuditRequest` (which loads the scores with `lethe mia`'s checks and calls `lethe::eps_audit`) → its report.

use std::ffi::OsString;

use lethe_analysis::Workspace;
use lethe_analysis::analyses::{self as layer, CountsArg, EpsAuditRequest, OneRunCounts};

use super::*;
use crate::report::{emit_report, layer_error};

#[derive(Args)]
pub struct EpsLowerArgs {
    /// Members' attack scores, PATH[#TENSOR][@ROWS] (higher = member, unless --lower-is-member)
    members: Option<OsString>,
    /// Non-members' attack scores, PATH[#TENSOR][@ROWS]
    non_members: Option<OsString>,
    /// Instead of two inputs: every score, PATH[#TENSOR][@ROWS], with --labels
    #[arg(long, requires = "labels", conflicts_with_all = ["members", "non_members"])]
    scores: Option<OsString>,
    /// 0/1 labels of --scores, row for row (1 = member)
    #[arg(long, requires = "scores")]
    labels: Option<OsString>,
    /// A lower score means member (losses, distances): the scores are negated
    #[arg(long)]
    lower_is_member: bool,
    /// Instead of scores: an attack's counts at one threshold chosen beforehand, TP,FP,TN,FN
    #[arg(long, value_delimiter = ',', value_name = "TP,FP,TN,FN",
          conflicts_with_all = ["members", "non_members", "scores", "one_run"])]
    counts: Option<Vec<u64>>,
    /// Instead of scores: the one-run audit's canaries, guesses and correct guesses, M,R,V (implies --method one-run)
    #[arg(long, value_delimiter = ',', value_name = "M,R,V",
          conflicts_with_all = ["members", "non_members", "scores"])]
    one_run: Option<Vec<u64>>,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: EpsAuditRequest,
    #[command(flatten)]
    out: Out,
}

pub(super) fn eps_lower_cmd(a: EpsLowerArgs) -> Result<(), CliError> {
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
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
    if a.members.is_some() != a.non_members.is_some() {
        return Err(CliError::usage(
            "give both the members' and the non-members' scores (two files), or --scores with --labels",
        ));
    }
    for (what, got, want) in [
        ("--counts takes TP,FP,TN,FN", a.counts.as_ref(), 4),
        ("--one-run takes M,R,V", a.one_run.as_ref(), 3),
    ] {
        if got.is_some_and(|v| v.len() != want) {
            return Err(CliError::usage(format!(
                "{what}: {want} whole numbers separated by commas"
            )));
        }
    }
    let shown: Vec<(&'static str, String)> = named
        .iter()
        .map(|(role, arg)| {
            let s = arg.to_string_lossy().into_owned();
            let path = arg
                .to_str()
                .and_then(|s| lethe_analysis::spec::parse_input(s, &lethe_analysis::spec::is_file).ok())
                .map_or(s, |spec| spec.path.display().to_string());
            (*role, path)
        })
        .collect();
    let files: Vec<(&str, &str)> = shown.iter().map(|(r, p)| (*r, p.as_str())).collect();
    let one_run = a.one_run.as_ref().map(|v| OneRunCounts {
        m: v[0],
        r: v[1],
        v: v[2],
    });
    let mut req = EpsAuditRequest {
        lower_is_member: a.lower_is_member,
        counts: a.counts.as_ref().map(|v| CountsArg {
            tp: v[0],
            fp: v[1],
            tn: v[2],
            fn_: v[3],
        }),
        one_run,
        ..a.options
    };
    for (role, arg) in &named {
        let r = Some(ws.input_arg_os(role, arg).map_err(|e| layer_error(e, &files))?);
        match *role {
            "members" => req.members = r,
            "non_members" => req.non_members = r,
            "scores" => req.scores = r,
            _ => req.labels = r,
        }
    }
    let report = layer::eps_audit(&mut ws, &req).map_err(|e| layer_error(e, &files))?;
    emit_report(&report, a.out.json, |r| {
        let mut t = format!(
            "ε ≥ {} with δ = {} at {}% confidence ({})\n",
            fmt_num(r.epsilon),
            fmt_num(r.delta),
            fmt_num(100.0 * r.confidence),
            r.method
        );
        if let Some(b) = &r.clopper_pearson {
            let _ = writeln!(
                t,
                "  rule {} ({}), {} test(s), significance {} each",
                b.rule.name(),
                if b.one_sided { "one-sided" } else { "two-sided" },
                b.tests,
                fmt_num(b.per_test_significance)
            );
            if b.epsilon > 0.0 {
                let _ = writeln!(
                    t,
                    "  best test: {}TP {} FP {} TN {} FN {}; upper bounds FPR ≤ {}, FNR ≤ {}",
                    b.threshold
                        .map_or(String::new(), |x| format!("threshold {}, ", fmt_num(x))),
                    b.counts.tp,
                    b.counts.fp,
                    b.counts.tn,
                    b.counts.fn_,
                    fmt_num(b.fpr_upper),
                    fmt_num(b.fnr_upper)
                );
            }
            let _ = writeln!(
                t,
                "  a perfect attack on this sample could show ε ≥ {}",
                fmt_num(b.best_possible)
            );
        }
        if let Some(o) = &r.one_run {
            let _ = writeln!(
                t,
                "  m = {} canaries, r = {} guesses, v = {} correct; p-value at ε = 0: {}",
                o.m,
                o.r,
                o.v,
                fmt_num(o.p_value_at_zero)
            );
            let _ = writeln!(t, "  all m guessed right could show ε ≥ {}", fmt_num(o.best_possible));
        }
        if let Some(g) = &r.gdp {
            let _ = writeln!(
                t,
                "  μ = {} (GDP), {} bounds in the Bonferroni correction",
                fmt_num(g.mu),
                g.tests
            );
        }
        if let Some(n) = r.examples_needed {
            let _ = writeln!(t, "  examples needed for any bound above 0: {n}");
        }
        t
    })
}
