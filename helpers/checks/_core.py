"""What every checker shares: calling the learner's function safely (and
checking it left its inputs unchanged), comparing arrays, and printing one
line of verdict."""

from __future__ import annotations

import functools
import textwrap
import warnings

import numpy as np


_SEED = 1234
RTOL = 1e-5
ATOL = 1e-7


class _Stub(Exception):
    """The learner's function is still the exercise stub."""


class _NoReturn(_Stub):
    """The learner's function ran without NotImplementedError and returned None."""


class _Fail(Exception):
    """A diagnosed mistake; the message is shown to the learner."""


# ------------------------------------------------------------------ basics ---


def _fmt(a, precision: int = 3) -> str:
    """Short plain-text rendering of a small array."""
    a = np.asarray(a)
    if a.dtype == bool:
        return np.array2string(a.astype(int), separator=" ")
    return np.array2string(
        a, precision=precision, suppress_small=True, separator=" ", max_line_width=90
    )


def _close(got, expected) -> bool:
    got = np.asarray(got)
    expected = np.asarray(expected)
    if got.shape != expected.shape:
        return False
    try:
        return bool(np.allclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=False))
    except TypeError:
        return False


def _close_nan_as_zero(got, expected) -> bool:
    """Like :func:`_close` but reads NaN in ``got`` as 0 (for diagnosis only)."""
    got = np.asarray(got)
    if got.shape != np.shape(expected):
        return False
    return _close(np.nan_to_num(got, nan=0.0, posinf=0.0, neginf=0.0), expected)


def _first_match(got, candidates: dict):
    """Name of the first candidate array that ``got`` equals, else None."""
    for name, value in candidates.items():
        if value is not None and _close(got, value):
            return name
    return None


def _copy_args(args):
    return tuple(
        np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args
    )


_EXC_HINTS = (
    (
        "is out of bounds for array of dimension",
        "An axis number that exists for a grid does not exist for a single row; "
        "use axis=-1 (the last axis) so it works for any number of dimensions.",
    ),
    (
        "could not be broadcast",
        "Two arrays' shapes do not fit together; when you "
        "divide by a sum or subtract a max, keep the summed axis with keepdims=True.",
    ),
    (
        "matmul",
        "A matrix product's inner sizes do not match; print the shapes of "
        "both sides (A @ B needs A.shape[-1] == B.shape[-2]).",
    ),
    ("shapes", "Print the shapes of the arrays involved to see which one is off."),
    (
        "unexpected keyword argument 'mask'",
        "Give your function a mask=None parameter, as in the exercise's first line.",
    ),
)


def _call(fn, name: str, arg_names, *args, mask=None, **kwargs):
    """Call the learner's function on copies of ``args`` (and ``mask=`` only
    when a mask is given), then check that it left its inputs unchanged.

    ``arg_names`` names the arguments in the messages ("E", "W_Q", ...).
    Returns ``(result, warnings_seen)``. Raises ``_Stub`` for the exercise
    stub and ``_Fail`` for anything the function raises or an input it
    changed in place.
    """
    if mask is not None:
        kwargs["mask"] = mask
    args_in = _copy_args(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="warn", under="ignore"):
            try:
                result = fn(*args_in, **kwargs)
            except NotImplementedError:
                raise _Stub() from None
            except Exception as exc:  # the learner's code: report, never raise
                text = str(exc).strip() or "(no message)"
                message = f"Your {name} raised {type(exc).__name__}: {text}. "
                if isinstance(exc, ImportError) and "scipy" in text:
                    raise _Fail(
                        message + "scipy is not installed here: these lessons use "
                        "numpy alone. Your idea may well be right; spell it with "
                        "numpy, or use helpers.attention.softmax for "
                        "scipy.special.softmax.") from None
                for key, hint in _EXC_HINTS:
                    if key in text:
                        message += hint
                        break
                else:
                    message += (
                        "Run it on a small example in a cell of its own to see where."
                    )
                raise _Fail(message) from None
    if result is None:
        raise _NoReturn()
    if result is Ellipsis:
        raise _Stub()
    if (
        isinstance(result, tuple)
        and result
        and all(r is None or r is Ellipsis for r in result)
    ):
        raise _Stub()
    for arg, before, now in zip(arg_names, args, args_in):
        _unchanged(before, now, name, arg)
    seen = [str(w.message) for w in caught]
    return result, seen


def _as_array(value, what: str) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except Exception:
        arr = None
    if isinstance(value, str):
        raise _Fail(
            f"{what} should be a number, or a numpy array of numbers, but it "
            f"is a string: {value!r:.80}. Return the value itself, not text."
        )
    if (
        arr is None
        or arr.dtype == object
        or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool)
    ):
        raise _Fail(
            f"{what} should be a numpy array of numbers, but it is "
            f"{type(value).__name__}: {value!r:.80}."
        )
    return arr


def _unpack_pair(result, name: str, first: str, second: str):
    if isinstance(result, np.ndarray) or not isinstance(result, (tuple, list)):
        shape = getattr(result, "shape", None)
        extra = f" (an array of shape {shape})" if shape is not None else ""
        raise _Fail(
            f"Your {name} returned one thing{extra}; it should return two, "
            f"({first}, {second}), e.g. `return {first}, {second}`."
        )
    if len(result) != 2:
        raise _Fail(
            f"Your {name} returned {len(result)} things; it should return two: "
            f"({first}, {second})."
        )
    return (
        _as_array(result[0], f"The first thing you return ({first})"),
        _as_array(result[1], f"The second thing you return ({second})"),
    )


def _unchanged(before, after, name: str, arg: str):
    if isinstance(before, np.ndarray) and not np.array_equal(
        before, after, equal_nan=True
    ):
        raise _Fail(
            f"Your {name} changed its input {arg} in place (for example with "
            f"`{arg} -= ...`). Work on a new array instead: `z = {arg} - ...`."
        )


def _require_shape(got, expected_shape, what: str, hint: str = ""):
    if got.shape != tuple(expected_shape):
        raise _Fail(
            f"{what} should have shape {tuple(expected_shape)}, but yours has "
            f"shape {got.shape}.{(' ' + hint) if hint else ''}"
        )


#: Checker messages are printed in lines of at most this many characters,
#: broken between words: JupyterLab breaks a long output line anywhere
#: ("Write t / he"), at whatever width the window has.
LINE_CHARS = 88


def _say(text: str) -> None:
    """Print a checker's message, each paragraph wrapped at word boundaries."""
    print("\n".join(
        textwrap.fill(part, LINE_CHARS, break_long_words=False,
                      break_on_hyphens=False) if part.strip() else part
        for part in str(text).split("\n")))


def _checker(title: str):
    """Wrap a check body: printing, stubs and never raising."""

    def decorate(body):
        @functools.wraps(body)
        def wrapper(fn) -> bool:
            name = getattr(fn, "__name__", "function")
            if not callable(fn):
                _say(
                    f"Not quite: pass your function itself, e.g. "
                    f"{body.__name__}(my_function), not the result of calling it "
                    f"(you passed something of type {type(fn).__name__})."
                )
                return False
            try:
                success = body(fn, name)
            except _NoReturn:
                _say(
                    f"Not done yet: {name} returned None \u2014 did you forget "
                    f"`return`? (It ran without the stub's NotImplementedError.) "
                    f"Write {title} in it, return the result, run that cell, then "
                    f"run this check again."
                )
                return False
            except _Stub:
                _say(
                    f"Not done yet: {name} is still the exercise stub (it raises "
                    f"NotImplementedError or returns nothing). Write {title} in "
                    f"it, run that cell, then run this check again."
                )
                return False
            except _Fail as fail:
                _say(f"Not quite: {fail}")
                return False
            except Exception as exc:  # a surprise inside the checker itself
                _say(
                    f"Not quite: checking {name} hit an unexpected problem "
                    f"({type(exc).__name__}: {exc}). Look at what your function "
                    f"returns for a small example."
                )
                return False
            _say(f"Correct: {success}")
            return True

        return wrapper

    return decorate


def _whole_numbers(values) -> tuple:
    """``values`` as a tuple of ints; ValueError unless each is a whole number
    (an int, or a float like 6.0). Strings, booleans and 4.7 are refused."""
    out = []
    for x in values:
        if isinstance(x, (bool, np.bool_)) or not isinstance(
                x, (int, float, np.integer, np.floating)):
            raise ValueError(x)
        if not float(x).is_integer():
            raise ValueError(x)
        out.append(int(x))
    return tuple(out)


def _nonfinite(arr) -> bool:
    return bool(arr.size) and not bool(np.isfinite(arr).all())


def _overflow(seen) -> bool:
    return any("overflow" in s or "invalid value" in s for s in seen)
