"""Lesson 06: the checker of the causal mask."""

from __future__ import annotations


import numpy as np

from helpers.attention import causal_mask
from helpers.checks._core import (
    _Fail,
    _fmt,
    _first_match,
    _call,
    _as_array,
    _require_shape,
    _checker,
)


@_checker("the causal mask")
def check_causal_mask(fn, name):
    """Check ``fn(n) -> bool (n, n)``, True on and below the diagonal."""
    sizes = (4, 5, 2, 1)
    for n in sizes:
        expected = causal_mask(n)
        result, _ = _call(fn, name, ("n",), n)
        got = _as_array(result, f"What {name}({n}) returns")
        _require_shape(
            got, (n, n), f"{name}({n})", "One row per query, one column per key."
        )
        values = got.astype(bool) if got.dtype != bool else got
        if got.dtype == bool or np.isin(got, (0, 1)).all():
            found = _first_match(
                values.astype(float),
                {
                    "ok": expected.astype(float),
                    "upper": np.triu(np.ones((n, n))),
                    "strict_lower": np.tril(np.ones((n, n)), k=-1),
                    "inverted": np.triu(np.ones((n, n)), k=1),
                    "all": np.ones((n, n)),
                },
            )
        else:
            found = None
        if found == "ok" and got.dtype != bool:
            raise _Fail(
                f"The pattern is right, but {name} returns dtype {got.dtype}; a mask "
                "must be boolean (True = may attend). Convert with .astype(bool)."
            )
        if found == "ok":
            continue
        if n == 1 and found is None and not values.all():
            raise _Fail(
                f"{name}(1) is {_fmt(got)}: a single token must be allowed to "
                "attend to itself, so the answer is [[True]]."
            )
        messages = {
            "upper": "Wrong triangle: you kept the upper triangle, so each token "
            "sees the tokens after it (the future). Rows are queries: keep "
            "j <= i, the lower triangle (np.tril).",
            "strict_lower": "You left out the diagonal: a token may attend to "
            "itself. Use np.tril(...) with k=0 (the default), or j <= i.",
            "inverted": "Your mask is the wrong way round: True should mean 'may "
            "attend' (on and below the diagonal), but you marked the blocked "
            "cells.",
            "all": "Everything is True: nothing is masked. Keep only j <= i.",
        }
        if found in messages and n > 1:
            raise _Fail(f"{messages[found]} For n = {n} you returned\n{_fmt(got)}")
        raise _Fail(
            f"For n = {n} expected\n{_fmt(expected)}\nbut got\n{_fmt(got)}\n"
            "(1 = True = may attend; row = query, column = key)."
        )
    return f"{name} is True on and below the diagonal for n = 1, 2, 4 and 5."
