"""Bars and lines: one weight per token (``bar_view``), measured cost
against size on log-log axes (``loglog_cost``) and a word's vectors
separating by sense, layer by layer (``sense_by_layer``, lesson 10), and a
training run's loss curve (``loss_figure``, lesson 09)."""

from __future__ import annotations


import numpy as np
from matplotlib import colormaps
from matplotlib.colors import Normalize
from matplotlib.lines import Line2D
from matplotlib.ticker import (
    FixedFormatter,
    FixedLocator,
    NullFormatter,
    NullLocator,
)

from helpers.figures import alt as alt_text
from helpers.figures.common import (
    AttentionFigure,
    _empty_message,
    _labels,
    _new_figure,
    _scalar_mappable,
    _token_ticks,
)


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
    text = f"{title}. " + alt_text.bars(ylabel, names, v)
    if highlight is not None and 0 <= int(highlight) < v.size:
        text += (f"; outlined in black: '{names[int(highlight)]}' "
                 f"{alt_text.number(v[int(highlight)])}")
    fig.alt = text + "."
    return fig


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
    parts = []
    for label, y in panels:
        ok = (n > 0) & (y > 0) & np.isfinite(y)
        if not ok.any():
            parts.append(f"{label}: no measurements")
            continue
        text = alt_text.series(label, n[ok], y[ok])
        k = alt_text.slope(n[ok], y[ok])
        if k is not None:
            text += (f"; on the log-log axes its slope is about {alt_text.number(k)}"
                     f" (the dashed guide's slope is 2: cost ∝ n²)")
        parts.append(text)
    fig.alt = (f"{title}, against context size n on log-log axes. "
               + ". ".join(parts) + ".")
    return fig


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
    step_names=None,
    step_label="layer (0 = embeddings)",
) -> AttentionFigure:
    """How one word's vectors separate by sense, layer by layer.

    cos_gap : (m, L + 1), for each of ``m`` sentences and each layer the
        cosine to sense 0's centroid minus the cosine to sense 1's.
    coords : (L + 1, m, 2), a 2-D projection of the ``m`` vectors per layer.
    senses : (m,) int in {0, 1}, each sentence's sense (colour).

    Left: one line per sentence over the layers (above 0 = nearer sense 0).
    Right: the 2-D projection at the layers in ``layers_shown`` (by default
    0, 1 and the last), one panel each, points coloured by sense.
    ``step_names`` (L + 1 strings) name the steps on the left's axis and in
    the panels' titles (by default "layer 0", ...); ``step_label`` is the
    left axis's label.
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
    markers = ["o", "s"]  # the senses differ by marker as well as by colour
    markers_said = ["circles", "squares"]
    fig = _new_figure(figsize or (4.4 + 3.0 * len(layers_shown), 3.8))
    grid = fig.add_gridspec(1, 1 + len(layers_shown),
                            width_ratios=[1.5] + [1] * len(layers_shown))
    ax = fig.add_subplot(grid[0, 0])
    for k in range(m):
        ax.plot(range(n_layers), gap[k], marker=markers[senses[k]], ms=4,
                color=colours[senses[k]], alpha=0.8)
    ax.axhline(0, color="0.5", lw=0.8, ls="--")
    if step_names is None:
        step_names = [f"layer {k}" for k in range(n_layers)]
        ticks = list(range(n_layers))
    else:
        step_names = [str(t) for t in step_names]
        ticks = [t.split()[-1] if t.split() else t for t in step_names]
        if len(step_names) != n_layers:
            raise ValueError(f"{len(step_names)} step_names for {n_layers} steps")
    ax.set_xticks(range(n_layers), ticks)
    ax.set_xlabel(step_label)
    ax.set_ylabel(f"cos to {sense_names[0]} − cos to {sense_names[1]}")
    ax.set_title(f'"{word}": nearer which sense?')
    for j, layer in enumerate(layers_shown):
        axp = fig.add_subplot(grid[0, 1 + j])
        for s in (0, 1):
            pts = coords[layer][senses == s]
            axp.scatter(pts[:, 0], pts[:, 1], color=colours[s], marker=markers[s],
                        s=28, label=sense_names[s])
        axp.set_title(step_names[layer])
        axp.set_xlabel("direction 1")
        if j == 0:
            axp.set_ylabel("direction 2")
        axp.set_xticks([])
        axp.set_yticks([])
    handles = [Line2D([], [], color=colours[s], marker=markers[s], ms=6,
                      label=f"{sense_names[s]} ({markers_said[s]})") for s in (0, 1)]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=9)
    head = title or f'The vector of "{word}" in {m} sentences, layer by layer'
    fig.suptitle(head)
    fig.alt = (_sense_alt(head, gap, senses, sense_names, step_names, word)[:-1]
               + ". " + _panels_alt(coords, senses, sense_names, markers_said,
                                    step_names, layers_shown))
    return fig


def _panels_alt(coords, senses, sense_names, markers_said, step_names, shown):
    """One sentence per 2-D panel: all points on one spot, or how many
    points lie nearer the centre of their own sense's points than the other's."""
    parts = []
    for layer in shown:
        pts = coords[layer]
        size = float(np.ptp(pts, axis=0).max()) if len(pts) else 0.0
        name = f"Panel '{step_names[layer]}'"
        if size < 1e-9:
            parts.append(f"{name}: all {len(pts)} points on one spot")
            continue
        centres = np.stack([pts[senses == s].mean(axis=0) for s in (0, 1)])
        dist = np.linalg.norm(pts[:, None, :] - centres[None], axis=-1)   # (m, 2)
        own = dist[np.arange(len(pts)), senses] < dist[np.arange(len(pts)), 1 - senses]
        gap = float(np.linalg.norm(centres[0] - centres[1]))
        text = (f"{name}: {sense_names[0]} points ({markers_said[0]}) and "
                f"{sense_names[1]} points ({markers_said[1]}), ")
        if own.all():
            text += ("two groups: every point is nearer the centre of its own "
                     "sense's points than the other's")
        else:
            text += (f"mixed: {int((~own).sum())} of {len(pts)} points are not "
                     "nearer the centre of their own sense's points")
        parts.append(text + f" (centres {alt_text.number(gap / size)} of the "
                     "panel's width apart)")
    return ". ".join(parts) + "."


def _sense_alt(head, gap, senses, sense_names, step_names, word):
    """Each sense's mean gap at the first and last step, and from which step
    on every sentence of sense 0 is above every sentence of sense 1."""
    n_steps = gap.shape[1]
    parts = [head, "Left: one line per sentence, above 0 = nearer "
             f"{sense_names[0]}"]
    for s in (0, 1):
        rows = gap[senses == s]
        if rows.size:
            mean = rows.mean(axis=0)
            parts.append(f"{sense_names[s]} sentences ({len(rows)}): mean "
                         f"gap {alt_text.number(mean[0])} ({step_names[0]}) to "
                         f"{alt_text.number(mean[-1])} ({step_names[-1]})")
    a, b = gap[senses == 0], gap[senses == 1]
    apart = [k for k in range(n_steps) if a.size and b.size
             and a[:, k].min() > b[:, k].max()]
    if not apart:
        parts.append(f"the two senses of '{word}' overlap at every step")
    elif apart == list(range(apart[0], n_steps)):
        parts.append(f"every {sense_names[0]} sentence is above every "
                     f"{sense_names[1]} one from '{step_names[apart[0]]}' on")
    else:
        parts.append(f"the senses are fully apart at {len(apart)} of {n_steps} "
                     f"steps, first at '{step_names[apart[0]]}'")
    return ". ".join(parts) + "."


def loss_figure(history, title="Training loss", ylabel="training loss"):
    """A still picture of a loss curve (one point per step, ``history`` a
    list of losses); ``ylabel`` names what the loss is (say "cross-entropy
    + weight penalty" when ``l2`` > 0). Lesson 09 calls it as
    ``widgets.loss_figure``; the live curve is ``widgets.TrainingMonitor``."""
    fig = AttentionFigure(figsize=(6.0, 3.0), layout="constrained")
    ax = fig.subplots()
    ax.plot(np.arange(1, len(history) + 1), history, color="#1f77b4")
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    ax.set_xlabel("training step")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    steps = np.arange(1, len(history) + 1)
    text = alt_text.series(" ".join(str(ylabel).split()), steps, history)
    if len(history) >= 2:
        k = max(1, len(history) // 10)
        text += (f"; the mean of the first {k} steps is "
                 f"{alt_text.number(np.mean(history[:k]))}, of the last {k} "
                 f"{alt_text.number(np.mean(history[-k:]))}")
    fig.alt = f"{' '.join(str(title).split())}, by training step. {text}."
    return fig
