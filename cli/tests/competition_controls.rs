//! Issue 22, item 3: the competition score with a baseline at the user's number of models, and the mistakes a new
//! user made with it refused or named — the same file in both slots (a perfect 1), a models × examples file given
//! transposed, class probabilities given as logits.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn lethe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn json(args: &[&str]) -> (Value, String) {
    let mut a = args.to_vec();
    a.push("--json");
    let out = lethe(&a);
    assert!(out.status.success(), "lethe {args:?} failed: {}", stderr(&out));
    (serde_json::from_slice(&out.stdout).unwrap(), stderr(&out))
}

fn refused(args: &[&str]) -> String {
    let out = lethe(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "lethe {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn npy(dir: &Path, name: &str, values: &[f64], shape: &[usize]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, lethe_analysis::npy::f64_bytes(values, shape)).unwrap();
    p.display().to_string()
}

/// `models × examples` logit-scaled confidences: a per-example level, per-model noise, and `lift` on odd examples.
fn confidences(models: usize, examples: usize, seed: usize, lift: f64) -> Vec<f64> {
    let mut v = Vec::with_capacity(models * examples);
    for m in 0..models {
        for e in 0..examples {
            let noise = (((m + seed * 97) * 31 + e * 7) as f64 * 0.618).sin();
            v.push(1.0 + 0.05 * e as f64 + noise + lift * (e % 2) as f64);
        }
    }
    v
}

fn codes(r: &Value) -> Vec<String> {
    r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_score_comes_with_what_a_perfect_unlearner_scores_with_as_many_models() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = npy(d, "r.npy", &confidences(16, 40, 1, 0.0), &[16, 40]);
    let u = npy(d, "u.npy", &confidences(16, 40, 2, 1.5), &[16, 40]);
    let (rep, _) = json(&["epsilon", "--retrained", &r, "--unlearned", &u]);
    let b = &rep["result"]["baseline"];
    assert_eq!(b["models_per_side"], 8, "{b}");
    assert_eq!(b["perfect"].as_array().unwrap().len(), 5);
    let (perfect, mine) = (
        b["perfect_mean"].as_f64().unwrap(),
        b["unlearned_mean"].as_f64().unwrap(),
    );
    assert!((0.0..=1.0).contains(&perfect) && (0.0..=1.0).contains(&mine), "{b}");
    // Unlearned models that differ from retraining score below what a perfect unlearner scores.
    assert!(mine < perfect, "{b}");
    let text = rep["headline"]["text"].as_str().unwrap();
    assert!(text.contains("At 8 models per side a perfect unlearner"), "{text}");
    assert!(!text.contains("the score to report"), "{text}");
    // Too few models to split: said, no baseline.
    let r4 = npy(d, "r4.npy", &confidences(4, 40, 1, 0.0), &[4, 40]);
    let u4 = npy(d, "u4.npy", &confidences(4, 40, 2, 1.5), &[4, 40]);
    let (rep, _) = json(&["epsilon", "--retrained", &r4, "--unlearned", &u4, "--eps-max", "6.5"]);
    assert!(rep["result"].get("baseline").is_none(), "{}", rep["result"]);
    assert!(
        rep["headline"]["text"].as_str().unwrap().contains("no baseline"),
        "{}",
        rep["headline"]
    );
}

#[test]
fn the_same_models_in_both_slots_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let v = confidences(16, 40, 1, 0.0);
    let r = npy(d, "r.npy", &v, &[16, 40]);
    let err = refused(&["epsilon", "--retrained", &r, "--unlearned", &r]);
    assert!(
        err.contains("[identical_inputs]") && err.contains("the same file given twice"),
        "{err}"
    );
    let copy = npy(d, "copy.npy", &v, &[16, 40]);
    let err = refused(&["epsilon", "--retrained", &r, "--unlearned", &copy]);
    assert!(
        err.contains("two copies of one file") && err.contains("perfect 1"),
        "{err}"
    );
}

#[test]
fn more_models_than_examples_is_named_as_a_possible_transpose() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 40 × 16: read as 40 models of 16 examples.
    let r = npy(d, "r_t.npy", &confidences(40, 16, 1, 0.0), &[40, 16]);
    let u = npy(d, "u_t.npy", &confidences(40, 16, 2, 1.5), &[40, 16]);
    let (rep, err) = json(&["epsilon", "--retrained", &r, "--unlearned", &u]);
    assert!(codes(&rep).contains(&"more_models_than_examples".to_string()), "{err}");
    assert!(err.contains("40 models × 16 examples") && err.contains("a.T"), "{err}");
    let r = npy(d, "r.npy", &confidences(16, 40, 1, 0.0), &[16, 40]);
    let u = npy(d, "u.npy", &confidences(16, 40, 2, 1.5), &[16, 40]);
    let (rep, _) = json(&["epsilon", "--retrained", &r, "--unlearned", &u]);
    assert!(!codes(&rep).contains(&"more_models_than_examples".to_string()));
}

#[test]
fn class_probabilities_given_as_logits_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (m, e, c) = (8, 20, 3);
    let logits: Vec<f64> = (0..m * e * c).map(|i| (i as f64 * 0.37).sin() * 2.0).collect();
    let softmax = |v: &[f64]| -> Vec<f64> {
        v.chunks(c)
            .flat_map(|row| {
                let s: f64 = row.iter().map(|x| x.exp()).sum();
                row.iter().map(move |x| x.exp() / s)
            })
            .collect()
    };
    let other: Vec<f64> = logits.iter().map(|x| x * 0.8 + 0.3).collect();
    let p = npy(d, "probs.npy", &softmax(&logits), &[m, e, c]);
    let p2 = npy(d, "probs2.npy", &softmax(&other), &[m, e, c]);
    let l = npy(d, "logits.npy", &other, &[m, e, c]);
    let labels = npy(
        d,
        "labels.npy",
        &(0..e).map(|i| (i % c) as f64).collect::<Vec<_>>(),
        &[e],
    );
    let err = refused(&[
        "epsilon",
        "--retrained-logits",
        &p,
        "--unlearned-logits",
        &l,
        "--labels",
        &labels,
    ]);
    assert!(
        err.contains("[probabilities_given_as_logits]") && err.contains("probs.npy"),
        "{err}"
    );
    assert!(
        err.contains("class probabilities (--retrained-probs) with the labels") && !err.contains("{opt:"),
        "{err}"
    );
    // Given as probabilities they are scored; logits are not mistaken for probabilities.
    json(&[
        "epsilon",
        "--retrained-probs",
        &p,
        "--unlearned-probs",
        &p2,
        "--labels",
        &labels,
    ]);
    let l0 = npy(d, "logits0.npy", &logits, &[m, e, c]);
    json(&[
        "epsilon",
        "--retrained-logits",
        &l0,
        "--unlearned-logits",
        &l,
        "--labels",
        &labels,
    ]);
}
