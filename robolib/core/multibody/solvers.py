"""Planar multibody solvers on a :class:`Mechanism`: assembly, kinematic state, inverse dynamics, driving torques, virtual power, energy terms."""

from __future__ import annotations

import numpy as np

from robolib.core.errors import ConvergenceError, SingularityError
from robolib.core.multibody import _checks as chk
from robolib.core.multibody.mechanism import (  # noqa: F401
    ASSEMBLY_MAX_ITER,
    ASSEMBLY_TOL,
    SINGULAR_TOL,
    Driver,
    Mechanism,
    check_mechanism,
)


# --------------------------------------------------------------------------- solvers
def assemble(mech: Mechanism, q_guess, t: float = 0.0, tol: float = ASSEMBLY_TOL,
             max_iter: int = ASSEMBLY_MAX_ITER) -> np.ndarray:
    """Solve ``H(q, t) = 0`` by Newton (least-norm steps) from ``q_guess`` (n,).

    Raises :class:`robolib.ConvergenceError` if the mechanism does not assemble
    (no solution near the guess, e.g. links too short to close the loop).

    >>> pend = Mechanism([Body("bar", 1.0, 0.1)], [GroundPin("O", "bar", (-0.5, 0.0), (0.0, 0.0)),
    ...                   Driver("d", "bar", Constant(np.pi / 2))])
    >>> np.round(assemble(pend, [0.4, 0.1, 1.4]), 12).tolist()
    [0.0, 0.5, 1.570796326795]
    """
    mech = check_mechanism("mech", mech)
    q = np.array(chk.state("q_guess", q_guess, mech.n), dtype=float)
    t = chk.real("t", t, unit="s")
    tol = chk.real("tol", tol, low=0.0, open_low=True, unit="m or rad")
    max_iter = chk.count("max_iter", max_iter)
    for _ in range(max_iter):
        H = mech.residual(q, t)
        if np.max(np.abs(H), initial=0.0) < tol:
            return q
        J = mech.jacobian(q)
        dq = np.linalg.lstsq(J, -H, rcond=None)[0]
        q = q + dq
        if not np.all(np.isfinite(q)) or np.max(np.abs(dq)) > 1e6:
            break
    H = mech.residual(q, t)
    if np.all(np.isfinite(H)) and np.max(np.abs(H), initial=0.0) < tol * 100:
        return q
    raise ConvergenceError(
        f"mechanism {mech.name!r} does not assemble at t = {t:g} s: max|H| = {np.max(np.abs(H)):.3g} "
        f"after {max_iter} Newton iterations (check lengths, ground points and the initial guess)"
    )


def _solve_square(J, b, what: str):
    if J.shape[0] != J.shape[1]:
        return np.linalg.lstsq(J, b, rcond=None)[0]
    if 1.0 / np.linalg.cond(J) < SINGULAR_TOL:
        raise SingularityError(f"{what}: the constraint Jacobian is singular")
    return np.linalg.solve(J, b)


def kinematic_state(mech: Mechanism, q_guess, t: float):
    """Position, velocity and acceleration of a kinematically driven (0-DOF) mechanism.

    Returns ``(q, qd, qdd)`` from ``H = 0``, ``J qd = -H_t``, ``J qdd = gamma``.
    Raises :class:`SingularityError` at a singular configuration.
    """
    mech = check_mechanism("mech", mech)
    q = assemble(mech, q_guess, t)
    J = mech.jacobian(q)
    qd = _solve_square(J, -mech.time_derivative(t), f"mechanism {mech.name!r} at t = {t:g} s")
    qdd = _solve_square(J, mech.gamma(q, qd, t), f"mechanism {mech.name!r} at t = {t:g} s")
    return q, qd, qdd


def inverse_dynamics(mech: Mechanism, q, qd, qdd, t: float = 0.0):
    """Multipliers of a 0-DOF motion: solve ``J^T lambda = g - M qdd`` (m,)."""
    mech = check_mechanism("mech", mech)
    J = mech.jacobian(q)
    g = mech.applied_forces(q, qd, t)
    rhs = g - mech.mass_diag * chk.state("qdd", qdd, mech.n)
    return _solve_square(J.T, rhs, f"mechanism {mech.name!r} inverse dynamics")


def driving_torques(mech: Mechanism, lam) -> dict:
    """Motor torques (N m, or N for translational drivers) from the multipliers: ``tau = -lambda`` of each driver row.

    ``lam`` may be (m,) or (..., m); returns ``{driver name: value(s)}``.
    """
    mech = check_mechanism("mech", mech)
    lam = chk.state("lam", lam, mech.m, batch=True)
    out = {}
    for jt in mech.joints:
        if isinstance(jt, Driver):
            out[jt.name] = -lam[..., mech.row_slice(jt.name).start]
    return out


def virtual_power_torques(mech: Mechanism, q, qd, qdd, t: float = 0.0) -> dict:
    """Motor torques by virtual power (Kane): ``tau_k = v_k . (M qdd - g)``.

    ``v_k`` is the velocity field with unit rate on driver ``k`` and zero on
    every other row (``J v_k = e_k``). Independent of the multipliers.
    """
    mech = check_mechanism("mech", mech)
    J = mech.jacobian(q)
    f = mech.mass_diag * chk.state("qdd", qdd, mech.n) - mech.applied_forces(q, qd, t)
    out = {}
    for name in mech.driver_names:
        e = np.zeros(mech.m)
        e[mech.row_slice(name).start] = 1.0
        v = _solve_square(J, e, f"virtual velocity of {name!r}")
        out[name] = float(v @ f)
    return out


def energy_terms(mech: Mechanism, q, qd) -> dict:
    """Kinetic and potential energy (J) of sampled states ``q, qd`` (..., n)."""
    mech = check_mechanism("mech", mech)
    return {"kinetic": mech.kinetic_energy(qd), "potential": mech.potential_energy(q)}



__all__ = ["assemble", "kinematic_state", "inverse_dynamics", "driving_torques", "virtual_power_torques", "energy_terms"]
