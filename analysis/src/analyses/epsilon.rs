//! The NeurIPS 2023 unlearning competition's per-example epsilon, forget score and final score.
//!
//! What the score expects: for each forget-set example, N retrained and N unlearned models' **logit-scaled
//! confidences** `log(p_y) − log(Σ_{j≠y} p_j)` (metric.py's `compute_logit_scaled_confidence`), not probabilities.
//! Three ways in: confidences (models × examples), logits + labels, or class probabilities + labels (models ×
//! examples × classes); the last two are turned into confidences as metric.py computes them.
//!
//! Guardrails: `probabilities_given` (refused): confidences whose every value lies in [0, 1] look like
//! probabilities, which the score does not expect (issue 11: F = 0.71 on probabilities vs 0.23 on the same models'
//! confidences); the fix names the two conversions, and `confidences = logit-scaled` accepts the values as they are.
//! The core's notes become warnings with the codes they were raised with (`examples_unscored`, `no_buckets`, ...).
//!
//! The headline gives the official forgetting quality F beside its baseline at the user's number of models (what a
//! perfect unlearner — retrained models against other retrained models — scores at half the models per side,
//! [`Baseline`]), and says what the other variants are. The same values in both slots (`identical_inputs`) and
//! class probabilities given as logits (`probabilities_given_as_logits`) are refused; more models than examples is
//! warned as a possible transpose (`more_models_than_examples`).

use super::*;
use crate::report::{Headline, Warning};
use crate::words;

/// `lethe epsilon`'s options. With the `clap` feature (the CLI's), the options are the subcommand's arguments: each
/// is declared here once.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct EpsilonRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub retrained: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub unlearned: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub retrained_logits: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub unlearned_logits: Option<InputRef>,
    /// Class probabilities (softmax outputs), models × examples × classes; with `labels`.
    #[cfg_attr(feature = "clap", arg(skip))]
    pub retrained_probs: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub unlearned_probs: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub labels: Option<InputRef>,
    /// What --retrained/--unlearned hold: auto (values that all lie in [0, 1] are refused as probabilities) or
    /// logit-scaled (take them as they are)
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["auto", "logit-scaled"], default_value = "auto"))]
    pub confidences: String,
    // `official` (the CLI's default), `exhaustive`, `clopper-pearson` or `all`.
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["official", "exhaustive", "clopper-pearson", "all"], default_value = "official"))]
    pub variant: String,
    /// Two-sided level of the Clopper–Pearson variant
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.05))]
    pub alpha: f64,
    /// Bucket cut-off: "official" = ceil(ln(N−1)), or a number
    #[cfg_attr(feature = "clap", arg(long, value_parser = eps_max_arg, default_value = "official"))]
    pub eps_max: String,
    #[cfg_attr(feature = "clap", arg(long, default_value_t = competition::DELTA))]
    pub delta: f64,
    /// RA_unlearned,RA_retrained,TA_unlearned,TA_retrained for the final score
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ','))]
    pub accuracies: Option<Vec<f64>>,
    /// Also report the logit-scaled confidences scored (models × examples each; computed from logits with
    /// metric.py's float32 softmax for float32 logits) in the JSON report's result.confidences
    #[cfg_attr(feature = "clap", arg(long))]
    pub report_confidences: bool,
}

/// `--eps-max`: `official` or a number.
#[cfg(feature = "clap")]
fn eps_max_arg(s: &str) -> std::result::Result<String, String> {
    if s == "official" || s.parse::<f64>().is_ok_and(|v| !v.is_nan()) {
        Ok(s.to_string())
    } else {
        Err("--eps-max takes `official` or a number".into())
    }
}

impl Default for EpsilonRequest {
    fn default() -> Self {
        Self {
            retrained: None,
            unlearned: None,
            retrained_logits: None,
            unlearned_logits: None,
            retrained_probs: None,
            unlearned_probs: None,
            labels: None,
            confidences: "auto".into(),
            variant: "official".into(),
            alpha: 0.05,
            eps_max: "official".into(),
            delta: competition::DELTA,
            accuracies: None,
            report_confidences: false,
        }
    }
}

/// The CLI's `EpsilonOutput`.
#[derive(Clone, Debug, Serialize)]
pub struct EpsilonResult {
    pub results: Vec<CompetitionResult>,
    pub final_scores: Vec<Option<f64>>,
    /// The logit-scaled confidences scored, when asked for (`report_confidences`; absent otherwise, so other
    /// reports are unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidences: Option<ScoredConfidences>,
    /// What a perfect unlearner scores with this many models: the official F of retrained models against other
    /// retrained models, beside these unlearned models' F on the same footing (absent where there are too few
    /// models to split).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
}

/// The official forgetting quality at half the models per side, over [`BASELINE_SPLITS`] seeded splits of the
/// retrained models into halves A and B: `perfect` is F(A against B) — a perfect unlearner, whose models are
/// retrained models — and `unlearned` F(A against as many unlearned models), so the two compare like with like.
#[derive(Clone, Debug, Serialize)]
pub struct Baseline {
    /// Models per side in each split (half the retrained models, rounded down).
    pub models_per_side: usize,
    pub splits: usize,
    /// F of a perfect unlearner: each split's, and their mean.
    pub perfect: Vec<f64>,
    pub perfect_mean: f64,
    /// F of these unlearned models at the same number of models: each split's, and their mean.
    pub unlearned: Vec<f64>,
    pub unlearned_mean: f64,
}

/// Seeded splits of the retrained models the baseline averages over (seed [`BASELINE_SEED`]).
pub const BASELINE_SPLITS: usize = 5;
const BASELINE_SEED: u64 = 2023;

/// [`Baseline`] of confidences `retrained`/`unlearned` (models × examples) under `eps_max`; `None` with fewer than 6
/// retrained models (3 per side: the official score has no buckets below that).
fn baseline(
    retrained: &Matrix,
    unlearned: &Matrix,
    eps_max: EpsMax,
    delta: f64,
) -> std::result::Result<Option<Baseline>, lethe::Error> {
    let half = retrained.rows() / 2;
    if half < 3 || unlearned.rows() < half {
        return Ok(None);
    }
    let p = CompetitionParams {
        variant: Variant::Official,
        delta,
        eps_max,
    };
    let (mut perfect, mut mine) = (Vec::new(), Vec::new());
    for k in 0..BASELINE_SPLITS {
        let mut rng =
            lethe::permute::Permutations::for_subset(BASELINE_SEED, lethe::permute::Stream::Subsets, k as u64);
        let order = rng.subset(retrained.rows(), retrained.rows());
        let (a, b) = (&order[..half], &order[half..2 * half]);
        let pick = |m: &Matrix, rows: &[usize]| m.select_rows(rows, "retrained");
        let (ra, rb) = (pick(retrained, a)?, pick(retrained, b)?);
        let u = unlearned.select_rows(&rng.subset(unlearned.rows(), half), "unlearned")?;
        perfect.push(competition::forget_score(ra.view(), rb.view(), &p)?.forget_score);
        mine.push(competition::forget_score(ra.view(), u.view(), &p)?.forget_score);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    Ok(Some(Baseline {
        models_per_side: half,
        splits: BASELINE_SPLITS,
        perfect_mean: mean(&perfect),
        unlearned_mean: mean(&mine),
        perfect,
        unlearned: mine,
    }))
}

/// Whether every examples × classes row of `inp` (models × examples × classes) holds probabilities: values in
/// [0, 1] summing to 1 over the classes.
fn probabilities_per_class(inp: &Input) -> bool {
    let Some(&classes) = inp.record.shape.get(2) else {
        return false;
    };
    let classes = classes as usize;
    let v = inp.matrix.as_slice();
    classes >= 2
        && !v.is_empty()
        && v.iter().all(|x| (0.0..=1.0).contains(x))
        && v.chunks(classes).all(|c| (c.iter().sum::<f64>() - 1.0).abs() < 1e-3)
}

/// The logit-scaled confidences `log(p_y + 1e-45) − log(Σ_{j≠y} p_j + 1e-45)` the score was computed from.
#[derive(Clone, Debug, Serialize)]
pub struct ScoredConfidences {
    /// `given` (the inputs were confidences), `logits` or `probabilities` (computed as metric.py does).
    pub computed_from: &'static str,
    /// From logits: the precision the softmax's `exp` was taken in — `float32` for float32 logits (numpy's float32
    /// `exp`, as metric.py on the network's float32 outputs), else `float64`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exp_precision: Option<&'static str>,
    /// Models × examples.
    pub retrained: Vec<Vec<f64>>,
    pub unlearned: Vec<Vec<f64>>,
}

/// The parameters `lethe epsilon --json` reports: its arguments, inputs as given. The options added for the
/// probability guardrail are left out at their defaults, so reports of runs without them are unchanged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EpsilonParameters {
    pub retrained: Option<String>,
    pub unlearned: Option<String>,
    pub retrained_logits: Option<String>,
    pub unlearned_logits: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retrained_probs: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unlearned_probs: Option<String>,
    pub labels: Option<String>,
    #[serde(skip_serializing_if = "is_auto")]
    pub confidences: String,
    pub variant: String,
    pub alpha: f64,
    pub eps_max: String,
    pub delta: f64,
    pub accuracies: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub report_confidences: bool,
}

fn is_auto(s: &str) -> bool {
    s == "auto"
}

#[derive(Clone, Debug, Serialize)]
pub struct EpsilonPlot {
    /// Finite per-example epsilons in bins of the bucket width (0.5) from 0.
    pub histogram: Histograms,
    /// Examples with infinite epsilon (perfectly separated; exhaustive variant).
    pub infinite: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct EpsilonOutput {
    pub result: EpsilonResult,
    pub parameters: EpsilonParameters,
    pub inputs: Vec<InputRecord>,
    /// The score to report (the official F when it was computed) and what the other variants are.
    pub headline: Headline,
    pub warnings: Vec<Warning>,
    pub load_warnings: Vec<LoadWarning>,
    /// One per variant, in the order of `result.results`.
    pub plots: Vec<EpsilonPlot>,
    /// What each variant is, in the order of `result.results`.
    pub variant_notes: Vec<String>,
}

impl EpsilonOutput {
    /// The report `lethe epsilon --json` prints and the page exports.
    pub fn report(&self) -> crate::Report<&EpsilonParameters, &EpsilonResult> {
        crate::Report::new(
            "epsilon",
            &self.parameters,
            None,
            self.inputs.clone(),
            self.headline.clone(),
            self.warnings.clone(),
            &self.result,
        )
    }
}

pub(super) const EPS_ROLES: [&str; 7] = [
    "retrained",
    "unlearned",
    "retrained_logits",
    "unlearned_logits",
    "retrained_probs",
    "unlearned_probs",
    "labels",
];

/// What the score expects, in a user's words (the headline and the probability guardrail say it).
pub const CONFIDENCE_UNIT: &str = "logit-scaled confidences log p(true class) − log Σ p(other classes), one per \
                                   model and example, as the competition's metric.py computes them";

/// Each model's row of `examples × classes` logits (or probabilities) → logit-scaled confidences.
fn confidences_of(
    ws: &mut Workspace,
    role: &str,
    r: &InputRef,
    labels: (&[usize], &str),
    probabilities: bool,
) -> Result<(Matrix, Arc<Input>)> {
    let (labels, labels_path) = labels;
    let inp = ws.load(role, r)?;
    super::stats::check_finite(ws, role, &r.rows, &inp, "The competition score")?;
    let what = if probabilities {
        "the probabilities"
    } else {
        "the logits"
    };
    check_per_class(role, &inp, what)?;
    if !probabilities && probabilities_per_class(&inp) {
        let side = role.split('_').next().unwrap_or(role);
        return Err(Error::refused(
            "probabilities_given_as_logits",
            Some(role),
            format!(
                "every value of `{}` lies between 0 and 1 and each example's values sum to 1 over the classes: these \
                 are class probabilities, not logits. Taken as logits they give other confidences than metric.py \
                 computes, and a wrong forgetting quality. Give them as the {side} models' class probabilities \
                 ({}) with the labels, or give the logits",
                inp.record.path,
                words::opt(&format!("{side}_probs"))
            ),
        ));
    }
    if let [_, examples, _] = inp.record.shape[..]
        && usize::try_from(examples).ok() != Some(labels.len())
    {
        return Err(Error::at(
            role,
            format!(
                "`{}` is {} (models × examples × classes): {examples} examples, but the labels file `{labels_path}` \
                 has {} labels; give one label per example, the true classes of the same forget-set examples in \
                 the same order",
                inp.record.path,
                dims(&inp.record.shape),
                labels.len()
            ),
        ));
    }
    let conf = if probabilities {
        competition::logit_scaled_confidences_from_probabilities(inp.matrix.view(), labels)
    } else if is_float32(&inp) {
        // metric.py takes the softmax of the network's float32 outputs in float32 (numpy's float32 `exp`): the
        // values were widened exactly on loading and narrow back without rounding.
        let v: Vec<f32> = inp.matrix.as_slice().iter().map(|&x| x as f32).collect();
        lethe::MatrixRef::new(inp.matrix.rows(), inp.matrix.cols(), &v)
            .and_then(|m| competition::logit_scaled_confidences(m, labels))
    } else {
        competition::logit_scaled_confidences(inp.matrix.view(), labels)
    }
    .map_err(|x| attribute(x, &EPS_ROLES).or_at(role))?;
    Ok((conf, inp))
}

/// Whether an input's file holds float32 values (logits then go through metric.py's float32 softmax).
fn is_float32(inp: &Input) -> bool {
    matches!(inp.record.dtype.as_str(), "float32" | "<f4" | "F32" | "f32")
}

/// Whether every value of both matrices lies in [0, 1]: probabilities, not logit-scaled confidences (which range
/// over the real line and are mostly well outside [0, 1] for trained models).
fn probability_valued(a: &Matrix, b: &Matrix) -> bool {
    a.as_slice().iter().chain(b.as_slice()).all(|v| (0.0..=1.0).contains(v))
}

/// The retrained and unlearned models must score the same forget-set examples: as many columns of confidences (the
/// files' second axis). Names both files and their shapes.
fn same_examples(r: (&Matrix, &InputRecord), u: (&Matrix, &InputRecord)) -> Result<()> {
    if r.0.cols() == u.0.cols() {
        return Ok(());
    }
    Err(Error::at(
        u.1.role.as_str(),
        format!(
            "`{}` ({}) has {} examples per model but `{}` ({}) has {}: the retrained and the unlearned models must be \
             scored on the same forget-set examples, in the same order (models × examples{}); give both models' \
             outputs on the same examples",
            r.1.path,
            dims(&r.1.shape),
            r.0.cols(),
            u.1.path,
            dims(&u.1.shape),
            u.0.cols(),
            if r.1.shape.len() == 3 { " × classes" } else { "" }
        ),
    ))
}

/// A shape as `64 × 106 × 5`.
/// An input as a person names it, with its option after it, marked (`words::opt`): the CLI says "the retrained
/// models' logits (--retrained-logits)", Python `retrained_logits=`, the page the input's label.
fn said(role: &str) -> String {
    let (model, what) = role.split_once('_').unwrap_or((role, ""));
    let what = match what {
        "logits" => "logits",
        "probs" => "class probabilities",
        _ => "confidences",
    };
    if model == "labels" {
        return "the labels".to_string();
    }
    format!("the {model} models' {what} ({})", words::opt(role))
}

fn dims(shape: &[u64]) -> String {
    shape.iter().map(ToString::to_string).collect::<Vec<_>>().join(" × ")
}

/// Probabilities or logits must be models × examples × classes: a 2-D array holds one number per model and example
/// (the probability of the true class, say), from which metric.py's confidence cannot be recovered exactly.
fn check_per_class(role: &str, inp: &Input, what: &str) -> Result<()> {
    if inp.record.shape.len() < 3 {
        return Err(Error::refused(
            "one_number_per_example",
            Some(role),
            format!(
                "`{}` is a {} array, one number per model and example; {} takes {what} of every class, \
                 models × examples × classes. If it holds the probability of the true class only, the confidence \
                 cannot be recovered as metric.py computes it (that needs the other classes' probabilities): give \
                 the logits or all classes' probabilities; if it holds logit-scaled confidences, give it as \
                 {} instead",
                inp.record.path,
                dims(&inp.record.shape),
                said(role),
                said(role.split('_').next().unwrap_or(role))
            ),
        ));
    }
    Ok(())
}

fn labels_of(
    ws: &mut Workspace,
    req: &EpsilonRequest,
    records: &mut Vec<InputRecord>,
    what: &str,
) -> Result<Vec<usize>> {
    let ls = req.labels.as_ref().ok_or_else(|| {
        Error::at(
            "labels",
            format!(
                "{what} need the labels (the true class of each example): give {}",
                said("labels")
            ),
        )
        .usage()
    })?;
    let (lab, rec) = load_vector(ws, "labels", ls)?;
    if let Some((k, v)) = lab.iter().enumerate().find(|(_, v)| **v < 0.0 || v.fract() != 0.0) {
        return Err(Error::at(
            "labels",
            format!(
                "`{}`: entry {k} is {v}, not a class index: labels must be non-negative integers (0, 1, 2, …), \
                 one per example",
                rec.path
            ),
        ));
    }
    records.push(rec);
    Ok(lab.iter().map(|&v| v as usize).collect())
}

/// The core's notes on a result as warnings with codes and fixes; `probabilities` says the inputs looked like
/// probabilities (accepted as logit-scaled), which explains unscored examples.
fn note_warnings(r: &CompetitionResult, seen: &mut Vec<String>, probabilities: bool) -> Vec<Warning> {
    let mut out = Vec::new();
    for w in &r.warnings {
        if seen.contains(&w.message) {
            continue;
        }
        seen.push(w.message.clone());
        let fix: Option<String> = match w.kind {
            NoteKind::ExamplesUnscored => Some(if probabilities {
                "these values look like probabilities: give the logits or the class probabilities with the \
                     labels, and the score is computed on logit-scaled confidences, as the competition's metric.py"
                    .into()
            } else {
                "check that these examples' values are logit-scaled confidences and not rounded or saturated \
                     outputs"
                    .into()
            }),
            NoteKind::NoBuckets => Some(format!(
                "use more models (N ≥ 3), or a fixed bucket cut-off ({}, e.g. 6.5)",
                words::opt("eps_max")
            )),
            _ => None,
        };
        out.push(Warning::new(w.code(), None, w.message.clone(), fix));
    }
    out
}

fn variant_name(v: &Variant) -> &'static str {
    match v {
        Variant::Official => "official",
        Variant::Exhaustive => "exhaustive",
        Variant::HighProbability { .. } => "Clopper–Pearson",
    }
}

/// What a variant is, in a sentence.
pub fn variant_note(v: &Variant) -> String {
    match v {
        Variant::Official => "the competition's metric.py, bit for bit: the score to report".into(),
        Variant::Exhaustive => "every threshold between the pooled values, both directions, exact error rates: the \
                                competition document's definition taken literally; for comparison, not for reporting"
            .into(),
        Variant::HighProbability { alpha } => format!(
            "the exhaustive attacks with their error rates replaced by {}% Clopper–Pearson bounds: an epsilon that \
             holds with high probability, so F is higher; for comparison, not for reporting",
            num((1.0 - alpha) * 100.0).trim_end_matches('0').trim_end_matches('.')
        ),
    }
}

fn headline(
    results: &[CompetitionResult],
    finals: &[Option<f64>],
    n_models: (usize, usize),
    baseline: Option<&Baseline>,
) -> Headline {
    let Some((k, main)) = results
        .iter()
        .enumerate()
        .find(|(_, r)| r.variant == Variant::Official)
        .or_else(|| results.first().map(|r| (0, r)))
    else {
        return Headline::inconclusive("Inconclusive: nothing was scored", "no variant was computed");
    };
    let examples = main.per_example.len();
    let unscored = main
        .per_example
        .iter()
        .filter(|e| e.best_attack.is_none() && !e.peaky && e.epsilon == 0.0)
        .count();
    if main.buckets.is_empty() {
        return Headline::inconclusive(
            "Inconclusive: with this many models no example can earn points",
            format!(
                "with N = {} unlearned models the official bucket cut-off ⌈ln(N − 1)⌉ is {}, so the score table \
                 has no buckets; use more models or a fixed cut-off",
                n_models.1, main.eps_max
            ),
        );
    }
    if unscored == examples {
        return Headline::inconclusive(
            "Inconclusive: no example could be scored",
            "for every example no attack could tell the retrained and unlearned values apart (see the warnings)",
        );
    }
    let official = main.variant == Variant::Official;
    let final_text = finals
        .get(k)
        .copied()
        .flatten()
        .map(|f| format!("; final score {}", num(f)))
        .unwrap_or_default();
    // What F means at this N: a perfect unlearner's F at half the models per side, beside these models' own.
    let against = baseline.map_or_else(
        || {
            "; with too few models to split (fewer than 6 retrained) there is no baseline of what a perfect \
             unlearner scores here"
                .to_string()
        },
        |b| {
            format!(
                ". At {m} models per side a perfect unlearner (retrained models against other retrained models) \
                 scores F = {} and these unlearned models {} (means of {} splits): F depends on the number of \
                 models, so compare it with that, not with 1",
                num(b.perfect_mean),
                num(b.unlearned_mean),
                b.splits,
                m = b.models_per_side
            )
        },
    );
    let text = if official {
        format!(
            "Forgetting quality F = {} (official, as the competition's metric.py){final_text}, over {examples} \
             examples with {} retrained and {} unlearned models{against}",
            num(main.forget_score),
            n_models.0,
            n_models.1
        )
    } else {
        format!(
            "Forgetting quality F = {} ({} variant{final_text}) over {examples} examples; this is not the \
             competition's score: add the official variant to get the score to report",
            num(main.forget_score),
            variant_name(&main.variant)
        )
    };
    let others: Vec<String> = results
        .iter()
        .filter(|r| r.variant != main.variant)
        .map(|r| format!("{} F = {}", variant_name(&r.variant), num(r.forget_score)))
        .collect();
    if others.is_empty() {
        Headline::new("forgetting_quality", text)
    } else {
        Headline::new(
            "forgetting_quality",
            format!("{text}; for comparison only: {}", others.join(", ")),
        )
    }
}

use crate::report::num;

/// Per-example epsilon, forgetting quality and final score for each requested variant (as `lethe epsilon`).
///
/// # Errors
/// Missing or unreadable inputs, bad labels or parameters, probability-valued confidences (refused, see the
/// module's docs), the core's errors; attributed to the role concerned.
pub fn epsilon(ws: &mut Workspace, req: &EpsilonRequest) -> Result<EpsilonOutput> {
    let mut records = Vec::new();
    let mut warned: Vec<(&str, Arc<Input>)> = Vec::new();
    let accept_probabilities = match req.confidences.as_str() {
        "auto" | "" => false,
        "logit-scaled" => true,
        other => {
            return Err(Error::msg(format!("confidences `{other}` is not one of auto, logit-scaled")).usage());
        }
    };
    let given = |r: &Option<InputRef>| r.is_some();
    let modes = [
        given(&req.retrained) || given(&req.unlearned),
        given(&req.retrained_logits) || given(&req.unlearned_logits),
        given(&req.retrained_probs) || given(&req.unlearned_probs),
    ];
    if modes.iter().filter(|m| **m).count() > 1 {
        return Err(Error::msg(
            "give one kind of input: retrained and unlearned confidences, or retrained and unlearned logits with \
             the labels, or retrained and unlearned class probabilities with the labels",
        )
        .usage());
    }
    let mut probability_like = false;
    let mut exp_precision: Option<&'static str> = None;
    let (retrained, unlearned) = match (
        (&req.retrained, &req.unlearned),
        (&req.retrained_logits, &req.unlearned_logits),
        (&req.retrained_probs, &req.unlearned_probs),
    ) {
        ((Some(r), Some(u)), _, _) => {
            let (rr, ur) = (r, u);
            let (r, u) = (ws.load("retrained", r)?, ws.load("unlearned", u)?);
            super::stats::check_finite(ws, "retrained", &rr.rows, &r, "The competition score")?;
            super::stats::check_finite(ws, "unlearned", &ur.rows, &u, "The competition score")?;
            records.push(r.record.clone());
            records.push(u.record.clone());
            for (role, inp) in [("retrained", &r), ("unlearned", &u)] {
                if inp.record.shape.len() == 3 {
                    return Err(Error::refused(
                        "classes_given_as_confidences",
                        Some(role),
                        format!(
                            "`{}` is a {} array: models × examples × classes (logits or probabilities), not one \
                             confidence per model and example, and would be scored as {} examples. Give it as \
                             {} (or {} for probabilities) with {}",
                            inp.record.path,
                            dims(&inp.record.shape),
                            inp.matrix.cols(),
                            said(&format!("{role}_logits")),
                            said(&format!("{role}_probs")),
                            said("labels")
                        ),
                    ));
                }
            }
            let out = (r.matrix.clone(), u.matrix.clone());
            if probability_valued(&out.0, &out.1) {
                if !accept_probabilities {
                    return Err(Error::refused(
                        "probabilities_given",
                        Some("retrained"),
                        format!(
                            "every value of `{}` and `{}` lies between 0 and 1: these look like probabilities, but \
                             the competition's score expects {CONFIDENCE_UNIT}. Scored as they are, the forgetting \
                             quality comes out wrong: probabilities squeeze the models' differences into a narrow \
                             range, and those that round to 1.0 tie and score epsilon = 0. Give the logits \
                             ({}, {}: models × examples × classes) or all classes' probabilities ({}, {}) with the \
                             labels, and Lethe computes the confidences as metric.py does; if these values are \
                             logit-scaled confidences already, say so ({})",
                            r.record.path,
                            u.record.path,
                            words::opt("retrained_logits"),
                            words::opt("unlearned_logits"),
                            words::opt("retrained_probs"),
                            words::opt("unlearned_probs"),
                            words::opt_is("confidences", "logit-scaled")
                        ),
                    ));
                }
                probability_like = true;
            }
            same_examples((&out.0, &r.record), (&out.1, &u.record))?;
            warned.push(("retrained", r));
            warned.push(("unlearned", u));
            out
        }
        (_, (Some(r), Some(u)), _) | (_, _, (Some(r), Some(u))) => {
            let probabilities = req.retrained_probs.is_some();
            let (rr, ur) = if probabilities {
                ("retrained_probs", "unlearned_probs")
            } else {
                ("retrained_logits", "unlearned_logits")
            };
            let what = if probabilities { "class probabilities" } else { "logits" };
            let labels = labels_of(ws, req, &mut records, what)?;
            let labels_path = records.last().map(|l| l.path.clone()).unwrap_or_default();
            let (rm, ri) = confidences_of(ws, rr, r, (&labels, &labels_path), probabilities)?;
            let (um, ui) = confidences_of(ws, ur, u, (&labels, &labels_path), probabilities)?;
            same_examples((&rm, &ri.record), (&um, &ui.record))?;
            if !probabilities {
                exp_precision = Some(match (is_float32(&ri), is_float32(&ui)) {
                    (true, true) => "float32",
                    (false, false) => "float64",
                    _ => "float32 (retrained or unlearned) and float64",
                });
            }
            records.push(ri.record.clone());
            records.push(ui.record.clone());
            warned.push((rr, ri));
            warned.push((ur, ui));
            (rm, um)
        }
        _ => {
            let missing = match (
                (&req.retrained, &req.unlearned),
                (&req.retrained_logits, &req.unlearned_logits),
                (&req.retrained_probs, &req.unlearned_probs),
            ) {
                ((Some(_), None), _, _) => "unlearned",
                (_, (Some(_), None), _) => "unlearned_logits",
                (_, (None, Some(_)), _) => "retrained_logits",
                (_, _, (Some(_), None)) => "unlearned_probs",
                (_, _, (None, Some(_))) => "retrained_probs",
                _ => "retrained",
            };
            return Err(Error::at(
                missing,
                "give the retrained and the unlearned models' outputs: confidences (models × examples), or logits \
                 or class probabilities (models × examples × classes) with the labels",
            )
            .usage());
        }
    };
    let eps_max = if req.eps_max.trim() == "official" {
        EpsMax::Official
    } else {
        EpsMax::Fixed(req.eps_max.trim().parse().map_err(|_| {
            Error::msg(format!(
                "the bucket cut-off ({}) takes `official` or a number",
                words::opt("eps_max")
            ))
            .usage()
        })?)
    };
    let variants: Vec<Variant> = match req.variant.as_str() {
        "official" => vec![Variant::Official],
        "exhaustive" => vec![Variant::Exhaustive],
        "clopper-pearson" => vec![Variant::HighProbability { alpha: req.alpha }],
        "all" => vec![
            Variant::Official,
            Variant::Exhaustive,
            Variant::HighProbability { alpha: req.alpha },
        ],
        other => {
            return Err(Error::msg(format!(
                "variant `{other}` is not one of official, exhaustive, clopper-pearson, all"
            ))
            .usage());
        }
    };
    // Issue 14: the competition's retrain_confs.npz and the unlearned models' file of its layout carry the models'
    // accuracies; without --accuracies the final score takes main.py's means of them (recorded in the parameters).
    #[cfg(feature = "full")]
    let from_files = match (&req.accuracies, &req.retrained, &req.unlearned) {
        (None, Some(r), Some(u)) => super::tools::competition_accuracies(ws, r, u).map(|a| a.to_vec()),
        _ => None,
    };
    #[cfg(not(feature = "full"))]
    let from_files: Option<Vec<f64>> = None;
    let used_accuracies = req.accuracies.clone().or_else(|| from_files.clone());
    let accuracies = match used_accuracies.as_deref() {
        None => None,
        Some(&[ra_u, ra_r, ta_u, ta_r]) => Some(Accuracies {
            retain_unlearned: ra_u,
            retain_retrained: ra_r,
            test_unlearned: ta_u,
            test_retrained: ta_r,
        }),
        Some(v) => {
            return Err(Error::msg(format!(
                "accuracies take 4 numbers RA_unlearned, RA_retrained, TA_unlearned, TA_retrained; got {}",
                v.len()
            ))
            .usage());
        }
    };
    // The core names the accuracies as its code does (`retain_unlearned`); say them as the option does.
    if let Some(v) = used_accuracies.as_deref() {
        let names = ["RA_unlearned", "RA_retrained", "TA_unlearned", "TA_retrained"];
        if let Some(k) = (0..4).find(|&k| !(0.0..=1.0).contains(&v[k]) || (k % 2 == 1 && v[k] == 0.0)) {
            return Err(Error::msg(format!(
                "the accuracies ({}) are RA_unlearned, RA_retrained, TA_unlearned, TA_retrained, each between 0 and 1 \
                 and the retrained ones above 0 (they divide the score); {} is {}",
                words::opt("accuracies"),
                names[k],
                v[k]
            ))
            .usage());
        }
    }
    if variants.contains(&Variant::Official) && retrained.rows() != unlearned.rows() {
        let (r, u) = (&records[records.len() - 2], &records[records.len() - 1]);
        return Err(Error::at(
            u.role.as_str(),
            format!(
                "`{}` holds {} retrained models ({}) but `{}` holds {} unlearned models ({}): the official score \
                 pairs them and needs as many of each. Give as many unlearned as retrained models, or use the \
                 exhaustive variant, which takes unequal counts",
                r.path,
                retrained.rows(),
                dims(&r.shape),
                u.path,
                unlearned.rows(),
                dims(&u.shape)
            ),
        ));
    }
    // The same values on both sides score a perfect 1 whatever the unlearning: the same file given twice.
    if retrained.rows() == unlearned.rows()
        && retrained.cols() == unlearned.cols()
        && retrained.as_slice() == unlearned.as_slice()
    {
        let (r, u) = (&records[records.len() - 2], &records[records.len() - 1]);
        return Err(Error::refused(
            "identical_inputs",
            Some(u.role.as_str()),
            format!(
                "`{}` and `{}` hold the same values, model for model: {}, which scores a perfect 1 whatever the \
                 unlearning did. Give the unlearned models' outputs beside the retrained models'",
                r.spec,
                u.spec,
                if r.path == u.path {
                    "the same file given twice"
                } else if r.sha256 == u.sha256 {
                    "two copies of one file"
                } else {
                    "copies of one set of models"
                }
            ),
        ));
    }
    let baseline = if variants.contains(&Variant::Official) && retrained.rows() == unlearned.rows() {
        baseline(&retrained, &unlearned, eps_max, req.delta).map_err(|e| attribute(e, &EPS_ROLES))?
    } else {
        None
    };
    let mut results = Vec::new();
    let mut finals = Vec::new();
    let mut plots_out = Vec::new();
    for variant in variants {
        let p = CompetitionParams {
            variant,
            delta: req.delta,
            eps_max,
        };
        let r =
            competition::forget_score(retrained.view(), unlearned.view(), &p).map_err(|e| attribute(e, &EPS_ROLES))?;
        finals.push(
            accuracies
                .as_ref()
                .map(|acc| competition::final_score(r.forget_score, acc))
                .transpose()?,
        );
        plots_out.push(plots::epsilon_histogram(&r)?);
        results.push(r);
    }
    let refs: Vec<(&str, &Input)> = warned.iter().map(|(r, i)| (*r, &**i)).collect();
    let load_warnings = load_warnings(&refs);
    let mut warnings = Vec::new();
    if probability_like {
        warnings.push(Warning::new(
            "probabilities_accepted",
            Some("retrained"),
            format!(
                "every value lies between 0 and 1, as probabilities do; they were scored as logit-scaled \
                 confidences, as asked. The score expects {CONFIDENCE_UNIT}"
            ),
            Some("if these are probabilities, give the logits or the class probabilities with the labels".into()),
        ));
    }
    warnings.extend(loader_warnings(&load_warnings));
    if retrained.rows() > retrained.cols() {
        let r = &records[records.len() - 2];
        warnings.push(Warning::new(
            "more_models_than_examples",
            Some(r.role.as_str()),
            format!(
                "`{}` ({}) is read as {} models × {} examples: more models than examples. If the file holds examples \
                 × models, every number is wrong (the bucket cut-off follows the number of models)",
                r.path,
                dims(&r.shape),
                retrained.rows(),
                retrained.cols()
            ),
            Some(
                "the first axis must be the models and the second the forget-set examples: save the array \
                 transposed (numpy: a.T) if it is the other way round"
                    .into(),
            ),
        ));
    }
    if let Some(a) = &from_files {
        warnings.push(Warning::new(
            "accuracies_from_files",
            Some("retrained"),
            format!(
                "the final score's accuracies were read from the two files, each the mean over their models as \
                 main.py takes it: RA_unlearned {}, RA_retrained {}, TA_unlearned {}, TA_retrained {}",
                a[0], a[1], a[2], a[3]
            ),
            Some(format!(
                "give the accuracies ({}) to use others",
                words::opt("accuracies")
            )),
        ));
    }
    let mut seen = Vec::new();
    for r in &results {
        warnings.extend(note_warnings(r, &mut seen, probability_like));
    }
    let headline = headline(
        &results,
        &finals,
        (retrained.rows(), unlearned.rows()),
        baseline.as_ref(),
    );
    let results_notes = results.iter().map(|r| variant_note(&r.variant)).collect();
    let spec = |role: &str| records.iter().find(|r| r.role == role).map(|r| r.spec.clone());
    let parameters = EpsilonParameters {
        retrained: spec("retrained"),
        unlearned: spec("unlearned"),
        retrained_logits: spec("retrained_logits"),
        unlearned_logits: spec("unlearned_logits"),
        retrained_probs: spec("retrained_probs"),
        unlearned_probs: spec("unlearned_probs"),
        labels: spec("labels"),
        confidences: if accept_probabilities {
            "logit-scaled".into()
        } else {
            "auto".into()
        },
        variant: req.variant.clone(),
        alpha: req.alpha,
        eps_max: req.eps_max.clone(),
        delta: req.delta,
        accuracies: used_accuracies,
        report_confidences: req.report_confidences,
    };
    Ok(EpsilonOutput {
        load_warnings,
        result: EpsilonResult {
            results,
            final_scores: finals,
            confidences: req.report_confidences.then(|| {
                let rows = |m: &Matrix| (0..m.rows()).map(|i| m.row(i).to_vec()).collect();
                ScoredConfidences {
                    computed_from: if req.retrained.is_some() {
                        "given"
                    } else if req.retrained_probs.is_some() {
                        "probabilities"
                    } else {
                        "logits"
                    },
                    exp_precision,
                    retrained: rows(&retrained),
                    unlearned: rows(&unlearned),
                }
            }),
            baseline,
        },
        parameters,
        inputs: records,
        headline,
        warnings,
        variant_notes: results_notes,
        plots: plots_out,
    })
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entry

/// `lethe epsilon` in the registry ([`crate::registry`]).
pub struct Epsilon;

in_browser_at_once!(Epsilon, "epsilon", EpsilonRequest => EpsilonOutput, epsilon);

registered! {
impl crate::registry::Analysis for Epsilon {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = EpsilonRequest;
    const ROLES: Roles = Roles::inputs(&[
        "retrained",
        "unlearned",
        "retrained_logits",
        "unlearned_logits",
        "retrained_probs",
        "unlearned_probs",
        "labels",
    ]);
    /// Each variant's per-example epsilons.
    fn plots(r: &serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        let ps: Vec<serde_json::Value> = r["results"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| {
                let eps: Vec<f64> = v["per_example"]
                    .as_array()?
                    .iter()
                    .map(|e| plots::number(&e["epsilon"]))
                    .collect();
                plots::json(plots::epsilon_histogram_of(&eps, plots::number(&v["eps_max"])))
            })
            .collect();
        [("plots".to_string(), serde_json::Value::from(ps))].into_iter().collect()
    }
    fn run(ws: &mut Workspace, req: &EpsilonRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&epsilon(ws, req)?.report())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn all(source: u32) -> Option<InputRef> {
        Some(InputRef {
            source,
            tensor: None,
            rows: Rows::All,
        })
    }

    /// models × examples × classes logits with a per-example level and a shift for the unlearned models.
    fn logits(models: usize, examples: usize, classes: usize, shift: f64) -> Vec<f64> {
        let mut v = Vec::new();
        for m in 0..models {
            for e in 0..examples {
                for c in 0..classes {
                    let noise = ((m * 31 + e * 7 + c * 3) as f64 * 0.618).sin();
                    v.push(
                        if c == e % classes {
                            2.0 + shift * (e % 2) as f64
                        } else {
                            0.0
                        } + noise,
                    );
                }
            }
        }
        v
    }

    fn softmax(v: &[f64], classes: usize) -> Vec<f64> {
        v.chunks(classes)
            .flat_map(|row| {
                let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let e: Vec<f64> = row.iter().map(|x| (x - max).exp()).collect();
                let s: f64 = e.iter().sum();
                e.into_iter().map(move |x| x / s)
            })
            .collect()
    }

    const M: usize = 12;
    const E: usize = 10;
    const C: usize = 3;

    fn workspace() -> Workspace {
        let mut ws = Workspace::new();
        let (rl, ul) = (logits(M, E, C, 0.0), logits(M, E, C, 1.5));
        let labels: Vec<f64> = (0..E).map(|e| (e % C) as f64).collect();
        let add = |ws: &mut Workspace, id, name: &str, v: &[f64], shape: &[usize]| {
            ws.add(id, name, Arc::new(crate::npy::f64_bytes(v, shape)));
        };
        add(&mut ws, 1, "rl.npy", &rl, &[M, E, C]);
        add(&mut ws, 2, "ul.npy", &ul, &[M, E, C]);
        add(&mut ws, 3, "rp.npy", &softmax(&rl, C), &[M, E, C]);
        add(&mut ws, 4, "up.npy", &softmax(&ul, C), &[M, E, C]);
        add(&mut ws, 5, "labels.npy", &labels, &[E]);
        // The mistake: the probability of the true class, models × examples.
        let p_true = |p: &[f64]| -> Vec<f64> { p.chunks(C).enumerate().map(|(k, row)| row[(k % E) % C]).collect() };
        add(&mut ws, 6, "r_prob.npy", &p_true(&softmax(&rl, C)), &[M, E]);
        add(&mut ws, 7, "u_prob.npy", &p_true(&softmax(&ul, C)), &[M, E]);
        ws
    }

    #[test]
    fn probabilities_given_as_confidences_are_refused_with_the_fix() {
        let mut ws = workspace();
        let req = EpsilonRequest {
            retrained: all(6),
            unlearned: all(7),
            ..EpsilonRequest::default()
        };
        let e = epsilon(&mut ws, &req).unwrap_err();
        assert_eq!(e.code.as_deref(), Some("probabilities_given"));
        for needle in ["r_prob.npy", "logit-scaled confidences", "labels", "logit-scaled"] {
            assert!(e.message.contains(needle), "{needle}: {}", e.message);
        }
        // Accepted when the user says they are logit-scaled already, with a warning.
        let out = epsilon(
            &mut ws,
            &EpsilonRequest {
                confidences: "logit-scaled".into(),
                ..req
            },
        )
        .unwrap();
        assert!(out.warnings.iter().any(|w| w.code == "probabilities_accepted"));
        assert_eq!(out.parameters.confidences, "logit-scaled");
        // Its refusal names the inputs in words, with no command-line flag (the page showed them).
        assert!(!e.message.contains("--"), "{}", e.message);
    }

    /// An accuracy outside [0, 1] is named as the option names it; the core's code word (`retain_unlearned`,
    /// shown by the page before) does not appear.
    #[test]
    fn accuracies_out_of_range_are_named_in_the_options_words() {
        let mut ws = workspace();
        let req = EpsilonRequest {
            retrained_logits: all(1),
            unlearned_logits: all(2),
            labels: all(5),
            accuracies: Some(vec![1.5, 0.9, 0.8, 0.8]),
            ..EpsilonRequest::default()
        };
        let e = epsilon(&mut ws, &req).unwrap_err();
        assert!(
            e.message.contains("RA_unlearned is 1.5") && !e.message.contains("retain_unlearned"),
            "{}",
            e.message
        );
    }

    /// Mismatched models or examples between the two inputs, or labels of another length, name both files and
    /// their shapes, and the fix.
    #[test]
    fn mismatched_inputs_name_both_files_and_their_shapes() {
        let mut ws = workspace();
        let conf = |models: usize, examples: usize| -> Vec<f64> {
            (0..models * examples).map(|i| (i as f64 * 0.7).sin() * 4.0).collect()
        };
        ws.add(8, "r.npy", Arc::new(crate::npy::f64_bytes(&conf(8, 5), &[8, 5])));
        ws.add(9, "u7.npy", Arc::new(crate::npy::f64_bytes(&conf(7, 5), &[7, 5])));
        ws.add(10, "u6.npy", Arc::new(crate::npy::f64_bytes(&conf(8, 6), &[8, 6])));
        ws.add(
            11,
            "labels4.npy",
            Arc::new(crate::npy::f64_bytes(&[0.0, 1.0, 2.0, 0.0], &[4])),
        );
        let req = |r, u| EpsilonRequest {
            retrained: all(r),
            unlearned: all(u),
            ..EpsilonRequest::default()
        };
        let e = epsilon(&mut ws, &req(8, 9)).unwrap_err();
        for needle in ["r.npy", "8 × 5", "u7.npy", "7 × 5", "exhaustive variant"] {
            assert!(e.message.contains(needle), "{needle}: {}", e.message);
        }
        assert!(!e.message.contains("np."), "{}", e.message);
        // The exhaustive variant takes unequal counts.
        epsilon(
            &mut ws,
            &EpsilonRequest {
                variant: "exhaustive".into(),
                ..req(8, 9)
            },
        )
        .unwrap();
        let e = epsilon(&mut ws, &req(8, 10)).unwrap_err();
        for needle in ["r.npy", "8 × 5", "u6.npy", "8 × 6", "same forget-set examples"] {
            assert!(e.message.contains(needle), "{needle}: {}", e.message);
        }
        let e = epsilon(
            &mut ws,
            &EpsilonRequest {
                retrained_logits: all(1),
                unlearned_logits: all(2),
                labels: all(11),
                ..EpsilonRequest::default()
            },
        )
        .unwrap_err();
        for needle in [
            "rl.npy",
            "12 × 10 × 3",
            "labels4.npy",
            "4 labels",
            "one label per example",
        ] {
            assert!(e.message.contains(needle), "{needle}: {}", e.message);
        }
    }

    #[test]
    fn arrays_of_the_wrong_rank_are_refused() {
        let mut ws = workspace();
        let e = epsilon(
            &mut ws,
            &EpsilonRequest {
                retrained: all(1),
                unlearned: all(2),
                ..EpsilonRequest::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code.as_deref(), Some("classes_given_as_confidences"));
        assert_eq!(e.input.as_deref(), Some("retrained"));
        let e = epsilon(
            &mut ws,
            &EpsilonRequest {
                retrained_probs: all(6),
                unlearned_probs: all(7),
                labels: all(5),
                ..EpsilonRequest::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code.as_deref(), Some("one_number_per_example"));
        assert!(
            e.message.contains(&format!(
                "the retrained models' class probabilities ({}) takes the probabilities of every class",
                words::opt("retrained_probs")
            )) && !e.message.contains("--"),
            "{}",
            e.message
        );
    }

    #[test]
    fn probabilities_with_labels_score_as_the_logits_do() {
        let mut ws = workspace();
        let by_logits = epsilon(
            &mut ws,
            &EpsilonRequest {
                retrained_logits: all(1),
                unlearned_logits: all(2),
                labels: all(5),
                variant: "exhaustive".into(),
                ..EpsilonRequest::default()
            },
        )
        .unwrap();
        let by_probs = epsilon(
            &mut ws,
            &EpsilonRequest {
                retrained_probs: all(3),
                unlearned_probs: all(4),
                labels: all(5),
                variant: "exhaustive".into(),
                ..EpsilonRequest::default()
            },
        )
        .unwrap();
        // The same confidences up to the rounding of the softmax: the same order of values, so the same attacks.
        assert_eq!(
            by_probs.result.results[0].forget_score,
            by_logits.result.results[0].forget_score
        );
        let conf = |id: u32, probs: bool| {
            let mut ws = workspace();
            let labels: Vec<usize> = (0..E).map(|e| e % C).collect();
            confidences_of(&mut ws, "x", &all(id).unwrap(), (&labels, "labels.npy"), probs)
                .unwrap()
                .0
        };
        for (a, b) in conf(3, true).as_slice().iter().zip(conf(1, false).as_slice()) {
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} vs {b}");
        }
        let roles: Vec<&str> = by_probs.inputs.iter().map(|r| r.role.as_str()).collect();
        assert_eq!(roles, ["labels", "retrained_probs", "unlearned_probs"]);
        assert_eq!(by_probs.parameters.retrained_probs.as_deref(), Some("rp.npy"));
    }

    #[test]
    fn the_headline_names_the_official_score_and_the_others_beneath_it() {
        let mut ws = workspace();
        let out = epsilon(
            &mut ws,
            &EpsilonRequest {
                retrained_logits: all(1),
                unlearned_logits: all(2),
                labels: all(5),
                variant: "all".into(),
                ..EpsilonRequest::default()
            },
        )
        .unwrap();
        assert_eq!(out.headline.call, "forgetting_quality");
        assert!(
            out.headline.text.contains("(official, as the competition's metric.py)"),
            "{}",
            out.headline.text
        );
        let text = &out.headline.text;
        assert!(
            text.contains("exhaustive F") && text.contains("Clopper–Pearson F"),
            "{text}"
        );
        assert!(text.find("the score to report") < text.find("exhaustive F"), "{text}");
        assert_eq!(out.variant_notes.len(), 3);
        let only = epsilon(
            &mut ws,
            &EpsilonRequest {
                retrained_logits: all(1),
                unlearned_logits: all(2),
                labels: all(5),
                variant: "exhaustive".into(),
                ..EpsilonRequest::default()
            },
        )
        .unwrap();
        assert!(
            only.headline.text.contains("not the competition's score"),
            "{}",
            only.headline.text
        );
    }

    #[test]
    fn the_cores_notes_get_their_codes() {
        let score = |r: &[f64], u: &[f64], rows: usize| {
            let mut ws = Workspace::new();
            let cols = r.len() / rows;
            ws.add(1, "r.npy", Arc::new(crate::npy::f64_bytes(r, &[rows, cols])));
            ws.add(2, "u.npy", Arc::new(crate::npy::f64_bytes(u, &[rows, cols])));
            let out = epsilon(
                &mut ws,
                &EpsilonRequest {
                    retrained: all(1),
                    unlearned: all(2),
                    ..EpsilonRequest::default()
                },
            )
            .unwrap();
            out.warnings.iter().map(|w| w.code.clone()).collect::<Vec<_>>()
        };
        // Two models: ⌈ln(N − 1)⌉ = 0, no buckets.
        assert!(score(&[2.0, 3.0], &[5.0, 7.0], 2).contains(&"no_buckets".to_string()));
        // A range over 327.68 units.
        let r: Vec<f64> = (0..8).map(|k| f64::from(k) * 60.0).collect();
        let u: Vec<f64> = (0..8).map(|k| f64::from(k) * 61.0 + 2.0).collect();
        let codes = score(&r, &u, 8);
        assert!(codes.contains(&"threads_change_metric_py".to_string()), "{codes:?}");
        assert!(!codes.contains(&"competition_note".to_string()), "{codes:?}");
    }

    #[test]
    fn unscored_examples_say_what_happened() {
        // Every model gives the same value for every example: no attack can tell the samples apart.
        let mut ws = Workspace::new();
        // (Not the same file on both sides, which is refused: 8 retrained and 9 unlearned models.)
        ws.add(1, "r.npy", Arc::new(crate::npy::f64_bytes(&[3.0; 8 * 4], &[8, 4])));
        ws.add(2, "u.npy", Arc::new(crate::npy::f64_bytes(&[3.0; 9 * 4], &[9, 4])));
        let out = epsilon(
            &mut ws,
            &EpsilonRequest {
                retrained: all(1),
                unlearned: all(2),
                variant: "exhaustive".into(),
                ..EpsilonRequest::default()
            },
        )
        .unwrap();
        let w = out.warnings.iter().find(|w| w.code == "examples_unscored").unwrap();
        assert!(
            !w.message.contains("both are constant") && !w.message.contains("assert"),
            "{}",
            w.message
        );
        assert!(w.message.contains("all of them are equal"), "{}", w.message);
        assert!(out.headline.is_inconclusive(), "{:?}", out.headline);
    }
}

}
