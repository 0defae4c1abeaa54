//! `lethe compare` (issue 23) as a user runs it: a runs table in, one headline and per-comparison calls out; the
//! same report through `lethe batch` (the dispatcher the Python package uses too); bad cells named by file, line
//! and column.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Output};

use serde_json::Value;

fn lethe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const RUNS: &str = "method,seed,forget_quality,model_utility\n\
retrain,0,0.95,0.61\nretrain,1,0.91,0.60\nretrain,2,0.97,0.62\nretrain,3,0.93,0.61\nretrain,4,0.96,0.60\n\
grad_ascent,0,0.01,0.40\ngrad_ascent,1,0.02,0.38\ngrad_ascent,2,0.005,0.45\ngrad_ascent,3,0.03,0.41\ngrad_ascent,4,0.01,0.43\n\
npo,0,0.40,0.55\nnpo,1,0.35,0.57\nnpo,2,0.52,0.54\nnpo,3,0.44,0.56\nnpo,4,0.38,0.55\n";

#[test]
fn compare_calls_each_comparison_and_batch_gives_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs.csv");
    std::fs::write(&runs, RUNS).unwrap();
    let r = runs.to_str().unwrap();
    let out = lethe(&["compare", r, "--baseline", "retrain", "--resamples", "1000", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rep: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(rep["command"], "compare");
    assert_eq!(rep["headline"]["call"], "difference");
    let comps = rep["result"]["comparisons"].as_array().unwrap();
    assert_eq!(comps.len(), 4, "2 metrics × 2 methods against the baseline");
    for c in comps {
        assert_eq!(c["b"], "retrain");
        assert_eq!(c["call"], "worse", "{c}");
        // 5 + 5 runs: the exact test's smallest p, 2/252, times Holm's 4.
        assert!((c["p_adjusted"].as_f64().unwrap() - 4.0 * 2.0 / 252.0).abs() < 1e-12);
    }
    // The summary for a forest plot: every method with its intervals.
    let s = &rep["result"]["metrics"][0]["summaries"];
    assert_eq!(s.as_array().unwrap().len(), 3);
    let b = &s[0]["bootstrap_interval"];
    assert!(b["lo"].as_f64().unwrap() <= b["hi"].as_f64().unwrap(), "{b}");

    // The same request through batch (as the Python package's dispatcher): the same result.
    let manifest = dir.path().join("m.jsonl");
    let line = serde_json::json!({"command": "compare", "inputs": {"runs": r},
        "options": {"baseline": "retrain", "resamples": 1000}});
    std::fs::write(&manifest, format!("{line}\n")).unwrap();
    let b = lethe(&["batch", manifest.to_str().unwrap()]);
    assert!(b.status.success(), "batch: {}", text(&b.stderr));
    let cell: Value = serde_json::from_str(text(&b.stdout).lines().next().expect("one cell")).unwrap();
    assert!(cell.get("error").is_none(), "{cell}");
    let br = &cell["report"];
    assert_eq!(br["result"], rep["result"]);
    assert_eq!(br["headline"], rep["headline"]);

    // Human output: headline first.
    let h = lethe(&["compare", r, "--baseline", "retrain", "--resamples", "200"]);
    let o = text(&h.stdout);
    assert!(
        o.starts_with("retrain is better than grad_ascent on forget_quality (Holm-adjusted p 0.03175"),
        "{o}"
    );
}

#[test]
fn bad_cells_and_unknown_metrics_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "method,seed,forget_quality\na,0,0.5\na,1,n/a\n").unwrap();
    let out = lethe(&["compare", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let e = text(&out.stderr);
    assert!(!e.contains("panicked"), "{e}");
    assert!(
        e.contains("[text_in_metric]") && e.contains("line 3") && e.contains("`forget_quality`"),
        "{e}"
    );

    let unk = dir.path().join("unk.csv");
    std::fs::write(&unk, "method,seed,score\na,0,1\na,1,2\nb,0,1\nb,1,3\n").unwrap();
    let out = lethe(&["compare", unk.to_str().unwrap()]);
    let e = text(&out.stderr);
    assert!(!out.status.success() && e.contains("[unknown_metric_direction]"), "{e}");
    let ok = lethe(&["compare", unk.to_str().unwrap(), "--metric", "score:higher", "--json"]);
    assert!(ok.status.success(), "{}", text(&ok.stderr));
    let rep: Value = serde_json::from_str(&text(&ok.stdout)).unwrap();
    assert_eq!(rep["headline"]["call"], "inconclusive");
    assert!(text(&ok.stderr).contains("few_seeds"));
}
