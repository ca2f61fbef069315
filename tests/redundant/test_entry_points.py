"""The public interface of robolib.redundant: every entry point names a bad argument."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from fuzzing import NEGATIVE, _array_bad, bad_values, budget, entry_point_tests
from hypothesis import assume
from hypothesis import strategies as st

from robolib import redundant as R

# ==== every public entry point of robolib.redundant names a bad argument ============================================
#
# The redundant robot's entry points fuzzed, and properties of its kinematics and dynamics on random inputs.
#
# Part 1 (the pattern of tests/fuzzing.py): for every public function and class of
# :mod:`robolib.redundant` a valid call and, per argument, the kind of value it takes; hypothesis draws
# a bad value of that kind and the call must raise a :class:`robolib.RobolibError` naming the argument.
# :data:`ENTRY_POINTS` holds the model and the dynamics; :data:`SIMULATION` the simulation and the
# friction-study functions of ``robolib/redundant/simulation.py`` (``simulate``, ``friction_power``,
# ``calibrate_stribeck``, ``operating_point``, ``friction_sweep``, ``decoupling_error``,
# ``decoupling_map``, ``friction_comparison``, ``reference_torque``, ``rms`` and the class
# ``TorqueSchedule``), with tiny valid calls (a few RK4 steps, 8 samples per period) since they
# integrate the motion; a bad argument is refused before any of that work. Left out: the drawings,
# :func:`~robolib.redundant.load` (:data:`NOT_FUZZED`: its bad input is a file; a missing and a
# malformed file are tested once below) and the result containers (the named tuples ``Simulation``,
# ``StribeckCalibration``, ``Dynamics``, ``InverseDynamics``, ``TaskTrajectory``).
#
# The harness's kinds (tests/fuzzing.py) are extended here, without editing it, by :class:`Kind`: an
# argument with a strategy of bad values of its own -- ``batch(n)`` (any leading shape, trailing axis
# ``n``), ``single(n)`` (one configuration: ``(n,)``, a batch of several is wrong), ``choice(...)``
# (one of a few names), ``signs(3)`` (elbow signs), ``gains(2)`` (Baumgarte gains), ``index(3)`` (a
# chain index), ``optional(kind)`` (``None`` is valid), ``TRAJECTORY`` and, for the simulation table,
# ``FLAG`` (True or False), ``SAMPLES`` (an integer >= 8), ``TORQUE`` (three torques or a function of
# time giving them), ``SIMULATION_RESULT``, ``LAWS``, ``N_JOBS``, ``STATIC_RATIO``, ``VALUES``, ``MU_R``,
# ``TIMES`` and ``SCHEDULE_VALUES``. The harness draws a
# :class:`Kind`'s bad values from its ``bad`` strategy (tests/fuzzing.py, :func:`entry_point_tests`).
#
# Part 2: properties on random valid inputs (hypothesis shrinks a failure to the simplest input and
# reports it): the constraint residuals after a Udwadia-Kalaba step, inverse then forward dynamics,
# the kinetic energy, and the five forward-dynamics routes.

ROBOT = R.load("redundant/default.yaml")


GEARED = R.load("redundant/geared.yaml")


ACTIVE = [2, 6, 10]


NAN, INF = float("nan"), float("inf")


# ---- kinds of argument beyond tests/fuzzing.py ------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Kind:
    """An argument kind with its own strategy of bad values."""

    label: str
    bad: st.SearchStrategy

    def __repr__(self):
        return self.label


LEADS = st.sampled_from([(), (1,), (3,), (2, 2)])


def _with_entry(shape, bad, i):
    a = np.ones(shape)
    a.flat[i % a.size] = bad
    return a


def batch(n: int) -> Kind:
    """Finite reals of shape (..., n), any leading shape: bad are NaN/inf entries anywhere in a batch, text,
    None, bools, an empty batch, a wrong trailing axis, text or bool arrays, ragged lists."""
    return Kind(f"batch({n})", st.one_of(
        st.builds(lambda lead, bad, i: _with_entry(lead + (n,), bad, i), LEADS, st.sampled_from([NAN, INF, -INF]),
                  st.integers(0, 99)),
        st.sampled_from(["x", None, True, {}, [[1.0] * n, [1.0]]]),
        st.builds(lambda lead: np.zeros(lead + (0,)), LEADS),
        st.just(np.zeros((0, n))),
        st.builds(lambda lead, k: np.ones(lead + (k,)), LEADS, st.integers(1, 13).filter(lambda k: k != n)),
        st.builds(lambda lead: np.full(lead + (n,), "a"), LEADS),
        st.builds(lambda lead: np.ones(lead + (n,), dtype=bool), LEADS),
    ))


def single(n: int) -> Kind:
    """One configuration (n,): the harness's bad arrays, and a batch of several configurations."""
    return Kind(f"single({n})", st.one_of(_array_bad((n,)), st.just(np.ones((2, n))), st.just(np.ones((n, 1)))))


def choice(options) -> Kind:
    """One of ``options``: anything else (other text, numbers, None where not an option, arrays, bools)."""
    def is_option(x):
        return (x is None or isinstance(x, str)) and x in options
    pool = ["x", "", "COULOMB", "Reduced", None, 0, 1.5, NAN, True, b"coulomb", ["coulomb"], {},
            np.array(["coulomb"]), np.array([1.0, 2.0])]
    return Kind(f"choice{tuple(options)}", st.sampled_from(pool).filter(lambda x: not is_option(x)))


def signs(n: int) -> Kind:
    """n signs +1/-1: the harness's bad arrays and other numbers."""
    return Kind(f"signs({n})", st.one_of(
        _array_bad((n,)),
        st.builds(lambda v, i: _with_entry((n,), v, i), st.sampled_from([0.0, 2.0, -0.5, 1.0 + 1e-9]), st.integers(0, 9)),
    ))


def gains(n: int) -> Kind:
    """n non-negative reals: the harness's bad arrays and a negative entry."""
    return Kind(f"gains({n})", st.one_of(
        _array_bad((n,)),
        st.builds(lambda v, i: _with_entry((n,), v, i), st.floats(max_value=-1e-300, allow_infinity=False),
                  st.integers(0, 9)),
        st.just((20.0,)), st.just((-1.0, 0.0)),
    ))


def index(n: int) -> Kind:
    """An integer index in [0, n): out of range, floats, bools, text, None."""
    return Kind(f"index({n})", st.one_of(
        st.sampled_from([-1, n, 1.0, 1.5, True, False, np.bool_(True), NAN, "1", None, [1]]),
        st.integers(max_value=-1), st.integers(min_value=n),
    ))


def optional(kind) -> Kind:
    """``kind`` where ``None`` (the default) is valid."""
    base = kind.bad if isinstance(kind, Kind) else bad_values(kind)
    return Kind(f"optional({kind!r})", base.filter(lambda x: x is not None))


def _traj(**change):
    tr = R.reference_circle(ROBOT, [0.0, 0.5])
    return tr._replace(**change)


TRAJECTORY = Kind("trajectory", st.one_of(
    st.sampled_from([None, "x", 3.0, (1.0, 2.0), np.ones((4, 2)), {}]),
    st.builds(lambda field, bad, i: _traj(**{field: _with_entry((2, 2), bad, i)}),
              st.sampled_from(["p", "v", "a"]), st.sampled_from([NAN, INF, -INF]), st.integers(0, 3)),
    st.builds(lambda field: _traj(**{field: np.ones((3, 2))}), st.sampled_from(["p", "v", "a"])),
    st.builds(lambda field, bad: _traj(**{field: bad}), st.sampled_from(["p", "v", "a"]),
              st.sampled_from([None, "x", np.zeros((0, 2)), np.ones((2, 3)), np.full((2, 2), "a")])),
))


# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
Q, DQ, DDQ = (a[0] for a in R.reference_motion(ROBOT, [0.3]))


TAU = R.inverse_dynamics(ROBOT, Q, DQ, DDQ).tau


TF = R.inverse_dynamics(ROBOT, Q, DQ, DDQ, "stribeck").friction_torque


TRAJ = R.reference_circle(ROBOT, [0.0, 0.5])


ROBOT_FIELDS = {f.name: getattr(ROBOT, f.name) for f in dataclasses.fields(R.Robot)}


POSITIVE_FIELDS = ("link_length", "active_mass", "passive_mass", "stribeck_velocity", "smooth_eps")


Q12, DQ12, DDQ12 = batch(12), batch(12), batch(12)


FRICTION, METHOD, ELBOWS = choice(R.FRICTION_MODELS), choice(R.METHODS), signs(3)


FD_KINDS = {"q": (12,), "dq": (12,), "tau": (3,), "friction": FRICTION, "method": METHOD, "baumgarte": gains(2)}


CIRCLE = dict(radius=0.04, period=1.5, center=ROBOT.centroid + [0.01, 0.0])


CIRCLE_KINDS = {"radius": "nonnegative", "period": "positive", "center": optional((2,))}


ENTRY_POINTS = {
    "Robot": (R.Robot, ROBOT_FIELDS,
              {name: (3, 2) if name == "base" else "positive" if name in POSITIVE_FIELDS
               else optional("nonnegative") if name == "calibrated_for" else "nonnegative" for name in ROBOT_FIELDS}),
    # model: subsystems, kinematics, constraints
    "subsystem_mass_matrix": (R.subsystem_mass_matrix, dict(robot=ROBOT, i=1, qi=Q[4:8]),
                              {"i": index(3), "qi": (4,)}),
    "subsystem_coriolis_matrix": (R.subsystem_coriolis_matrix, dict(robot=ROBOT, i=0, qi=Q[:4], dqi=DQ[:4]),
                                  {"i": index(3), "qi": (4,), "dqi": (4,)}),
    "mass_matrix": (R.mass_matrix, dict(robot=ROBOT, q=Q), {"q": (12,)}),
    "bias_forces": (R.bias_forces, dict(robot=ROBOT, q=Q, dq=DQ), {"q": (12,), "dq": (12,)}),
    "kinetic_energy": (R.kinetic_energy, dict(robot=ROBOT, q=Q, dq=DQ), {"q": Q12, "dq": DQ12}),
    "tips": (R.tips, dict(robot=ROBOT, q=Q), {"q": Q12}),
    "end_effector": (R.end_effector, dict(robot=ROBOT, q=Q), {"q": Q12}),
    "closure_constraints": (R.closure_constraints, dict(robot=ROBOT, q=Q, dq=DQ), {"q": single(12), "dq": single(12)}),
    "base_constraints": (R.base_constraints, dict(robot=ROBOT, q=Q, dq=DQ), {"q": single(12), "dq": single(12)}),
    "constraint_residual": (R.constraint_residual, dict(robot=ROBOT, q=Q, dq=DQ),
                            {"q": single(12), "dq": optional(single(12))}),
    # dynamics
    "solve_dynamics": (R.solve_dynamics, dict(robot=ROBOT, q=Q, dq=DQ, tau=TAU, friction="stribeck",
                                              method="kkt", baumgarte=(1.0, 2.0)), FD_KINDS),
    "forward_dynamics": (R.forward_dynamics, dict(robot=ROBOT, q=Q, dq=DQ, tau=TAU, friction="coulomb",
                                                  method="reduced", baumgarte=(1.0, 2.0)), FD_KINDS),
    "inverse_kinematics": (R.inverse_kinematics, dict(robot=ROBOT, p=ROBOT.centroid, elbows=(1, -1, 1)),
                           {"p": batch(2), "elbows": ELBOWS}),
    "joint_rates": (R.joint_rates, dict(robot=ROBOT, q=Q, v=np.array([0.1, -0.2]), acc=np.array([0.3, 0.1])),
                    {"q": Q12, "v": batch(2), "acc": optional(batch(2))}),
    "reference_circle": (R.reference_circle, dict(robot=ROBOT, t=np.array([0.0, 0.1]), **CIRCLE),
                         {"t": "array", **CIRCLE_KINDS}),
    "joint_trajectory": (R.joint_trajectory, dict(robot=ROBOT, traj=TRAJ, elbows=(1, 1, -1)),
                         {"traj": TRAJECTORY, "elbows": ELBOWS}),
    "reference_motion": (R.reference_motion, dict(robot=ROBOT, t=np.array([0.0, 0.1]), elbows=(1, 1, 1), **CIRCLE),
                         {"t": "array", "elbows": ELBOWS, **CIRCLE_KINDS}),
    "initial_state": (R.initial_state, dict(robot=ROBOT, p=ROBOT.centroid, v=np.array([0.1, 0.0]), elbows=(1, 1, 1)),
                      {"p": (2,), "v": (2,), "elbows": ELBOWS}),
    "inverse_dynamics": (R.inverse_dynamics, dict(robot=ROBOT, q=Q, dq=DQ, ddq=DDQ, friction="coulomb_consistent",
                                                  preload=0.5),
                         {"q": Q12, "dq": DQ12, "ddq": DDQ12, "friction": FRICTION, "preload": "real"}),
    "actuation_jacobian": (R.actuation_jacobian, dict(robot=ROBOT, q=Q), {"q": Q12}),
    "preload_direction": (R.preload_direction, dict(robot=ROBOT, q=Q), {"q": Q12}),
    "preload_reactions": (R.preload_reactions, dict(robot=ROBOT, q=Q), {"q": Q12}),
    "minimum_norm_torques": (R.minimum_norm_torques, dict(robot=ROBOT, q=Q, dq=DQ, ddq=DDQ, friction_torque=TF,
                                                          preload=0.5),
                             {"q": Q12, "dq": DQ12, "ddq": DDQ12, "friction_torque": optional(batch(3)),
                              "preload": "real"}),
    "task_inverse_dynamics": (R.task_inverse_dynamics, dict(robot=ROBOT, traj=TRAJ, friction="stribeck", preload=0.2,
                                                            elbows=(1, 1, 1)),
                              {"traj": TRAJECTORY, "friction": FRICTION, "preload": "real", "elbows": ELBOWS}),
}


# ---- simulation.py: simulation and the friction studies (tiny valid calls: they integrate the motion) -----
def _nan_torque(t):
    return np.full(3, NAN)


def _two_torques(t):
    return np.ones(2)


def _text_torque(t):
    return "x"


def _no_torque(t):
    return None


Q0, DQ0 = R.initial_state(ROBOT, ROBOT.centroid, np.array([0.05, 0.0]))


T_END, STEP = 0.008, 0.004                               # two RK4 steps


SIM = R.simulate(ROBOT, Q0, DQ0, np.zeros(3), T_END, friction="stribeck", dt=STEP)


SIM_FIELDS = st.sampled_from(["friction_torque", "dq"])


FLAG = Kind("flag", st.sampled_from(["x", "", "True", None, 0, 1, 2, 1.5, NAN, [True], np.array([True, False])]))


SAMPLES = Kind("samples", st.one_of(bad_values("count"), st.sampled_from([1, 7])))


TORQUE = Kind("torque", st.one_of(
    _array_bad((3,)),
    st.sampled_from([_nan_torque, _two_torques, _text_torque, _no_torque,
                     R.TorqueSchedule([0.0, T_END / 2], np.zeros((2, 3)))]),     # ends before t_end
))


SIMULATION_RESULT = Kind("simulation", st.one_of(
    st.sampled_from([None, "x", 3.0, (1.0, 2.0), {}, tuple(SIM)]),
    st.builds(lambda field, bad, i: SIM._replace(**{field: _with_entry(getattr(SIM, field).shape, bad, i)}),
              SIM_FIELDS, st.sampled_from([NAN, INF, -INF]), st.integers(0, 99)),
    st.builds(lambda field, bad: SIM._replace(**{field: bad}), SIM_FIELDS,
              st.sampled_from([None, "x", np.ones((2, 3)), np.ones((3, 2)), np.ones((3, 12, 1)), np.full((3, 3), "a"),
                               np.ones((3, 3), dtype=bool)])),
))


LAWS = Kind("laws", st.sampled_from([None, "x", "stribeck", 3.0, True, [], (), {}, [None], ["viscous"], ("stribeck", 1.0),
                                     np.array([1.0, 2.0])]))


N_JOBS = Kind("n_jobs", st.sampled_from([0, 1.5, True, False, np.bool_(True), NAN, "2", None, [1], np.array([1, 2])]))


STATIC_RATIO = Kind("static_ratio", st.one_of(bad_values("real"), st.sampled_from([0.0, 0.5, 1.0 - 1e-9, -1.0])))


VALUES = Kind("values", st.one_of(bad_values("array"), st.just(np.ones((2, 2)))))


MU_R = Kind("mu_r", st.one_of(VALUES.bad, st.builds(lambda v, n: np.r_[np.full(n, 1e-3), v], NEGATIVE, st.integers(0, 3))))


TIMES = Kind("times", st.one_of(_array_bad((3,)), st.sampled_from([[0.0, 0.0, 1.0], [0.0, 2.0, 1.0], [1.0, 0.5, 0.0],
                                                                   np.ones((3, 1)), [0.0], [0.0, 1.0]])))


SCHEDULE_VALUES = Kind("schedule values", st.one_of(_array_bad((3, 3)), st.sampled_from(
    [np.ones((2, 3)), np.ones((4, 3)), np.ones((3, 3, 1)), [[0.0] * 3, [1.0] * 3, [2.0] * 3]])))  # the last: not periodic


STUDY = dict(preload=0.1, samples=8, elbows=(1, 1, 1), **CIRCLE)


STUDY_KINDS = {"preload": "real", "samples": SAMPLES, "elbows": ELBOWS, **CIRCLE_KINDS}


SIMULATION = {
    "simulate": (R.simulate, dict(robot=ROBOT, q0=Q0, dq0=DQ0, torque=np.array([0.01, -0.02, 0.0]), t_end=T_END,
                                  friction="stribeck", integrator="rk4", dt=STEP, baumgarte=(20.0, 20.0), rtol=1e-8,
                                  atol=1e-10, record_every=1, on_failure="raise"),
                 {"q0": (12,), "dq0": (12,), "torque": TORQUE, "t_end": "positive", "friction": FRICTION,
                  "integrator": choice(("rk4", "adaptive")), "dt": "positive", "baumgarte": gains(2), "rtol": "positive",
                  "atol": "positive", "record_every": "count", "on_failure": choice(("raise", "stop"))}),
    "friction_power": (R.friction_power, dict(sim=SIM), {"sim": SIMULATION_RESULT}),
    "TorqueSchedule": (R.TorqueSchedule, dict(times=[0.0, 0.5, 1.0], values=[[0.0] * 3, [1.0, -1.0, 0.5], [0.0] * 3],
                                              periodic=True),
                       {"times": TIMES, "values": SCHEDULE_VALUES, "periodic": FLAG}),
    "reference_torque": (R.reference_torque, dict(robot=ROBOT, friction="stribeck", **STUDY),
                         {"friction": FRICTION, **STUDY_KINDS}),
    "calibrate_stribeck": (R.calibrate_stribeck, dict(robot=ROBOT, static_ratio=1.5, stribeck_velocity=0.1, viscous=1e-4,
                                                      **STUDY),
                           {"static_ratio": STATIC_RATIO, "stribeck_velocity": "positive", "viscous": "nonnegative",
                            **STUDY_KINDS}),
    "operating_point": (R.operating_point, dict(robot=ROBOT, sim_periods=0.005, laws=("stribeck",), simulate_motion=True,
                                                on_failure="raise", **STUDY),
                        {"sim_periods": "positive", "laws": LAWS, "simulate_motion": FLAG,
                         "on_failure": choice(("raise", "stop")), **STUDY_KINDS}),
    "preload_growth": (R.preload_growth, dict(robot=ROBOT, p=ROBOT.centroid, elbows=(1, 1, 1), step=1e-6),
                       {"p": batch(2), "elbows": ELBOWS, "step": "positive"}),
    "followable_preload": (R.followable_preload, dict(robot=ROBOT, t_sim=2.0, dt=STEP, samples=2, elbows=(1, 1, 1),
                                                      **CIRCLE),
                           {"t_sim": "positive", "dt": "positive", "samples": "count", "elbows": ELBOWS, **CIRCLE_KINDS}),
    "friction_sweep": (R.friction_sweep, dict(robot=ROBOT, parameter="preload", values=[0.0], n_jobs=1, samples=8,
                                              simulate_motion=False),
                       {"parameter": choice(R.SWEEP_PARAMETERS + tuple(f.name for f in dataclasses.fields(R.Robot))),
                        "values": VALUES, "n_jobs": N_JOBS, "samples": SAMPLES, "simulate_motion": FLAG}),
    "decoupling_error": (R.decoupling_error, dict(robot=ROBOT, **STUDY), STUDY_KINDS),
    "decoupling_map": (R.decoupling_map, dict(robot=ROBOT, mu_r=[1e-3], parameter="preload", values=[0.0], samples=8,
                                              radius=0.04),
                       {"mu_r": MU_R, "parameter": choice(("preload", "period")), "values": VALUES, "samples": SAMPLES,
                        "radius": "nonnegative"}),
    "friction_comparison": (R.friction_comparison, dict(robot=ROBOT, t_end=T_END, **STUDY),
                            {"t_end": optional("positive"), **STUDY_KINDS}),
    "rms": (R.rms, dict(x=np.array([[3.0, -4.0], [0.0, 0.0]])), {"x": "array"}),
}


#: Public names deliberately not in the tables, and why.
NOT_FUZZED = {"load": "its bad input is a file: a missing and a malformed file, and a path that is not one, are "
                      "tested once (test_load_refuses_a_missing_or_malformed_file)"}


#: Result containers of robolib.redundant (named tuples, built by the library, not by a caller).
RESULTS = {"Dynamics", "InverseDynamics", "TaskTrajectory", "Simulation", "StribeckCalibration"}


@pytest.mark.fuzz
def test_the_table_covers_every_public_function():
    """Every public function and class of robolib.redundant is in a table (a class too: ``Robot``,
    ``TorqueSchedule``), but ``load`` and the result containers, the named tuples of :data:`RESULTS`."""
    public = {name for name in R.__all__ if callable(getattr(R, name))}
    results = {name for name in public if isinstance(getattr(R, name), type) and issubclass(getattr(R, name), tuple)}
    assert results == RESULTS
    tables = {**ENTRY_POINTS, **SIMULATION}
    missing = public - results - set(NOT_FUZZED) - set(tables)
    assert not missing, f"public functions and classes of robolib.redundant without an entry: {sorted(missing)}"
    assert {"Robot", "TorqueSchedule"} <= set(tables) and not set(NOT_FUZZED) & set(tables)
    for name, (fn, kwargs, kinds) in tables.items():
        assert fn is getattr(R, name) and set(kinds) <= set(kwargs), name


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests({**ENTRY_POINTS, **SIMULATION})


def _leaves(out):
    if isinstance(out, tuple):
        return [x for o in out for x in _leaves(o)]
    return [np.asarray(out, dtype=float)]


BATCH_CASES = [(e, a) for e, (_, _, kinds) in ENTRY_POINTS.items() for a, k in kinds.items()
               if isinstance(k, Kind) and "batch" in k.label]


@pytest.mark.fuzz
@pytest.mark.parametrize("lead", [(1,), (3,), (2, 2)])
@pytest.mark.parametrize("entry,arg", BATCH_CASES, ids=[f"{e}:{a}" for e, a in BATCH_CASES])
def test_a_batch_argument_takes_any_leading_shape(entry, arg, lead):
    """A batch argument of leading shape ``lead`` gives the single answer at every sample (the others broadcast)."""
    fn, kwargs, _ = ENTRY_POINTS[entry]
    one = _leaves(fn(**kwargs))
    value = np.asarray(kwargs[arg])
    many = _leaves(fn(**{**kwargs, arg: np.broadcast_to(value, lead + value.shape)}))
    assert len(one) == len(many)
    for a, b in zip(one, many):
        assert b.shape == lead + a.shape, (entry, arg, b.shape)
        assert np.allclose(b, a, rtol=1e-12, atol=1e-12)


# ---- properties on random valid inputs ---------------------------------------------------------------
PROPERTY = budget(25)


#: End-effector points within 0.15 m of the base centroid: 0.14 .. 0.44 m from every base point, inside
#: the 2 l = 0.5 m reach, so every chain stays at least ~30 degrees from stretched or folded.
POINTS = st.builds(lambda r, th: ROBOT.centroid + r * np.array([math.cos(th), math.sin(th)]),
                   st.floats(0.0, 0.15), st.floats(-math.pi, math.pi))


ELBOW_SIGNS = st.tuples(*[st.sampled_from([1, -1])] * 3)


PLANAR = st.builds(np.array, st.lists(st.floats(-1.0, 1.0), min_size=2, max_size=2))


TORQUES = st.builds(np.array, st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3))


GAINS = st.tuples(st.floats(0.0, 50.0), st.floats(0.0, 50.0))


def assembled(p, v, elbows, acc=None):
    """Assembled ``(q, dq[, ddq])`` with the end-effector at ``p`` moving at ``v`` (accelerating at ``acc``);
    configurations where the three passive links are (nearly) parallel -- the motors lose control of
    one direction -- are skipped."""
    q = R.inverse_kinematics(ROBOT, p, elbows)
    sv = np.linalg.svd(R.actuation_jacobian(ROBOT, q) * ROBOT.link_length, compute_uv=False)
    assume(sv[-1] > 0.05 * sv[0])
    if acc is None:
        return q, R.joint_rates(ROBOT, q, v)
    return (q, *R.joint_rates(ROBOT, q, v, acc))


def _close(x, ref, rel):
    return float(np.abs(np.asarray(x) - ref).max()) <= rel * max(1.0, float(np.abs(ref).max()))


SPEEDS = st.one_of(st.just(0.0), st.floats(1e-3, 100.0), st.floats(-100.0, -1e-3))
