//! Threshold attacks as a figure shows them: one threshold's attack with the bucket and points its epsilon would
//! earn, and the epsilon of every exhaustive threshold, one curve per rule direction.

use serde::Serialize;

use super::{
    AttackRule, ThresholdAttack, bucket_table, exhaustive_attacks, official_eps_max, score_epsilon, threshold_attack,
};
use crate::error::Result;

/// A threshold attack with the bucket and points its epsilon earns in the official bucket table (`ε_max =
/// ⌈ln(N − 1)⌉`, `N` the unlearned models).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ScoredAttack {
    pub attack: ThresholdAttack,
    /// 0-based bucket, `None` when the epsilon earns nothing (beyond the table, `inf`, or NaN: discarded).
    pub bucket: Option<usize>,
    pub points: f64,
}

/// [`threshold_attack`] at `rule`, scored as metric.py scores an example's epsilon.
///
/// # Errors
/// As [`threshold_attack`].
///
/// # Examples
/// ```
/// use lethe::competition::{AttackRule, threshold::scored_attack};
/// let r = [3.0, 4.0, 5.0, 6.0];
/// let u = [0.0, 1.0, 2.0, 3.5];
/// // x ≥ 3.5: FPR = FNR = 1/4, ε = ln(3) ≈ 1.1: bucket [1, 1.5) of ⌈ln 3⌉ = 2, worth 1/4.
/// let s = scored_attack(&r, &u, AttackRule::AtLeast { threshold: 3.5 }, 1e-5).unwrap();
/// assert_eq!((s.bucket, s.points), (Some(2), 0.25));
/// ```
pub fn scored_attack(retrained: &[f64], unlearned: &[f64], rule: AttackRule, delta: f64) -> Result<ScoredAttack> {
    let attack = threshold_attack(retrained, unlearned, rule, delta)?;
    let (bucket, points) = score_epsilon(attack.epsilon, &bucket_table(official_eps_max(unlearned.len())));
    Ok(ScoredAttack { attack, bucket, points })
}

/// `(threshold, epsilon)` of the exhaustive attacks of one rule direction, thresholds ascending (epsilon `inf`
/// for perfect separation, NaN where the attack is discarded).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ThresholdCurve {
    pub threshold: Vec<f64>,
    #[serde(serialize_with = "crate::json::vec_f64")]
    pub epsilon: Vec<f64>,
}

/// The epsilon of every exhaustive threshold attack ([`exhaustive_attacks`]), split by direction: the rules
/// `x ≥ t` and the rules `x < t`.
///
/// # Errors
/// As [`exhaustive_attacks`].
///
/// # Examples
/// ```
/// use lethe::competition::threshold::threshold_curves;
/// let (at_least, below) = threshold_curves(&[1.0, 2.0], &[0.0, 1.0], 1e-5).unwrap();
/// assert_eq!(at_least.threshold, vec![0.0, 1.0, 2.0]);
/// assert_eq!(below.threshold, at_least.threshold);
/// ```
pub fn threshold_curves(retrained: &[f64], unlearned: &[f64], delta: f64) -> Result<(ThresholdCurve, ThresholdCurve)> {
    let (mut at_least, mut below) = (ThresholdCurve::default(), ThresholdCurve::default());
    for a in exhaustive_attacks(retrained, unlearned, delta)? {
        let (curve, t) = match a.rule {
            AttackRule::AtLeast { threshold } => (&mut at_least, threshold),
            AttackRule::Below { threshold } => (&mut below, threshold),
            AttackRule::Interval { .. } => continue,
        };
        curve.threshold.push(t);
        curve.epsilon.push(a.epsilon);
    }
    Ok((at_least, below))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::competition::{CompetitionParams, DELTA, Variant, example_epsilon};

    fn samples() -> (Vec<f64>, Vec<f64>) {
        let r: Vec<f64> = (0..20).map(|i| f64::from(i) * 0.3).collect();
        let u: Vec<f64> = (0..20).map(|i| 2.0 + f64::from(i) * 0.25).collect();
        (r, u)
    }

    #[test]
    fn curves_hold_every_exhaustive_attack_and_its_best() {
        let (r, u) = samples();
        let (at_least, below) = threshold_curves(&r, &u, DELTA).unwrap();
        let all = exhaustive_attacks(&r, &u, DELTA).unwrap();
        assert_eq!(at_least.threshold.len() + below.threshold.len(), all.len());
        assert!(at_least.threshold.windows(2).all(|w| w[0] < w[1]));
        let best = example_epsilon(&r, &u, &CompetitionParams::with_variant(Variant::Exhaustive)).unwrap();
        let top = at_least
            .epsilon
            .iter()
            .chain(&below.epsilon)
            .filter(|e| !e.is_nan())
            .fold(0.0f64, |a, &b| a.max(b));
        assert_eq!(top, best.epsilon);
    }

    #[test]
    fn a_scored_attack_earns_what_the_example_would() {
        let (r, u) = samples();
        let best = example_epsilon(&r, &u, &CompetitionParams::with_variant(Variant::Exhaustive)).unwrap();
        let rule = best.best_attack.unwrap().rule;
        let s = scored_attack(&r, &u, rule, DELTA).unwrap();
        assert_eq!(s.attack.epsilon, best.epsilon);
        assert_eq!((s.bucket, s.points), (best.bucket, best.points));
        // Perfect separation: ε = inf earns nothing.
        let p = scored_attack(&[5.0, 6.0], &[0.0, 1.0], AttackRule::AtLeast { threshold: 3.0 }, DELTA).unwrap();
        assert_eq!((p.attack.epsilon, p.bucket, p.points), (f64::INFINITY, None, 0.0));
        assert!(scored_attack(&r, &u, AttackRule::AtLeast { threshold: f64::NAN }, DELTA).is_err());
    }
}
