"""The rotation helpers fuzzed (issue 21, item 1), and their properties on random valid inputs.

Part 1: every public function of :mod:`robolib.core.rotations` with a valid call and, per argument, the
kind of value it takes (tests/fuzzing.py); a bad value must raise a :class:`robolib.RobolibError`
naming the argument. Part 2, properties checked through independent routes: orthonormality and
``det = +1`` of every rotation, the round trip ``matrix_rpy(rpy_matrix(x)) = x`` (pitch inside
``(-pi/2, pi/2)``), the composition ``Rz Ry Rx`` and ``rot_x(a) rot_x(b) = rot_x(a + b)``, the skew
matrix against :func:`numpy.cross`, and the Euler-rate map ``E`` and its time derivative against
central finite differences of ``R(t)`` (``[omega]x = dR/dt R^T``) and of ``omega(t)``.
"""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import _array_bad, budget, entry_point_tests
from hypothesis import given
from hypothesis import strategies as st

from robolib import ParameterError, SingularityError
from robolib import rotations as rot

pytestmark = pytest.mark.fuzz  # make fuzz: -m fuzz with a larger budget

NAN, INF = float("nan"), float("inf")
RPY = np.array([0.1, -0.2, 0.3])


class Kind:
    """An argument kind with its own strategy of bad values (drawn by the harness from ``bad``)."""

    def __init__(self, name, bad):
        self.name, self.bad = name, bad

    def __repr__(self):
        return self.name


LEADS = st.sampled_from([(), (1,), (2,), (2, 3)])


def _with_entry(shape, bad, i):
    a = np.ones(shape)
    a.flat[i % a.size] = bad
    return a


def vectors(n) -> Kind:
    """Vectors ``(..., n)`` (``n=None``: any trailing length): non-finite entries, text, None, bools, empty,
    a wrong trailing axis, a scalar, text or bool arrays."""
    wrong = [] if n is None else [st.builds(lambda lead, k: np.ones(lead + (k,)), LEADS,
                                            st.integers(1, 5).filter(lambda k: k != n))]
    return Kind(f"vectors(...,{n})", st.one_of(
        st.builds(lambda lead, bad, i: _with_entry(lead + (n or 3,), bad, i), LEADS,
                  st.sampled_from([NAN, INF, -INF]), st.integers(0, 99)),
        st.sampled_from(["x", None, True, 1.0, np.zeros(0), np.zeros((2, 0)), np.array(["a"] * 3),
                         np.ones(3, dtype=bool), [[1.0, 2.0, 3.0], [1.0]], {}]),
        *wrong,
    ))


def _not_rotation(kind):
    return {"scaled": 2 * np.eye(3), "reflection": np.diag([1.0, 1.0, -1.0]), "sheared": np.array(
        [[1.0, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), "zero": np.zeros((3, 3)),
        "batch with one bad": np.stack([np.eye(3), 1.001 * np.eye(3)])}[kind]


MATRICES = Kind("rotation (...,3,3)", st.one_of(
    _array_bad((3, 3)),
    st.builds(lambda lead, bad, i: _with_entry(lead + (3, 3), bad, i), LEADS, st.sampled_from([NAN, INF, -INF]),
              st.integers(0, 99)),
    st.sampled_from(["scaled", "reflection", "sheared", "zero", "batch with one bad"]).map(_not_rotation),
    st.sampled_from([np.eye(2), np.ones(3), np.ones((3, 3, 2))]),
))
#: An optional vector argument (None is valid: the angular acceleration is not computed).
OPTIONAL_VECTORS = Kind("optional vectors(...,3)", st.one_of(vectors(3).bad.filter(lambda v: v is not None),
                                                             st.just(np.ones((4, 3)))))
TEXT = Kind("text", st.sampled_from([None, 1.0, True, b"v", ["v"], ""]))

ENTRY_POINTS = {
    "rot_x": (rot.rot_x, dict(angle=np.array([0.1, -0.5])), {"angle": "array"}),
    "rot_y": (rot.rot_y, dict(angle=0.3), {"angle": "array"}),
    "rot_z": (rot.rot_z, dict(angle=np.array([[0.1], [2.0]])), {"angle": "array"}),
    "rpy_matrix": (rot.rpy_matrix, dict(rpy=RPY), {"rpy": vectors(3)}),
    "matrix_rpy": (rot.matrix_rpy, dict(R=rot.rpy_matrix(RPY)), {"R": MATRICES}),
    "rpy_rate_matrix": (rot.rpy_rate_matrix, dict(rpy=RPY), {"rpy": vectors(3)}),
    "rpy_rates_to_twist": (rot.rpy_rates_to_twist, dict(rpy=np.stack([RPY, -RPY]), drpy=np.array([0.2, 0.1, -0.3]),
                                                        ddrpy=np.array([[1.0, 0.0, 0.5], [0.0, 0.0, 1.0]])),
                           {"rpy": vectors(3),
                            "drpy": Kind("drpy", st.one_of(vectors(3).bad, st.just(np.ones((4, 3))))),
                            "ddrpy": OPTIONAL_VECTORS}),
    "skew": (rot.skew, dict(v=np.array([1.0, 2.0, 3.0])), {"v": vectors(3)}),
    "cross": (rot.cross, dict(a=np.array([[1.0, 0.0, 0.0]]), b=np.array([0.0, 1.0, 0.0])),
              {"a": vectors(3), "b": vectors(3)}),
    "dot": (rot.dot, dict(a=np.array([1.0, 2.0, 3.0]), b=np.array([[4.0, 5.0, 6.0]])),
            {"a": vectors(None), "b": vectors(None)}),
    "normalize": (rot.normalize, dict(v=np.array([3.0, 0.0, 4.0]), name="v"), {"v": vectors(None), "name": TEXT}),
}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


def test_the_table_covers_every_public_function():
    public = {n for n in rot.__all__ if callable(getattr(rot, n))}
    assert public == set(ENTRY_POINTS)
    import inspect
    for name, (fn, kwargs, kinds) in ENTRY_POINTS.items():
        assert set(inspect.signature(fn).parameters) == set(kinds), name


def test_edge_values_are_named():
    """A zero vector has no direction; vectors that do not broadcast; finite inputs whose product overflows."""
    with pytest.raises(SingularityError, match="leg"):
        rot.normalize(np.zeros(3), "leg")
    with pytest.raises(ParameterError, match="do not broadcast"):
        rot.cross(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(ParameterError, match="same trailing length"):
        rot.dot(np.ones(3), np.ones(2))
    with pytest.raises(ParameterError, match="overflows"):
        rot.cross(np.array([1e300, 0.0, 0.0]), np.array([0.0, 1e300, 0.0]))
    assert np.allclose(rot.normalize(np.array([1e300, 1e300, 0.0])), [2 ** -0.5, 2 ** -0.5, 0.0])  # no overflow
    with pytest.raises(ParameterError, match="ddrpy of shape"):
        rot.rpy_rates_to_twist(np.zeros((2, 3)), np.zeros(3), np.zeros((4, 3)))
    omega, alpha = rot.rpy_rates_to_twist(np.zeros(3), np.ones((4, 3)), np.zeros(3))   # rates of a batch
    assert omega.shape == alpha.shape == (4, 3)


# ---- properties on random valid inputs ---------------------------------------------------------------------
#: Round-off bound of a rotation built from a few sines and cosines (orthonormality, det, compositions).
ROUNDOFF = 1e-13
#: Central-difference step (rad or s) and the bound on its O(h^2) truncation plus round-off in the rates.
FD_STEP, FD_TOL = 1e-5, 1e-8
ANGLE = st.floats(-10.0, 10.0)
PITCH = st.floats(-1.5, 1.5)                  # away from the singular pitch = +-pi/2
ANGLES3 = st.tuples(ANGLE, ANGLE, ANGLE).map(np.array)
RPY_REGULAR = st.tuples(st.floats(-np.pi + 1e-6, np.pi - 1e-6), PITCH, st.floats(-np.pi + 1e-6, np.pi - 1e-6)).map(
    np.array)


@budget(40)
@given(rpy=ANGLES3, a=ANGLE)
def test_every_rotation_is_orthonormal_with_determinant_one(rpy, a):
    for R in (rot.rpy_matrix(rpy), rot.rot_x(a), rot.rot_y(a), rot.rot_z(a)):
        assert np.abs(R.T @ R - np.eye(3)).max() < ROUNDOFF
        assert abs(np.linalg.det(R) - 1.0) < ROUNDOFF


@budget(40)
@given(rpy=RPY_REGULAR)
def test_matrix_rpy_inverts_rpy_matrix(rpy):
    assert np.abs(rot.matrix_rpy(rot.rpy_matrix(rpy)) - rpy).max() < 1e-9
    R = rot.rpy_matrix(rpy)
    assert np.abs(rot.rpy_matrix(rot.matrix_rpy(R)) - R).max() < ROUNDOFF * 10


@budget(40)
@given(rpy=ANGLES3, a=ANGLE, b=ANGLE)
def test_compositions(rpy, a, b):
    """``rpy_matrix = Rz(yaw) Ry(pitch) Rx(roll)``; rotations about one axis add their angles; ``R^T`` undoes ``R``."""
    r, p, y = rpy
    assert np.abs(rot.rpy_matrix(rpy) - rot.rot_z(y) @ rot.rot_y(p) @ rot.rot_x(r)).max() < ROUNDOFF
    for R in (rot.rot_x, rot.rot_y, rot.rot_z):
        assert np.abs(R(a) @ R(b) - R(a + b)).max() < 1e-12
        assert np.abs(R(-a) - R(a).T).max() < ROUNDOFF
    batch = rot.rpy_matrix(np.stack([rpy, rpy[::-1]]))
    assert np.array_equal(batch[1], rot.rpy_matrix(rpy[::-1]))


@budget(40)
@given(v=ANGLES3, u=ANGLES3)
def test_skew_cross_and_dot_against_numpy(v, u):
    assert np.allclose(rot.skew(v) @ u, np.cross(v, u), rtol=0, atol=1e-12)
    assert np.allclose(rot.cross(v, u), np.cross(v, u), rtol=0, atol=1e-12)
    assert np.allclose(rot.skew(v), -rot.skew(v).T, rtol=0, atol=0)
    assert abs(rot.dot(v, u) - float(np.dot(v, u))) < 1e-12
    if np.linalg.norm(v) > 1e-3:
        n = rot.normalize(v)
        assert abs(np.linalg.norm(n) - 1.0) < ROUNDOFF and rot.dot(n, v) > 0


@budget(40)
@given(a=ANGLE, axis=st.sampled_from([0, 1, 2]))
def test_derivative_of_an_axis_rotation_is_the_skew_of_its_axis(a, axis):
    """``d/da R_k(a) = [e_k]x R_k(a)`` against central differences (the small-angle generator)."""
    R = (rot.rot_x, rot.rot_y, rot.rot_z)[axis]
    dR = (R(a + FD_STEP) - R(a - FD_STEP)) / (2 * FD_STEP)
    assert np.abs(dR - rot.skew(np.eye(3)[axis]) @ R(a)).max() < FD_TOL


@budget(40)
@given(rpy=RPY_REGULAR, drpy=ANGLES3.map(lambda x: x / 10), ddrpy=ANGLES3.map(lambda x: x / 10))
def test_euler_rates_give_the_angular_velocity_of_R_t(rpy, drpy, ddrpy):
    """Along ``x(t) = rpy + drpy t + ddrpy t^2 / 2``: ``[omega]x = dR/dt R^T`` and ``alpha = d omega / dt``, both
    by central differences at ``t = 0``."""
    def x(t):
        return rpy + drpy * t + 0.5 * ddrpy * t * t

    h = FD_STEP
    dR = (rot.rpy_matrix(x(h)) - rot.rpy_matrix(x(-h))) / (2 * h)
    W = dR @ rot.rpy_matrix(rpy).T
    omega, alpha = rot.rpy_rates_to_twist(rpy, drpy, ddrpy)
    assert np.abs(W - rot.skew(omega)).max() < FD_TOL * (1 + np.abs(drpy).max())
    assert np.allclose(omega, rot.rpy_rate_matrix(rpy) @ drpy, rtol=0, atol=1e-14)
    w_plus = rot.rpy_rates_to_twist(x(h), drpy + ddrpy * h)
    w_minus = rot.rpy_rates_to_twist(x(-h), drpy - ddrpy * h)
    assert np.abs((w_plus - w_minus) / (2 * h) - alpha).max() < FD_TOL * (1 + np.abs(drpy).max()) ** 2
