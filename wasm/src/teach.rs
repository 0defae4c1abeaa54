//! The teaching page's wasm exports (`www/src/protocol.md`, messages `teach` and `teach-data`): each converts the
//! JavaScript request to a request of `lethe_analysis::teach`, calls it, and converts the view back. The topics,
//! their seeded data and every step live in the analysis layer; the state they keep between requests (HSIC runs,
//! the example's matrices) is this worker's one `Teaching`.

use std::cell::RefCell;

use js_sys::{Array, Object, Reflect, Uint8Array};
use lethe_analysis::teach::{self, Teaching};
use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

use crate::{WebError, WebResult};

thread_local! {
    static TEACHING: RefCell<Teaching> = RefCell::new(Teaching::default());
}

fn to_js(e: WebError) -> JsValue {
    let err = js_sys::Error::new(&e.message);
    if let Some(input) = &e.input {
        let _ = Reflect::set(&err, &"input".into(), &input.into());
    }
    err.into()
}

fn parse<Q: DeserializeOwned>(topic: &str, request: JsValue) -> Result<Q, JsValue> {
    serde_wasm_bindgen::from_value(request).map_err(|e| to_js(WebError::msg(format!("bad `{topic}` request: {e}"))))
}

fn run<Q: DeserializeOwned, R: Serialize>(
    topic: &str,
    request: JsValue,
    f: impl FnOnce(&Q) -> WebResult<R>,
) -> Result<JsValue, JsValue> {
    let r = f(&parse(topic, request)?).map_err(to_js)?;
    r.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| to_js(WebError::msg(format!("internal error converting the result: {e}"))))
}

/// A teaching request (`www/src/protocol.md`, message `teach`): `topic` names the computation.
#[wasm_bindgen]
pub fn teach(topic: &str, request: JsValue) -> Result<JsValue, JsValue> {
    TEACHING.with(|t| {
        let mut t = t.borrow_mut();
        match topic {
            "hsic.prepare" => run(topic, request, |q| t.hsic_prepare(q)),
            "hsic.step" => run(topic, request, |q| t.hsic_step(q)),
            "sde.experiment" => run(topic, request, |q| t.sde_experiment(q)),
            "sde.sweep" => run(topic, request, |q| t.sweep_cell(q)),
            "ranks" => run(topic, request, teach::ranks),
            "epsilon" => run(topic, request, teach::epsilon),
            "epsilon.threshold" => run(topic, request, teach::epsilon_threshold),
            "bounds" => run(topic, request, teach::bounds),
            "bounds.plan" => run(topic, request, teach::plan),
            "mia" => run(topic, request, teach::mia),
            "export" => {
                let files = teach::export(&parse(topic, request)?).map_err(to_js)?;
                let out = Array::new();
                for f in &files {
                    let o = Object::new();
                    let _ = Reflect::set(&o, &"name".into(), &f.name.as_str().into());
                    let _ = Reflect::set(&o, &"bytes".into(), &Uint8Array::from(f.bytes.as_slice()).into());
                    out.push(&o);
                }
                Ok(out.into())
            }
            other => Err(to_js(WebError::msg(format!("unknown teaching request `{other}`")))),
        }
    })
}

/// Adds a file of the built-in example (`act_<model>.npy`, `softmax.npz`) for the SDE topic.
#[wasm_bindgen(js_name = teachData)]
pub fn teach_data(name: &str, bytes: &[u8]) -> Result<JsValue, JsValue> {
    let added = TEACHING
        .with(|t| t.borrow_mut().add_example_file(name, bytes))
        .map_err(to_js)?;
    let out = Array::new();
    for a in added {
        out.push(&a.into());
    }
    Ok(out.into())
}
