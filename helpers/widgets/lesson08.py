"""Lesson 08: cross-attention between an English and a French sentence."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from helpers.attention import (
    cross_attention,
)
from helpers.widgets.base import (
    Explorer,
    _head,
    _read,
    _sentence,
    _sentence_box,
    _text_box,
)
from helpers.widgets.engine import (
    WEIGHT_SCALE,
)
from helpers.widgets.panels import Heatmap


class _CrossExplorer(Explorer):
    kind = "cross_explorer"
    figsize = (7.0, 5.6)

    # state set by every update
    source_tokens: list = ()  # the source (key) tokens
    target_tokens: list = ()  # the target (query) tokens

    def __init__(self, source, target):
        self.source = _sentence_box(source, "Source (English, keys):")
        self.source.add_class("attn-source")
        self.target = _text_box(target, "Target (French, queries):")
        self.target.add_class("attn-target")
        self.sentence = self.source
        super().__init__([self.source, self.target], [self.source, self.target])

    def _build(self, art):
        art.heat = Heatmap(art, [0.22, 0.25, 0.58, 0.63],
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

        _, A = cross_attention(tgt.E, src.E, head.W_Q, head.W_K, head.W_V)
        return SimpleNamespace(empty=False, tokens=tgt.tokens, labels=tgt.labels,
                               src_labels=src.labels, weights=A, notes=notes,
                               extra={"source_tokens": src.tokens,
                                      "target_tokens": tgt.tokens})

    def _paint(self, art, s):
        n, m = s.weights.shape
        return art.heat.update(
            s.weights, s.labels, s.src_labels,
            title=f"Cross-attention: {n} target queries x {m} source keys",
            xlabel="source word (key, value)", ylabel="target word (query)",
            **WEIGHT_SCALE)

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
