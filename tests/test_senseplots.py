"""Lesson 09's row figure (helpers.figures.senseplots) and lesson 10's
sense-by-layer panels (helpers.figures.charts.sense_by_layer): their text
alternatives say what the lessons point at, from the numbers drawn."""

from __future__ import annotations

import numpy as np

from helpers.figures import plots
from helpers.figures import senseplots


def test_ambiguous_rows_names_topic_words_and_the_tallest_bar():
    panels = [{"tokens": ["we", "drove", "to", "the", "bank"],
               "row": [0.1, 0.5, 0.05, 0.05, 0.3], "topic_positions": (1,),
               "target_index": 4, "title": "money"},
              {"tokens": ["the", "bank", "river"], "row": [0.1, 0.6, 0.3],
               "topic_positions": (2,), "target_index": 1, "title": "river"},
              {"tokens": ["a", "b", "bank"], "row": [0.4, 0.4, 0.2],
               "topic_positions": (), "target_index": 2, "title": "flat"}]
    alt = senseplots.ambiguous_rows(panels).alt
    assert ("money: topic words 'drove' 0.5; tallest bar 'drove' 0.5 (a topic "
            "word)") in alt
    assert "'bank' itself 0.3" in alt
    assert "tallest bar 'bank' 0.6 (not a topic word)" in alt
    assert "flat: topic words none; tallest bars tie: 'a', 'b'" in alt


def test_sense_by_layer_describes_every_panel():
    senses = np.array([0, 0, 1, 1])
    gap = np.array([[0, 0.2, 0.3], [0, 0.1, 0.2], [0, -0.1, -0.2], [0, -0.2, -0.3]])
    coords = np.zeros((3, 4, 2))
    coords[1] = [[1, 0], [1.1, 0], [-1, 0], [-1.1, 0]]          # apart
    coords[2] = [[1, 0], [-1, 0], [1.1, 0], [-1.1, 0]]          # mixed
    alt = plots.sense_by_layer(gap, coords, senses, sense_names=("river", "money"),
                               step_names=["embeddings", "layer 0", "layer 1"]).alt
    assert "Panel 'embeddings': all 4 points on one spot" in alt
    assert "Panel 'layer 0': river points (circles) and money points (squares), two " \
           "groups" in alt
    assert "Panel 'layer 1': river points (circles) and money points (squares), " \
           "mixed: 4 of 4 points are not nearer the centre of their own" in alt
