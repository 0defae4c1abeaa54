//! Every command takes any file name the operating system allows (issue 12 item 7): a name that is not valid UTF-8
//! can be a command's input file, an index file of rows, or a text file, and the report records it in a lossy
//! display form (� for the bytes that are not UTF-8) with a warning `file_name_not_utf8` that says so. One test per
//! command family: sde, calibrate, ruler, epsilon, bounds, rouge, and a statistic (mwu).
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn lethe(args: &[&OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

/// Runs `args` with `--json`, which must succeed: the report and stderr.
fn report(args: &[&OsStr]) -> (Value, String) {
    let mut a = args.to_vec();
    a.push(OsStr::new("--json"));
    let out = lethe(&a);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "lethe {args:?} failed: {err}");
    (serde_json::from_slice(&out.stdout).expect("JSON report"), err)
}

/// `dir/stem` + the byte 0xE9 (Latin-1 é, not UTF-8) + `ext`: a name that is not valid UTF-8.
fn odd_name(dir: &Path, stem: &str, ext: &str) -> OsString {
    let mut v = dir.as_os_str().to_owned().into_vec();
    v.extend_from_slice(format!("/{stem}").as_bytes());
    v.push(0xE9);
    v.extend_from_slice(ext.as_bytes());
    OsString::from_vec(v)
}

/// A name followed by UTF-8 text (`@ROWS`, `#TENSOR`).
fn with(name: &OsStr, tail: &str) -> OsString {
    let mut v = name.as_bytes().to_vec();
    v.extend_from_slice(tail.as_bytes());
    OsString::from_vec(v)
}

/// Writes an n × d float64 .npy file of seeded values (a linear congruential generator).
fn npy(path: &OsStr, n: usize, d: usize, seed: u64) {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(1);
    let values: Vec<f64> = (0..n * d)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect();
    std::fs::write(path, lethe_analysis::npy::f64_bytes(&values, &[n, d])).unwrap();
}

/// The report names the file lossily (with �) for `role`, and a `file_name_not_utf8` warning about that role says
/// so; the stderr warning shows it too.
fn says_so(r: &Value, err: &str, role: &str) {
    let input = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["role"] == role)
        .unwrap_or_else(|| panic!("no input {role}: {r}"));
    assert!(input["path"].as_str().unwrap().contains('\u{FFFD}'), "{input}");
    let w = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "file_name_not_utf8" && w["input"] == role)
        .unwrap_or_else(|| panic!("no file_name_not_utf8 warning for {role}: {r}"));
    assert!(w["message"].as_str().unwrap().contains("not valid UTF-8"), "{w}");
    assert!(err.contains("warning[file_name_not_utf8]"), "{err}");
}

#[test]
fn sde_takes_files_whose_names_are_not_utf8() {
    let d = tempfile::tempdir().unwrap();
    let it = odd_name(d.path(), "retain", ".npy");
    let oot = d.path().join("test.npy").into_os_string();
    let target = odd_name(d.path(), "forget", ".npy");
    npy(&it, 40, 4, 1);
    npy(&oot, 40, 4, 2);
    npy(&target, 40, 4, 3);
    let target_rows = with(&target, "@0..20");
    let (r, err) = report(&[
        "sde".as_ref(),
        "--it".as_ref(),
        &it,
        "--oot".as_ref(),
        &oot,
        "--target".as_ref(),
        &target_rows,
        "--shuffles".as_ref(),
        "10".as_ref(),
        "--equal-size".as_ref(),
    ]);
    says_so(&r, &err, "in_training");
    assert!(r["parameters"].to_string().contains('\u{FFFD}'), "{}", r["parameters"]);
}

#[test]
fn calibrate_takes_a_data_file_and_an_index_file_whose_names_are_not_utf8() {
    let d = tempfile::tempdir().unwrap();
    let data = odd_name(d.path(), "activations", ".npy");
    npy(&data, 60, 3, 4);
    let index = odd_name(d.path(), "target", ".txt");
    std::fs::write(&index, (40..50).map(|i| format!("{i}\n")).collect::<String>()).unwrap();
    let (r, err) = report(&[
        "calibrate".as_ref(),
        "--data".as_ref(),
        &data,
        "--it-pool".as_ref(),
        "0..20".as_ref(),
        "--oot-pool".as_ref(),
        "20..40".as_ref(),
        "--target".as_ref(),
        &index,
        "--size".as_ref(),
        "10".as_ref(),
        "--refs".as_ref(),
        "3".as_ref(),
        "--paper-shuffles".as_ref(),
        "0".as_ref(),
    ]);
    says_so(&r, &err, "data");
}

#[test]
fn ruler_takes_model_files_and_row_files_whose_names_are_not_utf8() {
    let d = tempfile::tempdir().unwrap();
    let unlearned = odd_name(d.path(), "unlearned", ".npy");
    let oracle = d.path().join("oracle.npy").into_os_string();
    npy(&unlearned, 30, 4, 5);
    npy(&oracle, 30, 4, 6);
    let forget = odd_name(d.path(), "forget", ".txt");
    std::fs::write(&forget, (0..10).map(|i| format!("{i}\n")).collect::<String>()).unwrap();
    let (r, err) = report(&[
        "ruler".as_ref(),
        "--unlearned".as_ref(),
        &unlearned,
        "--oracle".as_ref(),
        &oracle,
        "--forget".as_ref(),
        &forget,
        "--retain".as_ref(),
        "10..30".as_ref(),
    ]);
    says_so(&r, &err, "unlearned");
}

#[test]
fn epsilon_takes_files_whose_names_are_not_utf8() {
    let d = tempfile::tempdir().unwrap();
    let retrained = odd_name(d.path(), "retrained", ".npy");
    let unlearned = odd_name(d.path(), "unlearned", ".npy");
    // Logit-scaled confidences (values well outside [0, 1]): 8 models × 5 examples.
    for (p, seed) in [(&retrained, 7.0), (&unlearned, 8.0)] {
        let v: Vec<f64> = (0..40).map(|i| ((i as f64 + 1.0) * seed).sin() * 4.0).collect();
        std::fs::write(p, lethe_analysis::npy::f64_bytes(&v, &[8, 5])).unwrap();
    }
    let (r, err) = report(&[
        "epsilon".as_ref(),
        "--retrained".as_ref(),
        &retrained,
        "--unlearned".as_ref(),
        &unlearned,
    ]);
    says_so(&r, &err, "retrained");
    says_so(&r, &err, "unlearned");
}

#[test]
fn bounds_takes_a_scores_file_whose_name_is_not_utf8() {
    let d = tempfile::tempdir().unwrap();
    let scores = odd_name(d.path(), "scores", ".csv");
    std::fs::write(
        &scores,
        (0..50)
            .map(|i| format!("{}\n", f64::from(i) / 50.0))
            .collect::<String>(),
    )
    .unwrap();
    let (r, err) = report(&["bounds".as_ref(), &scores]);
    says_so(&r, &err, "scores");
    // With a row subset after the name, too.
    let (r, _) = report(&["bounds".as_ref(), &with(&scores, "@0..20")]);
    assert_eq!(r["inputs"][0]["rows_used"], 20, "{r}");
}

#[test]
fn rouge_takes_text_files_whose_names_are_not_utf8() {
    let d = tempfile::tempdir().unwrap();
    let preds = odd_name(d.path(), "generations", ".txt");
    let refs = odd_name(d.path(), "references", ".txt");
    std::fs::write(&preds, "the cat sat on the mat\na dog ran\n").unwrap();
    std::fs::write(&refs, "the cat is on the mat\na dog ran far\n").unwrap();
    let (r, err) = report(&[
        "rouge".as_ref(),
        "--predictions".as_ref(),
        &preds,
        "--reference".as_ref(),
        &refs,
    ]);
    says_so(&r, &err, "predictions");
    says_so(&r, &err, "reference");
}

#[test]
fn a_statistic_takes_files_whose_names_are_not_utf8_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let x = odd_name(d.path(), "x", ".csv");
    let y = d.path().join("y.csv").into_os_string();
    std::fs::write(&x, (0..12).map(|i| format!("{i}\n")).collect::<String>()).unwrap();
    std::fs::write(&y, (0..12).map(|i| format!("{}\n", i + 3)).collect::<String>()).unwrap();
    let (r, err) = report(&["mwu".as_ref(), &x, &y]);
    says_so(&r, &err, "x");
}

/// A missing file of such a name: exit 1, naming it (lossily) and saying why it shows so.
#[test]
fn a_missing_file_whose_name_is_not_utf8_is_named() {
    let d = tempfile::tempdir().unwrap();
    let missing = odd_name(d.path(), "gone", ".npy");
    let y = d.path().join("y.npy").into_os_string();
    npy(&y, 20, 2, 9);
    let out = lethe(&[
        "sde".as_ref(),
        "--it".as_ref(),
        &missing,
        "--oot".as_ref(),
        &y,
        "--target".as_ref(),
        &y,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("gone\u{FFFD}.npy") && err.contains("not valid UTF-8") && err.contains("check the path"),
        "{err}"
    );
}
