//! The NeurIPS 2023 competition score against its references.
//!
//! Where each number comes from:
//! - `golden/neurips2023.json` (float64 numpy reference, versions.json): `example_cases[*].results[*]`
//!   (`ref_epsilon`, `ref_score_eps_max_6_5`, `ref_score_eps_max_official`, `official_eps_max`,
//!   `ref_epsilon_lower_bound_cp_alpha_{0_05,0_5}` — Clopper–Pearson via statsmodels 0.15.0 `proportion_confint`),
//!   `example_cases[*].attack_table`, `bucket_cases`, and `forgetting_quality_case` (`ref_example_epsilons`,
//!   `ref_F_eps_max_*`, `ref_final_score_eps_max_6_5`, and `official_port_epsilons` /
//!   `official_port_forget_score` from the golden author's numpy port of metric.py).
//! - `peers/competition_official_{n8,n16,n64,n512,misc}.json`: google-deepmind/unlearning_evaluation `metric.py`
//!   (ffae0ff) itself, run unmodified by `tests/peers/metric_runner.py` on `tests/peers/torch_shim` (a numpy-backed
//!   stand-in for torch 1.12.1 + CUDA semantics), numpy 2.4.6.
//! - `peers/competition_torch_linspace.json`: torch 1.12.1's own `libtorch_cpu.so` (PyPI wheel), through
//!   `tests/peers/torch_linspace.cpp`.
//! - `peers/competition_numpy_f32.json`, `peers/competition_confidence.json`: numpy 2.4.6 `np.log`/`np.exp` on
//!   float32 and metric.py's `compute_logit_scaled_confidence`, via `metric_runner.py`.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

mod common;
use common::*;

use lethe::competition::emulate::{numpy_exp_f32, numpy_log_f32, torch_linspace_f32};
use lethe::competition::{
    Accuracies, AttackRule, CompetitionParams, EpsMax, Variant, bucket_table, example_epsilon, exhaustive_attacks,
    final_score, forget_score, logit_scaled_confidence, official_eps_max, score_epsilon,
};
use lethe::{Matrix, MatrixRef};
use serde_json::Value;

fn peer(name: &str) -> Value {
    let p = fixture_path("peers").join(name);
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", p.display()))
}

fn hex32(s: &str) -> Vec<u32> {
    s.as_bytes()
        .chunks(8)
        .map(|c| u32::from_str_radix(std::str::from_utf8(c).unwrap(), 16).unwrap())
        .collect()
}

fn params(variant: Variant, delta: f64, eps_max: EpsMax) -> CompetitionParams {
    CompetitionParams {
        variant,
        delta,
        eps_max,
    }
}

// ----------------------------------------------------------------------------------------------------------------
// Emulated library arithmetic
// ----------------------------------------------------------------------------------------------------------------

#[test]
fn torch_linspace_matches_torch_1_12_1_bitwise() {
    let g = peer("competition_torch_linspace.json");
    let mut points = 0;
    for c in g["cases"].as_array().unwrap() {
        let (start, end, steps) = (num(&c["start"]), num(&c["end"]), c["steps"].as_u64().unwrap() as usize);
        let want = hex32(c["bits"].as_str().unwrap());
        let got: Vec<u32> = torch_linspace_f32(start, end, steps)
            .iter()
            .map(|v| v.to_bits())
            .collect();
        assert_eq!(got.len(), want.len(), "steps {steps}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "linspace({start}, {end}, {steps})[{i}]");
        }
        points += want.len();
    }
    println!("torch.linspace float32: {points} points, all bitwise equal (max deviation 0 ulp)");
    assert!(points > 8000);
}

#[test]
fn numpy_float32_log_and_exp_match_numpy_bitwise() {
    let g = peer("competition_numpy_f32.json");
    for (fin, fout, f) in [
        ("log_in", "log_out", numpy_log_f32 as fn(f32) -> f32),
        ("exp_in", "exp_out", numpy_exp_f32),
    ] {
        let x = hex32(g[fin].as_str().unwrap());
        let y = hex32(g[fout].as_str().unwrap());
        assert!(x.len() > 2000);
        assert_eq!(x.len(), y.len(), "{fin} / {fout}");
        for (&xi, &yi) in x.iter().zip(&y) {
            let got = f(f32::from_bits(xi));
            let want = f32::from_bits(yi);
            assert!(
                got.to_bits() == yi || (got.is_nan() && want.is_nan()),
                "{fin} {}: got {got:e}, numpy {want:e}",
                f32::from_bits(xi)
            );
        }
        println!(
            "numpy float32 {fin}: {} values bitwise equal (max deviation 0 ulp)",
            x.len()
        );
    }
}

/// Every positive float32 through `numpy_log_f32`, compared with numpy by block checksums (slow in debug builds:
/// `cargo test --release --test golden_competition -- --ignored`).
#[test]
#[ignore]
fn numpy_float32_log_matches_numpy_on_every_float() {
    let g = peer("competition_numpy_f32.json");
    for (b, block) in g["log_blocks"].as_array().unwrap().iter().enumerate() {
        let want_sum = block[0].as_u64().unwrap();
        let want_xor = block[1].as_u64().unwrap();
        let (mut sum, mut xor) = (0u64, 0u64);
        for (i, bits) in ((b as u32) << 24..((b as u32) << 24) + (1 << 24)).enumerate() {
            let out = u64::from(numpy_log_f32(f32::from_bits(bits)).to_bits());
            sum = sum.wrapping_add(out);
            xor ^= out.wrapping_mul(i as u64 | 1);
        }
        assert_eq!((sum, xor), (want_sum, want_xor), "block {b}");
    }
}

#[test]
fn logit_scaled_confidence_matches_metric_py() {
    let g = peer("competition_confidence.json");
    let (mut dev32, mut dev64) = (MaxDev::default(), MaxDev::default());
    for c in g["cases"].as_array().unwrap() {
        let logits = matrix(&c["logits"]);
        let labels: Vec<usize> = c["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        let want = nums(&c["confidence"]);
        let got = if c["dtype"] == "float32" {
            let l32: Vec<f32> = logits.as_slice().iter().map(|&v| v as f32).collect();
            logit_scaled_confidence(MatrixRef::new(logits.rows(), logits.cols(), &l32).unwrap(), &labels).unwrap()
        } else {
            logit_scaled_confidence(logits.view(), &labels).unwrap()
        };
        let dev = if c["dtype"] == "float32" {
            &mut dev32
        } else {
            &mut dev64
        };
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            dev.add(*g, *w);
            // exp/sums are numpy's to the bit; the two float64 logs are the platform's (≤ 1 ulp each).
            assert_close(*g, *w, tol::LOG_ULPS, tol::LOG_ULPS, format!("{} logits", c["dtype"]));
        }
    }
    dev32.report("logit-scaled confidence, float32 logits, vs metric.py");
    dev64.report("logit-scaled confidence, float64 logits, vs metric.py");
}

// ----------------------------------------------------------------------------------------------------------------
// Official score
// ----------------------------------------------------------------------------------------------------------------

#[test]
fn official_epsilons_match_metric_py_bitwise() {
    let (mut examples, mut scores, mut single_best) = (0, 0, 0);
    for file in ["n8", "n16", "n64", "n512", "misc"] {
        let g = peer(&format!("competition_official_{file}.json"));
        for c in g["cases"].as_array().unwrap() {
            let name = c["name"].as_str().unwrap();
            let (r, u) = (matrix(&c["retrained"]), matrix(&c["unlearned"]));
            let res = forget_score(r.view(), u.view(), &CompetitionParams::default()).unwrap();
            assert_eq!(res.eps_max, num(&c["max_epsilon"]), "{name}");
            let details = c["details"].as_array().unwrap();
            let positive = bools(&c["retrain_is_positive"]);
            for (e, ex) in res.per_example.iter().enumerate() {
                let ctx = format!("{name} example {e}");
                assert_eq!(ex.positive_is_retrained, positive[e], "{ctx}");
                let d = &details[e];
                match &c["epsilons"][e] {
                    Value::Null => {
                        assert!(ex.best_attack.is_none() && !ex.peaky && ex.epsilon == 0.0, "{ctx}");
                        assert!(!res.warnings.is_empty(), "{ctx}: no warning for an unscored example");
                    }
                    want => {
                        assert_eq!(
                            ex.epsilon.to_bits(),
                            num(want).to_bits(),
                            "{ctx}: {} vs {}",
                            ex.epsilon,
                            num(want)
                        );
                        assert_eq!(ex.peaky, d["peaky"].as_bool().unwrap(), "{ctx}");
                        if let Some(a) = ex.best_attack {
                            assert_eq!(a.index as u64, d["best_index"].as_u64().unwrap(), "{ctx}");
                            assert_eq!(a.fpr, num(&d["best_fpr"]), "{ctx}");
                            assert_eq!(a.fnr, num(&d["best_fnr"]), "{ctx}");
                            let th = nums(&d["best_threshold"]);
                            match a.rule {
                                AttackRule::Interval { left, right } => {
                                    assert_eq!([left, right], [th[0], th[1]], "{ctx}")
                                }
                                AttackRule::AtLeast { threshold } => {
                                    single_best += 1;
                                    assert_eq!(threshold, th[0], "{ctx}");
                                }
                                AttackRule::Below { .. } => {
                                    panic!("{ctx}: the official family has no `<` rule")
                                }
                            }
                        } else {
                            assert!(ex.peaky, "{ctx}");
                        }
                    }
                }
                examples += 1;
            }
            if !c["forget_score"].is_null() {
                assert_eq!(res.forget_score, num(&c["forget_score"]), "{name}");
                scores += 1;
            }
        }
    }
    println!(
        "official epsilon vs metric.py (torch shim): {examples} examples ({single_best} won by a float32 single threshold), \
         {scores} forget scores, all bitwise equal (max deviation 0)"
    );
    assert!(examples > 500);
}

#[test]
fn official_matches_golden_official_port() {
    let g = golden("neurips2023.json");
    let c = &g["forgetting_quality_case"];
    let (r, u) = (matrix(&c["retrained_confs"]), matrix(&c["unlearned_confs"]));
    let res = forget_score(r.view(), u.view(), &CompetitionParams::default()).unwrap();
    let want = nums(&c["official_port_epsilons"]);
    assert_eq!(res.per_example.len(), want.len(), "one epsilon per forget example");
    for (ex, w) in res.per_example.iter().zip(&want) {
        assert_eq!(ex.epsilon.to_bits(), w.to_bits());
    }
    assert_eq!(res.forget_score, num(&c["official_port_forget_score"]));
    assert_eq!(res.eps_max, num(&c["official_eps_max"]));
    println!(
        "official vs golden official_port_epsilons: {} examples bitwise equal (max deviation 0)",
        want.len()
    );
}

// ----------------------------------------------------------------------------------------------------------------
// Exhaustive and high-probability variants, buckets, final score
// ----------------------------------------------------------------------------------------------------------------

#[test]
fn exhaustive_epsilons_and_scores_match_reference() {
    let g = golden("neurips2023.json");
    let (mut dev_eps, mut dev_cp) = (MaxDev::default(), MaxDev::default());
    let mut checked = 0;
    for c in g["example_cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let (r, u) = (nums(&c["retrained"]), nums(&c["unlearned"]));
        for res in c["results"].as_array().unwrap() {
            let delta = num(&res["delta"]);
            let ctx = format!("{name} delta={delta}");
            let ex = example_epsilon(&r, &u, &params(Variant::Exhaustive, delta, EpsMax::Fixed(6.5))).unwrap();
            let want = num(&res["ref_epsilon"]);
            dev_eps.add(ex.epsilon, want);
            assert_close(ex.epsilon, want, tol::TIGHT, 0.0, &ctx);
            assert_eq!(ex.points, num(&res["ref_score_eps_max_6_5"]), "{ctx}");
            let official_max = official_eps_max(u.len());
            assert_eq!(official_max, num(&res["official_eps_max"]), "{ctx}");
            let ex_off = example_epsilon(&r, &u, &params(Variant::Exhaustive, delta, EpsMax::Official)).unwrap();
            assert_eq!(ex_off.points, num(&res["ref_score_eps_max_official"]), "{ctx}");
            for (key, alpha) in [
                ("ref_epsilon_lower_bound_cp_alpha_0_05", 0.05),
                ("ref_epsilon_lower_bound_cp_alpha_0_5", 0.5),
            ] {
                let p = params(Variant::HighProbability { alpha }, delta, EpsMax::Official);
                let got = example_epsilon(&r, &u, &p).unwrap().epsilon;
                let want = num(&res[key]);
                dev_cp.add(got, want);
                assert_close(got, want, tol::SPECIAL_FN, 0.0, format!("{ctx} {key}"));
            }
            checked += 1;
        }
    }
    dev_eps.report("exhaustive epsilon vs golden ref_epsilon");
    dev_cp.report("Clopper-Pearson epsilon lower bound vs golden (statsmodels)");
    assert_eq!(checked, 24);
}

#[test]
fn exhaustive_attack_tables_match_reference() {
    let g = golden("neurips2023.json");
    let mut dev = MaxDev::default();
    let mut rows = 0;
    for c in g["example_cases"].as_array().unwrap() {
        let Some(table) = c.get("attack_table").and_then(Value::as_array) else {
            continue;
        };
        let got = exhaustive_attacks(&nums(&c["retrained"]), &nums(&c["unlearned"]), 1e-5).unwrap();
        assert_eq!(got.len(), table.len());
        for (a, w) in got.iter().zip(table) {
            let (rule_t, dir) = match a.rule {
                AttackRule::AtLeast { threshold } => (threshold, ">="),
                AttackRule::Below { threshold } => (threshold, "<"),
                AttackRule::Interval { .. } => unreachable!(),
            };
            assert_eq!(rule_t, num(&w["threshold"]));
            assert_eq!(dir, w["direction"].as_str().unwrap());
            assert_eq!(a.false_positives as f64, num(&w["fp"]));
            assert_eq!(a.false_negatives as f64, num(&w["fn"]));
            assert_eq!((a.fpr, a.fnr), (num(&w["fpr"]), num(&w["fnr"])));
            let want = num(&w["ref_epsilon_delta_1e-5"]);
            dev.add(a.epsilon, want);
            assert_close(
                a.epsilon,
                want,
                tol::TIGHT,
                0.0,
                format!("{} {dir} {rule_t}", c["name"]),
            );
            rows += 1;
        }
    }
    dev.report("exhaustive attack-table epsilon vs golden");
    assert_eq!(rows, 34);
}

#[test]
fn bucket_points_match_reference() {
    let g = golden("neurips2023.json");
    for c in g["bucket_cases"].as_array().unwrap() {
        let (eps, eps_max) = (num(&c["eps"]), num(&c["eps_max"]));
        let (_, points) = score_epsilon(eps, &bucket_table(eps_max));
        assert_eq!(points, num(&c["ref_score"]), "eps {eps} eps_max {eps_max}");
    }
}

#[test]
fn forgetting_quality_and_final_score_match_reference() {
    let g = golden("neurips2023.json");
    let c = &g["forgetting_quality_case"];
    let (r, u) = (matrix(&c["retrained_confs"]), matrix(&c["unlearned_confs"]));
    let delta = num(&c["delta"]);
    let res = forget_score(
        r.view(),
        u.view(),
        &params(Variant::Exhaustive, delta, EpsMax::Fixed(6.5)),
    )
    .unwrap();
    let mut dev = MaxDev::default();
    let want = nums(&c["ref_example_epsilons"]);
    assert_eq!(res.per_example.len(), want.len());
    for (ex, w) in res.per_example.iter().zip(want) {
        dev.add(ex.epsilon, w);
        assert_close(ex.epsilon, w, tol::TIGHT, 0.0, "ref_example_epsilons");
    }
    dev.report("forgetting-quality case, exhaustive epsilons vs golden");
    assert_eq!(res.forget_score, num(&c["ref_F_eps_max_6_5"]));
    let off = forget_score(
        r.view(),
        u.view(),
        &params(Variant::Exhaustive, delta, EpsMax::Official),
    )
    .unwrap();
    assert_eq!(off.forget_score, num(&c["ref_F_eps_max_official"]));
    let a = &c["accuracies"];
    let acc = Accuracies {
        retain_unlearned: num(&a["ra_u"]),
        retain_retrained: num(&a["ra_r"]),
        test_unlearned: num(&a["ta_u"]),
        test_retrained: num(&a["ta_r"]),
    };
    let s = final_score(res.forget_score, &acc).unwrap();
    assert_close(
        s,
        num(&c["ref_final_score_eps_max_6_5"]),
        tol::TIGHT,
        0.0,
        "final score",
    );
    println!(
        "final score: |diff| = {:.3e}",
        (s - num(&c["ref_final_score_eps_max_6_5"])).abs()
    );
}

#[test]
fn official_edge_cases() {
    // Identical samples: every attack has FPR = 1 − FNR, epsilon small but defined.
    let x = Matrix::from_rows(&[[0.1, 2.0], [0.4, 1.0], [0.3, 3.0], [0.9, 2.5]]).unwrap();
    let res = forget_score(x.view(), x.view(), &CompetitionParams::default()).unwrap();
    assert!(res.per_example.iter().all(|e| !e.peaky && e.epsilon < 1.0));
    // Constant and equal samples: nothing survives; Lethe scores 0 and warns, saying what happened in a user's
    // words (metric.py's `assert thr_eps` would stop).
    let c = Matrix::from_rows(&[[0.7], [0.7], [0.7]]).unwrap();
    let res = forget_score(c.view(), c.view(), &CompetitionParams::default()).unwrap();
    assert_eq!(res.per_example[0].epsilon, 0.0);
    assert!(
        res.warnings
            .iter()
            .any(|w| w.contains("stops with an error") && w.contains("all of them are equal") && !w.contains("assert")),
        "{:?}",
        res.warnings
    );
}
