//! Bit-exact emulations of the library arithmetic the official competition score depends on.
//!
//! The official score (`metric.py`, torch 1.12.1 on a CUDA GPU, numpy) is a discrete function of float32 rates and
//! float32 logarithms, and its single-threshold grid is float32. Reproducing its numbers exactly means reproducing
//! each of these operations to the bit, on every platform Lethe runs on (x86-64, wasm32):
//!
//! * [`torch_linspace_f32`]: `torch.linspace(a, b, n)` with torch's default dtype (float32), torch 1.12.1's CPU
//!   kernel under its AVX2 dispatch (the default on any x86-64 with AVX2 + FMA).
//! * [`cuda_mean_factor`] / [`cuda_rate`]: `torch.mean(x.float(), 0)` on CUDA, which multiplies the float32 sum by
//!   `float(T) / float(N·T)` instead of dividing by `N`.
//! * [`numpy_log_f32`], [`numpy_exp_f32`]: numpy's float32 `log`/`exp` ufuncs on x86-64 with AVX2+FMA3 or AVX-512F
//!   (the SIMD rational approximations of `loops_exponent_log.dispatch.c.src`, max error 3.83 / 2.52 ulp, not
//!   correctly rounded), transcribed lane by lane with fused multiply-adds.
//!
//! numpy's float64 `linspace` and pairwise `sum` live in [`crate::numpy`].
//!
//! Each is checked against the real library's output in `crate/tests/golden_competition.rs`.

// The constants below are numpy's decimal literals verbatim, so they can be compared with its source; the compiler
// rounds them to f32 exactly as the C compiler does.
#![allow(clippy::excessive_precision)]

/// torch 1.12.1's `torch.linspace(start, end, steps)` with the default dtype (float32), as computed by its CPU kernel.
///
/// `start`/`end` are rounded to float32, `step = f32(end − start) / f32(steps − 1)`, and points are produced by the
/// vectorised loop of `RangeFactoriesKernel.cpp` (8 float lanes, two vectors per iteration, scalar tail):
///
/// ```text
/// block base (b = multiple of 8, b < nvec = 16·⌊steps/16⌋):
///     b < steps/2 ? fma(step, b, start) : fma(−step, steps − b − 1, end)
/// lane k of the block:  base + f32(k · step)              (two roundings)
/// tail j ≥ nvec:        j < steps/2 ? fma(step, j, start) : fma(−step, steps − j − 1, end)
/// ```
///
/// `steps = 1` gives `[start]` (torch's `fill_`), `steps = 0` an empty vector. This was established bit for bit
/// against the torch 1.12.1 wheel's `libtorch_cpu.so` (AVX2 dispatch; the wheel has no AVX-512 kernels) on 3.08
/// million points. Under `ATEN_CPU_CAPABILITY=default` torch uses the same blocks without fused multiply-adds, and
/// torch ≥ 2.0 uses the scalar formula only. For more than 32,768 points torch splits the range across OpenMP threads (each chunk
/// restarting the 16-point blocking), so its output then depends on the thread count; this function is the
/// single-chunk result.
///
/// # Examples
/// ```
/// use lethe::competition::emulate::torch_linspace_f32;
/// let t = torch_linspace_f32(0.0, 1.0, 5);
/// assert_eq!(t, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
/// assert!(torch_linspace_f32(0.0, 1.0, 0).is_empty());
/// ```
pub fn torch_linspace_f32(start: f64, end: f64, steps: usize) -> Vec<f32> {
    let s = start as f32;
    let e = end as f32;
    match steps {
        0 => return Vec::new(),
        1 => return vec![s],
        _ => {}
    }
    let step = (e - s) / ((steps - 1) as f32);
    let halfway = steps / 2;
    let nvec = steps / 16 * 16;
    let point = |j: usize| {
        if j < halfway {
            step.mul_add(j as f32, s)
        } else {
            (-step).mul_add((steps - j - 1) as f32, e)
        }
    };
    let mut out = Vec::with_capacity(steps);
    for b in (0..nvec).step_by(8) {
        let base = point(b);
        out.push(base);
        for k in 1..8u8 {
            out.push(base + f32::from(k) * step);
        }
    }
    out.extend((nvec..steps).map(point));
    out
}

/// The float32 factor torch's CUDA `mean` multiplies a column sum by, for a `[n_rows, n_cols]` input reduced over
/// rows: `float(n_cols) / float(n_rows · n_cols)` (`mean_kernel_impl` in `ReduceMomentKernel.cu`), each conversion
/// and the division rounded to float32.
///
/// # Examples
/// ```
/// use lethe::competition::emulate::cuda_mean_factor;
/// assert_eq!(cuda_mean_factor(16, 491), 1.0 / 16.0);
/// ```
pub fn cuda_mean_factor(n_rows: usize, n_cols: usize) -> f32 {
    let total = (n_rows as u128) * (n_cols as u128);
    n_cols as f32 / total as f32
}

/// A rate as torch's CUDA `mean` of a 0/1 float32 column returns it: `f32(count) · factor`, one rounding.
///
/// # Examples
/// ```
/// use lethe::competition::emulate::{cuda_mean_factor, cuda_rate};
/// let f = cuda_mean_factor(8, 100);
/// assert_eq!(cuda_rate(3, f), 0.375);
/// ```
pub fn cuda_rate(count: usize, factor: f32) -> f32 {
    count as f32 * factor
}

// numpy's float32 log/exp constants (npy_simd_data.h / npy_math.h), as the C compiler rounds the literals.
const LOG_P: [f32; 6] = [
    0.000000000000000000000e+00,
    9.999999999999998702752e-01,
    2.112677543073053063722e+00,
    1.480000633576506585156e+00,
    3.808837741388407920751e-01,
    2.589979117907922693523e-02,
];
const LOG_Q: [f32; 6] = [
    1.000000000000000000000e+00,
    2.612677543073109236779e+00,
    2.453006071784736363091e+00,
    9.864942958519418960339e-01,
    1.546476374983906719538e-01,
    5.875095403124574342950e-03,
];
// NPY_LOGE2f, NPY_SQRT1_2f, NPY_LOG2Ef: the same correctly rounded f32 values as std's constants.
const NPY_LOGE2F: f32 = std::f32::consts::LN_2;
const NPY_SQRT1_2F: f32 = std::f32::consts::FRAC_1_SQRT_2;
const NPY_LOG2EF: f32 = std::f32::consts::LOG2_E;
const EXP_P: [f32; 6] = [
    9.999999999980870924916e-01,
    7.257664613233124478488e-01,
    2.473615434895520810817e-01,
    5.114512081637298353406e-02,
    6.757896990527504603057e-03,
    5.082762527590693718096e-04,
];
const EXP_Q: [f32; 3] = [
    1.000000000000000000000e+00,
    -2.742335390411667452936e-01,
    2.159509375685829852307e-02,
];
const CODY_WAITE_LN2_HIGH: f32 = -6.93145752e-1;
const CODY_WAITE_LN2_LOW: f32 = -1.42860677e-6;
const RINT_MAGIC: f32 = 12_582_912.0; // 0x1.8p23

/// numpy's float32 `np.log` on x86-64 with AVX2+FMA3 or AVX-512F (`simd_log_FLOAT`), one lane.
///
/// `x = m·2^k` with `m ∈ [½, 1)`; if `m ≤ √½` then `m ← 2m, k ← k − 1`; with `y = m − 1`,
/// `log x = k·ln 2 + P(y)/Q(y)` (degree-5 Remez polynomials, Horner by FMA, final `fma(k, ln 2, P/Q)`).
/// Negative → NaN, 0 → −inf, +inf → +inf. Every numpy release since 1.18 uses this kernel on such CPUs, for every
/// element (the array tail goes through the same masked SIMD code). Builds without those instruction sets call
/// the C library's `logf` instead, which can differ in the last bit.
///
/// # Examples
/// ```
/// use lethe::competition::emulate::numpy_log_f32;
/// assert_eq!(numpy_log_f32(1.0), 0.0);
/// assert_eq!(numpy_log_f32(0.0), f32::NEG_INFINITY);
/// assert!((numpy_log_f32(0.5) + std::f32::consts::LN_2).abs() < 1e-6);
/// ```
pub fn numpy_log_f32(x: f32) -> f32 {
    if x.is_nan() {
        return f32::NAN;
    }
    if x < 0.0 {
        return -f32::NAN;
    }
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if x == f32::INFINITY {
        return f32::INFINITY;
    }
    // Exponent and mantissa in [0.5, 1); subnormals are pre-scaled by 2^100 as the AVX2 kernel does.
    let (bits, exp_offset) = if x < f32::MIN_POSITIVE {
        ((x * f32::from_bits(0x7180_0000)).to_bits(), 100.0f32)
    } else {
        (x.to_bits(), 0.0)
    };
    let mut exponent = ((bits >> 23) as i32 - 0x7E) as f32 - exp_offset;
    let mut m = f32::from_bits((bits & 0x007F_FFFF) | (126 << 23));
    if m <= NPY_SQRT1_2F {
        m += m;
        exponent -= 1.0;
    }
    let y = m - 1.0;
    let mut num = LOG_P[5].mul_add(y, LOG_P[4]);
    num = num.mul_add(y, LOG_P[3]);
    num = num.mul_add(y, LOG_P[2]);
    num = num.mul_add(y, LOG_P[1]);
    num = num.mul_add(y, LOG_P[0]);
    let mut den = LOG_Q[5].mul_add(y, LOG_Q[4]);
    den = den.mul_add(y, LOG_Q[3]);
    den = den.mul_add(y, LOG_Q[2]);
    den = den.mul_add(y, LOG_Q[1]);
    den = den.mul_add(y, LOG_Q[0]);
    exponent.mul_add(NPY_LOGE2F, num / den)
}

/// numpy's float32 `np.exp` on x86-64 with AVX2+FMA3 or AVX-512F (`simd_exp_FLOAT`), one lane.
///
/// `k = rint(x·log2 e)` (by the 1.5·2^23 trick), Cody–Waite reduction `r = x + k·c₁ + k·c₂`, `exp r ≈ P(r)/Q(r)`
/// (degrees 5 and 2), result `P/Q · 2^k` rounded once. `x ≥ 88.72284` → +inf, `x ≤ −103.97208` → 0, NaN → NaN.
///
/// # Examples
/// ```
/// use lethe::competition::emulate::numpy_exp_f32;
/// assert_eq!(numpy_exp_f32(0.0), 1.0);
/// assert_eq!(numpy_exp_f32(-200.0), 0.0);
/// ```
pub fn numpy_exp_f32(x: f32) -> f32 {
    const XMAX: f32 = 88.722_839_355_468_75;
    const XMIN: f32 = -103.972_084_045_410_156_25;
    if x.is_nan() {
        return f32::NAN;
    }
    if x >= XMAX {
        return f32::INFINITY;
    }
    if x <= XMIN {
        return 0.0;
    }
    let quadrant = (x * NPY_LOG2EF + RINT_MAGIC) - RINT_MAGIC;
    let mut r = quadrant.mul_add(CODY_WAITE_LN2_HIGH, x);
    r = quadrant.mul_add(CODY_WAITE_LN2_LOW, r);
    r = quadrant.mul_add(0.0, r);
    let mut num = EXP_P[5].mul_add(r, EXP_P[4]);
    num = num.mul_add(r, EXP_P[3]);
    num = num.mul_add(r, EXP_P[2]);
    num = num.mul_add(r, EXP_P[1]);
    num = num.mul_add(r, EXP_P[0]);
    let mut den = EXP_Q[2].mul_add(r, EXP_Q[1]);
    den = den.mul_add(r, EXP_Q[0]);
    let poly = num / den;
    // poly·2^k is exact in f64; the cast rounds once, as AVX-512 `scalef` (and the AVX2 division path) do.
    (f64::from(poly) * 2f64.powi(quadrant as i32)) as f32
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn linspace_endpoints_and_short_grids() {
        let t = torch_linspace_f32(-1.5, 2.25, 40);
        assert_eq!(t.len(), 40);
        assert_eq!(t[0], -1.5);
        assert_eq!(t[39], 2.25);
        assert_eq!(torch_linspace_f32(0.3, 0.7, 1), vec![0.3f32]);
    }

    #[test]
    fn numpy_log_is_close_to_ln_everywhere_it_matters() {
        for k in 1..=4096u32 {
            let x = k as f32 / 4096.0;
            let got = f64::from(numpy_log_f32(x));
            let want = f64::from(x).ln();
            assert!(
                (got - want).abs() <= 4.0 * f64::from(f32::EPSILON) * want.abs().max(1.0),
                "x = {x}"
            );
        }
        assert!(numpy_log_f32(-1.0).is_nan());
        assert_eq!(numpy_log_f32(f32::INFINITY), f32::INFINITY);
        let tiny = f32::from_bits(1);
        assert!((f64::from(numpy_log_f32(tiny)) - f64::from(tiny).ln()).abs() < 1e-4);
    }

    #[test]
    fn numpy_exp_is_close_to_exp() {
        for k in -1000..=100 {
            let x = k as f32 / 10.0;
            let got = f64::from(numpy_exp_f32(x));
            let want = f64::from(x).exp();
            assert!(
                (got - want).abs() <= 3.0 * f64::from(f32::EPSILON) * want + 1e-44,
                "x = {x}"
            );
        }
        assert_eq!(numpy_exp_f32(100.0), f32::INFINITY);
        assert!(numpy_exp_f32(f32::NAN).is_nan());
    }

    #[test]
    fn cuda_factor_power_of_two_is_exact() {
        for n in [1usize, 2, 8, 512] {
            for t in [1usize, 491, 160_000, 160_400] {
                assert_eq!(cuda_mean_factor(n, t), 1.0 / n as f32);
            }
        }
    }
}
