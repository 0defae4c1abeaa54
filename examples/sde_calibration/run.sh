#!/usr/bin/env bash
# Regenerates docs/sde-calibration.md: builds the CLI, makes a Python environment with the versions the demo models
# were trained with (their activations are checked bit for bit), and runs reproduce.py. Needs ../shared/demo.
# Takes tens of minutes on a 2-core machine (mostly rebuilding the six MLPs once; cached in target/sde-calibration).
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARED=${LETHE_SHARED:-../shared}/demo
[ -d "$SHARED" ] || { echo "no demo data at $SHARED (set LETHE_SHARED)" >&2; exit 1; }
cargo build --release -q -p lethe-cli
VENV=target/sde-calibration/venv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q "numpy==2.4.6" "scikit-learn==1.9.1" "mlxtend==0.25.0"
fi
"$VENV/bin/python" examples/sde_calibration/reproduce.py --shared "$SHARED" --lethe target/release/lethe \
  --cache target/sde-calibration --out docs/sde-calibration.md
