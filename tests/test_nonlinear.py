"""Nonlinear-dynamics toolkit (robolib.nonlinear) against known answers.

* largest Lyapunov exponent: the Lorenz system (published value 0.9056,
  Sprott 2003) and a damped oscillator (exactly -zeta*omega, exact matrix
  exponential flow); the gear-shift manipulator in its period-1 regime is stable;
* Poincaré sampling and period detection on signals of known period;
* parallel sweep == serial sweep; spectrum of known sinusoids.
"""

import functools
import math

import numpy as np
import pytest
from scipy.linalg import expm

from robolib import ParameterError
from robolib import nonlinear as N


def test_lorenz_largest_lyapunov_matches_published_value():
    flow = N.rk4_flow(N.lorenz, 0.01)
    r = N.largest_lyapunov(flow, np.array([1.0, 1.0, 1.0]), tau=1.0, n_renorm=400, n_transient=20, seed=0)
    assert r.exponent == pytest.approx(N.LORENZ_LYAPUNOV, abs=0.03)  # finite-time estimate, ~3 %
    assert r.running.shape == (400,) and np.all(np.isfinite(r.log_stretch))


def test_damped_oscillator_exponent_is_minus_zeta_omega():
    omega, zeta = 3.0, 0.1
    A = np.array([[0.0, 1.0], [-omega**2, -2 * zeta * omega]])

    def flow(y, t0, t1):  # exact flow, independent of any integrator
        return expm(A * (t1 - t0)) @ y

    r = N.largest_lyapunov(flow, np.array([1.0, 0.0]), tau=0.5, n_renorm=400, d0=1e-6, seed=1)
    assert r.exponent == pytest.approx(-zeta * omega, abs=0.01 * omega)
    # the RK4 flow of the same oscillator agrees
    r2 = N.largest_lyapunov(N.rk4_flow(N.damped_oscillator(omega, zeta), 0.01), np.array([1.0, 0.0]),
                            tau=0.5, n_renorm=400, d0=1e-6, seed=1)
    assert r2.exponent == pytest.approx(r.exponent, abs=1e-6)


def test_lyapunov_bad_input():
    flow = lambda y, a, b: y  # noqa: E731
    with pytest.raises(ParameterError, match="tau"):
        N.largest_lyapunov(flow, np.zeros(2), tau=0.0, n_renorm=3)
    with pytest.raises(ParameterError, match="coincided"):
        N.largest_lyapunov(lambda y, a, b: np.zeros_like(y), np.zeros(2), tau=1.0, n_renorm=3)
    with pytest.raises(ParameterError, match="weights"):
        N.largest_lyapunov(flow, np.zeros(2), tau=1.0, n_renorm=3, weights=[1.0])


@pytest.mark.slow
def test_gearshift_period_one_regime_has_negative_exponent():
    from robolib import gearshift as G

    r = G.lyapunov_run(G.load_parameters(), frequency=4.0, clearance=1e-4, n_transient=6, n_renorm=12,
                       tau_periods=0.5)
    assert r.exponent < 0


def test_poincare_sampling_and_period_detection():
    t = np.linspace(0, 40, 40001)
    period = 2.0
    p1 = np.stack([np.sin(np.pi * t), np.cos(np.pi * t)], axis=-1)                     # period 2
    p2 = np.stack([np.sin(np.pi * t) + 0.5 * np.cos(np.pi * t / 2), np.cos(np.pi * t)], axis=-1)  # period 4
    s1 = N.poincare_section(t, p1, period, t_transient=10.0)
    s2 = N.poincare_section(t, p2, period, t_transient=10.0)
    assert s1.shape == (16, 2)
    np.testing.assert_allclose(s1, np.tile([0.0, 1.0], (16, 1)), atol=1e-6)
    assert N.distinct_points(s1, 1e-4) == 1 and N.distinct_points(s2, 1e-4) == 2
    np.testing.assert_allclose(N.poincare_times(period, 5, 3), [10.0, 12.0, 14.0])
    with pytest.raises(ParameterError, match="period"):
        N.poincare_section(t, p1, -1.0)
    with pytest.raises(ParameterError, match="one row per time"):
        N.poincare_section(t[:-1], p1, 1.0)


def _duffing_amplitude(omega, n_transient=20, n_samples=5):
    """Poincaré samples of a weakly forced damped Duffing oscillator (cheap picklable sweep task)."""
    f = lambda t, y: np.array([y[1], -0.2 * y[1] - y[0] - 0.1 * y[0] ** 3 + 0.3 * np.cos(omega * t)])  # noqa: E731
    flow = N.rk4_flow(f, 0.02)
    T = 2 * np.pi / omega
    y = flow(np.zeros(2), 0.0, n_transient * T)
    out = []
    for k in range(n_samples):
        y = flow(y, (n_transient + k) * T, (n_transient + k + 1) * T)
        out.append(y[0])
    return np.array(out)


def test_parallel_sweep_equals_serial_sweep():
    values = [0.6, 0.9, 1.2]
    fun = functools.partial(_duffing_amplitude, n_transient=25, n_samples=3)
    v1, serial = N.sweep(fun, values, n_jobs=1)
    v2, par = N.sweep(fun, values, n_jobs=2)
    assert v1 == v2 == values
    for a, b in zip(serial, par):
        np.testing.assert_array_equal(a, b)
    p, s = N.bifurcation_points(values, par)
    assert p.shape == s.shape == (9,)
    # weakly forced, damped: period-1 response (all samples of one run coincide)
    assert all(N.distinct_points(r[:, None], 1e-3) == 1 for r in par)


def test_spectrum_recovers_amplitudes_and_frequencies():
    fs, T = 1000.0, 2.0
    t = np.arange(int(fs * T)) / fs
    x = 1.5 + 0.8 * np.sin(2 * np.pi * 20 * t) + 0.2 * np.cos(2 * np.pi * 75 * t + 0.3)
    f, a = N.spectrum(t, x)
    assert f[1] == pytest.approx(1 / T)
    i20, i75 = np.argmin(np.abs(f - 20)), np.argmin(np.abs(f - 75))
    assert a[i20] == pytest.approx(0.8, rel=1e-9) and a[i75] == pytest.approx(0.2, rel=1e-9)
    assert a[0] == pytest.approx(0.0, abs=1e-12)          # mean removed
    f2, a2 = N.spectrum(t, x, window="none")
    assert a2[i20] == pytest.approx(0.8, rel=1e-9)
    with pytest.raises(ParameterError, match="uniformly"):
        N.spectrum(np.r_[t[:-1], t[-1] + 0.5], x)
    with pytest.raises(ParameterError, match="window"):
        N.spectrum(t, x, window="kaiser")
