"""The docs site's Python reference, from the package's own stubs (python/lethe/__init__.pyi, which
python/gen_stubs.py writes from the analysis layer's request fields) and batch.py's signatures, parsed with ``ast``:
every public name, class and function with its full signature and docstring, so the page cannot drift from the code.

    python3 tools/docs/python_reference.py OUT.md      (./build.sh docs runs it)
"""

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PKG = ROOT / "python" / "lethe"


def doc_text(s):
    """A docstring as Markdown: reST's ``code`` and :class:`X` roles as code spans, otherwise as written."""
    if not s:
        return ""
    import re

    s = re.sub(r":\w+:`([^`]+)`", r"`\1`", s)
    s = s.replace("``", "`")
    return s.strip()


def signature(fn, prefix=""):
    """`def name(args) -> ret` with one parameter a line when it is long."""
    args = ast.unparse(fn.args)
    ret = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    one = f"def {prefix}{fn.name}({args}){ret}"
    if len(one) <= 100:
        return one
    parts = []
    a = fn.args
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for arg, d in zip(positional, defaults):
        parts.append(param(arg, d))
    if a.vararg:
        parts.append("*" + param(a.vararg, None))
    elif a.kwonlyargs:
        parts.append("*")
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        parts.append(param(arg, d))
    if a.kwarg:
        parts.append("**" + param(a.kwarg, None))
    body = "".join(f"    {p},\n" for p in parts)
    return f"def {prefix}{fn.name}(\n{body}){ret}"


def param(arg, default):
    s = arg.arg
    if arg.annotation is not None:
        s += f": {ast.unparse(arg.annotation)}"
    if default is not None:
        s += f" = {ast.unparse(default)}"
    return s


def anchor(name):
    return name.lower().replace(".", "").replace("_", "")


def module_items(tree, qual):
    """(kind, name, markdown) for the public names of a module's body, in order."""
    out = []
    body = tree.body
    for i, node in enumerate(body):
        nxt = body[i + 1] if i + 1 < len(body) else None
        trailing = (
            nxt.value.value
            if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str)
            else None
        )
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            md = f"```python\n{signature(node)}\n```\n\n{doc_text(ast.get_docstring(node))}\n"
            out.append(("function", f"{qual}.{node.name}", md))
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            lines = [f"class {node.name}:"]
            for m in node.body:
                if isinstance(m, ast.AnnAssign):
                    lines.append(f"    {ast.unparse(m.target)}: {ast.unparse(m.annotation)}")
                elif isinstance(m, ast.FunctionDef) and not m.name.startswith("_"):
                    deco = "".join(f"    @{ast.unparse(d)}\n" for d in m.decorator_list)
                    sig = signature(m).replace("\n", "\n    ")
                    lines.append(f"{deco}    {sig}")
            md = "```python\n" + "\n".join(lines) + "\n```\n\n" + doc_text(ast.get_docstring(node)) + "\n"
            out.append(("class", f"{qual}.{node.name}", md))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if not name.startswith("_"):
                md = f"```python\n{name} = {ast.unparse(node.value)}\n```\n\n{doc_text(trailing)}\n"
                out.append(("type", f"{qual}.{name}", md))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
            if not name.startswith("_") or name == "__version__":
                md = f"```python\n{name}: {ast.unparse(node.annotation)}\n```\n\n{doc_text(trailing)}\n"
                out.append(("value", f"{qual}.{name}", md))
    return out


def main(out_path):
    stub = PKG / "__init__.pyi"
    init = ast.parse((PKG / "__init__.py").read_text())
    stubs = ast.parse(stub.read_text())
    batch = ast.parse((PKG / "batch.py").read_text())
    md = ["# Python reference\n"]
    md.append(
        "Generated from the package's type stubs (`python/lethe/__init__.pyi`, which `python/gen_stubs.py` writes "
        "from the analysis layer's request fields) and `python/lethe/batch.py` when the docs site is built: every "
        "public name with its signature. [The Python guide](python.md) shows them in use.\n"
    )
    md.append(doc_text(ast.get_docstring(init)) + "\n")
    sections = [
        ("Names, types and reports", [k for k in module_items(stubs, "lethe") if k[0] != "function"]),
        ("Functions", [k for k in module_items(stubs, "lethe") if k[0] == "function"]),
        ("lethe.batch", module_items(batch, "lethe.batch")),
    ]
    for title, items in sections:
        md.append(f"## {title}\n")
        if title == "lethe.batch":
            md.append(doc_text(ast.get_docstring(batch)) + "\n")
        for _kind, name, body in items:
            md.append(f"### `{name}` {{#{anchor(name)}}}\n")
            md.append(body)
    text = "\n".join(md)
    pathlib.Path(out_path).write_text(text)
    n = sum(len(items) for _t, items in sections)
    print(f"python reference: {n} names from {stub.relative_to(ROOT)} and batch.py → {out_path}")


if __name__ == "__main__":
    main(sys.argv[1])
