//! The SDE decision rule against the goldens.
//!
//! Source: tests/fixtures/golden/in_training.json `decision_cases` (float64 numpy reference of Algorithm 2:
//! JSD on each pair's own union-range histogram, natural log; `ref_in_training` = JSD(tar, IT) < JSD(tar, OOT),
//! ties → out of training) for bins 30 and 10. The shuffle values themselves are checked in golden_hsic.rs.
mod common;
use common::*;

#[test]
fn paper_verdict_matches_reference() {
    let g = golden("in_training.json");
    let mut dev = MaxDev::default();
    let mut n = 0;
    for c in g["decision_cases"].as_array().unwrap() {
        let name = c["name"].as_str().unwrap();
        let (tar, it, oot) = (nums(&c["H_tar"]), nums(&c["H_IT"]), nums(&c["H_OOT"]));
        for r in c["results"].as_array().unwrap() {
            let bins = r["bins"].as_u64().unwrap() as usize;
            let v = lethe::sde::paper_verdict(&tar, &it, &oot, bins).unwrap();
            assert_eq!(v.in_training, r["ref_in_training"].as_bool().unwrap(), "{name} bins={bins}");
            assert_close(v.jsd_target_it, num(&r["ref_jsd_tar_it"]), tol::TIGHT, 0.0, name);
            assert_close(v.jsd_target_oot, num(&r["ref_jsd_tar_oot"]), tol::TIGHT, 0.0, name);
            dev.add(v.jsd_target_it, num(&r["ref_jsd_tar_it"]));
            dev.add(v.jsd_target_oot, num(&r["ref_jsd_tar_oot"]));
            n += 1;
        }
    }
    assert_eq!(n, 8);
    dev.report("SDE verdict JSDs vs reference");
}

/// The tie case: identical references give equal JSDs, which the paper's strict `<` sends out of training.
#[test]
fn tie_goes_out_of_training() {
    let g = golden("in_training.json");
    let c = g["decision_cases"].as_array().unwrap().iter().find(|c| c["name"] == "tie_IT_equals_OOT").unwrap();
    let v = lethe::sde::paper_verdict(&nums(&c["H_tar"]), &nums(&c["H_IT"]), &nums(&c["H_OOT"]), 30).unwrap();
    assert_eq!(v.jsd_target_it, v.jsd_target_oot);
    assert!(!v.in_training);
}
