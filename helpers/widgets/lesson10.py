"""Lesson 10: the real model's attention on any sentence the learner types.

:func:`real_attention_explorer` runs all-MiniLM-L6-v2 (:mod:`helpers.
pretrained`) on the sentence in the box and shows one head of one layer, or
all 12 heads of a layer as a grid: rows are queries, columns are keys, the
labels are the model's word pieces (``[CLS]`` first, ``[SEP]`` last).

The model is loaded once per Python session (:func:`_shared_model`) and its
runs are kept for the last few sentences, so that changing the layer or the
head only redraws. Without a model (no copy and no network, or the packages
missing) the explorer shows the one-sentence reason instead of a picture.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import ipywidgets as widgets
import numpy as np

from helpers.figures import alt as alt_text
from helpers.widgets.kit import (SentenceExplorer, State, fit_dropdown, load_or_explain,
                                 paint_head_grid, token_labels)
from helpers.widgets.engine import label_size
from helpers.widgets.policy import WEIGHT_SCALE
from helpers.widgets.panels import FastHeatmap

#: At most this many word pieces are drawn ([SEP] included); a longer text
#: keeps its first MAX_PIECES - 1 pieces and its [SEP], and the explorer
#: says how many were cut.
MAX_PIECES = 32
ALL_HEADS = "all 12 heads"
_DEFAULT_SENTENCE = "The old fisherman pulled his boat onto the river bank at dawn."
_RUNS_KEPT = 16  # runs remembered (sentence -> Run)

_model = None  # the shared model, loaded on first use


def _shared_model():
    """``helpers.models.pretrained.load()``, once per session: ``(model, "")``, or
    ``(None, one sentence saying why not)``. A failure is not remembered, so
    the next explorer tries again (e.g. after a download)."""
    global _model
    if _model is not None:
        return _model, ""

    def load():
        from helpers.models import pretrained

        return pretrained.load()

    _model, why = load_or_explain(
        load, "The real model", "safetensors tokenizers huggingface_hub")
    return _model, why


#: The picture: 960 x 512 pixels at the normal resolution, so that the
#: explorer with its controls fits a laptop's notebook area (helpers.figures.style).
FIGSIZE = (12.0, 6.4)
#: The all-heads grid: 2 rows of 6 heads (wide rather than tall: a laptop's
#: screen is).
GRID = (2, 6)


def _grid_rects(rows=GRID[0], cols=GRID[1]):
    """Figure rectangles of the 12 small panels (2 rows x 6 columns), laid
    out in pixels of the normal resolution: row labels on the left, the
    colour bar on the right, key labels below the last row."""
    W, H = FIGSIZE[0] * 80, FIGSIZE[1] * 80
    left, right, gap = 92, 64, 16  # pixels
    top, bottom, vgap = 50, 92, 30
    width = (W - left - right - (cols - 1) * gap) / cols
    height = (H - top - bottom - (rows - 1) * vgap) / rows
    return [[(left + c * (width + gap)) / W,
             (bottom + (rows - 1 - r) * (height + vgap)) / H,
             width / W, height / H] for r in range(rows) for c in range(cols)]


def _thin(labels, pitch_px, size_pt, dpi):
    """Keep every k-th label (and the last, ``[SEP]``) so that labels
    ``pitch_px`` apart do not overlap. Returns (labels, k)."""
    px = size_pt * dpi / 72.0
    step = max(1, math.ceil(px / max(pitch_px, 1e-9) - 0.05))
    keep = list(range(0, len(labels), step))
    if keep and keep[-1] != len(labels) - 1:
        keep[-1] = len(labels) - 1
    keep = set(keep)
    return [lab if i in keep else "" for i, lab in enumerate(labels)], step


class _RealAttentionExplorer(SentenceExplorer):
    kind = "real_attention_explorer"
    figsize = FIGSIZE
    token_noun = "word pieces"

    #: all_weights: the layer's 12 patterns, (12, n, n); run: the model's
    #: Run for the (capped) sentence; n_cut: word pieces cut from a long text
    shows = {"all_weights": None, "run": None, "n_cut": 0}

    def __init__(self, sentence, layer, head):
        self.model, self.unavailable = _shared_model()
        n_layers = self.model.n_layers if self.model is not None else 6
        n_heads = self.model.n_heads if self.model is not None else 12
        self._runs = OrderedDict()
        self.layer = fit_dropdown(
            [(f"layer {i}", i) for i in range(n_layers)], "Layer:",
            value=min(max(int(layer), 0), n_layers - 1))
        head_options = [(ALL_HEADS, ALL_HEADS)] + [(f"head {i}", i)
                                                   for i in range(n_heads)]
        if head != ALL_HEADS:
            head = min(max(int(head), 0), n_heads - 1)
        self.head = fit_dropdown(head_options, "Head:", value=head)
        self._n_heads = n_heads
        super().__init__(sentence, below=[widgets.HBox([self.layer, self.head])])

    # -- drawing ------------------------------------------------------------
    def _build(self, art):
        art.single = FastHeatmap(art, [0.3, 0.18, 0.42, 0.74],
                             cbar_rect=[0.74, 0.18, 0.015, 0.74],
                             rows=MAX_PIECES, cols=MAX_PIECES)
        rects = _grid_rects()
        rows, cols = GRID
        top_right, bottom_right = rects[cols - 1], rects[-1]
        cbar = [top_right[0] + top_right[2] + 0.012, bottom_right[1], 0.012,
                top_right[1] + top_right[3] - bottom_right[1]]
        art.grid = []
        for k, rect in enumerate(rects):
            first_col, last_row = k % cols == 0, k >= (rows - 1) * cols
            art.grid.append(FastHeatmap(
                art, rect, cbar_rect=cbar if k == cols - 1 else None,
                rows=MAX_PIECES if first_col else 0,
                cols=MAX_PIECES if last_row else 0,
                title_size=10, small=True, room=rect[0] if first_col else 0.035))
        art.suptitle = art.text(0.5, 1 - 16 / (FIGSIZE[1] * 80), "", ha="center",
                                va="center",
                                fontsize=13)

    def _run(self, text):
        run = self._runs.get(text)
        if run is None:
            run = self.model.run(text, max_tokens=MAX_PIECES)
            self._runs[text] = run
            while len(self._runs) > _RUNS_KEPT:
                self._runs.popitem(last=False)
        else:
            self._runs.move_to_end(text)
        return run

    def _compute(self):
        choice = self.head.value
        grid_shape = (self._n_heads, 0, 0) if choice == ALL_HEADS else (0, 0)
        text = "" if self.sentence.value is None else str(self.sentence.value)
        if self.model is None or not text.strip():
            note = self.unavailable or "Type a sentence in the box."
            return State(
                empty=True, weights=np.zeros(grid_shape), notes=[note],
                placeholder=("The real model is not available" if self.model is None
                             else "Type a sentence above"))
        run = self._run(text)
        layer = int(self.layer.value)
        A = run.attention[layer]
        weights = A if choice == ALL_HEADS else A[int(choice)]
        notes = []
        n = len(run.tokens)
        if run.n_cut:
            notes.append(f"Long text: showing its first {n - 1} word pieces and "
                         f"[SEP]; {run.n_cut} of its {n + run.n_cut} word pieces "
                         "were cut.")
        if n == 2:
            notes.append("No word pieces in that text (only spaces or invisible "
                         "characters): [CLS] and [SEP] are shown alone.")
        unknown = run.tokens.count("[UNK]")
        if unknown:
            notes.append(f"{unknown} word piece{'s' if unknown > 1 else ''} "
                         f"{'are' if unknown > 1 else 'is'} [UNK]: the model's "
                         "table has no piece for some characters (emoji, many "
                         "symbols and scripts).")
        labels = token_labels(run.tokens, notes)
        return State(tokens=run.tokens, labels=labels, weights=weights, notes=notes,
                     all_weights=A, run=run, n_cut=int(run.n_cut), _layer=layer,
                     _choice=choice)

    def _paint(self, art, s):
        single = s._choice != ALL_HEADS
        art.single.set_visible(single)
        for g in art.grid:
            g.set_visible(not single)
        if single:
            art.suptitle.set_visible(False)
            return ("single",) + art.single.update(
                s.weights, s.labels, s.labels, xlabel="key", ylabel="query",
                title=f"all-MiniLM-L6-v2, layer {s._layer}, head {s._choice}",
                **WEIGHT_SCALE)
        art.suptitle.set_visible(True)
        art.suptitle.set_text(f"all-MiniLM-L6-v2, layer {s._layer}: all "
                              f"{self._n_heads} heads (rows = queries, "
                              "columns = keys)")
        n = len(s.labels)
        dpi = art.fig.dpi
        pitch = _grid_rects()[0][3] * art.fig.bbox.height / max(n, 1)
        shown, _ = _thin(s.labels, pitch, label_size(n), dpi)
        paint_head_grid(art.grid, s.all_weights, shown, GRID, **WEIGHT_SCALE)
        return ("grid",)

    def _paint_all(self, art, state):
        if state.empty:
            art.suptitle.set_visible(False)
        return super()._paint_all(art, state)

    def _picture_name(self):
        return "A real model's attention (all-MiniLM-L6-v2)"

    def _describe(self, s):
        if self.model is None:
            return (f"{self._picture_name()}: no picture, the model is not on this "
                    "computer. To see it, download the model once (lesson 10's "
                    "first cells do it, about 90 MB) and run this cell again.")
        if s.empty:
            return super()._describe(s)
        t, layer = s.tokens, s._layer
        if s._choice != ALL_HEADS:
            return (f"{self._picture_name()}, layer {layer}, head {s._choice}, "
                    f"{len(t)} word pieces: "
                    + alt_text.habit(s.weights, t)[1] + ". "
                    + alt_text.grid(s.weights, t, t))
        return (f"{self._picture_name()}, layer {layer}: all {self._n_heads} heads, "
                f"{len(t)} word pieces. "
                + alt_text.heads(s.all_weights,
                                 [f"head {k}" for k in range(len(s.all_weights))],
                                 t, t, k=2))


def real_attention_explorer(sentence=None, layer=0, head=ALL_HEADS):
    """Lesson 10: a real model's attention on any sentence.

    Type a sentence; ``.layer`` (0-5) and ``.head`` (0-11, or
    ``"all 12 heads"`` for a grid of the layer) pick what is shown. The
    text is cut to ``MAX_PIECES`` word pieces (the message says how many
    were cut). ``.tokens`` are the word pieces, ``.weights`` is
    ``run.attention[layer, head]`` of ``model.run(sentence)``, shape (n, n),
    or the whole layer (12, n, n) for the grid; ``.all_weights`` is always
    the layer's (12, n, n), ``.run`` the model's run, ``.message`` the notes.
    """
    return _RealAttentionExplorer(_DEFAULT_SENTENCE if sentence is None else sentence,
                                  layer, head)
