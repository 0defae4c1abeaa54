//! The analyses, one module each: per analysis a Request (the options, with the core's defaults), its checks (a
//! validated plan and its warnings), a run that calls the core, and one Report with one headline whose `result` is
//! the core's result unchanged. The front ends (the `lethe` CLI's `cli/src/commands/`, the wasm crate, the Python
//! module) only map their arguments to a Request and the Report to their output.
//!
//! Nothing here computes a statistic: the glue between core calls (target draws with their seed offsets, logits →
//! confidences per model, Wilcoxon + BH of RULER across runs) lives here once, for every front end. A warning's
//! code comes from where it is raised: the file readers' and the core's notes carry theirs ([`Note`]'s kind), and
//! [`file_warning`] and each analysis's mapping of the core's notes copy it.

use std::sync::Arc;

use lethe::backend::{Backend, CpuBackend, Precision};
use lethe::competition::{self, Accuracies, CompetitionParams, CompetitionResult, EpsMax, Variant};
use lethe::kernel::Bandwidth;
use lethe::leakage::{self, LeakageParams, LeakageReport, SdMethod, Sidedness};
use lethe::note::{Note, NoteKind};
use lethe::progress::{Monitor, Progress};
use lethe::ruler::{self, RulerInputs, RulerReport, TieRule};
use lethe::sde::calibrated::{CalibratedParams, CalibratedReport, TargetRows, calibrated_with};
use lethe::sde::{self, SdeParams, SdeReport, Split};
use lethe::{Matrix, rouge};
use serde::{Deserialize, Serialize};

use crate::browser::{BackendJob, Compute, InBrowser};
use crate::error::{Error, Result, named_input};
use crate::parts::{PartSubset, SdePart};
use crate::plots::{self, Histograms};
#[cfg(all(feature = "full", not(target_arch = "wasm32")))]
use crate::registry::{Control, Roles, bootstrap_progress, report};
use crate::rows::Rows;
use crate::workspace::{Held, Input, InputRecord, InputRef, Workspace};

/// Each analysis's entry in the registry ([`crate::registry::Analysis`]), which the native front ends read (the
/// dispatcher, `lethe batch`, the Python package): left out of the wasm module.
macro_rules! registered {
    ($($item:item)*) => {
        $( #[cfg(all(feature = "full", not(target_arch = "wasm32")))] $item )*
    };
}

/// The page's entry ([`crate::browser::InBrowser`]) of an analysis it computes in one step: `prepare` runs it
/// (`$run(ws, &request)`), and `finish` hands its output on as it is.
macro_rules! in_browser_at_once {
    ($ty:ty, $name:literal, $req:ty => $out:ty, $run:path $(, lean = $lean:literal)? $(, for_check = $quick:path)?) => {
        impl $crate::browser::InBrowser for $ty {
            const NAME: &'static str = $name;
            $(const LEAN: bool = $lean;)?
            type Request = $req;
            type Job = $out;
            type Output = $out;
            $(fn for_check(req: $req) -> $req {
                $quick(req)
            })?
            fn prepare(ws: &mut $crate::workspace::Workspace, req: $req) -> $crate::error::Result<$out> {
                $run(ws, &req)
            }
            async fn finish<C: $crate::browser::Compute, M: lethe::progress::Monitor>(
                out: $out,
                _: &mut C,
                _: &mut M,
            ) -> $crate::error::Result<$out> {
                Ok(out)
            }
        }
    };
}

/// The compute backend a request names: `cpu`, or `webgpu` (wasm32 builds with the `gpu` feature; the worker
/// resolves the page's `auto` to one of the two before asking).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    Cpu,
    WebGpu,
}

/// Parses a request's `backend`.
///
/// # Errors
/// Names other than `cpu` and `webgpu`.
pub fn backend_choice(name: &str) -> Result<BackendChoice> {
    match name {
        "" | "cpu" => Ok(BackendChoice::Cpu),
        "webgpu" => Ok(BackendChoice::WebGpu),
        other => Err(Error::msg(format!(
            "backend `{other}` is not one of cpu, webgpu (the page resolves `auto` before a run)"
        ))),
    }
}

fn check_backend(name: &str) -> Result<()> {
    backend_choice(name).map(|_| ())
}

fn parse<T: std::str::FromStr<Err = lethe::Error>>(s: &str) -> Result<T> {
    s.parse().map_err(Error::from)
}

/// Attributes a core error to the page control it names (`` `target[3]` `` → `target`, `` `unlearned (forget
/// rows)` `` → `forget`, `` `oracle_retain` `` → `oracle`), when that is one of `roles`.
fn attribute(e: lethe::Error, roles: &[&str]) -> Error {
    let backend = matches!(e, lethe::Error::Backend(_));
    let message = e.to_string();
    let input = named_input(&message).and_then(|name| {
        let base = name.split('[').next().unwrap_or(name);
        let candidates = [
            if name.contains("(forget rows)") { "forget" } else { "" },
            if name.contains("(retain rows)") { "retain" } else { "" },
            base,
            base.split([' ', '_']).next().unwrap_or(base),
        ];
        candidates
            .into_iter()
            .find(|c| !c.is_empty() && roles.contains(c))
            .map(str::to_string)
    });
    Error {
        input,
        message,
        backend,
        full: false,
        usage: false,
        code: None,
    }
}

/// Loads a 1-D sample: a single column or a single row.
fn load_vector(ws: &mut Workspace, role: &str, r: &InputRef) -> Result<(Vec<f64>, InputRecord)> {
    let input = ws.load(role, r)?;
    let m = &input.matrix;
    if m.cols() != 1 && m.rows() != 1 {
        return Err(Error::at(
            role,
            format!(
                "`{}` is {}×{}, but this analysis takes one number per row: {}",
                input.record.spec,
                m.rows(),
                m.cols(),
                crate::words::pick("one-column", None)
            ),
        ));
    }
    Ok((m.as_slice().to_vec(), input.record.clone()))
}

/// A note a loader attached to an input (a detected header, bytes after the data, ...), with the input's role;
/// reports give them as warnings ([`loader_warnings`]).
#[derive(Clone, Debug, Serialize)]
pub struct LoadWarning {
    pub role: String,
    /// The reader's note, with its kind (it serialises as the message).
    pub message: Note,
}

/// The loaders' warnings of `inputs`, less their note on non-finite values: every analysis checks the rows it uses
/// itself and says what it does with them (refuses them, naming the file's row, or ranks ±inf with a warning).
fn load_warnings(inputs: &[(&str, &Input)]) -> Vec<LoadWarning> {
    inputs
        .iter()
        .flat_map(|(role, i)| {
            i.warnings
                .iter()
                .filter(|w| w.kind != NoteKind::NonFinite)
                .map(|w| LoadWarning {
                    role: (*role).to_string(),
                    message: w.clone(),
                })
        })
        .collect()
}

/// The loaders' warnings as a report's warnings about the input's role ([`file_warning`]).
fn loader_warnings(lw: &[LoadWarning]) -> Vec<crate::report::Warning> {
    lw.iter().map(|w| file_warning(Some(&w.role), &w.message)).collect()
}

/// A file reader's note as a report warning, with the code its reader gave it ([`lethe::note::NoteKind::code`]):
/// `trailing_bytes`, `header_row`, `label_column`, `file_name_not_utf8`, else `file_reader`. The reader's message says
/// what it found, what it did and the fix.
pub fn file_warning(role: Option<&str>, note: &Note) -> crate::report::Warning {
    crate::report::Warning::new(note.code(), role, note.message.clone(), None)
}

mod bounds;
mod calibrate;
mod compare;
mod compare_files;
#[cfg(feature = "full")]
mod compare_pm;
mod compare_runs;
mod eps_audit;
mod epsilon;
mod ks;
#[cfg(feature = "full")]
mod lira;
mod mia;
mod ruler_run;
mod sde_run;
mod stats;
#[cfg(test)]
mod tests;
#[cfg(feature = "full")]
mod tools;
#[cfg(feature = "full")]
mod tools_ou;

pub use bounds::*;
pub use calibrate::*;
pub use compare::*;
pub use compare_files::MethodFiles;
#[cfg(not(target_arch = "wasm32"))]
pub use compare_files::compare_methods;
pub use eps_audit::*;
pub use epsilon::*;
pub use ks::*;
#[cfg(feature = "full")]
pub use lira::*;
pub use mia::*;
pub use ruler_run::*;
pub use sde_run::*;
pub use stats::*;
#[cfg(feature = "full")]
pub use tools::*;
#[cfg(feature = "full")]
pub use tools_ou::*;
