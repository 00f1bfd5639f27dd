"""Lesson 06: the causal mask, step by step."""

from __future__ import annotations

import ipywidgets as widgets
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.patches import Rectangle

from helpers.world import lexicon
from helpers.attention import causal_mask, softmax
from helpers.figures import alt as alt_text
from helpers.widgets.kit import (SentenceExplorer, State, empty_state, project,
                                 read_sentence, toy_head, toy_sentence, value_up)
from helpers.widgets.engine import nice_limit
from helpers.widgets.policy import MAX_TOY_TOKENS, WEIGHT_RANGE
from helpers.widgets.panels import Heatmap


_STEPS = [("1 scores", 1), ("2 masked scores", 2), ("3 softmax", 3), ("4 output", 4)]


class _MaskExplorer(SentenceExplorer):
    kind = "mask_explorer"
    figsize = (7.4, 5.8)

    #: scores: Q K^T / sqrt(d_k), (n, n); masked_scores: the scores with
    #: -inf above the diagonal; output: dE = A V W_up in the written columns;
    #: shown: the drawn array
    shows = {"scores": None, "masked_scores": None, "output": None, "shown": None}

    def __init__(self, sentence, masked, step):
        self.mask = widgets.Checkbox(value=masked, description="causal mask",
                                     indent=False)
        self.step = widgets.ToggleButtons(options=_STEPS, value=step)
        super().__init__(sentence, below=[widgets.HBox([self.mask, self.step])])

    def _build(self, art):
        head = toy_head("adjective_head")
        self._cols = np.flatnonzero(np.any(np.asarray(head.W_up) != 0, axis=0))
        art.heat = Heatmap(art, [0.2, 0.25, 0.6, 0.63],
                           cbar_rect=[0.83, 0.25, 0.03, 0.63],
                           cols=max(MAX_TOY_TOKENS, len(self._cols)))
        # masked cells are hatched as well as grey (not by colour alone)
        art.hatch = art.add(PatchCollection([], facecolor="none", edgecolor="0.3",
                                            hatch="///", linewidth=0.0))
        art.heat.ax.add_collection(art.hatch, autolim=False)

    def _compute(self):
        r = read_sentence(self.sentence.value)
        if r.empty:
            return empty_state(r)
        head = toy_head("adjective_head")
        Q, K, V = project(head, r.E)
        n, d_k = Q.shape
        scores = Q @ K.T / np.sqrt(d_k)
        allowed = causal_mask(n) if self.mask.value else np.ones((n, n), bool)
        masked = np.where(allowed, scores, -np.inf)
        A = softmax(masked)
        out = (A @ value_up(head, V))[:, self._cols]
        step = int(self.step.value)
        shown = {1: scores, 2: masked, 3: A, 4: out}[step]
        return State(tokens=r.tokens, labels=r.labels, weights=A, notes=r.notes,
                     scores=scores, masked_scores=masked, output=out, shown=shown,
                     _step=step, _masked_on=bool(self.mask.value))

    def _paint(self, art, s):
        on = "causal mask on" if s._masked_on else "no mask"
        if s._step in (1, 2):
            finite = s.shown[np.isfinite(s.shown)]
            lim = nice_limit(np.max(np.abs(finite)) if finite.size else 1.0)
            vmin, vmax = -lim, lim
        elif s._step == 3:
            vmin, vmax = WEIGHT_RANGE
        else:
            lim = nice_limit(max(np.max(np.abs(s.shown)), 1e-9))
            vmin, vmax = -lim, lim
        if s._step == 4:
            feats = lexicon.feature_names()
            cols, xlabel = [feats[c] for c in self._cols], "feature of the update dE"
        else:
            cols, xlabel = s.labels, "key"
        title = {
            1: "Step 1: scores Q K^T / sqrt(d_k)",
            2: "Step 2: masked scores (hatched grey = -inf, a later token)"
            if s._masked_on else "Step 2: masked scores (mask is off: nothing hidden)",
            3: "Step 3: softmax of each row (masked weights are exactly 0)",
            4: "Step 4: output dE = A V W_up (one row per token)",
        }[s._step]
        clabel = ("score" if s._step < 3 else
                                  "attention weight" if s._step == 3 else "value")
        key = art.heat.update(s.shown, s.labels, cols, title=f"{title}\n({on})",
                              xlabel=xlabel, ylabel="query", vmin=vmin, vmax=vmax,
                              features=s._step == 4)
        art.heat.cbar.set_label(clabel)
        hidden = (np.argwhere(~np.isfinite(s.shown)) if s._step == 2
                  else np.zeros((0, 2), int))
        art.hatch.set_paths([Rectangle((j - 0.5, i - 0.5), 1, 1)
                             for i, j in hidden])
        return key + (clabel,)

    def _picture_name(self):
        return "The causal mask, step by step"

    def _describe(self, s):
        if s.empty:
            return super()._describe(s)
        on = "causal mask on" if s._masked_on else "mask off"
        t = s.tokens
        allowed = np.isfinite(s.masked_scores)
        if s._step == 1:
            what = ("Step 1, the scores Q Kᵀ / √d_k before any mask: "
                    + alt_text.grid(s.scores, t, t, what="score"))
        elif s._step == 2:
            what = ("Step 2, the masked scores (grey = −∞): "
                    + alt_text.masked(s.scores, allowed, t, t))
        elif s._step == 3:
            what = ("Step 3, softmax of each row (masked weights exactly 0): "
                    + alt_text.grid(np.where(allowed, s.weights, np.nan), t, t))
        else:
            feats = lexicon.feature_names()
            cols = [feats[c] for c in self._cols]
            what = ("Step 4, the output dE = A V W_up, one row per token: "
                    + alt_text.features(s.output, t, cols))
        return f"{self._picture_name()} ({on}). {what}"


def mask_explorer(sentence=None, masked=True, step=3):
    """Lesson 06: the causal mask, step by step.

    ``.mask`` switches the causal mask on/off; ``.step`` (1-4) shows the
    scores, the masked scores (``-inf`` drawn grey), the softmax weights and
    the output ``dE = A V W_up`` of the adjective head. ``.weights`` is always the
    (n, n) pattern after the mask; ``.shown`` is the drawn array.
    """
    return _MaskExplorer(toy_sentence("creature") if sentence is None else sentence,
                         masked, step)
