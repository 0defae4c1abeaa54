//! Row subsets as a request states them: typed text parsed with the `@ROWS` grammar of [`crate::spec`], an index
//! file or a split column given as a source, so the same text selects the same rows in every front end.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::spec::RowSpec;

/// Which rows of an input to use.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rows {
    /// Every row.
    #[default]
    All,
    /// `a..b` (half-open) or a comma list `3,1,4`, as the CLI's `@ROWS`; blank means every row.
    Text { text: String },
    /// An index file (one index per line, or comma/space separated; .npy integer arrays too), as the CLI's
    /// `@index_file`.
    File { source: u32 },
    /// The rows whose entry in a split column equals `value`: the source's text label column, a 1-D numeric file,
    /// or a text file of one label per line (no header).
    Split { source: u32, value: String },
}

/// [`Rows`] as a request writes it (`{"kind": "text", "text": "0..10"}`), read through a plain struct: serde's
/// derive for an internally tagged enum buffers the value in its generic content tree, whose code is about 7 KB
/// gzipped of the lean wasm module. The same forms are read, with serde's own errors.
#[derive(Deserialize)]
#[serde(rename = "Rows")]
struct RowsForm {
    kind: String,
    text: Option<String>,
    source: Option<u32>,
    value: Option<String>,
}

impl<'de> Deserialize<'de> for Rows {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let f = RowsForm::deserialize(d)?;
        fn need<T, E: serde::de::Error>(v: Option<T>, field: &'static str) -> std::result::Result<T, E> {
            v.ok_or_else(|| E::missing_field(field))
        }
        match f.kind.as_str() {
            "all" => Ok(Rows::All),
            "text" => Ok(Rows::Text {
                text: need(f.text, "text")?,
            }),
            "file" => Ok(Rows::File {
                source: need(f.source, "source")?,
            }),
            "split" => Ok(Rows::Split {
                source: need(f.source, "source")?,
                value: need(f.value, "value")?,
            }),
            other => Err(D::Error::unknown_variant(other, &["all", "text", "file", "split"])),
        }
    }
}

/// A parsed `Rows::Text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextRows {
    All,
    Range(usize, usize),
    List(Vec<usize>),
}

/// Parses typed rows with the CLI's `@ROWS` grammar ([`crate::spec::parse_rows`]): `a..b` (half-open; `a > b` is
/// an error) or a comma list of indices; blank or `all` is every row. Anything else (the CLI would read it as an
/// index-file path) is an error here: index files and split columns are picked, not typed.
///
/// # Errors
/// A message for `role` saying which forms are accepted.
pub fn parse_text(role: &str, text: &str) -> Result<TextRows> {
    let s = text.trim();
    if s.is_empty() || s.eq_ignore_ascii_case("all") {
        return Ok(TextRows::All);
    }
    match crate::spec::parse_rows(s, &|_| false) {
        Ok(RowSpec::Range(a, b)) => Ok(TextRows::Range(a, b)),
        Ok(RowSpec::List(v)) => Ok(TextRows::List(v)),
        Ok(RowSpec::File(_) | RowSpec::Split { .. }) => Err(bad_rows(role, s)),
        Err(e) if e.starts_with("empty row range") || e.starts_with("row index") => Err(Error::at(role, e)),
        Err(_) => Err(bad_rows(role, s)),
    }
}

fn bad_rows(role: &str, s: &str) -> Error {
    Error::at(
        role,
        format!(
            "rows `{s}` are not understood: write a..b (rows a to b−1, e.g. 0..100), a comma list such as 3,1,4, \
             or choose an index file or a split column"
        ),
    )
}

/// Row indices from the numbers of an index file, checked as the CLI checks them (`load_rows`).
///
/// # Errors
/// An entry that is not a non-negative integer.
pub fn indices_from_values(role: &str, file: &str, values: &[f64]) -> Result<Vec<usize>> {
    values
        .iter()
        .enumerate()
        .map(|(k, &v)| {
            if v >= 0.0 && v.fract() == 0.0 && v < 9.0e15 {
                // Checked above: a non-negative integer below 2^53 converts exactly.
                Ok(v as usize)
            } else {
                Err(Error::at(
                    role,
                    format!("row index file {file}: entry {k} is {v}, not a non-negative integer row index"),
                ))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_cli_forms() {
        assert_eq!(parse_text("t", " 0..100 ").unwrap(), TextRows::Range(0, 100));
        assert_eq!(parse_text("t", "3, 1,4").unwrap(), TextRows::List(vec![3, 1, 4]));
        assert_eq!(parse_text("t", "").unwrap(), TextRows::All);
        assert_eq!(parse_text("t", "5..5").unwrap(), TextRows::Range(5, 5));
        let e = parse_text("target", "5..2").unwrap_err();
        assert_eq!(e.input.as_deref(), Some("target"));
        assert!(e.message.contains("empty row range"));
        assert!(
            parse_text("t", "forget.txt")
                .unwrap_err()
                .message
                .contains("index file")
        );
        assert!(parse_text("t", "1,,2").is_err());
        assert!(parse_text("t", "-1..3").is_err());
    }

    #[test]
    fn index_values_must_be_non_negative_integers() {
        assert_eq!(indices_from_values("f", "i.txt", &[0.0, 7.0]).unwrap(), vec![0, 7]);
        let e = indices_from_values("forget", "i.txt", &[1.0, 2.5]).unwrap_err();
        assert!(e.message.contains("entry 1 is 2.5"), "{}", e.message);
        assert!(indices_from_values("f", "i.txt", &[-1.0]).is_err());
        assert!(indices_from_values("f", "i.txt", &[f64::NAN]).is_err());
    }
}
