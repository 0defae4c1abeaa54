//! Row selection by a split column: the rows whose entry in a side file equals a value.
//!
//! The CLI's `FILE==VALUE` row argument and the widget's "split column" row choice select the same rows with
//! this one rule, so a report's command line reproduces the page's selection.

use super::DataError;
use super::load::{DEFAULT_MAX_BYTES, LoadOptions, load};
use super::source::ByteSource;

/// The positions (0-based, ascending) of the rows of the split column `src` whose entry equals `value`.
///
/// The file is read as, in this order:
/// 1. a table with a column named `split`, a text label column (an Embedding-Projector TSV) or a label/ID column
///    named so in its header (`label`, `class`, `id`, …: see [`crate::data::text`]): rows whose entry in it, trimmed,
///    equals `value` trimmed (the `split` column first, then the row labels);
/// 2. a single numeric column (or a single row), in any format Lethe reads: rows whose number equals `value`
///    parsed as a number (`1` selects 1.0);
/// 3. plain UTF-8 text, one label per line and no header: lines that, trimmed, equal `value` trimmed.
///
/// A table of several numeric columns and no label column is refused. An empty result is not an error here:
/// callers say that no row matched.
///
/// # Errors
/// [`DataError::BadSplitColumn`] when the file is numeric but `value` is not a number, has several columns and
/// no labels, is larger than [`DEFAULT_MAX_BYTES`] as text, or is neither a table nor UTF-8 text;
/// [`DataError::NotBuilt`] when this build lacks the file's reader; [`DataError::Io`] if reading fails.
///
/// # Examples
/// ```
/// use lethe::data::split_rows;
/// let labels: &[u8] = b"test\nforget\nforget\ntest\n";
/// assert_eq!(split_rows("split.txt", &labels, "forget").unwrap(), vec![1, 2]);
/// let ids: &[u8] = b"0\n1\n1\n0\n";
/// assert_eq!(split_rows("ids.csv", &ids, "1").unwrap(), vec![1, 2]);
/// ```
pub fn split_rows(input: &str, src: &dyn ByteSource, value: &str) -> Result<Vec<usize>, DataError> {
    split_column(input, src, value).map(|s| s.rows)
}

/// The rows a split column selects and how many entries it has: one per row of the data it labels, so a caller
/// can refuse a split column of another length (every row would be misaligned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitColumn {
    /// As [`split_rows`].
    pub rows: Vec<usize>,
    /// The column's entries: table rows, numbers or lines of text.
    pub entries: usize,
}

/// [`split_rows`] with the column's length.
///
/// # Errors
/// As [`split_rows`].
pub fn split_column(input: &str, src: &dyn ByteSource, value: &str) -> Result<SplitColumn, DataError> {
    let want = value.trim();
    let bad = |detail: String| DataError::BadSplitColumn {
        input: input.to_string(),
        detail,
    };
    match load::<f64>(input, src, &LoadOptions::default()) {
        Err(e @ DataError::NotBuilt { .. }) => return Err(e),
        Err(_) => {}
        Ok(l) => {
            // A column named `split` first, then the row labels (a text label column, or a label/ID column left out
            // of the features by name).
            let split = l
                .text_columns
                .iter()
                .find(|c| c.name.trim().eq_ignore_ascii_case("split"));
            if let Some(c) = split {
                return Ok(matching(c.values.iter().map(String::as_str), want));
            }
            if let Some(labels) = l.labels {
                return Ok(matching(labels.iter().map(String::as_str), want));
            }
            let m = l.matrix;
            if m.cols() == 1 || m.rows() == 1 {
                let v: f64 = want.parse().map_err(|_| {
                    bad(format!(
                        "it holds numbers; give a number to select rows by, not `{want}`"
                    ))
                })?;
                return Ok(SplitColumn {
                    rows: m
                        .as_slice()
                        .iter()
                        .enumerate()
                        .filter(|(_, x)| **x == v)
                        .map(|(i, _)| i)
                        .collect(),
                    entries: m.as_slice().len(),
                });
            }
            let names = l
                .column_names
                .as_ref()
                .map(|n| {
                    let shown: Vec<String> = n.iter().take(12).map(|c| format!("`{c}`")).collect();
                    format!(" ({}{})", shown.join(", "), if n.len() > 12 { ", …" } else { "" })
                })
                .unwrap_or_default();
            return Err(bad(format!(
                "it has {} numeric columns{names} and none of them is a label column; a split column is a single \
                 column of values, a table with a text label column first or last, or a table whose header names \
                 one column split, label, class, target, fold or id holding text or whole numbers (a column so named \
                 that holds other numbers is read as a feature); save the split as one value per line",
                m.cols()
            )));
        }
    }
    let len = src.len();
    let n = usize::try_from(len)
        .ok()
        .filter(|_| len <= DEFAULT_MAX_BYTES)
        .ok_or_else(|| {
            bad(format!(
                "as text of labels it is {len} bytes, more than the limit of {DEFAULT_MAX_BYTES}; save the labels \
             as one short value per line"
            ))
        })?;
    let mut bytes = vec![0u8; n];
    src.read_at(0, &mut bytes)
        .map_err(|e| DataError::io(input, "reading the split column", &e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| bad("it is neither a table, a numeric column nor UTF-8 text of labels (one per line)".into()))?;
    Ok(matching(text.lines(), want))
}

fn matching<'a>(entries: impl Iterator<Item = &'a str>, want: &str) -> SplitColumn {
    let mut n = 0;
    let rows = entries
        .inspect(|_| n += 1)
        .enumerate()
        .filter(|(_, s)| s.trim() == want)
        .map(|(i, _)| i)
        .collect();
    SplitColumn { rows, entries: n }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(name: &str, bytes: &[u8], value: &str) -> Result<Vec<usize>, DataError> {
        split_rows(name, &bytes, value)
    }

    /// The column's length is every entry, selected or not, whichever way the file is read.
    #[test]
    fn counts_the_entries() {
        let n = |name: &str, bytes: &[u8], value: &str| split_column(name, &bytes, value).unwrap().entries;
        assert_eq!(n("s.txt", b"test\nforget\nforget\ntest\n", "forget"), 4);
        assert_eq!(n("i.csv", b"0\n1\n1\n", "1"), 3);
        assert_eq!(n("l.tsv", b"1\tforget\n2\tretain\n", "x"), 2);
        assert_eq!(n("h.csv", b"a,split\n1,forget\n2,test\n3,test\n4,test\n", "test"), 4);
    }

    #[test]
    fn selects_by_label_column_number_or_line() {
        assert_eq!(
            rows("l.tsv", b"1\tforget\n2\tretain\n3\tforget\n", "forget").unwrap(),
            vec![0, 2]
        );
        assert_eq!(
            rows("l.tsv", b"1\tforget\n2\tretain\n3\tforget\n", " retain ").unwrap(),
            vec![1]
        );
        assert_eq!(
            rows("s.txt", b"test\nforget\nforget\ntest\n", "test").unwrap(),
            vec![0, 3]
        );
        assert_eq!(rows("s.txt", b"test\r\nforget\r\n", "forget").unwrap(), vec![1]);
        assert_eq!(rows("i.csv", b"0\n1\n1\n0\n", "1").unwrap(), vec![1, 2]);
        assert_eq!(rows("i.csv", b"0\n1\n1\n0\n", "1.0").unwrap(), vec![1, 2]);
        assert_eq!(rows("i.json", b"[2, 0, 2]", "2").unwrap(), vec![0, 2]);
        assert!(rows("s.txt", b"test\nforget\n", "nothing").unwrap().is_empty());
    }

    /// A table with a header naming its label or split column: the column that issue 11 found refused ("no label
    /// column" beside a column named `label`).
    #[test]
    fn named_label_and_split_columns_select_rows() {
        let t = b"id,f0,f1,label\n0,0.5,1.5,1\n1,2.5,3.5,0\n2,4.5,5.5,1\n";
        assert_eq!(rows("t.csv", t, "1").unwrap(), vec![0, 2]);
        let t = b"name,f0,split\na,0.5,forget\nb,2.5,retain\nc,1.0,forget\n";
        assert_eq!(rows("t.csv", t, "forget").unwrap(), vec![0, 2]);
    }

    #[test]
    fn unusable_split_columns_say_why() {
        let e = rows("i.csv", b"0\n1\n", "forget").unwrap_err();
        assert!(matches!(e, DataError::BadSplitColumn { .. }), "{e}");
        assert!(e.to_string().contains("give a number"), "{e}");
        let e = rows("t.csv", b"1,2\n3,4\n", "1").unwrap_err();
        assert!(
            e.to_string()
                .contains("2 numeric columns and none of them is a label column"),
            "{e}"
        );
        let e = rows("t.csv", b"a,label\n1,0.5\n3,1.5\n", "1").unwrap_err();
        assert!(
            e.to_string().contains("(`a`, `label`)") && e.to_string().contains("other numbers"),
            "{e}"
        );
        let e = rows("b.bin", b"\xff\xfe\x00\x01", "x").unwrap_err();
        assert!(e.to_string().contains("neither a table"), "{e}");
    }
}
