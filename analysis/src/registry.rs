//! One declaration per analysis: each analysis's module implements [`Analysis`] once (its name, its Request, its
//! roles, the defaults of the CLI's subcommand that the Request does not have, and its run to a report), and
//! [`ANALYSES`] lists them. The dispatcher (`lethe batch`, the Python package, the notebook widget's browser
//! requests) and the generated references iterate over this list; nothing else keeps a list of names. What the
//! page computes (the wasm module's `run` and `check`) each analysis declares beside, in [`crate::browser`].
//!
//! `docs/adding-an-analysis.md` walks through adding one.

use lethe::progress::Progress;
use serde::de::{self, DeserializeOwned, Visitor};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::workspace::{InPlacePolicy, Workspace};

/// Where a request takes its inputs: roles that are inputs (`PATH[#TENSOR][@ROWS]`), rows of an input, text files.
#[derive(Clone, Copy, Debug, Default)]
pub struct Roles {
    pub inputs: &'static [&'static str],
    pub rows: &'static [&'static str],
    pub texts: &'static [&'static str],
}

impl Roles {
    /// No inputs at all.
    pub const NONE: Self = Self {
        inputs: &[],
        rows: &[],
        texts: &[],
    };

    /// Inputs only.
    #[must_use]
    pub const fn inputs(inputs: &'static [&'static str]) -> Self {
        Self {
            inputs,
            rows: &[],
            texts: &[],
        }
    }

    /// Text files only.
    #[must_use]
    pub const fn texts(texts: &'static [&'static str]) -> Self {
        Self {
            inputs: &[],
            rows: &[],
            texts,
        }
    }
}

/// How a run is carried out; none of it is part of the report (the result is the same, bit for bit, for every
/// thread count and either way of holding inputs).
pub struct Control<'a> {
    /// Native threads for the analyses that run subsets, shuffles or resamples in parallel.
    pub threads: usize,
    /// How SDE and the calibrated verdict hold large inputs (the CLI's `--in-place`).
    pub in_place: InPlacePolicy,
    /// Called between batches of work; `false` stops the run (a stopped SDE, calibrated or HSIC run reports what
    /// it finished; the others end with an error).
    pub monitor: &'a mut dyn FnMut(&Progress) -> bool,
}

/// An analysis, declared once in its own module.
pub trait Analysis {
    /// Its name: the CLI's subcommand, a manifest line's `analysis`, the Python function.
    const NAME: &'static str;
    /// Its request: the options (serde's field names and defaults), inputs included.
    type Request: DeserializeOwned;
    /// Which of the request's keys are inputs, rows and text files (written as the CLI writes them).
    const ROLES: Roles;
    /// Keys that [`Analysis::resolve`] writes and that are not options (inspect's `source`, LiRA's `files`).
    const RESOLVED_KEYS: &'static [&'static str] = &[];

    /// The options a front end may set (the request's keys, inputs included).
    #[must_use]
    fn options() -> &'static [&'static str] {
        fields::<Self::Request>()
    }

    /// What this analysis's request needs before its inputs are resolved (RULER's models given at the top, LiRA's
    /// folder).
    ///
    /// # Errors
    /// As the analysis says.
    fn resolve(_ws: &mut Workspace, _request: &mut Map<String, Value>) -> Result<()> {
        Ok(())
    }

    /// The defaults of the CLI's subcommand that the request type does not have; keys already set are kept.
    fn defaults(_request: &mut Map<String, Value>) {}

    /// The page's plot data that a report's `result` holds the values of (what `lethe.show` draws from the report
    /// alone, [`crate::plots::of_report`]), named as the analysis's output for the page names it; none by default
    /// (the page draws the others from the report itself).
    fn plots(_result: &Value) -> Map<String, Value> {
        Map::new()
    }

    /// Runs the analysis as the CLI's subcommand does and returns the report `lethe NAME … --json` prints.
    ///
    /// # Errors
    /// The layer's errors, unchanged.
    fn run(ws: &mut Workspace, request: &Self::Request, ctl: &mut Control<'_>) -> Result<Value>;
}

/// An [`Analysis`] as a value, for the list.
#[derive(Clone, Copy)]
pub struct Entry {
    pub name: &'static str,
    pub roles: Roles,
    pub resolved_keys: &'static [&'static str],
    pub options: fn() -> &'static [&'static str],
    pub resolve: fn(&mut Workspace, &mut Map<String, Value>) -> Result<()>,
    pub defaults: fn(&mut Map<String, Value>),
    pub plots: fn(&Value) -> Map<String, Value>,
    /// The request read as the analysis's typed request, its keys checked as `run` checks them.
    pub check: fn(&Value) -> Result<()>,
    /// Parses the request (defaults already applied) and runs it.
    pub run: fn(&mut Workspace, &Value, &mut Control<'_>) -> Result<Value>,
}

impl Entry {
    /// `request` read as this analysis's typed request `T`: unknown keys refused with the list of the known ones, a
    /// value that cannot be read named by its key.
    ///
    /// # Errors
    /// A usage error as said.
    pub fn parse<T: DeserializeOwned>(&self, request: &Value) -> Result<T> {
        let command = self.name;
        let known = (self.options)();
        if let Value::Object(map) = request {
            for key in map.keys() {
                let ok = (known.contains(&key.as_str()) && !INTERNAL.contains(&key.as_str()))
                    || self.resolved_keys.contains(&key.as_str());
                if !ok {
                    return Err(self.unknown_option(key));
                }
            }
        }
        T::deserialize(request).map_err(|e| {
            // serde's message names no field ("invalid type: map, expected a sequence"): the option it is about is
            // the first whose value alone (every other option at its default or missing) cannot be read either.
            let key = match request {
                Value::Object(map) => map.iter().find_map(|(k, v)| {
                    let one = Value::Object([(k.clone(), v.clone())].into_iter().collect());
                    match T::deserialize(one) {
                        Err(e) if !e.to_string().starts_with("missing field") => Some(k.clone()),
                        _ => None,
                    }
                }),
                _ => None,
            };
            match key {
                Some(k) => Error::at(k, format!("`{command}`: {e}")).usage(),
                None => Error::msg(format!("`{command}`: {e}")).usage(),
            }
        })
    }

    /// `key` is not an option: the usage error naming the options there are.
    #[must_use]
    pub fn unknown_option(&self, key: &str) -> Error {
        let shown: Vec<&str> = (self.options)()
            .iter()
            .copied()
            .filter(|k| !INTERNAL.contains(k))
            .collect();
        Error::msg(format!(
            "`{}` has no option `{key}`; its options are {}",
            self.name,
            shown.join(", ")
        ))
        .usage()
    }
}

/// Keys a front end must not set: the browser's pooled-run parts, the backend (this path runs on the CPU), LiRA's
/// directory files (listed from its `dir` by its resolve step).
pub const INTERNAL: &[&str] = &["part", "assemble", "backend", "files"];

fn check_of<A: Analysis>(request: &Value) -> Result<()> {
    entry::<A>().parse::<A::Request>(request).map(drop)
}

fn run_of<A: Analysis>(ws: &mut Workspace, request: &Value, ctl: &mut Control<'_>) -> Result<Value> {
    let req = entry::<A>().parse::<A::Request>(request)?;
    A::run(ws, &req, ctl)
}

/// The entry of analysis `A`.
#[must_use]
pub const fn entry<A: Analysis>() -> Entry {
    Entry {
        name: A::NAME,
        roles: A::ROLES,
        resolved_keys: A::RESOLVED_KEYS,
        options: A::options,
        resolve: A::resolve,
        defaults: A::defaults,
        plots: A::plots,
        check: check_of::<A>,
        run: run_of::<A>,
    }
}

/// The report as JSON.
///
/// # Errors
/// A value serde cannot write (never for a report).
pub fn report<T: serde::Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::msg(format!("writing the report: {e}")))
}

/// A bootstrap's `(done, total)` resamples as the monitor's progress (MIA's and LiRA's audits).
pub fn bootstrap_progress<'a>(monitor: &'a mut dyn FnMut(&Progress) -> bool) -> impl FnMut(usize, usize) -> bool + 'a {
    move |done, total| {
        #[allow(clippy::cast_precision_loss)]
        let fraction = if total > 0 { done as f64 / total as f64 } else { 1.0 };
        monitor(&Progress {
            fraction,
            phase: "bootstrap resamples".into(),
        })
    }
}

/// Every analysis, in the order the CLI lists its subcommands.
pub const ANALYSES: &[Entry] = {
    use crate::analyses::{
        Bounds, Calibrate, Compare, EpsAudit, Epsilon, Fdr, ForgetQuality, Hsic, Inspect, Jsd, Ks, Lira, Mia, Mmd, Mwu,
        Privleak, Rouge, Ruler, Sde, ToolRouge, Wasserstein, Wilcoxon,
    };
    &[
        entry::<Sde>(),
        entry::<Calibrate>(),
        entry::<Ruler>(),
        entry::<Epsilon>(),
        entry::<Bounds>(),
        entry::<Rouge>(),
        entry::<Hsic>(),
        entry::<Mwu>(),
        entry::<Wilcoxon>(),
        entry::<Jsd>(),
        entry::<Mmd>(),
        entry::<Wasserstein>(),
        entry::<Ks>(),
        entry::<Mia>(),
        entry::<Lira>(),
        entry::<EpsAudit>(),
        entry::<Fdr>(),
        entry::<Inspect>(),
        entry::<ForgetQuality>(),
        entry::<Privleak>(),
        entry::<ToolRouge>(),
        entry::<Compare>(),
    ]
};

/// The analyses' names, in [`ANALYSES`]' order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ANALYSES.iter().map(|e| e.name)
}

/// The entry named `command`.
///
/// # Errors
/// An unknown command, with the list of the known ones.
pub fn lookup(command: &str) -> Result<&'static Entry> {
    ANALYSES.iter().find(|e| e.name == command).ok_or_else(|| {
        Error::msg(format!(
            "unknown analysis `{command}`: one of {}",
            names().collect::<Vec<_>>().join(", ")
        ))
        .usage()
    })
}

/// The field names of a request type, as serde's derive lists them (read by a deserializer that only asks).
pub fn fields<'de, T: serde::Deserialize<'de>>() -> &'static [&'static str] {
    struct Ask(Option<&'static [&'static str]>);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("stop")
        }
    }
    impl std::error::Error for Stop {}
    impl de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    impl<'de> de::Deserializer<'de> for &mut Ask {
        type Error = Stop;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> std::result::Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> std::result::Result<V::Value, Stop> {
            self.0 = Some(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
            unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let mut ask = Ask(None);
    let _ = T::deserialize(&mut ask);
    ask.0.unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_entry_has_options() {
        let mut seen = std::collections::BTreeSet::new();
        for e in ANALYSES {
            assert!(seen.insert(e.name), "{} listed twice", e.name);
            assert!(!(e.options)().is_empty(), "{} lists no options", e.name);
        }
    }
}
