#!/usr/bin/env python3
"""Write open-unlearning TOFU result files (TOFU_EVAL.json + TOFU_SUMMARY.json) with open-unlearning's OWN code.

    python ou_results.py OU_CHECKOUT OUT_DIR [--methods GradAscent,GradDiff,NPO] [--seeds 0,1,2,3,4]

OU_CHECKOUT is a checkout of github.com/locuslab/open-unlearning (used at d3d7cf9e6b3c125d16687d4232680d8d83548f1a).
What runs is open-unlearning's, unchanged:
  * the eval config composed by Hydra from its configs/ (configs/eval.yaml with eval=tofu: the metrics
    forget_truth_ratio, forget_quality, forget_Q_A_Prob, forget_Q_A_ROUGE, model_utility, privleak,
    extraction_strength with all their pre_compute entries),
  * src/evals/tofu.py TOFUEvaluator and src/evals/base.py Evaluator.evaluate / save_logs / summarize, which write
    TOFU_EVAL.json and TOFU_SUMMARY.json,
  * src/evals/metrics/base.py's pre_compute / reference_logs machinery, and the metrics that are functions of
    other metrics: truth_ratio, probability_w_options, ks_test (forget_quality), hm_aggregate (model_utility),
    privleak, and src/evals/metrics/mia/utils.py mia_auc for min-k's AUC.
What is replaced, because it needs a language model, torch and the TOFU data set from the Hugging Face hub (none
reachable here): the leaf metrics that run the model. They return the same structures the real ones return
(probability: {"prob", "avg_loss"} per index as utils.evaluate_probability; rouge: {"rouge1_recall",
"rougeL_f1", "rougeL_recall"} per index as utils.eval_text_similarity; extraction_strength: {"score"}; min-k's
attack: {"score"} per index as mia/all_attacks.Attack.attack), drawn so that each method forgets to its own
degree and each seed differs. torch, transformers, datasets, rouge_score, lm_eval and open-unlearning's `data`
package are stubbed at import (never called).
The retain model's eval (retain/TOFU_EVAL.json) is written first, by the same code, and given to the methods as
eval.tofu.retain_logs_path, as open-unlearning's docs say to do for forget_quality and privleak.
"""
import argparse
import importlib.abc
import importlib.machinery
import os
import sys
import types

import numpy as np

STUBBED = {"torch", "transformers", "datasets", "rouge_score", "lm_eval", "tqdm", "data", "accelerate", "peft",
           "deepspeed", "model", "trainer"}


class _Anything:
    """Stands in for any name imported from a stubbed module; never called by the code that runs."""

    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Anything()

    def __getattr__(self, name):
        return _Anything()

    def __mro_entries__(self, bases):
        return (object,)


class _StubModule(types.ModuleType):
    __path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        module.__path__ = []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ou")
    ap.add_argument("out")
    ap.add_argument("--methods", default="GradAscent,GradDiff,NPO")
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--n", type=int, default=400, help="forget10 has 400 questions")
    a = ap.parse_args()
    ou, out = os.path.abspath(a.ou), os.path.abspath(a.out)
    import scipy.stats  # noqa: F401  (imported before the stubs: scipy checks whether torch is loaded)
    import sklearn.metrics  # noqa: F401
    sys.meta_path.insert(0, _StubFinder())
    sys.path.insert(0, os.path.join(ou, "src"))

    from hydra import compose, initialize_config_dir
    from evals import get_evaluators  # open-unlearning's src/evals/__init__.py
    import evals.metrics as M  # its METRICS_REGISTRY
    from evals.metrics.base import UnlearningMetric
    import evals.metrics.base as B
    # open-unlearning's data package loads TOFU from the hub; here a metric's "data" is its dataset config, from
    # which the replaced leaf metrics read the split (forget, retain, real_authors, world_facts) they score
    B.get_datasets = lambda tokenizer=None, template_args=None, dataset_cfgs=None: dataset_cfgs
    B.get_collators = lambda tokenizer=None, collator_cfgs=None: None
    from evals.metrics.mia.utils import mia_auc
    # The stubs served their purpose (the imports); scipy looks for a real torch in sys.modules, so drop them.
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _StubFinder)]
    for name in [m for m in sys.modules if m.split(".")[0] in STUBBED]:
        del sys.modules[name]

    # How strongly each "model" still knows the forget set (1 = the original, 0 = retrained) and what it costs
    # the retain set. Per seed a different draw around these.
    profile = {"retain": (0.0, 0.0), "GradAscent": (0.15, 0.35), "GradDiff": (0.25, 0.12), "NPO": (0.10, 0.08),
               "SimNPO": (0.12, 0.06)}
    state = {}

    def leaf(fn):
        def metric_fn(model, **kw):
            return fn(kw)
        return metric_fn

    def split_of(kw):
        ds = kw.get("data") or {}
        names = " ".join(str(k) for k in (ds.keys() if hasattr(ds, "keys") else []))
        cfg = str(ds)
        for s in ("forget", "retain", "real_authors", "world_facts", "holdout"):
            if s in names.lower() or s in cfg.lower():
                return s
        return "forget"

    def n_of(split):
        return {"forget": a.n, "retain": a.n, "holdout": a.n, "real_authors": 100, "world_facts": 117}.get(split, a.n)

    def draw(split, kind):
        rng, know, cost = state["rng"], state["know"], state["cost"]
        n = n_of(split)
        if split == "forget":
            base = 0.25 + 0.7 * know  # the original model knows its forget set (prob ~0.95); retrained ~0.25
        else:
            base = 0.9 - 0.6 * cost if split == "retain" else 0.75 - 0.4 * cost
        if kind == "pert":  # perturbed (wrong) answers
            base = 0.22 + 0.05 * (split != "forget")
        return np.clip(rng.beta(1 + 8 * base, 1 + 8 * (1 - base), size=n), 1e-4, 1 - 1e-4)

    def probability(kw):
        split = split_of(kw)
        hf = str(kw.get("data", ""))
        kind = "pert" if "perturbed_answer" in hf else "para"
        p = draw(split, kind)
        if kind == "pert":  # several wrong answers per question, as TOFU's: a list per index
            vals = {str(i): {"prob": list(np.clip(p[i] * state["rng"].uniform(0.7, 1.3, 5), 1e-4, 1)),
                             "avg_loss": list(-np.log(np.clip(p[i] * state["rng"].uniform(0.7, 1.3, 5), 1e-4, 1)))}
                    for i in range(len(p))}
            agg = float(np.mean([np.mean(v["prob"]) for v in vals.values()]))
        else:
            vals = {str(i): {"prob": float(p[i]), "avg_loss": float(-np.log(p[i]))} for i in range(len(p))}
            agg = float(np.mean(p))
        return {"agg_value": agg, "value_by_index": vals}

    def rouge(kw):
        p = draw(split_of(kw), "para")
        vals = {str(i): {"rouge1_recall": float(min(1, p[i] + 0.05)), "rougeL_f1": float(p[i] * 0.9),
                         "rougeL_recall": float(p[i]), "input": "…", "ground_truth": "…", "generation": "…"}
                for i in range(len(p))}
        return {"agg_value": float(np.mean([v[kw["rouge_type"]] for v in vals.values()])), "value_by_index": vals}

    def extraction_strength(kw):
        p = draw("forget", "para")
        vals = {str(i): {"score": float(p[i] ** 2)} for i in range(len(p))}
        return {"agg_value": float(np.mean([v["score"] for v in vals.values()])), "value_by_index": vals}

    class FakeMinK:
        """In place of mia/min_k.MinKProbAttack: attack() returns what Attack.attack returns."""

        def __init__(self, data, **kw):
            self.split = data

        def attack(self):
            rng = state["rng"]
            shift = 0.8 * state["know"] if self.split == "forget" else 0.0
            s = rng.normal(3.0 - shift, 1.0, a.n)  # min-k: negative log probs, lower on members
            return {"agg_value": float(np.mean(s)), "value_by_index": {str(i): {"score": float(v)} for i, v in enumerate(s)}}

    def mia_min_k(kw):
        return mia_auc(FakeMinK, None, {"forget": "forget", "holdout": "holdout"}, None, 32)

    for name, fn in (("probability", probability), ("rouge", rouge), ("extraction_strength", extraction_strength),
                     ("mia_min_k", mia_min_k)):
        M.METRICS_REGISTRY[name] = UnlearningMetric(name, leaf(fn))
        # the instances already wired into other metrics' pre_compute keep the real function: swap it there too
    for obj in list(vars(M).values()):
        if isinstance(obj, UnlearningMetric) and obj.name in ("probability", "rouge", "extraction_strength", "mia_min_k"):
            obj._metric_fn = M.METRICS_REGISTRY[obj.name]._metric_fn

    def run(folder, method, seed, retain_logs):
        state["rng"] = np.random.default_rng([seed, sum(map(ord, method))])
        know, cost = profile[method]
        state["know"] = max(0.0, know + state["rng"].normal(0, 0.04)) if method != "retain" else 0.0
        state["cost"] = max(0.0, cost + state["rng"].normal(0, 0.03)) if method != "retain" else 0.0
        overrides = ["eval=tofu", f"paths.output_dir={folder}", "task_name=trial", "model=Llama-3.2-1B-Instruct",
                     f"eval.tofu.retain_logs_path={retain_logs if retain_logs else 'null'}", "eval.tofu.overwrite=true"]
        with initialize_config_dir(config_dir=os.path.join(ou, "configs"), version_base=None):
            cfg = compose(config_name="eval.yaml", overrides=overrides)
        for _, ev in get_evaluators(cfg.eval).items():
            ev.evaluate(model=types.SimpleNamespace(eval=lambda: None), output_dir=folder, tokenizer=None,
                        template_args=None)

    retain = os.path.join(out, "retain")
    run(retain, "retain", 0, None)
    for method in a.methods.split(","):
        for seed in a.seeds.split(","):
            folder = os.path.join(out, method, f"seed{seed}")
            run(folder, method, int(seed), os.path.join(retain, "TOFU_EVAL.json"))
            print(folder, open(os.path.join(folder, "TOFU_SUMMARY.json")).read().replace("\n", " "))


if __name__ == "__main__":
    main()
