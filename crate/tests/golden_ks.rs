//! The two-sample KS test against scipy 1.17.1's `ks_2samp` (tests/fixtures/golden_tools/ks_2samp.json, made by
//! gen_ks_2samp.py there; PROVENANCE.md). Tolerances per path, as crate/src/ks.rs documents them: the exact
//! two-sided and equal-size one-sided paths are scipy's operations in scipy's order; the one-sided unequal-size
//! path (log-gamma binomials above k = 20) and the asymptotic path (Smirnov's sum in f64 where scipy uses
//! double-double) are checked to 1e-10 relative.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod common;
use common::*;

use lethe::Alternative;
use lethe::ks::{KsMethod, ks_2samp};
use serde_json::Value;

fn golden_tools(name: &str) -> Value {
    let p = fixture_path("golden_tools").join(name);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

fn lattice(n: u64, a: u64, shift: f64) -> Vec<f64> {
    (0..n).map(|i| ((i * a) % 100_003) as f64 / 100_003.0 + shift).collect()
}

fn rel(a: f64, b: f64) -> f64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        0.0
    } else {
        (a - b).abs() / b.abs().max(1e-300)
    }
}

#[test]
fn ks_2samp_matches_scipy() {
    let g = golden_tools("ks_2samp.json");
    let (mut worst_exact, mut worst_other) = (0.0f64, 0.0f64);
    let mut n = 0;
    for d in g["datasets"].as_array().unwrap() {
        let name = d["name"].as_str().unwrap();
        let (x, y) = if let Some(f) = d.get("formula") {
            let u = |k: &str| f[k].as_u64().unwrap();
            (
                lattice(u("n1"), u("a1"), num(&f["shift1"])),
                lattice(u("n2"), u("a2"), num(&f["shift2"])),
            )
        } else {
            let v = |k: &str| d[k].as_array().unwrap().iter().map(num).collect::<Vec<_>>();
            (v("x"), v("y"))
        };
        for r in d["results"].as_array().unwrap() {
            let alt: Alternative = r["alternative"].as_str().unwrap().parse().unwrap();
            let method: KsMethod = r["method"].as_str().unwrap().parse().unwrap();
            let got = ks_2samp(&x, &y, alt, method).unwrap();
            let want_d = num(&r["statistic"]);
            let want_p = num(&r["pvalue"]);
            let ctx = format!("{name} {alt:?} {method:?}: got {got:?}, scipy D={want_d} p={want_p}");
            assert!((got.statistic - want_d).abs() <= 1e-15, "{ctx}");
            assert_eq!(got.statistic_location, num(&r["statistic_location"]), "{ctx}");
            assert_eq!(
                i64::from(got.statistic_sign),
                r["statistic_sign"].as_i64().unwrap(),
                "{ctx}"
            );
            assert_eq!(got.fell_back, r["fell_back"].as_bool().unwrap(), "{ctx}");
            let e = rel(got.pvalue, want_p);
            let unequal_one_sided = alt != Alternative::TwoSided && x.len() != y.len();
            if got.method_used == KsMethod::Exact && !unequal_one_sided {
                worst_exact = worst_exact.max(e);
                assert!(e <= 1e-14 || (got.pvalue - want_p).abs() <= 1e-300, "{ctx}: rel {e:e}");
            } else {
                worst_other = worst_other.max(e);
                assert!(e <= 1e-10, "{ctx}: rel {e:e}");
            }
            n += 1;
        }
    }
    eprintln!("{n} cases; worst relative gap: exact {worst_exact:e}, other {worst_other:e}");
    assert!(n > 300);
}

#[test]
fn kstwo_sf_matches_scipy_on_every_branch() {
    let g = golden_tools("ks_2samp.json");
    let mut worst = 0.0f64;
    for c in g["kstwo_sf"].as_array().unwrap() {
        let (n, x, want) = (num(&c["n"]), num(&c["x"]), num(&c["sf"]));
        let got = lethe::ks::kstwo_sf(x, n);
        let e = rel(got, want);
        // p-values below 1e-300 are compared absolutely
        assert!(
            e <= 1e-10 || (got - want).abs() <= 1e-300,
            "kstwo.sf({x}, {n}): got {got:e}, scipy {want:e}, rel {e:e}"
        );
        worst = worst.max(if (got - want).abs() <= 1e-300 { 0.0 } else { e });
    }
    eprintln!("kstwo.sf worst relative gap {worst:e}");
}
