//! RULER: representation-level metrics, with Wilcoxon + Benjamini–Hochberg across runs.

use super::*;

/// One run of RULER: the unlearned model's embeddings and, optionally, the oracle's and the original's.
#[derive(Clone, Debug, Deserialize)]
pub struct RulerRun {
    pub unlearned: InputRef,
    #[serde(default)]
    pub oracle: Option<InputRef>,
    #[serde(default)]
    pub original: Option<InputRef>,
}

/// `lethe ruler`'s options.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct RulerRequest {
    pub runs: Vec<RulerRun>,
    pub forget: Rows,
    pub retain: Rows,
    /// `at-most` (default) or `half`.
    pub ties: String,
    pub fdr: f64,
}

impl Default for RulerRequest {
    fn default() -> Self {
        Self {
            runs: Vec::new(),
            forget: Rows::All,
            retain: Rows::All,
            ties: "at-most".into(),
            fdr: 0.05,
        }
    }
}

/// The CLI's `RulerOutput`.
#[derive(Clone, Debug, Serialize)]
pub struct RulerResult {
    pub runs: Vec<RulerReport>,
    pub across_runs: Vec<ruler::MetricAcrossRuns>,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RulerOutput {
    pub result: RulerResult,
    pub inputs: Vec<InputRecord>,
    pub load_warnings: Vec<LoadWarning>,
    /// Per run: the forget records' nearest-neighbour percentile ranks in 10 bins over [0, 1].
    pub rank_histograms: Vec<Histograms>,
}

pub(super) const RULER_ROLES: [&str; 5] = ["unlearned", "oracle", "original", "forget", "retain"];

/// RULER m1–m4 per run and, with two or more runs, Wilcoxon + Benjamini–Hochberg across runs (as `lethe ruler`).
///
/// # Errors
/// Missing or unreadable inputs, rows out of range, the core's errors; attributed to the role concerned.
pub fn ruler(ws: &mut Workspace, req: &RulerRequest) -> Result<RulerOutput> {
    if req.runs.is_empty() {
        return Err(Error::at("unlearned", "choose the unlearned model's embeddings"));
    }
    let (forget, forget_file, forget_text) = ws.resolve_rows("forget", &req.forget)?;
    let (retain, retain_file, retain_text) = ws.resolve_rows("retain", &req.retain)?;
    let tie = match req.ties.as_str() {
        "at-most" => TieRule::AtMost,
        "half" => TieRule::Half,
        other => return Err(Error::msg(format!("ties `{other}` is not one of at-most, half"))),
    };
    let mut records = Vec::new();
    let mut reports = Vec::new();
    let mut warned: Vec<(&str, Arc<Input>)> = Vec::new();
    for run in &req.runs {
        let mut load = |role: &'static str, r: &InputRef| -> Result<(Matrix, Matrix, InputRecord)> {
            let inp = ws.load(role, r)?;
            let pick = |rows: &Option<Vec<usize>>, what: &str| -> Result<Matrix> {
                let name = format!("{role} ({what} rows)");
                match rows {
                    Some(ix) => inp
                        .matrix
                        .select_rows(ix, &name)
                        .map_err(|e| Error::at(what, e.to_string())),
                    None => Ok(inp.matrix.clone()),
                }
            };
            let f = pick(&forget, "forget")?;
            let rt = pick(&retain, "retain")?;
            warned.push((role, Arc::clone(&inp)));
            Ok((f, rt, inp.record.clone()))
        };
        let (uf, ur, rec) = load("unlearned", &run.unlearned)?;
        records.push(rec);
        let oracle = run.oracle.as_ref().map(|r| load("oracle", r)).transpose()?;
        let original = run.original.as_ref().map(|r| load("original", r)).transpose()?;
        let inputs = RulerInputs {
            unlearned_forget: uf.view(),
            unlearned_retain: ur.view(),
            oracle_forget: oracle.as_ref().map(|o| o.0.view()),
            oracle_retain: oracle.as_ref().map(|o| o.1.view()),
            original_forget: original.as_ref().map(|o| o.0.view()),
        };
        reports.push(ruler::all_metrics(&inputs, tie).map_err(|e| attribute(e, &RULER_ROLES))?);
        records.extend(oracle.map(|o| o.2));
        records.extend(original.map(|o| o.2));
    }
    let (across, warnings) = if reports.len() >= 2 {
        ruler::across_runs(&reports, req.fdr)?
    } else {
        (Vec::new(), Vec::new())
    };
    let rank_histograms = reports
        .iter()
        .map(|r| plots::histogram_in(&r.nn_percentile_rank.ranks, 10, (0.0, 1.0)))
        .collect::<Result<Vec<_>>>()?;
    // The index or split files the rows came from, with their SHA-256 (as `lethe ruler --json` records them).
    for (role, file, text, rows) in [
        ("forget", forget_file, forget_text, &forget),
        ("retain", retain_file, retain_text, &retain),
    ] {
        if let Some(d) = file {
            records.push(row_file_record(role, d, text, rows.as_ref().map_or(0, Vec::len)));
        }
    }
    let refs: Vec<(&str, &Input)> = warned.iter().map(|(r, i)| (*r, &**i)).collect();
    Ok(RulerOutput {
        load_warnings: load_warnings(&refs),
        result: RulerResult {
            runs: reports,
            across_runs: across,
            warnings,
        },
        inputs: records,
        rank_histograms,
    })
}

/// The record of a row index file (or split column) that rows given on their own came from (RULER's forget and
/// retain rows, the calibrated pools and targets); its spec is the rows' text, else the file's name.
pub(super) fn row_file_record(
    role: &str,
    d: crate::workspace::FileDigest,
    text: Option<String>,
    rows: usize,
) -> InputRecord {
    InputRecord::row_file(role, text.unwrap_or_else(|| d.path.clone()), d, rows)
}
