//! The statistics on their own: inspect, hsic, mwu, wilcoxon, jsd, mmd, wasserstein. Each maps its arguments to a
//! request of the analysis layer (`lethe_analysis::analyses`), which loads and checks the inputs, computes and
//! returns one report; this module prints it.
//!
//! File arguments are taken as the operating system gives them (`OsString`), so a file whose name is not UTF-8
//! can be named.

use std::ffi::{OsStr, OsString};

use lethe::progress::Silent;
use lethe_analysis::Workspace;
use lethe_analysis::analyses::{
    self as layer, HsicRequest, InspectRequest, JsdRequest, KsRequest, MmdRequest, MwuRequest, WassersteinRequest,
    WilcoxonRequest,
};

use super::*;
use crate::report::{emit_report, layer_error, word};

/// An input argument: PATH[#TENSOR][@ROWS].
type InputArg = OsString;

#[derive(Args)]
pub struct HsicArgs {
    /// First input, PATH[#TENSOR][@ROWS]
    x: InputArg,
    /// Second input, paired with the first row by row
    y: InputArg,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: HsicRequest,
    #[command(flatten)]
    backend: BackendChoice,
    #[command(flatten)]
    threads: Threads,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct TwoSamples {
    /// First sample, PATH[#TENSOR][@ROWS]
    x: InputArg,
    /// Second sample, PATH[#TENSOR][@ROWS]
    y: InputArg,
}

#[derive(Args)]
pub struct MwuArgs {
    #[command(flatten)]
    samples: TwoSamples,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: MwuRequest,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct KsArgs {
    #[command(flatten)]
    samples: TwoSamples,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: KsRequest,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct WilcoxonArgs {
    /// First sample (or the differences), PATH[#TENSOR][@ROWS]
    x: InputArg,
    /// Paired second sample (differences x − y); without it, x are the differences
    y: Option<InputArg>,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: WilcoxonRequest,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct JsdArgs {
    #[command(flatten)]
    samples: TwoSamples,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: JsdRequest,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct MmdArgs {
    #[command(flatten)]
    samples: TwoSamples,
    // The options, declared once on the layer's request (its `clap::Args`).
    #[command(flatten)]
    options: MmdRequest,
    #[command(flatten)]
    out: Out,
}

#[derive(Args)]
pub struct WassersteinArgs {
    #[command(flatten)]
    samples: TwoSamples,
    #[command(flatten)]
    out: Out,
}

/// A workspace for one command: files on disk, each hashed for the report whatever its size.
fn workspace() -> Workspace {
    let mut ws = Workspace::new();
    ws.set_hash_all(true);
    ws
}

/// The files a command's arguments name, by role, for error messages: the path of each argument as parsed.
struct Files(Vec<(&'static str, String)>);

impl Files {
    fn new(args: &[(&'static str, &OsStr)]) -> Self {
        Self(
            args.iter()
                .map(|(role, arg)| {
                    let shown = arg.to_string_lossy().into_owned();
                    let path = arg
                        .to_str()
                        .and_then(|s| lethe_analysis::spec::parse_input(s, &lethe_analysis::spec::is_file).ok())
                        .map_or(shown, |spec| spec.path.display().to_string());
                    (*role, path)
                })
                .collect(),
        )
    }

    /// An error of the analysis layer, naming the file of the role it concerns.
    fn error(&self, e: lethe_analysis::Error) -> CliError {
        let files: Vec<(&str, &str)> = self.0.iter().map(|(r, p)| (*r, p.as_str())).collect();
        layer_error(e, &files)
    }
}

pub(super) fn inspect(a: InspectArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let files = Files::new(&[("file", a.file.as_os_str())]);
    let source = ws.add_path("file", &a.file).map_err(|e| files.error(e))?;
    let req = InspectRequest { source: Some(source) };
    let report = layer::run_inspect(&mut ws, &req).map_err(|e| files.error(e))?;
    emit_report(&report, a.out.json, |info| {
        let mut s = format!("{}: {:?}, {} bytes\n", info.input, info.format, info.file_size);
        for arr in &info.arrays {
            s.push_str(&format!(
                "  {:<20} {:<10} shape {:?}{}\n",
                arr.name.as_deref().unwrap_or("-"),
                arr.dtype,
                arr.shape,
                arr.problem.as_ref().map(|p| format!("  ({p})")).unwrap_or_default()
            ));
        }
        s.push_str(&tool_text(info.tool.as_ref()));
        s
    })
}

/// What a tool's reader makes of the file (issue 14): the summary, its keys and the commands of its offers, or what
/// is almost right.
fn tool_text(tool: Option<&layer::ToolFile>) -> String {
    let Some(tool) = tool else {
        return String::new();
    };
    let mut s = String::new();
    if let Some(p) = &tool.problem {
        s.push_str(&format!("\nnote: {}\n", p.message));
    }
    if let Some(t) = &tool.summary {
        s.push_str(&format!(
            "\nWritten by {} ({})\n  {}\n",
            t.tool.label(),
            t.kind,
            t.description
        ));
        s.push_str(&format!("  reader follows: {}\n", t.follows));
        if let Some(n) = t.samples {
            s.push_str(&format!("  samples: {n}\n"));
        }
        if !t.models.is_empty() {
            s.push_str(&format!("  models: {}\n", t.models.join(", ")));
        }
        s.push_str("  holds (PATH#KEY):\n");
        for e in &t.entries {
            let key = if e.key.contains('#') {
                e.key.clone()
            } else {
                format!("#{}", e.key)
            };
            s.push_str(&format!("    {key:<23} {:<10} {}\n", format!("{:?}", e.shape), e.what));
        }
        if !t.offers.is_empty() {
            s.push_str("  offers:\n");
            for o in &t.offers {
                s.push_str(&format!("    {}\n      {}\n", o.label, o.cli));
            }
        }
        for w in &t.warnings {
            s.push_str(&format!("  note: {w}\n"));
        }
    }
    s
}

pub(super) fn hsic_cmd(mut a: HsicArgs) -> Result<(), CliError> {
    a.backend.precision(&mut a.options.precision)?;
    let mut ws = workspace();
    let files = Files::new(&[("x", &a.x), ("y", &a.y)]);
    let gpu = a.backend.gpu();
    let req = HsicRequest {
        x: Some(ws.input_arg_os("x", &a.x).map_err(|e| files.error(e))?),
        y: Some(ws.input_arg_os("y", &a.y).map_err(|e| files.error(e))?),
        backend: if gpu { "gpu" } else { "cpu" }.into(),
        ..a.options
    };
    let job = layer::prepare_hsic(&mut ws, &req).map_err(|e| files.error(e))?;
    let report = if job.gpu() {
        let mut backend = gpu_backend()?;
        block_on(job.run_on(&mut backend, &mut Silent)).map_err(|e| gpu_error(e, |e| files.error(e)))?
    } else {
        job.run_threaded(a.threads.count()?, &mut |_| true)
            .map_err(|e| files.error(e))?
    };
    emit_report(&report, a.out.json, |r| {
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

/// The two samples of a command as request inputs, with the files they name.
fn two_inputs(
    ws: &mut Workspace,
    t: &TwoSamples,
) -> Result<
    (
        Option<lethe_analysis::InputRef>,
        Option<lethe_analysis::InputRef>,
        Files,
    ),
    CliError,
> {
    let files = Files::new(&[("x", &t.x), ("y", &t.y)]);
    let x = ws.input_arg_os("x", &t.x).map_err(|e| files.error(e))?;
    let y = ws.input_arg_os("y", &t.y).map_err(|e| files.error(e))?;
    Ok((Some(x), Some(y), files))
}

/// A number of the summary line, or `-` where the test gives none (NaN on all-tied or all-zero data: the headline
/// above it says why), as the JSON report's `null`.
fn number_or_none(v: f64) -> String {
    if v.is_finite() { fmt_num(v) } else { "-".into() }
}

pub(super) fn mwu_cmd(a: MwuArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let (x, y, files) = two_inputs(&mut ws, &a.samples)?;
    let req = MwuRequest { x, y, ..a.options };
    let report = layer::run_mwu(&mut ws, &req).map_err(|e| files.error(e))?;
    emit_report(&report, a.out.json, |r| {
        format!(
            "Mann–Whitney U = {} ({}, {}): p = {}; rank-biserial r = {}\n",
            fmt_num(r.statistic),
            word(&r.alternative),
            word(&r.method_used),
            number_or_none(r.p_value),
            fmt_num(r.rank_biserial)
        )
    })
}

pub(super) fn ks_cmd(a: KsArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let (x, y, files) = two_inputs(&mut ws, &a.samples)?;
    let req = KsRequest { x, y, ..a.options };
    let report = layer::run_ks(&mut ws, &req).map_err(|e| files.error(e))?;
    emit_report(&report, a.out.json, |r| {
        format!(
            "Kolmogorov–Smirnov D = {} ({}, {}): p = {}; n1 = {}, n2 = {}\n",
            fmt_num(r.test.statistic),
            word(&r.test.alternative),
            word(&r.test.method_used),
            number_or_none(r.test.pvalue),
            r.test.n1,
            r.test.n2
        )
    })
}

pub(super) fn wilcoxon_cmd(a: WilcoxonArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let mut named = vec![("x", a.x.as_os_str())];
    named.extend(a.y.as_deref().map(|y| ("y", y)));
    let files = Files::new(&named);
    let x = ws.input_arg_os("x", &a.x).map_err(|e| files.error(e))?;
    let y = match &a.y {
        Some(y) => Some(ws.input_arg_os("y", y).map_err(|e| files.error(e))?),
        None => None,
    };
    let req = WilcoxonRequest {
        x: Some(x),
        y,
        ..a.options
    };
    let report = layer::run_wilcoxon(&mut ws, &req).map_err(|e| files.error(e))?;
    emit_report(&report, a.out.json, |o| {
        format!(
            "Wilcoxon signed-rank: statistic {}, p = {} ({}, n used {}, zeros {}); rank-biserial {}\n",
            fmt_num(o.test.statistic),
            number_or_none(o.test.p_value),
            word(&o.test.method_used),
            o.test.n_used,
            o.test.n_zero,
            o.rank_biserial.map_or("-".into(), fmt_num)
        )
    })
}

pub(super) fn jsd_cmd(a: JsdArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let (x, y, files) = two_inputs(&mut ws, &a.samples)?;
    let req = JsdRequest { x, y, ..a.options };
    let report = layer::run_jsd(&mut ws, &req).map_err(|e| files.error(e))?;
    emit_report(&report, a.out.json, |r| {
        format!(
            "JSD = {} ({}, {} bins); scipy jensenshannon (sqrt) = {}\n",
            fmt_num(r.jsd),
            match word(&r.base).as_str() {
                "natural" => "natural log".to_string(),
                "two" => "log base 2".to_string(),
                other => format!("log base {other}"),
            },
            r.edges.len().saturating_sub(1),
            fmt_num(r.jsd_sqrt)
        )
    })
}

pub(super) fn mmd_cmd(a: MmdArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let (x, y, files) = two_inputs(&mut ws, &a.samples)?;
    let req = MmdRequest { x, y, ..a.options };
    let report = layer::run_mmd(&mut ws, &req).map_err(|e| files.error(e))?;
    emit_report(&report, a.out.json, |r| {
        format!(
            "MMD² ({}) = {} (sigma {}, n_x {}, n_y {})\n",
            word(&r.estimator),
            fmt_num(r.mmd2),
            fmt_num(r.sigma),
            r.n_x,
            r.n_y
        )
    })
}

pub(super) fn wasserstein_cmd(a: WassersteinArgs) -> Result<(), CliError> {
    let mut ws = workspace();
    let (x, y, files) = two_inputs(&mut ws, &a.samples)?;
    let req = WassersteinRequest { x, y };
    let report = layer::run_wasserstein(&mut ws, &req).map_err(|e| files.error(e))?;
    emit_report(&report, a.out.json, |r| {
        format!(
            "Wasserstein-1 = {} ({}, n_x {}, n_y {})\n",
            fmt_num(r.distance),
            r.method,
            r.n_x,
            r.n_y
        )
    })
}
