//! Histograms with `numpy.histogram` semantics and the Jensen–Shannon divergence between two samples' histograms,
//! as the SDE paper's `is_in_training` decision uses it.
//!
//! **Histogram.** `bins` equal-width bins over `[lo, hi]` (the data's range unless one is given; `lo == hi`
//! widens to `[lo − ½, hi + ½]`), with edges `np.linspace(lo, hi, bins + 1)`, i.e. `edgeᵢ = i·((hi − lo)/bins) + lo`
//! and the last edge exactly `hi`. Each bin is half-open `[edgeᵢ, edgeᵢ₊₁)` except the last, which is closed.
//! Bin indices are computed as numpy computes them, `⌊(x − lo)/(hi − lo) · bins⌋`, then corrected by one against
//! the stored edges, so a value exactly on an interior edge lands where numpy puts it.
//!
//! **JSD.** For probability vectors `P`, `Q` and `M = (P + Q)/2`,
//!
//! ```text
//! JSD(P ‖ Q) = ½ KL(P ‖ M) + ½ KL(Q ‖ M),   KL(P ‖ M) = Σ_{Pᵢ > 0} Pᵢ ln(Pᵢ / Mᵢ)
//! ```
//!
//! which is symmetric and lies in `[0, ln 2]` (in `[0, 1]` in base 2). `scipy.spatial.distance.jensenshannon`
//! returns its square root. For two samples `a`, `b`, both are binned on the same edges over the union range
//! `[min(a ∪ b), max(a ∪ b)]`, and `P = counts_a / |a|`, `Q = counts_b / |b|`. The SDE decision compares
//! `JSD(H_tar, H_IT)` with `JSD(H_tar, H_OOT)`, each computed on its own pair's union range (Lethe's default 30
//! bins are those of the golden decision cases).

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::numpy::sum as numpy_sum;

/// Default number of histogram bins for [`jsd`] (the value the SDE decision cases use).
pub const DEFAULT_JSD_BINS: usize = 30;

/// Most bins accepted (10⁷, 80 MB of edges): beyond that a request is a mistake, and failing cleanly beats running
/// out of memory.
pub const MAX_BINS: usize = 10_000_000;

/// Counts of a sample in equal-width bins, with the edges that define them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Histogram {
    /// `bins + 1` increasing edges (numpy's `linspace`).
    pub edges: Vec<f64>,
    /// Count per bin; the last bin includes its right edge.
    pub counts: Vec<u64>,
    /// Values outside an explicitly given range (numpy silently drops them; 0 when the range is the data's).
    pub outside: u64,
}

/// Logarithm base of a divergence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogBase {
    /// Nats: JSD in `[0, ln 2]` (scipy's default).
    #[default]
    Natural,
    /// Bits: JSD in `[0, 1]` (scipy's `base=2`).
    Two,
}

/// Jensen–Shannon divergence of two samples' histograms on shared edges.
#[derive(Debug, Clone, Serialize)]
pub struct JsdResult {
    /// `JSD(P ‖ Q)` in the requested base: in `[0, ln 2]` for natural log, `[0, 1]` for base 2.
    pub jsd: f64,
    /// `√JSD`, the Jensen–Shannon distance, `scipy.spatial.distance.jensenshannon(P, Q, base)`.
    pub jsd_sqrt: f64,
    /// Base of the logarithm.
    pub base: LogBase,
    /// The shared edges over `[min(a ∪ b), max(a ∪ b)]`.
    pub edges: Vec<f64>,
    /// Histogram counts of `a` and of `b` on `edges`.
    pub counts_a: Vec<u64>,
    pub counts_b: Vec<u64>,
}

/// Histogram of `x` in `bins` equal-width bins, as `numpy.histogram(x, bins, range)`.
///
/// With `range = None` the range is `[min x, max x]`; an empty `x` then uses `[0, 1]`, as numpy. With a range,
/// values outside it are not counted (reported in `outside`), and ±∞ values simply fall outside.
///
/// Deviation from numpy: a range whose width overflows (`hi − lo = ∞`, e.g. `[−1e308, 1e308]`) is an error; numpy
/// would build NaN edges and count nothing sensible.
///
/// # Errors
/// * [`Error::InvalidParameter`] if `bins` is 0 or above [`MAX_BINS`]; if `range` is reversed or not finite; if its width overflows; or
///   if the range is too narrow for `bins` distinct edges (numpy's "Too many bins for data range").
/// * [`Error::NonFinite`] naming `x` at a NaN, or at ±∞ when the range comes from the data (numpy: "autodetected
///   range ... is not finite").
///
/// # Examples
/// ```
/// let h = lethe::divergence::histogram(&[0.0, 0.1, 0.2, 0.5, 1.0], 2, None).unwrap();
/// assert_eq!(h.edges, vec![0.0, 0.5, 1.0]);
/// assert_eq!(h.counts, vec![3, 2]); // 0.5 opens the second bin; 1.0 closes the last
/// ```
pub fn histogram(x: &[f64], bins: usize, range: Option<(f64, f64)>) -> Result<Histogram> {
    check_bins(bins)?;
    if let Some(i) = x.iter().position(|v| v.is_nan()) {
        return Err(Error::NonFinite {
            input: "x".into(),
            value: f64::NAN,
            location: format!("position {i}"),
        });
    }
    let (lo, hi) = match range {
        Some((lo, hi)) => {
            if !(lo.is_finite() && hi.is_finite()) {
                return Err(Error::param("range", format!("[{lo}, {hi}]"), "finite bounds"));
            }
            if lo > hi {
                return Err(Error::param("range", format!("[{lo}, {hi}]"), "lo ≤ hi"));
            }
            (lo, hi)
        }
        None if x.is_empty() => (0.0, 1.0),
        None => {
            crate::check::finite("x", x)?;
            min_max(x)
        }
    };
    let edges = linspace_edges(lo, hi, bins)?;
    let (counts, outside) = count_into(x, &edges);
    Ok(Histogram { edges, counts, outside })
}

/// JSD (natural log) between the histograms of `a` and `b` on `bins` shared equal-width bins over
/// `[min(a ∪ b), max(a ∪ b)]`; see the module documentation. [`DEFAULT_JSD_BINS`] is the SDE default.
///
/// `jsd_sqrt` equals `scipy.spatial.distance.jensenshannon(counts_a / |a|, counts_b / |b|)`, computed with scipy's
/// operations (renormalisation, `rel_entr`, numpy's pairwise sums), and `jsd` is its square before the root.
/// Rounding can push the raw value a hair outside `[0, ln 2]`; it is clamped into the interval (scipy would return
/// NaN for a tiny negative).
///
/// # Errors
/// * [`Error::Empty`] if `a` or `b` is empty.
/// * [`Error::NonFinite`] naming `a` or `b` at a NaN or ±∞.
/// * [`Error::InvalidParameter`] if `bins` is 0 or above [`MAX_BINS`], or the union range cannot hold `bins`
///   distinct edges.
///
/// # Examples
/// ```
/// use lethe::divergence::{jsd, DEFAULT_JSD_BINS};
/// // Disjoint supports: the maximum, ln 2.
/// let r = jsd(&[0.0, 0.1, 0.2], &[5.0, 5.1], DEFAULT_JSD_BINS).unwrap();
/// assert!((r.jsd - std::f64::consts::LN_2).abs() < 1e-15);
/// // Same sample: 0.
/// assert_eq!(jsd(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], 10).unwrap().jsd, 0.0);
/// ```
pub fn jsd(a: &[f64], b: &[f64], bins: usize) -> Result<JsdResult> {
    jsd_with_base(a, b, bins, LogBase::Natural)
}

/// [`jsd`] in a chosen logarithm base (`LogBase::Two` gives bits, in `[0, 1]`).
///
/// # Errors
/// As [`jsd`].
///
/// # Examples
/// ```
/// use lethe::divergence::{jsd_with_base, LogBase};
/// let r = jsd_with_base(&[0.0, 0.0], &[1.0, 1.0], 2, LogBase::Two).unwrap();
/// assert!((r.jsd - 1.0).abs() < 1e-15);
/// ```
pub fn jsd_with_base(a: &[f64], b: &[f64], bins: usize, base: LogBase) -> Result<JsdResult> {
    for (name, s) in [("a", a), ("b", b)] {
        crate::check::sample(name, s)?;
    }
    check_bins(bins)?;
    let (lo_a, hi_a) = min_max(a);
    let (lo_b, hi_b) = min_max(b);
    let (lo, hi) = (lo_a.min(lo_b), hi_a.max(hi_b));
    let edges = linspace_edges(lo, hi, bins)?;
    let (counts_a, _) = count_into(a, &edges);
    let (counts_b, _) = count_into(b, &edges);
    let jsd = jensen_shannon_from_counts(&counts_a, &counts_b, base)?;
    Ok(JsdResult {
        jsd,
        jsd_sqrt: jsd.sqrt(),
        base,
        edges,
        counts_a,
        counts_b,
    })
}

/// JSD between two count vectors over the same bins, each normalised to a probability vector (`cᵢ / Σc`).
///
/// # Errors
/// * [`Error::ShapeMismatch`] if the lengths differ.
/// * [`Error::Empty`] if either vector is empty or all zero.
///
/// # Examples
/// ```
/// use lethe::divergence::{jensen_shannon_from_counts, LogBase};
/// let j = jensen_shannon_from_counts(&[5, 0], &[0, 4], LogBase::Natural).unwrap();
/// assert!((j - std::f64::consts::LN_2).abs() < 1e-15);
/// ```
pub fn jensen_shannon_from_counts(counts_a: &[u64], counts_b: &[u64], base: LogBase) -> Result<f64> {
    if counts_a.len() != counts_b.len() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "`counts_a` has {} bins but `counts_b` has {}; both must be counted on the same edges",
                counts_a.len(),
                counts_b.len()
            ),
        });
    }
    let p = probabilities("counts_a", counts_a)?;
    let q = probabilities("counts_b", counts_b)?;
    // scipy.spatial.distance.jensenshannon, operation for operation: renormalise, rel_entr against the midpoint,
    // numpy sums, optional base change, halve.
    let (sp, sq) = (numpy_sum(&p), numpy_sum(&q));
    let p: Vec<f64> = p.iter().map(|v| v / sp).collect();
    let q: Vec<f64> = q.iter().map(|v| v / sq).collect();
    let m: Vec<f64> = p.iter().zip(&q).map(|(a, b)| (a + b) / 2.0).collect();
    let left: Vec<f64> = p.iter().zip(&m).map(|(&x, &y)| rel_entr(x, y)).collect();
    let right: Vec<f64> = q.iter().zip(&m).map(|(&x, &y)| rel_entr(x, y)).collect();
    let mut js = numpy_sum(&left) + numpy_sum(&right);
    let upper = match base {
        LogBase::Natural => std::f64::consts::LN_2,
        LogBase::Two => {
            js /= std::f64::consts::LN_2;
            1.0
        }
    };
    Ok((js / 2.0).clamp(0.0, upper))
}

fn check_bins(bins: usize) -> Result<()> {
    if bins == 0 || bins > MAX_BINS {
        return Err(Error::param(
            "bins",
            bins,
            format!("a number of bins between 1 and {MAX_BINS}"),
        ));
    }
    Ok(())
}

/// `cᵢ / Σc` as floats (the golden `p`, `q`).
fn probabilities(name: &str, counts: &[u64]) -> Result<Vec<f64>> {
    // u128: a caller's counts may sum past u64 without any one of them being absurd.
    let total: u128 = counts.iter().map(|&c| u128::from(c)).sum();
    if total == 0 {
        return Err(Error::Empty {
            input: name.into(),
            fix: "a histogram needs at least one counted value to be a probability distribution".into(),
        });
    }
    let t = total as f64;
    Ok(counts.iter().map(|&c| c as f64 / t).collect())
}

/// `scipy.special.rel_entr` as scipy 1.17.1 evaluates it (xsf): `x·ln(x/y)`, through `log1p((x − y)/y)` when
/// `x/y ∈ (½, 2)` for accuracy near equality, and with the logarithms split when `x/y` would underflow.
fn rel_entr(x: f64, y: f64) -> f64 {
    if x <= 0.0 || y <= 0.0 {
        return if x == 0.0 && y >= 0.0 { 0.0 } else { f64::INFINITY };
    }
    let ratio = x / y;
    if 0.5 < ratio && ratio < 2.0 {
        x * ((x - y) / y).ln_1p()
    } else if f64::MIN_POSITIVE < ratio && ratio < f64::INFINITY {
        x * ratio.ln()
    } else {
        x * (x.ln() - y.ln())
    }
}

/// Min and max of a non-empty, NaN-free slice.
fn min_max(x: &[f64]) -> (f64, f64) {
    x.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
        (lo.min(v), hi.max(v))
    })
}

/// numpy's `_get_outer_edges` widening plus `np.linspace(lo, hi, bins + 1)`, with its "too many bins" check.
fn linspace_edges(lo: f64, hi: f64, bins: usize) -> Result<Vec<f64>> {
    let (lo, hi) = if lo == hi { (lo - 0.5, hi + 0.5) } else { (lo, hi) };
    let delta = hi - lo;
    if !delta.is_finite() {
        return Err(Error::param(
            "range",
            format!("[{lo}, {hi}]"),
            "a range whose width hi − lo is representable (rescale the data)",
        ));
    }
    let div = bins as f64;
    let step = delta / div;
    let mut edges: Vec<f64> = if step == 0.0 {
        // numpy's subnormal branch (gh-5437): y = i / div · delta.
        (0..=bins).map(|i| i as f64 / div * delta + lo).collect()
    } else {
        (0..=bins).map(|i| i as f64 * step + lo).collect()
    };
    edges[bins] = hi;
    if edges.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::param(
            "bins",
            bins,
            format!("fewer bins: the range [{lo}, {hi}] is too narrow for {bins} finite-sized bins"),
        ));
    }
    Ok(edges)
}

/// numpy.histogram's uniform-bin fast path: index from arithmetic, then a one-step correction against the edges.
fn count_into(x: &[f64], edges: &[f64]) -> (Vec<u64>, u64) {
    let bins = edges.len() - 1;
    let (first, last) = (edges[0], edges[bins]);
    let norm_denom = last - first;
    let norm_numerator = bins as f64;
    let mut counts = vec![0u64; bins];
    let mut outside = 0;
    for &v in x {
        if !(v >= first && v <= last) {
            outside += 1;
            continue;
        }
        // (v − first)/(last − first) ≤ 1 by monotone rounding, so the truncated index is in 0..=bins.
        let mut i = ((v - first) / norm_denom * norm_numerator) as usize;
        if i == bins {
            i -= 1;
        }
        if v < edges[i] {
            i -= 1;
        } else if v >= edges[i + 1] && i != bins - 1 {
            i += 1;
        }
        counts[i] += 1;
    }
    (counts, outside)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_sample_widens_by_half() {
        let h = histogram(&[2.0; 4], 1, None).expect("valid");
        assert_eq!(h.edges, vec![1.5, 2.5]);
        assert_eq!(h.counts, vec![4]);
    }

    #[test]
    fn explicit_range_drops_outside_values() {
        let h = histogram(&[-1.0, 0.0, 0.5, 1.0, 2.0, f64::INFINITY], 2, Some((0.0, 1.0))).expect("valid");
        assert_eq!(h.counts, vec![1, 2]);
        assert_eq!(h.outside, 3);
    }

    #[test]
    fn empty_uses_unit_range() {
        let h = histogram(&[], 4, None).expect("numpy allows empty");
        assert_eq!(h.edges, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        assert_eq!(h.counts, vec![0; 4]);
    }

    #[test]
    fn bad_inputs_are_errors() {
        assert!(histogram(&[1.0], 0, None).is_err());
        assert!(histogram(&[1.0], usize::MAX, None).is_err());
        assert!(histogram(&[f64::NAN], 3, None).is_err());
        assert!(histogram(&[f64::INFINITY], 3, None).is_err());
        assert!(histogram(&[1.0], 3, Some((1.0, 0.0))).is_err());
        assert!(histogram(&[-1e308, 1e308], 3, None).is_err());
        // 1 and its successor cannot hold 4 distinct edges.
        let next = f64::from_bits(1f64.to_bits() + 1);
        assert!(histogram(&[1.0, next], 4, None).is_err());
        assert!(jsd(&[], &[1.0], 3).is_err());
        assert!(jsd(&[1.0], &[f64::NEG_INFINITY], 3).is_err());
        assert!(jensen_shannon_from_counts(&[1, 2], &[1], LogBase::Natural).is_err());
        assert!(jensen_shannon_from_counts(&[0, 0], &[1, 1], LogBase::Natural).is_err());
    }
}
