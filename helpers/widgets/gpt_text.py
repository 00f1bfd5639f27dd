"""Lesson 11's explorer in words: token labels that show spaces, line breaks
and punctuation, and the text alternative of its picture (prompt, the bars
as drawn, the head shown and its strongest keys), and the bars' numbers
(``<0.001`` for a tiny probability, never a misleading 0). Used by
:mod:`helpers.widgets.lesson11`."""

from __future__ import annotations

import math

import numpy as np

from helpers.figures.alt import number, spoken
from helpers.figures.alt import token_name as _label
from helpers.widgets.engine import display_label

BOS_LABEL = "\u27e8bos\u27e9"  # ⟨bos⟩
ALL_HEADS = "all 6 heads"
PICTURE = "Small GPT: attention and the next token"


_SHOWN_AS = {" ": "\u00b7", "\n": "\u21b5", "\r": "\u21b5", "\t": "\u21e5"}


def token_label(piece: str) -> str:
    """A drawable label of one token's text: spaces as ``·``, a line break as
    ``↵``, a tab as ``⇥``, other control characters as ``\\x00``, the start
    token as ``⟨bos⟩``; characters the font lacks as ``?``."""
    if piece == "<|endoftext|>":
        return BOS_LABEL
    out = "".join(_SHOWN_AS.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 32 or
                                        ord(ch) == 127 else ch) for ch in str(piece))
    return display_label(out)[0] or "?"


_NAMED = {",": "comma", ".": "full stop", ";": "semicolon", ":": "colon",
          "!": "exclamation", "?": "question", "'": "apostrophe", "-": "hyphen",
          '"': "quote", "\n": "line break", "\n\n": "2 line breaks", " ": "space"}


def bar_label(piece: str) -> str:
    """A bar's label: :func:`token_label`, with punctuation and white space
    named, so that ``,`` and ``.`` differ at a glance ("``, comma``")."""
    name = _NAMED.get(str(piece).lstrip(" ")) if str(piece).strip(" ") else "space"
    label = token_label(piece)
    return f"{label} {name}" if name else label


def prob_text(p: float) -> str:
    """A bar's probability as drawn and read: 3 decimals, but ``"<0.001"``
    for a drawable token whose probability rounds to 0 (e.g. 1e-14)."""
    return "<0.001" if 0 < p < 0.0005 else f"{p:.3f}"


class ProbFormat:
    """``fmt`` for :class:`helpers.widgets.panels.Bars`: ``.format(p)`` is
    :func:`prob_text`."""

    @staticmethod
    def format(p):
        return prob_text(float(p))


def thin_labels(labels, pitch_px, size_pt, dpi):
    """``(step, labels)``: every step-th label (and the last), no overlaps."""
    step = max(1, math.ceil(size_pt * dpi / 72.0 / max(pitch_px, 1e-9) - 0.05))
    last = len(labels) - 1
    return step, [lab if (last - i) % step == 0 else ""
                  for i, lab in enumerate(labels)]


def describe(s, top_k) -> str:
    """The explorer's picture in words, from its state ``s``: the prompt's
    end, the bars as drawn (top-k ``top_k``), the head shown and the last
    query's strongest keys (one per head in the all-heads view)."""
    if s.empty:
        return f"{PICTURE}: empty. {s.placeholder}."
    text = spoken_text("".join(t for t in s.tokens if t != "<|endoftext|>"))
    bars = ", ".join(f"'{spoken_piece(t)}' {prob_text(p)}" for t, p in s.top)
    cut = f", top-p {s._p:.2f}" if s._p else ""
    parts = [f"{PICTURE}. Prompt ends: {text}. Next token (T = {s._T:.2f}, "
             f"top-k {top_k}{cut}), {len(s.top)} bars: {bars}."]
    keys = [token_label(t) for t in s.tokens]
    if s._choice == ALL_HEADS:
        best = [f"head {h}: {_label(keys, int(np.argmax(row[-1])))} "
                f"{number(row[-1].max())}" for h, row in enumerate(s._all)]
        parts.append(f"Layer {s._layer}, all {len(best)} heads, last {len(keys)} "
                     "tokens; strongest key of the last query, "
                     + "; ".join(best) + ".")
    else:
        row = np.asarray(s.weights)[-1]
        top = np.argsort(-row, kind="stable")[:3]
        parts.append(f"Layer {s._layer} head {s._choice}, last {len(keys)} tokens; "
                     "the last query's strongest keys: " + ", ".join(
                         f"{_label(keys, int(j))} {number(row[j])}" for j in top)
                     + ".")
    return " ".join(parts)


def spoken_text(text: str, limit: int = 60) -> str:
    """The end of a prompt (its last ``limit`` characters, whole words) as a
    listener should hear it: real spaces, "line break" for a line break,
    "byte piece" for a character split between byte tokens ("\ufffd")."""
    tail = text[-limit:]
    if len(text) > limit and " " in tail:
        tail = tail.split(" ", 1)[1]
    for mark, word in (("\r\n", "\n"), ("\r", "\n")):
        tail = tail.replace(mark, word)
    tail = tail.replace("\n", " (line break) ").replace("\t", " (tab) ")
    tail = tail.replace("\ufffd", " (byte piece) ")
    return " ".join(tail.split()) or "(only spaces)"


def split_note(text, pieces) -> str:
    """Which typed characters were split into byte tokens, named: "'ü' is
    2 bytes, split between tokens: a token holding part of a character
    (a byte piece) is shown as \ufffd"."""
    split = []
    for ch in dict.fromkeys(text):
        if ord(ch) > 127 and not any(ch in t for t in pieces):
            split.append(ch)
    if not split:
        return ("A character of more than one byte is split between tokens: a "
                "token holding part of it (a byte piece) is shown as \ufffd.")
    named = ", ".join(f"'{ch}' ({len(ch.encode('utf-8'))} bytes)"
                      for ch in split[:4])
    more = f" and {len(split) - 4} more" if len(split) > 4 else ""
    verb = "is" if len(split) == 1 else "are"
    return (f"{named}{more} {verb} split into byte tokens (GPT-2 reads bytes, "
            f"and a character outside plain English letters takes 2 to 4): a "
            f"token holding part of a character (a byte piece) is shown as "
            f"\ufffd.")


def headline(s) -> str:
    """What lesson 11's live region says after a change: the most likely
    next token and where the last token looks, spelled for speech."""
    if s.empty:
        return s.placeholder
    text = ""
    if s.top:
        piece, p = s.top[0]
        text = f"Next token most likely '{spoken_piece(piece)}', {prob_text(p)}"
    W = np.asarray(s.weights, dtype=float)
    if s._choice != ALL_HEADS and W.ndim == 2 and W.size:
        keys = [token_label(t) for t in s.tokens]
        row = W[-1]
        j = int(np.nanargmax(row))
        text += (f"; the last token looks most at {_label(keys, j)}, "
                 f"{number(row[j])}")
    return text


def spoken_piece(piece: str) -> str:
    """A token as a listener should hear it: white space spelled ("line
    break", "space"), punctuation named as on its bar ("comma"), a byte
    piece named as such."""
    piece = str(piece)
    if not piece.strip():
        return spoken(token_label(piece))
    name = _NAMED.get(piece.lstrip(" "))
    if name:
        return ("space, " if piece.startswith(" ") else "") + name
    return spoken(token_label(piece))
