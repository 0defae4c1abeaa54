//! LiRA, the likelihood-ratio membership-inference attack of Carlini et al. (2022), from shadow-model results, as
//! tensorflow/privacy's `research/mi_lira_2021` computes it (commit `03035d5d4a271ac795dab80f5bc1cef82fc3d462`).
//!
//! The inputs are what that code's `plot.py` `load_data` builds: `scores`, models × examples × augmentations (each
//! model's `scores/*.npy`, written by `score.py`), and `keep`, models × examples (`keep[m][j]`: example `j` was in
//! model `m`'s training set, written by `train.py` as `keep.npy`). `plot.py`'s `do_plot` uses the last `ntest`
//! models as **targets** and every other model as a **shadow**: the shadows' scores fit the Gaussians, the targets'
//! scores are scored, and the targets' `keep` rows are the membership labels of the evaluation. Here the targets are
//! named by index (default: the last model, `do_plot(…, ntest=1)`); the shadows are the other models in their order.
//!
//! Each [`Variant`] follows one function of `plot.py`, detail for detail:
//!
//! * [`Variant::Online`] — `generate_ours(…)`: for example `j`, `dat_in[j]` = the scores of the shadows that
//!   trained on `j`, `dat_out[j]` those that did not, **cut to the first `in_size` (`out_size`) shadows in model
//!   order, where `in_size` is the smallest number of IN shadows of any example** (`min(map(len, dat_in))`, capped
//!   at the function's default 100000): every example uses the same number of shadows. `mean_in =
//!   np.median(dat_in, 1)`, `std_in = np.std(dat_in, 1)` (the median and the population standard deviation over
//!   the shadows, per example and augmentation; likewise OUT). A target's score of example `j`, augmentation `a`:
//!   `pr_in − pr_out` with `pr_in = −norm.logpdf(s, mean_in, std_in + 1e-30)`, `pr_out = −norm.logpdf(s,
//!   mean_out, std_out + 1e-30)`; the prediction is its mean over the augmentations (`score.mean(1)`).
//! * [`Variant::OnlineFixedVariance`] — `generate_ours(…, fix_variance=True)`: as online, with one global standard
//!   deviation: `std_in = np.std(dat_in)` **and `std_out = np.std(dat_in)`** — `plot.py` takes the OUT standard
//!   deviation from the IN scores too (a reading of its code, followed as written; the `log(std)` terms then
//!   cancel).
//! * [`Variant::Offline`] — `generate_ours_offline(…)`: only OUT shadows (cut to `out_size` as above); the score is
//!   `norm.logpdf(s, mean_out, std_out + 1e-30)`, averaged over the augmentations. This is the density, not the
//!   one-sided CDF test the paper's equation 4 describes (tensorflow/privacy issue 598; LeakPro PR 450 changed
//!   LeakPro to this density and warned that its earlier offline scores are not comparable).
//! * [`Variant::OfflineFixedVariance`] — `generate_ours_offline(…, fix_variance=True)`: `std_out = np.std(dat_out)`.
//! * [`Variant::Global`] — `generate_global`: the target's own score, `−sc.mean(1)`, no shadows (the baseline).
//!
//! **Sign.** `plot.py`'s predictions are *lower = member*: its `sweep` ranks `−prediction`
//! (`roc_curve(x, −score)`). [`LiraScores::prediction`] holds `plot.py`'s prediction unchanged;
//! [`LiraScores::membership`] is `−prediction`, higher = member, the membership audit's convention.
//!
//! Scores from logits: [`logit_scaled`] is `score.py` `load_one`, the logit-scaled confidence
//! `log(p_y) − log(Σ_{j≠y} p_j)` as that code computes it "numerically stable": the maximum logit subtracted,
//! `np.exp` in the logits' own precision (float32 logits: numpy's float32 `exp`,
//! [`crate::competition::emulate::numpy_exp_f32`]), probabilities normalised in float64, `p_y` and the rest of the
//! mass averaged over axis 1 and `+1e-45` added before each `log`.
//!
//! Arithmetic follows numpy and scipy step for step (`scipy.stats.norm.logpdf(x, loc, scale)` =
//! `−z²/2 − log(√(2π)) − log(scale)`, `z = (x − loc)/scale`; the median of an even count is the mean of the two
//! middle values). Sums over the shadows are taken in model order, numpy's global `np.std` pairwise
//! ([`crate::numpy::std`]); numpy's strided reductions can round the last bit differently, so results agree with
//! the reference to ~1e-12 relative (`crate/tests/golden_lira.rs` states the tolerances it checks).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::competition::emulate::numpy_exp_f32;
use crate::error::{Error, Result};

/// The largest `in_size`/`out_size` `plot.py`'s functions default to.
pub const DEFAULT_SIZE: usize = 100_000;

/// Which of `plot.py`'s scores to compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Variant {
    /// `plot.py` `generate_ours`.
    Online,
    /// `plot.py` `generate_ours(fix_variance=True)`.
    OnlineFixedVariance,
    /// `plot.py` `generate_ours_offline`.
    Offline,
    /// `plot.py` `generate_ours_offline(fix_variance=True)`.
    OfflineFixedVariance,
    /// `plot.py` `generate_global`.
    Global,
}

impl Variant {
    pub const ALL: [Variant; 5] = [
        Variant::Online,
        Variant::OnlineFixedVariance,
        Variant::Offline,
        Variant::OfflineFixedVariance,
        Variant::Global,
    ];

    /// The name requests and reports use.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Online => "online",
            Variant::OnlineFixedVariance => "online-fixed-variance",
            Variant::Offline => "offline",
            Variant::OfflineFixedVariance => "offline-fixed-variance",
            Variant::Global => "global",
        }
    }

    /// The code it follows.
    pub fn reference(self) -> &'static str {
        match self {
            Variant::Online => "mi_lira_2021/plot.py generate_ours",
            Variant::OnlineFixedVariance => "mi_lira_2021/plot.py generate_ours(fix_variance=True)",
            Variant::Offline => "mi_lira_2021/plot.py generate_ours_offline",
            Variant::OfflineFixedVariance => "mi_lira_2021/plot.py generate_ours_offline(fix_variance=True)",
            Variant::Global => "mi_lira_2021/plot.py generate_global",
        }
    }

    /// Whether it fits Gaussians to IN shadows.
    pub fn uses_in(self) -> bool {
        matches!(self, Variant::Online | Variant::OnlineFixedVariance)
    }

    /// Whether it fits Gaussians to OUT shadows.
    pub fn uses_out(self) -> bool {
        !matches!(self, Variant::Global)
    }

    fn fixed_variance(self) -> bool {
        matches!(self, Variant::OnlineFixedVariance | Variant::OfflineFixedVariance)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Variant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Variant::ALL.into_iter().find(|v| v.name() == s).ok_or_else(|| {
            Error::param(
                "variant",
                s,
                "one of online, online-fixed-variance, offline, offline-fixed-variance, global",
            )
        })
    }
}

/// Shadow-model results: `scores[(m * examples + j) * augmentations + a]`, `keep[m * examples + j]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Shadows {
    pub models: usize,
    pub examples: usize,
    pub augmentations: usize,
    pub scores: Vec<f64>,
    pub keep: Vec<bool>,
}

impl Shadows {
    /// Checks the lengths against the shape.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `scores` or `keep` has the wrong length, [`Error::Empty`] for a zero dimension.
    pub fn new(
        models: usize,
        examples: usize,
        augmentations: usize,
        scores: Vec<f64>,
        keep: Vec<bool>,
    ) -> Result<Self> {
        if models == 0 || examples == 0 || augmentations == 0 {
            return Err(Error::Empty {
                input: "scores".into(),
                fix: format!(
                    "it has {models} models × {examples} examples × {augmentations} augmentations; LiRA needs at least \
                     one of each"
                ),
            });
        }
        if scores.len() != models * examples * augmentations || keep.len() != models * examples {
            return Err(Error::ShapeMismatch {
                message: format!(
                    "{} scores and {} keep flags do not make {models} models × {examples} examples × {augmentations} \
                     augmentations",
                    scores.len(),
                    keep.len()
                ),
            });
        }
        Ok(Self {
            models,
            examples,
            augmentations,
            scores,
            keep,
        })
    }

    /// The scores of model `m`, example `j` (one per augmentation).
    pub fn score(&self, m: usize, j: usize) -> &[f64] {
        let a = self.augmentations;
        let start = (m * self.examples + j) * a;
        &self.scores[start..start + a]
    }

    /// Whether model `m` trained on example `j`.
    pub fn kept(&self, m: usize, j: usize) -> bool {
        self.keep[m * self.examples + j]
    }
}

/// How many shadows held each example in and out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShadowCounts {
    pub n_in: Vec<usize>,
    pub n_out: Vec<usize>,
}

impl ShadowCounts {
    /// The smallest IN count and the first example with it.
    pub fn fewest_in(&self) -> (usize, usize) {
        fewest(&self.n_in)
    }
    /// The smallest OUT count and the first example with it.
    pub fn fewest_out(&self) -> (usize, usize) {
        fewest(&self.n_out)
    }
}

fn fewest(v: &[usize]) -> (usize, usize) {
    let mut best = (usize::MAX, 0);
    for (j, &c) in v.iter().enumerate() {
        if c < best.0 {
            best = (c, j);
        }
    }
    best
}

/// The shadows: every model not in `targets`, in model order.
pub fn shadow_models(models: usize, targets: &[usize]) -> Vec<usize> {
    (0..models).filter(|m| !targets.contains(m)).collect()
}

/// IN and OUT counts per example over `shadows`.
pub fn shadow_counts(sh: &Shadows, shadows: &[usize]) -> ShadowCounts {
    let mut n_in = vec![0; sh.examples];
    for &m in shadows {
        for (j, c) in n_in.iter_mut().enumerate() {
            *c += usize::from(sh.kept(m, j));
        }
    }
    let n_out = n_in.iter().map(|&c| shadows.len() - c).collect();
    ShadowCounts { n_in, n_out }
}

/// What a LiRA run asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct LiraParams {
    pub variant: Variant,
    /// The target models (`plot.py`: the last `ntest`); their scores are scored, their `keep` rows are the labels.
    pub targets: Vec<usize>,
    /// `generate_ours`' `in_size` cap.
    pub in_size: usize,
    /// `generate_ours`' / `generate_ours_offline`'s `out_size` cap.
    pub out_size: usize,
}

impl LiraParams {
    /// `variant` with `plot.py`'s defaults: the last model as the target, sizes 100000.
    pub fn new(variant: Variant, models: usize) -> Self {
        Self {
            variant,
            targets: vec![models.saturating_sub(1)],
            in_size: DEFAULT_SIZE,
            out_size: DEFAULT_SIZE,
        }
    }
}

/// LiRA's scores of the targets' examples, target after target (`plot.py`'s `prediction.extend`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiraScores {
    pub variant: Variant,
    pub targets: Vec<usize>,
    pub shadows: usize,
    /// IN shadows per example used (`in_size` after `min(map(len, dat_in))`); 0 where the variant uses none.
    pub in_size: usize,
    /// OUT shadows per example used.
    pub out_size: usize,
    /// `plot.py`'s prediction: lower = member.
    #[serde(serialize_with = "crate::json::vec_f64")]
    pub prediction: Vec<f64>,
    /// `−prediction`: higher = member.
    #[serde(serialize_with = "crate::json::vec_f64")]
    pub membership: Vec<f64>,
    /// The targets' `keep` rows: true = member.
    pub answers: Vec<bool>,
}

/// `scipy.stats.norm.logpdf(x, loc, scale)`: `_norm_logpdf((x − loc)/scale) − log(scale)`.
pub fn norm_logpdf(x: f64, loc: f64, scale: f64) -> f64 {
    // scipy: _norm_pdf_logC = np.log(np.sqrt(2*np.pi)).
    let log_c = (2.0 * std::f64::consts::PI).sqrt().ln();
    let z = (x - loc) / scale;
    (-(z * z) / 2.0 - log_c) - scale.ln()
}

/// `np.median` of a non-empty slice (sorted copy; the mean of the two middle values for an even count).
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// `np.std(x, axis)` over a strided run: population standard deviation, sums in order.
fn std_in_order(v: &[f64]) -> f64 {
    let n = v.len() as f64;
    let mean = v.iter().fold(0.0, |s, &x| s + x) / n;
    let ss = v.iter().fold(0.0, |s, &x| {
        let d = x - mean;
        s + d * d
    });
    (ss / n).sqrt()
}

/// The fitted Gaussians of one side (IN or OUT): per example and augmentation, `np.median` and `np.std` over the
/// first `size` shadows of that side, or one global standard deviation.
struct Fit {
    mean: Vec<f64>,
    std: Vec<f64>,
    global_std: Option<f64>,
}

impl Fit {
    fn std(&self, j: usize, a: usize, augs: usize) -> f64 {
        match self.global_std {
            Some(g) => g,
            None => self.std[j * augs + a],
        }
    }
}

/// `dat[j]` = the first `size` shadows' scores of example `j` whose keep flag is `side`, as
/// `examples × size × augmentations` (C order).
fn gather(sh: &Shadows, shadows: &[usize], side: bool, size: usize) -> Vec<f64> {
    let a = sh.augmentations;
    let mut dat = Vec::with_capacity(sh.examples * size * a);
    for j in 0..sh.examples {
        let mut taken = 0;
        for &m in shadows {
            if taken == size {
                break;
            }
            if sh.kept(m, j) == side {
                dat.extend_from_slice(sh.score(m, j));
                taken += 1;
            }
        }
    }
    dat
}

fn fit(
    sh: &Shadows,
    dat: &[f64],
    size: usize,
    global_std: Option<f64>,
    progress: &mut dyn FnMut(usize, usize) -> bool,
    done: &mut usize,
    total: usize,
) -> Result<Fit> {
    let a = sh.augmentations;
    let mut mean = vec![0.0; sh.examples * a];
    let mut std = if global_std.is_some() {
        Vec::new()
    } else {
        vec![0.0; sh.examples * a]
    };
    let mut col = vec![0.0; size];
    let step = (sh.examples / 100).max(1);
    for j in 0..sh.examples {
        let block = &dat[j * size * a..(j + 1) * size * a];
        for k in 0..a {
            for (i, c) in col.iter_mut().enumerate() {
                *c = block[i * a + k];
            }
            if global_std.is_none() {
                std[j * a + k] = std_in_order(&col);
            }
            mean[j * a + k] = median(&mut col);
        }
        *done += 1;
        if (*done).is_multiple_of(step) && !progress(*done, total) {
            return Err(Error::Cancelled);
        }
    }
    Ok(Fit { mean, std, global_std })
}

/// LiRA's scores of `params.targets` from the other models' results, as the module documentation says.
/// `progress(done, total)` is called every 1% of the examples fitted; `false` stops the run.
///
/// # Errors
/// A target index out of range, repeated, or every model a target (no shadows) ([`Error::InvalidParameter`]); an
/// example no shadow holds IN (online) or OUT (both Gaussian variants): `plot.py` would fit an empty set and score
/// NaN ([`Error::TooSmall`], naming the example); a zero size cap; [`Error::Cancelled`].
pub fn lira(sh: &Shadows, params: &LiraParams, progress: &mut dyn FnMut(usize, usize) -> bool) -> Result<LiraScores> {
    let v = params.variant;
    if params.targets.is_empty() {
        return Err(Error::param("targets", "none", "at least one target model"));
    }
    for (i, &t) in params.targets.iter().enumerate() {
        if t >= sh.models {
            return Err(Error::param(
                "targets",
                t,
                format!("a model index below {} (models are numbered from 0)", sh.models),
            ));
        }
        if params.targets[..i].contains(&t) {
            return Err(Error::param("targets", t, "each target model once"));
        }
    }
    let shadows = shadow_models(sh.models, &params.targets);
    if v != Variant::Global && shadows.is_empty() {
        return Err(Error::param(
            "targets",
            params.targets.len(),
            format!(
                "fewer targets than the {} models: the other models are the shadows",
                sh.models
            ),
        ));
    }
    if params.in_size == 0 || params.out_size == 0 {
        return Err(Error::param("in_size/out_size", 0, "at least 1"));
    }
    let counts = shadow_counts(sh, &shadows);
    let a = sh.augmentations;
    let mut in_size = 0;
    let mut out_size = 0;
    let total = sh.examples * (usize::from(v.uses_in()) + usize::from(v.uses_out()));
    let mut done = 0;
    let fit_in = if v.uses_in() {
        let (fewest, j) = counts.fewest_in();
        if fewest == 0 {
            return Err(Error::TooSmall {
                input: format!("example {j}"),
                got: 0,
                need: 1,
                unit: "IN shadow models",
                procedure: "online LiRA (mi_lira_2021/plot.py generate_ours)",
            });
        }
        in_size = fewest.min(params.in_size);
        let dat = gather(sh, &shadows, true, in_size);
        let g = v.fixed_variance().then(|| crate::numpy::std(&dat));
        Some(fit(sh, &dat, in_size, g, progress, &mut done, total)?)
    } else {
        None
    };
    let fit_out = if v.uses_out() {
        let (fewest, j) = counts.fewest_out();
        if fewest == 0 {
            return Err(Error::TooSmall {
                input: format!("example {j}"),
                got: 0,
                need: 1,
                unit: "OUT shadow models",
                procedure: if v.uses_in() {
                    "online LiRA (mi_lira_2021/plot.py generate_ours)"
                } else {
                    "offline LiRA (mi_lira_2021/plot.py generate_ours_offline)"
                },
            });
        }
        out_size = fewest.min(params.out_size);
        let dat = gather(sh, &shadows, false, out_size);
        // generate_ours(fix_variance=True): std_out = np.std(dat_in), as written.
        let g = match (v, &fit_in) {
            (Variant::OnlineFixedVariance, Some(f)) => f.global_std,
            (Variant::OfflineFixedVariance, _) => Some(crate::numpy::std(&dat)),
            _ => None,
        };
        Some(fit(sh, &dat, out_size, g, progress, &mut done, total)?)
    } else {
        None
    };
    let mut prediction = Vec::with_capacity(params.targets.len() * sh.examples);
    let mut answers = Vec::with_capacity(params.targets.len() * sh.examples);
    let mut per_aug = vec![0.0; a];
    for &t in &params.targets {
        for j in 0..sh.examples {
            let sc = sh.score(t, j);
            for (k, out) in per_aug.iter_mut().enumerate() {
                let s = sc[k];
                *out = match (&fit_in, &fit_out) {
                    (Some(fi), Some(fo)) => {
                        let pr_in = -norm_logpdf(s, fi.mean[j * a + k], fi.std(j, k, a) + 1e-30);
                        let pr_out = -norm_logpdf(s, fo.mean[j * a + k], fo.std(j, k, a) + 1e-30);
                        pr_in - pr_out
                    }
                    (None, Some(fo)) => norm_logpdf(s, fo.mean[j * a + k], fo.std(j, k, a) + 1e-30),
                    _ => s,
                };
            }
            let mean = per_aug.iter().fold(0.0, |acc, &x| acc + x) / a as f64;
            prediction.push(if v == Variant::Global { -mean } else { mean });
            answers.push(sh.kept(t, j));
        }
    }
    let membership = prediction.iter().map(|p| -p).collect();
    Ok(LiraScores {
        variant: v,
        targets: params.targets.clone(),
        shadows: shadows.len(),
        in_size,
        out_size,
        prediction,
        membership,
        answers,
    })
}

/// `score.py` `load_one` on one model's logits of shape `[examples, k, augmentations, classes]` (C order; `train.py`
/// saves `k = 1`) and `labels[examples]` (`y_train.npy`, class indices): per example and augmentation,
/// `log(mean_k p_y + 1e-45) − log(mean_k Σ_{c≠y} p_c + 1e-45)`. `float32`: the logits are float32 (their `exp` is
/// numpy's float32 `exp`, the subtraction of the maximum float32); else float64. Returns `examples × augmentations`.
///
/// # Errors
/// A shape whose product is not `logits.len()`; a label that is not a class index (naming the example); fewer
/// labels than examples (`score.py` reads `labels[:COUNT]`).
pub fn logit_scaled(logits: &[f64], shape: [usize; 4], labels: &[f64], float32: bool) -> Result<Vec<f64>> {
    let [n, k, aug, c] = shape;
    if n * k * aug * c != logits.len() || c == 0 || k == 0 {
        return Err(Error::ShapeMismatch {
            message: format!(
                "{} logits do not make examples × {k} × {aug} augmentations × {c} classes = {n}×{k}×{aug}×{c}",
                logits.len()
            ),
        });
    }
    if labels.len() < n {
        return Err(Error::ShapeMismatch {
            message: format!(
                "{} labels for {n} examples' logits: score.py reads one label per example",
                labels.len()
            ),
        });
    }
    let mut out = vec![0.0; n * aug];
    let mut p = vec![0.0; c];
    let mut y_true = vec![0.0; aug];
    let mut y_wrong = vec![0.0; aug];
    for i in 0..n {
        let y = labels[i];
        if !(y >= 0.0 && y.fract() == 0.0 && y < c as f64) {
            return Err(Error::OutOfDomain {
                input: "labels".into(),
                value: y,
                location: format!("example {i}"),
                domain: "the class indices 0..classes",
            });
        }
        let y = y as usize;
        y_true.iter_mut().for_each(|v| *v = 0.0);
        y_wrong.iter_mut().for_each(|v| *v = 0.0);
        for kk in 0..k {
            for a in 0..aug {
                let row = &logits[((i * k + kk) * aug + a) * c..][..c];
                if float32 {
                    let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x as f32));
                    for (o, &x) in p.iter_mut().zip(row) {
                        *o = f64::from(numpy_exp_f32(x as f32 - max));
                    }
                } else {
                    let max = row.iter().fold(f64::NEG_INFINITY, |m, &x| m.max(x));
                    for (o, &x) in p.iter_mut().zip(row) {
                        *o = (x - max).exp();
                    }
                }
                let total = crate::numpy::sum(&p);
                p.iter_mut().for_each(|v| *v /= total);
                // y_true.mean(1), y_wrong.mean(1): summed over k in order, divided by k below.
                y_true[a] += p[y];
                p[y] = 0.0;
                y_wrong[a] += crate::numpy::sum(&p);
            }
        }
        for a in 0..aug {
            let t = y_true[a] / k as f64;
            let w = y_wrong[a] / k as f64;
            out[i * aug + a] = (t + 1e-45).ln() - (w + 1e-45).ln();
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toy() -> Shadows {
        // 4 models × 3 examples × 2 augmentations; members score higher.
        let keep = vec![
            true, false, true, //
            false, true, true, //
            true, true, false, //
            false, false, false,
        ];
        let mut scores = Vec::new();
        for m in 0..4 {
            for j in 0..3 {
                for a in 0..2 {
                    let base = if keep[m * 3 + j] { 2.0 } else { -1.0 };
                    scores.push(base + 0.1 * (m as f64) - 0.05 * (a as f64) + 0.3 * (j as f64));
                }
            }
        }
        Shadows::new(4, 3, 2, scores, keep).unwrap()
    }

    #[test]
    fn norm_logpdf_matches_scipy() {
        // scipy.stats.norm.logpdf(1.5, 0.5, 2.0)
        assert!((norm_logpdf(1.5, 0.5, 2.0) - -1.737_085_713_764_618).abs() < 1e-15);
        assert!((norm_logpdf(0.0, 0.0, 1.0) - -0.918_938_533_204_672_7).abs() < 1e-15);
    }

    #[test]
    fn median_as_numpy() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), 2.5);
    }

    #[test]
    fn online_uses_smallest_in_count_and_last_target() {
        let sh = toy();
        let p = LiraParams::new(Variant::Online, 4);
        let r = lira(&sh, &p, &mut |_, _| true).unwrap();
        assert_eq!(r.targets, vec![3]);
        assert_eq!(r.shadows, 3);
        // Shadows 0..3: example 0 in {0, 2}, 1 in {1, 2}, 2 in {0, 1}: 2 each; out 1 each.
        assert_eq!((r.in_size, r.out_size), (2, 1));
        assert_eq!(r.answers, vec![false, false, false]);
        assert_eq!(r.membership.len(), 3);
        for (m, p) in r.membership.iter().zip(&r.prediction) {
            assert_eq!(*m, -p);
        }
    }

    #[test]
    fn refuses_example_without_in_shadow() {
        let sh = toy();
        let mut p = LiraParams::new(Variant::Online, 4);
        p.targets = vec![0];
        // Shadows 1, 2, 3: example 0 is in only model 2, example 2 in model 1 only: fine. Remove model 2 too.
        p.targets = vec![0, 2];
        let e = lira(&sh, &p, &mut |_, _| true).unwrap_err();
        assert!(e.to_string().contains("example 0"), "{e}");
        // Offline needs OUT shadows only: works.
        p.variant = Variant::Offline;
        assert!(lira(&sh, &p, &mut |_, _| true).is_ok());
    }

    #[test]
    fn global_is_minus_mean() {
        let sh = toy();
        let r = lira(&sh, &LiraParams::new(Variant::Global, 4), &mut |_, _| true).unwrap();
        let s = sh.score(3, 1);
        assert_eq!(r.prediction[1], -((s[0] + s[1]) / 2.0));
    }

    #[test]
    fn bad_targets_refused() {
        let sh = toy();
        let mut p = LiraParams::new(Variant::Offline, 4);
        p.targets = vec![4];
        assert!(lira(&sh, &p, &mut |_, _| true).is_err());
        p.targets = vec![1, 1];
        assert!(lira(&sh, &p, &mut |_, _| true).is_err());
        p.targets = vec![0, 1, 2, 3];
        assert!(lira(&sh, &p, &mut |_, _| true).is_err());
    }

    #[test]
    fn cancel_stops() {
        let sh = toy();
        let e = lira(&sh, &LiraParams::new(Variant::Online, 4), &mut |_, _| false).unwrap_err();
        assert!(matches!(e, Error::Cancelled));
    }

    #[test]
    fn logit_scaled_small() {
        // One example, k = 1, one augmentation, 3 classes, label 0: log(p0) − log(p1 + p2).
        let l = [2.0, 1.0, 0.0];
        let got = logit_scaled(&l, [1, 1, 1, 3], &[0.0], false).unwrap();
        let e: Vec<f64> = l.iter().map(|x| (x - 2.0f64).exp()).collect();
        let s: f64 = e.iter().sum();
        let want = (e[0] / s + 1e-45).ln() - ((e[1] + e[2]) / s + 1e-45).ln();
        assert!((got[0] - want).abs() < 1e-15);
        assert!(logit_scaled(&l, [1, 1, 1, 3], &[3.0], false).is_err());
    }
}
