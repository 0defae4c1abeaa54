//! Lower bounds on a model's differential-privacy ε from a membership-inference audit.
//!
//! Two procedures, each following the code people run:
//!
//! * **Clopper–Pearson with Bonferroni** ([`clopper_pearson`] for scores, [`clopper_pearson_counts`] for the
//!   counts at one threshold). An attack that flags "member" at score ≥ t has false-positive rate FPR(t) and
//!   false-negative rate FNR(t); an (ε, δ)-DP training run forces `1 − FNR − δ ≤ e^ε·FPR` (Kairouz et al. 2015), so
//!   `ε ≥ ln((1 − FNR − δ)/FPR)`. With one-sided Clopper–Pearson upper bounds on both rates the right side is a
//!   lower bound on ε that holds with the stated confidence. Two rules, by name ([`CpRule`]):
//!   - [`CpRule::JaxPrivacy`] (default): google-deepmind/jax_privacy `auditing.CanaryScoreAuditor.
//!     epsilon_clopper_pearson(significance, delta, one_sided, threshold_strategy=Bonferroni())` (called
//!     `epsilon_lower_bound` before jax_privacy commit 11ce767). Thresholds: every distinct score and +∞, pruned to
//!     the upper convex frontier of the (FN, TN) counts (`_pareto_frontier`); the significance is split evenly over
//!     the frontier's thresholds (Bonferroni), and within a threshold in half between the two rates. Only the
//!     TPR/FPR direction unless `one_sided = false`, which also tries the reverse rule (members score lower).
//!     Negative values are reported as 0. The quantile is `Beta(k + 1, n − k).ppf(1 − a)` as jax-privacy asks for
//!     it: the tail `a` is first rounded through `1 − a` (see [`jax_upper`]).
//!   - [`CpRule::PrivacyEstimates`]: microsoft/responsible-ai-toolbox-privacy `privacy_estimates.compute_eps_lo(
//!     AttackResults(FN, FP, TN, TP), delta, alpha, method="beta")`. At one threshold it takes the two-sided
//!     Clopper–Pearson intervals of FPR and FNR at level `1 − alpha` (statsmodels `proportion_confint(…, "beta")`,
//!     `alpha/2` per tail), reads ε off **both** corners of the rectangle (the attack's rule and its reverse, and an
//!     attack worse than chance mirrored across the chance line, so a reliably wrong attack counts), and takes the
//!     smaller (0 when the rectangle straddles the chance line). privacy-estimates works at one threshold; over
//!     scores Lethe applies it at jax-privacy's frontier thresholds with the same Bonferroni share and takes the
//!     largest.
//!
//!   Where the two differ: jax-privacy bounds one direction by default and only from the upper corner; privacy-
//!   estimates always takes both directions and the mirrored attack, and is never larger than its upper corner's
//!   value. On counts where the attack is worse than chance (TP < FP's rate) jax-privacy gives 0 and
//!   privacy-estimates a positive ε.
//!
//! * **The one-run audit** of Steinke, Nasr and Jagielski (2023), "Privacy auditing with one (1) training run":
//!   `m` canaries each included with probability ½, an auditor that makes `r` guesses (abstaining on the rest), `v`
//!   of them right. [`one_run_p_value`] and [`one_run`] are privacy-meter's `p_value_DP_audit` and `get_eps_audit`
//!   (privacytrustlab/ml_privacy_meter `audit.py`, the paper's own snippet) operation for operation: ε from 1 upward
//!   in steps of 1 until the p-value reaches the level, then at most 30 bisection steps, stopping once the bracket
//!   is 1e-5 wide, returning the bracket's lower end.
//!
//! Every result states ε, δ and the confidence (`1 − significance`). The goldens (tests/fixtures/golden_eps) come
//! from running jax-privacy 2.0.0, privacy-estimates 0.1.0.post1 and privacy-meter's functions.

use serde::Serialize;
use statrs::distribution::{Binomial, Discrete};
use statrs::function::beta::beta_reg;

use crate::binomial;
use crate::error::{Error, Result};

/// The Clopper–Pearson rule, after the code it follows (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CpRule {
    /// jax-privacy's `epsilon_clopper_pearson` (default).
    #[default]
    JaxPrivacy,
    /// privacy-estimates' `compute_eps_lo(…, method="beta")`.
    PrivacyEstimates,
}

impl CpRule {
    /// The rule's name as options spell it.
    pub fn name(self) -> &'static str {
        match self {
            CpRule::JaxPrivacy => "jax-privacy",
            CpRule::PrivacyEstimates => "privacy-estimates",
        }
    }
}

impl std::str::FromStr for CpRule {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "jax-privacy" | "jax_privacy" => Ok(CpRule::JaxPrivacy),
            "privacy-estimates" | "privacy_estimates" => Ok(CpRule::PrivacyEstimates),
            other => Err(Error::param("rule", other, "jax-privacy or privacy-estimates")),
        }
    }
}

/// The four counts of an attack at one threshold (members are the positives).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    /// Members flagged as members.
    pub tp: u64,
    /// Non-members flagged as members.
    pub fp: u64,
    /// Non-members not flagged.
    pub tn: u64,
    /// Members not flagged.
    #[serde(rename = "fn")]
    pub fn_: u64,
}

impl Counts {
    /// Members (`tp + fn`).
    pub fn members(&self) -> u64 {
        self.tp + self.fn_
    }
    /// Non-members (`fp + tn`).
    pub fn non_members(&self) -> u64 {
        self.fp + self.tn
    }
}

/// Options of the Clopper–Pearson bound.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CpParams {
    /// Allowed probability that the bound is wrong (one minus the confidence), in (0, 0.5).
    pub significance: f64,
    /// The δ of the (ε, δ) claim tested, in [0, 1).
    pub delta: f64,
    /// jax-privacy: only the rule "members score higher" (its default). privacy-estimates always takes both.
    pub one_sided: bool,
    pub rule: CpRule,
}

impl Default for CpParams {
    fn default() -> Self {
        CpParams {
            significance: 0.05,
            delta: 0.0,
            one_sided: true,
            rule: CpRule::JaxPrivacy,
        }
    }
}

impl CpParams {
    fn check(&self) -> Result<()> {
        if !(self.significance > 0.0 && self.significance < 0.5) {
            return Err(Error::param(
                "significance",
                self.significance,
                "a number strictly between 0 and 0.5 (one minus the confidence: 0.05 for 95%)",
            ));
        }
        if !(self.delta >= 0.0 && self.delta < 1.0) {
            return Err(Error::param("delta", self.delta, "a number in [0, 1)"));
        }
        Ok(())
    }
}

/// Which decision rule gave the bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// "Member" when the score is at least the threshold.
    MembersHigher,
    /// "Member" when the score is below the threshold (the reverse rule).
    MembersLower,
    /// privacy-estimates' bound, which takes both rules (and the mirrored attack) at once.
    Both,
}

/// A Clopper–Pearson lower bound on ε.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CpBound {
    /// The lower bound: with confidence `1 − significance` the training run is not (ε', δ)-DP for any ε' < ε.
    pub epsilon: f64,
    pub delta: f64,
    pub significance: f64,
    /// `1 − significance`.
    pub confidence: f64,
    pub rule: CpRule,
    pub one_sided: bool,
    /// The hypotheses the significance is split over (Bonferroni): the frontier's thresholds, or 1 for counts.
    pub tests: usize,
    /// `significance / tests`.
    pub per_test_significance: f64,
    /// The score threshold of the best test (`None` for counts, or when no threshold gives a bound).
    #[serde(serialize_with = "crate::json::opt_f64")]
    pub threshold: Option<f64>,
    pub direction: Direction,
    /// The counts at that test (for the rule "member at score ≥ threshold"; all 0 when no test gives a bound).
    pub counts: Counts,
    /// The sample: members and non-members.
    pub members: u64,
    pub non_members: u64,
    /// The upper confidence bounds on FPR and FNR used there (jax-privacy; privacy-estimates' upper corner).
    pub fpr_upper: f64,
    pub fnr_upper: f64,
    /// ε a perfectly separating attack would show with these many members and non-members and tests: the most
    /// this audit could ever report (0 means the sample is too small for any bound).
    pub best_possible: f64,
}

/// One threshold of the frontier: "member" at score ≥ `threshold`, with the counts below it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FrontierPoint {
    #[serde(serialize_with = "crate::json::f64")]
    pub threshold: f64,
    /// Members scoring below the threshold.
    #[serde(rename = "fn")]
    pub fn_: u64,
    /// Non-members scoring below the threshold.
    pub tn: u64,
}

/// Scores may be ±inf (ordered as the most extreme, as numpy sorts them); NaN is refused.
fn check_scores(name: &str, x: &[f64]) -> Result<()> {
    crate::check::nonempty(name, x)?;
    crate::rank::reject_nan(name, x)
}

/// jax-privacy's `_get_tn_fn_counts`: thresholds = the distinct scores of both groups and +∞, with the members'
/// and non-members' counts below each, pruned to `_pareto_frontier` (the points not weakly below a segment of
/// others: the upper concave chain of (FN, TN), found here by a monotone chain, which keeps the same vertices).
///
/// # Errors
/// An empty group, or NaN scores.
pub fn frontier(members: &[f64], non_members: &[f64]) -> Result<Vec<FrontierPoint>> {
    check_scores("members", members)?;
    check_scores("non_members", non_members)?;
    let sort = |x: &[f64]| {
        let mut v = x.to_vec();
        v.sort_by(f64::total_cmp);
        v
    };
    let (a, b) = (sort(members), sort(non_members));
    let mut thresholds: Vec<f64> = a.iter().chain(&b).copied().collect();
    thresholds.sort_by(f64::total_cmp);
    thresholds.dedup();
    thresholds.push(f64::INFINITY);
    // Counts strictly below each threshold (numpy searchsorted side='left'), by one merge pass.
    let (mut i, mut j) = (0usize, 0usize);
    let mut hull: Vec<FrontierPoint> = Vec::new();
    for &t in &thresholds {
        while i < a.len() && a[i] < t {
            i += 1;
        }
        while j < b.len() && b[j] < t {
            j += 1;
        }
        let p = FrontierPoint {
            threshold: t,
            fn_: i as u64,
            tn: j as u64,
        };
        while hull.len() >= 2 {
            let (o, q) = (hull[hull.len() - 2], hull[hull.len() - 1]);
            let (dx1, dy1) = (q.fn_ as i128 - o.fn_ as i128, q.tn as i128 - o.tn as i128);
            let (dx2, dy2) = (p.fn_ as i128 - q.fn_ as i128, p.tn as i128 - q.tn as i128);
            // jax-privacy: cross = d1.y·d2.x − d2.y·d1.x; the middle point is dominated when cross ≤ 0.
            if dy1 * dx2 - dy2 * dx1 <= 0 {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(p);
    }
    Ok(hull)
}

/// jax-privacy's `_clopper_pearson_upper(k, n, a)`: `Beta(k + 1, n − k).ppf(1 − a)`, 1 when `k = n`. The tail is
/// taken as jax-privacy hands it to the quantile: `1 − a` rounded to a float, so the tail used is `1 − fl(1 − a)`
/// (exact), and the bound is [`binomial::upper_one_sided`] at that tail (a tail that rounds to 0 gives 1).
pub fn jax_upper(k: u64, n: u64, a: f64) -> f64 {
    let t = 1.0 - (1.0 - a);
    if k >= n || t <= 0.0 {
        return 1.0;
    }
    // t is 0 or at least 2^-53 here, inside the bounds' range; 1 is the bound's limit as the tail goes to 0.
    binomial::upper_one_sided(k, n, t).unwrap_or(1.0)
}

/// privacy-estimates' `eps_from_fnr_fpr(fnr, fpr, delta)`: ε with the point on the boundary of the (ε, δ) region.
pub fn eps_from_fnr_fpr(fnr: f64, fpr: f64, delta: f64) -> f64 {
    let (mut fpr, mut fnr) = (fpr, fnr);
    if fpr > 1.0 - fnr {
        (fpr, fnr) = (1.0 - fnr, 1.0 - fpr);
    }
    let (r_lo, r_hi) = (fpr.min(fnr), fpr.max(fnr));
    if r_hi > 1.0 - delta - r_lo {
        return 0.0;
    }
    if r_lo == 0.0 {
        return f64::INFINITY;
    }
    ((1.0 - delta - r_hi) / r_lo).ln()
}

/// privacy-estimates' `compute_eps_lo(count, delta, alpha, "beta")` with its rectangle's upper corner.
fn privacy_estimates_at(c: Counts, delta: f64, alpha: f64) -> Result<(f64, f64, f64)> {
    // compute_eps_lo(alpha) → compute_eps_lo_hi(2·alpha) → proportion_confint(·, alpha): alpha/2 per tail.
    let tail = alpha / 2.0;
    let (fpr_l, fpr_r) = (
        binomial::lower_one_sided(c.fp, c.non_members(), tail)?,
        binomial::upper_one_sided(c.fp, c.non_members(), tail)?,
    );
    let (fnr_l, fnr_r) = (
        binomial::lower_one_sided(c.fn_, c.members(), tail)?,
        binomial::upper_one_sided(c.fn_, c.members(), tail)?,
    );
    let straddle = if (fnr_r > 1.0 - fpr_r) != (fnr_l > 1.0 - fpr_l) {
        0.0
    } else {
        f64::INFINITY
    };
    let eps_r = eps_from_fnr_fpr(fnr_r, fpr_r, delta);
    let eps_l = eps_from_fnr_fpr(fnr_l, fpr_l, delta);
    Ok((eps_l.min(eps_r).min(straddle), fpr_r, fnr_r))
}

/// jax-privacy's bound at one test: the forward rule and, unless one-sided, the reverse; `None` when no rule is
/// valid (`1 − FNR_ub ≤ δ`). Returns (ε unclamped, direction, fpr_ub, fnr_ub).
fn jax_at(c: Counts, delta: f64, a: f64, one_sided: bool) -> (Option<f64>, Option<f64>, f64, f64) {
    let fnr_ub = jax_upper(c.fn_, c.members(), a / 2.0);
    let fpr_ub = jax_upper(c.fp, c.non_members(), a / 2.0);
    let eps = |fnr: f64, fpr: f64| {
        let tpr_lb = 1.0 - fnr;
        (tpr_lb > delta).then(|| (tpr_lb - delta).ln() - fpr.ln())
    };
    let fwd = eps(fnr_ub, fpr_ub);
    let rev = if one_sided { None } else { eps(fpr_ub, fnr_ub) };
    (fwd, rev, fpr_ub, fnr_ub)
}

/// The bound over a list of tests (each a threshold's counts), with the significance split evenly over them.
fn over_tests(tests: &[(Option<f64>, Counts)], p: &CpParams) -> Result<CpBound> {
    p.check()?;
    let k = tests.len();
    let a = p.significance / k as f64;
    let mut best: Option<(f64, usize, Direction, f64, f64)> = None;
    match p.rule {
        CpRule::JaxPrivacy => {
            // eps_and_idx: the first maximum over the valid tests, clamped at 0; the reverse replaces it only
            // when strictly larger.
            let mut fwd: Option<(f64, usize, f64, f64)> = None;
            let mut rev: Option<(f64, usize, f64, f64)> = None;
            for (i, (_, c)) in tests.iter().enumerate() {
                let (f, r, fpr_ub, fnr_ub) = jax_at(*c, p.delta, a, p.one_sided);
                if let Some(e) = f
                    && fwd.is_none_or(|b| e > b.0)
                {
                    fwd = Some((e, i, fpr_ub, fnr_ub));
                }
                if let Some(e) = r
                    && rev.is_none_or(|b| e > b.0)
                {
                    rev = Some((e, i, fpr_ub, fnr_ub));
                }
            }
            let clamp =
                |x: Option<(f64, usize, f64, f64)>, d: Direction| x.map(|(e, i, u, v)| (e.max(0.0), i, d, u, v));
            best = clamp(fwd, Direction::MembersHigher);
            if let Some(r) = clamp(rev, Direction::MembersLower)
                && best.is_none_or(|b| r.0 > b.0)
            {
                best = Some(r);
            }
        }
        CpRule::PrivacyEstimates => {
            for (i, (_, c)) in tests.iter().enumerate() {
                let (e, fpr_r, fnr_r) = privacy_estimates_at(*c, p.delta, a)?;
                if best.is_none_or(|b| e > b.0) {
                    best = Some((e, i, Direction::Both, fpr_r, fnr_r));
                }
            }
        }
    }
    let sizes = tests.first().map_or((0, 0), |(_, c)| (c.members(), c.non_members()));
    let best_possible = perfect_attack(sizes.0, sizes.1, k, p)?;
    let (epsilon, idx, direction, fpr_upper, fnr_upper) =
        best.unwrap_or((0.0, usize::MAX, Direction::MembersHigher, f64::NAN, f64::NAN));
    let (threshold, counts) = tests.get(idx).copied().unwrap_or((None, Counts::default()));
    Ok(CpBound {
        epsilon,
        delta: p.delta,
        significance: p.significance,
        confidence: 1.0 - p.significance,
        rule: p.rule,
        one_sided: p.one_sided && p.rule == CpRule::JaxPrivacy,
        tests: k,
        per_test_significance: a,
        threshold,
        direction,
        counts,
        members: sizes.0,
        non_members: sizes.1,
        fpr_upper,
        fnr_upper,
        best_possible,
    })
}

/// ε of a perfectly separating attack (TP = members, FP = 0) with these sizes and tests.
fn perfect_attack(members: u64, non_members: u64, tests: usize, p: &CpParams) -> Result<f64> {
    if members == 0 || non_members == 0 {
        return Ok(0.0);
    }
    let c = Counts {
        tp: members,
        fp: 0,
        tn: non_members,
        fn_: 0,
    };
    let a = p.significance / tests.max(1) as f64;
    Ok(match p.rule {
        CpRule::JaxPrivacy => {
            let (f, _, _, _) = jax_at(c, p.delta, a, true);
            f.unwrap_or(0.0).max(0.0)
        }
        CpRule::PrivacyEstimates => privacy_estimates_at(c, p.delta, a)?.0,
    })
}

/// The smallest `n` such that a perfectly separating attack on `n` members and `n` non-members shows ε > 0 with
/// `tests` tests (`None` past 10⁹).
pub fn examples_needed(tests: usize, p: &CpParams) -> Result<Option<u64>> {
    p.check()?;
    let pos = |n: u64| perfect_attack(n, n, tests, p).map(|e| e > 0.0);
    let mut hi = 1u64;
    while !pos(hi)? {
        if hi > 1_000_000_000 {
            return Ok(None);
        }
        hi *= 2;
    }
    let mut lo = hi / 2; // pos(lo) is false (or lo = 0)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if pos(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(hi))
}

/// Clopper–Pearson lower bound on ε from members' and non-members' attack scores (members expected to score
/// higher), Bonferroni over jax-privacy's frontier of thresholds.
///
/// # Errors
/// An empty or non-finite group; significance outside (0, 0.5) or δ outside [0, 1).
///
/// # Examples
/// ```
/// use lethe::eps_audit::{CpParams, clopper_pearson};
/// let members: Vec<f64> = (0..20).map(|i| 100.0 + i as f64).collect();
/// let non_members: Vec<f64> = (0..20).map(f64::from).collect();
/// let b = clopper_pearson(&members, &non_members, &CpParams::default()).unwrap();
/// assert_eq!(b.tests, 3);
/// assert!((b.epsilon - 1.3077).abs() < 1e-4); // jax-privacy 2.0.0: 1.30766…
/// ```
pub fn clopper_pearson(members: &[f64], non_members: &[f64], p: &CpParams) -> Result<CpBound> {
    p.check()?;
    let (n1, n0) = (members.len() as u64, non_members.len() as u64);
    let tests: Vec<(Option<f64>, Counts)> = frontier(members, non_members)?
        .into_iter()
        .map(|f| {
            (
                Some(f.threshold),
                Counts {
                    tp: n1 - f.fn_,
                    fp: n0 - f.tn,
                    tn: f.tn,
                    fn_: f.fn_,
                },
            )
        })
        .collect();
    over_tests(&tests, p)
}

/// Clopper–Pearson lower bound on ε from the counts at one threshold chosen beforehand (no correction): jax-privacy
/// with `threshold_strategy=Explicit(t)`, or privacy-estimates' `compute_eps_lo`.
///
/// # Errors
/// No members or no non-members; parameters as [`clopper_pearson`].
pub fn clopper_pearson_counts(c: Counts, p: &CpParams) -> Result<CpBound> {
    if c.members() == 0 {
        return Err(Error::param(
            "counts",
            "TP + FN = 0",
            "at least one member (TP + FN ≥ 1)",
        ));
    }
    if c.non_members() == 0 {
        return Err(Error::param(
            "counts",
            "FP + TN = 0",
            "at least one non-member (FP + TN ≥ 1)",
        ));
    }
    over_tests(&[(None, c)], p)
}

/// privacy-meter's `p_value_DP_audit(m, r, v, eps, delta)`: the probability of at least `v` correct guesses out
/// of `r` under an (ε, δ)-DP null, `m` canaries. Not checked (see [`one_run`]).
pub fn one_run_p_value(m: u64, r: u64, v: u64, eps: f64, delta: f64) -> f64 {
    let q = 1.0 / (1.0 + (-eps).exp());
    // scipy.stats.binom.sf(v − 1, r, q) = P[Binomial(r, q) ≥ v] = I_q(v, r − v + 1).
    let beta = if v == 0 {
        1.0
    } else if v > r {
        0.0
    } else {
        beta_reg(v as f64, (r - v + 1) as f64, q)
    };
    let p = if delta == 0.0 {
        beta
    } else {
        let mut alpha = 0.0f64;
        let mut sum = 0.0f64;
        if let Ok(b) = Binomial::new(q, r) {
            for i in 1..=v {
                sum += b.pmf(v - i);
                if sum > i as f64 * alpha {
                    alpha = sum / i as f64;
                }
            }
        }
        beta + alpha * delta * 2.0 * m as f64
    };
    p.min(1.0)
}

/// The one-run audit's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OneRun {
    /// The lower bound (privacy-meter's `get_eps_audit`).
    pub epsilon: f64,
    pub delta: f64,
    /// One minus the confidence (privacy-meter's `p`).
    pub significance: f64,
    pub confidence: f64,
    /// Canaries, guesses, correct guesses.
    pub m: u64,
    pub r: u64,
    pub v: u64,
    /// The p-value at ε = 0: the bound is above 0 only when this is below the significance.
    pub p_value_at_zero: f64,
    /// ε if all `m` canaries were guessed, all correctly: the most this many canaries can show.
    pub best_possible: f64,
}

/// The bisection of `get_eps_audit` (no checks).
fn eps_audit(m: u64, r: u64, v: u64, delta: f64, p: f64) -> f64 {
    let mut eps_min = 0.0f64;
    let mut eps_max = 1.0f64;
    while one_run_p_value(m, r, v, eps_max, delta) < p {
        eps_max += 1.0;
    }
    for _ in 0..30 {
        if eps_max - eps_min <= 1e-5 {
            break;
        }
        let eps = (eps_min + eps_max) / 2.0;
        if one_run_p_value(m, r, v, eps, delta) < p {
            eps_min = eps;
        } else {
            eps_max = eps;
        }
    }
    eps_min
}

fn check_one_run(m: u64, r: u64, v: u64, delta: f64, p: f64) -> Result<()> {
    if v > r {
        return Err(Error::param(
            "v",
            v,
            format!("correct guesses at most the guesses r = {r}"),
        ));
    }
    if r > m {
        return Err(Error::param("r", r, format!("guesses at most the canaries m = {m}")));
    }
    if !(0.0..=1.0).contains(&delta) {
        return Err(Error::param("delta", delta, "a number in [0, 1]"));
    }
    if !(p > 0.0 && p < 1.0) {
        return Err(Error::param("significance", p, "a number strictly between 0 and 1"));
    }
    // Each p-value sums v binomial probabilities when δ > 0; about 60 p-values.
    let mut budget = crate::check::Budget::default();
    budget.add(
        crate::check::Cause::param("v", v as usize),
        format!("the one-run audit of {v} correct guesses (about 60 sums of {v} binomial probabilities)"),
        0,
        if delta > 0.0 { v.saturating_mul(60 * 100) } else { 6000 },
        "audit fewer canaries at once, or set delta to 0",
    );
    budget.check()
}

/// privacy-meter's `get_eps_audit(m, r, v, delta, p)`: the largest ε (to the bisection's 1e-5) whose (ε, δ)-DP
/// null is rejected at level `p` by `v` correct guesses out of `r` on `m` canaries.
///
/// # Errors
/// `v > r`, `r > m`, δ outside [0, 1], `p` outside (0, 1).
///
/// # Examples
/// ```
/// // 100 guesses, all right, 1000 canaries, δ = 0, 95%: privacy-meter gives 3.4929580688476562.
/// let o = lethe::eps_audit::one_run(1000, 100, 100, 0.0, 0.05).unwrap();
/// assert_eq!(o.epsilon, 3.4929580688476562);
/// ```
pub fn one_run(m: u64, r: u64, v: u64, delta: f64, p: f64) -> Result<OneRun> {
    check_one_run(m, r, v, delta, p)?;
    check_one_run(m, m, m, delta, p)?;
    Ok(OneRun {
        epsilon: eps_audit(m, r, v, delta, p),
        delta,
        significance: p,
        confidence: 1.0 - p,
        m,
        r,
        v,
        p_value_at_zero: one_run_p_value(m, r, v, 0.0, delta),
        best_possible: eps_audit(m, m, m, delta, p),
    })
}

/// The smallest number of canaries `m` for which guessing all of them right shows ε > 0 (`None` when no `m` up
/// to 65,536 does: with δ > 0 the δ term grows with `m`, so a δ that no small audit beats is beaten by no larger
/// one either in practice).
pub fn canaries_needed(delta: f64, p: f64) -> Result<Option<u64>> {
    check_one_run(1, 1, 1, delta, p)?;
    let pos = |m: u64| eps_audit(m, m, m, delta, p) > 0.0;
    let mut m = 1u64;
    while m <= 65_536 {
        if pos(m) {
            // The smallest between m/2 and m (the bound is not monotone in m when δ > 0: scan down).
            let mut k = m;
            while k > 1 && pos(k - 1) {
                k -= 1;
            }
            return Ok(Some(k));
        }
        m *= 2;
    }
    Ok(None)
}

/// scipy's `special.log_ndtr` (Cephes): `log Φ(x)`, with `−Φ(−x)` above 6 and the asymptotic series below −20.
fn log_ndtr(a: f64) -> f64 {
    if a > 6.0 {
        return -crate::rank::ndtr(-a);
    }
    if a > -20.0 {
        return crate::rank::ndtr(a).ln();
    }
    let log_lhs = -0.5 * a * a - (-a).ln() - 0.5 * (2.0 * std::f64::consts::PI).ln();
    let (mut last, mut rhs, mut numerator, mut denom_factor) = (0.0f64, 1.0f64, 1.0f64, 1.0f64);
    let denom_cons = 1.0 / (a * a);
    let (mut sign, mut i) = (1.0f64, 0.0f64);
    while (last - rhs).abs() > f64::EPSILON {
        i += 1.0;
        last = rhs;
        sign = -sign;
        denom_factor *= denom_cons;
        numerator *= 2.0 * i - 1.0;
        rhs += sign * numerator * denom_factor;
    }
    log_lhs + rhs.ln()
}

/// The standard normal quantile (scipy's `norm.ppf`), from statrs' inverse complementary error function.
fn norm_ppf(p: f64) -> f64 {
    -std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(2.0 * p)
}

/// scipy's `optimize.brentq` (its C `brentq`, Brent 1973 as scipy writes it) on `[a, b]` with `xtol`, scipy's
/// default `rtol` (4·ε) and 100 iterations; `None` when the ends do not bracket a root.
fn brentq(f: impl Fn(f64) -> f64, a: f64, b: f64, xtol: f64) -> Option<f64> {
    let rtol = 4.0 * f64::EPSILON;
    let (mut xpre, mut xcur) = (a, b);
    let (mut xblk, mut fblk, mut spre, mut scur) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut fpre, mut fcur) = (f(xpre), f(xcur));
    if fpre == 0.0 {
        return Some(xpre);
    }
    if fcur == 0.0 {
        return Some(xcur);
    }
    if fpre.is_sign_negative() == fcur.is_sign_negative() {
        return None;
    }
    for _ in 0..100 {
        if fpre != 0.0 && fcur != 0.0 && fpre.is_sign_negative() != fcur.is_sign_negative() {
            xblk = xpre;
            fblk = fpre;
            spre = xcur - xpre;
            scur = spre;
        }
        if fblk.abs() < fcur.abs() {
            xpre = xcur;
            xcur = xblk;
            xblk = xpre;
            fpre = fcur;
            fcur = fblk;
            fblk = fpre;
        }
        let delta = (xtol + rtol * xcur.abs()) / 2.0;
        let sbis = (xblk - xcur) / 2.0;
        if fcur == 0.0 || sbis.abs() < delta {
            return Some(xcur);
        }
        if spre.abs() > delta && fcur.abs() < fpre.abs() {
            let stry = if xpre == xblk {
                -fcur * (xcur - xpre) / (fcur - fpre)
            } else {
                let dpre = (fpre - fcur) / (xpre - xcur);
                let dblk = (fblk - fcur) / (xblk - xcur);
                -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            };
            if 2.0 * stry.abs() < spre.abs().min(3.0 * sbis.abs() - delta) {
                spre = scur;
                scur = stry;
            } else {
                spre = sbis;
                scur = sbis;
            }
        } else {
            spre = sbis;
            scur = sbis;
        }
        xpre = xcur;
        fpre = fcur;
        xcur += if scur.abs() > delta {
            scur
        } else if sbis > 0.0 {
            delta
        } else {
            -delta
        };
        fcur = f(xcur);
    }
    Some(xcur)
}

/// The GDP estimate's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GdpBound {
    /// ε at `delta` of the μ-GDP mechanism with the largest μ the error-rate bounds show (0 when none is positive;
    /// at most 100, jax-privacy's bracket).
    pub epsilon: f64,
    /// That μ (0 when no threshold shows a positive one).
    pub mu: f64,
    pub delta: f64,
    pub significance: f64,
    pub confidence: f64,
    /// Hypotheses the significance is split over: two per frontier threshold (FPR and FNR).
    pub tests: usize,
}

/// jax-privacy's `CanaryScoreAuditor.epsilon_from_gdp(significance, delta)` as fixed upstream in commit aab3e1c
/// (2026-07-27, after jax_privacy PR 270 showed the old `abs(μ)` could report ε > 0 on null scores): Clopper–
/// Pearson upper bounds on FPR and FNR at every frontier threshold with Bonferroni over `2 × thresholds`, thresholds
/// where either bound reaches `1 − δ` dropped, `μ = max(isf(FPR_ub) − ppf(FNR_ub))` (the forward rule only;
/// μ ≤ 0 gives ε = 0), and ε the root in [0, 100] of the μ-GDP mechanism's `δ(ε) = δ` (brentq, `xtol = 1e-6`).
/// jax-privacy 2.0.0 on PyPI still has the `abs(μ)` form. The normal quantiles are statrs', `log Φ` Cephes' form;
/// the root agrees with jax-privacy to about `xtol`, not bit for bit.
///
/// # Errors
/// Empty groups or NaN scores; significance outside (0, 0.5), δ outside (0, 1].
pub fn gdp(members: &[f64], non_members: &[f64], significance: f64, delta: f64) -> Result<GdpBound> {
    if !(significance > 0.0 && significance < 0.5) {
        return Err(Error::param(
            "significance",
            significance,
            "a number strictly between 0 and 0.5",
        ));
    }
    if !(delta > 0.0 && delta <= 1.0) {
        return Err(Error::param(
            "delta",
            delta,
            "a number in (0, 1] (the GDP conversion needs δ > 0)",
        ));
    }
    let f = frontier(members, non_members)?;
    let (n1, n0) = (members.len() as u64, non_members.len() as u64);
    let tests = 2 * f.len();
    let a = significance / tests as f64;
    let mut mu = f64::NEG_INFINITY;
    let mut any = false;
    for p in &f {
        let fnr_ub = jax_upper(p.fn_, n1, a);
        let fpr_ub = jax_upper(n0 - p.tn, n0, a);
        if fpr_ub.max(fnr_ub) < 1.0 - delta {
            any = true;
            mu = mu.max(-norm_ppf(fpr_ub) - norm_ppf(fnr_ub));
        }
    }
    let done = |epsilon: f64, mu: f64| GdpBound {
        epsilon,
        mu,
        delta,
        significance,
        confidence: 1.0 - significance,
        tests,
    };
    if !any || mu <= 0.0 {
        return Ok(done(0.0, 0.0));
    }
    let gap = |eps: f64| {
        let x = log_ndtr(-(eps / mu) + mu / 2.0);
        let y = eps + log_ndtr(-(eps / mu) - mu / 2.0);
        x + (-(y - x).exp()).ln_1p() - delta.ln()
    };
    if gap(0.0) <= 0.0 {
        return Ok(done(0.0, mu));
    }
    if gap(100.0) >= 0.0 {
        return Ok(done(100.0, mu));
    }
    Ok(done(brentq(gap, 0.0, 100.0, 1e-6).unwrap_or(f64::NAN), mu))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    #[test]
    fn frontier_of_separated_scores_has_three_points() {
        let f = frontier(&[10.0, 11.0], &[1.0, 2.0]).unwrap();
        let pts: Vec<(u64, u64)> = f.iter().map(|p| (p.fn_, p.tn)).collect();
        assert_eq!(pts, [(0, 0), (0, 2), (2, 2)]);
        assert_eq!(f[1].threshold, 10.0);
        assert!(f[2].threshold.is_infinite());
    }

    #[test]
    fn bad_parameters_are_refused() {
        let x = [1.0, 2.0];
        for s in [0.0, 0.5, f64::NAN] {
            let p = CpParams {
                significance: s,
                ..CpParams::default()
            };
            assert!(clopper_pearson(&x, &x, &p).is_err());
        }
        assert!(clopper_pearson(&[], &x, &CpParams::default()).is_err());
        assert!(clopper_pearson(&[f64::NAN], &x, &CpParams::default()).is_err());
        // ±inf are the most extreme scores. jax-privacy 2.0.0 on these scores (run): thresholds [-inf, 1, inf],
        // fn [0, 0, 1], tn [0, 2, 2] — a member scoring +inf is flagged even at the +inf threshold.
        let f = frontier(&[1.0, f64::INFINITY], &[f64::NEG_INFINITY, 0.0]).unwrap();
        let pts: Vec<(f64, u64, u64)> = f.iter().map(|p| (p.threshold, p.fn_, p.tn)).collect();
        assert_eq!(pts, [(f64::NEG_INFINITY, 0, 0), (1.0, 0, 2), (f64::INFINITY, 1, 2)]);
        assert!(one_run(10, 11, 1, 0.0, 0.05).is_err());
        assert!(one_run(10, 5, 6, 0.0, 0.05).is_err());
        assert!(one_run(10, 5, 5, 0.0, 1.0).is_err());
    }

    #[test]
    fn a_null_attack_shows_nothing_and_the_sample_size_needed_is_found() {
        let p = CpParams::default();
        let n = examples_needed(3, &p).unwrap().unwrap();
        assert!(perfect_attack(n, n, 3, &p).unwrap() > 0.0);
        assert_eq!(perfect_attack(n - 1, n - 1, 3, &p).unwrap(), 0.0);
        // 95%: 0.5^m < 0.05 from m = 5 on, with δ = 0.
        assert_eq!(canaries_needed(0.0, 0.05).unwrap(), Some(5));
    }
}
