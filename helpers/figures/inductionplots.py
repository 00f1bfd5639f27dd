"""Figures of lesson 13: copying loss, the hand-built circuit's weights,
patterns side by side, head scores against chance, the training log's phase
change, Q-, K- and V-composition and direct logit attribution.

Like :mod:`helpers.plots`: every function takes arrays and labels, returns a
figure that shows itself in Jupyter (``plots.AttentionFigure``), and computes
nothing about a model. Rows are queries and columns keys in every pattern;
the masked future is grey. Sizes stay within a notebook's width (about 9
inches at 100 dpi), so that labels are read at their own size.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from helpers.figures.common import MASKED_COLOUR
from helpers.plots import AttentionFigure

__all__ = [
    "circuit_weights",
    "copy_loss",
    "dla_bars",
    "head_scores",
    "composition",
    "patterns",
    "phase_change",
]

PREV_COLOUR, IND_COLOUR = "#1f77b4", "#d62728"


def _figure(figsize) -> AttentionFigure:
    return AttentionFigure(figsize=figsize, layout="constrained")


def _shade_copies(ax, start, length):
    """Shade the second copy (x = predicted token's position) and name both."""
    ax.axvspan(
        start + length - 0.5, start + 2 * length - 0.5, color="#2ca02c", alpha=0.08
    )
    for x0, text, colour in (
        (start, "first copy", "#555555"),
        (start + length, "second copy", "#2ca02c"),
    ):
        ax.text(
            x0 + length / 2 - 0.5,
            0.98,
            text,
            transform=ax.get_xaxis_transform(),
            ha="center",
            va="top",
            color=colour,
        )


def copy_loss(
    curves: dict, start: int, length: int, *, uniform=None, title="Loss on each token"
) -> AttentionFigure:
    """One line per text, ``{label: (n - 1,) nats}``: entry ``t`` is the loss of
    predicting token ``t + 1``, drawn at x = t + 1. The repeated text's two
    copies start at ``start`` and ``start + length``; ``uniform`` draws the
    loss of a uniform guess (``ln V``) as a dashed line."""
    fig = _figure((8.5, 3.4))
    ax = fig.add_subplot()
    styles = ["-", "--", ":"]
    for k, (label, y) in enumerate(curves.items()):
        y = np.asarray(y, dtype=float)
        ax.plot(
            np.arange(1, len(y) + 1),
            y,
            styles[k % 3],
            marker=".",
            label=label,
            linewidth=1.6,
        )
    if uniform is not None:
        ax.axhline(uniform, color="0.4", linewidth=1, linestyle="--")
        ax.text(
            0.99,
            uniform * 0.97,
            f"uniform guess = {uniform:.2f}",
            ha="right",
            va="top",
            color="0.3",
            transform=ax.get_yaxis_transform(),
        )
    _shade_copies(ax, start, length)
    ax.set(xlabel="position of the predicted token", ylabel="loss (nats)", title=title)
    ax.set_ylim(0, 1.18 * max(np.nanmax(np.asarray(y, float)) for y in curves.values()))
    ax.legend(loc="lower left")
    return fig


def _bounds(ax, edges, n_rows, n_cols, vertical=True, horizontal=True):
    for e in edges:
        if vertical and 0 < e < n_cols:
            ax.axvline(e - 0.5, color="white", linewidth=0.8)
        if horizontal and 0 < e < n_rows:
            ax.axhline(e - 0.5, color="white", linewidth=0.8)


def circuit_weights(W: dict, *, title="Every weight of the hand-built circuit"):
    """The eight matrices of :func:`helpers.circuits.build_circuit`, each drawn
    with its ``d_model`` side cut into the four subspaces (token, position,
    previous, output), each on its own scale from 0 (dark) to its largest
    entry (bright, named in its title). Read maps (``W_Q``, ``W_K``,
    ``W_V``: ``(d_model, k)``) are drawn transposed, one row per head
    dimension, so all eight fit; the ``d_model`` axis is always horizontal."""
    lay = W["layout"]
    edges = [lay.token.stop, lay.position.stop, lay.previous.stop]
    names = [
        ("W_Q0", "layer 0 query: my position"),
        ("W_K0", "layer 0 key: my position + 1"),
        ("W_V0", "layer 0 value: my token"),
        ("W_O0", "layer 0 output: into 'previous'"),
        ("W_Q1", "layer 1 query: my token"),
        ("W_K1", "layer 1 key: 'previous' token"),
        ("W_V1", "layer 1 value: my token"),
        ("W_O1", "layer 1 output: into 'output'"),
    ]
    fig = _figure((9.0, 5.6))
    axes = fig.subplots(4, 2)
    for ax, (key, text) in zip(axes.T.ravel(), names):
        M = W[key] if key.startswith("W_O") else W[key].T  # (k, d_model)
        top = float(np.abs(M).max()) or 1.0
        ax.imshow(
            M,
            cmap="viridis",
            norm=Normalize(0, top),
            aspect="auto",
            interpolation="nearest",
        )
        _bounds(ax, edges, M.shape[0], M.shape[1], horizontal=False)
        ax.set_title(f"{key}: {text} (bright = {top:g})", fontsize=9)
        ax.set_yticks([])
        mids = [(a + b) / 2 - 0.5 for a, b in zip([0, *edges], [*edges, lay.d_model])]
        ax.set_xticks(mids, ["token", "position", "previous", "output"], fontsize=8)
    fig.suptitle(title + " (dark = 0)")
    return fig


def _masked(A):
    data = np.array(A, dtype=float)
    data[np.triu(np.ones(data.shape, dtype=bool), k=1)] = np.nan
    return np.ma.masked_invalid(data)


def patterns(panels, *, suptitle=None, cols=2, vmax=1.0):
    """Attention patterns side by side: ``panels`` is a list of ``(A, labels,
    title)`` or ``(A, labels, title, stripe)``, each A ``(n, n)`` with rows =
    queries. ``stripe`` ``(start, length)``: the panel frames, for every
    query of the second copy, the key that followed its token's earlier
    occurrence (the induction stripe)."""
    rows = -(-len(panels) // cols)
    fig = _figure((4.6 * cols, 4.3 * rows))
    axes = np.atleast_1d(fig.subplots(rows, cols)).ravel()
    cmap = (
        __import__("matplotlib").colormaps["viridis"].with_extremes(bad=MASKED_COLOUR)
    )
    im = None
    for ax, (A, labels, title, *rest) in zip(axes, panels):
        stripe = rest[0] if rest else None
        n = len(A)
        im = ax.imshow(
            _masked(A), cmap=cmap, vmin=0, vmax=vmax, interpolation="nearest"
        )
        step = 1 if n <= 32 else -(-n // 24)
        size = 8 if n <= 20 else 7
        ticks = list(range(0, n, step))
        ax.set_xticks(ticks, [labels[i] for i in ticks], rotation=90, fontsize=size)
        ax.set_yticks(ticks, [labels[i] for i in ticks], fontsize=size)
        ax.set(title=title, xlabel="key", ylabel="query")
        if stripe is not None:
            s, L = stripe
            for j in range(L - 1):
                ax.add_patch(
                    Rectangle(
                        (s + j + 1 - 0.5, s + L + j - 0.5),
                        1,
                        1,
                        fill=False,
                        edgecolor=IND_COLOUR,
                        linewidth=1,
                    )
                )
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    if im is not None:
        fig.colorbar(
            im,
            ax=axes[: len(panels)].tolist(),
            shrink=0.7,
            label="attention weight (grey: masked future)",
        )
    if suptitle:
        fig.suptitle(suptitle)
    return fig


def _value_grid(ax, grid, vmax, fmt, framed=()):
    """A small grid drawn on ``ax`` from 0 to ``vmax`` with each value written
    in its cell (``fmt``) and the cells ``framed`` ((row, column) pairs)
    outlined; integer ticks. Returns the image."""
    grid = np.asarray(grid, dtype=float)
    im = ax.imshow(grid, cmap="viridis", vmin=0.0, vmax=vmax)
    for (i, j), v in np.ndenumerate(grid):
        ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=9,
                color="black" if v > 0.6 * vmax else "white")
    for i, j in framed:
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                               edgecolor=IND_COLOUR, linewidth=2.5))
    ax.set_xticks(range(grid.shape[1]))
    ax.set_yticks(range(grid.shape[0]))
    return im


def head_scores(
    scores: dict, chance: dict, *, named=None, suptitle="Every head, scored two ways"
):
    """One grid per score, ``{name: (n_layers, n_heads)}``, each value written
    in its cell, on a fixed 0-1 colour scale; ``chance`` gives each score's
    chance level (written in the title); ``named`` maps a score name to the
    ``(layer, head)`` to frame."""
    first = np.asarray(next(iter(scores.values())))
    fig = _figure((3.2 * len(scores) + 0.8, 1.0 + 0.75 * first.shape[0]))
    axes = np.atleast_1d(fig.subplots(1, len(scores)))
    for ax, (name, grid) in zip(axes, scores.items()):
        framed = [named[name]] if named and name in named else []
        im = _value_grid(ax, grid, 1.0, "{:.2f}", framed)
        ax.set(
            xlabel="head", ylabel="layer", title=f"{name} (chance {chance[name]:.2f})"
        )
    fig.colorbar(im, ax=axes.tolist(), shrink=0.8)
    fig.suptitle(suptitle)
    return fig


def phase_change(
    log: dict,
    prev_head,
    ind_head,
    *,
    step_of_change=None,
    title="The phase change, from the training log",
):
    """Left: the probe's first- and second-copy loss against the step. Right:
    the named previous-token head's score and the induction head's prefix
    matching.
    ``step_of_change`` draws a dotted line on both."""
    fig = _figure((9.0, 3.4))
    left, right = fig.subplots(1, 2)
    step = log["step"]
    left.plot(step, log["copy1_loss"], color="0.45", label="first copy")
    left.plot(step, log["copy2_loss"], color="#2ca02c", label="second copy")
    left.set(xlabel="training step", ylabel="loss (nats)", title="Copy losses")
    left.set_ylim(bottom=0)
    left.legend(loc="lower left")
    lp, hp = prev_head
    li, hi = ind_head
    right.plot(
        step,
        log[f"prev_{lp}_{hp}"],
        color=PREV_COLOUR,
        label=f"previous token, layer {lp} head {hp}",
    )
    right.plot(
        step,
        log[f"pm_{li}_{hi}"],
        color=IND_COLOUR,
        label=f"prefix matching, layer {li} head {hi}",
    )
    right.set(
        xlabel="training step", ylabel="score", title="The heads' scores",
        ylim=(0, 1.05),
    )
    right.legend(loc="upper left", fontsize=8)
    for ax in (left, right):  # a few round steps, never crowded
        ax.xaxis.set_major_locator(MaxNLocator(4, integer=True))
    if step_of_change is not None:
        for ax in (left, right):
            ax.axvline(step_of_change, color="0.3", linestyle=":", linewidth=1)
        left.text(step_of_change, 0.03, f" step {step_of_change:,}", fontsize=8,
                  color="0.3", transform=left.get_xaxis_transform())
    fig.suptitle(title)
    return fig


def composition(
    grids: dict,
    baseline: np.ndarray,
    *,
    title="Composition: what each layer-1 head reads from layer 0",
):
    """One grid per kind, ``{"Q": (n_heads_1, n_heads_0), ...}``: rows are
    layer-1 heads (readers), columns layer-0 heads (writers), each value
    written in its cell; cells above the 95th percentile of ``baseline``
    (random matrices) are framed, and the baseline is named in the title."""
    fig = _figure((3.0 * len(grids) + 0.8, 3.0))
    axes = np.atleast_1d(fig.subplots(1, len(grids)))
    top = max(float(np.max(g)) for g in grids.values())
    cut = float(np.percentile(baseline, 95))
    for ax, (kind, grid) in zip(axes, grids.items()):
        framed = [ij for ij, v in np.ndenumerate(np.asarray(grid)) if v > cut]
        im = _value_grid(ax, grid, top, "{:.3f}", framed)
        ax.set(
            xlabel="layer-0 head (writes)",
            ylabel="layer-1 head (reads)",
            title=f"{kind}-composition",
        )
    fig.colorbar(im, ax=axes.tolist(), shrink=0.8)
    fig.suptitle(
        f"{title}\nrandom matrices: mean {baseline.mean():.3f}, 95th "
        f"percentile {cut:.3f} (framed: above it)",
        fontsize=11,
    )
    return fig


def dla_bars(names, values: dict, *, title="Direct logit attribution"):
    """Grouped horizontal bars: one group per part of the residual stream
    (``names``), one bar per condition, ``values = {label: (n_parts,)}``."""
    fig = _figure((8.0, 0.6 + 0.32 * len(names) * max(1, len(values) / 1.5)))
    ax = fig.add_subplot()
    k = len(values)
    h = 0.8 / k
    for i, (label, v) in enumerate(values.items()):
        ax.barh(np.arange(len(names)) + (i - (k - 1) / 2) * h, v, height=h, label=label)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.axvline(0, color="0.3", linewidth=0.8)
    ax.set(xlabel="contribution to the correct token's logit", title=title)
    ax.legend(loc="best")
    return fig
