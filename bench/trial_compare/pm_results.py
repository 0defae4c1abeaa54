#!/usr/bin/env python3
"""Write ML Privacy Meter attack results (report/exp/attack_result_0.npz) with privacy-meter's OWN saving code.

    python pm_results.py PM_CHECKOUT DATA_DIR OUT_DIR [MAX_ROWS]

PM_CHECKOUT: a checkout of github.com/privacytrustlab/ml_privacy_meter (used at e384af8fd9319b8eeb1303aa82474df1441e3c59).
What runs is privacy-meter's, unchanged: audit.py get_audit_results (compute_attack_results: scikit-learn's ROC and
AUC, TPR at 1%, 0.1%, 0% FPR; np.savez of fpr, tpr, auc, one_tenth_fpr, zero_fpr, scores, memberships). Its ROC
plots (visualize.py, matplotlib) and the modules audit.py imports but get_audit_results never calls (torch, attacks,
modules.ramia) are stubbed at import. The attack scores are the ones privacy-meter's own RMIA/LOSS signal starts from:
each model's probability of the true label (get_signals.py), members = the forget rows (trained on by the model),
non-members = the test rows, read from DATA_DIR/seed*/softmax_<model>.csv made by make_user_files.py.
Writes OUT_DIR/<method>/seed<S>/report/exp/attack_result_0.npz for the methods original, finetune, retrain.
MAX_ROWS (optional): only the first MAX_ROWS forget rows and the first MAX_ROWS test rows are scored, for a small
test fixture (analysis/tests/data/privacy_meter/: MAX_ROWS 40, seeds 201-203 of make_user_files.py).
"""
import glob
import logging
import os
import sys

import numpy as np
import sklearn.metrics  # noqa: F401  imported before the stubs

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ou_results import _StubFinder, STUBBED  # noqa: E402  the same import stubs as for open-unlearning

STUBBED.clear()
STUBBED.update({"torch", "attacks", "modules", "visualize"})


def main():
    pm, data, out = (os.path.abspath(p) for p in sys.argv[1:4])
    cap = int(sys.argv[4]) if len(sys.argv) > 4 else None
    sys.meta_path.insert(0, _StubFinder())
    sys.path.insert(0, pm)
    import audit  # privacy-meter's audit.py

    log = logging.getLogger("privacy_meter")
    for d in sorted(glob.glob(os.path.join(data, "seed*"))):
        seed = os.path.basename(d)
        forget = np.loadtxt(f"{d}/forget.txt", dtype=int)[:cap]
        test = np.loadtxt(f"{d}/test.txt", dtype=int)[:cap]
        for method, model in (("original", "original"), ("finetune", "unlearned"), ("retrain", "retrained")):
            P = np.loadtxt(f"{d}/softmax_{model}.csv", delimiter=",", skiprows=1)
            p = P[np.arange(len(P)), P[:, -1].astype(int)]
            scores = np.r_[p[forget], p[test]]
            members = np.r_[np.ones(len(forget), bool), np.zeros(len(test), bool)]
            rd = os.path.join(out, method, seed, "report", "exp")
            r = audit.get_audit_results(rd, 0, scores, members, log)
            print(rd, "auc", round(float(r["auc"]), 4))


if __name__ == "__main__":
    main()
