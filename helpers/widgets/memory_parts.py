"""Lesson 14's explorer, its parts: reading typed facts, drawable labels,
filler facts and seeded key vectors (:mod:`helpers.widgets.lesson14`).
Not a lesson module: it imports none."""

from __future__ import annotations

import re

import numpy as np

from helpers.figures import alt as alt_text
from helpers.world import recall as R
from helpers.widgets.engine import display_label

D = 16  # d_k = d_v of every memory here
MAX_N = 64  # facts in the context
MAX_TEXT = 2000  # characters of typed facts read
_SPLIT = re.compile(r"[,;\n]+")
_FACT = re.compile(r"^\s*(.+?)\s*(?:=|->|\u2192|:)\s*(.+?)\s*$")

#: What separates a name from its room; a piece with two of them is two
#: facts run together ("Ann=4 Bob=5": a comma missing), not one.
_SEPARATOR = re.compile(r"=|->|\u2192|:")


def beta_value(value):
    """``value`` as a beta the slider can show (0.1 to 1, one decimal), or
    None when it is not such a number."""
    try:
        b = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not np.isfinite(b) or not 0.1 - 1e-9 <= b <= 1.0 + 1e-9:
        return None
    return round(b, 1)


def read_facts(text):
    """``"Ada=3, Ben=7"`` -> ([("Ada", "3"), ("Ben", "7")], notes). Pieces
    are split at commas, semicolons and new lines; each is ``name = room``
    (or ``->``, ``→``, ``:``); what cannot be read is named in a note: a
    piece with no separator, or with two ("Ann=4 Bob=5", a comma missing),
    which is never read as the room "4 Bob=5". Every fact read is returned
    (the text is cut at ``MAX_TEXT`` characters); the explorer uses the
    first N."""
    text = "" if text is None else str(text)
    notes = []
    if len(text) > MAX_TEXT:
        notes.append(f"Read the first {MAX_TEXT:,} characters only.")
        text = text[:MAX_TEXT]
    facts, unread, run_together = [], [], []
    for piece in _SPLIT.split(text):
        if not piece.strip():
            continue
        m = _FACT.match(piece)
        if not m:
            unread.append(piece.strip())
            continue
        if _SEPARATOR.search(m.group(2)):
            run_together.append(piece.strip())
            continue
        facts.append((m.group(1).strip() or "?", m.group(2).strip() or "?"))
    if run_together:
        notes.append(f"Not read: {_quoted(run_together)} "
                     + ("looks" if len(run_together) == 1 else "each look")
                     + " like two facts (a comma missing?); separate facts with "
                     "commas.")
    if unread:
        notes.append(f"Not read: {_quoted(unread)} "
                     + ("is" if len(unread) == 1 else "are") + " not name=room.")
    return facts, notes


def _quoted(pieces, shown=3):
    """The first ``shown`` pieces quoted and drawable, and how many more."""
    text = ", ".join(repr(display_label(u, 16)[0]) for u in pieces[:shown])
    return text + (f" and {len(pieces) - shown} more" if len(pieces) > shown else "")


def fact_labels(texts):
    """{text: a drawable label}, distinct for distinct texts (``display_label``
    draws characters the font lacks as ``?``: 名前 and 日本 would both be
    ``??``; the second becomes ``?? (2)``)."""
    out, seen = {}, {}
    for t in dict.fromkeys(texts):
        label = display_label(t)[0].strip() or "?"
        seen[label] = seen.get(label, 0) + 1
        out[t] = label if seen[label] == 1 else f"{label} ({seen[label]})"
    return out


def filler(used, k, seed):
    """``k`` random readable facts with names not in ``used``."""
    rng = np.random.default_rng(seed)
    names = [n for n in R.NAMES if n not in used]
    order = rng.permutation(len(names))[:k]
    return [(names[i], str(int(r))) for i, r in zip(order, rng.integers(1, 100, k))]


def fact_vectors(labels, seed):
    """One seeded unit vector per distinct label, in order of appearance."""
    distinct = list(dict.fromkeys(labels))
    table = dict(zip(distinct, R.unit_vectors(max(len(distinct), 1), D, seed)))
    return distinct, np.array([table[x] for x in labels]).reshape(len(labels), D), table


def count_of(k, word):
    """``1 name``, ``2 names``."""
    return f"{k} {word}{'' if k == 1 else 's'}"


def spoken_label(text, label):
    """How the text alternative names ``text``: its drawn ``label``, and the
    text as typed when the font drew some of it as ``?`` (a screen reader can
    say an emoji the picture cannot draw)."""
    if "?" not in label or "?" in str(text):
        return label
    return f"{label} (typed {text!r})"


def undrawn_note(texts):
    """``[note]`` when the font draws some of ``texts`` (names and rooms) with
    '?', else ``[]``."""
    undrawn = [t for t in dict.fromkeys(texts) if display_label(t)[1]]
    if not undrawn:
        return []
    many = len(undrawn) > 1
    return [f"{len(undrawn)} name{'s' if many else ''} or "
            f"room{'s are' if many else ' is'} drawn with '?': the font has no "
            "glyph for some characters (often emoji). The facts are stored and "
            "asked as typed."]


def state_words(s) -> str:
    """The grid on the left in words: its shape, its range and its four
    largest numbers by size, each with its row and column."""
    S = np.asarray(s.state, dtype=float)
    if S.ndim != 2 or S.size == 0:
        return ""
    if s.memory_kind == "softmax":
        rows = [str(s._lab[a]) for a in s._names][:S.shape[0]]
        cols = [f"key {j}" for j in range(D)] + [f"value {j}" for j in range(D)]
        what = f"The cache grid: {S.shape[0]} fact rows × {S.shape[1]} columns"
    else:
        rows = [f"key {i}" for i in range(S.shape[0])]
        cols = [f"value {j}" for j in range(S.shape[1])]
        what = (f"The state grid S: {S.shape[0]} key dimension rows × "
                f"{S.shape[1]} value dimension columns")
    return (f"{what}, numbers from {alt_text.number(S.min())} to "
            f"{alt_text.number(S.max())}; largest by size: "
            + alt_text.top_cells(S, rows, cols, k=4, by_size=True) + ".")
