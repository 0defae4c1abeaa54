#!/usr/bin/env bash
# Lethe build script. Sets up a bare Debian machine (root, registries only) by itself; see README.md.
#
#   ./build.sh test     every test: rustfmt/clippy, native cargo tests (incl. lavapipe GPU tests), wasm32 build,
#                       browser tests in headless Chromium, short fuzz runs
#   ./build.sh serve    build the widget and serve it on http://127.0.0.1:8000/ (built-in example; PORT=…)
#   ./build.sh setup    install what the other commands need (idempotent; run by them)
#   ./build.sh wasm     build the wasm package into pkg/
#   ./build.sh site     build the static site into target/site/ (www/ + pkg/ + the demo data + embed.html;
#                       www/ brings the teaching page, teach.html)
#   ./build.sh site_sizes  gzipped size of the initial page of target/site/ (budget ~300 KB)
#   ./build.sh browser  the widget's browser tests only (wasm-bindgen-test + Playwright)
#   ./build.sh fuzz     the fuzz smoke run only (FUZZ_SECONDS per target, default 20)
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
  cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
  cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
    log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
    # No --locked: the registry mirror lacks one locked dependency version (docs/toolchain.md).
    cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
  fi
}

setup_node() {
  command -v npm >/dev/null || need_apt nodejs npm
  # Build/test tools only (package.json): playwright-core drives /usr/bin/chromium, binaryen@132 gives wasm-opt
  # (Debian's binaryen 108 breaks wasm-bindgen's externref table, docs/toolchain.md). The page itself has no npm deps.
  if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ]; then
    log "npm ci (playwright-core, binaryen)"
    npm ci --no-audit --no-fund --silent
  fi
}

setup() {
  setup_rust
  need_apt chromium chromium-driver mesa-vulkan-drivers libvulkan1 python3
  setup_node
}

native_tests() {
  log "cargo test (native; the lethe-gpu tests run on lavapipe, Mesa's Vulkan on the CPU, and fail without it)"
  # Vulkan only (no GL/EGL probing noise); the loader wants a runtime directory.
  export WGPU_BACKEND=vulkan
  XDG_RUNTIME_DIR=$(mktemp -d)
  export XDG_RUNTIME_DIR
  cargo test --workspace --all-targets
  cargo test --workspace --doc
}

gpu_browser_tests() {
  log "lethe-gpu in headless Chromium with WebGPU (SwiftShader), page and dedicated worker"
  gpu/run-browser-tests.sh
}

fuzz_smoke() {
  log "fuzz smoke run: every file reader, ${FUZZ_SECONDS:-20} s each (fuzz/run.sh; longer: fuzz/run.sh 300)"
  fuzz/run.sh "${FUZZ_SECONDS:-20}"
}

lint() {
  log "rustfmt and clippy (warnings are errors), native and for wasm32"
  cargo fmt --all -- --check
  cargo clippy -q --workspace --all-targets -- -D warnings
  cargo clippy -q -p lethe -p lethe-analysis -p lethe-web --target wasm32-unknown-unknown -- -D warnings
}

wasm_build_check() {
  log "core builds for wasm32-unknown-unknown (all readers, and .npy only as in the lean module)"
  cargo build -q -p lethe --target wasm32-unknown-unknown
  cargo build -q -p lethe --target wasm32-unknown-unknown --no-default-features
}

# --- the browser widget -------------------------------------------------------------------------------------

SITE="$ROOT/target/site"

# Two wasm modules from one crate (wasm/, docs/embedding.md "Two wasm modules"): the lean module the page opens with
# (lethe-web --no-default-features: .npy, SDE with the calibrated verdict, RULER on the CPU) and the full module
# (default features: every reader and analysis, WebGPU), which the worker fetches after the first results or on
# first need.
WASM_OUT=target/wasm32-unknown-unknown/wasm-release/lethe_web.wasm
WASM_LEAN_OUT=target/wasm32-unknown-unknown/wasm-lean/lethe_web.wasm

wasm_pkg() {
  rm -rf pkg
  log "wasm: lethe-web lean module (--no-default-features, profile wasm-lean) → pkg/lethe_lean*"
  cargo build -q --profile wasm-lean -p lethe-web --target wasm32-unknown-unknown --no-default-features
  wasm-bindgen --target web --out-dir pkg --out-name lethe_lean "$WASM_LEAN_OUT"
  log "wasm: lethe-web full module (profile wasm-release) → pkg/lethe_web*"
  cargo build -q --profile wasm-release -p lethe-web --target wasm32-unknown-unknown
  wasm-bindgen --target web --out-dir pkg --out-name lethe_web "$WASM_OUT"
  # Size: -Oz takes each module to about two thirds.
  local m
  for m in lethe_lean lethe_web; do
    node_modules/.bin/wasm-opt -Oz "pkg/${m}_bg.wasm" -o "pkg/${m}_bg.wasm"
  done
  wasm_relaxed lethe_lean wasm-lean --no-default-features
  wasm_relaxed lethe_web wasm-release
}

# The relaxed-SIMD twin of a module (issue 16): the same crate with the core's feature relaxed-simd
# (`f32x4.relaxed_madd` in the f32 Gram and exp), as pkg/NAME_relaxed_bg.wasm. The worker fetches it instead of
# pkg/NAME_bg.wasm where the browser validates relaxed SIMD (www/src/worker.js), through the same JS glue, which must
# therefore come out identical.
wasm_relaxed() {
  local name=$1 profile=$2 tmp
  shift 2
  log "wasm: $name relaxed-SIMD twin (profile $profile, feature lethe/relaxed-simd) → pkg/${name}_relaxed_bg.wasm"
  tmp=$(mktemp -d)
  cargo build -q --profile "$profile" -p lethe-web --target wasm32-unknown-unknown "$@" --features lethe/relaxed-simd
  wasm-bindgen --target web --out-dir "$tmp" --out-name "$name" "target/wasm32-unknown-unknown/$profile/lethe_web.wasm"
  if ! cmp -s "$tmp/$name.js" "pkg/$name.js"; then
    echo "the relaxed-SIMD build of $name has other JS glue than pkg/$name.js (diff $tmp/$name.js pkg/$name.js)" >&2
    return 1
  fi
  node_modules/.bin/wasm-opt -Oz --enable-relaxed-simd "$tmp/${name}_bg.wasm" -o "pkg/${name}_relaxed_bg.wasm"
  rm -rf "$tmp"
}

site() {
  wasm_pkg
  log "site → target/site/"
  rm -rf "$SITE"
  mkdir -p "$SITE/data"
  cp -r www/. "$SITE/"
  rm -f "$SITE/src/protocol.md"
  cp -r pkg "$SITE/pkg"
  rm -f "$SITE/pkg/.gitignore" "$SITE/pkg/package.json"
  cp -r examples/data/digits "$SITE/data/digits"
  cp examples/embed.html "$SITE/embed.html"
  # The teaching page's SDE topic quotes this doc's measured figures and links to it.
  mkdir -p "$SITE/docs"
  cp docs/sde-calibration.md "$SITE/docs/sde-calibration.md"
  site_sizes
}

# Gzipped size of exactly what index.html loads before its first analysis (its static module graph, the worker and
# the lean wasm; not the example's data, not the full module fetched after the first results): tests/browser/weight.mjs,
# which the browser test weight.test.mjs checks against the network log of a real page load.
site_sizes() {
  node tests/browser/weight.mjs "$SITE"
}

# One self-contained page (issue 25, tools/single_page.mjs): target/dist/lethe.html holds the site's page with its
# styles, modules, worker, both wasm modules (the simd128 builds) and the built-in example's files, and works opened
# from disk (file://) with the network off. Prints its size, raw and gzipped.
single_page() {
  log "single page: $SITE → target/dist/lethe.html"
  node tools/single_page.mjs "$SITE" "$ROOT/target/dist/lethe.html"
}

serve() {
  site
  local port=${PORT:-8000}
  log "Lethe widget: http://127.0.0.1:$port/  (teaching page: http://127.0.0.1:$port/teach.html; embedding examples: http://127.0.0.1:$port/embed.html; Ctrl-C stops)"
  exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$SITE"
}

browser_tests() {
  site
  log "wasm-bindgen-test: the boundary in headless Chromium (main thread, then a dedicated worker)"
  local wd="$ROOT/web/webdriver.json"
  (cd wasm && CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_WEBDRIVER_JSON="$wd" WASM_BINDGEN_USE_BROWSER=1 \
    cargo test --target wasm32-unknown-unknown --test boundary)
  (cd wasm && CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_WEBDRIVER_JSON="$wd" WASM_BINDGEN_USE_DEDICATED_WORKER=1 \
    cargo test --target wasm32-unknown-unknown --test boundary)
  log "Playwright: end-to-end on the built site (tests/browser/; single_page.test.mjs opens target/dist/lethe.html)"
  single_page
  cargo build -q --release -p lethe-cli
  node tests/browser/run.mjs
}

# Embedding in real docs sites (issue 17, tests/embed/run.mjs): a MkDocs-Material site (pip, venv under target/embed/)
# and a Docusaurus 3 site (npm ci of tests/embed/docusaurus/package-lock.json under target/embed/), built with
# <lethe-eval> embedded as docs/embedding.md says, plus plain, strict-CSP and iframe pages, driven in headless Chromium,
# and nginx with the deployment note's configuration (tests/embed/nginx.conf).
# Installs are cached under target/embed/ on the same machine (first run: about a minute for npm, seconds for pip).
embed_site_tests() {
  log "embedding in MkDocs Material and Docusaurus 3 sites (tests/embed/run.mjs)"
  need_apt python3-venv nginx-light
  node tests/embed/run.mjs
}

# The Python package (python/, docs/python.md): a venv under target/ from PyPI, the extension built by maturin (outside
# the Cargo workspace: its own lockfile and target/python), then pytest against the release CLI (every analysis's
# report equals lethe … --json; arrays read in place; errors; Ctrl-C; batch on a 2-worker Dask LocalCluster).
# Adds about 2-4 minutes on a bare 2-core machine (pip, one release build of the extension), under a minute after.
python_tests() {
  log "Python package: venv target/python-venv (maturin, numpy, pytest, dask[distributed]), maturin develop, pytest"
  python3 -c "import ensurepip" 2>/dev/null || need_apt python3-venv
  local venv="$ROOT/target/python-venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  # jupyterlab, notebook + anywidget: lethe.show's test in a real JupyterLab and Jupyter Notebook 7 (measured: 15 s of
  # pip into a fresh venv before notebook was added; 12 s of test per front end).
  "$venv/bin/pip" install -q --disable-pip-version-check maturin numpy pandas pytest 'dask[distributed]' jupyterlab notebook anywidget
  cargo build -q --release -p lethe-cli
  rustfmt --edition 2024 --check python/src/lib.rs
  # lethe.show's ES module from the page's current www/src, and lethe.widget's with the full wasm module inlined
  # (pkg/, built by the browser tests' site; built here when this runs alone) (docs/python.md).
  [ -f pkg/lethe_web_bg.wasm ] || wasm_pkg
  python3 python/widget/build.py
  (cd python && export VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" PYO3_PYTHON="$venv/bin/python" &&
    cargo clippy -q --all-targets -- -D warnings && maturin develop --release -q)
  (cd python && "$venv/bin/python" -m pytest -q -p no:logging tests)
  node tests/notebook/jupyterlab.test.mjs "$venv" --app lab
  node tests/notebook/jupyterlab.test.mjs "$venv" --app notebook
  node tests/notebook/widget.test.mjs "$venv" --app all  # lethe.widget: analyses run in the notebook's browser
}

cmd=${1:-test}
case "$cmd" in
  setup) setup ;;
  test)
    setup
    lint
    native_tests
    wasm_build_check
    browser_tests
    embed_site_tests
    python_tests
    gpu_browser_tests
    fuzz_smoke
    log "all tests passed"
    ;;
  wasm) setup; wasm_pkg ;;
  site) setup; site ;;
  single) setup; site; single_page ;;
  site_sizes) site_sizes ;;
  serve) setup; serve ;;
  browser) setup; browser_tests ;;
  python) setup; python_tests ;;
  fuzz) fuzz_smoke ;;
  *) echo "usage: $0 {test|serve|setup|wasm|site|single|site_sizes|browser|python|fuzz}" >&2; exit 2 ;;
esac
