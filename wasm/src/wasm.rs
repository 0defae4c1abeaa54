//! The `#[wasm_bindgen]` exports (wasm32 only): parse → call → convert.
//!
//! State (sources, loaded inputs) lives in one thread-local [`Workspace`] of the worker. No borrow of it is held
//! across an `await`, so while an analysis yields to the event loop the worker can still add, inspect and hash
//! files, and receive a cancellation.
//!
//! Errors are thrown as JavaScript `Error`s with an extra `input` property naming the page control the problem
//! concerns (a documented deviation from plain `JsError`, which cannot carry it; the page shows the message next to
//! that input).

use std::cell::RefCell;
use std::future::Future;
use std::io;
use std::pin::Pin;

#[cfg(feature = "full")]
use js_sys::Array;
use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use lethe::data::ByteSource;
use lethe::progress::{Monitor, Progress};
use serde::{Serialize, de::DeserializeOwned};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[cfg(feature = "full")]
use crate::analyses::SdeRequest;
use crate::analyses::{self, BackendChoice};
use crate::browser::{self, BackendJob, Compute, InBrowser, Visit};
use crate::workspace::{InputRef, MAX_BYTES, Workspace};
use crate::{WebError, WebResult};

thread_local! {
    static WS: RefCell<Workspace> = RefCell::new(Workspace::new());
}

fn with_ws<T>(f: impl FnOnce(&mut Workspace) -> WebResult<T>) -> WebResult<T> {
    WS.with(|ws| match ws.try_borrow_mut() {
        Ok(mut w) => f(&mut w),
        Err(_) => Err(WebError::msg("the worker is busy with another request; try again")),
    })
}

fn to_js(e: WebError) -> JsValue {
    let err = js_sys::Error::new(&e.message);
    // Setting a property on a fresh Error object cannot fail.
    if let Some(input) = &e.input {
        let _ = Reflect::set(&err, &"input".into(), &input.into());
    }
    if e.backend {
        let _ = Reflect::set(&err, &"backend".into(), &JsValue::TRUE);
    }
    if e.full {
        let _ = Reflect::set(&err, &"full".into(), &JsValue::TRUE);
    }
    if let Some(code) = &e.code {
        let _ = Reflect::set(&err, &"code".into(), &code.into());
    }
    err.into()
}

/// The WebGPU backend of this worker (`lethe-gpu` on wgpu's WebGPU backend), kept between runs: requested on
/// first use, given back after a run, and dropped after a backend failure (a lost device, a GPU error), so that
/// the next GPU run asks for a fresh device.
#[cfg(feature = "gpu")]
mod gpu {
    use std::cell::RefCell;

    use lethe_gpu::{GpuBackend, GpuOptions};

    use crate::{WebError, WebResult};

    thread_local! {
        static GPU: RefCell<Option<GpuBackend>> = const { RefCell::new(None) };
    }

    /// The kept backend, or a new one (adapter, device, pipelines).
    pub(super) async fn take() -> WebResult<GpuBackend> {
        if let Some(b) = GPU.with(|g| g.borrow_mut().take()) {
            return Ok(b);
        }
        GpuBackend::request(&GpuOptions::default())
            .await
            .map_err(WebError::from)
    }

    /// Keeps `backend` for the next run unless the run failed in the backend.
    pub(super) fn give_back<T>(backend: GpuBackend, outcome: &WebResult<T>) {
        if !matches!(outcome, Err(e) if e.backend) {
            GPU.with(|g| *g.borrow_mut() = Some(backend));
        }
    }
}

/// This worker's compute backends for the analyses that run on one (SDE, the calibrated verdict): the CPU, and in
/// the full module the WebGPU backend. It lives here, not in the analysis layer, because it holds `lethe-gpu`
/// (wgpu): the layer's [`Compute`] trait knows only the core's `Backend`.
struct Backends;

impl Compute for Backends {
    async fn run<J: BackendJob, M: Monitor>(
        &mut self,
        choice: BackendChoice,
        job: J,
        monitor: &mut M,
    ) -> WebResult<J::Output> {
        match choice {
            BackendChoice::Cpu => {
                let mut backend = lethe::backend::CpuBackend::new(job.precision());
                job.run_on(&mut backend, monitor).await
            }
            #[cfg(feature = "gpu")]
            BackendChoice::WebGpu => match gpu::take().await {
                Ok(mut backend) => {
                    let outcome = job.run_on(&mut backend, monitor).await;
                    gpu::give_back(backend, &outcome);
                    outcome
                }
                Err(e) => Err(e),
            },
            #[cfg(not(feature = "gpu"))]
            BackendChoice::WebGpu => Err(WebError {
                backend: true,
                ..WebError::msg("this module has no WebGPU backend (it is in the full module)")
            }),
        }
    }
}

fn out<T: Serialize + ?Sized>(v: &T) -> Result<JsValue, JsValue> {
    v.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| to_js(WebError::msg(format!("internal error converting the result: {e}"))))
}

fn parse<T: DeserializeOwned>(what: &str, v: JsValue) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(v).map_err(|e| to_js(WebError::msg(format!("bad {what} request: {e}"))))
}

/// A browser `Blob`/`File` read in slices with `FileReaderSync` (synchronous; workers only).
struct BlobSource {
    blob: web_sys::Blob,
    reader: web_sys::FileReaderSync,
    len: u64,
}

fn js_io(what: &str, e: &JsValue) -> io::Error {
    let detail = e
        .dyn_ref::<js_sys::Error>()
        .map(|x| String::from(x.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into());
    io::Error::other(format!("{what}: {detail}"))
}

// SAFETY: this module is built without the atomics feature (build.sh), so its instance runs on the one thread of
// its worker: no `BlobSource` (a JS object handle) can be reached from another thread. The analysis layer asks for
// `Send + Sync` sources because the CLI's threads share its files.
#[cfg(not(target_feature = "atomics"))]
unsafe impl Send for BlobSource {}
#[cfg(not(target_feature = "atomics"))]
unsafe impl Sync for BlobSource {}

impl ByteSource for BlobSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let end = offset
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= self.len)
            .ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!(
                        "asked for {} bytes at offset {offset}, but the file holds {} bytes",
                        buf.len(),
                        self.len
                    ),
                )
            })?;
        // Offsets below 2^53 are exact as f64; files are far smaller.
        let slice = self
            .blob
            .slice_with_f64_and_f64(offset as f64, end as f64)
            .map_err(|e| js_io("slicing the file", &e))?;
        let ab = self
            .reader
            .read_as_array_buffer(&slice)
            .map_err(|e| js_io("reading the file (was it changed or moved?)", &e))?;
        let arr = Uint8Array::new(&ab);
        if arr.length() as usize != buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the file changed while it was being read",
            ));
        }
        arr.copy_to(buf);
        Ok(())
    }
}

/// Posts progress through a JavaScript callback and lets the worker's event loop run.
///
/// The callback gets `{fraction, phase, eta_s}` and returns `false` (or a Promise of it) to stop. It is called at
/// most every [`YIELD_MS`] ms; the worker's callback posts the progress, awaits a macrotask (so a queued `cancel`
/// message is handled) and answers whether to go on.
struct JsMonitor {
    /// `None`: a run that never reports (the checks before a run), as the same type, so that the lean module holds
    /// one copy of the run's code.
    callback: Option<Function>,
    start: f64,
    last: f64,
}

/// Least time between two calls of the page's checkpoint callback.
const YIELD_MS: f64 = 50.0;

impl JsMonitor {
    fn new(callback: Function) -> Self {
        let now = js_sys::Date::now();
        Self {
            callback: Some(callback),
            start: now,
            last: now - YIELD_MS,
        }
    }
}

impl Monitor for JsMonitor {
    async fn checkpoint(&mut self, progress: &Progress) -> bool {
        let Some(callback) = &self.callback else {
            return true;
        };
        let now = js_sys::Date::now();
        if now - self.last < YIELD_MS {
            return true;
        }
        self.last = now;
        let f = progress.fraction;
        let eta = if f > 0.0 {
            (now - self.start) / 1000.0 * (1.0 - f) / f
        } else {
            f64::NAN
        };
        let obj = Object::new();
        let _ = Reflect::set(&obj, &"fraction".into(), &f.into());
        let _ = Reflect::set(&obj, &"phase".into(), &progress.phase.as_str().into());
        let _ = Reflect::set(&obj, &"eta_s".into(), &eta.into());
        let Ok(answer) = callback.call1(&JsValue::NULL, &obj) else {
            return false;
        };
        let answer = match answer.dyn_into::<Promise>() {
            Ok(p) => JsFuture::from(p).await.unwrap_or(JsValue::FALSE),
            Err(v) => v,
        };
        answer.as_bool().unwrap_or(true)
    }
}

/// Which module this is: `full` (every reader and analysis, WebGPU) or `lean` (.npy, SDE, RULER on the CPU).
#[wasm_bindgen]
pub fn module() -> String {
    if cfg!(feature = "full") { "full" } else { "lean" }.to_string()
}

/// Records the SHA-256 of source `id` computed by another module (the lean one, handing its sources over).
#[wasm_bindgen(js_name = setSha256)]
pub fn set_sha256(id: u32, hex: &str) {
    let _ = with_ws(|ws| {
        ws.set_sha256(id, hex);
        Ok(())
    });
}

/// Forgets every source and loaded input (the lean module, once the full module has taken over).
#[wasm_bindgen(js_name = clearAll)]
pub fn clear_all() {
    let _ = with_ws(|ws| {
        ws.clear();
        Ok(())
    });
}

/// How a multi-target SDE `request` splits into at most `workers` parts of about equal work (subset numbers per
/// part: 0 and 1 the references, 2 + i target i), for a pool of workers.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = sdePlan)]
pub fn sde_plan(request: JsValue, workers: usize) -> Result<JsValue, JsValue> {
    let req: SdeRequest = parse(<analyses::Sde as InBrowser>::NAME, request)?;
    let job = with_ws(|ws| analyses::prepare_sde(ws, &req)).map_err(to_js)?;
    out(&job.plan(workers))
}

/// The bytes of source `id` (a pasted text, a file's bytes, a matrix as .npy), to give to another worker.
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = sourceBytes)]
pub fn source_bytes(id: u32) -> Result<Uint8Array, JsValue> {
    with_ws(|ws| {
        let src = ws.source(id)?;
        let len = usize::try_from(src.data.len())
            .ok()
            .filter(|_| src.data.len() <= crate::workspace::MAX_BYTES)
            .ok_or_else(|| {
                WebError::at(
                    format!("source:{id}"),
                    "this input is too large to copy to another worker",
                )
            })?;
        let mut bytes = vec![0u8; len];
        src.data
            .read_at(0, &mut bytes)
            .map_err(|e| WebError::at(format!("source:{id}"), e.to_string()))?;
        Ok(Uint8Array::from(bytes.as_slice()))
    })
    .map_err(to_js)
}

/// Whether this module has the WebGPU backend (`webgpu` runs).
#[wasm_bindgen(js_name = hasWebGpu)]
pub fn has_webgpu() -> bool {
    cfg!(feature = "gpu")
}

/// The Lethe version.
#[wasm_bindgen]
pub fn version() -> String {
    crate::VERSION.to_string()
}

/// `text` with the layer's marks said as `voice` says them: `cli` as the command line (the page's downloads: a whole
/// serialized report at once, since marks and the CLI's words hold no `"` or `\`), `python` as the Python package
/// (the notebook widget's runs: one string at a time, since its words hold quotes). In the full module only (the
/// initial page's budget; the page's worker hands it over, as it does an analysis the lean module lacks).
#[cfg(feature = "full")]
#[wasm_bindgen]
pub fn words(voice: &str, text: &str) -> Result<String, JsValue> {
    match voice {
        "cli" => Ok(lethe::words::cli(text)),
        "python" => Ok(lethe::words::python(text)),
        _ => Err(to_js(WebError::msg(format!("no words for `{voice}`: cli or python")))),
    }
}

/// The most bytes one input may need (1 GiB).
#[wasm_bindgen(js_name = maxBytes)]
pub fn max_bytes() -> f64 {
    MAX_BYTES as f64
}

/// Adds a `File`/`Blob` as source `id`; it is read in slices, on demand (workers only).
#[wasm_bindgen(js_name = addFile)]
pub fn add_file(id: u32, blob: web_sys::Blob, name: &str) -> Result<(), JsValue> {
    let reader = web_sys::FileReaderSync::new().map_err(|_| {
        to_js(WebError::at(
            format!("source:{id}"),
            "files can only be read inside a Web Worker (FileReaderSync)",
        ))
    })?;
    let len = blob.size();
    if !(len >= 0.0 && len.fract() == 0.0) {
        return Err(to_js(WebError::at(
            format!("source:{id}"),
            format!("`{name}` reports an invalid size {len}"),
        )));
    }
    let src = BlobSource {
        blob,
        reader,
        len: len as u64,
    };
    with_ws(|ws| {
        ws.add(id, name, std::sync::Arc::new(src));
        Ok(())
    })
    .map_err(to_js)
}

/// Adds bytes (pasted text, a file's bytes) as source `id`.
#[wasm_bindgen(js_name = addBytes)]
pub fn add_bytes(id: u32, bytes: Vec<u8>, name: &str) -> Result<(), JsValue> {
    with_ws(|ws| {
        ws.add(id, name, std::sync::Arc::new(bytes));
        Ok(())
    })
    .map_err(to_js)
}

fn check_shape(id: u32, len: usize, rows: usize, cols: usize) -> Result<(), JsValue> {
    if rows.checked_mul(cols) == Some(len) {
        Ok(())
    } else {
        Err(to_js(WebError::at(
            format!("source:{id}"),
            format!("{len} values do not fill a {rows}×{cols} matrix; give shape [rows, cols] with rows·cols = {len}"),
        )))
    }
}

/// Adds a row-major f64 matrix as source `id` (stored as .npy, read by the same loader as files).
#[wasm_bindgen(js_name = addMatrixF64)]
pub fn add_matrix_f64(id: u32, values: &[f64], rows: usize, cols: usize, name: &str) -> Result<(), JsValue> {
    check_shape(id, values.len(), rows, cols)?;
    add_bytes(id, crate::npy::f64_bytes(values, &[rows, cols]), name)
}

/// Adds a row-major f32 matrix as source `id`.
#[wasm_bindgen(js_name = addMatrixF32)]
pub fn add_matrix_f32(id: u32, values: &[f32], rows: usize, cols: usize, name: &str) -> Result<(), JsValue> {
    check_shape(id, values.len(), rows, cols)?;
    add_bytes(id, crate::npy::f32_bytes(values, &[rows, cols]), name)
}

/// Forgets source `id`.
#[wasm_bindgen(js_name = removeSource)]
pub fn remove_source(id: u32) {
    let _ = with_ws(|ws| {
        ws.remove(id);
        Ok(())
    });
}

/// Headers of source `id`: format, arrays (dtype, shape, size), warnings, and whether it is over the limit.
#[wasm_bindgen]
pub fn inspect(id: u32) -> Result<JsValue, JsValue> {
    let info = with_ws(|ws| ws.inspect(id)).map_err(to_js)?;
    out(&info)
}

/// SHA-256 of source `id` (hex), calling `progress(done, total)` after each 1 MiB.
#[wasm_bindgen]
pub fn sha256(id: u32, progress: &Function) -> Result<String, JsValue> {
    with_ws(|ws| {
        ws.sha256(id, |done, total| {
            let _ = progress.call2(&JsValue::NULL, &(done as f64).into(), &(total as f64).into());
        })
    })
    .map_err(to_js)
}

/// Loads `input` (`{source, tensor?, rows?}`) for `role` and describes it (rows, cols, record, loader warnings).
#[wasm_bindgen(js_name = loadInput)]
pub fn load_input(role: &str, input: JsValue) -> Result<JsValue, JsValue> {
    let r: InputRef = parse("input", input)?;
    let summary = with_ws(|ws| {
        let held = if analyses::opens_in_place(role) {
            ws.open(role, &r)?
        } else {
            crate::workspace::Held::Loaded(ws.load(role, &r)?)
        };
        Ok(held.summary())
    })
    .map_err(to_js)?;
    out(&summary)
}

/// A run or check found by name, awaited once found (no borrow of the workspace is held across its awaits).
type Pending = Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

/// Runs `analysis` (one of the analysis layer's [`browser::each`]) on `request`; `checkpoint` receives progress and
/// decides whether to continue (the long runs: SDE, the calibrated verdict, MIA's and LiRA's bootstraps; the others
/// are quick and run through). Resolves to what the analysis declares for the page ([`InBrowser::Output`]). The
/// lean module answers every analysis it does not compute with an error marked `full`, and the worker hands it to
/// the full module (which names an unknown one).
#[wasm_bindgen]
pub async fn run(analysis: String, request: JsValue, checkpoint: Function) -> Result<JsValue, JsValue> {
    struct Find {
        name: String,
        call: Option<(JsValue, Function)>,
        run: Option<Pending>,
    }
    impl Visit for Find {
        fn visit<A: InBrowser + 'static>(&mut self) {
            if A::NAME == self.name
                && let Some((request, checkpoint)) = self.call.take()
            {
                self.run = Some(Box::pin(run_one::<A>(request, checkpoint)));
            }
        }
    }
    let mut find = Find {
        name: analysis,
        call: Some((request, checkpoint)),
        run: None,
    };
    browser::each(&mut find);
    match find.run {
        Some(run) => run.await,
        None => Err(to_js(not_here(&find.name))),
    }
}

async fn run_one<A: InBrowser>(request: JsValue, checkpoint: Function) -> Result<JsValue, JsValue> {
    let req: A::Request = parse(A::NAME, request)?;
    let job = with_ws(|ws| A::prepare(ws, req)).map_err(to_js)?;
    let mut monitor = JsMonitor::new(checkpoint);
    out(&A::finish(job, &mut Backends, &mut monitor).await.map_err(to_js)?)
}

/// An analysis this module does not compute: the full module's (in the lean one), or none.
fn not_here(analysis: &str) -> WebError {
    if cfg!(feature = "full") {
        WebError::msg(format!("unknown analysis `{analysis}`"))
    } else {
        WebError::needs_full(format!("`{analysis}` is computed by the full module"))
    }
}

/// What a run of `analysis` on `request` would find, asked before the run: each analysis declares its check
/// ([`InBrowser::check`], on the request [`InBrowser::for_check`] makes): SDE and the calibrated verdict stop
/// before computing (inputs read, rows resolved, targets drawn, subset sizes compared, kernels that fit), compare
/// runs with one resample, the other quick analyses run. Resolves to `{warnings}`; a refusal is thrown as the run
/// would throw it, naming the input it concerns. The lean module answers an analysis it does not compute as `run`
/// does (an error marked `full`).
#[wasm_bindgen]
pub async fn check(analysis: String, request: JsValue) -> Result<JsValue, JsValue> {
    struct Find {
        name: String,
        request: Option<JsValue>,
        check: Option<Pending>,
    }
    impl Visit for Find {
        fn visit<A: InBrowser + 'static>(&mut self) {
            if A::NAME == self.name
                && let Some(request) = self.request.take()
            {
                self.check = Some(Box::pin(check_one::<A>(request)));
            }
        }
    }
    let mut find = Find {
        name: analysis,
        request: Some(request),
        check: None,
    };
    browser::each(&mut find);
    let Some(check) = find.check else {
        return Err(to_js(not_here(&find.name)));
    };
    let warnings = check.await?;
    let o = Object::new();
    let _ = Reflect::set(&o, &"warnings".into(), &warnings);
    Ok(o.into())
}

async fn check_one<A: InBrowser>(request: JsValue) -> Result<JsValue, JsValue> {
    let req = A::for_check(parse(A::NAME, request)?);
    let job = with_ws(|ws| A::prepare(ws, req)).map_err(to_js)?;
    // A monitor that never reports, of the run's type, so that the lean module holds one copy of the run's code.
    let mut silent = JsMonitor {
        callback: None,
        start: 0.0,
        last: 0.0,
    };
    if A::CHECK {
        return out(&A::check(job, &mut silent).await.map_err(to_js)?);
    }
    // A quick analysis: its run, as the page would read it, and the warnings of that.
    let v = out(&A::finish(job, &mut Backends, &mut silent).await.map_err(to_js)?)?;
    Ok(Reflect::get(&v, &"warnings".into())
        .ok()
        .filter(|w| w.is_object())
        .unwrap_or_else(|| js_sys::Array::new().into()))
}

/// Which tool wrote each of sources `ids`, and all of them together (a dropped folder; `paths` are its files' paths
/// inside it, else their names): `{files: [{source, tool}], set}`, `tool` and `set` the layer's `ToolFile` (summary
/// and offers, or what is almost right) or null (issue 14: the page shows the summary and offers the analyses).
#[cfg(feature = "full")]
#[wasm_bindgen(js_name = toolFiles)]
pub fn tool_files(ids: Vec<u32>, paths: JsValue) -> Result<JsValue, JsValue> {
    let paths: Option<Vec<String>> = if paths.is_undefined() || paths.is_null() {
        None
    } else {
        Some(parse("paths", paths)?)
    };
    let v = with_ws(|ws| {
        let files: Vec<serde_json::Value> = ids
            .iter()
            .map(|&id| serde_json::json!({ "source": id, "tool": analyses::tool_file(ws, id) }))
            .collect();
        let set = if ids.len() > 1 {
            analyses::tool_set(ws, &ids, paths.as_deref())
        } else {
            None
        };
        Ok(serde_json::json!({ "files": files, "set": set }))
    })
    .map_err(to_js)?;
    out(&v)
}

/// A seeded synthetic example (`competition`, `scores`, `generations`): `{description, files: [{name, bytes}]}`.
#[cfg(feature = "full")]
#[wasm_bindgen]
pub fn synthetic(kind: &str, seed: u32) -> Result<JsValue, JsValue> {
    let s = crate::synthetic::make(kind, u64::from(seed)).map_err(to_js)?;
    let files = Array::new();
    for f in &s.files {
        let o = Object::new();
        let _ = Reflect::set(&o, &"name".into(), &f.name.as_str().into());
        let _ = Reflect::set(&o, &"bytes".into(), &Uint8Array::from(f.bytes.as_slice()).into());
        files.push(&o);
    }
    let o = Object::new();
    let _ = Reflect::set(&o, &"description".into(), &s.description.as_str().into());
    let _ = Reflect::set(&o, &"files".into(), &files.into());
    Ok(o.into())
}
