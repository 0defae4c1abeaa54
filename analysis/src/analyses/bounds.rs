//! Leakage bounds on scores in [0, 1], and ROUGE-L of generations against references.
//!
//! The headline: the bound a person can act on — the leak probability (`M_bin`) for 0/1 flags, else the upper
//! bound on the expected score with `M_gen` at the first x — or "inconclusive" when the sample is too small for that
//! bound to say anything (it reaches 1), with the sample size that would. ROUGE-L alone: the mean F-measure over
//! the generations (each generation's precision, recall and F-measure are in the result). The core's notes become
//! warnings with codes (`mass_at_zero_left_out`, `sd_bound_uninformative`, ...).

use super::*;
use crate::report::{Headline, Warning};
use crate::words;

/// Text given by the page: a source (a file of lines) or pasted text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TextInput {
    Source { source: u32 },
    Text { text: String },
}

/// `lethe bounds` / `lethe rouge --bounds` options: scores from a file, or ROUGE-L of generations. With the `clap`
/// feature (the CLI's), every option is both subcommands' argument, declared here once; `lethe bounds` hides
/// ROUGE-L's own, and the layer refuses them on scores.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct BoundsRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub scores: Option<InputRef>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub predictions: Option<TextInput>,
    #[cfg_attr(feature = "clap", arg(skip))]
    pub reference: Option<TextInput>,
    /// One reference line for every prediction, given as an option (the CLI's `--reference-text`): recorded in
    /// the parameters, not as an input.
    #[cfg_attr(feature = "clap", arg(skip))]
    pub reference_text: Option<String>,
    /// Porter-stem tokens (rouge-score's use_stemmer=True)
    #[cfg_attr(feature = "clap", arg(long))]
    pub stemmer: bool,
    /// ROUGE-Lsum (rouge-score's rougeLsum: sentences split on newlines, summary-level union LCS) instead of ROUGE-L
    #[cfg_attr(feature = "clap", arg(long))]
    pub lsum: bool,
    // The default is the two characters `\n`, as a newline is written escaped in a one-summary-per-line file.
    /// With --lsum: the text separating sentences within a line [default: the two characters \n]
    #[cfg_attr(
        feature = "clap",
        arg(long, alias = "sentence-sep", value_name = "TEXT", requires = "lsum")
    )]
    pub sentence_separator: Option<String>,
    // On by default in a request (the page always asks); `lethe rouge` asks with `--bounds` (its `defaults`).
    /// Also compute the leakage bounds on the per-generation ROUGE-L F-measures
    #[cfg_attr(feature = "clap", arg(long))]
    pub bounds: bool,
    /// Significance level (two-sided unless --one-sided)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = leakage::DEFAULT_ALPHA))]
    pub alpha: f64,
    /// Spend alpha one-sided for M_bin and M_gen (the paper's form; the default is conbo's two-sided)
    #[cfg_attr(feature = "clap", arg(long))]
    pub one_sided: bool,
    /// Points x for M_gen(x) (repeatable)
    #[cfg_attr(feature = "clap", arg(long = "x"))]
    pub x: Vec<f64>,
    #[cfg_attr(feature = "clap", arg(long, default_value_t = leakage::DEFAULT_STEPSIZE))]
    pub stepsize: usize,
    // `conbo`, `perbin` or `lp`.
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["conbo", "perbin", "lp"], default_value = "conbo"))]
    pub sd_method: String,
    /// Count the mass at 0 in the first cell (perbin and lp)
    #[cfg_attr(feature = "clap", arg(long))]
    pub atom_at_zero: bool,
    #[cfg_attr(feature = "clap", arg(long, default_value_t = leakage::DEFAULT_RHO))]
    pub rho: f64,
    /// Half-width asked of the sample-size planner
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.05))]
    pub plan_width: f64,
}

impl Default for BoundsRequest {
    fn default() -> Self {
        Self {
            scores: None,
            predictions: None,
            reference: None,
            reference_text: None,
            stemmer: false,
            lsum: false,
            sentence_separator: None,
            bounds: true,
            alpha: leakage::DEFAULT_ALPHA,
            one_sided: false,
            x: Vec::new(),
            stepsize: leakage::DEFAULT_STEPSIZE,
            sd_method: "conbo".into(),
            atom_at_zero: false,
            rho: leakage::DEFAULT_RHO,
            plan_width: 0.05,
        }
    }
}

impl BoundsRequest {
    /// The CLI's `BoundArgs::params`.
    fn params(&self) -> Result<LeakageParams> {
        let method = match self.sd_method.as_str() {
            "conbo" => SdMethod::Conbo,
            "perbin" => SdMethod::PerBin {
                atom_at_zero: self.atom_at_zero,
            },
            "lp" => SdMethod::Lp {
                atom_at_zero: self.atom_at_zero,
            },
            other => {
                return Err(Error::msg(format!(
                    "sd_method `{other}` is not one of conbo, perbin, lp"
                )));
            }
        };
        let d = LeakageParams::default();
        Ok(LeakageParams {
            alpha: self.alpha,
            sidedness: self.sidedness(),
            x: if self.x.is_empty() { d.x } else { self.x.clone() },
            stepsize: self.stepsize,
            sd_method: method,
            rho: self.rho,
            plan_width: self.plan_width,
        })
    }

    fn sidedness(&self) -> Sidedness {
        if self.one_sided {
            Sidedness::OneSided
        } else {
            Sidedness::TwoSided
        }
    }
}

/// The leakage-bound options as `lethe bounds --json` reports them (`x` as given: empty for the default points).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BoundParameters {
    pub alpha: f64,
    pub one_sided: bool,
    pub x: Vec<f64>,
    pub stepsize: usize,
    pub sd_method: String,
    pub atom_at_zero: bool,
    pub rho: f64,
    pub plan_width: f64,
}

/// The parameters of `lethe bounds --json` or `lethe rouge --json`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum BoundsParameters {
    Bounds {
        scores: String,
        bounds: BoundParameters,
    },
    Rouge {
        predictions: String,
        reference: Option<String>,
        reference_text: Option<String>,
        stemmer: bool,
        /// ROUGE-Lsum (absent for ROUGE-L, whose reports are unchanged).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        lsum: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        sentence_separator: Option<String>,
        bounds: bool,
        bound_args: BoundParameters,
    },
}

/// The CLI's `RougeOutput`.
#[derive(Clone, Debug, Serialize)]
pub struct RougeResult {
    pub scores: rouge::RougeBatch,
    pub bounds: Option<LeakageReport>,
}

/// Either `lethe bounds`' result or `lethe rouge --bounds`'s.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum BoundsResult {
    Bounds(LeakageReport),
    Rouge(RougeResult),
}

#[derive(Clone, Debug, Serialize)]
pub struct BoundsOutput {
    /// `bounds` (scores) or `rouge` (generations): which CLI command gives the same `result`.
    pub command: &'static str,
    pub result: BoundsResult,
    pub parameters: BoundsParameters,
    pub inputs: Vec<InputRecord>,
    /// The bound to act on, or "inconclusive" with the sample size that would support one.
    pub headline: Headline,
    pub warnings: Vec<Warning>,
    pub load_warnings: Vec<LoadWarning>,
    /// The empirical CDF with its two-sided DKW band (the core's `cdf_bounds`) at the distinct scores and 0, 1
    /// (`None` for ROUGE-L without bounds).
    pub ecdf: Option<leakage::CdfBand>,
}

impl BoundsOutput {
    /// The report `lethe bounds --json` (or `lethe rouge --json`) prints and the page exports.
    pub fn report(&self) -> crate::Report<&BoundsParameters, &BoundsResult> {
        crate::Report::new(
            self.command,
            &self.parameters,
            None,
            self.inputs.clone(),
            self.headline.clone(),
            self.warnings.clone(),
            &self.result,
        )
    }
}

/// ROUGE-Lsum's default sentence separator within a line: the two characters `\n`.
pub const DEFAULT_SENTENCE_SEPARATOR: &str = "\\n";

/// What a report names pasted text by (it has no file).
pub const PASTED: &str = "(pasted)";

/// A side text input as lines, with its record (the CLI's `read_lines` + `file_record`; pasted text is recorded as
/// [`PASTED`] with the SHA-256 of the text).
fn text_lines(ws: &mut Workspace, role: &str, t: &TextInput) -> Result<(Vec<String>, Option<InputRecord>)> {
    let lines: Vec<String> = match t {
        TextInput::Text { text } => items(role, "the pasted text", text)?,
        TextInput::Source { source } => {
            let src = ws.source(*source).map_err(|e| Error::at(role, e.message))?;
            let len = usize::try_from(src.data.len()).map_err(|_| Error::at(role, "the file is too large"))?;
            if src.data.len() > crate::workspace::MAX_BYTES {
                return Err(Error::at(role, format!("`{}` is too large for a text input", src.name)));
            }
            let mut bytes = vec![0u8; len];
            src.data
                .read_at(0, &mut bytes)
                .map_err(|e| Error::at(role, format!("`{}`: {e}", src.name)))?;
            let text =
                String::from_utf8(bytes).map_err(|_| Error::at(role, format!("`{}` is not UTF-8 text", src.name)))?;
            items(role, &format!("`{}`", src.name), &text)?
        }
    };
    if lines.is_empty() {
        return Err(Error::at(
            role,
            format!("input `{}` is empty: one item per line", crate::words::role(role)),
        ));
    }
    let record = match t {
        // Pasted text has no file name; its digest is of the UTF-8 text as pasted, so a report still says which
        // text was scored (`sha256sum` of the same text saved as a file gives the same digest).
        TextInput::Text { text } => {
            let sha256 = lethe::digest::sha256_hex(&text.as_bytes().to_vec(), |_, _| ())
                .map_err(|e| Error::at(role, format!("pasted text: {e}")))?;
            Some(InputRecord {
                role: role.into(),
                spec: PASTED.into(),
                path: PASTED.into(),
                sha256,
                format: "text".into(),
                dtype: "utf-8 lines".into(),
                shape: vec![lines.len() as u64],
                tensor: None,
                rows_used: lines.len(),
                row_file: None,
            })
        }
        TextInput::Source { source } => {
            let sha256 = ws.sha256(*source, |_, _| ())?;
            let path = ws.source(*source)?.name.clone();
            Some(InputRecord {
                role: role.into(),
                spec: path.clone(),
                path,
                sha256,
                format: "text".into(),
                dtype: "utf-8 lines".into(),
                shape: vec![lines.len() as u64],
                tensor: None,
                rows_used: lines.len(),
                row_file: None,
            })
        }
    };
    Ok((lines, record))
}

/// The items of a text input: one per line, or the strings of a JSON list (`["first answer", "second…"]`, as
/// `json.dump(generations, f)` writes them; an item may then span lines), which was read as a single generation.
///
/// # Errors
/// A JSON list with an item that is not text, naming its position (counted from 0, as rows and the page's table of
/// generations count, for a file and pasted text alike) in `what`.
fn items(role: &str, what: &str, text: &str) -> Result<Vec<String>> {
    if text.trim_start().starts_with('[')
        && let Ok(serde_json::Value::Array(list)) = serde_json::from_str::<serde_json::Value>(text)
    {
        return list
            .into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                serde_json::Value::String(s) => Ok(s),
                other => Err(Error::at(
                    role,
                    format!(
                        "{what} is a JSON list, but its item {i} (counting from 0) is {other} and not text: give a list \
                         of strings, one per generation (or plain text, one per line)"
                    ),
                )),
            })
            .collect();
    }
    Ok(text.lines().map(str::to_string).collect())
}

/// The scores a bounds request is about, with records and which CLI command it mirrors.
struct Scores {
    values: Vec<f64>,
    rouge: Option<rouge::RougeBatch>,
    records: Vec<InputRecord>,
    load_warnings: Vec<LoadWarning>,
}

fn scores(ws: &mut Workspace, req: &BoundsRequest) -> Result<Scores> {
    match (&req.scores, &req.predictions) {
        (Some(s), None) => {
            let rouge_options: Vec<String> = [
                ("stemmer", req.stemmer),
                ("lsum", req.lsum),
                ("sentence_separator", req.sentence_separator.is_some()),
            ]
            .into_iter()
            .filter(|&(_, given)| given)
            .map(|(name, _)| words::opt(name))
            .collect();
            if !rouge_options.is_empty() {
                return Err(Error::msg(format!(
                    "{} {} for ROUGE-L of generations, not for scores: leave {} out, or score the generations with {}",
                    rouge_options.join(" and "),
                    if rouge_options.len() == 1 { "is" } else { "are" },
                    if rouge_options.len() == 1 { "it" } else { "them" },
                    words::cmd("rouge")
                ))
                .usage());
            }
            let input = ws.load("scores", s)?;
            super::stats::check_finite(ws, "scores", &s.rows, &input, "The leakage bounds")?;
            let lw = load_warnings(&[("scores", &*input)]);
            let (values, rec) = load_vector(ws, "scores", s)?;
            // Scores outside [0, 1], named by the file's row and column (the core names its own input and index).
            if let Some(i) = input.matrix.as_slice().iter().position(|v| !(0.0..=1.0).contains(v)) {
                let place = super::stats::place(ws, "scores", &s.rows, &input.matrix, i);
                return Err(Error::refused(
                    "score_out_of_range",
                    Some("scores"),
                    format!(
                        "`{}` has {} at {place} of the file (counting from 0), outside [0, 1]: the leakage bounds take scores in [0, 1] \
                         (or 0/1 leak flags); rescale the scores to [0, 1] first",
                        input.record.path,
                        num(input.matrix.as_slice()[i])
                    ),
                ));
            }
            Ok(Scores {
                values,
                rouge: None,
                records: vec![rec],
                load_warnings: lw,
            })
        }
        (None, Some(p)) => {
            let (preds, prec) = text_lines(ws, "predictions", p)?;
            let (refs, rrec) = match (&req.reference, &req.reference_text) {
                (Some(r), None) => text_lines(ws, "reference", r)?,
                (None, Some(t)) => (vec![t.clone()], None),
                (Some(_), Some(_)) => {
                    return Err(Error::at("reference", "give the reference as a file or as text, not both").usage());
                }
                (None, None) => {
                    return Err(Error::at(
                        "reference",
                        "give the reference text the generations are scored against (a file with one line per \
                         generation or one line for all, or the text itself)",
                    )
                    .usage());
                }
            };
            // ROUGE-Lsum: the sentence separator within a line becomes the newline rouge-score splits on.
            let sep = req.sentence_separator.as_deref().unwrap_or(DEFAULT_SENTENCE_SEPARATOR);
            if req.lsum && sep.is_empty() {
                return Err(
                    Error::msg("the sentence separator is empty: give the text that separates sentences").usage(),
                );
            }
            let split = |lines: Vec<String>| -> Vec<String> {
                if req.lsum {
                    lines.into_iter().map(|l| l.replace(sep, "\n")).collect()
                } else {
                    lines
                }
            };
            let (preds, refs) = (split(preds), split(refs));
            let batch = match (refs.len(), req.lsum) {
                (1, false) => rouge::rouge_l_against(&refs[0], &preds, req.stemmer)?,
                (1, true) => rouge::rouge_lsum_against(&refs[0], &preds, req.stemmer)?,
                (n, false) if n == preds.len() => rouge::rouge_l_pairs(&refs, &preds, req.stemmer)?,
                (n, true) if n == preds.len() => rouge::rouge_lsum_pairs(&refs, &preds, req.stemmer)?,
                (n, _) => {
                    return Err(Error::at(
                        "reference",
                        format!(
                            "the reference `{}` has {n} lines and the predictions `{}` {}: give one reference line \
                             per prediction, in the same order, or one line for all",
                            rrec.as_ref().map_or(PASTED, |r| r.path.as_str()),
                            prec.as_ref().map_or(PASTED, |r| r.path.as_str()),
                            preds.len()
                        ),
                    ));
                }
            };
            // A file whose name is not UTF-8: the report shows it lossily, and says so (as the array readers).
            let load_warnings = [
                ("predictions", req.predictions.as_ref()),
                ("reference", req.reference.as_ref()),
            ]
            .into_iter()
            .filter_map(|(role, t)| match t {
                Some(TextInput::Source { source }) if ws.name_not_utf8(*source) => Some(LoadWarning {
                    role: role.into(),
                    message: crate::workspace::not_utf8_note(ws.source(*source).map_or("", |s| s.name.as_str())),
                }),
                _ => None,
            })
            .collect();
            Ok(Scores {
                values: batch.fmeasure.clone(),
                rouge: Some(batch),
                records: prec.into_iter().chain(rrec).collect(),
                load_warnings,
            })
        }
        (Some(_), Some(_)) => Err(Error::msg("give either scores or generations, not both").usage()),
        (None, None) => Err(Error::at(
            "scores",
            "choose scores in [0, 1] (or 0/1 leak flags), or paste generations",
        )
        .usage()),
    }
}

impl BoundsRequest {
    fn bound_parameters(&self) -> BoundParameters {
        BoundParameters {
            alpha: self.alpha,
            one_sided: self.one_sided,
            x: self.x.clone(),
            stepsize: self.stepsize,
            sd_method: self.sd_method.clone(),
            atom_at_zero: self.atom_at_zero,
            rho: self.rho,
            plan_width: self.plan_width,
        }
    }
}

use crate::report::num;

/// The core's notes on the bounds as warnings with codes and fixes. On 0/1 leak flags the leak probability's
/// Clopper–Pearson bound is the call, exact for flags; the standard-deviation bound's note that it leaves out the
/// mass at 0 (every flag that is not a leak) is not a problem with them and is left out.
fn note_warnings(report: &LeakageReport, role: &str) -> Vec<Warning> {
    report
        .warnings
        .iter()
        .filter(|w| report.binary.is_none() || w.kind != NoteKind::MassAtZeroLeftOut)
        .map(|w| {
            let fix: Option<String> = match w.kind {
                NoteKind::MassAtZeroLeftOut => Some(format!(
                    "use the SD method lp with the mass at zero counted ({}, {})",
                    words::opt_is("sd_method", "lp"),
                    words::opt_is("atom_at_zero", "true")
                )),
                NoteKind::SdBoundUninformative => Some(format!(
                    "give more scores, or use the SD method lp ({})",
                    words::opt_is("sd_method", "lp")
                )),
                NoteKind::AlphaAboveHalf => Some(format!(
                    "use alpha ≤ 0.5 ({}), or the two-sided form",
                    words::opt("alpha")
                )),
                _ => None,
            };
            Warning::new(w.code(), Some(role), w.message.clone(), fix)
        })
        .collect()
}

/// A core error about the scores is about their input; a rejected option (`alpha` = 2) is about none.
fn data_error(e: lethe::Error, role: &str) -> Error {
    // The core names its parameters as its code does; say them as the options and page controls are named.
    if let lethe::Error::InvalidParameter { name, value, .. } = &e {
        let said = match *name {
            "stepsize" => Some(format!(
                "the threshold grid's step count (stepsize) is {value}: it must be at least 2, so that the grid from \
                 0 to 1 holds both ends (the default is {})",
                leakage::DEFAULT_STEPSIZE
            )),
            "width" => Some(format!(
                "the half-width asked of the sample-size planner (plan-width) is {value}: it must be above 0 and at \
                 most 1, e.g. 0.05"
            )),
            _ => None,
        };
        if let Some(m) = said {
            return Error::msg(m);
        }
    }
    if matches!(e, lethe::Error::InvalidParameter { .. }) {
        Error::from(e)
    } else {
        Error::from(e).or_at(role)
    }
}

/// The bound to act on (see the module's docs).
fn bounds_headline(r: &LeakageReport, what: &str, score: &str) -> Headline {
    // 99.50 → 99.5, 95.0 → 95, and 30 stays 30 (trimming its zero said "3%" for alpha 0.7).
    let pct = num((1.0 - r.params.alpha) * 100.0);
    let conf = if pct.contains('.') {
        format!("{}%", pct.trim_end_matches('0').trim_end_matches('.'))
    } else {
        format!("{pct}%")
    };
    // The planner of the bound this headline states: Clopper–Pearson's for the leak probability of 0/1 flags, the
    // DKW band's for the expectation (the report's `plan.n` is enough for both, which the numbers' table shows).
    let needed = if r.binary.is_some() {
        r.plan.binomial_n
    } else {
        r.plan.dkw_n
    };
    let plan = if (r.n as u64) < needed {
        format!("; {needed} {what} would bound it within ±{}", r.params.plan_width)
    } else {
        String::new()
    };
    if let Some(b) = &r.binary {
        if b.upper >= 1.0 {
            return Headline::inconclusive(
                format!("Inconclusive: {} {what} cannot bound the leak probability below 1", r.n),
                format!("{} leaks in {}{plan}", b.leaks, b.n),
            );
        }
        return Headline::new(
            "bounded",
            format!(
                "Leak probability at most {} with {conf} confidence ({} leaks in {} {what}, M_bin){plan}",
                num(b.upper),
                b.leaks,
                b.n
            ),
        );
    }
    let e = &r.expectation;
    // A band wider than ±0.5 leaves every bound within 0.5 of the trivial one: nothing to act on.
    if e.upper >= 1.0 || e.eps >= 0.5 {
        return Headline::inconclusive(
            format!(
                "Inconclusive: {} {what} are too few to bound the {score}s usefully",
                r.n
            ),
            format!(
                "the {conf} confidence band around the empirical distribution is ±{} wide{plan}",
                num(e.eps)
            ),
        );
    }
    let mgen = r
        .general
        .x
        .iter()
        .zip(&r.general.upper)
        .map(|(x, u)| format!("Pr({score} > {x}) ≤ {}", num(*u)))
        .collect::<Vec<_>>()
        .join(", ");
    Headline::new(
        "bounded",
        format!(
            "Expected {score} at most {} with {conf} confidence (mean {} over {} {what}); {mgen}{plan}",
            num(e.upper),
            num(e.mean),
            r.n
        ),
    )
}

/// Every leakage bound of `lethe bounds` (or ROUGE-L of generations, with the bounds on their F-measures unless
/// `bounds` is off: `lethe rouge`), with the ECDF band.
///
/// # Errors
/// Missing or unreadable inputs, scores outside [0, 1], bad parameters.
pub fn bounds(ws: &mut Workspace, req: &BoundsRequest) -> Result<BoundsOutput> {
    let s = scores(ws, req)?;
    let role = if s.rouge.is_some() { "predictions" } else { "scores" };
    let params = req.params()?;
    let want_bounds = s.rouge.is_none() || req.bounds;
    let (report, ecdf) = if want_bounds {
        let report = leakage::report(&s.values, &params).map_err(|e| data_error(e, role))?;
        let grid = plots::ecdf_grid(&s.values);
        let ecdf = leakage::cdf_bounds(&s.values, &grid, params.alpha).map_err(|e| data_error(e, role))?;
        (Some(report), Some(ecdf))
    } else {
        (None, None)
    };
    let mut warnings = loader_warnings(&s.load_warnings);
    warnings.extend(report.iter().flat_map(|r| note_warnings(r, role)));
    let spec = |role: &str| s.records.iter().find(|r| r.role == role).map(|r| r.spec.clone());
    let (command, result, headline, parameters) = match s.rouge {
        Some(scores) => {
            let f = &scores.fmeasure;
            let mean = f.iter().sum::<f64>() / f.len() as f64;
            let name = if req.lsum { "ROUGE-Lsum" } else { "ROUGE-L" };
            let headline = match &report {
                Some(r) => bounds_headline(r, "generations", &format!("{name} F-measure")),
                None => Headline::new(
                    if req.lsum { "rouge_lsum" } else { "rouge_l" },
                    format!(
                        "Mean {name} F-measure {} over {} generations (highest {}); add the leakage bounds \
                         ({}) to bound how often a generation leaks",
                        num(mean),
                        f.len(),
                        num(f.iter().copied().fold(0.0, f64::max)),
                        words::opt_is("bounds", "true")
                    ),
                ),
            };
            let parameters = BoundsParameters::Rouge {
                predictions: spec("predictions").unwrap_or_else(|| PASTED.into()),
                // A pasted reference is recorded as an input named `(pasted)`; text given as an option is not.
                reference: spec("reference"),
                reference_text: req.reference_text.clone(),
                stemmer: req.stemmer,
                lsum: req.lsum,
                sentence_separator: req.lsum.then(|| {
                    req.sentence_separator
                        .clone()
                        .unwrap_or_else(|| DEFAULT_SENTENCE_SEPARATOR.into())
                }),
                bounds: req.bounds,
                bound_args: req.bound_parameters(),
            };
            (
                "rouge",
                BoundsResult::Rouge(RougeResult { scores, bounds: report }),
                headline,
                parameters,
            )
        }
        None => {
            let report = report.ok_or_else(|| Error::msg("internal error: no bounds computed"))?;
            let headline = bounds_headline(&report, "scores", "score");
            let parameters = BoundsParameters::Bounds {
                scores: spec("scores").unwrap_or_default(),
                bounds: req.bound_parameters(),
            };
            ("bounds", BoundsResult::Bounds(report), headline, parameters)
        }
    };
    Ok(BoundsOutput {
        command,
        result,
        parameters,
        inputs: s.records,
        headline,
        warnings,
        load_warnings: s.load_warnings,
        ecdf,
    })
}

/// `M_gen(x)` at the slider's points, on the same scores as [`bounds`].
///
/// # Errors
/// As [`bounds`].
pub fn m_gen(ws: &mut Workspace, req: &BoundsRequest) -> Result<leakage::GeneralLeakageBound> {
    let s = scores(ws, req)?;
    let x = if req.x.is_empty() {
        LeakageParams::default().x
    } else {
        req.x.clone()
    };
    leakage::m_gen(&s.values, &x, req.alpha, req.sidedness()).map_err(Error::from)
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entries: `lethe bounds` and `lethe rouge`, one request

/// `lethe bounds` in the registry ([`crate::registry`]).
pub struct Bounds;

in_browser_at_once!(Bounds, "bounds", BoundsRequest => BoundsOutput, bounds);

/// The page's generalized leakage bound for its plot (`lethe bounds`' request; not a command of its own).
pub struct MGen;

in_browser_at_once!(MGen, "mgen", BoundsRequest => leakage::GeneralLeakageBound, m_gen);

registered! {
impl crate::registry::Analysis for Bounds {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = BoundsRequest;
    const ROLES: Roles = Roles::inputs(&["scores"]);
    fn run(ws: &mut Workspace, req: &BoundsRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&bounds(ws, req)?.report())
    }
}

/// `lethe rouge` in the registry ([`crate::registry`]).
pub struct Rouge;

impl crate::registry::Analysis for Rouge {
    const NAME: &'static str = "rouge";
    type Request = BoundsRequest;
    const ROLES: Roles = Roles::texts(&["predictions", "reference"]);
    /// `lethe rouge` computes the leakage bounds only with `--bounds`.
    fn defaults(m: &mut serde_json::Map<String, serde_json::Value>) {
        m.entry("bounds").or_insert(serde_json::Value::Bool(false));
    }
    /// With bounds: the scores' ECDF with its DKW band.
    fn plots(r: &serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        let mut out = serde_json::Map::new();
        if let (Some(scores), alpha) = (
            plots::numbers(&r["scores"]["fmeasure"]),
            plots::number(&r["bounds"]["general"]["alpha"]),
        ) && alpha.is_finite()
            && let Some(band) =
                plots::json(leakage::cdf_bounds(&scores, &plots::ecdf_grid(&scores), alpha).map_err(Error::from))
        {
            out.insert("ecdf".into(), band);
        }
        out
    }
    fn run(ws: &mut Workspace, req: &BoundsRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        if req.predictions.is_none() {
            return Err(Error::msg("rouge: give the generations (predictions), one per line").usage());
        }
        if req.reference.is_none() && req.reference_text.is_none() {
            return Err(Error::msg("give --reference FILE or --reference-text TEXT").usage());
        }
        report(&bounds(ws, req)?.report())
    }
}
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn scores_request(ws: &mut Workspace, values: &[f64]) -> BoundsRequest {
        ws.add(1, "s.npy", Arc::new(crate::npy::f64_bytes(values, &[values.len()])));
        BoundsRequest {
            scores: Some(InputRef {
                source: 1,
                tensor: None,
                rows: Rows::All,
            }),
            ..BoundsRequest::default()
        }
    }

    /// Parameters the core rejects are named as the options are, without the core's code words.
    #[test]
    fn bad_parameters_are_said_in_a_users_words() {
        let mut ws = Workspace::new();
        let req = scores_request(&mut ws, &[0.1, 0.4, 0.2, 0.0, 0.3]);
        let e = bounds(
            &mut ws,
            &BoundsRequest {
                stepsize: 1,
                ..req.clone()
            },
        )
        .unwrap_err();
        assert!(
            e.message.contains("stepsize") && e.message.contains("at least 2"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("np."), "{}", e.message);
        let e = bounds(&mut ws, &BoundsRequest { plan_width: 0.0, ..req }).unwrap_err();
        assert!(e.message.contains("plan-width"), "{}", e.message);
    }

    /// ROUGE-L's options on scores are refused, naming each option given (the CLI hides them on `lethe bounds`;
    /// they were silently ignored there and in a batch line).
    #[test]
    fn rouge_options_on_scores_are_refused() {
        let mut ws = Workspace::new();
        let req = scores_request(&mut ws, &[0.1, 0.4, 0.2, 0.0, 0.3]);
        let e = bounds(
            &mut ws,
            &BoundsRequest {
                lsum: true,
                sentence_separator: Some("|".into()),
                ..req.clone()
            },
        )
        .unwrap_err();
        assert_eq!(
            words::cli(&e.message),
            "--lsum and --sentence-separator are for ROUGE-L of generations, not for scores: leave them out, or score \
             the generations with `lethe rouge`"
        );
        let e = bounds(
            &mut ws,
            &BoundsRequest {
                stemmer: true,
                ..req.clone()
            },
        )
        .unwrap_err();
        assert!(
            words::cli(&e.message).starts_with("--stemmer is for ROUGE-L"),
            "{}",
            e.message
        );
        // The leakage bounds' own switch (on by default in a request) is not ROUGE-L's.
        assert!(bounds(&mut ws, &BoundsRequest { bounds: false, ..req }).is_ok());
    }

    /// The headline's confidence is 1 − alpha in percent: 30% for alpha 0.7 (it said 3%), 99.5% for 0.005.
    #[test]
    fn the_headlines_confidence_keeps_its_zeros() {
        let mut ws = Workspace::new();
        let values: Vec<f64> = (0..200).map(|i| f64::from(i % 10) / 10.0).collect();
        let req = scores_request(&mut ws, &values);
        for (alpha, conf) in [
            (0.7, "with 30% confidence"),
            (0.005, "with 99.5% confidence"),
            (0.05, "with 95% confidence"),
        ] {
            let out = bounds(&mut ws, &BoundsRequest { alpha, ..req.clone() }).unwrap();
            assert!(out.headline.text.contains(conf), "{alpha}: {}", out.headline.text);
        }
    }

    #[test]
    fn too_few_scores_are_inconclusive_and_enough_give_a_bound() {
        let mut ws = Workspace::new();
        let req = scores_request(&mut ws, &[0.1, 0.4, 0.2, 0.0, 0.3]);
        let out = bounds(&mut ws, &req).unwrap();
        assert!(out.headline.is_inconclusive(), "{:?}", out.headline);
        assert!(
            out.headline.reason.as_deref().unwrap().contains("would bound it"),
            "{:?}",
            out.headline
        );
        let many: Vec<f64> = (0..400).map(|i| f64::from(i % 10) / 40.0).collect();
        let mut ws = Workspace::new();
        let req = scores_request(&mut ws, &many);
        let out = bounds(&mut ws, &req).unwrap();
        assert_eq!(out.headline.call, "bounded");
        assert!(
            out.headline.text.starts_with("Expected score at most"),
            "{}",
            out.headline.text
        );
        // 0/1 flags: the leak probability.
        let flags: Vec<f64> = (0..200).map(|i| f64::from(u8::from(i % 20 == 0))).collect();
        let mut ws = Workspace::new();
        let req = scores_request(&mut ws, &flags);
        let out = bounds(&mut ws, &req).unwrap();
        assert!(
            out.headline.text.starts_with("Leak probability at most"),
            "{}",
            out.headline.text
        );
        // Flags that are 0 are not leaks: no note that the SD bound leaves out the mass at 0 (issue 24 item 8).
        let codes: Vec<&str> = out.warnings.iter().map(|w| w.code.as_str()).collect();
        assert!(!codes.contains(&"mass_at_zero_left_out"), "{codes:?}");
        assert!(out.warnings.iter().all(|w| !w.message.contains("SdMethod")));
        // The sample size the headline names is Clopper–Pearson's, the bound it states.
        let BoundsResult::Bounds(r) = &out.result else {
            panic!("scores give the bounds")
        };
        assert!(r.plan.binomial_n < r.plan.dkw_n, "{:?}", r.plan);
        assert!(
            out.headline
                .text
                .contains(&format!("; {} scores would bound it", r.plan.binomial_n)),
            "{}",
            out.headline.text
        );
    }

    #[test]
    fn rouge_alone_reports_each_generation_and_a_headline() {
        let mut ws = Workspace::new();
        let req = BoundsRequest {
            predictions: Some(TextInput::Text {
                text: "the cat sat on the mat\nnothing\n".into(),
            }),
            reference_text: Some("the cat is on the mat".into()),
            bounds: false,
            ..BoundsRequest::default()
        };
        let out = bounds(&mut ws, &req).unwrap();
        let BoundsResult::Rouge(r) = &out.result else {
            panic!("a ROUGE result")
        };
        assert_eq!(r.scores.fmeasure, [5.0 / 6.0, 0.0]);
        assert!(r.bounds.is_none() && out.ecdf.is_none());
        assert_eq!(out.headline.call, "rouge_l");
        assert_eq!(
            out.inputs.len(),
            1,
            "reference text given as an option is a parameter, not an input"
        );
        let p = serde_json::to_value(&out.parameters).unwrap();
        assert_eq!(p["reference"], serde_json::Value::Null);
        assert_eq!(p["reference_text"], "the cat is on the mat");
    }
}
