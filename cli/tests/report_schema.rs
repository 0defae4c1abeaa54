//! What integrators rely on (issue 25): every command's `--json` report validates against the published schema
//! (schema/report.schema.json, JSON Schema draft 2020-12) and states the one Lethe version, which is `lethe
//! --version`'s, the crates' (Cargo.toml's [workspace.package] version) and every copy's outside Cargo's reach
//! (python/Cargo.toml, www/src/version.js, the schema's $id, CHANGELOG.md's section; tools/version.sh).
//! Each subcommand runs on the files the other CLI tests use (the digits demo, tests/fixtures); a subcommand the
//! CLI gains without a run here, or without its result in the schema, fails the test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

const VERSION: &str = env!("CARGO_PKG_VERSION");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn at(rel: &str) -> String {
    root().join(rel).display().to_string()
}

fn lethe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

fn stdout(args: &[&str]) -> String {
    let out = lethe(args);
    assert!(
        out.status.success(),
        "lethe {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn schema() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("schema/report.schema.json")).unwrap())
        .expect("schema/report.schema.json is JSON")
}

fn validator() -> jsonschema::Validator {
    let s = schema();
    jsonschema::meta::validate(&s).expect("the schema is a valid JSON Schema document");
    jsonschema::draft202012::new(&s).expect("the schema compiles")
}

/// The schema's complaints about `report`, one line each (empty: valid).
fn errors(v: &jsonschema::Validator, report: &Value) -> Vec<String> {
    v.iter_errors(report)
        .map(|e| format!("at {}: {e}", e.instance_path()))
        .collect()
}

/// The subcommands `lethe --help` lists (aliases and `help` aside).
fn subcommands() -> BTreeSet<String> {
    let help = stdout(&["--help"]);
    let list = help
        .split("Commands:")
        .nth(1)
        .and_then(|s| s.split("Options:").next())
        .expect("a Commands section in lethe --help");
    list.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// One run of every subcommand that prints a report, on the inputs the other CLI tests use.
fn runs(dir: &Path) -> Vec<Vec<String>> {
    let w = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        p.display().to_string()
    };
    let demo = |f: &str| at(&format!("examples/data/digits/{f}"));
    let tools = |f: &str| at(&format!("tests/fixtures/tools/{f}"));
    let (act, scores) = (demo("act_unlearned.npy"), demo("mia_scores.npz"));
    let scores_file = w("s.json", "[0, 0.1, 0.3, 0, 0.9, 0.2, 0.05, 0.5]");
    let generations = w("gen.txt", "the cat sat on the mat\nnothing\n");
    let pvalues = w("p.txt", "0.01\n0.04\n0.03\n0.5\n");
    let tofu = |f: &str| tools(&format!("open_unlearning/{f}/TOFU_EVAL.json"));
    let tied = w("tied.txt", &"1\n".repeat(10));
    let same = w("same.txt", "1\n2\n3\n4\n5\n");
    let constant = w("constant.csv", &"1,1,1,1\n".repeat(40));
    let runs: Vec<Vec<String>> = vec![
        vec!["inspect".into(), act.clone()],
        vec!["inspect".into(), tools("competition/retrain_confs.npz")],
        vec![
            "hsic".into(),
            format!("{act}@0..60"),
            format!("{}@0..60", demo("act_retrained.npy")),
            "--permutations".into(),
            "20".into(),
        ],
        vec![
            "sde".into(),
            "--it".into(),
            format!("{act}@144..244"),
            "--oot".into(),
            format!("{act}@544..644"),
            "--target".into(),
            format!("{act}@0..100"),
            "--shuffles".into(),
            "30".into(),
            "--baselines".into(),
        ],
        vec![
            "calibrate".into(),
            "--data".into(),
            act.clone(),
            "--it-pool".into(),
            demo("retain.txt"),
            "--oot-pool".into(),
            demo("test.txt"),
            "--draw-from".into(),
            "0..144".into(),
            "--draw".into(),
            "3".into(),
            "--size".into(),
            "30".into(),
            "--refs".into(),
            "6".into(),
            "--paper-shuffles".into(),
            "20".into(),
            "--seed".into(),
            "2".into(),
        ],
        // Labelled targets: each rule's summary carries an F1 object (the schema allowed only a number or null).
        vec![
            "calibrate".into(),
            "--data".into(),
            act.clone(),
            "--it-pool".into(),
            demo("retain.txt"),
            "--oot-pool".into(),
            demo("test.txt"),
            "--draw-in".into(),
            "144..544".into(),
            "--draw-out".into(),
            "544..744".into(),
            "--draw".into(),
            "3".into(),
            "--size".into(),
            "30".into(),
            "--refs".into(),
            "6".into(),
            "--paper-shuffles".into(),
            "20".into(),
        ],
        vec![
            "ruler".into(),
            "--unlearned".into(),
            act.clone(),
            "--oracle".into(),
            demo("act_retrained.npy"),
            "--original".into(),
            demo("act_original.npy"),
            "--forget".into(),
            demo("forget.txt"),
            "--retain".into(),
            demo("retain.txt"),
        ],
        vec![
            "epsilon".into(),
            "--retrained".into(),
            format!("{}#retrained_confs", tools("competition/retrain_confs.npz")),
            "--unlearned".into(),
            format!("{}#unlearned_confs", tools("competition/unlearned_confs.npz")),
        ],
        vec!["bounds".into(), scores_file.clone(), "--x".into(), "0.5".into()],
        vec![
            "rouge".into(),
            "--predictions".into(),
            generations,
            "--reference-text".into(),
            "the cat is on the mat".into(),
            "--bounds".into(),
        ],
        vec![
            "mwu".into(),
            format!("{scores}#loss_unlearned@0..144"),
            format!("{scores}#loss_unlearned@144..503"),
        ],
        vec![
            "ks".into(),
            format!("{scores}#loss_unlearned@0..144"),
            format!("{scores}#loss_unlearned@144..503"),
        ],
        vec![
            "wilcoxon".into(),
            format!("{scores}#loss_unlearned@0..100"),
            format!("{scores}#loss_unlearned@100..200"),
        ],
        vec![
            "jsd".into(),
            format!("{scores}#loss_unlearned@0..144"),
            format!("{scores}#loss_unlearned@144..503"),
        ],
        vec!["mmd".into(), format!("{act}@0..20"), format!("{act}@20..40")],
        vec!["wasserstein".into(), format!("{act}@0..20"), format!("{act}@20..40")],
        vec![
            "mia".into(),
            format!("{scores}#lira_unlearned@0..144"),
            format!("{scores}#lira_unlearned@144..503"),
            "--ci".into(),
            "bootstrap".into(),
            "--resamples".into(),
            "50".into(),
        ],
        vec!["lira".into(), at("tests/fixtures/golden_lira/exp")],
        vec!["fdr".into(), pvalues],
        vec!["eps-lower".into(), "--counts".into(), "40,5,45,10".into()],
        vec![
            "eps-lower".into(),
            format!("{scores}#lira_unlearned@0..144"),
            format!("{scores}#lira_unlearned@144..503"),
        ],
        vec![
            "forget-quality".into(),
            "--unlearned".into(),
            tofu("unlearned"),
            "--retain".into(),
            tofu("retain"),
        ],
        vec![
            "privleak".into(),
            "--unlearned".into(),
            tofu("unlearned"),
            "--retain".into(),
            tofu("retain"),
            "--resamples".into(),
            "50".into(),
        ],
        vec!["tool-rouge".into(), tofu("unlearned")],
        // Methods × seeds: the shipped example (examples/compare/), with a published value to reproduce.
        vec![
            "compare".into(),
            at("examples/compare/runs.csv"),
            "--metric".into(),
            "mia_auc:closest=0.5".into(),
            "--metric".into(),
            "test_accuracy:higher".into(),
            "--published".into(),
            "retrain:test_accuracy=0.98±0.004/5".into(),
            "--margin".into(),
            "0.01".into(),
            "--resamples".into(),
            "200".into(),
        ],
        // Result files by method (open-unlearning's EVAL files, one run each: intervals over examples), with a
        // single run against a published spread.
        vec![
            "compare".into(),
            "--method".into(),
            format!("npo={}", tofu("unlearned")),
            "--method".into(),
            format!("grad_diff={}", tofu("overunlearned")),
            "--metric".into(),
            "forget_Q_A_Prob:lower".into(),
            "--published".into(),
            "npo:forget_Q_A_Prob=0.2±0.02/5".into(),
            "--resamples".into(),
            "100".into(),
        ],
        // Degenerate data, where statistics have no number (null) and rules tie (no call): still the schema's.
        vec!["mwu".into(), tied.clone(), tied],
        vec!["wilcoxon".into(), same.clone(), same],
        vec![
            "sde".into(),
            "--it".into(),
            format!("{constant}@0..20"),
            "--oot".into(),
            format!("{constant}@20..40"),
            "--target".into(),
            format!("{constant}@0..20"),
            "--shuffles".into(),
            "20".into(),
            "--baselines".into(),
        ],
        vec![
            "calibrate".into(),
            "--data".into(),
            constant,
            "--it-pool".into(),
            "0..20".into(),
            "--oot-pool".into(),
            "20..40".into(),
            "--target".into(),
            "0..5".into(),
            "--refs".into(),
            "1".into(),
            "--size".into(),
            "5".into(),
        ],
    ];
    runs
}

/// The report of `args` with `--json`.
fn report(args: &[String]) -> Value {
    let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
    a.push("--json");
    serde_json::from_str(&stdout(&a)).unwrap_or_else(|e| panic!("lethe {args:?}: not JSON: {e}"))
}

#[test]
fn every_commands_report_validates_against_the_schema_and_states_the_one_version() {
    let v = validator();
    let cli_version = stdout(&["--version"]);
    assert_eq!(cli_version.trim(), format!("lethe {VERSION}"), "lethe --version");
    let dir = tempfile::tempdir().unwrap();
    let mut covered = BTreeSet::new();
    let mut failures = Vec::new();
    for args in runs(dir.path()) {
        let r = report(&args);
        covered.insert(args[0].clone());
        assert_eq!(r["command"], args[0].as_str(), "lethe {args:?}: command");
        assert_eq!(r["lethe_version"], VERSION, "lethe {args:?}: lethe_version");
        let errs = errors(&v, &r);
        for e in errs.iter().take(5) {
            failures.push(format!("lethe {}: {e}", args.join(" ")));
        }
        if errs.len() > 5 {
            failures.push(format!("lethe {}: … and {} more", args[0], errs.len() - 5));
        }
    }
    // `lethe batch` writes each cell's report (the one `lethe COMMAND … --json` prints) under `report`.
    let demo = |f: &str| at(&format!("examples/data/digits/{f}"));
    let (scores, act) = (demo("mia_scores.npz"), demo("act_unlearned.npy"));
    let manifest = dir.path().join("m.jsonl");
    std::fs::write(
        &manifest,
        format!(
            "{}\n{}\n",
            json!({"command": "mia", "id": "a", "inputs": {"members": format!("{scores}#lira_unlearned@0..144"),
                   "non_members": format!("{scores}#lira_unlearned@144..503")}}),
            json!({"command": "sde", "inputs": {"in_training": format!("{act}@144..244"),
                   "out_of_training": format!("{act}@544..644"),
                   "target": [format!("{act}@0..100")]}, "options": {"shuffles": 20}}),
        ),
    )
    .unwrap();
    let cells = stdout(&["batch", manifest.to_str().unwrap()]);
    assert_eq!(cells.lines().count(), 2, "{cells}");
    for line in cells.lines() {
        let cell: Value = serde_json::from_str(line).unwrap();
        assert!(cell["cell"].is_u64() && cell["command"].is_string(), "{line}");
        assert_eq!(cell["report"]["lethe_version"], VERSION, "batch cell");
        for e in errors(&v, &cell["report"]) {
            failures.push(format!("lethe batch, cell {}: {e}", cell["cell"]));
        }
    }
    covered.insert("batch".to_string());
    // `lethe merge` writes a table of the cells, not a report (docs/cli.md, "Batches").
    covered.insert("merge".to_string());
    assert!(
        failures.is_empty(),
        "reports that do not match schema/report.schema.json:\n{}",
        failures.join("\n")
    );
    // Every subcommand is run above, and every report's command is one the schema describes.
    let all = subcommands();
    assert_eq!(covered, all, "a subcommand without a run here (or a run of none)");
    let described: BTreeSet<String> = schema()["properties"]["command"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    let reporting: BTreeSet<String> = all.into_iter().filter(|c| c != "batch" && c != "merge").collect();
    assert_eq!(described, reporting, "the schema's commands");
}

/// The schema catches what an integrator would trip over: a field of the wrong type, a key missing or added, a
/// warning code that is not a code, a number written as text, a verdict that is not true/false/null.
#[test]
fn the_schema_rejects_reports_that_break_it() {
    let v = validator();
    let dir = tempfile::tempdir().unwrap();
    let all = runs(dir.path());
    let of = |cmd: &str| report(all.iter().find(|a| a[0] == cmd).unwrap());
    let (sde, mwu, mia) = (of("sde"), of("mwu"), of("mia"));
    for r in [&sde, &mwu, &mia] {
        assert_eq!(errors(&v, r), Vec::<String>::new(), "{}", r["command"]);
    }
    type Edit = Box<dyn Fn(&mut Value)>;
    let broken: Vec<(&str, &Value, Edit)> = vec![
        (
            "p-value as text",
            &mwu,
            Box::new(|r| r["result"]["p_value"] = json!("0.5")),
        ),
        (
            "p-value above 1",
            &mwu,
            Box::new(|r| r["result"]["p_value"] = json!(1.5)),
        ),
        (
            "NaN written as text",
            &mwu,
            Box::new(|r| r["result"]["statistic"] = json!("nan")),
        ),
        (
            "count of rows negative",
            &mwu,
            Box::new(|r| r["result"]["n_x"] = json!(-1)),
        ),
        ("version a number", &mwu, Box::new(|r| r["lethe_version"] = json!(1))),
        (
            "unknown command",
            &mwu,
            Box::new(|r| r["command"] = json!("mannwhitney")),
        ),
        (
            "headline without its reason",
            &mwu,
            Box::new(|r| {
                r["headline"].as_object_mut().unwrap().remove("reason");
            }),
        ),
        ("a key beside the envelope's", &mwu, Box::new(|r| r["extra"] = json!(1))),
        ("seed as text", &mwu, Box::new(|r| r["seed"] = json!("7"))),
        (
            "warning code with spaces",
            &sde,
            Box::new(|r| r["warnings"][0]["code"] = json!("Not A Code")),
        ),
        (
            "warning without its fix",
            &sde,
            Box::new(|r| {
                r["warnings"][0].as_object_mut().unwrap().remove("fix");
            }),
        ),
        (
            "input digest not hex",
            &sde,
            Box::new(|r| r["inputs"][0]["sha256"] = json!("xyz")),
        ),
        (
            "verdict as a word",
            &sde,
            Box::new(|r| r["result"]["targets"][0]["verdict"]["in_training"] = json!("yes")),
        ),
        (
            "result key missing",
            &sde,
            Box::new(|r| {
                r["result"].as_object_mut().unwrap().remove("targets");
            }),
        ),
        (
            "AUC as text",
            &mia,
            Box::new(|r| r["result"]["summary"]["auc"] = json!("0.8")),
        ),
        // Another command's result under this command's name.
        (
            "mwu's result in an sde report",
            &mwu,
            Box::new(|r| r["command"] = json!("sde")),
        ),
    ];
    for (what, base, edit) in broken {
        let mut r = base.clone();
        edit(&mut r);
        assert!(!errors(&v, &r).is_empty(), "the schema accepted a report with {what}");
    }
}

/// The one version: Cargo.toml's [workspace.package] version (the crates', `lethe --version`'s) is every copy's.
#[test]
fn every_copy_of_the_version_is_the_workspace_version() {
    let read = |rel: &str| std::fs::read_to_string(root().join(rel)).unwrap();
    // python/Cargo.toml (the wheel's version: maturin reads it) is outside the workspace and cannot inherit it.
    let py: toml_line::Version = read("python/Cargo.toml").parse().unwrap();
    assert_eq!(py.0, VERSION, "python/Cargo.toml's [package] version");
    let js = read("www/src/version.js");
    assert!(
        js.contains(&format!("export const VERSION = '{VERSION}';")),
        "www/src/version.js is not {VERSION}: run tools/version.sh --set {VERSION}"
    );
    assert_eq!(
        schema()["$id"],
        format!("urn:lethe:report-schema:{VERSION}"),
        "the schema's $id"
    );
    assert!(
        read("CHANGELOG.md").contains(&format!("\n## [{VERSION}]")),
        "CHANGELOG.md has no section for {VERSION}"
    );
    // tools/version.sh prints the same number and finds every copy equal.
    let script = |args: &[&str]| {
        Command::new("bash")
            .arg(root().join("tools/version.sh"))
            .args(args)
            .output()
            .expect("run tools/version.sh")
    };
    let out = script(&[]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), VERSION, "tools/version.sh");
    let check = script(&["--check"]);
    assert!(
        check.status.success(),
        "tools/version.sh --check: {}",
        String::from_utf8_lossy(&check.stderr)
    );
}

/// The `version = "…"` line of a Cargo.toml's [package] table (no TOML parser among the dependencies).
mod toml_line {
    pub struct Version(pub String);

    impl std::str::FromStr for Version {
        type Err = String;
        fn from_str(s: &str) -> Result<Self, String> {
            let mut in_package = false;
            for line in s.lines().map(str::trim) {
                if line.starts_with('[') {
                    in_package = line == "[package]";
                } else if in_package && let Some(rest) = line.strip_prefix("version") {
                    let v = rest.trim_start().trim_start_matches('=').trim();
                    return Ok(Version(v.trim_matches('"').to_string()));
                }
            }
            Err("no [package] version".into())
        }
    }
}
