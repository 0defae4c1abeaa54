#!/usr/bin/env bash
# Lethe's own JSON reports for several seeds and three "methods", written by the CLI (--json), then compared.
#   bench/trial_compare/lethe_reports.sh OUT_DIR [LETHE] [PYTHON]
# PYTHON needs numpy and scikit-learn (for /work/shared/trial/make_user_files.py, a stranger's data per seed).
# Methods: the three models make_user_files trains on each seed's data — "original" (never unlearned),
# "finetune" (the original fine-tuned on the retain rows) and "retrain" (trained without the forget rows).
set -euo pipefail
OUT=$1; L=${2:-lethe}; PY=${3:-python3}
HERE=$(cd "$(dirname "$0")" && pwd)
MAKE=${MAKE_USER_FILES:-$HERE/../../../shared/trial/make_user_files.py}
[ -f "$MAKE" ] || MAKE=/work/shared/trial/make_user_files.py
SEEDS=${SEEDS:-"201 202 203 204"}
mkdir -p "$OUT"
for s in $SEEDS; do
  d=$OUT/data/seed$s
  [ -f "$d/README.txt" ] || "$PY" "$MAKE" "$d" --seed "$s"
  # membership scores a user would export: each model's probability of the true label, forget rows vs test rows
  "$PY" - "$d" <<'PY'
import sys, numpy as np
d = sys.argv[1]
for m in ("original", "unlearned", "retrained"):
    P = np.loadtxt(f"{d}/softmax_{m}.csv", delimiter=",", skiprows=1)
    p = P[np.arange(len(P)), P[:, -1].astype(int)]
    for split in ("forget", "test"):
        idx = np.loadtxt(f"{d}/{split}.txt", dtype=int)
        np.savetxt(f"{d}/score_{m}_{split}.txt", p[idx], fmt="%.6f")
PY
  for pair in original:original finetune:unlearned retrain:retrained; do
    meth=${pair%%:*}; model=${pair##*:}
    mkdir -p "$OUT/reports/$meth"
    "$L" mia "$d/score_${model}_forget.txt" "$d/score_${model}_test.txt" --json > "$OUT/reports/$meth/mia_seed$s.json"
    "$L" ruler --unlearned "$d/acts_$model.npy" --oracle "$d/acts_retrained.npy" --original "$d/acts_original.npy" \
      --forget "$d/forget.txt" --retain "$d/retain.txt" --json > "$OUT/reports/$meth/ruler_seed$s.json"
  done
done
echo "reports in $OUT/reports"
