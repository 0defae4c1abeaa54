//! `lethe._lethe`: the Python package's extension module. It only translates: numpy arrays become byte sources of
//! the analysis layer's workspace (read in place from the array's own buffer, never copied), a request arrives as
//! the layer's JSON request, and the layer's dispatcher (`lethe_analysis::dispatch`, also what `lethe batch` runs)
//! computes the report `lethe … --json` prints. The GIL is released while the core computes; Ctrl-C and the
//! progress callback reach the run through the layer's monitor.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lethe::data::ByteSource;
use lethe::progress::Progress;
use lethe_analysis::dispatch::{self, Control};
use lethe_analysis::workspace::{InPlacePolicy, Workspace};
use lethe_analysis::{Error, batch, words};
use numpy::{PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use serde_json::Value;

create_exception!(
    _lethe,
    LetheError,
    PyException,
    "An analysis refused its request or failed: the message says what is wrong, where, and the fix (as the CLI's)."
);

/// A numpy array as an .npy file: a header written here, then the array's own buffer, read where numpy keeps it.
struct ArraySource {
    header: Vec<u8>,
    data: *const u8,
    len: usize,
    /// Keeps the array (and so its buffer) alive while the workspace holds this source.
    _array: Py<PyAny>,
}

// SAFETY: the buffer belongs to `_array`, which this source keeps alive; it is only read (numpy's contract with a
// caller that releases the GIL: the array is not resized while the call runs).
unsafe impl Send for ArraySource {}
// SAFETY: as for Send; reads of an immutable buffer from several threads.
unsafe impl Sync for ArraySource {}

impl ByteSource for ArraySource {
    fn len(&self) -> u64 {
        (self.header.len() + self.len) as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let total = self.header.len() + self.len;
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let end = start.checked_add(buf.len()).filter(|&e| e <= total).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "asked for {} bytes at offset {offset}, but the array holds {total} bytes",
                    buf.len()
                ),
            )
        })?;
        let h = self.header.len();
        let mut filled = 0;
        if start < h {
            let n = h.min(end) - start;
            buf[..n].copy_from_slice(&self.header[start..start + n]);
            filled = n;
        }
        if end > h {
            let from = start.max(h) - h;
            let n = end - start.max(h);
            // SAFETY: from + n <= self.len, the buffer's length; the buffer outlives self (see `_array`).
            let data = unsafe { std::slice::from_raw_parts(self.data.add(from), n) };
            buf[filled..filled + n].copy_from_slice(data);
        }
        Ok(())
    }
}

/// The .npy header (version 1.0) of an array with numpy's dtype string `descr` (`<f8`, `<f4`, `<i8`, `|b1`, ...).
fn npy_header(descr: &str, fortran: bool, shape: &[usize]) -> Vec<u8> {
    let dims = match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        ),
    };
    let order = if fortran { "True" } else { "False" };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {dims}, }}");
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(dict.len()).unwrap_or(u16::MAX).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// The source over `array`'s buffer (C or Fortran order; anything else is refused: the wrapper copies those).
fn array_source(array: &Bound<'_, PyAny>) -> PyResult<ArraySource> {
    let a = array.cast::<PyUntypedArray>()?;
    let fortran = !a.is_c_contiguous() && a.is_fortran_contiguous();
    if !a.is_c_contiguous() && !fortran {
        return Err(LetheError::new_err(
            "the array is neither C- nor Fortran-contiguous: pass numpy.ascontiguousarray(a)",
        ));
    }
    let descr: String = a.dtype().getattr("str")?.extract()?;
    let shape = a.shape().to_vec();
    let len = a.len() * a.dtype().itemsize();
    // SAFETY: a valid numpy array object; `data` is its buffer's first byte.
    let data = unsafe { (*a.as_array_ptr()).data as *const u8 };
    Ok(ArraySource {
        header: npy_header(&descr, fortran, &shape),
        data,
        len,
        _array: array.clone().unbind(),
    })
}

/// The address and length of the bytes Lethe reads for `array` (the zero-copy test compares them with numpy's).
#[pyfunction]
fn _source_address(array: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    let s = array_source(array)?;
    Ok((s.data as usize, s.len))
}

/// A layer message in a Python user's words: the layer's marked options and commands (`lethe_analysis::words`) as
/// keywords and functions, `equal_size=True`, `fdr=`, `` `lethe.calibrate(…)` `` (the CLI says `--equal-size`, the
/// page its labels).
#[pyfunction]
fn _pythonic(text: &str) -> String {
    words::python(text)
}

/// `value` serialized with every string in a Python user's words ([`_pythonic`]): rendered string by string, since
/// Python's words hold quotes (`sd_method="lp"`) that the serialized text would need escaped.
fn pythonic_json(mut value: Value, pretty: bool) -> serde_json::Result<String> {
    fn walk(v: &mut Value) {
        match v {
            Value::String(s) => *s = words::python(s),
            Value::Array(a) => a.iter_mut().for_each(walk),
            Value::Object(o) => o.values_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    if pretty {
        serde_json::to_string_pretty(&value)
    } else {
        serde_json::to_string(&value)
    }
}

/// A layer error as a Python exception: the CLI's message (`[code] role: message`) in a Python user's words
/// ([`_pythonic`]), and its parts as attributes.
fn py_error(py: Python<'_>, e: &Error) -> PyErr {
    let err = LetheError::new_err(_pythonic(&batch::error_text(e)));
    let v = err.value(py);
    let _ = v.setattr("input", e.input.clone());
    let _ = v.setattr("code", e.code.clone());
    let _ = v.setattr("usage", e.usage);
    err
}

fn policy(text: &str) -> PyResult<InPlacePolicy> {
    text.parse::<InPlacePolicy>()
        .map_err(|e: Error| LetheError::new_err(e.message))
}

/// Runs `command` on `request` (the layer's request as JSON; arrays given in `arrays` as `(source id, name,
/// array)` and named in the request by `{"source": id}`), returns the report's JSON (`lethe … --json`).
#[pyfunction]
#[pyo3(signature = (command, request, arrays, threads=None, in_place="auto", progress=None))]
fn run(
    py: Python<'_>,
    command: &str,
    request: &str,
    arrays: Vec<(u32, String, Bound<'_, PyAny>)>,
    threads: Option<usize>,
    in_place: &str,
    progress: Option<Py<PyAny>>,
) -> PyResult<String> {
    let mut request: Value = serde_json::from_str(request).map_err(|e| LetheError::new_err(format!("request: {e}")))?;
    let in_place = policy(in_place)?;
    let threads = threads.unwrap_or_else(lethe::parallel::available_threads).max(1);
    let mut ws = Workspace::new();
    for (id, name, array) in &arrays {
        ws.add(*id, name, Arc::new(array_source(array)?));
    }
    drop(arrays);
    dispatch::resolve(&mut ws, command, &mut request).map_err(|e| py_error(py, &e))?;

    let cancel = AtomicBool::new(false);
    let latest: Mutex<Option<Progress>> = Mutex::new(None);
    let (outcome, interrupt) = py.detach(|| {
        std::thread::scope(|s| {
            let (done, finished) = std::sync::mpsc::channel();
            let (latest, cancel, ws, request) = (&latest, &cancel, &mut ws, &request);
            let worker = s.spawn(move || {
                let mut monitor = |p: &Progress| {
                    if let Ok(mut l) = latest.lock() {
                        *l = Some(p.clone());
                    }
                    !cancel.load(Ordering::Relaxed)
                };
                let mut ctl = Control {
                    threads,
                    in_place,
                    monitor: &mut monitor,
                };
                let out = dispatch::run(ws, command, request, &mut ctl);
                let _ = done.send(());
                out
            });
            let mut interrupt: Option<PyErr> = None;
            // Wakes as soon as the run ends; every 50 ms before that, looks for Ctrl-C and posts the progress.
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(Duration::from_millis(50))
            {
                if interrupt.is_some() {
                    continue;
                }
                Python::attach(|py| {
                    if let Err(e) = py.check_signals() {
                        interrupt = Some(e);
                    } else if let Some(cb) = &progress {
                        let p = latest.lock().ok().and_then(|mut l| l.take());
                        if let Some(p) = p
                            && let Err(e) = cb.call1(py, (p.fraction, p.phase))
                        {
                            interrupt = Some(e);
                        }
                    }
                });
                if interrupt.is_some() {
                    cancel.store(true, Ordering::Relaxed);
                }
            }
            let outcome = worker
                .join()
                .unwrap_or_else(|_| Err(Error::msg("internal error: the analysis panicked")));
            (outcome, interrupt)
        })
    });
    if let Some(e) = interrupt {
        return Err(e);
    }
    if let Some(cb) = &progress {
        cb.call1(py, (1.0, "done"))?;
    }
    let report = outcome.map_err(|e| py_error(py, &e))?;
    serde_json::to_value(&report)
        .and_then(|r| pythonic_json(r, true))
        .map_err(|e| LetheError::new_err(format!("writing the report: {e}")))
}

/// Loads `spec` (`PATH[#TENSOR][@ROWS]`, any format Lethe reads) as the analyses load it: a 2-D float64 array and
/// the reader's warnings.
#[pyfunction]
fn load<'py>(py: Python<'py>, spec: &str) -> PyResult<(Bound<'py, PyAny>, Vec<String>)> {
    let mut ws = Workspace::new();
    let loaded = py.detach(|| {
        let r = ws.input_arg("file", spec)?;
        ws.load("file", &r)
    });
    let input = loaded.map_err(|e| py_error(py, &e))?;
    let m = &input.matrix;
    let flat = numpy::PyArray1::from_slice(py, m.as_slice());
    let shaped = flat.reshape([m.rows(), m.cols()])?;
    Ok((
        shaped.into_any(),
        input.warnings.iter().map(|w| words::python(&w.message)).collect(),
    ))
}

/// The page's plot data for a report's JSON (`lethe_analysis::plots::of_report`: counted by the functions the
/// analyses count it with for the page), as JSON: what `lethe.show` draws.
#[pyfunction]
fn report_plots(report: &str) -> PyResult<String> {
    let v: Value = serde_json::from_str(report).map_err(|e| LetheError::new_err(format!("report: {e}")))?;
    Ok(lethe_analysis::plots::of_report(&v).to_string())
}

/// The analyses, as the CLI's subcommands.
#[pyfunction]
fn commands() -> Vec<&'static str> {
    dispatch::commands()
}

/// The analyses the page's wasm module computes too: what the notebook widget runs in the browser.
#[pyfunction]
fn browser_commands() -> Vec<&'static str> {
    dispatch::browser_commands()
}

/// The options of `command`'s request (the layer's request keys, inputs included).
#[pyfunction]
fn options(py: Python<'_>, command: &str) -> PyResult<Vec<&'static str>> {
    dispatch::options(command)
        .map(|o| o.to_vec())
        .map_err(|e| py_error(py, &e))
}

/// `command`'s roles: (inputs, rows, text files).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn roles(py: Python<'_>, command: &str) -> PyResult<(Vec<&'static str>, Vec<&'static str>, Vec<&'static str>)> {
    let r = dispatch::roles(command).map_err(|e| py_error(py, &e))?;
    Ok((r.inputs.to_vec(), r.rows.to_vec(), r.texts.to_vec()))
}

/// One cell of a batch manifest: line `number`'s text → the cell's JSON (as `lethe batch` writes it).
#[pyfunction]
#[pyo3(signature = (number, text, threads=1))]
fn run_cell(py: Python<'_>, number: usize, text: &str, threads: usize) -> PyResult<String> {
    let cell = py.detach(|| batch::run_cell(number, text, threads));
    serde_json::to_value(&cell)
        .and_then(|c| pythonic_json(c, false))
        .map_err(|e| LetheError::new_err(format!("writing the cell: {e}")))
}

/// A request for the analysis layer in the notebook's browser: `request` (JSON; arrays already `{"source": N}`)
/// with its files resolved, the CLI's defaults applied and its options checked, and the files it names as
/// `(source id, path)` (`lethe_analysis::dispatch::browser_request`).
#[pyfunction]
fn browser_request(py: Python<'_>, command: &str, request: &str) -> PyResult<(String, Vec<(u32, String)>)> {
    let request: Value = serde_json::from_str(request).map_err(|e| LetheError::new_err(format!("request: {e}")))?;
    let (request, files) = dispatch::browser_request(command, request).map_err(|e| py_error(py, &e))?;
    let files = files
        .into_iter()
        .map(|(id, p)| (id, p.to_string_lossy().into_owned()))
        .collect();
    let text = serde_json::to_string(&request).map_err(|e| LetheError::new_err(format!("request: {e}")))?;
    Ok((text, files))
}

/// The cells of a manifest: (number, text).
#[pyfunction]
fn manifest_cells(text: &str) -> Vec<(usize, String)> {
    batch::cells(text)
        .into_iter()
        .map(|(n, t)| (n, t.to_string()))
        .collect()
}

/// Merges cells (JSON, as `run_cell` and `lethe batch` write them) into one table: `csv` or `json` text.
#[pyfunction]
#[pyo3(signature = (cells, format="csv"))]
fn merge(py: Python<'_>, cells: Vec<String>, format: &str) -> PyResult<String> {
    let format = match format {
        "csv" => batch::Format::Csv,
        "json" => batch::Format::Json,
        other => return Err(LetheError::new_err(format!("format `{other}` is not csv or json"))),
    };
    let mut all = Vec::new();
    for (k, c) in cells.iter().enumerate() {
        all.extend(batch::read_cells(&format!("cell {k}"), c).map_err(|e| py_error(py, &e))?);
    }
    batch::merge(all, format).map_err(|e| py_error(py, &e))
}

#[pymodule]
fn _lethe(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("LetheError", m.py().get_type::<LetheError>())?;
    m.add("VERSION", lethe_analysis::VERSION)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(commands, m)?)?;
    m.add_function(wrap_pyfunction!(browser_commands, m)?)?;
    m.add_function(wrap_pyfunction!(options, m)?)?;
    m.add_function(wrap_pyfunction!(roles, m)?)?;
    m.add_function(wrap_pyfunction!(run_cell, m)?)?;
    m.add_function(wrap_pyfunction!(manifest_cells, m)?)?;
    m.add_function(wrap_pyfunction!(merge, m)?)?;
    m.add_function(wrap_pyfunction!(_source_address, m)?)?;
    m.add_function(wrap_pyfunction!(_pythonic, m)?)?;
    m.add_function(wrap_pyfunction!(report_plots, m)?)?;
    m.add_function(wrap_pyfunction!(browser_request, m)?)?;
    Ok(())
}
