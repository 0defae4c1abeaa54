//! # Lethe core
//!
//! Machine-unlearning and membership-evaluation statistics, in plain Rust that builds natively and for
//! `wasm32-unknown-unknown`. Every statistic is checked against outside references (scipy, statsmodels, the
//! methods' authors' code); see `tests/fixtures/golden/PROVENANCE.md` in the repository.

pub mod binomial;
pub mod check;
pub mod data;
pub mod error;
pub mod options;

pub use data::{Matrix, MatrixRef};
pub use error::{Error, Result};
pub use options::{Alternative, PValueMethod};
