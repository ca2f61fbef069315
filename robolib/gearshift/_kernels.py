"""Compiled (numba) kernels of the gear-shift's minimal-coordinate clearance model (:mod:`robolib.gearshift.fast`).

Internal module. Plain Python functions (``*_py``), compiled on first use by :func:`get`; nothing
allocates per right-hand-side call (the caller passes work arrays).

**Closure.** With one clearance joint the mechanism has two degrees of freedom, the journal
eccentricity ``e = P_j - P_i`` (global frame, m). The kinematics is a chain of *points*, each
carried as a row of ``pts (N_POINTS, 10)``: position (2), its Jacobian ``dP/de`` (2x2, row-major:
``dPx/dex, dPx/dey, dPy/dex, dPy/dey``), velocity (2) and the acceleration bias (2; the
acceleration at ``e_dd = 0``). Every row follows from earlier rows by one of three steps, each
exact in position and linear in the derivatives:

* shift: ``P = S + s e`` (s in {-1, 0, 1}: where the clearance joint sits);
* arm of a driven link: ``P = S + l u(theta(t))``;
* circle intersection: ``|P - C1| = r1``, ``|P - C2| = r2`` with a branch sign; its derivatives
  solve the 2x2 system ``(P - C_k) . (P' - C_k') = 0`` (velocity, each Jacobian column) and
  ``(P - C_k) . (P'' - C_k'') + |P' - C_k'|^2 = 0`` (acceleration).

Points: ``A_i^+`` (ground pin of chain i as seen by link i1), ``B_i^-`` / ``B_i^+`` (elbow as
seen by links i1 / i2), ``E_i`` (end of chain i), ``L`` (lever start), ``e`` itself and two
scratch rows. Driven chains ``d`` fix ``B_d^-``; ``E_1`` is the intersection of the circles of
radius ``l`` about ``B_d^+ - o_d`` (``o_d = e`` where chain d's end is the journal); the passive
chain p closes by a circle intersection from ``A_p^+`` to ``E_p - o_Bp``; the lever starts at
``L = E_1 (+ e)`` and is locked to link 12. Bodies (CoM, angle) follow from their end points.

**Equations of motion.** ``q = q(e, t)``, ``qd = T ed + q_t``, ``qdd = T edd + b``; with
``M = diag(m, m, I)`` and the applied forces ``Q`` (gearbox spring--damper at the lever tip,
contact force at the clearance joint as :class:`robolib.clearance.ClearanceModel` applies them):
``T^T M T edd = T^T (Q - M b)``. State ``y = (e_x, e_y, ed_x, ed_y, W_drive, W_loss)``.

**Step loop.** :func:`robolib.core._dopri.integrate_py`, the DAE's (the same tableau, error norm,
step-size rule, dense output and event location); :func:`integrate_py` passes it :func:`rhs_py` and
the contact event (:func:`delta_py`, :func:`onset_py`).
"""

from __future__ import annotations

import math

from ..core import _dopri
from ..core.contact import _normal_force_scalar, _tangential_force_scalar

try:
    import numba as _numba
except ImportError:  # pragma: no cover
    _numba = None

#: Kinds of the clearance joint: ground pin A_i, elbow B_i, chain end E_i (i = 2, 3), lever pin C.
KIND_A, KIND_B, KIND_E, KIND_C = 0, 1, 2, 3
#: Rows of the point table.
AP, BM, BP, EE, LV, EP, TMP0, TMP1 = 0, 3, 6, 9, 12, 13, 14, 15
N_POINTS = 17
#: Indices of the scalar parameters ``par``.
P_L, P_LPC, P_SE, P_SP, P_K, P_C, P_AX, P_AY = range(8)
N_PAR = 8
#: Status codes of the kinematics / right-hand side / step loop.
OK, UNREACHABLE, SINGULAR, DRIVE = 0, 1, 2, 3
DONE, EPISODES_FULL, OUTPUT_FULL, STEP_COLLAPSE, MAX_STEPS = (_dopri.DONE, _dopri.EPISODES_FULL, _dopri.OUTPUT_FULL,
                                                              _dopri.STEP_COLLAPSE, _dopri.MAX_STEPS)
CLOSURE_FAILED = _dopri.STAGE_FAILED
#: ``|det [P - C1; P - C2]| / (r1 r2)`` (the sine of the angle between the two radii) below which a circle
#: intersection is singular (the circles touch): the same bound as the chains' CHAIN_SINGULAR_TOL.
CLOSURE_SINGULAR_TOL = 1e-9
#: Length of the state ``(e, ed, W_drive, W_loss)``.
STATE_DIM = 6


def drive_py(t, row, out):
    """Driven chain's base link: ``out = (cos th1, sin th1, th1d, th1dd)``; False where unreachable or singular.

    The inverse kinematics of :func:`robolib.core._kernels.chain_drive_py` (``th1 = phi + sign alpha``,
    ``row = (Ax, Ay, l1, l2, sign, E0x, E0y, a, w)``, stroke ``E0 + (0, a sin w t)``) with the angles
    carried as unit vectors: ``u1 = R(sign alpha) (E - A) / d``, ``u2 = (E - A - l1 u1) / |...|``.
    """
    Ax, Ay, l1, l2, sign, E0x, E0y, a, w = row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8]
    sn, cn = math.sin(w * t), math.cos(w * t)
    dx, dy = E0x - Ax, E0y + a * sn - Ay
    Edy, Eddy = a * w * cn, -a * w * w * sn
    d = math.sqrt(dx * dx + dy * dy)
    if d <= 0.0:
        return False
    ca = (l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)
    if ca < -1.0 or ca > 1.0:
        return False
    sa = sign * math.sqrt(1.0 - ca * ca)
    cp, sp = dx / d, dy / d
    c1, s1 = cp * ca - sp * sa, sp * ca + cp * sa
    rx, ry = dx - l1 * c1, dy - l1 * s1
    r = math.sqrt(rx * rx + ry * ry)
    c2, s2 = rx / r, ry / r
    sd = s2 * c1 - c2 * s1
    if abs(sd) < 1e-9:
        return False
    det = l1 * l2 * sd
    w1 = (Edy * l2 * s2) / det
    w2 = -(Edy * l1 * s1) / det
    bx = l1 * w1 * w1 * c1 + l2 * w2 * w2 * c2
    by = Eddy + l1 * w1 * w1 * s1 + l2 * w2 * w2 * s2
    out[0] = c1
    out[1] = s1
    out[2] = w1
    out[3] = (bx * l2 * c2 + by * l2 * s2) / det
    return True


def shift_py(pts, dst, src, sgn):
    """Row ``dst`` = row ``src`` + ``sgn`` * e (all ten columns; ``dst`` may equal ``src``)."""
    for c in range(10):
        pts[dst, c] = pts[src, c] + sgn * pts[EP, c]


def arm_py(pts, dst, src, c, s, thd, thdd, l):
    """Row ``dst`` = row ``src`` + ``l (c, s)``, ``(c, s) = (cos th, sin th)`` with the link angle a function of time."""
    pts[dst, 0] = pts[src, 0] + l * c
    pts[dst, 1] = pts[src, 1] + l * s
    for k in range(2, 6):
        pts[dst, k] = pts[src, k]
    pts[dst, 6] = pts[src, 6] - l * s * thd
    pts[dst, 7] = pts[src, 7] + l * c * thd
    pts[dst, 8] = pts[src, 8] - l * (s * thdd + c * thd * thd)
    pts[dst, 9] = pts[src, 9] + l * (c * thdd - s * thd * thd)


def circle_py(pts, dst, c1, r1, c2, r2, sgn):
    """Row ``dst``: the point at distances ``r1``, ``r2`` from rows ``c1``, ``c2`` on the side ``sgn``.

    ``P = C1 + a u + sgn h u_perp`` (u the unit vector C1 -> C2); returns UNREACHABLE when the circles
    do not meet and SINGULAR when they touch (the 2x2 system of the rates is singular).
    """
    x1, y1, x2, y2 = pts[c1, 0], pts[c1, 1], pts[c2, 0], pts[c2, 1]
    dx, dy = x2 - x1, y2 - y1
    d = math.sqrt(dx * dx + dy * dy)
    if d <= 0.0:
        return UNREACHABLE
    ux, uy = dx / d, dy / d
    a = (r1 * r1 - r2 * r2 + d * d) / (2.0 * d)
    h2 = r1 * r1 - a * a
    if h2 < 0.0:
        return UNREACHABLE
    hg = math.sqrt(h2)
    px = x1 + a * ux - sgn * hg * uy
    py = y1 + a * uy + sgn * hg * ux
    g1x, g1y, g2x, g2y = px - x1, py - y1, px - x2, py - y2
    det = g1x * g2y - g1y * g2x
    if abs(det) < CLOSURE_SINGULAR_TOL * r1 * r2:
        return SINGULAR
    pts[dst, 0] = px
    pts[dst, 1] = py
    for k in range(2):  # Jacobian columns: (P - C_k) . (dP/de - dC_k/de) = 0
        b1 = g1x * pts[c1, 2 + k] + g1y * pts[c1, 4 + k]
        b2 = g2x * pts[c2, 2 + k] + g2y * pts[c2, 4 + k]
        pts[dst, 2 + k] = (g2y * b1 - g1y * b2) / det
        pts[dst, 4 + k] = (-g2x * b1 + g1x * b2) / det
    b1 = g1x * pts[c1, 6] + g1y * pts[c1, 7]
    b2 = g2x * pts[c2, 6] + g2y * pts[c2, 7]
    vx = (g2y * b1 - g1y * b2) / det
    vy = (-g2x * b1 + g1x * b2) / det
    pts[dst, 6] = vx
    pts[dst, 7] = vy
    w1x, w1y, w2x, w2y = vx - pts[c1, 6], vy - pts[c1, 7], vx - pts[c2, 6], vy - pts[c2, 7]
    b1 = g1x * pts[c1, 8] + g1y * pts[c1, 9] - (w1x * w1x + w1y * w1y)
    b2 = g2x * pts[c2, 8] + g2y * pts[c2, 9] - (w2x * w2x + w2y * w2y)
    pts[dst, 8] = (g2y * b1 - g1y * b2) / det
    pts[dst, 9] = (-g2x * b1 + g1x * b2) / det
    return OK


def link_py(pts, s, f, body, q, T, qd, b, cs, angles):
    """Body ``body`` (a link from point row ``s`` to row ``f``): CoM at the middle, angle of ``f - s``.

    ``cs[body] = (cos, sin)`` of the angle; the angle itself (atan2) only if ``angles``.
    """
    j = 3 * body
    q[j] = 0.5 * (pts[s, 0] + pts[f, 0])
    q[j + 1] = 0.5 * (pts[s, 1] + pts[f, 1])
    T[j, 0] = 0.5 * (pts[s, 2] + pts[f, 2])
    T[j, 1] = 0.5 * (pts[s, 3] + pts[f, 3])
    T[j + 1, 0] = 0.5 * (pts[s, 4] + pts[f, 4])
    T[j + 1, 1] = 0.5 * (pts[s, 5] + pts[f, 5])
    qd[j] = 0.5 * (pts[s, 6] + pts[f, 6])
    qd[j + 1] = 0.5 * (pts[s, 7] + pts[f, 7])
    b[j] = 0.5 * (pts[s, 8] + pts[f, 8])
    b[j + 1] = 0.5 * (pts[s, 9] + pts[f, 9])
    dx, dy = pts[f, 0] - pts[s, 0], pts[f, 1] - pts[s, 1]
    r2 = dx * dx + dy * dy
    rn = math.sqrt(r2)
    cs[body, 0] = dx / rn
    cs[body, 1] = dy / rn
    if angles:
        q[j + 2] = math.atan2(dy, dx)
    T[j + 2, 0] = (dx * (pts[f, 4] - pts[s, 4]) - dy * (pts[f, 2] - pts[s, 2])) / r2
    T[j + 2, 1] = (dx * (pts[f, 5] - pts[s, 5]) - dy * (pts[f, 3] - pts[s, 3])) / r2
    vx, vy = pts[f, 6] - pts[s, 6], pts[f, 7] - pts[s, 7]
    w = (dx * vy - dy * vx) / r2
    qd[j + 2] = w
    ax, ay = pts[f, 8] - pts[s, 8], pts[f, 9] - pts[s, 9]
    b[j + 2] = (dx * ay - dy * ax) / r2 - 2.0 * (dx * vx + dy * vy) * w / r2


def kinematics_py(t, y, A, drv, par, cfg, pts, q, T, qd, b, cs, angles):
    """``q(e, t)`` (21,), ``T = dq/de`` (21, 2), ``qd`` (21,) and the bias ``b = qdd(edd = 0)`` (21,) into the arrays.

    ``y[:4] = (e, ed)``; ``A (3, 2)`` ground pins; ``drv (2, 9)`` the driven chains' drive rows
    (:func:`robolib.core._kernels.chain_drive_py`); ``cfg = (kind, chain, d1, d2, p)``. Returns OK,
    UNREACHABLE / SINGULAR (a closure fails) or DRIVE (a driven chain cannot reach the stroke).
    ``cs (7, 2)``: cos and sin of every body's angle; the angles in ``q`` are written only if ``angles``
    (the equations of motion need the unit vectors only).
    """
    kind, ch, d1, d2, p = cfg[0], cfg[1], cfg[2], cfg[3], cfg[4]
    l = par[P_L]
    dv = pts[TMP1 + 1]  # scratch row for the drive values
    for c in range(10):
        pts[EP, c] = 0.0
    pts[EP, 0] = y[0]
    pts[EP, 1] = y[1]
    pts[EP, 2] = 1.0
    pts[EP, 5] = 1.0
    pts[EP, 6] = y[2]
    pts[EP, 7] = y[3]
    for i in range(3):
        for c in range(10):
            pts[AP + i, c] = 0.0
        pts[AP + i, 0] = A[i, 0]
        pts[AP + i, 1] = A[i, 1]
        if kind == KIND_A and ch == i:
            shift_py(pts, AP + i, AP + i, 1.0)
    for k in range(2):
        d = d1 if k == 0 else d2
        if not _DRIVE(t, drv[k], dv):
            return DRIVE
        arm_py(pts, BM + d, AP + d, dv[0], dv[1], dv[2], dv[3], l)
        shift_py(pts, BP + d, BM + d, 1.0 if (kind == KIND_B and ch == d) else 0.0)
        shift_py(pts, TMP0 + k, BP + d, -1.0 if (kind == KIND_E and ch == d) else 0.0)
    st = circle_py(pts, EE, TMP0, l, TMP1, l, par[P_SE])
    if st != OK:
        return st
    for i in range(1, 3):
        shift_py(pts, EE + i, EE, 1.0 if (kind == KIND_E and ch == i) else 0.0)
    sb = 1.0 if (kind == KIND_B and ch == p) else 0.0
    shift_py(pts, TMP0, EE + p, -sb)
    st = circle_py(pts, BM + p, AP + p, l, TMP0, l, par[P_SP])
    if st != OK:
        return st
    shift_py(pts, BP + p, BM + p, sb)
    shift_py(pts, LV, EE, 1.0 if kind == KIND_C else 0.0)
    for i in range(3):
        link_py(pts, AP + i, BM + i, 2 * i, q, T, qd, b, cs, angles)
        link_py(pts, BP + i, EE + i, 2 * i + 1, q, T, qd, b, cs, angles)
    # lever: starts at L, locked to link 12, CoM lpc/2 along it
    w, a = qd[5], b[5]
    c, s, hp = cs[1, 0], cs[1, 1], 0.5 * par[P_LPC]
    cs[6, 0] = c
    cs[6, 1] = s
    q[18] = pts[LV, 0] + hp * c
    q[19] = pts[LV, 1] + hp * s
    if angles:
        q[20] = q[5]
    for k in range(2):
        T[18, k] = pts[LV, 2 + k] - hp * s * T[5, k]
        T[19, k] = pts[LV, 4 + k] + hp * c * T[5, k]
        T[20, k] = T[5, k]
    qd[18] = pts[LV, 6] - hp * s * w
    qd[19] = pts[LV, 7] + hp * c * w
    qd[20] = w
    b[18] = pts[LV, 8] - hp * (s * a + c * w * w)
    b[19] = pts[LV, 9] + hp * (c * a - s * w * w)
    b[20] = a
    return OK


def applied_forces_py(y, q, qd, cs, par, crow, dd0, Q):
    """Applied forces ``Q`` (21,) (gearbox + contact, as the DAE's kernel applies them); returns the dissipated power (W).

    ``crow`` is the clearance joint's row of the :class:`robolib.clearance.ClearanceModel` contact table.
    """
    for i in range(21):
        Q[i] = 0.0
    # gearbox: spring-damper pulling the lever tip (lpc/2 from the lever's CoM) to its anchor
    w = qd[20]
    hp = 0.5 * par[P_LPC]
    ax, ay = cs[6, 0] * hp, cs[6, 1] * hp
    vx, vy = qd[18] - w * ay, qd[19] + w * ax
    Fx = -par[P_K] * (q[18] + ax - par[P_AX]) - par[P_C] * vx
    Fy = -par[P_K] * (q[19] + ay - par[P_AY]) - par[P_C] * vy
    Q[18] += Fx
    Q[19] += Fy
    Q[20] += ax * Fy - ay * Fx
    P_loss = par[P_C] * (vx * vx + vy * vy)
    # clearance contact
    ex, ey = y[0], y[1]
    eps = math.sqrt(ex * ex + ey * ey)
    delta = eps - crow[8]
    if delta > 0.0:
        bi, bj = int(crow[0]), int(crow[3])
        RB, RJ, K, D = crow[6], crow[7], crow[9], crow[10]
        nx, ny = ex / eps, ey / eps
        dd = y[2] * nx + y[3] * ny
        wj = qd[3 * bj + 2]
        wi = qd[3 * bi + 2] if bi >= 0 else 0.0
        vt = -y[2] * ny + y[3] * nx + wj * RJ - wi * RB
        Fn = _NORMAL(delta, dd, dd0[0], K, D)
        Ft = _TANGENTIAL(Fn, vt, crow[11], crow[12], crow[13])
        fx, fy = -Fn * nx - Ft * ny, -Fn * ny + Ft * nx  # on the journal, at Q_j = P_j + R_J n
        ct, st = cs[bj, 0], cs[bj, 1]
        lx = ct * crow[4] - st * crow[5] + RJ * nx
        ly = st * crow[4] + ct * crow[5] + RJ * ny
        Q[3 * bj] += fx
        Q[3 * bj + 1] += fy
        Q[3 * bj + 2] += lx * fy - ly * fx
        if bi >= 0:
            ct, st = cs[bi, 0], cs[bi, 1]
            lx = ct * crow[1] - st * crow[2] + RB * nx
            ly = st * crow[1] + ct * crow[2] + RB * ny
            Q[3 * bi] -= fx
            Q[3 * bi + 1] -= fy
            Q[3 * bi + 2] -= lx * fy - ly * fx
        P_loss += (Fn - K * delta * math.sqrt(delta)) * dd - Ft * vt
    return P_loss


def rhs_py(t, y, dy, A, drv, par, cfg, mass, crow, dd0, pts, q, T, qd, b, Q, cs):
    """``dy = f(t, y)`` for ``y = (e, ed, W_drive, W_loss)``; returns a status code (OK or the closure's failure).

    ``edd`` from ``T^T M T edd = T^T (Q - M b)``; the drive power is ``F_c . q_t`` with the constraint
    forces ``F_c = M qdd - Q`` (they do no work along the columns of T) and ``q_t = qd - T ed``.
    """
    st = _KIN(t, y, A, drv, par, cfg, pts, q, T, qd, b, cs, False)
    if st != OK:
        return st
    P_loss = applied_forces_py(y, q, qd, cs, par, crow, dd0, Q)
    m11 = m12 = m22 = r1 = r2 = 0.0
    for i in range(21):
        t0, t1, mi = T[i, 0], T[i, 1], mass[i]
        m11 += mi * t0 * t0
        m12 += mi * t0 * t1
        m22 += mi * t1 * t1
        g = Q[i] - mi * b[i]
        r1 += t0 * g
        r2 += t1 * g
    det = m11 * m22 - m12 * m12
    a0 = (m22 * r1 - m12 * r2) / det
    a1 = (m11 * r2 - m12 * r1) / det
    P_drive = 0.0
    for i in range(21):
        qdd = T[i, 0] * a0 + T[i, 1] * a1 + b[i]
        qt = qd[i] - T[i, 0] * y[2] - T[i, 1] * y[3]
        P_drive += (mass[i] * qdd - Q[i]) * qt
    dy[0] = y[2]
    dy[1] = y[3]
    dy[2] = a0
    dy[3] = a1
    dy[4] = P_drive
    dy[5] = P_loss
    return OK


def delta_py(k, y, crow):
    """The step loop's event: the penetration ``|e| - c`` (m), ``c = crow[8]`` (one event, ``k = 0``)."""
    return math.sqrt(y[0] * y[0] + y[1] * y[1]) - crow[8]


def onset_py(k, t, ys, y, crow):
    """Onset speed ``e . ed / |e|`` (m/s) at state ys (time t), at least the floor ``crow[14]``."""
    eps = math.sqrt(ys[0] * ys[0] + ys[1] * ys[1])
    v = (ys[2] * ys[0] + ys[3] * ys[1]) / eps
    return v if v > crow[14] else crow[14]


# ----------------------------------------------------------------------------- tangent-linear flow
#: Components of one tangent column ``v = (de_x, de_y, ded_x, ded_y, dddelta0)`` (m, m, m/s, m/s, m/s).
TANGENT_DIM = 5


def tangent_rhs_py(t, y, dy, A, drv, par, cfg, mass, crow, dd0, pts, q, T, qd, b, Q, cs, ytmp, dtmp, tsc, eps, salt):
    """``dy = f(t, y)`` for ``y = (e, ed, W_drive, W_loss, v_1, ..., v_m)``: the flow and its tangent columns.

    Each column ``v_j`` (:data:`TANGENT_DIM`) obeys the variational equation ``d(de)/dt = ded``,
    ``d(ded)/dt = D edd . v_j`` (the directional derivative of the accelerations along ``v_j``, onset-speed
    memory included, by central differences of :func:`rhs_py` with the half-width ``eps`` in the units
    ``tsc``), ``d(dddelta0)/dt = 0``. A neighbour that has entered the contact while the reference flies
    free takes its own onset speed as memory (it has just hit). The flow's own components come from
    :func:`rhs_py`, evaluated last (its work arrays hold the reference state afterwards).
    """
    m = (y.shape[0] - STATE_DIM) // TANGENT_DIM
    s0 = dd0[0]
    flying = math.sqrt(y[0] * y[0] + y[1] * y[1]) <= crow[8]
    for j in range(m):
        o = STATE_DIM + TANGENT_DIM * j
        vmax = 0.0
        for i in range(TANGENT_DIM):
            a = abs(y[o + i]) / tsc[i]
            if a > vmax:
                vmax = a
        dy[o] = y[o + 2]
        dy[o + 1] = y[o + 3]
        dy[o + 4] = 0.0
        if vmax == 0.0:
            dy[o + 2] = 0.0
            dy[o + 3] = 0.0
            continue
        h = eps / vmax
        ap0 = ap1 = 0.0
        for sgn in (1.0, -1.0):
            for i in range(4):
                ytmp[i] = y[i] + sgn * h * y[o + i]
            ytmp[4] = 0.0
            ytmp[5] = 0.0
            dd0[0] = s0 + sgn * h * y[o + 4]
            if flying and math.sqrt(ytmp[0] * ytmp[0] + ytmp[1] * ytmp[1]) > crow[8]:
                dd0[0] = _ONSET(0, t, ytmp, ytmp, crow)
            st = _RHS(t, ytmp, dtmp, A, drv, par, cfg, mass, crow, dd0, pts, q, T, qd, b, Q, cs)
            if st != OK:
                dd0[0] = s0
                return st
            if sgn > 0.0:
                ap0, ap1 = dtmp[2], dtmp[3]
        dy[o + 2] = (ap0 - dtmp[2]) / (2.0 * h)
        dy[o + 3] = (ap1 - dtmp[3]) / (2.0 * h)
    dd0[0] = s0
    return _RHS(t, y, dy, A, drv, par, cfg, mass, crow, dd0, pts, q, T, qd, b, Q, cs)


def tangent_delta_py(k, y, A, drv, par, cfg, mass, crow, dd0, pts, q, T, qd, b, Q, cs, ytmp, dtmp, tsc, eps, salt):
    """:func:`delta_py` with the tangent flow's arguments."""
    return _EVENT(k, y, crow)


def tangent_onset_py(k, t, ys, y, A, drv, par, cfg, mass, crow, dd0, pts, q, T, qd, b, Q, cs, ytmp, dtmp, tsc, eps, salt):
    """:func:`onset_py` at the located onset ``ys`` (time t), and the saltation of the tangent columns' memory.

    The onset speed ``s = n . ed`` is reset at the crossing of ``|e| = c``; the contact force vanishes there,
    so the flow is continuous across it and only the memory jumps: a neighbour ``x + dx`` crosses ``dt =
    -(n . de) / s`` later, so ``ds = D s . dx + (ds/dt) dt = n . ded + (ed . t_)(t_ . de) / |e| - a_n (n . de)
    / s`` with ``a_n = ds/dt = n . edd + (|ed|^2 - s^2) / |e|`` on the free flight (Mueller 1995's saltation
    for a reset map). Written into the step's start state ``y`` (the loop redoes the step from it; the memory
    acts only in contact). Zero where the onset speed is floored (the memory is then a constant).
    """
    s = _ONSET(k, t, ys, y, crow)
    ex, ey, vx, vy = ys[0], ys[1], ys[2], ys[3]
    r = math.sqrt(ex * ex + ey * ey)
    nx, ny = ex / r, ey / r
    vn = vx * nx + vy * ny
    m = (y.shape[0] - STATE_DIM) // TANGENT_DIM
    if not vn > crow[14]:
        for j in range(m):
            y[STATE_DIM + TANGENT_DIM * j + 4] = 0.0
        return s
    for i in range(4):
        ytmp[i] = ys[i]
    ytmp[4] = 0.0
    ytmp[5] = 0.0
    _RHS(t, ytmp, dtmp, A, drv, par, cfg, mass, crow, dd0, pts, q, T, qd, b, Q, cs)
    an = dtmp[2] * nx + dtmp[3] * ny + (vx * vx + vy * vy - vn * vn) / r
    vt = -vx * ny + vy * nx
    for j in range(m):
        o = STATE_DIM + TANGENT_DIM * j
        dn = ys[o] * nx + ys[o + 1] * ny
        dt_ = -ys[o] * ny + ys[o + 1] * nx
        y[o + 4] = salt * (ys[o + 2] * nx + ys[o + 3] * ny + vt * dt_ / r - an * dn / vn)
    return s


def integrate_py(st, y, f, t_end, rtol, atol, yref, h_max, max_steps, n_err, t_eval, every, out_t, out_y,
                 A, drv, par, cfg, mass, crow, dd0, cst, ep, pts, q, T, qd, b, Q, cs):
    """The step loop (:func:`robolib.core._dopri.integrate_py`) with this model, from ``st[0]`` to ``t_end``.

    Stage :func:`rhs_py`, where a closure fails (a step far into the contact) the step is rejected (``h /
    5``; CLOSURE_FAILED only when it collapses, ``st[8:10]`` = its time and status); one event, the
    penetration; the error norm over the first ``n_err`` components with the floor ``yref``. ``st (10,)``,
    ``cst (1, 4)``, episodes ``ep (cap, 4)`` = (0, t_on, t_off, ddelta0) and the status codes as there.
    """
    model = (A, drv, par, cfg, mass, crow, dd0, pts, q, T, qd, b, Q, cs)
    return _LOOP(st, y, f, t_end, rtol, atol, yref, n_err, h_max, max_steps, t_eval, every, out_t, out_y,
                 _NO_HOOK, (), _RHS, model, True, _EVENT, _ONSET, (crow,), dd0, cst, ep)


def tangent_integrate_py(st, y, f, t_end, rtol, atol, yref, h_max, max_steps, n_err, t_eval, every, out_t, out_y,
                         A, drv, par, cfg, mass, crow, dd0, cst, ep, pts, q, T, qd, b, Q, cs, ytmp, dtmp, tsc, eps, salt):
    """:func:`integrate_py` for the flow with tangent columns (:func:`tangent_rhs_py`, :func:`tangent_onset_py`).

    The error norm covers the first ``n_err`` components (the flow's): the reference trajectory takes the very
    steps of :func:`integrate_py`, and the tangent columns follow on them.
    """
    model = (A, drv, par, cfg, mass, crow, dd0, pts, q, T, qd, b, Q, cs, ytmp, dtmp, tsc, eps, salt)
    return _LOOP(st, y, f, t_end, rtol, atol, yref, n_err, h_max, max_steps, t_eval, every, out_t, out_y,
                 _NO_HOOK, (), _TRHS, model, True, _TEVENT, _TONSET, model, dd0, cst, ep)


# ----------------------------------------------------------------------------- compilation
_DRIVE = drive_py
_NORMAL = _normal_force_scalar
_TANGENTIAL = _tangential_force_scalar
_KIN = kinematics_py
_RHS = rhs_py
_EVENT = delta_py
_ONSET = onset_py
_TRHS = tangent_rhs_py
_TEVENT = tangent_delta_py
_TONSET = tangent_onset_py
_LOOP = _dopri.integrate_py
_NO_HOOK = _dopri.no_hook_py
kinematics_c = kinematics_py
rhs_c = rhs_py
integrate_c = integrate_py
tangent_integrate_c = tangent_integrate_py
tangent_rhs_c = tangent_rhs_py
_COMPILED = False


def get():
    """Compile the kernels on first use (cached on disk); returns ``(kinematics, rhs, integrate)``.

    Without numba the plain Python functions are returned (same results, slower).
    """
    global _COMPILED, _DRIVE, _NORMAL, _TANGENTIAL, _KIN, _RHS, _EVENT, _ONSET, _LOOP, _NO_HOOK
    global kinematics_c, rhs_c, integrate_c, shift_py, arm_py, circle_py, link_py, applied_forces_py
    global _TRHS, _TEVENT, _TONSET, tangent_integrate_c, tangent_rhs_c
    if not _COMPILED and _numba is not None:
        jit = _numba.njit(cache=True, fastmath=False)
        inl = _numba.njit(cache=True, fastmath=False, inline="always")  # small helpers: inlined into their callers
        _DRIVE = inl(drive_py)
        _NORMAL = inl(_normal_force_scalar)
        _TANGENTIAL = inl(_tangential_force_scalar)
        shift_py, arm_py, circle_py, link_py = inl(shift_py), inl(arm_py), inl(circle_py), inl(link_py)
        applied_forces_py = inl(applied_forces_py)
        _KIN = kinematics_c = jit(kinematics_py)
        _RHS = rhs_c = jit(rhs_py)
        _EVENT, _ONSET = jit(delta_py), jit(onset_py)
        _LOOP = _dopri.get()
        _NO_HOOK = _dopri.no_hook_c
        integrate_c = jit(integrate_py)
        _TRHS = tangent_rhs_c = jit(tangent_rhs_py)
        _TEVENT, _TONSET = jit(tangent_delta_py), jit(tangent_onset_py)
        tangent_integrate_c = jit(tangent_integrate_py)
        _COMPILED = True
    return kinematics_c, rhs_c, integrate_c
