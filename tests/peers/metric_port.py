"""Mechanical numpy port of the NeurIPS 2023 unlearning competition's official scoring code.

Source: google-deepmind/unlearning_evaluation, `metric.py` (commit ffae0ff, "Open-sourcing A"), which ran under
torch 1.12.1 (requirements.txt; launch.py's `pytorch-gpu.1-12` image) on a CUDA GPU. Every torch operation of
`_get_epsilons`, `_get_double_threshold_rates`, `_get_single_threshold_rates` and `compute_forget_score_from_confs`
is replaced by numpy code with the *same dtypes and the same rounding*:

* `torch.linspace(min_val, max_val, n)` with 0-d float64 tensors and no `dtype=`: the result has torch's *default*
  dtype, float32 (`linspace_logspace_infer_options` falls back to `get_default_dtype()`), computed on the CPU
  (no `device=`) and only then moved to the GPU. `torch_linspace_f32` below reproduces torch 1.12.1's CPU kernel
  (`aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp`, vectorised `cpu_serial_kernel_vec` path, 8 float lanes,
  AVX2 dispatch, which is what any CPU with AVX2+FMA gets: the 1.12.1 wheel ships no AVX-512 kernels and rejects
  ATEN_CPU_CAPABILITY=avx512 as invalid).
  How this was established: the formula was checked bit for bit against the real torch 1.12.1 wheel
  (`torch-1.12.1-cp310-cp310-manylinux1_x86_64.whl` from PyPI, its `libtorch_cpu.so` called from a small C++
  harness through `at::linspace(Scalar, Scalar, steps, kFloat)`) on 3,084,855 points of 2,997 random grids:
  zero mismatches with "block base by FMA, lanes base + fl(k*step), scalar tail by FMA"; the textbook symmetric
  formula without FMA mismatches 29% of points under AVX2 (it is exact only under ATEN_CPU_CAPABILITY=default).
  `tests/fixtures/peers/competition_torch_linspace.json` stores that binary's own output for the Rust tests.
* `torch.mean(x.type(torch.float32), 0)` on CUDA: `mean_kernel_impl` sums in float32 (exact for 0/1 counts) and
  multiplies by `factor = float(T) / float(N*T)` (ReduceMomentKernel.cu, `MeanOps::project` is `a * factor`),
  not by a division. `cuda_mean` reproduces it. For N a power of two this equals count/N exactly.
* `np.log(...)` on float32 arrays is numpy's own (SIMD float32 log), exactly as in metric.py. Python float
  scalars combined with float32 arrays stay float32 (NEP 50 under NumPy 2; value-based casting under NumPy 1 gives
  the same here).
* `assert thr_eps` in metric.py is applied to a numpy array, which raises ValueError whenever more than one
  threshold survives (and AssertionError when exactly one survives with epsilon 0.0). The evident intent is "at
  least one threshold survived"; where none survives this port records `None` for the example (metric.py would
  stop) and the case's forget score as `None`.

How much these details matter, measured on this file's 588 examples (2026-11): replacing the float32 torch grid by
a float64 one (numpy.linspace, or torch's symmetric formula in float64) changed no epsilon; replacing the CUDA mean
by the CPU one (sum / N) changed 3 of the 48 epsilons with N not a power of two (N = 24, 100, 3), no forget score.
For N a power of two the two means coincide.

Running this file writes tests/fixtures/peers/competition_official_{n8,n16,n64,n512,misc}.json,
competition_numpy_f32.json and competition_confidence.json (torch_linspace.py writes the torch grid fixture).
Needs numpy only (the pinned reference environment: numpy 2.4.6); takes about 2.5 minutes.
"""

import json
import math
import os
import sys
from fractions import Fraction

import numpy as np

DELTA = 1e-05
EPSILON_CAP = 50
NUM_THRESHOLDS_PER_UNIT = 100

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "fixtures", "peers")


# ---------------------------------------------------------------------------------------------------------------
# torch / CUDA emulation
# ---------------------------------------------------------------------------------------------------------------
def _round_f32(q: Fraction) -> np.float32:
    """Correctly rounded float32 of an exact rational (no double rounding)."""
    d = float(q)  # int/int true division in CPython is correctly rounded to double
    f = np.float32(d)
    if Fraction(float(f)) == q:
        return f
    # d may sit exactly on a float32 midpoint although q does not: decide with the exact value.
    lo = f if Fraction(float(f)) < q else np.nextafter(f, np.float32(-np.inf))
    hi = np.nextafter(lo, np.float32(np.inf))
    mid = (Fraction(float(lo)) + Fraction(float(hi))) / 2
    if q < mid:
        return lo
    if q > mid:
        return hi
    return lo if (int(np.array(lo).view(np.uint32)) & 1) == 0 else hi


def _fma32(a, b, c) -> np.float32:
    return _round_f32(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)))


def torch_linspace_f32(start: float, end: float, steps: int) -> np.ndarray:
    """torch 1.12.1 `torch.linspace(start, end, steps)` (default dtype float32, CPU, AVX2 kernel)."""
    if steps == 0:
        return np.zeros(0, dtype=np.float32)
    s = np.float32(start)
    e = np.float32(end)
    if steps == 1:
        return np.array([s], dtype=np.float32)  # linspace_out: result.fill_(start)
    step = np.float32(np.float32(e - s) / np.float32(steps - 1))
    halfway = steps // 2
    lanes = 8
    nvec = (steps // (2 * lanes)) * (2 * lanes)
    out = np.empty(steps, dtype=np.float32)
    for b in range(0, nvec, lanes):
        if b < halfway:
            base = _fma32(step, np.float32(b), s)
        else:
            base = _fma32(-step, np.float32(steps - b - 1), e)
        out[b] = base
        for k in range(1, lanes):
            out[b + k] = np.float32(base + np.float32(np.float32(k) * step))
    for j in range(nvec, steps):
        if j < halfway:
            out[j] = _fma32(step, np.float32(j), s)
        else:
            out[j] = _fma32(-step, np.float32(steps - j - 1), e)
    return out


def cuda_mean(indicator: np.ndarray) -> np.ndarray:
    """torch.mean(indicator.float(), 0) on CUDA: float32 sum times float(T)/float(N*T)."""
    n, t = indicator.shape
    counts = indicator.sum(axis=0).astype(np.float32)
    factor = np.float32(np.float32(t) / np.float32(n * t))
    return (counts * factor).astype(np.float32)


# ---------------------------------------------------------------------------------------------------------------
# metric.py, ported
# ---------------------------------------------------------------------------------------------------------------
def compute_logit_scaled_confidence(logits, targets):
    count = logits.shape[0]
    logits = logits - np.max(logits, axis=1, keepdims=True)
    probs = np.array(np.exp(logits), dtype=np.float64)
    probs /= np.sum(probs, axis=1, keepdims=True)
    prob_correct = probs[np.arange(count), targets[:count]]
    probs[np.arange(count), targets[:count]] = 0
    prob_wrong = np.sum(probs, axis=1)
    conf = np.log(prob_correct + 1e-45) - np.log(prob_wrong + 1e-45)
    return prob_correct, conf


def _get_double_threshold_rates(pos_confs_, neg_confs_):
    pos_diff = pos_confs_.max() - pos_confs_.min()
    neg_diff = neg_confs_.max() - neg_confs_.min()
    smallest = neg_diff if pos_diff > neg_diff else pos_diff
    if pos_diff >= neg_diff:
        pos_confs_, neg_confs_ = neg_confs_, pos_confs_
    buffer = 2.0
    width = smallest
    min_ = np.asarray(pos_confs_.min() + width - buffer)
    max_ = np.asarray(pos_confs_.max() + buffer)
    num_right_thresholds = int(np.ceil((max_ - min_) * NUM_THRESHOLDS_PER_UNIT))
    right_thresholds_ = np.linspace(min_, max_, num=num_right_thresholds)
    width = np.asarray(width)
    num_left_thresholds = int(np.ceil(2 * buffer * NUM_THRESHOLDS_PER_UNIT))
    if num_right_thresholds > 0:
        thr_left_ = np.concatenate(
            [np.linspace(tr - width - buffer, tr - width + buffer, num=num_left_thresholds) for tr in right_thresholds_],
            axis=0,
        )
    else:
        thr_left_ = np.zeros(0)
    thr_right_ = np.tile(np.reshape(right_thresholds_, (-1, 1)), (1, num_left_thresholds)).reshape((-1))
    thresholds_flat = [(float(l), float(r)) for l, r in zip(thr_left_, thr_right_)]

    def _is_pp(c):
        return np.logical_and(thr_left_[None, :] <= c[:, None], c[:, None] <= thr_right_[None, :])

    pp_pos = _is_pp(pos_confs_)
    pp_neg = _is_pp(neg_confs_)
    tpr = cuda_mean(pp_pos)
    fnr = cuda_mean(~pp_pos)
    fpr = cuda_mean(pp_neg)
    tnr = cuda_mean(~pp_neg)
    return tpr, fnr, fpr, tnr, thresholds_flat


def _get_single_threshold_rates(pos_confs_, neg_confs_):
    all_confs = np.concatenate([pos_confs_, neg_confs_])
    min_val = all_confs.min()
    max_val = all_confs.max()
    num_thresholds = int(np.ceil((max_val - min_val) * NUM_THRESHOLDS_PER_UNIT))
    thresholds_ = torch_linspace_f32(float(min_val), float(max_val), num_thresholds)
    thresholds_flat = [float(t) for t in thresholds_]
    # float64 confidences against float32 thresholds: torch promotes the thresholds to float64 (exactly).
    thr = thresholds_.astype(np.float64)[None, :]
    tpr = cuda_mean(pos_confs_[:, None] >= thr)
    fpr = cuda_mean(neg_confs_[:, None] >= thr)
    tnr = cuda_mean(neg_confs_[:, None] < thr)
    fnr = cuda_mean(pos_confs_[:, None] < thr)
    return tpr, fnr, fpr, tnr, thresholds_flat


def _get_epsilons(pos_confs, neg_confs, delta):
    epsilons = []
    details = []
    num_examples = pos_confs.shape[1]
    for i in range(num_examples):
        pos_confs_ = pos_confs[:, i].reshape(-1)
        neg_confs_ = neg_confs[:, i].reshape(-1)
        pos_diff = np.max(pos_confs_) - np.min(pos_confs_)
        neg_diff = np.max(neg_confs_) - np.min(neg_confs_)
        largest = pos_diff if pos_diff > neg_diff else neg_diff
        smallest = neg_diff if pos_diff > neg_diff else pos_diff
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = smallest / largest
        if ratio < 0.01:
            epsilons.append(EPSILON_CAP)
            details.append({"peaky": True})
            continue
        tpr_d, fnr_d, fpr_d, tnr_d, tf_d = _get_double_threshold_rates(pos_confs_, neg_confs_)
        tpr_s, fnr_s, fpr_s, tnr_s, tf_s = _get_single_threshold_rates(pos_confs_, neg_confs_)
        tpr = np.concatenate([tpr_d, tpr_s])
        fnr = np.concatenate([fnr_d, fnr_s])
        fpr = np.concatenate([fpr_d, fpr_s])
        tnr = np.concatenate([tnr_d, tnr_s])
        thresholds_flat = tf_d + tf_s
        total = tpr.shape[0]
        thr_eps = np.zeros(total, dtype=np.float32)
        both_zero = (fpr + fnr) == np.zeros(total, dtype=np.float32)
        both_one = (tpr + tnr) == 2 * np.ones(total, dtype=np.float32)
        thr_eps = np.where(both_zero * both_one, np.float32(np.inf), thr_eps).astype(np.float32)
        is_zero = thr_eps == 0
        one_zero = (fpr * fnr) == 0
        thr_eps = np.where(is_zero * one_zero, np.float32(np.nan), thr_eps).astype(np.float32)
        with np.errstate(invalid="ignore", divide="ignore"):
            computed = np.clip(
                np.nanmax(
                    [
                        np.log(1 - delta - fpr) - np.log(fnr),
                        np.log(1 - delta - fnr) - np.log(fpr),
                    ],
                    axis=0,
                ),
                0,
                None,
            )
        thr_eps = np.where(thr_eps == 0, computed, thr_eps).astype(np.float32)
        keep = [ind for ind, te in enumerate(thr_eps) if not np.isnan(te)]
        thr_eps = thr_eps[keep]
        if thr_eps.size == 0:  # metric.py: `assert thr_eps, ...` (see module docstring)
            epsilons.append(None)
            details.append({"peaky": False, "all_discarded": True})
            continue
        epsilons.append(np.nanmax(thr_eps))
        best = int(np.argmax(np.where(np.isnan(thr_eps), np.zeros_like(thr_eps), thr_eps)))
        ind = keep[best]
        th = thresholds_flat[ind]
        details.append(
            {
                "peaky": False,
                "best_index": ind,
                "best_kind": "interval" if ind < len(tf_d) else "single",
                "best_threshold": list(th) if isinstance(th, tuple) else [th],
                "best_fpr": float(fpr[ind]),
                "best_fnr": float(fnr[ind]),
                "num_double": len(tf_d),
                "num_single": len(tf_s),
            }
        )
    clipped = [None if e is None else float(np.clip(e, 0, EPSILON_CAP)) for e in epsilons]
    return clipped, details


def compute_forget_score_from_confs(unlearned_confs, retrained_confs):
    _, forget_set_size = retrained_confs.shape
    retrain_means = np.median(retrained_confs, axis=0)
    unlearned_means = np.median(unlearned_confs, axis=0)
    retrain_is_positive = retrain_means > unlearned_means
    pos_confs = np.where(retrain_is_positive, retrained_confs, unlearned_confs)
    neg_confs = np.where(retrain_is_positive, unlearned_confs, retrained_confs)
    eps, details = _get_epsilons(pos_confs, neg_confs, delta=DELTA)
    num_models = unlearned_confs.shape[0]
    with np.errstate(divide="ignore"):
        max_epsilon = np.ceil(np.log(num_models - 1))
    start_idx = 0
    bucket_size = 0.5
    end_idx = start_idx + bucket_size
    points = 1
    bucket_points = {}
    while end_idx <= max_epsilon:
        bucket_points[start_idx] = points
        points /= 2
        start_idx += bucket_size
        end_idx = start_idx + bucket_size
    forget_score = 0
    scorable = all(e is not None for e in eps)
    for e in eps:
        if e is None:
            continue
        for start_idx, points in bucket_points.items():
            if e < start_idx + bucket_size:
                forget_score += points
                break
    forget_score /= forget_set_size
    return {
        "epsilons": eps,
        "retrain_is_positive": [bool(b) for b in retrain_is_positive],
        "details": details,
        "forget_score": float(forget_score) if scorable else None,
        "max_epsilon": float(max_epsilon),
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


def write_numpy_f32(rng):
    """np.log / np.exp on float32 arrays (this machine's numpy SIMD kernels), inputs and outputs as bit patterns."""
    logs = []
    for n in [3, 7, 8, 10, 16, 24, 64, 100, 512, 1000]:
        k = np.arange(1, n + 1, dtype=np.float32)
        logs.append(k * np.float32(np.float32(n) / np.float32(n * 160000)))  # CUDA-mean rates
        logs.append(np.float32(1 - DELTA) - k / np.float32(n))
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


def write_confidence(rng):
    """compute_logit_scaled_confidence on float32 (as the competition's networks produce) and float64 logits."""
    cases = []
    for dtype, classes, rows, scale in [("float32", 10, 40, 4.0), ("float32", 3, 20, 30.0), ("float64", 10, 40, 4.0),
                                         ("float64", 200, 5, 2.0), ("float32", 12, 10, 60.0)]:
        logits = (rng.normal(0, scale, (rows, classes))).astype(dtype)
        labels = rng.integers(0, classes, rows)
        prob, conf = compute_logit_scaled_confidence(logits.copy(), labels)
        cases.append({"dtype": dtype, "logits": logits.astype(np.float64).tolist(), "labels": labels.tolist(),
                      "prob_correct": prob.tolist(), "confidence": conf.tolist()})
    doc = {"description": "metric.py compute_logit_scaled_confidence (numpy " + np.__version__ + "), logits given "
           "exactly (float32 cases are float32 values)", "cases": cases}
    path = os.path.join(OUT_DIR, "competition_confidence.json")
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("wrote", path, os.path.getsize(path), "bytes", file=sys.stderr)


def main():
    write_numpy_f32(np.random.default_rng(7))
    write_confidence(np.random.default_rng(8))
    rng = np.random.default_rng(20231)
    groups = {}
    for group, name, r, u in _cases(rng):
        res = compute_forget_score_from_confs(u, r)
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
            "description": "Outputs of tests/peers/metric_port.py (a mechanical numpy port of google-deepmind/"
            "unlearning_evaluation metric.py under torch 1.12.1 + CUDA semantics; see the script's docstring). "
            "Matrices are [models][examples]. epsilons are metric.py's per-example values after np.clip(0, 50); "
            "null = every threshold discarded (metric.py's assert). details[i].best_* = metric.py's best threshold "
            "(first argmax), fpr/fnr relative to that family's positive class. forget_score is null when an "
            "example has no surviving threshold (metric.py would have stopped).",
            "numpy": np.__version__,
            "cases": cases,
        }
        path = os.path.join(OUT_DIR, f"competition_official_{group}.json")
        with open(path, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        print("wrote", path, os.path.getsize(path), "bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
