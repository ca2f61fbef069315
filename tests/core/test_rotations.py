"""The rotation helpers (robolib.core.rotations)."""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import _array_bad, budget, entry_point_tests, names
from hypothesis import given
from hypothesis import strategies as st
from scipy.linalg import expm

from robolib import ParameterError, SingularityError
from robolib import rotations as rot
from robolib.core.rotations import rpy_matrix, rpy_rates_to_twist

# ==== rotation helpers name a bad argument; their properties on random inputs =======================================
#
# The rotation helpers fuzzed (issue 21, item 1), and their properties on random valid inputs.
#
# Part 1: every public function of :mod:`robolib.core.rotations` with a valid call and, per argument, the
# kind of value it takes (tests/fuzzing.py); a bad value must raise a :class:`robolib.RobolibError`
# naming the argument. Part 2, properties checked through independent routes: orthonormality and
# ``det = +1`` of every rotation, the round trip ``matrix_rpy(rpy_matrix(x)) = x`` (pitch inside
# ``(-pi/2, pi/2)``), the composition ``Rz Ry Rx`` and ``rot_x(a) rot_x(b) = rot_x(a + b)``, the skew
# matrix against :func:`numpy.cross`, and the Euler-rate map ``E`` and its time derivative against
# central finite differences of ``R(t)`` (``[omega]x = dR/dt R^T``) and of ``omega(t)``.

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


@pytest.mark.fuzz
def test_the_table_covers_every_public_function():
    public = {n for n in rot.__all__ if callable(getattr(rot, n))}
    assert public == set(ENTRY_POINTS)
    import inspect
    for name, (fn, kwargs, kinds) in ENTRY_POINTS.items():
        assert set(inspect.signature(fn).parameters) == set(kinds), name


@pytest.mark.fuzz
def test_edge_values_are_named():
    """A zero vector has no direction; vectors that do not broadcast; finite inputs whose product overflows."""
    with pytest.raises(SingularityError, match="leg"):
        rot.normalize(np.zeros(3), "leg")
    with pytest.raises(ParameterError, match=names("a", "b", "broadcast")):
        rot.cross(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(ParameterError, match="same trailing length"):
        rot.dot(np.ones(3), np.ones(2))
    with pytest.raises(ParameterError, match="overflows"):
        rot.cross(np.array([1e300, 0.0, 0.0]), np.array([0.0, 1e300, 0.0]))
    assert np.allclose(rot.normalize(np.array([1e300, 1e300, 0.0])), [2 ** -0.5, 2 ** -0.5, 0.0])  # no overflow
    with pytest.raises(ParameterError, match=names("ddrpy", "shape")):
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


@pytest.mark.fuzz
@budget(40)
@given(rpy=ANGLES3, a=ANGLE)
def test_every_rotation_is_orthonormal_with_determinant_one(rpy, a):
    for R in (rot.rpy_matrix(rpy), rot.rot_x(a), rot.rot_y(a), rot.rot_z(a)):
        assert np.abs(R.T @ R - np.eye(3)).max() < ROUNDOFF
        assert abs(np.linalg.det(R) - 1.0) < ROUNDOFF


@pytest.mark.fuzz
@budget(40)
@given(rpy=RPY_REGULAR)
def test_matrix_rpy_inverts_rpy_matrix(rpy):
    assert np.abs(rot.matrix_rpy(rot.rpy_matrix(rpy)) - rpy).max() < 1e-9
    R = rot.rpy_matrix(rpy)
    assert np.abs(rot.rpy_matrix(rot.matrix_rpy(R)) - R).max() < ROUNDOFF * 10


@pytest.mark.fuzz
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


@pytest.mark.fuzz
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


@pytest.mark.fuzz
@budget(40)
@given(a=ANGLE, axis=st.sampled_from([0, 1, 2]))
def test_derivative_of_an_axis_rotation_is_the_skew_of_its_axis(a, axis):
    """``d/da R_k(a) = [e_k]x R_k(a)`` against central differences (the small-angle generator)."""
    R = (rot.rot_x, rot.rot_y, rot.rot_z)[axis]
    dR = (R(a + FD_STEP) - R(a - FD_STEP)) / (2 * FD_STEP)
    assert np.abs(dR - rot.skew(np.eye(3)[axis]) @ R(a)).max() < FD_TOL


@pytest.mark.fuzz
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



# ==== rotation helpers through independent routes ===================================================================
#
# Rotation helpers through independent routes (issue 21, item 5: tests that catch single bugs).
#
# Every helper of :mod:`robolib.core.rotations` against a route that does not share its code:
# the axis rotations against Rodrigues' formula (``expm`` of the cross-product matrix), the
# roll-pitch-yaw matrix against the product of the axis rotations, the rate matrix and the angular
# acceleration against central differences of ``R(t)``, ``skew``/``cross``/``dot`` against numpy,
# and the refusal thresholds at their boundary values. Angles are generic (no zero, no symmetric
# value) so that a swapped sign or index cannot hide behind ``sin 0 = 0``.

RNG = np.random.default_rng(20261203)


#: Generic angle triples (rad): no zero, no multiple of pi/4, pitch within (-pi/2, pi/2).
RPYS = np.array([[0.31, -0.47, 1.13], [-1.2, 0.83, -2.6], [2.9, -1.31, 0.07]])


#: Central-difference step (s) and the agreement it reaches on these smooth functions.
H = 1e-5


EXACT = 1e-13


def rodrigues(axis, angle):
    """``expm(angle [e]x)``: the rotation by ``angle`` about the unit ``axis`` (independent of robolib)."""
    e = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])
    return expm(angle * K)


@pytest.mark.parametrize("angle", [0.37, -1.9, 2.8])
def test_axis_rotations_are_rodrigues_rotations(angle):
    for f, axis in ((rot.rot_x, [1, 0, 0]), (rot.rot_y, [0, 1, 0]), (rot.rot_z, [0, 0, 1])):
        np.testing.assert_allclose(f(angle), rodrigues(axis, angle), atol=EXACT)


def test_axis_rotations_broadcast_over_a_batch_of_angles():
    angles = np.array([[0.2, -0.7], [1.4, 3.0]])
    R = rot.rot_y(angles)
    assert R.shape == (2, 2, 3, 3)
    np.testing.assert_allclose(R[1, 0], rodrigues([0, 1, 0], 1.4), atol=EXACT)


@pytest.mark.parametrize("rpy", RPYS)
def test_rpy_matrix_is_the_product_of_rodrigues_rotations(rpy):
    r, p, y = rpy
    ref = rodrigues([0, 0, 1], y) @ rodrigues([0, 1, 0], p) @ rodrigues([1, 0, 0], r)
    np.testing.assert_allclose(rot.rpy_matrix(rpy), ref, atol=EXACT)
    np.testing.assert_allclose(rot.rpy_matrix(RPYS)[list(map(tuple, RPYS)).index(tuple(rpy))], ref, atol=EXACT)


@pytest.mark.parametrize("rpy", RPYS)
def test_matrix_rpy_inverts_rpy_matrix_at_listed_angles(rpy):
    np.testing.assert_allclose(rot.matrix_rpy(rot.rpy_matrix(rpy)), rpy, atol=1e-12)


def test_matrix_rpy_of_a_batch_and_its_tolerance_boundary():
    np.testing.assert_allclose(rot.matrix_rpy(rot.rpy_matrix(RPYS)), RPYS, atol=1e-12)
    R = rot.rpy_matrix(RPYS[0])
    rot.matrix_rpy(R * (1 + 0.3 * rot.ROTATION_TOL))          # inside the tolerance: accepted
    with pytest.raises(ParameterError, match=names("R", "rotation matrix", "1e-06")):
        rot.matrix_rpy(R * (1 + 2 * rot.ROTATION_TOL))
    with pytest.raises(ParameterError, match=names("det R - 1", "-2")):  # a reflection: orthogonal, det -1
        rot.matrix_rpy(R @ np.diag([1.0, 1.0, -1.0]))
    batch = np.stack([R, R @ np.diag([1.0, -1.0, 1.0])])
    with pytest.raises(ParameterError, match=names("max|R^T R - I|", "det R - 1", "-2")):
        rot.matrix_rpy(batch)


def omega_by_differences(rpy_of_t, t):
    """``omega`` from ``dR/dt R^T`` (central differences): the skew part's axial vector."""
    dR = (rot.rpy_matrix(rpy_of_t(t + H)) - rot.rpy_matrix(rpy_of_t(t - H))) / (2 * H)
    W = dR @ rot.rpy_matrix(rpy_of_t(t)).T
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


def path(t):
    """A smooth angle path with distinct rates and accelerations on all three angles."""
    return np.array([0.3 + 0.7 * t + 0.2 * t * t, -0.4 + 1.1 * t - 0.5 * t * t, 1.0 - 0.9 * t + 0.35 * t * t])


def path_rate(t):
    return np.array([0.7 + 0.4 * t, 1.1 - 1.0 * t, -0.9 + 0.7 * t])


PATH_ACC = np.array([0.4, -1.0, 0.7])


@pytest.mark.parametrize("t", [0.0, 0.6, 1.3])
def test_rate_matrix_and_twist_against_differences_of_the_rotation(t):
    omega_fd = omega_by_differences(path, t)
    np.testing.assert_allclose(rot.rpy_rate_matrix(path(t)) @ path_rate(t), omega_fd, atol=FD_TOL)
    np.testing.assert_allclose(rot.rpy_rates_to_twist(path(t), path_rate(t)), omega_fd, atol=FD_TOL)


@pytest.mark.parametrize("t", [0.0, 0.6, 1.3])
def test_angular_acceleration_against_differences_of_omega(t):
    omega, alpha = rot.rpy_rates_to_twist(path(t), path_rate(t), PATH_ACC)
    np.testing.assert_allclose(omega, omega_by_differences(path, t), atol=FD_TOL)
    w = lambda s: rot.rpy_rates_to_twist(path(s), path_rate(s))  # noqa: E731
    np.testing.assert_allclose(alpha, (w(t + H) - w(t - H)) / (2 * H), atol=1e-7)


def test_twist_broadcasts_rates_over_a_batch_of_angles():
    ts = np.array([0.0, 0.6, 1.3])
    rpys = np.stack([path(t) for t in ts])
    omega, alpha = rot.rpy_rates_to_twist(rpys, path_rate(0.6), PATH_ACC)
    assert omega.shape == alpha.shape == (3, 3)
    np.testing.assert_allclose(omega[1], omega_by_differences(path, 0.6), atol=FD_TOL)
    with pytest.raises(ParameterError, match=names("drpy", "(2, 3)", "broadcast", "rpy", "(3, 3)")):
        rot.rpy_rates_to_twist(rpys, np.ones((2, 3)))
    with pytest.raises(ParameterError, match=names("ddrpy", "(2, 3)", "broadcast")):
        rot.rpy_rates_to_twist(rpys, path_rate(0.6), np.ones((2, 3)))


def test_skew_cross_and_dot_of_batches_against_numpy():
    a, b = RNG.normal(size=(5, 3)), RNG.normal(size=(5, 3))
    np.testing.assert_allclose(rot.skew(a) @ b[0], np.cross(a, b[0]), atol=EXACT)
    np.testing.assert_allclose(np.einsum("nij,nj->ni", rot.skew(a), b), np.cross(a, b), atol=EXACT)
    np.testing.assert_allclose(rot.skew(a) + np.swapaxes(rot.skew(a), -1, -2), 0.0, atol=0)
    np.testing.assert_allclose(rot.cross(a, b), np.cross(a, b), atol=EXACT)
    np.testing.assert_allclose(rot.cross(a, b[2]), np.cross(a, b[2]), atol=EXACT)
    np.testing.assert_allclose(rot.dot(a, b), np.einsum("ni,ni->n", a, b), atol=EXACT)
    x, y = RNG.normal(size=7), RNG.normal(size=7)
    assert rot.dot(x, y) == pytest.approx(float(x @ y), abs=EXACT)


def test_cross_and_dot_name_the_operand_and_the_overflow():
    a = np.array([1.0, 2.0, 3.0])
    with pytest.raises(ParameterError, match=names("b", "finite")):
        rot.cross(a, np.array([0.0, np.inf, 0.0]))
    with pytest.raises(ParameterError, match=names("a x b", "overflows", "1e+300", "3e+300")):
        rot.cross(np.array([1e300, 0, 0]), np.array([0, 3e300, 0]))
    with pytest.raises(ParameterError, match=names("a . b", "overflows")):  # inf - inf: an invalid value, not a warning
        rot.dot(np.array([1e300, 1e300]), np.array([1e300, -1e300]))
    with pytest.raises(ParameterError, match=names("a . b", "overflows")):
        rot.dot(np.array([1e300, 1e300]), np.array([1e300, 1e300]))
    with pytest.raises(ParameterError, match=names("trailing length", "(3,)", "(2,)")):
        rot.dot(a, np.ones(2))
    with pytest.raises(ParameterError, match=names("a", "(2, 3)", "b", "(4, 3)", "broadcast")):
        rot.cross(np.ones((2, 3)), np.ones((4, 3)))
    with pytest.raises(ParameterError, match=names("a", "(2, 3)", "b", "(4, 3)", "broadcast")):
        rot.dot(np.ones((2, 3)), np.ones((4, 3)))


def test_normalize_keeps_direction_scales_safely_and_refuses_zero():
    v = np.array([[3.0, -4.0, 12.0], [1e300, 1e300, 0.0], [0.0, 0.0, -2e-300]])
    u = rot.normalize(v)
    np.testing.assert_allclose(np.linalg.norm(u, axis=-1), 1.0, atol=EXACT)
    np.testing.assert_allclose(u[0], v[0] / 13.0, atol=EXACT)
    np.testing.assert_allclose(u[1], [2 ** -0.5, 2 ** -0.5, 0.0], atol=EXACT)
    np.testing.assert_allclose(u[2], [0.0, 0.0, -1.0], atol=0)
    with pytest.raises(SingularityError, match=names("w", "zero length")):
        rot.normalize(np.array([[1.0, 0.0], [rot.ZERO_NORM_TOL, 0.0]]), name="w")
    with pytest.raises(ParameterError, match=names("name", "non-empty text")):
        rot.normalize(v, name="")


def test_cross_and_dot_take_nested_lists_and_integer_arrays():
    np.testing.assert_allclose(rot.cross([[1, 0, 0], [0, 1, 0]], [0, 0, 1]), [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0]], atol=0)
    np.testing.assert_allclose(rot.dot(np.array([[1, 2], [3, 4]]), [5, 6]), [17.0, 39.0], atol=0)
    with pytest.raises(ParameterError, match=names("a", "finite")):
        rot.cross([[1, 0, np.nan]], [0, 1, 0])



# ==== Euler rates against finite differences ========================================================================

# --------------------------------------------------------------------------- kinematics
def test_rpy_rates_to_twist_vs_finite_differences():
    rng = np.random.default_rng(3)
    rpy, drpy, ddrpy = rng.normal(size=3) * 0.5, rng.normal(size=3), rng.normal(size=3)
    h = 1e-5
    ang = lambda t: rpy + drpy * t + 0.5 * ddrpy * t ** 2  # noqa: E731
    w_of = lambda t: rpy_rates_to_twist(ang(t), drpy + ddrpy * t)  # noqa: E731
    dR = (rpy_matrix(ang(h)) - rpy_matrix(ang(-h))) / (2 * h)
    W = dR @ rpy_matrix(ang(0)).T
    w_fd = np.array([W[2, 1], W[0, 2], W[1, 0]])
    w, al = rpy_rates_to_twist(rpy, drpy, ddrpy)
    assert np.abs(w - w_fd).max() < 1e-9
    assert np.abs(al - (w_of(h) - w_of(-h)) / (2 * h)).max() < 1e-8
