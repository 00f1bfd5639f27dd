"""Lesson 03: a query against every key."""

from __future__ import annotations

import numpy as np

from helpers.attention import softmax
from helpers.figures import alt as alt_text
from helpers.widgets.kit import (SentenceExplorer, State, choose_token, empty_state,
                                 project, read_sentence, toy_head, toy_sentence)
from helpers.widgets.engine import nice_limit
from helpers.widgets.panels import LABEL_HIGHLIGHT, MARK, Bars, Heatmap


#: What each query/key slot of the adjective head reads (its three columns).
_SLOTS = ["adjective?", "order (1)", "order (2)"]


class _QKExplorer(SentenceExplorer):
    kind = "qk_explorer"
    figsize = (8.4, 6.6)  # room for 24 keys (9 px labels)
    token_label = "Query token:"

    #: query_vector: the chosen token's query q, (d_k,); key_vectors: every
    #: key K, (n, d_k); scores: the raw scores K q, (n,); target: the index
    #: of the query token
    shows = {"query_vector": None, "key_vectors": None, "scores": None,
             "target": None}

    def _build(self, art):
        d_k = toy_head("adjective_head").W_Q.shape[1]
        art.query = Heatmap(art, [0.17, 0.79, 0.3, 0.05], rows=1, cols=0,
                            title_size=10, annotate=d_k)
        art.keys = Heatmap(art, [0.17, 0.22, 0.3, 0.5],
                           cbar_rect=[0.49, 0.22, 0.015, 0.62],
                           clabel="key entry", cols=d_k,
                           title_size=10, annotate=True)
        art.products = Bars(art, [0.7, 0.22, 0.27, 0.62],
                            xlabel="query . key (raw score)")

    def _compute(self):
        r = read_sentence(self.sentence.value)
        t = self.pick(r.tokens)
        if r.empty:
            return empty_state(r, weights_shape=(0,))
        head = toy_head("adjective_head")
        Q, K, _ = project(head, r.E)
        q = Q[t]
        scores = K @ q
        d_k = Q.shape[1]
        w = softmax(scores / np.sqrt(d_k))
        return State(tokens=r.tokens, labels=r.labels, weights=w, notes=r.notes,
                     query_vector=q, key_vectors=K, scores=scores, target=t)

    def _paint(self, art, s):
        q, K = s.query_vector, s.key_vectors
        d_k = K.shape[1]
        slots = _SLOTS if len(_SLOTS) == d_k else [f"slot {i}" for i in range(d_k)]
        # Query and keys get their own scales: the query's entries reach
        # about 7, the keys' stay within about 1, and one shared scale would
        # paint every key the same colour.
        lim_q = nice_limit(max(np.max(np.abs(q)), 1e-9))
        lim_k = nice_limit(max(np.max(np.abs(K)), 1e-9))
        label = s.labels[s.target]
        art.query.update(q[None, :], [f"query {label}"], [], vmin=-lim_q,
                         vmax=lim_q, title=f"Query of '{label}': what it looks for\n"
                         "(colours on their own scale; numbers written)")
        keys = [MARK + lab if i == s.target else lab
                for i, lab in enumerate(s.labels)]
        k1 = art.keys.update(K, keys, slots, vmin=-lim_k, vmax=lim_k,
                             title="Keys: what each token offers "
                                   "(\u25b6 orange: the query's own)",
                             xlabel="query/key slot (adjective head)",
                             row_colours=[LABEL_HIGHLIGHT if i == s.target
                                            else "black" for i in range(len(s.labels))])
        best = int(np.argmax(s.scores))
        # orange means the query's token in this lesson, so the best key is
        # named in the title rather than coloured
        k2 = art.products.update(s.scores, s.labels,
                                 title=f"'{label}' . each key\n(highest: "
                                       f"'{s.labels[best]}')")
        return k1 + k2

    def _picture_name(self):
        return "One query against every key"

    def _describe(self, s):
        if s.empty:
            return super()._describe(s)
        word = s.tokens[s.target]
        q = ", ".join(alt_text.number(v) for v in s.query_vector)
        best = int(np.argmax(s.scores))
        return (f"{self._picture_name()}: the query of '{word}' is ({q}) over "
                f"the slots {', '.join(_SLOTS)}. Raw scores query · key, one bar "
                f"per key: " + alt_text.bars("scores", s.tokens, s.scores)
                + f". The highest is '{s.tokens[best]}' "
                f"{alt_text.number(s.scores[best])}; after softmax(scores / √d_k) "
                f"it gets weight {alt_text.number(s.weights[best])}. Keys, one row "
                "per token: " + alt_text.features(s.key_vectors, s.tokens, _SLOTS))


def qk_explorer(sentence=None, token=None):
    """Lesson 03: pick a query token and compare its query with every key.

    Uses the hand-built adjective head (``d_k = 3``). Shows the query vector
    of the chosen token (``.token``, an index; ``.query_vector``, (d_k,)),
    the key of every token (``.key_vectors``, (n, d_k)) and the dot products
    ``q . k_j`` (raw scores, ``.scores``, (n,)). ``.weights`` is
    ``softmax(scores / sqrt(d_k))``, shape (n,); ``.target`` the query's index.
    """
    ex = _QKExplorer(toy_sentence("creature") if sentence is None else sentence)
    choose_token(ex, token)
    return ex
