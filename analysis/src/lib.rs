//! # lethe-analysis: the one analysis layer under every front end
//!
//! The Lethe core (`lethe`) computes statistics; the front ends (the `lethe` CLI, the browser widget's wasm layer,
//! later bindings) only translate. Between them, this crate decides, once for all of them:
//!
//! * [`workspace`]: the inputs — byte sources by id (a file on disk, a browser `File`, pasted text, an array handed
//!   over), their headers and SHA-256, matrices loaded with one set of options and checks, or read in place.
//! * [`rows`] and [`spec`]: row subsets and the `PATH[#TENSOR][@ROWS]` grammar, parsed one way.
//! * [`analyses`]: per analysis a serde `Request` (defaults from the core's parameter types), the checks that turn
//!   it into a run with its warnings, a run with progress and cancel, and the report — the same value behind
//!   `lethe … --json` and the page's export.
//! * [`report`]: the report envelope with its one [`Headline`] and its [`Warning`]s.
//! * [`error`]: errors that carry the input they concern (and, for a guardrail's refusal, its code) as data.
//! * [`plots`], [`parts`], [`npy`]: plot data counted by the core, the parts of a pooled SDE run, .npy bytes.
//! * [`browser`]: what the page computes, declared by each analysis ([`browser::InBrowser`]) and listed once.
//! * [`synthetic`] and `teach` (feature `full`): the seeded synthetic examples, and the teaching topics' requests,
//!   seeded data and steps (every number from the core; the page's worker only forwards them).
//!
//! Nothing here knows a browser or a terminal, and nothing here computes a statistic: every number comes from the
//! core.

pub mod analyses;
/// Batch audits and every analysis by name (`lethe batch`, the Python package): native, every reader.
#[cfg(all(feature = "full", not(target_arch = "wasm32")))]
pub mod batch;
pub mod browser;
#[cfg(all(feature = "full", not(target_arch = "wasm32")))]
pub mod dispatch;
pub mod error;
pub mod npy;
pub mod parts;
pub mod plots;
#[cfg(all(feature = "full", not(target_arch = "wasm32")))]
pub mod registry;
pub mod report;
pub mod rows;
pub mod spec;
pub mod synthetic;
#[cfg(feature = "full")]
pub mod teach;
pub mod workspace;

pub use error::{Error, Result};
/// Options and commands named in messages, rendered by each front end (`words::cli`, `words::python`, the page's `say`).
pub use lethe::words;
pub use report::{Headline, Report, Warning};
pub use workspace::{InputRef, Workspace};

/// The Lethe version reports carry (the workspace version).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
