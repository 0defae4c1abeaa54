"""Writes examples/compare/runs.csv: five unlearning methods x 5 seeds on the digits demo's models, each scored with
Lethe's own analyses -- the built-in example of `lethe compare` (issue 23).

Per seed s (0..4), on scikit-learn digits with the shared demo's split (split.json: 144 forget rows D_f, 359 test
rows D_te, the other 1294 rows the retain set D_r), with the demo's recipe (examples/sde_calibration/models.py:
MLP (256, 128), ReLU, Adam, 300 epochs, batch 128; random_state = s):

- `noop`: the original, trained on D_f + D_r, unchanged;
- `retrain`: trained on D_r only, same initialisation (random_state = s): the gold standard;
- `finetune`: the original, 5 more epochs on D_r (warm start, fresh Adam state; the demo's "unlearned" model);
- `gradient_ascent`: the original, full-batch gradient-ascent steps (learning rate 2) on the forget rows' mean
  cross-entropy (numpy, on the MLP's weights) until that loss passes chance level, ln 10 (at most 30 steps), then
  2 epochs on D_r (warm start, fresh Adam) to repair it;
- `random_labels`: the original, 3 epochs on the forget rows with random wrong labels.

The RULER oracle of seed s is another retrained model: the same initialisation (random_state = s), D_r in another
(seeded) order, so other mini-batches -- an independent retrain, so that `retrain`'s row is scored against a model
that is not itself (against itself, m1 would be 1 and m2 0 by construction).

Metrics, per (method, seed):
- `mia_auc`: `lethe mia forget.npy test.npy --json`, result.summary.auc: the loss-threshold attack (Yeom et al.
  2018) as LiRA's logit-scaled confidence log p_y - log(sum of the other classes' p), from the logits, on the 144
  forget rows (members of the original's training set) against the 359 test rows (higher = member);
- `ruler_m1`..`ruler_m4`: `lethe ruler --unlearned act_method.npy --oracle act_oracle.npy --original
  act_original.npy --forget forget.txt --retain retain.txt --json` on the penultimate (2nd hidden ReLU) activations
  of the forget and retain rows, result.runs[0]: oracle_similarity, calibration_gap, representation_shift,
  nn_percentile_rank.value;
- `test_accuracy` (model utility) and `forget_accuracy`: computed here, on D_te and D_f.

Seed 0's original, retrain and finetune are the demo's three models: the script checks that their activations equal
examples/data/digits/act_{original,retrained,unlearned}.npy bit for bit before it writes anything.

Usage (repository root; numpy, scipy, scikit-learn; see README.md for the versions):
    python examples/compare/make.py [--lethe target/release/lethe]          # writes examples/compare/runs.csv
    python examples/compare/make.py --check [--lethe ...]                   # regenerates into a temp dir, compares
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS"):
    os.environ[_v] = "1"  # one BLAS thread: the same sums in the same order, the same bytes on a rerun

import argparse  # noqa: E402
import copy  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.exceptions import ConvergenceWarning  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "examples" / "sde_calibration"))
import models  # noqa: E402  (the demo's recipe: load_dataset, _mlp, _hidden)

SEEDS = range(5)
METHODS = ("retrain", "finetune", "gradient_ascent", "random_labels", "noop")
COLUMNS = ("method", "seed", "mia_auc", "ruler_m1", "ruler_m2", "ruler_m3", "ruler_m4", "test_accuracy",
           "forget_accuracy")
EPOCHS = 300          # the demo's recipe
FINETUNE_EPOCHS = 5   # the demo's "unlearned" model
ASCENT_MAX_STEPS, ASCENT_LR, REPAIR_EPOCHS = 30, 2.0, 2
ASCENT_STOP_LOSS = float(np.log(10))  # the forget rows' mean loss at chance (10 classes)
RANDOM_LABEL_EPOCHS = 3


def mlp(seed, epochs=EPOCHS):
    return models._mlp(epochs).set_params(random_state=seed)


def logits(clf, X):
    return models._hidden(clf, X) @ clf.coefs_[-1] + clf.intercepts_[-1]


def continue_fit(clf, X, y, epochs):
    """A copy of clf trained `epochs` more epochs on (X, y): warm start keeps the weights, fit() a fresh Adam."""
    c = copy.deepcopy(clf)
    c.set_params(warm_start=True, max_iter=epochs)
    return c.fit(X, y)


def gradient_ascent(clf, X, y, max_steps, lr, stop_loss):
    """A copy of clf after full-batch steps *up* the mean cross-entropy of (X, y), by backpropagation through the
    ReLU MLP (the L2 term left out: ascent is on the loss alone), until that loss exceeds `stop_loss` or after
    `max_steps` steps. Returns the model and the number of steps taken."""
    c = copy.deepcopy(clf)
    W = [w.copy() for w in c.coefs_]
    b = [v.copy() for v in c.intercepts_]
    onehot = np.eye(W[-1].shape[1])[np.searchsorted(c.classes_, y)]
    steps = 0
    for steps in range(max_steps + 1):
        acts = [X]
        for Wi, bi in zip(W[:-1], b[:-1]):
            acts.append(np.maximum(acts[-1] @ Wi + bi, 0))
        z = acts[-1] @ W[-1] + b[-1]
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        total = p.sum(axis=1, keepdims=True)
        p /= total
        loss = float(np.mean(np.log(total[:, 0]) - z[onehot == 1]))  # mean cross-entropy, from the logits
        if steps == max_steps or loss > stop_loss:
            break
        delta = (p - onehot) / len(X)                       # d mean CE / d logits
        for i in range(len(W) - 1, -1, -1):
            gW, gb = acts[i].T @ delta, delta.sum(axis=0)
            if i > 0:
                delta = (delta @ W[i].T) * (acts[i] > 0)
            W[i] += lr * gW                                 # ascent
            b[i] += lr * gb
    c.coefs_, c.intercepts_ = W, b
    return c, steps


def logit_confidence(z, y):
    """log p_y - log(sum_{j != y} p_j) from logits, computed stably (LiRA's statistic; higher = member)."""
    zy = z[np.arange(len(y)), y]
    other = z.copy()
    other[np.arange(len(y)), y] = -np.inf
    m = other.max(axis=1)
    return zy - (m + np.log(np.exp(other - m[:, None]).sum(axis=1)))


def lethe_json(lethe, args):
    out = subprocess.run([lethe, *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"lethe {' '.join(args)} failed ({out.returncode}):\n{out.stderr}")
    return json.loads(out.stdout)


def fmt(v):
    return format(float(v), ".6g")


def train_all(X, y, split):
    forget, test = split["forget"], split["test"]
    retain = sorted(set(range(len(y))) - set(forget) - set(test))
    train = sorted(forget + retain)
    runs = {}
    for s in SEEDS:
        t = time.time()
        original = mlp(s).fit(X[train], y[train])
        retrained = mlp(s).fit(X[retain], y[retain])
        order = np.random.RandomState(1000 + s).permutation(retain)
        oracle = mlp(s).fit(X[order], y[order])
        rng = np.random.RandomState(2000 + s)
        wrong = (y[forget] + rng.randint(1, 10, size=len(forget))) % 10
        ga, steps = gradient_ascent(original, X[forget], y[forget], ASCENT_MAX_STEPS, ASCENT_LR, ASCENT_STOP_LOSS)
        runs[s] = {
            "original": original,
            "oracle": oracle,
            "retrain": retrained,
            "finetune": continue_fit(original, X[retain], y[retain], FINETUNE_EPOCHS),
            "gradient_ascent": continue_fit(ga, X[retain], y[retain], REPAIR_EPOCHS),
            "random_labels": continue_fit(original, X[forget], wrong, RANDOM_LABEL_EPOCHS),
            "noop": original,
        }
        print(f"seed {s}: models trained in {time.time() - t:.1f} s (gradient ascent: {steps} steps)", file=sys.stderr)
    return runs, retain


def check_demo(runs, X):
    """Seed 0's original, retrain and finetune must be the demo's models: their activations bit for bit."""
    man = json.loads((ROOT / "examples/data/digits/manifest.json").read_text())
    rows = man["source_rows"]
    for ours, demo in (("noop", "original"), ("retrain", "retrained"), ("finetune", "unlearned")):
        shipped = np.load(ROOT / f"examples/data/digits/act_{demo}.npy")
        ours_act = models._hidden(runs[0][ours], X[rows]).astype(np.float32)
        diff = float(np.abs(ours_act - shipped).max())
        if diff != 0.0:
            raise SystemExit(f"seed 0's {ours} model is not the demo's {demo} model: its activations differ from "
                             f"examples/data/digits/act_{demo}.npy by up to {diff}")
    print("seed 0: noop, retrain, finetune = the demo's original, retrained, unlearned (activations bit for bit)",
          file=sys.stderr)


def score(runs, retain, X, y, split, lethe, work):
    forget, test = split["forget"], split["test"]
    rows_fr = forget + retain  # activation files hold the forget rows, then the retain rows
    (work / "forget.txt").write_text("\n".join(map(str, range(len(forget)))) + "\n")
    (work / "retain.txt").write_text("\n".join(map(str, range(len(forget), len(rows_fr)))) + "\n")
    lines = [",".join(COLUMNS)]
    for method in METHODS:
        calls = {"mia": [], "ruler": []}
        codes = set()
        for s in SEEDS:
            m = runs[s]
            clf = m[method]
            for name, model in (("u", clf), ("o", m["oracle"]), ("g", m["original"])):
                np.save(work / f"act_{name}.npy", models._hidden(model, X[rows_fr]).astype(np.float32))
            z_f, z_t = logits(clf, X[forget]), logits(clf, X[test])
            np.save(work / "mia_forget.npy", logit_confidence(z_f, y[forget]))
            np.save(work / "mia_test.npy", logit_confidence(z_t, y[test]))
            mia = lethe_json(lethe, ["mia", str(work / "mia_forget.npy"), str(work / "mia_test.npy")])
            ruler = lethe_json(lethe, ["ruler", "--unlearned", str(work / "act_u.npy"),
                                       "--oracle", str(work / "act_o.npy"), "--original", str(work / "act_g.npy"),
                                       "--forget", str(work / "forget.txt"), "--retain", str(work / "retain.txt")])
            r = ruler["result"]["runs"][0]
            calls["mia"].append(mia["headline"]["call"])
            calls["ruler"].append(ruler["headline"]["call"])
            codes |= {w["code"] for w in mia["warnings"] + ruler["warnings"]}
            vals = [mia["result"]["summary"]["auc"], r["oracle_similarity"], r["calibration_gap"],
                    r["representation_shift"], r["nn_percentile_rank"]["value"],
                    np.mean(z_t.argmax(axis=1) == y[test]), np.mean(z_f.argmax(axis=1) == y[forget])]
            lines.append(",".join([method, str(s)] + [fmt(v) for v in vals]))
        print(f"{method}: mia headlines {calls['mia']}; ruler headlines {calls['ruler']}; warnings "
              f"{sorted(codes)}", file=sys.stderr)
    return "\n".join(lines) + "\n"


def make(out_csv, lethe):
    warnings.filterwarnings("ignore", category=ConvergenceWarning)  # 300 fixed epochs, as the demo's recipe
    t0 = time.time()
    X, y = models.load_dataset("digits")
    split = json.loads((HERE / "split.json").read_text())
    runs, retain = train_all(X, y, split)
    check_demo(runs, X)
    with tempfile.TemporaryDirectory() as work:
        text = score(runs, retain, X, y, split, lethe, Path(work))
    Path(out_csv).write_text(text)
    print(f"wrote {out_csv} in {time.time() - t0:.0f} s", file=sys.stderr)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lethe", default=shutil.which("lethe") or str(ROOT / "target/release/lethe"),
                    help="the lethe binary (default: lethe on PATH, else target/release/lethe)")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary directory and compare the bytes with runs.csv")
    a = ap.parse_args()
    if not (shutil.which(a.lethe) or Path(a.lethe).is_file()):
        raise SystemExit(f"no lethe binary at {a.lethe}: build it (cargo build --release -p lethe-cli) or pass "
                         "--lethe PATH")
    committed = HERE / "runs.csv"
    if not a.check:
        make(committed, a.lethe)
        return
    with tempfile.TemporaryDirectory() as d:
        fresh = make(Path(d) / "runs.csv", a.lethe)
    old = committed.read_text()
    if fresh == old:
        print("check: runs.csv regenerated byte for byte", file=sys.stderr)
        return
    diff = [f"  committed: {o}\n  fresh:     {n}" for o, n in zip(old.splitlines(), fresh.splitlines()) if o != n]
    raise SystemExit("check: the regenerated table differs from examples/compare/runs.csv:\n" + "\n".join(diff[:10]))


if __name__ == "__main__":
    main()
