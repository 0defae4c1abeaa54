"""The Python package against the CLI: every analysis gives the report `lethe … --json` gives on the same data,
arrays are read in place (never copied), errors are the CLI's, Ctrl-C and progress reach the run, and batch cells
merge to the same table on a Dask LocalCluster with 2 workers as from `lethe batch` shards.

LETHE_CLI names the CLI binary (default: target/release/lethe of this repository)."""

import json
import os
import re
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import lethe
from cli_words import pythonic, pythonic_all
from lethe import _lethe

ROOT = pathlib.Path(__file__).resolve().parents[2]
D = ROOT / "examples" / "data" / "digits"
CLI = os.environ.get("LETHE_CLI", str(ROOT / "target" / "release" / "lethe"))


def cli(*args, ok=True):
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True)
    if ok:
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)
    return p


def same(report, want, whole=False):
    """The report equals the CLI's: result, headline, warning codes (and everything, for the same files); its
    messages name options and analyses as Python does, the CLI's as the command line does."""
    got = report.to_dict()
    # An array stands where the CLI names a file: `<x array>` for the file's name.
    # (Both sides name it by its base name, as headlines do.)
    text = json.dumps({k: got[k] for k in ("headline", "warnings")})
    # String by string: a value Python quotes (variant="online-fixed-variance") stays valid JSON.
    wtext = json.dumps(pythonic_all({k: want[k] for k in ("headline", "warnings")}), ensure_ascii=False)
    for i in want["inputs"]:
        text = text.replace(f"<{i['role']} array>", pathlib.Path(i["path"]).name)
        if not whole:
            wtext = wtext.replace(i["path"], pathlib.Path(i["path"]).name)
    got.update(json.loads(text))
    want = {**want, **json.loads(wtext)}
    if whole:
        assert got == want
        return
    assert got["result"] == want["result"]
    assert got["headline"] == want["headline"]
    assert got["warnings"] == want["warnings"]
    assert got["command"] == want["command"] and got["seed"] == want["seed"]
    assert report.headline.call == want["headline"]["call"]


@pytest.fixture(scope="module")
def act():
    return np.load(D / "act_unlearned.npy")


@pytest.fixture(scope="module")
def mia_scores():
    return np.load(D / "mia_scores.npz")


def test_sde_arrays_equal_cli_in_c_and_fortran_order(act):
    want = cli("sde", "--it", f"{D}/act_unlearned.npy@144..244", "--oot", f"{D}/act_unlearned.npy@544..644",
               "--target", f"{D}/act_unlearned.npy@0..100", "--shuffles", 40, "--json")
    r = lethe.sde(act[144:244], act[544:644], target=[act[0:100]], shuffles=40)
    same(r, want)
    f = lethe.sde(np.asfortranarray(act[144:244]), np.asfortranarray(act[544:644]),
                  target=[np.asfortranarray(act[0:100])], shuffles=40, threads=1)
    same(f, want)
    assert r.warnings and r.warnings[0].code == want["warnings"][0]["code"]


def test_files_give_the_cli_report_itself():
    spec = f"{D}/act_unlearned.npy"
    want = cli("sde", "--it", f"{spec}@144..244", "--oot", f"{spec}@544..644", "--target", f"{spec}@0..100",
               "--shuffles", 30, "--json")
    r = lethe.sde(f"{spec}@144..244", f"{spec}@544..644", target=[f"{spec}@0..100"], shuffles=30)
    same(r, want, whole=True)
    # Byte for byte the CLI's report, with the options and commands its messages name in Python's words.
    assert r.to_json() == pythonic(cli_text("sde", "--it", f"{spec}@144..244", "--oot", f"{spec}@544..644",
                                            "--target", f"{spec}@0..100", "--shuffles", 30, "--json"))


def cli_text(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, check=True).stdout


def test_calibrate(act):
    want = cli("calibrate", "--data", f"{D}/act_unlearned.npy", "--it-pool", "144..544", "--oot-pool", "544..744",
               "--target", "0..40", "--refs", 4, "--size", 40, "--paper-shuffles", 20, "--json")
    r = lethe.calibrate(act, it_pool="144..544", oot_pool=range(544, 744), target=["0..40"], refs=4, size=40,
                        paper_shuffles=20)
    same(r, want)


def test_ruler(act):
    want = cli("ruler", "--unlearned", f"{D}/act_unlearned.npy", "--oracle", f"{D}/act_retrained.npy",
               "--original", f"{D}/act_original.npy", "--forget", f"{D}/forget.txt", "--retain",
               f"{D}/retain.txt", "--json")
    runs = [{"unlearned": act, "oracle": np.load(D / "act_retrained.npy"),
             "original": np.load(D / "act_original.npy")}]
    r = lethe.ruler(runs=runs, forget=D / "forget.txt", retain=str(D / "retain.txt"))
    same(r, want)
    # The models as the CLI takes them (one run: an input each; several: lists paired in order).
    flat = lethe.ruler(unlearned=act, oracle=runs[0]["oracle"], original=runs[0]["original"],
                       forget=D / "forget.txt", retain=str(D / "retain.txt"))
    same(flat, want)
    with pytest.raises(lethe.LetheError, match=r"`oracle` was given 2 time\(s\) but `unlearned` 1 time\(s\)"):
        lethe.ruler(unlearned=act, oracle=[act, act], forget=D / "forget.txt", retain=str(D / "retain.txt"))


def test_epsilon(tmp_path):
    g = json.loads((ROOT / "tests/fixtures/golden/neurips2023.json").read_text())["forgetting_quality_case"]
    a = g["accuracies"]
    accs = f"{a['ra_u']},{a['ra_r']},{a['ta_u']},{a['ta_r']}"
    (tmp_path / "r.json").write_text(json.dumps(g["retrained_confs"]))
    (tmp_path / "u.json").write_text(json.dumps(g["unlearned_confs"]))
    want = cli("epsilon", "--retrained", tmp_path / "r.json", "--unlearned", tmp_path / "u.json", "--accuracies",
               accs, "--json")
    r = lethe.epsilon(retrained=np.array(g["retrained_confs"]), unlearned=np.array(g["unlearned_confs"]),
                      accuracies=[a["ra_u"], a["ra_r"], a["ta_u"], a["ta_r"]])
    same(r, want)


def test_bounds_and_rouge(tmp_path):
    s = np.random.default_rng(1).uniform(0, 1, 200)
    np.save(tmp_path / "s.npy", s)
    same(lethe.bounds(s, x=[0.5, 0.9]), cli("bounds", tmp_path / "s.npy", "--x", 0.5, "--x", 0.9, "--json"))
    (tmp_path / "gen.txt").write_text("the cat sat on the mat\na dog is on the mat\n")
    (tmp_path / "ref.txt").write_text("the cat is on the mat\nthe cat is on the mat\n")
    want = cli("rouge", "--predictions", tmp_path / "gen.txt", "--reference", tmp_path / "ref.txt", "--json")
    same(lethe.rouge(predictions=tmp_path / "gen.txt", reference=tmp_path / "ref.txt"), want, whole=True)


def test_two_sample_statistics(act, tmp_path):
    x, y = act[:60, :3].astype(np.float64), act[60:120, :3].astype(np.float64)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    np.save(tmp_path / "x1.npy", x[:, 0].copy())
    np.save(tmp_path / "y1.npy", y[:, 0].copy())
    X, Y, X1, Y1 = (tmp_path / n for n in ("x.npy", "y.npy", "x1.npy", "y1.npy"))
    same(lethe.hsic(x, y, permutations=99), cli("hsic", X, Y, "--permutations", 99, "--json"))
    same(lethe.mwu(x[:, 0], y[:, 0], alternative="less"), cli("mwu", X1, Y1, "--alternative", "less", "--json"))
    same(lethe.wilcoxon(x[:, 0], y[:, 0], correction=True), cli("wilcoxon", X1, Y1, "--correction", "--json"))
    same(lethe.jsd(x[:, 0], y[:, 0], bins=10, base="2"), cli("jsd", X1, Y1, "--bins", 10, "--base", 2, "--json"))
    same(lethe.mmd(x, y, unbiased=True), cli("mmd", X, Y, "--unbiased", "--json"))
    same(lethe.wasserstein(x, y), cli("wasserstein", X, Y, "--json"))


def test_mia_and_fdr(mia_scores, tmp_path):
    npz = f"{D}/mia_scores.npz#lira_unlearned"
    want = cli("mia", f"{npz}@0..144", f"{npz}@144..503", "--ci", "both", "--resamples", 200, "--json")
    s = mia_scores["lira_unlearned"]
    same(lethe.mia(s[:144], s[144:], ci="both", resamples=200), want)
    p = np.array([0.001, 0.02, 0.03, 0.2, 0.5])
    np.save(tmp_path / "p.npy", p)
    same(lethe.fdr(p, method="holm"), cli("fdr", tmp_path / "p.npy", "--method", "holm", "--json"))


def test_inspect_and_load_every_format(tmp_path):
    same(lethe.inspect(D / "softmax.npz"), cli("inspect", D / "softmax.npz", "--json"), whole=True)
    a = np.arange(12, dtype=np.float32).reshape(4, 3) / 8
    np.save(tmp_path / "a.npy", a)
    np.savez_compressed(tmp_path / "a.npz", a=a, b=a * 2)
    np.savetxt(tmp_path / "a.csv", a, delimiter=",")
    (tmp_path / "a.json").write_text(json.dumps(a.tolist()))
    header = json.dumps({"a": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, a.nbytes]}}).encode()
    (tmp_path / "a.safetensors").write_bytes(len(header).to_bytes(8, "little") + header + a.tobytes())
    for name in ("a.npy", "a.npz#a", "a.csv", "a.json", "a.safetensors"):
        got = lethe.load(f"{tmp_path}/{name}")
        assert got.dtype == np.float64 and np.array_equal(got, a), name
    assert np.array_equal(lethe.load(f"{tmp_path}/a.npz#b@1..3"), a[1:3] * 2)
    with pytest.raises(lethe.LetheError, match="holds several"):
        lethe.load(tmp_path / "a.npz")


def test_arrays_are_read_in_place_not_copied():
    for a in (np.ones((50, 8)), np.ones((50, 8), dtype=np.float32), np.asfortranarray(np.ones((50, 8))),
              np.ones((100, 8))[10:60]):
        addr, n = lethe._lethe._source_address(a)
        assert (addr, n) == (a.__array_interface__["data"][0], a.nbytes)
    with pytest.raises(lethe.LetheError, match="contiguous"):
        lethe._lethe._source_address(np.ones((50, 8))[::2])


PEAK = """
import resource, sys, numpy as np, lethe
a = np.random.default_rng(0).standard_normal((400, 65536), dtype=np.float32)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
r = lethe.sde(a[:200], a[200:], shuffles=5, in_place=sys.argv[1], threads=1)
assert r.result["in_training_reference"]["values"]
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before, a.nbytes)
"""


@pytest.mark.parametrize("in_place", ["always", "never"])
def test_in_place_run_holds_no_copy_of_the_array(in_place):
    # 400 × 65536 float32 (100 MiB), in a fresh process (peak memory is per process). Read in place, a panel of
    # columns at a time, the run adds a few MiB; loaded (in_place="never", the check that this test can fail), it
    # adds a copy of the rows.
    out = subprocess.run([sys.executable, "-c", PEAK, in_place], capture_output=True, text=True, check=True)
    grown, nbytes = map(int, out.stdout.split())
    if in_place == "always":
        assert grown < nbytes / 4, f"peak memory grew by {grown / 2**20:.0f} MiB"
    else:
        assert grown > nbytes / 2, f"peak memory grew by {grown / 2**20:.0f} MiB"


def test_errors_are_the_clis(tmp_path, act):
    p = cli("jsd", "/no/such.npy", "/no/such.npy", ok=False)
    with pytest.raises(lethe.LetheError) as e:
        lethe.jsd("/no/such.npy", "/no/such.npy")
    assert pythonic(p.stderr.strip()) == f"lethe: error: {e.value}"
    v = np.arange(10.0)
    v[3] = np.nan
    np.save(tmp_path / "nan.npy", v)
    p = cli("mwu", tmp_path / "nan.npy", tmp_path / "nan.npy", ok=False)
    with pytest.raises(lethe.LetheError) as e:
        lethe.mwu(v, v)
    assert e.value.code == "non_finite" and e.value.input == "x"
    assert pythonic(p.stderr.strip()) == f"lethe: error: {e.value}".replace("<x array>", str(tmp_path / "nan.npy")).replace(
        "of the array", "of the file")
    with pytest.raises(lethe.LetheError, match="has no option `alternativ`.*alternative") as e:
        lethe.mwu(v, v, alternativ="less")
    assert e.value.usage


def test_progress_and_gil_released(act):
    seen = []
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.005)

    t = threading.Thread(target=count)
    t.start()
    lethe.sde(act[144:244], act[544:644], target=[act[0:100]], shuffles=50000, threads=1,
              progress=lambda f, phase: seen.append((f, phase)))
    stop.set()
    t.join()
    assert seen[-1] == (1.0, "done")
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and len(seen) >= 2
    assert len(ticks) > 5, "another Python thread ran while the core computed"


def test_ctrl_c_stops_a_run(act):
    import _thread
    import signal

    # Ctrl-C as an interactive Python has it: a process started in the background by a non-interactive shell
    # (`cmd &`, nohup) inherits SIGINT ignored, Python then installs no handler, and interrupt_main does nothing.
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer = threading.Timer(0.3, _thread.interrupt_main)
        timer.start()
        t0 = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            lethe.sde(act[144:244], act[544:644], target=[act[0:100]], shuffles=10**7, threads=2)
        assert time.monotonic() - t0 < 60
    finally:
        signal.signal(signal.SIGINT, old)
    # A callback that raises stops the run the same way.
    def boom(f, phase):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        lethe.hsic(act[:100], act[100:200], permutations=10**7, progress=boom)


def test_stubs_are_current():
    sys.path.insert(0, str(ROOT / "python"))
    import gen_stubs

    assert (ROOT / "python/lethe/__init__.pyi").read_text() == gen_stubs.text(), "run python/gen_stubs.py"


def test_lira_and_eps_lower(tmp_path, mia_scores):
    rng = np.random.default_rng(3)
    keep = (rng.uniform(size=(16, 200)) < 0.5).astype(np.float64)
    scores = rng.standard_normal((16, 200, 2)) + keep[:, :, None] * 0.8
    np.save(tmp_path / "scores.npy", scores)
    np.save(tmp_path / "keep.npy", keep)
    want = cli("lira", "--scores", tmp_path / "scores.npy", "--keep", tmp_path / "keep.npy", "--variant",
               "online-fixed-variance", "--json")
    same(lethe.lira(scores=scores, keep=keep, variant="online-fixed-variance"), want)
    npz = f"{D}/mia_scores.npz#lira_unlearned"
    want = cli("eps-lower", f"{npz}@0..144", f"{npz}@144..503", "--json")
    s = mia_scores["lira_unlearned"]
    same(lethe.eps_lower(s[:144], s[144:]), want)


TOOLS = ROOT / "tests" / "fixtures" / "tools"
LIRA_DIR = ROOT / "tests" / "fixtures" / "golden_lira" / "exp"


def cli_error(*args):
    """The CLI's error line for a failing command, without its `lethe: error: ` prefix, in a Python user's words (its
    `--flag` as the keyword `flag`, `lethe cmd` as `lethe.cmd(…)`), and its exit status."""
    p = cli(*args, ok=False)
    assert p.returncode in (1, 2), p.stderr
    return pythonic(p.stderr.strip().removeprefix("lethe: error: ")), p.returncode


def test_forget_quality_of_tool_files():
    u = TOOLS / "open_unlearning/unlearned/TOFU_EVAL.json"
    r = TOOLS / "open_unlearning/retain/TOFU_EVAL.json"
    same(lethe.forget_quality(str(u), str(r)), cli("forget-quality", "--unlearned", u, "--retain", r, "--json"),
         whole=True)
    tu, tr = TOOLS / "tofu/full/eval_log_forget.json", TOOLS / "tofu/retain90/eval_log_forget.json"
    want = cli("forget-quality", "--unlearned", tu, "--retain", tr, "--alternative", "less", "--json")
    same(lethe.forget_quality(unlearned=tu, retain=tr, alternative="less"), want, whole=True)
    # Files of two kinds: the CLI's message, a refusal (exit 1).
    msg, status = cli_error("forget-quality", "--unlearned", u, "--retain", tr)
    with pytest.raises(lethe.LetheError) as e:
        lethe.forget_quality(str(u), str(tr))
    assert str(e.value) == msg and "of one kind" in msg
    assert e.value.input == "retain" and not e.value.usage and status == 1


def test_privleak_of_tool_files():
    u = TOOLS / "open_unlearning/unlearned/TOFU_EVAL.json"
    r = TOOLS / "open_unlearning/retain/TOFU_EVAL.json"
    want = cli("privleak", "--unlearned", u, "--retain", r, "--seed", 3, "--resamples", 200, "--json")
    same(lethe.privleak(str(u), str(r), seed=3, resamples=200), want, whole=True)
    log = TOOLS / "muse/unlearned/privleak/log.json"
    same(lethe.privleak(log, corpus="news"), cli("privleak", "--unlearned", log, "--corpus", "news", "--json"),
         whole=True)
    # MUSE without a reference: the CLI's usage error (exit 2).
    msg, status = cli_error("privleak", "--unlearned", log)
    with pytest.raises(lethe.LetheError) as e:
        lethe.privleak(str(log))
    assert str(e.value) == msg and e.value.usage and status == 2
    # Several references, which the CLI's arguments forbid, are refused here too.
    with pytest.raises(lethe.LetheError, match="give one reference") as e:
        lethe.privleak(str(u), str(r), ref_auc=0.5)
    assert e.value.usage


def test_tool_rouge_of_tool_files():
    u = f"{TOOLS}/open_unlearning/unlearned/TOFU_EVAL.json#forget_Q_A_ROUGE"
    same(lethe.tool_rouge(u), cli("tool-rouge", u, "--json"), whole=True)
    t = TOOLS / "tofu/retain90/eval_log_forget.json"
    same(lethe.tool_rouge(file=t, stemmer=False), cli("tool-rouge", t, "--no-stemmer", "--json"), whole=True)
    # A file without generations: the CLI's message.
    auc = TOOLS / "muse/unlearned/privleak/auc.json"
    msg, status = cli_error("tool-rouge", auc)
    with pytest.raises(lethe.LetheError) as e:
        lethe.tool_rouge(str(auc))
    assert str(e.value) == msg and e.value.input == "file" and status == 1


def test_lira_from_a_folder():
    same(lethe.lira(dir=str(LIRA_DIR)), cli("lira", LIRA_DIR, "--json"), whole=True)
    want = cli("lira", LIRA_DIR, "--variant", "offline", "--target", "3,5", "--ci", "both", "--resamples", 100,
               "--json")
    same(lethe.lira(dir=LIRA_DIR, variant="offline", targets=[3, 5], ci="both", resamples=100), want, whole=True)
    # logits/ converted as score.py does; `from` is a Python keyword, given through **.
    logits = LIRA_DIR.parent / "exp_logits"
    want = cli("lira", logits, "--from", "logits", "--variant", "global", "--json")
    same(lethe.lira(dir=logits, variant="global", **{"from": "logits"}), want, whole=True)
    # Not a folder: the CLI's usage error; the listed files are not an option.
    not_dir = LIRA_DIR.parent / "lira.json"
    msg, status = cli_error("lira", not_dir)
    with pytest.raises(lethe.LetheError) as e:
        lethe.lira(dir=str(not_dir))
    assert str(e.value) == msg and "is not a directory" in msg and e.value.usage and status == 2
    with pytest.raises(lethe.LetheError, match="no option `files`.*dir"):
        lethe.lira(files=[0])


def test_stubs_are_python():
    import ast

    ast.parse((ROOT / "python/lethe/__init__.pyi").read_text())


def test_messages_speak_python():
    # The options and analyses the layer names once (marked) in a Python user's words (the CLI says `--equal-size`,
    # the page its labels).
    assert _lethe._pythonic("ask for equal-size subsets (`{opt:equal_size=true}`), or {cmd:calibrate}") == \
        "ask for equal-size subsets (`equal_size=True`), or `lethe.calibrate(…)`"
    assert _lethe._pythonic("lower {opt:fdr}, {opt:sd_method=lp}, {opt:alpha=0.05}") == \
        'lower fdr=, sd_method="lp", alpha=0.05'
    assert _lethe._pythonic("a -- b, --5, x--y, `lethe` alone, {x}") == "a -- b, --5, x--y, `lethe` alone, {x}"
    acts = np.load(D / "act_unlearned.npy")
    with pytest.raises(lethe.LetheError, match=r"\(`equal_size=True`\)") as e:
        lethe.sde(acts[0:100], acts[100:150], target=[acts[200:300]])
    assert "--" not in str(e.value)
