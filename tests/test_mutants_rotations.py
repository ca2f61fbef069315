"""Rotation helpers through independent routes (issue 21, item 5: tests that catch single bugs).

Every helper of :mod:`robolib.core.rotations` against a route that does not share its code:
the axis rotations against Rodrigues' formula (``expm`` of the cross-product matrix), the
roll-pitch-yaw matrix against the product of the axis rotations, the rate matrix and the angular
acceleration against central differences of ``R(t)``, ``skew``/``cross``/``dot`` against numpy,
and the refusal thresholds at their boundary values. Angles are generic (no zero, no symmetric
value) so that a swapped sign or index cannot hide behind ``sin 0 = 0``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from robolib import ParameterError, SingularityError
from robolib.core import rotations as rot

RNG = np.random.default_rng(20261203)
#: Generic angle triples (rad): no zero, no multiple of pi/4, pitch within (-pi/2, pi/2).
RPYS = np.array([[0.31, -0.47, 1.13], [-1.2, 0.83, -2.6], [2.9, -1.31, 0.07]])
#: Central-difference step (s) and the agreement it reaches on these smooth functions.
H = 1e-5
FD_TOL = 1e-8
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
def test_matrix_rpy_inverts_rpy_matrix(rpy):
    np.testing.assert_allclose(rot.matrix_rpy(rot.rpy_matrix(rpy)), rpy, atol=1e-12)


def test_matrix_rpy_of_a_batch_and_its_tolerance_boundary():
    np.testing.assert_allclose(rot.matrix_rpy(rot.rpy_matrix(RPYS)), RPYS, atol=1e-12)
    R = rot.rpy_matrix(RPYS[0])
    rot.matrix_rpy(R * (1 + 0.3 * rot.ROTATION_TOL))          # inside the tolerance: accepted
    with pytest.raises(ParameterError, match=r"R must be a rotation matrix.*within 1e-06"):
        rot.matrix_rpy(R * (1 + 2 * rot.ROTATION_TOL))
    with pytest.raises(ParameterError, match=r"det R - 1 = -2"):  # a reflection: orthogonal, det -1
        rot.matrix_rpy(R @ np.diag([1.0, 1.0, -1.0]))
    batch = np.stack([R, R @ np.diag([1.0, -1.0, 1.0])])
    with pytest.raises(ParameterError, match=r"max\|R\^T R - I\| = \S+ and det R - 1 = -2"):
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
    with pytest.raises(ParameterError, match=r"drpy of shape \(2, 3\) does not broadcast with rpy of shape \(3, 3\)"):
        rot.rpy_rates_to_twist(rpys, np.ones((2, 3)))
    with pytest.raises(ParameterError, match=r"ddrpy of shape \(2, 3\) does not broadcast"):
        rot.rpy_rates_to_twist(rpys, path_rate(0.6), np.ones((2, 3)))


def test_skew_cross_and_dot_against_numpy():
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
    with pytest.raises(ParameterError, match=r"^b must be finite"):
        rot.cross(a, np.array([0.0, np.inf, 0.0]))
    with pytest.raises(ParameterError, match=r"a x b overflows: a and b are finite but too large, got max \|a\| = 1e\+300, "
                                             r"max \|b\| = 3e\+300"):
        rot.cross(np.array([1e300, 0, 0]), np.array([0, 3e300, 0]))
    with pytest.raises(ParameterError, match=r"a \. b overflows"):          # inf - inf: an invalid value, not a warning
        rot.dot(np.array([1e300, 1e300]), np.array([1e300, -1e300]))
    with pytest.raises(ParameterError, match=r"a \. b overflows"):
        rot.dot(np.array([1e300, 1e300]), np.array([1e300, 1e300]))
    with pytest.raises(ParameterError, match=r"same trailing length, got shapes \(3,\) and \(2,\)"):
        rot.dot(a, np.ones(2))
    with pytest.raises(ParameterError, match=r"a of shape \(2, 3\) and b of shape \(4, 3\) do not broadcast"):
        rot.cross(np.ones((2, 3)), np.ones((4, 3)))
    with pytest.raises(ParameterError, match=r"a of shape \(2, 3\) and b of shape \(4, 3\) do not broadcast"):
        rot.dot(np.ones((2, 3)), np.ones((4, 3)))


def test_normalize_keeps_direction_scales_safely_and_refuses_zero():
    v = np.array([[3.0, -4.0, 12.0], [1e300, 1e300, 0.0], [0.0, 0.0, -2e-300]])
    u = rot.normalize(v)
    np.testing.assert_allclose(np.linalg.norm(u, axis=-1), 1.0, atol=EXACT)
    np.testing.assert_allclose(u[0], v[0] / 13.0, atol=EXACT)
    np.testing.assert_allclose(u[1], [2 ** -0.5, 2 ** -0.5, 0.0], atol=EXACT)
    np.testing.assert_allclose(u[2], [0.0, 0.0, -1.0], atol=0)
    with pytest.raises(SingularityError, match=r"^w has zero length"):
        rot.normalize(np.array([[1.0, 0.0], [rot.ZERO_NORM_TOL, 0.0]]), name="w")
    with pytest.raises(ParameterError, match="name must be a non-empty text"):
        rot.normalize(v, name="")


def test_cross_and_dot_take_nested_lists_and_integer_arrays():
    np.testing.assert_allclose(rot.cross([[1, 0, 0], [0, 1, 0]], [0, 0, 1]), [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0]], atol=0)
    np.testing.assert_allclose(rot.dot(np.array([[1, 2], [3, 4]]), [5, 6]), [17.0, 39.0], atol=0)
    with pytest.raises(ParameterError, match=r"^a must be finite"):
        rot.cross([[1, 0, np.nan]], [0, 1, 0])
