"""The drawing engine of the explorers: fast, repeatable pictures.

A figure is built once; an update changes the data of its artists, restores
a cached background (axes frames, colour bar) and draws only what changed.
Labels are rasterised with a cached font renderer and the PNG is written by
a small encoder whose output depends only on the pixels. No text is
smaller than 10 pixels (sizes from ``helpers.figures.style``; projection mode draws
at a higher resolution). Pictures update in
6-11 ms instead of the 90-250 ms of a new pyplot figure (lesson 04's
explorer, measured by ``tests/benchmarks/bench_widgets.py``).

The small public API, used by the panels and tested directly:

* :class:`FigureArtists`: the artists of one figure that change per update;
* :func:`render_png`: draw a :class:`FigureArtists` into PNG bytes, white
  margins cut to MARGIN_PX (:func:`content_box`);
* :func:`png_bytes`: encode an (h, w, 4) uint8 array as PNG;
* :func:`text_bitmap`, :func:`place_text`: a text's alpha mask and position;
* :func:`display_label`, :func:`fit_label`, :func:`label_width`,
  :func:`label_size`: drawable, fitting token labels;
* :func:`nice_limit`: a round axis limit (numbers are written with
  ``plots.number_text``, labels cut with ``plots.short_label``).

What the explorers promise (how many tokens, the debounce, the colours) is
in ``policy.py``; what a displayed explorer sends (``mime_bundle``) in
``output.py``.
"""

from __future__ import annotations

import math
import struct
import zlib
from functools import lru_cache

import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.font_manager import FontProperties, findfont, get_font

from helpers.figures import style
from helpers.figures.common import short_label

#: Resolution of the pictures (pixels per inch) in normal mode; projection
#: mode (``helpers.figures.style.projector()``) draws them at a higher one.
DPI = style.NORMAL.explorer_dpi
#: Token labels longer than this are cut and end in an ellipsis.
LABEL_CHARS = 14
#: Size of the feature-name labels (lessons 01, 02), in points of these
#: DPI-80 pictures: 10 pt here is 11 pixels, the size of the 8 pt labels of
#: helpers.figures.plots at the notebooks' 100 dpi (readable on a projector).
FEATURE_LABEL_SIZE = style.LABEL_PT
#: Numbers on bars and in heatmap cells; axis titles, ticks and legends
#: (points; 9 pt is 10 px at DPI).
NUMBER_SIZE = style.NUMBER_PT
AXIS_SIZE = style.AXIS_PT
#: Empty picture margins wider than this (pixels at DPI) are cut off.
MARGIN_PX = 6

@lru_cache(maxsize=4096)
def has_glyph(ch: str) -> bool:
    return _default_font().get_char_index(ord(ch)) != 0


@lru_cache(maxsize=1)
def _default_font():
    return get_font(findfont(FontProperties()))


def display_label(token: str, limit: int = LABEL_CHARS) -> tuple[str, bool]:
    """A label that can be drawn: no control characters, characters the font
    lacks shown as ``?``, cut to ``limit`` characters. Returns (label,
    whether a character had to be replaced)."""
    out, replaced = [], False
    for ch in str(token):
        if ch.isspace() or ord(ch) < 32:
            out.append(" ")
        elif has_glyph(ch):
            out.append(ch)
        else:
            out.append("?")
            replaced = True
    return short_label("".join(out), limit), replaced


def nice_limit(x: float) -> float:
    """The smallest of 1, 2, 5 x 10^k that is >= |x| (1.0 for 0 or NaN)."""
    x = abs(float(x))
    if not math.isfinite(x) or x <= 1e-12:
        return 1.0
    base = 10.0 ** math.floor(math.log10(x))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * base >= x * (1 - 1e-9):
            return m * base
    return 10.0 * base  # pragma: no cover


#: Token labels (tick labels of the grids, bar labels): FEATURE_LABEL_SIZE
#: (11 px) up to this many tokens; longer sentences shrink them, but never
#: below MIN_LABEL_PX pixels (no text of a picture is smaller).
FULL_SIZE_TOKENS = 16
MIN_LABEL_PX = style.MIN_LABEL_PX


def label_size(n: int) -> float:
    """Font size (points at DPI) of the labels of ``n`` tokens."""
    if n <= FULL_SIZE_TOKENS:
        return FEATURE_LABEL_SIZE
    return style.MIN_LABEL_PT  # 10 px


@lru_cache(maxsize=8192)
def fit_label(label: str, px: int, room: float) -> str:
    """``label`` cut (ending in an ellipsis) to at most ``room`` pixels wide
    at ``px`` pixels, so that no label runs off the picture."""
    if label_width(label, px) <= room:
        return label
    for k in range(len(label) - 1, 0, -1):
        cut = label[:k].rstrip() + "\u2026"
        if label_width(cut, px) <= room:
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
def text_bitmap(text: str, path: str, px: int, angle: float, align: str = "left"):
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


def set_text(t, text=None, *, visible=True, size=None, colour=None):
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


def labels_width(labels, size, dpi) -> float:
    """Width in pixels of the widest label at ``size`` points."""
    if not labels:
        return 0.0
    px = max(int(round(size * dpi / 72.0)), 1)
    return max(label_width(label, px) for label in labels)


@lru_cache(maxsize=8192)
def label_width(label: str, px: int) -> float:
    font = _pil_font(findfont(FontProperties()), px)
    return max(font.getlength(line) for line in label.split("\n"))


class FigureArtists:
    """The artists of one matplotlib figure that change from one picture to
    the next (``dynamic``, drawn over the cached background) and, among them,
    the texts drawn from cached bitmaps (``fast``). Panels keep their own
    artists as attributes (``art.heat = Heatmap(art, ...)``)."""

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


def place_text(t, dpi, x, y, height):
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
    mask, ascent = text_bitmap(s, path, px, float(t.get_rotation()), ha)
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
    placed = place_text(t, dpi, x, y, H)
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


def content_box(rgba, pad: int):
    """(top, bottom, left, right) slice bounds of an (h, w, 4) uint8 picture
    without its white margins, keeping ``pad`` pixels of them (the whole
    picture when it is blank)."""
    h, w = rgba.shape[:2]
    flat = np.ascontiguousarray(rgba).view(np.uint32)[:, :, 0]
    ink = flat != np.uint32(0xFFFFFFFF)
    rows, cols = np.flatnonzero(ink.any(axis=1)), np.flatnonzero(ink.any(axis=0))
    if not rows.size:
        return 0, h, 0, w
    return (max(rows[0] - pad, 0), min(rows[-1] + 1 + pad, h),
            max(cols[0] - pad, 0), min(cols[-1] + 1 + pad, w))


def render_png(art, key, cache, canvas, *, trim=True):
    """Draw ``art`` and return PNG bytes. ``key`` names the static content
    (axes visible, axis limits with ticks, colour-bar range): backgrounds are
    cached per key. With ``trim``, white margins wider than MARGIN_PX (at
    DPI; more at a higher resolution) are cut off."""
    fig = art.fig
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
    for a in art.dynamic:
        if not a.get_visible() or (a.axes is not None and not a.axes.get_visible()):
            continue
        if a in art.fast:
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
    height = arr.shape[0]
    top = left = 0
    if trim:
        pad = int(round(MARGIN_PX * fig.dpi / DPI))
        top, bottom, left, right = content_box(arr, pad)
        arr = arr[top:bottom, left:right]
    # issue 51 hook: where the PNG sits in the canvas (pointer.panel_map)
    art.trim = (top, left, height, (arr.shape[1], arr.shape[0]))
    return png_bytes(arr)


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(tag + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)


def png_bytes(rgba) -> bytes:
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

