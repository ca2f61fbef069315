"""Tests that kill the surviving mutants of robolib/core/nonlinear.py (``make mutate``, issue 21 item 5).

Each test works a case out by hand or in closed form: RK4 on polynomials in t (exact), sampling instants
counted on the grid, a Lyapunov run on a map and a time-dependent manifold whose log-stretches are known,
its batch statistics recomputed from the logs, and the ladder rule at the edges of its thresholds.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from robolib import ParameterError
from robolib.core import nonlinear as N


# ----------------------------------------------------------------------------- RK4
def counting(fun):
    calls = []

    def f(t, y):
        calls.append(t)
        return fun(t, y)

    return f, calls


def test_rk4_is_exact_for_a_cubic_in_t_and_counts_its_steps():
    """y' = 3 t^2 has y(t1) = y0 + t1^3 - t0^3, exactly for RK4 with the right node times (t, t + dt/2, t + dt)."""
    f, calls = counting(lambda t, y: 3.0 * t * t * np.ones_like(y))
    flow = N.rk4_flow(f, 0.1)
    y = flow([1, 2], 0.2, 0.7)                                   # integers in, floats out
    assert y.dtype == float
    np.testing.assert_allclose(y, np.array([1.0, 2.0]) + 0.7 ** 3 - 0.2 ** 3, rtol=0, atol=1e-14)
    assert len(calls) == 4 * 5, "(t1 - t0) / h = 5 steps exactly, four stages each"
    np.testing.assert_allclose(calls[:4], [0.2, 0.25, 0.25, 0.3], atol=1e-15)
    np.testing.assert_allclose(calls[-4:], [0.6, 0.65, 0.65, 0.7], atol=1e-12)
    calls.clear()
    flow([0.0], 0.0, 0.03)                                       # shorter than one step: one step
    assert len(calls) == 4
    calls.clear()
    flow([0.0], 0.0, 0.25)                                       # 2.5 steps: three steps of 1/12
    assert len(calls) == 12
    with pytest.raises(ParameterError, match=r"h must be a number > 0 s, got 0"):
        N.rk4_flow(f, 0.0)


# ----------------------------------------------------------------------------- sampling
def test_poincare_times_by_hand_and_their_ranges():
    np.testing.assert_allclose(N.poincare_times(0.4, 0, 3, t0=1.0, phase=0.25), [1.1, 1.5, 1.9], atol=1e-15)
    np.testing.assert_allclose(N.poincare_times(0.4, 2, 2), [0.8, 1.2], atol=1e-15)
    with pytest.raises(ParameterError, match=r"n_transient must be an integer >= 0"):
        N.poincare_times(0.4, -1, 2)
    with pytest.raises(ParameterError, match=r"period must be a number > 0 s, got 0"):
        N.poincare_times(0.0, 1, 2)
    with pytest.raises(ParameterError, match=r"t0 must be a finite number s"):
        N.poincare_times(0.4, 1, 2, t0=float("nan"))


def test_poincare_section_samples_every_instant_inside_the_grid():
    t = np.linspace(0.0, 2.0, 201)
    x = np.column_stack([t, 2.0 * t])                            # linear: interpolation is exact
    s = N.poincare_section(t, x, 0.5)
    np.testing.assert_allclose(s, [[0.0, 0.0], [0.5, 1.0], [1.0, 2.0], [1.5, 3.0], [2.0, 4.0]], atol=1e-12)
    s = N.poincare_section(t, x, 0.5, t_transient=0.6, phase=0.2)      # 0.7, 1.2, 1.7
    np.testing.assert_allclose(s[:, 0], [0.7, 1.2, 1.7], atol=1e-12)
    s = N.poincare_section(t + 0.3, x, 0.5, t_transient=0.3)           # grid from 0.3 to 2.3: 0.3 .. 2.3
    np.testing.assert_allclose(s[:, 0], [0.0, 0.5, 1.0, 1.5, 2.0], atol=1e-12)
    s = N.poincare_section(t, x, 0.5, t_transient=-0.5)                # instants before t[0] are dropped
    assert s.shape == (5, 2)
    s = N.poincare_section([0.0, 1.0], [3.0, 5.0], 1.0)                # two samples are a grid
    np.testing.assert_allclose(s, [[3.0], [5.0]])
    with pytest.raises(ParameterError, match=r"got 3 rows of x for 201 times in t"):
        N.poincare_section(t, np.zeros((3, 2)), 0.5)
    with pytest.raises(ParameterError, match=r"t must be strictly increasing"):
        N.poincare_section([0.0, 1.0, 1.0], [1.0, 2.0, 3.0], 0.5)
    with pytest.raises(ParameterError, match=r"t must hold at least 2 sample times, got 1"):
        N.poincare_section([0.0], [1.0], 0.5)
    with pytest.raises(ParameterError, match=r"^t must have shape \(n,\), got \(2, 2\)"):
        N.poincare_section([[0.0, 1.0], [2.0, 3.0]], np.zeros(2), 0.5)
    with pytest.raises(ParameterError, match=r"t_transient must be a finite number s"):
        N.poincare_section(t, x, 0.5, t_transient=float("inf"))
    with pytest.raises(ParameterError, match=r"period must be a number > 0 s"):
        N.poincare_section(t, x, -0.5)


def test_ties_at_the_tolerance_count_as_equal():
    assert N.distinct_points([[0.0], [0.5]], 0.5) == 1
    assert N.period_k([0.0, 0.5, 0.0, 0.5], 0.5, 2) == 1             # lag-1 residual equal to tol
    assert N.period_name(np.int64(3)) == "period-3" and N.period_name(np.int32(0)) == "irregular"
    np.testing.assert_array_equal(N.repeat_residuals([0.0, 2.0, 0.0], 2), [2.0, 0.0])   # (N,) is one column
    with pytest.raises(ParameterError, match=r"k_max \+ 1 = 4 samples for lags 1\.\.3, got 3$"):
        N.repeat_residuals([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]], 3)


def test_bifurcation_points_keep_empty_results_and_name_a_bad_entry():
    p, s = N.bifurcation_points([1.0, 2.0], [np.array([]), np.array([0.2, 0.3])])
    assert p.tolist() == [2.0, 2.0] and s.tolist() == [0.2, 0.3]
    with pytest.raises(ParameterError, match=r"^results\[1\]\['y'\]"):
        N.bifurcation_points([1.0, 2.0], [{"y": [0.1]}, {"y": [np.nan]}], key="y")
    with pytest.raises(ParameterError, match=r"^results\[0\] "):
        N.bifurcation_points([1.0], [[np.inf]])
    with pytest.raises(ParameterError, match=r"^values"):
        N.bifurcation_points([[1.0, 2.0]], [[0.1], [0.2]])


def test_reference_systems_by_hand():
    np.testing.assert_allclose(N.lorenz(0.0, np.array([1.0, 2.0, 3.0])), [10.0, 28.0 - 3.0 - 2.0, 2.0 - 8.0],
                               rtol=1e-15)
    assert N.damped_oscillator(0.5, 0.2)(0.0, np.array([1.0, 1.0])).tolist() == [1.0, -0.2 - 0.25]
    with pytest.raises(ParameterError, match=r"omega must be a number > 0 rad/s"):
        N.damped_oscillator(0.0, 0.2)


def test_spectrum_needs_four_uniform_samples():
    t = np.arange(4) * 0.25
    f, a = N.spectrum(t, np.array([1.0, 0.0, -1.0, 0.0]), window="none")
    np.testing.assert_allclose(f, [0.0, 1.0, 2.0])
    assert a[1] == pytest.approx(1.0, rel=1e-12) and abs(a[0]) < 1e-15
    with pytest.raises(ParameterError, match=r"at least 4 sample times, got 3"):
        N.spectrum(t[:3], np.zeros(3))
    # a step 5e-9 s short on a 1 ms grid: a relative 5e-6, above UNIFORM_RTOL (no absolute allowance)
    with pytest.raises(ParameterError, match=r"uniformly sampled t \(steps equal within 1e-06\)"):
        N.spectrum(np.array([0.0, 1e-3, 2e-3 + 5e-9, 3e-3, 4e-3]), np.zeros(5))


# ----------------------------------------------------------------------------- the ladder rule
def test_misfit_slope_edges():
    assert N.misfit_slope([1e-6, 1e-8], [1e-2, 1e-3]) == pytest.approx(0.5, rel=1e-12)   # two rtols suffice
    assert N.misfit_slope([1e-6, 1e-7, 1e-8], [0.0, 0.0, 0.0]) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ParameterError, match=r"rtols must be positive"):
        N.misfit_slope([0.0, 1e-8], [1e-2, 1e-3])
    with pytest.raises(ParameterError, match=r"^rtols"):
        N.misfit_slope([[1e-6, 1e-8]], [1e-2, 1e-3])
    with pytest.raises(ParameterError, match=r"^misfits"):
        N.misfit_slope([1e-6, 1e-8], [[1e-2, 1e-3]])


RT = [1e-8, 1e-9, 1e-10, 1e-11]


def test_ladder_verdict_confirms_on_the_last_two_rungs():
    one = [[0.5], [0.5], [0.5], [0.5]]
    assert N.ladder_verdict(RT, [0, 2, 1, 1], one) == ("confirmed", 1)          # k = 1 at the two tightest
    assert N.ladder_verdict(RT, [1, 2, 3, 3], [[0.5] * 3] * 4) == ("confirmed", 3)
    assert N.ladder_verdict(RT, [1, 0, 2, 2], [[0.5] * 2] * 4) == ("confirmed", 2)   # only the last two count
    assert N.ladder_verdict(RT[:2], [0, 0], [[0.0], [0.0]]) == ("irregular", 0)  # zero misfits, one lag
    with pytest.raises(ParameterError, match=r"rtols must be L >= 2 positive"):
        N.ladder_verdict([0.0, 1e-9], [1, 1], one[:2])
    with pytest.raises(ParameterError, match=r"rtols must go from loosest to tightest"):
        N.ladder_verdict([1e-9, 1e-9], [1, 1], one[:2])
    with pytest.raises(ParameterError, match=r"^rtols must have shape \(n,\), got \(2, 2\)"):
        N.ladder_verdict([RT[:2], RT[2:]], [1, 1], one[:2])


def test_ladder_verdict_limit_at_the_edges_of_its_thresholds():
    # lag 2 falls by a decade per decade of rtol; lag 1 stays at exactly the gap at the tightest rung,
    # and below it at the rung before (only the tightest rung's gap counts)
    R = [[0.3, 1e-2], [0.05, 1e-3], [0.05, 1e-4], [N.LADDER_GAP, 1e-5]]
    assert N.ladder_verdict(RT, [0, 0, 0, 0], R) == ("limit", 2)
    # three rungs (the fewest fitted): limit; the slope over all three decides, not over the last two
    assert N.ladder_verdict(RT[:3], [0, 0, 0], [[0.3, 1e-2], [0.3, 1e-3], [0.3, 1e-4]]) == ("limit", 2)
    flat_then_fall = [[0.3, 1e-2], [0.3, 1e-2], [0.3, 1e-2 * 10 ** -0.6]]       # slope 0.3 over 3, 0.6 over 2
    assert N.ladder_verdict(RT[:3], [0, 0, 0], flat_then_fall) == ("irregular", 0)


# ----------------------------------------------------------------------------- Lyapunov
def square_map(y, a, b):
    """A map (not a flow) y -> y + (b - a) y^2: the neighbour's side matters, and each interval its times."""
    return y + (b - a) * y * y


def test_lyapunov_first_interval_by_hand_with_the_default_direction_and_distance():
    y0 = np.array([0.4, -0.3])
    r = N.largest_lyapunov(square_map, y0, 0.5, 1, d0=0.2, direction=[3.0, 4.0])
    v = np.array([0.6, 0.8])
    expected = math.log(np.linalg.norm(square_map(y0 + 0.2 * v, 0, 0.5) - square_map(y0, 0, 0.5)) / 0.2)
    assert r.log_stretch[0] == pytest.approx(expected, rel=1e-13)
    # defaults: seed 0 draws the direction, d0 = 1e-8
    v = np.random.default_rng(0).normal(size=2)
    v /= np.linalg.norm(v)
    d = np.linalg.norm(square_map(y0 + 1e-8 * v, 0, 0.5) - square_map(y0, 0, 0.5))
    assert N.largest_lyapunov(square_map, y0, 0.5, 1).log_stretch[0] == pytest.approx(math.log(d / 1e-8), rel=1e-7)
    other = N.largest_lyapunov(square_map, y0, 0.5, 1, d0=0.2, seed=1).log_stretch[0]
    assert other != pytest.approx(N.largest_lyapunov(square_map, y0, 0.5, 1, d0=0.2).log_stretch[0], rel=1e-6)


def tilted(y, t):
    """The manifold y[1] = t y[0] (it turns with time)."""
    out = np.array(y, dtype=float)
    out[1] = t * out[0]
    return out


def stay(y, a, b):
    return np.array(y, dtype=float)


@pytest.mark.parametrize("t0, n_transient", [(0.0, 0), (0.4, 2)])
def test_lyapunov_on_a_turning_manifold_by_hand(t0, n_transient):
    """A point that does not move, projected on y1 = t y0: the separation d0 at time t, restarted on the manifold,
    grows to d0 sqrt(1 + (t + tau)^2) / sqrt(1 + t^2) over one interval. Interval k starts at
    t0 + (n_transient + k) tau."""
    tau, n = 0.3, 5
    kw = {} if (t0, n_transient) == (0.0, 0) else dict(t0=t0, n_transient=n_transient)
    r = N.largest_lyapunov(stay, [1.0, 0.0], tau, n, d0=1e-3, direction=[1.0, 0.5], project=tilted, **kw)
    ts = t0 + (n_transient + np.arange(n)) * tau
    np.testing.assert_allclose(r.log_stretch, 0.5 * np.log((1 + (ts + tau) ** 2) / (1 + ts ** 2)), rtol=1e-9)
    np.testing.assert_allclose(r.running, np.cumsum(r.log_stretch) / (tau * np.arange(1, n + 1)), rtol=1e-14)
    assert 0.0 <= r.wall_s < 60.0 and r.tau == tau


def test_lyapunov_statistics_from_the_logs():
    """halves and the batch-means uncertainty recomputed from ``log_stretch``: batch count and unit rules."""
    def expected(logs, tau, unit):
        n_units = len(logs) // unit
        units = logs[:n_units * unit].reshape(n_units, unit) if n_units >= 2 else logs[:, None]
        n_units = len(units)
        h = n_units // 2
        nb = min(N.LYAPUNOV_BATCHES, n_units) if n_units >= 2 * N.LYAPUNOV_BATCHES else 2
        means = [np.mean(p) / tau for p in np.array_split(units, nb)]
        return (np.mean(units[:h]) / tau, np.mean(units[h:]) / tau), np.std(means, ddof=1) / math.sqrt(nb), nb

    def wobble(y, a, b):                       # stretch factor changes with the start time: logs all differ
        return y * math.exp((b - a) * (0.3 + math.sin(3.0 * a)))

    cases = [(4, 1, 2), (4, 2, 2), (5, 2, 2), (4, 3, 2), (7, 1, 2), (8, 1, 4), (9, 1, 4), (12, 3, 2), (16, 2, 4), (17, 1, 4)]
    for n, unit, nb in cases:
        kw = {} if unit == 1 else dict(batch_unit=unit)
        r = N.largest_lyapunov(wobble, [1.0], 0.25, n, direction=[1.0], **kw)
        halves, unc, nb_exp = expected(r.log_stretch, 0.25, unit)
        assert nb_exp == nb, (n, unit)
        assert r.halves == pytest.approx(halves, rel=1e-12), (n, unit)
        assert r.uncertainty == pytest.approx(unc, rel=1e-12) and unc > 0, (n, unit)
    r = N.largest_lyapunov(wobble, [1.0], 0.25, 3, direction=[1.0])
    assert math.isnan(r.uncertainty) and all(math.isnan(h) for h in r.halves)


def test_lyapunov_bad_arguments_and_failures_are_named():
    y0 = [0.4, -0.3, 0.1]
    with pytest.raises(ParameterError, match=r"tau must be a number > 0 s"):
        N.largest_lyapunov(stay, y0, 0.0, 4)
    with pytest.raises(ParameterError, match=r"t0 must be a finite number s"):
        N.largest_lyapunov(stay, y0, 1.0, 4, t0=float("nan"))
    with pytest.raises(ParameterError, match=r"d0 must be a number > 0"):
        N.largest_lyapunov(stay, y0, 1.0, 4, d0=0.0)
    with pytest.raises(ParameterError, match=r"indices must be distinct integers in \[0, 2\]"):
        N.largest_lyapunov(stay, y0, 1.0, 4, indices=[0, 3])
    with pytest.raises(ParameterError, match=r"^indices"):
        N.largest_lyapunov(stay, y0, 1.0, 4, indices=[[0, 1]])
    with pytest.raises(ParameterError, match=r"projected perturbation vanished"):
        N.largest_lyapunov(stay, y0, 1.0, 4, project=lambda y, t: np.zeros(3))

    def collapse(y, a, b):                     # every point to the origin from t = 1.5 on
        return np.zeros_like(y) if b > 1.4 else np.array(y, dtype=float)

    with pytest.raises(ParameterError, match=r"coincided or diverged \(distance 0\.0\) at t = 1\.5;"):
        N.largest_lyapunov(collapse, y0, 0.5, 6, t0=0.5)
