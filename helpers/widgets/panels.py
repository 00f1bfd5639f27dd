"""Panels of the explorers: a heatmap and a bar chart whose labels follow
the sentence. Built once per figure from a :class:`FigureArtists`; each
``update`` changes only the data and returns the key of its static content
(the cached background of :func:`render_png`)."""

from __future__ import annotations

import matplotlib
import numpy as np
from matplotlib.artist import Artist
from matplotlib.colors import to_rgb
from matplotlib.patches import Rectangle
from matplotlib.transforms import blended_transform_factory, offset_copy

from helpers.world import lexicon
from helpers.figures.common import number_text
from helpers.widgets.engine import (
    AXIS_SIZE,
    FEATURE_LABEL_SIZE,
    NUMBER_SIZE,
    fit_label,
    label_size,
    labels_width,
    nice_limit,
    set_text,
)
from helpers.widgets.policy import (
    BAD_COLOUR,
    BAR,
    BAR_AFTER,
    BAR_HIGHLIGHT,
    CMAP,
    MAX_TOY_TOKENS,
)


class Heatmap:
    """An image with token labels on both sides, a title and a colour bar."""

    def __init__(self, art, rect, *, cbar_rect=None, clabel="attention weight",
                 rows=MAX_TOY_TOKENS, cols=MAX_TOY_TOKENS, cmap=CMAP, title_size=11,
                 annotate=False, col_size=None, small=False, room=None,
                 extra_rows=0):
        fig = art.fig
        self.extra_rows = extra_rows  # rows that are not tokens (e.g. a sum)
        self.col_size = col_size  # None: the size follows the number of labels
        self.small = small  # the small panels of the all-heads grid
        # room (pixels) for the row labels (left of the image, ``room``: the
        # figure fraction free on the left) and the column labels (below)
        w_px, h_px = fig.bbox.width, fig.bbox.height
        self._room = (w_px * (rect[0] if room is None else room), h_px * rect[1])
        self.art = art
        self.ax = ax = fig.add_axes(rect)
        ax.set_xticks([])
        ax.set_yticks([])
        cm = matplotlib.colormaps[cmap].with_extremes(bad=BAD_COLOUR)
        self.im = art.add(ax.imshow(np.zeros((1, 1)), cmap=cm, vmin=0, vmax=1,
                                    aspect="auto", interpolation="nearest"))
        self.cbar = None
        if cbar_rect is not None:
            self.cbar = fig.colorbar(self.im, cax=fig.add_axes(cbar_rect))
            self.cbar.set_label(clabel)
        left = blended_transform_factory(
            offset_copy(ax.transAxes, fig=fig, x=-3, y=0, units="points"), ax.transData
        )
        below = blended_transform_factory(
            ax.transData, offset_copy(ax.transAxes, fig=fig, x=0, y=-3, units="points")
        )
        self.row_text = [art.text(0, i, ax=ax, transform=left, ha="right",
                                  va="center") for i in range(rows)]
        self.col_text = [art.text(j, 0, ax=ax, transform=below, ha="center",
                                  va="top", rotation=90) for j in range(cols)]
        self.cell_text = []
        if annotate:  # True: as many columns as labels; an int: that many
            n_cols = cols if annotate is True else int(annotate)
            self.cell_text = [[art.text(j, i, ax=ax, transform=ax.transData,
                                        ha="center", va="center",
                                        fontsize=NUMBER_SIZE)
                               for j in range(n_cols)] for i in range(rows)]
        self.title = art.text(0.5, 1.0, ax=ax, ha="center", va="bottom",
                              fontsize=title_size,
                              transform=offset_copy(ax.transAxes, fig=fig, y=4,
                                                      units="points"))
        self.xlabel = art.text(0.5, 0, ax=ax, ha="center", va="top",
                               fontsize=AXIS_SIZE)
        self.ylabel = art.text(0, 0.5, ax=ax, ha="right", va="center",
                               fontsize=AXIS_SIZE, rotation=90)
        self._label_offsets = None

    def set_visible(self, on: bool):
        self.ax.set_visible(on)
        if self.cbar is not None:
            self.cbar.ax.set_visible(on)

    def update(self, data, row_labels, col_labels, *, title="", xlabel="",
               ylabel="", vmin=0.0, vmax=1.0, row_colours=None, col_colours=None,
               features=False):
        """``features``: the columns are feature names (FEATURE_LABEL_SIZE)."""
        data = np.asarray(data, dtype=float)
        n, m = data.shape
        # issue 51 hook: what was drawn, for the pointer's map (pointer.py)
        self.shown = dict(data=data, rows=list(row_labels), cols=list(col_labels),
                          title=title, xlabel=xlabel, ylabel=ylabel)
        finite = np.isfinite(data)
        self.im.set_data(data if finite.all() else np.ma.masked_array(data, ~finite))
        self.im.set_extent((-0.5, m - 0.5, n - 0.5, -0.5))
        self.im.set_clim(vmin, vmax)
        self.ax.set_xlim(-0.5, m - 0.5)
        self.ax.set_ylim(n - 0.5, -0.5)
        sizes = self._label_sizes(row_labels, col_labels)
        if features:
            sizes = (sizes[0], FEATURE_LABEL_SIZE)
        row_labels = self._fit(row_labels, sizes[0], self._room[0], ylabel)
        if self.col_size is None and not features:  # token labels
            col_labels = self._fit(col_labels, sizes[1], self._room[1], xlabel)
        for texts, labels, colours, size in (
                (self.row_text, row_labels, row_colours, sizes[0]),
                (self.col_text, col_labels, col_colours, sizes[1])):
            for i, t in enumerate(texts):
                on = i < len(labels)
                set_text(t, labels[i] if on else None, visible=on, size=size,
                         colour=(colours[i] if colours is not None else "black")
                         if on else None)
        if self.cell_text:
            middle = (vmin + vmax) / 2
            for i, row in enumerate(self.cell_text):
                for j, t in enumerate(row):
                    on = i < n and j < m
                    if not on:
                        set_text(t, visible=False)
                        continue
                    v = data[i, j]
                    set_text(t, number_text(v, "{:.1f}") if np.isfinite(v) else "",
                             colour="black" if v > middle else "white")
        set_text(self.title, title)
        set_text(self.xlabel, xlabel)
        set_text(self.ylabel, ylabel)
        # put the axis titles just beyond the longest label
        dpi = self.art.fig.dpi
        offsets = (
            -(labels_width(tuple(row_labels), sizes[0], dpi) * 72.0 / dpi + 6),
            -(labels_width(tuple(col_labels), sizes[1], dpi) * 72.0 / dpi + 6),
        )
        if offsets != self._label_offsets:
            fig, ax = self.art.fig, self.ax
            self.ylabel.set_transform(offset_copy(ax.transAxes, fig=fig,
                                                  x=offsets[0], units="points"))
            self.xlabel.set_transform(offset_copy(ax.transAxes, fig=fig,
                                                  y=offsets[1], units="points"))
            self._label_offsets = offsets
        return ("heat", round(float(vmin), 6), round(float(vmax), 6))

    def _label_sizes(self, row_labels, col_labels):
        size = label_size
        col = self.col_size if self.col_size is not None else size(len(col_labels))
        return size(max(len(row_labels) - self.extra_rows, 0)), col

    def label_room(self, size, room, axis_title):
        """(pixels of the font, pixels free for a label) at ``size`` points
        with ``room`` pixels between the image and the picture's edge."""
        dpi = self.art.fig.dpi
        px = max(int(round(size * dpi / 72.0)), 1)
        room -= (3 + 2) * dpi / 72.0  # the 3 pt gap to the image, a margin
        if axis_title:  # the title is 6 pt beyond the labels, 9 pt high
            room -= (6 + 9 * 1.3) * dpi / 72.0
        return px, float(int(room))

    def _fit(self, labels, size, room, axis_title):
        """Cut labels that would not fit between the image and the picture's
        edge (leaving room for the axis title beyond them)."""
        px, room = self.label_room(size, room, axis_title)
        return [fit_label(label, px, room) for label in labels]

    def group_columns(self, groups, names):
        """Mark groups of columns that never change (the feature columns):
        white separator lines between the groups and each group's name below
        the column labels. ``groups``: [(name, number of columns), ...]."""
        art, ax, fig = self.art, self.ax, self.art.fig
        size = self.col_size or label_size(len(names))
        below = (labels_width(tuple(names), size, fig.dpi) * 72.0 / fig.dpi + 6)
        under = blended_transform_factory(
            ax.transData, offset_copy(ax.transAxes, fig=fig, y=-below, units="points"))
        start = 0
        self.separators, self.group_text = [], []
        for k, (name, count) in enumerate(groups):
            if k:
                line = ax.axvline(start - 0.5, color="white", lw=2.5)
                self.separators.append(art.add(line))  # drawn over the image
            self.group_text.append(ax.text(
                start + (count - 1) / 2, 0, name, transform=under, ha="center",
                va="top", fontsize=size, color="#444444", parse_math=False))
            start += count


#: What marks the chosen token's label besides its colour (not by colour alone).
MARK = "\u25b6 "
#: The chosen token's label: BAR_HIGHLIGHT's orange darkened to 5:1 on white
#: (the bar's own orange is 2.2:1, too faint for text).
LABEL_HIGHLIGHT = "#9c5f00"
#: Each series of bars after the first is hatched too, and outlined dark.
HATCHES = (None, "///", "...")


class Bars:
    """Horizontal bars, one row per label (``series`` bars per row). The
    series differ by hatching as well as colour (legend entries show both);
    the highlighted bar is orange, outlined in black, and its label starts
    with :data:`MARK`."""

    def __init__(self, art, rect, *, rows=MAX_TOY_TOKENS, series=1, xlabel="",
                 colours=(BAR, BAR_AFTER, "#21918c"), legend=None,
                 values=True, title_size=10, room=None):
        fig = art.fig
        # pixels free for the labels left of the bars (``room``: a figure
        # fraction, when another panel is nearer than the picture's edge)
        self._room = fig.bbox.width * (rect[0] if room is None else room)
        self.ax = ax = fig.add_axes(rect)
        ax.set_yticks([])
        ax.set_xlabel(xlabel, fontsize=AXIS_SIZE)
        ax.tick_params(labelsize=AXIS_SIZE)
        ax.axvline(0, color="black", lw=0.8)
        self.series = series
        height = 0.8 / series
        self.bars = []
        for k in range(series):
            row = []
            for i in range(rows):
                r = Rectangle((0, i - 0.4 + k * height), 0, height,
                              facecolor=colours[k % len(colours)],
                              hatch=HATCHES[k % len(HATCHES)],
                              edgecolor="#222222" if k else "none",
                              linewidth=0.6 if k else 0.0)
                ax.add_patch(r)
                row.append(art.add(r))
            self.bars.append(row)
        self.colours = colours
        left = blended_transform_factory(
            offset_copy(ax.transAxes, fig=fig, x=-3, y=0, units="points"), ax.transData
        )
        self.row_text = [art.text(0, i, ax=ax, transform=left, ha="right",
                                  va="center") for i in range(rows)]
        self.value_text = []
        if values:
            for k in range(series):
                y0 = -0.4 + (k + 0.5) * height
                self.value_text.append([
                    art.text(0, i + y0, ax=ax, transform=ax.transData,
                             va="center", fontsize=NUMBER_SIZE)
                    for i in range(rows)
                ])
        self.title = art.text(0.5, 1.0, ax=ax, ha="center", va="bottom",
                              fontsize=title_size,
                              transform=offset_copy(ax.transAxes, fig=fig, y=4,
                                                      units="points"))
        self.legend = list(legend) if legend else None
        if legend:
            handles = [Rectangle((0, 0), 1, 1, facecolor=colours[k],
                                 hatch=HATCHES[k % len(HATCHES)],
                                 edgecolor="#222222" if k else "none",
                                 linewidth=0.6 if k else 0.0)
                       for k in range(len(legend))]
            ax.legend(handles, legend, fontsize=AXIS_SIZE, loc="upper center",
                      bbox_to_anchor=(0.5, -0.16), frameon=False)

    def set_visible(self, on: bool):
        self.ax.set_visible(on)

    def update(self, values, labels, *, title="", xlim=None, highlight=None,
               fmt="{:.2f}"):
        """``values``: (n,) or (series, n)."""
        values = np.atleast_2d(np.asarray(values, dtype=float))
        n = values.shape[1]
        # issue 51 hook: what was drawn, for the pointer's map (pointer.py)
        self.shown = dict(values=values, labels=list(labels), title=title,
                          series=getattr(self, "legend", None))
        if xlim is None:
            lo = min(0.0, float(np.nanmin(values))) if n else 0.0
            hi = max(0.0, float(np.nanmax(values))) if n else 1.0
            lim = nice_limit(max(abs(lo), abs(hi)))
            xlim = (-lim if lo < 0 else 0.0, lim if hi > 0 or lo >= 0 else 0.0)
        lo, hi = xlim
        pad = 0.12 * (hi - lo)  # room for the value labels
        self.ax.set_xlim(lo - (pad if lo < 0 else 0), hi + pad)
        self.ax.set_ylim(n - 0.5, -0.5)
        size = label_size(n)
        dpi = self.ax.figure.dpi
        px = max(int(round(size * dpi / 72.0)), 1)
        room = float(int(self._room - 5 * dpi / 72.0))
        labels = [fit_label(MARK + label if i == highlight else label, px, room)
                  for i, label in enumerate(labels)]
        for k, row in enumerate(self.bars):
            for i, r in enumerate(row):
                on = i < n and k < values.shape[0]
                if r.get_visible() != on:
                    r.set_visible(on)
                if on:
                    v = values[k, i] if np.isfinite(values[k, i]) else 0.0
                    r.set_width(v)
                    colour = self.colours[k % len(self.colours)]
                    lit = (highlight is not None and i == highlight
                           and self.series == 1)
                    if lit:
                        colour = BAR_HIGHLIGHT
                    if getattr(r, "_attn_colour", None) != (colour, lit):
                        r.set_facecolor(colour)
                        if lit:  # a black frame: >= 3:1 on white and on orange
                            r.set_edgecolor("black")
                            r.set_linewidth(1.6)
                        elif not k:
                            r.set_edgecolor("none")
                            r.set_linewidth(0.0)
                        r._attn_colour = (colour, lit)
            if k < len(self.value_text):
                for i, t in enumerate(self.value_text[k]):
                    on = i < n and k < values.shape[0]
                    if not on:
                        set_text(t, visible=False)
                        continue
                    v = values[k, i]
                    set_text(t, number_text(v, fmt) if np.isfinite(v) else "-inf")
                    t.set_x(v if np.isfinite(v) else 0.0)
                    t.set_horizontalalignment("left" if v >= 0 else "right")
        for i, t in enumerate(self.row_text):
            on = i < n
            set_text(t, labels[i] if on else None, visible=on, size=size,
                     colour=(LABEL_HIGHLIGHT if i == highlight else "black")
                     if on else None)
        set_text(self.title, title)
        return ("bars", round(lo, 9), round(hi, 9))


class PixelImage(Artist):
    """A heatmap written straight into the Agg pixel buffer, one flat colour
    per cell (what ``imshow(..., interpolation="nearest")`` shows), at a
    fraction of imshow's cost: 12 panels of up to 32 x 32 cells are redrawn
    for every keystroke. The colours are the colour map's 256 entries, as
    matplotlib picks them (``floor(256 x)``, clipped)."""

    def __init__(self, ax, cmap=CMAP):
        super().__init__()
        self._ax = ax
        cm = matplotlib.colormaps[cmap].resampled(256)
        lut = np.round(cm(np.arange(256))[:, :3] * 255).astype(np.uint8)
        bad = np.round(np.array(to_rgb(BAD_COLOUR)) * 255).astype(np.uint8)
        self._lut = np.vstack([lut, bad])  # row 256: not a finite number
        self._data = np.zeros((0, 0))
        self._clim = (0.0, 1.0)
        self._index_cache = {}
        self.set_animated(True)

    def set_data(self, data, vmin=0.0, vmax=1.0):
        self._data = np.asarray(data, dtype=float)
        self._clim = (float(vmin), float(vmax))
        self.stale = True

    def _pixels(self, bbox, height, n, m):
        """Rows and columns of the pixels inside the axes, and each pixel's cell."""
        key = (tuple(np.round(bbox.bounds, 3)), height, n, m)
        if key not in self._index_cache:
            x0, x1 = int(round(bbox.x0)), int(round(bbox.x1))
            top, bottom = height - bbox.y1, height - bbox.y0
            y0, y1 = int(round(top)), int(round(bottom))
            cols = ((np.arange(x0, x1) + 0.5 - bbox.x0) * m / bbox.width).astype(int)
            rows = ((np.arange(y0, y1) + 0.5 - top) * n / bbox.height).astype(int)
            self._index_cache[key] = (y0, y1, x0, x1, np.clip(rows, 0, n - 1),
                                      np.clip(cols, 0, m - 1))
        return self._index_cache[key]

    def _colour_index(self, data):
        """Each cell's row of the colour table: 0-255 by value, 256 if not finite."""
        vmin, vmax = self._clim
        with np.errstate(invalid="ignore"):
            scaled = (data - vmin) * (256.0 / (vmax - vmin))
            index = np.clip(np.floor(np.nan_to_num(scaled, nan=0.0)), 0, 255)
        return np.where(np.isfinite(data), index, 256).astype(np.intp)

    def draw(self, renderer):
        data = self._data
        if not self.get_visible() or data.size == 0:
            return
        arr = np.asarray(renderer.buffer_rgba())
        n, m = data.shape
        y0, y1, x0, x1, rows, cols = self._pixels(self._ax.bbox, arr.shape[0], n, m)
        cells = self._lut[self._colour_index(data)]  # (n, m, 3): one colour per cell
        pixels = cells.take(rows, axis=0).take(cols, axis=1)
        arr[max(y0, 0):y1, max(x0, 0):x1, :3] = pixels[max(-y0, 0):, max(-x0, 0):]
        self.stale = False


class FastHeatmap(Heatmap):
    """A :class:`Heatmap` whose cells are drawn by :class:`PixelImage` (the real-model
    and GPT explorers: many panels redrawn on every keystroke)."""

    def __init__(self, art, rect, **kw):
        super().__init__(art, rect, **kw)
        self.im.set_visible(False)  # still the colour bar's colour scale
        self.pixels = art.add(PixelImage(self.ax))
        self.ax.add_artist(self.pixels)

    def update(self, data, *args, vmin=0.0, vmax=1.0, **kw):
        self.pixels.set_data(data, vmin, vmax)
        return super().update(data, *args, vmin=vmin, vmax=vmax, **kw)


def feature_groups():
    """The feature columns of the toy lexicon in groups: [(name, number of
    columns), ...] (part of speech | meaning fields | flags)."""
    n_pos = len(getattr(lexicon, "POS_TAGS", ()))
    n_fields = len(getattr(lexicon, "FIELDS", ()))
    n_flags = len(lexicon.FEATURES) - n_pos - n_fields
    if not n_pos or not n_fields or n_flags < 0:
        return [("named features", len(lexicon.FEATURES))]
    groups = [("part of speech", n_pos), ("meaning fields", n_fields)]
    return groups + ([("flags", n_flags)] if n_flags else [])


def feature_heatmap(art, rect, cbar_rect, **kw):
    """A :class:`Heatmap` with one column per named feature of the lexicon
    (lessons 01 and 02), in readable labels and grouped by
    :func:`feature_groups`."""
    feats = list(lexicon.FEATURES)
    heat = Heatmap(art, rect, cbar_rect=cbar_rect, cols=len(feats),
                   col_size=FEATURE_LABEL_SIZE, **kw)
    heat.group_columns(feature_groups(), feats)
    return heat
