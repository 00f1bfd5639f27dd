"""Figures of lesson 12: plain against tiled attention, how far stacked
sliding windows reach, and which heads of lesson 11's GPT use the kept first
tokens under a window (the attention sinks).

Like :mod:`helpers.figures.plots`: every function takes arrays and labels, returns a
figure that shows itself in Jupyter (``plots.AttentionFigure``), computes no
attention itself, and sets ``fig.alt``, the figure in words (its numbers).
"""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

from helpers.figures.alt import number, series
from helpers.figures.common import AttentionFigure

__all__ = ["memory_and_time", "sink_heads", "window_reach"]


def _figure(figsize) -> AttentionFigure:
    return AttentionFigure(figsize=figsize, layout="constrained")


def memory_and_time(sizes, plain_ms, tiled_ms, plain_mib, tiled_mib, *,
                    title="Plain against tiled attention") -> AttentionFigure:
    """Two log-log panels against the context size ``n``: time (ms) and peak
    memory (MiB) of plain and tiled attention, one point per measured n."""
    n = np.asarray(sizes, dtype=float)
    fig = _figure((10.0, 3.8))
    for ax, (label, plain, tiled) in zip(
            fig.subplots(1, 2),
            (("time (ms)", plain_ms, tiled_ms),
             ("peak memory (MiB)", plain_mib, tiled_mib))):
        ax.loglog(n, plain, "o-", color="#3b528b", label="plain: the (n, n) pattern")
        ax.loglog(n, tiled, "s--", color="#e8a317", label="tiled: blocks of keys")
        ax.set_xticks(n, [f"{int(v):,}" for v in n])
        ax.minorticks_off()
        ax.set(xlabel="context size n (tokens)", ylabel=label, title=label)
        ax.legend()
    fig.suptitle(title)
    fig.alt = (f"{title}. Two log-log panels against the context size n. Time in ms: "
               + series("plain", n, plain_ms) + "; " + series("tiled", n, tiled_ms)
               + ". Peak memory in MiB: " + series("plain", n, plain_mib) + "; "
               + series("tiled", n, tiled_mib) + ".")
    return fig


def window_reach(reach, w: int, *, title=None) -> AttentionFigure:
    """One panel per layer: ``reach[L - 1][i, j]`` is True when token ``j``
    can influence token ``i`` after ``L`` layers of a width-``w`` sliding
    window (rows are queries, columns are keys)."""
    reach = [np.asarray(r, dtype=bool) for r in reach]
    fig = _figure((3.3 * len(reach), 3.5))
    axes = np.atleast_1d(fig.subplots(1, len(reach)))
    for k, (ax, r) in enumerate(zip(axes, reach), start=1):
        ax.imshow(r, cmap="viridis", vmin=0, vmax=1, interpolation="nearest")
        n = r.shape[0]
        ax.set(xlabel="key (earlier token)", ylabel="query" if k == 1 else None,
               title=f"after {k} layer{'s' if k > 1 else ''}: "
                     f"the last sees {int(r[-1].sum())}")
        ticks = np.arange(0, n, max(1, n // 6))
        ax.set_xticks(ticks)
        ax.set_yticks(ticks)
    title = title or (f"Which earlier tokens each token can reach, window w = {w} "
                      "(yellow = reachable)")
    fig.suptitle(title)
    n = reach[0].shape[0] if reach else 0
    parts = []
    for k, r in enumerate(reach, start=1):
        last = np.flatnonzero(r[-1]) if n else np.array([], dtype=int)
        first = f"keys {last.min()} to {last.max()}" if last.size else "no key"
        parts.append(f"after {k} layer{'s' if k > 1 else ''} the last token "
                     f"({n - 1}) reaches {int(r[-1].sum())} tokens, {first}")
    fig.alt = (f"{title}: {len(reach)} panels of {n} query rows × {n} key columns, "
               "a band under the diagonal that widens with every layer; "
               + "; ".join(parts) + ".")
    return fig


def sink_heads(full, window, losses, *, chance_full, chance_window,
               full_loss=None, kept="the first 4 tokens") -> AttentionFigure:
    """Which heads use the kept first tokens, and what keeping them buys.

    ``full`` and ``window``: ``(n_layers, n_heads)``, the mean weight late
    queries give the kept keys with the full causal mask and under the window
    that keeps them (two heatmaps, every cell written, the strongest head
    framed). ``losses``: ``{label: nats per token}`` in the order drawn
    (horizontal bars, each labelled with its value). ``chance_*``: the weight
    the kept keys would get if each query spread its weight evenly;
    ``full_loss``: the loss with full attention (a dashed line), if given."""
    full, window = np.asarray(full, dtype=float), np.asarray(window, dtype=float)
    fig = _figure((13.0, 3.9))
    axes = fig.subplots(1, 3, width_ratios=[1, 1, 1.25])
    top = max(float(full.max()), float(window.max()), 1e-9)
    best = {}
    for ax, values, what, chance in (
            (axes[0], full, "full causal attention", chance_full),
            (axes[1], window, "window 32 + the first 4 kept", chance_window)):
        im = ax.imshow(values, cmap="viridis", vmin=0, vmax=top)
        L, H = values.shape
        for (i, j), v in np.ndenumerate(values):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8,
                    color="black" if v > 0.6 * top else "white")
        i, j = np.unravel_index(int(values.argmax()), values.shape)
        best[what] = (int(i), int(j), float(values[i, j]))
        for colour, width in (("black", 4.0), ("white", 2.0)):  # 3:1 on any cell
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False,
                                   edgecolor=colour, linewidth=width))
        ax.set_xticks(range(H))
        ax.set_yticks(range(L))
        ax.set(xlabel="head", ylabel="layer",
               title=f"{what}\n(chance {chance:.3f}; framed: the most)")
    fig.colorbar(im, ax=axes[:2], label=f"weight on {kept}", shrink=0.9)
    labels, values = list(losses), [float(v) for v in losses.values()]
    y = np.arange(len(values))
    axes[2].barh(y, values, color="#3b528b")
    for k, v in enumerate(values):
        axes[2].text(v + 0.02, k, f"{v:.2f}", va="center", fontsize=9)
    if full_loss is not None:
        axes[2].axvline(full_loss, color="black", linestyle="--", linewidth=1.2,
                        label=f"full causal attention {full_loss:.2f}")
        axes[2].legend(loc="lower right", fontsize=8)
    axes[2].set_yticks(y, labels)
    axes[2].invert_yaxis()
    low = min(values) if values else 0.0
    low = min([low] + ([float(full_loss)] if full_loss is not None else []))
    start = round(max(0.0, low - 0.3), 1)
    axes[2].set_xlim(start, (max(values) if values else 1.0) + 0.3)
    xlabel = "loss of queries 64-126\n(nats per token"
    axes[2].set(xlabel=xlabel + (")" if start == 0 else f"; axis from {start:g})"),
                title=f"window 32, {kept} kept where?")
    fig.suptitle(f"Attention sinks in lesson 11's GPT: the weight on {kept}, "
                 "per head, and the loss")
    def runner_up(v):
        i, j = np.unravel_index(int(np.argsort(v, axis=None)[-2]), v.shape)
        return f", then layer {i} head {j} ({number(v[i, j])})" if v.size > 1 else ""

    heads = "; ".join(f"{what}: the weight runs from {number(round(v.min(), 3))} to "
                      f"{number(v.max())}, most in layer {best[what][0]} head "
                      f"{best[what][1]} ({number(best[what][2])}){runner_up(v)}, "
                      f"chance {number(c)}"
                      for what, v, c in (("full causal attention", full, chance_full),
                                         ("window 32 + the first 4 kept", window,
                                          chance_window)))
    bars = ", ".join(f"{lab} {number(v)}" for lab, v in zip(labels, values))
    if full_loss is not None:
        bars += f"; a dashed line at {number(full_loss)}, full causal attention"
    axis = "" if start == 0 else f", on an axis that starts at {start:g}, not 0"
    fig.alt = (f"Attention sinks in lesson 11's GPT. Two heatmaps, layers × heads, "
               f"of the mean weight late queries give {kept}: {heads}. Bars of "
               f"the loss in nats per token{axis}: {bars}.")
    return fig
