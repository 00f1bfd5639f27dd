"""The named columns of a word vector, and vectors made from them.

``FEATURES`` = parts of speech (one-hot), semantic fields (weights in
(0, 1]), ``french`` and ``unknown``; ``D_MODEL`` adds the ``N_POS_DIMS``
positional columns of ``helpers.world.positions``. ``make_vector`` builds the
feature vector of a word from its part of speech and fields (the rules are
in ``helpers.world.lexicon``'s docstring).
"""

from __future__ import annotations

import numpy as np

from helpers.world.positions import N_POS_DIMS

__all__ = [
    "POS_TAGS",
    "FIELDS",
    "FEATURES",
    "D_MODEL",
    "LexiconError",
    "feature_names",
    "make_vector",
]


class LexiconError(ValueError):
    """A lexicon file is missing or wrong, or a word cannot be added."""


#: Parts of speech: exactly one per word, a one-hot block.
POS_TAGS: tuple[str, ...] = (
    "noun",
    "verb",
    "adjective",
    "adverb",
    "determiner",
    "pronoun",
    "preposition",
    "conjunction",
    "number",
    "interjection",
)

#: Semantic fields a word may belong to (any number, weight 0 < w <= 1).
FIELDS: tuple[str, ...] = (
    "person",  # people and roles: man, teacher, friend
    "family",  # mother, brother, grandparents
    "animal",
    "body",  # body and medicine: hand, skin, doctor, biopsy
    "food",  # food and drink, meals, cooking
    "colour",
    "texture",  # how a thing feels: fluffy, soft, rough
    "size",
    "emotion",  # feelings: happy, love, afraid
    "time",  # days, hours, seasons, early, late
    "place",  # places in general: place, country, here
    "town",  # the built world: road, street, shop, car
    "nature",  # the natural world: forest, tree, hill, verdant
    "water",  # rivers, sea, rain, swimming
    "weather",
    "motion",  # going and moving: walk, drive, swim, across
    "money",  # money and finance: pay, cash, price
    "crime",
    "chemistry",  # chemistry and science: carbon, gas, atom
    "home",  # house, rooms, furniture
    "work",  # work and school: office, teacher, homework
    "play",  # sport, games, music, fun
    "speech",  # talking and messages: say, phone, story
    "ambiguous",  # a word with several unrelated meanings
)

#: All named feature dimensions, in column order.
FEATURES: tuple[str, ...] = POS_TAGS + FIELDS + ("french", "unknown")

#: Width of an embedding row of ``E``.
D_MODEL: int = len(FEATURES) + N_POS_DIMS

LANGUAGES = ("en", "fr")

_FEATURE_INDEX = {name: i for i, name in enumerate(FEATURES)}


def feature_names() -> list[str]:
    """All ``D_MODEL`` column names of ``E``: FEATURES then ``pos_0 ...``."""
    return list(FEATURES) + [f"pos_{k}" for k in range(N_POS_DIMS)]


def _parse_fields(fields) -> dict[str, float]:
    """Fields as a dict ``{name: weight}`` from "a;b:0.5", a list or a dict."""
    if fields is None:
        return {}
    if isinstance(fields, str):
        items = []
        for part in fields.split(";"):
            part = part.strip()
            if not part:
                continue
            name, _, weight = part.partition(":")
            items.append((name.strip(), weight.strip() or "1"))
    elif isinstance(fields, dict):
        items = list(fields.items())
    else:
        items = [(name, 1.0) for name in fields]
    out: dict[str, float] = {}
    for name, weight in items:
        if name not in FIELDS:
            raise LexiconError(
                f"unknown field {name!r}; the fields are: {', '.join(FIELDS)}"
            )
        try:
            w = float(weight)
        except (TypeError, ValueError):
            raise LexiconError(
                f"field {name!r} has weight {weight!r}, which is not a number"
            ) from None
        if not 0 < w <= 1:
            raise LexiconError(
                f"field {name!r} has weight {w}; weights must be in (0, 1]"
            )
        if name in out:
            raise LexiconError(f"field {name!r} is listed twice")
        out[name] = w
    return out


def _fields_text(fields) -> str:
    parsed = _parse_fields(fields)
    return ";".join(n if w == 1 else f"{n}:{w:g}" for n, w in parsed.items())


def make_vector(pos: str, fields=None, language: str = "en") -> np.ndarray:
    """The feature vector ``(len(FEATURES),)`` of a word with these features.

    ``pos`` is one of ``POS_TAGS`` (weight 1.0); ``fields`` is a string like
    ``"animal;texture:0.5"``, a list of field names (weight 1.0 each) or a
    dict ``{field: weight}``; ``language="fr"`` sets the ``french`` flag.
    """
    if pos not in POS_TAGS:
        raise LexiconError(
            f"unknown part of speech {pos!r}; use one of: {', '.join(POS_TAGS)}"
        )
    if language not in LANGUAGES:
        raise LexiconError(
            f"unknown language {language!r}; use one of: {', '.join(LANGUAGES)}"
        )
    vec = np.zeros(len(FEATURES))
    vec[_FEATURE_INDEX[pos]] = 1.0
    for name, w in _parse_fields(fields).items():
        vec[_FEATURE_INDEX[name]] = w
    if language == "fr":
        vec[_FEATURE_INDEX["french"]] = 1.0
    return vec


#: The fallback vector of a word that is not in the table.
UNKNOWN_VECTOR = np.zeros(len(FEATURES))
UNKNOWN_VECTOR[_FEATURE_INDEX["unknown"]] = 1.0
UNKNOWN_VECTOR.setflags(write=False)

#: The vector of any digit token ("3", "2024", "3.5").
NUMBER_VECTOR = make_vector("number")
NUMBER_VECTOR.setflags(write=False)
