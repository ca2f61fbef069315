"""Every public entry point fuzzed: a bad argument gets a RobolibError that names it, never a bare error.

For each entry point the table gives a valid call and, per argument, the kind of value it takes
(see tests/fuzzing.py). Hypothesis draws a bad value of that kind (NaN, +-inf, zero or a negative
number where the field is positive, text, None, a bool for a number, an empty or wrongly shaped
array, a float for a count) and the call must raise a :class:`robolib.RobolibError` whose message
names the argument -- not a bare Python/numpy error, not a silent NaN, not a result. Failures
shrink to the simplest bad value. This file covers the shared cores; tests/test_fuzz_<mechanism>.py
the mechanism packages.
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

import numpy as np
import pytest
from fuzzing import budget, entry_point_tests
from hypothesis import given
from hypothesis import strategies as st

from robolib import ParameterFileError, constraints, contact, friction, load_yaml, prp3, resolve_data_path
from robolib.core import files, params

# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
SCHEMA = {"mass": params.number(unit="kg", positive=True), "com": params.vector(2, unit="m")}
FLAG = st.sampled_from([None, 1, 0.0, "yes", "False"])          # a flag is True or False, nothing else
FIELD_UNIT = st.sampled_from([3.0, True, ["m"]])                 # a unit is text (or None)
OUT = Path(tempfile.mkdtemp(prefix="robolib-fuzz-files-"))       # the file rows write here
ENTRY_POINTS = {
    # shared cores
    "friction.smooth_sign": (friction.smooth_sign, dict(w=np.array([0.1, -0.2]), eps=1e-3),
                             {"w": "array", "eps": "nonnegative"}),
    "friction.coulomb_load": (friction.coulomb_load, dict(w=0.5, force=np.array([3.0, 4.0]), mu=0.1, radius=0.01,
                                                          eps=1e-3),
                              {"w": "array", "force": (2,), "mu": "nonnegative", "radius": "nonnegative", "eps": "nonnegative"}),
    "friction.stribeck": (friction.stribeck, dict(w=np.array([0.5]), coulomb_torque=0.1, static_torque=0.15,
                                                  stribeck_velocity=0.1, viscous=0.01, eps=0.0),
                          {"w": "array", "coulomb_torque": "nonnegative", "static_torque": "nonnegative",
                           "stribeck_velocity": "positive", "viscous": "nonnegative", "eps": "nonnegative"}),
    "contact.hertz_stiffness": (contact.hertz_stiffness, dict(R_bearing=0.0101, R_journal=0.01, E_bearing=2e11,
                                                              nu_bearing=0.3, E_journal=2e11, nu_journal=0.3),
                                {"R_bearing": "positive*", "R_journal": "positive*", "E_bearing": "positive*",
                                 "E_journal": "positive*", "nu_bearing": "real*", "nu_journal": "real*"}),
    "contact.normal_force": (contact.normal_force, dict(delta=1e-6, ddelta=0.1, ddelta0=0.1, K=1e10, restitution=0.9),
                             {"delta": "array", "ddelta": "array", "ddelta0": "positive*", "K": "positive*",
                              "restitution": "positive"}),
    "contact.tangential_force": (contact.tangential_force, dict(F_n=10.0, v_t=0.1, mu=0.1, v0=1e-4, v1=1e-3),
                                 {"F_n": "nonnegative*", "v_t": "array", "mu": "nonnegative*", "v0": "nonnegative",
                                  "v1": "positive"}),
    "constraints.udwadia_kalaba": (constraints.udwadia_kalaba, dict(M=np.eye(2), Q=np.array([1.0, 0.0]),
                                                                    A=np.array([[0.0, 1.0]]), b=np.zeros(1)),
                                   {"M": (2, 2), "Q": (2,), "A": (1, 2), "b": (1,)}),
    "constraints.lagrange_multipliers": (constraints.lagrange_multipliers, dict(M=np.eye(2), Q=np.array([1.0, 0.0]),
                                                                                A=np.array([[0.0, 1.0]]), b=np.zeros(1)),
                                         {"M": (2, 2), "Q": (2,), "A": (1, 2), "b": (1,)}),
    "constraints.kkt_solve": (constraints.kkt_solve, dict(M=np.eye(2), Q=np.array([1.0, 0.0]), A=np.array([[0.0, 1.0]]),
                                                          b=np.zeros(1)),
                              {"M": (2, 2), "Q": (2,), "A": (1, 2), "b": (1,)}),
    "constraints.baumgarte": (constraints.baumgarte, dict(b=np.zeros(1), phi=np.array([1e-3]), dphi=np.zeros(1),
                                                          alpha=10.0, beta=10.0),
                              {"b": (1,), "phi": (1,), "dphi": (1,), "alpha": "nonnegative", "beta": "nonnegative"}),
    "friction.coulomb": (friction.coulomb, dict(w=np.array([0.5, -0.5]), torque=0.1, eps=1e-3),
                         {"w": "array", "torque": "nonnegative", "eps": "nonnegative"}),
    "friction.viscous": (friction.viscous, dict(w=np.array([0.5, -0.5]), coefficient=0.01),
                         {"w": "array", "coefficient": "nonnegative"}),
    "friction.stribeck_level_for_rms": (friction.stribeck_level_for_rms,
                                        dict(w=np.linspace(-1.0, 1.0, 11), target_rms=0.01, static_ratio=1.5,
                                             stribeck_velocity=0.1, viscous=0.002, eps=0.01),
                                        {"w": "array", "target_rms": "positive", "static_ratio": "positive",
                                         "stribeck_velocity": "positive", "viscous": "nonnegative",
                                         "eps": "nonnegative"}),
    "contact.hysteresis_factor": (contact.hysteresis_factor, dict(restitution=0.9, law="flores"),
                                  {"restitution": "positive", "law": st.sampled_from(["", "Hertz", None, 1.0])}),
    "contact.friction_coefficient_ramp": (contact.friction_coefficient_ramp, dict(v_t=np.array([0.0, 5e-4]), v0=1e-4,
                                                                                  v1=1e-3),
                                          {"v_t": "array", "v0": "nonnegative", "v1": "positive"}),
    "contact.contact_potential": (contact.contact_potential, dict(delta=np.array([1e-6, -1e-6]), K=1e10),
                                  {"delta": "array", "K": "nonnegative*"}),
    "constraints.mass_sqrt": (constraints.mass_sqrt, dict(M=np.diag([4.0, 9.0])), {"M": (2, 2)}),
    "constraints.udwadia_kalaba_sequential": (
        constraints.udwadia_kalaba_sequential,
        dict(M=np.diag([1.0, 2.0, 3.0]), Q=np.ones(3),
             layers=[(np.array([[1.0, -1.0, 0.0]]), np.zeros(1)), (np.array([[0.0, 1.0, -1.0]]), np.zeros(1))]),
        {"M": (3, 3), "Q": (3,),
         "layers": st.sampled_from([None, 3.0, "x", [None], [(np.ones((1, 3)),)], [(np.ones((1, 2)), np.zeros(1))],
                                    [(np.array([[np.nan, 0.0, 0.0]]), np.zeros(1))],
                                    [(np.ones((1, 3)), np.zeros(2))]])}),
    "load_yaml": (load_yaml, dict(path="prp3/paper.yaml", schema=prp3.GEOMETRY_SCHEMA),
                  {"path": st.sampled_from(["no/such/file.yaml", "", None, 3.0, "prp3"]),
                   "schema": st.sampled_from([None, 3.0, "x", [1], {"a": 1}])}),
    "resolve_data_path": (resolve_data_path, dict(path="prp3/paper.yaml"),
                          {"path": st.sampled_from(["no/such/file.yaml", "", None, 3.0, "prp3"])}),
    # the parameter-file schema and its fields
    "params.validate": (params.validate, dict(data={"mass": 2.0, "com": [0.1, 0.0]}, schema=SCHEMA, source="demo.yaml"),
                        {"schema": st.sampled_from([None, 3.0, "x", [1], {}, {"mass": 1.0}, {1: params.number()}])}),
    "params.number": (params.number, dict(unit="kg", positive=True), {"unit": FIELD_UNIT, "positive": FLAG,
                                                                       "nonnegative": FLAG, "optional": FLAG}),
    "params.integer": (params.integer, dict(nonnegative=True), {"positive": FLAG, "nonnegative": FLAG,
                                                                "optional": FLAG}),
    "params.text": (params.text, dict(choices=("deg", "rad")), {"choices": st.sampled_from(["deg", 3, [], [1]]),
                                                                "optional": FLAG}),
    "params.boolean": (params.boolean, dict(optional=True, default=False), {"optional": FLAG}),
    "params.vector": (functools.partial(params.vector, 2), dict(unit="m"), {"unit": FIELD_UNIT, "positive": FLAG, "nonnegative": FLAG,
                                                      "optional": FLAG}),
    "params.vector(shape)": (lambda shape: params.vector(*shape), dict(shape=(3,)),
                             {"shape": st.sampled_from([(), (0,), (-2,), (1.5,), (True,), ("3",)])}),
    "params.Field": (params.Field, dict(kind="array", shape=(2,), sign="positive", unit="m"),
                     {"kind": st.sampled_from(["vector", None, 3]), "sign": st.sampled_from(["negative", True, 0]),
                      "unit": FIELD_UNIT}),
    # files written whole
    "files.atomic_write": (files.atomic_write, dict(path=OUT / "b.bin", write=lambda f: f.write(b"1"), binary=True),
                           {"path": st.sampled_from([None, "", 3.0, True, OUT]), "write": st.sampled_from([None, 3, "x"]),
                            "binary": st.sampled_from([None, 1, "yes"])}),
    "files.atomic_write_text": (files.atomic_write_text, dict(path=OUT / "a.txt", text="x"),
                                {"path": st.sampled_from([None, "", 3.0, True, OUT]),
                                 "text": st.sampled_from([None, 3.0, b"x", ["x"]])}),
}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


# ---- properties on random valid inputs ---------------------------------------------------------------------
from hypothesis import assume  # noqa: E402
from scipy.integrate import solve_ivp  # noqa: E402

pytestmark = pytest.mark.fuzz  # make fuzz: -m fuzz with a larger budget


@budget(40)
@given(d1=st.floats(1e-9, 1e-3), d2=st.floats(1e-9, 1e-3), K=st.floats(1e8, 1e12), ce=st.floats(0.3, 1.0),
       law=st.sampled_from(list(contact.LAWS)))
def test_contact_force_grows_with_the_penetration(d1, d2, K, ce, law):
    """At the same penetration speed ratio, a deeper penetration gives a larger force; none is adhesive."""
    assume(d1 < d2)
    f1, f2 = (contact.normal_force(d, 0.05, 0.1, K, ce, law) for d in (d1, d2))
    assert 0.0 < f1 < f2
    assert contact.normal_force(-d1, 0.05, 0.1, K, ce, law) == 0.0


def _impact(m, K, v_in, ce, law):
    """A mass m [kg] hitting the contact at v_in [m/s]: the rebound speed and the energy at the deepest point."""
    def rhs(t, y):
        d, v = y
        return [v, -contact.normal_force(d, v, v_in, K, ce, law) / m if d > 0 else 0.0]

    def leaves(t, y):
        return y[0] + 1e-15
    leaves.terminal, leaves.direction = True, -1
    t_c = 10 * (m ** 2 / (K ** 2 * v_in)) ** 0.2          # a few contact durations (Hertz scaling)
    sol = solve_ivp(rhs, (0.0, t_c), [0.0, v_in], events=leaves, rtol=1e-11, atol=1e-16, max_step=t_c / 200)
    assert sol.t_events[0].size, "the mass leaves the contact"
    k = int(np.argmax(sol.y[0]))
    return -sol.y_events[0][0][1], contact.contact_potential(sol.y[0][k], K) + 0.5 * m * sol.y[1][k] ** 2


@budget(12)
@given(m=st.floats(0.05, 5.0), K=st.floats(1e9, 1e11), v_in=st.floats(0.01, 1.0), law=st.sampled_from(list(contact.LAWS)))
def test_a_lossless_impact_conserves_energy(m, K, v_in, law):
    """Restitution 1 (no hysteresis): the mass rebounds at its impact speed; at the deepest point the elastic
    energy 2/5 K delta^2.5 holds the kinetic energy it came in with."""
    v_out, e_deep = _impact(m, K, v_in, 1.0, law)
    assert abs(v_out - v_in) < 1e-6 * v_in
    assert abs(e_deep - 0.5 * m * v_in ** 2) < 1e-6 * 0.5 * m * v_in ** 2


@budget(12)
@given(m=st.floats(0.05, 5.0), K=st.floats(1e9, 1e11), v_in=st.floats(0.01, 1.0), ce=st.floats(0.5, 0.95),
       law=st.sampled_from(["lankarani_nikravesh", "flores"]))
def test_a_dissipative_impact_loses_energy(m, K, v_in, ce, law):
    v_out, _ = _impact(m, K, v_in, ce, law)
    assert 0.0 < v_out < v_in


#: Bad content of a parameter file and what the error names: the field, or the top level.
BAD_DATA = [(None, "top level"), (3.0, "top level"), ("x", "top level"), ([1.0], "top level"),
            ({"mass": -2.0, "com": [0.1, 0.0]}, "field 'mass'"), ({"mass": float("nan"), "com": [0.1, 0.0]}, "field 'mass'"),
            ({"mass": True, "com": [0.1, 0.0]}, "field 'mass'"), ({"mass": 2.0}, "field 'com'"),
            ({"mass": 2.0, "com": [0.1]}, "field 'com'"), ({"mass": 2.0, "com": [0.1, "a"]}, "field 'com'"),
            ({"mass": 2.0, "com": [0.1, 0.0], "extra": 1}, "field 'extra'")]


@pytest.mark.parametrize("data,named", BAD_DATA, ids=[repr(d) for d, _ in BAD_DATA])
def test_bad_parameter_data_names_the_file_and_the_field(data, named):
    """A parameter file's content is named by its source and field (the file is what the user edits)."""
    with pytest.raises(ParameterFileError, match=rf"^demo\.yaml: {named}"):
        params.validate(data, SCHEMA, source="demo.yaml")
