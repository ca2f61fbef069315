"""The sympy derivation of the redundant robot (robolib.redundant.symbolic)."""

import numpy as np
import pytest

from robolib import redundant as R

# ==== the sympy derivation equals the numeric kernels ===============================================================

ROBOT = R.load("redundant/default.yaml")


@pytest.fixture(autouse=True)
def seeded_sympy():
    """sympy's factorisation (Wang's algorithm, inside ``trigsimp``) draws random evaluation points from sympy's own
    unseeded generator; an unlucky draw took over ten minutes in one suite run instead of seconds. Seeded, each test
    takes the same path, and time, in every run."""
    from sympy.core.random import seed

    seed(20261206)


ACTIVE = [2, 6, 10]


def random_states(seed, n=6, speed=0.3):
    """Assembled (q, dq) at random end-effector points near the centroid, random velocities, torques."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        p = ROBOT.centroid + rng.uniform(-0.08, 0.08, 2)
        q, dq = R.initial_state(ROBOT, p, rng.standard_normal(2) * speed)
        out.append((q, dq, rng.standard_normal(3) * 0.2))
    return out


@pytest.mark.slow
def test_sympy_derivation_equals_numeric_kernels():
    from robolib.redundant import symbolic as S

    rng = np.random.default_rng(11)
    # Lagrange-Euler with the derived M_i, C_i reproduces d/dt dT/d(dq) - dT/dq (numerically, random points)
    for ee in (False, True):
        res = S.lagrange_euler_residual(ee)
        syms = list(S.Q) + list(S.DQ) + list(S.DDQ)
        f = S.sp.lambdify((syms, tuple(S.parameter_values(ROBOT).keys())), res, "numpy")
        for _ in range(3):
            r = np.array(f(rng.standard_normal(12), tuple(S.parameter_values(ROBOT, 0 if ee else 1).values())), dtype=float)
            assert np.abs(r).max() < 1e-13
    for chain in range(3):
        for _ in range(3):
            qi, dqi = rng.standard_normal(4), rng.standard_normal(4)
            Ms, Cs = S.numeric_subsystem(ROBOT, chain, qi, dqi)
            assert np.abs(Ms - R.subsystem_mass_matrix(ROBOT, chain, qi)).max() < 1e-14
            assert np.abs(Cs - R.subsystem_coriolis_matrix(ROBOT, chain, qi, dqi)).max() < 1e-14
    # the tidied (display) forms the derivation notebook prints are the same functions
    syms = (tuple(S.Q), tuple(S.DQ), tuple(S.parameter_values(ROBOT).keys()))
    pv = tuple(S.parameter_values(ROBOT, 0).values())
    for name in ("mass_matrix", "coriolis_matrix"):
        raw = S.sp.lambdify(syms, getattr(S, name)(True), "numpy")
        tidy = S.sp.lambdify(syms, getattr(S, name)(True, simplify=True), "numpy")
        for _ in range(3):
            qi, dqi = rng.standard_normal(4), rng.standard_normal(4)
            assert np.abs(np.array(raw(qi, dqi, pv), dtype=float) - np.array(tidy(qi, dqi, pv), dtype=float)).max() < 1e-14
    # the two constraint layers in second-order form equal the numeric A1, b1, A2, b2
    A1, b1, A2, b2, qs, dqs = S.constraint_layers()
    f = S.sp.lambdify((qs, dqs, S.l), [A1, b1, A2, b2], "numpy")
    for q, dq, _ in random_states(12, n=3):
        A1n, b1n, A2n, b2n = (np.array(x, dtype=float) for x in f(q, dq, ROBOT.link_length))
        _, _, A1r, b1r = R.closure_constraints(ROBOT, q, dq)
        _, _, A2r, b2r = R.base_constraints(ROBOT, q, dq)
        assert np.abs(A1n - A1r).max() < 1e-14 and np.abs(b1n.ravel() - b1r).max() < 1e-13
        assert np.abs(A2n - A2r).max() == 0 and np.abs(b2n.ravel() - b2r).max() == 0


def test_symbolic_preload_direction_matches_numeric():
    import sympy as sp

    from robolib.redundant import symbolic as S

    n_sym = S.preload_direction()
    f = sp.lambdify((S.A_ANGLES, S.B_ANGLES), n_sym, "numpy")
    q, _, _ = R.reference_motion(ROBOT, np.linspace(0, 2, 7))
    for qk in q:
        v = np.asarray(f(qk[ACTIVE], qk[[3, 7, 11]]), dtype=float).ravel()
        v = v / np.linalg.norm(v) * np.sign(v.sum())
        assert np.allclose(v, R.preload_direction(ROBOT, qk), atol=1e-12)
