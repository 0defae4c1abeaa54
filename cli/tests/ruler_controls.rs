//! RULER's controls from the user's own inputs (issue 22 item 2, issue 24 item 4), through the `lethe` binary: the
//! original model as m4's positive control, identical models named, a metric constant across runs not tested
//! while the others are, and the same rows for forget and retain. On the built-in digits example (MLP
//! activations: examples/data/digits) and on embeddings written here whose truth is known by construction.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn demo(file: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/digits")
        .join(file)
        .display()
        .to_string()
}

fn lethe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

/// Runs with `--json`, expecting success; the report and stderr. Every report is checked for NaN and ±inf.
fn json(args: &[&str]) -> (Value, String) {
    let mut a = args.to_vec();
    a.push("--json");
    let out = lethe(&a);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "lethe {args:?} failed: {err}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    no_non_numbers(&report, "report");
    (report, err)
}

/// Fails on a NaN or ±inf anywhere in a report (serde writes them as strings, or as null where a number was due).
fn no_non_numbers(v: &Value, at: &str) {
    match v {
        Value::String(s) => assert!(
            !["NaN", "nan", "inf", "-inf", "Infinity", "-Infinity"].contains(&s.as_str()),
            "{at} is {s}"
        ),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(k, x)| no_non_numbers(x, &format!("{at}[{k}]"))),
        Value::Object(o) => o.iter().for_each(|(k, x)| no_non_numbers(x, &format!("{at}.{k}"))),
        _ => {}
    }
}

fn codes(report: &Value) -> Vec<String> {
    report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap().to_string())
        .collect()
}

fn warning<'a>(report: &'a Value, code: &str) -> &'a Value {
    report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == code)
        .unwrap_or_else(|| panic!("no warning {code}: {}", report["warnings"]))
}

/// The line of the human output that gives `metric`'s call (`  m4 ...`).
fn call(args: &[&str], metric: &str) -> String {
    let out = lethe(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    text.lines()
        .find(|l| l.starts_with(&format!("  {metric} ")))
        .unwrap_or_else(|| panic!("no call for {metric}: {text}"))
        .to_string()
}

/// Pseudo-random embeddings in [−1, 1) (a 64-bit LCG): rows × cols, row-major.
fn random(rows: usize, cols: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    (0..rows * cols)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

const N: usize = 80;
const D: usize = 8;
const FORGET: &str = "0..20";
const RETAIN: &str = "20..80";

/// A model that remembers its forget records: each forget record's embedding is a near-copy of a retain record's,
/// so its nearest retain neighbour is closer than any retain record's (m4 near 1).
fn memorising(seed: u64) -> Vec<f64> {
    let mut v = random(N, D, seed);
    let noise = random(20, D, seed + 1000);
    for i in 0..20 {
        for j in 0..D {
            v[i * D + j] = v[(20 + i) * D + j] + 1e-3 * noise[i * D + j];
        }
    }
    v
}

fn npy(dir: &Path, name: &str, values: &[f64]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, lethe_analysis::npy::f64_bytes(values, &[values.len() / D, D])).unwrap();
    p.display().to_string()
}

fn ruler_args<'a>(models: &[(&'a str, &'a str)], forget: &'a str, retain: &'a str) -> Vec<&'a str> {
    let mut a = vec!["ruler"];
    for (flag, file) in models {
        a.extend([*flag, *file]);
    }
    a.extend(["--forget", forget, "--retain", retain]);
    a
}

/// The digits example with `unlearned` as the unlearned model, against the retrained model and the original.
fn digits(unlearned: &str) -> (Value, String) {
    let (u, o, g, f, r) = (
        demo(unlearned),
        demo("act_retrained.npy"),
        demo("act_original.npy"),
        demo("forget.txt"),
        demo("retain.txt"),
    );
    json(&ruler_args(
        &[("--unlearned", &u), ("--oracle", &o), ("--original", &g)],
        &f,
        &r,
    ))
}

/// No unlearning: the unlearned model given as the original's own file (or a copy of it). The report names it,
/// and on the digits example, where the original itself reads m4 below its null, the headline no longer calls
/// over-correction (it read "Over-correction" for no, weak and perfect unlearning alike).
#[test]
fn no_unlearning_names_the_original_and_the_headline_makes_no_call_m4_cannot_make() {
    let (report, err) = digits("act_original.npy");
    let w = warning(&report, "unlearned_is_original");
    assert_eq!(w["input"], "unlearned");
    let msg = w["message"].as_str().unwrap();
    assert!(
        msg.contains("act_original.npy") && msg.contains("nothing was unlearned"),
        "{msg}"
    );
    assert!(err.contains("warning[unlearned_is_original]"), "{err}");
    assert_eq!(report["result"]["runs"][0]["representation_shift"], 0.0);
    let h = &report["headline"];
    assert_eq!(h["call"], "inconclusive", "{h}");
    let text = h["text"].as_str().unwrap();
    assert!(text.contains("m4 cannot detect memorisation on this data"), "{text}");
    assert!(text.contains("the unlearned model is the original model"), "{text}");
    // A copy under another name is the same file.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("after_unlearning.npy");
    std::fs::copy(demo("act_original.npy"), &copy).unwrap();
    let (u, o, g, f, r) = (
        copy.display().to_string(),
        demo("act_retrained.npy"),
        demo("act_original.npy"),
        demo("forget.txt"),
        demo("retain.txt"),
    );
    let (report, _) = json(&ruler_args(
        &[("--unlearned", &u), ("--oracle", &o), ("--original", &g)],
        &f,
        &r,
    ));
    let msg = warning(&report, "unlearned_is_original")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        msg.contains("after_unlearning.npy") && msg.contains("are the same file"),
        "{msg}"
    );
    // The real unlearned model (fine-tuned on the retain rows) is another model: no such warning.
    let (report, _) = digits("act_unlearned.npy");
    assert!(
        !codes(&report).iter().any(|c| c.starts_with("unlearned_is")),
        "{:?}",
        codes(&report)
    );
    assert_eq!(report["headline"]["call"], "inconclusive");
}

/// No unlearning where m4 can see memorisation (the original keeps near-copies of retain records as its forget
/// records): the headline calls residual memorisation, and names the original.
#[test]
fn no_unlearning_is_residual_memorisation_where_m4_can_see_it() {
    let dir = tempfile::tempdir().unwrap();
    let g = npy(dir.path(), "original.npy", &memorising(1));
    let (report, _) = json(&ruler_args(&[("--unlearned", &g), ("--original", &g)], FORGET, RETAIN));
    assert_eq!(
        report["headline"]["call"], "residual_memorisation",
        "{}",
        report["headline"]
    );
    assert!(codes(&report).contains(&"unlearned_is_original".to_string()));
    assert!(!codes(&report).contains(&"m4_cannot_detect".to_string()));
}

/// Perfect unlearning: the unlearned model given as the oracle's file, or the oracle's values in another file
/// (a CSV of the same numbers): m1 is 1 and m2 0 by construction, and the report says so.
#[test]
fn perfect_unlearning_names_the_oracle() {
    let (report, err) = digits("act_retrained.npy");
    let w = warning(&report, "unlearned_is_oracle");
    assert!(
        w["message"]
            .as_str()
            .unwrap()
            .contains("m1 is 1 and m2 is 0 by construction"),
        "{w}"
    );
    assert!(err.contains("warning[unlearned_is_oracle]"), "{err}");
    let run = &report["result"]["runs"][0];
    assert_eq!(
        (run["oracle_similarity"].as_f64(), run["calibration_gap"].as_f64()),
        (Some(1.0), Some(0.0))
    );
    let text = report["headline"]["text"].as_str().unwrap();
    assert!(text.contains("the unlearned model is the oracle"), "{text}");
    // The same values in another format: compared by value, not by file.
    let dir = tempfile::tempdir().unwrap();
    let values = random(N, D, 7);
    let o = npy(dir.path(), "oracle.npy", &values);
    let csv = dir.path().join("unlearned.csv");
    let lines: Vec<String> = values
        .chunks(D)
        .map(|r| r.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(","))
        .collect();
    std::fs::write(&csv, lines.join("\n")).unwrap();
    let u = csv.display().to_string();
    let (report, _) = json(&ruler_args(&[("--unlearned", &u), ("--oracle", &o)], FORGET, RETAIN));
    let msg = warning(&report, "unlearned_is_oracle")["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        msg.contains("hold the same values on every forget and retain row"),
        "{msg}"
    );
    assert_eq!(report["result"]["runs"][0]["oracle_similarity"], 1.0);
}

/// m4's positive control: with the original model, m4 is also computed with the original in the unlearned
/// model's place, and reported. Where the original shows memorisation, "no sign" stands for a model that forgot;
/// where it does not (the digits example), the headline says m4 cannot detect memorisation on this data.
#[test]
fn the_original_model_is_m4s_positive_control() {
    let dir = tempfile::tempdir().unwrap();
    let g = npy(dir.path(), "original.npy", &memorising(1));
    let u = npy(dir.path(), "unlearned.npy", &random(N, D, 1));
    let o = npy(dir.path(), "oracle.npy", &random(N, D, 5));
    let (report, err) = json(&ruler_args(
        &[("--unlearned", &u), ("--oracle", &o), ("--original", &g)],
        FORGET,
        RETAIN,
    ));
    assert_eq!(report["result"]["negative_controls"][0]["call"], "at_null");
    let control = &report["result"]["positive_controls"][0];
    assert_eq!(control["call"], "above_null", "{control}");
    assert!(control["value"].as_f64().unwrap() > control["band"][1].as_f64().unwrap());
    assert_eq!(report["headline"]["call"], "at_null", "{}", report["headline"]);
    assert!(!codes(&report).iter().any(|c| c.starts_with("m4_")), "{err}");
    // The control is m4 of the original model: the same number as m4 with the original as the unlearned model.
    let (as_unlearned, _) = json(&ruler_args(&[("--unlearned", &g)], FORGET, RETAIN));
    assert_eq!(
        control["value"],
        as_unlearned["result"]["runs"][0]["nn_percentile_rank"]["value"]
    );

    // The digits example: the original itself reads below its null band; no reading of m4 is a call.
    for unlearned in ["act_unlearned.npy", "act_original.npy", "act_retrained.npy"] {
        let (report, err) = digits(unlearned);
        let control = &report["result"]["positive_controls"][0];
        assert_ne!(control["call"], "above_null", "{control}");
        let w = warning(&report, "m4_cannot_detect");
        assert_eq!(w["input"], "original");
        assert!(w["fix"].as_str().unwrap().contains("6 or more seeds"), "{w}");
        assert!(err.contains("warning[m4_cannot_detect]"), "{err}");
        let h = &report["headline"];
        assert_eq!(h["call"], "inconclusive", "{unlearned}: {h}");
        assert!(
            h["text"]
                .as_str()
                .unwrap()
                .contains("m4 cannot detect memorisation on this data"),
            "{h}"
        );
        assert!(h["reason"].as_str().unwrap().contains("What would help"), "{h}");
        let args = ruler_args(
            &[
                ("--unlearned", &demo(unlearned)),
                ("--oracle", &demo("act_retrained.npy")),
                ("--original", &demo("act_original.npy")),
            ],
            &demo("forget.txt"),
            &demo("retain.txt"),
        )
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<String>>();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let m4 = call(&args, "m4");
        assert!(m4.contains("but m4 cannot detect memorisation on this data"), "{m4}");
    }
    let (report, _) = digits("act_original.npy");
    assert_eq!(
        report["result"]["positive_controls"][0]["value"],
        report["result"]["runs"][0]["nn_percentile_rank"]["value"]
    );
}

/// m4's negative control: records that sit next to retain records in every model, the oracle included (near-copies
/// in the data, not memorisation), read m4 far above its null. Without the oracle's m4 that was called residual
/// memorisation; the oracle, which never saw the forget records, reads the same, so m4's null does not hold here.
#[test]
fn the_oracle_is_m4s_negative_control() {
    let dir = tempfile::tempdir().unwrap();
    let u = npy(dir.path(), "unlearned.npy", &memorising(1));
    let o = npy(dir.path(), "oracle.npy", &memorising(2));
    let (report, err) = json(&ruler_args(&[("--unlearned", &u), ("--oracle", &o)], FORGET, RETAIN));
    let control = &report["result"]["negative_controls"][0];
    assert_eq!(control["call"], "above_null", "{control}");
    let (as_unlearned, _) = json(&ruler_args(&[("--unlearned", &o)], FORGET, RETAIN));
    assert_eq!(
        control["value"],
        as_unlearned["result"]["runs"][0]["nn_percentile_rank"]["value"]
    );
    assert_eq!(
        as_unlearned["headline"]["call"], "residual_memorisation",
        "the oracle alone reads as memorised"
    );
    let w = warning(&report, "m4_null_does_not_hold");
    assert_eq!(w["input"], "oracle");
    assert!(err.contains("warning[m4_null_does_not_hold]"), "{err}");
    let h = &report["headline"];
    assert_eq!(h["call"], "inconclusive", "{h}");
    assert!(
        h["text"]
            .as_str()
            .unwrap()
            .contains("m4's null does not hold on this data"),
        "{h}"
    );
}

/// Five runs where every unlearned model is its original: m3 is 0 in every run. It used to reach the
/// Benjamini–Hochberg correction as a NaN p-value ("input `p` has value NaN") and no report came out; it is now
/// not tested, with the reason, and m2 and m4 are still tested.
#[test]
fn a_metric_constant_in_every_run_is_not_tested_and_the_others_are() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for k in 0..5u64 {
        let u = npy(dir.path(), &format!("model_{k}.npy"), &random(N, D, 10 + k));
        let o = npy(dir.path(), &format!("oracle_{k}.npy"), &random(N, D, 20 + k));
        files.push((u, o));
    }
    let mut args = vec!["ruler"];
    for (u, o) in &files {
        args.extend([
            "--unlearned",
            u.as_str(),
            "--oracle",
            o.as_str(),
            "--original",
            u.as_str(),
        ]);
    }
    args.extend(["--forget", FORGET, "--retain", RETAIN]);
    let (report, err) = json(&args);
    let not_tested = report["result"]["not_tested"].as_array().unwrap();
    assert_eq!(not_tested.len(), 1, "{not_tested:?}");
    assert_eq!(not_tested[0]["metric"], "representation_shift");
    assert_eq!(not_tested[0]["values"], serde_json::json!([0.0, 0.0, 0.0, 0.0, 0.0]));
    let tested: Vec<&str> = report["result"]["across_runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["metric"].as_str().unwrap())
        .collect();
    assert_eq!(tested, ["calibration_gap", "nn_percentile_rank"]);
    for m in report["result"]["across_runs"].as_array().unwrap() {
        let p = m["wilcoxon"]["p_value"].as_f64().unwrap();
        assert!(p > 0.0 && p <= 1.0 && m["p_adjusted"].as_f64().unwrap() >= p, "{m}");
    }
    assert!(codes(&report).contains(&"metric_not_tested".to_string()), "{err}");
    let m3 = call(&args, "m3");
    assert!(m3.contains("every run gives exactly 0, its null"), "{m3}");
    let w = warning(&report, "unlearned_is_original");
    assert!(w["message"].as_str().unwrap().contains("in 5 of the 5 runs"), "{w}");
    // Five runs cannot reach p < 0.05 whatever the values: inconclusive, and says so.
    let h = &report["headline"];
    assert_eq!(h["call"], "inconclusive", "{h}");
    assert!(!h.to_string().contains("NaN"), "{h}");
}

/// Six runs where every unlearned model is its original, on embeddings with no memorisation to see: the test across
/// runs finds m2 at its null, which read "No sign of residual memorisation" of a model that unlearned nothing. The
/// headline now says the metrics cannot tell forgetting from remembering on this data.
#[test]
fn no_unlearning_in_every_run_is_never_no_sign() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for k in 0..6u64 {
        let u = npy(dir.path(), &format!("model_{k}.npy"), &random(N, D, 30 + k));
        let o = npy(dir.path(), &format!("oracle_{k}.npy"), &random(N, D, 40 + k));
        files.push((u, o));
    }
    let mut args = vec!["ruler"];
    for (u, o) in &files {
        args.extend([
            "--unlearned",
            u.as_str(),
            "--oracle",
            o.as_str(),
            "--original",
            u.as_str(),
        ]);
    }
    args.extend(["--forget", FORGET, "--retain", RETAIN]);
    let (report, _) = json(&args);
    let m2 = &report["result"]["across_runs"][0];
    assert_eq!(
        (m2["metric"].as_str(), m2["reject"].as_bool()),
        (Some("calibration_gap"), Some(false)),
        "{m2}"
    );
    let h = &report["headline"];
    assert_eq!(h["call"], "inconclusive", "{h}");
    assert!(
        h["text"].as_str().unwrap().contains(
            "the unlearned model is the original model (the same values), and no metric sees memorisation in it"
        ),
        "{h}"
    );
    let w = warning(&report, "unlearned_is_original");
    assert!(
        w["message"]
            .as_str()
            .unwrap()
            .contains("in 6 of the 6 runs (run 1, 2, 3, 4, 5, 6; in run 1, both are"),
        "{w}"
    );
}

/// The same rows for forget and retain (issue 24 item 4): m1 and m3 use the forget records only, so they are
/// computed, equal to their values with distinct retain rows; m2 and m4 are withheld with the reason. Without the
/// oracle nothing could be computed, and the request is still refused.
#[test]
fn the_same_rows_for_forget_and_retain_compute_m1_and_m3_and_withhold_m2_and_m4() {
    let dir = tempfile::tempdir().unwrap();
    let u = npy(dir.path(), "unlearned.npy", &random(N, D, 1));
    let o = npy(dir.path(), "oracle.npy", &random(N, D, 2));
    let g = npy(dir.path(), "original.npy", &random(N, D, 3));
    let models = [
        ("--unlearned", u.as_str()),
        ("--oracle", o.as_str()),
        ("--original", g.as_str()),
    ];
    let (report, err) = json(&ruler_args(&models, FORGET, FORGET));
    let (distinct, _) = json(&ruler_args(&models, FORGET, RETAIN));
    let (run, want) = (&report["result"]["runs"][0], &distinct["result"]["runs"][0]);
    for m in ["oracle_similarity", "representation_shift"] {
        assert!(run[m].is_f64(), "{m}: {run}");
        assert_eq!(run[m], want[m], "{m}: the forget records only");
    }
    for m in ["calibration_gap", "nn_percentile_rank"] {
        assert!(run[m].is_null(), "{m}: {run}");
        assert!(want[m].is_f64() || want[m].is_object(), "{m}: {want}");
    }
    let withheld = run["withheld"].as_array().unwrap();
    assert_eq!(withheld.len(), 2);
    assert!(
        withheld
            .iter()
            .all(|w| w["reason"] == "needs retain rows distinct from the forget rows")
    );
    for m in ["m2", "m4"] {
        let c = call(&ruler_args(&models, FORGET, FORGET), m);
        assert!(
            c.contains("withheld: it needs retain rows distinct from the forget rows"),
            "{c}"
        );
    }
    let w = warning(&report, "forget_retain_identical");
    assert_eq!(w["input"], "retain");
    assert!(err.contains("warning[forget_retain_identical]"), "{err}");
    assert_eq!(report["headline"]["call"], "inconclusive");
    assert_eq!(report["result"]["positive_controls"], serde_json::json!([]));
    // No oracle: nothing to compute.
    let out = lethe(&ruler_args(&[("--unlearned", &u)], FORGET, FORGET));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[forget_retain_identical]") && err.contains("or the oracle's embeddings"),
        "{err}"
    );
}

/// Issue 24 item 6: constant embeddings tie every nearest-neighbour similarity, so m4 is the tie rule's value, far
/// above its band. The original model's control said `above_null` there; no control and no m4 call may give a
/// verdict on a rank that ties alone decided.
#[test]
fn constant_embeddings_get_no_m4_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let constant = |name: &str, value: f64| npy(dir.path(), name, &vec![value; N * D]);
    let (g, u, o) = (
        constant("original.npy", 1.0),
        constant("unlearned.npy", 2.0),
        constant("oracle.npy", 3.0),
    );
    let (report, err) = json(&ruler_args(
        &[("--unlearned", &u), ("--oracle", &o), ("--original", &g)],
        FORGET,
        RETAIN,
    ));
    for key in ["positive_controls", "negative_controls"] {
        for c in report["result"][key].as_array().unwrap() {
            assert_eq!(c["call"], "inconclusive", "{key}: {c}\n{err}");
        }
    }
    // m4's line in the human output: not read, rather than above its null.
    let args = ruler_args(
        &[("--unlearned", &u), ("--oracle", &o), ("--original", &g)],
        FORGET,
        RETAIN,
    );
    let m4 = call(&args, "m4");
    assert!(m4.contains("not read") && !m4.contains("above its null"), "{m4}");
    assert_eq!(report["headline"]["call"], "inconclusive", "{}", report["headline"]);
    assert!(
        report["headline"]["reason"]
            .as_str()
            .unwrap()
            .contains("ties alone decided"),
        "{}",
        report["headline"]
    );
    assert_ne!(
        report["headline"]["call"], "residual_memorisation",
        "{}",
        report["headline"]
    );
    no_non_numbers(&report, "report");
}
