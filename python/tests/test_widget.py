"""lethe.show: the widget's ES module is current and self-contained; the report travels as its JSON text.

The rendering itself (headline, exports, no request outside 127.0.0.1) is tested in a real JupyterLab in headless
Chromium by tests/notebook/jupyterlab.test.mjs (build.sh's python_tests runs it after these)."""

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import lethe

HERE = os.path.dirname(os.path.abspath(__file__))
PY = os.path.dirname(HERE)
ROOT = os.path.dirname(PY)
STATIC = os.path.join(PY, "lethe", "static")


def test_widget_module_is_current():
    # python/widget/build.py inlines the page's modules; an edit under www/src without a rebuild fails here.
    subprocess.run([sys.executable, os.path.join(PY, "widget", "build.py"), "--check"], check=True)


def test_widget_module_loads_nothing():
    js = open(os.path.join(STATIC, "widget.js"), encoding="utf-8").read()
    # One module: no import statement or dynamic import, no fetch, no URL but the SVG/XML namespaces.
    assert not re.search(r"^\s*import\s", js, re.M)
    assert "import(" not in js and "WebAssembly" not in js
    # The one fetch is the page's MIA panel loading its built-in example (miaPanel, which the widget never calls);
    # a new one fails here. That nothing is requested at run time is checked in JupyterLab (tests/notebook/).
    assert [line.strip() for line in js.splitlines() if "fetch(" in line] == ["const r = await fetch(new URL(EXAMPLE.file, base));"]
    urls = set(re.findall(r"https?://[^\s'\"`)]+", js))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls
    css = open(os.path.join(STATIC, "widget.css"), encoding="utf-8").read()
    assert "url(" not in css and "@import" not in css


def test_show_sends_the_report_json():
    pytest.importorskip("anywidget")
    s = np.load(os.path.join(ROOT, "examples/data/digits/mia_scores.npz"))["lira_unlearned"]
    r = lethe.mia(s[:144], s[144:503], resamples=50, seed=0)
    w = lethe.show(r)
    assert w._report == r.to_json()
    assert json.loads(lethe.show(r.to_dict())._report) == json.loads(r.to_json())
    assert lethe.show(r.to_json())._report == r.to_json()
    assert "export default" in w._esm and w._css
    with pytest.raises(TypeError):
        lethe.show(42)
    with pytest.raises(ValueError):
        lethe.show("{not json")
