//! Epsilon from an attack: one forget-set example's outputs under retrained and unlearned models, the three
//! variants' best attacks, the epsilon of every exhaustive threshold, and one threshold's attack with the points it
//! would earn.

use lethe::competition::threshold::{ThresholdCurve, scored_attack, threshold_curves};
use lethe::competition::{
    self, AttackRule, Bucket, CompetitionParams, DELTA, ExampleEpsilon, ThresholdAttack, Variant,
};
use serde::{Deserialize, Serialize};

use super::{check_finite, check_range};
use crate::plots::{Histograms, shared_histograms};
use crate::synthetic::Rng;
use crate::{Error, Result};

/// The epsilon topic's data: one forget-set example's output (e.g. logit-scaled confidence) under `n_models`
/// retrained models, `N(0, 1)`, and `n_models` unlearned models, `N(shift, spread²)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EpsilonSpec {
    pub n_models: usize,
    pub shift: f64,
    pub spread: f64,
    pub seed: u64,
}

impl Default for EpsilonSpec {
    fn default() -> Self {
        Self {
            n_models: 64,
            shift: 1.5,
            spread: 1.0,
            seed: 0,
        }
    }
}

/// Most models per side in the epsilon topic.
pub const MAX_MODELS: usize = 1024;

/// Which side of the threshold is called "retrained" (the exhaustive family's two rule directions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    AtLeast,
    Below,
}

impl Direction {
    fn rule(self, threshold: f64) -> AttackRule {
        match self {
            Direction::AtLeast => AttackRule::AtLeast { threshold },
            Direction::Below => AttackRule::Below { threshold },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EpsilonRequest {
    pub data: EpsilonSpec,
    /// Two-sided level of the Clopper–Pearson variant.
    pub alpha: f64,
    /// A threshold to evaluate (the draggable one), with its direction.
    pub threshold: Option<f64>,
    pub direction: Option<Direction>,
}

impl Default for EpsilonRequest {
    fn default() -> Self {
        Self {
            data: EpsilonSpec::default(),
            alpha: 0.05,
            threshold: None,
            direction: None,
        }
    }
}

/// A threshold attack with the bucket and points its epsilon earns.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ThresholdView {
    pub attack: ThresholdAttack,
    pub direction: Direction,
    pub bucket: Option<usize>,
    pub points: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct EpsilonView {
    pub retrained: Vec<f64>,
    pub unlearned: Vec<f64>,
    pub histograms: Histograms,
    /// `⌈ln(N − 1)⌉` and its buckets.
    pub eps_max: f64,
    pub buckets: Vec<Bucket>,
    pub official: ExampleEpsilon,
    pub exhaustive: ExampleEpsilon,
    pub clopper_pearson: ExampleEpsilon,
    /// The direction in which the retrained outputs are the larger (official: larger median).
    pub direction: Direction,
    /// `(threshold, epsilon)` of every exhaustive attack in each direction (epsilon NaN where discarded).
    pub at_least: ThresholdCurve,
    pub below: ThresholdCurve,
    pub threshold: Option<ThresholdView>,
}

/// The two samples of the epsilon topic.
///
/// # Errors
/// `n_models` outside `4..=1024`, a shift beyond ±10 or a spread outside [0.05, 10].
pub fn epsilon_samples(spec: &EpsilonSpec) -> Result<(Vec<f64>, Vec<f64>)> {
    check_range("n_models", spec.n_models, 4, MAX_MODELS)?;
    let shift = check_finite("shift", spec.shift, -10.0, 10.0)?;
    let spread = check_finite("spread", spec.spread, 0.05, 10.0)?;
    let mut rng = Rng::new(spec.seed, 0xe951_1000);
    let r = (0..spec.n_models).map(|_| rng.normal()).collect();
    let u = (0..spec.n_models).map(|_| shift + spread * rng.normal()).collect();
    Ok((r, u))
}

fn threshold_view(r: &[f64], u: &[f64], t: f64, direction: Direction) -> Result<ThresholdView> {
    let s = scored_attack(r, u, direction.rule(t), DELTA).map_err(|e| Error::from(e).or_at("threshold"))?;
    Ok(ThresholdView {
        attack: s.attack,
        direction,
        bucket: s.bucket,
        points: s.points,
    })
}

/// The whole epsilon figure: both samples, the three variants' best attacks, the epsilon of every exhaustive
/// threshold, and (if asked) one threshold's attack.
///
/// # Errors
/// Bad data parameters, `alpha ∉ (0, 1)`, a non-finite threshold.
pub fn epsilon(req: &EpsilonRequest) -> Result<EpsilonView> {
    let (r, u) = epsilon_samples(&req.data)?;
    let variant = |v| competition::example_epsilon(&r, &u, &CompetitionParams::with_variant(v));
    let official = variant(Variant::Official)?;
    let exhaustive = variant(Variant::Exhaustive)?;
    let clopper_pearson =
        variant(Variant::HighProbability { alpha: req.alpha }).map_err(|e| Error::from(e).or_at("alpha"))?;
    let direction = if official.positive_is_retrained {
        Direction::AtLeast
    } else {
        Direction::Below
    };
    let (at_least, below) = threshold_curves(&r, &u, DELTA)?;
    let threshold = match req.threshold {
        Some(t) => Some(threshold_view(&r, &u, t, req.direction.unwrap_or(direction))?),
        None => None,
    };
    let histograms = shared_histograms(
        &[("retrained".into(), "it", &r[..]), ("unlearned".into(), "oot", &u[..])],
        40,
    )?;
    let eps_max = competition::official_eps_max(u.len());
    Ok(EpsilonView {
        histograms,
        eps_max,
        buckets: competition::bucket_table(eps_max),
        official,
        exhaustive,
        clopper_pearson,
        direction,
        at_least,
        below,
        threshold,
        retrained: r,
        unlearned: u,
    })
}

/// Only the attack at one threshold (the drag), without the rest of the figure.
///
/// # Errors
/// As [`epsilon`].
pub fn epsilon_threshold(req: &EpsilonRequest) -> Result<ThresholdView> {
    let (r, u) = epsilon_samples(&req.data)?;
    let t = req
        .threshold
        .ok_or_else(|| Error::at("threshold", "no threshold given"))?;
    let direction = match req.direction {
        Some(d) => d,
        None => {
            let o = competition::example_epsilon(&r, &u, &CompetitionParams::default())?;
            if o.positive_is_retrained {
                Direction::AtLeast
            } else {
                Direction::Below
            }
        }
    };
    threshold_view(&r, &u, t, direction)
}
