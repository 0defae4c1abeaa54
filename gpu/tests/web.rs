//! The browser tests on the page's main thread: WebGPU in headless Chromium (SwiftShader when there is no GPU),
//! run by `gpu/run-browser-tests.sh`. The checks live in web_cases/mod.rs; `web_worker.rs` runs the same ones in a
//! dedicated Web Worker.
//!
//! Golden sources are listed in suite/mod.rs (sde.json, hsic.json from tests/fixtures/golden, compiled in).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../crate/tests/common/mod.rs"]
mod common;
mod suite;
mod web_cases;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);
