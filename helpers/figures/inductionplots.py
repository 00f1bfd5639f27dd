"""Figures of lesson 13: copying loss, the hand-built circuit's weights,
patterns side by side, head scores against chance, the training log's phase
change (with chance lines and the recipe's change of step), Q-, K- and
V-composition, the induction head's OV and full QK circuits, and direct
logit attribution.

Like :mod:`helpers.figures.plots`: every function takes arrays and labels, returns a
figure that shows itself in Jupyter (``plots.AttentionFigure``), and computes
nothing about a model. Rows are queries and columns keys in every pattern;
the masked future is grey. Sizes stay within a notebook's width (about 9
inches at 100 dpi), so that labels are read at their own size.

Every figure sets ``fig.alt``, a text alternative made from the numbers it
draws. Nothing is told by colour alone: lines differ by style and legend,
bars by hatch and legend, and frames are white on black (at least 3:1
against any cell of the viridis scale).
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from helpers.figures import alt
from helpers.figures.common import MASKED_COLOUR, AttentionFigure

__all__ = [
    "circuit_weights",
    "circuits",
    "copy_loss",
    "dla_bars",
    "head_scores",
    "composition",
    "patterns",
    "phase_change",
]

#: One colour, one meaning, in every figure of lesson 13 (and its explorer
#: and live monitor); each is also told by a line style, marker or hatch.
SCHEME = {
    "first copy": {"color": "0.45", "ls": "--", "marker": "o", "hatch": ".."},
    "second copy": {"color": "#2ca02c", "ls": "-", "marker": "v", "hatch": ""},
    "previous-token head": {"color": "#1f77b4", "ls": "-", "marker": "o"},
    "induction head": {"color": "#d62728", "ls": "-", "marker": "s"},
    "other head": {"color": "#9467bd", "ls": ":", "marker": "D"},
    "other previous-token head": {"color": "#17becf", "ls": "--", "marker": "^"},
    "training loss": {"color": "0.15", "ls": "-."},
    "whole model": {"color": "0.15", "ls": "-", "marker": ".", "hatch": ""},
    "ablated": {"color": "#ff7f0e", "ls": "--", "marker": "x", "hatch": "////"},
    "control": {"color": "0.45", "ls": ":", "marker": "x"},
    "phase change": {"color": "0.3", "ls": ":"},
    "recipe change": {"color": "black", "ls": "-."},
}
PREV_COLOUR = SCHEME["previous-token head"]["color"]
IND_COLOUR = SCHEME["induction head"]["color"]
HATCHES = ("", "////", "..", "xx")


def line_style(role: str, **extra) -> dict:
    """``plot`` keywords (colour, line style, marker) of a role of SCHEME."""
    st = SCHEME[role]
    return {"color": st["color"], "linestyle": st["ls"],
            **({"marker": st["marker"]} if "marker" in st else {}), **extra}


def _frame(ax, x, y, width=1.0, height=1.0):
    """A cell's frame, white on black: one of the two stands out by at least
    3:1 against any colour of the map under it."""
    for colour, lw in (("black", 2.6), ("white", 1.0)):
        ax.add_patch(Rectangle((x - 0.5, y - 0.5), width, height, fill=False,
                               edgecolor=colour, linewidth=lw))


def _figure(figsize) -> AttentionFigure:
    return AttentionFigure(figsize=figsize, layout="constrained")


def _shade_copies(ax, start, length):
    """Shade the second copy (x = predicted token's position) and name both."""
    ax.axvspan(
        start + length - 0.5, start + 2 * length - 0.5,
        color=SCHEME["second copy"]["color"], alpha=0.08
    )
    for x0, text, colour in (
        (start, "first copy", "#555555"),
        (start + length, "second copy", "#1e7b1e"),
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
    roles = ["second copy", "control", "first copy"]  # the repeat: green
    for k, (label, y) in enumerate(curves.items()):
        y = np.asarray(y, dtype=float)
        ax.plot(np.arange(1, len(y) + 1), y, label=label, linewidth=1.6,
                markersize=4, **line_style(roles[k % 3]))
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
    bits = []
    for label, y in curves.items():
        y = np.asarray(y, dtype=float)
        first = y[start : start + length - 1].mean()
        second = y[start + length : start + 2 * length - 1].mean()
        a, b = start + 1, start + length - 1  # the predicted tokens of each copy
        bits.append(f"{label}: first copy (positions {a}-{b}) {alt.number(first)} "
                    f"nats on average, second copy (positions {a + length}-"
                    f"{b + length}) {alt.number(second)}")
    fig.alt = (f"{title}, one line per text against the predicted token's "
               f"position. " + "; ".join(bits) + "."
               + (f" A dashed line marks a uniform guess, {alt.number(uniform)} nats."
                  if uniform is not None else ""))
    return fig


def _bounds(ax, edges, n_rows, n_cols, vertical=True, horizontal=True):
    for e in edges:
        if vertical and 0 < e < n_cols:
            ax.axvline(e - 0.5, color="white", linewidth=0.8)
        if horizontal and 0 < e < n_rows:
            ax.axhline(e - 0.5, color="white", linewidth=0.8)


def circuit_weights(W: dict, *,
                    title="The eight attention matrices of the hand-built circuit"):
    """The eight matrices of :func:`helpers.analysis.circuits.build_circuit`, each drawn
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
    tops = {k: float(np.abs(W[k]).max()) for k, _ in names}
    fig.alt = (f"{title} (the embedding and the unembedding W_U are not drawn): "
               "each is cut into the token, position, "
               "previous and output blocks of the residual stream. Layer 0: W_Q0 "
               f"reads the position (largest entry {alt.number(tops['W_Q0'])}), W_K0 "
               "the position shifted by one, W_V0 the token, W_O0 writes into "
               "previous. Layer 1: W_Q1 reads the token (largest entry "
               f"{alt.number(tops['W_Q1'])}), W_K1 the previous block, W_V1 the "
               "token, W_O1 writes into output. Each nonzero block is an identity.")
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
                _frame(ax, s + j + 1, s + L + j)
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
    bits = []
    for A, labels, title, *rest in panels:
        A = np.asarray(A, dtype=float)
        n = len(A)
        text = f"{title}, {n} queries × {n} keys"
        if rest and rest[0] is not None:
            s, L = rest[0]
            j = np.arange(L - 1)
            w = A[s + L + j, s + j + 1]
            hit = int(np.sum(A[s + L + j].argmax(axis=1) == s + j + 1))
            text += (f": on the {L - 1} framed cells (each second-copy query's "
                     f"key after its first occurrence) {alt.number(w.mean())} on "
                     f"average, the row's largest weight in {hit} of {L - 1} rows")
        else:
            back = np.arange(n) - A.argmax(axis=1)
            mode = int(np.bincount(back[1:]).argmax()) if n > 1 else 0
            text += (f": most rows put their largest weight {mode} key"
                     f"{'s' * (mode != 1)} back"
                     f" ({int(np.sum(back[1:] == mode))} of {n - 1} rows)")
        bits.append(text)
    fig.alt = ((f"{suptitle}. " if suptitle else "")
               + "Attention patterns, rows are queries, columns keys, the future "
               "masked. " + "; ".join(bits) + ".")
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
        _frame(ax, j, i)
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
    bits = []
    for name, grid in scores.items():
        grid = np.asarray(grid, dtype=float)
        cells = ", ".join(f"layer {la} head {hd} {alt.number(v)}"
                          for (la, hd), v in np.ndenumerate(grid))
        bits.append(f"{name} (chance {alt.number(chance[name])}): {cells}")
    fig.alt = f"{suptitle}. " + "; ".join(bits) + "."
    return fig


def phase_change(
    log: dict,
    prev_head,
    ind_head,
    *,
    step_of_change=None,
    recipe_step=None,
    chance=None,
    other_head=None,
    other_prev=None,
    title="The phase change, from the training log",
):
    """Left: the probe's first- and second-copy loss against the step, and the
    training loss (``log["train_loss"]``, where it is a number). Right: the
    named previous-token head's score and the induction head's prefix
    matching (and ``other_head``'s, a second layer-1 head, dotted;
    ``other_prev``'s previous-token score, a second layer-0 head, dashed).
    ``step_of_change`` draws a dotted line on both; ``recipe_step`` a
    dash-dotted one where the training recipe changes; ``chance`` ``{"loss":
    ln V, "previous token": ..., "prefix matching": ...}`` draws each chance
    level as a thin grey line, named."""
    chance = chance or {}
    fig = _figure((9.0, 3.8))
    left, right = fig.subplots(1, 2)
    step = log["step"]
    left.plot(step, log["copy1_loss"], label="first copy", markevery=8,
              markersize=3, **line_style("first copy"))
    left.plot(step, log["copy2_loss"], label="second copy", markevery=8,
              markersize=3, **line_style("second copy"))
    trained = np.isfinite(log["train_loss"]) if "train_loss" in log else None
    if trained is not None and trained.any():
        left.plot(step[trained], log["train_loss"][trained], label="training loss",
                  linewidth=1, **line_style("training loss"))
    left.set(xlabel="training step", ylabel="loss (nats)", title="Losses")
    left.set_ylim(0, 1.15 * max(np.nanmax(log["copy1_loss"]), chance.get("loss", 0)))
    lp, hp = prev_head
    li, hi = ind_head
    curves = [
        (log[f"prev_{lp}_{hp}"], "previous-token head",
         f"previous token, layer {lp} head {hp}"),
        (log[f"pm_{li}_{hi}"], "induction head",
         f"prefix matching, layer {li} head {hi}"),
    ]
    if other_prev is not None:
        lo, ho = other_prev
        curves.insert(1, (log[f"prev_{lo}_{ho}"], "other previous-token head",
                          f"previous token, layer {lo} head {ho}"))
    if other_head is not None:
        lo, ho = other_head
        curves.append((log[f"pm_{lo}_{ho}"], "other head",
                       f"prefix matching, layer {lo} head {ho}"))
    for y, role, label in curves:
        right.plot(step, y, label=label, markevery=8, markersize=3.5,
                   **line_style(role))
    right.set(
        xlabel="training step", ylabel="score", title="The heads' scores",
        ylim=(0, 1.05),
    )
    for ax, key, name in ((left, "loss", "uniform guess"),
                          (right, "previous token", "chance, previous token"),
                          (right, "prefix matching", "chance, prefix matching")):
        if key in chance:
            ax.axhline(chance[key], color="0.55", lw=0.8, ls=(0, (1, 2)))
            ax.text(0.99, chance[key], f"{name} {chance[key]:.2f}", fontsize=7,
                    color="0.3", ha="right", va="bottom",
                    transform=ax.get_yaxis_transform())
    for ax in (left, right):  # a few round steps, never crowded
        ax.xaxis.set_major_locator(MaxNLocator(4, integer=True))
    if step_of_change is not None:
        for ax in (left, right):
            ax.axvline(step_of_change, linewidth=1, **line_style("phase change"))
        left.text(step_of_change, 0.03, f"phase change, step {step_of_change:,} ",
                  fontsize=8,
                  color="0.3", ha="right", transform=left.get_xaxis_transform())
    if recipe_step is not None:
        for ax in (left, right):
            ax.axvline(recipe_step, linewidth=1, **line_style("recipe change"))
        left.text(recipe_step, 0.03, f" {recipe_step:,}: recipe changes",
                  fontsize=8, color="black", transform=left.get_xaxis_transform())
    left.legend(loc="center left", fontsize=8)
    right.legend(loc="center left", fontsize=7)
    fig.suptitle(title)
    end = int(step[-1])
    text = [f"{title}, over {end:,} training steps."]
    for name, y in (("First-copy loss", log["copy1_loss"]),
                    ("second-copy loss", log["copy2_loss"])):
        text.append(f"{name} {alt.number(y[0])} at step 0, {alt.number(y[-1])} at "
                    f"the end;")
    if trained is not None and trained.any():
        y = log["train_loss"][trained]
        text.append(f"training loss {alt.number(y[0])} at step "
                    f"{int(step[trained][0]):,}, {alt.number(y[-1])} at the end;")
    for y, _, label in curves:
        top = int(np.nanargmax(y))
        text.append(f"{label}: {alt.number(y[0])} at step 0, highest "
                    f"{alt.number(y[top])} at step {int(step[top]):,}, "
                    f"{alt.number(y[-1])} at the end;")
    if step_of_change is not None:
        k = int(np.searchsorted(step, step_of_change))
        text.append(f"a dotted line at step {step_of_change:,}, where the second "
                    f"copy first costs less than half the first "
                    f"({alt.number(log['copy2_loss'][k])} nats);")
    if recipe_step is not None:
        k = int(np.searchsorted(step, recipe_step))
        text.append(f"a dash-dotted line at step {recipe_step:,}, where the "
                    "training recipe changes (second-copy loss "
                    f"{alt.number(log['copy2_loss'][max(k - 1, 0)])} just before);")
    if chance:
        text.append("thin grey lines: chance levels ("
                    + ", ".join(f"{k} {alt.number(v)}" for k, v in chance.items())
                    + ").")
    fig.alt = " ".join(text)
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
    bits = []
    for kind, grid in grids.items():
        cells = ", ".join(f"layer-1 head {i} from layer-0 head {j} {alt.number(v)}"
                          + (" (framed)" if v > cut else "")
                          for (i, j), v in np.ndenumerate(np.asarray(grid)))
        bits.append(f"{kind}-composition: {cells}")
    fig.alt = (f"{title}, against random matrices (mean "
               f"{alt.number(baseline.mean())}, 95th percentile {alt.number(cut)}). "
               + "; ".join(bits) + ".")
    return fig


def dla_bars(names, values: dict, *, title="Direct logit attribution"):
    """Grouped horizontal bars: one group per part of the residual stream
    (``names``), one bar per condition, ``values = {label: (n_parts,)}``."""
    fig = _figure((8.0, 0.6 + 0.32 * len(names) * max(1, len(values) / 1.5)))
    ax = fig.add_subplot()
    k = len(values)
    h = 0.8 / k
    for i, (label, v) in enumerate(values.items()):
        st = SCHEME.get(label, {"color": f"C{i}", "hatch": HATCHES[i % len(HATCHES)]})
        ax.barh(np.arange(len(names)) + (i - (k - 1) / 2) * h, v, height=h,
                label=label, color=st["color"], hatch=st.get("hatch", ""),
                edgecolor="black", linewidth=0.5)
    ax.set_yticks(range(len(names)), names)
    ax.invert_yaxis()
    ax.axvline(0, color="0.3", linewidth=0.8)
    ax.set(xlabel="contribution to the correct token's logit", title=title)
    ax.legend(loc="best")
    fig.alt = f"{title}. " + " ".join(
        alt.bars(label, list(names), np.asarray(v)) for label, v in values.items())
    return fig


def circuits(ov, qk, labels, *, ov_score, qk_score,
             title="The induction head's circuits, read from the weights"):
    """Left: the OV circuit ``(V, V)`` (row: the token attended to, column:
    the logit it raises); right: the full QK circuit ``(V, V)`` (row: the
    query's token, column: the key's previous token, as the previous-token
    head wrote it). ``labels``: the V tokens; ``*_score``: the share of rows
    whose largest entry is on the diagonal. Each row centred; the colour
    scale is symmetric about 0."""
    fig = _figure((9.0, 4.6))
    axes = fig.subplots(1, 2)
    for ax, M, name, rows, cols, score, what in (
        (axes[0], ov, "OV circuit $W_E W_{OV} W_U$", "token attended to",
         "logit raised", ov_score, "its own logit on top"),
        (axes[1], qk, "full QK circuit through the previous-token head",
         "query's token", "key's previous token", qk_score, "its own token on top"),
    ):
        M = np.asarray(M, dtype=float)
        top = float(np.abs(M).max()) or 1.0
        im = ax.imshow(M, cmap="viridis", vmin=-top, vmax=top,
                       interpolation="nearest")
        ax.set(xlabel=cols, ylabel=rows)
        ax.set_title(f"{name}\n{score:.0%} of rows have {what}", fontsize=10)
        ticks = list(range(0, len(M), max(1, len(M) // 8)))
        ax.set_xticks(ticks, [labels[i] for i in ticks], rotation=90, fontsize=7)
        ax.set_yticks(ticks, [labels[i] for i in ticks], fontsize=7)
        fig.colorbar(im, ax=ax, shrink=0.75, label="minus the row's mean")
    fig.suptitle(title)
    d_ov, d_qk = np.diag(np.asarray(ov)), np.diag(np.asarray(qk))
    fig.alt = (f"{title}. Two {len(ov)} by {len(ov)} grids, one row and one column "
               f"per word, each row centred. OV circuit: {ov_score:.0%} of rows "
               "have their largest entry on the diagonal, a bright diagonal "
               f"(diagonal mean {alt.number(d_ov.mean())}, largest entry "
               f"{alt.number(np.max(ov))}): attending to a word raises that word's "
               f"logit. Full QK circuit: {qk_score:.0%} of rows have their largest "
               f"entry on the diagonal (diagonal mean {alt.number(d_qk.mean())}, "
               f"largest entry {alt.number(np.max(qk))}): a query scores highest "
               "the key whose previous word is its own word.")
    return fig
