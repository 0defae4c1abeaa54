//! `lethe eps-lower` end to end: the binary's JSON against tests/fixtures/golden_eps (jax-privacy 2.0.0,
//! privacy-estimates 0.1.0.post1, privacy-meter's get_eps_audit; PROVENANCE.md there), the inconclusive headline with
//! the sample size needed, and bad input.
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
    serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures/golden_eps").join(name)).unwrap())
        .unwrap()
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

/// Writes one number per line (Rust's shortest round-trip form) to a fresh file.
fn write_scores(name: &str, v: &[Value]) -> String {
    let dir = std::env::temp_dir().join(format!("lethe-eps-audit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let text: String = v.iter().map(|x| format!("{}\n", num(x))).collect();
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn scores_give_jax_privacys_and_privacy_estimates_bounds() {
    let g = golden("clopper_pearson_scores.json");
    for c in g["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        if !["gauss_1000_mu1", "integer_ties_500", "separated_5"].contains(&name) {
            continue;
        }
        let m = write_scores(&format!("{name}_m.csv"), c["members"].as_array().unwrap());
        let n = write_scores(&format!("{name}_n.csv"), c["non_members"].as_array().unwrap());
        for r in c["runs"].as_array().unwrap() {
            let (sig, delta) = (r["significance"].to_string(), r["delta"].to_string());
            let mut args = vec!["eps-lower", &m, &n, "--significance", &sig, "--delta", &delta];
            if !r["one_sided"].as_bool().unwrap() {
                args.push("--two-sided");
            }
            let rep = json(&args);
            let got = num(&rep["result"]["epsilon"]);
            let want = num(&r["jax_privacy_epsilon"]);
            assert!((got - want).abs() <= 1e-10, "{name} {r}: {got} vs {want}");
            assert_eq!(rep["result"]["clopper_pearson"]["tests"], c["tests"]);
            assert_eq!(rep["result"]["confidence"], 1.0 - num(&r["significance"]));
            let call = rep["headline"]["call"].as_str().unwrap();
            assert_eq!(call == "inconclusive", want == 0.0, "{name}: {}", rep["headline"]);
            args.extend(["--rule", "privacy-estimates"]);
            let got = num(&json(&args)["result"]["epsilon"]);
            let want = num(&r["privacy_estimates_epsilon"]);
            assert!(
                (got - want).abs() <= 1e-10,
                "{name} {r}: privacy-estimates {got} vs {want}"
            );
        }
    }
}

#[test]
fn counts_and_the_one_run_audit_match_the_peers() {
    let g = golden("clopper_pearson_counts.json");
    let c = &g["cases"][0];
    let counts = format!("{},{},{},{}", c["tp"], c["fp"], c["tn"], c["fn"]);
    let r = &c["runs"][0];
    let rep = json(&["eps-lower", "--counts", &counts]);
    assert!((num(&rep["result"]["epsilon"]) - num(&r["jax_privacy_epsilon"])).abs() < 1e-10);
    assert!(
        rep["headline"]["text"]
            .as_str()
            .unwrap()
            .contains("95% confidence (δ = 0)")
    );
    let g = golden("one_run.json");
    for c in g["cases"].as_array().unwrap().iter().step_by(7) {
        let mrv = format!("{},{},{}", c["m"], c["r"], c["v"]);
        let (delta, p) = (c["delta"].to_string(), c["p"].to_string());
        let rep = json(&["eps-lower", "--one-run", &mrv, "--delta", &delta, "--significance", &p]);
        assert_eq!(num(&rep["result"]["epsilon"]), num(&c["eps"]), "{c}");
        assert_eq!(rep["result"]["method"], "one-run");
    }
}

#[test]
fn the_gdp_estimate_matches_jax_privacy_after_its_fix() {
    let g = golden("gdp.json");
    for c in g["cases"].as_array().unwrap().iter().step_by(5) {
        let name = c["name"].as_str().unwrap();
        let m = write_scores(&format!("gdp_{name}_m.csv"), c["members"].as_array().unwrap());
        let n = write_scores(&format!("gdp_{name}_n.csv"), c["non_members"].as_array().unwrap());
        let (sig, delta) = (c["significance"].to_string(), c["delta"].to_string());
        let r = json(&[
            "eps-lower",
            &m,
            &n,
            "--method",
            "gdp",
            "--significance",
            &sig,
            "--delta",
            &delta,
        ]);
        let (got, want) = (num(&r["result"]["epsilon"]), num(&c["jax_privacy_fixed"]));
        assert!((got - want).abs() < 1e-9, "{name}: {got} vs {want}");
        assert_eq!(r["headline"]["call"] == "inconclusive", want == 0.0);
    }
    let out = lethe(&["eps-lower", "--counts", "1,1,1,1", "--method", "gdp", "--delta", "1e-5"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn too_small_a_sample_is_inconclusive_with_the_number_needed() {
    let rep = json(&["eps-lower", "--counts", "3,0,3,0"]);
    assert_eq!(rep["headline"]["call"], "inconclusive");
    let n = rep["result"]["examples_needed"].as_u64().unwrap();
    assert!(
        rep["headline"]["reason"]
            .as_str()
            .unwrap()
            .contains(&format!("at least {n} members"))
    );
    let rep = json(&["eps-lower", "--one-run", "4,4,4"]);
    assert_eq!(rep["headline"]["call"], "inconclusive");
    assert_eq!(rep["result"]["examples_needed"], 5);
}

#[test]
fn one_run_on_scores_and_bad_input() {
    let vals = |v: &[f64]| v.iter().map(|x| serde_json::json!(x)).collect::<Vec<_>>();
    let m = write_scores("m1.csv", &vals(&[5.0, 6.0, 7.0, 8.0, 9.0, 3.0]));
    let n = write_scores("n1.csv", &vals(&[0.0, 1.0, 2.0, 3.0, 4.0, 0.5]));
    // Top 4 are members, bottom 4 non-members: 8 of 8 right out of 12 canaries.
    let rep = json(&["eps-lower", &m, &n, "--guess-members", "4", "--guess-non-members", "4"]);
    assert_eq!(rep["result"]["one_run"]["r"], 8);
    assert_eq!(rep["result"]["one_run"]["v"], 8);
    assert_eq!(rep["result"]["one_run"]["m"], 12);
    // 7 from the top ends inside the tie at 3.
    let out = lethe(&["eps-lower", &m, &n, "--guess-members", "7"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("tied scores"), "{err}");
    let nan = write_scores("nan.csv", &vals(&[1.0]));
    std::fs::write(&nan, "1\nnan\n").unwrap();
    let out = lethe(&["eps-lower", &nan, &n]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("NaN"));
    // ±inf scores are ranked as the most extreme (with lethe mia's warning), as jax-privacy orders them.
    let inf = write_scores("inf.csv", &vals(&[1.0]));
    std::fs::write(&inf, "1\n2\ninf\n5\n").unwrap();
    let out = lethe(&["eps-lower", &inf, &n, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("infinite_values"));
    let out = lethe(&["eps-lower", "--counts", "0,0,0,3"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let out = lethe(&["eps-lower", "--counts", "1,1,1,1", "--significance", "0.7"]);
    assert_eq!(out.status.code(), Some(2));
}
