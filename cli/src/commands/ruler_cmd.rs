//! `ruler`: arguments → the analysis layer's RULER request → its report.

use lethe_analysis::Workspace;
use lethe_analysis::analyses::{self, RulerRequest, RulerRun};

use super::*;
use crate::report::{emit_report, layer_error};

#[derive(Args)]
pub struct RulerArgs {
    /// Unlearned model's embeddings of all rows (repeat once per run)
    #[arg(long, required = true)]
    unlearned: Vec<InputSpecArg>,
    /// Retrain oracle's embeddings (same rows; one per run)
    #[arg(long)]
    oracle: Vec<InputSpecArg>,
    /// Original model's embeddings (same rows; one per run; enables m3)
    #[arg(long)]
    original: Vec<InputSpecArg>,
    /// Forget rows (a..b, i,j,k, or an index file), applied to every model file
    #[arg(long)]
    forget: std::ffi::OsString,
    /// Retain rows, applied to every model file
    #[arg(long)]
    retain: std::ffi::OsString,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: RulerRequest,
    #[command(flatten)]
    out: Out,
}

/// The file an input argument `PATH[#TENSOR][@ROWS]` names, for error messages (a name that is not UTF-8 shown
/// with � for the bytes that are not).
pub(super) fn path_of(arg: &std::ffi::OsStr) -> String {
    arg.to_str()
        .and_then(|s| lethe_analysis::spec::parse_input(s, &lethe_analysis::spec::is_file).ok())
        .map_or_else(|| arg.to_string_lossy().into_owned(), |s| s.path.display().to_string())
}

pub(super) fn ruler_cmd(a: RulerArgs) -> Result<(), CliError> {
    let runs = a.unlearned.len();
    for (flag, v) in [("--oracle", &a.oracle), ("--original", &a.original)] {
        if !v.is_empty() && v.len() != runs {
            return Err(CliError::usage(format!(
                "{flag} was given {} times but --unlearned {runs} times; give one per run",
                v.len()
            )));
        }
    }
    let mut files: Vec<(&str, String)> = Vec::new();
    for (role, v) in [
        ("unlearned", &a.unlearned),
        ("oracle", &a.oracle),
        ("original", &a.original),
    ] {
        files.extend(v.iter().map(|s| (role, path_of(s))));
    }
    let shown: Vec<(&str, &str)> = files.iter().map(|(r, p)| (*r, p.as_str())).collect();
    let err = |e| layer_error(e, &shown);
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    let mut req_runs = Vec::with_capacity(runs);
    for k in 0..runs {
        let unlearned = ws.input_arg_os("unlearned", &a.unlearned[k]).map_err(err)?;
        let oracle = a
            .oracle
            .get(k)
            .map(|s| ws.input_arg_os("oracle", s))
            .transpose()
            .map_err(err)?;
        let original = a
            .original
            .get(k)
            .map(|s| ws.input_arg_os("original", s))
            .transpose()
            .map_err(err)?;
        req_runs.push(RulerRun {
            unlearned,
            oracle,
            original,
        });
    }
    let req = RulerRequest {
        runs: req_runs,
        forget: ws.rows_arg_os("forget", &a.forget).map_err(err)?,
        retain: ws.rows_arg_os("retain", &a.retain).map_err(err)?,
        ..a.options
    };
    let out = analyses::ruler(&mut ws, &req).map_err(err)?;
    emit_report(&out.report(), a.out.json, |o| {
        let mut s = String::new();
        let opt = |v: Option<f64>| v.map_or("-".to_string(), fmt_num);
        for (k, r) in o.runs.iter().enumerate() {
            let m4 = r.nn_percentile_rank.as_ref().map_or_else(
                || "m4 NN rank - (withheld)".to_string(),
                |m4| {
                    format!(
                        "m4 NN rank {} (null 0.5 ± {} sd)",
                        fmt_num(m4.value),
                        fmt_num(m4.null_sd)
                    )
                },
            );
            let _ = writeln!(
                s,
                "run {k}: m1 oracle similarity {}  m2 calibration gap {} (null 0)  m3 shift {} (null 0)  {m4}  [{} forget, {} retain]",
                opt(r.oracle_similarity),
                opt(r.calibration_gap),
                opt(r.representation_shift),
                r.n_forget,
                r.n_retain
            );
        }
        for m in &o.across_runs {
            let _ = writeln!(
                s,
                "{} across {} runs vs null {}: Wilcoxon p = {}, BH-adjusted {} ({})",
                m.metric,
                m.values.len(),
                m.null,
                fmt_num(m.wilcoxon.p_value),
                fmt_num(m.p_adjusted),
                if m.reject { "significant" } else { "not significant" }
            );
        }
        for c in &o.positive_controls {
            let _ = writeln!(
                s,
                "run {}: positive control, m4 of the original model {} (null band [{}, {}])",
                c.run,
                fmt_num(c.value),
                fmt_num(c.band[0]),
                fmt_num(c.band[1])
            );
        }
        for c in &out.metric_calls {
            let _ = writeln!(s, "  {}", c.text);
        }
        s
    })
}
