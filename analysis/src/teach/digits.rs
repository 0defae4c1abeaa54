//! Split-half dependence on the built-in digits example: one SDE experiment (a target subset, R reference pairs,
//! the paper's verdict with each pair and the calibrated verdict) and the cells of the |S| and σ trends (the paper's
//! Figure 3 / Table 1 on the example), each equal to the steps of `lethe sde` / `lethe calibrate` on the same rows.

use std::ops::Range;

use lethe::Matrix;
use lethe::backend::Precision;
use lethe::data::{LoadOptions, load_bytes};
use lethe::kernel::Bandwidth;
use lethe::sde::calibrated::{self, CalibratedParams, CalibratedReport, TargetRows};
use lethe::sde::moments::exact_mean_rbf;
use lethe::sde::overlap::{SubsetOverlap, subset_overlap};
use lethe::sde::{self, SdeParams, SdeReport, Split, Target};
use serde::{Deserialize, Serialize};

use super::{Teaching, check_range};
use crate::plots::{Histograms, shared_histograms};
use crate::{Error, Result};

/// Rows of the built-in example (`examples/data/digits/README.md`): the forget set D_f, the retain rows split into
/// a reference half and a target half (so reference and target rows never coincide), and the test rows.
pub const FORGET: Range<usize> = 0..144;
pub const RETAIN_REFERENCES: Range<usize> = 144..344;
pub const RETAIN_TARGETS: Range<usize> = 344..544;
pub const TEST: Range<usize> = 544..744;
/// Rows of each example matrix.
pub const EXAMPLE_ROWS: usize = 744;

/// Which outputs of the digits models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Representation {
    /// Penultimate-layer activations (128-d), `act_<model>.npy`.
    #[default]
    Penultimate,
    /// Softmax outputs (10 classes), `softmax.npz#<model>`.
    Softmax,
}

/// Which of the three digits models.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    Original,
    #[default]
    Retrained,
    Unlearned,
}

impl Model {
    pub const ALL: [Model; 3] = [Model::Original, Model::Retrained, Model::Unlearned];
    pub fn name(self) -> &'static str {
        match self {
            Model::Original => "original",
            Model::Retrained => "retrained",
            Model::Unlearned => "unlearned",
        }
    }
}

/// Where the target subset is drawn from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetPool {
    /// The forget set D_f (rows 0..144).
    #[default]
    Forget,
    /// Retain rows not used by the references (344..544): in training under every model.
    Retain,
}

impl Teaching {
    /// Loads one file of the built-in example into the teaching store: `act_<model>.npy` (penultimate activations)
    /// or `softmax.npz` (arrays `original`, `retrained`, `unlearned`). Returns the matrices it added.
    ///
    /// # Errors
    /// An unknown file name, a file that does not load, or a matrix without the example's 744 rows.
    pub fn add_example_file(&mut self, name: &str, bytes: &[u8]) -> Result<Vec<String>> {
        let mut added = Vec::new();
        let example = &mut self.example;
        let mut put = |rep: Representation, model: Model, opts: LoadOptions| -> Result<()> {
            let m = load_bytes::<f64>(name, bytes, &opts)?.matrix;
            if m.rows() != EXAMPLE_ROWS {
                return Err(Error::at(
                    name,
                    format!("`{name}` has {} rows; the example has {EXAMPLE_ROWS}", m.rows()),
                ));
            }
            added.push(format!("{rep:?}/{}", model.name()).to_lowercase());
            example.insert((rep, model), m);
            Ok(())
        };
        if name == "softmax.npz" {
            for model in Model::ALL {
                put(
                    Representation::Softmax,
                    model,
                    LoadOptions {
                        name: Some(model.name().into()),
                        ..Default::default()
                    },
                )?;
            }
        } else if let Some(model) = Model::ALL.into_iter().find(|m| name == format!("act_{}.npy", m.name())) {
            put(Representation::Penultimate, model, LoadOptions::default())?;
        } else {
            return Err(Error::at(
                name,
                format!("`{name}` is not a file of the built-in example"),
            ));
        }
        Ok(added)
    }

    /// One matrix of the example, once its file has been added.
    ///
    /// # Errors
    /// The file has not been added yet.
    pub fn example(&self, rep: Representation, model: Model) -> Result<&Matrix> {
        self.example.get(&(rep, model)).ok_or_else(|| {
            Error::msg(format!(
                "the example's {} outputs of the {} model are not loaded yet",
                match rep {
                    Representation::Penultimate => "penultimate",
                    Representation::Softmax => "softmax",
                },
                model.name()
            ))
        })
    }
}

/// One SDE experiment on the example: a target subset, R reference pairs, the paper's verdict with each pair, and
/// the calibrated verdict.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SdeRequest {
    pub representation: Representation,
    pub model: Model,
    pub target: TargetPool,
    /// |S|, rows per subset.
    pub size: usize,
    pub sigma: Bandwidth,
    /// T, shuffles per subset.
    pub shuffles: usize,
    /// R, reference subsets per class.
    pub references: usize,
    pub seed: u64,
}

impl Default for SdeRequest {
    fn default() -> Self {
        Self {
            representation: Representation::Penultimate,
            model: Model::Retrained,
            target: TargetPool::Forget,
            size: 100,
            sigma: Bandwidth::SqrtDim,
            shuffles: 200,
            references: 10,
            seed: 0,
        }
    }
}

/// Whether the target rows were in the model's training data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Membership {
    In,
    Out,
    /// In the original training data; the unlearned model was fine-tuned to forget them (weakly, 5 epochs).
    Unlearned,
}

/// The paper's verdict against one reference pair.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PairVerdict {
    pub jsd_target_it: f64,
    pub jsd_target_oot: f64,
    pub in_training: bool,
    /// Exact shuffle means of the pair's references.
    pub it_mean: f64,
    pub oot_mean: f64,
}

/// Where the target's exact mean comes from: `h(1 − K̄₁)(1 − L̄₂,off)/(h − 1)²`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ExactMeanParts {
    pub half: usize,
    /// Mean of all entries of S1's kernel.
    pub k_mean_all: f64,
    /// Mean off-diagonal entry of S2's kernel.
    pub l_mean_offdiag: f64,
    /// The closed form from those two numbers (`lethe::sde::moments::exact_mean_rbf`).
    pub closed_form: f64,
    /// The mean of the T shuffled values shown (numpy's mean), which scatters around the exact mean.
    pub shuffle_mean: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SdeExperiment {
    pub truth: Membership,
    pub target_rows: Vec<usize>,
    pub it_pool: Vec<usize>,
    pub oot_pool: Vec<usize>,
    /// `lethe sde` with the first reference pair and the target (the three distributions and the paper's verdict).
    pub sde: SdeReport,
    /// The three distributions on shared edges (roles `it`, `oot`, `target`).
    pub histograms: Histograms,
    pub exact_mean: ExactMeanParts,
    /// The paper's verdict with each of the R reference pairs (the target's distribution is the same throughout).
    pub pairs: Vec<PairVerdict>,
    /// How many of those pairs call the target in training.
    pub pairs_in_training: usize,
    /// `lethe calibrate` with the R reference subsets per class and the target.
    pub calibrated: CalibratedReport,
    /// The reference classes' distance in a fresh subset's null sds (the layer's "too close" reads it too).
    pub null_separation: f64,
    /// Columns of the representation (for σ = sqrt(dim)).
    pub dim: usize,
}

fn rows_of(r: Range<usize>) -> Vec<usize> {
    r.collect()
}

fn sde_params(req: &SdeRequest) -> SdeParams {
    SdeParams {
        bandwidth: req.sigma,
        shuffles: req.shuffles,
        seed: req.seed,
        split: Split::First,
        bins: 30,
        precision: Precision::F64,
        baselines: false,
    }
}

fn check_sde(req: &SdeRequest) -> Result<()> {
    check_range("size", req.size, 4, FORGET.len())?;
    check_range("shuffles", req.shuffles, 1, 2000)?;
    check_range("references", req.references, 1, 40)?;
    req.sigma.validate().map_err(|e| Error::from(e).or_at("sigma"))?;
    Ok(())
}

/// The target's rows: one subset of `size` rows drawn from its pool as `lethe calibrate --draw-from POOL --draw 1
/// --size SIZE --seed SEED` draws it.
///
/// # Errors
/// A size larger than the pool.
pub fn target_rows(pool: TargetPool, size: usize, seed: u64) -> Result<Vec<usize>> {
    let rows = rows_of(match pool {
        TargetPool::Forget => FORGET,
        TargetPool::Retain => RETAIN_TARGETS,
    });
    let draw = sde::draw_targets(None, rows.len(), 1, size, seed)?;
    Ok(draw[0].iter().map(|&i| rows[i]).collect())
}

/// Runs one SDE experiment on the example (see [`SdeExperiment`]).
///
/// # Errors
/// Parameters out of range, the example not loaded, or a core error (e.g. a bandwidth of 0).
pub fn sde_experiment_on(data: &Matrix, req: &SdeRequest) -> Result<SdeExperiment> {
    check_sde(req)?;
    let target = target_rows(req.target, req.size, req.seed)?;
    let (it_pool, oot_pool) = (rows_of(RETAIN_REFERENCES), rows_of(TEST));
    let targets = [TargetRows {
        name: "target".into(),
        rows: target.clone(),
        label: None,
    }];
    let params = CalibratedParams {
        bandwidth: req.sigma,
        subset_size: req.size,
        references: req.references,
        margin: 0.0,
        split: Split::First,
        seed: req.seed,
        precision: Precision::F64,
        paper_shuffles: req.shuffles,
        bins: 30,
    };
    let mut cal = calibrated::calibrated(data.view(), &it_pool, &oot_pool, &targets, &params)?;
    // The calls `lethe calibrate` reports (the layer's: margin, classes too close, placebo check).
    crate::analyses::with_layer_calls(&mut cal);
    let t = data.select_rows(&target, "target")?;
    let sp = sde_params(req);
    let mut pairs = Vec::with_capacity(req.references);
    let mut first = None;
    for (it_rows, oot_rows) in cal.in_training.subsets.iter().zip(&cal.out_of_training.subsets) {
        let it = data.select_rows(it_rows, "in_training")?;
        let oot = data.select_rows(oot_rows, "out_of_training")?;
        let r = sde::sde(
            it.view(),
            oot.view(),
            &[Target {
                name: "target",
                data: t.view(),
                label: None,
            }],
            &sp,
        )?;
        let v = r.targets[0].verdict;
        let oot_mean = r
            .out_of_training_reference
            .as_ref()
            .map_or(f64::NAN, |o| o.moments.mean);
        pairs.push(PairVerdict {
            jsd_target_it: v.jsd_target_it,
            jsd_target_oot: v.jsd_target_oot,
            in_training: v.in_training,
            it_mean: r.in_training_reference.moments.mean,
            oot_mean,
        });
        if first.is_none() {
            first = Some(r);
        }
    }
    let report = first.ok_or_else(|| Error::msg("no reference pair was drawn"))?;
    let tgt = &report.targets[0].distribution;
    let oot_values = report
        .out_of_training_reference
        .as_ref()
        .map_or(&[][..], |o| &o.values[..]);
    let histograms = shared_histograms(
        &[
            (
                "in-training reference".into(),
                "it",
                &report.in_training_reference.values,
            ),
            ("out-of-training reference".into(), "oot", oot_values),
            ("target".into(), "target", &tgt.values),
        ],
        30,
    )?;
    let exact_mean = ExactMeanParts {
        half: tgt.half,
        k_mean_all: tgt.kernels.x.mean_all,
        l_mean_offdiag: tgt.kernels.y.mean_offdiag,
        closed_form: exact_mean_rbf(tgt.half, tgt.kernels.x.mean_all, tgt.kernels.y.mean_offdiag),
        shuffle_mean: lethe::numpy::mean(&tgt.values),
    };
    let truth = match (req.target, req.model) {
        (TargetPool::Retain, _) | (TargetPool::Forget, Model::Original) => Membership::In,
        (TargetPool::Forget, Model::Retrained) => Membership::Out,
        (TargetPool::Forget, Model::Unlearned) => Membership::Unlearned,
    };
    Ok(SdeExperiment {
        truth,
        target_rows: target,
        it_pool,
        oot_pool,
        sde: report,
        histograms,
        exact_mean,
        pairs_in_training: pairs.iter().filter(|p| p.in_training).count(),
        pairs,
        null_separation: crate::analyses::null_separation(&cal),
        calibrated: cal,
        dim: data.cols(),
    })
}

/// One cell of the paper's Figure 3 / Table 1 trends on the example: the controlled experiment on the retrained
/// model (targets from the retain rows are in training, targets from the forget set are not) at one |S| and σ.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SweepRequest {
    pub representation: Representation,
    pub size: usize,
    pub sigma: Bandwidth,
    pub shuffles: usize,
    pub references: usize,
    /// Targets drawn per class.
    pub draw: usize,
    pub seed: u64,
}

impl Default for SweepRequest {
    fn default() -> Self {
        Self {
            representation: Representation::Penultimate,
            size: 100,
            sigma: Bandwidth::SqrtDim,
            shuffles: 100,
            references: 10,
            draw: 10,
            seed: 0,
        }
    }
}

/// The row overlap within each kind of subset of a sweep cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SweepOverlap {
    pub in_training_references: SubsetOverlap,
    pub out_of_training_references: SubsetOverlap,
    /// Targets labelled in training (retain rows 344..544).
    pub in_targets: SubsetOverlap,
    /// Targets labelled out of training (the forget set, 144 rows).
    pub out_targets: SubsetOverlap,
}

/// F1 of each rule in one sweep cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SweepCell {
    pub size: usize,
    /// σ as used: the fixed value, `sqrt(dim)`, or NaN for the median heuristic (one σ per subset half).
    #[serde(serialize_with = "lethe::json::f64")]
    pub sigma: f64,
    /// `(rule, F1)` of each rule `lethe calibrate` reports (paper, nearest, calibrated, dispersion, confidence).
    pub f1: Vec<(String, Option<f64>)>,
    /// How far apart the reference classes' exact means are, in reference sds.
    pub separation: f64,
    /// How much the cell's subsets share rows (see [`SubsetOverlap`]).
    pub overlap: SweepOverlap,
    /// The calibrated report's warnings (e.g. overlapping reference subsets).
    pub warnings: Vec<lethe::note::Note>,
}

/// Runs one sweep cell; equal to `lethe calibrate --data <retrained> --it-pool 144..344 --oot-pool 544..744
/// --draw-in 344..544 --draw-out 0..144 --draw D --size S --refs R --paper-shuffles T --sigma σ --seed SEED`.
///
/// # Errors
/// Parameters out of range, the example not loaded, or a core error.
pub fn sweep_cell_on(data: &Matrix, req: &SweepRequest) -> Result<SweepCell> {
    check_range("size", req.size, 4, FORGET.len())?;
    check_range("shuffles", req.shuffles, 1, 2000)?;
    check_range("references", req.references, 1, 40)?;
    check_range("draw", req.draw, 1, 40)?;
    let mut targets = Vec::new();
    for (label, pool, role) in [(true, RETAIN_TARGETS, "draw-in"), (false, FORGET, "draw-out")] {
        let rows = rows_of(pool);
        for (k, pos) in sde::draw_targets(Some(label), rows.len(), req.draw, req.size, req.seed)?
            .into_iter()
            .enumerate()
        {
            targets.push(TargetRows {
                name: format!("{role}[{k}]"),
                rows: pos.iter().map(|&i| rows[i]).collect(),
                label: Some(label),
            });
        }
    }
    let params = CalibratedParams {
        bandwidth: req.sigma,
        subset_size: req.size,
        references: req.references,
        margin: 0.0,
        split: Split::First,
        seed: req.seed,
        precision: Precision::F64,
        paper_shuffles: req.shuffles,
        bins: 30,
    };
    let mut r = calibrated::calibrated(
        data.view(),
        &rows_of(RETAIN_REFERENCES),
        &rows_of(TEST),
        &targets,
        &params,
    )?;
    crate::analyses::with_layer_calls(&mut r);
    let sigma = match req.sigma {
        Bandwidth::SqrtDim => (data.cols() as f64).sqrt(),
        Bandwidth::Median => f64::NAN,
        Bandwidth::Fixed(v) => v,
    };
    let drawn = |label: bool| -> Vec<Vec<usize>> {
        targets
            .iter()
            .filter(|t| t.label == Some(label))
            .map(|t| t.rows.clone())
            .collect()
    };
    let overlap = SweepOverlap {
        in_training_references: subset_overlap(&r.in_training.subsets, RETAIN_REFERENCES.len()),
        out_of_training_references: subset_overlap(&r.out_of_training.subsets, TEST.len()),
        in_targets: subset_overlap(&drawn(true), RETAIN_TARGETS.len()),
        out_targets: subset_overlap(&drawn(false), FORGET.len()),
    };
    Ok(SweepCell {
        size: req.size,
        sigma,
        f1: r
            .summaries
            .iter()
            .map(|s| (s.rule.to_string(), s.f1.as_ref().map(|f| f.f1)))
            .collect(),
        separation: r.rule.separation,
        overlap,
        warnings: r.warnings,
    })
}

impl Teaching {
    /// [`sde_experiment_on`] on the loaded example.
    ///
    /// # Errors
    /// As [`sde_experiment_on`].
    pub fn sde_experiment(&self, req: &SdeRequest) -> Result<SdeExperiment> {
        sde_experiment_on(self.example(req.representation, req.model)?, req)
    }

    /// [`sweep_cell_on`] on the loaded example's retrained model.
    ///
    /// # Errors
    /// As [`sweep_cell_on`].
    pub fn sweep_cell(&self, req: &SweepRequest) -> Result<SweepCell> {
        sweep_cell_on(self.example(req.representation, Model::Retrained)?, req)
    }
}
