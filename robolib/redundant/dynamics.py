"""Redundant robot: forward dynamics (five routes), inverse kinematics, reference trajectory, inverse dynamics with the redundancy resolved (minimum-norm torques plus preload)."""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from robolib.core import checks as _checks
from robolib.core import constraints as _con
from robolib.core import friction as _fr
from robolib.core.errors import ConvergenceError, ParameterError, SingularityError, UnreachableError
from robolib.redundant.model import (  # noqa: F401
    _ACTIVE,
    _BLK_C,
    _BLK_R,
    _PASSIVE,
    ASSEMBLY_TOL,
    CHAIN_SINGULAR_TOL,
    CIRCLE_PERIOD,
    CIRCLE_RADIUS,
    COULOMB_MAX_ITER,
    COULOMB_TOL,
    DEFAULT_ELBOWS,
    METHODS,
    SINGULAR_TOL,
    Robot,
    _batch,
    _bias_blocks,
    _choice,
    _constraints,
    _elbows,
    _friction_name,
    _lead,
    _mass_blocks,
    _show,
    _trig,
    _vec,
)


# --------------------------------------------------------------------------- forward dynamics
class Dynamics(NamedTuple):
    """Result of :func:`solve_dynamics`."""

    ddq: np.ndarray  #: (12,) accelerations
    reactions: np.ndarray  #: (3, 2) force of the base on each active link (N), final solve
    friction_torque: np.ndarray  #: (3,) friction torque on each active joint (N m)
    multipliers: np.ndarray  #: (10,) lambda: layer-1 rows (N), then layer-2 rows (= reactions)


def _coulomb_diverged(muR: float) -> ConvergenceError:
    return ConvergenceError(f"consistent Coulomb friction did not converge in {COULOMB_MAX_ITER} iterations "
                            f"(mu * journal_radius = {muR:.3g} m; redundant.coulomb_contraction gives the "
                            f"contraction factor of the iteration at this state)")


def _coulomb(robot: Robot, w, lam0, G, consistent: bool):
    """Coulomb torque from the reactions ``lam(tau_f) = lam0 - G tau_f`` (decoupled: one pass)."""
    muR = robot.mu * robot.journal_radius
    sg = _fr.smooth_sign(w, robot.smooth_eps)

    def law(lam):
        F = lam[4:].reshape(3, 2)
        return -muR * np.hypot(F[:, 0], F[:, 1]) * sg

    tf = law(lam0)
    if not consistent:
        return tf
    for _ in range(COULOMB_MAX_ITER):
        new = law(lam0 - G @ tf)
        if np.abs(new - tf).max() <= COULOMB_TOL * np.abs(new).max() + 1e-300:
            return new
        tf = new
    raise _coulomb_diverged(muR)


def _solve_reduced(robot: Robot, q, dq, tau, friction, alpha, beta) -> Dynamics:
    """Forward dynamics by block elimination of the 12-coordinate multiplier system (see :func:`_core`)."""
    ddq, F, tf, m = _core(robot, q.tolist(), dq.tolist(), np.asarray(tau, dtype=float).tolist(), friction, alpha, beta)
    (F0x, F0y), (F1x, F1y), (F2x, F2y) = F
    lam = np.array([m[0], m[1], m[2], m[3], F0x, F0y, F1x, F1y, F2x, F2y])
    return Dynamics(np.array(ddq), lam[4:].reshape(3, 2), np.array(tf), lam)


def _reaction_sensitivity(ch, Ai, Si, W):
    """``H[i][j] = dF_i / dtau_j`` (pairs (x, y)): bearing reaction i per unit torque at active joint j.

    Same elimination as ``solution`` in :func:`_core` without the constant terms: a unit
    torque at joint j moves tip j's free acceleration by ``s_j = J_j D_j^-1 e_a``; the
    closure forces ``f`` follow from the 4x4 system and ``dF_i = (C_i D_i^-1 J_i^T - I) f_i
    + delta_ij C_i D_i^-1 e_a``.
    """
    w11, w12, w21, w22 = W
    P, qv, sv = [], [], []
    for c in ch:
        mt, u, v, u2, v2, hx, hy, ddx, ddy, i11, i12, i22, j11, j12, j21, j22 = c[:16]
        # C D^-1 (2x2), C = [[u, u2], [v, v2]]
        cd11, cd12 = u * i11 + u2 * i12, u * i12 + u2 * i22
        cd21, cd22 = v * i11 + v2 * i12, v * i12 + v2 * i22
        # C D^-1 J^T - I, J^T = [[j11, j21], [j12, j22]]
        P.append((cd11 * j11 + cd12 * j12 - 1.0, cd11 * j21 + cd12 * j22,
                  cd21 * j11 + cd22 * j12, cd21 * j21 + cd22 * j22 - 1.0))
        qv.append((cd11, cd21))
        sv.append((c[18], c[19]))
    cols = []
    for j, (r1x, r1y, r2x, r2y) in enumerate((
            (-sv[0][0], -sv[0][1], -sv[0][0], -sv[0][1]), (sv[1][0], sv[1][1], 0.0, 0.0),
            (0.0, 0.0, sv[2][0], sv[2][1]))):
        zx = r2x - (w11 * r1x + w21 * r1y)
        zy = r2y - (w12 * r1x + w22 * r1y)
        m2x, m2y = Si[0] * zx + Si[1] * zy, Si[1] * zx + Si[2] * zy
        m1x = Ai[0] * r1x + Ai[1] * r1y - (w11 * m2x + w12 * m2y)
        m1y = Ai[1] * r1x + Ai[2] * r1y - (w21 * m2x + w22 * m2y)
        col = []
        for i, (fx, fy) in enumerate(((m1x + m2x, m1y + m2y), (-m1x, -m1y), (-m2x, -m2y))):
            p11, p12, p21, p22 = P[i]
            dx, dy = p11 * fx + p12 * fy, p21 * fx + p22 * fy
            if i == j:
                dx, dy = dx + qv[i][0], dy + qv[i][1]
            col.append((dx, dy))
        cols.append(col)
    return [[cols[j][i] for j in range(3)] for i in range(3)]


def _sym2(X):
    """The symmetric 2x2 matrix of ``X = (xx, xy, yy)``."""
    return np.array([[X[0], X[1]], [X[1], X[2]]])


def _refuse_rank_deficient(w, matrix: str, regular: bool = True):
    """Raise :class:`SingularityError` if the eigenvalues ``w`` (ascending) of ``matrix`` have a ratio
    ``w[0] / w[-1] <= SINGULAR_TOL``, or if ``regular`` is False (a determinant that rounding left non-positive).

    >>> _refuse_rank_deficient(np.array([1e-3, 1.0]), "K")
    >>> _refuse_rank_deficient(np.array([1e-12, 1.0]), "K")
    Traceback (most recent call last):
    ...
    robolib.SingularityError: configuration q is singular: the constraint matrix of both layers is rank deficient (eigenvalue ratio of K = 1.00e-12 <= 1e-10); the bearing reactions are not determined
    """
    if w[0] <= SINGULAR_TOL * w[-1] or not regular:
        raise SingularityError(
            f"configuration q is singular: the constraint matrix of both layers is rank deficient "
            f"(eigenvalue ratio of {matrix} = {w[0] / w[-1]:.2e} <= {SINGULAR_TOL:g}); "
            "the bearing reactions are not determined"
        )


def _check_closure_regular(A, G1, C, detA, detS):
    """Raise :class:`SingularityError` unless the closure matrix ``[[A, G1], [G1, C]]`` (4x4) is regular.

    Its eigenvalue ratio against :data:`SINGULAR_TOL`; ``detA``, ``detS`` (the determinants of ``A`` and of the
    Schur complement ``C - G1 A^-1 G1``) must be positive for the block elimination to apply.
    """
    Kq = np.block([[_sym2(A), _sym2(G1)], [_sym2(G1), _sym2(C)]])
    if not np.all(np.isfinite(Kq)):  # only reachable from a diverged integration (inputs are checked)
        raise ConvergenceError("the state is no longer finite: the integration diverged (try Baumgarte "
                               "stabilisation or a smaller step)")
    _refuse_rank_deficient(np.linalg.eigvalsh(Kq), "the 4x4 closure matrix", regular=detA > 0 and detS > 0)


def _core(robot: Robot, qs, ds, ts, friction, alpha, beta, tf_guess=None):
    """Forward dynamics by block elimination of the 12-coordinate multiplier system.

    Layer 2 fixes ``ddx_i, ddy_i`` (zero, or the Baumgarte terms); eliminating
    them and the angles leaves the 4x4 system of the closure multipliers
    ``(mu_1, mu_2)`` (the layer-1 lambda), ``[[G1+G2, G1], [G1, G1+G3]] mu = rhs``
    with ``G_i = J_i D_i^-1 J_i^T`` the tip mobility of chain i; the layer-2
    multipliers (bearing reactions) follow from the chains' x/y rows:
    ``F_i = mt_i ddp_i + C_i ddtheta_i + h_p,i - f_i`` (``f_i`` the closure force on
    tip i). Exactly the solution of :func:`_solve`, in scalar arithmetic (fast).
    """
    l = robot.link_length
    base = robot._base_list
    a2 = 2.0 * alpha
    b2 = beta * beta
    ch = []  # per-chain tuples
    for i in range(3):
        mt, P, Qb, K0, K1, K2 = robot._kt[i]
        x, y, a, b = qs[4 * i: 4 * i + 4]
        dx, dy, da, db = ds[4 * i: 4 * i + 4]
        c1, s1 = math.cos(a), math.sin(a)
        c12, s12 = math.cos(a + b), math.sin(a + b)
        cb, sb = math.cos(b), math.sin(b)
        u, v = -P * s1 - Qb * s12, P * c1 + Qb * c12
        u2, v2 = -Qb * s12, Qb * c12
        m33, m34 = K0 + 2.0 * K1 * cb, K2 + K1 * cb
        w2 = da + db
        hx = -P * c1 * da * da - Qb * c12 * w2 * w2
        hy = -P * s1 * da * da - Qb * s12 * w2 * w2
        ha = -K1 * sb * (2.0 * da * db + db * db)
        hb = K1 * sb * da * da
        ddx = -a2 * dx - b2 * (x - base[i][0])
        ddy = -a2 * dy - b2 * (y - base[i][1])
        det = m33 * K2 - m34 * m34
        i11, i12, i22 = K2 / det, -m34 / det, m33 / det
        j11, j12 = -l * (s1 + s12), -l * s12
        j21, j22 = l * (c1 + c12), l * c12
        ra0 = ts[i] - ha - (u * ddx + v * ddy)
        rb0 = -hb - (u2 * ddx + v2 * ddy)
        # J D^-1 (2x2)
        p11, p12 = j11 * i11 + j12 * i12, j11 * i12 + j12 * i22
        p21, p22 = j21 * i11 + j22 * i12, j21 * i12 + j22 * i22
        G = (p11 * j11 + p12 * j12, p11 * j21 + p12 * j22, p21 * j21 + p22 * j22)  # Gxx, Gxy, Gyy
        E = (x + l * (c1 + c12), y + l * (s1 + s12))
        dE = (dx + j11 * da + j12 * db, dy + j21 * da + j22 * db)
        gx = -l * (c1 * da * da + c12 * w2 * w2)
        gy = -l * (s1 * da * da + s12 * w2 * w2)
        ex = ddx + gx + p11 * ra0 + p12 * rb0  # free tip acceleration (no closure force, no friction)
        ey = ddy + gy + p21 * ra0 + p22 * rb0
        ch.append((mt, u, v, u2, v2, hx, hy, ddx, ddy, i11, i12, i22, j11, j12, j21, j22, ra0, rb0,
                   p11, p21, G, E, dE, ex, ey, da))
    # closure system [[A, G1], [G1, C]] (mu1; mu2) = (r1; r2), A = G1 + G2, C = G1 + G3,
    # solved by 2x2 block elimination: Sc = C - G1 A^-1 G1 (all 2x2 symmetric: (xx, xy, yy))
    G1, G2, G3 = ch[0][20], ch[1][20], ch[2][20]
    A = (G1[0] + G2[0], G1[1] + G2[1], G1[2] + G2[2])
    C = (G1[0] + G3[0], G1[1] + G3[1], G1[2] + G3[2])
    detA = A[0] * A[2] - A[1] * A[1]
    scale = max(A[0], A[2], C[0], C[2])
    detS = 0.0
    if detA > 0:
        Ai = (A[2] / detA, -A[1] / detA, A[0] / detA)
        # W = A^-1 G1 (general 2x2: w11 w12 / w21 w22)
        w11, w12 = Ai[0] * G1[0] + Ai[1] * G1[1], Ai[0] * G1[1] + Ai[1] * G1[2]
        w21, w22 = Ai[1] * G1[0] + Ai[2] * G1[1], Ai[1] * G1[1] + Ai[2] * G1[2]
        Sc = (C[0] - (G1[0] * w11 + G1[1] * w21), C[1] - (G1[0] * w12 + G1[1] * w22), C[2] - (G1[1] * w12 + G1[2] * w22))
        detS = Sc[0] * Sc[2] - Sc[1] * Sc[1]
    # well-conditioned (the usual case): no eigenvalue test; otherwise the 4x4 closure matrix decides
    if not (detA > 1e-8 * scale * scale and detS > 1e-6 * scale * scale and detA * detS > 1e-6 * scale**4):
        _check_closure_regular(A, G1, C, detA, detS)
    Si = (Sc[2] / detS, -Sc[1] / detS, Sc[0] / detS)
    (E1, dE1), (E2, dE2), (E3, dE3) = [(c[21], c[22]) for c in ch]
    k1x = -a2 * (dE1[0] - dE2[0]) - b2 * (E1[0] - E2[0])
    k1y = -a2 * (dE1[1] - dE2[1]) - b2 * (E1[1] - E2[1])
    k2x = -a2 * (dE1[0] - dE3[0]) - b2 * (E1[0] - E3[0])
    k2y = -a2 * (dE1[1] - dE3[1]) - b2 * (E1[1] - E3[1])
    c0, c1_, c2 = ch

    def solution(tf, full=True):
        t0, t1, t2 = tf
        # free tip accelerations with friction tf on the active joints
        e0x, e0y = c0[23] + c0[18] * t0, c0[24] + c0[19] * t0
        e1x, e1y = c1_[23] + c1_[18] * t1, c1_[24] + c1_[19] * t1
        e2x, e2y = c2[23] + c2[18] * t2, c2[24] + c2[19] * t2
        r1x, r1y = k1x - e0x + e1x, k1y - e0y + e1y
        r2x, r2y = k2x - e0x + e2x, k2y - e0y + e2y
        # mu2 = Sc^-1 (r2 - W^T r1), mu1 = A^-1 r1 - W mu2
        zx = r2x - (w11 * r1x + w21 * r1y)
        zy = r2y - (w12 * r1x + w22 * r1y)
        m2x, m2y = Si[0] * zx + Si[1] * zy, Si[1] * zx + Si[2] * zy
        m1x = Ai[0] * r1x + Ai[1] * r1y - (w11 * m2x + w12 * m2y)
        m1y = Ai[1] * r1x + Ai[2] * r1y - (w21 * m2x + w22 * m2y)
        m = (m1x, m1y, m2x, m2y)
        ddq = []
        F = []
        for c, t, fx, fy in ((c0, t0, m1x + m2x, m1y + m2y), (c1_, t1, -m1x, -m1y), (c2, t2, -m2x, -m2y)):
            mt, u, v, u2, v2, hx, hy, ddx, ddy, i11, i12, i22, j11, j12, j21, j22, ra0, rb0 = c[:18]
            ra = ra0 + t + j11 * fx + j21 * fy
            rb = rb0 + j12 * fx + j22 * fy
            dda = i11 * ra + i12 * rb
            ddb = i12 * ra + i22 * rb
            if full:
                ddq += [ddx, ddy, dda, ddb]
            F.append((mt * ddx + u * dda + u2 * ddb + hx - fx, mt * ddy + v * dda + v2 * ddb + hy - fy))
        return ddq, F, m

    tf = [0.0, 0.0, 0.0]
    eps = robot.smooth_eps
    if friction == "stribeck":
        Tc, Ts, ws, bv = robot.coulomb_torque, robot.static_torque, robot.stribeck_velocity, robot.viscous
        tf = [-(Tc + (Ts - Tc) * math.exp(-(c[25] / ws) ** 2)) * math.tanh(c[25] / eps) - bv * c[25] for c in ch]
    if friction == "coulomb":  # decoupled: loads from the friction-free solve, one pass
        muR = robot.mu * robot.journal_radius
        _, F, _ = solution(tf, full=False)
        tf = [-muR * math.hypot(*Fi) * math.tanh(c[25] / eps) for Fi, c in zip(F, ch)]
    elif friction == "coulomb_consistent":  # fixed point tf = law(F(tf)); F is affine in tf
        muR = robot.mu * robot.journal_radius
        sg = [math.tanh(c[25] / eps) for c in ch]
        _, F0, _ = solution((0.0, 0.0, 0.0), full=False)
        H = _reaction_sensitivity(ch, Ai, Si, (w11, w12, w21, w22))  # H[i][j] = dF_i / dtf_j
        (a0x, a0y), (a1x, a1y), (a2x, a2y) = F0
        ((h00x, h00y), (h01x, h01y), (h02x, h02y)), ((h10x, h10y), (h11x, h11y), (h12x, h12y)), \
            ((h20x, h20y), (h21x, h21y), (h22x, h22y)) = H
        k0, k1, k2 = -muR * sg[0], -muR * sg[1], -muR * sg[2]
        hyp = math.hypot
        t0, t1, t2 = (0.0, 0.0, 0.0) if tf_guess is None else tf_guess
        for _ in range(COULOMB_MAX_ITER):
            n0 = k0 * hyp(a0x + h00x * t0 + h01x * t1 + h02x * t2, a0y + h00y * t0 + h01y * t1 + h02y * t2)
            n1 = k1 * hyp(a1x + h10x * t0 + h11x * t1 + h12x * t2, a1y + h10y * t0 + h11y * t1 + h12y * t2)
            n2 = k2 * hyp(a2x + h20x * t0 + h21x * t1 + h22x * t2, a2y + h20y * t0 + h21y * t1 + h22y * t2)
            change = max(abs(n0 - t0), abs(n1 - t1), abs(n2 - t2))
            t0, t1, t2 = n0, n1, n2
            if change <= COULOMB_TOL * max(abs(n0), abs(n1), abs(n2)) + 1e-300:
                tf = [t0, t1, t2]
                break
        else:
            raise _coulomb_diverged(muR)
    ddq, F, m = solution(tf)
    return ddq, F, tf, m


def _solve(robot: Robot, q, dq, tau, friction, alpha, beta, method="multipliers"):
    """Forward dynamics on the full 12-coordinate system (no input checks): a :class:`Dynamics`.

    ``method="reduced"`` delegates to :func:`_solve_reduced`; the others build
    ``M`` (12, 12), ``A`` (10, 12), ``b`` (10,) and use :mod:`robolib.core.constraints`.
    """
    if method == "reduced":
        return _solve_reduced(robot, q, dq, tau, friction, alpha, beta)
    Mb = _mass_blocks(robot, q)
    Mi = np.linalg.inv(Mb)
    Minv = np.zeros((12, 12))
    Minv[_BLK_R, _BLK_C] = Mi.ravel()
    Q = -_bias_blocks(robot, q, dq).ravel()
    Q[_ACTIVE] += tau
    phi, dphi, A, b = _constraints(robot, q, dq)
    if alpha or beta:
        b = b - 2.0 * alpha * dphi - beta * beta * phi
    MiAT = Minv @ A.T  # (12, 10)
    S = A @ MiAT
    ws, Vs = np.linalg.eigh(S)
    _refuse_rank_deficient(ws, "A M^-1 A^T")
    a0 = Minv @ Q
    rhs = np.empty((10, 4))
    rhs[:, 0] = b - A @ a0
    rhs[:, 1:] = MiAT[_ACTIVE].T
    X = (Vs / ws) @ (Vs.T @ rhs)
    lam0 = X[:, 0]
    # lam(tau_f) = S^-1 (b - A M^-1 (Q + E tau_f)) = lam0 - G tau_f,  G = S^-1 A M^-1 E
    G = X[:, 1:]
    w = dq[_ACTIVE]
    if friction is None:
        tf = np.zeros(3)
    elif friction == "stribeck":
        tf = _fr.stribeck(w, robot.coulomb_torque, robot.static_torque, robot.stribeck_velocity, robot.viscous,
                          robot.smooth_eps)
    else:
        tf = _coulomb(robot, w, lam0, G, consistent=(friction == "coulomb_consistent"))
    lam = lam0 - G @ tf
    Q[_ACTIVE] += tf
    if method == "multipliers":
        ddq = Minv @ Q + MiAT @ lam
    else:
        M = np.zeros((12, 12))
        M[_BLK_R, _BLK_C] = Mb.ravel()
        if method == "kkt":
            ddq, lam_k = _con.kkt_solve(M, Q, A, b)
        elif method == "udwadia_kalaba":
            ddq, _ = _con.udwadia_kalaba(M, Q, A, b)
        else:  # sequential: layer 1 then layer 2, as in the patent
            ddq, _ = _con.udwadia_kalaba_sequential(M, Q, [(A[:4], b[:4]), (A[4:], b[4:])])
    return Dynamics(ddq, lam[4:].reshape(3, 2), tf, lam)


def solve_dynamics(robot: Robot, q, dq, tau, friction=None, *, method="reduced", baumgarte=(0.0, 0.0)) -> Dynamics:
    """Forward dynamics with every by-product: accelerations, reactions, friction torques, multipliers.

    ``q``, ``dq`` (12,) in the cut-model coordinates, ``tau`` (3,) motor
    torques (N m), ``friction`` one of :data:`FRICTION_MODELS`. ``method``
    selects the route to ``ddq`` (:data:`METHODS`): ``"reduced"`` (default,
    fast) is the exact block elimination of the 12-coordinate multiplier system
    (layer 2 eliminated first, then a 4x4 closure system, scalar arithmetic);
    ``"multipliers"`` the 12-coordinate Schur complement, ``"kkt"`` the
    augmented system, ``"udwadia_kalaba"`` the single-step U–K equation with
    both layers stacked, ``"sequential"`` U–K applied layer 1 then layer 2 (the
    patent's route). They agree to ~1e-12 (tested). The reactions always come
    from the multipliers ``lambda`` of ``(A M^-1 A^T) lambda = b - A M^-1 Q``.
    ``baumgarte = (alpha, beta)`` in 1/s adds ``-2 alpha dphi - beta^2 phi``
    to ``b``. Friction: ``"coulomb"`` evaluates ``|F_i|`` from the
    friction-free solve (the decoupled, one-pass model), ``"coulomb_consistent"``
    iterates ``F_i`` to the fixed point, ``"stribeck"`` includes the viscous
    term; all use the smooth sign ``tanh(w / smooth_eps)``. The reported
    reactions are those of the final solve, friction included.

    >>> robot = load(); q, dq, _ = reference_motion(robot, [0.3])
    >>> d = solve_dynamics(robot, q[0], dq[0], np.zeros(3), friction="stribeck")
    >>> bool(np.all(d.friction_torque * dq[0, [2, 6, 10]] <= 0))
    True
    """
    q = _vec("q", q, 12)
    dq = _vec("dq", dq, 12)
    tau = _vec("tau", tau, 3)
    _friction_name(friction, robot)
    _choice("method", method, METHODS)
    gains = _checks.real_array("baumgarte", baumgarte, shape=(2,))
    if np.any(gains < 0):
        raise ParameterError(f"baumgarte gains (alpha, beta) must be non-negative (1/s), got {baumgarte!r}")
    alpha, beta = gains
    return _solve(robot, q, dq, tau, friction, float(alpha), float(beta), method)


def forward_dynamics(robot: Robot, q, dq, tau, friction=None, *, method="reduced", baumgarte=(0.0, 0.0)):
    """``(ddq (12,), reactions (3, 2))`` of the robot under motor torques ``tau`` (3,) N m.

    ``q``, ``dq`` of shape (12,) ordered ``(x_1, y_1, a_1, b_1, x_2, ...)``;
    ``friction`` in ``None, "coulomb", "coulomb_consistent", "stribeck"``;
    ``reactions[i]`` is the force of the base on active link ``i`` (N), from
    the final solve (friction included). See :func:`solve_dynamics`.

    >>> robot = load(); q, dq, _ = reference_motion(robot, [0.0])
    >>> ddq, F = forward_dynamics(robot, q[0], dq[0], np.zeros(3))
    >>> bool(np.allclose(ddq[[0, 1, 4, 5, 8, 9]], 0, atol=1e-12))   # the base does not move
    True
    """
    d = solve_dynamics(robot, q, dq, tau, friction, method=method, baumgarte=baumgarte)
    return d.ddq, d.reactions


# --------------------------------------------------------------------------- inverse kinematics
def inverse_kinematics(robot: Robot, p, elbows=DEFAULT_ELBOWS) -> np.ndarray:
    """Cut-model coordinates ``q`` (..., 12) that put the end-effector at ``p`` (..., 2) m.

    ``elbows`` (3,) the sign of each passive angle ``b_i``. Raises
    :class:`~robolib.UnreachableError` if ``p`` is farther than ``2 l`` from a
    base point, :class:`~robolib.SingularityError` if a chain is folded onto
    its base point.

    >>> robot = load()
    >>> q = inverse_kinematics(robot, robot.centroid)
    >>> bool(np.allclose(tips(robot, q), robot.centroid))
    True
    """
    p = _batch("p", p, 2)
    el = _elbows(elbows)
    l = robot.link_length
    q = np.zeros(p.shape[:-1] + (12,))
    for i in range(3):
        d = p - robot.base[i]
        r = np.hypot(d[..., 0], d[..., 1])
        if np.any(r > 2 * l * (1 + 1e-12)):
            j = np.unravel_index(np.argmax(r), r.shape)
            raise UnreachableError(
                f"end-effector target p = {p[j].tolist()} is unreachable by chain {i + 1}: "
                f"distance {r[j]:.6g} m from A_{i + 1} exceeds 2 * link_length = {2 * l:g} m"
            )
        if np.any(r <= CHAIN_SINGULAR_TOL * l):
            raise SingularityError(f"end-effector target p coincides with base point A_{i + 1}: chain {i + 1} is folded (singular)")
        cb = np.clip((r * r - 2 * l * l) / (2 * l * l), -1.0, 1.0)
        b = el[i] * np.arccos(cb)
        q[..., 4 * i] = robot.base[i, 0]
        q[..., 4 * i + 1] = robot.base[i, 1]
        q[..., 4 * i + 2] = np.arctan2(d[..., 1], d[..., 0]) - 0.5 * b
        q[..., 4 * i + 3] = b
    return q


def joint_rates(robot: Robot, q, v, acc=None):
    """Joint rates ``dq`` (and accelerations ``ddq``) (..., 12) for end-effector velocity ``v``
    (..., 2) m/s (and acceleration ``acc`` (..., 2) m/s^2), with the active joints fixed on the base.

    Raises :class:`~robolib.SingularityError` where a chain is stretched or folded
    (``sin b_i = 0``: its tip Jacobian is singular).

    >>> robot = load(); q = inverse_kinematics(robot, robot.centroid)
    >>> dq = joint_rates(robot, q, [0.1, 0.0])
    >>> h = 1e-7; dE = (tips(robot, q + h * dq) - tips(robot, q - h * dq)) / (2 * h)
    >>> bool(np.allclose(dE, [0.1, 0.0], atol=1e-8))
    True
    """
    q = _batch("q", q, 12)
    v = _batch("v", v, 2)
    if acc is None:
        lead = _lead(("q", q), ("v", v))
    else:
        acc = _batch("acc", acc, 2)
        lead = _lead(("q", q), ("v", v), ("acc", acc))
    l = robot.link_length
    c1, s1, c12, s12, _, sb = _trig(q)
    if np.any(np.abs(sb) <= CHAIN_SINGULAR_TOL):
        i = int(np.argmax(np.abs(sb) <= CHAIN_SINGULAR_TOL) % 3)
        raise SingularityError(f"configuration q is singular: chain {i + 1} is stretched or folded (sin b = 0)")
    # J (angles) = [[-l(s1+s12), -l s12], [l(c1+c12), l c12]], det = l^2 sin b
    det = l * l * sb
    j11, j12, j21, j22 = -l * (s1 + s12), -l * s12, l * (c1 + c12), l * c12

    def solve(rx, ry):
        return (j22 * rx - j12 * ry) / det, (-j21 * rx + j11 * ry) / det

    da, db = solve(v[..., 0:1], v[..., 1:2])
    dq = np.zeros(lead + (12,))
    dq[..., _ACTIVE] = da
    dq[..., _PASSIVE] = db
    if acc is None:
        return dq
    w2 = da + db
    gx = -l * (c1 * da**2 + c12 * w2**2)
    gy = -l * (s1 * da**2 + s12 * w2**2)
    dda, ddb = solve(acc[..., 0:1] - gx, acc[..., 1:2] - gy)
    ddq = np.zeros_like(dq)
    ddq[..., _ACTIVE] = dda
    ddq[..., _PASSIVE] = ddb
    return dq, ddq


# --------------------------------------------------------------------------- reference trajectory
class TaskTrajectory(NamedTuple):
    """End-effector trajectory: times (N,) s, position, velocity, acceleration (N, 2)."""

    t: np.ndarray
    p: np.ndarray
    v: np.ndarray
    a: np.ndarray


def reference_circle(robot: Robot, t, radius=CIRCLE_RADIUS, period=CIRCLE_PERIOD, center=None) -> TaskTrajectory:
    """The reference circle: ``p(t) = c + r (cos wt, sin wt)``, ``w = 2 pi / period``.

    ``t`` (N,) s; ``center`` defaults to the base centroid. Counter-clockwise,
    starting at angle 0.

    >>> tr = reference_circle(load(), [0.0, 0.5])
    >>> np.round(tr.v[0], 6) + 0.0
    array([0.     , 0.15708])
    """
    t = np.atleast_1d(_checks.real_array("t", t))
    if t.ndim != 1:
        raise ParameterError(f"t must be a time or a 1-D array of times (N,) in s, got shape {t.shape}")
    radius = _checks.real("radius", radius, low=0.0, unit="m")
    period = _checks.real("period", period, low=0.0, open_low=True, unit="s")
    c = robot.centroid if center is None else _vec("center", center, 2)
    w = 2 * np.pi / period
    e = np.stack([np.cos(w * t), np.sin(w * t)], axis=-1)
    de = np.stack([-np.sin(w * t), np.cos(w * t)], axis=-1)
    return TaskTrajectory(t, c + radius * e, radius * w * de, -radius * w * w * e)


def joint_trajectory(robot: Robot, traj: TaskTrajectory, elbows=DEFAULT_ELBOWS):
    """``(q, dq, ddq)`` each (N, 12) following an end-effector :class:`TaskTrajectory`."""
    p, v, a = _trajectory(traj)
    q = inverse_kinematics(robot, p, elbows)
    dq, ddq = joint_rates(robot, q, v, a)
    return q, dq, ddq


def _trajectory(traj):
    """Checked ``(p, v, a)`` of a :class:`TaskTrajectory` (each (..., 2), one shape)."""
    if not (isinstance(traj, tuple) and len(traj) == 4):
        raise ParameterError(f"traj must be a TaskTrajectory (t, p, v, a), got {_show(traj)} ({type(traj).__name__})")
    t, p, v, a = traj
    p = _batch("traj.p", p, 2)
    v = _batch("traj.v", v, 2)
    a = _batch("traj.a", a, 2)
    if not p.shape == v.shape == a.shape:
        raise ParameterError(f"traj.p, traj.v and traj.a must have one shape (..., 2), got {p.shape}, {v.shape}, {a.shape}")
    return p, v, a


def reference_motion(robot: Robot, t, elbows=DEFAULT_ELBOWS, **circle):
    """``(q, dq, ddq)`` (N, 12) of the reference circle at times ``t`` (N,) s.

    >>> q, dq, ddq = reference_motion(load(), np.linspace(0, 2, 5))
    >>> q.shape
    (5, 12)
    """
    return joint_trajectory(robot, reference_circle(robot, t, **circle), elbows)


def initial_state(robot: Robot, p, v=(0.0, 0.0), elbows=DEFAULT_ELBOWS):
    """Assembled state ``(q0, dq0)`` (12,) with the end-effector at ``p`` moving at ``v``.

    >>> q0, dq0 = initial_state(load(), load().centroid)
    >>> constraint_residual(load(), q0, dq0) < (1e-12, 1e-12)
    True
    """
    q = inverse_kinematics(robot, _vec("p", p, 2), elbows)
    return q, joint_rates(robot, q, _vec("v", v, 2))


# --------------------------------------------------------------------------- inverse dynamics
class InverseDynamics(NamedTuple):
    """Result of :func:`inverse_dynamics` (leading shape ``...`` of the inputs)."""

    tau: np.ndarray  #: (..., 3) motor torques (N m)
    friction_torque: np.ndarray  #: (..., 3) friction torques on the active joints (N m)
    reactions: np.ndarray  #: (..., 3, 2) force of the base on each active link (N)
    null_direction: np.ndarray  #: (..., 3) unit internal-preload direction of the motor torques


def _inverse_batch(robot, q, dq, ddq, friction, preload):
    """Inverse dynamics of N samples at once: q, dq, ddq (N, 12) -> tau, tf, F, n."""
    N = q.shape[0]
    Mb = _mass_blocks(robot, q)
    r = (np.einsum("ncij,ncj->nci", Mb, ddq.reshape(N, 3, 4)) + _bias_blocks(robot, q, dq)).reshape(N, 12)
    phi, dphi, A, b = _constraints(robot, q, dq)
    acc = np.abs(np.einsum("nij,nj->ni", A, ddq) - b).max(axis=-1)
    bad = (np.abs(phi).max(axis=-1) > ASSEMBLY_TOL) | (np.abs(dphi).max(axis=-1) > ASSEMBLY_TOL) \
        | (acc > ASSEMBLY_TOL * np.maximum(1.0, np.abs(b).max(axis=-1)))
    if np.any(bad):
        j = int(np.argmax(bad))
        raise ParameterError(
            f"(q, dq, ddq) violate the constraints at sample {j} (position, velocity or acceleration residual "
            f"{np.abs(phi[j]).max():.2e}, {np.abs(dphi[j]).max():.2e}, {acc[j]:.2e} > {ASSEMBLY_TOL:g}); "
            "use inverse_kinematics / joint_rates to build an assembled motion"
        )
    # W [u; lambda] = r with W = [E, A^T] (12 x 13): one-dimensional null space (the preload)
    W = np.zeros((N, 12, 13))
    W[:, _ACTIVE, np.arange(3)] = 1.0
    W[:, :, 3:] = np.swapaxes(A, -1, -2)
    U, sv, Vt = np.linalg.svd(W)
    sing = sv[:, -1] <= SINGULAR_TOL * sv[:, 0]
    if np.any(sing):
        j = int(np.argmax(sing))
        raise SingularityError(
            f"configuration q is singular at sample {j}: torques and reactions are not determined up to one "
            f"preload (singular values {sv[j, -1]:.2e} .. {sv[j, 0]:.2e})"
        )
    xp = np.einsum("nki,nk->ni", Vt[:, :12, :], np.einsum("nji,nj->ni", U, r) / sv)
    nfull = Vt[:, 12, :]
    nn = np.linalg.norm(nfull[:, :3], axis=-1)
    if np.any(nn <= SINGULAR_TOL):
        j = int(np.argmax(nn <= SINGULAR_TOL))
        raise SingularityError(f"configuration q is singular at sample {j}: the motors have no internal-preload direction")
    nfull = nfull / nn[:, None]
    sign = np.where(nfull[:, :3].sum(axis=-1) < 0, -1.0, 1.0)
    nfull = nfull * sign[:, None]
    n, n_lam = nfull[:, :3], nfull[:, 3:]
    up, lp = xp[:, :3], xp[:, 3:]

    def solution(tf):
        t = up - tf
        tau = t - n * np.einsum("ni,ni->n", n, t)[:, None] + preload * n
        su = np.einsum("ni,ni->n", n, tau + tf - up)
        return tau, lp + su[:, None] * n_lam

    w = dq[:, _ACTIVE]
    tf = np.zeros((N, 3))
    if friction == "stribeck":
        tf = _fr.stribeck(w, robot.coulomb_torque, robot.static_torque, robot.stribeck_velocity,
                          robot.viscous, robot.smooth_eps)
    elif friction in ("coulomb", "coulomb_consistent"):
        muR = robot.mu * robot.journal_radius
        sg = _fr.smooth_sign(w, robot.smooth_eps)

        def law(lam):
            F = lam[:, 4:].reshape(N, 3, 2)
            return -muR * np.hypot(F[..., 0], F[..., 1]) * sg

        tf = law(solution(tf)[1])  # decoupled: loads of the friction-free solution (same preload)
        if friction == "coulomb_consistent":
            for _ in range(COULOMB_MAX_ITER):
                new = law(solution(tf)[1])
                done = np.abs(new - tf).max() <= COULOMB_TOL * np.abs(new).max() + 1e-300
                tf = new
                if done:
                    break
            else:
                raise ConvergenceError(f"consistent Coulomb friction did not converge in {COULOMB_MAX_ITER} iterations")
    tau, lam = solution(tf)
    return tau, tf, lam[:, 4:].reshape(N, 3, 2), n


def inverse_dynamics(robot: Robot, q, dq, ddq, friction=None, preload=0.0) -> InverseDynamics:
    """Motor torques that produce the motion ``(q, dq, ddq)`` (..., 12), with redundancy resolved.

    The three motor torques are determined up to the internal preload
    direction ``n`` (a torque combination that only loads the mechanism).
    Returned ``tau = tau_min + preload * n``: ``tau_min`` the minimum-norm
    motor torques, ``n`` unit length (sign: ``sum(n) > 0``), ``preload`` in N m.
    Friction as in :func:`forward_dynamics`; for ``"coulomb"`` (decoupled) the
    bearing loads are taken from the friction-free solution with the same
    preload, for ``"coulomb_consistent"`` they are iterated to the fixed point
    with the final torques. ``reactions`` are those of the final torques.

    >>> robot = load(); q, dq, ddq = reference_motion(robot, [0.0])
    >>> r0 = inverse_dynamics(robot, q, dq, ddq); r1 = inverse_dynamics(robot, q, dq, ddq, preload=1.0)
    >>> bool(np.allclose(r1.tau - r0.tau, r0.null_direction)), bool(np.linalg.norm(r1.tau) > np.linalg.norm(r0.tau))
    (True, True)
    """
    q = _batch("q", q, 12)
    dq = _batch("dq", dq, 12)
    ddq = _batch("ddq", ddq, 12)
    _friction_name(friction, robot)
    preload = _checks.real("preload", preload, unit="N m")
    shape = _lead(("q", q), ("dq", dq), ("ddq", ddq))
    q, dq, ddq = (np.broadcast_to(x, shape + (12,)).reshape(-1, 12) for x in (q, dq, ddq))
    tau, tf, F, n = _inverse_batch(robot, q, dq, ddq, friction, preload)
    return InverseDynamics(tau.reshape(shape + (3,)), tf.reshape(shape + (3,)), F.reshape(shape + (3, 2)),
                           n.reshape(shape + (3,)))


def actuation_jacobian(robot: Robot, q) -> np.ndarray:
    """``J_a = d(a_1, a_2, a_3) / d(x, y)`` (..., 3, 2): active-joint rates per end-effector velocity.

    Closed form from each chain's tip Jacobian: row ``i`` is
    ``(cos phi_i, sin phi_i) / (l sin b_i)`` with ``phi_i = a_i + b_i`` the
    passive link's absolute angle (1/m). ``J_a^T`` maps the motor torques to
    the generalised force on the end-effector, so the task-space equation of
    motion reads ``J_a^T (tau + tau_f) = f`` (see :func:`minimum_norm_torques`).
    Raises :class:`~robolib.SingularityError` where a chain is stretched or folded.

    >>> robot = load(); q = inverse_kinematics(robot, robot.centroid)
    >>> dq = joint_rates(robot, q, [0.1, -0.2])
    >>> bool(np.allclose(actuation_jacobian(robot, q) @ [0.1, -0.2], dq[_ACTIVE]))
    True
    """
    q = _batch("q", q, 12)
    c1, s1, c12, s12, _, sb = _trig(q)
    if np.any(np.abs(sb) <= CHAIN_SINGULAR_TOL):
        raise SingularityError("configuration q is singular: a chain is stretched or folded (sin b = 0)")
    d = robot.link_length * sb
    return np.stack([c12 / d, s12 / d], axis=-1)


def preload_direction(robot: Robot, q) -> np.ndarray:
    """Unit internal-preload direction ``n`` (..., 3) of the motor torques, in closed form.

    ``n`` spans the null space of ``J_a^T`` (:func:`actuation_jacobian`): the
    cross product of its two columns, ``n_i ∝ sin b_i sin(phi_k - phi_j)`` for
    ``(i, j, k)`` cyclic, ``phi_i = a_i + b_i``. Statically (Lami's theorem):
    the passive links are two-force members whose axial forces
    ``f_i ∝ sin(phi_k - phi_j)`` balance at the end-effector, and each motor
    holds ``tau_i = l sin b_i f_i``. Sign: ``sum(n) > 0``, as in
    :func:`inverse_dynamics` (an independent route: there ``n`` comes from an SVD).

    >>> robot = load(); q, dq, ddq = reference_motion(robot, [0.4])
    >>> bool(np.allclose(preload_direction(robot, q), inverse_dynamics(robot, q, dq, ddq).null_direction))
    True
    """
    q = _batch("q", q, 12)
    _, _, c12, s12, _, sb = _trig(q)
    phi = np.arctan2(s12, c12)
    j, k = [1, 2, 0], [2, 0, 1]
    n = sb * np.sin(phi[..., k] - phi[..., j])
    nn = np.linalg.norm(n, axis=-1, keepdims=True)
    if np.any(nn <= SINGULAR_TOL):
        raise SingularityError("configuration q is singular: the motors have no internal-preload direction")
    n = n / nn
    return np.where(n.sum(axis=-1, keepdims=True) < 0, -n, n)


def preload_reactions(robot: Robot, q) -> np.ndarray:
    """Bearing reactions (..., 3, 2) in N per N m of preload along :func:`preload_direction`.

    The force of the base on active link ``i`` is the passive link's axial
    force, ``n_i / (l sin b_i) (cos phi_i, sin phi_i)``; its norm over the three
    bearings is ``||dF / dtau||``, the sensitivity of the bearing loads to a
    joint torque in inverse dynamics (1/m).

    >>> robot = load(); q, dq, ddq = reference_motion(robot, [0.4])
    >>> dF = inverse_dynamics(robot, q, dq, ddq, None, 1.0).reactions - inverse_dynamics(robot, q, dq, ddq).reactions
    >>> bool(np.allclose(preload_reactions(robot, q), dF))
    True
    """
    q = _batch("q", q, 12)
    _, _, c12, s12, _, sb = _trig(q)
    f = preload_direction(robot, q) / (robot.link_length * sb)
    return np.stack([f * c12, f * s12], axis=-1)


def minimum_norm_torques(robot: Robot, q, dq, ddq, friction_torque=None, preload=0.0) -> np.ndarray:
    """Motor torques (..., 3) of the motion ``(q, dq, ddq)`` by the task-space (projection) route.

    ``G = dq / dv`` (..., 12, 2), the joint rates per unit end-effector
    velocity, satisfies ``A G = 0``, so ``G^T`` removes every constraint force
    from ``M ddq + C dq = E (tau + tau_f) + A^T lambda`` and leaves two equations
    ``J_a^T (tau + tau_f) = f``, ``f = G^T (M ddq + C dq)`` (N), ``J_a = E^T G``.
    Their minimum-norm solution plus the preload ``p`` (N m) along ``n``:
    ``tau = J_a (J_a^T J_a)^-1 f - (I - n n^T) tau_f + p n``.
    ``friction_torque`` (..., 3) N m (default zero) is the friction at the
    active joints, e.g. ``inverse_dynamics(...).friction_torque``. Same result
    as :func:`inverse_dynamics` by a different route (no multipliers, no SVD).

    >>> robot = load(); q, dq, ddq = reference_motion(robot, [0.1, 0.9])
    >>> r = inverse_dynamics(robot, q, dq, ddq, "stribeck", 0.3)
    >>> bool(np.allclose(minimum_norm_torques(robot, q, dq, ddq, r.friction_torque, 0.3), r.tau, atol=1e-12))
    True
    """
    q = _batch("q", q, 12)
    dq = _batch("dq", dq, 12)
    ddq = _batch("ddq", ddq, 12)
    preload = _checks.real("preload", preload, unit="N m")
    if friction_torque is None:
        shape = _lead(("q", q), ("dq", dq), ("ddq", ddq))
    else:
        friction_torque = _batch("friction_torque", friction_torque, 3)
        shape = _lead(("q", q), ("dq", dq), ("ddq", ddq), ("friction_torque", friction_torque))
    q, dq, ddq = (np.broadcast_to(x, shape + (12,)).reshape(-1, 12) for x in (q, dq, ddq))
    N = q.shape[0]
    r = (np.einsum("ncij,ncj->nci", _mass_blocks(robot, q), ddq.reshape(N, 3, 4))
         + _bias_blocks(robot, q, dq)).reshape(N, 12)
    G = np.stack([joint_rates(robot, q, np.broadcast_to(e, (N, 2))) for e in ([1.0, 0.0], [0.0, 1.0])], axis=-1)
    f = np.einsum("nji,nj->ni", G, r)  # (N, 2)
    Ja = actuation_jacobian(robot, q)  # (N, 3, 2)
    JtJ = np.einsum("nki,nkj->nij", Ja, Ja)
    tau = np.einsum("nki,ni->nk", Ja, np.linalg.solve(JtJ, f[..., None])[..., 0])
    n = preload_direction(robot, q)
    if friction_torque is not None:
        tf = np.broadcast_to(friction_torque, shape + (3,)).reshape(-1, 3)
        tau = tau - (tf - n * np.einsum("ni,ni->n", n, tf)[:, None])
    return (tau + preload * n).reshape(shape + (3,))


def task_inverse_dynamics(robot: Robot, traj: TaskTrajectory, friction=None, preload=0.0,
                          elbows=DEFAULT_ELBOWS) -> InverseDynamics:
    """Motor torques (N, 3), friction, reactions along an end-effector :class:`TaskTrajectory`.

    Chain IK (``elbows``) gives the joint motion, then :func:`inverse_dynamics`.

    >>> robot = load(); res = task_inverse_dynamics(robot, reference_circle(robot, np.linspace(0, 2, 50)))
    >>> res.tau.shape, res.reactions.shape
    ((50, 3), (50, 3, 2))
    """
    _friction_name(friction, robot)
    preload = _checks.real("preload", preload, unit="N m")
    q, dq, ddq = joint_trajectory(robot, traj, elbows)
    return inverse_dynamics(robot, q, dq, ddq, friction, preload)



__all__ = ["actuation_jacobian", "preload_direction", "preload_reactions", "minimum_norm_torques", "Dynamics", "solve_dynamics", "forward_dynamics", "inverse_kinematics", "joint_rates", "TaskTrajectory", "reference_circle", "joint_trajectory", "reference_motion", "initial_state", "InverseDynamics", "inverse_dynamics", "task_inverse_dynamics"]
