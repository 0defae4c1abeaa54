"""The CLI's words in a report or error as Python says them, to compare the CLI's output with the package's."""

import re

# The switches the layer's messages name (`{opt:NAME=true}`): the CLI says `--equal-size`, Python `equal_size=True`.
SWITCHES = {"equal-size", "bounds", "atom-at-zero"}


def pythonic(text):
    """The CLI's words for the options and analyses the layer names (words.rs: `cli`) as Python says them (`python`):
    `lethe calibrate` → `lethe.calibrate(…)`, --fdr → fdr=, --equal-size → equal_size=True."""
    text = re.sub(r"`lethe ([a-z-]+)`", lambda m: f"`lethe.{m[1].replace('-', '_')}(…)`", text)
    return re.sub(r"(?<![\w-])--([a-z][a-z0-9-]*)\b",
                  lambda m: m[1].replace("-", "_") + ("=True" if m[1] in SWITCHES else "="), text)
