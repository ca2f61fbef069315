"""robolib.core.nonlinear fuzzed: every public entry point names a bad argument; properties on random valid inputs.

Part 1 (tests/fuzzing.py): for each public function of :mod:`robolib.core.nonlinear` a valid call and,
per argument, the kind of value it takes; a bad value of that kind must raise a
:class:`robolib.RobolibError` naming the argument -- never a bare error, a NaN or a result.

Part 2: properties that must hold on random valid inputs: :func:`period_k` of a sequence built with
period k reads k; the Poincaré section of an exactly periodic signal has zero spread; the largest
Lyapunov exponent of a damped oscillator is ``-zeta omega`` within its uncertainty; the spectrum of a
sine peaks at its frequency with its amplitude; a sweep equals the serial map on any list (joblib and
serial, with and without a checkpoint).
"""

from __future__ import annotations

import math
import tempfile

import numpy as np
import pytest
from fuzzing import budget, entry_point_tests
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.linalg import expm

from robolib import nonlinear as N

pytestmark = pytest.mark.fuzz  # make fuzz: -m fuzz with a larger budget

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
    "callable_settings": "describes any object (every value is valid); keys tested in tests/test_sweep_checkpoint.py",
    "code_fingerprint": "takes no argument", "point_files": "point_key for each value (its arguments fuzzed there)",
}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


def test_the_table_covers_the_public_functions():
    covered = {name.split("(")[0] for name in ENTRY_POINTS} | set(NOT_FUZZED)
    # the periodic-orbit names re-exported from robolib.core.periodic / .continuation are fuzzed in tests/test_periodic.py;
    # the sweeps of robolib.core.parallel, re-exported too, are fuzzed here
    mine = {N.__name__, "robolib.core.parallel"}
    public = {n for n in N.__all__ if callable(getattr(N, n)) and getattr(getattr(N, n), "__module__", N.__name__) in mine}
    assert {"sweep", "point_key", "largest_lyapunov"} <= public
    assert sorted(public - covered) == []


# ---- part 2: properties ------------------------------------------------------------------------------
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


@budget(20)
@given(n=st.integers(64, 1024), k=st.integers(1, 30), a=st.floats(0.01, 10.0), fs=st.floats(10.0, 1e4))
def test_the_spectrum_of_a_sine_peaks_at_its_frequency(n, k, a, fs):
    assume(k < n // 2 - 1)
    t = np.arange(n) / fs
    f0 = k * fs / n                                    # on a bin: the Hann amplitude is exact
    f, amp = N.spectrum(t, a * np.sin(2 * np.pi * f0 * t) + 3.0)
    assert math.isclose(f[np.argmax(amp)], f0, rel_tol=1e-9)
    assert math.isclose(amp.max(), a, rel_tol=1e-9) and amp[0] < 1e-9 * a


@budget(10)
@given(values=st.lists(st.floats(-1e3, 1e3, allow_nan=False), max_size=8), n_jobs=st.sampled_from([1, 2]),
       checkpoint=st.booleans())
def test_a_sweep_equals_the_serial_map(values, n_jobs, checkpoint):
    with tempfile.TemporaryDirectory() as d:
        got, res = N.sweep(abs, values, n_jobs=n_jobs, checkpoint=d if checkpoint else None)
    assert got == values and res == [abs(v) for v in values]
