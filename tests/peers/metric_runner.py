"""Runs the NeurIPS 2023 unlearning competition's official scoring code, unmodified, and writes its outputs as fixtures.

The authors' google-deepmind/unlearning_evaluation `metric.py` (commit ffae0ff, "Open-sourcing A") needs torch and
a CUDA GPU. This runner puts `tests/peers/torch_shim` first on `sys.path`, so metric.py's `import torch` gets Lethe's
numpy-backed stand-in for torch 1.12.1 on CUDA (its docstring records how every torch step metric.py takes is
computed: float32 default-dtype `torch.linspace` from the CPU kernel with FMA blocks, the CUDA `mean` that multiplies
by float(T)/float(N*T), torch's type promotion), and loads metric.py from the path given on the command line. Their
code is read at run time and not copied into this repository.

Usage (repository root), with the pinned reference environment (numpy 2.4.6):

    git -C /path/to/unlearning_evaluation show ffae0ff:metric.py > /tmp/metric.py
    /tmp/pyref/bin/python tests/peers/metric_runner.py /tmp/metric.py

It writes tests/fixtures/peers/competition_official_{n8,n16,n64,n512,misc}.json (metric.py on the cases of
`_cases` below), competition_numpy_f32.json (numpy's float32 np.log / np.exp, which metric.py's epsilons go through)
and competition_confidence.json (metric.py's `compute_logit_scaled_confidence`); torch_linspace.py writes the torch
grid fixture. Takes about 5 minutes on two cores and 2 GB of memory (metric.py tiles [512 models x 160,000
thresholds] float64 arrays; peak RSS measured 1.8 GB).

Where metric.py itself breaks, and what this runner does about it (metric.py's source is never edited):

* `assert thr_eps, ...` in `_get_epsilons` is applied to a numpy array. That raises ValueError whenever more than one
  threshold survives (and, under numpy >= 2.2, when none does), and AssertionError when exactly one survives with
  epsilon 0.0, so metric.py as published cannot score anything. The evident intent is "at least one threshold
  survived". The runner compiles metric.py with assertions removed (`compile(..., optimize=1)`, what `python -O`
  does); everything else runs as written. Where no threshold survives, metric.py's next line, `np.nanmax` of an
  empty array, raises ValueError: the runner records `None` for that example (checking that metric.py's own
  `keep_inds` is empty) and `None` for the case's forget score (metric.py would have stopped).
* `_get_epsilons` returns only the clipped epsilons; the best attack of each example exists only in its locals
  (`keep_inds`, `best_thresh`, `tf_d`, `tf_s`, `thresholds_flat`, `fpr`, `fnr`). To record it, the runner calls
  metric.py's `_get_epsilons` on one example (one column) at a time — every example is computed independently
  there — through a wrapper installed as `metric._get_epsilons` for the duration of
  `compute_forget_score_from_confs`, and reads those locals as the function returns (`sys.setprofile`). The
  wrapper hands `compute_forget_score_from_confs` the concatenated per-example results (NaN where no threshold
  survived, which scores no points); the retrain-is-positive flags and `max_epsilon` are that function's locals.
"""

import hashlib
import json
import math
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "fixtures", "peers")
SHIM_DIR = os.path.join(HERE, "torch_shim")
# `git rev-parse ffae0ff:metric.py` in google-deepmind/unlearning_evaluation: the version these fixtures come from.
METRIC_PY_BLOB = "f5e6023c512ca131ef94d65ec82091db96bb6fb1"


# ---------------------------------------------------------------------------------------------------------------
# loading and running metric.py
# ---------------------------------------------------------------------------------------------------------------
def load_metric(path):
    sys.path.insert(0, SHIM_DIR)
    import torch  # noqa: F401  (the shim; metric.py's own `import torch` then finds it in sys.modules)

    if os.path.dirname(os.path.abspath(torch.__file__)) != os.path.join(SHIM_DIR, "torch"):
        sys.exit(f"expected the torch shim from {SHIM_DIR}, got {torch.__file__}")
    with open(path, "rb") as f:
        source = f.read()
    blob = hashlib.sha1(b"blob %d\0" % len(source) + source).hexdigest()
    if blob != METRIC_PY_BLOB:
        print(f"warning: {path} is git blob {blob}, not metric.py of ffae0ff ({METRIC_PY_BLOB})", file=sys.stderr)
    module = type(sys)("metric")
    module.__file__ = os.path.abspath(path)
    exec(compile(source, module.__file__, "exec", optimize=1), module.__dict__)  # optimize=1: no asserts
    sys.modules["metric"] = module
    return module


def check_shim_linspace():
    """The shim's torch.linspace against torch 1.12.1's own output (competition_torch_linspace.json), bit for bit."""
    import torch

    with open(os.path.join(OUT_DIR, "competition_torch_linspace.json")) as f:
        cases = json.load(f)["cases"]
    for c in cases:
        got = torch.linspace(c["start"], c["end"], c["steps"]).numpy()
        if _bits32(got) != c["bits"]:
            sys.exit(f"torch shim linspace differs from torch 1.12.1 at {c['start']}, {c['end']}, {c['steps']}")
    print("torch shim linspace = torch 1.12.1 on", len(cases), "grids,", sum(c["steps"] for c in cases), "points",
          file=sys.stderr)


class ReturnLocals:
    """While active, keeps the local variables of the given functions' frames as they return (or raise)."""

    def __init__(self, *functions):
        self.codes = {f.__code__: f.__name__ for f in functions}
        self.last = {}

    def _hook(self, frame, event, arg):
        if event == "return" and frame.f_code in self.codes:
            self.last[self.codes[frame.f_code]] = dict(frame.f_locals)

    def __enter__(self):
        self.previous = sys.getprofile()
        sys.setprofile(self._hook)
        return self

    def __exit__(self, *exc):
        sys.setprofile(self.previous)


def _best_attack(loc):
    """The `details` entry of one example from the locals of metric.py's `_get_epsilons` (one example per call)."""
    if loc["thresholds"] == [-1]:  # metric.py's placeholders for an example it caps as "peaky"
        return {"peaky": True}
    keep = loc["keep_inds"]
    if not keep:
        return {"peaky": False, "all_discarded": True}
    best = int(loc["best_thresh"])
    ind = keep[best]
    th = loc["thresholds_flat"][ind]
    return {
        "peaky": False,
        "best_index": ind,
        "best_kind": "interval" if ind < len(loc["tf_d"]) else "single",
        "best_threshold": [float(v) for v in th] if isinstance(th, tuple) else [float(th)],
        "best_fpr": float(loc["fpr"][best]),
        "best_fnr": float(loc["fnr"][best]),
        "num_double": len(loc["tf_d"]),
        "num_single": len(loc["tf_s"]),
    }


def compute_forget_score(metric, unlearned_confs, retrained_confs):
    """metric.py's `compute_forget_score_from_confs`, with each example's epsilon and best attack recorded."""
    get_epsilons = metric._get_epsilons
    spy = ReturnLocals(get_epsilons, metric.compute_forget_score_from_confs)
    epsilons, details = [], []

    def one_example_at_a_time(pos_confs, neg_confs, delta):
        parts = []
        for i in range(pos_confs.shape[1]):
            try:
                eps = get_epsilons(pos_confs[:, i : i + 1], neg_confs[:, i : i + 1], delta)
            except ValueError:
                if spy.last["_get_epsilons"].get("keep_inds") != []:
                    raise
                eps = None  # np.nanmax of no surviving threshold (see the module docstring)
            details.append(_best_attack(spy.last.pop("_get_epsilons")))
            epsilons.append(None if eps is None else float(eps[0]))
            parts.append(np.array([np.nan]) if eps is None else eps)
        return np.concatenate(parts)

    metric._get_epsilons = one_example_at_a_time
    try:
        with spy, np.errstate(divide="ignore", invalid="ignore"):
            forget_score = metric.compute_forget_score_from_confs(unlearned_confs, retrained_confs)
    finally:
        metric._get_epsilons = get_epsilons
    loc = spy.last["compute_forget_score_from_confs"]
    return {
        "epsilons": epsilons,
        "retrain_is_positive": [bool(b) for b in loc["retrain_is_positive"]],
        "details": details,
        "forget_score": None if None in epsilons else float(forget_score),
        "max_epsilon": float(loc["max_epsilon"]),
    }


# ---------------------------------------------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------------------------------------------
def _cases(rng):
    """(file group, name, retrained [N, E], unlearned [N, E]) with varied shapes of overlap.

    Inputs are rounded (6 decimals for N <= 24, 5 for N = 64 and 100, 3 for N = 512) to keep each fixture file
    under 200 KB; rounding also puts many values on shared decimals, so grid thresholds can land on data.
    """
    out = []

    def add(name, r, u):
        n = np.shape(r)[0]
        decimals = 6 if n <= 24 else (5 if n <= 100 else 3)
        group = {8: "n8", 16: "n16", 64: "n64", 512: "n512"}.get(n, "misc")
        r = np.round(np.asarray(r, dtype=np.float64), decimals)
        u = np.round(np.asarray(u, dtype=np.float64), decimals)
        out.append((group, name, r, u))

    for n, e in [(8, 40), (16, 40), (64, 24), (512, 8)]:
        # heavy overlap: same law
        add(f"N{n}_same", rng.normal(0, 1, (n, e)), rng.normal(0, 1, (n, e)))
        # shifted means, varied per example
        shift = rng.uniform(-3, 3, e)
        add(f"N{n}_shift", rng.normal(0, 1, (n, e)) + shift, rng.normal(0, 1, (n, e)))
        # different spreads (interval attack territory), some close to the peaky cut-off
        scale = rng.uniform(0.005, 1.0, e)
        add(f"N{n}_spread", rng.normal(0, 1, (n, e)) * scale, rng.normal(0.2, 1, (n, e)))
    # ties: values on a coarse grid (thresholds may land exactly on data)
    for n, e in [(8, 30), (16, 30), (64, 16)]:
        add(f"N{n}_ties", np.round(rng.normal(0, 1, (n, e)) * 4) / 4, np.round(rng.normal(0.3, 1, (n, e)) * 4) / 4)
        add(f"N{n}_ties_fine", np.round(rng.normal(0, 1, (n, e)), 2), np.round(rng.normal(0, 1.2, (n, e)), 2))
    # identical distributions, literally the same values
    base = rng.normal(0, 2, (16, 10))
    add("N16_identical", base, base.copy())
    # perfectly separated
    for n in (8, 16, 64):
        add(f"N{n}_separated", rng.normal(5, 0.5, (n, 8)), rng.normal(0, 0.5, (n, 8)))
    # peaky: one side nearly constant; plus both constant (0/0 ratio, equal and unequal) and one constant (0/x)
    r = rng.normal(0, 1, (16, 6))
    u = 0.3 + rng.normal(0, 1e-4, (16, 6))
    u[:, 0] = 0.3
    r[:, 1] = 0.7
    u[:, 1] = 0.7
    r[:, 2] = 0.7
    u[:, 2] = -0.2
    add("N16_peaky", r, u)
    # logit-scaled-confidence-like values (wide range, skewed)
    add("N64_logitlike", rng.gumbel(4, 2, (64, 12)), rng.gumbel(3, 3, (64, 12)))
    # numbers of models that are not powers of two: the CUDA mean multiplies by float(T)/float(N*T)
    add("N24_shift", rng.normal(0, 1, (24, 20)) + rng.uniform(-2, 2, 20), rng.normal(0, 1, (24, 20)))
    add("N100_spread", rng.normal(0, 1, (100, 8)) * rng.uniform(0.1, 1, 8), rng.normal(0, 1, (100, 8)))
    add("N3_small", rng.normal(0, 1, (3, 20)), rng.normal(0.5, 1, (3, 20)))
    return out


def _num(x):
    if x is None:
        return None
    if isinstance(x, float) and math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


# ---------------------------------------------------------------------------------------------------------------
# numpy float32 log/exp and the confidence transform, for the Rust emulations
# ---------------------------------------------------------------------------------------------------------------
def _bits32(a):
    return "".join(f"{int(b):08x}" for b in np.asarray(a, dtype=np.float32).view(np.uint32))


def write_numpy_f32(rng, delta):
    """np.log / np.exp on float32 arrays (this machine's numpy SIMD kernels), inputs and outputs as bit patterns."""
    logs = []
    for n in [3, 7, 8, 10, 16, 24, 64, 100, 512, 1000]:
        k = np.arange(1, n + 1, dtype=np.float32)
        logs.append(k * np.float32(np.float32(n) / np.float32(n * 160000)))  # CUDA-mean rates
        logs.append(np.float32(1 - delta) - k / np.float32(n))
    logs.append(rng.uniform(1e-8, 1.0, 1500).astype(np.float32))
    logs.append(np.exp(rng.uniform(-80, 80, 500)).astype(np.float32))
    logs.append(np.array([1e-45, 1e-40, 1.17549435e-38, 0.0, 1.0, np.inf, -1.0, np.nan], dtype=np.float32))
    x_log = np.concatenate(logs).astype(np.float32)
    x_exp = np.concatenate(
        [rng.uniform(-110, 95, 1500), -rng.exponential(3.0, 1500), [0.0, -0.0, 88.7228, -103.97, np.nan]]
    ).astype(np.float32)
    with np.errstate(all="ignore"):
        y_log = np.log(x_log)
        y_exp = np.exp(x_exp)
    # Checksums of np.log over every positive float32, in 128 blocks of 2^24 bit patterns starting at 0.
    blocks = []
    for b in range(128):
        bits = np.arange(b << 24, (b + 1) << 24, dtype=np.uint64).astype(np.uint32)
        with np.errstate(all="ignore"):
            out = np.log(bits.view(np.float32)).view(np.uint32).astype(np.uint64)
        blocks.append([int(out.sum(dtype=np.uint64)), int(np.bitwise_xor.reduce(out * (np.arange(out.size, dtype=np.uint64) | 1)))])
    doc = {
        "description": "numpy " + np.__version__ + " float32 np.log / np.exp on x86-64 (SIMD kernels of "
        "loops_exponent_log.dispatch.c.src), bit patterns as concatenated 8-hex-digit strings. log_blocks[b] = "
        "[sum of output bits, xor of output bits * (i | 1)] over input bits b*2^24 .. (b+1)*2^24 - 1 (u64 wrapping).",
        "log_in": _bits32(x_log),
        "log_out": _bits32(y_log),
        "exp_in": _bits32(x_exp),
        "exp_out": _bits32(y_exp),
        "log_blocks": blocks,
    }
    path = os.path.join(OUT_DIR, "competition_numpy_f32.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes", file=sys.stderr)


def write_confidence(metric, rng):
    """compute_logit_scaled_confidence on float32 (as the competition's networks produce) and float64 logits."""
    cases = []
    for dtype, classes, rows, scale in [("float32", 10, 40, 4.0), ("float32", 3, 20, 30.0), ("float64", 10, 40, 4.0),
                                         ("float64", 200, 5, 2.0), ("float32", 12, 10, 60.0)]:
        logits = (rng.normal(0, scale, (rows, classes))).astype(dtype)
        labels = rng.integers(0, classes, rows)
        prob, conf = metric.compute_logit_scaled_confidence(logits.copy(), labels)
        cases.append({"dtype": dtype, "logits": logits.astype(np.float64).tolist(), "labels": labels.tolist(),
                      "prob_correct": prob.tolist(), "confidence": conf.tolist()})
    doc = {"description": "metric.py compute_logit_scaled_confidence (numpy " + np.__version__ + "), logits given "
           "exactly (float32 cases are float32 values)", "cases": cases}
    path = os.path.join(OUT_DIR, "competition_confidence.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes", file=sys.stderr)


DESCRIPTION = (
    "Outputs of google-deepmind/unlearning_evaluation metric.py (ffae0ff), run unmodified by "
    "tests/peers/metric_runner.py on a numpy-backed torch 1.12.1 + CUDA stand-in (tests/peers/torch_shim; see both "
    "docstrings). Matrices are [models][examples]. epsilons are metric.py's per-example values after np.clip(0, 50); "
    "null = every threshold discarded (metric.py's assert). details[i].best_* = metric.py's best threshold "
    "(first argmax), fpr/fnr relative to that family's positive class. forget_score is null when an "
    "example has no surviving threshold (metric.py would have stopped)."
)


def main(metric_py):
    metric = load_metric(metric_py)
    check_shim_linspace()
    write_numpy_f32(np.random.default_rng(7), metric.DELTA)
    write_confidence(metric, np.random.default_rng(8))
    rng = np.random.default_rng(20231)
    groups = {}
    for group, name, r, u in _cases(rng):
        res = compute_forget_score(metric, u, r)
        groups.setdefault(group, []).append(
            {
                "name": name,
                "retrained": r.tolist(),
                "unlearned": u.tolist(),
                "epsilons": [_num(e) for e in res["epsilons"]],
                "retrain_is_positive": res["retrain_is_positive"],
                "details": res["details"],
                "forget_score": res["forget_score"],
                "max_epsilon": res["max_epsilon"],
            }
        )
        print(name, r.shape, "F =", res["forget_score"], file=sys.stderr)
    for group, cases in groups.items():
        doc = {
            "description": DESCRIPTION,
            "numpy": np.__version__,
            "cases": cases,
        }
        path = os.path.join(OUT_DIR, f"competition_official_{group}.json")
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        print("wrote", path, os.path.getsize(path), "bytes", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
