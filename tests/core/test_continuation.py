"""Branches of periodic orbits (robolib.core.continuation): continuation and bifurcation detection."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import numpy as np
import pytest
from fuzzing import names
from scipy.integrate import solve_ivp

from robolib import ParameterError
from robolib import nonlinear as N
from robolib.core import continuation as C
from robolib.core import continuation as CO
from robolib.core import periodic as PO
from robolib.core.periodic import ShootingError

# ==== bifurcations of maps and the Duffing oscillator located where they are known ==================================

RTOL = 1e-10  # integration tolerance of the ODE return maps


FD = PO.difference_step(RTOL)  # central-difference step matched to the integration noise


def logistic(r):
    return lambda x: r * x * (1.0 - x)


# --------------------------------------------------------------------------- maps with known answers
def assert_located(bif, exact, span):
    """A bifurcation bracketed to the stated accuracy, the exact value inside the bracket to within the error of
    the test function (a finite-difference monodromy at an orbit converged to 1e-10: ~1e-11 here)."""
    lo, hi = bif.bracket
    assert bif.accuracy == pytest.approx(CO.BIFURCATION_REL_TOL * span)
    assert hi - lo <= bif.accuracy and lo - 1e-9 <= exact <= hi + 1e-9 and lo <= bif.parameter <= hi


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



# ==== branch following, step control and bifurcation detection at their thresholds ==================================
#
# Tests that kill the surviving mutants of robolib/core/continuation.py (``make mutate``).
#
# Every answer is independent of the code under test:
#
# * affine families ``x -> c(p) + M(p) (x - c(p))`` with M(p) and c(p) chosen in closed form, so the fixed
#   point is c(p), the multipliers are the eigenvalues of M(p), and the test functions are known functions of
#   p: ``mu + 1`` (period doubling), ``mu - 1`` (fold), ``|mu|^2 - 1`` (Neimark-Sacker). A linear mu(p)
#   makes the secant step exact (the bifurcation is found in at most two solves, to rounding); mu = -exp(+-p)
#   makes the Illinois regula falsi take both of its halving branches, and its steps are compared with a
#   textbook Illinois iteration on the exact test function; a multiplier that jumps across -1 or +1 (as
#   at a grazing impact) can never be bracketed below the float spacing, so LOCATE_MAX_ITER is reached;
# * x -> x^2 + c: fixed point (1 - sqrt(1 - 4c)) / 2, multiplier 2 x*, doubling at c = -3/4, fold at 1/4;
#   the logistic map r x (1 - x): fixed point 1 - 1/r; its 2-cycle ((r + 1) +- sqrt((r + 1)(r - 3))) / (2r)
#   collapses onto the fixed point at r = 3;
# * the maps record where they are evaluated (one record per map_at(p) call, i.e. per Newton solve), so the
#   predictor's guesses, the Broyden start M0 (read off the first Newton step: M0 = 1 - G / dx), the step
#   halving and growth, and the evaluation count are checked against their definitions.

ROOT_TOL = 1e-12        # a bifurcation of a linear test function, located by secant interpolation


GUESS_TOL = 1e-8        # a predicted guess vs its closed form (orbits converged to a residual 1e-10)


M0_TOL = 1e-6           # M0 read off the first Newton step vs the closed-form multiplier


G_MIN = 1e-8            # ... when the residual at the guess is large enough to read it (rounding ~1e-16 / G)


INTERP_TOL = 1e-9       # secant interpolation in a closed bracket of a smooth test function (p_tol = 2e-6)


PARAM_RTOL = 1e-12      # parameters on the continuation grid


ORBIT_SLACK = 1e-9      # a test function from orbits converged to 1e-10 moves its root by ~ 1e-10 / |f'|


FOLD_X_TOL = 1e-4       # next to a fold the orbit is a double root: residual 1e-10 -> |x - x*| ~ 1e-5


class Family:
    """``map_at(p)``: x -> c(p) + M(p) (x - c(p)), variational (returns DP = M(p)) or differenced.

    ``solves`` one (p, [states evaluated]) per map_at call; ``broken(p)`` True: the map has no fixed point
    there (x -> x + 1); ``nan(p)`` True: the map is non-finite there.
    """

    def __init__(self, M, c=lambda p: 0.0, variational=True, period=None, broken=None, nan=None):
        self.M, self.c, self.variational, self.period = M, c, variational, period
        self.broken, self.nan = broken, nan
        self.solves = []

    def __call__(self, p):
        M = np.atleast_2d(np.asarray(self.M(p), float))
        c = np.broadcast_to(np.asarray(self.c(p), float), (M.shape[0],))
        calls = []
        self.solves.append((p, calls))
        broken = self.broken is not None and self.broken(p)
        bad = self.nan is not None and self.nan(p)

        def P(x):
            calls.append(np.array(x, float))
            if bad:
                y = np.full(x.shape, np.nan)
            elif broken:
                y = x + 1.0
            else:
                y = c + M @ (x - c)
            if self.variational:
                return y, (np.eye(x.size) if broken else M)
            return y

        return P if self.period is None else (P, self.period)

    @property
    def params(self):
        return [p for p, _ in self.solves]

    @property
    def evaluations(self):
        return sum(len(calls) for _, calls in self.solves)


def run(fam, x0, p0, p1, ds, **kw):
    kw.setdefault("variational", fam.variational)
    return C.continue_orbits(fam, x0, p0, p1, ds, **kw)


def locate_params(fam, b):
    """The parameters solved for while locating (those not on the branch)."""
    on = set(b.parameters.tolist())
    return [p for p in fam.params if p not in on]


# ----------------------------------------------------------------------------- exact zeros of the test function
def test_a_test_function_exactly_zero_at_the_step_end_is_the_bifurcation_there():
    """mu = -p: at p = 1 the period-doubling test mu + 1 is exactly 0 (and 1 at p = 0): found at 1, no search."""
    fam = Family(lambda p: -p)
    b = run(fam, [0.0], 0.0, 1.0, 1.0)
    assert b.stop_reason == "reached p1 = 1"
    (pd,) = b.bifurcations
    assert (pd.kind, pd.parameter, pd.bracket, pd.note, pd.ends_branch) == ("period-doubling", 1.0, (1.0, 1.0), "",
                                                                            False)
    assert fam.params == [0.0, 1.0], "no solve inside the bracket"
    assert pd.orbit.monodromy[0, 0] == -1.0, "the orbit where the test function vanishes"


def test_a_secant_step_onto_the_exact_root_closes_the_bracket_there():
    """mu = -2p: the secant between (0, 1) and (1, -1) lands on p = 1/2 where mu + 1 = 0 exactly."""
    for p0, p1 in ((0.0, 1.0), (1.0, 0.0)):
        fam = Family(lambda p: -2.0 * p)
        b = run(fam, [0.0], p0, p1, 1.0)
        (pd,) = b.bifurcations
        assert (pd.parameter, pd.bracket, pd.note) == (0.5, (0.5, 0.5), "")
        assert locate_params(fam, b) == [0.5]
        assert pd.orbit.monodromy[0, 0] == -1.0


def test_a_step_within_p_tol_is_located_by_interpolation_without_a_solve():
    """mu = -1 - 4 (p - r) on the grid 0, 1/4, ..., 1 with p_tol = 1/4 (a bracket exactly p_tol wide is closed).

    The test function is linear: the secant interpolation of the grid bracket is the exact root r; the orbit
    reported is the grid point nearer to r (its multiplier mu(1/4) or mu(1/2)).
    """
    for r, near in ((0.3, 0.25), (0.45, 0.5)):
        fam = Family(lambda p, r=r: -1.0 - 4.0 * (p - r))
        b = run(fam, [0.0], 0.0, 1.0, 0.25, p_tol=0.25)
        np.testing.assert_array_equal(b.parameters, [0.0, 0.25, 0.5, 0.75, 1.0])
        assert fam.params == [0.0, 0.25, 0.5, 0.75, 1.0], "no solve inside the bracket"
        (pd,) = b.bifurcations
        assert pd.kind == "period-doubling" and pd.bracket == (0.25, 0.5) and pd.note == ""
        assert abs(pd.parameter - r) <= ROOT_TOL and pd.accuracy == 0.25
        assert pd.orbit.monodromy[0, 0] == pytest.approx(-1.0 - 4.0 * (near - r), abs=1e-15)


@pytest.mark.parametrize("p0, p1", [(0.0, 1.0), (1.0, 0.0), (-0.2, 0.9)])
def test_a_linear_test_function_is_located_exactly_in_at_most_two_solves(p0, p1):
    """mu = -1 - 3 (p - r), r = 1/3: the secant lands on r; one step of p_tol / 2 closes the bracket."""
    r = 1.0 / 3.0
    fam = Family(lambda p: -1.0 - 3.0 * (p - r), c=lambda p: 0.5 + 0.25 * p)
    b = run(fam, [0.5 + 0.25 * p0], p0, p1, abs(p1 - p0))
    (pd,) = b.bifurcations
    p_tol = C.BIFURCATION_REL_TOL * abs(p1 - p0)
    assert pd.kind == "period-doubling" and pd.note == "" and pd.accuracy == p_tol
    assert abs(pd.parameter - r) <= ROOT_TOL
    lo, hi = pd.bracket
    assert lo <= r <= hi and hi - lo <= p_tol
    assert 1 <= len(locate_params(fam, b)) <= 2
    for p, calls in fam.solves[2:]:                  # c is linear in p: every guess after the first step is exact
        assert calls[0][0] == pytest.approx(0.5 + 0.25 * p, abs=1e-14)


# ----------------------------------------------------------------------------- Illinois
def illinois(f, a, b, tol):
    """Textbook Illinois regula falsi on f from the bracket (a, b), steps kept tol / 2 inside the bracket."""
    fa, fb, side, steps = f(a), f(b), 0, []
    while abs(b - a) > tol:
        m = b - fb * (b - a) / (fb - fa)
        lo, hi = min(a, b), max(a, b)
        m = min(max(m, lo + 0.5 * tol), hi - 0.5 * tol)
        steps.append(m)
        fm = f(m)
        if fm == 0:
            return steps, (m, m)
        if (fm > 0) == (fa > 0):        # the root lies between m and b: a moves
            a, fa = m, fm
            if side == -1:
                fb *= 0.5
            side = -1
        else:
            b, fb = m, fm
            if side == 1:
                fa *= 0.5
            side = 1
    return steps, (min(a, b), max(a, b))


@pytest.mark.parametrize("sign", [1.0, -1.0])
@pytest.mark.parametrize("p0, p1", [(-1.0, 1.0), (1.0, -1.0)])
def test_period_doubling_of_mu_minus_exp_is_located_by_illinois_steps(sign, p0, p1):
    """mu = -exp(sign p): PD at p = 0 exactly. The solves inside (p0, p1) are the Illinois steps on 1 - e^(sign p).

    Both halving branches are taken (mu = -exp(p) upward halves f at p1; downward, at p0), and the step
    that closes the bracket is clamped once near the lower end (sign = +1) and once near the upper (-1).
    c(p) = 0.5 + 0.25 p is linear, so the interpolated guess of every solve is the exact fixed point.
    """
    fam = Family(lambda p: -math.exp(sign * p), c=lambda p: 0.5 + 0.25 * p)
    b = run(fam, [0.5 + 0.25 * p0], p0, p1, 2.0)
    p_tol = C.BIFURCATION_REL_TOL * 2.0
    steps, bracket = illinois(lambda p: 1.0 - math.exp(sign * p), p0, p1, p_tol)
    assert len(steps) <= 10, "superlinear: far fewer steps than bisection's 20"
    got = locate_params(fam, b)
    np.testing.assert_allclose(got, steps, rtol=0, atol=1e-13)
    (pd,) = b.bifurcations
    assert pd.note == "" and pd.kind == "period-doubling"
    np.testing.assert_allclose(pd.bracket, bracket, rtol=0, atol=1e-13)
    lo, hi = pd.bracket
    assert lo <= 0.0 <= hi and hi - lo <= p_tol
    assert abs(pd.parameter) <= INTERP_TOL
    for p, calls in fam.solves[2:]:
        assert calls[0][0] == pytest.approx(0.5 + 0.25 * p, abs=1e-14), "guess interpolated between the ends"
    assert b.evaluations == fam.evaluations


# ----------------------------------------------------------------------------- predictor, Broyden, evaluations
def test_secant_predictor_broyden_start_and_evaluation_count():
    """Differenced 1-D map, fixed point c(p) = 1 + p^2, multiplier mu(p) = -exp(p - 0.1) (PD at p = 0.1).

    Each continuation solve starts from the secant predictor through the two previous branch points (the
    previous point itself at the first step); each solve while locating from the linear interpolation
    between the bracket ends (the nearest solved parameters on either side). With update="broyden" the
    first Newton step uses M0 = the monodromy of the previous branch point (locating: of the nearer bracket
    end), read back as M0 = 1 - G(x0) / (x1 - x0).
    """
    mu = lambda p: -math.exp(p - 0.1)     # noqa: E731
    c = lambda p: 1.0 + p * p             # noqa: E731
    fam = Family(mu, c=c, variational=False)
    b = run(fam, [1.25], -0.5, 0.5, 0.25, update="broyden")
    assert b.stop_reason == "reached p1 = 0.5"
    np.testing.assert_allclose(b.parameters, [-0.5, -0.25, 0.0, 0.25, 0.5], rtol=0, atol=1e-15)
    (pd,) = b.bifurcations
    assert abs(pd.parameter - 0.1) <= 2 * C.BIFURCATION_REL_TOL
    assert b.evaluations == fam.evaluations
    branch = list(b.parameters)
    solved = [fam.solves[0][0]]
    checked_m0 = {"step": 0, "locate": 0, "upper end": 0}
    for p, calls in fam.solves[1:]:
        x0 = calls[0][0]
        if p in branch and branch.index(p) == len([q for q in solved if q in branch]):
            i = branch.index(p)
            if i == 1:
                guess = c(branch[0])
            else:
                guess = c(branch[i - 1]) + (c(branch[i - 1]) - c(branch[i - 2])) * (p - branch[i - 1]) / \
                    (branch[i - 1] - branch[i - 2])
            near, kind = branch[i - 1], "step"
        else:
            lo = max(q for q in solved if q < p)
            hi = min(q for q in solved if q > p)
            guess = c(lo) + (c(hi) - c(lo)) * (p - lo) / (hi - lo)
            near, kind = (lo if p - lo < hi - p else hi), "locate"
        assert x0 == pytest.approx(guess, abs=GUESS_TOL), (kind, p)
        G = c(p) + mu(p) * (x0 - c(p)) - x0
        if abs(G) > G_MIN and len(calls) > 1:
            M0 = 1.0 - G / (calls[1][0] - x0)
            assert M0 == pytest.approx(mu(near), abs=M0_TOL), (kind, p)
            checked_m0[kind] += 1
            checked_m0["upper end"] += kind == "locate" and near > p
        solved.append(p)
    assert checked_m0["step"] == 4 and checked_m0["locate"] >= 4 and checked_m0["upper end"] >= 1


def test_newton_mode_counts_every_evaluation_and_periods_give_lyapunov():
    """Maps returning (P, T): lyapunov = ln |mu| / T per point; evaluations = all calls of every map."""
    mu = lambda p: 0.2 + 0.5 * p          # noqa: E731
    fam = Family(mu, c=lambda p: p * p, variational=False, period=2.0)
    b = C.continue_orbits(fam, [0.0], 0.0, 1.0, 0.25)
    np.testing.assert_allclose(b.lyapunov, np.log(np.abs(mu(b.parameters))) / 2.0, rtol=0, atol=1e-9)
    assert all(o.period == 2.0 for o in b.orbits)
    assert b.evaluations == fam.evaluations > len(b.parameters)


# ----------------------------------------------------------------------------- grid, direction, max_steps
def test_decreasing_parameter_steps_down_by_ds_and_locates_the_doubling_of_x2_plus_c():
    quad = lambda c: (lambda x: x * x + c)  # noqa: E731
    b = C.continue_orbits(quad, [0.0], 0.0, -1.0, 0.1)
    np.testing.assert_allclose(b.parameters, -0.1 * np.arange(11), rtol=0, atol=1e-12)
    xs = (1.0 - np.sqrt(1.0 - 4.0 * b.parameters)) / 2.0
    np.testing.assert_allclose(b.points[:, 0], xs, atol=1e-10)
    (pd,) = b.bifurcations
    assert pd.kind == "period-doubling" and abs(pd.parameter + 0.75) <= C.BIFURCATION_REL_TOL
    assert pd.bracket[0] - ORBIT_SLACK <= -0.75 <= pd.bracket[1] + ORBIT_SLACK


def test_the_last_step_lands_on_p1_exactly():
    """-9.9 + (118.2 - -9.9) = 118.2 - 1.4e-14 in floating point: snapped to p1 (within 1e-12 |p1 - p0|)."""
    assert -9.9 + (118.2 - -9.9) != 118.2
    fam = Family(lambda p: 0.5)
    b = run(fam, [0.0], -9.9, 118.2, 200.0)
    assert b.parameters.tolist() == [-9.9, 118.2] and b.stop_reason == "reached p1 = 118.2"
    fam = Family(lambda p: 0.5)
    b = run(fam, [0.0], -2.0, 1.0, 0.5)          # passes -p1 = -1 on the way
    assert b.parameters.tolist() == [-2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0]


def test_max_steps_limits_the_number_of_steps():
    fam = Family(lambda p: 0.5)
    b = run(fam, [0.0], 0.0, 1.0, 0.1, max_steps=3)
    assert b.stop_reason == "max_steps = 3 points"
    np.testing.assert_allclose(b.parameters, [0.0, 0.1, 0.2, 0.3], rtol=0, atol=1e-15)
    assert fam.params == b.parameters.tolist(), "no solve beyond the last step"
    fam = Family(lambda p: 0.5)
    b = run(fam, [0.0], 0.0, 1.0, 2.0 ** -11)     # 2048 steps needed: the default stops after 1000
    assert b.stop_reason == "max_steps = 1000 points"
    assert len(b.parameters) == 1001 and b.parameters[-1] == 1000 * 2.0 ** -11


def test_the_step_grows_by_step_growth_after_easy_points_up_to_ds_max():
    """Logistic r 1.5 -> 2.9 (fixed point 1 - 1/r): step_(i+1) = min(STEP_GROWTH step_i, ds_max) after a point
    solved in <= EASY_ITER Newton iterations, else unchanged; never beyond p1."""
    lg = lambda r: (lambda x: r * x * (1.0 - x))  # noqa: E731
    ds, ds_max, p1 = 0.05, 0.3, 2.9
    b = C.continue_orbits(lg, [1.0 - 1.0 / 1.5], 1.5, p1, ds, ds_max=ds_max)
    np.testing.assert_allclose(b.points[:, 0], 1.0 - 1.0 / b.parameters, atol=1e-10)
    its = b.iterations
    assert C.EASY_ITER in its[1:-1].tolist(), "a point at exactly EASY_ITER iterations"
    step = ds
    for i in range(1, len(b.parameters)):
        assert b.parameters[i] - b.parameters[i - 1] == pytest.approx(min(step, p1 - b.parameters[i - 1]),
                                                                       rel=PARAM_RTOL)
        if its[i] <= C.EASY_ITER:
            step = min(step * C.STEP_GROWTH, ds_max)
    assert max(np.diff(b.parameters)) == pytest.approx(ds_max, rel=PARAM_RTOL)


# ----------------------------------------------------------------------------- failures: fold, halving, collapse
def test_step_halves_down_to_ds_min_inclusive_then_stops_naming_the_failure():
    """No orbit beyond p = 1/4 (x -> x + 1), multiplier 0.5 before: not a fold. Dyadic steps: halved from 1/4
    to exactly ds_min = 2^-8 (still tried), then stop."""
    fam = Family(lambda p: 0.5, broken=lambda p: p > 0.25)
    b = run(fam, [0.0], 0.0, 1.0, 0.25, ds_min=2.0 ** -8)
    assert b.parameters.tolist() == [0.0, 0.25]
    assert fam.params[2:] == [0.25 + 2.0 ** -j for j in range(2, 9)]
    assert b.bifurcations == []
    assert b.stop_reason.startswith("Newton failed at p = 0.25390625 (shooting failed (singular)")


@pytest.mark.parametrize("direction", [1.0, -1.0])
def test_a_fold_is_bracketed_between_the_last_orbit_and_the_first_failure(direction):
    """x -> x^2 + direction p (y -> 1.9 y alongside): fold at p = direction / 4, no orbit beyond; the
    multiplier nearest +1 (not the larger 1.9) decides it is a fold. The bracket is the last branch point
    and the last failed trial, ds_min <= width < 2 ds_min."""
    ds_min = 1e-3
    fam_p = []

    def map_at(p):
        fam_p.append(p)
        c = direction * p
        return lambda z: (np.array([z[0] * z[0] + c, 1.9 * z[1]]), np.array([[2.0 * z[0], 0.0], [0.0, 1.9]]))

    b = C.continue_orbits(map_at, [0.0, 0.0], 0.0, direction * 0.5, 0.02, ds_min=ds_min, variational=True)
    (fold,) = b.bifurcations
    assert fold.kind == "fold" and fold.ends_branch and "no orbit beyond" in fold.note
    lo, hi = fold.bracket
    assert (lo, hi) == tuple(sorted((b.parameters[-1], fam_p[-1])))
    assert lo <= direction * 0.25 <= hi
    assert ds_min <= hi - lo < 2 * ds_min
    assert fold.parameter == 0.5 * (lo + hi) and fold.accuracy == hi - lo
    assert fold.orbit is b.orbits[-1]
    m = re.fullmatch(r"fold at p = (\S+) \(no period-1 orbit beyond\)", b.stop_reason)
    assert m and float(m.group(1)) == pytest.approx(direction * 0.25, abs=ds_min)
    xs = (1.0 - np.sqrt(1.0 - 4.0 * direction * b.parameters)) / 2.0
    np.testing.assert_allclose(b.points[:-1, 0], xs[:-1], atol=1e-8)
    assert abs(b.points[-1, 0] - xs[-1]) <= FOLD_X_TOL


def test_a_two_cycle_collapsing_onto_the_fixed_point_stops_the_branch():
    """Logistic: the 2-cycle at r = 3.2 (multiplier -r^2 + 2r + 4 = 0.16) does not exist at r = 2.9, where
    Newton on P^2 finds the fixed point 1 - 1/r (period 1)."""
    lg = lambda r: (lambda x: r * x * (1.0 - x))  # noqa: E731
    r = 3.2
    x2 = (r + 1 + math.sqrt((r + 1) * (r - 3))) / (2 * r)
    b = C.continue_orbits(lg, [x2], 3.2, 2.9, 0.3, k=2, ds_min=0.3)
    assert b.stop_reason == "Newton failed at p = 2.9 (collapsed onto period 1)"
    assert b.parameters.tolist() == [3.2] and b.bifurcations == []
    assert b.multipliers[0, 0].real == pytest.approx(-r * r + 2 * r + 4, abs=1e-9)
    with pytest.raises(ShootingError, match=names("collapsed", "period 1")):
        C.continue_orbits(lg, [1.0 - 1.0 / 2.9], 2.9, 2.5, 0.1, k=2)


# ----------------------------------------------------------------------------- locating: failures, notes
@pytest.mark.parametrize("kind, mu", [("period-doubling", lambda p: -1.0 - 4.0 * (p - 0.3)),
                                      ("fold", lambda p: 1.0 + 4.0 * (p - 0.3))])
def test_newton_failing_inside_the_bracket_is_noted_and_located_to_the_bracket(kind, mu):
    """Linear test function with its root r = 0.3 in the grid bracket (1/4, 1/2); the map is non-finite
    within 0.01 of r, so the first secant solve fails: the result is the interpolated root, bracket (1/4, 1/2)."""
    fam = Family(mu, nan=lambda p: abs(p - 0.3) < 0.01)
    b = run(fam, [0.0], 0.0, 1.0, 0.25)
    assert b.stop_reason == "reached p1 = 1"
    (bif,) = b.bifurcations
    assert bif.kind == kind and not bif.ends_branch and bif.bracket == (0.25, 0.5)
    assert abs(bif.parameter - 0.3) <= ROOT_TOL
    assert locate_params(fam, b) == [pytest.approx(0.3, abs=ROOT_TOL)]
    failed = "Newton failed inside the bracket at p = 0.3 (shooting failed (non-finite)"
    if kind == "fold":
        head = ("a real multiplier through +1 with the branch going on: a branch point (transcritical or "
                "pitchfork), not a turning point; ")
        assert bif.note.startswith(head + failed)
    else:
        assert bif.note.startswith(failed)
    assert bif.note.endswith("located to the bracket width")


@pytest.mark.parametrize("kind, below, above", [("period-doubling", 0.0, -2.0), ("fold", 0.5, 1.5)])
@pytest.mark.parametrize("p0, p1", [(0.0, 1.0), (1.0, 0.0)])
def test_a_jump_across_the_unit_multiplier_cannot_be_bracketed_below_the_float_spacing(kind, below, above,
                                                                                      p0, p1):
    """mu jumps at r = 0.3 (no exact zero of the test function): with p_tol = 1e-20 every one of the
    LOCATE_MAX_ITER steps is spent and the note says the bracket was not closed; the bracket holds r."""
    r = 0.3
    fam = Family(lambda p: below if p < r else above)
    b = run(fam, [0.0], p0, p1, 0.25, p_tol=1e-20)
    (bif,) = b.bifurcations
    assert bif.kind == kind
    lo, hi = bif.bracket
    assert lo < r <= hi and hi - lo < 1e-15
    assert lo <= bif.parameter <= hi
    assert len(fam.params) - len(b.parameters) == C.LOCATE_MAX_ITER, "every solve off the branch locates"
    tail = f"bracket not closed after {C.LOCATE_MAX_ITER} steps"
    if kind == "fold":
        assert bif.note == ("a real multiplier through +1 with the branch going on: a branch point (transcritical "
                            "or pitchfork), not a turning point; " + tail)
    else:
        assert bif.note == tail


@pytest.mark.parametrize("tiny_above", [False, True])
def test_a_secant_step_onto_a_bracket_end_falls_back_to_bisection(tiny_above):
    """mu + 1 jumps at r = 0.3 between 2^-53 and -1000: the secant from a bracket end where the test function
    is 1e19 times smaller lands on that end (in floating point); bisection instead closes the bracket
    (width 1 -> p_tol = 1e-6) in about log2(1e6) = 20 steps, around r."""
    r, tiny = 0.3, -1.0 + 2.0 ** -53
    fam = Family((lambda p: -1001.0 if p < r else tiny) if tiny_above else (lambda p: tiny if p < r else -1001.0))
    b = run(fam, [0.0], 0.0, 1.0, 1.0)
    (pd,) = b.bifurcations
    lo, hi = pd.bracket
    assert pd.note == "" and lo < r <= hi and hi - lo <= 1e-6
    steps = locate_params(fam, b)
    assert len(steps) <= 21
    assert steps[:2] == [0.5, 0.25], "midpoints"


def test_a_closed_branch_point_note_has_no_appendix():
    """Logistic x = 0, mu = r: a transcritical point at r = 1, located with no remark after the sentence."""
    lg = lambda r: (lambda x: r * x * (1.0 - x))  # noqa: E731
    b = C.continue_orbits(lg, [0.0], 0.5, 1.5, 0.15)
    (bp,) = b.bifurcations
    assert bp.note == ("a real multiplier through +1 with the branch going on: a branch point (transcritical or "
                       "pitchfork), not a turning point")
    assert abs(bp.parameter - 1.0) <= C.BIFURCATION_REL_TOL


@pytest.mark.parametrize("p0, p1, order", [(-1.0, 0.0, ["fold", "period-doubling"]),
                                           (0.0, -1.0, ["period-doubling", "fold"])])
def test_two_bifurcations_in_one_step_are_listed_in_the_direction_of_continuation(p0, p1, order):
    """diag(mu1, mu2): mu1 = -1 - 2 (p + 0.4) through -1 at p = -0.4, mu2 = 1 + 2 (p + 0.6) through +1 at -0.6."""
    fam = Family(lambda p: np.diag([-1.0 - 2.0 * (p + 0.4), 1.0 + 2.0 * (p + 0.6)]))
    b = run(fam, [0.0, 0.0], p0, p1, 1.0)
    assert [z.kind for z in b.bifurcations] == order
    where = {"fold": -0.6, "period-doubling": -0.4}
    for z in b.bifurcations:
        assert abs(z.parameter - where[z.kind]) <= ROOT_TOL
    assert b.of_kind("fold") == [z for z in b.bifurcations if z.kind == "fold"]


# ----------------------------------------------------------------------------- helpers at their thresholds
def test_complex_threshold_scales_with_the_modulus_above_one():
    tol = C.COMPLEX_TOL
    mu = np.array([complex(0.5, tol), complex(0.5, 1.5 * tol), complex(1000.0, 1e-7), complex(1000.0, 2e-6),
                   complex(-2.0, 0.0)])
    assert C._is_complex(mu).tolist() == [False, True, False, True, False]


def test_neimark_sacker_count_and_test_function():
    """A pair exactly on the unit circle (+-i) is not outside; the product of |mu|^2 - 1 over the pairs; -1 if
    none is complex."""
    orbit = lambda *mu: SimpleNamespace(multipliers=np.array(mu, complex))  # noqa: E731
    assert C._ns_count(orbit(1j, -1j)) == 0
    assert C._ns_count(orbit(2j, -2j, 0.5)) == 2
    assert C._test_ns(orbit(2j, -2j, 0.5)) == 3.0
    assert C._test_ns(orbit(0.5 + 0.5j, 0.5 - 0.5j)) == pytest.approx(-0.5, abs=1e-15)
    assert C._test_ns(orbit(3.0, 0.5)) == -1.0
    two = orbit(*(r * np.exp(s * 1j * t) for r, t in ((1.2, 1.0), (0.5, 2.0)) for s in (1, -1)))
    assert C._test_ns(two) == pytest.approx((1.44 - 1.0) * (0.25 - 1.0), abs=1e-14), "one factor per pair"
    assert C._ns_count(two) == 2
    assert C._test_ns(orbit(0.5)) == -1.0


def rotation(rho, theta):
    return rho * np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])


@pytest.mark.parametrize("rho_outer", [0.8, 1.2])
@pytest.mark.parametrize("p0, p1", [(0.0, 1.0), (1.0, 0.0)])
def test_neimark_sacker_of_one_pair_is_located_also_while_another_pair_is_outside(rho_outer, p0, p1):
    """x -> diag(rho_outer R(1), (0.7 + p) R(2)) x: the second pair crosses |mu| = 1 at p = 0.3 exactly, the
    first stays at |mu| = rho_outer (inside, or already outside the circle: the crossing must still be found
    at 0.3, not at a grid point)."""
    def M(p):
        m = np.zeros((4, 4))
        m[:2, :2], m[2:, 2:] = rotation(rho_outer, 1.0), rotation(0.7 + p, 2.0)
        return m

    fam = Family(M)
    b = run(fam, np.zeros(4), p0, p1, 0.25)
    (ns,) = b.bifurcations
    assert ns.kind == "Neimark-Sacker" and ns.note == ""
    lo, hi = ns.bracket
    assert lo <= 0.3 <= hi and hi - lo <= C.BIFURCATION_REL_TOL
    assert abs(ns.parameter - 0.3) <= INTERP_TOL
    assert b.of_kind("Neimark-Sacker") == [ns]


def test_of_kind_refuses_unknown_kinds():
    fam = Family(lambda p: -2.0 * p)
    b = run(fam, [0.0], 0.0, 1.0, 1.0)
    assert [z.parameter for z in b.of_kind("period-doubling")] == [0.5]
    assert b.of_kind("Neimark-Sacker") == [] and b.of_kind("fold") == []
    for bad in ("bogus", "Fold", ["fold"], 1):
        with pytest.raises(ParameterError, match=names("kind", "period-doubling", "fold", "Neimark-Sacker")):
            b.of_kind(bad)


def test_ds_min_and_ds_max_ranges():
    fam = Family(lambda p: 0.5)
    for bad in (0.0, -1e-3):
        with pytest.raises(ParameterError, match=names("ds_min", "> 0")):
            run(fam, [0.0], 0.0, 1.0, 0.25, ds_min=bad)
    with pytest.raises(ParameterError, match=names("ds_max", ">= 0.25")):
        run(fam, [0.0], 0.0, 1.0, 0.25, ds_max=0.2)
    b = run(fam, [0.0], 0.0, 1.0, 0.25, ds_min=2.0, ds_max=0.25)   # ds_min above ds: allowed
    assert b.parameters.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
