"""The parts of lesson 12's tiling explorer (:mod:`helpers.widgets.lesson12`):
the seeded example, the running state of the online softmax after some keys,
the grid that paints keys not read yet pale blue, and one bar per query row.
Not a lesson module: it imports no lesson module, and only lesson 12 uses it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.patches import Rectangle

from helpers.attention import causal_mask, sliding_window_mask
from helpers.widgets.engine import AXIS_SIZE, nice_limit, set_text
from helpers.widgets.panels import FastHeatmap, PixelImage

MAX_N = 48  # the largest grid drawn
D_K, D_V, SEED = 8, 4, 12
NOT_READ = "#dce8f5"  # keys the loop has not reached yet (pale blue, framed)


class _SweepImage(PixelImage):
    """A :class:`PixelImage` with one more colour: ``-inf`` (a key not read
    yet) is pale blue (``NOT_READ``), NaN (a masked cell) grey."""

    def __init__(self, ax):
        super().__init__(ax)
        rgb = [int(NOT_READ[i:i + 2], 16) for i in (1, 3, 5)]
        self._lut = np.vstack([self._lut, rgb]).astype(np.uint8)

    def _colour_index(self, data):
        vmin, vmax = self._clim
        with np.errstate(invalid="ignore"):
            scaled = np.nan_to_num((data - vmin) * (256.0 / (vmax - vmin)), nan=0.0,
                                   neginf=0.0, posinf=255.0)
        index = np.where(np.isfinite(data), np.clip(np.floor(scaled), 0, 255), 256)
        return np.where(np.isneginf(data), 257, index).astype(np.intp)


class SweepHeatmap(FastHeatmap):
    def __init__(self, art, rect, **kw):
        super().__init__(art, rect, **kw)
        self.pixels.set_visible(False)
        self.pixels = art.add(_SweepImage(self.ax))
        self.ax.add_artist(self.pixels)
        # the block just read (orange) and the keys not read yet (dashed)
        self.frame, self.unread = (art.add(self.ax.add_patch(Rectangle(
            (0, 0), 1, 1, fill=False, **kw))) for kw in (
            {"edgecolor": "#e8a317", "linewidth": 2.5},
            {"edgecolor": "#4a6984", "linewidth": 1.2, "linestyle": (0, (4, 3))}))


class RowBars:
    """One horizontal bar per query row, drawn as a single PolyCollection
    (48 separate rectangles take 10 ms per picture)."""

    def __init__(self, art, rect, *, xlabel, colour):
        self.ax = ax = art.fig.add_axes(rect)
        ax.set_yticks([])
        ax.set_xlabel(xlabel, fontsize=AXIS_SIZE)
        ax.tick_params(labelsize=AXIS_SIZE)
        ax.axvline(0, color="black", lw=0.8)
        self.bars = art.add(ax.add_collection(PolyCollection([], facecolors=colour)))
        # rows whose value is -inf (no allowed key read yet): a black arrow at
        # the left edge, pointing off the axis, never a bar of 0
        self.marks = art.add(ax.scatter([], [], marker="<", s=22, color="black",
                                        clip_on=False, zorder=3))
        self.title = art.text(0.5, 1.01, ax=ax, ha="center", va="bottom", fontsize=10)

    def update(self, values, *, title, xlim):
        values = np.asarray(values, dtype=float)
        minus_inf = np.isneginf(values)
        self.marks.set_offsets(np.column_stack(
            [np.full(int(minus_inf.sum()), float(xlim[0])), np.flatnonzero(minus_inf)])
            if minus_inf.any() else np.empty((0, 2)))
        if minus_inf.any():
            title = f"{title} (\u25c0 = \u2212\u221e)"
        values = np.nan_to_num(np.where(minus_inf, 0.0, values))
        y = np.arange(len(values))[:, None]
        x = values[:, None]
        verts = np.stack([np.hstack([0 * x, y - 0.4]), np.hstack([x, y - 0.4]),
                          np.hstack([x, y + 0.4]), np.hstack([0 * x, y + 0.4])], axis=1)
        self.bars.set_verts(verts)
        self.ax.set_xlim(*xlim)
        self.ax.set_ylim(len(values) - 0.5, -0.5)
        set_text(self.title, title)
        return ("rowbars", len(values), float(xlim[0]), float(xlim[1]))


def sweep_case(n):
    """Seeded scaled scores (n, n) and values (n, D_V) of the example."""
    rng = np.random.default_rng(SEED)
    Q, K = rng.standard_normal((2, MAX_N, D_K)) * 1.3
    V = rng.standard_normal((MAX_N, D_V))
    return Q[:n] @ K[:n].T / math.sqrt(D_K), Q[:n], K[:n], V[:n]


def plural(k, word):
    """"1 key", "3 keys": a count with its noun."""
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def key_range(a, z):
    """"key 3", "keys 3 to 5": keys ``a`` to ``z`` as a person writes them."""
    return f"key {a}" if a == z else f"keys {a} to {z}"


@lru_cache(maxsize=64)
def sum_limit(n, b, w):
    """A round bound of every running sum l at every step of one setting."""
    S = sweep_case(n)[0]
    allowed = causal_mask(n) if w == 0 else sliding_window_mask(n, w)
    steps = np.arange(1, math.ceil(n / b) + 1)[:, None, None]
    seen = allowed & (np.arange(n) < b * steps)  # (steps, n, n): keys read by then
    m = np.where(seen, S, -np.inf).max(axis=2, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)  # a row with no key read yet: sum 0
    total = np.where(seen, np.exp(np.minimum(S - m, 0.0)), 0.0).sum(axis=2)
    return nice_limit(max(2.0, float(total.max())))


@lru_cache(maxsize=1)
def score_limit():
    """A round bound of every score of the example (the m axis never moves)."""
    return nice_limit(float(np.abs(sweep_case(MAX_N)[0]).max()))


def thin_out(labels, most=16):
    step = max(1, math.ceil(len(labels) / most))
    return [lab if i % step == 0 or i == len(labels) - 1 else ""
            for i, lab in enumerate(labels)]


def state_after(S, allowed, seen, V):
    """Running max, sum and output of every row after reading ``seen`` keys."""
    vis = allowed & seen
    m = np.where(vis, S, -np.inf).max(axis=1)
    shift = np.where(np.isfinite(m), m, 0.0)
    P = np.where(vis, np.exp(np.minimum(S - shift[:, None], 0.0)), 0.0)
    total = P.sum(axis=1)
    out = np.divide(P @ V, total[:, None], out=np.zeros((len(S), V.shape[1])),
                    where=total[:, None] > 0)
    return m, total, out, P
