//! ROUGE-L (longest-common-subsequence overlap) exactly as Google's `rouge-score` 0.1.2 computes it:
//! `RougeScorer(['rougeL'], use_stemmer=...).score(target, prediction)['rougeL']`.
//!
//! With `r` the reference tokens, `p` the prediction tokens and `L` the length of their longest common
//! subsequence (LCS):
//!
//! ```text
//! precision = L / |p|,   recall = L / |r|,   F = 2·precision·recall / (precision + recall)
//! ```
//!
//! with all three 0 when either token list is empty, and `F = 0` when `L = 0`. These are the per-sample
//! leakage scores the paper feeds to the bounds in [`crate::leakage`] (TOFU-style evaluations use the recall).
//!
//! # Tokenization (rouge-score's `tokenize.tokenize`)
//!
//! 1. Lowercase the whole text with full Unicode case mapping (Python `str.lower`; Rust `str::to_lowercase`
//!    agrees on every character that maps into ASCII).
//! 2. Replace every run of characters outside `[a-z0-9]` by a space. Only ASCII letters and digits survive:
//!    accented letters split words (`café` → `caf`), CJK, Cyrillic, Greek and emoji text vanishes entirely,
//!    and Unicode digits (`٣`) are dropped. Two non-ASCII characters lowercase into ASCII and so survive:
//!    `İ` (U+0130 → `i` + combining dot) and the Kelvin sign `K` (U+212A → `k`).
//! 3. Split on whitespace, drop empty tokens.
//! 4. With `use_stemmer`, stem tokens **longer than three characters** with NLTK's Porter stemmer
//!    ([`porter_stem`]); shorter tokens are kept as they are.

mod porter;

use serde::Serialize;

pub use porter::porter_stem;

use crate::error::{Error, Result};

/// Precision, recall and F-measure of one prediction against one reference.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RougeScore {
    /// LCS length over the number of prediction tokens.
    pub precision: f64,
    /// LCS length over the number of reference tokens.
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub fmeasure: f64,
}

/// Per-pair ROUGE-L scores, column by column (see [`rouge_l_pairs`]).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RougeBatch {
    /// Precision of each pair.
    pub precision: Vec<f64>,
    /// Recall of each pair.
    pub recall: Vec<f64>,
    /// F-measure of each pair.
    pub fmeasure: Vec<f64>,
}

impl RougeBatch {
    fn with_capacity(n: usize) -> Self {
        RougeBatch {
            precision: Vec::with_capacity(n),
            recall: Vec::with_capacity(n),
            fmeasure: Vec::with_capacity(n),
        }
    }

    fn push(&mut self, s: RougeScore) {
        self.precision.push(s.precision);
        self.recall.push(s.recall);
        self.fmeasure.push(s.fmeasure);
    }
}

/// rouge-score's default tokenizer (see the module documentation for the exact rules).
///
/// # Examples
/// ```
/// use lethe::rouge::tokenize;
/// assert_eq!(tokenize("Harry Potter's best friends!", false), ["harry", "potter", "s", "best", "friends"]);
/// assert_eq!(tokenize("Harry Potter's best friends!", true), ["harri", "potter", "s", "best", "friend"]);
/// assert_eq!(tokenize("Café 東京 2001", false), ["caf", "2001"]);
/// ```
pub fn tokenize(text: &str, use_stemmer: bool) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(|t| {
            if use_stemmer && t.len() > 3 {
                porter_stem(t)
            } else {
                t.to_string()
            }
        })
        // rouge-score's final `^[a-z0-9]+$` filter; a stemmed ASCII token always passes it.
        .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
        .collect()
}

/// Length of the longest common subsequence, by the standard dynamic programme in `O(min(|a|, |b|))` memory.
fn lcs_length<T: PartialEq>(a: &[T], b: &[T]) -> usize {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut row = vec![0usize; short.len() + 1];
    for x in long {
        let mut diag = 0;
        for (j, y) in short.iter().enumerate() {
            let up = row[j + 1];
            row[j + 1] = if x == y { diag + 1 } else { up.max(row[j]) };
            diag = up;
        }
    }
    row[short.len()]
}

/// rouge-score's `_score_lcs` on token lists.
fn score_tokens(reference: &[String], prediction: &[String]) -> RougeScore {
    if reference.is_empty() || prediction.is_empty() {
        return RougeScore {
            precision: 0.0,
            recall: 0.0,
            fmeasure: 0.0,
        };
    }
    let lcs = lcs_length(reference, prediction) as f64;
    let precision = lcs / prediction.len() as f64;
    let recall = lcs / reference.len() as f64;
    let fmeasure = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    RougeScore {
        precision,
        recall,
        fmeasure,
    }
}

/// ROUGE-L of `prediction` against `reference`, exactly rouge-score 0.1.2's
/// `RougeScorer(['rougeL'], use_stemmer=use_stemmer).score(reference, prediction)['rougeL']`.
///
/// The argument order is rouge-score's (target first). Precision is relative to the prediction, recall to
/// the reference. Any two strings have a score, so this cannot fail.
///
/// # Examples
/// ```
/// use lethe::rouge::rouge_l;
/// let s = rouge_l("run running ran", "running runs ran runner", true);
/// assert_eq!((s.precision, s.recall), (0.75, 1.0));
/// assert_eq!(rouge_l("", "anything", false).fmeasure, 0.0);
/// ```
pub fn rouge_l(reference: &str, prediction: &str, use_stemmer: bool) -> RougeScore {
    score_tokens(&tokenize(reference, use_stemmer), &tokenize(prediction, use_stemmer))
}

/// ROUGE-L for many (reference, prediction) pairs, `references[i]` with `predictions[i]`; each pair is scored
/// as by [`rouge_l`].
///
/// # Errors
/// [`Error::ShapeMismatch`] when the two lists differ in length.
///
/// # Examples
/// ```
/// use lethe::rouge::rouge_l_pairs;
/// let b = rouge_l_pairs(&["a b c", "x y"], &["a c", "z"], false).unwrap();
/// assert_eq!(b.recall, vec![2.0 / 3.0, 0.0]);
/// ```
pub fn rouge_l_pairs<R: AsRef<str>, P: AsRef<str>>(
    references: &[R],
    predictions: &[P],
    use_stemmer: bool,
) -> Result<RougeBatch> {
    if references.len() != predictions.len() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "`references` has {} texts but `predictions` has {}; pass one reference per prediction (or use \
                 rouge_l_against for a single reference)",
                references.len(),
                predictions.len()
            ),
        });
    }
    let mut out = RougeBatch::with_capacity(predictions.len());
    for (r, p) in references.iter().zip(predictions) {
        out.push(rouge_l(r.as_ref(), p.as_ref(), use_stemmer));
    }
    Ok(out)
}

/// ROUGE-L of many sampled predictions against one reference (the paper's setting: `n` generations for one
/// question). Same scores as [`rouge_l`] per prediction; the reference is tokenized once.
///
/// # Examples
/// ```
/// use lethe::rouge::rouge_l_against;
/// let b = rouge_l_against("the cat is on the mat", &["the cat sat on the mat", "no"], false);
/// assert_eq!(b.fmeasure.len(), 2);
/// assert!((b.fmeasure[0] - 5.0 / 6.0).abs() < 1e-15);
/// ```
pub fn rouge_l_against<P: AsRef<str>>(reference: &str, predictions: &[P], use_stemmer: bool) -> RougeBatch {
    let r = tokenize(reference, use_stemmer);
    let mut out = RougeBatch::with_capacity(predictions.len());
    for p in predictions {
        out.push(score_tokens(&r, &tokenize(p.as_ref(), use_stemmer)));
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    #[test]
    fn only_ascii_alnum_and_two_special_letters_survive_lowercasing() {
        // Python's str.lower and Rust's to_lowercase must agree on every character that lowercases into
        // [a-z0-9]; rouge-score keeps exactly those.
        let mut survivors = Vec::new();
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let keeps = c.to_lowercase().any(|l| l.is_ascii_lowercase() || l.is_ascii_digit());
            if keeps && !c.is_ascii_alphanumeric() {
                survivors.push(c);
            }
        }
        assert_eq!(survivors, ['\u{130}', '\u{212A}']);
        assert_eq!(
            tokenize("\u{130}stanbul \u{212A}elvin", false),
            ["i", "stanbul", "kelvin"]
        );
    }

    #[test]
    fn lcs_basics() {
        let t = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        assert_eq!(lcs_length(&t("a b c d"), &t("a c d")), 3);
        assert_eq!(lcs_length(&t("a a a a b"), &t("a b a b")), 3);
        assert_eq!(lcs_length::<String>(&[], &t("a")), 0);
        assert_eq!(lcs_length(&t("x"), &t("y")), 0);
    }

    #[test]
    fn scores_are_symmetric_under_swap_with_precision_and_recall_exchanged() {
        let a = rouge_l("the quick brown fox", "the brown dog", false);
        let b = rouge_l("the brown dog", "the quick brown fox", false);
        assert_eq!((a.precision, a.recall, a.fmeasure), (b.recall, b.precision, b.fmeasure));
    }

    #[test]
    fn pairs_shape_mismatch() {
        assert!(matches!(
            rouge_l_pairs(&["a"], &["a", "b"], false),
            Err(Error::ShapeMismatch { .. })
        ));
        assert!(rouge_l_pairs::<&str, &str>(&[], &[], true).unwrap().fmeasure.is_empty());
    }

    #[test]
    fn zero_conventions() {
        let z = RougeScore {
            precision: 0.0,
            recall: 0.0,
            fmeasure: 0.0,
        };
        assert_eq!(rouge_l("", "", false), z);
        assert_eq!(rouge_l("!!!", "...", true), z);
        assert_eq!(rouge_l("abc", "xyz", false), z);
    }
}
