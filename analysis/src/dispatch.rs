//! Every analysis by its name, with its request as JSON: what `lethe batch` runs for each line of a manifest and
//! what the Python package runs for each call, so neither repeats the steps between a request and its report.
//!
//! A request is the analysis's serde `Request` (the CLI's option names and defaults) as a JSON object, in which an
//! input may be written as the CLI writes it: a string `PATH[#TENSOR][@ROWS]` where the request takes an input,
//! a row text (`a..b`, `i,j,k`, an index file, `FILE==VALUE`) where it takes rows, a path where it takes a text file
//! ([`resolve`] turns them into the workspace's sources). Keys the request does not have are refused with the list
//! of those it has ([`fields`]), so a misspelt option is never silently ignored. [`run`] then calls the layer as the
//! CLI's subcommand does and returns the report that `lethe … --json` prints, as JSON.

use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::registry;
use crate::workspace::Workspace;

pub use crate::registry::{Control, Roles, fields};

/// The analyses, as the CLI's subcommands: the registry's names.
#[must_use]
pub fn commands() -> Vec<&'static str> {
    registry::names().collect()
}

/// The analyses the page computes too (the notebook widget runs them in the browser): those of
/// [`crate::browser::each`], in the registry's order.
#[must_use]
pub fn browser_commands() -> Vec<&'static str> {
    let page = crate::browser::names();
    registry::names().filter(|n| page.contains(n)).collect()
}

/// The roles of `command`'s request (the request's own keys; RULER's inputs are inside each of its `runs`).
///
/// # Errors
/// An unknown command, with the list of the known ones.
pub fn roles(command: &str) -> Result<Roles> {
    Ok(registry::lookup(command)?.roles)
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
    let entry = registry::lookup(command)?;
    let Value::Object(map) = request else {
        return Err(Error::msg(format!("the options of `{command}` must be a JSON object")).usage());
    };
    (entry.resolve)(ws, map)?;
    resolve_map(ws, &entry.roles, map)
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

/// The options `command`'s request takes (its keys, inputs included).
///
/// # Errors
/// An unknown command.
pub fn options(command: &str) -> Result<&'static [&'static str]> {
    Ok((registry::lookup(command)?.options)())
}

#[cfg(test)]
fn parse<T: serde::de::DeserializeOwned>(command: &str, request: &Value) -> Result<T> {
    registry::lookup(command)?.parse(request)
}

/// The defaults of the CLI's subcommands that `command`'s request type does not have (calibrate's `size`, rouge's
/// `bounds`: each analysis's own). Keys already set are kept.
pub fn defaults(command: &str, request: &mut Value) {
    if let (Ok(entry), Value::Object(m)) = (registry::lookup(command), request) {
        (entry.defaults)(m);
    }
}

/// Runs `command` on `request` (a JSON object, inputs already [`resolve`]d) in `ws` as the CLI's subcommand does,
/// and returns the report `lethe <command> … --json` prints.
///
/// # Errors
/// A refused or malformed request, an input's problem, the core's errors: the layer's errors, unchanged.
pub fn run(ws: &mut Workspace, command: &str, request: &Value, ctl: &mut Control<'_>) -> Result<Value> {
    ws.set_hash_all(true);
    ws.set_in_place(ctl.in_place);
    let entry = registry::lookup(command)?;
    let mut request = request.clone();
    defaults(command, &mut request);
    (entry.run)(ws, &request, ctl)
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
    (registry::lookup(command)?.check)(request)
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
        crate::analyses::flat_ruler_runs(map).unwrap();
        assert_eq!(
            m,
            serde_json::json!({"forget": "0..3", "runs": [{"unlearned": "u1", "oracle": "o1"}, {"unlearned": "u2", "oracle": "o2"}]})
        );
        let mut one = serde_json::json!({"unlearned": {"source": 0}, "original": {"source": 1}});
        let Value::Object(map) = &mut one else { unreachable!() };
        crate::analyses::flat_ruler_runs(map).unwrap();
        assert_eq!(
            one,
            serde_json::json!({"runs": [{"unlearned": {"source": 0}, "original": {"source": 1}}]})
        );
        let mut bad = serde_json::json!({"unlearned": ["u1", "u2"], "oracle": "o1"});
        let Value::Object(map) = &mut bad else { unreachable!() };
        let e = crate::analyses::flat_ruler_runs(map).unwrap_err();
        assert!(
            crate::words::cli(&e.message).contains("`oracle` was given 1 time(s) but `unlearned` 2 time(s)"),
            "{}",
            e.message
        );
        let mut both = serde_json::json!({"unlearned": "u", "runs": []});
        let Value::Object(map) = &mut both else { unreachable!() };
        assert!(crate::analyses::flat_ruler_runs(map).is_err());
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
