//! The NeurIPS 2023 Machine Unlearning competition score (Triantafillou, Kairouz et al., "Evaluation for the
//! NeurIPS Machine Unlearning Competition", 2023), with the official scoring code
//! (google-deepmind/unlearning_evaluation, `metric.py`) as the default.
//!
//! # The estimator
//!
//! For each forget-set example `s`, `N` retrained and `N` unlearned models give two samples of a scalar output
//! (usually the [logit-scaled confidence](logit_scaled_confidence)). A family of decision rules ("attacks") tries to
//! tell the samples apart; an attack with false-positive and false-negative rates `FPR`, `FNR` certifies, at
//! `δ = 10⁻⁵`,
//!
//! ```text
//! ε = max{ log((1 − δ − FPR)/FNR), log((1 − δ − FNR)/FPR) }                                        (Eq. 1)
//! ```
//!
//! An attack with `FPR = FNR = 0` gives `ε = ∞`; one with exactly one zero rate is discarded. The example's
//! `ε_s` is the largest over the family (`nanmax`). Each example then earns `H(s) = 2/2^k` points for the bucket
//! `k = ⌊ε_s/0.5⌋ + 1` it falls in, as long as the bucket ends at or below `ε_max` (else 0; `∞` gets 0), and the
//! forgetting quality is the mean `F = (1/|S|) Σ_s H(s)`. The final competition score is
//! `F · (RA_U/RA_R) · (TA_U/TA_R)` ([`final_score`]).
//!
//! # Variants ([`Variant`])
//!
//! * **Official** (default), exactly metric.py: per example, the positive class is the sample with the larger
//!   median (`np.median`, strict `>`, ties → unlearned); if the smaller of the two ranges is under 1% of the larger,
//!   `ε_s = 50` ("peaky" rule; both ranges 0 gives 0/0 = NaN, which is not `< 0.01`, so such an example goes on to
//!   the attacks). The family is (a) ~400 × 400 interval rules `l ≤ x ≤ r` predicting the peakier sample, right
//!   ends on a 0.01 grid over `[min_p + w − 2, max_p + 2]` (`w` the smaller range) and, for each, 400 left ends over
//!   `[r − w − 2, r − w + 2]` (float64 `numpy.linspace`), and (b) single thresholds `x ≥ t` predicting the positive
//!   class, `⌈100·(max − min)⌉` points of the pooled range from `torch.linspace`, which is **float32**. Rates are
//!   torch CUDA float32 means, `ε` is computed in float32 with numpy's float32 `log`, clipped to `[0, ∞)`, and the
//!   example's `ε_s` is clipped to `[0, 50]` (so perfect separation scores 50). `ε_max = ⌈ln(N − 1)⌉`.
//!   Lethe reproduces metric.py's numbers to the bit (see [`emulate`]); the dense threshold tensors are replaced
//!   by sorted samples, binary searches and sweeps.
//! * **Exhaustive**: every distinct pooled value `t` as a threshold, both rules `x ≥ t` and `x < t` predicting
//!   "retrained" (positives are always the retrained sample), float64, no peaky rule and no cap. This is the paper's
//!   text taken literally and a stronger attack than the official grid. An example where every attack is discarded
//!   gets `ε_s = 0`.
//! * **High probability**: Eq. 2 of the document with Clopper–Pearson bounds, over the exhaustive family:
//!   `ε = max(0, max over attacks of log((1 − δ − FPR⁺)/FNR⁺), log((1 − δ − FNR⁺)/FPR⁺))` with `FPR⁺`, `FNR⁺` the
//!   upper ends of statsmodels' two-sided `proportion_confint(count, n, alpha, method="beta")`, no discarding. The
//!   document typesets lower bounds in the denominators, but only upper bounds there make the result a lower
//!   confidence bound on `ε` (and finite at zero counts); Lethe uses upper bounds throughout.
//!
//! # Deviations from metric.py, all documented where they apply
//!
//! * metric.py ends with `assert thr_eps` on a numpy array, which raises whenever more than one attack survives (and
//!   also when exactly one survives with `ε = 0`); the evident intent is "some attack survived". Where none does,
//!   metric.py stops; Lethe warns and scores the example `ε_s = 0` when no attack separates the samples (e.g. both
//!   constant and equal), or `ε_s = 50` when some attack separates them perfectly but metric.py's float32 CUDA rates
//!   fail to recognise it: `TPR + TNR == 2` needs `fl(N · fl(T/(N·T))) == 1`, false for 137 of the `N ≤ 1024`
//!   (41, 47, 55, …), where perfectly separated samples have every attack discarded.
//! * metric.py requires a CUDA GPU; Lethe computes the same numbers on the CPU and in the browser.

mod confidence;
pub mod emulate;
mod exhaustive;
mod official;
#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
pub mod threshold;

pub use confidence::{
    Exp, logit_scaled_confidence, logit_scaled_confidences, logit_scaled_confidences_from_probabilities,
};

use serde::{Deserialize, Serialize};

use crate::data::MatrixRef;
use crate::error::{Error, Result};
use crate::note::{Note, NoteKind};

/// metric.py's `EPSILON_CAP`: the official per-example epsilon never exceeds it (peaky examples get it).
pub const EPSILON_CAP: f64 = 50.0;
/// metric.py's `DELTA`.
pub const DELTA: f64 = 1e-5;
/// Width of the scoring buckets.
pub const BUCKET_WIDTH: f64 = 0.5;
/// Most single-threshold grid points the official variant builds for one example (2^24, where float32 stops
/// counting exactly): a pooled range above 167,772 units is refused rather than exhausting memory.
pub const MAX_OFFICIAL_GRID: f64 = 16_777_216.0;

/// The largest fixed `ε_max` accepted: its bucket table ([`bucket_table`]) has two million buckets, 48 MB. The
/// table has a bucket every [`BUCKET_WIDTH`], and a fixed `ε_max` of `10³⁰⁰` would otherwise build one without end.
pub const MAX_FIXED_EPS_MAX: f64 = 1e6;

/// Which attack family and estimate to use.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Variant {
    /// The competition's official scoring code, bit for bit.
    #[default]
    Official,
    /// Every distinct pooled value as a threshold, both directions, float64.
    Exhaustive,
    /// Clopper–Pearson lower confidence bound on epsilon over the exhaustive family (two-sided `alpha`).
    HighProbability { alpha: f64 },
}

/// Upper end of the scored epsilon range: buckets `[0, 0.5), [0.5, 1), …` are kept while they end at or below it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum EpsMax {
    /// `⌈ln(N − 1)⌉` with `N` the number of unlearned models, as metric.py.
    #[default]
    Official,
    /// A fixed value, e.g. 6.5 as the competition document states for `N = 512`.
    Fixed(f64),
}

/// Parameters of [`forget_score`]. Defaults are metric.py's: official variant, `δ = 1e-5`, `ε_max = ⌈ln(N − 1)⌉`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct CompetitionParams {
    pub variant: Variant,
    /// `δ` of Eq. 1, in `[0, 1)`.
    pub delta: f64,
    pub eps_max: EpsMax,
}

impl Default for CompetitionParams {
    fn default() -> Self {
        CompetitionParams {
            variant: Variant::Official,
            delta: DELTA,
            eps_max: EpsMax::Official,
        }
    }
}

impl CompetitionParams {
    /// The official parameters with another variant.
    pub fn with_variant(variant: Variant) -> Self {
        CompetitionParams {
            variant,
            ..Self::default()
        }
    }
}

/// A decision rule; it predicts the attack's positive class when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AttackRule {
    /// Fires for `x ≥ threshold`.
    AtLeast { threshold: f64 },
    /// Fires for `x < threshold` (exhaustive family only).
    Below { threshold: f64 },
    /// Fires for `left ≤ x ≤ right` (official interval family).
    Interval { left: f64, right: f64 },
}

/// The attack that set an example's epsilon.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Attack {
    pub rule: AttackRule,
    /// Whether the rule's positive class (what it predicts when it fires) is the retrained sample. In the official
    /// interval family the positive class is the peakier sample, whichever it is.
    pub positive_is_retrained: bool,
    pub false_positives: usize,
    pub false_negatives: usize,
    /// The rates as the variant computes them: float32 CUDA means (official), counts/N (exhaustive), or
    /// Clopper–Pearson upper bounds (high probability).
    pub fpr: f64,
    pub fnr: f64,
    /// Position of the attack in the family's order (official: metric.py's flat threshold index, interval attacks
    /// first; exhaustive: all `≥` rules by threshold, then all `<` rules).
    pub index: usize,
}

/// One forget-set example's epsilon and score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExampleEpsilon {
    /// `ε_s` (official: clipped to `[0, 50]`; exhaustive: may be `inf`).
    #[serde(serialize_with = "crate::json::f64")]
    pub epsilon: f64,
    /// `None` for peaky examples and where every attack was discarded (then `epsilon` is 0 and the result carries
    /// a warning; metric.py itself stops at its `assert` there).
    pub best_attack: Option<Attack>,
    /// Official variant: whether the retrained sample had the larger median (metric.py's positive class).
    /// Always true for the other variants.
    pub positive_is_retrained: bool,
    /// Official variant: the "peaky" rule set `ε_s = 50`.
    pub peaky: bool,
    /// 0-based bucket index (`k − 1`), `None` when the example earns no points.
    pub bucket: Option<usize>,
    /// `H(s)`.
    pub points: f64,
}

/// One scoring bucket `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Bucket {
    pub start: f64,
    pub end: f64,
    pub points: f64,
}

/// Result of [`forget_score`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompetitionResult {
    pub per_example: Vec<ExampleEpsilon>,
    /// `F`, the mean points.
    pub forget_score: f64,
    pub buckets: Vec<Bucket>,
    pub eps_max: f64,
    pub variant: Variant,
    pub delta: f64,
    pub warnings: Vec<Note>,
}

/// One row of the exhaustive attack table ([`exhaustive_attacks`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ThresholdAttack {
    pub rule: AttackRule,
    pub false_positives: usize,
    pub false_negatives: usize,
    pub fpr: f64,
    pub fnr: f64,
    /// Eq. 1 epsilon of this attack, `inf` for perfect separation, NaN where it is discarded.
    #[serde(serialize_with = "crate::json::f64")]
    pub epsilon: f64,
}

/// How an example's epsilon came about, for the warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Some attack survived (or the peaky rule applied): the reference's own number.
    Scored,
    /// Every attack was discarded and none separated the samples: scored 0.
    NoAttack,
    /// Every attack was discarded, but some separated the samples perfectly and metric.py's float32 rates did not
    /// recognise it (`N·factor ≠ 1`): scored as the cap.
    UnrecognisedPerfect,
}

/// Mean accuracies for [`final_score`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Accuracies {
    /// `RA_U`: retain-set accuracy of the unlearned models.
    pub retain_unlearned: f64,
    /// `RA_R`: retain-set accuracy of the retrained models.
    pub retain_retrained: f64,
    /// `TA_U`: test accuracy of the unlearned models.
    pub test_unlearned: f64,
    /// `TA_R`: test accuracy of the retrained models.
    pub test_retrained: f64,
}

/// The forgetting quality `F` of an unlearning algorithm and every example's epsilon, from the outputs of `N`
/// retrained and `N` unlearned models on `E` forget-set examples (matrices `models × examples`, as metric.py's
/// `compute_forget_score_from_confs`; note that metric.py takes the unlearned matrix first).
///
/// See the [module docs](self) for the estimator and the variants; the default is metric.py's official score.
///
/// # Errors
/// [`Error::Empty`]/[`Error::NonFinite`] for an empty or non-finite matrix; [`Error::ShapeMismatch`] when the
/// matrices have different numbers of examples (columns), or, for the official variant, different numbers of
/// models (metric.py's `np.where` needs equal shapes); [`Error::InvalidParameter`] for `delta ∉ [0, 1)`,
/// `alpha ∉ (0, 1)` or a non-finite or negative fixed `eps_max`; [`Error::OutOfDomain`] when, for the official
/// variant, an example's pooled range exceeds 167,772 units (its threshold grid would exceed
/// [`MAX_OFFICIAL_GRID`] points; metric.py would try to allocate it).
///
/// # Examples
/// ```
/// use lethe::Matrix;
/// use lethe::competition::{forget_score, CompetitionParams};
/// // 4 models × 2 examples: the first example separates perfectly, the second not at all.
/// let retrained = Matrix::from_rows(&[[5.0, 0.1], [5.2, 0.3], [5.1, 0.2], [5.3, 0.4]]).unwrap();
/// let unlearned = Matrix::from_rows(&[[0.0, 0.1], [0.2, 0.3], [0.1, 0.2], [0.3, 0.4]]).unwrap();
/// let r = forget_score(retrained.view(), unlearned.view(), &CompetitionParams::default()).unwrap();
/// assert_eq!(r.per_example[0].epsilon, 50.0); // perfect separation, capped
/// assert_eq!(r.eps_max, 2.0); // ceil(ln 3)
/// assert_eq!(r.forget_score, 0.5); // 0 + 1 points over 2 examples
/// ```
pub fn forget_score(
    retrained: MatrixRef<'_, f64>,
    unlearned: MatrixRef<'_, f64>,
    params: &CompetitionParams,
) -> Result<CompetitionResult> {
    crate::check::matrix("retrained", retrained, 1, "the competition score")?;
    crate::check::matrix("unlearned", unlearned, 1, "the competition score")?;
    if retrained.cols() != unlearned.cols() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "`{}` has {} examples (columns) but `{}` has {}; both must be models × the same forget-set examples",
                crate::words::role("retrained"),
                retrained.cols(),
                crate::words::role("unlearned"),
                unlearned.cols()
            ),
        });
    }
    validate(params, retrained.rows(), unlearned.rows())?;
    let columns_r = columns(retrained);
    let columns_u = columns(unlearned);
    let n_models = unlearned.rows();
    let eps_max = match params.eps_max {
        EpsMax::Official => official_eps_max(n_models),
        EpsMax::Fixed(v) => v,
    };
    let buckets = bucket_table(eps_max);
    let mut warnings = Vec::new();
    if params.eps_max == EpsMax::Official && n_models <= 2 {
        warnings.push(Note::new(
            NoteKind::NoBuckets,
            format!(
                "with N = {n_models} unlearned models ⌈ln(N − 1)⌉ is {eps_max}, so metric.py's table has no buckets and \
                 every example scores 0; use more models or a fixed bucket cut-off ({})",
                crate::words::opt("eps_max")
            ),
        ));
    }
    let cp = match params.variant {
        Variant::HighProbability { alpha } => {
            Some(exhaustive::CpTables::new(unlearned.rows(), retrained.rows(), alpha)?)
        }
        _ => None,
    };

    let mut per_example = Vec::with_capacity(columns_r.len());
    let (mut unscored, mut unrecognised) = (Vec::new(), Vec::new());
    for (e, (r, u)) in columns_r.iter().zip(&columns_u).enumerate() {
        if params.variant == Variant::Official {
            check_official_grid(r, u, Some(e))?;
        }
        let (mut ex, outcome) = example_with(r, u, params, cp.as_ref())?;
        match outcome {
            Outcome::Scored => {}
            Outcome::NoAttack => unscored.push(e),
            Outcome::UnrecognisedPerfect => unrecognised.push(e),
        }
        let (bucket, points) = score_epsilon(ex.epsilon, &buckets);
        ex.bucket = bucket;
        ex.points = points;
        per_example.push(ex);
    }
    if !unscored.is_empty() {
        warnings.push(unscored_warning(&unscored, params.variant));
    }
    if !unrecognised.is_empty() {
        warnings.push(Note::new(
            NoteKind::SeparationCapped,
            format!(
                "example(s) {}: the samples are perfectly separated, but with N = {n_models} metric.py's float32 CUDA \
             rates give TPR + TNR ≠ 2, so it discards the separating attacks like every other one and stops with an \
             error; Lethe scores them epsilon = {EPSILON_CAP} (perfect separation, capped)",
                list_examples(&unrecognised)
            ),
        ));
    }
    if params.variant == Variant::Official {
        let wide = columns_r
            .iter()
            .zip(&columns_u)
            .filter(|(r, u)| pooled_range(r, u) * 100.0 > 32_768.0)
            .count();
        if wide > 0 {
            warnings.push(Note::new(
                NoteKind::ThreadsChangeMetricPy,
                format!(
                    "{wide} example(s) span more than 327.68 units: for these, metric.py's own epsilon depends on how \
                 many threads PyTorch uses (it builds their threshold grid of over 32,768 points in chunks, one per \
                 thread, whose rounding differs); Lethe gives the single-threaded result"
                ),
            ));
        }
    }
    // metric.py adds the points in example order, then divides once.
    let total = per_example.iter().fold(0.0, |acc, ex| acc + ex.points);
    Ok(CompetitionResult {
        forget_score: total / per_example.len() as f64,
        per_example,
        buckets,
        eps_max,
        variant: params.variant,
        delta: params.delta,
        warnings,
    })
}

/// The epsilon of a single forget-set example from its retrained and unlearned samples, under `params.variant`
/// (bucket and points are filled in with `params.eps_max`, using `N = unlearned.len()` for the official `ε_max`).
///
/// # Errors
/// As [`forget_score`]: empty or non-finite samples, unequal sample sizes or an over-wide range for the official
/// variant, invalid parameters.
///
/// # Examples
/// ```
/// use lethe::competition::{example_epsilon, CompetitionParams, Variant};
/// // Rule x ≥ 3.5 flags 3 of 4 retrained and 1 of 4 unlearned: FPR = FNR = 1/4.
/// let r = [3.0, 4.0, 5.0, 6.0];
/// let u = [0.0, 1.0, 2.0, 3.5];
/// let ex = example_epsilon(&r, &u, &CompetitionParams::with_variant(Variant::Exhaustive)).unwrap();
/// assert!((ex.epsilon - ((0.75f64 - 1e-5) / 0.25).ln()).abs() < 1e-12);
/// ```
pub fn example_epsilon(retrained: &[f64], unlearned: &[f64], params: &CompetitionParams) -> Result<ExampleEpsilon> {
    crate::check::sample("retrained", retrained)?;
    crate::check::sample("unlearned", unlearned)?;
    validate(params, retrained.len(), unlearned.len())?;
    let cp = match params.variant {
        Variant::HighProbability { alpha } => Some(exhaustive::CpTables::new(unlearned.len(), retrained.len(), alpha)?),
        _ => None,
    };
    if params.variant == Variant::Official {
        check_official_grid(retrained, unlearned, None)?;
    }
    let (mut ex, _) = example_with(retrained, unlearned, params, cp.as_ref())?;
    let eps_max = match params.eps_max {
        EpsMax::Official => official_eps_max(unlearned.len()),
        EpsMax::Fixed(v) => v,
    };
    let (bucket, points) = score_epsilon(ex.epsilon, &bucket_table(eps_max));
    ex.bucket = bucket;
    ex.points = points;
    Ok(ex)
}

/// Every attack of the exhaustive family with its counts, rates and Eq. 1 epsilon: for each distinct pooled value
/// `t` ascending the rule `x ≥ t`, then for each `t` the rule `x < t`; both predict "retrained",
/// `FPR = #unlearned flagged / N_u`, `FNR = #retrained missed / N_r`.
///
/// # Errors
/// [`Error::Empty`]/[`Error::NonFinite`] for bad samples, [`Error::InvalidParameter`] for `delta ∉ [0, 1)`.
///
/// # Examples
/// ```
/// use lethe::competition::exhaustive_attacks;
/// let t = exhaustive_attacks(&[1.0, 2.0], &[0.0, 1.0], 1e-5).unwrap();
/// assert_eq!(t.len(), 6); // 3 distinct values × 2 directions
/// assert_eq!((t[2].false_positives, t[2].false_negatives), (0, 1)); // x ≥ 2
/// ```
pub fn exhaustive_attacks(retrained: &[f64], unlearned: &[f64], delta: f64) -> Result<Vec<ThresholdAttack>> {
    crate::check::sample("retrained", retrained)?;
    crate::check::sample("unlearned", unlearned)?;
    check_delta(delta)?;
    Ok(exhaustive::table(retrained, unlearned, delta))
}

/// One threshold attack of the exhaustive family's form at any threshold (not only at pooled values): the rule
/// [`AttackRule::AtLeast`] (`x ≥ t`) or [`AttackRule::Below`] (`x < t`) predicts "retrained";
/// `FPR = #unlearned flagged / N_u`, `FNR = #retrained missed / N_r`, and the Eq. 1 epsilon of those rates (`inf`
/// for perfect separation, NaN where exactly one rate is 0 and the attack is discarded). At a pooled value it is
/// the row of [`exhaustive_attacks`] with the same rule; between two pooled values it equals the row of the next
/// value up.
///
/// # Errors
/// [`Error::Empty`]/[`Error::NonFinite`] for bad samples, [`Error::InvalidParameter`] for `delta ∉ [0, 1)`, a
/// non-finite threshold, or an interval rule (not a threshold).
///
/// # Examples
/// ```
/// use lethe::competition::{threshold_attack, AttackRule};
/// // x ≥ 3.5 flags 3 of 4 retrained and 1 of 4 unlearned: FPR = FNR = 1/4.
/// let a = threshold_attack(&[3.0, 4.0, 5.0, 6.0], &[0.0, 1.0, 2.0, 3.5], AttackRule::AtLeast { threshold: 3.5 }, 1e-5).unwrap();
/// assert_eq!((a.false_positives, a.false_negatives), (1, 1));
/// assert!((a.epsilon - ((0.75f64 - 1e-5) / 0.25).ln()).abs() < 1e-12);
/// ```
pub fn threshold_attack(retrained: &[f64], unlearned: &[f64], rule: AttackRule, delta: f64) -> Result<ThresholdAttack> {
    crate::check::sample("retrained", retrained)?;
    crate::check::sample("unlearned", unlearned)?;
    check_delta(delta)?;
    let (fp, fn_) = match rule {
        AttackRule::AtLeast { threshold: t } if t.is_finite() => (
            unlearned.iter().filter(|&&x| x >= t).count(),
            retrained.iter().filter(|&&x| x < t).count(),
        ),
        AttackRule::Below { threshold: t } if t.is_finite() => (
            unlearned.iter().filter(|&&x| x < t).count(),
            retrained.iter().filter(|&&x| x >= t).count(),
        ),
        AttackRule::AtLeast { threshold: t } | AttackRule::Below { threshold: t } => {
            return Err(Error::param("threshold", t, "a finite number"));
        }
        AttackRule::Interval { .. } => {
            return Err(Error::param(
                "rule",
                "interval",
                "a single-threshold rule (at_least or below)",
            ));
        }
    };
    let (fpr, fnr) = (fp as f64 / unlearned.len() as f64, fn_ as f64 / retrained.len() as f64);
    Ok(ThresholdAttack {
        rule,
        false_positives: fp,
        false_negatives: fn_,
        fpr,
        fnr,
        epsilon: exhaustive::rates_epsilon(fpr, fnr, delta).unwrap_or(f64::NAN),
    })
}

/// metric.py's `ε_max = ⌈ln(N − 1)⌉` for `N` models (`-inf` for `N = 1`, 0 for `N = 2`: no buckets).
///
/// # Examples
/// ```
/// assert_eq!(lethe::competition::official_eps_max(512), 7.0);
/// assert_eq!(lethe::competition::official_eps_max(16), 3.0);
/// ```
pub fn official_eps_max(n_models: usize) -> f64 {
    (n_models as f64 - 1.0).ln().ceil()
}

/// metric.py's bucket table: buckets `[0, 0.5), [0.5, 1), …` worth `1, 1/2, 1/4, …` points, kept while their end
/// is `≤ eps_max`.
///
/// # Examples
/// ```
/// let b = lethe::competition::bucket_table(6.5);
/// assert_eq!(b.len(), 13);
/// assert_eq!(b[12].points, 1.0 / 4096.0);
/// assert!(lethe::competition::bucket_table(0.0).is_empty());
/// ```
pub fn bucket_table(eps_max: f64) -> Vec<Bucket> {
    let mut out = Vec::new();
    let mut start = 0.0f64;
    let mut points = 1.0f64;
    while start + BUCKET_WIDTH <= eps_max {
        out.push(Bucket {
            start,
            end: start + BUCKET_WIDTH,
            points,
        });
        points /= 2.0;
        start += BUCKET_WIDTH;
    }
    out
}

/// The bucket (0-based) and points `H(s)` of one epsilon: the first bucket with `ε < end` (metric.py's
/// `e < start_idx + bucket_size`); `ε` beyond the table, `inf` or NaN earn nothing.
///
/// # Examples
/// ```
/// use lethe::competition::{bucket_table, score_epsilon};
/// let b = bucket_table(6.5);
/// assert_eq!(score_epsilon(0.75, &b), (Some(1), 0.5));
/// assert_eq!(score_epsilon(6.5, &b), (None, 0.0));
/// ```
pub fn score_epsilon(epsilon: f64, buckets: &[Bucket]) -> (Option<usize>, f64) {
    buckets
        .iter()
        .position(|b| epsilon < b.end)
        .map_or((None, 0.0), |k| (Some(k), buckets[k].points))
}

/// The competition's final score `F · (RA_U/RA_R) · (TA_U/TA_R)` (document §5), evaluated left to right.
///
/// # Errors
/// [`Error::InvalidParameter`] when `forget_quality` is not in `[0, 1]`, an accuracy is not in `[0, 1]`, or a
/// retrained accuracy is 0.
///
/// # Examples
/// ```
/// use lethe::competition::{final_score, Accuracies};
/// let acc = Accuracies { retain_unlearned: 0.95, retain_retrained: 0.97, test_unlearned: 0.81, test_retrained: 0.84 };
/// let s = final_score(0.078125, &acc).unwrap();
/// assert!((s - 0.078125 * (0.95 / 0.97) * (0.81 / 0.84)).abs() < 1e-15);
/// ```
pub fn final_score(forget_quality: f64, accuracies: &Accuracies) -> Result<f64> {
    let unit = |name: &'static str, v: f64| {
        if (0.0..=1.0).contains(&v) {
            Ok(())
        } else {
            Err(Error::param(name, v, "a number in [0, 1]"))
        }
    };
    unit("forget_quality", forget_quality)?;
    unit("retain_unlearned", accuracies.retain_unlearned)?;
    unit("retain_retrained", accuracies.retain_retrained)?;
    unit("test_unlearned", accuracies.test_unlearned)?;
    unit("test_retrained", accuracies.test_retrained)?;
    for (name, v) in [
        ("retain_retrained", accuracies.retain_retrained),
        ("test_retrained", accuracies.test_retrained),
    ] {
        if v == 0.0 {
            return Err(Error::param(name, v, "a positive accuracy (it divides the score)"));
        }
    }
    Ok(forget_quality
        * (accuracies.retain_unlearned / accuracies.retain_retrained)
        * (accuracies.test_unlearned / accuracies.test_retrained))
}

fn check_delta(delta: f64) -> Result<()> {
    if (0.0..1.0).contains(&delta) {
        Ok(())
    } else {
        Err(Error::param(
            "delta",
            delta,
            "a number in [0, 1) (the competition uses 1e-5)",
        ))
    }
}

fn validate(params: &CompetitionParams, n_retrained: usize, n_unlearned: usize) -> Result<()> {
    check_delta(params.delta)?;
    if let EpsMax::Fixed(v) = params.eps_max
        && !(v.is_finite() && (0.0..=MAX_FIXED_EPS_MAX).contains(&v))
    {
        return Err(Error::param(
            "eps_max",
            v,
            format!(
                "a number from 0 to {MAX_FIXED_EPS_MAX:.0} (the document uses 6.5; the score's table has a bucket \
                 every {BUCKET_WIDTH}, so a larger one would take memory and time without end, and past 537.5 its \
                 buckets earn 0 points)"
            ),
        ));
    }
    match params.variant {
        Variant::Official if n_retrained != n_unlearned => Err(Error::ShapeMismatch {
            message: format!(
                "the official score needs as many retrained as unlearned models (metric.py's np.where needs equal \
                 shapes); got {n_retrained} and {n_unlearned}. Use the exhaustive variant for unequal sample sizes"
            ),
        }),
        Variant::HighProbability { alpha } => crate::check::unit_open("alpha", alpha),
        _ => Ok(()),
    }
}

fn example_with(
    retrained: &[f64],
    unlearned: &[f64],
    params: &CompetitionParams,
    cp: Option<&exhaustive::CpTables>,
) -> Result<(ExampleEpsilon, Outcome)> {
    match params.variant {
        Variant::Official => {
            let retrained_is_positive = numpy_median(retrained) > numpy_median(unlearned);
            let (pos, neg) = if retrained_is_positive {
                (retrained, unlearned)
            } else {
                (unlearned, retrained)
            };
            Ok(official::example(pos, neg, retrained_is_positive, params.delta))
        }
        Variant::Exhaustive => exhaustive::example(retrained, unlearned, params.delta, None),
        Variant::HighProbability { .. } => exhaustive::example(retrained, unlearned, params.delta, cp),
    }
}

/// `np.median` of a non-empty sample: the middle order statistic, or `(a + b)/2` of the two middle ones.
fn numpy_median(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The official single-threshold grid has `⌈100 · pooled range⌉` points; refuse ranges that would not fit.
fn check_official_grid(retrained: &[f64], unlearned: &[f64], example: Option<usize>) -> Result<()> {
    let range = pooled_range(retrained, unlearned);
    if range * 100.0 <= MAX_OFFICIAL_GRID {
        return Ok(());
    }
    let which = example.map_or(String::new(), |e| format!(" of example {e}"));
    Err(Error::OutOfDomain {
        input: "retrained and unlearned".into(),
        value: range,
        location: format!("the pooled range (max − min){which}"),
        domain: "ranges up to 167,772 units (the official score's 0.01 threshold grid would need more than 2^24 \
                 points); rescale the outputs or use the exhaustive variant",
    })
}

fn pooled_range(a: &[f64], b: &[f64]) -> f64 {
    let (lo, hi) = a
        .iter()
        .chain(b)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    hi - lo
}

/// Columns of a `models × examples` matrix, each as one contiguous sample.
fn columns(m: MatrixRef<'_, f64>) -> Vec<Vec<f64>> {
    let mut out = vec![Vec::with_capacity(m.rows()); m.cols()];
    for row in m.as_slice().chunks_exact(m.cols()) {
        for (col, &v) in out.iter_mut().zip(row) {
            col.push(v);
        }
    }
    out
}

fn list_examples(examples: &[usize]) -> String {
    let shown: Vec<String> = examples.iter().take(10).map(usize::to_string).collect();
    let more = if examples.len() > 10 {
        format!(" and {} more", examples.len() - 10)
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(", "))
}

fn unscored_warning(examples: &[usize], variant: Variant) -> Note {
    let why = if variant == Variant::Official {
        "every attack was discarded (each had exactly one of its two error rates at 0; metric.py itself stops \
         with an error on such an example)"
    } else {
        "every attack was discarded (each had exactly one of its two error rates at 0)"
    };
    let message = format!(
        "example(s) {}: {why}; scored with epsilon = 0. This happens when no threshold falls between the \
         retrained and the unlearned values: when all of them are equal, e.g. probabilities that round to 1.0 \
         (the score expects logit-scaled confidences, which keep such differences)",
        list_examples(examples)
    );
    Note::new(NoteKind::ExamplesUnscored, message)
}
