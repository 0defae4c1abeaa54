//! Binary classification scores for the SDE membership decisions: F1 with "in training" as the positive class,
//! and the out-of-training rate.
//!
//! With true positives `TP`, false positives `FP` and false negatives `FN`:
//!
//! ```text
//! precision = TP / (TP + FP),   recall = TP / (TP + FN),   F1 = 2·TP / (2·TP + FP + FN)
//! ```
//!
//! exactly as scikit-learn 1.9.1 `precision_recall_fscore_support(..., average="binary", pos_label=1)` evaluates
//! them (F1 as `2·TP / (true_sum + pred_sum)`, not from the rounded precision and recall). A ratio whose
//! denominator is zero is 0, which is scikit-learn's value under its default `zero_division="warn"` (it also
//! warns; so does Lethe, in `warnings`).
//!
//! The out-of-training (OOT) rate of a set of targets is the fraction judged not in training,
//! `#{¬in_training} / n`.

use serde::Serialize;

use crate::error::{Error, Result};

/// Precision, recall and F1 of predictions against the truth, "in training" (`true`) being positive.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct F1Result {
    /// F1 score, 0 when undefined.
    pub f1: f64,
    /// Precision, 0 when nothing is predicted positive.
    pub precision: f64,
    /// Recall, 0 when nothing is truly positive.
    pub recall: f64,
    pub true_positives: u64,
    pub false_positives: u64,
    pub false_negatives: u64,
    pub true_negatives: u64,
    /// Which ratios were undefined and set to 0 (scikit-learn's `UndefinedMetricWarning`s).
    pub warnings: Vec<String>,
}

/// F1 score with `true` (in training) as the positive class, as `sklearn.metrics.f1_score(truth, pred)` with
/// scikit-learn 1.9.1 defaults (`pos_label=1`, `average="binary"`, `zero_division="warn"` → 0).
///
/// # Errors
/// * [`Error::Empty`] if `truth` is empty.
/// * [`Error::ShapeMismatch`] if `truth` and `pred` differ in length.
///
/// # Examples
/// ```
/// // 8 of 10 members found, 3 false alarms: F1 = 16 / 21.
/// let truth: Vec<bool> = (0..20).map(|i| i < 10).collect();
/// let pred: Vec<bool> = (0..20).map(|i| i < 8 || (10..13).contains(&i)).collect();
/// let r = lethe::classification::f1_score(&truth, &pred).unwrap();
/// assert_eq!(r.f1, 16.0 / 21.0);
/// assert_eq!((r.true_positives, r.false_positives, r.false_negatives), (8, 3, 2));
/// ```
pub fn f1_score(truth: &[bool], pred: &[bool]) -> Result<F1Result> {
    if truth.is_empty() {
        return Err(Error::Empty {
            input: "truth".into(),
            fix: "pass at least one labelled target".into(),
        });
    }
    if truth.len() != pred.len() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "`truth` has {} labels but `pred` has {}; pass one prediction per target",
                truth.len(),
                pred.len()
            ),
        });
    }
    let (mut tp, mut fp, mut fn_, mut tn) = (0u64, 0u64, 0u64, 0u64);
    for (&t, &p) in truth.iter().zip(pred) {
        match (t, p) {
            (true, true) => tp += 1,
            (false, true) => fp += 1,
            (true, false) => fn_ += 1,
            (false, false) => tn += 1,
        }
    }
    let mut warnings = Vec::new();
    let mut ratio = |num: f64, den: u64, what: &str| -> f64 {
        if den == 0 {
            warnings.push(format!(
                "{what} is ill-defined (0/0) and set to 0, as scikit-learn's zero_division"
            ));
            0.0
        } else {
            num / den as f64
        }
    };
    let (pred_sum, true_sum) = (tp + fp, tp + fn_);
    let precision = ratio(tp as f64, pred_sum, "precision (no predicted in-training targets)");
    let recall = ratio(tp as f64, true_sum, "recall (no true in-training targets)");
    // scikit-learn: (1 + β²)·TP / (β²·true_sum + pred_sum) with β = 1.
    let f1 = ratio(
        2.0 * tp as f64,
        true_sum + pred_sum,
        "F1 (no true and no predicted in-training targets)",
    );
    Ok(F1Result {
        f1,
        precision,
        recall,
        true_positives: tp,
        false_positives: fp,
        false_negatives: fn_,
        true_negatives: tn,
        warnings,
    })
}

/// Fraction of targets judged out of training: `#{i : ¬in_training[i]} / n`.
///
/// # Errors
/// [`Error::Empty`] if `in_training` is empty (the rate of nothing is undefined).
///
/// # Examples
/// ```
/// let rate = lethe::classification::out_of_training_rate(&[true, false, false, true, false]).unwrap();
/// assert_eq!(rate, 0.6);
/// ```
pub fn out_of_training_rate(in_training: &[bool]) -> Result<f64> {
    if in_training.is_empty() {
        return Err(Error::Empty {
            input: "in_training".into(),
            fix: "pass one membership decision per target".into(),
        });
    }
    let oot = in_training.iter().filter(|&&b| !b).count();
    Ok(oot as f64 / in_training.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undefined_ratios_are_zero_with_warnings() {
        let r = f1_score(&[false, false], &[false, false]).expect("valid");
        assert_eq!((r.f1, r.precision, r.recall), (0.0, 0.0, 0.0));
        assert_eq!(r.warnings.len(), 3);
        let r = f1_score(&[true, false], &[false, false]).expect("valid");
        assert_eq!(r.f1, 0.0);
        assert_eq!(r.warnings.len(), 1); // precision only; recall = 0/1 and F1 = 0/1 are defined
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(f1_score(&[], &[]).is_err());
        assert!(f1_score(&[true], &[true, false]).is_err());
        assert!(out_of_training_rate(&[]).is_err());
    }
}
