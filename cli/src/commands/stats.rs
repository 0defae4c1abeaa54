//! The statistics on their own: inspect, hsic, mwu, wilcoxon, jsd, mmd, wasserstein.

use super::*;

#[derive(Args, Serialize)]
pub struct HsicArgs {
    x: InputSpecArg,
    y: InputSpecArg,
    /// Bandwidth of x: sqrt_dim, median, or a number
    #[arg(long, value_parser = checked::<Bandwidth>, default_value = "sqrt_dim")]
    sigma_x: String,
    #[arg(long, value_parser = checked::<Bandwidth>, default_value = "sqrt_dim")]
    sigma_y: String,
    #[arg(long, default_value_t = 1000)]
    permutations: usize,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Kernel storage: f64 or f32 [default: f64 on the CPU; the GPU computes in f32 only]
    #[arg(long, value_parser = checked::<Precision>)]
    precision: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    backend: BackendChoice,
    #[command(flatten)]
    #[serde(skip)]
    threads: Threads,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Args, Serialize)]
pub struct TwoSamples {
    x: InputSpecArg,
    y: InputSpecArg,
}

#[derive(Args, Serialize)]
pub struct MwuArgs {
    #[command(flatten)]
    samples: TwoSamples,
    #[arg(long, value_parser = checked::<Alternative>, default_value = "two-sided")]
    alternative: String,
    #[arg(long, value_parser = checked::<PValueMethod>, default_value = "auto")]
    method: String,
    /// Disable the continuity correction of the asymptotic p-value
    #[arg(long)]
    no_continuity: bool,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Args, Serialize)]
pub struct WilcoxonArgs {
    x: InputSpecArg,
    /// Paired second sample (differences x − y); without it, x are the differences
    y: Option<InputSpecArg>,
    /// wilcox, pratt or zsplit
    #[arg(long, value_parser = checked::<ZeroMethod>, default_value = "wilcox")]
    zero_method: String,
    #[arg(long, value_parser = checked::<Alternative>, default_value = "two-sided")]
    alternative: String,
    #[arg(long, value_parser = checked::<PValueMethod>, default_value = "auto")]
    method: String,
    /// Continuity correction of the asymptotic p-value
    #[arg(long)]
    correction: bool,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Args, Serialize)]
pub struct JsdArgs {
    #[command(flatten)]
    samples: TwoSamples,
    #[arg(long, default_value_t = 30)]
    bins: usize,
    /// Logarithm base: e (default) or 2
    #[arg(long, value_parser = log_base, default_value = "e")]
    base: String,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Args, Serialize)]
pub struct MmdArgs {
    #[command(flatten)]
    samples: TwoSamples,
    #[arg(long, value_parser = checked::<Bandwidth>, default_value = "sqrt_dim")]
    sigma: String,
    #[arg(long)]
    unbiased: bool,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Args, Serialize)]
pub struct WassersteinArgs {
    #[command(flatten)]
    samples: TwoSamples,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

pub(super) fn inspect(a: InspectArgs) -> Result<(), CliError> {
    let info = lethe::data::inspect_path(&a.file).map_err(|e| CliError::input("file", &a.file, e.into()))?;
    if a.out.json {
        let s = serde_json::to_string_pretty(&info).map_err(|e| CliError::msg(e.to_string()))?;
        println!("{s}");
        return Ok(());
    }
    println!("{}: {:?}, {} bytes", a.file.display(), info.format, info.file_size);
    for arr in &info.arrays {
        println!(
            "  {:<20} {:<10} shape {:?}{}",
            arr.name.as_deref().unwrap_or("-"),
            arr.dtype,
            arr.shape,
            arr.problem.as_ref().map(|p| format!("  ({p})")).unwrap_or_default()
        );
    }
    for w in &info.warnings {
        println!("  warning: {w}");
    }
    Ok(())
}

pub(super) fn hsic_cmd(mut a: HsicArgs) -> Result<(), CliError> {
    let precision = a.backend.precision(&mut a.precision)?;
    let x = input::load("x", &spec(&a.x)?)?;
    let y = input::load("y", &spec(&a.y)?)?;
    let p = HsicTestParams {
        bandwidth_x: parse(&a.sigma_x)?,
        bandwidth_y: parse(&a.sigma_y)?,
        permutations: a.permutations,
        seed: a.seed,
        precision,
    };
    let (xv, yv) = (x.matrix.view(), y.matrix.view());
    let r = if a.backend.gpu() {
        on_gpu(|gpu| block_on(hsic::hsic_test_with(gpu, &mut lethe::progress::Silent, xv, yv, &p)))?
    } else {
        hsic::hsic_test_threaded(a.threads.count()?, &mut |_| true, xv, yv, &p)?
    };
    let gpu = a.backend.gpu();
    Report::new("hsic", &a, Some(a.seed), vec![x.record, y.record], r).emit(a.out.json, |r| {
        let backend = if gpu { backend_line(&r.backend) } else { String::new() };
        format!(
            "{backend}HSIC = {} (n = {}, sigma_x = {}, sigma_y = {})\npermutation test: p = {} ({} of {} shuffles ≥ observed; {})\n",
            fmt_num(r.statistic),
            r.n,
            fmt_num(r.sigma_x),
            fmt_num(r.sigma_y),
            fmt_num(r.p_value),
            r.exceedances,
            r.permutations_done,
            r.rng
        )
    })
}

/// Two 1-D samples and their input records.
type TwoVectors = (Vec<f64>, Vec<f64>, Vec<InputRecord>);

pub(super) fn two_vectors(t: &TwoSamples) -> Result<TwoVectors, CliError> {
    let (x, rx) = input::load_vector("x", &spec(&t.x)?)?;
    let (y, ry) = input::load_vector("y", &spec(&t.y)?)?;
    Ok((x, y, vec![rx, ry]))
}

pub(super) fn mwu_cmd(a: MwuArgs) -> Result<(), CliError> {
    let (x, y, rec) = two_vectors(&a.samples)?;
    let alt: Alternative = parse(&a.alternative)?;
    let method: PValueMethod = parse(&a.method)?;
    let r = mann_whitney::mann_whitney_u(&x, &y, alt, method, !a.no_continuity)?;
    Report::new("mwu", &a, None, rec, r).emit(a.out.json, |r| {
        format!(
            "Mann–Whitney U = {} ({:?}, {:?}): p = {}; rank-biserial r = {}\n",
            fmt_num(r.statistic),
            r.alternative,
            r.method_used,
            fmt_num(r.p_value),
            fmt_num(r.rank_biserial)
        )
    })
}

#[derive(Serialize)]
pub(super) struct WilcoxonOutput {
    test: wilcoxon::WilcoxonResult,
    rank_biserial: Option<f64>,
}

pub(super) fn wilcoxon_cmd(a: WilcoxonArgs) -> Result<(), CliError> {
    let (x, rx) = input::load_vector("x", &spec(&a.x)?)?;
    let mut rec = vec![rx];
    let y = match &a.y {
        Some(s) => {
            let (y, ry) = input::load_vector("y", &spec(s)?)?;
            rec.push(ry);
            Some(y)
        }
        None => None,
    };
    let zero: ZeroMethod = parse(&a.zero_method)?;
    let p = WilcoxonParams {
        zero_method: zero,
        correction: a.correction,
        alternative: parse(&a.alternative)?,
        method: parse(&a.method)?,
    };
    let test = wilcoxon::wilcoxon(&x, y.as_deref(), &p)?;
    let rb = wilcoxon::rank_biserial(&x, y.as_deref(), zero).ok();
    Report::new(
        "wilcoxon",
        &a,
        None,
        rec,
        WilcoxonOutput {
            test,
            rank_biserial: rb,
        },
    )
    .emit(a.out.json, |o| {
        format!(
            "Wilcoxon signed-rank: statistic {}, p = {} ({:?}, n used {}, zeros {}); rank-biserial {}\n",
            fmt_num(o.test.statistic),
            fmt_num(o.test.p_value),
            o.test.method_used,
            o.test.n_used,
            o.test.n_zero,
            o.rank_biserial.map_or("-".into(), fmt_num)
        )
    })
}

pub(super) fn jsd_cmd(a: JsdArgs) -> Result<(), CliError> {
    let (x, y, rec) = two_vectors(&a.samples)?;
    let base = match a.base.as_str() {
        "e" => LogBase::Natural,
        "2" => LogBase::Two,
        other => return Err(CliError::usage(format!("--base takes e or 2, got {other}"))),
    };
    let r = divergence::jsd_with_base(&x, &y, a.bins, base)?;
    Report::new("jsd", &a, None, rec, r).emit(a.out.json, |r| {
        format!(
            "JSD = {} ({:?} log, {} bins); scipy jensenshannon (sqrt) = {}\n",
            fmt_num(r.jsd),
            r.base,
            r.edges.len().saturating_sub(1),
            fmt_num(r.jsd_sqrt)
        )
    })
}

pub(super) fn two_matrices(t: &TwoSamples) -> Result<(input::Input, input::Input), CliError> {
    Ok((input::load("x", &spec(&t.x)?)?, input::load("y", &spec(&t.y)?)?))
}

pub(super) fn mmd_cmd(a: MmdArgs) -> Result<(), CliError> {
    let (x, y) = two_matrices(&a.samples)?;
    let bw: Bandwidth = parse(&a.sigma)?;
    let est = if a.unbiased {
        MmdEstimator::Unbiased
    } else {
        MmdEstimator::Biased
    };
    let r = mmd::mmd(x.matrix.view(), y.matrix.view(), bw, est)?;
    Report::new("mmd", &a, None, vec![x.record, y.record], r).emit(a.out.json, |r| {
        format!(
            "MMD² ({:?}) = {} (sigma {}, n_x {}, n_y {})\n",
            r.estimator,
            fmt_num(r.mmd2),
            fmt_num(r.sigma),
            r.n_x,
            r.n_y
        )
    })
}

pub(super) fn wasserstein_cmd(a: WassersteinArgs) -> Result<(), CliError> {
    let (x, y) = two_matrices(&a.samples)?;
    let r = wasserstein::wasserstein1(x.matrix.view(), y.matrix.view())?;
    Report::new("wasserstein", &a, None, vec![x.record, y.record], r).emit(a.out.json, |r| {
        format!(
            "Wasserstein-1 = {} ({}, n_x {}, n_y {})\n",
            fmt_num(r.distance),
            r.method,
            r.n_x,
            r.n_y
        )
    })
}
