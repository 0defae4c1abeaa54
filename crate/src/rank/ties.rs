//! Which values tie, and the signed-rank null with the ties of the differences accounted for: what a table of
//! ranks shows beside the tests' results (the teaching page's rank topic).

use crate::error::Result;
use crate::rank::{NullDistribution, rank_with_ties, tie_correction_term};
use crate::wilcoxon::{self, SignedRankTable};

/// The tie group of each value (`None` for a value equal to no other), groups numbered 0, 1, … in ascending order
/// of value. Values tie when they compare equal (`-0.0` ties with `0.0`; NaN ties with nothing).
///
/// # Examples
/// ```
/// let g = lethe::rank::ties::tie_groups(&[2.0, 1.0, 2.0, 0.5, 0.5, 3.0]);
/// assert_eq!(g, vec![Some(1), None, Some(1), Some(0), Some(0), None]);
/// ```
pub fn tie_groups(values: &[f64]) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![None; values.len()];
    let mut group = 0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && values[order[end]] == values[order[start]] {
            end += 1;
        }
        if end - start > 1 {
            for &i in &order[start..end] {
                out[i] = Some(group);
            }
            group += 1;
        }
        start = end;
    }
    out
}

/// The exact no-ties null of `T⁺` for the non-zero differences of `table`, with the normal approximation
/// corrected for the ties among their absolute values (as the asymptotic method uses it); `None` when every
/// difference is 0.
///
/// # Errors
/// As [`wilcoxon::null_distribution`] (too many differences to tabulate).
///
/// # Examples
/// ```
/// use lethe::wilcoxon::{signed_ranks, ZeroMethod};
/// let t = signed_ranks(&[-1.0, 0.0, 3.0, 3.0], None, ZeroMethod::Wilcox).unwrap();
/// let null = lethe::rank::ties::signed_rank_null(&t).unwrap().unwrap();
/// assert_eq!(null.pmf.len(), 7); // three non-zero differences: T⁺ = 0..=6
/// ```
pub fn signed_rank_null(table: &SignedRankTable) -> Result<Option<NullDistribution>> {
    let nonzero: Vec<f64> = table
        .differences
        .iter()
        .filter(|&&d| d != 0.0)
        .map(|d| d.abs())
        .collect();
    if nonzero.is_empty() {
        return Ok(None);
    }
    let tie_term = tie_correction_term(&rank_with_ties(&nonzero)?.tie_counts);
    Ok(Some(wilcoxon::null_distribution(nonzero.len(), tie_term)?))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::wilcoxon::{ZeroMethod, signed_ranks};

    #[test]
    fn tied_values_share_a_group_numbered_by_value() {
        let v = [0.5, -0.0, 0.0, 2.0, 0.5, 0.5, 7.0, f64::NAN, f64::NAN];
        let g = tie_groups(&v);
        assert_eq!(
            g,
            vec![Some(1), Some(0), Some(0), None, Some(1), Some(1), None, None, None]
        );
        assert!(tie_groups(&[]).is_empty());
        assert_eq!(tie_groups(&[1.0, 2.0]), vec![None, None]);
    }

    #[test]
    fn signed_rank_null_corrects_for_ties_of_the_nonzero_differences() {
        // |d| = 1, 2, 2 (one tie group of 2) and a zero, which is dropped.
        let t = signed_ranks(&[1.0, -2.0, 2.0, 0.0], None, ZeroMethod::Wilcox).unwrap();
        let null = signed_rank_null(&t).unwrap().unwrap();
        assert_eq!(null, wilcoxon::null_distribution(3, 6.0).unwrap());
        assert!(null.sd < wilcoxon::null_distribution(3, 0.0).unwrap().sd);
        let zeros = signed_ranks(&[1.0, 2.0], Some(&[1.0, 2.0]), ZeroMethod::Wilcox).unwrap();
        assert_eq!(signed_rank_null(&zeros).unwrap(), None);
    }
}
