//! # lethe-web: the browser widget's wasm-bindgen layer
//!
//! A thin layer over the Lethe core for the page's Web Worker: it holds the inputs the page gives it (browser
//! `File`s read in slices with `FileReaderSync`, pasted text, typed arrays), loads them exactly as the CLI does,
//! calls the core and hands its results back unchanged, as plain JavaScript objects. There are no statistics here:
//! every number the page shows comes from the core. Plot data (histogram counts, ECDF bands) is counted by the core
//! too; this crate only picks display ranges and evaluation points.
//!
//! * [`workspace`]: sources by id, headers, SHA-256, matrices loaded with the CLI's options and checks.
//! * [`rows`]: row subsets, parsed as the CLI's `@ROWS`.
//! * [`analyses`]: SDE, RULER, competition epsilon, leakage bounds — each the CLI subcommand's steps.
//! * [`plots`], [`synthetic`], [`npy`]: plot data, seeded synthetic examples, .npy bytes.
//! * `teach` (wasm32, full module only): the teaching page's exports over `lethe_analysis::teach`.
//! * [`parts`]: the subsets of one SDE run computed by a pool of workers, read back for the report.
//! * `wasm` (wasm32 only): the `#[wasm_bindgen]` exports and the worker-side `ByteSource` and `Monitor`.
//!
//! Two wasm modules are built from this crate (`build.sh`): with the default feature `full` (every reader of the
//! core, every analysis, the WebGPU backend through `lethe-gpu`, feature `gpu`) and without it — the lean module
//! the page opens with (.npy, SDE with the calibrated verdict, RULER on the CPU), which answers other requests
//! with an error marked [`WebError::full`] so that the worker hands them to the full module.
//!
//! Everything but `wasm` builds natively, so `cargo test --workspace` checks it without a browser; the boundary is
//! tested in headless Chromium with wasm-bindgen-test (`wasm/tests/`), on the main thread and in a dedicated worker.
//! The page's message protocol is documented in `www/src/protocol.md`.

pub use lethe_analysis::{analyses, browser, error, npy, parts, plots, rows, synthetic, workspace};
#[cfg(all(feature = "full", target_arch = "wasm32"))]
pub mod teach;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use lethe_analysis::{Error as WebError, Result as WebResult};
pub use workspace::{InputRef, Workspace};

/// The Lethe version the page reports (the workspace version, as the CLI's `lethe_version`).
pub const VERSION: &str = lethe_analysis::VERSION;
