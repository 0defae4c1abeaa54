//! `bounds` and `rouge`: arguments → the analysis layer's bounds request → its report.

use lethe_analysis::Workspace;
use lethe_analysis::analyses::{self, BoundsRequest, BoundsResult, TextInput};

use super::ruler_cmd::path_of;
use super::*;
use crate::report::{emit_report, layer_error};

#[derive(Args)]
// ROUGE-L's options are the request's too; scores take none (the layer refuses them), so `lethe bounds` hides them.
#[command(
    mut_arg("stemmer", |a| a.hide(true)),
    mut_arg("lsum", |a| a.hide(true)),
    mut_arg("sentence_separator", |a| a.hide(true)),
    mut_arg("bounds", |a| a.hide(true))
)]
pub struct BoundsArgs {
    /// Scores in [0, 1] (or 0/1 leak flags): a 1-D file
    scores: InputSpecArg,
    // The leakage bounds' options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: BoundsRequest,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct RougeArgs {
    /// Generations, one per line
    #[arg(long)]
    predictions: PathBuf,
    /// Reference file: one line per prediction, or a single line used for all
    #[arg(long, conflicts_with = "reference_text")]
    reference: Option<PathBuf>,
    /// Reference text used for every prediction
    #[arg(long)]
    reference_text: Option<String>,
    // ROUGE-L's and the leakage bounds' options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: BoundsRequest,
    #[command(flatten)]
    out: Out,
}

pub(super) fn bounds_human(r: &leakage::LeakageReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "n = {} scores (alpha = {}, {})",
        r.n,
        fmt_num(r.params.alpha),
        match r.params.sidedness {
            leakage::Sidedness::OneSided => "one-sided",
            leakage::Sidedness::TwoSided => "two-sided",
        }
    );
    if let Some(b) = &r.binary {
        let _ = writeln!(
            s,
            "M_bin: {} leaks of {} → leak probability ≤ {} (and ≥ {}, one-sided at 1 − alpha)",
            b.leaks,
            b.n,
            fmt_num(b.upper),
            fmt_num(b.lower_one_sided)
        );
    }
    for (x, u) in r.general.x.iter().zip(&r.general.upper) {
        let _ = writeln!(s, "M_gen({x}): Pr(X > {x}) ≤ {}", fmt_num(*u));
    }
    let _ = writeln!(
        s,
        "E[X] in [{}, {}] (mean {})",
        fmt_num(r.expectation.lower),
        fmt_num(r.expectation.upper),
        fmt_num(r.expectation.mean)
    );
    let _ = writeln!(
        s,
        "SD(X) ≤ {} (sample sd {})",
        fmt_num(r.std.upper),
        fmt_num(r.std.sample_std)
    );
    let _ = writeln!(s, "ED score (mean + {}·sd) = {}", r.ed.rho, fmt_num(r.ed.score));
    let _ = writeln!(s, "samples for a ±{} band: {}", r.params.plan_width, r.plan.n);
    s
}

/// Runs the layer's bounds analysis and prints its report; `files` maps roles to the files named for them.
fn run_bounds(ws: &mut Workspace, req: &BoundsRequest, json: bool, files: &[(&str, &str)]) -> Result<(), CliError> {
    let out = analyses::bounds(ws, req).map_err(|e| layer_error(e, files))?;
    emit_report(&out.report(), json, |r| match r {
        BoundsResult::Bounds(b) => bounds_human(b),
        BoundsResult::Rouge(o) => {
            let f = &o.scores.fmeasure;
            let mean = f.iter().sum::<f64>() / f.len() as f64;
            let mut s = format!(
                "{} F-measure: mean {} over {} generations (max {})\n",
                if req.lsum { "ROUGE-Lsum" } else { "ROUGE-L" },
                fmt_num(mean),
                f.len(),
                fmt_num(f.iter().copied().fold(0.0, f64::max))
            );
            const SHOWN: usize = 20;
            let _ = writeln!(s, "  line  precision  recall    F-measure");
            for (k, ((p, r), f)) in o
                .scores
                .precision
                .iter()
                .zip(&o.scores.recall)
                .zip(f)
                .enumerate()
                .take(SHOWN)
            {
                let _ = writeln!(
                    s,
                    "  {:<5} {:<10} {:<9} {}",
                    k + 1,
                    fmt_num(*p),
                    fmt_num(*r),
                    fmt_num(*f)
                );
            }
            if f.len() > SHOWN {
                let _ = writeln!(s, "  … {} more (--json lists every generation)", f.len() - SHOWN);
            }
            if let Some(b) = &o.bounds {
                s.push_str(&bounds_human(b));
            }
            s
        }
    })
}

pub(super) fn bounds_cmd(a: BoundsArgs) -> Result<(), CliError> {
    let path = path_of(&a.scores);
    let files = [("scores", path.as_str())];
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    let req = BoundsRequest {
        scores: Some(
            ws.input_arg_os("scores", &a.scores)
                .map_err(|e| layer_error(e, &files))?,
        ),
        ..a.options
    };
    run_bounds(&mut ws, &req, a.out.json, &files)
}

pub(super) fn rouge_cmd(a: RougeArgs) -> Result<(), CliError> {
    let preds = a.predictions.display().to_string();
    let reference = a.reference.as_ref().map(|p| p.display().to_string());
    let mut files = vec![("predictions", preds.as_str())];
    files.extend(reference.as_deref().map(|r| ("reference", r)));
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    let mut text = |role: &str, p: &std::path::Path| -> Result<TextInput, CliError> {
        Ok(TextInput::Source {
            source: ws.add_path(role, p).map_err(|e| layer_error(e, &files))?,
        })
    };
    let predictions = Some(text("predictions", &a.predictions)?);
    let reference = a.reference.as_deref().map(|p| text("reference", p)).transpose()?;
    if reference.is_none() && a.reference_text.is_none() {
        return Err(CliError::usage("give --reference FILE or --reference-text TEXT"));
    }
    let req = BoundsRequest {
        predictions,
        reference,
        reference_text: a.reference_text.clone(),
        ..a.options
    };
    run_bounds(&mut ws, &req, a.out.json, &files)
}
