"""Checks of the inputs of public functions: a bad input is named, with the reason, before any work.

Every public entry point of robolib runs its arguments through these before it computes,
so that NaN, infinity, a wrong type (text, ``None``, ``True`` for a number), an empty or
wrongly shaped array raises a :class:`~robolib.ParameterError` that names the argument
and what it must be -- never a bare numpy error, a silent NaN, or a result from an
invalid input.

>>> real_array("q", [0.1, 0.2], shape=(2,))
array([0.1, 0.2])
>>> real_array("q", [0.1, float("nan")], shape=(2,))
Traceback (most recent call last):
    ...
robolib.ParameterError: q must be finite, got nan at index 1
>>> real("frequency", 0.0, low=0.0, open_low=True, unit="Hz")
Traceback (most recent call last):
    ...
robolib.ParameterError: frequency must be a number > 0 Hz, got 0.0
>>> count("n", True)
Traceback (most recent call last):
    ...
robolib.ParameterError: n must be an integer >= 1, got True (bool)
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from robolib.core.errors import ParameterError


def _what(x) -> str:
    text = repr(x)
    return text if len(text) <= 60 else text[:57] + "..."


def real_array(name: str, x, *, shape: tuple | None = None, batch: bool = False, finite: bool = True,
               allow_empty: bool = False) -> np.ndarray:
    """``x`` as a float array, or :class:`~robolib.ParameterError` naming ``name``.

    ``shape``: the required shape, or with ``batch=True`` the required *trailing* shape
    (leading batch axes allowed); ``None`` entries accept any length. Text, ``None``,
    booleans and object arrays are refused; so are NaN and infinity unless
    ``finite=False``, and an empty array unless ``allow_empty``.
    """
    if x is None or isinstance(x, (str, bytes)) or isinstance(x, (bool, np.bool_)):
        raise ParameterError(f"{name} must be real numbers, got {_what(x)} ({type(x).__name__})")
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise ParameterError(f"{name} must be an array of real numbers, got {_what(x)} ({exc})") from None
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise ParameterError(f"{name} must be real numbers, got {_what(x)} (dtype {arr.dtype})")
    arr = arr.astype(float)
    if arr.size == 0 and not allow_empty:
        raise ParameterError(f"{name} must not be empty, got shape {arr.shape}")
    if shape is not None:
        want = tuple(shape)
        got = arr.shape[len(arr.shape) - len(want):] if batch else arr.shape
        ok = len(got) == len(want) and all(w is None or w == g for w, g in zip(want, got))
        if batch and arr.ndim < len(want):
            ok = False
        if not ok:
            form = "(..., " + ", ".join("n" if w is None else str(w) for w in want) + ")" if batch else \
                "(" + ", ".join("n" if w is None else str(w) for w in want) + ("," if len(want) == 1 else "") + ")"
            raise ParameterError(f"{name} must have shape {form}, got {arr.shape}")
    if finite and not np.all(np.isfinite(arr)):
        bad = np.argwhere(~np.isfinite(arr))[0]
        where = int(bad[0]) if len(bad) == 1 else tuple(int(i) for i in bad)
        value = arr[tuple(bad)] if arr.ndim else arr
        raise ParameterError(f"{name} must be finite, got {float(value)} at index {where}" if arr.ndim
                             else f"{name} must be finite, got {float(arr)}")
    return arr


def nonnegative(name: str, x, *, unit: str = "", what: str | None = None) -> np.ndarray:
    """``x`` (a number or an array) as finite floats >= 0, or :class:`~robolib.ParameterError` naming ``name``."""
    arr = real_array(name, x)
    if np.any(arr < 0):
        u = f" ({unit})" if unit else ""
        raise ParameterError(f"{what or name} must be finite and non-negative, got {_what(x)}{u}")
    return arr


def positive(name: str, x, *, unit: str = "", what: str | None = None) -> np.ndarray:
    """``x`` (a number or an array) as finite floats > 0, or :class:`~robolib.ParameterError` naming ``name``."""
    arr = real_array(name, x)
    if np.any(arr <= 0):
        u = f" ({unit})" if unit else ""
        raise ParameterError(f"{what or name} must be positive and finite, got {_what(x)}{u}")
    return arr


def _bound_text(kind, low, high, open_low, open_high, unit) -> str:
    u = f" {unit}" if unit else ""
    if low is not None and high is not None:
        return f"{kind} in {'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}{u}"
    if low is not None:
        return f"{kind} {'>' if open_low else '>='} {low:g}{u}"
    if high is not None:
        return f"{kind} {'<' if open_high else '<='} {high:g}{u}"
    return f"a finite {kind.split()[-1]}{u}"


def real(name: str, x, *, low: float | None = None, high: float | None = None, open_low: bool = False,
         open_high: bool = False, unit: str = "") -> float:
    """``x`` as a finite float within the bounds, or :class:`~robolib.ParameterError` naming ``name``."""
    ok = isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) or \
        (isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype.kind in "iuf")
    v = float(x) if ok else math.nan
    if ok and math.isfinite(v):
        ok = not ((low is not None and (v < low or (open_low and v == low)))
                  or (high is not None and (v > high or (open_high and v == high))))
    else:
        ok = False
    if not ok:
        raise ParameterError(f"{name} must be {_bound_text('a number', low, high, open_low, open_high, unit)}, "
                             f"got {_what(x)}" + ("" if isinstance(x, numbers.Real) and not isinstance(x, bool)
                                                  else f" ({type(x).__name__})"))
    return v


def count(name: str, n, *, low: int = 1, high: int | None = None) -> int:
    """``n`` as an int within ``[low, high]`` (not a bool, not a float), or :class:`~robolib.ParameterError`."""
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral) or n < low or \
            (high is not None and n > high):
        raise ParameterError(f"{name} must be {_bound_text('an integer', low, high, False, False, '')}, got "
                             f"{_what(n)} ({type(n).__name__})")
    return int(n)


def flag(name: str, value) -> bool:
    """True or False (a NumPy bool too) as a bool, or :class:`~robolib.ParameterError` naming ``name``.

    >>> flag("spin", 1)
    Traceback (most recent call last):
        ...
    robolib.ParameterError: spin must be True or False, got 1 (int)
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ParameterError(f"{name} must be True or False, got {_what(value)} ({type(value).__name__})")
    return bool(value)


def broadcast(name: str, x, other: str, y) -> tuple:
    """The broadcast shape of the arrays ``x`` and ``y``, or ParameterError: ``name`` does not broadcast with ``other``."""
    try:
        return np.broadcast_shapes(x.shape, y.shape)
    except ValueError:
        raise ParameterError(f"{name} of shape {x.shape} does not broadcast with {other} of shape {y.shape}") from None


def seed(name: str, s) -> int:
    """A seed of a random draw: a non-negative int, or :class:`~robolib.ParameterError` naming ``name``."""
    return count(name, s, low=0)


__all__ = ["real_array", "nonnegative", "positive", "real", "count", "flag", "broadcast", "seed"]
