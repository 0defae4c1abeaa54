//! The two-sample Kolmogorov–Smirnov test, as scipy's `scipy.stats.ks_2samp` (scipy 1.17.1,
//! `scipy/stats/_stats_py.py` `ks_2samp`, `_attempt_exact_2kssamp`, `_compute_prob_outside_square`,
//! `_count_paths_outside_method`; `scipy/stats/_stats_pythran.py` `_compute_outer_prob_inside_method`;
//! `scipy/stats/_ksstats.py` `_kolmogn` for `kstwo.sf`).
//!
//! This is the test open-unlearning's `forget_quality` runs (locuslab/open-unlearning
//! `src/evals/metrics/privacy.py` `ks_test`: `ks_2samp(forget_tr_stats, retain_tr_stats).pvalue`, defaults
//! `alternative='two-sided', method='auto'`) and the original TOFU's `aggregate_eval_stat.py`
//! `get_forget_quality`.
//!
//! * The statistic: `D = max |F₁ − F₂|` over the pooled sample (`searchsorted(side='right')` ECDFs, so ties are
//!   handled as scipy does), with its location and sign (`+1` when `F₁ − F₂` attains it, as scipy's
//!   `statistic_sign`).
//! * `method = exact`: the lattice-path counts scipy uses, step for step: `h = round(D · lcm(n₁, n₂))`
//!   (half to even), then for two-sided `n₁ = n₂` the Horner-like alternating sum, for `n₁ ≠ n₂` Hodges'
//!   inside method with Viehmann's recursion for `1 − p`; for one-sided `n₁ = n₂` the product
//!   `∏ (n − j)/(n + j + 1)`, for `n₁ ≠ n₂` the count of paths outside divided by `C(n₁ + n₂, n₁)`. When the
//!   exact computation fails (a count overflows, a probability outside `[0, 1]`) scipy falls back to the
//!   asymptotic method with a warning; so does this (`fell_back`).
//! * `method = asymp`: two-sided `kstwo.sf(D, round(n₁n₂/(n₁+n₂)))` (the one-sample exact distribution of that
//!   size, Simard & L'Ecuyer's choice of algorithm: Ruben–Gambino, Durbin matrix, Pomeranz, Pelz–Good,
//!   Birnbaum–Tingey/Smirnov); one-sided Hodges' approximation (his eq. 5.3).
//! * `method = auto`: exact when `max(n₁, n₂) ≤ 10000`, else asymp (scipy's `MAX_AUTO_N`).
//!
//! Agreement with scipy (tests/fixtures/golden_tools/ks_2samp.json, crate/tests/golden_ks.rs): the exact
//! two-sided and the equal-size one-sided paths are the same floating-point operations in the same order
//! (checked to 1e-14 relative); the one-sided unequal-size path uses `C(n, k)` by scipy's multiplication
//! formula below `k = 20` and log-gamma above (scipy: cephes `beta`), and the asymptotic path's Smirnov sum is
//! computed in f64 log-space where scipy's xsf uses double-double arithmetic: both are checked to 1e-10
//! relative.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::options::Alternative;

/// How the p-value is computed, as `ks_2samp(method=)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KsMethod {
    #[default]
    Auto,
    Exact,
    Asymp,
}

impl std::str::FromStr for KsMethod {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Self::Auto),
            "exact" => Ok(Self::Exact),
            "asymp" | "asymptotic" => Ok(Self::Asymp),
            _ => Err(Error::param("method", s, "one of auto, exact, asymp")),
        }
    }
}

/// scipy's `MAX_AUTO_N`: `auto` is exact up to this many values in the larger sample.
pub const MAX_AUTO_N: usize = 10_000;

/// The result of [`ks_2samp`], with scipy's fields.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Ks2Result {
    #[serde(serialize_with = "crate::json::f64")]
    pub statistic: f64,
    #[serde(serialize_with = "crate::json::f64")]
    pub pvalue: f64,
    /// The value at which the ECDF difference attains the statistic.
    #[serde(serialize_with = "crate::json::f64")]
    pub statistic_location: f64,
    /// `+1` when `F₁ − F₂` attains it, `−1` when `F₂ − F₁` does.
    pub statistic_sign: i8,
    pub alternative: Alternative,
    /// The method asked for and the one that computed the p-value (`exact` or `asymp`).
    pub method_requested: KsMethod,
    pub method_used: KsMethod,
    /// The exact computation failed and the asymptotic one answered (scipy warns "Exact calculation
    /// unsuccessful. Switching to method=asymp").
    pub fell_back: bool,
    pub n1: usize,
    pub n2: usize,
}

fn check(name: &str, v: &[f64]) -> Result<()> {
    if v.is_empty() {
        return Err(Error::Empty {
            input: name.into(),
            fix: "the two-sample KS test needs at least one value in each sample".into(),
        });
    }
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return Err(Error::NonFinite {
            input: name.into(),
            value: f64::NAN,
            location: format!("position {i}"),
        });
    }
    Ok(())
}

/// numpy's `searchsorted(sorted, v, side='right')`: how many of `sorted` are `<= v`.
fn count_le(sorted: &[f64], v: f64) -> usize {
    sorted.partition_point(|&a| a <= v)
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The two-sample KS test of `x` against `y`, as `scipy.stats.ks_2samp(x, y, alternative, method)`.
///
/// # Errors
/// [`Error::Empty`] for an empty sample, [`Error::NonFinite`] at a NaN (scipy would return NaN); ±∞ are
/// ordinary values.
pub fn ks_2samp(x: &[f64], y: &[f64], alternative: Alternative, method: KsMethod) -> Result<Ks2Result> {
    check("x", x)?;
    check("y", y)?;
    let mut d1 = x.to_vec();
    let mut d2 = y.to_vec();
    d1.sort_unstable_by(f64::total_cmp);
    d2.sort_unstable_by(f64::total_cmp);
    let (n1, n2) = (d1.len(), d2.len());
    // cddiffs over data_all = concat(data1, data2); argmin/argmax take the first occurrence.
    let (mut min_v, mut min_at, mut max_v, mut max_at) = (f64::INFINITY, 0.0, f64::NEG_INFINITY, 0.0);
    for &v in d1.iter().chain(d2.iter()) {
        let c = count_le(&d1, v) as f64 / n1 as f64 - count_le(&d2, v) as f64 / n2 as f64;
        if c < min_v {
            min_v = c;
            min_at = v;
        }
        if c > max_v {
            max_v = c;
            max_at = v;
        }
    }
    let min_s = (-min_v).clamp(0.0, 1.0);
    let max_s = max_v;
    let (mut d, location, sign) =
        if alternative == Alternative::Less || (alternative == Alternative::TwoSided && min_s > max_s) {
            (min_s, min_at, -1i8)
        } else {
            (max_s, max_at, 1i8)
        };
    let g = gcd(n1 as u64, n2 as u64);
    let (n1g, n2g) = (n1 as u64 / g, n2 as u64 / g);
    let mut mode = match method {
        KsMethod::Auto => {
            if n1.max(n2) <= MAX_AUTO_N {
                KsMethod::Exact
            } else {
                KsMethod::Asymp
            }
        }
        m => m,
    };
    let mut fell_back = false;
    if mode == KsMethod::Exact && n1g as f64 >= f64::from(i32::MAX) / n2g as f64 {
        mode = KsMethod::Asymp;
        fell_back = true;
    }
    let mut prob = f64::NEG_INFINITY;
    if mode == KsMethod::Exact {
        let (ok, dd, p) = attempt_exact(n1 as u64, n2 as u64, g, d, alternative);
        d = dd;
        if ok {
            prob = p;
        } else {
            mode = KsMethod::Asymp;
            fell_back = true;
        }
    }
    if mode == KsMethod::Asymp {
        let (m, n) = if n1 >= n2 {
            (n1 as f64, n2 as f64)
        } else {
            (n2 as f64, n1 as f64)
        };
        let en = m * n / (m + n);
        prob = if alternative == Alternative::TwoSided {
            kstwo_sf(d, en.round_ties_even())
        } else {
            let z = en.sqrt() * d;
            let expt = -2.0 * z * z - 2.0 * z * (m + 2.0 * n) / (m * n * (m + n)).sqrt() / 3.0;
            expt.exp()
        };
    }
    Ok(Ks2Result {
        statistic: d,
        pvalue: prob.clamp(0.0, 1.0),
        statistic_location: location,
        statistic_sign: sign,
        alternative,
        method_requested: method,
        method_used: mode,
        fell_back,
        n1,
        n2,
    })
}

/// `_attempt_exact_2kssamp`: (success, d rounded to the lattice, p).
fn attempt_exact(n1: u64, n2: u64, g: u64, d: f64, alternative: Alternative) -> (bool, f64, f64) {
    let lcm = (n1 / g) * n2;
    let h = (d * lcm as f64).round_ties_even() as u64;
    let d = h as f64 / lcm as f64;
    if h == 0 {
        return (true, d, 1.0);
    }
    let prob = if alternative == Alternative::TwoSided {
        if n1 == n2 {
            prob_outside_square(n1 as i64, h as i64)
        } else {
            outer_prob_inside_method(n1 as i64, n2 as i64, g as i64, h as i64)
        }
    } else if n1 == n2 {
        // np.prod((n1 - jrange) / (n1 + jrange + 1.0))
        let mut p = 1.0;
        for j in 0..h {
            p *= (n1 as f64 - j as f64) / (n1 as f64 + j as f64 + 1.0);
        }
        p
    } else {
        let num_paths = count_paths_outside(n1, n2, g, h);
        let bin = binom((n1 + n2) as f64, n1 as f64);
        if !num_paths.is_finite() || num_paths > bin || bin.is_infinite() {
            return (false, d, f64::NAN);
        }
        num_paths / bin
    };
    if !(0.0..=1.0).contains(&prob) {
        return (false, d, prob);
    }
    (true, d, prob)
}

/// `_compute_prob_outside_square(n, h)`: Pr(D_{n,n} ≥ h/n).
fn prob_outside_square(n: i64, h: i64) -> f64 {
    let mut p = 0.0f64;
    let mut k = (n as f64 / h as f64).floor() as i64;
    while k >= 0 {
        let mut p1 = 1.0f64;
        for j in 0..h {
            p1 = (n - k * h - j) as f64 * p1 / (n + k * h + j + 1) as f64;
        }
        p = p1 * (1.0 - p);
        k -= 1;
    }
    2.0 * p
}

/// `_compute_outer_prob_inside_method(m, n, g, h)` (scipy's pythran module), line for line.
fn outer_prob_inside_method(m: i64, n: i64, g: i64, h: i64) -> f64 {
    let (m, n) = if m < n { (n, m) } else { (m, n) };
    let mg = m / g;
    let ng = n / g;
    let mut minj: i64 = 0;
    let mut maxj: i64 = ((h as f64 / mg as f64).ceil() as i64).min(n + 1);
    let mut curlen = maxj - minj;
    let len_a = (2 * maxj + 2).min(n + 1) as usize;
    let mut a = vec![1.0f64; len_a];
    for v in a.iter_mut().take(maxj as usize).skip(minj as usize) {
        *v = 0.0;
    }
    for i in 1..=m {
        let (lastminj, lastlen) = (minj, curlen);
        minj = (((ng * i - h) as f64 / mg as f64).floor() as i64 + 1).max(0);
        minj = minj.min(n);
        maxj = (((ng * i + h) as f64 / mg as f64).ceil() as i64).min(n + 1);
        if maxj <= minj {
            return 1.0;
        }
        let mut val = if minj == 0 { 0.0 } else { 1.0 };
        for jj in 0..(maxj - minj) {
            let j = jj + minj;
            let src = a.get((jj + minj - lastminj) as usize).copied().unwrap_or(f64::NAN);
            val = (src * i as f64 + val * j as f64) / (i + j) as f64;
            if let Some(slot) = a.get_mut(jj as usize) {
                *slot = val;
            }
        }
        curlen = maxj - minj;
        if lastlen > curlen {
            let lo = (maxj - minj) as usize;
            let hi = ((maxj - minj + (lastlen - curlen)) as usize).min(a.len());
            for v in a.iter_mut().take(hi).skip(lo) {
                *v = 1.0;
            }
        }
    }
    a.get((maxj - minj - 1) as usize).copied().unwrap_or(f64::NAN)
}

/// `_count_paths_outside_method(m, n, g, h)`.
fn count_paths_outside(m: u64, n: u64, g: u64, h: u64) -> f64 {
    let (m, n) = if m < n { (n, m) } else { (m, n) };
    let (m, n, g, h) = (m as i64, n as i64, g as i64, h as i64);
    let mg = m / g;
    let ng = n / g;
    // lxj = n + (mg-h)//mg (floor division)
    let lxj = n + (mg - h).div_euclid(mg);
    if lxj <= 0 {
        return binom((m + n) as f64, n as f64);
    }
    let xj: Vec<i64> = (0..lxj).map(|j| (h + mg * j + ng - 1).div_euclid(ng)).collect();
    let lxj = lxj as usize;
    let mut b = vec![0.0f64; lxj];
    b[0] = 1.0;
    for j in 1..lxj {
        let mut bj = binom((xj[j] + j as i64) as f64, j as f64);
        for i in 0..j {
            let bin = binom((xj[j] - xj[i] + (j - i) as i64) as f64, (j - i) as f64);
            bj -= bin * b[i];
        }
        b[j] = bj;
    }
    let mut num_paths = 0.0;
    for (j, &bj) in b.iter().enumerate() {
        let bin = binom(((m - xj[j]) + (n - j as i64)) as f64, (n - j as i64) as f64);
        num_paths += bj * bin;
    }
    num_paths
}

/// `scipy.special.binom(n, k)` for integer-valued `0 <= k <= n`: the multiplication formula below `k = 20`
/// (after reducing `k` by symmetry, with the same rescaling above 1e50), else `1/((n+1)·B(n−k+1, k+1))`
/// through log-gamma.
fn binom(n: f64, k: f64) -> f64 {
    if k < 0.0 || k > n {
        return 0.0;
    }
    let mut kx = k.floor();
    let nx = n.floor();
    if nx == n && kx > nx / 2.0 && nx > 0.0 {
        kx = nx - kx;
    }
    if kx < 20.0 {
        let (mut num, mut den) = (1.0f64, 1.0f64);
        for i in 1..=(kx as i64) {
            num *= i as f64 + n - kx;
            den *= i as f64;
            if num.abs() > 1e50 {
                num /= den;
                den = 1.0;
            }
        }
        return num / den;
    }
    use statrs::function::gamma::ln_gamma;
    (ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)).exp()
}

// ---- kstwo.sf: scipy/stats/_ksstats.py `_kolmogn(n, x, cdf=False)` ----

const E128: i32 = 128;
const SQRT2PI: f64 = 2.506_628_274_631_000_2;
const LOG_2PI: f64 = 1.837_877_066_409_345_3;
const MIN_LOG: f64 = -708.0;
const PI_SQUARED: f64 = std::f64::consts::PI * std::f64::consts::PI;
// scipy's literals, kept as written (they round to the same f64).
#[allow(clippy::excessive_precision)]
const STIRLING: [f64; 8] = [
    -2.955065359477124183e-2,
    6.4102564102564102564e-3,
    -1.9175269175269175269e-3,
    8.4175084175084175084e-4,
    -5.952380952380952381e-4,
    7.9365079365079365079e-4,
    -2.7777777777777777778e-3,
    8.3333333333333333333e-2,
];

fn ep128() -> f64 {
    2f64.powi(E128)
}
fn em128() -> f64 {
    2f64.powi(-E128)
}

/// `scipy.stats.kstwo.sf(x, n)`: Pr(D_n > x) of the one-sample two-sided statistic (the asymptotic path of
/// [`ks_2samp`] with `n = round(n₁n₂/(n₁+n₂))`).
pub fn kstwo_sf(x: f64, n: f64) -> f64 {
    if x.is_nan() || n < 1.0 {
        return f64::NAN;
    }
    // support (0.5/n, 1)
    if x >= 1.0 {
        return 0.0;
    }
    if x <= 0.5 / n {
        return 1.0;
    }
    kolmogn_sf(n as u64, x).clamp(0.0, 1.0)
}

fn log_nfactorial_div_n_pow_n(n: f64) -> f64 {
    let rn = 1.0 / n;
    let t = rn / n;
    let mut poly = 0.0;
    for c in STIRLING {
        poly = poly * t + c;
    }
    n.ln() / 2.0 - n + LOG_2PI / 2.0 + rn * poly
}

fn kolmogn_sf(n: u64, x: f64) -> f64 {
    let nf = n as f64;
    if x >= 1.0 {
        return 0.0;
    }
    if x <= 0.0 {
        return 1.0;
    }
    let t = nf * x;
    if t <= 1.0 {
        if t <= 0.5 {
            return 1.0;
        }
        let prob = if n <= 140 {
            let mut p = 1.0;
            for i in 1..=n {
                p *= i as f64 * (1.0 / nf) * (2.0 * t - 1.0);
            }
            p
        } else {
            (log_nfactorial_div_n_pow_n(nf) + nf * (2.0 * t - 1.0).ln()).exp()
        };
        return 1.0 - prob;
    }
    if t >= nf - 1.0 {
        return 2.0 * (1.0 - x).powf(nf);
    }
    if x >= 0.5 {
        return 2.0 * smirnov_sf(n, x);
    }
    let nxsquared = t * x;
    if n <= 140 {
        if nxsquared <= 0.754693 {
            return 1.0 - kolmogn_dmtw_cdf(n, x);
        }
        if nxsquared <= 4.0 {
            return 1.0 - kolmogn_pomeranz_cdf(n, x);
        }
        return 2.0 * smirnov_sf(n, x);
    }
    if nxsquared >= 370.0 {
        return 0.0;
    }
    if nxsquared >= 2.2 {
        return 2.0 * smirnov_sf(n, x);
    }
    let cdf = if nxsquared >= 18.0 {
        1.0
    } else if n <= 100_000 && nf * x.powf(1.5) <= 1.4 {
        kolmogn_dmtw_cdf(n, x)
    } else {
        kolmogn_pelz_good_cdf(n, x)
    };
    1.0 - cdf.clamp(0.0, 1.0)
}

fn matmul(a: &[f64], b: &[f64], m: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * m];
    for i in 0..m {
        for k in 0..m {
            let aik = a[i * m + k];
            for j in 0..m {
                c[i * m + j] += aik * b[k * m + j];
            }
        }
    }
    c
}

/// `_kolmogn_DMTW`: Durbin's matrix (Marsaglia–Tsang–Wang), the CDF.
fn kolmogn_dmtw_cdf(n: u64, d: f64) -> f64 {
    if d >= 1.0 {
        return 1.0;
    }
    let nd = n as f64 * d;
    if nd <= 0.5 {
        return 0.0;
    }
    let k = nd.ceil() as usize;
    let h = k as f64 - nd;
    let m = 2 * k - 1;
    let mut hm = vec![0.0f64; m * m];
    let mut v: Vec<f64> = (1..=m).map(|j| 1.0 - h.powi(j as i32)).collect();
    let mut w = vec![0.0f64; m];
    let mut fac = 1.0f64;
    for j in 1..=m {
        w[j - 1] = fac;
        fac /= j as f64;
        v[j - 1] *= fac;
    }
    let tt = (2.0 * h - 1.0).max(0.0).powi(m as i32) - 2.0 * h.powi(m as i32);
    v[m - 1] = (1.0 + tt) * fac;
    for i in 1..m {
        for r in (i - 1)..m {
            hm[r * m + i] = w[r - (i - 1)];
        }
    }
    for r in 0..m {
        hm[r * m] = v[r];
    }
    for c in 0..m {
        hm[(m - 1) * m + c] = v[m - 1 - c];
    }
    let mut hpwr = vec![0.0f64; m * m];
    for i in 0..m {
        hpwr[i * m + i] = 1.0;
    }
    let mut nn = n;
    let mut expnt: i32 = 0;
    let mut hexpnt: i32 = 0;
    while nn > 0 {
        if nn % 2 == 1 {
            hpwr = matmul(&hpwr, &hm, m);
            expnt += hexpnt;
        }
        hm = matmul(&hm, &hm, m);
        hexpnt *= 2;
        if hm[(k - 1) * m + (k - 1)].abs() > ep128() {
            for v in hm.iter_mut() {
                *v /= ep128();
            }
            hexpnt += E128;
        }
        nn /= 2;
    }
    let mut p = hpwr[(k - 1) * m + (k - 1)];
    for i in 1..=n {
        p = i as f64 * p / n as f64;
        if p.abs() < em128() {
            p *= ep128();
            expnt -= E128;
        }
    }
    if expnt != 0 {
        p *= 2f64.powi(expnt);
    }
    p.clamp(0.0, 1.0)
}

fn pomeranz_j1j2(i: i64, n: i64, ll: i64, ceilf: i64, roundf: i64) -> (i64, i64) {
    let (j1, j2) = if i == 0 {
        (-ll - ceilf - 1, ll + ceilf - 1)
    } else {
        let (ip1div2, ip1mod2) = ((i + 1) / 2, (i + 1) % 2);
        if ip1mod2 == 0 {
            if ip1div2 == n + 1 {
                (n - ll - ceilf - 1, n + ll + ceilf - 1)
            } else {
                (ip1div2 - 1 - ll - roundf - 1, ip1div2 + ll - 1 + ceilf - 1)
            }
        } else {
            (ip1div2 - 1 - ll - 1, ip1div2 + ll + roundf - 1)
        }
    };
    ((j1 + 2).max(0), j2.min(n))
}

/// `_kolmogn_Pomeranz`: the CDF.
fn kolmogn_pomeranz_cdf(n: u64, x: f64) -> f64 {
    let n = n as i64;
    let t = n as f64 * x;
    let ll = t.floor() as i64;
    let f = t - ll as f64;
    let g = f.min(1.0 - f);
    let ceilf = i64::from(f > 0.0);
    let roundf = i64::from(f > 0.5);
    let npwrs = (2 * (ll + 1)) as usize;
    let mut gpower = vec![0.0f64; npwrs];
    let mut twogpower = vec![0.0f64; npwrs];
    let mut onem2gpower = vec![0.0f64; npwrs];
    gpower[0] = 1.0;
    twogpower[0] = 1.0;
    onem2gpower[0] = 1.0;
    let mut expnt: i32 = 0;
    let (g_over_n, two_g_over_n, one_minus_two_g_over_n) =
        (g / n as f64, 2.0 * g / n as f64, (1.0 - 2.0 * g) / n as f64);
    for m in 1..npwrs {
        gpower[m] = gpower[m - 1] * g_over_n / m as f64;
        twogpower[m] = twogpower[m - 1] * two_g_over_n / m as f64;
        onem2gpower[m] = onem2gpower[m - 1] * one_minus_two_g_over_n / m as f64;
    }
    let mut v0 = vec![0.0f64; npwrs];
    let mut v1 = vec![0.0f64; npwrs];
    v1[0] = 1.0;
    let (mut v0s, mut v1s) = (0i64, 0i64);
    let (mut j1, _) = pomeranz_j1j2(0, n, ll, ceilf, roundf);
    let mut j2;
    for i in 1..(2 * n + 2) {
        let k1 = j1;
        std::mem::swap(&mut v0, &mut v1);
        std::mem::swap(&mut v0s, &mut v1s);
        v1.iter_mut().for_each(|v| *v = 0.0);
        (j1, j2) = pomeranz_j1j2(i, n, ll, ceilf, roundf);
        let pwrs = if i == 1 || i == 2 * n + 1 {
            &gpower
        } else if i % 2 == 1 {
            &twogpower
        } else {
            &onem2gpower
        };
        let ln2 = j2 - k1 + 1;
        if ln2 > 0 {
            let ln2u = ln2 as usize;
            let start = (k1 - v0s) as usize;
            let a = &v0[start.min(npwrs)..(start + ln2u).min(npwrs)];
            let b = &pwrs[..ln2u.min(npwrs)];
            // np.convolve(a, b) (full)
            let mut conv = vec![0.0f64; a.len() + b.len() - 1];
            for (ia, &av) in a.iter().enumerate() {
                for (ib, &bv) in b.iter().enumerate() {
                    conv[ia + ib] += av * bv;
                }
            }
            let conv_start = (j1 - k1) as usize;
            let conv_len = (j2 - j1 + 1).max(0) as usize;
            for c in 0..conv_len {
                if let (Some(slot), Some(&val)) = (v1.get_mut(c), conv.get(conv_start + c)) {
                    *slot = val;
                }
            }
            let mx = v1.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if 0.0 < mx && mx < em128() {
                v1.iter_mut().for_each(|v| *v *= ep128());
                expnt -= E128;
            }
            v1s = v0s + j1 - k1;
        }
    }
    let mut ans = v1.get((n - v1s) as usize).copied().unwrap_or(0.0);
    for m in 1..=n {
        if ans.abs() > ep128() {
            ans *= em128();
            expnt += E128;
        }
        ans *= m as f64;
    }
    if expnt != 0 {
        ans *= 2f64.powi(expnt);
    }
    ans.clamp(0.0, 1.0)
}

/// `_kolmogn_PelzGood`: the CDF.
fn kolmogn_pelz_good_cdf(n: u64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let pi = std::f64::consts::PI;
    let pi4 = pi.powi(4);
    let pi6 = pi.powi(6);
    let nf = n as f64;
    let z = nf.sqrt() * x;
    let (zsquared, zthree, zfour, zsix) = (z * z, z.powi(3), z.powi(4), z.powi(6));
    let qlog = -PI_SQUARED / 8.0 / zsquared;
    if qlog < MIN_LOG {
        return 0.0;
    }
    let q = qlog.exp();
    let k1a = -zsquared;
    let k1b = PI_SQUARED / 4.0;
    let k2a = 6.0 * zsix + 2.0 * zfour;
    let k2b = (2.0 * zfour - 5.0 * zsquared) * PI_SQUARED / 4.0;
    let k2c = pi4 * (1.0 - 2.0 * zsquared) / 16.0;
    let k3d = pi6 * (5.0 - 30.0 * zsquared) / 64.0;
    let k3c = pi4 * (-60.0 * zsquared + 212.0 * zfour) / 16.0;
    let k3b = PI_SQUARED * (135.0 * zfour - 96.0 * zsix) / 4.0;
    let k3a = -30.0 * zsix - 90.0 * z.powi(8);
    let mut k0to3 = [0.0f64; 4];
    let maxk = (16.0 * z / pi).ceil() as i64;
    for k in (1..=maxk).rev() {
        let m = (2 * k - 1) as f64;
        let (msq, m4, m6) = (m * m, m.powi(4), m.powi(6));
        let qpower = q.powf(8.0 * k as f64);
        let coeffs = [
            1.0,
            k1a + k1b * msq,
            k2a + k2b * msq + k2c * m4,
            k3a + k3b * msq + k3c * m4 + k3d * m6,
        ];
        for (acc, c) in k0to3.iter_mut().zip(coeffs) {
            *acc = *acc * qpower + c;
        }
    }
    let div = [z, 6.0 * zfour, 72.0 * z.powi(7), 6480.0 * z.powi(10)];
    for (acc, dv) in k0to3.iter_mut().zip(div) {
        *acc = *acc * q * SQRT2PI / dv;
    }
    let q2 = (-PI_SQUARED / 2.0 / zsquared).exp();
    let (mut k2extra, mut k3extra) = (0.0f64, 0.0f64);
    let sqrt3z = 3f64.sqrt() * z;
    for k in (1..=maxk).rev() {
        let ks = k as f64;
        let ksq = ks * ks;
        let qp = q2.powf(ksq);
        k2extra += ksq * qp;
        let kspi = pi * ks;
        k3extra += (sqrt3z + kspi) * (sqrt3z - kspi) * ksq * qp;
    }
    k0to3[2] += k2extra * PI_SQUARED * SQRT2PI / (-36.0 * zthree);
    k0to3[3] += k3extra * PI_SQUARED * SQRT2PI / (216.0 * zsix);
    for (i, acc) in k0to3.iter_mut().enumerate() {
        *acc /= nf.powf(i as f64 / 2.0);
    }
    k0to3.iter().sum()
}

/// `scipy.special.smirnov(n, x)`: Pr(D⁺_n ≥ x), the Birnbaum–Tingey sum (lower sum: terms `v = 0 ..
/// floor(n(1−x))`), each term in log space with the binomial accumulated term by term.
fn smirnov_sf(n: u64, x: f64) -> f64 {
    let nf = n as f64;
    if n == 1 {
        return x.mul_add(-1.0, 1.0).clamp(0.0, 1.0);
    }
    if x <= 0.0 {
        return 1.0;
    }
    if x >= 1.0 {
        return 0.0;
    }
    if -2.0 * nf * x * x < -7.083_964_185_322_641e2 {
        return 0.0;
    }
    let nx = nf * x;
    let nxfl = nx.floor();
    if nxfl >= nf - 1.0 {
        return (1.0 - x).powf(nf);
    }
    if nxfl == 0.0 || (nxfl == 1.0 && nx == 1.0) {
        let t = (1.0 + x).powf(nf - 1.0);
        return 1.0 - x * t;
    }
    let last = (nf * (1.0 - x)).floor() as u64;
    let last = if (nf * (1.0 - x)) == last as f64 {
        last.saturating_sub(1)
    } else {
        last
    };
    let mut sum = 0.0f64;
    let mut comp = 0.0f64;
    let mut ln_c = 0.0f64;
    for v in 0..=last.min(n) {
        let vf = v as f64;
        let a = x + vf / nf;
        let b = (nf - vf) / nf - x;
        if b > 0.0 {
            let lt = ln_c + (vf - 1.0) * a.ln() + (nf - vf) * b.ln();
            let term = lt.exp();
            // Kahan summation
            let y = term - comp;
            let t = sum + y;
            comp = (t - sum) - y;
            sum = t;
        }
        ln_c += ((nf - vf) / (vf + 1.0)).ln();
    }
    (x * sum).clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scipy_docstring_example_shape() {
        // Identical samples: D = 0, p = 1.
        let r = ks_2samp(
            &[1.0, 2.0, 3.0],
            &[1.0, 2.0, 3.0],
            Alternative::TwoSided,
            KsMethod::Auto,
        )
        .unwrap();
        assert_eq!(r.statistic, 0.0);
        assert_eq!(r.pvalue, 1.0);
        // Disjoint samples of 3 and 3: D = 1, p = 2 / C(6, 3) = 0.1.
        let r = ks_2samp(
            &[1.0, 2.0, 3.0],
            &[4.0, 5.0, 6.0],
            Alternative::TwoSided,
            KsMethod::Exact,
        )
        .unwrap();
        assert_eq!(r.statistic, 1.0);
        assert!((r.pvalue - 0.1).abs() < 1e-15);
        assert_eq!(r.statistic_sign, 1);
    }

    #[test]
    fn refuses_nan_and_empty() {
        assert!(ks_2samp(&[], &[1.0], Alternative::TwoSided, KsMethod::Auto).is_err());
        assert!(ks_2samp(&[f64::NAN], &[1.0], Alternative::TwoSided, KsMethod::Auto).is_err());
    }
}
