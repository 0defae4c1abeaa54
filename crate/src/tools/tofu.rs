//! The original TOFU repository's evaluation logs (locuslab/tofu): `eval_results/*/eval_log*.json`,
//! `eval_real_author_wo_options.json`, `eval_real_world_wo_options.json` and `eval_log_aggregated.json`.
//!
//! The version read is locuslab/tofu at commit bdc209e (2025-02-25). The writer is `evaluate_util.py`, `main`:
//! for each eval task `json.dump(eval_logs, f, indent=4)` to `<save_dir>/<eval_task>.json`, and all of them as
//! `{"<eval_task>.json": eval_logs}` to `eval_log_aggregated.json`. `eval_logs` maps each statistic to
//! `{"<data index>": value}` (`get_all_evals`: `avg_gt_loss`, `gt_loss`, `num_token_gt`, `generated_text` =
//! `[input, generation, ground truth]`, `rouge1_recall`, `rougeL_recall`; `eval_perturbation_ratio`:
//! `average_perturb_loss` and `perturb_loss` (lists, one per perturbed answer), `avg_paraphrased_loss`,
//! `paraphrased_loss`, `truth_ratio`, `num_token_paraphrased`, `num_token_perturb`; `normalized_gt_loss` for the
//! multiple-choice tasks).
//!
//! Forget quality as TOFU computes it (`aggregate_eval_stat.py`, `get_forget_quality`): the truth ratios
//! `exp(mean(average_perturb_loss) − avg_paraphrased_loss)` of the forget log (`eval_log_forget.json`) of the
//! unlearned and the retain model, compared with `ks_2samp`; [`truth_ratios`] computes them that way.
//!
//! Keys (`PATH#KEY`): `STAT` (one row per sample in index order; lists give one column per answer), and in the
//! aggregated file `TASK/STAT` (e.g. `eval_log_forget.json/rougeL_recall`).

use serde_json::{Map, Value};

use super::open_unlearning::{by_index, number, shell};
use super::{Entry, Offer, Probe, Summary, Tool, options};
use crate::data::Matrix;

/// The writer this reader follows.
pub const FOLLOWS: &str = "locuslab/tofu at bdc209e (2025-02-25): evaluate_util.py main (eval_results/*/<eval_task>.json \
                           and eval_log_aggregated.json, from get_all_evals and eval_perturbation_ratio)";

/// One eval task of a file: its name in an aggregated file (`None` for a single log), its statistics, and the
/// most samples any of them has.
pub type Task = (Option<String>, Vec<String>, usize);

/// Statistics TOFU's evaluation writes.
const STATS: &[&str] = &[
    "avg_gt_loss",
    "gt_loss",
    "num_token_gt",
    "generated_text",
    "rouge1_recall",
    "rougeL_recall",
    "average_perturb_loss",
    "avg_paraphrased_loss",
    "truth_ratio",
    "paraphrased_loss",
    "perturb_loss",
    "num_token_paraphrased",
    "num_token_perturb",
    "normalized_gt_loss",
];

fn is_log(o: &Map<String, Value>) -> bool {
    o.keys().filter(|k| STATS.contains(&k.as_str())).count() >= 2
}

/// One eval task's log inside a file: the log itself, or the aggregated file's `task` entry.
fn log<'v>(v: &'v Value, task: Option<&str>) -> Result<&'v Map<String, Value>, String> {
    let o = v.as_object().ok_or("the file is not a TOFU evaluation log")?;
    if is_log(o) {
        return Ok(o);
    }
    let task = task.unwrap_or("eval_log_forget.json");
    o.get(task)
        .and_then(Value::as_object)
        .filter(|l| is_log(l))
        .ok_or_else(|| {
            let names: Vec<&str> = o.keys().map(String::as_str).collect();
            format!("the aggregated log has no task `{task}`; it has {}", names.join(", "))
        })
}

/// Reads a TOFU log from its parsed JSON: `None` when it is not one; `Some(Err)` when almost.
///
/// Returns the tasks (`None` for a single task's log) with their statistics and sample counts.
pub fn read(v: &Value) -> Option<Result<Vec<Task>, String>> {
    let o = v.as_object()?;
    if is_log(o) {
        return Some(stats_of(None, o).map(|t| vec![t]));
    }
    if !o.is_empty() && o.keys().all(|k| k.ends_with(".json")) && o.values().any(|x| x.as_object().is_some_and(is_log))
    {
        let mut tasks = Vec::new();
        for (k, x) in o {
            let Some(l) = x.as_object().filter(|l| is_log(l)) else {
                return Some(Err(format!(
                    "`{k}` of the aggregated log is not an evaluation log (TOFU writes each task's statistics there, \
                     keyed by sample index)"
                )));
            };
            match stats_of(Some(k), l) {
                Ok(t) => tasks.push(t),
                Err(e) => return Some(Err(e)),
            }
        }
        return Some(Ok(tasks));
    }
    None
}

fn stats_of(task: Option<&str>, o: &Map<String, Value>) -> Result<Task, String> {
    let at = |s: &str| task.map_or(format!("`{s}`"), |t| format!("`{t}` → `{s}`"));
    let mut n = 0;
    for (k, x) in o {
        let m = x.as_object().ok_or_else(|| {
            format!(
                "{} is {} where TOFU writes {{\"<sample index>\": value}} (evaluate_util.py get_all_evals)",
                at(k),
                if x.is_array() { "a list" } else { "not an object" }
            )
        })?;
        n = n.max(m.len());
    }
    Ok((task.map(str::to_string), o.keys().cloned().collect(), n))
}

/// Statistic `stat` of the log (of task `task` in an aggregated file), one row per sample in index order.
///
/// # Errors
/// No such statistic, text, lists of different lengths.
pub fn stat(v: &Value, task: Option<&str>, stat: &str) -> Result<Matrix<f64>, String> {
    let l = log(v, task)?;
    let m = l.get(stat).and_then(Value::as_object).ok_or_else(|| {
        format!(
            "the log has no statistic `{stat}`; it has {}",
            l.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
        )
    })?;
    let rows = by_index(m);
    let width = rows
        .iter()
        .map(|(_, x)| if let Value::Array(a) = x { a.len() } else { 1 })
        .max()
        .unwrap_or(1);
    let mut data = Vec::with_capacity(rows.len() * width);
    for (idx, x) in &rows {
        let vals: Vec<&Value> = match x {
            Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        if vals.len() != width {
            return Err(format!(
                "`{stat}` → `{idx}` holds {} values where other samples hold {width}",
                vals.len()
            ));
        }
        for y in vals {
            data.push(number(y).ok_or_else(|| {
                format!("`{stat}` → `{idx}` is not a number (generated_text is text: read by ROUGE)")
            })?);
        }
    }
    Matrix::from_vec(rows.len(), width, data).map_err(|e| e.to_string())
}

/// The truth ratios TOFU's forget quality compares (`aggregate_eval_stat.py` `get_forget_quality`):
/// `exp(mean(average_perturb_loss) − avg_paraphrased_loss)` per sample, in index order, from the forget log
/// (`eval_log_forget.json`, or that task of an aggregated file).
///
/// # Errors
/// Missing statistics, or indices that differ between the two.
pub fn truth_ratios(v: &Value) -> Result<Vec<f64>, String> {
    let l = log(v, Some("eval_log_forget.json"))?;
    let need = |s: &str| {
        l.get(s).and_then(Value::as_object).ok_or_else(|| {
            format!(
                "the log has no `{s}`; TOFU's forget quality needs `avg_paraphrased_loss` and `average_perturb_loss`, \
                 which evaluate_util.py writes for the forget task (eval_log_forget.json)"
            )
        })
    };
    let para = need("avg_paraphrased_loss")?;
    let pert = need("average_perturb_loss")?;
    let mut out = Vec::with_capacity(para.len());
    for (idx, p) in by_index(para) {
        let q = pert
            .get(idx)
            .ok_or_else(|| format!("`average_perturb_loss` has no sample `{idx}` (`avg_paraphrased_loss` has)"))?;
        let losses: Vec<f64> = match q {
            Value::Array(a) => a.iter().map(number).collect::<Option<Vec<f64>>>(),
            other => number(other).map(|x| vec![x]),
        }
        .ok_or_else(|| format!("`average_perturb_loss` → `{idx}` is not a list of numbers"))?;
        let mean = losses.iter().sum::<f64>() / losses.len() as f64;
        let p = number(p).ok_or_else(|| format!("`avg_paraphrased_loss` → `{idx}` is not a number"))?;
        out.push((mean - p).exp());
    }
    Ok(out)
}

/// Generations and ground truths (`generated_text` = `[input, generation, ground truth]` per sample).
///
/// # Errors
/// No `generated_text`, or an entry not of three texts.
pub fn generations(v: &Value, task: Option<&str>) -> Result<Vec<(String, String)>, String> {
    let l = log(v, task)?;
    let g = l
        .get("generated_text")
        .and_then(Value::as_object)
        .ok_or("the log has no `generated_text`")?;
    by_index(g)
        .into_iter()
        .map(|(idx, x)| match x.as_array().map(Vec::as_slice) {
            Some([_, Value::String(generation), Value::String(gt)]) => Ok((generation.clone(), gt.clone())),
            _ => Err(format!(
                "`generated_text` → `{idx}` is not [input, generation, ground truth] (three texts, as \
                 evaluate_util.py writes)"
            )),
        })
        .collect()
}

pub(super) fn detect(p: &Probe<'_>) -> Option<Result<Summary, String>> {
    let v = p.json()?;
    let tasks = match read(v)? {
        Ok(t) => t,
        Err(e) => return Some(Err(e)),
    };
    let mut entries = Vec::new();
    let mut offers = Vec::new();
    let mut samples = 0u64;
    for (task, stats, n) in &tasks {
        samples = samples.max(*n as u64);
        let prefix = task.as_ref().map_or(String::new(), |t| format!("{t}/"));
        for s in stats {
            entries.push(Entry {
                key: format!("{prefix}{s}"),
                shape: vec![*n as u64],
                what: format!(
                    "TOFU's per-sample `{s}`{}",
                    task.as_ref().map_or(String::new(), |t| format!(" of {t}"))
                ),
            });
            if s == "rougeL_recall" {
                let key = format!("{prefix}{s}");
                let mut o = Offer::new(
                    "bounds",
                    format!(
                        "Leakage bounds on the per-sample ROUGE-L recall{}",
                        task.as_ref().map_or(String::new(), |t| format!(" of {t}"))
                    ),
                    &[("scores", p.name, Some(&key))],
                    options(&[]),
                );
                o.cli = format!("lethe bounds {}", shell(&format!("{}#{key}", p.name)));
                offers.push(o);
            }
        }
        let forget = task.as_deref().is_none_or(|t| t == "eval_log_forget.json");
        if forget
            && stats.iter().any(|s| s == "average_perturb_loss")
            && stats.iter().any(|s| s == "avg_paraphrased_loss")
        {
            let mut o = Offer::new(
                "forget-quality",
                "Forget quality as TOFU computes it (KS test of the truth ratios against the retain model's; needs \
                 the retain model's forget log)",
                &[("unlearned", p.name, None)],
                options(&[]),
            );
            o.cli.push_str(" --retain RETAIN_MODEL_eval_log_forget.json");
            offers.push(o);
        }
    }
    let kind = if tasks.len() > 1 || tasks.first().is_some_and(|t| t.0.is_some()) {
        "eval_log_aggregated"
    } else {
        "eval_log"
    };
    Some(Ok(Summary {
        tool: Tool::Tofu,
        kind: kind.into(),
        follows: FOLLOWS.into(),
        description: format!(
            "TOFU evaluation log: {} task(s), {} statistics, up to {samples} samples",
            tasks.len(),
            tasks.iter().map(|t| t.1.len()).sum::<usize>()
        ),
        samples: Some(samples),
        models: vec!["the evaluated model".into()],
        entries,
        offers,
        warnings: Vec::new(),
        files: Vec::new(),
    }))
}

/// Reads `key` (`STAT` or `TASK/STAT`) from a parsed TOFU log; `None` when the file is not one or the key names
/// no statistic of it.
pub fn column_of_value(v: &Value, key: &str) -> Option<Result<Matrix<f64>, String>> {
    read(v)?.ok()?;
    let (task, s) = match key.rsplit_once('/') {
        Some((t, s)) => (Some(t), s),
        None => (None, key),
    };
    let l = log(v, task).ok()?;
    l.contains_key(s).then(|| stat(v, task, s))
}

pub(super) fn column(p: &Probe<'_>, key: &str) -> Option<Result<Matrix<f64>, String>> {
    column_of_value(p.json()?, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_forget_log_and_its_truth_ratios() {
        let v: Value = serde_json::from_str(
            r#"{"avg_paraphrased_loss": {"0": 1.0, "1": 2.0}, "average_perturb_loss": {"0": [1.5, 2.5], "1": [2.0, 2.0]},
                "rougeL_recall": {"0": 0.5, "1": 1.0}, "generated_text": {"0": ["q", "g", "t"], "1": ["q", "g2", "t2"]}}"#,
        )
        .unwrap();
        let t = read(&v).unwrap().unwrap();
        assert_eq!(t[0].2, 2);
        let tr = truth_ratios(&v).unwrap();
        assert_eq!(tr, vec![1f64.exp(), 0f64.exp()]);
        let m = column_of_value(&v, "average_perturb_loss").unwrap().unwrap();
        assert_eq!((m.rows(), m.cols()), (2, 2));
        assert_eq!(generations(&v, None).unwrap()[1], ("g2".to_string(), "t2".to_string()));
        let agg = serde_json::json!({"eval_log_forget.json": v});
        assert_eq!(truth_ratios(&agg).unwrap().len(), 2);
        assert!(column_of_value(&agg, "eval_log_forget.json/rougeL_recall").is_some());
    }
}
