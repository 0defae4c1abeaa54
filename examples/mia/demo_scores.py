"""Writes examples/data/digits/mia_scores.npz: membership-inference attack scores on the digits demo models, for the
Membership audit panel's built-in example (and `lethe mia`).

Members are the 144 forget rows D_f (in the original model's training set), non-members the 359 test rows D_te
(in no model's training set). For each model (original, unlearned, retrained) and each row, from that model's
softmax output p (float32, rebuilt from the shared demo's recipe by examples/sde_calibration/models.py, which first
checks that the rebuilt penultimate activations equal the shipped act_<model>.npy bit for bit):

- `loss_<model>`: the cross-entropy loss -log p[y] (the loss-threshold attack of Yeom et al. 2018: a lower loss
  means member, so `lethe mia … --lower-is-member`);
- `logit_<model>`: the logit-scaled confidence log(p[y]) - log(sum of the other classes' p), written as
  tensorflow/privacy's research/mi_lira_2021/score.py writes it (with its 1e-45 guards), LiRA's statistic;
- `lira_<model>`: logit_<model> - logit_retrained, a LiRA-style score with one reference model: the retrained model
  saw neither the forget rows nor the test rows, so it is an OUT model for every row here, and the difference
  calibrates each row's difficulty (Carlini et al. 2022, offline; Watson et al. 2022). Higher = member.
- `member`: 1 for the forget rows, 0 for the test rows; `source_row`: the row of the shared demo (sklearn digits).

Rows 0-143 are the forget rows, rows 144-502 the test rows, both in the shared demo's manifest order.

Usage (repository root; numpy 2.4.6, scikit-learn 1.9.1; the models are rebuilt once and cached):
    python examples/mia/demo_scores.py ../shared/demo/digits target/mia-example/digits
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sde_calibration"))
import models  # noqa: E402

MODELS = ("original", "unlearned", "retrained")


def logit_conf(p, y):
    """score.py's logit scaling: log(p_y + 1e-45) - log(sum_{j != y} p_j + 1e-45), in float64."""
    p = p.astype(np.float64)
    true = p[np.arange(len(y)), y]
    other = p.copy()
    other[np.arange(len(y)), y] = 0
    return np.log(true + 1e-45) - np.log(other.sum(axis=1) + 1e-45)


def main(demo_dir, cache_dir):
    demo_dir = Path(demo_dir)
    root = Path(__file__).resolve().parents[2]
    out_path = root / "examples" / "data" / "digits" / "mia_scores.npz"
    checks = models.softmax_outputs(demo_dir, cache_dir)
    man = json.loads((demo_dir / "manifest.json").read_text())
    forget, test = man["splits"]["forget_D_f"], man["splits"]["test_D_te"]
    rows = np.array(forget + test)
    y = np.load(demo_dir / "y.npy")[rows]
    out = {"member": np.r_[np.ones(len(forget)), np.zeros(len(test))], "source_row": rows.astype(np.float64)}
    logits = {}
    for m in MODELS:
        p = np.load(Path(cache_dir) / f"softmax_{m}.npy")[rows]
        out[f"loss_{m}"] = -np.log(p[np.arange(len(rows)), y].astype(np.float64))
        logits[m] = logit_conf(p, y)
        out[f"logit_{m}"] = logits[m]
    for m in ("original", "unlearned"):
        out[f"lira_{m}"] = logits[m] - logits["retrained"]
    np.savez_compressed(out_path, **out)
    print(f"rebuilt activations vs shipped, max |diff|: {checks}")
    print(f"wrote {out_path}: {len(forget)} forget + {len(test)} test rows, {out_path.stat().st_size} bytes")
    # A first look (sklearn's AUC; the panel and `lethe mia` give the intervals).
    from sklearn.metrics import roc_auc_score
    for k in sorted(out):
        if k in ("member", "source_row"):
            continue
        s = -out[k] if k.startswith("loss_") else out[k]
        print(f"  {k:16s} AUC {roc_auc_score(out['member'], s):.4f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
