"""Golden vectors for `lethe fdr`'s ten methods: statsmodels `multipletests(p, alpha, method)` run on seeded and
hand-made lists of p-values; writes tests/fixtures/golden_mia/fdr_methods.json (provenance: PROVENANCE.md beside it).
The first three methods' goldens of tests/fixtures/golden_mia/fdr.json come from tests/peers/mia_peers.py; this
script needs statsmodels only (no LeakPro, no jax), so the methods can be regenerated on their own.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install numpy==2.4.6 statsmodels==0.15.0
    /tmp/venv/bin/python tests/peers/fdr_peers.py

What runs what: `statsmodels.stats.multitest.multipletests(p, alpha=alpha, method=method)` with its defaults
(`maxiter=1`: the two-stage methods are two-stage, not iterated), all four returned fields: `reject`,
`pvals_corrected`, `alphacSidak`, `alphacBonf`. The lists include ties, the values 0 and 1, a single p-value,
values on a rejection boundary, subnormal and near-1 values, and lists where every hypothesis is rejected at the
first stage of the two-stage methods (statsmodels' `r1 in (0, ntests)` branch) or some are (the second stage).
"""

import json
import os
import platform
import sys

import numpy as np
import statsmodels
from statsmodels.stats.multitest import multipletests

OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "golden_mia", "fdr_methods.json")
METHODS = [
    "bonferroni",
    "sidak",
    "holm-sidak",
    "holm",
    "simes-hochberg",
    "hommel",
    "fdr_bh",
    "fdr_by",
    "fdr_tsbh",
    "fdr_tsbky",
]
ALPHAS = [0.05, 0.1]


def f(v):
    v = float(v)
    assert np.isfinite(v), v
    return v


def lists():
    rng = np.random.default_rng(20261130)
    return [
        ("with_ties", np.array([0.01, 0.02, 0.02, 0.03, 0.5, 0.04, 0.04, 0.9, 1.0, 0.0])),
        ("one", np.array([0.03])),
        ("one_zero", np.array([0.0])),
        ("one_one", np.array([1.0])),
        ("all_equal_5", np.full(5, 0.01)),
        # p-values on the thresholds: α/m, α·i/m, and 1 − (1 − α)^(1/m) as statsmodels computes it for α = 0.05.
        ("boundary_4", np.array([0.05 / 4, 0.05 * 2 / 4, 1 - np.power(0.95, 1.0 / 4), 0.05])),
        ("extremes_6", np.array([5e-324, 1e-300, 1e-17, 1 - 1e-12, 1 - 2.0**-53, 0.5])),
        ("mixed_12", rng.uniform(0, 0.2, 12)),
        ("all_small_9", rng.uniform(0, 1e-4, 9)),
        ("signal_40", np.concatenate([rng.uniform(0, 2e-3, 15), rng.uniform(0, 1, 25)])),
        ("rounded_ties_60", np.round(np.concatenate([rng.uniform(0, 0.02, 20), rng.uniform(0, 1, 40)]), 3)),
        ("uniform_200", rng.uniform(0, 1, 200)),
        ("signal_500", np.concatenate([rng.beta(0.2, 8, 150), rng.uniform(0, 1, 350)])),
    ]


def main():
    cases = []
    pvalues = {}
    for name, p in lists():
        assert np.all((p >= 0) & (p <= 1)), name
        pvalues[name] = [f(v) for v in p]
        for method in METHODS:
            for alpha in ALPHAS:
                with np.errstate(divide="ignore"):  # sidak's and holm-sidak's log1p(-1) = -inf, as intended
                    reject, corr, sidak, bonf = multipletests(p, alpha=alpha, method=method)
                cases.append(
                    {
                        "name": name,
                        "method": method,
                        "alpha": alpha,
                        "reject": [bool(v) for v in reject],
                        "pvals_corrected": [f(v) for v in corr],
                        "alphacSidak": f(sidak),
                        "alphacBonf": f(bonf),
                    }
                )
    versions = {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "statsmodels": statsmodels.__version__,
        "machine": platform.machine(),
        "script": "tests/peers/fdr_peers.py",
    }
    # One case per line; each list of p-values once, under `pvalues`, named by the cases' `name`.
    lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in pvalues.items()]
    with open(OUT, "w") as fh:
        fh.write('{\n "versions": ' + json.dumps(versions) + ',\n "pvalues": {\n')
        fh.write(",\n".join(" " + line for line in lines))
        fh.write('\n },\n "cases": [\n')
        fh.write(",\n".join("  " + json.dumps(c) for c in cases))
        fh.write("\n ]\n}\n")
    print(json.dumps(versions, indent=1), len(cases), "cases")


if __name__ == "__main__":
    main()
