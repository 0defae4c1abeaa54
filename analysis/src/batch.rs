//! Batch audits: a manifest of analyses (one JSON object a line), each line a cell computed by a pure function of
//! that line ([`run_cell`]), and the cells' records merged into one table ([`merge`]) ordered by the cells' numbers,
//! so the table is the same whichever machines, shards or workers computed the cells. `lethe batch` / `lethe
//! merge` (one shard of a Slurm job array each) and the Python package's Dask map call exactly these.
//!
//! A manifest line: `{"command": "mwu", "id": "optional name", "inputs": {"x": "a.npy", "y": "b.npy@0..100"},
//! "rows": {...}, "options": {"alternative": "less"}}` — `inputs`, `rows` and `options` are merged into the
//! analysis's request ([`crate::dispatch`]); relative paths are read from the working directory.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::dispatch;
use crate::error::{Error, Result};

/// One manifest line.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    pub command: String,
    /// A name for the table (default: the cell's number).
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub inputs: Map<String, Value>,
    #[serde(default)]
    pub rows: Map<String, Value>,
    #[serde(default)]
    pub options: Map<String, Value>,
}

/// A computed cell: its number (the manifest's line, from 0, blank lines counted), its id, and the report or the
/// error. What `lethe batch` writes, one JSON line per cell.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Cell {
    pub cell: usize,
    pub id: String,
    pub command: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The lines of a manifest that are cells: (number, text), blank lines and `#` comments left out but counted.
pub fn cells(manifest: &str) -> Vec<(usize, &str)> {
    manifest
        .lines()
        .enumerate()
        .filter(|(_, l)| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#')
        })
        .collect()
}

/// Shard `i` of `n` (`I/N`, from 0, as a Slurm array's `$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`): the cells
/// whose number modulo `n` is `i`.
///
/// # Errors
/// Text that is not `I/N` with `I < N`.
pub fn parse_shard(text: &str) -> Result<(usize, usize)> {
    let bad = || {
        Error::msg(format!(
            "shard `{text}` is not I/N with 0 ≤ I < N (e.g. 0/4, or $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)"
        ))
        .usage()
    };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Cell `number` of a manifest, from its line `text`: the analysis's report, or its error as the message a person
/// reads. Relative paths are read from the working directory, as the CLI reads them. Pure: the same line gives the same cell wherever it
/// runs (reports hold no times or host names).
pub fn run_cell(number: usize, text: &str, threads: usize) -> Cell {
    let line: std::result::Result<Line, _> = serde_json::from_str(text);
    let (command, id) = match &line {
        Ok(l) => (l.command.clone(), l.id.clone().unwrap_or_else(|| number.to_string())),
        Err(_) => (String::new(), number.to_string()),
    };
    let outcome = line
        .map_err(|e| {
            Error::msg(format!(
                "manifest line {}: {e}; each line is a JSON object with command, inputs, rows, options",
                number + 1
            ))
        })
        .and_then(|l| compute(&l, threads));
    match outcome {
        Ok(report) => Cell {
            cell: number,
            id,
            command,
            report: Some(report),
            error: None,
        },
        Err(e) => Cell {
            cell: number,
            id,
            command,
            report: None,
            error: Some(error_text(&e)),
        },
    }
}

/// An error of the layer as one line: `[code] role: message`.
pub fn error_text(e: &Error) -> String {
    let mut msg = e.message.clone();
    if let Some(role) = &e.input
        && !msg.starts_with(role.as_str())
    {
        msg = format!("{role}: {msg}");
    }
    if let Some(code) = &e.code {
        msg = format!("[{code}] {msg}");
    }
    msg
}

fn compute(line: &Line, threads: usize) -> Result<Value> {
    dispatch::roles(&line.command)?;
    let mut request = Map::new();
    for part in [&line.options, &line.inputs, &line.rows] {
        for (k, v) in part {
            if request.insert(k.clone(), v.clone()).is_some() {
                return Err(Error::msg(format!("`{k}` is given twice (in options, inputs or rows)")).usage());
            }
        }
    }
    let mut go_on = |_: &lethe::progress::Progress| true;
    let mut ctl = dispatch::Control {
        threads,
        in_place: crate::workspace::InPlacePolicy::Auto,
        monitor: &mut go_on,
    };
    dispatch::run_resolved(&line.command, Value::Object(request), &mut ctl)
}

/// Table formats of [`merge`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
}

/// The columns every table starts with.
const FIRST: &[&str] = &[
    "cell", "id", "command", "call", "headline", "reason", "warnings", "error",
];

/// One row of the table: the cell's fields, then every number, text or boolean of its report's `result` and
/// `parameters` under its dotted path (`result.p_value`, `result.test.statistic`; lists are left out: the reports
/// hold them).
fn row(c: &Cell) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("cell".into(), Value::from(c.cell));
    m.insert("id".into(), Value::from(c.id.clone()));
    m.insert("command".into(), Value::from(c.command.clone()));
    if let Some(e) = &c.error {
        m.insert("error".into(), Value::from(e.clone()));
    }
    if let Some(r) = &c.report {
        crate::report::report_columns(r, &mut m);
    }
    m
}

/// Merges cells (from any number of `lethe batch` outputs, in any order) into one table, ordered by cell number:
/// CSV with a header of every column any cell has (the cell's fields first, then the rest sorted), or a JSON
/// array of objects.
///
/// # Errors
/// A cell given twice with different contents (two manifests merged together); writing the JSON.
pub fn merge(mut cells: Vec<Cell>, format: Format) -> Result<String> {
    cells.sort_by_key(|c| c.cell);
    cells.dedup();
    if let Some(w) = cells.windows(2).find(|w| w[0].cell == w[1].cell) {
        return Err(Error::msg(format!(
            "cell {} is given twice with different reports: merge the outputs of one manifest only",
            w[0].cell
        )));
    }
    let rows: Vec<Map<String, Value>> = cells.iter().map(row).collect();
    match format {
        Format::Json => {
            // Keys sorted, in every build (serde_json keeps insertion order where `preserve_order` is on).
            let sorted: Vec<std::collections::BTreeMap<&String, &Value>> =
                rows.iter().map(|r| r.iter().collect()).collect();
            let mut s = serde_json::to_string_pretty(&sorted).map_err(|e| Error::msg(format!("writing JSON: {e}")))?;
            s.push('\n');
            Ok(s)
        }
        Format::Csv => {
            let mut rest: Vec<&String> = rows
                .iter()
                .flat_map(|r| r.keys())
                .filter(|k| !FIRST.contains(&k.as_str()))
                .collect();
            rest.sort();
            rest.dedup();
            let columns: Vec<&str> = FIRST.iter().copied().chain(rest.iter().map(|s| s.as_str())).collect();
            let mut out = columns.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(",");
            out.push('\n');
            for r in &rows {
                let line: Vec<String> = columns
                    .iter()
                    .map(|c| match r.get(*c) {
                        None | Some(Value::Null) => String::new(),
                        Some(Value::String(s)) => csv_field(s),
                        Some(v) => csv_field(&v.to_string()),
                    })
                    .collect();
                out.push_str(&line.join(","));
                out.push('\n');
            }
            Ok(out)
        }
    }
}

/// A CSV field, quoted when it holds a comma, quote or line break (RFC 4180).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Reads cells from `lethe batch` outputs (JSON lines).
///
/// # Errors
/// A line that is not a cell, named by its number in `name`.
pub fn read_cells(name: &str, text: &str) -> Result<Vec<Cell>> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(k, l)| {
            serde_json::from_str(l).map_err(|e| {
                Error::msg(format!(
                    "`{name}` line {}: not a cell of `lethe batch` ({e}); merge the files lethe batch wrote",
                    k + 1
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_and_merges_in_cell_order() {
        assert_eq!(parse_shard("1/4").unwrap(), (1, 4));
        assert!(parse_shard("4/4").is_err() && parse_shard("x").is_err() && parse_shard("0/0").is_err());
        let m = "{\"command\":\"mwu\"}\n\n# note\n{\"command\":\"jsd\"}\n";
        assert_eq!(cells(m).iter().map(|c| c.0).collect::<Vec<_>>(), vec![0, 3]);
        let c = |n: usize, e: &str| Cell {
            cell: n,
            id: n.to_string(),
            command: "mwu".into(),
            report: None,
            error: Some(e.into()),
        };
        let a = merge(vec![c(3, "b, \"q\""), c(0, "a")], Format::Csv).unwrap();
        let b = merge(vec![c(0, "a"), c(3, "b, \"q\""), c(0, "a")], Format::Csv).unwrap();
        assert_eq!(a, b);
        assert!(a.lines().nth(2).unwrap().ends_with("\"b, \"\"q\"\"\""), "{a}");
        assert!(merge(vec![c(0, "a"), c(0, "b")], Format::Json).is_err());
    }

    #[test]
    fn a_bad_line_is_a_cell_with_its_error() {
        let cell = run_cell(2, "{\"command\": \"nope\"}", 1);
        assert!(cell.error.unwrap().contains("unknown analysis `nope`"));
        let cell = run_cell(0, "not json", 1);
        assert!(cell.error.unwrap().starts_with("manifest line 1:"));
    }
}
