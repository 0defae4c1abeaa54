//! Clopper–Pearson against scipy/statsmodels (tests/fixtures/golden/leakage.json, `m_bin_cases`:
//! `scipy_beta_ppf` = scipy.stats.beta.ppf(1-alpha, S+1, n-S), `statsmodels_cp_upper_two_sided_2alpha` =
//! statsmodels proportion_confint(S, n, 2*alpha, method="beta")[1]; versions in versions.json).
mod common;
use common::*;

#[test]
fn clopper_pearson_upper_matches_scipy_and_statsmodels() {
    let g = golden("leakage.json");
    let mut dev = MaxDev::default();
    let cases = g["m_bin_cases"].as_array().unwrap();
    for c in cases {
        let (s, n, alpha) = (num(&c["S"]) as u64, num(&c["n"]) as u64, num(&c["alpha"]));
        // S = n has no statsmodels entry; the bound is 1 there (ref_m_bin).
        let want = num(c
            .get("statsmodels_cp_upper_two_sided_2alpha")
            .unwrap_or(&c["ref_m_bin"]));
        let got = lethe::binomial::upper_one_sided(s, n, alpha).unwrap();
        dev.add(got, want);
        assert_close(got, want, tol::SPECIAL_FN, 0.0, format!("S={s} n={n} alpha={alpha}"));
        let (_, up) = lethe::binomial::two_sided(s, n, 2.0 * alpha).unwrap();
        assert_close(
            up,
            want,
            tol::SPECIAL_FN,
            0.0,
            format!("two-sided S={s} n={n} alpha={alpha}"),
        );
    }
    dev.report("clopper-pearson upper vs statsmodels");
    assert!(cases.len() >= 40);
}
