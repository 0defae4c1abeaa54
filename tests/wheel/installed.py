"""The wheel as a user installs it (build.sh `dist_wheel_test`): run by a fresh venv's python, into which only the
wheel from target/dist/ (and numpy from PyPI) was installed, on a PATH without cargo or rustc, from a directory
outside the repository, so that `import lethe` can only find the installed package.

    python installed.py REPO            the package, its wheel tags, its static files, lethe.mia and lethe.sde
    python installed.py REPO --widget   also lethe.widget's engine (anywidget installed beside it)

The analyses' expected headlines are the ones the repository documents for the demo data (examples/data/digits):
that Python's reports equal the CLI's is pytest's job (python/tests); here the question is whether the wheel holds
a working package.
"""

import importlib.metadata
import os
import sys

import numpy as np

import lethe


def fail(msg):
    sys.exit(f"wheel install test: {msg}")


def files(top):
    """Every file under `top`, as paths relative to it."""
    out = []
    for d, _, names in os.walk(top):
        out += [os.path.relpath(os.path.join(d, n), top) for n in names]
    return sorted(out)


root = os.path.realpath(sys.argv[1])
widget = "--widget" in sys.argv[2:]
pkg = os.path.dirname(os.path.realpath(lethe.__file__))

# The installed package, not the repository's python/lethe (the working directory is outside the repository).
if pkg.startswith(root + os.sep):
    fail(f"lethe was imported from the repository ({pkg}), not from the installed wheel")
if not pkg.startswith(os.path.realpath(sys.prefix) + os.sep):
    fail(f"lethe was imported from {pkg}, outside this venv ({sys.prefix})")
ext = os.path.realpath(lethe._lethe.__file__)
if os.path.dirname(ext) != pkg or not ext.endswith(".abi3.so"):
    fail(f"the extension module is {ext}, not the wheel's abi3 module in {pkg}")

# The tags pip installed it under (its dist-info's WHEEL file): one abi3 wheel, manylinux as maturin tags it.
meta = importlib.metadata.distribution("lethe")
tags = [line.split(":", 1)[1].strip() for line in (meta.read_text("WHEEL") or "").splitlines() if line.startswith("Tag:")]
if not tags or not all("-abi3-" in t and "manylinux" in t for t in tags):
    fail(f"the wheel's tags are {tags}; want abi3 and manylinux")

# The notebook widgets' static files: every file python/widget/build.py left in python/lethe/static/ (lethe.show's
# module and styles, lethe.widget's module and the wasm engine), installed byte for byte, and nothing else.
src, dst = os.path.join(root, "python", "lethe", "static"), os.path.join(pkg, "static")
want, got = files(src), files(dst) if os.path.isdir(dst) else []
if want != got:
    fail(f"the installed lethe/static holds {got}; the repository's python/lethe/static holds {want}")
for f in want:
    with open(os.path.join(src, f), "rb") as a, open(os.path.join(dst, f), "rb") as b:
        if a.read() != b.read():
            fail(f"the installed lethe/static/{f} differs from python/lethe/static/{f}")
if "widget_run.js" not in got:
    fail("the wheel has no lethe/static/widget_run.js: lethe.widget would have no in-browser engine")

digits = os.path.join(root, "examples", "data", "digits")

# MIA on the demo's LiRA scores, as examples/data/digits/README.md runs it (`lethe mia … --ci both`): it documents
# "AUC 0.5757 (95% CI 0.5187–0.6326, DeLong): the unlearned model still gives its forget rows away".
s = np.load(os.path.join(digits, "mia_scores.npz"))["lira_unlearned"]
m = lethe.mia(s[:144], s[144:503], ci="both", seed=0)
if m.headline.call != "distinguishes" or "AUC = 0.5757 (95% CI 0.5187–0.6326, DeLong)" not in m.headline.text:
    fail(f"lethe.mia on the demo scores says {m.headline.call!r}: {m.headline.text!r}")

# SDE on the demo's activations, as README.md runs it (`lethe sde … --seed 0`) and says it prints:
# "target[0]: inconclusive", with warning[references_reversed].
a = np.load(os.path.join(digits, "act_unlearned.npy"))
r = lethe.sde(a[144:244], a[544:644], target=[a[0:100]], seed=0)
codes = [w.code for w in r.warnings]
if r.headline.text != "target[0]: inconclusive" or "references_reversed" not in codes:
    fail(f"lethe.sde on the demo activations says {r.headline.text!r} with warnings {codes}")
print(f"lethe from {pkg} ({', '.join(tags)}): mia: {m.headline.text}")
print(f"  sde: {r.headline.text} (warnings {', '.join(codes)}); static: {', '.join(got)}")

if widget:
    # lethe.widget refuses to start (LetheError) when the install has no in-browser engine; a widget made outside a
    # kernel is only built, not drawn. The notebook test (tests/notebook/widget.test.mjs) then runs it in a browser.
    w = lethe.widget("mia", s[:144], s[144:503], resamples=50, seed=0)
    if not w._esm:
        fail("lethe.widget gave a widget without its ES module")
    print(f"  lethe.widget: {type(w).__name__}, module {len(w._esm):,} characters")
