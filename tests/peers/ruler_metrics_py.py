"""Runs the RULER authors' metrics (gcosma/RULER ruler/metrics.py) on the repository's demo subset and writes
tests/fixtures/peers/ruler_metrics_py.json. Their code is read from a local mirror at run time and not copied.

Usage (repository root):  python tests/peers/ruler_metrics_py.py /path/to/RULER/ruler/metrics.py
"""
import importlib.util
import json
import sys

import numpy as np

spec = importlib.util.spec_from_file_location("ruler_metrics", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)

d = "examples/data/digits"
man = json.load(open(f"{d}/manifest.json"))
f, r = man["forget"], man["retain"]
U, O, Orig = (np.load(f"{d}/act_{m}.npy") for m in ("unlearned", "retrained", "original"))
cases = []
for name, (uf, ur, of, orr, og) in {
    "digits_unlearned_vs_retrained": (U[f], U[r], O[f], O[r], Orig[f]),
    "digits_original_vs_retrained": (Orig[f], Orig[r], O[f], O[r], Orig[f]),
    "digits_first40_forget": (U[f[:40]], U[r], O[f[:40]], O[r], Orig[f[:40]]),
}.items():
    res = mod.all_metrics(uf, ur, of, orr, og)
    cases.append({"name": name, **{k: float(v) for k, v in res.items()}})
json.dump({
    "source": "gcosma/RULER ruler/metrics.py all_metrics(), numpy " + np.__version__,
    "inputs": "examples/data/digits: unlearned=act_unlearned, oracle=act_retrained, original=act_original; "
              "forget/retain rows from manifest.json (first40: the first 40 forget rows)",
    "cases": cases,
}, open("tests/fixtures/peers/ruler_metrics_py.json", "w"), indent=1)
print(json.dumps(cases, indent=1))
