//! Data for the page's plots, counted by the core (`lethe::divergence::histogram`, numpy's binning) so that no
//! number in the page is computed in JavaScript. Only display choices are made here: shared axis ranges, bin
//! counts, evaluation points.

use lethe::competition::{BUCKET_WIDTH, CompetitionResult};
use lethe::divergence::histogram;
use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, Result};

/// Bins of the distribution overlays.
pub const DISPLAY_BINS: usize = 30;
/// Bins of RULER's nearest-neighbour percentile ranks over [0, 1].
pub const RANK_BINS: usize = 10;
/// Most evaluation points of an ECDF plot (beyond, an evenly spaced grid).
const MAX_ECDF_POINTS: usize = 2000;

/// One sample's counts on the shared edges.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Series {
    pub name: String,
    /// What the sample is (`it`, `oot`, `target`, `ranks`, `epsilon`), for colours and legends.
    pub role: String,
    pub counts: Vec<u64>,
    /// Values in the sample (finite ones counted; see `outside`).
    pub n: usize,
    /// Values outside the edges (non-finite ones included).
    pub outside: u64,
}

/// Several samples' histograms on shared edges.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Histograms {
    pub edges: Vec<f64>,
    pub series: Vec<Series>,
}

fn finite_range<'a>(values: impl Iterator<Item = &'a f64>) -> Option<(f64, f64)> {
    values.filter(|v| v.is_finite()).fold(None, |acc, &v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// Histograms of `series` (name, role, values) over the range of all their finite values (widened by ±0.5 when
/// it is a single point, as numpy does).
///
/// # Errors
/// No finite value in any series.
pub fn shared_histograms(series: &[(String, &str, &[f64])], bins: usize) -> Result<Histograms> {
    let (lo, hi) = finite_range(series.iter().flat_map(|s| s.2.iter())).ok_or_else(|| Error::msg("nothing to plot"))?;
    let (lo, hi) = if lo == hi { (lo - 0.5, hi + 0.5) } else { (lo, hi) };
    let mut edges = Vec::new();
    let mut out = Vec::with_capacity(series.len());
    for (name, role, values) in series {
        let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        let h = histogram(&finite, bins, Some((lo, hi)))?;
        edges = h.edges;
        out.push(Series {
            name: name.clone(),
            role: (*role).to_string(),
            counts: h.counts,
            n: values.len(),
            outside: h.outside + (values.len() - finite.len()) as u64,
        });
    }
    Ok(Histograms { edges, series: out })
}

/// One sample's histogram over a fixed range.
///
/// # Errors
/// An invalid range.
pub fn histogram_in(values: &[f64], bins: usize, range: (f64, f64)) -> Result<Histograms> {
    let finite: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let h = histogram(&finite, bins, Some(range))?;
    Ok(Histograms {
        edges: h.edges,
        series: vec![Series {
            name: String::new(),
            role: "ranks".into(),
            counts: h.counts,
            n: values.len(),
            outside: h.outside + (values.len() - finite.len()) as u64,
        }],
    })
}

/// Per-example epsilons in bins of the bucket width from 0 up to past both `eps_max` and the largest finite epsilon.
///
/// # Errors
/// None in practice (the range is valid by construction).
pub fn epsilon_histogram(r: &CompetitionResult) -> Result<crate::analyses::EpsilonPlot> {
    let eps: Vec<f64> = r.per_example.iter().map(|e| e.epsilon).collect();
    epsilon_histogram_of(&eps, r.eps_max)
}

pub(crate) fn epsilon_histogram_of(eps: &[f64], eps_max: f64) -> Result<crate::analyses::EpsilonPlot> {
    let top = finite_range(eps.iter())
        .map_or(0.0, |(_, hi)| hi)
        .max(eps_max)
        .max(BUCKET_WIDTH);
    // Display: whole buckets, at most 200 bars (the official cap of 50 gives 100).
    let bins = ((top / BUCKET_WIDTH).floor() as usize + 1).min(200);
    let hi = bins as f64 * BUCKET_WIDTH;
    let mut h = histogram_in(eps, bins, (0.0, hi))?;
    for s in &mut h.series {
        s.role = "epsilon".into();
    }
    let infinite = eps.iter().filter(|e| e.is_infinite()).count();
    Ok(crate::analyses::EpsilonPlot { histogram: h, infinite })
}

/// Points at which to draw the ECDF: 0, every distinct finite score, 1 (sorted); an even grid over the same span
/// when there are more than 2,000 distinct scores.
pub fn ecdf_grid(values: &[f64]) -> Vec<f64> {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.push(0.0);
    v.push(1.0);
    v.sort_by(f64::total_cmp);
    v.dedup();
    if v.len() > MAX_ECDF_POINTS {
        let (lo, hi) = (v[0], v[v.len() - 1]);
        return lethe::numpy::linspace(lo, hi, MAX_ECDF_POINTS);
    }
    v
}

/// One method's row of a forest plot: its mean with the t and bootstrap intervals (95%).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ForestRow {
    pub method: String,
    /// The task of the row; `None` for a table without tasks, or the method pooled over every task.
    pub task: Option<String>,
    pub n: usize,
    pub mean: f64,
    pub t_interval: Option<[f64; 2]>,
    pub bootstrap_interval: Option<[f64; 2]>,
}

/// A forest plot of one metric: every method's mean and intervals on a shared axis.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Forest {
    pub metric: String,
    /// The metric's direction as the report says it (`higher`, `lower`, `closest to retrain`, `closest to 0.5`).
    pub direction: String,
    /// The reference a `closest` metric is measured against (the reference method's mean, or the value): a line.
    pub reference: Option<f64>,
    /// The axis: every mean and interval end, widened by 5% of the span on each side.
    pub range: [f64; 2],
    pub rows: Vec<ForestRow>,
}

/// The probability-of-improvement matrix of one metric: `cells[i][j]` = P(method i better than method j) in the
/// metric's direction, `None` on the diagonal and where the report has no value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PoiMatrix {
    pub metric: String,
    pub direction: String,
    pub methods: Vec<String>,
    pub cells: Vec<Vec<Option<f64>>>,
    pub intervals: Vec<Vec<Option<[f64; 2]>>>,
}

/// The critical-difference diagram of one metric (autorank's): the compared methods by mean rank (1 = best), the
/// Nemenyi critical difference, and the groups of methods whose mean ranks differ by at most it (autorank's
/// `get_sorted_rank_groups`: from each method in rank order, the furthest one within the CD, each group kept when it
/// reaches past the previous one), as index pairs into `methods`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CdDiagram {
    pub metric: String,
    /// Methods from the best mean rank to the worst.
    pub methods: Vec<String>,
    pub mean_ranks: Vec<f64>,
    pub critical_difference: f64,
    pub groups: Vec<[usize; 2]>,
    pub statistic: f64,
    pub p_value: f64,
    pub alpha: f64,
    pub blocks: usize,
}

/// The pictures of a comparison, per metric: forest plots, probability-of-improvement matrices, and a
/// critical-difference diagram where the report holds Friedman's test (≥ 3 methods on ≥ 2 tasks).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ComparePlots {
    pub forest: Vec<Forest>,
    pub poi: Vec<PoiMatrix>,
    pub cd: Vec<CdDiagram>,
}

fn interval(v: &Value) -> Option<[f64; 2]> {
    let (lo, hi) = (number(&v["lo"]), number(&v["hi"]));
    (lo.is_finite() && hi.is_finite()).then_some([lo, hi])
}

/// autorank's groups of mean ranks (sorted ascending) within `cd` of each other.
pub fn rank_groups(sorted_ranks: &[f64], cd: f64) -> Vec<[usize; 2]> {
    let mut groups = Vec::new();
    let mut cur_max: Option<usize> = None;
    for i in 0..sorted_ranks.len() {
        let max_j = (i + 1..sorted_ranks.len())
            .filter(|&j| (sorted_ranks[i] - sorted_ranks[j]).abs() <= cd)
            .max();
        if let Some(j) = max_j
            && cur_max.is_none_or(|c| j > c)
        {
            cur_max = Some(j);
            groups.push([i, j]);
        }
    }
    groups
}

/// The pictures of a `compare` report's result (what the page, `lethe.show` and `lethe.widget` draw).
pub fn compare_plots(result: &Value) -> ComparePlots {
    let methods: Vec<String> = result["methods"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect();
    let mut out = ComparePlots {
        forest: Vec::new(),
        poi: Vec::new(),
        cd: Vec::new(),
    };
    for m in result["metrics"].as_array().into_iter().flatten() {
        let metric = m["metric"].as_str().unwrap_or_default().to_string();
        let direction = m["direction"].as_str().unwrap_or_default().to_string();
        let summaries: Vec<&Value> = m["summaries"].as_array().into_iter().flatten().collect();
        // Pooled rows where the table has several tasks, else every row (no task, or one).
        let pooled: Vec<&Value> = summaries.iter().copied().filter(|s| s["task"].is_null()).collect();
        let shown = if pooled.is_empty() { summaries } else { pooled };
        let rows: Vec<ForestRow> = shown
            .iter()
            .map(|s| ForestRow {
                method: s["method"].as_str().unwrap_or_default().to_string(),
                task: s["task"].as_str().map(str::to_string),
                n: s["n"].as_u64().and_then(|n| usize::try_from(n).ok()).unwrap_or(0),
                mean: number(&s["mean"]),
                t_interval: interval(&s["t_interval"]),
                bootstrap_interval: interval(&s["bootstrap_interval"]),
            })
            .filter(|r| r.mean.is_finite())
            .collect();
        let target = direction.strip_prefix("closest to ");
        let reference_method = target.filter(|t| methods.iter().any(|m| m == t));
        let reference = match (target, reference_method) {
            (Some(_), Some(r)) => rows.iter().find(|x| x.method == r).map(|x| x.mean),
            (Some(t), None) => t.parse::<f64>().ok().filter(|v| v.is_finite()),
            _ => None,
        };
        let ends = rows
            .iter()
            .flat_map(|r| {
                [Some([r.mean, r.mean]), r.t_interval, r.bootstrap_interval]
                    .into_iter()
                    .flatten()
                    .flatten()
            })
            .chain(reference);
        if let Some((lo, hi)) = ends.fold(None, |acc: Option<(f64, f64)>, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        }) {
            let pad = if hi > lo {
                0.05 * (hi - lo)
            } else {
                0.5 * lo.abs().max(1e-3)
            };
            out.forest.push(Forest {
                metric: metric.clone(),
                direction: direction.clone(),
                reference,
                range: [lo - pad, hi + pad],
                rows,
            });
        }
        // The PoI matrix over the compared methods (a `closest` metric's reference method is not compared).
        let compared: Vec<String> = methods
            .iter()
            .filter(|x| reference_method != Some(x.as_str()))
            .cloned()
            .collect();
        let at = |name: &Value| compared.iter().position(|x| Some(x.as_str()) == name.as_str());
        let k = compared.len();
        let mut cells = vec![vec![None; k]; k];
        let mut intervals = vec![vec![None; k]; k];
        for c in m["probability_of_improvement"].as_array().into_iter().flatten() {
            if let (Some(i), Some(j)) = (at(&c["a"]), at(&c["b"])) {
                cells[i][j] = Some(number(&c["probability"])).filter(|p| p.is_finite());
                intervals[i][j] = interval(&c["interval"]);
            }
        }
        if cells.iter().flatten().any(Option::is_some) {
            out.poi.push(PoiMatrix {
                metric: metric.clone(),
                direction: direction.clone(),
                methods: compared.clone(),
                cells,
                intervals,
            });
        }
        let f = &m["friedman"];
        let ranks = numbers(&f["mean_ranks"]).unwrap_or_default();
        let cd = number(&f["critical_difference"]);
        if !f.is_null() && ranks.len() == k && cd.is_finite() && ranks.iter().all(|r| r.is_finite()) {
            let mut order: Vec<usize> = (0..k).collect();
            order.sort_by(|&a, &b| ranks[a].total_cmp(&ranks[b]));
            let sorted: Vec<f64> = order.iter().map(|&i| ranks[i]).collect();
            out.cd.push(CdDiagram {
                metric,
                methods: order.iter().map(|&i| compared[i].clone()).collect(),
                groups: rank_groups(&sorted, cd),
                mean_ranks: sorted,
                critical_difference: cd,
                statistic: number(&f["statistic"]),
                p_value: number(&f["p_value"]),
                alpha: number(&f["alpha"]),
                blocks: f["blocks"].as_u64().and_then(|n| usize::try_from(n).ok()).unwrap_or(0),
            });
        }
    }
    out
}

/// A number of a report as the core's JSON writes it (non-finite floats as "inf", "-inf", "nan").
pub(crate) fn number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        _ => f64::NAN,
    }
}

#[cfg(all(feature = "full", not(target_arch = "wasm32")))]
pub(crate) fn json<T: Serialize>(v: Result<T>) -> Option<Value> {
    v.ok().and_then(|v| serde_json::to_value(v).ok())
}

pub(crate) fn numbers(v: &Value) -> Option<Vec<f64>> {
    v.as_array().map(|a| a.iter().map(number).collect())
}

/// The page's plot data for a report (the value `lethe … --json` prints), counted by the functions the analyses
/// count it with for the page, from the values the report holds: what a front end holding only the report draws
/// (the notebook's `lethe.show`). Each analysis declares its own ([`crate::registry::Analysis::plots`]), named as its
/// output for the page names it (SDE's `histograms`, RULER's `rank_histograms`, epsilon's `plots`, ROUGE-L's `ecdf`
/// with bounds, compare's `comparison`); the others' plots are drawn from the report itself (the ROC): `{}`.
#[cfg(all(feature = "full", not(target_arch = "wasm32")))]
pub fn of_report(report: &Value) -> Value {
    let plots = report["command"]
        .as_str()
        .and_then(|c| crate::registry::lookup(c).ok())
        .map(|e| (e.plots)(&report["result"]))
        .unwrap_or_default();
    Value::Object(plots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_edges_cover_every_series() {
        let a = [0.0, 1.0, 2.0];
        let b = [4.0, f64::NAN];
        let h = shared_histograms(&[("a".into(), "it", &a), ("b".into(), "oot", &b)], 4).unwrap();
        assert_eq!(h.edges, vec![0.0, 1.0, 2.0, 3.0, 4.0]);
        assert_eq!(h.series[0].counts, vec![1, 1, 1, 0]);
        assert_eq!(h.series[1].counts, vec![0, 0, 0, 1]);
        assert_eq!(h.series[1].outside, 1);
        let one = shared_histograms(&[("c".into(), "it", &[2.0, 2.0][..])], 2).unwrap();
        assert_eq!(one.edges, vec![1.5, 2.0, 2.5]);
        assert!(shared_histograms(&[("d".into(), "it", &[][..])], 2).is_err());
    }

    #[test]
    fn ecdf_grid_spans_zero_to_one() {
        assert_eq!(ecdf_grid(&[0.5, 0.25, 0.5]), vec![0.0, 0.25, 0.5, 1.0]);
        let many: Vec<f64> = (0..5000).map(|i| f64::from(i) / 5000.0).collect();
        let g = ecdf_grid(&many);
        assert_eq!(g.len(), 2000);
        assert_eq!((g[0], g[1999]), (0.0, 1.0));
    }

    #[test]
    fn rank_groups_follow_autorank() {
        // autorank's get_sorted_rank_groups: from each method, the furthest within the CD (|Δ| <= cd); a group is
        // kept only when it reaches past the previous one.
        assert_eq!(rank_groups(&[1.0, 1.5, 2.0, 2.8], 1.0), vec![[0, 2], [2, 3]]);
        // A method more than the CD from every other is in no group (no bar).
        assert_eq!(rank_groups(&[1.0, 1.5, 2.0, 3.5], 1.0), vec![[0, 2]]);
        assert_eq!(rank_groups(&[1.0, 2.0, 3.0], 1.0), vec![[0, 1], [1, 2]]);
        assert_eq!(rank_groups(&[1.0, 2.5, 4.0], 1.0), Vec::<[usize; 2]>::new());
        assert_eq!(rank_groups(&[1.0, 1.2, 1.4], 5.0), vec![[0, 2]]);
    }

    #[test]
    fn compare_pictures_from_the_report() {
        let report = serde_json::json!({"command": "compare", "result": {
            "methods": ["retrain", "a", "b", "c"],
            "metrics": [{
                "metric": "m", "direction": "closest to retrain",
                "summaries": [
                    {"method": "retrain", "task": null, "n": 3, "mean": 0.5, "t_interval": {"lo": 0.4, "hi": 0.6}, "bootstrap_interval": null},
                    {"method": "a", "task": null, "n": 3, "mean": 0.7, "t_interval": {"lo": 0.6, "hi": 0.9}, "bootstrap_interval": {"lo": 0.65, "hi": 0.75}},
                    {"method": "b", "task": "t1", "n": 3, "mean": 9.0, "t_interval": null, "bootstrap_interval": null},
                    {"method": "b", "task": null, "n": 6, "mean": 0.2, "t_interval": null, "bootstrap_interval": null},
                    {"method": "c", "task": null, "n": 6, "mean": 0.3, "t_interval": null, "bootstrap_interval": null}
                ],
                "probability_of_improvement": [
                    {"a": "a", "b": "b", "probability": 0.25, "interval": {"lo": 0.0, "hi": 0.5}},
                    {"a": "c", "b": "a", "probability": 0.75, "interval": null}
                ],
                "friedman": {"statistic": 6.0, "p_value": 0.05, "mean_ranks": [3.0, 1.0, 2.0], "critical_difference": 1.5, "q_alpha": 2.343, "alpha": 0.05, "blocks": 4}
            }]
        }});
        let p = compare_plots(&report["result"]);
        assert_eq!(of_report(&report)["comparison"], serde_json::to_value(&p).unwrap());
        let f = &p.forest[0];
        // The pooled rows only; the reference line at the reference method's mean; the axis over every end.
        assert_eq!(
            f.rows.iter().map(|r| r.method.as_str()).collect::<Vec<_>>(),
            ["retrain", "a", "b", "c"]
        );
        assert_eq!(f.reference, Some(0.5));
        assert!((f.range[0] - (0.2 - 0.035)).abs() < 1e-12 && (f.range[1] - (0.9 + 0.035)).abs() < 1e-12);
        // The reference method is not compared: a 3 × 3 matrix, P(a > b) at [0][1], P(c > a) at [2][0].
        let m = &p.poi[0];
        assert_eq!(m.methods, ["a", "b", "c"]);
        assert_eq!(m.cells[0][1], Some(0.25));
        assert_eq!(m.intervals[0][1], Some([0.0, 0.5]));
        assert_eq!(m.cells[2][0], Some(0.75));
        assert_eq!(m.cells[1][1], None);
        // Ranks sorted best first: b (1), c (2), a (3); CD 1.5 joins b–c and c–a.
        let cd = &p.cd[0];
        assert_eq!(cd.methods, ["b", "c", "a"]);
        assert_eq!(cd.mean_ranks, [1.0, 2.0, 3.0]);
        assert_eq!(cd.groups, vec![[0, 1], [1, 2]]);
        // A value as the reference.
        let mut r2 = report.clone();
        r2["result"]["metrics"][0]["direction"] = "closest to 0.5".into();
        let p2 = compare_plots(&r2["result"]);
        assert_eq!(p2.forest[0].reference, Some(0.5));
        assert_eq!(p2.poi[0].methods.len(), 4);
        assert!(p2.cd.is_empty(), "4 methods compared, 3 ranks: no diagram");
    }
}
