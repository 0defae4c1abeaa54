//! What the page's worker computes, declared by each analysis in its own module ([`InBrowser`]) and listed once
//! ([`each`]). The wasm crate's `run` and `check` exports walk this list (no name of an analysis there), the lean
//! module's refusals follow each analysis's [`InBrowser::LEAN`], and the native registry's `browser_commands` (the
//! notebook widget runs these in the browser) reads its names.
//!
//! Unlike [`crate::registry`] (native, every reader), this module builds for every target and feature set: the lean
//! wasm module walks the analyses it computes (`LEAN`), the full one all of them.

use lethe::backend::{Backend, Precision};
use lethe::progress::Monitor;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::analyses::BackendChoice;
use crate::error::Result;
use crate::report::Warning;
use crate::workspace::Workspace;

/// An analysis the page computes: its request as the page sends it, the checks before a run ([`InBrowser::prepare`],
/// with the workspace), and the run ([`InBrowser::finish`], without it: the worker keeps no borrow of its
/// workspace across an `await`, so it can still add files and receive a cancel while a long run yields).
#[allow(async_fn_in_trait)]
pub trait InBrowser {
    /// The name the page asks for (the analysis's name, the CLI's subcommand).
    const NAME: &'static str;
    /// The lean module (.npy, SDE with the calibrated verdict, RULER on the CPU) computes it too; the lean module
    /// answers the others with an error marked `full`, and the worker hands them to the full module.
    const LEAN: bool = false;
    /// The page's check before a run stops before computing ([`InBrowser::check`]: SDE, the calibrated verdict).
    /// Without it the check is the run itself, its warnings kept: a quick analysis's run costs what a check would.
    const CHECK: bool = false;
    /// The request, read from the page's object with serde (the same type as the CLI's).
    type Request: DeserializeOwned;
    /// What the checks leave for the run: the prepared job of a long run, or a quick analysis's output itself.
    type Job;
    /// What the page reads: the report's parts and, beside them, the plot data the page's plots use (SDE's
    /// histograms, RULER's rank histograms, epsilon's plots, compare's pictures), or the report itself.
    type Output: Serialize;

    /// Reads the inputs, checks the request and prepares the run (a quick analysis runs here).
    ///
    /// # Errors
    /// The analysis's refusals, naming the input they concern.
    fn prepare(ws: &mut Workspace, req: Self::Request) -> Result<Self::Job>;

    /// Runs the prepared job: a long run posts its progress through `monitor` and stops when it answers `false`
    /// (keeping what it finished where the analysis can); a run on a compute backend asks `compute` for the one
    /// its request names.
    ///
    /// # Errors
    /// As the run.
    async fn finish<C: Compute, M: Monitor>(job: Self::Job, compute: &mut C, monitor: &mut M) -> Result<Self::Output>;

    /// The request as the page's check before a run prepares it ([`InBrowser::check`]): the run's own, or one
    /// whose costly part is made small where the warnings do not depend on it (compare: one bootstrap resample).
    fn for_check(req: Self::Request) -> Self::Request {
        req
    }

    /// The warnings a run would raise before computing anything, and the refusals it would make before its first
    /// step; `silent` is a monitor that never reports. Only called where [`InBrowser::CHECK`] is set.
    ///
    /// # Errors
    /// The run's refusals.
    async fn check<M: Monitor>(_job: Self::Job, _silent: &mut M) -> Result<Vec<Warning>> {
        Ok(Vec::new())
    }
}

/// A job that runs on one of the core's compute backends (SDE, the calibrated verdict).
#[allow(async_fn_in_trait)]
pub trait BackendJob {
    type Output;
    /// The precision the backend is created with.
    fn precision(&self) -> Precision;
    /// Runs on `backend`.
    ///
    /// # Errors
    /// As the run.
    async fn run_on<B: Backend, M: Monitor>(self, backend: &mut B, monitor: &mut M) -> Result<Self::Output>;
}

/// The compute backends a front end has: the CPU, and where it has one a GPU backend (the wasm crate's WebGPU
/// backend, `lethe-gpu` on wgpu, which it takes for a run and keeps between runs). The analysis layer knows only
/// the core's [`Backend`] trait, so wgpu stays out of it.
#[allow(async_fn_in_trait)]
pub trait Compute {
    /// Runs `job` on the backend `choice` names.
    ///
    /// # Errors
    /// As the run; a backend this front end does not have, marked `backend`.
    async fn run<J: BackendJob, M: Monitor>(
        &mut self,
        choice: BackendChoice,
        job: J,
        monitor: &mut M,
    ) -> Result<J::Output>;
}

/// Walks the analyses of [`each`].
pub trait Visit {
    /// Called once per analysis, in [`each`]'s order.
    fn visit<A: InBrowser + 'static>(&mut self);
}

/// Visits `A` where this build computes it: every analysis with the feature `full`, the lean ones without it.
fn one<A: InBrowser + 'static>(v: &mut impl Visit) {
    if cfg!(feature = "full") || A::LEAN {
        v.visit::<A>();
    }
}

/// Every analysis the page computes, in the order the CLI lists them (and `mgen`, the page's generalized leakage
/// bound for its own plot, which is not a command), each visited where this build computes it.
pub fn each(v: &mut impl Visit) {
    use crate::analyses::{Bounds, Calibrate, Compare, EpsAudit, Epsilon, MGen, Mia, Ruler, Sde};
    #[cfg(feature = "full")]
    use crate::analyses::{ForgetQuality, Lira, Privleak, ToolRouge};
    one::<Sde>(v);
    one::<Calibrate>(v);
    one::<Ruler>(v);
    one::<Epsilon>(v);
    one::<Bounds>(v);
    one::<MGen>(v);
    one::<Mia>(v);
    #[cfg(feature = "full")]
    one::<Lira>(v);
    one::<EpsAudit>(v);
    #[cfg(feature = "full")]
    one::<ForgetQuality>(v);
    #[cfg(feature = "full")]
    one::<Privleak>(v);
    #[cfg(feature = "full")]
    one::<ToolRouge>(v);
    one::<Compare>(v);
}

/// The names [`each`] visits.
#[must_use]
pub fn names() -> Vec<&'static str> {
    struct Names(Vec<&'static str>);
    impl Visit for Names {
        fn visit<A: InBrowser + 'static>(&mut self) {
            self.0.push(A::NAME);
        }
    }
    let mut n = Names(Vec::new());
    each(&mut n);
    n.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Flags(Vec<(&'static str, bool, bool)>);
    impl Visit for Flags {
        fn visit<A: InBrowser + 'static>(&mut self) {
            self.0.push((A::NAME, A::LEAN, A::CHECK));
        }
    }

    /// The names the wasm module's `run` and `check` answered before they walked this list (issue 26): the full
    /// module computes these, the lean module SDE, the calibrated verdict and RULER, and only SDE and the calibrated
    /// verdict stop their check before computing.
    #[test]
    fn the_page_computes_what_it_computed() {
        let mut f = Flags::default();
        each(&mut f);
        let names: Vec<&str> = f.0.iter().map(|x| x.0).collect();
        assert_eq!(
            names,
            [
                "sde",
                "calibrate",
                "ruler",
                "epsilon",
                "bounds",
                "mgen",
                "mia",
                "lira",
                "eps-lower",
                "forget-quality",
                "privleak",
                "tool-rouge",
                "compare"
            ]
        );
        let lean: Vec<&str> = f.0.iter().filter(|x| x.1).map(|x| x.0).collect();
        assert_eq!(lean, ["sde", "calibrate", "ruler"]);
        let checked: Vec<&str> = f.0.iter().filter(|x| x.2).map(|x| x.0).collect();
        assert_eq!(checked, ["sde", "calibrate"]);
        // Every one of them but the page's own `mgen` is a command of the registry.
        let commands = crate::dispatch::browser_commands();
        assert_eq!(commands.len(), names.len() - 1);
        assert!(!commands.contains(&"mgen"));
    }
}
