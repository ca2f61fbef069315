"""The nonlinear-dynamics toolkit (robolib.core.nonlinear) against known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fuzzing import budget, entry_point_tests, names
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.linalg import expm

from robolib import ParameterError
from robolib import nonlinear as N

# ==== Lyapunov exponents, Poincare sections, periods and spectra against known answers ==============================
#
# Nonlinear-dynamics toolkit (robolib.core.nonlinear) against known answers.
#
# * largest Lyapunov exponent: the Lorenz system (published value 0.9056,
#   Sprott 2003) and a damped oscillator (exactly -zeta*omega, exact matrix
#   exponential flow); the gear-shift manipulator in its period-1 regime is stable;
# * Poincaré sampling and period detection on signals of known period;
# * parallel sweep == serial sweep; spectrum of known sinusoids.

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
    with pytest.raises(ParameterError, match=names("x", "one row", "time")):
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
    with pytest.raises(ParameterError, match=names("rtols", "loosest", "tightest")):
        N.ladder_verdict(rts[::-1], [0, 0, 0], flat)
    with pytest.raises(ParameterError, match=names("periods", "shape", "(3,)")):
        N.ladder_verdict(rts, [0, 0], flat)
    with pytest.raises(ParameterError, match=names("residuals", "shape", "(3, n)")):
        N.ladder_verdict(rts, [0, 0, 0], flat[:2])
    with pytest.raises(ParameterError, match=names("two or more", "rtols")):
        N.misfit_slope([1e-9], [1e-3])
    with pytest.raises(ParameterError, match=names("rtols", "positive", "not all equal")):
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



# ==== every entry point names a bad argument; known answers on random signals =======================================
#
# robolib.core.nonlinear fuzzed: every public entry point names a bad argument; properties on random valid inputs.
#
# Part 1 (tests/fuzzing.py): for each public function of :mod:`robolib.core.nonlinear` a valid call and,
# per argument, the kind of value it takes; a bad value of that kind must raise a
# :class:`robolib.RobolibError` naming the argument -- never a bare error, a NaN or a result.
#
# Part 2: properties that must hold on random valid inputs: :func:`period_k` of a sequence built with
# period k reads k; the Poincaré section of an exactly periodic signal has zero spread; the largest
# Lyapunov exponent of a damped oscillator is ``-zeta omega`` within its uncertainty; the spectrum of a
# sine peaks at its frequency with its amplitude; a sweep equals the serial map on any list (joblib and
# serial, with and without a checkpoint).

T50 = np.linspace(0.0, 4.9, 50)


X50 = np.stack([np.sin(2 * np.pi * T50), np.cos(2 * np.pi * T50)], axis=-1)


S12 = np.tile([[0.0, 1.0], [1.0, 0.0]], (6, 1))


FLOW = N.rk4_flow(N.damped_oscillator(2.0, 0.1), 0.05)


RT4 = np.array([1e-6, 1e-7, 1e-8, 1e-9])


def rows_bad(n: int, d: int = 2, allow_other_rows: bool = False):
    """Bad sample arrays (n, d) where any d is valid: a NaN/inf entry, text, None, bool, empty, 3-D, other n."""
    def with_entry(bad, i):
        a = np.ones((n, d))
        a.flat[i % a.size] = bad
        return a

    fixed = ["x", None, True, np.zeros((0, d)), np.ones((n, d, 2)), np.array([["a"] * d] * n)]
    if not allow_other_rows:
        fixed.append(np.ones((n - 1, d)))
    return st.one_of(st.builds(with_entry, st.sampled_from([np.nan, np.inf, -np.inf]), st.integers(0, 99)),
                     st.sampled_from(fixed))


TEXT = st.sampled_from([None, 1.0, True, [], b"x", ("a",)])


NAME = st.sampled_from([1.0, True, [], b"x", ("a",)])          # an optional name: None is valid


CALLABLE = st.sampled_from([None, 1.0, "abs", [], np.ones(2)])


INT_ARRAY4 = st.sampled_from([np.array([0, 0, 1.5, 1]), np.array([0, 0, -1, 1]), np.array([0, 0, 1]),
                              np.array([0, 0, np.nan, 1]), "x", None, np.array(["a"] * 4)])


N_JOBS = st.sampled_from([0, 1.5, True, "2", float("nan"), [], {}])


VALUES = st.sampled_from([None, 1.0, 3, "abc", b"xy"])


ENTRY_POINTS = {
    "poincare_times": (N.poincare_times, dict(period=0.5, n_transient=2, n_samples=3, t0=0.0, phase=0.0),
                       {"period": "positive", "n_transient": "seed", "n_samples": "count", "t0": "real",
                        "phase": "real"}),
    "poincare_section": (N.poincare_section, dict(t=T50, x=X50, period=1.0, t_transient=1.0, phase=0.0),
                         {"t": (50,), "x": rows_bad(50), "period": "positive", "t_transient": "real", "phase": "real"}),
    "distinct_points": (N.distinct_points, dict(samples=S12, tol=1e-6), {"samples": rows_bad(12, allow_other_rows=True), "tol": "nonnegative"}),
    "repeat_residuals": (N.repeat_residuals, dict(samples=S12, k_max=3),
                         {"samples": st.one_of(rows_bad(12, allow_other_rows=True), st.just(np.ones((3, 2)))),
                          "k_max": st.sampled_from([0, -1, 1.5, True, "3", None, 12, 99])}),
    "period_k": (N.period_k, dict(samples=S12, tol=1e-6, k_max=3),
                 {"samples": st.one_of(rows_bad(12, allow_other_rows=True), st.just(np.ones((3, 2)))), "tol": "positive",
                  "k_max": "count"}),
    "period_name": (N.period_name, dict(k=2), {"k": "seed"}),
    "misfit_slope": (N.misfit_slope, dict(rtols=RT4, misfits=[1e-3, 1e-4, 1e-5, 1e-6]),
                     {"rtols": st.one_of(st.just(-RT4), st.just(np.zeros(4)), st.just(np.full(4, 1e-9)),
                                         st.sampled_from([np.ones(3), np.array([np.nan] * 4), "x", None, True])),
                      "misfits": (4,)}),
    "ladder_verdict": (N.ladder_verdict, dict(rtols=RT4, periods=[0, 0, 1, 1], residuals=np.full((4, 2), 0.5)),
                       {"rtols": st.sampled_from([RT4[::-1], -RT4, np.ones(4) * np.nan, RT4[:1], "x", None]),
                        "periods": INT_ARRAY4,
                        "residuals": st.one_of(st.just(-np.ones((4, 2))), st.sampled_from([np.ones((3, 2)),
                                               np.ones(4), np.full((4, 2), np.inf), np.zeros((4, 0)), "x", None]))}),
    "sweep": (N.sweep, dict(fun=abs, values=[-1, 2], n_jobs=1, keyword=None, backend=None, checkpoint=None),
              {"fun": CALLABLE, "values": VALUES, "n_jobs": N_JOBS, "keyword": NAME,
               "backend": st.sampled_from([1, True, [], b"loky"]), "checkpoint": st.sampled_from([1.0, True, []])}),
    "bifurcation_points": (N.bifurcation_points, dict(values=[1.0, 2.0], results=[np.array([0.1]), np.ones(2)]),
                           {"values": st.sampled_from([[1.0, np.nan], "x", None, [[1.0, 2.0]], [True, False]]),
                            "results": st.sampled_from([[np.ones(1)], None, "ab", [np.ones(1), [np.nan]],
                                                        [np.ones(1), "x"]])}),
    "bifurcation_points(key)": (N.bifurcation_points, dict(values=[1.0], results=[{"s": np.ones(2)}], key="s"),
                                {"key": st.sampled_from(["t", 0, "S"])}),
    "largest_lyapunov": (N.largest_lyapunov, dict(flow=FLOW, y0=np.array([1.0, 0.0]), tau=0.5, n_renorm=4, t0=0.0,
                                                  d0=1e-6, n_transient=0, indices=[0, 1], weights=[1.0, 2.0],
                                                  direction=[1.0, 0.0], seed=0, batch_unit=1),
                         {"flow": CALLABLE, "y0": st.sampled_from([[1.0, np.nan], [np.inf, 0.0], "x", None, True, np.zeros(0),
                                                                  np.ones((2, 2)), ["a", "b"]]), "tau": "positive", "n_renorm": "count", "t0": "real",
                          "d0": "positive", "n_transient": "seed",
                          "indices": st.sampled_from([[0, 2], [0, 0], [-1], [0.5, 1], "x", [np.nan]]),
                          "weights": st.one_of(st.just([1.0, 0.0]), st.just([1.0, -1.0]),
                                               st.sampled_from([[1.0], [np.nan, 1.0], "x"])),
                          "direction": st.one_of(st.just([0.0, 0.0]), st.sampled_from([[1.0], [np.inf, 0.0], "x"])),
                          "seed": "seed", "batch_unit": "count"}),
    "rk4_flow": (N.rk4_flow, dict(fun=N.lorenz, h=0.01), {"fun": CALLABLE, "h": "positive"}),
    "damped_oscillator": (N.damped_oscillator, dict(omega=2.0, zeta=0.1), {"omega": "positive", "zeta": "nonnegative"}),
    "spectrum": (N.spectrum, dict(t=T50, x=X50[:, 0], window="hann"),
                 {"t": st.one_of(st.just(T50 ** 2), st.just(T50[::-1].copy()), st.sampled_from([T50[:3], np.nan * T50])),
                  "x": (50,), "window": st.sampled_from(["kaiser", "", None, 1.0, True, "HANN "])}),
    "point_key": (N.point_key, dict(fun=abs, value=1.0, keyword=None), {"fun": st.just(lambda v: v),
                                                                       "keyword": NAME}),
}


#: Public names of robolib.core.nonlinear that are not in the table, and why.
NOT_FUZZED = {
    "lorenz": "a right-hand side called inside the integrator's loop (its y comes from rk4_flow); checked "
              "through rk4_flow and the Lorenz exponent",
    "LyapunovResult": "result container", "CheckpointWarning": "a warning class",
    "callable_settings": "describes any object (every value is valid); keys tested in tests/core/test_parallel.py",
    "code_fingerprint": "takes no argument", "point_files": "point_key for each value (its arguments fuzzed there)",
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.fuzz
def test_the_table_covers_the_public_functions():
    covered = {name.split("(")[0] for name in ENTRY_POINTS} | set(NOT_FUZZED)
    # the periodic-orbit names re-exported from robolib.core.periodic / .continuation are fuzzed in tests/core/test_periodic.py;
    # the sweeps of robolib.core.parallel, re-exported too, are fuzzed here
    mine = {N.__name__, "robolib.core.parallel"}
    public = {n for n in N.__all__ if callable(getattr(N, n)) and getattr(getattr(N, n), "__module__", N.__name__) in mine}
    assert {"sweep", "point_key", "largest_lyapunov"} <= public
    assert sorted(public - covered) == []


# ---- part 2: properties ------------------------------------------------------------------------------
@pytest.mark.fuzz
@budget(30)
@given(k=st.integers(1, 8), d=st.integers(1, 4), reps=st.integers(3, 5), seed=st.integers(0, 2 ** 16))
def test_period_k_reads_the_period_a_sequence_is_built_with(k, d, reps, seed):
    """Distinct base points repeated ``reps`` times: period k; the lags below k keep a misfit >= their gap."""
    base = np.random.default_rng(seed).normal(size=(k, d))
    gap = min((np.max(np.abs(base[i] - base[j])) for i in range(k) for j in range(k) if i != j), default=1.0)
    assume(gap > 1e-6)
    seq = np.tile(base, (reps, 1))
    assert N.period_k(seq, 1e-9 * gap, k_max=min(8, len(seq) - 1)) == k
    res = N.repeat_residuals(seq, k)
    assert res[k - 1] == 0.0 and np.all(res[:k - 1] >= gap)


@pytest.mark.fuzz
@budget(20)
@given(period=st.floats(0.05, 5.0), n=st.integers(3, 12), phase=st.floats(0.0, 0.9),
       amp=st.floats(0.1, 10.0), c=st.floats(-5, 5))
def test_the_section_of_an_exactly_periodic_signal_has_zero_spread(period, n, phase, amp, c):
    """Sampled once per period at the same phase, a periodic signal gives one point (up to interpolation)."""
    t = np.linspace(0.0, n * period, 200 * n + 1)
    x = np.stack([amp * np.sin(2 * np.pi * t / period) + c, amp * np.cos(4 * np.pi * t / period)], axis=-1)
    s = N.poincare_section(t, x, period, t_transient=0.0, phase=phase)
    assert len(s) >= n - 1
    assert np.max(np.ptp(s, axis=0)) <= 1e-3 * amp          # linear interpolation error of a 200-point period
    assert N.distinct_points(s, 1e-3 * amp) == 1
    ref = np.array([amp * np.sin(2 * np.pi * phase) + c, amp * np.cos(4 * np.pi * phase)])
    assert np.allclose(s[0], ref, atol=1e-3 * amp)


@pytest.mark.fuzz
@budget(8)
@given(omega=st.floats(0.5, 5.0), zeta=st.floats(0.02, 0.5), seed=st.integers(0, 100))
def test_the_lyapunov_exponent_of_a_damped_oscillator_is_minus_zeta_omega(omega, zeta, seed):
    """Exact flow (matrix exponential): the estimate is -zeta*omega within its uncertainty (plus a period's
    worth of finite-time bias: the separation rotates through the oscillation, so each renormalisation sees a
    stretch that depends on the phase)."""
    A = np.array([[0.0, 1.0], [-omega ** 2, -2 * zeta * omega]])
    tau = 0.5 * 2 * np.pi / omega
    n = 200

    def flow(y, t0, t1):
        return expm(A * (t1 - t0)) @ y

    r = N.largest_lyapunov(flow, np.array([1.0, 0.0]), tau, n, d0=1e-6, seed=seed, batch_unit=2)
    bias = 2 * abs(math.log(max(omega, 1 / omega))) / (n * tau) + 5 * r.uncertainty
    assert abs(r.exponent + zeta * omega) <= bias + 0.01 * zeta * omega


@pytest.mark.fuzz
@budget(20)
@given(n=st.integers(64, 1024), k=st.integers(1, 30), a=st.floats(0.01, 10.0), fs=st.floats(10.0, 1e4))
def test_the_spectrum_of_a_sine_peaks_at_its_frequency(n, k, a, fs):
    assume(k < n // 2 - 1)
    t = np.arange(n) / fs
    f0 = k * fs / n                                    # on a bin: the Hann amplitude is exact
    f, amp = N.spectrum(t, a * np.sin(2 * np.pi * f0 * t) + 3.0)
    assert math.isclose(f[np.argmax(amp)], f0, rel_tol=1e-9)
    assert math.isclose(amp.max(), a, rel_tol=1e-9) and amp[0] < 1e-9 * a



# ==== RK4, sampling, period detection and the ladder verdict worked out by hand =====================================
#
# Tests that kill the surviving mutants of robolib/core/nonlinear.py (``make mutate``, issue 21 item 5).
#
# Each test works a case out by hand or in closed form: RK4 on polynomials in t (exact), sampling instants
# counted on the grid, a Lyapunov run on a map and a time-dependent manifold whose log-stretches are known,
# its batch statistics recomputed from the logs, and the ladder rule at the edges of its thresholds.

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
    with pytest.raises(ParameterError, match=names("h", "> 0", "s")):
        N.rk4_flow(f, 0.0)


# ----------------------------------------------------------------------------- sampling
def test_poincare_times_by_hand_and_their_ranges():
    np.testing.assert_allclose(N.poincare_times(0.4, 0, 3, t0=1.0, phase=0.25), [1.1, 1.5, 1.9], atol=1e-15)
    np.testing.assert_allclose(N.poincare_times(0.4, 2, 2), [0.8, 1.2], atol=1e-15)
    with pytest.raises(ParameterError, match=names("n_transient", ">= 0")):
        N.poincare_times(0.4, -1, 2)
    with pytest.raises(ParameterError, match=names("period", "> 0", "s")):
        N.poincare_times(0.0, 1, 2)
    with pytest.raises(ParameterError, match=names("t0", "finite")):
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
    with pytest.raises(ParameterError, match=names("3", "x", "201", "t")):
        N.poincare_section(t, np.zeros((3, 2)), 0.5)
    with pytest.raises(ParameterError, match=names("t", "increasing")):
        N.poincare_section([0.0, 1.0, 1.0], [1.0, 2.0, 3.0], 0.5)
    with pytest.raises(ParameterError, match=names("t", "at least 2", "got 1")):
        N.poincare_section([0.0], [1.0], 0.5)
    with pytest.raises(ParameterError, match=names("t", "shape", "(n,)", "(2, 2)")):
        N.poincare_section([[0.0, 1.0], [2.0, 3.0]], np.zeros(2), 0.5)
    with pytest.raises(ParameterError, match=names("t_transient", "finite")):
        N.poincare_section(t, x, 0.5, t_transient=float("inf"))
    with pytest.raises(ParameterError, match=names("period", "> 0", "s")):
        N.poincare_section(t, x, -0.5)


def test_ties_at_the_tolerance_count_as_equal():
    assert N.distinct_points([[0.0], [0.5]], 0.5) == 1
    assert N.period_k([0.0, 0.5, 0.0, 0.5], 0.5, 2) == 1             # lag-1 residual equal to tol
    assert N.period_name(np.int64(3)) == "period-3" and N.period_name(np.int32(0)) == "irregular"
    np.testing.assert_array_equal(N.repeat_residuals([0.0, 2.0, 0.0], 2), [2.0, 0.0])   # (N,) is one column
    with pytest.raises(ParameterError, match=names("k_max + 1 = 4", "1..3", "3")):
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
    with pytest.raises(ParameterError, match=names("omega", "> 0", "rad/s")):
        N.damped_oscillator(0.0, 0.2)


def test_spectrum_needs_four_uniform_samples():
    t = np.arange(4) * 0.25
    f, a = N.spectrum(t, np.array([1.0, 0.0, -1.0, 0.0]), window="none")
    np.testing.assert_allclose(f, [0.0, 1.0, 2.0])
    assert a[1] == pytest.approx(1.0, rel=1e-12) and abs(a[0]) < 1e-15
    with pytest.raises(ParameterError, match=names("at least 4", "3")):
        N.spectrum(t[:3], np.zeros(3))
    # a step 5e-9 s short on a 1 ms grid: a relative 5e-6, above UNIFORM_RTOL (no absolute allowance)
    with pytest.raises(ParameterError, match=names("uniformly", "t", "1e-06")):
        N.spectrum(np.array([0.0, 1e-3, 2e-3 + 5e-9, 3e-3, 4e-3]), np.zeros(5))


# ----------------------------------------------------------------------------- the ladder rule
def test_misfit_slope_edges():
    assert N.misfit_slope([1e-6, 1e-8], [1e-2, 1e-3]) == pytest.approx(0.5, rel=1e-12)   # two rtols suffice
    assert N.misfit_slope([1e-6, 1e-7, 1e-8], [0.0, 0.0, 0.0]) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ParameterError, match=names("rtols", "positive")):
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
    with pytest.raises(ParameterError, match=names("rtols", "L >= 2", "positive")):
        N.ladder_verdict([0.0, 1e-9], [1, 1], one[:2])
    with pytest.raises(ParameterError, match=names("rtols", "loosest", "tightest")):
        N.ladder_verdict([1e-9, 1e-9], [1, 1], one[:2])
    with pytest.raises(ParameterError, match=names("rtols", "shape", "(n,)", "(2, 2)")):
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
    with pytest.raises(ParameterError, match=names("tau", "> 0", "s")):
        N.largest_lyapunov(stay, y0, 0.0, 4)
    with pytest.raises(ParameterError, match=names("t0", "finite")):
        N.largest_lyapunov(stay, y0, 1.0, 4, t0=float("nan"))
    with pytest.raises(ParameterError, match=names("d0", "> 0")):
        N.largest_lyapunov(stay, y0, 1.0, 4, d0=0.0)
    with pytest.raises(ParameterError, match=names("indices", "distinct", "[0, 2]")):
        N.largest_lyapunov(stay, y0, 1.0, 4, indices=[0, 3])
    with pytest.raises(ParameterError, match=r"^indices"):
        N.largest_lyapunov(stay, y0, 1.0, 4, indices=[[0, 1]])
    with pytest.raises(ParameterError, match=names("perturbation", "vanished")):
        N.largest_lyapunov(stay, y0, 1.0, 4, project=lambda y, t: np.zeros(3))

    def collapse(y, a, b):                     # every point to the origin from t = 1.5 on
        return np.zeros_like(y) if b > 1.4 else np.array(y, dtype=float)

    with pytest.raises(ParameterError, match=names("coincided or diverged", "0.0", "t = 1.5")):
        N.largest_lyapunov(collapse, y0, 0.5, 6, t0=0.5)
