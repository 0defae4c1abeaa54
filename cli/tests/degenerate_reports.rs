//! Issue 24 item 2: a report never contradicts its own headline. On degenerate data (constant rows, every value
//! tied, every difference zero) each analysis's headline says "inconclusive"; no field beside it may state a verdict
//! the headline refused (a target's `in_training: false` on a 0-vs-0 tie, an out-of-training rate counting that tie,
//! `calibrated: "out_of_training"`) or a number that is not one (NaN, ±inf, as the strings `"nan"`, `"inf"`):
//! where there is none the field is `null`, and the headline or a warning says why. Each test runs one analysis
//! through the `lethe` binary, as a pipeline would, and walks the whole JSON report.
//!
//! (RULER's reports are walked for non-numbers in ruler_controls.rs; `mia`, `eps-lower` and `epsilon` refuse
//! constant scores and identical inputs before computing; `hsic`, `bounds`, `jsd`, `mmd` and `wasserstein` give
//! finite numbers on constant input.)
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

/// Runs `args` with `--json`, which must succeed: the report. The human output of the same command is returned
/// beside it.
fn report(args: &[&str]) -> (Value, String) {
    let mut a = args.to_vec();
    a.push("--json");
    let out = lethe(&a);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "lethe {args:?} failed: {err}");
    let json = serde_json::from_slice(&out.stdout).expect("JSON report");
    let text = lethe(args);
    assert!(text.status.success(), "lethe {args:?} failed");
    (json, String::from_utf8_lossy(&text.stdout).to_string())
}

/// Writes an n × d float64 .npy file of one value and returns its path.
fn constant_npy(dir: &Path, name: &str, n: usize, d: usize, value: f64) -> String {
    let path = dir.join(name);
    std::fs::write(&path, lethe_analysis::npy::f64_bytes(&vec![value; n * d], &[n, d])).unwrap();
    path.display().to_string()
}

/// Writes a one-column text file of `values` and returns its path.
fn column(dir: &Path, name: &str, values: &[f64]) -> String {
    let path = dir.join(name);
    let text: String = values.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Every place in `v` (a report, or part of one at `path`) that states a number that is not one (as text: "nan",
/// "inf", ...) or a membership verdict — a rule's `in_training` / `nearest_single_pair` / `mmd_in_training` /
/// `wasserstein_in_training` as true or false, a `calibrated` / `dispersion` / `confidence` / `call` of
/// `in_training` or `out_of_training`, an out-of-training rate — as `path = value`. The headline, the parameters
/// and the input records state no verdict and are left out of the verdict part.
fn verdicts_and_non_numbers(v: &Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                verdicts_and_non_numbers(x, &format!("{path}.{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                verdicts_and_non_numbers(x, &format!("{path}[{i}]"), out);
            }
        }
        // (`parameters` echo the options as given: `--all-zero nan` is a rule's name there, not a number.)
        Value::String(s)
            if !path.starts_with(".parameters")
                && ["nan", "inf", "-inf", "+inf", "infinity", "-infinity"].contains(&s.to_lowercase().as_str()) =>
        {
            out.push(format!("{path} = {s}"));
        }
        _ => {
            if [".headline", ".parameters", ".inputs"]
                .iter()
                .any(|p| path.starts_with(p))
            {
                return;
            }
            let key = path.rsplit('.').next().unwrap_or("");
            let verdict = match v {
                Value::Bool(_) => key == "in_training" || key == "nearest_single_pair" || key.ends_with("_in_training"),
                Value::String(s) => {
                    ["calibrated", "dispersion", "confidence", "call"].contains(&key)
                        && (s == "in_training" || s == "out_of_training")
                }
                Value::Number(_) => key == "out_of_training_rate",
                _ => false,
            };
            if verdict {
                out.push(format!("{path} = {v}"));
            }
        }
    }
}

/// The report of `args` says "inconclusive" with a reason, states no verdict and no non-number, and its human
/// output prints neither NaN nor inf.
fn inconclusive_and_clean(args: &[&str]) -> Value {
    let (r, text) = report(args);
    let h = &r["headline"];
    assert_eq!(h["call"], "inconclusive", "{args:?}: {h}");
    assert!(
        h["reason"].as_str().is_some_and(|s| !s.is_empty()),
        "{args:?}: the headline gives no reason: {h}"
    );
    let mut found = Vec::new();
    verdicts_and_non_numbers(&r, "", &mut found);
    assert!(found.is_empty(), "{args:?} ({}): {found:#?}", h["text"]);
    for word in ["NaN", "inf"] {
        assert!(
            !text
                .split(|c: char| !c.is_alphanumeric() && c != '-')
                .any(|w| w.trim_start_matches('-') == word),
            "{args:?}: the human output says {word}:\n{text}"
        );
    }
    r
}

/// SDE on constant rows: the paper rule's JSDs tie at 0, so does each baseline's distance pair; no target is
/// called, no OTR counts the tie, and the Mann–Whitney tests of all-tied values give no z.
#[test]
fn sde_on_constant_rows() {
    let dir = tempfile::tempdir().unwrap();
    for (name, d, value) in [("flat.npy", 4, 0.25), ("flat2.npy", 7, -3.0)] {
        let x = constant_npy(dir.path(), name, 120, d, value);
        for baselines in [false, true] {
            let (it, oot, target) = (format!("{x}@0..40"), format!("{x}@40..80"), format!("{x}@80..120"));
            let mut args = vec![
                "sde",
                "--it",
                &it,
                "--oot",
                &oot,
                "--target",
                &target,
                "--shuffles",
                "20",
            ];
            if baselines {
                args.push("--baselines");
            }
            let r = inconclusive_and_clean(&args);
            let t = &r["result"]["targets"][0];
            assert!(t["verdict"]["in_training"].is_null(), "{t}");
            assert!(t["mann_whitney_target_vs_oot"]["z_statistic"].is_null(), "{t}");
            if baselines {
                assert!(t["baselines"]["mmd_in_training"].is_null(), "{t}");
                assert!(t["baselines"]["wasserstein_in_training"].is_null(), "{t}");
            }
            assert!(r["result"]["out_of_training_rate"].is_null());
        }
    }
}

/// calibrate on constant rows, with several reference subsets per class (the midpoint rule) and with one (nearest
/// exact mean): no score to give, no call, the single-pair rule's tie no call either.
#[test]
fn calibrate_on_constant_rows() {
    let dir = tempfile::tempdir().unwrap();
    for (name, d, value) in [("flat.npy", 4, 0.25), ("flat2.npy", 7, -3.0)] {
        let x = constant_npy(dir.path(), name, 120, d, value);
        for refs in ["3", "1"] {
            let r = inconclusive_and_clean(&[
                "calibrate",
                "--data",
                &x,
                "--it-pool",
                "0..40",
                "--oot-pool",
                "40..80",
                "--target",
                "80..100",
                "--size",
                "20",
                "--refs",
                refs,
                "--paper-shuffles",
                "20",
            ]);
            let t = &r["result"]["targets"][0];
            assert!(t["score"].is_null(), "{t}");
            assert_eq!(t["calibrated"], "inconclusive", "{t}");
            assert!(t["nearest_single_pair"].is_null(), "{t}");
        }
    }
}

/// Mann–Whitney on two samples whose values are all the same: the normal approximation has zero variance, so z
/// (−inf with the continuity correction, NaN without, as scipy's) and, without the correction, p are no numbers.
#[test]
fn mwu_when_every_value_is_tied() {
    let dir = tempfile::tempdir().unwrap();
    let x = column(dir.path(), "x.csv", &[0.5; 30]);
    let y = column(dir.path(), "y.csv", &[0.5; 25]);
    for extra in [
        &[][..],
        &["--no-continuity"],
        &["--alternative", "greater"],
        &["--alternative", "less", "--no-continuity"],
        &["--method", "asymptotic"],
    ] {
        let mut args = vec!["mwu", x.as_str(), y.as_str()];
        args.extend_from_slice(extra);
        let r = inconclusive_and_clean(&args);
        assert!(r["result"]["z_statistic"].is_null(), "{args:?}: {}", r["result"]);
        // The reason for the missing z: the core's note, beside the headline's.
        assert!(
            r["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|w| w["message"].as_str().unwrap().contains("all pooled values are tied")),
            "{args:?}: {}",
            r["warnings"]
        );
    }
}

/// Wilcoxon when every difference is zero (two equal samples, or a sample of zeros): no p-value above 13 pairs
/// (scipy's NaN) or under the strict rule, no z, no rank-biserial (0/0), in every zero method and method.
#[test]
fn wilcoxon_when_every_difference_is_zero() {
    let dir = tempfile::tempdir().unwrap();
    let x = column(dir.path(), "x.csv", &[1.5; 20]);
    let y = column(dir.path(), "y.csv", &[1.5; 20]);
    let zeros = column(dir.path(), "zeros.csv", &[0.0; 20]);
    let few = column(dir.path(), "few.csv", &[0.0; 6]);
    let few_again = column(dir.path(), "few_again.csv", &[0.0; 6]);
    for samples in [
        vec![x.as_str(), y.as_str()],
        vec![zeros.as_str()],
        vec![few.as_str(), few_again.as_str()],
    ] {
        for extra in [
            &[][..],
            &["--all-zero", "nan"],
            &["--method", "asymptotic"],
            &["--method", "asymptotic", "--correction"],
            &["--zero-method", "pratt"],
            &["--zero-method", "zsplit", "--method", "asymptotic"],
        ] {
            let mut args = vec!["wilcoxon"];
            args.extend_from_slice(&samples);
            args.extend_from_slice(extra);
            let r = inconclusive_and_clean(&args);
            let test = &r["result"]["test"];
            if extra.contains(&"zsplit") {
                // Zsplit splits the zeros' ranks between the two sums: r = 0, a number.
                assert_eq!(test["rank_biserial"], 0.0, "{args:?}: {test}");
            } else {
                assert!(test["rank_biserial"].is_null(), "{args:?}: {test}");
            }
        }
    }
}
