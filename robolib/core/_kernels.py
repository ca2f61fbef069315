"""Compiled (numba) kernels of the planar multibody core: right-hand side and its adaptive step loop.

Internal module of :mod:`robolib.multibody` and :mod:`robolib.clearance`; the
functions here are plain Python (``*_py``) compiled on first use by
:func:`get`. Nothing in them allocates per right-hand-side call: the caller
passes work arrays. The model is passed as three tuples built by
:meth:`robolib.multibody.Mechanism.kernel_model`:

* ``Mi`` (integer arrays): ``jc (m, 4)`` column of each non-zero of a
  Jacobian row, ``jn (m,)`` their count, ``pi, pj, prx`` pins (bodies, first
  row), ``ai, aj, arows`` angle locks, ``drows, dcol, dmotor`` drivers, ``fb``
  force-element bodies, ``pairs (np, 7)`` = ``(r, c, a, b, col, r', c')``: the
  products ``J[r, col] J[c, col] / m_col`` that make up the Schur complement
  ``S = J M^-1 J^T``, added at the permuted position ``(r', c')`` (lower
  triangle); ``iperm (m,)`` the fill-reducing row order (greedy minimum
  degree), ``lpat (nl, 2)`` the non-zeros of the Cholesky factor row by row,
  ``ustart (nl + 1,)``, ``uk`` the columns ``k`` of the updates
  ``L[r, c] -= L[r, k] L[c, k]`` of each entry. For the gear-shift model the
  factorisation costs about 100 multiply-adds instead of ``m^3/6 = 1140``;
* ``Mf`` (float arrays): pin points ``si, sj``, angle offsets, the mass
  diagonal, force-element points, anchors, stiffnesses and dampings, and the
  generalised gravity force ``g0 (n,)`` (the starting value of ``g``);
* ``dtab (nd, 10)``: one row per driver, ``(kind, parameters...)`` with kind
  0 = constant, 1 = constant speed, 2 = two-link chain inverse kinematics
  (:func:`chain_drive_py`).

Contact table ``C (k, 15)``: bearing body, bearing point, journal body,
journal point, R_B, R_J, c, K, D, mu, v0, v1, floor (see
:class:`robolib.clearance.ClearanceModel`); ``dd0 (k,)`` the onset speeds.

The step loop is :func:`robolib.core._dopri.integrate_py` (shared with the
gear-shift's fast model); :func:`integrate_py` here passes it this model's
drivers (:func:`drive_eval_py`), right-hand side (:func:`rhs_py`) and contact
events.
"""

from __future__ import annotations

import math

import numpy as np

from . import _dopri
from .errors import ParameterError

try:
    import numba as _numba
except ImportError:  # pragma: no cover
    _numba = None

#: Status codes of :func:`rhs_py` (OK, SINGULAR: ``J M^-1 J^T`` is) and :func:`integrate_py` (those of
#: :func:`robolib.core._dopri.integrate_py`; SINGULAR: at a stage).
OK = 0
DONE, EPISODES_FULL, OUTPUT_FULL, STEP_COLLAPSE, MAX_STEPS = (_dopri.DONE, _dopri.EPISODES_FULL, _dopri.OUTPUT_FULL,
                                                              _dopri.STEP_COLLAPSE, _dopri.MAX_STEPS)
SINGULAR = _dopri.STAGE_FAILED


def chain_drive_py(t, Ax, Ay, l1, l2, sign, E0x, E0y, a, w):
    """Base angle of a 2R chain and its rates for the stroke ``E0 + (0, a sin w t)``; NaN when unreachable/singular."""
    sn, cs = math.sin(w * t), math.cos(w * t)
    Ex, Ey = E0x, E0y + a * sn
    Edx, Edy = 0.0, a * w * cs
    Eddx, Eddy = 0.0, -a * w * w * sn
    dx, dy = Ex - Ax, Ey - Ay
    d = math.sqrt(dx * dx + dy * dy)
    if d <= 0.0:
        return math.nan, math.nan, math.nan
    ca = (l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)
    if ca < -1.0 or ca > 1.0:
        return math.nan, math.nan, math.nan
    th1 = math.atan2(dy, dx) + sign * math.acos(ca)
    c1, s1 = math.cos(th1), math.sin(th1)
    th2 = math.atan2(Ey - Ay - l1 * s1, Ex - Ax - l1 * c1)
    c2, s2 = math.cos(th2), math.sin(th2)
    sd = math.sin(th2 - th1)
    if abs(sd) < 1e-9:
        return math.nan, math.nan, math.nan
    det = l1 * l2 * sd
    w1 = (Edx * l2 * c2 + Edy * l2 * s2) / det
    w2 = -(Edx * l1 * c1 + Edy * l1 * s1) / det
    bx = Eddx + l1 * w1 * w1 * c1 + l2 * w2 * w2 * c2
    by = Eddy + l1 * w1 * w1 * s1 + l2 * w2 * w2 * s2
    a1 = (bx * l2 * c2 + by * l2 * s2) / det
    return th1, w1, a1


def drive_eval_py(t, dtab, fv):
    """Driver values ``fv (3, nd)`` = (f, df/dt, d2f/dt2) at time t from the driver table (the step loop's ``before``)."""
    for k in range(dtab.shape[0]):
        kind = dtab[k, 0]
        if kind == 0.0:
            fv[0, k] = dtab[k, 1]
            fv[1, k] = 0.0
            fv[2, k] = 0.0
        elif kind == 1.0:
            fv[0, k] = dtab[k, 1] + dtab[k, 2] * t
            fv[1, k] = dtab[k, 2]
            fv[2, k] = 0.0
        else:
            a, b, c = _CHAIN(t, dtab[k, 1], dtab[k, 2], dtab[k, 3], dtab[k, 4], dtab[k, 5], dtab[k, 6],
                             dtab[k, 7], dtab[k, 8], dtab[k, 9])
            fv[0, k] = a
            fv[1, k] = b
            fv[2, k] = c


def contact_delta_py(C, k, y, n):
    """Penetration ``delta = |P_j - P_i| - c`` (m) of contact k for state y."""
    bi = int(C[k, 0])
    bj = int(C[k, 3])
    th = y[3 * bj + 2]
    ct, st = math.cos(th), math.sin(th)
    pjx = y[3 * bj] + ct * C[k, 4] - st * C[k, 5]
    pjy = y[3 * bj + 1] + st * C[k, 4] + ct * C[k, 5]
    if bi >= 0:
        th = y[3 * bi + 2]
        ct, st = math.cos(th), math.sin(th)
        pix = y[3 * bi] + ct * C[k, 1] - st * C[k, 2]
        piy = y[3 * bi + 1] + st * C[k, 1] + ct * C[k, 2]
    else:
        pix, piy = C[k, 1], C[k, 2]
    ex, ey = pjx - pix, pjy - piy
    return math.sqrt(ex * ex + ey * ey) - C[k, 8]


def contact_speed_py(C, k, y, n):
    """Normal speed ``d delta/dt = (v_Pj - v_Pi) . n`` (m/s) of contact k for state y = (q, qd, ...)."""
    bi = int(C[k, 0])
    bj = int(C[k, 3])
    th = y[3 * bj + 2]
    wj = y[n + 3 * bj + 2]
    ct, st = math.cos(th), math.sin(th)
    ajx, ajy = ct * C[k, 4] - st * C[k, 5], st * C[k, 4] + ct * C[k, 5]
    pjx, pjy = y[3 * bj] + ajx, y[3 * bj + 1] + ajy
    vjx, vjy = y[n + 3 * bj] - wj * ajy, y[n + 3 * bj + 1] + wj * ajx
    if bi >= 0:
        th = y[3 * bi + 2]
        wi = y[n + 3 * bi + 2]
        ct, st = math.cos(th), math.sin(th)
        aix, aiy = ct * C[k, 1] - st * C[k, 2], st * C[k, 1] + ct * C[k, 2]
        pix, piy = y[3 * bi] + aix, y[3 * bi + 1] + aiy
        vix, viy = y[n + 3 * bi] - wi * aiy, y[n + 3 * bi + 1] + wi * aix
    else:
        pix, piy, vix, viy = C[k, 1], C[k, 2], 0.0, 0.0
    ex, ey = pjx - pix, pjy - piy
    eps = math.sqrt(ex * ex + ey * ey)
    if eps <= 0.0:
        return 0.0
    return ((vjx - vix) * ex + (vjy - viy) * ey) / eps


def rhs_py(t, y, dy, fv, Mi, Mf, C, dd0, alpha, beta, W):
    """``dy = f(t, y)`` for ``y = (q, qd, W_drive, W_loss, ...)``; returns OK, or SINGULAR if ``J M^-1 J^T`` is."""
    jc, jn, pi, pj, prx, ai, aj, arows, drows, dcol, dmotor, fb, pairs, iperm, lpat, ustart, uk = Mi
    si, sj, aoff, mass, fs, fa, fk, fc, g0 = Mf
    jv, H, gam, Ht, g, S, lam, cs = W
    n = mass.shape[0]
    nb = n // 3
    m = H.shape[0]
    for i in range(n):
        g[i] = g0[i]
    for b in range(nb):  # one cos/sin per body
        cs[b, 0] = math.cos(y[3 * b + 2])
        cs[b, 1] = math.sin(y[3 * b + 2])
    for r in range(m):
        Ht[r] = 0.0
    # ---- pins: rows (x, y) with Jacobian entries [1, -A_i s_i perp, -1, +A_j s_j perp]
    for p in range(pi.shape[0]):
        i = pi[p]
        j = pj[p]
        r = prx[p]
        w = y[n + 3 * i + 2]
        ct, st = cs[i, 0], cs[i, 1]
        aix = ct * si[p, 0] - st * si[p, 1]
        aiy = st * si[p, 0] + ct * si[p, 1]
        H[r] = y[3 * i] + aix
        H[r + 1] = y[3 * i + 1] + aiy
        jv[r, 0] = 1.0
        jv[r, 1] = -aiy
        jv[r + 1, 0] = 1.0
        jv[r + 1, 1] = aix
        gam[r] = aix * w * w
        gam[r + 1] = aiy * w * w
        if j < nb:
            w = y[n + 3 * j + 2]
            ct, st = cs[j, 0], cs[j, 1]
            ajx = ct * sj[p, 0] - st * sj[p, 1]
            ajy = st * sj[p, 0] + ct * sj[p, 1]
            H[r] -= y[3 * j] + ajx
            H[r + 1] -= y[3 * j + 1] + ajy
            jv[r, 2] = -1.0
            jv[r, 3] = ajy
            jv[r + 1, 2] = -1.0
            jv[r + 1, 3] = -ajx
            gam[r] -= ajx * w * w
            gam[r + 1] -= ajy * w * w
        else:
            H[r] -= sj[p, 0]
            H[r + 1] -= sj[p, 1]
    for k in range(arows.shape[0]):
        r = arows[k]
        tj = y[3 * aj[k] + 2]
        ti = y[3 * ai[k] + 2] if ai[k] < nb else 0.0
        H[r] = tj - ti - aoff[k]
        jv[r, 0] = 1.0
        jv[r, 1] = -1.0
        gam[r] = 0.0
    for k in range(drows.shape[0]):
        r = drows[k]
        H[r] = y[dcol[k]] - fv[0, k]
        Ht[r] = -fv[1, k]
        gam[r] = fv[2, k]
        jv[r, 0] = 1.0
    # ---- force elements
    P_loss = 0.0
    for k in range(fb.shape[0]):
        b = fb[k]
        w = y[n + 3 * b + 2]
        ct, st = cs[b, 0], cs[b, 1]
        ax = ct * fs[k, 0] - st * fs[k, 1]
        ay = st * fs[k, 0] + ct * fs[k, 1]
        vx = y[n + 3 * b] - w * ay
        vy = y[n + 3 * b + 1] + w * ax
        Fx = -fk[k] * (y[3 * b] + ax - fa[k, 0]) - fc[k] * vx
        Fy = -fk[k] * (y[3 * b + 1] + ay - fa[k, 1]) - fc[k] * vy
        g[3 * b] += Fx
        g[3 * b + 1] += Fy
        g[3 * b + 2] += ax * Fy - ay * Fx
        P_loss += fc[k] * (vx * vx + vy * vy)
    # ---- clearance contacts
    for k in range(C.shape[0]):
        bi = int(C[k, 0])
        bj = int(C[k, 3])
        RB = C[k, 6]
        RJ = C[k, 7]
        K = C[k, 9]
        D = C[k, 10]
        mu = C[k, 11]
        v0 = C[k, 12]
        v1 = C[k, 13]
        wj = y[n + 3 * bj + 2]
        ct, st = cs[bj, 0], cs[bj, 1]
        ajx = ct * C[k, 4] - st * C[k, 5]
        ajy = st * C[k, 4] + ct * C[k, 5]
        pjx = y[3 * bj] + ajx
        pjy = y[3 * bj + 1] + ajy
        wi = 0.0
        aix = 0.0
        aiy = 0.0
        vix = 0.0
        viy = 0.0
        if bi >= 0:
            wi = y[n + 3 * bi + 2]
            ct, st = cs[bi, 0], cs[bi, 1]
            aix = ct * C[k, 1] - st * C[k, 2]
            aiy = st * C[k, 1] + ct * C[k, 2]
            pix = y[3 * bi] + aix
            piy = y[3 * bi + 1] + aiy
            vix = y[n + 3 * bi] - wi * aiy
            viy = y[n + 3 * bi + 1] + wi * aix
        else:
            pix = C[k, 1]
            piy = C[k, 2]
        ex = pjx - pix
        ey = pjy - piy
        eps = math.sqrt(ex * ex + ey * ey)
        delta = eps - C[k, 8]
        if delta <= 0.0:
            continue
        nx = ex / eps
        ny = ey / eps
        vjx = y[n + 3 * bj] - wj * ajy
        vjy = y[n + 3 * bj + 1] + wj * ajx
        edx = vjx - vix
        edy = vjy - viy
        dd = edx * nx + edy * ny
        # slip of the contact points Q_j = P_j + R_J n (journal) and Q_i = P_i + R_B n (bearing) along t
        vt = -edx * ny + edy * nx + wj * RJ - wi * RB
        Fh = K * delta * math.sqrt(delta)
        Fn = Fh * (1.0 + D * dd / dd0[k])
        if Fn < 0.0:
            Fn = 0.0
        s = abs(vt)
        Ft = 0.0
        if s > v0 and Fn > 0.0 and mu > 0.0:
            cd = 1.0 if s >= v1 else (s - v0) / (v1 - v0)
            Ft = -mu * cd * Fn * (1.0 if vt > 0.0 else -1.0)
        fx = -Fn * nx - Ft * ny
        fy = -Fn * ny + Ft * nx
        lx = ajx + RJ * nx
        ly = ajy + RJ * ny
        g[3 * bj] += fx
        g[3 * bj + 1] += fy
        g[3 * bj + 2] += lx * fy - ly * fx
        if bi >= 0:
            lx = aix + RB * nx
            ly = aiy + RB * ny
            g[3 * bi] -= fx
            g[3 * bi + 1] -= fy
            g[3 * bi + 2] -= lx * fy - ly * fx
        P_loss += (Fn - Fh) * dd - Ft * vt
    # ---- Schur complement: S lam = J M^-1 g - gamma',  gamma' = gamma - 2 alpha dH/dt - beta^2 H.
    # S is sparse: it is assembled and factorised (Cholesky, fill-reducing order) on a pattern
    # precomputed by Mechanism.kernel_model; lam holds the permuted right-hand side / solution.
    b2 = beta * beta
    for r in range(m):
        hd = Ht[r]
        acc = 0.0
        for a in range(jn[r]):
            col = jc[r, a]
            hd += jv[r, a] * y[n + col]
            acc += jv[r, a] * g[col] / mass[col]
        lam[iperm[r]] = acc - (gam[r] - 2.0 * alpha * hd - b2 * H[r])
    for e in range(lpat.shape[0]):
        S[lpat[e, 0], lpat[e, 1]] = 0.0
    for e in range(pairs.shape[0]):
        S[pairs[e, 5], pairs[e, 6]] += jv[pairs[e, 0], pairs[e, 2]] * jv[pairs[e, 1], pairs[e, 3]] / mass[pairs[e, 4]]
    for e in range(lpat.shape[0]):  # L L^T = S in place, row by row
        r = lpat[e, 0]
        c2 = lpat[e, 1]
        acc = S[r, c2]
        for u in range(ustart[e], ustart[e + 1]):
            k2 = uk[u]
            acc -= S[r, k2] * S[c2, k2]
        if r == c2:
            if acc <= 1e-14 * (abs(S[r, r]) + 1e-300):
                return SINGULAR
            S[r, r] = math.sqrt(acc)
        else:
            S[r, c2] = acc / S[c2, c2]
    for e in range(lpat.shape[0]):  # forward: L z = rhs
        r = lpat[e, 0]
        c2 = lpat[e, 1]
        if c2 < r:
            lam[r] -= S[r, c2] * lam[c2]
        else:
            lam[r] /= S[r, r]
    for e in range(lpat.shape[0] - 1, -1, -1):  # backward: L^T x = z
        r = lpat[e, 0]
        c2 = lpat[e, 1]
        if c2 < r:
            lam[c2] -= S[r, c2] * lam[r]
        else:
            lam[r] /= S[r, r]
    for r in range(m):  # back to row order (g as scratch is no longer needed after this)
        Ht[r] = lam[iperm[r]]
    for r in range(m):
        lam[r] = Ht[r]
    for i in range(n):
        dy[i] = y[n + i]
        dy[n + i] = g[i]
    for r in range(m):
        for a in range(jn[r]):
            dy[n + jc[r, a]] -= jv[r, a] * lam[r]
    for i in range(n):
        dy[n + i] /= mass[i]
    P_drive = 0.0
    for k in range(drows.shape[0]):
        if dmotor[k] != 0:
            P_drive -= lam[drows[k]] * y[n + dcol[k]]
    dy[2 * n] = P_drive
    dy[2 * n + 1] = P_loss
    for i in range(2 * n + 2, y.shape[0]):
        dy[i] = 0.0
    return OK


def event_py(k, y, C, n):
    """Event k of the step loop: the penetration of contact k."""
    return contact_delta_c(C, k, y, n)


def onset_py(k, t, ys, y, C, n):
    """Onset speed of contact k at state ys (time t), at least its floor ``C[k, 14]``."""
    v = contact_speed_c(C, k, ys, n)
    return v if v > C[k, 14] else C[k, 14]


def integrate_py(st, y, f, t_end, rtol, atol, h_max, max_steps, t_eval, every, out_t, out_y, Mi, Mf, dtab, C,
                 dd0, alpha, beta, W, cst, ep):
    """The step loop (:func:`robolib.core._dopri.integrate_py`) with this model, from ``st[0]`` to ``t_end``.

    Before each stage the drivers (:func:`drive_eval_py`), stage :func:`rhs_py` (singular: the loop
    stops), events the contacts' penetrations, error norm over all components (``yref = 0``). ``st
    (10,)``, the contact states ``cst (k, 4)``, the episodes ``ep (cap, 4)`` = (joint, t_on, t_off,
    ddelta0) and the status codes (SINGULAR = its STAGE_FAILED) as there.
    """
    d = y.shape[0]
    fv = np.empty((3, dtab.shape[0]))
    return _LOOP(st, y, f, t_end, rtol, atol, np.zeros(d), d, h_max, max_steps, t_eval, every, out_t, out_y,
                 drive_eval_c, (dtab, fv), rhs_c, (fv, Mi, Mf, C, dd0, alpha, beta, W), False, _EVENT, _ONSET,
                 (C, Mf[3].shape[0]), dd0, cst, ep)


def tangent_rhs_py(t, y, dy, fv, Mi, Mf, C, dd0, alpha, beta, W, ytmp, dtmp, s0, tsc, eps):
    """``dy = f(t, y)`` for ``y = (q, qd, W_drive, W_loss, v_1, ..., v_m)``: the flow and its tangent columns.

    Each column ``v_j = (dq, dqd, dddelta0)`` (n + n + k) obeys the variational equation: ``d(dq)/dt = dqd``,
    ``d(dqd)/dt`` the directional derivative of :func:`rhs_py`'s accelerations along ``v_j`` (onset speeds
    included; central differences, half-width ``eps`` in the units ``tsc``), the memory constant. A neighbour
    that has entered a contact the reference has not takes its own onset speed there. ``ytmp``, ``dtmp``
    (2n + 2), ``s0`` (k) work arrays.
    """
    st = rhs_c(t, y, dy, fv, Mi, Mf, C, dd0, alpha, beta, W)
    if st != OK:
        return st
    n = Mf[3].shape[0]
    nk = C.shape[0]
    base = 2 * n + 2
    cd = 2 * n + nk
    m = (y.shape[0] - base) // cd
    for k in range(nk):
        s0[k] = dd0[k]
    for j in range(m):
        o = base + cd * j
        vmax = 0.0
        for i in range(cd):
            a = abs(y[o + i]) / tsc[i]
            if a > vmax:
                vmax = a
        for i in range(n):
            dy[o + i] = y[o + n + i]
        for k in range(nk):
            dy[o + 2 * n + k] = 0.0
        if vmax == 0.0:
            for i in range(n):
                dy[o + n + i] = 0.0
            continue
        h = eps / vmax
        for sgn in (1.0, -1.0):
            for i in range(2 * n):
                ytmp[i] = y[i] + sgn * h * y[o + i]
            ytmp[2 * n] = 0.0
            ytmp[2 * n + 1] = 0.0
            for k in range(nk):
                dd0[k] = s0[k] + sgn * h * y[o + 2 * n + k]
                if contact_delta_c(C, k, y, n) <= 0.0 < contact_delta_c(C, k, ytmp, n):
                    dd0[k] = _ONSET(k, t, ytmp, ytmp, C, n)
            st = rhs_c(t, ytmp, dtmp, fv, Mi, Mf, C, dd0, alpha, beta, W)
            if st != OK:
                for k in range(nk):
                    dd0[k] = s0[k]
                return st
            for i in range(n):
                if sgn > 0.0:
                    dy[o + n + i] = dtmp[n + i]
                else:
                    dy[o + n + i] = (dy[o + n + i] - dtmp[n + i]) / (2.0 * h)
    for k in range(nk):
        dd0[k] = s0[k]
    return OK


def tangent_event_py(k, y, fv, Mi, Mf, C, dd0, alpha, beta, W, ytmp, dtmp, s0, tsc, eps, dtab):
    """:func:`event_py` with the tangent flow's arguments."""
    return contact_delta_c(C, k, y, Mf[3].shape[0])


def tangent_onset_py(k, t, ys, y, fv, Mi, Mf, C, dd0, alpha, beta, W, ytmp, dtmp, s0, tsc, eps, dtab):
    """:func:`onset_py` at the located onset ``ys`` (time t), and the saltation of the tangent columns' memory.

    The contact force vanishes at the onset, so only the memory jumps: ``ds = D s . dx - a_n (D delta . dx) /
    s`` (a neighbour crosses ``dt = -(D delta . dx) / s`` later; ``a_n = D s . f`` along the free flight;
    Mueller 1995), written into the step's start state ``y`` (the loop redoes the step from it); zero where the
    onset speed is floored. The directional derivatives of the closed-form penetration and normal speed are
    central differences (half-width ``eps`` in the units ``tsc``).
    """
    n = Mf[3].shape[0]
    nk = C.shape[0]
    base = 2 * n + 2
    cd = 2 * n + nk
    m = (y.shape[0] - base) // cd
    s = _ONSET(k, t, ys, y, C, n)
    vn = contact_speed_c(C, k, ys, n)
    if not vn > C[k, 14]:
        for j in range(m):
            y[base + cd * j + 2 * n + k] = 0.0
        return s
    drive_eval_c(t, dtab, fv)
    for i in range(base):
        ytmp[i] = ys[i]
    rhs_c(t, ytmp, dtmp, fv, Mi, Mf, C, dd0, alpha, beta, W)
    fmax = 0.0
    for i in range(2 * n):
        a = abs(dtmp[i]) / tsc[i]
        if a > fmax:
            fmax = a
    h = eps / fmax
    for i in range(2 * n):
        ytmp[i] = ys[i] + h * dtmp[i]
    a_n = contact_speed_c(C, k, ytmp, n)
    for i in range(2 * n):
        ytmp[i] = ys[i] - h * dtmp[i]
    a_n = (a_n - contact_speed_c(C, k, ytmp, n)) / (2.0 * h)
    for j in range(m):
        o = base + cd * j
        vmax = 0.0
        for i in range(2 * n):
            a = abs(ys[o + i]) / tsc[i]
            if a > vmax:
                vmax = a
        if vmax == 0.0:
            y[o + 2 * n + k] = 0.0
            continue
        h = eps / vmax
        for i in range(2 * n):
            ytmp[i] = ys[i] + h * ys[o + i]
        dp, sp = contact_delta_c(C, k, ytmp, n), contact_speed_c(C, k, ytmp, n)
        for i in range(2 * n):
            ytmp[i] = ys[i] - h * ys[o + i]
        dd = (dp - contact_delta_c(C, k, ytmp, n)) / (2.0 * h)
        ds = (sp - contact_speed_c(C, k, ytmp, n)) / (2.0 * h)
        y[o + 2 * n + k] = ds - a_n * dd / vn
    return s


def tangent_integrate_py(st, y, f, t_end, rtol, atol, yref, n_err, h_max, max_steps, t_eval, every, out_t, out_y,
                         Mi, Mf, dtab, C, dd0, alpha, beta, W, cst, ep, ytmp, dtmp, s0, tsc, eps):
    """:func:`integrate_py` for the flow with tangent columns (:func:`tangent_rhs_py`, :func:`tangent_onset_py`);
    the error norm over the first ``n_err`` components with the floor ``yref``."""
    fv = np.empty((3, dtab.shape[0]))
    model = (fv, Mi, Mf, C, dd0, alpha, beta, W, ytmp, dtmp, s0, tsc, eps)
    ev = (fv, Mi, Mf, C, dd0, alpha, beta, W, ytmp, dtmp, s0, tsc, eps, dtab)
    return _LOOP(st, y, f, t_end, rtol, atol, yref, n_err, h_max, max_steps, t_eval, every, out_t, out_y,
                 drive_eval_c, (dtab, fv), _TRHS, model, False, _TEVENT, _TONSET, ev, dd0, cst, ep)


# ----------------------------------------------------------------------------- compilation
_CHAIN = chain_drive_py
drive_eval_c = drive_eval_py
contact_delta_c = contact_delta_py
contact_speed_c = contact_speed_py
rhs_c = rhs_py
_EVENT = event_py
_ONSET = onset_py
_TRHS = tangent_rhs_c = tangent_rhs_py
_TEVENT = tangent_event_py
_TONSET = tangent_onset_py
tangent_integrate_c = tangent_integrate_py
_LOOP = _dopri.integrate_py
integrate_c = integrate_py
_COMPILED = False


def get():
    """Compile the kernels on first use (cached on disk); returns ``(rhs, integrate, drive_eval)``.

    Raises :class:`robolib.ParameterError` if numba is not installed.
    """
    global _COMPILED, _CHAIN, drive_eval_c, contact_delta_c, contact_speed_c, rhs_c, _EVENT, _ONSET, _LOOP
    global integrate_c, _TRHS, _TEVENT, _TONSET, tangent_rhs_c, tangent_integrate_c
    if _numba is None:
        raise ParameterError("backend 'numba' requested but numba is not installed (pip install numba)")
    if not _COMPILED:
        jit = _numba.njit(cache=True, fastmath=False)
        _CHAIN = jit(chain_drive_py)
        drive_eval_c = jit(drive_eval_py)
        contact_delta_c = jit(contact_delta_py)
        contact_speed_c = jit(contact_speed_py)
        rhs_c = jit(rhs_py)
        _EVENT, _ONSET = jit(event_py), jit(onset_py)
        _LOOP = _dopri.get()
        integrate_c = jit(integrate_py)
        _TRHS = tangent_rhs_c = jit(tangent_rhs_py)
        _TEVENT, _TONSET = jit(tangent_event_py), jit(tangent_onset_py)
        tangent_integrate_c = jit(tangent_integrate_py)
        _COMPILED = True
    return rhs_c, integrate_c, drive_eval_c
