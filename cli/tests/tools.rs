//! Tools' files from the user's side (issue 14): `lethe inspect` on the sample files each tool's own code wrote
//! (tests/fixtures/tools, PROVENANCE.md there) says which tool wrote them, what they hold and the commands they
//! offer; each offered command runs and agrees with what the tool itself stored (scikit-learn's AUC in
//! privacy-meter's attack results, LeakPro's roc_auc, main.py's accuracy means); the tool keys (`#members`,
//! `#model=K`) read what they say; almost-right files are told apart with the fix, never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn fixture(rel: &str) -> String {
    let p: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "tests", "fixtures", "tools", rel]
        .iter()
        .collect();
    p.to_string_lossy().into_owned()
}

fn lethe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(args: &[&str]) -> (String, String) {
    let out = lethe(args);
    let (o, e) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "lethe {args:?} failed:\n{e}");
    (o, e)
}

fn report(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    serde_json::from_str(&ok(&a).0).expect("JSON report")
}

fn fails(args: &[&str]) -> (i32, String) {
    let out = lethe(args);
    let e = text(&out.stderr);
    assert!(
        !out.status.success(),
        "lethe {args:?} should fail:\n{}",
        text(&out.stdout)
    );
    assert!(!e.contains("panicked"), "{e}");
    (out.status.code().unwrap_or(-1), e)
}

/// Runs an offer's command line (`lethe mia --scores A --labels B`) with `--json`.
fn run_offer(cli: &str) -> Value {
    let words: Vec<&str> = cli.split(' ').collect();
    assert_eq!(words[0], "lethe", "{cli}");
    report(&words[1..])
}

fn auc(r: &Value) -> f64 {
    r["result"]["summary"]["auc"].as_f64().unwrap()
}

#[test]
fn privacy_meter_attack_results_open_and_their_audit_matches_the_stored_auc() {
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("privacy_meter/stored_auc.json")).unwrap()).unwrap();
    for name in [
        "attack_result_0.npz",
        "attack_result_1.npz",
        "attack_result_average.npz",
    ] {
        let f = fixture(&format!("privacy_meter/log/report/exp/{name}"));
        let r = report(&["inspect", &f]);
        assert_eq!(r["headline"]["call"], "tool_file");
        let tool = &r["result"]["tool"]["summary"];
        assert_eq!(tool["tool"], "privacy-meter");
        assert_eq!(tool["kind"], "attack_result");
        assert_eq!(tool["samples"], if name.contains("average") { 240 } else { 120 });
        assert!(tool["follows"].as_str().unwrap().contains("audit.py get_audit_results"));
        let offer = &tool["offers"][0];
        assert_eq!(offer["label"], "Membership audit of members vs non-members");
        let audit = run_offer(offer["cli"].as_str().unwrap());
        let want = stored[name].as_f64().unwrap();
        assert!(
            (auc(&audit) - want).abs() < 1e-12,
            "{name}: {} vs scikit-learn's {want}",
            auc(&audit)
        );
        // The tool keys: the members' and non-members' scores as two samples give the same audit.
        let split = report(&["mia", &format!("{f}#members"), &format!("{f}#non_members")]);
        assert_eq!(auc(&split), auc(&audit), "{name}");
        assert_eq!(split["inputs"][0]["spec"], format!("{f}#members"));
    }
    // The text form lists the keys and the command.
    let f = fixture("privacy_meter/log/report/exp/attack_result_0.npz");
    let (o, _) = ok(&["inspect", &f]);
    assert!(o.contains("Written by ML Privacy Meter (attack_result)"), "{o}");
    assert!(o.contains("#non_members"), "{o}");
    assert!(
        o.contains(&format!("lethe mia --scores {f}#scores --labels {f}#memberships")),
        "{o}"
    );
}

#[test]
fn privacy_meter_signals_read_per_model() {
    let sig = fixture("privacy_meter/log/signals/rmia_signals.npy");
    let mem = fixture("privacy_meter/log/memberships.npy");
    for k in 0..4 {
        let r = report(&[
            "mia",
            "--scores",
            &format!("{sig}#model={k}"),
            "--labels",
            &format!("{mem}#model={k}"),
        ]);
        let s = &r["result"]["summary"];
        // split_dataset_for_training: each model trains on half of the 120 samples.
        assert_eq!(
            (s["n_members"].as_u64(), s["n_non_members"].as_u64()),
            (Some(60), Some(60))
        );
        assert!(
            auc(&r) > 0.5,
            "model {k}: members' confidences are higher by construction"
        );
    }
    let (code, e) = fails(&[
        "mia",
        "--scores",
        &format!("{sig}#model=4"),
        "--labels",
        &format!("{mem}#model=0"),
    ]);
    assert_eq!(code, 1);
    assert!(e.contains("it holds 4 models") && e.contains("past the last"), "{e}");
    let (_, e) = fails(&[
        "mia",
        "--scores",
        &format!("{sig}#model=x"),
        "--labels",
        &format!("{mem}#model=0"),
    ]);
    assert!(e.contains("`model=x` is not a model number"), "{e}");
}

#[test]
fn leakpro_results_open_and_their_audit_matches_roc_auc() {
    let f = fixture("leakpro/rmia-3f2a9c0d1e4b5a67.json");
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let r = report(&["inspect", &f]);
    let tool = &r["result"]["tool"]["summary"];
    assert_eq!(
        (tool["tool"].as_str(), tool["kind"].as_str()),
        (Some("leakpro"), Some("data_object"))
    );
    assert_eq!(tool["samples"], 150);
    let audit = run_offer(tool["offers"][0]["cli"].as_str().unwrap());
    let want = stored["roc_auc"].as_f64().unwrap();
    assert!(
        (auc(&audit) - want).abs() < 1e-12,
        "{} vs LeakPro's {want}",
        auc(&audit)
    );
    // LeakPro's fixed-FPR table is read at the same FPRs with the same rule (lethe mia's defaults).
    let table = stored["fixed_fpr"].as_object().unwrap();
    let at = audit["result"]["tpr_at_fpr"].as_array().unwrap();
    let tpr_at = |fpr: f64| {
        at.iter()
            .find(|t| t["target_fpr"].as_f64() == Some(fpr))
            .and_then(|t| t["tpr"].as_f64())
            .unwrap()
    };
    for (key, fpr) in [("TPR@10%FPR", 0.1), ("TPR@1%FPR", 0.01), ("TPR@0%FPR", 0.0)] {
        let want = table[key].as_f64().unwrap();
        assert!(
            (tpr_at(fpr) - want).abs() < 1e-12,
            "{key}: {} vs LeakPro's {want}",
            tpr_at(fpr)
        );
    }
}

#[test]
fn almost_right_files_say_what_is_wrong_and_the_fix() {
    let counts = fixture("leakpro/almost_counts_only.json");
    let r = report(&["inspect", &counts]);
    let w = r["warnings"].as_array().unwrap();
    let almost = w
        .iter()
        .find(|w| w["code"] == "tool_file_almost")
        .expect("tool_file_almost warning");
    assert!(
        almost["message"].as_str().unwrap().contains("from_full_scores"),
        "{almost}"
    );
    let (code, e) = fails(&["mia", &format!("{counts}#members"), &format!("{counts}#non_members")]);
    assert_eq!(code, 1);
    assert!(
        e.contains("almost_counts_only.json") && e.contains("confusion counts only"),
        "{e}"
    );

    let flat = fixture("competition/almost_flat_confs.npz");
    let (o, _) = ok(&["inspect", &flat]);
    assert!(
        o.contains("models × examples") && o.contains("re-save them stacked"),
        "{o}"
    );
}

#[test]
fn competition_files_give_the_final_score_with_main_py_accuracies() {
    let retrain = fixture("competition/retrain_confs.npz");
    let unlearned = fixture("competition/unlearned_confs.npz");
    let means: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("competition/main_py_means.json")).unwrap()).unwrap();
    let r = report(&["inspect", &retrain]);
    let tool = &r["result"]["tool"]["summary"];
    assert_eq!(
        (tool["tool"].as_str(), tool["kind"].as_str()),
        (Some("competition"), Some("retrain_confs"))
    );
    assert_eq!(tool["samples"], 30);
    assert_eq!(tool["models"].as_array().unwrap().len(), 16);
    let cli = tool["offers"][0]["cli"].as_str().unwrap();
    assert_eq!(
        cli,
        format!("lethe epsilon --retrained {retrain}#retrained_confs --unlearned {unlearned}#unlearned_confs")
    );
    let e = run_offer(cli);
    // main.py's np.mean of each list, to the bit.
    assert_eq!(e["parameters"]["accuracies"], means["accuracies"]);
    assert!(
        e["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["code"] == "accuracies_from_files")
    );
    let f = e["result"]["results"][0]["forget_score"].as_f64().unwrap();
    let a: Vec<f64> = means["accuracies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let final_score = e["result"]["final_scores"][0].as_f64().unwrap();
    assert_eq!(final_score, f * (a[0] / a[1]) * (a[2] / a[3]));
    // Given accuracies win, and are recorded as given.
    let given = report(&[
        "epsilon",
        "--retrained",
        &format!("{retrain}#retrained_confs"),
        "--unlearned",
        &format!("{unlearned}#unlearned_confs"),
        "--accuracies",
        "1,1,1,1",
    ]);
    assert_eq!(
        given["parameters"]["accuracies"],
        serde_json::json!([1.0, 1.0, 1.0, 1.0])
    );
    assert_eq!(given["result"]["final_scores"][0].as_f64(), Some(f));
}

#[test]
fn plain_files_are_no_tool_s_and_their_inspect_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("plain.json");
    std::fs::write(&p, r#"{"scores": [0.1, 0.2, 0.3], "labels": [0, 1, 1]}"#).unwrap();
    let r = report(&["inspect", p.to_str().unwrap()]);
    assert!(r["result"].get("tool").is_none(), "{r}");
    assert_eq!(r["headline"]["call"], "readable");
}

#[test]
fn a_tool_key_takes_a_row_range_like_any_array() {
    // `#members@0..10` was refused as "no array named members" by the range check that runs before the load.
    let f = fixture("privacy_meter/log/report/exp/attack_result_0.npz");
    let part = report(&["mia", &format!("{f}#members@0..40"), &format!("{f}#non_members@0..30")]);
    assert_eq!(part["inputs"][0]["rows_used"], 40);
    assert_eq!(part["inputs"][1]["rows_used"], 30);
    let (code, e) = fails(&["mia", &format!("{f}#members@0..100000"), &format!("{f}#non_members")]);
    assert_eq!(code, 1, "{e}");
    assert!(
        e.contains("out of range") && e.contains("valid indices are 0 to ") && e.contains("counting from 0"),
        "{e}"
    );
}
