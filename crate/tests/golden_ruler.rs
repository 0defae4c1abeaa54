//! RULER metrics against the goldens and the authors' tie convention.
//!
//! Sources: tests/fixtures/golden/ruler.json `embedding_cases` (float64 numpy reference: `ref_cos_*` — per-row
//! cosines of U and O on forget and retain rows, and of Orig and O on forget rows — `ref_oracle_similarity`,
//! `ref_calibration_gap`, `ref_representation_shift`, `ref_nn_*` including the per-row
//! `ref_nn_percentile_ranks`; its percentile rank counts ties as 1/2, and `scipy_percentileofscore_mean` is
//! scipy 1.17.1 `percentileofscore(kind="mean")/100`).
//! The authors' code (gcosma/RULER `ruler/metrics.py`, m4) counts ties as `<=` via
//! `np.searchsorted(np.sort(retain_nn), forget_nn, side="right")`; the `AtMost` expectations below are
//! recomputed from the golden's own `ref_nn_*` similarities with that rule.
mod common;
use common::*;
use lethe::ruler::{self, RulerInputs, TieRule};

#[test]
fn ruler_metrics_match_reference() {
    let g = golden("ruler.json");
    let (mut dev, mut dev_cos, mut dev_rank) = (MaxDev::default(), MaxDev::default(), MaxDev::default());
    for c in g["embedding_cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let (uf, of, orig, ur, or) = (
            matrix(&c["U_forget"]),
            matrix(&c["O_forget"]),
            matrix(&c["Orig_forget"]),
            matrix(&c["U_retain"]),
            matrix(&c["O_retain"]),
        );
        let cos_f = ruler::cosine_rowwise(uf.view(), of.view(), ("u", "o")).unwrap();
        let want = nums(&c["ref_cos_U_O_forget"]);
        assert_eq!(cos_f.len(), want.len(), "{name}");
        for (a, b) in cos_f.iter().zip(want) {
            assert_close(*a, b, tol::TIGHT, 0.0, name);
            dev_cos.add(*a, b);
        }
        let cos_r = ruler::cosine_rowwise(ur.view(), or.view(), ("u", "o")).unwrap();
        let want = nums(&c["ref_cos_U_O_retain"]);
        assert_eq!(cos_r.len(), want.len(), "{name}");
        for (a, b) in cos_r.iter().zip(want) {
            assert_close(*a, b, tol::TIGHT, 0.0, name);
            dev_cos.add(*a, b);
        }
        // cos(Orig, O) per forget row: the term representation_shift subtracts.
        let cos_orig = ruler::cosine_rowwise(orig.view(), of.view(), ("orig", "o")).unwrap();
        let want = nums(&c["ref_cos_Orig_O_forget"]);
        assert_eq!(cos_orig.len(), want.len(), "{name}");
        for (k, (a, b)) in cos_orig.iter().zip(want).enumerate() {
            assert_close(*a, b, tol::TIGHT, 0.0, format!("{name} cos(Orig, O) row {k}"));
            dev_cos.add(*a, b);
        }
        let inputs = RulerInputs {
            unlearned_forget: uf.view(),
            unlearned_retain: Some(ur.view()),
            oracle_forget: Some(of.view()),
            oracle_retain: Some(or.view()),
            original_forget: Some(orig.view()),
        };
        let half = ruler::all_metrics(&inputs, TieRule::Half).unwrap();
        for (got, key) in [
            (half.oracle_similarity.unwrap(), "ref_oracle_similarity"),
            (half.calibration_gap.unwrap(), "ref_calibration_gap"),
            (half.representation_shift.unwrap(), "ref_representation_shift"),
            (
                half.nn_percentile_rank.as_ref().unwrap().value,
                "ref_nn_percentile_rank_mean",
            ),
        ] {
            assert_close(got, num(&c[key]), tol::TIGHT, 0.0, format!("{name} {key}"));
            dev.add(got, num(&c[key]));
        }
        let m4 = half.nn_percentile_rank.as_ref().unwrap();
        for (a, b) in m4.forget_nn.iter().zip(nums(&c["ref_nn_forget_max_cos"])) {
            assert_close(*a, b, tol::TIGHT, 0.0, format!("{name} v_f"));
        }
        for (a, b) in m4.retain_nn.iter().zip(nums(&c["ref_nn_retain_max_cos_other"])) {
            assert_close(*a, b, tol::TIGHT, 0.0, format!("{name} w_r"));
        }
        let want = nums(&c["scipy_percentileofscore_mean"]);
        assert_eq!(m4.ranks.len(), want.len(), "{name}");
        for (k, (a, b)) in m4.ranks.iter().zip(want).enumerate() {
            assert_close(*a, b, tol::TIGHT, 0.0, format!("{name} rank {k} vs scipy"));
            dev_rank.add(*a, b);
        }
        // The reference's own per-row ranks (ties as 1/2, the rule TieRule::Half follows).
        let want = nums(&c["ref_nn_percentile_ranks"]);
        assert_eq!(m4.ranks.len(), want.len(), "{name}");
        for (k, (a, b)) in m4.ranks.iter().zip(want).enumerate() {
            assert_close(*a, b, tol::TIGHT, 0.0, format!("{name} rank {k} vs reference"));
            dev_rank.add(*a, b);
        }
        // The authors' rule, applied to the reference similarities.
        let w = nums(&c["ref_nn_retain_max_cos_other"]);
        let want: Vec<f64> = nums(&c["ref_nn_forget_max_cos"])
            .iter()
            .map(|v| w.iter().filter(|x| *x <= v).count() as f64 / w.len() as f64)
            .collect();
        let at_most = ruler::nn_percentile_rank(uf.view(), ur.view(), TieRule::AtMost).unwrap();
        assert_eq!(at_most.ranks, want, "{name}: ties counted as <=");
    }
    dev.report("RULER metrics vs float64 reference");
    dev_cos.report("RULER per-row cosines cos(U,O) forget/retain, cos(Orig,O) forget vs reference");
    dev_rank.report("RULER per-row NN percentile ranks vs reference and scipy percentileofscore");
}

/// The `ties_duplicates` case exists to separate the two rules: check they really differ there.
#[test]
fn tie_rule_matters_on_duplicates() {
    let g = golden("ruler.json");
    let c = g["embedding_cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "ties_duplicates")
        .unwrap();
    let (uf, ur) = (matrix(&c["U_forget"]), matrix(&c["U_retain"]));
    let a = ruler::nn_percentile_rank(uf.view(), ur.view(), TieRule::AtMost)
        .unwrap()
        .value;
    let h = ruler::nn_percentile_rank(uf.view(), ur.view(), TieRule::Half)
        .unwrap()
        .value;
    assert!(a > h, "AtMost {a} should exceed Half {h} when ties exist");
}
