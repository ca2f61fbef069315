"""Both derivations "as written": plain numpy, one state, step by step (for the timing comparison).

The compiled kernels of :mod:`robolib.stewart._kernels` compute the same forces
with hand-unrolled 3-vectors. The functions here follow each derivation the way
a reader of the papers would code it, with numpy 3-vectors and small matrices
and no compilation, so that the book can time *the method* apart from *the
implementation*:

* Newton-Euler with the U-joint constraint (the patent): the per-leg recursion
  -- leg kinematics (Eqs. 7-10), moments of cylinder + rod about the U centre
  with the constraint moment along ``n_i``, the rod's axial equation, then the
  platform's Newton-Euler equations. Its mass matrix is the same recursion with
  3x6 matrices in place of the accelerations (``M = M_p + sum_i M_i``, Eq. 32).
* Virtual work (Tsai 2000): every body's Jacobian formed explicitly (6x6 for each
  cylinder and rod, mapping the platform twist to the body's CoM velocity and
  angular velocity, legs without spin), ``J^T f = sum_k J_k^T W_k`` and
  ``M = sum_k J_k^T M_k J_k``.

Forward dynamics of both: ``dV = M^-1 (J^T f + F_e - W(X, V, 0))``;
:func:`simulate_aswritten` is the closed loop of :func:`robolib.stewart.simulate`
(RK4 plant, zero-order-hold ID-PID controller) written with these functions.

>>> from robolib import stewart
>>> m = stewart.load("stewart/hydraulic.yaml")
>>> X, V, dV = m.home_pose + 0.03, np.full(6, 0.2), np.full(6, -1.0)
>>> f = inverse_dynamics_aswritten(m, X, V, dV, "newton_euler")
>>> bool(np.allclose(f, stewart.inverse_dynamics(m, X, V, dV), rtol=1e-12, atol=1e-9))
True
"""

from __future__ import annotations

import time

import numpy as np

from robolib.core.errors import ParameterError
from robolib.core.rotations import rpy_matrix, skew
from robolib.stewart.control import joint_references
from robolib.stewart.kinematics import as_state, check_limits
from robolib.stewart.model import StewartModel, _check_model

#: Methods of this module (the same names as the compiled dynamics).
ASWRITTEN_METHODS = ("newton_euler", "virtual_work")


def _state(model, X, V=None, dV=None):
    _check_model(model)
    X = as_state(X, "pose")
    if X.shape != (6,):
        raise ParameterError(f"pose must be one state of shape (6,) here, got {X.shape}")
    check_limits(model, X)
    V = np.zeros(6) if V is None else as_state(V, "twist").reshape(6)
    dV = np.zeros(6) if dV is None else as_state(dV, "accel").reshape(6)
    return X, V, dV


def _wrench_inputs(model, X, V, dV, gravity, friction):
    """Checked state as ``R``, ``t, v, w, a, alpha`` (3,) each, gravity and the viscous coefficients ``(cu, cs, cp)``."""
    X, V, dV = _state(model, X, V, dV)
    g = model.gravity if gravity else np.zeros(3)
    visc = (model.ujoint_viscous, model.sjoint_viscous, model.prismatic_viscous) if friction else (0, 0, 0)
    return rpy_matrix(X[3:]), X[:3], V[:3], V[3:], dV[:3], dV[3:], g, visc


def _leg(model, R, t, i):
    """Geometry of leg ``i``: arm ``r = R p_i``, length, direction ``s``, U axes ``a, c``, ``n``, leg frame."""
    r = R @ model.platform_joints[i]
    L = t + r - model.base_joints[i]
    l = np.linalg.norm(L)
    s = L / l
    a = model.ujoint_axes[i]
    c = np.cross(s, a)
    c = c / np.linalg.norm(c)
    n = np.cross(a, c)
    Rl = np.column_stack((c, np.cross(s, c), s))
    return r, l, s, a, c, n, Rl


def ne_wrench_aswritten(model: StewartModel, X, V, dV, *, gravity: bool = True, friction: bool = True):
    """Newton-Euler (U joint) generalised force ``W`` (6,) with ``J^T f = W``, and ``J`` (6, 6).

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> W, J = ne_wrench_aswritten(m, m.home_pose, np.zeros(6), np.zeros(6))
    >>> round(float(W[2]), 3)   # at rest: the platform's weight plus the part of the legs' the S joints carry
    20.601
    """
    R, t, v, w, a, al, g, (cu, cs, cp) = _wrench_inputs(model, X, V, dV, gravity, friction)
    cyl, rod, pf = model.cylinder, model.rod, model.platform
    force, moment = np.zeros(3), np.zeros(3)
    J = np.empty((6, 6))
    for i in range(6):
        r, l, s, ua, c, n, Rl = _leg(model, R, t, i)
        # leg kinematics with the U joint (Eqs. 7-10)
        vP = v + np.cross(w, r)
        dl = s @ vP
        w_perp = np.cross(s, vP) / l
        sigma = -(w_perp @ n) / (s @ n)
        wl = w_perp + sigma * s
        aP = a + np.cross(al, r) + np.cross(w, np.cross(w, r))
        ddl = s @ aP + l * (w_perp @ w_perp)
        ds = np.cross(wl, s)
        al_perp = (np.cross(s, aP) - 2 * dl * np.cross(s, ds) - l * sigma * np.cross(s, wl)) / l
        dn = np.cross(ua, np.cross(wl, c))
        tau = -(wl @ dn + al_perp @ n) / (s @ n)
        alpha = al_perp + tau * s
        # cylinder and rod: moments about the U centre
        xc = Rl @ cyl.com
        xr = l * s + Rl @ rod.com
        acc_c = np.cross(alpha, xc) + np.cross(wl, np.cross(wl, xc))
        acc_r = ddl * s + 2 * dl * ds + np.cross(alpha, xr) + np.cross(wl, np.cross(wl, xr))
        I_leg = Rl @ (cyl.inertia + rod.inertia) @ Rl.T
        H = (np.cross(xc, cyl.mass * (acc_c - g)) + np.cross(xr, rod.mass * (acc_r - g))
             + I_leg @ alpha + np.cross(wl, I_leg @ wl) + cu * wl + cs * (wl - w))
        mu = (H @ s) / (s @ n)                      # U-joint constraint moment along n_i
        F_perp = np.cross(H - mu * n, s) / l         # S-joint force normal to the leg
        F_ax = rod.mass * (acc_r - g) @ s + cp * dl  # rod's axial equation (plus f_i)
        F = F_perp + F_ax * s
        force += F
        moment += np.cross(r, F) - cs * (wl - w)
        J[i, :3], J[i, 3:] = s, np.cross(r, s)
    rho = R @ pf.com
    acc_p = a + np.cross(al, rho) + np.cross(w, np.cross(w, rho))
    fp = pf.mass * (acc_p - g)
    Ip = R @ pf.inertia @ R.T
    W = np.concatenate((force + fp, moment + np.cross(rho, fp) + Ip @ al + np.cross(w, Ip @ w)))
    return W, J


def ne_mass_matrix_aswritten(model: StewartModel, X) -> np.ndarray:
    """The patent's ``M = M_p + sum_i M_i`` (6, 6): the per-leg recursion with 3x6 matrices.

    Each platform-acceleration column is carried through the same steps as in
    :func:`ne_wrench_aswritten` (no velocity, gravity or friction terms).

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> M = ne_mass_matrix_aswritten(m, m.home_pose)
    >>> bool(np.allclose(M, M.T)), bool(np.all(np.linalg.eigvalsh(M) > 0))
    (True, True)
    """
    X, _, _ = _state(model, X)
    R = rpy_matrix(X[3:])
    t = X[:3]
    cyl, rod, pf = model.cylinder, model.rod, model.platform
    M = np.zeros((6, 6))
    for i in range(6):
        r, l, s, ua, c, n, Rl = _leg(model, R, t, i)
        JP = np.hstack((np.eye(3), -skew(r)))                  # a_P per unit platform acceleration
        A_perp = skew(s) @ JP / l
        A = A_perp - np.outer(s, n @ A_perp) / (s @ n)          # alpha_i, spin part from alpha . n = 0
        xc = Rl @ cyl.com
        xr = l * s + Rl @ rod.com
        Ac = -skew(xc) @ A
        Ar = np.outer(s, s) @ JP - skew(xr) @ A
        I_leg = Rl @ (cyl.inertia + rod.inertia) @ Rl.T
        H = skew(xc) @ (cyl.mass * Ac) + skew(xr) @ (rod.mass * Ar) + I_leg @ A
        Hc = H - np.outer(n, s @ H) / (s @ n)
        F = -skew(s) @ Hc / l + np.outer(s, rod.mass * (s @ Ar))
        M += np.vstack((F, skew(r) @ F))
    rho = R @ pf.com
    Jpc = np.hstack((np.eye(3), -skew(rho)))
    Ip = R @ pf.inertia @ R.T
    M += np.vstack((pf.mass * Jpc, skew(rho) @ (pf.mass * Jpc)))
    M[3:, 3:] += Ip
    return M


def _vw_bodies(model, R, t, i):
    """Tsai's body Jacobians of leg ``i`` (no spin): ``J_P`` (3, 6), ``J_w`` (3, 6), cylinder and rod (6, 6)."""
    r, l, s, ua, c, n, Rl = _leg(model, R, t, i)
    JP = np.hstack((np.eye(3), -skew(r)))
    Jw = skew(s) @ JP / l
    xc = Rl @ model.cylinder.com
    xr = l * s + Rl @ model.rod.com
    J_cyl = np.vstack((-skew(xc) @ Jw, Jw))
    J_rod = np.vstack((np.outer(s, s) @ JP - skew(xr) @ Jw, Jw))
    return r, l, s, Rl, xc, xr, JP, Jw, J_cyl, J_rod


def vw_wrench_aswritten(model: StewartModel, X, V, dV, *, gravity: bool = True, friction: bool = True):
    """Virtual work (Tsai 2000): ``W = sum_k J_k^T W_k`` (6,) over platform and 12 leg bodies, and ``J``.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> W, J = vw_wrench_aswritten(m, m.home_pose, np.zeros(6), np.zeros(6))
    >>> round(float(W[2]), 3)
    20.601
    """
    R, t, v, w, a, al, g, (cu, cs, cp) = _wrench_inputs(model, X, V, dV, gravity, friction)
    cyl, rod, pf = model.cylinder, model.rod, model.platform
    W = np.zeros(6)
    J = np.empty((6, 6))
    for i in range(6):
        r, l, s, Rl, xc, xr, JP, Jw, J_cyl, J_rod = _vw_bodies(model, R, t, i)
        # no-spin leg kinematics
        vP = v + np.cross(w, r)
        dl = s @ vP
        wl = np.cross(s, vP) / l
        aP = a + np.cross(al, r) + np.cross(w, np.cross(w, r))
        ddl = s @ aP + l * (wl @ wl)
        ds = np.cross(wl, s)
        alpha = (np.cross(s, aP) - 2 * dl * np.cross(s, ds)) / l
        acc_c = np.cross(alpha, xc) + np.cross(wl, np.cross(wl, xc))
        acc_r = ddl * s + 2 * dl * ds + np.cross(alpha, xr) + np.cross(wl, np.cross(wl, xr))
        Ic, Ir = Rl @ cyl.inertia @ Rl.T, Rl @ rod.inertia @ Rl.T
        W_cyl = np.concatenate((cyl.mass * (acc_c - g), Ic @ alpha + np.cross(wl, Ic @ wl)))
        W_rod = np.concatenate((rod.mass * (acc_r - g), Ir @ alpha + np.cross(wl, Ir @ wl)))
        W += J_cyl.T @ W_cyl + J_rod.T @ W_rod
        # viscous joints: U on the leg, S between leg and platform, prismatic along the leg
        wrel = wl - w
        W += Jw.T @ (cu * wl + cs * wrel) + (s @ JP) * (cp * dl)
        W[3:] -= cs * wrel
        J[i, :3], J[i, 3:] = s, np.cross(r, s)
    rho = R @ pf.com
    J_pf = np.vstack((np.hstack((np.eye(3), -skew(rho))), np.hstack((np.zeros((3, 3)), np.eye(3)))))
    acc_p = a + np.cross(al, rho) + np.cross(w, np.cross(w, rho))
    Ip = R @ pf.inertia @ R.T
    W += J_pf.T @ np.concatenate((pf.mass * (acc_p - g), Ip @ al + np.cross(w, Ip @ w)))
    return W, J


def vw_mass_matrix_aswritten(model: StewartModel, X) -> np.ndarray:
    """Tsai's ``M = sum_k J_k^T M_k J_k`` (6, 6) with each body's 6x6 Jacobian and spatial inertia.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> M = vw_mass_matrix_aswritten(m, m.home_pose)
    >>> bool(np.allclose(M, ne_mass_matrix_aswritten(m, m.home_pose)))   # no spin at home
    True
    """
    X, _, _ = _state(model, X)
    R = rpy_matrix(X[3:])
    t = X[:3]
    cyl, rod, pf = model.cylinder, model.rod, model.platform
    M = np.zeros((6, 6))
    for i in range(6):
        r, l, s, Rl, xc, xr, JP, Jw, J_cyl, J_rod = _vw_bodies(model, R, t, i)
        M_cyl = np.zeros((6, 6))
        M_cyl[:3, :3], M_cyl[3:, 3:] = cyl.mass * np.eye(3), Rl @ cyl.inertia @ Rl.T
        M_rod = np.zeros((6, 6))
        M_rod[:3, :3], M_rod[3:, 3:] = rod.mass * np.eye(3), Rl @ rod.inertia @ Rl.T
        M += J_cyl.T @ M_cyl @ J_cyl + J_rod.T @ M_rod @ J_rod
    rho = R @ pf.com
    J_pf = np.vstack((np.hstack((np.eye(3), -skew(rho))), np.hstack((np.zeros((3, 3)), np.eye(3)))))
    M_pf = np.zeros((6, 6))
    M_pf[:3, :3], M_pf[3:, 3:] = pf.mass * np.eye(3), R @ pf.inertia @ R.T
    return M + J_pf.T @ M_pf @ J_pf


_WRENCH = {"newton_euler": ne_wrench_aswritten, "virtual_work": vw_wrench_aswritten}
_MASS = {"newton_euler": ne_mass_matrix_aswritten, "virtual_work": vw_mass_matrix_aswritten}


def _pick(method, table):
    try:
        return table[method]
    except (KeyError, TypeError):
        raise ParameterError(f"method must be one of {list(ASWRITTEN_METHODS)}, got {method!r}") from None


def inverse_dynamics_aswritten(model: StewartModel, pose, twist, accel, method: str = "newton_euler") -> np.ndarray:
    """Actuator forces ``f = J^-T W`` (6,) N for one state, by the chosen derivation as written.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> X, V, dV = m.home_pose + 0.05, np.full(6, 0.3), np.full(6, -1.0)
    >>> f = inverse_dynamics_aswritten(m, X, V, dV, "virtual_work")
    >>> bool(np.allclose(f, stewart.inverse_dynamics(m, X, V, dV, method="virtual_work"), rtol=1e-12))
    True
    """
    W, J = _pick(method, _WRENCH)(model, pose, twist, accel)
    return np.linalg.solve(J.T, W)


def forward_dynamics_aswritten(model: StewartModel, pose, twist, forces, method: str = "newton_euler",
                               external=None) -> np.ndarray:
    """``dV = M^-1 (J^T f + F_e - W(X, V, 0))`` (6,) for one state, as written.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/hydraulic.yaml")
    >>> X, V, dV = m.home_pose + 0.02, np.full(6, 0.1), np.linspace(-1, 1, 6)
    >>> f = inverse_dynamics_aswritten(m, X, V, dV, "virtual_work")
    >>> bool(np.allclose(forward_dynamics_aswritten(m, X, V, f, "virtual_work"), dV))
    True
    """
    wrench, mass = _pick(method, _WRENCH), _pick(method, _MASS)
    f = as_state(forces, "forces").reshape(6)
    ext = np.zeros(6) if external is None else as_state(external, "external").reshape(6)
    bias, J = wrench(model, pose, twist, np.zeros(6))
    return np.linalg.solve(mass(model, pose), J.T @ f + ext - bias)


def _pose_rate(X, V):
    """``[v, E(rpy)^-1 w]`` for ZYX Euler angles (the same formula as the compiled loop)."""
    cp, sp = np.cos(X[4]), np.sin(X[4])
    cy, sy = np.cos(X[5]), np.sin(X[5])
    wx, wy, wz = V[3:]
    dp = -sy * wx + cy * wy
    dr = (cy * wx + sy * wy) / cp
    return np.array([V[0], V[1], V[2], dr, dp, wz + sp * dr])


def simulate_aswritten(model: StewartModel, controller: str = "newton_euler", plant: str = "newton_euler", *,
                       gains, duration: float, step: float, trajectory, initial_error):
    """The closed loop of :func:`robolib.stewart.simulate`, written with the as-written models.

    Fixed-step RK4 of the ``plant`` model's forward dynamics; the ID-PID law of
    the ``controller`` model held over each step. Returns ``(t, error, wall_time)``:
    times (n,) s, leg errors ``l_d - l`` (n, 6) m and the wall time (s) of the loop.

    >>> from robolib import stewart
    >>> m = stewart.load("stewart/tsai2000.yaml")
    >>> tr = stewart.trajectory_from_model(m)
    >>> t, e, wall = simulate_aswritten(m, gains={"kp": 1200.0, "kd": 60.0, "ki": 8000.0}, duration=0.003,
    ...                                 step=0.001, trajectory=tr, initial_error=np.zeros(6))
    >>> e.shape
    (4, 6)
    """

    wrench = _pick(controller, _WRENCH)
    _pick(plant, _WRENCH)
    kp, kd, ki = (float(gains[k]) for k in ("kp", "kd", "ki"))
    nsteps = int(round(duration / step))
    t = np.arange(nsteps + 1) * step
    Xd, Vd, _ = trajectory(t)
    ld, dld, ddld = joint_references(model, trajectory, t)
    X = Xd[0] + as_state(initial_error, "initial_error")
    V = Vd[0].copy()
    z = np.zeros(6)
    err = np.zeros((nsteps + 1, 6))
    t0 = time.perf_counter()
    for k in range(nsteps + 1):
        R = rpy_matrix(X[3:])
        l, dl, Jv = np.empty(6), np.empty(6), np.empty(6)
        J = np.empty((6, 6))
        for i in range(6):
            r = R @ model.platform_joints[i]
            L = X[:3] + r - model.base_joints[i]
            li = np.linalg.norm(L)
            s = L / li
            vP = V[:3] + np.cross(V[3:], r)
            w_perp = np.cross(s, vP) / li
            l[i], dl[i] = li, s @ vP
            Jv[i] = s @ np.cross(V[3:], np.cross(V[3:], r)) + li * (w_perp @ w_perp)
            J[i, :3], J[i, 3:] = s, np.cross(r, s)
        e = ld[k] - l
        err[k] = e
        ddl_ref = ddld[k] + kd * (dld[k] - dl) + kp * e + ki * z - Jv
        z = z + e * step
        W, J = wrench(model, X, V, np.linalg.solve(J, ddl_ref))
        f = np.linalg.solve(J.T, W)
        if k == nsteps:
            break
        kX, kV = [], []
        for h in (0.0, 0.5 * step, 0.5 * step, step):
            Xs = X + h * kX[-1] if kX else X
            Vs = V + h * kV[-1] if kV else V
            kV.append(forward_dynamics_aswritten(model, Xs, Vs, f, plant))
            kX.append(_pose_rate(Xs, Vs))
        X = X + step / 6 * (kX[0] + 2 * kX[1] + 2 * kX[2] + kX[3])
        V = V + step / 6 * (kV[0] + 2 * kV[1] + 2 * kV[2] + kV[3])
    return t, err, time.perf_counter() - t0


__all__ = ["ASWRITTEN_METHODS", "ne_wrench_aswritten", "ne_mass_matrix_aswritten", "vw_wrench_aswritten",
           "vw_mass_matrix_aswritten", "inverse_dynamics_aswritten", "forward_dynamics_aswritten",
           "simulate_aswritten"]
