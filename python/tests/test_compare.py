"""`lethe.compare` against the CLI (issue 23): the same runs table and options give the report `lethe compare …
--json` gives, whole (the runs table is the same file on both sides, so even its inputs record matches), for every
pair, against a baseline with a metric's direction given, and with a published value to reproduce; a bad cell is
the CLI's error.

LETHE_CLI names the CLI binary (default: target/release/lethe of this repository)."""

import json
import os
import pathlib
import subprocess

import pytest

import lethe
from cli_words import pythonic
from lethe import _lethe

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("LETHE_CLI", str(ROOT / "target" / "release" / "lethe"))

# Three methods × 5 seeds on two metrics with built-in directions and one without (`loss`, lower is better).
RUNS = """method,seed,forget_quality,model_utility,loss
retrain,0,0.95,0.61,1.10
retrain,1,0.91,0.60,1.12
retrain,2,0.97,0.62,1.08
retrain,3,0.93,0.61,1.11
retrain,4,0.96,0.60,1.09
grad_ascent,0,0.01,0.40,2.10
grad_ascent,1,0.02,0.38,2.30
grad_ascent,2,0.005,0.45,1.90
grad_ascent,3,0.03,0.41,2.20
grad_ascent,4,0.01,0.43,2.00
npo,0,0.40,0.55,1.40
npo,1,0.35,0.57,1.45
npo,2,0.52,0.54,1.38
npo,3,0.44,0.56,1.50
npo,4,0.38,0.55,1.42
"""


def cli(*args, ok=True):
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    return p


def same(report, want):
    """The report equals the CLI's, every field of it."""
    got = report.to_dict()
    assert got == want
    assert report.headline.call == want["headline"]["call"]


@pytest.fixture()
def runs(tmp_path):
    p = tmp_path / "runs.csv"
    p.write_text(RUNS)
    return p


def test_every_pair_equals_the_cli(runs):
    want = cli("compare", runs, "--metric", "forget_quality", "--metric", "model_utility", "--resamples", 500,
               "--json")
    r = lethe.compare(str(runs), metrics=["forget_quality", "model_utility"], resamples=500)
    same(r, want)
    # Every pair of 3 methods on 2 metrics, each called.
    assert len(want["result"]["comparisons"]) == 6
    assert all(c["call"] for c in want["result"]["comparisons"])


def test_baseline_direction_seed_and_correction_equal_the_cli(runs):
    want = cli("compare", runs, "--baseline", "retrain", "--metric", "loss:lower", "--metric", "forget_quality",
               "--correction", "fdr_bh", "--resamples", 300, "--seed", 7, "--json")
    r = lethe.compare(str(runs), baseline="retrain", metrics=["loss:lower", "forget_quality"], correction="fdr_bh",
                      resamples=300, seed=7)
    same(r, want)
    assert want["headline"]["call"] == "difference"
    assert {c["b"] for c in want["result"]["comparisons"]} == {"retrain"}
    # The seed reaches the bootstrap: another seed moves an interval, on both sides alike.
    other = lethe.compare(str(runs), baseline="retrain", metrics=["loss:lower", "forget_quality"],
                          correction="fdr_bh", resamples=300, seed=8)
    assert other.to_dict()["result"]["metrics"] != want["result"]["metrics"]


def test_reproduction_check_equals_the_cli(runs):
    want = cli("compare", runs, "--metric", "model_utility", "--published", "npo:model_utility=0.555±0.01/5",
               "--margin", 0.02, "--resamples", 200, "--json")
    r = lethe.compare(str(runs), metrics=["model_utility"], published=["npo:model_utility=0.555±0.01/5"],
                      margin=0.02, resamples=200)
    same(r, want)
    assert want["result"]["reproductions"][0]["method"] == "npo"


def test_bad_input_is_the_clis_error(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("method,seed,forget_quality\na,0,0.5\na,1,high\nb,0,0.4\nb,1,0.3\n")
    p = cli("compare", bad, "--json", ok=False)
    assert p.returncode != 0
    with pytest.raises(lethe.LetheError) as e:
        lethe.compare(str(bad))
    assert pythonic(p.stderr.strip()) == f"lethe: error: {e.value}"
    assert "line 3" in str(e.value)
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("method,seed,score\na,0,1\na,1,2\nb,0,1\nb,1,3\n")
    p = cli("compare", unknown, "--json", ok=False)
    with pytest.raises(lethe.LetheError) as e:
        lethe.compare(str(unknown))
    assert pythonic(p.stderr.strip()) == f"lethe: error: {e.value}"
    assert e.value.code == "unknown_metric_direction" and "score:higher" in str(e.value)
