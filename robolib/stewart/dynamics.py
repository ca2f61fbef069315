"""Dynamics of the 6-UPS platform: U-joint Newton-Euler and the virtual-work baseline.

State equation (the patent's Eq. 32), generalised velocity ``V = [v, w]`` of the
platform origin in the base frame:

    M(X) dV + C(X, V) V + G(X) + F_f(X, V) = J(X)^T f + F_e

* ``method="newton_euler"``: each leg (cylinder + rod) balances moments about
  its U centre; the U joint reacts only along ``n_i = a_i x c_i`` and the legs
  spin as the U joint dictates (``omega_i . n_i = 0``). Eliminating the S-joint
  forces with the platform's Newton-Euler equations gives ``J^T f = W``.
* ``method="virtual_work"``: Tsai (2000), legs without spin, every body's
  Jacobian formed explicitly.

The kernels are compiled with numba (when installed) and take a leading batch
shape: ``pose, twist, accel`` of shape ``(..., 6)`` broadcast together.

>>> from robolib import stewart
>>> m = stewart.load("stewart/tsai2000.yaml")
>>> f = inverse_dynamics(m, m.home_pose, np.zeros(6), np.zeros(6))
>>> T = dynamics_terms(m, m.home_pose, np.zeros(6))
>>> bool(np.allclose(T.J.T @ f, T.G))
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from robolib.core.errors import ParameterError, SingularityError, UnreachableError
from robolib.core.rotations import cross, dot
from robolib.stewart import _kernels
from robolib.stewart.kinematics import (
    _geometry,
    _motion,
    _raise_violation,
    as_flag,
    as_state,
    batch_shape,
    leg_geometry,
)
from robolib.stewart.model import StewartModel, _check_model

#: Method names accepted by the dynamics functions, and their kernel codes.
METHODS = {"newton_euler": 0, "virtual_work": 1, "newton_euler_nospin": 2}

_STATUS = {
    1: "a leg of zero length",
    2: "a leg along its fixed U axis (U-joint singularity)",
    3: "a singular matrix (J or M): the pose is at a parallel singularity",
    4: "a leg shorter than its stroke limit length_min",
    5: "a leg longer than its stroke limit length_max",
    6: "a U-joint angle beyond ujoint_max_angle",
    7: "an S-joint angle beyond sjoint_max_angle",
}


def status_message(status: int) -> str:
    """Words for a kernel status code, naming the leg (1-based) when the code concerns one."""
    code, leg = _kernels.decode_status(status)
    text = _STATUS[code]
    if leg is not None:
        text = text.replace("a leg", f"leg {leg + 1}", 1).replace("a U-joint", f"leg {leg + 1}'s U-joint", 1) \
            .replace("an S-joint", f"leg {leg + 1}'s S-joint", 1)
    return text


def status_error(code: int):
    """The robolib error class of a kernel status: limits -> UnreachableError, else SingularityError."""
    return UnreachableError if code >= 4 else SingularityError


def _method(method: str, name: str = "method") -> int:
    try:
        return METHODS[method]
    except (KeyError, TypeError):
        raise ParameterError(f"{name} must be one of {sorted(METHODS)}, got {method!r:.60}") from None


def _batch(**states):
    """Broadcast checked ``(..., 6)`` arrays to one batch; return the batch shape and writeable (N, 6) copies.

    (Always fresh C-contiguous writeable arrays: one compiled signature for every call.) Arrays whose
    batch shapes do not broadcast raise a ``ParameterError`` naming them.
    """
    arrays = states.values()
    if all(a.shape == (6,) for a in arrays):
        return (), [a.reshape(1, 6).copy() for a in arrays]
    shape = batch_shape(**states)
    flat = [np.array(np.broadcast_to(a, shape).reshape(-1, 6), dtype=float, order="C") for a in arrays]
    return shape[:-1], flat


def _check_status(status, what: str, model=None, X=None):
    if status.any():
        k = int(np.flatnonzero(status)[0])
        code, _ = _kernels.decode_status(status.flat[k])
        where = f"state {k} of the batch" if len(status) > 1 else "the state"
        if code >= 4 and model is not None:  # raises with the value and the limit
            _raise_violation(model, X[k], leg_geometry(model, X[k], limits=False), f"{what}: {where}")
        raise status_error(code)(f"{what}: {where} has {status_message(status.flat[k])}")


def inverse_dynamics(model: StewartModel, pose, twist, accel, method: str = "newton_euler",
                     external=None) -> np.ndarray:
    """Actuator forces ``f`` (N) for pose, twist, acceleration ``(..., 6)``: shape ``(..., 6)``.

    ``external``: optional wrench ``F_e = [force, moment about the platform
    origin]`` (base frame, N, N m) acting on the platform, ``(..., 6)``.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> X = np.tile(m.home_pose, (4, 1))
    >>> inverse_dynamics(m, X, np.zeros(6), np.zeros(6)).shape
    (4, 6)
    """
    _check_model(model)
    code = _method(method)
    states = dict(pose=as_state(pose, "pose"), twist=as_state(twist, "twist"), accel=as_state(accel, "accel"))
    if external is not None:
        Fe = as_state(external, "external")
        full = batch_shape(**states, external=Fe)
    shape, (X, V, dV) = _batch(**states)
    F = np.empty_like(X)
    status = np.zeros(len(X), dtype=np.int64)
    _kernels.inverse_dynamics_batch(model.packed, code, X, V, dV, F, status)
    _check_status(status, "inverse_dynamics", model, X)
    F = F.reshape(shape + (6,))
    if external is not None:
        g = _geometry(model, states["pose"])
        J = np.concatenate((g.s, cross(g.r, g.s)), axis=-1)
        F = np.broadcast_to(F, full)
        F = F - np.linalg.solve(np.swapaxes(J, -1, -2), np.broadcast_to(Fe, F.shape)[..., None])[..., 0]
    return F


class DynamicsTerms(NamedTuple):
    """``M`` (..., 6, 6) [kg, kg m, kg m^2]; ``CV, G, Ff`` (..., 6) [N, N m]; ``J`` (..., 6, 6)."""

    M: np.ndarray
    CV: np.ndarray
    G: np.ndarray
    Ff: np.ndarray
    J: np.ndarray


def dynamics_terms(model: StewartModel, pose, twist, method: str = "newton_euler") -> DynamicsTerms:
    """The terms of ``M dV + C V + G + F_f = J^T f + F_e`` at ``(pose, twist)``.

    ``G`` is gravity's generalised force, ``F_f`` friction's (viscous: linear in
    the velocities), ``C V`` the remaining velocity-product terms.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/hydraulic.yaml")
    >>> T = dynamics_terms(m, m.home_pose, np.zeros(6))
    >>> bool(np.allclose(T.M, T.M.T)), bool(np.all(np.linalg.eigvalsh(T.M) > 0))
    (True, True)
    """
    _check_model(model)
    code = _method(method)
    shape, (X, V) = _batch(pose=as_state(pose, "pose"), twist=as_state(twist, "twist"))
    n = len(X)
    M, J = np.empty((n, 6, 6)), np.empty((n, 6, 6))
    CV, G, Ff = np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6))
    status = np.zeros(n, dtype=np.int64)
    _kernels.terms_batch(model.packed, code, X, V, M, CV, G, Ff, J, status)
    _check_status(status, "dynamics_terms", model, X)
    return DynamicsTerms(M.reshape(shape + (6, 6)), CV.reshape(shape + (6,)), G.reshape(shape + (6,)),
                         Ff.reshape(shape + (6,)), J.reshape(shape + (6, 6)))


def forward_dynamics(model: StewartModel, pose, twist, forces, method: str = "newton_euler",
                     external=None) -> np.ndarray:
    """Platform acceleration ``dV = M^-1 (J^T f + F_e - C V - G - F_f)``, shape ``(..., 6)``.

    ``external`` is a wrench ``[force, moment about the platform origin]`` on
    the platform, base frame (N, N m), default zero.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> X, V, dV = m.home_pose, np.full(6, 0.1), np.linspace(-1, 1, 6)
    >>> f = inverse_dynamics(m, X, V, dV)
    >>> bool(np.allclose(forward_dynamics(m, X, V, f), dV))
    True
    """
    _check_model(model)
    code = _method(method)
    ext = np.zeros(6) if external is None else as_state(external, "external")
    shape, (X, V, Fa, E) = _batch(pose=as_state(pose, "pose"), twist=as_state(twist, "twist"),
                                  forces=as_state(forces, "forces"), external=ext)
    DV = np.empty_like(X)
    status = np.zeros(len(X), dtype=np.int64)
    _kernels.forward_dynamics_batch(model.packed, code, X, V, Fa, E, DV, status)
    _check_status(status, "forward_dynamics", model, X)
    return DV.reshape(shape + (6,))


def inverse_dynamics_numpy(model: StewartModel, pose, twist, accel, *, spin: bool = True) -> np.ndarray:
    """The same Newton-Euler inverse dynamics written with numpy, vectorised over the 6 legs and the batch.

    A second, independent implementation (it uses :func:`leg_motion`, not the
    compiled kernel) kept for cross-checking and for the timing comparison;
    ``spin=False`` gives the no-spin (virtual-work-equivalent) model.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/hydraulic.yaml")
    >>> X, V, dV = m.home_pose + 0.05, np.full(6, 0.3), np.full(6, -1.0)
    >>> bool(np.allclose(inverse_dynamics_numpy(m, X, V, dV), inverse_dynamics(m, X, V, dV), rtol=1e-12))
    True
    """
    _check_model(model)
    pose, V, dV = as_state(pose, "pose"), as_state(twist, "twist"), as_state(accel, "accel")
    spin = as_flag(spin, "spin")
    batch_shape(pose=pose, twist=V, accel=dV)
    g = _geometry(model, pose)
    mo = _motion(model, g, V, dV, spin)
    F = _leg_frames(g)
    l, s = g.length[..., None], g.s
    w, al = mo.omega, mo.alpha
    grav = model.gravity
    cyl, rod, pf = model.cylinder, model.rod, model.platform
    xc = F @ cyl.com
    xr = l * s + F @ rod.com
    acyl = cross(al, xc) + cross(w, cross(w, xc))
    arod = mo.ddl[..., None] * s + 2 * mo.dl[..., None] * cross(w, s) + cross(al, xr) + cross(w, cross(w, xr))
    Iw = F @ (cyl.inertia + rod.inertia) @ np.swapaxes(F, -1, -2)
    Ial, Iww = (Iw @ al[..., None])[..., 0], (Iw @ w[..., None])[..., 0]
    wp = V[..., None, 3:]
    frod = rod.mass * (arod - grav)
    H = (cross(xc, cyl.mass * (acyl - grav)) + cross(xr, frod) + Ial + cross(w, Iww)
         + model.ujoint_viscous * w + model.sjoint_viscous * (w - wp))
    Hs = dot(H, s)[..., None]
    K = (H - Hs / dot(s, g.n)[..., None] * g.n) / l if spin else (H - Hs * s) / l
    Fi = cross(K, s) + (dot(frod, s) + model.prismatic_viscous * mo.dl)[..., None] * s
    R = g.R
    rho = (R @ pf.com[:, None])[..., 0]
    a, alp, wv = dV[..., :3], dV[..., 3:], V[..., 3:]
    fp = pf.mass * (a + cross(alp, rho) + cross(wv, cross(wv, rho)) - grav)
    Ip = R @ pf.inertia @ np.swapaxes(R, -1, -2)
    force = Fi.sum(axis=-2) + fp
    moment = (cross(g.r, Fi).sum(axis=-2) - model.sjoint_viscous * (w - wp).sum(axis=-2) + cross(rho, fp)
              + (Ip @ alp[..., None])[..., 0] + cross(wv, (Ip @ wv[..., None])[..., 0]))
    W = np.concatenate((force, moment), axis=-1)
    J = np.concatenate((s, cross(g.r, s)), axis=-1)
    return np.linalg.solve(np.swapaxes(J, -1, -2), W[..., None])[..., 0]


# --------------------------------------------------------------- energy (numpy, independent route)
def _leg_frames(g):
    return np.stack((g.c, cross(g.s, g.c), g.s), axis=-1)


def kinetic_energy(model: StewartModel, pose, twist, *, spin: bool = True) -> np.ndarray:
    """Kinetic energy (J) of platform and 12 leg bodies, shape ``(...)`` (numpy route).

    Uses :func:`leg_motion` (U-joint leg spin unless ``spin=False``), not the
    dynamics kernels, so ``V^T M V / 2 == kinetic_energy`` is an independent check.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> float(kinetic_energy(m, m.home_pose, [1.0, 0, 0, 0, 0, 0])) > 0.5 * 1.5
    True
    """
    _check_model(model)
    pose, V = as_state(pose, "pose"), as_state(twist, "twist")
    spin = as_flag(spin, "spin")
    batch_shape(pose=pose, twist=V)
    g = _geometry(model, pose)
    mo = _motion(model, g, V, np.zeros_like(V), spin)
    v, w = V[..., :3], V[..., 3:]
    pf = model.platform
    rho = np.einsum("...ij,j->...i", g.R, pf.com)
    vc = v + cross(w, rho)
    wl = np.einsum("...ji,...j->...i", g.R, w)
    T = 0.5 * pf.mass * dot(vc, vc) + 0.5 * dot(wl, wl @ pf.inertia)
    F = _leg_frames(g)
    xc = np.einsum("...ij,j->...i", F, model.cylinder.com)
    xr = g.length[..., None] * g.s + np.einsum("...ij,j->...i", F, model.rod.com)
    om = mo.omega
    v_cyl = cross(om, xc)
    v_rod = mo.dl[..., None] * g.s + cross(om, xr)
    om_loc = np.einsum("...ji,...j->...i", F, om)
    Isum = model.cylinder.inertia + model.rod.inertia
    T_legs = (0.5 * model.cylinder.mass * dot(v_cyl, v_cyl) + 0.5 * model.rod.mass * dot(v_rod, v_rod)
              + 0.5 * dot(om_loc, om_loc @ Isum))
    return T + T_legs.sum(axis=-1)


def potential_energy(model: StewartModel, pose) -> np.ndarray:
    """Gravitational potential energy ``-sum m g . x_com`` (J), shape ``(...)``.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> float(potential_energy(m, m.home_pose)) > 0
    True
    """
    _check_model(model)
    pose = as_state(pose, "pose")
    g = _geometry(model, pose)
    F = _leg_frames(g)
    x_p = pose[..., :3] + np.einsum("...ij,j->...i", g.R, model.platform.com)
    x_c = model.base_joints + np.einsum("...ij,j->...i", F, model.cylinder.com)
    x_r = model.base_joints + g.length[..., None] * g.s + np.einsum("...ij,j->...i", F, model.rod.com)
    gv = model.gravity
    return -(model.platform.mass * dot(x_p, gv) + (model.cylinder.mass * dot(x_c, gv)
                                                   + model.rod.mass * dot(x_r, gv)).sum(axis=-1))


def dissipation(model: StewartModel, pose, twist) -> np.ndarray:
    """Power (W) lost in the viscous U, S and prismatic joints, shape ``(...)``.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> float(dissipation(m, m.home_pose, np.ones(6)))
    0.0
    """
    _check_model(model)
    pose, V = as_state(pose, "pose"), as_state(twist, "twist")
    batch_shape(pose=pose, twist=V)
    mo = _motion(model, _geometry(model, pose), V, np.zeros_like(V), True)
    wrel = mo.omega - V[..., None, 3:]
    return (model.ujoint_viscous * dot(mo.omega, mo.omega) + model.sjoint_viscous * dot(wrel, wrel)
            + model.prismatic_viscous * mo.dl ** 2).sum(axis=-1)


__all__ = [
    "METHODS", "inverse_dynamics", "inverse_dynamics_numpy", "DynamicsTerms", "dynamics_terms", "forward_dynamics",
    "kinetic_energy", "potential_energy", "dissipation",
]
