//! Input specifications, loading, and the record of each input that goes into a report.
//!
//! An input is `PATH[#TENSOR][@ROWS]`: a file (.npy, .npz, .safetensors, CSV/TSV, JSON), optionally the array or
//! tensor to take from an .npz/.safetensors/JSON object, optionally a row subset: `a..b` (half-open),
//! a comma list `3,1,4`, or the path of an index file (one index per line, or comma/space separated; .npy integer
//! arrays work too).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use lethe::Matrix;
use lethe::data::{self, LoadOptions};
use serde::Serialize;

use crate::CliError;

/// A row subset.
#[derive(Clone, Debug, PartialEq)]
pub enum RowSpec {
    Range(usize, usize),
    List(Vec<usize>),
    File(PathBuf),
}

impl FromStr for RowSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if let Some((Ok(a), Ok(b))) = s.split_once("..").map(|(a, b)| (a.trim().parse(), b.trim().parse())) {
            return if a <= b {
                Ok(Self::Range(a, b))
            } else {
                Err(format!("empty row range {s}"))
            };
        }
        let parts: Vec<&str> = s.split(',').map(str::trim).collect();
        if parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
        {
            return Ok(Self::List(
                parts.iter().map(|p| p.parse().unwrap_or(usize::MAX)).collect(),
            ));
        }
        Ok(Self::File(PathBuf::from(s)))
    }
}

impl fmt::Display for RowSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Range(a, b) => write!(f, "{a}..{b}"),
            Self::List(v) => {
                let s: Vec<String> = v.iter().map(ToString::to_string).collect();
                f.write_str(&s.join(","))
            }
            Self::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// `PATH[#TENSOR][@ROWS]`.
#[derive(Clone, Debug, PartialEq)]
pub struct InputSpec {
    pub path: PathBuf,
    pub tensor: Option<String>,
    pub rows: Option<RowSpec>,
}

impl FromStr for InputSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let (rest, rows) = match s.rsplit_once('@') {
            Some((r, rows)) if !rows.is_empty() => (r, Some(rows.parse()?)),
            _ => (s, None),
        };
        let (path, tensor) = match rest.rsplit_once('#') {
            Some((p, t)) if !t.is_empty() => (p, Some(t.to_string())),
            _ => (rest, None),
        };
        if path.is_empty() {
            return Err(format!("no file path in `{s}`"));
        }
        Ok(Self {
            path: PathBuf::from(path),
            tensor,
            rows,
        })
    }
}

impl fmt::Display for InputSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(t) = &self.tensor {
            write!(f, "#{t}")?;
        }
        if let Some(r) = &self.rows {
            write!(f, "@{r}")?;
        }
        Ok(())
    }
}

/// What a report records about one input file.
#[derive(Clone, Debug, Serialize)]
pub struct InputRecord {
    /// The argument it was given as (e.g. "in_training", "x").
    pub role: String,
    pub spec: String,
    pub path: String,
    pub sha256: String,
    pub format: String,
    pub dtype: String,
    pub shape: Vec<u64>,
    pub tensor: Option<String>,
    /// Rows used (after the row subset).
    pub rows_used: usize,
    /// The row-index file, when the subset came from one.
    pub row_file: Option<FileDigest>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FileDigest {
    pub path: String,
    pub sha256: String,
}

/// SHA-256 of a file, streamed.
pub fn sha256_file(path: &Path) -> Result<String, CliError> {
    let f = std::fs::File::open(path).map_err(|e| CliError::io(path, &e))?;
    lethe::digest::sha256_hex(&f, |_, _| ()).map_err(|e| CliError::io(path, &e))
}

/// Loads the indices of a row spec (for a file: the digest too).
pub fn load_rows(spec: &RowSpec) -> Result<(Vec<usize>, Option<FileDigest>), CliError> {
    match spec {
        RowSpec::Range(a, b) => Ok(((*a..*b).collect(), None)),
        RowSpec::List(v) => Ok((v.clone(), None)),
        RowSpec::File(p) => {
            let digest = FileDigest {
                path: p.display().to_string(),
                sha256: sha256_file(p)?,
            };
            let loaded = data::load_path::<f64>(p, &LoadOptions::default())
                .map_err(|e| CliError::input("row index file", p, e.into()))?;
            let m = loaded.matrix;
            let mut out = Vec::with_capacity(m.as_slice().len());
            for (k, &v) in m.as_slice().iter().enumerate() {
                if !(v >= 0.0 && v.fract() == 0.0 && v < 9.0e15) {
                    return Err(CliError::msg(format!(
                        "row index file {}: entry {k} is {v}, not a non-negative integer row index",
                        p.display()
                    )));
                }
                out.push(v as usize);
            }
            Ok((out, Some(digest)))
        }
    }
}

/// A loaded matrix input with its record.
pub struct Input<T: lethe::data::Scalar = f64> {
    pub matrix: Matrix<T>,
    pub record: InputRecord,
}

/// Whether every value of the spec's array converts to f32 and back exactly (float32/float16/bfloat16 and small
/// integer dtypes), read from the header only; `false` when that cannot be told (text formats parse as float64).
pub fn exact_in_f32(spec: &InputSpec) -> bool {
    const EXACT: [&str; 8] = [
        "float32", "float16", "bfloat16", "int8", "uint8", "int16", "uint16", "bool",
    ];
    let Ok(info) = data::inspect_path(&spec.path) else {
        return false;
    };
    let array = match &spec.tensor {
        Some(t) => info.arrays.iter().find(|a| a.name.as_deref() == Some(t.as_str())),
        None if info.arrays.len() == 1 => info.arrays.first(),
        None => None,
    };
    array.is_some_and(|a| EXACT.contains(&a.dtype.as_str()))
}

/// Loads an input for `role`: the file (with its tensor and row subset) as f64.
pub fn load(role: &str, spec: &InputSpec) -> Result<Input, CliError> {
    load_as(role, spec)
}

/// [`load`] into element type `T` (f32 only for inputs that [`exact_in_f32`] accepts: the values are then the same).
pub fn load_as<T: lethe::data::Scalar>(role: &str, spec: &InputSpec) -> Result<Input<T>, CliError> {
    let (rows, row_file) = match &spec.rows {
        Some(r) => {
            let (v, d) = load_rows(r)?;
            (Some(v), d)
        }
        None => (None, None),
    };
    let opts = LoadOptions {
        name: spec.tensor.clone(),
        rows,
        ..LoadOptions::default()
    };
    let loaded = data::load_path::<T>(&spec.path, &opts).map_err(|e| CliError::input(role, &spec.path, e.into()))?;
    let record = InputRecord {
        role: role.to_string(),
        spec: spec.to_string(),
        path: spec.path.display().to_string(),
        sha256: sha256_file(&spec.path)?,
        format: format!("{:?}", loaded.format).to_lowercase(),
        dtype: loaded.info.dtype.clone(),
        shape: loaded.info.shape.clone(),
        tensor: loaded.info.name.clone(),
        rows_used: loaded.matrix.rows(),
        row_file,
    };
    Ok(Input {
        matrix: loaded.matrix,
        record,
    })
}

/// Loads a 1-D sample: a single column (or a single row) of numbers.
pub fn load_vector(role: &str, spec: &InputSpec) -> Result<(Vec<f64>, InputRecord), CliError> {
    let input = load(role, spec)?;
    let m = &input.matrix;
    if m.cols() != 1 && m.rows() != 1 {
        return Err(CliError::input(
            role,
            &spec.path,
            lethe::Error::ShapeMismatch {
                message: format!(
                    "this command takes a 1-D sample, but the input is {}×{}; pass one column (or select a tensor/column)",
                    m.rows(),
                    m.cols()
                ),
            },
        ));
    }
    Ok((input.matrix.as_slice().to_vec(), input.record))
}

/// Reads a text file of one item per line (predictions, generations).
pub fn read_lines(role: &str, path: &Path) -> Result<(Vec<String>, FileDigest), CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::io(path, &e))?;
    let lines = text.lines().map(str::to_string).collect::<Vec<_>>();
    if lines.is_empty() {
        return Err(CliError::input(
            role,
            path,
            lethe::Error::Empty {
                input: role.into(),
                fix: "one item per line".into(),
            },
        ));
    }
    Ok((
        lines,
        FileDigest {
            path: path.display().to_string(),
            sha256: sha256_file(path)?,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse() {
        let s: InputSpec = "a/b.npz#act@0..10".parse().unwrap();
        assert_eq!(s.path, PathBuf::from("a/b.npz"));
        assert_eq!(s.tensor.as_deref(), Some("act"));
        assert_eq!(s.rows, Some(RowSpec::Range(0, 10)));
        let s: InputSpec = "x.npy@3,1,4".parse().unwrap();
        assert_eq!(s.rows, Some(RowSpec::List(vec![3, 1, 4])));
        let s: InputSpec = "x.npy@forget.txt".parse().unwrap();
        assert_eq!(s.rows, Some(RowSpec::File("forget.txt".into())));
        assert_eq!(s.to_string(), "x.npy@forget.txt");
        let s: InputSpec = "plain.csv".parse().unwrap();
        assert_eq!((s.tensor, s.rows), (None, None));
        assert!("5..2".parse::<RowSpec>().is_err());
    }
}
