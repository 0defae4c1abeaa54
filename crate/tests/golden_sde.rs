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
            assert_eq!(
                v.in_training,
                r["ref_in_training"].as_bool().unwrap(),
                "{name} bins={bins}"
            );
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
    let c = g["decision_cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "tie_IT_equals_OOT")
        .unwrap();
    let v = lethe::sde::paper_verdict(&nums(&c["H_tar"]), &nums(&c["H_IT"]), &nums(&c["H_OOT"]), 30).unwrap();
    assert_eq!(v.jsd_target_it, v.jsd_target_oot);
    assert!(!v.in_training);
}

/// The closed-form shuffle mean and variance against the golden shuffle values (sde.json, stored permutations):
/// the sample mean of T shuffles must sit within 4 standard errors of the exact mean, for every case and σ rule.
#[test]
fn exact_moments_agree_with_golden_shuffles() {
    use lethe::backend::{Backend, CpuBackend};
    use lethe::kernel::Bandwidth;
    let g = golden("sde.json");
    let mut worst_z = 0f64;
    for c in g["cases"].as_array().unwrap() {
        let s = matrix(&c["S"]);
        let h = s.rows() / 2;
        for r in c["results"].as_array().unwrap() {
            let bw: Bandwidth = match &r["sigma_spec"] {
                serde_json::Value::String(x) => x.parse().unwrap(),
                v => Bandwidth::Fixed(v.as_f64().unwrap()),
            };
            let mut b = CpuBackend::default();
            let pair = block_on(b.prepare(s.row_block(0, h).unwrap(), s.row_block(h, 2 * h).unwrap(), bw, bw)).unwrap();
            let st = lethe::backend::PreparedPair::stats(&pair);
            let m = lethe::sde::shuffle_moments(&st.kc_sums, &st.l_sums);
            let vals = nums(&r["ref_H"]);
            let t = vals.len() as f64;
            let mean = vals.iter().sum::<f64>() / t;
            if m.sd == 0.0 {
                assert!(
                    (mean - m.mean).abs() < 1e-15,
                    "degenerate case: every shuffle equals the mean"
                );
                continue;
            }
            let z = (mean - m.mean) / (m.sd / t.sqrt());
            worst_z = worst_z.max(z.abs());
            assert!(z.abs() < 4.0, "{} {bw}: z = {z}", c["name"]);
            // The closed-form mean from the kernel means alone (RBF: unit diagonal) equals the general formula.
            let quick = lethe::sde::moments::exact_mean_rbf(h, st.x.mean_all, st.y.mean_offdiag);
            assert!((quick - m.mean).abs() <= 1e-12 * (1.0 + m.mean.abs()));
        }
    }
    println!("largest |z| of the golden shuffle means against the exact mean: {worst_z:.2}");
}
