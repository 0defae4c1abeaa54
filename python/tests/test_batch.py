"""Batch cells and the merged table: `lethe batch --shard i/N` + `lethe merge` from the CLI, the same cells in
one process, and on a dask.distributed LocalCluster with 2 workers give the same table, byte for byte."""

import json
import os
import pathlib
import subprocess

import pytest

import lethe
from cli_words import pythonic_all
from lethe import batch

ROOT = pathlib.Path(__file__).resolve().parents[2]
D = ROOT / "examples" / "data" / "digits"
CLI = os.environ.get("LETHE_CLI", str(ROOT / "target" / "release" / "lethe"))


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    npz = f"{D}/mia_scores.npz"
    act = f"{D}/act_unlearned.npy"
    lines = [
        {"command": "mwu", "id": "loss", "inputs": {"x": f"{npz}#loss_unlearned@0..144",
                                                    "y": f"{npz}#loss_unlearned@144..503"},
         "options": {"alternative": "less"}},
        {"command": "mia", "id": "lira", "inputs": {"members": f"{npz}#lira_unlearned@0..144",
                                                    "non_members": f"{npz}#lira_unlearned@144..503"}},
        {"command": "sde", "inputs": {"in_training": f"{act}@144..244", "out_of_training": f"{act}@544..644",
                                      "target": [f"{act}@0..100"]}, "options": {"shuffles": 30}},
        {"command": "ruler", "inputs": {"runs": [{"unlearned": act, "oracle": f"{D}/act_retrained.npy"}]},
         "rows": {"forget": f"{D}/forget.txt", "retain": f"{D}/retain.txt"}},
        {"command": "jsd", "id": "missing", "inputs": {"x": "/no/such.npy", "y": "/no/such.npy"}},
        {"command": "wasserstein", "inputs": {"x": f"{act}@0..50", "y": f"{act}@50..100"}},
    ]
    p = tmp_path_factory.mktemp("batch") / "manifest.jsonl"
    p.write_text("# a comment line, counted\n" + "\n".join(json.dumps(l) for l in lines) + "\n")
    return p


def cli_table(manifest, shards, tmp_path, fmt):
    outs = []
    for i in range(shards):
        out = tmp_path / f"shard{i}.jsonl"
        p = subprocess.run([CLI, "batch", manifest, "--shard", f"{i}/{shards}", "-o", out], capture_output=True,
                           text=True)
        # The missing file's cell fails (exit 1), the others are computed and written.
        assert p.returncode in (0, 1), p.stderr
        outs.append(out)
    return subprocess.run([CLI, "merge", "--format", fmt, *reversed(outs)], capture_output=True, text=True,
                          check=True).stdout


def test_cli_shards_python_and_dask_give_one_table(manifest, tmp_path):
    from distributed import Client, LocalCluster

    one = cli_table(manifest, 1, tmp_path, "csv")
    assert one == cli_table(manifest, 3, tmp_path, "csv")
    assert one == batch.merge(batch.run_shard(manifest))
    assert batch.merge(reversed(batch.run_shard(manifest, (1, 2)) + batch.run_shard(manifest, (0, 2)))) == one
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        assert batch.run_dask(manifest, client) == one
        assert batch.run_dask(manifest, client, format="json") == cli_table(manifest, 2, tmp_path, "json")
    rows = json.loads(batch.merge(batch.run_shard(manifest), "json"))
    assert [r["cell"] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert rows[4]["error"] == "x: `/no/such.npy`: no such file: check the path"
    assert rows[0]["call"] and rows[0]["result.p_value"] > 0
    # A cell is the report `lethe … --json` gives.
    cell = json.loads(batch.run_cell(0, manifest.read_text().splitlines()[1]))
    want = json.loads(subprocess.run([CLI, "mwu", f"{D}/mia_scores.npz#loss_unlearned@0..144",
                                      f"{D}/mia_scores.npz#loss_unlearned@144..503", "--alternative", "less",
                                      "--json"], capture_output=True, text=True, check=True).stdout)
    assert cell["report"] == want


def test_tool_files_and_a_lira_folder_in_a_manifest(tmp_path):
    """Manifest lines for forget-quality, privleak, tool-rouge (tool files, PATH#KEY) and lira (a folder) give the
    reports of the CLI's own commands, from lethe batch and from Python's cells."""
    tools = ROOT / "tests" / "fixtures" / "tools"
    u = f"{tools}/open_unlearning/unlearned/TOFU_EVAL.json"
    r = f"{tools}/open_unlearning/retain/TOFU_EVAL.json"
    lira_dir = ROOT / "tests" / "fixtures" / "golden_lira" / "exp"
    lines = [
        ({"command": "forget-quality", "inputs": {"unlearned": u, "retain": r}},
         ["forget-quality", "--unlearned", u, "--retain", r]),
        ({"command": "privleak", "inputs": {"unlearned": u, "retain": r}, "options": {"resamples": 100}},
         ["privleak", "--unlearned", u, "--retain", r, "--resamples", "100"]),
        ({"command": "tool-rouge", "inputs": {"file": f"{u}#forget_Q_A_ROUGE"}},
         ["tool-rouge", f"{u}#forget_Q_A_ROUGE"]),
        ({"command": "lira", "inputs": {"dir": str(lira_dir)}, "options": {"variant": "offline"}},
         ["lira", str(lira_dir), "--variant", "offline"]),
    ]
    manifest = tmp_path / "tools.jsonl"
    manifest.write_text("\n".join(json.dumps(line) for line, _ in lines) + "\n")
    out = tmp_path / "cells.jsonl"
    subprocess.run([CLI, "batch", manifest, "-o", out], capture_output=True, text=True, check=True)
    cells = [json.loads(c) for c in out.read_text().splitlines()]
    assert [c["cell"] for c in cells] == [0, 1, 2, 3]
    for k, (line, args) in enumerate(lines):
        want = json.loads(subprocess.run([CLI, *args, "--json"], capture_output=True, text=True,
                                         check=True).stdout)
        assert cells[k]["report"] == want, args
        # The package's cell in Python's words (LiRA's few-shadows fix names its variant option).
        assert json.loads(batch.run_cell(k, json.dumps(line)))["report"] == pythonic_all(want), args
