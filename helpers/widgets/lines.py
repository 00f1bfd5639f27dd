"""The head view of lines (issue 51): the attention weights as bertviz and
The Illustrated Transformer draw them.

An explorer whose class sets ``head_view = True`` (lessons 04 and 11) gets
a "Lines" toggle beside "Guess first". With it on, the front end
(``pointer.js``) draws each grid of the picture as two columns of the same
tokens, queries on the left and keys on the right, joined by one line per
weight, as thick and as dark as the weight: row i of the grid is the fan of
lines leaving token i on the left. Picking a token (a click on it, or Enter)
leaves its lines alone. The lines are drawn from the same map of numbers as
the read-outs, so the keys, the read-outs and the text alternative work as
for the grid; the alt text says that the picture shows lines.
"""

from __future__ import annotations

#: How the text alternative starts while the lines are shown.
PREFIX = ("Drawn as lines (the head view): each query on the left is joined "
          "to every key on the right by a line as thick and as dark as its "
          "weight, the same numbers as the grid. ")


def buttons(explorer) -> list:
    """``[ToggleButton("Lines")]`` for an explorer with ``head_view``, else
    ``[]``; sets ``explorer.lines`` (False) and ``explorer.lines_toggle``."""
    explorer.lines = False
    explorer.lines_toggle = None
    if not getattr(explorer, "head_view", False):
        return []
    import ipywidgets as widgets

    toggle = widgets.ToggleButton(
        value=False, description="Lines",
        tooltip="Show the weights as lines between two columns of tokens "
                "(the head view)")
    toggle.add_class("attn-lines")
    toggle.layout.width = "auto"
    toggle.observe(lambda ch: show(explorer, ch["new"]), names="value")
    explorer.lines_toggle = toggle
    return [toggle]


def show(explorer, on: bool) -> None:
    """Lines on or off (the toggle calls it; so may a test)."""
    try:
        explorer.lines = bool(on)
        if getattr(explorer, "pointer", None) is not None:
            explorer.pointer.lines = explorer.lines
        if explorer._state is not None:
            explorer._set_alt(explorer._state)
        fix_alt(explorer)
    except Exception as exc:  # a widget callback never raises
        explorer.last_error = exc


def fix_alt(explorer) -> None:
    """The text alternative as the picture is shown: while a guess hides the
    weights (guess.py) it gives none away; while the lines show it starts
    with :data:`PREFIX`."""
    alt = explorer.alt
    if getattr(explorer, "guessing", False) and not getattr(explorer, "revealed",
                                                            False):
        alt = (f"{explorer._picture_name()}: the weights are hidden until you "
               f"press Reveal. {explorer.message}")
    if getattr(explorer, "lines", False) and not alt.startswith(PREFIX):
        alt = PREFIX + alt
    if alt != explorer.alt:
        explorer.alt = alt
        if explorer.access is not None:
            explorer.access.alt = alt
