"""Golden vectors for issue 13's gaps (tests/fixtures/golden_gaps; PROVENANCE.md there): run from the repository root,
`python3 tests/peers/gaps_peers.py`.

* wilcoxon_all_zero.json: scipy.stats.wilcoxon on all-zero differences, every zero_method × method × alternative.
* clopper_pearson_lower.json: one-sided lower Clopper–Pearson bounds, scipy.stats.beta.ppf(a, x, n − x + 1) and
  statsmodels proportion_confint(x, n, 2a, "beta")[0].
* rouge_lsum.json: rouge-score's rougeLsum (and rougeL beside it).
(The competition's logit-scaled confidences are checked against tests/fixtures/peers/competition_confidence.json,
metric.py's compute_logit_scaled_confidence run by tests/peers/metric_runner.py.)
"""
import json
import math
import importlib.metadata as md
import platform
import warnings

import numpy as np
import scipy
import scipy.stats
from statsmodels.stats.proportion import proportion_confint

OUT = "tests/fixtures/golden_gaps/"


def f(x):
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def versions():
    v = {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
         "statsmodels": md.version("statsmodels")}
    try:
        v["rouge-score"] = md.version("rouge-score")
        v["nltk"] = md.version("nltk")
    except md.PackageNotFoundError:
        pass
    return v


def wilcoxon_all_zero():
    out = []
    for n in [1, 2, 3, 5, 10, 13, 14, 30, 51]:
        d = np.zeros(n)
        for zm in ["wilcox", "pratt", "zsplit"]:
            for meth in ["auto", "exact", "approx"]:
                for alt in ["two-sided", "greater", "less"]:
                    row = {"n": n, "zero_method": zm, "method": meth, "alternative": alt}
                    try:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            r = scipy.stats.wilcoxon(d, zero_method=zm, method=meth, alternative=alt)
                        row["statistic"] = f(r.statistic)
                        row["pvalue"] = f(r.pvalue)
                    except ValueError as e:
                        row["error"] = str(e)
                    out.append(row)
    return out


def cp_lower():
    out = []
    for x, n in [(0, 10), (1, 10), (5, 10), (10, 10), (3, 1000), (999, 1000), (50, 100), (1, 1), (0, 1),
                 (7, 13), (123, 4567)]:
        for a in [0.05, 0.025, 0.01, 1e-6]:
            lo = 0.0 if x == 0 else scipy.stats.beta.ppf(a, x, n - x + 1)
            sm = proportion_confint(x, n, 2 * a, method="beta")[0]
            out.append({"x": x, "n": n, "a": a, "scipy_lower": f(lo), "statsmodels_lower": f(sm)})
    return out


def rouge_lsum():
    from rouge_score import rouge_scorer
    rng = np.random.default_rng(20261125)
    vocab = ["the", "cat", "sat", "on", "mat", "dog", "running", "runs", "ran", "a", "harry", "potter's", "friends",
             "Caf\u00e9", "2001", "is", "was", "and"]
    cases = [
        ("the cat sat\non the mat", "on the mat\nthe cat sat"),
        ("a b c d\ne f g", "a c e\nb d f g"),
        ("the the the cat\nthe cat", "cat the\nthe the cat the"),
        ("", "anything"),
        ("only one sentence here", "only one sentence here too"),
        ("\n\nblank lines around\n\n", "blank\n\nlines around"),
        ("   \nwhitespace sentence", "whitespace\n   \nsentence"),
        ("Running runs ran runner.\nHarry Potter's friends!", "harry potter friend\nrunning ran"),
        ("x y z", "!!!\n..."),
    ]
    for k in range(40):
        def text():
            sents = []
            for _ in range(rng.integers(1, 5)):
                sents.append(" ".join(rng.choice(vocab, rng.integers(1, 12))))
            return "\n".join(sents)
        cases.append((text(), text()))
    out = []
    for stem in [False, True]:
        sc = rouge_scorer.RougeScorer(["rougeLsum", "rougeL"], use_stemmer=stem)
        for ref, pred in cases:
            r = sc.score(ref, pred)
            out.append({"reference": ref, "prediction": pred, "use_stemmer": stem,
                        "rougeLsum": [f(r["rougeLsum"].precision), f(r["rougeLsum"].recall),
                                      f(r["rougeLsum"].fmeasure)],
                        "rougeL": [f(r["rougeL"].precision), f(r["rougeL"].recall), f(r["rougeL"].fmeasure)]})
    return out


if __name__ == "__main__":
    import sys
    v = versions()
    json.dump({"versions": v, "cases": wilcoxon_all_zero()}, open(OUT + "wilcoxon_all_zero.json", "w"))
    json.dump({"versions": v, "cases": cp_lower()}, open(OUT + "clopper_pearson_lower.json", "w"))
    json.dump({"versions": v, "cases": rouge_lsum()}, open(OUT + "rouge_lsum.json", "w"))
    print(json.dumps(v))
