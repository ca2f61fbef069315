"""The fuzzing harness of the entry-point tests (tests/test_fuzz*.py): bad values by kind, and the check.

An entry-point table maps a name to ``(callable, valid keyword arguments, {argument: kind})``; a kind
is ``"positive"``, ``"nonnegative"``, ``"real"`` (scalars: a list is wrong too), the same with ``*``
(numbers that broadcast: an array of them is valid), ``"count"``, ``"seed"``, ``"array"`` (any shape)
or a shape tuple such as ``(3,)`` (that exact shape). :func:`check_bad_argument` calls the entry with one
bad value of the argument's kind and requires a :class:`robolib.RobolibError` that names the argument.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from robolib import RobolibError

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# ---- bad values by kind -----------------------------------------------------------------------------
NOT_A_NUMBER = st.sampled_from([float("nan"), float("inf"), -float("inf"), "x", None, True, [1.0, 2.0], {}])
NEGATIVE = st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False)


def _array_bad(shape):
    """Bad values for an array argument of ``shape``: a NaN/inf entry, text, None, bool, empty, other shapes."""
    n = int(np.prod(shape))

    def with_entry(bad, i):
        a = np.ones(n)
        a[i % n] = bad
        return a.reshape(shape)

    return st.one_of(
        st.builds(with_entry, st.sampled_from([float("nan"), float("inf"), -float("inf")]), st.integers(0, 99)),
        st.sampled_from(["x", None, True]),
        st.just(np.zeros((0,) + tuple(shape[1:]))),
        st.integers(1, 4).filter(lambda k: k != shape[-1]).map(lambda k: np.ones(tuple(shape[:-1]) + (k,))),
        st.just(np.array(["a"] * shape[-1])),
    )


BROADCAST_BAD = st.sampled_from([float("nan"), float("inf"), -float("inf"), "x", None, True, np.array(["a"])])
KINDS = {
    # numbers that broadcast (an array of them is valid): the bad ones are NaN, inf, text, None, bool
    "positive*": st.one_of(BROADCAST_BAD, NEGATIVE, st.just(0.0)),
    "nonnegative*": st.one_of(BROADCAST_BAD, NEGATIVE),
    "real*": BROADCAST_BAD,
    # scalars
    "positive": st.one_of(NOT_A_NUMBER, NEGATIVE, st.just(0.0)),
    "nonnegative": st.one_of(NOT_A_NUMBER, NEGATIVE),
    "real": NOT_A_NUMBER,
    "count": st.one_of(st.sampled_from([0, -1, 1.5, True, float("nan"), "3", None]), st.integers(max_value=-1)),
    "seed": st.one_of(st.sampled_from([-1, 1.5, True, float("nan"), "3"]), st.integers(max_value=-1)),
}


ANY_SHAPE = st.one_of(
    st.builds(lambda bad, n: np.r_[np.ones(n), bad], st.sampled_from([float("nan"), float("inf"), -float("inf")]),
              st.integers(0, 5)),
    st.sampled_from(["x", None, True, np.zeros(0), np.array(["a", "b"]), np.array([True, False])]),
)


def bad_values(kind):
    if isinstance(kind, tuple):          # an array of this shape
        return _array_bad(kind)
    if kind == "array":                  # an array of any shape (broadcast)
        return ANY_SHAPE
    return KINDS[kind]




def cases(entry_points: dict) -> list:
    """``(entry, argument)`` pairs of a table, for ``pytest.mark.parametrize``."""
    return [(ep, arg) for ep, (_, _, kinds) in entry_points.items() for arg in kinds]


def check_bad_argument(entry_points: dict, entry: str, arg: str, data) -> None:
    """Draw a bad value for ``arg`` of ``entry`` and require a RobolibError naming ``arg``."""
    fn, kwargs, kinds = entry_points[entry]
    bad = data.draw(bad_values(kinds[arg]), label=arg)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # a numpy RuntimeWarning is not an answer either
        try:
            out = fn(**{**kwargs, arg: bad})
        except RobolibError as exc:
            assert arg in str(exc), f"{entry}({arg}={bad!r}) raised {type(exc).__name__} without naming {arg!r}: {exc}"
            return
        except Exception as exc:  # noqa: BLE001
            pytest.fail(f"{entry}({arg}={bad!r}) raised a bare {type(exc).__name__}: {exc}")
    pytest.fail(f"{entry}({arg}={bad!r}) returned {out!r:.200} instead of refusing the input")
