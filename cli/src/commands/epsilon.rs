//! `epsilon`.

use super::*;

#[derive(Args, Serialize)]
pub struct EpsilonArgs {
    /// Retrained models' confidences: models × forget examples
    #[arg(long)]
    retrained: Option<InputSpecArg>,
    /// Unlearned models' confidences: models × forget examples
    #[arg(long)]
    unlearned: Option<InputSpecArg>,
    /// Retrained models' logits: models × examples × classes (turned into logit-scaled confidences)
    #[arg(long)]
    retrained_logits: Option<InputSpecArg>,
    #[arg(long)]
    unlearned_logits: Option<InputSpecArg>,
    /// True class of each example (with the logits inputs)
    #[arg(long)]
    labels: Option<InputSpecArg>,
    #[arg(long, value_enum, default_value = "official")]
    variant: VariantArg,
    /// Two-sided level of the Clopper–Pearson variant
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Bucket cut-off: "official" = ceil(ln(N−1)), or a number
    #[arg(long, value_parser = eps_max_arg, default_value = "official")]
    eps_max: String,
    #[arg(long, default_value_t = competition::DELTA)]
    delta: f64,
    /// RA_unlearned,RA_retrained,TA_unlearned,TA_retrained for the final score
    #[arg(long, value_delimiter = ',')]
    accuracies: Option<Vec<f64>>,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Clone, Copy, ValueEnum, Serialize, PartialEq)]
#[serde(rename_all = "kebab-case")]
pub(super) enum VariantArg {
    Official,
    Exhaustive,
    ClopperPearson,
    All,
}

#[derive(Serialize)]
pub(super) struct EpsilonOutput {
    results: Vec<competition::CompetitionResult>,
    final_scores: Vec<Option<f64>>,
}

pub(super) fn logit_confidences(role: &str, s: &str, labels: &[usize]) -> Result<(Matrix, InputRecord), CliError> {
    let inp = input::load(role, &spec(s)?)?;
    let conf = competition::logit_scaled_confidences(inp.matrix.view(), labels)
        .map_err(|e| CliError::input(role, std::path::Path::new(&inp.record.path), e))?;
    Ok((conf, inp.record))
}

pub(super) fn epsilon_cmd(a: EpsilonArgs) -> Result<(), CliError> {
    let mut records = Vec::new();
    let (retrained, unlearned) = match (&a.retrained, &a.unlearned, &a.retrained_logits, &a.unlearned_logits) {
        (Some(r), Some(u), None, None) => {
            let (r, u) = (
                input::load("retrained", &spec(r)?)?,
                input::load("unlearned", &spec(u)?)?,
            );
            records.push(r.record);
            records.push(u.record);
            (r.matrix, u.matrix)
        }
        (None, None, Some(r), Some(u)) => {
            let ls = a
                .labels
                .as_ref()
                .ok_or_else(|| CliError::usage("--retrained-logits needs --labels"))?;
            let (lab, rec) = input::load_vector("labels", &spec(ls)?)?;
            let labels: Vec<usize> = lab.iter().map(|&v| v as usize).collect();
            if lab.iter().any(|&v| v < 0.0 || v.fract() != 0.0) {
                return Err(CliError::msg("labels must be non-negative integers (class indices)"));
            }
            records.push(rec);
            let (rm, rr) = logit_confidences("retrained_logits", r, &labels)?;
            let (um, ur) = logit_confidences("unlearned_logits", u, &labels)?;
            records.push(rr);
            records.push(ur);
            (rm, um)
        }
        _ => {
            return Err(CliError::usage(
                "give either --retrained and --unlearned (confidences), or --retrained-logits, --unlearned-logits and --labels",
            ));
        }
    };
    let eps_max = if a.eps_max == "official" {
        EpsMax::Official
    } else {
        EpsMax::Fixed(
            a.eps_max
                .parse()
                .map_err(|_| CliError::usage("--eps-max takes `official` or a number"))?,
        )
    };
    let variants: Vec<Variant> = match a.variant {
        VariantArg::Official => vec![Variant::Official],
        VariantArg::Exhaustive => vec![Variant::Exhaustive],
        VariantArg::ClopperPearson => vec![Variant::HighProbability { alpha: a.alpha }],
        VariantArg::All => vec![
            Variant::Official,
            Variant::Exhaustive,
            Variant::HighProbability { alpha: a.alpha },
        ],
    };
    let accuracies = match a.accuracies.as_deref() {
        None => None,
        Some(&[ra_u, ra_r, ta_u, ta_r]) => Some(Accuracies {
            retain_unlearned: ra_u,
            retain_retrained: ra_r,
            test_unlearned: ta_u,
            test_retrained: ta_r,
        }),
        Some(v) => {
            return Err(CliError::usage(format!(
                "--accuracies takes 4 comma-separated numbers RA_unlearned,RA_retrained,TA_unlearned,TA_retrained; got {}",
                v.len()
            )));
        }
    };
    let mut results = Vec::new();
    let mut finals = Vec::new();
    for variant in variants {
        let p = CompetitionParams {
            variant,
            delta: a.delta,
            eps_max,
        };
        let r = competition::forget_score(retrained.view(), unlearned.view(), &p)?;
        finals.push(
            accuracies
                .as_ref()
                .map(|acc| competition::final_score(r.forget_score, acc))
                .transpose()?,
        );
        results.push(r);
    }
    let out = EpsilonOutput {
        results,
        final_scores: finals,
    };
    Report::new("epsilon", &a, None, records, out).emit(a.out.json, |o| {
        let mut s = String::new();
        for (r, f) in o.results.iter().zip(&o.final_scores) {
            let eps: Vec<f64> = r.per_example.iter().map(|e| e.epsilon).collect();
            let finite: Vec<f64> = eps.iter().copied().filter(|e| e.is_finite()).collect();
            let mean = finite.iter().sum::<f64>() / finite.len().max(1) as f64;
            let _ = writeln!(
                s,
                "{:?}: forget quality F = {} over {} examples (eps_max {}; mean finite epsilon {}, {} infinite){}",
                r.variant,
                fmt_num(r.forget_score),
                eps.len(),
                fmt_num(r.eps_max),
                fmt_num(mean),
                eps.len() - finite.len(),
                f.map(|f| format!("; final score {}", fmt_num(f))).unwrap_or_default()
            );
            for w in &r.warnings {
                let _ = writeln!(s, "  warning: {w}");
            }
        }
        s
    })
}
