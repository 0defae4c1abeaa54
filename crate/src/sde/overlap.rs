//! How much subsets drawn from one pool share rows.
//!
//! Subsets drawn independently from a pool of `N` rows share `|S|/N` of their rows on average. Ten reference
//! subsets of 140 rows from a 144-row pool are nearly the same subset ten times: a rate or an F1 over them rests on
//! far fewer independent subsets than it counts. [`subset_overlap`] measures that, for a report to say it.

use serde::Serialize;

/// How much the subsets of one kind share rows: the mean, over every pair of them, of `|A ∩ B| / |S|`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SubsetOverlap {
    /// Rows in the pool the subsets were drawn from.
    pub pool: usize,
    pub subsets: usize,
    /// Mean pairwise shared fraction (0: disjoint, 1: identical); NaN with fewer than two subsets.
    #[serde(serialize_with = "crate::json::f64")]
    pub mean: f64,
    /// The largest pairwise shared fraction (NaN with fewer than two subsets).
    #[serde(serialize_with = "crate::json::f64")]
    pub max: f64,
    /// Distinct rows over all the subsets together.
    pub distinct_rows: usize,
}

/// [`SubsetOverlap`] of `sets`, drawn from a pool of `pool` rows. A pair's shared fraction is the number of rows
/// both hold over the size of the smaller one (repeated rows within a subset count once).
///
/// # Examples
/// ```
/// use lethe::sde::overlap::subset_overlap;
/// let o = subset_overlap(&[vec![0, 1, 2, 3], vec![3, 2, 9, 8]], 10);
/// assert_eq!((o.mean, o.max, o.distinct_rows), (0.5, 0.5, 6));
/// ```
pub fn subset_overlap(sets: &[Vec<usize>], pool: usize) -> SubsetOverlap {
    let sorted: Vec<Vec<usize>> = sets
        .iter()
        .map(|s| {
            let mut v = s.clone();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let (mut sum, mut max, mut pairs) = (0.0, f64::NAN, 0usize);
    for (i, a) in sorted.iter().enumerate() {
        for b in &sorted[i + 1..] {
            let f = shared(a, b) as f64 / a.len().min(b.len()).max(1) as f64;
            sum += f;
            max = if max.is_nan() { f } else { max.max(f) };
            pairs += 1;
        }
    }
    let mut all: Vec<usize> = sorted.iter().flatten().copied().collect();
    all.sort_unstable();
    all.dedup();
    SubsetOverlap {
        pool,
        subsets: sets.len(),
        mean: if pairs > 0 { sum / pairs as f64 } else { f64::NAN },
        max,
        distinct_rows: all.len(),
    }
}

/// Values two sorted, deduplicated lists share.
fn shared(a: &[usize], b: &[usize]) -> usize {
    let (mut x, mut y, mut n) = (0, 0, 0usize);
    while x < a.len() && y < b.len() {
        match a[x].cmp(&b[y]) {
            std::cmp::Ordering::Less => x += 1,
            std::cmp::Ordering::Greater => y += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                x += 1;
                y += 1;
            }
        }
    }
    n
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn counts_shared_rows() {
        let o = subset_overlap(&[vec![0, 1, 2, 3], vec![3, 2, 9, 8], vec![4, 5, 6, 7]], 10);
        // Pairs: {2,3} shared of 4 → 0.5; 0; 0.
        assert_eq!(
            (o.mean, o.max, o.distinct_rows, o.subsets, o.pool),
            (0.5 / 3.0, 0.5, 10, 3, 10)
        );
        let one = subset_overlap(&[vec![1, 2]], 5);
        assert!(one.mean.is_nan() && one.max.is_nan());
        assert_eq!(one.distinct_rows, 2);
        // Identical subsets (and repeated rows) share everything.
        assert_eq!(subset_overlap(&[vec![4, 4, 5], vec![5, 4]], 6).mean, 1.0);
        assert!(subset_overlap(&[], 3).mean.is_nan());
    }

    #[test]
    fn independent_draws_share_size_over_pool() {
        let sets = crate::sde::draw_subsets(&(0..144).collect::<Vec<_>>(), 40, 100, 7).unwrap();
        let m = subset_overlap(&sets, 144).mean;
        assert!((m - 100.0 / 144.0).abs() < 0.02, "{m}");
    }
}
