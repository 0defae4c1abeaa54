//! The teaching topics against the CLI's steps and their stated distributions.

use lethe::backend::Precision;
use lethe::competition::AttackRule;
use lethe::kernel::Bandwidth;

use super::Teaching;
use super::bounds::*;
use super::column;
use super::digits::*;
use super::epsilon::*;
use super::export::*;
use super::hsic::*;
use super::ranks::*;

fn digits(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/data/digits")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn generated_data_is_seeded_and_shaped() {
    let spec = PairsSpec {
        kind: Dependence::Nonlinear,
        strength: 0.7,
        n: 50,
        seed: 3,
    };
    let (x, y) = pairs(&spec).unwrap();
    assert_eq!((x.len(), y.len()), (50, 50));
    assert_eq!(pairs(&spec).unwrap(), (x.clone(), y.clone()));
    assert_ne!(pairs(&PairsSpec { seed: 4, ..spec }).unwrap().0, x);
    assert!(x.windows(2).all(|w| w[0] <= w[1]), "ordered by x");
    // Independent data does not depend on the strength.
    let none = |s| {
        pairs(&PairsSpec {
            kind: Dependence::None,
            strength: s,
            ..spec
        })
        .unwrap()
    };
    assert_eq!(none(0.1), none(0.9));
    assert!(pairs(&PairsSpec { n: 3, ..spec }).is_err());
    assert!(pairs(&PairsSpec { strength: 1.5, ..spec }).is_err());

    let r = RankRequest {
        ties: true,
        ..Default::default()
    };
    let ((a, b), (c, d)) = rank_samples(&r).unwrap();
    assert_eq!((a.len(), b.len(), c.len(), d.len()), (8, 7, 8, 8));
    assert!(
        a.iter().chain(&b).all(|v| (v * 2.0).fract() == 0.0),
        "rounded to halves"
    );
    assert_eq!(rank_samples(&r).unwrap(), ((a, b), (c, d)));

    let (u, v) = epsilon_samples(&EpsilonSpec::default()).unwrap();
    assert_eq!((u.len(), v.len()), (64, 64));
    assert!(
        epsilon_samples(&EpsilonSpec {
            n_models: 2,
            ..Default::default()
        })
        .is_err()
    );

    let s = scores(&ScoresSpec::default()).unwrap();
    assert_eq!(s.len(), 200);
    assert!(s.iter().all(|v| (0.0..=1.0).contains(v)));
    let f = scores(&ScoresSpec {
        family: Family::Flags,
        p: 0.3,
        ..Default::default()
    })
    .unwrap();
    assert!(f.iter().all(|&v| v == 0.0 || v == 1.0));
    assert!(
        scores(&ScoresSpec {
            n: 0,
            ..Default::default()
        })
        .is_err()
    );
}

#[test]
fn generators_follow_their_stated_distributions() {
    // Large samples: the generating CDF and mean the figures draw are the data's.
    let spec = ScoresSpec {
        n: 20_000,
        p0: 0.4,
        k: 2.0,
        seed: 1,
        ..Default::default()
    };
    let s = scores(&spec).unwrap();
    let mean = s.iter().sum::<f64>() / s.len() as f64;
    assert!((mean - spec.mean()).abs() < 0.01, "{mean} vs {}", spec.mean());
    for x in [0.0, 0.1, 0.5, 0.9] {
        let emp = s.iter().filter(|&&v| v <= x).count() as f64 / s.len() as f64;
        assert!((emp - spec.cdf(x)).abs() < 0.015, "F({x}): {emp} vs {}", spec.cdf(x));
    }
    let flags = ScoresSpec {
        family: Family::Flags,
        p: 0.2,
        n: 20_000,
        ..Default::default()
    };
    let f = scores(&flags).unwrap();
    assert!((f.iter().sum::<f64>() / 20_000.0 - 0.2).abs() < 0.01);
    assert_eq!(flags.cdf(0.5), 0.8);
    // Linear strength s gives correlation ≈ s.
    let (x, y) = pairs(&PairsSpec {
        kind: Dependence::Linear,
        strength: 0.6,
        n: 300,
        seed: 2,
    })
    .unwrap();
    let m = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (mx, my) = (m(&x), m(&y));
    let cov: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum::<f64>().sqrt();
    let sy: f64 = y.iter().map(|b| (b - my).powi(2)).sum::<f64>().sqrt();
    assert!((cov / (sx * sy) - 0.6).abs() < 0.12);
}

#[test]
fn hsic_steps_equal_the_permutation_test() {
    let req = HsicRequest {
        data: PairsSpec {
            n: 40,
            strength: 0.4,
            seed: 7,
            ..Default::default()
        },
        sigma: Bandwidth::Median,
        permutations: 50,
    };
    let mut teaching = Teaching::default();
    let prep = teaching.hsic_prepare(&req).unwrap();
    assert_eq!(prep.k.len(), 40 * 40);
    let mut values = Vec::new();
    let mut last = None;
    for max in [1, 3, 10, 100] {
        let s = teaching
            .hsic_step(&HsicStepRequest {
                session: prep.session,
                max,
            })
            .unwrap();
        values.extend(s.values.iter().copied());
        assert_eq!(s.done, values.len());
        assert_eq!(s.counts.iter().sum::<u64>() as usize + s.below + s.above, s.done);
        last = Some(s);
    }
    let last = last.unwrap();
    assert!(last.complete && last.done == 50);
    // The same numbers as `lethe hsic --sigma-x median --sigma-y median --permutations 50 --seed 7`.
    let (x, y) = pairs(&req.data).unwrap();
    let p = lethe::hsic::HsicTestParams {
        bandwidth_x: Bandwidth::Median,
        bandwidth_y: Bandwidth::Median,
        permutations: 50,
        seed: 7,
        precision: Precision::F64,
    };
    let t = lethe::hsic::hsic_test(column(&x).unwrap().view(), column(&y).unwrap().view(), &p).unwrap();
    assert_eq!(t.statistic, prep.statistic);
    assert_eq!(t.null, values);
    assert_eq!((t.p_value, t.exceedances), (last.p_value, last.exceedances));
    assert_eq!((t.sigma_x, t.sigma_y), (prep.sigma_x, prep.sigma_y));
    // The exact null mean is the mean over all shuffles: 50 shuffles land near it.
    let mean = values.iter().sum::<f64>() / 50.0;
    assert!((mean - prep.null_mean).abs() < 4.0 * prep.null_sd / 50f64.sqrt());
    // Kernels are symmetric with unit diagonal; the shuffled kernel is a relabelling of L.
    assert!((0..40).all(|i| prep.k[i * 41] == 1.0 && prep.l_shuffled[i * 41] == 1.0));
    let mut a = prep.l.clone();
    let mut b = prep.l_shuffled.clone();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    assert_eq!(a, b);
    // A replaced session is an error, not a panic.
    for _ in 0..MAX_SESSIONS {
        teaching.hsic_prepare(&req).unwrap();
    }
    assert!(
        teaching
            .hsic_step(&HsicStepRequest {
                session: prep.session,
                max: 1
            })
            .is_err()
    );
    assert!(teaching.hsic_prepare(&HsicRequest { permutations: 0, ..req }).is_err());
    assert!(
        teaching
            .hsic_prepare(&HsicRequest {
                sigma: Bandwidth::Fixed(-1.0),
                ..req
            })
            .is_err()
    );
}

#[test]
fn sde_experiment_matches_the_cli_steps() {
    let mut t = Teaching::default();
    let added = t
        .add_example_file("act_retrained.npy", &digits("act_retrained.npy"))
        .unwrap();
    assert_eq!(added, vec!["penultimate/retrained"]);
    assert!(t.add_example_file("other.npy", b"").is_err());
    let req = SdeRequest {
        size: 40,
        shuffles: 50,
        references: 3,
        seed: 2,
        ..Default::default()
    };
    let e = t.sde_experiment(&req).unwrap();
    assert_eq!(e.truth, Membership::Out);
    assert_eq!(e.target_rows.len(), 40);
    assert!(e.target_rows.iter().all(|r| FORGET.contains(r)));
    assert_eq!(e.target_rows, target_rows(TargetPool::Forget, 40, 2).unwrap());
    assert_eq!(e.pairs.len(), 3);
    // The first pair's verdict is the calibrated report's paper verdict (same subsets, streams and seed).
    let paper = e.calibrated.targets[0].paper.unwrap();
    assert_eq!(paper.jsd_target_it, e.pairs[0].jsd_target_it);
    assert_eq!(paper.jsd_target_oot, e.pairs[0].jsd_target_oot);
    assert_eq!(paper.in_training, e.sde.targets[0].verdict.in_training);
    // Every pair sees the same target distribution; the exact means are the calibrated report's.
    for (k, p) in e.pairs.iter().enumerate() {
        assert_eq!(p.it_mean, e.calibrated.in_training.stats[k].moments.mean);
        assert_eq!(p.oot_mean, e.calibrated.out_of_training.stats[k].moments.mean);
    }
    assert_eq!(
        e.sde.targets[0].distribution.moments.mean,
        e.calibrated.targets[0].stats.moments.mean
    );
    let c = e.exact_mean;
    assert!(
        (c.closed_form - e.sde.targets[0].distribution.moments.mean).abs() < 1e-12 * c.closed_form.abs().max(1e-12)
    );
    assert_eq!(e.histograms.series.len(), 3);
    assert!(t.sde_experiment(&SdeRequest { size: 200, ..req }).is_err());
    assert!(
        t.sde_experiment(&SdeRequest {
            representation: Representation::Softmax,
            model: Model::Original,
            ..req
        })
        .is_err_and(|e| e.message.contains("not loaded"))
    );
    // A sweep cell: F1 of every rule on the controlled experiment.
    let cell = t
        .sweep_cell(&SweepRequest {
            size: 20,
            shuffles: 20,
            references: 3,
            draw: 3,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(cell.sigma, 128f64.sqrt());
    assert!(cell.f1.iter().any(|(r, f)| r.starts_with("paper") && f.is_some()));
    // 3 × 20 rows fit in the 200-row pools: disjoint references, no warning about them.
    assert_eq!(cell.overlap.in_training_references.mean, 0.0);
    assert_eq!(cell.overlap.in_training_references.distinct_rows, 60);
    assert!(cell.warnings.is_empty(), "{:?}", cell.warnings);
    // At |S| = 140 the forget-set targets are near-duplicates and the references overlap, with a warning.
    let big = t
        .sweep_cell(&SweepRequest {
            size: 140,
            shuffles: 10,
            references: 10,
            draw: 10,
            ..Default::default()
        })
        .unwrap();
    let o = big.overlap;
    assert_eq!((o.out_targets.pool, o.out_targets.subsets), (144, 10));
    assert!(o.out_targets.mean > 0.95 && o.out_targets.distinct_rows <= 144, "{o:?}");
    assert!(
        o.in_training_references.mean > 0.5 && o.in_training_references.distinct_rows <= 200,
        "{o:?}"
    );
    assert!(big.warnings.iter().any(|w| w.contains("overlap")), "{:?}", big.warnings);
}

#[test]
fn softmax_file_loads_three_models() {
    let mut t = Teaching::default();
    let added = t.add_example_file("softmax.npz", &digits("softmax.npz")).unwrap();
    assert_eq!(added.len(), 3);
    let m = t.example(Representation::Softmax, Model::Original).unwrap();
    assert_eq!((m.rows(), m.cols()), (EXAMPLE_ROWS, 10));
    assert!((0..m.rows()).all(|i| (m.row(i).iter().sum::<f64>() - 1.0).abs() < 1e-5));
}

#[test]
fn ranks_show_what_the_tests_use() {
    let v = ranks(&RankRequest {
        ties: true,
        n_x: 10,
        n_y: 9,
        seed: 5,
        ..Default::default()
    })
    .unwrap();
    let mw = &v.mann_whitney;
    assert_eq!(mw.pooled.len(), 19);
    assert!(mw.pooled.windows(2).all(|w| w[0].value <= w[1].value));
    let r1: f64 = mw.pooled.iter().filter(|p| p.sample == 'x').map(|p| p.rank).sum();
    assert_eq!(r1, mw.rank_sum_x);
    assert_eq!(mw.auto.statistic, r1 - 55.0);
    // Tied values share a group and a rank.
    for p in &mw.pooled {
        if let Some(g) = p.tie {
            assert!(
                mw.pooled
                    .iter()
                    .filter(|q| q.tie == Some(g))
                    .all(|q| q.value == p.value && q.rank == p.rank)
            );
        }
    }
    assert!(mw.auto.has_ties && mw.pooled.iter().any(|p| p.tie.is_some()));
    assert_eq!(mw.null.pmf.len(), 91);
    let w = &v.wilcoxon;
    let plus: f64 = w.rows.iter().filter(|r| r.sign > 0).map(|r| r.rank).sum();
    assert_eq!(plus, w.auto.r_plus);
    assert!(matches!(w.exact, Outcome::Ok(_)));
    assert!(
        ranks(&RankRequest {
            n_x: 1,
            ..Default::default()
        })
        .is_err()
    );
}

#[test]
fn epsilon_threshold_agrees_with_the_best_attack() {
    let req = EpsilonRequest::default();
    let v = epsilon(&req).unwrap();
    assert_eq!(v.eps_max, 63f64.ln().ceil());
    let best = v.exhaustive.best_attack.unwrap();
    let t = match best.rule {
        AttackRule::AtLeast { threshold } | AttackRule::Below { threshold } => threshold,
        AttackRule::Interval { .. } => unreachable!(),
    };
    let dir = if matches!(best.rule, AttackRule::AtLeast { .. }) {
        Direction::AtLeast
    } else {
        Direction::Below
    };
    let at = epsilon_threshold(&EpsilonRequest {
        threshold: Some(t),
        direction: Some(dir),
        ..req
    })
    .unwrap();
    assert_eq!(at.attack.epsilon, v.exhaustive.epsilon);
    assert_eq!((at.bucket, at.points), (v.exhaustive.bucket, v.exhaustive.points));
    let top = v
        .at_least
        .epsilon
        .iter()
        .chain(&v.below.epsilon)
        .filter(|e| !e.is_nan())
        .fold(0.0f64, |a, &b| a.max(b));
    assert_eq!(top, v.exhaustive.epsilon);
    // The unlearned outputs are shifted up, so the retrained side is below the threshold.
    assert_eq!(v.direction, Direction::Below);
    assert!(v.clopper_pearson.epsilon <= v.exhaustive.epsilon);
    assert!(
        epsilon_threshold(&EpsilonRequest {
            threshold: Some(f64::NAN),
            ..req
        })
        .is_err()
    );
}

#[test]
fn bounds_converge_and_cover() {
    let req = BoundsRequest {
        data: ScoresSpec {
            n: 2000,
            ..Default::default()
        },
        ..Default::default()
    };
    let v = bounds(&req).unwrap();
    assert_eq!(v.convergence.last().unwrap().n, 2000);
    assert_eq!(v.convergence[0].n, 10);
    assert!(v.convergence.windows(2).all(|w| w[0].n < w[1].n));
    let first = v.convergence[0];
    let last = v.convergence.last().unwrap();
    assert!(
        last.upper - last.lower < first.upper - first.lower,
        "the interval narrows"
    );
    assert_eq!((last.lower, last.upper), (v.m_bin.lower, v.m_bin.upper));
    assert_eq!(last.dkw_upper, v.m_gen.upper[0]);
    assert!(v.m_bin.lower <= v.true_tail && v.true_tail <= v.m_bin.upper);
    assert!(v.expectation.lower <= v.true_mean && v.true_mean <= v.expectation.upper);
    assert!(bounds(&BoundsRequest { alpha: 0.0, ..req }).is_err_and(|e| e.input.as_deref() == Some("alpha")));
    let p = plan(&PlanRequest {
        width: 0.05,
        alpha: 0.05,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(p.dkw_n, 738);
}

#[test]
fn exports_are_npy_columns() {
    let files = export(&ExportRequest::Epsilon(EpsilonSpec::default())).unwrap();
    assert_eq!(files.len(), 2);
    let m = lethe::data::load_bytes::<f64>("r.npy", &files[0].bytes, &Default::default())
        .unwrap()
        .matrix;
    assert_eq!((m.rows(), m.cols()), (64, 1));
    assert_eq!(m.as_slice(), &epsilon_samples(&EpsilonSpec::default()).unwrap().0[..]);
    let json = serde_json::to_value(ExportRequest::Bounds(ScoresSpec::default())).unwrap();
    assert_eq!(json["topic"], "bounds");
    let back: ExportRequest = serde_json::from_value(serde_json::json!({"topic": "hsic", "n": 30})).unwrap();
    assert_eq!(
        back,
        ExportRequest::Hsic(PairsSpec {
            n: 30,
            ..Default::default()
        })
    );
}
