//! Reading any supported file into a matrix: format detection, options, results.
//!
//! The format is decided by the first bytes, never by the file name (which only shapes messages):
//!
//! | first bytes | format |
//! |---|---|
//! | `\x93NUMPY` | .npy |
//! | `PK\x03\x04` (or `PK\x05\x06`, an empty zip) | .npz |
//! | 8-byte little-endian header length (< 2³²) then `{` | .safetensors |
//! | first non-space byte `[` or `{` | JSON |
//! | anything else that is UTF-8 text | CSV/TSV |
//!
//! [`inspect`] reads headers only; [`load`] checks [`LoadOptions::max_bytes`] from the header before it reads
//! any data, and reads only the selected rows where the format allows it.

use serde::{Deserialize, Serialize};

use super::array::Plan;
#[cfg(feature = "json")]
use super::json;
#[cfg(feature = "npz")]
use super::npz;
#[cfg(feature = "safetensors")]
use super::safetensors;
use super::source::ByteSource;
#[cfg(feature = "text")]
use super::text;
use super::{DataError, Matrix, Scalar, npy};
use crate::note::{Note, NoteKind};

/// The file formats Lethe reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Npy,
    Npz,
    Safetensors,
    /// CSV, TSV, semicolon- or whitespace-separated text.
    Csv,
    Json,
}

impl Format {
    /// The format suggested by a file name's extension, if any.
    pub fn from_extension(name: &str) -> Option<Self> {
        let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "npy" => Self::Npy,
            "npz" => Self::Npz,
            "safetensors" => Self::Safetensors,
            "csv" | "tsv" | "txt" | "tab" => Self::Csv,
            "json" => Self::Json,
            _ => return None,
        })
    }

    fn label(self) -> &'static str {
        match self {
            Self::Npy => ".npy",
            Self::Npz => ".npz",
            Self::Safetensors => ".safetensors",
            Self::Csv => "CSV/TSV text",
            Self::Json => "JSON",
        }
    }
}

/// Which column of a text file holds row labels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LabelColumn {
    /// A first or last column that is not numeric in the first data row (Embedding Projector TSVs).
    #[default]
    Auto,
    /// Every column is data.
    None,
    First,
    Last,
}

/// Which columns of a text table are the features (CSV/TSV only; other formats ignore it).
///
/// Columns are named by their header names or by their numbers counted from 1, as a spreadsheet or editor shows
/// them (a name takes precedence over a number).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnChoice {
    /// Every column but a row-label column ([`LabelColumn`]) and label/ID columns detected by name (see the module
    /// documentation of [`crate::data::text`]).
    #[default]
    Auto,
    /// Every column but a row-label column: no detection by name.
    All,
    /// These columns, in this order (repeats allowed); the rest are not read.
    Use(Vec<String>),
    /// Every column but a row-label column and these.
    Drop(Vec<String>),
}

impl ColumnChoice {
    /// The choice an array name spells, as a command line's `FILE#NAME` gives it: `columns=all`, `columns=auto`,
    /// `columns=A,B,…` (use these), `drop=A,B,…` (every column but these); `None` for any other name.
    ///
    /// # Examples
    /// ```
    /// use lethe::data::ColumnChoice;
    /// assert_eq!(ColumnChoice::from_name("drop=id,label"), Some(ColumnChoice::Drop(vec!["id".into(), "label".into()])));
    /// assert_eq!(ColumnChoice::from_name("columns=all"), Some(ColumnChoice::All));
    /// assert_eq!(ColumnChoice::from_name("emb"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Self> {
        let list = |s: &str| s.split(',').map(|c| c.trim().to_string()).collect::<Vec<_>>();
        if let Some(rest) = name.strip_prefix("columns=") {
            return Some(match rest.trim() {
                "all" => Self::All,
                "auto" => Self::Auto,
                r => Self::Use(list(r)),
            });
        }
        name.strip_prefix("drop=").map(|r| Self::Drop(list(r)))
    }
}

/// A column of a text table read as text rather than as a feature: the row labels, or a label/ID column left out
/// of the features.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextColumn {
    /// Its header name, or `column N` (counted from 1) without one.
    pub name: String,
    /// Its number in the file, counted from 1.
    pub number: usize,
    /// Its cells for the rows loaded, verbatim (trimmed).
    pub values: Vec<String>,
}

/// How to load a file. Defaults: the single array, all rows, at most 1 GiB, labels and header auto-detected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct LoadOptions {
    /// Array (.npz member, with or without `.npy`), tensor (.safetensors) or key (JSON object) to load; may be
    /// left out when the file holds exactly one.
    pub name: Option<String>,
    /// Rows to load, in this order (repeats allowed); all rows when `None`.
    pub rows: Option<Vec<usize>>,
    /// Refuse loads needing more than this many bytes ([`DataError::TooLarge`]): the larger of the result's
    /// size and the bytes read or decompressed for it, known from the header before any data is read. For text
    /// formats, which must be read whole, the file size.
    pub max_bytes: u64,
    /// Label column of text files.
    pub label_column: LabelColumn,
    /// Whether a text file's first row is a header; detected when `None` (a first row with a non-numeric cell
    /// where the second row has a number).
    pub has_header: Option<bool>,
    /// Which columns of a text table are the features; with [`ColumnChoice::Auto`], an array name of the form
    /// `columns=…` or `drop=…` chooses them ([`ColumnChoice::from_name`]).
    pub columns: ColumnChoice,
}

/// The default [`LoadOptions::max_bytes`]: 1 GiB.
pub const DEFAULT_MAX_BYTES: u64 = 1 << 30;

impl Default for LoadOptions {
    fn default() -> Self {
        Self {
            name: None,
            rows: None,
            max_bytes: DEFAULT_MAX_BYTES,
            label_column: LabelColumn::Auto,
            has_header: None,
            columns: ColumnChoice::Auto,
        }
    }
}

/// One array (or tensor, or table) in a file, as described by its header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ArrayInfo {
    /// Member/tensor/key name (.npz without the `.npy` suffix); `None` for single-array formats.
    pub name: Option<String>,
    /// numpy's name for the element type: `float32`, `int64`, `bool`, `bfloat16`; text formats are `float64`.
    pub dtype: String,
    /// The type as the file spells it: `<f4`, `BF16`; `text` for CSV/JSON.
    pub stored_dtype: String,
    /// Shape as stored.
    pub shape: Vec<u64>,
    /// Whether the data is stored in Fortran (column-major) order; it is transposed on load.
    pub fortran_order: bool,
    /// Size of the (uncompressed) data in bytes; for text, the bytes of text.
    pub byte_size: u64,
    /// Offset of the first data byte in the file, where the data is stored uncompressed.
    pub data_offset: Option<u64>,
    /// Size of the compressed data (deflated .npz members).
    pub compressed_size: Option<u64>,
    /// Rows of the matrix it loads as (0 when it cannot load).
    pub rows: u64,
    /// Columns of the matrix it loads as (0 when it cannot load).
    pub cols: u64,
    /// How the shape was turned into a matrix, when that is not obvious (rank ≥ 3 flattened).
    pub note: Option<String>,
    /// Why this array cannot be loaded (unsupported dtype, rank 0, zero-size dimension), if so.
    pub problem: Option<String>,
}

/// What a file holds, read from its headers only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileInfo {
    pub input: String,
    pub format: Format,
    pub file_size: u64,
    pub arrays: Vec<ArrayInfo>,
    pub warnings: Vec<Note>,
}

impl FileInfo {
    /// The array a load with array name `name` reads ([`LoadOptions::name`]): the named .npz member (with or
    /// without `.npy`) or tensor or JSON key, or the only array when `name` is `None`; single-array formats
    /// (.npy, text) ignore a name, as their loaders do. `None` when there is no such array or the choice is
    /// ambiguous.
    pub fn array(&self, name: Option<&str>) -> Option<&ArrayInfo> {
        match name {
            Some(_) if matches!(self.arrays.as_slice(), [a] if a.name.is_none()) => self.arrays.first(),
            Some(t) => self.arrays.iter().find(|a| {
                let n = a.name.as_deref();
                n == Some(t) || t.strip_suffix(".npy").is_some_and(|s| n == Some(s))
            }),
            None if self.arrays.len() == 1 => self.arrays.first(),
            None => None,
        }
    }
}

/// A loaded matrix and what came with it.
#[derive(Clone, Debug)]
pub struct Loaded<T: Scalar = f64> {
    /// The container format the data came from.
    pub format: Format,
    /// Row-major, one row per example (the selected rows, in the order asked for).
    pub matrix: Matrix<T>,
    /// Row labels (text label column), for the rows loaded.
    pub labels: Option<Vec<String>>,
    /// Columns of a text table read as text, not as features, in file order: the row-label column and label/ID
    /// columns left out by name (see [`crate::data::text`]); `labels` holds one of them.
    pub text_columns: Vec<TextColumn>,
    /// Column names (text header row) of the features, in the matrix's order.
    pub column_names: Option<Vec<String>>,
    /// The array that was loaded, as [`inspect`] would describe it.
    pub info: ArrayInfo,
    /// Things the caller should know: non-finite values present, detected header/labels, ignored bytes.
    pub warnings: Vec<Note>,
}

/// Says where non-finite values are, so they are reported rather than hidden.
pub(crate) fn nonfinite_warning<T: Scalar>(input: &str, m: &Matrix<T>) -> Option<Note> {
    let (mut nan, mut pinf, mut ninf) = (0usize, 0usize, 0usize);
    let mut first = None;
    for (i, v) in m.as_slice().iter().enumerate() {
        let v = v.to_f64();
        if v.is_finite() {
            continue;
        }
        if v.is_nan() {
            nan += 1;
        } else if v > 0.0 {
            pinf += 1;
        } else {
            ninf += 1;
        }
        first.get_or_insert(i);
    }
    let first = first?;
    let cols = m.cols().max(1);
    Some(nonfinite_text(input, [nan, pinf, ninf], first / cols, first % cols))
}

/// The warning about `[NaN, +inf, -inf]` counts of non-finite values, the first at (`row`, `col`) of the matrix.
pub(crate) fn nonfinite_text(input: &str, [nan, pinf, ninf]: [usize; 3], row: usize, col: usize) -> Note {
    Note::new(
        NoteKind::NonFinite,
        format!(
            "`{input}` contains non-finite values ({nan} NaN, {pinf} +inf, {ninf} -inf; the first at row {row}, column \
         {col}, both counting from 0); the statistics refuse them: remove or impute those rows first"
        ),
    )
}

/// Wraps planned array data as a [`Loaded`].
pub(crate) fn finish<T: Scalar>(
    format: Format,
    input: &str,
    plan: &Plan<'_>,
    data: Vec<T>,
    info: ArrayInfo,
    mut warnings: Vec<Note>,
) -> Result<Loaded<T>, DataError> {
    let matrix = Matrix::from_vec(plan.out_rows(), plan.cols(), data)
        .map_err(|e| DataError::internal(input, format!("assembling the matrix: {e}")))?;
    warnings.extend(nonfinite_warning(input, &matrix));
    Ok(Loaded {
        format,
        matrix,
        labels: None,
        text_columns: Vec::new(),
        column_names: None,
        info,
        warnings,
    })
}

/// Picks the array to load among `names`: the one asked for, else the only one.
pub(crate) fn pick<'a>(
    input: &str,
    what: &'static str,
    names: &'a [String],
    wanted: Option<&str>,
    alt: impl Fn(&str) -> Option<String>,
) -> Result<&'a str, DataError> {
    let list = || {
        if names.is_empty() {
            "none".to_string()
        } else {
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        }
    };
    match wanted {
        Some(w) => names
            .iter()
            .find(|n| n.as_str() == w)
            .or_else(|| alt(w).and_then(|a| names.iter().find(|n| **n == a)))
            .map(String::as_str)
            .ok_or_else(|| DataError::NotFound {
                input: input.to_string(),
                what,
                name: w.to_string(),
                available: list(),
            }),
        None => match names {
            [only] => Ok(only),
            [] => Err(DataError::Empty {
                input: input.to_string(),
                detail: format!("it holds no {what}s"),
            }),
            _ => Err(DataError::Ambiguous {
                input: input.to_string(),
                what,
                available: list(),
            }),
        },
    }
}

/// Decides the format from the first bytes of `src`.
///
/// # Errors
/// [`DataError::UnknownFormat`] for binary data that is none of the supported formats; I/O errors.
///
/// # Examples
/// ```
/// use lethe::data::{Format, detect};
/// let csv: &[u8] = b"1,2\n3,4\n";
/// assert_eq!(detect("a.csv", &csv).unwrap(), Format::Csv);
/// let json: &[u8] = b"  [[1, 2]]";
/// assert_eq!(detect("a.bin", &json).unwrap(), Format::Json);
/// ```
pub fn detect(input: &str, src: &dyn ByteSource) -> Result<Format, DataError> {
    let mut head = [0u8; 64];
    let n = usize::try_from(src.len()).map_or(head.len(), |l| l.min(head.len()));
    src.read_at(0, &mut head[..n])
        .map_err(|e| DataError::io(input, "reading the first bytes", &e))?;
    let head = &head[..n];
    if head.starts_with(npy::MAGIC) {
        return Ok(Format::Npy);
    }
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        return Ok(Format::Npz);
    }
    if head.len() >= 9 && head[4..8] == [0, 0, 0, 0] && head[8] == b'{' {
        return Ok(Format::Safetensors);
    }
    let body = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[' | b'{') => return Ok(Format::Json),
        None if src.is_empty() => {
            return Err(DataError::Empty {
                input: input.to_string(),
                detail: "the file is empty (0 bytes)".into(),
            });
        }
        _ => {}
    }
    // Text never holds NUL bytes; say what the name suggested, if anything.
    if head.contains(&0) || head.len() < 8 && (head.starts_with(b"\x93NUM") || head.starts_with(b"PK")) {
        let hint = match Format::from_extension(input) {
            Some(f) if f != Format::Csv && f != Format::Json => format!(
                "named like {} but its first bytes are not a {} header; the file may be truncated or of \
                 another kind",
                f.label(),
                f.label()
            ),
            _ => "binary data that is not .npy, .npz or .safetensors".to_string(),
        };
        return Err(DataError::UnknownFormat {
            input: input.to_string(),
            detail: hint,
        });
    }
    Ok(Format::Csv)
}

/// The error for a recognised format whose reader this build lacks.
#[allow(dead_code)] // every reader built: never called
fn not_built(input: &str, format: Format) -> DataError {
    let feature = match format {
        Format::Npy => "npy",
        Format::Npz => "npz",
        Format::Safetensors => "safetensors",
        Format::Csv => "text",
        Format::Json => "json",
    };
    DataError::NotBuilt {
        input: input.to_string(),
        format: format.label(),
        feature,
    }
}

fn mismatch_warning(input: &str, found: Format) -> Option<Note> {
    let named = Format::from_extension(input)?;
    (named != found).then(|| {
        Note::new(
            NoteKind::Reader,
            format!(
                "`{input}` is named like {} but its content is {}; it was read as {}",
                named.label(),
                found.label(),
                found.label()
            ),
        )
    })
}

/// Lists the arrays in a file, reading only headers (the zip central directory and each member's .npy header
/// for .npz, decompressing only those headers; the JSON header for .safetensors). Text formats have no header
/// and are parsed whole.
///
/// # Errors
/// [`DataError`] for unreadable, corrupt or truncated files; see [`detect`] for unknown formats.
///
/// # Examples
/// ```
/// let csv: &[u8] = b"a,b\n1,2\n3,4\n";
/// let info = lethe::data::inspect("x.csv", &csv).unwrap();
/// assert_eq!(info.arrays[0].shape, vec![2, 2]);
/// ```
pub fn inspect(input: &str, src: &dyn ByteSource) -> Result<FileInfo, DataError> {
    let format = detect(input, src)?;
    let mut info = match format {
        Format::Npy => npy::inspect(input, src),
        #[cfg(feature = "npz")]
        Format::Npz => npz::inspect(input, src),
        #[cfg(feature = "safetensors")]
        Format::Safetensors => safetensors::inspect(input, src),
        #[cfg(feature = "text")]
        Format::Csv => text::inspect(input, src),
        #[cfg(feature = "json")]
        Format::Json => json::inspect(input, src),
        #[allow(unreachable_patterns)]
        other => Err(not_built(input, other)),
    }?;
    info.warnings.extend(mismatch_warning(input, format));
    Ok(info)
}

/// Loads one array of a file as a row-major matrix of `T` (`f64` or `f32`).
///
/// Rank-1 arrays load as `n × 1`, rank-2 as stored, rank ≥ 3 as `n × (product of the rest)` in C index order
/// (said in [`ArrayInfo::note`]); Fortran-order data is transposed into row-major; integers and booleans
/// convert as numpy's `astype` does. Non-finite values are kept and reported in [`Loaded::warnings`].
///
/// # Errors
/// Every problem with the input is a [`DataError`] naming `input`: unknown format, corrupt or truncated data,
/// unsupported dtype, bad shape, missing or ambiguous array name, [`DataError::TooLarge`] beyond
/// [`LoadOptions::max_bytes`] (decided from the header alone), row index out of range, unparsable text.
///
/// # Examples
/// ```
/// use lethe::data::{LoadOptions, load};
/// let csv: &[u8] = b"x,y\n1,2\n3,4\n5,6\n";
/// let opts = LoadOptions { rows: Some(vec![2, 0]), ..LoadOptions::default() };
/// let got = load::<f64>("pts.csv", &csv, &opts).unwrap();
/// assert_eq!(got.matrix.as_slice(), &[5.0, 6.0, 1.0, 2.0]);
/// assert_eq!(got.column_names.unwrap(), vec!["x", "y"]);
/// ```
pub fn load<T: Scalar>(input: &str, src: &dyn ByteSource, opts: &LoadOptions) -> Result<Loaded<T>, DataError> {
    let format = detect(input, src)?;
    let mut loaded = match format {
        Format::Npy => npy::load(input, src, opts),
        #[cfg(feature = "npz")]
        Format::Npz => npz::load(input, src, opts),
        #[cfg(feature = "safetensors")]
        Format::Safetensors => safetensors::load(input, src, opts),
        #[cfg(feature = "text")]
        Format::Csv => text::load(input, src, opts),
        #[cfg(feature = "json")]
        Format::Json => json::load(input, src, opts),
        #[allow(unreachable_patterns)]
        other => Err(not_built(input, other)),
    }?;
    loaded.warnings.extend(mismatch_warning(input, format));
    Ok(loaded)
}

/// [`load`] over bytes in memory.
///
/// # Errors
/// As [`load`].
///
/// # Examples
/// ```
/// let m = lethe::data::load_bytes::<f32>("v.json", b"[[1, 2], [3, 4]]", &Default::default()).unwrap().matrix;
/// assert_eq!((m.rows(), m.cols()), (2, 2));
/// ```
pub fn load_bytes<T: Scalar>(input: &str, bytes: &[u8], opts: &LoadOptions) -> Result<Loaded<T>, DataError> {
    load(input, &bytes, opts)
}

/// [`load`] from a file on disk, reading only what is needed. `input` in messages is the path as given.
///
/// # Errors
/// [`DataError::Io`] when the file cannot be opened (a pipe or FIFO is read whole first: [`super::open_path`]);
/// otherwise as [`load`].
///
/// # Examples
/// ```
/// let path = std::env::temp_dir().join("lethe_load_path_doc.csv");
/// std::fs::write(&path, "1\n2\n3\n").unwrap();
/// let m = lethe::data::load_path::<f64>(&path, &Default::default()).unwrap().matrix;
/// assert_eq!(m.as_slice(), &[1.0, 2.0, 3.0]);
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn load_path<T: Scalar>(path: impl AsRef<std::path::Path>, opts: &LoadOptions) -> Result<Loaded<T>, DataError> {
    let (input, file) = open(path.as_ref())?;
    load(&input, &file, opts)
}

/// [`inspect`] of a file on disk.
///
/// # Errors
/// [`DataError::Io`] when the file cannot be opened (a pipe or FIFO is read whole first: [`super::open_path`]);
/// otherwise as [`inspect`].
///
/// # Examples
/// ```
/// let path = std::env::temp_dir().join("lethe_inspect_path_doc.json");
/// std::fs::write(&path, "[1, 2, 3]").unwrap();
/// assert_eq!(lethe::data::inspect_path(&path).unwrap().arrays[0].rows, 3);
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn inspect_path(path: impl AsRef<std::path::Path>) -> Result<FileInfo, DataError> {
    let (input, file) = open(path.as_ref())?;
    inspect(&input, &file)
}

/// A regular file as it is; a pipe, FIFO or device read whole (at most [`DEFAULT_MAX_BYTES`]; see
/// [`super::open_path`]).
#[cfg(not(target_arch = "wasm32"))]
fn open(path: &std::path::Path) -> Result<(String, super::PathSource), DataError> {
    let input = path.display().to_string();
    let file = super::open_path(&input, path, DEFAULT_MAX_BYTES, super::pipe_wait())?;
    Ok((input, file))
}

#[cfg(all(test, not(feature = "npz")))]
mod not_built_tests {
    use super::*;

    #[test]
    fn formats_without_their_reader_say_which_feature_reads_them() {
        let zip: &[u8] = b"PK\x03\x04 and the rest of a zip file";
        let e = load::<f64>("x.npz", &zip, &LoadOptions::default()).unwrap_err();
        assert!(matches!(e, DataError::NotBuilt { feature: "npz", .. }), "{e}");
        assert!(e.to_string().contains("`x.npz` is .npz"), "{e}");
        assert!(matches!(inspect("x.npz", &zip), Err(DataError::NotBuilt { .. })));
    }
}
