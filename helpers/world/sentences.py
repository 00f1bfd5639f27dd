"""The example sentences of the lessons, by name.

``CURRICULUM_SENTENCES["creature"]`` is the sentence lessons 01-06 follow;
the others fix a sense of "bank" or "mole", or are the two sides of the
translation in lesson 08. Every word is in the lexicon (``tests/test_heads.py``
checks it). ``helpers.world.heads`` re-exports the table under its old address.
"""

from __future__ import annotations

__all__ = ["CURRICULUM_SENTENCES"]

#: The example sentences of the lessons (00-08), plus one extra.
CURRICULUM_SENTENCES: dict[str, str] = {
    "creature": "a fluffy blue creature roamed the verdant forest",
    "bank_river": "I swam across the river to get to the other bank",
    "bank_money": "I drove across the road to get to the other bank",
    # extra, used by no lesson text: a money sentence with a real money word
    "bank_deposit": "she paid the cash into her account at the bank",
    "river_bank": "river bank flows",
    "mole_animal": "American shrew mole",
    "mole_chemistry": "one mole of carbon dioxide",
    "mole_skin": "take a biopsy of the mole",
    "murderer": "Therefore, the murderer was",
    "translation_en": "the black cat sleeps on the mat",
    "translation_fr": "le chat noir dort sur le tapis",
}
