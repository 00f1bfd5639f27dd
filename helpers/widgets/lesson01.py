"""Lesson 01: the embedding matrix of a typed sentence."""

from __future__ import annotations

from helpers.world import lexicon
from helpers.figures import alt as alt_text
from helpers.widgets.kit import (SentenceExplorer, State, empty_state, read_sentence,
                                 toy_sentence)
from helpers.widgets import saving
from helpers.widgets.panels import feature_heatmap


class _EmbeddingExplorer(SentenceExplorer):
    kind = "embedding_explorer"
    figsize = (8.4, 5.8)
    weights_are_pattern = False  # .weights is E

    #: embedding: the drawn (n, len(FEATURES)) matrix E (also ``.weights``,
    #: the contract's name for what the picture shows); unknown: the words
    #: the lexicon does not know
    shows = {"embedding": None, "unknown": ()}

    def _build(self, art):
        art.heat = feature_heatmap(art, [0.15, 0.26, 0.74, 0.65],
                                      [0.91, 0.26, 0.02, 0.65],
                                    clabel="feature value")

    def _compute(self):
        r = read_sentence(self.sentence.value, positions=False)
        if r.empty:
            return empty_state(r, weights_shape=(0, len(lexicon.FEATURES)))
        M = r.E[:, : len(lexicon.FEATURES)]
        unknown = set(r.unknown)
        labels = [f"{lab} (?)" if t in unknown else lab
                  for t, lab in zip(r.tokens, r.labels)]
        colours = ["#c0392b" if t in unknown else "black" for t in r.tokens]
        return State(tokens=r.tokens, labels=labels, weights=M, notes=r.notes,
                     embedding=M, unknown=r.unknown, _colours=colours)

    def _paint(self, art, s):
        feats = list(lexicon.FEATURES)
        return art.heat.update(
            s.embedding, s.labels, feats,
            title="Embedding matrix E: one row per token (red '?' = unknown word)",
            ylabel="token", vmin=0.0, vmax=1.0,
            row_colours=s._colours)

    def _picture_name(self):
        return "Embedding matrix E"

    def _describe(self, s):
        if s.empty:
            return super()._describe(s)
        text = (f"{self._picture_name()}: {len(s.tokens)} words × "
                f"{len(lexicon.FEATURES)} features, values 0 to 1. The features "
                "each word has (largest first): "
                + alt_text.features(s.embedding, s.tokens, list(lexicon.FEATURES),
                                    k=4))
        if s.unknown:
            text += (" Unknown words, all-zero rows marked '(?)' in red: "
                     + ", ".join(f"'{w}'" for w in dict.fromkeys(s.unknown)) + ".")
        return text

    def _csv_table(self):
        """For ``save``: one row per token, one column per feature."""
        return saving.grid(self.embedding, self.tokens, list(lexicon.FEATURES),
                           corner="token \\ feature")


def embedding_explorer(sentence=None):
    """Lesson 01: type a sentence and see its embedding matrix.

    One row per token, one column per named feature of the toy lexicon
    (positions left out). Words the lexicon does not know are flagged in red
    and listed in ``.unknown`` and ``.message``. ``.embedding`` is the drawn
    (n, len(FEATURES)) embedding matrix E; ``.weights`` is the same array
    (the widget contract's name for what every explorer draws: here no
    attention weights, the embedding).
    """
    return _EmbeddingExplorer(toy_sentence("creature") if sentence is None
                              else sentence)
