//! open-unlearning (locuslab/open-unlearning) evaluation logs: `TOFU_EVAL.json`, `MUSE_EVAL.json` and the
//! `TOFU_SUMMARY.json` / `MUSE_SUMMARY.json` beside them.
//!
//! The version read is open-unlearning at commit d3d7cf9 (2025-12-23). The writer is `src/evals/base.py`,
//! `Evaluator.evaluate`: after each metric it calls `save_logs(logs, "<name>_EVAL.json")` (`json.dump(dict(
//! sorted(logs.items())), f, indent=4)`) and `save_logs(summarize(logs), "<name>_SUMMARY.json")`; `<name>` is
//! `TOFU` (`src/evals/tofu.py`) or `MUSE` (`src/evals/muse.py`). `logs` is the metrics' cache
//! (`src/evals/metrics/base.py`, `UnlearningMetric.evaluate`: `cache.update({metric_name: results})`), so the
//! EVAL file holds every metric run, pre-computed ones included, each as its metric function returned it:
//!
//! * per-sample metrics — `{"agg_value": x, "value_by_index": {"0": {...}, "1": {...}}}`: `probability`
//!   (`src/evals/metrics/memorization.py`; per sample `prob`, `avg_loss`, lists of them for the perturbed
//!   answers, from `utils.py` `evaluate_probability` / `run_batchwise_evals` / `dict_transpose`),
//!   `probability_w_options` (`prob`), `rouge` (`rouge1_recall`, `rougeL_f1`, `rougeL_recall`, `input`,
//!   `ground_truth`, `generation`, from `utils.py` `eval_text_similarity`), `truth_ratio` (`score`),
//!   `exact_memorization` / `extraction_strength` (`score`), `classifier_prob` (`utility.py`: `score` and the
//!   text); a sample can be `null` where the writer could not score it;
//! * MIA metrics (`src/evals/metrics/mia/utils.py` `mia_auc`) — `{"forget": {"agg_value", "value_by_index":
//!   {"0": {"score": s}}}, "holdout": {...}, "auc": a, "agg_value": a}`; the attack's score is signed like a
//!   loss (higher = less likely a member), and `auc = roc_auc_score(labels = 0 for forget / 1 for holdout,
//!   scores)`, i.e. the probability that a holdout sample scores above a forget sample;
//! * aggregate-only metrics — `{"agg_value": x}`: `ks_test` (forget quality, `privacy.py`; `null` when no retain
//!   model's logs were given), `privleak`, `rel_diff`, `hm_aggregate` (model utility).
//!
//! The SUMMARY file is `{metric: agg_value}` for the metrics asked for.
//!
//! Python's `json.dump` writes NaN and infinities as the bare words `NaN`, `Infinity`, `-Infinity`, which are
//! not JSON: [`parse_python_json`] reads them (the shared probe's strict parse does not).
//!
//! Keys (`PATH#KEY`): `METRIC/FIELD` (a per-sample field, one row per sample in index order; a list-valued field
//! such as the perturbed answers' `prob` gives one column per answer), `METRIC` (a metric with one numeric
//! per-sample field, e.g. a truth ratio's `score`; or an aggregate-only metric's value), `METRIC/forget` and
//! `METRIC/holdout` (an MIA metric's score sets), `METRIC/agg_value`.

use serde_json::{Map, Value};

use super::{Entry, Offer, Probe, Summary, Tool, column_of, options};
use crate::data::Matrix;

/// The writer this reader follows.
pub const FOLLOWS: &str = "locuslab/open-unlearning at d3d7cf9 (2025-12-23): src/evals/base.py Evaluator.save_logs \
                           and summarize (<TOFU|MUSE>_EVAL.json, <TOFU|MUSE>_SUMMARY.json), values as the metric \
                           functions of src/evals/metrics/ return them";

/// Metric names open-unlearning's TOFU and MUSE configs write (configs/eval/{tofu,muse}_metrics/*.yaml).
const KNOWN: &[&str] = &[
    "forget_quality",
    "forget_truth_ratio",
    "forget_Q_A_Prob",
    "forget_Q_A_ROUGE",
    "forget_Q_A_PARA_Prob",
    "forget_Q_A_PERT_Prob",
    "model_utility",
    "privleak",
    "extraction_strength",
    "exact_memorization",
    "forget_knowmem_ROUGE",
    "retain_knowmem_ROUGE",
    "forget_verbmem_ROUGE",
    "retain_Q_A_Prob",
    "retain_Q_A_ROUGE",
    "retain_Truth_Ratio",
    "mia_min_k",
    "mia_min_k_plus_plus",
    "mia_loss",
    "mia_zlib",
    "mia_gradnorm",
    "mia_reference",
];

/// Parses JSON as Python's `json.dump` writes it: the bare words `NaN`, `Infinity` and `-Infinity` outside
/// strings become the strings `"NaN"`, `"Infinity"`, `"-Infinity"`, which [`number`] reads as numbers.
///
/// # Errors
/// serde_json's message (line and column) for anything else that is not JSON.
pub fn parse_python_json(bytes: &[u8]) -> Result<Value, String> {
    let body = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        return Ok(v);
    }
    let mut out = Vec::with_capacity(body.len() + 64);
    let (mut i, mut in_str, mut esc) = (0usize, false, false);
    while i < body.len() {
        let c = body[i];
        if in_str {
            out.push(c);
            if esc {
                esc = false;
            } else if c == b'\\' {
                esc = true;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
            continue;
        }
        let rest = &body[i..];
        let word = [&b"-Infinity"[..], b"Infinity", b"NaN"]
            .into_iter()
            .find(|w| rest.starts_with(w));
        if let Some(w) = word {
            out.push(b'"');
            out.extend_from_slice(w);
            out.push(b'"');
            i += w.len();
            continue;
        }
        if c == b'"' {
            in_str = true;
        }
        out.push(c);
        i += 1;
    }
    serde_json::from_slice::<Value>(&out).map_err(|e| e.to_string())
}

/// A number as the writers store it: a JSON number, `null` (NaN: the analyses refuse it, naming the row), or
/// one of Python's words for non-finite floats read by [`parse_python_json`]; `true`/`false` are 1/0.
pub fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::Null => Some(f64::NAN),
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// `value_by_index` entries in index order (numeric where the keys are numbers, as the writer's data indices).
pub fn by_index(m: &Map<String, Value>) -> Vec<(&str, &Value)> {
    let mut v: Vec<(&str, &Value)> = m.iter().map(|(k, v)| (k.as_str(), v)).collect();
    v.sort_by(|a, b| match (a.0.parse::<i64>(), b.0.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        _ => a.0.cmp(b.0),
    });
    v
}

/// An MIA metric's (forget scores, holdout scores, the file's `auc`).
pub type MiaScores = (Vec<f64>, Vec<f64>, Option<f64>);

/// What one metric of an EVAL file is.
#[derive(Clone, Debug, PartialEq)]
pub enum MetricShape {
    /// `{agg_value, value_by_index}`: `samples` samples with these fields.
    PerSample { samples: usize, fields: Vec<Field> },
    /// `{forget, holdout, auc, agg_value}`.
    Mia {
        forget: usize,
        holdout: usize,
        auc: Option<f64>,
    },
    /// `{agg_value}` only.
    Aggregate,
}

/// A per-sample field: its name, whether it holds numbers or text, and how many values per sample (the
/// perturbed answers' lists).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub text: bool,
    pub width: usize,
}

/// One metric of an EVAL file.
#[derive(Clone, Debug, PartialEq)]
pub struct Metric {
    pub name: String,
    pub agg_value: Option<f64>,
    pub shape: MetricShape,
}

impl Metric {
    /// A truth-ratio metric (what forget quality compares): per-sample `score`s of a metric named truth ratio.
    pub fn is_truth_ratio(&self) -> bool {
        self.name.to_ascii_lowercase().contains("truth_ratio")
            && matches!(&self.shape, MetricShape::PerSample { fields, .. } if fields.iter().any(|f| f.name == "score"))
    }
}

/// An open-unlearning EVAL or SUMMARY file.
#[derive(Clone, Debug, PartialEq)]
pub struct OuFile {
    /// `TOFU_EVAL`-like (per-metric results) or `SUMMARY` (`{metric: value}`).
    pub summary: bool,
    /// `TOFU` or `MUSE`, guessed from the metrics' names (the file's name is never used).
    pub suite: Option<&'static str>,
    pub metrics: Vec<Metric>,
}

fn is_result_object(o: &Map<String, Value>) -> bool {
    // What a metric function returns: value_by_index, or only open-unlearning's result keys (agg_value; an MIA
    // metric's forget, holdout, auc).
    o.contains_key("value_by_index")
        || (!o.is_empty()
            && o.keys().all(|k| {
                matches!(
                    k.as_str(),
                    "agg_value" | "value_by_index" | "forget" | "holdout" | "auc"
                )
            })
            && o.keys().any(|k| k != "auc"))
}

fn suite_of(names: &[&str]) -> Option<&'static str> {
    if names.iter().any(|n| n.contains("knowmem") || n.contains("verbmem")) {
        Some("MUSE")
    } else if names
        .iter()
        .any(|n| n.contains("Q_A") || n.contains("truth_ratio") || n.contains("Truth_Ratio") || *n == "forget_quality")
    {
        Some("TOFU")
    } else {
        None
    }
}

fn fields_of(metric: &str, vbi: &Map<String, Value>) -> Result<(usize, Vec<Field>), String> {
    let mut fields: Vec<Field> = Vec::new();
    for (idx, s) in by_index(vbi) {
        let o = match s {
            Value::Null => continue,
            Value::Object(o) => o,
            _ => {
                return Err(format!(
                    "at `{metric}` → `value_by_index` → `{idx}` there is {} where open-unlearning writes one object \
                     per sample (for example {{\"prob\": 0.8, \"avg_loss\": 0.2}}); re-run the evaluation or fix \
                     that entry",
                    kind(s)
                ));
            }
        };
        for (k, v) in o {
            let (text, width) = match v {
                Value::String(s) if number(v).is_none() => {
                    let _ = s;
                    (true, 1)
                }
                Value::Array(a) => (a.iter().any(|x| x.is_string() && number(x).is_none()), a.len()),
                _ => (false, 1),
            };
            match fields.iter_mut().find(|f| f.name == *k) {
                Some(f) => f.width = f.width.max(width),
                None => fields.push(Field {
                    name: k.clone(),
                    text,
                    width,
                }),
            }
        }
    }
    Ok((vbi.len(), fields))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "a text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn score_set(metric: &str, o: &Map<String, Value>, set: &str) -> Result<Vec<f64>, String> {
    let s = o.get(set).and_then(Value::as_object).ok_or_else(|| {
        format!(
            "`{metric}` has no `{set}` score set; open-unlearning's MIA metrics (mia/utils.py mia_auc) write \
             `forget` and `holdout`, each with `value_by_index`: re-run the MIA metric"
        )
    })?;
    let vbi = s.get("value_by_index").and_then(Value::as_object).ok_or_else(|| {
        format!("`{metric}` → `{set}` has no `value_by_index` (one score per sample): re-run the MIA metric")
    })?;
    by_index(vbi)
        .into_iter()
        .map(|(idx, v)| {
            v.get("score").and_then(number).ok_or_else(|| {
                format!(
                    "`{metric}` → `{set}` → `value_by_index` → `{idx}` has no numeric `score`; open-unlearning \
                     writes {{\"score\": value}} per sample"
                )
            })
        })
        .collect()
}

fn metric_of(name: &str, v: &Value) -> Result<Metric, String> {
    let o = v.as_object().ok_or_else(|| {
        format!(
            "metric `{name}` is {} where open-unlearning writes an object with `agg_value` (and per-sample \
             `value_by_index`)",
            kind(v)
        )
    })?;
    let agg_value = o.get("agg_value").filter(|a| !a.is_null()).and_then(number);
    let shape = if o.contains_key("forget") || o.contains_key("holdout") {
        let f = score_set(name, o, "forget")?;
        let h = score_set(name, o, "holdout")?;
        MetricShape::Mia {
            forget: f.len(),
            holdout: h.len(),
            auc: o.get("auc").and_then(number),
        }
    } else if let Some(vbi) = o.get("value_by_index") {
        let vbi = vbi.as_object().ok_or_else(|| {
            format!(
                "`{name}` → `value_by_index` is {} where open-unlearning writes an object keyed by sample index \
                 ({{\"0\": {{...}}, \"1\": {{...}}}})",
                kind(vbi)
            )
        })?;
        let (samples, fields) = fields_of(name, vbi)?;
        MetricShape::PerSample { samples, fields }
    } else if o.contains_key("agg_value") {
        MetricShape::Aggregate
    } else {
        return Err(format!(
            "metric `{name}` has neither `agg_value` nor `value_by_index` (open-unlearning writes both for per-sample \
             metrics, `agg_value` alone for aggregates): re-run the evaluation"
        ));
    };
    Ok(Metric {
        name: name.to_string(),
        agg_value,
        shape,
    })
}

/// Reads an open-unlearning EVAL or SUMMARY file from its parsed JSON. `None`: not one (no metric result
/// objects, no known metric names); `Some(Err)`: almost (what is wrong, where — the JSON path — and the fix).
pub fn read(v: &Value) -> Option<Result<OuFile, String>> {
    let o = v.as_object()?;
    if o.is_empty() {
        return None;
    }
    let results = o
        .values()
        .filter(|x| x.as_object().is_some_and(is_result_object))
        .count();
    let names: Vec<&str> = o.keys().map(String::as_str).collect();
    if results > 0 {
        let mut metrics = Vec::new();
        for (name, val) in o {
            match metric_of(name, val) {
                Ok(m) => metrics.push(m),
                Err(e) => return Some(Err(e)),
            }
        }
        return Some(Ok(OuFile {
            summary: false,
            suite: suite_of(&names),
            metrics,
        }));
    }
    // SUMMARY: {metric: number | null}, with at least one of open-unlearning's metric names.
    let all_scalar = o.values().all(|x| x.is_null() || number(x).is_some());
    let known = names.iter().filter(|n| KNOWN.contains(n)).count();
    if known == 0 {
        return None;
    }
    if !all_scalar {
        let (bad, val) = o
            .iter()
            .find(|(_, x)| !(x.is_null() || number(x).is_some()))
            .map(|(k, x)| (k.as_str(), x))?;
        return Some(Err(format!(
            "it names open-unlearning metrics, but `{bad}` is {} where an EVAL file has an object with `agg_value` \
             and a SUMMARY file a number; open the {{TOFU,MUSE}}_EVAL.json or _SUMMARY.json the evaluator wrote",
            kind(val)
        )));
    }
    let metrics = o
        .iter()
        .map(|(k, x)| Metric {
            name: k.clone(),
            agg_value: number(x).filter(|_| !x.is_null()),
            shape: MetricShape::Aggregate,
        })
        .collect();
    Some(Ok(OuFile {
        summary: true,
        suite: suite_of(&names),
        metrics,
    }))
}

fn metric_obj<'v>(v: &'v Value, metric: &str) -> Result<&'v Map<String, Value>, String> {
    let o = v.as_object().ok_or("the file is not an open-unlearning EVAL file")?;
    let m = o.get(metric).ok_or_else(|| {
        let mut names: Vec<&str> = o.keys().map(String::as_str).collect();
        names.truncate(12);
        format!("the file has no metric `{metric}`; it has {}", names.join(", "))
    })?;
    m.as_object().ok_or_else(|| {
        format!(
            "`{metric}` is {} here, not a metric's per-sample results: this looks like a SUMMARY file (one value \
             per metric); give the TOFU_EVAL.json / MUSE_EVAL.json written beside it, which holds the samples",
            kind(m)
        )
    })
}

/// The per-sample numeric field `field` of `metric`, one row per sample in index order, as many columns as the
/// widest sample's list (a sample the writer could not score, `null`, is a row of NaN).
///
/// # Errors
/// No such metric or field, text where numbers are needed, lists of different lengths.
pub fn field(v: &Value, metric: &str, field: &str) -> Result<Matrix<f64>, String> {
    let m = metric_obj(v, metric)?;
    let vbi = m.get("value_by_index").and_then(Value::as_object).ok_or_else(|| {
        format!("`{metric}` has no per-sample values (`value_by_index`); its aggregate is `{metric}/agg_value`")
    })?;
    let rows = by_index(vbi);
    let mut width = 0usize;
    for (_, s) in &rows {
        if let Some(x) = s.get(field) {
            width = width.max(if let Value::Array(a) = x { a.len() } else { 1 });
        }
    }
    if width == 0 {
        let known: Vec<String> = rows
            .iter()
            .find_map(|(_, s)| s.as_object())
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        return Err(format!(
            "`{metric}` has no per-sample field `{field}`; its fields are {}",
            known.join(", ")
        ));
    }
    let mut data = Vec::with_capacity(rows.len() * width);
    for (idx, s) in &rows {
        match s.get(field) {
            None if s.is_null() => data.extend(std::iter::repeat_n(f64::NAN, width)),
            None => {
                return Err(format!(
                    "`{metric}` → `value_by_index` → `{idx}` has no `{field}` (the other samples have it)"
                ));
            }
            Some(Value::Array(a)) => {
                if a.len() != width {
                    return Err(format!(
                        "`{metric}` → `value_by_index` → `{idx}` → `{field}` holds {} values where other samples \
                         hold {width}; every sample needs the same number of answers",
                        a.len()
                    ));
                }
                for (j, x) in a.iter().enumerate() {
                    data.push(number(x).ok_or_else(|| {
                        format!("`{metric}` → `value_by_index` → `{idx}` → `{field}` [{j}] is not a number")
                    })?);
                }
            }
            Some(x) => {
                if width != 1 {
                    return Err(format!(
                        "`{metric}` → `value_by_index` → `{idx}` → `{field}` is one value where other samples hold \
                         a list of {width}"
                    ));
                }
                data.push(number(x).ok_or_else(|| {
                    format!(
                        "`{metric}` → `value_by_index` → `{idx}` → `{field}` is {}, not a number (text fields are \
                         read by ROUGE, not as numbers)",
                        kind(x)
                    )
                })?);
            }
        }
    }
    Matrix::from_vec(rows.len(), width, data).map_err(|e| e.to_string())
}

/// The per-sample text field `field` (`generation`, `ground_truth`, `input`) of `metric`, in index order
/// (`None` for a sample the writer could not score).
///
/// # Errors
/// No such metric or field.
pub fn texts(v: &Value, metric: &str, field: &str) -> Result<Vec<Option<String>>, String> {
    let m = metric_obj(v, metric)?;
    let vbi = m
        .get("value_by_index")
        .and_then(Value::as_object)
        .ok_or_else(|| format!("`{metric}` has no per-sample values (`value_by_index`)"))?;
    let rows = by_index(vbi);
    if !rows.iter().any(|(_, s)| s.get(field).is_some_and(Value::is_string)) {
        return Err(format!(
            "`{metric}` has no per-sample text `{field}` (open-unlearning's ROUGE metrics write `input`, \
             `ground_truth` and `generation`)"
        ));
    }
    Ok(rows
        .iter()
        .map(|(_, s)| s.get(field).and_then(Value::as_str).map(str::to_string))
        .collect())
}

/// An MIA metric's score sets: (forget, holdout, the `auc` the file states). Scores are the attack's, signed
/// like a loss (higher = less likely a member).
///
/// # Errors
/// No such metric, or not an MIA metric.
pub fn mia_scores(v: &Value, metric: &str) -> Result<MiaScores, String> {
    let m = metric_obj(v, metric)?;
    if !(m.contains_key("forget") && m.contains_key("holdout")) {
        return Err(format!(
            "`{metric}` is not a membership-inference metric (those hold `forget` and `holdout` score sets, e.g. \
             mia_min_k)"
        ));
    }
    Ok((
        score_set(metric, m, "forget")?,
        score_set(metric, m, "holdout")?,
        m.get("auc").and_then(number),
    ))
}

/// A metric's `agg_value` (`None` when missing or `null`, e.g. forget quality without a retain model's logs).
pub fn agg_value(v: &Value, metric: &str) -> Option<f64> {
    let x = v.get(metric)?;
    match x {
        Value::Object(o) => o.get("agg_value").filter(|a| !a.is_null()).and_then(number),
        other => number(other).filter(|_| !other.is_null()),
    }
}

/// The truth ratios open-unlearning's forget quality compares: `metric`'s per-sample `score` in index order
/// (`ks_test` reads `value_by_index.values()` of `forget_truth_ratio`). With `metric` `None`,
/// `forget_truth_ratio`.
///
/// # Errors
/// The metric is missing or holds no scores.
pub fn truth_ratios(v: &Value, metric: Option<&str>) -> Result<Vec<f64>, String> {
    let metric = metric.unwrap_or("forget_truth_ratio");
    let m = field(v, metric, "score").map_err(|e| {
        format!(
            "{e}. Forget quality compares the `{metric}` truth ratios of the unlearned and the retain model: run \
             open-unlearning's TOFU evaluation with forget_truth_ratio on both"
        )
    })?;
    Ok(m.as_slice().to_vec())
}

/// `s` quoted for a POSIX shell when it holds anything but plain path characters (as the offers' commands).
pub(crate) fn shell(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-#=@:+,".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn entries_and_offers(p_name: &str, f: &OuFile) -> (Vec<Entry>, Vec<Offer>, Option<u64>) {
    let mut entries = Vec::new();
    let mut offers = Vec::new();
    let mut samples: Option<u64> = None;
    for m in &f.metrics {
        match &m.shape {
            MetricShape::Aggregate => entries.push(Entry {
                key: m.name.clone(),
                shape: vec![],
                what: match m.agg_value {
                    Some(a) => format!("{}: {a}", m.name),
                    None => format!("{}: not computed (null)", m.name),
                },
            }),
            MetricShape::Mia { forget, holdout, auc } => {
                for (set, n) in [("forget", forget), ("holdout", holdout)] {
                    entries.push(Entry {
                        key: format!("{}/{set}", m.name),
                        shape: vec![*n as u64],
                        what: format!(
                            "{}'s score of each {set} sample (signed like a loss: lower = more likely a member)",
                            m.name
                        ),
                    });
                }
                samples = Some(samples.unwrap_or(0).max((forget + holdout) as u64));
                let (fk, hk) = (format!("{}/forget", m.name), format!("{}/holdout", m.name));
                let mut o = Offer::new(
                    "mia",
                    format!("Membership audit of forget vs holdout ({})", m.name),
                    &[("members", p_name, Some(&fk)), ("non_members", p_name, Some(&hk))],
                    options(&[("lower_is_member", Value::Bool(true))]),
                );
                // `lethe mia` takes members and non-members as positional arguments
                o.cli = format!(
                    "lethe mia {} {} --lower-is-member",
                    shell(&format!("{p_name}#{fk}")),
                    shell(&format!("{p_name}#{hk}"))
                );
                if let Some(a) = auc {
                    o.label.push_str(&format!("; the file's AUC {a} is this audit's"));
                }
                offers.push(o);
                offers.push(Offer::new(
                    "privleak",
                    format!(
                        "privleak from {} with a bootstrap interval (add the retain model's EVAL file as reference)",
                        m.name
                    ),
                    &[("unlearned", p_name, None)],
                    options(&[("metric", Value::String(m.name.clone()))]),
                ));
            }
            MetricShape::PerSample { samples: n, fields } => {
                samples = Some(samples.unwrap_or(0).max(*n as u64));
                for fl in fields {
                    let shape = if fl.width > 1 {
                        vec![*n as u64, fl.width as u64]
                    } else {
                        vec![*n as u64]
                    };
                    entries.push(Entry {
                        key: format!("{}/{}", m.name, fl.name),
                        shape,
                        what: if fl.text {
                            format!("{}'s per-sample text `{}`", m.name, fl.name)
                        } else if fl.width > 1 {
                            format!("{}'s `{}` of each sample's {} answers", m.name, fl.name, fl.width)
                        } else {
                            format!("{}'s per-sample `{}`", m.name, fl.name)
                        },
                    });
                    if fl.name.starts_with("rouge") && !fl.text && fl.width == 1 {
                        let key = format!("{}/{}", m.name, fl.name);
                        let mut o = Offer::new(
                            "bounds",
                            format!("Leakage bounds on {}'s per-sample {}", m.name, fl.name),
                            &[("scores", p_name, Some(&key))],
                            options(&[]),
                        );
                        o.cli = format!("lethe bounds {}", shell(&format!("{p_name}#{key}")));
                        offers.push(o);
                    }
                }
                if fields.iter().any(|f| f.name == "generation") && fields.iter().any(|f| f.name == "ground_truth") {
                    let mut o = Offer::new(
                        "tool-rouge",
                        format!("ROUGE-L of {}'s generations against the ground truth", m.name),
                        &[("file", p_name, Some(&m.name))],
                        options(&[]),
                    );
                    // `lethe tool-rouge` takes its file as a positional argument
                    o.cli = format!("lethe tool-rouge {}", shell(&format!("{p_name}#{}", m.name)));
                    offers.push(o);
                }
                if m.is_truth_ratio() {
                    let mut o = Offer::new(
                        "forget-quality",
                        format!(
                            "Forget quality (KS test of {}'s truth ratios against the retain model's; needs the \
                             retain model's EVAL file)",
                            m.name
                        ),
                        &[("unlearned", p_name, None)],
                        options(&[("metric", Value::String(m.name.clone()))]),
                    );
                    o.cli.push_str(" --retain RETAIN_MODEL_EVAL.json");
                    offers.push(o);
                }
            }
        }
    }
    (entries, offers, samples)
}

pub(super) fn detect(p: &Probe<'_>) -> Option<Result<Summary, String>> {
    let v = p.json()?;
    let f = match read(v)? {
        Ok(f) => f,
        Err(e) => return Some(Err(e)),
    };
    Some(Ok(summary(p.name, &f)))
}

/// The summary of a read file (for [`super::detect`] and for callers that parsed the file themselves, e.g. with
/// [`parse_python_json`]).
pub fn summary(name: &str, f: &OuFile) -> Summary {
    let (entries, offers, samples) = entries_and_offers(name, f);
    let suite = f.suite.unwrap_or("an");
    let kind = format!(
        "{}_{}",
        f.suite.unwrap_or("EVAL"),
        if f.summary { "SUMMARY" } else { "EVAL" }
    );
    let kind = if f.suite.is_none() {
        if f.summary {
            "SUMMARY".to_string()
        } else {
            "EVAL".to_string()
        }
    } else {
        kind
    };
    let mut names: Vec<&str> = f.metrics.iter().map(|m| m.name.as_str()).collect();
    names.truncate(10);
    let description = if f.summary {
        format!(
            "open-unlearning {suite} summary: {} metric values ({})",
            f.metrics.len(),
            names.join(", ")
        )
    } else {
        format!(
            "open-unlearning {suite} evaluation: {} metrics ({}){}",
            f.metrics.len(),
            names.join(", "),
            samples.map_or(String::new(), |n| format!(", up to {n} samples per metric"))
        )
    };
    let mut warnings = Vec::new();
    for m in &f.metrics {
        if m.name == "forget_quality" && m.agg_value.is_none() {
            warnings.push(
                "forget_quality is null: the evaluation ran without the retain model's logs (retain_logs_path); \
                 Lethe computes it from this file and the retain model's EVAL file (lethe forget-quality)"
                    .into(),
            );
        }
        if let MetricShape::Mia { auc: Some(a), .. } = m.shape
            && !(0.01..=0.99).contains(&a)
        {
            warnings.push(format!(
                "{}'s AUC is {a}: the attack separates forget from holdout almost perfectly{}",
                m.name,
                if a < 0.5 {
                    ", in the reverse direction (forget samples look less like training data than unseen ones); \
                     privleak computed from it is very large"
                } else {
                    ""
                }
            ));
        }
    }
    Summary {
        tool: Tool::OpenUnlearning,
        kind,
        follows: FOLLOWS.into(),
        description,
        samples,
        models: vec!["the evaluated model".into()],
        entries,
        offers,
        warnings,
        files: Vec::new(),
    }
}

/// Reads `key` of an open-unlearning file from its parsed JSON (see the module's keys). `None` when `key` names
/// no metric of the file.
pub fn column_of_value(v: &Value, key: &str) -> Option<Result<Matrix<f64>, String>> {
    let f = read(v)?.ok()?;
    let (metric, rest) = match key.split_once('/') {
        Some((m, r)) => (m, Some(r)),
        None => (key, None),
    };
    let m = f.metrics.iter().find(|m| m.name == metric)?;
    Some(match (&m.shape, rest) {
        (_, Some("agg_value")) | (MetricShape::Aggregate, None) => match m.agg_value {
            Some(a) => Ok(column_of(vec![a])),
            None => Err(format!("`{metric}` has no value (its agg_value is null or missing)")),
        },
        (MetricShape::Mia { .. }, Some(set)) => {
            let set = set.strip_suffix("/score").unwrap_or(set);
            match set {
                "forget" | "holdout" => {
                    mia_scores(v, metric).map(|(f, h, _)| column_of(if set == "forget" { f } else { h }))
                }
                other => Err(format!(
                    "`{metric}` has score sets `forget` and `holdout`, not `{other}`"
                )),
            }
        }
        (MetricShape::Mia { .. }, None) => Err(format!(
            "`{metric}` holds two score sets: read `{metric}/forget` and `{metric}/holdout`"
        )),
        (MetricShape::PerSample { .. }, Some(fl)) => field(v, metric, fl),
        (MetricShape::PerSample { fields, .. }, None) => {
            let numeric: Vec<&Field> = fields.iter().filter(|f| !f.text).collect();
            if numeric.len() == 1 {
                field(v, metric, &numeric[0].name)
            } else {
                Err(format!(
                    "`{metric}` has several per-sample fields: name one, e.g. `{metric}/{}`",
                    numeric.first().map_or("score", |f| f.name.as_str())
                ))
            }
        }
        (MetricShape::Aggregate, Some(other)) => Err(format!("`{metric}` is one value; it has no field `{other}`")),
    })
}

pub(super) fn column(p: &Probe<'_>, key: &str) -> Option<Result<Matrix<f64>, String>> {
    column_of_value(p.json()?, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EVAL: &str = r#"{
        "forget_Q_A_Prob": {"agg_value": 0.5, "value_by_index": {"10": {"prob": 0.25, "avg_loss": 1.4}, "2": {"prob": 0.75, "avg_loss": 0.3}}},
        "forget_Q_A_PERT_Prob": {"agg_value": 0.1, "value_by_index": {"2": {"prob": [0.1, 0.2], "avg_loss": [2.3, 1.6]}, "10": null}},
        "forget_truth_ratio": {"agg_value": 0.6, "value_by_index": {"2": {"score": 0.5}, "10": {"score": NaN}}},
        "forget_quality": {"agg_value": null},
        "mia_min_k": {"forget": {"agg_value": 1.0, "value_by_index": {"0": {"score": 1.0}, "1": {"score": 2.0}}},
                      "holdout": {"agg_value": 3.0, "value_by_index": {"0": {"score": 3.0}}}, "auc": 1.0, "agg_value": 1.0}
    }"#;

    #[test]
    fn reads_an_eval_file_with_python_nan() {
        let v = parse_python_json(EVAL.as_bytes()).unwrap();
        let f = read(&v).unwrap().unwrap();
        assert!(!f.summary);
        assert_eq!(f.suite, Some("TOFU"));
        assert_eq!(f.metrics.len(), 5);
        // index order is numeric: "2" before "10"
        let m = field(&v, "forget_Q_A_Prob", "prob").unwrap();
        assert_eq!(m.as_slice(), &[0.75, 0.25]);
        let pert = field(&v, "forget_Q_A_PERT_Prob", "prob").unwrap();
        assert_eq!((pert.rows(), pert.cols()), (2, 2));
        assert!(pert.as_slice()[2].is_nan());
        let tr = truth_ratios(&v, None).unwrap();
        assert_eq!(tr[0], 0.5);
        assert!(tr[1].is_nan());
        let (f, h, auc) = mia_scores(&v, "mia_min_k").unwrap();
        assert_eq!((f, h, auc), (vec![1.0, 2.0], vec![3.0], Some(1.0)));
        assert_eq!(agg_value(&v, "forget_quality"), None);
        let c = column_of_value(&v, "mia_min_k/holdout").unwrap().unwrap();
        assert_eq!(c.as_slice(), &[3.0]);
        assert!(column_of_value(&v, "nope").is_none());
        assert!(column_of_value(&v, "forget_Q_A_Prob").unwrap().is_err());
    }

    #[test]
    fn the_dispatch_detects_eval_files_with_python_nan_and_names_almost_files() {
        let s = crate::tools::detect("TOFU_EVAL.json", &EVAL.as_bytes())
            .unwrap()
            .unwrap();
        assert_eq!(s.tool, Tool::OpenUnlearning);
        assert_eq!(s.kind, "TOFU_EVAL");
        assert!(s.entries.iter().any(|e| e.key == "mia_min_k/forget"));
        assert!(s.offers.iter().any(|o| o.analysis == "forget-quality"));
        assert!(s.warnings.iter().any(|w| w.contains("forget_quality is null")));
        let bad = br#"{"forget_Q_A_Prob": {"agg_value": 1, "value_by_index": {"0": 5}}}"#;
        let e = crate::tools::detect("x.json", &bad.as_slice()).unwrap().unwrap_err();
        assert_eq!(e.tool, Tool::OpenUnlearning);
        assert!(
            e.message.contains("`forget_Q_A_Prob` → `value_by_index` → `0`"),
            "{}",
            e.message
        );
        let opts = crate::data::LoadOptions {
            name: Some("forget_truth_ratio/score".into()),
            ..Default::default()
        };
        let l = crate::tools::load_key::<f64>("x.json", &EVAL.as_bytes(), &opts)
            .unwrap()
            .unwrap();
        assert_eq!(l.matrix.rows(), 2);
    }

    #[test]
    fn almost_files_say_where() {
        let v: Value =
            serde_json::from_str(r#"{"forget_Q_A_Prob": {"agg_value": 1, "value_by_index": [1, 2]}}"#).unwrap();
        let e = read(&v).unwrap().unwrap_err();
        assert!(e.contains("`forget_Q_A_Prob` → `value_by_index`"), "{e}");
        let v: Value = serde_json::from_str(
            r#"{"mia_min_k": {"forget": {"value_by_index": {"0": {"score": 1}}}, "auc": 0.5, "holdout": {}}}"#,
        )
        .unwrap();
        let e = read(&v).unwrap().unwrap_err();
        assert!(e.contains("holdout"), "{e}");
        let v: Value =
            serde_json::from_str(r#"{"mia_min_k": {"forget": {"value_by_index": {"0": {"score": 1}}}, "auc": 0.5}}"#)
                .unwrap();
        let e = read(&v).unwrap().unwrap_err();
        assert!(e.contains("no `holdout` score set"), "{e}");
        // a summary
        let v: Value = serde_json::from_str(r#"{"forget_quality": 0.01, "model_utility": 0.6}"#).unwrap();
        assert!(read(&v).unwrap().unwrap().summary);
        // a plain dict of numbers is not open-unlearning's
        let v: Value = serde_json::from_str(r#"{"a": 1, "b": 2}"#).unwrap();
        assert!(read(&v).is_none());
    }
}
