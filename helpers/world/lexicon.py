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
the row is a best guess (``guess_word``, rules in ``helpers.world.wordforms``),
resting on a known base word when one is found: "tunnels" looks like the
plural of a known noun and borrows its fields; "blew" is an irregular form
of "blow" (WordNet's exception lists, ``data/irregular_forms.csv``);
"violinist" is "violin" + -ist, "doorbell" is "door" + "bell",
"weightlessly" the adverb of "weight" + -less. With no known base, an
ending alone gives a part of speech ("zorbling" ends in -ing: ``verb``;
"quickly"-like words: ``adverb``). A token with no telling form gets the
plain fallback (1.0 on ``unknown``, 0 elsewhere). ``lookup`` and ``embed``
return the list of unknown words (guessed or not) so that a notebook can
say which ones they were; ``guess_word`` says what was guessed and why.
``add_word`` teaches the table a new word (in memory only).

Positions
---------
See ``positional_encoding`` (``helpers.world.positions``): ``N_POS_DIMS`` columns
of sines and cosines that tell a head *where* a token is, so that a head can
"look at the previous token". ``embed(..., positions=False)`` leaves those
columns at zero.

Where the pieces live: the columns and ``make_vector`` in
``helpers.world.features``, ``tokenize`` in ``helpers.world.tokens``, positions in
``helpers.world.positions``; this module holds the table (``Lexicon``,
``load_lexicon``, ``lookup``, ``embed``, guessing unknown words with the
spelling rules of ``helpers.world.wordforms``, similarity)
and re-exports the rest, so ``from helpers.world.lexicon import ...`` keeps working.
"""

from __future__ import annotations

import csv
import unicodedata
from collections import namedtuple
from pathlib import Path

import numpy as np

from helpers.world.features import (
    _FEATURE_INDEX,
    D_MODEL,
    FEATURES,
    FIELDS,
    NUMBER_VECTOR,
    POS_TAGS,
    UNKNOWN_VECTOR,
    LexiconError,
    _fields_text,
    _parse_fields,
    feature_names,
    make_vector,
)
from helpers.world.positions import (
    N_POS_DIMS,
    POS_AMPLITUDE,
    POS_PERIODS,
    positional_encoding,
)
from helpers.world.tokens import _is_number, _is_token_form, tokenize
from helpers.world.wordforms import guess_form

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
    "irregular_forms",
    "cosine",
    "nearest_words",
    "top_features",
]

#: Where the table lives (``data/lexicon.csv`` next to ``helpers/``).
DEFAULT_PATH = Path(__file__).resolve().parents[2] / "data" / "lexicon.csv"

#: Irregular forms of the table's words ("blew" -> "blow"), from WordNet's
#: exception lists (``tools/make_irregular_forms.py``; see data/README.md).
IRREGULAR_PATH = DEFAULT_PATH.with_name("irregular_forms.csv")

REQUIRED_COLUMNS = ("word", "language", "pos", "fields")


Embedded = namedtuple("Embedded", ["tokens", "E", "unknown"])
Embedded.__doc__ = """Result of ``embed``.

tokens : list[str]       the tokens, one per row of E
E : (n_tokens, D_MODEL)  feature columns then positional columns
unknown : list[str]      tokens not in the table (each listed once)
"""


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
        """A best guess for an unknown word from its form, or None.

        Returns ``{"word", "pos", "fields", "base", "why"}``: ``base`` is the
        known word it seems to come from (None if only the ending told),
        ``why`` a short phrase such as ``"plural or -s form of 'tunnel'"``,
        ``"irregular verb form of 'blow'"`` or ``"compound of 'door' +
        'bell'"`` (the rules: ``helpers.world.wordforms``). Known words and
        numbers return None (nothing to guess).
        """
        if not isinstance(word, str) or word in self:
            return None
        return guess_form(word, self._known, irregular_forms())

    def _known(self, word: str):
        """``{"pos", "fields", "rare"}`` of a word in the table, else None;
        ``rare``: one of the least curated rows (part of speech from WordNet,
        see data/README.md), which a compound does not split into."""
        if word not in self._index:
            return None
        info = self._info[word]
        return {"pos": info["pos"], "fields": _parse_fields(info["fields"]),
                "rare": info["gloss"].startswith("pos from WordNet")}

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


_IRREGULAR: dict[str, list[tuple[str, str]]] | None = None


def irregular_forms(path=None) -> dict[str, list[tuple[str, str]]]:
    """``{form: [(base, pos), ...]}`` from ``data/irregular_forms.csv``
    (read once): "blew" -> ``[("blow", "verb")]``. Lines are
    ``form,base,pos``; ``#`` lines are comments."""
    global _IRREGULAR
    if path is None and _IRREGULAR is not None:
        return _IRREGULAR
    where = Path(path) if path is not None else IRREGULAR_PATH
    if not where.is_file():
        raise LexiconError(f"irregular forms file not found: {where}")
    forms: dict[str, list[tuple[str, str]]] = {}
    lines = where.read_text(encoding="utf-8").splitlines()
    rows = [(n, line) for n, line in enumerate(lines, start=1)
            if line.strip() and not line.startswith("#")]
    for n, line in rows[1:]:  # rows[0] is the header
        parts = line.split(",")
        if len(parts) != 3 or parts[2] not in POS_TAGS:
            raise LexiconError(f"{where}, line {n}: expected form,base,pos; "
                               f"got {line!r}")
        forms.setdefault(parts[0], []).append((parts[1], parts[2]))
    if path is None:
        _IRREGULAR = forms
    return forms


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
