"""Lesson 00: a first attention pattern of a typed sentence."""

from __future__ import annotations

from helpers.attention import scaled_dot_product_attention
from helpers.figures import alt as alt_text
from helpers.widgets.kit import (SentenceExplorer, State, empty_state, project,
                                 read_sentence, toy_head, toy_sentence)
from helpers.widgets.policy import WEIGHT_SCALE
from helpers.widgets.panels import Heatmap


class _FirstTaste(SentenceExplorer):
    kind = "first_taste"
    figsize = (6.4, 5.4)

    def _build(self, art):
        art.heat = Heatmap(art, [0.2, 0.24, 0.6, 0.66],
                           cbar_rect=[0.83, 0.24, 0.03, 0.66])

    def _compute(self):
        r = read_sentence(self.sentence.value)
        if r.empty:
            return empty_state(r)
        head = toy_head("adjective_head")
        Q, K, V = project(head, r.E)
        _, A = scaled_dot_product_attention(Q, K, V)
        return State(tokens=r.tokens, labels=r.labels, weights=A, notes=r.notes)

    def _paint(self, art, s):
        return art.heat.update(
            s.weights, s.labels, s.labels,
            title="Who looks at whom (each row sums to 1)",
            xlabel="key: the word being looked at",
            ylabel="query: the word looking", **WEIGHT_SCALE)

    def _picture_name(self):
        return "Who looks at whom (the adjective head)"

    def _describe(self, s):
        if s.empty:
            return super()._describe(s)
        kind, habit = alt_text.habit(s.weights, s.tokens)
        return (f"{self._picture_name()}, {len(s.tokens)} words, rows = the word "
                f"looking, columns = the word looked at; {habit}. "
                + alt_text.grid(s.weights, s.tokens, s.tokens))


def first_taste(sentence=None):
    """Lesson 00: type a sentence and see it drawn as an attention pattern.

    The hand-built "adjective" head from ``helpers.world.heads``: each noun looks
    at the adjectives in front of it. ``.weights`` is the (n, n) pattern,
    rows = queries, columns = keys.
    """
    return _FirstTaste(toy_sentence("creature") if sentence is None else sentence)
