"""The explorers' kit: everything a ``lessonNN.py`` module needs, by its public name.

An explorer module imports its machinery from here (and its panels from
``panels.py``, its limits and colours from ``policy.py``)::

    from helpers.widgets.kit import (SentenceExplorer, State, empty_state,
                                     toy_sentence, project, read_sentence,
                                     toy_head)

    class _PatternExplorer(SentenceExplorer):
        kind = "pattern_explorer"           # repr, alt text, the CSV's name
        figsize = (7.0, 5.8)                # inches at 80 dpi
        shows = {"scores": None}            # every value shown beyond .weights

        def __init__(self, sentence, temperature):
            self.temperature = widgets.FloatSlider(value=temperature, ...)
            super().__init__(sentence, below=[self.temperature])

        def _build(self, art):              # the panels, made once
            art.heat = Heatmap(art, [0.2, 0.25, 0.6, 0.63])

        def _compute(self):                 # inputs -> State, no drawing
            r = read_sentence(self.sentence.value)
            if r.empty:
                return empty_state(r)
            Q, K, _ = project(toy_head("adjective_head"), r.E)
            ...
            return State(tokens=r.tokens, labels=r.labels, weights=A,
                         notes=r.notes, scores=S)

        def _paint(self, art, s):           # State -> panels; returns a key
            return art.heat.update(s.weights, s.labels, s.labels)

The rules an explorer follows (the base class checks what it can):

* **Inputs** are the widgets of its controls that hold a ``value``; each is
  made as an attribute *before* ``super().__init__`` and is then observed,
  and carries the DOM classes ``attn-input`` and ``attn-<attribute name>``
  (``self.temperature`` -> ``attn-temperature``; ``_`` becomes ``-``). The
  browser tests find inputs by these classes: renaming an attribute renames
  its class.
* **``.weights``** is what the picture shows, rows = queries, columns =
  keys; ``save`` writes it and the default text alternative describes it.
  It is an attention pattern (each row sums to 1, the bad-input test checks
  it) unless the class says ``weights_are_pattern = False`` (scores,
  embeddings).
* **``shows``** declares each value shown beyond ``.tokens`` and
  ``.weights``; ``_compute`` returns a :class:`State` with exactly those
  fields (``base.py`` says more). ``State`` fields starting with ``_`` are
  for the picture only.
* **The methods it may give** (the underscore marks them as called by the
  base class, not by a learner): ``_build``, ``_compute``, ``_paint``
  (required); ``_describe(state)`` (the picture in words; the default reads
  ``.weights``), ``_picture_name()``, ``_csv_table()`` (more numbers for
  ``save``), ``_paint_all`` (rare). ``query_index()`` and ``key_tokens()``
  say which query a (n,) ``.weights`` row belongs to and what the key
  tokens are (``save`` labels the CSV with them); ``kind``, ``figsize``,
  ``weights_are_pattern``, ``token_noun`` and ``unavailable`` are class
  attributes.
* **A token picker** (``token_label = "Query token:"`` on a
  :class:`SentenceExplorer`): call ``t = self.pick(r.tokens)`` in
  ``_compute``; the picked token is the query ``save`` writes, and an empty
  state clears the picker by itself.

What comes free from the base class, for every explorer: the keyboard
(every key pressed inside the explorer stays there, Tab leaves; sliders
named), the picture's text alternative (``.alt``, from ``_describe``), the
message line as a live region, bad-input safety (an exception in
``_compute`` or ``_paint`` becomes a message, the last picture stays),
one picture per burst of updates, the screen fitting (``screen.py``) and
projection mode, ``save(name)`` (a PNG and a CSV, ``output.py``), the
display bundle of a stored notebook, and, with its row in
``helpers.widgets.EXPLORERS``, its playground page and its tests.
"""

from __future__ import annotations

import math

from helpers.widgets.base import (
    Explorer,
    SentenceExplorer,
    State,
    empty_state,
    load_or_explain,
    mime_bundle,
)
from helpers.widgets.controls import (
    choose_token,
    fit_dropdown,
    sentence_box,
    text_box,
    text_width,
)
from helpers.widgets.engine import display_label, has_glyph
from helpers.widgets.reading import list_words, read_sentence, token_labels
from helpers.widgets.toy import toy_sentence, project, toy_head, value_up


def clamp_int(value, low, high, default):
    """``value`` as an int in [low, high]; ``default`` when it is not a
    number (a bad argument to an explorer's factory, a stale slider)."""
    try:
        v = int(value)
    except (TypeError, ValueError, OverflowError):
        return default
    return min(max(v, low), high)


def clamp_float(value, low, high, default=1.0):
    """A slider's value as a float in [low, high] (``default`` if it is not
    a finite number)."""
    v = float(value) if isinstance(value, (int, float)) else math.nan
    return min(max(v, low), high) if math.isfinite(v) else default


def paint_head_grid(grid, weights, labels, shape, **scale):
    """Draw every head's pattern into ``grid``, the heatmaps of a rows x
    cols grid (``shape``), row by row: ``weights`` (n_heads, n, n), rows =
    queries, columns = keys; the token ``labels`` on the rows of the first
    column and on the columns of the last row only; each titled "head k".
    ``scale``: the colour scale (e.g. ``policy.WEIGHT_SCALE``)."""
    rows, cols = shape
    for k, g in enumerate(grid):
        first_col, last_row = k % cols == 0, k >= (rows - 1) * cols
        g.update(weights[k], labels if first_col else [],
                 labels if last_row else [], title=f"head {k}",
                 xlabel="key" if last_row else "",
                 ylabel="query" if first_col else "", **scale)


__all__ = [
    # the explorer and its state (base.py, screen.py, output.py)
    "Explorer", "SentenceExplorer", "State", "empty_state",
    # reading what the learner typed (reading.py)
    "read_sentence", "token_labels", "list_words", "display_label", "has_glyph",
    # the lessons' toy world (toy.py)
    "toy_sentence", "toy_head", "project", "value_up",
    # controls (controls.py)
    "sentence_box", "text_box", "fit_dropdown", "text_width", "choose_token",
    # models and display (output.py)
    "load_or_explain", "mime_bundle",
    # small shared helpers
    "clamp_int", "clamp_float", "paint_head_grid",
]
