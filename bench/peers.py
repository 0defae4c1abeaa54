"""Python peers of Lethe's SDE job, on the same .npy inputs (bench/gen.py), single-threaded (bench/run.sh sets the
BLAS thread counts to 1, as Lethe's CPU path is, and unsets OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE so that OpenBLAS picks
its own kernel for the CPU; the JSON records the kernel threadpoolctl reports).

Every peer computes the split-half distribution H(S) = {HSIC(S1, S2[p_t])}_{t=1..T} of each subset (S1 = first
half, S2 = second half, Gaussian RBF kernels, σ = sqrt(d) as the SDE paper and Lethe's default, biased HSIC
Tr(K H L H)/(n-1)²) for the two references and `draws` targets drawn from pool.npy (numpy's own draws: the same
work as Lethe's, not the same rows):

  naive        Algorithm 1 as it reads: every shuffle rebuilds both kernels and takes Tr(K H L H) with matrix
               products (float64).
  once         kernels built once per subset, HSIC of a shuffle = Σ Kc ∘ L[p][:, p] (float64).
  hyppo        hyppo.independence.Hsic(bias=True).test(S1, S2, reps=T, auto=False): its own kernel (Gaussian,
               median bandwidth) and statistic; a permutation test per subset, which is the same work.

A peer given `--subsets K` times only the first K subsets (references first) and extrapolates linearly to all
of them; the JSON says which. Usage: peers.py PEER DIR DRAWS SIZE SHUFFLES [--subsets K] > result.json
"""

import argparse
import json
import os
import sys
import time

import numpy as np


def rbf(x, sigma):
    x = x - x.mean(axis=0)
    sq = np.einsum("ij,ij->i", x, x)
    d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (x @ x.T), 0.0)
    np.fill_diagonal(d2, 0.0)
    return np.exp(-d2 / (2.0 * sigma * sigma))


def centre(k):
    r = k.mean(axis=1)
    return k - r[:, None] - r[None, :] + r.mean()


def naive(s1, s2, shuffles, sigma, rng):
    n = s1.shape[0]
    h = np.eye(n) - np.ones((n, n)) / n
    out = np.empty(shuffles)
    for t in range(shuffles):
        s2p = s2[rng.permutation(n)]
        k, l = rbf(s1, sigma), rbf(s2p, sigma)
        out[t] = np.trace(k @ h @ l @ h) / (n - 1) ** 2
    return out


def once(s1, s2, shuffles, sigma, rng):
    n = s1.shape[0]
    kc, l = centre(rbf(s1, sigma)), rbf(s2, sigma)
    out = np.empty(shuffles)
    for t in range(shuffles):
        p = rng.permutation(n)
        out[t] = np.sum(kc * l[np.ix_(p, p)]) / (n - 1) ** 2
    return out


def hyppo_test(s1, s2, shuffles, sigma, rng):
    from hyppo.independence import Hsic

    stat, pvalue = Hsic(bias=True).test(s1, s2, reps=shuffles, auto=False, random_state=int(rng.integers(2**31)))
    return np.array([stat, pvalue])


PEERS = {"naive": naive, "once": once, "hyppo": hyppo_test}


def blas_info():
    """The BLAS numpy runs on, as threadpoolctl reports it (library, version, the kernel it chose for this CPU,
    threads)."""
    from threadpoolctl import threadpool_info

    return [
        {k: i.get(k) for k in ("internal_api", "version", "architecture", "num_threads", "threading_layer")}
        for i in threadpool_info()
        if i.get("user_api") == "blas"
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("peer", choices=sorted(PEERS))
    ap.add_argument("dir")
    ap.add_argument("draws", type=int)
    ap.add_argument("size", type=int)
    ap.add_argument("shuffles", type=int)
    ap.add_argument("--subsets", type=int, default=0, help="time only the first K subsets and extrapolate")
    a = ap.parse_args()
    it, oot, pool = (np.load(os.path.join(a.dir, f)).astype(np.float64) for f in ("it.npy", "oot.npy", "pool.npy"))
    rng = np.random.default_rng(0)
    subsets = [it, oot] + [pool[rng.choice(pool.shape[0], a.size, replace=False)] for _ in range(a.draws)]
    total = len(subsets)
    timed = subsets[: a.subsets] if a.subsets else subsets
    sigma = np.sqrt(it.shape[1])
    fn = PEERS[a.peer]
    if a.peer == "hyppo":  # numba compiles on first use: not part of the timing
        fn(it[:20], oot[:20], 5, sigma, rng)
    means, times = [], []
    for s in timed:
        h = s.shape[0] // 2
        t = time.perf_counter()
        v = fn(s[:h], s[h : 2 * h], a.shuffles, sigma, rng)
        times.append(time.perf_counter() - t)
        means.append(float(np.mean(v)) if a.peer != "hyppo" else float(v[0]))
        print(f"  [{a.peer}] subset {len(times)}/{len(timed)}: {times[-1]:.3f} s", file=sys.stderr)
    measured = sum(times)
    json.dump(
        {
            "peer": a.peer,
            "subsets_total": total,
            "subsets_timed": len(timed),
            "seconds_measured": measured,
            "seconds": measured * total / len(timed),
            "extrapolated": len(timed) < total,
            "per_subset_s": times,
            "reference_means": means[:2],
            "numpy": np.__version__,
            "blas": blas_info(),
            "openblas_env": {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE") if k in os.environ},
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
