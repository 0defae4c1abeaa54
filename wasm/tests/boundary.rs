//! The wasm-bindgen boundary of lethe-web, in headless Chromium: on the main thread
//! (`WASM_BINDGEN_USE_BROWSER=1 cargo test --target wasm32-unknown-unknown --test boundary`) and inside a dedicated
//! worker (`WASM_BINDGEN_USE_DEDICATED_WORKER=1 ...`), where the page runs it. The file has no
//! `wasm_bindgen_test_configure!` on purpose: the runner honours those variables only without it (build.sh sets
//! them; with neither, the tests run in Node). Checks that values cross as plain objects, that errors are thrown as `Error`s naming their input, that
//! a JavaScript checkpoint returning a Promise can stop an SDE run (partial result), and — in a worker — that
//! `File`/`Blob` sources are read in slices with `FileReaderSync` and give the same bytes as an in-memory copy.
//!
//! Numbers: the digits demo (`examples/data/digits`, the repository's real MLP activations); the values asserted
//! are the CLI's on the same rows (`lethe sde --it act_unlearned.npy@144..244 --oot act_unlearned.npy@544..644
//! --target act_unlearned.npy@0..100`, `lethe ruler ... --forget forget.txt --retain retain.txt`), printed with
//! six decimals.
#![cfg(target_arch = "wasm32")]
// A panic is how a test reports failure (clippy's allow-unwrap-in-tests does not see #[wasm_bindgen_test]).
#![allow(clippy::unwrap_used)]

use js_sys::{Array, Function, Reflect, Uint8Array};
use lethe_web::wasm;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

const ACT: &[u8] = include_bytes!("../../examples/data/digits/act_unlearned.npy");
const ORACLE: &[u8] = include_bytes!("../../examples/data/digits/act_retrained.npy");
const FORGET: &[u8] = include_bytes!("../../examples/data/digits/forget.txt");
const RETAIN: &[u8] = include_bytes!("../../examples/data/digits/retain.txt");

fn get(v: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(v.clone(), |o, k| match k.parse::<u32>() {
        Ok(i) => Reflect::get_u32(&o, i).unwrap_or(JsValue::UNDEFINED),
        Err(_) => Reflect::get(&o, &k.into()).unwrap_or(JsValue::UNDEFINED),
    })
}

fn json(s: &str) -> JsValue {
    js_sys::JSON::parse(s).expect("valid JSON in the test")
}

fn f(args: &str, body: &str) -> Function {
    Function::new_with_args(args, body)
}

fn in_worker() -> bool {
    Reflect::has(&js_sys::global(), &"FileReaderSync".into()).unwrap_or(false)
}

fn sde_request(source: u32) -> JsValue {
    json(&format!(
        r#"{{"in_training": {{"source": {source}, "rows": {{"kind": "text", "text": "144..244"}}}},
            "out_of_training": {{"source": {source}, "rows": {{"kind": "text", "text": "544..644"}}}},
            "target": [{{"source": {source}, "rows": {{"kind": "text", "text": "0..100"}}}}],
            "shuffles": 200, "seed": 0}}"#
    ))
}

#[wasm_bindgen_test]
fn version_and_limit_cross_as_plain_values() {
    assert_eq!(wasm::version(), env!("CARGO_PKG_VERSION"));
    assert_eq!(wasm::max_bytes(), f64::from(1u32 << 30));
}

#[wasm_bindgen_test]
fn inspect_returns_a_plain_object() {
    wasm::add_bytes(1, ACT.to_vec(), "act_unlearned.npy").unwrap();
    let info = wasm::inspect(1).unwrap();
    assert!(info.is_object() && !info.is_instance_of::<js_sys::Map>());
    assert_eq!(get(&info, "info.format").as_string().as_deref(), Some("npy"));
    assert_eq!(
        get(&info, "info.arrays.0.dtype").as_string().as_deref(),
        Some("float32")
    );
    assert_eq!(get(&info, "info.arrays.0.shape.0").as_f64(), Some(744.0));
    assert_eq!(get(&info, "info.arrays.0.shape.1").as_f64(), Some(128.0));
    assert!(get(&info, "over_limit").is_null());
}

#[wasm_bindgen_test]
fn errors_are_js_errors_naming_their_input() {
    wasm::add_bytes(2, b"\x93NUMPY\x01\x00\xff\xff{'descr'".to_vec(), "broken.npy").unwrap();
    let e = wasm::inspect(2).unwrap_err();
    assert!(e.is_instance_of::<js_sys::Error>());
    assert_eq!(get(&e, "input").as_string().as_deref(), Some("source:2"));
    assert!(get(&e, "message").as_string().unwrap().contains("broken.npy"));

    wasm::add_bytes(3, ACT.to_vec(), "act.npy").unwrap();
    let bad_rows = json(r#"{"source": 3, "rows": {"kind": "text", "text": "700..800"}}"#);
    let e = wasm::load_input("target", bad_rows).unwrap_err();
    assert_eq!(get(&e, "input").as_string().as_deref(), Some("target"));
    let msg = get(&e, "message").as_string().unwrap();
    // A typed range is checked against the file's header before any index is made.
    assert!(
        msg.contains("rows 700..800 are out of range") && msg.contains("744 rows"),
        "{msg}"
    );

    let e = wasm::add_matrix_f64(4, &[1.0, 2.0, 3.0], 2, 2, "m").unwrap_err();
    assert_eq!(get(&e, "input").as_string().as_deref(), Some("source:4"));
}

#[wasm_bindgen_test]
async fn sde_runs_and_matches_the_cli() {
    wasm::add_bytes(10, ACT.to_vec(), "act_unlearned.npy").unwrap();
    let calls = Array::new();
    let cb = f("p", "this.push(p.fraction); return Promise.resolve(true);").bind0(&calls);
    let out = wasm::run("sde".into(), sde_request(10), cb).await.unwrap();
    let r = get(&out, "result");
    assert_eq!(get(&r, "complete").as_bool(), Some(true));
    let v = get(&r, "targets.0.verdict");
    assert_eq!(format!("{:.6}", get(&v, "jsd_target_it").as_f64().unwrap()), "0.068130");
    assert_eq!(
        format!("{:.6}", get(&v, "jsd_target_oot").as_f64().unwrap()),
        "0.089118"
    );
    assert_eq!(get(&v, "in_training").as_bool(), Some(true));
    assert_eq!(
        get(&r, "in_training_reference.values")
            .unchecked_into::<Array>()
            .length(),
        200
    );
    assert_eq!(
        get(&out, "inputs.0.spec").as_string().as_deref(),
        Some("act_unlearned.npy@144..244")
    );
    assert_eq!(get(&out, "histograms.series").unchecked_into::<Array>().length(), 3);
    assert!(calls.length() >= 1, "the checkpoint was called");
}

#[wasm_bindgen_test]
async fn a_checkpoint_answering_false_stops_sde_with_a_partial_report() {
    wasm::add_bytes(11, ACT.to_vec(), "act_unlearned.npy").unwrap();
    let stop = f("p", "return new Promise((r) => setTimeout(() => r(false), 0));");
    let req = sde_request(11);
    Reflect::set(&req, &"shuffles".into(), &5000.into()).unwrap();
    let out = wasm::run("sde".into(), req, stop).await.unwrap();
    let r = get(&out, "result");
    assert_eq!(get(&r, "complete").as_bool(), Some(false));
    let done = get(&r, "in_training_reference.values")
        .unchecked_into::<Array>()
        .length();
    assert!(done > 0 && done < 5000, "partial: {done} shuffles");
    assert_eq!(get(&r, "targets").unchecked_into::<Array>().length(), 0);
}

#[wasm_bindgen_test]
async fn ruler_bounds_and_epsilon_cross_the_boundary() {
    wasm::add_bytes(20, ACT.to_vec(), "act_unlearned.npy").unwrap();
    wasm::add_bytes(21, ORACLE.to_vec(), "act_retrained.npy").unwrap();
    wasm::add_bytes(22, FORGET.to_vec(), "forget.txt").unwrap();
    wasm::add_bytes(23, RETAIN.to_vec(), "retain.txt").unwrap();
    let req = json(
        r#"{"runs": [{"unlearned": {"source": 20}, "oracle": {"source": 21}}],
            "forget": {"kind": "file", "source": 22}, "retain": {"kind": "file", "source": 23}}"#,
    );
    let out = wasm::run("ruler".into(), req, f("", "return true")).await.unwrap();
    let m = get(&out, "result.runs.0");
    assert_eq!(
        format!("{:.6}", get(&m, "oracle_similarity").as_f64().unwrap()),
        "0.968642"
    );
    assert_eq!(
        format!("{:.6}", get(&m, "nn_percentile_rank.value").as_f64().unwrap()),
        "0.431667"
    );
    assert!(get(&m, "representation_shift").is_null(), "m3 needs the original model");

    // Scores 0/1 give M_bin; ECDF band comes back with its points.
    wasm::add_matrix_f32(24, &[0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], 8, 1, "flags").unwrap();
    let out = wasm::run(
        "bounds".into(),
        json(r#"{"scores": {"source": 24}}"#),
        f("", "return true"),
    )
    .await
    .unwrap();
    assert_eq!(get(&out, "command").as_string().as_deref(), Some("bounds"));
    assert_eq!(get(&out, "result.binary.leaks").as_f64(), Some(2.0));
    assert_eq!(get(&out, "ecdf.x").unchecked_into::<Array>().length(), 2);

    // Perfect separation: the exhaustive variant's epsilon is infinite and crosses as the string "inf".
    let r = [5.0, 5.1, 5.2, 5.3];
    let u = [0.0, 0.1, 0.2, 0.3];
    wasm::add_matrix_f64(25, &r, 4, 1, "r").unwrap();
    wasm::add_matrix_f64(26, &u, 4, 1, "u").unwrap();
    let req = json(r#"{"retrained": {"source": 25}, "unlearned": {"source": 26}, "variant": "exhaustive"}"#);
    let out = wasm::run("epsilon".into(), req, f("", "return true")).await.unwrap();
    assert_eq!(
        get(&out, "result.results.0.per_example.0.epsilon")
            .as_string()
            .as_deref(),
        Some("inf")
    );
    assert_eq!(get(&out, "plots.0.infinite").as_f64(), Some(1.0));
}

#[wasm_bindgen_test]
fn synthetic_examples_come_back_as_bytes() {
    let s = wasm::synthetic("competition", 0).unwrap();
    let files = get(&s, "files").unchecked_into::<Array>();
    assert_eq!(files.length(), 2);
    let bytes = get(&files.get(0), "bytes").unchecked_into::<Uint8Array>();
    assert_eq!(bytes.get_index(0), 0x93);
    assert!(wasm::synthetic("nope", 0).is_err());
}

#[wasm_bindgen_test]
fn blobs_are_read_in_slices_in_a_worker_and_refused_elsewhere() {
    let parts = Array::of1(&Uint8Array::from(ACT));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).unwrap();
    let r = wasm::add_file(30, blob, "act_unlearned.npy");
    if !in_worker() {
        let e = r.unwrap_err();
        assert!(get(&e, "message").as_string().unwrap().contains("Web Worker"));
        return;
    }
    r.unwrap();
    console_log!("in a dedicated worker: reading a Blob with FileReaderSync");
    wasm::add_bytes(31, ACT.to_vec(), "copy.npy").unwrap();
    let progress = Array::new();
    let cb = f("d, t", "this.push(d); return undefined;").bind0(&progress);
    let a = wasm::sha256(30, &cb).unwrap();
    let b = wasm::sha256(31, &f("", "")).unwrap();
    assert_eq!(a, b);
    assert!(a.starts_with("79e07db4bb9dfc32"), "{a}");
    assert!(progress.length() >= 1);
    let rows = json(r#"{"source": 30, "rows": {"kind": "text", "text": "3,1"}}"#);
    let s = wasm::load_input("x", rows).unwrap();
    assert_eq!(get(&s, "rows").as_f64(), Some(2.0));
    assert_eq!(get(&s, "record.sha256").as_string(), Some(b));
}
