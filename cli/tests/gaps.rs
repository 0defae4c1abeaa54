//! Issue 13's gaps through the CLI, against tests/fixtures/golden_gaps (tests/peers/gaps_peers.py; PROVENANCE.md
//! there): the one-sided lower Clopper–Pearson bound in `lethe bounds`, ROUGE-Lsum in `lethe rouge`, the
//! competition's logit-scaled confidences in `lethe epsilon`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
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

fn golden(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/golden_gaps").join(name)).unwrap())
        .unwrap()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

fn write(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("lethe-gaps-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn bounds_report_the_one_sided_lower_clopper_pearson_bound() {
    let g = golden("clopper_pearson_lower.json");
    for c in g["cases"].as_array().unwrap() {
        let (x, n, a) = (c["x"].as_u64().unwrap(), c["n"].as_u64().unwrap(), num(&c["a"]));
        if n > 1000 || a < 1e-3 {
            continue;
        }
        let flags: String = (0..n).map(|i| if i < x { "1\n" } else { "0\n" }).collect();
        let f = write(&format!("flags_{x}_{n}.csv"), &flags);
        let alpha = a.to_string();
        for sided in [&[][..], &["--one-sided"][..]] {
            let mut args = vec!["bounds", f.as_str(), "--alpha", &alpha];
            args.extend(sided);
            let r = json(&args);
            let got = num(&r["result"]["binary"]["lower_one_sided"]);
            let want = num(&c["scipy_lower"]);
            assert!((got - want).abs() <= 1e-10 + 1e-9 * want, "{c}: {got} vs {want}");
        }
    }
}

#[test]
fn rouge_lsum_through_the_cli_matches_rouge_score() {
    let g = golden("rouge_lsum.json");
    for stem in [false, true] {
        let cases: Vec<&Value> = g["cases"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["use_stemmer"].as_bool() == Some(stem))
            .collect();
        // One summary per line, sentences separated by the two characters \n (the default separator).
        let lines = |key: &str| -> String {
            cases
                .iter()
                .map(|c| format!("{}\n", c[key].as_str().unwrap().replace('\n', "\\n")))
                .collect()
        };
        let p = write(&format!("lsum_pred_{stem}.txt"), &lines("prediction"));
        let r = write(&format!("lsum_ref_{stem}.txt"), &lines("reference"));
        let mut args = vec![
            "rouge",
            "--predictions",
            p.as_str(),
            "--reference",
            r.as_str(),
            "--lsum",
        ];
        if stem {
            args.push("--stemmer");
        }
        let rep = json(&args);
        assert_eq!(rep["parameters"]["lsum"], true);
        let s = &rep["result"]["scores"];
        for (k, c) in cases.iter().enumerate() {
            let want = c["rougeLsum"].as_array().unwrap();
            for (i, key) in ["precision", "recall", "fmeasure"].iter().enumerate() {
                assert_eq!(num(&s[key][k]), num(&want[i]), "{c}: {key}");
            }
        }
        // A custom separator gives the same scores.
        let p2 = write(
            &format!("lsum_pred_sep_{stem}.txt"),
            &lines("prediction").replace("\\n", " <n> "),
        );
        let r2 = write(
            &format!("lsum_ref_sep_{stem}.txt"),
            &lines("reference").replace("\\n", " <n> "),
        );
        let mut args2 = vec![
            "rouge",
            "--predictions",
            p2.as_str(),
            "--reference",
            r2.as_str(),
            "--lsum",
        ];
        args2.extend(["--sentence-separator", "<n>"]);
        if stem {
            args2.push("--stemmer");
        }
        assert_eq!(json(&args2)["result"]["scores"], *s);
    }
    // Without --lsum the report is ROUGE-L's, with no lsum parameter.
    let p = write("plain.txt", "the cat sat\n");
    let rep = json(&["rouge", "--predictions", &p, "--reference-text", "the cat"]);
    assert!(rep["parameters"].get("lsum").is_none());
    assert_eq!(rep["headline"]["call"], "rouge_l");
}

/// A little-endian `.npy` of `dtype` (`<f4` or `<f8`) and `shape`, from f64 values.
fn npy(values: &[f64], shape: &[usize], dtype: &str) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    let mut header = format!(
        "{{'descr': '{dtype}', 'fortran_order': False, 'shape': ({},), }}",
        dims.join(", ")
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((header.len() as u16).to_le_bytes());
    out.extend(header.as_bytes());
    for &v in values {
        if dtype == "<f4" {
            out.extend((v as f32).to_le_bytes());
        } else {
            out.extend(v.to_le_bytes());
        }
    }
    out
}

/// `lethe epsilon --report-confidences`: the confidences scored, computed from float32 logits with metric.py's
/// float32 softmax, equal to metric.py's `compute_logit_scaled_confidence` run by numpy
/// (tests/fixtures/peers/competition_confidence.json, tests/peers/metric_runner.py).
#[test]
fn epsilon_reports_the_logit_scaled_confidences_as_metric_py_computes_them() {
    let g: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("tests/fixtures/peers/competition_confidence.json")).unwrap(),
    )
    .unwrap();
    let mut checked = 0;
    for (k, c) in g["cases"].as_array().unwrap().iter().enumerate() {
        let dtype = if c["dtype"] == "float32" { "<f4" } else { "<f8" };
        let logits: Vec<Vec<f64>> = c["logits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_array().unwrap().iter().map(num).collect())
            .collect();
        let (e, classes) = (logits.len(), logits[0].len());
        // Two retrained and three unlearned models, each with these logits: every model's confidences are the case's.
        let flat: Vec<f64> = logits.iter().flatten().copied().collect();
        let two: Vec<f64> = flat.iter().chain(&flat).copied().collect();
        let dir = std::env::temp_dir().join(format!("lethe-gaps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lp = dir.join(format!("logits_{k}.npy"));
        std::fs::write(&lp, npy(&two, &[2, e, classes], dtype)).unwrap();
        let labels: Vec<f64> = c["labels"].as_array().unwrap().iter().map(num).collect();
        let lab = dir.join(format!("labels_{k}.npy"));
        std::fs::write(&lab, npy(&labels, &[e], "<f8")).unwrap();
        // Three unlearned models (the same values on both sides are refused as one file given twice).
        let three: Vec<f64> = two.iter().chain(&flat).copied().collect();
        let lu = dir.join(format!("logits_u_{k}.npy"));
        std::fs::write(&lu, npy(&three, &[3, e, classes], dtype)).unwrap();
        let (lp, lu, lab) = (
            lp.display().to_string(),
            lu.display().to_string(),
            lab.display().to_string(),
        );
        let out = lethe(&[
            "epsilon",
            "--retrained-logits",
            &lp,
            "--unlearned-logits",
            &lu,
            "--labels",
            &lab,
            "--variant",
            "exhaustive",
            "--report-confidences",
            "--json",
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r: Value = serde_json::from_slice(&out.stdout).unwrap();
        let conf = &r["result"]["confidences"];
        assert_eq!(conf["computed_from"], "logits");
        assert_eq!(
            conf["exp_precision"],
            if dtype == "<f4" { "float32" } else { "float64" }
        );
        assert_eq!(r["parameters"]["report_confidences"], true);
        let want: Vec<f64> = c["confidence"].as_array().unwrap().iter().map(num).collect();
        for side in ["retrained", "unlearned"] {
            for m in 0..2 {
                let got: Vec<f64> = conf[side][m].as_array().unwrap().iter().map(num).collect();
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    // The softmax's exp is numpy's float32 kernel for float32 logits (emulated bit for bit; a
                    // float64 exp there would be ~1e-8 off); the final logs are the platform's against numpy's,
                    // an ulp or two.
                    let tol = 1e-13 * w.abs().max(1.0);
                    assert!((g - w).abs() <= tol, "case {k} {side}[{m}][{i}]: {g} vs metric.py {w}");
                }
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 5);
}
