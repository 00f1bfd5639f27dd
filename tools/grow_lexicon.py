"""Maintainer tool: grow data/lexicon.csv from a word-frequency list.

Not used by the notebooks and not a requirement of the project. It needs the
``wordfreq`` package (code Apache-2.0, word lists CC BY-SA 4.0; see
data/README.md), installed in a throwaway environment outside the repo::

    python -m venv /tmp/wfenv && /tmp/wfenv/bin/pip install wordfreq==3.1.1 numpy
    /tmp/wfenv/bin/python tools/grow_lexicon.py list --top 4500
    /tmp/wfenv/bin/python tools/grow_lexicon.py apply --top 4500 \
        --forms-top 25000 --wordnet-top 25000   # WordNet: apt-get install wordnet-base

``list``  prints the English words among wordfreq's ``--top`` most frequent
          that are neither in the lexicon nor decided in
          ``tools/lexicon_growth.txt`` (the candidates still to sort);
``apply`` appends every word of ``tools/lexicon_growth.txt`` that is not yet
          in the lexicon to data/lexicon.csv, with its part of speech and
          fields, and a gloss that says where the word came from; then the
          forms of known words ("tunnels", "weighed", "sadly") among the
          ``--forms-top`` most frequent, which take their base word's fields.

The part of speech and the topic fields are not in wordfreq: they are a
maintainer's judgement, written down in ``tools/lexicon_growth.txt`` (one
line per group: ``pos | fields | words``) so that it can be reviewed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.world import lexicon as lx  # noqa: E402

GROWTH = ROOT / "tools" / "lexicon_growth.txt"
HEADING = "# --- grown from wordfreq by tools/grow_lexicon.py: {} ---"


def read_growth(path: Path = GROWTH):
    """``(entries, skipped)``: entries ``[(word, pos, fields, group)]``,
    skipped ``{word: reason}``.

    A word listed twice takes its *last* group: the file lists the plain
    words first and the topic groups after them, so a topic line can give a
    word its fields without editing the plain list.
    """
    found: dict[str, tuple] = {}
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            pos, fields, words = (part.strip() for part in line.split("|"))
        except ValueError:
            raise SystemExit(f"{path}:{lineno}: expected 'pos | fields | words'")
        for item in words.split():
            word, _, own = item.partition(":")
            found.pop(word, None)  # the last mention wins (and goes last)
            if pos == "skip":
                found[word] = ("skip", fields)
                continue
            # "word:0.5" puts the word's own weight on the group's first field
            f = fields
            if own and fields:
                first, *rest = fields.split(";")
                f = ";".join([f"{first.split(':')[0]}:{own}"] + rest)
            lx.make_vector(pos, f)  # raises on a bad pos or field
            found[word] = (pos, f, f"{pos} {fields}".strip())
    entries = [(w, *v) for w, v in found.items() if v[0] != "skip"]
    skipped = {w: v[1] for w, v in found.items() if v[0] == "skip"}
    return entries, skipped


def ranks(top: int) -> dict[str, int]:
    import wordfreq

    return {w: i + 1 for i, w in enumerate(wordfreq.top_n_list("en", top))}


def candidates(top: int) -> list[tuple[int, str]]:
    """wordfreq's top English words that the lexicon and the growth file lack."""
    lex = lx.load_lexicon()
    entries, skipped = read_growth()
    decided = {e[0] for e in entries} | set(skipped)
    return [(r, w) for w, r in ranks(top).items()
            if w.isalpha() and w not in lex and w not in decided]


def apply(top: int) -> int:
    """Append the growth file's new words to data/lexicon.csv; return how many."""
    lex = lx.load_lexicon()
    rank = ranks(top)
    entries, _ = read_growth()
    groups: dict[str, list[str]] = {}
    for word, pos, fields, group in entries:
        if word in lex:
            continue
        where = (f"wordfreq en rank {rank[word]}" if word in rank
                 else "added by hand as a topic clue (issue 13)")
        groups.setdefault(group, []).append(f"{word},en,{pos},{fields},{where}")
    lines = []
    for group, rows in groups.items():
        lines += ["", HEADING.format(group)] + rows
    if lines:
        with lx.DEFAULT_PATH.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
    return sum(len(r) for r in groups.values())


#: The form rules whose guesses are safe enough to write into the table
#: (plurals, verb forms, -ly adverbs, comparatives, -ness nouns).
SAFE_FORMS = ("plural", "past form", "-ing form", "adverb of", "comparative",
              "superlative", "noun of")


def apply_forms(top: int) -> int:
    """Add the inflected forms among wordfreq's ``top`` words whose base word
    is in the table (``helpers.world.lexicon``'s form rules: "tunnels" from
    "tunnel"); they take the base's fields. Words skipped in the growth file
    are left out. Returns how many were added."""
    lex = lx.load_lexicon(fresh=True)
    _, skipped = read_growth()
    rows = []
    for word, r in ranks(top).items():
        if not word.isalpha() or word in lex or word in skipped:
            continue
        guess = lex.guess(word)
        if guess is None or guess["base"] is None:
            continue
        if not guess["why"].startswith(SAFE_FORMS):
            continue
        if guess["why"].startswith("noun of") and not word.endswith("ness"):
            continue
        fields = lx._fields_text(guess["fields"])
        rows.append(f"{word},en,{guess['pos']},{fields},"
                    f"{guess['why']}; wordfreq en rank {r}")
    if rows:
        with lx.DEFAULT_PATH.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(["", HEADING.format(
                f"forms of known words in the top {top}")] + rows) + "\n")
    return len(rows)


# --------------------------------------------------------------------------
# WordNet: the part of speech (and a few topic fields) of the long tail
# --------------------------------------------------------------------------
WORDNET = Path("/usr/share/wordnet")  # Debian/Ubuntu: apt-get install wordnet-base
_WN_POS = {"n": "noun", "v": "verb", "a": "adjective", "s": "adjective",
           "r": "adverb"}
#: WordNet lexicographer file (of a word's most frequent sense) -> fields.
#: Only files that clearly match one of the toy's fields; the rest get none.
LEXNAME_FIELDS = {
    5: "animal",          # noun.animal
    8: "body",            # noun.body
    10: "speech",         # noun.communication
    12: "emotion",        # noun.feeling
    13: "food",           # noun.food
    15: "place",          # noun.location
    17: "nature",         # noun.object (natural objects: stone, moon)
    18: "person",         # noun.person
    20: "nature",         # noun.plant
    21: "money",          # noun.possession
    27: "chemistry:0.5",  # noun.substance
    28: "time",           # noun.time
    29: "body",           # verb.body
    32: "speech",         # verb.communication
    34: "food",           # verb.consumption
    37: "emotion",        # verb.emotion
    38: "motion",         # verb.motion
    43: "weather",        # verb.weather
}


def _wordnet_index(root: Path = WORDNET) -> dict[str, list]:
    """``{lemma: [(tagged sense count, pos letter, first synset offset)]}``."""
    if not (root / "index.noun").exists():
        raise SystemExit(f"WordNet not found in {root} (apt-get install wordnet-base)")
    out: dict[str, list] = {}
    for letter, name in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
        for line in (root / f"index.{name}").read_text(encoding="utf-8").splitlines():
            if line.startswith(" "):
                continue  # the licence header
            parts = line.split()
            lemma, n_synsets, n_ptr = parts[0], int(parts[2]), int(parts[3])
            tagged = int(parts[5 + n_ptr])
            first = parts[6 + n_ptr]
            out.setdefault(lemma, []).append((tagged, n_synsets, letter, first))
    return out


def _synset(root: Path, letter: str, offset: str) -> list[str]:
    name = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}[letter]
    with (root / f"data.{name}").open("rb") as fh:
        fh.seek(int(offset))
        return fh.readline().decode("utf-8").split()


def wordnet_guess(word: str, index: dict, root: Path = WORDNET):
    """``(pos, fields)`` from WordNet's most frequent sense, or None.

    The part of speech with the most tagged senses wins (ties: the one with
    more senses, then noun, verb, adjective, adverb). None for words WordNet
    lacks and for names (the sense's lemma is capitalised: "London")."""
    senses = index.get(word)
    if not senses:
        return None
    order = "nvar"
    tagged, _, letter, offset = max(
        senses, key=lambda s: (s[0], s[1], -order.index(s[2])))
    syn = _synset(root, letter, offset)
    lexfile, n_words = int(syn[1]), int(syn[3], 16)
    lemmas = syn[4: 4 + 2 * n_words: 2]
    own = [w for w in lemmas if w.lower() == word]
    if own and all(w[0].isupper() for w in own):
        return None  # a proper name
    # a topic field only when that sense is attested in WordNet's tagged
    # texts (tagged > 0): untested first senses are often rare ("medic" the plant)
    return _WN_POS[syn[2]], LEXNAME_FIELDS.get(lexfile, "") if tagged else ""


def apply_wordnet(top: int, root: Path = WORDNET) -> int:
    """Add wordfreq's ``top`` words still missing whose part of speech
    WordNet knows (words of 3+ letters; skipped words left out)."""
    lex = lx.load_lexicon(fresh=True)
    _, skipped = read_growth()
    index = _wordnet_index(root)
    rows = []
    for word, r in ranks(top).items():
        if (not word.isalpha() or len(word) < 3 or word in lex
                or word in skipped):
            continue
        found = wordnet_guess(word, index, root)
        if found is None:
            continue
        pos, fields = found
        rows.append(f"{word},en,{pos},{fields},"
                    f"pos from WordNet 3.0; wordfreq en rank {r}")
    if rows:
        with lx.DEFAULT_PATH.open("a", encoding="utf-8") as fh:
            fh.write("\n".join(["", HEADING.format(
                f"WordNet part of speech, top {top}")] + rows) + "\n")
    return len(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("action", choices=["list", "apply"])
    parser.add_argument("--top", type=int, default=3000)
    parser.add_argument("--forms-top", type=int, default=10000,
                        help="apply: also add forms of known words among "
                        "this many (0: none)")
    parser.add_argument("--wordnet-top", type=int, default=0,
                        help="apply: then add the words among this many that "
                        "WordNet gives a part of speech (0: none)")
    args = parser.parse_args(argv)
    if args.action == "list":
        found = candidates(args.top)
        for r, w in found:
            print(f"{r}\t{w}")
        print(f"{len(found)} candidates in the top {args.top}", file=sys.stderr)
    else:
        print(f"added {apply(args.top)} words to {lx.DEFAULT_PATH}")
        # forms of known words first (so "concluded" becomes the past of
        # "conclude", not WordNet's adjective), then WordNet, then the forms
        # of the words WordNet brought in
        if args.forms_top:
            print(f"added {apply_forms(args.forms_top)} forms of known words")
        if args.wordnet_top:
            print(f"added {apply_wordnet(args.wordnet_top)} words with "
                  "WordNet's part of speech")
        if args.forms_top and args.wordnet_top:
            print(f"added {apply_forms(args.forms_top)} forms of those")


if __name__ == "__main__":
    main()
