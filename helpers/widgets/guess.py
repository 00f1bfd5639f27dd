"""Guess first, then reveal (issue 51): the learner commits to a prediction
before the picture shows the answer.

An explorer whose class sets ``guess_first = True`` (lessons 04, 07, 11 and 13) gets a
row of two controls, "Guess first" (a toggle) and "Reveal". While guessing,
the front end (``pointer.js``) covers each grid's colours; the learner marks,
for the query rows they choose, the key they expect that query to look at
most (a click on the cell, or Enter on it when reading the grid by keys).
Reveal uncovers the pattern over the marks, and :func:`score` says how many
rows were right: "5 of 8 rows right; 'it' looked at 'animal' (0.61), you
chose 'street'." The message line, the alt text and the CSV of ``save``
carry the guess and the score. Changing the input clears the guess; an
empty guess reveals with a message. ``explorer.guess(...)`` and
``explorer.reveal()`` do the same from Python.

:func:`score` is pure (numbers in, numbers and words out), tested without
a browser in ``tests/test_guess.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from helpers.figures import alt as alt_text
from helpers.widgets import lines

#: A chosen key is right when its weight is the row's largest, up to this
#: relative difference (two keys that read the same at 3 digits tie).
TIE = 5e-3


class Mark(NamedTuple):
    """One guessed row: ``panel``, ``row``, the chosen ``col``, the row's
    strongest ``best`` and both weights, and whether the guess was right."""

    panel: int
    row: int
    col: int
    best: int
    chosen_weight: float
    best_weight: float
    right: bool


class Score(NamedTuple):
    marks: list
    right: int
    total: int
    text: str


def _verdict(values, panel, row, col) -> Mark | None:
    w = np.asarray(values, dtype=float)
    if not (0 <= row < w.shape[0] and 0 <= col < w.shape[1]):
        return None
    line = np.where(np.isfinite(w[row]), w[row], -np.inf)
    if not np.isfinite(line).any():
        return None
    best = int(np.argmax(line))
    top = line[best]
    chosen = line[col]
    right = bool(np.isfinite(chosen) and chosen >= top - TIE * max(abs(top), 1e-12))
    return Mark(panel, row, col, best, float(chosen), float(top), right)


def score(grids, guesses) -> Score:
    """Score ``guesses`` ([(panel, row, col), ...], one per row: the last
    mark of a row counts) against ``grids``: a list of dicts with
    ``values`` (n, m) numbers (rows = queries), ``rows`` and ``cols``
    labels and a ``name`` ("head 2"; said only when there are several).
    Marks outside a grid are left out. Returns the marks, the number right,
    the number guessed and one sentence:

    "2 of 3 rows right; 'it' looked at 'animal' (0.61), you chose 'street'."
    """
    last = {}
    for g in guesses or ():
        try:
            p, r, c = (int(x) for x in list(g)[:3])
        except (TypeError, ValueError):
            continue
        if 0 <= p < len(grids):
            last[(p, r)] = c
    marks = []
    for (p, r), c in sorted(last.items()):
        m = _verdict(grids[p]["values"], p, r, c)
        if m is not None:
            marks.append(m)
    total, right = len(marks), sum(m.right for m in marks)
    if not total:
        return Score([], 0, 0, "No guess was made, so nothing is scored: here is "
                              "the real pattern. Next time mark a key first.")
    several = len({m.panel for m in marks}) > 1 or len(grids) > 1
    row_word = "row" if total == 1 else "rows"
    text = f"{right} of {total} {row_word} right"
    wrong = [m for m in marks if not m.right]
    if wrong:
        m = wrong[0]
        g = grids[m.panel]
        where = f" in {g.get('name')}" if several and g.get("name") else ""
        text += (f"; '{g['rows'][m.row]}'{where} looked at '{g['cols'][m.best]}' "
                 f"({alt_text.number(m.best_weight)}), you chose "
                 f"'{g['cols'][m.col]}' ({alt_text.number(m.chosen_weight)})")
        if len(wrong) > 1:
            text += f"; {len(wrong) - 1} more missed"
    elif total:
        text += ": each one is the key its query looks at most"
    return Score(marks, right, total, text + ".")


def csv_rows(grids, sc: Score):
    """The guess as a side table for ``save``: (header, rows)."""
    header = ["guess: panel", "guess: query", "guess: chosen key",
              "guess: strongest key", "guess: right", "guess: score"]
    rows = []
    for k, m in enumerate(sc.marks):
        g = grids[m.panel]
        rows.append([g.get("name", ""), g["rows"][m.row], g["cols"][m.col],
                     g["cols"][m.best], "yes" if m.right else "no",
                     sc.text if k == 0 else ""])
    if not rows:
        rows.append(["", "", "", "", "", sc.text])
    return header, rows


# --------------------------------------------------------------------------
# the explorer's side (the controls and small hooks)
# --------------------------------------------------------------------------
HIDDEN = ("Guess first: the weights are hidden. For the query rows you "
          "choose, click the key you expect that query to look at most (or "
          "Tab to the picture, move with the arrow keys and press Enter), "
          "then press Reveal.")


def row(explorer) -> tuple:
    """``(HBox("Guess first" | "Reveal" | "Lines"),)`` for an explorer with
    ``guess_first`` (or ``head_view``: "Lines", lines.py), else ``()``."""
    import ipywidgets as widgets

    more = lines.buttons(explorer)
    if not getattr(explorer, "guess_first", False):
        return (widgets.HBox(more),) if more else ()

    explorer.guess_toggle = widgets.ToggleButton(
        value=False, description="Guess first",
        tooltip="Hide the weights and guess where each query looks")
    explorer.reveal_button = widgets.Button(
        description="Reveal", tooltip="Show the weights and score your guess",
        disabled=True)
    for w in (explorer.guess_toggle, explorer.reveal_button):
        w.add_class("attn-guess")
        w.layout.width = "auto"
    explorer.guess_toggle.observe(lambda ch: _toggle(explorer, ch["new"]),
                                  names="value")
    explorer.reveal_button.on_click(lambda _b: reveal(explorer))
    return (widgets.HBox([explorer.guess_toggle, explorer.reveal_button, *more]),)


def with_row(controls: tuple, row: tuple) -> tuple:
    """``controls`` with the Guess/Reveal/Lines ``row`` (from :func:`row`)
    joined to their last row when that is a row of inputs or a button (one
    row less above the picture: more room for it on a short screen), else
    below them."""
    import ipywidgets as widgets

    if not row or not controls:
        return controls + row
    last = controls[-1]
    if isinstance(last, widgets.HBox):
        return controls[:-1] + (widgets.HBox([*last.children, *row[0].children]),)
    if isinstance(last, widgets.Button):
        return controls[:-1] + (widgets.HBox([last, *row[0].children]),)
    return controls + row


def _grids(explorer):
    """The grids of the picture (the pointer's map) as numbers."""
    out = []
    for p in explorer.panels.get("panels", []):
        if p["kind"] != "grid":
            out.append({"values": np.zeros((0, 0)), "rows": [], "cols": [],
                        "name": p["name"]})
            continue
        vals = np.full((len(p["rows"]), len(p["cols"])), np.nan)
        for i, row in enumerate(p["values"]):
            for j, t in enumerate(row):
                try:
                    vals[i, j] = float(t)
                except ValueError:
                    pass
        out.append({"values": vals, "rows": p["rows"], "cols": p["cols"],
                    "name": p["name"]})
    return out


def _signature(explorer):
    return tuple((p["name"], tuple(p["rows"]), tuple(p["cols"]))
                 for p in explorer.panels.get("panels", []) if p["kind"] == "grid")


def _send(explorer):
    w = getattr(explorer, "pointer", None)
    if w is None:
        return
    w.guessing = bool(explorer.guessing)
    w.revealed = bool(explorer.revealed)
    marks = [list(g) for g in explorer.guesses]
    if explorer.revealed and explorer.guess_score is not None:
        verdict = {(m.panel, m.row): m.right for m in explorer.guess_score.marks}
        marks = [list(g) + ["right" if verdict.get((g[0], g[1])) else "wrong"]
                 for g in explorer.guesses]
    w.guesses = marks


def _status(explorer) -> str:
    """Where the guess stands, in one or two sentences ("" when off)."""
    if not explorer.guessing:
        return ""
    if explorer.revealed and explorer.guess_score is not None:
        return explorer.guess_score.text
    if not explorer.guesses:
        return HIDDEN
    grids = _grids(explorer)
    try:
        named = ", ".join(f"'{grids[q]['rows'][i]}' → '{grids[q]['cols'][j]}'"
                          for q, i, j in explorer.guesses[-3:])
    except (IndexError, KeyError):
        named = f"{len(explorer.guesses)} rows"
    more = (f" ({len(explorer.guesses)} rows marked)"
            if len(explorer.guesses) > 3 else "")
    return f"Your guess: {named}{more}. Mark more rows or press Reveal."


def _say(explorer):
    """The message line: the explorer's own message, then the guess's."""
    said = explorer._guess_said  # (base, what we set)
    base = said[0] if said and explorer.message == said[1] else explorer.message
    status = _status(explorer)
    text = f"{base} {status}".strip()
    explorer._guess_said = (base, text) if status else None
    if text != explorer.message:
        explorer._set_message(text)
        if explorer._state is not None:
            explorer._set_alt(explorer._state)
    lines.fix_alt(explorer)  # (hidden weights: the words hide them too)


def _toggle(explorer, on):
    try:
        explorer.guessing = bool(on)
        explorer.revealed = False
        explorer.guesses = []
        explorer.guess_score = None
        if explorer.reveal_button is not None:
            explorer.reveal_button.disabled = not on
        _send(explorer)
        _say(explorer)
    except Exception as exc:  # a widget callback never raises
        explorer.last_error = exc


def guess(explorer, panel, row, col) -> str:
    """Mark (from Python, or from a click) that query ``row`` of grid
    ``panel`` looks most at key ``col``; the same mark again removes it.
    Starts the guess mode when it is off. Returns the message."""
    try:
        if not explorer.guessing:
            if getattr(explorer, "guess_toggle", None) is not None:
                explorer.guess_toggle.value = True
            else:
                _toggle(explorer, True)
        if explorer.revealed:  # a new guess after a reveal starts again
            explorer.revealed, explorer.guesses = False, []
        p, r, c = int(panel), int(row), int(col)
        grids = _grids(explorer)
        g = grids[p] if 0 <= p < len(grids) else None
        if g is None or not (0 <= r < len(g["rows"]) and 0 <= c < len(g["cols"])):
            return explorer.message
        kept = [x for x in explorer.guesses if (x[0], x[1]) != (p, r)]
        if [p, r, c] not in [list(x) for x in explorer.guesses]:
            kept.append((p, r, c))
        explorer.guesses = kept
        _send(explorer)
        _say(explorer)
    except Exception as exc:  # a widget callback never raises
        explorer.last_error = exc
    return explorer.message


def reveal(explorer) -> str:
    """Show the weights over the marks and score the guess (the message
    line, the alt text and the CSV carry it). Returns the message."""
    try:
        sc = score(_grids(explorer), explorer.guesses)
        explorer.guess_score = sc
        explorer.revealed = True
        _send(explorer)
        _say(explorer)
    except Exception as exc:  # a widget callback never raises
        explorer.last_error = exc
    return explorer.message


def attach(explorer) -> None:
    """The guess's state on ``explorer`` (before its controls are made)."""
    explorer.guessing = False
    explorer.revealed = False
    explorer.guesses = []
    explorer.guess_score = None
    explorer.guess_toggle = explorer.reveal_button = None
    explorer._guess_said = None
    explorer._guess_sig = None


def after_draw(explorer) -> None:
    """After every picture: an input change (other tokens, another head)
    clears the guess; the message keeps saying where the guess stands."""
    if not getattr(explorer, "guess_first", False):
        return
    sig = _signature(explorer)
    if sig != explorer._guess_sig:
        if explorer._guess_sig is not None and explorer.guesses:
            explorer.guesses, explorer.revealed = [], False
            explorer.guess_score = None
        explorer._guess_sig = sig
    _send(explorer)
    _say(explorer)


def side_table(explorer):
    """The guess for ``save``'s CSV, or None when there is none (before
    Reveal it holds the chosen keys only)."""
    if not getattr(explorer, "guessing", False):
        return None
    grids = _grids(explorer)
    if explorer.revealed and explorer.guess_score is not None:
        return csv_rows(grids, explorer.guess_score)
    marks = score(grids, explorer.guesses).marks
    header, rows = csv_rows(grids, Score(marks, 0, len(marks), ""))
    for row in rows:
        row[3:] = ["", "", "not revealed yet"]
    return header, rows


def with_table(explorer, table):
    """``save``'s table with the guess beside it (when there is one)."""
    from helpers.widgets import saving

    beside = side_table(explorer)
    return table if beside is None else saving.side_by_side(table, beside)
