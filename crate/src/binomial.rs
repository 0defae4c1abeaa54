//! Exact (Clopper–Pearson) confidence bounds on a binomial proportion.
//!
//! For `x` successes in `n` trials the one-sided bounds at level `1 − a` are the beta quantiles
//!
//! ```text
//! lower(x, n, a) = Beta(x, n − x + 1).ppf(a)        (0 when x = 0)
//! upper(x, n, a) = Beta(x + 1, n − x).ppf(1 − a)    (1 when x = n)
//! ```
//!
//! and the two-sided interval at level `1 − α` uses `a = α/2` on each side, exactly as statsmodels
//! `proportion_confint(x, n, alpha, method="beta")`. The closed forms at the edges are used directly
//! (`upper(0, n, a) = 1 − a^{1/n}`, `lower(n, n, a) = a^{1/n}`), and the upper quantile is computed as
//! `1 − Beta(n − x, x + 1).ppf(a)` so that a tiny `a` (1e-6) never goes through the rounding of `1 − a`.

use statrs::function::beta::inv_beta_reg;

use crate::error::{Error, Result};

fn check(x: u64, n: u64, a: f64) -> Result<()> {
    if n == 0 {
        return Err(Error::param("n", n, "at least one trial"));
    }
    if x > n {
        return Err(Error::param("x", x, format!("a count between 0 and n = {n}")));
    }
    if !(a > 0.0 && a < 1.0) {
        return Err(Error::param("alpha", a, "a number strictly between 0 and 1"));
    }
    if a < MIN_TAIL {
        return Err(Error::param(
            "alpha",
            a,
            "a level of at least 1e-100 (smaller tails are beyond the beta quantile this bound is computed from)",
        ));
    }
    Ok(())
}

/// The smallest tail probability a bound is computed for: statrs' beta quantile panics below about 1e-165 (found
/// by the `stats` fuzz target; a sweep measured 1e-160 fine, 1e-170 a panic), and no audit asks for less.
pub const MIN_TAIL: f64 = 1e-100;

/// One-sided upper Clopper–Pearson bound: `P(p ≤ upper) ≥ 1 − a`.
///
/// # Errors
/// [`Error::InvalidParameter`] when `n = 0`, `x > n` or `a ∉ (0, 1)`.
///
/// # Examples
/// ```
/// // No successes in 10 trials: upper = 1 − 0.05^(1/10).
/// let u = lethe::binomial::upper_one_sided(0, 10, 0.05).unwrap();
/// assert!((u - (1.0 - 0.05f64.powf(0.1))).abs() < 1e-15);
/// ```
pub fn upper_one_sided(x: u64, n: u64, a: f64) -> Result<f64> {
    check(x, n, a)?;
    let nf = n as f64;
    Ok(if x == n {
        1.0
    } else if x == 0 {
        // 1 − a^{1/n}, computed without cancellation.
        -(a.ln() / nf).exp_m1()
    } else {
        upper_quantile(x, n, a)
    })
}

/// One-sided lower Clopper–Pearson bound: `P(p ≥ lower) ≥ 1 − a`.
///
/// # Errors
/// [`Error::InvalidParameter`] when `n = 0`, `x > n` or `a ∉ (0, 1)`.
pub fn lower_one_sided(x: u64, n: u64, a: f64) -> Result<f64> {
    check(x, n, a)?;
    let nf = n as f64;
    Ok(if x == 0 {
        0.0
    } else if x == n {
        (a.ln() / nf).exp()
    } else {
        lower_quantile(x, n, a)
    })
}

/// `upper(x, n, a)` for `0 < x < n`: the `p` with `P(Bin(n, p) ≤ x) = a`, to full relative precision. The small
/// side is always solved for (`1 − lower(n − x, n, a)` when `x > n/2`), so the answer is never formed as `1 − q`
/// with `q` near 1 (statrs' `inv_beta_reg`, used before, stops on an absolute tolerance and left ~4e-7 relative
/// error at `x = 1, n = 1e6`).
fn upper_quantile(x: u64, n: u64, a: f64) -> f64 {
    if 2 * x > n {
        return 1.0 - lower_quantile(n - x, n, a);
    }
    let (xf, nf) = (x as f64, n as f64);
    let start = 1.0 - inv_beta_reg(nf - xf, xf + 1.0, a);
    // F(p) = P(X ≤ x) decreases in p; F'(p) = −n · dbinom(x, n − 1, p).
    solve(start, a, false, |p| (cdf_le(x, n, p), -nf * dbinom(x, n - 1, p)))
}

/// `lower(x, n, a)` for `0 < x < n`: the `p` with `P(Bin(n, p) ≥ x) = a`, to full relative precision.
fn lower_quantile(x: u64, n: u64, a: f64) -> f64 {
    if 2 * x > n {
        return 1.0 - upper_quantile(n - x, n, a);
    }
    let (xf, nf) = (x as f64, n as f64);
    let start = inv_beta_reg(xf, nf - xf + 1.0, a);
    // G(p) = P(X ≥ x) increases in p; G'(p) = n · dbinom(x − 1, n − 1, p).
    solve(start, a, true, |p| (sf_ge(x, n, p), nf * dbinom(x - 1, n - 1, p)))
}

/// Newton on `ln F(p) = ln a`, safeguarded by a bracket in `(0, 1)` and bisection, stopping on a relative step.
fn solve(start: f64, a: f64, increasing: bool, f: impl Fn(f64) -> (f64, f64)) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut p = if start > 0.0 && start < 1.0 { start } else { 0.5 };
    let la = a.ln();
    for _ in 0..400 {
        let (v, d) = f(p);
        let g = v.ln() - la;
        if g == 0.0 {
            return p;
        }
        // g > 0 means F(p) > a: move up when F decreases, down when it increases.
        if (g > 0.0) != increasing {
            lo = p;
        } else {
            hi = p;
        }
        let step = if v > 0.0 && d != 0.0 { g * v / d } else { f64::NAN };
        let mut next = p - step;
        if !(next > lo && next < hi) {
            next = if lo > 0.0 { (lo * hi).sqrt() } else { 0.5 * hi };
        }
        if (next - p).abs() <= 1e-16 * p || next == p || hi - lo <= 1e-16 * lo {
            return next;
        }
        p = next;
    }
    p
}

/// `P(Bin(n, p) ≤ x)`: the terms summed outward from `x`, each from Loader's saddle-point `dbinom`.
fn cdf_le(x: u64, n: u64, p: f64) -> f64 {
    if (x as f64) > (n as f64) * p {
        // Above the mean the sum would climb to the mode first; the complement is ≤ ~½, so no cancellation.
        return if x >= n { 1.0 } else { 1.0 - sf_ge(x + 1, n, p) };
    }
    let q = 1.0 - p;
    let mut t = dbinom(x, n, p);
    let mut s = t;
    let mut j = x;
    while j > 0 && t > 0.0 {
        // term(j − 1) = term(j) · j q / ((n − j + 1) p)
        t *= (j as f64) * q / (((n - j + 1) as f64) * p);
        s += t;
        j -= 1;
        if t < s * 1e-18 {
            break;
        }
    }
    s.min(1.0)
}

/// `P(Bin(n, p) ≥ x)`, summed outward from `x`.
fn sf_ge(x: u64, n: u64, p: f64) -> f64 {
    if (x as f64) < (n as f64) * p {
        return if x == 0 { 1.0 } else { 1.0 - cdf_le(x - 1, n, p) };
    }
    let q = 1.0 - p;
    let mut t = dbinom(x, n, p);
    let mut s = t;
    let mut j = x;
    while j < n && t > 0.0 {
        // term(j + 1) = term(j) · (n − j) p / ((j + 1) q)
        t *= ((n - j) as f64) * p / (((j + 1) as f64) * q);
        s += t;
        j += 1;
        if t < s * 1e-18 {
            break;
        }
    }
    s.min(1.0)
}

/// Loader (2000) `dbinom_raw`, as R computes it: relative precision near machine epsilon for any `n`.
fn dbinom(x: u64, n: u64, p: f64) -> f64 {
    let q = 1.0 - p;
    let nf = n as f64;
    if x == 0 {
        return if n == 0 { 1.0 } else { (nf * (-p).ln_1p()).exp() };
    }
    if x == n {
        return (nf * p.ln()).exp();
    }
    let xf = x as f64;
    let lc = stirlerr(nf) - stirlerr(xf) - stirlerr(nf - xf) - bd0(xf, nf * p) - bd0(nf - xf, nf * q);
    let lf = (2.0 * std::f64::consts::PI).ln() + xf.ln() + (-xf / nf).ln_1p();
    (lc - 0.5 * lf).exp()
}

/// `ln Γ(n + 1) − (n + ½) ln n + n − ln √(2π)`, Loader's Stirling error.
fn stirlerr(n: f64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    // Exact values for n = 0.5, 1, …, 15 (R's sferr_halves, integer entries).
    const SF: [f64; 16] = [
        0.0,
        0.081_061_466_795_327_258_22,
        0.041_340_695_955_409_294_09,
        0.027_677_925_684_998_339_15,
        0.020_790_672_103_765_093_11,
        0.016_644_691_189_821_192_16,
        0.013_876_128_823_070_747_99,
        0.011_896_709_945_891_770_10,
        0.010_411_265_261_972_096_50,
        0.009_255_462_182_712_732_92,
        0.008_330_563_433_362_871_26,
        0.007_573_675_487_951_840_88,
        0.006_942_840_107_209_529_87,
        0.006_408_994_188_004_207_07,
        0.005_951_370_112_758_847_74,
        0.005_554_733_551_962_801_37,
    ];
    if n <= 15.0 && n.fract() == 0.0 {
        return SF[n as usize];
    }
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// `x ln(x / np) + np − x`, computed without cancellation (Loader's `bd0`).
fn bd0(x: f64, np: f64) -> f64 {
    if (x - np).abs() < 0.1 * (x + np) {
        let v = (x - np) / (x + np);
        let mut s = (x - np) * v;
        let mut ej = 2.0 * x * v;
        let vv = v * v;
        for j in 1..1000 {
            ej *= vv;
            let s1 = s + ej / f64::from(2 * j + 1);
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        s
    } else {
        x * (x / np).ln() + np - x
    }
}

/// Two-sided Clopper–Pearson interval at level `1 − alpha` (`alpha/2` in each tail), as statsmodels
/// `proportion_confint(x, n, alpha, method="beta")`.
///
/// # Errors
/// [`Error::InvalidParameter`] when `n = 0`, `x > n` or `alpha ∉ (0, 1)`.
pub fn two_sided(x: u64, n: u64, alpha: f64) -> Result<(f64, f64)> {
    Ok((lower_one_sided(x, n, alpha / 2.0)?, upper_one_sided(x, n, alpha / 2.0)?))
}

#[cfg(test)]
mod tail_tests {
    use super::*;

    #[test]
    fn tails_beyond_the_quantiles_range_are_refused_not_a_panic() {
        assert!(two_sided(3, 10, 2e-100).is_ok() && upper_one_sided(3, 10, 1e-100).is_ok());
        for a in [1e-101, 1e-170, 1e-300, 5e-324] {
            let e = two_sided(3, 10, a).unwrap_err().to_string();
            // 5e-324 / 2 rounds to 0, which is refused as outside (0, 1).
            assert!(e.contains("1e-100") || a / 2.0 == 0.0, "{e}");
            assert!(upper_one_sided(0, 10, a).is_err() && lower_one_sided(10, 10, a).is_err());
        }
    }
}
