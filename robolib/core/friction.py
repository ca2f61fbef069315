"""Joint-friction laws as plain functions (torques in N m, rates in rad/s).

Every law returns the friction torque acting *on* the joint, i.e. opposing the
relative angular velocity ``w``, so the friction power ``tau_f * w`` is never
positive. The discontinuous ``sgn(w)`` is replaced by the smooth sign
``tanh(w / eps)`` (``eps`` in rad/s, the smoothing velocity); ``eps = 0``
gives the exact sign (use it for tables, not for integration). As
``eps -> 0`` the smooth laws converge to the discontinuous ones for every
``w != 0``.

All functions broadcast over leading batch axes. :func:`stribeck_level_for_rms`
solves the calibration of the Stribeck level to a given RMS friction torque
(used by :func:`robolib.redundant.calibrate_stribeck`).

>>> round(float(stribeck(0.5, coulomb_torque=0.1, static_torque=0.15, stribeck_velocity=0.1, viscous=0.01, eps=0.0)), 9)
-0.105
"""

from __future__ import annotations

import numpy as np

from robolib.core import checks
from robolib.core.errors import ParameterError


def _nonneg(name: str, value) -> float:
    return checks.real(f"friction parameter {name!r}", value, low=0.0)


def _positive(name: str, value) -> float:
    return checks.real(f"friction parameter {name!r}", value, low=0.0, open_low=True)


def smooth_sign(w, eps: float):
    """Smooth sign ``tanh(w / eps)``; ``eps = 0`` gives ``np.sign(w)``.

    ``w`` any shape (rad/s), ``eps`` >= 0 (rad/s). Odd, bounded by 1 in
    magnitude, and ``-> sgn(w)`` as ``eps -> 0`` for ``w != 0``.

    >>> smooth_sign(np.array([-1.0, 0.0, 1e-3]), 1e-3).round(6)
    array([-1.      ,  0.      ,  0.761594])
    """
    _nonneg("eps", eps)
    w = checks.real_array("w", w)
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
    F = checks.real_array("force", force)
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
    return -coefficient * checks.real_array("w", w)


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
    _positive("stribeck_velocity", stribeck_velocity)
    w = checks.real_array("w", w)
    level = coulomb_torque + (static_torque - coulomb_torque) * np.exp(-((w / stribeck_velocity) ** 2))
    return -level * smooth_sign(w, eps) - viscous * w


def stribeck_level_for_rms(w, target_rms: float, static_ratio: float = 1.5, stribeck_velocity: float = 0.1,
                           viscous: float = 0.0, eps: float = 0.0) -> float:
    """Coulomb level ``T_c`` (N m) at which the Stribeck law has the RMS torque ``target_rms`` over ``w``.

    ``w`` (...) joint rates in rad/s, sampled uniformly in time (every entry
    weighs the same); ``target_rms`` in N m; the static level is tied to the
    Coulomb level, ``T_s = static_ratio * T_c`` (``static_ratio >= 1``), with
    ``stribeck_velocity`` ``w_s`` (rad/s), ``viscous`` ``b_v`` (N m s/rad) and
    the smooth-sign velocity ``eps`` (rad/s) of :func:`stribeck`. The law is
    affine in ``T_c``: ``tau_f = T_c g(w) + v(w)`` with
    ``g = -[1 + (static_ratio - 1) exp(-(w/w_s)^2)] sgn(w)`` and ``v = -b_v w``,
    so ``mean(tau_f^2) = target_rms^2`` is the quadratic
    ``<g^2> T_c^2 + 2 <g v> T_c + <v^2> - target_rms^2 = 0``, whose non-negative
    root is returned (``<g v> >= 0``, so there is exactly one).

    Raises :class:`~robolib.ParameterError` if no non-negative level reaches
    the target (the viscous term alone exceeds it) or every rate is zero.

    >>> w = np.array([0.5, -0.5])            # far above w_s: the level is T_c
    >>> round(stribeck_level_for_rms(w, 0.02, 1.5, 0.01), 6)
    0.02
    >>> w = np.linspace(-1, 1, 2001)
    >>> Tc = stribeck_level_for_rms(w, 0.01, 1.5, 0.1, viscous=0.002, eps=0.01)
    >>> tau = stribeck(w, Tc, 1.5 * Tc, 0.1, 0.002, 0.01)
    >>> round(float(np.sqrt(np.mean(tau**2))), 12)
    0.01
    """
    _nonneg("target_rms", target_rms)
    _nonneg("viscous", viscous)
    _nonneg("eps", eps)
    checks.real("static_ratio", static_ratio, low=1.0)
    _positive("stribeck_velocity", stribeck_velocity)
    w = checks.real_array("w", w).ravel()
    if w.size == 0 or not np.all(np.isfinite(w)):
        raise ParameterError("w must hold at least one finite joint rate (rad/s)")
    g = -(1.0 + (static_ratio - 1.0) * np.exp(-((w / stribeck_velocity) ** 2))) * smooth_sign(w, eps)
    v = -viscous * w
    gg, gv, vv = np.mean(g * g), np.mean(g * v), np.mean(v * v)
    rest = target_rms**2 - vv
    if gg <= 0:
        raise ParameterError("w: every joint rate is zero (within eps): no Stribeck level gives a non-zero RMS "
                             "friction torque")
    if rest < 0:
        raise ParameterError(f"target_rms = {target_rms:.3g} N m is below the RMS torque {np.sqrt(vv):.3g} N m of the "
                             f"viscous term alone (viscous = {viscous:.3g} N m s/rad): no non-negative Coulomb level "
                             f"reaches it")
    return float((-gv + np.sqrt(gv * gv + gg * rest)) / gg)


__all__ = ["smooth_sign", "coulomb_load", "coulomb", "viscous", "stribeck", "stribeck_level_for_rms"]
