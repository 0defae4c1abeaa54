//! Issue 24 item 5, inputs that slipped through: a split column (`FILE==VALUE`) of another length than the data it
//! labels, and a request too large for the address space a process is allowed (`ulimit -v`), which aborted in the
//! allocator instead of being refused by the budget.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Command, Output};

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("lethe-edges-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, text: &str) -> String {
    let p = dir().join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn lethe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// Two columns of `n` rows of deterministic values.
fn data(n: usize) -> String {
    (0..n)
        .map(|i| {
            let x = (i as f64 * 0.618_033_988_7).fract();
            format!("{x},{}\n", (x * 7.3).fract())
        })
        .collect()
}

fn labels(n: usize) -> String {
    (0..n).map(|i| if i % 2 == 0 { "in\n" } else { "out\n" }).collect()
}

#[test]
fn a_split_column_of_another_length_is_refused_naming_both_files() {
    let d = write("acts.csv", &data(40));
    for (n, name) in [(39, "short.txt"), (41, "long.txt")] {
        let s = write(name, &labels(n));
        let out = lethe(&[
            "sde",
            "--it",
            &format!("{d}@{s}==in"),
            "--oot",
            &format!("{d}@{s}==out"),
            "--shuffles",
            "10",
        ]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("the split column `{s}` has {n} entries but `{d}` has 40 rows")),
            "{err}"
        );
        assert!(err.contains("exactly one entry per row"), "{err}");
    }
    // One entry per row is accepted.
    let s = write("exact.txt", &labels(40));
    let out = lethe(&[
        "sde",
        "--it",
        &format!("{d}@{s}==in"),
        "--oot",
        &format!("{d}@{s}==out"),
        "--shuffles",
        "10",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Under an address-space limit a request the machine's memory would allow is refused by the budget, which names
/// the limit, instead of aborting when the allocation fails.
#[cfg(target_os = "linux")]
#[test]
fn a_request_over_the_address_space_limit_is_refused_not_aborted() {
    let d = write("big.csv", &data(40_000));
    // Halves of 10,000 rows: two kernels of 10,000² f64 (about 1.5 GiB), far below this machine's memory but above
    // what 1.4 GiB of address space leaves.
    let out = Command::new("sh")
        .args([
            "-c",
            "ulimit -v 1500000 && exec \"$0\" \"$@\"",
            env!("CARGO_BIN_EXE_lethe"),
            "sde",
            "--it",
            &format!("{d}@0..20000"),
            "--oot",
            &format!("{d}@20000..40000"),
            "--shuffles",
            "2",
            "--threads",
            "1",
        ])
        .output()
        .expect("run lethe under ulimit -v");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("memory allocation") && !err.contains("panicked"), "{err}");
    assert!(err.contains("ulimit -v"), "{err}");
    assert!(err.contains("use subsets of fewer rows"), "{err}");
}

/// Issue 24 item 8: generations saved as a JSON list of strings (`json.dump(generations, f)`) are each a generation,
/// an item spanning lines included; they were read as one generation (the list's one line).
#[test]
fn generations_given_as_a_json_list_are_each_a_generation() {
    let gens = write(
        "generations.json",
        r#"["the cat sat on the mat", "nothing", "the cat\nis on the mat"]"#,
    );
    let out = lethe(&[
        "rouge",
        "--predictions",
        &gens,
        "--reference-text",
        "the cat is on the mat",
        "--json",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let f: Vec<f64> = report["result"]["scores"]["fmeasure"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(f.len(), 3, "{report}");
    assert!(
        (f[0] - 0.8333).abs() < 1e-4 && f[1] == 0.0 && (f[2] - 1.0).abs() < 1e-12,
        "{f:?}"
    );
    // A list with an item that is not text says which.
    let bad = write("bad.json", r#"["an answer", 3]"#);
    let out = lethe(&["rouge", "--predictions", &bad, "--reference-text", "an answer"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("is a JSON list, but its item 1 (counting from 0) is 3 and not text"),
        "{err}"
    );
}

/// `lethe rouge` takes ROUGE-L's options from the layer's request, `--sentence-sep` still as the old name of
/// `--sentence-separator`; `lethe bounds` hides them, and refuses them on scores in the option's CLI name.
#[test]
fn rouge_options_are_rouges_and_refused_on_scores() {
    let gens = write("gens.txt", "the cat sat. on the mat\nnothing\n");
    for flag in ["--sentence-separator", "--sentence-sep"] {
        let out = lethe(&[
            "rouge",
            "--predictions",
            &gens,
            "--reference-text",
            "the cat sat. on the mat",
            "--lsum",
            flag,
            ". ",
            "--json",
        ]);
        assert!(out.status.success(), "{flag}: {}", stderr(&out));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["parameters"]["sentence_separator"], ". ", "{report}");
    }
    let help = String::from_utf8(lethe(&["bounds", "--help"]).stdout).unwrap();
    assert!(
        help.contains("--alpha") && !help.contains("--stemmer") && !help.contains("--lsum"),
        "{help}"
    );
    let scores = write("leaks.txt", "0.1\n0.2\n0.3\n");
    let out = lethe(&["bounds", &scores, "--stemmer"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--stemmer is for ROUGE-L of generations, not for scores"),
        "{err}"
    );
}

/// RULER's forget and retain rows chosen by a split column are checked against the models' files in the same way.
#[test]
fn rulers_split_column_of_another_length_is_refused() {
    let emb = |seed: usize| -> String {
        (0..40)
            .map(|i| {
                let x = ((i * 7 + seed) as f64 * 0.618_033_988_7).fract();
                format!("{x},{},{}\n", (x * 3.1).fract(), (x * 5.7).fract())
            })
            .collect()
    };
    let u = write("ruler_u.csv", &emb(1));
    let o = write("ruler_o.csv", &emb(2));
    let s = write(
        "ruler_split.txt",
        &(0..39)
            .map(|i| if i < 10 { "forget\n" } else { "retain\n" })
            .collect::<String>(),
    );
    let out = lethe(&[
        "ruler",
        "--unlearned",
        &u,
        "--oracle",
        &o,
        "--forget",
        &format!("{s}==forget"),
        "--retain",
        &format!("{s}==retain"),
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("`{s}` has 39 entries but `{u}` has 40 rows")),
        "{err}"
    );
}

/// Issue 24 item 5: an out-of-range pool index named the role but not the files. Now the data and the index file
/// (and the entry) are named; a range past the data names the data too.
#[test]
fn an_out_of_range_pool_index_names_the_data_and_the_index_file() {
    let d = write("calib_data.csv", &data(60));
    let pool = write("calib_pool.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n500\n");
    let oot = write("calib_oot.txt", &(30..50).map(|i| format!("{i}\n")).collect::<String>());
    let out = lethe(&[
        "calibrate",
        "--data",
        &d,
        "--it-pool",
        &pool,
        "--oot-pool",
        &oot,
        "--target",
        "50..54",
        "--size",
        "4",
    ]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("row index 500"), "{err}");
    assert!(
        // Entries counted from 0, as rows and indices are, and the numbering named: 500 is the file's 12th entry.
        err.contains("(entry 11 of the index file") && err.contains("calib_pool.txt, counting from 0)"),
        "{err}"
    );
    assert!(err.contains("calib_data.csv") && err.contains("has 60 rows"), "{err}");
    let out = lethe(&[
        "calibrate",
        "--data",
        &d,
        "--it-pool",
        "0..90",
        "--oot-pool",
        &oot,
        "--target",
        "50..54",
        "--size",
        "4",
    ]);
    let err = stderr(&out);
    assert!(
        err.contains("rows 0..90 are out of range") && err.contains("calib_data.csv"),
        "{err}"
    );
}
