//! The crate's error type.
//!
//! Every message names the input it concerns, says what is wrong and, where there is one, what would fix it.
//! Inputs are named by the argument they were passed as (`x`, `forget`, `retrained`, ...); callers that know a
//! file path (the CLI, the widget) add it themselves, last in the message.

use crate::data::DataError;

/// Result alias used across the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in Lethe's statistics.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading or parsing an input file failed.
    #[error(transparent)]
    Data(#[from] DataError),

    /// A parameter is outside its valid range.
    #[error("parameter `{name}` = {value} is invalid: expected {expected}")]
    InvalidParameter {
        name: &'static str,
        value: String,
        expected: String,
    },

    /// An input has no rows / no values. (These errors name their input as a marked role, `words::role`: each front
    /// end says it its own way.)
    #[error("input `{}` is empty: {fix}", crate::words::role(.input))]
    Empty { input: String, fix: String },

    /// An input contains NaN or ±inf.
    #[error(
        "input `{}` contains a non-finite value ({value}) at {location}; remove or impute non-finite values first",
        crate::words::role(.input)
    )]
    NonFinite {
        input: String,
        value: f64,
        location: String,
    },

    /// An input has too few observations for the requested procedure.
    #[error("input `{}` has {got} {unit}, but {procedure} needs at least {need}", crate::words::role(.input))]
    TooSmall {
        input: String,
        got: usize,
        need: usize,
        unit: &'static str,
        procedure: &'static str,
    },

    /// An input needs more memory or work than one computation may take (e.g. kernels of too many rows; see
    /// [`crate::check::limits`]). `detail` says how much it needs and the limit, `fix` what would make it fit.
    #[error("input `{}` is too large: {detail}; {fix}", crate::words::role(.input))]
    TooLarge { input: String, detail: String, fix: String },

    /// A parameter asks for more memory or work than one computation may take (e.g. too many shuffles or grid
    /// points; see [`crate::check::limits`]). `detail` says how much it needs and the limit, `fix` what would
    /// make it fit.
    #[error("parameter `{name}` = {value} is too large: {detail}; {fix}")]
    ParameterTooLarge {
        name: &'static str,
        value: u64,
        detail: String,
        fix: String,
    },

    /// Two inputs that must agree in shape do not.
    #[error("shape mismatch: {message}")]
    ShapeMismatch { message: String },

    /// A value is outside the domain the procedure is defined on (e.g. a score outside [0, 1]).
    #[error("input `{}` has value {value} at {location}, outside {domain}", crate::words::role(.input))]
    OutOfDomain {
        input: String,
        value: f64,
        location: String,
        domain: &'static str,
    },

    /// A row index refers past the end of its input.
    #[error("index {index} in `{input}` is out of range: the data has {len} rows ({})", index_span(*.len as u64))]
    IndexOutOfRange { input: String, index: usize, len: usize },

    /// A compute backend failed (no adapter, device lost, buffer too large).
    #[error("compute backend error: {0}")]
    Backend(String),

    /// The caller asked the computation to stop.
    #[error("cancelled by the caller")]
    Cancelled,
}

impl Error {
    /// Shorthand for [`Error::InvalidParameter`].
    pub fn param(name: &'static str, value: impl std::fmt::Display, expected: impl Into<String>) -> Self {
        Error::InvalidParameter {
            name,
            value: value.to_string(),
            expected: expected.into(),
        }
    }
}

/// The valid row indices of data with `n` rows, with their numbering named: "valid indices are 0 to 1499, counting
/// from 0" (a range written `0..1500` reads as inclusive to many). Every out-of-range message says it this way.
pub fn index_span(n: u64) -> String {
    match n {
        0 => "it has no rows".to_string(),
        n => format!("valid indices are 0 to {}, counting from 0", n - 1),
    }
}

#[cfg(test)]
mod index_span_tests {
    use super::*;

    /// "valid indices are 0..1500" read as inclusive; the range says its last index and its numbering.
    #[test]
    fn out_of_range_names_the_last_index_and_the_numbering() {
        let e = Error::IndexOutOfRange {
            input: "rows".into(),
            index: 1500,
            len: 1500,
        }
        .to_string();
        assert!(
            e.contains("valid indices are 0 to 1499, counting from 0") && !e.contains("0..1500"),
            "{e}"
        );
        assert_eq!(index_span(0), "it has no rows");
    }
}
