"""Pictures of attention: labelled heatmaps, head grids, line and vector views.

Every function takes arrays and labels and returns a matplotlib ``Figure``;
none of them computes attention. Figures are built without pyplot, so calling
these functions opens no pyplot windows and leaves no figures behind
(``plt.get_fignums()`` is unchanged), and one call never affects the next.

Displaying a figure: make it the **last expression of a cell** (``fig``), or
call ``display(fig)``. Do not end the cell with ``;`` and do not only assign
it: a figure made here is not registered with pyplot, so nothing draws it
automatically at the end of the cell. Shown that way, the notebook stores
the PNG plus a short text line naming the figure (never ``<Figure size ...>``).
Save with ``fig.savefig("name.png")`` or ``fig.savefig("name.svg")``.

Conventions: rows are queries, columns are keys (``convention="video"`` in
:func:`heatmap` draws the transpose, as in the video-style lesson). Colour
maps: viridis for weights and other non-negative values (perceptually
uniform, readable in greyscale); a diverging map centred on 0 ("RdBu_r",
symmetric limits) for signed values.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.collections import LineCollection, PatchCollection
from matplotlib.colors import LinearSegmentedColormap, Normalize, to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import (
    FixedFormatter,
    FixedLocator,
    NullFormatter,
    NullLocator,
)

from helpers import style

__all__ = [
    "AttentionFigure",
    "bar_view",
    "head_grid",
    "number_text",
    "short_label",
    "heatmap",
    "line_view",
    "loglog_cost",
    "mask_view",
    "sense_by_layer",
    "vector_view",
]

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

    Its sizes come from ``helpers.style`` when it is made: in projection mode
    (``style.projector()``) it has a higher resolution (every font and line
    larger on screen) and its lines are drawn thicker.
    """

    def __init__(self, *args, **kwargs):
        sizes = style.current()
        if sizes.figure_dpi is not None and kwargs.get("dpi") is None:
            kwargs["dpi"] = sizes.figure_dpi
        super().__init__(*args, **kwargs)
        self._line_scale = sizes.line_scale

    def draw(self, renderer):
        if self._line_scale != 1.0:  # once, over everything drawn by then
            style.thicken(self, self._line_scale)
            self._line_scale = 1.0
        super().draw(renderer)

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", bbox_inches="tight")
        return buffer.getvalue()

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


# ----------------------------------------------------------------- helpers ---


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


# ----------------------------------------------------------------- heatmap ---


def heatmap(
    A,
    row_labels=None,
    col_labels=None,
    *,
    title=None,
    convention="rows=queries",
    annotate=False,
    cmap="viridis",
    vmin=None,
    vmax=None,
    xlabel=None,
    ylabel=None,
    colorbar_label="attention weight",
    figsize=None,
) -> AttentionFigure:
    """A labelled heatmap of a grid, by default an attention pattern.

    ``A[i, j]`` is drawn in row ``i``, column ``j``; ``row_labels`` name the
    rows (the queries) and ``col_labels`` the columns (the keys).

    ``convention="video"`` draws the same numbers the way the video-style
    lesson does: keys as rows, queries as columns (the transpose), so each
    *column* of the picture sums to 1. If the drawn grid's rows (or, in the
    video convention, columns) sum to 1, a note under the picture says so.
    ``annotate=True`` writes each value in its cell (up to 20 x 20 cells).
    Any 2-D array works: pass ``xlabel``, ``ylabel`` and ``colorbar_label``
    for grids that are not attention patterns (for example embeddings).
    """
    if convention not in ("rows=queries", "video"):
        raise ValueError(
            f"convention must be 'rows=queries' or 'video', got {convention!r}"
        )
    A = _as_matrix(A)
    rows = _labels(row_labels, A.shape[0], "row labels", A.shape)
    cols = _labels(col_labels, A.shape[1], "column labels", A.shape)
    if convention == "video":
        data, y_labels, x_labels = A.T, cols, rows
        default_y, default_x = KEY_LABEL, QUERY_LABEL
        default_title = "Attention pattern (video style: keys are rows)"
    else:
        data, y_labels, x_labels = A, rows, cols
        default_y, default_x = QUERY_LABEL, KEY_LABEL
        default_title = "Attention pattern (rows = queries)"

    fig = _new_figure(figsize or _auto_size(*data.shape))
    ax = fig.add_subplot()
    ax.set_title(default_title if title is None else title)
    ax.set_ylabel(default_y if ylabel is None else ylabel)
    ax.set_xlabel(default_x if xlabel is None else xlabel)
    norm = Normalize(vmin=vmin, vmax=vmax)
    if data.size == 0:
        _empty_message(ax)
        norm = Normalize(0 if vmin is None else vmin, 1 if vmax is None else vmax)
        mappable = _scalar_mappable(norm, cmap)
    else:
        shown = np.ma.masked_invalid(data)
        mappable = ax.imshow(
            shown, cmap=_cmap(cmap), norm=norm, aspect="auto", interpolation="nearest"
        )
        mappable.set_gid("heatmap-image")
        _token_ticks(ax, "x", x_labels)
        _token_ticks(ax, "y", y_labels)
        if annotate:
            _annotate_cells(ax, data, mappable)
    fig.colorbar(mappable, ax=ax, label=colorbar_label, shrink=0.9)
    if convention == "video" and _sums_to_one(data, axis=0):
        note = "each column sums to 1 (one column per query)"
    elif convention == "rows=queries" and _sums_to_one(data, axis=1):
        note = "each row sums to 1 (one row per query)"
    else:
        note = None
    if note:
        fig.supxlabel(note, fontsize=9, style="italic", color="0.25")
    return fig


def _scalar_mappable(norm, cmap):
    from matplotlib.cm import ScalarMappable

    return ScalarMappable(norm=norm, cmap=_cmap(cmap))


# --------------------------------------------------------------- head grid ---


def head_grid(
    weights,
    tokens=None,
    *,
    titles=None,
    suptitle="Attention patterns, one per head (rows = queries)",
    cmap="viridis",
    vmin=0.0,
    vmax=None,
    colorbar_label="attention weight",
    figsize=None,
    cells=None,
) -> AttentionFigure:
    """A grid of attention patterns with one shared colour bar.

    ``weights`` has shape ``(h, n, n)`` (one row of panels) or
    ``(L, h, n, n)`` (one row of panels per layer). ``titles`` is a list of
    ``h`` names (or ``L * h`` for layers); by default "head 0", "head 1", ...
    Every panel uses the same colour scale (``vmin``..``vmax``, by default
    0..the largest weight), so the panels can be compared. ``cells`` lists
    ``(panel, row, column)`` triples (panels counted across the grid, from
    0) whose value is written in the cell, rounded to 2 decimals, with a
    frame around it: the numbers a text quotes can be checked in the picture.
    """
    W = np.asarray(weights, dtype=float)
    if W.ndim == 3:
        W = W[None]
        layered = False
    elif W.ndim == 4:
        layered = True
    else:
        raise ValueError(
            f"weights must have shape (h, n, n) or (L, h, n, n); got {W.shape}"
        )
    n_layers, n_heads, n_q, n_k = W.shape
    if n_heads == 0 or n_layers == 0:
        raise ValueError(f"weights of shape {W.shape} contain no head to draw")
    q_labels = _labels(tokens, n_q, "tokens", W.shape[-2:])
    k_labels = (
        _labels(tokens, n_k, "tokens", W.shape[-2:])
        if n_k == n_q
        else [str(i) for i in range(n_k)]
    )
    total = n_layers * n_heads
    if titles is None:
        titles = [
            (f"layer {layer}, head {head}" if layered else f"head {head}")
            for layer in range(n_layers)
            for head in range(n_heads)
        ]
    titles = [str(t) for t in titles]
    if len(titles) != total:
        raise ValueError(
            f"{len(titles)} titles for weights of shape {W.shape}: need {total}"
        )
    finite = W[np.isfinite(W)]
    top = vmax if vmax is not None else (float(finite.max()) if finite.size else 1.0)
    norm = Normalize(vmin=vmin, vmax=max(top, (vmin or 0.0) + 1e-12))
    panel = 0.42 * max(n_q, n_k, 3) + 1.2
    if figsize is None:
        figsize = (min(18.0, panel * n_heads + 1.5), min(14.0, panel * n_layers + 1.0))
    fig = _new_figure(figsize)
    axes = np.atleast_2d(fig.subplots(n_layers, n_heads, squeeze=False))
    image = None
    for layer in range(n_layers):
        for head in range(n_heads):
            ax = axes[layer, head]
            ax.set_title(titles[layer * n_heads + head], fontsize=10)
            if n_q == 0 or n_k == 0:
                _empty_message(ax)
                continue
            image = ax.imshow(
                np.ma.masked_invalid(W[layer, head]),
                cmap=_cmap(cmap),
                norm=norm,
                aspect="auto",
                interpolation="nearest",
            )
            _token_ticks(ax, "x", k_labels, show=layer == n_layers - 1)
            _token_ticks(ax, "y", q_labels, show=head == 0)
            for p, i, j in cells or ():
                if p != layer * n_heads + head or not (0 <= i < n_q and 0 <= j < n_k):
                    continue
                value = float(W[layer, head, i, j])
                if not np.isfinite(value):
                    continue
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                       edgecolor="white", linewidth=1.2))
                ax.text(j, i, f"{round(value, 2) + 0.0:.2f}", ha="center", va="center",
                        fontsize=7, color=_text_colour(image.cmap(image.norm(value))))
            if layer == n_layers - 1:
                ax.set_xlabel(KEY_LABEL)
            if head == 0:
                ax.set_ylabel(QUERY_LABEL)
    if image is None:
        image = _scalar_mappable(norm, cmap)
    fig.colorbar(image, ax=axes.ravel().tolist(), label=colorbar_label, shrink=0.85)
    fig.suptitle(suptitle)
    return fig


# --------------------------------------------------------------- line view ---


def line_view(
    A,
    tokens=None,
    *,
    key_tokens=None,
    highlight=None,
    title="Who attends to whom (line opacity = weight)",
    colour="#30123b",
    highlight_colour="#d95f02",
    figsize=None,
) -> AttentionFigure:
    """Tokens in two columns, queries left and keys right, joined by lines.

    A line from query ``i`` to key ``j`` is as opaque as ``A[i, j]`` (and
    thicker for larger weights). ``highlight`` (a query index or token) draws
    that query's lines thicker in ``highlight_colour`` and fades the others.
    ``key_tokens`` labels the right column when it differs from the left
    (cross-attention).
    """
    A = _as_matrix(A)
    n_q, n_k = A.shape
    q_labels = _labels(tokens, n_q, "tokens", A.shape)
    if key_tokens is None:
        k_labels = q_labels if n_k == n_q else _labels(None, n_k, "key tokens", A.shape)
    else:
        k_labels = _labels(key_tokens, n_k, "key tokens", A.shape)
    if isinstance(highlight, str):
        if highlight not in q_labels:
            raise ValueError(f"highlight {highlight!r} is not one of the tokens")
        highlight = q_labels.index(highlight)
    if highlight is not None and not 0 <= int(highlight) < n_q:
        raise ValueError(f"highlight={highlight} is outside 0..{n_q - 1}")
    n = max(n_q, n_k, 1)
    fig = _new_figure(figsize or (6.0, min(11.0, max(3.0, 1.4 + 0.36 * n))))
    ax = fig.add_subplot()
    ax.set_title(title)
    norm = Normalize(0.0, 1.0)
    base = to_rgba(colour)
    opacity_map = LinearSegmentedColormap.from_list("opacity", ["white", base[:3]])
    if A.size == 0:
        _empty_message(ax)
    else:
        segments, colours, widths = [], [], []
        weights = np.clip(np.nan_to_num(A, nan=0.0), 0.0, 1.0)
        strong = to_rgba(highlight_colour)
        for i in range(n_q):
            for j in range(n_k):
                w = float(weights[i, j])
                if w < 0.01:
                    continue
                rgba, width = (*base[:3], w), 1.0 + 3.0 * w
                if highlight is not None:
                    if i == highlight:
                        rgba, width = (*strong[:3], max(w, 0.1)), 2.0 + 3.0 * w
                    else:
                        rgba, width = (*base[:3], 0.15 * w), 1.0
                segments.append([(0.0, i), (1.0, j)])
                colours.append(rgba)
                widths.append(width)
        lines = LineCollection(
            segments, colors=colours, linewidths=widths, gid="attention-lines"
        )
        ax.add_collection(lines)
        ax.set_xlim(-0.05, 1.05)
        ax.set_ylim(n - 0.5, -0.5)
        ax.plot(np.zeros(n_q), np.arange(n_q), "o", color="0.2", markersize=4)
        ax.plot(np.ones(n_k), np.arange(n_k), "o", color="0.2", markersize=4)
        _token_ticks(ax, "y", q_labels)
        right = ax.secondary_yaxis("right")
        _token_ticks(right, "y", k_labels)
        if highlight is not None:
            for position, label in zip(ax.get_yticks(), ax.get_yticklabels()):
                if int(round(position)) == highlight:
                    label.set_fontweight("bold")
    ax.set_xticks([0, 1], [QUERY_LABEL, KEY_LABEL])
    ax.xaxis.tick_top()
    for side in ("top", "bottom"):
        ax.spines[side].set_visible(False)
    fig.colorbar(
        _scalar_mappable(norm, opacity_map),
        ax=ax,
        shrink=0.8,
        pad=0.12,
        label="attention weight (line opacity)",
    )
    return fig


# ------------------------------------------------------------- vector view ---


def vector_view(
    vectors,
    feature_names,
    *,
    labels=None,
    title="Embedding over named features",
    cmap=None,
    colorbar_label="value",
    figsize=None,
) -> AttentionFigure:
    """Show embeddings over their named features.

    A single vector of shape ``(d,)`` is drawn as labelled bars; several
    vectors ``(n, d)`` as a strip, one row per vector (``labels``), one
    column per feature. Colours use one scale centred on 0 when there are
    negative values, so the same colour means the same number everywhere.
    ``cmap=None`` picks viridis for non-negative values (as for attention
    weights) and the diverging "RdBu_r" (white at 0) for signed values.
    """
    V = np.asarray(vectors, dtype=float)
    if V.ndim not in (1, 2):
        raise ValueError(f"vectors must have shape (d,) or (n, d); got {V.shape}")
    d = V.shape[-1]
    names = _labels(feature_names, d, "feature names", V.shape)
    finite = V[np.isfinite(V)]
    top = float(np.max(np.abs(finite))) if finite.size else 1.0
    top = top or 1.0
    signed = bool(finite.size and finite.min() < 0)
    norm = Normalize(-top, top) if signed else Normalize(0.0, top)
    if cmap is None:
        cmap = "RdBu_r" if signed else "viridis"
    if V.ndim == 1:
        fig = _new_figure(figsize or (min(14.0, 2.5 + 0.3 * max(d, 4)), 3.6))
        ax = fig.add_subplot()
        ax.set_title(title)
        ax.set_xlabel("feature")
        ax.set_ylabel(colorbar_label)
        if d == 0:
            _empty_message(ax, "no features to show")
        else:
            colour_map = colormaps[cmap] if isinstance(cmap, str) else cmap
            ax.bar(
                np.arange(d),
                np.nan_to_num(V),
                color=colour_map(norm(V)),
                edgecolor="0.3",
                linewidth=0.5,
                gid="vector-bars",
            )
            ax.axhline(0, color="0.3", linewidth=0.8)
            ax.set_xlim(-0.6, d - 0.4)
            _token_ticks(ax, "x", names)
        fig.colorbar(_scalar_mappable(norm, cmap), ax=ax, label=colorbar_label)
        return fig
    rows = _labels(labels, V.shape[0], "labels", V.shape)
    fig = _new_figure(
        figsize
        or (
            min(14.0, 3.0 + 0.3 * max(d, 4)),
            min(10.0, 2.2 + 0.45 * max(V.shape[0], 1)),
        )
    )
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.set_xlabel("feature")
    ax.set_ylabel("vector")
    if V.size == 0:
        _empty_message(ax)
        mappable = _scalar_mappable(norm, cmap)
    else:
        mappable = ax.imshow(
            np.ma.masked_invalid(V),
            cmap=_cmap(cmap),
            norm=norm,
            aspect="auto",
            interpolation="nearest",
        )
        _token_ticks(ax, "x", names)
        _token_ticks(ax, "y", rows)
    fig.colorbar(mappable, ax=ax, label=colorbar_label)
    return fig


# --------------------------------------------------------------- mask view ---


def mask_view(
    A,
    mask,
    tokens=None,
    *,
    title="Masked attention (hatched = masked)",
    cmap="viridis",
    colorbar_label="attention weight",
    figsize=None,
) -> AttentionFigure:
    """An attention pattern whose masked cells are hatched grey.

    ``mask`` is boolean, ``True`` where a query may attend (broadcastable to
    ``A``). Masked cells are drawn light grey with diagonal hatching and
    named in the legend, so they look different from an allowed cell whose
    weight happens to be 0 (the darkest colour of the map).
    """
    A = _as_matrix(A)
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise ValueError(f"mask must be boolean (True = may attend), got {mask.dtype}")
    try:
        mask = np.broadcast_to(mask, A.shape)
    except ValueError:
        raise ValueError(
            f"mask of shape {mask.shape} does not fit the weights of shape {A.shape}"
        ) from None
    q_labels = _labels(tokens, A.shape[0], "tokens", A.shape)
    k_labels = (
        q_labels
        if A.shape[1] == A.shape[0]
        else _labels(None, A.shape[1], "tokens", A.shape)
    )
    fig = _new_figure(figsize or _auto_size(*A.shape, extra_width=2.6))
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.set_ylabel(QUERY_LABEL)
    ax.set_xlabel(KEY_LABEL)
    norm = Normalize(0.0, max(1e-12, float(np.nanmax(A[mask])) if mask.any() else 1.0))
    if A.size == 0:
        _empty_message(ax)
        mappable = _scalar_mappable(norm, cmap)
    else:
        shown = np.ma.array(A, mask=~mask | ~np.isfinite(A))
        mappable = ax.imshow(
            shown, cmap=_cmap(cmap), norm=norm, aspect="auto", interpolation="nearest"
        )
        cells = [
            Rectangle((j - 0.5, i - 0.5), 1, 1) for i, j in zip(*np.nonzero(~mask))
        ]
        ax.add_collection(
            PatchCollection(
                cells,
                facecolor=MASKED_COLOUR,
                edgecolor="0.45",
                hatch="///",
                linewidth=0.0,
                gid="masked-cells",
            )
        )
        _token_ticks(ax, "x", k_labels)
        _token_ticks(ax, "y", q_labels)
    legend_patch = Patch(
        facecolor=MASKED_COLOUR,
        edgecolor="0.45",
        hatch="///",
        label="masked (score set to -∞, weight exactly 0)",
    )
    fig.legend(
        handles=[legend_patch], loc="outside lower center", fontsize=9, frameon=False
    )
    fig.colorbar(mappable, ax=ax, label=colorbar_label + " (allowed cells)")
    return fig


# ---------------------------------------------------------------- bar view ---


def bar_view(
    values,
    labels=None,
    *,
    title="Values",
    xlabel=None,
    ylabel="value",
    highlight=None,
    cmap="viridis",
    colorbar_label=None,
    colorbar=True,
    figsize=None,
) -> AttentionFigure:
    """Labelled bars, for one query's scores or weights (or any 1-D values).

    Bars are coloured by their value (with a colour bar), so a bar chart of
    weights reads the same way as a heatmap row. ``colorbar=False`` leaves
    the colour bar out when the height already says everything (the bars
    keep their colours). ``highlight`` (an index or label) outlines one bar.
    """
    v = np.asarray(values, dtype=float)
    if v.ndim != 1:
        raise ValueError(f"values must be 1-D, got shape {v.shape}")
    names = _labels(labels, v.size, "labels", v.shape)
    if isinstance(highlight, str):
        highlight = names.index(highlight) if highlight in names else None
    fig = _new_figure(figsize or (min(14.0, 2.8 + 0.35 * max(v.size, 4)), 3.6))
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.set_xlabel("token" if xlabel is None else xlabel)
    ax.set_ylabel(ylabel)
    finite = v[np.isfinite(v)]
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        norm = Normalize(min(lo, 0.0), hi if hi > min(lo, 0.0) else min(lo, 0.0) + 1)
    else:
        norm = Normalize(0.0, 1.0)
    if v.size == 0:
        _empty_message(ax, "nothing to show")
    else:
        colour_map = colormaps[cmap] if isinstance(cmap, str) else cmap
        bars = ax.bar(
            np.arange(v.size),
            np.nan_to_num(v),
            color=colour_map(norm(v)),
            edgecolor="0.3",
            linewidth=0.5,
            gid="bars",
        )
        if highlight is not None and 0 <= int(highlight) < v.size:
            bars[int(highlight)].set_edgecolor("black")
            bars[int(highlight)].set_linewidth(2.5)
        ax.axhline(0, color="0.3", linewidth=0.8)
        ax.set_xlim(-0.6, v.size - 0.4)
        _token_ticks(ax, "x", names)
    if colorbar:
        fig.colorbar(
            _scalar_mappable(norm, cmap),
            ax=ax,
            label=ylabel if colorbar_label is None else colorbar_label,
        )
    return fig


# -------------------------------------------------------------- cost curve ---


def _measured_size_ticks(ax, sizes, most: int = 8) -> None:
    """Tick the log x-axis at the measured sizes only, as plain numbers
    (256, 512, 1024, ...), with no minor ticks or labels in between."""
    ticks = np.unique(sizes)
    step = max(1, int(np.ceil(len(ticks) / most)))
    ticks = ticks[::step]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(
        FixedFormatter([f"{t:.0f}" if t == round(t) else f"{t:g}" for t in ticks])
    )
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())


def loglog_cost(
    sizes,
    seconds,
    megabytes=None,
    *,
    title="Attention cost grows with n²",
    figsize=None,
) -> AttentionFigure:
    """Time (and memory) of attention against context size, on log-log axes.

    Each panel has a dashed slope-2 guide (cost proportional to n²) through
    the last measurement; a line parallel to it grows quadratically.
    """
    n = np.asarray(sizes, dtype=float)
    panels = [("time (ms)", np.asarray(seconds, dtype=float) * 1e3)]
    if megabytes is not None:
        panels.append(
            ("memory of the weights (MiB)", np.asarray(megabytes, dtype=float))
        )
    for label, y in panels:
        if y.shape != n.shape:
            raise ValueError(f"{label}: {y.shape} values for {n.shape} sizes")
    fig = _new_figure(figsize or (4.6 * len(panels) + 0.6, 4.0))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, (label, y) in zip(axes, panels):
        ax.set_xlabel("context size n (tokens)")
        ax.set_ylabel(label)
        ax.set_title(label.split(" (")[0])
        ok = (n > 0) & (y > 0) & np.isfinite(y)
        if not ok.any():
            _empty_message(ax, "no measurements")
            continue
        ax.loglog(
            n[ok], y[ok], "o-", color=colormaps["viridis"](0.25), label="measured"
        )
        ref_n, ref_y = n[ok][-1], y[ok][-1]
        guide = ref_y * (n[ok] / ref_n) ** 2
        ax.loglog(n[ok], guide, "--", color="0.4", label="∝ n² (slope 2)")
        _measured_size_ticks(ax, n[ok])
        ax.legend(fontsize=8)
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle(title)
    return fig


# ------------------------------------------------ lesson 10: senses by layer ---


def sense_by_layer(
    cos_gap,
    coords,
    senses,
    *,
    sense_names=("sense 0", "sense 1"),
    word="bank",
    layers_shown=None,
    title=None,
    figsize=None,
) -> AttentionFigure:
    """How one word's vectors separate by sense, layer by layer.

    cos_gap : (m, L + 1), for each of ``m`` sentences and each layer the
        cosine to sense 0's centroid minus the cosine to sense 1's.
    coords : (L + 1, m, 2), a 2-D projection of the ``m`` vectors per layer.
    senses : (m,) int in {0, 1}, each sentence's sense (colour).

    Left: one line per sentence over the layers (above 0 = nearer sense 0).
    Right: the 2-D projection at the layers in ``layers_shown`` (by default
    0, 1 and the last), one panel each, points coloured by sense.
    """
    gap = np.asarray(cos_gap, dtype=float)
    coords = np.asarray(coords, dtype=float)
    senses = np.asarray(senses, dtype=int)
    m, n_layers = gap.shape if gap.ndim == 2 else (0, 0)
    if gap.ndim != 2 or coords.shape != (n_layers, m, 2) or senses.shape != (m,):
        raise ValueError(
            f"cos_gap (m, L+1), coords (L+1, m, 2) and senses (m,) must agree; got "
            f"{gap.shape}, {coords.shape}, {senses.shape}"
        )
    if layers_shown is None:
        layers_shown = sorted({0, min(1, n_layers - 1), n_layers - 1})
    colours = [colormaps["viridis"](0.15), colormaps["viridis"](0.8)]
    markers = ["o", "s"]
    fig = _new_figure(figsize or (4.4 + 3.0 * len(layers_shown), 3.8))
    grid = fig.add_gridspec(1, 1 + len(layers_shown),
                            width_ratios=[1.5] + [1] * len(layers_shown))
    ax = fig.add_subplot(grid[0, 0])
    for k in range(m):
        ax.plot(range(n_layers), gap[k], marker=markers[senses[k]], ms=4,
                color=colours[senses[k]], alpha=0.8)
    ax.axhline(0, color="0.5", lw=0.8, ls="--")
    ax.set_xticks(range(n_layers))
    ax.set_xlabel("layer (0 = embeddings)")
    ax.set_ylabel(f"cos to {sense_names[0]} − cos to {sense_names[1]}")
    ax.set_title(f'"{word}": nearer which sense?')
    for j, layer in enumerate(layers_shown):
        axp = fig.add_subplot(grid[0, 1 + j])
        for s in (0, 1):
            pts = coords[layer][senses == s]
            axp.scatter(pts[:, 0], pts[:, 1], color=colours[s], marker=markers[s],
                        s=28, label=sense_names[s])
        axp.set_title(f"layer {layer}")
        axp.set_xlabel("direction 1")
        if j == 0:
            axp.set_ylabel("direction 2")
        axp.set_xticks([])
        axp.set_yticks([])
    handles = [Patch(color=colours[s], label=sense_names[s]) for s in (0, 1)]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=9)
    fig.suptitle(title or f'The vector of "{word}" in {m} sentences, layer by layer')
    return fig
