//! RULER: representation-level verification of unlearning (Cosma et al.), on penultimate-layer embeddings.
//!
//! Embeddings are L2-normalised row-wise, `x / max(‖x‖, 1e-12)` (an all-zero row, e.g. from dead ReLUs, stays 0).
//! With `cos(A, B)_i` the row-wise cosine of aligned rows, clipped to [−1, 1]:
//!
//! ```text
//! m1  oracle similarity     = mean_f cos(U, O)                                   (Eq. 2, no fixed null)
//! m2  calibration gap       = mean_f cos(U, O) − median_r cos(U, O)              (Eq. 3, null 0)
//! m3  representation shift  = mean_f [cos(U, O) − cos(Orig, O)]                  (Eq. 4, null 0)
//! m4  NN percentile rank    = mean_f #{r : w_r ≤ v_f} / |R|                      (Eqs. 5–7, null 0.5)
//!     v_f = max_r ⟨u_f, u_r⟩,  w_r = max_{r' ≠ r} ⟨u_r, u_r'⟩   (unlearned model only, leave-one-out)
//! ```
//!
//! Defaults follow the authors' code (gcosma/RULER `ruler/metrics.py`), including its numpy arithmetic (row norms,
//! row-wise dot products and means are numpy's pairwise sums, [`crate::numpy`]): ε = 1e-12; inputs must be 2-D, non-empty
//! and finite; a row whose squared norm overflows, or a non-zero row whose norm underflows to 0, is an error
//! (rescale: the metrics are scale-free); the row-wise cosines are clipped to [−1, 1] but the nearest-neighbour
//! similarities are not; ties in m4 count as `≤` (`np.searchsorted(..., side="right")`). [`TieRule::Half`]
//! counts ties as 1/2 (scipy `percentileofscore(kind="mean")`, the convention of the project's golden vectors).
//! Under the null each forget record's rank is ~uniform, so m4 has standard deviation `1/sqrt(12 n_f)`.

use serde::{Deserialize, Serialize};

use crate::data::{Matrix, MatrixRef, Scalar};
use crate::error::{Error, Result};
use crate::numpy::{self, mean};

/// Guards division by zero for an all-zero embedding (RULER `_EPS`).
pub const NORM_EPS: f64 = 1e-12;

/// How m4 counts retain similarities equal to a forget record's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TieRule {
    /// `w_r ≤ v_f` counts fully — the RULER authors' code.
    #[default]
    AtMost,
    /// `w_r < v_f` counts 1, `w_r = v_f` counts 1/2.
    Half,
}

/// Validates and L2-normalises the rows of `x` (see the module docs for the rules).
///
/// # Errors
/// Empty input, non-finite values, or rows whose norm overflows/underflows f64.
pub fn normalise<S: Scalar>(x: MatrixRef<'_, S>, name: &str) -> Result<Matrix<f64>> {
    if x.rows() == 0 || x.cols() == 0 {
        return Err(Error::Empty {
            input: name.into(),
            fix: format!("it has shape {}×{}; pass one embedding per row", x.rows(), x.cols()),
        });
    }
    crate::check::matrix(name, x, 1, "RULER")?;
    let d = x.cols();
    let mut out = Vec::with_capacity(x.rows() * d);
    for i in 0..x.rows() {
        let row = x.row(i);
        let sq: Vec<f64> = row.iter().map(|v| v.to_f64() * v.to_f64()).collect();
        let norm = numpy::sum(&sq).sqrt();
        if !norm.is_finite() {
            return Err(Error::OutOfDomain {
                input: name.into(),
                value: norm,
                location: format!("row {i} (counting from 0; its norm)"),
                domain: "the range whose squared norm fits in f64; rescale the embeddings (the metrics are scale-free)",
            });
        }
        if norm == 0.0 && row.iter().any(|v| v.to_f64() != 0.0) {
            return Err(Error::OutOfDomain {
                input: name.into(),
                value: 0.0,
                location: format!("row {i} (counting from 0; non-zero, but its squared norm underflows to 0)"),
                domain: "the range whose squared norm is representable; rescale the embeddings",
            });
        }
        let denom = norm.max(NORM_EPS);
        out.extend(row.iter().map(|v| v.to_f64() / denom));
    }
    Matrix::from_vec(x.rows(), d, out)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    let tail: f64 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    (acc[0] + acc[2]) + (acc[1] + acc[3]) + tail
}

/// Row-wise cosine similarity of aligned inputs (RULER Eq. 1), clipped to [−1, 1].
///
/// # Errors
/// Invalid inputs (see [`normalise`]) or differing shapes (they must hold the same records in the same order).
///
/// # Examples
/// ```
/// use lethe::{ruler::cosine_rowwise, Matrix};
/// let a = Matrix::from_rows(&[[1.0, 0.0], [0.0, 2.0]]).unwrap();
/// let b = Matrix::from_rows(&[[2.0, 0.0], [1.0, 0.0]]).unwrap();
/// assert_eq!(cosine_rowwise(a.view(), b.view(), ("a", "b")).unwrap(), vec![1.0, 0.0]);
/// ```
pub fn cosine_rowwise<S: Scalar>(a: MatrixRef<'_, S>, b: MatrixRef<'_, S>, names: (&str, &str)) -> Result<Vec<f64>> {
    let (na, nb) = (normalise(a, names.0)?, normalise(b, names.1)?);
    if (na.rows(), na.cols()) != (nb.rows(), nb.cols()) {
        return Err(Error::ShapeMismatch {
            message: format!(
                "`{}` is {}×{} but `{}` is {}×{}; they must hold the same records in the same order",
                names.0,
                na.rows(),
                na.cols(),
                names.1,
                nb.rows(),
                nb.cols()
            ),
        });
    }
    // `np.sum(left * right, axis=1)`: products, then numpy's pairwise sum, as the authors' code.
    let mut prod = vec![0.0; na.cols()];
    Ok((0..na.rows())
        .map(|i| {
            for ((p, a), b) in prod.iter_mut().zip(na.row(i)).zip(nb.row(i)) {
                *p = a * b;
            }
            numpy::sum(&prod).clamp(-1.0, 1.0)
        })
        .collect())
}

/// m1: mean cosine similarity of forget records between the unlearned model and the oracle (Eq. 2).
///
/// # Errors
/// See [`cosine_rowwise`].
pub fn oracle_similarity<S: Scalar>(
    unlearned_forget: MatrixRef<'_, S>,
    oracle_forget: MatrixRef<'_, S>,
) -> Result<f64> {
    Ok(mean(&cosine_rowwise(
        unlearned_forget,
        oracle_forget,
        ("unlearned_forget", "oracle_forget"),
    )?))
}

/// m2: signed calibration gap, m1 minus the **median** retain-record similarity between the same models (Eq. 3).
/// Negative: residual memorisation; positive: over-correction. Null 0.
///
/// # Errors
/// See [`cosine_rowwise`].
pub fn calibration_gap<S: Scalar>(
    unlearned_forget: MatrixRef<'_, S>,
    oracle_forget: MatrixRef<'_, S>,
    unlearned_retain: MatrixRef<'_, S>,
    oracle_retain: MatrixRef<'_, S>,
) -> Result<f64> {
    let f = cosine_rowwise(unlearned_forget, oracle_forget, ("unlearned_forget", "oracle_forget"))?;
    let mut r = cosine_rowwise(unlearned_retain, oracle_retain, ("unlearned_retain", "oracle_retain"))?;
    Ok(mean(&f) - crate::kernel::median_in_place(&mut r))
}

/// m3: representation shift towards the oracle, `mean_f [cos(U, O) − cos(Orig, O)]` (Eq. 4). Null 0.
///
/// # Errors
/// See [`cosine_rowwise`].
pub fn representation_shift<S: Scalar>(
    unlearned_forget: MatrixRef<'_, S>,
    original_forget: MatrixRef<'_, S>,
    oracle_forget: MatrixRef<'_, S>,
) -> Result<f64> {
    let after = cosine_rowwise(unlearned_forget, oracle_forget, ("unlearned_forget", "oracle_forget"))?;
    let before = cosine_rowwise(original_forget, oracle_forget, ("original_forget", "oracle_forget"))?;
    let diff: Vec<f64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    Ok(mean(&diff))
}

/// m4 with its per-record parts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PercentileRank {
    /// The metric: mean percentile rank over forget records. Null 0.5.
    pub value: f64,
    /// Each forget record's rank in [0, 1].
    pub ranks: Vec<f64>,
    /// `v_f`: each forget record's highest similarity to a retain record.
    pub forget_nn: Vec<f64>,
    /// `w_r`: each retain record's highest similarity to another retain record.
    pub retain_nn: Vec<f64>,
    /// Standard deviation of m4 under the null, `1/sqrt(12 n_f)`.
    pub null_sd: f64,
    pub tie_rule: TieRule,
}

/// Highest inner product of each query row with the gallery rows (all rows unit-normalised), skipping the
/// gallery row with the same index when `exclude_self`.
fn nearest(query: &Matrix<f64>, gallery: &Matrix<f64>, exclude_self: bool) -> Vec<f64> {
    (0..query.rows())
        .map(|i| {
            let q = query.row(i);
            let mut best = f64::NEG_INFINITY;
            for r in 0..gallery.rows() {
                if exclude_self && r == i {
                    continue;
                }
                best = best.max(dot(q, gallery.row(r)));
            }
            best
        })
        .collect()
}

/// Steps of work of m4's nearest-neighbour search for `n_f` forget and `n_r` retain records of `d` dimensions:
/// every forget and every retain record against every retain record. Saturating.
pub fn nearest_steps(n_f: usize, n_r: usize, d: usize) -> u64 {
    crate::check::mul(n_f.saturating_add(n_r), n_r).saturating_mul(d.max(1) as u64)
}

/// m4: oracle-free nearest-retain-neighbour percentile rank (Eqs. 5–7), from the unlearned model's embeddings of
/// the forget and retain records.
///
/// # Errors
/// Invalid inputs (see [`normalise`]), differing embedding dimensions, fewer than 2 retain records.
///
/// # Examples
/// ```
/// use lethe::{ruler::{nn_percentile_rank, TieRule}, Matrix};
/// let retain = Matrix::from_rows(&[[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]]).unwrap();
/// let forget = Matrix::from_rows(&[[1.0, 0.05]]).unwrap();
/// let r = nn_percentile_rank(forget.view(), retain.view(), TieRule::AtMost).unwrap();
/// assert!(r.value > 0.5);
/// ```
pub fn nn_percentile_rank<S: Scalar>(
    forget: MatrixRef<'_, S>,
    retain: MatrixRef<'_, S>,
    tie_rule: TieRule,
) -> Result<PercentileRank> {
    let (n_f, n_r, d) = (forget.rows(), retain.rows(), retain.cols());
    crate::check::Budget::default()
        .add(
            crate::check::Cause::input("retain"),
            format!("the nearest-neighbour search of {n_f} forget and {n_r} retain records"),
            crate::check::mul(n_f.saturating_add(n_r), d.saturating_add(4)).saturating_mul(8),
            nearest_steps(n_f, n_r, d),
            "use fewer retain records (the search compares every record with every retain record)",
        )
        .check()?;
    let f = normalise(forget, "forget")?;
    let r = normalise(retain, "retain")?;
    if f.cols() != r.cols() {
        return Err(Error::ShapeMismatch {
            message: format!(
                "embedding dimension mismatch: forget has {} columns, retain {}",
                f.cols(),
                r.cols()
            ),
        });
    }
    if r.rows() < 2 {
        return Err(Error::TooSmall {
            input: "retain".into(),
            got: r.rows(),
            need: 2,
            unit: "rows",
            procedure: "the leave-one-out nearest-neighbour rank (m4)",
        });
    }
    let forget_nn = nearest(&f, &r, false);
    let retain_nn = nearest(&r, &r, true);
    let mut sorted = retain_nn.clone();
    sorted.sort_by(f64::total_cmp);
    let m = sorted.len() as f64;
    let ranks: Vec<f64> = forget_nn
        .iter()
        .map(|&v| {
            let at_most = sorted.partition_point(|&w| w <= v) as f64;
            match tie_rule {
                TieRule::AtMost => at_most / m,
                TieRule::Half => {
                    let below = sorted.partition_point(|&w| w < v) as f64;
                    (below + 0.5 * (at_most - below)) / m
                }
            }
        })
        .collect();
    Ok(PercentileRank {
        value: mean(&ranks),
        null_sd: 1.0 / (12.0 * ranks.len() as f64).sqrt(),
        ranks,
        forget_nn,
        retain_nn,
        tie_rule,
    })
}

/// Embeddings for [`all_metrics`]. The `*_retain` inputs are compared row by row across models, so they must
/// hold the same records in the same order; likewise the `*_forget` inputs. Without retain records distinct from
/// the forget records (`unlearned_retain: None`), m2 and m4 are withheld and m1 and m3, which use the forget
/// records only, are still computed (as the authors' tests compute them).
#[derive(Clone, Copy, Debug)]
pub struct RulerInputs<'a, S> {
    pub unlearned_forget: MatrixRef<'a, S>,
    pub unlearned_retain: Option<MatrixRef<'a, S>>,
    pub oracle_forget: Option<MatrixRef<'a, S>>,
    pub oracle_retain: Option<MatrixRef<'a, S>>,
    pub original_forget: Option<MatrixRef<'a, S>>,
}

/// All four metrics; those whose inputs are missing are `None` (as the authors' `all_metrics` returns `None` for
/// m3 without the original model, rather than a misleading zero), and those withheld are named in `withheld`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RulerReport {
    pub oracle_similarity: Option<f64>,
    pub calibration_gap: Option<f64>,
    pub representation_shift: Option<f64>,
    /// `None` when withheld (no retain records distinct from the forget records).
    pub nn_percentile_rank: Option<PercentileRank>,
    /// The metrics that could not be computed from the inputs given, each with the reason.
    pub withheld: Vec<Withheld>,
    /// Null values: m2 0, m3 0, m4 0.5 (m1 has none).
    pub nulls: RulerNulls,
    pub n_forget: usize,
    pub n_retain: usize,
}

/// A metric not computed, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Withheld {
    pub metric: &'static str,
    pub reason: String,
}

/// Why m2 and m4 are withheld when the forget records are also the retain records.
pub const NEEDS_DISTINCT_RETAIN: &str = "needs retain rows distinct from the forget rows";

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RulerNulls {
    pub calibration_gap: f64,
    pub representation_shift: f64,
    pub nn_percentile_rank: f64,
}

/// The null value of each metric.
pub const NULLS: RulerNulls = RulerNulls {
    calibration_gap: 0.0,
    representation_shift: 0.0,
    nn_percentile_rank: 0.5,
};

/// Computes every metric the given inputs allow.
///
/// # Errors
/// As the individual metrics.
pub fn all_metrics<S: Scalar>(inputs: &RulerInputs<'_, S>, tie_rule: TieRule) -> Result<RulerReport> {
    let uf = inputs.unlearned_forget;
    let m1 = inputs.oracle_forget.map(|of| oracle_similarity(uf, of)).transpose()?;
    let m2 = match (inputs.oracle_forget, inputs.oracle_retain, inputs.unlearned_retain) {
        (Some(of), Some(or), Some(ur)) => Some(calibration_gap(uf, of, ur, or)?),
        _ => None,
    };
    let m3 = match (inputs.original_forget, inputs.oracle_forget) {
        (Some(orig), Some(of)) => Some(representation_shift(uf, orig, of)?),
        _ => None,
    };
    let m4 = inputs
        .unlearned_retain
        .map(|ur| nn_percentile_rank(uf, ur, tie_rule))
        .transpose()?;
    let mut withheld = Vec::new();
    if inputs.unlearned_retain.is_none() {
        if inputs.oracle_forget.is_some() {
            withheld.push(Withheld {
                metric: "calibration_gap",
                reason: NEEDS_DISTINCT_RETAIN.into(),
            });
        }
        withheld.push(Withheld {
            metric: "nn_percentile_rank",
            reason: NEEDS_DISTINCT_RETAIN.into(),
        });
    }
    Ok(RulerReport {
        oracle_similarity: m1,
        calibration_gap: m2,
        representation_shift: m3,
        nn_percentile_rank: m4,
        withheld,
        nulls: NULLS,
        n_forget: uf.rows(),
        n_retain: inputs.unlearned_retain.map_or(0, |r| r.rows()),
    })
}

/// One metric tested against its null across runs (RULER §4: one value per training seed).
#[derive(Clone, Debug, Serialize)]
pub struct MetricAcrossRuns {
    pub metric: &'static str,
    pub null: f64,
    pub values: Vec<f64>,
    /// Two-sided Wilcoxon signed-rank test of `value − null` (scipy defaults).
    pub wilcoxon: crate::wilcoxon::WilcoxonResult,
    /// Matched-pairs rank-biserial effect size of `value − null` (zeros dropped).
    pub rank_biserial: Option<f64>,
    /// Benjamini–Hochberg adjusted p across the metrics tested.
    pub p_adjusted: f64,
    pub reject: bool,
}

/// A metric the test across runs could not be applied to, with its values and the reason.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricNotTested {
    pub metric: &'static str,
    pub null: f64,
    pub values: Vec<f64>,
    pub reason: String,
}

/// The across-runs analysis of several [`RulerReport`]s: for m2, m3 and m4 (m1 has no null), a Wilcoxon
/// signed-rank test of the runs' values against the null, then Benjamini–Hochberg at level `fdr` across the
/// metrics tested. A metric missing from some run (e.g. m3 without the original model) is skipped; a metric with
/// the same value in every run (e.g. m3 when the unlearned model is the original: 0 in every run), or whose test
/// cannot be computed, is not tested and is returned with the reason; the other metrics are still tested, and
/// corrected among themselves.
///
/// # Errors
/// `fdr` outside (0, 1).
pub fn across_runs(reports: &[RulerReport], fdr: f64) -> Result<(Vec<MetricAcrossRuns>, Vec<MetricNotTested>)> {
    use crate::wilcoxon::{AllZero, WilcoxonParams, ZeroMethod, rank_biserial, wilcoxon_with};
    crate::check::unit_open("fdr", fdr)?;
    let series: [(&'static str, f64, Vec<Option<f64>>); 3] = [
        (
            "calibration_gap",
            NULLS.calibration_gap,
            reports.iter().map(|r| r.calibration_gap).collect(),
        ),
        (
            "representation_shift",
            NULLS.representation_shift,
            reports.iter().map(|r| r.representation_shift).collect(),
        ),
        (
            "nn_percentile_rank",
            NULLS.nn_percentile_rank,
            reports
                .iter()
                .map(|r| r.nn_percentile_rank.as_ref().map(|m| m.value))
                .collect(),
        ),
    ];
    let mut not_tested = Vec::new();
    let mut tests = Vec::new();
    for (metric, null, vals) in series {
        let Some(values) = vals.into_iter().collect::<Option<Vec<f64>>>() else {
            continue;
        };
        let Some(&v) = values.first() else { continue };
        // The same value in every run: nothing varies across the runs to test (at the null, every difference is
        // zero and the Wilcoxon p-value is undefined; elsewhere, runs from different seeds would differ).
        if values.len() >= 2 && values.windows(2).all(|w| w[0].to_bits() == w[1].to_bits()) {
            let reason = if v == null {
                format!(
                    "every run gives exactly {v}, its null: there is no difference to test (identical inputs give \
                     this, e.g. an unlearned model that is the original or the oracle)"
                )
            } else {
                format!(
                    "every run gives exactly {v}: runs from different seeds would differ, so these look like one \
                     run repeated"
                )
            };
            not_tested.push(MetricNotTested {
                metric,
                null,
                values,
                reason,
            });
            continue;
        }
        let d: Vec<f64> = values.iter().map(|v| v - null).collect();
        match wilcoxon_with(&d, None, &WilcoxonParams::default(), AllZero::Nan) {
            Ok(w) if w.p_value.is_finite() => {
                let rb = rank_biserial(&d, None, ZeroMethod::Wilcox).ok();
                tests.push((metric, null, values, w, rb));
            }
            Ok(_) => not_tested.push(MetricNotTested {
                metric,
                null,
                values,
                reason: "the Wilcoxon test across runs gives no p-value for these values".into(),
            }),
            Err(e) => not_tested.push(MetricNotTested {
                metric,
                null,
                values,
                reason: format!("the Wilcoxon test across runs could not be computed: {e}"),
            }),
        }
    }
    let mut out = Vec::with_capacity(tests.len());
    if !tests.is_empty() {
        let p: Vec<f64> = tests.iter().map(|t| t.3.p_value).collect();
        let bh = crate::multiple_testing::benjamini_hochberg(&p, fdr)?;
        for ((metric, null, values, w, rb), (adj, rej)) in tests.into_iter().zip(bh.p_adjusted.iter().zip(&bh.reject)) {
            out.push(MetricAcrossRuns {
                metric,
                null,
                values,
                wilcoxon: w,
                rank_biserial: rb,
                p_adjusted: *adj,
                reject: *rej,
            });
        }
    }
    Ok((out, not_tested))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_rows_stay_zero_and_bad_rows_are_errors() {
        let z = Matrix::from_rows(&[[0.0, 0.0], [3.0, 4.0]]).unwrap();
        let n = normalise(z.view(), "x").unwrap();
        assert_eq!(n.row(0), &[0.0, 0.0]);
        assert_eq!(n.row(1), &[0.6, 0.8]);
        let big = Matrix::from_rows(&[[1e200, 1e200]]).unwrap();
        assert!(normalise(big.view(), "x").unwrap_err().to_string().contains("rescale"));
        let tiny = Matrix::from_rows(&[[1e-300, 0.0]]).unwrap();
        assert!(normalise(tiny.view(), "x").is_err());
        let nan = Matrix::from_rows(&[[f64::NAN, 0.0]]).unwrap();
        assert!(
            normalise(nan.view(), "oracle_forget")
                .unwrap_err()
                .to_string()
                .contains("oracle_forget")
        );
    }

    #[test]
    fn percentile_rank_needs_two_retain_rows_and_matching_dims() {
        let one = Matrix::from_rows(&[[1.0, 0.0]]).unwrap();
        assert!(nn_percentile_rank(one.view(), one.view(), TieRule::AtMost).is_err());
        let three = Matrix::from_rows(&[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]).unwrap();
        assert!(nn_percentile_rank(one.view(), three.view(), TieRule::AtMost).is_err());
    }

    #[test]
    fn tie_rules_differ_only_on_ties() {
        // Retain records pairwise identical → w_r = 1; a forget record equal to them has v_f = 1: a tie.
        let retain = Matrix::from_rows(&[[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]).unwrap();
        let forget = Matrix::from_rows(&[[1.0, 0.0]]).unwrap();
        assert_eq!(
            nn_percentile_rank(forget.view(), retain.view(), TieRule::AtMost)
                .unwrap()
                .value,
            1.0
        );
        assert_eq!(
            nn_percentile_rank(forget.view(), retain.view(), TieRule::Half)
                .unwrap()
                .value,
            0.5
        );
    }

    /// m4 compares every record with every retain record: a million retain records take ~10¹² steps and are
    /// refused before the search; the arithmetic is the product.
    #[test]
    fn nearest_neighbour_search_has_a_time_bound() {
        assert_eq!(nearest_steps(10, 1_000_000, 2), 1_000_010 * 1_000_000 * 2);
        let retain = Matrix::from_vec(1_000_000, 2, vec![1.0; 2_000_000]).unwrap();
        let forget = Matrix::from_rows(&[[1.0, 0.0]]).unwrap();
        let limits = crate::check::limits();
        if nearest_steps(1, 1_000_000, 2) > limits.work {
            let e = nn_percentile_rank(forget.view(), retain.view(), TieRule::AtMost)
                .unwrap_err()
                .to_string();
            let e = crate::words::cli(&e);
            assert!(
                e.starts_with("input `retain` is too large: the nearest-neighbour search"),
                "{e}"
            );
        }
    }

    fn report(m2: f64, m3: f64, m4: f64) -> RulerReport {
        RulerReport {
            oracle_similarity: Some(0.9),
            calibration_gap: Some(m2),
            representation_shift: Some(m3),
            nn_percentile_rank: Some(PercentileRank {
                value: m4,
                ranks: Vec::new(),
                forget_nn: Vec::new(),
                retain_nn: Vec::new(),
                null_sd: 0.04,
                tie_rule: TieRule::AtMost,
            }),
            withheld: Vec::new(),
            nulls: NULLS,
            n_forget: 48,
            n_retain: 100,
        }
    }

    /// m3 is exactly 0 in every run when the unlearned model is the original: its Wilcoxon p-value is undefined
    /// (it used to reach Benjamini–Hochberg as NaN, and the whole test failed). It is returned as not tested with
    /// the reason, and m2 and m4 are still tested and corrected between themselves.
    #[test]
    fn a_metric_constant_in_every_run_is_not_tested_and_the_others_are() {
        let runs: Vec<RulerReport> = (0..8)
            .map(|k| report(-0.01 - 0.001 * f64::from(k), 0.0, 0.6 + 0.01 * f64::from(k)))
            .collect();
        let (tested, not_tested) = across_runs(&runs, 0.05).unwrap();
        let names: Vec<&str> = tested.iter().map(|m| m.metric).collect();
        assert_eq!(names, ["calibration_gap", "nn_percentile_rank"]);
        assert!(
            tested
                .iter()
                .all(|m| m.wilcoxon.p_value.is_finite() && m.p_adjusted.is_finite())
        );
        // Two tests corrected together: 8 runs of one sign give p = 2/256 each, adjusted the same.
        assert_eq!(tested[0].wilcoxon.p_value, 2.0 / 256.0);
        assert_eq!(tested[0].p_adjusted, 2.0 / 256.0);
        assert_eq!(not_tested.len(), 1);
        assert_eq!(not_tested[0].metric, "representation_shift");
        assert_eq!(not_tested[0].values, vec![0.0; 8]);
        assert!(not_tested[0].reason.contains("its null"), "{}", not_tested[0].reason);
        // The same value, away from the null, in every run: one run repeated, not tested either.
        let runs: Vec<RulerReport> = (0..6).map(|k| report(-0.02, 0.01 * f64::from(k + 1), 0.6)).collect();
        let (tested, not_tested) = across_runs(&runs, 0.05).unwrap();
        assert_eq!(tested.len(), 1);
        assert_eq!(tested[0].metric, "representation_shift");
        let names: Vec<&str> = not_tested.iter().map(|m| m.metric).collect();
        assert_eq!(names, ["calibration_gap", "nn_percentile_rank"]);
        assert!(
            not_tested[0].reason.contains("one run repeated"),
            "{}",
            not_tested[0].reason
        );
    }

    /// With no retain records distinct from the forget records, m1 and m3 are computed (they use the forget
    /// records only) and m2 and m4 are withheld with the reason.
    #[test]
    fn without_distinct_retain_records_m1_and_m3_are_computed_and_m2_and_m4_withheld() {
        let u = Matrix::from_rows(&[[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]]).unwrap();
        let o = Matrix::from_rows(&[[1.0, 0.0], [0.8, 0.6], [1.0, 0.0]]).unwrap();
        let g = Matrix::from_rows(&[[0.0, 1.0], [0.6, 0.8], [0.0, 1.0]]).unwrap();
        let r = all_metrics(
            &RulerInputs {
                unlearned_forget: u.view(),
                unlearned_retain: None,
                oracle_forget: Some(o.view()),
                oracle_retain: None,
                original_forget: Some(g.view()),
            },
            TieRule::AtMost,
        )
        .unwrap();
        let m1 = (1.0 + 0.96 + 0.0) / 3.0;
        assert!((r.oracle_similarity.unwrap() - m1).abs() < 1e-15);
        assert!((r.representation_shift.unwrap() - (m1 - 0.96 / 3.0)).abs() < 1e-15);
        assert_eq!((r.calibration_gap, r.nn_percentile_rank.as_ref()), (None, None));
        let names: Vec<&str> = r.withheld.iter().map(|w| w.metric).collect();
        assert_eq!(names, ["calibration_gap", "nn_percentile_rank"]);
        assert!(r.withheld.iter().all(|w| w.reason == NEEDS_DISTINCT_RETAIN));
    }
}
