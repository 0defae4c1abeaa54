use super::*;
use crate::Matrix;

/// SplitMix64: a tiny seeded generator, enough for test inputs.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform().max(1e-300), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
    fn sample(&mut self, n: usize, mean: f64, sd: f64, grid: Option<f64>) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let x = mean + sd * self.normal();
                grid.map_or(x, |g| (x / g).round() * g)
            })
            .collect()
    }
}

fn official_pair(pos: &[f64], neg: &[f64]) -> (ExampleEpsilon, Outcome) {
    official::example(pos, neg, true, DELTA)
}

#[test]
fn fast_official_epsilon_equals_dense_grid() {
    let mut rng = Rng(7);
    let mut checked = 0;
    for case in 0..60 {
        let n = [3usize, 5, 8, 12, 16, 24][case % 6];
        let grid = if case % 4 == 0 { Some(0.25) } else { None };
        let shift = rng.uniform() * 3.0;
        let spread = 0.05 + rng.uniform();
        let pos = rng.sample(n, shift, 1.0, grid);
        let neg = rng.sample(n, 0.0, spread, grid);
        let (fast, _) = official_pair(&pos, &neg);
        let dense = official::example_dense(&pos, &neg, DELTA);
        match dense {
            None => assert!(
                fast.best_attack.is_none() && !fast.peaky && fast.epsilon == 0.0,
                "case {case}"
            ),
            Some((eps, index)) => {
                let want = f64::from(eps).clamp(0.0, EPSILON_CAP);
                assert_eq!(fast.epsilon.to_bits(), want.to_bits(), "case {case}: {pos:?} {neg:?}");
                if index != usize::MAX {
                    assert_eq!(fast.best_attack.map(|a| a.index), Some(index), "case {case}");
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 40);
}

#[test]
fn peaky_rule_and_zero_ranges() {
    // One sample nearly constant: the peaky rule caps epsilon at 50.
    let pos = [0.1, 0.5, 0.9, 1.3];
    let neg = [0.3, 0.3001, 0.3, 0.3];
    let (ex, _) = official_pair(&pos, &neg);
    assert!(ex.peaky);
    assert_eq!(ex.epsilon, EPSILON_CAP);
    // One sample exactly constant: 0 / x = 0 < 0.01, peaky.
    let (ex, _) = official_pair(&pos, &[0.3; 4]);
    assert!(ex.peaky);
    // Both constant: 0/0 is NaN, not peaky; constant and equal leaves no usable attack.
    let (ex, outcome) = official_pair(&[0.7; 4], &[0.7; 4]);
    assert!(!ex.peaky && outcome == Outcome::NoAttack && ex.epsilon == 0.0 && ex.best_attack.is_none());
    // Both constant and different: perfect separation → inf → capped at 50, not peaky.
    let (ex, outcome) = official_pair(&[0.9; 4], &[0.2; 4]);
    assert!(!ex.peaky && outcome == Outcome::Scored);
    assert_eq!(ex.epsilon, EPSILON_CAP);
}

#[test]
fn perfect_separation_with_41_models() {
    // 41·f32(1/41) rounds below 1: metric.py's CUDA rates give TPR + TNR ≠ 2, so separating attacks are discarded
    // and, the samples being separated, so is every other attack. Lethe scores the cap and warns.
    let mut rng = Rng(41);
    let r = Matrix::from_vec(41, 1, rng.sample(41, 5.0, 0.5, None)).unwrap();
    let u = Matrix::from_vec(41, 1, rng.sample(41, 0.0, 0.5, None)).unwrap();
    assert!(official::example_dense(r.as_slice(), u.as_slice(), DELTA).is_none());
    let res = forget_score(r.view(), u.view(), &CompetitionParams::default()).unwrap();
    let ex = &res.per_example[0];
    assert_eq!(ex.epsilon, EPSILON_CAP);
    assert!(
        ex.best_attack
            .is_some_and(|a| a.false_positives == 0 && a.false_negatives == 0)
    );
    assert!(res.warnings.iter().any(|w| w.contains("perfectly separated")));
    // With 40 models the rates are recognised: the same answer without a warning.
    let r40 = Matrix::from_vec(40, 1, r.as_slice()[..40].to_vec()).unwrap();
    let u40 = Matrix::from_vec(40, 1, u.as_slice()[..40].to_vec()).unwrap();
    let res = forget_score(r40.view(), u40.view(), &CompetitionParams::default()).unwrap();
    assert_eq!(res.per_example[0].epsilon, EPSILON_CAP);
    assert!(res.warnings.is_empty());
}

#[test]
fn single_model_does_not_panic() {
    for variant in [
        Variant::Official,
        Variant::Exhaustive,
        Variant::HighProbability { alpha: 0.05 },
    ] {
        let p = CompetitionParams::with_variant(variant);
        let r = example_epsilon(&[1.0], &[0.0], &p).unwrap();
        assert!(r.epsilon >= 0.0);
        let m = Matrix::from_rows(&[[1.0, 2.0]]).unwrap();
        let res = forget_score(m.view(), m.view(), &p).unwrap();
        assert_eq!(res.forget_score, 0.0);
        if variant == Variant::Official {
            assert!(!res.warnings.is_empty());
        }
    }
}

#[test]
fn invalid_inputs_are_errors() {
    let a = Matrix::from_rows(&[[1.0, 2.0], [3.0, 4.0]]).unwrap();
    let b = Matrix::from_rows(&[[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]).unwrap();
    let c = Matrix::from_rows(&[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).unwrap();
    let d = CompetitionParams::default();
    assert!(matches!(
        forget_score(a.view(), b.view(), &d),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        forget_score(a.view(), c.view(), &d),
        Err(Error::ShapeMismatch { .. })
    ));
    let ex = CompetitionParams::with_variant(Variant::Exhaustive);
    assert!(forget_score(a.view(), c.view(), &ex).is_ok());
    let nan = Matrix::from_rows(&[[1.0, f64::NAN], [3.0, 4.0]]).unwrap();
    assert!(matches!(
        forget_score(nan.view(), a.view(), &d),
        Err(Error::NonFinite { .. })
    ));
    let inf = Matrix::from_rows(&[[1.0, f64::INFINITY], [3.0, 4.0]]).unwrap();
    assert!(matches!(
        forget_score(a.view(), inf.view(), &d),
        Err(Error::NonFinite { .. })
    ));
    let bad_delta = CompetitionParams { delta: 1.0, ..d };
    assert!(matches!(
        forget_score(a.view(), a.view(), &bad_delta),
        Err(Error::InvalidParameter { .. })
    ));
    let bad_alpha = CompetitionParams::with_variant(Variant::HighProbability { alpha: 0.0 });
    assert!(forget_score(a.view(), a.view(), &bad_alpha).is_err());
    let bad_max = CompetitionParams {
        eps_max: EpsMax::Fixed(f64::NAN),
        ..d
    };
    assert!(forget_score(a.view(), a.view(), &bad_max).is_err());
    // A huge fixed eps_max would build a bucket every 0.5 without end (1e300 + 0.5 == 1e300): refused at once;
    // the largest accepted builds its 2 million buckets.
    for v in [1e300, 1.1e6] {
        let huge = CompetitionParams {
            eps_max: EpsMax::Fixed(v),
            ..d
        };
        let e = forget_score(a.view(), a.view(), &huge).unwrap_err().to_string();
        assert!(e.contains("eps_max") && e.contains("from 0 to 1000000"), "{e}");
        assert!(example_epsilon(&[1.0, 2.0], &[1.0, 3.0], &huge).is_err());
    }
    let top = CompetitionParams {
        eps_max: EpsMax::Fixed(MAX_FIXED_EPS_MAX),
        ..d
    };
    assert!(forget_score(a.view(), a.view(), &top).is_ok());
    assert!(example_epsilon(&[], &[1.0], &d).is_err());
    // A pooled range whose 0.01 grid would exceed 2^24 points, or overflow: refused, not allocated.
    assert!(matches!(
        example_epsilon(&[0.0, 1e6], &[1.0, 2.0], &d),
        Err(Error::OutOfDomain { .. })
    ));
    assert!(matches!(
        example_epsilon(&[-1e308, 1e308], &[1.0, 2.0], &d),
        Err(Error::OutOfDomain { .. })
    ));
    assert!(example_epsilon(&[-1e308, 1e308], &[1.0, 2.0], &ex).is_ok());
    assert!(exhaustive_attacks(&[1.0], &[f64::NAN], 1e-5).is_err());
    let acc = Accuracies {
        retain_unlearned: 0.9,
        retain_retrained: 0.0,
        test_unlearned: 0.9,
        test_retrained: 0.9,
    };
    assert!(final_score(0.5, &acc).is_err());
    assert!(
        final_score(
            1.5,
            &Accuracies {
                retain_retrained: 0.9,
                ..acc
            }
        )
        .is_err()
    );
}

#[test]
fn logit_confidence_checks_labels() {
    let logits = [1.0f64, 2.0, 3.0, 0.5, 0.5, 0.5];
    let m = MatrixRef::new(2, 3, &logits).unwrap();
    assert!(matches!(
        logit_scaled_confidence(m, &[0, 3]),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        logit_scaled_confidence(m, &[0]),
        Err(Error::ShapeMismatch { .. })
    ));
    let c = logit_scaled_confidence(m, &[2, 1]).unwrap();
    // Uniform row: p = 1/3, log(1/3) − log(2/3) = −ln 2.
    assert!((c[1] + std::f64::consts::LN_2).abs() < 1e-15);
    let l32: Vec<f32> = logits.iter().map(|&v| v as f32).collect();
    let c32 = logit_scaled_confidence(MatrixRef::new(2, 3, &l32).unwrap(), &[2, 1]).unwrap();
    assert!((c32[0] - c[0]).abs() < 1e-6);
}

#[test]
fn exhaustive_is_symmetric_in_direction_and_bounded_by_cp() {
    let mut rng = Rng(11);
    for _ in 0..20 {
        let r = rng.sample(20, 0.7, 1.0, None);
        let u = rng.sample(20, 0.0, 1.0, None);
        let point = example_epsilon(&r, &u, &CompetitionParams::with_variant(Variant::Exhaustive)).unwrap();
        let bound = example_epsilon(
            &r,
            &u,
            &CompetitionParams::with_variant(Variant::HighProbability { alpha: 0.05 }),
        )
        .unwrap();
        assert!(bound.epsilon <= point.epsilon, "{} > {}", bound.epsilon, point.epsilon);
        // Mirroring the data swaps the two directions: the epsilon is unchanged.
        let rm: Vec<f64> = r.iter().map(|v| -v).collect();
        let um: Vec<f64> = u.iter().map(|v| -v).collect();
        let mirrored = example_epsilon(&rm, &um, &CompetitionParams::with_variant(Variant::Exhaustive)).unwrap();
        assert!((mirrored.epsilon - point.epsilon).abs() < 1e-12);
    }
}

#[test]
fn result_types_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<CompetitionResult>();
    check::<CompetitionParams>();
}

#[test]
fn threshold_attack_matches_the_exhaustive_table_at_and_between_pooled_values() {
    let mut rng = Rng(23);
    let r = rng.sample(15, 0.5, 1.0, Some(0.5));
    let u = rng.sample(12, 0.0, 1.0, Some(0.5));
    let table = exhaustive_attacks(&r, &u, DELTA).unwrap();
    let mut pooled: Vec<f64> = r.iter().chain(&u).copied().collect();
    pooled.sort_by(f64::total_cmp);
    pooled.dedup();
    for row in &table {
        let a = threshold_attack(&r, &u, row.rule, DELTA).unwrap();
        assert_eq!(
            (a.false_positives, a.false_negatives),
            (row.false_positives, row.false_negatives)
        );
        assert_eq!((a.fpr, a.fnr), (row.fpr, row.fnr));
        assert!(a.epsilon == row.epsilon || (a.epsilon.is_nan() && row.epsilon.is_nan()));
    }
    // Between two pooled values the rule behaves as at the next value up.
    for w in pooled.windows(2) {
        let mid = (w[0] + w[1]) / 2.0;
        for (between, at) in [
            (
                AttackRule::AtLeast { threshold: mid },
                AttackRule::AtLeast { threshold: w[1] },
            ),
            (
                AttackRule::Below { threshold: mid },
                AttackRule::Below { threshold: w[1] },
            ),
        ] {
            let a = threshold_attack(&r, &u, between, DELTA).unwrap();
            let b = threshold_attack(&r, &u, at, DELTA).unwrap();
            assert_eq!(
                (a.false_positives, a.false_negatives),
                (b.false_positives, b.false_negatives)
            );
        }
    }
    // The best attack of the exhaustive variant is the largest epsilon over thresholds.
    let best = example_epsilon(&r, &u, &CompetitionParams::with_variant(Variant::Exhaustive)).unwrap();
    let top = table
        .iter()
        .map(|t| t.epsilon)
        .filter(|e| !e.is_nan())
        .fold(0.0f64, f64::max);
    assert_eq!(best.epsilon, top);
    // Bad rules and thresholds are errors.
    assert!(threshold_attack(&r, &u, AttackRule::AtLeast { threshold: f64::NAN }, DELTA).is_err());
    assert!(threshold_attack(&r, &u, AttackRule::Interval { left: 0.0, right: 1.0 }, DELTA).is_err());
    assert!(threshold_attack(&[], &u, AttackRule::AtLeast { threshold: 0.0 }, DELTA).is_err());
    // Perfect separation: infinite epsilon; exactly one zero rate: discarded (NaN).
    let p = threshold_attack(&[5.0, 6.0], &[0.0, 1.0], AttackRule::AtLeast { threshold: 3.0 }, DELTA).unwrap();
    assert_eq!(p.epsilon, f64::INFINITY);
    let d = threshold_attack(&[5.0, 6.0], &[0.0, 1.0], AttackRule::AtLeast { threshold: 5.5 }, DELTA).unwrap();
    assert!(d.epsilon.is_nan());
}
