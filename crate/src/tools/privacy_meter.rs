//! ML Privacy Meter (privacytrustlab/ml_privacy_meter) files, as written by the version rewritten in October 2024
//! ("new version of ml privacy meter", commit 6896744) up to commit e384af8 (April 2025), the version read:
//!
//! * `report/exp/attack_result_<model>.npz` — `audit.py`, `get_audit_results`: `np.savez(fpr, tpr, auc,
//!   one_tenth_fpr, zero_fpr, scores=mia_scores.ravel(), memberships=target_memberships.ravel())`, where `fpr`,
//!   `tpr` come from `compute_attack_results` (scikit-learn's `roc_curve`, `auc`), `scores` are the attack's MIA
//!   scores (larger = member) and `memberships` the target model's 0/1 (boolean) membership of each sample.
//! * `report/exp/attack_result_average.npz` — `audit.py`, `get_average_audit_results`: the same keys over every
//!   target model's scores and memberships concatenated.
//! * `attack_result_average_dp.npz` — `audit.py`, `get_average_dp_audit_results`: `eps, correct_num, k_neg,
//!   k_pos, total_num, scores, memberships`.
//! * `signals/rmia_signals.npy` — `get_signals.py`, `get_model_signals`: `np.concatenate(signals, axis=1)`, samples ×
//!   models, each model's softmax probability of the true label; with `memberships.npy` — `models/utils.py`,
//!   `prepare_models`: `np.save(f"{log_dir}/memberships.npy", all_memberships)`, models × samples, boolean
//!   (`split_dataset_for_training`'s `master_keep`). Together (a dropped log folder, [`detect_set`]) they give each
//!   model's membership audit with its own signal as the score (higher = member: the confidence on the true label).
//!   Note that `attacks.py`'s `run_loss` negates the signal before scoring; the ranking Lethe offers is the
//!   confidence's own, in which members score higher.
//!
//! The earlier PyPI package `privacy-meter` 1.x (2022, `privacy_meter.audit`) wrote none of these files.
//!
//! Keys beyond the archive's own arrays: `#members` / `#non_members` (the scores of samples whose membership is 1 /
//! 0) of an attack result, and `#model=K` of the two .npy files (model K's column of the signals, its row of the
//! memberships as 0/1).

use super::{Entry, Offer, Probe, Summary, Tool, column_of, count_members, options, split_by_labels};
use crate::data::{Format, Matrix};

const FOLLOWS: &str = "privacytrustlab/ml_privacy_meter as rewritten in October 2024 (commit 6896744) up to \
                       e384af8 (April 2025): audit.py get_audit_results / get_average_audit_results (np.savez)";
const FOLLOWS_SIGNALS: &str = "privacytrustlab/ml_privacy_meter (commit e384af8, April 2025): get_signals.py \
                               get_model_signals (signals/rmia_signals.npy) and models/utils.py prepare_models \
                               (memberships.npy)";

/// The arrays `get_audit_results` writes beside `scores` and `memberships`.
const CURVE: [&str; 5] = ["fpr", "tpr", "auc", "one_tenth_fpr", "zero_fpr"];
/// The arrays `get_average_dp_audit_results` writes beside them.
const DP: [&str; 5] = ["eps", "correct_num", "k_neg", "k_pos", "total_num"];

fn shape(p: &Probe<'_>, name: &str) -> Vec<u64> {
    p.header(Some(name)).map(|a| a.shape.clone()).unwrap_or_default()
}

/// An attack result: `attack_result_*.npz`, `attack_result_average.npz`, `attack_result_average_dp.npz`.
pub(super) fn detect(p: &Probe<'_>) -> Option<Result<Summary, String>> {
    if p.format != Format::Npz {
        return None;
    }
    let members = p.members();
    let has = |k: &str| members.contains(&k);
    let curve = CURVE.iter().filter(|k| has(k)).count();
    let dp = DP.iter().filter(|k| has(k)).count();
    let both = has("scores") && has("memberships");
    if curve < 3 && dp < 3 && !(both && (curve > 0 || dp > 0)) {
        return None;
    }
    let dp_file = dp >= curve;
    let expected: Vec<&str> = if dp_file { DP.to_vec() } else { CURVE.to_vec() };
    let mut missing: Vec<&str> = expected.iter().copied().filter(|k| !has(k)).collect();
    missing.extend(["scores", "memberships"].into_iter().filter(|k| !has(k)));
    if missing.iter().any(|k| *k == "scores" || *k == "memberships") {
        return Some(Err(format!(
            "it lacks {} that ML Privacy Meter's audit (since its October 2024 rewrite) saves beside the ROC; the \
             membership audit needs the per-sample scores and memberships: re-run the audit with the current \
             ml_privacy_meter (audit.py saves them in attack_result_*.npz), or give the scores and 0/1 labels as two \
             files (`lethe mia --scores FILE --labels FILE`)",
            list(&missing)
        )));
    }
    let scores_shape = shape(p, "scores");
    let labels_shape = shape(p, "memberships");
    if scores_shape.len() != 1 || labels_shape.len() != 1 || scores_shape != labels_shape {
        return Some(Err(format!(
            "its `scores` have shape {scores_shape:?} and its `memberships` {labels_shape:?}; ML Privacy Meter saves \
             both flattened, one value per sample, of one length (audit.py: `scores=mia_scores.ravel()`, \
             `memberships=target_memberships.ravel()`): re-save them with `.ravel()`"
        )));
    }
    let labels = match p.array(Some("memberships")) {
        Ok(m) => m.into_vec(),
        Err(e) => return Some(Err(format!("its memberships cannot be read: {e}"))),
    };
    if let Some(i) = labels.iter().position(|&l| l != 0.0 && l != 1.0) {
        return Some(Err(format!(
            "its `memberships` hold {} at position {i}; ML Privacy Meter writes them as booleans (member or not): \
             re-save them as 0/1 or True/False",
            labels[i]
        )));
    }
    let n = scores_shape[0];
    let (m, nm) = count_members(&labels);
    let mut entries = vec![
        Entry {
            key: "scores".into(),
            shape: scores_shape.clone(),
            what: "the attack's membership score of each sample (larger = member)".into(),
        },
        Entry {
            key: "memberships".into(),
            shape: labels_shape,
            what: "whether each sample was in the target model's training set (1 = member)".into(),
        },
        Entry {
            key: "members".into(),
            shape: vec![m as u64],
            what: "the scores of the members".into(),
        },
        Entry {
            key: "non_members".into(),
            shape: vec![nm as u64],
            what: "the scores of the non-members".into(),
        },
    ];
    let described: &[(&str, &str)] = if dp_file {
        &[
            (
                "eps",
                "the one-run DP audit's epsilon lower bound for each number of guesses",
            ),
            ("correct_num", "correct guesses for each number of guesses"),
            ("k_neg", "guesses of non-membership"),
            ("k_pos", "guesses of membership"),
            ("total_num", "guesses made"),
        ]
    } else {
        &[
            (
                "fpr",
                "the ROC's false-positive rates as ML Privacy Meter computed them (scikit-learn roc_curve)",
            ),
            ("tpr", "the ROC's true-positive rates"),
            ("auc", "the AUC ML Privacy Meter computed"),
            ("one_tenth_fpr", "its TPR at 0.1% FPR"),
            ("zero_fpr", "its TPR at 0% FPR"),
        ]
    };
    for (k, what) in described {
        entries.push(Entry {
            key: (*k).into(),
            shape: shape(p, k),
            what: (*what).into(),
        });
    }
    let kind = if dp_file { "attack_result_dp" } else { "attack_result" };
    let description = format!(
        "{} of ML Privacy Meter: {n} samples' membership scores ({m} members, {nm} non-members) of one target model, or \
         of several concatenated (attack_result_average)",
        if dp_file {
            "a one-run DP audit result"
        } else {
            "an attack result"
        }
    );
    let offers = vec![Offer::new(
        "mia",
        "Membership audit of members vs non-members",
        &[
            ("scores", p.name, Some("scores")),
            ("labels", p.name, Some("memberships")),
        ],
        options(&[]),
    )];
    let mut warnings = Vec::new();
    if !dp_file {
        warnings.push(
            "the file's own AUC and TPRs are ML Privacy Meter's; the membership audit recomputes them from the scores \
             with intervals"
                .to_string(),
        );
    }
    Some(Ok(Summary {
        tool: Tool::PrivacyMeter,
        kind: kind.into(),
        follows: FOLLOWS.into(),
        description,
        samples: Some(n),
        models: vec!["the target model(s) audited".into()],
        entries,
        offers,
        warnings,
        files: Vec::new(),
    }))
}

fn list(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    match quoted.as_slice() {
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
        [] => String::new(),
    }
}

/// `model=K` → `Some(K)`.
fn model_key(key: &str) -> Option<&str> {
    key.strip_prefix("model=")
}

pub(super) fn column(p: &Probe<'_>, key: &str) -> Option<Result<Matrix<f64>, String>> {
    match key {
        "members" | "non_members" | "non-members" => {
            if p.format != Format::Npz {
                return None;
            }
            let m = p.members();
            if !(m.contains(&"scores") && m.contains(&"memberships")) {
                return None;
            }
            Some((|| {
                let scores = p.array(Some("scores"))?.into_vec();
                let labels = p.array(Some("memberships"))?.into_vec();
                split_by_labels(&scores, &labels, key == "members", "memberships").map(column_of)
            })())
        }
        _ => {
            let k = model_key(key)?;
            if p.format != Format::Npy {
                return None;
            }
            let h = p.header(None)?;
            if h.shape.len() != 2 {
                return Some(Err(format!(
                    "`#model=K` reads one model of ML Privacy Meter's signals (samples × models) or memberships \
                     (models × samples), but this array has shape {:?}",
                    h.shape
                )));
            }
            let bool_rows = h.dtype == "bool";
            let Ok(k) = k.parse::<usize>() else {
                return Some(Err(format!(
                    "`model={k}` is not a model number: write `#model=0`, `#model=1`, ..."
                )));
            };
            let models = if bool_rows { h.shape[0] } else { h.shape[1] };
            if k as u64 >= models {
                return Some(Err(format!(
                    "it holds {models} models ({}), so `model={k}` is past the last; models are numbered from 0",
                    if bool_rows {
                        "rows of memberships"
                    } else {
                        "columns of signals"
                    }
                )));
            }
            Some((|| {
                let m = p.array(None)?;
                let v: Vec<f64> = if bool_rows {
                    m.row(k).to_vec()
                } else {
                    (0..m.rows()).map(|i| m.row(i)[k]).collect()
                };
                Ok(column_of(v))
            })())
        }
    }
}

/// A log folder: `memberships.npy` (models × samples, boolean) with `signals/rmia_signals.npy` (samples × models).
pub(super) fn detect_set(probes: &[Probe<'_>]) -> Option<Result<Summary, String>> {
    let two_d = |p: &&Probe<'_>| {
        p.format == Format::Npy
            && p.header(None)
                .is_some_and(|h| h.shape.len() == 2 && h.problem.is_none())
    };
    let memberships: Vec<&Probe<'_>> = probes
        .iter()
        .filter(two_d)
        .filter(|p| p.header(None).is_some_and(|h| h.dtype == "bool"))
        .collect();
    let signals: Vec<&Probe<'_>> = probes
        .iter()
        .filter(two_d)
        .filter(|p| p.header(None).is_some_and(|h| h.dtype.starts_with("float")))
        .collect();
    let (mem, _) = (memberships.first()?, signals.first()?);
    let ms = mem.header(None)?.shape.clone();
    let Some(sig) = signals.iter().find(|s| {
        s.header(None)
            .is_some_and(|h| h.shape[0] == ms[1] && h.shape[1] == ms[0])
    }) else {
        let found: Vec<String> = signals
            .iter()
            .filter_map(|s| s.header(None).map(|h| format!("`{}` {:?}", s.name, h.shape)))
            .collect();
        return Some(Err(format!(
            "its memberships `{}` are {} models × {} samples, and no signals file is {} samples × {} models (found {}); \
             ML Privacy Meter's signals/rmia_signals.npy holds one column per model of the same run: drop the \
             memberships.npy and the signals of one run together",
            mem.name,
            ms[0],
            ms[1],
            ms[1],
            ms[0],
            found.join(", ")
        )));
    };
    let (models, n) = (ms[0], ms[1]);
    let offers: Vec<Offer> = (0..models.min(8))
        .map(|k| {
            let key = format!("model={k}");
            Offer::new(
                "mia",
                format!("Membership audit of model {k} (its confidence on the true label as the score)"),
                &[("scores", sig.name, Some(&key)), ("labels", mem.name, Some(&key))],
                options(&[]),
            )
        })
        .collect();
    let mut warnings = Vec::new();
    if models > 8 {
        warnings.push(format!(
            "{models} models: the first 8 are offered; `#model=K` reads any of them (K from 0 to {})",
            models - 1
        ));
    }
    Some(Ok(Summary {
        tool: Tool::PrivacyMeter,
        kind: "signals".into(),
        follows: FOLLOWS_SIGNALS.into(),
        description: format!(
            "the signals of an ML Privacy Meter run: {models} models on {n} samples (each model's softmax probability of the true \
             label), with which samples each model trained on"
        ),
        samples: Some(n),
        models: (0..models).map(|k| format!("model {k}")).collect(),
        entries: vec![
            Entry {
                key: format!("{}#model=K", sig.name),
                shape: vec![n],
                what: "model K's signal on every sample".into(),
            },
            Entry {
                key: format!("{}#model=K", mem.name),
                shape: vec![n],
                what: "whether each sample was in model K's training set (1 = member)".into(),
            },
        ],
        offers,
        warnings,
        files: vec![sig.name.to_string(), mem.name.to_string()],
    }))
}
