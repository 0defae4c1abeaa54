"""Reproduces the SDE calibration table: the paper's JSD rule vs the calibrated exact-mean rules, on the shared
demo models (MLPs on scikit-learn digits and the MNIST-5k subset), softmax outputs and penultimate activations,
over 5 seeded splits. Every number is computed by Lethe (`lethe calibrate --json`); this script only draws the
row pools, runs the CLI and writes docs/sde-calibration.md.

Usage (from the repository root; run.sh sets up the environment):
    python examples/sde_calibration/reproduce.py --shared ../shared/demo --lethe target/release/lethe \
        --cache target/sde-calibration --out docs/sde-calibration.md
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models  # noqa: E402

SEEDS = range(5)
REFS = 20
TARGETS = 40
SIZES = {"digits": [100], "mnist5k": [100, 200, 300]}
SIGMAS = ["sqrt_dim", "median"]
MODELS = ["original", "retrained", "unlearned"]
RULES = [
    ("paper (JSD, one reference pair)", "paper"),
    ("nearest exact mean (single pair)", "nearest"),
    ("calibrated", "calibrated"),
    ("whole-subset kernel dispersion", "dispersion"),
    ("mean max-softmax confidence", "confidence"),
]


def write_rows(path, rows):
    path.write_text("\n".join(map(str, rows)) + "\n")


def run(lethe, args):
    out = subprocess.run([lethe, "calibrate", *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"lethe calibrate {' '.join(args)} failed:\n{out.stderr}")
    return json.loads(out.stdout)["result"]


def summaries(result):
    return {s["rule"]: s for s in result["summaries"]}


def mean_sd(values):
    v = [x for x in values if x is not None]
    if not v:
        return "–"
    return f"{np.mean(v):.2f} ± {np.std(v):.2f}" if len(v) > 1 else f"{v[0]:.2f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared/demo")
    ap.add_argument("--lethe", default="target/release/lethe")
    ap.add_argument("--cache", default="target/sde-calibration")
    ap.add_argument("--out", default="docs/sde-calibration.md")
    a = ap.parse_args()
    cache = Path(a.cache)
    f1 = {}    # (dataset, rep, sigma, size, rule) -> [F1 per seed]
    otr = {}   # (dataset, rep, sigma, size, model, rule) -> [OTR per seed]
    sep = {}   # (dataset, rep, sigma, size) -> [reference separation in sds per seed]
    t0 = time.time()
    for ds in ("digits", "mnist5k"):
        demo = Path(a.shared) / ds
        man = json.loads((demo / "manifest.json").read_text())
        d_f, d_r, d_te = (man["splits"][k] for k in ("forget_D_f", "retain_D_r", "test_D_te"))
        models.softmax_outputs(demo, cache / ds)  # rebuilds and caches softmax_<model>.npy once
        reps = {
            "softmax": {m: cache / ds / f"softmax_{m}.npy" for m in MODELS},
            "penultimate": {m: demo / f"act_{m}.npy" for m in MODELS},
        }
        for seed in SEEDS:
            rng = np.random.default_rng(1000 + seed)
            r_perm = rng.permutation(d_r)
            half = len(r_perm) // 2
            pools = cache / ds / f"seed{seed}"
            pools.mkdir(parents=True, exist_ok=True)
            # Reference and target rows are disjoint: D_r is split in two halves.
            write_rows(pools / "it_refs.txt", sorted(r_perm[:half].tolist()))
            write_rows(pools / "in_targets.txt", sorted(r_perm[half:].tolist()))
            write_rows(pools / "oot_refs.txt", sorted(d_te))
            write_rows(pools / "forget.txt", sorted(d_f))
            for rep, files in reps.items():
                for sigma in SIGMAS:
                    for size in SIZES[ds]:
                        common = ["--it-pool", str(pools / "it_refs.txt"), "--oot-pool", str(pools / "oot_refs.txt"),
                                  "--size", str(size), "--refs", str(REFS), "--draw", str(TARGETS),
                                  "--sigma", sigma, "--seed", str(seed)]
                        key = (ds, rep, sigma, size)
                        # Controlled experiment on the retrained model: D_r targets are in training, D_f are not.
                        res = run(a.lethe, ["--data", str(files["retrained"]), *common,
                                            "--draw-in", str(pools / "in_targets.txt"),
                                            "--draw-out", str(pools / "forget.txt")])
                        sm = summaries(res)
                        for name, short in RULES:
                            f1.setdefault(key + (short,), []).append(sm[name]["f1"]["f1"] if name in sm else None)
                        sep.setdefault(key, []).append(res["rule"]["separation"])
                        # Forget-set targets under each model: how many are called out of training.
                        for m in MODELS:
                            res = run(a.lethe, ["--data", str(files[m]), *common,
                                                "--draw-from", str(pools / "forget.txt")])
                            sm = summaries(res)
                            for name, short in RULES:
                                otr.setdefault(key + (m, short), []).append(
                                    sm[name]["out_of_training_rate"] if name in sm else None)
            print(f"{ds} seed {seed} done ({time.time() - t0:.0f} s)", flush=True)
    write_doc(Path(a.out), f1, otr, sep, time.time() - t0)


HEADER = """# SDE beyond the paper: exact shuffle moments and a calibrated verdict

*Generated by `examples/sde_calibration/run.sh` (Lethe's own CLI does every computation: `lethe calibrate`).*

## The closed form, and what it implies

The SDE paper splits a subset S into halves S1, S2 and compares the distribution of `HSIC(S1, S2[p])` over T
shuffles of S2 with reference distributions. S1 and S2 hold *different* rows, so their row pairing is arbitrary:
every shuffled value, the unshuffled one included, is a draw from HSIC's permutation null. The distribution's
exact mean over all shuffles has a closed form with no cross-half term,

    E_p[HSIC] = tr(Kc)·(1 − L̄_off)/(h−1)² = h·(1 − K̄₁)·(1 − L̄₂,off)/(h−1)²,

with K̄₁ the mean of all entries of S1's RBF kernel and L̄₂,off the mean off-diagonal entry of S2's, and its exact
variance follows from the permutation moments of the quadratic-assignment statistic Σ Kc_ij L_p(i)p(j) (Lethe
computes both: `crate/src/sde/moments.rs`, tested against full enumeration, the golden shuffles and 20,000-shuffle
runs). So what the paper's statistic measures is the *kernel spread of each half*, not a dependence between the
halves; a subset's 200 shuffles scatter around that mean with a spread that is typically larger than the
differences between subsets, and two 30-bin histograms of 200 values then differ mostly by noise.

Lethe therefore offers, beside (never instead of) the paper's rule:

* **the exact mean** of every subset's shuffle distribution (no shuffles needed),
* **the calibrated verdict**: R reference subsets per class (here 20), rows disjoint from the targets; the midpoint
  rule on the exact mean, with the direction learnt from the references;
* **the single-pair rule**: the nearest exact mean with the paper's one reference pair;
* **diagnostics**: the whole-subset kernel dispersion and, for probability outputs, the mean max-softmax
  confidence, under the same references and rule.

## Setup

Models: the shared demo's MLPs (hidden 256, 128) — `original` (trained on D_f ∪ D_r), `retrained` (D_r only) and
`unlearned` (original fine-tuned 5 epochs on D_r) — on scikit-learn digits (D_f = 144 rows) and the MNIST-5k subset
(D_f = 400). Representations: softmax outputs (10-d) and penultimate activations (128-d). The demo's
`H_<model>_softmax.npy` files do not hold per-row softmax outputs, so `models.py` rebuilds the three models from
their manifest recipe, **checks that the rebuilt penultimate activations equal the shipped `act_<model>.npy`
exactly**, and uses the rebuilt models' softmax outputs. 5 seeded splits: D_r split into a reference half and a
target half; in-training references from the first, out-of-training references from D_te; 20 reference subsets
per class; 40 targets per class; |S| rows per subset; T = 200 shuffles for the paper rule; σ = sqrt(dim) (the
paper's default) and the median heuristic. Cells are mean ± sd over the 5 splits.
"""


def write_doc(path, f1, otr, sep, seconds):
    lines = [HEADER]
    lines.append("## Controlled F1 (retrained model: D_r targets in training, D_f targets not)\n")
    lines.append("| data | representation | σ | \\|S\\| | references apart (sds) | paper JSD | nearest exact mean | "
                 "calibrated | kernel dispersion | max-softmax confidence |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    keys = sorted({k[:4] for k in f1}, key=lambda k: (k[0], k[1] != "softmax", k[2], k[3]))
    for k in keys:
        cells = [mean_sd(f1[k + (r,)]) for _, r in RULES]
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {mean_sd(sep[k])} | " + " | ".join(cells) + " |")
    lines.append("\n## Out-of-training rate of forget-set targets\n")
    lines.append("Fraction of the 40 D_f targets called out of training. Ideal: near 0 under `original` (D_f was in "
                 "training), near 1 under `retrained`.\n")
    lines.append("| data | representation | σ | \\|S\\| | model | paper JSD | nearest exact mean | calibrated | "
                 "kernel dispersion | max-softmax confidence |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    for k in keys:
        for m in MODELS:
            cells = [mean_sd(otr[k + (m, r)]) for _, r in RULES]
            lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {m} | " + " | ".join(cells) + " |")
    lines.append(f"\n*{len(keys) * len(SEEDS) * (1 + len(MODELS))} runs of `lethe calibrate`, "
                 f"{seconds / 60:.1f} minutes on this machine.*\n")
    path.write_text("\n".join(lines))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
