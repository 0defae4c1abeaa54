//! The runs table of `lethe compare`: one row per run (a method at a seed, optionally on a task), one column per
//! metric, read from CSV, TSV or JSON (a list of objects, or an object whose `runs` is one).
//!
//! The project's matrix reader keeps one text column at most (the row labels) and drops the rest by name; a runs
//! table has two or three (method, task, and often a text seed), so the table is read here, with the same rules
//! for what a number is (`f64::from_str` on the trimmed cell, as the matrix reader and Python's `float()`), a UTF-8
//! byte-order mark ignored, double-quoted cells, and every problem named by file, line and column.

use crate::error::{Error, Result};

/// What the key columns may be called (compared lowercased, trimmed).
const METHOD: &[&str] = &["method", "algorithm", "algo", "model", "name"];
const SEED: &[&str] = &["seed", "run", "replicate", "rep", "trial"];
const TASK: &[&str] = &["task", "split", "dataset", "forget_split", "benchmark"];

/// One run: where it is in the file, its keys and its metric values (in [`RunsTable::metrics`]' order).
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The line (CSV/TSV, counted from 1) or the record (JSON, counted from 0) in the file's own words.
    pub place: String,
    pub method: String,
    pub seed: String,
    pub task: Option<String>,
    pub values: Vec<Option<f64>>,
    /// Per metric (in [`RunsTable::metrics`]' order), the run's per-example values when its file carries them
    /// (open-unlearning's `value_by_index`); empty for a runs table.
    pub examples: Vec<Option<Vec<f64>>>,
}

/// A runs table as read.
#[derive(Clone, Debug, PartialEq)]
pub struct RunsTable {
    pub metrics: Vec<String>,
    pub runs: Vec<Run>,
    /// Whether the table has a task column.
    pub has_task: bool,
}

fn key_index(names: &[String], aliases: &[&str]) -> Option<usize> {
    names
        .iter()
        .position(|n| aliases.contains(&n.trim().to_ascii_lowercase().as_str()))
}

/// Splits a delimited line into cells (double quotes, `""` inside them).
pub(super) fn cells(line: &str, delim: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    cur.push('"');
                    chars.next();
                } else {
                    quoted = false;
                }
            } else {
                cur.push(c);
            }
        } else if c == '"' {
            quoted = true;
        } else if c == delim {
            out.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
    }
    out.push(cur);
    out.into_iter().map(|s| s.trim().to_string()).collect()
}

/// A metric cell: empty is missing; anything else must be a finite number.
fn metric_value(file: &str, place: &str, column: &str, cell: &str) -> Result<Option<f64>> {
    let cell = cell.trim();
    if cell.is_empty() {
        return Ok(None);
    }
    match cell.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Some(v)),
        Ok(v) => Err(Error::refused(
            "non_finite",
            Some("runs"),
            format!(
                "`{file}` has {} at {place}, column `{column}`: a comparison cannot use it. Rerun or remove that \
                 run, or leave the cell empty if the metric was not measured",
                if v.is_nan() { "NaN" } else { "an infinite value" }
            ),
        )),
        Err(_) => Err(Error::refused(
            "text_in_metric",
            Some("runs"),
            format!(
                "`{file}` has the text `{cell}` at {place}, column `{column}`, where a number is expected: every \
                 column other than method, seed and task is read as a metric. Write the number, leave the cell \
                 empty if the metric was not measured, or remove the column"
            ),
        )),
    }
}

/// Reads `text` (the contents of `file`) as a runs table.
///
/// # Errors
/// No method column; no metric column; rows of another length; text, NaN or ±inf in a metric column; an empty
/// method; JSON that is not a list of objects — each named by file, line (or record) and column.
pub fn read_runs(file: &str, text: &str) -> Result<RunsTable> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let t = text.trim_start();
    if t.starts_with('[') || t.starts_with('{') {
        return read_json(file, t);
    }
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err(Error::refused(
            "empty_table",
            Some("runs"),
            format!("`{file}` has no rows"),
        ));
    };
    let delim = ['\t', ';', ',']
        .into_iter()
        .find(|d| header.contains(*d))
        .unwrap_or(',');
    let names = cells(header, delim);
    let rows: Vec<(String, Vec<String>)> = lines
        .map(|(i, l)| (format!("line {}", i + 1), cells(l, delim)))
        .collect();
    for (place, r) in &rows {
        if r.len() != names.len() {
            return Err(Error::refused(
                "ragged_table",
                Some("runs"),
                format!(
                    "`{file}` has {} cells at {place} but {} column names in its header: give every run a cell \
                     for every column (empty where a metric was not measured)",
                    r.len(),
                    names.len()
                ),
            ));
        }
    }
    build(file, &names, rows)
}

fn read_json(file: &str, text: &str) -> Result<RunsTable> {
    let bad = |detail: String| {
        Error::refused(
            "bad_table",
            Some("runs"),
            format!(
                "`{file}` {detail}: a JSON runs table is a list of objects, one per run, such as \
                 [{{\"method\": \"retrain\", \"seed\": 0, \"forget_quality\": 0.9}}] (or an object whose \"runs\" \
                 is that list)"
            ),
        )
    };
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| bad(format!("is not valid JSON ({e})")))?;
    let list = match &v {
        serde_json::Value::Array(a) => a.clone(),
        serde_json::Value::Object(o) => match o.get("runs") {
            Some(serde_json::Value::Array(a)) => a.clone(),
            _ => return Err(bad("is an object without a list \"runs\"".into())),
        },
        _ => return Err(bad("is neither a list nor an object".into())),
    };
    let mut names: Vec<String> = Vec::new();
    for (i, r) in list.iter().enumerate() {
        let serde_json::Value::Object(o) = r else {
            return Err(bad(format!("has a record {i} that is not an object")));
        };
        for k in o.keys() {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
    }
    let rows = list
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let cells = names
                .iter()
                .map(|n| match r.get(n) {
                    None | Some(serde_json::Value::Null) => String::new(),
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                })
                .collect();
            (format!("record {i}"), cells)
        })
        .collect();
    build(file, &names, rows)
}

fn build(file: &str, names: &[String], rows: Vec<(String, Vec<String>)>) -> Result<RunsTable> {
    let Some(m) = key_index(names, METHOD) else {
        return Err(Error::refused(
            "no_method_column",
            Some("runs"),
            format!(
                "`{file}` has no method column (its columns: {}): name the column that says which method made each \
                 run `method`",
                names.join(", ")
            ),
        ));
    };
    let s = key_index(names, SEED);
    let t = key_index(names, TASK);
    let metric_cols: Vec<usize> = (0..names.len())
        .filter(|&i| i != m && Some(i) != s && Some(i) != t)
        .collect();
    if metric_cols.is_empty() {
        return Err(Error::refused(
            "no_metrics",
            Some("runs"),
            format!("`{file}` has no metric column: add one column per metric, a number per run"),
        ));
    }
    let mut runs = Vec::with_capacity(rows.len());
    for (k, (place, r)) in rows.into_iter().enumerate() {
        let method = r[m].clone();
        if method.is_empty() {
            return Err(Error::refused(
                "no_method",
                Some("runs"),
                format!("`{file}` has no method at {place}: say which method made that run"),
            ));
        }
        let values = metric_cols
            .iter()
            .map(|&c| metric_value(file, &place, &names[c], &r[c]))
            .collect::<Result<Vec<_>>>()?;
        runs.push(Run {
            place,
            method,
            // Without a seed column, each run of a method is its own replicate, numbered in file order.
            seed: s.map_or_else(|| format!("#{k}"), |s| r[s].clone()),
            task: t.map(|t| r[t].clone()),
            values,
            examples: Vec::new(),
        });
    }
    Ok(RunsTable {
        metrics: metric_cols.iter().map(|&c| names[c].clone()).collect(),
        runs,
        has_task: t.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_tsv_and_json_read_alike() {
        let csv = "method,seed,forget_quality\nA,0,0.5\n\"B\",1,0.25\n";
        let tsv = "\u{feff}method\tseed\tforget_quality\nA\t0\t0.5\nB\t1\t0.25\n";
        let json = r#"[{"method":"A","seed":0,"forget_quality":0.5},{"method":"B","seed":1,"forget_quality":0.25}]"#;
        let a = read_runs("r.csv", csv).expect("csv");
        let b = read_runs("r.tsv", tsv).expect("tsv");
        let c = read_runs("r.json", json).expect("json");
        assert_eq!(a.metrics, vec!["forget_quality"]);
        for t in [&b, &c] {
            assert_eq!(t.metrics, a.metrics);
            for (x, y) in t.runs.iter().zip(&a.runs) {
                assert_eq!((&x.method, &x.seed, &x.values), (&y.method, &y.seed, &y.values));
            }
        }
        assert_eq!(a.runs[1].place, "line 3");
        assert_eq!(c.runs[1].place, "record 1");
    }

    #[test]
    fn text_and_non_finite_cells_are_refused_with_their_place() {
        let e = read_runs("r.csv", "method,seed,auc\nA,0,0.5\nA,1,oops\n").expect_err("text");
        assert_eq!(e.code.as_deref(), Some("text_in_metric"));
        assert!(e.message.contains("`r.csv`") && e.message.contains("line 3") && e.message.contains("`auc`"));
        let e = read_runs("r.csv", "method,seed,auc\nA,0,nan\n").expect_err("nan");
        assert_eq!(e.code.as_deref(), Some("non_finite"));
        assert!(e.message.contains("line 2"));
        let e = read_runs("r.csv", "method,seed,auc\nA,0,1e400\n").expect_err("inf");
        assert_eq!(e.code.as_deref(), Some("non_finite"));
        let e = read_runs("r.csv", "seed,auc\n0,1\n").expect_err("no method");
        assert_eq!(e.code.as_deref(), Some("no_method_column"));
        let e = read_runs("r.csv", "method,seed,auc\nA,0\n").expect_err("ragged");
        assert_eq!(e.code.as_deref(), Some("ragged_table"));
    }
}
