"""Picture sizes, in one place: the normal ones and the ones for a projector.

Every figure of ``helpers.figures.plots`` and every explorer of ``helpers.widgets``
reads its sizes here. An instructor switches them in one line::

    from helpers.figures import style
    style.projector()        # large fonts and thick lines from now on
    style.projector(False)   # back to the normal sizes

Projection mode draws every picture with more pixels per point
(``scale``: 1.5 times the normal resolution), so every font, line and
margin is 1.5 times larger on screen while the layout stays the same (no
label gets cut or crowded), and it makes the lines of the figures of
``helpers.figures.plots`` thicker again (``line_scale``). It applies to figures made
after the switch and to every explorer, existing ones included (they redraw
at once), and the explorers' controls grow with their pictures (text boxes,
dropdowns, buttons, sliders: ``helpers.widgets.base.MESSAGE_STYLE``).
JupyterLab's Presentation Mode enlarges prose and code only; use both on a
projector. The notebooks never switch it on: their stored pictures keep the
normal size.

Sizes (points) that the explorers use for their text: ``LABEL_PT`` for
token and feature labels (``MIN_LABEL_PT`` for long sentences), ``NUMBER_PT``
for numbers on bars and in cells, ``AXIS_PT`` for axis titles. At the normal
80 dpi of the explorers 9 pt is 10 pixels, the smallest size allowed.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LAPTOP", "NORMAL", "PROJECTOR", "Sizes", "current", "on_change",
           "projector", "thicken"]


@dataclass(frozen=True)
class Sizes:
    """One set of picture sizes."""

    name: str
    explorer_dpi: float  # pixels per inch of the explorers' pictures
    figure_dpi: float | None  # of helpers.figures.plots figures (None: matplotlib's)
    line_scale: float  # line widths of helpers.figures.plots figures, times this

    @property
    def scale(self) -> float:
        """How much larger than normal every font and line is on screen."""
        return self.explorer_dpi / NORMAL.explorer_dpi


#: Explorer text sizes in points (the same in both modes: the resolution
#: changes). 9 pt at 80 dpi is 10 px, the smallest label of any picture.
LABEL_PT = 10.0  # token labels up to 16 tokens, feature labels
MIN_LABEL_PT = 9.0  # token labels of longer sentences (10 px)
NUMBER_PT = 9.0  # numbers on bars and in heatmap cells (10 px)
AXIS_PT = 9.0  # axis titles, tick labels, legends (10 px)
MIN_LABEL_PX = 10  # no text of an explorer picture is smaller (normal mode)

#: The screen every explorer fits (issue 39): a laptop's 1366 x 768 window
#: in JupyterLab, whose notebook area is 647 px high (121 px of menu, tab,
#: tool and status bars) and whose cells show 915 px of output. Pictures are
#: shown at their own pixels, never stretched, and every explorer of the
#: lessons is drawn small enough to fit whole (controls, picture, message);
#: where one would not (a new explorer, a long message, a small window, a
#: projector), its picture is scaled down to fit the window less
#: SCREEN_CHROME_PX (JupyterLab's bars and the cell's margins) and its
#: controls and message (MESSAGE_PX, at the current sizes), never below
#: MIN_PICTURE_PX (helpers.widgets.screen.ScreenFit._fit_screen).
LAPTOP = (1366, 768)
SCREEN_CHROME_PX = 140
MESSAGE_PX = 34
MIN_PICTURE_PX = 200

#: An explorer drawn for the screen it is on (the playground:
#: ``Explorer.fit_screen(..., draw_for_screen=True)``) is drawn at a
#: resolution between these: at 72 dpi its smallest labels (9 pt) are 9 px,
#: at 180 dpi its pictures are 2.25 times the normal size.
MIN_SCREEN_DPI = 72.0
MAX_SCREEN_DPI = 180.0

NORMAL = Sizes("normal", explorer_dpi=80.0, figure_dpi=None, line_scale=1.0)
PROJECTOR = Sizes("projector", explorer_dpi=120.0, figure_dpi=150.0, line_scale=1.6)

_current = NORMAL
_listeners = []


def current() -> Sizes:
    """The sizes in use now (``NORMAL`` unless :func:`projector` was called)."""
    return _current


def on_change(callback) -> None:
    """Call ``callback()`` whenever the sizes switch (the explorers redraw)."""
    _listeners.append(callback)


def projector(on: bool = True) -> Sizes:
    """Switch to large fonts and thick lines for a projector (``on=False``:
    back to the normal sizes). Affects figures made from now on and every
    explorer, including those already shown. Returns the sizes now in use."""
    global _current
    new = PROJECTOR if on else NORMAL
    if new is not _current:
        _current = new
        for callback in list(_listeners):
            callback()
    return _current


def thicken(fig, factor: float) -> None:
    """Multiply the width of every line, edge and tick of ``fig`` by
    ``factor`` (what projection mode does to the figures of helpers.figures.plots)."""
    from matplotlib.axis import Tick
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    for artist in fig.findobj(lambda a: isinstance(a, (Line2D, Patch, Collection))):
        widths = artist.get_linewidth()
        if isinstance(artist, Collection):
            artist.set_linewidth([w * factor for w in widths])
        else:
            artist.set_linewidth(widths * factor)
    for tick in fig.findobj(Tick):
        for line in (tick.tick1line, tick.tick2line):
            line.set_markeredgewidth(line.get_markeredgewidth() * factor)
