#!/usr/bin/env bash
# Runs lethe-gpu's browser tests (gpu/tests/web.rs) in headless Chromium with WebGPU (SwiftShader when there is
# no GPU): once on the page's main thread and once inside a dedicated Web Worker. Fails if either run fails,
# including when no WebGPU adapter is found.
#
# Needs: chromium + chromium-driver (apt), the wasm32-unknown-unknown target, wasm-bindgen-cli 0.2.130
# (`cargo install wasm-bindgen-cli --version 0.2.130`, no --locked). See docs/toolchain.md.
set -euo pipefail
cd "$(dirname "$0")"

export CHROMEDRIVER=${CHROMEDRIVER:-/usr/bin/chromedriver}
# The runner reads the Chromium flags (--enable-unsafe-webgpu, no background networking) from here.
export WASM_BINDGEN_TEST_WEBDRIVER_JSON="$PWD/webdriver.json"
# SwiftShader runs compute shaders on the CPU: give each test time.
export WASM_BINDGEN_TEST_TIMEOUT=${WASM_BINDGEN_TEST_TIMEOUT:-600}
# .cargo/config.toml in this directory sets the wasm32 runner to wasm-bindgen-test-runner.

for tool in wasm-bindgen-test-runner "$CHROMEDRIVER" chromium; do
  command -v "$tool" >/dev/null || { echo "missing: $tool (see the header of $0)" >&2; exit 1; }
done

# --nocapture: show what the tests print (adapter, measured errors) for passing tests too.
echo "== browser tests: page main thread (tests/web.rs, run_in_browser)"
cargo test -p lethe-gpu --target wasm32-unknown-unknown --test web -- --nocapture "$@"
# The runner takes the mode from wasm_bindgen_test_configure! when a test crate names one, so
# WASM_BINDGEN_USE_DEDICATED_WORKER=1 alone would not move web.rs into a worker: web_worker.rs runs the same
# checks with run_in_dedicated_worker (the variable is set too, for runners that honour it).
echo "== browser tests: dedicated worker (tests/web_worker.rs, run_in_dedicated_worker)"
WASM_BINDGEN_USE_DEDICATED_WORKER=1 cargo test -p lethe-gpu --target wasm32-unknown-unknown --test web_worker -- --nocapture "$@"
echo "== browser tests passed (main thread and worker)"
