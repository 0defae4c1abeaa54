//! `ruler`.

use super::*;

#[derive(Args, Serialize)]
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
    forget: String,
    /// Retain rows, applied to every model file
    #[arg(long)]
    retain: String,
    #[arg(long, value_enum, default_value = "at-most")]
    ties: TiesArg,
    /// FDR level of the Benjamini–Hochberg correction across metrics (several runs)
    #[arg(long, default_value_t = 0.05)]
    fdr: f64,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Clone, Copy, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum TiesArg {
    AtMost,
    Half,
}

#[derive(Serialize)]
pub(super) struct RulerOutput {
    runs: Vec<ruler::RulerReport>,
    /// Wilcoxon signed-rank of each metric against its null across runs, BH-adjusted (two or more runs).
    across_runs: Vec<ruler::MetricAcrossRuns>,
    warnings: Vec<String>,
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
    let forget_spec = row_spec("forget", &a.forget)?;
    let retain_spec = row_spec("retain", &a.retain)?;
    let tie = match a.ties {
        TiesArg::AtMost => TieRule::AtMost,
        TiesArg::Half => TieRule::Half,
    };
    let mut records = Vec::new();
    let mut reports = Vec::new();
    // The forget and retain rows, resolved against the first model file's row count (a range is checked before
    // it is expanded); every model file is then checked against them as it is loaded. Their index or split files
    // are recorded after the models' records, as the widget records them.
    let mut row_sets: Option<[(Vec<usize>, Option<InputRecord>); 2]> = None;
    for k in 0..runs {
        let mut load = |role: &str, s: &str| -> Result<(Matrix, Matrix, InputRecord), CliError> {
            let inp = input::load(role, &spec(s)?)?;
            if row_sets.is_none() {
                let (n, path) = (inp.matrix.rows() as u64, std::path::Path::new(&inp.record.path));
                let set = |role: &str, spec: &RowSpec| -> Result<(Vec<usize>, Option<InputRecord>), CliError> {
                    let (rows, file) = input::resolve_rows(role, spec, Some((n, path)), n)?;
                    let record = file.map(|d| input::row_file_record(role, spec, d, rows.len()));
                    Ok((rows, record))
                };
                row_sets = Some([set("forget", &forget_spec)?, set("retain", &retain_spec)?]);
            }
            let [(forget, _), (retain, _)] = row_sets.as_ref().ok_or_else(|| CliError::msg("internal error"))?;
            let f = inp.matrix.select_rows(forget, &format!("{role} (forget rows)"))?;
            let r = inp.matrix.select_rows(retain, &format!("{role} (retain rows)"))?;
            Ok((f, r, inp.record))
        };
        let (uf, ur, rec) = load("unlearned", &a.unlearned[k])?;
        records.push(rec);
        let oracle = a.oracle.get(k).map(|s| load("oracle", s)).transpose()?;
        let original = a.original.get(k).map(|s| load("original", s)).transpose()?;
        let inputs = RulerInputs {
            unlearned_forget: uf.view(),
            unlearned_retain: ur.view(),
            oracle_forget: oracle.as_ref().map(|o| o.0.view()),
            oracle_retain: oracle.as_ref().map(|o| o.1.view()),
            original_forget: original.as_ref().map(|o| o.0.view()),
        };
        reports.push(ruler::all_metrics(&inputs, tie)?);
        records.extend(oracle.map(|o| o.2));
        records.extend(original.map(|o| o.2));
    }
    records.extend(row_sets.into_iter().flatten().filter_map(|(_, record)| record));
    let (across, warnings) = if runs >= 2 {
        ruler::across_runs(&reports, a.fdr)?
    } else {
        (Vec::new(), Vec::new())
    };
    let out = RulerOutput {
        runs: reports,
        across_runs: across,
        warnings,
    };
    Report::new("ruler", &a, None, records, out).emit(a.out.json, |o| {
        let mut s = String::new();
        let opt = |v: Option<f64>| v.map_or("-".to_string(), fmt_num);
        for (k, r) in o.runs.iter().enumerate() {
            let m4 = &r.nn_percentile_rank;
            let _ = writeln!(
                s,
                "run {k}: m1 oracle similarity {}  m2 calibration gap {} (null 0)  m3 shift {} (null 0)  m4 NN rank {} (null 0.5 ± {} sd)  [{} forget, {} retain]",
                opt(r.oracle_similarity),
                opt(r.calibration_gap),
                opt(r.representation_shift),
                fmt_num(m4.value),
                fmt_num(m4.null_sd),
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
        for w in &o.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    })
}
