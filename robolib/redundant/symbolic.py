"""Symbolic (sympy) derivation of the redundant robot's subsystem model (step 1 of the patent).

Each chain cut from the base has coordinates ``q_i = (x, y, a, b)``: the free
active-joint position, the active link's absolute angle and the passive joint
angle (relative). Its Lagrangian is the kinetic energy (horizontal plane)::

    T_i = 1/2 m_a |dp_a|^2 + 1/2 I_a da^2 + 1/2 m_b |dp_b|^2 + 1/2 I_b (da + db)^2
          [+ 1/2 m_e |dp_e|^2 for chain 1, the end-effector point mass]

from which ``M_i = d^2 T / d dq^2`` and the Coriolis matrix ``C_i`` from the
Christoffel symbols of the first kind,
``C_kj = sum_i 1/2 (dM_kj/dq_i + dM_ki/dq_j - dM_ij/dq_k) dq_i``, so that
Lagrange–Euler reads ``M_i ddq_i + C_i dq_i = tau_i``. The study notebook
"derivation" prints these as LaTeX; the tests check that they equal the
numeric kernels of :mod:`robolib.redundant` (whose closed forms were derived by
hand). :func:`actuation_jacobian` and :func:`preload_direction` derive the
redundancy resolution (minimum-norm torques and the internal preload) of
:func:`robolib.redundant.inverse_dynamics`.

>>> M = mass_matrix()
>>> M.shape, M[0, 0], sp.trigsimp(M[3, 3])
((4, 4), m_a + m_b, I_b + m_b*r_b**2)
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import sympy as sp

#: Coordinates, rates and accelerations of one subsystem.
x, y, a, b = sp.symbols("x y a b", real=True)
dx, dy, da, db = sp.symbols(r"\dot{x} \dot{y} \dot{a} \dot{b}", real=True)
ddx, ddy, dda, ddb = sp.symbols(r"\ddot{x} \ddot{y} \ddot{a} \ddot{b}", real=True)
#: Parameters: link length, masses, CoM distances, CoM inertias, end-effector mass.
l, m_a, r_a, I_a, m_b, r_b, I_b, m_e = sp.symbols("l m_a r_a I_a m_b r_b I_b m_e", positive=True)

Q = sp.Matrix([x, y, a, b])
DQ = sp.Matrix([dx, dy, da, db])
DDQ = sp.Matrix([ddx, ddy, dda, ddb])


def positions(end_effector: bool = False) -> dict:
    """Symbolic positions (2x1 matrices) of the active CoM ``p_a``, passive CoM ``p_b`` and tip ``p_e``."""
    pa = sp.Matrix([x + r_a * sp.cos(a), y + r_a * sp.sin(a)])
    pb = sp.Matrix([x + l * sp.cos(a) + r_b * sp.cos(a + b), y + l * sp.sin(a) + r_b * sp.sin(a + b)])
    pe = sp.Matrix([x + l * sp.cos(a) + l * sp.cos(a + b), y + l * sp.sin(a) + l * sp.sin(a + b)])
    return {"p_a": pa, "p_b": pb, "p_e": pe}


def _velocity(p: sp.Matrix) -> sp.Matrix:
    return p.jacobian(Q) * DQ


@lru_cache(maxsize=None)
def kinetic_energy(end_effector: bool = False) -> sp.Expr:
    """Kinetic energy ``T_i`` (= Lagrangian ``L_i``) of a subsystem; chain 1 has ``end_effector=True``."""
    p = positions()
    va, vb = _velocity(p["p_a"]), _velocity(p["p_b"])
    T = sp.Rational(1, 2) * (m_a * va.dot(va) + I_a * da**2 + m_b * vb.dot(vb) + I_b * (da + db) ** 2)
    if end_effector:
        ve = _velocity(p["p_e"])
        T += sp.Rational(1, 2) * m_e * ve.dot(ve)
    return sp.expand(T)


_TRIG = (sp.sin(a), sp.cos(a), sp.sin(a + b), sp.cos(a + b), sp.sin(b), sp.cos(b))


def _tidy(e: sp.Expr) -> sp.Expr:
    """Trigonometric simplification for display (slow: seconds per matrix)."""
    return sp.collect(sp.trigsimp(e), _TRIG)


@lru_cache(maxsize=None)
def mass_matrix(end_effector: bool = False, simplify: bool = False) -> sp.Matrix:
    """``M_i = d^2 T_i / d dq_i^2`` (4x4); ``simplify=True`` tidies it for display (takes seconds)."""
    M = sp.hessian(kinetic_energy(end_effector), list(DQ))
    return M.applyfunc(_tidy) if simplify else M


@lru_cache(maxsize=None)
def coriolis_matrix(end_effector: bool = False, simplify: bool = False) -> sp.Matrix:
    """Coriolis matrix ``C_i`` (4x4) from the Christoffel symbols of ``M_i``."""
    M = mass_matrix(end_effector, simplify)
    n = 4
    C = sp.zeros(n, n)
    for k in range(n):
        for j in range(n):
            C[k, j] = sum(
                sp.Rational(1, 2) * (sp.diff(M[k, j], Q[i]) + sp.diff(M[k, i], Q[j]) - sp.diff(M[i, j], Q[k])) * DQ[i]
                for i in range(n)
            )
    return C.applyfunc(_tidy) if simplify else C


def lagrange_euler_residual(end_effector: bool = False, simplify: bool = False) -> sp.Matrix:
    """``d/dt(dT/d dq) - dT/dq - (M ddq + C dq)`` (4x1), identically zero (a check of M and C).

    Unsimplified by default (check it numerically, or pass ``simplify=True``).
    """
    T = kinetic_energy(end_effector)
    p = sp.Matrix([sp.diff(T, v) for v in DQ])
    # total time derivative of a function of (q, dq)
    ddt = p.jacobian(Q) * DQ + p.jacobian(DQ) * DDQ
    lhs = ddt - sp.Matrix([sp.diff(T, v) for v in Q])
    res = lhs - mass_matrix(end_effector) * DDQ - coriolis_matrix(end_effector) * DQ
    return res.applyfunc(sp.simplify) if simplify else res


def closure_layer() -> tuple[sp.Matrix, sp.Matrix]:
    """Tip position ``E(q_i)`` (2x1) and its second-order form ``J ddq = -dJ/dt dq`` pieces ``(J, -dJ dq)``."""
    E = positions()["p_e"]
    J = E.jacobian(Q)
    bias = -(J * DQ).jacobian(Q) * DQ
    return J, bias.applyfunc(sp.simplify)


def constraint_layers() -> tuple[sp.Matrix, sp.Matrix, sp.Matrix, sp.Matrix, tuple, tuple]:
    """Both constraint layers of the assembled model in second-order form ``A ddq = b``.

    Coordinates ``q = (x_1, y_1, a_1, b_1, x_2, ..., b_3)`` (12 symbols, returned
    with their rates). Layer 1: ``E_1 - E_2 = 0``, ``E_1 - E_3 = 0`` (4 rows);
    layer 2: ``(x_i, y_i) - (A_ix, A_iy) = 0`` (6 rows, base symbols ``A_ix``,
    ``A_iy``). Returns ``(A1, b1, A2, b2, q, dq)`` with ``b = -d(A)/dt dq``.
    """
    q = sp.symbols("x_1 y_1 a_1 b_1 x_2 y_2 a_2 b_2 x_3 y_3 a_3 b_3", real=True)
    dq = sp.symbols(r"\dot{x}_1 \dot{y}_1 \dot{a}_1 \dot{b}_1 \dot{x}_2 \dot{y}_2 \dot{a}_2 \dot{b}_2 "
                    r"\dot{x}_3 \dot{y}_3 \dot{a}_3 \dot{b}_3", real=True)
    base = sp.symbols("A_1x A_1y A_2x A_2y A_3x A_3y", real=True)
    E = []
    for i in range(3):
        xi, yi, ai, bi = q[4 * i: 4 * i + 4]
        E.append(sp.Matrix([xi + l * sp.cos(ai) + l * sp.cos(ai + bi), yi + l * sp.sin(ai) + l * sp.sin(ai + bi)]))
    phi1 = sp.Matrix.vstack(E[0] - E[1], E[0] - E[2])
    phi2 = sp.Matrix([q[0] - base[0], q[1] - base[1], q[4] - base[2], q[5] - base[3], q[8] - base[4], q[9] - base[5]])
    Q12, DQ12 = sp.Matrix(q), sp.Matrix(dq)
    out = []
    for phi in (phi1, phi2):
        A = phi.jacobian(Q12)
        out += [A, (-(A * DQ12).jacobian(Q12) * DQ12).applyfunc(sp.expand)]
    return out[0], out[1], out[2], out[3], q, dq


#: Joint angles of the assembled robot (active a_i, relative passive b_i), i = 1, 2, 3.
A_ANGLES = sp.symbols("a_1 a_2 a_3", real=True)
B_ANGLES = sp.symbols("b_1 b_2 b_3", real=True)


def actuation_jacobian() -> sp.Matrix:
    """``J_a = d(a_1, a_2, a_3) / d(x, y)`` (3x2) with the active joints on the base, derived.

    Chain i's tip ``E = A_i + l e(a_i) + l e(a_i + b_i)`` gives
    ``dE = J_i (da_i, db_i)``; ``da_i`` is the first row of ``J_i^-1 dE``.
    Simplifies to ``(cos(a_i + b_i), sin(a_i + b_i)) / (l sin b_i)``.

    >>> actuation_jacobian()[0, :]
    Matrix([[cos(a_1 + b_1)/(l*sin(b_1)), sin(a_1 + b_1)/(l*sin(b_1))]])
    """
    rows = []
    for ai, bi in zip(A_ANGLES, B_ANGLES):
        E = sp.Matrix([l * sp.cos(ai) + l * sp.cos(ai + bi), l * sp.sin(ai) + l * sp.sin(ai + bi)])
        J = E.jacobian([ai, bi])
        det = sp.trigsimp(sp.expand_trig(J.det()))  # l^2 sin b
        rows.append(sp.Matrix([[J[1, 1], -J[0, 1]]]) / det)  # first row of J^-1 (2x2 adjugate)
    return sp.Matrix.vstack(*rows)


def preload_direction() -> sp.Matrix:
    """Unnormalised preload direction ``n`` (3x1): the cross product of the columns of :func:`actuation_jacobian`.

    Times ``l^2 sin b_1 sin b_2 sin b_3`` it is ``n_i = sin b_i sin(phi_k - phi_j)``
    (``(i, j, k)`` cyclic, ``phi_i = a_i + b_i``), so ``J_a^T n = 0``.

    >>> n = preload_direction(); Ja = actuation_jacobian()
    >>> (Ja.T * n).applyfunc(lambda e: sp.expand(sp.expand_trig(e))) == sp.zeros(2, 1)
    True
    >>> phi = [ai + bi for ai, bi in zip(A_ANGLES, B_ANGLES)]
    >>> sp.expand(sp.expand_trig(n[0] - sp.sin(B_ANGLES[0]) * sp.sin(phi[2] - phi[1])))
    0
    """
    Ja = actuation_jacobian()
    cross = Ja[:, 0].cross(Ja[:, 1])
    scale = l**2 * sp.sin(B_ANGLES[0]) * sp.sin(B_ANGLES[1]) * sp.sin(B_ANGLES[2])
    return (cross * scale).applyfunc(sp.cancel)


def parameter_values(robot, chain: int = 0) -> dict:
    """Map the parameter symbols to the numbers of a :class:`robolib.redundant.Robot` (chain 0 carries ``m_e``)."""
    return {l: robot.link_length, m_a: robot.active_mass, r_a: robot.active_com, I_a: robot.active_inertia,
            m_b: robot.passive_mass, r_b: robot.passive_com, I_b: robot.passive_inertia,
            m_e: robot.end_effector_mass if chain == 0 else 0.0}


@lru_cache(maxsize=None)
def _lambdified(end_effector: bool):
    params = (l, m_a, r_a, I_a, m_b, r_b, I_b, m_e)
    fM = sp.lambdify((tuple(Q), params), mass_matrix(end_effector), "numpy")
    fC = sp.lambdify((tuple(Q), tuple(DQ), params), coriolis_matrix(end_effector), "numpy")
    return params, fM, fC


def numeric_subsystem(robot, chain: int, qi, dqi) -> tuple[np.ndarray, np.ndarray]:
    """``(M_i, C_i)`` as float arrays (4, 4) evaluated from the sympy expressions.

    >>> from robolib import redundant
    >>> robot = redundant.load()
    >>> M, C = numeric_subsystem(robot, 1, [0.5, 0, 0.3, 1.2], [0, 0, 1.0, -0.5])
    >>> bool(np.allclose(M, redundant.subsystem_mass_matrix(robot, 1, [0.5, 0, 0.3, 1.2])))
    True
    """
    params, fM, fC = _lambdified(chain == 0)
    vals = parameter_values(robot, chain)
    pv = tuple(vals[s] for s in params)
    qi = tuple(float(v) for v in qi)
    dqi = tuple(float(v) for v in dqi)
    return np.array(fM(qi, pv), dtype=float), np.array(fC(qi, dqi, pv), dtype=float)


# ---- the chapter's displays: LaTeX of the derived matrices and the symbolic identities ---------------
#: Short symbols of the displays: ``s_a = sin a``, ``c_{ab} = cos(a + b)`` and so on.
s_a, c_a, s_ab, c_ab, s_b, c_b = sp.symbols("s_a c_a s_{ab} c_{ab} s_b c_b")
SHORT = {sp.sin(a + b): s_ab, sp.cos(a + b): c_ab, sp.sin(a): s_a, sp.cos(a): c_a, sp.sin(b): s_b, sp.cos(b): c_b}
#: Parameter symbols in the order of the numerical functions (:func:`parameter_tuple`).
PARAMETERS = (l, m_a, r_a, I_a, m_b, r_b, I_b, m_e)


def _coefficient_latex(c: sp.Expr) -> str:
    """LaTeX of one coefficient of ``T_i``, factored per trigonometric term and bracketed if a sum."""
    parts = sp.collect(sp.expand(c.subs(SHORT)), [s_a, c_a, s_ab, c_ab, s_b, c_b], evaluate=False)
    c = sp.Add(*[sp.factor(v) * k for k, v in parts.items()])
    return sp.latex(c) if not isinstance(c, sp.Add) else r"\left(" + sp.latex(c) + r"\right)"


@lru_cache(maxsize=None)
def lagrangian_latex(per_line: int = 1) -> str:
    r"""LaTeX (``aligned``) of the expanded Lagrangian ``L_i = T_i`` of chains 2 and 3, ``per_line`` terms a line.

    ``sin^2`` is replaced by ``1 - cos^2`` and ``cos a cos(a+b) + sin a sin(a+b)`` by
    ``cos b``, so the terms read as in a textbook.

    >>> tex = lagrangian_latex()
    >>> tex.startswith(r"\begin{aligned} L_i = T_i = ") and r"\dot{x}^{2}" in tex
    True
    """
    rates = [dx, dy, da, db]
    pairs = [r * s for k, r in enumerate(rates) for s in rates[k:]]
    sin2, cos2, sin12, cos12 = sp.sin(a), sp.cos(a), sp.sin(a + b), sp.cos(a + b)
    T = sp.expand(kinetic_energy(False).subs({sin2**2: 1 - cos2**2, sin12**2: 1 - cos12**2}))
    T = sp.expand(T.subs(cos2 * cos12, sp.cos(b) - sin2 * sin12))  # cos(a)cos(a+b)+sin(a)sin(a+b) = cos b
    coeffs = sp.collect(T, pairs, evaluate=False)
    terms = [_coefficient_latex(coeffs[p]) + r"\," + sp.latex(p) for p in pairs if p in coeffs]
    signed = [t if t.startswith("-") else "+ " + t for t in terms]  # explicit sign on every term
    signed[0] = signed[0].removeprefix("+ ")
    lines = [" ".join(signed[k:k + per_line]) for k in range(0, len(signed), per_line)]
    return r"\begin{aligned} L_i = T_i = {} & " + r"\\ & ".join(lines) + r"\end{aligned}"


def entries_latex(A: sp.Matrix, name: str, symmetric: bool = True) -> str:
    r"""LaTeX (``aligned``) lines ``name_jk = ...`` of the distinct non-zero entries of a 4x4 matrix.

    Entries with equal LaTeX share one line (``M_{11} = M_{22} = ...``); with
    ``symmetric`` only the upper triangle is listed.

    >>> entries_latex(sp.eye(4) * m_a, "M")
    '\\begin{aligned}M_{11} = M_{22} = M_{33} = M_{44} &= m_{a}\\end{aligned}'
    """
    seen: dict[str, list[str]] = {}
    for j in range(4):
        for k in range(j if symmetric else 0, 4):
            e = A[j, k].subs(SHORT)
            if e != 0:
                seen.setdefault(sp.latex(e), []).append(f"{name}_{{{j + 1}{k + 1}}}")
    return r"\begin{aligned}" + r"\\ ".join(" = ".join(v) + " &= " + t for t, v in seen.items()) + r"\end{aligned}"


def vanishes(m: sp.Matrix) -> bool:
    """True if every entry of ``m`` expands (trigonometric addition formulas) to zero.

    >>> vanishes(sp.Matrix([sp.sin(a + b) - sp.sin(a) * sp.cos(b) - sp.cos(a) * sp.sin(b)]))
    True
    """
    return m.applyfunc(lambda e: sp.expand(sp.expand_trig(e))) == sp.zeros(*m.shape)


@lru_cache(maxsize=None)
def end_effector_identity() -> tuple[bool, str]:
    """``(M_1 - M_2 == m_e J_e^T J_e symbolically, LaTeX of J_e and the identity)``; ``J_e = dp_e/dq_i`` (2x4)."""
    Je = positions()["p_e"].jacobian(Q)
    ok = (mass_matrix(True) - mass_matrix(False) - m_e * Je.T * Je).applyfunc(sp.expand) == sp.zeros(4, 4)
    return bool(ok), r"J_e = " + sp.latex(Je.subs(SHORT)) + r",\qquad M_1 = M_2 + m_e J_e^\top J_e"


@lru_cache(maxsize=None)
def closure_latex() -> tuple[bool, str]:
    """``(sympy's g_i equals the regrouped form, LaTeX of J_i and g_i)`` of one chain's closure layer.

    ``g_i = -dJ_i/dt dq_i = l (c_a da^2 + c_ab (da + db)^2, s_a da^2 + s_ab (da + db)^2)``.
    """
    J_tip, g_tip = closure_layer()
    g_short = l * sp.Matrix([c_a * da**2 + c_ab * (da + db) ** 2, s_a * da**2 + s_ab * (da + db) ** 2])
    ok = (g_tip.subs(SHORT) - g_short).applyfunc(sp.expand) == sp.zeros(2, 1)
    return bool(ok), r"J_i = " + sp.latex(J_tip.subs(SHORT)) + r",\qquad g_i = " + sp.latex(g_short)


def lami_direction() -> sp.Matrix:
    """``n_i = sin b_i sin(phi_k - phi_j)`` (3x1, ``(i, j, k)`` cyclic, ``phi_i = a_i + b_i``): Lami's theorem."""
    phi = [ai + bi for ai, bi in zip(A_ANGLES, B_ANGLES)]
    return sp.Matrix([sp.sin(B_ANGLES[i]) * sp.sin(phi[(i + 2) % 3] - phi[(i + 1) % 3]) for i in range(3)])


@lru_cache(maxsize=None)
def preload_identities() -> tuple[bool, bool, str]:
    """``(J_a^T n == 0, n == Lami's n, LaTeX of J_a and n)``, both identities checked symbolically.

    The LaTeX writes ``phi_i`` for ``a_i + b_i``.
    """
    Ja, n, lami = actuation_jacobian(), preload_direction(), lami_direction()
    vphi = sp.symbols(r"\varphi_1 \varphi_2 \varphi_3")
    show = {A_ANGLES[i] + B_ANGLES[i]: vphi[i] for i in range(3)}
    tex = (r"J_a = " + sp.latex(Ja.subs(show)) + r",\qquad n \propto "
           + sp.latex(lami.subs({A_ANGLES[i]: vphi[i] - B_ANGLES[i] for i in range(3)})))
    return vanishes(Ja.T * n), vanishes(n - lami), tex


def displays() -> dict[str, str]:
    """Every LaTeX display of the derivation chapter by name (cached; the first call takes ~15 s).

    ``lagrangian``, ``mass_matrix`` and ``coriolis`` (chains 2 and 3, distinct
    entries), ``tip_jacobian`` (``J_e``, ``M_1 = M_2 + m_e J_e^T J_e``),
    ``closure`` (``J_i``, ``g_i``) and ``actuation`` (``J_a``, ``n``).
    """
    if not closure_latex()[0]:
        raise RuntimeError("the regrouped g_i of closure_latex differs from sympy's -dJ_i/dt dq_i")
    return {"lagrangian": lagrangian_latex(),
            "mass_matrix": entries_latex(mass_matrix(False, simplify=True), "M"),
            "coriolis": entries_latex(coriolis_matrix(False, simplify=True), "C", symmetric=False),
            "tip_jacobian": end_effector_identity()[1], "closure": closure_latex()[1],
            "actuation": preload_identities()[2]}


# ---- numerical functions of the sympy expressions (lambdified once) ---------------------------------
def parameter_tuple(robot, chain: int = 0) -> tuple:
    """The numbers of :data:`PARAMETERS` for chain ``chain`` of ``robot`` (chain 0 carries ``m_e``)."""
    vals = parameter_values(robot, chain)
    return tuple(vals[s] for s in PARAMETERS)


@lru_cache(maxsize=None)
def residual_function(end_effector: bool):
    """``f(q_i, dq_i, ddq_i, parameter_tuple) -> (4, 1)`` numerical Lagrange–Euler residual of the sympy M_i, C_i."""
    return sp.lambdify((tuple(Q), tuple(DQ), tuple(DDQ), PARAMETERS), lagrange_euler_residual(end_effector), "numpy")


@lru_cache(maxsize=None)
def layers_function():
    """``f(q (12,), dq (12,), l) -> [A1 (4, 12), b1 (4, 1), A2 (6, 12), b2 (6, 1)]`` from :func:`constraint_layers`."""
    A1, b1, A2, b2, q, dq = constraint_layers()
    return sp.lambdify((q, dq, l), [A1, b1, A2, b2], "numpy")


@lru_cache(maxsize=None)
def preload_function():
    """``f(a (3,), b (3,)) -> (3, 1)`` numerical (unnormalised) :func:`preload_direction`."""
    return sp.lambdify((A_ANGLES, B_ANGLES), preload_direction(), "numpy")


__all__ = ["positions", "kinetic_energy", "mass_matrix", "coriolis_matrix", "lagrange_euler_residual",
           "closure_layer", "constraint_layers", "parameter_values", "numeric_subsystem", "A_ANGLES", "B_ANGLES",
           "actuation_jacobian", "preload_direction", "SHORT", "PARAMETERS", "lagrangian_latex", "entries_latex",
           "vanishes", "end_effector_identity", "closure_latex", "lami_direction", "preload_identities", "displays",
           "parameter_tuple", "residual_function", "layers_function", "preload_function"]
