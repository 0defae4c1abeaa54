//! The options and analyses the layer's messages name once, marked (`lethe_analysis::words`), as the command line
//! says them: `--fdr`, `--equal-size`, `` `lethe calibrate` ``, in errors, warnings, JSON reports and batch cells, and
//! never a mark left unsaid.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn digits(name: &str) -> String {
    root().join("examples/data/digits").join(name).display().to_string()
}

fn lethe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

/// stdout and stderr together, checked for marks the CLI left unsaid.
fn said(o: &Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        !text.contains("{opt:") && !text.contains("{cmd:"),
        "a mark left in the output: {text}"
    );
    text
}

#[test]
fn a_refusal_names_the_option_as_a_flag() {
    let act = digits("act_unlearned.npy");
    let (forget, retain) = (digits("forget.txt"), digits("retain.txt"));
    let out = lethe(&[
        "ruler",
        "--unlearned",
        &act,
        "--oracle",
        &digits("act_retrained.npy"),
        "--original",
        &digits("act_original.npy"),
        "--forget",
        &forget,
        "--retain",
        &retain,
        "--fdr",
        "2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let text = said(&out);
    assert!(text.contains("the false discovery rate (--fdr) is 2"), "{text}");

    let sde = lethe(&[
        "sde",
        "--it",
        &format!("{act}@0..359"),
        "--oot",
        &format!("{act}@359..509"),
        "--target",
        &format!("{act}@509..569"),
        "--shuffles",
        "20",
    ]);
    let text = said(&sde);
    assert!(text.contains("ask for equal-size subsets (`--equal-size`)"), "{text}");
}

#[test]
fn the_probabilities_refusal_names_each_input_as_its_flag() {
    // Confidences in [0, 1]: the refusal names the other inputs and the acknowledgement as their flags.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.npy");
    let values: Vec<f64> = (0..8 * 20)
        .map(|i| 0.05 + 0.9 * ((i * 37 % 101) as f64 / 101.0))
        .collect();
    std::fs::write(&p, lethe_analysis::npy::f64_bytes(&values, &[8, 20])).unwrap();
    let p = p.display().to_string();
    let out = lethe(&["epsilon", "--retrained", &p, "--unlearned", &p]);
    let text = said(&out);
    assert!(text.contains("[probabilities_given]"), "{text}");
    assert!(
        text.contains("Give the logits (--retrained-logits, --unlearned-logits: models × examples × classes)")
            && text.contains("probabilities (--retrained-probs, --unlearned-probs) with the labels")
            && text.contains("say so (--confidences logit-scaled)"),
        "{text}"
    );
}

#[test]
fn reports_and_batch_cells_say_the_commands_and_options() {
    // A reader's note (the core's words) in a JSON report: another analysis and its flags.
    let confs = root().join("tests/fixtures/tools/competition/retrain_confs.npz");
    let out = lethe(&["inspect", &confs.display().to_string(), "--json"]);
    assert!(out.status.success());
    let text = said(&out);
    assert!(
        text.contains(
            "give both to `lethe epsilon` (--retrained retrain_confs.npz#retrained_confs --unlearned \
             unlearned_confs.npz#unlearned_confs)"
        ),
        "{text}"
    );
    // A batch cell's error, as the cell records it and as stderr says it.
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("m.jsonl");
    let act = digits("act_unlearned.npy");
    let cell = format!(
        "{{\"command\": \"ruler\", \"inputs\": {{\"unlearned\": \"{act}\", \"oracle\": \"{}\", \"original\": \"{}\", \
         \"forget\": \"{}\", \"retain\": \"{}\"}}, \"options\": {{\"fdr\": 2}}}}\n",
        digits("act_retrained.npy"),
        digits("act_original.npy"),
        digits("forget.txt"),
        digits("retain.txt")
    );
    std::fs::write(&manifest, cell).unwrap();
    let out = lethe(&["batch", &manifest.display().to_string()]);
    let text = said(&out);
    assert!(text.matches("(--fdr) is 2").count() >= 2, "cell and stderr: {text}");
}
