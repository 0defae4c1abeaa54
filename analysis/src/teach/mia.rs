//! The membership audit: two overlapping score distributions (non-members `N(0, 1)`, members `N(shift, spread²)`),
//! their exact ROC on linear and log–log axes, one threshold's TPR and FPR with Clopper–Pearson intervals, the AUC
//! with DeLong's interval beside TPR at a low target FPR, what each tool's rule reads at that target and the FPR its
//! threshold really has, and the curve of an equal-variance attack with the same AUC (why TPR at a low FPR says more
//! than the AUC). Every statistic is the core's (`lethe::roc`, `lethe::delong`, `lethe::binomial`), as `lethe mia`
//! computes it; only the generating distributions' own curves are closed forms.

use lethe::delong::{self, DeLong, z_upper};
use lethe::rank::ndtr;
use lethe::roc::{self, Interval, RocRule, TprAtFpr};
use serde::{Deserialize, Serialize};

use super::{check_finite, check_range};
use crate::analyses::{Curve, thin_curve};
use crate::plots::{Histograms, shared_histograms};
use crate::synthetic::Rng;
use crate::{Error, Result};

/// The topic's data: `n_non_members` scores `N(0, 1)` and `n_members` scores `N(shift, spread²)`, seeded.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MiaSpec {
    pub n_members: usize,
    pub n_non_members: usize,
    pub shift: f64,
    pub spread: f64,
    pub seed: u64,
}

impl Default for MiaSpec {
    fn default() -> Self {
        Self {
            n_members: 1000,
            n_non_members: 3000,
            shift: 0.5,
            spread: 2.0,
            seed: 0,
        }
    }
}

/// Most scores per class in the topic.
pub const MAX_SCORES: usize = 200_000;

/// Points of the curves drawn (the exact ROC is thinned for drawing; every statistic uses all of it).
const CURVE_POINTS: usize = 1500;

/// The members' and the non-members' scores.
///
/// # Errors
/// A class size outside `10..=200000`, a shift beyond ±6 or a spread outside [0.2, 5].
pub fn mia_scores(spec: &MiaSpec) -> Result<(Vec<f64>, Vec<f64>)> {
    check_range("n_members", spec.n_members, 10, MAX_SCORES)?;
    check_range("n_non_members", spec.n_non_members, 10, MAX_SCORES)?;
    let shift = check_finite("shift", spec.shift, -6.0, 6.0)?;
    let spread = check_finite("spread", spec.spread, 0.2, 5.0)?;
    let mut rng = Rng::new(spec.seed, 0x3e3b_e125);
    let members = (0..spec.n_members).map(|_| shift + spread * rng.normal()).collect();
    let non_members = (0..spec.n_non_members).map(|_| rng.normal()).collect();
    Ok((members, non_members))
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct MiaTopicRequest {
    pub data: MiaSpec,
    /// The dragged threshold: a score at or above it is called a member (`None`: where the non-members' FPR is
    /// about the target).
    pub threshold: Option<f64>,
    /// The low FPR the attack is read at.
    pub target_fpr: f64,
    /// 1 − the level of every interval.
    pub alpha: f64,
}

impl Default for MiaTopicRequest {
    fn default() -> Self {
        Self {
            data: MiaSpec::default(),
            threshold: None,
            target_fpr: 1e-3,
            alpha: 0.05,
        }
    }
}

/// One threshold's attack: the rows it flags, its rates and their Clopper–Pearson intervals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ThresholdPoint {
    pub threshold: f64,
    pub tp: u64,
    pub fp: u64,
    pub tpr: f64,
    pub fpr: f64,
    pub tpr_interval: Interval,
    pub fpr_interval: Interval,
}

/// The generating distributions' own ROC, and that of the equal-variance attack with the same AUC, on a log-spaced
/// FPR grid (closed forms: `TPR = Φ((shift − z₁₋f) / spread)`, `AUC = Φ(shift / √(1 + spread²))`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrueCurves {
    pub fpr: Vec<f64>,
    pub tpr: Vec<f64>,
    /// The equal-variance attack (members `N(shift′, 1)`) with the same AUC: `shift′ = √2 · shift / √(1 + spread²)`.
    pub equal_variance_tpr: Vec<f64>,
    pub equal_variance_shift: f64,
    pub auc: f64,
    /// Both attacks' TPR at the target FPR.
    pub tpr_at_target: f64,
    pub equal_variance_tpr_at_target: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct MiaTopicView {
    pub histograms: Histograms,
    /// The exact ROC, thinned for drawing.
    pub curve: Curve,
    pub auc: f64,
    pub delong: DeLong,
    pub threshold: ThresholdPoint,
    /// The three rules (LeakPro, privacy-meter, jax_privacy) at the target FPR, as `lethe mia --rule all`.
    pub at_target: Vec<TprAtFpr>,
    /// LeakPro's reading with its Clopper–Pearson intervals at log-spaced target FPRs from `1/n₀` to 1: the band.
    pub band: Vec<TprAtFpr>,
    /// `1/n₀`: the smallest FPR above 0 the non-members resolve.
    pub resolution: f64,
    /// Non-members the target FPR flags on average: `n₀ · target`.
    pub expected_fp_at_target: f64,
    pub truth: TrueCurves,
}

/// `Φ⁻¹(1 − f)`, with `f = 1` at `−∞` (everyone flagged) and `f = 0` at `+∞`.
fn z_of(f: f64) -> f64 {
    if f >= 1.0 {
        f64::NEG_INFINITY
    } else if f <= 0.0 {
        f64::INFINITY
    } else {
        z_upper(f)
    }
}

fn true_curves(spec: &MiaSpec, target: f64) -> TrueCurves {
    let (mu, sd) = (spec.shift, spec.spread);
    let scale = (1.0 + sd * sd).sqrt();
    let auc = ndtr(mu / scale);
    let mu_eq = std::f64::consts::SQRT_2 * mu / scale;
    let tpr = |f: f64| ndtr((mu - z_of(f)) / sd);
    let tpr_eq = |f: f64| ndtr(mu_eq - z_of(f));
    // 1e-6 … 1, 20 points per decade.
    let fpr: Vec<f64> = (0..=120).map(|i| 10f64.powf(-6.0 + f64::from(i) / 20.0)).collect();
    TrueCurves {
        tpr: fpr.iter().map(|&f| tpr(f)).collect(),
        equal_variance_tpr: fpr.iter().map(|&f| tpr_eq(f)).collect(),
        fpr,
        equal_variance_shift: mu_eq,
        auc,
        tpr_at_target: tpr(target),
        equal_variance_tpr_at_target: tpr_eq(target),
    }
}

/// The topic's view of `req`.
///
/// # Errors
/// As [`mia_scores`]; a target FPR outside [1e-6, 1] or α outside (0, 1), named.
pub fn mia(req: &MiaTopicRequest) -> Result<MiaTopicView> {
    let target = check_finite("target_fpr", req.target_fpr, 1e-6, 1.0)?;
    if !(req.alpha > 0.0 && req.alpha < 1.0) {
        return Err(Error::at(
            "alpha",
            format!("`alpha` = {} must lie strictly between 0 and 1", req.alpha),
        ));
    }
    let (members, non_members) = mia_scores(&req.data)?;
    let r = roc::roc(&members, &non_members).map_err(Error::from)?;
    let (n1, n0) = (r.n_members, r.n_non_members);
    let summary = roc::summary(&r);
    let delong = delong::delong(&r, req.alpha).map_err(Error::from)?;
    let histograms = shared_histograms(
        &[
            ("non-members".to_string(), "oot", non_members.as_slice()),
            ("members".to_string(), "it", members.as_slice()),
        ],
        40,
    )?;
    // The threshold: the one asked for, or the first score whose FPR reaches the target.
    let t = match req.threshold {
        Some(t) => check_finite("threshold", t, -50.0, 50.0)?,
        None => roc::tpr_at_fpr(&r, target, RocRule::LeakPro, req.alpha)
            .map_err(Error::from)?
            .threshold
            .min(50.0),
    };
    let k = r.thresholds.partition_point(|&x| x >= t) - 1;
    let interval = |x: u64, n: u64| -> Result<Interval> {
        Ok(lethe::binomial::two_sided(x, n, req.alpha).map_err(Error::from)?.into())
    };
    let threshold = ThresholdPoint {
        threshold: t,
        tp: r.tp[k],
        fp: r.fp[k],
        tpr: r.tpr(k),
        fpr: r.fpr(k),
        tpr_interval: interval(r.tp[k], n1)?,
        fpr_interval: interval(r.fp[k], n0)?,
    };
    let at_target = RocRule::ALL
        .iter()
        .map(|&rule| roc::tpr_at_fpr(&r, target, rule, req.alpha).map_err(Error::from))
        .collect::<Result<Vec<_>>>()?;
    // The band: from 1/n₀ to 1, four readings per decade.
    let lo = (1.0 / n0 as f64).log10();
    let steps = (-lo * 4.0).ceil() as usize;
    let band = (0..=steps)
        .map(|i| {
            let f = 10f64.powf(lo - lo * i as f64 / steps as f64).min(1.0);
            roc::tpr_at_fpr(&r, f, RocRule::LeakPro, req.alpha).map_err(Error::from)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(MiaTopicView {
        histograms,
        curve: thin_curve(&r, CURVE_POINTS),
        auc: summary.auc,
        delong,
        threshold,
        at_target,
        band,
        resolution: 1.0 / n0 as f64,
        expected_fp_at_target: n0 as f64 * target,
        truth: true_curves(&req.data, target),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_seeded_and_follow_their_distributions() {
        let spec = MiaSpec {
            n_members: 20_000,
            n_non_members: 20_000,
            ..MiaSpec::default()
        };
        let (m, n) = mia_scores(&spec).unwrap();
        assert_eq!((m.clone(), n.clone()), mia_scores(&spec).unwrap());
        assert_ne!(m, mia_scores(&MiaSpec { seed: 1, ..spec }).unwrap().0);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let sd = |v: &[f64]| (v.iter().map(|x| (x - mean(v)).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt();
        assert!((mean(&m) - 0.5).abs() < 0.05 && (sd(&m) - 2.0).abs() < 0.05);
        assert!(mean(&n).abs() < 0.03 && (sd(&n) - 1.0).abs() < 0.03);
        assert!(mia_scores(&MiaSpec { spread: 0.0, ..spec }).is_err_and(|e| e.input.as_deref() == Some("spread")));
    }

    #[test]
    fn the_view_is_the_cores_roc_and_the_sample_approaches_the_truth() {
        let req = MiaTopicRequest::default();
        let v = mia(&req).unwrap();
        let (m, n) = mia_scores(&req.data).unwrap();
        let r = roc::roc(&m, &n).unwrap();
        assert_eq!(v.auc, roc::summary(&r).auc);
        assert_eq!(v.delong, delong::delong(&r, 0.05).unwrap());
        for (p, rule) in v.at_target.iter().zip(RocRule::ALL) {
            assert_eq!(*p, roc::tpr_at_fpr(&r, 1e-3, rule, 0.05).unwrap());
        }
        // The default threshold is LeakPro's at the target: its counts are the rows at or above it.
        let t = v.threshold.threshold;
        assert_eq!(v.threshold.tp, m.iter().filter(|&&x| x >= t).count() as u64);
        assert_eq!(v.threshold.fp, n.iter().filter(|&&x| x >= t).count() as u64);
        assert!(v.threshold.fpr <= 1e-3);
        // The closed forms: AUC Φ(0.5/√5); the equal-variance attack has the same AUC and far less TPR at 1e-3.
        assert!((v.truth.auc - ndtr(0.5 / 5f64.sqrt())).abs() < 1e-15);
        assert!((ndtr(v.truth.equal_variance_shift / std::f64::consts::SQRT_2) - v.truth.auc).abs() < 1e-15);
        assert!(v.truth.tpr_at_target > 10.0 * v.truth.equal_variance_tpr_at_target);
        assert!((v.auc - v.truth.auc).abs() < 0.03, "{} vs {}", v.auc, v.truth.auc);
        // The band runs from 1/n₀ to 1, its intervals around each reading.
        assert!((v.band[0].target_fpr - 1.0 / 3000.0).abs() < 1e-12 && v.band.last().unwrap().target_fpr == 1.0);
        for b in &v.band {
            let i = b.tpr_interval.unwrap();
            assert!(i.lo <= b.tpr && b.tpr <= i.hi);
        }
        assert_eq!(v.expected_fp_at_target, 3.0);
    }

    #[test]
    fn a_dragged_threshold_counts_its_rows_and_bad_requests_name_their_control() {
        let req = MiaTopicRequest {
            threshold: Some(1.0),
            ..MiaTopicRequest::default()
        };
        let v = mia(&req).unwrap();
        let (m, n) = mia_scores(&req.data).unwrap();
        assert_eq!(v.threshold.tp, m.iter().filter(|&&x| x >= 1.0).count() as u64);
        assert_eq!(v.threshold.fp, n.iter().filter(|&&x| x >= 1.0).count() as u64);
        let (lo, hi) = lethe::binomial::two_sided(v.threshold.fp, 3000, 0.05).unwrap();
        assert_eq!((v.threshold.fpr_interval.lo, v.threshold.fpr_interval.hi), (lo, hi));
        let bad = MiaTopicRequest {
            target_fpr: 0.0,
            ..MiaTopicRequest::default()
        };
        assert!(mia(&bad).is_err_and(|e| e.input.as_deref() == Some("target_fpr")));
    }
}
