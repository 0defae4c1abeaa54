"""Generates tests/fixtures/peers/baselines.json: MMD² (numpy formulas, Gretton et al. 2012 Eqs. 3 and 5, RBF with
sigma = sqrt(d) or the pooled median heuristic) and Wasserstein-1 (scipy.optimize.linear_sum_assignment on the
Euclidean distance matrix for equal sizes; scipy.stats.wasserstein_distance in 1-D).
Run from the repository root with numpy/scipy installed."""
import json

import numpy as np
import scipy
from scipy.optimize import linear_sum_assignment
from scipy.spatial.distance import cdist, pdist
from scipy.stats import wasserstein_distance

rng = np.random.default_rng(20261121)
cases = []
for name, n, m, d, shift in [("n20_m20_d3", 20, 20, 3, 0.5), ("n15_m25_d4", 15, 25, 4, 0.0),
                             ("n40_m40_d16", 40, 40, 16, 1.0), ("n7_m7_d2_ties", 7, 7, 2, 0.0),
                             ("n30_m12_d1", 30, 12, 1, 0.3)]:
    X = rng.normal(size=(n, d))
    Y = rng.normal(size=(m, d)) + shift
    if "ties" in name:
        X = np.round(X)
        Y = np.round(Y)
    Z = np.vstack([X, Y])
    out = {"name": name, "X": X.tolist(), "Y": Y.tolist()}
    for spec in ("sqrt_dim", "median"):
        if spec == "sqrt_dim":
            sigma = np.sqrt(d)
        else:
            med = np.median(pdist(Z))
            sigma = med if med > 0 else 1.0
        K = np.exp(-cdist(Z, Z, "sqeuclidean") / (2 * sigma ** 2))
        kxx, kyy, kxy = K[:n, :n], K[n:, n:], K[:n, n:]
        biased = kxx.mean() + kyy.mean() - 2 * kxy.mean()
        unbiased = ((kxx.sum() - np.trace(kxx)) / (n * (n - 1)) + (kyy.sum() - np.trace(kyy)) / (m * (m - 1))
                    - 2 * kxy.mean())
        out[f"mmd2_biased_{spec}"] = biased
        out[f"mmd2_unbiased_{spec}"] = unbiased
        out[f"sigma_{spec}"] = sigma
    if n == m:
        C = cdist(X, Y)
        r, c = linear_sum_assignment(C)
        out["w1_assignment"] = C[r, c].mean()
    if d == 1:
        out["w1_scipy_1d"] = wasserstein_distance(X[:, 0], Y[:, 0])
    cases.append(out)
json.dump({"source": f"numpy {np.__version__}, scipy {scipy.__version__}", "cases": cases},
          open("tests/fixtures/peers/baselines.json", "w"))
print(len(cases), "cases")
