//! The subcommands: argument definitions, loading, calling the core, printing.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use lethe::backend::Precision;
use lethe::competition::{self, Accuracies, CompetitionParams, EpsMax, Variant};
use lethe::divergence::{self, LogBase};
use lethe::hsic::{self, HsicTestParams};
use lethe::kernel::Bandwidth;
use lethe::leakage::{self, LeakageParams, SdMethod, Sidedness};
use lethe::mann_whitney;
use lethe::mmd::{self, MmdEstimator};
use lethe::ruler::{self, RulerInputs, TieRule};
use lethe::sde::{self, SdeParams, Split};
use lethe::wilcoxon::{self, WilcoxonParams, ZeroMethod};
use lethe::{Alternative, Matrix, PValueMethod, rouge, wasserstein};
use serde::Serialize;

use crate::CliError;
use crate::input::{self, InputRecord, InputSpec, RowSpec};
use crate::report::{Report, fmt_num};

#[derive(Parser)]
#[command(
    name = "lethe",
    version,
    about = "Machine-unlearning and membership evaluation statistics (SDE/HSIC, RULER, NeurIPS 2023 epsilon, leakage bounds)",
    after_help = "Inputs are PATH[#TENSOR][@ROWS]: ROWS is a..b, i,j,k, an index file, or FILE==VALUE (a split \
                  column). See docs/cli.md."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Show a file's format, arrays, dtypes and shapes (reads headers only)
    Inspect(InspectArgs),
    /// HSIC between paired rows of two inputs, with a permutation test
    Hsic(HsicArgs),
    /// Split-half dependence evaluation (SDE): in/out-of-training verdicts, OTR, F1, baselines
    Sde(SdeArgs),
    /// SDE beyond the paper: calibrated verdicts from exact shuffle means over pooled references, with diagnostics
    Calibrate(CalibrateArgs),
    /// RULER representation-level metrics (m1–m4), with Wilcoxon + Benjamini–Hochberg across runs
    Ruler(RulerArgs),
    /// NeurIPS 2023 unlearning competition: per-example epsilon, forget score, final score
    Epsilon(EpsilonArgs),
    /// Leakage bounds on scores in [0, 1]: M_bin, M_gen(x), expectation/SD bounds, ED score, sample size
    Bounds(BoundsArgs),
    /// ROUGE-L of generations (one per line) against a reference, optionally with leakage bounds
    Rouge(RougeArgs),
    /// Mann–Whitney U test (as scipy.stats.mannwhitneyu)
    Mwu(MwuArgs),
    /// Wilcoxon signed-rank test (as scipy.stats.wilcoxon) with the rank-biserial effect size
    Wilcoxon(WilcoxonArgs),
    /// Jensen–Shannon divergence of two samples' histograms on shared bins
    Jsd(JsdArgs),
    /// Maximum mean discrepancy between two sets of rows
    Mmd(MmdArgs),
    /// Exact Wasserstein-1 distance between two sets of rows
    Wasserstein(WassersteinArgs),
}

#[derive(Args)]
pub struct Out {
    /// Print the JSON report (schema in docs/cli.md) instead of a summary
    #[arg(long)]
    json: bool,
}

/// `--in-place`: how `sde` and `calibrate` hold their matrix inputs. Not part of the report's parameters: the
/// result is the same, bit for bit, loaded or read in place.
#[derive(Args)]
pub struct InPlaceArg {
    /// Read large inputs in place from their files, a panel of columns at a time (memory: the kernels and a few MB,
    /// whatever the number of columns), instead of loading them: auto (when the rows used take more than 64 MiB),
    /// always, never
    #[arg(long = "in-place", value_enum, value_name = "WHEN", default_value = "auto")]
    in_place: input::InPlace,
}

/// `--threads N`: native threads for commands that evaluate many independent subsets or shuffles. Not part of
/// the report's parameters: the result is the same, bit for bit, for every N.
#[derive(Args)]
pub struct Threads {
    /// Threads that evaluate subsets (sde, calibrate) or shuffles (hsic) [default: the CPUs this process may use]
    #[arg(long, value_name = "N", value_parser = thread_count)]
    threads: Option<usize>,
}

impl Threads {
    fn count(&self) -> Result<usize, CliError> {
        Ok(self.threads.unwrap_or_else(lethe::parallel::available_threads))
    }
}

/// `--threads`: a whole number, at least 1.
fn thread_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("--threads must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("--threads takes a whole number of threads, at least 1".into()),
    }
}

/// A value parser that checks an option's text with the core's own parser (so a bad value is a usage error, exit
/// status 2, before anything is loaded) and keeps the text as typed: the report's parameters record it so.
fn checked<T: std::str::FromStr<Err = lethe::Error>>(s: &str) -> Result<String, String> {
    s.parse::<T>().map(|_| s.to_string()).map_err(|e| e.to_string())
}

/// `--base`: e or 2.
fn log_base(s: &str) -> Result<String, String> {
    match s {
        "e" | "2" => Ok(s.to_string()),
        _ => Err("the logarithm base is e or 2".into()),
    }
}

/// `--eps-max`: `official` or a number.
fn eps_max_arg(s: &str) -> Result<String, String> {
    if s == "official" || s.parse::<f64>().is_ok_and(|v| !v.is_nan()) {
        Ok(s.to_string())
    } else {
        Err("--eps-max takes `official` or a number".into())
    }
}

/// `--backend cpu|gpu` (sde, hsic).
#[derive(Args, Serialize)]
pub struct BackendChoice {
    /// Compute backend: cpu, or gpu (lethe-gpu through wgpu: Vulkan or GL; f32 only, one device, no --threads)
    #[arg(long, value_enum, default_value = "cpu")]
    // Recorded in the report's parameters only when it is the GPU: CPU reports keep the parameters the widget's
    // reports mirror (tests/browser/cli_parity.test.mjs).
    #[serde(skip_serializing_if = "BackendArg::is_cpu")]
    backend: BackendArg,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
enum BackendArg {
    Cpu,
    Gpu,
}

impl BackendArg {
    fn is_cpu(&self) -> bool {
        *self == BackendArg::Cpu
    }
}

impl BackendChoice {
    fn gpu(&self) -> bool {
        self.backend == BackendArg::Gpu
    }

    /// The storage precision for this backend, written back into `precision` so that the report's parameters
    /// show what ran: f64 by default on the CPU, f32 (its only precision) on the GPU.
    fn precision(&self, precision: &mut Option<String>) -> Result<lethe::backend::Precision, CliError> {
        let p = match (self.backend, precision.as_deref()) {
            (BackendArg::Gpu, Some("f64")) => {
                return Err(CliError::usage(
                    "--backend gpu computes in f32 only (WebGPU and Lethe's shaders have no f64): drop \
                     --precision f64, or use --backend cpu",
                ));
            }
            (BackendArg::Gpu, _) => "f32".to_string(),
            (BackendArg::Cpu, p) => p.unwrap_or("f64").to_string(),
        };
        let parsed = parse(&p)?;
        *precision = Some(p);
        Ok(parsed)
    }
}

/// Runs `f` on the GPU backend: the adapter Lethe finds first (WGPU_BACKEND, e.g. `vulkan`, narrows the search).
#[cfg(feature = "gpu")]
fn on_gpu<R>(f: impl FnOnce(&mut lethe_gpu::GpuBackend) -> lethe::Result<R>) -> Result<R, CliError> {
    let mut gpu = pollster::block_on(lethe_gpu::GpuBackend::request(&lethe_gpu::GpuOptions::default()))
        .map_err(|e| CliError::msg(format!("--backend gpu: {e}")))?;
    f(&mut gpu).map_err(|e| CliError::msg(format!("--backend gpu: {e}")))
}

#[cfg(not(feature = "gpu"))]
fn on_gpu<R>(_: impl FnOnce(&mut NoGpu) -> lethe::Result<R>) -> Result<R, CliError> {
    Err(CliError::msg(
        "--backend gpu: this lethe was built without the `gpu` feature (cargo build -p lethe-cli --features gpu)",
    ))
}

/// Stands in for the GPU backend in a build without it (never constructed).
#[cfg(not(feature = "gpu"))]
type NoGpu = lethe::backend::CpuBackend;

#[cfg(feature = "gpu")]
use pollster::block_on;

/// Without the GPU there is nothing to wait for ([`on_gpu`] calls nothing): a plain poll loop.
#[cfg(not(feature = "gpu"))]
fn block_on<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

/// The human output's line about the backend, for GPU runs (CPU runs print none, as before).
fn backend_line(info: &lethe::backend::BackendInfo) -> String {
    let precision = match info.precision {
        lethe::backend::Precision::F32 => "f32",
        lethe::backend::Precision::F64 => "f64",
    };
    format!("backend: GPU ({}, {precision}): {}\n", info.name, info.device)
}

#[derive(Args)]
pub struct InspectArgs {
    file: PathBuf,
    #[command(flatten)]
    out: Out,
}

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

/// An input spec kept as text for clap and the report, parsed on use.
type InputSpecArg = String;

fn spec(s: &str) -> Result<InputSpec, CliError> {
    s.parse()
        .map_err(|e: String| CliError::usage(format!("bad input `{s}`: {e}")))
}

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
enum SplitArg {
    First,
    Random,
}

#[derive(Args, Serialize)]
pub struct RulerArgs {
    /// Unlearned model's embeddings of all rows (repeat once per run)
    #[arg(long, required = true)]
    unlearned: Vec<InputSpecArg>,
    /// Retrain oracle's embeddings (same rows; one per run)
    #[arg(long)]
    oracle: Vec<InputSpecArg>,
    /// Original model's embeddings (same rows; one per run; enables m3)
    #[arg(long)]
    original: Vec<InputSpecArg>,
    /// Forget rows (a..b, i,j,k, or an index file), applied to every model file
    #[arg(long)]
    forget: String,
    /// Retain rows, applied to every model file
    #[arg(long)]
    retain: String,
    #[arg(long, value_enum, default_value = "at-most")]
    ties: TiesArg,
    /// FDR level of the Benjamini–Hochberg correction across metrics (several runs)
    #[arg(long, default_value_t = 0.05)]
    fdr: f64,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Clone, Copy, ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
enum TiesArg {
    AtMost,
    Half,
}

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
enum VariantArg {
    Official,
    Exhaustive,
    ClopperPearson,
    All,
}

#[derive(Args, Serialize)]
pub struct BoundArgs {
    /// Significance level (two-sided unless --one-sided)
    #[arg(long, default_value_t = leakage::DEFAULT_ALPHA)]
    alpha: f64,
    /// Spend alpha one-sided for M_bin and M_gen (the paper's form; the default is conbo's two-sided)
    #[arg(long)]
    one_sided: bool,
    /// Points x for M_gen(x) (repeatable)
    #[arg(long = "x")]
    x: Vec<f64>,
    #[arg(long, default_value_t = leakage::DEFAULT_STEPSIZE)]
    stepsize: usize,
    #[arg(long, value_enum, default_value = "conbo")]
    sd_method: SdMethodArg,
    /// Count the mass at 0 in the first cell (perbin and lp)
    #[arg(long)]
    atom_at_zero: bool,
    #[arg(long, default_value_t = leakage::DEFAULT_RHO)]
    rho: f64,
    /// Half-width asked of the sample-size planner
    #[arg(long, default_value_t = 0.05)]
    plan_width: f64,
}

#[derive(Clone, Copy, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
enum SdMethodArg {
    Conbo,
    Perbin,
    Lp,
}

impl BoundArgs {
    fn params(&self) -> LeakageParams {
        let method = match self.sd_method {
            SdMethodArg::Conbo => SdMethod::Conbo,
            SdMethodArg::Perbin => SdMethod::PerBin {
                atom_at_zero: self.atom_at_zero,
            },
            SdMethodArg::Lp => SdMethod::Lp {
                atom_at_zero: self.atom_at_zero,
            },
        };
        let d = LeakageParams::default();
        LeakageParams {
            alpha: self.alpha,
            sidedness: if self.one_sided {
                Sidedness::OneSided
            } else {
                Sidedness::TwoSided
            },
            x: if self.x.is_empty() { d.x } else { self.x.clone() },
            stepsize: self.stepsize,
            sd_method: method,
            rho: self.rho,
            plan_width: self.plan_width,
        }
    }
}

#[derive(Args, Serialize)]
pub struct BoundsArgs {
    /// Scores in [0, 1] (or 0/1 leak flags): a 1-D file
    scores: InputSpecArg,
    #[command(flatten)]
    bounds: BoundArgs,
    #[command(flatten)]
    #[serde(skip)]
    out: Out,
}

#[derive(Args, Serialize)]
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
    /// Porter-stem tokens (rouge-score's use_stemmer=True)
    #[arg(long)]
    stemmer: bool,
    /// Also compute the leakage bounds on the per-generation ROUGE-L F-measures
    #[arg(long)]
    bounds: bool,
    #[command(flatten)]
    bound_args: BoundArgs,
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

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Inspect(a) => inspect(a),
        Command::Hsic(a) => hsic_cmd(a),
        Command::Sde(a) => sde_cmd(a),
        Command::Calibrate(a) => calibrate_cmd(a),
        Command::Ruler(a) => ruler_cmd(a),
        Command::Epsilon(a) => epsilon_cmd(a),
        Command::Bounds(a) => bounds_cmd(a),
        Command::Rouge(a) => rouge_cmd(a),
        Command::Mwu(a) => mwu_cmd(a),
        Command::Wilcoxon(a) => wilcoxon_cmd(a),
        Command::Jsd(a) => jsd_cmd(a),
        Command::Mmd(a) => mmd_cmd(a),
        Command::Wasserstein(a) => wasserstein_cmd(a),
    }
}

fn parse<T: std::str::FromStr<Err = lethe::Error>>(s: &str) -> Result<T, CliError> {
    s.parse().map_err(CliError::from)
}

fn inspect(a: InspectArgs) -> Result<(), CliError> {
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

fn hsic_cmd(mut a: HsicArgs) -> Result<(), CliError> {
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

/// Positions of the targets drawn from a pool of `rows` rows (`lethe::sde::draw_targets`: the seed offset depends
/// on the label).
fn draw_targets(
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

fn sde_cmd(a: SdeArgs) -> Result<(), CliError> {
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
fn sde_run<T: lethe::data::Scalar>(mut a: SdeArgs) -> Result<(), CliError> {
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
fn row_spec(flag: &str, s: &str) -> Result<RowSpec, CliError> {
    s.parse()
        .map_err(|e: String| CliError::usage(format!("bad rows `{s}` for --{flag}: {e}")))
}

/// The rows of `data` (loaded from `path`) that a row argument selects, and the record of the index or split file
/// they came from (as `lethe ruler` records its forget/retain files).
fn rows_of(
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

fn calibrate_cmd(a: CalibrateArgs) -> Result<(), CliError> {
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

#[derive(Serialize)]
struct RulerOutput {
    runs: Vec<ruler::RulerReport>,
    /// Wilcoxon signed-rank of each metric against its null across runs, BH-adjusted (two or more runs).
    across_runs: Vec<ruler::MetricAcrossRuns>,
    warnings: Vec<String>,
}

fn ruler_cmd(a: RulerArgs) -> Result<(), CliError> {
    let runs = a.unlearned.len();
    for (flag, v) in [("--oracle", &a.oracle), ("--original", &a.original)] {
        if !v.is_empty() && v.len() != runs {
            return Err(CliError::usage(format!(
                "{flag} was given {} times but --unlearned {runs} times; give one per run",
                v.len()
            )));
        }
    }
    let forget_spec = row_spec("forget", &a.forget)?;
    let retain_spec = row_spec("retain", &a.retain)?;
    let tie = match a.ties {
        TiesArg::AtMost => TieRule::AtMost,
        TiesArg::Half => TieRule::Half,
    };
    let mut records = Vec::new();
    let mut reports = Vec::new();
    // The forget and retain rows, resolved against the first model file's row count (a range is checked before
    // it is expanded); every model file is then checked against them as it is loaded. Their index or split files
    // are recorded after the models' records, as the widget records them.
    let mut row_sets: Option<[(Vec<usize>, Option<InputRecord>); 2]> = None;
    for k in 0..runs {
        let mut load = |role: &str, s: &str| -> Result<(Matrix, Matrix, InputRecord), CliError> {
            let inp = input::load(role, &spec(s)?)?;
            if row_sets.is_none() {
                let (n, path) = (inp.matrix.rows() as u64, std::path::Path::new(&inp.record.path));
                let set = |role: &str, spec: &RowSpec| -> Result<(Vec<usize>, Option<InputRecord>), CliError> {
                    let (rows, file) = input::resolve_rows(role, spec, Some((n, path)), n)?;
                    let record = file.map(|d| input::row_file_record(role, spec, d, rows.len()));
                    Ok((rows, record))
                };
                row_sets = Some([set("forget", &forget_spec)?, set("retain", &retain_spec)?]);
            }
            let [(forget, _), (retain, _)] = row_sets.as_ref().ok_or_else(|| CliError::msg("internal error"))?;
            let f = inp.matrix.select_rows(forget, &format!("{role} (forget rows)"))?;
            let r = inp.matrix.select_rows(retain, &format!("{role} (retain rows)"))?;
            Ok((f, r, inp.record))
        };
        let (uf, ur, rec) = load("unlearned", &a.unlearned[k])?;
        records.push(rec);
        let oracle = a.oracle.get(k).map(|s| load("oracle", s)).transpose()?;
        let original = a.original.get(k).map(|s| load("original", s)).transpose()?;
        let inputs = RulerInputs {
            unlearned_forget: uf.view(),
            unlearned_retain: ur.view(),
            oracle_forget: oracle.as_ref().map(|o| o.0.view()),
            oracle_retain: oracle.as_ref().map(|o| o.1.view()),
            original_forget: original.as_ref().map(|o| o.0.view()),
        };
        reports.push(ruler::all_metrics(&inputs, tie)?);
        records.extend(oracle.map(|o| o.2));
        records.extend(original.map(|o| o.2));
    }
    records.extend(row_sets.into_iter().flatten().filter_map(|(_, record)| record));
    let (across, warnings) = if runs >= 2 {
        ruler::across_runs(&reports, a.fdr)?
    } else {
        (Vec::new(), Vec::new())
    };
    let out = RulerOutput {
        runs: reports,
        across_runs: across,
        warnings,
    };
    Report::new("ruler", &a, None, records, out).emit(a.out.json, |o| {
        let mut s = String::new();
        let opt = |v: Option<f64>| v.map_or("-".to_string(), fmt_num);
        for (k, r) in o.runs.iter().enumerate() {
            let m4 = &r.nn_percentile_rank;
            let _ = writeln!(
                s,
                "run {k}: m1 oracle similarity {}  m2 calibration gap {} (null 0)  m3 shift {} (null 0)  m4 NN rank {} (null 0.5 ± {} sd)  [{} forget, {} retain]",
                opt(r.oracle_similarity),
                opt(r.calibration_gap),
                opt(r.representation_shift),
                fmt_num(m4.value),
                fmt_num(m4.null_sd),
                r.n_forget,
                r.n_retain
            );
        }
        for m in &o.across_runs {
            let _ = writeln!(
                s,
                "{} across {} runs vs null {}: Wilcoxon p = {}, BH-adjusted {} ({})",
                m.metric,
                m.values.len(),
                m.null,
                fmt_num(m.wilcoxon.p_value),
                fmt_num(m.p_adjusted),
                if m.reject { "significant" } else { "not significant" }
            );
        }
        for w in &o.warnings {
            let _ = writeln!(s, "warning: {w}");
        }
        s
    })
}

#[derive(Serialize)]
struct EpsilonOutput {
    results: Vec<competition::CompetitionResult>,
    final_scores: Vec<Option<f64>>,
}

fn logit_confidences(role: &str, s: &str, labels: &[usize]) -> Result<(Matrix, InputRecord), CliError> {
    let inp = input::load(role, &spec(s)?)?;
    let conf = competition::logit_scaled_confidences(inp.matrix.view(), labels)
        .map_err(|e| CliError::input(role, std::path::Path::new(&inp.record.path), e))?;
    Ok((conf, inp.record))
}

fn epsilon_cmd(a: EpsilonArgs) -> Result<(), CliError> {
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

fn bounds_human(r: &leakage::LeakageReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "n = {} scores (alpha = {}, {:?})",
        r.n, r.params.alpha, r.params.sidedness
    );
    if let Some(b) = &r.binary {
        let _ = writeln!(
            s,
            "M_bin: {} leaks of {} → leak probability ≤ {}",
            b.leaks,
            b.n,
            fmt_num(b.upper)
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
    for w in &r.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    s
}

fn bounds_cmd(a: BoundsArgs) -> Result<(), CliError> {
    let (scores, rec) = input::load_vector("scores", &spec(&a.scores)?)?;
    let r = leakage::report(&scores, &a.bounds.params())?;
    Report::new("bounds", &a, None, vec![rec], r).emit(a.out.json, bounds_human)
}

#[derive(Serialize)]
struct RougeOutput {
    scores: rouge::RougeBatch,
    bounds: Option<leakage::LeakageReport>,
}

fn rouge_cmd(a: RougeArgs) -> Result<(), CliError> {
    let (preds, pd) = input::read_lines("predictions", &a.predictions)?;
    let mut records = vec![file_record("predictions", pd, preds.len())];
    let refs: Vec<String> = match (&a.reference, &a.reference_text) {
        (Some(p), None) => {
            let (r, d) = input::read_lines("reference", p)?;
            records.push(file_record("reference", d, r.len()));
            r
        }
        (None, Some(t)) => vec![t.clone()],
        _ => return Err(CliError::usage("give --reference FILE or --reference-text TEXT")),
    };
    let scores = match refs.len() {
        1 => rouge::rouge_l_against(&refs[0], &preds, a.stemmer),
        n if n == preds.len() => rouge::rouge_l_pairs(&refs, &preds, a.stemmer)?,
        n => {
            return Err(CliError::msg(format!(
                "the reference file has {n} lines and the predictions {}: give one reference line per prediction, or one for all",
                preds.len()
            )));
        }
    };
    let bounds = if a.bounds {
        Some(leakage::report(&scores.fmeasure, &a.bound_args.params())?)
    } else {
        None
    };
    let out = RougeOutput { scores, bounds };
    Report::new("rouge", &a, None, records, out).emit(a.out.json, |o| {
        let f = &o.scores.fmeasure;
        let mean = f.iter().sum::<f64>() / f.len() as f64;
        let mut s = format!(
            "ROUGE-L F-measure: mean {} over {} generations (max {})\n",
            fmt_num(mean),
            f.len(),
            fmt_num(f.iter().copied().fold(0.0, f64::max))
        );
        if let Some(b) = &o.bounds {
            s.push_str(&bounds_human(b));
        }
        s
    })
}

fn file_record(role: &str, d: input::FileDigest, rows: usize) -> InputRecord {
    InputRecord {
        role: role.into(),
        spec: d.path.clone(),
        path: d.path,
        sha256: d.sha256,
        format: "text".into(),
        dtype: "utf-8 lines".into(),
        shape: vec![rows as u64],
        tensor: None,
        rows_used: rows,
        row_file: None,
    }
}

/// Two 1-D samples and their input records.
type TwoVectors = (Vec<f64>, Vec<f64>, Vec<InputRecord>);

fn two_vectors(t: &TwoSamples) -> Result<TwoVectors, CliError> {
    let (x, rx) = input::load_vector("x", &spec(&t.x)?)?;
    let (y, ry) = input::load_vector("y", &spec(&t.y)?)?;
    Ok((x, y, vec![rx, ry]))
}

fn mwu_cmd(a: MwuArgs) -> Result<(), CliError> {
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
struct WilcoxonOutput {
    test: wilcoxon::WilcoxonResult,
    rank_biserial: Option<f64>,
}

fn wilcoxon_cmd(a: WilcoxonArgs) -> Result<(), CliError> {
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

fn jsd_cmd(a: JsdArgs) -> Result<(), CliError> {
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

fn two_matrices(t: &TwoSamples) -> Result<(input::Input, input::Input), CliError> {
    Ok((input::load("x", &spec(&t.x)?)?, input::load("y", &spec(&t.y)?)?))
}

fn mmd_cmd(a: MmdArgs) -> Result<(), CliError> {
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

fn wasserstein_cmd(a: WassersteinArgs) -> Result<(), CliError> {
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
