//! Result files grouped by method, the other input of `lethe compare` (issue 23): each file one run of its method
//! (a `lethe merge` table: one run a row), read by the readers the project already has, and turned into the same
//! runs table a CSV gives ([`RunsTable`]), so every check, warning and number after it is the runs table's.
//!
//! What a file may be, decided from its content (never its name):
//!
//! * an open-unlearning EVAL or SUMMARY file (`TOFU_EVAL.json`, `MUSE_SUMMARY.json`, …), read by
//!   [`lethe::tools::open_unlearning`] (which names the writer it follows: `src/evals/base.py`
//!   `Evaluator.save_logs` / `summarize` at d3d7cf9): a metric's value is its `agg_value`, and a metric whose
//!   `value_by_index` holds a numeric field whose mean is that value (probability's `prob`, ROUGE's recall,
//!   extraction strength's `score`) brings those per-example values — not a truth ratio, whose aggregate is the
//!   mean of min(r, 1/r), on another scale than its samples;
//! * any other JSON object of numbers, one per metric (MUSE's `privleak/auc.json`, written by its `utils.py`
//!   `write_json`);
//! * one of Lethe's own JSON reports (`lethe … --json`: `lethe mia` on a privacy-meter attack result, `lethe lira`
//!   on a LiRA folder, `lethe privleak` / `forget-quality` on open-unlearning files): every number of its `result`,
//!   by its dotted path without `result.` (`summary.auc`), as [`crate::report::report_columns`] names them for
//!   `lethe merge`;
//! * a `lethe merge` table (CSV or JSON, columns `cell`, `id`, `command`, …): one run a row, its `id` the seed,
//!   the `result.…` columns the metrics by the same names;
//! * ML Privacy Meter's attack result (`report/exp/attack_result_0.npz`, a NumPy archive): its `scores` and
//!   `memberships` audited as `lethe mia --scores FILE#scores --labels FILE#memberships` audits them, the report's
//!   numbers by the names a `lethe mia --json` report gives them, privacy-meter's stored `auc`, `one_tenth_fpr` and
//!   `zero_fpr` checked against them ([`super::compare_pm`]).
//!
//! A run's seed is the number after `seed` in the file's path (`npo/seed3/TOFU_SUMMARY.json`, `run_seed-3.json`), or
//! the merge table's `id`; otherwise the file's position in its method's list (such runs are not paired by seed).

use super::compare::known_direction;
use super::compare_runs::{Run, RunsTable, cells};
use super::*;
use crate::report::Warning;
use serde_json::Value;

/// One method's result files: one run each (a `lethe merge` table: one run a row).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MethodFiles {
    pub method: String,
    pub files: Vec<TextInput>,
    /// `files` are the contents of this folder, each source named by its path (`NPO/seed0/TOFU_SUMMARY.json`), as a
    /// page gives a chosen or dropped folder: the result files among them are picked by the rule a folder given by
    /// path is read with ([`pick_result_files`]), the other files passed over. With an empty `method`, the method
    /// is named after the folder, or, where it holds several methods' folders (one seed in several of them), each
    /// of those is a method named after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// How many files of the folder were passed over before the request was made (a folder read from disk: only
    /// its picked files are opened), counted with those passed over here.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub passed_over: usize,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The role every result file is recorded and named under.
pub const ROLE: &str = "methods";

/// A metric of one run: its name, value and per-example values.
pub(super) type FileMetric = (String, Option<f64>, Option<Vec<f64>>);

/// One run read from a file: where, its seed, its metrics, and whether it is a Lethe RULER report of the oracle
/// compared with itself (its warning `unlearned_is_oracle`).
struct FileRun {
    place: String,
    seed: Option<String>,
    metrics: Vec<FileMetric>,
    oracle: bool,
}

/// A Lethe report's (or a `lethe merge` row's) warning codes, the `warnings` column, hold `unlearned_is_oracle`.
fn warns_oracle(cols: &serde_json::Map<String, Value>) -> bool {
    cols.get("warnings")
        .and_then(Value::as_str)
        .is_some_and(|w| w.split(' ').any(|c| c == "unlearned_is_oracle"))
}

fn refused(code: &str, message: String) -> Error {
    Error::refused(code, Some(ROLE), message)
}

/// The seed written in a path: the digits after the last `seed` (optionally followed by `_`, `-`, `=` or a space).
pub fn seed_in_path(path: &str) -> Option<String> {
    let lower = path.to_ascii_lowercase();
    let mut found = None;
    let mut from = 0;
    while let Some(i) = lower[from..].find("seed") {
        let at = from + i + 4;
        let rest = lower[at..].trim_start_matches(['_', '-', '=', ' ']);
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() {
            // `seed01` and `seed1` are one seed.
            let t = digits.trim_start_matches('0');
            found = Some(if t.is_empty() { "0".to_string() } else { t.to_string() });
        }
        from = at;
    }
    found
}

/// A finite number, or the refusal naming the file, place and metric.
fn finite(place: &str, method: &str, metric: &str, v: f64) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(refused(
            "non_finite",
            format!(
                "{place} (method `{method}`) has {} for the metric `{metric}`: a comparison cannot use it. Re-run that \
                 evaluation, or leave the file out",
                if v.is_nan() { "NaN" } else { "an infinite value" }
            ),
        ))
    }
}

/// Whether a result file's number describes the data or the test rather than how well the method did: a row count
/// (`n_members`), the level, an interval's ends, a variance or standard error, the ROC curve's size, a threshold, a
/// rank statistic (Lethe's own reports hold all of these beside their metrics). Such numbers are never compared
/// unless named, and the warning on metrics left out does not list them (a new user read "17 metrics left out:
/// delong.alpha, curve.points, …" above a result on the one metric an audit report has).
fn describes_the_test(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    last.starts_with("n_")
        || matches!(
            last,
            "alpha"
                | "level"
                | "lo"
                | "hi"
                | "variance"
                | "standard_error"
                | "points"
                | "distinct_thresholds"
                | "balanced_threshold"
                | "mann_whitney_u"
                | "auc_flipped"
        )
}

/// The metrics of one of Lethe's reports (or a merge table's row), by their dotted path without `result.`.
pub(super) fn report_metrics(cols: &serde_json::Map<String, Value>) -> Vec<FileMetric> {
    cols.iter()
        .filter_map(|(k, v)| {
            let name = k.strip_prefix("result.")?;
            v.as_f64().map(|x| (name.to_string(), Some(x), None))
        })
        .collect()
}

#[cfg(feature = "full")]
fn parse_json(text: &str) -> std::result::Result<Value, String> {
    lethe::tools::open_unlearning::parse_python_json(text.as_bytes())
}

#[cfg(not(feature = "full"))]
fn parse_json(text: &str) -> std::result::Result<Value, String> {
    serde_json::from_str(text).map_err(|e| e.to_string())
}

/// An open-unlearning EVAL or SUMMARY file's metrics: `agg_value`, and per-example values where each sample holds
/// exactly one number. `None`: not such a file.
#[cfg(feature = "full")]
fn open_unlearning(place: &str, method: &str, v: &Value) -> Option<Result<Vec<FileMetric>>> {
    use lethe::tools::open_unlearning as ou;
    let f = match ou::read(v)? {
        Ok(f) => f,
        Err(e) => {
            return Some(Err(refused(
                "bad_result_file",
                format!("{place} (method `{method}`) looks like an open-unlearning EVAL or SUMMARY file, but {e}"),
            )));
        }
    };
    let mut out = Vec::new();
    for m in &f.metrics {
        let value = match m.agg_value {
            Some(x) => match finite(place, method, &m.name, x) {
                Ok(x) => Some(x),
                Err(e) => return Some(Err(e)),
            },
            None => None,
        };
        // The per-example values: the numeric field whose mean is the metric's value (probability's `prob`, a
        // ROUGE metric's recall, extraction strength's `score`). A metric whose aggregate transforms its samples
        // (a truth ratio's `closer_to_1_better` mean of min(r, 1/r)) has none: its samples are on another scale.
        let examples = match (&m.shape, value) {
            (ou::MetricShape::PerSample { fields, .. }, Some(agg)) => fields
                .iter()
                .filter(|f| !f.text && f.width == 1)
                .filter_map(|f| ou::field(v, &m.name, &f.name).ok())
                .map(|col| {
                    col.as_slice()
                        .iter()
                        .copied()
                        .filter(|x| x.is_finite())
                        .collect::<Vec<f64>>()
                })
                .find(|e| {
                    !e.is_empty() && (e.iter().sum::<f64>() / e.len() as f64 - agg).abs() <= 1e-9 * agg.abs().max(1.0)
                }),
            _ => None,
        };
        out.push((m.name.clone(), value, examples.filter(|e| e.len() >= 2)));
    }
    Some(Ok(out))
}

#[cfg(not(feature = "full"))]
fn open_unlearning(_: &str, _: &str, _: &Value) -> Option<Result<Vec<FileMetric>>> {
    None
}

/// The runs of one file.
fn read_file(name: &str, method: &str, text: &str) -> Result<Vec<FileRun>> {
    let place = format!("`{name}`");
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let t = text.trim_start();
    let not_ours = || {
        refused(
            "not_a_result_file",
            format!(
                "{place} (method `{method}`) is not a result file Lethe reads: give open-unlearning's \
                 TOFU/MUSE EVAL or SUMMARY files, a JSON object of metrics, Lethe's own JSON reports (`--json`), or \
                 a `lethe merge` table; or put every run in one runs table (method, seed, a column per metric)"
            ),
        )
    };
    if t.starts_with('{') || t.starts_with('[') {
        let v = parse_json(t).map_err(|e| {
            refused(
                "not_a_result_file",
                format!("{place} (method `{method}`) is not valid JSON ({e}): give the file the tool wrote"),
            )
        })?;
        // A `lethe merge` table written as JSON: a list of rows.
        if let Value::Array(rows) = &v {
            let rows: Vec<(String, serde_json::Map<String, Value>)> = rows
                .iter()
                .enumerate()
                .map(|(i, r)| r.as_object().map(|o| (format!("{place} record {i}"), o.clone())))
                .collect::<Option<_>>()
                .ok_or_else(not_ours)?;
            if rows.is_empty()
                || !rows
                    .iter()
                    .all(|(_, o)| o.contains_key("cell") && o.contains_key("command"))
            {
                return Err(not_ours());
            }
            return merge_rows(method, rows);
        }
        let Value::Object(o) = &v else {
            return Err(not_ours());
        };
        if o.contains_key("lethe_version") && o.contains_key("command") && o.contains_key("result") {
            let mut cols = serde_json::Map::new();
            crate::report::report_columns(&v, &mut cols);
            let mut metrics = report_metrics(&cols);
            // A report of one run whose numbers sit in `result.runs[0]` (`lethe ruler` with one unlearned model,
            // whose m1–m4 are there): that run's numbers by their names, and a metric object's `value` (m4's
            // `nn_percentile_rank`) by the object's name. The columns above skip lists.
            if let Some([Value::Object(run)]) = v["result"]["runs"].as_array().map(Vec::as_slice) {
                for (k, x) in run {
                    let n = match x {
                        Value::Number(n) => n.as_f64(),
                        Value::Object(o) => o.get("value").and_then(Value::as_f64),
                        _ => None,
                    };
                    if let Some(n) = n {
                        metrics.push((k.clone(), Some(n), None));
                    }
                }
            }
            return Ok(vec![FileRun {
                place: place.clone(),
                seed: None,
                metrics,
                oracle: warns_oracle(&cols),
            }]);
        }
        if let Some(m) = open_unlearning(&place, method, &v) {
            return Ok(vec![FileRun {
                place: place.clone(),
                seed: None,
                metrics: m?,
                oracle: false,
            }]);
        }
        // A flat object of numbers, one per metric (MUSE's auc.json).
        let mut metrics = Vec::new();
        for (k, x) in o {
            let value = match x {
                Value::Null => None,
                Value::Number(n) => Some(finite(&place, method, k, n.as_f64().unwrap_or(f64::NAN))?),
                Value::String(s) if matches!(s.as_str(), "NaN" | "Infinity" | "-Infinity") => {
                    finite(&place, method, k, f64::NAN)?;
                    None
                }
                _ => return Err(not_ours()),
            };
            metrics.push((k.clone(), value, None));
        }
        if metrics.is_empty() {
            return Err(not_ours());
        }
        return Ok(vec![FileRun {
            place: place.clone(),
            seed: None,
            metrics,
            oracle: false,
        }]);
    }
    // A `lethe merge` table as CSV.
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(refused("empty_table", format!("{place} (method `{method}`) is empty")));
    };
    let names = cells(header, ',');
    if !(names.iter().any(|n| n == "cell") && names.iter().any(|n| n == "command")) {
        return Err(not_ours());
    }
    let mut rows = Vec::new();
    for (i, l) in lines {
        let at = format!("{place} line {}", i + 1);
        let c = cells(l, ',');
        if c.len() != names.len() {
            return Err(refused(
                "ragged_table",
                format!(
                    "{at} has {} cells but the header {} (method `{method}`): give the table lethe merge wrote",
                    c.len(),
                    names.len()
                ),
            ));
        }
        let mut o = serde_json::Map::new();
        for (n, cell) in names.iter().zip(c) {
            if cell.is_empty() {
                continue;
            }
            let v = if let Some(metric) = n.strip_prefix("result.") {
                match cell.parse::<f64>() {
                    Ok(x) => Value::from(finite(&at, method, metric, x)?),
                    // Text results (a method's name, a call) are not metrics.
                    Err(_) => Value::String(cell),
                }
            } else {
                Value::String(cell)
            };
            o.insert(n.clone(), v);
        }
        rows.push((at, o));
    }
    merge_rows(method, rows)
}

/// The runs of a `lethe merge` table's rows: the `id` the seed, the `result.…` numbers the metrics; a failed cell
/// is refused naming its row.
fn merge_rows(method: &str, rows: Vec<(String, serde_json::Map<String, Value>)>) -> Result<Vec<FileRun>> {
    rows.into_iter()
        .map(|(at, o)| {
            if let Some(e) = o.get("error").and_then(Value::as_str).filter(|e| !e.is_empty()) {
                return Err(refused(
                    "failed_run",
                    format!(
                        "{at} (method `{method}`) is a cell that failed ({e}): it has no results. Re-run that cell, or \
                         remove its row"
                    ),
                ));
            }
            Ok(FileRun {
                metrics: report_metrics(&o),
                oracle: warns_oracle(&o),
                seed: o
                    .get("id")
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string)),
                place: at,
            })
        })
        .collect()
}

/// The text of one result file and its record.
fn read_text(ws: &mut Workspace, method: &str, t: &TextInput) -> Result<(String, String, InputRecord)> {
    let (name, text, sha256) = match t {
        TextInput::Text { text } => {
            let sha256 = lethe::digest::sha256_hex(&text.as_bytes().to_vec(), |_, _| ())
                .map_err(|e| Error::at(ROLE, format!("pasted text: {e}")))?;
            (super::PASTED.to_string(), text.clone(), sha256)
        }
        TextInput::Source { source } => {
            let src = ws.source(*source).map_err(|e| Error::at(ROLE, e.message))?;
            let name = src.name.clone();
            if src.data.len() > lethe::data::DEFAULT_MAX_BYTES {
                return Err(Error::at(
                    ROLE,
                    format!("`{name}` (method `{method}`) is too large for a result file read whole"),
                ));
            }
            let len = usize::try_from(src.data.len()).map_err(|_| Error::at(ROLE, "the file is too large"))?;
            let mut bytes = vec![0u8; len];
            src.data
                .read_at(0, &mut bytes)
                .map_err(|e| Error::at(ROLE, format!("`{name}`: {e}")))?;
            // An archive (ML Privacy Meter's attack result) is read by the full module; the full module reads
            // a zip archive before it comes here, so an `.npz` here is no zip archive.
            if bytes.starts_with(b"PK\x03\x04") {
                return Err(Error::needs_full(format!(
                    "`{name}` (method `{method}`) is a NumPy archive: the full module reads it"
                )));
            }
            let text = String::from_utf8(bytes).map_err(|_| {
                Error::at(
                    ROLE,
                    if name.to_ascii_lowercase().ends_with(".npz") {
                        format!(
                            "`{name}` (method `{method}`) is named as a NumPy archive but is not one (a .npz is a zip \
                             archive; this one was cut short or is another file): give ML Privacy Meter's \
                             attack_result_0.npz as its audit wrote it"
                        )
                    } else {
                        format!(
                            "`{name}` (method `{method}`) is not UTF-8 text: give the JSON or CSV file the tool wrote"
                        )
                    },
                )
            })?;
            let sha256 = ws.sha256(*source, |_, _| ())?;
            (name, text, sha256)
        }
    };
    let rec = InputRecord {
        role: ROLE.into(),
        spec: format!("{method}={name}"),
        path: name.clone(),
        sha256,
        format: "result file".into(),
        dtype: "text".into(),
        shape: Vec::new(),
        tensor: None,
        rows_used: 0,
        row_file: None,
    };
    Ok((name, text, rec))
}

/// A list in a sentence: every item up to 6, else the count, the first 4 and "…" (open-unlearning's EVAL files hold
/// some twenty sub-metrics without a direction).
fn few_of(items: &[String]) -> String {
    if items.len() <= 6 {
        items.join(", ")
    } else {
        format!("{} metrics, {}, …", items.len(), items[..4].join(", "))
    }
}

/// Reads every method's result files into one runs table, with a record per file and the warnings of the reading.
/// `wanted`: the metrics asked for (each must be in every run); none asked: the metrics every run has and whose
/// direction is known, the others named in a warning.
///
/// # Errors
/// A method without a name or files; a file that is no result file Lethe reads, or almost one (what is wrong,
/// where); NaN or ±inf (file, row, metric); a metric asked for that a run lacks (file, row); no metric every run
/// has; two runs of a method with one seed (both files named).
pub fn read_methods(
    ws: &mut Workspace,
    groups: &[MethodFiles],
    wanted: &[String],
) -> Result<(RunsTable, Vec<InputRecord>, Vec<Warning>)> {
    let mut records = Vec::new();
    let mut warnings = Vec::new();
    let mut runs: Vec<(String, FileRun)> = Vec::new();
    for g in groups {
        let method = g.method.trim();
        if method.is_empty() {
            return Err(Error::at(ROLE, "every group of result files needs its method's name").usage());
        }
        if g.files.is_empty() {
            return Err(Error::at(
                ROLE,
                format!("method `{method}` has no result files: give one file per run"),
            )
            .usage());
        }
        let mut k = 0usize;
        for f in &g.files {
            let (name, found) = match f {
                #[cfg(feature = "full")]
                TextInput::Source { source } if super::compare_pm::is_npz(ws, *source) => {
                    let (name, metrics, rec) =
                        super::compare_pm::read_attack_result(ws, method, *source, &mut warnings)?;
                    records.push(rec);
                    let run = FileRun {
                        place: format!("`{name}`"),
                        seed: None,
                        metrics,
                        oracle: false,
                    };
                    (name, vec![run])
                }
                _ => {
                    let (name, text, mut rec) = read_text(ws, method, f)?;
                    let found = read_file(&name, method, &text)?;
                    rec.rows_used = found.len();
                    records.push(rec);
                    (name, found)
                }
            };
            for mut r in found {
                if r.seed.is_none() {
                    r.seed = seed_in_path(&name);
                }
                let seed = r.seed.take().unwrap_or_else(|| format!("#{k}"));
                k += 1;
                r.seed = Some(seed);
                runs.push((method.to_string(), r));
            }
        }
    }
    // Two runs of one method with one seed.
    for (i, (m, a)) in runs.iter().enumerate() {
        if let Some((_, b)) = runs[..i].iter().find(|(n, b)| n == m && b.seed == a.seed) {
            return Err(refused(
                "duplicate_run",
                format!(
                    "method `{m}` has seed {} twice, in {} and {}: each run would count twice. Give each run's file \
                     once, with its own seed in its path (…/seed3/…)",
                    a.seed.as_deref().unwrap_or(""),
                    b.place,
                    a.place
                ),
            ));
        }
    }
    // A method whose RULER reports are of the oracle compared with itself: perfect on the oracle's metrics whatever
    // unlearning achieves (a retrained model given as a method, and as each report's oracle too).
    let mut oracles: Vec<(&str, &str)> = Vec::new();
    for (m, r) in &runs {
        if r.oracle && !oracles.iter().any(|(n, _)| n == m) {
            oracles.push((m, &r.place));
        }
    }
    for (m, place) in oracles {
        // Placed by its message (the file named), not at the first of all the methods' files.
        warnings.push(Warning::new(
            "method_is_oracle",
            None,
            format!(
                "method `{m}`'s RULER reports compare the oracle with itself ({place} warns that the unlearned \
                 model's embeddings are the oracle's): its oracle_similarity is 1 and its calibration_gap 0 by \
                 construction, so it leads on them whatever the other methods achieve"
            ),
            Some(
                "compare the methods that unlearned, each report with the retrained model as its oracle and not as a \
                 method; or compare the retrained model on nn_percentile_rank only, which needs no oracle"
                    .into(),
            ),
        ));
    }
    // The metrics: those asked for, each in every run; else those every run has with a known direction.
    let has = |r: &FileRun, name: &str| r.metrics.iter().any(|(n, v, _)| n == name && v.is_some());
    let metrics: Vec<String> = if wanted.is_empty() {
        let mut all: Vec<String> = Vec::new();
        for (_, r) in &runs {
            for (n, _, _) in &r.metrics {
                if !all.contains(n) {
                    all.push(n.clone());
                }
            }
        }
        let mut lacking = Vec::new();
        let mut unknown = Vec::new();
        let mut twins = Vec::new();
        let mut keep: Vec<String> = Vec::new();
        let value = |r: &FileRun, name: &str| r.metrics.iter().find(|x| x.0 == name).and_then(|x| x.1);
        for n in all.into_iter().filter(|n| !describes_the_test(n)) {
            if let Some((m, r)) = runs.iter().find(|(_, r)| !has(r, &n)) {
                lacking.push(format!("{n} (not in {}, method `{m}`)", r.place));
            } else if known_direction(&n).is_none() {
                unknown.push(n);
            } else if let Some(same) = keep
                .iter()
                .find(|k| runs.iter().all(|(_, r)| value(r, k) == value(r, &n)))
            {
                // One number under two names (a Lethe MIA report's `delong.auc` and `summary.auc`): compared
                // twice, it would only make the family's correction stricter.
                twins.push(format!("{n} (the same value as {same} in every run)"));
            } else {
                keep.push(n);
            }
        }
        if !lacking.is_empty() || !unknown.is_empty() || !twins.is_empty() {
            let mut parts = Vec::new();
            if !lacking.is_empty() {
                parts.push(format!("not in every run: {}", few_of(&lacking)));
            }
            if !unknown.is_empty() {
                parts.push(format!("without a known direction: {}", few_of(&unknown)));
            }
            if !twins.is_empty() {
                parts.push(format!("counted once: {}", few_of(&twins)));
            }
            warnings.push(Warning::new(
                "metrics_left_out",
                Some(ROLE),
                format!(
                    "metrics of the result files left out of the comparison, {}",
                    parts.join("; ")
                ),
                Some(
                    "name the metrics to compare, each with its direction (e.g. forget_truth_ratio:higher); a metric \
                     a run lacks needs that run's evaluation re-run with it"
                        .into(),
                ),
            ));
        }
        if keep.is_empty() {
            return Err(refused(
                "no_common_metric",
                format!(
                    "the result files have no metric that every run has and whose direction is known{}: name the \
                     metrics to compare, each with its direction, e.g. forget_quality:higher",
                    warnings
                        .iter()
                        .find(|w| w.code == "metrics_left_out")
                        .map_or(" (they hold no numbers Lethe reads as metrics)".to_string(), |w| {
                            format!(" ({})", w.message)
                        })
                ),
            ));
        }
        keep
    } else {
        for n in wanted {
            if let Some((m, r)) = runs.iter().find(|(_, r)| !has(r, n)) {
                let mut its: Vec<&str> = r
                    .metrics
                    .iter()
                    .filter(|x| x.1.is_some())
                    .map(|x| x.0.as_str())
                    .collect();
                its.truncate(12);
                return Err(refused(
                    "missing_metric",
                    format!(
                        "{} (method `{m}`) has no value for the metric `{n}`{}; it has {}. Re-run that evaluation with \
                         the metric, leave the file out, or compare other metrics",
                        r.place,
                        if r.metrics.iter().any(|x| &x.0 == n) {
                            " (it is null: the evaluation could not compute it)"
                        } else {
                            ""
                        },
                        if its.is_empty() {
                            "none".to_string()
                        } else {
                            its.join(", ")
                        }
                    ),
                ));
            }
        }
        wanted.to_vec()
    };
    let table = RunsTable {
        runs: runs
            .into_iter()
            .map(|(method, r)| {
                let pick = |n: &String| r.metrics.iter().find(|(x, _, _)| x == n);
                Run {
                    values: metrics.iter().map(|n| pick(n).and_then(|m| m.1)).collect(),
                    examples: metrics.iter().map(|n| pick(n).and_then(|m| m.2.clone())).collect(),
                    place: r.place,
                    method,
                    seed: r.seed.unwrap_or_default(),
                    task: None,
                }
            })
            .collect(),
        metrics,
        has_task: false,
    };
    Ok((table, records, warnings))
}

/// `lethe compare`'s result files by method, written as the CLI writes them (`"NAME=FILE,FILE"`, a list of
/// those), as an object `{"NAME": ["FILE", …]}` (a Python dict), or in the request's own form (`[{"method": NAME,
/// "files": ["FILE", …]}]`): each path opened as a text file (`ws.add_path`), in the request's own form. Files
/// already given as sources (`{"kind": "source", …}`) are left as they are.
#[cfg(not(target_arch = "wasm32"))]
pub fn compare_methods(ws: &mut Workspace, v: Value) -> Result<Value> {
    let bad = || {
        Error::at(
            "methods",
            "give each method's result files as NAME=FILE,FILE,… (a list of those), or as {\"NAME\": [\"FILE\", …]}",
        )
        .usage()
    };
    let groups: Vec<(String, Vec<Value>)> = match v {
        Value::Null => Vec::new(),
        // A method's files as a list, or as one string `FILE,FILE,…`, split as the command line splits it.
        Value::Object(o) => o
            .into_iter()
            .map(|(k, v)| match v {
                Value::Array(a) => (k, a.into_iter().flat_map(split_files).collect()),
                one => (k, split_files(one)),
            })
            .collect(),
        Value::String(s) => vec![split_method(&s).ok_or_else(bad)?],
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(s) => split_method(&s).ok_or_else(bad),
                Value::Object(mut o) => {
                    let method = o
                        .remove("method")
                        .and_then(|m| m.as_str().map(str::to_string))
                        .ok_or_else(bad)?;
                    let files = match o.remove("files") {
                        Some(Value::Array(a)) => a.into_iter().flat_map(split_files).collect(),
                        Some(one @ Value::String(_)) => split_files(one),
                        _ => return Err(bad()),
                    };
                    Ok((method, files))
                }
                _ => Err(bad()),
            })
            .collect::<Result<_>>()?,
        _ => return Err(bad()),
    };
    let mut out = Vec::with_capacity(groups.len());
    for (method, files) in groups {
        // A method's files: those given, each folder's picked by the rule (its other files not even opened);
        // each folder a group of its own, so that the run says what it passed over.
        let mut fs = Vec::with_capacity(files.len());
        for f in files {
            match f {
                Value::String(path) if std::path::Path::new(&path).is_dir() => {
                    let dir = std::path::Path::new(&path);
                    let (paths, other) = files_in_folder(method.trim(), dir)?;
                    let mut ids = Vec::with_capacity(paths.len());
                    for p in paths {
                        let id = ws.add_path("methods", &p)?;
                        ids.push(serde_json::json!({"kind": "source", "source": id}));
                    }
                    if !fs.is_empty() {
                        out.push(serde_json::json!({"method": method, "files": std::mem::take(&mut fs)}));
                    }
                    out.push(serde_json::json!({
                        "method": method,
                        "files": ids,
                        "folder": dir.display().to_string(),
                        "passed_over": other,
                    }));
                }
                Value::String(path) => {
                    let id = ws.add_path("methods", std::path::Path::new(&path))?;
                    fs.push(serde_json::json!({"kind": "source", "source": id}));
                }
                other => fs.push(other),
            }
        }
        if !fs.is_empty() || !out.iter().any(|g| g["method"] == method.as_str()) {
            out.push(serde_json::json!({"method": method, "files": fs}));
        }
    }
    Ok(Value::Array(out))
}

/// A method's files given as one string `FILE,FILE,…` (as the command line gives them): each file; anything else
/// as it is.
#[cfg(not(target_arch = "wasm32"))]
fn split_files(v: Value) -> Vec<Value> {
    match v {
        Value::String(s) if s.contains(',') => s
            .split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(Value::from)
            .collect(),
        other => vec![other],
    }
}

/// What a folder's result files are looked for as, in the refusals' words.
const LOOKED_FOR: &str = "open-unlearning's *_SUMMARY.json or *_EVAL.json, ML Privacy Meter's \
                          attack_result_<N>.npz, Lethe's JSON reports (`--json`) and `lethe merge` tables";

/// The kind of ML Privacy Meter's per-model attack results, as the refusals name it.
const PRIVACY_METER: &str = "ML Privacy Meter attack result";

/// Whether a file name is ML Privacy Meter's result for one target model: `attack_result_<N>.npz` (its audit.py
/// `get_audit_results`), not `attack_result_average.npz` (the target models' scores pooled, which the per-model
/// files beside it already hold) nor `attack_result_average_dp.npz` (a DP audit's counts).
fn is_attack_result(name: &str) -> bool {
    name.strip_prefix("attack_result_")
        .and_then(|r| r.strip_suffix(".npz"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// A path's folders and name, whichever separator it was written with (a page's relative path, a Windows path).
fn segments(p: &str) -> Vec<&str> {
    p.split(['/', '\\']).filter(|s| !s.is_empty()).collect()
}

/// The one rule a folder's result files are picked by, for every front end (a folder read from disk by path, or a
/// folder's files given as sources by a page): among `files` (each its path inside the folder, which the rule reads,
/// and its path as messages show it), open-unlearning's `<BENCHMARK>_SUMMARY.json` (its `<BENCHMARK>_EVAL.json` of
/// the same run, beside it, holds the same numbers and is passed over) or `<BENCHMARK>_EVAL.json`, ML Privacy
/// Meter's `attack_result_<N>.npz` (one target model's; its `attack_result_average.npz` is passed over), Lethe's
/// JSON reports and `lethe merge` tables (known by their content: `kind_of(i)`, [`lethe_kind_of`] of the file's text,
/// asked only of the JSON and CSV files the names leave open). Files in hidden folders (Hydra's `.hydra/`), a
/// model's `config.json`, logs and the rest are not runs and are passed over. The picked files' indices, in path
/// order (folder by folder).
///
/// # Errors
/// No result file in the folder (naming it and what was looked for); files of several kinds (open-unlearning's
/// and Lethe's, two benchmarks, two Lethe analyses), or two runs with one seed (several methods' folders): which
/// of them is this method's runs is the user's to say.
pub fn pick_result_files(
    method: &str,
    shown: &str,
    files: &[(String, String)],
    mut kind_of: impl FnMut(usize) -> Option<String>,
) -> Result<Vec<usize>> {
    let mut order: Vec<usize> = (0..files.len())
        .filter(|&i| !segments(&files[i].0).iter().any(|s| s.starts_with('.')))
        .collect();
    order.sort_by(|&a, &b| segments(&files[a].0).cmp(&segments(&files[b].0)));
    let rel = |i: usize| segments(&files[i].0).join("/");
    let all: std::collections::HashSet<String> = order.iter().map(|&i| rel(i)).collect();
    // Each file's kind: open-unlearning's by its name (`TOFU_SUMMARY.json` → "TOFU"), Lethe's by its content.
    let mut found: Vec<(usize, String)> = Vec::new();
    let mut npz: Vec<usize> = Vec::new();
    for &i in &order {
        let p = rel(i);
        let name = p.rsplit('/').next().unwrap_or_default();
        let kind = if let Some(bench) = name.strip_suffix("_SUMMARY.json") {
            Some(format!("open-unlearning {bench}"))
        } else if let Some(bench) = name.strip_suffix("_EVAL.json") {
            // The SUMMARY beside it holds the same numbers: one run, not two.
            let summary = format!("{}{bench}_SUMMARY.json", &p[..p.len() - name.len()]);
            (!all.contains(&summary)).then(|| format!("open-unlearning {bench}"))
        } else if is_attack_result(name) {
            Some(PRIVACY_METER.to_string())
        } else if name.ends_with(".npz") {
            npz.push(i);
            None
        } else if name.ends_with(".json") || name.ends_with(".csv") {
            kind_of(i)
        } else {
            None
        };
        if let Some(k) = kind {
            found.push((i, k));
        }
    }
    let show = |i: usize| files[i].1.as_str();
    if found.is_empty() {
        let pm = npz
            .first()
            .map(|&i| {
                format!(
                    ". It holds .npz files (`{}`, …), but none named as ML Privacy Meter names one target model's \
                     attack result (report/exp/attack_result_0.npz; attack_result_average.npz, the target models \
                     pooled, is passed over): to compare an archive as a run, give its path",
                    show(i),
                )
            })
            .unwrap_or_default();
        return Err(Error::refused(
            "no_result_files",
            Some(ROLE),
            format!(
                "the folder `{shown}` (method `{method}`) holds no result file Lethe reads: looked for {LOOKED_FOR}, \
                 in it and every folder under it{pm}. Give the result files' paths"
            ),
        ));
    }
    let mut distinct: Vec<&str> = found.iter().map(|(_, k)| k.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() > 1 {
        let example = |k: &str| {
            found
                .iter()
                .find(|(_, x)| x == k)
                .map(|&(i, _)| show(i))
                .unwrap_or_default()
        };
        let list: Vec<String> = distinct.iter().map(|k| format!("{k} (`{}`)", example(k))).collect();
        return Err(Error::refused(
            "ambiguous_result_files",
            Some(ROLE),
            format!(
                "the folder `{shown}` (method `{method}`) holds result files of {} kinds: {}; each run is one \
                 evaluation of the method, so which files are its runs is yours to say: give those files' paths, or \
                 the folder that holds only them",
                distinct.len(),
                list.join(", ")
            ),
        ));
    }
    // Two files with one seed in their paths: runs of several methods (the folder above the methods' folders).
    for (k, (a, kind)) in found.iter().enumerate() {
        let sa = seed_in_path(show(*a));
        if let Some(&(b, _)) = sa.as_ref().and_then(|s| {
            found[..k]
                .iter()
                .find(|&&(b, _)| seed_in_path(show(b)).as_ref() == Some(s))
        }) {
            // privacy-meter audits each target model of a run into its own attack_result_<N>.npz.
            let models = if kind == PRIVACY_METER {
                " or several target models of one ML Privacy Meter run (each a run of the method: give them in a \
                 folder without a seed in its path, or give one per seed)"
            } else {
                ""
            };
            return Err(Error::refused(
                "ambiguous_result_files",
                Some(ROLE),
                format!(
                    "the folder `{shown}` (method `{method}`) holds two runs with seed {} (`{}` and `{}`): it may \
                     hold several methods' runs{models}. Give the folder of this method's runs only, or its files' \
                     paths",
                    sa.as_deref().unwrap_or(""),
                    show(b),
                    show(*a)
                ),
            ));
        }
    }
    Ok(found.into_iter().map(|(i, _)| i).collect())
}

/// The result files the tools wrote in `dir` and the folders under it, one run each, by path, as
/// [`pick_result_files`] picks them; and how many other files the folder holds (passed over).
///
/// # Errors
/// A folder that cannot be read or holds more than 100000 files; those of [`pick_result_files`].
#[cfg(not(target_arch = "wasm32"))]
pub fn files_in_folder(method: &str, dir: &std::path::Path) -> Result<(Vec<std::path::PathBuf>, usize)> {
    use std::path::PathBuf;
    let shown = dir.display().to_string();
    let mut all: Vec<PathBuf> = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    // A deep tree (a whole disk given by mistake) is cut off. Hidden folders are listed as a page lists them (the
    // rule passes them over); nothing in them is read.
    let mut seen = 0usize;
    while let Some(d) = todo.pop() {
        let entries = std::fs::read_dir(&d).map_err(|e| {
            Error::at(
                ROLE,
                format!("`{}` (method `{method}`): the folder cannot be read: {e}", d.display()),
            )
        })?;
        for e in entries.flatten() {
            seen += 1;
            if seen > 100_000 {
                return Err(Error::at(
                    ROLE,
                    format!(
                        "`{shown}` (method `{method}`) holds more than 100000 files: give the folder of the method's \
                         runs, or the result files themselves"
                    ),
                ));
            }
            match e.file_type() {
                Ok(t) if t.is_dir() => todo.push(e.path()),
                Ok(t) if t.is_file() => all.push(e.path()),
                _ => {}
            }
        }
    }
    let files: Vec<(String, String)> = all
        .iter()
        .map(|p| {
            let rel = p.strip_prefix(dir).unwrap_or(p);
            (rel.to_string_lossy().to_string(), p.display().to_string())
        })
        .collect();
    let picked = pick_result_files(method, &shown, &files, |i| lethe_kind(&all[i]))?;
    let other = all.len() - picked.len();
    Ok((picked.into_iter().map(|i| all[i].clone()).collect(), other))
}

/// How much of a file's beginning tells whether Lethe wrote it.
const HEAD_BYTES: usize = 1 << 20;

/// The kind of a JSON or CSV file Lethe wrote (its report: "Lethe `mia` report"; "lethe merge table"), from its
/// first [`HEAD_BYTES`] (`head`; `whole()`: its whole text, read only when the head says it is a report); `None`
/// for any other file.
pub fn lethe_kind_of(head: &[u8], whole: impl FnOnce() -> Option<String>) -> Option<String> {
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with('{') {
        // A report is small: read whole only when its head says it is one.
        if !t.contains("\"lethe_version\"") {
            return None;
        }
        let v: Value = serde_json::from_str(whole()?.trim_start_matches('\u{feff}')).ok()?;
        let command = v.get("command")?.as_str()?;
        v.get("result")?;
        Some(format!("Lethe `{command}` report"))
    } else {
        let header = t.lines().next()?;
        let names = cells(header, ',');
        (names.iter().any(|n| n == "cell") && names.iter().any(|n| n == "command"))
            .then(|| "lethe merge table".to_string())
    }
}

/// [`lethe_kind_of`] a file on disk.
#[cfg(not(target_arch = "wasm32"))]
fn lethe_kind(p: &std::path::Path) -> Option<String> {
    use std::io::Read as _;
    let mut head = Vec::new();
    std::fs::File::open(p)
        .ok()?
        .take(HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .ok()?;
    lethe_kind_of(&head, || std::fs::read_to_string(p).ok())
}

/// [`lethe_kind_of`] a source.
fn source_kind(ws: &Workspace, id: u32) -> Option<String> {
    let src = ws.source(id).ok()?;
    let read = |n: u64| {
        let mut b = vec![0u8; usize::try_from(n).ok()?];
        src.data.read_at(0, &mut b).ok()?;
        Some(b)
    };
    let len = src.data.len();
    let head = read(len.min(HEAD_BYTES as u64))?;
    lethe_kind_of(&head, || {
        (len <= lethe::data::DEFAULT_MAX_BYTES)
            .then(|| read(len))
            .flatten()
            .and_then(|b| String::from_utf8(b).ok())
    })
}

/// The methods of a request with each folder's files (a group with `folder`) replaced by the result files picked
/// among them ([`pick_result_files`], the rule of a folder read by path), a group without a name named after its
/// folder or split into its methods' folders; and the warning that says what was passed over.
///
/// # Errors
/// Those of [`pick_result_files`]; a folder's file that is no longer loaded.
pub fn resolve_folders(ws: &Workspace, groups: &[MethodFiles]) -> Result<(Vec<MethodFiles>, Vec<Warning>)> {
    let mut out: Vec<MethodFiles> = Vec::with_capacity(groups.len());
    let mut notes: Vec<String> = Vec::new();
    for g in groups {
        let Some(folder) = &g.folder else {
            match out.last_mut() {
                Some(last) if last.method.trim() == g.method.trim() && !g.method.trim().is_empty() => {
                    last.files.extend(g.files.iter().cloned());
                }
                _ => out.push(g.clone()),
            }
            continue;
        };
        let shown = folder.trim_end_matches(['/', '\\']).to_string();
        let root = segments(&shown);
        // Each file: its path inside the folder (its name without the folder's), and its name.
        let mut files: Vec<(String, String)> = Vec::with_capacity(g.files.len());
        for f in &g.files {
            let name = match f {
                TextInput::Source { source } => {
                    ws.source(*source).map_err(|e| Error::at(ROLE, e.message))?.name.clone()
                }
                TextInput::Text { .. } => super::PASTED.to_string(),
            };
            let s = segments(&name);
            let rel = if s.len() > root.len() && s[..root.len()] == root[..] {
                s[root.len()..].join("/")
            } else {
                s.join("/")
            };
            files.push((rel, name));
        }
        let kind = |i: usize| match &g.files[i] {
            TextInput::Source { source } => source_kind(ws, *source),
            TextInput::Text { .. } => None,
        };
        let method = g.method.trim();
        let folder_name = root.last().copied().unwrap_or("the folder").to_string();
        let named = if method.is_empty() {
            folder_name.as_str()
        } else {
            method
        };
        let picked = match pick_result_files(named, &shown, &files, kind) {
            Ok(p) => vec![(named.to_string(), p)],
            Err(e) if method.is_empty() && e.code.as_deref() == Some("ambiguous_result_files") => {
                // The folder above several methods' folders: each of its folders one method, named after it.
                let mut subs: Vec<&str> = files
                    .iter()
                    .filter_map(|(rel, _)| {
                        let s = segments(rel);
                        (s.len() > 1 && !s[0].starts_with('.')).then_some(s[0])
                    })
                    .collect();
                subs.sort_unstable();
                subs.dedup();
                if subs.len() < 2 {
                    return Err(e);
                }
                // A result file beside the methods' folders belongs to none of them.
                let top: Vec<(String, String)> = files
                    .iter()
                    .filter(|(rel, _)| segments(rel).len() == 1)
                    .cloned()
                    .collect();
                if pick_result_files(named, &shown, &top, |_| None).is_ok() {
                    return Err(e);
                }
                let mut split = Vec::new();
                for sub in subs {
                    let idx: Vec<usize> = (0..files.len())
                        .filter(|&i| segments(&files[i].0).first() == Some(&sub))
                        .collect();
                    let these: Vec<(String, String)> = idx
                        .iter()
                        .map(|&i| (segments(&files[i].0)[1..].join("/"), files[i].1.clone()))
                        .collect();
                    let at = format!("{shown}/{sub}");
                    let p = pick_result_files(sub, &at, &these, |k| kind(idx[k]))?;
                    split.push((sub.to_string(), p.into_iter().map(|k| idx[k]).collect()));
                }
                split
            }
            Err(e) => return Err(e),
        };
        let n: usize = picked.iter().map(|(_, p)| p.len()).sum();
        let other = g.files.len() - n + g.passed_over;
        if other > 0 {
            let names: Vec<String> = picked.iter().map(|(m, _)| format!("`{m}`")).collect();
            notes.push(format!(
                "`{shown}` ({} {}): {n} result file{}, {other} other file{} passed over",
                if names.len() == 1 { "method" } else { "methods" },
                names.join(", "),
                if n == 1 { "" } else { "s" },
                if other == 1 { "" } else { "s" },
            ));
        }
        for (m, p) in picked {
            // A method's folder and its other files (the command line's `NAME=FOLDER,FILE`): one method.
            if let Some(last) = out.last_mut().filter(|l: &&mut MethodFiles| l.method.trim() == m) {
                last.files.extend(p.into_iter().map(|i| g.files[i].clone()));
                continue;
            }
            out.push(MethodFiles {
                method: m,
                files: p.into_iter().map(|i| g.files[i].clone()).collect(),
                folder: None,
                passed_over: 0,
            });
        }
    }
    let warnings = if notes.is_empty() {
        Vec::new()
    } else {
        vec![Warning::new(
            "files_passed_over",
            Some(ROLE),
            format!(
                "result files picked from the methods' folders, one run each; the other files passed over: {} (an \
                 EVAL file beside its run's SUMMARY holds the same numbers; configs, logs and hidden folders are not \
                 runs)",
                notes.join("; ")
            ),
            Some("if a run is missing, give its result file's path among the method's files".into()),
        )]
    };
    Ok((out, warnings))
}

/// `NAME=FILE,FILE,…` as the method and its files.
#[cfg(not(target_arch = "wasm32"))]
fn split_method(s: &str) -> Option<(String, Vec<Value>)> {
    let (name, files) = s.split_once('=')?;
    let files: Vec<Value> = files
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(Value::from)
        .collect();
    (!name.trim().is_empty() && !files.is_empty()).then(|| (name.trim().to_string(), files))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyses::{CompareReport, CompareRequest, run_compare};
    use crate::workspace::tests::ws_with;

    /// A SUMMARY file as open-unlearning writes it: `json.dump(dict(sorted(logs.items())), f, indent=4)`
    /// (src/evals/base.py `Evaluator.save_logs` at d3d7cf9), Python's float repr, `NaN` for a NaN.
    fn summary(metrics: &[(&str, f64)]) -> String {
        let mut m: Vec<&(&str, f64)> = metrics.iter().collect();
        m.sort_by(|a, b| a.0.cmp(b.0));
        let body: Vec<String> = m
            .iter()
            .map(|(k, v)| {
                format!(
                    "    \"{k}\": {}",
                    if v.is_nan() {
                        "NaN".to_string()
                    } else {
                        format!("{v:?}")
                    }
                )
            })
            .collect();
        format!("{{\n{}\n}}", body.join(",\n"))
    }

    /// Runs `compare` on files (path, contents) grouped by method (method, the files' indices).
    /// The report's warning with stable code `code` (the test fails when there is none).
    fn warning<'a>(r: &'a CompareReport, code: &str) -> &'a crate::report::Warning {
        r.warnings
            .iter()
            .find(|w| w.code == code)
            .unwrap_or_else(|| panic!("no {code} warning: {:?}", r.warnings))
    }

    fn compare(
        files: &[(&str, String)],
        groups: &[(&str, &[usize])],
        f: impl FnOnce(&mut CompareRequest),
    ) -> Result<CompareReport> {
        let bytes: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
        compare_bytes(&bytes, groups, f)
    }

    /// [`compare`] of files given as bytes (archives).
    fn compare_bytes(
        files: &[(&str, &[u8])],
        groups: &[(&str, &[usize])],
        f: impl FnOnce(&mut CompareRequest),
    ) -> Result<CompareReport> {
        let owned: Vec<(u32, &str, &[u8])> = files
            .iter()
            .enumerate()
            .map(|(i, (n, t))| (i as u32 + 1, *n, *t))
            .collect();
        let mut ws = ws_with(&owned);
        let mut req = CompareRequest {
            methods: groups
                .iter()
                .map(|(m, ix)| MethodFiles {
                    method: (*m).to_string(),
                    files: ix.iter().map(|&i| TextInput::Source { source: i as u32 + 1 }).collect(),
                    folder: None,
                    passed_over: 0,
                })
                .collect(),
            resamples: 200,
            ..CompareRequest::default()
        };
        f(&mut req);
        run_compare(&mut ws, &req)
    }

    /// Two methods × 3 seeds of open-unlearning SUMMARY files, in a method/seedN/ layout.
    fn six() -> Vec<(String, String)> {
        let mut v = Vec::new();
        for (m, fq, mu) in [
            ("npo", [0.9, 0.8, 0.85], 0.6),
            ("grad_ascent", [0.01, 0.02, 0.015], 0.3),
        ] {
            for (s, q) in fq.iter().enumerate() {
                v.push((
                    format!("{m}/seed{s}/TOFU_SUMMARY.json"),
                    summary(&[
                        ("forget_quality", *q),
                        ("model_utility", mu + 0.01 * s as f64),
                        ("forget_Q_A_Prob", 0.2),
                    ]),
                ));
            }
        }
        v
    }

    fn refs(v: &[(String, String)]) -> Vec<(&str, String)> {
        v.iter().map(|(n, t)| (n.as_str(), t.clone())).collect()
    }

    #[test]
    fn summary_files_by_method_are_runs_with_seeds_from_their_paths() {
        let files = six();
        let r = compare(
            &refs(&files),
            &[("npo", &[0, 1, 2]), ("grad_ascent", &[3, 4, 5])],
            |_| {},
        )
        .expect("run");
        assert_eq!(r.result.methods, vec!["npo", "grad_ascent"]);
        let names: Vec<&str> = r.result.metrics.iter().map(|m| m.metric.as_str()).collect();
        assert_eq!(names, vec!["forget_quality", "model_utility"]);
        let left = warning(&r, "metrics_left_out");
        assert!(left.message.contains("forget_Q_A_Prob"), "{}", left.message);
        assert_eq!(r.inputs.len(), 6);
        assert_eq!(r.inputs[0].spec, "npo=npo/seed0/TOFU_SUMMARY.json");
        assert_eq!(
            r.parameters.methods[0],
            "npo=npo/seed0/TOFU_SUMMARY.json,npo/seed1/TOFU_SUMMARY.json,npo/seed2/TOFU_SUMMARY.json"
        );
        // Seeds from the paths pair the runs: Wilcoxon by seed is computed.
        let c = &r.result.comparisons[0];
        assert!(c.wilcoxon_by_seed.is_some(), "{c:?}");
        assert_eq!(c.n_a, 3);
        // The same request from one runs table gives the same comparisons.
        let mut table = String::from("method,seed,forget_quality,model_utility\n");
        for (m, s, q, u) in [
            ("npo", 0, 0.9, 0.6),
            ("npo", 1, 0.8, 0.61),
            ("npo", 2, 0.85, 0.62),
            ("grad_ascent", 0, 0.01, 0.3),
            ("grad_ascent", 1, 0.02, 0.31),
            ("grad_ascent", 2, 0.015, 0.32),
        ] {
            table.push_str(&format!("{m},{s},{q},{u}\n"));
        }
        let mut ws = Workspace::new();
        let t = run_compare(
            &mut ws,
            &CompareRequest {
                runs: Some(TextInput::Text { text: table }),
                resamples: 200,
                ..CompareRequest::default()
            },
        )
        .expect("table");
        let texts = |r: &CompareReport| r.result.comparisons.iter().map(|c| c.text.clone()).collect::<Vec<_>>();
        assert_eq!(texts(&r), texts(&t));
    }

    #[test]
    fn bad_result_files_are_refused_naming_the_file() {
        let mut files = six();
        // NaN, as Python's json.dump writes it.
        files[4].1 = summary(&[("forget_quality", f64::NAN), ("model_utility", 0.3)]);
        let e = compare(
            &refs(&files),
            &[("npo", &[0, 1, 2]), ("grad_ascent", &[3, 4, 5])],
            |_| {},
        )
        .expect_err("nan");
        assert_eq!(e.code.as_deref(), Some("non_finite"));
        assert!(
            e.message.contains("`grad_ascent/seed1/TOFU_SUMMARY.json`") && e.message.contains("`forget_quality`"),
            "{}",
            e.message
        );
        // A metric asked for that one file lacks.
        let mut files = six();
        files[2].1 = summary(&[("model_utility", 0.6)]);
        let e = compare(
            &refs(&files),
            &[("npo", &[0, 1, 2]), ("grad_ascent", &[3, 4, 5])],
            |q| {
                q.metrics = vec!["forget_quality".into()];
            },
        )
        .expect_err("missing");
        assert_eq!(e.code.as_deref(), Some("missing_metric"));
        assert!(
            e.message.contains("`npo/seed2/TOFU_SUMMARY.json`") && e.message.contains("model_utility"),
            "{}",
            e.message
        );
        // Not asked for: left out with a warning naming the file.
        let r = compare(
            &refs(&files),
            &[("npo", &[0, 1, 2]), ("grad_ascent", &[3, 4, 5])],
            |_| {},
        )
        .expect("run");
        let w = warning(&r, "metrics_left_out");
        assert!(
            w.message
                .contains("forget_quality (not in `npo/seed2/TOFU_SUMMARY.json`"),
            "{}",
            w.message
        );
        // Two files of one method with one seed.
        let files = six();
        let e = compare(
            &refs(&files),
            &[("npo", &[0, 1, 0]), ("grad_ascent", &[3, 4, 5])],
            |_| {},
        )
        .expect_err("dup");
        assert_eq!(e.code.as_deref(), Some("duplicate_run"));
        assert!(
            e.message.contains("seed 0 twice") && e.message.contains("`npo/seed0/TOFU_SUMMARY.json`"),
            "{}",
            e.message
        );
        // A file that is no result file.
        let e = compare(&[("notes.txt", "hello".into())], &[("npo", &[0])], |_| {}).expect_err("not ours");
        assert_eq!(e.code.as_deref(), Some("not_a_result_file"));
        assert!(e.message.contains("`notes.txt` (method `npo`)"), "{}", e.message);
    }

    #[test]
    fn lethe_reports_and_merge_tables_give_the_same_metrics() {
        let report = |auc: f64| {
            format!(
                r#"{{"lethe_version": "0.1.0", "command": "mia", "parameters": {{"alpha": 0.05}}, "seed": null,
                "inputs": [], "headline": {{"call": "no_leak", "text": "t", "reason": null}}, "warnings": [],
                "result": {{"summary": {{"auc": {auc}, "n_members": 10}}, "method": "x"}}}}"#
            )
        };
        let aucs = [[0.51, 0.52, 0.50], [0.70, 0.72, 0.69]];
        let mut files: Vec<(String, String)> = Vec::new();
        for (m, a) in ["retrain", "noop"].iter().zip(aucs) {
            for (s, auc) in a.iter().enumerate() {
                files.push((format!("{m}/seed{s}/mia.json"), report(*auc)));
            }
        }
        // The same reports as lethe merge writes them (CSV), one table per method, ids as seeds.
        for (m, a) in ["retrain", "noop"].iter().zip(aucs) {
            let mut csv = String::from(
                "cell,id,command,call,headline,reason,warnings,error,parameters.alpha,result.method,result.summary.auc,result.summary.n_members\n",
            );
            for (s, auc) in a.iter().enumerate() {
                csv.push_str(&format!("{s},{s},mia,no_leak,t,,,,0.05,x,{auc},10\n"));
            }
            files.push((format!("{m}_merged.csv"), csv));
        }
        let f = refs(&files);
        let a = compare(&f, &[("retrain", &[0, 1, 2]), ("noop", &[3, 4, 5])], |_| {}).expect("reports");
        let b = compare(&f, &[("retrain", &[6]), ("noop", &[7])], |_| {}).expect("merge");
        for r in [&a, &b] {
            let names: Vec<&str> = r.result.metrics.iter().map(|m| m.metric.as_str()).collect();
            assert_eq!(names, vec!["summary.auc"], "{:?}", r.warnings);
            assert_eq!(r.result.metrics[0].direction, "closest to 0.5");
        }
        assert_eq!(a.result.comparisons[0].text, b.result.comparisons[0].text);
        // A failed cell is refused naming its line.
        let mut bad = files[6].1.clone();
        bad.push_str("3,3,mia,,,,,[no_members] members: empty,,,,\n");
        let e = compare(&[("m.csv", bad)], &[("retrain", &[0])], |_| {}).expect_err("failed");
        assert_eq!(e.code.as_deref(), Some("failed_run"));
        assert!(e.message.contains("`m.csv` line 5"), "{}", e.message);
    }

    /// Found trying compare with `lethe ruler --json` and `lethe mia --json` reports of 4 seeds (bench/trial_compare):
    /// ruler's m1–m4 sit in `result.runs[0]`, a list the report's columns skip, so no metric was found ("no metric
    /// … whose direction is known ()"); an MIA report's `delong.auc` and `summary.auc` are one number, compared
    /// twice, so Holm over 2 tests made 4 seeds unable to show anything; and against a method of one run, every
    /// comparison read "inconclusive: retain has only 1 run on …", the same line for each other method.
    #[test]
    fn ruler_reports_give_m1_to_m4_and_one_number_under_two_names_is_compared_once() {
        let ruler = |m1: f64, m2: f64| {
            format!(
                r#"{{"lethe_version": "0.1.0", "command": "ruler", "parameters": {{}}, "seed": null, "inputs": [],
                "headline": {{"call": "inconclusive", "text": "t", "reason": null}}, "warnings": [],
                "result": {{"runs": [{{"oracle_similarity": {m1}, "calibration_gap": {m2}, "representation_shift": 0.01,
                "nn_percentile_rank": {{"value": 0.5, "ranks": [0.2, 0.8]}}, "withheld": [], "n_forget": 10}}],
                "across_runs": []}}}}"#
            )
        };
        let mut files: Vec<(String, String)> = Vec::new();
        for (m, base) in [("finetune", 0.9), ("original", 0.8)] {
            for s in 0..3 {
                files.push((
                    format!("{m}/ruler_seed{s}.json"),
                    ruler(base + 0.01 * s as f64, -0.01 * s as f64),
                ));
            }
        }
        // The retrained model given as a method: its report compares the oracle with itself.
        files.push((
            "retrain/ruler_seed0.json".into(),
            ruler(1.0, 0.0).replace(
                r#""warnings": []"#,
                r#""warnings": [{"code": "unlearned_is_oracle", "input": "unlearned", "message": "m", "fix": null}]"#,
            ),
        ));
        let f = refs(&files);
        let r = compare(
            &f,
            &[("finetune", &[0, 1, 2]), ("original", &[3, 4, 5]), ("retrain", &[6])],
            |_| {},
        )
        .expect("ruler reports");
        let got: Vec<(&str, &str)> = r
            .result
            .metrics
            .iter()
            .map(|m| (m.metric.as_str(), m.direction.as_str()))
            .collect();
        for want in [
            ("oracle_similarity", "higher"),
            ("calibration_gap", "closest to 0"),
            ("nn_percentile_rank", "closest to 0.5"),
        ] {
            assert!(got.contains(&want), "{got:?}");
        }
        // Against the one run of retrain: each comparison names both of its methods.
        let one: Vec<&str> = r
            .result
            .comparisons
            .iter()
            .filter(|c| c.metric == "oracle_similarity" && (c.a == "retrain" || c.b == "retrain"))
            .map(|c| c.text.as_str())
            .collect();
        assert_eq!(one.len(), 2, "{one:?}");
        assert_ne!(one[0], one[1]);
        for (t, other) in one.iter().zip(["finetune", "original"]) {
            assert!(t.contains(other) && t.contains("retrain has only 1 run"), "{t}");
        }
        // Row counts beside m1–m4 are not metrics left out (a new user's trial: "left out: n_forget, n_retain").
        assert!(
            !r.warnings.iter().any(|w| w.code == "metrics_left_out"),
            "{:?}",
            r.warnings
        );
        // The retrained model as a method is named as the oracle compared with itself, it alone.
        let oracle: Vec<&crate::report::Warning> = r.warnings.iter().filter(|w| w.code == "method_is_oracle").collect();
        assert_eq!(oracle.len(), 1, "{:?}", r.warnings);
        assert!(
            oracle[0].message.starts_with(
                "method `retrain`'s RULER reports compare the oracle with itself (`retrain/ruler_seed0.json`"
            ),
            "{}",
            oracle[0].message
        );
        // An MIA report: the DeLong section's AUC is the summary's.
        let mia = |auc: f64| {
            format!(
                r#"{{"lethe_version": "0.1.0", "command": "mia", "parameters": {{}}, "seed": null, "inputs": [],
                "headline": {{"call": "leak", "text": "t", "reason": null}}, "warnings": [],
                "result": {{"delong": {{"auc": {auc}, "alpha": 0.05, "interval": {{"lo": 0.4, "hi": 0.8}}}},
                "summary": {{"auc": {auc}, "n_members": 30, "balanced_accuracy": {auc}}}}}}}"#
            )
        };
        let files: Vec<(String, String)> = [0.5, 0.51, 0.52, 0.7, 0.72, 0.71]
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("m{}/seed{i}/mia.json", i / 3), mia(*a)))
            .collect();
        let r = compare(&refs(&files), &[("a", &[0, 1, 2]), ("b", &[3, 4, 5])], |_| {}).expect("mia reports");
        assert_eq!(r.result.metrics.len(), 1, "{:?}", r.warnings);
        assert_eq!(r.result.comparisons.len(), 1);
        let w = warning(&r, "metrics_left_out");
        assert!(
            w.message
                .contains("counted once: summary.auc (the same value as delong.auc in every run)"),
            "{}",
            w.message
        );
        // A measure of the attack without a direction is listed; the level, the interval's ends and the row count,
        // which describe the test, are not.
        assert!(
            w.message
                .contains("without a known direction: summary.balanced_accuracy;"),
            "{}",
            w.message
        );
        for not in ["alpha", "interval", "n_members"] {
            assert!(!w.message.contains(not), "{not}: {}", w.message);
        }
        // Reports without a metric name a reason, not an empty "()".
        let empty = mia(0.5).replace(
            r#"{"delong": {"auc": 0.5, "alpha": 0.05, "interval": {"lo": 0.4, "hi": 0.8}},
                "summary": {"auc": 0.5, "n_members": 30, "balanced_accuracy": 0.5}}"#,
            r#"{"runs": []}"#,
        );
        let e = compare(&[("x/seed0/r.json", empty)], &[("a", &[0])], |_| {}).expect_err("no metric");
        assert_eq!(e.code.as_deref(), Some("no_common_metric"));
        assert!(!e.message.contains("()"), "{}", e.message);
    }

    /// open-unlearning's own sample files (tests/fixtures/tools/open_unlearning, made by its writer's code): one
    /// run per method, with per-example probabilities, so the intervals over examples come with the warning; the
    /// truth ratio's aggregate is not the mean of its samples, so it has none.
    #[cfg(feature = "full")]
    #[test]
    fn one_run_with_per_example_values_warns_that_examples_are_not_seeds() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/tools/open_unlearning");
        let read = |d: &str| std::fs::read_to_string(format!("{root}/{d}/TOFU_EVAL.json")).expect("fixture");
        let files = [
            ("unlearned/TOFU_EVAL.json", read("unlearned")),
            ("overunlearned/TOFU_EVAL.json", read("overunlearned")),
        ];
        let r = compare(&files, &[("npo", &[0]), ("grad_diff", &[1])], |q| {
            q.metrics = vec!["forget_Q_A_Prob:lower".into(), "forget_truth_ratio:higher".into()];
        })
        .expect("run");
        let w = warning(&r, "examples_not_seeds");
        assert!(
            w.message.contains("npo on forget_Q_A_Prob (40 examples)"),
            "{}",
            w.message
        );
        assert!(w.message.contains("seed-to-seed variation"), "{}", w.message);
        assert!(!w.message.contains("forget_truth_ratio"), "{}", w.message);
        assert!(r.result.metrics[1].summaries.iter().all(|s| s.over_examples.is_none()));
        let s = &r.result.metrics[0].summaries[0];
        let e = s.over_examples.as_ref().expect("examples");
        assert_eq!(e.n, 40);
        assert!(e.t_interval.is_some());
        assert!(r.headline.is_inconclusive(), "{:?}", r.headline);
        assert!(r.warnings.iter().any(|w| w.code == "few_seeds"));
        // The value compared is the file's agg_value, the mean of the per-sample `prob`.
        let v: Value = lethe::tools::open_unlearning::parse_python_json(files[0].1.as_bytes()).expect("json");
        let agg = lethe::tools::open_unlearning::agg_value(&v, "forget_Q_A_Prob").expect("agg");
        assert_eq!(s.mean, agg);
        assert!((e.mean - agg).abs() < 1e-12);
    }

    /// A fresh folder under the system's temporary folder, with `files` (relative path, contents) in it.
    fn folder(tag: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("lethe-compare-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (p, t) in files {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, t).expect("write");
        }
        std::fs::create_dir_all(&root).expect("mkdir");
        root
    }

    /// The paths `compare_methods` opened for each method, relative to `root`.
    fn opened(ws: &Workspace, v: &Value, root: &std::path::Path) -> Vec<(String, Vec<String>)> {
        let by_id: std::collections::HashMap<u32, String> = ws
            .paths()
            .map(|(id, p)| (id, p.strip_prefix(root).unwrap_or(p).display().to_string()))
            .collect();
        v.as_array()
            .expect("list")
            .iter()
            .map(|g| {
                let files = g["files"]
                    .as_array()
                    .expect("files")
                    .iter()
                    .map(|f| by_id[&(f["source"].as_u64().expect("id") as u32)].clone())
                    .collect();
                (g["method"].as_str().expect("name").to_string(), files)
            })
            .collect()
    }

    /// Found trying compare as a new user (bench/trial_compare): open-unlearning writes one folder per run
    /// (`NPO/seed0/TOFU_EVAL.json` + `TOFU_SUMMARY.json`), and `--method NPO=runs_ou/NPO` (or `…/NPO/seed0`) was
    /// refused with "it is a directory". A folder now gives the result files in it and under it, one run each, the
    /// SUMMARY preferred to the EVAL of the same run; none, or files of several kinds, or two runs of one seed, are
    /// refused naming the folder.
    #[test]
    fn a_folder_gives_its_result_files_one_run_each() {
        let s = |q: f64| summary(&[("forget_quality", q), ("model_utility", 0.5 + q / 10.0)]);
        let eval = r#"{"forget_quality": {"agg_value": 0.5}}"#;
        let (s0, s1, s2, g0) = (s(0.9), s(0.8), s(0.85), s(0.01));
        let root = folder(
            "runs",
            &[
                ("NPO/seed0/TOFU_SUMMARY.json", &s0),
                ("NPO/seed0/TOFU_EVAL.json", eval),
                ("NPO/seed0/.hydra/config.yaml", "a: 1"),
                ("NPO/seed0/eval.log", "log"),
                ("NPO/seed1/TOFU_SUMMARY.json", &s1),
                ("NPO/seed1/TOFU_EVAL.json", eval),
                ("NPO/seed2/TOFU_SUMMARY.json", &s2),
                (
                    "NPO/seed2/model/config.json",
                    r#"{"hidden_size": 4096, "model_type": "llama"}"#,
                ),
                ("GA/seed0/TOFU_EVAL.json", &g0),
                ("retain/TOFU_EVAL.json", &s(0.99)),
                ("empty/notes.txt", "nothing"),
            ],
        );
        let at = |p: &str| root.join(p).display().to_string();
        let mut ws = Workspace::new();
        let v = compare_methods(
            &mut ws,
            serde_json::json!({"NPO": at("NPO"), "GA": [at("GA/seed0")], "retain": at("retain")}),
        )
        .expect("folders");
        let got = opened(&ws, &v, &root);
        let want = |m: &str, f: &[&str]| (m.to_string(), f.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(
            got,
            vec![
                want("GA", &["GA/seed0/TOFU_EVAL.json"]),
                want(
                    "NPO",
                    &[
                        "NPO/seed0/TOFU_SUMMARY.json",
                        "NPO/seed1/TOFU_SUMMARY.json",
                        "NPO/seed2/TOFU_SUMMARY.json"
                    ]
                ),
                want("retain", &["retain/TOFU_EVAL.json"]),
            ]
        );
        // The runs compare with seeds from their paths.
        let methods: Vec<MethodFiles> = serde_json::from_value(v).expect("request");
        let r = run_compare(
            &mut ws,
            &CompareRequest {
                methods,
                resamples: 200,
                ..CompareRequest::default()
            },
        )
        .expect("run");
        assert_eq!(r.inputs.len(), 5);
        let npo = r.result.metrics[0]
            .summaries
            .iter()
            .find(|x| x.method == "NPO")
            .expect("npo");
        assert_eq!(npo.n, 3);
        // A folder without result files: refused naming it and what was looked for.
        let e = compare_methods(&mut Workspace::new(), serde_json::json!([format!("x={}", at("empty"))]))
            .expect_err("none");
        assert_eq!(e.code.as_deref(), Some("no_result_files"));
        assert!(
            e.message.contains(&format!("`{}` (method `x`)", at("empty"))) && e.message.contains("*_SUMMARY.json"),
            "{}",
            e.message
        );
        // ML Privacy Meter's folder: each target model's attack_result_<N>.npz a run, the average of them and its
        // plots passed over; an archive under another name is named in the refusal, with how to give it.
        let pm = folder(
            "pm",
            &[
                ("seed1/report/exp/attack_result_0.npz", "PK\u{3}\u{4}"),
                ("seed1/report/exp/ROC_0.png", "png"),
                ("seed2/report/exp/attack_result_0.npz", "PK\u{3}\u{4}"),
                ("seed2/report/attack_result_average.npz", "PK\u{3}\u{4}"),
                ("seed2/report/attack_result_average_dp.npz", "PK\u{3}\u{4}"),
                ("other/scores.npz", "PK\u{3}\u{4}"),
                ("seed3/report/exp/attack_result_0.npz", "PK\u{3}\u{4}"),
                ("seed3/report/exp/attack_result_1.npz", "PK\u{3}\u{4}"),
            ],
        );
        let mut ws = Workspace::new();
        let v = compare_methods(&mut ws, serde_json::json!({"x": pm.join("seed1").display().to_string(), "y": pm.join("seed2").display().to_string()}))
            .expect("npz");
        assert_eq!(
            opened(&ws, &v, &pm),
            vec![
                want("x", &["seed1/report/exp/attack_result_0.npz"]),
                want("y", &["seed2/report/exp/attack_result_0.npz"])
            ]
        );
        let e = compare_methods(
            &mut Workspace::new(),
            serde_json::json!({"x": pm.join("other").display().to_string()}),
        )
        .expect_err("npz");
        assert_eq!(e.code.as_deref(), Some("no_result_files"));
        assert!(
            e.message.contains("scores.npz")
                && e.message.contains("attack_result_0.npz")
                && e.message.contains("give its path"),
            "{}",
            e.message
        );
        // Two target models of one privacy-meter run under one seed: which are the method's runs is the user's to say.
        let e = compare_methods(
            &mut Workspace::new(),
            serde_json::json!({"x": pm.join("seed3").display().to_string()}),
        )
        .expect_err("two models");
        assert_eq!(e.code.as_deref(), Some("ambiguous_result_files"));
        assert!(
            e.message.contains("two runs with seed 3")
                && e.message.contains("several target models of one ML Privacy Meter run"),
            "{}",
            e.message
        );
        let _ = std::fs::remove_dir_all(pm);
        // The folder above the methods' folders: runs of one seed twice.
        let e = compare_methods(
            &mut Workspace::new(),
            serde_json::json!({"x": root.display().to_string()}),
        )
        .expect_err("several methods");
        assert_eq!(e.code.as_deref(), Some("ambiguous_result_files"));
        assert!(e.message.contains("two runs with seed 0"), "{}", e.message);
        // Files of two kinds in one folder.
        let report = r#"{"lethe_version": "0.1.0", "command": "mia", "result": {"summary": {"auc": 0.5}}}"#;
        let mixed = folder("mixed", &[("seed0/TOFU_SUMMARY.json", &s0), ("seed1/mia.json", report)]);
        let e = compare_methods(
            &mut Workspace::new(),
            serde_json::json!({"x": mixed.display().to_string()}),
        )
        .expect_err("mixed");
        assert_eq!(e.code.as_deref(), Some("ambiguous_result_files"));
        assert!(
            e.message.contains("open-unlearning TOFU") && e.message.contains("Lethe `mia` report"),
            "{}",
            e.message
        );
        let _ = std::fs::remove_dir_all(root);
        let _ = std::fs::remove_dir_all(mixed);
    }

    /// Found trying `lethe.compare(methods={"NPO": "a.json,b.json"})` (bench/trial_compare): the string was opened
    /// as one path ("no such file"). A method's files as one string are split on commas as the command line splits
    /// `NAME=a,b`; a list is as good.
    #[test]
    fn a_methods_files_as_one_string_are_split_as_the_command_line_splits_them() {
        let s = summary(&[("forget_quality", 0.5)]);
        let root = folder("split", &[("a/seed0/S.json", &s), ("a/seed1/S.json", &s)]);
        let (a, b) = (
            root.join("a/seed0/S.json").display().to_string(),
            root.join("a/seed1/S.json").display().to_string(),
        );
        let two = vec![(
            "NPO".to_string(),
            vec!["a/seed0/S.json".to_string(), "a/seed1/S.json".to_string()],
        )];
        for v in [
            serde_json::json!({"NPO": format!("{a},{b}")}),
            serde_json::json!({"NPO": [a.clone(), b.clone()]}),
            serde_json::json!([{"method": "NPO", "files": format!("{a}, {b}")}]),
            serde_json::json!([format!("NPO={a},{b}")]),
        ] {
            let mut ws = Workspace::new();
            let got = compare_methods(&mut ws, v.clone()).unwrap_or_else(|e| panic!("{v}: {e:?}"));
            assert_eq!(opened(&ws, &got, &root), two, "{v}");
        }
        let _ = std::fs::remove_dir_all(root);
    }

    /// Found trying compare with open-unlearning's files (bench/trial_compare): `few_seeds` about the retain model's
    /// one run was located at `NPO/seed0/TOFU_EVAL.json`, the first file of the role, another method's. The warnings
    /// about some methods' runs now name no role's file; `few_seeds` names the method's own files.
    #[test]
    fn seed_warnings_name_the_methods_own_files() {
        let mut files = six();
        files.push((
            "retain/TOFU_SUMMARY.json".into(),
            summary(&[("forget_quality", 0.99), ("model_utility", 0.6)]),
        ));
        let r = compare(
            &refs(&files),
            &[("npo", &[0, 1, 2]), ("grad_ascent", &[3, 4, 5]), ("retain", &[6])],
            |_| {},
        )
        .expect("run");
        let w = |code: &str| warning(&r, code);
        let few = w("few_seeds");
        assert_eq!(few.input, None);
        assert!(
            few.message.contains("retain (1: `retain/TOFU_SUMMARY.json`)"),
            "{}",
            few.message
        );
        assert!(!few.message.contains("npo/seed0"), "{}", few.message);
        assert_eq!(w("unequal_seeds").input, None);
        // A runs table is one file: the warnings name it.
        let mut ws = Workspace::new();
        let t = run_compare(
            &mut ws,
            &CompareRequest {
                runs: Some(TextInput::Text {
                    text: "method,seed,forget_quality\na,0,0.1\na,1,0.2\nb,0,0.3\n".into(),
                }),
                resamples: 200,
                ..CompareRequest::default()
            },
        )
        .expect("table");
        let few = warning(&t, "few_seeds");
        assert_eq!(few.input.as_deref(), Some("runs"));
        assert!(few.message.contains("b (1)"), "{}", few.message);
    }

    /// Found trying compare with open-unlearning's EVAL files (bench/trial_compare): `metrics_left_out` listed all 21
    /// sub-metrics without a direction on one line. Long lists now give the count and the first few.
    #[test]
    fn a_long_list_of_metrics_left_out_is_shortened() {
        let many: Vec<(String, f64)> = (0..21)
            .map(|i| (format!("sub_metric_{i:02}"), 0.5))
            .chain([("forget_quality".to_string(), 0.5)])
            .collect();
        let mut files = Vec::new();
        for (m, q) in [("a", 0.1), ("b", 0.9)] {
            for s in 0..3 {
                let mut v: Vec<(&str, f64)> = many.iter().map(|(n, x)| (n.as_str(), *x)).collect();
                v.push(("forget_quality", q + 0.01 * s as f64));
                v.retain(|(n, x)| *n != "forget_quality" || *x != 0.5);
                files.push((format!("{m}/seed{s}/TOFU_SUMMARY.json"), summary(&v)));
            }
        }
        let r = compare(&refs(&files), &[("a", &[0, 1, 2]), ("b", &[3, 4, 5])], |_| {}).expect("run");
        let w = warning(&r, "metrics_left_out");
        assert!(
            w.message.contains(
                "without a known direction: 21 metrics, sub_metric_00, sub_metric_01, sub_metric_02, sub_metric_03, …"
            ),
            "{}",
            w.message
        );
        assert!(!w.message.contains("sub_metric_04"), "{}", w.message);
    }

    /// Found trying compare with ML Privacy Meter's `attack_result_0.npz` given as a method's file: "is not UTF-8
    /// text", then a refusal naming the `lethe mia` step, though that is the file the tool wrote. It is now read as a
    /// run: its scores and memberships audited as `lethe mia` audits them, privacy-meter's stored numbers checked
    /// against theirs. tests/fixtures/tools/privacy_meter (its audit.py wrote them; PROVENANCE.md there): two target
    /// models, stored AUCs in stored_auc.json, `one_tenth_fpr` and `zero_fpr` of model 0 both 0.23333333333333334
    /// (read back with numpy). A damaged archive is refused naming the file.
    #[cfg(feature = "full")]
    #[test]
    fn a_privacy_meter_archive_is_read_as_a_run_its_stored_numbers_checked() {
        let a: &[u8] = include_bytes!("../../../tests/fixtures/tools/privacy_meter/log/report/exp/attack_result_0.npz");
        let b: &[u8] = include_bytes!("../../../tests/fixtures/tools/privacy_meter/log/report/exp/attack_result_1.npz");
        let files = [("pm/attack_result_0.npz", a), ("pm/attack_result_1.npz", b)];
        let mean = |r: &CompareReport, metric: &str, method: &str| {
            r.result
                .metrics
                .iter()
                .find(|m| m.metric == metric)
                .and_then(|m| m.summaries.iter().find(|x| x.method == method))
                .map(|x| x.mean)
                .unwrap_or_else(|| panic!("{metric} {method}"))
        };
        let r = compare_bytes(&files, &[("m0", &[0]), ("m1", &[1])], |_| {}).expect("run");
        assert!(
            r.warnings.iter().all(|w| w.code != "stored_value_differs"),
            "{:?}",
            r.warnings
        );
        let names: Vec<&str> = r.result.metrics.iter().map(|m| m.metric.as_str()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        assert!(names[0].ends_with(".auc"), "{names:?}");
        assert!((mean(&r, names[0], "m0") - 0.756_388_888_888_888_8).abs() <= 1e-12);
        assert!((mean(&r, names[0], "m1") - 0.669_166_666_666_666_7).abs() <= 1e-12);
        assert_eq!(r.inputs[0].format, "ML Privacy Meter attack result");
        let left = warning(&r, "metrics_left_out");
        assert!(
            left.message.contains("one_tenth_fpr") && left.message.contains("zero_fpr"),
            "{}",
            left.message
        );
        // Asked for, privacy-meter's TPR at 0.1% FPR is compared: the value its audit logs and stores.
        let r = compare_bytes(&files, &[("m0", &[0]), ("m1", &[1])], |q| {
            q.metrics = vec!["one_tenth_fpr:lower".into()];
        })
        .expect("tpr");
        assert!((mean(&r, "one_tenth_fpr", "m0") - 0.233_333_333_333_333_34).abs() <= 1e-12);
        // Not a zip archive that numpy reads.
        let e = compare_bytes(
            &[("pm/attack_result_0.npz", b"PK\x03\x04\xff\xfe\x00\x80".as_slice())],
            &[("finetune", &[0])],
            |_| {},
        )
        .expect_err("damaged");
        assert_eq!(e.code.as_deref(), Some("not_a_result_file"));
        assert!(
            e.message.contains("`pm/attack_result_0.npz` (method `finetune`)")
                && e.message.contains("attack_result_0.npz, written by its audit"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("UTF-8"), "{}", e.message);
    }

    /// The archives of tests/fixtures/compare_privacy_meter (finetune and retrain × seeds 201–203), each as its
    /// path in the fixture's folder and its bytes.
    #[cfg(feature = "full")]
    fn privacy_meter_runs() -> Vec<(&'static str, &'static [u8])> {
        macro_rules! pm {
            ($m:literal, $s:literal) => {
                (
                    concat!($m, "/seed", $s, "/report/exp/attack_result_0.npz"),
                    include_bytes!(concat!(
                        "../../../tests/fixtures/compare_privacy_meter/",
                        $m,
                        "/seed",
                        $s,
                        "/report/exp/attack_result_0.npz"
                    ))
                    .as_slice(),
                )
            };
        }
        vec![
            pm!("finetune", "201"),
            pm!("finetune", "202"),
            pm!("finetune", "203"),
            pm!("retrain", "201"),
            pm!("retrain", "202"),
            pm!("retrain", "203"),
        ]
    }

    /// Every number of two JSON values within `tol`, everything else equal; the path of the first difference.
    #[cfg(feature = "full")]
    fn same_json(a: &Value, b: &Value, tol: f64, at: &str) -> std::result::Result<(), String> {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                let (x, y) = (x.as_f64().unwrap_or(f64::NAN), y.as_f64().unwrap_or(f64::NAN));
                if (x - y).abs() <= tol {
                    Ok(())
                } else {
                    Err(format!("{at}: {x} vs {y}"))
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .try_for_each(|(i, (x, y))| same_json(x, y, tol, &format!("{at}[{i}]"))),
            (Value::Object(x), Value::Object(y)) if x.len() == y.len() => x.iter().try_for_each(|(k, v)| {
                y.get(k)
                    .ok_or_else(|| format!("{at}.{k} missing"))
                    .and_then(|w| same_json(v, w, tol, &format!("{at}.{k}")))
            }),
            _ if a == b => Ok(()),
            _ => Err(format!("{at}: {a} vs {b}")),
        }
    }

    /// The issue's check: ML Privacy Meter's attack results (tests/fixtures/compare_privacy_meter, written by its own
    /// audit.py; PROVENANCE.md there), each method a folder of seed folders given as the page gives a folder (every
    /// file by its path, a plot among them), compare as the `lethe mia` JSON reports made from the same archives
    /// (`lethe mia --scores FILE#scores --labels FILE#memberships --json`, one per seed folder) do: the same metrics,
    /// every number of the result to 1e-12, the same headline. privacy-meter's stored AUCs (scikit-learn's; PROVENANCE.md)
    /// are the ones compared: no `stored_value_differs`, and each method's mean is theirs.
    #[cfg(feature = "full")]
    #[test]
    fn privacy_meter_folders_compare_as_the_lethe_mia_reports_made_from_them() {
        let npz = privacy_meter_runs();
        let mut files: Vec<(String, Vec<u8>)> = npz.iter().map(|(p, b)| ((*p).to_string(), b.to_vec())).collect();
        files.push(("finetune/seed201/report/exp/ROC_0.png".into(), b"\x89PNG".to_vec()));
        // The `lethe mia --json` report of each archive, as the CLI writes it, in a seed folder of its own.
        let mut ws = ws_with(
            &npz.iter()
                .enumerate()
                .map(|(i, (p, b))| (i as u32 + 1, *p, *b))
                .collect::<Vec<_>>(),
        );
        for (i, (p, _)) in npz.iter().enumerate() {
            let input = |t: &str| {
                Some(InputRef {
                    source: i as u32 + 1,
                    tensor: Some(t.into()),
                    rows: Rows::All,
                })
            };
            let req = crate::analyses::MiaRequest {
                scores: input("scores"),
                labels: input("memberships"),
                ..crate::analyses::MiaRequest::default()
            };
            let r = crate::analyses::prepare_mia(&mut ws, &req)
                .expect("mia")
                .run(1, &mut |_, _| true)
                .expect("run");
            let json = serde_json::to_string_pretty(&r).expect("json");
            files.push((
                format!("reports/{}", p.replace("report/exp/attack_result_0.npz", "mia.json")),
                json.into_bytes(),
            ));
        }
        let mut ws = ws_with(
            &files
                .iter()
                .enumerate()
                .map(|(i, (p, b))| (i as u32 + 1, p.as_str(), b.as_slice()))
                .collect::<Vec<_>>(),
        );
        let group = |folder: &str| MethodFiles {
            method: String::new(),
            files: files
                .iter()
                .enumerate()
                .filter(|(_, (p, _))| p.starts_with(&format!("{folder}/")))
                .map(|(i, _)| TextInput::Source { source: i as u32 + 1 })
                .collect(),
            folder: Some(folder.into()),
            passed_over: 0,
        };
        let run = |ws: &mut Workspace, groups: Vec<MethodFiles>| {
            run_compare(
                ws,
                &CompareRequest {
                    methods: groups,
                    resamples: 500,
                    ..CompareRequest::default()
                },
            )
            .expect("compare")
        };
        let from_npz = run(&mut ws, vec![group("finetune"), group("retrain")]);
        let from_json = run(&mut ws, vec![group("reports/finetune"), group("reports/retrain")]);
        assert_eq!(from_npz.result.methods, vec!["finetune", "retrain"]);
        assert_eq!(from_json.result.methods, vec!["finetune", "retrain"]);
        assert_eq!(from_npz.inputs.len(), 6);
        assert!(
            from_npz
                .inputs
                .iter()
                .all(|r| r.format == "ML Privacy Meter attack result")
        );
        // One run per seed folder, paired by seed.
        let c = &from_npz.result.comparisons[0];
        assert_eq!((c.n_a, c.n_b), (3, 3));
        assert!(c.wilcoxon_by_seed.is_some(), "{c:?}");
        assert_eq!(from_npz.headline.text, from_json.headline.text);
        assert_eq!(from_npz.headline.call, from_json.headline.call);
        let (a, b) = (
            serde_json::to_value(&from_npz.result).expect("json"),
            serde_json::to_value(&from_json.result).expect("json"),
        );
        if let Err(d) = same_json(&a, &b, 1e-12, "result") {
            panic!("{d}");
        }
        assert!(
            from_npz.warnings.iter().all(|w| w.code != "stored_value_differs"),
            "{:?}",
            from_npz.warnings
        );
        let auc = &from_npz.result.metrics[0];
        assert!(auc.metric.ends_with(".auc"), "{}", auc.metric);
        for (m, stored) in [
            ("finetune", [0.5825, 0.619_687_5, 0.624_375]),
            ("retrain", [0.519_062_5, 0.505, 0.449_375]),
        ] {
            let s = auc.summaries.iter().find(|x| x.method == m).expect("method");
            assert!(
                (s.mean - stored.iter().sum::<f64>() / 3.0).abs() <= 1e-12,
                "{m}: {}",
                s.mean
            );
        }
        // The plot was passed over, and said so.
        assert!(warning(&from_npz, "files_passed_over").message.contains("1 other file"));
    }

    /// A privacy-meter archive that its audit would not have written is refused naming the file and the fix
    /// (tests/fixtures/compare_privacy_meter/broken, cut from a real one by make_broken.py); one whose stored AUC
    /// is not its scores' is compared on its scores', with a warning naming the file and both values.
    #[cfg(feature = "full")]
    #[test]
    fn broken_privacy_meter_archives_are_refused_naming_the_file() {
        macro_rules! broken {
            ($f:literal) => {
                include_bytes!(concat!(
                    "../../../tests/fixtures/compare_privacy_meter/broken/",
                    $f
                ))
                .as_slice()
            };
        }
        for (file, bytes, code, says) in [
            (
                "no_memberships.npz",
                broken!("no_memberships.npz"),
                "not_a_result_file",
                &[
                    "without a `memberships` array (it holds `fpr`, `tpr`, `auc`, `scores`)",
                    "attack_result_0.npz",
                ][..],
            ),
            (
                "lengths_differ.npz",
                broken!("lengths_differ.npz"),
                "labels_length",
                &["holds 12 scores but 10 memberships", "write it again"][..],
            ),
            (
                "one_class.npz",
                broken!("one_class.npz"),
                "one_class_empty",
                &[
                    "every one of the 12 samples",
                    "members (memberships all 1)",
                    "never saw",
                ][..],
            ),
        ] {
            let name = format!("pm/seed1/{file}");
            let e = compare_bytes(&[(name.as_str(), bytes)], &[("finetune", &[0])], |_| {}).expect_err(file);
            assert_eq!(e.code.as_deref(), Some(code), "{file}: {}", e.message);
            assert!(
                e.message.contains(&format!("`{name}` (method `finetune`)")),
                "{}",
                e.message
            );
            for w in says {
                assert!(e.message.contains(w), "{file}: {w}: {}", e.message);
            }
        }
        let off: &[u8] = broken!("stored_auc_off.npz");
        let good = privacy_meter_runs()[1].1;
        let r = compare_bytes(
            &[("a/seed1/off.npz", off), ("b/seed1/good.npz", good)],
            &[("a", &[0]), ("b", &[1])],
            |_| {},
        )
        .expect("run");
        let w = warning(&r, "stored_value_differs");
        assert!(
            w.message.contains("`a/seed1/off.npz` (method `a`) stores auc = 0.592")
                && w.message.contains("give AUC = 0.5825"),
            "{}",
            w.message
        );
        let s = &r.result.metrics[0].summaries[0];
        assert!((s.mean - 0.5825).abs() <= 1e-12, "{}", s.mean);
    }

    /// The page's compare panel copied the folder rule into JavaScript (which files of a chosen or dropped folder
    /// are runs; the seed in a path). A folder's files given as sources, named by their paths in it, are now picked
    /// by the rule a folder read from disk is: the same files, the same refusals, the same note of what was passed
    /// over; a folder without a method's name is named after it, or split into its methods' folders.
    #[test]
    fn a_folders_files_given_as_sources_are_picked_as_the_folder_on_disk() {
        let s = |q: f64| summary(&[("forget_quality", q), ("model_utility", 0.5 + q / 10.0)]);
        let eval = r#"{"forget_quality": {"agg_value": 0.5}}"#;
        let report = r#"{"lethe_version": "0.1.0", "command": "mia", "result": {"summary": {"auc": 0.5}}}"#;
        let mut files: Vec<(String, String)> = Vec::new();
        for (m, q) in [("NPO", 0.9), ("GA", 0.01)] {
            for k in 0..3 {
                files.push((format!("runs/{m}/seed{k}/TOFU_SUMMARY.json"), s(q + 0.01 * k as f64)));
                files.push((format!("runs/{m}/seed{k}/TOFU_EVAL.json"), eval.to_string()));
                files.push((format!("runs/{m}/seed{k}/.hydra/config.yaml"), "a: 1".into()));
                files.push((format!("runs/{m}/seed{k}/config.json"), r#"{"hidden_size": 8}"#.into()));
            }
        }
        let disk = folder(
            "sources",
            &files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect::<Vec<_>>(),
        );
        // As a page gives them: every file a source named by its path in the chosen folder.
        let as_sources = |prefix: &str| {
            let owned: Vec<(u32, &str, &[u8])> = files
                .iter()
                .enumerate()
                .filter(|(_, (p, _))| p.starts_with(prefix))
                .map(|(i, (p, t))| (i as u32 + 1, p.as_str(), t.as_bytes()))
                .collect();
            let ids: Vec<TextInput> = owned.iter().map(|(i, _, _)| TextInput::Source { source: *i }).collect();
            (ws_with(&owned), ids)
        };
        let picked = |ws: &Workspace, groups: &[MethodFiles]| -> Vec<(String, Vec<String>)> {
            groups
                .iter()
                .map(|g| {
                    let names = g
                        .files
                        .iter()
                        .map(|f| match f {
                            TextInput::Source { source } => ws.source(*source).expect("source").name.clone(),
                            TextInput::Text { .. } => String::new(),
                        })
                        .collect();
                    (g.method.clone(), names)
                })
                .collect()
        };
        // One method's folder: the SUMMARY files, as from disk.
        let (ws, ids) = as_sources("runs/NPO/");
        let group = MethodFiles {
            method: "NPO".into(),
            files: ids,
            folder: Some("runs/NPO".into()),
            passed_over: 0,
        };
        let (got, w) = resolve_folders(&ws, std::slice::from_ref(&group)).expect("picked");
        let npo: Vec<String> = (0..3).map(|k| format!("runs/NPO/seed{k}/TOFU_SUMMARY.json")).collect();
        assert_eq!(picked(&ws, &got), vec![("NPO".to_string(), npo.clone())]);
        let (from_disk, other) = files_in_folder("NPO", &disk.join("runs/NPO")).expect("disk");
        let rel = |p: &std::path::Path| p.strip_prefix(&disk).expect("under").display().to_string();
        assert_eq!(from_disk.iter().map(|p| rel(p)).collect::<Vec<_>>(), npo);
        assert_eq!(other, 9);
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].code, "files_passed_over");
        assert!(
            w[0].message
                .contains("`runs/NPO` (method `NPO`): 3 result files, 9 other files passed over"),
            "{}",
            w[0].message
        );
        // The same note from the folder on disk, read by path.
        let mut dws = Workspace::new();
        let v = compare_methods(
            &mut dws,
            serde_json::json!({"NPO": disk.join("runs/NPO").display().to_string()}),
        )
        .expect("disk");
        let groups: Vec<MethodFiles> = serde_json::from_value(v).expect("request");
        let (_, dw) = resolve_folders(&dws, &groups).expect("disk picked");
        let shown = disk.join("runs/NPO").display().to_string();
        assert_eq!(dw[0].message, w[0].message.replace("runs/NPO", &shown));
        // The folder above the methods' folders, without a name: a method per folder, named after it.
        let (ws, ids) = as_sources("runs/");
        let all = MethodFiles {
            method: String::new(),
            files: ids.clone(),
            folder: Some("runs".into()),
            passed_over: 0,
        };
        let (got, w) = resolve_folders(&ws, std::slice::from_ref(&all)).expect("split");
        let ga: Vec<String> = (0..3).map(|k| format!("runs/GA/seed{k}/TOFU_SUMMARY.json")).collect();
        assert_eq!(
            picked(&ws, &got),
            vec![("GA".to_string(), ga), ("NPO".to_string(), npo)]
        );
        assert!(
            w[0].message
                .contains("`runs` (methods `GA`, `NPO`): 6 result files, 18 other files"),
            "{}",
            w[0].message
        );
        // Named, it is one method's: refused as the folder on disk is.
        let named = MethodFiles {
            method: "x".into(),
            ..all.clone()
        };
        let e = resolve_folders(&ws, &[named]).expect_err("two runs of seed 0");
        let d = files_in_folder("x", &disk.join("runs")).expect_err("disk");
        assert_eq!(e.code.as_deref(), Some("ambiguous_result_files"));
        assert_eq!(e.code, d.code);
        assert!(e.message.contains("two runs with seed 0"), "{}", e.message);
        // Files of two kinds; no result file: the folder's refusals.
        let mixed = ws_with(&[
            (1, "m/seed0/TOFU_SUMMARY.json", s(0.5).as_bytes()),
            (2, "m/seed1/mia.json", report.as_bytes()),
        ]);
        let g = |n: usize, f: &str| MethodFiles {
            method: "m".into(),
            files: (1..=n as u32).map(|source| TextInput::Source { source }).collect(),
            folder: Some(f.into()),
            passed_over: 0,
        };
        let e = resolve_folders(&mixed, &[g(2, "m")]).expect_err("mixed");
        assert!(
            e.message.contains("open-unlearning TOFU") && e.message.contains("Lethe `mia` report"),
            "{}",
            e.message
        );
        let none = ws_with(&[(1, "m/notes.txt", b"x")]);
        let e = resolve_folders(&none, &[g(1, "m")]).expect_err("none");
        assert_eq!(e.code.as_deref(), Some("no_result_files"));
        assert!(e.message.contains("the folder `m` (method `m`)"), "{}", e.message);
        // The whole run: the picked files' runs, the note among the warnings.
        let (mut ws, ids) = as_sources("runs/");
        let r = run_compare(
            &mut ws,
            &CompareRequest {
                methods: vec![MethodFiles {
                    method: String::new(),
                    files: ids,
                    folder: Some("runs".into()),
                    passed_over: 0,
                }],
                resamples: 200,
                ..CompareRequest::default()
            },
        )
        .expect("run");
        assert_eq!(r.result.methods, vec!["GA", "NPO"]);
        assert_eq!(r.inputs.len(), 6);
        assert_eq!(
            r.parameters.methods[0],
            "GA=runs/GA/seed0/TOFU_SUMMARY.json,runs/GA/seed1/TOFU_SUMMARY.json,runs/GA/seed2/TOFU_SUMMARY.json"
        );
        assert!(r.warnings.iter().any(|w| w.code == "files_passed_over"));
        let _ = std::fs::remove_dir_all(disk);
    }

    #[test]
    fn seeds_are_read_from_paths() {
        assert_eq!(seed_in_path("npo/seed3/TOFU_SUMMARY.json").as_deref(), Some("3"));
        assert_eq!(seed_in_path("runs/npo_seed-07.json").as_deref(), Some("7"));
        assert_eq!(seed_in_path("Seed=0/x.json").as_deref(), Some("0"));
        assert_eq!(seed_in_path("seeds/a/seed_12/eval.json").as_deref(), Some("12"));
        assert_eq!(seed_in_path("npo/TOFU_EVAL.json"), None);
    }
}
