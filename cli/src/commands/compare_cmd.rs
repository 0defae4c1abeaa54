//! `lethe compare`: arguments → the analysis layer's `CompareRequest` (which reads the runs table, checks it,
//! computes and calls every comparison); this module prints the report.

use std::path::PathBuf;

use lethe_analysis::Workspace;
use lethe_analysis::analyses::{self as layer, CompareRequest, MethodFiles, TextInput};

use super::*;
use crate::report::{emit_report, layer_error};

#[derive(Args)]
pub struct CompareArgs {
    /// The runs table (CSV, TSV or JSON): one row per run, columns method, seed, optional task, one per metric
    /// (or give each method's result files with --method instead)
    runs: Option<PathBuf>,
    /// A method's result files, one run each: NAME=FILE,FILE,… (open-unlearning TOFU/MUSE EVAL or SUMMARY files,
    /// a JSON object of metrics, Lethe's JSON reports, lethe merge tables); a run's seed is the number after
    /// `seed` in its path (npo/seed3/TOFU_SUMMARY.json); repeat for every method
    #[arg(long = "method", value_name = "NAME=FILES")]
    methods: Vec<String>,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: CompareRequest,
    #[command(flatten)]
    out: Out,
}

fn interval(v: Option<lethe::roc::Interval>) -> String {
    v.map_or_else(|| "-".into(), |i| format!("[{}, {}]", fmt_num(i.lo), fmt_num(i.hi)))
}

pub(super) fn compare_cmd(a: CompareArgs) -> Result<(), CliError> {
    let path = a.runs.as_ref().map(|p| p.display().to_string());
    let files: Vec<(&str, &str)> = path.iter().map(|p| ("runs", p.as_str())).collect();
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    let runs = match &a.runs {
        Some(p) => Some(TextInput::Source {
            source: ws.add_path("runs", p).map_err(|e| layer_error(e, &files))?,
        }),
        None => None,
    };
    // NAME=FILE,FILE,… as the layer reads it for every front end (batch, Python).
    let methods: Vec<MethodFiles> = if a.methods.is_empty() {
        Vec::new()
    } else {
        let v =
            layer::compare_methods(&mut ws, serde_json::Value::from(a.methods)).map_err(|e| layer_error(e, &files))?;
        serde_json::from_value(v).map_err(|e| CliError::msg(format!("--method: {e}")))?
    };
    let req = CompareRequest {
        runs,
        methods,
        ..a.options
    };
    let report = layer::run_compare(&mut ws, &req).map_err(|e| layer_error(e, &files))?;
    emit_report(&report, a.out.json, |r| {
        let mut t = String::new();
        for m in &r.metrics {
            let _ = writeln!(t, "{} ({} is better)", m.metric, m.direction);
            let _ = writeln!(
                t,
                "  {:<16} {:<10} {:>3} {:>10} {:>10} {:>10} {:>22} {:>22}",
                "method", "task", "n", "mean", "sd", "IQM", "95% t interval", "95% bootstrap"
            );
            for s in &m.summaries {
                let _ = writeln!(
                    t,
                    "  {:<16} {:<10} {:>3} {:>10} {:>10} {:>10} {:>22} {:>22}",
                    s.method,
                    s.task.as_deref().unwrap_or(if r.tasks.is_empty() { "" } else { "all" }),
                    s.n,
                    fmt_num(s.mean),
                    s.sd.map_or_else(|| "-".into(), fmt_num),
                    fmt_num(s.iqm),
                    interval(s.t_interval),
                    interval(s.bootstrap_interval)
                );
                if let Some(e) = &s.over_examples {
                    let _ = writeln!(
                        t,
                        "  {:<16} over its {} examples (not seeds): mean {}, 95% t interval {}",
                        "",
                        e.n,
                        fmt_num(e.mean),
                        interval(e.t_interval)
                    );
                }
            }
            if let Some(f) = &m.friedman {
                let _ = writeln!(
                    t,
                    "  Friedman over {} tasks: chi2 {}, p {}; Nemenyi CD {} (mean ranks differ by more to differ)",
                    f.blocks,
                    fmt_num(f.statistic),
                    fmt_num(f.p_value),
                    fmt_num(f.critical_difference)
                );
            }
        }
        if !r.comparisons.is_empty() {
            let _ = writeln!(t, "comparisons ({} over {} tests):", r.correction, r.comparisons.len());
            for c in &r.comparisons {
                let _ = writeln!(t, "  {}", c.text);
            }
        }
        for p in &r.reproductions {
            let _ = writeln!(t, "reproduction: {}", p.text);
        }
        t
    })
}
