//! Leakage bounds on scores in [0, 1], and ROUGE-L of generations against references.

use super::*;

/// Text given by the page: a source (a file of lines) or pasted text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TextInput {
    Source { source: u32 },
    Text { text: String },
}

/// `lethe bounds` / `lethe rouge --bounds` options: scores from a file, or ROUGE-L of generations.
#[derive(Clone, Debug, Deserialize)]
#[serde(default)]
pub struct BoundsRequest {
    pub scores: Option<InputRef>,
    pub predictions: Option<TextInput>,
    pub reference: Option<TextInput>,
    pub stemmer: bool,
    pub alpha: f64,
    pub one_sided: bool,
    pub x: Vec<f64>,
    pub stepsize: usize,
    /// `conbo`, `perbin` or `lp`.
    pub sd_method: String,
    pub atom_at_zero: bool,
    pub rho: f64,
    pub plan_width: f64,
}

impl Default for BoundsRequest {
    fn default() -> Self {
        Self {
            scores: None,
            predictions: None,
            reference: None,
            stemmer: false,
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
    pub inputs: Vec<InputRecord>,
    pub load_warnings: Vec<LoadWarning>,
    /// The empirical CDF with its two-sided DKW band (the core's `cdf_bounds`) at the distinct scores and 0, 1.
    pub ecdf: leakage::CdfBand,
}

/// What a report names pasted text by (it has no file).
pub const PASTED: &str = "(pasted)";

/// A side text input as lines, with its record (the CLI's `read_lines` + `file_record`; pasted text is recorded as
/// [`PASTED`] with the SHA-256 of the text).
fn text_lines(ws: &mut Workspace, role: &str, t: &TextInput) -> Result<(Vec<String>, Option<InputRecord>)> {
    let lines: Vec<String> = match t {
        TextInput::Text { text } => text.lines().map(str::to_string).collect(),
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
            text.lines().map(str::to_string).collect()
        }
    };
    if lines.is_empty() {
        return Err(Error::at(role, format!("input `{role}` is empty: one item per line")));
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
            let input = ws.load("scores", s)?;
            let lw = load_warnings(&[("scores", &*input)]);
            let (values, rec) = load_vector(ws, "scores", s)?;
            Ok(Scores {
                values,
                rouge: None,
                records: vec![rec],
                load_warnings: lw,
            })
        }
        (None, Some(p)) => {
            let (preds, prec) = text_lines(ws, "predictions", p)?;
            let r = req.reference.as_ref().ok_or_else(|| {
                Error::at(
                    "reference",
                    "give the reference text the generations are scored against",
                )
            })?;
            let (refs, rrec) = text_lines(ws, "reference", r)?;
            let batch = match refs.len() {
                1 => rouge::rouge_l_against(&refs[0], &preds, req.stemmer),
                n if n == preds.len() => rouge::rouge_l_pairs(&refs, &preds, req.stemmer)?,
                n => {
                    return Err(Error::at(
                        "reference",
                        format!(
                            "the reference has {n} lines and the predictions {}: give one reference line per prediction, or one for all",
                            preds.len()
                        ),
                    ));
                }
            };
            Ok(Scores {
                values: batch.fmeasure.clone(),
                rouge: Some(batch),
                records: prec.into_iter().chain(rrec).collect(),
                load_warnings: Vec::new(),
            })
        }
        (Some(_), Some(_)) => Err(Error::msg("give either scores or generations, not both")),
        (None, None) => Err(Error::at(
            "scores",
            "choose scores in [0, 1] (or 0/1 leak flags), or paste generations",
        )),
    }
}

/// Every leakage bound of `lethe bounds` (or `lethe rouge --bounds` for generations) with the ECDF band.
///
/// # Errors
/// Missing or unreadable inputs, scores outside [0, 1], bad parameters.
pub fn bounds(ws: &mut Workspace, req: &BoundsRequest) -> Result<BoundsOutput> {
    let s = scores(ws, req)?;
    let role = if s.rouge.is_some() { "predictions" } else { "scores" };
    let params = req.params()?;
    let report = leakage::report(&s.values, &params).map_err(|e| Error::from(e).or_at(role))?;
    let grid = plots::ecdf_grid(&s.values);
    let ecdf = leakage::cdf_bounds(&s.values, &grid, params.alpha).map_err(|e| Error::from(e).or_at(role))?;
    let (command, result) = match s.rouge {
        Some(scores) => (
            "rouge",
            BoundsResult::Rouge(RougeResult {
                scores,
                bounds: Some(report),
            }),
        ),
        None => ("bounds", BoundsResult::Bounds(report)),
    };
    Ok(BoundsOutput {
        command,
        result,
        inputs: s.records,
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
