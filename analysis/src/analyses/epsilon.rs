//! The NeurIPS 2023 unlearning competition's per-example epsilon, forget score and final score.

use super::*;

/// `lethe epsilon`'s options.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct EpsilonRequest {
    pub retrained: Option<InputRef>,
    pub unlearned: Option<InputRef>,
    pub retrained_logits: Option<InputRef>,
    pub unlearned_logits: Option<InputRef>,
    pub labels: Option<InputRef>,
    /// `official` (the CLI's default), `exhaustive`, `clopper-pearson` or `all`.
    pub variant: String,
    pub alpha: f64,
    /// `official` or a number.
    pub eps_max: String,
    pub delta: f64,
    /// RA_unlearned, RA_retrained, TA_unlearned, TA_retrained.
    pub accuracies: Option<Vec<f64>>,
}

impl Default for EpsilonRequest {
    fn default() -> Self {
        Self {
            retrained: None,
            unlearned: None,
            retrained_logits: None,
            unlearned_logits: None,
            labels: None,
            variant: "official".into(),
            alpha: 0.05,
            eps_max: "official".into(),
            delta: competition::DELTA,
            accuracies: None,
        }
    }
}

/// The CLI's `EpsilonOutput`.
#[derive(Clone, Debug, Serialize)]
pub struct EpsilonResult {
    pub results: Vec<CompetitionResult>,
    pub final_scores: Vec<Option<f64>>,
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
    pub inputs: Vec<InputRecord>,
    pub load_warnings: Vec<LoadWarning>,
    /// One per variant, in the order of `result.results`.
    pub plots: Vec<EpsilonPlot>,
}

pub(super) const EPS_ROLES: [&str; 5] = [
    "retrained",
    "unlearned",
    "retrained_logits",
    "unlearned_logits",
    "labels",
];

/// Each model's row of `examples × classes` logits → logit-scaled confidences (`competition::logit_scaled_confidences`).
fn logit_confidences(ws: &mut Workspace, role: &str, r: &InputRef, labels: &[usize]) -> Result<(Matrix, Arc<Input>)> {
    let inp = ws.load(role, r)?;
    let conf = competition::logit_scaled_confidences(inp.matrix.view(), labels)
        .map_err(|x| attribute(x, &EPS_ROLES).or_at(role))?;
    Ok((conf, inp))
}

/// Per-example epsilon, forgetting quality and final score for each requested variant (as `lethe epsilon`).
///
/// # Errors
/// Missing or unreadable inputs, bad labels or parameters, the core's errors; attributed to the role concerned.
pub fn epsilon(ws: &mut Workspace, req: &EpsilonRequest) -> Result<EpsilonOutput> {
    let mut records = Vec::new();
    let mut warned: Vec<(&str, Arc<Input>)> = Vec::new();
    let (retrained, unlearned) = match (
        &req.retrained,
        &req.unlearned,
        &req.retrained_logits,
        &req.unlearned_logits,
    ) {
        (Some(r), Some(u), None, None) => {
            let (r, u) = (ws.load("retrained", r)?, ws.load("unlearned", u)?);
            records.push(r.record.clone());
            records.push(u.record.clone());
            let out = (r.matrix.clone(), u.matrix.clone());
            warned.push(("retrained", r));
            warned.push(("unlearned", u));
            out
        }
        (None, None, Some(r), Some(u)) => {
            let ls = req
                .labels
                .as_ref()
                .ok_or_else(|| Error::at("labels", "logits need the labels (true class of each example)"))?;
            let (lab, rec) = load_vector(ws, "labels", ls)?;
            if lab.iter().any(|&v| v < 0.0 || v.fract() != 0.0) {
                return Err(Error::at(
                    "labels",
                    "labels must be non-negative integers (class indices)",
                ));
            }
            let labels: Vec<usize> = lab.iter().map(|&v| v as usize).collect();
            records.push(rec);
            let (rm, ri) = logit_confidences(ws, "retrained_logits", r, &labels)?;
            let (um, ui) = logit_confidences(ws, "unlearned_logits", u, &labels)?;
            records.push(ri.record.clone());
            records.push(ui.record.clone());
            warned.push(("retrained_logits", ri));
            warned.push(("unlearned_logits", ui));
            (rm, um)
        }
        (None, _, None, _) | (Some(_), None, _, _) => {
            return Err(Error::at(
                if req.retrained.is_none() {
                    "retrained"
                } else {
                    "unlearned"
                },
                "choose the retrained and the unlearned models' outputs (models × examples)",
            ));
        }
        _ => {
            return Err(Error::msg(
                "give either retrained and unlearned confidences, or retrained logits, unlearned logits and labels — not both",
            ));
        }
    };
    let eps_max = if req.eps_max.trim() == "official" {
        EpsMax::Official
    } else {
        EpsMax::Fixed(
            req.eps_max
                .trim()
                .parse()
                .map_err(|_| Error::msg("eps_max takes `official` or a number"))?,
        )
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
            )));
        }
    };
    let accuracies = match req.accuracies.as_deref() {
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
            )));
        }
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
    Ok(EpsilonOutput {
        load_warnings: load_warnings(&refs),
        result: EpsilonResult {
            results,
            final_scores: finals,
        },
        inputs: records,
        plots: plots_out,
    })
}
