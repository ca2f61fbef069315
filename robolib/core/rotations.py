"""Small rotation helpers shared by the kinematics kernels.

Every function broadcasts over leading batch axes; vectors are ``(..., 3)``,
matrices ``(..., 3, 3)``, angles in radians. The roll-pitch-yaw convention is
``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)`` (the convention of the Models pages of the book).

>>> R = rpy_matrix(np.array([0.1, -0.2, 0.3]))
>>> bool(np.allclose(R, rot_z(0.3) @ rot_y(-0.2) @ rot_x(0.1)))
True
>>> bool(np.allclose(R @ R.T, np.eye(3)))
True
"""

from __future__ import annotations

import numpy as np

#: Norm below which :func:`normalize` refuses a vector (it has no direction).
ZERO_NORM_TOL = 1e-300


def _axis_rot(angle, i, j):
    angle = np.asarray(angle, dtype=float)
    c, s = np.cos(angle), np.sin(angle)
    R = np.zeros(angle.shape + (3, 3))
    k = 3 - i - j
    R[..., k, k] = 1.0
    R[..., i, i] = c
    R[..., j, j] = c
    R[..., i, j] = -s
    R[..., j, i] = s
    return R


def rot_x(angle):
    """Rotation about x by ``angle`` (rad): shape ``(..., 3, 3)``.

    >>> rot_x(np.pi / 2).round(12) @ [0.0, 1.0, 0.0]
    array([0., 0., 1.])
    """
    return _axis_rot(angle, 1, 2)


def rot_y(angle):
    """Rotation about y by ``angle`` (rad): shape ``(..., 3, 3)``.

    >>> rot_y(np.pi / 2).round(12) @ [0.0, 0.0, 1.0]
    array([1., 0., 0.])
    """
    return _axis_rot(angle, 2, 0)


def rot_z(angle):
    """Rotation about z by ``angle`` (rad): shape ``(..., 3, 3)``.

    >>> rot_z(np.pi / 2).round(12) @ [1.0, 0.0, 0.0]
    array([0., 1., 0.])
    """
    return _axis_rot(angle, 0, 1)


def rpy_matrix(rpy):
    """``Rz(yaw) @ Ry(pitch) @ Rx(roll)`` for ``rpy = [roll, pitch, yaw]`` ``(..., 3)``.

    >>> rpy_matrix(np.zeros(3)) + 0.0
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    rpy = np.asarray(rpy, dtype=float)
    cr, cp, cy = np.cos(rpy[..., 0]), np.cos(rpy[..., 1]), np.cos(rpy[..., 2])
    sr, sp, sy = np.sin(rpy[..., 0]), np.sin(rpy[..., 1]), np.sin(rpy[..., 2])
    R = np.empty(rpy.shape[:-1] + (3, 3))
    R[..., 0, 0] = cy * cp
    R[..., 0, 1] = cy * sp * sr - sy * cr
    R[..., 0, 2] = cy * sp * cr + sy * sr
    R[..., 1, 0] = sy * cp
    R[..., 1, 1] = sy * sp * sr + cy * cr
    R[..., 1, 2] = sy * sp * cr - cy * sr
    R[..., 2, 0] = -sp
    R[..., 2, 1] = cp * sr
    R[..., 2, 2] = cp * cr
    return R


def matrix_rpy(R):
    """Inverse of :func:`rpy_matrix` (pitch in ``(-pi/2, pi/2)``): ``(..., 3)``.

    >>> matrix_rpy(rpy_matrix([0.1, -0.2, 0.3])).round(12)
    array([ 0.1, -0.2,  0.3])
    """
    R = np.asarray(R, dtype=float)
    roll = np.arctan2(R[..., 2, 1], R[..., 2, 2])
    pitch = np.arctan2(-R[..., 2, 0], np.hypot(R[..., 2, 1], R[..., 2, 2]))
    yaw = np.arctan2(R[..., 1, 0], R[..., 0, 0])
    return np.stack((roll, pitch, yaw), axis=-1)


def rpy_rate_matrix(rpy):
    """``E(rpy)`` with ``omega = E @ [droll, dpitch, dyaw]`` (base frame), ``(..., 3, 3)``.

    Columns: ``Rz Ry e_x``, ``Rz e_y``, ``e_z``; singular at ``pitch = +-pi/2``.

    >>> rpy_rate_matrix(np.zeros(3)) + 0.0
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 1.]])
    """
    rpy = np.asarray(rpy, dtype=float)
    cp, cy = np.cos(rpy[..., 1]), np.cos(rpy[..., 2])
    sp, sy = np.sin(rpy[..., 1]), np.sin(rpy[..., 2])
    E = np.zeros(rpy.shape[:-1] + (3, 3))
    E[..., 0, 0] = cy * cp
    E[..., 1, 0] = sy * cp
    E[..., 2, 0] = -sp
    E[..., 0, 1] = -sy
    E[..., 1, 1] = cy
    E[..., 2, 2] = 1.0
    return E


def rpy_rates_to_twist(rpy, drpy, ddrpy=None):
    """Angular velocity (and acceleration) in the base frame from Euler-angle rates.

    ``omega = E(rpy) drpy``; ``alpha = E ddrpy + dE/dt drpy``. Returns ``omega``
    or ``(omega, alpha)`` when ``ddrpy`` is given; all ``(..., 3)`` in rad/s, rad/s^2.

    >>> rpy_rates_to_twist(np.zeros(3), np.array([0.0, 0.0, 2.0]))
    array([0., 0., 2.])
    """
    rpy, drpy = np.asarray(rpy, dtype=float), np.asarray(drpy, dtype=float)
    E = rpy_rate_matrix(rpy)
    omega = np.einsum("...ij,...j->...i", E, drpy)
    if ddrpy is None:
        return omega
    cp, cy = np.cos(rpy[..., 1]), np.cos(rpy[..., 2])
    sp, sy = np.sin(rpy[..., 1]), np.sin(rpy[..., 2])
    dp, dy = drpy[..., 1], drpy[..., 2]
    dE = np.zeros(E.shape)
    dE[..., 0, 0] = -sy * cp * dy - cy * sp * dp
    dE[..., 1, 0] = cy * cp * dy - sy * sp * dp
    dE[..., 2, 0] = -cp * dp
    dE[..., 0, 1] = -cy * dy
    dE[..., 1, 1] = -sy * dy
    alpha = np.einsum("...ij,...j->...i", E, np.asarray(ddrpy, dtype=float)) + np.einsum(
        "...ij,...j->...i", dE, drpy
    )
    return omega, alpha


def skew(v):
    """Cross-product matrix ``[v]x`` with ``[v]x @ u = v x u``: ``(..., 3, 3)``.

    >>> skew(np.array([1.0, 2.0, 3.0])) @ [0.0, 0.0, 1.0]
    array([ 2., -1.,  0.])
    """
    v = np.asarray(v, dtype=float)
    S = np.zeros(v.shape + (3,))
    S[..., 0, 1], S[..., 0, 2] = -v[..., 2], v[..., 1]
    S[..., 1, 0], S[..., 1, 2] = v[..., 2], -v[..., 0]
    S[..., 2, 0], S[..., 2, 1] = -v[..., 1], v[..., 0]
    return S


_I1 = np.array([1, 2, 0])
_I2 = np.array([2, 0, 1])


def cross(a, b):
    """``a x b`` over the trailing axis (broadcasting; faster than ``np.cross`` on small arrays).

    >>> cross(np.array([1.0, 0, 0]), np.array([0.0, 1, 0]))
    array([0., 0., 1.])
    """
    return a[..., _I1] * b[..., _I2] - a[..., _I2] * b[..., _I1]


def dot(a, b):
    """``a . b`` over the trailing axis, shape ``(...)``.

    >>> float(dot(np.array([1.0, 2, 3]), np.array([4.0, 5, 6])))
    32.0
    """
    return (a * b).sum(axis=-1)


def normalize(v, name="vector"):
    """``v / |v|`` over the trailing axis; refuses a (numerically) zero vector.

    >>> normalize(np.array([3.0, 0.0, 4.0]))
    array([0.6, 0. , 0.8])
    """
    from .errors import SingularityError

    v = np.asarray(v, dtype=float)
    n = np.sqrt(dot(v, v))
    if np.any(n <= ZERO_NORM_TOL):
        raise SingularityError(f"{name} has zero length and no direction")
    return v / n[..., None]


__all__ = [
    "rot_x",
    "rot_y",
    "rot_z",
    "rpy_matrix",
    "matrix_rpy",
    "rpy_rate_matrix",
    "rpy_rates_to_twist",
    "skew",
    "cross",
    "dot",
    "normalize",
]
