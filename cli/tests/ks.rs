//! `lethe ks` (issue 26): the two-sample Kolmogorov–Smirnov test as its own command, checked against
//! scipy.stats.ks_2samp (tests/fixtures/golden_ks_cmd, made by its make.py with scipy 1.17.1) for every alternative
//! and method, its headline's calls, its usage errors, and the same report from `lethe batch` (the registry's
//! dispatcher) as from the subcommand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn lethe<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

fn report(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let out = lethe(&a);
    assert!(
        out.status.success(),
        "lethe {a:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

fn cases() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/golden_ks_cmd/cases.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A sample as a text file, one value a line, written as JSON wrote it (the values scipy saw).
fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let text: String = v.as_array().unwrap().iter().map(|x| format!("{x}\n")).collect();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-12 * b.abs().max(1e-300),
        "{what}: lethe {a:e}, scipy {b:e}"
    );
}

#[test]
fn statistic_and_p_value_are_scipys_for_every_alternative_and_method() {
    let dir = tempfile::tempdir().unwrap();
    let g = cases();
    assert_eq!(g["scipy"], "1.17.1");
    let mut checked = 0;
    for c in g["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let x = write(dir.path(), &format!("{name}_x.txt"), &c["x"]);
        let y = write(dir.path(), &format!("{name}_y.txt"), &c["y"]);
        for r in c["results"].as_array().unwrap() {
            let (alt, method) = (r["alternative"].as_str().unwrap(), r["method"].as_str().unwrap());
            let rep = report(&[
                "ks",
                x.to_str().unwrap(),
                y.to_str().unwrap(),
                "--alternative",
                alt,
                "--method",
                method,
            ]);
            let what = format!("{name} {alt} {method}");
            close(
                rep["result"]["statistic"].as_f64().unwrap(),
                r["statistic"].as_f64().unwrap(),
                &what,
            );
            close(
                rep["result"]["pvalue"].as_f64().unwrap(),
                r["pvalue"].as_f64().unwrap(),
                &what,
            );
            assert_eq!(rep["result"]["n1"], c["x"].as_array().unwrap().len(), "{what}");
            assert_eq!(rep["result"]["n2"], c["y"].as_array().unwrap().len(), "{what}");
            // The call follows scipy's p-value at 5%.
            let call = rep["headline"]["call"].as_str().unwrap();
            let expected = if r["pvalue"].as_f64().unwrap() < 0.05 {
                "differ"
            } else {
                "no_evidence"
            };
            assert_eq!(call, expected, "{what}: {}", rep["headline"]["text"]);
            checked += 1;
        }
    }
    assert_eq!(checked, 36);
}

#[test]
fn a_bad_option_is_a_usage_error_and_batch_gives_the_same_report() {
    let dir = tempfile::tempdir().unwrap();
    let g = cases();
    let c = &g["cases"][1];
    let x = write(dir.path(), "x.txt", &c["x"]);
    let y = write(dir.path(), "y.txt", &c["y"]);
    let (xs, ys) = (x.to_str().unwrap(), y.to_str().unwrap());
    let bad = lethe(&["ks", xs, ys, "--method", "bootstrap"]);
    assert_eq!(bad.status.code(), Some(2));
    let bad = lethe(&["ks", xs, ys, "--alpha", "0"]);
    assert_eq!(bad.status.code(), Some(2), "{}", String::from_utf8_lossy(&bad.stderr));

    // `lethe batch` reaches ks through the registry, with no list of its own.
    let direct = report(&["ks", xs, ys, "--alternative", "less"]);
    let manifest = dir.path().join("m.jsonl");
    std::fs::write(
        &manifest,
        format!(r#"{{"command":"ks","inputs":{{"x":"{xs}","y":"{ys}"}},"options":{{"alternative":"less"}}}}"#) + "\n",
    )
    .unwrap();
    let out = dir.path().join("out.jsonl");
    let o = lethe(&["batch", manifest.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let line: Value = serde_json::from_str(std::fs::read_to_string(&out).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(line["report"], direct, "{line}");
}
