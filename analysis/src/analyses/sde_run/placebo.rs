//! Placebo subsets: how often SDE's call is wrong on the user's own data, and what it can detect there.
//!
//! **Why.** One reference pair makes a noisy rule. The references' Mann–Whitney test takes each shuffle as the
//! sampling unit, but what varies from one subset of rows to the next is the subset itself: the exact shuffle mean
//! of a subset moves more between subsets than the two classes' means differ (`lethe::sde::calibrated` measured
//! 0.1–0.3 shuffle sds of shift on the demo's models). On the validity study's retrained models (docs/validity.md)
//! the paper rule and the exact means agreed on "in training" for 5 of 30 forget sets the model never saw.
//!
//! **Check.** [`PLACEBO_DRAWS`] subsets of the target's size are drawn (seeded) from each reference's whole input —
//! every row the user gave for the class, of which the reference subset is one draw — and their exact shuffle means
//! computed in closed form (each half's RBF kernel, no shuffles: `lethe::sde::moments::exact_mean_rbf`, each half
//! taking the run's bandwidth rule). With `dir` = +1 when the in-training placebos have the larger mean, a target's
//! exact mean `m` scores `z_out = (m − μ_out)·dir / s_out` against the out-of-training class and
//! `z_in = (μ_in − m)·dir / s_in` against the in-training one, where `μ` is the class's placebo mean and `s` the sd
//! a fresh subset's mean has about it: the placebos' sd `s_p` corrected for drawing from a finite pool of `N` rows,
//! `s_p²·(N − 1)/(N − n)`, times `1 + n/N` for the error of `μ` itself (it is the pool's, a sample of `N` rows), plus
//! `s_p²/K` for the draws'. A target is called in training only when `z_out ≥` [`t95`]`(K − 1)` (Student's t
//! 95%): an out-of-training subset gets there about 5% of the time. Out of training likewise
//! with `z_in`. The paper's rule and the reference pair's exact means must still agree.
//!
//! **What it can detect.** The share of each class's placebos the check tells apart from the other class (an
//! in-training placebo with `z_out` past the threshold): the detection rate of a subset of this size on this data, shown
//! whatever the call. And the share of out-of-training placebos the reference pair's own rule (the nearer exact mean)
//! calls in training: the single pair's false-call rate, which the check replaces.
//!
//! **Needs.** Each reference's input must hold at least twice the target's rows ([`PLACEBO_POOL`]), so that its
//! subsets vary as fresh ones would; otherwise, or when the check would take too long, no target is called and a
//! warning says how to give the rows.

use super::*;
use lethe::sde::placebo::{PlaceboClass, Placebos, t95};

/// Placebo subsets drawn per class.
pub(super) const PLACEBO_DRAWS: usize = 40;
/// A reference's input must hold at least this many times the target's rows.
const PLACEBO_POOL: usize = 2;
/// Multiply-adds the check may take: every pair of rows in both halves of the 2K placebos, `2·K·h²·d` (a few seconds
/// in the page's one worker at most); larger runs get no placebo check and so no call.
const PLACEBO_WORK: u64 = 2_000_000_000;
/// Mixed into the run's seed for the placebos' draws (not the targets', the splits' or the dispersion check's).
const PLACEBO_SEED: u64 = 0x706c_6163_6562_6f73;

/// What the check says in a headline (the numbers are the core's `lethe::sde::placebo`).
pub(super) trait PlaceboWords {
    fn power(&self, in_training: bool) -> String;
    fn evidence(&self, i: usize, in_training: bool) -> String;
}

impl PlaceboWords for Placebos {
    /// Detection in the headline's words: "an in-training subset of 100 rows is told apart in 9 of 40 draws".
    fn power(&self, in_training: bool) -> String {
        let (class, hit) = if in_training {
            ("an in-training", self.detected_in_training)
        } else {
            ("an out-of-training", self.detected_out_of_training)
        };
        format!(
            "{class} subset of {} rows is told apart in {hit} of {} placebo draws",
            self.rows, self.draws
        )
    }

    /// What the placebo check adds to target `i`'s confident call, for its headline: "; beyond what out-of-training
    /// subsets of its 100 rows reach by chance (3.1 of their sds; a call needs 1.68): an in-training subset …".
    fn evidence(&self, i: usize, in_training: bool) -> String {
        let Some(t) = self.targets.get(i) else {
            return String::new();
        };
        format!(
            ", beyond what {} subsets of its {} rows reach by chance ({} of their sds; a call needs {}); on this data \
             {}",
            if in_training { "out-of-training" } else { "in-training" },
            self.rows,
            num(if in_training {
                t.z_out_of_training
            } else {
                t.z_in_training
            }),
            num(self.threshold),
            self.power(in_training)
        )
    }
}

/// Why a run's calls have no placebo check to be read against.
pub(super) enum NoPlacebos {
    /// It cannot be made on this data: the reason, in the user's words.
    Unavailable(String),
    /// The run was stopped while the check was computed (issue 24): the paper rule's result is complete, and no
    /// target is called.
    Stopped,
}

/// The placebo check of a run: `Ok(None)` where there is nothing to check.
pub(super) type PlaceboCheck = std::result::Result<Option<Placebos>, NoPlacebos>;

/// What the check draws from: the placebos' rows (the target's), half of them, the values per row, and each
/// class's pool of rows.
struct PlaceboPlan {
    rows: usize,
    h: usize,
    cols: usize,
    pools: [Vec<usize>; 2],
}

impl SdeJob {
    /// The check's rows and pools; `Ok(None)` without a target, `Err(why)` where it cannot be made (too much work,
    /// a pool too small), in the user's words.
    fn placebo_plan(&self) -> std::result::Result<Option<PlaceboPlan>, String> {
        let Some(&rows) = self.subset_rows().get(2) else {
            return Ok(None);
        };
        let h = rows / 2;
        let cols = self.inputs[self.subsets[0].input].cols();
        let work = 2 * PLACEBO_DRAWS as u64 * (h * h) as u64 * cols as u64;
        if work > PLACEBO_WORK {
            return Err(format!(
                "placebo subsets of {rows} rows × {cols} values would take too long to compute here (about {} \
                 billion multiply-adds)",
                work / 1_000_000_000
            ));
        }
        let mut pools = [Vec::new(), Vec::new()];
        for (c, class) in [(0usize, "in-training"), (1, "out-of-training")] {
            let holding = &self.inputs[self.subsets[c].input];
            let pool = selection(holding).unwrap_or_else(|| (0..holding.rows()).collect());
            if pool.len() < PLACEBO_POOL * rows {
                return Err(format!(
                    "the {class} reference's input ({}) holds {} rows; placebo subsets of the target's {rows} rows \
                     need at least {}",
                    holding.record().path,
                    pool.len(),
                    PLACEBO_POOL * rows
                ));
            }
            pools[c] = pool;
        }
        Ok(Some(PlaceboPlan { rows, h, cols, pools }))
    }

    /// The placebo check's share of a complete run's progress (0 where it is not made): its multiply-adds,
    /// `2·K·h²·d` for the 2K placebos' halves of `h` rows of `d` values, against the subsets' — each subset's
    /// kernels, `h²·d`, and its shuffles, `h²` each (the core's progress weights). The subsets fill the bar up to
    /// `1 − share` and the check the rest, so that the bar moves during the check and never goes back (issue 24).
    pub(super) fn placebo_share(&self) -> f64 {
        let Ok(Some(plan)) = self.placebo_plan() else {
            return 0.0;
        };
        let d = plan.cols as f64;
        let check = 2.0 * PLACEBO_DRAWS as f64 * (plan.h * plan.h) as f64 * d;
        let subsets: f64 = self
            .subset_rows()
            .iter()
            .map(|&r| ((r / 2) * (r / 2)) as f64 * (d + self.params.shuffles as f64))
            .sum();
        if check + subsets > 0.0 {
            check / (check + subsets)
        } else {
            0.0
        }
    }

    /// The placebo check of a finished run ([`Placebos`]), reporting to `monitor` before each of its exact means,
    /// which may stop it ([`NoPlacebos::Stopped`]: a Cancel ends the run within one exact mean, issue 24);
    /// `Ok(None)` where there is nothing to check (no target, or a run stopped early: it calls no target, and the
    /// check's exact means, seconds of work on a large file, would delay the partial result after a Cancel),
    /// [`NoPlacebos::Unavailable`] where it cannot be made.
    pub(super) async fn placebos<S: HeldScalar, M: Monitor>(
        &self,
        report: &SdeReport,
        monitor: &mut M,
    ) -> PlaceboCheck {
        let Some(oot) = report.out_of_training_reference.as_ref() else {
            return Ok(None);
        };
        if !report.complete || !report.in_training_reference.complete || !oot.complete || report.targets.is_empty() {
            return Ok(None);
        }
        let Some(PlaceboPlan { rows, h, pools, .. }) = self.placebo_plan().map_err(NoPlacebos::Unavailable)? else {
            return Ok(None);
        };
        let unavailable = |e: Error| NoPlacebos::Unavailable(e.to_string());
        let files = self.files().map_err(unavailable)?;
        // The subsets filled the bar up to `1 − share`; each exact mean moves it on.
        let share = self.placebo_share();
        let total = 2 * PLACEBO_DRAWS;
        let mut classes = Vec::new();
        for (c, pool) in pools.iter().enumerate() {
            let source = self.inputs[self.subsets[c].input]
                .source::<S>(files[self.subsets[c].input].as_ref())
                .map_err(unavailable)?;
            let mut means = Vec::with_capacity(PLACEBO_DRAWS);
            for k in 0..PLACEBO_DRAWS {
                let done = c * PLACEBO_DRAWS + k;
                let progress = Progress {
                    fraction: 1.0 - share + share * done as f64 / total as f64,
                    phase: format!("placebo check ({done}/{total})"),
                };
                if !monitor.checkpoint(&progress).await {
                    return Err(NoPlacebos::Stopped);
                }
                let picked = equal_size_draw(self.params.seed ^ PLACEBO_SEED, done, pool.len(), 2 * h);
                let picked: Vec<usize> = picked.iter().map(|&p| pool[p]).collect();
                means.push(exact_mean(source, &picked[..h], &picked[h..], self.params.bandwidth).map_err(unavailable)?);
            }
            classes.push(PlaceboClass::of(means, pool.len(), rows));
        }
        // The check is done and the bar full; a stop asked for now has nothing left to stop.
        let _ = monitor
            .checkpoint(&Progress {
                fraction: 1.0,
                phase: format!("placebo check ({total}/{total})"),
            })
            .await;
        let oot_class = classes.pop().expect("two classes");
        let it_class = classes.pop().expect("two classes");
        let mut p = Placebos {
            rows,
            draws: PLACEBO_DRAWS,
            threshold: t95((PLACEBO_DRAWS - 1) as f64),
            in_training_higher: it_class.mean > oot_class.mean,
            in_training: it_class,
            out_of_training: oot_class,
            detected_in_training: 0,
            detected_out_of_training: 0,
            pair_false_in_training: 0,
            pair_false_out_of_training: 0,
            targets: Vec::new(),
        };
        let (mi, mo) = (report.in_training_reference.moments.mean, oot.moments.mean);
        let nearer_in = |m: f64| (m - mi).abs() < (m - mo).abs();
        let q = p.threshold;
        p.detected_in_training = p.in_training.means.iter().filter(|&&m| p.z(m).0 >= q).count();
        p.detected_out_of_training = p.out_of_training.means.iter().filter(|&&m| p.z(m).1 >= q).count();
        p.pair_false_in_training = p.out_of_training.means.iter().filter(|&&m| nearer_in(m)).count();
        p.pair_false_out_of_training = p.in_training.means.iter().filter(|&&m| !nearer_in(m)).count();
        p.targets = report
            .targets
            .iter()
            .map(|t| {
                let m = t.distribution.moments.mean;
                let (z_out, z_in) = p.z(m);
                PlaceboTarget {
                    name: t.name.clone(),
                    exact_mean: m,
                    z_out_of_training: z_out,
                    z_in_training: z_in,
                }
            })
            .collect();
        Ok(Some(p))
    }
}

/// The exact shuffle mean of the subset whose halves are rows `first` and `second` of `source`:
/// `h (1 − K̄₁)(1 − L̄₂,off)/(h − 1)²`, each half's RBF kernel under `bandwidth` as the run computes each half's (the
/// median heuristic: numpy's median of the half's pairwise distances, 1 where it is 0). The kernels' pair sums come
/// from one loop over the rows, as the dispersion check's: the kernel module's panelled code is the run's, and
/// would take another copy of it into the page's first module.
fn exact_mean<S: lethe::data::Scalar>(
    source: lethe::data::Source<'_, S>,
    first: &[usize],
    second: &[usize],
    bandwidth: lethe::kernel::Bandwidth,
) -> Result<f64> {
    let h = first.len();
    let pair_mean = |rows: &[usize]| -> Result<f64> {
        let mut c = source.columns("placebo", Some(rows))?;
        let (n, d) = (c.rows(), c.cols());
        let mut x = Vec::new();
        c.read(0, d, &mut x)?;
        let mut d2 = Vec::with_capacity(n * n.saturating_sub(1) / 2);
        for i in 0..n {
            for j in i + 1..n {
                let (a, b) = (&x[i * d..(i + 1) * d], &x[j * d..(j + 1) * d]);
                d2.push(
                    a.iter()
                        .zip(b)
                        .map(|(u, v)| (u.to_f64() - v.to_f64()).powi(2))
                        .sum::<f64>(),
                );
            }
        }
        let sigma = match bandwidth {
            lethe::kernel::Bandwidth::SqrtDim => (d as f64).sqrt(),
            lethe::kernel::Bandwidth::Fixed(s) => s,
            lethe::kernel::Bandwidth::Median => median_distance(&d2),
        };
        let scale = -0.5 / (sigma * sigma);
        Ok(d2.iter().map(|v| (v * scale).exp()).sum::<f64>() / d2.len().max(1) as f64)
    };
    let (k_off, l_off) = (pair_mean(first)?, pair_mean(second)?);
    // K̄₁ over all h² entries: the unit diagonal and both triangles.
    let hf = h as f64;
    let k_all = (hf + k_off * hf * (hf - 1.0)) / (hf * hf);
    Ok(lethe::sde::moments::exact_mean_rbf(h, k_all, l_off))
}

/// numpy's median of the distances `sqrt(d2)` (the mean of the two middle ones for an even count), 1 where it is 0
/// or there are none: the kernel module's median heuristic.
fn median_distance(d2: &[f64]) -> f64 {
    let mut v: Vec<f64> = d2.iter().map(|x| x.sqrt()).collect();
    let m = lethe::kernel::median_in_place(&mut v);
    if m > 0.0 && m.is_finite() { m } else { 1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check's exact mean of a subset equals the core's (the run's kernels and `moments`), for each bandwidth.
    #[test]
    fn exact_mean_is_the_cores() {
        let (n, d) = (24, 5);
        let mut s = 7u64;
        let v: Vec<f64> = (0..n * d)
            .map(|_| {
                s = s
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (s >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        let m = lethe::Matrix::from_vec(n, d, v).unwrap();
        let rows: Vec<usize> = (0..n).collect();
        for bw in [
            lethe::kernel::Bandwidth::SqrtDim,
            lethe::kernel::Bandwidth::Median,
            lethe::kernel::Bandwidth::Fixed(0.7),
        ] {
            let params = SdeParams {
                bandwidth: bw,
                shuffles: 5,
                ..SdeParams::default()
            };
            let core = lethe::sde::split_half(m.view(), &params).unwrap().moments.mean;
            let ours = exact_mean(lethe::data::Source::Memory(m.view()), &rows[..12], &rows[12..], bw).unwrap();
            assert!(
                (core - ours).abs() <= 1e-12 * core.abs(),
                "{bw:?}: core {core}, check {ours}"
            );
        }
    }
}
