//! The four analyses of the page, each the CLI subcommand's steps (`cli/src/commands.rs`) over workspace inputs:
//! load the inputs as the CLI loads them, call the core, return the core's result unchanged (so the exported JSON's
//! `result` equals `lethe <command> --json`'s), the input records, and plot data computed by the core.
//!
//! Requests carry the CLI's option names and defaults. Nothing here computes a statistic: the glue the CLI has
//! between core calls (target draws with their seed offsets, logits → confidences per model, Wilcoxon + BH of RULER
//! across runs) is repeated line for line, and the browser tests check the results against the CLI's.

use std::rc::Rc;

use lethe::backend::{Backend, CpuBackend, Precision};
use lethe::competition::{self, Accuracies, CompetitionParams, CompetitionResult, EpsMax, Variant};
use lethe::kernel::Bandwidth;
use lethe::leakage::{self, LeakageParams, LeakageReport, SdMethod, Sidedness};
use lethe::progress::{Monitor, Progress};
use lethe::ruler::{self, RulerInputs, RulerReport, TieRule};
use lethe::sde::calibrated::{CalibratedParams, CalibratedReport, TargetRows, calibrated_with};
use lethe::sde::{self, SdeParams, SdeReport, Split};
use lethe::{Matrix, rouge};
use serde::{Deserialize, Serialize};

use crate::error::{WebError, WebResult, named_input};
use crate::parts::{PartSubset, SdePart};
use crate::plots::{self, Histograms};
use crate::rows::Rows;
use crate::workspace::{Held, Input, InputRecord, InputRef, Workspace};

/// The compute backend a request names: `cpu`, or `webgpu` (wasm32 builds with the `gpu` feature; the worker
/// resolves the page's `auto` to one of the two before asking).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    Cpu,
    WebGpu,
}

/// Parses a request's `backend`.
///
/// # Errors
/// Names other than `cpu` and `webgpu`.
pub fn backend_choice(name: &str) -> WebResult<BackendChoice> {
    match name {
        "" | "cpu" => Ok(BackendChoice::Cpu),
        "webgpu" => Ok(BackendChoice::WebGpu),
        other => Err(WebError::msg(format!(
            "backend `{other}` is not one of cpu, webgpu (the page resolves `auto` before a run)"
        ))),
    }
}

fn check_backend(name: &str) -> WebResult<()> {
    backend_choice(name).map(|_| ())
}

fn parse<T: std::str::FromStr<Err = lethe::Error>>(s: &str) -> WebResult<T> {
    s.parse().map_err(WebError::from)
}

/// Attributes a core error to the page control it names (`` `target[3]` `` → `target`, `` `unlearned (forget
/// rows)` `` → `forget`, `` `oracle_retain` `` → `oracle`), when that is one of `roles`.
fn attribute(e: lethe::Error, roles: &[&str]) -> WebError {
    let backend = matches!(e, lethe::Error::Backend(_));
    let message = e.to_string();
    let input = named_input(&message).and_then(|name| {
        let base = name.split('[').next().unwrap_or(name);
        let candidates = [
            if name.contains("(forget rows)") { "forget" } else { "" },
            if name.contains("(retain rows)") { "retain" } else { "" },
            base,
            base.split([' ', '_']).next().unwrap_or(base),
        ];
        candidates
            .into_iter()
            .find(|c| !c.is_empty() && roles.contains(c))
            .map(str::to_string)
    });
    WebError {
        input,
        message,
        backend,
        full: false,
    }
}

/// Loads a 1-D sample as the CLI's `load_vector`: a single column or a single row.
fn load_vector(ws: &mut Workspace, role: &str, r: &InputRef) -> WebResult<(Vec<f64>, InputRecord)> {
    let input = ws.load(role, r)?;
    let m = &input.matrix;
    if m.cols() != 1 && m.rows() != 1 {
        return Err(WebError::at(
            role,
            format!(
                "shape mismatch: this analysis takes a 1-D sample, but the input is {}×{}; pass one column (or select a tensor/column)",
                m.rows(),
                m.cols()
            ),
        ));
    }
    Ok((m.as_slice().to_vec(), input.record.clone()))
}

/// Warnings the loaders attached to inputs (non-finite values, detected headers); the CLI drops them, the page
/// shows them next to the inputs.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LoadWarning {
    pub role: String,
    pub message: String,
}

fn load_warnings(inputs: &[(&str, &Input)]) -> Vec<LoadWarning> {
    inputs
        .iter()
        .flat_map(|(role, i)| {
            i.warnings.iter().map(|w| LoadWarning {
                role: (*role).to_string(),
                message: w.clone(),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------------------- SDE

/// `lethe sde`'s options (same names and defaults) plus the backend.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct SdeRequest {
    pub in_training: Option<InputRef>,
    pub out_of_training: Option<InputRef>,
    pub target: Vec<InputRef>,
    pub target_in: Vec<InputRef>,
    pub target_out: Vec<InputRef>,
    pub draw_from: Option<InputRef>,
    pub draw_in: Option<InputRef>,
    pub draw_out: Option<InputRef>,
    pub draw: usize,
    pub size: Option<usize>,
    pub sigma: String,
    pub shuffles: usize,
    pub seed: u64,
    pub split: String,
    pub bins: usize,
    pub precision: String,
    pub baselines: bool,
    pub backend: String,
    /// One worker's part of a pooled run: the subsets (0, 1: references; 2 + i: target i) to compute. Pooled runs
    /// happen in the full module only (this and `assemble` keep their reading code out of the lean one).
    #[cfg(feature = "full")]
    pub part: Option<Vec<u64>>,
    /// The parts of a pooled run, to assemble into its report.
    #[cfg(feature = "full")]
    pub assemble: Option<Vec<PartSubset>>,
}

impl Default for SdeRequest {
    fn default() -> Self {
        Self {
            in_training: None,
            out_of_training: None,
            target: Vec::new(),
            target_in: Vec::new(),
            target_out: Vec::new(),
            draw_from: None,
            draw_in: None,
            draw_out: None,
            draw: 10,
            size: None,
            sigma: "sqrt_dim".into(),
            shuffles: 200,
            seed: 0,
            split: "first".into(),
            bins: 30,
            precision: "f64".into(),
            baselines: false,
            backend: "cpu".into(),
            #[cfg(feature = "full")]
            part: None,
            #[cfg(feature = "full")]
            assemble: None,
        }
    }
}

const SDE_ROLES: [&str; 8] = [
    "in_training",
    "out_of_training",
    "target",
    "target_in",
    "target_out",
    "draw-from",
    "draw-in",
    "draw-out",
];

/// Whether an input for `role` is opened as SDE and the calibrated verdict open theirs ([`Workspace::open`]: read
/// in place when large), so that a slot's check shows what a run will do.
pub fn opens_in_place(role: &str) -> bool {
    role == "data" || SDE_ROLES.contains(&role)
}

/// One subset of an SDE run: rows of one of the run's inputs (all of them when `rows` is `None`).
struct SubsetDef {
    name: String,
    input: usize,
    /// Rows of the input's source: drawn targets are rows of their pool (never copied out of it), and an input
    /// read in place keeps its own row selection here.
    rows: Option<Vec<usize>>,
    label: Option<bool>,
}

/// An SDE run with its inputs opened (no borrow of the workspace, so the page can add files while it runs).
pub struct SdeJob {
    /// The inputs in the CLI's order: the references, the given targets, the pools; loaded or read in place.
    inputs: Vec<Held>,
    /// Subset 0 the in-training reference, 1 the out-of-training one, 2 + i target i.
    subsets: Vec<SubsetDef>,
    params: SdeParams,
    records: Vec<InputRecord>,
    load_warnings: Vec<LoadWarning>,
}

/// What an SDE run returns to the page.
#[derive(Clone, Debug, Serialize)]
pub struct SdeOutput {
    /// The core's report, as `lethe sde --json` prints under `result`.
    pub result: SdeReport,
    pub seed: u64,
    pub inputs: Vec<InputRecord>,
    pub load_warnings: Vec<LoadWarning>,
    /// Histograms of every distribution on shared edges (the core's `numpy.histogram`); a stopped run's started
    /// but unfinished targets are included (role `target`, after the finished ones, named as in `partial`).
    pub histograms: Option<Histograms>,
    /// For a stopped run (`result.complete == false`): what the shuffles computed so far support.
    pub partial: Option<SdePartial>,
}

/// One subset of a stopped run: how far it got, and its exact moments (closed form over all shuffles, so
/// available however few shuffles were done).
#[derive(Clone, Debug, Serialize)]
pub struct PartialSubset {
    /// `in_training`, `out_of_training`, or the target's name (`target[0]`, `draw-in[3]`, ...).
    pub name: String,
    pub shuffles_done: usize,
    pub shuffles_planned: usize,
    pub complete: bool,
    pub moments: sde::ShuffleMoments,
}

/// The paper's rule and the Mann–Whitney test of a target on the shuffles done so far — of the target and of
/// both references (each a prefix of the stream the full run would draw). Not the full run's result: with more
/// shuffles the histograms, and so the JSDs and the verdict, can change.
#[derive(Clone, Debug, Serialize)]
pub struct PartialTarget {
    pub name: String,
    pub label: Option<bool>,
    pub shuffles_done: usize,
    pub complete: bool,
    pub verdict: sde::Verdict,
    pub mann_whitney_target_vs_oot: lethe::mann_whitney::MannWhitneyResult,
}

/// What a stopped SDE run's shuffles support, computed by the core on the values so far.
#[derive(Clone, Debug, Serialize)]
pub struct SdePartial {
    /// Every subset in the run's order (references, then targets), started or not.
    pub subsets: Vec<PartialSubset>,
    /// The one-sided Mann–Whitney test IT > OOT on the reference shuffles done so far (both started).
    pub reference_separation: Option<lethe::mann_whitney::MannWhitneyResult>,
    /// Targets with shuffles done that the report's `targets` does not hold (unfinished, or finished after an
    /// unfinished one by another worker), each on the shuffles so far; only when both references have values.
    pub targets: Vec<PartialTarget>,
    /// SDE compares distributions (JSD) rather than testing an observed statistic against shuffles, so it has no
    /// permutation p-value and no p-value interval to report for a stopped run.
    pub p_value_interval: Option<(f64, f64)>,
    /// The shuffle values of every started target that the report's `targets` does not hold: the distribution so
    /// far (a prefix of the stream the full run draws for that target).
    pub unfinished_targets: Vec<UnfinishedTarget>,
}

/// A target's shuffle values so far (see [`SdePartial::unfinished_targets`]).
#[derive(Clone, Debug, Serialize)]
pub struct UnfinishedTarget {
    pub name: String,
    pub label: Option<bool>,
    pub complete: bool,
    pub values: Vec<f64>,
}

/// Rows of the source a [`Held`] input uses as a whole: `None` when loaded (its matrix is the selection), its row
/// selection when read in place.
fn selection(h: &Held) -> Option<Vec<usize>> {
    match h {
        Held::Loaded(_) => None,
        Held::InPlace(p) => p.rows.clone(),
    }
}

/// Targets drawn from a pool (`lethe::sde::draw_targets`, as the CLI: the seed offset depends on the label), as
/// rows of the pool's source.
fn draw_targets(
    pool: &Held,
    role: &str,
    label: Option<bool>,
    count: usize,
    size: Option<usize>,
    seed: u64,
) -> WebResult<Vec<(String, Vec<usize>)>> {
    let size = size.ok_or_else(|| {
        WebError::at(
            role,
            format!("drawing targets from `{role}` needs a target size (rows per drawn target)"),
        )
    })?;
    let draws =
        sde::draw_targets(label, pool.rows(), count, size, seed).map_err(|e| WebError::at(role, e.to_string()))?;
    let sel = selection(pool);
    Ok(draws
        .into_iter()
        .enumerate()
        .map(|(k, pos)| {
            let rows = pos.iter().map(|&i| sel.as_ref().map_or(i, |s| s[i])).collect();
            (format!("{role}[{k}]"), rows)
        })
        .collect())
}

/// Loads everything an SDE run needs, in the CLI's order (records: references, targets, pools).
///
/// # Errors
/// Missing references, unreadable inputs, bad parameters; attributed to the role concerned.
pub fn prepare_sde(ws: &mut Workspace, req: &SdeRequest) -> WebResult<SdeJob> {
    check_backend(&req.backend)?;
    let it_ref = req
        .in_training
        .as_ref()
        .ok_or_else(|| WebError::at("in_training", "choose the in-training reference set"))?;
    let oot_ref = req
        .out_of_training
        .as_ref()
        .ok_or_else(|| WebError::at("out_of_training", "choose the out-of-training reference set"))?;
    let mut inputs = vec![ws.open("in_training", it_ref)?, ws.open("out_of_training", oot_ref)?];
    let mut subsets = vec![
        SubsetDef {
            name: "in_training".into(),
            input: 0,
            rows: selection(&inputs[0]),
            label: None,
        },
        SubsetDef {
            name: "out_of_training".into(),
            input: 1,
            rows: selection(&inputs[1]),
            label: None,
        },
    ];
    let mut roles = vec!["in_training", "out_of_training"];
    for (list, label, role) in [
        (&req.target, None, "target"),
        (&req.target_in, Some(true), "target_in"),
        (&req.target_out, Some(false), "target_out"),
    ] {
        for (k, r) in list.iter().enumerate() {
            let t = ws.open(role, r)?;
            subsets.push(SubsetDef {
                name: format!("{role}[{k}]"),
                input: inputs.len(),
                rows: selection(&t),
                label,
            });
            inputs.push(t);
            roles.push(role);
        }
    }
    for (pool, label, role) in [
        (&req.draw_from, None, "draw-from"),
        (&req.draw_in, Some(true), "draw-in"),
        (&req.draw_out, Some(false), "draw-out"),
    ] {
        if let Some(r) = pool {
            let p = ws.open(role, r)?;
            for (name, rows) in draw_targets(&p, role, label, req.draw, req.size, req.seed)? {
                subsets.push(SubsetDef {
                    name,
                    input: inputs.len(),
                    rows: Some(rows),
                    label,
                });
            }
            inputs.push(p);
            roles.push(role);
        }
    }
    let records = inputs.iter().map(|h| h.record().clone()).collect();
    let params = SdeParams {
        bandwidth: parse::<Bandwidth>(&req.sigma)?,
        shuffles: req.shuffles,
        seed: req.seed,
        split: match req.split.as_str() {
            "first" => Split::First,
            "random" => Split::Random,
            other => return Err(WebError::msg(format!("split `{other}` is not one of first, random"))),
        },
        bins: req.bins,
        precision: parse::<Precision>(&req.precision)?,
        baselines: req.baselines,
    };
    let loaded: Vec<(&str, &Input)> = roles
        .iter()
        .zip(&inputs)
        .filter_map(|(r, h)| match h {
            Held::Loaded(i) => Some((*r, &**i)),
            Held::InPlace(_) => None,
        })
        .collect();
    let load_warnings = load_warnings(&loaded);
    Ok(SdeJob {
        inputs,
        subsets,
        params,
        records,
        load_warnings,
    })
}

impl SdeJob {
    /// The kernel precision asked for (the CPU backend's; the GPU computes in f32).
    pub fn precision(&self) -> Precision {
        self.params.precision
    }

    /// Runs SDE on the CPU backend, reporting to `monitor` (which may stop it: the report is then partial).
    ///
    /// # Errors
    /// See [`SdeJob::run_on`].
    pub async fn run<M: Monitor>(self, monitor: &mut M) -> WebResult<SdeOutput> {
        let mut backend = CpuBackend::new(self.params.precision);
        self.run_on(&mut backend, monitor).await
    }

    /// Runs SDE on `backend` (the CPU, or the GPU of a wasm32 build), reporting to `monitor`: every subset in
    /// the run's order with its own shuffle stream, assembled by the core's steps ([`sde::target_outcome`],
    /// [`sde::report`]) into the report `lethe::sde::sde_with` gives, bit for bit. A stopped run keeps the
    /// unfinished subset's shuffles for [`SdeOutput::partial`].
    ///
    /// # Errors
    /// The core's errors, attributed to the role they name; backend failures are marked so.
    pub async fn run_on<B: Backend, M: Monitor>(self, backend: &mut B, monitor: &mut M) -> WebResult<SdeOutput> {
        let warnings = self.check()?;
        let all: Vec<u64> = (0..self.subset_rows().len() as u64).collect();
        let part = self.subsets_on(backend, monitor, &all).await?;
        self.assemble_checked(part.subsets, backend.info(), warnings)
    }

    /// The page's output around a report: records, loader warnings, histograms on shared edges.
    fn output(self, report: SdeReport, partial: Option<SdePartial>) -> SdeOutput {
        let mut series: Vec<(String, &str, &[f64])> = vec![(
            "in-training reference".into(),
            "it",
            &report.in_training_reference.values,
        )];
        if let Some(o) = &report.out_of_training_reference {
            series.push(("out-of-training reference".into(), "oot", &o.values));
        }
        for t in &report.targets {
            series.push((t.name.clone(), "target", &t.distribution.values));
        }
        for t in partial.iter().flat_map(|p| &p.unfinished_targets) {
            let name = if t.complete {
                t.name.clone()
            } else {
                format!("{} (partial)", t.name)
            };
            series.push((name, "target", &t.values));
        }
        let histograms = plots::shared_histograms(&series, plots::DISPLAY_BINS).ok();
        SdeOutput {
            seed: self.params.seed,
            inputs: self.records,
            load_warnings: self.load_warnings,
            histograms,
            partial,
            result: report,
        }
    }

    /// What a stopped run's shuffles support: every subset's progress and exact moments, the paper's rule and
    /// Mann–Whitney on the shuffles so far, and the unfinished targets' values.
    fn partial(&self, by: &[Option<PartSubset>], finished: usize) -> WebResult<SdePartial> {
        let n = self.subset_rows().len() as u64;
        let mut subsets = Vec::new();
        for i in 0..n {
            let name = &self.subsets[i as usize].name;
            if let Some(p) = by[i as usize].as_ref() {
                let d = &p.distribution;
                subsets.push(PartialSubset {
                    name: name.to_string(),
                    shuffles_done: d.values.len(),
                    shuffles_planned: d.shuffles_planned,
                    complete: d.complete,
                    moments: d.moments,
                });
            } else {
                subsets.push(PartialSubset {
                    name: name.to_string(),
                    shuffles_done: 0,
                    shuffles_planned: self.params.shuffles,
                    complete: false,
                    moments: sde::ShuffleMoments {
                        mean: f64::NAN,
                        variance: f64::NAN,
                        sd: f64::NAN,
                    },
                });
            }
        }
        let values = |i: u64| {
            by[i as usize]
                .as_ref()
                .map(|p| p.distribution.values.as_slice())
                .filter(|v| !v.is_empty())
        };
        let (it, oot) = (values(0), values(1));
        let reference_separation = match (it, oot) {
            (Some(a), Some(b)) => Some(
                lethe::mann_whitney::mann_whitney_u(a, b, lethe::Alternative::Greater, lethe::PValueMethod::Auto, true)
                    .map_err(|e| attribute(e, &SDE_ROLES))?,
            ),
            _ => None,
        };
        let mut targets = Vec::new();
        let mut unfinished = Vec::new();
        for (k, SubsetDef { name, label, .. }) in self.subsets[2..].iter().enumerate().skip(finished) {
            let Some(p) = by[2 + k].as_ref().filter(|p| !p.distribution.values.is_empty()) else {
                continue;
            };
            let d = &p.distribution;
            unfinished.push(UnfinishedTarget {
                name: name.clone(),
                label: *label,
                complete: d.complete,
                values: d.values.clone(),
            });
            if let (Some(a), Some(b)) = (it, oot) {
                targets.push(PartialTarget {
                    name: name.clone(),
                    label: *label,
                    shuffles_done: d.values.len(),
                    complete: d.complete,
                    verdict: sde::paper_verdict(&d.values, a, b, self.params.bins)
                        .map_err(|e| attribute(e, &SDE_ROLES))?,
                    mann_whitney_target_vs_oot: lethe::mann_whitney::mann_whitney_u(
                        &d.values,
                        b,
                        lethe::Alternative::Greater,
                        lethe::PValueMethod::Auto,
                        true,
                    )
                    .map_err(|e| attribute(e, &SDE_ROLES))?,
                });
            }
        }
        Ok(SdePartial {
            subsets,
            reference_separation,
            targets,
            p_value_interval: None,
            unfinished_targets: unfinished,
        })
    }

    /// Rows of every subset in the run's order: the two references, then the targets (subset 2 + i).
    fn subset_rows(&self) -> Vec<usize> {
        self.subsets
            .iter()
            .map(|d| d.rows.as_ref().map_or_else(|| self.inputs[d.input].rows(), Vec::len))
            .collect()
    }

    /// Splits the run's subsets into at most `workers` contiguous parts of about equal work (the core's progress
    /// weights, O(h²) per shuffle), for a pool of workers; every part is non-empty.
    pub fn plan(&self, workers: usize) -> Vec<Vec<u64>> {
        let spans = sde::progress_spans(&self.subset_rows(), self.params.shuffles.max(1));
        let w = workers.clamp(1, spans.len());
        let mut parts: Vec<Vec<u64>> = vec![Vec::new(); w];
        let mut k = 0;
        for (i, (start, width)) in spans.iter().enumerate() {
            // Move on when this part has its share, leaving at least one subset for each later part.
            let left = spans.len() - i;
            if k + 1 < w && !parts[k].is_empty() && (start + width / 2.0 >= (k + 1) as f64 / w as f64 || left < w - k) {
                k += 1;
            }
            parts[k].push(i as u64);
        }
        parts
    }

    /// The arrays of the inputs read in place, opened from their headers (`None` for loaded inputs).
    fn files(&self) -> WebResult<Vec<Option<lethe::data::ArrayFile<'_>>>> {
        self.inputs.iter().map(Held::file).collect()
    }

    /// Subset `i` as rows of its input's source (`files` from [`SdeJob::files`]).
    fn row_subset<'a>(
        &'a self,
        i: usize,
        files: &'a [Option<lethe::data::ArrayFile<'a>>],
    ) -> WebResult<sde::RowSubset<'a, f64>> {
        let d = self
            .subsets
            .get(i)
            .ok_or_else(|| WebError::msg(format!("this run has no subset {i}")))?;
        Ok(sde::RowSubset {
            name: &d.name,
            source: self.inputs[d.input].source(files[d.input].as_ref())?,
            rows: d.rows.as_deref(),
            label: d.label,
        })
    }

    fn check(&self) -> WebResult<Vec<String>> {
        let files = self.files()?;
        let all = (0..self.subsets.len())
            .map(|i| self.row_subset(i, &files))
            .collect::<WebResult<Vec<_>>>()?;
        sde::check_subsets(&all[0], &all[1], &all[2..], &self.params).map_err(|e| attribute(e, &SDE_ROLES))
    }

    /// Computes the subsets numbered `subsets` (one worker's part of a pooled run), exactly as the whole run
    /// computes them (each subset's shuffle stream is its number's), with the baselines of targets when asked for.
    /// Stops early when `monitor` says so (`complete: false`).
    ///
    /// # Errors
    /// As [`SdeJob::run_on`]; an unknown subset number.
    pub async fn run_part_on<B: Backend, M: Monitor>(
        self,
        backend: &mut B,
        monitor: &mut M,
        subsets: &[u64],
    ) -> WebResult<SdePart> {
        self.check()?;
        self.subsets_on(backend, monitor, subsets).await
    }

    /// [`SdeJob::run_part_on`] after the inputs were checked. A stopped subset is kept with the shuffles it did.
    async fn subsets_on<B: Backend, M: Monitor>(
        &self,
        backend: &mut B,
        monitor: &mut M,
        subsets: &[u64],
    ) -> WebResult<SdePart> {
        let all = self.subset_rows();
        let rows: Vec<usize> = subsets
            .iter()
            .map(|&i| {
                all.get(i as usize)
                    .copied()
                    .ok_or_else(|| WebError::msg(format!("this run has no subset {i}")))
            })
            .collect::<WebResult<_>>()?;
        let spans = sde::progress_spans(&rows, self.params.shuffles);
        let files = self.files()?;
        // The baselines compare each target with the whole references: gathered once for this part's targets.
        let refs = if self.params.baselines && subsets.iter().any(|&i| i >= 2) {
            let gather = |i| {
                self.row_subset(i, &files)?
                    .gathered()
                    .map_err(|e| attribute(e, &SDE_ROLES))
            };
            Some((gather(0)?, gather(1)?))
        } else {
            None
        };
        let mut out = Vec::with_capacity(subsets.len());
        for (k, &i) in subsets.iter().enumerate() {
            let data = self.row_subset(i as usize, &files)?;
            let name = data.name;
            let distribution = sde::split_half_with(backend, monitor, &data, &self.params, i, spans[k])
                .await
                .map_err(|e| attribute(e, &SDE_ROLES))?;
            let done = distribution.complete;
            let baselines = match (&refs, i >= 2 && done) {
                (Some((it, oot)), true) => Some(
                    data.gathered()
                        .and_then(|t| sde::baseline_verdicts(t.view(), it.view(), oot.view(), &self.params))
                        .map_err(|e| attribute(e, &SDE_ROLES))?,
                ),
                _ => None,
            };
            out.push(PartSubset {
                subset: i,
                distribution,
                baselines,
            });
            let (start, width) = spans[k];
            let p = Progress {
                fraction: start + width,
                phase: format!("{name} ({}/{})", k + 1, subsets.len()),
            };
            if !done || !monitor.checkpoint(&p).await {
                return Ok(SdePart {
                    subsets: out,
                    complete: done && k + 1 == subsets.len(),
                });
            }
        }
        Ok(SdePart {
            subsets: out,
            complete: true,
        })
    }

    /// The report of a pooled run from its workers' parts — the same report as [`SdeJob::run_on`] on `backend`
    /// (the references, then the targets in order, each outcome computed by the core). A run stopped early keeps
    /// the targets up to the first one missing or incomplete.
    ///
    /// # Errors
    /// A part without the in-training reference; the core's errors.
    pub fn assemble(self, parts: Vec<PartSubset>, backend: lethe::backend::BackendInfo) -> WebResult<SdeOutput> {
        let warnings = self.check()?;
        self.assemble_checked(parts, backend, warnings)
    }

    /// [`SdeJob::assemble`] with the inputs' warnings already computed.
    fn assemble_checked(
        self,
        parts: Vec<PartSubset>,
        backend: lethe::backend::BackendInfo,
        warnings: Vec<String>,
    ) -> WebResult<SdeOutput> {
        // Parts by subset number (a plain vector: a BTreeMap's code would weigh on the lean module).
        let mut by: Vec<Option<PartSubset>> = (0..self.subset_rows().len()).map(|_| None).collect();
        for p in parts {
            let slot = usize::try_from(p.subset)
                .ok()
                .and_then(|i| by.get_mut(i))
                .ok_or_else(|| WebError::msg(format!("this run has no subset {}", p.subset)))?;
            *slot = Some(p);
        }
        let stopped = by.iter().any(|p| !p.as_ref().is_some_and(|p| p.distribution.complete));
        let partial = if stopped {
            let finished = self.finished_targets(&by);
            Some(self.partial(&by, finished)?)
        } else {
            None
        };
        let it = by[0]
            .take()
            .ok_or_else(|| WebError::msg("the pooled run returned no in-training reference"))?
            .distribution;
        let oot = if it.complete {
            by[1].take().map(|p| p.distribution)
        } else {
            None
        };
        let mut complete = oot.as_ref().is_some_and(|o| o.complete);
        let mut outcomes = Vec::new();
        if let (true, Some(o)) = (complete, &oot) {
            for (i, SubsetDef { name, label, .. }) in self.subsets[2..].iter().enumerate() {
                match by[2 + i].take() {
                    Some(p) if p.distribution.complete => outcomes.push(
                        sde::target_outcome(name, *label, p.distribution, p.baselines, &it, o, &self.params)
                            .map_err(|e| attribute(e, &SDE_ROLES))?,
                    ),
                    _ => {
                        complete = false;
                        break;
                    }
                }
            }
        }
        let report = sde::report(&self.params, backend, it, oot, outcomes, complete, warnings)
            .map_err(|e| attribute(e, &SDE_ROLES))?;
        Ok(self.output(report, partial))
    }

    /// How many targets the report of these parts holds: those up to the first one missing or unfinished, when
    /// both references are complete.
    fn finished_targets(&self, by: &[Option<PartSubset>]) -> usize {
        let done = |i: usize| by[i].as_ref().is_some_and(|p| p.distribution.complete);
        if !(done(0) && done(1)) {
            return 0;
        }
        (0..self.subsets.len() - 2).take_while(|&k| done(2 + k)).count()
    }
}

// ------------------------------------------------------------------------------------------- calibrated SDE

/// An activation matrix (a source and, for .npz/.safetensors, its tensor): every row set of `lethe calibrate` is
/// rows of this one matrix.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct DataRef {
    pub source: u32,
    #[serde(default)]
    pub tensor: Option<String>,
}

/// `lethe calibrate`'s options (same names and defaults) plus the backend: the pools and targets are row
/// specifications of `data`, as the CLI's `--it-pool`, `--target`, `--draw-in`, ...
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct CalibrateRequest {
    pub data: Option<DataRef>,
    pub it_pool: Option<Rows>,
    pub oot_pool: Option<Rows>,
    pub target: Vec<Rows>,
    pub target_in: Vec<Rows>,
    pub target_out: Vec<Rows>,
    pub draw_from: Option<Rows>,
    pub draw_in: Option<Rows>,
    pub draw_out: Option<Rows>,
    pub draw: usize,
    /// Rows per reference subset and drawn target; `None`: the first given target's row count (the page's
    /// single-target mode), else the CLI's default 100.
    pub size: Option<usize>,
    pub refs: usize,
    pub margin: f64,
    pub paper_shuffles: usize,
    pub sigma: String,
    pub split: String,
    pub bins: usize,
    pub seed: u64,
    pub precision: String,
    pub backend: String,
}

impl Default for CalibrateRequest {
    fn default() -> Self {
        let p = CalibratedParams::default();
        Self {
            data: None,
            it_pool: None,
            oot_pool: None,
            target: Vec::new(),
            target_in: Vec::new(),
            target_out: Vec::new(),
            draw_from: None,
            draw_in: None,
            draw_out: None,
            draw: 10,
            size: None,
            refs: p.references,
            margin: p.margin,
            paper_shuffles: p.paper_shuffles,
            sigma: "sqrt_dim".into(),
            split: "first".into(),
            bins: p.bins,
            seed: 0,
            precision: "f64".into(),
            backend: "cpu".into(),
        }
    }
}

/// The parameters `lethe calibrate --json` reports (its arguments, row sets as the CLI would be given them), so
/// the page's report can be compared with the CLI's field by field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibrateParameters {
    pub data: String,
    pub it_pool: String,
    pub oot_pool: String,
    pub target: Vec<String>,
    pub target_in: Vec<String>,
    pub target_out: Vec<String>,
    pub draw_from: Option<String>,
    pub draw_in: Option<String>,
    pub draw_out: Option<String>,
    pub draw: usize,
    pub size: usize,
    pub refs: usize,
    pub margin: f64,
    pub paper_shuffles: usize,
    pub sigma: String,
    pub split: String,
    pub bins: usize,
    pub seed: u64,
    pub precision: String,
}

/// A calibrated evaluation with its rows resolved (no borrow of the workspace).
pub struct CalibrateJob {
    /// The activations, loaded or read in place (pools and targets are rows of the whole array).
    data: Held,
    it_pool: Vec<usize>,
    oot_pool: Vec<usize>,
    targets: Vec<TargetRows>,
    params: CalibratedParams,
    parameters: CalibrateParameters,
    /// The data's record, then the index or split files of its row sets (as `lethe calibrate --json`).
    records: Vec<InputRecord>,
    load_warnings: Vec<LoadWarning>,
}

/// What a calibrated evaluation returns to the page.
#[derive(Clone, Debug, Serialize)]
pub struct CalibrateOutput {
    /// The core's report, as `lethe calibrate --json` prints under `result`.
    pub result: CalibratedReport,
    /// As `lethe calibrate --json` prints under `parameters`.
    pub parameters: CalibrateParameters,
    pub seed: u64,
    pub inputs: Vec<InputRecord>,
    pub load_warnings: Vec<LoadWarning>,
    /// Reference classes whose R ≥ 2 subsets must share many rows (pool smaller than 2 × |S|): the calibrated
    /// verdict is then unreliable (the page says so next to it). Empty when every class's pool is large enough.
    pub thin_pools: Vec<ThinPool>,
}

/// A reference class drawn from too few rows for R ≥ 2 distinct subsets (see [`CalibrateOutput::thin_pools`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThinPool {
    /// `in_training` or `out_of_training`.
    pub class: &'static str,
    /// Distinct pool rows outside the targets.
    pub rows: usize,
    /// Rows per reference subset (|S|).
    pub size: usize,
    pub references: usize,
    /// Rows that any two of the class's subsets share at least (2|S| − rows).
    pub shared: usize,
    pub message: String,
}

/// Row indices of `rows` in a matrix of `n` rows and the text the CLI would be given for them (`a..b`, a list, an
/// index file's name; every row as `0..n`); an index or split file is recorded in `records` (role `role` with `_`
/// for `-`, as `lethe calibrate --json` records it).
fn pool_rows(
    ws: &mut Workspace,
    role: &str,
    rows: &Rows,
    n: usize,
    records: &mut Vec<InputRecord>,
) -> WebResult<(Vec<usize>, String)> {
    let (idx, file, text) = ws.resolve_rows(role, rows)?;
    let (v, text) = match idx {
        Some(v) => (v, text.unwrap_or_default()),
        None => ((0..n).collect(), format!("0..{n}")),
    };
    if let Some(d) = file {
        records.push(row_file_record(&role.replace('-', "_"), d, Some(text.clone()), v.len()));
    }
    Ok((v, text))
}

/// Resolves everything a calibrated evaluation needs, in the CLI's order (`calibrate_cmd`): the data, the pools,
/// the explicit targets, then targets drawn from each pool (positions drawn by `lethe::sde::draw_targets`).
///
/// # Errors
/// Missing data or pools, unreadable rows, bad parameters; attributed to the control concerned.
pub fn prepare_calibrate(ws: &mut Workspace, req: &CalibrateRequest) -> WebResult<CalibrateJob> {
    check_backend(&req.backend)?;
    let d = req.data.as_ref().ok_or_else(|| {
        WebError::at(
            "in_training",
            "choose the activations the references and targets are rows of",
        )
    })?;
    let data = ws.open(
        "data",
        &InputRef {
            source: d.source,
            tensor: d.tensor.clone(),
            rows: Rows::All,
        },
    )?;
    let n = data.rows();
    let it_rows = req
        .it_pool
        .as_ref()
        .ok_or_else(|| WebError::at("it_pool", "choose the rows in training (the in-training pool)"))?;
    let oot_rows = req
        .oot_pool
        .as_ref()
        .ok_or_else(|| WebError::at("oot_pool", "choose the rows not in training (the out-of-training pool)"))?;
    let mut records = vec![data.record().clone()];
    let (it_pool, it_text) = pool_rows(ws, "it_pool", it_rows, n, &mut records)?;
    let (oot_pool, oot_text) = pool_rows(ws, "oot_pool", oot_rows, n, &mut records)?;
    let mut targets = Vec::new();
    let mut texts: [Vec<String>; 3] = Default::default();
    for ((list, label, role), out) in [
        (&req.target, None, "target"),
        (&req.target_in, Some(true), "target_in"),
        (&req.target_out, Some(false), "target_out"),
    ]
    .into_iter()
    .zip(texts.iter_mut())
    {
        for (k, r) in list.iter().enumerate() {
            let (rows, text) = pool_rows(ws, role, r, n, &mut records)?;
            out.push(text);
            targets.push(TargetRows {
                name: format!("{role}[{k}]"),
                rows,
                label,
            });
        }
    }
    let size = req
        .size
        .unwrap_or_else(|| targets.first().map_or(100, |t| t.rows.len()));
    let mut draw_texts: [Option<String>; 3] = Default::default();
    for ((pool, label, role), out) in [
        (&req.draw_from, None, "draw-from"),
        (&req.draw_in, Some(true), "draw-in"),
        (&req.draw_out, Some(false), "draw-out"),
    ]
    .into_iter()
    .zip(draw_texts.iter_mut())
    {
        if let Some(r) = pool {
            let (rows, text) = pool_rows(ws, role, r, n, &mut records)?;
            *out = Some(text);
            let draws = sde::draw_targets(label, rows.len(), req.draw, size, req.seed)
                .map_err(|e| WebError::at(role, e.to_string()))?;
            for (k, pos) in draws.into_iter().enumerate() {
                targets.push(TargetRows {
                    name: format!("{role}[{k}]"),
                    rows: pos.iter().map(|&i| rows[i]).collect(),
                    label,
                });
            }
        }
    }
    let split = match req.split.as_str() {
        "first" => Split::First,
        "random" => Split::Random,
        other => return Err(WebError::msg(format!("split `{other}` is not one of first, random"))),
    };
    let params = CalibratedParams {
        bandwidth: parse::<Bandwidth>(&req.sigma)?,
        subset_size: size,
        references: req.refs,
        margin: req.margin,
        split,
        seed: req.seed,
        precision: parse::<Precision>(&req.precision)?,
        paper_shuffles: req.paper_shuffles,
        bins: req.bins,
    };
    let [target, target_in, target_out] = texts;
    let [draw_from, draw_in, draw_out] = draw_texts;
    let parameters = CalibrateParameters {
        data: data.record().spec.clone(),
        it_pool: it_text,
        oot_pool: oot_text,
        target,
        target_in,
        target_out,
        draw_from,
        draw_in,
        draw_out,
        draw: req.draw,
        size,
        refs: req.refs,
        margin: req.margin,
        paper_shuffles: req.paper_shuffles,
        sigma: req.sigma.clone(),
        split: req.split.clone(),
        bins: req.bins,
        seed: req.seed,
        precision: req.precision.clone(),
    };
    let load_warnings = match &data {
        Held::Loaded(i) => load_warnings(&[("data", &**i)]),
        Held::InPlace(_) => Vec::new(),
    };
    Ok(CalibrateJob {
        data,
        it_pool,
        oot_pool,
        targets,
        params,
        parameters,
        records,
        load_warnings,
    })
}

/// The page control a calibrated-verdict error concerns: the core names pools `in_training pool` /
/// `out_of_training pool`, subsets by their target name or `in-training reference k`.
fn attribute_calibrated(e: lethe::Error) -> WebError {
    let backend = matches!(e, lethe::Error::Backend(_));
    let message = e.to_string();
    let input = named_input(&message).and_then(|name| {
        let base = name.split('[').next().unwrap_or(name);
        if name.starts_with("in_training") || name.starts_with("in-training") {
            Some("it_pool")
        } else if name.starts_with("out_of_training") || name.starts_with("out-of-training") {
            Some("oot_pool")
        } else {
            SDE_ROLES.iter().copied().find(|r| *r == base)
        }
    });
    WebError {
        input: input.map(str::to_string),
        message,
        backend,
        full: false,
    }
}

impl CalibrateJob {
    /// The kernel precision asked for (the CPU backend's; the GPU computes in f32).
    pub fn precision(&self) -> Precision {
        self.params.precision
    }

    /// Runs the calibrated evaluation on `backend`, reporting to `monitor` (a stop inside the references is an
    /// error; among the targets, a partial report).
    ///
    /// # Errors
    /// The core's errors, attributed to the control they name.
    pub async fn run_on<B: Backend, M: Monitor>(self, backend: &mut B, monitor: &mut M) -> WebResult<CalibrateOutput> {
        let file = self.data.file()?;
        let source = self.data.source(file.as_ref())?;
        let report = calibrated_with(
            backend,
            monitor,
            source,
            &self.it_pool,
            &self.oot_pool,
            &self.targets,
            &self.params,
        )
        .await
        .map_err(attribute_calibrated)?;
        let thin_pools = self.thin_pools();
        Ok(CalibrateOutput {
            result: report,
            seed: self.params.seed,
            parameters: self.parameters,
            inputs: self.records,
            load_warnings: self.load_warnings,
            thin_pools,
        })
    }

    /// The reference classes whose pool (outside the targets) has fewer than 2 × |S| rows while R ≥ 2 subsets
    /// are drawn from it: every two of its subsets then share at least 2|S| − N rows (all of them when N = |S|:
    /// the subsets are re-splits of one set of rows), so their spread reflects the split more than the rows.
    fn thin_pools(&self) -> Vec<ThinPool> {
        let (r, size) = (self.params.references, self.params.subset_size);
        if r < 2 {
            return Vec::new();
        }
        // Distinct pool rows outside the targets, counted on a mask of the data's rows (indices were checked).
        let n = self.data.rows();
        let mut excluded = vec![false; n];
        for &i in self.targets.iter().flat_map(|t| &t.rows) {
            if let Some(e) = excluded.get_mut(i) {
                *e = true;
            }
        }
        [("in_training", &self.it_pool), ("out_of_training", &self.oot_pool)]
            .into_iter()
            .filter_map(|(class, pool)| {
                let mut seen = excluded.clone();
                let rows = pool
                    .iter()
                    .filter(|&&i| seen.get_mut(i).is_some_and(|s| !std::mem::replace(s, true)))
                    .count();
                (rows < 2 * size).then(|| {
                    let shared = 2 * size - rows;
                    let what = if class == "in_training" { "in-training" } else { "out-of-training" };
                    ThinPool {
                        class,
                        rows,
                        size,
                        references: r,
                        shared,
                        message: if shared >= size {
                            format!(
                                "the {r} {what} reference subsets are all the same {rows} rows, only split differently: \
                                 their spread reflects the split order alone, so the reference sd, the z-score and \
                                 the calibrated verdict are not reliable"
                            )
                        } else {
                            format!(
                                "the {r} {what} reference subsets of {size} rows come from only {rows} rows: every \
                                 two share at least {shared} rows, so the reference sd understates how subsets vary \
                                 and the z-score and the calibrated verdict are not reliable"
                            )
                        },
                    }
                })
            })
            .collect()
    }

    /// [`CalibrateJob::run_on`] on the CPU backend.
    ///
    /// # Errors
    /// See [`CalibrateJob::run_on`].
    pub async fn run<M: Monitor>(self, monitor: &mut M) -> WebResult<CalibrateOutput> {
        let mut backend = CpuBackend::new(self.params.precision);
        self.run_on(&mut backend, monitor).await
    }
}

// -------------------------------------------------------------------------------------------------------- RULER

/// One run of RULER: the unlearned model's embeddings and, optionally, the oracle's and the original's.
#[derive(Clone, Debug, Deserialize)]
pub struct RulerRun {
    pub unlearned: InputRef,
    #[serde(default)]
    pub oracle: Option<InputRef>,
    #[serde(default)]
    pub original: Option<InputRef>,
}

/// `lethe ruler`'s options.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct RulerRequest {
    pub runs: Vec<RulerRun>,
    pub forget: Rows,
    pub retain: Rows,
    /// `at-most` (default) or `half`.
    pub ties: String,
    pub fdr: f64,
}

impl Default for RulerRequest {
    fn default() -> Self {
        Self {
            runs: Vec::new(),
            forget: Rows::All,
            retain: Rows::All,
            ties: "at-most".into(),
            fdr: 0.05,
        }
    }
}

/// The CLI's `RulerOutput`.
#[derive(Clone, Debug, Serialize)]
pub struct RulerResult {
    pub runs: Vec<RulerReport>,
    pub across_runs: Vec<ruler::MetricAcrossRuns>,
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RulerOutput {
    pub result: RulerResult,
    pub inputs: Vec<InputRecord>,
    pub load_warnings: Vec<LoadWarning>,
    /// Per run: the forget records' nearest-neighbour percentile ranks in 10 bins over [0, 1].
    pub rank_histograms: Vec<Histograms>,
}

const RULER_ROLES: [&str; 5] = ["unlearned", "oracle", "original", "forget", "retain"];

/// RULER m1–m4 per run and, with two or more runs, Wilcoxon + Benjamini–Hochberg across runs (as `lethe ruler`).
///
/// # Errors
/// Missing or unreadable inputs, rows out of range, the core's errors; attributed to the role concerned.
pub fn ruler(ws: &mut Workspace, req: &RulerRequest) -> WebResult<RulerOutput> {
    if req.runs.is_empty() {
        return Err(WebError::at("unlearned", "choose the unlearned model's embeddings"));
    }
    let (forget, forget_file, forget_text) = ws.resolve_rows("forget", &req.forget)?;
    let (retain, retain_file, retain_text) = ws.resolve_rows("retain", &req.retain)?;
    let tie = match req.ties.as_str() {
        "at-most" => TieRule::AtMost,
        "half" => TieRule::Half,
        other => return Err(WebError::msg(format!("ties `{other}` is not one of at-most, half"))),
    };
    let mut records = Vec::new();
    let mut reports = Vec::new();
    let mut warned: Vec<(&str, Rc<Input>)> = Vec::new();
    for run in &req.runs {
        let mut load = |role: &'static str, r: &InputRef| -> WebResult<(Matrix, Matrix, InputRecord)> {
            let inp = ws.load(role, r)?;
            let pick = |rows: &Option<Vec<usize>>, what: &str| -> WebResult<Matrix> {
                let name = format!("{role} ({what} rows)");
                match rows {
                    Some(ix) => inp
                        .matrix
                        .select_rows(ix, &name)
                        .map_err(|e| WebError::at(what, e.to_string())),
                    None => Ok(inp.matrix.clone()),
                }
            };
            let f = pick(&forget, "forget")?;
            let rt = pick(&retain, "retain")?;
            warned.push((role, Rc::clone(&inp)));
            Ok((f, rt, inp.record.clone()))
        };
        let (uf, ur, rec) = load("unlearned", &run.unlearned)?;
        records.push(rec);
        let oracle = run.oracle.as_ref().map(|r| load("oracle", r)).transpose()?;
        let original = run.original.as_ref().map(|r| load("original", r)).transpose()?;
        let inputs = RulerInputs {
            unlearned_forget: uf.view(),
            unlearned_retain: ur.view(),
            oracle_forget: oracle.as_ref().map(|o| o.0.view()),
            oracle_retain: oracle.as_ref().map(|o| o.1.view()),
            original_forget: original.as_ref().map(|o| o.0.view()),
        };
        reports.push(ruler::all_metrics(&inputs, tie).map_err(|e| attribute(e, &RULER_ROLES))?);
        records.extend(oracle.map(|o| o.2));
        records.extend(original.map(|o| o.2));
    }
    let (across, warnings) = if reports.len() >= 2 {
        ruler::across_runs(&reports, req.fdr)?
    } else {
        (Vec::new(), Vec::new())
    };
    let rank_histograms = reports
        .iter()
        .map(|r| plots::histogram_in(&r.nn_percentile_rank.ranks, 10, (0.0, 1.0)))
        .collect::<WebResult<Vec<_>>>()?;
    // The index or split files the rows came from, with their SHA-256 (as `lethe ruler --json` records them).
    for (role, file, text, rows) in [
        ("forget", forget_file, forget_text, &forget),
        ("retain", retain_file, retain_text, &retain),
    ] {
        if let Some(d) = file {
            records.push(row_file_record(role, d, text, rows.as_ref().map_or(0, Vec::len)));
        }
    }
    let refs: Vec<(&str, &Input)> = warned.iter().map(|(r, i)| (*r, &**i)).collect();
    Ok(RulerOutput {
        load_warnings: load_warnings(&refs),
        result: RulerResult {
            runs: reports,
            across_runs: across,
            warnings,
        },
        inputs: records,
        rank_histograms,
    })
}

/// The record of a row index file (or split column) that rows given on their own came from (RULER's forget and
/// retain rows, the calibrated pools and targets); its spec is the rows' text, else the file's name.
fn row_file_record(role: &str, d: crate::workspace::FileDigest, text: Option<String>, rows: usize) -> InputRecord {
    InputRecord::row_file(role, text.unwrap_or_else(|| d.path.clone()), d, rows)
}

// ------------------------------------------------------------------------------------------------------ epsilon

/// `lethe epsilon`'s options.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct EpsilonRequest {
    pub retrained: Option<InputRef>,
    pub unlearned: Option<InputRef>,
    pub retrained_logits: Option<InputRef>,
    pub unlearned_logits: Option<InputRef>,
    pub labels: Option<InputRef>,
    /// `official` (the CLI's default), `exhaustive`, `clopper-pearson` or `all`.
    pub variant: String,
    pub alpha: f64,
    /// `official` or a number.
    pub eps_max: String,
    pub delta: f64,
    /// RA_unlearned, RA_retrained, TA_unlearned, TA_retrained.
    pub accuracies: Option<Vec<f64>>,
}

impl Default for EpsilonRequest {
    fn default() -> Self {
        Self {
            retrained: None,
            unlearned: None,
            retrained_logits: None,
            unlearned_logits: None,
            labels: None,
            variant: "official".into(),
            alpha: 0.05,
            eps_max: "official".into(),
            delta: competition::DELTA,
            accuracies: None,
        }
    }
}

/// The CLI's `EpsilonOutput`.
#[derive(Clone, Debug, Serialize)]
pub struct EpsilonResult {
    pub results: Vec<CompetitionResult>,
    pub final_scores: Vec<Option<f64>>,
}

#[derive(Clone, Debug, Serialize)]
pub struct EpsilonPlot {
    /// Finite per-example epsilons in bins of the bucket width (0.5) from 0.
    pub histogram: Histograms,
    /// Examples with infinite epsilon (perfectly separated; exhaustive variant).
    pub infinite: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct EpsilonOutput {
    pub result: EpsilonResult,
    pub inputs: Vec<InputRecord>,
    pub load_warnings: Vec<LoadWarning>,
    /// One per variant, in the order of `result.results`.
    pub plots: Vec<EpsilonPlot>,
}

const EPS_ROLES: [&str; 5] = [
    "retrained",
    "unlearned",
    "retrained_logits",
    "unlearned_logits",
    "labels",
];

/// Each model's row of `examples × classes` logits → logit-scaled confidences (`competition::logit_scaled_confidences`).
fn logit_confidences(ws: &mut Workspace, role: &str, r: &InputRef, labels: &[usize]) -> WebResult<(Matrix, Rc<Input>)> {
    let inp = ws.load(role, r)?;
    let conf = competition::logit_scaled_confidences(inp.matrix.view(), labels)
        .map_err(|x| attribute(x, &EPS_ROLES).or_at(role))?;
    Ok((conf, inp))
}

/// Per-example epsilon, forgetting quality and final score for each requested variant (as `lethe epsilon`).
///
/// # Errors
/// Missing or unreadable inputs, bad labels or parameters, the core's errors; attributed to the role concerned.
pub fn epsilon(ws: &mut Workspace, req: &EpsilonRequest) -> WebResult<EpsilonOutput> {
    let mut records = Vec::new();
    let mut warned: Vec<(&str, Rc<Input>)> = Vec::new();
    let (retrained, unlearned) = match (
        &req.retrained,
        &req.unlearned,
        &req.retrained_logits,
        &req.unlearned_logits,
    ) {
        (Some(r), Some(u), None, None) => {
            let (r, u) = (ws.load("retrained", r)?, ws.load("unlearned", u)?);
            records.push(r.record.clone());
            records.push(u.record.clone());
            let out = (r.matrix.clone(), u.matrix.clone());
            warned.push(("retrained", r));
            warned.push(("unlearned", u));
            out
        }
        (None, None, Some(r), Some(u)) => {
            let ls = req
                .labels
                .as_ref()
                .ok_or_else(|| WebError::at("labels", "logits need the labels (true class of each example)"))?;
            let (lab, rec) = load_vector(ws, "labels", ls)?;
            if lab.iter().any(|&v| v < 0.0 || v.fract() != 0.0) {
                return Err(WebError::at(
                    "labels",
                    "labels must be non-negative integers (class indices)",
                ));
            }
            let labels: Vec<usize> = lab.iter().map(|&v| v as usize).collect();
            records.push(rec);
            let (rm, ri) = logit_confidences(ws, "retrained_logits", r, &labels)?;
            let (um, ui) = logit_confidences(ws, "unlearned_logits", u, &labels)?;
            records.push(ri.record.clone());
            records.push(ui.record.clone());
            warned.push(("retrained_logits", ri));
            warned.push(("unlearned_logits", ui));
            (rm, um)
        }
        (None, _, None, _) | (Some(_), None, _, _) => {
            return Err(WebError::at(
                if req.retrained.is_none() {
                    "retrained"
                } else {
                    "unlearned"
                },
                "choose the retrained and the unlearned models' outputs (models × examples)",
            ));
        }
        _ => {
            return Err(WebError::msg(
                "give either retrained and unlearned confidences, or retrained logits, unlearned logits and labels — not both",
            ));
        }
    };
    let eps_max = if req.eps_max.trim() == "official" {
        EpsMax::Official
    } else {
        EpsMax::Fixed(
            req.eps_max
                .trim()
                .parse()
                .map_err(|_| WebError::msg("eps_max takes `official` or a number"))?,
        )
    };
    let variants: Vec<Variant> = match req.variant.as_str() {
        "official" => vec![Variant::Official],
        "exhaustive" => vec![Variant::Exhaustive],
        "clopper-pearson" => vec![Variant::HighProbability { alpha: req.alpha }],
        "all" => vec![
            Variant::Official,
            Variant::Exhaustive,
            Variant::HighProbability { alpha: req.alpha },
        ],
        other => {
            return Err(WebError::msg(format!(
                "variant `{other}` is not one of official, exhaustive, clopper-pearson, all"
            )));
        }
    };
    let accuracies = match req.accuracies.as_deref() {
        None => None,
        Some(&[ra_u, ra_r, ta_u, ta_r]) => Some(Accuracies {
            retain_unlearned: ra_u,
            retain_retrained: ra_r,
            test_unlearned: ta_u,
            test_retrained: ta_r,
        }),
        Some(v) => {
            return Err(WebError::msg(format!(
                "accuracies take 4 numbers RA_unlearned, RA_retrained, TA_unlearned, TA_retrained; got {}",
                v.len()
            )));
        }
    };
    let mut results = Vec::new();
    let mut finals = Vec::new();
    let mut plots_out = Vec::new();
    for variant in variants {
        let p = CompetitionParams {
            variant,
            delta: req.delta,
            eps_max,
        };
        let r =
            competition::forget_score(retrained.view(), unlearned.view(), &p).map_err(|e| attribute(e, &EPS_ROLES))?;
        finals.push(
            accuracies
                .as_ref()
                .map(|acc| competition::final_score(r.forget_score, acc))
                .transpose()?,
        );
        plots_out.push(plots::epsilon_histogram(&r)?);
        results.push(r);
    }
    let refs: Vec<(&str, &Input)> = warned.iter().map(|(r, i)| (*r, &**i)).collect();
    Ok(EpsilonOutput {
        load_warnings: load_warnings(&refs),
        result: EpsilonResult {
            results,
            final_scores: finals,
        },
        inputs: records,
        plots: plots_out,
    })
}

// ------------------------------------------------------------------------------------------------------- bounds

/// Text given by the page: a source (a file of lines) or pasted text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TextInput {
    Source { source: u32 },
    Text { text: String },
}

/// `lethe bounds` / `lethe rouge --bounds` options: scores from a file, or ROUGE-L of generations.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct BoundsRequest {
    pub scores: Option<InputRef>,
    pub predictions: Option<TextInput>,
    pub reference: Option<TextInput>,
    pub stemmer: bool,
    pub alpha: f64,
    pub one_sided: bool,
    pub x: Vec<f64>,
    pub stepsize: usize,
    /// `conbo`, `perbin` or `lp`.
    pub sd_method: String,
    pub atom_at_zero: bool,
    pub rho: f64,
    pub plan_width: f64,
}

impl Default for BoundsRequest {
    fn default() -> Self {
        Self {
            scores: None,
            predictions: None,
            reference: None,
            stemmer: false,
            alpha: leakage::DEFAULT_ALPHA,
            one_sided: false,
            x: Vec::new(),
            stepsize: leakage::DEFAULT_STEPSIZE,
            sd_method: "conbo".into(),
            atom_at_zero: false,
            rho: leakage::DEFAULT_RHO,
            plan_width: 0.05,
        }
    }
}

impl BoundsRequest {
    /// The CLI's `BoundArgs::params`.
    fn params(&self) -> WebResult<LeakageParams> {
        let method = match self.sd_method.as_str() {
            "conbo" => SdMethod::Conbo,
            "perbin" => SdMethod::PerBin {
                atom_at_zero: self.atom_at_zero,
            },
            "lp" => SdMethod::Lp {
                atom_at_zero: self.atom_at_zero,
            },
            other => {
                return Err(WebError::msg(format!(
                    "sd_method `{other}` is not one of conbo, perbin, lp"
                )));
            }
        };
        let d = LeakageParams::default();
        Ok(LeakageParams {
            alpha: self.alpha,
            sidedness: self.sidedness(),
            x: if self.x.is_empty() { d.x } else { self.x.clone() },
            stepsize: self.stepsize,
            sd_method: method,
            rho: self.rho,
            plan_width: self.plan_width,
        })
    }

    fn sidedness(&self) -> Sidedness {
        if self.one_sided {
            Sidedness::OneSided
        } else {
            Sidedness::TwoSided
        }
    }
}

/// The CLI's `RougeOutput`.
#[derive(Clone, Debug, Serialize)]
pub struct RougeResult {
    pub scores: rouge::RougeBatch,
    pub bounds: Option<LeakageReport>,
}

/// Either `lethe bounds`' result or `lethe rouge --bounds`'s.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum BoundsResult {
    Bounds(LeakageReport),
    Rouge(RougeResult),
}

#[derive(Clone, Debug, Serialize)]
pub struct BoundsOutput {
    /// `bounds` (scores) or `rouge` (generations): which CLI command gives the same `result`.
    pub command: &'static str,
    pub result: BoundsResult,
    pub inputs: Vec<InputRecord>,
    pub load_warnings: Vec<LoadWarning>,
    /// The empirical CDF with its two-sided DKW band (the core's `cdf_bounds`) at the distinct scores and 0, 1.
    pub ecdf: leakage::CdfBand,
}

/// What a report names pasted text by (it has no file).
pub const PASTED: &str = "(pasted)";

/// A side text input as lines, with its record (the CLI's `read_lines` + `file_record`; pasted text is recorded as
/// [`PASTED`] with the SHA-256 of the text).
fn text_lines(ws: &mut Workspace, role: &str, t: &TextInput) -> WebResult<(Vec<String>, Option<InputRecord>)> {
    let lines: Vec<String> = match t {
        TextInput::Text { text } => text.lines().map(str::to_string).collect(),
        TextInput::Source { source } => {
            let src = ws.source(*source).map_err(|e| WebError::at(role, e.message))?;
            let len = usize::try_from(src.data.len()).map_err(|_| WebError::at(role, "the file is too large"))?;
            if src.data.len() > crate::workspace::MAX_BYTES {
                return Err(WebError::at(
                    role,
                    format!("`{}` is too large for a text input", src.name),
                ));
            }
            let mut bytes = vec![0u8; len];
            src.data
                .read_at(0, &mut bytes)
                .map_err(|e| WebError::at(role, format!("`{}`: {e}", src.name)))?;
            let text = String::from_utf8(bytes)
                .map_err(|_| WebError::at(role, format!("`{}` is not UTF-8 text", src.name)))?;
            text.lines().map(str::to_string).collect()
        }
    };
    if lines.is_empty() {
        return Err(WebError::at(
            role,
            format!("input `{role}` is empty: one item per line"),
        ));
    }
    let record = match t {
        // Pasted text has no file name; its digest is of the UTF-8 text as pasted, so a report still says which
        // text was scored (`sha256sum` of the same text saved as a file gives the same digest).
        TextInput::Text { text } => {
            let sha256 = lethe::digest::sha256_hex(&text.as_bytes().to_vec(), |_, _| ())
                .map_err(|e| WebError::at(role, format!("pasted text: {e}")))?;
            Some(InputRecord {
                role: role.into(),
                spec: PASTED.into(),
                path: PASTED.into(),
                sha256,
                format: "text".into(),
                dtype: "utf-8 lines".into(),
                shape: vec![lines.len() as u64],
                tensor: None,
                rows_used: lines.len(),
                row_file: None,
            })
        }
        TextInput::Source { source } => {
            let sha256 = ws.sha256(*source, |_, _| ())?;
            let path = ws.source(*source)?.name.clone();
            Some(InputRecord {
                role: role.into(),
                spec: path.clone(),
                path,
                sha256,
                format: "text".into(),
                dtype: "utf-8 lines".into(),
                shape: vec![lines.len() as u64],
                tensor: None,
                rows_used: lines.len(),
                row_file: None,
            })
        }
    };
    Ok((lines, record))
}

/// The scores a bounds request is about, with records and which CLI command it mirrors.
struct Scores {
    values: Vec<f64>,
    rouge: Option<rouge::RougeBatch>,
    records: Vec<InputRecord>,
    load_warnings: Vec<LoadWarning>,
}

fn scores(ws: &mut Workspace, req: &BoundsRequest) -> WebResult<Scores> {
    match (&req.scores, &req.predictions) {
        (Some(s), None) => {
            let input = ws.load("scores", s)?;
            let lw = load_warnings(&[("scores", &*input)]);
            let (values, rec) = load_vector(ws, "scores", s)?;
            Ok(Scores {
                values,
                rouge: None,
                records: vec![rec],
                load_warnings: lw,
            })
        }
        (None, Some(p)) => {
            let (preds, prec) = text_lines(ws, "predictions", p)?;
            let r = req.reference.as_ref().ok_or_else(|| {
                WebError::at(
                    "reference",
                    "give the reference text the generations are scored against",
                )
            })?;
            let (refs, rrec) = text_lines(ws, "reference", r)?;
            let batch = match refs.len() {
                1 => rouge::rouge_l_against(&refs[0], &preds, req.stemmer),
                n if n == preds.len() => rouge::rouge_l_pairs(&refs, &preds, req.stemmer)?,
                n => {
                    return Err(WebError::at(
                        "reference",
                        format!(
                            "the reference has {n} lines and the predictions {}: give one reference line per prediction, or one for all",
                            preds.len()
                        ),
                    ));
                }
            };
            Ok(Scores {
                values: batch.fmeasure.clone(),
                rouge: Some(batch),
                records: prec.into_iter().chain(rrec).collect(),
                load_warnings: Vec::new(),
            })
        }
        (Some(_), Some(_)) => Err(WebError::msg("give either scores or generations, not both")),
        (None, None) => Err(WebError::at(
            "scores",
            "choose scores in [0, 1] (or 0/1 leak flags), or paste generations",
        )),
    }
}

/// Every leakage bound of `lethe bounds` (or `lethe rouge --bounds` for generations) with the ECDF band.
///
/// # Errors
/// Missing or unreadable inputs, scores outside [0, 1], bad parameters.
pub fn bounds(ws: &mut Workspace, req: &BoundsRequest) -> WebResult<BoundsOutput> {
    let s = scores(ws, req)?;
    let role = if s.rouge.is_some() { "predictions" } else { "scores" };
    let params = req.params()?;
    let report = leakage::report(&s.values, &params).map_err(|e| WebError::from(e).or_at(role))?;
    let grid = plots::ecdf_grid(&s.values);
    let ecdf = leakage::cdf_bounds(&s.values, &grid, params.alpha).map_err(|e| WebError::from(e).or_at(role))?;
    let (command, result) = match s.rouge {
        Some(scores) => (
            "rouge",
            BoundsResult::Rouge(RougeResult {
                scores,
                bounds: Some(report),
            }),
        ),
        None => ("bounds", BoundsResult::Bounds(report)),
    };
    Ok(BoundsOutput {
        command,
        result,
        inputs: s.records,
        load_warnings: s.load_warnings,
        ecdf,
    })
}

/// `M_gen(x)` at the slider's points, on the same scores as [`bounds`].
///
/// # Errors
/// As [`bounds`].
pub fn m_gen(ws: &mut Workspace, req: &BoundsRequest) -> WebResult<leakage::GeneralLeakageBound> {
    let s = scores(ws, req)?;
    let x = if req.x.is_empty() {
        LeakageParams::default().x
    } else {
        req.x.clone()
    };
    leakage::m_gen(&s.values, &x, req.alpha, req.sidedness()).map_err(WebError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_maps_core_names_to_page_roles() {
        let e = lethe::Error::TooSmall {
            input: "target[0]".into(),
            got: 3,
            need: 4,
            unit: "rows",
            procedure: "x",
        };
        assert_eq!(attribute(e, &SDE_ROLES).input.as_deref(), Some("target"));
        let e = lethe::Error::IndexOutOfRange {
            input: "unlearned (forget rows)".into(),
            index: 9,
            len: 3,
        };
        assert_eq!(attribute(e, &RULER_ROLES).input.as_deref(), Some("forget"));
        let e = lethe::Error::Empty {
            input: "oracle_retain".into(),
            fix: String::new(),
        };
        assert_eq!(attribute(e, &RULER_ROLES).input.as_deref(), Some("oracle"));
        let e = lethe::Error::param("sigma", "x", "y");
        assert_eq!(attribute(e, &SDE_ROLES).input, None);
    }

    /// Drives a future that never waits (the CPU backend's), as the core's `backend::now`.
    fn now<F: std::future::Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match f.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(v) => v,
            std::task::Poll::Pending => panic!("the CPU backend never waits"),
        }
    }

    fn demo_workspace() -> Workspace {
        let mut ws = Workspace::new();
        let act = include_bytes!("../../examples/data/digits/act_unlearned.npy");
        ws.add(1, "act_unlearned.npy", Rc::new(act.to_vec()));
        let forget = include_bytes!("../../examples/data/digits/forget.txt");
        ws.add(2, "forget.txt", Rc::new(forget.to_vec()));
        ws
    }

    fn text(t: &str) -> Rows {
        Rows::Text { text: t.into() }
    }

    #[test]
    fn a_pooled_run_assembles_the_single_run_report_bit_for_bit() {
        let mut ws = demo_workspace();
        let r = |t: &str| InputRef {
            source: 1,
            tensor: None,
            rows: text(t),
        };
        let req = SdeRequest {
            in_training: Some(r("144..244")),
            out_of_training: Some(r("544..644")),
            draw_in: Some(r("244..544")),
            draw_out: Some(r("644..744")),
            draw: 4,
            size: Some(100),
            shuffles: 30,
            seed: 9,
            split: "random".into(),
            baselines: true,
            ..SdeRequest::default()
        };
        let single = now(prepare_sde(&mut ws, &req).unwrap().run(&mut lethe::progress::Silent)).unwrap();
        for workers in [1, 2, 3, 4, 20] {
            let plan = prepare_sde(&mut ws, &req).unwrap().plan(workers);
            assert_eq!(plan.len(), workers.min(10));
            assert_eq!(
                plan.concat(),
                (0..10).collect::<Vec<u64>>(),
                "every subset once, in order"
            );
            let mut parts = Vec::new();
            for subsets in &plan {
                let job = prepare_sde(&mut ws, &req).unwrap();
                let mut cpu = CpuBackend::new(Precision::F64);
                let part = now(job.run_part_on(&mut cpu, &mut lethe::progress::Silent, subsets)).unwrap();
                assert!(part.complete);
                // Parts cross workers as JavaScript values; serde_json is a stand-in that also reads them back.
                let back: SdePart = serde_json::from_str(&serde_json::to_string(&part).unwrap()).unwrap();
                parts.extend(back.subsets);
            }
            let info = CpuBackend::new(Precision::F64).info();
            let pooled = prepare_sde(&mut ws, &req).unwrap().assemble(parts, info).unwrap();
            assert_eq!(pooled.result, single.result, "{workers} workers");
            assert_eq!(pooled.histograms, single.histograms);
        }
    }

    /// Stops at its second checkpoint.
    struct StopSoon(usize);
    impl Monitor for StopSoon {
        async fn checkpoint(&mut self, _: &Progress) -> bool {
            self.0 += 1;
            self.0 < 2
        }
    }

    #[test]
    fn a_stopped_part_keeps_what_it_finished_and_the_report_is_partial() {
        let mut ws = demo_workspace();
        let r = |t: &str| InputRef {
            source: 1,
            tensor: None,
            rows: text(t),
        };
        let req = SdeRequest {
            in_training: Some(r("144..244")),
            out_of_training: Some(r("544..644")),
            draw_from: Some(r("0..144")),
            draw: 6,
            size: Some(40),
            shuffles: 20,
            ..SdeRequest::default()
        };
        let plan = prepare_sde(&mut ws, &req).unwrap().plan(2);
        let mut cpu = CpuBackend::new(Precision::F64);
        let first =
            now(prepare_sde(&mut ws, &req)
                .unwrap()
                .run_part_on(&mut cpu, &mut lethe::progress::Silent, &plan[0]))
            .unwrap();
        let second = now(prepare_sde(&mut ws, &req)
            .unwrap()
            .run_part_on(&mut cpu, &mut StopSoon(0), &plan[1]))
        .unwrap();
        assert!(!second.complete && second.subsets.len() < plan[1].len());
        let parts: Vec<PartSubset> = first.subsets.into_iter().chain(second.subsets).collect();
        let out = prepare_sde(&mut ws, &req).unwrap().assemble(parts, cpu.info()).unwrap();
        assert!(!out.result.complete);
        assert!(out.result.targets.len() < 6);
    }

    /// Stops the first time progress passes `at` (a fraction of the whole run).
    struct StopAt(f64);
    impl Monitor for StopAt {
        async fn checkpoint(&mut self, p: &Progress) -> bool {
            p.fraction < self.0
        }
    }

    fn one_target_request(shuffles: usize) -> SdeRequest {
        let r = |t: &str| InputRef {
            source: 1,
            tensor: None,
            rows: text(t),
        };
        SdeRequest {
            in_training: Some(r("144..184")),
            out_of_training: Some(r("544..584")),
            target: vec![r("0..40")],
            shuffles,
            seed: 3,
            bins: 20,
            ..SdeRequest::default()
        }
    }

    #[test]
    fn a_single_worker_run_is_the_cores_sde_report_bit_for_bit() {
        let mut ws = demo_workspace();
        let req = SdeRequest {
            baselines: true,
            split: "random".into(),
            ..one_target_request(60)
        };
        let out = now(prepare_sde(&mut ws, &req).unwrap().run(&mut lethe::progress::Silent)).unwrap();
        let mut m = |t: &str| {
            ws.load(
                "x",
                &InputRef {
                    source: 1,
                    tensor: None,
                    rows: text(t),
                },
            )
            .unwrap()
            .matrix
            .clone()
        };
        let (it, oot, target) = (m("144..184"), m("544..584"), m("0..40"));
        let params = SdeParams {
            shuffles: 60,
            seed: 3,
            bins: 20,
            split: Split::Random,
            baselines: true,
            ..SdeParams::default()
        };
        let direct = sde::sde(
            it.view(),
            oot.view(),
            &[sde::Target {
                name: "target[0]",
                data: target.view(),
                label: None,
            }],
            &params,
        )
        .unwrap();
        assert_eq!(out.result, direct);
        assert!(out.result.complete && out.partial.is_none());
    }

    #[test]
    fn a_run_stopped_inside_its_target_keeps_the_shuffles_so_far_and_the_partial_verdict() {
        let mut ws = demo_workspace();
        let full = now(prepare_sde(&mut ws, &one_target_request(3000))
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .unwrap();
        // Three subsets of 40 rows: the target is the last third of the progress.
        let out = now(prepare_sde(&mut ws, &one_target_request(3000))
            .unwrap()
            .run(&mut StopAt(0.8)))
        .unwrap();
        assert!(!out.result.complete);
        assert!(
            out.result.targets.is_empty(),
            "the unfinished target is not in the report"
        );
        let p = out.partial.as_ref().expect("a partial summary");
        assert_eq!(p.subsets.len(), 3);
        assert!(p.subsets[0].complete && p.subsets[1].complete && !p.subsets[2].complete);
        let t = &p.targets[0];
        assert!(t.shuffles_done > 0 && t.shuffles_done < 3000, "{}", t.shuffles_done);
        assert_eq!(p.subsets[2].shuffles_done, t.shuffles_done);
        // The shuffles done are a prefix of the full run's stream, and the exact moments are the full run's.
        let all = &full.result.targets[0].distribution;
        let so_far = &all.values[..t.shuffles_done];
        assert_eq!(p.subsets[2].moments, all.moments);
        let it = &out.result.in_training_reference.values;
        let oot = &out.result.out_of_training_reference.as_ref().unwrap().values;
        assert_eq!(t.verdict, sde::paper_verdict(so_far, it, oot, 20).unwrap());
        let mw = lethe::mann_whitney::mann_whitney_u(
            so_far,
            oot,
            lethe::Alternative::Greater,
            lethe::PValueMethod::Auto,
            true,
        )
        .unwrap();
        assert_eq!(t.mann_whitney_target_vs_oot, mw);
        assert_eq!(p.reference_separation, out.result.reference_separation);
        assert_eq!(p.p_value_interval, None);
        assert_eq!(p.unfinished_targets[0].values, so_far);
        let h = out.histograms.as_ref().unwrap();
        let last = h.series.last().unwrap();
        assert_eq!(
            (last.name.as_str(), last.role.as_str(), last.n),
            ("target[0] (partial)", "target", t.shuffles_done)
        );
    }

    #[test]
    fn a_run_stopped_inside_a_reference_reports_what_it_did() {
        let mut ws = demo_workspace();
        let out = now(prepare_sde(&mut ws, &one_target_request(3000))
            .unwrap()
            .run(&mut StopAt(0.1)))
        .unwrap();
        let p = out.partial.unwrap();
        assert!(!p.subsets[0].complete && p.subsets[0].shuffles_done > 0);
        assert_eq!((p.subsets[1].shuffles_done, p.subsets[2].shuffles_done), (0, 0));
        assert!(
            p.subsets[1].moments.mean.is_nan(),
            "a subset not started has no moments yet"
        );
        assert!(p.targets.is_empty() && p.reference_separation.is_none());
    }

    #[test]
    fn ruler_records_the_index_files_of_its_rows() {
        let mut ws = demo_workspace();
        let req = RulerRequest {
            runs: vec![RulerRun {
                unlearned: InputRef {
                    source: 1,
                    tensor: None,
                    rows: Rows::All,
                },
                oracle: None,
                original: None,
            }],
            forget: Rows::File { source: 2 },
            retain: text("144..544"),
            ..RulerRequest::default()
        };
        let out = ruler(&mut ws, &req).unwrap();
        assert_eq!(out.inputs.len(), 2, "the model file and the forget index file");
        let f = &out.inputs[1];
        assert_eq!(
            (f.role.as_str(), f.path.as_str(), f.rows_used),
            ("forget", "forget.txt", 144)
        );
        assert_eq!(
            f.sha256,
            "d87de47a33cd2753cda6fe8d4051c360487fa4f036bab2ac000113a7c25df783"
        );
    }

    #[test]
    fn pasted_generations_are_recorded_with_the_digest_of_the_text() {
        let mut ws = Workspace::new();
        let req = BoundsRequest {
            predictions: Some(TextInput::Text {
                text: "the code is amber\nno idea\n".into(),
            }),
            reference: Some(TextInput::Text {
                text: "the code is amber".into(),
            }),
            ..BoundsRequest::default()
        };
        let out = bounds(&mut ws, &req).unwrap();
        let p = &out.inputs[0];
        assert_eq!(
            (p.role.as_str(), p.path.as_str(), p.shape.as_slice()),
            ("predictions", PASTED, &[2u64][..])
        );
        assert_eq!(
            p.sha256,
            "f8f696c4edb0a2d1817b080b8d79149d54081b57fc925b45815008f27ed0281a"
        );
        assert_eq!(out.inputs[1].role, "reference");
    }

    #[test]
    fn references_drawn_from_too_few_rows_are_flagged() {
        let mut ws = demo_workspace();
        let req = |it: &str, oot: &str| CalibrateRequest {
            data: Some(DataRef {
                source: 1,
                tensor: None,
            }),
            it_pool: Some(text(it)),
            oot_pool: Some(text(oot)),
            target: vec![text("0..100")],
            refs: 5,
            paper_shuffles: 0,
            ..CalibrateRequest::default()
        };
        // The page's defaults without pools: the references' own 100 rows, |S| = 100.
        let out = now(prepare_calibrate(&mut ws, &req("144..244", "544..694"))
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .unwrap();
        assert_eq!(out.thin_pools.len(), 2);
        let (a, b) = (&out.thin_pools[0], &out.thin_pools[1]);
        assert_eq!((a.class, a.rows, a.shared), ("in_training", 100, 100));
        assert!(a.message.contains("all the same 100 rows"), "{}", a.message);
        assert_eq!((b.class, b.rows, b.shared), ("out_of_training", 150, 50));
        assert!(b.message.contains("share at least 50 rows"), "{}", b.message);
        let ok = now(prepare_calibrate(&mut ws, &req("144..544", "544..744"))
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .unwrap();
        assert!(ok.thin_pools.is_empty());
        // One reference per class is the nearest-mean rule: nothing to flag.
        let one = CalibrateRequest {
            refs: 1,
            ..req("144..244", "544..644")
        };
        assert!(
            now(prepare_calibrate(&mut ws, &one)
                .unwrap()
                .run(&mut lethe::progress::Silent))
            .unwrap()
            .thin_pools
            .is_empty()
        );
    }

    #[test]
    fn calibrate_resolves_rows_as_the_cli_and_returns_the_cores_report() {
        let mut ws = demo_workspace();
        let req = CalibrateRequest {
            data: Some(DataRef {
                source: 1,
                tensor: None,
            }),
            it_pool: Some(text("144..544")),
            oot_pool: Some(Rows::All),
            target: vec![text("0..100")],
            draw_in: Some(Rows::File { source: 2 }),
            draw: 3,
            refs: 4,
            paper_shuffles: 0,
            seed: 5,
            ..CalibrateRequest::default()
        };
        let job = prepare_calibrate(&mut ws, &req).unwrap();
        let p = &job.parameters;
        assert_eq!(
            (p.data.as_str(), p.it_pool.as_str(), p.oot_pool.as_str()),
            ("act_unlearned.npy", "144..544", "0..744")
        );
        assert_eq!(
            (p.target.clone(), p.draw_in.as_deref(), p.size),
            (vec!["0..100".to_string()], Some("forget.txt"), 100)
        );
        let out = now(job.run(&mut lethe::progress::Silent)).unwrap();
        // The same call the CLI makes (calibrate_cmd), on the same rows.
        let data = lethe::data::load_bytes::<f64>(
            "act_unlearned.npy",
            include_bytes!("../../examples/data/digits/act_unlearned.npy"),
            &Default::default(),
        )
        .unwrap()
        .matrix;
        let mut targets = vec![TargetRows {
            name: "target[0]".into(),
            rows: (0..100).collect(),
            label: None,
        }];
        for (k, pos) in sde::draw_targets(Some(true), 144, 3, 100, 5)
            .unwrap()
            .into_iter()
            .enumerate()
        {
            targets.push(TargetRows {
                name: format!("draw-in[{k}]"),
                rows: pos,
                label: Some(true),
            });
        }
        let params = CalibratedParams {
            subset_size: 100,
            references: 4,
            paper_shuffles: 0,
            seed: 5,
            ..Default::default()
        };
        let pool: Vec<usize> = (144..544).collect();
        let all: Vec<usize> = (0..744).collect();
        let direct = lethe::sde::calibrated::calibrated(data.view(), &pool, &all, &targets, &params).unwrap();
        assert_eq!(out.result, direct);
        // The data, then the index file the draw-in pool came from (as `lethe calibrate --json` records it).
        assert_eq!(out.inputs.len(), 2);
        assert_eq!(out.inputs[0].role, "data");
        let f = &out.inputs[1];
        assert_eq!(
            (f.role.as_str(), f.spec.as_str(), f.rows_used),
            ("draw_in", "forget.txt", 144)
        );
    }

    #[test]
    fn calibrate_errors_name_the_control() {
        let mut ws = demo_workspace();
        let req = CalibrateRequest {
            data: Some(DataRef {
                source: 1,
                tensor: None,
            }),
            it_pool: Some(text("144..544")),
            oot_pool: Some(text("544..744")),
            target: vec![text("700..800")],
            ..CalibrateRequest::default()
        };
        let e = now(prepare_calibrate(&mut ws, &req)
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .err()
        .unwrap();
        assert_eq!(e.input.as_deref(), Some("target"), "{}", e.message);
        let req = CalibrateRequest {
            target: vec![text("0..100")],
            oot_pool: Some(text("600..650")),
            ..req
        };
        let e = now(prepare_calibrate(&mut ws, &req)
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .err()
        .unwrap();
        assert_eq!(e.input.as_deref(), Some("oot_pool"), "{}", e.message);
        let e = prepare_calibrate(&mut ws, &CalibrateRequest { data: None, ..req })
            .err()
            .unwrap();
        assert_eq!(e.input.as_deref(), Some("in_training"));
    }

    #[test]
    fn backends_are_parsed_and_backend_failures_marked() {
        assert_eq!(backend_choice("cpu").unwrap(), BackendChoice::Cpu);
        assert_eq!(backend_choice("webgpu").unwrap(), BackendChoice::WebGpu);
        assert!(backend_choice("auto").unwrap_err().message.contains("resolves"));
        let e = attribute(lethe::Error::Backend("device lost".into()), &SDE_ROLES);
        assert!(e.backend && e.input.is_none());
    }
}
