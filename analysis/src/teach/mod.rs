//! Teaching topics: the numbers behind the figures of `teach.html` and `<lethe-eval mode="teach">`.
//!
//! Each topic's figure asks the page's worker for small, quick results (a slider moved, a shuffle step). Every
//! statistic comes from the `lethe` core — the same functions the CLI and the analysis panels call; this module
//! only
//!
//! * generates the topics' illustrative data, seeded (splitmix64 + Box–Muller: the same numbers on every
//!   platform), and says what the generating distribution is where a figure compares with it;
//! * picks rows of the built-in digits example for the SDE topic (the row layout of `examples/data/digits`);
//! * keeps the HSIC topic's permutation runs between steps, so the null histogram can grow shuffle by shuffle;
//! * chooses display ranges and bins (counted by the core's `histogram`).
//!
//! The topics ([`hsic`], [`digits`] (split-half dependence), [`ranks`], [`epsilon`], [`bounds`], [`mia`] (the
//! membership audit), and [`export`]
//! for handing a topic's data over as files) each take a serde request and return a serialisable view. The state
//! two of them keep between requests (HSIC runs being stepped, the example's matrices) lives in a [`Teaching`]
//! value the front end holds; the wasm crate's `teach` export only converts JavaScript values to requests and
//! views back. Requests and results are documented in `www/src/protocol.md` (message type `teach`).

pub mod bounds;
pub mod digits;
pub mod epsilon;
pub mod export;
pub mod hsic;
pub mod mia;
pub mod ranks;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use lethe::Matrix;

use crate::{Error, Result};

pub use bounds::{BoundsRequest, BoundsView, PlanRequest, bounds, plan};
pub use digits::{SdeExperiment, SdeRequest, SweepCell, SweepRequest};
pub use epsilon::{EpsilonRequest, EpsilonView, ThresholdView, epsilon, epsilon_threshold};
pub use export::{ExportFile, ExportRequest, export};
pub use hsic::{HsicPrepared, HsicRequest, HsicStep, HsicStepRequest};
pub use mia::{MiaSpec, MiaTopicRequest, MiaTopicView, mia};
pub use ranks::{RankRequest, RankView, ranks};

/// What the teaching topics keep between requests: the HSIC topic's permutation runs (stepped shuffle by
/// shuffle) and the built-in example's matrices (added file by file, [`Teaching::add_example_file`]).
pub struct Teaching {
    pub(crate) sessions: Vec<hsic::HsicSession>,
    pub(crate) next_session: u64,
    pub(crate) example: HashMap<(digits::Representation, digits::Model), Matrix>,
}

impl Default for Teaching {
    fn default() -> Self {
        Self {
            sessions: Vec::new(),
            next_session: 1,
            example: HashMap::new(),
        }
    }
}

/// Drives a CPU-backend future, which completes without waiting, on the current thread.
pub(crate) fn ready<F: Future>(f: F) -> Result<F::Output> {
    let mut f = pin!(f);
    match f.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Ok(v),
        Poll::Pending => Err(Error::msg("internal error: a CPU computation did not complete at once")),
    }
}

pub(crate) fn check_range<T: PartialOrd + std::fmt::Display + Copy>(name: &str, v: T, lo: T, hi: T) -> Result<T> {
    if v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(Error::at(name, format!("`{name}` = {v} is outside {lo}..={hi}")))
    }
}

pub(crate) fn check_unit(name: &str, v: f64) -> Result<f64> {
    if v.is_finite() && (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(Error::at(name, format!("`{name}` = {v} must be a number in [0, 1]")))
    }
}

pub(crate) fn check_finite(name: &str, v: f64, lo: f64, hi: f64) -> Result<f64> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(Error::at(
            name,
            format!("`{name}` = {v} must be a number in [{lo}, {hi}]"),
        ))
    }
}

/// One value per row.
pub(crate) fn column(values: &[f64]) -> Result<Matrix> {
    Ok(Matrix::from_vec(values.len(), 1, values.to_vec())?)
}
