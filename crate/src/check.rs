//! Input validation shared by every procedure: one place that turns bad data into a clear [`Error`].

use crate::data::{MatrixRef, Scalar};
use crate::error::{Error, Result};

/// Fails with [`Error::Empty`] if `x` is empty.
pub fn nonempty<T>(input: &str, x: &[T]) -> Result<()> {
    if x.is_empty() {
        return Err(Error::Empty {
            input: input.to_string(),
            fix: "pass at least one value".into(),
        });
    }
    Ok(())
}

/// Fails with [`Error::NonFinite`] at the first NaN or ±inf in `x`.
pub fn finite<T: Scalar>(input: &str, x: &[T]) -> Result<()> {
    match x.iter().position(|v| !v.to_f64().is_finite()) {
        None => Ok(()),
        Some(i) => Err(Error::NonFinite {
            input: input.to_string(),
            value: x[i].to_f64(),
            location: format!("position {i}"),
        }),
    }
}

/// Non-empty and finite, the usual precondition for a 1-D sample.
pub fn sample<T: Scalar>(input: &str, x: &[T]) -> Result<()> {
    nonempty(input, x)?;
    finite(input, x)
}

/// Fails unless `x` has at least `need` values.
pub fn at_least<T>(input: &str, x: &[T], need: usize, procedure: &'static str) -> Result<()> {
    if x.len() < need {
        return Err(Error::TooSmall {
            input: input.to_string(),
            got: x.len(),
            need,
            unit: "values",
            procedure,
        });
    }
    Ok(())
}

/// A matrix input: at least `min_rows` rows, at least one column, all finite.
pub fn matrix<T: Scalar>(input: &str, m: MatrixRef<'_, T>, min_rows: usize, procedure: &'static str) -> Result<()> {
    shape(input, m.rows(), m.cols(), min_rows, procedure)?;
    if let Some(i) = m.as_slice().iter().position(|v| !v.to_f64().is_finite()) {
        return Err(Error::NonFinite {
            input: input.to_string(),
            value: m.as_slice()[i].to_f64(),
            location: format!("row {}, column {}", i / m.cols(), i % m.cols()),
        });
    }
    Ok(())
}

/// A matrix input of `rows × cols` values: at least `min_rows` rows and a column (what [`matrix`] checks but
/// finiteness, for rows that are checked as they are read: [`Columns`], subsets read in place).
pub fn shape(input: &str, rows: usize, cols: usize, min_rows: usize, procedure: &'static str) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Err(Error::Empty {
            input: input.to_string(),
            fix: format!("it has shape {rows}×{cols}; pass a matrix with rows and columns"),
        });
    }
    if rows < min_rows {
        return Err(Error::TooSmall {
            input: input.to_string(),
            got: rows,
            need: min_rows,
            unit: "rows",
            procedure,
        });
    }
    Ok(())
}

/// The most bytes of kernel matrices one subset may need: 2 GiB where addresses are 32 bits (wasm32: 4 GB of
/// memory at most, shared with everything else), 64 GiB elsewhere. Past it a run would fail to allocate, which
/// aborts rather than reports.
pub const KERNEL_BYTES: u64 = if cfg!(target_pointer_width = "32") {
    2 << 30
} else {
    64 << 30
};

/// Fails with [`Error::TooLarge`] when `matrices` kernel matrices of `n × n` values of `elem` bytes exceed
/// [`KERNEL_BYTES`].
pub fn kernel_memory(input: &str, n: usize, matrices: u64, elem: u64, procedure: &'static str) -> Result<()> {
    let bytes = (n as u64)
        .saturating_mul(n as u64)
        .saturating_mul(matrices)
        .saturating_mul(elem);
    if bytes <= KERNEL_BYTES {
        return Ok(());
    }
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    Err(Error::TooLarge {
        input: input.to_string(),
        detail: format!(
            "{procedure} of {n} rows needs about {:.1} GiB of kernel matrices, more than the {:.0} GiB this build allows",
            gib(bytes),
            gib(KERNEL_BYTES)
        ),
        fix: "use subsets of fewer rows (kernels grow as rows²)".into(),
    })
}

/// A probability-like parameter strictly inside (0, 1).
pub fn unit_open(name: &'static str, v: f64) -> Result<()> {
    if v > 0.0 && v < 1.0 {
        Ok(())
    } else {
        Err(Error::param(name, v, "a number strictly between 0 and 1"))
    }
}
