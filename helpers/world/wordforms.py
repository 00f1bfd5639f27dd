"""Guessing an unknown word from its form: "tunnels" looks like the plural of
"tunnel", "blew" is listed as a form of "blow", "violinist" is "violin" +
-ist, "doorbell" is "door" + "bell", and "zorbling" at least ends in -ing
like a verb. ``helpers.world.lexicon.Lexicon.guess`` applies these rules to the
table through ``guess_form``.

The stages, in order (the first that finds a known base word wins):

1. endings of inflection (``_FORM_RULES``): plurals, -ed, -ing, -ly, -er,
   -est, -ness, -ment, -ion;
2. irregular forms from WordNet's exception lists ("blew" -> "blow",
   "geese" -> "goose", ``data/irregular_forms.csv``), and a word written
   with accents that the table knows without them ("café" -> "cafe");
3. derivations (``_DERIVATIONS``, ``_PREFIXES``): -ist, -less, -ful, un-,
   re-, ...;
4. compounds of two known words ("doorbell" = "door" + "bell"; the last
   part gives the part of speech);
5. stages 1 and 3 (suffixes only) once more, now with a base that is
   itself a new word made from a known one ("weightlessly" = adverb of
   "weightless" = "weight" + -less; "doorbells" = plural of "doorbell");
6. an ending alone (``_ENDING_POS``): a part of speech, no fields, no base.

A guess never claims more than its rule: it says which rule and which known
word it used (``why``), and the word keeps its ``unknown`` flag.
"""

from __future__ import annotations

import unicodedata


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


def _i_to_y(stem):  # beautiful -> beauty, reliable -> rely
    return stem[:-1] + "y" if stem.endswith("i") else None


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
    ("ness", 3, _stems(_same, _plus_y, _i_to_y), ("adjective",), "noun",
     "noun"),
    ("ment", 3, _stems(_same), ("verb",), "noun", "noun"),
    ("ation", 2, _stems(_same, _plus_e), ("verb",), "noun", "noun"),
    ("ion", 2, _stems(_same, _plus_e), ("verb",), "noun", "noun"),
)

_ADJ = ("adjective",)

#: Suffixes that make a new word: (ending, shortest stem, base spellings,
#: base pos allowed, guessed pos, what the suffix means, extra field).
_DERIVATIONS = (
    ("ist", 3, _stems(_same, _plus_e, _plus_y), _NOUN_VERB, "noun",
     "a person", "person"),
    ("ian", 4, _stems(_same, _plus_y, _plus_e), ("noun",), "noun",
     "a person", "person"),
    ("less", 3, _stems(_same), _NOUN_VERB, "adjective", "without it", None),
    ("ful", 3, _stems(_same, _i_to_y), _NOUN_VERB, "adjective",
     "full of it", None),
    ("ous", 4, _stems(_same), ("noun",), "adjective", "full of it", None),
    ("able", 3, _stems(_same, _plus_e, _undouble, _i_to_y), _VERB_NOUN,
     "adjective", "can be done", None),
    ("ish", 3, _stems(_same, _undouble, _plus_e), _ADJ + ("noun",),
     "adjective", "rather like it", None),
    ("y", 4, _stems(_same, _undouble, _plus_e), _NOUN_VERB, "adjective",
     "like it, or full of it", None),
    ("al", 4, _stems(_same), ("noun",), "adjective", "to do with it", None),
    ("al", 4, _stems(_plus_e), ("verb",), "noun", "the act of it", None),
    ("ity", 3, _stems(_same, _plus_e), _ADJ, "noun", "being so", None),
    ("ize", 3, _stems(_same, _plus_y), _ADJ + ("noun",), "verb",
     "to make it so", None),
    ("ise", 3, _stems(_same, _plus_y), _ADJ + ("noun",), "verb",
     "to make it so", None),
    ("en", 3, _stems(_same, _plus_e, _undouble), _ADJ, "verb",
     "to make it so", None),
    ("hood", 3, _stems(_same), ("noun",), "noun", "the state of being it",
     None),
    ("ship", 3, _stems(_same), ("noun",), "noun", "the state of being it",
     None),
    ("dom", 3, _stems(_same), _ADJ + ("noun",), "noun",
     "the state of being it", None),
    ("ism", 3, _stems(_same, _plus_e), _ADJ + ("noun",), "noun",
     "a belief or habit", None),
    ("let", 3, _stems(_same), ("noun",), "noun", "a small one", None),
    ("er", 3, _stems(_same, _plus_e), ("noun",), "noun",
     "a person or thing to do with it", None),
)

#: Prefixes: (prefix, shortest rest, base pos allowed, what it means). The
#: word keeps the base's part of speech and fields.
_PREFIXES = (
    ("un", 3, ("adjective", "verb", "adverb"), "not, or undo"),
    ("re", 4, ("verb",), "again"),
    ("dis", 4, ("verb", "adjective"), "not, or undo"),
    ("mis", 4, _VERB_NOUN, "wrongly"),
    ("pre", 4, ("verb",), "before"),
    ("non", 3, ("adjective", "noun"), "not"),
    ("over", 3, ("verb", "adjective"), "too much, or over"),
    ("under", 3, ("verb", "adjective", "noun"), "too little, or below"),
    ("out", 3, ("verb",), "more than, or outside"),
)

#: Parts of speech a part of a compound may have ("door", "bell", "out").
_COMPOUND_HEADS = ("noun", "verb", "adjective")
_COMPOUND_FIRSTS = _COMPOUND_HEADS + ("adverb", "preposition")

#: How the irregular forms of each part of speech are described.
_IRREGULAR_WHY = {
    "verb": "irregular verb form",
    "noun": "irregular plural",
    "adjective": "irregular comparative or superlative",
    "adverb": "irregular comparative or superlative",
}

#: Endings that hint at a part of speech even when no base word is known.
_ENDING_POS = (
    ("ly", "adverb"), ("ing", "verb"), ("ed", "verb"), ("ness", "noun"),
    ("tion", "noun"), ("ment", "noun"), ("est", "adjective"),
    ("ous", "adjective"), ("ful", "adjective"), ("less", "adjective"),
)


def _article(pos: str) -> str:
    return "an" if pos[0] in "aeiou" else "a"


def _result(word, pos, fields, base, why):
    fields = dict(fields)
    fields.pop("ambiguous", None)
    return {"word": word, "pos": pos, "fields": fields, "base": base,
            "why": why}


#: The rules of ``_FORM_RULES`` that inflect (the rest make a new word,
#: like -ness, so they may sit under an inflection: "derivations").
_INFLECTING = ("plural or -s form", "past form", "-ing form", "comparative",
               "superlative")


def _inflections(word, known, inflecting=True):
    """Stage 1 (and 5): ``_FORM_RULES`` with bases that ``known`` gives;
    ``inflecting=False`` uses only the rules that make a new word."""
    for ending, min_stem, stems, wants, pos, why in _FORM_RULES:
        if not word.endswith(ending) or len(word) - len(ending) < min_stem:
            continue
        if not inflecting and why in _INFLECTING:
            continue
        infos = [(b, known(b)) for b in stems(word[: len(word) - len(ending)])]
        infos = [(b, i) for b, i in infos if i is not None]
        for want in wants:  # e.g. a verb base before a noun base
            for base, info in infos:
                if info["pos"] == want:
                    return _result(word, pos or want, info["fields"],
                                   info.get("root", base),
                                   f"{why} of {base!r}{info['note']}")
    return None


def _irregular(word, known, irregular):
    """Stage 2: a listed irregular form, or the word without its accents."""
    for base, pos in irregular.get(word, ()):
        info = known(base)
        if info is not None:
            return _result(word, pos, info["fields"], base,
                           f"{_IRREGULAR_WHY[pos]} of {base!r}")
    plain = "".join(c for c in unicodedata.normalize("NFD", word)
                    if not unicodedata.combining(c))
    plain = unicodedata.normalize("NFC", plain)
    info = known(plain) if plain != word else None
    if info is not None:
        return _result(word, info["pos"], info["fields"], plain,
                       f"{plain!r} written with accents")
    return None


def _inflected(word, known):
    """Whether ``word`` is a plural, past, -ing, ... form of a known word."""
    for ending, min_stem, stems, wants, _, why in _FORM_RULES:
        if (why in _INFLECTING and word.endswith(ending)
                and len(word) - len(ending) >= min_stem):
            for base in stems(word[: len(word) - len(ending)]):
                info = known(base) if base != word else None
                if info is not None and info["pos"] in wants:
                    return True
    return False


def _derivations(word, known, prefixes=True, suffix_y=True):
    """Stage 3 (and 5, suffixes only): a known base plus a suffix or prefix.
    ``suffix_y=False`` skips -y (a guessed base "fluidy" is no word)."""
    for ending, min_stem, stems, wants, pos, means, extra in _DERIVATIONS:
        if not word.endswith(ending) or len(word) - len(ending) < min_stem:
            continue
        if ending == "y" and not suffix_y:
            continue
        for base in stems(word[: len(word) - len(ending)]):
            info = known(base)
            if (info is not None and info["pos"] in wants
                    and not _inflected(base, known)):  # not "fonts" + -ize
                fields = dict(info["fields"])
                if extra:
                    fields[extra] = 1.0
                return _result(word, pos, fields, info.get("root", base),
                               f"{base!r} + -{ending}: {means}{info['note']}")
    for prefix, min_rest, wants, means in _PREFIXES if prefixes else ():
        rest = word[len(prefix):]
        if not word.startswith(prefix) or len(rest) < min_rest:
            continue
        info = known(rest)
        if info is not None and info["pos"] in wants:
            return _result(word, info["pos"], info["fields"], rest,
                           f"{prefix}- + {rest!r}: {means}{info['note']}")
    return None


def _compound(word, known):
    """Stage 4: two known words; the last gives the pos, the first adds its
    fields at half weight. The most even split wins. A part must be 3+
    letters (3 only for a noun or adjective: not "are", "ate"), not one of
    the table's least curated rows (``"rare"``), and the first part must
    not itself be an inflected form ("nets", "links"), nor the last
    ("doorbells" is the plural of "door" + "bell", stage 5)."""
    best = None
    for cut in range(3, len(word) - 2):
        first, head = word[:cut], word[cut:]
        a, b = known(first), known(head)
        if (a is None or b is None or a.get("rare") or b.get("rare")
                or a["pos"] not in _COMPOUND_FIRSTS
                or b["pos"] not in _COMPOUND_HEADS):
            continue
        if any(len(w) == 3 and i["pos"] not in ("noun", "adjective")
               for w, i in ((first, a), (head, b))):
            continue
        if _inflected(first, known) or _inflected(head, known):
            continue
        score = (min(len(first), len(head)), len(head))
        if best is None or score > best[0]:
            best = (score, first, head, a, b)
    if best is None:
        return None
    _, first, head, a, b = best
    fields = dict(b["fields"])
    for name, w in a["fields"].items():
        fields[name] = max(fields.get(name, 0.0), w / 2)
    return _result(word, b["pos"], fields, head,
                   f"compound of {first!r} + {head!r}")


def guess_form(word: str, known, irregular=None):
    """The best guess for the unknown ``word``, or None.

    ``known(w)`` gives ``{"pos", "fields": {field: weight}}`` for a word in
    the table (None otherwise); ``irregular`` maps a form to
    ``[(base, pos), ...]`` (``data/irregular_forms.csv``). Returns
    ``{"word", "pos", "fields", "base", "why"}``: ``base`` is the known word
    the guess rests on (None if only the ending told), ``why`` a short
    phrase for a learner, such as ``"plural or -s form of 'tunnel'"``.
    """
    irregular = irregular or {}

    def table(w):
        info = known(w)
        return None if info is None else {**info, "note": ""}

    found = (_inflections(word, table) or _irregular(word, table, irregular)
             or _derivations(word, table) or _compound(word, table))
    if found:
        return found

    def guessed(w):
        """A table word, or a new word that stages 1, 3 and 4 explain: not
        an inflected form (no "pars" in "parsed"), no prefix ("rehears" is
        not re- + "hears"), no -y ("fluidy" in "fluidness")."""
        if w == word:
            return None
        info = table(w)
        if info is not None:
            return info
        g = (_inflections(w, table, False)
             or _derivations(w, table, False, False)
             or (compounds and _compound(w, table)))
        if not g or (g["why"].startswith("compound")
                     and g["pos"] not in _NOUN_VERB):
            return None
        return {"pos": g["pos"], "fields": g["fields"], "root": g["base"],
                "note": f" ({g['why']})"}

    compounds = True  # "potholed": past form of the compound "pothole"
    found = _inflections(word, guessed)
    compounds = False  # but not "barbary" = "barbar" + -y
    found = found or _derivations(word, guessed, False)
    if found:  # its "base" is the known word at the root of the chain
        return found
    for ending, pos in _ENDING_POS:
        if word.endswith(ending) and len(word) >= len(ending) + 3:
            return {"word": word, "pos": pos, "fields": {}, "base": None,
                    "why": f"ends in -{ending}, like {_article(pos)} {pos}"}
    return None
