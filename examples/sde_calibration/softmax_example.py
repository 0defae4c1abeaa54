"""Writes examples/data/digits/softmax.npz: the softmax outputs of the three digits MLPs on the 744 rows of the
built-in example (the teaching page's SDE topic compares them with the penultimate activations).

The models are rebuilt by models.py from the shared demo's manifest recipe, which first checks that the rebuilt
penultimate activations equal the shipped act_<model>.npy exactly (otherwise it stops). The example's rows are the
shared demo's rows listed in examples/data/digits/manifest.json (`source_rows`); this script also checks that the
rebuilt activations of those rows equal the example's own act_<model>.npy.

Usage (from the repository root, with numpy 2.4.6 and scikit-learn 1.9.1 as in run.sh):
    python examples/sde_calibration/softmax_example.py ../shared/demo/digits target/sde-calibration/digits
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models  # noqa: E402

MODELS = ("original", "retrained", "unlearned")


def main(demo_dir, cache_dir):
    root = Path(__file__).resolve().parents[2]
    example = root / "examples" / "data" / "digits"
    models.softmax_outputs(demo_dir, cache_dir)  # rebuilds (checked bit for bit) and caches softmax_<model>.npy
    rows = json.loads((example / "manifest.json").read_text())["source_rows"]
    shared = Path(demo_dir)
    out = {}
    for m in MODELS:
        act = np.load(shared / f"act_{m}.npy")[rows]
        if not np.array_equal(act, np.load(example / f"act_{m}.npy")):
            raise SystemExit(f"{m}: the example's act_{m}.npy are not the shared demo's rows {rows[:3]}…")
        sm = np.load(Path(cache_dir) / f"softmax_{m}.npy")[rows].astype(np.float32)
        assert sm.shape == (len(rows), 10) and np.allclose(sm.sum(axis=1), 1.0, atol=1e-5)
        out[m] = sm
    np.savez_compressed(example / "softmax.npz", **out)
    size = (example / "softmax.npz").stat().st_size
    print(f"wrote {example / 'softmax.npz'}: {', '.join(MODELS)} float32 {len(rows)} x 10, {size} bytes")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
