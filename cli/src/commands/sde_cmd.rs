//! `sde` and `calibrate`: arguments → the analysis layer's request, its run, its report → text or JSON.

use lethe_analysis::analyses::{
    self as layer, CalibrateOutput, CalibrateRequest, DataRef, SdeOutput, SdeRequest, calibrated_call,
};
use lethe_analysis::workspace::InPlacePolicy;
use lethe_analysis::{InputRef, Workspace};
use std::ffi::OsString;

use super::ruler_cmd::path_of;
use super::*;
use crate::report::{emit_report, layer_error};

#[derive(Args)]
pub struct SdeArgs {
    /// In-training reference subset (e.g. act.npy@retain_ref.txt)
    #[arg(long)]
    it: InputSpecArg,
    /// Out-of-training reference subset (e.g. act.npy@test_ref.txt)
    #[arg(long)]
    oot: InputSpecArg,
    /// A target subset (repeatable); unlabelled
    #[arg(long)]
    target: Vec<InputSpecArg>,
    /// A target known to be in training (repeatable; enables F1)
    #[arg(long)]
    target_in: Vec<InputSpecArg>,
    /// A target known to be out of training (repeatable; enables F1)
    #[arg(long)]
    target_out: Vec<InputSpecArg>,
    /// Draw --draw unlabelled targets of --size rows from this pool (Algorithm 3: the forget set)
    #[arg(long)]
    draw_from: Option<InputSpecArg>,
    /// Draw --draw targets labelled in-training from this pool (controlled experiment)
    #[arg(long)]
    draw_in: Option<InputSpecArg>,
    /// Draw --draw targets labelled out-of-training from this pool (controlled experiment)
    #[arg(long)]
    draw_out: Option<InputSpecArg>,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: SdeRequest,
    #[command(flatten)]
    in_place: InPlaceArg,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct CalibrateArgs {
    /// Activations of every row (one model, one layer): PATH[#TENSOR]
    #[arg(long)]
    data: InputSpecArg,
    /// Rows that were in training, for the in-training reference subsets (a..b, i,j,k, or an index file)
    #[arg(long)]
    it_pool: OsString,
    /// Rows that were not in training, for the out-of-training reference subsets
    #[arg(long)]
    oot_pool: OsString,
    /// A target subset's rows (repeatable); unlabelled
    #[arg(long)]
    target: Vec<OsString>,
    /// A target known to be in training (repeatable; enables F1)
    #[arg(long)]
    target_in: Vec<OsString>,
    /// A target known to be out of training (repeatable; enables F1)
    #[arg(long)]
    target_out: Vec<OsString>,
    /// Draw --draw unlabelled targets of --size rows from these rows
    #[arg(long)]
    draw_from: Option<OsString>,
    /// Draw --draw targets labelled in-training from these rows
    #[arg(long)]
    draw_in: Option<OsString>,
    /// Draw --draw targets labelled out-of-training from these rows
    #[arg(long)]
    draw_out: Option<OsString>,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: CalibrateRequest,
    #[command(flatten)]
    in_place: InPlaceArg,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    out: Out,
}

/// A workspace as the CLI uses it: files from disk, every file hashed, `--in-place` as given.
fn workspace(policy: InPlacePolicy) -> Workspace {
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    ws.set_in_place(policy);
    ws
}

pub(super) fn sde_cmd(a: SdeArgs) -> Result<(), CliError> {
    // The layer decides the precision by backend; a refusal (f64 on the GPU) is told before any input is read.
    a.options.kernel_precision().map_err(|e| layer_error(e, &[]))?;
    let gpu =
        layer::backend_choice(&a.options.backend).map_err(|e| layer_error(e, &[]))? == layer::BackendChoice::WebGpu;
    // Role → file, for messages that concern an input.
    let mut files: Vec<(&str, String)> = vec![("in_training", path_of(&a.it)), ("out_of_training", path_of(&a.oot))];
    for (role, list) in [
        ("target", &a.target),
        ("target_in", &a.target_in),
        ("target_out", &a.target_out),
    ] {
        files.extend(list.iter().map(|s| (role, path_of(s))));
    }
    for (role, pool) in [
        ("draw-from", &a.draw_from),
        ("draw-in", &a.draw_in),
        ("draw-out", &a.draw_out),
    ] {
        files.extend(pool.iter().map(|s| (role, path_of(s))));
    }
    let shown: Vec<(&str, &str)> = files.iter().map(|(r, p)| (*r, p.as_str())).collect();
    let err = |e: lethe_analysis::Error| layer_error(e, &shown);
    let mut ws = workspace(a.in_place.in_place);
    let mut inputs = |role: &str, list: &[InputSpecArg]| -> Result<Vec<InputRef>, CliError> {
        list.iter().map(|s| ws.input_arg_os(role, s).map_err(err)).collect()
    };
    let it = inputs("in_training", std::slice::from_ref(&a.it))?;
    let oot = inputs("out_of_training", std::slice::from_ref(&a.oot))?;
    let target = inputs("target", &a.target)?;
    let target_in = inputs("target_in", &a.target_in)?;
    let target_out = inputs("target_out", &a.target_out)?;
    let draw_from = inputs("draw-from", a.draw_from.as_slice())?;
    let draw_in = inputs("draw-in", a.draw_in.as_slice())?;
    let draw_out = inputs("draw-out", a.draw_out.as_slice())?;
    let req = SdeRequest {
        in_training: it.into_iter().next(),
        out_of_training: oot.into_iter().next(),
        target,
        target_in,
        target_out,
        draw_from: draw_from.into_iter().next(),
        draw_in: draw_in.into_iter().next(),
        draw_out: draw_out.into_iter().next(),
        ..a.options
    };
    // Inputs whose stored values f32 holds exactly are held as f32: the same numbers, half the memory.
    let job = layer::prepare_sde_exact_f32(&mut ws, &req).map_err(err)?;
    drop(ws);
    let in_place = job.read_in_place();
    let mut out = if gpu {
        let mut backend = gpu_backend()?;
        block_on(job.run_on(&mut backend, &mut lethe::progress::Silent)).map_err(|e| gpu_error(e, err))?
    } else {
        job.run_threaded(a.threads.count()?).map_err(err)?
    };
    if gpu {
        // The report records the backend as the command line names it.
        out.parameters.backend = Some("gpu".into());
    }
    let report = out.report();
    emit_report(&report, a.out.json, |r| sde_text(r, &out, gpu, &in_place))
}

/// The human summary of an SDE run beneath its headline: the references, each target under both rules and the
/// call, OTR and F1.
fn sde_text(r: &sde::SdeReport, out: &SdeOutput, gpu: bool, in_place: &[String]) -> String {
    let mut s = if gpu { backend_line(&r.backend) } else { String::new() };
    if !in_place.is_empty() {
        let _ = writeln!(
            s,
            "read in place, a panel of columns at a time: {}",
            in_place.join(", ")
        );
    }
    let dist = |h: &sde::SplitHalf| {
        format!(
            "exact mean H = {} ({} shuffles, halves of {}, sigma {} / {})",
            fmt_num(h.moments.mean),
            h.values.len(),
            h.half,
            fmt_num(h.sigma_1),
            fmt_num(h.sigma_2)
        )
    };
    let _ = writeln!(s, "in-training reference:      {}", dist(&r.in_training_reference));
    if let Some(o) = &r.out_of_training_reference {
        let _ = writeln!(s, "out-of-training reference:  {}", dist(o));
    }
    if let Some(m) = &r.reference_separation {
        let _ = writeln!(
            s,
            "references separable? one-sided Mann–Whitney H(IT) > H(OOT): p = {}",
            fmt_num(m.p_value)
        );
    }
    let rule = |v: Option<bool>, yes: &'static str, no: &'static str| match v {
        Some(true) => yes,
        Some(false) => no,
        None => "tie",
    };
    if !r.targets.is_empty() {
        let _ = writeln!(
            s,
            "  {:<16} {:<16} {:<16} {:<22} exact mean nearer",
            "target", "call", "paper (JSD)", "JSD to IT / to OOT"
        );
    }
    for (t, c) in r.targets.iter().zip(&out.calls) {
        let _ = writeln!(
            s,
            "  {:<16} {:<16} {:<16} {:<22} {}{}",
            t.name,
            c.call.replace('_', " "),
            rule(c.paper, "in training", "out of training"),
            format!(
                "{} / {}",
                fmt_num(t.verdict.jsd_target_it),
                fmt_num(t.verdict.jsd_target_oot)
            ),
            rule(c.exact_mean, "IT", "OOT"),
            t.label
                .map(|l| if l { "  (label: in)" } else { "  (label: out)" })
                .unwrap_or("")
        );
    }
    let ties = out.calls.iter().filter(|c| c.paper.is_none()).count();
    if ties > 0 {
        // The paper counts a tie as out of training: an OTR of ties is no rate at all.
        let _ = writeln!(
            s,
            "out-of-training rate (OTR), paper's rule: not shown, {ties} of {} targets tie (equal JSDs)",
            r.targets.len()
        );
    } else if let Some(otr) = r.out_of_training_rate {
        let _ = writeln!(
            s,
            "out-of-training rate (OTR), paper's rule: {} ({} target{})",
            fmt_num(otr),
            r.targets.len(),
            if r.targets.len() == 1 { "" } else { "s" }
        );
    }
    if let Some(p) = &out.result.placebos {
        let _ = writeln!(
            s,
            "placebo check ({} subsets of {} rows per class, drawn from the references' rows): exact mean {} ± {} \
             in training, {} ± {} out of training; a call needs z ≥ {}; told apart: {} of {} in-training, {} of {} \
             out-of-training; the reference pair's own rule would call {} of {} out-of-training subsets in training",
            p.draws,
            p.rows,
            fmt_num(p.in_training.mean),
            fmt_num(p.in_training.null_sd),
            fmt_num(p.out_of_training.mean),
            fmt_num(p.out_of_training.null_sd),
            fmt_num(p.threshold),
            p.detected_in_training,
            p.draws,
            p.detected_out_of_training,
            p.draws,
            p.pair_false_in_training,
            p.draws
        );
        for t in &p.targets {
            let _ = writeln!(
                s,
                "  {:<16} z against out-of-training subsets {}, against in-training subsets {}",
                t.name,
                fmt_num(t.z_out_of_training),
                fmt_num(t.z_in_training)
            );
        }
    }
    for (name, f) in [("SDE", &r.f1), ("MMD", &r.f1_mmd), ("Wasserstein", &r.f1_wasserstein)] {
        if let Some(f) = f {
            let _ = writeln!(s, "F1 ({name}, in-training positive): {}", fmt_num(f.f1));
        }
    }
    s
}

pub(super) fn calibrate_cmd(a: CalibrateArgs) -> Result<(), CliError> {
    let data_path = path_of(&a.data);
    let mut files: Vec<(&str, String)> = vec![("data", data_path.clone())];
    for (role, s) in [("it_pool", &a.it_pool), ("oot_pool", &a.oot_pool)] {
        if std::path::Path::new(s).is_file() {
            files.push((role, s.to_string_lossy().into_owned()));
        }
    }
    let shown: Vec<(&str, &str)> = files.iter().map(|(r, p)| (*r, p.as_str())).collect();
    let err = |e: lethe_analysis::Error| layer_error(e, &shown);
    let mut ws = workspace(a.in_place.in_place);
    let data = ws.input_arg_os("data", &a.data).map_err(err)?;
    let mut rows = |role: &str, list: &[OsString]| -> Result<Vec<lethe_analysis::rows::Rows>, CliError> {
        list.iter().map(|s| ws.rows_arg_os(role, s).map_err(err)).collect()
    };
    let it_pool = rows("it_pool", std::slice::from_ref(&a.it_pool))?;
    let oot_pool = rows("oot_pool", std::slice::from_ref(&a.oot_pool))?;
    let target = rows("target", &a.target)?;
    let target_in = rows("target_in", &a.target_in)?;
    let target_out = rows("target_out", &a.target_out)?;
    let draw_from = rows("draw-from", a.draw_from.as_slice())?;
    let draw_in = rows("draw-in", a.draw_in.as_slice())?;
    let draw_out = rows("draw-out", a.draw_out.as_slice())?;
    let req = CalibrateRequest {
        data: Some(DataRef {
            source: data.source,
            tensor: data.tensor,
            rows: data.rows,
        }),
        it_pool: it_pool.into_iter().next(),
        oot_pool: oot_pool.into_iter().next(),
        target,
        target_in,
        target_out,
        draw_from: draw_from.into_iter().next(),
        draw_in: draw_in.into_iter().next(),
        draw_out: draw_out.into_iter().next(),
        ..a.options
    };
    // Pools and targets index the rows of --data: a row subset of it is loaded, so that they stay its rows.
    layer::calibrate_data_rows(&mut ws, &req).map_err(err)?;
    let job = layer::prepare_calibrate(&mut ws, &req).map_err(err)?;
    drop(ws);
    let in_place = job.read_in_place();
    let out = job.run_threaded(a.threads.count()?).map_err(err)?;
    let report = out.report();
    emit_report(&report, a.out.json, |r| calibrate_text(r, &out, in_place, &data_path))
}

/// The human summary of a calibrated run beneath its headline: the reference classes, each target under every
/// rule, the rules' OTR and F1, the core's reading of the result.
fn calibrate_text(r: &sde::calibrated::CalibratedReport, out: &CalibrateOutput, in_place: bool, path: &str) -> String {
    use lethe::sde::calibrated::Call;
    let mut s = String::new();
    if in_place {
        let _ = writeln!(s, "read in place, a panel of columns at a time: {path}");
    }
    let call = |c: Call| match c {
        Call::InTraining => "in",
        Call::OutOfTraining => "out",
        Call::Inconclusive => "?",
    };
    let _ = writeln!(
        s,
        "references: {} in-training, {} out-of-training subsets of {} rows; exact means {} ± {} vs {} ± {}",
        r.in_training.subsets.len(),
        r.out_of_training.subsets.len(),
        r.params.subset_size,
        fmt_num(r.in_training.mean),
        fmt_num(r.in_training.sd),
        fmt_num(r.out_of_training.mean),
        fmt_num(r.out_of_training.sd)
    );
    let _ = writeln!(
        s,
        "{:<14} {:>10} {:>11} {:>6} {:>11} {:>10}",
        "target", "z (sds)", "calibrated", "paper", "dispersion", "confidence"
    );
    for t in &r.targets {
        let _ = writeln!(
            s,
            "{:<14} {:>10} {:>11} {:>6} {:>11} {:>10}{}",
            t.name,
            if t.score.is_finite() {
                fmt_num(t.score)
            } else {
                "-".into()
            },
            call(calibrated_call(r, t)),
            t.paper
                .and_then(|p| p.decided())
                .map_or("-", |p| if p { "in" } else { "out" }),
            call(t.dispersion),
            t.confidence.map_or("-", call),
            t.label.map_or("", |l| if l { "  (label in)" } else { "  (label out)" })
        );
    }
    // Targets the layer gives no call although the rule alone does (constant references, classes too close
    // for the margin): the rule's own OTR is shown as such.
    let overridden = r.targets.iter().any(|t| calibrated_call(r, t) != t.calibrated);
    for sm in &r.summaries {
        if overridden && sm.rule == "calibrated" {
            let _ = writeln!(
                s,
                "{:<36} no call (see the headline); the rule alone: OTR {}",
                sm.rule,
                sm.out_of_training_rate.map_or("-".into(), fmt_num)
            );
            continue;
        }
        let _ = writeln!(
            s,
            "{:<36} OTR {}  F1 {}{}",
            sm.rule,
            sm.out_of_training_rate.map_or("-".into(), fmt_num),
            sm.f1.as_ref().map_or("-".into(), |f| fmt_num(f.f1)),
            if sm.inconclusive > 0 {
                format!("  ({} inconclusive)", sm.inconclusive)
            } else {
                String::new()
            }
        );
    }
    // The core's reading, unless the references give the rule no scale (it would speak of infinite separations).
    if !out.warnings.iter().any(|w| w.code == "constant_references") {
        for n in &r.notes {
            let _ = writeln!(s, "note: {n}");
        }
    }
    s
}
