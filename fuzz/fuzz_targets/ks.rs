#![no_main]
//! The two-sample KS test (`lethe::ks::ks_2samp`, scipy's algorithms) on arbitrary samples: the bytes are two
//! lists of f64 (the first byte says where they split), every alternative and method. Checks: no panic or hang;
//! the statistic in [0, 1] and the p-value in [0, 1] (NaN only where scipy gives NaN: asymp with n₁n₂/(n₁+n₂) < 0.5);
//! NaN inputs refused; exchanging the samples keeps the two-sided statistic.

use lethe::Alternative;
use lethe::ks::{KsMethod, ks_2samp};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Some((&cut, rest)) = bytes.split_first() else {
        return;
    };
    let vals: Vec<f64> = rest
        .chunks_exact(8)
        .take(600)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    let k = (cut as usize).min(vals.len());
    let (x, y) = vals.split_at(k);
    for alt in [Alternative::TwoSided, Alternative::Less, Alternative::Greater] {
        for m in [KsMethod::Exact, KsMethod::Asymp, KsMethod::Auto] {
            match ks_2samp(x, y, alt, m) {
                Ok(r) => {
                    assert!((0.0..=1.0).contains(&r.statistic), "{r:?}");
                    assert!(r.pvalue.is_nan() || (0.0..=1.0).contains(&r.pvalue), "{r:?}");
                    if alt == Alternative::TwoSided {
                        let s = ks_2samp(y, x, alt, m).expect("exchanged samples");
                        assert_eq!(s.statistic, r.statistic);
                    }
                }
                Err(e) => assert!(
                    x.is_empty() || y.is_empty() || x.iter().chain(y).any(|v| v.is_nan()),
                    "refused without a reason: {e}"
                ),
            }
        }
    }
});
