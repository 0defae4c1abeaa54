"""Seeded benchmark inputs, written as float32 .npy (bench/run.sh calls this; every peer reads the same files).

For each job `NAME` (d columns) it writes into OUT/NAME/:
  it.npy    in-training reference subset, |S| rows
  oot.npy   out-of-training reference subset, |S| rows
  pool.npy  the pool the targets are drawn from (`lethe sde --draw-from`), POOL rows
Lethe draws its targets from pool.npy with its own seeded generator (`lethe sde --draw-from`); the Python peers
draw theirs with numpy's (same count and size, different rows: the same work, not the same subsets). The two
references are the same inputs everywhere and are what the peers' numbers are cross-checked on.
Rows look like penultimate-layer activations: a low-rank signal (rank 16) plus noise, non-negative after a ReLU; the
in-training rows have a tighter signal than the out-of-training rows, so the SDE verdicts are not all ties.

Usage: python gen.py OUT NAME SIZE D POOL SEED
       python gen.py wide OUT ROWS D SEED     (OUT/wide/acts.npy: one wide input, written in blocks of rows, for
                                               the loaded-vs-in-place memory rows)
"""

import os
import sys

import numpy as np


def activations(rng, rows, d, basis, spread):
    z = rng.standard_normal((rows, basis.shape[0])) * spread
    x = z @ basis + 0.5 * rng.standard_normal((rows, d))
    return np.maximum(x, 0.0).astype(np.float32)


def wide(out, rows, d, seed):
    rng = np.random.default_rng(seed)
    basis = rng.standard_normal((16, d)) / np.sqrt(16)
    folder = os.path.join(out, "wide")
    os.makedirs(folder, exist_ok=True)
    a = np.lib.format.open_memmap(os.path.join(folder, "acts.npy"), mode="w+", dtype=np.float32, shape=(rows, d))
    block = 250
    for i in range(0, rows, block):
        a[i:i + block] = activations(rng, min(block, rows - i), d, basis, 1.0)
    a.flush()


def main():
    if sys.argv[1] == "wide":
        wide(sys.argv[2], *map(int, sys.argv[3:6]))
        return
    out, name, size, d, pool, seed = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
    rng = np.random.default_rng(seed)
    basis = rng.standard_normal((16, d)) / np.sqrt(16)
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    np.save(os.path.join(folder, "it.npy"), activations(rng, size, d, basis, 0.8))
    np.save(os.path.join(folder, "oot.npy"), activations(rng, size, d, basis, 1.2))
    np.save(os.path.join(folder, "pool.npy"), activations(rng, pool, d, basis, 1.0))


if __name__ == "__main__":
    main()
