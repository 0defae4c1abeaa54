//! Membership-inference audits from attack scores (`lethe mia`) and multiple-testing corrections of a list of
//! p-values (`lethe fdr`): requests with the CLI's option names and defaults, the checks that load the inputs and say
//! what is wrong in the files' own coordinates, the core's computation (`lethe::roc`, `lethe::delong`,
//! `lethe::roc_bootstrap`, `lethe::fdr`) and one [`Report`] with its headline.
//!
//! What the checks decide, once for every front end:
//! * Inputs: the members' and the non-members' scores as two inputs (`members`, `non_members`; any row subsets,
//!   e.g. one file split by `FILE==VALUE`), or one input of scores and one of 0/1 labels (`scores`, `labels`; 1 =
//!   member), row for row. Higher score = member unless `lower_is_member` (losses, distances).
//! * Refused, naming the file and its row: NaN (`non_finite`); labels other than 0 and 1 (`labels_not_binary`);
//!   labels and scores of different lengths (`labels_length`); a class with no score (`one_class_empty`); every score
//!   equal (`constant_scores`: the attack ranks nobody). ±inf are ordered as the most extreme scores, with a warning.
//! * An AUC below 0.5 is never passed over: the headline says the scores separate the classes the other way round
//!   when the interval lies below 0.5, and a warning (`auc_below_half`) gives the AUC of the attack with the labels
//!   flipped, `1 − AUC`, and how to ask for it (`lower_is_member`).
//! * A target FPR below `1/n₀` (`fpr_below_resolution`): no threshold has an FPR strictly between 0 and `1/n₀`, so
//!   every rule but the hull reads that TPR at FPR 0.
//!
//! The interval of the headline is DeLong's by default (`lethe::delong` says why: deterministic, one pass over the
//! sorted scores, the ROC literature's; covers at its rate in the seeded simulation of `crate/tests/golden_mia.rs`);
//! `ci = "bootstrap"` or `"both"` adds the seeded exact-rank bootstrap.

use lethe::delong::{self, DeLong};
use lethe::fdr::{self, MultipleTests};
use lethe::roc::{self, RocRule, RocSummary, TprAtFpr};
use lethe::roc_bootstrap::{self, Bootstrap};

use super::*;
use crate::report::num;
use crate::report::{Headline, Report, Warning};
use crate::words;

/// The FPRs TPR is read at by default (the issue's, and LeakPro's table).
pub const DEFAULT_FPRS: [f64; 5] = [0.0, 1e-4, 1e-3, 1e-2, 0.1];

/// Most curve points a report carries; longer curves are thinned for plotting (the statistics use every point).
pub const DEFAULT_CURVE_POINTS: usize = 2001;

/// `lethe mia`'s options. With the `clap` feature (the CLI's), the options are the subcommand's arguments: each is
/// declared here once.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct MiaRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub members: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub non_members: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub scores: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub labels: Option<InputRef>,
    /// A lower score means member (losses, distances): the scores are negated
    #[cfg_attr(feature = "clap", arg(long))]
    pub lower_is_member: bool,
    /// 1 − the level of every interval (0.05: 95%)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = MiaRequest::default().alpha))]
    pub alpha: f64,
    /// Interval on the AUC: delong (default: deterministic, one pass), bootstrap (seeded, exact AUC per resample) or both
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["delong", "bootstrap", "both"], default_value = "delong"))]
    pub ci: String,
    /// Bootstrap resamples
    #[cfg_attr(feature = "clap", arg(long, default_value_t = MiaRequest::default().resamples))]
    pub resamples: usize,
    /// Seed of the bootstrap's resamples
    #[cfg_attr(feature = "clap", arg(long, default_value_t = MiaRequest::default().seed))]
    pub seed: u64,
    /// How TPR is read at a target FPR: leakpro (largest TPR with FPR ≤ target), privacy-meter (last point of
    /// scikit-learn's thinned curve with FPR ≤ target), jax-privacy (interpolated on the convex hull), or all
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["leakpro", "privacy-meter", "jax-privacy", "all"], default_value = "leakpro"))]
    pub rule: String,
    /// Target FPRs, comma-separated
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ',', default_values_t = DEFAULT_FPRS))]
    pub fpr: Vec<f64>,
    /// Most ROC points in the report (longer curves are thinned for plotting; the statistics use every point)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = DEFAULT_CURVE_POINTS))]
    pub curve_points: usize,
}

impl Default for MiaRequest {
    fn default() -> Self {
        Self {
            members: None,
            non_members: None,
            scores: None,
            labels: None,
            lower_is_member: false,
            alpha: 0.05,
            ci: "delong".into(),
            resamples: 1000,
            seed: 0,
            rule: RocRule::LeakPro.name().into(),
            fpr: DEFAULT_FPRS.to_vec(),
            curve_points: DEFAULT_CURVE_POINTS,
        }
    }
}

/// `lethe mia`'s parameters as reports record them (inputs as their specs).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MiaParameters {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_members: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<String>,
    pub lower_is_member: bool,
    pub alpha: f64,
    pub ci: String,
    /// Recorded when the bootstrap runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resamples: Option<usize>,
    pub rule: String,
    pub fpr: Vec<f64>,
}

/// The ROC as plotted: every point, or an even thinning of a long curve (first and last kept).
#[derive(Clone, Debug, Serialize)]
pub struct Curve {
    #[serde(serialize_with = "lethe::json::vec_f64")]
    pub fpr: Vec<f64>,
    #[serde(serialize_with = "lethe::json::vec_f64")]
    pub tpr: Vec<f64>,
    #[serde(serialize_with = "lethe::json::vec_f64")]
    pub thresholds: Vec<f64>,
    /// Points of the exact curve.
    pub points: usize,
    /// Whether the points here are a thinning of them.
    pub thinned: bool,
}

/// `lethe mia`'s result.
#[derive(Clone, Debug, Serialize)]
pub struct MiaResult {
    pub summary: RocSummary,
    /// `1 − AUC`: the AUC of the attack with the labels flipped (lower score = member).
    #[serde(serialize_with = "lethe::json::f64")]
    pub auc_flipped: f64,
    /// The area under the curve's convex hull (jax_privacy's `attack_auroc`): at least the AUC.
    #[serde(serialize_with = "lethe::json::f64")]
    pub hull_auc: f64,
    pub delong: Option<DeLong>,
    pub bootstrap: Option<Bootstrap>,
    pub tpr_at_fpr: Vec<TprAtFpr>,
    pub curve: Curve,
}

pub type MiaReport = Report<MiaParameters, MiaResult>;

/// A 1-D input loaded: its values, the input and its rows.
struct Vector {
    role: &'static str,
    input: Arc<Input>,
    rows: Rows,
}

impl Vector {
    fn values(&self) -> &[f64] {
        self.input.matrix.as_slice()
    }
    fn path(&self) -> &str {
        &self.input.record.path
    }
    /// The file's row of value `k` (the row subset's k-th row).
    fn row(&self, ws: &mut Workspace, k: usize) -> usize {
        let m = &self.input.matrix;
        // One row of many columns: the value's column is its place; one column: its row.
        if m.rows() == 1 && m.cols() > 1 {
            return k;
        }
        match ws.resolve_rows(self.role, &self.rows) {
            Ok((Some(rows), _, _)) => rows.get(k).copied().unwrap_or(k),
            _ => k,
        }
    }
}

fn load_vector(ws: &mut Workspace, role: &'static str, r: &InputRef, what: &str) -> Result<Vector> {
    let input = ws.load(role, r)?;
    let m = &input.matrix;
    if m.cols() != 1 && m.rows() != 1 {
        return Err(Error::at(
            role,
            format!(
                "`{}` is {}×{}, but {what} are one number per row: {}",
                input.record.spec,
                m.rows(),
                m.cols(),
                crate::words::pick("one-column", None)
            ),
        ));
    }
    if m.as_slice().is_empty() {
        return Err(Error::refused(
            "one_class_empty",
            Some(role),
            format!("`{}` has no {what}", input.record.spec),
        ));
    }
    Ok(Vector {
        role,
        input,
        rows: r.rows.clone(),
    })
}

/// NaN refused, ±inf warned, naming the file and row.
fn check_scores(ws: &mut Workspace, v: &Vector, warnings: &mut Vec<Warning>) -> Result<()> {
    let vals = v.values();
    if let Some(k) = vals.iter().position(|x| x.is_nan()) {
        let n = vals.iter().filter(|x| x.is_nan()).count();
        let row = v.row(ws, k);
        return Err(Error::refused(
            "non_finite",
            Some(v.role),
            format!(
                "`{}` has {n} NaN score(s), the first at row {row} of the file (counting from 0): a NaN cannot be ranked. Remove or \
                 rescore those rows, or select the others",
                v.path()
            ),
        ));
    }
    if let Some(k) = vals.iter().position(|x| x.is_infinite()) {
        let n = vals.iter().filter(|x| x.is_infinite()).count();
        let row = v.row(ws, k);
        warnings.push(Warning::new(
            "infinite_values",
            Some(v.role),
            format!(
                "`{}` has {n} infinite score(s), the first at row {row} of the file (counting from 0) (numbers beyond float64's range, \
                 such as 1e400, read as ±inf): they are ranked above (+inf) or below (−inf) every other score",
                v.path()
            ),
            Some("if they stand for failed or overflowed scores, remove those rows".into()),
        ));
    }
    Ok(())
}

/// Members and non-members that are rows of one file (the same file, or two copies of it): rows given as both
/// are counted and warned (`members_non_members_overlap`: each is scored on both sides, which pulls the AUC towards
/// 0.5); the same rows on both sides are refused (`members_are_non_members`: the AUC is 0.5 by construction).
fn shared_rows(ws: &mut Workspace, m: &Vector, n: &Vector) -> Result<Option<Warning>> {
    let (rm, rn) = (&m.input.record, &n.input.record);
    if rm.sha256 != rn.sha256 || rm.tensor != rn.tensor || m.input.matrix.cols() != 1 || n.input.matrix.cols() != 1 {
        return Ok(None);
    }
    // The file's rows of the values (resolved once: an index file is read once).
    let rows = |ws: &mut Workspace, v: &Vector| -> Vec<usize> {
        match ws.resolve_rows(v.role, &v.rows) {
            Ok((Some(r), _, _)) => r,
            _ => (0..v.values().len()).collect(),
        }
    };
    let (a, b) = (rows(ws, m), rows(ws, n));
    let theirs: std::collections::HashSet<usize> = b.iter().copied().collect();
    let shared = a.iter().filter(|r| theirs.contains(r)).count();
    if shared == 0 {
        return Ok(None);
    }
    let same = if rm.path == rn.path {
        "the same file".to_string()
    } else {
        format!("`{}` and its copy `{}`", rm.path, rn.path)
    };
    if shared == a.len() && shared == b.len() {
        return Err(Error::refused(
            "members_are_non_members",
            Some("non_members"),
            format!(
                "the members' and the non-members' scores are the same {shared} rows of {same} (`{}` and `{}`): the \
                 audit would compare the scores with themselves, an AUC of 0.5 by construction. Give the members' \
                 rows and the non-members' rows, e.g. {} and {}",
                rm.spec,
                rn.spec,
                crate::words::pick("rows", Some("SCORES@forget.txt")),
                crate::words::pick("rows", Some("SCORES@test.txt"))
            ),
        ));
    }
    Ok(Some(Warning::new(
        "members_non_members_overlap",
        Some("non_members"),
        format!(
            "{shared} of the {} members' rows are also among the {} non-members' rows of {same} (`{}` and `{}`): each \
             such row is scored as a member and as a non-member, which pulls the AUC towards 0.5",
            a.len(),
            b.len(),
            rm.spec,
            rn.spec
        ),
        Some("give members and non-members disjoint rows (a row is either in the training set or not)".into()),
    )))
}

/// A checked `lethe mia` request, ready to run.
pub struct MiaJob {
    members: Vec<f64>,
    non_members: Vec<f64>,
    rules: Vec<RocRule>,
    delong: bool,
    bootstrap: bool,
    req: MiaRequest,
    parameters: MiaParameters,
    inputs: Vec<InputRecord>,
    warnings: Vec<Warning>,
}

/// Loads and checks a `lethe mia` request.
///
/// # Errors
/// Malformed options (usage errors), missing or unreadable inputs, and the refusals of the module documentation.
pub fn prepare_mia(ws: &mut Workspace, req: &MiaRequest) -> Result<MiaJob> {
    if !(req.alpha > 0.0 && req.alpha < 1.0) {
        return Err(Error::msg(format!(
            "the interval level alpha = {} must lie strictly between 0 and 1 (0.05 gives 95% intervals)",
            req.alpha
        )));
    }
    let (delong, bootstrap) = match req.ci.as_str() {
        "delong" => (true, false),
        "bootstrap" => (false, true),
        "both" => (true, true),
        other => {
            return Err(Error::msg(format!("the interval `{other}` is not one of delong, bootstrap, both")).usage());
        }
    };
    if bootstrap && (req.resamples == 0 || req.resamples > roc_bootstrap::MAX_RESAMPLES) {
        return Err(Error::msg(format!(
            "{} resamples: the bootstrap takes 1 to {} (1000 is usual)",
            req.resamples,
            roc_bootstrap::MAX_RESAMPLES
        ))
        .usage());
    }
    let rules = if req.rule == "all" {
        RocRule::ALL.to_vec()
    } else {
        vec![req.rule.parse::<RocRule>().map_err(|_| {
            Error::msg(format!(
                "the rule `{}` is not one of leakpro, privacy-meter, jax-privacy, all",
                req.rule
            ))
            .usage()
        })?]
    };
    if let Some(bad) = req.fpr.iter().find(|t| !(0.0..=1.0).contains(*t)) {
        return Err(Error::msg(format!(
            "the target FPR {bad} is not a rate between 0 and 1"
        )));
    }
    let mut warnings = Vec::new();
    let mut inputs = Vec::new();
    let (members, non_members, parameters) = match (&req.members, &req.non_members, &req.scores, &req.labels) {
        (Some(m), Some(n), None, None) => {
            let m = load_vector(ws, "members", m, "members' scores")?;
            let n = load_vector(ws, "non_members", n, "non-members' scores")?;
            for v in [&m, &n] {
                warnings.extend(super::reader_warnings(v.role, &v.input));
                check_scores(ws, v, &mut warnings)?;
                inputs.push(v.input.record.clone());
            }
            warnings.extend(shared_rows(ws, &m, &n)?);
            let p = MiaParameters {
                members: Some(m.input.record.spec.clone()),
                non_members: Some(n.input.record.spec.clone()),
                scores: None,
                labels: None,
                lower_is_member: req.lower_is_member,
                alpha: req.alpha,
                ci: req.ci.clone(),
                resamples: bootstrap.then_some(req.resamples),
                rule: req.rule.clone(),
                fpr: req.fpr.clone(),
            };
            (m.values().to_vec(), n.values().to_vec(), p)
        }
        (None, None, Some(s), Some(l)) => {
            let s = load_vector(ws, "scores", s, "scores")?;
            let l = load_vector(ws, "labels", l, "labels")?;
            for v in [&s, &l] {
                warnings.extend(super::reader_warnings(v.role, &v.input));
                inputs.push(v.input.record.clone());
            }
            check_scores(ws, &s, &mut warnings)?;
            let (sv, lv) = (s.values(), l.values());
            if sv.len() != lv.len() {
                return Err(Error::refused(
                    "labels_length",
                    Some("labels"),
                    format!(
                        "`{}` has {} labels but `{}` has {} scores: label i belongs to score i, so both need the same \
                         rows",
                        l.input.record.spec,
                        lv.len(),
                        s.input.record.spec,
                        sv.len()
                    ),
                ));
            }
            if let Some(k) = lv.iter().position(|&v| v != 0.0 && v != 1.0) {
                let row = l.row(ws, k);
                let n = lv.iter().filter(|&&v| v != 0.0 && v != 1.0).count();
                return Err(Error::refused(
                    "labels_not_binary",
                    Some("labels"),
                    format!(
                        "`{}` has {n} label(s) other than 0 and 1, the first ({}) at row {row} of the file (counting from 0): labels are \
                         1 for a member and 0 for a non-member. Recode them, or give the members' and non-members' \
                         scores as two inputs (e.g. SCORES@LABELS==member and SCORES@LABELS==non-member)",
                        l.path(),
                        lv[k]
                    ),
                ));
            }
            let mut m = Vec::new();
            let mut n = Vec::new();
            for (&x, &y) in sv.iter().zip(lv) {
                if y == 1.0 { m.push(x) } else { n.push(x) }
            }
            for (class, got) in [("member", &m), ("non-member", &n)] {
                if got.is_empty() {
                    return Err(Error::refused(
                        "one_class_empty",
                        Some("labels"),
                        format!(
                            "every label in `{}` is {}: there is no {class} to compare with, and an ROC needs both \
                             classes. Check the label column, or the row subset",
                            l.input.record.spec,
                            if class == "member" { 0 } else { 1 }
                        ),
                    ));
                }
            }
            let p = MiaParameters {
                members: None,
                non_members: None,
                scores: Some(s.input.record.spec.clone()),
                labels: Some(l.input.record.spec.clone()),
                lower_is_member: req.lower_is_member,
                alpha: req.alpha,
                ci: req.ci.clone(),
                resamples: bootstrap.then_some(req.resamples),
                rule: req.rule.clone(),
                fpr: req.fpr.clone(),
            };
            (m, n, p)
        }
        _ => {
            return Err(Error::msg(format!(
                "give the members' and the non-members' scores (two inputs), or one input of scores with one of \
                 0/1 labels ({} and {}), not a mix",
                words::opt("scores"),
                words::opt("labels")
            ))
            .usage());
        }
    };
    let first = members[0];
    if members.iter().chain(&non_members).all(|&v| v == first) {
        return Err(Error::refused(
            "constant_scores",
            inputs.first().map(|r| r.role.as_str()),
            format!(
                "every score is {first}: the attack ranks no row above another, so there is no ROC to draw (its AUC \
                 is 0.5 by construction). Check that the right column was given"
            ),
        ));
    }
    let (members, non_members) = if req.lower_is_member {
        (
            members.iter().map(|v| -v).collect(),
            non_members.iter().map(|v| -v).collect(),
        )
    } else {
        (members, non_members)
    };
    Ok(MiaJob {
        members,
        non_members,
        rules,
        delong,
        bootstrap,
        req: req.clone(),
        parameters,
        inputs,
        warnings,
    })
}

impl MiaJob {
    /// The checked score inputs, for analyses that take `lethe mia`'s inputs (`lethe eps-lower`): the members' and
    /// non-members' scores (negated when `lower_is_member`), the parameters (the inputs' specs), the input records
    /// and the checks' warnings.
    pub fn checked_inputs(&self) -> (&[f64], &[f64], &MiaParameters, &[InputRecord], &[Warning]) {
        (
            &self.members,
            &self.non_members,
            &self.parameters,
            &self.inputs,
            &self.warnings,
        )
    }

    /// Runs the ROC, the intervals and the rules; the bootstrap on `threads` threads (native; the result is the
    /// same for every count), calling `progress(done, total)` between blocks of resamples (`false` stops it: the
    /// report then holds the resamples done).
    ///
    /// # Errors
    /// The core's errors (none expected after the checks).
    pub fn run(self, threads: usize, progress: &mut dyn FnMut(usize, usize) -> bool) -> Result<MiaReport> {
        let r = roc::roc(&self.members, &self.non_members).map_err(Error::from)?;
        let bootstrap = if self.bootstrap {
            Some(
                roc_bootstrap::bootstrap(&r, self.req.resamples, self.req.seed, self.req.alpha, threads, progress)
                    .map_err(Error::from)?,
            )
        } else {
            None
        };
        self.report(&r, bootstrap)
    }

    /// [`MiaJob::run`] asking `monitor` between blocks of bootstrap resamples (progress, and a stop that keeps the
    /// resamples done): what the page's worker runs, yielding to its event loop there so that a cancel is seen
    /// within one block.
    ///
    /// # Errors
    /// As [`MiaJob::run`].
    pub async fn run_with<M: Monitor>(self, threads: usize, monitor: &mut M) -> Result<MiaReport> {
        let r = roc::roc(&self.members, &self.non_members).map_err(Error::from)?;
        let bootstrap = if self.bootstrap {
            Some(
                roc_bootstrap::bootstrap_monitored(
                    &r,
                    self.req.resamples,
                    self.req.seed,
                    self.req.alpha,
                    threads,
                    monitor,
                )
                .await
                .map_err(Error::from)?,
            )
        } else {
            None
        };
        self.report(&r, bootstrap)
    }

    /// The report of the ROC `r` (with the bootstrap, when one ran).
    fn report(self, r: &lethe::roc::Roc, bootstrap: Option<Bootstrap>) -> Result<MiaReport> {
        let MiaJob {
            rules,
            delong: want_delong,
            bootstrap: want_boot,
            req,
            parameters,
            inputs,
            mut warnings,
            ..
        } = self;
        let summary = roc::summary(r);
        let hull_auc = roc::hull_auc(r);
        let (n1, n0) = (r.n_members, r.n_non_members);
        let delong = if want_delong {
            match delong::delong(r, req.alpha) {
                Ok(d) => Some(d),
                Err(_) => {
                    warnings.push(Warning::new(
                        "too_few_for_delong",
                        None,
                        format!(
                            "DeLong's interval needs at least 2 scores of each class ({n1} members, {n0} non-members \
                             here): it is not given"
                        ),
                        Some("add scores, or use the bootstrap interval".into()),
                    ));
                    None
                }
            }
        } else {
            None
        };
        let mut tpr_at_fpr = Vec::new();
        for &t in &req.fpr {
            for &rule in &rules {
                tpr_at_fpr.push(roc::tpr_at_fpr(r, t, rule, req.alpha).map_err(Error::from)?);
            }
        }
        let resolution = 1.0 / n0 as f64;
        let coarse: Vec<String> = req
            .fpr
            .iter()
            .filter(|&&t| t > 0.0 && t < resolution)
            .map(|&t| num(t))
            .collect();
        if !coarse.is_empty() {
            warnings.push(Warning::new(
                "fpr_below_resolution",
                Some(if parameters.labels.is_some() {
                    "labels"
                } else {
                    "non_members"
                }),
                format!(
                    "with {n0} non-members the smallest FPR above 0 is 1/{n0} = {}: TPR at FPR {} is read at a \
                     threshold no non-member reaches (realized FPR 0), and its interval is wide",
                    num(resolution),
                    coarse.join(", ")
                ),
                Some(format!(
                    "to read TPR at FPR {} itself, score at least {} non-members (ten times that for a useful \
                     interval)",
                    coarse[0],
                    (1.0 / req.fpr.iter().copied().filter(|&t| t > 0.0).fold(1.0, f64::min)).ceil()
                )),
            ));
        }
        let level = format!("{}%", num(100.0 * (1.0 - req.alpha)));
        let interval = delong
            .as_ref()
            .map(|d| (d.interval, "DeLong"))
            .or_else(|| bootstrap.as_ref().and_then(|b| b.interval.map(|i| (i, "bootstrap"))));
        if summary.auc < 0.5 {
            let flipped = interval.map_or(String::new(), |(i, how)| {
                format!(" ({level} CI {}–{}, {how})", num(1.0 - i.hi), num(1.0 - i.lo))
            });
            warnings.push(Warning::new(
                "auc_below_half",
                None,
                format!(
                    "the AUC is {}, below 0.5: these scores rank non-members above members. Read with the labels \
                     flipped (a lower score = member), the same scores are an attack with AUC {}{flipped}",
                    num(summary.auc),
                    num(1.0 - summary.auc)
                ),
                Some(
                    "if a lower score means member for this attack (a loss, a distance), ask for that (lower is \
                     member); otherwise check that the members' and non-members' scores are not swapped"
                        .into(),
                ),
            ));
        }
        // The lowest target FPR the non-members resolve, for the headline.
        let shown = req
            .fpr
            .iter()
            .copied()
            .filter(|&t| t >= resolution)
            .fold(None::<f64>, |a, t| Some(a.map_or(t, |a| a.min(t))));
        let at = shown
            .and_then(|t| tpr_at_fpr.iter().find(|p| p.target_fpr == t))
            .map_or(String::new(), |p| {
                format!(
                    "; at FPR {} the {} rule finds TPR {} (realized FPR {})",
                    num(p.target_fpr),
                    p.rule.name(),
                    num(p.tpr),
                    num(p.realized_fpr)
                )
            });
        let auc = num(summary.auc);
        let headline = match interval {
            None => Headline::inconclusive(
                format!("Inconclusive: AUC = {auc}, with no interval"),
                format!("{n1} members and {n0} non-members are too few for an interval on the AUC"),
            ),
            Some((i, how)) => {
                let ci = format!("{level} CI {}–{}, {how}", num(i.lo), num(i.hi));
                if i.lo > 0.5 {
                    Headline::new(
                        "distinguishes",
                        format!("The attack tells members from non-members: AUC = {auc} ({ci}){at}"),
                    )
                } else if i.hi < 0.5 {
                    Headline::new(
                        "distinguishes_reversed",
                        format!(
                            "The scores tell members from non-members the other way round: AUC = {auc} ({ci}); \
                             flagging low scores as members is an attack with AUC {}",
                            num(1.0 - summary.auc)
                        ),
                    )
                } else {
                    Headline::new(
                        "no_evidence",
                        format!(
                            "No evidence that the attack tells members from non-members: AUC = {auc} ({ci}) \
                             includes 0.5, chance; this does not show that the model leaks nothing"
                        ),
                    )
                }
            }
        };
        let mut curve = thin_curve(r, req.curve_points);
        // Thresholds in the scores' own units: with lower scores meaning member the attack ran on the negated
        // scores, so a row is flagged a member when its score is at most the threshold (a loss ≤ 0.0397).
        let mut summary = summary;
        if req.lower_is_member {
            // (+ 0.0: a threshold of 0 stays 0, not −0.)
            let back = |t: f64| -t + 0.0;
            summary.balanced_threshold = back(summary.balanced_threshold);
            for t in &mut tpr_at_fpr {
                t.threshold = back(t.threshold);
                t.mixed_threshold = t.mixed_threshold.map(back);
            }
            for t in &mut curve.thresholds {
                *t = back(*t);
            }
        }
        let result = MiaResult {
            summary,
            auc_flipped: 1.0 - roc::summary(r).auc,
            hull_auc,
            delong,
            bootstrap,
            tpr_at_fpr,
            curve,
        };
        let seed = want_boot.then_some(req.seed);
        Ok(Report::new("mia", parameters, seed, inputs, headline, warnings, result))
    }
}

pub(crate) fn thin_curve(r: &lethe::roc::Roc, max_points: usize) -> Curve {
    let n = r.tp.len();
    let keep: Vec<usize> = if max_points < 2 || n <= max_points {
        (0..n).collect()
    } else {
        let step = (n - 1) as f64 / (max_points - 1) as f64;
        let mut v: Vec<usize> = (0..max_points)
            .map(|i| ((i as f64 * step).round() as usize).min(n - 1))
            .collect();
        v.dedup();
        v
    };
    Curve {
        fpr: keep.iter().map(|&k| r.fpr(k)).collect(),
        tpr: keep.iter().map(|&k| r.tpr(k)).collect(),
        thresholds: keep.iter().map(|&k| r.thresholds[k]).collect(),
        points: n,
        thinned: keep.len() < n,
    }
}

// ---------------------------------------------------------------------------------------------------------------
// fdr

/// `lethe fdr`'s options.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct FdrRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub pvalues: Option<InputRef>,
    /// statsmodels' name: bonferroni, sidak, holm-sidak, holm, simes-hochberg, hommel, fdr_bh (Benjamini–Hochberg),
    /// fdr_by (Benjamini–Yekutieli), fdr_tsbh or fdr_tsbky (two-stage); statsmodels' aliases (hs, fdr_twostage, …)
    /// and bh are taken too
    // No value_parser: the run checks the name ([`FDR_METHODS`], `lethe::fdr::parse_method`), so every front end
    // takes the same ones.
    #[cfg_attr(feature = "clap", arg(long, default_value_t = FdrRequest::default().method))]
    pub method: String,
    /// The level
    #[cfg_attr(feature = "clap", arg(long, default_value_t = FdrRequest::default().alpha))]
    pub alpha: f64,
}

impl Default for FdrRequest {
    fn default() -> Self {
        Self {
            pvalues: None,
            method: "fdr_bh".into(),
            alpha: 0.05,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FdrParameters {
    pub pvalues: String,
    pub method: String,
    pub alpha: f64,
}

pub type FdrReport = Report<FdrParameters, MultipleTests>;

/// Every method of `lethe fdr`, in statsmodels' order: its name and what it controls, in the user's words (the
/// headline's parenthesis and the refusal of an unknown name).
pub const FDR_METHODS: [(&str, &str); 10] = [
    ("bonferroni", "Bonferroni, family-wise error rate under any dependence"),
    ("sidak", "Šidák, family-wise error rate for independent tests"),
    ("holm-sidak", "Holm–Šidák, family-wise error rate for independent tests"),
    ("holm", "Holm, family-wise error rate under any dependence"),
    (
        "simes-hochberg",
        "Hochberg, family-wise error rate for independent or positively dependent tests",
    ),
    (
        "hommel",
        "Hommel, family-wise error rate for independent or positively dependent tests",
    ),
    (
        "fdr_bh",
        "Benjamini–Hochberg, false discovery rate for independent or positively dependent tests",
    ),
    (
        "fdr_by",
        "Benjamini–Yekutieli, false discovery rate under any dependence",
    ),
    (
        "fdr_tsbh",
        "two-stage Benjamini–Hochberg, false discovery rate for independent tests",
    ),
    (
        "fdr_tsbky",
        "two-stage Benjamini–Krieger–Yekutieli, false discovery rate for independent tests",
    ),
];

/// `multipletests` on a file of p-values, with its call.
///
/// # Errors
/// A bad method or alpha (usage errors); a missing, unreadable or 2-D input; no p-values; a NaN or a value outside
/// [0, 1] (`not_p_values`, naming the file's row).
pub fn run_fdr(ws: &mut Workspace, req: &FdrRequest) -> Result<FdrReport> {
    let method = fdr::parse_method(&req.method).map_err(|_| {
        let names: Vec<&str> = FDR_METHODS.iter().map(|(name, _)| *name).collect();
        Error::msg(format!(
            "the method `{}` is not one of {} (statsmodels' names; `bh` and statsmodels' short names such as `hs` \
             are taken too)",
            req.method,
            names.join(", ")
        ))
        .usage()
    })?;
    if !(req.alpha > 0.0 && req.alpha < 1.0) {
        return Err(Error::msg(format!(
            "alpha = {} must lie strictly between 0 and 1",
            req.alpha
        )));
    }
    let r = req
        .pvalues
        .as_ref()
        .ok_or_else(|| Error::at("pvalues", "choose the file of p-values").usage())?;
    let v = load_vector(ws, "pvalues", r, "p-values")?;
    let mut warnings = super::reader_warnings("pvalues", &v.input);
    let p = v.values();
    if let Some(k) = p.iter().position(|x| !(0.0..=1.0).contains(x)) {
        let row = v.row(ws, k);
        return Err(Error::refused(
            "not_p_values",
            Some("pvalues"),
            format!(
                "`{}` has a value that is not a p-value at row {row} of the file (counting from 0) ({}): p-values lie between 0 and \
                 1. Remove that row, or give the file of p-values rather than of statistics",
                v.path(),
                if p[k].is_nan() {
                    "NaN".to_string()
                } else {
                    p[k].to_string()
                }
            ),
        ));
    }
    let result = fdr::multipletests(p, req.alpha, method).map_err(|e| match e {
        // Hommel's m² steps: the core names its argument; say the file.
        lethe::Error::TooLarge { detail, fix, .. } => {
            Error::at("pvalues", format!("`{}` is too large: {detail}; {fix}", v.path()))
        }
        lethe::Error::Empty { fix, .. } => Error::at("pvalues", format!("`{}` holds no p-values: {fix}", v.path())),
        e => Error::from(e),
    })?;
    let k = result.reject.iter().filter(|&&r| r).count();
    let m = p.len();
    let what = FDR_METHODS
        .iter()
        .find(|(name, _)| *name == result.method)
        .map_or(result.method, |(_, what)| what);
    let headline = if k > 0 {
        Headline::new(
            "rejected",
            format!("{k} of {m} hypotheses rejected at {} ({what})", req.alpha),
        )
    } else {
        Headline::new(
            "none_rejected",
            format!(
                "None of the {m} hypotheses is rejected at {} ({what}); this does not show that they hold",
                req.alpha
            ),
        )
    };
    if matches!(
        method,
        lethe::multiple_testing::Correction::TwoStageBenjaminiHochberg
            | lethe::multiple_testing::Correction::TwoStageBenjaminiKriegerYekutieli
    ) {
        warnings.push(Warning::new(
            "adjusted_for_this_alpha",
            Some("pvalues"),
            format!(
                "the two-stage adjusted p-values hold for alpha {} only (they include the number of true \
                 hypotheses estimated at that level): compare them with {} and no other level",
                req.alpha, req.alpha
            ),
            Some("for another level, run the correction again at that level".to_string()),
        ));
    }
    if m == 1 {
        warnings.push(Warning::new(
            "single_p_value",
            Some("pvalues"),
            "one p-value: there is nothing to correct for, the adjusted p-value is the p-value",
            None,
        ));
    }
    let parameters = FdrParameters {
        pvalues: v.input.record.spec.clone(),
        method: req.method.clone(),
        alpha: req.alpha,
    };
    let inputs = vec![v.input.record.clone()];
    Ok(Report::new("fdr", parameters, None, inputs, headline, warnings, result))
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entries

/// `lethe mia` in the registry ([`crate::registry`]).
pub struct Mia;

/// The bootstrap runs in blocks of resamples and asks the page's checkpoint between them: its progress is posted,
/// the worker yields to its event loop, and a cancel stops it within a block, keeping the resamples done.
impl InBrowser for Mia {
    const NAME: &'static str = "mia";
    type Request = MiaRequest;
    type Job = MiaJob;
    type Output = MiaReport;
    fn prepare(ws: &mut Workspace, req: MiaRequest) -> Result<MiaJob> {
        prepare_mia(ws, &req)
    }
    async fn finish<C: Compute, M: Monitor>(job: MiaJob, _: &mut C, monitor: &mut M) -> Result<MiaReport> {
        job.run_with(1, monitor).await
    }
}

registered! {
impl crate::registry::Analysis for Mia {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = MiaRequest;
    const ROLES: Roles = Roles::inputs(&["members", "non_members", "scores", "labels"]);
    fn run(ws: &mut Workspace, req: &MiaRequest, ctl: &mut Control<'_>) -> Result<serde_json::Value> {
        let job = prepare_mia(ws, req)?;
        report(&job.run(ctl.threads.max(1), &mut bootstrap_progress(&mut *ctl.monitor))?)
    }
}

/// `lethe fdr` in the registry ([`crate::registry`]).
pub struct Fdr;

impl crate::registry::Analysis for Fdr {
    const NAME: &'static str = "fdr";
    type Request = FdrRequest;
    const ROLES: Roles = Roles::inputs(&["pvalues"]);
    fn run(ws: &mut Workspace, req: &FdrRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&run_fdr(ws, req)?)
    }
}

}

#[cfg(test)]
mod tests {
    use super::*;

    fn ws_with(files: &[(u32, &str, &[u8])]) -> Workspace {
        let mut ws = Workspace::new();
        for (id, name, bytes) in files {
            ws.add(*id, name, Arc::new(bytes.to_vec()));
        }
        ws
    }

    fn input(source: u32, rows: &str) -> Option<InputRef> {
        Some(InputRef {
            source,
            tensor: None,
            rows: Rows::Text { text: rows.into() },
        })
    }

    fn run(ws: &mut Workspace, req: &MiaRequest) -> Result<MiaReport> {
        prepare_mia(ws, req)?.run(1, &mut |_, _| true)
    }

    #[test]
    fn two_files_and_scores_with_labels_agree() {
        let mut ws = ws_with(&[
            (1, "m.csv", b"0.9\n0.8\n0.7\n0.3\n"),
            (2, "n.csv", b"0.1\n0.2\n0.75\n0.4\n0.5\n"),
            (3, "s.csv", b"0.9\n0.1\n0.8\n0.2\n0.7\n0.75\n0.3\n0.4\n0.5\n"),
            (4, "l.csv", b"1\n0\n1\n0\n1\n0\n1\n0\n0\n"),
        ]);
        let a = run(
            &mut ws,
            &MiaRequest {
                members: input(1, ""),
                non_members: input(2, ""),
                ..MiaRequest::default()
            },
        )
        .unwrap();
        let b = run(
            &mut ws,
            &MiaRequest {
                scores: input(3, ""),
                labels: input(4, ""),
                ..MiaRequest::default()
            },
        )
        .unwrap();
        assert_eq!(a.result.summary, b.result.summary);
        assert_eq!(a.result.summary.auc, 0.8);
        assert!(a.warnings.iter().any(|w| w.code == "fpr_below_resolution"));
    }

    #[test]
    fn bad_inputs_are_refused_naming_file_and_row() {
        let mut ws = ws_with(&[
            (1, "m.csv", b"0.9\n0.8\nnan\n"),
            (2, "n.csv", b"0.1\n0.2\n"),
            (3, "l.csv", b"1\n0\n2\n"),
            (4, "s.csv", b"1\n2\n3\n"),
            (5, "ones.csv", b"1\n1\n1\n"),
            (6, "c.csv", b"5\n5\n"),
            (7, "c2.csv", b"5\n5\n5\n"),
        ]);
        let e = run(
            &mut ws,
            &MiaRequest {
                members: input(1, ""),
                non_members: input(2, ""),
                ..MiaRequest::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code.as_deref(), Some("non_finite"));
        assert!(
            e.message.contains("m.csv") && e.message.contains("row 2"),
            "{}",
            e.message
        );
        let e = run(
            &mut ws,
            &MiaRequest {
                scores: input(4, ""),
                labels: input(3, ""),
                ..MiaRequest::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code.as_deref(), Some("labels_not_binary"));
        assert!(
            e.message.contains("row 2") && e.message.contains("l.csv"),
            "{}",
            e.message
        );
        let e = run(
            &mut ws,
            &MiaRequest {
                scores: input(4, ""),
                labels: input(5, ""),
                ..MiaRequest::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code.as_deref(), Some("one_class_empty"));
        let e = run(
            &mut ws,
            &MiaRequest {
                members: input(6, ""),
                non_members: input(7, ""),
                ..MiaRequest::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code.as_deref(), Some("constant_scores"));
        // The same rows of one file on both sides: refused before anything is computed.
        let e = run(
            &mut ws,
            &MiaRequest {
                members: input(6, ""),
                non_members: input(6, ""),
                ..MiaRequest::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code.as_deref(), Some("members_are_non_members"));
    }

    #[test]
    fn reversed_scores_are_said_so_and_flip_with_lower_is_member() {
        let m: Vec<u8> = (0..40).flat_map(|i| format!("{}\n", i).into_bytes()).collect();
        let n: Vec<u8> = (30..90).flat_map(|i| format!("{}\n", i).into_bytes()).collect();
        let mut ws = ws_with(&[(1, "m.csv", &m), (2, "n.csv", &n)]);
        let req = MiaRequest {
            members: input(1, ""),
            non_members: input(2, ""),
            ci: "both".into(),
            resamples: 200,
            ..MiaRequest::default()
        };
        let r = run(&mut ws, &req).unwrap();
        assert_eq!(r.headline.call, "distinguishes_reversed");
        assert!(r.warnings.iter().any(|w| w.code == "auc_below_half"));
        assert_eq!(r.seed, Some(0));
        let flipped = run(
            &mut ws,
            &MiaRequest {
                lower_is_member: true,
                ..req
            },
        )
        .unwrap();
        assert_eq!(flipped.headline.call, "distinguishes");
        assert!((flipped.result.summary.auc - r.result.auc_flipped).abs() < 1e-15);
    }

    #[test]
    fn the_monitored_run_reports_progress_stops_and_equals_the_plain_run() {
        let m: Vec<u8> = (0..3000)
            .flat_map(|i| format!("{}\n", (i * 37) % 1001).into_bytes())
            .collect();
        let n: Vec<u8> = (0..2000)
            .flat_map(|i| format!("{}\n", (i * 53) % 997).into_bytes())
            .collect();
        let mut ws = ws_with(&[(1, "m.csv", &m), (2, "n.csv", &n)]);
        let req = MiaRequest {
            members: input(1, ""),
            non_members: input(2, ""),
            ci: "both".into(),
            resamples: 700,
            seed: 9,
            ..MiaRequest::default()
        };
        let plain = run(&mut ws, &req).unwrap();
        let mut fractions = Vec::new();
        let mut all = |p: &Progress| {
            fractions.push(p.fraction);
            true
        };
        let job = prepare_mia(&mut ws, &req).unwrap();
        let monitored = crate::teach::ready(job.run_with(1, &mut all)).unwrap().unwrap();
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            serde_json::to_string(&monitored).unwrap()
        );
        assert!(fractions.len() >= 3 && fractions.last() == Some(&1.0), "{fractions:?}");
        // Stopped at the first checkpoint: a report over the resamples done, said so.
        let mut stop = |_: &Progress| false;
        let job = prepare_mia(&mut ws, &req).unwrap();
        let stopped = crate::teach::ready(job.run_with(1, &mut stop)).unwrap().unwrap();
        let b = stopped.result.bootstrap.unwrap();
        assert!(!b.complete && b.resamples_done > 0 && b.resamples_done < 700, "{b:?}");
        assert_eq!(stopped.result.summary, plain.result.summary);
    }

    #[test]
    fn fdr_reports_statsmodels_fields_and_refuses_non_p_values() {
        let mut ws = ws_with(&[(1, "p.csv", b"0.01\n0.04\n0.03\n0.5\n"), (2, "bad.csv", b"0.1\n1.5\n")]);
        let r = run_fdr(
            &mut ws,
            &FdrRequest {
                pvalues: input(1, ""),
                ..FdrRequest::default()
            },
        )
        .unwrap();
        assert_eq!(r.result.reject, vec![true, false, false, false]);
        assert_eq!(r.headline.call, "rejected");
        let e = run_fdr(
            &mut ws,
            &FdrRequest {
                pvalues: input(2, ""),
                ..FdrRequest::default()
            },
        )
        .unwrap_err();
        assert_eq!(e.code.as_deref(), Some("not_p_values"));
        assert!(
            e.message.contains("row 1") && e.message.contains("bad.csv"),
            "{}",
            e.message
        );
    }

    /// Every method statsmodels names (and its aliases) runs through the request's `method`, with a headline that
    /// says what it controls; an unknown name is a usage error that lists the valid ones.
    #[test]
    fn fdr_takes_every_method_by_name_and_refuses_others_listing_them() {
        let mut ws = ws_with(&[(1, "p.csv", b"0.001\n0.04\n0.03\n0.5\n0.002\n")]);
        let req = |method: &str| FdrRequest {
            pvalues: input(1, ""),
            method: method.into(),
            ..FdrRequest::default()
        };
        for (name, what) in FDR_METHODS {
            let r = run_fdr(&mut ws, &req(name)).unwrap();
            assert_eq!(r.result.method, name);
            assert_eq!(r.parameters.method, name);
            assert!(r.headline.text.contains(what), "{name}: {}", r.headline.text);
            assert!(r.result.reject[0], "{name}: 0.001 of 5 is rejected by every method");
            // The two-stage adjusted p-values belong to this alpha: said, so they are not read at another.
            let said = r.warnings.iter().any(|w| w.code == "adjusted_for_this_alpha");
            assert_eq!(said, name.starts_with("fdr_ts"), "{name}");
        }
        for (alias, name) in [
            ("hs", "holm-sidak"),
            ("fdr_twostage", "fdr_tsbky"),
            ("Hommel", "hommel"),
            ("bh", "fdr_bh"),
        ] {
            assert_eq!(run_fdr(&mut ws, &req(alias)).unwrap().result.method, name, "{alias}");
        }
        for bad in ["fdr_gbs", "lfdr", "sidakk", ""] {
            let e = run_fdr(&mut ws, &req(bad)).unwrap_err();
            assert!(e.usage, "{bad}");
            assert!(
                e.message
                    .starts_with(&format!("the method `{bad}` is not one of bonferroni, sidak, ")),
                "{}",
                e.message
            );
            for (name, _) in FDR_METHODS {
                assert!(e.message.contains(name), "{name} missing: {}", e.message);
            }
        }
    }
}
