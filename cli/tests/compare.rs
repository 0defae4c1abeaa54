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

/// A SUMMARY file as open-unlearning writes it: `json.dump(dict(sorted(logs.items())), f, indent=4)`
/// (src/evals/base.py `Evaluator.save_logs` at d3d7cf9), keys sorted, Python's float repr.
fn ou_summary(metrics: &[(&str, &str)]) -> String {
    let mut m = metrics.to_vec();
    m.sort_by(|a, b| a.0.cmp(b.0));
    let body: Vec<String> = m.iter().map(|(k, v)| format!("    \"{k}\": {v}")).collect();
    format!("{{\n{}\n}}", body.join(",\n"))
}

/// Two methods × 3 seeds of SUMMARY files in a METHOD/seedN/ layout; returns the `--method` arguments.
fn summaries(dir: &std::path::Path) -> Vec<String> {
    let mut args = Vec::new();
    for (m, fq, mu) in [
        ("npo", ["0.9", "0.8", "0.85"], ["0.6", "0.61", "0.62"]),
        ("grad_ascent", ["0.01", "0.02", "0.015"], ["0.3", "0.31", "0.32"]),
    ] {
        let mut files = Vec::new();
        for s in 0..3 {
            let d = dir.join(m).join(format!("seed{s}"));
            std::fs::create_dir_all(&d).unwrap();
            let f = d.join("TOFU_SUMMARY.json");
            std::fs::write(
                &f,
                ou_summary(&[
                    ("forget_quality", fq[s]),
                    ("model_utility", mu[s]),
                    ("forget_truth_ratio", "0.6"),
                ]),
            )
            .unwrap();
            files.push(f.to_str().unwrap().to_string());
        }
        args.push(format!("{m}={}", files.join(",")));
    }
    args
}

#[test]
fn result_files_by_method_compare_as_a_runs_table_and_through_batch() {
    let dir = tempfile::tempdir().unwrap();
    let groups = summaries(dir.path());
    let mut args = vec!["compare".to_string()];
    for g in &groups {
        args.push("--method".into());
        args.push(g.clone());
    }
    args.extend(["--resamples", "500", "--json"].map(String::from));
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = lethe(&argv);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rep: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(rep["result"]["methods"], serde_json::json!(["npo", "grad_ascent"]));
    let metrics: Vec<&str> = rep["result"]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["metric"].as_str().unwrap())
        .collect();
    assert_eq!(metrics, vec!["forget_quality", "model_utility"]);
    let codes: Vec<&str> = rep["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"metrics_left_out"), "{codes:?}");
    assert_eq!(rep["inputs"].as_array().unwrap().len(), 6);
    assert_eq!(rep["inputs"][0]["role"], "methods");
    // Paired by the seeds in the paths.
    assert!(
        rep["result"]["comparisons"][0]["wilcoxon_by_seed"].is_object(),
        "{}",
        rep["result"]["comparisons"][0]
    );

    // The same runs in one table give the same comparisons.
    let table = dir.path().join("runs.csv");
    std::fs::write(
        &table,
        "method,seed,forget_quality,model_utility\nnpo,0,0.9,0.6\nnpo,1,0.8,0.61\nnpo,2,0.85,0.62\n\
         grad_ascent,0,0.01,0.3\ngrad_ascent,1,0.02,0.31\ngrad_ascent,2,0.015,0.32\n",
    )
    .unwrap();
    let t = lethe(&["compare", table.to_str().unwrap(), "--resamples", "500", "--json"]);
    assert!(t.status.success(), "{}", text(&t.stderr));
    let trep: Value = serde_json::from_str(&text(&t.stdout)).unwrap();
    assert_eq!(trep["result"]["comparisons"], rep["result"]["comparisons"]);
    assert_eq!(trep["headline"], rep["headline"]);

    // Through batch, with the CLI's NAME=FILE,… strings: the same report.
    let manifest = dir.path().join("m.jsonl");
    let line = serde_json::json!({"command": "compare", "inputs": {"methods": groups},
        "options": {"resamples": 500}});
    std::fs::write(&manifest, format!("{line}\n")).unwrap();
    let b = lethe(&["batch", manifest.to_str().unwrap()]);
    assert!(b.status.success(), "batch: {}", text(&b.stderr));
    let cell: Value = serde_json::from_str(text(&b.stdout).lines().next().expect("one cell")).unwrap();
    assert!(cell.get("error").is_none(), "{cell}");
    assert_eq!(cell["report"]["result"], rep["result"]);
    assert_eq!(cell["report"]["headline"], rep["headline"]);
    assert_eq!(cell["report"]["warnings"], rep["warnings"]);
}

#[test]
fn bad_result_files_are_named_by_file() {
    let dir = tempfile::tempdir().unwrap();
    let groups = summaries(dir.path());
    // NaN as Python's json.dump writes it, in one seed's file.
    let f = dir.path().join("grad_ascent/seed1/TOFU_SUMMARY.json");
    std::fs::write(&f, ou_summary(&[("forget_quality", "NaN"), ("model_utility", "0.31")])).unwrap();
    let out = lethe(&["compare", "--method", &groups[0], "--method", &groups[1]]);
    assert!(!out.status.success());
    let e = text(&out.stderr);
    assert!(
        e.contains("[non_finite]")
            && e.contains("grad_ascent/seed1/TOFU_SUMMARY.json")
            && e.contains("`forget_quality`"),
        "{e}"
    );
    std::fs::write(&f, ou_summary(&[("forget_quality", "0.02"), ("model_utility", "0.31")])).unwrap();
    // A metric asked for that a file lacks.
    let out = lethe(&[
        "compare",
        "--method",
        &groups[0],
        "--method",
        &groups[1],
        "--metric",
        "model_utility",
        "--metric",
        "privleak",
    ]);
    let e = text(&out.stderr);
    assert!(
        e.contains("[missing_metric]") && e.contains("npo/seed0/TOFU_SUMMARY.json") && e.contains("`privleak`"),
        "{e}"
    );
    // The same file twice for one method: one seed twice.
    let first = groups[0].split(',').next().unwrap().to_string();
    let dup = format!("{first},{}", first.split_once('=').unwrap().1);
    let out = lethe(&["compare", "--method", &dup, "--method", &groups[1]]);
    let e = text(&out.stderr);
    assert!(e.contains("[duplicate_run]") && e.contains("seed 0 twice"), "{e}");
    // Both inputs at once.
    let runs = dir.path().join("runs.csv");
    std::fs::write(&runs, RUNS).unwrap();
    let out = lethe(&["compare", runs.to_str().unwrap(), "--method", &groups[0]]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("not both"), "{}", text(&out.stderr));
}

#[test]
fn a_single_run_against_the_published_spread_is_called() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("one.csv");
    std::fs::write(&runs, "method,seed,forget_quality\nnpo,0,0.31\n").unwrap();
    let out = lethe(&[
        "compare",
        runs.to_str().unwrap(),
        "--published",
        "npo:forget_quality=0.40±0.02/5",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    assert!(
        o.starts_with("npo on forget_quality: the one run, 0.31, differs from the published 0.4 ± 0.02 over 5 seeds"),
        "{o}"
    );
}

/// Found trying compare as a new user (bench/trial_compare): `--method NPO=runs/NPO` (open-unlearning writes a folder
/// per run) said "it is a directory"; the retain model's `few_seeds` pointed at NPO's first file; the inputs read
/// "(1 rows; …)". A folder now gives the result files in it, as its files would.
#[test]
fn a_methods_folder_compares_as_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let groups = summaries(dir.path());
    let retain = dir.path().join("retain");
    std::fs::create_dir_all(&retain).unwrap();
    std::fs::write(
        retain.join("TOFU_SUMMARY.json"),
        ou_summary(&[
            ("forget_quality", "0.99"),
            ("model_utility", "0.63"),
            ("forget_truth_ratio", "0.6"),
        ]),
    )
    .unwrap();
    let at = |p: &str| dir.path().join(p).to_str().unwrap().to_string();
    let run = |npo: &str, ga: &str| {
        lethe(&[
            "compare",
            "--method",
            npo,
            "--method",
            ga,
            "--method",
            &format!("retain={}", at("retain")),
            "--resamples",
            "300",
        ])
    };
    let files = run(&groups[0], &groups[1]);
    assert!(files.status.success(), "{}", text(&files.stderr));
    let folders = run(
        &format!("npo={}", at("npo")),
        &format!("grad_ascent={}", at("grad_ascent")),
    );
    assert!(folders.status.success(), "{}", text(&folders.stderr));
    assert_eq!(text(&folders.stdout), text(&files.stdout));
    let out = text(&folders.stdout);
    assert!(out.contains("TOFU_SUMMARY.json (1 row; sha256"), "{out}");
    assert!(!out.contains("1 rows"), "{out}");
    let err = text(&folders.stderr);
    let few = err
        .split("warning[")
        .find(|w| w.starts_with("few_seeds"))
        .expect("few_seeds");
    assert!(few.contains("retain (1: `") && !few.contains("-->"), "{err}");
}

/// Every number of two JSON values within `tol`, everything else equal; the path of the first difference.
fn same_json(a: &Value, b: &Value, tol: f64, at: &str) -> Result<(), String> {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            if (x - y).abs() <= tol {
                Ok(())
            } else {
                Err(format!("{at}: {x} vs {y}"))
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .try_for_each(|(i, (x, y))| same_json(x, y, tol, &format!("{at}[{i}]"))),
        (Value::Object(x), Value::Object(y)) if x.len() == y.len() => x.iter().try_for_each(|(k, v)| {
            y.get(k)
                .ok_or_else(|| format!("{at}.{k} missing"))
                .and_then(|w| same_json(v, w, tol, &format!("{at}.{k}")))
        }),
        _ if a == b => Ok(()),
        _ => Err(format!("{at}: {a} vs {b}")),
    }
}

/// Issue 23: ML Privacy Meter's `report/exp/attack_result_0.npz` was refused by compare ("is a NumPy archive …
/// audit each first"). A method's folder of privacy-meter seed folders (tests/fixtures/compare_privacy_meter,
/// written by privacy-meter's own audit.py; PROVENANCE.md there) now compares as the `lethe mia --json` reports
/// made from the same archives (`--scores FILE#scores --labels FILE#memberships`) do: the same headline, every
/// number of the result within 1e-12; and through batch, as the CLI.
#[test]
fn privacy_meter_folders_compare_as_the_clis_mia_reports() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/compare_privacy_meter");
    let dir = tempfile::tempdir().unwrap();
    for m in ["finetune", "retrain"] {
        for s in ["201", "202", "203"] {
            let npz = fixture.join(format!("{m}/seed{s}/report/exp/attack_result_0.npz"));
            let f = npz.to_str().unwrap();
            let out = lethe(&[
                "mia",
                "--scores",
                &format!("{f}#scores"),
                "--labels",
                &format!("{f}#memberships"),
                "--json",
            ]);
            assert!(out.status.success(), "{}", text(&out.stderr));
            let d = dir.path().join(format!("{m}/seed{s}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("mia.json"), &out.stdout).unwrap();
        }
    }
    let compare = |root: &std::path::Path| {
        let at = |m: &str| format!("{m}={}", root.join(m).to_str().unwrap());
        let out = lethe(&[
            "compare",
            "--method",
            &at("finetune"),
            "--method",
            &at("retrain"),
            "--resamples",
            "500",
            "--json",
        ]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_str::<Value>(&text(&out.stdout)).unwrap()
    };
    let npz = compare(&fixture);
    let json = compare(dir.path());
    assert_eq!(npz["headline"], json["headline"]);
    if let Err(d) = same_json(&npz["result"], &json["result"], 1e-12, "result") {
        panic!("{d}");
    }
    assert_eq!(npz["inputs"].as_array().unwrap().len(), 6);
    assert_eq!(npz["inputs"][0]["format"], "ML Privacy Meter attack result");
    assert!(
        npz["result"]["metrics"][0]["metric"]
            .as_str()
            .unwrap()
            .ends_with(".auc"),
        "{}",
        npz["result"]["metrics"][0]
    );
    let codes: Vec<&str> = npz["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(!codes.contains(&"stored_value_differs"), "{codes:?}");
    // Through batch, with the CLI's NAME=FOLDER strings: the same report.
    let manifest = dir.path().join("m.jsonl");
    let groups: Vec<String> = ["finetune", "retrain"]
        .iter()
        .map(|m| format!("{m}={}", fixture.join(m).to_str().unwrap()))
        .collect();
    let line = serde_json::json!({"command": "compare", "inputs": {"methods": groups}, "options": {"resamples": 500}});
    std::fs::write(&manifest, format!("{line}\n")).unwrap();
    let b = lethe(&["batch", manifest.to_str().unwrap()]);
    assert!(b.status.success(), "batch: {}", text(&b.stderr));
    let cell: Value = serde_json::from_str(text(&b.stdout).lines().next().expect("one cell")).unwrap();
    assert!(cell.get("error").is_none(), "{cell}");
    assert_eq!(cell["report"]["result"], npz["result"]);
    assert_eq!(cell["report"]["headline"], npz["headline"]);
}
