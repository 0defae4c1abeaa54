"""Golden vectors of `lethe eps-lower` (crate/src/eps_audit.rs): run from the repository root,
`python3 tests/peers/eps_audit_peers.py PM_SRC JAX_PRIVACY_REPO` (PROVENANCE.md in tests/fixtures/golden_eps says with what).

* Clopper–Pearson with Bonferroni over the thresholds: jax-privacy's `CanaryScoreAuditor.epsilon_clopper_pearson`
  (named `epsilon_lower_bound` before jax_privacy commit 11ce767), run from the installed package.
* microsoft privacy-estimates' `compute_eps_lo(AttackResults, delta, alpha, "beta")`, run from the installed package,
  at one threshold (counts) and, as Lethe applies it to scores, at each of jax-privacy's frontier thresholds with the
  same Bonferroni share, the largest.
* The one-run audit (Steinke, Nasr, Jagielski 2023): privacy-meter's `get_eps_audit` / `p_value_DP_audit`, run from
  PM_SRC, a git checkout of privacytrustlab/ml_privacy_meter at commit e384af8fd9319b8eeb1303aa82474df1441e3c59
  (refused at another commit): the two functions are taken out of audit.py's syntax tree and executed as written
  (audit.py itself imports torch and the repository's attacks). The PyPI package privacy-meter 1.0.1 predates
  audit.py's DP auditing.
"""
import json
import math
import importlib.metadata as md
import os
import platform
import sys

import numpy as np
import scipy
import scipy.stats
from jax_privacy import auditing
from privacy_estimates import AttackResults, compute_eps_lo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from upstream import checkout, functions  # noqa: E402

OUT = "tests/fixtures/golden_eps/"


PM_COMMIT = "e384af8fd9319b8eeb1303aa82474df1441e3c59"
if len(sys.argv) != 3:
    sys.exit(f"usage: {sys.argv[0]} PM_SRC JAX_PRIVACY_REPO  (a git checkout of privacytrustlab/ml_privacy_meter at "
             f"{PM_COMMIT}; a clone of google-deepmind/jax_privacy holding commit 8967688c)")
JAX_PRIVACY_REPO = sys.argv[2]
PM_SRC = checkout(sys.argv[1], PM_COMMIT, "privacytrustlab/ml_privacy_meter", ["audit.py"])
# audit.py's p_value_DP_audit and get_eps_audit (the paper's snippet), with the modules audit.py imports for them.
_pm = functions(PM_SRC / "audit.py", ["p_value_DP_audit", "get_eps_audit"], {"math": math, "scipy": scipy})
p_value_DP_audit, get_eps_audit = _pm["p_value_DP_audit"], _pm["get_eps_audit"]


def versions():
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "statsmodels": md.version("statsmodels"),
        "jax-privacy": md.version("jax-privacy"),
        "privacy-estimates": md.version("privacy-estimates"),
        "privacy-meter": "audit.py at e384af8fd9319b8eeb1303aa82474df1441e3c59 (run from a checkout)",
    }


def f(x):
    x = float(x)
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if math.isnan(x):
        return "nan"
    return x


def microsoft(tp, fp, tn, fn, delta, alpha):
    return compute_eps_lo(AttackResults(FN=int(fn), FP=int(fp), TN=int(tn), TP=int(tp)), delta=delta, alpha=alpha,
                          method="beta")


def score_cases():
    rng = np.random.default_rng(20261125)
    cases = []
    for name, n1, n0, mu in [("gauss_1000_mu1", 1000, 1000, 1.0), ("gauss_1000_mu3", 1000, 1000, 3.0),
                             ("gauss_300_200_mu2", 300, 200, 2.0), ("null_50", 50, 50, 0.0),
                             ("reversed_400_mu_minus2", 400, 400, -2.0)]:
        cases.append((name, rng.normal(mu, 1.0, n1), rng.normal(0.0, 1.0, n0)))
    cases.append(("integer_ties_500", rng.integers(0, 12, 500).astype(float) + 2,
                  rng.integers(0, 12, 500).astype(float)))
    cases.append(("separated_20", np.arange(20.0) + 100, np.arange(20.0)))
    cases.append(("separated_5", np.arange(5.0) + 100, np.arange(5.0)))
    cases.append(("tiny_3_2", np.array([0.9, 0.8, 0.1]), np.array([0.2, 0.7])))
    return cases


def cp_scores():
    out = []
    for name, x, y in score_cases():
        a = auditing.CanaryScoreAuditor(x, y)
        n_tests = len(a._fn_counts)
        thr = a._thresholds
        runs = []
        for sig in [0.05, 0.01]:
            for delta in [0.0, 1e-5, 0.1]:
                for one_sided in [True, False]:
                    eps = a.epsilon_clopper_pearson(sig, delta, one_sided)
                    _, t = a._epsilon_clopper_pearson_all_thresholds(sig / n_tests, delta, one_sided)
                    ms = []
                    for k in range(n_tests):
                        fn, tn = int(a._fn_counts[k]), int(a._tn_counts[k])
                        tp, fp = len(x) - fn, len(y) - tn
                        ms.append(microsoft(tp, fp, tn, fn, delta, sig / n_tests))
                    runs.append({"significance": sig, "delta": delta, "one_sided": one_sided,
                                 "jax_privacy_epsilon": f(eps), "jax_privacy_threshold": f(t),
                                 "privacy_estimates_epsilon": f(max(ms))})
        out.append({"name": name, "members": x.tolist(), "non_members": y.tolist(), "tests": n_tests,
                    "frontier_thresholds": [f(v) for v in thr], "frontier_fn": a._fn_counts.tolist(),
                    "frontier_tn": a._tn_counts.tolist(), "runs": runs})
    return out


def cp_counts():
    out = []
    for tp, fp, tn, fn in [(90, 10, 90, 10), (500, 2, 498, 0), (10, 0, 10, 0), (3, 0, 3, 0), (50, 50, 50, 50),
                           (10, 90, 10, 90), (999, 1, 999, 1), (1, 0, 999, 999), (200, 30, 170, 0), (0, 0, 5, 5),
                           (40, 1, 9, 60)]:
        x = np.array([1.0] * tp + [0.0] * fn)
        y = np.array([1.0] * fp + [0.0] * tn)
        a = auditing.CanaryScoreAuditor(x, y)
        runs = []
        for sig in [0.05, 0.01]:
            for delta in [0.0, 1e-5, 0.1]:
                for one_sided in [True, False]:
                    eps = a.epsilon_clopper_pearson(sig, delta, one_sided,
                                                    threshold_strategy=auditing.Explicit(0.5))
                    runs.append({"significance": sig, "delta": delta, "one_sided": one_sided,
                                 "jax_privacy_epsilon": f(eps),
                                 "privacy_estimates_epsilon": f(microsoft(tp, fp, tn, fn, delta, sig))})
        out.append({"tp": tp, "fp": fp, "tn": tn, "fn": fn, "runs": runs})
    return out


def one_run():
    out = []
    grid = [(1000, 100, 100), (1000, 100, 90), (1000, 100, 60), (1000, 100, 50), (1000, 1000, 620),
            (10000, 500, 480), (10000, 2000, 1400), (100, 100, 100), (10, 10, 10), (4, 4, 4), (5, 5, 5),
            (1000, 0, 0), (1000, 10, 0), (50000, 1000, 999), (200, 30, 29)]
    for m, r, v in grid:
        for delta in [0.0, 1e-5, 1e-3]:
            for p in [0.05, 0.01]:
                out.append({"m": m, "r": r, "v": v, "delta": delta, "p": p,
                            "eps": f(get_eps_audit(m, r, v, delta, p)),
                            "p_value_at_1": f(p_value_DP_audit(m, r, v, 1.0, delta)),
                            "p_value_at_0_5": f(p_value_DP_audit(m, r, v, 0.5, delta))})
    return out


def gdp():
    """jax-privacy's epsilon_from_gdp as fixed in google-deepmind/jax_privacy commit aab3e1c (after PR 270): the
    repository's auditing.py at commit 8967688c26d46f3b74bfdfe61ef1f984b887abab loaded as a module (its only change
    from the installed 2.0.0 in this method); 2.0.0's own value beside it."""
    import importlib.util
    import subprocess
    src = subprocess.run(["git", "-C", JAX_PRIVACY_REPO, "show",
                          "8967688c26d46f3b74bfdfe61ef1f984b887abab:jax_privacy/auditing.py"],
                         capture_output=True, text=True, check=True).stdout
    path = "/tmp/jax_privacy_auditing_8967688.py"
    open(path, "w").write(src)
    spec = importlib.util.spec_from_file_location("auditing_head", path)
    head = importlib.util.module_from_spec(spec)
    import sys
    sys.modules["auditing_head"] = head
    spec.loader.exec_module(head)
    out = []
    rng = np.random.default_rng(7)
    cases = score_cases() + [("null_2000", rng.normal(0, 1, 1000), rng.normal(0, 1, 1000)),
                             ("null_small_20", rng.normal(0, 1, 10), rng.normal(0, 1, 10))]
    for name, x, y in cases:
        for sig in [0.05, 0.01]:
            for delta in [1e-5, 1e-3, 0.1]:
                fixed = head.CanaryScoreAuditor(x, y).epsilon_from_gdp(sig, delta)
                old = auditing.CanaryScoreAuditor(x, y).epsilon_from_gdp(sig, delta)
                out.append({"name": name, "members": x.tolist(), "non_members": y.tolist(), "significance": sig,
                            "delta": delta, "jax_privacy_fixed": f(fixed), "jax_privacy_2_0_0": f(old)})
    return out


if __name__ == "__main__":
    v = versions()
    json.dump({"versions": v, "cases": cp_scores()}, open(OUT + "clopper_pearson_scores.json", "w"))
    json.dump({"versions": v, "cases": cp_counts()}, open(OUT + "clopper_pearson_counts.json", "w"))
    json.dump({"versions": v, "cases": one_run()}, open(OUT + "one_run.json", "w"))
    json.dump({"versions": v, "cases": gdp()}, open(OUT + "gdp.json", "w"))
    print(json.dumps(v))
