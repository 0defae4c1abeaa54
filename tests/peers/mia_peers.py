"""Golden vectors for `lethe mia` (ROC, AUC, DeLong, TPR at FPR by three tools' rules) and `lethe fdr`
(statsmodels multipletests): writes tests/fixtures/golden_mia/{roc,fdr}.json. Provenance: PROVENANCE.md beside them.

    pip install scikit-learn==1.9.1 statsmodels==0.15.0 jax-privacy==2.0.0
    python3 tests/peers/mia_peers.py LEAKPRO_SRC   (a git checkout of aidotse/LeakPro at c47752f; also pydantic,
                                                  matplotlib, optuna, which LeakPro's reporting module imports)

What runs what:
* scikit-learn `roc_curve(drop_intermediate=False)` (the exact curve), `roc_auc_score` (AUC).
* privacy-meter's rule, reproduced (the PyPI package `privacy-meter` 1.0.1 installs but predates this rule): the
  repository privacytrustlab/ml_privacy_meter at e384af8fd9319b8eeb1303aa82474df1441e3c59, `audit.py`,
  `get_audit_results`: `fpr_list, tpr_list, _ = roc_curve(...)` (drop_intermediate default True), then
  `tpr_list[np.where(fpr_list <= t)[0][-1]]`.
* LeakPro's rule, run from LEAKPRO_SRC (aidotse/LeakPro at c47752fad0fb48cba7d4d03023cdcedf267501c4; refused at
  another commit): `leakpro/reporting/mia_result.py` `MIAResult.from_full_scores(labels, scores)` (its
  `_compute_confusion_arrays`: cumulative counts at the first score of each tie group, descending argsort) and
  `_get_result_fixed_fpr([t])` (`max(tpr for fpr, tpr in zip(...) if fpr <= t, default=0.0)`). LeakPro's package
  `__init__` (every attack, torch) is bypassed; torch is stubbed, as tests/fixtures/tools/make.py does.
* jax_privacy 2.0.0 (installed from PyPI and run): `jax_privacy.auditing.CanaryScoreAuditor(in, out)
  .tpr_at_given_fpr(t)` and `.attack_auroc()`.
* DeLong's variance by its O(n1·n0) definition (structural components V10, V01 with psi = 1, 1/2, 0), numpy.
* Clopper–Pearson: statsmodels `proportion_confint(k, n, alpha, method="beta")`.
* `multipletests(p, alpha, method)` for fdr_bh, holm, bonferroni: all four returned fields.
"""

import json
import os
import sys
import types
from pathlib import Path

import numpy as np
import sklearn
import statsmodels
from sklearn.metrics import roc_auc_score, roc_curve
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

import jax_privacy
from jax_privacy import auditing

TARGETS = [0.0, 1e-4, 1e-3, 1e-2, 0.1, 0.25, 0.5, 1.0]
ALPHA = 0.05
OUT = os.path.join(os.path.dirname(__file__), "..", "fixtures", "golden_mia")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from upstream import checkout  # noqa: E402

LEAKPRO_COMMIT = "c47752fad0fb48cba7d4d03023cdcedf267501c4"
if len(sys.argv) != 2:
    sys.exit(f"usage: {sys.argv[0]} LEAKPRO_SRC  (a git checkout of aidotse/LeakPro at {LEAKPRO_COMMIT})")
LEAKPRO_SRC = checkout(sys.argv[1], LEAKPRO_COMMIT, "aidotse/LeakPro", ["leakpro"])
# LeakPro's reporting module imports torch only through modules it does not use here: empty stand-ins.
for name in ["torch", "torch.nn", "torch.utils", "torch.utils.data"]:
    mod = types.ModuleType(name)
    mod.__path__ = []
    sys.modules[name] = mod
sys.modules["torch.nn"].Module = type("Module", (), {})
sys.modules["torch"].nn = sys.modules["torch.nn"]
sys.modules["torch"].Tensor = type("Tensor", (), {})  # scipy asks whether arrays are torch tensors
_pkg = types.ModuleType("leakpro")  # leakpro/__init__.py imports the whole attack stack
_pkg.__path__ = [str(LEAKPRO_SRC / "leakpro")]
sys.modules["leakpro"] = _pkg
import matplotlib  # noqa: E402

matplotlib.use("Agg")
from leakpro.reporting.mia_result import MIAResult  # noqa: E402


def f(v):
    v = float(v)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def privacy_meter_rule(y, s, t):
    # ml_privacy_meter audit.py get_audit_results
    fpr_list, tpr_list, thr = roc_curve(y, s)
    idx = np.where(fpr_list <= t)[0][-1]
    return tpr_list[idx], fpr_list[idx], thr[idx]


def leakpro_rule(y, s, t):
    # LeakPro mia_result.py: from_full_scores (_compute_confusion_arrays) + _get_result_fixed_fpr, run
    (tpr,) = MIAResult.from_full_scores(y, s, result_name="peer")._get_result_fixed_fpr([t]).values()
    return tpr


def delong_variance(x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    psi = (x[:, None] > y[None, :]).astype(float) + 0.5 * (x[:, None] == y[None, :])
    v10 = psi.mean(axis=1)
    v01 = psi.mean(axis=0)
    auc = v10.mean()
    return auc, v10.var(ddof=1) / len(x) + v01.var(ddof=1) / len(y)


def case(name, x, y):
    x, y = np.asarray(x, float), np.asarray(y, float)
    yl = np.r_[np.ones(len(x), int), np.zeros(len(y), int)]
    s = np.r_[x, y]
    fpr, tpr, thr = roc_curve(yl, s, drop_intermediate=False)
    auc_delong, var = delong_variance(x, y)
    aud = auditing.CanaryScoreAuditor(x, y)
    ties = len(np.unique(s)) < len(s)
    rules = []
    for t in TARGETS:
        pm_tpr, pm_fpr, pm_thr = privacy_meter_rule(yl, s, t)
        # Clopper–Pearson at privacy-meter's point (counts from its rates).
        tp, fp = int(round(pm_tpr * len(x))), int(round(pm_fpr * len(y)))
        rules.append(
            {
                "target_fpr": t,
                "privacy_meter": {"tpr": f(pm_tpr), "fpr": f(pm_fpr), "threshold": f(pm_thr)},
                "privacy_meter_cp": {
                    "tpr": [f(v) for v in proportion_confint(tp, len(x), ALPHA, method="beta")],
                    "fpr": [f(v) for v in proportion_confint(fp, len(y), ALPHA, method="beta")],
                },
                "leakpro": f(leakpro_rule(yl, s, t)),
                "jax_privacy": f(aud.tpr_at_given_fpr(t)),
            }
        )
    return {
        "name": name,
        "members": [f(v) for v in x],
        "non_members": [f(v) for v in y],
        "has_ties": bool(ties),
        "fpr": [f(v) for v in fpr],
        "tpr": [f(v) for v in tpr],
        "thresholds": [f(v) for v in thr],
        "roc_auc_score": f(roc_auc_score(yl, s)),
        "jax_privacy_auroc": f(aud.attack_auroc()),
        "delong_auc": f(auc_delong),
        "delong_variance": f(var),
        "alpha": ALPHA,
        "rules": rules,
    }


def main():
    rng = np.random.default_rng(20261125)
    cases = []
    cases.append(case("hand_small", [5.0, 4.0, 1.5], [3.0, 2.0, 1.0, 0.0]))
    cases.append(case("hand_ties", [3.0, 2.0, 2.0, 5.0, 1.0, 2.0], [1.0, 2.0, 0.0, 4.0, 2.0]))
    cases.append(case("horizontal_run", [4.0, 1.0], [3.0, 2.0]))
    cases.append(case("normal_200_300", rng.normal(0.5, 1, 200), rng.normal(0, 1, 300)))
    cases.append(case("rounded_ties_150_150", np.round(rng.normal(0.7, 1, 150), 1), np.round(rng.normal(0, 1, 150), 1)))
    cases.append(case("reversed_100_120", rng.normal(-1, 1, 100), rng.normal(0, 1, 120)))
    cases.append(case("low_fpr_300_2000", rng.normal(1.0, 1, 300), rng.normal(0, 1, 2000)))
    cases.append(case("discrete_scores_80_90", rng.integers(0, 6, 80).astype(float), rng.integers(0, 5, 90).astype(float)))
    cases.append(case("separated_30_40", rng.normal(10, 1, 30), rng.normal(0, 1, 40)))
    fdr = []
    for name, p in [
        ("mixed_12", rng.uniform(0, 0.2, 12)),
        ("with_ties", np.array([0.01, 0.02, 0.02, 0.03, 0.5, 0.04, 0.04, 0.9, 1.0, 0.0])),
        ("uniform_200", rng.uniform(0, 1, 200)),
        ("one", np.array([0.03])),
    ]:
        for method in ["fdr_bh", "holm", "bonferroni"]:
            for alpha in [0.05, 0.1]:
                reject, corr, sidak, bonf = multipletests(p, alpha=alpha, method=method)
                fdr.append(
                    {
                        "name": name,
                        "method": method,
                        "alpha": alpha,
                        "p": [f(v) for v in p],
                        "reject": [bool(v) for v in reject],
                        "pvals_corrected": [f(v) for v in corr],
                        "alphacSidak": f(sidak),
                        "alphacBonf": f(bonf),
                    }
                )
    versions = {
        "python": sys.version.split()[0],
        "numpy": np.__version__,
        "scikit-learn": sklearn.__version__,
        "statsmodels": statsmodels.__version__,
        "jax-privacy": getattr(jax_privacy, "__version__", "2.0.0"),
        "privacy-meter rule": "ml_privacy_meter@e384af8fd9319b8eeb1303aa82474df1441e3c59 audit.py get_audit_results (reproduced)",
        "leakpro rule": "LeakPro@c47752fad0fb48cba7d4d03023cdcedf267501c4 leakpro/reporting/mia_result.py (run from a checkout)",
    }
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "roc.json"), "w") as fh:
        json.dump({"versions": versions, "targets": TARGETS, "cases": cases}, fh, indent=1)
    with open(os.path.join(OUT, "fdr.json"), "w") as fh:
        json.dump({"versions": versions, "cases": fdr}, fh, indent=1)
    print(json.dumps(versions, indent=1))


if __name__ == "__main__":
    main()
