//! Shared helpers for the golden-vector tests: loading `tests/fixtures/golden/*.json` (see PROVENANCE.md there)
//! and comparing with named tolerances.
#![allow(dead_code)]

use std::path::PathBuf;

use lethe::Matrix;
use serde_json::Value;

/// Named tolerances (absolute unless said otherwise). Chosen on purpose, per kind of computation.
pub mod tol {
    /// Closed-form f64 arithmetic that should agree to a few ulps of O(1) values.
    pub const TIGHT: f64 = 1e-12;
    /// Results of iterative special functions (beta/normal quantiles, incomplete beta).
    pub const SPECIAL_FN: f64 = 1e-10;
    /// Sums over n² kernel entries in f64.
    pub const KERNEL_SUM: f64 = 1e-11;
    /// A difference of two float64 logs taken by different libms (numpy's SVML vs the platform's): ≤ 1 ulp each,
    /// i.e. ~2e-16 relative of values up to |log 1e-45| ≈ 104; used as both atol and rtol.
    pub const LOG_ULPS: f64 = 1e-13;
}

pub fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures")
        .join(name)
}

/// Loads a golden JSON file by file name, e.g. `golden("hsic.json")`.
pub fn golden(name: &str) -> Value {
    let p = fixture_path("golden").join(name);
    let text =
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", p.display()))
}

/// A number, with the goldens' convention that non-finite floats are the strings "inf", "-inf", "nan".
pub fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().expect("number"),
        Value::String(s) => match s.as_str() {
            "inf" => f64::INFINITY,
            "-inf" => f64::NEG_INFINITY,
            "nan" => f64::NAN,
            other => panic!("not a number: {other}"),
        },
        Value::Bool(b) => f64::from(u8::from(*b)),
        other => panic!("not a number: {other}"),
    }
}

pub fn nums(v: &Value) -> Vec<f64> {
    v.as_array().expect("array").iter().map(num).collect()
}

pub fn bools(v: &Value) -> Vec<bool> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|b| b.as_bool().expect("bool"))
        .collect()
}

pub fn matrix(v: &Value) -> Matrix {
    let rows: Vec<Vec<f64>> = v.as_array().expect("rows").iter().map(nums).collect();
    Matrix::from_rows(&rows).expect("rectangular")
}

/// `|got − want| ≤ atol + rtol·|want|`, with NaN == NaN and equal infinities equal.
pub fn close(got: f64, want: f64, atol: f64, rtol: f64) -> bool {
    if got.is_nan() || want.is_nan() {
        return got.is_nan() && want.is_nan();
    }
    if got.is_infinite() || want.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= atol + rtol * want.abs()
}

#[track_caller]
pub fn assert_close(got: f64, want: f64, atol: f64, rtol: f64, ctx: impl std::fmt::Display) {
    assert!(
        close(got, want, atol, rtol),
        "{ctx}: got {got:e}, want {want:e} (|diff| = {:e}, atol {atol:e}, rtol {rtol:e})",
        (got - want).abs()
    );
}

/// Tracks the largest deviation seen, so a test can print it (the closing notes report these).
#[derive(Default)]
pub struct MaxDev {
    pub abs: f64,
    pub rel: f64,
}

impl MaxDev {
    pub fn add(&mut self, got: f64, want: f64) {
        if got.is_finite() && want.is_finite() {
            let d = (got - want).abs();
            self.abs = self.abs.max(d);
            if want != 0.0 {
                self.rel = self.rel.max(d / want.abs());
            }
        }
    }
    pub fn report(&self, what: &str) {
        println!(
            "max deviation [{what}]: abs {:.3e}, rel {:.3e}",
            self.abs, self.rel
        );
    }
}
