//! A fast f32 `exp` for kernel entries (f32 storage path only; the f64 reference uses `f64::exp`).
//!
//! `exp(x) = 2^k · e^r` with `k = round(x·log2 e)` (by the 1.5·2²³ trick, branch-free and SSE2/simd128-friendly),
//! `r = x − k·ln 2` in two steps (Cody–Waite), and Cephes' degree-6 minimax polynomial for `e^r` on
//! [−ln2/2, ln2/2]. Inputs below −87.3 give 0 (kernel entries that small are below f32's normal range anyway).
//! Measured maximum relative error against `f64::exp` over [−87, 0]: 8.0e-8 (the test prints it; < 1 ulp), versus
//! 0.5 ulp for `f32::exp` — well inside the f32 path's stated tolerance — at a fraction of the cost in wasm.

// The coefficients are Cephes' decimal literals verbatim.
#![allow(clippy::excessive_precision)]

const LOG2E: f32 = std::f32::consts::LOG2_E;
const LN2_HI: f32 = 0.693_359_4;
const LN2_LO: f32 = -2.121_944_4e-4;
/// 1.5·2²³: adding and subtracting it rounds a float in (−2²², 2²²) to the nearest integer.
const ROUND: f32 = 12_582_912.0;

/// `exp(x)` for `x ≤ 88`, relative error ≲ 2e-7; 0 below −87.3.
#[inline(always)]
pub fn exp_f32(x0: f32) -> f32 {
    let x = x0.clamp(-87.336_55, 88.0);
    let k = (x * LOG2E + ROUND) - ROUND;
    let r = x - k * LN2_HI - k * LN2_LO;
    let r2 = r * r;
    let p = (((((1.987_569_1e-4 * r + 1.398_199_9e-3) * r + 8.333_452e-3) * r + 4.166_579_6e-2) * r + 1.666_666_5e-1)
        * r
        + 5.000_000_1e-1)
        * r2
        + r
        + 1.0;
    // 2^k by building the exponent field; k ∈ [−126, 127] after the clamp.
    let scale = f32::from_bits(((k as i32 + 127) as u32) << 23);
    // A select, not a branch: the loop over kernel entries stays vectorised.
    if x0 < -87.336_55 { 0.0 } else { p * scale }
}

/// `v ← exp_f32(v·scale)` over kernel entries, the product taken in f64 and rounded once to f32.
///
/// The relaxed-SIMD wasm build (feature `relaxed-simd`) runs four lanes at a time with the same steps, its
/// multiply-adds fused by `f32x4.relaxed_madd` where the hardware has FMA: results may differ from [`exp_f32`] in
/// the last bit (both within the stated 3e-7 relative error; the fused form is checked natively in the tests).
#[inline]
pub fn exp_scaled_f32(v: &mut [f32], scale: f64) {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128", feature = "relaxed-simd"))]
    return relaxed::exp_scaled(v, scale);
    #[allow(unreachable_code)]
    for v in v {
        *v = exp_f32((f64::from(*v) * scale) as f32);
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128", feature = "relaxed-simd"))]
mod relaxed {
    use core::arch::wasm32::*;

    use super::{LN2_HI, LN2_LO, LOG2E, ROUND, exp_f32};

    /// [`super::exp_f32`] of four lanes, each multiply-add one `f32x4.relaxed_madd` (`relaxed_nmadd` for the
    /// Cody–Waite steps).
    #[inline(always)]
    fn exp4(x0: v128) -> v128 {
        let c = f32x4_splat;
        let x = f32x4_pmax(f32x4_pmin(x0, c(88.0)), c(-87.336_55));
        let k = f32x4_sub(f32x4_relaxed_madd(x, c(LOG2E), c(ROUND)), c(ROUND));
        let r = f32x4_relaxed_nmadd(k, c(LN2_LO), f32x4_relaxed_nmadd(k, c(LN2_HI), x));
        let r2 = f32x4_mul(r, r);
        let mut p = f32x4_relaxed_madd(c(1.987_569_1e-4), r, c(1.398_199_9e-3));
        p = f32x4_relaxed_madd(p, r, c(8.333_452e-3));
        p = f32x4_relaxed_madd(p, r, c(4.166_579_6e-2));
        p = f32x4_relaxed_madd(p, r, c(1.666_666_5e-1));
        p = f32x4_relaxed_madd(p, r, c(5.000_000_1e-1));
        let p = f32x4_add(f32x4_relaxed_madd(p, r2, r), c(1.0));
        // 2^k from the exponent field; k ∈ [−126, 127] after the clamp (exact integers in f32).
        let e = i32x4_shl(i32x4_add(i32x4_trunc_sat_f32x4(k), i32x4_splat(127)), 23);
        let y = f32x4_mul(p, e);
        // 0 below −87.3, as the scalar select.
        v128_andnot(y, f32x4_lt(x0, c(-87.336_55)))
    }

    #[target_feature(enable = "relaxed-simd")]
    pub(super) fn exp_scaled(v: &mut [f32], scale: f64) {
        let s = f64x2_splat(scale);
        let (quads, rest) = v.as_chunks_mut::<4>();
        for q in quads {
            // SAFETY: `q` is four f32; wasm loads and stores may be unaligned.
            unsafe {
                let p = q.as_mut_ptr().cast::<v128>();
                let x = v128_load(p);
                // The product in f64, rounded once to f32 (as the scalar path).
                let lo = f32x4_demote_f64x2_zero(f64x2_mul(f64x2_promote_low_f32x4(x), s));
                let hi = f32x4_demote_f64x2_zero(f64x2_mul(f64x2_promote_low_f32x4(i64x2_shuffle::<1, 0>(x, x)), s));
                v128_store(p, exp4(i64x2_shuffle::<0, 2>(lo, hi)));
            }
        }
        for v in rest {
            *v = exp_f32((f64::from(*v) * scale) as f32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_error_is_small_over_the_kernel_range() {
        let mut worst = 0f64;
        let mut x = -87.0f32;
        while x <= 0.0 {
            let want = f64::from(x).exp();
            let got = f64::from(exp_f32(x));
            worst = worst.max(((got - want) / want).abs());
            x += 1.3e-4;
        }
        println!("exp_f32 max relative error on [-87, 0]: {worst:.3e}");
        assert!(worst < 3e-7, "{worst}");
        assert_eq!(exp_f32(0.0), 1.0);
        assert_eq!(exp_f32(-200.0), 0.0);
    }

    /// The relaxed-SIMD build's steps (exp4 in `relaxed`) with every multiply-add fused, as `f32x4.relaxed_madd`
    /// is on hardware with FMA: the same error bound as [`exp_f32`], and within 2 ulp of it.
    #[test]
    fn fused_steps_stay_within_the_bound() {
        fn fused(x0: f32) -> f32 {
            let x = x0.clamp(-87.336_55, 88.0);
            let k = x.mul_add(LOG2E, ROUND) - ROUND;
            let r = (-k).mul_add(LN2_LO, (-k).mul_add(LN2_HI, x));
            let r2 = r * r;
            let mut p = 1.987_569_1e-4f32.mul_add(r, 1.398_199_9e-3);
            for c in [8.333_452e-3, 4.166_579_6e-2, 1.666_666_5e-1, 5.000_000_1e-1] {
                p = p.mul_add(r, c);
            }
            let p = p.mul_add(r2, r) + 1.0;
            let scale = f32::from_bits(((k as i32 + 127) as u32) << 23);
            if x0 < -87.336_55 { 0.0 } else { p * scale }
        }
        let (mut worst, mut ulps) = (0f64, 0u32);
        let mut x = -87.0f32;
        while x <= 0.0 {
            let want = f64::from(x).exp();
            let got = fused(x);
            worst = worst.max(((f64::from(got) - want) / want).abs());
            ulps = ulps.max(got.to_bits().abs_diff(exp_f32(x).to_bits()));
            x += 1.3e-4;
        }
        println!("fused exp max relative error on [-87, 0]: {worst:.3e}, {ulps} ulp from exp_f32");
        assert!(worst < 3e-7, "{worst}");
        assert!(ulps <= 2, "{ulps}");
        assert_eq!(fused(0.0), 1.0);
        assert_eq!(fused(-200.0), 0.0);
    }
}
