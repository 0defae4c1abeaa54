//! `lethe ks`: the two-sample Kolmogorov–Smirnov test of two 1-D samples, as `scipy.stats.ks_2samp` (the core's
//! port of scipy 1.17.1, `lethe::ks`, the test forget quality runs on truth ratios), with a headline that says what
//! size of difference the test can see at these sample sizes.
//!
//! This module is the whole analysis: its request, its run and report, and its entry in the registry
//! ([`crate::registry::Analysis`]); `docs/adding-an-analysis.md` walks through it.

use lethe::Alternative;
use lethe::ks::{Ks2Result, KsMethod, ks_2samp};

use super::stats::{Samples, option, short, two_ordered_samples};
use super::*;
use crate::report::{Headline, Report, num};

/// `lethe ks`'s options. With the `clap` feature (the CLI's), the options are the subcommand's arguments: each is
/// declared here once.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct KsRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub x: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub y: Option<InputRef>,
    /// two-sided, less or greater (as scipy; less: x's distribution function lies below y's somewhere, so x
    /// tends to be larger; greater: the reverse)
    #[cfg_attr(feature = "clap", arg(long, default_value = "two-sided", value_parser = ["two-sided", "less", "greater"]))]
    pub alternative: String,
    /// auto, exact or asymp (as scipy; auto: exact up to 10000 values in the larger sample)
    #[cfg_attr(feature = "clap", arg(long, default_value = "auto", value_parser = ["auto", "exact", "asymp"]))]
    pub method: String,
    /// The level at which the headline calls a difference
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.05))]
    pub alpha: f64,
}

impl Default for KsRequest {
    fn default() -> Self {
        Self {
            x: None,
            y: None,
            alternative: "two-sided".into(),
            method: "auto".into(),
            alpha: 0.05,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KsParameters {
    pub samples: Samples,
    pub alternative: String,
    pub method: String,
    pub alpha: f64,
}

/// The test as scipy reports it, and the smallest statistic the test calls at `alpha` with these sample sizes.
#[derive(Clone, Debug, Serialize)]
pub struct KsOutput {
    #[serde(flatten)]
    pub test: Ks2Result,
    /// About the smallest gap between the two distribution functions that the test calls at `alpha` with `n1` and
    /// `n2` values (Smirnov's asymptotic critical value `sqrt(−ln(α/2)/2 · (n1 + n2)/(n1 n2))`, `α` for α/2
    /// one-sided).
    pub detectable_statistic: f64,
}

pub type KsReport = Report<KsParameters, KsOutput>;

/// Smirnov's asymptotic critical value of the two-sample statistic at level `alpha`.
fn critical_statistic(alpha: f64, alt: Alternative, n1: usize, n2: usize) -> f64 {
    let tail = match alt {
        Alternative::TwoSided => alpha / 2.0,
        _ => alpha,
    };
    #[allow(clippy::cast_precision_loss)]
    let (a, b) = (n1 as f64, n2 as f64);
    ((-tail.ln() / 2.0) * (a + b) / (a * b)).sqrt().min(1.0)
}

/// The two-sample KS test of `x` against `y`, as `scipy.stats.ks_2samp(x, y, alternative, method)`, with its call.
///
/// # Errors
/// Missing or unreadable inputs, inputs that are not 1-D, empty samples, NaN (named by file and row), bad options.
pub fn run_ks(ws: &mut Workspace, req: &KsRequest) -> Result<KsReport> {
    let alt: Alternative = option(&req.alternative)?;
    let method: KsMethod = option(&req.method)?;
    if !(req.alpha > 0.0 && req.alpha < 1.0) {
        return Err(Error::at(
            "alpha",
            format!("alpha = {} must lie strictly between 0 and 1", req.alpha),
        )
        .usage());
    }
    let (x, y, warnings) = two_ordered_samples(ws, req.x.as_ref(), req.y.as_ref())?;
    let (xs, ys) = (x.matrix().as_slice(), y.matrix().as_slice());
    let r = ks_2samp(xs, ys, alt, method).map_err(|e| super::stats::core_error(e, &[&x, &y]))?;
    let (n1, n2) = (r.n1, r.n2);
    // The smallest p-value these sizes allow: the core's p for samples that do not overlap at all (D = 1).
    let apart = |n: usize, from: usize| (from..from + n).map(|v| v as f64).collect::<Vec<_>>();
    let (sep_x, sep_y) = match alt {
        Alternative::Greater => (apart(n1, 0), apart(n2, n1)),
        _ => (apart(n1, n2), apart(n2, 0)),
    };
    let p_min = ks_2samp(&sep_x, &sep_y, alt, method).map_or(0.0, |k| k.pvalue);
    let detectable = critical_statistic(req.alpha, alt, n1, n2);
    let (lo, hi) = xs
        .iter()
        .chain(ys)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
            (lo.min(v), hi.max(v))
        });
    let (sx, sy) = (short(&x), short(&y));
    let alpha = req.alpha;
    let sided = if alt == Alternative::TwoSided { "" } else { "one-sided " };
    let headline = if lo == hi {
        Headline::inconclusive(
            "Inconclusive: the samples cannot be told apart",
            format!(
                "every value of both samples is {}: their distribution functions are the same step",
                num(lo)
            ),
        )
    } else if p_min >= alpha {
        Headline::inconclusive(
            "Inconclusive: these samples are too small for the test to show a difference",
            format!(
                "with {n1} and {n2} values the smallest {sided}p-value the test can give is {}, not below {alpha}; \
                 use more values",
                num(p_min)
            ),
        )
    } else if r.pvalue < alpha {
        let way = match (alt, r.statistic_sign > 0) {
            (Alternative::Less, _) | (Alternative::TwoSided, false) => {
                format!("values of {sx} tend to be larger than those of {sy} somewhere in their range")
            }
            _ => format!("values of {sx} tend to be smaller than those of {sy} somewhere in their range"),
        };
        Headline::new(
            "differ",
            format!(
                "The distributions differ ({sided}p = {}, below {alpha}): their distribution functions are {} \
                 apart at {} ({way})",
                num(r.pvalue),
                num(r.statistic),
                num(r.statistic_location)
            ),
        )
    } else {
        Headline::new(
            "no_evidence",
            format!(
                "No difference the data could show ({sided}p = {}, not below {alpha}; D = {}): with {n1} and {n2} \
                 values the test calls a gap between the distribution functions of about {} or more, so a smaller \
                 difference may go unseen; this does not show that the distributions are the same",
                num(r.pvalue),
                num(r.statistic),
                num(detectable)
            ),
        )
    };
    let parameters = KsParameters {
        samples: Samples {
            x: x.spec().to_string(),
            y: y.spec().to_string(),
        },
        alternative: req.alternative.clone(),
        method: req.method.clone(),
        alpha,
    };
    let inputs = vec![x.input.record.clone(), y.input.record.clone()];
    let out = KsOutput {
        test: r,
        detectable_statistic: detectable,
    };
    Ok(Report::new("ks", parameters, None, inputs, headline, warnings, out))
}

registered! {
/// `lethe ks` in the registry: its name, its request, which of the request's keys are inputs, and its run.
pub struct Ks;

impl crate::registry::Analysis for Ks {
    const NAME: &'static str = "ks";
    type Request = KsRequest;
    const ROLES: Roles = Roles::inputs(&["x", "y"]);
    fn run(ws: &mut Workspace, req: &KsRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_ks(ws, req)?)
    }
}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(ws: &mut Workspace, id: u32, v: &[f64]) -> Option<InputRef> {
        let text: String = v.iter().map(|x| format!("{x}\n")).collect();
        ws.add(id, &format!("s{id}.txt"), std::sync::Arc::new(text.into_bytes()));
        Some(InputRef {
            source: id,
            tensor: None,
            rows: crate::rows::Rows::default(),
        })
    }

    #[test]
    fn calls_a_shift_and_says_what_it_could_not_see() {
        let mut ws = Workspace::new();
        let a: Vec<f64> = (0..40).map(f64::from).collect();
        let shifted: Vec<f64> = (0..40).map(|i| f64::from(i) + 30.0).collect();
        let req = KsRequest {
            x: sample(&mut ws, 0, &a),
            y: sample(&mut ws, 1, &shifted),
            ..KsRequest::default()
        };
        let r = run_ks(&mut ws, &req).unwrap();
        assert_eq!(r.headline.call, "differ", "{}", r.headline.text);
        assert!(r.headline.text.contains("tend to be smaller"), "{}", r.headline.text);
        let close: Vec<f64> = (0..40).map(|i| f64::from(i) + 0.5).collect();
        let req = KsRequest {
            x: sample(&mut ws, 2, &a),
            y: sample(&mut ws, 3, &close),
            ..KsRequest::default()
        };
        let r = run_ks(&mut ws, &req).unwrap();
        assert_eq!(r.headline.call, "no_evidence", "{}", r.headline.text);
        // 1.358 · sqrt(2/40) at 5%, two-sided.
        assert!(
            (r.result.detectable_statistic - 0.3037).abs() < 1e-3,
            "{}",
            r.result.detectable_statistic
        );
        assert!(r.headline.text.contains("0.3037"), "{}", r.headline.text);
        // One value each: no p-value below 5% is possible.
        let req = KsRequest {
            x: sample(&mut ws, 4, &[1.0]),
            y: sample(&mut ws, 5, &[2.0]),
            ..KsRequest::default()
        };
        assert!(run_ks(&mut ws, &req).unwrap().headline.is_inconclusive());
        let req = KsRequest {
            x: sample(&mut ws, 6, &[1.0]),
            y: sample(&mut ws, 7, &[2.0]),
            alpha: 1.5,
            ..KsRequest::default()
        };
        assert!(run_ks(&mut ws, &req).unwrap_err().usage);
    }
}
