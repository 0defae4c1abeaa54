"""Per-call overhead of the Python package over the CLI's core time, on the Table 9 job (BENCHMARKS.md): the same
SDE run (100 drawn targets + 2 references of 1000 rows, d = 512, T = 200, --threads 1) from the CLI on the .npy
files, and from Python on the same files and on numpy arrays in memory. Best of N runs each; a benchmark, not a test.

    python python/bench_overhead.py bench/out/data/table9 [N]
"""

import json
import os
import subprocess
import sys
import time

import numpy as np

import lethe

d = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 3
cli = os.environ.get("LETHE_CLI", "target/release/lethe")
opts = dict(draw=100, size=1000, shuffles=200, precision="f32", threads=1)
args = [cli, "sde", "--it", f"{d}/it.npy", "--oot", f"{d}/oot.npy", "--draw-from", f"{d}/pool.npy", "--draw", "100",
        "--size", "1000", "--shuffles", "200", "--precision", "f32", "--threads", "1", "--json"]


def best(f):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


t_cli, cli_out = best(lambda: json.loads(subprocess.run(args, capture_output=True, check=True).stdout))
t_files, r_files = best(lambda: lethe.sde(f"{d}/it.npy", f"{d}/oot.npy", draw_from=f"{d}/pool.npy", **opts))
it, oot, pool = (np.load(f"{d}/{k}.npy") for k in ("it", "oot", "pool"))
t_arrays, r_arrays = best(lambda: lethe.sde(it, oot, draw_from=pool, **opts))
assert r_files.result == cli_out["result"] and r_arrays.result == cli_out["result"]
t_tiny_cli, _ = best(lambda: subprocess.run([cli, "mwu", f"{d}/it.npy@0..1", f"{d}/oot.npy@0..1", "--json"],
                                             capture_output=True, check=True))
t_tiny_py, _ = best(lambda: lethe.mwu(it[:1, 0], oot[:1, 0]))
print(json.dumps({"runs": n, "cli_s": t_cli, "python_files_s": t_files, "python_arrays_s": t_arrays,
                  "mwu_1x1_cli_process_s": t_tiny_cli, "mwu_1x1_python_call_s": t_tiny_py}, indent=1))
