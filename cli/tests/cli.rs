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

#[test]
fn other_commands_run_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).display().to_string();
    std::fs::write(p("x.csv"), "1\n2\n3\n4\n5\n6\n7\n8\n").unwrap();
    std::fs::write(p("y.csv"), "2.5\n3.5\n4\n6\n7\n8.5\n9\n11\n").unwrap();
    std::fs::write(p("s.json"), "[0, 0.1, 0.3, 0, 0.9, 0.2, 0.05, 0.5]").unwrap();
    std::fs::write(p("gen.txt"), "the cat sat on the mat\nnothing\n").unwrap();
    let r = json(&["mwu", &p("x.csv"), &p("y.csv")]);
    assert!(r["result"]["p_value"].as_f64().unwrap() > 0.0);
    let r = json(&["wilcoxon", &p("x.csv"), &p("y.csv")]);
    assert_eq!(r["result"]["test"]["n_used"], 8);
    let r = json(&["jsd", &p("x.csv"), &p("y.csv"), "--bins", "5"]);
    let jsd = r["result"]["jsd"].as_f64().unwrap();
    assert!((0.0..=std::f64::consts::LN_2).contains(&jsd));
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
    let x = format!("{}@0..20", demo("act_original.npy"));
    let y = format!("{}@20..40", demo("act_original.npy"));
    assert!(json(&["mmd", &x, &y])["result"]["mmd2"].as_f64().unwrap().is_finite());
    assert!(json(&["wasserstein", &x, &y])["result"]["distance"].as_f64().unwrap() > 0.0);
    let r = json(&["hsic", &x, &y, "--permutations", "49"]);
    let pv = r["result"]["p_value"].as_f64().unwrap();
    assert!(pv > 0.0 && pv <= 1.0);
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
