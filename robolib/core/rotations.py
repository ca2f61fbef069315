"""Small rotation helpers shared by the kinematics kernels.

Every function broadcasts over leading batch axes; vectors are ``(..., 3)``,
matrices ``(..., 3, 3)``, angles in radians. The roll-pitch-yaw convention is
``R = Rz(yaw) @ Ry(pitch) @ Rx(roll)`` (the convention of the Models pages of the book).
Bad input (NaN, infinity, text, ``None``, a bool, an empty array, a wrong trailing axis, a matrix that
is not a rotation) raises :class:`robolib.ParameterError` naming the argument; :func:`cross` and
:func:`dot`, the building blocks of the batch kinematics, check the types and shapes of their inputs and
the finiteness of their result (a non-finite input always gives a non-finite result), so that a valid
call costs one ``isfinite`` of the output.

>>> R = rpy_matrix(np.array([0.1, -0.2, 0.3]))
>>> bool(np.allclose(R, rot_z(0.3) @ rot_y(-0.2) @ rot_x(0.1)))
True
>>> bool(np.allclose(R @ R.T, np.eye(3)))
True
"""

from __future__ import annotations

import numpy as np

from robolib.core.checks import real_array
from robolib.core.errors import ParameterError, SingularityError

#: Norm below which :func:`normalize` refuses a vector (it has no direction).
ZERO_NORM_TOL = 1e-300
#: Largest ``max|R^T R - I|`` and ``|det R - 1|`` of a matrix :func:`matrix_rpy` accepts as a rotation.
ROTATION_TOL = 1e-6


def _vectors(name, x, n=3):
    """Vectors ``(..., n)`` (``n=None``: any trailing length) as a float array, or ParameterError naming ``name``."""
    return real_array(name, x, shape=(n,), batch=True)


def _fast_vectors(name, x, n=3):
    """Type and shape of ``(..., n)`` float vectors, without the finiteness scan (the caller checks its result)."""
    if type(x) is np.ndarray and x.dtype.kind == "f" and x.ndim and x.size and (n is None or x.shape[-1] == n):
        return x
    return real_array(name, x, shape=(n,), batch=True, finite=False)


def _finite_result(out, names, args, what):
    """``out``, or the ParameterError of the first non-finite input (or of an overflow) if it is not finite."""
    if np.isfinite(out).all():
        return out
    for name, x in zip(names, args):
        real_array(name, x)
    raise ParameterError(f"{what} overflows: {' and '.join(names)} are finite but too large, got max |{names[0]}| = "
                         f"{np.abs(args[0]).max():.3g}, max |{names[-1]}| = {np.abs(args[-1]).max():.3g}")


def _axis_rot(angle, i, j):
    angle = real_array("angle", angle)
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
    >>> rpy_matrix([0.1, 0.2])
    Traceback (most recent call last):
        ...
    robolib.ParameterError: rpy must have shape (..., 3), got (2,)
    """
    rpy = _vectors("rpy", rpy)
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

    ``R`` must be a rotation (``R^T R = I`` and ``det R = +1`` within :data:`ROTATION_TOL`).

    >>> matrix_rpy(rpy_matrix([0.1, -0.2, 0.3])).round(12)
    array([ 0.1, -0.2,  0.3])
    >>> matrix_rpy(2 * np.eye(3))
    Traceback (most recent call last):
        ...
    robolib.ParameterError: R must be a rotation matrix (R^T R = I, det R = +1 within 1e-06), got max|R^T R - I| = 3 and det R - 1 = 7
    """
    R = real_array("R", R, shape=(3, 3), batch=True)
    gap = np.abs(np.swapaxes(R, -1, -2) @ R - np.eye(3)).max()
    det = np.linalg.det(R) - 1.0
    if not (gap <= ROTATION_TOL and np.abs(det).max() <= ROTATION_TOL):
        worst = det.flat[np.argmax(np.abs(det))] if np.ndim(det) else det
        raise ParameterError(f"R must be a rotation matrix (R^T R = I, det R = +1 within {ROTATION_TOL:g}), got "
                             f"max|R^T R - I| = {gap:.3g} and det R - 1 = {float(worst):.3g}")
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
    rpy = _vectors("rpy", rpy)
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
    rpy, drpy = _vectors("rpy", rpy), _vectors("drpy", drpy)
    ddrpy = None if ddrpy is None else _vectors("ddrpy", ddrpy)
    shape = rpy.shape
    for name, x in (("drpy", drpy), ("ddrpy", ddrpy)):
        if x is not None:
            try:
                shape = np.broadcast_shapes(shape, x.shape)
            except ValueError:
                raise ParameterError(f"{name} of shape {x.shape} does not broadcast with rpy of shape "
                                     f"{rpy.shape}") from None
    rpy, drpy = np.broadcast_to(rpy, shape), np.broadcast_to(drpy, shape)
    ddrpy = None if ddrpy is None else np.broadcast_to(ddrpy, shape)
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
    alpha = np.einsum("...ij,...j->...i", E, ddrpy) + np.einsum(
        "...ij,...j->...i", dE, drpy
    )
    return omega, alpha


def skew(v):
    """Cross-product matrix ``[v]x`` with ``[v]x @ u = v x u``: ``(..., 3, 3)``.

    >>> skew(np.array([1.0, 2.0, 3.0])) @ [0.0, 0.0, 1.0]
    array([ 2., -1.,  0.])
    """
    v = _vectors("v", v)
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
    >>> cross(np.array([1.0, 0, np.nan]), np.array([0.0, 1, 0]))
    Traceback (most recent call last):
        ...
    robolib.ParameterError: a must be finite, got nan at index 2
    """
    a, b = _fast_vectors("a", a), _fast_vectors("b", b)
    try:
        with np.errstate(invalid="ignore", over="ignore"):   # a non-finite result is checked below
            out = a[..., _I1] * b[..., _I2] - a[..., _I2] * b[..., _I1]
    except ValueError:
        raise ParameterError(f"a of shape {a.shape} and b of shape {b.shape} do not broadcast") from None
    return _finite_result(out, ("a", "b"), (a, b), "a x b")


def dot(a, b):
    """``a . b`` over the trailing axis, shape ``(...)``.

    >>> float(dot(np.array([1.0, 2, 3]), np.array([4.0, 5, 6])))
    32.0
    """
    a, b = _fast_vectors("a", a, None), _fast_vectors("b", b, None)
    if a.shape[-1] != b.shape[-1]:
        raise ParameterError(f"a and b must have the same trailing length, got shapes {a.shape} and {b.shape}")
    try:
        with np.errstate(invalid="ignore", over="ignore"):
            out = (a * b).sum(axis=-1)
    except ValueError:
        raise ParameterError(f"a of shape {a.shape} and b of shape {b.shape} do not broadcast") from None
    return _finite_result(out, ("a", "b"), (a, b), "a . b")


def normalize(v, name="v"):
    """``v / |v|`` over the trailing axis (any length); refuses a (numerically) zero vector.

    ``name`` (text) names ``v`` in the errors.

    >>> normalize(np.array([3.0, 0.0, 4.0]))
    array([0.6, 0. , 0.8])
    """
    if not isinstance(name, str) or not name:
        raise ParameterError(f"name must be a non-empty text, got {name!r} ({type(name).__name__})")
    v = real_array(name, v, shape=(None,), batch=True)
    big = np.abs(v).max(axis=-1, keepdims=True)     # scale first: |v| of a 1e300 vector does not overflow
    if np.any(big <= ZERO_NORM_TOL):
        raise SingularityError(f"{name} has zero length and no direction")
    u = v / big
    return u / np.sqrt(np.sum(u * u, axis=-1, keepdims=True))


__all__ = [
    "ROTATION_TOL",
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
