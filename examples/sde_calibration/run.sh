#!/usr/bin/env bash
# Regenerates docs/sde-calibration.md: builds the CLI, makes a Python environment with the versions the demo models
# were trained with (their activations are checked bit for bit), and runs reproduce.py. Needs the shared demo data
# (../shared/demo beside the repository, or LETHE_SHARED=<folder containing demo/>) and, the first time, PyPI.
# The first run rebuilds the six MLPs once for their softmax outputs (a few minutes; cached in
# target/sde-calibration); the 320 `lethe calibrate` jobs then take about a minute on a 2-core machine. The doc's
# last line records both times.
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=${LETHE_SHARED:-../shared}/demo
if [ ! -f "$SHARED/digits/manifest.json" ] || [ ! -f "$SHARED/mnist5k/manifest.json" ]; then
  cat >&2 <<MSG
examples/sde_calibration/run.sh: no shared demo data at $SHARED
  It holds the digits and MNIST-5k models' activations and manifests (digits/, mnist5k/), normally in
  ../shared/demo beside this repository. Set LETHE_SHARED to the folder that contains demo/, e.g.
  LETHE_SHARED=/work/shared examples/sde_calibration/run.sh
MSG
  exit 1
fi
cargo build --release -q -p lethe-cli
VENV=target/sde-calibration/venv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "numpy==2.4.6" "scikit-learn==1.9.1" "mlxtend==0.25.0"
fi
"$VENV/bin/python" examples/sde_calibration/reproduce.py --shared "$SHARED" --lethe target/release/lethe \
  --cache target/sde-calibration --out docs/sde-calibration.md
