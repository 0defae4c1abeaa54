//! Every analysis by its name, with its request as JSON: what `lethe batch` runs for each line of a manifest and
//! what the Python package runs for each call, so neither repeats the steps between a request and its report.
//!
//! A request is the analysis's serde `Request` (the CLI's option names and defaults) as a JSON object, in which an
//! input may be written as the CLI writes it: a string `PATH[#TENSOR][@ROWS]` where the request takes an input,
//! a row text (`a..b`, `i,j,k`, an index file, `FILE==VALUE`) where it takes rows, a path where it takes a text file
//! ([`resolve`] turns them into the workspace's sources). Keys the request does not have are refused with the list
//! of those it has ([`fields`]), so a misspelt option is never silently ignored. [`run`] then calls the layer as the
//! CLI's subcommand does and returns the report that `lethe … --json` prints, as JSON.

use lethe::progress::Progress;
use serde::Deserialize;
use serde::de::{self, Visitor};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::workspace::{InPlacePolicy, Workspace};

/// The analyses, as the CLI's subcommands.
pub const COMMANDS: &[&str] = &[
    "sde",
    "calibrate",
    "ruler",
    "epsilon",
    "bounds",
    "rouge",
    "hsic",
    "mwu",
    "wilcoxon",
    "jsd",
    "mmd",
    "wasserstein",
    "mia",
    "lira",
    "eps-lower",
    "fdr",
    "inspect",
    "forget-quality",
    "privleak",
    "tool-rouge",
    "compare",
];

/// Where a request takes its inputs: roles that are inputs (`PATH[#TENSOR][@ROWS]`), rows of an input, text files.
#[derive(Clone, Copy, Debug, Default)]
pub struct Roles {
    pub inputs: &'static [&'static str],
    pub rows: &'static [&'static str],
    pub texts: &'static [&'static str],
}

/// The roles of `command`'s request (the request's own keys; RULER's inputs are inside each of its `runs`).
///
/// # Errors
/// An unknown command, with the list of the known ones.
pub fn roles(command: &str) -> Result<Roles> {
    const XY: &[&str] = &["x", "y"];
    let r = |inputs, rows, texts| Roles { inputs, rows, texts };
    Ok(match command {
        "sde" => r(
            &[
                "in_training",
                "out_of_training",
                "target",
                "target_in",
                "target_out",
                "draw_from",
                "draw_in",
                "draw_out",
            ],
            &[],
            &[],
        ),
        "calibrate" => r(
            &["data"],
            &[
                "it_pool",
                "oot_pool",
                "target",
                "target_in",
                "target_out",
                "draw_from",
                "draw_in",
                "draw_out",
            ],
            &[],
        ),
        "ruler" => r(&["unlearned", "oracle", "original"], &["forget", "retain"], &[]),
        "epsilon" => r(
            &[
                "retrained",
                "unlearned",
                "retrained_logits",
                "unlearned_logits",
                "retrained_probs",
                "unlearned_probs",
                "labels",
            ],
            &[],
            &[],
        ),
        "bounds" => r(&["scores"], &[], &[]),
        "rouge" => r(&[], &[], &["predictions", "reference"]),
        "hsic" | "mwu" | "wilcoxon" | "jsd" | "mmd" | "wasserstein" => r(XY, &[], &[]),
        "mia" => r(&["members", "non_members", "scores", "labels"], &[], &[]),
        "lira" => r(&["scores", "keep"], &[], &[]),
        "eps-lower" => r(&["members", "non_members", "scores", "labels"], &[], &[]),
        "fdr" => r(&["pvalues"], &[], &[]),
        "inspect" => r(&[], &[], &["file"]),
        // Tool files (open-unlearning / TOFU / MUSE), `PATH[#KEY]` as the CLI reads them (`ws.input_arg`).
        "forget-quality" | "privleak" => r(&["unlearned", "retain"], &[], &[]),
        "tool-rouge" => r(&["file"], &[], &[]),
        // The runs table: a text file (`ws.add_path`), or pasted text.
        "compare" => r(&[], &[], &["runs"]),
        other => {
            return Err(Error::msg(format!("unknown analysis `{other}`: one of {}", COMMANDS.join(", "))).usage());
        }
    })
}

/// Turns the inputs of `request` (a JSON object for `command`) written as the CLI writes them into the
/// workspace's sources: strings at input roles become inputs (`ws.input_arg`), at row roles rows
/// (`ws.rows_arg`), at text roles files (`ws.add_path`); lists of them, one each. Values already in the request's
/// own form (`{"source": 3, ...}`, as the Python package passes arrays) are left as they are. LiRA's `dir` (a
/// folder in mi_lira_2021's layout, as `lethe lira DIR`) becomes the request's `files`, listed as the CLI lists
/// them ([`crate::analyses::open_lira_dir`]); `files` itself is not an option.
///
/// # Errors
/// A request that is not an object; a malformed input or rows text; a file that cannot be opened; LiRA's `files`
/// given, or a `dir` that is not a folder.
pub fn resolve(ws: &mut Workspace, command: &str, request: &mut Value) -> Result<()> {
    let roles = roles(command)?;
    let Value::Object(map) = request else {
        return Err(Error::msg(format!("the options of `{command}` must be a JSON object")).usage());
    };
    if command == "ruler" {
        flat_ruler_runs(map)?;
    }
    if command == "compare"
        && let Some(v) = map.remove("methods")
    {
        map.insert("methods".into(), compare_methods(ws, v)?);
    }
    if command == "lira" {
        if map.contains_key("files") {
            return Err(unknown_option(command, "files"));
        }
        if let Some(Value::String(dir)) = map.get("dir") {
            let files = crate::analyses::open_lira_dir(ws, std::path::Path::new(dir))?;
            map.insert("files".into(), Value::from(files));
        }
    }
    resolve_map(ws, &roles, map)
}

/// `lethe compare`'s result files by method, written as the CLI writes them (`"NAME=FILE,FILE"`, a list of
/// those), as an object `{"NAME": ["FILE", …]}` (a Python dict), or in the request's own form (`[{"method": NAME,
/// "files": ["FILE", …]}]`): each path opened as a text file (`ws.add_path`), in the request's own form. Files
/// already given as sources (`{"kind": "source", …}`) are left as they are.
pub fn compare_methods(ws: &mut Workspace, v: Value) -> Result<Value> {
    let bad = || {
        Error::at(
            "methods",
            "give each method's result files as NAME=FILE,FILE,… (a list of those), or as {\"NAME\": [\"FILE\", …]}",
        )
        .usage()
    };
    let groups: Vec<(String, Vec<Value>)> = match v {
        Value::Null => Vec::new(),
        Value::Object(o) => o
            .into_iter()
            .map(|(k, v)| match v {
                Value::Array(a) => (k, a),
                one => (k, vec![one]),
            })
            .collect(),
        Value::String(s) => vec![split_method(&s).ok_or_else(bad)?],
        Value::Array(items) => items
            .into_iter()
            .map(|item| match item {
                Value::String(s) => split_method(&s).ok_or_else(bad),
                Value::Object(mut o) => {
                    let method = o
                        .remove("method")
                        .and_then(|m| m.as_str().map(str::to_string))
                        .ok_or_else(bad)?;
                    let files = match o.remove("files") {
                        Some(Value::Array(a)) => a,
                        Some(one @ Value::String(_)) => vec![one],
                        _ => return Err(bad()),
                    };
                    Ok((method, files))
                }
                _ => Err(bad()),
            })
            .collect::<Result<_>>()?,
        _ => return Err(bad()),
    };
    let mut out = Vec::with_capacity(groups.len());
    for (method, files) in groups {
        let mut fs = Vec::with_capacity(files.len());
        for f in files {
            fs.push(match f {
                Value::String(path) => {
                    let id = ws.add_path("methods", std::path::Path::new(&path))?;
                    serde_json::json!({"kind": "source", "source": id})
                }
                other => other,
            });
        }
        out.push(serde_json::json!({"method": method, "files": fs}));
    }
    Ok(Value::Array(out))
}

/// `NAME=FILE,FILE,…` as the method and its files.
fn split_method(s: &str) -> Option<(String, Vec<Value>)> {
    let (name, files) = s.split_once('=')?;
    let files: Vec<Value> = files
        .split(',')
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(Value::from)
        .collect();
    (!name.trim().is_empty() && !files.is_empty()).then(|| (name.trim().to_string(), files))
}

/// RULER's models given as the CLI takes them (`unlearned`, `oracle`, `original` at the top: one input each, or a
/// list of one per run, paired in order) become its `runs`, so `lethe.ruler(unlearned=u, oracle=o, …)` and a manifest
/// line `{"analysis": "ruler", "unlearned": …}` read as `lethe ruler --unlearned … --oracle …` does.
fn flat_ruler_runs(map: &mut Map<String, Value>) -> Result<()> {
    const MODELS: [&str; 3] = ["unlearned", "oracle", "original"];
    if !MODELS.iter().any(|k| map.contains_key(*k)) {
        return Ok(());
    }
    if map.contains_key("runs") {
        return Err(Error::msg(
            "give the models either as runs (a list of {unlearned, oracle, original}) or as unlearned/oracle/original, \
             not both",
        )
        .usage());
    }
    let lists: Vec<(&str, Vec<Value>)> = MODELS
        .iter()
        .filter_map(|k| {
            map.remove(*k).map(|v| match v {
                Value::Array(items) => (*k, items),
                Value::Null => (*k, Vec::new()),
                one => (*k, vec![one]),
            })
        })
        .collect();
    let runs = lists
        .iter()
        .find(|(k, _)| *k == "unlearned")
        .map_or(0, |(_, v)| v.len());
    if runs == 0 {
        return Err(Error::at("unlearned", "give the unlearned model's embeddings (one per run)").usage());
    }
    for (k, v) in &lists {
        if !v.is_empty() && v.len() != runs {
            return Err(Error::at(
                *k,
                format!(
                    "`{k}` was given {} time(s) but `unlearned` {runs} time(s); give one per run",
                    v.len()
                ),
            )
            .usage());
        }
    }
    let runs: Vec<Value> = (0..runs)
        .map(|i| {
            let mut run = Map::new();
            for (k, v) in &lists {
                if let Some(x) = v.get(i) {
                    run.insert((*k).to_string(), x.clone());
                }
            }
            Value::Object(run)
        })
        .collect();
    map.insert("runs".into(), Value::Array(runs));
    Ok(())
}

fn resolve_map(ws: &mut Workspace, roles: &Roles, map: &mut Map<String, Value>) -> Result<()> {
    let to_json = |v: &dyn erased::Ser| v.value();
    for (key, v) in map.iter_mut() {
        let role = key.as_str();
        let one = |ws: &mut Workspace, s: &str| -> Result<Value> {
            if roles.inputs.contains(&role) {
                to_json(&ws.input_arg(role, s)?)
            } else if roles.rows.contains(&role) {
                to_json(&ws.rows_arg(role, s)?)
            } else {
                let id = ws.add_path(role, std::path::Path::new(s))?;
                Ok(if role == "file" {
                    Value::from(id)
                } else {
                    serde_json::json!({"kind": "source", "source": id})
                })
            }
        };
        let named = roles.inputs.contains(&role) || roles.rows.contains(&role) || roles.texts.contains(&role);
        match v {
            Value::String(s) if named => *v = one(ws, &s.clone())?,
            Value::Array(items) if named => {
                for item in items.iter_mut() {
                    if let Value::String(s) = item {
                        *item = one(ws, &s.clone())?;
                    }
                }
            }
            // RULER's runs: each an object of inputs.
            Value::Array(items) if role == "runs" => {
                for item in items.iter_mut() {
                    if let Value::Object(m) = item {
                        resolve_map(ws, roles, m)?;
                    }
                }
            }
            _ => {}
        }
    }
    // `lethe inspect FILE`: the request's `source`.
    if roles.texts.contains(&"file")
        && let Some(file) = map.remove("file")
    {
        map.insert("source".into(), file);
    }
    Ok(())
}

/// Serialization to JSON without naming each input type.
mod erased {
    use super::{Error, Result, Value};
    pub trait Ser {
        fn value(&self) -> Result<Value>;
    }
    impl<T: serde::Serialize> Ser for T {
        fn value(&self) -> Result<Value> {
            serde_json::to_value(self).map_err(|e| Error::msg(format!("internal error: {e}")))
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

/// The field names of a request type, as serde's derive lists them (read by a deserializer that only asks).
pub fn fields<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
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

/// The options `command`'s request takes (its keys, inputs included).
///
/// # Errors
/// An unknown command.
pub fn options(command: &str) -> Result<&'static [&'static str]> {
    use crate::analyses::*;
    roles(command)?;
    Ok(match command {
        "sde" => fields::<SdeRequest>(),
        "calibrate" => fields::<CalibrateRequest>(),
        "ruler" => fields::<RulerRequest>(),
        "epsilon" => fields::<EpsilonRequest>(),
        "bounds" | "rouge" => fields::<BoundsRequest>(),
        "hsic" => fields::<HsicRequest>(),
        "mwu" => fields::<MwuRequest>(),
        "wilcoxon" => fields::<WilcoxonRequest>(),
        "jsd" => fields::<JsdRequest>(),
        "mmd" => fields::<MmdRequest>(),
        "wasserstein" => fields::<WassersteinRequest>(),
        "mia" => fields::<MiaRequest>(),
        "lira" => fields::<LiraRequest>(),
        "eps-lower" => fields::<EpsAuditRequest>(),
        "fdr" => fields::<FdrRequest>(),
        "forget-quality" => fields::<ForgetQualityRequest>(),
        "privleak" => fields::<PrivleakRequest>(),
        "tool-rouge" => fields::<ToolRougeRequest>(),
        "compare" => fields::<CompareRequest>(),
        _ => &["file"],
    })
}

/// Keys a front end must not set: the browser's pooled-run parts, the backend (this path runs on the CPU), LiRA's
/// directory files (listed from its `dir` by [`resolve`]).
const INTERNAL: &[&str] = &["part", "assemble", "backend", "files"];

/// `key` is not an option of `command`: the usage error naming the options it has.
fn unknown_option(command: &str, key: &str) -> Error {
    let known = options(command).unwrap_or(&[]);
    let shown: Vec<&str> = known.iter().copied().filter(|k| !INTERNAL.contains(k)).collect();
    Error::msg(format!(
        "`{command}` has no option `{key}`; its options are {}",
        shown.join(", ")
    ))
    .usage()
}

fn parse<'de, T: Deserialize<'de>>(command: &str, request: &'de Value) -> Result<T> {
    let known = options(command)?;
    if let Value::Object(map) = request {
        for key in map.keys() {
            // What [`resolve`] writes: inspect's `source`, LiRA's `files` (from its `dir`).
            let ok = (known.contains(&key.as_str()) && !INTERNAL.contains(&key.as_str()))
                || (command == "inspect" && key == "source")
                || (command == "lira" && key == "files");
            if !ok {
                return Err(unknown_option(command, key));
            }
        }
    }
    T::deserialize(request).map_err(|e| {
        // serde's message names no field ("invalid type: map, expected a sequence"): the option it is about is the
        // first whose value alone (every other option at its default or missing) cannot be read either.
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

/// The defaults of the CLI's subcommands that `command`'s request type does not have: calibrate's `size` (100),
/// rouge's `bounds` (off: `lethe rouge` computes the leakage bounds only with `--bounds`), eps-lower's `method`
/// (the one-run audit when its counts or guesses are given, else Clopper–Pearson). Keys already set are kept.
pub fn defaults(command: &str, request: &mut Value) {
    let Value::Object(m) = request else {
        return;
    };
    match command {
        "calibrate" => {
            m.entry("size").or_insert(Value::from(100));
        }
        "rouge" => {
            m.entry("bounds").or_insert(Value::Bool(false));
        }
        "eps-lower" if !m.contains_key("method") => {
            let one_run = ["one_run", "guess_members"]
                .iter()
                .any(|k| m.get(*k).is_some_and(|v| !v.is_null()));
            m.insert(
                "method".into(),
                Value::from(if one_run { "one-run" } else { "clopper-pearson" }),
            );
        }
        _ => {}
    }
}

/// A bootstrap's `(done, total)` resamples as the monitor's progress (MIA's and LiRA's audits).
fn bootstrap_progress<'a>(monitor: &'a mut dyn FnMut(&Progress) -> bool) -> impl FnMut(usize, usize) -> bool + 'a {
    move |done, total| {
        #[allow(clippy::cast_precision_loss)]
        let fraction = if total > 0 { done as f64 / total as f64 } else { 1.0 };
        monitor(&Progress {
            fraction,
            phase: "bootstrap resamples".into(),
        })
    }
}

fn json<T: serde::Serialize>(v: &T) -> Result<Value> {
    serde_json::to_value(v).map_err(|e| Error::msg(format!("writing the report: {e}")))
}

/// Runs `command` on `request` (a JSON object, inputs already [`resolve`]d) in `ws` as the CLI's subcommand does,
/// and returns the report `lethe <command> … --json` prints.
///
/// # Errors
/// A refused or malformed request, an input's problem, the core's errors: the layer's errors, unchanged.
pub fn run(ws: &mut Workspace, command: &str, request: &Value, ctl: &mut Control<'_>) -> Result<Value> {
    use crate::analyses::*;
    ws.set_hash_all(true);
    ws.set_in_place(ctl.in_place);
    let threads = ctl.threads.max(1);
    let monitor = &mut *ctl.monitor;
    let mut request = request.clone();
    defaults(command, &mut request);
    let request = &request;
    match command {
        "sde" => {
            let req: SdeRequest = parse(command, request)?;
            let job = prepare_sde_exact_f32(ws, &req)?;
            let out = job.run_threaded_with(threads, &mut |p| monitor(p))?;
            json(&out.report())
        }
        "calibrate" => {
            let req: CalibrateRequest = parse(command, request)?;
            calibrate_data_rows(ws, &req)?;
            let job = prepare_calibrate(ws, &req)?;
            let out = job.run_threaded_with(threads, &mut |p| monitor(p))?;
            json(&out.report())
        }
        "ruler" => {
            let req: RulerRequest = parse(command, request)?;
            json(&ruler(ws, &req)?.report())
        }
        "epsilon" => {
            let req: EpsilonRequest = parse(command, request)?;
            json(&epsilon(ws, &req)?.report())
        }
        "bounds" => {
            let req: BoundsRequest = parse(command, request)?;
            json(&bounds(ws, &req)?.report())
        }
        "rouge" => {
            let req: BoundsRequest = parse(command, request)?;
            if req.predictions.is_none() {
                return Err(Error::msg("rouge: give the generations (predictions), one per line").usage());
            }
            if req.reference.is_none() && req.reference_text.is_none() {
                return Err(Error::msg("give --reference FILE or --reference-text TEXT").usage());
            }
            json(&bounds(ws, &req)?.report())
        }
        "hsic" => {
            let req: HsicRequest = parse(command, request)?;
            if !matches!(req.backend.as_str(), "" | "cpu") {
                return Err(Error::msg("this runs HSIC on the CPU; use the CLI's --backend gpu for the GPU").usage());
            }
            let job = prepare_hsic(ws, &req)?;
            json(&job.run_threaded(threads, &mut |p| monitor(p))?)
        }
        "mwu" => json(&run_mwu(ws, &parse(command, request)?)?),
        "wilcoxon" => json(&run_wilcoxon(ws, &parse(command, request)?)?),
        "jsd" => json(&run_jsd(ws, &parse(command, request)?)?),
        "mmd" => json(&run_mmd(ws, &parse(command, request)?)?),
        "wasserstein" => json(&run_wasserstein(ws, &parse(command, request)?)?),
        "mia" => {
            let req: MiaRequest = parse(command, request)?;
            let job = prepare_mia(ws, &req)?;
            json(&job.run(threads, &mut bootstrap_progress(monitor))?)
        }
        "lira" => {
            let req: LiraRequest = parse(command, request)?;
            let job = prepare_lira(ws, &req)?;
            json(&job.run(threads, &mut bootstrap_progress(monitor))?)
        }
        "eps-lower" => json(&eps_audit(ws, &parse(command, request)?)?),
        "fdr" => json(&run_fdr(ws, &parse(command, request)?)?),
        "inspect" => {
            let req: InspectRequest = parse(command, request)?;
            json(&run_inspect(ws, &req)?)
        }
        "forget-quality" => json(&run_forget_quality(ws, &parse(command, request)?)?),
        "privleak" => json(&run_privleak(ws, &parse(command, request)?)?),
        "tool-rouge" => json(&run_tool_rouge(ws, &parse(command, request)?)?),
        "compare" => json(&run_compare(ws, &parse(command, request)?)?),
        other => Err(roles(other)
            .err()
            .unwrap_or_else(|| Error::msg(format!("unknown analysis `{other}`")))),
    }
}

/// [`resolve`] then [`run`]: a request written as the CLI writes its inputs, in a fresh workspace.
///
/// # Errors
/// As [`resolve`] and [`run`].
pub fn run_resolved(command: &str, mut request: Value, ctl: &mut Control<'_>) -> Result<Value> {
    let mut ws = Workspace::new();
    resolve(&mut ws, command, &mut request)?;
    run(&mut ws, command, &request, ctl)
}

/// `request` read as `command`'s typed request, its keys checked as [`run`] checks them (the value is dropped).
fn check(command: &str, request: &Value) -> Result<()> {
    use crate::analyses::*;
    fn p<'de, T: Deserialize<'de>>(command: &str, request: &'de Value) -> Result<()> {
        parse::<T>(command, request).map(drop)
    }
    match command {
        "sde" => p::<SdeRequest>(command, request),
        "calibrate" => p::<CalibrateRequest>(command, request),
        "ruler" => p::<RulerRequest>(command, request),
        "epsilon" => p::<EpsilonRequest>(command, request),
        "bounds" | "rouge" => p::<BoundsRequest>(command, request),
        "hsic" => p::<HsicRequest>(command, request),
        "mwu" => p::<MwuRequest>(command, request),
        "wilcoxon" => p::<WilcoxonRequest>(command, request),
        "jsd" => p::<JsdRequest>(command, request),
        "mmd" => p::<MmdRequest>(command, request),
        "wasserstein" => p::<WassersteinRequest>(command, request),
        "mia" => p::<MiaRequest>(command, request),
        "lira" => p::<LiraRequest>(command, request),
        "eps-lower" => p::<EpsAuditRequest>(command, request),
        "fdr" => p::<FdrRequest>(command, request),
        "inspect" => p::<InspectRequest>(command, request),
        "forget-quality" => p::<ForgetQualityRequest>(command, request),
        "privleak" => p::<PrivleakRequest>(command, request),
        "tool-rouge" => p::<ToolRougeRequest>(command, request),
        "compare" => p::<CompareRequest>(command, request),
        other => Err(roles(other)
            .err()
            .unwrap_or_else(|| Error::msg(format!("unknown analysis `{other}`")))),
    }
}

/// A request for the analysis layer in a notebook's browser (the wasm module's `run(analysis, request)`): in a
/// fresh workspace, the inputs written as the CLI writes them are [`resolve`]d (strings at input, row and text
/// roles; values already `{"source": N}` — arrays the caller sends itself, numbered from 0 — are left alone),
/// [`defaults`] applied, and the keys and values checked as [`run`] checks them. Returns the request and every file
/// the workspace opened, as (source id, path), by id: the caller reads their bytes and adds them to the browser's
/// workspace under those ids (file ids start at 2^30, so they never meet the arrays' ids).
///
/// # Errors
/// As [`resolve`]; an unknown option or a malformed value (the usage errors [`run`] gives).
pub fn browser_request(command: &str, mut request: Value) -> Result<(Value, Vec<(u32, std::path::PathBuf)>)> {
    let mut ws = Workspace::new();
    resolve(&mut ws, command, &mut request)?;
    defaults(command, &mut request);
    check(command, &request)?;
    let mut files: Vec<(u32, std::path::PathBuf)> = ws.paths().map(|(id, p)| (id, p.to_path_buf())).collect();
    files.sort_unstable_by_key(|f| f.0);
    Ok((request, files))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_that_cannot_be_read_names_its_option() {
        // serde names no field: the error's input is the option whose value is wrong, wherever it stands.
        let req = serde_json::json!({"data": {"source": 0}, "refs": 4, "target": {"x": 1}, "size": 40});
        let e = check("calibrate", &req).unwrap_err();
        assert_eq!(e.input.as_deref(), Some("target"), "{}", e.message);
        assert!(e.usage && e.message.contains("expected a sequence"), "{}", e.message);
        let e = check("mwu", &serde_json::json!({"alternative": "less", "no_continuity": 3})).unwrap_err();
        assert_eq!(e.input.as_deref(), Some("no_continuity"), "{}", e.message);
        // An unknown option is still its own error.
        assert!(
            check("mwu", &serde_json::json!({"nope": 1}))
                .unwrap_err()
                .input
                .is_none()
        );
    }

    #[test]
    fn lists_a_requests_fields() {
        let f = fields::<crate::analyses::MwuRequest>();
        assert!(f.contains(&"alternative") && f.contains(&"no_continuity") && f.contains(&"x"));
        assert_eq!(options("inspect").unwrap(), &["file"]);
        assert!(roles("nope").is_err());
    }

    #[test]
    fn ruler_models_at_the_top_become_runs() {
        let mut m = serde_json::json!({"unlearned": ["u1", "u2"], "oracle": ["o1", "o2"], "forget": "0..3"});
        let Value::Object(map) = &mut m else { unreachable!() };
        flat_ruler_runs(map).unwrap();
        assert_eq!(
            m,
            serde_json::json!({"forget": "0..3", "runs": [{"unlearned": "u1", "oracle": "o1"}, {"unlearned": "u2", "oracle": "o2"}]})
        );
        let mut one = serde_json::json!({"unlearned": {"source": 0}, "original": {"source": 1}});
        let Value::Object(map) = &mut one else { unreachable!() };
        flat_ruler_runs(map).unwrap();
        assert_eq!(
            one,
            serde_json::json!({"runs": [{"unlearned": {"source": 0}, "original": {"source": 1}}]})
        );
        let mut bad = serde_json::json!({"unlearned": ["u1", "u2"], "oracle": "o1"});
        let Value::Object(map) = &mut bad else { unreachable!() };
        let e = flat_ruler_runs(map).unwrap_err();
        assert!(
            e.message
                .contains("`oracle` was given 1 time(s) but `unlearned` 2 time(s)"),
            "{}",
            e.message
        );
        let mut both = serde_json::json!({"unlearned": "u", "runs": []});
        let Value::Object(map) = &mut both else { unreachable!() };
        assert!(flat_ruler_runs(map).is_err());
    }

    #[test]
    fn refuses_an_unknown_option_naming_the_known_ones() {
        let e = parse::<crate::analyses::MwuRequest>("mwu", &serde_json::json!({"alternativ": "less"})).unwrap_err();
        assert!(e.message.contains("no option `alternativ`"), "{}", e.message);
        assert!(e.message.contains("alternative"), "{}", e.message);
        assert!(e.usage);
    }

    fn fixture(rel: &str) -> String {
        format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"))
    }

    /// A request resolved in `ws` (inputs written as the CLI writes them), defaults applied, parsed.
    fn request<T: serde::de::DeserializeOwned>(ws: &mut Workspace, command: &str, mut v: Value) -> T {
        resolve(ws, command, &mut v).unwrap();
        defaults(command, &mut v);
        parse::<T>(command, &v).unwrap()
    }

    #[test]
    fn a_reports_plots_are_its_outputs() {
        // What lethe.show draws from a report alone (plots::of_report) is what the page draws from the analysis's
        // output: the same counts, edges and bands, for every analysis whose report holds its plotted values.
        use crate::analyses::*;
        use crate::plots::of_report;
        let v = |x: &dyn erased::Ser| x.value().unwrap();
        let d = |f: &str| fixture(&format!("examples/data/digits/{f}"));
        let mut ws = Workspace::new();
        let req: RulerRequest = request(
            &mut ws,
            "ruler",
            serde_json::json!({"unlearned": [d("act_unlearned.npy"), d("act_original.npy")], "oracle": [d("act_retrained.npy"), d("act_retrained.npy")], "forget": d("forget.txt"), "retain": d("retain.txt")}),
        );
        let out = ruler(&mut ws, &req).unwrap();
        let plots = of_report(&v(&out.report()));
        assert_eq!(plots["rank_histograms"], v(&out.rank_histograms));
        assert_eq!(out.rank_histograms.len(), 2);

        let mut ws = Workspace::new();
        let req: SdeRequest = request(
            &mut ws,
            "sde",
            serde_json::json!({"in_training": format!("{}@144..244", d("act_unlearned.npy")), "out_of_training": format!("{}@544..644", d("act_unlearned.npy")), "target": [format!("{}@0..100", d("act_unlearned.npy")), format!("{}@300..400", d("act_unlearned.npy"))], "shuffles": 20, "seed": 1}),
        );
        let out = prepare_sde_exact_f32(&mut ws, &req)
            .unwrap()
            .run_threaded_with(1, &mut |_| true)
            .unwrap();
        assert_eq!(of_report(&v(&out.report()))["histograms"], v(&out.histograms));
        assert!(out.histograms.is_some());

        let g: Value =
            serde_json::from_str(&std::fs::read_to_string(fixture("tests/fixtures/golden/neurips2023.json")).unwrap())
                .unwrap();
        let case = &g["forgetting_quality_case"];
        let mut ws = Workspace::new();
        ws.add(
            0,
            "r.json",
            std::sync::Arc::new(case["retrained_confs"].to_string().into_bytes()),
        );
        ws.add(
            1,
            "u.json",
            std::sync::Arc::new(case["unlearned_confs"].to_string().into_bytes()),
        );
        let req: EpsilonRequest = request(
            &mut ws,
            "epsilon",
            serde_json::json!({"retrained": {"source": 0}, "unlearned": {"source": 1}}),
        );
        let out = epsilon(&mut ws, &req).unwrap();
        assert_eq!(of_report(&v(&out.report()))["plots"], v(&out.plots));
        assert!(!out.plots.is_empty());

        let mut ws = Workspace::new();
        ws.add(
            0,
            "gen.txt",
            std::sync::Arc::new(b"the cat sat on the mat\na dog ran\nthe cat ran on a mat\n".to_vec()),
        );
        ws.add(1, "ref.txt", std::sync::Arc::new(b"the cat sat on the mat\n".to_vec()));
        let req: BoundsRequest = request(
            &mut ws,
            "rouge",
            serde_json::json!({"predictions": {"kind": "source", "source": 0}, "reference": {"kind": "source", "source": 1}, "bounds": true}),
        );
        let out = bounds(&mut ws, &req).unwrap();
        assert_eq!(of_report(&v(&out.report()))["ecdf"], v(&out.ecdf));
        assert!(out.ecdf.is_some());
    }

    #[test]
    fn a_browser_request_lists_the_files_it_opened() {
        let npy = fixture("examples/data/digits/act_unlearned.npy");
        let (req, files) = browser_request(
            "mwu",
            serde_json::json!({"x": format!("{npy}@0..10"), "y": {"source": 0}}),
        )
        .unwrap();
        assert_eq!(files.len(), 1);
        let (id, path) = &files[0];
        assert_eq!(path, std::path::Path::new(&npy));
        assert_eq!(req["x"]["source"], Value::from(*id));
        assert_eq!(req["x"]["rows"]["text"], "0..10", "{req}");
        assert_eq!(req["y"], serde_json::json!({"source": 0}));
        let e = browser_request("mwu", serde_json::json!({"x": {"source": 0}, "alternativ": "less"})).unwrap_err();
        assert!(e.message.contains("no option `alternativ`") && e.usage, "{}", e.message);
        // A malformed value fails here, not in the browser.
        let e = browser_request("mwu", serde_json::json!({"x": {"source": 0}, "no_continuity": 3})).unwrap_err();
        assert!(e.usage, "{}", e.message);
        let (req, files) = browser_request(
            "calibrate",
            serde_json::json!({"data": {"source": 0}, "it_pool": "0..40", "oot_pool": "40..80"}),
        )
        .unwrap();
        assert_eq!(req["size"], 100);
        assert!(files.is_empty());
    }

    #[test]
    fn tool_files_and_a_lira_folder_resolve_as_the_cli_reads_them() {
        let eval = fixture("tests/fixtures/tools/open_unlearning/unlearned/TOFU_EVAL.json");
        let (req, files) = browser_request(
            "tool-rouge",
            serde_json::json!({"file": format!("{eval}#forget_Q_A_ROUGE")}),
        )
        .unwrap();
        assert_eq!(req["file"]["tensor"], "forget_Q_A_ROUGE", "{req}");
        assert_eq!(files.len(), 1);
        let e = browser_request("lira", serde_json::json!({"files": [1]})).unwrap_err();
        assert!(
            e.message.contains("no option `files`") && e.message.contains("dir"),
            "{}",
            e.message
        );
        let e = browser_request("lira", serde_json::json!({"dir": "/no/such/folder"})).unwrap_err();
        assert!(e.message.contains("is not a directory") && e.usage, "{}", e.message);
    }
}
