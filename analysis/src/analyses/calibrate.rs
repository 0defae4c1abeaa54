//! SDE beyond the paper: calibrated verdicts from exact shuffle means over pooled references.

use super::*;

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
    pub(super) parameters: CalibrateParameters,
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
) -> Result<(Vec<usize>, String)> {
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
pub fn prepare_calibrate(ws: &mut Workspace, req: &CalibrateRequest) -> Result<CalibrateJob> {
    check_backend(&req.backend)?;
    let d = req.data.as_ref().ok_or_else(|| {
        Error::at(
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
        .ok_or_else(|| Error::at("it_pool", "choose the rows in training (the in-training pool)"))?;
    let oot_rows = req
        .oot_pool
        .as_ref()
        .ok_or_else(|| Error::at("oot_pool", "choose the rows not in training (the out-of-training pool)"))?;
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
    let split = match req.split.as_str() {
        "first" => Split::First,
        "random" => Split::Random,
        other => return Err(Error::msg(format!("split `{other}` is not one of first, random"))),
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
    pub async fn run<M: Monitor>(self, monitor: &mut M) -> Result<CalibrateOutput> {
        let mut backend = CpuBackend::new(self.params.precision);
        self.run_on(&mut backend, monitor).await
    }
}
