"""Copies a small subset of the shared real-model demo data into the repository.

Source: ../shared/demo/digits (MLP (256,128) on scikit-learn digits; see its manifest.json). Keeps every
forget row, the first 400 retain rows and the first 200 test rows (by dataset index), in that order, for the three
models. Run from the repository root:  python examples/data/make_demo_subset.py [path/to/shared/demo]
"""
import json
import sys
from pathlib import Path

import numpy as np

src = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/demo") / "digits"
dst = Path("examples/data/digits")
dst.mkdir(parents=True, exist_ok=True)
m = json.loads((src / "manifest.json").read_text())
sp = m["splits"]
forget, retain, test = sorted(sp["forget_D_f"]), sorted(sp["retain_D_r"])[:400], sorted(sp["test_D_te"])[:200]
rows = forget + retain + test
for model in ("original", "retrained", "unlearned"):
    a = np.load(src / f"act_{model}.npy")
    np.save(dst / f"act_{model}.npy", np.ascontiguousarray(a[rows], dtype=np.float32))
np.save(dst / "y.npy", np.load(src / "y.npy")[rows])
nf, nr, nt = len(forget), len(retain), len(test)
manifest = {
    "source": "shared/demo/digits (see its manifest.json for training details)",
    "dataset": "scikit-learn digits, penultimate-layer (2nd hidden ReLU, 128-d) activations, float32",
    "models": m["models"],
    "accuracies": m["accuracies"],
    "source_rows": rows,
    "forget": list(range(0, nf)),
    "retain": list(range(nf, nf + nr)),
    "test": list(range(nf + nr, nf + nr + nt)),
}
(dst / "manifest.json").write_text(json.dumps(manifest, indent=1))
# Row-index files for the CLI (one index per line).
for name in ("forget", "retain", "test"):
    (dst / f"{name}.txt").write_text("\n".join(map(str, manifest[name])) + "\n")
print(f"wrote {len(rows)} rows: {nf} forget, {nr} retain, {nt} test")
