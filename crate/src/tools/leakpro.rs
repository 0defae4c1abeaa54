//! LeakPro (aidotse/LeakPro) membership-inference results, `<output_dir>/data_objects/<attack_id>.json`.
//!
//! The version read is LeakPro at commit c47752f (June 2026): `leakpro/reporting/mia_result.py`, `MIAResult.save`
//! dumps `MIAResultSchema` (`leakpro/schemas.py`) with `json.dump(self.result.model_dump(), f,
//! default=json_fallback)`: `result_name`, `result_type` (`"MIAResult"`), `id`, `tpr`, `fpr`, `roc_auc`,
//! `accuracy`, `config`, `fixed_fpr` (`{"TPR@0%FPR": …, "TPR@0.01%FPR": …, …}`), `signal_values` (the attack's
//! per-sample signal, larger = member), `true_labels` (1 = member), `tp`, `fp`, `tn`, `fn`. A result made
//! `from_confusion_counts` has `signal_values: null` and cannot be audited again.
//!
//! The layout of earlier LeakPro releases (`leakpro/metrics/attack_result.py`, `MIAResult.save`, written as
//! `<attack>/<id>/data.json`: `resulttype`, `resultname`, `audit_indices`, `threshold` instead of `result_type`,
//! `result_name`, `accuracy`, the confusion counts) carries the same `signal_values` and `true_labels`, and is read
//! too. Results of LeakPro's other attacks (model inversion `MinvResult`, gradient inversion `GIAResults`) hold no
//! membership signals and are refused with that said.
//!
//! Keys: `#signal_values`, `#true_labels`, and `#members` / `#non_members` (the signals of samples labelled 1 / 0).

use serde_json::Value;

use super::{Entry, Offer, Probe, Summary, Tool, column_of, count_members, json_numbers, options, split_by_labels};
use crate::data::Matrix;

const FOLLOWS: &str = "aidotse/LeakPro at c47752f (June 2026): leakpro/reporting/mia_result.py MIAResult.save \
                       (data_objects/<attack_id>.json, the MIAResultSchema of leakpro/schemas.py)";
const FOLLOWS_OLD: &str = "aidotse/LeakPro's earlier layout: leakpro/metrics/attack_result.py MIAResult.save \
                           (<attack>/<id>/data.json)";

/// Keys only LeakPro's MIA results have together.
const SIGNATURE: [&str; 8] = [
    "signal_values",
    "true_labels",
    "roc_auc",
    "fixed_fpr",
    "result_type",
    "resulttype",
    "result_name",
    "resultname",
];

fn object<'p>(p: &'p Probe<'_>) -> Option<&'p serde_json::Map<String, Value>> {
    let o = p.json()?.as_object()?;
    let hits = SIGNATURE.iter().filter(|k| o.contains_key(**k)).count();
    (hits >= 3 || o.contains_key("signal_values") && o.contains_key("true_labels")).then_some(o)
}

/// The signals and labels of a LeakPro MIA result, or what is wrong with them.
fn signals(o: &serde_json::Map<String, Value>) -> Result<(Vec<f64>, Vec<f64>), String> {
    let kind = o
        .get("result_type")
        .or_else(|| o.get("resulttype"))
        .and_then(Value::as_str)
        .unwrap_or("MIAResult");
    if kind != "MIAResult" {
        return Err(format!(
            "it is a LeakPro `{kind}` result, which holds no membership signals; Lethe reads LeakPro's membership \
             inference results (result type MIAResult): open the data_objects file of a membership attack"
        ));
    }
    let values = match o.get("signal_values") {
        None => {
            return Err(
                "it has no `signal_values`; LeakPro (reporting/mia_result.py, June 2026) writes each sample's signal \
                 there: re-save the result with a current LeakPro"
                    .into(),
            );
        }
        Some(Value::Null) => {
            return Err(
                "its `signal_values` are null: the result was built from confusion counts only, so there are no \
                 per-sample signals to audit; build it with MIAResult.from_full_scores (or from_fixed_thresholds), \
                 which keeps the signals"
                    .into(),
            );
        }
        Some(v) => json_numbers(v).ok_or(
            "its `signal_values` is not a list of numbers (LeakPro writes one number per sample): re-save the result \
             with LeakPro's MIAResult.save",
        )?,
    };
    let labels = o.get("true_labels").and_then(json_numbers).ok_or(
        "its `true_labels` are missing or not a list of 0/1 numbers (LeakPro writes one per sample, 1 = member)",
    )?;
    if values.len() != labels.len() {
        return Err(format!(
            "it has {} signal values but {} true labels; LeakPro writes one of each per sample: re-save the result \
             from the same attack run",
            values.len(),
            labels.len()
        ));
    }
    if let Some(i) = labels.iter().position(|&l| l != 0.0 && l != 1.0) {
        return Err(format!(
            "its `true_labels` hold {} at position {i}, where LeakPro writes 1 (member) or 0 (non-member)",
            labels[i]
        ));
    }
    Ok((values, labels))
}

pub(super) fn detect(p: &Probe<'_>) -> Option<Result<Summary, String>> {
    let o = object(p)?;
    let (values, labels) = match signals(o) {
        Ok(v) => v,
        Err(e) => return Some(Err(e)),
    };
    let old = o.contains_key("resulttype") && !o.contains_key("result_type");
    let n = values.len() as u64;
    let (m, nm) = count_members(&labels);
    let name = o
        .get("result_name")
        .or_else(|| o.get("resultname"))
        .and_then(Value::as_str)
        .unwrap_or("the attack");
    let auc = o.get("roc_auc").and_then(Value::as_f64);
    let mut entries = vec![
        Entry {
            key: "signal_values".into(),
            shape: vec![n],
            what: format!("{name}'s signal for each sample (larger = member)"),
        },
        Entry {
            key: "true_labels".into(),
            shape: vec![n],
            what: "whether each sample was in the target model's training set (1 = member)".into(),
        },
        Entry {
            key: "members".into(),
            shape: vec![m as u64],
            what: "the signals of the members".into(),
        },
        Entry {
            key: "non_members".into(),
            shape: vec![nm as u64],
            what: "the signals of the non-members".into(),
        },
    ];
    // The ROC LeakPro stored, each list with its own length (a file edited by hand may hold lists of two lengths).
    {
        for (k, what) in [
            ("fpr", "LeakPro's ROC false-positive rates"),
            ("tpr", "its true-positive rates"),
        ] {
            let Some(n) = o
                .get(k)
                .and_then(json_numbers)
                .map(|v| v.len() as u64)
                .filter(|&n| n > 0)
            else {
                continue;
            };
            entries.push(Entry {
                key: k.into(),
                shape: vec![n],
                what: what.into(),
            });
        }
    }
    let mut warnings = Vec::new();
    if let Some(a) = auc {
        warnings.push(format!(
            "LeakPro's own AUC for this result is {a}; the membership audit recomputes it from the signals with an \
             interval"
        ));
    }
    if old {
        warnings.push(
            "this is the layout of earlier LeakPro releases (data.json with `resulttype`); its signals and labels \
             are read the same way"
                .into(),
        );
    }
    Some(Ok(Summary {
        tool: Tool::LeakPro,
        kind: "data_object".into(),
        follows: if old { FOLLOWS_OLD } else { FOLLOWS }.into(),
        description: format!(
            "a LeakPro membership-inference result of `{name}`: {n} samples' signals ({m} members, {nm} non-members)"
        ),
        samples: Some(n),
        models: vec!["the target model".into()],
        entries,
        offers: vec![Offer::new(
            "mia",
            format!("Membership audit of members vs non-members ({name}'s signals)"),
            &[
                ("scores", p.name, Some("signal_values")),
                ("labels", p.name, Some("true_labels")),
            ],
            options(&[]),
        )],
        warnings,
        files: Vec::new(),
    }))
}

pub(super) fn column(p: &Probe<'_>, key: &str) -> Option<Result<Matrix<f64>, String>> {
    if !matches!(
        key,
        "signal_values" | "true_labels" | "members" | "non_members" | "non-members"
    ) {
        return None;
    }
    let o = object(p)?;
    Some(signals(o).and_then(|(values, labels)| match key {
        "signal_values" => Ok(column_of(values)),
        "true_labels" => Ok(column_of(labels)),
        _ => split_by_labels(&values, &labels, key == "members", "true labels").map(column_of),
    }))
}
