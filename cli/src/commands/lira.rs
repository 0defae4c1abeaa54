//! `lethe lira` (LiRA from shadow-model results, tensorflow/privacy `mi_lira_2021`): arguments → a request of the
//! analysis layer (`lethe_analysis::analyses::LiraRequest`), which reads, checks, scores and audits; this module
//! prints the report (the layer lists the directory's files: `open_lira_dir`).

use std::ffi::OsString;

use lethe_analysis::Workspace;
use lethe_analysis::analyses::{self as layer, LiraRequest};

use super::*;
use crate::report::{emit_report, layer_error};

#[derive(Args)]
pub struct LiraArgs {
    /// A directory in mi_lira_2021's layout: experiment*/keep.npy with scores/*.npy (or logits/*.npy and
    /// y_train.npy)
    #[arg(required_unless_present = "scores")]
    dir: Option<PathBuf>,
    /// Instead of a directory: stacked scores, models × examples × augmentations, PATH[#TENSOR]
    #[arg(long, requires = "keep", conflicts_with = "dir")]
    scores: Option<OsString>,
    /// With --scores: keep flags, models × examples (true/1 = the model trained on the example), PATH[#TENSOR]
    #[arg(long, requires = "scores")]
    keep: Option<OsString>,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: LiraRequest,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    out: Out,
}

pub(super) fn lira_cmd(a: LiraArgs) -> Result<(), CliError> {
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    let mut req = a.options;
    let mut files: Vec<(&'static str, String)> = Vec::new();
    if let Some(dir) = &a.dir {
        files.push(("dir", dir.display().to_string()));
        req.dir = Some(dir.display().to_string());
        req.files = layer::open_lira_dir(&mut ws, dir).map_err(|e| layer_error(e, &[]))?;
    } else if let (Some(s), Some(k)) = (&a.scores, &a.keep) {
        files.push(("scores", s.to_string_lossy().into_owned()));
        files.push(("keep", k.to_string_lossy().into_owned()));
        let f: Vec<(&str, &str)> = files.iter().map(|(r, p)| (*r, p.as_str())).collect();
        req.scores = Some(ws.input_arg_os("scores", s).map_err(|e| layer_error(e, &f))?);
        req.keep = Some(ws.input_arg_os("keep", k).map_err(|e| layer_error(e, &f))?);
    }
    let f: Vec<(&str, &str)> = files.iter().map(|(r, p)| (*r, p.as_str())).collect();
    let job = layer::prepare_lira(&mut ws, &req).map_err(|e| layer_error(e, &f))?;
    let report = job
        .run(a.threads.count()?, &mut |_, _| true)
        .map_err(|e| layer_error(e, &f))?;
    let level = 100.0 * (1.0 - req.alpha);
    emit_report(&report, a.out.json, |r| {
        let c = &r.shadow_counts;
        let mut t = format!(
            "LiRA {} ({}): {} models × {} examples × {} augmentation(s); target(s) {:?}, {} shadows (IN per example {}–{}, \
             OUT {}–{}; the fit uses {} IN and {} OUT)\n",
            r.variant,
            r.follows,
            r.models,
            r.examples,
            r.augmentations,
            r.targets,
            c.shadows,
            c.fewest_in,
            c.most_in,
            c.fewest_out,
            c.most_out,
            c.in_used,
            c.out_used
        );
        let s = &r.audit.summary;
        let _ = writeln!(
            t,
            "AUC = {} ({} members, {} non-members); with the labels flipped {}",
            fmt_num(s.auc),
            r.members,
            r.non_members,
            fmt_num(r.audit.auc_flipped)
        );
        if let Some(d) = &r.audit.delong {
            let _ = writeln!(
                t,
                "  DeLong {level}% CI [{}, {}]",
                fmt_num(d.interval.lo),
                fmt_num(d.interval.hi)
            );
        }
        if let Some(b) = &r.audit.bootstrap {
            let i = b
                .interval
                .map_or("-".to_string(), |i| format!("[{}, {}]", fmt_num(i.lo), fmt_num(i.hi)));
            let _ = writeln!(
                t,
                "  bootstrap {level}% CI {i} ({} resamples, seed {})",
                b.resamples_done, b.seed
            );
        }
        let _ = writeln!(
            t,
            "balanced accuracy {} (max TPR − FPR {})",
            fmt_num(s.balanced_accuracy),
            fmt_num(s.max_tpr_minus_fpr)
        );
        let _ = writeln!(
            t,
            "  {:<13} {:>10} {:>10} {:>12}",
            "rule", "target FPR", "TPR", "realized FPR"
        );
        for p in &r.audit.tpr_at_fpr {
            let _ = writeln!(
                t,
                "  {:<13} {:>10} {:>10} {:>12}",
                p.rule.name(),
                fmt_num(p.target_fpr),
                fmt_num(p.tpr),
                fmt_num(p.realized_fpr)
            );
        }
        t
    })
}
