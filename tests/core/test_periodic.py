"""Periodic orbits by shooting (robolib.core.periodic) against independent answers."""

from __future__ import annotations

import dataclasses
import math
import pickle
from types import SimpleNamespace

import numpy as np
import pytest
from fuzzing import entry_point_tests, names
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from robolib import ConvergenceError, ParameterError
from robolib import nonlinear as N
from robolib.core import continuation as CO
from robolib.core import periodic as PO

# ==== periodic orbits and multipliers against closed forms; bad arguments named =====================================
#
# Periodic orbits by shooting (robolib.core.periodic) against independent answers.
#
# * the damped linear oscillator under harmonic forcing: orbit and multipliers in closed form
#   (the steady-state phasor; exp(lambda T) of the eigenvalues), by finite differences and by the
#   variational equations;
# * maps with known fixed points and multipliers: the logistic map (period doubling at r = 3 and, on the
#   period-2 branch, at 1 + sqrt(6)), the quadratic map x^2 + c (fold at c = 1/4, doubling at -3/4), the
#   Henon map (fixed point, multipliers, doubling at a = 3 (1 - b)^2 / 4), the delayed logistic map
#   (Neimark-Sacker at r = 2);
# * the forced Duffing oscillator integrated by scipy's solve_ivp: shooting = long-time simulation,
#   Liouville's det M = exp(-delta T), ln|mu|/T = the time-series Lyapunov exponent of robolib.core.nonlinear,
#   a located period doubling confirmed by brute-force period tests on both sides;
# * a soft-impact oscillator (Hertz wall k delta^1.5): shooting = simulation, Liouville, FD = variational;
# * failures: named reasons, never a silent wrong result; bad arguments named.

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
        assert o.residual <= PO.SHOOTING_TOL and err < 1e-10
        assert o.multipliers[0] == pytest.approx(2 - r, abs=1e-9)
        assert o.stable == (abs(2 - r) < 1) and o.stability == ("stable" if abs(2 - r) < 1 else "unstable")
        assert o.lyapunov == pytest.approx(math.log(abs(2 - r)), abs=1e-8)
    assert PO.periodic_orbit(logistic(2.0), [0.4], period=1.0).lyapunov == -math.inf  # superstable, mu = 0


def henon(a, b=0.3):
    return lambda x: np.array([1.0 - a * x[0] ** 2 + x[1], b * x[0]])


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



# ==== finite-difference steps, Newton iterations and failures at their thresholds ===================================
#
# Tests that kill the surviving mutants of robolib/core/periodic.py (``make mutate``).
#
# Each value is checked against an independent answer: the finite-difference steps against eps^(1/3),
# eps^(1/2) and exact powers of ten, and against the 15-decimal grid they are rounded to; ShootingError's
# attributes by their definition; the multiplier format at, below and above the complex threshold;
# monodromy and orbit points of a linear map (orbit and D P^k = A^k known exactly); and
# period_doubling_start on maps whose period-doubled orbit is known in closed form (x -> -1.5 x + x^3:
# multiplier exactly -1.5 at the PD_NEAR edge, 2-cycle +-sqrt(1/2); the logistic map at r = 3.5: 4-cycle
# from the 2-cycle), with the guesses it tries read off a recording map.

EPS = float(np.finfo(float).eps)


ROUND_GRID = 1e-15      # difference_step rounds to 15 decimals


GRID_SLACK = 1e-6       # of one grid unit: a value on the grid, up to the float representation of the product


STEP_RTOL = 1e-9        # relative agreement of a step with its closed form (rounding to 1e-15 absolute)


ORBIT_TOL = 1e-9        # agreement of a converged orbit with its closed form


# ----------------------------------------------------------------------------- difference_step
def on_grid(v: float) -> bool:
    units = v / ROUND_GRID
    return abs(units - round(units)) < GRID_SLACK


def test_central_step_is_the_cube_root_of_the_noise():
    assert PO.difference_step(1e-9) == 0.001                    # (1e-9)^(1/3), exactly after rounding
    assert PO.difference_step(0.125, "central") == 0.5          # 1/8 -> 1/2
    assert PO.difference_step(1e-12, "central") == 1e-4
    v = PO.difference_step()                                     # machine epsilon: 2^-52 -> 2^(-52/3)
    assert v == pytest.approx(2.0 ** (-52.0 / 3.0), rel=STEP_RTOL)
    assert on_grid(v), "rounded to 15 decimals"
    assert PO.CENTRAL_STEP == v


def test_forward_step_is_the_square_root_of_the_noise():
    assert PO.difference_step(1e-10, "forward") == 1e-5
    assert PO.difference_step(0.25, scheme="forward") == 0.5
    v = PO.difference_step(scheme="forward")                     # 2^-26 = 1.4901161193847656e-08, rounded
    assert v == pytest.approx(2.0 ** -26, rel=1e-7)
    assert on_grid(v)
    assert abs(v - 2.0 ** -26) <= ROUND_GRID / 2
    assert PO.FORWARD_STEP == v


def test_difference_step_noise_range_and_scheme():
    assert PO.difference_step(1.0) == 1.0                        # the top of (0, 1]
    assert PO.difference_step(1.0, "forward") == 1.0
    for bad in (1.5, 1.0000001, 0.0, -1e-9):
        with pytest.raises(ParameterError, match=names("noise", "number")):
            PO.difference_step(bad)
    with pytest.raises(ParameterError, match=names("scheme", "central", "forward", "backward")):
        PO.difference_step(1e-9, "backward")


# ----------------------------------------------------------------------------- ShootingError
def test_shooting_error_stores_a_float_copy_of_x_and_a_list_history():
    x = np.array([1, 2])
    e = PO.ShootingError("msg", "max_iter", x, ((1.0, 0.0, 1.0),))
    assert e.reason == "max_iter" and str(e) == "msg"
    assert isinstance(e.x, np.ndarray) and e.x.dtype == float
    np.testing.assert_array_equal(e.x, [1.0, 2.0])
    x[0] = 7                                                     # a copy: the caller's array may change
    assert e.x[0] == 1.0
    assert e.history == [(1.0, 0.0, 1.0)] and isinstance(e.history, list)
    bare = PO.ShootingError("msg", "singular")
    assert bare.x is None
    assert bare.history == []


# ----------------------------------------------------------------------------- _fmt
def test_fmt_prints_the_imaginary_part_only_above_the_complex_threshold():
    assert PO._fmt(complex(1.0, 2.0)) == "1+2j"
    assert PO._fmt(-1.5) == "-1.5"
    assert PO._fmt(complex(0.5, 1e-10)) == "0.5"
    assert PO._fmt(complex(0.5, PO.COMPLEX_TOL)) == "0.5", "|Im| = tol * max(|z|, 1) is still real"
    assert PO._fmt(complex(0.5, 1.5 * PO.COMPLEX_TOL)) == "0.5+1.5e-09j", "|z| < 1: the threshold is tol"
    assert PO._fmt(complex(1000.0, 1e-7)) == "1000", "|z| = 1000: the threshold is 1000 tol = 1e-6"
    assert PO._fmt(complex(1000.0, -2e-6)) == "1000-2e-06j"


# ----------------------------------------------------------------------------- monodromy, orbit points
A = np.array([[0.5, 1.0], [-0.25, 0.0]])


B = np.array([1.0, -2.0])


def affine(x):
    return A @ x + B


def test_orbit_points_default_is_the_point_itself():
    pts = PO.orbit_points(affine, [1.0, 1.0])
    np.testing.assert_array_equal(pts, [[1.0, 1.0]])
    pts = PO.orbit_points(affine, [1.0, 1.0], 3)
    np.testing.assert_allclose(pts, [[1.0, 1.0], [2.5, -2.25], [0.0, -2.625]], rtol=0, atol=1e-15)


def test_variational_monodromy_is_the_product_of_the_supplied_jacobians():
    calls = []

    def P(x):
        calls.append(x.copy())
        return A @ x + B, A

    M = PO.monodromy(P, [1.0, 1.0], k=3, variational=True)
    np.testing.assert_allclose(M, A @ A @ A, rtol=0, atol=1e-15)
    assert len(calls) == 3, "no differencing: one evaluation per orbit point"
    with pytest.raises(ParameterError, match=names("variational", "True", "False")):
        PO.monodromy(P, [1.0, 1.0], variational=1)


# ----------------------------------------------------------------------------- period_doubling_start
def cubic(x):
    """x -> -1.5 x + x^3: fixed point 0 with multiplier exactly -1.5; 2-cycle P(a) = -a, a^2 = 1/2."""
    return -1.5 * x + x ** 3, (-1.5 + 3.0 * x ** 2)[None]


def recording(P):
    calls = []

    def f(x):
        calls.append(float(x[0]))
        return P(x)

    return f, calls


def cubic_orbit(scale=None):
    o = PO.periodic_orbit(cubic, [0.0], variational=True, scale=scale)
    assert o.converged and o.x[0] == 0.0 and o.monodromy[0, 0] == -1.5
    return o


def test_period_doubling_start_at_the_pd_near_edge_finds_the_closed_form_two_cycle():
    o = cubic_orbit()
    assert abs(o.multipliers[0] + 1.0) == PO.PD_NEAR               # exactly on the edge: still accepted
    f, calls = recording(cubic)
    o2 = PO.period_doubling_start(f, o, h=0.7, variational=True)
    assert o2.k == 2 and o2.minimal_period == 2
    np.testing.assert_allclose(np.sort(o2.points[:, 0]), [-math.sqrt(0.5), math.sqrt(0.5)], atol=ORBIT_TOL)
    assert calls[0] == 0.7, "first guess x* + h v (v = +1, the unit eigenvector of a 1 x 1 monodromy)"
    assert o2.x[0] == pytest.approx(math.sqrt(0.5), abs=ORBIT_TOL)
    assert o2.evaluations == len(calls)
    assert o2.period is None


def test_period_doubling_start_tries_plus_minus_one_two_four_h_in_scaled_units():
    o = cubic_orbit(scale=10.0)
    f, calls = recording(cubic)
    with pytest.raises(PO.ShootingError, match=names("not found", "max_iter")) as exc:
        PO.period_doubling_start(f, o, h=0.01, variational=True, max_iter=0)
    assert exc.value.reason == "not found"
    assert len(calls) == 6 * 2, "six guesses, each evaluated along its 2-cycle once (no Newton step)"
    guesses = calls[0::2]
    np.testing.assert_allclose(guesses, [0.1, -0.1, 0.2, -0.2, 0.4, -0.4], rtol=1e-12), \
        "h = 0.01 scaled units = 0.1 in x with scale 10"
    np.testing.assert_array_equal(calls[1::2], [cubic(np.array([g]))[0][0] for g in guesses])


def test_period_doubling_start_with_an_orbit_without_scale_uses_unit_scale():
    o = dataclasses.replace(cubic_orbit(scale=10.0), scale=None)
    f, calls = recording(cubic)
    with pytest.raises(PO.ShootingError, match=r"not found"):
        PO.period_doubling_start(f, o, h=0.01, variational=True, max_iter=0)
    np.testing.assert_allclose(calls[0::2], [0.01, -0.01, 0.02, -0.02, 0.04, -0.04], rtol=1e-12)


def test_period_doubling_start_refuses_bad_orbits_and_offsets():
    o = cubic_orbit()
    fake = SimpleNamespace(converged=True, monodromy=o.monodromy, multipliers=o.multipliers, x=o.x,
                           scale=o.scale, k=1, period=None)
    with pytest.raises(ParameterError, match=names("orbit", "converged")):
        PO.period_doubling_start(cubic, fake, h=0.7, variational=True)
    failed = PO.periodic_orbit(lambda x: x + 1.0, [0.0], strict=False)
    assert not failed.converged
    with pytest.raises(ParameterError, match=names("orbit", "converged")):
        PO.period_doubling_start(lambda x: x + 1.0, failed)
    for h in (0.0, -0.7):
        with pytest.raises(ParameterError, match=names("h", "> 0")):
            PO.period_doubling_start(cubic, o, h=h, variational=True)


def test_period_doubling_start_picks_the_multiplier_nearest_minus_one():
    """Decoupled map: logistic r = 3.2 (multiplier 2 - r = -1.2) x linear -1.7 y (multiplier -1.7).

    -1.2 is nearest -1 (within PD_NEAR); -1.7 is not (0.7 away), so the doubling is along x only and the
    2-cycle is the logistic one, y = 0: x = ((r + 1) +- sqrt((r + 1)(r - 3))) / (2 r).
    """
    r = 3.2

    def P(z):
        return np.array([r * z[0] * (1.0 - z[0]), -1.7 * z[1]])

    o = PO.periodic_orbit(P, [0.7, 0.0])
    np.testing.assert_allclose(np.sort(o.multipliers.real), [-1.7, -1.2], atol=1e-8)
    o2 = PO.period_doubling_start(P, o, h=0.1)
    q = math.sqrt((r + 1.0) * (r - 3.0))
    np.testing.assert_allclose(np.sort(o2.points[:, 0]), [(r + 1 - q) / (2 * r), (r + 1 + q) / (2 * r)],
                               atol=ORBIT_TOL)
    np.testing.assert_allclose(o2.points[:, 1], 0.0, atol=ORBIT_TOL)


def test_period_doubling_start_from_a_two_cycle_finds_the_four_cycle():
    """Logistic r = 3.5: the 2-cycle has multiplier -r^2 + 2r + 4 = -1.25; the 4-cycle is born from it."""
    r = 3.5

    def P(x):
        return r * x * (1.0 - x)

    o = PO.periodic_orbit(P, [0.5], k=2)
    assert o.minimal_period == 2
    assert o.multipliers[0].real == pytest.approx(-r * r + 2 * r + 4, abs=1e-8)
    o4 = PO.period_doubling_start(P, o, h=0.05)
    assert o4.k == 4 and o4.minimal_period == 4
    x = o4.x.copy()
    for _ in range(4):                                           # by iteration: P^4(x) = x, P^2(x) != x
        x = P(x)
    np.testing.assert_allclose(x, o4.x, atol=ORBIT_TOL)
    assert abs(P(P(o4.x))[0] - o4.x[0]) > 0.1


# ----------------------------------------------------------------------------- residual norm, differencing
def test_residual_is_the_scaled_max_norm():
    """G(x0) = A x0 + B - x0 = (1.5, -3.25) at x0 = (1, 1); with s = (0.5, 13): max(3, 0.25) = 3."""
    o = PO.periodic_orbit(affine, [1.0, 1.0], scale=[0.5, 13.0])
    assert o.history[0][0] == 3.0
    np.testing.assert_allclose(o.x, np.linalg.solve(np.eye(2) - A, B), atol=ORBIT_TOL)


def test_forward_monodromy_costs_k_n_plus_1_and_steps_by_step_times_max_x_s():
    calls2 = []

    def g(x):
        calls2.append(x.copy())
        return affine(x)

    M = PO.monodromy(g, [4.0, 0.5], k=3, scheme="forward", step=1e-3)
    np.testing.assert_allclose(M, A @ A @ A, atol=1e-9)
    assert len(calls2) == 3 * (2 + 1), "k (n + 1): the base values are the orbit points, not re-evaluated"
    calls2.clear()
    PO.monodromy(g, [4.0, 0.5], step=1e-3)                       # central: x + h e_0, x - h e_0, ...
    h = 1e-3 * np.array([4.0, 1.0])                              # step * max(|x_j|, s_j), s = 1
    np.testing.assert_array_equal(calls2[1], [4.0 + h[0], 0.5])
    np.testing.assert_array_equal(calls2[3], [4.0, 0.5 + h[1]])


def test_floquet_multipliers_order_a_conjugate_pair_positive_imaginary_first():
    mu = PO.floquet_multipliers([[0.0, -2.0], [2.0, 0.0]])       # +-2i
    np.testing.assert_allclose(mu, [2j, -2j], atol=1e-12)       # the same modulus and real part: by Im


def test_period_doubling_start_rejects_unknown_newton_options():
    with pytest.raises(ParameterError, match=names("bogus", "period_doubling_start")):
        PO.period_doubling_start(cubic, cubic_orbit(), h=0.7, bogus=1)


# ----------------------------------------------------------------------------- singularity test of M - I
def linear_variational(M, c):
    M, c = np.asarray(M, float), np.asarray(c, float)
    return lambda x: (M @ x + c, M)


def test_singular_threshold_is_singular_tol_times_the_norm_of_m():
    """M = diag(1 + d, m): sigma_min(M - I) = d, singular when d <= SINGULAR_TOL * max(1, |M|_2)."""
    big = linear_variational([[1.0 + 9.9e-8, 0.0], [0.0, 100.0]], [1.0, 1.0])   # 9.9e-8 <= 1e-7
    with pytest.raises(PO.ShootingError) as exc:
        PO.periodic_orbit(big, [0.0, 0.0], variational=True)
    assert exc.value.reason == "singular"
    small = linear_variational([[1.0 + 1.8e-9, 0.0], [0.0, 1.5]], [1e-9, 1.0])  # 1.8e-9 > 1.5e-9
    o = PO.periodic_orbit(small, [0.0, 0.0], variational=True)
    np.testing.assert_allclose(o.x, [-1e-9 / 1.8e-9, -2.0], rtol=1e-6)


# ----------------------------------------------------------------------------- line search
def test_line_search_halves_past_a_non_finite_full_step():
    """G(x) = -tanh(x - 1): from x0 = 2.5 the Newton step is sinh(3) / 2 = 5.01, to x = -2.51 where the
    map is NaN (x < -1); half the step, x = -0.005, decreases |G| from tanh 1.5 to tanh 1.005."""
    def P(x):
        return np.where(x < -1.0, np.nan, x - np.tanh(x - 1.0))

    o = PO.periodic_orbit(P, [2.5])
    assert o.x[0] == pytest.approx(1.0, abs=ORBIT_TOL)
    assert o.history[1][2] == 0.5
    assert o.history[1][0] == pytest.approx(math.tanh(2.5 - math.sinh(3.0) / 4.0 - 1.0) * -1.0, rel=1e-6)


# ----------------------------------------------------------------------------- real multiplier near -1
def rotation_like(a, b):
    return linear_variational([[a, -b], [b, a]], [0.0, 0.0])


def test_period_doubling_start_treats_a_tiny_imaginary_part_relative_to_max_mu_1():
    """Multipliers a +- i b: real for the doubling when b <= COMPLEX_TOL * max(|mu|, 1)."""
    P = rotation_like(-0.9, 1.5e-9)                              # |mu| < 1: b > tol, complex
    o = PO.periodic_orbit(P, [0.0, 0.0], variational=True)
    with pytest.raises(ParameterError, match=names("real multiplier", "PD_NEAR")):
        PO.period_doubling_start(P, o, h=0.1, variational=True)
    P = rotation_like(-1.2, 1e-9)                                # |mu| = 1.2: b < 1.2 tol, real
    o = PO.periodic_orbit(P, [0.0, 0.0], variational=True)
    with pytest.raises(PO.ShootingError, match=r"not found"):   # a linear map has no 2-cycle
        PO.period_doubling_start(P, o, h=0.1, variational=True)


def test_singularity_of_a_one_dimensional_map_does_not_depend_on_the_scale():
    """1-D: M - I = d in any units (z = x / s: d s / s); d = 1e-8 > SINGULAR_TOL, so never singular."""
    d = 1e-8
    P = linear_variational([[1.0 + d]], [d])                     # fixed point -1
    for scale in (0.1, 1.0, 10.0):
        o = PO.periodic_orbit(P, [0.0], variational=True, scale=scale)
        assert o.x[0] == pytest.approx(-1.0, rel=1e-6)


# ----------------------------------------------------------------------------- periodic_orbit failures
def test_zero_iterations_returns_the_initial_guess_unconverged():
    x0 = [1.0 / 3.0, 1.0]
    o = PO.periodic_orbit(affine, x0, max_iter=0, strict=False)
    assert not o.converged and o.iterations == 0 and o.minimal_period == 0
    assert o.reason.startswith("shooting failed (max_iter): residual above tol")
    assert "at x = [0.333333333333, 1.0] after 0 iterations" in o.reason
    g = affine(np.array(x0)) - x0                                # G(x0) by hand
    assert o.history == [(pytest.approx(np.max(np.abs(g))), 0.0, 1.0)]
    assert o.monodromy.shape == (2, 2) and np.all(np.isnan(o.monodromy))
    assert o.multipliers.shape == (2,) and np.all(np.isnan(o.multipliers))
    np.testing.assert_array_equal(o.points, [x0])
    with pytest.raises(PO.ShootingError, match=names("0", "iterations")) as exc:
        PO.periodic_orbit(affine, x0, max_iter=0)
    assert exc.value.reason == "max_iter"
    with pytest.raises(ParameterError, match=names("period", "> 0", "s")):
        PO.periodic_orbit(affine, x0, period=0.0)


def test_max_iter_failure_reports_the_last_monodromy():
    """G = -tanh(x - 1) from 2.5: one damped step is not enough; M is that at x0, 1 - sech^2(1.5)."""
    def P(x):
        return x - np.tanh(x - 1.0)

    o = PO.periodic_orbit(P, [2.5], max_iter=1, strict=False)
    assert not o.converged and o.iterations == 1
    m = 1.0 - 1.0 / math.cosh(1.5) ** 2
    np.testing.assert_allclose(o.monodromy, [[m]], atol=1e-8)
    np.testing.assert_allclose(o.multipliers, [m], atol=1e-8)


def test_non_finite_initial_guess_returns_nan_points():
    o = PO.periodic_orbit(lambda x: x * np.nan, [1.0], k=2, strict=False)
    assert not o.converged and o.reason.startswith("shooting failed (non-finite)")
    assert o.points.shape == (2, 1) and np.all(np.isnan(o.points))


def test_broyden_with_an_exact_m0_needs_no_differencing_before_convergence():
    """Affine map, M0 = A exact: one Newton step lands on the orbit. Evaluations: P(x0), the line search's
    P(x1), and the central-difference monodromy at x1 (2 n = 4)."""
    o = PO.periodic_orbit(affine, [1.0, 1.0], update="broyden", M0=A)
    np.testing.assert_allclose(o.x, np.linalg.solve(np.eye(2) - A, B), atol=ORBIT_TOL)
    assert o.iterations == 1
    assert o.evaluations == 1 + 1 + 2 * 2


def test_a_residual_equal_to_tol_is_converged():
    """P(x) = x / 2 at x0 = 2 tol: G = -tol exactly (halving and Sterbenz subtraction are exact)."""
    tol = PO.SHOOTING_TOL
    o = PO.periodic_orbit(lambda x: 0.5 * x, [2.0 * tol], tol=tol)
    assert o.residual == tol and o.converged and o.iterations == 0


def test_singular_message_names_the_multiplier_nearest_plus_one():
    P = linear_variational([[1.0, 0.0], [0.0, -1.5]], [0.0, 1.0])
    with pytest.raises(PO.ShootingError, match=names("nearest +1", "1)")) as exc:
        PO.periodic_orbit(P, [0.0, 0.0], variational=True)
    assert exc.value.reason == "singular"



# ==== unknown Newton options are named ==============================================================================

def logistic_map_1d(r):
    return lambda x: np.array([r * x[0] * (1.0 - x[0])])


PD_ORBIT = PO.periodic_orbit(logistic_map_1d(3.2), [0.7])                   # past the doubling at r = 3


@pytest.mark.fuzz
@pytest.mark.parametrize("call", [
    lambda: CO.continue_orbits(logistic_map_1d, [0.6], 2.5, 2.7, 0.1, tolerance=1e-9),
    lambda: PO.period_doubling_start(logistic_map_1d(3.2), PD_ORBIT, h=0.1, tolerance=1e-9),
])
def test_unknown_newton_options_are_named(call):
    with pytest.raises(ParameterError, match="tolerance"):
        call()
