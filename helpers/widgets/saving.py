"""Saving what an explorer shows: its picture as a PNG, its numbers as a CSV.

``Explorer.save(name)`` (``output.py``) writes ``<name>.png`` and ``<name>.csv``
with the functions here; an explorer describes its numbers as one table,
``(header, rows)``, made by :func:`grid` and widened by :func:`side_by_side`.

The CSV layouts (written with the ``csv`` module, UTF-8, so a token may hold
commas, quotes, line breaks or HTML):

* a query x key grid: the header row is the corner ``query \\ key`` and the
  key tokens, each row starts with its query token (rows = queries, columns
  = keys); one row of the pattern (a (n,) weight vector) is a grid of one
  row, labelled with its query token;
* several heads, (h, n, m): the same grid, one block of rows per head, with a
  first column ``head``;
* what the picture shows beside the grid (next-token probabilities, running
  max and sum, counts) as more columns to the right, each with its own
  header; a shorter side table leaves the cells below it empty;
* a placeholder picture (no numbers): one column ``note`` saying why.

Numbers are written as the shortest text that reads back as exactly the same
number: numpy's ``str`` of each value in its own dtype (``0.1`` for a float32
0.1, ``0.3333333333333333`` for a float64 1/3; ``nan`` and ``-inf`` as such),
integers as integers.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import NamedTuple

import numpy as np

#: The corner cell of a query x key grid.
CORNER = "query \\ key"
_SUFFIXES = (".png", ".csv")


class Saved(NamedTuple):
    """The two files :meth:`Explorer.save` wrote."""

    png: Path
    csv: Path


def cell(x) -> str:
    """One CSV cell: text as it is, an integer as an integer, a float as the
    shortest text that reads back as the same number, ``None`` as empty."""
    if x is None:
        return ""
    if isinstance(x, str):
        return x
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    if isinstance(x, np.floating):
        return str(x)
    if isinstance(x, float):
        return repr(x)
    return str(x)


def _labels(names, n):
    """``names`` as text when there are ``n`` of them, else 0 .. n-1."""
    names = list(names) if names is not None else []
    return [str(t) for t in names] if len(names) == n else [str(i) for i in range(n)]


def grid(values, rows, cols, *, corner=CORNER, heads=None):
    """A labelled grid ``(header, rows)``: ``values`` (n, m) with row labels
    ``rows`` and column labels ``cols``; (m,) is one row; (h, n, m) stacks
    the heads' grids under a first column ``head`` (labels ``heads``, else
    0 .. h-1). Labels of the wrong length are replaced by numbers."""
    A = np.asarray(values)
    if A.ndim == 1:
        A = A[None, :]
    if A.ndim == 2:
        header = [corner] + _labels(cols, A.shape[1])
        return header, [[r] + list(v) for r, v in zip(_labels(rows, A.shape[0]), A)]
    header = ["head"] + grid(A[0], rows, cols, corner=corner)[0]
    body = []
    for h, block in zip(_labels(heads, A.shape[0]), A):
        body += [[h] + r for r in grid(block, rows, cols)[1]]
    return header, body


def side_by_side(table, extra):
    """``table`` with the columns of ``extra`` (another ``(header, rows)``)
    to its right; the shorter one is padded with empty cells."""
    (h1, r1), (h2, r2) = table, extra
    n = max(len(r1), len(r2))
    pad1, pad2 = [""] * len(h1), [""] * len(h2)
    rows = [(list(r1[i]) if i < len(r1) else pad1)
            + (list(r2[i]) if i < len(r2) else pad2) for i in range(n)]
    return list(h1) + list(h2), rows


def note(text):
    """The table of a picture without numbers: one column ``note``."""
    return ["note"], [[str(text)]]


def default_table(tokens, weights, *, keys=None, query=None):
    """What most explorers show: ``weights`` as a grid, rows = the query
    ``tokens``, columns = ``keys`` (the tokens themselves when not given).
    A (n,) weight vector is the row of query ``query`` (an index into
    ``tokens``; the row is called "weight" without one)."""
    tokens = list(tokens)
    keys = tokens if keys is None else list(keys)
    W = np.asarray(weights)
    if W.ndim == 1:
        ok = isinstance(query, (int, np.integer)) and 0 <= query < len(tokens)
        return grid(W, [tokens[query] if ok else "weight"], keys)
    return grid(W, tokens, keys)


def paths(name):
    """``(name.png, name.csv)`` for a file name without (or with) its
    ``.png`` / ``.csv`` suffix; a ValueError when ``name`` cannot be one."""
    example = "e.g. save('figures/pattern')"
    if not isinstance(name, (str, os.PathLike)):
        raise ValueError(f"save needs a file name ({example}), not "
                         f"{type(name).__name__}.")
    text = os.fspath(name)
    if not isinstance(text, str):
        raise ValueError(f"save needs a file name as text ({example}), not bytes.")
    if not text.strip():
        raise ValueError(f"save needs a file name ({example}); the name is empty.")
    if text.endswith(tuple(s for s in (os.sep, os.altsep, "/") if s)):
        raise ValueError(f"'{text}' names a folder: add a file name after it, "
                         f"e.g. '{text}pattern'.")
    path = Path(text).expanduser()
    if path.is_dir():
        raise ValueError(f"'{text}' is a folder: give a file name inside it, "
                         f"e.g. '{Path(text) / 'pattern'}'.")
    if path.name.lower() in _SUFFIXES or path.name in (".", ".."):
        raise ValueError(f"'{text}' has no file name ({example}).")
    if path.suffix.lower() in _SUFFIXES:
        path = path.with_suffix("")
    out = Saved(path.with_name(path.name + ".png"), path.with_name(path.name + ".csv"))
    for p in out:
        if p.is_dir():
            raise ValueError(f"'{p}' is a folder: choose another name.")
    return out


def write(where: Saved, png: bytes, table) -> Saved:
    """Write the PNG bytes and the table ``(header, rows)``; make the folder
    first. A ValueError when a file stands where the folder should be."""
    folder = where.png.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ValueError(f"Cannot make the folder '{folder}': a file of that name "
                         "is in the way.") from None
    header, rows = table
    where.png.write_bytes(bytes(png))
    with open(where.csv, "w", newline="", encoding="utf-8",
              errors="backslashreplace") as f:
        out = csv.writer(f)
        out.writerow([cell(x) for x in header])
        out.writerows([cell(x) for x in row] for row in rows)
    return where
