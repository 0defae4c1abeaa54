"""The NeurIPS 2023 competition score on CPU: the authors' metric.py (unmodified, read at run time, run through the
numpy torch shim of tests/peers/metric_runner.py) against `lethe epsilon`, on the same 512 models x E forget
examples.

  metric_bench.py gen OUT_DIR MODELS EXAMPLES SEED      writes retrained.npy, unlearned.npy (float64)
  metric_bench.py run METRIC_PY OUT_DIR K LETHE_JSON    times metric.py on the first K examples (one at a time,
                                                        as metric_runner does), extrapolates to all, and checks
                                                        its epsilons against Lethe's report on those K
"""

import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "peers"))


def gen(out, models, examples, seed):
    rng = np.random.default_rng(seed)
    # Logit-scaled-confidence-like values: per-example location, the unlearned models shifted and rescaled.
    mu = rng.normal(3.0, 1.5, examples)
    r = rng.normal(mu, 1.0, (models, examples))
    u = rng.normal(mu + rng.uniform(-1.0, 1.0, examples), rng.uniform(0.5, 1.5, examples), (models, examples))
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "retrained.npy"), r)
    np.save(os.path.join(out, "unlearned.npy"), u)


def run(metric_py, out, k, lethe_json):
    import metric_runner

    metric = metric_runner.load_metric(metric_py)
    r = np.load(os.path.join(out, "retrained.npy"))
    u = np.load(os.path.join(out, "unlearned.npy"))
    t = time.perf_counter()
    res = metric_runner.compute_forget_score(metric, u[:, :k], r[:, :k])
    seconds = time.perf_counter() - t
    with open(lethe_json) as f:
        lethe = json.load(f)["result"]["results"][0]["per_example"][:k]
    pairs = list(zip(res["epsilons"], [e["epsilon"] for e in lethe]))
    equal = sum(1 for a, b in pairs if a == b)
    max_abs = max((abs(a - b) for a, b in pairs if a is not None and b is not None), default=0.0)
    json.dump(
        {
            "examples_timed": k,
            "examples_total": r.shape[1],
            "models": r.shape[0],
            "seconds_measured": seconds,
            "seconds": seconds * r.shape[1] / k,
            "epsilons_equal": equal,
            "epsilons_compared": len(pairs),
            "max_abs_diff": max_abs,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
