//! `lethe lira` from the user's side: the binary on tests/fixtures/golden_lira's mi_lira_2021 directory (made by
//! its make.py, which runs tensorflow/privacy's plot.py / score.py functions; PROVENANCE.md there), every variant
//! and target set against plot.py's predictions and scikit-learn's AUC; the same results from stacked arrays; and
//! the messages for an almost-right directory (missing keep.npy, a model whose scores have another shape, a folder
//! without scores, an example no shadow holds IN), naming the file and the fix.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
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

fn report(args: &[&str]) -> (Value, String) {
    let mut a = args.to_vec();
    a.push("--json");
    let out = lethe(&a);
    let (o, e) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "lethe {a:?} failed:\n{e}");
    (serde_json::from_str(&o).expect("JSON report"), e)
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

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/golden_lira")
        .join(name)
}

fn golden() -> Value {
    serde_json::from_str(&std::fs::read_to_string(fixture("lira.json")).unwrap()).unwrap()
}

fn nums(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

/// A copy of the fixture directory to break.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn every_variant_and_target_matches_plot_py() {
    let g = golden();
    let dir = fixture("exp");
    let d = dir.to_str().unwrap();
    for c in g["cases"].as_array().unwrap() {
        let variant = c["variant"].as_str().unwrap();
        let targets: Vec<String> = c["targets"].as_array().unwrap().iter().map(|t| t.to_string()).collect();
        let t = targets.join(",");
        let (r, _) = report(&["lira", d, "--variant", variant, "--target", &t]);
        let res = &r["result"];
        let want = nums(&c["prediction"]);
        let got = nums(&res["scores"]);
        assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            // The report's scores are higher = member: −prediction.
            assert!(
                (g + w).abs() <= 1e-14 * (1.0 + w.abs()),
                "{variant} [{t}] score {k}: {g} vs −{w}"
            );
        }
        let auc = res["audit"]["summary"]["auc"].as_f64().unwrap();
        let sk = c["sklearn_roc_auc_score_of_minus_prediction"].as_f64().unwrap();
        assert!(
            (auc - sk).abs() <= 1e-15,
            "{variant} [{t}] AUC {auc} vs scikit-learn {sk}"
        );
        // plot.py's sweep accuracy = the largest balanced accuracy.
        let acc = res["audit"]["summary"]["balanced_accuracy"].as_f64().unwrap();
        assert!((acc - c["sweep_acc"].as_f64().unwrap()).abs() < 1e-12, "{variant} acc");
        assert_eq!(res["members"].as_u64(), c["members"].as_u64());
        assert_eq!(r["parameters"]["variant"], variant);
        assert!(
            r["parameters"]["follows"]
                .as_str()
                .unwrap()
                .starts_with("mi_lira_2021/plot.py generate_")
        );
        assert_eq!(r["command"], "lira");
    }
}

#[test]
fn directory_report_says_what_it_read() {
    let d = fixture("exp");
    let (r, stderr) = report(&["lira", d.to_str().unwrap()]);
    assert_eq!(r["headline"]["call"], "distinguishes");
    let h = r["headline"]["text"].as_str().unwrap();
    assert!(
        h.starts_with("LiRA online (mi_lira_2021/plot.py generate_ours), target model 15 against 15"),
        "{h}"
    );
    assert!(h.contains("AUC = 0.8054"), "{h}");
    let res = &r["result"];
    assert_eq!(res["models"], 16);
    assert_eq!(res["examples"], 200);
    assert_eq!(res["augmentations"], 2);
    assert_eq!(
        res["shadow_counts"]["in_used"],
        golden()["sizes_target_last"]["in_size"]
    );
    assert_eq!(
        res["experiments"][15].as_str().unwrap().rsplit('/').next(),
        Some("experiment-15_16")
    );
    // TPR at low FPR with the realized FPR, as lethe mia reports it.
    let p = &res["audit"]["tpr_at_fpr"][4];
    assert_eq!(p["target_fpr"], 0.1);
    assert!(p["realized_fpr"].as_f64().unwrap() <= 0.1);
    let codes: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    for c in ["file_reader", "shadows_cut", "few_shadows", "fpr_below_resolution"] {
        assert!(codes.contains(&c), "{c} missing: {codes:?}");
    }
    assert!(stderr.contains("experiment-16_16"), "{stderr}");
    // One record per file read, role = which model's file.
    let roles: Vec<&str> = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles.len(), 32);
    assert!(roles.contains(&"scores[3]") && roles.contains(&"keep[15]"), "{roles:?}");
    // experiment-3_16's last scores file (0000000100.npy) is read, not its earlier epoch.
    assert!(
        r["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| !i["path"].as_str().unwrap().contains("0000000050"))
    );
    // Human text: the headline first.
    let out = lethe(&["lira", d.to_str().unwrap(), "--variant", "offline"]);
    let o = text(&out.stdout);
    assert!(
        o.starts_with("LiRA offline (mi_lira_2021/plot.py generate_ours_offline)"),
        "{o}"
    );
}

#[test]
fn logits_directory_is_converted_as_score_py() {
    let d = fixture("exp_logits");
    // 3 shadows for 50 examples: some example is OUT in none of them, which offline cannot fit.
    let (code, e) = fails(&["lira", d.to_str().unwrap(), "--variant", "offline"]);
    assert_eq!(code, 1);
    assert!(
        e.contains("[no_out_shadows]") && e.contains("OUT in none of the 3 shadow models"),
        "{e}"
    );
    let (r, _) = report(&["lira", d.to_str().unwrap(), "--variant", "global"]);
    assert_eq!(r["parameters"]["from"], "auto");
    assert_eq!(r["result"]["models"], 4);
    assert_eq!(r["result"]["examples"], 50);
    let roles: Vec<&str> = r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["role"].as_str().unwrap())
        .collect();
    assert!(roles.contains(&"labels") && roles.contains(&"logits[0]"), "{roles:?}");
    // Asking for scores/ where there are none.
    let (code, e) = fails(&["lira", d.to_str().unwrap(), "--from", "scores"]);
    assert_eq!(code, 1);
    assert!(e.contains("score.py"), "{e}");
}

#[test]
fn stacked_arrays_give_the_directory_result() {
    let tmp = tempfile::tempdir().unwrap();
    // Stack the directory's files as a user would (np.stack), keep as 0/1 float64.
    let files = lethe::tools::lira::list_dir(&fixture("exp")).unwrap();
    let layout = lethe::tools::lira::plan(&files, lethe::tools::lira::ScoreSource::Auto).unwrap();
    let (sh, _) = lethe::tools::lira::assemble(&layout, &mut |p| {
        let l = lethe::data::load_path::<f64>(p, &lethe::data::LoadOptions::default()).map_err(|e| e.to_string())?;
        Ok(lethe::tools::lira::Array {
            values: l.matrix.into_vec(),
            shape: l.info.shape.clone(),
            dtype: l.info.dtype.clone(),
        })
    })
    .unwrap();
    let s = tmp.path().join("scores.npy");
    let k = tmp.path().join("keep.npy");
    std::fs::write(&s, lethe_analysis::npy::f64_bytes(&sh.scores, &[16, 200, 2])).unwrap();
    let keep: Vec<f64> = sh.keep.iter().map(|&b| f64::from(u8::from(b))).collect();
    std::fs::write(&k, lethe_analysis::npy::f64_bytes(&keep, &[16, 200])).unwrap();
    let (a, _) = report(&[
        "lira",
        fixture("exp").to_str().unwrap(),
        "--variant",
        "online-fixed-variance",
    ]);
    let (b, stderr) = report(&[
        "lira",
        "--scores",
        s.to_str().unwrap(),
        "--keep",
        k.to_str().unwrap(),
        "--variant",
        "online-fixed-variance",
    ]);
    assert_eq!(a["result"]["scores"], b["result"]["scores"]);
    assert_eq!(a["result"]["audit"], b["result"]["audit"]);
    assert!(stderr.contains("0/1 values, read as flags"), "{stderr}");
    // The first augmentation only.
    let (c, _) = report(&[
        "lira",
        "--scores",
        s.to_str().unwrap(),
        "--keep",
        k.to_str().unwrap(),
        "--augmentations",
        "1",
    ]);
    assert_eq!(c["result"]["augmentations"], 1);
    assert_eq!(c["result"]["augmentations_available"], 2);
    // An example no shadow trained on: online refused with counts and what to do; offline runs.
    let small_s = tmp.path().join("s.npy");
    let small_k = tmp.path().join("k.npy");
    std::fs::write(
        &small_s,
        lethe_analysis::npy::f64_bytes(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6], &[3, 2]),
    )
    .unwrap();
    std::fs::write(
        &small_k,
        lethe_analysis::npy::f64_bytes(&[1.0, 0.0, 0.0, 0.0, 0.0, 1.0], &[3, 2]),
    )
    .unwrap();
    let (code, e) = fails(&[
        "lira",
        "--scores",
        small_s.to_str().unwrap(),
        "--keep",
        small_k.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(
        e.contains("[no_in_shadows]") && e.contains("example 1") && e.contains("offline"),
        "{e}"
    );
    let out = lethe(&[
        "lira",
        "--scores",
        small_s.to_str().unwrap(),
        "--keep",
        small_k.to_str().unwrap(),
        "--variant",
        "offline",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // keep with fewer models than scores.
    std::fs::write(&small_k, lethe_analysis::npy::f64_bytes(&[1.0, 0.0, 0.0, 1.0], &[2, 2])).unwrap();
    let (_, e) = fails(&[
        "lira",
        "--scores",
        small_s.to_str().unwrap(),
        "--keep",
        small_k.to_str().unwrap(),
    ]);
    assert!(
        e.contains("[lira_shape]") && e.contains("2 models") && e.contains("3 models"),
        "{e}"
    );
}

#[test]
fn almost_right_directories_name_the_file_and_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("exp");
    copy_dir(&fixture("exp"), &d);
    let ds = d.to_str().unwrap();
    // A model's scores with another number of examples.
    std::fs::write(
        d.join("experiment-7_16/scores/0000000100.npy"),
        lethe_analysis::npy::f64_bytes(&[0.5; 20], &[10, 2]),
    )
    .unwrap();
    let (code, e) = fails(&["lira", ds]);
    assert_eq!(code, 1);
    assert!(
        e.contains("experiment-7_16/scores/0000000100.npy") && e.contains("10 examples × 2"),
        "{e}"
    );
    assert!(e.contains("same examples and augmentations"), "{e}");
    copy_dir(&fixture("exp/experiment-7_16"), &d.join("experiment-7_16"));
    // keep.npy missing.
    std::fs::remove_file(d.join("experiment-5_16/keep.npy")).unwrap();
    let (code, e) = fails(&["lira", ds]);
    assert_eq!(code, 1);
    assert!(
        e.contains("[lira_layout]") && e.contains("experiment-5_16/") && e.contains("no keep.npy"),
        "{e}"
    );
    assert!(e.contains("copy the keep.npy"), "{e}");
    // Not the layout at all; not a directory; a target that does not exist.
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("scores.npy"),
        lethe_analysis::npy::f64_bytes(&[0.5; 4], &[4]),
    )
    .unwrap();
    let (_, e) = fails(&["lira", other.to_str().unwrap()]);
    assert!(e.contains("no `experiment*` folder"), "{e}");
    let (code, _) = fails(&["lira", fixture("lira.json").to_str().unwrap()]);
    assert_eq!(code, 2);
    let (code, e) = fails(&["lira", fixture("exp").to_str().unwrap(), "--target", "16"]);
    assert_eq!(code, 2);
    assert!(
        e.contains("target model 16 does not exist") && e.contains("16 models"),
        "{e}"
    );
}

/// Stacked scores and keep flags from one .npz that also holds `target` and `member` arrays (issue 22): LiRA reads
/// neither, and used to say nothing; now a warning names both and the fix. Only the scores and keep: no warning.
#[test]
fn arrays_lira_does_not_read_are_named() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/known_truth_mia/lira_stacked.npz");
    let f = f.to_str().unwrap();
    let (r, _) = report(&[
        "lira",
        "--scores",
        &format!("{f}#scores"),
        "--keep",
        &format!("{f}#keep"),
    ]);
    let w = r["warnings"].as_array().unwrap();
    let unused: Vec<&Value> = w.iter().filter(|w| w["code"] == "lira_arrays_unused").collect();
    assert_eq!(unused.len(), 1, "{w:?}");
    let m = unused[0]["message"].as_str().unwrap();
    assert!(m.contains("`target`") && m.contains("`member`"), "{m}");
    assert!(!m.contains("`scores`") && !m.contains("`keep`"), "{m}");
    assert!(unused[0]["fix"].as_str().unwrap().contains("membership audit"));
    // The directory layout (one array per file): nothing to name.
    let (r, _) = report(&["lira", fixture("exp").to_str().unwrap()]);
    assert!(
        r["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["code"] != "lira_arrays_unused")
    );
}
