//! The exact ROC of a membership-inference attack's scores, its AUC, and the TPR read at a target FPR by the rules
//! of privacy-meter, LeakPro and jax_privacy.
//!
//! Scores of members (`x`, `n₁` of them) and non-members (`y`, `n₀`), higher = "member". Every distinct score `τ`,
//! taken in descending order, is a threshold: the attack flags as members the scores `≥ τ`. Tied scores move
//! together, so a group of ties is **one step** of the curve (diagonal when it holds both members and
//! non-members). Point 0 flags nobody (threshold `+∞`, as scikit-learn's `roc_curve`), the last point everybody.
//! With `tp_k`, `fp_k` the members and non-members flagged at point `k`:
//!
//! ```text
//! TPR_k = tp_k / n₁      FPR_k = fp_k / n₀
//! AUC   = U / (n₁n₀),    U = #{(i, j): xᵢ > yⱼ} + ½ #{(i, j): xᵢ = yⱼ}     (Mann–Whitney U of x)
//! ```
//!
//! `U` is counted exactly in integers from the steps (`2U = Σ_k Δtp_k · (2(n₀ − fp_k) + Δfp_k)`), so the AUC is
//! the exact rational rounded once; it equals the trapezoid area under the curve, scikit-learn's `roc_auc_score`
//! (which sums the trapezoids in floating point) and `lethe::mann_whitney`'s `U₁/(n₁n₀)` (which sums float ranks).
//! The largest `TPR − FPR` over the points (Youden's J, the "membership advantage") and the balanced accuracy
//! `(TPR + 1 − FPR)/2` at that point are read from the same steps, compared in exact integers.
//!
//! TPR at a target FPR differs between tools; each is offered by name ([`RocRule`]), with the **realized FPR** of
//! the threshold it chooses (never above the target for the first two) and Clopper–Pearson intervals on the TPR
//! and the FPR of that threshold (two-sided, `lethe::binomial::two_sided`):
//!
//! * [`RocRule::PrivacyMeter`] — privacy-meter `audit.py`, `get_audit_results`: `tpr[np.where(fpr <= t)[0][-1]]` on
//!   scikit-learn's `roc_curve` **with `drop_intermediate=True`** (its default): the last point of the thinned
//!   curve whose FPR is at most the target. The thinning keeps the first and last point and every point where the
//!   curve turns ([`sklearn_points`]); on a horizontal run it can land on an earlier point than the unthinned
//!   curve's last one — same TPR, a lower realized FPR.
//! * [`RocRule::LeakPro`] — LeakPro `leakpro/reporting/mia_result.py`, `MIAResult._get_result_fixed_fpr`: the
//!   largest TPR among points whose FPR is at most the target (0 if none), here on the exact curve (the earliest
//!   such point, i.e. the smallest realized FPR, when several share that TPR). LeakPro's own curve differs at ties:
//!   `_compute_confusion_arrays` keeps the cumulative counts at the *first* score of each tie group, so a tie group
//!   counts one of its members; on scores without ties the two agree exactly.
//! * [`RocRule::JaxPrivacy`] — jax_privacy `auditing.py`, `CanaryScoreAuditor.tpr_at_given_fpr`: the upper convex
//!   hull of the curve (`_pareto_frontier`), interpolated at the target: a classifier that randomizes between the
//!   two hull thresholds around the target has FPR exactly the target and this TPR. The realized FPR is the target;
//!   no single threshold has it, so no Clopper–Pearson interval is given (the two thresholds and the mixing weight
//!   are). jax_privacy's `attack_auroc` is likewise the area under that hull ([`hull_auc`]), not the AUC.

use serde::Serialize;

use crate::binomial;
use crate::error::{Error, Result};

/// The exact ROC: one point per distinct threshold, plus the point that flags nobody.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Roc {
    /// Members `n₁`.
    pub n_members: u64,
    /// Non-members `n₀`.
    pub n_non_members: u64,
    /// Thresholds, descending: point `k` flags the scores `≥ thresholds[k]`; `thresholds[0] = +∞` flags nobody.
    #[serde(serialize_with = "crate::json::vec_f64")]
    pub thresholds: Vec<f64>,
    /// Members flagged at each point (non-decreasing, from 0 to `n₁`).
    pub tp: Vec<u64>,
    /// Non-members flagged at each point (non-decreasing, from 0 to `n₀`).
    pub fp: Vec<u64>,
}

/// Summary statistics of a [`Roc`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RocSummary {
    pub n_members: u64,
    pub n_non_members: u64,
    /// `U/(n₁n₀)`.
    #[serde(serialize_with = "crate::json::f64")]
    pub auc: f64,
    /// The Mann–Whitney `U` of the members' scores (ties counted ½).
    #[serde(serialize_with = "crate::json::f64")]
    pub mann_whitney_u: f64,
    /// Distinct thresholds (points of the curve minus the one that flags nobody).
    pub distinct_thresholds: usize,
    /// The largest `TPR − FPR` over the points (Youden's J; the membership advantage).
    #[serde(serialize_with = "crate::json::f64")]
    pub max_tpr_minus_fpr: f64,
    /// `(TPR + 1 − FPR)/2` at that point: the best balanced accuracy of a threshold.
    #[serde(serialize_with = "crate::json::f64")]
    pub balanced_accuracy: f64,
    /// The threshold of that point (the first point reaching it, i.e. the highest threshold).
    #[serde(serialize_with = "crate::json::f64")]
    pub balanced_threshold: f64,
    /// TPR and FPR at that point.
    #[serde(serialize_with = "crate::json::f64")]
    pub balanced_tpr: f64,
    #[serde(serialize_with = "crate::json::f64")]
    pub balanced_fpr: f64,
}

/// How TPR is read at a target FPR (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RocRule {
    /// privacy-meter: the last point of scikit-learn's thinned curve with FPR ≤ target.
    PrivacyMeter,
    /// LeakPro: the largest TPR among points with FPR ≤ target.
    #[serde(rename = "leakpro")]
    LeakPro,
    /// jax_privacy: interpolation on the upper convex hull.
    JaxPrivacy,
}

impl RocRule {
    /// Every rule, in the order reports list them.
    pub const ALL: [RocRule; 3] = [RocRule::LeakPro, RocRule::PrivacyMeter, RocRule::JaxPrivacy];

    /// The name requests and reports use.
    pub fn name(self) -> &'static str {
        match self {
            RocRule::PrivacyMeter => "privacy-meter",
            RocRule::LeakPro => "leakpro",
            RocRule::JaxPrivacy => "jax-privacy",
        }
    }
}

impl std::str::FromStr for RocRule {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "privacy-meter" => Ok(RocRule::PrivacyMeter),
            "leakpro" => Ok(RocRule::LeakPro),
            "jax-privacy" => Ok(RocRule::JaxPrivacy),
            other => Err(Error::param(
                "rule",
                other,
                "one of leakpro, privacy-meter, jax-privacy",
            )),
        }
    }
}

/// A confidence interval `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    #[serde(serialize_with = "crate::json::f64")]
    pub lo: f64,
    #[serde(serialize_with = "crate::json::f64")]
    pub hi: f64,
}

impl From<(f64, f64)> for Interval {
    fn from((lo, hi): (f64, f64)) -> Self {
        Self { lo, hi }
    }
}

/// The TPR a rule reads at a target FPR.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TprAtFpr {
    pub rule: RocRule,
    /// The FPR asked for.
    #[serde(serialize_with = "crate::json::f64")]
    pub target_fpr: f64,
    #[serde(serialize_with = "crate::json::f64")]
    pub tpr: f64,
    /// The FPR of the chosen threshold (the target itself for the hull's randomized classifier).
    #[serde(serialize_with = "crate::json::f64")]
    pub realized_fpr: f64,
    /// The chosen threshold (flag scores `≥` it; `+∞` flags nobody). For the hull: the higher of its two.
    #[serde(serialize_with = "crate::json::f64")]
    pub threshold: f64,
    /// Members and non-members flagged at the chosen threshold (`None` for the hull's randomized classifier).
    pub tp: Option<u64>,
    pub fp: Option<u64>,
    /// Two-sided Clopper–Pearson interval on the TPR and on the FPR at the chosen threshold, at the level asked.
    pub tpr_interval: Option<Interval>,
    pub fpr_interval: Option<Interval>,
    /// The hull's randomized classifier: the lower threshold and the probability of using it.
    #[serde(serialize_with = "crate::json::opt_f64")]
    pub mixed_threshold: Option<f64>,
    #[serde(serialize_with = "crate::json::opt_f64")]
    pub mixing_weight: Option<f64>,
}

fn check_scores(name: &str, s: &[f64]) -> Result<()> {
    if s.is_empty() {
        return Err(Error::Empty {
            input: name.into(),
            fix: "an ROC needs at least one member and one non-member score".into(),
        });
    }
    if let Some(i) = s.iter().position(|v| v.is_nan()) {
        return Err(Error::NonFinite {
            input: name.into(),
            value: f64::NAN,
            location: format!("position {i}"),
        });
    }
    Ok(())
}

/// The exact ROC of `members` against `non_members` (higher score = member). ±∞ are ordered as the most extreme
/// scores.
///
/// # Errors
/// [`Error::Empty`] when either is empty, [`Error::NonFinite`] at a NaN (named `members` or `non_members`).
///
/// # Examples
/// ```
/// let r = lethe::roc::roc(&[3.0, 2.0], &[2.0, 1.0]).unwrap();
/// assert_eq!(r.tp, vec![0, 1, 2, 2]);
/// assert_eq!(r.fp, vec![0, 0, 1, 2]);
/// assert_eq!(lethe::roc::summary(&r).auc, 0.875);
/// ```
pub fn roc(members: &[f64], non_members: &[f64]) -> Result<Roc> {
    check_scores("members", members)?;
    check_scores("non_members", non_members)?;
    let desc = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_unstable_by(|a, b| b.total_cmp(a));
        s
    };
    let (x, y) = (desc(members), desc(non_members));
    let mut thresholds = vec![f64::INFINITY];
    let (mut tp, mut fp) = (vec![0u64], vec![0u64]);
    let (mut i, mut j) = (0usize, 0usize);
    while i < x.len() || j < y.len() {
        // The next threshold: the larger of the two heads (-0.0 and 0.0 are one score).
        let t = match (x.get(i), y.get(j)) {
            (Some(&a), Some(&b)) => a.max(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => break,
        };
        while i < x.len() && x[i] >= t {
            i += 1;
        }
        while j < y.len() && y[j] >= t {
            j += 1;
        }
        thresholds.push(t);
        tp.push(i as u64);
        fp.push(j as u64);
    }
    Ok(Roc {
        n_members: x.len() as u64,
        n_non_members: y.len() as u64,
        thresholds,
        tp,
        fp,
    })
}

impl Roc {
    /// `2U` in exact integers.
    pub fn twice_u(&self) -> u128 {
        let n0 = u128::from(self.n_non_members);
        let mut s = 0u128;
        for k in 1..self.tp.len() {
            let dtp = u128::from(self.tp[k] - self.tp[k - 1]);
            let dfp = u128::from(self.fp[k] - self.fp[k - 1]);
            s += dtp * (2 * (n0 - u128::from(self.fp[k])) + dfp);
        }
        s
    }

    /// TPR of point `k`, as numpy's `tps / tps[-1]`.
    pub fn tpr(&self, k: usize) -> f64 {
        self.tp[k] as f64 / self.n_members as f64
    }

    /// FPR of point `k`, as numpy's `fps / fps[-1]`.
    pub fn fpr(&self, k: usize) -> f64 {
        self.fp[k] as f64 / self.n_non_members as f64
    }

    /// The ROC of the same scores with the labels flipped (members ↔ non-members) and the direction reversed
    /// (low score = member): its AUC is `1 − AUC`, and its curve is this one reflected.
    pub fn reversed(&self) -> Roc {
        let k = self.tp.len();
        let (n1, n0) = (self.n_members, self.n_non_members);
        // Flagging "score ≤ τ" (as members of the other class) = not flagging "score ≥ next threshold".
        let mut thresholds = vec![f64::NEG_INFINITY];
        let (mut tp, mut fp) = (vec![0], vec![0]);
        for idx in (0..k - 1).rev() {
            thresholds.push(self.thresholds[idx + 1]);
            tp.push(n1 - self.tp[idx]);
            fp.push(n0 - self.fp[idx]);
        }
        Roc {
            n_members: n1,
            n_non_members: n0,
            thresholds,
            tp,
            fp,
        }
    }
}

/// AUC, Youden's J and the balanced accuracy of a [`Roc`].
pub fn summary(r: &Roc) -> RocSummary {
    let (n1, n0) = (r.n_members, r.n_non_members);
    let twice_u = r.twice_u();
    let denom = 2 * u128::from(n1) * u128::from(n0);
    let auc = ratio(twice_u, denom);
    // max tp·n₀ − fp·n₁ in exact integers; the first point reaching it.
    let mut best = (0usize, i128::MIN);
    for k in 0..r.tp.len() {
        let j = i128::from(r.tp[k]) * i128::from(n0) - i128::from(r.fp[k]) * i128::from(n1);
        if j > best.1 {
            best = (k, j);
        }
    }
    let k = best.0;
    let (tpr, fpr) = (r.tpr(k), r.fpr(k));
    RocSummary {
        n_members: n1,
        n_non_members: n0,
        auc,
        mann_whitney_u: twice_u as f64 / 2.0,
        distinct_thresholds: r.tp.len() - 1,
        max_tpr_minus_fpr: ratio(best.1.unsigned_abs(), u128::from(n1) * u128::from(n0)) * best.1.signum() as f64,
        balanced_accuracy: (tpr + (1.0 - fpr)) / 2.0,
        balanced_threshold: r.thresholds[k],
        balanced_tpr: tpr,
        balanced_fpr: fpr,
    }
}

/// `a / b` rounded once when both fit in f64's 53 bits, else through f64 (a few ulps).
fn ratio(a: u128, b: u128) -> f64 {
    if b == 0 {
        return f64::NAN;
    }
    a as f64 / b as f64
}

/// The points scikit-learn's `roc_curve(..., drop_intermediate=True)` keeps (sklearn 1.9 `_binary_clf_curve` +
/// `roc_curve`): of the points after the first (those at the distinct scores), the first, the last and every one
/// where the second difference of the false- or true-positive counts is non-zero; then point 0 (`+∞`).
pub fn sklearn_points(r: &Roc) -> Vec<usize> {
    let m = r.tp.len() - 1; // points at scores: 1..=m
    let mut keep = vec![0usize];
    if m <= 2 {
        keep.extend(1..=m);
        return keep;
    }
    keep.push(1);
    for k in 2..m {
        let d2 = |v: &[u64]| (v[k + 1] as i128) - 2 * (v[k] as i128) + (v[k - 1] as i128);
        if d2(&r.fp) != 0 || d2(&r.tp) != 0 {
            keep.push(k);
        }
    }
    keep.push(m);
    keep
}

/// Indices of the upper convex hull of the curve, as jax_privacy's `_pareto_frontier` on `_get_tn_fn_counts`
/// (points not weakly dominated by a chord of their neighbours; collinear points dropped), in curve order.
pub fn hull_points(r: &Roc) -> Vec<usize> {
    // jax_privacy works on (fn, tn) at ascending thresholds: point k of the curve read backwards.
    let n = r.tp.len();
    let pt = |k: usize| {
        let idx = n - 1 - k;
        ((r.n_members - r.tp[idx]) as i128, (r.n_non_members - r.fp[idx]) as i128)
    };
    let mut hull: Vec<usize> = Vec::with_capacity(n);
    for k in 0..n {
        let p = pt(k);
        while hull.len() >= 2 {
            let a = pt(hull[hull.len() - 2]);
            let b = pt(hull[hull.len() - 1]);
            // _pareto_frontier: cross = d1.y·d2.x − d2.y·d1.x ≤ 0 → b is dominated.
            let (d1, d2) = ((b.0 - a.0, b.1 - a.1), (p.0 - b.0, p.1 - b.1));
            if d1.1 * d2.0 - d2.1 * d1.0 <= 0 {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(k);
    }
    // Back to curve order (descending thresholds).
    hull.iter().rev().map(|&k| n - 1 - k).collect()
}

/// The area under the upper convex hull of the curve: jax_privacy's `CanaryScoreAuditor.attack_auroc` (the AUC
/// of the best classifiers that randomize between two thresholds). At least the AUC; equal to it when the curve is
/// concave. Not the Mann–Whitney AUC of [`summary`].
pub fn hull_auc(r: &Roc) -> f64 {
    let hull = hull_points(r);
    // jax_privacy: tnr, fnr over the frontier at ascending thresholds; 0.5 · Σ (tnr_i + tnr_{i+1})(fnr_{i+1} − fnr_i).
    let pts: Vec<(f64, f64)> = hull
        .iter()
        .rev()
        .map(|&k| {
            (
                (r.n_non_members - r.fp[k]) as f64 / r.n_non_members as f64,
                (r.n_members - r.tp[k]) as f64 / r.n_members as f64,
            )
        })
        .collect();
    let dot: f64 = pts.windows(2).map(|w| (w[0].0 + w[1].0) * (w[1].1 - w[0].1)).sum();
    0.5 * dot
}

/// TPR at `target_fpr` by `rule`, with Clopper–Pearson intervals at level `1 − alpha` where a single threshold
/// is chosen.
///
/// # Errors
/// [`Error::InvalidParameter`] for a target outside `[0, 1]` or an `alpha` outside `(0, 1)`.
///
/// # Examples
/// ```
/// use lethe::roc::{roc, tpr_at_fpr, RocRule};
/// let r = roc(&[5.0, 4.0, 1.5], &[3.0, 2.0, 1.0, 0.0]).unwrap();
/// let p = tpr_at_fpr(&r, 0.25, RocRule::LeakPro, 0.05).unwrap();
/// assert_eq!((p.tpr, p.realized_fpr), (2.0 / 3.0, 0.0));
/// let h = tpr_at_fpr(&r, 0.25, RocRule::JaxPrivacy, 0.05).unwrap();
/// assert_eq!(h.realized_fpr, 0.25);
/// ```
pub fn tpr_at_fpr(r: &Roc, target_fpr: f64, rule: RocRule, alpha: f64) -> Result<TprAtFpr> {
    if !(0.0..=1.0).contains(&target_fpr) {
        return Err(Error::param("fpr", target_fpr, "a false-positive rate between 0 and 1"));
    }
    crate::check::unit_open("alpha", alpha)?;
    let (n1, n0) = (r.n_members, r.n_non_members);
    let point = |k: usize| -> Result<TprAtFpr> {
        Ok(TprAtFpr {
            rule,
            target_fpr,
            tpr: r.tpr(k),
            realized_fpr: r.fpr(k),
            threshold: r.thresholds[k],
            tp: Some(r.tp[k]),
            fp: Some(r.fp[k]),
            tpr_interval: Some(binomial::two_sided(r.tp[k], n1, alpha)?.into()),
            fpr_interval: Some(binomial::two_sided(r.fp[k], n0, alpha)?.into()),
            mixed_threshold: None,
            mixing_weight: None,
        })
    };
    match rule {
        RocRule::PrivacyMeter => {
            let keep = sklearn_points(r);
            let k = keep
                .iter()
                .rev()
                .copied()
                .find(|&k| r.fpr(k) <= target_fpr)
                .unwrap_or(0);
            point(k)
        }
        RocRule::LeakPro => {
            let mut best = 0usize;
            for k in 0..r.tp.len() {
                if r.fpr(k) > target_fpr {
                    break; // FPR is non-decreasing along the curve
                }
                if r.tp[k] > r.tp[best] {
                    best = k;
                }
            }
            point(best)
        }
        RocRule::JaxPrivacy => {
            let hull = hull_points(r);
            let fp: Vec<u64> = hull.iter().map(|&k| r.fp[k]).collect();
            let tp: Vec<u64> = hull.iter().map(|&k| r.tp[k]).collect();
            let target = n0 as f64 * target_fpr;
            // np.searchsorted(fp, target, side='right'), clipped to the last index.
            let right = fp.partition_point(|&v| (v as f64) <= target).min(fp.len() - 1);
            let left = right.saturating_sub(1);
            let (fl, fr) = (fp[left], fp[right]);
            let q = (target - fl as f64) / (fr as f64 - fl as f64);
            let tpr = (tp[left] as f64 + q * (tp[right] as f64 - tp[left] as f64)) / n1 as f64;
            Ok(TprAtFpr {
                rule,
                target_fpr,
                tpr,
                realized_fpr: target_fpr,
                threshold: r.thresholds[hull[left]],
                tp: None,
                fp: None,
                tpr_interval: None,
                fpr_interval: None,
                mixed_threshold: Some(r.thresholds[hull[right]]),
                mixing_weight: Some(q),
            })
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn brute_u(x: &[f64], y: &[f64]) -> f64 {
        let mut u = 0.0;
        for a in x {
            for b in y {
                if a > b {
                    u += 1.0;
                } else if a == b {
                    u += 0.5;
                }
            }
        }
        u
    }

    #[test]
    fn auc_is_mann_whitney_with_ties_and_flips() {
        let x = [3.0, 2.0, 2.0, 5.0, 1.0, 2.0];
        let y = [1.0, 2.0, 0.0, 4.0, 2.0];
        let r = roc(&x, &y).unwrap();
        let s = summary(&r);
        assert_eq!(s.mann_whitney_u, brute_u(&x, &y));
        let flipped = summary(&roc(&y, &x).unwrap());
        assert!((flipped.auc - (1.0 - s.auc)).abs() < 1e-15);
        let rev = summary(&r.reversed());
        assert!((rev.auc - (1.0 - s.auc)).abs() < 1e-15);
        let mw = crate::mann_whitney::mann_whitney_u(
            &x,
            &y,
            crate::Alternative::TwoSided,
            crate::PValueMethod::Asymptotic,
            true,
        )
        .unwrap();
        assert_eq!(mw.statistic, s.mann_whitney_u);
    }

    #[test]
    fn ties_are_one_step() {
        let r = roc(&[1.0, 1.0], &[1.0]).unwrap();
        assert_eq!((r.tp.clone(), r.fp.clone()), (vec![0, 2], vec![0, 1]));
        assert_eq!(summary(&r).auc, 0.5);
    }

    #[test]
    fn rules_differ_on_a_horizontal_run() {
        // Curve: (0,0) → member → non-member → non-member → member.
        let r = roc(&[4.0, 1.0], &[3.0, 2.0]).unwrap();
        let lp = tpr_at_fpr(&r, 1.0, RocRule::LeakPro, 0.05).unwrap();
        assert_eq!((lp.tpr, lp.realized_fpr), (1.0, 1.0));
        let lp = tpr_at_fpr(&r, 0.9, RocRule::LeakPro, 0.05).unwrap();
        assert_eq!((lp.tpr, lp.realized_fpr), (0.5, 0.0));
        // sklearn keeps (0,0), (0,.5) [first], (1,.5) [last of the run? no: a turn], (1,1).
        let pm = tpr_at_fpr(&r, 0.9, RocRule::PrivacyMeter, 0.05).unwrap();
        assert_eq!(pm.tpr, 0.5);
        assert!(pm.realized_fpr <= 0.9);
        assert!(tpr_at_fpr(&r, 1.5, RocRule::LeakPro, 0.05).is_err());
    }

    #[test]
    fn nan_and_empty_are_named() {
        assert!(roc(&[], &[1.0]).unwrap_err().to_string().contains("members"));
        let e = roc(&[1.0], &[f64::NAN]).unwrap_err().to_string();
        assert!(e.contains("non_members") && e.contains("position 0"), "{e}");
    }
}
