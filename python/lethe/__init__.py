"""Lethe in Python: the analyses of the ``lethe`` CLI on numpy arrays (read in place, never copied) and files, with
the same reports as ``lethe … --json``.

Every analysis is one function (``lethe.sde``, ``lethe.mwu``, …) taking its inputs (numpy arrays, or files as the CLI
names them: ``"PATH[#TENSOR][@ROWS]"``) and the CLI's options as keyword arguments, and returning a :class:`Report`.
The options are the analysis layer's request fields (``lethe.options("mwu")``); nothing here repeats them.
See docs/python.md.
"""

from __future__ import annotations

import json as _json
import re
import numbers as _numbers
from typing import Any, Callable, Dict, List, Optional

import numpy as _np

from . import _lethe
from ._lethe import LetheError
from . import batch  # noqa: E402,F401

__version__ = _lethe.VERSION
__all__ = ["Report", "Headline", "Warning", "LetheError", "load", "options", "commands", "show", "widget", "run"]


class Headline:
    """The one call of an analysis: a stable ``call`` code, a sentence (``text``), and the ``reason`` when the
    call is ``inconclusive`` or its rules disagree."""

    __slots__ = ("call", "text", "reason")

    def __init__(self, d: Dict[str, Any]):
        self.call: str = d["call"]
        self.text: str = d["text"]
        self.reason: Optional[str] = d.get("reason")

    def __repr__(self) -> str:
        return f"Headline(call={self.call!r}, text={self.text!r})"

    def __str__(self) -> str:
        return self.text if not self.reason else f"{self.text} (because: {self.reason})"


class Warning:  # noqa: A001 - the report's own word
    """Something to know before trusting a result: a stable ``code``, the ``input`` (role) it concerns, the
    ``message`` and the ``fix``."""

    __slots__ = ("code", "input", "message", "fix")

    def __init__(self, d: Dict[str, Any]):
        self.code: str = d["code"]
        self.input: Optional[str] = d.get("input")
        self.message: str = d["message"]
        self.fix: Optional[str] = d.get("fix")

    def __repr__(self) -> str:
        return f"Warning(code={self.code!r}, input={self.input!r}, message={self.message!r})"


class Report:
    """The report of one analysis, the same value ``lethe <command> … --json`` prints."""

    def __init__(self, text: str):
        self._text = text
        self._d = _json.loads(text)
        self.command: str = self._d["command"]
        self.headline = Headline(self._d["headline"])
        self.warnings: List[Warning] = [Warning(w) for w in self._d["warnings"]]
        self.parameters: Dict[str, Any] = self._d["parameters"]
        self.inputs: List[Dict[str, Any]] = self._d["inputs"]
        self.seed: Optional[int] = self._d.get("seed")
        self.result: Any = self._d["result"]
        self.lethe_version: str = self._d["lethe_version"]

    def to_dict(self) -> Dict[str, Any]:
        """The report as plain Python values (a fresh copy)."""
        return _json.loads(self._text)

    def to_json(self) -> str:
        """The report's JSON, as ``lethe … --json`` writes it."""
        return self._text + "\n"

    def __repr__(self) -> str:
        return f"<lethe.Report {self.command}: {self.headline.text}>"



def commands() -> List[str]:
    """The analyses, named as the CLI's subcommands."""
    return list(_lethe.commands())


def options(command: str) -> List[str]:
    """The keyword arguments ``command`` takes: its request's fields (inputs included), with the CLI's names and
    defaults."""
    return list(_lethe.options(command))


def _refused(role: str, text: str) -> LetheError:
    """A value refused here (before the layer sees it), named by its argument as the layer's errors are."""
    e = LetheError(f"{role}: {text}")
    e.input, e.code, e.usage = role, None, True
    return e


_KINDS = {"U": "text", "S": "bytes", "O": "Python objects", "M": "dates", "m": "time spans", "c": "complex numbers",
          "V": "records"}


def _is_int(i: Any) -> bool:
    return isinstance(i, _numbers.Integral) and not isinstance(i, bool)


def _arraylike(v: Any) -> bool:
    """What ``numpy.asarray`` reads as numbers: arrays, pandas Series/columns, lists, memoryviews, and objects with
    ``__array__`` (a CPU torch tensor)."""
    if isinstance(v, (str, bytes, dict, _np.generic, _numbers.Number)) or hasattr(v, "__fspath__"):
        return False
    return isinstance(v, (_np.ndarray, list, tuple, memoryview, range)) or hasattr(v, "__array__")


def _rows_text(role: str, v: Any) -> Any:
    """Rows given as integers (a list, range, integer array or Series, numpy integers) as the CLI's ``i,j,k`` text;
    a list of such rows (a repeated role: ``target=[idx1, idx2]``) as a list of texts."""
    if isinstance(v, str) or hasattr(v, "__fspath__"):
        return str(v.__fspath__()) if hasattr(v, "__fspath__") else v
    if _is_int(v):
        return str(int(v))
    if isinstance(v, range) and v.step == 1:
        return f"{v.start}..{v.stop}"
    if isinstance(v, (list, tuple)) and v and all(_arraylike(i) or isinstance(i, str) or hasattr(i, "__fspath__")
                                                  for i in v):
        return [_rows_text(role, i) for i in v]  # a repeated role
    if _arraylike(v):
        try:
            a = _np.asarray(v)
        except Exception:  # noqa: BLE001 - refused below with the argument's name
            a = None
        if a is not None and a.ndim <= 1 and (a.size == 0 or a.dtype.kind in "iu"
                                              or (a.dtype.kind == "f" and _np.all(a == _np.round(a)))):
            return ",".join(str(int(i)) for i in a.ravel())
        if a is not None and a.dtype.kind == "b" and a.ndim == 1:
            return ",".join(str(int(i)) for i in _np.flatnonzero(a))
    raise _refused(role, f"rows are row numbers (counting from 0): pass a list or 1-D array of integers, a "
                     f"range, or a file's path; got {type(v).__name__}")


def _plain(role: str, v: Any) -> Any:
    """An option's value as JSON: numpy scalars and arrays as Python numbers and lists."""
    if isinstance(v, _np.generic):
        return v.item()
    if isinstance(v, (str, bool, int, float)) or v is None:
        return v
    if isinstance(v, dict):
        return {k: _plain(f"{role}.{k}", x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(role, x) for x in v]
    if _arraylike(v):
        try:
            return _np.asarray(v).tolist()
        except Exception:  # noqa: BLE001
            pass
    raise _refused(role, f"takes a number, text, true/false or a list of them; got {type(v).__name__}")


def _arrays_text(text: str, arrays: "_Arrays") -> str:
    """Positions in an array named as such: "row 7 of the array", not "of the file" (the layer's words for files)."""
    if not arrays.items or "of the file" not in text:
        return text
    return re.sub(r"(`<[\w-]+ array>`[^`]*?)\bof the file\b", r"\1of the array", text)


def _arrayish(e: LetheError, arrays: "_Arrays") -> LetheError:
    t = _arrays_text(str(e), arrays)
    if t == str(e):
        return e
    n = LetheError(t)
    for a in ("input", "code", "usage"):
        if hasattr(e, a):
            setattr(n, a, getattr(e, a))
    return n


class _Arrays:
    """Arrays of one call, numbered as workspace sources."""

    def __init__(self):
        self.items = []

    def add(self, role: str, a: _np.ndarray) -> Dict[str, int]:
        if a.ndim == 0:
            raise _refused(role, "a single number is not an input; pass a 1-D or 2-D array")
        if not (a.flags.c_contiguous or a.flags.f_contiguous):
            # Strided views (a[::2], a[:, 1:3] of a C array): numpy copies them once into C order.
            a = _np.ascontiguousarray(a)
        ident = len(self.items)
        self.items.append((ident, f"<{role} array>", a))
        return {"source": ident}


def _input(role: str, v: Any, arrays: "_Arrays", texts: Any) -> Any:
    if hasattr(v, "__fspath__"):
        return str(v.__fspath__())
    if isinstance(v, str):
        return v
    if role in texts:
        raise _refused(role, f"pass a text file's path (one generation per line); got {type(v).__name__}")
    if _arraylike(v):
        try:
            a = _np.asarray(v)
        except Exception as e:  # noqa: BLE001
            raise _refused(role, f"numpy.asarray cannot read it as numbers ({e}); pass a numeric array or a "
                             "file's path") from None
        if a.dtype.kind not in "biuf":
            raise _refused(role, f"its values are {_KINDS.get(a.dtype.kind, a.dtype)} ({type(v).__name__} of "
                           f"{a.dtype}), not numbers; pass a numeric "
                             "array or a file's path")
        return arrays.add(role, a)
    raise _refused(role, f"pass a numpy array (or a list, pandas Series, anything numpy.asarray reads as "
                     f"numbers) or a file's path; got {type(v).__name__}")


def _translate(command: str, kwargs: Dict[str, Any], arrays: _Arrays) -> Dict[str, Any]:
    inputs, rows, texts = _lethe.roles(command)
    out: Dict[str, Any] = {}

    def value(role: str, v: Any) -> Any:
        if role in rows:
            return _rows_text(role, v)
        if role in inputs or role in texts:
            return _input(role, v, arrays, texts)
        if hasattr(v, "__fspath__"):
            return str(v.__fspath__())
        return _plain(role, v)

    def repeated(v: Any) -> bool:
        # A list of inputs (arrays, paths) for a repeated role; a list of numbers is one array.
        return isinstance(v, (list, tuple)) and bool(v) and all(
            isinstance(i, str) or hasattr(i, "__fspath__")
            or (hasattr(i, "__array__") and not isinstance(i, (_np.generic, _numbers.Number))) for i in v)

    for k, v in kwargs.items():
        if v is None:
            continue
        if k == "runs" and k not in inputs and k not in texts:  # runs of one request (ruler); compare's is a table
            if not isinstance(v, (list, tuple)) or not all(isinstance(r, dict) for r in v):
                raise _refused("runs", "pass a list of dicts, one per run, with that run's inputs and options")
            out[k] = [{rk: value(rk, rv) for rk, rv in run.items() if rv is not None} for run in v]
        elif (k in inputs or k in texts) and repeated(v):
            out[k] = [value(k, i) for i in v]
        else:
            out[k] = value(k, v)
    return out


_SERDE = re.compile(r"invalid (?:type|value): (\w+)(?: (.*?))?, expected (.*)$")


def _expected(expected: str, rows: bool) -> str:
    """serde's "expected …" in a Python user's words."""
    expected = re.sub(r"\bstruct \w+|enum \w+", "rows (text, a list of integers or a file's path)" if rows
                      else "what lethe.options describes", expected)
    expected = re.sub(r"\ba sequence\b", "a list", expected)
    expected = re.sub(r"\ba string\b", "text", re.sub(r"\ba boolean\b", "true/false", expected))
    return re.sub(r"\bf(?:64|32)\b", "a number", re.sub(r"\b[ui](?:size|64|32|16|8)\b", "a whole number", expected))


def _named(command: str, e: Exception, request: Dict[str, Any], given: Optional[Dict[str, Any]] = None) -> Exception:
    """A request the layer could not read (a serde message) as a LetheError naming the argument: the one the layer
    names (its ``input``), else the one whose value has the type serde saw."""
    text = str(e)
    missing = re.search(r"missing field `(\w+)`", text)
    nested = [k for k, v in request.items() if isinstance(v, dict) and "source" not in v]
    if missing and missing.group(1) not in request and nested:
        return LetheError(f"{' or '.join(nested)}: has no `{missing.group(1)}`: pass the value "
                          f"lethe.options({command!r}) describes (see docs/python.md)")
    m = _SERDE.search(text)
    if not m and "invalid type" not in text and "invalid value" not in text:
        return e
    kind, literal, expected = (m.group(1), m.group(2), m.group(3)) if m else ("", None, "another type")
    role = getattr(e, "input", None)
    if role in request:
        v = (given or {}).get(role, request[role])
        rows = role in _lethe.roles(command)[1]
        n = LetheError(f"{role}: takes {_expected(expected, rows)}; got {type(v).__name__} "
                       f"(see lethe.options({command!r}))")
        for a in ("input", "code", "usage"):
            if hasattr(e, a):
                setattr(n, a, getattr(e, a))
        return n
    kinds = {"map": dict, "sequence": list, "string": str, "boolean": bool, "integer": (int, float),
             "floating": float}

    def fits(v: Any) -> bool:
        if kind == "map" and isinstance(v, dict):
            return True
        t = kinds.get(kind)
        if t is None or not isinstance(v, t) or (kind != "boolean" and isinstance(v, bool)):
            return False
        return literal is None or literal.strip('"') == str(v) or _json.dumps(v) == literal
    names = [k for k, v in request.items() if fits(v)] or list(request)
    what = {"map": "an array", "sequence": "a list", "string": "text", "boolean": "true/false"}.get(kind, kind)
    return LetheError(f"{' or '.join(names)}: got {what}, expected {_expected(expected, False)} "
                      f"(see lethe.options({command!r}))")


def _progress(progress: Any) -> Optional[Callable[[float, str], None]]:
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    from tqdm.auto import tqdm  # progress=True

    bar = tqdm(total=1000, unit="‰", bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]")

    def update(fraction: float, phase: str) -> None:
        bar.set_description(phase[:40])
        bar.update(int(round(fraction * 1000)) - bar.n)
        if phase == "done":
            bar.close()

    return update


def run(command: str, *, threads: Optional[int] = None, in_place: str = "auto", progress: Any = None,
        **kwargs: Any) -> Report:
    """Runs ``command`` (a CLI subcommand) with its request as keyword arguments; see :func:`options`.

    ``threads`` (default: every CPU), ``in_place`` (``auto``, ``always``, ``never``: SDE and the calibrated verdict
    read large inputs in place) change how it runs, never its result. ``progress``: a callable
    ``(fraction, phase)``, or ``True`` for a tqdm bar. Ctrl-C stops the run (KeyboardInterrupt).
    """
    arrays = _Arrays()
    request = _translate(command, kwargs, arrays)
    try:
        text = _lethe.run(command, _json.dumps(request), arrays.items, threads, in_place, _progress(progress))
    except LetheError as e:
        raise _named(command, _arrayish(e, arrays), request, kwargs) from None
    return Report(_arrays_text(text, arrays))


def _positional(command: str) -> List[str]:
    inputs, _rows, texts = _lethe.roles(command)
    return [r for r in (list(inputs) + list(texts)) if r not in ("target", "target_in", "target_out")]


def _bind(command: str, args: tuple, kwargs: Dict[str, Any], name: str) -> Dict[str, Any]:
    """``command``'s inputs given by position, named."""
    positional = _positional(command)
    if len(args) > len(positional):
        raise TypeError(f"{name} takes at most {len(positional)} inputs by position "
                        f"({', '.join(positional)}); give the rest by name")
    for role, a in zip(positional, args):
        if role in kwargs:
            raise TypeError(f"{name}: `{role}` given twice")
        kwargs[role] = a
    return kwargs


def _analysis(command: str):
    positional = _positional(command)

    def analysis(*args: Any, **kwargs: Any) -> Report:
        return run(command, **_bind(command, args, kwargs, f"lethe.{command}"))

    analysis.__name__ = command.replace("-", "_")
    analysis.__qualname__ = analysis.__name__
    analysis.__doc__ = (f"``lethe {command}``: inputs {', '.join(positional) or '-'} (numpy arrays or "
                        f"\"PATH[#TENSOR][@ROWS]\"); options {', '.join(o for o in _lethe.options(command))}. "
                        "Returns a Report (see lethe.run for threads, in_place, progress).")
    return analysis


for _command in _lethe.commands():
    _name = _command.replace("-", "_")  # eps-lower → lethe.eps_lower
    globals()[_name] = _analysis(_command)
    __all__.append(_name)


def load(path: str) -> _np.ndarray:
    """Reads ``path`` (``PATH[#TENSOR][@ROWS]``: .npy, .npz, .safetensors, .csv/.tsv/.txt, .json, … — every format
    Lethe reads) as the analyses read it: a 2-D float64 array. The reader's warnings are issued as Python
    warnings."""
    import warnings as _warnings

    a, notes = _lethe.load(str(path.__fspath__()) if hasattr(path, "__fspath__") else path)
    for n in notes:
        _warnings.warn(n, stacklevel=2)
    return a


def show(report: "Report | Dict[str, Any] | str"):
    """The report in a notebook (an anywidget: ``pip install anywidget``): its headline, warnings, plots and numbers,
    drawn by the page's own modules, with JSON/SVG/PNG exports. Takes a report, its dict or its JSON text; returns
    the widget (the last expression of a cell displays it)."""
    from . import _widget

    return _widget.show(report)


def widget(command: str, *args: Any, **kwargs: Any):
    """``command`` run in the notebook's browser by Lethe's wasm module (an anywidget: ``pip install anywidget``).

    Takes the inputs and options of ``lethe.<command>``. The arrays (and the files the request names) are sent
    once to the browser as binary buffers; the analysis runs there in a worker, with progress and Cancel, and its
    options can be changed and run again without the kernel (a change clears the result until it is run). The
    widget's ``report`` is the latest run's :class:`Report` (``None`` while running or after a change), read in a
    later cell. Runs there: ``lethe.widget_commands()``."""
    from . import _widget

    kwargs = _bind(command, args, kwargs, f"lethe.widget({command!r})")
    arrays = _Arrays()
    request = _translate(command, kwargs, arrays)
    try:
        return _widget.run_in_browser(command, request, arrays.items)
    except LetheError as e:
        raise _named(command, _arrayish(e, arrays), request, kwargs) from None


def widget_commands() -> List[str]:
    """The analyses :func:`widget` runs in the browser (the others: compute in the kernel, then :func:`show`)."""
    from . import _widget

    return list(_widget.BROWSER)
