#!/usr/bin/env bash
# Lethe build script. Sets up a bare Debian machine (root, registries only) by itself; see README.md.
#
#   ./build.sh test     every test: rustfmt/clippy, native cargo tests (incl. lavapipe GPU tests), wasm32 build,
#                       browser tests in headless Chromium, short fuzz runs
#   ./build.sh dist     release artifacts into target/dist/, each tested as a user installs it (the npm package
#                       lethe-eval-VERSION.tgz, tools/npm_package.mjs, tests/npm/run.mjs)
#   ./build.sh serve    build the widget and serve it on http://127.0.0.1:8000/ (built-in example; PORT=…)
#   ./build.sh setup    install what the other commands need (idempotent; run by them)
#   ./build.sh wasm     build the wasm package into pkg/
#   ./build.sh site     build the static site into target/site/ (www/ + pkg/ + the demo data + embed.html;
#                       www/ brings the teaching page, teach.html)
#   ./build.sh site_sizes  gzipped size of the initial page of target/site/ (budget ~300 KB)
#   ./build.sh browser  the widget's browser tests only (wasm-bindgen-test + Playwright)
#   ./build.sh dist     release artifacts into target/dist/ (the single page, the npm tarball, the Python wheel),
#                       each tested as a user installs it
#   ./build.sh docs     the documentation site into target/docs-site/ (MkDocs Material; LETHE_SITE_URL for its
#                       base URL, e.g. https://OWNER.github.io/lethe/), link-checked; docs_test: and its browser test
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
  if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
    log "npm ci (playwright-core, binaryen, axe-core)"
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
  # The lean module (lethe-web --no-default-features: no `full` feature) compiles other code paths.
  cargo clippy -q -p lethe-web --target wasm32-unknown-unknown --no-default-features -- -D warnings
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
  # The comparison panel's built-in example (panels/compare.js): five methods × 5 seeds on the digits demo.
  cp examples/compare/runs.csv "$SITE/data/digits/compare_runs.csv"
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

# Embedding in real docs sites (issue 17, tests/embed/run.mjs): a MkDocs-Material site and a Sphinx site (pip, venvs
# under target/embed/; Sphinx adds 24 s of pip once, 6 s of build) and a Docusaurus 3 site (npm ci of
# tests/embed/docusaurus/package-lock.json under target/embed/; it takes the element from the npm package, hence
# after dist_npm), built with
# <lethe-eval> embedded as docs/embedding.md says, plus plain, strict-CSP and iframe pages, driven in headless Chromium,
# and nginx with the deployment note's configuration (tests/embed/nginx.conf).
# Installs are cached under target/embed/ on the same machine (first run: about a minute for npm, seconds for pip).
embed_site_tests() {
  log "embedding in MkDocs Material and Docusaurus 3 sites (tests/embed/run.mjs)"
  need_apt python3-venv nginx-light
  node tests/embed/run.mjs
}

# The npm package of the element (issue 25, tools/npm_package.mjs): target/npm/lethe-eval/ from the built site (its
# ES modules, types, stylesheets; the worker made one self-contained module by esbuild, installed once under
# target/npm-tools/ from tools/npm/package-lock.json; the wasm modules and the example's data as files a bundler
# resolves), then `npm pack` → target/dist/lethe-eval-VERSION.tgz (3.6 MB, 7.9 MB unpacked). Measured on 2 shared
# cores: 4 s; 11 s the first time (esbuild's install).
dist_npm() {
  log "npm package: target/npm/lethe-eval → target/dist/lethe-eval-*.tgz"
  node tools/npm_package.mjs "$SITE" "$ROOT/target/dist"
}

# The tarball installed as a user installs it (tests/npm/run.mjs): into a Vite + React 19 app, a webpack 5 app, an
# esbuild app and a VitePress site (their locked dependencies installed once under target/npm-apps/), each built and
# driven in headless Chromium (the example to its headline, the worker gone when the element leaves, no request off the
# page's origin, no hydration mismatch). Measured on 2 shared cores: 132 s the first time (npm ci of four apps, 274 MB
# under target/npm-apps/), 86 s after (installing the tarball, four builds, the runs).
dist_npm_test() {
  log "npm package installed into Vite + React 19, webpack 5, esbuild and VitePress apps (tests/npm/run.mjs)"
  node tests/npm/run.mjs
}

# The project's documentation as a static site (issue 25, tools/docs/): MkDocs Material (the pins and the venv of the
# embedding tests, target/embed/mkdocs-venv) over every page of docs/, a page per statistic with its live teaching
# topic and a runnable <lethe-eval> (tools/docs/pages/), the CLI reference written by the binary from its clap
# definitions (`lethe reference`) and the Python reference from the package's stubs (tools/docs/python_reference.py),
# with the built widget (target/site/) under lethe/. Into target/docs-site/, for LETHE_SITE_URL (default the
# sub-path the test serves it under; for GitHub Pages https://OWNER.github.io/REPO/, README.md "Docs site"), then
# the link check (tools/docs/linkcheck.mjs). LETHE_BIN: a lethe binary to use instead of building the release one.
DOCS_SRC="$ROOT/target/docs-src"
DOCS_OUT="$ROOT/target/docs-site"
docs_site() {
  local url=${LETHE_SITE_URL:-http://127.0.0.1:8000/lethe/}
  local venv="$ROOT/target/embed/mkdocs-venv" req="$ROOT/tests/embed/mkdocs/requirements.txt" lethe=${LETHE_BIN:-}
  log "docs site → target/docs-site/ (site_url $url)"
  [ -f "$SITE/src/lethe-eval.js" ] || { echo "target/site is missing: run ./build.sh site first" >&2; return 1; }
  if [ -z "$lethe" ]; then
    cargo build -q --release -p lethe-cli
    lethe="$ROOT/target/release/lethe"
  fi
  python3 -c "import ensurepip" 2>/dev/null || need_apt python3-venv
  # The same venv and stamp as tests/embed/run.mjs: one install serves both.
  if ! cmp -s "$req" "$venv/lethe-requirements.txt"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req"
    cp "$req" "$venv/lethe-requirements.txt"
  fi
  rm -rf "$DOCS_SRC" "$DOCS_OUT"
  mkdir -p "$DOCS_SRC/docs"
  cp tools/docs/mkdocs.yml "$DOCS_SRC/"
  cp docs/*.md docs/*.png "$DOCS_SRC/docs/"
  rm -f "$DOCS_SRC"/docs/docs-site*.png  # the README's screenshots of this site, on no page of it
  cp -r tools/docs/pages/. "$DOCS_SRC/docs/"
  "$lethe" reference >"$DOCS_SRC/docs/cli-reference.md"
  python3 tools/docs/python_reference.py "$DOCS_SRC/docs/python-reference.md"
  cp -r "$SITE" "$DOCS_SRC/docs/lethe"
  # --strict: a warning (a page left out of the nav, a broken link or anchor in the Markdown) fails the build. Not -q,
  # which hides the warnings from --strict too.
  (cd "$DOCS_SRC" && LETHE_SITE_URL="$url" NO_MKDOCS_2_WARNING=1 "$venv/bin/mkdocs" build --strict -d "$DOCS_OUT" 2>&1 |
    { grep -v '^INFO' || true; }) && [ -f "$DOCS_OUT/index.html" ]
  # The teaching page links to the widget's copy of this doc (a file, not a page: exclude_docs in mkdocs.yml).
  mkdir -p "$DOCS_OUT/lethe/docs"
  cp "$SITE/docs/sde-calibration.md" "$DOCS_OUT/lethe/docs/"
  # GitHub Pages publishes a branch's files as they are, without Jekyll.
  touch "$DOCS_OUT/.nojekyll"
  node tools/docs/linkcheck.mjs "$DOCS_OUT" "$(python3 -c 'import sys, urllib.parse; print(urllib.parse.urlparse(sys.argv[1]).path or "/")' "$url")"
  echo "docs site: $(find "$DOCS_OUT" -name index.html -not -path '*/lethe/*' | wc -l) pages, $(du -sh "$DOCS_OUT" | cut -f1) in target/docs-site/"
}

# The docs site in headless Chromium under a sub-path (tests/docs/run.mjs): every page loads without a 404 or a
# request elsewhere, and each statistic page's teaching topic renders and its <lethe-eval> runs to its headline.
docs_site_tests() {
  docs_site
  log "docs site in headless Chromium under /lethe/ (tests/docs/run.mjs)"
  node tests/docs/run.mjs
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

# --- release artifacts (issue 25): ./build.sh dist → target/dist/ ----------------------------------------------

DIST="$ROOT/target/dist"

# The Python wheel (docs/python.md "Install the wheel"): `maturin build --release` of python/, one abi3 wheel for CPython ≥ 3.9,
# tagged manylinux_2_X as maturin finds it from the glibc symbols the extension uses (its auditwheel check), with
# everything under python/lethe/static/ (pyproject.toml's include: lethe.show's module and styles, lethe.widget's
# module with the full wasm engine, written here by python/widget/build.py from pkg/). Needs Rust (this script's
# setup); the wheel does not. maturin comes from PyPI into build.sh's Python venv, target/python-venv.
dist_wheel() {
  log "wheel: maturin build --release of python/ (abi3, manylinux tag as maturin makes it) → target/dist/"
  python3 -c "import ensurepip" 2>/dev/null || need_apt python3-venv
  local venv="$ROOT/target/python-venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  [ -x "$venv/bin/maturin" ] || "$venv/bin/pip" install -q --disable-pip-version-check 'maturin>=1.5,<2'
  [ -f pkg/lethe_web_bg.wasm ] || wasm_pkg
  python3 python/widget/build.py
  mkdir -p "$DIST"
  rm -f "$DIST"/lethe-*.whl
  # -i: the interpreter maturin develop uses in python_tests (PYO3_PYTHON), so both share one release build.
  (cd python && PATH="$venv/bin:$PATH" maturin build --release -q -i "$venv/bin/python" --out "$DIST")
  local whl
  whl=$(ls "$DIST"/lethe-*.whl)
  echo "$(basename "$whl"): $(stat -c %s "$whl") bytes"
}

# The wheel as a user installs it: a fresh venv outside the repository, a PATH of the venv's bin, /usr/bin and /bin only
# (no cargo, no rustc: checked), `pip install` of the wheel (numpy from PyPI), then from a directory outside the
# repository tests/wheel/installed.py (the wheel's tags, lethe/static/ installed whole, lethe.mia and lethe.sde on the
# demo data with their documented headlines), and with jupyterlab, notebook and anywidget from PyPI in the same venv,
# lethe.widget's engine and the notebook test of lethe.widget in JupyterLab (tests/notebook/widget.test.mjs).
# Measured: about 3 min 20 s on the shared 2-core machine (pip of jupyterlab 77 s, the notebook test 29 s, removing
# the 355 MB venv 69 s); the wheel itself builds in seconds after python_tests' maturin develop (one shared build).
dist_wheel_test() {
  local whl tmp
  whl=$(ls "$DIST"/lethe-*.whl)
  case "$(basename "$whl")" in
    lethe-*-abi3-*manylinux*.whl) ;;
    *) echo "$(basename "$whl"): not an abi3 manylinux wheel" >&2; return 1 ;;
  esac
  tmp=$(mktemp -d)
  log "wheel install test: $(basename "$whl") into a fresh venv in $tmp (kept if it fails), PATH without cargo or rustc"
  python3 -m venv "$tmp/venv"
  (
    export PATH="$tmp/venv/bin:/usr/bin:/bin"
    unset PYTHONPATH VIRTUAL_ENV PYO3_PYTHON
    local tool
    for tool in cargo rustc; do
      if command -v "$tool" >/dev/null; then echo "the wheel test's PATH has $tool: $(command -v "$tool")" >&2; exit 1; fi
    done
    pip install -q --disable-pip-version-check "$whl"
    cd "$tmp"
    python "$ROOT/tests/wheel/installed.py" "$ROOT"
    pip install -q --disable-pip-version-check jupyterlab notebook anywidget
    python "$ROOT/tests/wheel/installed.py" "$ROOT" --widget
    node "$ROOT/tests/notebook/widget.test.mjs" "$tmp/venv" --app lab
  )
  rm -rf "$tmp"
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
    dist_npm
    dist_npm_test
    embed_site_tests
    docs_site_tests
    python_tests
    dist_wheel
    dist_wheel_test
    gpu_browser_tests
    fuzz_smoke
    log "all tests passed"
    ;;
  wasm) setup; wasm_pkg ;;
  site) setup; site ;;
  single) setup; site; single_page ;;
  # Release artifacts into target/dist/, each tested as a user installs it.
  dist)
    setup
    # site builds pkg/ from this tree: the wheel carries the wasm engine, which must compute what the extension
    # computes (a pkg/ left from an older tree gave lethe.widget a Clopper–Pearson bound 2.6e-12 off the kernel's).
    site
    single_page
    dist_npm
    dist_wheel
    dist_npm_test
    dist_wheel_test
    ;;
  site_sizes) site_sizes ;;
  serve) setup; serve ;;
  browser) setup; browser_tests ;;
  python) setup; python_tests ;;
  docs) setup; site; docs_site ;;
  docs_test) setup; site; docs_site_tests ;;
  fuzz) fuzz_smoke ;;
  *) echo "usage: $0 {test|dist|docs|docs_test|serve|setup|wasm|site|single|site_sizes|browser|python|fuzz}" >&2; exit 2 ;;
esac
