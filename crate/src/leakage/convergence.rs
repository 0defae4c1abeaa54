//! How the leakage bounds tighten as samples accumulate: `M_bin` and `M_gen` at one threshold on the first `n`
//! samples, for a log-spaced sequence of `n`.

use serde::Serialize;

use super::{Sidedness, m_bin, m_gen};
use crate::error::Result;

/// The bounds on the first `n` samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Convergence {
    pub n: usize,
    /// Fraction of the first `n` scores above `x0`.
    pub rate: f64,
    /// Clopper–Pearson interval on `P(X > x0)` ([`m_bin`]; lower 0 when one-sided).
    pub lower: f64,
    pub upper: f64,
    /// DKW's `M_gen(x0)` ([`m_gen`]) on the same samples.
    pub dkw_upper: f64,
}

/// Sample sizes of a convergence curve: about 40 points, log-spaced from 10 (or `n` when smaller) to `n`.
///
/// # Examples
/// ```
/// let s = lethe::leakage::convergence::prefix_sizes(2000);
/// assert_eq!((s[0], *s.last().unwrap()), (10, 2000));
/// assert_eq!(lethe::leakage::convergence::prefix_sizes(3), vec![3]);
/// ```
pub fn prefix_sizes(n: usize) -> Vec<usize> {
    let lo = n.min(10) as f64;
    let steps = 40;
    let mut out: Vec<usize> = (0..=steps)
        .map(|j| (lo * (n as f64 / lo).powf(j as f64 / steps as f64)).round() as usize)
        .map(|v| v.clamp(1, n))
        .collect();
    out.dedup();
    out
}

/// `M_bin` of the leak event `X > x0` and `M_gen(x0)` on the first `n` scores, for each `n` of
/// [`prefix_sizes`]`(scores.len())`: the last entry is the bounds on all the scores.
///
/// # Errors
/// As [`m_bin`] and [`m_gen`]: no scores, a non-finite score or `x0`, `alpha ∉ (0, 1)`.
///
/// # Examples
/// ```
/// use lethe::leakage::{Sidedness, convergence::convergence};
/// let scores: Vec<f64> = (0..100).map(|i| f64::from(i % 10) / 10.0).collect();
/// let c = convergence(&scores, 0.5, 0.05, Sidedness::TwoSided).unwrap();
/// let (first, last) = (c[0], c[c.len() - 1]);
/// assert_eq!((first.n, last.n, last.rate), (10, 100, 0.4));
/// assert!(last.upper - last.lower < first.upper - first.lower);
/// ```
pub fn convergence(scores: &[f64], x0: f64, alpha: f64, sidedness: Sidedness) -> Result<Vec<Convergence>> {
    crate::check::sample("scores", scores)?;
    let mut out = Vec::new();
    for n in prefix_sizes(scores.len()) {
        let head = &scores[..n];
        let leaks = head.iter().filter(|&&x| x > x0).count() as u64;
        let b = m_bin(leaks, n as u64, alpha, sidedness)?;
        let g = m_gen(head, &[x0], alpha, sidedness)?;
        out.push(Convergence {
            n,
            rate: b.leak_rate,
            lower: b.lower,
            upper: b.upper,
            dkw_upper: g.upper[0],
        });
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn prefix_sizes_grow_to_n() {
        for n in [1, 2, 9, 10, 11, 57, 200, 20_000] {
            let s = prefix_sizes(n);
            assert_eq!(s[0], n.min(10));
            assert_eq!(*s.last().unwrap(), n);
            assert!(s.windows(2).all(|w| w[0] < w[1]), "{n}: {s:?}");
            assert!(s.len() <= 41);
        }
    }

    #[test]
    fn the_last_point_is_the_bounds_on_all_scores() {
        let scores: Vec<f64> = (0..500).map(|i| f64::from((i * 37) % 101) / 100.0).collect();
        for side in [Sidedness::TwoSided, Sidedness::OneSided] {
            let c = convergence(&scores, 0.7, 0.1, side).unwrap();
            let last = c[c.len() - 1];
            let b = m_bin(scores.iter().filter(|&&x| x > 0.7).count() as u64, 500, 0.1, side).unwrap();
            assert_eq!((last.rate, last.lower, last.upper), (b.leak_rate, b.lower, b.upper));
            assert_eq!(last.dkw_upper, m_gen(&scores, &[0.7], 0.1, side).unwrap().upper[0]);
        }
        assert!(convergence(&[], 0.5, 0.05, Sidedness::TwoSided).is_err());
        assert!(convergence(&scores, 0.5, 0.0, Sidedness::TwoSided).is_err());
    }
}
