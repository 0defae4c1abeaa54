"""Reference values of tests/browser/teach_compare.test.mjs, computed with scipy and statsmodels (not with Lethe).

The teaching topics "one seed is not a result" (www/src/teach/seeds.js) and "forget quality" (www/src/teach/fq.js)
draw their illustrative numbers with www/src/teach/draws.js (splitmix64 + Box-Muller); this file ports those draws
to Python bit for bit and computes what the figures must show:

* seeds: Welch's t (scipy.stats.ttest_ind, equal_var=False), Student's t interval of each mean
  (scipy.stats.t.interval), Mann-Whitney (scipy.stats.mannwhitneyu, two-sided, method auto), the exact permutation
  test of the difference of means (scipy.stats.permutation_test, independent, two-sided, every split), and Holm
  (statsmodels.stats.multitest.multipletests, method="holm") over the 15 pairs of six methods;
* forget quality: scipy.stats.ks_2samp(unlearned, retain) (two-sided, method auto), as open-unlearning's ks_test.

Run: /path/to/venv/bin/python tests/browser/teach_compare_ref.py > refs.json (scipy 1.17.1, statsmodels 0.15.0,
numpy 2.4.6 for the values in the test).
"""

import itertools
import json
import math

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests

MASK = (1 << 64) - 1


def stream(seed, group, member):
    s = ((seed & 0xFFFFFFFF) << 32) | (group << 8) | member

    def nxt():
        nonlocal s
        s = (s + 0x9E3779B97F4A7C15) & MASK
        z = s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    return nxt


def normals(nxt, n):
    out = []
    for _ in range(n):
        u1 = ((nxt() >> 11) + 1) / 2**53
        u2 = (nxt() >> 11) / 2**53
        out.append(math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2))
    return out


def draw(seed, group, member, n, mean=0.0, sd=1.0):
    return [mean + sd * z for z in normals(stream(seed, group, member), n)]


# seeds.js
BASE, SPREAD, REPEATS, TRAP_EXPERIMENTS, TRAP_GROUP = 80, 1, 12, 20, 1000
SIX = ["M1", "M2", "M3", "M4", "M5", "M6"]


def r6(v):
    # JavaScript's Number(v.toFixed(6)): the decimal nearest to v at 6 places.
    return float(f"{v:.6f}")


def two(seed, e, n, d):
    return [r6(v) for v in draw(seed, e, 0, n, BASE + d, SPREAD)], [r6(v) for v in draw(seed, e, 1, n, BASE, SPREAD)]


_SPLITS = {}


def perm_p(a, b):
    """scipy.stats.permutation_test's exact two-sided p-value (every split; its tolerance 100 eps |observed| and
    p = min(2 min(P(null <= obs), P(null >= obs)), 1)), by enumerating the splits with numpy: scipy itself takes
    ~10 s a test at 10 + 10 runs, and the test needs ~600 of them. `perm_p_scipy` is checked equal below."""
    pooled = np.array(a + b)
    n, m = len(a), len(pooled)
    if (n, m) not in _SPLITS:
        _SPLITS[(n, m)] = np.array(list(itertools.combinations(range(m), n)))
    idx = _SPLITS[(n, m)]
    mask = np.zeros((len(idx), m), dtype=bool)
    mask[np.arange(len(idx))[:, None], idx] = True
    first = np.where(mask, pooled, 0.0)
    rest = np.where(mask, 0.0, pooled)
    null = first.sum(axis=1) / n - rest.sum(axis=1) / (m - n)
    obs = null[0]  # the first split is the observed one, computed as the others are (as scipy does)
    gamma = abs(np.finfo(float).eps * 100 * obs)
    less = np.mean(null <= obs + gamma)
    greater = np.mean(null >= obs - gamma)
    return float(min(1.0, 2 * min(less, greater)))


def perm_p_scipy(a, b):
    res = stats.permutation_test(
        (np.array(a), np.array(b)),
        lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
        permutation_type="independent",
        alternative="two-sided",
        n_resamples=np.inf,
        vectorized=True,
    )
    return float(res.pvalue)


def tint(v):
    lo, hi = stats.t.interval(0.95, len(v) - 1, loc=np.mean(v), scale=stats.sem(v))
    return [float(lo), float(hi)]


def experiment(a, b):
    w = stats.ttest_ind(a, b, equal_var=False)
    return {
        "a": a,
        "b": b,
        "mean_a": float(np.mean(a)),
        "mean_b": float(np.mean(b)),
        "t_a": tint(a),
        "t_b": tint(b),
        "welch": float(w.pvalue),
        "mwu": float(stats.mannwhitneyu(a, b, alternative="two-sided").pvalue),
        "perm": perm_p(a, b),
    }


def seeds_case(seed, n, d):
    out = {"seed": seed, "n": n, "d": d, "one": experiment(*two(seed, 0, n, d))}
    if n <= 10 and seed == 0:
        a, b = two(seed, 0, n, d)
        assert abs(out["one"]["perm"] - perm_p_scipy(a, b)) < 1e-12
    reps = [two(seed, e, n, d) for e in range(REPEATS)]
    out["flips"] = sum(np.mean(b) > np.mean(a) for a, b in reps)
    ps = [perm_p(a, b) for a, b in reps]
    out["significant"] = sum(p < 0.05 for p in ps)
    out["repeat_p"] = ps
    tally = []
    first = None
    for e in range(TRAP_EXPERIMENTS):
        runs = {m: [r6(v) for v in draw(seed, TRAP_GROUP + e, i, n, BASE, SPREAD)] for i, m in enumerate(SIX)}
        pairs = list(itertools.combinations(SIX, 2))
        p = [perm_p(runs[x], runs[y]) for x, y in pairs]
        adj = multipletests(p, method="holm")[1]
        tally.append([sum(v < 0.05 for v in p), int(sum(v < 0.05 for v in adj))])
        if n <= 5 and e < 3:
            for (x, y), v in zip(pairs, p):
                assert abs(v - perm_p_scipy(runs[x], runs[y])) < 1e-12, (x, y)
        if e == 0:
            first = {f"{x}-{y}": [p[i], float(adj[i])] for i, (x, y) in enumerate(pairs)}
    out["trap_first"] = first
    out["trap_tally"] = tally
    return out


# fq.js
RETAIN_MEDIAN, LOG_SD, FQ_GROUP, LO, HI, SWEEP = 0.6, 0.5, 2000, -0.8, 0.6, 29


def median_of(log10):
    return float(f"{10**log10:.4f}")


def ratios(seed, member, n, median, sd=LOG_SD):
    return [math.exp(math.log(median) + sd * z) for z in normals(stream(seed, FQ_GROUP, member), n)]


def fq_case(seed, n, median, spread):
    r = ratios(seed, 0, n, RETAIN_MEDIAN)
    u = ratios(seed, 1, n, median, spread)
    k = stats.ks_2samp(u, r)
    return {
        "seed": seed,
        "n": n,
        "median": median,
        "spread": spread,
        "p": float(k.pvalue),
        "d": float(k.statistic),
        "location": float(k.statistic_location),
        "median_u": float(np.median(u)),
        "median_r": float(np.median(r)),
    }


def sweep(seed, n, spread):
    r = ratios(seed, 0, n, RETAIN_MEDIAN)
    out = []
    for i in range(SWEEP):
        m = median_of(LO + (HI - LO) * i / (SWEEP - 1))
        out.append([m, float(stats.ks_2samp(ratios(seed, 1, n, m, spread), r).pvalue)])
    return out


if __name__ == "__main__":
    refs = {
        "seeds": [seeds_case(0, 3, 0.8), seeds_case(0, 10, 0.8), seeds_case(1, 10, 0.8), seeds_case(1, 10, 1.2), seeds_case(0, 5, 0.8)],
        "fq": [
            fq_case(0, 400, median_of(0.08), 0.5),
            fq_case(0, 400, median_of(-0.22), 0.5),
            fq_case(0, 40, median_of(-0.22), 0.5),
            fq_case(0, 40, median_of(-0.22), 0.7),
        ],
        "sweep": {"0/400/0.5": sweep(0, 400, 0.5), "0/40/0.5": sweep(0, 40, 0.5)},
    }
    print(json.dumps(refs, default=lambda o: o.item()))
