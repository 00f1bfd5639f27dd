"""Figures of lesson 12: plain against tiled attention, and how far stacked
sliding windows reach.

Like :mod:`helpers.plots`: every function takes arrays and labels, returns a
figure that shows itself in Jupyter (``plots.AttentionFigure``), and computes
no attention itself.
"""

from __future__ import annotations

import numpy as np

from helpers.plots import AttentionFigure

__all__ = ["memory_and_time", "window_reach"]


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
    fig.suptitle(title or f"Which earlier tokens each token can reach, window w = {w} "
                 "(yellow = reachable)")
    return fig
