//! Lower bounds on a training run's differential-privacy ε from a membership-inference audit (`lethe eps-lower`):
//! the request with the CLI's option names and defaults, the checks, the core's computation ([`lethe::eps_audit`])
//! and one [`Report`] with its headline.
//!
//! Inputs, one of:
//! * attack scores, as `lethe mia` takes them (members' and non-members' scores as two inputs, or scores with 0/1
//!   labels; `lower_is_member` for losses): loaded and checked by `lethe mia`'s own checks (the same refusals and
//!   warnings, the same file coordinates);
//! * the counts of an attack at one threshold chosen beforehand (`counts`: TP, FP, TN, FN);
//! * the one-run audit's counts (`one_run`: m canaries, r guesses, v correct).
//!
//! Methods: `clopper-pearson` (default; rule `jax-privacy` by default or `privacy-estimates`: see
//! [`lethe::eps_audit`]) and `one-run` (Steinke, Nasr and Jagielski 2023, privacy-meter's `get_eps_audit`). With
//! scores, the one-run audit guesses "member" for the `guess_members` highest scores and "non-member" for the
//! `guess_non_members` lowest (the paper's k₊ and k₋, chosen before looking at the scores).
//!
//! The headline states ε, δ and the confidence. It is "inconclusive" when the bound is 0, and says whether the
//! sample was too small for any bound (with the number of examples a perfect attack would need) or the attack too
//! weak for this sample.

use lethe::eps_audit::{self, Counts, CpBound, CpParams, CpRule, GdpBound, OneRun};

use super::*;
use crate::report::{Headline, Report, Warning, num};

/// The one-run audit's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OneRunCounts {
    /// Canaries (each included in training with probability ½).
    pub m: u64,
    /// Guesses (canaries not abstained on).
    pub r: u64,
    /// Correct guesses.
    pub v: u64,
}

/// An attack's counts at one threshold, as a request gives them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountsArg {
    pub tp: u64,
    pub fp: u64,
    pub tn: u64,
    #[serde(rename = "fn")]
    pub fn_: u64,
}

/// `lethe eps-lower`'s options. With the `clap` feature (the CLI's), the options from `method` on are the
/// subcommand's arguments, declared here once (the CLI reads the inputs and the counts itself).
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct EpsAuditRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub members: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub non_members: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub scores: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub labels: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub lower_is_member: bool,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub counts: Option<CountsArg>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub one_run: Option<OneRunCounts>,
    /// clopper-pearson (default; Bonferroni over the thresholds tried), one-run (Steinke, Nasr, Jagielski 2023;
    /// privacy-meter's get_eps_audit) or gdp (jax-privacy's epsilon_from_gdp as fixed after its PR 270; scores, δ > 0)
    // `None`: decided here ([`EpsAuditRequest::method`]), for every front end.
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["clopper-pearson", "one-run", "gdp"]))]
    pub method: Option<String>,
    /// Clopper–Pearson rule: jax-privacy (epsilon_clopper_pearson, default) or privacy-estimates (compute_eps_lo)
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["jax-privacy", "privacy-estimates"], default_value = "jax-privacy"))]
    pub rule: String,
    /// One minus the confidence (0.05: 95%)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = EpsAuditRequest::default().significance))]
    pub significance: f64,
    /// The δ of the (ε, δ) claim tested
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.0))]
    pub delta: f64,
    /// jax-privacy rule: also try the reverse rule (members score lower), its one_sided=False
    #[cfg_attr(feature = "clap", arg(long))]
    pub two_sided: bool,
    /// One-run audit on scores: guess "member" for this many highest scores (chosen before looking; implies
    /// --method one-run)
    #[cfg_attr(feature = "clap", arg(long, value_name = "K"))]
    pub guess_members: Option<u64>,
    /// One-run audit on scores: guess "non-member" for this many lowest scores
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "K", default_value_t = 0, requires = "guess_members")
    )]
    pub guess_non_members: u64,
}

impl Default for EpsAuditRequest {
    fn default() -> Self {
        Self {
            members: None,
            non_members: None,
            scores: None,
            labels: None,
            lower_is_member: false,
            counts: None,
            one_run: None,
            method: None,
            rule: CpRule::JaxPrivacy.name().into(),
            significance: 0.05,
            delta: 0.0,
            two_sided: false,
            guess_members: None,
            guess_non_members: 0,
        }
    }
}

impl EpsAuditRequest {
    /// The method: the one asked for, else the one-run audit when its counts (m, r, v) or guesses are given, else
    /// Clopper–Pearson.
    #[must_use]
    pub fn method(&self) -> &str {
        match &self.method {
            Some(m) => m,
            None if self.one_run.is_some() || self.guess_members.is_some() => "one-run",
            None => "clopper-pearson",
        }
    }
}

/// `lethe eps-lower`'s parameters as reports record them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EpsAuditParameters {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub non_members: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub labels: Option<String>,
    pub lower_is_member: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<CountsArg>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_run: Option<OneRunCounts>,
    pub method: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    pub significance: f64,
    pub confidence: f64,
    pub delta: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub two_sided: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guess_members: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guess_non_members: Option<u64>,
}

/// The bound, by method.
#[derive(Clone, Debug, Serialize)]
pub struct EpsAuditResult {
    /// `clopper-pearson` or `one-run`.
    pub method: &'static str,
    /// ε ≥ this with the stated confidence (0 when nothing is shown).
    pub epsilon: f64,
    pub delta: f64,
    pub confidence: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clopper_pearson: Option<CpBound>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_run: Option<OneRun>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gdp: Option<GdpBound>,
    /// When no attack on a sample this size could show ε > 0: the size that would (members and non-members each
    /// for Clopper–Pearson, canaries for the one-run audit); `None` otherwise.
    pub examples_needed: Option<u64>,
}

pub type EpsAuditReport = Report<EpsAuditParameters, EpsAuditResult>;

/// The scores of a request, checked by `lethe mia`'s checks.
struct Scores {
    members: Vec<f64>,
    non_members: Vec<f64>,
    specs: [Option<String>; 4],
    inputs: Vec<InputRecord>,
    warnings: Vec<Warning>,
}

fn load_scores(ws: &mut Workspace, req: &EpsAuditRequest) -> Result<Scores> {
    let mreq = MiaRequest {
        members: req.members.clone(),
        non_members: req.non_members.clone(),
        scores: req.scores.clone(),
        labels: req.labels.clone(),
        lower_is_member: req.lower_is_member,
        ..MiaRequest::default()
    };
    let job = prepare_mia(ws, &mreq)?;
    let (m, n, p, inputs, warnings) = job.checked_inputs();
    Ok(Scores {
        members: m.to_vec(),
        non_members: n.to_vec(),
        specs: [
            p.members.clone(),
            p.non_members.clone(),
            p.scores.clone(),
            p.labels.clone(),
        ],
        inputs: inputs.to_vec(),
        warnings: warnings.to_vec(),
    })
}

fn pct(significance: f64) -> String {
    format!("{}%", num(100.0 * (1.0 - significance)))
}

/// The one-run audit's counts from scores: "member" for the `k_pos` highest, "non-member" for the `k_neg` lowest.
fn guesses_from_scores(s: &Scores, k_pos: u64, k_neg: u64) -> Result<OneRunCounts> {
    let mut all: Vec<(f64, bool)> = s
        .members
        .iter()
        .map(|&x| (x, true))
        .chain(s.non_members.iter().map(|&x| (x, false)))
        .collect();
    let m = all.len() as u64;
    if k_pos.saturating_add(k_neg) > m {
        return Err(Error::msg(format!(
            "{k_pos} guesses of \"member\" and {k_neg} of \"non-member\" are more than the {m} scores: guess at most \
             {m} in all"
        ))
        .usage());
    }
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (kp, kn) = (k_pos as usize, k_neg as usize);
    let len = all.len();
    // A cut inside a run of tied scores would make the guesses depend on the order of the rows.
    let split = |at: usize| at > 0 && at < len && all[at - 1].0 == all[at].0;
    for (k, at, what) in [(kp, kp, "member"), (kn, len - kn, "non-member")] {
        if k > 0 && split(at) {
            return Err(Error::refused(
                "guess_cut_in_ties",
                None,
                format!(
                    "the {k} guesses of \"{what}\" end inside a run of tied scores ({}): which of the tied rows are \
                     guessed would depend on the order of the rows. Choose a number of guesses that ends between two \
                     different scores",
                    num(all[at].0)
                ),
            ));
        }
    }
    let v = all[..kp].iter().filter(|x| x.1).count() + all[len - kn..].iter().filter(|x| !x.1).count();
    Ok(OneRunCounts {
        m,
        r: k_pos + k_neg,
        v: v as u64,
    })
}

fn cp_params(req: &EpsAuditRequest) -> Result<CpParams> {
    let rule: CpRule = req.rule.parse().map_err(|_| {
        Error::msg(format!(
            "the rule `{}` is not one of jax-privacy, privacy-estimates",
            req.rule
        ))
        .usage()
    })?;
    Ok(CpParams {
        significance: req.significance,
        delta: req.delta,
        one_sided: !req.two_sided,
        rule,
    })
}

/// Runs a `lethe eps-lower` request.
///
/// # Errors
/// Malformed options (usage errors), missing or unreadable inputs, `lethe mia`'s refusals of the scores, and
/// parameters out of range (significance outside (0, 0.5) for Clopper–Pearson, (0, 1) for the one-run audit; δ
/// outside [0, 1); counts that do not add up).
pub fn eps_audit(ws: &mut Workspace, req: &EpsAuditRequest) -> Result<EpsAuditReport> {
    let (one_run, gdp) = match req.method() {
        "clopper-pearson" => (false, false),
        "one-run" => (true, false),
        "gdp" => (false, true),
        other => {
            return Err(Error::msg(format!(
                "the method `{other}` is not one of clopper-pearson, one-run, gdp"
            ))
            .usage());
        }
    };
    let has_scores = req.members.is_some() || req.non_members.is_some() || req.scores.is_some();
    let given = [has_scores, req.counts.is_some(), req.one_run.is_some()];
    if given.iter().filter(|g| **g).count() != 1 {
        return Err(Error::msg(
            "give one of: attack scores (members' and non-members' scores, or scores with 0/1 labels), the counts at \
             one threshold (TP, FP, TN, FN), or the one-run audit's counts (m, r, v)",
        )
        .usage());
    }
    if req.one_run.is_some() && !one_run {
        return Err(Error::msg("the one-run counts (m, r, v) go with the one-run method").usage());
    }
    if req.counts.is_some() && one_run {
        return Err(Error::msg(
            "the one-run audit takes canaries, guesses and correct guesses (m, r, v), not TP/FP/TN/FN",
        )
        .usage());
    }
    if !(req.delta >= 0.0 && req.delta < 1.0) {
        return Err(Error::msg(format!("delta = {} must lie in [0, 1)", req.delta)).usage());
    }
    let mut warnings = Vec::new();
    let mut inputs = Vec::new();
    let mut specs: [Option<String>; 4] = Default::default();
    let scores = if has_scores {
        let s = load_scores(ws, req)?;
        warnings.extend(s.warnings.iter().cloned());
        inputs.clone_from(&s.inputs);
        specs.clone_from(&s.specs);
        Some(s)
    } else {
        None
    };
    let conf = pct(req.significance);
    let (result, headline, parameters_rule) = if gdp {
        let Some(s) = &scores else {
            return Err(Error::msg(
                "the GDP estimate takes attack scores (members' and non-members' scores, or scores with labels)",
            )
            .usage());
        };
        let in_range = req.significance > 0.0 && req.significance < 0.5 && req.delta > 0.0 && req.delta <= 1.0;
        if !in_range {
            return Err(Error::msg(format!(
                "the GDP estimate takes a significance strictly between 0 and 0.5 and a delta in (0, 1]: got {} and {}",
                req.significance, req.delta
            ))
            .usage());
        }
        let g = eps_audit::gdp(&s.members, &s.non_members, req.significance, req.delta)?;
        let (n1, n0) = (s.members.len(), s.non_members.len());
        let headline = if g.epsilon > 0.0 {
            Headline::new(
                "eps_lower_bound",
                format!(
                    "ε ≥ {} at {conf} confidence (δ = {}): GDP estimate (μ = {}, jax-privacy's epsilon_from_gdp; it assumes \
                     the run's privacy curve is Gaussian), {n1} members and {n0} non-members",
                    num(g.epsilon),
                    num(req.delta),
                    num(g.mu)
                ),
            )
        } else {
            Headline::inconclusive(
                format!("Inconclusive: the attack does not show ε > 0 at {conf} confidence (GDP estimate)"),
                format!(
                    "no threshold's error-rate bounds give a positive μ (Bonferroni over {} bounds) for the rule \
                     \"member at high score\"",
                    g.tests
                ),
            )
        };
        let result = EpsAuditResult {
            method: "gdp",
            epsilon: g.epsilon,
            delta: req.delta,
            confidence: g.confidence,
            clopper_pearson: None,
            one_run: None,
            gdp: Some(g),
            examples_needed: None,
        };
        (result, headline, None)
    } else if one_run {
        if !(req.significance > 0.0 && req.significance < 1.0) {
            return Err(Error::msg(format!(
                "significance = {} must lie strictly between 0 and 1 (0.05 for 95% confidence)",
                req.significance
            ))
            .usage());
        }
        let counts = match (&scores, req.one_run) {
            (Some(s), _) => {
                let Some(k) = req.guess_members else {
                    return Err(Error::msg(
                        "the one-run audit on scores needs the number of guesses: how many of the highest scores are \
                         guessed members (and, optionally, how many of the lowest are guessed non-members), chosen \
                         before looking at the scores",
                    )
                    .usage());
                };
                guesses_from_scores(s, k, req.guess_non_members)?
            }
            (None, Some(c)) => c,
            (None, None) => return Err(no_input()),
        };
        let o = eps_audit::one_run(counts.m, counts.r, counts.v, req.delta, req.significance)?;
        let needed = if o.best_possible > 0.0 {
            None
        } else {
            eps_audit::canaries_needed(req.delta, req.significance)?
        };
        let headline = if o.epsilon > 0.0 {
            Headline::new(
                "eps_lower_bound",
                format!(
                    "ε ≥ {} at {conf} confidence (δ = {}): one-run audit, {} correct of {} guesses on {} canaries",
                    num(o.epsilon),
                    num(req.delta),
                    o.v,
                    o.r,
                    o.m
                ),
            )
        } else if o.best_possible == 0.0 {
            Headline::inconclusive(
                format!(
                    "Inconclusive: {} canaries are too few to show any ε > 0 at {conf} confidence",
                    o.m
                ),
                match needed {
                    Some(n) => format!(
                        "even guessing all {} canaries right could not reject ε = 0 at δ = {}; at least {n} canaries \
                         (all guessed right) would",
                        o.m,
                        num(req.delta)
                    ),
                    None => format!(
                        "even guessing every canary right could not reject ε = 0 at δ = {} for any number of canaries \
                         up to 65,536: the δ term grows with the canaries; use a smaller δ",
                        num(req.delta)
                    ),
                },
            )
        } else {
            Headline::inconclusive(
                format!(
                    "Inconclusive: {} correct of {} guesses do not show ε > 0 at {conf} confidence",
                    o.v, o.r
                ),
                format!(
                    "the p-value at ε = 0 is {}, not below {}; with these {} canaries, all guessed right, the audit \
                     could show up to ε ≥ {}",
                    num(o.p_value_at_zero),
                    num(req.significance),
                    o.m,
                    num(o.best_possible)
                ),
            )
        };
        let result = EpsAuditResult {
            method: "one-run",
            epsilon: o.epsilon,
            delta: req.delta,
            confidence: o.confidence,
            clopper_pearson: None,
            one_run: Some(o),
            gdp: None,
            examples_needed: needed,
        };
        (result, headline, None)
    } else {
        let p = cp_params(req)?;
        if !(req.significance > 0.0 && req.significance < 0.5) {
            return Err(Error::msg(format!(
                "significance = {} must lie strictly between 0 and 0.5 (0.05 for 95% confidence)",
                req.significance
            ))
            .usage());
        }
        if p.rule == CpRule::PrivacyEstimates && req.two_sided {
            warnings.push(Warning::new(
                "two_sided_ignored",
                None,
                "privacy-estimates' rule always takes both decision rules (and an attack worse than chance, \
                 mirrored): the two-sided option changes nothing there",
                None,
            ));
        }
        let b = match (&scores, req.counts) {
            (Some(s), _) => eps_audit::clopper_pearson(&s.members, &s.non_members, &p)?,
            (None, Some(c)) if c.tp + c.fn_ == 0 || c.fp + c.tn == 0 => {
                let (who, rate, sum) = if c.tp + c.fn_ == 0 {
                    ("member", "false-negative", "TP + FN")
                } else {
                    ("non-member", "false-positive", "FP + TN")
                };
                return Err(Error::msg(format!(
                    "the counts have no {who} ({sum} = 0): the {rate} rate needs at least one; give the counts as \
                     TP,FP,TN,FN"
                ))
                .usage());
            }
            (None, Some(c)) => eps_audit::clopper_pearson_counts(
                Counts {
                    tp: c.tp,
                    fp: c.fp,
                    tn: c.tn,
                    fn_: c.fn_,
                },
                &p,
            )
            .map_err(|e| Error::msg(e.to_string()).usage())?,
            (None, None) => return Err(no_input()),
        };
        let needed = if b.best_possible > 0.0 {
            None
        } else {
            eps_audit::examples_needed(b.tests, &p)?
        };
        let (n1, n0) = (b.members, b.non_members);
        let how = if b.tests > 1 {
            format!(
                "Clopper–Pearson with Bonferroni over {} thresholds, the {} rule",
                b.tests,
                p.rule.name()
            )
        } else {
            format!("Clopper–Pearson at one threshold, the {} rule", p.rule.name())
        };
        let headline = if b.epsilon > 0.0 {
            Headline::new(
                "eps_lower_bound",
                format!(
                    "ε ≥ {} at {conf} confidence (δ = {}): {how}, {n1} members and {n0} non-members",
                    num(b.epsilon),
                    num(req.delta)
                ),
            )
        } else if b.best_possible == 0.0 {
            Headline::inconclusive(
                format!(
                    "Inconclusive: {n1} members and {n0} non-members are too few to show any ε > 0 at {conf} confidence"
                ),
                match needed {
                    Some(n) => format!(
                        "even an attack that separates them perfectly could not ({how}); at least {n} members and {n} \
                         non-members would"
                    ),
                    None => "even a perfect attack could not, at any sample size up to 10⁹: δ is too large".into(),
                },
            )
        } else {
            Headline::inconclusive(
                format!("Inconclusive: the attack does not show ε > 0 at {conf} confidence"),
                format!(
                    "{how}: no threshold's error rates rule out ε = 0; a perfect attack on these {n1} members and {n0} \
                     non-members could show up to ε ≥ {}",
                    num(b.best_possible)
                ),
            )
        };
        let result = EpsAuditResult {
            method: "clopper-pearson",
            epsilon: b.epsilon,
            delta: req.delta,
            confidence: b.confidence,
            clopper_pearson: Some(b),
            one_run: None,
            gdp: None,
            examples_needed: needed,
        };
        (result, headline, Some(p.rule.name().to_string()))
    };
    let [members, non_members, scores_spec, labels] = specs;
    let parameters = EpsAuditParameters {
        members,
        non_members,
        scores: scores_spec,
        labels,
        lower_is_member: req.lower_is_member,
        counts: req.counts,
        one_run: req.one_run,
        method: req.method().to_string(),
        two_sided: parameters_rule.as_ref().map(|_| req.two_sided),
        rule: parameters_rule,
        significance: req.significance,
        confidence: 1.0 - req.significance,
        delta: req.delta,
        guess_members: if one_run && has_scores { req.guess_members } else { None },
        guess_non_members: (one_run && has_scores).then_some(req.guess_non_members),
    };
    Ok(Report::new(
        "eps-lower",
        parameters,
        None,
        inputs,
        headline,
        warnings,
        result,
    ))
}

fn no_input() -> Error {
    Error::msg("give the counts or the scores the bound is computed from").usage()
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entry

/// `lethe eps-lower` in the registry ([`crate::registry`]).
pub struct EpsAudit;

in_browser_at_once!(EpsAudit, "eps-lower", EpsAuditRequest => EpsAuditReport, eps_audit);

registered! {
impl crate::registry::Analysis for EpsAudit {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = EpsAuditRequest;
    const ROLES: Roles = Roles::inputs(&["members", "non_members", "scores", "labels"]);
    fn run(ws: &mut Workspace, req: &EpsAuditRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&eps_audit(ws, req)?)
    }
}
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    fn counts(tp: u64, fp: u64, tn: u64, fn_: u64) -> EpsAuditRequest {
        EpsAuditRequest {
            counts: Some(CountsArg { tp, fp, tn, fn_ }),
            ..EpsAuditRequest::default()
        }
    }

    #[test]
    fn counts_give_jax_privacys_bound_and_state_delta_and_confidence() {
        let mut ws = Workspace::new();
        let r = eps_audit(&mut ws, &counts(90, 10, 90, 10)).unwrap();
        assert_eq!(r.headline.call, "eps_lower_bound");
        assert!(r.headline.text.starts_with("ε ≥ 1.54"), "{}", r.headline.text);
        assert!(
            r.headline.text.contains("95% confidence (δ = 0)"),
            "{}",
            r.headline.text
        );
        // privacy-estimates by name: the reliably wrong attack counts there.
        let mut req = counts(10, 90, 10, 90);
        assert_eq!(eps_audit(&mut ws, &req).unwrap().result.epsilon, 0.0);
        req.rule = "privacy-estimates".into();
        assert!((eps_audit(&mut ws, &req).unwrap().result.epsilon - 1.5422).abs() < 1e-4);
    }

    #[test]
    fn too_few_examples_are_inconclusive_with_the_number_needed() {
        let mut ws = Workspace::new();
        let r = eps_audit(&mut ws, &counts(3, 0, 3, 0)).unwrap();
        assert!(r.headline.is_inconclusive(), "{:?}", r.headline);
        let n = r.result.examples_needed.unwrap();
        assert!(
            r.headline
                .reason
                .as_deref()
                .unwrap()
                .contains(&format!("at least {n} members"))
        );
        let ok = eps_audit(&mut ws, &counts(n, 0, n, 0)).unwrap();
        assert!(ok.result.epsilon > 0.0 && ok.result.examples_needed.is_none());
        let mut one = EpsAuditRequest {
            method: Some("one-run".into()),
            one_run: Some(OneRunCounts { m: 4, r: 4, v: 4 }),
            ..EpsAuditRequest::default()
        };
        let r = eps_audit(&mut ws, &one).unwrap();
        assert!(r.headline.is_inconclusive() && r.result.examples_needed == Some(5));
        one.one_run = Some(OneRunCounts {
            m: 1000,
            r: 100,
            v: 100,
        });
        let r = eps_audit(&mut ws, &one).unwrap();
        assert_eq!(r.result.epsilon, 3.4929580688476562);
        assert!(
            r.headline
                .text
                .contains("one-run audit, 100 correct of 100 guesses on 1000 canaries")
        );
    }

    #[test]
    fn the_method_is_decided_here_when_none_is_given() {
        // The one-run audit when its counts or guesses are given, else Clopper–Pearson; one asked for is kept.
        let one_run = EpsAuditRequest {
            one_run: Some(OneRunCounts { m: 1, r: 1, v: 1 }),
            ..EpsAuditRequest::default()
        };
        assert_eq!(one_run.method(), "one-run");
        let guesses = EpsAuditRequest {
            guess_members: Some(3),
            ..EpsAuditRequest::default()
        };
        assert_eq!(guesses.method(), "one-run");
        assert_eq!(counts(1, 1, 1, 1).method(), "clopper-pearson");
        let gdp = EpsAuditRequest {
            method: Some("gdp".into()),
            ..guesses
        };
        assert_eq!(gdp.method(), "gdp");
        // And a run records what it decided.
        let mut ws = Workspace::new();
        let r = eps_audit(
            &mut ws,
            &EpsAuditRequest {
                one_run: Some(OneRunCounts {
                    m: 1000,
                    r: 100,
                    v: 100,
                }),
                ..EpsAuditRequest::default()
            },
        )
        .unwrap();
        assert_eq!(r.parameters.method, "one-run");
    }

    #[test]
    fn malformed_requests_are_usage_errors() {
        let mut ws = Workspace::new();
        let mut req = counts(1, 1, 1, 1);
        req.method = Some("magic".into());
        assert!(eps_audit(&mut ws, &req).unwrap_err().usage);
        let mut req = counts(1, 1, 1, 1);
        req.one_run = Some(OneRunCounts { m: 1, r: 1, v: 1 });
        assert!(eps_audit(&mut ws, &req).unwrap_err().usage);
        assert!(eps_audit(&mut ws, &EpsAuditRequest::default()).unwrap_err().usage);
        let req = counts(0, 0, 3, 0);
        let e = eps_audit(&mut ws, &req).unwrap_err();
        assert!(e.message.contains("member"), "{}", e.message);
    }
}
