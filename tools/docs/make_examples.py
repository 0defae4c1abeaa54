"""Writes the docs site's seeded example inputs for the epsilon and bounds pages (pages/assets/examples/*.json;
run once, committed): 16 retrained and 16 unlearned models' logit-scaled confidences on 40 forget examples (the
unlearned ones shifted by 0.4), and 300 leakage scores in [0, 1] (0 with probability 0.6, else U³)."""

import json
import pathlib
import random

OUT = pathlib.Path(__file__).resolve().parent / "pages" / "assets" / "examples"
r = random.Random(25)
models, examples = 16, 40
base = [r.gauss(0, 1.5) for _ in range(examples)]
retrained = [[round(base[j] + r.gauss(0, 0.5), 4) for j in range(examples)] for _ in range(models)]
unlearned = [[round(base[j] + 0.4 + r.gauss(0, 0.6), 4) for j in range(examples)] for _ in range(models)]
json.dump({"retrained": retrained, "unlearned": unlearned}, open(OUT / "epsilon.json", "w"))
scores = [0.0 if r.random() < 0.6 else round(r.random() ** 3, 4) for _ in range(300)]
json.dump({"scores": scores}, open(OUT / "bounds.json", "w"))
