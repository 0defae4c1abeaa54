"""Times `lethe mia` (exact ROC + DeLong + 1,000-resample bootstrap) natively and in the browser (the Membership
audit panel of the real page in headless Chromium, bench/mia_page.mjs), and scikit-learn's roc_auc_score,
roc_curve and its bootstrap loop (stratified resamples, roc_auc_score on each: the loop privacy-meter-style notebooks
write), on the same 10^6 + 10^6 seeded scores, in one run. scikit-learn's loop is timed on BOOT_SK resamples and
scaled to 1,000 (a full loop takes tens of minutes); the machine's load average is printed beside each figure.

    cargo build --release -p lethe-cli && ./build.sh site && python3 tests/peers/mia_speed.py [THREADS] [--browser]
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


BOOT_SK = int(os.environ.get("BOOT_SK", "10"))
ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def load():
    return "load average " + ", ".join(f"{x:.1f}" for x in os.getloadavg())


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    browser = "--browser" in sys.argv
    threads = args[0] if args else "1"
    rng = np.random.default_rng(0)
    members, non_members = rng.normal(0.2, 1, N), rng.normal(0, 1, N)
    with tempfile.TemporaryDirectory() as d:
        pm, pn = os.path.join(d, "members.npy"), os.path.join(d, "non_members.npy")
        np.save(pm, members)
        np.save(pn, non_members)
        if browser:
            print(f"browser: starting ({load()})", flush=True)
            page = subprocess.run(["node", os.path.join(ROOT, "bench", "mia_page.mjs"), pm, pn, "1000"],
                                  capture_output=True, check=True, text=True).stdout
            print("browser:", page.strip().splitlines()[-1], flush=True)
        print(f"lethe mia (CLI): starting ({load()})", flush=True)
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
    # scikit-learn's bootstrap loop: class sizes kept (stratified, as Lethe's), roc_auc_score on each resample.
    rng = np.random.default_rng(1)
    t = time.perf_counter()
    for _ in range(BOOT_SK):
        i1, i0 = rng.integers(0, N, N), rng.integers(0, N, N)
        roc_auc_score(y, np.r_[members[i1], non_members[i0]])
    sk_boot_s = (time.perf_counter() - t) / BOOT_SK
    print(f"lethe mia, ROC + DeLong + 1000-resample bootstrap ({threads} thread(s)): {lethe_s:.2f} s "
          f"(AUC {rep['result']['summary']['auc']:.12f})")
    print(f"lethe mia, ROC + DeLong only: {lethe_delong_s:.2f} s")
    print(f"scikit-learn {sklearn.__version__} roc_auc_score: {sk_auc_s:.2f} s (AUC {auc:.12f}); "
          f"roc_curve: {sk_curve_s:.2f} s")
    print(f"scikit-learn bootstrap loop: {sk_boot_s:.2f} s per resample ({BOOT_SK} timed), "
          f"{1000 * sk_boot_s:.0f} s for 1000 resamples ({load()})")


if __name__ == "__main__":
    main()
