//! Rows of a matrix read by column panels.
//!
//! A kernel matrix needs every column of its rows but only a few columns at a time: the Gram matrix `X Xᵀ` is a
//! sum over column panels. [`Columns`] is that access pattern — the rows are fixed, the columns come in panels —
//! so that kernels are built with memory for one panel and the `n × n` result, never for the whole `n × d` input:
//! a 2000 × 65536 f32 input (512 MB) needs its 2000² kernel and a few MB of panel. [`RowsOf`] reads rows of an
//! in-memory matrix this way (no gathered copy of a subset); [`crate::data::ArrayFile`] reads them from a file.

use super::{ArrayFile, FileRows, MatrixRef, Scalar};
use crate::error::{Error, Result};

/// A fixed set of rows of a matrix, read by column panels.
pub trait Columns<S: Scalar> {
    /// What to call the input in messages.
    fn name(&self) -> &str;
    /// Number of rows.
    fn rows(&self) -> usize;
    /// Number of columns.
    fn cols(&self) -> usize;
    /// Replaces the contents of `out` with columns `start..start + width` of every row (row-major,
    /// `rows() × width`). Sources that cannot be checked before they are read (files) fail with
    /// [`Error::NonFinite`] on a NaN or ±inf, naming where it is; in-memory rows are checked up front by their
    /// callers (see [`RowsOf`]).
    ///
    /// # Errors
    /// Read errors of the source; non-finite values of sources checked as they are read.
    fn read(&mut self, start: usize, width: usize, out: &mut Vec<S>) -> Result<()>;
}

/// Rows of an in-memory matrix: all of them in order, or the listed ones (indices checked when built). Values are
/// not checked as they are read: callers validate in-memory inputs before any work ([`crate::check::matrix`]).
#[derive(Clone, Copy, Debug)]
pub struct RowsOf<'a, S> {
    name: &'a str,
    source: MatrixRef<'a, S>,
    rows: Option<&'a [usize]>,
}

impl<'a, S: Scalar> RowsOf<'a, S> {
    /// Every row of `source`.
    pub fn all(name: &'a str, source: MatrixRef<'a, S>) -> Self {
        Self {
            name,
            source,
            rows: None,
        }
    }

    /// Rows `rows` of `source`, in this order (repeats allowed).
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] naming `name` for an index past the last row.
    pub fn listed(name: &'a str, source: MatrixRef<'a, S>, rows: &'a [usize]) -> Result<Self> {
        if let Some(&bad) = rows.iter().find(|&&r| r >= source.rows()) {
            return Err(Error::IndexOutOfRange {
                input: name.to_string(),
                index: bad,
                len: source.rows(),
            });
        }
        Ok(Self {
            name,
            source,
            rows: Some(rows),
        })
    }

    /// Row `k` of the selection.
    fn row(&self, k: usize) -> &'a [S] {
        self.source.row(self.rows.map_or(k, |r| r[k]))
    }
}

impl<S: Scalar> Columns<S> for RowsOf<'_, S> {
    fn name(&self) -> &str {
        self.name
    }
    fn rows(&self) -> usize {
        self.rows.map_or(self.source.rows(), <[usize]>::len)
    }
    fn cols(&self) -> usize {
        self.source.cols()
    }
    fn read(&mut self, start: usize, width: usize, out: &mut Vec<S>) -> Result<()> {
        out.clear();
        for k in 0..self.rows() {
            out.extend_from_slice(&self.row(k)[start..start + width]);
        }
        Ok(())
    }
}

/// Where rows come from: an in-memory matrix, or an array read in place from its file ([`ArrayFile`]).
#[derive(Clone, Copy, Debug)]
pub enum Source<'a, S> {
    Memory(MatrixRef<'a, S>),
    File(&'a ArrayFile<'a>),
}

impl<'a, S> From<MatrixRef<'a, S>> for Source<'a, S> {
    fn from(m: MatrixRef<'a, S>) -> Self {
        Source::Memory(m)
    }
}

impl<'a, S> From<&'a ArrayFile<'a>> for Source<'a, S> {
    fn from(f: &'a ArrayFile<'a>) -> Self {
        Source::File(f)
    }
}

impl<'a, S: Scalar> Source<'a, S> {
    pub fn rows(&self) -> usize {
        match self {
            Source::Memory(m) => m.rows(),
            Source::File(f) => f.rows(),
        }
    }

    pub fn cols(&self) -> usize {
        match self {
            Source::Memory(m) => m.cols(),
            Source::File(f) => f.cols(),
        }
    }

    /// Rows `rows` of the source (every row when `None`), read by column panels, called `name` in messages.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for an index past the last row.
    pub fn columns<'b>(&self, name: &'b str, rows: Option<&'b [usize]>) -> Result<Box<dyn Columns<S> + 'b>>
    where
        'a: 'b,
    {
        Ok(match (*self, rows) {
            (Source::Memory(m), None) => Box::new(RowsOf::all(name, m)),
            (Source::Memory(m), Some(r)) => Box::new(RowsOf::listed(name, m, r)?),
            (Source::File(f), r) => Box::new(FileRows::new(name, f, r)?),
        })
    }
}

/// Fails with [`Error::NonFinite`] at the first NaN or ±inf of a row-major panel of `width` columns; `locate`
/// says where row `k`, panel column `c` is.
pub(crate) fn finite_panel<S: Scalar>(
    panel: &[S],
    width: usize,
    locate: impl Fn(usize, usize) -> String,
    name: &str,
) -> Result<()> {
    // A branch-free pass (it vectorises; a search for the first bad value does not), then the search.
    if panel.iter().fold(true, |ok, v| ok & v.to_f64().is_finite()) {
        return Ok(());
    }
    let i = panel.iter().position(|v| !v.to_f64().is_finite()).unwrap_or(0);
    Err(Error::NonFinite {
        input: name.to_string(),
        value: panel[i].to_f64(),
        location: locate(i / width.max(1), i % width.max(1)),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use super::*;
    use crate::Matrix;

    #[test]
    fn panels_of_listed_rows() {
        let m = Matrix::from_rows(&[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]]).unwrap();
        let mut out = Vec::new();
        RowsOf::all("m", m.view()).read(1, 2, &mut out).unwrap();
        assert_eq!(out, [1.0, 2.0, 4.0, 5.0, 7.0, 8.0]);
        let rows = [1, 0, 1];
        RowsOf::listed("m", m.view(), &rows)
            .unwrap()
            .read(2, 1, &mut out)
            .unwrap();
        assert_eq!(out, [5.0, 2.0, 5.0]);
        assert!(RowsOf::listed("m", m.view(), &[3]).is_err());
    }

    #[test]
    fn non_finite_panels_say_where() {
        let panel = [0.0, 1.0, 2.0, f64::INFINITY];
        let e = finite_panel(&panel, 2, |k, c| format!("row {k}, column {}", 10 + c), "f").unwrap_err();
        assert!(e.to_string().contains("row 1, column 11"), "{e}");
        assert!(finite_panel(&panel[..3], 2, |_, _| String::new(), "f").is_ok());
    }
}
