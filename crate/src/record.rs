//! What a report records about its inputs. The CLI's `--json` reports and the widget's exported reports both use
//! these types, so that the two agree field for field (the browser tests compare them).

use serde::Serialize;

/// One input file of a report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InputRecord {
    /// The argument or role it was given as (e.g. `in_training`, `x`, `forget`).
    pub role: String,
    /// `PATH[#TENSOR][@ROWS]` as the CLI writes an input (the widget: the file name for the path).
    pub spec: String,
    pub path: String,
    pub sha256: String,
    pub format: String,
    pub dtype: String,
    pub shape: Vec<u64>,
    pub tensor: Option<String>,
    /// Rows used (after the row subset).
    pub rows_used: usize,
    /// The row-index or split file, when the subset came from one.
    pub row_file: Option<FileDigest>,
}

/// A side file's name and SHA-256 (an index file or split column).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileDigest {
    pub path: String,
    pub sha256: String,
}

impl InputRecord {
    /// The record of an index or split file that rows given on their own came from (`ruler --forget`,
    /// `calibrate --it-pool`, the widget's pools), `spec` as the rows were given.
    pub fn row_file(role: &str, spec: String, d: FileDigest, rows: usize) -> Self {
        Self {
            role: role.into(),
            spec,
            path: d.path,
            sha256: d.sha256,
            format: "rows".into(),
            dtype: "row indices".into(),
            shape: vec![rows as u64],
            tensor: None,
            rows_used: rows,
            row_file: None,
        }
    }
}
