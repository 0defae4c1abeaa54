//! Data in: dense matrices and the file formats they are read from.
//!
//! Readers for .npy, .npz, .safetensors, CSV/TSV and JSON turn a file into a row-major [`Matrix`] (one row per
//! example). They work header-first over a random-access [`ByteSource`]: [`inspect`] reads only headers, and
//! [`load()`] checks the size against [`LoadOptions::max_bytes`] before reading any data and then reads only the
//! rows asked for where the format allows it. Every bad input is a [`DataError`] naming the input, the problem
//! and the fix — never a panic, a hang or an allocation sized by an unchecked header field.
//!
//! What Lethe writes itself and why: the .npy header parser ([`npy`]: `npyz` wants a sequential reader and
//! allocates the declared header length unchecked), the array reader (`array.rs`: row subsets by byte offset,
//! Fortran order, chunked decoding), the delimiter/header/label sniffing for text ([`text`]) and a streaming
//! JSON visitor ([`json`]). Crates do the rest: `zip` (central directory, inflate), `safetensors` (header
//! validation), `csv-core` (quoting, a field at a time, so text is streamed), `serde_json`, `half`.
//!
//! Every reader but .npy is a cargo feature (`npz`, `safetensors`, `text`, `json`; all on by default). A build
//! without one still recognises its files and fails with [`DataError::NotBuilt`] naming the missing reader (the
//! widget's lean wasm module reads .npy only and passes other files to its full module).

// Helpers shared by the readers (streamed access, sub-sources, array picking, bfloat16) go unused in builds that
// leave some readers out.
#![cfg_attr(
    not(all(feature = "npz", feature = "safetensors", feature = "text", feature = "json")),
    allow(dead_code)
)]

mod array;
mod array_file;
mod columns;
mod dtype;
#[cfg(feature = "json")]
pub mod json;
mod load;
mod matrix;
pub mod npy;
#[cfg(feature = "npz")]
pub mod npz;
#[cfg(not(target_arch = "wasm32"))]
mod path;
#[cfg(feature = "safetensors")]
pub mod safetensors;
mod source;
mod split;
#[cfg(feature = "text")]
pub mod text;

pub use array_file::{ArrayFile, FileRows};
pub use columns::{Columns, RowsOf, Source};
pub use load::{
    ArrayInfo, ColumnChoice, DEFAULT_MAX_BYTES, FileInfo, Format, LabelColumn, LoadOptions, Loaded, TextColumn, detect,
    inspect, load, load_bytes,
};
#[cfg(not(target_arch = "wasm32"))]
pub use load::{inspect_path, load_path};
pub use matrix::{Matrix, MatrixRef, Scalar};
#[cfg(not(target_arch = "wasm32"))]
pub use path::{PIPE_WAIT, PathSource, open_path, pipe_wait};
pub use source::ByteSource;
pub use split::{SplitColumn, split_column, split_rows};

/// What went wrong reading an input file.
///
/// `input` is the name the caller gave the input (a file name, or an argument name); it is carried so the message
/// can say which of several dropped files is at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// The bytes do not start like any supported format.
    #[error("`{input}`: unrecognised file format ({detail}); supported: .npy, .npz, .safetensors, CSV/TSV, JSON")]
    UnknownFormat { input: String, detail: String },

    /// The format was recognised, but this build of Lethe was compiled without its reader (cargo feature
    /// `feature` of the `lethe` crate; the widget's lean module reads .npy only and hands other files to its
    /// full module).
    #[error("`{input}` is {format}, which this build does not read (it lacks the `{feature}` reader)")]
    NotBuilt {
        input: String,
        format: &'static str,
        feature: &'static str,
    },

    /// The file ends before its header says it should.
    #[error("`{input}` is truncated: {detail}; the file may be incomplete, re-export or re-download it")]
    Truncated { input: String, detail: String },

    /// The file is structurally invalid. `fix` says what would help (re-saving the file with the library that
    /// writes its format, or, for an internal error, reporting it).
    #[error("`{input}` is corrupt: {detail}; {fix}")]
    Corrupt { input: String, detail: String, fix: String },

    /// The element type is not supported.
    #[error("`{input}`: unsupported dtype {dtype}; supported: {supported}")]
    UnsupportedDtype {
        input: String,
        dtype: String,
        supported: &'static str,
    },

    /// The array does not have the rank/shape the analysis needs.
    #[error("`{input}` has shape {shape:?}, but {expected}")]
    BadShape {
        input: String,
        shape: Vec<u64>,
        expected: String,
    },

    /// A tensor/array/column the caller asked for does not exist.
    #[error("`{input}` has no {what} named `{name}`; available: {available}")]
    NotFound {
        input: String,
        what: &'static str,
        name: String,
        available: String,
    },

    /// The input is larger than the caller's stated limit.
    #[error("`{input}` needs {needed} bytes, more than the limit of {limit} bytes{hint}")]
    TooLarge {
        input: String,
        needed: u64,
        limit: u64,
        hint: String,
    },

    /// A text value could not be parsed as a number.
    #[error(
        "`{input}`: cannot parse `{text}` as a number at line {line}, column {column} (both counting from 1){hint}"
    )]
    Parse {
        input: String,
        text: String,
        line: usize,
        column: usize,
        /// What would fix it, starting with "; " (or empty).
        hint: String,
    },

    /// Reading the bytes failed (the file could not be opened or read). `fix` depends on what the system said
    /// ([`DataError::io`]).
    #[error("`{input}`: {detail}; {fix}")]
    Io { input: String, detail: String, fix: String },

    /// There is nothing to load.
    #[error("`{input}` has no data: {detail}")]
    Empty { input: String, detail: String },

    /// The file holds several arrays and none was named. The message names the choices; how to choose is the
    /// caller's to say (the CLI's `PATH#NAME`, the page's tensor picker, [`LoadOptions::name`]).
    #[error("`{input}` holds several {what}s ({available}); choose which one to load")]
    Ambiguous {
        input: String,
        what: &'static str,
        available: String,
    },

    /// A requested row index is past the last row.
    #[error("row index {index} is out of range for `{input}`, which has {rows} rows ({})", crate::error::index_span(*.rows))]
    RowOutOfRange { input: String, index: usize, rows: u64 },

    /// Rows of a table differ in length.
    #[error(
        "`{input}`: {location} has {got} values but the rows before it have {expected}; every row needs the same number of columns"
    )]
    Ragged {
        input: String,
        location: String,
        got: usize,
        expected: usize,
    },

    /// A file given as a split column (the rows whose entry equals a value) cannot serve as one.
    #[error("`{input}` cannot be used as a split column: {detail}")]
    BadSplitColumn { input: String, detail: String },

    /// Memory for the result could not be allocated.
    #[error("`{input}`: could not allocate {bytes} bytes; load a subset of rows or use a machine with more memory")]
    OutOfMemory { input: String, bytes: u64 },
}

/// The fix for an error that is Lethe's, not the file's.
pub(crate) const REPORT_BUG: &str =
    "this is a bug in Lethe, not a problem with the file: please report it, with the file if you can share it";

impl DataError {
    /// [`DataError::Corrupt`] with what would fix it.
    pub(crate) fn corrupt(input: &str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self::Corrupt {
            input: input.to_string(),
            detail: detail.into(),
            fix: fix.into(),
        }
    }

    /// [`DataError::Corrupt`] for a broken internal invariant (a bug in Lethe).
    pub(crate) fn internal(input: &str, detail: impl Into<String>) -> Self {
        Self::corrupt(input, format!("internal error: {}", detail.into()), REPORT_BUG)
    }

    /// [`DataError::Io`] for `e`, met while doing `what` (e.g. "reading the first bytes"), with the fix its kind
    /// suggests.
    pub fn io(input: &str, what: &str, e: &std::io::Error) -> Self {
        use std::io::ErrorKind as K;
        let fix = match e.kind() {
            K::NotFound => "check the path (a relative path is read from the current directory)",
            K::PermissionDenied => "make the file readable for this user, or copy it somewhere readable",
            K::IsADirectory => "give the path of a file, not of a directory",
            K::Interrupted | K::TimedOut | K::WouldBlock => "try again",
            _ => {
                "check that the file still exists and can be read (it may have been moved, changed or deleted \
                 since it was chosen), then try again"
            }
        };
        Self::Io {
            input: input.to_string(),
            detail: format!("{what}: {e}"),
            fix: fix.into(),
        }
    }
}
