//! `lethe forget-quality`, `privleak`, `tool-rouge`, and `PATH#KEY` into open-unlearning / TOFU / MUSE files, on the
//! sample files written by the tools' own code (tests/fixtures/tools/{open_unlearning,tofu,muse}, PROVENANCE.md):
//! each number is checked against the value the writer itself stored (open-unlearning's forget_quality and
//! privleak, MUSE's auc.json) or computed (TOFU's aggregate_eval_stat.py get_forget_quality, tofu/golden.json).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn fx(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/tools")
        .join(rel)
        .display()
        .to_string()
}

fn lethe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

fn json(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = lethe(&a);
    assert!(
        out.status.success(),
        "lethe {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn file(rel: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(fx(rel)).unwrap()).unwrap()
}

#[test]
fn forget_quality_equals_open_unlearnings_own() {
    let u = fx("open_unlearning/unlearned/TOFU_EVAL.json");
    let r = fx("open_unlearning/retain/TOFU_EVAL.json");
    let rep = json(&["forget-quality", "--unlearned", &u, "--retain", &r]);
    let stated = file("open_unlearning/unlearned/TOFU_EVAL.json")["forget_quality"]["agg_value"]
        .as_f64()
        .unwrap();
    let got = rep["result"]["forget_quality"].as_f64().unwrap();
    // open-unlearning's ks_test ran scipy's ks_2samp on the same truth ratios: the exact path is the same floats.
    assert_eq!(got, stated);
    assert_eq!(rep["result"]["ks"]["method_used"], "exact");
    assert_eq!(rep["headline"]["call"], "differs_from_retain");
    assert_eq!(rep["command"], "forget-quality");
    assert!(rep["warnings"].as_array().unwrap().is_empty(), "{}", rep["warnings"]);
    // the model against itself: D = 0, p = 1
    let same = json(&["forget-quality", "--unlearned", &r, "--retain", &r]);
    assert_eq!(same["result"]["forget_quality"].as_f64(), Some(1.0));
    assert_eq!(same["headline"]["call"], "no_evidence_of_difference");
}

#[test]
fn forget_quality_equals_tofus_aggregate_eval_stat() {
    let golden = file("tofu/golden.json");
    let want = &golden["tofu_forget_quality_full_vs_retain90"];
    let rep = json(&[
        "forget-quality",
        "--unlearned",
        &fx("tofu/full/eval_log_forget.json"),
        "--retain",
        &fx("tofu/retain90/eval_log_forget.json"),
    ]);
    assert_eq!(rep["result"]["forget_quality"], want["Forget Quality"]);
    assert_eq!(rep["result"]["ks"]["statistic"], want["KS Test Forget"]);
    assert_eq!(rep["result"]["format"], "tofu");
}

#[test]
fn forget_quality_refuses_mixed_or_missing_files() {
    let out = lethe(&[
        "forget-quality",
        "--unlearned",
        &fx("open_unlearning/unlearned/TOFU_EVAL.json"),
        "--retain",
        &fx("tofu/retain90/eval_log_forget.json"),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("of one kind"), "{err}");
    let out = lethe(&[
        "forget-quality",
        "--unlearned",
        &fx("open_unlearning/unlearned/TOFU_SUMMARY.json"),
        "--retain",
        &fx("open_unlearning/retain/TOFU_EVAL.json"),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("forget_truth_ratio"), "{err}");
}

#[test]
fn privleak_equals_open_unlearnings_own_with_an_interval() {
    let u = fx("open_unlearning/unlearned/TOFU_EVAL.json");
    let r = fx("open_unlearning/retain/TOFU_EVAL.json");
    let rep = json(&["privleak", "--unlearned", &u, "--retain", &r, "--seed", "3"]);
    let f = file("open_unlearning/unlearned/TOFU_EVAL.json");
    let stated = f["privleak"]["agg_value"].as_f64().unwrap();
    let res = &rep["result"];
    let got = res["privleak"].as_f64().unwrap();
    assert!((got - stated).abs() <= 1e-12 * stated.abs(), "{got} vs {stated}");
    // Lethe's AUC is exact (U / n₁n₀); scikit-learn's trapezoid sum can be 1 ulp off
    let a = res["auc_unlearned"].as_f64().unwrap();
    assert!((a - f["mia_min_k"]["auc"].as_f64().unwrap()).abs() <= 2e-16, "{a}");
    let (lo, hi) = (
        res["interval"]["lo"].as_f64().unwrap(),
        res["interval"]["hi"].as_f64().unwrap(),
    );
    assert!(lo < got && got < hi, "{lo} {got} {hi}");
    assert_eq!(rep["seed"], 3);
    assert_eq!(res["flipped"], false);
    // seeded: the same seed gives the same interval
    let again = json(&["privleak", "--unlearned", &u, "--retain", &r, "--seed", "3"]);
    assert_eq!(again["result"]["interval"], res["interval"]);
}

#[test]
fn an_attack_that_is_reliably_wrong_is_reported_as_such() {
    // Like open-unlearning issue 167 (AUC 0.00002 → privleak 5215): over-unlearning makes the forget set look less
    // like training data than the holdout set.
    let u = fx("open_unlearning/overunlearned/TOFU_EVAL.json");
    let r = fx("open_unlearning/retain/TOFU_EVAL.json");
    let rep = json(&["privleak", "--unlearned", &u, "--retain", &r]);
    let stated = file("open_unlearning/overunlearned/TOFU_EVAL.json")["privleak"]["agg_value"]
        .as_f64()
        .unwrap();
    assert!((rep["result"]["privleak"].as_f64().unwrap() - stated).abs() <= 1e-12 * stated);
    assert_eq!(rep["result"]["flipped"], true);
    assert_eq!(rep["headline"]["call"], "attack_reliably_wrong");
    // with the reference AUC (0.981): privleak (1 − 0 − 0.019) / (0.019 + 1e-10) · 100
    let rep = json(&["privleak", "--unlearned", &u, "--ref-auc", "0.981"]);
    let want = ((1.0 - 0.0) - (1.0 - 0.981)) / ((1.0 - 0.981) + 1e-10) * 100.0;
    assert!((rep["result"]["privleak"].as_f64().unwrap() - want).abs() < 1e-9 * want);
    let text = rep["headline"]["text"].as_str().unwrap();
    assert!(text.contains("reliably wrong"), "{text}");
}

#[test]
fn privleak_of_muse_logs_equals_its_auc_json() {
    let u = fx("muse/unlearned/privleak/log.json");
    let r = fx("muse/retrain/privleak/log.json");
    let rep = json(&["privleak", "--unlearned", &u, "--retain", &r]);
    let au = file("muse/unlearned/privleak/auc.json")["forget_holdout_Min-40%"]
        .as_f64()
        .unwrap();
    let ar = file("muse/retrain/privleak/auc.json")["forget_holdout_Min-40%"]
        .as_f64()
        .unwrap();
    let want = (au - ar) / ar * 100.0; // MUSE eval.py
    let got = rep["result"]["privleak"].as_f64().unwrap();
    assert!((got - want).abs() <= 1e-12 * want.abs(), "{got} vs {want}");
    assert_eq!(rep["result"]["formula"], "muse");
    // from auc.json with MUSE's constant for news
    let rep = json(&[
        "privleak",
        "--unlearned",
        &fx("muse/unlearned/privleak/auc.json"),
        "--corpus",
        "news",
    ]);
    let want = (au - 0.47719999999999996) / 0.47719999999999996 * 100.0;
    assert!((rep["result"]["privleak"].as_f64().unwrap() - want).abs() <= 1e-12 * want.abs());
    // MUSE without any reference is a usage error naming the fix
    let out = lethe(&["privleak", "--unlearned", &u]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn tool_rouge_reproduces_the_files_rouge() {
    let rep = json(&["tool-rouge", &fx("open_unlearning/unlearned/TOFU_EVAL.json")]);
    assert_eq!(rep["result"]["max_gap_recall"].as_f64(), Some(0.0));
    assert_eq!(rep["result"]["max_gap_f1"].as_f64(), Some(0.0));
    let stated = file("open_unlearning/unlearned/TOFU_EVAL.json")["forget_Q_A_ROUGE"]["agg_value"]
        .as_f64()
        .unwrap();
    assert!((rep["result"]["mean_recall"].as_f64().unwrap() - stated).abs() < 1e-15);
    let rep = json(&["tool-rouge", &fx("tofu/retain90/eval_log_forget.json")]);
    assert_eq!(
        rep["result"]["max_gap_recall"].as_f64(),
        Some(0.0),
        "{}",
        rep["warnings"]
    );
}

#[test]
fn keys_of_tool_files_feed_the_audit_and_the_bounds() {
    let eval = fx("open_unlearning/unlearned/TOFU_EVAL.json");
    let members = format!("{eval}#mia_min_k/forget");
    let non = format!("{eval}#mia_min_k/holdout");
    let rep = json(&["mia", &members, &non, "--lower-is-member"]);
    let auc = file("open_unlearning/unlearned/TOFU_EVAL.json")["mia_min_k"]["auc"]
        .as_f64()
        .unwrap();
    // open-unlearning's AUC is the audit's with forget as members and lower score = member (exact here,
    // scikit-learn's trapezoid sum 1 ulp off)
    let a = rep["result"]["summary"]["auc"].as_f64().unwrap();
    assert!((a - auc).abs() <= 2e-16, "{a} vs {auc}");
    let rouge = format!("{eval}#forget_Q_A_ROUGE/rougeL_recall");
    let rep = json(&["bounds", &rouge]);
    assert_eq!(rep["command"], "bounds");
    let log = fx("muse/unlearned/privleak/log.json");
    let rep = json(&[
        "mia",
        &format!("{log}#forget/Min-40%"),
        &format!("{log}#holdout/Min-40%"),
        "--lower-is-member",
    ]);
    let muse_auc = file("muse/unlearned/privleak/auc.json")["forget_holdout_Min-40%"]
        .as_f64()
        .unwrap();
    let a = rep["result"]["summary"]["auc"].as_f64().unwrap();
    assert!((a - (1.0 - muse_auc)).abs() < 1e-15, "{a} vs 1 − {muse_auc}");
}

#[test]
fn a_muse_eval_file_without_a_retain_model_uses_open_unlearnings_default_reference() {
    let u = fx("open_unlearning/muse_unlearned/MUSE_EVAL.json");
    let rep = json(&["privleak", "--unlearned", &u]);
    let stated = file("open_unlearning/muse_unlearned/MUSE_EVAL.json")["privleak"]["agg_value"]
        .as_f64()
        .unwrap();
    let got = rep["result"]["privleak"].as_f64().unwrap();
    assert!((got - stated).abs() <= 1e-12 * stated.abs(), "{got} vs {stated}");
    let codes: Vec<&str> = rep["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"default_reference"), "{codes:?}");
    let rep = json(&["tool-rouge", &format!("{u}#forget_verbmem_ROUGE")]);
    assert_eq!(rep["result"]["max_gap_f1"].as_f64(), Some(0.0));
}

/// Splits a command line as a POSIX shell does for the offers' quoting (single quotes only).
fn words(cmd: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    for c in cmd.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                any = false;
            }
            c => cur.push(c),
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[test]
fn every_offer_of_the_sample_files_runs_as_its_command_line() {
    let mut ran = 0;
    for f in [
        "open_unlearning/unlearned/TOFU_EVAL.json",
        "open_unlearning/muse_unlearned/MUSE_EVAL.json",
        "tofu/full/eval_log_forget.json",
        "muse/unlearned/privleak/log.json",
        "muse/unlearned/privleak/auc.json",
    ] {
        let rep = json(&["inspect", &fx(f)]);
        let summary = &rep["result"]["tool"]["summary"];
        assert!(summary.is_object(), "{f}: {}", rep["result"]);
        for o in summary["offers"].as_array().unwrap() {
            let cli = o["cli"].as_str().unwrap();
            // forget quality names the retain model's file it needs; give it the sample's retain model
            let cli = cli
                .replace("RETAIN_MODEL_EVAL.json", &fx("open_unlearning/retain/TOFU_EVAL.json"))
                .replace(
                    "RETAIN_MODEL_eval_log_forget.json",
                    &fx("tofu/retain90/eval_log_forget.json"),
                )
                .replace("RETRAINED_MODEL_log.json", &fx("muse/retrain/privleak/log.json"))
                .replace("RETRAINED_MODEL_auc.json", &fx("muse/retrain/privleak/auc.json"));
            let w = words(&cli);
            assert_eq!(w[0], "lethe", "{cli}");
            let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
            let out = lethe(&args);
            assert!(out.status.success(), "{cli}: {}", String::from_utf8_lossy(&out.stderr));
            ran += 1;
        }
    }
    assert!(ran >= 10, "{ran}");
}
