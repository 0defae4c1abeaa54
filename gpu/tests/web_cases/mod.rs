//! The browser checks, shared by `web.rs` (page main thread) and `web_worker.rs` (dedicated Web Worker): each
//! wraps the shared suite (suite/mod.rs) for WebGPU at small n (SwiftShader is slow: n ≤ 128). Every test FAILS
//! when no WebGPU adapter is found, and prints the adapter it used and where it ran.

use lethe::backend::Backend;
use lethe_gpu::{GpuBackend, GpuOptions};
use wasm_bindgen_test::wasm_bindgen_test;

use crate::suite::{self, Tolerances, say};

/// The JS global's constructor: `Window` on the page, `DedicatedWorkerGlobalScope` in a worker.
fn context() -> String {
    js_sys::global().constructor().name().into()
}

/// The WebGPU backend, or a failing test.
async fn gpu() -> GpuBackend {
    let gpu = GpuBackend::request(&GpuOptions::default())
        .await
        .unwrap_or_else(|e| panic!("the browser tests need a WebGPU adapter (Chromium: --enable-unsafe-webgpu): {e}"));
    say!("adapter ({}): {:?}", context(), gpu.adapter_info());
    say!("backend info: {:?}", gpu.info());
    gpu
}

#[wasm_bindgen_test]
async fn webgpu_adapter_is_found() {
    say!("running in {}", context());
    let b = gpu().await;
    assert_eq!(b.info().name, "webgpu");
    say!("max n on this device: {}", b.max_n());
}

#[wasm_bindgen_test]
async fn kernels_match_cpu_f64() {
    let shapes = [(2, 1), (3, 5), (17, 16), (33, 17), (64, 40)];
    suite::kernels_match_cpu_f64(&mut gpu().await, &Tolerances::F32, &shapes).await;
}

#[wasm_bindgen_test]
async fn shuffle_scores_match_cpu_f64() {
    let mut b = gpu().await;
    for n in [2, 3, 17, 64, 128] {
        suite::shuffle_scores_match_cpu_f64(&mut b, &Tolerances::F32, n, 24).await;
    }
}

#[wasm_bindgen_test]
async fn hsic_test_p_values_match_cpu_f64() {
    suite::hsic_test_matches_cpu_f64(&mut gpu().await, &Tolerances::F32, 40).await;
}

#[wasm_bindgen_test]
async fn golden_sde_matches_reference() {
    suite::golden_sde_matches_reference(&mut gpu().await, &Tolerances::F32).await;
}

#[wasm_bindgen_test]
async fn golden_hsic_matches_reference() {
    suite::golden_hsic_matches_reference(&mut gpu().await, &Tolerances::F32).await;
}

#[wasm_bindgen_test]
async fn bad_inputs_are_errors() {
    suite::edge_cases(&mut gpu().await).await;
}

#[wasm_bindgen_test]
async fn duplicate_rows_have_zero_distance() {
    suite::duplicate_rows_have_zero_distance(&mut gpu().await).await;
}
