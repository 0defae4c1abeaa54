//! `X Xᵀ` for the Gram-based squared distances: packed panels and a 2×4 register tile of the upper triangle
//! (docs/performance.md); callers mirror it once they are done with it.
//!
//! The micro-kernel keeps eight vector accumulators and walks `kc`-wide column panels packed contiguously. Vectors
//! are explicit ([`Vector`]): AVX2 + FMA (f32x8 / f64x4, chosen at run time on x86-64), wasm simd128 (f32x4 /
//! f64x2, when the crate is built with `+simd128`), and a portable four-lane fallback. Compilers do not find this
//! schedule on their own (they vectorise across the tile's columns with broadcasts instead). The vector width only
//! changes the summation order inside each dot product.

/// Columns per packed panel: 256 f32 × 6 rows stay well inside L1.
pub(super) const KC: usize = 256;
/// Register tile: 2 rows × 4 rows of the Gram matrix per micro-kernel call.
const MR: usize = 2;
const NR: usize = 4;

/// Rows of [`GramAcc`]'s padded accumulator for `n` rows.
pub(super) fn padded(n: usize) -> usize {
    n.div_ceil(NR).saturating_mul(NR)
}

/// Element types the Gram kernel runs on.
pub trait GramScalar:
    Copy + Default + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> + std::ops::AddAssign
{
}
impl GramScalar for f32 {}
impl GramScalar for f64 {}

/// A SIMD vector of `LANES` elements, as the micro-kernel needs it.
trait Vector: Copy {
    type Elem: GramScalar;
    const LANES: usize;
    fn zero() -> Self;
    /// Loads `LANES` elements from the start of `s` (`s.len() ≥ LANES`, checked by the caller's chunking).
    fn load(s: &[Self::Elem]) -> Self;
    /// `self + a·b` (fused where the target has FMA).
    fn madd(self, a: Self, b: Self) -> Self;
    fn hsum(self) -> Self::Elem;
    /// `out[k] += hsum(x_k)` for the four vectors of one tile row (`out.len() == 4`); targets with shuffles
    /// reduce the four at once, in the same order as [`Vector::hsum`].
    #[inline(always)]
    fn hsum4_add(x: [Self; 4], out: &mut [Self::Elem]) {
        for (o, v) in out.iter_mut().zip(x) {
            *o += v.hsum();
        }
    }
}

/// Portable fallback: four independent lanes in an array.
#[derive(Clone, Copy)]
struct Lanes4<T>([T; 4]);

impl<T: GramScalar> Vector for Lanes4<T> {
    type Elem = T;
    const LANES: usize = 4;
    #[inline(always)]
    fn zero() -> Self {
        Self([T::default(); 4])
    }
    #[inline(always)]
    fn load(s: &[T]) -> Self {
        Self([s[0], s[1], s[2], s[3]])
    }
    #[inline(always)]
    fn madd(self, a: Self, b: Self) -> Self {
        let mut r = self.0;
        for ((r, a), b) in r.iter_mut().zip(a.0).zip(b.0) {
            *r += a * b;
        }
        Self(r)
    }
    #[inline(always)]
    fn hsum(self) -> T {
        (self.0[0] + self.0[2]) + (self.0[1] + self.0[3])
    }
}

/// `X Xᵀ` summed over column panels: [`GramAcc::add`] takes the next columns of every row (any number of them, in
/// order), [`GramAcc::finish`] gives the upper triangle. Adding all `d` columns at once or in panels whose widths
/// are multiples of [`KC`] gives the same bits (the same packed panels, summed in the same order).
pub struct GramAcc<T> {
    n: usize,
    n_pad: usize,
    /// Padded `n_pad × n_pad` accumulator, upper triangle.
    g: Vec<T>,
    /// One packed panel of `KC` columns per row (`n_pad` rows).
    panel: Vec<T>,
}

impl<T: GramScalar> GramAcc<T> {
    /// An empty sum for `n` rows.
    pub fn new(n: usize) -> Self {
        let n_pad = n.div_ceil(NR) * NR;
        Self {
            n,
            n_pad,
            g: vec![T::default(); n_pad * n_pad],
            panel: Vec::new(),
        }
    }

    /// The upper triangle (with the diagonal) of the sum, as a row-major `n × n` matrix that is 0 below the
    /// diagonal (callers mirror it once they are done with it).
    pub fn finish(self) -> Vec<T> {
        let (n, n_pad) = (self.n, self.n_pad);
        // Compacted in place, row by row (row i moves down to i·n ≤ i·n_pad: nothing unread is overwritten), and
        // zeroed below the diagonal: no second n² buffer.
        let mut g = self.g;
        for i in 0..n {
            g.copy_within(i * n_pad + i..i * n_pad + n, i * n + i);
            g[i * n..i * n + i].fill(T::default());
        }
        g.truncate(n * n);
        g
    }
}

/// Adds the columns `x` (row-major `acc.n × w`) to the sum, with vectors `V`.
#[inline(always)]
fn add_with<V: Vector>(acc: &mut GramAcc<V::Elem>, x: &[V::Elem], w: usize) {
    let zero = V::Elem::default();
    let (n, n_pad) = (acc.n, acc.n_pad);
    let l = V::LANES;
    let kc_max = KC.div_ceil(l) * l;
    acc.panel.resize(n_pad * kc_max, zero);
    let (panel, g) = (&mut acc.panel, &mut acc.g);
    let mut k0 = 0;
    while k0 < w {
        let kc = KC.min(w - k0);
        let kcp = kc.div_ceil(l) * l;
        for (i, dst) in panel.chunks_exact_mut(kcp).take(n_pad).enumerate() {
            if i < n {
                dst[..kc].copy_from_slice(&x[i * w + k0..i * w + k0 + kc]);
                dst[kc..].fill(zero);
            } else {
                dst.fill(zero);
            }
        }
        let rows: Vec<&[V::Elem]> = panel.chunks_exact(kcp).take(n_pad).collect();
        for i0 in (0..n).step_by(MR) {
            // Tiles start at the 4-aligned block holding i0, so every upper-triangle entry is covered.
            for j0 in ((i0 / NR) * NR..n).step_by(NR) {
                let t = micro::<V>(
                    rows[i0],
                    rows[i0 + 1],
                    [rows[j0], rows[j0 + 1], rows[j0 + 2], rows[j0 + 3]],
                );
                for (r, tr) in t.into_iter().enumerate() {
                    V::hsum4_add(tr, &mut g[(i0 + r) * n_pad + j0..(i0 + r) * n_pad + j0 + NR]);
                }
            }
        }
        k0 += kc;
    }
}

/// [`add_with`] with a 4×4 tile, for targets with 32 vector registers (AVX-512: 16 accumulators + 8 loads), and
/// the tiles of each band of [`JB`] columns of the Gram matrix done together so that band's packed rows stay in
/// L1 while every row above it passes. Each entry gets the same panel sums in the same order as in [`add_with`]
/// with the same `V` (the tile shape and the order of tiles change no bits).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn add_with_4x4<V: Vector>(acc: &mut GramAcc<V::Elem>, x: &[V::Elem], w: usize) {
    /// Rows of one band: 32 packed rows of `KC` f32 are 32 KB.
    const JB: usize = 32;
    let zero = V::Elem::default();
    let (n, n_pad) = (acc.n, acc.n_pad);
    let l = V::LANES;
    let kc_max = KC.div_ceil(l) * l;
    acc.panel.resize(n_pad * kc_max, zero);
    let (panel, g) = (&mut acc.panel, &mut acc.g);
    let mut k0 = 0;
    while k0 < w {
        let kc = KC.min(w - k0);
        let kcp = kc.div_ceil(l) * l;
        for (i, dst) in panel.chunks_exact_mut(kcp).take(n_pad).enumerate() {
            if i < n {
                dst[..kc].copy_from_slice(&x[i * w + k0..i * w + k0 + kc]);
                dst[kc..].fill(zero);
            } else {
                dst.fill(zero);
            }
        }
        let rows: Vec<&[V::Elem]> = panel.chunks_exact(kcp).take(n_pad).collect();
        for jb in (0..n).step_by(JB) {
            let jend = (jb + JB).min(n);
            // Row blocks i0 (4-aligned) up to the band's end; tiles from the diagonal block on.
            for i0 in (0..jend).step_by(NR) {
                for j0 in (jb.max(i0)..jend).step_by(NR) {
                    let b = [rows[j0], rows[j0 + 1], rows[j0 + 2], rows[j0 + 3]];
                    let t = micro_4x4::<V>([rows[i0], rows[i0 + 1], rows[i0 + 2], rows[i0 + 3]], b);
                    for (r, tr) in t.into_iter().enumerate() {
                        V::hsum4_add(tr, &mut g[(i0 + r) * n_pad + j0..(i0 + r) * n_pad + j0 + NR]);
                    }
                }
            }
        }
        k0 += kc;
    }
}

/// Sixteen dot products (rows a0..a3 against b0..b3), one named vector accumulator each (an array of them was
/// shuffled between registers and the stack every step), loads without per-step bounds checks.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn micro_4x4<V: Vector>(a: [&[V::Elem]; 4], b: [&[V::Elem]; 4]) -> [[V; 4]; 4] {
    let l = V::LANES;
    let len = a[0].len() / l * l;
    assert!(a.iter().chain(&b).all(|r| r.len() >= len));
    // SAFETY: every row has at least `len` elements (asserted above) and `k + l ≤ len`.
    let at = |r: &[V::Elem], k: usize| V::load(unsafe { r.get_unchecked(k..k + l) });
    let z = V::zero();
    let (mut c00, mut c01, mut c02, mut c03) = (z, z, z, z);
    let (mut c10, mut c11, mut c12, mut c13) = (z, z, z, z);
    let (mut c20, mut c21, mut c22, mut c23) = (z, z, z, z);
    let (mut c30, mut c31, mut c32, mut c33) = (z, z, z, z);
    let mut k = 0;
    while k < len {
        let (y0, y1, y2, y3) = (at(b[0], k), at(b[1], k), at(b[2], k), at(b[3], k));
        let x0 = at(a[0], k);
        c00 = c00.madd(x0, y0);
        c01 = c01.madd(x0, y1);
        c02 = c02.madd(x0, y2);
        c03 = c03.madd(x0, y3);
        let x1 = at(a[1], k);
        c10 = c10.madd(x1, y0);
        c11 = c11.madd(x1, y1);
        c12 = c12.madd(x1, y2);
        c13 = c13.madd(x1, y3);
        let x2 = at(a[2], k);
        c20 = c20.madd(x2, y0);
        c21 = c21.madd(x2, y1);
        c22 = c22.madd(x2, y2);
        c23 = c23.madd(x2, y3);
        let x3 = at(a[3], k);
        c30 = c30.madd(x3, y0);
        c31 = c31.madd(x3, y1);
        c32 = c32.madd(x3, y2);
        c33 = c33.madd(x3, y3);
        k += l;
    }
    [
        [c00, c01, c02, c03],
        [c10, c11, c12, c13],
        [c20, c21, c22, c23],
        [c30, c31, c32, c33],
    ]
}

/// Eight dot products (rows a0, a1 against b0..b3), one vector accumulator each: 8 accumulators + 6 loads fit the
/// 16 registers of AVX2 and of V8's wasm SIMD.
#[inline(always)]
fn micro<V: Vector>(a0: &[V::Elem], a1: &[V::Elem], b: [&[V::Elem]; 4]) -> [[V; NR]; MR] {
    let l = V::LANES;
    let z = V::zero();
    let (mut c00, mut c01, mut c02, mut c03, mut c10, mut c11, mut c12, mut c13) = (z, z, z, z, z, z, z, z);
    let it = a0
        .chunks_exact(l)
        .zip(a1.chunks_exact(l))
        .zip(b[0].chunks_exact(l))
        .zip(b[1].chunks_exact(l))
        .zip(b[2].chunks_exact(l))
        .zip(b[3].chunks_exact(l));
    for (((((x0, x1), y0), y1), y2), y3) in it {
        let (x0, x1) = (V::load(x0), V::load(x1));
        let (y0, y1, y2, y3) = (V::load(y0), V::load(y1), V::load(y2), V::load(y3));
        c00 = c00.madd(x0, y0);
        c01 = c01.madd(x0, y1);
        c02 = c02.madd(x0, y2);
        c03 = c03.madd(x0, y3);
        c10 = c10.madd(x1, y0);
        c11 = c11.madd(x1, y1);
        c12 = c12.madd(x1, y2);
        c13 = c13.madd(x1, y3);
    }
    [[c00, c01, c02, c03], [c10, c11, c12, c13]]
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::Vector;

    #[derive(Clone, Copy)]
    pub(super) struct F32x8(__m256);
    #[derive(Clone, Copy)]
    pub(super) struct F64x4(__m256d);

    // SAFETY (all `unsafe` blocks below): these impls are only used inside `gram_f32`/`gram_f64`, which carry
    // `#[target_feature(enable = "avx2,fma")]` and are only called after run-time detection; every load reads
    // `LANES` elements from a chunk of exactly that length (`chunks_exact` in `micro`).
    impl Vector for F32x8 {
        type Elem = f32;
        const LANES: usize = 8;
        #[inline(always)]
        fn zero() -> Self {
            Self(unsafe { _mm256_setzero_ps() })
        }
        #[inline(always)]
        fn load(s: &[f32]) -> Self {
            debug_assert!(s.len() >= 8);
            Self(unsafe { _mm256_loadu_ps(s.as_ptr()) })
        }
        #[inline(always)]
        fn madd(self, a: Self, b: Self) -> Self {
            Self(unsafe { _mm256_fmadd_ps(a.0, b.0, self.0) })
        }
        #[inline(always)]
        fn hsum(self) -> f32 {
            unsafe {
                let lo = _mm256_castps256_ps128(self.0);
                let hi = _mm256_extractf128_ps(self.0, 1);
                let s = _mm_add_ps(lo, hi);
                let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
                let s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
                _mm_cvtss_f32(s)
            }
        }
    }

    impl Vector for F64x4 {
        type Elem = f64;
        const LANES: usize = 4;
        #[inline(always)]
        fn zero() -> Self {
            Self(unsafe { _mm256_setzero_pd() })
        }
        #[inline(always)]
        fn load(s: &[f64]) -> Self {
            debug_assert!(s.len() >= 4);
            Self(unsafe { _mm256_loadu_pd(s.as_ptr()) })
        }
        #[inline(always)]
        fn madd(self, a: Self, b: Self) -> Self {
            Self(unsafe { _mm256_fmadd_pd(a.0, b.0, self.0) })
        }
        #[inline(always)]
        fn hsum(self) -> f64 {
            unsafe {
                let lo = _mm256_castpd256_pd128(self.0);
                let hi = _mm256_extractf128_pd(self.0, 1);
                let s = _mm_add_pd(lo, hi);
                _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)))
            }
        }
    }

    /// # Safety
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn add_f32(acc: &mut super::GramAcc<f32>, x: &[f32], w: usize) {
        super::add_with::<F32x8>(acc, x, w);
    }

    /// # Safety
    /// The CPU must support AVX2 and FMA.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn add_f64(acc: &mut super::GramAcc<f64>, x: &[f64], w: usize) {
        super::add_with::<F64x4>(acc, x, w);
    }

    pub(super) fn has_avx2_fma() -> bool {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")
    }

    /// f32x16 (AVX-512F), on a 4×4 tile ([`super::add_with_4x4`]: 32 registers). Each dot product's sixteen lane sums
    /// are reduced in a fixed order ([`F32x16::hsum4_add`]: halves, then pairs), so results are reproducible on
    /// every AVX-512 machine; they differ from the AVX2 path's in the last bits (another summation order).
    #[derive(Clone, Copy)]
    pub(super) struct F32x16(__m512);

    // SAFETY (all `unsafe` blocks below): only used inside `add_f32_avx512`, which carries
    // `#[target_feature(enable = "avx512f,avx512vl,avx2,fma")]` and is only called after run-time detection; every load
    // reads 16 elements from a chunk of exactly that length (`chunks_exact` in `micro`).
    impl Vector for F32x16 {
        type Elem = f32;
        const LANES: usize = 16;
        #[inline(always)]
        fn zero() -> Self {
            Self(unsafe { _mm512_setzero_ps() })
        }
        #[inline(always)]
        fn load(s: &[f32]) -> Self {
            debug_assert!(s.len() >= 16);
            Self(unsafe { _mm512_loadu_ps(s.as_ptr()) })
        }
        #[inline(always)]
        fn madd(self, a: Self, b: Self) -> Self {
            Self(unsafe { _mm512_fmadd_ps(a.0, b.0, self.0) })
        }
        #[inline(always)]
        fn hsum(self) -> f32 {
            let mut out = [0f32; 4];
            Self::hsum4_add([self, Self::zero(), Self::zero(), Self::zero()], &mut out);
            out[0]
        }
        #[inline(always)]
        fn hsum4_add(x: [Self; 4], out: &mut [f32]) {
            assert!(out.len() >= 4);
            unsafe {
                // 512 → 256 bits: low half + high half of each vector.
                let [a, b, c, d] = x;
                let a = _mm256_add_ps(_mm512_castps512_ps256(a.0), high256(a.0));
                let b = _mm256_add_ps(_mm512_castps512_ps256(b.0), high256(b.0));
                let c = _mm256_add_ps(_mm512_castps512_ps256(c.0), high256(c.0));
                let d = _mm256_add_ps(_mm512_castps512_ps256(d.0), high256(d.0));
                // Pairwise: [a01 a23 b01 b23 | a45 a67 b45 b67], then [a0123 b0123 c0123 d0123 | a4567 …].
                let ab = _mm256_hadd_ps(a, b);
                let cd = _mm256_hadd_ps(c, d);
                let s = _mm256_hadd_ps(ab, cd);
                let s = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
                let o = out.as_mut_ptr();
                _mm_storeu_ps(o, _mm_add_ps(_mm_loadu_ps(o), s));
            }
        }
    }

    /// The high 256 bits of a vector (AVX-512F has no f32x8 extract; the f64x4 one moves the same bits).
    #[inline(always)]
    unsafe fn high256(v: __m512) -> __m256 {
        // SAFETY: the caller runs with AVX-512F (see `add_f32_avx512`).
        unsafe { _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)) }
    }

    /// # Safety
    /// The CPU must support AVX-512F and VL, AVX2 and FMA.
    #[target_feature(enable = "avx512f,avx512vl,avx2,fma")]
    pub(super) unsafe fn add_f32_avx512(acc: &mut super::GramAcc<f32>, x: &[f32], w: usize) {
        super::add_with_4x4::<F32x16>(acc, x, w);
    }

    pub(super) fn has_avx512f() -> bool {
        is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl") && has_avx2_fma()
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod wasm {
    use core::arch::wasm32::*;

    use super::Vector;

    #[derive(Clone, Copy)]
    pub(super) struct F32x4(v128);
    #[derive(Clone, Copy)]
    pub(super) struct F64x2(v128);

    impl Vector for F32x4 {
        type Elem = f32;
        const LANES: usize = 4;
        #[inline(always)]
        fn zero() -> Self {
            Self(f32x4_splat(0.0))
        }
        #[inline(always)]
        fn load(s: &[f32]) -> Self {
            assert!(s.len() >= 4);
            // SAFETY: four f32 in bounds (checked above; the check folds away under `chunks_exact(4)`); wasm loads
            // may be unaligned.
            Self(unsafe { v128_load(s.as_ptr().cast()) })
        }
        /// simd128: a multiply then an add. The relaxed-SIMD build (feature `relaxed-simd`): `f32x4.relaxed_madd`,
        /// one fused multiply-add where the hardware has one (x86-64 with FMA3, ARM64), a multiply and an add
        /// elsewhere — so that build's f32 Gram may differ from this one in the last bits, by machine.
        #[inline(always)]
        fn madd(self, a: Self, b: Self) -> Self {
            #[cfg(feature = "relaxed-simd")]
            return Self(f32x4_relaxed_madd(a.0, b.0, self.0));
            #[cfg(not(feature = "relaxed-simd"))]
            Self(f32x4_add(self.0, f32x4_mul(a.0, b.0)))
        }
        #[inline(always)]
        fn hsum(self) -> f32 {
            let v = self.0;
            (f32x4_extract_lane::<0>(v) + f32x4_extract_lane::<2>(v))
                + (f32x4_extract_lane::<1>(v) + f32x4_extract_lane::<3>(v))
        }
        #[inline(always)]
        fn hsum4_add([a, b, c, d]: [Self; 4], out: &mut [f32]) {
            assert!(out.len() >= 4);
            // p = [a0+a2, b0+b2, a1+a3, b1+b3], q likewise for c, d; then (x0+x2) + (x1+x3) per vector, as `hsum`.
            let p = f32x4_add(
                i32x4_shuffle::<0, 4, 1, 5>(a.0, b.0),
                i32x4_shuffle::<2, 6, 3, 7>(a.0, b.0),
            );
            let q = f32x4_add(
                i32x4_shuffle::<0, 4, 1, 5>(c.0, d.0),
                i32x4_shuffle::<2, 6, 3, 7>(c.0, d.0),
            );
            let h = f32x4_add(i32x4_shuffle::<0, 1, 4, 5>(p, q), i32x4_shuffle::<2, 3, 6, 7>(p, q));
            // SAFETY: four f32 in bounds (checked above).
            unsafe {
                let o = out.as_mut_ptr().cast::<v128>();
                v128_store(o, f32x4_add(v128_load(o), h));
            }
        }
    }

    impl Vector for F64x2 {
        type Elem = f64;
        const LANES: usize = 2;
        #[inline(always)]
        fn zero() -> Self {
            Self(f64x2_splat(0.0))
        }
        #[inline(always)]
        fn load(s: &[f64]) -> Self {
            assert!(s.len() >= 2);
            // SAFETY: two f64 in bounds (checked above); wasm loads may be unaligned.
            Self(unsafe { v128_load(s.as_ptr().cast()) })
        }
        #[inline(always)]
        fn madd(self, a: Self, b: Self) -> Self {
            Self(f64x2_add(self.0, f64x2_mul(a.0, b.0)))
        }
        #[inline(always)]
        fn hsum(self) -> f64 {
            f64x2_extract_lane::<0>(self.0) + f64x2_extract_lane::<1>(self.0)
        }
    }

    #[cfg_attr(feature = "relaxed-simd", target_feature(enable = "relaxed-simd"))]
    pub(super) fn add_f32(acc: &mut super::GramAcc<f32>, x: &[f32], w: usize) {
        super::add_with::<F32x4>(acc, x, w);
    }
    pub(super) fn add_f64(acc: &mut super::GramAcc<f64>, x: &[f64], w: usize) {
        super::add_with::<F64x2>(acc, x, w);
    }
}

/// Adds f32 columns to a Gram sum with the widest SIMD the machine has.
pub(super) fn add_f32(acc: &mut GramAcc<f32>, x: &[f32], w: usize) {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx512f() {
        // SAFETY: AVX-512F and VL, AVX2 and FMA are present (checked at run time just above).
        return unsafe { x86::add_f32_avx512(acc, x, w) };
    }
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2_fma() {
        // SAFETY: AVX2 and FMA are present (checked at run time just above).
        return unsafe { x86::add_f32(acc, x, w) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return wasm::add_f32(acc, x, w);
    #[allow(unreachable_code)]
    add_with::<Lanes4<f32>>(acc, x, w)
}

/// Adds f64 columns to a Gram sum with the widest SIMD the machine has.
pub(super) fn add_f64(acc: &mut GramAcc<f64>, x: &[f64], w: usize) {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2_fma() {
        // SAFETY: AVX2 and FMA are present (checked at run time just above).
        return unsafe { x86::add_f64(acc, x, w) };
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return wasm::add_f64(acc, x, w);
    #[allow(unreachable_code)]
    add_with::<Lanes4<f64>>(acc, x, w)
}

/// The portable path, for tests that compare it with the SIMD one.
#[cfg(test)]
pub(super) fn gram_portable<T: GramScalar>(x: &[T], n: usize, d: usize) -> Vec<T> {
    let mut acc = GramAcc::new(n);
    add_with::<Lanes4<T>>(&mut acc, x, d);
    acc.finish()
}

/// A SIMD path of the f32 Gram sum, for benchmarks that compare them (`lethe-bench`); the kernels always take
/// [`GramPath::Auto`], the widest the machine has.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GramPath {
    Auto,
    Portable,
    Avx2,
    Avx512,
}

impl GramPath {
    /// The path [`GramPath::Auto`] takes on this machine and build.
    pub fn auto() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if x86::has_avx512f() {
                return Self::Avx512;
            }
            if x86::has_avx2_fma() {
                return Self::Avx2;
            }
        }
        Self::Portable
    }
}

/// The upper triangle of `X Xᵀ` (f32, as [`super::gram`]) on one SIMD path; `None` when this machine lacks it.
#[doc(hidden)]
pub fn gram_f32_on(path: GramPath, x: &[f32], n: usize, d: usize) -> Option<Vec<f32>> {
    let mut acc = GramAcc::new(n);
    match path {
        GramPath::Auto => add_f32(&mut acc, x, d),
        GramPath::Portable => add_with::<Lanes4<f32>>(&mut acc, x, d),
        #[cfg(target_arch = "x86_64")]
        GramPath::Avx2 if x86::has_avx2_fma() => {
            // SAFETY: AVX2 and FMA are present (checked just above).
            unsafe { x86::add_f32(&mut acc, x, d) }
        }
        #[cfg(target_arch = "x86_64")]
        GramPath::Avx512 if x86::has_avx512f() => {
            // SAFETY: AVX-512F and VL, AVX2 and FMA are present (checked just above).
            unsafe { x86::add_f32_avx512(&mut acc, x, d) }
        }
        _ => return None,
    }
    Some(acc.finish())
}
