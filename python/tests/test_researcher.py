"""Python as a researcher writes it (issue 24 item 6): what numpy.asarray reads is an array, rows come as numpy
integers, options as numpy scalars, and whatever is still refused is a LetheError naming the argument."""

import pathlib

import numpy as np
import pytest

import lethe

ROOT = pathlib.Path(__file__).resolve().parents[2]
D = ROOT / "examples" / "data" / "digits"


@pytest.fixture(scope="module")
def act():
    return np.load(D / "act_unlearned.npy")


class Tensorish:
    """A CPU torch tensor as numpy sees it: only ``__array__``."""

    def __init__(self, a):
        self._a = a

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)


def test_array_likes_give_the_arrays_report():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=60), rng.normal(0.4, size=50)
    want = lethe.mwu(x, y).to_dict()
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"s": x})
    for gx, gy in [(list(x), list(y)), (pd.Series(x), pd.Series(y)), (frame["s"], y), (Tensorish(x), Tensorish(y)),
                   (memoryview(x), memoryview(y)), (tuple(x), y)]:
        got = lethe.mwu(gx, gy).to_dict()
        assert got["result"] == want["result"], type(gx)
        assert got["headline"] == want["headline"]


def test_rows_as_numpy_integers(act):
    want = lethe.calibrate(act, it_pool="144..544", oot_pool="544..744", target=["0..40", "40..80"], refs=4,
                           size=40, paper_shuffles=20).to_dict()
    idx1, idx2 = np.arange(0, 40), np.arange(40, 80)
    for target in ([idx1, idx2], [list(idx1), list(idx2)], [idx1.tolist(), range(40, 80)]):
        got = lethe.calibrate(act, it_pool=list(np.arange(144, 544)), oot_pool=np.arange(544, 744),
                              target=target, refs=np.int64(4), size=np.int64(40), paper_shuffles=np.int32(20),
                              margin=np.float64(want["parameters"]["margin"]))
        assert got.to_dict()["result"] == want["result"]
        assert got.headline.call == want["headline"]["call"]


def test_every_option_refuses_a_wrong_type_by_name():
    class Odd:
        pass

    for cmd in lethe.commands():
        for opt in lethe.options(cmd):
            for bad in (Odd(), {"a": 1}):
                with pytest.raises(lethe.LetheError) as e:
                    lethe.run(cmd, **{opt: bad})
                text = str(e.value)
                assert opt in text, (cmd, opt, text)
                for internal in ("serde", "invalid type: map", "JSON serializable", "invalid type"):
                    assert internal not in text, (cmd, opt, text)


def test_an_arrays_rows_are_of_the_array():
    v = np.arange(10.0)
    v[3] = np.nan
    with pytest.raises(lethe.LetheError) as e:
        lethe.mwu(v, v)
    assert "of the array" in str(e.value) and "of the file" not in str(e.value)


def test_frames_and_integer_series(act):
    """A DataFrame is the array of its values; an integer Series (a DataFrame's index column) names rows."""
    pd = pytest.importorskip("pandas")
    want = lethe.sde(act[144:244], act[544:644], target=[act[0:100]], shuffles=30).to_dict()
    got = lethe.sde(pd.DataFrame(act[144:244]), pd.DataFrame(act[544:644]).values.tolist(),
                    target=[pd.DataFrame(act[0:100])], shuffles=30).to_dict()
    assert got["result"] == want["result"] and got["headline"] == want["headline"]
    rows = pd.DataFrame({"row": np.arange(144, 544)})
    a = lethe.calibrate(act, it_pool="144..544", oot_pool="544..744", target=["0..40"], refs=4, size=40,
                        paper_shuffles=20).to_dict()
    b = lethe.calibrate(act, it_pool=rows["row"], oot_pool=pd.Series(np.arange(544, 744, dtype=np.uint32)),
                        target=[pd.Index(np.arange(0, 40))], refs=4, size=40, paper_shuffles=20).to_dict()
    assert b["result"] == a["result"] and b["headline"] == a["headline"]


def test_what_is_refused_names_its_argument(act):
    """Each refused value is a LetheError that names the argument and says what to pass, never a TypeError or a
    serde message."""
    pd = pytest.importorskip("pandas")
    v = np.arange(20.0)
    common = dict(refs=4, size=40, paper_shuffles=20)
    cases = [
        ("x", lambda: lethe.mwu(np.array(["a", "b", "c"]), v), "not numbers"),
        ("x", lambda: lethe.mwu(pd.Series(["a", "b"]), v), "not numbers"),
        ("y", lambda: lethe.mwu(v, [[1.0, 2.0], [3.0]]), "numpy.asarray cannot read it"),
        ("y", lambda: lethe.mwu(v, {"a": 1.0}), "pass a numpy array"),
        ("y", lambda: lethe.mwu(v, object()), "pass a numpy array"),
        ("it_pool", lambda: lethe.calibrate(act, it_pool=[0.5, 1.5], oot_pool="544..744", target=["0..40"], **common),
         "row numbers"),
        ("oot_pool", lambda: lethe.calibrate(act, it_pool="144..544", oot_pool={"a": 1}, target=["0..40"], **common),
         "row numbers"),
        ("target", lambda: lethe.calibrate(act, it_pool="144..544", oot_pool="544..744",
                                           target=[np.arange(4.0).reshape(2, 2)], **common), "row numbers"),
        ("refs", lambda: lethe.calibrate(act, it_pool="144..544", oot_pool="544..744", target=["0..40"], refs={"n": 4},
                                         size=40, paper_shuffles=20), "refs"),
        ("alternative", lambda: lethe.mwu(v, v, alternative=object()), "takes a number, text"),
        # A repeated role takes a list of rows (serde's message named no argument, and the type it saw was a map).
        ("target", lambda: lethe.calibrate(act, it_pool="144..544", oot_pool="544..744", target=np.arange(40),
                                           **common), "takes a list; got ndarray"),
        ("no_continuity", lambda: lethe.mwu(v, v, no_continuity=3), "takes true/false; got int"),
    ]
    for name, call, what in cases:
        with pytest.raises(lethe.LetheError) as e:
            call()
        text = str(e.value)
        assert text.startswith(f"{name}:") or f"`{name}`" in text or name in text.split(":")[0], (name, text)
        assert what in text, (name, text)
        for internal in ("serde", "invalid type", "JSON serializable", "Traceback", "dtype('"):
            assert internal not in text, (name, text)
