"""Spelling rules for guessing an unknown word from its form: "tunnels"
looks like the plural of "tunnel", "zorbling" ends in -ing like a verb.
``helpers.lexicon.Lexicon.guess`` applies them to the table."""

from __future__ import annotations


def _stems(*makers):
    """A function stem -> candidate base words, from simple spelling rules."""
    def candidates(stem):
        out = []
        for make in makers:
            base = make(stem)
            if base and base not in out:
                out.append(base)
        return out
    return candidates


def _same(stem):
    return stem


def _plus_e(stem):
    return stem + "e"


def _undouble(stem):  # stopped -> stop, bigger -> big
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "aeiou":
        return stem[:-1]
    return None


def _plus_y(stem):
    return stem + "y"


def _es_stem(stem):  # boxes -> box, watches -> watch, goes -> go
    return stem if stem.endswith(("s", "x", "z", "ch", "sh", "o")) else None


_NOUN_VERB = ("noun", "verb")

_VERB_NOUN = ("verb", "noun")

#: (ending, shortest stem, base spellings, base pos allowed, guessed pos
#:  (None: the base's own), how to say it). The first rule that finds a
#:  known base wins.
_FORM_RULES = (
    ("ies", 2, _stems(_plus_y), _NOUN_VERB, None, "plural or -s form"),
    ("s", 3, _stems(_same), _NOUN_VERB, None, "plural or -s form"),
    ("es", 2, _stems(_es_stem), _NOUN_VERB, None, "plural or -s form"),
    ("ied", 2, _stems(_plus_y), ("verb",), "verb", "past form"),
    ("ed", 3, _stems(_plus_e, _same, _undouble), _VERB_NOUN, "verb",
     "past form"),
    ("ing", 2, _stems(_plus_e, _same, _undouble), _VERB_NOUN, "verb",
     "-ing form"),
    ("ily", 2, _stems(_plus_y), ("adjective",), "adverb", "adverb"),
    ("ly", 3, _stems(_same, _plus_e), ("adjective",), "adverb", "adverb"),
    ("ier", 2, _stems(_plus_y), ("adjective",), "adjective", "comparative"),
    ("iest", 2, _stems(_plus_y), ("adjective",), "adjective", "superlative"),
    ("er", 2, _stems(_same, _plus_e, _undouble), ("adjective",), "adjective",
     "comparative"),
    ("est", 2, _stems(_same, _plus_e, _undouble), ("adjective",), "adjective",
     "superlative"),
    ("er", 2, _stems(_same, _plus_e, _undouble), ("verb",), "noun",
     "someone or something that does"),
    ("ness", 3, _stems(_same, _plus_y), ("adjective",), "noun", "noun"),
    ("ment", 3, _stems(_same), ("verb",), "noun", "noun"),
    ("ation", 2, _stems(_same, _plus_e), ("verb",), "noun", "noun"),
    ("ion", 2, _stems(_same, _plus_e), ("verb",), "noun", "noun"),
)

#: Endings that hint at a part of speech even when no base word is known.
_ENDING_POS = (
    ("ly", "adverb"), ("ing", "verb"), ("ed", "verb"), ("ness", "noun"),
    ("tion", "noun"), ("ment", "noun"), ("est", "adjective"),
    ("ous", "adjective"), ("ful", "adjective"), ("less", "adjective"),
)
