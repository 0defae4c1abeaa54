//! `lethe mia` and `lethe fdr` from the user's side: files in a temporary directory, the binary, its exit status,
//! stdout and stderr. Two score files, or scores + a label column (and the row grammar's split column); the
//! refusals of bad input (one class empty, NaN, every score equal, labels not 0/1) naming the file and row; an AUC
//! below 0.5 said, never silent; the JSON report's fields; fdr against statsmodels' numbers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
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

struct Dir(tempfile::TempDir);

impl Dir {
    fn new() -> Self {
        Self(tempfile::tempdir().unwrap())
    }
    fn file(&self, name: &str, body: &str) -> String {
        let p: PathBuf = self.0.path().join(name);
        std::fs::write(&p, body).unwrap();
        p.to_string_lossy().into_owned()
    }
}

fn lines(v: impl IntoIterator<Item = f64>) -> String {
    v.into_iter().map(|x| format!("{x}\n")).collect()
}

#[test]
fn two_files_scores_with_labels_and_a_split_column_give_one_answer() {
    let d = Dir::new();
    let m = [0.9, 0.8, 0.7, 0.3, 0.65];
    let n = [0.1, 0.2, 0.75, 0.4, 0.5, 0.35];
    let mf = d.file("m.csv", &lines(m));
    let nf = d.file("n.csv", &lines(n));
    let mut table = String::from("score,member\n");
    let mut split = String::new();
    for v in m {
        table.push_str(&format!("{v},1\n"));
        split.push_str("in\n");
    }
    for v in n {
        table.push_str(&format!("{v},0\n"));
        split.push_str("out\n");
    }
    let t = d.file("t.csv", &table);
    let s = d.file("split.txt", &split);
    let a = report(&["mia", &mf, &nf]);
    let b = report(&[
        "mia",
        "--scores",
        &format!("{t}#columns=score"),
        "--labels",
        &format!("{t}#columns=member"),
    ]);
    let scores = format!("{t}#columns=score");
    let c = report(&["mia", &format!("{scores}@{s}==in"), &format!("{scores}@{s}==out")]);
    let auc = |r: &Value| r["result"]["summary"]["auc"].as_f64().unwrap();
    // U = pairs member > non-member: 0.9, 0.8 beat 6; 0.7 beats 5; 0.3 beats 2; 0.65 beats 5 → 24 of 30.
    assert_eq!(auc(&a), 0.8);
    assert_eq!(auc(&b), 0.8);
    assert_eq!(auc(&c), 0.8);
    assert_eq!(a["command"], "mia");
    assert_eq!(a["headline"]["call"], "distinguishes");
    let d = &a["result"]["delong"]["interval"];
    assert!(d["lo"].as_f64().unwrap() < 0.8 && d["hi"].as_f64().unwrap() > 0.8);
    let rows = a["result"]["tpr_at_fpr"].as_array().unwrap();
    assert_eq!(rows.len(), 5, "one row per default target FPR");
    assert!(
        rows.iter()
            .all(|r| r["realized_fpr"].as_f64().unwrap() <= r["target_fpr"].as_f64().unwrap())
    );
}

#[test]
fn every_rule_and_both_intervals_in_one_run() {
    let d = Dir::new();
    let mf = d.file("m.csv", &lines((0..200).map(|i| f64::from(i % 37) + 3.0)));
    let nf = d.file("n.csv", &lines((0..300).map(|i| f64::from(i % 41))));
    let r = report(&[
        "mia",
        &mf,
        &nf,
        "--rule",
        "all",
        "--ci",
        "both",
        "--resamples",
        "300",
        "--seed",
        "4",
        "--fpr",
        "0.01,0.1",
    ]);
    let rows = r["result"]["tpr_at_fpr"].as_array().unwrap();
    let rules: Vec<&str> = rows.iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert_eq!(
        rules,
        [
            "leakpro",
            "privacy-meter",
            "jax-privacy",
            "leakpro",
            "privacy-meter",
            "jax-privacy"
        ]
    );
    assert_eq!(r["seed"], 4);
    assert_eq!(r["parameters"]["resamples"], 300);
    assert_eq!(r["result"]["bootstrap"]["resamples_done"], 300);
    // Same seed, same report.
    let again = report(&[
        "mia",
        &mf,
        &nf,
        "--rule",
        "all",
        "--ci",
        "both",
        "--resamples",
        "300",
        "--seed",
        "4",
        "--fpr",
        "0.01,0.1",
    ]);
    assert_eq!(r["result"], again["result"]);
}

#[test]
fn auc_below_half_is_said_and_flips_with_lower_is_member() {
    let d = Dir::new();
    let mf = d.file("loss_members.csv", &lines((0..50).map(f64::from)));
    let nf = d.file("loss_non.csv", &lines((20..90).map(f64::from)));
    let out = lethe(&["mia", &mf, &nf]);
    let (o, e) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success());
    assert!(
        o.starts_with("The scores tell members from non-members the other way round"),
        "{o}"
    );
    assert!(
        e.contains("warning[auc_below_half]") && e.contains("lower score"),
        "{e}"
    );
    let r = report(&["mia", &mf, &nf, "--lower-is-member"]);
    assert_eq!(r["headline"]["call"], "distinguishes");
    assert_eq!(r["parameters"]["lower_is_member"], true);
}

#[test]
fn bad_inputs_are_refused_with_the_file_and_row() {
    let d = Dir::new();
    let good = d.file("good.csv", "0.1\n0.2\n0.3\n");
    let nan = d.file("nan.csv", "0.4\nnan\n0.5\n");
    let (code, e) = fails(&["mia", &good, &nan]);
    assert_eq!(code, 1);
    assert!(
        e.contains("[non_finite]") && e.contains("nan.csv") && e.contains("row 1"),
        "{e}"
    );

    let scores = d.file("s.csv", "0.1\n0.2\n0.3\n0.4\n");
    let labels = d.file("l.csv", "1\n0\n2\n0\n");
    let (code, e) = fails(&["mia", "--scores", &scores, "--labels", &labels]);
    assert_eq!(code, 1);
    assert!(
        e.contains("[labels_not_binary]") && e.contains("l.csv") && e.contains("row 2"),
        "{e}"
    );

    let ones = d.file("ones.csv", "1\n1\n1\n1\n");
    let (_, e) = fails(&["mia", "--scores", &scores, "--labels", &ones]);
    assert!(e.contains("[one_class_empty]") && e.contains("no non-member"), "{e}");

    let short = d.file("short.csv", "1\n0\n");
    let (_, e) = fails(&["mia", "--scores", &scores, "--labels", &short]);
    assert!(e.contains("[labels_length]"), "{e}");

    let same = d.file("same.csv", "7\n7\n7\n");
    let same2 = d.file("same2.csv", "7\n7\n");
    let (_, e) = fails(&["mia", &same, &same2]);
    assert!(e.contains("[constant_scores]") && e.contains("every score is 7"), "{e}");

    let empty = d.file("empty.csv", "score\n");
    let (code, e) = fails(&["mia", &good, &empty]);
    assert_eq!(code, 1, "{e}");

    // Usage errors: exit 2.
    let (code, _) = fails(&["mia", &good, &nan, "--ci", "wald"]);
    assert_eq!(code, 2);
    let (code, _) = fails(&["mia", &good, "--scores", &scores, "--labels", &labels]);
    assert_eq!(code, 2);
    // A value that parses but is out of range: status 1, as every command's `--alpha 2`.
    let (code, e) = fails(&["mia", &good, &good, "--fpr", "2"]);
    assert_eq!(code, 1, "{e}");
    assert!(e.contains("target FPR 2"), "{e}");
    let (code, _) = fails(&["mia", &good, &good, "--alpha", "1.5"]);
    assert_eq!(code, 1);
}

#[test]
fn fdr_gives_statsmodels_fields() {
    let d = Dir::new();
    let p = d.file("p.txt", "0.01\n0.04\n0.03\n0.5\n");
    let r = report(&["fdr", &p]);
    assert_eq!(r["command"], "fdr");
    assert_eq!(r["result"]["method"], "fdr_bh");
    assert_eq!(r["result"]["reject"], serde_json::json!([true, false, false, false]));
    // statsmodels: multipletests([.01,.04,.03,.5], .05, 'fdr_bh') → [0.04, 0.05333.., 0.05333.., 0.5]
    let adj: Vec<f64> = r["result"]["pvals_corrected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert!((adj[0] - 0.04).abs() < 1e-15 && (adj[1] - 0.04 / 0.75).abs() < 1e-15 && adj[3] == 0.5);
    assert_eq!(r["result"]["alphacBonf"].as_f64().unwrap(), 0.0125);
    assert!((r["result"]["alphacSidak"].as_f64().unwrap() - 0.012741455098566168).abs() < 1e-16);
    let r = report(&["fdr", &p, "--method", "holm"]);
    assert_eq!(r["headline"]["call"], "rejected");
    let bad = d.file("bad.txt", "0.2\n3.5\n");
    let (code, e) = fails(&["fdr", &bad]);
    assert_eq!(code, 1);
    assert!(e.contains("[not_p_values]") && e.contains("row 1"), "{e}");
    // Every statsmodels method through `--method` (statsmodels 0.15.0, multipletests([.01, .04, .03, .5], .05, m),
    // printed with repr): the report's fields bit for bit.
    let adjusted = |r: &Value| -> Vec<f64> {
        r["result"]["pvals_corrected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    for (method, reject, want) in [
        ("hommel", [true, false, false, false], [0.04, 0.08, 0.06, 0.5]),
        (
            "fdr_by",
            [false, false, false, false],
            [0.08333333333333331, 0.1111111111111111, 0.1111111111111111, 1.0],
        ),
        (
            "fdr_tsbky",
            [true, true, true, false],
            [0.0315, 0.042, 0.042, 0.39375000000000004],
        ),
    ] {
        let r = report(&["fdr", &p, "--method", method]);
        assert_eq!(r["result"]["method"], method);
        assert_eq!(r["result"]["reject"], serde_json::json!(reject), "{method}");
        assert_eq!(adjusted(&r), want, "{method}");
    }
    let r = report(&["fdr", &p, "--method", "hs"]);
    assert_eq!(r["result"]["method"], "holm-sidak");
    // A name statsmodels has but Lethe does not, or a typo: a usage error listing the valid names.
    for bad in ["fdr_gbs", "sidakk"] {
        let (code, e) = fails(&["fdr", &p, "--method", bad]);
        assert_eq!(code, 2, "{e}");
        assert!(
            e.contains(&format!("the method `{bad}` is not one of bonferroni, sidak, holm-sidak, holm, simes-hochberg, hommel, fdr_bh, fdr_by, fdr_tsbh, fdr_tsbky")),
            "{e}"
        );
    }
}

/// Issue 22, item 4: members and non-members that are rows of one file. Shared rows are counted and warned (43
/// shared rows took the AUC from 0.69 to 0.60 unannounced); the same rows on both sides are refused (audited, they
/// said "no evidence" at 0.5). Disjoint rows of one file are audited without the warning.
#[test]
fn members_and_non_members_sharing_rows_are_named() {
    let d = Dir::new();
    let body: String = (0..100)
        .map(|i| format!("{}\n", f64::from(i) * 0.37 % 1.0 + f64::from(u8::from(i < 40))))
        .collect();
    let s = d.file("scores.csv", &body);
    let r = report(&["mia", &format!("{s}@0..40"), &format!("{s}@30..100")]);
    let w = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "members_non_members_overlap");
    let w = w.unwrap_or_else(|| panic!("{}", r["warnings"]));
    assert!(
        w["message"]
            .as_str()
            .unwrap()
            .starts_with("10 of the 40 members' rows are also among the 70 non-members' rows"),
        "{w}"
    );
    let (_, e) = fails(&["mia", &format!("{s}@0..40"), &format!("{s}@0..40")]);
    assert!(
        e.contains("[members_are_non_members]") && e.contains("AUC of 0.5 by construction"),
        "{e}"
    );
    let r = report(&["mia", &format!("{s}@0..40"), &format!("{s}@40..100")]);
    assert!(
        r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["code"] != "members_non_members_overlap"),
        "{}",
        r["warnings"]
    );
}

/// Issue 22, item 4: with lower scores meaning member (a loss), thresholds are the scores' own units — flag a row
/// when its loss is at most the threshold — not the negated scores the attack ran on.
#[test]
fn lower_is_member_thresholds_are_in_the_scores_units() {
    let d = Dir::new();
    let m = d.file(
        "loss_members.csv",
        &(0..50)
            .map(|i| format!("{}\n", 0.01 * f64::from(i)))
            .collect::<String>(),
    );
    let n = d.file(
        "loss_non_members.csv",
        &(0..80)
            .map(|i| format!("{}\n", 0.3 + 0.01 * f64::from(i)))
            .collect::<String>(),
    );
    let r = report(&["mia", &m, &n, "--lower-is-member", "--fpr", "0.1"]);
    let s = &r["result"]["summary"];
    let t = s["balanced_threshold"].as_f64().unwrap();
    // Members' losses are 0..0.49, non-members' 0.3..1.09: the best cut is a loss between them, a positive number.
    assert!((0.0..=1.1).contains(&t), "{s}");
    for p in r["result"]["tpr_at_fpr"].as_array().unwrap() {
        if let Some(t) = p["threshold"].as_f64() {
            assert!((0.0..=1.1).contains(&t), "{p}");
        }
    }
    let thresholds = r["result"]["curve"]["thresholds"].as_array().unwrap();
    assert!(
        thresholds.iter().filter_map(Value::as_f64).all(|t| t >= 0.0),
        "{thresholds:?}"
    );
}
