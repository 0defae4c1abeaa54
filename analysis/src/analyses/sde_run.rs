//! SDE: split-half dependence of subsets, the paper's verdicts, and what a stopped run supports.

use super::*;

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

pub(super) const SDE_ROLES: [&str; 8] = [
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
) -> Result<Vec<(String, Vec<usize>)>> {
    let size = size.ok_or_else(|| {
        Error::at(
            role,
            format!("drawing targets from `{role}` needs a target size (rows per drawn target)"),
        )
    })?;
    let draws = sde::draw_targets(label, pool.rows(), count, size, seed).map_err(|e| Error::at(role, e.to_string()))?;
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
pub fn prepare_sde(ws: &mut Workspace, req: &SdeRequest) -> Result<SdeJob> {
    check_backend(&req.backend)?;
    let it_ref = req
        .in_training
        .as_ref()
        .ok_or_else(|| Error::at("in_training", "choose the in-training reference set"))?;
    let oot_ref = req
        .out_of_training
        .as_ref()
        .ok_or_else(|| Error::at("out_of_training", "choose the out-of-training reference set"))?;
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
            other => return Err(Error::msg(format!("split `{other}` is not one of first, random"))),
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
    pub async fn run<M: Monitor>(self, monitor: &mut M) -> Result<SdeOutput> {
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
    pub async fn run_on<B: Backend, M: Monitor>(self, backend: &mut B, monitor: &mut M) -> Result<SdeOutput> {
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
    fn partial(&self, by: &[Option<PartSubset>], finished: usize) -> Result<SdePartial> {
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
    fn files(&self) -> Result<Vec<Option<lethe::data::ArrayFile<'_>>>> {
        self.inputs.iter().map(Held::file).collect()
    }

    /// Subset `i` as rows of its input's source (`files` from [`SdeJob::files`]).
    fn row_subset<'a>(
        &'a self,
        i: usize,
        files: &'a [Option<lethe::data::ArrayFile<'a>>],
    ) -> Result<sde::RowSubset<'a, f64>> {
        let d = self
            .subsets
            .get(i)
            .ok_or_else(|| Error::msg(format!("this run has no subset {i}")))?;
        Ok(sde::RowSubset {
            name: &d.name,
            source: self.inputs[d.input].source(files[d.input].as_ref())?,
            rows: d.rows.as_deref(),
            label: d.label,
        })
    }

    fn check(&self) -> Result<Vec<String>> {
        let files = self.files()?;
        let all = (0..self.subsets.len())
            .map(|i| self.row_subset(i, &files))
            .collect::<Result<Vec<_>>>()?;
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
    ) -> Result<SdePart> {
        self.check()?;
        self.subsets_on(backend, monitor, subsets).await
    }

    /// [`SdeJob::run_part_on`] after the inputs were checked. A stopped subset is kept with the shuffles it did.
    async fn subsets_on<B: Backend, M: Monitor>(
        &self,
        backend: &mut B,
        monitor: &mut M,
        subsets: &[u64],
    ) -> Result<SdePart> {
        let all = self.subset_rows();
        let rows: Vec<usize> = subsets
            .iter()
            .map(|&i| {
                all.get(i as usize)
                    .copied()
                    .ok_or_else(|| Error::msg(format!("this run has no subset {i}")))
            })
            .collect::<Result<_>>()?;
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
    pub fn assemble(self, parts: Vec<PartSubset>, backend: lethe::backend::BackendInfo) -> Result<SdeOutput> {
        let warnings = self.check()?;
        self.assemble_checked(parts, backend, warnings)
    }

    /// [`SdeJob::assemble`] with the inputs' warnings already computed.
    fn assemble_checked(
        self,
        parts: Vec<PartSubset>,
        backend: lethe::backend::BackendInfo,
        warnings: Vec<String>,
    ) -> Result<SdeOutput> {
        // Parts by subset number (a plain vector: a BTreeMap's code would weigh on the lean module).
        let mut by: Vec<Option<PartSubset>> = (0..self.subset_rows().len()).map(|_| None).collect();
        for p in parts {
            let slot = usize::try_from(p.subset)
                .ok()
                .and_then(|i| by.get_mut(i))
                .ok_or_else(|| Error::msg(format!("this run has no subset {}", p.subset)))?;
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
            .ok_or_else(|| Error::msg("the pooled run returned no in-training reference"))?
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
