"""The fuzzing harness of the entry-point tests (the tests marked ``fuzz``): bad values by kind, and the check.

An entry-point table maps a name to ``(callable, valid keyword arguments, {argument: kind})``; a kind
is ``"positive"``, ``"nonnegative"``, ``"real"`` (scalars: a list is wrong too), the same with ``*``
(numbers that broadcast: an array of them is valid), ``"count"``, ``"seed"``, ``"array"`` (any shape)
or a shape tuple such as ``(3,)`` (that exact shape). A test file's own kinds are objects with a
strategy of bad values, ``kind.bad``, or a function of the argument's valid value, ``kind.make(valid)``;
a hypothesis strategy is a kind too.
:func:`check_bad_argument` calls the entry with one bad value of the argument's kind and requires a
:class:`robolib.RobolibError` that names the argument; :func:`entry_point_tests` makes the two tests of a
table (every valid call works; every bad argument is named).

Budgets: :data:`SETTINGS` draws :data:`FUZZ_EXAMPLES` bad values per argument (the environment variable
``ROBOLIB_FUZZ_EXAMPLES``, default 30 in CI; ``make fuzz`` sets 500) and :func:`budget` scales the
budget of a property test by the same factor. The draws are derandomized (hypothesis profile ``ci``,
tests/conftest.py); ``HYPOTHESIS_PROFILE=explore`` draws fresh ones on every run.
"""

from __future__ import annotations

import copy
import os
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from robolib import RobolibError

#: Examples per fuzzed argument in CI (``make fuzz`` runs with ``ROBOLIB_FUZZ_EXAMPLES=500``).
CI_EXAMPLES = 30


def _fuzz_examples() -> int:
    text = os.environ.get("ROBOLIB_FUZZ_EXAMPLES", str(CI_EXAMPLES))
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"ROBOLIB_FUZZ_EXAMPLES must be a positive integer, got {text!r}") from None
    if n < 1:
        raise ValueError(f"ROBOLIB_FUZZ_EXAMPLES must be a positive integer, got {text!r}")
    return n


#: Bad values drawn per argument: ``ROBOLIB_FUZZ_EXAMPLES`` (default :data:`CI_EXAMPLES`).
FUZZ_EXAMPLES = _fuzz_examples()
SETTINGS = settings(max_examples=FUZZ_EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def budget(ci_examples: int) -> settings:
    """Settings of a property test that draws ``ci_examples`` in CI, scaled like :data:`FUZZ_EXAMPLES`.

    >>> budget(12).max_examples == max(1, round(12 * FUZZ_EXAMPLES / CI_EXAMPLES))
    True
    """
    return settings(max_examples=max(1, round(ci_examples * FUZZ_EXAMPLES / CI_EXAMPLES)), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

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


def bad_values(kind, valid=None):
    """The strategy of bad values of ``kind`` (``valid``: the argument's value in the valid call)."""
    if isinstance(kind, st.SearchStrategy):
        return kind
    if hasattr(kind, "make"):            # a local kind whose bad values depend on the valid one
        return kind.make(valid)
    if hasattr(kind, "bad"):             # a local kind with its own strategy
        return kind.bad
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
    bad = data.draw(bad_values(kinds[arg], kwargs.get(arg)), label=arg)
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


def entry_point_tests(entry_points: dict, copy_kwargs: bool = False):
    """The two tests of an entry-point table: ``test_every_valid_call_works, test_a_bad_argument_is_named``
    (both carry the pytest marker ``fuzz``).

    Assign them in a test module (pytest collects them there)::

        test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)

    ``copy_kwargs``: each valid call gets a deep copy of its arguments (for entries that change them).
    """
    table = dict(entry_points)
    pairs = cases(table)

    @pytest.mark.fuzz
    def test_every_valid_call_works():
        for name, (fn, kwargs, _) in table.items():
            fn(**(copy.deepcopy(kwargs) if copy_kwargs else kwargs))

    @pytest.mark.fuzz
    @pytest.mark.parametrize("entry,arg", pairs, ids=[f"{e}:{a}" for e, a in pairs])
    @SETTINGS
    @given(data=st.data())
    def test_a_bad_argument_is_named(entry, arg, data):
        check_bad_argument(table, entry, arg, data)

    return test_every_valid_call_works, test_a_bad_argument_is_named


def names(*parts: str) -> str:
    """A ``match=`` pattern for an error message: the parts in this order, anything between them.

    Tests assert the parameter and the reason, not the message's wording: ``names("clearance", "journal radius")``
    matches any message that names the clearance and, after it, the journal radius, whatever the words and line
    breaks between. A part is literal text (regex characters escaped); one that begins or ends with a letter,
    digit or underscore must begin or end a word there (``"h"`` is not found in ``"shape"``).
    """
    return "(?s:.*)".join(_whole_words(part) for part in parts)


def _whole_words(part: str) -> str:
    text = re.escape(part)
    if re.match(r"\w", part):
        text = r"\b" + text
    if re.search(r"\w$", part):
        text += r"\b"
    return text
