"""Compares the SDE values of a wasm job (bench/node.mjs or the browser's results) with `lethe sde --json` on the
same inputs and draws: prints the largest relative difference. Usage: compare.py CLI.json WASM_RESULTS.json TASK_NAME"""
import json
import sys


def cli_values(report):
    r = report["result"]
    dists = [r["in_training_reference"], r["out_of_training_reference"]] + [t["distribution"] for t in r["targets"]]
    return [v for d in dists for v in d["values"]], r["out_of_training_rate"]


def max_rel(a, b):
    assert len(a) == len(b), (len(a), len(b))
    return max(abs(x - y) / max(abs(x), abs(y), 1e-300) for x, y in zip(a, b))


if __name__ == "__main__":
    cli = json.load(open(sys.argv[1]))
    tasks = [t for t in json.load(open(sys.argv[2]))["results"] if t.get("name") == sys.argv[3]]
    vals, otr = cli_values(cli)
    for t in tasks:
        print(json.dumps({"task": t["name"], "f32": t["f32"], "max_rel": max_rel(vals, t["values"]), "otr_equal": t["otr"] == otr}))
