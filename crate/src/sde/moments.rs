//! Exact mean and variance of a subset's split-half shuffle distribution.
//!
//! Every shuffled value is `HSIC(S1, S2[p]) = Γ(p) / (h − 1)²` with `Γ(p) = Σ_ij A_ij B_{p(i) p(j)}`, `A = Kc` (the
//! centred kernel of S1) and `B = L` (the kernel of S2). Over a uniform random permutation `p`, `Γ` is a quadratic
//! assignment statistic, whose moments are exact finite sums (Mantel 1967; Hubert & Schultz 1976):
//!
//! * **Mean.** `E[B_{p(i)p(j)}]` is the mean diagonal entry of `B` when `i = j` and the mean off-diagonal entry
//!   otherwise. Since the rows of `Kc` sum to 0, `E[Γ] = tr(Kc) · (B̄_diag − B̄_off)`; for the RBF kernel
//!   (`B_ii = 1`, `tr Kc = h(1 − K̄)`): `E[HSIC] = h (1 − K̄₁)(1 − L̄₂,off) / (h − 1)²`, with `K̄₁` the mean of all
//!   entries of S1's kernel and `L̄₂,off` the mean off-diagonal entry of S2's. There is **no cross-half term**: the
//!   mean depends only on each half's own kernel spread.
//! * **Variance.** `E[Γ²] = Σ_π E_A(π) E_B(π) / (h)_{|π|}` over the 15 set partitions `π` of the index positions
//!   `(i, j, k, l)` of `A_ij A_kl`, where `E_A(π)` sums `A_ij A_kl` over index tuples whose equalities are exactly
//!   those of `π`, and `(h)_m = h (h − 1) ⋯ (h − m + 1)`: a permutation sends a tuple with `m` distinct indices to a
//!   uniformly random tuple of `m` distinct indices. The exact-pattern sums come from the "free" sums `F(σ)` (tuples
//!   equal at least as `σ` requires, each an O(h²) expression in row sums, diagonals and squared entries) by
//!   Möbius inversion on the partition lattice: `E(π) = Σ_{σ ≥ π} μ(π, σ) F(σ)`.
//!
//! Gretton et al. (2007) give *asymptotic* moments of HSIC under independence; these are the exact moments of
//! the permutation distribution the SDE shuffles sample from, for any `h ≥ 2`.

use serde::Serialize;

pub use crate::kernel::MatrixSums;

/// The "free" sum `F(π)` of `A_ij A_kl` over tuples equal at least as the partition `π` requires (`π` as a
/// restricted-growth string over the positions i, j, k, l).
fn free(m: &MatrixSums, pi: [u8; 4]) -> f64 {
    let (s, t) = (m.total, m.trace);
    match pi {
        [0, 1, 2, 3] => s * s,
        [0, 0, 1, 2] | [0, 1, 2, 2] => t * s,
        [0, 1, 0, 2] => m.row_sq,
        [0, 1, 2, 0] | [0, 1, 1, 2] => m.row_col,
        [0, 1, 2, 1] => m.col_sq,
        [0, 0, 1, 1] => t * t,
        [0, 1, 0, 1] => m.sq,
        [0, 1, 1, 0] => m.sq_transpose,
        [0, 0, 0, 1] | [0, 1, 0, 0] => m.diag_row,
        [0, 0, 1, 0] | [0, 1, 1, 1] => m.diag_col,
        [0, 0, 0, 0] => m.diag_sq,
        _ => unreachable!("only the 15 canonical partitions of 4 positions are passed"),
    }
}

/// Exact moments of the shuffle distribution `{HSIC(S1, S2[p])}` over all `h!` permutations.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ShuffleMoments {
    pub mean: f64,
    pub variance: f64,
    pub sd: f64,
}

/// The 15 set partitions of 4 positions, as restricted-growth strings.
fn partitions() -> Vec<[u8; 4]> {
    let mut out = Vec::with_capacity(15);
    for b in 0..=1u8 {
        for c in 0..=b + 1 {
            let m2 = b.max(c);
            for d in 0..=m2 + 1 {
                out.push([0, b, c, d]);
            }
        }
    }
    out
}

fn blocks(p: [u8; 4]) -> usize {
    usize::from(p.iter().copied().max().unwrap_or(0)) + 1
}

/// `σ` is coarser than or equal to `π`: positions together in `π` are together in `σ`.
fn coarser(sigma: [u8; 4], pi: [u8; 4]) -> bool {
    (0..4).all(|x| (0..4).all(|y| pi[x] != pi[y] || sigma[x] == sigma[y]))
}

/// Möbius function of the partition lattice, `μ(π, σ)` for `π ≤ σ`: the product over blocks of `σ` of
/// `(−1)^{k−1} (k−1)!`, `k` the number of blocks of `π` merged into it.
fn mobius(pi: [u8; 4], sigma: [u8; 4]) -> f64 {
    let mut mu = 1.0;
    for b in 0..blocks(sigma) as u8 {
        let mut merged: Vec<u8> = (0..4).filter(|&x| sigma[x] == b).map(|x| pi[x]).collect();
        merged.sort_unstable();
        merged.dedup();
        let k = merged.len();
        let fact: f64 = (1..k).map(|v| v as f64).product();
        mu *= if k % 2 == 1 { fact } else { -fact };
    }
    mu
}

fn falling(h: usize, m: usize) -> f64 {
    (0..m).map(|i| h as f64 - i as f64).product()
}

/// Exact mean and variance of `Γ(p) = Σ_ij A_ij B_{p(i)p(j)}` over uniform permutations.
pub fn qap_moments(a: &MatrixSums, b: &MatrixSums) -> (f64, f64) {
    let h = a.h;
    let hf = h as f64;
    // E[Γ]: pattern {i}{j} (i ≠ j) and {ij}.
    let mean = a.trace * b.trace / hf
        + if h > 1 {
            (a.total - a.trace) * (b.total - b.trace) / (hf * (hf - 1.0))
        } else {
            0.0
        };
    let parts = partitions();
    let exact = |s: &MatrixSums, pi: [u8; 4]| -> f64 {
        parts
            .iter()
            .filter(|&&sg| coarser(sg, pi))
            .map(|&sg| mobius(pi, sg) * free(s, sg))
            .sum()
    };
    let mut second = 0.0;
    for &pi in &parts {
        let m = blocks(pi);
        if m > h {
            continue;
        }
        second += exact(a, pi) * exact(b, pi) / falling(h, m);
    }
    (mean, (second - mean * mean).max(0.0))
}

/// Exact moments of the split-half shuffle distribution from the sums of `Kc` (S1) and `L` (S2).
pub fn shuffle_moments(kc: &MatrixSums, l: &MatrixSums) -> ShuffleMoments {
    let norm = ((kc.h.max(2) - 1) as f64).powi(2);
    let (mean, var) = qap_moments(kc, l);
    let variance = var / (norm * norm);
    ShuffleMoments {
        mean: mean / norm,
        variance,
        sd: variance.sqrt(),
    }
}

/// The closed-form mean alone, from the kernels' means (no centring, no shuffles):
/// `h (1 − K̄₁)(1 − L̄₂,off) / (h − 1)²` for RBF kernels (unit diagonal).
pub fn exact_mean_rbf(h: usize, k_mean_all: f64, l_mean_offdiag: f64) -> f64 {
    let hf = h as f64;
    hf * (1.0 - k_mean_all) * (1.0 - l_mean_offdiag) / ((hf - 1.0) * (hf - 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> f64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    fn next_perm(p: &mut [usize]) -> bool {
        let n = p.len();
        let Some(i) = (0..n.saturating_sub(1)).rev().find(|&i| p[i] < p[i + 1]) else {
            return false;
        };
        let j = (i + 1..n).rev().find(|&j| p[j] > p[i]).unwrap_or(i);
        p.swap(i, j);
        p[i + 1..].reverse();
        true
    }

    #[test]
    fn symmetric_sums_equal_general_sums_on_symmetric_matrices() {
        let mut s = 7u64;
        let h = 9;
        let mut a = vec![0.0; h * h];
        for i in 0..h {
            for j in i..h {
                let v = rng(&mut s) - 0.3;
                a[i * h + j] = v;
                a[j * h + i] = v;
            }
        }
        let (g, y) = (MatrixSums::of(&a, h), MatrixSums::of_symmetric(&a, h));
        for (p, q) in [
            (g.total, y.total),
            (g.row_sq, y.row_sq),
            (g.col_sq, y.col_sq),
            (g.row_col, y.row_col),
            (g.diag_row, y.diag_row),
            (g.diag_col, y.diag_col),
            (g.sq, y.sq),
            (g.sq_transpose, y.sq_transpose),
            (g.trace, y.trace),
            (g.diag_sq, y.diag_sq),
        ] {
            assert!((p - q).abs() < 1e-12, "{p} vs {q}");
        }
    }

    #[test]
    fn there_are_fifteen_partitions() {
        let p = partitions();
        assert_eq!(p.len(), 15);
        let mut q = p.clone();
        q.sort_unstable();
        q.dedup();
        assert_eq!(q.len(), 15);
    }

    /// Against enumeration of all h! permutations, for general (non-symmetric) matrices and h = 1..=7.
    #[test]
    fn qap_moments_match_full_enumeration() {
        let mut s = 42u64;
        for h in 1..=7 {
            for _ in 0..3 {
                let a: Vec<f64> = (0..h * h).map(|_| rng(&mut s) * 2.0 - 0.7).collect();
                let b: Vec<f64> = (0..h * h).map(|_| rng(&mut s) * 3.0 - 1.0).collect();
                let (mut sum, mut sum2, mut count) = (0.0, 0.0, 0.0);
                let mut p: Vec<usize> = (0..h).collect();
                loop {
                    let g: f64 = (0..h)
                        .flat_map(|i| (0..h).map(move |j| (i, j)))
                        .map(|(i, j)| a[i * h + j] * b[p[i] * h + p[j]])
                        .sum();
                    sum += g;
                    sum2 += g * g;
                    count += 1.0;
                    if !next_perm(&mut p) {
                        break;
                    }
                }
                let (mean, var) = qap_moments(&MatrixSums::of(&a, h), &MatrixSums::of(&b, h));
                let (em, ev) = (sum / count, sum2 / count - (sum / count).powi(2));
                assert!(
                    (mean - em).abs() <= 1e-10 * (1.0 + em.abs()),
                    "h={h}: mean {mean} vs {em}"
                );
                assert!((var - ev).abs() <= 1e-9 * (1.0 + ev.abs()), "h={h}: var {var} vs {ev}");
            }
        }
    }
}
