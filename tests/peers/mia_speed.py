"""Times `lethe mia` (exact ROC + DeLong + 1,000-resample bootstrap) and scikit-learn's roc_auc_score (and
roc_curve) on the same 10^6 + 10^6 seeded scores, in one run.

    cargo build --release -p lethe-cli && python3 tests/peers/mia_speed.py [THREADS]
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import sklearn
from sklearn.metrics import roc_auc_score, roc_curve

N = 1_000_000
LETHE = os.path.join(os.path.dirname(__file__), "..", "..", "target", "release", "lethe")


def main():
    threads = sys.argv[1] if len(sys.argv) > 1 else "1"
    rng = np.random.default_rng(0)
    members, non_members = rng.normal(0.2, 1, N), rng.normal(0, 1, N)
    with tempfile.TemporaryDirectory() as d:
        pm, pn = os.path.join(d, "members.npy"), os.path.join(d, "non_members.npy")
        np.save(pm, members)
        np.save(pn, non_members)
        cmd = [LETHE, "mia", pm, pn, "--ci", "both", "--resamples", "1000", "--threads", threads, "--json"]
        t = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, check=True, text=True).stdout
        lethe_s = time.perf_counter() - t
        cmd_db = [LETHE, "mia", pm, pn, "--json"]
        t = time.perf_counter()
        subprocess.run(cmd_db, capture_output=True, check=True)
        lethe_delong_s = time.perf_counter() - t
    rep = json.loads(out)
    y = np.r_[np.ones(N), np.zeros(N)]
    s = np.r_[members, non_members]
    t = time.perf_counter()
    auc = roc_auc_score(y, s)
    sk_auc_s = time.perf_counter() - t
    t = time.perf_counter()
    roc_curve(y, s, drop_intermediate=False)
    sk_curve_s = time.perf_counter() - t
    print(f"lethe mia, ROC + DeLong + 1000-resample bootstrap ({threads} thread(s)): {lethe_s:.2f} s "
          f"(AUC {rep['result']['summary']['auc']:.12f})")
    print(f"lethe mia, ROC + DeLong only: {lethe_delong_s:.2f} s")
    print(f"scikit-learn {sklearn.__version__} roc_auc_score: {sk_auc_s:.2f} s (AUC {auc:.12f}); "
          f"roc_curve: {sk_curve_s:.2f} s")


if __name__ == "__main__":
    main()
