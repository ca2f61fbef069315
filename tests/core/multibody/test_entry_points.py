"""The public interface of robolib.core.multibody: every function and method names a bad argument."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from fuzzing import _array_bad, bad_values, entry_point_tests, names
from hypothesis import strategies as st

from robolib import ConvergenceError, ParameterError
from robolib import multibody as mb

# ==== every public function and method of robolib.core.multibody names a bad argument ===============================
#
# The planar multibody core fuzzed (issue 21, item 1), and physics on random valid inputs.
#
# Part 1: every public function and method of :mod:`robolib.core.multibody` (the data classes, the
# :class:`~robolib.core.multibody.Mechanism` and its methods, the solvers, the integrator's :func:`dopri5`,
# :func:`integrate_compiled`, :func:`simulate`,
# :func:`project`) with a valid call and the kind of each argument (tests/fuzzing.py); a bad value
# (NaN state, wrong length, ``t_end < t0``, ``rtol <= 0``, ``alpha < 0``, a non-callable right-hand side,
# text for a body name, ...) must raise a :class:`robolib.RobolibError` naming the argument.
#
# Part 2, properties through independent routes: a free rigid body (no joints) keeps its momentum and
# energy, and moves in a straight line at constant spin; a pendulum built with the core keeps its energy
# (kinetic plus gravity-like spring potential) and, after :func:`project`, satisfies ``H = 0`` and
# ``J qd = 0`` to ~1e-12; :func:`dopri5` on ``y' = a y`` against ``exp(a t)``; its dense output against
# the exact solution between steps.

NAN, INF = float("nan"), float("inf")


class Kind:
    """An argument kind with its own strategy of bad values (drawn by the harness from ``bad``)."""

    def __init__(self, name, bad):
        self.name, self.bad = name, bad

    def __repr__(self):
        return self.name


def optional(kind) -> Kind:
    """``kind`` where ``None`` is valid."""
    return Kind(f"optional {kind!r}", bad_values(kind).filter(lambda v: v is not None))


TEXT = Kind("text", st.sampled_from([None, "", 1.0, True, b"bar", ["bar"], {}]))


FLAG = Kind("flag", st.sampled_from([None, "yes", 1, 0, 1.5, NAN, [True]]))


CALLABLE = Kind("callable", st.sampled_from([None, "f", 1.0, [1.0], {}]))


OPTIONAL_CALLABLE = Kind("optional callable", st.sampled_from(["f", 1.0, [1.0], {}, True]))


MECH = Kind("mechanism", st.sampled_from([None, "pendulum", 1.0, {}, [mb.Body("a", 1.0, 1.0)]]))


BACKEND = Kind("backend", st.sampled_from(["", "NUMBA", "scipy", None, 1, True, ["numba"]]))


#: A largest step: > 0, infinity allowed.
STEP_LIMIT = Kind("step limit", st.sampled_from([0.0, -1.0, -INF, NAN, "x", None, True, [1.0]]))


GAIN = Kind("gain >= 0", st.one_of(bad_values("nonnegative")))


RTOL = Kind("rtol > 0", bad_values("positive"))


#: atol > 0: a number or one per state entry.
ATOL = lambda d: Kind(f"atol({d})", st.one_of(bad_values("positive*").filter(lambda v: v is not None),
                                             st.just(np.ones(d + 1)), st.just(np.ones((2, d))),
                                             st.just(np.r_[np.ones(d - 1), 0.0])))


BODY_NAME = Kind("body name", st.sampled_from(["nobody", "ground", "", None, 1.0, True, ["bar"]]))


TIMES = lambda t0, t1: Kind("sample times", st.one_of(  # noqa: E731
    bad_values("array").filter(lambda v: not (isinstance(v, np.ndarray) and v.size == 0)),
    st.sampled_from([np.array([t0 - 1.0]), np.array([t1 + 1.0]), np.array([t1, t0]), np.ones((2, 2)) * t0])))


SPAN = Kind("t_span", st.one_of(_array_bad((2,)), st.sampled_from([(1.0, 0.0), (0.0,), (0.0, 1.0, 2.0)])))


def state(n, batch=False) -> Kind:
    """Finite coordinates ``(n,)`` (``batch``: ``(..., n)``): NaN/inf entries, text, None, bools, empty, other
    lengths, a batch where one state is expected."""
    extra = [] if batch else [st.just(np.ones((2, n)))]
    return Kind(f"state({n}{', batch' if batch else ''})", st.one_of(_array_bad((n,)), *extra))


def lengths(tuple_name):
    return Kind(tuple_name, _array_bad((2,)))


# ---- models ------------------------------------------------------------------------------------------------
#: A bar pendulum (length 1 m) pinned at one end, with a spring to the point below the pin (a gravity-like
#: restoring force that keeps the energy books closed), and a crank driven at constant speed.
BAR = mb.Body("bar", 1.0, 1.0 / 12)


PIN = mb.GroundPin("O", "bar", (-0.5, 0.0), (0.0, 0.0))


SPRING = mb.PointSpringDamper("k", "bar", (0.5, 0.0), (0.0, -2.0), 5.0)


PEND = mb.Mechanism([BAR], [PIN], [SPRING], name="pendulum")


CRANK = mb.Mechanism([BAR], [PIN, mb.Driver("d", "bar", mb.ConstantSpeed(0.0, 2.0))], name="crank")


Q0 = np.array([0.5, 0.0, 0.0])


QD0 = np.array([0.0, 0.5, 1.0])


N = PEND.n


Y0 = np.r_[Q0, QD0, 0.0, 0.0]


K7 = np.ones((7, 2))


SPEC_T = dict(t0=0.0, y0=np.zeros(2), K=K7, h=1.0, t=0.5)


def decay(t, y):
    return -y


ENTRY_POINTS = {
    # data
    "Body": (mb.Body, dict(name="bar", mass=1.0, inertia=0.1),
             {"name": TEXT, "mass": "positive", "inertia": "positive"}),
    "GroundPin": (mb.GroundPin, dict(name="O", body="bar", point=(0.5, 0.0), ground=(0.0, 0.0)),
                  {"name": TEXT, "body": TEXT, "point": (2,), "ground": (2,)}),
    "Pin": (mb.Pin, dict(name="B", body_i="a", point_i=(0.5, 0.0), body_j="b", point_j=(-0.5, 0.0)),
            {"name": TEXT, "body_i": TEXT, "point_i": (2,), "body_j": TEXT, "point_j": (2,)}),
    "AngleLock": (mb.AngleLock, dict(name="L", body_i="ground", body_j="b", offset=0.1),
                  {"name": TEXT, "body_i": TEXT, "body_j": TEXT, "offset": "real"}),
    "Driver": (mb.Driver, dict(name="d", body="bar", motion=mb.Constant(0.2), coord="theta", motor=True),
               {"name": TEXT, "body": TEXT, "motion": CALLABLE, "coord": Kind("coord", st.sampled_from(
                   ["z", "X", "", None, 0, ["x"]])), "motor": FLAG}),
    "Constant": (mb.Constant, dict(value=0.3), {"value": "real"}),
    "ConstantSpeed": (mb.ConstantSpeed, dict(phi0=0.0, omega=2.0), {"phi0": "real", "omega": "real"}),
    "PointSpringDamper": (mb.PointSpringDamper, dict(name="k", body="bar", point=(0.5, 0.0), anchor=(0.0, -2.0),
                                                     stiffness=5.0, damping=0.1),
                          {"name": TEXT, "body": TEXT, "point": (2,), "anchor": (2,), "stiffness": "nonnegative",
                           "damping": "nonnegative"}),
    "rotate": (mb.rotate, dict(s=np.array([1.0, 0.0]), theta=np.array([0.1, 0.2])),
               {"s": Kind("(...,2)", _array_bad((2,))), "theta": "array"}),
    "Mechanism": (mb.Mechanism, dict(bodies=[BAR], joints=[PIN], forces=[SPRING], name="pendulum", gravity=(0.0, -9.81)),
                  {"bodies": Kind("bodies", st.sampled_from([None, "bar", BAR, [], ["bar"], [BAR, BAR], [PIN]])),
                   "joints": Kind("joints", st.sampled_from([None, PIN, [BAR], ["O"], [PIN, PIN],
                                                             [mb.GroundPin("O", "nobody", (0, 0), (0, 0))]])),
                   "forces": Kind("forces", st.sampled_from([None, SPRING, [PIN], [1.0]])), "name": TEXT,
                   "gravity": Kind("gravity", st.sampled_from([None, -9.81, (0.0,), (0.0, 9810.0), (np.nan, 0.0),
                                                               "down"]))}),
    # methods of a mechanism
    "Mechanism.residual": (PEND.residual, dict(q=Q0, t=0.0), {"q": state(N), "t": "real"}),
    "Mechanism.jacobian": (PEND.jacobian, dict(q=Q0), {"q": state(N)}),
    "Mechanism.time_derivative": (CRANK.time_derivative, dict(t=0.1), {"t": "real"}),
    "Mechanism.gamma": (PEND.gamma, dict(q=Q0, qd=QD0, t=0.0), {"q": state(N), "qd": state(N), "t": "real"}),
    "Mechanism.point_position": (PEND.point_position, dict(q=np.stack([Q0, Q0]), body="bar", point=(0.5, 0.0)),
                                 {"q": state(N, True), "body": BODY_NAME, "point": (2,)}),
    "Mechanism.point_velocity": (PEND.point_velocity, dict(q=Q0, qd=QD0, body="bar", point=(0.5, 0.0)),
                                 {"q": state(N, True), "qd": state(N, True), "body": BODY_NAME, "point": (2,)}),
    "Mechanism.applied_forces": (PEND.applied_forces, dict(q=Q0, qd=QD0, t=0.0),
                                 {"q": state(N), "qd": state(N), "t": "real"}),
    "Mechanism.kinetic_energy": (PEND.kinetic_energy, dict(qd=QD0), {"qd": state(N, True)}),
    "Mechanism.potential_energy": (PEND.potential_energy, dict(q=Q0), {"q": state(N, True)}),
    "Mechanism.accelerations": (PEND.accelerations, dict(q=Q0, qd=QD0, t=0.0, g=None, alpha=5.0, beta=5.0),
                                {"q": state(N), "qd": state(N), "t": "real", "g": optional(state(N)),
                                 "alpha": GAIN, "beta": GAIN}),
    "Mechanism.rhs": (PEND.rhs, dict(alpha=5.0, beta=5.0, extra=None),
                      {"alpha": GAIN, "beta": GAIN, "extra": OPTIONAL_CALLABLE}),
    "Mechanism.compiled_rhs": (PEND.compiled_rhs, dict(alpha=5.0, beta=5.0, contacts=None, ddelta0=None),
                               {"alpha": GAIN, "beta": GAIN,
                                "contacts": Kind("contacts", st.sampled_from([np.ones((1, 14)), np.ones(15), "x",
                                                                              np.full((1, 15), NAN), True])),
                                "ddelta0": Kind("ddelta0", st.sampled_from([np.ones(1), "x", True, [1.0]]))}),
    "Mechanism.row_slice": (PEND.row_slice, dict(joint="O"), {"joint": BODY_NAME}),
    "Mechanism.joint": (PEND.joint, dict(name="O"), {"name": BODY_NAME}),
    "Mechanism.coordinate": (PEND.coordinate, dict(body="bar", coord="y"),
                             {"body": BODY_NAME, "coord": Kind("coord", st.sampled_from(["z", None, 1, ["x"]]))}),
    "Mechanism.without": (PEND.without, dict(names=["O"]),
                          {"names": Kind("names", st.sampled_from(["O", None, 1.0, ["nobody"], [None], [["O"]]]))}),
    # solvers
    "assemble": (mb.assemble, dict(mech=PEND, q_guess=[0.4, 0.1, 0.1], t=0.0, tol=1e-12, max_iter=50),
                 {"mech": MECH, "q_guess": state(N), "t": "real", "tol": "positive", "max_iter": "count"}),
    "kinematic_state": (mb.kinematic_state, dict(mech=CRANK, q_guess=[0.5, 0.0, 0.0], t=0.0),
                        {"mech": MECH, "q_guess": state(N), "t": "real"}),
    "inverse_dynamics": (mb.inverse_dynamics, dict(mech=CRANK, q=Q0, qd=[0.0, 1.0, 2.0], qdd=[-2.0, 0.0, 0.0],
                                                   t=0.0),
                         {"mech": MECH, "q": state(N), "qd": state(N), "qdd": state(N), "t": "real"}),
    "driving_torques": (mb.driving_torques, dict(mech=CRANK, lam=np.zeros((4, 3))),
                        {"mech": MECH, "lam": state(3, True)}),
    "virtual_power_torques": (mb.virtual_power_torques, dict(mech=CRANK, q=Q0, qd=[0.0, 1.0, 2.0],
                                                             qdd=[-2.0, 0.0, 0.0], t=0.0),
                              {"mech": MECH, "q": state(N), "qd": state(N), "qdd": state(N), "t": "real"}),
    "energy_terms": (mb.energy_terms, dict(mech=PEND, q=Q0, qd=QD0),
                     {"mech": MECH, "q": state(N, True), "qd": state(N, True)}),
    # integrator
    "dopri5": (mb.dopri5, dict(fun=decay, t0=0.0, y0=np.array([1.0]), t_end=1.0, rtol=1e-6, atol=1e-9, h0=None,
                               t_eval=[0.5, 1.0], max_steps=10_000, h_max=INF, step_hook=None),
               {"fun": Kind("fun", st.sampled_from([None, "f", 1.0, lambda t, y: [1.0, 2.0], lambda t, y: [NAN]])),
                "t0": "real", "y0": Kind("y0 (d,)", st.sampled_from([None, "x", True, np.zeros(0), np.array([NAN]),
                                                                     np.array([INF, 1.0]), np.array(["a"]),
                                                                     np.ones((1, 1))])),
                "t_end": Kind("t_end >= t0", st.one_of(bad_values("real"), st.sampled_from([-1.0, -1e-9]))),
                "rtol": RTOL, "atol": ATOL(1), "h0": optional("positive"), "t_eval": optional(TIMES(0.0, 1.0)),
                "max_steps": "count", "h_max": STEP_LIMIT, "step_hook": OPTIONAL_CALLABLE}),
    "integrate_compiled": (mb.integrate_compiled, dict(mech=PEND, t0=0.0, y0=Y0, t_end=0.1, alpha=5.0, beta=5.0,
                                                       rtol=1e-8, atol=1e-10, t_eval=None, h_max=INF, contacts=None,
                                                       ddelta0=None, cstate=None, max_steps=100_000),
                           {"mech": MECH, "t0": "real", "y0": state(2 * N + 2),
                            "t_end": Kind("t_end >= t0", st.one_of(bad_values("real"), st.just(-1.0))),
                            "alpha": GAIN, "beta": GAIN, "rtol": RTOL, "atol": ATOL(2 * N + 2),
                            "t_eval": optional(TIMES(0.0, 0.1)), "h_max": STEP_LIMIT,
                            "contacts": Kind("contacts", st.sampled_from([np.ones((1, 14)), "x",
                                                                          np.full((1, 15), NAN)])),
                            "ddelta0": Kind("ddelta0", st.sampled_from([np.ones(1), "x", True])),
                            "cstate": Kind("cstate", st.sampled_from([np.ones((1, 4)), "x", np.zeros(4), True])),
                            "max_steps": "count"}),
    "resolve_backend": (mb.resolve_backend, dict(backend="numpy"), {"backend": BACKEND}),
    "simulate": (mb.simulate, dict(mech=PEND, t_span=(0.0, 0.1), q0=Q0, qd0=QD0, t_eval=None, alpha=5.0, beta=5.0,
                                   rtol=1e-8, atol=1e-10, extra=None, step_hook=None, h_max=INF, backend="numpy"),
                 {"mech": MECH, "t_span": SPAN, "q0": state(N), "qd0": state(N), "t_eval": optional(TIMES(0.0, 0.1)),
                  "alpha": GAIN, "beta": GAIN, "rtol": RTOL, "atol": ATOL(2 * N + 2), "extra": OPTIONAL_CALLABLE,
                  "step_hook": OPTIONAL_CALLABLE, "h_max": STEP_LIMIT, "backend": BACKEND}),
    "project": (mb.project, dict(mech=PEND, q=[0.49, 0.01, 0.0], qd=QD0, t=0.0),
                {"mech": MECH, "q": state(N), "qd": state(N), "t": "real"}),
}


#: Public names of robolib.core.multibody not in the table: constants, the result record and the ground frame.
NOT_FUZZED = {"GROUND", "GRAVITY_MAX", "IntegrationResult"}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.fuzz
def test_the_table_covers_every_public_function_and_method():
    public = set(mb.__all__) - NOT_FUZZED
    assert public == {e for e in ENTRY_POINTS if "." not in e}
    # no arguments: kernel_model, kernel_work; names with "ǁ": the mutation tool's copies (make mutate)
    methods = {f"Mechanism.{m}" for m, f in inspect.getmembers(mb.Mechanism, inspect.isfunction)
               if not m.startswith("_") and m not in ("kernel_model", "kernel_work") and "ǁ" not in m}
    assert methods == {e for e in ENTRY_POINTS if e.startswith("Mechanism.")}
    for name, (fn, kwargs, kinds) in ENTRY_POINTS.items():
        assert set(kinds) == set(kwargs), name


@pytest.mark.fuzz
def test_named_errors_at_the_edges():
    """A duplicate body, an unassembled mechanism, a right-hand side gone NaN after the start, a bool mass."""
    with pytest.raises(ParameterError, match="mass"):
        mb.Body("a", True, 1.0)
    with pytest.raises(ParameterError, match="unique"):
        mb.Mechanism([BAR, BAR], [])
    with pytest.raises(ParameterError, match=names("ddelta0", "float64", "(1,)")):
        PEND.compiled_rhs(contacts=np.ones((1, 15)))           # the kernel would read past the end of it
    with pytest.raises(ConvergenceError, match=names("step size", "collapsed")):
        mb.dopri5(lambda t, y: y if t < 0.5 else y * NAN, 0.0, np.array([1.0]), 1.0)
    r = mb.dopri5(decay, 0.0, np.array([1.0]), 0.0)            # t_end = t0: no step, the initial state
    assert r.n_steps == 0 and r.y_final[0] == 1.0


# ---- properties on random valid inputs ---------------------------------------------------------------------
#: Energy and momentum drift allowed over the short runs below at rtol 1e-10 (relative to the scale).
CONSERVATION_TOL = 1e-7


#: Constraint residual after project(): position and velocity level.
PROJECT_TOL = 1e-12


FLOATS = dict(allow_nan=False, allow_infinity=False)
