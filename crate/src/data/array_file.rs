//! Arrays read in place: the values of some rows, a panel of columns at a time, straight from the file.
//!
//! For inputs too large to load — a 2000 × 65536 f32 array is 512 MB, more than a browser tab should hold twice —
//! [`ArrayFile`] reads only the header up front and then, for kernels built panel by panel ([`Columns`]), the
//! bytes of one panel of the rows asked for. Works where the data is stored uncompressed at a known offset: .npy,
//! .safetensors and stored (not deflated) .npz members, in C or Fortran order. Text, JSON and deflated members
//! must be loaded ([`crate::data::load()`]).

use super::array::{self, Located};
use super::columns::{Columns, finite_panel};
use super::dtype::DType;
use super::load::{ArrayInfo, Format, detect};
use super::source::ByteSource;
use super::{DataError, Scalar, npy};
use crate::error::{Error, Result};

/// An array of a file, read by rows and column panels on demand; see the module docs.
pub struct ArrayFile<'s> {
    label: String,
    src: &'s (dyn ByteSource + Sync),
    /// Offset of the first data byte.
    offset: u64,
    dt: DType,
    rows: usize,
    cols: usize,
    /// Fortran order: the stored column holding each C-order column (`None` for C order).
    stored_col: Option<Vec<usize>>,
    format: Format,
    info: ArrayInfo,
}

impl std::fmt::Debug for ArrayFile<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrayFile")
            .field("label", &self.label)
            .field("rows", &self.rows)
            .field("cols", &self.cols)
            .field("dtype", &self.info.dtype)
            .finish_non_exhaustive()
    }
}

impl<'s> ArrayFile<'s> {
    /// Opens array `name` of a file (the .npz member or safetensors tensor; implied when there is one) to be read
    /// in place. `Ok(None)` when the file keeps its data where it cannot be read in place (CSV/TSV, JSON, a
    /// deflated .npz member, a reader this build lacks): load those instead.
    ///
    /// Only the headers are read, but for a stored .npz member, which is read once, whole, to check its CRC-32 (a
    /// corrupt member gives no number): one sequential read of the member, measured at 0.26 s and 3 MB of memory
    /// for a 1 GiB member in the page cache (the disk's read time otherwise); .npy and .safetensors have no
    /// checksum. Opening the same array again from the same unchanged source can skip that read:
    /// [`ArrayFile::reopen`].
    ///
    /// # Errors
    /// What loading would report about the headers: unknown format, corrupt or truncated file, unsupported dtype,
    /// a shape that is no matrix, an ambiguous or missing array name; a stored .npz member whose CRC-32 does not
    /// match its bytes.
    pub fn open(input: &str, src: &'s (dyn ByteSource + Sync), name: Option<&str>) -> Result<Option<Self>> {
        let file = Self::reopen(input, src, name)?;
        #[cfg(feature = "npz")]
        if file.as_ref().is_some_and(|f| f.format == Format::Npz) {
            super::npz::verify(input, src, name)?;
        }
        Ok(file)
    }

    /// [`ArrayFile::open`] from the headers alone, without the CRC-32 check of a stored .npz member: for an array
    /// that `open` has already checked in this same source (an analysis opens an input read in place once per
    /// step; the check is needed once).
    ///
    /// # Errors
    /// As [`ArrayFile::open`], but for a CRC-32 mismatch.
    #[cfg_attr(not(any(feature = "npz", feature = "safetensors")), allow(unused_variables))]
    pub fn reopen(input: &str, src: &'s (dyn ByteSource + Sync), name: Option<&str>) -> Result<Option<Self>> {
        let format = detect(input, src)?;
        let located: Located = match format {
            Format::Npy => npy::locate(input, src)?,
            #[cfg(feature = "safetensors")]
            Format::Safetensors => super::safetensors::locate(input, src, name)?,
            #[cfg(feature = "npz")]
            Format::Npz => super::npz::locate(input, src, name)?,
            _ => return Ok(None),
        };
        let Some(offset) = located.offset else {
            return Ok(None);
        };
        let layout = &located.layout;
        let label = located.label;
        let (rows, cols) = layout.matrix_shape().map_err(|why| DataError::BadShape {
            input: label.clone(),
            shape: layout.shape.clone(),
            expected: why,
        })?;
        let too_large = || DataError::TooLarge {
            input: label.clone(),
            needed: layout.data_bytes().unwrap_or(u64::MAX),
            limit: usize::MAX as u64,
            hint: " (more than this platform can address)".into(),
        };
        let rows = usize::try_from(rows).map_err(|_| too_large())?;
        let cols = usize::try_from(cols).map_err(|_| too_large())?;
        let stored_col = layout.fortran.then(|| {
            let trailing: Vec<usize> = layout.shape.iter().skip(1).map(|&d| d as usize).collect();
            let map = array::fortran_columns(&trailing, cols);
            let mut inv = vec![0; cols];
            for (s, &c) in map.iter().enumerate() {
                inv[c] = s;
            }
            inv
        });
        Ok(Some(Self {
            label,
            src,
            offset,
            dt: layout.dtype,
            rows,
            cols,
            stored_col,
            format,
            info: located.info,
        }))
    }

    /// Rows of the matrix the array reads as.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of the matrix the array reads as.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The file's name for messages (`file.npz:member.npy` for a member).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The container format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The array, as [`crate::data::inspect`] describes it.
    pub fn info(&self) -> &ArrayInfo {
        &self.info
    }

    /// Replaces `out` with columns `start..start + width` of rows `rows` (row-major `rows.len() × width`), read
    /// from the file. Indices must be below [`ArrayFile::rows`] and the columns inside [`ArrayFile::cols`]
    /// ([`FileRows`] checks them).
    ///
    /// # Errors
    /// Read errors (a file that changed or shrank reads as truncated), NaN or ±inf in the panel (named by row and
    /// column).
    pub fn read_panel<T: Scalar>(&self, rows: &[usize], start: usize, width: usize, out: &mut Vec<T>) -> Result<()> {
        let size = self.dt.size as u64;
        out.clear();
        out.resize(rows.len() * width, T::default());
        let mut buf = Vec::new();
        let read = |at: u64, dst: &mut [T], buf: &mut Vec<u8>| {
            array::read_elems_at(&self.label, self.src, at, self.dt, dst, buf).map_err(Error::from)
        };
        match &self.stored_col {
            None => {
                let row_bytes = self.cols as u64 * size;
                for (k, &r) in rows.iter().enumerate() {
                    let at = self.offset + r as u64 * row_bytes + start as u64 * size;
                    read(at, &mut out[k * width..(k + 1) * width], &mut buf)?;
                }
            }
            Some(stored) => {
                // A stored column holds every row: read it whole once per panel column, then pick the rows.
                let mut column = vec![T::default(); self.rows];
                for c in 0..width {
                    let at = self.offset + (stored[start + c] * self.rows) as u64 * size;
                    read(at, &mut column, &mut buf)?;
                    for (k, &r) in rows.iter().enumerate() {
                        out[k * width + c] = column[r];
                    }
                }
            }
        }
        let where_ = |k: usize, c: usize| {
            format!(
                "row {} of `{}`, column {} (both counting from 0)",
                rows[k],
                self.label,
                start + c
            )
        };
        finite_panel(out, width, where_, &self.label)
    }
}

/// Rows of an [`ArrayFile`] as [`Columns`]: all of them, or the listed ones.
pub struct FileRows<'a> {
    name: &'a str,
    file: &'a ArrayFile<'a>,
    rows: std::borrow::Cow<'a, [usize]>,
}

impl<'a> FileRows<'a> {
    /// Rows `rows` of `file` (every row when `None`), called `name` in messages.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for an index past the file's last row.
    pub fn new(name: &'a str, file: &'a ArrayFile<'a>, rows: Option<&'a [usize]>) -> Result<Self> {
        let rows = match rows {
            Some(r) => {
                if let Some(&bad) = r.iter().find(|&&i| i >= file.rows()) {
                    return Err(Error::IndexOutOfRange {
                        input: name.to_string(),
                        index: bad,
                        len: file.rows(),
                    });
                }
                std::borrow::Cow::Borrowed(r)
            }
            None => std::borrow::Cow::Owned((0..file.rows()).collect()),
        };
        Ok(Self { name, file, rows })
    }
}

impl<S: Scalar> Columns<S> for FileRows<'_> {
    fn name(&self) -> &str {
        self.name
    }
    fn rows(&self) -> usize {
        self.rows.len()
    }
    fn cols(&self) -> usize {
        self.file.cols()
    }
    fn read(&mut self, start: usize, width: usize, out: &mut Vec<S>) -> Result<()> {
        if start.checked_add(width).is_none_or(|end| end > self.file.cols()) {
            return Err(Error::IndexOutOfRange {
                input: self.name.to_string(),
                index: start.saturating_add(width),
                len: self.file.cols(),
            });
        }
        self.file.read_panel(&self.rows, start, width, out)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use super::*;
    use crate::data::{LoadOptions, load_bytes};

    /// A .npy file of `shape` f32 values 0, 1, 2, … in C or Fortran order.
    fn npy(shape: &[usize], fortran: bool) -> Vec<u8> {
        let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
        let mut header = format!(
            "{{'descr': '<f4', 'fortran_order': {}, 'shape': ({},), }}",
            if fortran { "True" } else { "False" },
            dims.join(", ")
        );
        header.push_str(&" ".repeat(63 - (10 + header.len()) % 64));
        header.push('\n');
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend_from_slice(&(header.len() as u16).to_le_bytes());
        f.extend_from_slice(header.as_bytes());
        let count: usize = shape.iter().product();
        for v in 0..count {
            f.extend_from_slice(&(v as f32).to_le_bytes());
        }
        f
    }

    /// Panels read in place equal the same rows and columns of the loaded matrix, in both orders and ranks.
    #[test]
    fn panels_equal_the_loaded_matrix() {
        for (shape, fortran) in [
            (&[7, 5][..], false),
            (&[7, 5][..], true),
            (&[6, 2, 3][..], true),
            (&[4][..], false),
        ] {
            let bytes = npy(shape, fortran);
            let m = load_bytes::<f64>("a.npy", &bytes, &LoadOptions::default())
                .unwrap()
                .matrix;
            let file = ArrayFile::open("a.npy", &bytes, None).unwrap().unwrap();
            assert_eq!((file.rows(), file.cols()), (m.rows(), m.cols()));
            let rows = [3, 0, 3, m.rows() - 1];
            let mut cols = FileRows::new("a", &file, Some(&rows)).unwrap();
            let mut out: Vec<f64> = Vec::new();
            for start in 0..m.cols() {
                for width in 1..=m.cols() - start {
                    cols.read(start, width, &mut out).unwrap();
                    let want: Vec<f64> = rows
                        .iter()
                        .flat_map(|&r| m.row(r)[start..start + width].to_vec())
                        .collect();
                    assert_eq!(out, want, "{shape:?} fortran={fortran} start={start} width={width}");
                }
            }
            assert!(Columns::<f64>::read(&mut cols, 1, m.cols(), &mut out).is_err());
            assert!(FileRows::new("a", &file, Some(&[m.rows()])).is_err());
        }
    }

    /// Issue 24 item 8: a NaN in an .npy at row 2, column 1 is named with the numbering it is counted in.
    #[test]
    fn non_finite_values_say_they_count_from_0() {
        let mut bytes = npy(&[3, 2], false);
        let at = bytes.len() - 4; // row 2, column 1 (f32)
        bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        let file = ArrayFile::open("a.npy", &bytes, None).unwrap().unwrap();
        let mut out: Vec<f32> = Vec::new();
        let e = file.read_panel(&[0, 2], 0, 2, &mut out).unwrap_err().to_string();
        assert!(e.contains("row 2 of `a.npy`, column 1 (both counting from 0)"), "{e}");
    }

    #[test]
    fn non_finite_values_and_truncation_are_errors() {
        let mut bytes = npy(&[3, 2], false);
        let at = bytes.len() - 8; // row 2, column 0
        bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        let file = ArrayFile::open("a.npy", &bytes, None).unwrap().unwrap();
        let mut out: Vec<f32> = Vec::new();
        file.read_panel(&[0, 1], 0, 2, &mut out).unwrap();
        let e = file.read_panel(&[0, 2], 0, 2, &mut out).unwrap_err().to_string();
        assert!(e.contains("row 2 of `a.npy`, column 0"), "{e}");
        let cut = &bytes[..bytes.len() - 4];
        assert!(
            ArrayFile::open("a.npy", &cut, None)
                .unwrap_err()
                .to_string()
                .contains("truncated")
        );
        let csv: &[u8] = b"1,2\n3,4\n";
        assert!(ArrayFile::open("a.csv", &csv, None).unwrap().is_none());
    }
}
