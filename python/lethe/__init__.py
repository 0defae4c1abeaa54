"""Lethe in Python: the analyses of the ``lethe`` CLI on numpy arrays (read in place, never copied) and files, with
the same reports as ``lethe … --json``.

Every analysis is one function (``lethe.sde``, ``lethe.mwu``, …) taking its inputs (numpy arrays, or files as the CLI
names them: ``"PATH[#TENSOR][@ROWS]"``) and the CLI's options as keyword arguments, and returning a :class:`Report`.
The options are the analysis layer's request fields (``lethe.options("mwu")``); nothing here repeats them.
See docs/python.md.
"""

from __future__ import annotations

import json as _json
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


def _rows_text(v: Any) -> Any:
    """Rows given as integers (a list, range or integer array) as the CLI's ``i,j,k`` text."""
    if isinstance(v, range) and v.step == 1:
        return f"{v.start}..{v.stop}"
    if isinstance(v, (list, tuple, range)) and all(isinstance(i, _numbers.Integral) for i in v):
        return ",".join(str(int(i)) for i in v)
    if isinstance(v, _np.ndarray) and v.dtype.kind in "iu":
        return ",".join(str(int(i)) for i in v.ravel())
    return v


class _Arrays:
    """Arrays of one call, numbered as workspace sources."""

    def __init__(self):
        self.items = []

    def add(self, role: str, a: _np.ndarray) -> Dict[str, int]:
        if a.ndim == 0:
            raise LetheError(f"{role}: a single number is not an input; pass a 1-D or 2-D array")
        if not (a.flags.c_contiguous or a.flags.f_contiguous):
            # Strided views (a[::2], a[:, 1:3] of a C array): numpy copies them once into C order.
            a = _np.ascontiguousarray(a)
        ident = len(self.items)
        self.items.append((ident, f"<{role} array>", a))
        return {"source": ident}


def _translate(command: str, kwargs: Dict[str, Any], arrays: _Arrays) -> Dict[str, Any]:
    inputs, rows, texts = _lethe.roles(command)
    out: Dict[str, Any] = {}

    def value(role: str, v: Any) -> Any:
        if hasattr(v, "__fspath__"):
            return str(v.__fspath__())
        if role in rows:
            return _rows_text(v)
        if isinstance(v, _np.ndarray) and (role in inputs or role in texts):
            if role in texts:
                raise LetheError(f"{role}: pass a text file's path (one generation per line)")
            return arrays.add(role, v)
        return v

    for k, v in kwargs.items():
        if v is None:
            continue
        if k == "runs":
            out[k] = [{rk: value(rk, rv) for rk, rv in run.items() if rv is not None} for run in v]
        elif isinstance(v, (list, tuple)) and (k in inputs or k in texts):
            out[k] = [value(k, i) for i in v]
        elif isinstance(v, _np.ndarray) and v.dtype.kind in "fc" and k not in inputs and k not in rows:
            out[k] = v.tolist()  # a numeric option given as an array (bounds' x)
        else:
            out[k] = value(k, v)
    return out


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
    text = _lethe.run(command, _json.dumps(request), arrays.items, threads, in_place, _progress(progress))
    return Report(text)


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
    return _widget.run_in_browser(command, request, arrays.items)


def widget_commands() -> List[str]:
    """The analyses :func:`widget` runs in the browser (the others: compute in the kernel, then :func:`show`)."""
    from . import _widget

    return list(_widget.BROWSER)
