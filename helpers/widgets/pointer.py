"""Point at any number: the numbers travel with the picture (issue 51).

Every time an explorer draws, :func:`panel_map` reads the panels it drew
(each :class:`~helpers.widgets.panels.Heatmap` and
:class:`~helpers.widgets.panels.Bars` among ``explorer.artists``) into a
small JSON map: for each visible panel its pixel box in the PNG (from the
axes' box in display coordinates, flipped to image rows and moved by the
margins :func:`~helpers.widgets.engine.render_png` cut off), its row and
column labels, its values as the picture's text alternatives round them
(``helpers.figures.alt.number``: 3 significant digits) and a name
("head 3"). The explorer keeps it as ``explorer.panels`` (plain Python
works as before) and sends it to its :class:`Pointer` widget (an
``anywidget``; the front end is ``pointer.js`` beside this file, no CDN).
In the browser, with no round trip to Python:

- the pointer (or a tap) over a cell shows a ``role="tooltip"`` read-out,
  "query 'bank' → key 'river': 0.574", and outlines the cell's row and
  column with their labels (black and white: 3:1 on any colour);
- each panel is one Tab stop, a ``role="grid"``: the arrow keys move cell
  by cell, Home/End to a row's ends, Ctrl+Home/End to the corners, Page
  Up/Down to the previous/next panel, each move naming the cell through
  ``aria-activedescendant``; Escape leaves;
- clicking a row's label, or Enter on a cell, picks that query: the
  ``selected`` trait comes back to Python, where :func:`pick_text` puts the
  query's three largest keys into the message line and so into the alt
  text; clicking it again or Escape clears it.

Without ``anywidget`` :func:`make_pointer` returns None and only
``explorer.panels`` and ``explorer.pick(...)`` remain.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from helpers.figures import alt as alt_text
from helpers.widgets import guess, lines
from helpers.widgets.access import widget_class

#: How many keys a picked query names in the message line.
PICK_TOP = 3


def _panels_of(art):
    """The Heatmap and Bars panels among ``art``'s attributes, in the order
    the explorer made them (lists of panels, e.g. one per head, in order)."""
    from helpers.widgets.panels import Bars, Heatmap

    found = []

    def visit(value):
        if isinstance(value, (Heatmap, Bars)) or (
                hasattr(value, "ax") and hasattr(value, "shown")):
            found.append(value)  # (or a panel of its own that says what it shows)
        elif isinstance(value, (list, tuple)):
            for v in value:
                visit(v)

    for value in vars(art).values():
        visit(value)
    return found


def _text_boxes(texts, dpi, height):
    """(x0, y0, x1, y1) in display rows from the top of every visible,
    non-empty Text artist of ``texts``."""
    from helpers.widgets.engine import place_text

    out = []
    for t in texts:
        if not t.get_visible() or not t.get_text():
            continue
        x, y = t.get_transform().transform(t.get_position())
        placed = place_text(t, dpi, x, y, height)
        if placed is None:
            continue
        mask, x0, y0 = placed
        out.append((x0, y0, x0 + mask.shape[1], y0 + mask.shape[0]))
    return out


def _labels(labels, n, other=None):
    """``n`` labels: ``labels``, or ``other`` when they are missing, or the
    positions "0", "1", ... (also for a label left blank: a long axis labels
    every few positions)."""
    labels = [str(x) for x in (labels or [])]
    if len(labels) < n:
        other = [str(x) for x in (other or [])]
        labels = other if len(other) >= n else labels
    labels = labels[:n] + [""] * (n - len(labels))
    return [x if x.strip() else str(i) for i, x in enumerate(labels)]


def _number(v) -> str:
    """A value as the read-out says it; a NaN is a masked (grey) cell."""
    return "masked" if np.isnan(v) else alt_text.number(v)


def _numbers(data) -> list:
    """:func:`_number` of every cell of a 2-D array, as rows of texts: the
    same texts, about ten times faster (a GPT picture has ~900 cells and is
    drawn on every keystroke): the common case, a finite value that is not
    whole and not about 0, is ``f"{v:.3g}"`` as in ``alt.number``."""
    out = []
    for row in np.asarray(data, dtype=float).tolist():
        texts = []
        for v in row:
            if v == v and 1e-12 <= abs(v) < 1e6 and v != int(v):
                t = f"{v:.3g}"
                if t[0] == "-" and set(t[1:]) <= {"0", "."}:
                    t = t[1:]
                texts.append(t)
            else:
                texts.append(_number(v))
        out.append(texts)
    return out


def _one_panel(panel, kind, box, dpi, height):
    """The map of one panel (see the module docstring), or None."""
    shown = getattr(panel, "shown", None)
    if shown is None:
        return None
    x0, y0, x1, y1 = box
    if kind == "grid":
        data = np.asarray(shown["data"], dtype=float)
        if data.ndim != 2 or 0 in data.shape:
            return None
        n, m = data.shape
        cols = _labels(shown["cols"], m)
        rows = _labels(shown["rows"], n, cols if n == m else None)
        row_noun = alt_text.axis_noun(shown["ylabel"]) if shown["ylabel"] else "row"
        col_noun = alt_text.axis_noun(shown["xlabel"]) if shown["xlabel"] else "column"
        if not shown["ylabel"] and not shown["rows"] and n == m:
            row_noun = "query" if col_noun == "key" else row_noun
        values = _numbers(data)
        texts_rows = getattr(panel, "row_text", [])
        texts_cols = getattr(panel, "col_text", [])
        given = (bool(shown["rows"]), bool(shown["cols"]))
    else:  # bars: one row per label, one column per series
        data = np.atleast_2d(np.asarray(shown["values"], dtype=float))
        if data.size == 0:
            return None
        m, n = data.shape
        rows = _labels(shown["labels"], n)
        cols = list(shown.get("series") or [])[:m]
        cols += [("value" if m == 1 else f"series {k + 1}")
                 for k in range(len(cols), m)]
        row_noun, col_noun = "", ""
        values = [[_number(data[k, i]) for k in range(m)] for i in range(n)]
        texts_rows, texts_cols = panel.row_text, []
        given = (True, True)
    boxes_r = _text_boxes(texts_rows, dpi, height)
    boxes_c = _text_boxes(texts_cols, dpi, height)
    return {
        "name": " ".join(str(shown.get("title") or "").split()),
        "kind": kind,
        "box": [x0, y0, x1, y1],
        # how far the row labels reach left, the column labels down
        "labels_x0": float(min([b[0] for b in boxes_r], default=x0)),
        "labels_y1": float(max([b[3] for b in boxes_c], default=y1)),
        "row_noun": row_noun,
        "col_noun": col_noun,
        "rows": rows,
        "cols": cols,
        "values": values,
        "_given": given,
    }


def panel_map(art) -> dict:
    """The map of every panel ``art`` drew last (see the module docstring):
    ``{"size": [w, h] of the PNG, "panels": [...]}``; each panel has
    ``name``, ``kind`` ("grid" or "bars"), ``box`` = [x0, y0, x1, y1] in
    PNG pixels (rows from the top), ``rows``/``cols`` (labels),
    ``values`` (rows x cols texts), ``row_noun``/``col_noun`` and the reach
    of its labels (``labels_x0``, ``labels_y1``). An empty map for a
    placeholder picture."""
    from helpers.widgets.panels import Bars

    trim = getattr(art, "trim", None)
    fig = art.fig
    if trim is None or (getattr(art, "placeholder", None) is not None
                        and art.placeholder.get_visible()):
        return {"size": [0, 0], "panels": []}
    top, left, height, size = int(trim[0]), int(trim[1]), int(trim[2]), trim[3]
    dpi = fig.dpi
    panels = []
    for panel in _panels_of(art):
        ax = panel.ax
        if not ax.get_visible():
            continue
        b = ax.bbox
        box = [b.x0 - left, height - b.y1 - top, b.x1 - left, height - b.y0 - top]
        kind = "bars" if isinstance(panel, Bars) else "grid"
        try:
            one = _one_panel(panel, kind, [round(float(v), 1) for v in box], dpi,
                             height)
        except Exception:  # a panel that cannot be read is left out
            one = None
        if one is None:
            continue
        one["labels_x0"] = round(one["labels_x0"] - left, 1)
        one["labels_y1"] = round(one["labels_y1"] - top, 1)
        if not one["name"]:
            one["name"] = f"{'grid' if kind == 'grid' else 'chart'} {len(panels) + 1}"
        panels.append(one)
    _borrow_labels(panels)
    return {"size": [int(v) for v in size], "panels": panels}


def _borrow_labels(panels):
    """A grid of heads labels the rows of its left panels and the columns
    of its bottom ones only: the others take the labels (and the axis
    nouns) of a drawn panel of the same size."""
    grids = [p for p in panels if p["kind"] == "grid"]
    for p in grids:
        rows_given, cols_given = p.pop("_given")
        p["_r"], p["_c"] = rows_given, cols_given
    for p in panels:
        p.pop("_given", None)
    for p in grids:
        for axis, noun, flag in (("rows", "row_noun", "_r"),
                                 ("cols", "col_noun", "_c")):
            if p[flag]:
                continue
            donor = next((q for q in grids if q[flag] and len(q[axis]) == len(p[axis])),
                         None)
            if donor is not None:
                p[axis] = list(donor[axis])
                if p[noun] in ("row", "column"):
                    p[noun] = donor[noun]
    for p in grids:
        del p["_r"], p["_c"]


def readout(panel: dict, row: int, col: int, named: bool = False) -> str:
    """What the pointer shows over one cell: "query 'bank' → key 'river':
    0.574"; ``named`` (a picture of several panels): "head 3, 'the' ...".
    The front end builds the same text (``pointer.js``)."""
    value = panel["values"][row][col]
    r, c = panel["rows"][row], panel["cols"][col]
    head = f"{panel['name']}, " if named and panel.get("name") else ""
    if panel["kind"] == "bars":
        one = len(panel["cols"]) == 1
        return head + (f"'{r}': {value}" if one else f"'{r}', {c}: {value}")
    return f"{head}{panel['row_noun']} '{r}' → {panel['col_noun']} '{c}': {value}"


def pick_text(panel: dict, row: int, top: int = PICK_TOP, named=False) -> str:
    """The message for a picked query: "Picked 'bank': it looks most at
    'river' 0.574, 'the' 0.2, 'bank' 0.11." (its ``top`` largest keys;
    ``named``: the panel's name too, "Picked 'it' in head 2: ...")."""
    texts = panel["values"][row]
    vals = []
    for j, t in enumerate(texts):
        try:
            v = float(t)
        except ValueError:
            v = float("-inf")
        vals.append((v, j))
    order = sorted((p for p in vals if np.isfinite(p[0])), key=lambda p: (-p[0], p[1]))
    name = panel["rows"][row]
    if not order:
        return f"Picked '{name}': no weight to show."
    parts = [f"'{panel['cols'][j]}' {texts[j]}" for _, j in order[:top]]
    where = f" in {panel['name']}" if named and panel.get("name") else ""
    return f"Picked '{name}'{where}: it looks most at " + ", ".join(parts) + "."


# --------------------------------------------------------------------------
# the explorer's side (called from small hooks in base.py)
# --------------------------------------------------------------------------
def after_draw(explorer) -> None:
    """Hook after every picture: the map to ``explorer.panels`` and the
    front end; a picked query kept (if it is still there) in the message."""
    try:
        explorer.panels = panel_map(explorer.artists)
    except Exception as exc:  # never let the map stop a picture
        explorer.last_error = exc
        explorer.panels = {"size": [0, 0], "panels": []}
    pick = getattr(explorer, "picked", None)
    if pick is not None and not _valid(explorer.panels, pick):
        explorer.picked = None
    _pick_message(explorer)
    w = getattr(explorer, "pointer", None)
    if w is not None:
        w.panels = explorer.panels
        w.selected = list(explorer.picked or [])
    try:
        guess.after_draw(explorer)
        lines.fix_alt(explorer)
    except Exception as exc:  # never let the guess stop a picture
        explorer.last_error = exc


def _valid(panels, pick):
    p, r = pick
    ps = panels.get("panels", [])
    return 0 <= p < len(ps) and ps[p]["kind"] == "grid" and 0 <= r < len(ps[p]["rows"])


def _pick_message(explorer):
    """The message line: the explorer's own message, then the pick's."""
    said = getattr(explorer, "_pick_said", None)  # (base, what we set)
    base = said[0] if said and explorer.message == said[1] else explorer.message
    pick = getattr(explorer, "picked", None)
    if pick is None:
        text = base
    else:
        panels = explorer.panels["panels"]
        grids = sum(p["kind"] == "grid" for p in panels)
        said = pick_text(panels[pick[0]], pick[1], named=grids > 1)
        text = f"{base} {said}".strip()
    explorer._pick_said = None if pick is None else (base, text)
    if text != explorer.message:
        explorer._set_message(text)
        if explorer._state is not None:
            explorer._set_alt(explorer._state)
    lines.fix_alt(explorer)


def pick(explorer, panel=None, row=None) -> str:
    """Pick query ``row`` of panel ``panel`` (None clears the pick): the
    message line then names its three largest keys. Returns the message.
    Bad numbers clear the pick; nothing raises."""
    try:
        p, r = int(panel), int(row)
        explorer.picked = (p, r) if _valid(explorer.panels, (p, r)) else None
    except (TypeError, ValueError):  # None (clear) or not a number
        explorer.picked = None
    try:
        _pick_message(explorer)
    except Exception as exc:  # a widget callback never raises
        explorer.last_error = exc
    return explorer.message


def _on_selected(explorer_ref):
    def handler(change):
        explorer = explorer_ref()
        if explorer is None:
            return
        new = list(change.get("new") or [])
        if len(new) == 2:
            pick(explorer, new[0], new[1])
        else:
            pick(explorer)
    return handler


def _on_mark(explorer_ref):
    def handler(change):
        explorer = explorer_ref()
        new = list(change.get("new") or [])
        if explorer is not None and len(new) >= 3:
            guess.guess(explorer, *new[:3])
    return handler


def attach(explorer) -> None:
    """Give ``explorer`` its map (``.panels``), its pick (``.picked``) and,
    with anywidget, a :class:`Pointer` widget (``.pointer``, or None)."""
    import weakref

    explorer.panels = {"size": [0, 0], "panels": []}
    explorer.picked = None
    explorer._pick_said = None
    guess.attach(explorer)
    explorer.pointer = make_pointer()
    if explorer.pointer is not None:
        explorer.pointer.layout.display = "none"
        explorer.pointer.observe(_on_selected(weakref.ref(explorer)),
                                 names="selected")
        explorer.pointer.observe(_on_mark(weakref.ref(explorer)), names="mark")


# --------------------------------------------------------------------------
# the widget
# --------------------------------------------------------------------------
_ESM_PATH = Path(__file__).with_name("pointer.js")


def make_pointer():
    """A new :class:`Pointer` widget, or None without anywidget."""
    cls = widget_class("Pointer", _build_pointer)
    return None if cls is None else cls()


def _build_pointer(anywidget, traitlets):
    class Pointer(anywidget.AnyWidget):
        """The picture's map (read-outs, keys, picking) in the browser."""

        _esm = _ESM_PATH.read_text(encoding="utf-8")
        panels = traitlets.Dict({}).tag(sync=True)
        #: [panel, row] of the picked query, or [] (both ways)
        selected = traitlets.List([]).tag(sync=True)
        #: the guess (guess.py): on, revealed, the marks [panel, row, col
        #: (, "right"/"wrong" once revealed)] ...
        guessing = traitlets.Bool(False).tag(sync=True)
        revealed = traitlets.Bool(False).tag(sync=True)
        guesses = traitlets.List([]).tag(sync=True)
        #: ... and a mark the front end sends: [panel, row, col, serial]
        mark = traitlets.List([]).tag(sync=True)
        #: the grids drawn as lines (the head view, lines.py)
        lines = traitlets.Bool(False).tag(sync=True)

    Pointer.__module__ = __name__
    return Pointer
