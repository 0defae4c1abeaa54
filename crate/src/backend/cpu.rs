//! The CPU backend: the reference every other backend is tested against.
//!
//! The permutation loop (docs/performance.md) uses the symmetry of both kernels,
//! `Σ_ij Kc_ij L_{p_i p_j} = Σ_i Kc_ii L_{p_i p_i} + 2 Σ_{i<j} Kc_ij L_{p_i p_j}`, walks the upper triangle once per
//! group of [`GROUP`] shuffles (one `Kc` load serves all of them), sums each row in the storage type and the totals
//! in f64.

use super::{Backend, BackendInfo, PairStats, Precision, PreparedPair, check_perms};
use crate::data::{Columns, Scalar};
use crate::error::Result;
use crate::kernel::{self, Bandwidth, MatrixSums, Real};

/// Shuffles scored per pass over the upper triangle.
const GROUP: usize = 8; // the accumulators in `permuted_sums` are written out for exactly 8

/// Kernels of one pair in storage type `T`.
#[derive(Clone, Debug)]
pub struct Pair<T> {
    n: usize,
    kc: Vec<T>,
    l: Vec<T>,
    stats: PairStats,
}

/// A prepared pair in the precision the backend was created with.
#[derive(Clone, Debug)]
pub enum CpuPair {
    F64(Pair<f64>),
    F32(Pair<f32>),
}

impl PreparedPair for CpuPair {
    fn stats(&self) -> PairStats {
        match self {
            CpuPair::F64(p) => p.stats,
            CpuPair::F32(p) => p.stats,
        }
    }
}

/// CPU backend in f64 (reference, default) or f32 storage.
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuBackend {
    precision: Precision,
}

impl CpuBackend {
    pub fn new(precision: Precision) -> Self {
        Self { precision }
    }
}

fn prepare_t<S: Scalar, T: Real>(
    x: &mut dyn Columns<S>,
    y: &mut dyn Columns<S>,
    bw_x: Bandwidth,
    bw_y: Bandwidth,
) -> Result<Pair<T>> {
    let kx = kernel::rbf_columns::<S, T>(x, bw_x)?;
    let ly = kernel::rbf_columns::<S, T>(y, bw_y)?;
    let n = kx.n;
    let mut kc = kx.values;
    kernel::center_kernel_in_place(&mut kc, n, &kx.row_means);
    let stats = PairStats {
        n,
        x: kx.stats,
        y: ly.stats,
        kc_sums: MatrixSums::of_symmetric(&kc, n),
        l_sums: MatrixSums::of_symmetric(&ly.values, n),
    };
    Ok(Pair {
        n,
        kc,
        l: ly.values,
        stats,
    })
}

impl Backend for CpuBackend {
    type Pair = CpuPair;

    fn info(&self) -> BackendInfo {
        BackendInfo {
            name: "cpu".into(),
            precision: self.precision,
            device: std::env::consts::ARCH.into(),
        }
    }

    async fn prepare_columns<S: Scalar>(
        &mut self,
        x: &mut dyn Columns<S>,
        y: &mut dyn Columns<S>,
        bw_x: Bandwidth,
        bw_y: Bandwidth,
    ) -> Result<CpuPair> {
        Ok(match self.precision {
            Precision::F64 => CpuPair::F64(prepare_t(x, y, bw_x, bw_y)?),
            Precision::F32 => CpuPair::F32(prepare_t(x, y, bw_x, bw_y)?),
        })
    }

    async fn score(&mut self, pair: &CpuPair, perms: &[u32], out: &mut [f64]) -> Result<()> {
        match pair {
            CpuPair::F64(p) => score_t(p, perms, out),
            CpuPair::F32(p) => score_t(p, perms, out),
        }
    }
}

fn score_t<T: Real + Row8>(p: &Pair<T>, perms: &[u32], out: &mut [f64]) -> Result<()> {
    let n = p.n;
    check_perms(perms, n, out.len())?;
    let norm = ((n - 1) * (n - 1)) as f64;
    for (group, res) in perms.chunks(GROUP * n).zip(out.chunks_mut(GROUP)) {
        let totals = if n <= 1 << 16 {
            permuted_sums::<T, u16>(&p.kc, &p.l, n, group)
        } else {
            permuted_sums::<T, u32>(&p.kc, &p.l, n, group)
        };
        for (r, t) in res.iter_mut().zip(totals) {
            *r = t / norm;
        }
    }
    Ok(())
}

/// `Σ_ij kc_ij l_{p(i)p(j)}` for up to [`GROUP`] permutations at once (`perms` holds whole permutations whose
/// entries are all `< n`, checked by the caller). The group's indices are first interleaved so that the
/// [`GROUP`] indices of column `j` are contiguous (one cache line serves all shuffles), and each shuffle's row of
/// `l` for row `i` is located once per row.
fn permuted_sums<T: Real + Row8, I: Index>(kc: &[T], l: &[T], n: usize, perms: &[u32]) -> [f64; GROUP] {
    let count = perms.len() / n;
    // idx[j * GROUP + s] = p_s(j); unused slots repeat shuffle 0 (computed, then ignored).
    let mut idx = vec![I::default(); n * GROUP];
    for (j, slot) in idx.chunks_exact_mut(GROUP).enumerate() {
        for (s, v) in slot.iter_mut().enumerate() {
            *v = I::new(perms[(if s < count { s } else { 0 }) * n + j]);
        }
    }
    let (cols, _) = idx.as_chunks::<GROUP>();
    let mut totals = [0f64; GROUP];
    for (i, here) in cols.iter().enumerate() {
        let kc_row = &kc[i * n..(i + 1) * n];
        // Row p_s(i) of l, for each shuffle s (p_s(i) < n, checked in `check_perms`).
        let rows: [&[T]; GROUP] = std::array::from_fn(|s| &l[here[s].at() * n..(here[s].at() + 1) * n]);
        let acc = T::row8(&kc_row[i + 1..], &cols[i + 1..], &rows);
        let kd = kc_row[i].to_f64();
        for s in 0..count {
            totals[s] += 2.0 * acc[s].to_f64() + kd * rows[s][here[s].at()].to_f64();
        }
    }
    totals
}

/// The innermost loop: `acc_s = Σ_j k_j · rows_s[ix_j[s]]` for the [`GROUP`] shuffles `s`, each accumulated in
/// order of `j` with a multiply then an add (no FMA), so every implementation gives the same bits.
trait Row8: Real {
    fn row8<I: Index>(k: &[Self], cols: &[[I; GROUP]], rows: &[&[Self]; GROUP]) -> [Self; GROUP];
}

/// Eight named accumulators (not an array) so they stay in registers.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[inline(always)]
fn row8_scalar<T: Real, I: Index>(k: &[T], cols: &[[I; GROUP]], rows: &[&[T]; GROUP]) -> [T; GROUP] {
    let z = T::ZERO;
    let (mut a0, mut a1, mut a2, mut a3, mut a4, mut a5, mut a6, mut a7) = (z, z, z, z, z, z, z, z);
    let p: [*const T; GROUP] = std::array::from_fn(|s| rows[s].as_ptr());
    for (&k, ix) in k.iter().zip(cols) {
        // SAFETY: every index is < n (checked in `check_perms`) and each `rows[s]` has n entries. Bounds
        // checks here cost ~2x in this innermost loop.
        unsafe {
            a0 += k * ix[0].load(p[0]);
            a1 += k * ix[1].load(p[1]);
            a2 += k * ix[2].load(p[2]);
            a3 += k * ix[3].load(p[3]);
            a4 += k * ix[4].load(p[4]);
            a5 += k * ix[5].load(p[5]);
            a6 += k * ix[6].load(p[6]);
            a7 += k * ix[7].load(p[7]);
        }
    }
    [a0, a1, a2, a3, a4, a5, a6, a7]
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
impl Row8 for f32 {
    #[inline(always)]
    fn row8<I: Index>(k: &[f32], cols: &[[I; GROUP]], rows: &[&[f32]; GROUP]) -> [f32; GROUP] {
        row8_scalar(k, cols, rows)
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
impl Row8 for f64 {
    #[inline(always)]
    fn row8<I: Index>(k: &[f64], cols: &[[I; GROUP]], rows: &[&[f64]; GROUP]) -> [f64; GROUP] {
        row8_scalar(k, cols, rows)
    }
}

/// wasm simd128: the eight accumulators are lanes of two f32x4 (four f64x2); the gathered values are loaded into
/// lanes and multiplied and added as vectors. Lane s computes `acc_s + k·g_s` as the scalar loop does. (f64:
/// ~14% faster than scalar in V8; f32: the same speed, kept for one code shape. Pairing rows to share the index
/// loads was measured ~10% slower: 16 row pointers no longer fit V8's registers.)
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm_row8 {
    use core::arch::wasm32::*;

    use super::{GROUP, Index, Row8};

    impl Row8 for f32 {
        #[inline(always)]
        fn row8<I: Index>(k: &[f32], cols: &[[I; GROUP]], rows: &[&[f32]; GROUP]) -> [f32; GROUP] {
            let p: [*const f32; GROUP] = std::array::from_fn(|s| rows[s].as_ptr());
            let (mut a, mut b) = (f32x4_splat(0.0), f32x4_splat(0.0));
            for (&k, ix) in k.iter().zip(cols) {
                let kv = f32x4_splat(k);
                // SAFETY: every index is < n (checked in `check_perms`) and each row has n entries.
                let (g0, g1) = unsafe {
                    (
                        f32x4(ix[0].load(p[0]), ix[1].load(p[1]), ix[2].load(p[2]), ix[3].load(p[3])),
                        f32x4(ix[4].load(p[4]), ix[5].load(p[5]), ix[6].load(p[6]), ix[7].load(p[7])),
                    )
                };
                a = f32x4_add(a, f32x4_mul(kv, g0));
                b = f32x4_add(b, f32x4_mul(kv, g1));
            }
            [
                f32x4_extract_lane::<0>(a),
                f32x4_extract_lane::<1>(a),
                f32x4_extract_lane::<2>(a),
                f32x4_extract_lane::<3>(a),
                f32x4_extract_lane::<0>(b),
                f32x4_extract_lane::<1>(b),
                f32x4_extract_lane::<2>(b),
                f32x4_extract_lane::<3>(b),
            ]
        }
    }

    impl Row8 for f64 {
        #[inline(always)]
        fn row8<I: Index>(k: &[f64], cols: &[[I; GROUP]], rows: &[&[f64]; GROUP]) -> [f64; GROUP] {
            let p: [*const f64; GROUP] = std::array::from_fn(|s| rows[s].as_ptr());
            let z = f64x2_splat(0.0);
            let (mut a, mut b, mut c, mut d) = (z, z, z, z);
            for (&k, ix) in k.iter().zip(cols) {
                let kv = f64x2_splat(k);
                // SAFETY: every index is < n (checked in `check_perms`) and each row has n entries.
                let (g0, g1, g2, g3) = unsafe {
                    (
                        f64x2(ix[0].load(p[0]), ix[1].load(p[1])),
                        f64x2(ix[2].load(p[2]), ix[3].load(p[3])),
                        f64x2(ix[4].load(p[4]), ix[5].load(p[5])),
                        f64x2(ix[6].load(p[6]), ix[7].load(p[7])),
                    )
                };
                a = f64x2_add(a, f64x2_mul(kv, g0));
                b = f64x2_add(b, f64x2_mul(kv, g1));
                c = f64x2_add(c, f64x2_mul(kv, g2));
                d = f64x2_add(d, f64x2_mul(kv, g3));
            }
            [
                f64x2_extract_lane::<0>(a),
                f64x2_extract_lane::<1>(a),
                f64x2_extract_lane::<0>(b),
                f64x2_extract_lane::<1>(b),
                f64x2_extract_lane::<0>(c),
                f64x2_extract_lane::<1>(c),
                f64x2_extract_lane::<0>(d),
                f64x2_extract_lane::<1>(d),
            ]
        }
    }
}

/// A row index of the permutation loop: `u16` when n ≤ 2¹⁶, else `u32`. 16 bits halve the index block of a group
/// (n = 500: 8 KB, in L1 beside the 8 rows of `l` it addresses). Values are checked `< n` before they are stored.
trait Index: Copy + Default {
    fn new(v: u32) -> Self;
    fn at(self) -> usize;
    /// `*row.add(self)`.
    ///
    /// # Safety
    /// `row` must point to a row of more than `self` elements.
    #[inline(always)]
    unsafe fn load<T: Copy>(self, row: *const T) -> T {
        // SAFETY: the caller's contract.
        unsafe { *row.add(self.at()) }
    }
}

impl Index for u16 {
    #[inline(always)]
    fn new(v: u32) -> Self {
        v as u16
    }
    #[inline(always)]
    fn at(self) -> usize {
        usize::from(self)
    }
}

impl Index for u32 {
    #[inline(always)]
    fn new(v: u32) -> Self {
        v
    }
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Matrix;
    use crate::backend::now;
    use crate::permute::{Permutations, Stream};

    fn data(n: usize, d: usize, seed: u64) -> Matrix {
        let mut s = seed;
        let v = (0..n * d)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                (s >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        Matrix::from_vec(n, d, v).unwrap()
    }

    /// The grouped symmetric loop against the plain double sum, including a partial last group.
    #[test]
    fn grouped_loop_matches_plain_sum() {
        let (n, d) = (23, 5);
        let (x, y) = (data(n, d, 1), data(n, d, 2));
        let mut b = CpuBackend::new(Precision::F64);
        let pair = now(b.prepare(x.view(), y.view(), Bandwidth::SqrtDim, Bandwidth::Median)).unwrap();
        let CpuPair::F64(p) = &pair else { unreachable!() };
        let mut perms = Vec::new();
        Permutations::new(5, Stream::Shuffles).extend(n, 11, &mut perms);
        let mut out = vec![0.0; 11];
        now(b.score(&pair, &perms, &mut out)).unwrap();
        for (t, perm) in perms.chunks(n).enumerate() {
            let mut s = 0.0;
            for i in 0..n {
                for j in 0..n {
                    s += p.kc[i * n + j] * p.l[perm[i] as usize * n + perm[j] as usize];
                }
            }
            let want = s / ((n - 1) * (n - 1)) as f64;
            assert!((out[t] - want).abs() < 1e-15, "{t}: {} vs {want}", out[t]);
        }
    }

    #[test]
    fn bad_permutations_are_errors() {
        let x = data(4, 2, 3);
        let mut b = CpuBackend::default();
        let pair = now(b.prepare(x.view(), x.view(), Bandwidth::SqrtDim, Bandwidth::SqrtDim)).unwrap();
        let mut out = [0.0; 1];
        assert!(now(b.score(&pair, &[0, 1, 2, 4], &mut out)).is_err());
        assert!(now(b.score(&pair, &[0, 1, 2], &mut out)).is_err());
        let mut out2 = [0.0; 2];
        assert!(now(b.score(&pair, &[0, 1, 2, 3], &mut out2)).is_err());
        // An empty batch is fine.
        assert!(now(b.score(&pair, &[], &mut [])).is_ok());
    }
}
