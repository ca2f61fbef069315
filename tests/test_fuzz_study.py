"""The study parameters fuzzed (issue 21, item 1): :class:`~robolib.core.params.Parameter`, its validation, the
registry's entry points; and, over random ranges, that :func:`~robolib.core.params.validate_parameters`
accepts every value inside a declared range and refuses every value outside it.

Part 1: :class:`Parameter` (a default outside its own range, ``low > high``, an unknown kind, a choice
without choices, a non-callable check), :meth:`Parameter.validate`, :func:`validate_parameters`,
:func:`declare_parameters`, :func:`defaults`, :func:`parameters`, :func:`study_function`,
:func:`check_names`, :func:`run` (refused before any work: an unknown study, an unknown parameter, a
value outside the declared range), each with a valid call and the kind of each argument. Part 2:
hypothesis over random bounds (open or closed) and random values, for numbers and integers; a bool for
an integer, NaN or infinity for a number, a choice not in the choices, an extra list dimension, are
refused whatever the range.
"""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import budget, entry_point_tests
from hypothesis import assume, given
from hypothesis import strategies as st

from robolib import ParameterError
from robolib import study as S
from robolib.core import params as P

pytestmark = pytest.mark.fuzz  # make fuzz: -m fuzz with a larger budget

NAN, INF = float("nan"), float("inf")


class Kind:
    """An argument kind with its own strategy of bad values (drawn by the harness from ``bad``)."""

    def __init__(self, name, bad):
        self.name, self.bad = name, bad

    def __repr__(self):
        return self.name


NUMBER = P.Parameter(0.5, "a share", low=0.0, high=1.0, open_low=True)
INTEGER = P.Parameter(10, "samples", kind="integer", low=1, high=100)
CHOICE = P.Parameter("rk4", "method", kind="choice", choices=("rk4", "dopri5"))
SPEC = {"share": NUMBER, "n": INTEGER, "method": CHOICE, "flag": P.Parameter(True, "a switch", kind="boolean")}
BAD_SPEC = Kind("spec", st.sampled_from([None, [], "x", {"a": 1.0}, {1: NUMBER}]))
STUDY = Kind("study name", st.sampled_from(["nostudy", "", None, 1, ["prp3_roundtrip"], "PRP3_ROUNDTRIP"]))


def declare(spec):
    """:func:`declare_parameters` applied to a function whose defaults match ``SPEC``'s."""
    def fn(share=0.5, n=10, method="rk4", flag=True):
        return share
    return P.declare_parameters(spec)(fn)


def construct(**kw):
    return P.Parameter(**kw)


P_ARGS = dict(default=0.5, meaning="a share", unit="", kind="number", low=0.0, high=1.0, open_low=True,
              open_high=False, choices=(), allow_none=False, check=None, exclude=(), valid=None)
FLAG = Kind("flag", st.sampled_from([None, 1, "yes", 0.0]))

ENTRY_POINTS = {
    "Parameter": (construct, P_ARGS, {
        "default": Kind("default out of range", st.sampled_from([0.0, 1.5, -1.0, NAN, INF, True, "x", [0.5]])),
        "meaning": Kind("meaning", st.sampled_from(["", None, 1.0])),
        "unit": Kind("unit", st.sampled_from([None, 1.0])),
        "kind": Kind("kind", st.sampled_from(["float", "", None, 1, "Number"])),
        "low": Kind("low", st.sampled_from([NAN, INF, "0", True, 2.0, [0.0]])),
        "high": Kind("high", st.sampled_from([NAN, -INF, "1", True, -1.0, [1.0]])),
        "open_low": FLAG, "open_high": FLAG, "allow_none": FLAG,
        "choices": Kind("choices", st.sampled_from([None, ["a"], "ab"])),
        "check": Kind("check", st.sampled_from([1.0, "x", True])),
        "exclude": Kind("exclude", st.sampled_from([None, [0.5], 0.5])),
        "valid": Kind("valid", st.sampled_from(["", 1.0, True]))}),
    "Parameter(choice)": (construct, dict(default="a", meaning="m", kind="choice", choices=("a", "b")),
                          {"choices": Kind("choices", st.sampled_from([(), ("b", "c"), None])),
                           "default": Kind("default", st.sampled_from(["c", 1, True, ["a"], np.array(["a"])]))}),
    # the error names the parameter (its name argument): called here with name="value"
    "Parameter.validate": (NUMBER.validate, dict(name="value", value=0.5),
                           {"name": Kind("name", st.sampled_from([None, "", 1])),
                            "value": Kind("value", st.sampled_from([0.0, 1.5, NAN, INF, True, "0.5", [0.5], None,
                                                                    np.array([0.5]), 10 ** 400]))}),
    "validate_parameters": (P.validate_parameters, dict(spec=SPEC, params={"share": 0.2, "n": 3}, study="demo"),
                            {"spec": BAD_SPEC,
                             "params": Kind("params", st.sampled_from([None, [("n", 3)], "n=3"])),
                             "study": Kind("study", st.sampled_from([None, "", 1]))}),
    "declare_parameters": (declare, dict(spec=SPEC), {"spec": BAD_SPEC}),
    "study_function": (S.study_function, dict(name="prp3_roundtrip"), {"name": STUDY}),
    "defaults": (S.defaults, dict(name="prp3_roundtrip"), {"name": STUDY}),
    "parameters": (S.parameters, dict(name="prp3_roundtrip"), {"name": STUDY}),
    "check_names": (S.check_names, dict(name="prp3_roundtrip", params={"seed": 3}),
                    {"name": STUDY,
                     "params": Kind("params", st.sampled_from([None, [("seed", 3)], "seed=3", {1: 2}]))}),
}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.parametrize("params, named", [({"nosuch": 1}, "nosuch"), ({"seed": -1}, "seed"),
                                           ({"seed": True}, "seed"), ({"quick": "yes"}, "quick")])
def test_run_refuses_before_any_work(params, named):
    """A bad value is named by the parameter's own name (check_names, then run)."""
    with pytest.raises(ParameterError, match=named):
        S.check_names("prp3_roundtrip", params)
    with pytest.raises(ParameterError, match=named):
        S.run("prp3_roundtrip", **params)


def test_every_declared_default_is_valid():
    """The studies' declarations are consistent: each default passes its own validation (checked at import)."""
    for name in S.STUDIES:
        for pname, p in S.parameters(name).items():
            if p.default is not None or p.allow_none:
                p.validate(pname, p.default)


# ---- properties over random ranges --------------------------------------------------------------------------
BOUND = st.floats(-1e6, 1e6)


@st.composite
def number_ranges(draw):
    lo, hi = sorted((draw(BOUND), draw(BOUND)))
    assume(hi - lo > 1e-6 * (1 + abs(lo) + abs(hi)))
    open_low, open_high = draw(st.booleans()), draw(st.booleans())
    low = draw(st.sampled_from([lo, None]))
    high = draw(st.sampled_from([hi, None]))
    default = (lo + hi) / 2
    return P.Parameter(default, "x", low=low, high=high, open_low=open_low and low is not None,
                       open_high=open_high and high is not None)


def inside(p, v) -> bool:
    return ((p.low is None or v > p.low or (v == p.low and not p.open_low))
            and (p.high is None or v < p.high or (v == p.high and not p.open_high)))


@budget(60)
@given(p=number_ranges(), v=st.one_of(st.floats(-2e6, 2e6), st.integers(-2 * 10 ** 6, 2 * 10 ** 6)),
       edge=st.sampled_from([None, "low", "high"]))
def test_numbers_inside_the_range_pass_and_outside_fail(p, v, edge):
    if edge == "low" and p.low is not None:
        v = p.low
    if edge == "high" and p.high is not None:
        v = p.high
    spec = {"x": p}
    if inside(p, v):
        assert P.validate_parameters(spec, {"x": v}) == {"x": v}
    else:
        with pytest.raises(ParameterError, match=r"x = .* is not valid: x must be a number"):
            P.validate_parameters(spec, {"x": v})
    for bad in (NAN, INF, -INF, True, [v], "1", None, np.array(v)):
        with pytest.raises(ParameterError, match="x"):
            P.validate_parameters(spec, {"x": bad})


@budget(60)
@given(lo=st.integers(-1000, 1000), width=st.integers(0, 1000), v=st.integers(-3000, 3000),
       unbounded=st.sampled_from([None, "low", "high"]))
def test_integers_inside_the_range_pass_and_outside_fail(lo, width, v, unbounded):
    low, high = (None if unbounded == "low" else lo), (None if unbounded == "high" else lo + width)
    p = P.Parameter(lo, "n", kind="integer", low=low, high=high)
    ok = (low is None or v >= low) and (high is None or v <= high)
    if ok:
        p.validate("n", v)
        p.validate("n", np.int64(v))
    else:
        with pytest.raises(ParameterError, match="n must be an integer"):
            p.validate("n", v)
    for bad in (True, False, float(v), NAN, [v], [[v]], str(v)):
        with pytest.raises(ParameterError, match="n"):
            p.validate("n", bad)


@budget(40)
@given(choices=st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=5, unique=True), v=st.text(max_size=5))
def test_a_choice_must_be_one_of_the_choices(choices, v):
    p = P.Parameter(choices[0], "c", kind="choice", choices=tuple(choices))
    if v in choices:
        p.validate("c", v)
    else:
        with pytest.raises(ParameterError, match="c must be one of"):
            p.validate("c", v)
    with pytest.raises(ParameterError):
        p.validate("c", [choices[0]])


@budget(40)
@given(lo=BOUND, hi=BOUND)
def test_a_declaration_with_no_valid_value_is_refused(lo, hi):
    if lo > hi:
        with pytest.raises(ParameterError, match="low"):
            P.Parameter(lo, "x", low=lo, high=hi)
    elif lo == hi:
        with pytest.raises(ParameterError, match="low"):
            P.Parameter(lo, "x", low=lo, high=hi, open_low=True)
    else:
        P.Parameter(lo, "x", low=lo, high=hi)
        with pytest.raises(ParameterError, match="default"):
            P.Parameter(hi + 1.0 + abs(hi), "x", low=lo, high=hi)
