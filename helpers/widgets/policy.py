"""What every explorer promises, in one place: how many toy tokens it draws,
how long it waits before drawing, and the colours that mean the same thing
in every lesson. The drawing itself is in ``engine.py``.
"""

from __future__ import annotations

#: At most this many tokens of a sentence typed into a toy-world explorer
#: (lessons 00-09) are drawn; the rest are ignored and the explorer says so.
#: (Not ``helpers.models.pretrained.MAX_TOKENS``, the real model's 512.)
MAX_TOY_TOKENS = 24

#: With an event loop running, a picture is drawn once the inputs have been
#: quiet for SETTLE seconds (a burst of updates gives one picture), and at
#: the latest MAX_WAIT seconds after the first update of the burst.
SETTLE = 0.012
MAX_WAIT = 0.15

#: Every attention-weight picture uses this one colour scale, so that the
#: same colour means the same weight in every lesson.
WEIGHT_RANGE = (0.0, 1.0)
WEIGHT_SCALE = {"vmin": WEIGHT_RANGE[0], "vmax": WEIGHT_RANGE[1]}
CMAP = "viridis"
BAD_COLOUR = "#d0d0d0"  # masked cells (-inf, NaN)
BAR = "#3b528b"
BAR_HIGHLIGHT = "#e8a317"  # the chosen token (its bar, its label)
BAR_AFTER = "#5ec962"  # the second series of bars ("after")
