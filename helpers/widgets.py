"""Interactive explorers: change a sentence or a setting, watch the picture follow.

Every explorer is a function that returns **one** object. That object is an
ipywidgets ``VBox`` (so it shows as a live widget in JupyterLab and Colab and
can be put into other boxes) and it also carries a static PNG of its current
picture plus a short ``text/plain`` line, so that a reader of the stored
notebook on GitHub still sees the picture.

Its inputs are plain ipywidgets attributes, and it exposes what it last drew::

    ex = pattern_explorer()
    ex.sentence.value = "the cat sat on the mat"   # updates synchronously
    ex.tokens      # ['the', 'cat', ...]   (at most MAX_TOKENS of them)
    ex.weights     # numpy array: what the picture shows (see each explorer)
    ex.message     # "" or a short note ("Showing the first 24 of 300 tokens.")
    ex.figure      # the matplotlib Figure that is reused for every picture
    ex.draw_count  # how many pictures have been drawn

Bad input never raises out of a callback: an empty sentence, a word the
lexicon does not know, 300 words, emoji or text that looks like HTML each give
a short message and a sensible picture. User text is never put into HTML
unescaped (messages are shown in a plain-text ``Label``).

Speed: the figure is built once. An update changes the data of the existing
artists (``set_data``, bar widths, label texts), restores a cached background
(axes frames, colour bar) and draws only what changed; labels are rasterised
with a cached font renderer. The PNG goes into an ``ipywidgets.Image``.
When several updates arrive at once (a dragged slider, fast typing) the
state is computed for each, synchronously, but the drawing is scheduled on
the running asyncio event loop and waits until the inputs have been quiet
for ``SETTLE`` seconds: a burst gives exactly one picture, showing the last
input. (A plain ``loop.call_soon`` is not enough: the kernel lets the loop
run between two widget messages.) Without a running event loop (plain
Python, tests) every update draws at once.

For a browser test the widgets carry DOM classes: ``attn-explorer`` (the
box), ``attn-picture`` (the Image), ``attn-sentence`` (the main text box),
``attn-message`` (the Label), and ``attn-input`` plus ``attn-<name>`` on
every input (``attn-temperature``, ``attn-token``, ``attn-target``, ...).
"""

from __future__ import annotations

import asyncio
import base64
import html
import importlib
import math
import struct
import time
import warnings
import zlib
from collections import OrderedDict
from functools import lru_cache
from types import SimpleNamespace

import ipywidgets as widgets
import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont, get_font
from matplotlib.patches import Rectangle
from matplotlib.transforms import blended_transform_factory, offset_copy

from helpers.attention import causal_mask, scaled_dot_product_attention, softmax

__all__ = [
    "MAX_TOKENS",
    "attention_parameters",
    "first_taste",
    "embedding_explorer",
    "weighted_sum_explorer",
    "qk_explorer",
    "pattern_explorer",
    "update_explorer",
    "mask_explorer",
    "multi_head_explorer",
    "parameter_calculator",
    "cross_explorer",
    "sense_explorer",
]

#: At most this many tokens of a sentence are drawn (the rest are ignored,
#: and the explorer says so).
MAX_TOKENS = 24
#: Resolution of the pictures (pixels per inch).
DPI = 80
#: With an event loop running, a picture is drawn once the inputs have been
#: quiet for SETTLE seconds (a burst of updates gives one picture), and at
#: the latest MAX_WAIT seconds after the first update of the burst.
SETTLE = 0.012
MAX_WAIT = 0.15
#: Token labels longer than this are cut and end in an ellipsis.
LABEL_CHARS = 14
#: Size of the feature-name labels (lessons 01, 02), in points of these
#: DPI-80 pictures: 10 pt here is 11 pixels, the size of the 8 pt labels of
#: helpers.plots at the notebooks' 100 dpi (readable on a projector).
FEATURE_LABEL_SIZE = 10
#: Every attention-weight picture uses this one colour scale, so that the
#: same colour means the same weight in every lesson.
WEIGHT_RANGE = (0.0, 1.0)
_WEIGHT_SCALE = {"vmin": WEIGHT_RANGE[0], "vmax": WEIGHT_RANGE[1]}

_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_CMAP = "viridis"
_BAD_COLOUR = "#d0d0d0"  # masked cells (-inf)
_BAR = "#3b528b"
_BAR_HIGHLIGHT = "#e8a317"
_BAR_AFTER = "#5ec962"
_FALLBACK_SENTENCES = {
    "creature": "a fluffy blue creature roamed the verdant forest",
    "bank_river": "I swam across the river to get to the other bank",
    "bank_money": "I drove across the road to get to the other bank",
    "river_bank": "river bank flows",
    "translation_en": "the black cat eats the fish",
    "translation_fr": "le chat noir mange le poisson",
}


# --------------------------------------------------------------------------
# the toy world (imported lazily so that importing this module stays cheap)
# --------------------------------------------------------------------------
def _lexicon():
    return importlib.import_module("helpers.lexicon")


def _heads():
    return importlib.import_module("helpers.heads")


def _sentence(key: str) -> str:
    """An example sentence from ``helpers.heads.CURRICULUM_SENTENCES``."""
    try:
        return str(_heads().CURRICULUM_SENTENCES[key])
    except Exception:  # heads not there or key missing: a built-in default
        return _FALLBACK_SENTENCES.get(key, _FALLBACK_SENTENCES["creature"])


@lru_cache(maxsize=None)
def _head(name: str):
    return getattr(_heads(), name)()


@lru_cache(maxsize=1)
def _trained_model():
    return importlib.import_module("helpers.tinymodel").load_trained()


def _project(head, E):
    """Q, K, V of ``head`` for embeddings ``E`` (row-vector convention)."""
    return E @ head.W_Q, E @ head.W_K, E @ head.W_V


def _value_up(head, values):
    """Values in embedding space: ``values @ W_up`` when the head has one."""
    W_up = getattr(head, "W_up", None)
    if W_up is None:
        return values
    return values @ np.asarray(W_up)


# --------------------------------------------------------------------------
# reading what the learner typed
# --------------------------------------------------------------------------
@lru_cache(maxsize=4096)
def _has_glyph(ch: str) -> bool:
    return _default_font().get_char_index(ord(ch)) != 0


@lru_cache(maxsize=1)
def _default_font():
    return get_font(findfont(FontProperties()))


def _display_label(token: str, limit: int = LABEL_CHARS) -> tuple[str, bool]:
    """A label that can be drawn: no control characters, characters the font
    lacks shown as ``?``, cut to ``limit`` characters. Returns (label,
    whether a character had to be replaced)."""
    out, replaced = [], False
    for ch in str(token):
        if ch.isspace() or ord(ch) < 32:
            out.append(" ")
        elif _has_glyph(ch):
            out.append(ch)
        else:
            out.append("?")
            replaced = True
    label = "".join(out)
    if len(label) > limit:
        label = label[: limit - 1] + "\u2026"
    return label, replaced


def _plain(text: str, limit: int = 24) -> str:
    """User text made safe and short for a one-line message."""
    text = "".join(" " if (c.isspace() or ord(c) < 32) else c for c in str(text))
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _list_words(words, most: int = 6) -> str:
    shown = ", ".join(f"'{_plain(w)}'" for w in words[:most])
    if len(words) > most:
        shown += f" and {len(words) - most} more"
    return shown


def _read(text, *, cap: int = MAX_TOKENS, positions: bool = True, what="sentence"):
    """Tokenize, cap and embed a typed sentence.

    Returns a namespace with ``tokens`` (capped), ``labels`` (drawable),
    ``E`` (n, D_MODEL), ``unknown``, ``notes`` (list of messages) and
    ``empty`` (True when there is nothing to draw).
    """
    lex = _lexicon()
    text = "" if text is None else str(text)
    notes = []
    tokens = lex.tokenize(text) if text.strip() else []
    if not text.strip():
        notes.append(f"Type a {what} in the box.")
    elif not tokens:
        notes.append(
            f"No words in that {what} (punctuation is not a word): type some words."
        )
    if len(tokens) > cap:
        notes.append(f"Showing the first {cap} of {len(tokens)} tokens.")
        tokens = tokens[:cap]
    emb = lex.embed(tokens, positions=positions)
    unknown = list(emb.unknown)
    if unknown:
        notes.append(
            f"Not in the toy lexicon (given the 'unknown' vector): "
            f"{_list_words(unknown)}."
        )
    labels, replaced = [], False
    for t in tokens:
        label, r = _display_label(t)
        labels.append(label)
        replaced = replaced or r
    if replaced:
        notes.append("Characters this font cannot draw are shown as '?'.")
    return SimpleNamespace(
        tokens=list(tokens),
        labels=labels,
        E=np.asarray(emb.E, dtype=float),
        unknown=unknown,
        notes=notes,
        empty=not tokens,
    )


def _default_index(tokens) -> int:
    """The token an explorer picks when the learner has not chosen one: the
    first ambiguous word (bank, mole), else the first noun, else the last."""
    for i, t in enumerate(tokens):
        if t in ("bank", "mole"):
            return i
    lex = _lexicon()
    try:
        table = lex.load_lexicon()
        for i, t in enumerate(tokens):
            if t in table and table.info(t).get("pos") == "noun":
                return i
    except Exception:
        pass
    return max(len(tokens) - 1, 0)


def _nice(x: float) -> float:
    """The smallest of 1, 2, 5 x 10^k that is >= |x| (1.0 for 0 or NaN)."""
    x = abs(float(x))
    if not math.isfinite(x) or x <= 1e-12:
        return 1.0
    base = 10.0 ** math.floor(math.log10(x))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * base >= x * (1 - 1e-9):
            return m * base
    return 10.0 * base  # pragma: no cover


def _fmt(value, fmt: str) -> str:
    """Format a number, without the confusing "-0.00"."""
    text = fmt.format(value)
    return text[1:] if text.startswith("-") and not any(c in "123456789"
                                                         for c in text) else text


#: Token labels (tick labels of the grids, bar labels): FEATURE_LABEL_SIZE
#: (11 px) up to this many tokens; longer sentences shrink them, but never
#: below MIN_LABEL_PX pixels.
FULL_SIZE_TOKENS = 16
MIN_LABEL_PX = 9


def _label_size(n: int) -> float:
    """Font size (points at DPI) of the labels of ``n`` tokens."""
    if n <= FULL_SIZE_TOKENS:
        return FEATURE_LABEL_SIZE
    if n <= 20:
        return 9.0  # 10 px
    return (MIN_LABEL_PX + 0.1) * 72.0 / DPI  # 9 px


def _small_label_size(n: int) -> float:
    """Labels of the small panels of the all-heads grid (lesson 07): three
    heads side by side leave about 10 px per column at 24 tokens, so above
    16 tokens these labels go straight down to MIN_LABEL_PX (9 px, accepted
    for these small panels; the single-head view shows the same pattern
    larger)."""
    return FEATURE_LABEL_SIZE if n <= FULL_SIZE_TOKENS else _label_size(MAX_TOKENS)


@lru_cache(maxsize=8192)
def _fit_label(label: str, px: int, room: float) -> str:
    """``label`` cut (ending in an ellipsis) to at most ``room`` pixels wide
    at ``px`` pixels, so that no label runs off the picture."""
    if _label_width(label, px) <= room:
        return label
    for k in range(len(label) - 1, 0, -1):
        cut = label[:k].rstrip() + "\u2026"
        if _label_width(cut, px) <= room:
            return cut
    return "\u2026"


# --------------------------------------------------------------------------
# fast drawing: cached background + changed artists + cached text bitmaps
# --------------------------------------------------------------------------
@lru_cache(maxsize=32)
def _pil_font(path: str, px: int):
    from PIL import ImageFont

    try:  # the same simple layout everywhere (no libraqm shaping)
        return ImageFont.truetype(path, px, layout_engine=ImageFont.Layout.BASIC)
    except AttributeError:  # pragma: no cover - old Pillow
        return ImageFont.truetype(path, px, layout_engine=ImageFont.LAYOUT_BASIC)


@lru_cache(maxsize=8192)
def _text_bitmap(text: str, path: str, px: int, angle: float, align: str = "left"):
    """Alpha mask (uint8, rows from the top) of ``text`` (lines aligned by
    ``align``), rotated by ``angle`` degrees counter-clockwise, plus the
    ascent of the first line."""
    from PIL import Image, ImageDraw

    font = _pil_font(path, px)
    ascent, descent = font.getmetrics()
    line_h = ascent + descent + 1
    lines = text.split("\n")
    widths = [int(math.ceil(font.getlength(line))) if line else 0 for line in lines]
    width = max(max(widths) + 2, 1)
    img = Image.new("L", (width, line_h * len(lines)), 0)
    draw = ImageDraw.Draw(img)
    for k, (line, w) in enumerate(zip(lines, widths)):
        if not line:
            continue
        x = {"center": (width - w) / 2, "right": width - w - 1}.get(align, 1)
        draw.text((x, k * line_h), line, font=font, fill=255)
    if angle % 360:
        img = img.rotate(angle, expand=True, resample=Image.BICUBIC)
    return np.asarray(img), ascent


def _set_text(t, text=None, *, visible=True, size=None, colour=None):
    """Change a Text artist only where something changed (setters are slow)."""
    if t.get_visible() != visible:
        t.set_visible(visible)
    if not visible:
        return
    if text is not None and t.get_text() != text:
        t.set_text(text)
    if size is not None and t.get_fontsize() != size:
        t.set_fontsize(size)
    if colour is not None and getattr(t, "_attn_colour", None) != colour:
        t.set_color(colour)
        t._attn_colour = colour


def _labels_width(labels, size, dpi) -> float:
    """Width in pixels of the widest label at ``size`` points."""
    if not labels:
        return 0.0
    px = max(int(round(size * dpi / 72.0)), 1)
    return max(_label_width(label, px) for label in labels)


@lru_cache(maxsize=8192)
def _label_width(label: str, px: int) -> float:
    font = _pil_font(findfont(FontProperties()), px)
    return max(font.getlength(line) for line in label.split("\n"))


class _Layer:
    """The artists of one figure: which ones change, which texts are fast."""

    def __init__(self, fig):
        self.fig = fig
        self.dynamic = []
        self.fast = set()

    def add(self, artist):
        artist.set_animated(True)
        self.dynamic.append(artist)
        return artist

    def text(self, x, y, s="", *, ax=None, transform=None, **kw):
        owner = ax if ax is not None else self.fig
        if transform is None:
            transform = ax.transAxes if ax is not None else self.fig.transFigure
        kw.setdefault("fontsize", 9)
        t = owner.text(x, y, s, transform=transform, parse_math=False, **kw)
        self.add(t)
        self.fast.add(t)
        return t


@lru_cache(maxsize=256)
def _rgb_alpha(colour, alpha):
    r, g, b, a = to_rgba(colour, alpha)
    return np.array([r * 255, g * 255, b * 255], dtype=np.uint16), a


def _place_text(t, dpi, x, y, height):
    """The alpha mask of the Text artist ``t`` anchored at display point
    (x, y) and its top-left pixel (x0, y0) in a picture ``height`` pixels
    high (rows from the top); None when there is no text."""
    s = t.get_text()
    if not s:
        return None
    path = getattr(t, "_attn_font", None)
    if path is None:
        path = t._attn_font = findfont(t.get_fontproperties())
    px = max(int(round(t.get_fontsize() * dpi / 72.0)), 1)
    ha, va = t.get_horizontalalignment(), t.get_verticalalignment()
    mask, ascent = _text_bitmap(s, path, px, float(t.get_rotation()), ha)
    h, w = mask.shape
    top = height - y
    x0 = x - {"left": 0, "center": w / 2, "right": w}.get(ha, 0)
    if va == "top":
        y0 = top
    elif va in ("center", "center_baseline"):
        y0 = top - h / 2
    elif va == "baseline" and not t.get_rotation():
        y0 = top - ascent
    else:
        y0 = top - h
    return mask, int(round(x0)), int(round(y0))


def _blit_text(arr, t, dpi, x, y):
    """Composite the Text artist ``t``, anchored at display point (x, y),
    into the RGBA array ``arr``."""
    H, W = arr.shape[:2]
    placed = _place_text(t, dpi, x, y, H)
    if placed is None:
        return
    mask, x0, y0 = placed
    h, w = mask.shape
    xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + w, W), min(y0 + h, H)
    if xa >= xb or ya >= yb:
        return
    colour, alpha = _rgb_alpha(t.get_color(), t.get_alpha())
    a = mask[ya - y0 : yb - y0, xa - x0 : xb - x0, None].astype(np.uint16)
    if alpha < 1:
        a = (a * alpha).astype(np.uint16)
    region = arr[ya:yb, xa:xb, :3]
    region[...] = (region * (255 - a) + colour * a + 127) // 255


def _render_png(layer, key, cache, canvas):
    """Draw ``layer`` and return PNG bytes. ``key`` names the static content
    (axes visible, axis limits with ticks, colour-bar range): backgrounds are
    cached per key."""
    fig = layer.fig
    if key in cache:
        canvas.restore_region(cache[key])
        cache.move_to_end(key)
    else:
        canvas.draw()  # animated artists are left out of this draw
        cache[key] = canvas.copy_from_bbox(fig.bbox)
        while len(cache) > 8:
            cache.popitem(last=False)
    renderer = canvas.get_renderer()
    texts = []
    for a in layer.dynamic:
        if not a.get_visible() or (a.axes is not None and not a.axes.get_visible()):
            continue
        if a in layer.fast:
            texts.append(a)
        else:
            a.draw(renderer)
    arr = np.asarray(canvas.buffer_rgba())
    groups = {}  # texts sharing one transform are placed in one call
    for t in texts:
        tr = t.get_transform()
        groups.setdefault(id(tr), (tr, []))[1].append(t)
    for tr, group in groups.values():
        points = tr.transform(np.array([t.get_position() for t in group], float))
        for t, (x, y) in zip(group, points):
            _blit_text(arr, t, fig.dpi, x, y)
    return _png_bytes(arr)


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(tag + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)


def _png_bytes(rgba) -> bytes:
    """Encode the RGB part of an (h, w, 4) uint8 array as PNG.

    A minimal writer (filter "none", zlib level 1): several times faster
    than the general encoders for these flat-coloured pictures, and the
    output depends only on the pixels.
    """
    h, w = rgba.shape[:2]
    raw = np.zeros((h, 3 * w + 1), dtype=np.uint8)  # column 0: filter "none"
    rgb = raw[:, 1:].reshape(h, w, 3)
    for c in range(3):
        rgb[:, :, c] = rgba[:, :, c]
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(raw, 1))
            + _png_chunk(b"IEND", b""))


# --------------------------------------------------------------------------
# panels: a heatmap and a bar chart whose labels change with the sentence
# --------------------------------------------------------------------------
class _Heatmap:
    """An image with token labels on both sides, a title and a colour bar."""

    def __init__(self, layer, rect, *, cbar_rect=None, clabel="attention weight",
                 rows=MAX_TOKENS, cols=MAX_TOKENS, cmap=_CMAP, title_size=11,
                 annotate=False, col_size=None, small=False, room=None,
                 extra_rows=0):
        fig = layer.fig
        self.extra_rows = extra_rows  # rows that are not tokens (e.g. a sum)
        self.col_size = col_size  # None: the size follows the number of labels
        self.small = small  # the small panels of the all-heads grid
        # room (pixels) for the row labels (left of the image, ``room``: the
        # figure fraction free on the left) and the column labels (below)
        w_px, h_px = fig.bbox.width, fig.bbox.height
        self._room = (w_px * (rect[0] if room is None else room), h_px * rect[1])
        self.layer = layer
        self.ax = ax = fig.add_axes(rect)
        ax.set_xticks([])
        ax.set_yticks([])
        cm = matplotlib.colormaps[cmap].with_extremes(bad=_BAD_COLOUR)
        self.im = layer.add(ax.imshow(np.zeros((1, 1)), cmap=cm, vmin=0, vmax=1,
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
        self.row_text = [layer.text(0, i, ax=ax, transform=left, ha="right",
                                    va="center") for i in range(rows)]
        self.col_text = [layer.text(j, 0, ax=ax, transform=below, ha="center",
                                    va="top", rotation=90) for j in range(cols)]
        self.cell_text = []
        if annotate:  # True: as many columns as labels; an int: that many
            n_cols = cols if annotate is True else int(annotate)
            self.cell_text = [[layer.text(j, i, ax=ax, transform=ax.transData,
                                          ha="center", va="center", fontsize=7)
                               for j in range(n_cols)] for i in range(rows)]
        self.title = layer.text(0.5, 1.0, ax=ax, ha="center", va="bottom",
                                fontsize=title_size,
                                transform=offset_copy(ax.transAxes, fig=fig, y=4,
                                                      units="points"))
        self.xlabel = layer.text(0.5, 0, ax=ax, ha="center", va="top", fontsize=9)
        self.ylabel = layer.text(0, 0.5, ax=ax, ha="right", va="center", fontsize=9,
                                 rotation=90)
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
                _set_text(t, labels[i] if on else None, visible=on, size=size,
                          colour=(colours[i] if colours is not None else "black")
                          if on else None)
        if self.cell_text:
            middle = (vmin + vmax) / 2
            for i, row in enumerate(self.cell_text):
                for j, t in enumerate(row):
                    on = i < n and j < m
                    if not on:
                        _set_text(t, visible=False)
                        continue
                    v = data[i, j]
                    _set_text(t, _fmt(v, "{:.1f}") if np.isfinite(v) else "",
                              colour="black" if v > middle else "white")
        _set_text(self.title, title)
        _set_text(self.xlabel, xlabel)
        _set_text(self.ylabel, ylabel)
        # put the axis titles just beyond the longest label
        dpi = self.layer.fig.dpi
        offsets = (
            -(_labels_width(tuple(row_labels), sizes[0], dpi) * 72.0 / dpi + 6),
            -(_labels_width(tuple(col_labels), sizes[1], dpi) * 72.0 / dpi + 6),
        )
        if offsets != self._label_offsets:
            fig, ax = self.layer.fig, self.ax
            self.ylabel.set_transform(offset_copy(ax.transAxes, fig=fig,
                                                  x=offsets[0], units="points"))
            self.xlabel.set_transform(offset_copy(ax.transAxes, fig=fig,
                                                  y=offsets[1], units="points"))
            self._label_offsets = offsets
        return ("heat", round(float(vmin), 6), round(float(vmax), 6))

    def _label_sizes(self, row_labels, col_labels):
        size = _small_label_size if self.small else _label_size
        col = self.col_size if self.col_size is not None else size(len(col_labels))
        return size(max(len(row_labels) - self.extra_rows, 0)), col

    def label_room(self, size, room, axis_title):
        """(pixels of the font, pixels free for a label) at ``size`` points
        with ``room`` pixels between the image and the picture's edge."""
        dpi = self.layer.fig.dpi
        px = max(int(round(size * dpi / 72.0)), 1)
        room -= (3 + 2) * dpi / 72.0  # the 3 pt gap to the image, a margin
        if axis_title:  # the title is 6 pt beyond the labels, 9 pt high
            room -= (6 + 9 * 1.3) * dpi / 72.0
        return px, float(int(room))

    def _fit(self, labels, size, room, axis_title):
        """Cut labels that would not fit between the image and the picture's
        edge (leaving room for the axis title beyond them)."""
        px, room = self.label_room(size, room, axis_title)
        return [_fit_label(label, px, room) for label in labels]

    def group_columns(self, groups, names):
        """Mark groups of columns that never change (the feature columns):
        white separator lines between the groups and each group's name below
        the column labels. ``groups``: [(name, number of columns), ...]."""
        layer, ax, fig = self.layer, self.ax, self.layer.fig
        size = self.col_size or _label_size(len(names))
        below = (_labels_width(tuple(names), size, fig.dpi) * 72.0 / fig.dpi + 6)
        under = blended_transform_factory(
            ax.transData, offset_copy(ax.transAxes, fig=fig, y=-below, units="points"))
        start = 0
        self.separators, self.group_text = [], []
        for k, (name, count) in enumerate(groups):
            if k:
                line = ax.axvline(start - 0.5, color="white", lw=2.5)
                self.separators.append(layer.add(line))  # drawn over the image
            self.group_text.append(ax.text(
                start + (count - 1) / 2, 0, name, transform=under, ha="center",
                va="top", fontsize=size, color="#444444", parse_math=False))
            start += count


class _Bars:
    """Horizontal bars, one row per label (``series`` bars per row)."""

    def __init__(self, layer, rect, *, rows=MAX_TOKENS, series=1, xlabel="",
                 colours=(_BAR, _BAR_AFTER, "#21918c"), legend=None,
                 values=True, title_size=10, room=None):
        fig = layer.fig
        # pixels free for the labels left of the bars (``room``: a figure
        # fraction, when another panel is nearer than the picture's edge)
        self._room = fig.bbox.width * (rect[0] if room is None else room)
        self.ax = ax = fig.add_axes(rect)
        ax.set_yticks([])
        ax.set_xlabel(xlabel, fontsize=9)
        ax.tick_params(labelsize=8)
        ax.axvline(0, color="black", lw=0.8)
        self.series = series
        height = 0.8 / series
        self.bars = []
        for k in range(series):
            row = []
            for i in range(rows):
                r = Rectangle((0, i - 0.4 + k * height), 0, height,
                              color=colours[k % len(colours)])
                ax.add_patch(r)
                row.append(layer.add(r))
            self.bars.append(row)
        self.colours = colours
        left = blended_transform_factory(
            offset_copy(ax.transAxes, fig=fig, x=-3, y=0, units="points"), ax.transData
        )
        self.row_text = [layer.text(0, i, ax=ax, transform=left, ha="right",
                                    va="center") for i in range(rows)]
        self.value_text = []
        if values:
            for k in range(series):
                y0 = -0.4 + (k + 0.5) * height
                self.value_text.append([
                    layer.text(0, i + y0, ax=ax, transform=ax.transData,
                               va="center", fontsize=7) for i in range(rows)
                ])
        self.title = layer.text(0.5, 1.0, ax=ax, ha="center", va="bottom",
                                fontsize=title_size,
                                transform=offset_copy(ax.transAxes, fig=fig, y=4,
                                                      units="points"))
        if legend:
            handles = [Rectangle((0, 0), 1, 1, color=colours[k])
                       for k in range(len(legend))]
            ax.legend(handles, legend, fontsize=7, loc="upper center",
                      bbox_to_anchor=(0.5, -0.16), frameon=False)

    def set_visible(self, on: bool):
        self.ax.set_visible(on)

    def update(self, values, labels, *, title="", xlim=None, highlight=None,
               fmt="{:.2f}"):
        """``values``: (n,) or (series, n)."""
        values = np.atleast_2d(np.asarray(values, dtype=float))
        n = values.shape[1]
        if xlim is None:
            lo = min(0.0, float(np.nanmin(values))) if n else 0.0
            hi = max(0.0, float(np.nanmax(values))) if n else 1.0
            lim = _nice(max(abs(lo), abs(hi)))
            xlim = (-lim if lo < 0 else 0.0, lim if hi > 0 or lo >= 0 else 0.0)
        lo, hi = xlim
        pad = 0.12 * (hi - lo)  # room for the value labels
        self.ax.set_xlim(lo - (pad if lo < 0 else 0), hi + pad)
        self.ax.set_ylim(n - 0.5, -0.5)
        size = _label_size(n)
        dpi = self.ax.figure.dpi
        px = max(int(round(size * dpi / 72.0)), 1)
        room = float(int(self._room - 5 * dpi / 72.0))
        labels = [_fit_label(label, px, room) for label in labels]
        for k, row in enumerate(self.bars):
            for i, r in enumerate(row):
                on = i < n and k < values.shape[0]
                if r.get_visible() != on:
                    r.set_visible(on)
                if on:
                    v = values[k, i] if np.isfinite(values[k, i]) else 0.0
                    r.set_width(v)
                    colour = self.colours[k % len(self.colours)]
                    if highlight is not None and i == highlight and self.series == 1:
                        colour = _BAR_HIGHLIGHT
                    if getattr(r, "_attn_colour", None) != colour:
                        r.set_color(colour)
                        r._attn_colour = colour
            if k < len(self.value_text):
                for i, t in enumerate(self.value_text[k]):
                    on = i < n and k < values.shape[0]
                    if not on:
                        _set_text(t, visible=False)
                        continue
                    v = values[k, i]
                    _set_text(t, _fmt(v, fmt) if np.isfinite(v) else "-inf")
                    t.set_x(v if np.isfinite(v) else 0.0)
                    t.set_horizontalalignment("left" if v >= 0 else "right")
        for i, t in enumerate(self.row_text):
            on = i < n
            _set_text(t, labels[i] if on else None, visible=on, size=size,
                      colour=(_BAR_HIGHLIGHT if i == highlight else "black")
                      if on else None)
        _set_text(self.title, title)
        return ("bars", round(lo, 9), round(hi, 9))


# --------------------------------------------------------------------------
# the explorer base
# --------------------------------------------------------------------------
class _Explorer(widgets.VBox):
    """Common machinery: inputs -> state (synchronously) -> one picture."""

    kind = "explorer"
    figsize = (7.0, 5.0)

    def __init__(self, controls, inputs):
        super().__init__()
        self.tokens = []
        self.weights = np.zeros((0, 0))
        self.message = ""
        self.draw_count = 0
        self.update_count = 0
        self.last_error = None
        self._state = None
        self._pending = False
        self._pending_loop = None
        self._pending_since = self._last_request = 0.0
        self._quiet = False
        self._bg_cache = OrderedDict()
        self.figure = Figure(figsize=self.figsize, dpi=DPI)
        self._canvas = FigureCanvasAgg(self.figure)
        self._layer = self._new_layer(self.figure)
        self.picture = widgets.Image(format="png", value=b"",
                                     layout=widgets.Layout(max_width="100%"))
        self.picture.add_class("attn-picture")
        self.message_label = widgets.Label(value="")
        self.message_label.add_class("attn-message")
        self.children = tuple(controls) + (self.picture, self.message_label)
        self.add_class("attn-explorer")
        names = {id(v): k for k, v in vars(self).items()
                 if isinstance(v, widgets.Widget)}
        for w in inputs:
            w.add_class("attn-input")
            if id(w) in names:  # e.g. attn-temperature, attn-token, attn-head
                w.add_class("attn-" + names[id(w)].replace("_", "-"))
            w.observe(self._on_change, names="value")
        self.refresh()

    # -- to be provided by each explorer ----------------------------------
    def _build(self, layer):  # pragma: no cover - abstract
        raise NotImplementedError

    def _compute(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def _paint(self, layer, state):  # pragma: no cover - abstract
        raise NotImplementedError

    # -- machinery -------------------------------------------------------
    def _new_layer(self, fig):
        layer = _Layer(fig)
        self._build(layer)
        layer.placeholder = layer.text(0.5, 0.5, "", ha="center", va="center",
                                       fontsize=14, color="#555555")
        return layer

    def _on_change(self, change=None):
        if not self._quiet:
            self.refresh()

    def refresh(self):
        """Recompute from the inputs and schedule a picture."""
        self.update_count += 1
        try:
            state = self._compute()
            extra = getattr(state, "extra", {})
            for name in extra:
                if self.has_trait(name):  # a programming error, caught in tests
                    raise AttributeError(f"{name!r} would hide a widget trait")
        except Exception as exc:  # never escape a widget callback
            self.last_error = exc
            self._set_message(
                f"Could not update ({type(exc).__name__}); the last picture is kept."
            )
            return
        self._state = state
        self.tokens = list(state.tokens)
        self.weights = state.weights
        for name, value in extra.items():
            setattr(self, name, value)
        self._set_message(" ".join(state.notes))
        self._schedule_draw()

    def _set_message(self, text):
        self.message = text
        self.message_label.value = text

    def _schedule_draw(self):
        """Draw now without an event loop; with one, draw once the inputs have
        been quiet for ``SETTLE`` seconds (at the latest after ``MAX_WAIT``),
        so that a burst of updates gives exactly one picture."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None:
            self._draw_now()
            return
        now = time.perf_counter()
        self._last_request = now
        if self._pending and self._pending_loop is loop and not loop.is_closed():
            return  # a draw is already on its way and will show this state
        self._pending = True
        self._pending_loop = loop
        self._pending_since = now
        loop.call_later(SETTLE, self._scheduled_draw)

    def _scheduled_draw(self):
        if not self._pending:
            return
        loop, now = self._pending_loop, time.perf_counter()
        quiet = now - self._last_request
        if (quiet < SETTLE and now - self._pending_since < MAX_WAIT
                and loop is not None and not loop.is_closed()):
            loop.call_later(SETTLE - quiet, self._scheduled_draw)
            return
        self._draw_now()

    def flush(self):
        """Draw now if a picture is still pending."""
        if self._pending or self.draw_count == 0:
            self._draw_now()

    def _draw_now(self):
        self._pending = False
        self._pending_loop = None
        if self._state is None:
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                png = self._draw_png(self._layer, self._state, self._bg_cache,
                                     self._canvas)
        except Exception as exc:  # keep the last picture
            self.last_error = exc
            note = f"(Could not draw: {type(exc).__name__}.)"
            self._set_message(f"{self.message} {note}".strip())
            return
        self.picture.value = png
        self.draw_count += 1

    def _draw_png(self, layer, state, cache, canvas):
        key = self._paint_all(layer, state)
        return _render_png(layer, key, cache, canvas)

    def _paint_all(self, layer, state):
        if state.empty:
            for ax in layer.fig.axes:
                ax.set_visible(False)
            layer.placeholder.set_visible(True)
            layer.placeholder.set_text(state.placeholder)
            return ("placeholder",)
        for ax in layer.fig.axes:
            ax.set_visible(True)
        layer.placeholder.set_visible(False)
        return ("main",) + tuple(self._paint(layer, state))

    def naive_png(self):
        """The picture drawn the slow, ordinary way: a new pyplot figure with
        the same content, rendered like the inline backend does, into an
        ``Output`` widget, then closed. Used by the benchmark."""
        import matplotlib.pyplot as plt
        from IPython.core.pylabtools import print_figure
        from IPython.display import Image as IPImage

        out = getattr(self, "_naive_out", None)
        if out is None:
            out = self._naive_out = widgets.Output()
        fig = plt.figure(figsize=self.figsize, dpi=DPI)
        try:
            layer = self._new_layer(fig)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self._paint_all(layer, self._state)
                png = print_figure(fig, "png", bbox_inches="tight")
            out.outputs = ()
            out.append_display_data(IPImage(png))
        finally:
            plt.close(fig)
        return png

    def close(self):
        """Close the explorer and every widget inside it."""
        def walk(w):
            for child in getattr(w, "children", ()):
                yield from walk(child)
            yield w

        for w in list(walk(self)):
            if w is not self:
                w.close()
        super().close()

    # -- display -----------------------------------------------------------
    def _summary(self):
        return f"<{self.kind}: {len(self.tokens)} tokens>"

    def __repr__(self):
        return self._summary()

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        self.flush()
        return mime_bundle(self._summary(), self.picture.value, self)

    def _ipython_display_(self, **kwargs):
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)
        handle = getattr(self, "_handle_displayed", None)
        if handle is not None:
            try:
                handle(**kwargs)
            except Exception:  # pragma: no cover - old/new API differences
                pass


def mime_bundle(text, png, widget):
    """What a displayed explorer (or training monitor) sends to the front end.

    ``text/plain`` and a still ``image/png`` (what a stored notebook shows on
    GitHub) plus the live widget view, built from the model id so that both
    ipywidgets 7.7 (Colab; widgets there have no ``_repr_mimebundle_``) and
    8 understand it. ``helpers.nbtools run`` drops the view when storing.
    """
    data = {"text/plain": text}
    if png:
        data["image/png"] = base64.b64encode(bytes(png)).decode("ascii")
    model_id = getattr(widget, "model_id", None) or getattr(widget, "_model_id", None)
    if model_id and getattr(widget, "_view_name", None) is not None:
        data[_WIDGET_VIEW] = {"version_major": 2, "version_minor": 0,
                              "model_id": model_id}
    return data


def _text_box(value, description="Sentence:", width="34em"):
    box = widgets.Text(value=value, description=description,
                       layout=widgets.Layout(width=width),
                       style={"description_width": "initial"})
    return box


def _sentence_box(value, description="Sentence:"):
    box = _text_box(value, description)
    box.add_class("attn-sentence")
    return box


class _TokenPicker:
    """Keeps a ``Dropdown`` of token positions in step with the sentence."""

    def __init__(self, description="Token:"):
        self.widget = widgets.Dropdown(options=[], description=description,
                                       layout=widgets.Layout(width="16em"),
                                       style={"description_width": "initial"})
        self._tokens = []

    def sync(self, explorer, tokens):
        """Offer the tokens; keep the chosen word if it is still there.
        Returns the chosen index (None when there are no tokens)."""
        dd = self.widget
        old_tokens, old = self._tokens, dd.value
        if not tokens:
            choice = None
        elif old is not None and old < len(tokens) and (
            not old_tokens or (old < len(old_tokens) and old_tokens[old] == tokens[old])
            or old_tokens == tokens
        ):
            choice = old
        elif old is not None and old < len(old_tokens) and old_tokens[old] in tokens:
            choice = tokens.index(old_tokens[old])
        else:
            choice = _default_index(tokens)
        options = [(f"{i}: {_display_label(t)[0]}", i) for i, t in enumerate(tokens)]
        explorer._quiet = True
        try:
            if list(dd.options) != options:
                dd.options = options
            if dd.value != choice:
                dd.value = choice
        finally:
            explorer._quiet = False
        self._tokens = list(tokens)
        return choice


def _choose(explorer, token):
    """Select a token given as an index or as a word (first occurrence)."""
    if token is None or not explorer.tokens:
        return
    if isinstance(token, str):
        word = token.lower()
        index = explorer.tokens.index(word) if word in explorer.tokens else None
    else:
        index = min(max(int(token), 0), len(explorer.tokens) - 1)
    if index is not None:
        explorer.token.value = index


def _empty_state(read, placeholder="Type a sentence above", weights_shape=(0, 0)):
    return SimpleNamespace(empty=True, placeholder=placeholder, tokens=read.tokens,
                           weights=np.zeros(weights_shape), notes=read.notes,
                           extra={})


class _SentenceExplorer(_Explorer):
    """An explorer driven by one sentence box.

    With ``token_label`` set, a token picker (``.token``) sits beside it.
    """

    token_label = None

    def __init__(self, sentence):
        self.sentence = _sentence_box(sentence)
        if self.token_label is None:
            super().__init__([self.sentence], [self.sentence])
            return
        self._picker = _TokenPicker(self.token_label)
        self.token = self._picker.widget
        super().__init__([widgets.HBox([self.sentence, self.token])],
                         [self.sentence, self.token])


# --------------------------------------------------------------------------
# 00: first taste
# --------------------------------------------------------------------------
class _FirstTaste(_SentenceExplorer):
    kind = "first_taste"
    figsize = (6.4, 5.4)

    def _build(self, layer):
        layer.heat = _Heatmap(layer, [0.2, 0.24, 0.6, 0.66],
                              cbar_rect=[0.83, 0.24, 0.03, 0.66])

    def _compute(self):
        r = _read(self.sentence.value)
        if r.empty:
            return _empty_state(r)
        head = _head("adjective_head")
        Q, K, V = _project(head, r.E)
        _, A = scaled_dot_product_attention(Q, K, V)
        return SimpleNamespace(empty=False, tokens=r.tokens, labels=r.labels,
                               weights=A, notes=r.notes, extra={})

    def _paint(self, layer, s):
        return layer.heat.update(
            s.weights, s.labels, s.labels,
            title="Who looks at whom (each row sums to 1)",
            xlabel="key: the word being looked at",
            ylabel="query: the word looking", **_WEIGHT_SCALE)


def first_taste(sentence=None):
    """Lesson 00: type a sentence and see it drawn as an attention pattern.

    The hand-built "adjective" head from ``helpers.heads``: each noun looks
    at the adjectives in front of it. ``.weights`` is the (n, n) pattern,
    rows = queries, columns = keys.
    """
    return _FirstTaste(_sentence("creature") if sentence is None else sentence)


# --------------------------------------------------------------------------
# 01: embeddings
# --------------------------------------------------------------------------
def _feature_groups():
    """The feature columns in groups: [(name, number of columns), ...]."""
    lex = _lexicon()
    n_pos = len(getattr(lex, "POS_TAGS", ()))
    n_fields = len(getattr(lex, "FIELDS", ()))
    n_flags = len(lex.FEATURES) - n_pos - n_fields
    if not n_pos or not n_fields or n_flags < 0:
        return [("named features", len(lex.FEATURES))]
    groups = [("part of speech", n_pos), ("meaning fields", n_fields)]
    return groups + ([("flags", n_flags)] if n_flags else [])


def _feature_heatmap(layer, rect, cbar_rect, **kw):
    """A heatmap with one column per named feature, in readable labels and
    grouped (part of speech | meaning fields | flags)."""
    feats = list(_lexicon().FEATURES)
    heat = _Heatmap(layer, rect, cbar_rect=cbar_rect, cols=len(feats),
                    col_size=FEATURE_LABEL_SIZE, **kw)
    heat.group_columns(_feature_groups(), feats)
    return heat


class _EmbeddingExplorer(_SentenceExplorer):
    kind = "embedding_explorer"
    figsize = (8.4, 5.8)

    def _build(self, layer):
        layer.heat = _feature_heatmap(layer, [0.15, 0.26, 0.74, 0.65],
                                      [0.91, 0.26, 0.02, 0.65],
                                      clabel="feature value")

    def _compute(self):
        lex = _lexicon()
        r = _read(self.sentence.value, positions=False)
        if r.empty:
            return _empty_state(r, weights_shape=(0, len(lex.FEATURES)))
        M = r.E[:, : len(lex.FEATURES)]
        unknown = set(r.unknown)
        labels = [f"{lab} (?)" if t in unknown else lab
                  for t, lab in zip(r.tokens, r.labels)]
        colours = ["#c0392b" if t in unknown else "black" for t in r.tokens]
        return SimpleNamespace(empty=False, tokens=r.tokens, labels=labels,
                               colours=colours, weights=M, notes=r.notes,
                               extra={"embedding": M, "unknown": r.unknown})

    def _paint(self, layer, s):
        feats = list(_lexicon().FEATURES)
        return layer.heat.update(
            s.weights, s.labels, feats,
            title="Embedding matrix E: one row per token (red '?' = unknown word)",
            ylabel="token", vmin=0.0, vmax=1.0,
            row_colours=s.colours)


def embedding_explorer(sentence=None):
    """Lesson 01: type a sentence and see its embedding matrix.

    One row per token, one column per named feature of the toy lexicon
    (positions left out). Words the lexicon does not know are flagged in red
    and listed in ``.message``. ``.weights`` (also ``.embedding``) is the
    drawn (n, len(FEATURES)) matrix.
    """
    return _EmbeddingExplorer(_sentence("creature") if sentence is None else sentence)


# --------------------------------------------------------------------------
# 02: context as a weighted sum
# --------------------------------------------------------------------------
def _sense_verdict(sims, tol=1e-9):
    """'river (0.87)'; 'tie (0.79 each)' or 'tie: a = b (0.6)' when the best tie.

    Like lesson 05's ``verdict``: equally close senses are reported as a tie,
    never as a winner picked by dictionary order.
    """
    top = max(sims.values())
    best = [name for name, c in sims.items() if top - c < tol]
    if len(best) == 1:
        return f"{best[0]} ({top:.2f})"
    if len(best) == len(sims):
        return f"tie ({top:.2f} each)"
    return f"tie: {' = '.join(best)} ({top:.2f})"


def _sense_name(sims, tol=1e-9):
    """The nearest sense, or "tie" when several are equally near."""
    top = max(sims.values())
    best = [name for name, c in sims.items() if top - c < tol]
    return best[0] if len(best) == 1 else "tie"


class _WeightedSumExplorer(_SentenceExplorer):
    kind = "weighted_sum_explorer"
    figsize = (8.4, 7.2)
    token_label = "Target word:"

    def _build(self, layer):
        layer.scores = _Bars(layer, [0.14, 0.52, 0.32, 0.39],
                             xlabel="score = target . word")
        layer.weights = _Bars(layer, [0.63, 0.52, 0.32, 0.39],
                              xlabel="weight = softmax(scores)", room=0.63 - 0.46)
        layer.result = _feature_heatmap(layer, [0.14, 0.21, 0.74, 0.15],
                                        [0.9, 0.21, 0.015, 0.15],
                                        clabel="value", rows=2, title_size=10)

    def _compute(self):
        lex = _lexicon()
        r = _read(self.sentence.value, positions=False)
        t = self._picker.sync(self, r.tokens)
        if r.empty:
            return _empty_state(r, weights_shape=(0,))
        F = r.E[:, : len(lex.FEATURES)]
        scores = F @ F[t]
        w = softmax(scores)
        new = w @ F
        word = r.tokens[t]
        sense_note = ""
        extra = {"scores": scores, "new_vector": new, "target": t, "senses": None}
        if word in _heads().SENSES:
            _, b_sims = _heads().nearest_sense(word, F[t])
            _, a_sims = _heads().nearest_sense(word, new)
            sense_note = (f"nearest sense before: {_sense_verdict(b_sims)}, "
                          f"after: {_sense_verdict(a_sims)}")
            extra["senses"] = {"before": b_sims, "after": a_sims}
        else:
            near = lex.nearest_words(new, k=3, exclude=(word,))
            sense_note = "nearest words after: " + ", ".join(
                f"{_display_label(wd)[0]} ({c:.2f})" for wd, c in near)
        extra["sense_note"] = sense_note
        return SimpleNamespace(empty=False, tokens=r.tokens, labels=r.labels,
                               weights=w, target=t, scores=scores,
                               before=F[t], new=new, sense_note=sense_note,
                               notes=r.notes, extra=extra)

    def _paint(self, layer, s):
        t, label = s.target, s.labels[s.target]
        k1 = layer.scores.update(s.scores, s.labels, highlight=t,
                                 title=f"1. scores of '{label}' with every word")
        k2 = layer.weights.update(s.weights, s.labels, highlight=t, xlim=WEIGHT_RANGE,
                                  title="2. weights (they sum to 1)")
        k3 = layer.result.update(
            np.vstack([s.before, s.new]), [label, f"{label}'"],
            list(_lexicon().FEATURES), vmin=0.0, vmax=1.0,
            title=f"3. {label}' = sum of weight x vector;  {s.sense_note}")
        return k1 + k2 + k3


def weighted_sum_explorer(sentence=None, token=None):
    """Lesson 02: a word's new vector as a weighted sum of the sentence.

    Pick the target word (``.token``, a token index) in a typed sentence and
    see the dot-product scores with every word, the softmax weights and the
    new vector next to the old one (features only, no positions), with the
    nearest sense of "bank"/"mole". ``.weights`` is the (n,) weight vector;
    ``.scores`` and ``.new_vector`` are exposed too, and ``.sense_note``, the
    verdict in the title of panel 3 (a tie is reported as a tie).
    """
    ex = _WeightedSumExplorer(_sentence("river_bank") if sentence is None
                              else sentence)
    _choose(ex, token)
    return ex


# --------------------------------------------------------------------------
# 03: queries and keys
# --------------------------------------------------------------------------
_SLOT_NAMES = {
    "adjective": ["adjective?", "order (1)", "order (2)"],
}


class _QKExplorer(_SentenceExplorer):
    kind = "qk_explorer"
    figsize = (8.4, 6.6)  # room for 24 keys (9 px labels)
    token_label = "Query token:"

    def _build(self, layer):
        d_k = _head("adjective_head").W_Q.shape[1]
        layer.query = _Heatmap(layer, [0.17, 0.79, 0.3, 0.05], rows=1, cols=0,
                               title_size=10, annotate=d_k)
        layer.keys = _Heatmap(layer, [0.17, 0.22, 0.3, 0.5],
                              cbar_rect=[0.49, 0.22, 0.015, 0.62],
                              clabel="vector entry", cols=d_k,
                              title_size=10, annotate=True)
        layer.products = _Bars(layer, [0.7, 0.22, 0.27, 0.62],
                               xlabel="query . key (raw score)")

    def _compute(self):
        r = _read(self.sentence.value)
        t = self._picker.sync(self, r.tokens)
        if r.empty:
            return _empty_state(r, weights_shape=(0,))
        head = _head("adjective_head")
        Q, K, _ = _project(head, r.E)
        q = Q[t]
        products = K @ q
        d_k = Q.shape[1]
        w = softmax(products / np.sqrt(d_k))
        return SimpleNamespace(empty=False, tokens=r.tokens, labels=r.labels,
                               weights=w, target=t, q=q, K=K, products=products,
                               notes=r.notes,
                               extra={"query_vector": q, "key_vectors": K,
                                      "scores": products,
                                      "target": t})

    def _paint(self, layer, s):
        d_k = s.K.shape[1]
        slots = _SLOT_NAMES.get("adjective", [])
        slots = slots if len(slots) == d_k else [f"slot {i}" for i in range(d_k)]
        lim = _nice(max(np.max(np.abs(s.K)), np.max(np.abs(s.q)), 1e-9))
        label = s.labels[s.target]
        layer.query.update(s.q[None, :], [f"query {label}"], [], vmin=-lim, vmax=lim,
                           title=f"Query of '{label}': what it looks for")
        k1 = layer.keys.update(s.K, s.labels, slots, vmin=-lim, vmax=lim,
                               title="Keys: what each token offers",
                               xlabel="query/key slot (adjective head)",
                               row_colours=[_BAR_HIGHLIGHT if i == s.target
                                            else "black" for i in range(len(s.labels))])
        best = int(np.argmax(s.products))
        k2 = layer.products.update(s.products, s.labels, highlight=best,
                                   title=f"'{label}' . each key")
        return k1 + k2


def qk_explorer(sentence=None, token=None):
    """Lesson 03: pick a query token and compare its query with every key.

    Uses the hand-built adjective head (``d_k = 3``). Shows the query vector
    of the chosen token (``.token``, an index), the key of every token and
    the dot products ``q . k_j`` (raw scores, ``.scores``). ``.weights`` is
    ``softmax(scores / sqrt(d_k))``, shape (n,).
    """
    ex = _QKExplorer(_sentence("creature") if sentence is None else sentence)
    _choose(ex, token)
    return ex


# --------------------------------------------------------------------------
# 04: the attention pattern
# --------------------------------------------------------------------------
_ROWS, _VIDEO = "rows = queries", "video: keys as rows"


class _PatternExplorer(_Explorer):
    kind = "pattern_explorer"
    figsize = (7.0, 5.8)

    def __init__(self, sentence, temperature, scaled, convention):
        self.sentence = _sentence_box(sentence)
        self.temperature = widgets.FloatSlider(
            value=temperature, min=0.1, max=5.0, step=0.05, description="Temperature",
            continuous_update=True, style={"description_width": "initial"})
        self.scaling = widgets.Checkbox(value=scaled, description="divide by sqrt(d_k)",
                                        indent=False)
        self.convention = widgets.ToggleButtons(options=[_ROWS, _VIDEO],
                                                value=convention)
        controls = [self.sentence,
                    widgets.HBox([self.temperature, self.scaling]), self.convention]
        super().__init__(controls, [self.sentence, self.temperature, self.scaling,
                                    self.convention])

    def _build(self, layer):
        layer.heat = _Heatmap(layer, [0.2, 0.25, 0.6, 0.63],
                              cbar_rect=[0.83, 0.25, 0.03, 0.63])

    def _compute(self):
        r = _read(self.sentence.value)
        if r.empty:
            return _empty_state(r)
        head = _head("adjective_head")
        Q, K, _ = _project(head, r.E)
        d_k = Q.shape[1]
        T = float(self.temperature.value)
        notes = list(r.notes)
        if not math.isfinite(T) or T <= 0:
            notes.append("The temperature must be positive: using 1.")
            T = 1.0
        scale = 1.0 / np.sqrt(d_k) if self.scaling.value else 1.0
        scores = (Q @ K.T) * scale
        A = softmax(scores / T)
        video = self.convention.value == _VIDEO
        return SimpleNamespace(empty=False, tokens=r.tokens, labels=r.labels,
                               weights=A, video=video, T=T,
                               scaled=bool(self.scaling.value), notes=notes,
                               extra={"scores": scores,
                                      "shown": A.T if video else A})

    def _paint(self, layer, s):
        how = "scaled by 1/sqrt(d_k)" if s.scaled else "not scaled"
        if s.video:
            return layer.heat.update(
                s.weights.T, s.labels, s.labels,
                title=f"Video convention: keys as rows, softmax down each column\n"
                      f"T = {s.T:.2f}, {how}",
                xlabel="query (each column sums to 1)", ylabel="key",
                **_WEIGHT_SCALE)
        return layer.heat.update(
            s.weights, s.labels, s.labels,
            title=f"Rows = queries, softmax along each row\nT = {s.T:.2f}, {how}",
            xlabel="key", ylabel="query (each row sums to 1)", **_WEIGHT_SCALE)


def pattern_explorer(sentence=None, temperature=1.0, scaled=True, convention=_ROWS):
    """Lesson 04: the attention pattern with a temperature and both conventions.

    ``A = softmax(Q K^T * s / T)`` for the adjective head, with ``s`` =
    ``1/sqrt(d_k)`` when ``.scaling`` is ticked and ``T`` = ``.temperature``.
    ``.convention`` switches the drawing between rows = queries and the
    video style (keys as rows, softmax down each column). ``.weights`` is
    always (n, n) with rows = queries; ``.shown`` is what is drawn.
    """
    return _PatternExplorer(_sentence("creature") if sentence is None else sentence,
                            temperature, scaled, convention)


# --------------------------------------------------------------------------
# 05: values and the update
# --------------------------------------------------------------------------
_UPDATE_HEADS = {"sense": "sense_head", "adjective": "adjective_head",
                 "previous token": "previous_token_head"}


def _written_columns(head):
    """The embedding columns a head's value-up writes into."""
    return np.flatnonzero(np.any(np.asarray(head.W_up) != 0, axis=0))


class _UpdateExplorer(_Explorer):
    kind = "update_explorer"
    figsize = (10.0, 5.8)  # room for up to 26 readable feature columns

    def __init__(self, sentence, head):
        self.sentence = _sentence_box(sentence)
        self._picker = _TokenPicker("Token:")
        self.token = self._picker.widget
        self.head = widgets.Dropdown(options=list(_UPDATE_HEADS),
                                     value=head if head in _UPDATE_HEADS else "sense",
                                     description="Head:",
                                     layout=widgets.Layout(width="14em"))
        super().__init__([widgets.HBox([self.sentence, self.token, self.head])],
                         [self.sentence, self.token, self.head])

    def _build(self, layer):
        n_cols = max(len(_written_columns(_head(f))) for f in _UPDATE_HEADS.values())
        layer.flow = _Heatmap(layer, [0.17, 0.25, 0.43, 0.62],
                              cbar_rect=[0.61, 0.25, 0.013, 0.62],
                              clabel="weight x value", rows=MAX_TOKENS + 1,
                              cols=n_cols, title_size=10, extra_rows=1,
                              col_size=FEATURE_LABEL_SIZE,
                              cmap="RdBu_r")  # signed: diverging, centred on 0
        layer.sense = _Bars(layer, [0.8, 0.25, 0.18, 0.62], series=2,
                            rows=5, xlabel="cosine similarity", room=0.8 - 0.7,
                            legend=["before (E)", "after (E')"])

    def _compute(self):
        lex, hd = _lexicon(), _heads()
        r = _read(self.sentence.value)
        t = self._picker.sync(self, r.tokens)
        if r.empty:
            return _empty_state(r, weights_shape=(0,))
        head = _head(_UPDATE_HEADS.get(self.head.value, "sense_head"))
        cols = _written_columns(head)
        Q, K, V = _project(head, r.E)
        _, A = scaled_dot_product_attention(Q, K, V)
        a = A[t]
        flowing = a[:, None] * _value_up(head, V)  # (n, D_MODEL)
        dE = flowing.sum(axis=0)
        before, after = r.E[t], r.E[t] + dE
        word = r.tokens[t]
        extra = {"dE": dE, "target": t, "before_sense": None, "after_sense": None,
                 "senses": None, "sense_note": ""}
        if word in hd.SENSES:
            _, b = hd.nearest_sense(word, before)
            _, af = hd.nearest_sense(word, after)
            names = list(b)
            cos = np.array([[b[k] for k in names], [af[k] for k in names]])
            b_verdict, a_verdict = _sense_verdict(b), _sense_verdict(af)
            note = f"before: {b_verdict} \u2192 after: {a_verdict}"
            extra.update(before_sense=_sense_name(b), after_sense=_sense_name(af),
                         senses={"before": b, "after": af}, sense_note=note)
            verdict = f"nearest sense\nbefore: {b_verdict}\n\u2192 after: {a_verdict}"
        else:
            n_feat = len(lex.FEATURES)
            change = np.abs(dE[:n_feat])
            top = [i for i in np.argsort(-change, kind="stable")[:5]
                   if change[i] > 1e-9]
            for i in np.argsort(-np.abs(after[:n_feat]), kind="stable"):
                if len(top) >= 3:
                    break
                if i not in top:
                    top.append(i)  # pad with the word's own largest features
            top = np.array(top, dtype=int)
            cos = np.vstack([before[top], after[top]])  # feature values
            names = [lex.FEATURES[i] for i in top]
            verdict = "features that\nchanged most"
        return SimpleNamespace(empty=False, tokens=r.tokens, labels=r.labels,
                               weights=a, target=t, flowing=flowing, dE=dE,
                               cos=cos, names=names, verdict=verdict, notes=r.notes,
                               cols=cols, head_name=self.head.value,
                               is_sense=word in hd.SENSES, extra=extra)

    def _paint(self, layer, s):
        feats = _lexicon().feature_names()
        cols = [feats[c] for c in s.cols]
        data = np.vstack([s.flowing[:, s.cols], s.dE[None, s.cols]])
        lim = _nice(max(np.max(np.abs(data)), 1e-9))
        label = s.labels[s.target]
        rows = s.labels + ["sum = dE"]
        # cut long words, never the weight after them
        px, room = layer.flow.label_room(layer.flow._label_sizes(rows, [])[0],
                                         layer.flow._room[0], True)
        room -= _label_width(" (0.00)", px)
        rows = [f"{_fit_label(lab, px, room)} ({w:.2f})"
                for lab, w in zip(s.labels, s.weights)] + rows[-1:]
        colours = ["black"] * len(s.labels) + [_BAR_HIGHLIGHT]
        k1 = layer.flow.update(data, rows, cols, vmin=-lim, vmax=lim,
                               title=f"Values flowing into '{label}' (weight x V W_up)",
                               xlabel=f"feature written by the {s.head_name} head",
                               ylabel="key token (attention weight)",
                               row_colours=colours)
        if s.is_sense:
            k2 = layer.sense.update(s.cos, s.names, xlim=(-1.0, 1.0),
                                    title=f"'{label}': {s.verdict}")
            xlabel = "cosine similarity to the sense"
        else:
            k2 = layer.sense.update(s.cos, s.names, title=f"'{label}': {s.verdict}")
            xlabel = "feature value"
        if layer.sense.ax.get_xlabel() != xlabel:
            layer.sense.ax.set_xlabel(xlabel, fontsize=9)
        k2 = k2 + (xlabel,)
        return k1 + k2


def update_explorer(sentence=None, token=None, head="sense"):
    """Lesson 05: the values that flow into one token, and where it ends up.

    A hand-built head (``.head``: "sense" by default, "adjective" to see
    "creature" pick up "fluffy" and "blue", or "previous token") on a typed
    sentence. For the chosen token (``.token``, an index) the left panel
    shows every key's weighted value ``A[i, j] * V_j`` (in the feature
    columns the head writes) and their sum ``dE``; the right panel compares
    ``E`` and ``E' = E + dE`` with the senses of "bank"/"mole"
    (``.before_sense``, ``.after_sense``: a sense name, or "tie" when two
    senses are equally near; cosines in ``.senses``; the verdict, e.g.
    "before: tie (0.79 each) → after: river (0.86)", in ``.sense_note``) or
    with the nearest words.
    ``.weights`` is the token's (n,) row of ``A``; ``.dE`` the update.
    """
    ex = _UpdateExplorer(_sentence("bank_river") if sentence is None else sentence,
                         head)
    _choose(ex, token)
    return ex


# --------------------------------------------------------------------------
# 06: masking
# --------------------------------------------------------------------------
_STEPS = [("1 scores", 1), ("2 masked scores", 2), ("3 softmax", 3), ("4 output", 4)]


class _MaskExplorer(_Explorer):
    kind = "mask_explorer"
    figsize = (7.4, 5.8)

    def __init__(self, sentence, masked, step):
        self.sentence = _sentence_box(sentence)
        self.mask = widgets.Checkbox(value=masked, description="causal mask",
                                     indent=False)
        self.step = widgets.ToggleButtons(options=_STEPS, value=step)
        super().__init__([self.sentence, widgets.HBox([self.mask, self.step])],
                         [self.sentence, self.mask, self.step])

    def _build(self, layer):
        head = _head("adjective_head")
        self._cols = np.flatnonzero(np.any(np.asarray(head.W_up) != 0, axis=0))
        layer.heat = _Heatmap(layer, [0.2, 0.25, 0.6, 0.63],
                              cbar_rect=[0.83, 0.25, 0.03, 0.63],
                              cols=max(MAX_TOKENS, len(self._cols)))

    def _compute(self):
        r = _read(self.sentence.value)
        if r.empty:
            return _empty_state(r)
        head = _head("adjective_head")
        Q, K, V = _project(head, r.E)
        n, d_k = Q.shape
        scores = Q @ K.T / np.sqrt(d_k)
        allowed = causal_mask(n) if self.mask.value else np.ones((n, n), bool)
        masked = np.where(allowed, scores, -np.inf)
        A = softmax(masked)
        out = (A @ _value_up(head, V))[:, self._cols]
        step = int(self.step.value)
        shown = {1: scores, 2: masked, 3: A, 4: out}[step]
        return SimpleNamespace(empty=False, tokens=r.tokens, labels=r.labels,
                               weights=A, step=step, shown=shown, masked_on=bool(
                                   self.mask.value), notes=r.notes,
                               extra={"scores": scores, "masked_scores": masked,
                                      "output": out, "shown": shown})

    def _paint(self, layer, s):
        on = "causal mask on" if s.masked_on else "no mask"
        if s.step in (1, 2):
            finite = s.shown[np.isfinite(s.shown)]
            lim = _nice(np.max(np.abs(finite)) if finite.size else 1.0)
            vmin, vmax = -lim, lim
        elif s.step == 3:
            vmin, vmax = WEIGHT_RANGE
        else:
            lim = _nice(max(np.max(np.abs(s.shown)), 1e-9))
            vmin, vmax = -lim, lim
        if s.step == 4:
            feats = _lexicon().feature_names()
            cols, xlabel = [feats[c] for c in self._cols], "feature of the update dE"
        else:
            cols, xlabel = s.labels, "key"
        title = {
            1: "Step 1: scores Q K^T / sqrt(d_k)",
            2: "Step 2: masked scores (grey = -inf, a later token)"
            if s.masked_on else "Step 2: masked scores (mask is off: nothing hidden)",
            3: "Step 3: softmax of each row (masked weights are exactly 0)",
            4: "Step 4: output dE = A V W_up (one row per token)",
        }[s.step]
        clabel = ("score" if s.step < 3 else
                                  "attention weight" if s.step == 3 else "value")
        key = layer.heat.update(s.shown, s.labels, cols, title=f"{title}\n({on})",
                                xlabel=xlabel, ylabel="query", vmin=vmin, vmax=vmax,
                                features=s.step == 4)
        layer.heat.cbar.set_label(clabel)
        return key + (clabel,)


def mask_explorer(sentence=None, masked=True, step=3):
    """Lesson 06: the causal mask, step by step.

    ``.mask`` switches the causal mask on/off; ``.step`` (1-4) shows the
    scores, the masked scores (``-inf`` drawn grey), the softmax weights and
    the output ``dE = A V W_up`` of the adjective head. ``.weights`` is always the
    (n, n) pattern after the mask; ``.shown`` is the drawn array.
    """
    return _MaskExplorer(_sentence("creature") if sentence is None else sentence,
                         masked, step)


# --------------------------------------------------------------------------
# 07: multi-head attention and parameter counting
# --------------------------------------------------------------------------
_ALL = "all heads"


class _MultiHeadExplorer(_Explorer):
    kind = "multi_head_explorer"
    figsize = (12.0, 5.6)  # room for 24 readable labels in each grid panel

    def __init__(self, sentence, head):
        self._heads_list = _heads().all_heads()
        names = [h.name for h in self._heads_list]
        self.sentence = _sentence_box(sentence)
        self.head = widgets.Dropdown(options=[_ALL] + names,
                                     value=head if head in names else _ALL,
                                     description="Head:")
        super().__init__([widgets.HBox([self.sentence, self.head])],
                         [self.sentence, self.head])

    def _build(self, layer):
        h = len(self._heads_list)
        layer.single = _Heatmap(layer, [0.16, 0.27, 0.5, 0.6],
                                cbar_rect=[0.68, 0.27, 0.015, 0.6])
        width, gap, left = 0.26, 0.025, 0.09
        layer.grid = []
        for k in range(h):
            x0 = left + k * (width + gap)
            layer.grid.append(_Heatmap(
                layer, [x0, 0.27, width, 0.6],
                cbar_rect=[x0 + width + 0.008, 0.27, 0.008, 0.6] if k == h - 1
                else None,
                rows=MAX_TOKENS if k == 0 else 0, title_size=10, small=True,
                room=x0 if k == 0 else gap))

    def _compute(self):
        r = _read(self.sentence.value)
        names = [h.name for h in self._heads_list]
        choice = self.head.value
        if r.empty:
            shape = (len(names), 0, 0) if choice == _ALL else (0, 0)
            return _empty_state(r, weights_shape=shape)
        W_Q, W_K, W_V, W_O = _heads().stack_heads(self._heads_list)
        from helpers.attention import multi_head_attention

        dE, A = multi_head_attention(r.E, W_Q, W_K, W_V, W_O)
        if choice == _ALL:
            weights = A
        else:
            weights = A[names.index(choice)]
        return SimpleNamespace(empty=False, tokens=r.tokens, labels=r.labels,
                               weights=weights, all=A, names=names, choice=choice,
                               notes=r.notes, extra={"all_weights": A, "dE": dE})

    def _paint(self, layer, s):
        single = s.choice != _ALL
        layer.single.set_visible(single)
        for g in layer.grid:
            g.set_visible(not single)
        if single:
            k = s.names.index(s.choice)
            desc = self._heads_list[k].description
            return ("single",) + layer.single.update(
                s.weights, s.labels, s.labels, xlabel="key", ylabel="query",
                title=f"Head '{s.choice}': {desc}", **_WEIGHT_SCALE)
        for k, g in enumerate(layer.grid):
            g.update(s.all[k], s.labels if k == 0 else [], s.labels,
                     title=f"{s.names[k]}", xlabel="key",
                     ylabel="query" if k == 0 else "", **_WEIGHT_SCALE)
        return ("grid",)


def multi_head_explorer(sentence=None, head=_ALL):
    """Lesson 07: several heads on one sentence.

    ``.head`` picks one of the hand-built heads (adjective, sense, previous
    token) or "all heads" for a grid. ``.weights`` is (n, n) for one head
    and (h, n, n) for all of them; ``.all_weights`` always (h, n, n).
    """
    return _MultiHeadExplorer(_sentence("creature") if sentence is None
                              else sentence, head)


def attention_parameters(d_model, d_k, n_heads, n_layers) -> dict:
    """Parameter counts of the attention part of a transformer."""
    d_model, d_k, n_heads, n_layers = (int(d_model), int(d_k), int(n_heads),
                                       int(n_layers))
    per_matrix = d_model * d_k
    per_head = 4 * per_matrix  # W_Q, W_K, value-down, value-up
    per_block = per_head * n_heads
    return {"query": per_matrix, "key": per_matrix, "value_down": per_matrix,
            "value_up": per_matrix, "square_value": d_model * d_model,
            "per_head": per_head, "per_block": per_block,
            "total": per_block * n_layers}


def _about(n: int) -> str:
    """``57982058496`` -> ``"about 58 billion"``; ``6291456`` -> ``"about 6.3
    million"``."""
    for size, word in ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"),
                       (10**3, "thousand")):
        if n >= size:
            x = n / size
            return f"about {x:.1f} {word}" if x < 10 else f"about {x:.0f} {word}"
    return f"{n}"


class _ParameterCalculator(_Explorer):
    kind = "parameter_calculator"
    figsize = (8.4, 3.8)

    def __init__(self, d_model, d_k, n_heads, n_layers):
        def box(value, name):
            return widgets.BoundedIntText(value=value, min=1, max=10**6,
                                          description=name,
                                          layout=widgets.Layout(width="13em"),
                                          style={"description_width": "initial"})

        self.d_model = box(d_model, "d_model")
        self.d_k = box(d_k, "d_k")
        self.n_heads = box(n_heads, "heads")
        self.n_layers = box(n_layers, "layers")
        self.table = widgets.HTML(value="")
        self.counts = {}
        inputs = [self.d_model, self.d_k, self.n_heads, self.n_layers]
        super().__init__([widgets.HBox(inputs), self.table], inputs)

    def _build(self, layer):
        layer.bars = _Bars(layer, [0.3, 0.17, 0.55, 0.7], rows=8,
                           xlabel="parameters (log scale)")
        layer.bars.ax.set_xlim(1.0, 10.0)
        layer.bars.ax.set_xscale("log")

    def _lines(self):
        c, d, k = self.counts, self.d_model.value, self.d_k.value
        h, L = self.n_heads.value, self.n_layers.value
        ratio = c["square_value"] / c["value_down"]
        return [
            f"W_Q (d_model x d_k = {d:,} x {k:,}): {c['query']:,}",
            f"W_K: {c['key']:,}",
            f"value-down (d_model x d_k): {c['value_down']:,}",
            f"value-up (d_k x d_model): {c['value_up']:,}",
            f"a square value map (d_model x d_model) would be {c['square_value']:,}"
            f" ({ratio:.3g} times one d_model x d_k matrix)",
            f"per head (4 matrices): {c['per_head']:,} ({_about(c['per_head'])})",
            f"per block ({h:,} heads): {c['per_block']:,} ({_about(c['per_block'])})",
            f"all {L:,} layers: {c['total']:,} ({_about(c['total'])})",
        ]

    def _compute(self):
        notes = []
        vals = {}
        for name in ("d_model", "d_k", "n_heads", "n_layers"):
            v = getattr(self, name).value
            try:
                v = int(v)
            except (TypeError, ValueError):
                v = 1
            if v < 1:
                notes.append(f"{name} must be at least 1: using 1.")
                v = 1
            vals[name] = v
        if vals["d_k"] > vals["d_model"]:
            notes.append("d_k is larger than d_model: the low-rank value map is "
                         "then no smaller than a square one.")
        self.counts = attention_parameters(**vals)
        lines = self._lines()
        self.table.value = ("<pre style='line-height:1.35'>"
                            + html.escape("\n".join(lines)) + "</pre>")
        return SimpleNamespace(empty=False, tokens=[], weights=np.zeros((0, 0)),
                               notes=notes, counts=dict(self.counts),
                               extra={"lines": lines})

    def _paint(self, layer, s):
        c = s.counts
        labels = ["W_Q", "W_K", "value-down", "value-up", "square value map",
                  "per head", "per block", "all layers"]
        values = np.array([c["query"], c["key"], c["value_down"], c["value_up"],
                           c["square_value"], c["per_head"], c["per_block"],
                           c["total"]], dtype=float)
        hi = 10.0 ** math.ceil(math.log10(max(values.max(), 10.0)) + 0.6)
        key = layer.bars.update(values, labels, xlim=(1.0, hi), fmt="{:,.0f}",
                                title="Attention parameters", highlight=7)
        layer.bars.ax.set_xlim(1.0, hi)
        for r in layer.bars.bars[0]:
            r.set_x(1.0)
            r.set_width(max(r.get_width() - 1.0, 0.0))
        return key

    def _summary(self):
        return "<parameter_calculator>\n" + "\n".join(getattr(self, "lines", []))


def parameter_calculator(d_model=12288, d_k=128, n_heads=96, n_layers=96):
    """Lesson 07: count the parameters of attention.

    Inputs ``.d_model``, ``.d_k``, ``.n_heads``, ``.n_layers``; the counts
    are in ``.counts`` (per query/key/value-down/value-up matrix, the square
    value map, per head, per block, total) and printed in ``.lines``. The
    defaults are GPT-3's: 1,572,864 per matrix, 150,994,944 for a square
    value map, about 6.3 million per head, 604 million per block, 58 billion
    in all 96 layers.
    """
    return _ParameterCalculator(d_model, d_k, n_heads, n_layers)


# --------------------------------------------------------------------------
# 08: cross-attention
# --------------------------------------------------------------------------
class _CrossExplorer(_Explorer):
    kind = "cross_explorer"
    figsize = (7.0, 5.6)

    def __init__(self, source, target):
        self.source = _sentence_box(source, "Source (English, keys):")
        self.source.add_class("attn-source")
        self.target = _text_box(target, "Target (French, queries):")
        self.target.add_class("attn-target")
        self.sentence = self.source
        super().__init__([self.source, self.target], [self.source, self.target])

    def _build(self, layer):
        layer.heat = _Heatmap(layer, [0.22, 0.25, 0.58, 0.63],
                              cbar_rect=[0.83, 0.25, 0.03, 0.63])

    def _compute(self):
        src = _read(self.source.value, what="source sentence")
        tgt = _read(self.target.value, what="target sentence")
        notes = [f"Source: {n}" for n in src.notes] + [f"Target: {n}"
                                                        for n in tgt.notes]
        if src.empty or tgt.empty:
            st = SimpleNamespace(empty=True, placeholder="Type both sentences above",
                                 tokens=tgt.tokens,
                                 weights=np.zeros((len(tgt.tokens),
                                                   len(src.tokens))),
                                 notes=notes,
                                 extra={"source_tokens": src.tokens,
                                        "target_tokens": tgt.tokens})
            return st
        head = _head("alignment_head")
        from helpers.attention import cross_attention

        _, A = cross_attention(tgt.E, src.E, head.W_Q, head.W_K, head.W_V)
        return SimpleNamespace(empty=False, tokens=tgt.tokens, labels=tgt.labels,
                               src_labels=src.labels, weights=A, notes=notes,
                               extra={"source_tokens": src.tokens,
                                      "target_tokens": tgt.tokens})

    def _paint(self, layer, s):
        n, m = s.weights.shape
        return layer.heat.update(
            s.weights, s.labels, s.src_labels,
            title=f"Cross-attention: {n} target queries x {m} source keys",
            xlabel="source word (key, value)", ylabel="target word (query)",
            **_WEIGHT_SCALE)

    def _summary(self):
        return (f"<cross_explorer: {len(getattr(self, 'target_tokens', []))} target x "
                f"{len(getattr(self, 'source_tokens', []))} source tokens>")


def cross_explorer(source=None, target=None):
    """Lesson 08: cross-attention between two sentences.

    ``.source`` (English: keys and values) and ``.target`` (French: the
    queries) are two text boxes; the hand-built alignment head draws a
    non-square grid. ``.weights`` is (n_target, n_source), rows = target
    queries; ``.tokens`` are the target tokens, ``.source_tokens`` the
    source ones. ``.sentence`` is the same box as ``.source``.
    """
    return _CrossExplorer(_sentence("translation_en") if source is None else source,
                          _sentence("translation_fr") if target is None else target)


# --------------------------------------------------------------------------
# 09: the trained model
# --------------------------------------------------------------------------
class _SenseExplorer(_Explorer):
    kind = "sense_explorer"
    figsize = (8.6, 5.6)

    def __init__(self, sentence, head):
        self.sentence = _sentence_box(sentence)
        n_heads = 1
        try:
            n_heads = int(_trained_model()["meta"]["n_heads"])
        except Exception:
            pass
        self.head = widgets.Dropdown(options=[(f"head {i}", i) for i in range(n_heads)],
                                     value=min(max(int(head), 0), n_heads - 1),
                                     description="Learned head:",
                                     style={"description_width": "initial"})
        controls = [self.sentence] + ([self.head] if n_heads > 1 else [])
        super().__init__(controls, [self.sentence, self.head])

    def _build(self, layer):
        layer.heat = _Heatmap(layer, [0.17, 0.25, 0.48, 0.63],
                              cbar_rect=[0.665, 0.25, 0.015, 0.63])
        layer.probs = _Bars(layer, [0.82, 0.5, 0.15, 0.3], rows=3,
                            xlabel="probability")

    def _compute(self):
        lex = _lexicon()
        text = "" if self.sentence.value is None else str(self.sentence.value)
        notes = []
        tokens = lex.tokenize(text) if text.strip() else []
        if not text.strip():
            notes.append("Type a sentence with 'bank' or 'mole' in the box.")
        elif not tokens:
            notes.append("No words in that sentence: type some words.")
        if len(tokens) > MAX_TOKENS:
            notes.append(f"Showing the first {MAX_TOKENS} of {len(tokens)} tokens.")
            tokens = tokens[:MAX_TOKENS]
        empty = SimpleNamespace(tokens=tokens, notes=notes)
        if not tokens:
            return _empty_state(empty)
        try:
            params = _trained_model()
        except FileNotFoundError:
            notes.append("The trained weights are missing: run "
                         "'python -m helpers.tinymodel' to make them.")
            return _empty_state(empty, placeholder="No trained weights")
        tm = importlib.import_module("helpers.tinymodel")
        pred = tm.predict_sense(params, " ".join(tokens))
        if pred.unknown:
            notes.append("Words the model has not seen (read as <unk>): "
                         f"{_list_words(list(pred.unknown))}.")
        labels, replaced = zip(*[_display_label(t) for t in pred.tokens])
        if any(replaced):
            notes.append("Characters this font cannot draw are shown as '?'.")
        h = int(self.head.value or 0)
        W = np.asarray(pred.weights)
        h = min(h, W.shape[0] - 1)
        sense = None
        if pred.target_index is None:
            notes.append("No 'bank' or 'mole' here: nothing to decide, but the "
                         "learned pattern is still shown.")
        else:
            sense = pred.sense_labels[int(np.argmax(pred.probs))]
        return SimpleNamespace(empty=False, tokens=list(pred.tokens),
                               labels=list(labels), weights=W[h], head=h,
                               pred=pred, sense=sense, notes=notes,
                               extra={"prediction": pred, "sense": sense,
                                      "probs": np.asarray(pred.probs)})

    def _paint(self, layer, s):
        pred, t = s.pred, s.pred.target_index
        colours = [_BAR_HIGHLIGHT if i == t else "black" for i in range(len(s.labels))]
        k1 = layer.heat.update(s.weights, s.labels, s.labels, xlabel="key",
                               ylabel="query", row_colours=colours,
                               title=f"Learned attention (head {s.head})",
                               **_WEIGHT_SCALE)
        if t is None:
            layer.probs.set_visible(False)
            return k1 + ("no target",)
        p = float(np.max(pred.probs))
        k2 = layer.probs.update(pred.probs, list(pred.sense_labels), xlim=(0.0, 1.0),
                                highlight=int(np.argmax(pred.probs)),
                                title=f"'{pred.target_word}': {s.sense} ({p:.0%})")
        return k1 + k2


def sense_explorer(sentence=None, head=0):
    """Lesson 09: what the trained tiny model says about "bank" or "mole".

    Type a sentence; the model from ``helpers.tinymodel`` (shipped weights)
    predicts the sense of the first "bank"/"mole" (``.sense``, ``.probs``)
    and the right panel shows the probabilities; the heatmap is the learned
    attention pattern of head ``.head`` (the ambiguous word's row in
    orange). ``.weights`` is that (n, n) pattern.
    """
    return _SenseExplorer(_sentence("bank_river") if sentence is None else sentence,
                          head)
