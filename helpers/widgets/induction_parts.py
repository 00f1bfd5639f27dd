"""Parts of lesson 13's explorer (``helpers.widgets.lesson13``): the shared
model, the button's random text, reading typed words, the message about
left-out words and where the previous-token head stops, and the picture's
text alternative. No lesson module is imported here."""

from __future__ import annotations

import string
import unicodedata

import numpy as np

from helpers.figures import alt
from helpers.widgets.kit import display_label, load_or_explain

#: the layer-0 previous-token head looks one back up to about this position
#: and, learned in training (the texts had 64 tokens), no longer past it: a
#: word whose earlier occurrence sits at or after it is not copied
HOLDS = 55
NAMED = 10  # unknown words named in the message
REPEAT, PREFIX = 10, 20  # the button's random text: 20 words, then 10 twice
_STRIP = string.punctuation + "\u201c\u201d\u2018\u2019\u2026\u2013\u2014"

_model = None


def shared_model():
    """``(model, "")`` or ``(None, why)``: ``helpers.analysis.induction.load()``
    once."""
    global _model
    if _model is not None:
        return _model, ""

    def load():
        from helpers.analysis import induction

        return induction.load()

    _model, why = load_or_explain(load, "Lesson 13's model", "safetensors tokenizers")
    return _model, why


def random_text(model, seed: int, length: int = REPEAT, prefix: int = PREFIX) -> str:
    """``prefix`` random words, then ``length`` random words written twice;
    all ``prefix + length`` words different (drawn without replacement)."""
    from helpers.analysis import induction

    ids, _ = induction.repeated_ids(model.vocab_size, length, prefix, seed,
                                    distinct=True)
    return " ".join(model.piece(i) for i in ids[1:])


def normalise(word: str) -> str:
    """How a typed word is looked up: lowercased, punctuation stripped from
    both ends ("Dursley," -> "dursley", "DOG" -> "dog")."""
    return str(word).strip(_STRIP).lower()


def read_words(model, text):
    """Words -> ``(ids, unknown, typed)``: BOS first; each word lowercased
    and stripped of punctuation before lookup; unknown words left out
    (``unknown``: each different one once, as typed); ``typed``: how many
    words were typed."""
    words = str(text).split()
    ids, unknown = [0], []
    for w in words:
        key = normalise(w)
        i = model.tokenizer.token_to_id(key) if key else None
        if i is None or key == "<|endoftext|>" or int(i) == 0:
            if w not in unknown:
                unknown.append(w)
        else:
            ids.append(int(i))
    return np.array(ids, dtype=np.int64), unknown, len(words)


def name_word(word: str) -> str:
    """A word as the message names it: quoted; a character the font lacks
    (an emoji, say) drawn as '?' and named: "'?' (U+1F436 DOG FACE)"."""
    label, replaced = display_label(word)
    if not replaced:
        return repr(label)
    names = [f"U+{ord(ch):04X} {unicodedata.name(ch, 'character')}"
             for ch in dict.fromkeys(str(word)) if display_label(ch)[1]]
    return f"{label!r} ({', '.join(names[:3])})"


def unknown_note(unknown, typed: int, known: int) -> str:
    """The message about the words left out."""
    shown = ", ".join(name_word(w) for w in unknown[:NAMED])
    more = f" and {len(unknown) - NAMED} more" if len(unknown) > NAMED else ""
    k = len(unknown)
    return (f"Left out {k} different unknown word{'s' * (k > 1)} "
            f"({typed} word{'s' * (typed > 1)} typed in all; each is looked up "
            f"lowercased, without punctuation): {shown}{more}. The model knows "
            f"{known} words, listed under the picture.")


def late_copies(ids) -> np.ndarray:
    """The queries whose word's earlier occurrence sits at or after HOLDS,
    where the previous-token head no longer looks one back: ``(k,)``
    positions (empty when none)."""
    from helpers.analysis import induction

    keys = induction.stripe_keys(ids)
    return np.flatnonzero(keys - 1 >= HOLDS)


def late_note(late) -> str:
    return (f"{len(late)} word{'s' * (len(late) > 1)} (queries at positions "
            f"{late[0]}-{late[-1]}) occurred earlier at or after position "
            f"{HOLDS}: there the layer-0 head stops looking one back (learned "
            "in training, not untrained), so the copy fails.")


def describe(s, name) -> str:
    """The explorer picture's text alternative, from its state ``s``."""
    if s.empty:
        return f"{name}: empty. {s.placeholder}."
    la, hd = s._head
    lo, n = s._lo, len(s.run.ids)
    rows = [q for q, k in enumerate(s.stripe) if k >= 0]
    parts = [f"{name}: layer {la} head {hd} on {n} tokens"
             + (f" (pattern of positions {lo}-{n - 1})" if lo else "") + "."]
    if rows:
        w = np.array([s.weights[q, s.stripe[q]] for q in rows])
        tops = [s.weights[q].argmax() == s.stripe[q] for q in rows]
        first, last = rows[0] + lo, rows[-1] + lo
        parts.append(
            f"{len(rows)} query rows (positions {first}-{last}) find their "
            f"word earlier; on the key after that occurrence the head puts "
            f"{alt.number(w.mean())} on average (from {alt.number(w.min())} "
            f"to {alt.number(w.max())}), its largest weight in {sum(tops)} "
            f"of {len(rows)} rows.")
    else:
        parts.append("No word occurs twice: nothing to copy, no frames.")
    loss, cut = np.asarray(s.loss), np.asarray(s.loss_ablated)
    if len(loss) > 1:
        parts.append(f"Mean loss {alt.number(loss[1:].mean())} nats whole, "
                     f"{alt.number(cut[1:].mean())} with the head ablated.")
    if s.top:
        w, p, q = s.top[0]
        parts.append(f"Most likely next word '{display_label(w)[0]}': "
                     f"{alt.number(p)} whole, {alt.number(q)} ablated.")
    if len(s.late):
        last = min(int(s.late[-1]) + 1, len(loss))
        parts.append(f"Shaded: the words predicted at positions {s.late[0] + 1}-"
                     f"{last}, copies of words seen at or after position "
                     f"{HOLDS}, where the previous-token head stops looking one back.")
    return " ".join(parts)
