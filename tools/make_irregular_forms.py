"""Maintainer tool: write data/irregular_forms.csv from WordNet 3.0.

The toy lexicon guesses an unknown word from its form (``helpers.world.wordforms``).
Spelling rules cannot find the base of an irregular form ("blew" -> "blow",
"froze" -> "freeze", "geese" -> "goose"), so this script takes them from
WordNet 3.0's exception lists (``verb.exc``, ``noun.exc``, ``adj.exc``,
``adv.exc``), a list kept by the WordNet project, not typed from memory.

A line ``form base [base ...]`` of a list is kept, once per base, when

* the form is a plain lowercase word (no ``_`` multi-word entries);
* the form is not in data/lexicon.csv (a listed word needs no guess) and
  the base is (a guess must rest on a known word);
* the form is not itself a WordNet lemma of the same part of speech
  ("cola" is listed as a plural of "colon", "fitter" as a comparative of
  "fit", but each is also a word of its own: the list alone cannot say
  which a learner means, so no guess is made from it).

WordNet is needed only to run this script, never by the notebooks::

    apt-get install wordnet-base                   # /usr/share/wordnet
    python tools/make_irregular_forms.py           # writes the file
    python tools/make_irregular_forms.py --check   # exit 1 if out of date

Without root: ``apt-get download wordnet-base && dpkg-deb -x
wordnet-base_*.deb /tmp/wn`` and pass ``--wordnet /tmp/wn/usr/share/wordnet``.
Re-run it after data/lexicon.csv changes. Standard library and helpers only.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from helpers.world import lexicon as lx  # noqa: E402

WORDNET = Path("/usr/share/wordnet")
OUT = lx.IRREGULAR_PATH
#: exception list -> (index file, part of speech written to the file)
LISTS = (("verb", "verb", "verb"), ("noun", "noun", "noun"),
         ("adj", "adj", "adjective"), ("adv", "adv", "adverb"))

NOTICE = """\
# Irregular forms of the toy lexicon's words: form,base,pos.
# Made by tools/make_irregular_forms.py from WordNet 3.0's exception lists
# (verb.exc, noun.exc, adj.exc, adv.exc; Debian package wordnet-base); only
# forms missing from data/lexicon.csv whose base is in it. Do not edit by
# hand: re-run the tool. See data/README.md.
#
# WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.
#
# Permission to use, copy, modify and distribute this software and
# database and its documentation for any purpose and without fee or
# royalty is hereby granted, provided that you agree to comply with
# the following copyright notice and statements, including the disclaimer,
# and that the same appear on ALL copies of the software, database and
# documentation, including modifications that you make for internal
# use or for distribution.
#
# THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON
# UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR
# IMPLIED.  BY WAY OF EXAMPLE, BUT NOT LIMITATION, PRINCETON
# UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT-
# ABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE
# OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT
# INFRINGE ANY THIRD PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR
# OTHER RIGHTS.
#
# The name of Princeton University or Princeton may not be used in
# advertising or publicity pertaining to distribution of the software
# and/or database.  Title to copyright in this software, database and
# any associated documentation shall at all times remain with
# Princeton University and LICENSEE agrees to preserve same.
form,base,pos
"""

_PLAIN = re.compile(r"[a-z]+")


def _lemmas(root: Path, index: str) -> set[str]:
    """The lemmas of ``index.<index>`` (the licence header lines start with
    a space)."""
    text = (root / f"index.{index}").read_text(encoding="utf-8")
    return {line.split()[0] for line in text.splitlines()
            if line and not line.startswith(" ")}


def build(root: Path = WORDNET) -> tuple[str, dict[str, int]]:
    """``(file text, {list: rows kept})`` for the lexicon as it is on disk."""
    if not (root / "verb.exc").is_file():
        raise SystemExit(f"WordNet not found in {root} "
                         "(apt-get install wordnet-base, or pass --wordnet)")
    lex = lx.load_lexicon(lx.DEFAULT_PATH)  # a private copy, from disk
    rows, kept = [], {}
    for name, index, pos in LISTS:
        lemmas = _lemmas(root, index)
        kept[name] = 0
        for line in (root / f"{name}.exc").read_text(encoding="utf-8").splitlines():
            form, *bases = line.split()
            if not _PLAIN.fullmatch(form) or form in lex or form in lemmas:
                continue
            for base in bases:
                if base != form and base in lex:
                    rows.append(f"{form},{base},{pos}")
                    kept[name] += 1
    return NOTICE + "\n".join(rows) + "\n", kept


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wordnet", type=Path, default=WORDNET,
                        help="folder with verb.exc, index.verb, ... "
                             "(default /usr/share/wordnet)")
    parser.add_argument("--check", action="store_true",
                        help="only compare with the shipped file")
    args = parser.parse_args(argv)
    text, kept = build(args.wordnet)
    counts = ", ".join(f"{n}.exc {k}" for n, k in kept.items())
    if args.check:
        same = OUT.is_file() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT.name}: {'up to date' if same else 'OUT OF DATE'} ({counts})")
        return 0 if same else 1
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({sum(kept.values())} rows: {counts})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
