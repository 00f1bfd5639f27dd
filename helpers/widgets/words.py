"""Lessons 00-02: a first attention pattern, the embedding matrix, and a
word's new vector as a weighted sum of the sentence."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from helpers import heads, lexicon
from helpers.attention import (
    scaled_dot_product_attention,
    softmax,
)
from helpers.widgets.base import (
    sense_verdict,
    SentenceExplorer,
    _choose,
    _empty_state,
    _head,
    _project,
    _read,
    _sentence,
)
from helpers.widgets.engine import (
    FEATURE_LABEL_SIZE,
    WEIGHT_RANGE,
    WEIGHT_SCALE,
    display_label,
)
from helpers.widgets.panels import Bars, Heatmap


class _FirstTaste(SentenceExplorer):
    kind = "first_taste"
    figsize = (6.4, 5.4)

    def _build(self, art):
        art.heat = Heatmap(art, [0.2, 0.24, 0.6, 0.66],
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

    def _paint(self, art, s):
        return art.heat.update(
            s.weights, s.labels, s.labels,
            title="Who looks at whom (each row sums to 1)",
            xlabel="key: the word being looked at",
            ylabel="query: the word looking", **WEIGHT_SCALE)


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
def feature_groups():
    """The feature columns in groups: [(name, number of columns), ...]."""
    lex = lexicon
    n_pos = len(getattr(lex, "POS_TAGS", ()))
    n_fields = len(getattr(lex, "FIELDS", ()))
    n_flags = len(lex.FEATURES) - n_pos - n_fields
    if not n_pos or not n_fields or n_flags < 0:
        return [("named features", len(lex.FEATURES))]
    groups = [("part of speech", n_pos), ("meaning fields", n_fields)]
    return groups + ([("flags", n_flags)] if n_flags else [])


def _feature_heatmap(art, rect, cbar_rect, **kw):
    """A heatmap with one column per named feature, in readable labels and
    grouped (part of speech | meaning fields | flags)."""
    feats = list(lexicon.FEATURES)
    heat = Heatmap(art, rect, cbar_rect=cbar_rect, cols=len(feats),
                   col_size=FEATURE_LABEL_SIZE, **kw)
    heat.group_columns(feature_groups(), feats)
    return heat


class _EmbeddingExplorer(SentenceExplorer):
    kind = "embedding_explorer"
    figsize = (8.4, 5.8)

    # state set by every update
    embedding: np.ndarray | None = None  # the drawn (n, len(FEATURES)) matrix
    unknown: list = ()  # words the lexicon does not know

    def _build(self, art):
        art.heat = _feature_heatmap(art, [0.15, 0.26, 0.74, 0.65],
                                      [0.91, 0.26, 0.02, 0.65],
                                    clabel="feature value")

    def _compute(self):
        lex = lexicon
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

    def _paint(self, art, s):
        feats = list(lexicon.FEATURES)
        return art.heat.update(
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
class _WeightedSumExplorer(SentenceExplorer):
    kind = "weighted_sum_explorer"
    figsize = (8.4, 7.6)  # 24 bar labels of 10 px
    token_label = "Target word:"

    # state set by every update
    scores: np.ndarray | None = None  # target . word for every word, (n,)
    new_vector: np.ndarray | None = None  # the weighted sum, (len(FEATURES),)
    target: int | None = None  # index of the target word
    senses: dict | None = None  # cosines to each sense, before and after
    sense_note: str = ""  # the verdict shown in panel 3

    def _build(self, art):
        art.scores = Bars(art, [0.14, 0.47, 0.32, 0.44],
                          xlabel="score = target . word")
        art.weights = Bars(art, [0.63, 0.47, 0.32, 0.44],
                           xlabel="weight = softmax(scores)", room=0.63 - 0.46)
        art.result = _feature_heatmap(art, [0.14, 0.21, 0.74, 0.15],
                                        [0.9, 0.21, 0.015, 0.15],
                                      clabel="value", rows=2, title_size=10)

    def _compute(self):
        lex = lexicon
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
        if word in heads.SENSES:
            _, b_sims = heads.nearest_sense(word, F[t])
            _, a_sims = heads.nearest_sense(word, new)
            sense_note = (f"nearest sense before: {sense_verdict(b_sims)}, "
                          f"after: {sense_verdict(a_sims)}")
            extra["senses"] = {"before": b_sims, "after": a_sims}
        else:
            near = lex.nearest_words(new, k=3, exclude=(word,))
            sense_note = "nearest words after: " + ", ".join(
                f"{display_label(wd)[0]} ({c:.2f})" for wd, c in near)
        extra["sense_note"] = sense_note
        return SimpleNamespace(empty=False, tokens=r.tokens, labels=r.labels,
                               weights=w, target=t, scores=scores,
                               before=F[t], new=new, sense_note=sense_note,
                               notes=r.notes, extra=extra)

    def _paint(self, art, s):
        t, label = s.target, s.labels[s.target]
        k1 = art.scores.update(s.scores, s.labels, highlight=t,
                               title=f"1. scores of '{label}' with every word")
        k2 = art.weights.update(s.weights, s.labels, highlight=t, xlim=WEIGHT_RANGE,
                                title="2. weights (they sum to 1)")
        k3 = art.result.update(
            np.vstack([s.before, s.new]), [label, f"{label}'"],
            list(lexicon.FEATURES), vmin=0.0, vmax=1.0,
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
