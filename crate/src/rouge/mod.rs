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

/// Length of the longest common subsequence of two token lists, by the bit-parallel algorithm of Allison and Dix
/// (1986) in Hyyrö's form (2004): the dynamic programme's row for the shorter list is held as bits, 64 cells to a
/// machine word, so the time is `O(|long| · ⌈|short| / 64⌉)` and the memory `O(|short|)` — the same length as the
/// textbook `O(|a| · |b|)` programme (rouge-score's `_lcs_table`), exactly, since both compute the LCS length.
///
/// Row update for each token `x` of the longer list, with `M[x]` the positions of `x` in the shorter one:
/// `U = V & M[x]; V = (V + U) | (V & !M[x])` (the `+` carries across words); the LCS length is the number of zero
/// bits of `V`. Match masks: dense for tokens occurring at least once per word of the shorter list (there are at
/// most 64 of those), else set and cleared in one scratch mask per step, so no step costs more than `O(words)`.
fn lcs_length<T: Eq + std::hash::Hash>(a: &[T], b: &[T]) -> usize {
    use std::collections::HashMap;
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if short.is_empty() {
        return 0;
    }
    let words = short.len().div_ceil(64);
    let mut positions: HashMap<&T, Vec<u32>> = HashMap::new();
    for (j, t) in short.iter().enumerate() {
        // `short.len()` ≤ `long.len()`; both fit in memory, and a u32 position covers 4·10⁹ tokens.
        positions.entry(t).or_default().push(j as u32);
    }
    // Dense masks for frequent tokens; the rest keep their positions.
    let mut dense: HashMap<&T, Vec<u64>> = HashMap::new();
    positions.retain(|t, pos| {
        if pos.len() < words {
            return true;
        }
        let mut m = vec![0u64; words];
        for &j in pos.iter() {
            m[j as usize / 64] |= 1 << (j % 64);
        }
        dense.insert(*t, m);
        false
    });
    let mut v = vec![u64::MAX; words];
    let mut scratch = vec![0u64; words];
    let step = |v: &mut [u64], m: &[u64]| {
        let mut carry = 0u64;
        for (vw, &mw) in v.iter_mut().zip(m) {
            let u = *vw & mw;
            let (s1, c1) = vw.overflowing_add(u);
            let (s2, c2) = s1.overflowing_add(carry);
            carry = u64::from(c1 | c2);
            *vw = s2 | (*vw & !mw);
        }
    };
    for x in long {
        if let Some(m) = dense.get(x) {
            step(&mut v, m);
        } else if let Some(pos) = positions.get(x) {
            for &j in pos {
                scratch[j as usize / 64] |= 1 << (j % 64);
            }
            step(&mut v, &scratch);
            for &j in pos {
                scratch[j as usize / 64] = 0;
            }
        }
        // A token absent from the shorter list leaves the row as it is (`M[x] = 0`).
    }
    let zeros: u32 = v.iter().map(|w| w.count_zeros()).sum();
    zeros as usize
}

/// The textbook dynamic programme, `O(|a| · |b|)` time: the reference the bit-parallel version is tested against.
#[cfg(test)]
fn lcs_length_dp<T: PartialEq>(a: &[T], b: &[T]) -> usize {
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
/// the reference. Any two strings have a score, so this cannot fail. The time is `O(|r| · |p| / 64)` (200,000
/// tokens against 200,000: about 0.6 s) and is not bounded here; the batch functions check it first.
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

/// The number of tokens [`tokenize`] gives for `text` (stemming keeps the count), without building them.
fn token_count(text: &str) -> usize {
    let mut n = 0;
    let mut inside = false;
    for c in text.chars().flat_map(char::to_lowercase) {
        let keep = c.is_ascii_lowercase() || c.is_ascii_digit();
        if keep && !inside {
            n += 1;
        }
        inside = keep;
    }
    n
}

/// Steps of [`lcs_length`] on token lists of `a` and `b` tokens: one per word of the shorter list's bit row, per
/// token of the longer one (about a nanosecond each).
fn lcs_steps(a: usize, b: usize) -> u64 {
    let (long, short) = (a.max(b), a.min(b));
    (long as u64).saturating_mul(short.div_ceil(64) as u64)
}

/// Refuses a batch whose LCS work exceeds what one computation may take ([`crate::check::limits`]), before any
/// pair is scored: `pairs` yields each pair's (reference, prediction) token counts.
fn check_work(pairs: impl Iterator<Item = (usize, usize)>) -> Result<()> {
    let (mut steps, mut count, mut largest) = (0u64, 0usize, (0u64, 0usize, 0usize, 0usize));
    for (i, (r, p)) in pairs.enumerate() {
        let s = lcs_steps(r, p);
        steps = steps.saturating_add(s);
        count += 1;
        if s >= largest.0 {
            largest = (s, i, r, p);
        }
    }
    let (_, i, r, p) = largest;
    let mut budget = crate::check::Budget::default();
    budget.add(
        crate::check::Cause::input("predictions"),
        format!(
            "ROUGE-L of {count} text pair(s) (the longest common subsequence of each; the largest pair, number {}, \
             has {r} reference and {p} prediction tokens)",
            i + 1
        ),
        0,
        steps,
        "score shorter texts (truncate each generation and reference to the part being evaluated, e.g. its first \
         few thousand tokens), or split the texts over several runs",
    );
    budget.check()
}

/// ROUGE-L for many (reference, prediction) pairs, `references[i]` with `predictions[i]`; each pair is scored
/// as by [`rouge_l`].
///
/// # Errors
/// [`Error::ShapeMismatch`] when the two lists differ in length; [`Error::TooLarge`] as for [`rouge_l_against`].
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
    check_work(
        references
            .iter()
            .zip(predictions)
            .map(|(r, p)| (token_count(r.as_ref()), token_count(p.as_ref()))),
    )?;
    let mut out = RougeBatch::with_capacity(predictions.len());
    for (r, p) in references.iter().zip(predictions) {
        out.push(rouge_l(r.as_ref(), p.as_ref(), use_stemmer));
    }
    Ok(out)
}

/// ROUGE-L of many sampled predictions against one reference (the paper's setting: `n` generations for one
/// question). Same scores as [`rouge_l`] per prediction; the reference is tokenized once.
///
/// # Errors
/// [`Error::TooLarge`] (for `predictions`) when the pairs' longest-common-subsequence work exceeds what one
/// computation may take ([`crate::check::limits`]: about 10¹² steps, a quarter of an hour; 200,000 tokens against
/// 200,000 take about 0.6 s), said before any pair is scored, with the largest pair and the fix.
///
/// # Examples
/// ```
/// use lethe::rouge::rouge_l_against;
/// let b = rouge_l_against("the cat is on the mat", &["the cat sat on the mat", "no"], false).unwrap();
/// assert_eq!(b.fmeasure.len(), 2);
/// assert!((b.fmeasure[0] - 5.0 / 6.0).abs() < 1e-15);
/// ```
pub fn rouge_l_against<P: AsRef<str>>(reference: &str, predictions: &[P], use_stemmer: bool) -> Result<RougeBatch> {
    let r = tokenize(reference, use_stemmer);
    check_work(predictions.iter().map(|p| (r.len(), token_count(p.as_ref()))))?;
    let mut out = RougeBatch::with_capacity(predictions.len());
    for p in predictions {
        out.push(score_tokens(&r, &tokenize(p.as_ref(), use_stemmer)));
    }
    Ok(out)
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

    /// The bit-parallel LCS equals the textbook programme on random token lists of every size around the word
    /// boundaries, small vocabularies (many repeats: the dense masks) and large ones (the sparse path).
    #[test]
    fn bit_parallel_lcs_equals_the_dynamic_programme() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |k: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % k
        };
        for vocab in [1u64, 2, 3, 5, 40, 1000] {
            for &(m, n) in &[
                (0usize, 5usize),
                (1, 1),
                (63, 64),
                (64, 64),
                (65, 130),
                (200, 129),
                (300, 500),
            ] {
                let a: Vec<u64> = (0..m).map(|_| next(vocab)).collect();
                let b: Vec<u64> = (0..n).map(|_| next(vocab)).collect();
                assert_eq!(lcs_length(&a, &b), lcs_length_dp(&a, &b), "vocab {vocab}, {m} × {n}");
                assert_eq!(lcs_length(&b, &a), lcs_length_dp(&a, &b), "vocab {vocab}, {n} × {m}");
            }
        }
    }

    #[test]
    fn token_counts_are_what_tokenize_gives() {
        for t in [
            "",
            "Harry Potter's best friends!",
            "Café 東京 2001",
            "\u{130}stanbul \u{212A}elvin",
            "a--b  c9",
        ] {
            assert_eq!(token_count(t), tokenize(t, false).len(), "{t}");
            assert_eq!(token_count(t), tokenize(t, true).len(), "{t}");
        }
    }

    /// Pairs whose LCS work is past the limit are refused before any is scored, naming the size and the fix.
    #[test]
    fn batches_past_the_work_limit_are_refused_with_the_size() {
        assert_eq!(lcs_steps(200_000, 200_000), 200_000 * 3125);
        assert_eq!(lcs_steps(3, 200_000), 200_000);
        // 2·10⁶ × 2·10⁶ tokens: 6.25·10¹⁰ steps a pair, × 20 pairs > 10¹².
        let e = check_work(std::iter::repeat_n((2_000_000, 2_000_000), 20)).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, Error::TooLarge { .. }), "{msg}");
        assert!(
            msg.contains("20 text pair(s)") && msg.contains("2000000 reference and 2000000 prediction tokens"),
            "{msg}"
        );
        assert!(msg.contains("score shorter texts"), "{msg}");
        check_work(std::iter::repeat_n((200_000, 200_000), 20)).unwrap();
        // The batch functions refuse before scoring: an empty batch is fine, a mismatched one is not.
        assert!(rouge_l_against::<&str>("a", &[], false).unwrap().fmeasure.is_empty());
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
