//! The guardrails of the statistics commands (issues 11 and 12), from the user's side: real files in a temporary
//! directory, the `lethe` binary, its exit status, stdout and stderr. One test per guardrail:
//!
//! * the file readers' warnings reach the user (a .npy with bytes after its data), with one code in every command;
//! * ±inf and numbers beyond float64 (`1e400`) in a rank test are ranked with a warning; kernels, histograms and
//!   distances refuse them; NaN is refused everywhere — each naming the file and the row of the file;
//! * Wilcoxon with every difference zero is "inconclusive" with the reason, not `p = NaN`;
//! * errors name their files (shapes that do not match, a 2-D file for a 1-D test, bad labels);
//! * a file whose name is not UTF-8 can be named, and a non-UTF-8 argument where text is needed says which one.
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

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs a command that must succeed; returns (stdout, stderr).
fn ok(args: &[&str]) -> (String, String) {
    let out = lethe(args);
    let (o, e) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "lethe {args:?} failed:\n{e}");
    (o, e)
}

/// Runs a command with `--json` that must succeed; returns the report.
fn report(args: &[&str]) -> Value {
    let mut a = args.to_vec();
    a.push("--json");
    let (o, _) = ok(&a);
    serde_json::from_str(&o).expect("JSON report")
}

/// Runs a command that must fail; returns (exit status, stderr).
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
    fn path(&self, name: &str) -> PathBuf {
        self.0.path().join(name)
    }
    fn write(&self, name: &str, bytes: &[u8]) -> String {
        let p = self.path(name);
        std::fs::write(&p, bytes).unwrap();
        p.display().to_string()
    }
}

fn npy(values: &[f64], shape: &[usize]) -> Vec<u8> {
    lethe_analysis::npy::f64_bytes(values, shape)
}

/// Columns of `n` rows: `0, 1, 2, ...` shifted by `shift`, one column.
fn column(n: usize, shift: f64) -> String {
    (0..n).map(|i| format!("{}\n", i as f64 + shift)).collect()
}

/// A .npy with bytes after its data: every statistic still computes, and says so on stderr (with the file and
/// the fix) and in the report's warnings — with the human output and with --json alike.
#[test]
fn trailing_bytes_in_an_npy_are_a_warning_for_every_statistic() {
    let d = Dir::new();
    let mut bytes = npy(&(0..12).map(f64::from).collect::<Vec<_>>(), &[12]);
    bytes.extend_from_slice(b"garbage");
    let g = d.write("garbage.npy", &bytes);
    let y = d.write("y.csv", column(12, 0.5).as_bytes());
    let mut m = npy(&(0..24).map(|v| f64::from(v).sin()).collect::<Vec<_>>(), &[12, 2]);
    m.extend_from_slice(b"xx");
    let gm = d.write("garbage2d.npy", &m);
    let m2 = d.write(
        "m2.npy",
        &npy(&(0..24).map(|v| f64::from(v).cos()).collect::<Vec<_>>(), &[12, 2]),
    );
    let runs: Vec<Vec<&str>> = vec![
        vec!["mwu", &g, &y],
        vec!["wilcoxon", &g, &y],
        vec!["wilcoxon", &g],
        vec!["jsd", &g, &y],
        vec!["mmd", &gm, &m2],
        vec!["wasserstein", &gm, &m2],
        vec!["hsic", &gm, &m2, "--permutations", "99"],
        vec!["inspect", &g],
    ];
    for args in runs {
        let (_, err) = ok(&args);
        assert!(
            err.contains("warning[trailing_bytes]") && err.contains("garbage") && err.contains("re-save"),
            "lethe {args:?}: stderr should carry the reader's warning:\n{err}"
        );
        let r = report(&args);
        let w = &r["warnings"][0];
        assert_eq!(w["code"], "trailing_bytes", "lethe {args:?}: {r}");
        assert!(
            w["message"].as_str().unwrap().contains("bytes after the array data"),
            "{w}"
        );
        assert!(r["headline"]["text"].as_str().is_some_and(|t| !t.is_empty()), "{r}");
    }
}

/// The same reader warning, with the same code, from every other command that loads arrays.
#[test]
fn trailing_bytes_are_a_warning_for_every_command() {
    let d = Dir::new();
    let act: Vec<f64> = (0..40 * 4).map(|v| (f64::from(v) * 0.37).sin()).collect();
    let mut g = npy(&act, &[40, 4]);
    g.extend_from_slice(b"zz");
    let g = d.write("act_garbage.npy", &g);
    let ok_act = d.write("act.npy", &npy(&act, &[40, 4]));
    // Logit-scaled confidences of 8 models on 40 examples (spread over the real line, so not probabilities).
    let conf: Vec<f64> = (0..8 * 40).map(|v| (f64::from(v) * 0.61).sin() * 4.0).collect();
    let mut c = npy(&conf, &[8, 40]);
    c.extend_from_slice(b"zz");
    let c = d.write("conf_garbage.npy", &c);
    // The unlearned side differs (the same values on both sides are refused as one file given twice).
    let other: Vec<f64> = conf.iter().map(|v| v + 0.5).collect();
    let ok_conf = d.write("conf.npy", &npy(&other, &[8, 40]));
    let scores: Vec<f64> = (0..30).map(|v| f64::from(v) / 30.0).collect();
    let mut s = npy(&scores, &[30]);
    s.extend_from_slice(b"zz");
    let s = d.write("scores_garbage.npy", &s);
    let (it, oot) = (format!("{g}@0..20"), format!("{ok_act}@20..40"));
    let runs: Vec<Vec<&str>> = vec![
        vec!["sde", "--it", &it, "--oot", &oot, "--shuffles", "20"],
        vec![
            "calibrate",
            "--data",
            &g,
            "--it-pool",
            "0..20",
            "--oot-pool",
            "20..40",
            "--target",
            "0..5",
            "--size",
            "5",
            "--refs",
            "3",
        ],
        vec![
            "ruler",
            "--unlearned",
            &g,
            "--oracle",
            &ok_act,
            "--forget",
            "0..10",
            "--retain",
            "10..40",
        ],
        vec!["epsilon", "--retrained", &c, "--unlearned", &ok_conf],
        vec!["bounds", &s],
    ];
    for args in runs {
        let r = report(&args);
        let codes: Vec<&str> = r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|w| w["code"].as_str())
            .collect();
        assert!(codes.contains(&"trailing_bytes"), "lethe {args:?}: warnings {codes:?}");
        let (_, err) = ok(&args);
        assert!(
            err.contains("warning[trailing_bytes]") && err.contains("garbage.npy"),
            "lethe {args:?}:\n{err}"
        );
    }
}

/// ±inf (and 1e400, which reads as +inf) in a rank test's input: ranked as the extremes, with a warning naming
/// the file and the row of the file (not of the row subset). Kernels, the histogram and the distances refuse
/// them with exit status 1, and NaN is refused by every statistic, likewise named.
#[test]
fn infinities_are_ranked_with_a_warning_and_refused_by_kernels_naming_the_file_row() {
    let d = Dir::new();
    let inf = d.write("inf.csv", b"1\n2\n3\ninf\n5\n-inf\n7\n8\n");
    let big = d.write("big.csv", b"1\n2\n3\n4\n1e400\n6\n7\n8\n");
    let nan = d.write("nan.csv", b"1\n2\n3\n4\n5\nnan\n7\n8\n");
    let y = d.write("y.csv", column(8, 0.25).as_bytes());
    let (sub, big_sub) = (format!("{inf}@2..8"), format!("{big}@1..8"));

    // Rank tests: exit 0, a warning at row 3 of inf.csv (row 1 of the subset) and row 4 of big.csv.
    let y6 = format!("{y}@0..6");
    for args in [vec!["mwu", sub.as_str(), &y], vec!["wilcoxon", &sub, &y6]] {
        let r = report(&args);
        let w = r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|w| w["code"] == "infinite_values")
            .unwrap_or_else(|| panic!("lethe {args:?}: no infinite_values warning: {r}"));
        let msg = w["message"].as_str().unwrap();
        assert!(msg.contains("inf.csv") && msg.contains("row 3 of the file"), "{msg}");
        assert_eq!(w["input"], "x");
        let (_, err) = ok(&args);
        assert!(
            err.contains("warning[infinite_values]") && err.contains("inf.csv"),
            "{err}"
        );
    }
    let r = report(&["mwu", &big_sub, &y]);
    let msg = r["warnings"][0]["message"].as_str().unwrap();
    assert!(
        msg.contains("big.csv") && msg.contains("row 4 of the file") && msg.contains("1e400"),
        "{msg}"
    );

    // Kernels, histograms, distances: exit 1, the file and its row.
    for cmd in ["jsd", "mmd", "wasserstein", "hsic"] {
        for (file, row) in [(&sub, "row 3"), (&big_sub, "row 4")] {
            let (code, err) = fails(&[cmd, file, &y]);
            assert_eq!(code, 1, "{cmd}: {err}");
            assert!(err.contains("[non_finite]") && err.contains(row), "{cmd} {file}: {err}");
            assert!(
                err.contains(Path::new(file.split('@').next().unwrap()).to_str().unwrap()),
                "{err}"
            );
        }
    }
    // NaN: refused by every statistic, with the row of the file.
    let nan_sub = format!("{nan}@3..8");
    for cmd in ["mwu", "wilcoxon", "jsd", "mmd", "wasserstein", "hsic"] {
        let (code, err) = fails(&[cmd, &nan_sub, &y[..]]);
        assert_eq!(code, 1, "{cmd}: {err}");
        assert!(
            err.contains("nan.csv") && err.contains("row 5") && err.contains("NaN"),
            "{cmd}: {err}"
        );
    }
    // inf − inf in a paired test: both files and rows named.
    let (code, err) = fails(&["wilcoxon", &inf, &inf]);
    assert_eq!(code, 1);
    assert!(
        err.contains("row 3") && err.contains("difference is undefined"),
        "{err}"
    );
}

/// Every difference zero: the headline is "inconclusive" with the reason; the number is scipy's (p = 1 for these
/// sizes, the permutation null), or none (`null`) with `--all-zero nan`.
#[test]
fn wilcoxon_with_all_zero_differences_is_inconclusive_not_nan() {
    let d = Dir::new();
    let x = d.write("x.csv", column(9, 1.0).as_bytes());
    let x2 = d.write("x_again.csv", column(9, 1.0).as_bytes());
    let zeros = d.write("zeros.csv", b"0\n0\n0\n0\n0\n");
    for args in [vec!["wilcoxon", x.as_str(), &x2], vec!["wilcoxon", &zeros]] {
        let r = report(&args);
        assert_eq!(r["headline"]["call"], "inconclusive", "{r}");
        let reason = r["headline"]["reason"].as_str().unwrap();
        assert!(
            reason.contains("are zero") && reason.contains("nothing to rank"),
            "{reason}"
        );
        assert_eq!(r["result"]["test"]["p_value"], 1.0);
        let mut strict = args.clone();
        strict.extend(["--all-zero", "nan"]);
        let s = report(&strict);
        assert_eq!(s["headline"]["call"], "inconclusive", "{s}");
        // No p-value is no number: null (was the string "nan"), the reason in the headline.
        assert!(s["result"]["test"]["p_value"].is_null(), "{s}");
        let (out, _) = ok(&args);
        let first = out.lines().next().unwrap();
        assert!(first.starts_with("Inconclusive") && !first.contains("NaN"), "{out}");
        assert!(out.contains("because: all"), "{out}");
    }
    // Too few pairs to ever reach 5% is inconclusive too, and a clear shift is called.
    let r = report(&["wilcoxon", &d.write("four.csv", b"1\n2\n3\n4\n")]);
    assert_eq!(r["headline"]["call"], "inconclusive", "{r}");
    let r = report(&["wilcoxon", &d.write("shift.csv", column(12, 1.0).as_bytes())]);
    assert_eq!(r["headline"]["call"], "differ", "{r}");
}

/// Errors about shapes, 1-D samples and labels name the files they concern.
#[test]
fn errors_name_their_files() {
    let d = Dir::new();
    let a = d.write("a.npy", &npy(&(0..30).map(f64::from).collect::<Vec<_>>(), &[10, 3]));
    let b = d.write("b.npy", &npy(&(0..20).map(f64::from).collect::<Vec<_>>(), &[10, 2]));
    let c = d.write("c.csv", column(7, 0.0).as_bytes());
    let e = d.write("e.csv", column(5, 0.0).as_bytes());
    for (args, files) in [
        (vec!["mwu", a.as_str(), &c], vec!["a.npy"]),
        (vec!["wilcoxon", &c, &e], vec!["c.csv", "e.csv"]),
        (vec!["mmd", &a, &b], vec!["a.npy", "b.npy"]),
        (vec!["wasserstein", &a, &b], vec!["a.npy", "b.npy"]),
        (vec!["hsic", &a, &c], vec!["a.npy", "c.csv"]),
        (vec!["jsd", &a, &c], vec!["a.npy"]),
    ] {
        let (code, err) = fails(&args);
        assert_eq!(code, 1, "{args:?}: {err}");
        for f in files {
            assert!(err.contains(f), "lethe {args:?} should name {f}:\n{err}");
        }
    }
    // Non-finite scores and confidences: the file and the row of the file, not of the row subset.
    let scores = d.write("scores.csv", b"0.1\n0.2\n0.3\nnan\n0.5\n");
    let (code, err) = fails(&["bounds", &format!("{scores}@2..5")]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("[non_finite]") && err.contains("scores.csv") && err.contains("row 3"),
        "{err}"
    );
    let mut conf: Vec<f64> = (0..4 * 6).map(|v| (f64::from(v) * 0.7).sin() * 3.0).collect();
    conf[2 * 6 + 4] = f64::INFINITY;
    let conf = d.write("conf.npy", &npy(&conf, &[4, 6]));
    let (code, err) = fails(&["epsilon", "--retrained", &format!("{conf}@1..4"), "--unlearned", &conf]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("conf.npy") && err.contains("row 2, column 4"), "{err}");
    // RULER: a non-finite value in a row the metrics use is named by the file's row (through the file's row subset
    // and the forget rows); one in a row they do not use is no reason to refuse.
    let mut emb: Vec<f64> = (0..40 * 4).map(|v| (f64::from(v) * 0.37).sin()).collect();
    emb[5 * 4 + 1] = f64::INFINITY;
    let emb_inf = d.write("emb_inf.npy", &npy(&emb, &[40, 4]));
    emb[5 * 4 + 1] = 0.5;
    let emb_ok = d.write("emb.npy", &npy(&emb, &[40, 4]));
    let (code, err) = fails(&[
        "ruler",
        "--unlearned",
        &format!("{emb_inf}@2..40"),
        "--oracle",
        &format!("{emb_ok}@2..40"),
        "--forget",
        "1..8",
        "--retain",
        "8..38",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("[non_finite]") && err.contains("emb_inf.npy") && err.contains("row 5, column 1"),
        "{err}"
    );
    let r = report(&[
        "ruler",
        "--unlearned",
        &emb_inf,
        "--oracle",
        &emb_ok,
        "--forget",
        "6..15",
        "--retain",
        "15..40",
    ]);
    assert!(
        r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["code"] != "file_reader"),
        "{r}"
    );
    // Labels of the competition score: the file, the entry and the value.
    let logits = d.write(
        "logits.npy",
        &npy(
            &(0..2 * 3 * 2).map(|v| f64::from(v) / 10.0).collect::<Vec<_>>(),
            &[2, 3, 2],
        ),
    );
    let labels = d.write("labels.csv", b"0\n-1\n1\n");
    let (code, err) = fails(&[
        "epsilon",
        "--retrained-logits",
        &logits,
        "--unlearned-logits",
        &logits,
        "--labels",
        &labels,
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("labels.csv") && err.contains("-1"), "{err}");
}

/// A file whose name is not UTF-8 can be an input (whole, or with @ROWS); where text is needed, the message names
/// the argument and the fix, with exit status 2.
#[cfg(unix)]
#[test]
fn file_names_that_are_not_utf8_can_be_named() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;

    let d = Dir::new();
    let y = d.write("y.csv", column(6, 0.5).as_bytes());
    let mut name = d.0.path().as_os_str().to_owned().into_vec();
    name.extend_from_slice(b"/caf\xe9.csv");
    let odd = OsString::from_vec(name.clone());
    std::fs::write(&odd, column(6, 0.0)).unwrap();

    let out = lethe(&[
        OsString::from("mwu"),
        odd.clone(),
        OsString::from(&y),
        OsString::from("--json"),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["inputs"][0]["rows_used"], 6);
    let mut with_rows = name.clone();
    with_rows.extend_from_slice(b"@1..4");
    let out = lethe(&[
        OsString::from("mwu"),
        OsString::from_vec(with_rows),
        OsString::from(&y),
        "--json".into(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["inputs"][0]["rows_used"], 3);
    let out = lethe(&[OsString::from("inspect"), odd.clone()]);
    assert!(out.status.success(), "{}", text(&out.stderr));

    // A missing file of such a name: exit 1, naming it.
    let mut missing = d.0.path().as_os_str().to_owned().into_vec();
    missing.extend_from_slice(b"/na\xefve.csv");
    let out = lethe(&[OsString::from("mwu"), OsString::from_vec(missing), OsString::from(&y)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("na") && err.contains("not valid UTF-8") && err.contains("check the path"),
        "{err}"
    );

    // Where clap needs text (an option's value): which argument, and the fix.
    let out = lethe(&[
        OsString::from("mwu"),
        OsString::from(&y),
        OsString::from(&y),
        "--alternative".into(),
        OsString::from_vec(b"gr\xe9ater".to_vec()),
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--alternative") && err.contains("not valid UTF-8"),
        "{err}"
    );
}

/// The distances say what they are and are not: no test, no p-value.
#[test]
fn distances_state_the_distance_and_that_they_are_not_a_test() {
    let d = Dir::new();
    let x = d.write("x.csv", column(20, 0.0).as_bytes());
    let y = d.write("y.csv", column(20, 3.0).as_bytes());
    for cmd in ["jsd", "mmd", "wasserstein"] {
        let r = report(&[cmd, &x, &y]);
        assert_eq!(r["headline"]["call"], "distance", "{r}");
        let t = r["headline"]["text"].as_str().unwrap();
        assert!(
            t.contains("not a test") && t.contains("x.csv") && t.contains("y.csv"),
            "{t}"
        );
    }
    let r = report(&["wasserstein", &x, &y]);
    assert!(r["headline"]["text"].as_str().unwrap().contains(" 3 "), "{r}");
}

/// A reader that stops early (`lethe … --json | head -2`) ends the output quietly: no panic, exit status 0. The
/// report (10,000 shuffle values) is larger than a pipe holds, so the write meets the closed pipe.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::Read as _;
    let d = Dir::new();
    let x = d.write("x.csv", column(12, 0.0).as_bytes());
    let y = d.write("y.csv", column(12, 0.3).as_bytes());
    let mut child = Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(["hsic", &x, &y, "--permutations", "10000", "--json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run lethe");
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.status.success(), "{:?}: {err}", out.status);
}
