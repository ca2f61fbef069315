"""Parameter files and study parameter specs (robolib.core.params)."""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import numpy as np
import pytest
from fuzzing import budget, entry_point_tests, names

# ---- properties on random valid inputs ---------------------------------------------------------------------
from hypothesis import assume, given
from hypothesis import strategies as st

import robolib
from robolib import ParameterError, ParameterFileError, prp3, resolve_data_path
from robolib.core import params
from robolib.core import params as P
from robolib.core.params import boolean, integer, load_yaml, number, read_yaml, text, vector

# ==== the parameter-file loader names the file and the field ========================================================

# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
DEMO_SCHEMA = {"mass": params.number(unit="kg", positive=True), "com": params.vector(2, unit="m")}


BAD_FLAG = st.sampled_from([None, 1, 0.0, "yes", "False"])          # a flag is True or False, nothing else


FIELD_UNIT = st.sampled_from([3.0, True, ["m"]])                 # a unit is text (or None)


OUT = Path(tempfile.mkdtemp(prefix="robolib-fuzz-files-"))       # the file rows write here


ENTRY_POINTS = {
    "read_yaml": (read_yaml, dict(text="a: [1e-8]"), {"text": st.sampled_from([None, 1.0, b"a: 1", ["a"]])}),
    "load_yaml": (load_yaml, dict(path="prp3/paper.yaml", schema=prp3.GEOMETRY_SCHEMA),
                  {"path": st.sampled_from(["no/such/file.yaml", "", None, 3.0, "prp3"]),
                   "schema": st.sampled_from([None, 3.0, "x", [1], {"a": 1}])}),
    "resolve_data_path": (resolve_data_path, dict(path="prp3/paper.yaml"),
                          {"path": st.sampled_from(["no/such/file.yaml", "", None, 3.0, "prp3"])}),
    "params.validate": (params.validate, dict(data={"mass": 2.0, "com": [0.1, 0.0]}, schema=DEMO_SCHEMA, source="demo.yaml"),
                        {"schema": st.sampled_from([None, 3.0, "x", [1], {}, {"mass": 1.0}, {1: params.number()}])}),
    "params.number": (params.number, dict(unit="kg", positive=True), {"unit": FIELD_UNIT, "positive": BAD_FLAG,
                                                                       "nonnegative": BAD_FLAG, "optional": BAD_FLAG}),
    "params.integer": (params.integer, dict(nonnegative=True), {"positive": BAD_FLAG, "nonnegative": BAD_FLAG,
                                                                "optional": BAD_FLAG}),
    "params.text": (params.text, dict(choices=("deg", "rad")), {"choices": st.sampled_from(["deg", 3, [], [1]]),
                                                                "optional": BAD_FLAG}),
    "params.boolean": (params.boolean, dict(optional=True, default=False), {"optional": BAD_FLAG}),
    "params.vector": (functools.partial(params.vector, 2), dict(unit="m"), {"unit": FIELD_UNIT, "positive": BAD_FLAG, "nonnegative": BAD_FLAG,
                                                      "optional": BAD_FLAG}),
    "params.vector(shape)": (lambda shape: params.vector(*shape), dict(shape=(3,)),
                             {"shape": st.sampled_from([(), (0,), (-2,), (1.5,), (True,), ("3",)])}),
    "params.Field": (params.Field, dict(kind="array", shape=(2,), sign="positive", unit="m"),
                     {"kind": st.sampled_from(["vector", None, 3]), "sign": st.sampled_from(["negative", True, 0]),
                      "unit": FIELD_UNIT}),
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


#: Bad content of a parameter file and what the error names: the field, or the top level.
BAD_DATA = [(None, "top level"), (3.0, "top level"), ("x", "top level"), ([1.0], "top level"),
            ({"mass": -2.0, "com": [0.1, 0.0]}, "field 'mass'"), ({"mass": float("nan"), "com": [0.1, 0.0]}, "field 'mass'"),
            ({"mass": True, "com": [0.1, 0.0]}, "field 'mass'"), ({"mass": 2.0}, "field 'com'"),
            ({"mass": 2.0, "com": [0.1]}, "field 'com'"), ({"mass": 2.0, "com": [0.1, "a"]}, "field 'com'"),
            ({"mass": 2.0, "com": [0.1, 0.0], "extra": 1}, "field 'extra'")]


@pytest.mark.fuzz
@pytest.mark.parametrize("data,named", BAD_DATA, ids=[repr(d) for d, _ in BAD_DATA])
def test_bad_parameter_data_names_the_file_and_the_field(data, named):
    """A parameter file's content is named by its source and field (the file is what the user edits)."""
    with pytest.raises(ParameterFileError, match=rf"^demo\.yaml: {named}"):
        params.validate(data, DEMO_SCHEMA, source="demo.yaml")



# ==== the YAML parameter-file loader ================================================================================
#
# The YAML parameter-file loader: missing, unknown and mistyped fields are named.

SCHEMA = {
    "name": text(),
    "mass": number(unit="kg", positive=True),
    "count": integer(nonnegative=True),
    "flag": boolean(optional=True, default=False),
    "link": {"com": vector(2, unit="m"), "law": text(choices=("a", "b"))},
    "points": vector(-1, 2),
}


GOOD = """
name: demo
mass: 1.5
count: 3
link: {com: [0.1, 0.0], law: a}
points: [[0, 0], [1, 2], [3, 4]]
"""


def write(tmp_path, text_):
    p = tmp_path / "demo.yaml"
    p.write_text(text_)
    return p


def test_good_file_is_converted(tmp_path):
    p = load_yaml(write(tmp_path, GOOD), SCHEMA)
    assert p["mass"] == 1.5 and p["flag"] is False and p["points"].shape == (3, 2)


@pytest.mark.parametrize(
    "old, new, match",
    [
        ("mass: 1.5", "", names("demo.yaml", "'mass'", "missing")),
        ("mass: 1.5", "mass: heavy", names("'mass'", "number", "'heavy'")),
        ("mass: 1.5", "mass: -1", names("'mass'", "positive")),
        ("mass: 1.5", "mass: true", names("'mass'", "number")),
        ("count: 3", "count: 3.5", names("'count'", "integer")),
        ("law: a", "law: c", names("'link.law'", "one of", "['a', 'b']")),
        ("com: [0.1, 0.0]", "com: [0.1]", names("'link.com'", "array of numbers", "shape 2")),
        ("com: [0.1, 0.0]", "com: [0.1, x]", names("'link.com'", "array of numbers")),
        ("name: demo", "name: demo\nmas: 2", names("'mas'", "not a known field")),
        ("points: [[0, 0], [1, 2], [3, 4]]", "points: [[0, 0], [1, 2, 3]]", names("'points'", "array")),
    ],
)
def test_bad_fields_are_named(tmp_path, old, new, match):
    with pytest.raises(robolib.ParameterFileError, match=match):
        load_yaml(write(tmp_path, GOOD.replace(old, new)), SCHEMA)


def test_missing_file_and_bad_yaml(tmp_path):
    with pytest.raises(robolib.ParameterFileError, match=names("nope.yaml", "not found")):
        load_yaml(tmp_path / "nope.yaml", SCHEMA)
    with pytest.raises(robolib.ParameterFileError, match="not valid YAML"):
        load_yaml(write(tmp_path, "a: [1, 2"), SCHEMA)
    with pytest.raises(robolib.ParameterFileError, match=names("top level", "mapping")):
        load_yaml(write(tmp_path, "- 1\n- 2\n"), SCHEMA)



# ==== study parameter declarations: bad arguments named, ranges on random values ====================================

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


SPEC_ENTRY_POINTS = {
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
    "Parameter.validate": (NUMBER.validate, dict(name="value", value=0.5),
                           {"name": Kind("name", st.sampled_from([None, "", 1])),
                            "value": Kind("value", st.sampled_from([0.0, 1.5, NAN, INF, True, "0.5", [0.5], None,
                                                                    np.array([0.5]), 10 ** 400]))}),
    "validate_parameters": (P.validate_parameters, dict(spec=SPEC, params={"share": 0.2, "n": 3}, study="demo"),
                            {"spec": BAD_SPEC,
                             "params": Kind("params", st.sampled_from([None, [("n", 3)], "n=3"])),
                             "study": Kind("study", st.sampled_from([None, "", 1]))}),
    "declare_parameters": (declare, dict(spec=SPEC), {"spec": BAD_SPEC}),
}


test_every_valid_spec_call_works, test_a_bad_spec_argument_is_named = entry_point_tests(SPEC_ENTRY_POINTS)


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


@pytest.mark.fuzz
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
        with pytest.raises(ParameterError, match=names("x", "number")):
            P.validate_parameters(spec, {"x": v})
    for bad in (NAN, INF, -INF, True, [v], "1", None, np.array(v)):
        with pytest.raises(ParameterError, match="x"):
            P.validate_parameters(spec, {"x": bad})


@pytest.mark.fuzz
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
        with pytest.raises(ParameterError, match=names("n", "integer")):
            p.validate("n", v)
    for bad in (True, False, float(v), NAN, [v], [[v]], str(v)):
        with pytest.raises(ParameterError, match="n"):
            p.validate("n", bad)


@pytest.mark.fuzz
@budget(40)
@given(choices=st.lists(st.text(min_size=1, max_size=5), min_size=1, max_size=5, unique=True), v=st.text(max_size=5))
def test_a_choice_must_be_one_of_the_choices(choices, v):
    p = P.Parameter(choices[0], "c", kind="choice", choices=tuple(choices))
    if v in choices:
        p.validate("c", v)
    else:
        with pytest.raises(ParameterError, match=names("c", "one of")):
            p.validate("c", v)
    with pytest.raises(ParameterError):
        p.validate("c", [choices[0]])


@pytest.mark.fuzz
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



# ==== study parameter kinds refuse what they do not take ============================================================

# ---- declared parameters: units, meanings, valid ranges ------------------------------------------------
POSITIVE = params.Parameter(0.1, "radial clearance", unit="mm", low=0.0, open_low=True, high=5.0)


COUNT = params.Parameter(60, "Poincare samples", kind="integer", low=8)


@pytest.mark.parametrize("bad", [0.0, -1e-9, 5.000001, float("nan"), float("inf"), -float("inf"), True, "0.1", None, [0.1]])
def test_a_positive_number_refuses_zero_nan_inf_bool_text_and_lists(bad):
    with pytest.raises(ParameterError, match=names("c", "(0, 5]", "mm", "radial clearance")):
        POSITIVE.validate("c", bad)


@pytest.mark.parametrize("good", [1e-12, 0.1, 5.0, 2])
def test_a_positive_number_accepts_its_range(good):
    POSITIVE.validate("c", good)


@pytest.mark.parametrize("bad", [7, 8.0, True, float("nan"), "60"])
def test_an_integer_refuses_floats_bools_and_small_values(bad):
    with pytest.raises(ParameterError, match=names("n", "integer", ">= 8")):
        COUNT.validate("n", bad)


def test_other_kinds_and_none():
    params.Parameter(None, "mu", low=0.0, allow_none=True).validate("mu", None)
    with pytest.raises(ParameterError, match=names("law", "one of", "a, b")):
        params.Parameter("a", "law", kind="choice", choices=("a", "b")).validate("law", "c")
    with pytest.raises(ParameterError, match=names("quick", "True", "False")):
        params.Parameter(False, "quick", kind="boolean").validate("quick", 1)
    with pytest.raises(ParameterError, match=names("data_file", "nope/none.yaml", "parameter file")):
        params.Parameter("redundant/default.yaml", "robot", kind="file").validate("data_file", "nope/none.yaml")
    params.Parameter("redundant/default.yaml", "robot", kind="file").validate("data_file", "redundant/default.yaml")
    with pytest.raises(ParameterError, match=names("kind", "one of")):
        params.Parameter(1, "x", kind="float")


def test_declared_defaults_must_match_the_signature():
    spec = {"seed": params.Parameter(0, "seed", kind="integer", low=0)}
    with pytest.raises(ParameterError, match=names("differ", "declarations")):
        params.declare_parameters(spec)(lambda seed=1: seed)
    f = params.declare_parameters(spec)(lambda seed=0: seed)
    assert f() == 0 and f(seed=4) == 4 and f.parameters is spec
    with pytest.raises(TypeError):
        f(sede=1)


def test_parameter_table_describes_declared_parameters():
    from robolib.book.notebook import parameter_table

    text = parameter_table(run={"c": 0.1, "seed": 7}, spec={"c": POSITIVE})
    assert "| `c` | 0.1 | mm: radial clearance (valid: a number in (0, 5] mm) |" in text
    assert "| `seed` | 7 | notebook parameter |" in text


def test_numpy_scalars_are_valid_parameters():
    """A researcher's loop over np.arange gives numpy scalars: they are numbers like any other."""
    import numpy as np

    COUNT.validate("n", np.int64(60))
    POSITIVE.validate("c", np.float64(0.2))
    params.Parameter(False, "quick", kind="boolean").validate("quick", np.bool_(True))
    with pytest.raises(ParameterError):
        COUNT.validate("n", np.bool_(True))


def test_excluded_values_and_stated_valid_values():
    jobs = params.Parameter(2, "processes", kind="integer", low=-1, exclude=(0,))
    assert jobs.valid_text() == "an integer >= -1, not 0"
    jobs.validate("n_jobs", -1)
    with pytest.raises(ParameterError, match=names("n_jobs", "integer", ">= -1", "not 0")):
        jobs.validate("n_jobs", 0)
    cases = params.Parameter([[1.0, 0.5]], "cases", kind="list", valid="a list of [frequency Hz, clearance mm]")
    assert cases.valid_text() == "a list of [frequency Hz, clearance mm]"
