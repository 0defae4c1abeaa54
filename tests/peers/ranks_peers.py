"""Peer values for Lethe's rank statistics, multiple testing, histogram/JSD and F1, for shapes the goldens lack.

Writes tests/fixtures/peers/ranks_{mann_whitney,wilcoxon,multitest,histogram_jsd,misc}.json from the pinned
reference environment (scipy 1.17.1, numpy 2.4.6, statsmodels 0.15.0, scikit-learn 1.9.1; see
tests/fixtures/golden/versions.json). Inputs are generated here from fixed seeds and stored in the JSON, so the Rust
tests never need Python.

Besides scipy's own Mann-Whitney exact p-values (a float recursion good to ~1e-13 relative at 200 x 200), every exact
row carries `exact_rational`: the same tail probability from the Gaussian-binomial counts in Python integers, as a
correctly rounded float.

Usage (repository root):  /tmp/pyref/bin/python tests/peers/ranks_peers.py
"""
import json
import math
import warnings
from fractions import Fraction

import numpy as np
import scipy
import sklearn
import statsmodels
from scipy import special, stats
from scipy.spatial.distance import jensenshannon
from sklearn.metrics import f1_score, precision_score, recall_score
from statsmodels.stats.multitest import multipletests

warnings.simplefilter("ignore")
OUT = "tests/fixtures/peers/"
VERSIONS = {"numpy": np.__version__, "scipy": scipy.__version__, "statsmodels": statsmodels.__version__,
            "scikit-learn": sklearn.__version__}


def fl(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def fls(a):
    return [fl(v) for v in a]


def dump(name, obj):
    obj = {"generator": "tests/peers/ranks_peers.py", "versions": VERSIONS, **obj}
    with open(OUT + name, "w") as f:
        json.dump(obj, f, separators=(",", ":"))
    print(name, len(json.dumps(obj, separators=(",", ":"))) // 1024, "KiB")


# ---------------------------------------------------------------- Mann-Whitney
def gauss_binom_prefix(m, n, k_max):
    """Coefficients c_0..c_k_max of [m+n choose m]_q (counts of U = u), exact integers."""
    m, n = min(m, n), max(m, n)
    c = [0] * (k_max + 1)
    c[0] = 1
    for i in range(1, m + 1):
        a = n + i
        for u in range(k_max, a - 1, -1):
            c[u] -= c[u - a]
        for u in range(i, k_max + 1):
            c[u] += c[u - i]
    return c


def mwu_sf_exact(k, n1, n2):
    """P(U >= k) under the no-ties null, exact rational."""
    mn = n1 * n2
    if k <= 0:
        return Fraction(1)
    if k > mn:
        return Fraction(0)
    total = math.comb(n1 + n2, n1)
    kc = mn - k
    if k < kc:
        return Fraction(total - sum(gauss_binom_prefix(n1, n2, k - 1)), total)
    return Fraction(sum(gauss_binom_prefix(n1, n2, kc)), total)


def mwu_rows(x, y, exact=True):
    rows = []
    for alt in ["two-sided", "less", "greater"]:
        for method, conts in [("auto", [True, False]), ("asymptotic", [True, False]), ("exact", [True])]:
            if method == "exact" and not exact:
                continue
            for cont in conts:
                r = stats.mannwhitneyu(x, y, use_continuity=cont, alternative=alt, method=method)
                row = {"alternative": alt, "method": method, "use_continuity": cont, "U": fl(r.statistic),
                       "p": fl(r.pvalue)}
                if method == "exact":
                    u1 = float(r.statistic)
                    u2 = len(x) * len(y) - u1
                    u = {"greater": u1, "less": u2, "two-sided": max(u1, u2)}[alt]
                    e = mwu_sf_exact(int(u), len(x), len(y)) * (2 if alt == "two-sided" else 1)
                    row["exact_rational"] = min(float(e), 1.0)
                rows.append(row)
    return rows


def mann_whitney():
    rng = np.random.default_rng(20260101)
    cases = []

    def add(name, x, y, exact=True, note=""):
        cases.append({"name": name, "note": note, "x": fls(x), "y": fls(y), "results": mwu_rows(x, y, exact)})

    x, y = rng.normal(0.15, 1, 200), rng.normal(0, 1, 200)
    add("n200_n200_continuous", x, y, note="SDE shape, no ties: auto is asymptotic")
    x, y = np.round(rng.normal(0.2, 1, 200), 1), np.round(rng.normal(0, 1, 200), 1)
    add("n200_n200_ties", x, y, note="rounded to 0.1: heavy ties; exact ignores ties and truncates a half U")
    add("n150_n200_shifted", rng.normal(0.3, 1, 150), rng.normal(0, 1, 200))
    add("n8_n30", rng.normal(0.5, 1, 8), rng.normal(0, 1, 30), note="min <= 8, no ties: auto is exact")
    add("n3_n50", rng.normal(0, 1, 3), rng.normal(0, 1, 50))
    add("n9_n9", rng.normal(1, 1, 9), rng.normal(0, 1, 9), note="both > 8: auto is asymptotic")
    add("n8_n9_ties", np.round(rng.normal(0, 1, 8)), np.round(rng.normal(0, 1, 9)),
        note="min <= 8 with ties: auto is asymptotic")
    add("n1_n20", rng.normal(0, 1, 1), rng.normal(0, 1, 20))
    add("n4_n4_extreme", np.array([5.0, 6, 7, 8]), np.array([1.0, 2, 3, 4]))
    add("infinities", np.array([np.inf, 1.0, -2.0, 3.5, 0.25]), np.array([-np.inf, 0.5, 2.0, np.inf, 4.0, -1.0]),
        note="+-inf are ranked; the two +inf tie")
    add("half_integer_U", np.array([1.0, 2, 3, 3]), np.array([3.0, 4, 5]),
        note="a tie across samples gives U = 0.5-valued; exact truncates")
    dump("ranks_mann_whitney.json", {
        "description": "scipy.stats.mannwhitneyu(x, y, use_continuity, alternative, method): statistic U (of x) "
                       "and p. exact_rational: P(U' >= floor(U)) (x2 for two-sided, capped at 1) from exact "
                       "integer counts.",
        "cases": cases})


# ---------------------------------------------------------------- Wilcoxon
def wilcoxon_rows(x, y):
    rows = []
    for alt in ["two-sided", "greater", "less"]:
        for zm in ["wilcox", "pratt", "zsplit"]:
            for method in ["auto", "exact", "asymptotic"]:
                for corr in [False, True]:
                    row = {"alternative": alt, "zero_method": zm, "method": method, "correction": corr}
                    try:
                        r = stats.wilcoxon(x, y, zero_method=zm, correction=corr, alternative=alt, method=method)
                        row.update(statistic=fl(r.statistic), p=fl(r.pvalue))
                        if hasattr(r, "zstatistic"):
                            row["z"] = fl(r.zstatistic)
                    except ValueError as e:
                        row["error"] = str(e)
                    rows.append(row)
    return rows


def wilcoxon():
    rng = np.random.default_rng(20260102)
    cases = []

    def add(name, x, y, note=""):
        cases.append({"name": name, "note": note, "x": fls(x), "y": None if y is None else fls(y),
                      "results": wilcoxon_rows(x, None if y is None else y)})

    # n = 30 with zeros and ties: values on a coarse grid so |d| ties and some d are exactly 0.
    x = np.round(rng.normal(0.3, 1, 30) * 4) / 4
    y = np.round(rng.normal(0, 1, 30) * 4) / 4
    y[:4] = x[:4]
    add("n30_zeros_ties", x, y, note="auto: ties/zeros and n > 13 -> asymptotic")
    d = np.round(rng.normal(0.4, 1, 12) * 2) / 2
    d[[2, 7]] = 0.0
    add("n12_zeros_ties_one_sample", d, None, note="auto: ties/zeros and n <= 13 -> permutation (exact)")
    d = np.round(rng.normal(0.3, 1, 13) * 3) / 3
    add("n13_ties", d, None, note="boundary: n = 13 -> permutation")
    d = np.round(rng.normal(0.3, 1, 14) * 3) / 3
    add("n14_ties", d, None, note="boundary: n = 14 -> asymptotic")
    add("n50_continuous", rng.normal(0.3, 1, 50), rng.normal(0, 1, 50), note="auto: n = 50, no ties -> exact")
    add("n51_continuous", rng.normal(0.3, 1, 51), rng.normal(0, 1, 51), note="auto: n = 51 -> asymptotic")
    add("n80_exact_requested", rng.normal(0.2, 1, 80), None, note="exact well beyond auto's range")
    add("n8_positive_ties", np.array([1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 4.0, 5.0]), None)
    add("one_zero_n7", np.array([0.0, 1.5, -0.5, 2.5, 3.5, -4.5, 5.5]), None)
    add("infinite_difference", np.array([np.inf, -1.0, 2.0, 3.0, -5.0, 6.0]), None)
    add("n1_nonzero", np.array([1.5]), None)
    add("n2_zero_and_positive", np.array([0.0, 2.0]), None)
    dump("ranks_wilcoxon.json", {
        "description": "scipy.stats.wilcoxon(x, y, zero_method, correction, alternative, method): statistic, p, "
                       "and zstatistic when method='asymptotic'. 'error' records a ValueError from scipy.",
        "cases": cases})


# ---------------------------------------------------------------- multiple testing
def multitest():
    rng = np.random.default_rng(20260103)
    p = np.concatenate([rng.uniform(0, 1, 150), rng.uniform(0, 0.01, 40), [0.0, 0.0, 1.0, 1.0]])
    p = np.round(p, 4)  # rounding creates ties
    rng.shuffle(p)
    inputs = {
        "n194_ties": p,
        "all_ones": np.ones(5),
        "all_zero": np.zeros(4),
        "single_small": np.array([0.001]),
        "monotone_edge": np.array([0.05 * i / 10 for i in range(1, 11)]),
    }
    cases = []
    for name, pv in inputs.items():
        res = {}
        for method in ["fdr_bh", "holm", "bonferroni"]:
            for alpha in [0.05, 0.1]:
                rej, adj, _, _ = multipletests(pv, alpha=alpha, method=method)
                res[f"{method}@{alpha}"] = {"reject": [bool(b) for b in rej], "p_adjusted": fls(adj)}
        cases.append({"name": name, "p": fls(pv), "results": res})
    dump("ranks_multitest.json", {
        "description": "statsmodels.stats.multitest.multipletests(p, alpha, method): reject and pvals_corrected, "
                       "keyed 'method@alpha'.",
        "cases": cases})


# ---------------------------------------------------------------- histogram + JSD
def histogram_jsd():
    rng = np.random.default_rng(20260104)
    hists = []

    def addh(name, x, bins, rng_=None):
        counts, edges = np.histogram(x, bins=bins, range=rng_)
        hists.append({"name": name, "x": fls(x), "bins": bins, "range": None if rng_ is None else list(rng_),
                      "edges": fls(edges), "counts": [int(c) for c in counts]})

    # Values exactly on numpy's own edges (and their float neighbours), for awkward ranges and bin counts.
    for lo, hi, bins in [(0.1, 0.7, 7), (-1.3, 2.9, 13), (0.0, 1.0, 10), (1e-3, 3e-3, 17), (-5.0, 5.0, 30),
                         (0.2, 0.3, 3), (100.1, 100.7, 6)]:
        edges = np.linspace(lo, hi, bins + 1)
        x = np.concatenate([edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf),
                            (edges[:-1] + edges[1:]) / 2])
        x = x[(x >= lo) & (x <= hi)]
        addh(f"edges_{lo}_{hi}_{bins}", x, bins, (lo, hi))
        addh(f"edges_{lo}_{hi}_{bins}_datarange", x, bins)
    for bins in [1, 2, 5, 30, 64]:
        addh(f"normal_{bins}", rng.normal(0, 1, 97), bins)
    addh("range_drops_outside", np.array([-2.0, -1.0, 0.0, 0.3, 0.5, 1.0, 1.5, np.inf, -np.inf]), 4, (0.0, 1.0))
    addh("constant", np.full(6, 3.25), 5)
    addh("tiny_spread", 1.0 + np.arange(8) * 2.0 ** -50, 3)

    jsds = []
    pairs = {
        "normal_vs_shifted_n100_n80": (rng.normal(0, 1, 100), rng.normal(0.5, 1.3, 80)),
        "hsic_like_small_values": (rng.gamma(2.0, 1e-4, 60), rng.gamma(2.5, 1e-4, 60)),
        "uniform_vs_beta": (rng.uniform(0, 1, 150), rng.beta(2, 5, 120)),
        "integers_with_ties": (rng.integers(0, 6, 70).astype(float), rng.integers(1, 8, 50).astype(float)),
        "partly_overlapping": (rng.normal(0, 1, 40), rng.normal(3, 1, 40)),
    }
    for name, (a, b) in pairs.items():
        lo, hi = min(a.min(), b.min()), max(a.max(), b.max())
        rows = []
        for bins in [1, 2, 7, 30, 100]:
            ca, edges = np.histogram(a, bins=bins, range=(lo, hi))
            cb, _ = np.histogram(b, bins=bins, range=(lo, hi))
            p, q = ca / ca.sum(), cb / cb.sum()
            rows.append({"bins": bins, "edges": fls(edges), "counts_a": [int(c) for c in ca],
                         "counts_b": [int(c) for c in cb], "scipy_jensenshannon": fl(jensenshannon(p, q)),
                         "scipy_jensenshannon_base2": fl(jensenshannon(p, q, base=2))})
        jsds.append({"name": name, "a": fls(a), "b": fls(b), "results": rows})
    dump("ranks_histogram_jsd.json", {
        "description": "numpy.histogram(x, bins, range) edges and counts; JSD pairs: numpy.histogram of a and b on "
                       "range=(min(a U b), max(a U b)), then scipy.spatial.distance.jensenshannon(counts_a/|a|, "
                       "counts_b/|b|[, base=2]) (the square root of the JSD).",
        "histograms": hists, "jsd": jsds})


# ---------------------------------------------------------------- rankdata, ndtr, F1
def misc():
    rng = np.random.default_rng(20260105)
    ranks = []
    for name, x in {
        "ties_and_inf": np.array([3.0, -np.inf, 1.0, 3.0, np.inf, 0.0, -0.0, 1.0, 3.0]),
        "rounded_normals_60": np.round(rng.normal(0, 1, 60), 1),
        "all_equal": np.full(7, 2.5),
    }.items():
        ranks.append({"name": name, "x": fls(x), "scipy_rankdata_average": fls(stats.rankdata(x))})
    zs = np.concatenate([np.linspace(-40, 40, 161), [-0.7071067811865476, -0.5, 0.5, 1e-300, -1e-8, 37.5, -37.5,
                                                       -38.5, 8.2, -8.2, -1.4142135623730951]])
    ndtr = {"x": fls(zs), "scipy_special_ndtr": fls(special.ndtr(zs))}
    f1 = []
    for i, (n, pt, pp) in enumerate([(50, 0.5, 0.4), (33, 0.2, 0.7), (200, 0.5, 0.5), (12, 0.0, 0.5),
                                     (15, 0.6, 0.0), (40, 1.0, 1.0)]):
        t = rng.uniform(size=n) < pt
        p = rng.uniform(size=n) < pp
        f1.append({"name": f"random_{i}", "truth": [bool(v) for v in t], "pred": [bool(v) for v in p],
                   "sklearn_f1": fl(f1_score(t, p, zero_division=0)),
                   "sklearn_precision": fl(precision_score(t, p, zero_division=0)),
                   "sklearn_recall": fl(recall_score(t, p, zero_division=0))})
    dump("ranks_misc.json", {
        "description": "scipy.stats.rankdata(x) (method='average'); scipy.special.ndtr(x); sklearn f1/precision/"
                       "recall_score(truth, pred, zero_division=0) with True as the positive class.",
        "rankdata": ranks, "ndtr": ndtr, "f1": f1})


if __name__ == "__main__":
    mann_whitney()
    wilcoxon()
    multitest()
    histogram_jsd()
    misc()
