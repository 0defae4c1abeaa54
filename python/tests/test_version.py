"""One version (issue 25): lethe.__version__ (the extension's, built from the workspace's crates), the installed
wheel's metadata (maturin reads python/Cargo.toml), the CLI's `lethe --version` and its reports' lethe_version, and
Cargo.toml's [workspace.package] version (tools/version.sh) are one number.

LETHE_CLI names the CLI binary (default: target/release/lethe of this repository)."""

import importlib.metadata
import json
import os
import pathlib
import subprocess

import numpy as np

import lethe
from lethe import _lethe

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("LETHE_CLI", str(ROOT / "target" / "release" / "lethe"))


def test_one_version_everywhere(tmp_path):
    workspace = subprocess.run(["bash", str(ROOT / "tools" / "version.sh")], capture_output=True, text=True,
                               check=True).stdout.strip()
    assert lethe.__version__ == _lethe.VERSION == workspace
    # The wheel's own metadata: what pip shows and what a requirements file pins.
    assert importlib.metadata.version("lethe") == lethe.__version__
    cli = subprocess.run([CLI, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    assert cli == f"lethe {lethe.__version__}"
    # A report from each side.
    p = tmp_path / "p.txt"
    p.write_text("0.01\n0.04\n0.03\n0.5\n")
    want = json.loads(subprocess.run([CLI, "fdr", str(p), "--json"], capture_output=True, text=True,
                                     check=True).stdout)
    got = lethe.fdr(np.array([0.01, 0.04, 0.03, 0.5]))
    assert got.lethe_version == want["lethe_version"] == lethe.__version__
