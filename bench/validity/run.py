#!/usr/bin/env python3
"""How often each headline is wrong, on models whose truth is known (issue 22 item 5; docs/validity.md).

Trains small scikit-learn MLPs the way an unlearning paper does — the original on forget ∪ retain, a retrained model
on retain only (truth: the forget rows were never seen), and two approximate unlearners whose truth is not known
exactly (the original fine-tuned on retain; the original fine-tuned on the forget rows with random labels) — on
datasets scikit-learn ships (nothing is downloaded), for several model widths and seeds. Then it runs the `lethe` CLI
(--json) on what a user would export, and tallies each analysis's headline against the truth:

  sde        target = the forget rows' activations, references = retain rows (in training) and test rows (out),
             equal sizes drawn (--equal-size); truth for the original: in training; for the retrained: out.
  ruler      unlearned = the model's activations, oracle = a retrained model of another seed, original given;
             truth for the original in the unlearned slot: residual memorisation; for a retrained model: none.
  mia        members = the forget rows' losses under the model, non-members = the test rows' losses
             (--lower-is-member); truth for the original: members; for the retrained: the forget rows are not.
  epsilon    N retrained models against N original models (truth: not forgotten) and against N other retrained
             models (truth: perfectly forgotten), logits + labels; the headline has no binary call, so the table
             gives F beside the baseline it now reports.

A "false call" is a confident headline that the truth contradicts (SDE "in training" on the retrained model, RULER
"residual memorisation" on a retrained model, MIA "distinguishes" on the retrained model); "detected" a confident
headline that agrees with the truth; the rest is "inconclusive". Each rate comes with a Clopper-Pearson 95% interval.

    python3 bench/validity/run.py [--quick] [--lethe target/release/lethe] [--out docs/validity.md]

--quick: one dataset, one width, two seeds (a smoke check of the harness). The table is written between the markers
<!-- validity:begin --> and <!-- validity:end --> of --out.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from scipy.stats import beta
from sklearn.datasets import load_breast_cancer, load_digits, load_wine, make_classification
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# Each analysis's headline calls (analysis/src/analyses/*.rs) as positive (the model remembers / leaks), negative
# (it does not) or none (inconclusive, or a call that claims neither). An unknown call fails the run.
CALLS = {
    "sde": {"in_training": "positive", "out_of_training": "negative", "inconclusive": "none"},
    "ruler": {"residual_memorisation": "positive", "at_null": "negative", "over_displaced": "negative",
              "inconclusive": "none"},
    "calibrate": {"in_training": "positive", "out_of_training": "negative", "inconclusive": "none"},
    # Many targets: the headline's counts over the unlabelled (forget) targets, read as the majority of the decided
    # ones (see many_call); "inconclusive" when none is decided or they split evenly.
    "sde (softmax)": {"in_training": "positive", "out_of_training": "negative", "inconclusive": "none"},
    "calibrate (softmax)": {"in_training": "positive", "out_of_training": "negative", "inconclusive": "none"},
    "sde-many": {"in_training": "positive", "out_of_training": "negative", "inconclusive": "none"},
    "lira": {"distinguishes": "positive", "no_evidence": "none", "distinguishes_reversed": "none",
             "inconclusive": "none"},
    # "No evidence" is not a claim that the model leaks nothing (its headline says so): counted as no call.
    "mia": {"distinguishes": "positive", "no_evidence": "none", "distinguishes_reversed": "none",
            "inconclusive": "none"},
}


def datasets(quick):
    out = []
    X, y = make_classification(1500, 20, n_informative=8, n_classes=3, n_clusters_per_class=2, flip_y=0.05,
                               random_state=7)
    out.append(("make_classification 1500×20, 3 classes", X, y))
    if quick:
        return out
    X, y = make_classification(1200, 40, n_informative=10, n_classes=2, flip_y=0.1, class_sep=0.8, random_state=11)
    out.append(("make_classification 1200×40, 2 classes", X, y))
    d = load_digits()
    out.append(("digits 1797×64", d.data, d.target))
    d = load_breast_cancer()
    out.append(("breast_cancer 569×30", d.data, d.target))
    d = load_wine()
    out.append(("wine 178×13", d.data, d.target))
    return out


def hidden(m, X):
    h = X
    for W, b in zip(m.coefs_[:-1], m.intercepts_[:-1]):
        h = np.maximum(h @ W + b, 0)
    return h


def logits(m, X):
    z = hidden(m, X) @ m.coefs_[-1] + m.intercepts_[-1]
    if z.shape[1] == 1:  # binary: scikit-learn's single logit → two classes
        z = np.hstack([-z / 2, z / 2])
    return z


def losses(m, X, y):
    p = m.predict_proba(X)
    cls = list(m.classes_)
    idx = np.array([cls.index(v) for v in y])
    return -np.log(np.clip(p[np.arange(len(y)), idx], 1e-12, 1))


def copy_of(m, seed):
    c = MLPClassifier(m.hidden_layer_sizes, max_iter=1, warm_start=True, random_state=seed)
    c.coefs_ = [w.copy() for w in m.coefs_]
    c.intercepts_ = [b.copy() for b in m.intercepts_]
    for k in ("classes_", "n_outputs_", "n_layers_", "out_activation_", "_label_binarizer", "n_features_in_",
              "_no_improvement_count", "best_loss_", "loss_curve_", "t_", "_best_coefs", "_best_intercepts"):
        if hasattr(m, k):
            setattr(c, k, getattr(m, k))
    c.loss_ = getattr(m, "loss_", 0.0)
    c.n_iter_ = getattr(m, "n_iter_", 0)
    return c


def gradient_ascent(m, X, y, steps=30, lr=0.2, floor=None):
    """The original, `steps` full-batch steps of gradient *ascent* on the cross-entropy of the forget rows (X, y)
    (the plain approximate unlearner of the unlearning papers), stopped early once the forget rows' accuracy falls
    to `floor` (the test rows' accuracy, as such papers do, so that the model is not simply destroyed)."""
    g = copy_of(m, 0)
    cls = list(g.classes_)
    idx = np.array([cls.index(v) for v in y])
    for _ in range(steps):
        if floor is not None and (g.predict(X) == y).mean() <= floor:
            break
        W1, b1, W2, b2 = g.coefs_[0], g.intercepts_[0], g.coefs_[1], g.intercepts_[1]
        h = np.maximum(X @ W1 + b1, 0)
        z = h @ W2 + b2
        if z.shape[1] == 1:  # binary: one logistic output
            p = 1 / (1 + np.exp(-z))
            dz = (p - idx[:, None]) / len(y)
        else:
            p = np.exp(z - z.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            p[np.arange(len(y)), idx] -= 1
            dz = p / len(y)
        dh = (dz @ W2.T) * (h > 0)
        # Ascent: each parameter moves along its gradient of the loss.
        g.coefs_ = [W1 + lr * X.T @ dh, W2 + lr * h.T @ dz]
        g.intercepts_ = [b1 + lr * dh.sum(0), b2 + lr * dz.sum(0)]
    return g


def train(X, y, rows, width, seed, epochs=300):
    m = MLPClassifier((width,), max_iter=epochs, random_state=seed)
    m.fit(X[rows], y[rows])
    return m


def scenario(X, y, width, seed):
    """The split and the four models of one (dataset, width, seed)."""
    rng = np.random.default_rng(seed)
    n = len(y)
    order = rng.permutation(n)
    n_test, n_forget = n // 5, max(30, n // 10)
    test, forget, retain = order[:n_test], order[n_test:n_test + n_forget], order[n_test + n_forget:]
    X = StandardScaler().fit(X[np.r_[forget, retain]]).transform(X).astype(np.float64)
    orig = train(X, y, np.r_[forget, retain], width, seed)
    retr = train(X, y, retain, width, seed + 1000)
    oracle = train(X, y, retain, width, seed + 2000)  # RULER's oracle: another retrained model
    fine = copy_of(orig, seed)
    for _ in range(5):
        fine.partial_fit(X[retain], y[retain])
    rl = copy_of(orig, seed)
    wrong = (y[forget] + 1 + rng.integers(0, len(np.unique(y)) - 1, len(forget))) % len(np.unique(y))
    for _ in range(3):
        rl.partial_fit(X[forget], wrong)
    ga = gradient_ascent(orig, X[forget], y[forget], floor=(orig.predict(X[test]) == y[test]).mean())
    return X, y, {"forget": forget, "retain": retain, "test": test}, {
        "original": orig, "retrained": retr, "fine-tune on retain": fine, "random labels on forget": rl,
        "gradient ascent on forget": ga}, oracle


TRUTH = {"original": "positive", "retrained": "negative"}
METHODS = ["original", "retrained", "fine-tune on retain", "random labels on forget", "gradient ascent on forget"]


REFUSALS = []  # (analysis, the CLI's message): counted as no call, and listed under the table


def lethe(cli, args):
    out = subprocess.run([cli] + args + ["--json"], capture_output=True, text=True)
    if out.returncode != 0:
        REFUSALS.append((args[0], out.stderr.strip()[:300]))
        return {"headline": {"call": "refused", "text": out.stderr.strip()[:300]}}
    report = json.loads(out.stdout)
    keep = os.environ.get("LETHE_VALIDITY_REPORTS")  # a folder: every report kept, to study the calls afterwards
    if keep:
        os.makedirs(keep, exist_ok=True)
        n = len(os.listdir(keep))
        with open(os.path.join(keep, f"{n:05d}-{args[0]}.json"), "w") as f:
            json.dump({"args": args, "report": report}, f)
    return report


def run(cli, quick, log, only=None, seeds=None):
    tmp = tempfile.mkdtemp(prefix="lethe-validity-")
    try:
        return run_in(tmp, cli, quick, log, only, seeds)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # also when a run fails (a full disk, an unknown call)


def run_in(tmp, cli, quick, log, only, seeds=None):
    want = lambda a: only is None or a in only
    warnings.filterwarnings("ignore")
    tally = {}  # (analysis, method) -> list of (dataset, width, seed, call)
    comp = []
    widths = [64] if quick else [64, 128]
    seeds = seeds or ([1, 2] if quick else [1, 2, 3])
    for name, X0, y0 in datasets(quick):
        made = {}  # (width, seed) -> the scenario, for LiRA's shadows
        for width in widths:
            for seed in seeds:
                X, y, rows, models, oracle = scenario(X0, y0, width, seed)
                made[(width, seed)] = (X, y, rows, models)
                d = os.path.join(tmp, f"{abs(hash(name)) % 10000}_{width}_{seed}")
                os.makedirs(d, exist_ok=True)
                for k, v in rows.items():
                    np.savetxt(os.path.join(d, f"{k}.txt"), v, fmt="%d")
                np.save(os.path.join(d, "oracle.npy"), hidden(oracle, X))
                np.save(os.path.join(d, "original.npy"), hidden(models["original"], X))
                for method, m in models.items():
                    a = os.path.join(d, f"acts_{method.replace(' ', '_')}.npy")
                    np.save(a, hidden(m, X))
                    f, r, t = (os.path.join(d, f"{k}.txt") for k in ("forget", "retain", "test"))
                    if want("sde"):
                        rep = lethe(cli, ["sde", "--it", f"{a}@{r}", "--oot", f"{a}@{t}", "--target", f"{a}@{f}",
                                          "--equal-size", "--seed", str(seed)])
                        tally.setdefault(("sde", method), []).append((name, width, seed, rep["headline"]["call"]))
                    # SDE and calibrate also on the softmax outputs, where the calibrated-SDE study found the signal
                    # (docs/sde-calibration.md); the hidden layer is what the rows above use.
                    sm = os.path.join(d, f"softmax_{method.replace(' ', '_')}.npy")
                    np.save(sm, m.predict_proba(X))
                    if want("sde"):
                        rep = lethe(cli, ["sde", "--it", f"{sm}@{r}", "--oot", f"{sm}@{t}", "--target", f"{sm}@{f}",
                                          "--equal-size", "--seed", str(seed)])
                        tally.setdefault(("sde (softmax)", method), []).append((name, width, seed,
                                                                                rep["headline"]["call"]))
                    if want("calibrate"):
                        # Calibrated SDE: 20 reference subsets per class of the forget set's size, exact shuffle
                        # means (no paper shuffles), the default margin; one target, the forget rows.
                        for an, data in (("calibrate", a), ("calibrate (softmax)", sm)):
                            rep = lethe(cli, ["calibrate", "--data", data, "--it-pool", r, "--oot-pool", t,
                                              "--target", f, "--equal-size", "--size", str(len(rows["forget"])),
                                              "--refs", "20", "--paper-shuffles", "0", "--seed", str(seed)])
                            tally.setdefault((an, method), []).append((name, width, seed, rep["headline"]["call"]))
                    if want("sde-many"):
                        rep = sde_many(cli, a, rows, d, seed)
                        tally.setdefault(("sde-many", method), []).append((name, width, seed, many_call(rep)))
                    if want("ruler"):
                        rep = lethe(cli, ["ruler", "--unlearned", a, "--oracle", os.path.join(d, "oracle.npy"),
                                          "--original", os.path.join(d, "original.npy"), "--forget", f, "--retain", r])
                        tally.setdefault(("ruler", method), []).append((name, width, seed, rep["headline"]["call"]))
                    if not want("mia"):
                        continue
                    lf, lt = losses(m, X[rows["forget"]], y[rows["forget"]]), losses(m, X[rows["test"]], y[rows["test"]])
                    mf, mt = os.path.join(d, "loss_forget.npy"), os.path.join(d, "loss_test.npy")
                    np.save(mf, lf)
                    np.save(mt, lt)
                    rep = lethe(cli, ["mia", mf, mt, "--lower-is-member"])
                    tally.setdefault(("mia", method), []).append((name, width, seed, rep["headline"]["call"]))
                shutil.rmtree(d, ignore_errors=True)  # the disk is shared and small
                log(f"{name}, width {width}, seed {seed}: done")
        if want("lira"):
            for width in widths[:1]:  # one width: each shadow is a full training run
                for seed in seeds:
                    for method, call in lira(made[(width, seed)], tmp, cli, width, seed, LIRA_SHADOWS, name):
                        tally.setdefault(("lira", method), []).append((name, width, seed, call))
                    log(f"{name}, width {width}, seed {seed}: LiRA done")
        # The competition score: N models per side on the first setting of each dataset (a paper's 512 would take
        # hours here).
        if name.startswith("make_classification 1500") and want("epsilon"):
            comp.extend(competition(X0, y0, tmp, cli, n_models=4 if quick else 8, log=log))
    return tally, comp


LIRA_SHADOWS = 8  # few, as a user with a small budget has: each is a full training run
MANY = 10  # unlabelled targets drawn from the forget rows, and labelled controls drawn from each class


def sde_many(cli, acts, rows, d, seed):
    """Many-targets SDE as a user runs it with controls: the retain and test rows each split in halves, one half
    the reference (in / out of training), the other the pool of MANY labelled control targets; MANY unlabelled
    targets of half the forget set's rows drawn from the forget rows."""
    rng = np.random.default_rng(seed + 77)
    ret, tst = rng.permutation(rows["retain"]), rng.permutation(rows["test"])
    parts = {"it_ref": ret[: len(ret) // 2], "it_ctl": ret[len(ret) // 2:],
             "oot_ref": tst[: len(tst) // 2], "oot_ctl": tst[len(tst) // 2:]}
    for k, v in parts.items():
        np.savetxt(os.path.join(d, f"{k}.txt"), v, fmt="%d")
    p = lambda k: f"{acts}@{os.path.join(d, k + '.txt')}"
    size = max(10, min(len(rows["forget"]) // 2, len(parts["oot_ctl"]) // 2))
    return lethe(cli, ["sde", "--it", p("it_ref"), "--oot", p("oot_ref"), "--equal-size",
                       "--draw-from", f"{acts}@{os.path.join(d, 'forget.txt')}", "--draw-in", p("it_ctl"),
                       "--draw-out", p("oot_ctl"), "--draw", str(MANY), "--size", str(size), "--seed", str(seed)])


def many_call(rep):
    """A many-targets headline as one call: the majority of the decided unlabelled targets ("9 of 10 in training"
    reads as in training); none decided, or an even split, is inconclusive."""
    h = rep["headline"]
    if h["call"] != "out_of_training_rate":
        return h["call"]
    m = re.search(r"(\d+) targets: (\d+) out of training, (\d+) in training", h["text"])
    if not m:
        raise SystemExit(f"many-targets SDE headline not understood: {h['text']}")
    o, i = int(m.group(2)), int(m.group(3))
    return "in_training" if i > o else "out_of_training" if o > i else "inconclusive"


def lira(made, tmp, cli, width, seed, n_shadows, name):
    """LiRA as a user runs it: n_shadows shadow models, each trained on the retain rows and a random half of the
    audited examples (forget ∪ test), scored as mi_lira_2021's score.py does (logit of the true class's
    probability); the target is the original (truth: the forget rows are members) or the retrained model (truth:
    no audited example is), with keep = the forget rows, as the user claims them."""
    X, y, rows, models = made
    ex = np.r_[rows["forget"], rows["test"]]
    rng = np.random.default_rng(seed + 99)

    def score(m):
        p = np.clip(m.predict_proba(X[ex]), 1e-12, 1)
        cls = list(m.classes_)
        py = p[np.arange(len(ex)), [cls.index(v) for v in y[ex]]]
        return np.log(py) - np.log(np.clip(1 - py, 1e-12, 1))

    # Every example in exactly half of the shadows (as train.py's --num_experiments does), so that each has IN and
    # OUT shadows to fit.
    halves = rng.random((n_shadows, len(ex))).argsort(0) < n_shadows // 2
    keep, scores = [], []
    for k, half in enumerate(halves):
        m = train(X, y, np.r_[rows["retain"], ex[half]], width, seed * 1000 + 500 + k)
        keep.append(half)
        scores.append(score(m))
    claim = np.r_[np.ones(len(rows["forget"]), bool), np.zeros(len(rows["test"]), bool)]
    out = []
    d = os.path.join(tmp, f"lira_{width}_{seed}_{abs(hash(name)) % 10000}")
    os.makedirs(d, exist_ok=True)
    for method in ("original", "retrained"):
        sp, kp = os.path.join(d, f"scores_{method}.npy"), os.path.join(d, f"keep_{method}.npy")
        np.save(sp, np.stack(scores + [score(models[method])])[:, :, None])
        np.save(kp, np.stack(keep + [claim]))
        rep = lethe(cli, ["lira", "--scores", sp, "--keep", kp])
        out.append((method, rep["headline"]["call"]))
    shutil.rmtree(d, ignore_errors=True)
    return out


def competition(X0, y0, tmp, cli, n_models, log):
    X, y, rows, _, _ = scenario(X0, y0, 32, 1)
    f = rows["forget"]
    fr = np.r_[rows["forget"], rows["retain"]]
    side = lambda rs, seed0: np.stack([logits(train(X, y, rs, 32, seed0 + k, epochs=200), X[f]) for k in range(n_models)])
    retr, retr2, orig = side(rows["retain"], 100), side(rows["retain"], 200), side(fr, 300)
    d = os.path.join(tmp, "competition")
    os.makedirs(d, exist_ok=True)
    paths = {}
    for k, v in {"retrained": retr, "retrained2": retr2, "original": orig}.items():
        paths[k] = os.path.join(d, f"{k}.npy")
        np.save(paths[k], v.astype(np.float32))
    lab = os.path.join(d, "labels.npy")
    np.save(lab, y[f].astype(np.int64))
    out = []
    for what, other, truth in [("other retrained models (a perfect unlearner)", "retrained2", "forgotten"),
                               ("original models (no unlearning)", "original", "not forgotten")]:
        rep = lethe(cli, ["epsilon", "--retrained-logits", paths["retrained"], "--unlearned-logits", paths[other],
                          "--labels", lab])
        b = rep.get("result", {}).get("baseline") or {}
        F = rep.get("result", {}).get("results", [{}])[0].get("forget_score")
        out.append((what, truth, n_models, F, b.get("perfect_mean"), b.get("unlearned_mean"),
                    rep["headline"]["text"][:160]))
        log(f"competition: {what}: F = {F}")
    return out


def cp(k, n):
    lo = 0.0 if k == 0 else beta.ppf(0.025, k, n - k + 1)
    hi = 1.0 if k == n else beta.ppf(0.975, k + 1, n - k)
    return lo, hi


def table(tally, comp):
    lines = ["| analysis | model in the unlearned slot | truth | runs | false calls | detected | inconclusive |",
             "|---|---|---|---|---|---|---|"]
    unknown = set()
    order = lambda k: (METHODS.index(k[1]) if k[1] in METHODS else len(METHODS),
                       list(CALLS).index(k[0]) if k[0] in CALLS else len(CALLS))
    for (analysis, method), runs in sorted(tally.items(), key=lambda kv: order(kv[0])):
        kinds = []
        for *_, call in runs:
            k = CALLS[analysis].get(call)
            if k is None:
                if call == "refused":
                    k = "none"
                else:
                    unknown.add((analysis, call))
                    continue
            kinds.append(k)
        n = len(kinds)
        truth = TRUTH.get(method)
        rate = lambda c: f"{c}/{n} = {c / n:.2f} [{cp(c, n)[0]:.2f}, {cp(c, n)[1]:.2f}]" if n else "—"
        pos, neg, none = (kinds.count("positive"), kinds.count("negative"), kinds.count("none"))
        if truth == "positive":
            false, det, t = neg, pos, "in training / remembers"
        elif truth == "negative":
            false, det, t = pos, neg, "never saw the forget rows"
        else:
            lines.append(f"| {analysis} | {method} | not known exactly | {n} | (says remembers: {pos}) | "
                         f"(says forgot: {neg}) | {rate(none)} |")
            continue
        lines.append(f"| {analysis} | {method} | {t} | {n} | {rate(false)} | {rate(det)} | {rate(none)} |")
    refused = [r for runs in tally.values() for *_, r in runs if r == "refused"]
    wrong = [(a, m, n, w, sd, c) for (a, m), runs in tally.items() for n, w, sd, c in runs
             if TRUTH.get(m) and CALLS[a].get(c) not in (None, "none", TRUTH[m])]
    if wrong:
        lines += ["", "False calls: " + "; ".join(f"{a} on the {m} model, {n}, width {w}, seed {sd} ({c})"
                                               for a, m, n, w, sd, c in sorted(wrong))]
    if unknown:
        raise SystemExit(f"headline calls this script does not know: {sorted(unknown)} (add them to CALLS)")
    lines += ["", f"Refusals (counted as no call): {len(refused)}" + "".join(
        f"\n- `{a}`: {m}" for a, m in sorted(set((a, m.splitlines()[0] if m else "") for a, m in REFUSALS)))]
    lines += ["", "| competition: unlearned side | truth | models per side | F (official) | perfect unlearner's F "
              "at N/2 (baseline) | this side's F at N/2 |", "|---|---|---|---|---|---|"]
    for what, truth, n, F, p, u, _ in comp:
        f = lambda v: "—" if v is None else f"{v:.3f}"
        lines.append(f"| {what} | {truth} | {n} | {f(F)} | {f(p)} | {f(u)} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--lethe", default=os.path.join(ROOT, "target", "release", "lethe"))
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "validity.md"))
    ap.add_argument("--seeds", help="comma-separated seeds instead of 1,2,3 (held-out seeds check a rule read off the "
                    "table's runs); the table is then printed, not written into --out")
    ap.add_argument("--only", help="comma-separated analyses (sde, calibrate, sde-many, ruler, mia, lira, epsilon); the table is then printed, "
                    "not written into --out")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    seeds = [int(x) for x in a.seeds.split(",")] if a.seeds else None
    t0 = time.time()
    load0 = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else None
    tally, comp = run(a.lethe, a.quick, lambda s: print(f"[{time.time() - t0:6.1f} s] {s}", file=sys.stderr), only, seeds)
    t = table(tally, comp)
    version = subprocess.run([a.lethe, "--version"], capture_output=True, text=True).stdout.strip()
    load1 = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else None
    cmd = " ".join(["bench/validity/run.py"] + sys.argv[1:])
    stamp = (f"\n\n*{'Quick run' if a.quick else 'Run'} of `{cmd}` with {version} (`{a.lethe}`), "
             f"{time.time() - t0:.0f} s wall on {os.cpu_count()} CPUs"
             + (f"; load average (1, 5, 15 min) {' '.join(load0)} at the start, {' '.join(load1)} at the end"
                if load0 and load1 else "") + ".*")
    body = t + stamp
    print(body)
    if os.path.exists(a.out) and only is None and seeds is None:
        doc = open(a.out).read()
        b, e = "<!-- validity:begin -->", "<!-- validity:end -->"
        if b in doc and e in doc:
            doc = doc[:doc.index(b) + len(b)] + "\n" + body + "\n" + doc[doc.index(e):]
            open(a.out, "w").write(doc)


if __name__ == "__main__":
    main()
