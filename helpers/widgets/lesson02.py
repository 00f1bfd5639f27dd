"""Lesson 02: a word's new vector as a weighted sum of the sentence."""

from __future__ import annotations

import numpy as np

from helpers.world import heads, lexicon
from helpers.attention import softmax
from helpers.figures import alt as alt_text
from helpers.world.heads import sense_verdict
from helpers.widgets.kit import (SentenceExplorer, State, choose_token, display_label,
                                 empty_state, read_sentence, toy_sentence)
from helpers.widgets.policy import WEIGHT_RANGE
from helpers.widgets.panels import Bars, feature_heatmap


class _WeightedSumExplorer(SentenceExplorer):
    kind = "weighted_sum_explorer"
    figsize = (8.4, 7.6)  # 24 bar labels of 10 px
    token_label = "Target word:"

    #: scores: target . word for every word, (n,); new_vector: the weighted
    #: sum, (len(FEATURES),); target: index of the target word; senses:
    #: cosines to each sense, before and after; sense_note: panel 3's verdict
    shows = {"scores": None, "new_vector": None, "target": None, "senses": None,
             "sense_note": ""}

    def _build(self, art):
        art.scores = Bars(art, [0.14, 0.47, 0.32, 0.44],
                          xlabel="score = target . word")
        art.weights = Bars(art, [0.63, 0.47, 0.32, 0.44],
                           xlabel="weight = softmax(scores)", room=0.63 - 0.46)
        art.result = feature_heatmap(art, [0.14, 0.21, 0.74, 0.15],
                                        [0.9, 0.21, 0.015, 0.15],
                                      clabel="value", rows=2, title_size=10)

    def _compute(self):
        r = read_sentence(self.sentence.value, positions=False)
        t = self.pick(r.tokens)
        if r.empty:
            return empty_state(r, weights_shape=(0,))
        F = r.E[:, : len(lexicon.FEATURES)]
        scores = F @ F[t]
        w = softmax(scores)
        new = w @ F
        word = r.tokens[t]
        senses = None
        if word in heads.SENSES:
            _, b_sims = heads.nearest_sense(word, F[t])
            _, a_sims = heads.nearest_sense(word, new)
            sense_note = (f"nearest sense before: {sense_verdict(b_sims)}, "
                          f"after: {sense_verdict(a_sims)}")
            senses = {"before": b_sims, "after": a_sims}
        else:
            near = lexicon.nearest_words(new, k=3, exclude=(word,))
            sense_note = "nearest words after: " + ", ".join(
                f"{display_label(wd)[0]} ({c:.2f})" for wd, c in near)
        return State(tokens=r.tokens, labels=r.labels, weights=w, notes=r.notes,
                     scores=scores, new_vector=new, target=t, senses=senses,
                     sense_note=sense_note, _before=F[t])

    def _paint(self, art, s):
        t, label = s.target, s.labels[s.target]
        k1 = art.scores.update(s.scores, s.labels, highlight=t,
                               title=f"1. scores of '{label}' with every word\n"
                                     "(\u25b6 orange: the target word)")
        k2 = art.weights.update(s.weights, s.labels, highlight=t, xlim=WEIGHT_RANGE,
                                title="2. weights (they sum to 1)")
        k3 = art.result.update(
            np.vstack([s._before, s.new_vector]), [label, f"{label}'"],
            list(lexicon.FEATURES), vmin=0.0, vmax=1.0,
            title=f"3. {label}' = sum of weight x vector;  {s.sense_note}")
        return k1 + k2 + k3

    def _picture_name(self):
        return "A word's new vector as a weighted sum"

    def _describe(self, s):
        if s.empty:
            return super()._describe(s)
        word = s.tokens[s.target]
        feats = list(lexicon.FEATURES)
        return (f"{self._picture_name()}, target word '{word}' (its bar and label "
                f"orange and outlined). 1. Scores of '{word}' with every word: "
                + alt_text.bars("scores", s.tokens, s.scores)
                + ". 2. Softmax weights, summing to 1: "
                + alt_text.bars("weights", s.tokens, s.weights)
                + ". 3. Old and new vector, largest features: "
                + alt_text.features(np.vstack([s._before, s.new_vector]),
                                    [word, word + "'"], feats)
                + f" {s.sense_note}.")


def weighted_sum_explorer(sentence=None, token=None):
    """Lesson 02: a word's new vector as a weighted sum of the sentence.

    Pick the target word (``.token``, a token index) in a typed sentence and
    see the dot-product scores with every word, the softmax weights and the
    new vector next to the old one (features only, no positions), with the
    nearest sense of "bank"/"mole". ``.weights`` is the (n,) weight vector;
    ``.scores`` and ``.new_vector`` are exposed too, and ``.sense_note``, the
    verdict in the title of panel 3 (a tie is reported as a tie).
    """
    ex = _WeightedSumExplorer(toy_sentence("river_bank") if sentence is None
                              else sentence)
    choose_token(ex, token)
    return ex
