//! MUSE's privleak logs (the MUSE benchmark, swj0419/muse_bench): `<temp_dir>/<model>/privleak/log.json` and
//! `privleak/auc.json`.
//!
//! The version read is swj0419/muse_bench at commit fcd6651 (2025-03-13). The writer is `eval.py`, `eval_model`:
//! `auc, log = eval_privleak(...)` (`metrics/privleak.py`, `eval`) then `write_json(auc, ".../privleak/auc.json")`
//! and `write_json(log, ".../privleak/log.json")` (`utils.py`, `json.dump`). `log` is `{"forget": [...],
//! "retain": [...], "holdout": [...]}`, each entry `{"text": ..., "PPL": ..., "PPL/lower": ..., "PPL/zlib": ...,
//! "Min-5%": ..., ..., "Min-60%": ...}` (`metrics/privleak.py` `eval_data` / `inference`: losses and min-k%
//! scores, higher = less likely a member). `auc` is `{"<split0>_<split1>_<type>": AUC}` for every pair of splits,
//! with split0 the non-members and split1 the members and the score negated (`sweep`: `roc_curve(y, -ppl)`);
//! MUSE reports `privleak = (auc[forget_holdout_Min-40%] − AUC_RETRAIN) / AUC_RETRAIN · 100` with `AUC_RETRAIN`
//! the retrained model's AUC (`constants.py`: 0.4772 for news, 0.5393 for books).
//!
//! The earlier layout (jaechan-repo/muse_bench at 54719c5, `privleak/scripts/get_ppl.py`) wrote one file per
//! split — a list at the top level, read as plain data — and an `auc.json` nested as
//! `{"<split0>_<split1>": {"<type>": AUC}}`; that `auc.json` is read too.
//!
//! Keys (`PATH#KEY`): `SPLIT/TYPE` of a log (`forget/Min-40%`: one row per text), and an AUC's name of an
//! `auc.json` (`forget_holdout_Min-40%`).

use serde_json::{Map, Value};

use super::open_unlearning::{number, shell};
use super::{Entry, Offer, Probe, Summary, Tool, column_of, options};
use crate::data::Matrix;

/// The writer this reader follows.
pub const FOLLOWS: &str = "swj0419/muse_bench at fcd6651 (2025-03-13): eval.py eval_model writing privleak/log.json and \
                           privleak/auc.json from metrics/privleak.py eval";

/// The retrained models' AUCs MUSE compares with (`constants.py` `AUC_RETRAIN[corpus]["forget_holdout_Min-40%"]`).
pub const AUC_RETRAIN_NEWS: f64 = 0.47719999999999996;
pub const AUC_RETRAIN_BOOKS: f64 = 0.5392999999999999;

const SPLITS: [&str; 3] = ["forget", "retain", "holdout"];

fn log_obj(v: &Value) -> Option<&Map<String, Value>> {
    let o = v.as_object()?;
    let lists = SPLITS
        .iter()
        .filter(|s| o.get(**s).is_some_and(Value::is_array))
        .count();
    let first_ok = o
        .values()
        .filter_map(Value::as_array)
        .filter_map(|a| a.first())
        .any(|e| e.get("text").is_some() && (e.get("PPL").is_some() || e.get("Min-40%").is_some()));
    (lists >= 2 && first_ok).then_some(o)
}

fn is_auc_key(k: &str) -> bool {
    let mut parts = k.splitn(3, '_');
    let (a, b) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let split = |s: &str| SPLITS.contains(&s) || s == "retain2";
    split(a) && split(b)
}

/// `auc.json` as `{name: AUC}` (flat, or the earlier nested layout flattened to `split0_split1_type`).
fn aucs(v: &Value) -> Option<Vec<(String, f64)>> {
    let o = v.as_object()?;
    if o.is_empty() || !o.keys().all(|k| is_auc_key(k)) {
        return None;
    }
    let mut out = Vec::new();
    for (k, x) in o {
        match x {
            Value::Object(inner) => {
                for (t, a) in inner {
                    out.push((format!("{k}_{t}"), number(a)?));
                }
            }
            other => out.push((k.clone(), number(other)?)),
        }
    }
    Some(out)
}

/// The scores of type `kind` (`PPL`, `Min-40%`, ...) of split `split` of a privleak `log.json`, one per text.
///
/// # Errors
/// Not a log, no such split or score type.
pub fn scores(v: &Value, split: &str, kind: &str) -> Result<Vec<f64>, String> {
    let o = log_obj(v).ok_or("the file is not a MUSE privleak log (forget/retain/holdout lists of scored texts)")?;
    let a = o
        .get(split)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("the log has no split `{split}`; MUSE writes forget, retain and holdout"))?;
    a.iter()
        .enumerate()
        .map(|(i, e)| {
            e.get(kind).and_then(number).ok_or_else(|| {
                let types: Vec<&str> = e
                    .as_object()
                    .map(|m| m.keys().map(String::as_str).filter(|k| *k != "text").collect())
                    .unwrap_or_default();
                format!(
                    "`{split}` → [{i}] has no numeric `{kind}`; the score types are {}",
                    types.join(", ")
                )
            })
        })
        .collect()
}

/// An AUC of an `auc.json` by name (`forget_holdout_Min-40%`).
pub fn auc(v: &Value, name: &str) -> Option<f64> {
    aucs(v)?.into_iter().find(|(k, _)| k == name).map(|(_, a)| a)
}

fn types_of(o: &Map<String, Value>) -> Vec<String> {
    o.get("forget")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
        .and_then(Value::as_object)
        .map(|m| m.keys().filter(|k| *k != "text").cloned().collect())
        .unwrap_or_default()
}

pub(super) fn detect(p: &Probe<'_>) -> Option<Result<Summary, String>> {
    let v = p.json()?;
    if let Some(o) = log_obj(v) {
        let types = types_of(o);
        let mut entries = Vec::new();
        let mut samples = 0u64;
        for s in SPLITS {
            let Some(a) = o.get(s).and_then(Value::as_array) else {
                return Some(Err(format!(
                    "it has no `{s}` list; MUSE's privleak log holds forget, retain and holdout (metrics/privleak.py \
                     eval): re-run the privleak evaluation"
                )));
            };
            samples += a.len() as u64;
            for t in &types {
                entries.push(Entry {
                    key: format!("{s}/{t}"),
                    shape: vec![a.len() as u64],
                    what: format!("`{t}` of each {s} text (higher = less likely a member)"),
                });
            }
        }
        if let Err(e) = scores(v, "forget", "Min-40%").and(scores(v, "holdout", "Min-40%")) {
            return Some(Err(format!(
                "{e}; MUSE's privleak uses Min-40% of the forget and holdout texts: re-run with the current \
                 metrics/privleak.py"
            )));
        }
        let mut audit = Offer::new(
            "mia",
            "Membership audit of forget vs holdout (Min-40%, MUSE's privleak attack)",
            &[
                ("members", p.name, Some("forget/Min-40%")),
                ("non_members", p.name, Some("holdout/Min-40%")),
            ],
            options(&[("lower_is_member", Value::Bool(true))]),
        );
        // `lethe mia` takes members and non-members as positional arguments
        audit.cli = format!(
            "lethe mia {} {} --lower-is-member",
            shell(&format!("{}#forget/Min-40%", p.name)),
            shell(&format!("{}#holdout/Min-40%", p.name))
        );
        let offers = vec![audit, {
            let mut o = Offer::new(
                "privleak",
                "privleak (MUSE's formula) with a bootstrap interval; needs the retrained model's log.json (or \
                     the corpus for MUSE's constant)",
                &[("unlearned", p.name, None)],
                options(&[]),
            );
            o.cli.push_str(" --retain RETRAINED_MODEL_log.json");
            o
        }];
        return Some(Ok(Summary {
            tool: Tool::Muse,
            kind: "privleak_log".into(),
            follows: FOLLOWS.into(),
            description: format!(
                "MUSE privleak log: {samples} texts in forget, retain and holdout, scored by {}",
                types.join(", ")
            ),
            samples: Some(samples),
            models: vec!["the evaluated model".into()],
            entries,
            offers,
            warnings: Vec::new(),
            files: Vec::new(),
        }));
    }
    let a = aucs(v)?;
    let entries = a
        .iter()
        .map(|(k, x)| Entry {
            key: k.clone(),
            shape: vec![],
            what: format!("AUC {x}"),
        })
        .collect();
    Some(Ok(Summary {
        tool: Tool::Muse,
        kind: "privleak_auc".into(),
        follows: FOLLOWS.into(),
        description: format!("MUSE privleak AUCs: {} split pairs × score types", a.len()),
        samples: None,
        models: vec!["the evaluated model".into()],
        entries,
        offers: vec![{
            let mut o = Offer::new(
                "privleak",
                "privleak (MUSE's formula) from the forget/holdout Min-40% AUC; needs the retrained model's auc.json \
                 (or the corpus for MUSE's constant)",
                &[("unlearned", p.name, None)],
                options(&[]),
            );
            o.cli.push_str(" --retain RETRAINED_MODEL_auc.json");
            o
        }],
        warnings: Vec::new(),
        files: Vec::new(),
    }))
}

/// Reads `key` of a parsed MUSE file; `None` when it is not one or the key names nothing in it.
pub fn column_of_value(v: &Value, key: &str) -> Option<Result<Matrix<f64>, String>> {
    if log_obj(v).is_some() {
        let (split, kind) = key.split_once('/')?;
        return Some(scores(v, split, kind).map(column_of));
    }
    auc(v, key).map(|a| Ok(column_of(vec![a])))
}

pub(super) fn column(p: &Probe<'_>, key: &str) -> Option<Result<Matrix<f64>, String>> {
    column_of_value(p.json()?, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_logs_and_both_auc_layouts() {
        let v: Value = serde_json::from_str(
            r#"{"forget": [{"text": "a", "PPL": 2.0, "Min-40%": 1.5}], "retain": [{"text": "b", "PPL": 3.0, "Min-40%": 2.5}],
                "holdout": [{"text": "c", "PPL": 4.0, "Min-40%": 3.5}, {"text": "d", "PPL": 5.0, "Min-40%": 4.5}]}"#,
        )
        .unwrap();
        assert_eq!(scores(&v, "holdout", "Min-40%").unwrap(), vec![3.5, 4.5]);
        assert!(scores(&v, "holdout", "Min-20%").unwrap_err().contains("Min-40%"));
        let flat: Value =
            serde_json::from_str(r#"{"forget_holdout_Min-40%": 0.25, "holdout_forget_PPL": 0.5}"#).unwrap();
        assert_eq!(auc(&flat, "forget_holdout_Min-40%"), Some(0.25));
        let nested: Value = serde_json::from_str(r#"{"forget_holdout": {"Min-40%": 0.25}}"#).unwrap();
        assert_eq!(auc(&nested, "forget_holdout_Min-40%"), Some(0.25));
        let not: Value = serde_json::from_str(r#"{"a_b": 1}"#).unwrap();
        assert!(aucs(&not).is_none());
    }
}
