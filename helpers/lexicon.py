"""The toy world: tokens, a readable embedding table, and positions.

Real models learn embeddings with thousands of unnamed dimensions. Here every
dimension has a *name* you can read, so you can see what attention does to a
vector. The table lives in ``data/lexicon.csv`` (one word per line, see
``data/README.md``).

The embedding dimensions
------------------------
``FEATURES`` names the columns of a word vector (``len(FEATURES)`` of them):

* part of speech, one-hot: ``noun``, ``verb``, ``adjective``, ...
  (a word has exactly one, weight 1.0);
* semantic fields: ``animal``, ``colour``, ``money``, ``water``, ...
  (weight 1.0, or a smaller weight such as ``0.5`` written ``water:0.5`` in
  the CSV). The field ``ambiguous`` marks words with several meanings
  ("bank", "mole"): their vector mixes the fields of all their senses;
* ``french``: 1.0 for French words (the cross-attention lesson);
* ``unknown``: 1.0 for a word that is not in the table (see below).

``E`` (one row per token) has ``D_MODEL = len(FEATURES) + N_POS_DIMS``
columns: the features, then the positional columns ``pos_0 ... pos_7``.

Tokens
------
``tokenize`` lowercases the text and cuts it into tokens:

* a word is a run of letters and digits; an apostrophe *inside* a word keeps
  it together ("don't", "o'clock"), except a final ``'s`` which becomes its
  own token ("it's" -> "it", "'s"; "dog's" -> "dog", "'s");
  curly apostrophes count as straight ones;
* a number with a decimal point or comma stays one token ("3.5", "1,000");
  every digit-only token is a known number (no need to list it);
* punctuation (. , ; : ! ? " ( ) - _ and other Unicode punctuation) is
  dropped: it is not a word. Hyphens therefore split words ("ice-cream" ->
  "ice", "cream");
* anything else that is not a space (an emoji, "$", "+") is kept as a token
  of its own, and so are words in other scripts. They are never dropped: if
  the table does not know them they are reported as unknown.

Unknown words
-------------
A token that is not in the table keeps 1.0 on the ``unknown`` feature, so
it always stays visibly a guess. If its *form* gives it away, the rest of
the row is a best guess (``guess_word``): "tunnels" looks like the plural
of a known noun and borrows its fields, "zorbling" ends in -ing and gets
``verb``, "quickly"-like words get ``adverb``. A token with no telling form
gets the plain fallback (1.0 on ``unknown``, 0 elsewhere). ``lookup`` and
``embed`` return the list of unknown words (guessed or not) so that a
notebook can say which ones they were; ``guess_word`` says what was guessed.
``add_word`` teaches the table a new word (in memory only).

Positions
---------
See ``positional_encoding``: ``N_POS_DIMS`` columns of sines and cosines that
tell a head *where* a token is, so that a head can "look at the previous
token". ``embed(..., positions=False)`` leaves those columns at zero.
"""

from __future__ import annotations

import csv
import re
import unicodedata
from collections import namedtuple
from pathlib import Path

import numpy as np

__all__ = [
    "POS_TAGS",
    "FIELDS",
    "FEATURES",
    "N_POS_DIMS",
    "POS_PERIODS",
    "POS_AMPLITUDE",
    "D_MODEL",
    "DEFAULT_PATH",
    "LexiconError",
    "Lexicon",
    "Embedded",
    "feature_names",
    "tokenize",
    "load_lexicon",
    "make_vector",
    "lookup",
    "embed",
    "positional_encoding",
    "add_word",
    "ambiguous_words",
    "guess_word",
    "cosine",
    "nearest_words",
    "top_features",
]

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

#: Periods (in tokens) of the sine/cosine pairs of the positional encoding.
POS_PERIODS: tuple[int, ...] = (4, 7, 16, 200)
#: Height of every positional sine and cosine.
POS_AMPLITUDE: float = 0.5
#: Number of positional columns appended after FEATURES (a sin and a cos per period).
N_POS_DIMS: int = 2 * len(POS_PERIODS)
#: Width of an embedding row of ``E``.
D_MODEL: int = len(FEATURES) + N_POS_DIMS

#: Where the table lives (``data/lexicon.csv`` next to ``helpers/``).
DEFAULT_PATH = Path(__file__).resolve().parent.parent / "data" / "lexicon.csv"

LANGUAGES = ("en", "fr")
REQUIRED_COLUMNS = ("word", "language", "pos", "fields")

_FEATURE_INDEX = {name: i for i, name in enumerate(FEATURES)}
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+(?:'[^\W_]+)*|\S")


class LexiconError(ValueError):
    """A lexicon file is missing or wrong, or a word cannot be added."""


Embedded = namedtuple("Embedded", ["tokens", "E", "unknown"])
Embedded.__doc__ = """Result of ``embed``.

tokens : list[str]       the tokens, one per row of E
E : (n_tokens, D_MODEL)  feature columns then positional columns
unknown : list[str]      tokens not in the table (each listed once)
"""


def feature_names() -> list[str]:
    """All ``D_MODEL`` column names of ``E``: FEATURES then ``pos_0 ...``."""
    return list(FEATURES) + [f"pos_{k}" for k in range(N_POS_DIMS)]


# --------------------------------------------------------------------------
# tokens
# --------------------------------------------------------------------------
def tokenize(text: str) -> list[str]:
    """Cut ``text`` into lowercase tokens (rules in the module docstring).

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


# --------------------------------------------------------------------------
# vectors from features
# --------------------------------------------------------------------------
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


# --------------------------------------------------------------------------
# guessing an unknown word from its form
# --------------------------------------------------------------------------
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


# --------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------
class Lexicon:
    """The embedding table: one named feature vector per word.

    Attributes
    ----------
    words : list[str]                  the words, in file order
    vectors : (n_words, len(FEATURES)) row ``k`` is the vector of ``words[k]``
    path : Path or None                the file it was read from

    ``word in lexicon`` is True for listed words and for digit tokens;
    ``lexicon.info(word)`` gives its pos, fields, language and gloss;
    ``lexicon.vector(word)`` its vector (the fallback if unknown).
    """

    def __init__(self, entries=(), path=None):
        self.path = Path(path) if path is not None else None
        self.words: list[str] = []
        self._info: dict[str, dict] = {}
        self._index: dict[str, int] = {}
        rows = []
        for entry in entries:
            word = entry["word"]
            vec = _table_vector(entry["pos"], entry["fields"], entry["language"])
            self._index[word] = len(self.words)
            self.words.append(word)
            self._info[word] = dict(entry)
            rows.append(vec)
        self.vectors = (
            np.array(rows) if rows else np.zeros((0, len(FEATURES)))
        )

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word) -> bool:
        return isinstance(word, str) and (word in self._index or _is_number(word))

    def __repr__(self) -> str:
        where = f" from {self.path}" if self.path else ""
        return f"<Lexicon of {len(self)} words{where}>"

    def info(self, word: str) -> dict:
        """``{"word", "language", "pos", "fields": {field: weight}, "gloss"}``."""
        if word in self._index:
            out = dict(self._info[word])
            out["fields"] = _parse_fields(out["fields"])
            return out
        if _is_number(word):
            return {"word": word, "language": "en", "pos": "number",
                    "fields": {}, "gloss": "a number written in digits"}
        raise KeyError(f"{word!r} is not in the lexicon")

    def vector(self, word: str) -> np.ndarray:
        """Feature vector ``(len(FEATURES),)``.

        An unknown word gets 1.0 on ``unknown`` plus the best guess from its
        form (see ``guess``), or only the ``unknown`` 1.0 if nothing fits.
        """
        if word in self._index:
            return self.vectors[self._index[word]].copy()
        if _is_number(word):
            return NUMBER_VECTOR.copy()
        guess = self.guess(word)
        if guess is None:
            return UNKNOWN_VECTOR.copy()
        vec = make_vector(guess["pos"], guess["fields"])
        vec[_FEATURE_INDEX["unknown"]] = 1.0
        return vec

    def guess(self, word: str):
        """A best guess for an unknown word from its ending, or None.

        Returns ``{"word", "pos", "fields", "base", "why"}``: ``base`` is the
        known word it seems to come from (None if only the ending told),
        ``why`` a short phrase such as ``"plural of 'tunnel'"``. Known words
        and numbers return None (nothing to guess).
        """
        if not isinstance(word, str) or word in self:
            return None
        for ending, min_stem, stems, wants, pos, why in _FORM_RULES:
            if not word.endswith(ending) or len(word) - len(ending) < min_stem:
                continue
            stem = word[: len(word) - len(ending)]
            bases = [b for b in stems(stem) if b in self._index]
            for want in wants:  # e.g. a verb base before a noun base
                for base in bases:
                    if self._info[base]["pos"] != want:
                        continue
                    fields = _parse_fields(self._info[base]["fields"])
                    fields.pop("ambiguous", None)
                    return {"word": word, "pos": pos or want,
                            "fields": fields, "base": base,
                            "why": f"{why} of {base!r}"}
        for ending, pos in _ENDING_POS:
            if word.endswith(ending) and len(word) >= len(ending) + 3:
                return {"word": word, "pos": pos, "fields": {}, "base": None,
                        "why": f"ends in -{ending}, like a {pos}"}
        return None

    def add(self, word, pos, fields=(), language="en", gloss="",
            replace=False) -> np.ndarray:
        """Add (or with ``replace=True`` overwrite) a word; return its vector."""
        if not isinstance(word, str):
            raise LexiconError(f"a word must be a string, got {word!r}")
        word = unicodedata.normalize("NFC", word.strip().lower())
        if not _is_token_form(word):
            raise LexiconError(
                f"{word!r} is not a single token (tokenize gives "
                f"{tokenize(word)}), so no sentence could ever use it"
            )
        vec = make_vector(pos, fields, language)
        entry = {"word": word, "language": language, "pos": pos,
                 "fields": _fields_text(fields), "gloss": gloss}
        if word in self._index:
            if not replace:
                raise LexiconError(
                    f"{word!r} is already in the lexicon; pass replace=True "
                    "to change it"
                )
            self.vectors[self._index[word]] = vec
        else:
            self._index[word] = len(self.words)
            self.words.append(word)
            self.vectors = np.vstack([self.vectors, vec[None, :]])
        self._info[word] = entry
        return vec.copy()


def _fields_text(fields) -> str:
    parsed = _parse_fields(fields)
    return ";".join(n if w == 1 else f"{n}:{w:g}" for n, w in parsed.items())


_PLAIN_WORD_RE = re.compile(r"[a-z]+")


def _is_token_form(word: str) -> bool:
    if _PLAIN_WORD_RE.fullmatch(word):  # fast path: most of the table
        return True
    return word == "'s" or tokenize(word) == [word]


_VECTOR_CACHE: dict[tuple[str, str, str], np.ndarray] = {}


def _table_vector(pos: str, fields: str, language: str) -> np.ndarray:
    """``make_vector`` for a table row, memoised (many rows share features)."""
    if not isinstance(fields, str):
        return make_vector(pos, fields, language)
    key = (pos, fields, language)
    if key not in _VECTOR_CACHE:
        vec = make_vector(pos, fields, language)
        vec.setflags(write=False)
        _VECTOR_CACHE[key] = vec
    return _VECTOR_CACHE[key]


def _read_entries(path: Path) -> list[dict]:
    """Read and validate the CSV; every problem names the file and line."""
    if not path.exists():
        raise LexiconError(f"lexicon file not found: {path}")
    if not path.is_file():
        raise LexiconError(f"lexicon path is not a file: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise LexiconError(f"{path}: not UTF-8 text ({exc})") from None
    # Blank lines and lines starting with '#' are comments (the file groups
    # words under headings); keep the line numbers for error messages.
    numbered = [
        (n, line)
        for n, line in enumerate(text.splitlines(), start=1)
        if line.strip() and not line.lstrip().startswith("#")
    ]
    if not numbered:
        raise LexiconError(f"{path}: the file is empty (no header, no words)")
    reader = csv.reader([line for _, line in numbered])
    rows = list(reader)
    header = [h.strip() for h in rows[0]]
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise LexiconError(
            f"{path}, line {numbered[0][0]}: header {header} lacks the "
            f"column(s) {missing}; needed: {list(REQUIRED_COLUMNS)} (+ gloss)"
        )
    col = {name: header.index(name) for name in header}
    entries = []
    seen: dict[str, int] = {}
    for (lineno, _), row in zip(numbered[1:], rows[1:]):
        where = f"{path}, line {lineno}"
        if len(row) != len(header):
            raise LexiconError(
                f"{where}: expected {len(header)} values ({', '.join(header)}), "
                f"found {len(row)}: {row}"
            )
        entry = {
            "word": row[col["word"]].strip(),
            "language": row[col["language"]].strip(),
            "pos": row[col["pos"]].strip(),
            "fields": row[col["fields"]].strip(),
            "gloss": row[col["gloss"]].strip() if "gloss" in col else "",
        }
        word = entry["word"]
        if not word:
            raise LexiconError(f"{where}: empty word")
        if word != unicodedata.normalize("NFC", word.lower()):
            raise LexiconError(f"{where}: word {word!r} must be lowercase")
        if not _is_token_form(word):
            raise LexiconError(
                f"{where}: {word!r} is not one token (tokenize gives "
                f"{tokenize(word)})"
            )
        if word in seen:
            raise LexiconError(
                f"{where}: duplicate word {word!r} (first on line {seen[word]})"
            )
        try:
            _table_vector(entry["pos"], entry["fields"], entry["language"])
        except LexiconError as exc:
            raise LexiconError(f"{where} ({word!r}): {exc}") from None
        seen[word] = lineno
        entries.append(entry)
    if not entries:
        raise LexiconError(f"{path}: a header but no words")
    return entries


_DEFAULT: Lexicon | None = None


def load_lexicon(path=None, *, fresh: bool = False) -> Lexicon:
    """Read the table from ``path`` (default ``data/lexicon.csv``).

    The default table is read once and then shared (so a word added with
    ``add_word`` is seen everywhere); ``fresh=True`` re-reads it from disk
    and forgets added words. A missing or broken file raises
    ``LexiconError`` naming the file, the line and what is wrong.
    """
    global _DEFAULT
    if path is None:
        if _DEFAULT is None or fresh:
            _DEFAULT = Lexicon(_read_entries(DEFAULT_PATH), DEFAULT_PATH)
        return _DEFAULT
    path = Path(path)
    return Lexicon(_read_entries(path), path)


def _lex(lexicon) -> Lexicon:
    return load_lexicon() if lexicon is None else lexicon


def lookup(tokens, lexicon=None):
    """Look tokens up in the table.

    Parameters
    ----------
    tokens : list[str]   already tokenized (see ``tokenize``)

    Returns
    -------
    vectors : (n_tokens, len(FEATURES))  one row per token, never fewer:
        an unknown token gets 1.0 on ``unknown`` plus the guess from its
        form, if any (see ``guess_word``)
    unknown : list[str]  the unknown tokens (guessed or not), each once, in
        order of appearance
    """
    lex = _lex(lexicon)
    tokens = list(tokens)
    vectors = np.zeros((len(tokens), len(FEATURES)))
    unknown: list[str] = []
    for i, tok in enumerate(tokens):
        vectors[i] = lex.vector(tok)
        if tok not in lex and tok not in unknown:
            unknown.append(tok)
    return vectors, unknown


def positional_encoding(n: int) -> np.ndarray:
    """Where each token is: an ``(n, N_POS_DIMS)`` array.

    Token ``i`` (counting from 0) gets, for each period ``T`` in
    ``POS_PERIODS = (4, 7, 16, 200)``, the pair

        ``POS_AMPLITUDE * sin(2 pi i / T)``, ``POS_AMPLITUDE * cos(2 pi i / T)``

    Think of each pair as the hand of a clock that turns once every ``T``
    tokens: short periods tell neighbours apart, the long one keeps
    positions 100 tokens apart from looking alike.

    Why sines and cosines? Turning a hand back by one step is a fixed
    rotation, i.e. a matrix. So a query matrix can turn "I am at i" into
    "I look for i - 1", and the dot product with the key "I am at j" is
    largest exactly when j = i - 1: that is the previous-token head in
    ``helpers.heads``. (The dot product of two positions depends only on
    the distance ``i - j``, never on where the sentence starts.)

    The values are at most 0.5 in size, so positions do not swamp the
    meaning columns; ``embed(..., positions=False)`` switches them off.
    """
    if int(n) != n or n < 0:
        raise ValueError(f"positional_encoding needs a whole number n >= 0, got {n}")
    i = np.arange(int(n))[:, None]
    angles = 2 * np.pi * i / np.array(POS_PERIODS, dtype=float)[None, :]
    out = np.empty((int(n), N_POS_DIMS))
    out[:, 0::2] = np.sin(angles)
    out[:, 1::2] = np.cos(angles)
    return POS_AMPLITUDE * out


def embed(text_or_tokens, positions: bool = True, lexicon=None) -> Embedded:
    """Tokens -> ``E`` of shape ``(n_tokens, D_MODEL)``.

    Columns ``0 .. len(FEATURES)-1`` are the word's features (see
    ``FEATURES``); the last ``N_POS_DIMS`` columns are
    ``positional_encoding(n)``, or zeros with ``positions=False``.
    Returns ``Embedded(tokens, E, unknown)``; unknown words keep their row
    (the fallback vector) and are listed in ``unknown``. A string is
    tokenized first; a list of tokens is used as it is.
    """
    if isinstance(text_or_tokens, str):
        tokens = tokenize(text_or_tokens)
    else:
        tokens = [str(t) for t in text_or_tokens]
    vectors, unknown = lookup(tokens, lexicon)
    E = np.zeros((len(tokens), D_MODEL))
    E[:, : len(FEATURES)] = vectors
    if positions:
        E[:, len(FEATURES):] = positional_encoding(len(tokens))
    return Embedded(tokens, E, unknown)


def add_word(word, pos, fields=(), language="en", lexicon=None, gloss="",
             replace=False) -> np.ndarray:
    """Teach the table a new word (in memory); return its vector.

    >>> v = add_word("capybara", "noun", ["animal", "water:0.5"])  # doctest: +SKIP

    ``fields`` may be ``"animal;water:0.5"``, a list of field names or a
    dict ``{field: weight}``. Without ``lexicon`` the shared default table
    is changed, so ``embed`` and the explorers know the word at once.
    An existing word raises ``LexiconError`` unless ``replace=True``.
    """
    return _lex(lexicon).add(word, pos, fields, language, gloss, replace)


def guess_word(word: str, lexicon=None):
    """What the table guesses for an unknown ``word`` from its form, or None.

    >>> guess_word("tunnels")["why"]  # doctest: +SKIP
    "plural or -s form of 'tunnel'"

    Returns ``{"word", "pos", "fields", "base", "why"}`` (see
    ``Lexicon.guess``). The guessed vector still has 1.0 on ``unknown``.
    """
    return _lex(lexicon).guess(word)


# --------------------------------------------------------------------------
# similarity
# --------------------------------------------------------------------------
def _features_part(v) -> np.ndarray:
    v = np.asarray(v, dtype=float)
    if v.shape[-1] == D_MODEL:
        return v[..., : len(FEATURES)]
    if v.shape[-1] != len(FEATURES):
        raise ValueError(
            f"expected a vector of length {len(FEATURES)} (FEATURES) or "
            f"{D_MODEL} (D_MODEL), got shape {v.shape}"
        )
    return v


def ambiguous_words(lexicon=None) -> tuple[str, ...]:
    """The words marked ``ambiguous`` in the table, in file order ("bank",
    "mole"): the words whose sense lessons 02, 05 and 09 decide."""
    lex = _lex(lexicon)
    k = FEATURES.index("ambiguous")
    return tuple(w for w, v in zip(lex.words, lex.vectors) if v[k] > 0)


def cosine(a, b) -> float:
    """``a . b / (|a| |b|)``: 1 same direction, 0 unrelated; 0.0 for a zero vector."""
    a = np.asarray(a, dtype=float).ravel()
    b = np.asarray(b, dtype=float).ravel()
    if a.shape != b.shape:
        raise ValueError(f"cosine needs equal lengths, got {a.shape} and {b.shape}")
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    if na == 0 or nb == 0:
        return 0.0
    return float(a @ b / (na * nb))


def nearest_words(vector, k: int = 5, lexicon=None, exclude=()):
    """The ``k`` words whose vectors point most nearly the same way.

    ``vector`` has length ``len(FEATURES)`` or ``D_MODEL`` (positional
    columns are ignored). Returns ``[(word, cosine), ...]``, best first;
    ties keep the table's order. Words in ``exclude`` are skipped.
    """
    lex = _lex(lexicon)
    v = _features_part(vector)
    norms = np.linalg.norm(lex.vectors, axis=1) * np.linalg.norm(v)
    sims = np.divide(lex.vectors @ v, norms, out=np.zeros(len(lex)),
                     where=norms > 0)
    order = np.argsort(-sims, kind="stable")
    out = []
    for idx in order:
        if lex.words[idx] in exclude:
            continue
        out.append((lex.words[idx], float(sims[idx])))
        if len(out) == k:
            break
    return out


def top_features(vector, k: int = 5) -> list[tuple[str, float]]:
    """The ``k`` largest entries of a vector with their column names."""
    v = np.asarray(vector, dtype=float)
    names = feature_names() if v.shape[-1] == D_MODEL else list(FEATURES)
    if v.shape[-1] != len(names):
        raise ValueError(f"vector of length {v.shape[-1]} matches no column list")
    order = np.argsort(-np.abs(v), kind="stable")[:k]
    return [(names[i], float(v[i])) for i in order if v[i] != 0]
