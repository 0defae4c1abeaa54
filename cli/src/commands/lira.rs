//! `lethe lira` (LiRA from shadow-model results, tensorflow/privacy `mi_lira_2021`): arguments → a request of the
//! analysis layer (`lethe_analysis::analyses::LiraRequest`), which reads, checks, scores and audits; this module
//! prints the report (the layer lists the directory's files: `open_lira_dir`).

use std::ffi::OsString;

use lethe_analysis::Workspace;
use lethe_analysis::analyses::{self as layer, LiraRequest, MiaRequest};

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
    /// Which LiRA score, each plot.py's function: online (generate_ours), online-fixed-variance
    /// (generate_ours(fix_variance=True)), offline (generate_ours_offline), offline-fixed-variance, global
    /// (generate_global)
    #[arg(long, value_parser = ["online", "online-fixed-variance", "offline", "offline-fixed-variance", "global"], default_value = "online")]
    variant: String,
    /// Target model(s), comma-separated, numbered from 0 in the order of the experiment numbers [default: the last
    /// model, as plot.py]; the other models are the shadows
    #[arg(long, value_delimiter = ',')]
    target: Vec<usize>,
    /// Directory scores from scores/ (score.py's files), from logits/ converted as score.py does, or auto (scores/
    /// where present)
    #[arg(long, value_parser = ["auto", "scores", "logits"], default_value = "auto")]
    from: String,
    /// Use the first K augmentations [default: all]
    #[arg(long, value_name = "K")]
    augmentations: Option<usize>,
    /// plot.py's in_size cap on the IN shadows per example
    #[arg(long, default_value_t = LiraRequest::default().in_size)]
    in_size: usize,
    /// plot.py's out_size cap on the OUT shadows per example
    #[arg(long, default_value_t = LiraRequest::default().out_size)]
    out_size: usize,
    /// 1 − the level of every interval (0.05: 95%)
    #[arg(long, default_value_t = MiaRequest::default().alpha)]
    alpha: f64,
    /// Interval on the AUC: delong, bootstrap or both (as lethe mia)
    #[arg(long, value_parser = ["delong", "bootstrap", "both"], default_value = "delong")]
    ci: String,
    /// Bootstrap resamples
    #[arg(long, default_value_t = MiaRequest::default().resamples)]
    resamples: usize,
    /// Seed of the bootstrap's resamples
    #[arg(long, default_value_t = MiaRequest::default().seed)]
    seed: u64,
    /// How TPR is read at a target FPR (as lethe mia): leakpro, privacy-meter, jax-privacy, all
    #[arg(long, value_parser = ["leakpro", "privacy-meter", "jax-privacy", "all"], default_value = "leakpro")]
    rule: String,
    /// Target FPRs, comma-separated
    #[arg(long, value_delimiter = ',', default_values_t = layer::DEFAULT_FPRS)]
    fpr: Vec<f64>,
    /// Most ROC points in the report
    #[arg(long, default_value_t = layer::DEFAULT_CURVE_POINTS)]
    curve_points: usize,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    out: Out,
}

pub(super) fn lira_cmd(a: LiraArgs) -> Result<(), CliError> {
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    let mut req = LiraRequest {
        from: a.from,
        variant: a.variant,
        targets: a.target,
        augmentations: a.augmentations,
        in_size: a.in_size,
        out_size: a.out_size,
        alpha: a.alpha,
        ci: a.ci,
        resamples: a.resamples,
        seed: a.seed,
        rule: a.rule,
        fpr: a.fpr,
        curve_points: a.curve_points,
        ..LiraRequest::default()
    };
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
