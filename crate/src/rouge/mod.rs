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
//!
//! # ROUGE-Lsum (rouge-score's `rougeLsum`)
//!
//! [`rouge_lsum`]: the summary-level LCS of the ROUGE paper (section 3.2) as rouge-score 0.1.2 computes it. Each
//! text is split into sentences on `\n` (empty pieces dropped; rouge-score's default `split_summaries=False`), each
//! sentence tokenized as above. For each reference sentence `r`, the union over the prediction sentences `c` of the
//! positions of `r` in **one** LCS of `r` and `c` — the one rouge-score's backtrack reads out of its table
//! (`_backtrack_norec`: a match is taken, else the step toward the larger neighbour, the row up on ties) — and
//! each token of that union is a hit while both texts still have an unused copy of it (rouge-score's counters,
//! "as in version 1.5.5"). `precision = hits / Σ|c|`, `recall = hits / Σ|r|`, F as above; all three 0 when either
//! text has no sentence or no token. With one sentence on each side it equals ROUGE-L.

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

/// rouge-score's `get_sents` (without `split_summaries`): the pieces of `text` between `\n`, empty ones dropped.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n').filter(|s| !s.is_empty())
}

/// rouge-score's `lcs_ind(ref, can)`: the positions in `r` of the LCS its table and `_backtrack_norec` read out.
fn lcs_indices(r: &[String], c: &[String]) -> Vec<usize> {
    let cols = c.len() + 1;
    let mut t = vec![0u32; (r.len() + 1) * cols];
    for i in 1..=r.len() {
        for j in 1..=c.len() {
            t[i * cols + j] = if r[i - 1] == c[j - 1] {
                t[(i - 1) * cols + j - 1] + 1
            } else {
                t[(i - 1) * cols + j].max(t[i * cols + j - 1])
            };
        }
    }
    let (mut i, mut j) = (r.len(), c.len());
    let mut out = Vec::new();
    while i > 0 && j > 0 {
        if r[i - 1] == c[j - 1] {
            out.push(i - 1);
            i -= 1;
            j -= 1;
        } else if t[i * cols + j - 1] > t[(i - 1) * cols + j] {
            j -= 1;
        } else {
            i -= 1;
        }
    }
    out.reverse();
    out
}

/// rouge-score's `_summary_level_lcs` on tokenized sentences.
fn summary_level_lcs(reference: &[Vec<String>], prediction: &[Vec<String>]) -> RougeScore {
    use std::collections::HashMap;
    let zero = RougeScore {
        precision: 0.0,
        recall: 0.0,
        fmeasure: 0.0,
    };
    let m: usize = reference.iter().map(Vec::len).sum();
    let n: usize = prediction.iter().map(Vec::len).sum();
    if reference.is_empty() || prediction.is_empty() || m == 0 || n == 0 {
        return zero;
    }
    let mut count_r: HashMap<&str, usize> = HashMap::new();
    let mut count_c: HashMap<&str, usize> = HashMap::new();
    for t in reference.iter().flatten() {
        *count_r.entry(t.as_str()).or_default() += 1;
    }
    for t in prediction.iter().flatten() {
        *count_c.entry(t.as_str()).or_default() += 1;
    }
    let mut hits = 0usize;
    for r in reference {
        let mut union: Vec<usize> = prediction.iter().flat_map(|c| lcs_indices(r, c)).collect();
        union.sort_unstable();
        union.dedup();
        for i in union {
            let t = r[i].as_str();
            let (cr, cc) = (
                count_r.get(t).copied().unwrap_or(0),
                count_c.get(t).copied().unwrap_or(0),
            );
            if cc > 0 && cr > 0 {
                hits += 1;
                count_c.insert(t, cc - 1);
                count_r.insert(t, cr - 1);
            }
        }
    }
    let recall = hits as f64 / m as f64;
    let precision = hits as f64 / n as f64;
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

/// ROUGE-Lsum of `prediction` against `reference`, exactly rouge-score 0.1.2's
/// `RougeScorer(['rougeLsum'], use_stemmer=use_stemmer).score(reference, prediction)['rougeLsum']`: sentences
/// split on `\n` (see the module documentation). The time is `Σ|r_i|·|c_j|` table cells, the memory the largest
/// sentence pair's table; the batch functions check both first.
///
/// # Examples
/// ```
/// use lethe::rouge::{rouge_l, rouge_lsum};
/// let s = rouge_lsum("the cat sat\non the mat", "on the mat\nthe cat sat", false);
/// assert_eq!((s.precision, s.recall), (1.0, 1.0)); // ROUGE-L of the joined texts is lower
/// assert!(rouge_l("the cat sat on the mat", "on the mat the cat sat", false).fmeasure < 1.0);
/// ```
pub fn rouge_lsum(reference: &str, prediction: &str, use_stemmer: bool) -> RougeScore {
    let tok = |t: &str| -> Vec<Vec<String>> { sentences(t).map(|s| tokenize(s, use_stemmer)).collect() };
    summary_level_lcs(&tok(reference), &tok(prediction))
}

/// Refuses a ROUGE-Lsum batch whose tables exceed what one computation may take: `pairs` yields each pair's
/// (reference, prediction) texts.
fn check_lsum_work<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Result<()> {
    let (mut steps, mut count, mut largest) = (0u64, 0usize, 0u64);
    for (r, p) in pairs {
        let rs: Vec<usize> = sentences(r).map(token_count).collect();
        let ps: Vec<usize> = sentences(p).map(token_count).collect();
        let (m, n) = (rs.iter().sum::<usize>() as u64, ps.iter().sum::<usize>() as u64);
        steps = steps.saturating_add(m.saturating_mul(n));
        count += 1;
        let rmax = rs.iter().max().copied().unwrap_or(0) as u64 + 1;
        let pmax = ps.iter().max().copied().unwrap_or(0) as u64 + 1;
        largest = largest.max(rmax.saturating_mul(pmax).saturating_mul(4));
    }
    let mut budget = crate::check::Budget::default();
    budget.add(
        crate::check::Cause::input("predictions"),
        format!("ROUGE-Lsum of {count} text pair(s) (an LCS table for every reference and prediction sentence pair)"),
        largest,
        steps,
        "score shorter texts or split long sentences (one per line within each text), or split the texts over \
         several runs",
    );
    budget.check()
}

/// ROUGE-Lsum for many (reference, prediction) pairs, as [`rouge_lsum`].
///
/// # Errors
/// [`Error::ShapeMismatch`] when the two lists differ in length; [`Error::TooLarge`] when the tables exceed what
/// one computation may take ([`crate::check::limits`]).
pub fn rouge_lsum_pairs<R: AsRef<str>, P: AsRef<str>>(
    references: &[R],
    predictions: &[P],
    use_stemmer: bool,
) -> Result<RougeBatch> {
    if references.len() != predictions.len() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "`{}` has {} texts but `{}` has {}; pass one reference per prediction",
                crate::words::role("references"),
                references.len(),
                crate::words::role("predictions"),
                predictions.len()
            ),
        });
    }
    check_lsum_work(
        references
            .iter()
            .zip(predictions)
            .map(|(r, p)| (r.as_ref(), p.as_ref())),
    )?;
    let mut out = RougeBatch::with_capacity(predictions.len());
    for (r, p) in references.iter().zip(predictions) {
        out.push(rouge_lsum(r.as_ref(), p.as_ref(), use_stemmer));
    }
    Ok(out)
}

/// ROUGE-Lsum of many predictions against one reference, as [`rouge_lsum`].
///
/// # Errors
/// As [`rouge_lsum_pairs`].
pub fn rouge_lsum_against<P: AsRef<str>>(reference: &str, predictions: &[P], use_stemmer: bool) -> Result<RougeBatch> {
    check_lsum_work(predictions.iter().map(|p| (reference, p.as_ref())))?;
    let mut out = RougeBatch::with_capacity(predictions.len());
    for p in predictions {
        out.push(rouge_lsum(reference, p.as_ref(), use_stemmer));
    }
    Ok(out)
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
                "`{}` has {} texts but `{}` has {}; pass one reference per prediction (or use \
                 rouge_l_against for a single reference)",
                crate::words::role("references"),
                references.len(),
                crate::words::role("predictions"),
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
