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
    let (xf, nf) = (x as f64, n as f64);
    Ok(if x == n {
        1.0
    } else if x == 0 {
        // 1 − a^{1/n}, computed without cancellation.
        -(a.ln() / nf).exp_m1()
    } else {
        1.0 - inv_beta_reg(nf - xf, xf + 1.0, a)
    })
}

/// One-sided lower Clopper–Pearson bound: `P(p ≥ lower) ≥ 1 − a`.
///
/// # Errors
/// [`Error::InvalidParameter`] when `n = 0`, `x > n` or `a ∉ (0, 1)`.
pub fn lower_one_sided(x: u64, n: u64, a: f64) -> Result<f64> {
    check(x, n, a)?;
    let (xf, nf) = (x as f64, n as f64);
    Ok(if x == 0 {
        0.0
    } else if x == n {
        (a.ln() / nf).exp()
    } else {
        inv_beta_reg(xf, nf - xf + 1.0, a)
    })
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
