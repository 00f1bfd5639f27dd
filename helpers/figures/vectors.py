"""Vectors over named features: one vector as bars, several as a strip of
coloured cells (``vector_view``)."""

from __future__ import annotations

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import Normalize

from helpers.figures import alt as alt_text
from helpers.figures.common import (
    AttentionFigure,
    _empty_message,
    _grid_image,
    _labels,
    _new_figure,
    _scalar_mappable,
    _token_ticks,
)


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
        fig.alt = (f"{title}. " + alt_text.bars(f"{colorbar_label} per feature",
                                                names, V) + ".")
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
    fig.alt = (f"{title}. {V.shape[0]} vectors over {d} features, {colorbar_label} "
               f"from {alt_text.number(finite.min() if finite.size else 0)} to "
               f"{alt_text.number(finite.max() if finite.size else 0)}. Largest "
               f"entries of each: " + alt_text.features(V, rows, names))
    return fig
