"""Lesson 05: the values that flow into a token, and the sense it ends up
with."""

from __future__ import annotations

import numpy as np

from helpers.world import heads, lexicon
from helpers.attention import scaled_dot_product_attention
from helpers.figures import alt as alt_text
from helpers.world.heads import sense_name, sense_verdict
from helpers.widgets.kit import (SentenceExplorer, State, choose_token, empty_state,
                                 fit_dropdown, project, read_sentence, toy_head,
                                 toy_sentence, value_up)
from helpers.widgets.engine import (
    AXIS_SIZE,
    FEATURE_LABEL_SIZE,
    fit_label,
    label_width,
    nice_limit,
)
from helpers.widgets.policy import MAX_TOY_TOKENS
from helpers.widgets.panels import LABEL_HIGHLIGHT, Bars, Heatmap


_UPDATE_HEADS = {"sense": "sense_head", "adjective": "adjective_head",
                 "previous token": "previous_token_head"}


def _written_columns(head):
    """The embedding columns a head's value-up writes into."""
    return np.flatnonzero(np.any(np.asarray(head.W_up) != 0, axis=0))


class _UpdateExplorer(SentenceExplorer):
    kind = "update_explorer"
    figsize = (10.0, 5.8)  # room for up to 26 readable feature columns

    token_label = "Token:"
    #: dE: the update of the chosen token, (D_MODEL,); target: its index;
    #: before_sense, after_sense: the nearest sense before and after (or
    #: "tie"); senses: the cosines to each sense, before and after;
    #: sense_note: the verdict, e.g. "before: ... -> after: ..."
    shows = {"dE": None, "target": None, "before_sense": None, "after_sense": None,
             "senses": None, "sense_note": ""}

    def __init__(self, sentence, head):
        self.head = fit_dropdown(list(_UPDATE_HEADS), "Head:",
                                 value=head if head in _UPDATE_HEADS else "sense")
        super().__init__(sentence, beside=[self.head])

    def _build(self, art):
        n_cols = max(len(_written_columns(toy_head(f))) for f in _UPDATE_HEADS.values())
        art.flow = Heatmap(art, [0.17, 0.25, 0.43, 0.62],
                           cbar_rect=[0.61, 0.25, 0.013, 0.62],
                           clabel="weight x value", rows=MAX_TOY_TOKENS + 1,
                           cols=n_cols, title_size=10, extra_rows=1,
                           col_size=FEATURE_LABEL_SIZE,
                           cmap="RdBu_r")  # signed: diverging, centred on 0
        art.sense = Bars(art, [0.8, 0.25, 0.18, 0.62], series=2,
                         rows=5, xlabel="cosine similarity", room=0.8 - 0.7,
                         legend=["before (E)", "after (E')"])

    def _compute(self):
        lex, hd = lexicon, heads
        r = read_sentence(self.sentence.value)
        t = self.pick(r.tokens)
        if r.empty:
            return empty_state(r, weights_shape=(0,))
        head = toy_head(_UPDATE_HEADS.get(self.head.value, "sense_head"))
        cols = _written_columns(head)
        Q, K, V = project(head, r.E)
        _, A = scaled_dot_product_attention(Q, K, V)
        a = A[t]
        flowing = a[:, None] * value_up(head, V)  # (n, D_MODEL)
        dE = flowing.sum(axis=0)
        before, after = r.E[t], r.E[t] + dE
        word = r.tokens[t]
        shown = {"dE": dE, "target": t, "before_sense": None, "after_sense": None,
                 "senses": None, "sense_note": ""}
        if word in hd.SENSES:
            _, b = hd.nearest_sense(word, before)
            _, af = hd.nearest_sense(word, after)
            names = list(b)
            cos = np.array([[b[k] for k in names], [af[k] for k in names]])
            b_verdict, a_verdict = sense_verdict(b), sense_verdict(af)
            note = f"before: {b_verdict} \u2192 after: {a_verdict}"
            shown.update(before_sense=sense_name(b), after_sense=sense_name(af),
                         senses={"before": b, "after": af}, sense_note=note)
            verdict = f"nearest sense\nbefore: {b_verdict}\n\u2192 after: {a_verdict}"
        else:
            n_feat = len(lex.FEATURES)
            change = np.abs(dE[:n_feat])
            top = [i for i in np.argsort(-change, kind="stable")[:5]
                   if change[i] > 1e-9]
            for i in np.argsort(-np.abs(after[:n_feat]), kind="stable"):
                if len(top) >= 3:
                    break
                if i not in top:
                    top.append(i)  # pad with the word's own largest features
            top = np.array(top, dtype=int)
            cos = np.vstack([before[top], after[top]])  # feature values
            names = [lex.FEATURES[i] for i in top]
            verdict = "features that\nchanged most"
        return State(tokens=r.tokens, labels=r.labels, weights=a, notes=r.notes,
                     **shown, _flowing=flowing, _cos=cos, _names=names,
                     _verdict=verdict, _cols=cols, _head_name=self.head.value,
                     _is_sense=word in hd.SENSES)

    def _paint(self, art, s):
        feats = lexicon.feature_names()
        cols = [feats[c] for c in s._cols]
        data = np.vstack([s._flowing[:, s._cols], s.dE[None, s._cols]])
        lim = nice_limit(max(np.max(np.abs(data)), 1e-9))
        label = s.labels[s.target]
        rows = s.labels + ["sum = dE"]
        # cut long words, never the weight after them
        px, room = art.flow.label_room(art.flow._label_sizes(rows, [])[0],
                                       art.flow._room[0], True)
        room -= label_width(" (0.00)", px)
        rows = [f"{fit_label(lab, px, room)} ({w:.2f})"
                for lab, w in zip(s.labels, s.weights)] + rows[-1:]
        colours = ["black"] * len(s.labels) + [LABEL_HIGHLIGHT]
        k1 = art.flow.update(data, rows, cols, vmin=-lim, vmax=lim,
                             title=f"Values flowing into '{label}' (weight x V W_up)",
                             xlabel=f"feature written by the {s._head_name} head",
                             ylabel="key token (attention weight)",
                             row_colours=colours)
        if s._is_sense:
            k2 = art.sense.update(s._cos, s._names, xlim=(-1.0, 1.0),
                                  title=f"'{label}': {s._verdict}")
            xlabel = "cosine similarity to the sense"
        else:
            k2 = art.sense.update(s._cos, s._names, title=f"'{label}': {s._verdict}")
            xlabel = "feature value"
        if art.sense.ax.get_xlabel() != xlabel:
            art.sense.ax.set_xlabel(xlabel, fontsize=AXIS_SIZE)
        k2 = k2 + (xlabel,)
        return k1 + k2

    def _picture_name(self):
        return "Values flowing into one token"

    def _describe(self, s):
        if s.empty:
            return super()._describe(s)
        word = s.tokens[s.target]
        feats = lexicon.feature_names()
        cols = [feats[c] for c in s._cols]
        flow = s._flowing[:, s._cols]
        text = (f"{self._picture_name()}: '{word}', {s._head_name} head. Left, "
                f"weight × value of each key in the {len(cols)} features the head "
                "writes (red positive, blue negative, white 0): the keys it "
                "listens to most: " + alt_text.bars("attention weights", s.tokens,
                                                     s.weights)
                + ". Largest entries: " + alt_text.top_cells(flow, s.tokens, cols,
                                                             by_size=True)
                + ". Their sum dE, largest features: "
                + alt_text.features(s.dE[s._cols], ["dE"], cols))
        if s._is_sense:
            return text + f" Right, the nearest sense: {s.sense_note}."
        return (text + " Right, the features of '" + word + "' that changed "
                "most, before (E) and after (E'): "
                + alt_text.features(s._cos, ["before", "after"], s._names))


def update_explorer(sentence=None, token=None, head="sense"):
    """Lesson 05: the values that flow into one token, and where it ends up.

    A hand-built head (``.head``: "sense" by default, "adjective" to see
    "creature" pick up "fluffy" and "blue", or "previous token") on a typed
    sentence. For the chosen token (``.token``, an index) the left panel
    shows every key's weighted value ``A[i, j] * V_j`` (in the feature
    columns the head writes) and their sum ``dE``; the right panel compares
    ``E`` and ``E' = E + dE`` with the senses of "bank"/"mole"
    (``.before_sense``, ``.after_sense``: a sense name, or "tie" when two
    senses are equally near; cosines in ``.senses``; the verdict, e.g.
    "before: tie (0.79 each) → after: river (0.86)", in ``.sense_note``) or
    with the nearest words.
    ``.weights`` is the token's (n,) row of ``A``; ``.dE`` the update.
    """
    ex = _UpdateExplorer(toy_sentence("bank_river") if sentence is None else sentence,
                         head)
    choose_token(ex, token)
    return ex
