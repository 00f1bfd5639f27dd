"""Lesson 04: the attention pattern with a temperature and both drawing
conventions."""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np

from helpers.attention import softmax
from helpers.figures import alt as alt_text
from helpers.widgets.kit import (SentenceExplorer, State, empty_state, project,
                                 read_sentence, toy_head, toy_sentence)
from helpers.widgets.policy import WEIGHT_SCALE
from helpers.widgets.panels import Heatmap


ROWS, VIDEO = "rows = queries", "video: keys as rows"


class _PatternExplorer(SentenceExplorer):
    kind = "pattern_explorer"
    guess_first = head_view = True  # Guess first (guess.py), Lines (lines.py)
    figsize = (7.0, 5.8)

    #: scores: the scaled scores, (n, n); shown: the drawn array (video:
    #: transposed)
    shows = {"scores": None, "shown": None}

    def __init__(self, sentence, temperature, scaled, convention):
        self.temperature = widgets.FloatSlider(
            value=temperature, min=0.1, max=5.0, step=0.05, description="Temperature",
            continuous_update=True, style={"description_width": "initial"})
        self.scaling = widgets.Checkbox(value=scaled, description="divide by sqrt(d_k)",
                                        indent=False)
        self.convention = widgets.ToggleButtons(options=[ROWS, VIDEO],
                                                value=convention)
        super().__init__(sentence, below=[
            widgets.HBox([self.temperature, self.scaling]), self.convention])

    def _build(self, art):
        art.heat = Heatmap(art, [0.2, 0.25, 0.6, 0.63],
                           cbar_rect=[0.83, 0.25, 0.03, 0.63])

    def _compute(self):
        r = read_sentence(self.sentence.value)
        if r.empty:
            return empty_state(r)
        head = toy_head("adjective_head")
        Q, K, _ = project(head, r.E)
        d_k = Q.shape[1]
        T = float(self.temperature.value)
        notes = list(r.notes)
        if not math.isfinite(T) or T <= 0:
            notes.append("The temperature must be positive: using 1.")
            T = 1.0
        scale = 1.0 / np.sqrt(d_k) if self.scaling.value else 1.0
        scores = (Q @ K.T) * scale
        A = softmax(scores / T)
        video = self.convention.value == VIDEO
        return State(tokens=r.tokens, labels=r.labels, weights=A, notes=notes,
                     scores=scores, shown=A.T if video else A, _video=video, _T=T,
                     _scaled=bool(self.scaling.value))

    def _paint(self, art, s):
        how = "scaled by 1/sqrt(d_k)" if s._scaled else "not scaled"
        if s._video:
            return art.heat.update(
                s.shown, s.labels, s.labels,
                title=f"Video convention: keys as rows, softmax down each column\n"
                      f"T = {s._T:.2f}, {how}",
                xlabel="query (each column sums to 1)", ylabel="key",
                **WEIGHT_SCALE)
        return art.heat.update(
            s.shown, s.labels, s.labels,
            title=f"Rows = queries, softmax along each row\nT = {s._T:.2f}, {how}",
            xlabel="key", ylabel="query (each row sums to 1)", **WEIGHT_SCALE)

    def _picture_name(self):
        return "Attention pattern with a temperature"

    def _describe(self, s):
        if s.empty:
            return super()._describe(s)
        how = "scores divided by √d_k" if s._scaled else "scores not scaled"
        top = float(np.mean(np.max(s.weights, axis=1)))
        n = len(s.tokens)
        sharp = ("sharp: most rows put nearly all weight on one key" if top > 0.8
                 else "flat: weight spread over many keys" if top < 1.5 / max(n, 1)
                 + 0.1 else "in between")
        drawn = ("drawn video style: keys are rows, each column is a query and "
                 "sums to 1" if s._video else
                 "rows = queries, each row sums to 1")
        return (f"{self._picture_name()}: T = {alt_text.number(round(s._T, 2))}, "
                f"{how}; {drawn}. The largest weight of a query is "
                f"{alt_text.number(top)} on average ({sharp}; lower T sharpens, "
                "higher T flattens). " + alt_text.grid(s.weights, s.tokens, s.tokens))


def pattern_explorer(sentence=None, temperature=1.0, scaled=True, convention=ROWS):
    """Lesson 04: the attention pattern with a temperature and both conventions.

    ``A = softmax(Q K^T * s / T)`` for the adjective head, with ``s`` =
    ``1/sqrt(d_k)`` when ``.scaling`` is ticked and ``T`` = ``.temperature``.
    ``.convention`` switches the drawing between rows = queries and the
    video style (keys as rows, softmax down each column). ``.weights`` is
    always (n, n) with rows = queries; ``.shown`` is what is drawn.
    """
    return _PatternExplorer(toy_sentence("creature") if sentence is None else sentence,
                            temperature, scaled, convention)
