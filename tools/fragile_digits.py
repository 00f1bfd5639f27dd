"""Find printed numbers whose last digit could flip on another machine.

A value that sits (to about 1e-9) on a rounding boundary, say 0.125 printed
with two decimals, prints "0.12" or "0.13" depending on its last bit, and the
last bits depend on the CPU's BLAS kernel and SIMD loops. Stored notebook text
must not hang on them. This tool re-executes each notebook with its code cells
instrumented, in a throwaway copy, and lists every such value:

- f-string fields with a float format (``{x:.2f}``, ``{p:.1%}``, ``{v:.3e}``);
- ``round(x, n)``, ``np.round(a, n)`` and ``a.round(n)``;
- numpy arrays printed with the notebook's ``precision``;
- a float handed to ``print`` or left as a cell's result unformatted: all
  of its digits are shown, so a sum of 1.0 may print as 0.9999999999999999
  elsewhere.

Usage::

    python tools/fragile_digits.py [notebooks/NN_x.ipynb ...]

Exit status 1 if anything was found. Numbers printed by the helpers' own
messages are not instrumented (only the notebooks' cells).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent

INSTRUMENT = r'''
import ast as _ast, builtins as _b, re as _re, numpy as _np
_FRAGILE = []
_SPEC = _re.compile(r"^[+ -]?,?\.(\d+)([f%e])$")

def _near_half(x, digits):
    try:
        x = float(x)
    except (TypeError, ValueError):
        return False
    if not _np.isfinite(x):
        return False
    s = abs(x) * 10.0 ** digits
    if s >= 2.0 ** 52:  # an integer in float64: no half to round
        return False
    frac = s - _np.floor(s)
    return abs(frac - 0.5) < max(1e-11 * s, 1e-12)

def _check_many(values, digits, how):
    arr = _np.asarray(values)
    if arr.dtype.kind != "f":
        return
    for x in arr.ravel()[:10000]:
        if _near_half(x, digits):
            _FRAGILE.append((how, repr(float(x))))
            return

def _fragile_fmt(value, spec):
    m = _SPEC.match(spec)
    if m:
        d = int(m.group(1)) + (2 if m.group(2) == "%" else 0)
        if m.group(2) == "e":
            x = abs(float(value))
            if x > 0:
                d = d - int(_np.floor(_np.log10(x)))
        _check_many(value, d, "on a rounding boundary, format " + spec)
    return value

def _fragile_round(obj, n=0):
    _check_many(obj, n, "on a rounding boundary, round(..., %d)" % n)
    return _np.round(obj, n) if not isinstance(obj, (int, float)) else _b_round(obj, n)

_b_round = _b.round
def _round(x, n=None):
    if n is not None:
        _check_many(x, n, "on a rounding boundary, round(..., %d)" % n)
    return _b_round(x, n) if n is not None else _b_round(x)
_b.round = _round

class _Fmt(_ast.NodeTransformer):
    def visit_FormattedValue(self, node):
        self.generic_visit(node)
        spec = node.format_spec
        if (isinstance(spec, _ast.JoinedStr) and len(spec.values) == 1
                and isinstance(spec.values[0], _ast.Constant)):
            text = _ast.Constant(spec.values[0].value)
            node.value = _ast.Call(_ast.Name("_fragile_fmt", _ast.Load()),
                                   [node.value, text], [])
        return node
    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        rounding = isinstance(f, _ast.Attribute) and f.attr in ("round", "around")
        if rounding and node.args:
            fn = _ast.Name("_fragile_round", _ast.Load())
            if isinstance(f.value, _ast.Name) and f.value.id in ("np", "numpy"):
                return _ast.Call(fn, node.args, [])
            if len(node.args) == 1 and not node.keywords:
                return _ast.Call(fn, [f.value, node.args[0]], [])
        return node

get_ipython().ast_transformers.append(_Fmt())

_b_print = _b.print
def _print(*args, **kw):
    for a in args:
        if isinstance(a, (float, _np.floating)) and _np.isfinite(a):
            _FRAGILE.append(("printed with every digit (format or round it)",
                             repr(float(a))))
    return _b_print(*args, **kw)
_b.print = _print

def _shown(result):
    if isinstance(result, (float, _np.floating)) and _np.isfinite(result):
        _FRAGILE.append(("cell result shown with every digit", repr(float(result))))
get_ipython().events.register("post_run_cell",
                              lambda info: _shown(info.result))

_orig_set = _np.set_printoptions
def _fmt_float(x):
    p = _np.get_printoptions()["precision"]
    if _near_half(x, p):
        _FRAGILE.append(("on a rounding boundary, array print, precision %d" % p,
                         repr(float(x))))
    return _np.format_float_positional(x, precision=p, unique=False, trim="-")
def _set(*a, **k):
    _orig_set(*a, **k)
    _orig_set(formatter={"float_kind": _fmt_float})
_np.set_printoptions = _set
_np.set_printoptions()
'''

REPORT = "import json as _j; print(_j.dumps(_FRAGILE))"


def scan(path: Path) -> list[tuple[int, str, str]]:
    """Execute a copy of ``path`` instrumented; return ``(cell, how, value)``."""
    nb = nbformat.read(path, as_version=4)
    found = []
    cells = [c for c in nb.cells]
    nb.cells = [nbformat.v4.new_code_cell(INSTRUMENT)]
    for i, cell in enumerate(cells):
        nb.cells.append(cell)
        if cell.cell_type == "code":
            nb.cells.append(nbformat.v4.new_code_cell(
                f"print({i}, _j.dumps(_FRAGILE)); _FRAGILE.clear()"))
    nb.cells.insert(1, nbformat.v4.new_code_cell("import json as _j"))
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}},
                            allow_errors=True)
    client.execute()
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            text = out.get("text", "")
            head, _, rest = text.partition(" ")
            if head.isdigit() and rest.startswith("[") and rest.rstrip().endswith("]"):
                for how, value in json.loads(rest):
                    found.append((int(head), how, value))
    return found


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    bad = 0
    for path in paths:
        found = scan(path)
        for cell, how, value in found:
            print(f"{path.name} cell {cell}: {value}: {how}")
        bad += len(found)
        if not found:
            print(f"{path.name}: no printed number depends on the last bits")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
