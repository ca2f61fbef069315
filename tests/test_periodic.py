"""Periodic orbits by shooting (robolib.core.periodic) against independent answers.

* the damped linear oscillator under harmonic forcing: orbit and multipliers in closed form
  (the steady-state phasor; exp(lambda T) of the eigenvalues), by finite differences and by the
  variational equations;
* maps with known fixed points and multipliers: the logistic map (period doubling at r = 3 and, on the
  period-2 branch, at 1 + sqrt(6)), the quadratic map x^2 + c (fold at c = 1/4, doubling at -3/4), the
  Henon map (fixed point, multipliers, doubling at a = 3 (1 - b)^2 / 4), the delayed logistic map
  (Neimark-Sacker at r = 2);
* the forced Duffing oscillator integrated by scipy's solve_ivp: shooting = long-time simulation,
  Liouville's det M = exp(-delta T), ln|mu|/T = the time-series Lyapunov exponent of robolib.core.nonlinear,
  a located period doubling confirmed by brute-force period tests on both sides;
* a soft-impact oscillator (Hertz wall k delta^1.5): shooting = simulation, Liouville, FD = variational;
* failures: named reasons, never a silent wrong result; bad arguments named.
"""

import math
import pickle
from types import SimpleNamespace

import numpy as np
import pytest
from fuzzing import entry_point_tests
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from robolib import ConvergenceError, ParameterError
from robolib import nonlinear as N
from robolib.core import continuation as CO
from robolib.core import periodic as PO

RTOL = 1e-10  # integration tolerance of the ODE return maps
FD = PO.difference_step(RTOL)  # central-difference step matched to the integration noise


def logistic(r):
    return lambda x: r * x * (1.0 - x)


# --------------------------------------------------------------------------- linear oscillator, closed form
W0, ZETA, FORCE, OMEGA = 1.0, 0.1, 1.0, 1.3
A_LIN = np.array([[0.0, 1.0], [-W0**2, -2 * ZETA * W0]])


def linear_map(variational=False):
    T = 2 * np.pi / OMEGA

    def rhs(t, y):
        dy = A_LIN @ y[:2] + np.array([0.0, FORCE * np.cos(OMEGA * t)])
        if not variational:
            return dy
        return np.concatenate([dy, (A_LIN @ y[2:].reshape(2, 2)).ravel()])

    def P(x):
        y0 = np.concatenate([x, np.eye(2).ravel()]) if variational else x
        y = solve_ivp(rhs, (0.0, T), y0, method="DOP853", rtol=RTOL, atol=RTOL * 1e-2).y[:, -1]
        return (y[:2], y[2:].reshape(2, 2)) if variational else y

    return P, T


@pytest.mark.parametrize("variational", [False, True])
def test_linear_oscillator_orbit_and_multipliers_in_closed_form(variational):
    P, T = linear_map(variational)
    X = FORCE / (W0**2 - OMEGA**2 + 2j * ZETA * W0 * OMEGA)  # steady state x(t) = Re(X e^{i omega t})
    x_exact = np.array([X.real, -OMEGA * X.imag])
    lam = np.linalg.eigvals(A_LIN)
    mu_exact = np.exp(lam * T)
    o = PO.periodic_orbit(P, [2.0, -1.0], tol=1e-9, step=FD, variational=variational, period=T)
    assert o.converged and o.iterations <= 2  # G is affine: one Newton step, at most one more for the noise
    assert np.max(np.abs(o.x - x_exact)) < 1e-8
    mu = o.multipliers
    assert np.all(np.abs(np.sort_complex(mu) - np.sort_complex(mu_exact)) < (1e-9 if variational else 1e-6))
    assert o.stable and o.lyapunov == pytest.approx(-ZETA * W0, abs=1e-6)
    # the orbit's points and one more return close the orbit
    assert np.max(np.abs(PO.orbit_points(lambda x: P(x)[0] if variational else P(x), o.x, 2)[1] - o.x)) < 1e-9
    # evaluations counted: variational 1 per Newton iteration (+1 initial), FD 2n + 1 per iteration
    per = 1 if variational else 5
    assert o.evaluations == 1 + per * o.iterations + (0 if variational else 4)


# --------------------------------------------------------------------------- maps with known answers
def assert_located(bif, exact, span):
    """A bifurcation bracketed to the stated accuracy, the exact value inside the bracket to within the error of
    the test function (a finite-difference monodromy at an orbit converged to 1e-10: ~1e-11 here)."""
    lo, hi = bif.bracket
    assert bif.accuracy == pytest.approx(CO.BIFURCATION_REL_TOL * span)
    assert hi - lo <= bif.accuracy and lo - 1e-9 <= exact <= hi + 1e-9 and lo <= bif.parameter <= hi


def test_logistic_fixed_point_multiplier_and_lyapunov():
    for r in (1.5, 2.8, 3.3):
        o = PO.periodic_orbit(logistic(r), [0.5], period=1.0)
        err = abs(o.x[0] - (1 - 1 / r))
        assert o.residual <= PO.SHOOTING_TOL and err <= 1.01 * o.error_estimate + 1e-15 and err < 1e-10
        assert o.multipliers[0] == pytest.approx(2 - r, abs=1e-9)
        assert o.stable == (abs(2 - r) < 1) and o.stability == ("stable" if abs(2 - r) < 1 else "unstable")
        assert o.lyapunov == pytest.approx(math.log(abs(2 - r)), abs=1e-8)
    assert PO.periodic_orbit(logistic(2.0), [0.4], period=1.0).lyapunov == -math.inf  # superstable, mu = 0


def test_logistic_period_doublings_at_3_and_1_plus_sqrt6():
    b1 = CO.continue_orbits(lambda r: logistic(r), [0.6], 2.5, 3.2, 0.05)
    assert b1.stop_reason == "reached p1 = 3.2"
    (pd,) = b1.bifurcations
    acc = CO.BIFURCATION_REL_TOL * (3.2 - 2.5)
    assert pd.kind == "period-doubling" and abs(pd.parameter - 3.0) <= acc
    assert pd.bracket[1] - pd.bracket[0] <= acc and pd.bracket[0] - acc <= 3.0 <= pd.bracket[1] + acc
    assert np.all(b1.stable == (np.abs(2 - b1.parameters) < 1 - PO.STABILITY_MARGIN))
    assert np.allclose(b1.points[:, 0], 1 - 1 / b1.parameters, atol=1e-10)
    # the period-2 branch born there, from x* +- h v, continued to its own doubling at 1 + sqrt(6)
    o2 = PO.period_doubling_start(logistic(3.2), b1.orbits[-1], h=0.1, period=1.0)
    r = 3.2
    exact = np.sort([(r + 1 + s * math.sqrt((r + 1) * (r - 3))) / (2 * r) for s in (-1, 1)])
    assert np.allclose(np.sort(o2.points[:, 0]), exact, atol=1e-10) and o2.minimal_period == 2
    # exponent per iteration: ln |f'(x1) f'(x2)| / 2 = ln |-r^2 + 2r + 4| / 2
    assert o2.lyapunov == pytest.approx(math.log(abs(-r * r + 2 * r + 4)) / 2, abs=1e-8)
    b2 = CO.continue_orbits(lambda r: logistic(r), o2.x, 3.2, 3.5, 0.05, k=2)
    (pd2,) = b2.of_kind("period-doubling")
    assert_located(pd2, 1 + math.sqrt(6), 0.3)
    rr = b2.parameters
    assert np.allclose(b2.multipliers[:, 0].real, -rr**2 + 2 * rr + 4, atol=1e-8)


def test_multiplier_through_plus_one_with_the_branch_going_on_is_a_branch_point():
    # x = 0 is a fixed point of the logistic map for every r, with mu = r: transcritical at r = 1
    b = CO.continue_orbits(lambda r: logistic(r), [0.0], 0.5, 1.5, 0.15)
    (bp,) = b.bifurcations
    assert bp.kind == "fold" and not bp.ends_branch and "branch point" in bp.note
    assert b.stop_reason == "reached p1 = 1.5"
    assert_located(bp, 1.0, 1.0)
    assert np.allclose(b.points, 0.0, atol=1e-12) and np.allclose(b.multipliers[:, 0].real, b.parameters)


def test_quadratic_map_fold_ends_branch_and_doubling_located():
    quad = lambda c: (lambda x: x * x + c)  # noqa: E731  fixed points (1 -+ sqrt(1 - 4c)) / 2, mu = 2x
    b = CO.continue_orbits(quad, [0.0], 0.0, 0.5, 0.02)
    assert b.stop_reason.startswith("fold at p =")
    (fold,) = b.bifurcations
    assert fold.kind == "fold" and fold.ends_branch
    acc = CO.BIFURCATION_REL_TOL * 0.5
    assert fold.bracket[0] <= 0.25 + 1e-15 <= fold.bracket[1] and fold.bracket[1] - fold.bracket[0] <= acc
    assert b.parameters[-1] <= 0.25 + 1e-15 and np.all(b.stable[:-1])
    assert abs(b.multipliers[-1, 0] - 1) < 1e-3 and b.orbits[-1].stability == "marginal"
    # downward: the stable fixed point doubles at c = -3/4 (mu = -1)
    bd = CO.continue_orbits(quad, [0.0], 0.0, -1.0, 0.1)
    (pd,) = bd.bifurcations
    assert pd.kind == "period-doubling"
    assert_located(pd, -0.75, 1.0)
    assert bd.stop_reason == "reached p1 = -1"


def henon(a, b=0.3):
    return lambda x: np.array([1.0 - a * x[0] ** 2 + x[1], b * x[0]])


def test_henon_fixed_point_multipliers_and_doubling():
    a, b = 1.4, 0.3
    xs = (-(1 - b) + math.sqrt((1 - b) ** 2 + 4 * a)) / (2 * a)
    o = PO.periodic_orbit(henon(a, b), [0.5, 0.1])
    assert np.allclose(o.x, [xs, b * xs], atol=1e-12)
    mu_exact = np.roots([1.0, 2 * a * xs, -b])  # det(mu I - J), J = [[-2 a x, 1], [b, 0]]
    assert np.allclose(np.sort(o.multipliers.real), np.sort(mu_exact), atol=1e-9)
    assert abs(np.prod(o.multipliers) + b) < 1e-9  # det J = -b everywhere
    # forward differences: accurate to ~sqrt(eps), central to ~eps^(2/3)
    J = np.array([[-2 * a * xs, 1.0], [b, 0.0]])
    err_c = np.max(np.abs(PO.monodromy(henon(a, b), o.x) - J))
    err_f = np.max(np.abs(PO.monodromy(henon(a, b), o.x, scheme="forward") - J))
    assert err_c < 1e-9 and err_f < 1e-6
    # k = 3: chain rule over the orbit points equals the product of the exact Jacobians
    pts = PO.orbit_points(henon(a, b), [0.1, 0.2], 3)
    Jx = lambda p: np.array([[-2 * a * p[0], 1.0], [b, 0.0]])  # noqa: E731
    assert np.allclose(PO.monodromy(henon(a, b), [0.1, 0.2], k=3), Jx(pts[2]) @ Jx(pts[1]) @ Jx(pts[0]), atol=1e-9)
    br = CO.continue_orbits(lambda a: henon(a, b), [0.6, 0.18], 0.2, 0.5, 0.05)
    (pd,) = br.bifurcations
    assert pd.kind == "period-doubling"
    assert_located(pd, 3 * (1 - b) ** 2 / 4, 0.3)


def test_broyden_updates_find_the_same_orbits_and_bifurcation_with_fewer_evaluations():
    b = 0.3
    runs = {u: CO.continue_orbits(lambda a: henon(a, b), [0.6, 0.18], 0.2, 0.5, 0.05, update=u)
            for u in ("newton", "broyden")}
    for br in runs.values():
        (pd,) = br.bifurcations
        assert_located(pd, 3 * (1 - b) ** 2 / 4, 0.3)
    assert np.allclose(runs["newton"].points, runs["broyden"].points, atol=1e-9)
    assert np.allclose(runs["newton"].multipliers, runs["broyden"].multipliers, atol=1e-8)
    assert runs["broyden"].evaluations < 0.8 * runs["newton"].evaluations
    # one shooting problem on the Duffing map, Broyden from the monodromy of a neighbouring orbit
    o_near = PO.periodic_orbit(duffing_map(0.21, True), [0.57, 0.41], tol=1e-9, variational=True)
    on = PO.periodic_orbit(duffing_map(0.2), o_near.x, tol=1e-9, step=FD)
    ob = PO.periodic_orbit(duffing_map(0.2), o_near.x, tol=1e-9, step=FD, update="broyden", M0=o_near.monodromy)
    assert np.max(np.abs(ob.x - on.x)) < 1e-8 and np.max(np.abs(ob.monodromy - on.monodromy)) < 1e-5
    assert ob.evaluations < on.evaluations


def test_delayed_logistic_neimark_sacker_at_r_equal_2():
    # x' = r x (1 - y), y' = x: fixed point 1 - 1/r, multipliers of mu^2 - mu + (r - 1) = 0, |mu|^2 = r - 1
    dl = lambda r: (lambda z: np.array([r * z[0] * (1 - z[1]), z[0]]))  # noqa: E731
    br = CO.continue_orbits(dl, [0.4, 0.4], 1.6, 2.2, 0.1)
    (ns,) = br.bifurcations
    assert ns.kind == "Neimark-Sacker"
    assert_located(ns, 2.0, 0.6)
    assert np.allclose(np.abs(br.multipliers[:, 0]) ** 2, br.parameters - 1, atol=1e-9)
    assert np.all(br.stable == (br.parameters < 2.0))


# --------------------------------------------------------------------------- forced Duffing oscillator
DELTA, ALPHA, BETA, W_D = 0.3, -1.0, 1.0, 1.2
T_D = 2 * np.pi / W_D


def duffing_rhs(gamma):
    def f(t, y):
        x, v = y[0], y[1]
        return [v, gamma * math.cos(W_D * t) - DELTA * v - ALPHA * x - BETA * x * x * x]

    return f


def duffing_map(gamma, variational=False):
    f = duffing_rhs(gamma)

    def fv(t, y):  # state and Phi' = J Phi, J = [[0, 1], [-alpha - 3 beta x^2, -delta]], Phi row-major
        x, v, a, b, c, d = y
        k = -ALPHA - 3 * BETA * x * x
        return [v, gamma * math.cos(W_D * t) - DELTA * v - ALPHA * x - BETA * x * x * x, c, d,
                k * a - DELTA * c, k * b - DELTA * d]

    def P(x):
        if variational:
            y = solve_ivp(fv, (0, T_D), np.concatenate([x, np.eye(2).ravel()]), method="DOP853", rtol=RTOL,
                          atol=RTOL * 1e-2).y[:, -1]
            return y[:2], y[2:].reshape(2, 2)
        return solve_ivp(f, (0, T_D), x, method="DOP853", rtol=RTOL, atol=RTOL * 1e-2).y[:, -1]

    return P


def duffing_strobe(gamma, x0, n_periods):
    """Stroboscopic samples (n + 1, 2) of one long simulation (not through the return map)."""
    s = solve_ivp(duffing_rhs(gamma), (0, n_periods * T_D), x0, method="DOP853", rtol=RTOL, atol=RTOL * 1e-2,
                  t_eval=np.arange(n_periods + 1) * T_D)
    return s.y.T


@pytest.fixture(scope="module")
def duffing_orbit():
    return PO.periodic_orbit(duffing_map(0.2), [1.0, 0.0], tol=1e-9, step=FD, period=T_D)


def test_duffing_orbit_equals_long_time_simulation(duffing_orbit):
    o = duffing_orbit
    assert o.converged and o.residual <= 1e-9 and o.iterations >= 2  # a real Newton search from (1, 0)
    samples = duffing_strobe(0.2, [1.0, 0.0], 60)  # |mu| = 0.46: 60 periods leave ~1e-20 of the transient
    assert np.max(np.abs(samples[-1] - o.x)) < 1e-8
    # Liouville: det M = exp(-delta T); a complex pair, so |mu| = exp(-delta T / 2) and lambda = -delta / 2
    assert np.linalg.det(o.monodromy) == pytest.approx(math.exp(-DELTA * T_D), rel=1e-5)  # FD of an integrated map
    assert np.all(np.abs(o.multipliers.imag) > 0.1) and o.lyapunov == pytest.approx(-DELTA / 2, abs=1e-6)
    # the variational route gives the same orbit and monodromy
    ov = PO.periodic_orbit(duffing_map(0.2, True), [1.0, 0.0], tol=1e-9, variational=True)
    assert np.max(np.abs(ov.x - o.x)) < 1e-9 and np.max(np.abs(ov.monodromy - o.monodromy)) < 1e-6
    assert ov.evaluations < o.evaluations / 3


def test_duffing_floquet_exponent_equals_time_series_lyapunov(duffing_orbit):
    f = duffing_rhs(0.2)

    def flow(y, t0, t1):
        return solve_ivp(f, (t0, t1), y, method="DOP853", rtol=RTOL, atol=RTOL * 1e-2).y[:, -1]

    r = N.largest_lyapunov(flow, duffing_orbit.x, tau=T_D, n_renorm=40, d0=1e-6, seed=0)
    assert np.isfinite(r.uncertainty) and r.uncertainty < 0.02
    assert abs(r.exponent - duffing_orbit.lyapunov) <= 2 * r.uncertainty


def test_duffing_period_doubling_located_and_confirmed_by_period_tests():
    br = CO.continue_orbits(lambda g: (duffing_map(g, True), T_D), [0.57, 0.41], 0.20, 0.28, 0.02, tol=1e-9,
                            variational=True)
    assert br.stop_reason == "reached p1 = 0.28"
    (pd,) = br.bifurcations
    acc = CO.BIFURCATION_REL_TOL * 0.08
    assert pd.kind == "period-doubling" and 0.25 < pd.parameter < 0.27 and pd.bracket[1] - pd.bracket[0] <= acc
    # independent: finite-difference shooting either side of the located value, just beyond the accuracy
    mu_nearest = []
    for g in (pd.parameter - 10 * acc, pd.parameter + 10 * acc):
        o = PO.periodic_orbit(duffing_map(g), pd.orbit.x, tol=1e-9, step=FD)
        mu_nearest.append(o.multipliers[np.argmin(np.abs(o.multipliers + 1))].real)
    assert mu_nearest[0] > -1 > mu_nearest[1]
    # brute force: long simulations from near the period-1 orbit read period 1 before and period 2 after
    samples = {k: duffing_strobe(pd.parameter + dg, pd.orbit.x + 1e-3, 64)[-16:] for k, dg in ((1, -0.01), (2, 0.01))}
    assert N.period_k(samples[1], 1e-6) == 1 and N.period_k(samples[2], 1e-6) == 2
    # the period-2 orbit born there (variational route): its points are the brute-force period-2 samples
    P2 = duffing_map(pd.parameter + 0.01, True)
    o1 = PO.periodic_orbit(P2, pd.orbit.x, tol=1e-9, variational=True)
    o2 = PO.period_doubling_start(P2, o1, h=0.05, tol=1e-9, variational=True)
    last = samples[2][-2:]
    dist = min(np.max(np.abs(last - o2.points)), np.max(np.abs(last[::-1] - o2.points)))
    assert o2.stable and o2.minimal_period == 2 and dist < 1e-6


# --------------------------------------------------------------------------- soft-impact oscillator
Z_S, GAP, K_HERTZ, F_S, W_S = 0.05, 1.0, 50.0, 0.3, 0.9
T_S = 2 * np.pi / W_S


def soft_impact(variational=False):
    """x'' + 2 zeta x' + x + k max(x - gap, 0)^1.5 = F cos(omega t): a compliant wall, C1 force."""
    def f(t, y):
        x, v = y[0], y[1]
        pen = max(x - GAP, 0.0)
        root = math.sqrt(pen)
        dy = [v, F_S * math.cos(W_S * t) - 2 * Z_S * v - x - K_HERTZ * pen * root]
        if not variational:
            return dy
        k = -1.0 - 1.5 * K_HERTZ * root  # Phi' = J Phi, J = [[0, 1], [k, -2 zeta]], Phi row-major
        return dy + [y[4], y[5], k * y[2] - 2 * Z_S * y[4], k * y[3] - 2 * Z_S * y[5]]

    def P(x):
        y0 = np.concatenate([x, np.eye(2).ravel()]) if variational else x
        y = solve_ivp(f, (0, T_S), y0, method="DOP853", rtol=RTOL, atol=RTOL * 1e-2).y[:, -1]
        return (y[:2], y[2:].reshape(2, 2)) if variational else y

    return f, P


def test_soft_impact_orbit_simulation_liouville_and_variational():
    f, P = soft_impact()
    o = PO.periodic_orbit(P, [0.5, 0.0], tol=1e-9, step=FD, period=T_S)
    assert o.converged and o.iterations >= 2
    s = solve_ivp(f, (0, T_S), o.x, method="DOP853", rtol=RTOL, atol=RTOL * 1e-2, dense_output=True)
    assert s.sol(np.linspace(0, T_S, 2001))[0].max() > GAP + 0.03  # the orbit does hit the wall
    samples = solve_ivp(f, (0, 60 * T_S), [0.5, 0.0], method="DOP853", rtol=RTOL, atol=RTOL * 1e-2,
                        t_eval=[60 * T_S]).y[:, -1]  # |mu| = 0.71: 60 periods leave ~1e-9
    assert np.max(np.abs(samples - o.x)) < 1e-7
    # the Hertz force is conservative: det M = exp(-2 zeta T) as without the wall
    assert np.linalg.det(o.monodromy) == pytest.approx(math.exp(-2 * Z_S * T_S), rel=1e-5)
    ov = PO.periodic_orbit(soft_impact(True)[1], o.x, tol=1e-9, variational=True)
    assert np.max(np.abs(ov.x - o.x)) < 1e-8 and np.max(np.abs(ov.monodromy - o.monodromy)) < 1e-5
    assert np.linalg.det(ov.monodromy) == pytest.approx(math.exp(-2 * Z_S * T_S), rel=1e-8)


# --------------------------------------------------------------------------- failures and bad input
def test_failures_name_their_reason():
    with pytest.raises(PO.ShootingError, match=r"\(singular\)") as e:
        PO.periodic_orbit(lambda x: (x + 1.0, np.eye(2)), [0.0, 0.0], variational=True)
    assert e.value.reason == "singular" and isinstance(e.value, ConvergenceError)
    again = pickle.loads(pickle.dumps(e.value))  # crosses process boundaries (joblib, Dask) intact
    assert again.reason == "singular" and str(again) == str(e.value)
    # x^2 + 1 has no real fixed point (G >= 3/4): Newton stalls, named
    with pytest.raises(PO.ShootingError) as e:
        PO.periodic_orbit(lambda x: x * x + 1.0, [3.0])
    assert e.value.reason in ("no decrease", "singular") and "residual 0.75" in str(e.value)
    # a far guess for the Duffing map, with a small iteration budget
    with pytest.raises(ConvergenceError, match="max_iter = 2"):
        PO.periodic_orbit(duffing_map(0.2), [2.5, -2.0], tol=1e-9, step=FD, max_iter=2)
    # a map that blows up
    with pytest.raises(PO.ShootingError, match="non-finite") as e:
        PO.periodic_orbit(lambda x: np.exp(np.minimum(x, 1e3)) * np.inf, [1.0])
    assert e.value.reason == "non-finite"
    # strict=False returns the failure, converged False, never a wrong orbit
    o = PO.periodic_orbit(lambda x: x * x + 1.0, [3.0], strict=False)
    assert not o.converged and o.reason.startswith("shooting failed") and not o.stable
    # a period-2 start where there is no doubling
    o1 = PO.periodic_orbit(logistic(2.2), [0.5])  # mu = -0.2
    with pytest.raises(ParameterError, match="PD_NEAR"):
        PO.period_doubling_start(logistic(2.2), o1)
    # continuation that cannot start, and one whose Newton fails on the way
    with pytest.raises(PO.ShootingError, match="continuation start"):
        CO.continue_orbits(lambda c: (lambda x: x * x + c), [3.0], 1.0, 2.0, 0.1)


def test_bad_arguments_are_named():
    P = logistic(2.5)
    cases = [
        (lambda: PO.periodic_orbit(P, [[0.5]]), "x0"),
        (lambda: PO.periodic_orbit(P, [float("nan")]), "x0"),
        (lambda: PO.periodic_orbit(P, [0.5], k=0), "k"),
        (lambda: PO.periodic_orbit(P, [0.5], tol=0.0), "tol"),
        (lambda: PO.periodic_orbit(P, [0.5], max_iter=-1), "max_iter"),
        (lambda: PO.periodic_orbit(P, [0.5], step=2.0), "step"),
        (lambda: PO.periodic_orbit(P, [0.5], scheme="backward"), "scheme"),
        (lambda: PO.periodic_orbit(P, [0.5], scale=[1.0, 2.0]), "scale"),
        (lambda: PO.periodic_orbit(P, [0.5], period=-1.0), "period"),
        (lambda: PO.periodic_orbit(P, [0.5], update="secant"), "update"),
        (lambda: PO.periodic_orbit(P, [0.5], update="broyden", M0=np.eye(2)), "M0"),
        (lambda: PO.periodic_orbit(lambda x: np.ones(3), [0.5]), "shape"),
        (lambda: PO.periodic_orbit(lambda x: "x", [0.5]), "real numbers"),
        (lambda: PO.periodic_orbit(P, [0.5], variational=True), "variational"),
        (lambda: PO.periodic_orbit("P", [0.5]), "callable"),
        (lambda: PO.floquet_multipliers(np.ones((2, 3))), "square"),
        (lambda: PO.monodromy(P, [0.5], k=1.5), "k"),
        (lambda: CO.continue_orbits(lambda r: 3, [0.6], 2.5, 3.0, 0.1), "map_at"),
        (lambda: CO.continue_orbits(lambda r: logistic(r), [0.6], 2.5, 2.5, 0.1), "p1"),
        (lambda: CO.continue_orbits(lambda r: logistic(r), [0.6], 2.5, 3.0, -0.1), "ds"),
        (lambda: CO.continue_orbits(lambda r: logistic(r), [0.6], 2.5, 3.0, 0.1, period=1.0), "period"),
        (lambda: PO.difference_step(0.0), "noise"),
    ]
    for call, name in cases:
        with pytest.raises(ParameterError, match=name):
            call()


def logistic_1d(r):
    return lambda x: np.array([r * x[0] * (1.0 - x[0])])  # a map of R^1 only: a wrong x0 shape is refused


#: An optional positive number (None = the default is valid): NaN, inf, text, bool, a list, <= 0 are bad.
OPTIONAL_POSITIVE = SimpleNamespace(bad=st.one_of(
    st.sampled_from([float("nan"), float("inf"), -float("inf"), "x", True, [1.0, 2.0], {}, 0.0]),
    st.floats(max_value=-1e-300, allow_nan=False, allow_infinity=False)))

ENTRY_POINTS = {
    "periodic_orbit": (PO.periodic_orbit, dict(P=logistic_1d(2.5), x0=np.array([0.5]), k=1, tol=1e-10, step=1e-6,
                                               period=1.0),
                       {"x0": (1,), "k": "count", "tol": "positive", "step": OPTIONAL_POSITIVE,
                        "period": OPTIONAL_POSITIVE}),
    "monodromy": (PO.monodromy, dict(P=logistic_1d(2.5), x=np.array([0.5]), k=2, step=1e-6),
                  {"x": (1,), "k": "count", "step": OPTIONAL_POSITIVE}),
    "orbit_points": (PO.orbit_points, dict(P=logistic_1d(2.5), x=np.array([0.5]), k=2), {"x": (1,), "k": "count"}),
    "floquet_multipliers": (PO.floquet_multipliers, dict(M=np.eye(2)), {"M": (2, 2)}),
    "difference_step": (PO.difference_step, dict(noise=1e-10), {"noise": "positive"}),
    "continue_orbits": (CO.continue_orbits, dict(map_at=logistic_1d, x0=np.array([0.6]), p0=2.5, p1=2.7, ds=0.1,
                                                 k=1, p_tol=1e-6),
                        {"x0": (1,), "p0": "real", "p1": "real", "ds": "positive", "k": "count",
                         "p_tol": OPTIONAL_POSITIVE}),
}
test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)
