"""Compiled single-state kernels of the Stewart dynamics (numba; pure-Python fallback).

3-vectors are tuples of floats (no heap allocation in the compiled code). The
model is the flat array of :func:`robolib.stewart.model.pack`. These functions
are private: use :mod:`robolib.stewart.dynamics`.

Both kernels return the generalised force ``W`` (6,) that the actuators must
produce through ``J^T f = W``, and fill ``J`` (6, 6):

* :func:`ne_wrench` -- Newton-Euler with the U-joint constraint (``spin=True``)
  or its classical no-spin variant (``spin=False``);
* :func:`vw_wrench` -- Tsai's virtual work with each body's Jacobian (no spin).

Status codes: 0 ok, 1 zero-length leg, 2 U-joint singularity, 3 singular J
or M, 4 leg shorter than ``length_min``, 5 leg longer than ``length_max``,
6 U-joint angle beyond its limit, 7 S-joint angle beyond its limit. A code that
concerns one leg ``i`` (0-based) is returned as ``code + LEG_CODE * i``
(:func:`decode_status`).
"""

from __future__ import annotations

import math

import numpy as np

try:  # pragma: no cover - exercised whichever way the environment is
    import numba

    def jit(f):
        return numba.njit(cache=True, fastmath=False)(f)

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    def jit(f):
        return f

    HAVE_NUMBA = False

from robolib.stewart.model import (
    OFF_A,
    OFF_B,
    OFF_CC,
    OFF_CP,
    OFF_CR,
    OFF_CSMAX,
    OFF_CUMAX,
    OFF_FP,
    OFF_FS,
    OFF_FU,
    OFF_G,
    OFF_IC,
    OFF_IP,
    OFF_IR,
    OFF_LMAX,
    OFF_LMIN,
    OFF_MC,
    OFF_MP,
    OFF_MR,
    OFF_P,
    OFF_S0,
)

PIVOT_TOL = 1e-13
LEN_TOL = 1e-9
USING_TOL = 1e-9
#: Relative slack of the limit checks (rounding only: a leg exactly at a limit is allowed).
LIMIT_TOL = 1e-12
#: Multiplier of the leg index in a leg-specific status code.
LEG_CODE = 16


def decode_status(status: int):
    """``(code, leg)`` of a kernel status (``leg`` 0-based, or None).

    >>> decode_status(5 + LEG_CODE * 2), decode_status(3)
    ((5, 2), (3, None))
    """
    status = int(status)
    code, leg = status % LEG_CODE, status // LEG_CODE
    return code, (leg if (leg or code in (1, 2, 4, 5, 6, 7)) else None)


@jit
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@jit
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@jit
def scl(k, a):
    return (k * a[0], k * a[1], k * a[2])


@jit
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@jit
def crs(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@jit
def vec(x, o):
    return (x[o], x[o + 1], x[o + 2])


@jit
def mat_vec(x, o, v):
    """Row-major 3x3 stored at x[o:o+9] times v."""
    return (x[o] * v[0] + x[o + 1] * v[1] + x[o + 2] * v[2],
            x[o + 3] * v[0] + x[o + 4] * v[1] + x[o + 5] * v[2],
            x[o + 6] * v[0] + x[o + 7] * v[1] + x[o + 8] * v[2])


@jit
def frame_apply(e1, e2, e3, v):
    """[e1 e2 e3] @ v (local -> world)."""
    return (e1[0] * v[0] + e2[0] * v[1] + e3[0] * v[2],
            e1[1] * v[0] + e2[1] * v[1] + e3[1] * v[2],
            e1[2] * v[0] + e2[2] * v[1] + e3[2] * v[2])


@jit
def frame_inertia(e1, e2, e3, x, o, v):
    """World inertia (R I R^T) v for R = [e1 e2 e3] and I = x[o:o+9]."""
    loc = (dot(e1, v), dot(e2, v), dot(e3, v))
    return frame_apply(e1, e2, e3, mat_vec(x, o, loc))


@jit
def unit(k):
    """The unit vector along axis ``k mod 3``."""
    return (1.0 if k % 3 == 0 else 0.0, 1.0 if k % 3 == 1 else 0.0, 1.0 if k % 3 == 2 else 0.0)


@jit
def jacobian_row(J, i, r, s):
    """Row ``i`` of the leg Jacobian: ``(s, r x s)``."""
    rs = crs(r, s)
    J[i, 0], J[i, 1], J[i, 2] = s[0], s[1], s[2]
    J[i, 3], J[i, 4], J[i, 5] = rs[0], rs[1], rs[2]


@jit
def add_column(M, col, f, m):
    """``M[:, col] += (f, m)``."""
    for j in range(3):
        M[j, col] += f[j]
        M[j + 3, col] += m[j]


@jit
def platform_column(prm, e1, e2, e3, rho, col):
    """Platform force and moment (about the origin) for a unit platform acceleration along ``col``."""
    u = unit(col)
    if col < 3:
        fp = scl(prm[OFF_MP], u)
        return fp, crs(rho, fp)
    fp = scl(prm[OFF_MP], crs(u, rho))
    return fp, add(crs(rho, fp), frame_inertia(e1, e2, e3, prm, OFF_IP, u))


@jit
def rpy_rows(X):
    cr, cp, cy = math.cos(X[3]), math.cos(X[4]), math.cos(X[5])
    sr, sp, sy = math.sin(X[3]), math.sin(X[4]), math.sin(X[5])
    # columns of R = Rz Ry Rx
    e1 = (cy * cp, sy * cp, -sp)
    e2 = (cy * sp * sr - sy * cr, sy * sp * sr + cy * cr, cp * sr)
    e3 = (cy * sp * cr + sy * sr, sy * sp * cr - cy * sr, cp * cr)
    return e1, e2, e3


@jit
def leg_frame(prm, e1, e2, e3, t, i):
    """Geometry of leg ``i`` at the pose with origin ``t`` and rotation rows ``e1, e2, e3``.

    Returns ``(status, b, ua, r, l, s, c, sn)``: U centre ``b``, fixed U axis
    ``ua``, platform arm ``r = R p_i``, length ``l``, unit leg direction ``s``,
    second U axis ``c = s x ua / |s x ua|`` and ``sn = |s x ua| = s . n``.
    ``status`` is 1 for a zero-length leg, 2 for a leg along its U axis, else 0.
    """
    b = vec(prm, OFF_B + 3 * i)
    ua = vec(prm, OFF_A + 3 * i)
    r = frame_apply(e1, e2, e3, vec(prm, OFF_P + 3 * i))
    L = sub(add(t, r), b)
    l = math.sqrt(dot(L, L))
    if l < LEN_TOL:
        return 1 + LEG_CODE * i, b, ua, r, l, L, L, 0.0
    s = scl(1.0 / l, L)
    sa = crs(s, ua)
    sn = math.sqrt(dot(sa, sa))
    if sn < USING_TOL:
        return 2 + LEG_CODE * i, b, ua, r, l, s, sa, sn
    st = 0
    if l < prm[OFF_LMIN] * (1.0 - LIMIT_TOL):
        st = 4
    elif l > prm[OFF_LMAX] * (1.0 + LIMIT_TOL):
        st = 5
    else:
        s0 = vec(prm, OFF_S0 + 3 * i)
        if dot(s, s0) < prm[OFF_CUMAX] - LIMIT_TOL:
            st = 6
        elif dot(s, frame_apply(e1, e2, e3, s0)) < prm[OFF_CSMAX] - LIMIT_TOL:
            st = 7
    if st:
        return st + LEG_CODE * i, b, ua, r, l, s, sa, sn
    return 0, b, ua, r, l, s, scl(1.0 / sn, sa), sn


@jit
def ne_wrench(prm, X, V, dV, spin, kg, kf, W, J):
    """Newton-Euler generalised force (U-joint legs if ``spin``); ``kg``, ``kf`` scale gravity, friction."""
    e1, e2, e3 = rpy_rows(X)
    t = (X[0], X[1], X[2])
    v = (V[0], V[1], V[2])
    w = (V[3], V[4], V[5])
    a = (dV[0], dV[1], dV[2])
    al = (dV[3], dV[4], dV[5])
    g = scl(kg, vec(prm, OFF_G))
    mc, mr, mp = prm[OFF_MC], prm[OFF_MR], prm[OFF_MP]
    cu, cs, cp = kf * prm[OFF_FU], kf * prm[OFF_FS], kf * prm[OFF_FP]
    comc, comr = vec(prm, OFF_CC), vec(prm, OFF_CR)
    Fs = (0.0, 0.0, 0.0)
    Ms = (0.0, 0.0, 0.0)
    for i in range(6):
        status, b, ua, r, l, s, c, sn = leg_frame(prm, e1, e2, e3, t, i)
        if status:
            return status
        n = crs(ua, c)
        f2 = crs(s, c)
        # velocities
        vP = add(v, crs(w, r))
        dl = dot(s, vP)
        wperp = scl(1.0 / l, crs(s, vP))
        sig = -dot(wperp, n) / sn if spin else 0.0
        wl = add(wperp, scl(sig, s))
        # accelerations
        aP = add(add(a, crs(al, r)), crs(w, crs(w, r)))
        ddl = dot(s, aP) + l * dot(wperp, wperp)
        ds = crs(wl, s)
        alp = scl(1.0 / l, sub(sub(crs(s, aP), scl(2.0 * dl, crs(s, ds))), scl(l * sig, crs(s, wl))))
        if spin:
            dn = crs(ua, crs(wl, c))
            tau = (-dot(wl, dn) - dot(alp, n)) / sn
        else:
            tau = 0.0
        all_ = add(alp, scl(tau, s))
        # leg bodies
        xc = frame_apply(c, f2, s, comc)
        xr = add(scl(l, s), frame_apply(c, f2, s, comr))
        acyl = add(crs(all_, xc), crs(wl, crs(wl, xc)))
        arod = add(add(scl(ddl, s), scl(2.0 * dl, ds)), add(crs(all_, xr), crs(wl, crs(wl, xr))))
        Ial = add(frame_inertia(c, f2, s, prm, OFF_IC, all_), frame_inertia(c, f2, s, prm, OFF_IR, all_))
        Iw = add(frame_inertia(c, f2, s, prm, OFF_IC, wl), frame_inertia(c, f2, s, prm, OFF_IR, wl))
        frod = scl(mr, sub(arod, g))
        H = add(add(crs(xc, scl(mc, sub(acyl, g))), crs(xr, frod)), add(Ial, crs(wl, Iw)))
        wrel = sub(wl, w)
        H = add(H, add(scl(cu, wl), scl(cs, wrel)))
        if spin:
            mu = dot(H, s) / sn
            K = scl(1.0 / l, sub(H, scl(mu, n)))
        else:
            K = scl(1.0 / l, sub(H, scl(dot(H, s), s)))
        Ai = dot(frod, s) + cp * dl
        Fi = add(crs(K, s), scl(Ai, s))
        Fs = add(Fs, Fi)
        Ms = add(Ms, sub(crs(r, Fi), scl(cs, wrel)))
        jacobian_row(J, i, r, s)
    rho = frame_apply(e1, e2, e3, vec(prm, OFF_CP))
    ac = add(add(a, crs(al, rho)), crs(w, crs(w, rho)))
    fp = scl(mp, sub(ac, g))
    Fs = add(Fs, fp)
    Ms = add(Ms, add(crs(rho, fp), add(frame_inertia(e1, e2, e3, prm, OFF_IP, al),
                                       crs(w, frame_inertia(e1, e2, e3, prm, OFF_IP, w)))))
    W[0], W[1], W[2] = Fs[0], Fs[1], Fs[2]
    W[3], W[4], W[5] = Ms[0], Ms[1], Ms[2]
    return 0


@jit
def vw_wrench(prm, X, V, dV, kg, kf, W, J, work):
    """Virtual work (Tsai 2000): ``J^T f = sum_k J_k^T W_k`` over platform and 12 leg bodies.

    Each body's 6x6 Jacobian (CoM velocity, angular velocity vs the platform
    twist) is formed explicitly, legs without spin. ``work`` is a (4, 3, 6) scratch array.
    """
    e1, e2, e3 = rpy_rows(X)
    t = (X[0], X[1], X[2])
    v = (V[0], V[1], V[2])
    w = (V[3], V[4], V[5])
    a = (dV[0], dV[1], dV[2])
    al = (dV[3], dV[4], dV[5])
    g = scl(kg, vec(prm, OFF_G))
    mc, mr, mp = prm[OFF_MC], prm[OFF_MR], prm[OFF_MP]
    cu, cs, cp = kf * prm[OFF_FU], kf * prm[OFF_FS], kf * prm[OFF_FP]
    comc, comr = vec(prm, OFF_CC), vec(prm, OFF_CR)
    Jp, Jw, Jc, Jr = work[0], work[1], work[2], work[3]
    for k in range(6):
        W[k] = 0.0
    for i in range(6):
        status, b, ua, r, l, s, c, sn = leg_frame(prm, e1, e2, e3, t, i)
        if status:
            return status
        f2 = crs(s, c)
        xc = frame_apply(c, f2, s, comc)
        xr = add(scl(l, s), frame_apply(c, f2, s, comr))
        # Jacobians (3x6): v_P = Jp V, w_leg = Jw V = [s]x Jp V / l,
        # v_cyl = -[xc]x Jw V, v_rod = s s^T Jp V - [xr]x Jw V
        for col in range(6):
            jp = unit(col) if col < 3 else crs(unit(col), r)
            jw = scl(1.0 / l, crs(s, jp))
            jc = crs(jw, xc)
            jr = add(scl(dot(s, jp), s), crs(jw, xr))
            for row in range(3):
                Jp[row, col] = jp[row]
                Jw[row, col] = jw[row]
                Jc[row, col] = jc[row]
                Jr[row, col] = jr[row]
        # no-spin leg kinematics
        vP = add(v, crs(w, r))
        dl = dot(s, vP)
        wl = scl(1.0 / l, crs(s, vP))
        aP = add(add(a, crs(al, r)), crs(w, crs(w, r)))
        ddl = dot(s, aP) + l * dot(wl, wl)
        ds = crs(wl, s)
        all_ = scl(1.0 / l, sub(crs(s, aP), scl(2.0 * dl, crs(s, ds))))
        acyl = add(crs(all_, xc), crs(wl, crs(wl, xc)))
        arod = add(add(scl(ddl, s), scl(2.0 * dl, ds)), add(crs(all_, xr), crs(wl, crs(wl, xr))))
        Ial = add(frame_inertia(c, f2, s, prm, OFF_IC, all_), frame_inertia(c, f2, s, prm, OFF_IR, all_))
        Iw = add(frame_inertia(c, f2, s, prm, OFF_IC, wl), frame_inertia(c, f2, s, prm, OFF_IR, wl))
        fc = scl(mc, sub(acyl, g))
        fr = scl(mr, sub(arod, g))
        wrel = sub(wl, w)
        mom = add(add(Ial, crs(wl, Iw)), add(scl(cu, wl), scl(cs, wrel)))
        ax = cp * dl
        for col in range(6):
            W[col] += (Jc[0, col] * fc[0] + Jc[1, col] * fc[1] + Jc[2, col] * fc[2]
                       + Jr[0, col] * fr[0] + Jr[1, col] * fr[1] + Jr[2, col] * fr[2]
                       + Jw[0, col] * mom[0] + Jw[1, col] * mom[1] + Jw[2, col] * mom[2]
                       + (s[0] * Jp[0, col] + s[1] * Jp[1, col] + s[2] * Jp[2, col]) * ax)
        # S-joint friction reaction on the platform: angular Jacobian [0, I]
        for j in range(3):
            W[j + 3] -= cs * wrel[j]
        jacobian_row(J, i, r, s)
    # platform: v_c = v + w x rho  ->  J_pc^T F = [F, rho x F]
    rho = frame_apply(e1, e2, e3, vec(prm, OFF_CP))
    ac = add(add(a, crs(al, rho)), crs(w, crs(w, rho)))
    fp = scl(mp, sub(ac, g))
    mp_ = add(crs(rho, fp), add(frame_inertia(e1, e2, e3, prm, OFF_IP, al),
                                crs(w, frame_inertia(e1, e2, e3, prm, OFF_IP, w))))
    for j in range(3):
        W[j] += fp[j]
        W[j + 3] += mp_[j]
    return 0


@jit
def solve6(A, b, transpose, x, Awork):
    """Solve ``A x = b`` (or ``A^T x = b``) for 6x6 A by Gaussian elimination with partial pivoting.

    Returns 0, or 3 if a pivot is below ``PIVOT_TOL`` times the largest entry.
    """
    n = 6
    scale = 0.0
    for i in range(n):
        for j in range(n):
            Awork[i, j] = A[j, i] if transpose else A[i, j]
            scale = max(scale, abs(Awork[i, j]))
        x[i] = b[i]
    if scale == 0.0:
        return 3
    for k in range(n):
        p = k
        for i in range(k + 1, n):
            if abs(Awork[i, k]) > abs(Awork[p, k]):
                p = i
        if abs(Awork[p, k]) < PIVOT_TOL * scale:
            return 3
        if p != k:
            for j in range(n):
                Awork[k, j], Awork[p, j] = Awork[p, j], Awork[k, j]
            x[k], x[p] = x[p], x[k]
        for i in range(k + 1, n):
            fct = Awork[i, k] / Awork[k, k]
            for j in range(k, n):
                Awork[i, j] -= fct * Awork[k, j]
            x[i] -= fct * x[k]
    for k in range(n - 1, -1, -1):
        acc = x[k]
        for j in range(k + 1, n):
            acc -= Awork[k, j] * x[j]
        x[k] = acc / Awork[k, k]
    return 0


@jit
def wrench(prm, method, X, V, dV, kg, kf, W, J, work):
    """Dispatch: method 0 = Newton-Euler (U joint), 1 = virtual work, 2 = no-spin Newton-Euler."""
    if method == 0:
        return ne_wrench(prm, X, V, dV, True, kg, kf, W, J)
    if method == 2:
        return ne_wrench(prm, X, V, dV, False, kg, kf, W, J)
    return vw_wrench(prm, X, V, dV, kg, kf, W, J, work)


@jit
def inverse_dynamics_batch(prm, method, X, V, dV, F, status):
    """Actuator forces ``f = J^-T W`` for N states: X, V, dV (N, 6) -> F (N, 6)."""
    W = np.empty(6)
    J = np.empty((6, 6))
    Aw = np.empty((6, 6))
    work = np.empty((4, 3, 6))
    x = np.empty(6)
    for k in range(X.shape[0]):
        st = wrench(prm, method, X[k], V[k], dV[k], 1.0, 1.0, W, J, work)
        if st == 0:
            st = solve6(J, W, True, x, Aw)
        status[k] = st
        for j in range(6):
            F[k, j] = x[j] if st == 0 else np.nan


@jit
def terms_batch(prm, method, X, V, M, CV, G, FF, JJ, status):
    """State-equation terms ``M, C V, G, F_f, J`` for N states."""
    W = np.empty(6)
    J = np.empty((6, 6))
    work = np.empty((4, 3, 6))
    zero = np.zeros(6)
    e = np.zeros(6)
    for k in range(X.shape[0]):
        st = wrench(prm, method, X[k], zero, zero, 1.0, 0.0, W, J, work)
        G[k] = W
        st = max(st, wrench(prm, method, X[k], V[k], zero, 0.0, 0.0, W, J, work))
        CV[k] = W
        st = max(st, wrench(prm, method, X[k], V[k], zero, 0.0, 1.0, W, J, work))
        for j in range(6):
            FF[k, j] = W[j] - CV[k, j]
        for col in range(6):
            e[col] = 1.0
            st = max(st, wrench(prm, method, X[k], zero, e, 0.0, 0.0, W, J, work))
            e[col] = 0.0
            for j in range(6):
                M[k, j, col] = W[j]
        JJ[k] = J
        status[k] = st


@jit
def ne_mass_matrix(prm, X, spin, M):
    """Newton-Euler mass matrix in one pass over the legs (geometry computed once per leg).

    Same equations as :func:`ne_wrench` with ``V = 0``, no gravity, no friction and
    unit accelerations; used by the plant's forward dynamics.
    """
    e1, e2, e3 = rpy_rows(X)
    t = (X[0], X[1], X[2])
    mc, mr = prm[OFF_MC], prm[OFF_MR]
    comc, comr = vec(prm, OFF_CC), vec(prm, OFF_CR)
    M[:, :] = 0.0
    for i in range(6):
        status, b, ua, r, l, s, c, sn = leg_frame(prm, e1, e2, e3, t, i)
        if status:
            return status
        n = crs(ua, c)
        f2 = crs(s, c)
        xc = frame_apply(c, f2, s, comc)
        xr = add(scl(l, s), frame_apply(c, f2, s, comr))
        for col in range(6):
            aP = unit(col) if col < 3 else crs(unit(col), r)
            ddl = dot(s, aP)
            alp = scl(1.0 / l, crs(s, aP))
            tau = -dot(alp, n) / sn if spin else 0.0
            all_ = add(alp, scl(tau, s))
            acyl = crs(all_, xc)
            frod = scl(mr, add(scl(ddl, s), crs(all_, xr)))
            Ial = add(frame_inertia(c, f2, s, prm, OFF_IC, all_), frame_inertia(c, f2, s, prm, OFF_IR, all_))
            H = add(add(crs(xc, scl(mc, acyl)), crs(xr, frod)), Ial)
            if spin:
                K = scl(1.0 / l, sub(H, scl(dot(H, s) / sn, n)))
            else:
                K = scl(1.0 / l, sub(H, scl(dot(H, s), s)))
            Fi = add(crs(K, s), scl(dot(frod, s), s))
            add_column(M, col, Fi, crs(r, Fi))
    rho = frame_apply(e1, e2, e3, vec(prm, OFF_CP))
    for col in range(6):
        fp, mom = platform_column(prm, e1, e2, e3, rho, col)
        add_column(M, col, fp, mom)
    return 0


@jit
def vw_mass_matrix(prm, X, M, work):
    """Virtual-work mass matrix ``M = sum_k J_k^T M_k J_k`` over the platform and the 12 leg bodies.

    Same body Jacobians as :func:`vw_wrench` (legs without spin); one pass over the
    legs, used by the virtual-work plant's forward dynamics. ``work`` is (4, 3, 6).
    """
    e1, e2, e3 = rpy_rows(X)
    t = (X[0], X[1], X[2])
    mc, mr = prm[OFF_MC], prm[OFF_MR]
    comc, comr = vec(prm, OFF_CC), vec(prm, OFF_CR)
    Jw, Jc, Jr, IJ = work[0], work[1], work[2], work[3]
    M[:, :] = 0.0
    for i in range(6):
        status, b, ua, r, l, s, c, sn = leg_frame(prm, e1, e2, e3, t, i)
        if status:
            return status
        f2 = crs(s, c)
        xc = frame_apply(c, f2, s, comc)
        xr = add(scl(l, s), frame_apply(c, f2, s, comr))
        for col in range(6):
            jp = unit(col) if col < 3 else crs(unit(col), r)
            jw = scl(1.0 / l, crs(s, jp))
            jc = crs(jw, xc)
            jr = add(scl(dot(s, jp), s), crs(jw, xr))
            ij = add(frame_inertia(c, f2, s, prm, OFF_IC, jw), frame_inertia(c, f2, s, prm, OFF_IR, jw))
            for row in range(3):
                Jw[row, col] = jw[row]
                Jc[row, col] = jc[row]
                Jr[row, col] = jr[row]
                IJ[row, col] = ij[row]
        for j in range(6):
            for col in range(j, 6):
                acc = 0.0
                for row in range(3):
                    acc += (mc * Jc[row, j] * Jc[row, col] + mr * Jr[row, j] * Jr[row, col]
                            + Jw[row, j] * IJ[row, col])
                M[j, col] += acc
    rho = frame_apply(e1, e2, e3, vec(prm, OFF_CP))
    for col in range(6):
        fp, mom = platform_column(prm, e1, e2, e3, rho, col)
        add_column(M, col, fp, mom)  # the lower triangle is overwritten below
    for j in range(6):
        for col in range(j):
            M[j, col] = M[col, j]
    return 0


@jit
def forward_step(prm, method, X, V, f, ext, dV, M, W, J, Aw, work, tmp):
    """``dV = M^-1 (J^T f + F_e - W(X, V, 0))`` for one state; returns a status code."""
    zero = np.zeros(6)
    st = vw_mass_matrix(prm, X, M, work) if method == 1 else ne_mass_matrix(prm, X, method == 0, M)
    if st == 0:
        st = wrench(prm, method, X, V, zero, 1.0, 1.0, W, J, work)
    if st != 0:
        return st
    for j in range(6):
        acc = ext[j] - W[j]
        for i in range(6):
            acc += J[i, j] * f[i]
        tmp[j] = acc
    return solve6(M, tmp, False, dV, Aw)


@jit
def forward_dynamics_batch(prm, method, X, V, Fa, EXT, DV, status):
    """Forward dynamics for N states."""
    M = np.empty((6, 6))
    W = np.empty(6)
    J = np.empty((6, 6))
    Aw = np.empty((6, 6))
    work = np.empty((4, 3, 6))
    tmp = np.empty(6)
    dV = np.empty(6)
    for k in range(X.shape[0]):
        st = forward_step(prm, method, X[k], V[k], Fa[k], EXT[k], dV, M, W, J, Aw, work, tmp)
        status[k] = st
        for j in range(6):
            DV[k, j] = dV[j] if st == 0 else np.nan


@jit
def _pose_rate(X, V, out):
    """out[:6] = [v, E(rpy)^-1 w] for ZYX Euler angles."""
    cp, sp = math.cos(X[4]), math.sin(X[4])
    cy, sy = math.cos(X[5]), math.sin(X[5])
    wx, wy, wz = V[3], V[4], V[5]
    # w = E [dr, dp, dy]; E cols: (cy cp, sy cp, -sp), (-sy, cy, 0), (0, 0, 1)
    dp = -sy * wx + cy * wy
    dr = (cy * wx + sy * wy) / cp
    dy = wz + sp * dr
    out[0], out[1], out[2] = V[0], V[1], V[2]
    out[3], out[4], out[5] = dr, dp, dy


@jit
def _lengths_rates(prm, X, V, l, dl, Jv, J):
    """Leg lengths, rates, J-dot V (the ddl at zero platform acceleration) and J."""
    e1, e2, e3 = rpy_rows(X)
    t = (X[0], X[1], X[2])
    v = (V[0], V[1], V[2])
    w = (V[3], V[4], V[5])
    for i in range(6):
        r = frame_apply(e1, e2, e3, vec(prm, OFF_P + 3 * i))
        L = sub(add(t, r), vec(prm, OFF_B + 3 * i))
        li = math.sqrt(dot(L, L))
        s = scl(1.0 / li, L)
        vP = add(v, crs(w, r))
        wperp = scl(1.0 / li, crs(s, vP))
        l[i] = li
        dl[i] = dot(s, vP)
        Jv[i] = dot(s, crs(w, crs(w, r))) + li * dot(wperp, wperp)
        jacobian_row(J, i, r, s)


@jit
def simulate_loop(prm, plant, ctrl, dt, nsteps, X0, V0, LD, DLD, DDLD, kp, kd, ki,
                  T_X, T_V, T_L, T_E, T_F):
    """Fixed-step RK4 plant with a zero-order-hold inverse-dynamics PID controller.

    References ``LD, DLD, DDLD`` (nsteps+1, 6). Records state before each step.
    Returns (status, step index of failure).
    """
    X = X0.copy()
    V = V0.copy()
    z = np.zeros(6)
    l = np.empty(6)
    dl = np.empty(6)
    Jv = np.empty(6)
    ddl = np.empty(6)
    f = np.empty(6)
    dVr = np.empty(6)
    M = np.empty((6, 6))
    W = np.empty(6)
    J = np.empty((6, 6))
    Aw = np.empty((6, 6))
    work = np.empty((4, 3, 6))
    tmp = np.empty(6)
    ext = np.zeros(6)
    kX = np.empty((4, 6))
    kV = np.empty((4, 6))
    Xs = np.empty(6)
    Vs = np.empty(6)
    dVs = np.empty(6)
    for k in range(nsteps + 1):
        _lengths_rates(prm, X, V, l, dl, Jv, J)
        for i in range(6):
            e = LD[k, i] - l[i]
            de = DLD[k, i] - dl[i]
            ddl[i] = DDLD[k, i] + kd * de + kp * e + ki * z[i] - Jv[i]
            T_E[k, i] = e
            T_L[k, i] = l[i]
            z[i] += e * dt
        # controller: platform acceleration giving ddl_ref, then its model's inverse dynamics
        st = solve6(J, ddl, False, dVr, Aw)
        if st == 0:
            st = wrench(prm, ctrl, X, V, dVr, 1.0, 1.0, W, J, work)
        if st == 0:
            st = solve6(J, W, True, f, Aw)
        if st != 0:
            return st, k
        for i in range(6):
            T_X[k, i] = X[i]
            T_V[k, i] = V[i]
            T_F[k, i] = f[i]
        if k == nsteps:
            break
        for stage in range(4):
            h = 0.0 if stage == 0 else (0.5 * dt if stage < 3 else dt)
            for i in range(6):
                Xs[i] = X[i] + (h * kX[stage - 1, i] if stage > 0 else 0.0)
                Vs[i] = V[i] + (h * kV[stage - 1, i] if stage > 0 else 0.0)
            st = forward_step(prm, plant, Xs, Vs, f, ext, dVs, M, W, J, Aw, work, tmp)
            if st != 0:
                return st, k
            _pose_rate(Xs, Vs, tmp)
            for i in range(6):
                kX[stage, i] = tmp[i]
                kV[stage, i] = dVs[i]
        for i in range(6):
            X[i] += dt / 6.0 * (kX[0, i] + 2.0 * kX[1, i] + 2.0 * kX[2, i] + kX[3, i])
            V[i] += dt / 6.0 * (kV[0, i] + 2.0 * kV[1, i] + 2.0 * kV[2, i] + kV[3, i])
    return 0, nsteps
