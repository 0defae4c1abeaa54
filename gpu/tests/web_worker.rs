//! The browser tests inside a dedicated Web Worker: WebGPU in headless Chromium (SwiftShader when there is no GPU),
//! run by `gpu/run-browser-tests.sh`. The checks live in web_cases/mod.rs; `web.rs` runs the same ones on the page's
//! main thread. (wasm-bindgen-test-runner 0.2.130 takes the mode from the configure macro when there is one, so
//! `WASM_BINDGEN_USE_DEDICATED_WORKER=1` cannot switch `web.rs` into a worker; hence this second test crate.)
//!
//! Golden sources are listed in suite/mod.rs (sde.json, hsic.json from tests/fixtures/golden, compiled in).
#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../crate/tests/common/mod.rs"]
mod common;
mod suite;
mod web_cases;

wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_dedicated_worker);
