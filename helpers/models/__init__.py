"""The models of the series, side by side.

``tiny`` (lesson 09: the tiny attention model, numpy only) with its data
(``tiny_corpus``), its training (``tiny_training``) and its weights file
(``tiny_io``); ``helpers.tinymodel`` gathers them under one name.
The real models stay ``helpers.pretrained`` (lesson 10) and ``helpers.gpt``
(lesson 11). No module here draws anything.
"""
