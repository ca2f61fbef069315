"""Checks of the arguments of the multibody entry points (once per call, before any work).

Thin wrappers of :mod:`robolib.core.checks` for the multibody vocabulary: a mechanism, a state of
``n`` coordinates, a time, integration tolerances, sample times, optional callables. Each raises
:class:`robolib.ParameterError` naming the argument and its valid values.

>>> tolerances(1e-6, 1e-9, 2)[1].tolist()
[1e-09, 1e-09]
>>> time_span("t_end", 0.0, -1.0)
Traceback (most recent call last):
    ...
robolib.ParameterError: t_end must be a number >= 0 s (not before t0 = 0), got -1.0
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from robolib.core.checks import broadcast, count, flag, real, real_array  # noqa: F401  (used by the multibody modules)
from robolib.core.errors import ParameterError


def text(name: str, value) -> str:
    """A non-empty text (a name), or ParameterError naming ``name``."""
    if not isinstance(value, str) or not value:
        raise ParameterError(f"{name} must be a non-empty text, got {value!r} ({type(value).__name__})")
    return value


def optional_callable(name: str, value):
    """``None`` or a callable, or ParameterError naming ``name``."""
    if value is not None and not callable(value):
        raise ParameterError(f"{name} must be None or a callable, got {value!r} ({type(value).__name__})")
    return value


def state(name: str, value, n: int, batch: bool = False) -> np.ndarray:
    """Finite coordinates ``(n,)`` (``batch``: ``(..., n)``) as floats, or ParameterError naming ``name``."""
    if not batch and type(value) is np.ndarray and value.shape == (n,) and value.dtype.kind == "f" \
            and np.isfinite(value).all():
        return value
    return real_array(name, value, shape=(n,), batch=batch, allow_empty=n == 0)


def nonnegative_gain(name: str, value, unit: str = "1/s") -> float:
    """A finite number >= 0 (a Baumgarte factor), or ParameterError naming ``name``."""
    return real(name, value, low=0.0, unit=unit)


def time_span(name: str, t0: float, t_end) -> float:
    """The end time ``t_end >= t0`` (s), or ParameterError naming ``name``."""
    ok = isinstance(t_end, numbers.Real) and not isinstance(t_end, (bool, np.bool_)) and math.isfinite(t_end) \
        and t_end >= t0
    if not ok:
        raise ParameterError(f"{name} must be a number >= {t0:g} s (not before t0 = {t0:g}), got {t_end!r}")
    return float(t_end)


def span_pair(name: str, value) -> tuple[float, float]:
    """``(t0, t_end)`` with ``t_end >= t0`` (s), or ParameterError naming ``name``."""
    arr = real_array(name, value, shape=(2,))
    if arr[1] < arr[0]:
        raise ParameterError(f"{name} must be (t0, t_end) with t_end >= t0 (s), got {value!r}")
    return float(arr[0]), float(arr[1])


def tolerances(rtol, atol, d: int) -> tuple[float, np.ndarray]:
    """``rtol > 0`` and ``atol > 0`` (a number or ``(d,)``), or ParameterError naming the one that is bad.

    (A huge ``rtol`` with ``h0 = h_max`` gives fixed steps.)

    (``atol = 0`` is refused: a state entry at zero would have a zero error scale.)"""
    rt = real("rtol", rtol, low=0.0, open_low=True)
    at = real_array("atol", atol)
    if at.ndim > 1 or (at.ndim == 1 and at.shape != (d,)):
        raise ParameterError(f"atol must be a number or have shape ({d},), got shape {at.shape}")
    if np.any(at <= 0):
        raise ParameterError(f"atol must be positive (absolute error per state entry), got {atol!r}")
    return rt, np.broadcast_to(at, (d,))


def step_limit(name: str, value) -> float:
    """A largest step (s): a number > 0, infinity allowed, or ParameterError naming ``name``."""
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)) and value == math.inf:
        return math.inf
    return real(name, value, low=0.0, open_low=True, unit="s (or inf)")


def sample_times(name: str, value, t0: float, t_end: float) -> np.ndarray | None:
    """``None`` or sample times: 1-D, finite, non-decreasing, inside ``[t0, t_end]``; else ParameterError."""
    if value is None:
        return None
    te = real_array(name, value, shape=(None,), allow_empty=True)
    if te.size and (np.any(np.diff(te) < 0) or te[0] < t0 or te[-1] > t_end):
        raise ParameterError(f"{name} must be non-decreasing times in [t0, t_end] = [{t0:g}, {t_end:g}] s, got "
                             f"[{te.min():g} .. {te.max():g}]{' (not sorted)' if np.any(np.diff(te) < 0) else ''}")
    return te


def sequence(name: str, value, types: tuple, what: str) -> list:
    """A list or tuple whose items are instances of ``types``, or ParameterError naming ``name``."""
    if not isinstance(value, (list, tuple)):
        raise ParameterError(f"{name} must be a list of {what}, got {value!r:.60} ({type(value).__name__})")
    for k, item in enumerate(value):
        if not isinstance(item, types):
            raise ParameterError(f"{name}[{k}] must be a {what.rstrip('s')}, got {item!r:.60} "
                                 f"({type(item).__name__})")
    return list(value)
