"""Reading what the learner typed: a short message for every kind of bad
input (empty, no words, too long, unknown words, characters the font lacks)
and what is left to draw."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from helpers.world import lexicon
from helpers.widgets.engine import display_label
from helpers.widgets.policy import MAX_TOY_TOKENS


def _plain(text: str, limit: int = 24) -> str:
    """User text made safe and short for a one-line message."""
    text = "".join(" " if (c.isspace() or ord(c) < 32) else c for c in str(text))
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def list_words(words, most: int = 6, why=None) -> str:
    """``'a', 'b' and 3 more``; with ``why`` (word -> reason), ``'a' (reason)``."""
    why = why or {}
    shown = ", ".join(f"'{_plain(w)}'" + (f" ({why[w]})" if w in why else "")
                      for w in words[:most])
    if len(words) > most:
        shown += f" and {len(words) - most} more"
    return shown


def token_labels(tokens, notes):
    """Drawable labels of ``tokens``; a note when a character was replaced."""
    labels, replaced = [], False
    for t in tokens:
        label, r = display_label(t)
        labels.append(label)
        replaced = replaced or r
    if replaced:
        notes.append("Characters this font cannot draw are shown as '?'.")
    return labels


def read_sentence(text, *, cap: int = MAX_TOY_TOKENS, positions: bool = True,
          what="sentence"):
    """Tokenize, cap and embed a typed sentence.

    Returns a namespace with ``tokens`` (capped), ``labels`` (drawable),
    ``E`` (n, D_MODEL), ``unknown``, ``notes`` (list of messages) and
    ``empty`` (True when there is nothing to draw).
    """
    text = "" if text is None else str(text)
    notes = []
    tokens = lexicon.tokenize(text) if text.strip() else []
    if not text.strip():
        notes.append(f"Type a {what} in the box.")
    elif not tokens:
        notes.append(
            f"No words in that {what} (punctuation is not a word): type some words."
        )
    if len(tokens) > cap:
        notes.append(f"Showing the first {cap} of {len(tokens)} tokens.")
        tokens = tokens[:cap]
    emb = lexicon.embed(tokens, positions=positions)
    unknown = list(emb.unknown)
    why = {w: g["why"] for w in unknown if (g := lexicon.guess_word(w))}
    plain = [w for w in unknown if w not in why]
    if plain:
        notes.append(
            f"Not in the toy lexicon (given the 'unknown' vector): "
            f"{list_words(plain)}."
        )
    if why:
        notes.append(
            "Not in the toy lexicon, guessed from the word's form "
            f"('unknown' still set): {list_words(list(why), why=why)}."
        )
    labels = token_labels(tokens, notes)
    return SimpleNamespace(
        tokens=list(tokens),
        labels=labels,
        E=np.asarray(emb.E, dtype=float),
        unknown=unknown,
        notes=notes,
        empty=not tokens,
    )
