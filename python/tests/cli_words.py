"""The CLI's words in a report or error as Python says them, to compare the CLI's output with the package's."""

import math
import re

# The switches the layer's messages name (`{opt:NAME=true}`): the CLI says `--equal-size`, Python `equal_size=True`.
SWITCHES = {"equal-size", "bounds", "atom-at-zero"}
# The options the layer's messages name with a value (`{opt:NAME=VALUE}`): the CLI says `--variant
# online-fixed-variance`, Python `variant="online-fixed-variance"` (words.rs: `python`). A message that names one of
# these without a value would need its name taken out of this set.
VALUED = {"variant", "sd-method", "confidences", "retrained", "unlearned"}


def _python_value(v):
    """A mark's value as words.rs's `python` writes it: True/False, a finite number bare, any other text quoted."""
    if v in ("true", "false"):
        return v.capitalize()
    try:
        if "_" not in v and math.isfinite(float(v)):
            return v
    except ValueError:
        pass
    return f'"{v}"'


def _option(m):
    name, value = m[1], m[2]
    py = name.replace("-", "_")
    if value is not None:
        return f"{py}={_python_value(value)}"
    return py + ("=True" if name in SWITCHES else "=")


def pythonic(text):
    """The CLI's words for the options and analyses the layer names (words.rs: `cli`) as Python says them (`python`):
    `lethe calibrate` → `lethe.calibrate(…)`, --fdr → fdr=, --equal-size → equal_size=True, --variant
    online-fixed-variance → variant="online-fixed-variance"."""
    text = re.sub(r"`lethe ([a-z-]+)`", lambda m: f"`lethe.{m[1].replace('-', '_')}(…)`", text)
    valued = "|".join(sorted(VALUED, key=len, reverse=True))
    return re.sub(r"(?<![\w-])--(?:(" + valued + r")(?![\w-]) ([^\s,;()`'\"\\]+)|([a-z][a-z0-9-]*)\b)",
                  lambda m: _option((None, m[1], m[2])) if m[1] else _option((None, m[3], None)), text)


def pythonic_all(value):
    """``value`` (a report, a cell: JSON's dicts, lists and strings) with every string in Python's words, as the
    package renders its reports string by string."""
    if isinstance(value, str):
        return pythonic(value)
    if isinstance(value, list):
        return [pythonic_all(v) for v in value]
    if isinstance(value, dict):
        return {k: pythonic_all(v) for k, v in value.items()}
    return value
