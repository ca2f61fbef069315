"""The public interface of robolib.stewart: every entry point names a bad argument."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
import yaml
from fuzzing import bad_values, entry_point_tests
from hypothesis import strategies as st

from robolib import ParameterError, stewart
from robolib.core.params import resolve_data_path
from robolib.core.rotations import matrix_rpy, rpy_matrix, skew

# ==== every public entry point of robolib.stewart names a bad argument ==============================================
#
# robolib.stewart fuzzed: every public entry point names a bad argument; properties on random valid inputs.
#
# Part 1 (the pattern of tests/fuzzing.py): for each public entry point of ``robolib.stewart`` a valid
# call and, per argument, the kind of value it takes. Hypothesis draws a bad value of that kind and the
# call must raise a :class:`robolib.RobolibError` naming the argument -- never a bare Python/numpy error,
# a silent NaN or a result. Kinds the harness (tests/fuzzing.py) lacks are :class:`Kind` objects here,
# drawn by the harness from ``Kind.make(valid value)`` (a state ``(..., 6)`` that broadcasts over a batch, a
# flag, a method name, text, an optional argument, a gains mapping, a model's parameter block).
# Arguments that are model objects (the model, a trajectory, a body) are not fuzzed; a wrong type
# for them is checked once. The loaders are checked once on a missing and a malformed file, and
# ``from_dict`` field by field.
#
# Part 2: properties on random valid inputs (hypothesis shrinks a failure to the simplest state):
# FK(IK(X)) = X on random reachable poses; the Jacobian against finite differences of the leg
# lengths; Newton-Euler = virtual work at rest with point-mass legs; forward dynamics inverts inverse
# dynamics; the power balance ``f . dl = d/dt (T + U) + dissipation`` at a random state.

pytestmark = pytest.mark.fuzz  # make fuzz: -m fuzz with a larger budget

M = stewart.load("stewart/tsai2000.yaml")


HYD = stewart.load("stewart/hydraulic.yaml")


MODELS = {"tsai2000": M, "hydraulic": HYD}


RAW = yaml.safe_load(resolve_data_path("stewart/tsai2000.yaml").read_text())


# ---- valid arguments: a batch of two reachable states ------------------------------------------------
X2 = M.home_pose + np.array([[0.01, 0.0, 0.02, 0.0, 0.01, 0.0], [-0.02, 0.01, 0.0, 0.01, 0.0, -0.01]])


V2 = np.array([[0.1, 0.0, -0.1, 0.2, 0.0, 0.1], [-0.1, 0.2, 0.0, 0.3, 0.0, 0.1]])


A2 = np.array([[1.0, 0.0, -0.5, 2.0, 0.0, 1.0], [0.0, 1.0, 0.5, 0.0, -1.0, 0.0]])


E2 = np.array([[0.0, 0.0, -10.0, 0.0, 1.0, 0.0], [5.0, 0.0, 0.0, 0.0, 0.0, 0.5]])


L2 = stewart.inverse_kinematics(M, X2)


F2 = stewart.inverse_dynamics(M, X2, V2, A2)


TR = stewart.trajectory_from_model(M)


T5, ERR5 = np.linspace(0.0, 1.0, 5), np.exp(-np.linspace(0.0, 4.0, 5))[:, None] * np.ones(6)


MODEL_FIELDS = {f.name: getattr(M, f.name) for f in fields(stewart.StewartModel) if f.name != "packed"}


# ---- kinds the harness lacks -------------------------------------------------------------------------
class Kind:
    """A kind of argument: its bad values are ``make(valid value)`` (a hypothesis strategy)."""

    def __init__(self, name, make):
        self.name, self.make = name, make

    def __repr__(self):
        return self.name


def _fixed(strategy, name):
    return Kind(name, lambda valid: strategy)


def optional(kind) -> Kind:
    """The same kind for an argument whose default is None (None is valid there)."""
    make = kind.make if isinstance(kind, Kind) else (lambda valid: bad_values(kind))
    return Kind(f"optional {kind!r}", lambda valid: make(valid).filter(lambda v: v is not None))


def with_bad(kind, strategy) -> Kind:
    """A kind with more bad values (e.g. a limit that depends on another argument)."""
    make = kind.make if isinstance(kind, Kind) else (lambda valid: bad_values(kind))
    return Kind(f"{kind!r}+", lambda valid: st.one_of(make(valid), strategy))


#: Arrays that are not real numbers although they have the right shape, or are not arrays at all.
NOT_REAL_ARRAY = st.sampled_from([np.ones(6, dtype=bool), np.array(["1"] * 6),
                                  np.array([1.0] * 5 + [None], dtype=object), [[1.0] * 6, [1.0] * 5], np.ones(6) * 1j,
                                  [1.0] * 5 + ["x"], {}, b"123456"])


def _state_bad(valid, batch: bool):
    """Bad states ``(..., 6)``: the harness's bad (6,) arrays, the same in a batch (2, 6) and (2, 3, 6),
    non-real arrays and, with ``batch`` (other states in the call), a batch that does not broadcast."""
    parts = [bad_values((6,)), bad_values((2, 6)), bad_values((2, 3, 6)), NOT_REAL_ARRAY]
    if batch:
        rows = np.zeros((2, 6)) if valid is None else np.asarray(valid, dtype=float).reshape(-1, 6)
        parts.append(st.just(np.concatenate([rows, rows, rows[:1]])))     # batch of 2k + 1: does not broadcast
    return st.one_of(*parts)


STATE = Kind("state (..., 6)", lambda valid: _state_bad(valid, False))


BSTATE = Kind("state (..., 6) with others", lambda valid: _state_bad(valid, True))


def _with_entry(value, i):
    a = np.array(L2, dtype=float)
    a.flat[i % a.size] = value
    return a


LENGTHS = with_bad(BSTATE, st.builds(_with_entry, st.sampled_from([0.0, -1e-300, -1.0]), st.integers(0, 11)))


FLAG = _fixed(st.sampled_from([None, "x", "True", 1, 0, 1.5, float("nan"), [True], np.array([True, False])]), "flag")


METHOD = _fixed(st.sampled_from(["kane", "", "Newton_Euler", " newton_euler", None, 1.0, True, [], ("virtual_work",)]),
                "method")


TEXT = _fixed(st.sampled_from([None, 1.0, True, [], b"x", ("a",)]), "text")


GAINS = _fixed(st.sampled_from(["x", 1.0, [], [("kp", 1.0)], {"kq": 1.0}, {1: 1.0}, {"kp": float("nan")},
                                {"kp": "x"}, {"kp": -1.0}, {"kp": True}, {"kd": float("inf")}, {"ki": None},
                                {"kp": [1.0]}]), "gains")


FRACTION = with_bad("positive", st.sampled_from([1.0, 1.5, 1e9]))


BAD_FIELD = st.sampled_from([float("nan"), float("inf"), None, "x", True, -1.0, [], [[1.0]]])


def _block_bad(valid: dict):
    """Bad parameter blocks: not a mapping, empty, one field missing, bad or unknown."""
    keys = sorted(valid)
    return st.one_of(
        st.sampled_from(["x", 1.0, [], True, {}]),
        st.sampled_from(keys).map(lambda k: {kk: v for kk, v in valid.items() if kk != k}),
        st.builds(lambda k, bad: {**valid, k: bad}, st.sampled_from(keys), BAD_FIELD),
        st.just({**valid, "extra": 1.0}),
    )


BLOCK = Kind("parameter block", _block_bad)


LIMITS = with_bad(BLOCK, st.sampled_from([{**M.limits, "length_min": 2.0}, {**M.limits, "ujoint_max_angle": 4.0},
                                          {**M.limits, "sjoint_max_angle": 3.2}]))


# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
S = stewart


ENTRY_POINTS = {
    # model
    "stewart.from_dict": (S.from_dict, dict(data=RAW, source="tsai2000 (dict)"), {"source": TEXT}),
    "stewart.point_mass_legs": (S.point_mass_legs, dict(m=M), {}),
    "stewart.Body": (S.Body, dict(mass=1.0, com=np.array([0.0, 0.0, 0.3]), inertia=np.eye(3) * 0.01),
                     {"mass": "nonnegative", "com": (3,), "inertia": (3, 3)}),
    "stewart.StewartModel": (S.StewartModel, MODEL_FIELDS,
                             {"name": TEXT, "gravity": (3,), "base_joints": (6, 3), "platform_joints": (6, 3),
                              "home_pose": (6,), "ujoint_axes": (6, 3), "ujoint_viscous": "nonnegative",
                              "sjoint_viscous": "nonnegative", "prismatic_viscous": "nonnegative",
                              "trajectory": optional(BLOCK), "controller": optional(BLOCK),
                              "ujoint_axes_auto": FLAG, "source": TEXT, "limits": optional(LIMITS)}),
    # kinematics
    "stewart.leg_geometry": (S.leg_geometry, dict(model=M, pose=X2, limits=True), {"pose": STATE, "limits": FLAG}),
    "stewart.leg_frames": (S.leg_frames, dict(model=M, pose=X2), {"pose": STATE}),
    "stewart.joint_points": (S.joint_points, dict(model=M, pose=X2), {"pose": STATE}),
    "stewart.inverse_kinematics": (S.inverse_kinematics, dict(model=M, pose=X2), {"pose": STATE}),
    "stewart.forward_kinematics": (S.forward_kinematics, dict(model=M, lengths=L2, guess=X2, tol=1e-12, max_iter=50),
                                   {"lengths": LENGTHS, "guess": optional(BSTATE), "tol": "positive",
                                    "max_iter": "count"}),
    "stewart.jacobian": (S.jacobian, dict(model=M, pose=X2), {"pose": STATE}),
    "stewart.leg_motion": (S.leg_motion, dict(model=M, pose=X2, twist=V2, accel=A2, spin=True),
                           {"pose": BSTATE, "twist": BSTATE, "accel": optional(BSTATE), "spin": FLAG}),
    "stewart.pose_rates": (S.pose_rates, dict(pose=X2, twist=V2), {"pose": BSTATE, "twist": BSTATE}),
    "stewart.check_limits": (S.check_limits, dict(model=M, pose=X2, mask=False), {"pose": STATE, "mask": FLAG}),
    "stewart.limit_codes": (S.limit_codes, dict(model=M, pose=X2), {"pose": STATE}),
    "stewart.limit_interval": (S.limit_interval, dict(model=M, coordinate=2, pose=M.home_pose, span=2.0, tol=1e-6),
                               {"coordinate": st.sampled_from([-1, 6, 2.5, True, "z", None]), "pose": optional((6,)),
                                "span": "positive", "tol": "positive"}),
    "stewart.sampled_loop_radius": (S.sampled_loop_radius, dict(kp=1200.0, kd=60.0, ki=8000.0, step=1e-3),
                                    {"kp": "nonnegative", "kd": "nonnegative", "ki": "nonnegative",
                                     "step": "positive"}),
    # dynamics
    "stewart.inverse_dynamics": (S.inverse_dynamics, dict(model=M, pose=X2, twist=V2, accel=A2, method="newton_euler",
                                                          external=E2),
                                 {"pose": BSTATE, "twist": BSTATE, "accel": BSTATE, "method": METHOD,
                                  "external": optional(BSTATE)}),
    "stewart.inverse_dynamics_numpy": (S.inverse_dynamics_numpy, dict(model=M, pose=X2, twist=V2, accel=A2, spin=True),
                                       {"pose": BSTATE, "twist": BSTATE, "accel": BSTATE, "spin": FLAG}),
    "stewart.dynamics_terms": (S.dynamics_terms, dict(model=M, pose=X2, twist=V2, method="virtual_work"),
                               {"pose": BSTATE, "twist": BSTATE, "method": METHOD}),
    "stewart.forward_dynamics": (S.forward_dynamics, dict(model=M, pose=X2, twist=V2, forces=F2, method="newton_euler",
                                                          external=E2),
                                 {"pose": BSTATE, "twist": BSTATE, "forces": BSTATE, "method": METHOD,
                                  "external": optional(BSTATE)}),
    "stewart.kinetic_energy": (S.kinetic_energy, dict(model=M, pose=X2, twist=V2, spin=True),
                               {"pose": BSTATE, "twist": BSTATE, "spin": FLAG}),
    "stewart.potential_energy": (S.potential_energy, dict(model=M, pose=X2), {"pose": STATE}),
    "stewart.dissipation": (S.dissipation, dict(model=HYD, pose=HYD.home_pose + X2 - M.home_pose, twist=V2),
                            {"pose": BSTATE, "twist": BSTATE}),
    # control
    "stewart.Trajectory": (S.Trajectory, dict(home=M.home_pose, amplitude=np.full(6, 0.01), frequency=np.ones(6),
                                              phase=np.zeros(6)),
                           {"home": (6,), "amplitude": (6,), "frequency": (6,), "phase": (6,)}),
    "stewart.Trajectory.__call__": (TR, dict(t=np.array([0.0, 0.5])), {"t": "array"}),
    "stewart.Trajectory.from_hz": (S.Trajectory.from_hz, dict(home=M.home_pose, amplitude=np.full(6, 0.01),
                                                              frequency_hz=np.ones(6), phase=np.zeros(6)),
                                   {"home": (6,), "amplitude": (6,), "frequency_hz": (6,), "phase": (6,)}),
    "stewart.PoseFunction": (S.PoseFunction, dict(pose=lambda t: M.home_pose + 0 * t[:, None], dt=1e-3),
                             {"pose": st.sampled_from([None, 1.0, "x", M.home_pose]), "dt": "positive"}),
    "stewart.PoseFunction.__call__": (S.PoseFunction(lambda t: M.home_pose + 0 * t[:, None]),
                                      dict(t=np.array([0.0, 0.5])), {"t": "array"}),
    "stewart.trajectory_from_model": (S.trajectory_from_model, dict(model=M), {}),
    "stewart.joint_references": (S.joint_references, dict(model=M, trajectory=TR, t=np.array([0.0, 0.5])),
                                 {"t": "array"}),
    "stewart.simulate": (S.simulate, dict(model=M, controller="newton_euler", pid=True, gains={"kp": 100.0, "kd": 20.0},
                                          duration=0.005, step=1e-3, trajectory=TR, initial_error=np.full(6, 1e-3),
                                          plant="virtual_work"),
                         {"controller": METHOD, "pid": FLAG, "gains": optional(GAINS),
                          "duration": optional("positive"), "step": with_bad(optional("positive"), st.just(1.0)),
                          "initial_error": optional((6,)), "plant": METHOD}),
    "stewart.tracking_metrics": (S.tracking_metrics, dict(t=T5, error=ERR5, window=0.5, fraction=0.01),
                                 {"t": (5,), "error": (5, 6), "window": with_bad("positive", st.just(2.0)),
                                  "fraction": FRACTION}),
}


#: Names of ``stewart.__all__`` that are not entry points fuzzed here, and why.
NOT_FUZZED = {
    "LIMIT_CODES": "a constant (the meaning of each limit code), not a function",
    "load": "a loader whose bad input is a file: a missing and a malformed file are tested once "
            "(test_load_refuses_missing_and_malformed_files)",
    "aswritten": "timing and reference code (plain-numpy derivations), not a public entry point of the model",
    "LegGeometry": "result container (named tuple returned by leg_geometry)",
    "LegMotion": "result container (named tuple returned by leg_motion)",
    "DynamicsTerms": "result container (named tuple returned by dynamics_terms)",
    "SimResult": "result container (returned by simulate)",
    "METHODS": "a constant (the method names)",
}


#: Arguments that are model objects: not fuzzed; a wrong type is refused by name (test_model_objects_are_type_checked).
OBJECT_ARGS = {name: ["model"] for name, (_, kw, _) in ENTRY_POINTS.items() if "model" in kw}


OBJECT_ARGS.update({"stewart.point_mass_legs": ["m"], "stewart.StewartModel": ["platform", "cylinder", "rod"]})


OBJECT_ARGS["stewart.joint_references"].append("trajectory")


OBJECT_ARGS["stewart.simulate"].append("trajectory")


#: Arguments tested by their own test instead of a kind.
TESTED_APART = {"stewart.from_dict": ["data"]}   # test_from_dict_names_a_bad_field: field by field


# ---- part 1: bad arguments ---------------------------------------------------------------------------
@pytest.mark.fuzz
def test_the_table_covers_the_public_api():
    covered = {name.split(".")[1] for name in ENTRY_POINTS} | set(NOT_FUZZED)
    assert sorted(set(stewart.__all__) - covered) == []
    for name, (fn, kwargs, kinds) in ENTRY_POINTS.items():
        assert set(kinds) <= set(kwargs), name
        assert set(kinds) | set(OBJECT_ARGS.get(name, [])) | set(TESTED_APART.get(name, [])) == set(kwargs), \
            f"{name}: an argument without a kind"


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS, copy_kwargs=True)


def _leaves(out):
    if out is None:
        return []
    if isinstance(out, tuple):
        return [leaf for o in out for leaf in _leaves(o)]
    return [np.asarray(out)]


STATE_ENTRIES = [name for name, (_, _, kinds) in ENTRY_POINTS.items()
                 if any(k in (STATE, BSTATE, LENGTHS) or repr(k).startswith("optional state") for k in kinds.values())]


@pytest.mark.fuzz
@pytest.mark.parametrize("entry", STATE_ENTRIES)
def test_a_state_takes_any_leading_shape(entry):
    """One state (6,), a batch (2, 6) and the same batch broadcast to (3, 1, 2, 6) give the same numbers."""
    fn, kwargs, kinds = ENTRY_POINTS[entry]
    states = [a for a in kinds if isinstance(kwargs[a], np.ndarray) and kwargs[a].shape == (2, 6)]
    batch = _leaves(fn(**kwargs))
    deep = _leaves(fn(**{**kwargs, **{a: np.broadcast_to(kwargs[a], (3, 1, 2, 6)) for a in states}}))
    for k in range(2):
        single = _leaves(fn(**{**kwargs, **{a: kwargs[a][k] for a in states}}))
        mixed = _leaves(fn(**{**kwargs, states[0]: kwargs[states[0]][k]}))  # one state, the others a batch
        for s, b, d, m in zip(single, batch, deep, mixed):
            bk = b if b.shape == s.shape else b[k]
            assert np.allclose(bk, s, rtol=1e-12, atol=1e-12 * (1 + np.abs(s).max()))
            assert np.allclose(d, np.broadcast_to(b, d.shape), rtol=1e-12, atol=1e-12 * (1 + np.abs(b).max()))
            if len(states) > 1:
                mk = m if m.shape == s.shape else m[k]
                assert np.allclose(mk, s, rtol=1e-12, atol=1e-12 * (1 + np.abs(s).max()))


@pytest.mark.fuzz
@pytest.mark.parametrize("entry", sorted(OBJECT_ARGS))
def test_model_objects_are_type_checked(entry):
    fn, kwargs, _ = ENTRY_POINTS[entry]
    for arg in OBJECT_ARGS[entry]:
        for bad in ("tsai2000", 1.0, {}, None):
            if bad is None and entry == "stewart.simulate" and arg == "trajectory":
                continue  # None: the model's trajectory
            with pytest.raises(ParameterError) as exc:
                fn(**{**kwargs, arg: bad})
            text = str(exc.value)
            assert arg in text or "StewartModel" in text, f"{entry}({arg}={bad!r}): {text}"


def _field_paths(d, prefix=""):
    for k, v in d.items():
        yield prefix + k
        if isinstance(v, dict):
            yield from _field_paths(v, prefix + k + ".")


FIELD_PATHS = sorted(_field_paths(RAW))


# ---- part 2: properties on random valid inputs -------------------------------------------------------
#: Pose perturbation (m, m, m, rad, rad, rad) around home for random states (as in tests/stewart/test_kinematics.py).
SPREAD = np.array([0.1, 0.1, 0.1, 0.15, 0.15, 0.15])


UNIT6 = st.lists(st.floats(-1.0, 1.0), min_size=6, max_size=6).map(np.array)


MODEL = st.sampled_from(sorted(MODELS))


def reachable(model, *poses) -> bool:
    return all(bool(stewart.check_limits(model, X, mask=True)) for X in poses)


def moved_pose(X, V, h):
    """Pose after moving for time ``h`` with the constant twist ``V`` (exact rigid motion, base frame)."""
    w = V[3:]
    th = np.linalg.norm(w) * h
    K = skew(w / np.linalg.norm(w)) if np.linalg.norm(w) > 0 else np.zeros((3, 3))
    dR = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
    return np.concatenate((X[:3] + V[:3] * h, matrix_rpy(dR @ rpy_matrix(X[3:]))))
