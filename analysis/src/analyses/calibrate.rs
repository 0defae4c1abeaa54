//! SDE beyond the paper: calibrated verdicts from exact shuffle means over pooled references, with the same
//! guardrails as SDE (subsets of one size, enough rows, finite values named in the file's rows) and one headline.

use super::sde_run::{
    Controls, MIN_ROWS, and_list, equal_size_draw, first_non_finite, non_finite, null_sd, num, reader_warning, t95,
    too_few_rows, unequal_sizes,
};
#[cfg(feature = "clap")]
use super::stats::checked;
use super::*;
use crate::report::{Headline, Warning};
use crate::words;
use lethe::sde::calibrated::Call;

/// The calibrated rule's default margin, in pooled reference standard deviations. A target sitting at a class's
/// mean scores half the classes' separation, so with this margin, whenever the classes are less than about one
/// reference sd apart, targets no further out than the references themselves are inconclusive instead of being
/// called by a hair's breadth (docs/sde-calibration.md, *The default margin*).
pub const DEFAULT_MARGIN: f64 = 0.5;

/// An activation matrix (a source and, for .npz/.safetensors, its tensor): every row set of `lethe calibrate` is
/// rows of this one matrix.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct DataRef {
    pub source: u32,
    #[serde(default)]
    pub tensor: Option<String>,
    /// Rows of the file that make up the activations (all by default): pools and targets then index these rows,
    /// so the data is loaded (never read in place).
    #[serde(default)]
    pub rows: Rows,
}

/// `lethe calibrate`'s options (same names and defaults) plus the backend: the pools and targets are row
/// specifications of `data`, as the CLI's `--it-pool`, `--target`, `--draw-in`, ...
// With the `clap` feature (the CLI's), the options are `lethe calibrate`'s arguments, declared here once (the CLI
// reads `data`, the pools and the targets itself).
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct CalibrateRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub data: Option<DataRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub it_pool: Option<Rows>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub oot_pool: Option<Rows>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub target: Vec<Rows>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub target_in: Vec<Rows>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub target_out: Vec<Rows>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub draw_from: Option<Rows>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub draw_in: Option<Rows>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub draw_out: Option<Rows>,
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 10))]
    pub draw: usize,
    /// Rows per reference subset and per drawn target (|S|)
    // `None`: the first given target's row count (the page's single-target mode), else the CLI's default 100.
    #[cfg_attr(feature = "clap", arg(long, default_value = "100"))]
    pub size: Option<usize>,
    /// Targets whose size differs from --size are refused; with this, |S| becomes the smallest target's size
    /// (when smaller) and larger targets are replaced by seeded draws of |S| of their rows
    #[cfg_attr(feature = "clap", arg(long))]
    pub equal_size: bool,
    /// Reference subsets per class (R)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 20))]
    pub refs: usize,
    /// Decision margin in pooled reference standard deviations: targets within it of the midpoint are
    /// inconclusive (the default makes classes closer than about one reference sd inconclusive)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = DEFAULT_MARGIN))]
    pub margin: f64,
    /// Shuffles for the paper's JSD rule beside the calibrated one (0 skips it)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 200))]
    pub paper_shuffles: usize,
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<Bandwidth>, default_value = "sqrt_dim"))]
    pub sigma: String,
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["first", "random"], default_value = "first"))]
    pub split: String,
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 30))]
    pub bins: usize,
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0))]
    pub seed: u64,
    #[cfg_attr(feature = "clap", arg(long, value_parser = checked::<Precision>, default_value = "f64"))]
    pub precision: String,
    #[cfg_attr(feature = "clap", arg(skip = CalibrateRequest::default().backend))]
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
            margin: DEFAULT_MARGIN,
            paper_shuffles: p.paper_shuffles,
            sigma: "sqrt_dim".into(),
            split: "first".into(),
            bins: p.bins,
            seed: 0,
            precision: "f64".into(),
            backend: "cpu".into(),
            equal_size: false,
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
    /// Recorded only when asked for.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub equal_size: bool,
}

/// A calibrated evaluation with its rows resolved (no borrow of the workspace).
pub struct CalibrateJob {
    /// The activations, loaded or read in place (pools and targets are rows of the whole array).
    data: Held,
    it_pool: Vec<usize>,
    oot_pool: Vec<usize>,
    targets: Vec<TargetRows>,
    params: CalibratedParams,
    pub(super) parameters: CalibrateParameters,
    /// The data's record, then the index or split files of its row sets (as `lethe calibrate --json`).
    records: Vec<InputRecord>,
    load_warnings: Vec<LoadWarning>,
    /// The checks' warnings so far (the loader's, equal-size draws).
    warnings: Vec<Warning>,
}

/// What a calibrated evaluation returns to the page.
#[derive(Clone, Debug, Serialize)]
pub struct CalibrateOutput {
    /// The one call: per target the calibrated rule's (the paper's rule beneath it, with the reason when they
    /// disagree), for many targets how many of each; "inconclusive" with the reason.
    pub headline: Headline,
    /// What a person should know before trusting the result (stable codes): thin pools, overlapping references,
    /// targets outside the references, constant references, the loader's warnings.
    pub warnings: Vec<Warning>,
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

impl CalibrateOutput {
    /// The report `lethe calibrate --json` prints, the Python package returns and the page exports.
    pub fn report(&self) -> crate::Report<&CalibrateParameters, &CalibratedReport> {
        crate::Report::new(
            "calibrate",
            &self.parameters,
            Some(self.seed),
            self.inputs.clone(),
            self.headline.clone(),
            self.warnings.clone(),
            &self.result,
        )
    }
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
    (n, data): (usize, &str),
    records: &mut Vec<InputRecord>,
) -> Result<(Vec<usize>, String)> {
    // A range is checked against the data before it is expanded.
    if let Rows::Text { text } = rows
        && let crate::rows::TextRows::Range(a, b) = crate::rows::parse_text(role, text)?
        && b > n
    {
        return Err(Error::at(
            role,
            format!(
                "rows {a}..{b} are out of range: the data ({data}) has {n} rows ({}); pick rows below {n}",
                lethe::error::index_span(n as u64)
            ),
        ));
    }
    let (idx, file, text) = ws.resolve_rows(role, rows)?;
    // An index past the data names the data and the index file (the core's message names neither).
    if let Some((k, &bad)) = idx.iter().flatten().enumerate().find(|(_, r)| **r >= n) {
        let from = file.as_ref().map_or(String::new(), |d| {
            format!(" (entry {k} of the index file {}, counting from 0)", d.path)
        });
        return Err(Error::at(
            role,
            format!(
                "row index {bad}{from} is out of range for the data ({data}), which has {n} rows ({}): check that \
                 the index file belongs to this data",
                lethe::error::index_span(n as u64)
            ),
        ));
    }
    let (v, text) = match idx {
        Some(v) => (v, text.unwrap_or_default()),
        None => ((0..n).collect(), format!("0..{n}")),
    };
    if let Some(d) = file {
        records.push(row_file_record(&role.replace('-', "_"), d, Some(text.clone()), v.len()));
    }
    Ok((v, text))
}

/// The data given with `@ROWS`: pools and targets index the rows of the data, so a row subset of it is loaded and
/// they stay its rows (the workspace stops reading in place); in-place reading `always` reads the data whole, in
/// place, so it refuses a row subset. Call before [`prepare_calibrate`] (the CLI and the dispatcher do).
///
/// # Errors
/// The data has `@ROWS` and the workspace's in-place reading is `always` (a usage error).
pub fn calibrate_data_rows(ws: &mut Workspace, req: &CalibrateRequest) -> Result<()> {
    use crate::workspace::InPlacePolicy;
    if req.data.as_ref().is_some_and(|d| d.rows != Rows::All) {
        if ws.in_place_policy() == InPlacePolicy::Always {
            return Err(Error::msg(
                "in-place reading `always` reads the data whole, in place: give it without @ROWS (pools and \
                 targets pick its rows)",
            )
            .usage());
        }
        ws.set_in_place(InPlacePolicy::Never);
    }
    Ok(())
}

/// Resolves everything a calibrated evaluation needs, in the CLI's order (`calibrate_cmd`): the data, the pools,
/// the explicit targets, then targets drawn from each pool (positions drawn by `lethe::sde::draw_targets`).
///
/// # Errors
/// Missing data or pools, unreadable rows, bad parameters; attributed to the control concerned.
pub fn prepare_calibrate(ws: &mut Workspace, req: &CalibrateRequest) -> Result<CalibrateJob> {
    check_backend(&req.backend)?;
    let d = req.data.as_ref().ok_or_else(|| {
        Error::at(
            "in_training",
            "choose the activations the references and targets are rows of",
        )
    })?;
    let data_ref = InputRef {
        source: d.source,
        tensor: d.tensor.clone(),
        rows: d.rows.clone(),
    };
    // Pools and targets index the rows of the data: a row subset of it is loaded, so that they stay its rows.
    let data = if d.rows == Rows::All {
        ws.open("data", &data_ref)?
    } else {
        Held::Loaded(ws.load("data", &data_ref)?)
    };
    let n = data.rows();
    let data_path = data.record().path.clone();
    let it_rows = req
        .it_pool
        .as_ref()
        .ok_or_else(|| Error::at("it_pool", "choose the rows in training (the in-training pool)"))?;
    let oot_rows = req
        .oot_pool
        .as_ref()
        .ok_or_else(|| Error::at("oot_pool", "choose the rows not in training (the out-of-training pool)"))?;
    let mut records = vec![data.record().clone()];
    let (it_pool, it_text) = pool_rows(ws, "it_pool", it_rows, (n, &data_path), &mut records)?;
    let (oot_pool, oot_text) = pool_rows(ws, "oot_pool", oot_rows, (n, &data_path), &mut records)?;
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
            let (rows, text) = pool_rows(ws, role, r, (n, &data_path), &mut records)?;
            out.push(text);
            targets.push(TargetRows {
                name: format!("{role}[{k}]"),
                rows,
                label,
            });
        }
    }
    let mut size = req
        .size
        .unwrap_or_else(|| targets.first().map_or(100, |t| t.rows.len()));
    let mut warnings = Vec::new();
    equal_targets(&mut targets, &mut size, req, &mut warnings)?;
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
            let (rows, text) = pool_rows(ws, role, r, (n, &data_path), &mut records)?;
            *out = Some(text);
            let draws = sde::draw_targets(label, rows.len(), req.draw, size, req.seed)
                .map_err(|e| Error::at(role, e.to_string()))?;
            for (k, pos) in draws.into_iter().enumerate() {
                targets.push(TargetRows {
                    name: format!("{role}[{k}]"),
                    rows: pos.iter().map(|&i| rows[i]).collect(),
                    label,
                });
            }
        }
    }
    if let Held::Loaded(i) = &data {
        // Every row a pool or target may use, once; a bad one is named by its row in the file.
        let used: Vec<usize> = it_pool
            .iter()
            .chain(&oot_pool)
            .chain(targets.iter().flat_map(|t| &t.rows))
            .copied()
            .filter(|&r| r < n)
            .collect();
        if let Some((r, c, v)) = first_non_finite(i.matrix.view(), Some(&used)) {
            let (sel, _, _) = ws.resolve_rows("data", &data_ref.rows)?;
            return Err(non_finite("data", &i.record, sel.as_ref().map_or(r, |s| s[r]), c, v));
        }
    }
    let split = match req.split.as_str() {
        "first" => Split::First,
        "random" => Split::Random,
        other => return Err(Error::msg(format!("split `{other}` is not one of first, random")).usage()),
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
        equal_size: req.equal_size,
    };
    let load_warnings = match &data {
        Held::Loaded(i) => load_warnings(&[("data", &**i)]),
        Held::InPlace(_) => Vec::new(),
    };
    let mut all: Vec<Warning> = load_warnings.iter().map(reader_warning).collect();
    all.extend(warnings);
    Ok(CalibrateJob {
        data,
        it_pool,
        oot_pool,
        targets,
        params,
        parameters,
        records,
        load_warnings,
        warnings: all,
    })
}

/// Refuses given targets under [`MIN_ROWS`] rows, and targets whose size differs from the reference subsets'
/// (`size`, |S|; compared by halves: an odd last row is never used) — or, with `equal_size`, makes |S| the
/// smallest size and draws it from every larger target.
fn equal_targets(
    targets: &mut [TargetRows],
    size: &mut usize,
    req: &CalibrateRequest,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    let role = |t: &TargetRows| t.name.split('[').next().unwrap_or("target").to_string();
    for t in targets.iter() {
        if t.rows.len() < MIN_ROWS {
            return Err(too_few_rows(&role(t), &t.name, t.rows.len()));
        }
    }
    let smallest = targets
        .iter()
        .map(|t| t.rows.len())
        .chain([*size])
        .min()
        .unwrap_or(*size);
    if targets.iter().all(|t| t.rows.len() / 2 == *size / 2) {
        return Ok(());
    }
    if !req.equal_size {
        let mut sizes = vec![("the reference subsets (the subset size)".to_string(), *size)];
        sizes.extend(targets.iter().map(|t| (t.name.clone(), t.rows.len())));
        let first = targets
            .iter()
            .find(|t| t.rows.len() / 2 != *size / 2)
            .map_or("target".to_string(), role);
        return Err(unequal_sizes(
            &first,
            &sizes,
            smallest,
            &format!(
                "set the subset size to the targets' size (`{}`), or ask for equal-size subsets (`{}`)",
                words::opt("size"),
                words::opt_is("equal_size", "true")
            ),
        ));
    }
    let mut drawn = Vec::new();
    for (k, t) in targets.iter_mut().enumerate() {
        let n = t.rows.len();
        if n / 2 == smallest / 2 {
            continue;
        }
        let pos = equal_size_draw(req.seed, k, n, smallest);
        t.rows = pos.iter().map(|&i| t.rows[i]).collect();
        drawn.push(format!("{} ({n} rows)", t.name));
    }
    let what = if *size / 2 == smallest / 2 {
        String::new()
    } else {
        format!("; the reference subsets (and any drawn targets) have {smallest} rows instead of {size}")
    };
    *size = smallest;
    warnings.push(Warning::new(
        "equal_size_draw",
        None,
        format!(
            "{smallest} rows (the smallest size) were drawn, seeded, from {}{what}, so that every subset has the \
             same size",
            if drawn.is_empty() {
                "no target".to_string()
            } else {
                and_list(&drawn)
            }
        ),
        None,
    ));
    Ok(())
}

/// The page control a calibrated-verdict error concerns: the core names pools `in_training pool` /
/// `out_of_training pool`, subsets by their target name or `in-training reference k`.
fn attribute_calibrated(e: lethe::Error) -> Error {
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
    Error {
        input: input.map(str::to_string),
        message,
        backend,
        full: false,
        usage: false,
        code: None,
    }
}

impl CalibrateJob {
    /// What the checks found before any computing (readers' notes, equal-size draws, thin pools): the page shows
    /// them beside their inputs before Run.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The kernel precision asked for (the CPU backend's; the GPU computes in f32).
    pub fn precision(&self) -> Precision {
        self.params.precision
    }

    /// Runs the calibrated evaluation on `backend`, reporting to `monitor` (a stop inside the references is an
    /// error; among the targets, a partial report).
    ///
    /// # Errors
    /// The core's errors, attributed to the control they name.
    pub async fn run_on<B: Backend, M: Monitor>(self, backend: &mut B, monitor: &mut M) -> Result<CalibrateOutput> {
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
        Ok(self.output(report))
    }

    /// [`CalibrateJob::run_on`] on the CPU with its subsets on up to `threads` native threads
    /// (`lethe::sde::threaded`): the same report, bit for bit, for every thread count.
    ///
    /// # Errors
    /// As [`CalibrateJob::run_on`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run_threaded(self, threads: usize) -> Result<CalibrateOutput> {
        self.run_threaded_with(threads, &mut |_| true)
    }

    /// [`CalibrateJob::run_threaded`] reporting to `monitor`, which may stop it (the Python package's progress bar
    /// and Ctrl-C).
    ///
    /// # Errors
    /// As [`CalibrateJob::run_on`].
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run_threaded_with(
        self,
        threads: usize,
        monitor: &mut lethe::parallel::ProgressFn<'_>,
    ) -> Result<CalibrateOutput> {
        let file = self.data.file()?;
        let source = self.data.source(file.as_ref())?;
        let report = lethe::sde::threaded::calibrated_threaded(
            threads,
            monitor,
            source,
            &self.it_pool,
            &self.oot_pool,
            &self.targets,
            &self.params,
        )
        .map_err(attribute_calibrated)?;
        drop(file);
        Ok(self.output(report))
    }

    /// Whether the data is read in place from its file.
    pub fn read_in_place(&self) -> bool {
        matches!(self.data, Held::InPlace(_))
    }

    /// The output around the core's report: the headline and every warning.
    fn output(self, report: CalibratedReport) -> CalibrateOutput {
        let thin_pools = self.thin_pools();
        let mut warnings = self.warnings;
        warnings.extend(thin_pools.iter().map(|t| {
            Warning::new(
                "thin_pool",
                Some(if t.class == "in_training" { "it_pool" } else { "oot_pool" }),
                t.message.clone(),
                Some(format!(
                    "give this class a pool of at least {} rows outside the targets (2 × the subset size), or use smaller subsets",
                    2 * t.size
                )),
            )
        }));
        let mut report = report;
        // The headline's reasons read the core's calls; the report states the layer's.
        let core = with_layer_calls(&mut report);
        let layer = std::mem::replace(&mut report.targets, core);
        let (headline, found) = calibrated_verdicts(&report, self.targets.len());
        warnings.extend(found);
        report.targets = layer;
        CalibrateOutput {
            headline,
            warnings,
            result: report,
            seed: self.params.seed,
            parameters: self.parameters,
            inputs: self.records,
            load_warnings: self.load_warnings,
            thin_pools,
        }
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
    pub async fn run<M: Monitor>(self, monitor: &mut M) -> Result<CalibrateOutput> {
        let mut backend = CpuBackend::new(self.params.precision);
        self.run_on(&mut backend, monitor).await
    }
}

/// Whether the calibrated rule has a scale to call on: with R ≥ 2 references per class, a pooled sd that is
/// positive and finite; with one, reference means that differ.
fn degenerate(r: &CalibratedReport) -> bool {
    if r.params.references >= 2 {
        !(r.rule.pooled_sd > 0.0 && r.rule.pooled_sd.is_finite())
    } else {
        r.rule.in_training_mean == r.rule.out_of_training_mean
    }
}

/// Rows in the union of a class's reference subsets: the pool its placebos are read against.
fn pool_rows_of(c: &lethe::sde::calibrated::ReferenceClass) -> usize {
    let mut rows: Vec<usize> = c.subsets.iter().flatten().copied().collect();
    rows.sort_unstable();
    rows.dedup();
    rows.len()
}

/// The classes' distance in the units a fresh subset of the references' size varies in: the gap between the
/// classes' means over the wider of the two classes' null sds ([`null_sd`], as the placebo check reads a target).
/// The reference sd understates that spread (the references are few and share their pool), so classes a
/// reference sd or more apart can still be less than one null sd apart, where a subset drawn from either class
/// often lands nearer the other.
pub fn null_separation(r: &CalibratedReport) -> f64 {
    let refs = r.params.references;
    let rows = r.in_training.subsets.first().map_or(0, Vec::len);
    let sd = [&r.in_training, &r.out_of_training]
        .iter()
        .map(|c| null_sd(c.sd, pool_rows_of(c), rows, refs))
        .fold(0.0, f64::max);
    (r.rule.in_training_mean - r.rule.out_of_training_mean).abs() / sd
}

/// Whether the reference classes are too close for the margin: less than twice the margin apart, in reference sds
/// or in the null sds a fresh subset varies in ([`null_separation`]), so that a subset at either class's mean
/// would itself fall within the margin (with the default margin of 0.5: classes closer than one sd). Never with
/// margin 0 or one reference per class.
///
/// The null-sd half was added after `bench/validity` measured the calibrated rule on hidden layers: every false
/// call (4 in 60 runs, a truly in-training target called out of training or the reverse) came from classes 0.71–0.87
/// null sds apart, which passed the reference-sd test (1.27–1.70 reference sds) and, three of them by a hair, the
/// placebo check (docs/validity.md, *The calibrated rule's classes too close*).
fn too_close(r: &CalibratedReport) -> bool {
    let m2 = 2.0 * r.params.margin;
    r.params.references >= 2 && r.params.margin > 0.0 && (r.rule.separation < m2 || null_separation(r) < m2)
}

/// Each finished target's call: the core's calibrated call, unless the references give it no scale (constant
/// rows), its score is not a number, the classes are too close for the margin ([`too_close`]), or the other
/// class's reference subsets reach the target's exact mean by chance ([`placebo_gate`]) — then inconclusive.
pub fn calibrated_call(r: &CalibratedReport, t: &lethe::sde::calibrated::CalibratedTarget) -> Call {
    if degenerate(r)
        || too_close(r)
        || (r.params.references >= 2 && !t.score.is_finite())
        || placebo_gate(r, t).is_some()
    {
        Call::Inconclusive
    } else {
        t.calibrated
    }
}

/// Puts the layer's calls into a calibrated report — the margin, classes too close, the placebo check
/// ([`calibrated_call`]) — in place of the core's midpoint calls the headline refused, with the calibrated rule's
/// OTR and F1 over them, so that no field states a call the headline did not give (`lethe calibrate --json`, the
/// page, the teaching page). Returns the core's targets.
pub fn with_layer_calls(report: &mut CalibratedReport) -> Vec<lethe::sde::calibrated::CalibratedTarget> {
    let (calls, _, _) = layer_calls(report);
    let layer: Vec<_> = report
        .targets
        .iter()
        .zip(calls)
        .map(|(t, calibrated)| lethe::sde::calibrated::CalibratedTarget {
            calibrated,
            ..t.clone()
        })
        .collect();
    if let Ok(s) = lethe::sde::calibrated::summary("calibrated", &layer, |t| t.calibrated.in_training())
        && let Some(old) = report.summaries.iter_mut().find(|x| x.rule == "calibrated")
    {
        *old = s;
    }
    std::mem::replace(&mut report.targets, layer)
}

/// Each target's call as the layer gives it: [`calibrated_call`], then SDE's controls gate — the targets labelled
/// out of training are placebos of known truth, and where the rule calls more than 5% of them in training no
/// unlabelled target is called. Returns the calls, the controls' tally and, where the gate withholds calls, why
/// and its `controls_false_calls` warning.
fn layer_calls(r: &CalibratedReport) -> (Vec<Call>, Controls, Option<(String, Warning)>) {
    let mut calls: Vec<Call> = r.targets.iter().map(|t| calibrated_call(r, t)).collect();
    let controls = Controls::of(
        r.targets
            .iter()
            .zip(&calls)
            .map(|(t, c)| (t.label, *c == Call::InTraining)),
    );
    let gate = controls.gate(
        "use references closer to the targets (the same classes, the same size), larger subsets or more reference \
         subsets per class; then check the controls again",
    );
    if gate.is_some() {
        for (t, c) in r.targets.iter().zip(calls.iter_mut()) {
            if t.label.is_none() {
                *c = Call::Inconclusive;
            }
        }
    }
    (calls, controls, gate)
}

/// The fewest reference subsets per class whose spread can bound a call's false-call rate.
const MIN_PLACEBO_REFS: usize = 5;

/// Why a calibrated call does not stand, when the other class's reference subsets — placebos of known truth — reach
/// the target's exact mean by chance: SDE's placebo check (`sde_run::placebo`) with the R reference subsets of
/// each class as its placebos (their rows' union as the pool, which a pool of disjoint subsets can only exceed, so
/// the null is never narrower than the check's). A call needs the target `t95(R − 1)` null sds beyond the other
/// class's mean, towards its own side: at most 5% of the other class's subsets get there. Without it, the midpoint
/// rule with its margin of 0.5 would call, by the normal model, up to Φ(−1) = 16% of out-of-training subsets in
/// training where the classes are one reference sd apart.
fn placebo_gate(r: &CalibratedReport, t: &lethe::sde::calibrated::CalibratedTarget) -> Option<String> {
    let (call, m) = (t.calibrated, t.stats.moments.mean);
    if call == Call::Inconclusive {
        return None;
    }
    let refs = r.params.references;
    if refs < MIN_PLACEBO_REFS {
        return Some(format!(
            "with {refs} reference subset{} per class the rate of false calls cannot be measured; use at least \
             {MIN_PLACEBO_REFS}",
            if refs == 1 { "" } else { "s" }
        ));
    }
    let in_training = call == Call::InTraining;
    let other = if in_training {
        &r.out_of_training
    } else {
        &r.in_training
    };
    let own = if in_training {
        &r.in_training
    } else {
        &r.out_of_training
    };
    let rows = t.rows;
    let sd = null_sd(other.sd, pool_rows_of(other), rows, refs);
    let dir = if own.mean > other.mean { 1.0 } else { -1.0 };
    let z = |v: f64| {
        if sd > 0.0 {
            (v - other.mean) * dir / sd
        } else {
            (v - other.mean) * dir * f64::INFINITY
        }
    };
    let q = t95((refs - 1) as f64);
    let zt = z(m);
    (zt < q).then(|| {
        let told = own.stats.iter().filter(|s| z(s.moments.mean) >= q).count();
        format!(
            "{} reference subsets reach its exact shuffle mean ({}) by chance: it lies {} of their standard \
             deviations beyond them, and a call needs {} (at most 5% false calls); on this data {} reference \
             subsets of {rows} rows are told apart from them in {told} of {refs}",
            if in_training { "out-of-training" } else { "in-training" },
            num(m),
            num(zt),
            num(q),
            if in_training { "in-training" } else { "out-of-training" },
        )
    })
}

fn call_code(c: Call) -> &'static str {
    match c {
        Call::InTraining => "in_training",
        Call::OutOfTraining => "out_of_training",
        Call::Inconclusive => Headline::INCONCLUSIVE,
    }
}

fn call_words(c: Call) -> &'static str {
    match c {
        Call::InTraining => "in training",
        Call::OutOfTraining => "out of training",
        Call::Inconclusive => "inconclusive",
    }
}

/// The core's notes as report warnings, with the codes they were raised with; an overlap of one class's reference
/// subsets concerns that class's pool.
fn core_warnings(report: &CalibratedReport) -> Vec<Warning> {
    report
        .warnings
        .iter()
        .map(|w| {
            let input = match w.kind {
                NoteKind::OverlappingInTraining => Some("it_pool"),
                NoteKind::OverlappingOutOfTraining => Some("oot_pool"),
                _ => None,
            };
            Warning::new(w.code(), input, w.message.clone(), None)
        })
        .collect()
}

/// The one call of a calibrated report (`planned` targets asked for) and the warnings its numbers raise.
///
/// Each target's call is the calibrated rule's (midpoint of R pooled reference subsets per class, the margin
/// either side inconclusive); the paper's JSD rule on one reference pair, when run, is shown beneath and named in
/// the reason when it disagrees — the pooled rule is the steadier one (docs/sde-calibration.md). No target gets a
/// call when the references give the rule no scale (constant or identical rows) or the run was stopped.
fn calibrated_verdicts(report: &CalibratedReport, planned: usize) -> (Headline, Vec<Warning>) {
    let mut warnings = core_warnings(report);
    let rule = &report.rule;
    let refs: Vec<f64> = report
        .in_training
        .stats
        .iter()
        .chain(&report.out_of_training.stats)
        .map(|s| s.moments.mean)
        .collect();
    let flat = degenerate(report);
    if flat {
        warnings.push(Warning::new(
            "constant_references",
            None,
            format!(
                "every reference subset has the same exact shuffle mean ({}): the rows are constant or identical, so the calibrated rule has no scale to measure a target against",
                num(rule.in_training_mean)
            ),
            Some("check that the data holds the model's outputs for distinct examples (not a constant column, padding or repeated rows)"
                .into()),
        ));
    }
    let (lo, hi) = refs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    let outside: Vec<String> = report
        .targets
        .iter()
        .filter(|t| !flat && (t.stats.moments.mean < lo || t.stats.moments.mean > hi))
        .map(|t| format!("{} (exact shuffle mean {})", t.name, num(t.stats.moments.mean)))
        .collect();
    if !outside.is_empty() {
        warnings.push(Warning::new(
            "target_outside_references",
            Some("target"),
            format!(
                "{} outside the range of every reference subset of both classes ({}–{}): unlike either class, so its call extrapolates",
                if outside.len() == 1 {
                    format!("{} lies", outside[0])
                } else {
                    format!("{} lie", and_list(&outside))
                },
                num(lo),
                num(hi)
            ),
            Some("check that the target rows come from the same model, layer and preprocessing as the pools".into()),
        ));
    }
    let r = report.params.references;
    let margin = report.params.margin;
    let close = (!flat && too_close(report)).then(|| {
        format!(
            "the reference classes are only {} reference sds apart ({} of the standard deviations a fresh subset \
             of this size varies by), less than twice the margin of {}: a subset at either class's mean would \
             itself be within the margin, so no call on this data is reliable",
            num(rule.separation),
            num(null_separation(report)),
            num(margin)
        )
    });
    let (layer, controls, gate) = layer_calls(report);
    if let Some((_, w)) = &gate {
        warnings.push(w.clone());
    }
    let n = planned;
    let headline = if !report.complete {
        Headline::inconclusive(
            "No call: the run was stopped before it finished",
            format!(
                "{} of {n} targets finished; run it to the end for a call",
                report.targets.len()
            ),
        )
    } else if flat {
        Headline::inconclusive(
            if n == 1 {
                format!(
                    "{}: inconclusive",
                    report.targets.first().map_or("the target", |t| t.name.as_str())
                )
            } else {
                format!("All {n} targets: inconclusive")
            },
            "every reference subset has the same exact shuffle mean (constant or identical rows), so no target can be nearer one class than the other",
        )
    } else if n == 0 {
        Headline::new(
            "no_targets",
            if r >= 2 {
                format!(
                    "No target was given; the reference classes are {} reference sds apart",
                    num(rule.separation)
                )
            } else {
                "No target was given".to_string()
            },
        )
    } else if let [t] = report.targets.as_slice() {
        let call = calibrated_call(report, t);
        let paper = t.paper.and_then(|p| p.decided());
        let disagree = match (call, paper) {
            (Call::InTraining, Some(false)) | (Call::OutOfTraining, Some(true)) => Some(format!(
                "the paper's JSD rule on one reference pair says {}; the calibrated rule pools {r} reference subsets per class and is the steadier of the two",
                if paper == Some(true) {
                    "in training"
                } else {
                    "out of training"
                }
            )),
            _ => None,
        };
        let place = if r >= 2 {
            format!(
                "its exact shuffle mean is {} reference sds on the {} side of the midpoint between the classes",
                num(t.score.abs()),
                if t.score > 0.0 {
                    "in-training"
                } else {
                    "out-of-training"
                }
            )
        } else {
            "its exact shuffle mean is nearer that class's one reference subset".to_string()
        };
        match call {
            Call::Inconclusive => Headline::inconclusive(
                format!("{}: inconclusive", t.name),
                close.or_else(|| placebo_gate(report, t)).unwrap_or_else(|| {
                    if t.score.is_finite() {
                        format!(
                            "{place}, within the margin of {} reference sds either side",
                            num(margin)
                        )
                    } else {
                        "its score is not a number".to_string()
                    }
                }),
            ),
            c => Headline {
                call: call_code(c).into(),
                text: format!("{} looks {}: {place}", t.name, call_words(c)),
                reason: disagree,
            },
        }
    } else {
        // The unlabelled targets are the question; labelled ones are controls, counted apart (as SDE does: their
        // calls would otherwise be pooled into the rate).
        let unlabelled = report.targets.iter().any(|t| t.label.is_none());
        let asked: Vec<usize> = (0..report.targets.len())
            .filter(|&k| !unlabelled || report.targets[k].label.is_none())
            .collect();
        let n = if asked.len() == report.targets.len() {
            n
        } else {
            asked.len()
        };
        let count = |c: Call| asked.iter().filter(|&&k| layer[k] == c).count();
        let (i, o, u) = (
            count(Call::InTraining),
            count(Call::OutOfTraining),
            count(Call::Inconclusive),
        );
        let otr = if i + o > 0 {
            format!(
                " (out-of-training rate {} of the decided)",
                num(o as f64 / (i + o) as f64)
            )
        } else {
            String::new()
        };
        let summary = report.summaries.iter().find(|s| s.rule == "calibrated");
        let f1 = summary
            .and_then(|s| s.f1.as_ref())
            .map_or(String::new(), |f| format!(", F1 {} against the labels", num(f.f1)));
        let f1 = format!("{}{f1}", controls.text());
        // The calls the controls withheld (decided by the rule, unlabelled).
        let withheld = asked
            .iter()
            .filter(|&&k| {
                layer[k] == Call::Inconclusive && calibrated_call(report, &report.targets[k]) != Call::Inconclusive
            })
            .count();
        let disagree = asked
            .iter()
            .map(|&k| (&report.targets[k], &layer[k]))
            .filter(|(t, c)| {
                matches!(
                    (c, t.paper.and_then(|p| p.decided())),
                    (Call::InTraining, Some(false)) | (Call::OutOfTraining, Some(true))
                )
            })
            .count();
        let mut reasons = Vec::new();
        if let Some((why, _)) = gate.as_ref().filter(|_| withheld > 0) {
            reasons.push(format!("{why}, so its calls on the other targets are withheld"));
        }
        let gated = asked
            .iter()
            .filter(|&&k| placebo_gate(report, &report.targets[k]).is_some())
            .count();
        let margin_only = u - gated - withheld;
        if let Some(c) = &close {
            reasons.push(c.clone());
        } else if margin_only > 0 {
            reasons.push(format!(
                "{margin_only} target{} within the margin of {} reference sds of the midpoint",
                if margin_only == 1 { " is" } else { "s are" },
                num(margin)
            ));
        }
        if close.is_none() && gated > 0 {
            reasons.push(format!(
                "{gated} target{} where the other class's reference subsets reach by chance (a call needs {} of \
                 their null sds, at most 5% false calls)",
                if gated == 1 { " lies" } else { "s lie" },
                num(t95((r.max(2) - 1) as f64))
            ));
        }
        if disagree > 0 {
            reasons.push(format!(
                "the paper's JSD rule on one reference pair disagrees on {disagree} of them"
            ));
        }
        let reason = (!reasons.is_empty()).then(|| reasons.join("; "));
        if i + o == 0 {
            Headline {
                call: Headline::INCONCLUSIVE.into(),
                text: format!("All {n} targets: inconclusive{f1}"),
                reason,
            }
        } else {
            Headline {
                call: "out_of_training_rate".into(),
                text: format!(
                    "{n} targets: {o} out of training, {i} in training{}{otr}{f1}",
                    if u > 0 {
                        format!(", {u} inconclusive")
                    } else {
                        String::new()
                    }
                ),
                reason,
            }
        }
    };
    (headline, warnings)
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entry

/// `lethe calibrate` in the registry ([`crate::registry`]).
pub struct Calibrate;

/// The page's calibrated verdict: prepared with its warnings, run on the backend its request names.
pub struct CalibrateBrowserJob {
    job: CalibrateJob,
    choice: BackendChoice,
}

impl BackendJob for CalibrateJob {
    type Output = CalibrateOutput;
    fn precision(&self) -> Precision {
        CalibrateJob::precision(self)
    }
    async fn run_on<B: Backend, M: Monitor>(self, backend: &mut B, monitor: &mut M) -> Result<CalibrateOutput> {
        CalibrateJob::run_on(self, backend, monitor).await
    }
}

impl InBrowser for Calibrate {
    const NAME: &'static str = "calibrate";
    const LEAN: bool = true;
    const CHECK: bool = true;
    type Request = CalibrateRequest;
    type Job = CalibrateBrowserJob;
    type Output = CalibrateOutput;
    fn prepare(ws: &mut Workspace, req: CalibrateRequest) -> Result<CalibrateBrowserJob> {
        let choice = backend_choice(&req.backend)?;
        Ok(CalibrateBrowserJob {
            job: prepare_calibrate(ws, &req)?,
            choice,
        })
    }
    async fn finish<C: Compute, M: Monitor>(
        j: CalibrateBrowserJob,
        compute: &mut C,
        monitor: &mut M,
    ) -> Result<CalibrateOutput> {
        compute.run(j.choice, j.job, monitor).await
    }
    /// Nothing is computed, so the backend does not matter: the CPU (the page's `auto` is resolved for runs only).
    fn for_check(req: CalibrateRequest) -> CalibrateRequest {
        CalibrateRequest {
            backend: "cpu".into(),
            ..req
        }
    }
    /// The prepare step's warnings.
    async fn check<M: Monitor>(j: CalibrateBrowserJob, _: &mut M) -> Result<Vec<Warning>> {
        Ok(j.job.warnings().to_vec())
    }
}

registered! {
impl crate::registry::Analysis for Calibrate {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = CalibrateRequest;
    const ROLES: Roles = Roles {
        inputs: &["data"],
        rows: &[
            "it_pool",
            "oot_pool",
            "target",
            "target_in",
            "target_out",
            "draw_from",
            "draw_in",
            "draw_out",
        ],
        texts: &[],
    };
    /// `lethe calibrate`'s `--size` default (100), which the request type does not have.
    fn defaults(m: &mut serde_json::Map<String, serde_json::Value>) {
        m.entry("size").or_insert(serde_json::Value::from(100));
    }
    fn run(ws: &mut Workspace, req: &CalibrateRequest, ctl: &mut Control<'_>) -> Result<serde_json::Value> {
        calibrate_data_rows(ws, req)?;
        let job = prepare_calibrate(ws, req)?;
        let monitor = &mut *ctl.monitor;
        let out = job.run_threaded_with(ctl.threads.max(1), &mut |p| monitor(p))?;
        report(&out.report())
    }
}

}

#[cfg(test)]
mod tests {
    use super::*;

    fn now<F: std::future::Future>(f: F) -> F::Output {
        let mut f = std::pin::pin!(f);
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        match f.as_mut().poll(&mut cx) {
            std::task::Poll::Ready(v) => v,
            std::task::Poll::Pending => panic!("the CPU backend never waits"),
        }
    }

    fn text(t: &str) -> Rows {
        Rows::Text { text: t.into() }
    }

    fn request(values: &[f64], cols: usize) -> (Workspace, CalibrateRequest) {
        let mut ws = Workspace::new();
        let bytes = crate::npy::f64_bytes(values, &[values.len() / cols, cols]);
        ws.add(1, "x.npy", Arc::new(bytes));
        let req = CalibrateRequest {
            data: Some(DataRef {
                source: 1,
                tensor: None,
                rows: Rows::All,
            }),
            it_pool: Some(text("0..100")),
            oot_pool: Some(text("100..200")),
            target: vec![text("200..220")],
            size: Some(20),
            refs: 4,
            paper_shuffles: 0,
            ..CalibrateRequest::default()
        };
        (ws, req)
    }

    /// Seeded values in [-1, 1].
    fn noise(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            })
            .collect()
    }

    #[test]
    fn the_default_margin_is_half_a_reference_sd() {
        assert_eq!(CalibrateRequest::default().margin, 0.5);
        assert_eq!(DEFAULT_MARGIN, 0.5);
    }

    #[test]
    fn classes_closer_than_twice_the_margin_get_no_call() {
        // Both pools from one distribution: the classes are close; the core still calls targets, the layer not.
        let (mut ws, req) = request(&noise(240 * 3, 7), 3);
        let out = now(prepare_calibrate(&mut ws, &req)
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .unwrap();
        let r = &out.result;
        assert!(r.rule.separation < 1.0, "{}", r.rule.separation);
        assert!(out.headline.is_inconclusive(), "{:?}", out.headline);
        assert!(r.targets.iter().all(|t| calibrated_call(r, t) == Call::Inconclusive));
        // With margin 0 the margin overrides nothing; the placebo check still withholds the calls it cannot back
        // (noise: the midpoint rule calls every target one way or the other), each with its reason.
        let req0 = CalibrateRequest { margin: 0.0, ..req };
        let out = now(prepare_calibrate(&mut ws, &req0)
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .unwrap();
        let r = &out.result;
        assert!(!too_close(r));
        assert!(out.headline.is_inconclusive(), "noise got a call: {:?}", out.headline);
        assert!(
            out.headline.reason.as_deref().unwrap_or("").contains("false calls"),
            "{:?}",
            out.headline
        );
        // The report states the layer's calls, not the core's midpoint calls the headline refused.
        assert!(r.targets.iter().all(|t| t.calibrated == Call::Inconclusive));
        let s = r.summaries.iter().find(|s| s.rule == "calibrated").unwrap();
        assert_eq!((s.out_of_training_rate, s.inconclusive), (None, r.targets.len()));
    }

    #[test]
    fn classes_apart_in_reference_sds_but_not_in_null_sds_are_too_close() {
        // The out-of-training pool's rows spread twice as far: the classes are many reference sds apart.
        let mut v = noise(240 * 3, 11);
        for x in &mut v[300..600] {
            *x *= 2.0;
        }
        let (mut ws, req) = request(&v, 3);
        let req = CalibrateRequest { refs: 6, ..req };
        let out = now(prepare_calibrate(&mut ws, &req)
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .unwrap();
        let mut r = out.result.clone();
        assert!(
            r.rule.separation >= 1.0 && null_separation(&r) >= 1.0,
            "{}",
            r.rule.separation
        );
        assert!(!too_close(&r));
        // The same gap and reference-sd separation, with the out-of-training references' sd set to the gap: a
        // fresh subset's null sd, wider than that sd, spans more than the gap. Too close, no call.
        let gap = (r.rule.in_training_mean - r.rule.out_of_training_mean).abs();
        r.out_of_training.sd = gap;
        assert!(
            r.rule.separation >= 1.0 && null_separation(&r) < 1.0,
            "{}",
            null_separation(&r)
        );
        assert!(too_close(&r));
        assert!(r.targets.iter().all(|t| calibrated_call(&r, t) == Call::Inconclusive));
    }

    #[test]
    fn constant_data_is_inconclusive_not_nan() {
        let (mut ws, req) = request(&[0.5; 240 * 2], 2);
        let out = now(prepare_calibrate(&mut ws, &req)
            .unwrap()
            .run(&mut lethe::progress::Silent))
        .unwrap();
        assert!(out.headline.is_inconclusive());
        assert!(out.warnings.iter().any(|w| w.code == "constant_references"));
        let t = &out.result.targets[0];
        assert_eq!(calibrated_call(&out.result, t), Call::Inconclusive);
    }

    #[test]
    fn targets_of_another_size_are_refused_or_drawn() {
        let (mut ws, req) = request(&noise(240 * 3, 8), 3);
        let req = CalibrateRequest {
            target: vec![text("200..240")],
            ..req
        };
        let e = prepare_calibrate(&mut ws, &req).err().unwrap();
        assert_eq!(e.code.as_deref(), Some("unequal_subset_sizes"));
        assert_eq!(e.input.as_deref(), Some("target"));
        let job = prepare_calibrate(
            &mut ws,
            &CalibrateRequest {
                equal_size: true,
                ..req
            },
        )
        .unwrap();
        assert_eq!(job.parameters.size, 20);
        assert_eq!(job.targets[0].rows.len(), 20);
        assert!(job.targets[0].rows.iter().all(|r| (200..240).contains(r)));
    }

    #[test]
    fn a_range_past_the_data_is_refused_before_it_is_expanded() {
        let (mut ws, req) = request(&noise(240 * 2, 9), 2);
        let req = CalibrateRequest {
            oot_pool: Some(text("100..99999999999999")),
            ..req
        };
        let e = prepare_calibrate(&mut ws, &req).err().unwrap();
        assert_eq!(e.input.as_deref(), Some("oot_pool"));
        assert!(
            e.message.contains("out of range") && e.message.contains("240 rows"),
            "{}",
            e.message
        );
        // The rows the data has, with the last index and the numbering named ("0..240" read as inclusive).
        assert!(
            e.message
                .contains("has 240 rows (valid indices are 0 to 239, counting from 0)")
                && !e.message.contains("(0..240)"),
            "{}",
            e.message
        );
    }
}
