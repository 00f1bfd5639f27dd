"""Figures of lesson 08's picture world: the picture with its patch grid,
and maps over the picture (one per caption word, or one per feature).

Like :mod:`helpers.figures.plots`: every function takes arrays and labels, returns a
figure that shows itself in Jupyter (``plots.AttentionFigure``), and computes
no attention itself. :func:`overlay` (numpy) is the one colouring of a map
over the picture, shared with lesson 08's explorer.
"""

from __future__ import annotations

import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.collections import LineCollection
from matplotlib.colors import ListedColormap, Normalize

from helpers.figures import alt as alt_text
from helpers.figures.common import AttentionFigure, short_label
from helpers.world.images import BACKGROUND, COLOURS, GRID, PATCH

__all__ = ["FLOOR", "LIGHT", "MAP_MAX", "brightness", "caption_words", "map_words",
           "maps_words",
           "maps_view",
           "overlay", "picture_view", "picture_words"]

#: The colour scale of attention over the picture stops at this weight, not
#: at 1: a word spreads its unit of attention over 64 patches, and a shape
#: covers four of them, so its patches get about 0.1 each. Brighter cells
#: are drawn at full brightness.
MAP_MAX = 0.2
#: The brightness of a patch with weight 0 (1 is full brightness).
FLOOR = 0.12
#: The colour bar's scale: the brightness a weight gives a patch.
LIGHT = ListedColormap(np.repeat(np.linspace(FLOOR, 1.0, 256)[:, None], 3, axis=1),
                       name="light")
GRID_COLOUR = "#9a9a9a"


def brightness(values, vmax=MAP_MAX, floor=FLOOR) -> np.ndarray:
    """How bright each cell of a map is drawn: ``floor`` for weight 0, full
    (1.0) for ``vmax`` or more, in 256 steps; the same shape as ``values``."""
    values = np.asarray(values, dtype=float)
    with np.errstate(invalid="ignore"):
        step = np.clip(np.floor(np.nan_to_num(values / vmax) * 256), 0, 255)
    return floor + (1 - floor) * step / 255.0


def overlay(pixels, values, vmax=MAP_MAX, floor=FLOOR) -> np.ndarray:
    """The picture ``pixels`` (SIZE, SIZE, 3) lit by a map ``values`` (GRID,
    GRID): every pixel times its patch's :func:`brightness`. (SIZE, SIZE, 3)
    RGB in [0, 1]."""
    light = brightness(values, vmax, floor)  # (GRID, GRID)
    light = np.repeat(np.repeat(light, PATCH, axis=0), PATCH, axis=1)
    return np.asarray(pixels, dtype=float) * light[:, :, None]


def _frame(ax, grid=True, ticks=False):
    """Patch-grid lines (one line collection) and, with ``ticks``, the row
    and column numbers, on an image axes."""
    if grid:
        edge, far = np.arange(1, GRID) * PATCH - 0.5, GRID * PATCH - 0.5
        lines = [[(x, -0.5), (x, far)] for x in edge] + [[(-0.5, y), (far, y)]
                                                          for y in edge]
        ax.add_collection(LineCollection(lines, colors=GRID_COLOUR, linewidths=0.5),
                          autolim=False)
    if ticks:
        centres = np.arange(GRID) * PATCH + PATCH / 2 - 0.5
        ax.set_xticks(centres, [str(k) for k in range(GRID)])
        ax.set_yticks(centres, [str(k) for k in range(GRID)])
        ax.set(xlabel="patch column", ylabel="patch row")
    else:
        ax.set_xticks([])
        ax.set_yticks([])


def picture_view(pixels, *, objects=None,
                 title="The picture, cut into 8 x 8 patches"):
    """The picture (SIZE, SIZE, 3) with its patch grid, rows and columns
    numbered (patch j is in row j // 8, column j % 8). ``objects``
    (``picture.objects``: colour, shape, r, c) name the shapes in the text
    alternative; without them it says which patches each colour covers."""
    fig = AttentionFigure(figsize=(4.2, 4.4))  # placed by hand (no layout engine)
    ax = fig.add_axes([0.14, 0.11, 0.82, 0.82])
    ax.imshow(np.asarray(pixels), interpolation="nearest")
    _frame(ax, ticks=True)
    ax.set_title(title)
    if objects:
        fig.alt = (f"{title}. " + "; ".join(
            f"a {colour} {shape} in patch rows {2 * r}-{2 * r + 1}, columns "
            f"{2 * c}-{2 * c + 1}" for colour, shape, r, c in objects)
            + " (row 0 at the top, column 0 on the left).")
    else:
        fig.alt = f"{title}. " + picture_words(pixels)
    return fig


def _cells(patches):
    return ", ".join(f"(row {r}, column {c})" for r, c in patches)


def picture_words(pixels) -> str:
    """Which patches (row, column) each colour of the picture covers most of:
    the text alternative of a picture of the toy world."""
    pixels = np.asarray(pixels, dtype=float)
    if pixels.shape[:2] != (GRID * PATCH, GRID * PATCH):
        return f"a picture of {pixels.shape[0]} × {pixels.shape[1]} pixels"
    palette = np.array([BACKGROUND, *COLOURS.values()])
    nearest = np.argmin(((pixels[..., None, :] - palette) ** 2).sum(-1), axis=-1)
    blocks = nearest.reshape(GRID, PATCH, GRID, PATCH).transpose(0, 2, 1, 3)
    parts = []
    for k, name in enumerate(COLOURS, start=1):
        share = (blocks == k).mean(axis=(2, 3))
        where = [(r, c) for r, c in zip(*np.nonzero(share >= 0.2))]
        if where:
            parts.append(f"{name} in patches {_cells(where)}")
    if not parts:
        return "An empty picture: background only."
    return (f"{GRID} × {GRID} patches (row 0 at the top, column 0 on the left); "
            + "; ".join(parts) + ".")


def map_words(values, vmax=MAP_MAX) -> str:
    """One map over the patches in words: its brightest patch (row, column)
    and weight, and how many patches are lit to at least half of it."""
    grid = np.asarray(values, dtype=float).reshape(GRID, GRID)
    finite = np.nan_to_num(grid, nan=-np.inf)
    top = float(finite.max())
    if not np.isfinite(top):
        return "no weights"
    if np.allclose(grid, grid.flat[0]):
        return f"every patch the same, {alt_text.number(top)}"
    r, c = np.unravel_index(int(np.argmax(finite)), grid.shape)
    lit = [(int(i), int(j)) for i, j in zip(*np.nonzero(finite >= top / 2))]
    text = f"brightest patch row {r}, column {c} ({alt_text.number(top)})"
    if 1 < len(lit) <= 6:
        text += f"; lit to half of that or more: {_cells(lit)}"
    elif len(lit) > 6:
        text += f"; {len(lit)} patches lit to half of that or more"
    return text


def caption_words(tokens, weights, shown, silent) -> str:
    """Lesson 08's explorer in words: each caption word of ``shown`` (rows
    of ``weights``, (n, 64)) with the patches it lights, then the silent ones."""
    name = "Caption words looking at the picture"
    if not len(tokens):
        return f"{name}: no caption words, so only the picture is shown."
    maps = np.asarray(weights, dtype=float)[list(shown)].reshape(-1, GRID, GRID)
    return (f"{name}: the picture, then one panel per word that asks for "
            "something, its patches lit by their weight (rows 0-7 from the top, "
            "columns 0-7 from the left). "
            + maps_words(maps, [tokens[i] for i in shown], silent=silent))


def maps_view(pixels, maps, titles, *, vmax=MAP_MAX, cols=4, suptitle=None,
              clabel="attention weight (brightness)"):
    """Small multiples: each map (GRID, GRID) of ``maps`` (k, GRID, GRID),
    or each row (k, GRID * GRID) of a weight matrix such as ``A`` (rows
    are queries), over the picture, titled by ``titles``. One colour bar
    from 0 to ``vmax`` serves every panel."""
    maps = np.asarray(maps, dtype=float).reshape(-1, GRID, GRID)
    k = len(maps)
    if len(titles) != k:
        raise ValueError(f"{len(titles)} titles for {k} maps")
    cols = max(1, min(cols, k))
    rows = -(-k // cols)
    panel, gap, top, bottom, right = 2.2, 0.25, 0.45 + 0.35 * bool(suptitle), 0.1, 1.1
    size = (cols * panel + (cols - 1) * gap + 0.1 + right,
            rows * panel + (rows - 1) * 0.45 + top + bottom)
    fig = AttentionFigure(figsize=size)  # placed by hand: no layout engine (fast)
    W, H = size
    axes = []
    for n, (values, title) in enumerate(zip(maps, titles)):
        r, c = divmod(n, cols)
        ax = fig.add_axes([(0.1 + c * (panel + gap)) / W,
                           (H - top - panel - r * (panel + 0.45)) / H, panel / W,
                           panel / H])
        ax.imshow(overlay(pixels, values, vmax), interpolation="nearest")
        _frame(ax)
        ax.set_title(short_label(str(title), 22))
        axes.append(ax)
    cax = fig.add_axes([(W - right + 0.2) / W, bottom / H, 0.15 / W,
                        (H - top - bottom) / H])
    bar = fig.colorbar(ScalarMappable(Normalize(0, vmax), LIGHT), cax=cax)
    bar.set_label(clabel)
    if suptitle:
        fig.suptitle(suptitle, y=1 - 0.12 / H, va="top")
    said = clabel.removesuffix(" (brightness)")   # "brightness = x (brightness)"
    fig.alt = ((f"{suptitle}. " if suptitle else "")
               + f"{k} maps over the picture, brightness = {said} (full at "
               f"{alt_text.number(vmax)}). " + maps_words(maps, titles, vmax))
    return fig


def maps_words(maps, titles, vmax=MAP_MAX, silent=()) -> str:
    """Each map of ``maps`` (k, GRID, GRID) in words (:func:`map_words`),
    named by ``titles``; ``silent`` words asked for nothing (1/64 each)."""
    text = " ".join(f"'{t}': {map_words(m, vmax)}." for m, t in zip(maps, titles))
    if len(silent):
        text += (f" Ask for nothing (every patch 1/{GRID * GRID}): "
                 + ", ".join(f"'{w}'" for w in list(silent)[:8]) + ".")
    return text
