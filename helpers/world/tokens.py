"""Cutting text into tokens (the rules are in ``helpers.world.lexicon``'s docstring)."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["tokenize"]

_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")

_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+(?:'[^\W_]+)*|\S")

_PLAIN_WORD_RE = re.compile(r"[a-z]+")


def tokenize(text: str) -> list[str]:
    """Cut ``text`` into lowercase tokens (rules in ``helpers.world.lexicon``'s
    docstring).

    >>> tokenize("Therefore, the murderer was")
    ['therefore', 'the', 'murderer', 'was']
    >>> tokenize("It's 3.5 km to Anna's cafe!")
    ['it', "'s", '3.5', 'km', 'to', 'anna', "'s", 'cafe']
    """
    if not isinstance(text, str):
        raise TypeError(f"tokenize needs a string, got {type(text).__name__}")
    text = unicodedata.normalize("NFC", text).lower()
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    tokens: list[str] = []
    for piece in _TOKEN_RE.findall(text):
        if len(piece) == 1 and unicodedata.category(piece).startswith("P"):
            continue  # punctuation is not a word
        if len(piece) > 2 and piece.endswith("'s"):
            tokens.extend([piece[:-2], "'s"])
        else:
            tokens.append(piece)
    return tokens


def _is_number(token: str) -> bool:
    return _NUMBER_RE.fullmatch(token) is not None


def _is_token_form(word: str) -> bool:
    if _PLAIN_WORD_RE.fullmatch(word):  # fast path: most of the table
        return True
    return word == "'s" or tokenize(word) == [word]
