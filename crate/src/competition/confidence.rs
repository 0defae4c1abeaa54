//! Logit-scaled confidence, metric.py's `compute_logit_scaled_confidence` (adapted there from the LiRA code).

use super::emulate::numpy_exp_f32;
use crate::data::{Matrix, MatrixRef, Scalar};
use crate::error::{Error, Result};
use crate::numpy::sum as numpy_pairwise_sum;

/// Logit-scaled confidence of each row's labelled class: `log(p_y + 1e-45) − log(Σ_{j≠y} p_j + 1e-45)` with `p` the
/// softmax of the row, as metric.py's `compute_logit_scaled_confidence(logits, targets)` (its second output).
///
/// The steps and dtypes follow metric.py exactly: the row maximum is subtracted in the logits' own precision,
/// `exp` is taken in that precision (numpy's float32 SIMD `exp` for `f32` logits, as the network's float32 outputs
/// are in the competition), the result is widened to float64, normalised by numpy's pairwise row sum, the labelled
/// probability is read and zeroed, and the remaining mass is summed again pairwise. For `f64` logits `exp` and the
/// final `log`s are Rust's (the platform's libm), which may differ from numpy's by an ulp.
///
/// Deviation: metric.py indexes `targets[:count]`, silently ignoring extra labels; Lethe requires exactly one label
/// per row.
///
/// # Errors
/// [`Error::Empty`] for a matrix without rows or columns, [`Error::NonFinite`] for NaN/±inf logits,
/// [`Error::ShapeMismatch`] when `labels.len()` differs from the number of rows, [`Error::IndexOutOfRange`] for a
/// label ≥ the number of classes.
///
/// # Examples
/// ```
/// use lethe::MatrixRef;
/// use lethe::competition::logit_scaled_confidence;
/// // Two classes with logits (2, 0): p = (0.8808, 0.1192), confidence = log(p0/p1) = 2.
/// let logits = [2.0f64, 0.0, 0.0, 2.0];
/// let conf = logit_scaled_confidence(MatrixRef::new(2, 2, &logits).unwrap(), &[0, 0]).unwrap();
/// assert!((conf[0] - 2.0).abs() < 1e-12 && (conf[1] + 2.0).abs() < 1e-12);
/// ```
pub fn logit_scaled_confidence<T: Scalar + Exp>(logits: MatrixRef<'_, T>, labels: &[usize]) -> Result<Vec<f64>> {
    crate::check::matrix("logits", logits, 1, "the logit-scaled confidence")?;
    if labels.len() != logits.rows() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "`{}` has {} entries but `{}` has {} rows; pass one label per row",
                crate::words::role("labels"),
                labels.len(),
                crate::words::role("logits"),
                logits.rows()
            ),
        });
    }
    let classes = logits.cols();
    if let Some(i) = labels.iter().position(|&y| y >= classes) {
        return Err(Error::IndexOutOfRange {
            input: format!("labels (entry {i}, a class index for {classes} logit columns)"),
            index: labels[i],
            len: classes,
        });
    }
    let mut probs = vec![0.0f64; classes];
    let mut out = Vec::with_capacity(logits.rows());
    for (row, &y) in logits.as_slice().chunks_exact(classes).zip(labels) {
        let max = row.iter().copied().fold(row[0], |m, v| if v > m { v } else { m });
        for (p, &v) in probs.iter_mut().zip(row) {
            *p = v.sub_exp(max);
        }
        let total = numpy_pairwise_sum(&probs);
        for p in probs.iter_mut() {
            *p /= total;
        }
        let correct = probs[y];
        probs[y] = 0.0;
        let wrong = numpy_pairwise_sum(&probs);
        out.push((correct + 1e-45).ln() - (wrong + 1e-45).ln());
    }
    Ok(out)
}

/// `exp(x − max)` computed in the logits' own precision, widened to f64 (numpy's `np.exp` on that dtype).
pub trait Exp: Copy {
    fn sub_exp(self, max: Self) -> f64;
}

impl Exp for f64 {
    fn sub_exp(self, max: Self) -> f64 {
        (self - max).exp()
    }
}

impl Exp for f32 {
    fn sub_exp(self, max: Self) -> f64 {
        f64::from(numpy_exp_f32(self - max))
    }
}

/// Logit-scaled confidences of many models at once: `logits` is models × (examples · classes) (a models × examples
/// × classes array flattened), `labels` the examples' classes; returns models × examples, each row
/// [`logit_scaled_confidence`] of that model's logits.
///
/// # Errors
/// A width that is not a multiple of the number of labels; label errors as [`logit_scaled_confidence`].
pub fn logit_scaled_confidences<T: Scalar + Exp>(logits: MatrixRef<'_, T>, labels: &[usize]) -> Result<Matrix> {
    let e = labels.len();
    let (models, width) = (logits.rows(), logits.cols());
    if e == 0 || width % e != 0 {
        return Err(Error::ShapeMismatch {
            message: format!(
                "logits are {models}×{width} after flattening, not models × {e} examples × classes (one label per example)"
            ),
        });
    }
    let classes = width / e;
    let mut out = Vec::with_capacity(models * e);
    for m in 0..models {
        out.extend(logit_scaled_confidence(
            MatrixRef::new(e, classes, logits.row(m))?,
            labels,
        )?);
    }
    Matrix::from_vec(models, e, out)
}

/// Logit-scaled confidences from class probabilities instead of logits: `probs` is models × (examples · classes)
/// (a models × examples × classes array of softmax outputs, flattened), `labels` the examples' classes; returns
/// models × examples. metric.py's steps after its softmax: each row is normalised by its pairwise sum, the labelled
/// probability is read and zeroed, the remaining mass summed again pairwise, and the confidence is
/// `log(p_y + 1e-45) − log(Σ_{j≠y} p_j + 1e-45)` — so the small probabilities of the other classes are kept, which
/// `1 − p_y` would lose once `p_y` rounds to 1. Equal to [`logit_scaled_confidences`] of the logits that gave these
/// probabilities up to the rounding of the softmax.
///
/// # Errors
/// A width that is not a multiple of the number of labels, a label ≥ the number of classes, a value outside
/// [0, 1] or not finite, a row of zeros.
pub fn logit_scaled_confidences_from_probabilities(probs: MatrixRef<'_, f64>, labels: &[usize]) -> Result<Matrix> {
    crate::check::matrix("probabilities", probs, 1, "the logit-scaled confidence")?;
    let e = labels.len();
    let (models, width) = (probs.rows(), probs.cols());
    if e == 0 || width % e != 0 {
        return Err(Error::ShapeMismatch {
            message: format!(
                "probabilities are {models}×{width} after flattening, not models × {e} examples × classes (one label \
                 per example)"
            ),
        });
    }
    let classes = width / e;
    if let Some(i) = labels.iter().position(|&y| y >= classes) {
        return Err(Error::IndexOutOfRange {
            input: format!("labels (entry {i}, a class index for {classes} probability columns)"),
            index: labels[i],
            len: classes,
        });
    }
    let mut row = vec![0.0f64; classes];
    let mut out = Vec::with_capacity(models * e);
    for m in 0..models {
        for (k, (p, &y)) in probs.row(m).chunks_exact(classes).zip(labels).enumerate() {
            if let Some(j) = p.iter().position(|v| !(0.0..=1.0).contains(v)) {
                return Err(Error::OutOfDomain {
                    input: "probabilities".into(),
                    value: p[j],
                    location: format!("model {m}, example {k}, class {j}"),
                    domain: "probabilities in [0, 1] (softmax outputs); give logits instead if these are not",
                });
            }
            let total = numpy_pairwise_sum(p);
            if total <= 0.0 {
                return Err(Error::OutOfDomain {
                    input: "probabilities".into(),
                    value: total,
                    location: format!("the sum over classes of model {m}, example {k}"),
                    domain: "a positive sum (softmax outputs sum to 1)",
                });
            }
            for (r, &v) in row.iter_mut().zip(p) {
                *r = v / total;
            }
            let correct = row[y];
            row[y] = 0.0;
            let wrong = numpy_pairwise_sum(&row);
            out.push((correct + 1e-45).ln() - (wrong + 1e-45).ln());
        }
    }
    Matrix::from_vec(models, e, out)
}
