"""Vectors and links: weights as lines between tokens (``line_view``) and
vectors as strips of coloured cells (``vector_view``)."""

from __future__ import annotations


import numpy as np
from matplotlib import colormaps
from matplotlib.collections import LineCollection
from matplotlib.colors import LinearSegmentedColormap, Normalize, to_rgba

from helpers.figures.common import (
    KEY_LABEL,
    QUERY_LABEL,
    AttentionFigure,
    _as_matrix,
    _empty_message,
    _grid_image,
    _labels,
    _new_figure,
    _scalar_mappable,
    _token_ticks,
)


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
        mappable = _grid_image(ax, np.ma.masked_invalid(V), cmap, norm)
        _token_ticks(ax, "x", names)
        _token_ticks(ax, "y", rows)
    fig.colorbar(mappable, ax=ax, label=colorbar_label)
    return fig
