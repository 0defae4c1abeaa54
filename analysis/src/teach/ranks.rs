//! Rank tests: Mann–Whitney and Wilcoxon on small seeded samples, with the pooled ranks and tie groups the tests
//! use and each test's exact null beside the normal approximation.

use lethe::mann_whitney::{self, MannWhitneyResult};
use lethe::rank::ties::{signed_rank_null, tie_groups};
use lethe::rank::{NullDistribution, rank_with_ties, tie_correction_term};
use lethe::wilcoxon::{self, SignedRankTable, WilcoxonParams, WilcoxonResult, ZeroMethod};
use lethe::{Alternative, PValueMethod};
use serde::{Deserialize, Serialize};

use super::{check_finite, check_range};
use crate::Result;
use crate::synthetic::Rng;

/// The rank topic's data: `x ~ N(shift, 1)` (`n_x` values) against `y ~ N(0, 1)` (`n_y`) for Mann–Whitney, and
/// `n_x` pairs with differences `N(shift, 1)` for Wilcoxon; with `ties`, every value is rounded to a multiple of ½.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RankRequest {
    pub n_x: usize,
    pub n_y: usize,
    pub shift: f64,
    pub ties: bool,
    pub alternative: Alternative,
    pub seed: u64,
}

impl Default for RankRequest {
    fn default() -> Self {
        Self {
            n_x: 8,
            n_y: 7,
            shift: 0.8,
            ties: false,
            alternative: Alternative::TwoSided,
            seed: 0,
        }
    }
}

/// Most values per sample in the rank topic.
pub const MAX_RANK_N: usize = 40;

/// One value of the pooled samples, in ascending order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PooledValue {
    pub value: f64,
    /// `x` or `y`.
    pub sample: char,
    /// Position in its sample.
    pub index: usize,
    /// Average rank in the pooled sample.
    pub rank: f64,
    /// Tie group (0, 1, …) when the value ties with another, else `None`.
    pub tie: Option<usize>,
}

/// A test result under one method, or why that method does not apply.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Outcome<T> {
    Ok(T),
    Err { error: String },
}

impl<T> From<lethe::Result<T>> for Outcome<T> {
    fn from(r: lethe::Result<T>) -> Self {
        match r {
            Ok(v) => Outcome::Ok(v),
            Err(e) => Outcome::Err { error: e.to_string() },
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct MannWhitneyView {
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    pub pooled: Vec<PooledValue>,
    /// `R₁`, the rank sum of `x`.
    pub rank_sum_x: f64,
    pub exact: Outcome<MannWhitneyResult>,
    pub asymptotic: Outcome<MannWhitneyResult>,
    /// scipy's rule (`method = auto`), as `lethe mwu`.
    pub auto: MannWhitneyResult,
    /// Exact no-ties null of U with the tie-corrected normal the asymptotic method uses.
    pub null: NullDistribution,
}

/// One pair of the Wilcoxon table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SignedRow {
    pub x: f64,
    pub y: f64,
    pub d: f64,
    /// Rank of `|d|` (0: a zero difference, dropped).
    pub rank: f64,
    pub sign: i8,
    pub tie: Option<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct WilcoxonView {
    pub rows: Vec<SignedRow>,
    pub table: SignedRankTable,
    pub exact: Outcome<WilcoxonResult>,
    pub asymptotic: Outcome<WilcoxonResult>,
    pub auto: WilcoxonResult,
    /// Exact no-ties null of T⁺ for the non-zero differences (absent when every difference is 0).
    pub null: Option<NullDistribution>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RankView {
    pub mann_whitney: MannWhitneyView,
    pub wilcoxon: WilcoxonView,
}

/// Two samples.
pub type Samples = (Vec<f64>, Vec<f64>);

/// The rank topic's samples: `(x, y)` for Mann–Whitney and `(a, b)` pairs for Wilcoxon.
///
/// # Errors
/// Sizes outside `2..=40`, a non-finite shift or one beyond ±5.
pub fn rank_samples(req: &RankRequest) -> Result<(Samples, Samples)> {
    check_range("n_x", req.n_x, 2, MAX_RANK_N)?;
    check_range("n_y", req.n_y, 2, MAX_RANK_N)?;
    let shift = check_finite("shift", req.shift, -5.0, 5.0)?;
    let mut rng = Rng::new(req.seed, 0x7a4c_5e11);
    let round = |v: f64| if req.ties { (v * 2.0).round() / 2.0 } else { v };
    let x: Vec<f64> = (0..req.n_x).map(|_| round(shift + rng.normal())).collect();
    let y: Vec<f64> = (0..req.n_y).map(|_| round(rng.normal())).collect();
    let mut a = Vec::with_capacity(req.n_x);
    let mut b = Vec::with_capacity(req.n_x);
    for _ in 0..req.n_x {
        let base = 2.0 * rng.normal();
        b.push(round(base));
        a.push(round(base + shift + rng.normal()));
    }
    Ok(((x, y), (a, b)))
}

/// Mann–Whitney and Wilcoxon on the rank topic's samples, with their ranks and exact/normal nulls.
///
/// # Errors
/// As [`rank_samples`].
pub fn ranks(req: &RankRequest) -> Result<RankView> {
    let ((x, y), (a, b)) = rank_samples(req)?;
    // Mann–Whitney: pooled ranks (as the test ranks them) and both nulls.
    let pooled: Vec<f64> = x.iter().chain(&y).copied().collect();
    let ranked = rank_with_ties(&pooled)?;
    let ties = tie_groups(&pooled);
    let mut table: Vec<PooledValue> = pooled
        .iter()
        .enumerate()
        .map(|(i, &value)| PooledValue {
            value,
            sample: if i < x.len() { 'x' } else { 'y' },
            index: if i < x.len() { i } else { i - x.len() },
            rank: ranked.ranks[i],
            tie: ties[i],
        })
        .collect();
    table.sort_by(|p, q| p.value.total_cmp(&q.value).then(p.sample.cmp(&q.sample)));
    let alt = req.alternative;
    let mw = |method| mann_whitney::mann_whitney_u(&x, &y, alt, method, true);
    let mann_whitney = MannWhitneyView {
        rank_sum_x: lethe::numpy::sum(&ranked.ranks[..x.len()]),
        exact: mw(PValueMethod::Exact).into(),
        asymptotic: mw(PValueMethod::Asymptotic).into(),
        auto: mw(PValueMethod::Auto)?,
        null: mann_whitney::null_distribution(x.len(), y.len(), tie_correction_term(&ranked.tie_counts))?,
        x,
        y,
        pooled: table,
    };
    // Wilcoxon: the signed-rank table and both nulls.
    let st = wilcoxon::signed_ranks(&a, Some(&b), ZeroMethod::Wilcox)?;
    let abs: Vec<f64> = st.differences.iter().map(|d| d.abs()).collect();
    let dties = tie_groups(&abs);
    let rows = (0..a.len())
        .map(|i| SignedRow {
            x: a[i],
            y: b[i],
            d: st.differences[i],
            rank: st.ranks[i],
            sign: st.signs[i],
            tie: if st.signs[i] == 0 { None } else { dties[i] },
        })
        .collect();
    let wp = |method| WilcoxonParams {
        zero_method: ZeroMethod::Wilcox,
        correction: false,
        alternative: alt,
        method,
    };
    let null = signed_rank_null(&st)?;
    let wilcoxon = WilcoxonView {
        rows,
        exact: wilcoxon::wilcoxon(&a, Some(&b), &wp(PValueMethod::Exact)).into(),
        asymptotic: wilcoxon::wilcoxon(&a, Some(&b), &wp(PValueMethod::Asymptotic)).into(),
        auto: wilcoxon::wilcoxon(&a, Some(&b), &wp(PValueMethod::Auto))?,
        table: st,
        null,
    };
    Ok(RankView { mann_whitney, wilcoxon })
}
