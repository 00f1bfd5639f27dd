"""The toy world of lessons 00-09 and 14, numpy only (nothing here draws):

* ``tokens`` (splitting text), ``wordforms`` (plurals, verb forms),
  ``features`` (the named feature columns), ``positions`` (positional
  encodings), gathered by ``lexicon`` (the toy embedding table,
  ``data/lexicon.csv``);
* ``sentences`` (the lessons' example sentences) and ``heads`` (the
  hand-built heads of lessons 02-08);
* ``images`` (lesson 08's picture world of coloured patches);
* ``recall`` (lesson 14's recall task for a fixed-size memory).

Imports only ``helpers.runtime`` and ``helpers.attention``.
"""
