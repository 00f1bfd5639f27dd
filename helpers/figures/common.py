"""What every figure of ``helpers.figures.plots`` shares: ``AttentionFigure`` (a
figure that shows itself as a PNG), labels and ticks, cell text, colour maps."""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.figure import Figure
from matplotlib.ticker import (
    FixedLocator,
)

from helpers.figures import style
from helpers.figures import alt as alt_text
from helpers.figures import numbers

QUERY_LABEL = "query (attending)"
KEY_LABEL = "key (attended to)"
MAX_TICK_LABELS = 40  # beyond this only every k-th label is written
MAX_LABEL_CHARS = 16  # longer labels are shortened with an ellipsis
MAX_ANNOTATED_CELLS = 400  # annotate=True writes values up to 20 x 20 cells
MASKED_COLOUR = "#d9d9d9"


class AttentionFigure(Figure):
    """A matplotlib ``Figure`` that shows itself as a PNG in Jupyter.

    A plain ``matplotlib.figure.Figure`` made without pyplot is only drawn
    inline when IPython's matplotlib integration happens to be active;
    ``_repr_png_`` makes the picture appear whenever the figure is the last
    expression of a cell or passed to ``display``. The text form is a short,
    deterministic description instead of ``<Figure size ...>``.

    Its text alternative is ``alt``: set by the function that made it (from
    the numbers it drew), else read from what it draws
    (:func:`helpers.figures.alt.describe`). It is shown as the ``alt`` of the
    picture's ``<img>`` (the ``text/html`` of its bundle; JupyterLab's own
    PNG renderer has no alt text) and kept as ``.alt_text``. The grids it
    draws follow the picture as tables of numbers
    (:func:`helpers.figures.numbers.html`).

    Its sizes come from ``helpers.figures.style`` when it is made: in projection mode
    (``style.projector()``) it has a higher resolution (every font and line
    larger on screen) and its lines are drawn thicker.
    """

    def __init__(self, *args, **kwargs):
        sizes = style.current()
        if sizes.figure_dpi is not None and kwargs.get("dpi") is None:
            kwargs["dpi"] = sizes.figure_dpi
        super().__init__(*args, **kwargs)
        self._line_scale = sizes.line_scale
        self.alt = None  # set by the figure function; see alt_text below

    def draw(self, renderer):
        if self._line_scale != 1.0:  # once, over everything drawn by then
            style.thicken(self, self._line_scale)
            self._line_scale = 1.0
        super().draw(renderer)

    def _repr_png_(self) -> bytes:
        # A layout engine already fits everything inside the figure; cropping
        # to a tight box would only cost one more drawing of the whole figure.
        tight = None if self.get_layout_engine() is not None else "tight"
        buffer = io.BytesIO()
        self.savefig(
            buffer, format="png", bbox_inches=tight, metadata={"Software": None}
        )
        return buffer.getvalue()

    @property
    def alt_text(self) -> str:
        """The text alternative: ``alt`` if set, else read from the figure."""
        return alt_text.text_of(self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        png = base64.b64encode(self._repr_png_()).decode("ascii")
        return {"text/plain": repr(self), "image/png": png,
                "text/html": alt_text.img_html(png, self.alt_text)
                + numbers.html(self)}

    def __repr__(self) -> str:
        title = _figure_title(self)
        return f"<figure: {title}>" if title else "<figure>"


def _figure_title(fig: Figure) -> str:
    suptitle = getattr(fig, "_suptitle", None)  # get_suptitle() needs mpl 3.8
    if suptitle is not None and suptitle.get_text():
        return suptitle.get_text()
    for ax in fig.axes:
        text = ax.get_title()
        if text:
            return text
    return ""


def _new_figure(figsize) -> AttentionFigure:
    return AttentionFigure(figsize=figsize, layout="constrained")


def _as_matrix(A, name: str = "A") -> np.ndarray:
    arr = np.asarray(A, dtype=float)
    if arr.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (rows x columns); got shape {arr.shape}"
        )
    return arr


def _labels(labels, n: int, what: str, shape) -> list[str]:
    if labels is None:
        return [str(i) for i in range(n)]
    labels = [str(label) for label in labels]
    if len(labels) != n:
        raise ValueError(
            f"{len(labels)} {what} for an array of shape {tuple(shape)}: need {n}"
        )
    return labels


def short_label(label: str, limit: int = MAX_LABEL_CHARS) -> str:
    """``label`` cut to ``limit`` characters, the last one an ellipsis."""
    return label if len(label) <= limit else label[: limit - 1] + "…"


def number_text(value, fmt: str = "{:.2f}") -> str:
    """``fmt.format(value)``, but never "-0.00": a minus sign with no other
    digit than 0 (a tiny negative such as -1e-17) is dropped."""
    text = fmt.format(value)
    if text.startswith("-") and not any(c in "123456789" for c in text):
        return text[1:]
    return text


def _token_ticks(ax, axis: str, labels: Sequence[str], *, show: bool = True) -> None:
    """Put ``labels`` on the ticks of ``axis`` ("x" or "y"), thinning long lists.

    Empty labels get no tick; if more than ``MAX_TICK_LABELS`` remain, only
    every k-th is written. Long labels are shortened, crowded x labels turned
    upright.
    """
    setattr(ax, f"_attn_{axis}_labels", list(labels))  # for the text alternative
    named = [i for i, label in enumerate(labels) if label]
    step = max(1, int(np.ceil(len(named) / MAX_TICK_LABELS)))
    positions = named[::step]
    texts = [short_label(labels[i]) if show else "" for i in positions]
    count = len(positions)
    longest = max((len(t) for t in texts), default=0)
    if axis == "x":
        rotate = (longest > 3 and count > 3) or (longest > 2 and count > 15)
        ax.set_xticks(positions, texts, rotation=90 if rotate else 0)
        ax.xaxis.set_minor_locator(FixedLocator([]))
    else:
        ax.set_yticks(positions, texts)
        ax.yaxis.set_minor_locator(FixedLocator([]))
    # 8 pt is the smallest size that still reads on a projector; at most
    # MAX_TICK_LABELS labels are written, so 8 pt fits the widest figures.
    fontsize = 10 if count <= 12 else 8
    ax.tick_params(axis=axis, labelsize=fontsize, length=2)


def _auto_size(
    n_rows: int, n_cols: int, extra_width: float = 1.8
) -> tuple[float, float]:
    width = min(14.0, max(4.0, 1.8 + extra_width + 0.42 * n_cols))
    height = min(11.0, max(3.0, 1.6 + 0.38 * n_rows))
    return width, height


def _empty_message(ax, text: str = "no tokens to show") -> None:
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.text(
        0.5, 0.5, text, ha="center", va="center", color="0.35", transform=ax.transAxes
    )


def _text_colour(rgba) -> str:
    r, g, b = rgba[:3]
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "black" if luminance > 0.45 else "white"


def _annotate_cells(ax, data: np.ndarray, image) -> None:
    if data.size == 0 or data.size > MAX_ANNOTATED_CELLS:
        return
    fontsize = 9 if data.size <= 64 else 7 if data.size <= 196 else 5.5
    finite = data[np.isfinite(data)]
    big = finite.size and np.max(np.abs(finite)) >= 100
    for (i, j), value in np.ndenumerate(data):
        if not np.isfinite(value):
            text, colour = ("-∞" if value < 0 else "∞" if value > 0 else "NaN"), "black"
        else:
            text = number_text(float(value), "{:.3g}" if big else "{:.2f}")
            colour = _text_colour(image.cmap(image.norm(value)))
        ax.text(j, i, text, ha="center", va="center", fontsize=fontsize, color=colour)


def _sums_to_one(data: np.ndarray, axis: int) -> bool:
    if data.size == 0 or not np.isfinite(data).all() or (data < 0).any():
        return False
    return bool(np.allclose(data.sum(axis=axis), 1.0, atol=1e-3))


def _cmap(name):
    cmap = colormaps[name] if isinstance(name, str) else name
    return cmap.with_extremes(bad=MASKED_COLOUR)


def _scalar_mappable(norm, cmap):
    from matplotlib.cm import ScalarMappable

    return ScalarMappable(norm=norm, cmap=_cmap(cmap))


def _grid_image(ax, data, cmap, norm):
    """Draw the 2-D ``data`` (a masked array: masked cells grey) cell by cell
    on ``ax``: the one image call of every heatmap-like figure."""
    return ax.imshow(
        data, cmap=_cmap(cmap), norm=norm, aspect="auto", interpolation="nearest"
    )
