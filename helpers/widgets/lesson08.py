"""Lesson 08: cross-attention between an English and a French sentence
(:func:`cross_explorer`), and between a caption and a picture
(:func:`image_explorer`)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.transforms import offset_copy

from helpers.world import images
from helpers.attention import cross_attention
from helpers.figures.imageplots import LIGHT, MAP_MAX, brightness, caption_words
from helpers.world.tokens import tokenize
from helpers.widgets.kit import (Explorer, SentenceExplorer, State, display_label,
                                 list_words, read_sentence, sentence_box, text_box,
                                 token_labels, toy_head, toy_sentence)
from helpers.widgets.engine import set_text
from helpers.widgets.policy import MAX_TOY_TOKENS, WEIGHT_SCALE
from helpers.widgets.panels import Heatmap, PixelImage


class _CrossExplorer(Explorer):
    kind = "cross_explorer"
    figsize = (7.0, 5.6)

    #: source_tokens: the source (key) tokens; target_tokens: the target
    #: (query) tokens (also ``.tokens``)
    shows = {"source_tokens": (), "target_tokens": ()}

    def __init__(self, source, target):
        self.source = sentence_box(source, "Source (English, keys):")
        self.source.add_class("attn-source")
        self.target = text_box(target, "Target (French, queries):")
        self.target.add_class("attn-target")
        self.sentence = self.source
        super().__init__([self.source, self.target])

    def _build(self, art):
        art.heat = Heatmap(art, [0.22, 0.25, 0.58, 0.63],
                           cbar_rect=[0.83, 0.25, 0.03, 0.63])

    def _compute(self):
        src = read_sentence(self.source.value, what="source sentence")
        tgt = read_sentence(self.target.value, what="target sentence")
        notes = [f"Source: {n}" for n in src.notes] + [f"Target: {n}"
                                                       for n in tgt.notes]
        if src.empty or tgt.empty:
            return State(empty=True, placeholder="Type both sentences above",
                         tokens=tgt.tokens, notes=notes,
                         weights=np.zeros((len(tgt.tokens), len(src.tokens))),
                         source_tokens=src.tokens, target_tokens=tgt.tokens)
        head = toy_head("alignment_head")

        _, A = cross_attention(tgt.E, src.E, head.W_Q, head.W_K, head.W_V)
        return State(tokens=tgt.tokens, labels=tgt.labels, weights=A, notes=notes,
                     source_tokens=src.tokens, target_tokens=tgt.tokens,
                     _src_labels=src.labels)

    def _paint(self, art, s):
        n, m = s.weights.shape
        return art.heat.update(s.weights, s.labels, s._src_labels,
            title=f"Cross-attention: {n} target queries x {m} source keys",
            xlabel="source word (key, value)", ylabel="target word (query)",
            **WEIGHT_SCALE)

    def _picture_name(self):
        return "Cross-attention, French queries to English keys"

    def key_tokens(self):  # for save: the keys are the English words
        return list(self.source_tokens)

    def _summary(self):
        return (f"<cross_explorer: {len(self.target_tokens)} target x "
                f"{len(self.source_tokens)} source tokens>")


def cross_explorer(source=None, target=None):
    """Lesson 08: cross-attention between two sentences.

    ``.source`` (English: keys and values) and ``.target`` (French: the
    queries) are two text boxes; the hand-built alignment head draws a
    non-square grid. ``.weights`` is (n_target, n_source), rows = target
    queries; ``.tokens`` are the target tokens, ``.source_tokens`` the
    source ones. ``.sentence`` is the same box as ``.source``.
    """
    return _CrossExplorer(toy_sentence("translation_en") if source is None else source,
                          toy_sentence("translation_fr") if target is None else target)


# --------------------------------------------------------------------------
# a caption on a picture: words as queries, patches as keys and values
# --------------------------------------------------------------------------
#: At most this many words get a picture of their own (beside the picture).
MAX_WORDS = 7
_PANEL_IN, _GAP_IN, _LEFT_IN = 2.4, 0.3, 0.15  # 2.4 in: 192 px at 80 dpi (2x)
_TOP_IN, _ROW_GAP_IN, _NOTE_IN = 0.4, 0.45, 0.45
_DEFAULT_CAPTION = "a red circle on the left"


class _PictureMap(PixelImage):
    """The picture lit by one word's map (``imageplots.brightness``: every
    pixel times its patch's brightness), written straight into the Agg
    buffer like :class:`PixelImage`, with the patch grid drawn in;
    ``set_map(None)`` shows the picture as it is."""

    def __init__(self, ax, pixels):
        super().__init__(ax)
        self._picture = np.asarray(pixels, dtype=float)
        self._light = None
        self._geometry = {}

    def set_map(self, values):
        self._light = None if values is None else (  # in 256ths
            np.round(brightness(values) * 256).astype(np.uint16).ravel())
        self.stale = True

    def _at(self, bbox, height):
        """The panel's pixels: where, the picture (with its grid) at this
        size, and each pixel's patch; cached per panel size."""
        n, m = self._picture.shape[:2]
        y0, y1, x0, x1, rows, cols = self._pixels(bbox, height, n, m)
        key = (y0, y1, x0, x1)
        if key not in self._geometry:
            img = self._picture.take(rows, axis=0).take(cols, axis=1)
            img[np.flatnonzero(np.diff(rows // images.PATCH)) + 1] = _GRID_GREY
            img[:, np.flatnonzero(np.diff(cols // images.PATCH)) + 1] = _GRID_GREY
            img = img * 255
            patch = ((rows // images.PATCH)[:, None] * images.GRID
                     + (cols // images.PATCH)[None, :])
            cut = (slice(max(-y0, 0), None), slice(max(-x0, 0), None))
            plain = np.round(img[cut]).astype(np.uint8)
            self._geometry[key] = (plain.astype(np.uint16), plain, patch[cut])
        return key, self._geometry[key]

    def draw(self, renderer):
        if not self.get_visible() or not self._ax.get_visible():
            return
        arr = np.asarray(renderer.buffer_rgba())
        (y0, y1, x0, x1), (img, plain, patch) = self._at(self._ax.bbox, arr.shape[0])
        if self._light is None:
            out = plain
        else:
            out = ((img * self._light[patch][:, :, None]) >> 8).astype(np.uint8)
        arr[max(y0, 0):y1, max(x0, 0):x1, :3] = out
        self.stale = False


_GRID_GREY = 154.0 / 255.0  # the patch grid's lines


class _ImageExplorer(SentenceExplorer):
    kind = "image_explorer"
    figsize = (_LEFT_IN + 4 * _PANEL_IN + 3 * _GAP_IN + 1.1,
               _TOP_IN + 2 * _PANEL_IN + _ROW_GAP_IN + _NOTE_IN)

    sentence_label = "Caption:"
    #: shown: the rows of .weights that have a picture of their own; silent:
    #: the words that ask for nothing (their row is 1/64 everywhere)
    shows = {"shown": (), "silent": ()}

    def __init__(self, caption, seed):
        self.picture_world = images.make_picture(seed)
        self.features = images.patch_features(self.picture_world)  # F: (64, 10)
        self.head = images.picture_head()
        super().__init__(caption)

    @property
    def caption(self):
        """The caption box (the same widget as ``.sentence``)."""
        return self.sentence

    def _rect(self, k):
        """Figure rectangle of panel k (0: the picture; 4 to a row)."""
        W, H = self.figsize
        r, c = divmod(k, 4)
        x = _LEFT_IN + c * (_PANEL_IN + _GAP_IN)
        y = H - _TOP_IN - _PANEL_IN - r * (_PANEL_IN + _ROW_GAP_IN)
        return [x / W, y / H, _PANEL_IN / W, _PANEL_IN / H]

    def _build(self, art):
        fig, art.panels = art.fig, []
        for k in range(MAX_WORDS + 1):
            ax = fig.add_axes(self._rect(k))
            ax.set_xticks([])
            ax.set_yticks([])
            image = art.add(_PictureMap(ax, self.picture_world.pixels))
            ax.add_artist(image)
            title = art.text(0.5, 1.0, ax=ax, ha="center", va="bottom", fontsize=11,
                             transform=offset_copy(ax.transAxes, fig=fig, y=4,
                                                   units="points"))
            art.panels.append(SimpleNamespace(ax=ax, image=image, title=title))
        art.cax = fig.add_axes([0, 0, 0.01, 0.1])
        bar = fig.colorbar(ScalarMappable(Normalize(0, MAP_MAX), LIGHT), cax=art.cax)
        bar.set_label("attention weight (brightness)")
        art.note = art.text(_LEFT_IN / self.figsize[0], 0.0, "", ha="left",
                            va="top", fontsize=10, color="#444444")

    def _compute(self):
        text = "" if self.sentence.value is None else str(self.sentence.value)
        tokens = tokenize(text) if text.strip() else []
        notes = []
        if not text.strip():
            notes.append("Type a caption in the box.")
        elif not tokens:
            notes.append("No words in that caption (punctuation is not a word): "
                         "type some words.")
        if len(tokens) > MAX_TOY_TOKENS:
            notes.append(f"Showing the first {MAX_TOY_TOKENS} of {len(tokens)} words.")
            tokens = tokens[:MAX_TOY_TOKENS]
        cap = images.embed_caption(tokens)
        symbols = [w for w in cap.outside if not any(ch.isalpha() for ch in w)]
        words = [w for w in cap.outside if w not in symbols]
        if words:
            notes.append("Not in the caption vocabulary, so they ask for nothing: "
                         f"{list_words(words)}. Try red, green, blue, circle, "
                         "square, triangle, left, right, top or bottom.")
        if symbols:
            notes.append(f"Not words (no letters), so they ask for nothing: "
                         f"{list_words(symbols)}.")
        labels = token_labels(tokens, notes)
        A = np.zeros((0, images.N_PATCHES))
        if tokens:
            _, A = cross_attention(cap.E, self.features, self.head.W_Q,
                                   self.head.W_K, self.head.W_V)
        first = [tokens.index(w) for w in dict.fromkeys(tokens)]  # each word once
        asking = [i for i in first if cap.asks[i]]
        shown = asking or first[:1]  # no word asks: one flat picture shows it
        if len(shown) > MAX_WORDS:
            notes.append(f"Pictures for the first {MAX_WORDS} of the {len(shown)} "
                         "different words.")
            shown = shown[:MAX_WORDS]
        silent = [tokens[i] for i in first if not cap.asks[i]]
        return State(tokens=tokens, labels=labels, weights=A, notes=notes,
                     shown=shown, silent=silent)

    def _paint(self, art, s):
        k = len(s.shown) + 1
        for j, panel in enumerate(art.panels):
            on = j < k
            panel.ax.set_visible(on)
            if not on:
                set_text(panel.title, visible=False)
                continue
            if j == 0:
                panel.image.set_map(None)
                set_text(panel.title, "the picture")
                continue
            i = s.shown[j - 1]
            panel.image.set_map(grid := images.patch_grid(s.weights[i]))
            panel.shown = dict(data=grid, rows=[], cols=[], xlabel="patch column",
                               ylabel="patch row", title=f"'{s.labels[i]}'")  # issue 51
            set_text(panel.title, f"'{s.labels[i]}'")
        cols, rows = min(k, 4), -(-k // 4)  # the colour bar follows the panels
        x, _, w, _ = self._rect(cols - 1)
        bottom = self._rect(4 * (rows - 1))[1]
        top = self._rect(0)[1] + self._rect(0)[3]
        art.cax.set_position([x + w + 0.12 / self.figsize[0], bottom,
                              0.16 / self.figsize[0], top - bottom])
        set_text(art.note, self._note(s))
        art.note.set_y(bottom - 0.12 / self.figsize[1])
        return ("panels", k)

    @staticmethod
    def _note(s):
        if not s.tokens:
            return "Type a caption above: each word gets a picture of where it looks."
        if not s.silent:
            return ""
        words = ", ".join(display_label(w)[0] for w in s.silent[:8])
        more = f" and {len(s.silent) - 8} more" if len(s.silent) > 8 else ""
        return (f"Ask for nothing, so they look at every patch equally "
                f"(1/{images.N_PATCHES} each): {words}{more}.")

    def _picture_name(self):
        return "Caption words looking at the picture"

    def _describe(self, s):
        return caption_words(s.tokens, s.weights, s.shown, s.silent)

    def _summary(self):
        return (f"<image_explorer: {len(self.tokens)} caption words x "
                f"{images.N_PATCHES} patches>")


def image_explorer(caption=None, seed=8):
    """Lesson 08: caption words look at a picture (cross-attention).

    Type a caption in ``.caption`` (also ``.sentence``): every word is a
    query, the 64 patches of the toy picture (``helpers.world.images``, made from
    ``seed``) are the keys and values. Each word that asks for something
    gets a picture of where it looks (at most ``MAX_WORDS``); words that ask
    for nothing are named under the pictures. ``.weights`` is ``A`` of
    shape (n_words, 64), rows = caption words (queries), columns = patches
    (keys); ``.tokens`` are the caption words, ``.shown`` the rows drawn.
    """
    return _ImageExplorer(_DEFAULT_CAPTION if caption is None else caption, seed)
