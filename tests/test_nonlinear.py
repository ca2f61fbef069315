"""Nonlinear-dynamics toolkit (robolib.core.nonlinear) against known answers.

* largest Lyapunov exponent: the Lorenz system (published value 0.9056,
  Sprott 2003) and a damped oscillator (exactly -zeta*omega, exact matrix
  exponential flow); the gear-shift manipulator in its period-1 regime is stable;
* Poincaré sampling and period detection on signals of known period;
* parallel sweep == serial sweep; spectrum of known sinusoids.
"""

import functools

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


def test_dask_sweep_on_a_local_cluster_equals_joblib():
    pytest.importorskip("distributed")
    from dask.distributed import Client, LocalCluster

    values = [0.6, 0.9, 1.2, 1.5]
    fun = functools.partial(_duffing_amplitude, n_transient=10, n_samples=3)
    _, ref = N.sweep(fun, values, n_jobs=2)
    with pytest.raises(ParameterError, match="Client"):
        N.sweep(fun, values, backend="dask")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        v, res = N.sweep(fun, values, backend="dask", client=client)
        v2, res2 = N.sweep(fun, values, backend="dask")          # the default client
    assert v == v2 == values
    for a, b, c in zip(ref, res, res2):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_period_k_finds_the_smallest_period_and_respects_the_tolerance():
    rng = np.random.default_rng(3)
    base = rng.normal(size=(3, 4))
    seq = np.tile(base, (10, 1)) + rng.normal(scale=1e-6, size=(30, 4))   # period 3 with noise 1e-6
    assert N.period_k(seq, 1e-5, 8) == 3
    assert N.period_k(seq, 1e-8, 8) == 0          # tolerance below the noise: not periodic
    assert N.period_k(np.tile(base[:1], (20, 1)), 1e-12, 8) == 1
    assert N.period_k(rng.normal(size=(40, 4)), 1e-2, 8) == 0
    # a period-6 sequence is not called period-2 or 3, and k_max bounds the answer
    six = np.tile(rng.normal(size=(6, 2)), (5, 1))
    assert N.period_k(six, 1e-9, 8) == 6 and N.period_k(six, 1e-9, 5) == 0
    assert N.repeat_residuals(six, 6)[5] == 0.0
    assert N.period_name(0) == "irregular" and N.period_name(2) == "period-2"
    with pytest.raises(ParameterError, match="samples"):
        N.period_k(six[:4], 1e-3, 8)
    with pytest.raises(ParameterError, match="tol"):
        N.period_k(six, 0.0, 2)


def _damped_pendulum(alpha):
    """Bar pinned to ground at one end, spring-damper at the tip: a constrained linear oscillator."""
    from robolib import multibody as mb

    m, L, k, c = 1.0, 0.5, 400.0, 6.0
    bar = mb.Body("bar", m, m * L * L / 12)
    mech = mb.Mechanism([bar], [mb.GroundPin("O", "bar", (-L / 2, 0.0), (0.0, 0.0))],
                        [mb.PointSpringDamper("s", "bar", (L / 2, 0.0), (L, 0.0), k, c)])
    I_O = m * L * L / 3
    # independent linearisation about theta = 0: I_O th'' + c L^2 th' + k L^2 th = 0
    A = np.array([[0.0, 1.0], [-k * L * L / I_O, -c * L * L / I_O]])
    lam_lin = float(np.max(np.linalg.eigvals(A).real))

    def flow(y, t0, t1):
        r = mb.simulate(mech, (t0, t1), y[:3], y[3:6], t_eval=[t1], alpha=alpha, beta=alpha, rtol=1e-11,
                        atol=1e-14)
        return r.y_final[:6]

    def project(y, t):
        q, qd = mb.project(mech, y[:3], y[3:6], t)
        return np.concatenate([q, qd])

    y0 = np.array([L / 2, 0.0, 0.0, 0.0, 0.0, 0.0])
    return flow, project, y0, lam_lin


def test_projected_lyapunov_matches_linearisation_and_not_baumgarte():
    """A stable case faster than -alpha: the projected estimate finds the linearised exponent for any alpha."""
    est = {}
    for alpha in (5.0, 50.0):
        flow, project, y0, lam_lin = _damped_pendulum(alpha)
        r = N.largest_lyapunov(flow, y0, 0.05, 120, d0=1e-6, project=project, seed=1)
        est[alpha] = r
        assert r.exponent == pytest.approx(lam_lin, rel=0.05), alpha   # finite-time bias of a focus ~ 1/T
        assert np.isfinite(r.uncertainty) and r.uncertainty < 0.05 * abs(lam_lin)
    assert lam_lin < -1.5 * 5.0                         # faster than the Baumgarte mode -alpha = -5
    assert abs(est[5.0].exponent - est[50.0].exponent) < 0.02 * abs(lam_lin)
    # without the projection the estimate is pinned near the drift mode (about -alpha) at alpha = 5
    flow, project, y0, lam_lin = _damped_pendulum(5.0)
    raw = N.largest_lyapunov(flow, y0, 0.05, 120, d0=1e-6, seed=1)
    assert raw.exponent > 0.6 * lam_lin


def test_gearshift_lyapunov_does_not_depend_on_alpha():
    from robolib import gearshift as G

    P = G.load_parameters()
    out = [G.lyapunov_run(P, frequency=10.0, clearance=5e-4, n_transient=10, n_renorm=12, alpha=a)
           for a in (5.0, 50.0)]
    assert out[0].exponent < -6.0 and out[1].exponent < -6.0       # a stable orbit, below the drift mode -alpha = -5
    assert abs(out[0].exponent - out[1].exponent) < 2 * (out[0].uncertainty + out[1].uncertainty) + 1.0


def _ladder(fall, gap=0.9, n=4, k=2, start=1e-3):
    """A ladder of n tolerances one decade apart whose lag-k misfit falls by ``fall`` per decade."""
    rts = [10.0 ** (-9 - i) for i in range(n)]
    res = np.full((n, 4), 0.95)
    res[:, k - 1] = start / fall ** np.arange(n)
    res[:, :k - 1] = gap
    return rts, [0] * n, res


def test_ladder_verdict_period_in_the_limit_and_its_boundaries():
    f = 10.0 ** N.LADDER_MIN_SLOPE
    assert N.ladder_verdict(*_ladder(4.0)) == ("limit", 2)
    assert N.ladder_verdict(*_ladder(f * (1 + 1e-9))) == ("limit", 2)      # just above the slope: converges
    assert N.ladder_verdict(*_ladder(f * 0.99)) == ("irregular", 0)        # just below it: does not
    assert N.ladder_verdict(*_ladder(4.0, gap=0.99 * N.LADDER_GAP)) == ("irregular", 0)   # lag 1 too close
    assert N.ladder_verdict(*_ladder(4.0, k=1)) == ("limit", 1)
    assert N.misfit_slope([1e-9, 1e-10, 1e-11, 1e-12], [1e-3, 1e-4, 1e-5, 1e-6]) == pytest.approx(1.0)
    # the fit uses the last LADDER_FIT tolerances only: a plateau before them does not matter
    rts, ks, res = _ladder(10.0, n=N.LADDER_FIT + 2)
    res[:2, 1] = 0.5
    assert N.ladder_verdict(rts, ks, res) == ("limit", 2)
    # one noisy rung does not decide: 50x then 2x per decade (slope about 1) still converges,
    # a fall at one rung followed by a plateau (slope < 0.5) does not
    noisy = np.array([[0.95, 4.9e-3], [0.95, 7.0e-4], [0.95, 1.4e-5], [0.95, 6.7e-6]])
    assert N.ladder_verdict(rts[:4], [0] * 4, noisy) == ("limit", 2)
    flat = noisy.copy()
    flat[2:, 1] = [4.0e-4, 5.0e-4]
    assert N.ladder_verdict(rts[:4], [0] * 4, flat) == ("irregular", 0)
    # fewer than LADDER_MIN_FIT tolerances: no extrapolation
    assert N.ladder_verdict(*_ladder(10.0, n=N.LADDER_MIN_FIT - 1)) == ("irregular", 0)


def test_ladder_verdict_confirmed_irregular_and_not_converged():
    rts = [1e-6, 1e-8, 1e-9]
    flat = np.full((3, 2), 0.5)
    assert N.ladder_verdict(rts, [0, 2, 2], flat) == ("confirmed", 2)
    assert N.ladder_verdict(rts, [1, 0, 0], flat) == ("irregular", 0)
    assert N.ladder_verdict(rts, [0, 0, 1], flat) == ("not converged", -1)   # reading changes at the tight end
    with pytest.raises(ParameterError, match="loosest to tightest"):
        N.ladder_verdict(rts[::-1], [0, 0, 0], flat)
    with pytest.raises(ParameterError, match=r"periods must have shape \(3,\)"):
        N.ladder_verdict(rts, [0, 0], flat)
    with pytest.raises(ParameterError, match=r"residuals must have shape \(3, n\)"):
        N.ladder_verdict(rts, [0, 0, 0], flat[:2])
    with pytest.raises(ParameterError, match="two or more rtols"):
        N.misfit_slope([1e-9], [1e-3])
    with pytest.raises(ParameterError, match="rtols must be positive and not all equal"):
        N.misfit_slope([1e-9, 1e-9], [1e-3, 1e-4])


def test_lyapunov_batches_hold_whole_units_of_a_periodic_stretch_pattern():
    """A period-2 orbit sampled every half period stretches in a pattern of 4 intervals (as at 10 Hz / 0.5 mm):
    the mean is exact, and batches of whole patterns see no scatter, batches of single intervals do."""
    pattern = np.array([100.0, -32.0, -68.0, -30.0])
    tau = 0.05

    def flow(y, a, b):
        return y * np.exp(pattern[int(round(a / tau)) % 4] * (b - a))

    whole = N.largest_lyapunov(flow, np.array([1.0]), tau, 44, batch_unit=4)
    single = N.largest_lyapunov(flow, np.array([1.0]), tau, 44)     # batches of 11 intervals cut the pattern
    assert whole.exponent == pytest.approx(pattern.mean(), abs=1e-5) == single.exponent
    assert whole.uncertainty < 1e-5 and whole.halves == pytest.approx((pattern.mean(), pattern.mean()), abs=1e-5)
    assert single.uncertainty > 1.0


def test_gearshift_lyapunov_uses_whole_drive_periods():
    from robolib import gearshift as G

    r = G.lyapunov_run(G.load_parameters(), frequency=12.0, clearance=5e-4, n_transient=2, n_renorm=5)
    assert len(r.log_stretch) == 8          # rounded up to whole units of two drive periods (4 half periods)
