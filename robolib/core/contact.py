"""Contact laws for revolute joints with clearance (plain functions).

A journal of radius ``R_journal`` moves inside a bearing of radius
``R_bearing``; the radial clearance is ``c = R_bearing - R_journal``. With
penetration ``delta`` (m, contact when ``delta > 0``), normal penetration speed
``ddelta`` (m/s, positive while approaching) and ``ddelta0`` the normal speed at
the onset of the current impact, the functions below give

* :func:`hertz_stiffness` -- the generalised Hertz stiffness of a cylindrical
  journal in a cylindrical bearing (N/m^1.5),
  ``K = 4 / (3 (sigma_b + sigma_j)) * sqrt(R_b R_j / (R_b - R_j))``,
  ``sigma = (1 - nu^2) / E``;
* :func:`normal_force` -- ``F_n = K delta^1.5 (1 + D ddelta / ddelta0)`` with the
  hysteresis factor ``D = 3 (1 - c_e^2) / 4`` (Lankarani--Nikravesh, default),
  ``D = 8 (1 - c_e) / (5 c_e)`` (Flores et al. 2011) or ``D = 0`` (plain Hertz);
* :func:`tangential_force` -- Ambrosio's modified Coulomb friction
  ``F_t = -mu c_d F_n v_t / |v_t|`` with ``c_d`` ramping linearly from 0 at
  ``|v_t| = v0`` to 1 at ``|v_t| = v1``.

The normal force is never adhesive: where the damping term would make it
negative (a grazing contact whose onset speed sits on the floor) it is clipped to
zero. All functions broadcast over numpy arrays.

>>> K = hertz_stiffness(5.1e-3, 5.0e-3, 207e9, 0.3, 207e9, 0.3)
>>> round(K / 1e10, 3)
7.658
>>> bool(np.isclose(normal_force(1e-6, 0.0, 0.1, K, 0.9), K * 1e-9, rtol=1e-12))
True
"""

from __future__ import annotations

import math

import numpy as np

from robolib.core import checks
from robolib.core.errors import ParameterError

#: The contact laws understood by :func:`normal_force`.
LAWS = ("lankarani_nikravesh", "flores", "hertz")


def hertz_stiffness(R_bearing, R_journal, E_bearing, nu_bearing, E_journal, nu_journal):
    """Generalised stiffness K (N/m^1.5) of a journal in a bearing.

    Radii in m, Young's moduli in Pa, Poisson ratios dimensionless. Raises
    :class:`robolib.ParameterError` when the journal is not smaller than the
    bearing (zero or negative clearance) or a material constant is non-physical.

    >>> K = hertz_stiffness(0.0101, 0.0100, 2.0e11, 0.3, 2.0e11, 0.3)
    >>> bool(abs(K - 4 / (3 * 2 * 0.91 / 2e11) * math.sqrt(0.0101 * 0.01 / 1e-4)) < 1e-3 * K)
    True
    >>> hertz_stiffness(0.005, 0.005, 2e11, 0.3, 2e11, 0.3)
    Traceback (most recent call last):
        ...
    robolib.ParameterError: R_journal = 0.005 m must be smaller than R_bearing = 0.005 m (the radial clearance must be positive)
    """
    checks.positive("R_bearing", R_bearing, unit="m")
    checks.positive("R_journal", R_journal, unit="m")
    checks.positive("E_bearing", E_bearing, unit="Pa")
    checks.positive("E_journal", E_journal, unit="Pa")
    for name, nu in (("nu_bearing", nu_bearing), ("nu_journal", nu_journal)):
        arr = checks.real_array(name, nu)
        if not np.all((arr > -1.0) & (arr < 0.5)):
            raise ParameterError(f"{name} must lie in (-1, 0.5), got {nu!r}")
    Rb = np.asarray(R_bearing, dtype=float)
    Rj = np.asarray(R_journal, dtype=float)
    if not np.all(Rj < Rb):
        raise ParameterError(
            f"R_journal = {R_journal!r} m must be smaller than R_bearing = {R_bearing!r} m "
            "(the radial clearance must be positive)"
        )
    sigma = (1.0 - np.asarray(nu_bearing, float) ** 2) / np.asarray(E_bearing, float) + (
        1.0 - np.asarray(nu_journal, float) ** 2
    ) / np.asarray(E_journal, float)
    K = 4.0 / (3.0 * sigma) * np.sqrt(Rb * Rj / (Rb - Rj))
    return float(K) if np.ndim(K) == 0 else K


def hysteresis_factor(restitution: float, law: str = "lankarani_nikravesh") -> float:
    """The dimensionless damping factor D of ``F_n = K delta^1.5 (1 + D ddelta/ddelta0)``.

    >>> round(hysteresis_factor(0.9), 6), round(hysteresis_factor(0.9, "flores"), 6), hysteresis_factor(0.9, "hertz")
    (0.1425, 0.177778, 0.0)
    """
    if law not in LAWS:
        raise ParameterError(f"law must be one of {list(LAWS)}, got {law!r}")
    ce = checks.real("restitution", restitution, low=0.0, open_low=True, high=1.0)
    if law == "lankarani_nikravesh":
        return 3.0 * (1.0 - ce * ce) / 4.0
    if law == "flores":
        return 8.0 * (1.0 - ce) / (5.0 * ce)
    return 0.0


def normal_force(delta, ddelta, ddelta0, K, restitution, law="lankarani_nikravesh"):
    """Normal contact force F_n (N) for penetration ``delta`` (m).

    ``ddelta`` (m/s) is the current normal penetration speed, ``ddelta0`` (m/s,
    positive) the one at the onset of the impact, ``K`` the stiffness
    (N/m^1.5), ``restitution`` the coefficient of restitution c_e in (0, 1].
    Zero where ``delta <= 0``; clipped at zero (never adhesive).

    >>> K = 1e10
    >>> float(normal_force(-1e-6, 0.1, 0.1, K, 0.9))
    0.0
    >>> f = normal_force(1e-6, 0.1, 0.1, K, 0.9)          # at onset speed: K d^1.5 (1 + D)
    >>> bool(abs(f - K * 1e-9 * (1 + 0.75 * (1 - 0.81))) < 1e-9)
    True
    """
    checks.positive("K", K, unit="N/m^1.5")
    D = hysteresis_factor(restitution, law)
    if D != 0.0:
        checks.positive("ddelta0", ddelta0, unit="m/s")
    d = checks.real_array("delta", delta)
    dd = checks.real_array("ddelta", ddelta)
    dp = np.where(d > 0.0, d, 0.0)
    ratio = dd / np.asarray(ddelta0, float) if D != 0.0 else 0.0
    F = np.asarray(K, float) * dp * np.sqrt(dp) * (1.0 + D * ratio)
    F = np.where(d > 0.0, np.maximum(F, 0.0), 0.0)
    return float(F) if np.ndim(F) == 0 else F


def _normal_force_scalar(delta: float, ddelta: float, ddelta0: float, K: float, D: float) -> float:
    """Fast scalar kernel of :func:`normal_force` (no checks); D = hysteresis factor."""
    if delta <= 0.0:
        return 0.0
    F = K * delta * math.sqrt(delta) * (1.0 + D * ddelta / ddelta0)
    return F if F > 0.0 else 0.0


def friction_coefficient_ramp(v_t, v0, v1):
    """Ambrosio's dynamic correction ``c_d(|v_t|)``: 0 below v0, 1 above v1, linear between.

    >>> friction_coefficient_ramp(np.array([0.0, 0.5e-3, 2e-3]), 1e-4, 1e-3).round(6).tolist()
    [0.0, 0.444444, 1.0]
    """
    s = np.abs(checks.real_array("v_t", v_t))
    v0 = checks.real("v0", v0, low=0.0, unit="m/s")
    v1 = checks.real("v1", v1, low=0.0, open_low=True, unit="m/s")
    if not v0 < v1:
        raise ParameterError(f"friction speeds must satisfy 0 <= v0 < v1, got v0={v0!r}, v1={v1!r} (m/s)")
    cd = np.clip((s - v0) / (v1 - v0), 0.0, 1.0)
    return float(cd) if np.ndim(cd) == 0 else cd


def tangential_force(F_n, v_t, mu, v0, v1):
    """Modified Coulomb friction force F_t (N) opposing the slip speed ``v_t`` (m/s).

    ``F_t = -mu c_d F_n sign(v_t)``; ``0 <= v0 < v1`` (m/s) bound the ramp of
    the dynamic correction ``c_d``.

    >>> tangential_force(10.0, 0.5, 0.1, 1e-4, 1e-3)
    -1.0
    >>> tangential_force(10.0, -5e-5, 0.1, 1e-4, 1e-3)
    0.0
    """
    mu = checks.nonnegative("mu", mu)
    Fn = checks.nonnegative("F_n", F_n, unit="N")
    vt = checks.real_array("v_t", v_t)
    cd = friction_coefficient_ramp(vt, v0, v1)
    F = -mu * cd * Fn * np.sign(vt)
    return float(F) if np.ndim(F) == 0 else F


def _tangential_force_scalar(F_n: float, v_t: float, mu: float, v0: float, v1: float) -> float:
    """Fast scalar kernel of :func:`tangential_force` (no checks)."""
    s = abs(v_t)
    if s <= v0 or F_n == 0.0 or mu == 0.0:
        return 0.0
    cd = 1.0 if s >= v1 else (s - v0) / (v1 - v0)
    return -mu * cd * F_n * (1.0 if v_t > 0.0 else -1.0)


def contact_potential(delta, K):
    """Elastic energy (J) stored by the Hertz part of the normal force: ``2/5 K delta^2.5``.

    >>> bool(abs(contact_potential(1e-6, 1e10) - 0.4 * 1e10 * 1e-15) < 1e-20)
    True
    """
    delta = checks.real_array("delta", delta)
    d = np.where(delta > 0.0, delta, 0.0)
    E = 0.4 * checks.nonnegative("K", K, unit="N/m^1.5") * d * d * np.sqrt(d)
    return float(E) if np.ndim(E) == 0 else E


__all__ = [
    "LAWS",
    "hertz_stiffness",
    "hysteresis_factor",
    "normal_force",
    "friction_coefficient_ramp",
    "tangential_force",
    "contact_potential",
]
