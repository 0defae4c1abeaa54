//! Dense row-major matrices: one row per example, one column per feature.

use crate::error::{Error, Result};

/// Element types a [`Matrix`] can hold. Loaders convert every stored dtype into one of these.
pub trait Scalar: Copy + Default + PartialOrd + std::fmt::Debug + Send + Sync + 'static {
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Scalar for f64 {
    #[inline]
    fn from_f64(v: f64) -> Self {
        v
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self
    }
}

impl Scalar for f32 {
    #[inline]
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    #[inline]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

/// An owned, row-major `rows × cols` matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix<T = f64> {
    rows: usize,
    cols: usize,
    data: Vec<T>,
}

/// A borrowed, row-major `rows × cols` matrix (e.g. a contiguous block of rows of a [`Matrix`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatrixRef<'a, T = f64> {
    rows: usize,
    cols: usize,
    data: &'a [T],
}

fn check_len(rows: usize, cols: usize, len: usize) -> Result<()> {
    match rows.checked_mul(cols) {
        Some(n) if n == len => Ok(()),
        _ => Err(Error::ShapeMismatch {
            message: format!(
                "a {rows}×{cols} matrix needs {} values, got {len}",
                rows.saturating_mul(cols)
            ),
        }),
    }
}

impl<T: Scalar> Matrix<T> {
    /// Wraps row-major `data` as a `rows × cols` matrix.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `data.len() != rows * cols`.
    pub fn from_vec(rows: usize, cols: usize, data: Vec<T>) -> Result<Self> {
        check_len(rows, cols, data.len())?;
        Ok(Self { rows, cols, data })
    }

    /// Builds a matrix from equal-length rows.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the rows differ in length.
    pub fn from_rows<R: AsRef<[T]>>(rows: &[R]) -> Result<Self> {
        let cols = rows.first().map_or(0, |r| r.as_ref().len());
        let mut data = Vec::with_capacity(rows.len() * cols);
        for (i, r) in rows.iter().enumerate() {
            let r = r.as_ref();
            if r.len() != cols {
                return Err(Error::ShapeMismatch {
                    message: format!(
                        "row {i} has {} values but row 0 has {cols} (rows counting from 0)",
                        r.len()
                    ),
                });
            }
            data.extend_from_slice(r);
        }
        Ok(Self {
            rows: rows.len(),
            cols,
            data,
        })
    }

    /// A `rows × cols` matrix of zeros.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Self {
            rows,
            cols,
            data: vec![T::default(); rows * cols],
        }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }
    pub fn cols(&self) -> usize {
        self.cols
    }
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }
    pub fn row(&self, i: usize) -> &[T] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }
    pub fn view(&self) -> MatrixRef<'_, T> {
        MatrixRef {
            rows: self.rows,
            cols: self.cols,
            data: &self.data,
        }
    }

    /// The contiguous block of rows `start..end`, without copying.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] when `end > rows` or `start > end`.
    pub fn row_block(&self, start: usize, end: usize) -> Result<MatrixRef<'_, T>> {
        self.view().row_block(start, end)
    }

    /// A new matrix holding the listed rows, in the listed order (repeats allowed).
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] naming `input` when an index is past the last row.
    pub fn select_rows(&self, indices: &[usize], input: &str) -> Result<Self> {
        self.view().select_rows(indices, input)
    }

    /// Converts every element to another scalar type.
    pub fn cast<U: Scalar>(&self) -> Matrix<U> {
        Matrix {
            rows: self.rows,
            cols: self.cols,
            data: self.data.iter().map(|v| U::from_f64(v.to_f64())).collect(),
        }
    }
}

impl<'a, T: Scalar> MatrixRef<'a, T> {
    /// Views row-major `data` as a `rows × cols` matrix.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `data.len() != rows * cols`.
    pub fn new(rows: usize, cols: usize, data: &'a [T]) -> Result<Self> {
        check_len(rows, cols, data.len())?;
        Ok(Self { rows, cols, data })
    }
    pub fn rows(&self) -> usize {
        self.rows
    }
    pub fn cols(&self) -> usize {
        self.cols
    }
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }
    pub fn to_owned(&self) -> Matrix<T> {
        Matrix {
            rows: self.rows,
            cols: self.cols,
            data: self.data.to_vec(),
        }
    }

    /// See [`Matrix::row_block`].
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] when `end > rows` or `start > end`.
    pub fn row_block(&self, start: usize, end: usize) -> Result<MatrixRef<'a, T>> {
        if end > self.rows || start > end {
            return Err(Error::IndexOutOfRange {
                input: "row block".into(),
                index: end.max(start),
                len: self.rows,
            });
        }
        Ok(MatrixRef {
            rows: end - start,
            cols: self.cols,
            data: &self.data[start * self.cols..end * self.cols],
        })
    }

    /// See [`Matrix::select_rows`].
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] naming `input` when an index is past the last row.
    pub fn select_rows(&self, indices: &[usize], input: &str) -> Result<Matrix<T>> {
        let mut data = Vec::with_capacity(indices.len() * self.cols);
        for &i in indices {
            if i >= self.rows {
                return Err(Error::IndexOutOfRange {
                    input: input.to_string(),
                    index: i,
                    len: self.rows,
                });
            }
            data.extend_from_slice(self.row(i));
        }
        Ok(Matrix {
            rows: indices.len(),
            cols: self.cols,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_is_checked() {
        assert!(Matrix::from_vec(2, 3, vec![0.0; 5]).is_err());
        assert!(Matrix::<f64>::from_rows(&[vec![1.0, 2.0], vec![3.0]]).is_err());
        let m = Matrix::from_rows(&[vec![1.0, 2.0], vec![3.0, 4.0], vec![5.0, 6.0]]).unwrap();
        assert_eq!(m.row(1), &[3.0, 4.0]);
        assert_eq!(m.row_block(1, 3).unwrap().row(1), &[5.0, 6.0]);
        assert!(m.row_block(2, 4).is_err());
        let s = m.select_rows(&[2, 0], "x").unwrap();
        assert_eq!(s.as_slice(), &[5.0, 6.0, 1.0, 2.0]);
        let e = m.select_rows(&[3], "forget").unwrap_err().to_string();
        assert!(e.contains("forget") && e.contains('3'), "{e}");
    }
}
