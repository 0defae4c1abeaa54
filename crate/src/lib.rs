//! # Lethe core
//!
//! Machine-unlearning and membership-evaluation statistics, in plain Rust that builds natively and for
//! `wasm32-unknown-unknown`. Every statistic is checked against outside references (scipy, statsmodels, the
//! methods' authors' code); see `tests/fixtures/golden/PROVENANCE.md` in the repository.

pub mod backend;
pub mod binomial;
pub mod check;
pub mod classification;
pub mod compare;
pub mod competition;
pub mod data;
pub mod delong;
pub mod digest;
pub mod divergence;
pub mod eps_audit;
pub mod error;
pub mod fdr;
pub mod hsic;
pub mod json;
pub mod kernel;
pub mod ks;
pub mod leakage;
pub mod lira;
pub mod mann_whitney;
pub mod mmd;
pub mod multiple_testing;
pub mod note;
pub mod numpy;
pub mod options;
#[cfg(not(target_arch = "wasm32"))]
pub mod parallel;
pub mod permute;
pub mod progress;
pub mod rank;
pub mod record;
pub mod roc;
pub mod roc_bootstrap;
pub mod rouge;
pub mod ruler;
pub mod sde;
#[cfg(all(feature = "json", feature = "npz"))]
pub mod tools;
pub mod wasserstein;
pub mod wilcoxon;
pub mod words;

pub use data::{Matrix, MatrixRef};
pub use error::{Error, Result};
pub use options::{Alternative, PValueMethod};
