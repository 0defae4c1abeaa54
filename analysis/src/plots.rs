//! Data for the page's plots, counted by the core (`lethe::divergence::histogram`, numpy's binning) so that no
//! number in the page is computed in JavaScript. Only display choices are made here: shared axis ranges, bin
//! counts, evaluation points.

use lethe::competition::{BUCKET_WIDTH, CompetitionResult};
use lethe::divergence::histogram;
use serde::Serialize;
use serde_json::{Map, Value};

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

fn epsilon_histogram_of(eps: &[f64], eps_max: f64) -> Result<crate::analyses::EpsilonPlot> {
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

/// A number of a report as the core's JSON writes it (non-finite floats as "inf", "-inf", "nan").
fn number(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) if s == "inf" => f64::INFINITY,
        Value::String(s) if s == "-inf" => f64::NEG_INFINITY,
        _ => f64::NAN,
    }
}

fn json<T: Serialize>(v: Result<T>) -> Option<Value> {
    v.ok().and_then(|v| serde_json::to_value(v).ok())
}

fn numbers(v: &Value) -> Option<Vec<f64>> {
    v.as_array().map(|a| a.iter().map(number).collect())
}

/// The page's plot data for a report (the value `lethe … --json` prints), counted by the functions the analyses
/// count it with for the page, from the values the report holds: what a front end holding only the report draws
/// (the notebook's `lethe.show`). Named as the analyses' outputs name it: `histograms` (SDE: the references and
/// every target on shared edges), `rank_histograms` (RULER, one per run), `plots` (epsilon, one per variant),
/// `ecdf` (ROUGE-L with bounds: the scores' ECDF with its DKW band). A `bounds` report holds no scores, and the
/// other analyses' plots are drawn from the report itself (the ROC): `{}`.
pub fn of_report(report: &Value) -> Value {
    let r = &report["result"];
    let mut out = Map::new();
    match report["command"].as_str() {
        Some("sde") => {
            let mut series: Vec<(String, &str, Vec<f64>)> = Vec::new();
            let mut add = |name: String, role, d: &Value| {
                if let Some(v) = numbers(&d["values"]) {
                    series.push((name, role, v));
                }
            };
            add("in-training reference".into(), "it", &r["in_training_reference"]);
            add(
                "out-of-training reference".into(),
                "oot",
                &r["out_of_training_reference"],
            );
            for t in r["targets"].as_array().into_iter().flatten() {
                add(
                    t["name"].as_str().unwrap_or("target").to_string(),
                    "target",
                    &t["distribution"],
                );
            }
            let refs: Vec<(String, &str, &[f64])> =
                series.iter().map(|(n, k, v)| (n.clone(), *k, v.as_slice())).collect();
            if let Some(h) = json(shared_histograms(&refs, DISPLAY_BINS)) {
                out.insert("histograms".into(), h);
            }
        }
        Some("ruler") => {
            let hs: Vec<Value> = r["runs"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|run| numbers(&run["nn_percentile_rank"]["ranks"]))
                .filter_map(|ranks| json(histogram_in(&ranks, RANK_BINS, (0.0, 1.0))))
                .collect();
            out.insert("rank_histograms".into(), Value::from(hs));
        }
        Some("epsilon") => {
            let ps: Vec<Value> = r["results"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| {
                    let eps: Vec<f64> = v["per_example"]
                        .as_array()?
                        .iter()
                        .map(|e| number(&e["epsilon"]))
                        .collect();
                    json(epsilon_histogram_of(&eps, number(&v["eps_max"])))
                })
                .collect();
            out.insert("plots".into(), Value::from(ps));
        }
        Some("rouge") => {
            if let (Some(scores), alpha) = (
                numbers(&r["scores"]["fmeasure"]),
                number(&r["bounds"]["general"]["alpha"]),
            ) && alpha.is_finite()
                && let Some(band) =
                    json(lethe::leakage::cdf_bounds(&scores, &ecdf_grid(&scores), alpha).map_err(Error::from))
            {
                out.insert("ecdf".into(), band);
            }
        }
        _ => {}
    }
    Value::Object(out)
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
}
