//! Progress reporting and cooperative cancellation for long computations.
//!
//! Long procedures call [`Monitor::checkpoint`] between batches of work. It is async so that a browser worker can
//! yield to its event loop there (letting a "cancel" message arrive) and a GPU caller can await readbacks; a
//! `false` answer asks the procedure to stop and return what it has, marked incomplete.

use serde::Serialize;

/// Where a computation is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Progress {
    /// Fraction of the total work done, in [0, 1].
    pub fraction: f64,
    /// What is running, e.g. "target 3/20: shuffles".
    pub phase: String,
}

/// Receives progress; decides whether to continue.
#[allow(async_fn_in_trait)]
pub trait Monitor {
    /// Returns `false` to ask the computation to stop early.
    async fn checkpoint(&mut self, progress: &Progress) -> bool;
}

/// Runs to completion and reports nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Silent;

impl Monitor for Silent {
    async fn checkpoint(&mut self, _: &Progress) -> bool {
        true
    }
}

/// A plain callback as a monitor (e.g. a CLI progress line, or a test that cancels after k calls).
impl<F: FnMut(&Progress) -> bool> Monitor for F {
    async fn checkpoint(&mut self, progress: &Progress) -> bool {
        self(progress)
    }
}
