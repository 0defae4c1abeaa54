//! `sde` and `calibrate`.

use super::*;

#[derive(Args, Serialize)]
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
    /// Number of targets drawn from each pool
    #[arg(long, default_value_t = 10)]
    draw: usize,
    /// Rows per drawn target
    #[arg(long)]
    size: Option<usize>,
    /// Bandwidth: sqrt_dim (paper default), median, or a number
    #[arg(long, value_parser = checked::<Bandwidth>, default_value = "sqrt_dim")]
    sigma: String,
    /// Shuffles of the second half per subset (T)
    #[arg(long, default_value_t = 200)]
    shuffles: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[arg(long, value_enum, default_value = "first")]
    split: SplitArg,
    /// Histogram bins of the JSD
    #[arg(long, default_value_t = 30)]
    bins: usize,
    /// Kernel storage: f64 or f32 [default: f64 on the CPU; the GPU computes in f32 only]
    #[arg(long, value_parser = checked::<Precision>)]
    precision: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    backend: BackendChoice,
    /// Also compute the MMD and Wasserstein-1 baseline verdicts
    #[arg(long)]
    baselines: bool,
    #[command(flatten)]
    #[serde(skip)]
    in_place: InPlaceArg,
    #[command(flatten)]
    #[serde(skip)]
    threads: Threads,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Args, Serialize)]
pub struct CalibrateArgs {
    /// Activations of every row (one model, one layer): PATH[#TENSOR]
    #[arg(long)]
    data: InputSpecArg,
    /// Rows that were in training, for the in-training reference subsets (a..b, i,j,k, or an index file)
    #[arg(long)]
    it_pool: String,
    /// Rows that were not in training, for the out-of-training reference subsets
    #[arg(long)]
    oot_pool: String,
    /// A target subset's rows (repeatable); unlabelled
    #[arg(long)]
    target: Vec<String>,
    /// A target known to be in training (repeatable; enables F1)
    #[arg(long)]
    target_in: Vec<String>,
    /// A target known to be out of training (repeatable; enables F1)
    #[arg(long)]
    target_out: Vec<String>,
    /// Draw --draw unlabelled targets of --size rows from these rows
    #[arg(long)]
    draw_from: Option<String>,
    /// Draw --draw targets labelled in-training from these rows
    #[arg(long)]
    draw_in: Option<String>,
    /// Draw --draw targets labelled out-of-training from these rows
    #[arg(long)]
    draw_out: Option<String>,
    #[arg(long, default_value_t = 10)]
    draw: usize,
    /// Rows per reference subset and per drawn target (|S|)
    #[arg(long, default_value_t = 100)]
    size: usize,
    /// Reference subsets per class (R)
    #[arg(long, default_value_t = 20)]
    refs: usize,
    /// Decision margin in pooled reference standard deviations
    #[arg(long, default_value_t = 0.0)]
    margin: f64,
    /// Shuffles for the paper's JSD rule beside the calibrated one (0 skips it)
    #[arg(long, default_value_t = 200)]
    paper_shuffles: usize,
    #[arg(long, value_parser = checked::<Bandwidth>, default_value = "sqrt_dim")]
    sigma: String,
    #[arg(long, value_enum, default_value = "first")]
    split: SplitArg,
    #[arg(long, default_value_t = 30)]
    bins: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[arg(long, value_parser = checked::<Precision>, default_value = "f64")]
    precision: String,
    #[command(flatten)]
    #[serde(skip)]
    in_place: InPlaceArg,
    #[command(flatten)]
    #[serde(skip)]
    threads: Threads,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Clone, Copy, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum SplitArg {
    First,
    Random,
}

/// Positions of the targets drawn from a pool of `rows` rows (`lethe::sde::draw_targets`: the seed offset depends
/// on the label).
pub(super) fn draw_targets(
    rows: usize,
    path: &str,
    role: &str,
    label: Option<bool>,
    count: usize,
    size: Option<usize>,
    seed: u64,
) -> Result<Vec<Vec<usize>>, CliError> {
    let size = size.ok_or_else(|| CliError::usage(format!("--{role} needs --size (rows per drawn target)")))?;
    sde::draw_targets(label, rows, count, size, seed).map_err(|e| CliError::input(role, std::path::Path::new(path), e))
}

pub(super) fn sde_cmd(a: SdeArgs) -> Result<(), CliError> {
    // f32 files are evaluated from f32 copies in memory (half the bytes of f64; the values, and so the results, are
    // the same): only when every input converts exactly.
    let mut specs = vec![spec(&a.it)?, spec(&a.oot)?];
    for s in a.target.iter().chain(&a.target_in).chain(&a.target_out) {
        specs.push(spec(s)?);
    }
    for s in [&a.draw_from, &a.draw_in, &a.draw_out].into_iter().flatten() {
        specs.push(spec(s)?);
    }
    if specs.iter().all(input::exact_in_f32) {
        sde_run::<f32>(a)
    } else {
        sde_run::<f64>(a)
    }
}

/// The `sde` command with inputs held as `T`, loaded or read in place (`--in-place`). Drawn targets are rows of
/// their pool ([`sde::RowSubset`]), never copied out of it.
pub(super) fn sde_run<T: lethe::data::Scalar>(mut a: SdeArgs) -> Result<(), CliError> {
    let precision = a.backend.precision(&mut a.precision)?;
    let mode = a.in_place.in_place;
    // Every input, in report order: the references, the given targets, then the pools.
    let mut opened: Vec<(input::Opened<T>, String, Option<bool>)> = vec![
        (
            input::open_as("in_training", &spec(&a.it)?, mode)?,
            "in_training".into(),
            None,
        ),
        (
            input::open_as("out_of_training", &spec(&a.oot)?, mode)?,
            "out_of_training".into(),
            None,
        ),
    ];
    for (list, label, role) in [
        (&a.target, None, "target"),
        (&a.target_in, Some(true), "target_in"),
        (&a.target_out, Some(false), "target_out"),
    ] {
        for (k, s) in list.iter().enumerate() {
            opened.push((input::open_as(role, &spec(s)?, mode)?, format!("{role}[{k}]"), label));
        }
    }
    let given = opened.len();
    for (pool, label, role) in [
        (&a.draw_from, None, "draw-from"),
        (&a.draw_in, Some(true), "draw-in"),
        (&a.draw_out, Some(false), "draw-out"),
    ] {
        if let Some(s) = pool {
            opened.push((input::open_as(role, &spec(s)?, mode)?, role.into(), label));
        }
    }
    let records: Vec<InputRecord> = opened.iter().map(|(o, ..)| o.record.clone()).collect();
    let arrays = opened
        .iter()
        .map(|(o, ..)| o.array_file())
        .collect::<Result<Vec<_>, _>>()?;
    let sources = opened
        .iter()
        .zip(&arrays)
        .map(|((o, ..), f)| o.source(f.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    // Drawn targets: positions into each pool's rows, as rows of the pool's source.
    let mut drawn: Vec<(Vec<usize>, String, usize, Option<bool>)> = Vec::new();
    for (k, (o, role, label)) in opened.iter().enumerate().skip(given) {
        let draws = draw_targets(o.rows(), &o.record.path, role, *label, a.draw, a.size, a.seed)?;
        let rows = sources[k].1;
        for (j, pos) in draws.into_iter().enumerate() {
            let at = pos.iter().map(|&i| rows.map_or(i, |r| r[i])).collect();
            drawn.push((at, format!("{role}[{j}]"), k, *label));
        }
    }
    let subset = |k: usize, name: &'static str| sde::RowSubset {
        name,
        source: sources[k].0,
        rows: sources[k].1,
        label: None,
    };
    let refs = (subset(0, "in_training"), subset(1, "out_of_training"));
    let mut targets: Vec<sde::RowSubset<'_, T>> = (2..given)
        .map(|k| sde::RowSubset {
            name: &opened[k].1,
            source: sources[k].0,
            rows: sources[k].1,
            label: opened[k].2,
        })
        .collect();
    for (rows, name, k, label) in &drawn {
        targets.push(sde::RowSubset {
            name,
            source: sources[*k].0,
            rows: Some(rows),
            label: *label,
        });
    }
    let in_place: Vec<String> = opened
        .iter()
        .filter(|(o, ..)| matches!(o.held, input::Held::InPlace { .. }))
        .map(|(o, ..)| format!("{} ({})", o.record.path, o.record.role))
        .collect();
    let params = SdeParams {
        bandwidth: parse(&a.sigma)?,
        shuffles: a.shuffles,
        seed: a.seed,
        split: match a.split {
            SplitArg::First => Split::First,
            SplitArg::Random => Split::Random,
        },
        bins: a.bins,
        precision,
        baselines: a.baselines,
    };
    let r = if a.backend.gpu() {
        on_gpu(|gpu| {
            block_on(sde::sde_subsets_with(
                gpu,
                &mut lethe::progress::Silent,
                refs.0,
                refs.1,
                &targets,
                &params,
            ))
        })?
    } else {
        sde::threaded::sde_subsets_threaded(a.threads.count()?, &mut |_| true, refs.0, refs.1, &targets, &params)?
    };
    let gpu = a.backend.gpu();
    Report::new("sde", &a, Some(a.seed), records, r).emit(a.out.json, |r| {
        let mut s = if gpu { backend_line(&r.backend) } else { String::new() };
        if !in_place.is_empty() {
            let _ = writeln!(
                s,
                "read in place, a panel of columns at a time: {}",
                in_place.join(", ")
            );
        }
        let dist = |h: &sde::SplitHalf| {
            let mean = h.values.iter().sum::<f64>() / h.values.len().max(1) as f64;
            format!(
                "mean H = {} over {} shuffles (halves of {}, sigma {} / {})",
                fmt_num(mean),
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
        for t in &r.targets {
            let _ = writeln!(
                s,
                "  {:<16} JSD to IT {}  to OOT {}  → {}{}",
                t.name,
                fmt_num(t.verdict.jsd_target_it),
                fmt_num(t.verdict.jsd_target_oot),
                if t.verdict.in_training {
                    "in training"
                } else {
                    "out of training"
                },
                t.label
                    .map(|l| if l { "  (label: in)" } else { "  (label: out)" })
                    .unwrap_or("")
            );
        }
        if let Some(otr) = r.out_of_training_rate {
            let _ = writeln!(
                s,
                "out-of-training rate (OTR): {} of {} targets",
                fmt_num(otr),
                r.targets.len()
            );
        }
        for (name, f) in [("SDE", &r.f1), ("MMD", &r.f1_mmd), ("Wasserstein", &r.f1_wasserstein)] {
            if let Some(f) = f {
                let _ = writeln!(s, "F1 ({name}, in-training positive): {}", fmt_num(f.f1));
            }
        }
        for w in &r.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    })
}

/// Parses a row argument given on its own (`--forget`, `--it-pool`, ...): a malformed one is a usage error.
pub(super) fn row_spec(flag: &str, s: &str) -> Result<RowSpec, CliError> {
    s.parse()
        .map_err(|e: String| CliError::usage(format!("bad rows `{s}` for --{flag}: {e}")))
}

/// The rows of `data` (loaded from `path`) that a row argument selects, and the record of the index or split file
/// they came from (as `lethe ruler` records its forget/retain files).
pub(super) fn rows_of(
    role: &str,
    flag: &str,
    s: &str,
    n: usize,
    path: &std::path::Path,
) -> Result<(Vec<usize>, Option<InputRecord>), CliError> {
    let spec = row_spec(flag, s)?;
    let (rows, file) = input::resolve_rows(role, &spec, Some((n as u64, path)), n as u64)?;
    let record = file.map(|d| input::row_file_record(role, &spec, d, rows.len()));
    Ok((rows, record))
}

pub(super) fn calibrate_cmd(a: CalibrateArgs) -> Result<(), CliError> {
    use lethe::sde::calibrated::{CalibratedParams, Call, TargetRows};
    let data_spec = spec(&a.data)?;
    // Pool and target rows index the rows of --data; read in place, they are rows of the file, so a row subset of
    // --data itself is loaded.
    let mode = match (a.in_place.in_place, &data_spec.rows) {
        (input::InPlace::Always, Some(_)) => {
            return Err(CliError::usage(
                "--in-place always reads --data whole, in place: give it without @ROWS (pools and targets pick its rows)",
            ));
        }
        (input::InPlace::Auto, Some(_)) => input::InPlace::Never,
        (mode, _) => mode,
    };
    let data = input::open_as::<f64>("data", &data_spec, mode)?;
    let array = data.array_file()?;
    let (source, _) = data.source(array.as_ref())?;
    let (n, path) = (data.rows(), std::path::PathBuf::from(&data.record.path));
    let mut records = vec![data.record.clone()];
    let mut rows = |role: &str, flag: &str, s: &str| -> Result<Vec<usize>, CliError> {
        let (rows, record) = rows_of(role, flag, s, n, &path)?;
        records.extend(record);
        Ok(rows)
    };
    let it_pool = rows("it_pool", "it-pool", &a.it_pool)?;
    let oot_pool = rows("oot_pool", "oot-pool", &a.oot_pool)?;
    let mut targets = Vec::new();
    for (list, label, role) in [
        (&a.target, None, "target"),
        (&a.target_in, Some(true), "target_in"),
        (&a.target_out, Some(false), "target_out"),
    ] {
        for (k, s) in list.iter().enumerate() {
            targets.push(TargetRows {
                name: format!("{role}[{k}]"),
                rows: rows(role, &role.replace('_', "-"), s)?,
                label,
            });
        }
    }
    for (pool, label, role) in [
        (&a.draw_from, None, "draw-from"),
        (&a.draw_in, Some(true), "draw-in"),
        (&a.draw_out, Some(false), "draw-out"),
    ] {
        if let Some(s) = pool {
            let rows = rows(&role.replace('-', "_"), role, s)?;
            for (k, pos) in sde::draw_targets(label, rows.len(), a.draw, a.size, a.seed)?
                .into_iter()
                .enumerate()
            {
                targets.push(TargetRows {
                    name: format!("{role}[{k}]"),
                    rows: pos.iter().map(|&i| rows[i]).collect(),
                    label,
                });
            }
        }
    }
    let params = CalibratedParams {
        bandwidth: parse(&a.sigma)?,
        subset_size: a.size,
        references: a.refs,
        margin: a.margin,
        split: match a.split {
            SplitArg::First => Split::First,
            SplitArg::Random => Split::Random,
        },
        seed: a.seed,
        precision: parse(&a.precision)?,
        paper_shuffles: a.paper_shuffles,
        bins: a.bins,
    };
    let r = sde::threaded::calibrated_threaded(
        a.threads.count()?,
        &mut |_| true,
        source,
        &it_pool,
        &oot_pool,
        &targets,
        &params,
    )?;
    let in_place = matches!(data.held, input::Held::InPlace { .. });
    Report::new("calibrate", &a, Some(a.seed), records, r).emit(a.out.json, |r| {
        let mut s = String::new();
        if in_place {
            let _ = writeln!(s, "read in place, a panel of columns at a time: {}", path.display());
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
                fmt_num(t.score),
                call(t.calibrated),
                t.paper.map_or("-", |p| if p.in_training { "in" } else { "out" }),
                call(t.dispersion),
                t.confidence.map_or("-", call),
                t.label.map_or("", |l| if l { "  (label in)" } else { "  (label out)" })
            );
        }
        for sm in &r.summaries {
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
        for n in &r.notes {
            let _ = writeln!(s, "note: {n}");
        }
        for w in &r.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    })
}
