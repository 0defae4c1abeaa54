//! Reading a dense n-d array's data into a row-major matrix: the part shared by .npy, .npz and .safetensors.
//!
//! An array of shape `(n, d1, …, dk)` loads as an `n × (d1·…·dk)` matrix in C index order (what numpy's
//! `arr.reshape(n, -1)` gives, whatever the memory order); rank 1 loads as `n × 1`. Data is read in chunks of
//! about 1 MiB, never whole, and with a row subset only the rows asked for are decoded:
//!
//! - C order from a random-access source: only the selected rows' bytes are read (consecutive rows together).
//! - A stream (a deflated .npz member), or Fortran order (where a row's values are strided across the whole
//!   file): the data is streamed once; C-order streams stop after the last selected row.

use std::io::{self, Read};

use super::dtype::{self, DType};
use super::source::{ByteSource, SourceReader};
use super::{DataError, Scalar};

/// Bytes decoded per step.
const CHUNK: usize = 1 << 20;

/// Where a stored array's elements are and how to read them.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    pub dtype: DType,
    pub shape: Vec<u64>,
    pub fortran: bool,
}

impl Layout {
    /// Size of the data in bytes; `None` when the shape's product overflows.
    pub(crate) fn data_bytes(&self) -> Option<u64> {
        self.shape
            .iter()
            .try_fold(self.dtype.size as u64, |acc, &d| acc.checked_mul(d))
    }

    /// `(rows, cols)` of the matrix this array loads as, or why it cannot load.
    pub(crate) fn matrix_shape(&self) -> Result<(u64, u64), String> {
        let Some((&n, rest)) = self.shape.split_first() else {
            return Err("a 0-d (scalar) array cannot be a data matrix; save a 1-d or 2-d array".into());
        };
        if self.shape.contains(&0) {
            return Err("it has a zero-size dimension (no values); save a non-empty array".into());
        }
        let cols = rest
            .iter()
            .try_fold(1u64, |acc, &d| acc.checked_mul(d))
            .ok_or_else(|| "the product of its dimensions overflows".to_string())?;
        Ok((n, cols))
    }

    /// Says how the shape was reshaped, when it was (rank ≥ 3).
    pub(crate) fn note(&self) -> Option<String> {
        if self.shape.len() < 3 {
            return None;
        }
        let (rows, cols) = self.matrix_shape().ok()?;
        Some(format!(
            "rank-{} array of shape {:?} read as a {rows} × {cols} matrix: trailing dimensions flattened in C \
             order (numpy `reshape(n, -1)`)",
            self.shape.len(),
            self.shape
        ))
    }
}

/// Where an array is in its file: what [`crate::data::ArrayFile`] reads from.
pub(crate) struct Located {
    /// The input's name for messages (`file.npz:member.npy` for a member).
    pub label: String,
    pub info: super::ArrayInfo,
    pub layout: Layout,
    /// Offset of the first data byte in the file; `None` when the data is compressed (it can only be streamed).
    pub offset: Option<u64>,
}

/// How the data bytes will be reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    Random,
    Stream,
}

/// A checked plan for one load: sizes fit the platform and `max_bytes`, row indices are in range.
pub(crate) struct Plan<'a> {
    dt: DType,
    n: usize,
    cols: usize,
    fortran: bool,
    /// Trailing dimensions (shape without the first), for Fortran-order reordering.
    trailing: Vec<usize>,
    rows: Option<&'a [usize]>,
}

impl Plan<'_> {
    pub(crate) fn out_rows(&self) -> usize {
        self.rows.map_or(self.n, <[usize]>::len)
    }
    pub(crate) fn cols(&self) -> usize {
        self.cols
    }
}

fn too_large(input: &str, needed: u64, limit: u64, what: String) -> DataError {
    DataError::TooLarge {
        input: input.to_string(),
        needed,
        limit,
        hint: format!(" ({what}); load a subset of rows, or use a smaller file"),
    }
}

/// Checks a load of `layout` (rows `rows`, or all) against the platform, the row count and `max_bytes`.
///
/// `max_bytes` bounds the larger of the result's size (`rows × cols × size_of::<T>()`) and the bytes read or
/// decompressed to build it; both are known from the header alone, so nothing is read before this check.
pub(crate) fn plan<'a, T: Scalar>(
    input: &str,
    layout: &Layout,
    rows: Option<&'a [usize]>,
    max_bytes: u64,
    access: Access,
) -> Result<Plan<'a>, DataError> {
    let (n64, cols64) = layout.matrix_shape().map_err(|why| DataError::BadShape {
        input: input.to_string(),
        shape: layout.shape.clone(),
        expected: why,
    })?;
    let item = layout.dtype.size as u64;
    let data_bytes = layout.data_bytes().ok_or_else(|| {
        DataError::corrupt(
            input,
            format!("shape {:?} describes more bytes than fit in 64 bits", layout.shape),
            RESAVE,
        )
    })?;
    let row_bytes = cols64 * item; // ≤ data_bytes, cannot overflow
    if let Some(sel) = rows {
        if sel.is_empty() {
            return Err(DataError::Empty {
                input: input.to_string(),
                detail: "the row subset is empty; pass at least one row index".into(),
            });
        }
        if let Some(&bad) = sel.iter().find(|&&r| r as u64 >= n64) {
            return Err(DataError::RowOutOfRange {
                input: input.to_string(),
                index: bad,
                rows: n64,
            });
        }
    }
    let out_rows = rows.map_or(n64, |s| s.len() as u64);
    let out_bytes = out_rows
        .checked_mul(cols64)
        .and_then(|e| e.checked_mul(std::mem::size_of::<T>() as u64))
        .unwrap_or(u64::MAX);
    let read_bytes = match (rows, access, layout.fortran) {
        (None, _, _) | (_, _, true) => data_bytes,
        (Some(sel), Access::Random, false) => (sel.len() as u64).saturating_mul(row_bytes),
        (Some(sel), Access::Stream, false) => {
            let last = sel.iter().copied().max().unwrap_or(0) as u64;
            (last + 1) * row_bytes
        }
    };
    let needed = out_bytes.max(read_bytes);
    if needed > max_bytes {
        let what = if out_bytes >= read_bytes {
            format!("{out_rows} × {cols64} values of {} bytes", std::mem::size_of::<T>())
        } else {
            format!(
                "{read_bytes} bytes of {} data to read or decompress",
                layout.dtype.name()
            )
        };
        return Err(too_large(input, needed, max_bytes, what));
    }
    let platform = || {
        too_large(
            input,
            needed,
            usize::MAX as u64,
            "more than this platform can address".to_string(),
        )
    };
    let n = usize::try_from(n64).map_err(|_| platform())?;
    let cols = usize::try_from(cols64).map_err(|_| platform())?;
    usize::try_from(out_bytes).map_err(|_| platform())?;
    usize::try_from(row_bytes).map_err(|_| platform())?;
    let trailing = layout
        .shape
        .iter()
        .skip(1)
        .map(|&d| usize::try_from(d).map_err(|_| platform()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Plan {
        dt: layout.dtype,
        n,
        cols,
        fortran: layout.fortran,
        trailing,
        rows,
    })
}

/// The fix for array data whose bytes do not make sense.
pub(crate) const RESAVE: &str =
    "the file was damaged or written incorrectly: re-save it with the library that wrote it, or download it again";

/// Maps an I/O error met while reading array data to the error the user should see.
pub(crate) fn io_error(input: &str, what: &str, e: &io::Error) -> DataError {
    match e.kind() {
        io::ErrorKind::UnexpectedEof => DataError::Truncated {
            input: input.to_string(),
            detail: format!("{what} ends before the size its header declares"),
        },
        io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput => {
            DataError::corrupt(input, format!("{what}: {e}"), RESAVE)
        }
        _ => DataError::io(input, &format!("reading {what}"), e),
    }
}

fn oom(input: &str, bytes: u64) -> DataError {
    DataError::OutOfMemory {
        input: input.to_string(),
        bytes,
    }
}

pub(crate) fn alloc<T: Scalar>(input: &str, len: usize) -> Result<Vec<T>, DataError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| oom(input, (len as u64).saturating_mul(std::mem::size_of::<T>() as u64)))?;
    v.resize(len, T::default());
    Ok(v)
}

/// Reads `out.len()` elements starting at byte `at` of `src`, at most [`CHUNK`] bytes at a time.
pub(crate) fn read_elems_at<T: Scalar>(
    input: &str,
    src: &dyn ByteSource,
    at: u64,
    dt: DType,
    out: &mut [T],
    buf: &mut Vec<u8>,
) -> Result<(), DataError> {
    let per = (CHUNK / dt.size).max(1);
    let mut pos = at;
    for part in out.chunks_mut(per) {
        buf.clear();
        buf.resize(part.len() * dt.size, 0);
        src.read_at(pos, buf)
            .map_err(|e| io_error(input, "the array data", &e))?;
        dtype::decode(dt, buf, part);
        pos = pos.saturating_add(buf.len() as u64);
    }
    Ok(())
}

/// Reads `out.len()` elements from a stream, at most [`CHUNK`] bytes at a time.
fn read_elems<T: Scalar>(
    input: &str,
    r: &mut dyn Read,
    dt: DType,
    out: &mut [T],
    buf: &mut Vec<u8>,
) -> Result<(), DataError> {
    let per = (CHUNK / dt.size).max(1);
    for part in out.chunks_mut(per) {
        buf.clear();
        buf.resize(part.len() * dt.size, 0);
        r.read_exact(buf).map_err(|e| io_error(input, "the array data", &e))?;
        dtype::decode(dt, buf, part);
    }
    Ok(())
}

/// Reads the planned rows from `src`, whose array data starts at byte `offset`.
pub(crate) fn read_random<T: Scalar>(
    input: &str,
    src: &dyn ByteSource,
    offset: u64,
    plan: &Plan<'_>,
) -> Result<Vec<T>, DataError> {
    if plan.fortran {
        let mut r = io::BufReader::with_capacity(1 << 16, SourceReader::new(src, offset));
        return read_stream(input, &mut r, plan);
    }
    let cols = plan.cols;
    let row_bytes = (cols * plan.dt.size) as u64;
    let mut out = alloc::<T>(input, plan.out_rows() * cols)?;
    let mut buf = Vec::new();
    match plan.rows {
        None => read_elems_at(input, src, offset, plan.dt, &mut out, &mut buf)?,
        Some(sel) => {
            // Runs of consecutive rows are read together.
            let mut i = 0;
            while i < sel.len() {
                let mut j = i + 1;
                while j < sel.len() && sel[j] == sel[j - 1] + 1 {
                    j += 1;
                }
                let at = offset.saturating_add((sel[i] as u64).saturating_mul(row_bytes));
                read_elems_at(input, src, at, plan.dt, &mut out[i * cols..j * cols], &mut buf)?;
                i = j;
            }
        }
    }
    Ok(out)
}

/// For Fortran order: the C-order column of each stored column (trailing index with the first axis fastest).
pub(crate) fn fortran_columns(trailing: &[usize], cols: usize) -> Vec<usize> {
    let mut c_stride = vec![1usize; trailing.len()];
    for t in (0..trailing.len().saturating_sub(1)).rev() {
        c_stride[t] = c_stride[t + 1] * trailing[t + 1];
    }
    let mut idx = vec![0usize; trailing.len()];
    let mut map = Vec::with_capacity(cols);
    for _ in 0..cols {
        map.push(idx.iter().zip(&c_stride).map(|(i, s)| i * s).sum());
        for (t, i) in idx.iter_mut().enumerate() {
            *i += 1;
            if *i < trailing[t] {
                break;
            }
            *i = 0;
        }
    }
    map
}

fn skip(input: &str, r: &mut dyn Read, bytes: u64) -> Result<(), DataError> {
    let got = io::copy(&mut r.take(bytes), &mut io::sink()).map_err(|e| io_error(input, "the array data", &e))?;
    if got < bytes {
        return Err(io_error(input, "the array data", &io::ErrorKind::UnexpectedEof.into()));
    }
    Ok(())
}

/// Reads the planned rows from a stream positioned at the first data byte.
pub(crate) fn read_stream<T: Scalar>(input: &str, r: &mut dyn Read, plan: &Plan<'_>) -> Result<Vec<T>, DataError> {
    let cols = plan.cols;
    let size = plan.dt.size;
    let row_bytes = cols * size;
    // Selected rows, sorted and deduplicated: values land in `compact` (one row per distinct index), then are
    // expanded into the requested order.
    let uniq: Option<Vec<usize>> = plan.rows.map(|sel| {
        let mut u = sel.to_vec();
        u.sort_unstable();
        u.dedup();
        u
    });
    let mut compact = alloc::<T>(input, uniq.as_ref().map_or(plan.n, Vec::len) * cols)?;
    let mut buf = Vec::new();
    if !plan.fortran {
        match &uniq {
            None => read_elems(input, r, plan.dt, &mut compact, &mut buf)?,
            Some(u) => {
                let mut next = 0usize;
                for (k, &row) in u.iter().enumerate() {
                    skip(input, r, (row - next) as u64 * row_bytes as u64)?;
                    read_elems(input, r, plan.dt, &mut compact[k * cols..(k + 1) * cols], &mut buf)?;
                    next = row + 1;
                }
            }
        }
    } else {
        let colmap = fortran_columns(&plan.trailing, cols);
        let per_chunk = (CHUNK / size).max(1).min(plan.n);
        let mut tmp = alloc::<T>(input, per_chunk)?;
        for &c in &colmap {
            let mut p = 0usize;
            let mut start = 0;
            while start < plan.n {
                let k = per_chunk.min(plan.n - start);
                read_elems(input, r, plan.dt, &mut tmp[..k], &mut buf)?;
                match &uniq {
                    None => {
                        for (t, &v) in tmp[..k].iter().enumerate() {
                            compact[(start + t) * cols + c] = v;
                        }
                    }
                    Some(u) => {
                        while let Some(&row) = u.get(p) {
                            if row >= start + k {
                                break;
                            }
                            compact[p * cols + c] = tmp[row - start];
                            p += 1;
                        }
                    }
                }
                start += k;
            }
        }
    }
    match (plan.rows, uniq) {
        (Some(sel), Some(u)) if sel != u.as_slice() => {
            let mut out = alloc::<T>(input, sel.len() * cols)?;
            for (i, row) in sel.iter().enumerate() {
                // `u` holds every selected row, so the search always succeeds.
                let k = u.binary_search(row).unwrap_or(0);
                out[i * cols..(i + 1) * cols].copy_from_slice(&compact[k * cols..(k + 1) * cols]);
            }
            Ok(out)
        }
        _ => Ok(compact),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use super::*;

    #[test]
    fn fortran_column_map_matches_c_flattening() {
        // (n, 2, 3) in F order: stored column s = j + 2k holds C column 3j + k.
        assert_eq!(fortran_columns(&[2, 3], 6), vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(fortran_columns(&[4], 4), vec![0, 1, 2, 3]);
        assert_eq!(fortran_columns(&[], 1), vec![0]);
    }
}
