//! The guardrails and headlines of `lethe ruler`, `lethe epsilon`, `lethe bounds` and `lethe rouge` (issue 11), one
//! test per guardrail, on real files written here: what a user sees on stdout and stderr, and the exit status.
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

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// Runs with `--json`, expecting success; the report and stderr.
fn json(args: &[&str]) -> (Value, String) {
    let mut a = args.to_vec();
    a.push("--json");
    let out = lethe(&a);
    assert!(out.status.success(), "lethe {args:?} failed: {}", stderr(&out));
    (serde_json::from_slice(&out.stdout).expect("JSON report"), stderr(&out))
}

/// Expects a failure with exit status `code`; its stderr.
fn refused(args: &[&str], code: i32) -> String {
    let out = lethe(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(code), "lethe {args:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

fn npy(dir: &Path, name: &str, values: &[f64], shape: &[usize]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, lethe_analysis::npy::f64_bytes(values, shape)).unwrap();
    p.display().to_string()
}

/// Rows × cols embeddings, deterministic, all rows different.
fn embeddings(rows: usize, cols: usize, seed: f64) -> Vec<f64> {
    (0..rows * cols)
        .map(|i| ((i as f64 + 1.0) * (0.37 + seed)).sin())
        .collect()
}

#[test]
fn ruler_refuses_an_oracle_file_with_other_rows() {
    let dir = tempfile::tempdir().unwrap();
    let u = npy(dir.path(), "unlearned.npy", &embeddings(40, 8, 0.0), &[40, 8]);
    let o = npy(dir.path(), "oracle.npy", &embeddings(39, 8, 0.1), &[39, 8]);
    let err = refused(
        &[
            "ruler",
            "--unlearned",
            &u,
            "--oracle",
            &o,
            "--forget",
            "0..10",
            "--retain",
            "10..39",
        ],
        1,
    );
    assert!(err.contains("[row_counts_differ]"), "{err}");
    assert!(
        err.contains("oracle.npy` has 39 rows") && err.contains("has 40"),
        "{err}"
    );
    assert!(err.contains("same records in the same order"), "{err}");
}

#[test]
fn ruler_refuses_one_number_embeddings() {
    let dir = tempfile::tempdir().unwrap();
    let flat: Vec<f64> = (0..40).map(f64::from).collect();
    let u = npy(dir.path(), "scores.npy", &flat, &[40]);
    let err = refused(
        &["ruler", "--unlearned", &u, "--forget", "0..10", "--retain", "10..40"],
        1,
    );
    assert!(err.contains("[one_number_embeddings]"), "{err}");
    assert!(err.contains("scores.npy` is a 1-D array of 40 numbers"), "{err}");
    assert!(err.contains("records × features"), "{err}");
}

#[test]
fn ruler_warns_when_forget_and_retain_rows_overlap() {
    let dir = tempfile::tempdir().unwrap();
    let u = npy(dir.path(), "unlearned.npy", &embeddings(40, 8, 0.0), &[40, 8]);
    let args = ["ruler", "--unlearned", &u, "--forget", "0..10", "--retain", "5..40"];
    let (report, err) = json(&args);
    assert!(
        err.contains("warning[forget_retain_overlap]: 5 of the 10 forget rows are also retain rows"),
        "{err}"
    );
    assert!(
        err.contains("--> retain") && err.contains("help: give forget and retain rows"),
        "{err}"
    );
    assert_eq!(report["warnings"][0]["code"], "forget_retain_overlap");
    assert_eq!(report["warnings"][0]["input"], "retain");
    // Disjoint rows: no word.
    let (report, err) = json(&["ruler", "--unlearned", &u, "--forget", "0..10", "--retain", "10..40"]);
    assert!(!err.contains("forget_retain"), "{err}");
    assert_eq!(report["warnings"], serde_json::json!([]));
}

#[test]
fn ruler_refuses_identical_forget_and_retain_rows() {
    let dir = tempfile::tempdir().unwrap();
    let u = npy(dir.path(), "unlearned.npy", &embeddings(40, 8, 0.0), &[40, 8]);
    let idx = dir.path().join("rows.txt");
    std::fs::write(&idx, (0..12).map(|i| i.to_string()).collect::<Vec<_>>().join("\n")).unwrap();
    let idx = idx.display().to_string();
    let err = refused(&["ruler", "--unlearned", &u, "--forget", &idx, "--retain", &idx], 1);
    assert!(err.contains("[forget_retain_identical]"), "{err}");
    assert!(err.contains("the same 12 rows"), "{err}");
}

#[test]
fn one_ruler_run_gets_a_call_per_metric_and_one_headline() {
    let dir = tempfile::tempdir().unwrap();
    let u = npy(dir.path(), "unlearned.npy", &embeddings(60, 8, 0.0), &[60, 8]);
    let o = npy(dir.path(), "oracle.npy", &embeddings(60, 8, 0.05), &[60, 8]);
    let args = [
        "ruler",
        "--unlearned",
        &u,
        "--oracle",
        &o,
        "--forget",
        "0..20",
        "--retain",
        "20..60",
    ];
    let out = lethe(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let first = text.lines().next().unwrap();
    assert!(
        [
            "Residual memorisation",
            "Over-correction",
            "No sign of residual memorisation",
            "Inconclusive"
        ]
        .iter()
        .any(|h| first.starts_with(h)),
        "the headline comes first: {text}"
    );
    for m in ["  m1 oracle similarity ", "  m2 ", "  m4 nearest-neighbour rank "] {
        assert!(text.contains(m), "a call for {m}: {text}");
    }
    assert!(text.contains("one run cannot test it"), "{text}");
    let (report, _) = json(&args);
    let call = report["headline"]["call"].as_str().unwrap();
    assert!(
        ["residual_memorisation", "over_displaced", "at_null", "inconclusive"].contains(&call),
        "{call}"
    );
}

/// The probabilities of the true class (models × examples), the mistake of issue 11, and the same models' logits.
struct Competition {
    dir: tempfile::TempDir,
}

impl Competition {
    const MODELS: usize = 16;
    const EXAMPLES: usize = 12;
    const CLASSES: usize = 3;

    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (m, e, c) = (Self::MODELS, Self::EXAMPLES, Self::CLASSES);
        let logits = |shift: f64| -> Vec<f64> {
            let mut v = Vec::new();
            for model in 0..m {
                for ex in 0..e {
                    for class in 0..c {
                        let noise = ((model * 31 + ex * 7 + class * 3) as f64 * 0.618).sin();
                        let signal = if class == ex % c {
                            4.0 + shift * (ex % 2) as f64
                        } else {
                            0.0
                        };
                        v.push(signal + noise);
                    }
                }
            }
            v
        };
        let softmax = |v: &[f64]| -> Vec<f64> {
            v.chunks(c)
                .flat_map(|row| {
                    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let ex: Vec<f64> = row.iter().map(|x| (x - max).exp()).collect();
                    let s: f64 = ex.iter().sum();
                    ex.into_iter().map(move |x| x / s)
                })
                .collect()
        };
        let (rl, ul) = (logits(0.0), logits(2.0));
        let (rp, up) = (softmax(&rl), softmax(&ul));
        let p_true = |p: &[f64]| -> Vec<f64> { p.chunks(c).enumerate().map(|(k, row)| row[(k % e) % c]).collect() };
        let labels: Vec<f64> = (0..e).map(|x| (x % c) as f64).collect();
        let d = dir.path();
        npy(d, "rl.npy", &rl, &[m, e, c]);
        npy(d, "ul.npy", &ul, &[m, e, c]);
        npy(d, "rp.npy", &rp, &[m, e, c]);
        npy(d, "up.npy", &up, &[m, e, c]);
        npy(d, "r_prob.npy", &p_true(&rp), &[m, e]);
        npy(d, "u_prob.npy", &p_true(&up), &[m, e]);
        npy(d, "labels.npy", &labels, &[e]);
        Self { dir }
    }

    fn p(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }
}

#[test]
fn epsilon_refuses_probabilities_and_names_the_conversions() {
    let c = Competition::new();
    let (r, u) = (c.p("r_prob.npy"), c.p("u_prob.npy"));
    let err = refused(&["epsilon", "--retrained", &r, "--unlearned", &u], 1);
    assert!(err.contains("[probabilities_given]"), "{err}");
    for needle in [
        "r_prob.npy",
        "look like probabilities",
        "logit-scaled confidences",
        // The options, named once in the layer, as the command line says them.
        "(--retrained-logits, --unlearned-logits",
        "(--retrained-probs, --unlearned-probs)",
        "with the labels",
        "say so (--confidences logit-scaled)",
    ] {
        assert!(err.contains(needle), "`{needle}`: {err}");
    }
    // The layer names the options once (marked); the CLI said every one of them in its words.
    assert!(!err.contains("{opt:") && !err.contains("{cmd:"), "{err}");
    // The user's word that they are logit-scaled already: scored, with a warning.
    let (report, err) = json(&[
        "epsilon",
        "--retrained",
        &r,
        "--unlearned",
        &u,
        "--confidences",
        "logit-scaled",
    ]);
    assert!(err.contains("warning[probabilities_accepted]"), "{err}");
    assert_eq!(report["parameters"]["confidences"], "logit-scaled");
}

#[test]
fn epsilon_converts_class_probabilities_with_labels_as_the_logits() {
    let c = Competition::new();
    let labels = c.p("labels.npy");
    let run = |r: &str, u: &str, kind: &str| {
        json(&[
            "epsilon",
            &format!("--retrained-{kind}"),
            &c.p(r),
            &format!("--unlearned-{kind}"),
            &c.p(u),
            "--labels",
            &labels,
            "--variant",
            "exhaustive",
        ])
        .0
    };
    let by_logits = run("rl.npy", "ul.npy", "logits");
    let by_probs = run("rp.npy", "up.npy", "probs");
    assert_eq!(
        by_probs["result"]["results"][0]["forget_score"],
        by_logits["result"]["results"][0]["forget_score"]
    );
    assert_eq!(by_probs["parameters"]["retrained_probs"], c.p("rp.npy").as_str());
    assert!(
        by_logits["parameters"].get("retrained_probs").is_none(),
        "reports without the new options keep their parameters"
    );
    // Probabilities and logits together: a usage error.
    refused(
        &[
            "epsilon",
            "--retrained-logits",
            &c.p("rl.npy"),
            "--unlearned-logits",
            &c.p("ul.npy"),
            "--retrained-probs",
            &c.p("rp.npy"),
            "--unlearned-probs",
            &c.p("up.npy"),
            "--labels",
            &labels,
        ],
        2,
    );
}

#[test]
fn epsilon_names_the_official_score_as_the_one_to_report() {
    let c = Competition::new();
    let out = lethe(&[
        "epsilon",
        "--retrained-logits",
        &c.p("rl.npy"),
        "--unlearned-logits",
        &c.p("ul.npy"),
        "--labels",
        &c.p("labels.npy"),
        "--variant",
        "all",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let mut lines = text.lines();
    let first = lines.next().unwrap();
    assert!(
        first.starts_with("Forgetting quality F = ")
            && first.contains("(official, as the competition's metric.py)")
            && first.contains("a perfect unlearner"),
        "{text}"
    );
    assert!(
        first.contains("for comparison only: exhaustive F = ") && first.contains("Clopper–Pearson F = "),
        "{text}"
    );
    assert!(text.contains("the competition document's definition"), "{text}");
}

#[test]
fn epsilon_says_why_examples_scored_zero_in_a_users_words() {
    let dir = tempfile::tempdir().unwrap();
    // Every model gives the same value for every example (saturated outputs); 8 retrained and 9 unlearned models
    // (the same values on both sides would be refused as one file given twice).
    let r = npy(dir.path(), "r.npy", &[7.0; 8 * 5], &[8, 5]);
    let u = npy(dir.path(), "u.npy", &[7.0; 9 * 5], &[9, 5]);
    let (report, err) = json(&[
        "epsilon",
        "--retrained",
        &r,
        "--unlearned",
        &u,
        "--variant",
        "exhaustive",
    ]);
    assert!(err.contains("warning[examples_unscored]"), "{err}");
    assert!(err.contains("all of them are equal"), "{err}");
    for dev in ["both are constant", "assert", "thr_eps", "FPR"] {
        assert!(!err.contains(dev), "`{dev}` in a user's message: {err}");
    }
    assert_eq!(report["headline"]["call"], "inconclusive");
}

#[test]
fn bounds_on_too_few_scores_are_inconclusive_and_messages_use_option_names() {
    let dir = tempfile::tempdir().unwrap();
    let few = npy(dir.path(), "few.npy", &[0.0, 0.1, 0.4, 0.2, 0.3], &[5]);
    let (report, err) = json(&["bounds", &few]);
    assert_eq!(report["headline"]["call"], "inconclusive", "{report}");
    assert!(
        report["headline"]["reason"]
            .as_str()
            .unwrap()
            .contains("would bound it")
    );
    assert!(err.contains("warning[mass_at_zero_left_out]"), "{err}");
    // The option as the command line writes it (it said "(sd-method lp)", a flag without its dashes).
    assert!(err.contains("(--sd-method lp") && !err.contains("SdMethod"), "{err}");
    let flags: Vec<f64> = (0..300).map(|i| f64::from(u8::from(i % 25 == 0))).collect();
    let many = npy(dir.path(), "flags.npy", &flags, &[300]);
    let out = lethe(&["bounds", &many]);
    let text = stdout(&out);
    assert!(text.starts_with("Leak probability at most "), "{text}");
}

#[test]
fn rouge_shows_each_generations_score() {
    let dir = tempfile::tempdir().unwrap();
    let gens = dir.path().join("gen.txt");
    std::fs::write(&gens, "the cat sat on the mat\nnothing\n").unwrap();
    let gens = gens.display().to_string();
    let args = [
        "rouge",
        "--predictions",
        &gens,
        "--reference-text",
        "the cat is on the mat",
    ];
    let out = lethe(&args);
    let text = stdout(&out);
    assert!(
        text.starts_with("Mean ROUGE-L F-measure 0.4167 over 2 generations"),
        "{text}"
    );
    assert!(text.contains("  1     0.8333     0.8333    0.8333"), "{text}");
    assert!(text.contains("  2     0          0         0"), "{text}");
    let (report, _) = json(&args);
    assert_eq!(report["result"]["scores"]["fmeasure"].as_array().unwrap().len(), 2);
    assert_eq!(report["headline"]["call"], "rouge_l");
}

#[test]
fn epsilon_refuses_logits_given_as_confidences() {
    let c = Competition::new();
    let err = refused(
        &["epsilon", "--retrained", &c.p("rl.npy"), "--unlearned", &c.p("ul.npy")],
        1,
    );
    assert!(err.contains("[classes_given_as_confidences]"), "{err}");
    assert!(err.contains("rl.npy` is a 16 × 12 × 3 array"), "{err}");
    assert!(
        err.contains("scored as 36 examples") && err.contains("the retrained models' logits (--retrained-logits)"),
        "{err}"
    );
}

#[test]
fn epsilon_refuses_true_class_probabilities_given_as_class_probabilities() {
    let c = Competition::new();
    let err = refused(
        &[
            "epsilon",
            "--retrained-probs",
            &c.p("r_prob.npy"),
            "--unlearned-probs",
            &c.p("u_prob.npy"),
            "--labels",
            &c.p("labels.npy"),
        ],
        1,
    );
    assert!(err.contains("[one_number_per_example]"), "{err}");
    assert!(err.contains("r_prob.npy` is a 16 × 12 array"), "{err}");
    assert!(err.contains("models × examples × classes"), "{err}");
}
