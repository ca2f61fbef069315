"""Joint-friction laws as plain functions (torques in N m, rates in rad/s).

Every law returns the friction torque acting *on* the joint, i.e. opposing the
relative angular velocity ``w``, so the friction power ``tau_f * w`` is never
positive. The discontinuous ``sgn(w)`` is replaced by the smooth sign
``tanh(w / eps)`` (``eps`` in rad/s, the smoothing velocity); ``eps = 0``
gives the exact sign (use it for tables, not for integration). As
``eps -> 0`` the smooth laws converge to the discontinuous ones for every
``w != 0``.

All functions broadcast over leading batch axes.

>>> round(float(stribeck(0.5, coulomb_torque=0.1, static_torque=0.15, stribeck_velocity=0.1, viscous=0.01, eps=0.0)), 9)
-0.105
"""

from __future__ import annotations

import numpy as np

from .errors import ParameterError


def _nonneg(name: str, value) -> None:
    v = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        raise ParameterError(f"friction parameter {name!r} must be finite and non-negative, got {value!r}")


def smooth_sign(w, eps: float):
    """Smooth sign ``tanh(w / eps)``; ``eps = 0`` gives ``np.sign(w)``.

    ``w`` any shape (rad/s), ``eps`` >= 0 (rad/s). Odd, bounded by 1 in
    magnitude, and ``-> sgn(w)`` as ``eps -> 0`` for ``w != 0``.

    >>> smooth_sign(np.array([-1.0, 0.0, 1e-3]), 1e-3).round(6)
    array([-1.      ,  0.      ,  0.761594])
    """
    _nonneg("eps", eps)
    w = np.asarray(w, dtype=float)
    if eps == 0:
        return np.sign(w)
    return np.tanh(w / eps)


def coulomb_load(w, force, mu: float, radius: float, eps: float):
    """Load-dependent Coulomb friction of a journal bearing: ``-mu R |F| sgn(w)``.

    ``w`` (...) joint rate (rad/s), ``force`` (..., 2) bearing reaction (N),
    ``mu`` friction coefficient, ``radius`` journal radius ``R`` (m), ``eps``
    smooth-sign velocity (rad/s). Returns the torque (...,) in N m.

    >>> float(coulomb_load(1.0, [3.0, 4.0], mu=0.1, radius=0.01, eps=0.0))
    -0.005
    """
    _nonneg("mu", mu)
    _nonneg("radius", radius)
    F = np.asarray(force, dtype=float)
    if F.shape[-1:] != (2,):
        raise ParameterError(f"force must have a trailing axis of length 2 (Fx, Fy), got shape {F.shape}")
    return -mu * radius * np.hypot(F[..., 0], F[..., 1]) * smooth_sign(w, eps)


def coulomb(w, torque: float, eps: float):
    """Constant-level Coulomb friction ``-T_c sgn(w)`` (N m).

    >>> float(coulomb(-2.0, 0.1, eps=0.0))
    0.1
    """
    _nonneg("torque", torque)
    return -torque * smooth_sign(w, eps)


def viscous(w, coefficient: float):
    """Viscous friction ``-b_v w`` (``b_v`` in N m s/rad).

    >>> float(viscous(2.0, 0.01))
    -0.02
    """
    _nonneg("coefficient", coefficient)
    return -coefficient * np.asarray(w, dtype=float)


def stribeck(w, coulomb_torque: float, static_torque: float, stribeck_velocity: float, viscous: float = 0.0, eps: float = 0.0):
    """Stribeck friction ``-[T_c + (T_s - T_c) exp(-(w/w_s)^2)] sgn(w) - b_v w`` (N m).

    ``coulomb_torque`` ``T_c`` and ``static_torque`` ``T_s`` in N m,
    ``stribeck_velocity`` ``w_s`` > 0 in rad/s, ``viscous`` ``b_v`` in
    N m s/rad, ``eps`` the smooth-sign velocity (rad/s).

    >>> float(stribeck(1e-9, 0.1, 0.15, 0.1, eps=0.0))
    -0.15
    """
    _nonneg("coulomb_torque", coulomb_torque)
    _nonneg("static_torque", static_torque)
    _nonneg("viscous", viscous)
    if not np.isfinite(stribeck_velocity) or stribeck_velocity <= 0:
        raise ParameterError(f"friction parameter 'stribeck_velocity' must be positive, got {stribeck_velocity!r}")
    w = np.asarray(w, dtype=float)
    level = coulomb_torque + (static_torque - coulomb_torque) * np.exp(-((w / stribeck_velocity) ** 2))
    return -level * smooth_sign(w, eps) - viscous * w


__all__ = ["smooth_sign", "coulomb_load", "coulomb", "viscous", "stribeck"]
