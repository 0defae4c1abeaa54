//! `epsilon`: arguments → the analysis layer's competition-score request → its report.

use lethe_analysis::Workspace;
use lethe_analysis::analyses::{self, EpsilonRequest};

use super::ruler_cmd::path_of;
use super::*;
use crate::report::{emit_report, layer_error};

#[derive(Args)]
pub struct EpsilonArgs {
    /// Retrained models' logit-scaled confidences: models × forget examples (what metric.py scores; for
    /// probabilities or logits use --retrained-probs or --retrained-logits with --labels)
    #[arg(long)]
    retrained: Option<InputSpecArg>,
    /// Unlearned models' logit-scaled confidences: models × forget examples
    #[arg(long)]
    unlearned: Option<InputSpecArg>,
    /// Retrained models' logits: models × examples × classes (turned into logit-scaled confidences as metric.py)
    #[arg(long)]
    retrained_logits: Option<InputSpecArg>,
    #[arg(long)]
    unlearned_logits: Option<InputSpecArg>,
    /// Retrained models' class probabilities (softmax outputs): models × examples × classes (turned into
    /// logit-scaled confidences as metric.py; with --labels)
    #[arg(long)]
    retrained_probs: Option<InputSpecArg>,
    #[arg(long)]
    unlearned_probs: Option<InputSpecArg>,
    /// True class of each example (with the logits or probabilities inputs)
    #[arg(long)]
    labels: Option<InputSpecArg>,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: EpsilonRequest,
    #[command(flatten)]
    out: Out,
}

pub(super) fn epsilon_cmd(a: EpsilonArgs) -> Result<(), CliError> {
    let named = [
        ("retrained", &a.retrained),
        ("unlearned", &a.unlearned),
        ("retrained_logits", &a.retrained_logits),
        ("unlearned_logits", &a.unlearned_logits),
        ("retrained_probs", &a.retrained_probs),
        ("unlearned_probs", &a.unlearned_probs),
        ("labels", &a.labels),
    ];
    let files: Vec<(&str, String)> = named
        .iter()
        .filter_map(|(role, v)| v.as_ref().map(|s| (*role, path_of(s))))
        .collect();
    let shown: Vec<(&str, &str)> = files.iter().map(|(r, p)| (*r, p.as_str())).collect();
    let err = |e| layer_error(e, &shown);
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    let mut arg = |role: &str, v: &Option<InputSpecArg>| v.as_ref().map(|s| ws.input_arg_os(role, s)).transpose();
    let req = EpsilonRequest {
        retrained: arg("retrained", &a.retrained).map_err(err)?,
        unlearned: arg("unlearned", &a.unlearned).map_err(err)?,
        retrained_logits: arg("retrained_logits", &a.retrained_logits).map_err(err)?,
        unlearned_logits: arg("unlearned_logits", &a.unlearned_logits).map_err(err)?,
        retrained_probs: arg("retrained_probs", &a.retrained_probs).map_err(err)?,
        unlearned_probs: arg("unlearned_probs", &a.unlearned_probs).map_err(err)?,
        labels: arg("labels", &a.labels).map_err(err)?,
        ..a.options
    };
    let out = analyses::epsilon(&mut ws, &req).map_err(err)?;
    emit_report(&out.report(), a.out.json, |o| {
        let mut s = String::new();
        for ((r, f), note) in o.results.iter().zip(&o.final_scores).zip(&out.variant_notes) {
            let eps: Vec<f64> = r.per_example.iter().map(|e| e.epsilon).collect();
            let finite: Vec<f64> = eps.iter().copied().filter(|e| e.is_finite()).collect();
            let mean = finite.iter().sum::<f64>() / finite.len().max(1) as f64;
            let zero = eps.iter().filter(|e| **e == 0.0).count();
            let _ = writeln!(
                s,
                "{}: forget quality F = {} over {} examples (eps_max {}; mean finite epsilon {}, {} infinite, {} at 0){}",
                match r.variant {
                    competition::Variant::Official => "official".to_string(),
                    competition::Variant::Exhaustive => "exhaustive".to_string(),
                    competition::Variant::HighProbability { alpha } => format!("Clopper–Pearson (alpha {alpha})"),
                },
                fmt_num(r.forget_score),
                eps.len(),
                fmt_num(r.eps_max),
                fmt_num(mean),
                eps.len() - finite.len(),
                zero,
                f.map(|f| format!("; final score {}", fmt_num(f))).unwrap_or_default()
            );
            let _ = writeln!(s, "  {note}");
        }
        let _ = writeln!(
            s,
            "the score expects {} (--json lists each example's epsilon)",
            analyses::CONFIDENCE_UNIT
        );
        if let Some(c) = &o.confidences {
            let _ = writeln!(
                s,
                "confidences ({}{}): {} retrained and {} unlearned models × {} examples (--json lists them)",
                c.computed_from,
                c.exp_precision.map(|p| format!(", exp in {p}")).unwrap_or_default(),
                c.retrained.len(),
                c.unlearned.len(),
                c.retrained.first().map_or(0, Vec::len)
            );
        }
        s
    })
}
