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
    assert [line.strip() for line in js.splitlines() if "fetch(" in line] == ["const r = await fetch(url(EXAMPLE.file));"]
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


def _run_module():
    path = os.path.join(STATIC, "widget_run.js")
    if not os.path.exists(path):
        pytest.skip("no lethe.widget bundle: ./build.sh wasm && python3 python/widget/build.py")
    return open(path, encoding="utf-8").read()


def test_widget_run_module_asks_for_the_engine_once_per_page():
    js = _run_module()
    # The ES module travels with every widget, so the engine is not in it: nothing by URL, the engine asked of the
    # kernel by a custom message and kept on the page under its id.
    assert not re.search(r"^\s*import\s", js, re.M) and "import(" not in js
    assert "DecompressionStream('gzip')" in js and "WebAssembly.compile" in js
    assert "'engine?'" in js and "__letheEngines" in js
    assert len(js.encode()) < 400_000, len(js.encode())
    import base64
    import gzip

    with open(os.path.join(STATIC, "engine.json"), encoding="utf-8") as f:
        e = json.load(f)
    assert f'"{e["id"]}"' in js
    wasm = gzip.decompress(base64.b64decode(e["wasm"]))
    assert wasm[:4] == b"\0asm"
    with open(os.path.join(ROOT, "pkg", "lethe_web_bg.wasm"), "rb") as f:
        assert wasm == f.read(), "the widget's wasm module is not pkg/'s: rerun python/widget/build.py"


def test_two_widgets_send_the_engine_once():
    pytest.importorskip("anywidget")
    _run_module()
    from lethe import _widget

    s = np.load(os.path.join(ROOT, "examples/data/digits/mia_scores.npz"))["lira_unlearned"]
    sent = []
    ws = [lethe.widget("mia", s[:144], s[144:503], resamples=50, seed=0) for _ in range(2)]
    for w in ws:
        w.send = lambda content, buffers=None: sent.append(len(json.dumps(content)))
    # Each widget's state (its ES module included) holds no engine; the first view of the page asks for it once.
    for w in ws:
        assert len(json.dumps(w.get_state()["_esm"])) < 400_000
    ident = _widget._engine()["id"]
    _widget._send_engine(ws[0], {"type": "engine?", "id": ident}, [])
    _widget._send_engine(ws[1], {"type": "engine?", "id": "another build"}, [])
    assert len(sent) == 1 and sent[0] > 1_000_000


def test_widget_sends_arrays_as_binary_buffers():
    pytest.importorskip("anywidget")
    _run_module()
    from ipywidgets.widgets.widget import _remove_buffers

    s = np.load(os.path.join(ROOT, "examples/data/digits/mia_scores.npz"))["lira_unlearned"]
    members = s[:144].copy()
    w = lethe.widget("mia", members, s[144:503], resamples=50, seed=0)
    state, paths, buffers = _remove_buffers(w.get_state())
    # Each array: its .npy header and its own bytes, as binary buffers (never a JSON list of numbers).
    assert paths == [["_sources", 0, "header"], ["_sources", 0, "data"], ["_sources", 1, "header"], ["_sources", 1, "data"]]
    assert bytes(buffers[1]) == members.tobytes() and bytes(buffers[3]) == s[144:503].tobytes()
    assert bytes(buffers[0]).startswith(b"\x93NUMPY")
    assert len(json.dumps(state["_sources"])) < 200
    assert json.loads(w._request) == {"members": {"source": 0}, "non_members": {"source": 1}, "resamples": 50, "seed": 0}
    assert w.report is None and w.status == ""
    # Every option of mia is in the form, not only the two the call gave (the rest shown at their default).
    assert set(w._options) == set(lethe.options("mia")) - {"members", "non_members"} - set(_lethe_roles("mia"))
    assert {"resamples", "seed", "alpha"} <= set(w._options)


def _lethe_roles(command):
    inputs, rows, texts = lethe._lethe.roles(command)
    return set(inputs) | set(rows) | set(texts) | {"runs"}


def test_widget_sends_files_named_as_the_cli_names_them():
    pytest.importorskip("anywidget")
    _run_module()
    act = os.path.join(ROOT, "examples/data/digits/act_unlearned.npy")
    w = lethe.widget("sde", f"{act}@144..244", f"{act}@544..644", target=[f"{act}@0..100"], shuffles=10, seed=0)
    (src,) = w._sources
    assert src["name"] == act and src["header"] is None and src["data"] == open(act, "rb").read()
    req = json.loads(w._request)
    assert req["in_training"]["source"] == src["id"] and req["target"][0]["source"] == src["id"]


def test_widget_refuses_what_it_cannot_run():
    pytest.importorskip("anywidget")
    _run_module()
    s = np.arange(10.0)
    with pytest.raises(lethe.LetheError, match=r"compute `mwu` in the kernel and show it"):
        lethe.widget("mwu", s, s)
    with pytest.raises(lethe.LetheError, match=r"has no option `nope`"):
        lethe.widget("mia", s, s, nope=1)
    with pytest.raises(TypeError, match="given twice"):
        lethe.widget("mia", s, members=s)
    assert "mia" in lethe.widget_commands() and "mwu" not in lethe.widget_commands()


def test_widget_refuses_what_cannot_travel(monkeypatch):
    pytest.importorskip("anywidget")
    _run_module()
    from lethe import _widget

    s = np.arange(10.0)
    with pytest.raises(lethe.LetheError, match=r"members: its values are Python objects \(ndarray of object\), not numbers; pass a numeric array"):
        lethe.widget("mia", np.array([1.0, None], dtype=object), s)
    monkeypatch.setattr(_widget, "MAX_SEND", 100)
    with pytest.raises(lethe.LetheError, match=r"more than lethe.widget sends to the browser.*lethe.show\(lethe.mia"):
        lethe.widget("mia", s, s)
