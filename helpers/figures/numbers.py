"""A figure's grids as numbers: an HTML table after the picture.

Every figure that draws a grid of numbers (an attention pattern, a score
grid, a mask, a state matrix, a circuit) is followed in the notebook by its
numbers as a real table: ``<th>`` headers, row and column labels, the
figure's own rounding, inside a collapsed ``<details>`` so the page stays
short. It is plain HTML (no script), so it reads on GitHub, in an untrusted
notebook and with a screen reader, which can move cell by cell and hear each
cell's row and column.

The tables are made in one place, from the arrays the figure drew:
:func:`html` reads every 2-D image of every panel (``imshow``) with the
labels ``_token_ticks`` stored on the axes. A figure function that knows
better says so on the axes: ``ax._attn_table = Grid(...)`` (what to show
instead), ``ax._attn_table = False`` (nothing: e.g. a photo),
``ax._attn_table_rows = [...]`` (the rows the lesson is about, for a big
grid). A grid of more than ``MAX_SIDE`` rows shows those rows (else
``alt``'s evenly spread sample) and says how to get every number:
:func:`save_csv`.

Numbers are written as the figure annotates its cells: two decimals, three
significant digits from 100 up. Each value is first rounded to 9 digits, so a
value that differs between CPUs in its last bits (1/8 computed as
0.12499999999999999) prints the same everywhere; nbval compares the table
like the text alternative.
"""

from __future__ import annotations

import csv
from html import escape as _escape
from dataclasses import dataclass

import numpy as np

from helpers.figures import alt

MAX_SIDE = 20  # a grid with more rows than this shows only some of them
MAX_COLS = 40  # ... and with more columns than this, an even sample of them
SUMMARY = "The numbers of this picture, as a table"


@dataclass
class Grid:
    """One grid to show as a table: ``values`` (n_rows, n_cols), its labels
    (None: the positions 0, 1, ...), the axis names, a caption, the rows the
    lesson is about (for a big grid) and ``big`` (True: three significant
    digits for every number, as the figure writes values from 100 up)."""

    values: np.ndarray
    rows: list | None = None
    cols: list | None = None
    row_name: str = "row"
    col_name: str = "column"
    caption: str = ""
    keep_rows: list | None = None
    big: bool | None = None


def cell_text(value, big: bool = False) -> str:
    """One number as the figure writes it: "0.12" ("{:.2f}"), "1.23e+03"
    from 100 up ("{:.3g}"), "−∞", "masked" for NaN; never "-0.00"; stable
    across CPUs (rounded to 9 digits first)."""
    if np.ma.is_masked(value):
        return "masked"
    value = float(value)
    if np.isnan(value):
        return "masked"
    if np.isinf(value):
        return "−∞" if value < 0 else "∞"
    value = float(f"{value:.9g}")
    text = f"{value:.3g}" if big else f"{value:.2f}"
    if text.startswith("-") and not any(c in "123456789" for c in text):
        text = text[1:]
    return text


def grids_of(fig) -> list[Grid]:
    """The grids a figure draws, panel by panel: what the figure function
    set (``fig._attn_tables`` or ``ax._attn_table``), else every 2-D image
    of a visible panel with the labels on its axes (colour bars and pictures
    of pixels left out)."""
    own = getattr(fig, "_attn_tables", None)
    if own is not None:
        return list(own)
    found = []
    for ax in fig.axes:
        if not ax.get_visible() or ax.get_label() == "<colorbar>":
            continue
        chosen = getattr(ax, "_attn_table", None)
        if chosen is False:
            continue
        if isinstance(chosen, Grid):
            found.append(chosen)
            continue
        for image in ax.get_images():
            array = image.get_array()
            if array is None or np.ndim(array) != 2 or not image.get_visible():
                continue
            values = np.ma.masked_invalid(np.ma.asarray(array, dtype=float))
            n, m = values.shape
            found.append(Grid(values, alt._tick_labels(ax, "y", n),
                              alt._tick_labels(ax, "x", m),
                              alt.axis_noun(ax.get_ylabel() or "row"),
                              alt.axis_noun(ax.get_xlabel() or "column"),
                              alt.plain(ax.get_title()),
                              getattr(ax, "_attn_table_rows", None)))
            break
    return found


def _shown(n: int, keep, limit: int) -> list[int]:
    if n <= limit:
        return list(range(n))
    if keep:
        return sorted({int(i) for i in keep if 0 <= int(i) < n})
    return alt.rows_to_tell(n) if limit == MAX_SIDE else sorted(
        {int(round(x)) for x in np.linspace(0, n - 1, MAX_SIDE)})


def _name(labels, i: int) -> str:
    if labels is not None and 0 <= i < len(labels) and str(labels[i]).strip():
        text = alt.spoken(labels[i])
        same = [k for k, other in enumerate(labels) if other == labels[i]]
        return text + (f" ({alt.ordinal(same.index(i) + 1)})"
                       if len(same) > 1 else "")
    return str(i)


def table(grid: Grid) -> str:
    """One grid as ``<table>``: a caption, a header row of column labels
    (``<th scope="col">``), each row led by its label (``<th scope="row">``);
    labels escaped. A big grid shows some rows (and columns) and says so."""
    values = np.ma.masked_invalid(np.ma.asarray(grid.values, dtype=float))
    if values.ndim != 2 or values.size == 0:
        return ""
    n, m = values.shape
    finite = values.compressed()
    big = grid.big if grid.big is not None else bool(
        finite.size and np.max(np.abs(finite)) >= 100)
    rows, cols = _shown(n, grid.keep_rows, MAX_SIDE), _shown(m, None, MAX_COLS)
    esc = _escape
    corner = f"{grid.row_name} \\ {grid.col_name}"
    head = "".join(f'<th scope="col">{esc(_name(grid.cols, j))}</th>' for j in cols)
    body = "".join(
        f'<tr><th scope="row">{esc(_name(grid.rows, i))}</th>'
        + "".join(f"<td>{cell_text(values[i, j], big)}</td>" for j in cols)
        + "</tr>" for i in rows)
    caption = grid.caption or f"{n} {grid.row_name} rows × {m} {grid.col_name} columns"
    text = (f"<table><caption>{esc(caption)}</caption><thead><tr>"
            f'<th scope="col">{esc(corner)}</th>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")
    if len(rows) < n or len(cols) < m:
        text += (f"<p>Shown: {len(rows)} of {n} rows"
                 + (f" and {len(cols)} of {m} columns" if len(cols) < m else "")
                 + ". Every number: <code>helpers.figures.numbers.save_csv("
                 "figure, &quot;grid.csv&quot;)</code> writes this grid as a CSV "
                 "file (when a cell ends with the figure, the next cell has it "
                 "as <code>_</code>).</p>")
    return text


def html(fig) -> str:
    """Every grid of ``fig`` as a table, inside one collapsed ``<details>``
    ("" when the figure draws no grid). Never raises: a figure it cannot
    read gets no table."""
    try:
        tables = [t for t in (table(g) for g in grids_of(fig)) if t]
    except Exception:  # the picture and its alt matter more than the table
        return ""
    if not tables:
        return ""
    return (f"<details><summary>{SUMMARY}</summary>" + "".join(tables)
            + "</details>")


def from_rows(header, rows, caption: str = "") -> str:
    """An explorer's saved table (``header``, ``rows``: what its ``save``
    writes as CSV) as the same kind of ``<details>`` table: the first column
    labels the rows, numbers rounded like a figure's cells, the first
    ``MAX_SIDE`` rows shown."""
    if not header or not rows:
        return ""
    esc = _escape
    finite = [abs(float(v)) for r in rows for v in r[1:]
              if isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
              and np.isfinite(float(v))]
    big = bool(finite) and max(finite) >= 100

    def cell(v):
        if isinstance(v, (float, np.floating)):
            return cell_text(v, big)
        return esc(alt.spoken(v)) if isinstance(v, str) else esc(str(v))

    shown = rows[:MAX_SIDE]
    names = [str(h) for h in header]
    head = "".join(f'<th scope="col">{esc(_name(names, j))}</th>'
                   for j in range(len(names)))
    body = "".join(f'<tr><th scope="row">{cell(r[0])}</th>'
                   + "".join(f"<td>{cell(v)}</td>" for v in r[1:]) + "</tr>"
                   for r in shown)
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    text = f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    if len(shown) < len(rows):
        text += (f"<p>Shown: the first {len(shown)} of {len(rows)} rows. Every "
                 "number: the explorer's <code>save(&quot;name&quot;)</code> "
                 "writes them as a CSV file.</p>")
    return f"<details><summary>{SUMMARY}</summary>{text}</details>"


def save_csv(fig, path) -> str:
    """Write every grid of ``fig`` (every row and column, full precision)
    to the CSV file ``path``: for each grid a line with its caption, a
    header of column labels, then one line per row led by its label.
    Returns the path."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        for g in grids_of(fig):
            values = np.ma.masked_invalid(np.ma.asarray(g.values, dtype=float))
            n, m = values.shape
            out.writerow([g.caption or "grid"])
            out.writerow([f"{g.row_name} \\ {g.col_name}"]
                         + [_name(g.cols, j) for j in range(m)])
            for i in range(n):
                out.writerow([_name(g.rows, i)] + [
                    "" if np.ma.is_masked(values[i, j]) else repr(float(values[i, j]))
                    for j in range(m)])
    return str(path)


def explorer_html(explorer) -> str:
    """What an explorer shows, as numbers: the table its ``save`` writes
    (``_csv_table()``), as :func:`from_rows`; "" for a placeholder picture
    or an explorer without one. Never raises."""
    try:
        state = getattr(explorer, "_state", None)
        if state is None or getattr(state, "empty", False):
            return ""
        header, rows = explorer._csv_table()
        if list(header) == ["note"]:
            return ""
        return from_rows(header, rows)
    except Exception:
        return ""
