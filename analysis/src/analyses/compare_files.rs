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
//!   the `result.…` columns the metrics by the same names.
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
}

/// The role every result file is recorded and named under.
pub const ROLE: &str = "methods";

/// A metric of one run: its name, value and per-example values.
type FileMetric = (String, Option<f64>, Option<Vec<f64>>);

/// One run read from a file: where, its seed, its metrics.
struct FileRun {
    place: String,
    seed: Option<String>,
    metrics: Vec<FileMetric>,
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

/// The metrics of one of Lethe's reports (or a merge table's row), by their dotted path without `result.`.
fn report_metrics(cols: &serde_json::Map<String, Value>) -> Vec<FileMetric> {
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
            }]);
        }
        if let Some(m) = open_unlearning(&place, method, &v) {
            return Ok(vec![FileRun {
                place: place.clone(),
                seed: None,
                metrics: m?,
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
            let text = String::from_utf8(bytes).map_err(|_| {
                Error::at(
                    ROLE,
                    format!("`{name}` (method `{method}`) is not UTF-8 text: give the JSON or CSV file the tool wrote"),
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
            let (name, text, mut rec) = read_text(ws, method, f)?;
            let found = read_file(&name, method, &text)?;
            rec.rows_used = found.len();
            records.push(rec);
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
    // The metrics: those asked for, each in every run; else those every run has with a known direction.
    let has = |r: &FileRun, name: &str| r.metrics.iter().any(|(n, v, _)| n == name && v.is_some());
    let mut warnings = Vec::new();
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
        for n in all {
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
                parts.push(format!("not in every run: {}", lacking.join(", ")));
            }
            if !unknown.is_empty() {
                parts.push(format!("without a known direction: {}", unknown.join(", ")));
            }
            if !twins.is_empty() {
                parts.push(format!("counted once: {}", twins.join(", ")));
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
                        .first()
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
        Value::Object(o) => o
            .into_iter()
            .map(|(k, v)| match v {
                Value::Array(a) => (k, a),
                one => (k, vec![one]),
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
                        Some(Value::Array(a)) => a,
                        Some(one @ Value::String(_)) => vec![one],
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
        let mut fs = Vec::with_capacity(files.len());
        for f in files {
            fs.push(match f {
                Value::String(path) => {
                    let id = ws.add_path("methods", std::path::Path::new(&path))?;
                    serde_json::json!({"kind": "source", "source": id})
                }
                other => other,
            });
        }
        out.push(serde_json::json!({"method": method, "files": fs}));
    }
    Ok(Value::Array(out))
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
    fn compare(
        files: &[(&str, String)],
        groups: &[(&str, &[usize])],
        f: impl FnOnce(&mut CompareRequest),
    ) -> Result<CompareReport> {
        let owned: Vec<(u32, &str, &[u8])> = files
            .iter()
            .enumerate()
            .map(|(i, (n, t))| (i as u32 + 1, *n, t.as_bytes()))
            .collect();
        let mut ws = ws_with(&owned);
        let mut req = CompareRequest {
            methods: groups
                .iter()
                .map(|(m, ix)| MethodFiles {
                    method: (*m).to_string(),
                    files: ix.iter().map(|&i| TextInput::Source { source: i as u32 + 1 }).collect(),
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
        let left = r
            .warnings
            .iter()
            .find(|w| w.code == "metrics_left_out")
            .expect("left out");
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
        let w = r
            .warnings
            .iter()
            .find(|w| w.code == "metrics_left_out")
            .expect("warning");
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
        files.push(("retrain/ruler_seed0.json".into(), ruler(1.0, 0.0)));
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
        // An MIA report: the DeLong section's AUC is the summary's.
        let mia = |auc: f64| {
            format!(
                r#"{{"lethe_version": "0.1.0", "command": "mia", "parameters": {{}}, "seed": null, "inputs": [],
                "headline": {{"call": "leak", "text": "t", "reason": null}}, "warnings": [],
                "result": {{"delong": {{"auc": {auc}}}, "summary": {{"auc": {auc}}}}}}}"#
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
        let w = r
            .warnings
            .iter()
            .find(|w| w.code == "metrics_left_out")
            .expect("warning");
        assert!(
            w.message
                .contains("counted once: summary.auc (the same value as delong.auc in every run)"),
            "{}",
            w.message
        );
        // Reports without a metric name a reason, not an empty "()".
        let empty = mia(0.5).replace(
            r#"{"delong": {"auc": 0.5}, "summary": {"auc": 0.5}}"#,
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
        let w = r
            .warnings
            .iter()
            .find(|w| w.code == "examples_not_seeds")
            .expect("warning");
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

    #[test]
    fn seeds_are_read_from_paths() {
        assert_eq!(seed_in_path("npo/seed3/TOFU_SUMMARY.json").as_deref(), Some("3"));
        assert_eq!(seed_in_path("runs/npo_seed-07.json").as_deref(), Some("7"));
        assert_eq!(seed_in_path("Seed=0/x.json").as_deref(), Some("0"));
        assert_eq!(seed_in_path("seeds/a/seed_12/eval.json").as_deref(), Some("12"));
        assert_eq!(seed_in_path("npo/TOFU_EVAL.json"), None);
    }
}
