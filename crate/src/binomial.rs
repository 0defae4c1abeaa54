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
//! (`upper(0, n, a) = 1 − a^{1/n}`, `lower(n, n, a) = a^{1/n}`). In between, each bound is the root of the
//! binomial tail it is defined by, `P(Bin(n, upper) ≤ x) = a` and `P(Bin(n, lower) ≥ x) = a` (the same numbers
//! as the beta quantiles above), solved to full relative precision by [`solve_tail`]: a tiny `a` never goes
//! through the rounding of `1 − a`, and a bound near 1e-7 is as precise as one near 0.5. This module is the one
//! place a Clopper–Pearson bound is computed; every interval in Lethe (MIA and LiRA TPR/FPR, the competition's
//! Clopper–Pearson variant, ε lower bounds, the leakage bounds and planner) calls it.

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

/// The smallest tail probability a bound is computed for. It was set when the bounds came from statrs' beta
/// quantile, which panics below about 1e-165 (found by the `stats` fuzz target); the tail solver has no such
/// limit, but no audit asks for less and the range is part of the interface.
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

/// `upper(x, n, a)` for `0 < x < n`: the `p` with `P(Bin(n, p) ≤ x) = a`, to full relative precision.
fn upper_quantile(x: u64, n: u64, a: f64) -> f64 {
    let nf = n as f64;
    // P(X ≤ x) decreases in p, with derivative −n · dbinom(x, n − 1, p). The root lies above x/n.
    let start = (x as f64 + 1.0) / (nf + 1.0);
    solve_tail(a, start, false, |p| (cdf_le(x, n, p), -nf * dbinom(x, n - 1, p)))
}

/// `lower(x, n, a)` for `0 < x < n`: the `p` with `P(Bin(n, p) ≥ x) = a`, to full relative precision.
fn lower_quantile(x: u64, n: u64, a: f64) -> f64 {
    let nf = n as f64;
    // P(X ≥ x) increases in p, with derivative n · dbinom(x − 1, n − 1, p). The root lies below x/n.
    let start = x as f64 / (nf + 1.0);
    solve_tail(a, start, true, |p| (sf_ge(x, n, p), nf * dbinom(x - 1, n - 1, p)))
}

/// The Clopper–Pearson upper bound for a real count `s` in `n` trials, `Beta(s + 1, n − s).ppf(1 − a)`, to full
/// relative precision: the `p` with `I_{1−p}(n − s, s + 1) = a`. For a whole `s` this is [`upper_one_sided`]; a
/// fractional count arises in sample-size planning, where `s = p̂ · n` is kept real so that the criterion is smooth
/// in `n`. `s` is clamped to `[0, n]` (the bound is 1 at `s ≥ n`).
pub(crate) fn upper_real(s: f64, n: u64, a: f64) -> f64 {
    let nf = n as f64;
    if s >= nf {
        return 1.0;
    }
    if s <= 0.0 {
        return -(a.ln() / nf).exp_m1();
    }
    if s.fract() == 0.0 {
        return upper_quantile(s as u64, n, a);
    }
    let start = (s + 1.0) / (nf + 1.0);
    // d/dp I_{1−p}(n − s, s + 1) = −(Beta(s + 1, n − s) density) = −n · dbinom(s, n − 1, p), taken as a NaN
    // (so the solver bisects) where the real-count dbinom is undefined (s > n − 1).
    solve_tail(a, start, false, |p| {
        let d = if s < nf - 1.0 {
            nf * dbinom_real(s, nf - 1.0, p)
        } else {
            f64::NAN
        };
        (cdf_real(s, nf, p), -d)
    })
}

/// `I_{1−p}(n − s, s + 1)` for a real `s ∈ (−1, n)`: the lower tail `P(X ≤ s)` of the binomial extended to a
/// real count. Integration by parts gives `I_q(n − s, s + 1) = Σ_{j=0}^{⌊s⌋} dbinom(s − j, n, p) + I_q(n + 1 − f,
/// f)` with `f = s − ⌊s⌋`; the terms are summed outward from `s` while they decrease (`s ≤ np`, the complement
/// `1 − I_p(s + 1, n − s)`, the same function at `n − 1 − s` and `q`, above the mean), and the remainder, needed
/// only when the terms reach `f` without becoming negligible (`np` below about 45), comes from its continued
/// fraction (whose first steps cancel at `n ≥ 1e7`: about 1e-11 relative there, full precision below). Every step is
/// bounded: at most `⌊s⌋ + 1` terms and [`CF_STEPS`] fraction steps.
fn cdf_real(s: f64, n: f64, p: f64) -> f64 {
    if p <= 0.0 {
        return 1.0;
    }
    if p >= 1.0 {
        return 0.0;
    }
    if s > n * p {
        return (1.0 - cdf_real(n - 1.0 - s, n, 1.0 - p)).clamp(0.0, 1.0);
    }
    let q = 1.0 - p;
    let f = s - s.floor();
    let mut sum = 0.0;
    if s > 0.0 {
        let mut y = s;
        let mut t = dbinom_real(y, n, p);
        sum = t;
        // term(y − 1) = term(y) · y q / ((n − y + 1) p), below 1 for y ≤ np.
        while y >= 1.0 {
            t *= y * q / ((n - y + 1.0) * p);
            sum += t;
            y -= 1.0;
            if t <= sum * 1e-18 {
                return sum.min(1.0);
            }
        }
    }
    (sum + beta_upper_small_shape(f, n, p)).min(1.0)
}

/// Most steps of the continued fraction in [`beta_upper_small_shape`]; it is used only where `np` is below about
/// 45, where it converges in far fewer.
const CF_STEPS: u32 = 10_000;

/// `P(Beta(f, n + 1 − f) > p) = I_q(n + 1 − f, f)` for `0 < f < 1`, from the Lentz continued fraction of the
/// regularized incomplete beta on whichever side it converges (Numerical Recipes' `betacf`), with the front
/// factor from the real-count dbinom: `p^f q^{n+1−f} / B(f, n + 1 − f) = f q · dbinom(f, n, p)`.
fn beta_upper_small_shape(f: f64, n: f64, p: f64) -> f64 {
    let q = 1.0 - p;
    let b = n + 1.0 - f;
    let k = f * q * dbinom_real(f, n, p);
    if p < (f + 1.0) / (n + 3.0) {
        (1.0 - k / f * beta_cf(f, b, p)).clamp(0.0, 1.0)
    } else {
        (k / b * beta_cf(b, f, q)).clamp(0.0, 1.0)
    }
}

/// The continued fraction of `I_x(a, b)` (Numerical Recipes 6.4, modified Lentz), stopped on a relative change of
/// one ulp or after [`CF_STEPS`] steps.
fn beta_cf(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let fix = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / fix(1.0 - qab * x / qap);
    let mut h = d;
    for m in 1..=CF_STEPS {
        let m = f64::from(m);
        let m2 = 2.0 * m;
        let aa = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / fix(1.0 + aa * d);
        c = fix(1.0 + aa / c);
        h *= d * c;
        let aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / fix(1.0 + aa * d);
        c = fix(1.0 + aa / c);
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() <= f64::EPSILON {
            break;
        }
    }
    h
}

/// Loader's `dbinom_raw` for a real count `0 < x < n` (R's takes doubles too): `Γ(n + 1) / (Γ(x + 1) Γ(n − x +
/// 1)) p^x q^(n−x)`.
fn dbinom_real(x: f64, n: f64, p: f64) -> f64 {
    let q = 1.0 - p;
    let lc = stirlerr(n) - stirlerr(x) - stirlerr(n - x) - bd0(x, n * p) - bd0(n - x, n * q);
    let lf = (2.0 * std::f64::consts::PI).ln() + x.ln() + (-x / n).ln_1p();
    (lc - 0.5 * lf).exp()
}

/// Most steps [`solve_tail`] takes. Newton converges in well under 20 on every case tried (k ∈ {1, 2, 5, n − 1},
/// n up to 1e7, a down to 1e-100); the bracket's bisection guarantees an end either way.
const MAX_STEPS: usize = 200;

/// The `p ∈ (0, 1)` with `t(p) = a` for a binomial tail `t` (`tail(p)` gives `t(p)` and `t'(p)`), monotone in
/// `p` (`increasing` says which way). Newton on `ln t = ln a` in `ln p`, where the tail at small `p` is nearly
/// linear (`ln P(X ≥ x) ≈ x ln p + c`), kept inside a bracket `[lo, hi]` that every evaluation narrows; a step
/// that leaves the bracket is replaced by its geometric midpoint (or `hi/16` while no lower end is known). It
/// stops on a relative step of 2 ulp, so the answer has full relative precision however small it is (statrs'
/// `inv_beta_reg`, used before, stopped on an absolute tolerance: 4e-7 relative error at `x = 1, n = 1e6`, and
/// it never returned at `n = 1e7`).
fn solve_tail(a: f64, start: f64, increasing: bool, tail: impl Fn(f64) -> (f64, f64)) -> f64 {
    let la = a.ln();
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    let mut p = start;
    for _ in 0..MAX_STEPS {
        let (t, dt) = tail(p);
        let g = t.ln() - la;
        if g == 0.0 {
            return p;
        }
        // t(p) > a: the root is below p where t increases, above it where t decreases.
        if (g > 0.0) == increasing {
            hi = p;
        } else {
            lo = p;
        }
        // d ln t / d ln p = p t'(p) / t(p); a tail that underflowed gives NaN here and falls to the bracket.
        let slope = p * dt / t;
        let mut next = p * (-g / slope).exp();
        if !(next > lo && next < hi) {
            next = if lo > 0.0 { (lo * hi).sqrt() } else { hi / 16.0 };
        }
        if (next - p).abs() <= 2.0 * f64::EPSILON * next || hi - lo <= 2.0 * f64::EPSILON * hi {
            return next;
        }
        p = next;
    }
    p
}

/// `P(Bin(n, p) ≤ x)`: the terms summed outward from `x` (each from Loader's `dbinom`) while they decrease, i.e.
/// for `x ≤ np`; above the mean the complement, which is then at most about ½, so no cancellation.
fn cdf_le(x: u64, n: u64, p: f64) -> f64 {
    if (x as f64) > (n as f64) * p {
        return if x >= n { 1.0 } else { 1.0 - sf_ge(x + 1, n, p) };
    }
    let q = 1.0 - p;
    let mut t = dbinom(x, n, p);
    let mut s = t;
    let mut j = x;
    // term(j − 1) = term(j) · j q / ((n − j + 1) p), a ratio below 1 for j ≤ np.
    while j > 0 && t > s * 1e-18 {
        t *= (j as f64) * q / (((n - j + 1) as f64) * p);
        s += t;
        j -= 1;
    }
    s.min(1.0)
}

/// `P(Bin(n, p) ≥ x)`: summed outward from `x` for `x ≥ np`, the complement below the mean.
fn sf_ge(x: u64, n: u64, p: f64) -> f64 {
    if (x as f64) < (n as f64) * p {
        return if x == 0 { 1.0 } else { 1.0 - cdf_le(x - 1, n, p) };
    }
    let q = 1.0 - p;
    let mut t = dbinom(x, n, p);
    let mut s = t;
    let mut j = x;
    // term(j + 1) = term(j) · (n − j) p / ((j + 1) q), a ratio below 1 for j ≥ np.
    while j < n && t > s * 1e-18 {
        t *= ((n - j) as f64) * p / (((j + 1) as f64) * q);
        s += t;
        j += 1;
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
    // Printed to 20 digits as R has them; checked against mpmath (within 1e-19).
    #[allow(clippy::excessive_precision)]
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
    if n <= 15.0 {
        // A real count (planning): R's stirlerr uses lgamma below 15 for what its table lacks.
        return statrs::function::gamma::ln_gamma(n + 1.0) - (n + 0.5) * n.ln() + n
            - 0.5 * (2.0 * std::f64::consts::PI).ln();
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

    /// Real (fractional) counts, as the sample-size planner asks: `Beta(s + 1, n − s).ppf(1 − a)` computed with
    /// mpmath (`betainc(s + 1, n − s, u, 1, regularized=True) = a` solved at 40 digits); scipy 1.17's
    /// `beta.isf(a, s + 1, n − s)` agrees with each to 2e-16. The tolerance is looser than the whole counts':
    /// the remainder's continued fraction loses digits at `n ≥ 1e7` (1.5e-12 relative at `n = 4e7`).
    #[test]
    #[allow(clippy::excessive_precision)] // the references as mpmath printed them
    fn real_counts_match_mpmath() {
        for (s, n, a, want) in [
            (1.5, 10, 0.025, 0.502_774_496_439_993_079_38),
            (0.3, 1000, 0.05, 0.003_548_651_574_766_735_435_9),
            (2.7, 1_000_000, 1e-10, 0.000_030_953_190_382_111_489_235),
            (1.32, 40_000_000, 0.025, 1.529_253_641_502_669_950_6e-7),
            (3.3, 10_000_000, 0.025, 9.215_546_640_474_691_170_8e-7),
            (49.5, 100, 0.025, 0.596_826_049_103_581_988_5),
            (99.5, 100, 0.05, 0.999_980_388_582_543_390_24),
            (0.01, 100_000, 0.01, 0.000_046_278_981_177_159_600_862),
        ] {
            let got = upper_real(s, n, a);
            let rel = ((got - want) / want).abs();
            assert!(rel < 1e-11, "s {s} n {n} a {a}: {got} vs {want}");
        }
        // Whole counts are the integer bound itself.
        assert_eq!(upper_real(3.0, 1000, 0.025), upper_one_sided(3, 1000, 0.025).unwrap());
    }

    /// Far tails (a = 1e-100) against the tail roots from mpmath at 50 digits (direct sums of the binomial terms,
    /// bisection to 40 digits), and large counts (k = 3e5 and 5e6 in 1e7) against the roots from
    /// tests/fixtures/golden_cp/large.py (mpmath, 45 digits). The large counts sum thousands of terms per step,
    /// so they also show the solver's steps stay few.
    #[test]
    #[allow(clippy::excessive_precision)] // the references as mpmath printed them
    fn far_tails_and_large_counts() {
        let rel = |got: f64, want: f64| ((got - want) / want).abs();
        for (k, n, a, u, l, tol) in [
            (
                37,
                100,
                1e-100,
                0.990_492_891_055_966_372_3,
                0.000_357_595_335_262_785_292_1,
                2e-14,
            ),
            (
                1,
                10,
                1e-100,
                0.999_999_999_994_005_157_5,
                1.000_000_000_000_000_02e-101,
                2e-14,
            ),
            (9, 10, 1e-100, 1.0, 5.994_842_503_193_003_975e-12, 2e-14),
            (
                5_000_000,
                10_000_000,
                0.025,
                0.500_309_947_478_628_910_6,
                0.499_690_052_521_371_089_4,
                2e-14,
            ),
            (
                300_000,
                10_000_000,
                1e-10,
                0.030_344_493_587_809_135_63,
                0.029_658_074_203_430_663_97,
                2e-14,
            ),
        ] {
            let (gu, gl) = (upper_one_sided(k, n, a).unwrap(), lower_one_sided(k, n, a).unwrap());
            assert!(rel(gu, u) <= tol, "upper({k}, {n}, {a}) = {gu:e}, want {u:e}");
            assert!(rel(gl, l) <= tol, "lower({k}, {n}, {a}) = {gl:e}, want {l:e}");
        }
    }
}
