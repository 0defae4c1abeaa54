//! End-to-end tests of the `lethe` binary on real data (examples/data/digits, a subset of the shared demo: MLP
//! activations of scikit-learn digits) and on golden/peer fixtures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lethe::data::{LoadOptions, load_path};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn demo(file: &str) -> String {
    root().join("examples/data/digits").join(file).display().to_string()
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

fn fails_with(args: &[&str], needles: &[&str]) {
    let out = lethe(args);
    assert!(!out.status.success(), "lethe {args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    for n in needles {
        assert!(err.contains(n), "stderr of {args:?} should mention `{n}`:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

fn peer(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("tests/fixtures").join(name)).unwrap()).unwrap()
}

fn matrix_rows(file: &str, rows: std::ops::Range<usize>) -> lethe::Matrix {
    let opts = LoadOptions {
        rows: Some(rows.collect()),
        ..LoadOptions::default()
    };
    load_path::<f64>(demo(file), &opts).unwrap().matrix
}

#[test]
fn sde_report_has_schema_and_matches_the_core() {
    let act = demo("act_retrained.npy");
    let (it, oot, t) = (
        format!("{act}@144..244"),
        format!("{act}@544..644"),
        format!("{act}@0..100"),
    );
    let r = json(&[
        "sde",
        "--it",
        &it,
        "--oot",
        &oot,
        "--target-out",
        &t,
        "--shuffles",
        "50",
        "--seed",
        "7",
    ]);
    assert_eq!(r["command"], "sde");
    assert_eq!(r["lethe_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(r["seed"], 7);
    assert_eq!(r["parameters"]["shuffles"], 50);
    let inputs = r["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 3);
    for i in inputs {
        let h = i["sha256"].as_str().unwrap();
        assert!(h.len() == 64 && h.bytes().all(|c| c.is_ascii_hexdigit()), "{h}");
        assert_eq!(i["dtype"], "float32");
        assert_eq!(i["rows_used"], 100);
    }
    let res = &r["result"];
    assert_eq!(res["complete"], true);
    assert_eq!(res["rng"], lethe::permute::RNG_ID);
    // Same seed, same inputs → the same numbers as calling the core directly.
    let m = |rows| matrix_rows("act_retrained.npy", rows);
    let (mi, mo, mt) = (m(144..244), m(544..644), m(0..100));
    let targets = [lethe::sde::Target {
        name: "target_out[0]",
        data: mt.view(),
        label: Some(false),
    }];
    let p = lethe::sde::SdeParams {
        shuffles: 50,
        seed: 7,
        ..Default::default()
    };
    let core = lethe::sde::sde(mi.view(), mo.view(), &targets, &p).unwrap();
    let vals: Vec<f64> = res["targets"][0]["distribution"]["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(vals, core.targets[0].distribution.values);
    assert_eq!(
        res["targets"][0]["verdict"]["jsd_target_it"].as_f64().unwrap(),
        core.targets[0].verdict.jsd_target_it
    );
    assert_eq!(res["f1"]["f1"].as_f64().unwrap(), core.f1.unwrap().f1);
}

/// Targets drawn from a pool (evaluated as rows of the pool, from an f32 copy of the float32 file) give exactly the
/// core's report on f64 copies of the same rows: the drawn-target path copies nothing and changes no number.
#[test]
fn drawn_targets_match_the_core_on_copied_rows() {
    let act = demo("act_retrained.npy");
    let (it, oot, pool) = (
        format!("{act}@144..244"),
        format!("{act}@544..644"),
        format!("{act}@0..140"),
    );
    for precision in ["f64", "f32"] {
        let r = json(&[
            "sde",
            "--it",
            &it,
            "--oot",
            &oot,
            "--draw-in",
            &pool,
            "--draw",
            "3",
            "--size",
            "100",
            "--shuffles",
            "30",
            "--seed",
            "5",
            "--split",
            "random",
            "--baselines",
            "--precision",
            precision,
        ]);
        let m = |rows| matrix_rows("act_retrained.npy", rows);
        let (mi, mo, mp) = (m(144..244), m(544..644), m(0..140));
        let draws = lethe::sde::draw_targets(Some(true), 140, 3, 100, 5).unwrap();
        let copies: Vec<lethe::Matrix> = draws.iter().map(|d| mp.select_rows(d, "pool").unwrap()).collect();
        let names = ["draw-in[0]", "draw-in[1]", "draw-in[2]"];
        let targets: Vec<lethe::sde::Target<'_, f64>> = copies
            .iter()
            .zip(names)
            .map(|(c, name)| lethe::sde::Target {
                name,
                data: c.view(),
                label: Some(true),
            })
            .collect();
        let p = lethe::sde::SdeParams {
            shuffles: 30,
            seed: 5,
            split: lethe::sde::Split::Random,
            baselines: true,
            precision: precision.parse().unwrap(),
            ..Default::default()
        };
        let core = lethe::sde::sde(mi.view(), mo.view(), &targets, &p).unwrap();
        let want = serde_json::to_value(&core).unwrap();
        assert_eq!(r["result"], want, "{precision}");
    }
}

/// RULER through the CLI equals the authors' code (gcosma/RULER `ruler/metrics.py`) on the same real data
/// (tests/fixtures/peers/ruler_metrics_py.json, generated by tests/peers/ruler_metrics_py.py).
#[test]
fn ruler_matches_authors_code_on_demo_data() {
    let want = peer("peers/ruler_metrics_py.json");
    let case = &want["cases"][0];
    assert_eq!(case["name"], "digits_unlearned_vs_retrained");
    let r = json(&[
        "ruler",
        "--unlearned",
        &demo("act_unlearned.npy"),
        "--oracle",
        &demo("act_retrained.npy"),
        "--original",
        &demo("act_original.npy"),
        "--forget",
        &demo("forget.txt"),
        "--retain",
        &demo("retain.txt"),
    ]);
    let run = &r["result"]["runs"][0];
    for (key, field) in [
        ("m1", "oracle_similarity"),
        ("m2", "calibration_gap"),
        ("m3", "representation_shift"),
    ] {
        let (got, w) = (run[field].as_f64().unwrap(), case[key].as_f64().unwrap());
        assert_eq!(got, w, "{key}: bit-exact with the authors' numpy code");
    }
    let m4 = run["nn_percentile_rank"]["value"].as_f64().unwrap();
    assert_eq!(m4, case["m4"].as_f64().unwrap(), "m4 is a ratio of counts: exact");
}

/// Several runs: Wilcoxon across runs + BH. Three runs (the three models as "unlearned" against the oracle).
#[test]
fn ruler_across_runs_reports_wilcoxon_and_bh() {
    let mut args = vec!["ruler".to_string()];
    for m in ["act_unlearned.npy", "act_original.npy", "act_unlearned.npy"] {
        args.extend([
            "--unlearned".into(),
            demo(m),
            "--oracle".into(),
            demo("act_retrained.npy"),
        ]);
    }
    args.extend(["--forget".into(), "0..144".into(), "--retain".into(), "144..544".into()]);
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = json(&a);
    let across = r["result"]["across_runs"].as_array().unwrap();
    assert_eq!(across.len(), 2, "m2 and m4 (m3 needs --original)");
    for m in across {
        let p = m["wilcoxon"]["p_value"].as_f64().unwrap();
        assert!(p > 0.0 && p <= 1.0);
        assert!(m["p_adjusted"].as_f64().unwrap() >= p);
    }
}

/// The competition's golden forgetting-quality case (tests/fixtures/golden/neurips2023.json) through files.
#[test]
fn epsilon_reproduces_golden_official_score_from_files() {
    let g = peer("golden/neurips2023.json");
    let c = &g["forgetting_quality_case"];
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, v: &Value| {
        let p = dir.path().join(name);
        std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
        p.display().to_string()
    };
    let (r, u) = (
        write("r.json", &c["retrained_confs"]),
        write("u.json", &c["unlearned_confs"]),
    );
    let acc = &c["accuracies"];
    let accs = format!("{},{},{},{}", acc["ra_u"], acc["ra_r"], acc["ta_u"], acc["ta_r"]);
    let rep = json(&["epsilon", "--retrained", &r, "--unlearned", &u, "--accuracies", &accs]);
    let res = &rep["result"]["results"][0];
    assert_eq!(
        res["forget_score"].as_f64().unwrap(),
        c["official_port_forget_score"].as_f64().unwrap()
    );
    let eps: Vec<f64> = res["per_example"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["epsilon"].as_f64().unwrap())
        .collect();
    let want: Vec<f64> = c["official_port_epsilons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(eps, want);
    let fin = rep["result"]["final_scores"][0].as_f64().unwrap();
    assert!(fin > 0.0 && fin <= 1.0);
}

/// Largest absolute and relative deviation over a set of comparisons, printed as the crate's golden tests print
/// theirs (`cargo test -p lethe-cli -- --nocapture`).
#[derive(Default)]
struct MaxDev {
    abs: f64,
    rel: f64,
    n: usize,
}

impl MaxDev {
    /// Records `got` against `want` and checks it within `atol + rtol·|want|`.
    fn check(&mut self, got: f64, want: f64, atol: f64, rtol: f64, ctx: &str) {
        let d = (got - want).abs();
        assert!(
            d <= atol + rtol * want.abs() || got.to_bits() == want.to_bits(),
            "{ctx}: got {got}, want {want} (|diff| {d:e})"
        );
        self.abs = self.abs.max(d);
        if want != 0.0 {
            self.rel = self.rel.max(d / want.abs());
        }
        self.n += 1;
    }

    fn report(&self, what: &str) {
        println!(
            "{what}: {} values, max abs deviation {:e}, max rel deviation {:e}",
            self.n, self.abs, self.rel
        );
    }
}

/// Writes a golden value (a number list or a matrix) as a JSON input file for the CLI.
fn write_json(dir: &Path, name: &str, v: &Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_string(v).unwrap()).unwrap();
    p.display().to_string()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The rank tests, JSD, MMD, Wasserstein and HSIC through the command line, on the golden inputs written to
/// files, against the goldens' numbers (tolerances as in the crate's golden tests):
/// * mwu: tests/fixtures/golden/in_training.json `mann_whitney_cases` (`scipy.stats.mannwhitneyu(x, y,
///   alternative="greater", method=...)`, scipy 1.17.1);
/// * wilcoxon: golden/ruler.json `wilcoxon_cases[*].results` (`scipy.stats.wilcoxon`, default correction=False;
///   the golden's "approx" is `--method asymptotic`);
/// * jsd: golden/jsd.json (`numpy.histogram` edges and counts, the float64 reference JSD);
/// * mmd, wasserstein: peers/baselines.json (tests/peers, float64 numpy and scipy `linear_sum_assignment`);
/// * hsic: golden/hsic.json `ref_hsic` (float64 numpy reference of Tr(KHLH)/(n−1)²).
#[test]
fn other_commands_match_goldens_through_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    let g = peer("golden/in_training.json");
    let mut dev = MaxDev::default();
    for c in g["mann_whitney_cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let (x, y) = (write_json(d, "x.json", &c["x"]), write_json(d, "y.json", &c["y"]));
        for method in ["exact", "asymptotic", "auto"] {
            let Some(want) = c.get(format!("scipy_{method}").as_str()) else {
                continue; // n200_n200_sde_like has no exact row
            };
            let r = json(&["mwu", &x, &y, "--alternative", "greater", "--method", method]);
            let ctx = format!("mwu {name} {method}");
            assert_eq!(f(&r["result"]["statistic"]), f(&want["U"]), "{ctx}: U");
            // scipy's exact tail is a float recursion that drifts ~1e-13 relative at 200 × 200; Lethe counts exactly.
            dev.check(f(&r["result"]["p_value"]), f(&want["p"]), 0.0, 1e-12, &ctx);
        }
    }
    dev.report("mwu through the CLI vs scipy (golden/in_training.json)");

    let g = peer("golden/ruler.json");
    let mut dev = MaxDev::default();
    for c in g["wilcoxon_cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let (x, y) = (write_json(d, "x.json", &c["x"]), write_json(d, "y.json", &c["y"]));
        for row in c["results"].as_array().unwrap() {
            let method = match row["method"].as_str().unwrap() {
                "approx" => "asymptotic",
                m => m,
            };
            let (alt, zero) = (
                row["alternative"].as_str().unwrap(),
                row["zero_method"].as_str().unwrap(),
            );
            let r = json(&[
                "wilcoxon",
                &x,
                &y,
                "--alternative",
                alt,
                "--zero-method",
                zero,
                "--method",
                method,
            ]);
            let ctx = format!("wilcoxon {name} {alt} {zero} {method}");
            dev.check(
                f(&r["result"]["test"]["statistic"]),
                f(&row["scipy_statistic"]),
                0.0,
                0.0,
                &ctx,
            );
            dev.check(
                f(&r["result"]["test"]["p_value"]),
                f(&row["scipy_p"]),
                1e-300,
                1e-14,
                &ctx,
            );
        }
    }
    dev.report("wilcoxon through the CLI vs scipy (golden/ruler.json)");

    let g = peer("golden/jsd.json");
    let mut dev = MaxDev::default();
    for c in g["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let (x, y) = (write_json(d, "a.json", &c["a"]), write_json(d, "b.json", &c["b"]));
        for row in c["results"].as_array().unwrap() {
            let bins = row["bins"].to_string();
            let r = json(&["jsd", &x, &y, "--bins", &bins]);
            let ctx = format!("jsd {name} bins={bins}");
            assert_eq!(
                r["result"]["edges"], row["edges"],
                "{ctx}: edges bit-identical to numpy"
            );
            assert_eq!(r["result"]["counts_a"], row["counts_a"], "{ctx}");
            assert_eq!(r["result"]["counts_b"], row["counts_b"], "{ctx}");
            dev.check(f(&r["result"]["jsd"]), f(&row["ref_jsd"]), 1e-12, 0.0, &ctx);
        }
    }
    dev.report("jsd through the CLI vs the float64 reference (golden/jsd.json)");

    let g = peer("peers/baselines.json");
    let (mut dev_mmd, mut dev_w) = (MaxDev::default(), MaxDev::default());
    for c in g["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let (x, y) = (write_json(d, "x.json", &c["X"]), write_json(d, "y.json", &c["Y"]));
        for spec in ["sqrt_dim", "median"] {
            for (est, flag) in [("biased", None), ("unbiased", Some("--unbiased"))] {
                let Some(want) = c.get(format!("mmd2_{est}_{spec}").as_str()) else {
                    continue;
                };
                let mut args = vec!["mmd", &x, &y, "--sigma", spec];
                args.extend(flag);
                let r = json(&args);
                dev_mmd.check(
                    f(&r["result"]["mmd2"]),
                    f(want),
                    1e-12,
                    1e-10,
                    &format!("mmd {name} {spec} {est}"),
                );
            }
        }
        if let Some(w) = c.get("w1_assignment") {
            let r = json(&["wasserstein", &x, &y]);
            dev_w.check(
                f(&r["result"]["distance"]),
                f(w),
                1e-12,
                1e-12,
                &format!("wasserstein {name}"),
            );
        }
    }
    dev_mmd.report("mmd through the CLI vs peers/baselines.json");
    dev_w.report("wasserstein through the CLI vs peers/baselines.json (scipy linear_sum_assignment)");

    let g = peer("golden/hsic.json");
    let mut dev = MaxDev::default();
    for c in g["cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let (x, y) = (write_json(d, "x.json", &c["X"]), write_json(d, "y.json", &c["Y"]));
        for row in c["results"].as_array().unwrap() {
            let sigma = match &row["sigma_spec"] {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            let r = json(&[
                "hsic",
                &x,
                &y,
                "--sigma-x",
                &sigma,
                "--sigma-y",
                &sigma,
                "--permutations",
                "9",
            ]);
            let ctx = format!("hsic {name} sigma={sigma}");
            dev.check(f(&r["result"]["statistic"]), f(&row["ref_hsic"]), 1e-11, 1e-10, &ctx);
            dev.check(f(&r["result"]["sigma_x"]), f(&row["sigma_x"]), 1e-12, 1e-13, &ctx);
        }
    }
    dev.report("hsic through the CLI vs the float64 reference (golden/hsic.json)");
}

#[test]
fn other_commands_run_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(p("s.json"), "[0, 0.1, 0.3, 0, 0.9, 0.2, 0.05, 0.5]").unwrap();
    std::fs::write(p("gen.txt"), "the cat sat on the mat\nnothing\n").unwrap();
    let r = json(&["bounds", &p("s.json"), "--x", "0.5"]);
    assert!(r["result"]["expectation"]["upper"].as_f64().unwrap() <= 1.0);
    let r = json(&[
        "rouge",
        "--predictions",
        &p("gen.txt"),
        "--reference-text",
        "the cat is on the mat",
    ]);
    assert_eq!(r["result"]["scores"]["fmeasure"][0].as_f64().unwrap(), 5.0 / 6.0);
    let out = lethe(&["inspect", &demo("act_original.npy")]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("[744, 128]"));
}

#[test]
fn bad_inputs_fail_with_clear_messages() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    fails_with(&["bounds", "/no/such/file.npy"], &["/no/such/file.npy"]);
    // A truncated .npy.
    let bytes = std::fs::read(demo("act_original.npy")).unwrap();
    std::fs::write(p("t.npy"), &bytes[..1000]).unwrap();
    fails_with(&["hsic", &p("t.npy"), &p("t.npy")], &["truncated", "t.npy"]);
    // NaN in a matrix input: named input, row and column.
    std::fs::write(p("nan.csv"), "1,2\n3,4\n5,nan\n7,8\n9,10\n11,12\n").unwrap();
    fails_with(
        &["sde", "--it", &p("nan.csv"), "--oot", &p("nan.csv")],
        &["in_training", "non-finite", "row 2"],
    );
    // A forget index past the end.
    fails_with(
        &[
            "ruler",
            "--unlearned",
            &demo("act_unlearned.npy"),
            "--forget",
            "740..750",
            "--retain",
            "0..10",
        ],
        &["744", "out of range"],
    );
    // Too few rows for a split-half.
    let act = demo("act_original.npy");
    fails_with(
        &["sde", "--it", &format!("{act}@0..3"), "--oot", &format!("{act}@3..9")],
        &["in_training", "at least 4"],
    );
    // A 1-D command given a matrix.
    fails_with(&["mwu", &act, &act], &["1-D"]);
    // Scores outside [0, 1].
    std::fs::write(p("s.csv"), "0.5\n1.5\n").unwrap();
    fails_with(&["bounds", &p("s.csv")], &["1.5"]);
    // Inconsistent runs.
    fails_with(
        &[
            "ruler",
            "--unlearned",
            &act,
            "--oracle",
            &act,
            "--oracle",
            &act,
            "--forget",
            "0..5",
            "--retain",
            "5..10",
        ],
        &["--oracle"],
    );
    assert!(Path::new(&act).exists());
}

/// `--threads N` evaluates subsets (sde, calibrate) or shuffles (hsic) on N threads; the output is the same, byte
/// for byte, as with one thread (every subset has its own random stream; results are assembled in order).
#[test]
fn threads_change_no_output() {
    let act = demo("act_retrained.npy");
    let (it, oot, pool_in, pool_out) = (
        format!("{act}@144..244"),
        format!("{act}@544..644"),
        format!("{act}@0..144"),
        format!("{act}@544..744"),
    );
    let (retain, test) = (demo("retain.txt"), demo("test.txt"));
    let sde: Vec<&str> = vec![
        "sde",
        "--it",
        &it,
        "--oot",
        &oot,
        "--draw-in",
        &pool_in,
        "--draw-out",
        &pool_out,
        "--draw",
        "3",
        "--size",
        "100",
        "--shuffles",
        "40",
        "--seed",
        "3",
        "--split",
        "random",
        "--baselines",
    ];
    let calibrate: Vec<&str> = vec![
        "calibrate",
        "--data",
        &act,
        "--it-pool",
        &retain,
        "--oot-pool",
        &test,
        "--draw-from",
        "0..144",
        "--draw",
        "5",
        "--size",
        "30",
        "--refs",
        "6",
        "--paper-shuffles",
        "40",
        "--seed",
        "2",
    ];
    let x = format!("{act}@0..100");
    let y = format!("{act}@300..400");
    let hsic: Vec<&str> = vec!["hsic", &x, &y, "--permutations", "299", "--seed", "1"];
    for (cmd, label) in [(sde, "sde"), (calibrate, "calibrate"), (hsic, "hsic")] {
        for precision in ["f64", "f32"] {
            for json in [true, false] {
                let run = |threads: &str| {
                    let mut a = cmd.clone();
                    a.extend(["--precision", precision, "--threads", threads]);
                    if json {
                        a.push("--json");
                    }
                    let out = lethe(&a);
                    assert!(out.status.success(), "{a:?}: {}", String::from_utf8_lossy(&out.stderr));
                    out.stdout
                };
                let one = run("1");
                assert!(!one.is_empty());
                assert!(
                    one == run("3"),
                    "{label} {precision} json={json}: --threads 3 differs from --threads 1"
                );
            }
        }
    }
    fails_with(&["hsic", &x, &y, "--threads", "0"], &["--threads", "at least 1"]);
}

/// `--in-place always` (inputs read from their files a panel of columns at a time) gives the JSON report of
/// `--in-place never` (inputs loaded), byte for byte: index-file rows, drawn targets, random splits, baselines, and
/// calibrate's pools. A file that cannot be read in place is a usage error under `always`.
#[test]
fn reading_in_place_changes_no_output() {
    let act = demo("act_unlearned.npy");
    let (retain, test, forget) = (demo("retain.txt"), demo("test.txt"), demo("forget.txt"));
    let (it, oot, t, pool) = (
        format!("{act}@{retain}"),
        format!("{act}@{test}"),
        format!("{act}@0..100"),
        format!("{act}@{forget}"),
    );
    let sde: Vec<&str> = vec![
        "sde",
        "--it",
        &it,
        "--oot",
        &oot,
        "--target-in",
        &t,
        "--draw-out",
        &pool,
        "--draw",
        "3",
        "--size",
        "100",
        "--shuffles",
        "30",
        "--split",
        "random",
        "--seed",
        "4",
        // The references have 400 and 200 rows: 100 drawn from each (read in place or loaded alike).
        "--equal-size",
    ];
    let (it2, oot2) = (format!("{act}@144..244"), format!("{act}@544..644"));
    let baselines: Vec<&str> = vec![
        "sde",
        "--it",
        &it2,
        "--oot",
        &oot2,
        "--target",
        &t,
        "--shuffles",
        "20",
        "--baselines",
        "--precision",
        "f32",
    ];
    let calibrate: Vec<&str> = vec![
        "calibrate",
        "--data",
        &act,
        "--it-pool",
        &retain,
        "--oot-pool",
        &test,
        "--draw-in",
        &forget,
        "--draw",
        "4",
        "--size",
        "40",
        "--refs",
        "5",
        "--paper-shuffles",
        "30",
        "--split",
        "random",
    ];
    for cmd in [sde, baselines, calibrate] {
        let run = |mode: &str| {
            let mut a = cmd.clone();
            a.extend(["--in-place", mode, "--json"]);
            let out = lethe(&a);
            assert!(out.status.success(), "{a:?}: {}", String::from_utf8_lossy(&out.stderr));
            out.stdout
        };
        let loaded = run("never");
        assert!(loaded == run("always"), "{cmd:?}: read in place differs from loaded");
        assert!(loaded == run("auto"), "{cmd:?}: auto (small inputs: loaded) differs");
    }
    let human = lethe(&[
        "sde",
        "--it",
        &it2,
        "--oot",
        &oot2,
        "--target",
        &t,
        "--shuffles",
        "20",
        "--in-place",
        "always",
    ]);
    assert!(String::from_utf8_lossy(&human.stdout).contains("read in place, a panel of columns at a time"));

    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("x.csv");
    std::fs::write(&csv, "1,2\n3,4\n5,6\n7,8\n").unwrap();
    let csv = csv.display().to_string();
    let out = lethe(&[
        "sde",
        "--it",
        &csv,
        "--oot",
        &csv,
        "--target",
        &csv,
        "--in-place",
        "always",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be read in place"));
    let out = lethe(&[
        "calibrate",
        "--data",
        &format!("{act}@0..300"),
        "--it-pool",
        "0..100",
        "--oot-pool",
        "100..200",
        "--in-place",
        "always",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// `lethe` with extra environment variables (the GPU tests: Vulkan only, as build.sh runs them).
#[cfg(feature = "gpu")]
fn lethe_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run lethe")
}

/// The environment of the GPU runs: Vulkan (lavapipe on a machine without a GPU) unless WGPU_BACKEND says
/// otherwise, and a runtime directory for the Vulkan loader.
#[cfg(feature = "gpu")]
fn gpu_env(dir: &Path) -> Vec<(&'static str, String)> {
    vec![
        (
            "WGPU_BACKEND",
            std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "vulkan".into()),
        ),
        ("XDG_RUNTIME_DIR", dir.display().to_string()),
    ]
}

/// Unit roundoff of f32 and the GPU suite's score tolerance (gpu/tests/suite/mod.rs: `Tolerances::F32`,
/// `score_ulps` = 1 in units of `u · (1 + log2 n²) · κ`, `exceedances` = 3).
#[cfg(feature = "gpu")]
const EPS32: f64 = f32::EPSILON as f64 / 2.0;
#[cfg(feature = "gpu")]
const SCORE_ULPS: f64 = 1.0;
#[cfg(feature = "gpu")]
const EXCEEDANCES: i64 = 3;

/// The scale κ of one shuffle score (gpu/tests/suite/mod.rs `score_scale`): `Σ_ij K̄_ij L_{p(i)p(j)} / (n−1)²`
/// with `K̄_ij = K_ij + r_i + r_j + g`, `K` the uncentred kernel of the first half, `L` the second half's.
#[cfg(feature = "gpu")]
fn score_scale(k: &[f64], l: &[f64], n: usize, p: &[u32]) -> f64 {
    let nf = n as f64;
    let r: Vec<f64> = (0..n).map(|i| k[i * n..(i + 1) * n].iter().sum::<f64>() / nf).collect();
    let g = r.iter().sum::<f64>() / nf;
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += (k[i * n + j] + r[i] + r[j] + g) * l[p[i] as usize * n + p[j] as usize];
        }
    }
    s / ((nf - 1.0) * (nf - 1.0))
}

/// `--backend gpu` on lavapipe (Mesa's Vulkan on the CPU; fails, never skips, without an adapter, as the GPU
/// crate's tests do): every shuffle value of `sde` within the GPU suite's f32 tolerance of the CPU f64 values,
/// as `--precision f32` is (so the two f32 paths agree within twice that), the report naming the adapter; and
/// `hsic` likewise, with exceedance counts within the suite's 3 of `--precision f32`'s.
#[cfg(feature = "gpu")]
#[test]
fn gpu_backend_agrees_with_cpu_f32_and_names_the_adapter() {
    let dir = tempfile::tempdir().unwrap();
    let env = gpu_env(dir.path());
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let act = demo("act_retrained.npy");
    let (it, oot, pool) = (
        format!("{act}@144..244"),
        format!("{act}@544..644"),
        format!("{act}@0..144"),
    );
    let (seed, shuffles) = (6u64, 60usize);
    let seed_s = seed.to_string();
    let shuffles_s = shuffles.to_string();
    let sde = |extra: &[&str]| -> Value {
        let mut a = vec![
            "sde",
            "--it",
            &it,
            "--oot",
            &oot,
            "--draw-in",
            &pool,
            "--draw",
            "3",
            "--size",
            "100",
            "--shuffles",
            &shuffles_s,
            "--seed",
            &seed_s,
            "--json",
        ];
        a.extend(extra);
        let out = lethe_env(&a, &env);
        assert!(out.status.success(), "{a:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let gpu = sde(&["--backend", "gpu"]);
    let f32 = sde(&["--precision", "f32"]);
    let f64 = sde(&["--precision", "f64"]);
    let backend = &gpu["result"]["backend"];
    println!("adapter: {backend}");
    let device = backend["device"].as_str().unwrap();
    assert!(!device.is_empty() && !device.starts_with("unnamed"), "{backend}");
    assert_eq!(backend["precision"], "f32");
    assert_ne!(backend["name"], "cpu");
    assert_eq!(gpu["parameters"]["backend"], "gpu");
    assert_eq!(gpu["parameters"]["precision"], "f32");

    // The subsets in evaluation order, as rows of the file, to recompute each shuffle's κ.
    let m = |rows| matrix_rows("act_retrained.npy", rows);
    let (mi, mo, mp) = (m(144..244), m(544..644), m(0..144));
    let draws = lethe::sde::draw_targets(Some(true), 144, 3, 100, seed).unwrap();
    let mut subsets = vec![mi, mo];
    subsets.extend(draws.iter().map(|d| mp.select_rows(d, "pool").unwrap()));
    let dist = |r: &Value, k: usize| -> Vec<f64> {
        let d = match k {
            0 => &r["result"]["in_training_reference"],
            1 => &r["result"]["out_of_training_reference"],
            _ => &r["result"]["targets"][k - 2]["distribution"],
        };
        d["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    };
    let (mut worst_gpu, mut worst_f32) = (0.0f64, 0.0f64);
    for (k, s) in subsets.iter().enumerate() {
        let h = s.rows() / 2;
        let bw = lethe::kernel::Bandwidth::SqrtDim;
        let kx = lethe::kernel::rbf::<f64, f64>(s.row_block(0, h).unwrap(), bw)
            .unwrap()
            .values;
        let ly = lethe::kernel::rbf::<f64, f64>(s.row_block(h, 2 * h).unwrap(), bw)
            .unwrap()
            .values;
        let mut perms = Vec::new();
        lethe::permute::Permutations::for_subset(seed, lethe::permute::Stream::Shuffles, k as u64)
            .extend(h, shuffles, &mut perms);
        let (g, c32, c64) = (dist(&gpu, k), dist(&f32, k), dist(&f64, k));
        assert_eq!((g.len(), c32.len()), (shuffles, shuffles));
        for t in 0..shuffles {
            let unit = EPS32 * (1.0 + ((h * h) as f64).log2()) * score_scale(&kx, &ly, h, &perms[t * h..(t + 1) * h]);
            let (e_gpu, e_f32) = ((g[t] - c64[t]).abs() / unit, (c32[t] - c64[t]).abs() / unit);
            assert!(
                e_gpu <= SCORE_ULPS,
                "subset {k} shuffle {t}: GPU {} vs f64 {}",
                g[t],
                c64[t]
            );
            assert!(
                e_f32 <= SCORE_ULPS,
                "subset {k} shuffle {t}: f32 {} vs f64 {}",
                c32[t],
                c64[t]
            );
            assert!((g[t] - c32[t]).abs() <= 2.0 * SCORE_ULPS * unit);
            worst_gpu = worst_gpu.max(e_gpu);
            worst_f32 = worst_f32.max(e_f32);
        }
        let sig = |r: &Value| r["result"]["in_training_reference"]["sigma_1"].as_f64().unwrap();
        assert_eq!(sig(&gpu), sig(&f32));
    }
    println!("sde: largest error vs CPU f64 in units of u(1+log2 n²)κ: GPU {worst_gpu:.3}, CPU f32 {worst_f32:.3}");

    // The human output names the adapter too.
    let mut a = vec!["hsic", &it, &oot, "--permutations", "199", "--backend", "gpu"];
    let out = lethe_env(&a, &env);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("backend: GPU") && text.contains(device),
        "{text}"
    );
    a.push("--json");
    let g: Value = serde_json::from_slice(&lethe_env(&a, &env).stdout).unwrap();
    let c: Value = json(&["hsic", &it, &oot, "--permutations", "199", "--precision", "f32"]);
    let (gs, cs) = (
        g["result"]["statistic"].as_f64().unwrap(),
        c["result"]["statistic"].as_f64().unwrap(),
    );
    // The observed statistic is the score of the identity permutation: the same tolerance (twice: two f32 paths).
    let bw = lethe::kernel::Bandwidth::SqrtDim;
    let (x, y) = (m(144..244), m(544..644));
    let kx = lethe::kernel::rbf::<f64, f64>(x.view(), bw).unwrap().values;
    let ly = lethe::kernel::rbf::<f64, f64>(y.view(), bw).unwrap().values;
    let n = x.rows();
    let identity: Vec<u32> = (0..n as u32).collect();
    let unit = EPS32 * (1.0 + ((n * n) as f64).log2()) * score_scale(&kx, &ly, n, &identity);
    assert!((gs - cs).abs() <= 2.0 * SCORE_ULPS * unit, "{gs} vs {cs}");
    let ex = |r: &Value| r["result"]["exceedances"].as_i64().unwrap();
    assert!((ex(&g) - ex(&c)).abs() <= EXCEEDANCES, "{} vs {}", ex(&g), ex(&c));
    assert_eq!(g["result"]["backend"]["device"], device);
}

/// GPU failures are messages with exit status 1, never panics: f64 asked of the GPU, and no adapter (a backend
/// that is not compiled in).
#[cfg(feature = "gpu")]
#[test]
fn gpu_backend_errors_are_clear() {
    let x = format!("{}@0..20", demo("act_original.npy"));
    fails_with(
        &["hsic", &x, &x, "--backend", "gpu", "--precision", "f64"],
        &["--backend gpu", "f32 only"],
    );
    let out = lethe_env(&["hsic", &x, &x, "--backend", "gpu"], &[("WGPU_BACKEND", "metal")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--backend gpu") && err.contains("no GPU adapter"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// The exit status and stderr of a failing run.
fn failure(args: &[&str]) -> (i32, String) {
    let out = lethe(args);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "lethe {args:?} should fail");
    assert!(!err.contains("panicked"), "{err}");
    (out.status.code().unwrap_or(-1), err)
}

fn sha256(path: &str) -> String {
    let f = std::fs::File::open(path).unwrap();
    lethe::digest::sha256_hex(&f, |_, _| ()).unwrap()
}

/// A range far past the file is checked against its row count before it is expanded (no allocation of 10^14
/// indices), and an index too large for any file is reported in the digits the user typed — for input specs,
/// ruler's --forget/--retain and calibrate's pools alike.
#[test]
fn huge_row_ranges_and_indices_are_errors_not_allocations() {
    let act = demo("act_original.npy");
    let (code, err) = failure(&["hsic", &format!("{act}@0..99999999999999"), &act]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("rows 0..99999999999999 are out of range") && err.contains("744 rows"),
        "{err}"
    );
    let (code, err) = failure(&[
        "ruler",
        "--unlearned",
        &act,
        "--forget",
        "0..99999999999999",
        "--retain",
        "144..544",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.starts_with("lethe: error: forget: rows 0..99999999999999 are out of range"),
        "{err}"
    );
    let (code, err) = failure(&[
        "calibrate",
        "--data",
        &act,
        "--it-pool",
        "144..544",
        "--oot-pool",
        "544..99999999999999",
        "--target",
        "0..100",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("oot_pool: rows 544..99999999999999 are out of range"),
        "{err}"
    );
    // Past usize: a usage error that shows what was typed, not usize::MAX.
    for (args, typed) in [
        (
            vec![
                "hsic".to_string(),
                format!("{act}@0..99999999999999999999999"),
                act.clone(),
            ],
            "99999999999999999999999",
        ),
        (
            vec![
                "hsic".to_string(),
                format!("{act}@1,184467440737095516160"),
                act.clone(),
            ],
            "184467440737095516160",
        ),
        (
            vec![
                "ruler".into(),
                "--unlearned".into(),
                act.clone(),
                "--forget".into(),
                "3,99999999999999999999".into(),
                "--retain".into(),
                "144..544".into(),
            ],
            "99999999999999999999",
        ),
    ] {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, err) = failure(&a);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(typed) && !err.contains(&usize::MAX.to_string()), "{err}");
    }
    // A range whose file cannot tell its rows from the headers: the file's own problem is reported first.
    let (code, err) = failure(&["hsic", "/no/such/x.npy@0..99999999999999", &act]);
    assert_eq!(code, 1);
    assert!(
        err.contains("/no/such/x.npy") && err.contains("check the path"),
        "{err}"
    );
}

/// Paths may contain `@` and `#`: an argument (or prefix) that names an existing file is that file (docs/cli.md,
/// "Inputs"). Index files with `@` in their names work too.
#[test]
fn paths_with_at_and_hash_are_read_as_paths() {
    let dir = tempfile::tempdir().unwrap();
    let odd = dir.path().join("run@2#b.npy").display().to_string();
    std::fs::copy(demo("act_original.npy"), &odd).unwrap();
    let idx = dir.path().join("rows@1.txt").display().to_string();
    std::fs::write(&idx, (20..40).map(|i| i.to_string()).collect::<Vec<_>>().join("\n")).unwrap();
    let r = json(&["mmd", &format!("{odd}@0..20"), &format!("{odd}@{idx}")]);
    let want = json(&[
        "mmd",
        &format!("{}@0..20", demo("act_original.npy")),
        &format!("{}@20..40", demo("act_original.npy")),
    ]);
    assert_eq!(r["result"], want["result"]);
    let inputs = r["inputs"].as_array().unwrap();
    assert_eq!(inputs[0]["path"], odd.as_str());
    assert_eq!(
        (inputs[0]["rows_used"].as_u64(), inputs[1]["rows_used"].as_u64()),
        (Some(20), Some(20))
    );
    assert_eq!(inputs[1]["row_file"]["path"], idx.as_str());
    assert_eq!(inputs[1]["row_file"]["sha256"], sha256(&idx).as_str());
    // The whole argument, a file of its own.
    let r = json(&["inspect", &odd]);
    assert_eq!(r["result"]["arrays"][0]["shape"], serde_json::json!([744, 128]));
}

/// A file of several arrays given without `#NAME`: the CLI says how to choose (`PATH#NAME`), for .npz,
/// .safetensors and JSON objects; with the name it loads.
#[test]
fn several_arrays_without_a_name_ask_for_path_hash_name() {
    let dir = tempfile::tempdir().unwrap();
    let obj = dir.path().join("two.json").display().to_string();
    std::fs::write(&obj, r#"{"a": [1, 2, 3, 4], "b": [2, 3, 5, 7]}"#).unwrap();
    let formats = root().join("tests/fixtures/formats");
    let npz = formats.join("npz/stored.npz").display().to_string();
    let st = formats.join("safetensors/mixed.safetensors").display().to_string();
    for (file, first) in [(&npz, "a"), (&st, "u64"), (&obj, "a")] {
        let (code, err) = failure(&["wasserstein", file, file]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("holds several"), "{err}");
        assert!(err.contains(&format!("pass PATH#NAME, e.g. `{file}#{first}`")), "{err}");
        assert!(!err.contains("--name"), "{err}");
    }
    let r = json(&["mwu", &format!("{obj}#a"), &format!("{obj}#b")]);
    assert_eq!(r["inputs"][1]["tensor"], "b");
    let r = json(&["wasserstein", &format!("{npz}#a@0..4"), &format!("{npz}#a@1..5")]);
    assert_eq!(r["inputs"][0]["tensor"], "a");
    // A range is checked against the named member's rows (also when named with its `.npy` suffix).
    let (code, err) = failure(&["mmd", &format!("{npz}#a.npy@0..99999999999"), &format!("{npz}#a")]);
    assert_eq!(code, 1);
    assert!(
        err.contains("rows 0..99999999999 are out of range") && err.contains("which has 5 rows"),
        "{err}"
    );
    // A member the archive lacks: reported as such before any range is expanded.
    let (code, err) = failure(&["mmd", &format!("{npz}#nope@0..99999999999"), &format!("{npz}#a")]);
    assert_eq!(code, 1);
    assert!(err.contains("no array named `nope`"), "{err}");
}

/// Corrupt and unreadable files: the input, the problem and what would fix it.
#[test]
fn corrupt_and_missing_files_say_what_would_fix_them() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.npy").display().to_string();
    let mut bytes = std::fs::read(demo("act_original.npy")).unwrap();
    bytes[10] = b'x'; // the header dict no longer starts with `{`
    std::fs::write(&bad, &bytes).unwrap();
    let (code, err) = failure(&["mmd", &bad, &bad]);
    assert_eq!(code, 1);
    assert!(err.contains("x: `") && err.contains("bad.npy` is corrupt"), "{err}");
    assert!(err.contains("re-save the array with numpy.save"), "{err}");
    let missing = dir.path().join("missing.npy").display().to_string();
    let (_, err) = failure(&["mmd", &missing, &bad]);
    assert!(err.contains("missing.npy") && err.contains("check the path"), "{err}");
    let (_, err) = failure(&["mmd", &dir.path().display().to_string(), &bad]);
    assert!(err.contains("not of a directory"), "{err}");
    let (_, err) = failure(&[
        "ruler",
        "--unlearned",
        &demo("act_original.npy"),
        "--forget",
        &dir.path().join("nofile.txt").display().to_string(),
        "--retain",
        "144..544",
    ]);
    assert!(
        err.contains("forget: rows") && err.contains("no such file exists"),
        "{err}"
    );
}

/// Usage errors — a bad option value, a malformed row spec, options that do not go together — exit with status
/// 2, as clap's own (docs/cli.md); bad input exits with 1.
#[test]
fn usage_errors_exit_with_status_2() {
    let act = demo("act_original.npy");
    let x = format!("{act}@0..20");
    let dir = tempfile::tempdir().unwrap();
    let v = dir.path().join("v.json").display().to_string();
    std::fs::write(&v, "[1, 2, 3, 4, 5]").unwrap();
    for args in [
        vec!["hsic", &x, &x, "--threads", "0"],
        vec!["sde", "--it", &x, "--oot", &x, "--threads", "0"],
        vec!["mwu", &v, &v, "--alternative", "sideways"],
        vec!["mwu", &v, &v, "--method", "exactly"],
        vec!["wilcoxon", &v, "--zero-method", "none"],
        vec!["wilcoxon", &v, "--alternative", "two_sided"],
        vec!["jsd", &v, &v, "--base", "10"],
        vec!["hsic", &x, &x, "--sigma-x", "-1"],
        vec!["sde", "--it", &x, "--oot", &x, "--precision", "f16"],
        vec!["epsilon", "--retrained", &v, "--unlearned", &v, "--eps-max", "lots"],
        vec!["mmd", &format!("{act}@5..2"), &x],
        vec!["mmd", &format!("{act}@"), &x],
        vec!["ruler", "--unlearned", &act, "--forget", "5..2", "--retain", "0..5"],
        vec![
            "ruler",
            "--unlearned",
            &act,
            "--oracle",
            &act,
            "--oracle",
            &act,
            "--forget",
            "0..5",
            "--retain",
            "5..9",
        ],
        vec!["sde", "--it", &x, "--oot", &x, "--backend", "gpu", "--precision", "f64"],
        vec!["epsilon", "--retrained", &v],
    ] {
        let (code, err) = failure(&args);
        assert_eq!(code, 2, "lethe {args:?}: {err}");
    }
    // Bad input, not bad usage.
    let (code, _) = failure(&["mmd", &format!("{act}@740..750"), &x]);
    assert_eq!(code, 1);
}

/// `lethe ruler` records the SHA-256 of its forget/retain index files, and a split column (`FILE==VALUE`, the
/// widget's "split column" row choice) selects the same rows as an index file of those rows, in ruler's
/// --forget/--retain, in an input's @ROWS and in calibrate's pools; its file is recorded like an index file.
#[test]
fn ruler_records_row_files_and_split_columns_select_like_index_files() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    let read = |f: &str| -> Vec<usize> {
        std::fs::read_to_string(demo(f))
            .unwrap()
            .lines()
            .map(|l| l.trim().parse().unwrap())
            .collect()
    };
    let (forget, retain) = (read("forget.txt"), read("retain.txt"));
    let mut labels = vec!["test"; 744];
    for &i in &forget {
        labels[i] = "forget";
    }
    for &i in &retain {
        labels[i] = " retain "; // entries are compared trimmed
    }
    std::fs::write(p("split.txt"), labels.join("\n") + "\n").unwrap();
    let sorted = |v: &[usize]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
    };
    std::fs::write(p("f.txt"), sorted(&forget)).unwrap();
    std::fs::write(p("r.txt"), sorted(&retain)).unwrap();
    let models = [
        "--unlearned".to_string(),
        demo("act_unlearned.npy"),
        "--oracle".into(),
        demo("act_retrained.npy"),
        "--original".into(),
        demo("act_original.npy"),
    ];
    let run = |f: &str, r: &str| {
        let mut a: Vec<&str> = vec!["ruler"];
        a.extend(models.iter().map(String::as_str));
        a.extend(["--forget", f, "--retain", r]);
        json(&a)
    };
    // Index files: recorded after the three model files, as the widget records them.
    let by_file = run(&demo("forget.txt"), &demo("retain.txt"));
    let inputs = by_file["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 5, "{inputs:?}");
    for (rec, role, file, n) in [
        (&inputs[3], "forget", "forget.txt", 144),
        (&inputs[4], "retain", "retain.txt", 400),
    ] {
        assert_eq!(rec["role"], role);
        assert_eq!(rec["path"], demo(file).as_str());
        assert_eq!(rec["spec"], demo(file).as_str());
        assert_eq!(rec["sha256"], sha256(&demo(file)).as_str());
        assert_eq!(
            (rec["format"].as_str(), rec["dtype"].as_str()),
            (Some("rows"), Some("row indices"))
        );
        assert_eq!(
            (rec["rows_used"].as_u64(), rec["shape"][0].as_u64()),
            (Some(n), Some(n))
        );
        assert_eq!(rec["row_file"], Value::Null);
    }
    // Ranges: nothing to hash, nothing recorded.
    let by_range = run("0..144", "144..544");
    assert_eq!(by_range["inputs"].as_array().unwrap().len(), 3);
    // Split column vs the same rows as index files (ascending, as a split column yields them): equal numbers.
    let split = run(
        &format!("{}==forget", p("split.txt")),
        &format!("{}==retain", p("split.txt")),
    );
    let sorted_files = run(&p("f.txt"), &p("r.txt"));
    assert_eq!(split["result"], sorted_files["result"]);
    let rec = &split["inputs"][3];
    assert_eq!(rec["spec"], format!("{}==forget", p("split.txt")).as_str());
    assert_eq!(rec["path"], p("split.txt").as_str());
    assert_eq!(rec["sha256"], sha256(&p("split.txt")).as_str());
    assert_eq!(rec["rows_used"], 144);
    // In an input's @ROWS: the split file is the input's row_file.
    let act = demo("act_original.npy");
    let a = json(&[
        "mmd",
        &format!("{act}@{}==forget", p("split.txt")),
        &format!("{act}@0..50"),
    ]);
    let b = json(&["mmd", &format!("{act}@{}", p("f.txt")), &format!("{act}@0..50")]);
    assert_eq!(a["result"], b["result"]);
    assert_eq!(a["inputs"][0]["row_file"]["path"], p("split.txt").as_str());
    assert_eq!(a["inputs"][0]["row_file"]["sha256"], sha256(&p("split.txt")).as_str());
    assert_eq!(
        a["inputs"][0]["spec"],
        format!("{act}@{}==forget", p("split.txt")).as_str()
    );
    // Calibrate's pools, and their files recorded.
    let cal = |it: &str| {
        json(&[
            "calibrate",
            "--data",
            &act,
            "--it-pool",
            it,
            "--oot-pool",
            "544..744",
            "--target",
            "0..100",
            "--size",
            "50",
            "--equal-size",
            "--refs",
            "3",
            "--paper-shuffles",
            "0",
        ])
    };
    let (a, b) = (cal(&format!("{}==retain", p("split.txt"))), cal(&p("r.txt")));
    assert_eq!(a["result"], b["result"]);
    let rec = &a["inputs"][1];
    assert_eq!(
        (rec["role"].as_str(), rec["rows_used"].as_u64()),
        (Some("it_pool"), Some(400))
    );
    assert_eq!(rec["sha256"], sha256(&p("split.txt")).as_str());
    // No row matches: a clear message.
    let (code, err) = failure(&["mmd", &format!("{act}@{}==nothing", p("split.txt")), &act]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no row of the split column") && err.contains("`nothing`"),
        "{err}"
    );
}
