//! The subcommands: argument definitions, loading, calling the core, printing.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use lethe::competition;
use lethe::leakage;
use lethe::sde;
use serde::Serialize;

use crate::CliError;
use crate::report::fmt_num;

mod batch;
mod bounds;
mod compare_cmd;
mod eps_audit;
mod epsilon;
mod lira;
mod mia;
mod ruler_cmd;
mod sde_cmd;
mod stats;
mod tools_ou;

use batch::*;
use bounds::*;
use compare_cmd::*;
use eps_audit::*;
use epsilon::*;
use lira::*;
use mia::*;
use ruler_cmd::*;
use sde_cmd::*;
use stats::*;
use tools_ou::*;

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
    // Boxed: its request holds every input the analysis can take (seven of them), the others' far fewer.
    Epsilon(Box<EpsilonArgs>),
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
    /// Two-sample Kolmogorov–Smirnov test (as scipy.stats.ks_2samp), with the smallest difference it can detect
    Ks(KsArgs),
    /// Membership-inference audit of attack scores: exact ROC, AUC with DeLong/bootstrap intervals, TPR at low FPR
    Mia(MiaArgs),
    /// LiRA from shadow-model results (tensorflow/privacy mi_lira_2021's directory, or stacked scores + keep):
    /// online, offline, fixed-variance scores, audited as lethe mia
    Lira(LiraArgs),
    /// Benjamini–Hochberg / Holm / Bonferroni on a file of p-values (statsmodels multipletests' fields)
    Fdr(FdrArgs),
    /// Compare methods across seeds from a runs table: intervals, probability of improvement, corrected tests, a
    /// verdict per comparison, reproduction checks against published values
    Compare(CompareArgs),
    /// Run one shard of a manifest of analyses (one JSON line each); a Slurm job array maps onto --shard I/N
    Batch(BatchArgs),
    /// Merge the outputs of lethe batch into one CSV/JSON table, ordered by cell
    Merge(MergeArgs),
    /// Lower bound on a training run's DP ε from a membership audit: Clopper–Pearson (Bonferroni) or one-run
    #[command(visible_alias = "dp-audit")]
    EpsLower(EpsLowerArgs),
    /// Forget quality as open-unlearning / TOFU compute it: KS test of the unlearned vs the retain model's truth ratios
    ForgetQuality(ForgetQualityArgs),
    /// privleak (open-unlearning's or MUSE's formula) from result files, with a bootstrap interval
    Privleak(PrivleakArgs),
    /// ROUGE-L of the generations an open-unlearning / TOFU result file holds, against their ground truths
    ToolRouge(ToolRougeArgs),
    /// The CLI reference in Markdown, from these definitions (the docs site's page; `./build.sh docs`)
    #[command(hide = true)]
    Reference,
}

#[derive(Args)]
pub struct Out {
    /// Print the JSON report (schema: schema/report.schema.json, described in docs/cli.md) instead of a summary
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
    #[arg(long = "in-place", value_name = "WHEN", default_value = "auto", value_parser = in_place_policy)]
    in_place: lethe_analysis::workspace::InPlacePolicy,
}

/// `--in-place`: auto, always or never (the analysis layer's policy).
fn in_place_policy(s: &str) -> Result<lethe_analysis::workspace::InPlacePolicy, String> {
    s.parse()
        .map_err(|_| format!("`{s}` is not one of auto, always, never"))
}

/// `--threads N`: native threads for commands that evaluate many independent subsets or shuffles. Not part of
/// the report's parameters: the result is the same, bit for bit, for every N.
#[derive(Args)]
pub struct Threads {
    /// Threads that evaluate subsets (sde, calibrate), shuffles (hsic) or bootstrap resamples (mia) [default: the CPUs
    /// this process may use]
    #[arg(long, value_name = "N", value_parser = thread_count)]
    threads: Option<usize>,
}

impl Threads {
    fn count(&self) -> Result<usize, CliError> {
        Ok(self.threads.unwrap_or_else(lethe::parallel::available_threads))
    }
}

/// `--threads`: a whole number, at least 1.
pub(super) fn thread_count(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("--threads must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(_) => Err("--threads takes a whole number of threads, at least 1".into()),
    }
}

/// `--backend cpu|gpu` (hsic; sde's is declared on its request).
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
pub(super) enum BackendArg {
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

/// The GPU backend, for a job of the analysis layer to run on: the adapter Lethe finds first (WGPU_BACKEND, e.g.
/// `vulkan`, narrows the search).
#[cfg(feature = "gpu")]
pub(super) fn gpu_backend() -> Result<lethe_gpu::GpuBackend, CliError> {
    pollster::block_on(lethe_gpu::GpuBackend::request(&lethe_gpu::GpuOptions::default()))
        .map_err(|e| CliError::msg(format!("--backend gpu: {e}")))
}

#[cfg(not(feature = "gpu"))]
pub(super) fn gpu_backend() -> Result<NoGpu, CliError> {
    Err(CliError::msg(
        "--backend gpu: this lethe was built without the `gpu` feature (cargo build -p lethe-cli --features gpu)",
    ))
}

/// An error of a job run on the GPU: the backend's own failures (no adapter, a lost device) say `--backend gpu:`;
/// the others are the request's, mapped by `err` as on the CPU.
pub(super) fn gpu_error(e: lethe_analysis::Error, err: impl Fn(lethe_analysis::Error) -> CliError) -> CliError {
    if e.backend {
        CliError::msg(format!("--backend gpu: {e}"))
    } else {
        err(e)
    }
}

/// Stands in for the GPU backend in a build without it (never constructed).
#[cfg(not(feature = "gpu"))]
type NoGpu = lethe::backend::CpuBackend;

#[cfg(feature = "gpu")]
use pollster::block_on;

/// Without the GPU there is nothing to wait for ([`gpu_backend`] gives none): a plain poll loop.
#[cfg(not(feature = "gpu"))]
pub(super) fn block_on<F: std::future::Future>(f: F) -> F::Output {
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
pub(super) fn backend_line(info: &lethe::backend::BackendInfo) -> String {
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

/// An input spec `PATH[#TENSOR][@ROWS]` as the operating system gives it (a file name need not be UTF-8), parsed on
/// use.
type InputSpecArg = std::ffi::OsString;

pub fn run(cli: Cli) -> Result<(), CliError> {
    match cli.command {
        Command::Inspect(a) => inspect(a),
        Command::Hsic(a) => hsic_cmd(a),
        Command::Sde(a) => sde_cmd(a),
        Command::Calibrate(a) => calibrate_cmd(a),
        Command::Ruler(a) => ruler_cmd(a),
        Command::Epsilon(a) => epsilon_cmd(*a),
        Command::Bounds(a) => bounds_cmd(a),
        Command::Rouge(a) => rouge_cmd(a),
        Command::Mwu(a) => mwu_cmd(a),
        Command::Wilcoxon(a) => wilcoxon_cmd(a),
        Command::Jsd(a) => jsd_cmd(a),
        Command::Mmd(a) => mmd_cmd(a),
        Command::Wasserstein(a) => wasserstein_cmd(a),
        Command::Ks(a) => ks_cmd(a),
        Command::Mia(a) => mia_cmd(a),
        Command::Lira(a) => lira_cmd(a),
        Command::Fdr(a) => fdr_cmd(a),
        Command::Compare(a) => compare_cmd(a),
        Command::Batch(a) => batch_cmd(a),
        Command::Merge(a) => merge_cmd(a),
        Command::EpsLower(a) => eps_lower_cmd(a),
        Command::ForgetQuality(a) => forget_quality_cmd(a),
        Command::Privleak(a) => privleak_cmd(a),
        Command::ToolRouge(a) => tool_rouge_cmd(a),
        Command::Reference => {
            print!(
                "{}",
                crate::reference::markdown(<Cli as clap::CommandFactory>::command())
            );
            Ok(())
        }
    }
}

pub(super) fn parse<T: std::str::FromStr<Err = lethe::Error>>(s: &str) -> Result<T, CliError> {
    s.parse().map_err(CliError::from)
}
