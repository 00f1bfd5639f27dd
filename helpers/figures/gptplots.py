"""Figures of lesson 11: training curves, loss per position, head scores.

Like :mod:`helpers.figures.plots`: every function takes arrays and labels, returns a
figure that shows itself in Jupyter (``plots.AttentionFigure``), and computes
nothing about the model itself.
"""

from __future__ import annotations

import numpy as np

from helpers.figures import alt
from helpers.figures.common import AttentionFigure

__all__ = ["decode_times", "head_scores", "loss_by_position", "loss_curves",
           "row_weights", "training_curves"]


def _figure(figsize) -> AttentionFigure:
    return AttentionFigure(figsize=figsize, layout="constrained")


def training_curves(
    log: dict, *, events=None, title="How the small GPT learned"
) -> AttentionFigure:
    """Two panels from the training log (``gpt.training_log()``).

    Left: train and held-out loss (nats per token) against the step. Right:
    on random repeated sequences, the loss on the first and on the second
    copy, and (right axis) the best prefix-matching score of any head: the
    induction head's phase change. ``events`` maps a step to a label drawn as
    a dotted line on both panels (for example where the training mix changed).
    """
    fig = _figure((11.0, 4.0))
    left, right = fig.subplots(1, 2)
    step = log["step"]
    left.plot(
        step[1:], log["train_loss"][1:], label="train (running mean)", color="#1f77b4"
    )
    left.plot(step, log["val_loss"], label="held-out plays", color="#ff7f0e")
    left.set(
        xlabel="training step", ylabel="loss (nats per token)", title="Next-token loss"
    )
    left.legend()
    right.plot(step, log["copy1_loss"], label="first copy", color="#7f7f7f")
    right.plot(step, log["copy2_loss"], label="second copy", color="#2ca02c")
    right.set(
        xlabel="training step",
        ylabel="loss (nats per token)",
        title="Random tokens, repeated",
    )
    right.set_ylim(0, 1.15 * max(log["copy1_loss"].max(), log["copy2_loss"].max()))
    for at, label in (events or {}).items():
        for ax in (left, right):
            ax.axvline(at, color="#555555", linestyle=":", linewidth=1.2)
        left.text(
            at,
            0.98,
            " " + label,
            transform=left.get_xaxis_transform(),
            ha="left",
            va="top",
            fontsize=9,
            color="#555555",
        )
    twin = right.twinx()
    twin.plot(
        step,
        log["prefix_matching"],
        color="#d62728",
        linestyle="--",
        label="best prefix-matching score",
    )
    twin.set_ylim(0, 1)
    twin.set_ylabel("prefix-matching score", color="#d62728")
    lines = [ln for ln in right.get_lines() + twin.get_lines()
             if not ln.get_label().startswith("_")]
    right.legend(lines, [ln.get_label() for ln in lines], loc="lower left")
    fig.suptitle(title)
    fig.alt = (f"{title}. Next-token loss against the training step: "
               + "; ".join((alt.series("train", step[1:], log["train_loss"][1:]),
                            alt.series("held-out plays", step, log["val_loss"])))
               + ". Random tokens repeated: " + "; ".join(
                   alt.series(name, step, log[key]) for name, key in (
                       ("first copy", "copy1_loss"), ("second copy", "copy2_loss"),
                       ("best prefix-matching score", "prefix_matching"))) + ".")
    return fig


def loss_curves(
    curves: dict,
    *,
    title="Training loss",
    xlabel="training step",
    ylabel="loss (nats per token)",
) -> AttentionFigure:
    """One line per run, ``{label: (n_steps,) losses}``, against the step."""
    fig = _figure((7.5, 3.6))
    ax = fig.add_subplot()
    for label, y in curves.items():
        ax.plot(np.arange(1, len(y) + 1), np.asarray(y, dtype=float), label=label)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.set_ylim(bottom=0)
    ax.legend()
    fig.alt = f"{title}, {ylabel} against the {xlabel}: " + "; ".join(
        alt.series(label, np.arange(1, len(y) + 1), y)
        for label, y in curves.items()) + "."
    return fig


def loss_by_position(
    curves: dict, length: int, *, title="Loss on a random sequence repeated twice"
) -> AttentionFigure:
    """One line per condition: ``curves = {label: (2 L,) nats}``, where entry
    ``t`` is the loss of predicting token ``t + 1`` of
    ``gpt.repeated_sequence(..., L, ...)``; the second copy is shaded."""
    fig = _figure((9.0, 3.8))
    ax = fig.add_subplot()
    for label, y in curves.items():
        y = np.asarray(y, dtype=float)
        ax.plot(np.arange(1, len(y) + 1), y, label=label, linewidth=1.6)
    ax.axvspan(length + 0.5, 2 * length + 0.5, color="#2ca02c", alpha=0.08)
    ax.text(
        1.5 * length + 0.5,
        0.97,
        "second copy",
        transform=ax.get_xaxis_transform(),
        ha="center",
        va="top",
        color="#2ca02c",
    )
    ax.text(
        0.5 * length + 0.5,
        0.97,
        "first copy",
        transform=ax.get_xaxis_transform(),
        ha="center",
        va="top",
        color="#555555",
    )
    ax.set(
        xlabel="position of the predicted token",
        ylabel="loss (nats)",
        title=title,
        xlim=(0.5, 2 * length + 0.5),
    )
    ax.set_ylim(bottom=0)
    ax.legend(loc="center left")
    bits = []
    for label, y in curves.items():
        y = np.asarray(y, dtype=float)
        bits.append(f"{label}: mean {alt.number(y[:length].mean())} nats on the "
                    f"first copy, {alt.number(y[length:].mean())} on the second")
    fig.alt = (f"{title}, loss at each of {2 * length} positions (the second "
               f"copy from position {length + 1}): " + "; ".join(bits) + ".")
    return fig


def head_scores(
    scores: dict, *, chance=None, named=None, suptitle="Every head, scored"
) -> AttentionFigure:
    """One small grid per score, ``{name: (n_layers, n_heads)}``: layers are
    rows, heads columns, each value written in its cell, on one fixed colour
    scale from 0 to 1 (so that a grid of small scores looks small).
    ``chance`` maps a score name to its chance level, written in the panel's
    title; ``named`` maps a score name to the ``(layer, head)`` to frame."""
    fig = _figure((4.6 * len(scores), 3.6))
    axes = np.atleast_1d(fig.subplots(1, len(scores)))
    for ax, (name, grid) in zip(axes, scores.items()):
        grid = np.asarray(grid, dtype=float)
        im = ax.imshow(grid, cmap="viridis", vmin=0.0, vmax=1.0)
        for (i, j), v in np.ndenumerate(grid):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=10,
                    color="black" if v > 0.6 else "white")
        if named and name in named:
            li, hj = named[name]
            ax.add_patch(_frame(hj, li))
        ax.set_xticks(range(grid.shape[1]))
        ax.set_yticks(range(grid.shape[0]))
        title = name.replace("_", " ")
        if chance and name in chance:
            title += f"\n(chance {chance[name]:.2f}, a perfect head 1.00)"
        ax.set(xlabel="head", ylabel="layer", title=title)
        fig.colorbar(im, ax=ax, shrink=0.8, label="mean weight")
    fig.suptitle(suptitle)
    bits = []
    for name, grid in scores.items():
        grid = np.asarray(grid, dtype=float)
        order = np.argsort(-grid, axis=None, kind="stable")
        best = ", ".join(f"layer {i} head {j} {alt.number(grid[i, j])}" for i, j in
                         (np.unravel_index(f, grid.shape) for f in order[:3]))
        i, j = np.unravel_index(order[-1], grid.shape)
        bits.append(f"{name.replace('_', ' ')} score of {grid.size} heads "
                    f"({grid.shape[0]} layers × {grid.shape[1]} heads): highest "
                    f"{best}; lowest layer {i} head {j} {alt.number(grid[i, j])}"
                    + (f"; chance {alt.number(chance[name])}"
                       if chance and name in chance else ""))
    fig.alt = f"{suptitle}. " + ". ".join(bits) + "."
    return fig


def row_weights(
    rows: dict, *, chance=None, title="Weight on the previous token, row by row"
) -> AttentionFigure:
    """How the weights of many rows spread, one bar group per head:
    ``rows = {label: (n_rows,) weights in [0, 1]}``, counted in 10 bins of
    0.1 as a share of the rows; ``chance`` draws the weight a head spreading
    evenly over the tokens it may see would give (a dotted line)."""
    fig = _figure((8.0, 3.8))
    ax = fig.add_subplot()
    edges = np.linspace(0.0, 1.0, 11)
    width = 0.1 / (len(rows) + 1)
    for k, (label, w) in enumerate(rows.items()):
        w = np.asarray(w, dtype=float)
        share = np.histogram(np.clip(w, 0, 1), bins=edges)[0] / max(len(w), 1)
        ax.bar(edges[:-1] + (k + 0.5) * width + width / 2, share, width=width,
               label=f"{label}: median {np.median(w):.2f}, mean {w.mean():.2f}")
    if chance is not None:
        ax.axvline(chance, color="#555555", linestyle=":", linewidth=1.5)
        ax.text(chance + 0.01, 0.55, f"chance {chance:.2f}", ha="left", va="center",
                transform=ax.get_xaxis_transform(), color="#555555",
                bbox=dict(facecolor="white", edgecolor="none", alpha=0.8))
    ax.set(xlabel="weight a row puts on the token just before it",
           ylabel="share of the rows", title=title, xlim=(0, 1))
    ax.set_xticks(edges)
    ax.legend(loc="upper right")
    fig.alt = (f"{title}: share of the rows in each tenth of weight, per head. "
               + "; ".join(f"{label}: median {alt.number(np.median(w))}, mean "
                           f"{alt.number(np.mean(w))}, rows above 0.5 "
                           f"{np.mean(np.asarray(w) > 0.5):.0%}"
                           for label, w in rows.items())
               + (f"; chance {alt.number(chance)}." if chance is not None else "."))
    return fig


def decode_times(
    timings: dict, *, title="The cost of one new token (best of 10 runs, one thread)"
) -> AttentionFigure:
    """Milliseconds against the text length ``n`` (``gpt.decode_timings``):
    one new token by recomputing everything, one decode step with the KV
    cache, and (dashed) the prefill that fills the cache, once per prompt."""
    fig = _figure((7.5, 3.8))
    ax = fig.add_subplot()
    n = np.asarray(timings["n"])
    ax.plot(n, timings["recompute"], "o-", label="new token, recomputing everything",
            color="#d62728")
    ax.plot(n, timings["cached"], "o-", label="new token, with the KV cache (a step)",
            color="#1f77b4")
    ax.plot(n, timings["prefill"], "s--", label="prefill: the whole prompt, once",
            color="#7f7f7f")
    ax.set(xlabel="tokens in the text so far (n)", ylabel="milliseconds", title=title)
    ax.set_ylim(bottom=0)
    ax.set_xlim(0, n.max() * 1.05)
    ax.legend(loc="upper left")
    fig.alt = (f"{title}, milliseconds against n: " + "; ".join(
        alt.series(name, n, timings[key]) for name, key in (
            ("recomputing", "recompute"), ("KV-cache step", "cached"),
            ("prefill", "prefill"))) + ".")
    return fig


def _frame(x, y):
    from matplotlib.patches import Rectangle

    return Rectangle(
        (x - 0.5, y - 0.5), 1, 1, fill=False, edgecolor="#d62728", linewidth=2.5
    )
