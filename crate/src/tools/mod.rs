//! # Files the tools users run write: which tool wrote a file, what it holds, what it offers
//!
//! Users of Lethe already run membership-inference and unlearning tools; those write nested JSON and archives of
//! several arrays that the plain readers ([`crate::data`]) do not know how to split into the vectors an analysis
//! takes. This module decides **from the content, never the file name**, which tool wrote a file (or a set of
//! files: a dropped folder), and says before anything runs:
//!
//! * which tool and which version of its writer the reader follows ([`Summary::follows`], the writer's file and
//!   function at the commit read),
//! * what the file holds ([`Summary::entries`]: each with the `#KEY` that reads it as `PATH#KEY`), how many samples,
//!   which models,
//! * the analyses it offers ([`Summary::offers`]: the analysis layer's request fields and the equivalent command).
//!
//! A file that is almost one of them (a key missing, a wrong shape, what another version of the tool writes) is a
//! [`ToolError`] saying what is wrong, which version the reader follows, and the fix, in users' words.
//!
//! Each tool is one reader module implementing `detect` and `column` (see `/work/notes/tools.md` in the session's
//! notes, and the readers below); [`load_key`] lets every front end read a tool's `#KEY` (for example
//! `attack_result_0.npz#members`) through the workspace's ordinary load.

use std::cell::OnceCell;
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::data::{self, ArrayInfo, ByteSource, DataError, FileInfo, Format, LoadOptions, Loaded, Matrix, Scalar};

mod competition;
mod leakpro;
pub mod lira;
pub mod muse;
pub mod open_unlearning;
mod privacy_meter;
pub mod tofu;

pub use competition::{accuracies, unlearned_accuracies};

/// The tools whose files Lethe opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Tool {
    /// privacytrustlab/ml_privacy_meter.
    #[serde(rename = "privacy-meter")]
    PrivacyMeter,
    /// aidotse/LeakPro.
    #[serde(rename = "leakpro")]
    LeakPro,
    /// The NeurIPS 2023 machine-unlearning competition's evaluation (google-deepmind/unlearning_evaluation).
    #[serde(rename = "competition")]
    Competition,
    /// locuslab/open-unlearning.
    #[serde(rename = "open-unlearning")]
    OpenUnlearning,
    /// The original TOFU repository's evaluation logs.
    #[serde(rename = "tofu")]
    Tofu,
    /// MUSE's privleak logs.
    #[serde(rename = "muse")]
    Muse,
    /// tensorflow/privacy's LiRA (research/mi_lira_2021).
    #[serde(rename = "lira")]
    Lira,
}

impl Tool {
    /// The name reports use (`privacy-meter`, `leakpro`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::PrivacyMeter => "privacy-meter",
            Self::LeakPro => "leakpro",
            Self::Competition => "competition",
            Self::OpenUnlearning => "open-unlearning",
            Self::Tofu => "tofu",
            Self::Muse => "muse",
            Self::Lira => "lira",
        }
    }

    /// The name people know it by.
    pub fn label(self) -> &'static str {
        match self {
            Self::PrivacyMeter => "ML Privacy Meter",
            Self::LeakPro => "LeakPro",
            Self::Competition => "the NeurIPS 2023 unlearning competition's evaluation",
            Self::OpenUnlearning => "open-unlearning",
            Self::Tofu => "TOFU",
            Self::Muse => "MUSE",
            Self::Lira => "LiRA (tensorflow/privacy)",
        }
    }
}

/// One thing a tool's file holds, readable as `PATH#KEY`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// What follows `#` to read it (`scores`, `members`, `model=0`).
    pub key: String,
    /// Its shape as the tool wrote it (empty for a scalar).
    pub shape: Vec<u64>,
    /// What it is, for people.
    pub what: String,
}

/// One input of an offered analysis: the request field and where it reads from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OfferInput {
    /// The request field (`scores`, `labels`, `members`, `retrained`, ...), as the CLI's option without `--`.
    pub role: String,
    /// The file it reads: the name the file was given to [`detect`] (or its path in a set, [`detect_set`]).
    pub file: String,
    /// The `#KEY` in that file, if any.
    pub key: Option<String>,
}

impl OfferInput {
    /// `FILE#KEY` (or `FILE`).
    pub fn spec(&self) -> String {
        match &self.key {
            Some(k) => format!("{}#{k}", self.file),
            None => self.file.clone(),
        }
    }
}

/// An analysis a tool's file offers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Offer {
    /// The analysis layer's analysis, named as the CLI subcommand: `mia`, `epsilon`, ...
    pub analysis: String,
    /// What it is, for people ("Membership audit of members vs non-members").
    pub label: String,
    /// Its inputs.
    pub inputs: Vec<OfferInput>,
    /// Request options other than the inputs (`lower_is_member`, `accuracies`, ...), as the request spells them.
    pub options: serde_json::Map<String, Value>,
    /// The equivalent command line.
    pub cli: String,
}

impl Offer {
    /// An offer of `analysis` with `inputs` (role, file, key) and `options`; the command line is derived.
    pub fn new(
        analysis: &str,
        label: impl Into<String>,
        inputs: &[(&str, &str, Option<&str>)],
        options: serde_json::Map<String, Value>,
    ) -> Self {
        let inputs: Vec<OfferInput> = inputs
            .iter()
            .map(|(role, file, key)| OfferInput {
                role: (*role).to_string(),
                file: (*file).to_string(),
                key: key.map(str::to_string),
            })
            .collect();
        let mut cli = format!("lethe {analysis}");
        for i in &inputs {
            if POSITIONAL.contains(&(analysis, i.role.as_str())) {
                cli.push_str(&format!(" {}", shell_word(&i.spec())));
            } else {
                cli.push_str(&format!(" --{} {}", i.role.replace('_', "-"), shell_word(&i.spec())));
            }
        }
        for (k, v) in &options {
            let flag = k.replace('_', "-");
            match v {
                Value::Bool(true) => cli.push_str(&format!(" --{flag}")),
                Value::Bool(false) | Value::Null => {}
                Value::Array(a) => {
                    let parts: Vec<String> = a.iter().map(|x| x.to_string()).collect();
                    cli.push_str(&format!(" --{flag} {}", parts.join(",")));
                }
                Value::String(s) => cli.push_str(&format!(" --{flag} {}", shell_word(s))),
                other => cli.push_str(&format!(" --{flag} {other}")),
            }
        }
        Self {
            analysis: analysis.to_string(),
            label: label.into(),
            inputs,
            options,
            cli,
        }
    }
}

/// Inputs the CLI takes as positional arguments (`lethe mia MEMBERS NON_MEMBERS`, `lethe bounds SCORES`), by
/// analysis and request field.
const POSITIONAL: &[(&str, &str)] = &[("mia", "members"), ("mia", "non_members"), ("bounds", "scores")];

/// `s` quoted for a POSIX shell when it holds anything but plain path characters.
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-#=@:+,".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// What a tool's file (or set of files) holds, said before anything runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub tool: Tool,
    /// Which of the tool's files it is (`attack_result`, `data_object`, `retrain_confs`, ...).
    pub kind: String,
    /// The writer this reader follows: repository at the commit read, file and function.
    pub follows: String,
    /// One sentence for people.
    pub description: String,
    /// How many samples (examples scored).
    pub samples: Option<u64>,
    /// Which models (names, or `model 0`, ...).
    pub models: Vec<String>,
    /// What it holds, each readable as `PATH#KEY`.
    pub entries: Vec<Entry>,
    /// The analyses it offers.
    pub offers: Vec<Offer>,
    /// Things to know (a value the file states that Lethe will recompute, an unusual shape).
    pub warnings: Vec<String>,
    /// The files of a set ([`detect_set`]), by the paths given; empty for one file.
    pub files: Vec<String>,
}

/// A file that is almost a tool's: what is wrong, which version the reader follows, and the fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToolError {
    pub tool: Tool,
    /// The file's name as given.
    pub input: String,
    /// What is wrong and the fix, in users' words.
    pub message: String,
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` looks like a file of {}, but {}",
            self.input,
            self.tool.label(),
            self.message
        )
    }
}

impl std::error::Error for ToolError {}

/// The most bytes a tool's JSON file may have to be read whole for detection (the loaders' limit).
pub const MAX_JSON_BYTES: u64 = data::DEFAULT_MAX_BYTES;

/// One file, as the readers look at it: its format, headers and (JSON objects) parsed value, each read once.
pub struct Probe<'a> {
    /// The file's name, for messages only (never used to decide).
    pub name: &'a str,
    src: &'a dyn ByteSource,
    /// The container format, from the first bytes.
    pub format: Format,
    info: OnceCell<Option<FileInfo>>,
    json: OnceCell<Option<Value>>,
}

impl<'a> Probe<'a> {
    /// `None` when the bytes are no format Lethe reads (empty, unknown binary).
    pub fn new(name: &'a str, src: &'a dyn ByteSource) -> Option<Self> {
        let format = data::detect(name, src).ok()?;
        Some(Self {
            name,
            src,
            format,
            info: OnceCell::new(),
            json: OnceCell::new(),
        })
    }

    /// The array headers of an .npy or .npz file (`None` for other formats or unreadable headers).
    pub fn info(&self) -> Option<&FileInfo> {
        self.info
            .get_or_init(|| {
                matches!(self.format, Format::Npy | Format::Npz)
                    .then(|| data::inspect(self.name, self.src).ok())
                    .flatten()
            })
            .as_ref()
    }

    /// The header of array `name` (.npz member; `None` = the .npy file's array).
    pub fn header(&self, name: Option<&str>) -> Option<&ArrayInfo> {
        let info = self.info()?;
        match name {
            None if self.format == Format::Npy => info.arrays.first(),
            None => None,
            Some(n) => info.arrays.iter().find(|a| a.name.as_deref() == Some(n)),
        }
    }

    /// The .npz member names (empty for other formats).
    pub fn members(&self) -> Vec<&str> {
        self.info()
            .filter(|_| self.format == Format::Npz)
            .map(|i| i.arrays.iter().filter_map(|a| a.name.as_deref()).collect())
            .unwrap_or_default()
    }

    /// The file parsed as JSON, when it is a JSON object (arrays at the top level are plain data, never a tool's
    /// file) no larger than [`MAX_JSON_BYTES`].
    pub fn json(&self) -> Option<&Value> {
        self.json
            .get_or_init(|| {
                if self.format != Format::Json || self.src.len() > MAX_JSON_BYTES {
                    return None;
                }
                let bytes = read_all(self.src)?;
                let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&bytes);
                if body.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
                    return None;
                }
                // Python's json.dump writes bare NaN / Infinity (open-unlearning's EVAL files): read them too.
                open_unlearning::parse_python_json(body).ok()
            })
            .as_ref()
    }

    /// Array `name` (an .npz member; `None` = the .npy file's array) as f64.
    ///
    /// # Errors
    /// The loader's, as a message.
    pub fn array(&self, name: Option<&str>) -> Result<Matrix<f64>, String> {
        let opts = LoadOptions {
            name: name.map(str::to_string),
            ..LoadOptions::default()
        };
        data::load::<f64>(self.name, self.src, &opts)
            .map(|l| l.matrix)
            .map_err(|e| e.to_string())
    }
}

fn read_all(src: &dyn ByteSource) -> Option<Vec<u8>> {
    let len = usize::try_from(src.len()).ok()?;
    let mut buf = Vec::new();
    buf.try_reserve_exact(len).ok()?;
    buf.resize(len, 0);
    src.read_at(0, &mut buf).ok()?;
    Some(buf)
}

type Detect = fn(&Probe<'_>) -> Option<Result<Summary, String>>;
type Column = fn(&Probe<'_>, &str) -> Option<Result<Matrix<f64>, String>>;
type DetectSet = fn(&[Probe<'_>]) -> Option<Result<Summary, String>>;

/// The single-file readers, in the order they are asked.
const READERS: &[(Tool, Detect, Column)] = &[
    (Tool::PrivacyMeter, privacy_meter::detect, privacy_meter::column),
    (Tool::LeakPro, leakpro::detect, leakpro::column),
    (Tool::Competition, competition::detect, competition::column),
    (Tool::OpenUnlearning, open_unlearning::detect, open_unlearning::column),
    (Tool::Tofu, tofu::detect, tofu::column),
    (Tool::Muse, muse::detect, muse::column),
];

/// The readers of several files together (a dropped folder).
const SET_READERS: &[(Tool, DetectSet)] = &[
    (Tool::PrivacyMeter, privacy_meter::detect_set),
    (Tool::Lira, lira::detect_set),
];

/// Which tool wrote the file `name` (used in messages only) holding `src`, decided from its content.
///
/// `None`: no tool's file (a plain array file: the ordinary readers read it). `Some(Err)`: almost a tool's file,
/// with what is wrong and the fix. A reader that recognises the file wins over one that finds it almost its own.
///
/// # Examples
/// ```
/// let json = br#"{"signal_values": [0.9, 0.1], "true_labels": [1, 0], "tpr": [0, 1], "fpr": [0, 1],
///   "roc_auc": 1.0, "fixed_fpr": {}, "config": {}, "result_name": "rmia", "result_type": "MIAResult",
///   "id": "rmia-0", "accuracy": [1.0]}"#;
/// let s = lethe::tools::detect("x.json", &json.as_slice()).unwrap().unwrap();
/// assert_eq!(s.tool, lethe::tools::Tool::LeakPro);
/// assert_eq!(s.samples, Some(2));
/// ```
pub fn detect(name: &str, src: &dyn ByteSource) -> Option<Result<Summary, ToolError>> {
    let probe = Probe::new(name, src)?;
    let mut almost = None;
    for (tool, detect, _) in READERS {
        match detect(&probe) {
            Some(Ok(s)) => return Some(Ok(s)),
            Some(Err(message)) => {
                almost.get_or_insert(ToolError {
                    tool: *tool,
                    input: name.to_string(),
                    message,
                });
            }
            None => {}
        }
    }
    almost.map(Err)
}

/// Which tool wrote a set of files (a dropped folder, or several files at once), given by their paths relative to
/// the folder (used in messages and offers only) and contents. `None` when no reader of sets recognises them
/// (each file may still be a tool's file on its own: [`detect`]).
pub fn detect_set(files: &[(&str, &dyn ByteSource)]) -> Option<Result<Summary, ToolError>> {
    let probes: Vec<Probe<'_>> = files.iter().filter_map(|(n, s)| Probe::new(n, *s)).collect();
    let mut almost = None;
    for (tool, detect) in SET_READERS {
        match detect(&probes) {
            Some(Ok(s)) => return Some(Ok(s)),
            Some(Err(message)) => {
                almost.get_or_insert(ToolError {
                    tool: *tool,
                    input: files.first().map_or(String::new(), |f| f.0.to_string()),
                    message,
                });
            }
            None => {}
        }
    }
    almost.map(Err)
}

/// Reads `opts.name` as a tool's `#KEY` of `name`/`src` (for example `members` of a privacy-meter attack result,
/// `model=3` of its signals), with `opts.rows` applied afterwards. `None` when the key is no tool's key of this file
/// (the ordinary loader then reads it as an array name).
///
/// # Errors
/// What the tool's reader says is wrong with the file for that key, naming the file; a row out of range.
pub fn load_key<S: Scalar>(
    name: &str,
    src: &dyn ByteSource,
    opts: &LoadOptions,
) -> Option<Result<Loaded<S>, DataError>> {
    let key = opts.name.as_deref()?;
    let probe = Probe::new(name, src)?;
    let (matrix, tool) = READERS
        .iter()
        .find_map(|(tool, _, column)| column(&probe, key).map(|r| (r, *tool)))?;
    Some(finish_key(name, &probe, key, tool, matrix, opts))
}

fn finish_key<S: Scalar>(
    name: &str,
    probe: &Probe<'_>,
    key: &str,
    tool: Tool,
    matrix: Result<Matrix<f64>, String>,
    opts: &LoadOptions,
) -> Result<Loaded<S>, DataError> {
    let matrix = matrix.map_err(|message| DataError::Io {
        input: name.to_string(),
        detail: format!("reading `#{key}` as a file of {}: {message}", tool.label()),
        fix: "see `lethe inspect` on the file for what it holds".into(),
    })?;
    let (rows, cols) = (matrix.rows(), matrix.cols());
    let matrix = match &opts.rows {
        Some(r) => {
            if let Some(&bad) = r.iter().find(|&&i| i >= rows) {
                return Err(DataError::RowOutOfRange {
                    input: name.to_string(),
                    index: bad,
                    rows: rows as u64,
                });
            }
            matrix.select_rows(r, name).map_err(|e| DataError::Io {
                input: name.to_string(),
                detail: e.to_string(),
                fix: String::new(),
            })?
        }
        None => matrix,
    };
    let shape = if cols == 1 {
        vec![rows as u64]
    } else {
        vec![rows as u64, cols as u64]
    };
    let info = ArrayInfo {
        name: Some(key.to_string()),
        dtype: "float64".into(),
        stored_dtype: tool.name().into(),
        byte_size: (rows * cols * 8) as u64,
        shape,
        fortran_order: false,
        data_offset: None,
        compressed_size: None,
        rows: rows as u64,
        cols: cols as u64,
        note: None,
        problem: None,
    };
    Ok(Loaded {
        format: probe.format,
        matrix: matrix.cast::<S>(),
        labels: None,
        text_columns: Vec::new(),
        column_names: None,
        info,
        warnings: Vec::new(),
    })
}

// Helpers the readers share.

/// A JSON value as a vector of numbers (`null` entries become NaN, which the analyses refuse naming the row).
pub(crate) fn json_numbers(v: &Value) -> Option<Vec<f64>> {
    v.as_array()?
        .iter()
        .map(|x| match x {
            Value::Null => Some(f64::NAN),
            Value::Bool(b) => Some(f64::from(u8::from(*b))),
            other => other.as_f64(),
        })
        .collect()
}

/// `values` as an n × 1 matrix.
pub(crate) fn column_of(values: Vec<f64>) -> Matrix<f64> {
    let n = values.len();
    Matrix::from_vec(n, 1, values).unwrap_or_else(|_| Matrix::zeros(0, 1))
}

/// The values of `scores` whose `labels` entry is 1 (`want` true) or 0 (`want` false).
///
/// # Errors
/// Lengths that differ, or a label other than 0 and 1 (its index named).
pub(crate) fn split_by_labels(scores: &[f64], labels: &[f64], want: bool, what: &str) -> Result<Vec<f64>, String> {
    if scores.len() != labels.len() {
        return Err(format!(
            "its scores hold {} values but its {what} {}; they must be of one length, one per sample",
            scores.len(),
            labels.len()
        ));
    }
    if let Some(i) = labels.iter().position(|&l| l != 0.0 && l != 1.0) {
        return Err(format!(
            "its {what} hold {} at position {i}, where only 0 (non-member) and 1 (member) are meaningful",
            labels[i]
        ));
    }
    Ok(scores
        .iter()
        .zip(labels)
        .filter(|(_, l)| (**l == 1.0) == want)
        .map(|(s, _)| *s)
        .collect())
}

/// `{"key": value}` options for an [`Offer`].
pub(crate) fn options(pairs: &[(&str, Value)]) -> serde_json::Map<String, Value> {
    pairs.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect()
}

/// "members" / "non-members" counts of 0/1 labels.
pub(crate) fn count_members(labels: &[f64]) -> (usize, usize) {
    let members = labels.iter().filter(|&&l| l == 1.0).count();
    (members, labels.len() - members)
}

#[cfg(test)]
mod tests;
