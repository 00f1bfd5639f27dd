"""Exercise checkers: run a learner's function against the reference.

Each ``check_*`` function takes the learner's function, runs it on several
small cases (fixed numbers, seeded random numbers), compares the results with
:mod:`helpers.attention` and returns ``True`` or ``False``. It prints exactly
one line when everything is right, or a diagnosis naming the mistake and what
to do about it. It never raises: anything the learner's code raises is caught
and reported in plain words, so "Run All" carries on. A function that is still
the exercise stub (raises ``NotImplementedError`` or returns ``None`` or
``...``) gets a friendly "not done yet".

One module per lesson (``lesson01`` ... ``lesson12``) holds that lesson's
checkers and names them in its ``__all__``; ``_core`` and ``_weights`` hold
what they share. This package imports every ``lessonNN`` module in its folder
and gives their ``__all__`` names here, so a new lesson's checkers need no
edit of this file. Usage in a notebook::

    from helpers import checks
    checks.check_softmax(my_softmax);

    from helpers.checks import check_update      # the same function

To find where a checker is written: ``checks.LESSON_OF["check_update"]`` is
``"lesson05"``, i.e. ``helpers/checks/lesson05.py``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

#: The lesson modules of this folder, in lesson order ("lesson01", ...).
LESSON_MODULES: tuple[str, ...] = tuple(sorted(
    info.name for info in pkgutil.iter_modules(__path__)
    if re.fullmatch(r"lesson\d\d", info.name)))


def _gather() -> dict[str, str]:
    """Import each lesson module and give its ``__all__`` names here;
    ``{checker name: lesson module}``. Two lessons using one name is an
    error, not a silent overwrite."""
    owner: dict[str, str] = {}
    for lesson in LESSON_MODULES:
        module = importlib.import_module(f"{__name__}.{lesson}")
        for name in module.__all__:
            if name in owner:
                raise ImportError(f"helpers.checks: {name} is in the __all__ of both "
                                  f"{owner[name]} and {lesson}; rename one")
            owner[name] = lesson
            globals()[name] = getattr(module, name)
    return owner


#: ``{"check_softmax": "lesson02", ...}``: which lesson module holds a checker.
LESSON_OF: dict[str, str] = _gather()

__all__ = sorted(LESSON_OF)
