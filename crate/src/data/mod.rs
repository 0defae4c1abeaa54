//! Data in: dense matrices and the file formats they are read from.

mod matrix;

pub use matrix::{Matrix, MatrixRef, Scalar};

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

    /// The file ends before its header says it should.
    #[error("`{input}` is truncated: {detail}; the file may be incomplete, re-export or re-download it")]
    Truncated { input: String, detail: String },

    /// The file is structurally invalid.
    #[error("`{input}` is corrupt: {detail}")]
    Corrupt { input: String, detail: String },

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
        shape: Vec<usize>,
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
    #[error("`{input}`: cannot parse `{text}` as a number at line {line}, column {column}")]
    Parse {
        input: String,
        text: String,
        line: usize,
        column: usize,
    },
}
