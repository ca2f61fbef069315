"""The runs of the gear shift (robolib.gearshift.runs): Poincare and Lyapunov runs on both engines."""

import re

import numpy as np
import pytest
from fuzzing import names

from conftest import PROMPT_CPU_S, refusal
from robolib import ParameterError
from robolib import gearshift as G
from robolib.gearshift import store as B
from robolib.gearshift.runs import DEFAULT_ENGINE, ENGINES, REFERENCE_ENGINE, check_engine
from robolib.studies.clearance_dynamics.settings import study_settings

# ==== Lyapunov runs of the gear shift ===============================================================================

@pytest.mark.slow
def test_gearshift_period_one_regime_has_negative_exponent():
    from robolib import gearshift as G

    r = G.lyapunov_run(G.load_parameters(), frequency=4.0, clearance=1e-4, n_transient=4, n_periods=4, rtol=1e-8)
    assert r.exponent + 3 * r.uncertainty < 0


def test_gearshift_lyapunov_on_the_dae_does_not_depend_on_alpha_and_meets_the_fast_model():
    """The DAE's tangent, read in the chart (e, ed), carries no Baumgarte mode: alpha 5 and 50 /s give the fast
    model's exponent of the stable 10 Hz orbit (about -4.4 /s, above the drift mode -alpha = -5 /s)."""
    from robolib import gearshift as G

    P = G.load_parameters()
    kw = dict(frequency=10.0, clearance=5e-4, n_transient=20, n_periods=8, rtol=1e-10)
    dae = [G.lyapunov_run(P, alpha=a, **kw) for a in (5.0, 50.0)]
    fast = G.lyapunov_run(P, engine="fast", **(kw | {"rtol": 1e-9}))   # the fast model at rtol / 10
    assert abs(dae[0].exponent - dae[1].exponent) <= 3 * (dae[0].uncertainty + dae[1].uncertainty)
    assert abs(dae[0].exponent - fast.exponent) <= 3 * (dae[0].uncertainty + fast.uncertainty)
    assert -5.0 < fast.exponent < -4.0


def test_gearshift_lyapunov_measures_whole_drive_periods():
    from robolib import gearshift as G

    r = G.lyapunov_run(G.load_parameters(), frequency=12.0, clearance=5e-4, n_transient=2, n_periods=5, rtol=1e-6)
    assert len(r.log_stretch) == 5 * r.per_period and r.tau == pytest.approx(1 / 12 / r.per_period)



# ==== the runs: rates, picklable tasks and bad arguments named ======================================================

P = G.load_parameters()


GS = G.build_gearshift(P)


# ----------------------------------------------------------------------------- helpers for the notebook
def test_journal_orbit_rates_and_drawing():
    ts = np.linspace(0.0, 0.02, 2001)
    cm, r = G.simulate_clearance(GS, 0.02, t_eval=ts, rtol=1e-9, atol=1e-12)
    orb = G.journal_orbit(cm, r.q, r.qd)
    e_fd = np.gradient(orb.e, ts, axis=0)
    free = slice(10, 400)  # free flight before the first impact (4.1 ms): smooth signal
    np.testing.assert_allclose(orb.e_dot[free], e_fd[free], atol=1e-4 * np.abs(orb.e_dot[free]).max())
    np.testing.assert_allclose(np.hypot(*orb.e_local.T), orb.eps, rtol=1e-12)
    segs = GS.drawing(r.q[-1])
    for name, seg in segs.items():
        if name != "ground":
            L = GS.lpc if name == "lever" else GS.l
            assert np.hypot(*(seg[1] - seg[0])) == pytest.approx(L, rel=1e-12)


def test_poincare_run_and_lyapunov_run_are_picklable_tasks():
    import pickle

    out = G.poincare_run(P, frequency=12.0, clearance=2e-4, n_transient=1, n_samples=2)
    assert out.t.tolist() == pytest.approx([1 / 12, 2 / 12])
    assert out.e_local.shape == (2, 2) and np.all(out.eps < 2e-4 * 1.1)
    assert np.abs(out.dE).max() < 5 * 2e-4
    assert pickle.loads(pickle.dumps(G.lyapunov_run)) is G.lyapunov_run


# ----------------------------------------------------------------------------- arguments of the kernels
NAN, INF = float("nan"), float("inf")


def _refused(fun, *args, name, valid, **kwargs):
    """``fun(*args, **kwargs)`` raises ParameterError naming ``name`` and its valid values, before any integration."""
    msg, cpu = refusal(lambda: fun(*args, **kwargs),
                       rf"^{re.escape(name)} = .* is not valid: {re.escape(name)} must be {re.escape(valid)}")
    assert cpu < PROMPT_CPU_S, f"{fun.__name__} {kwargs}: refused after {cpu:.2f} s of CPU"
    return msg


FREQ = "a number > 0 Hz, or None"


RTOL = "a number in (0, 1), or None"


ATOL = "a number > 0, or None"


CLEAR = "a number > 0 m, or None"


#: (argument, bad values, valid values in words) of poincare_run.
POINCARE_BAD = [
    ("frequency", [0.0, -6.0, NAN, INF, True, "6"], FREQ),
    ("clearance", [0.0, -5e-4, NAN, INF, False, "5e-4"], CLEAR),
    ("rtol", [0.0, 1.0, -1e-9, 2.0, NAN, INF, True, "1e-9"], RTOL),
    ("atol", [0.0, -1e-12, NAN, INF, True], ATOL),
    ("n_transient", [-1, 1.5, 20.0, NAN, True, None], "an integer >= 0"),
    ("n_samples", [1, 0, -60, 60.0, NAN, True, None], "an integer >= 2"),
    ("k_max", [0, -1, 2.0, True], "an integer >= 1, or None"),
]


def stable_id(value) -> str:
    """A test id without memory addresses (ids stay the same from one process to the next: mutmut, --lf)."""
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    return re.sub(r" at 0x[0-9a-f]+", "", repr(value))[:80]


@pytest.mark.parametrize("name, value, valid", [(n, v, t) for n, vs, t in POINCARE_BAD for v in vs], ids=repr)
def test_poincare_run_refuses_bad_arguments_by_name(name, value, valid):
    _refused(G.poincare_run, P, name=name, valid=valid, **{"frequency": 12.0, name: value})


def test_the_issue_21_inputs_are_named():
    """frequency = 0 was a ZeroDivisionError, NaN an UnreachableError about the end point, rtol = 0 ran."""
    msg = _refused(G.poincare_run, P, name="frequency", valid=FREQ, frequency=0.0)
    assert msg.startswith("frequency = 0.0 is not valid: frequency must be a number > 0 Hz")
    _refused(G.poincare_run, P, name="frequency", valid=FREQ, frequency=NAN)
    _refused(G.poincare_run, P, name="rtol", valid=RTOL, frequency=6.0, rtol=0.0)


LYAPUNOV_BAD = [
    ("frequency", [0.0, NAN, -INF], FREQ), ("clearance", [0.0, NAN], CLEAR), ("rtol", [0.0, 1.0], RTOL),
    ("n_transient", [-1, 2.5], "an integer >= 0"), ("n_periods", [0, -4, 24.0, True], "an integer >= 1"),
    ("seed", [-1, 0.5, True], "an integer >= 0"),
    ("alpha", [-1.0, NAN, INF], "a number >= 0 1/s, or None"),
]


@pytest.mark.parametrize("name, value, valid", [(n, v, t) for n, vs, t in LYAPUNOV_BAD for v in vs], ids=repr)
def test_lyapunov_run_refuses_bad_arguments_by_name(name, value, valid):
    _refused(G.lyapunov_run, P, name=name, valid=valid, **{"frequency": 10.0, "n_transient": 1, name: value})


@pytest.mark.parametrize("fun, kwargs, name, valid", [
    (G.orbit_run, {"frequency": 0.0}, "frequency", FREQ),
    (G.orbit_run, {"clearance": -1e-4}, "clearance", CLEAR),
    (G.orbit_run, {"n_transient": -1}, "n_transient", "an integer >= 0"),
    (G.orbit_run, {"n_periods": 0}, "n_periods", "an integer >= 1"),
    (G.orbit_run, {"samples_per_period": 0}, "samples_per_period", "an integer >= 1"),
    (G.orbit_run, {"samples_per_period": 200.0}, "samples_per_period", "an integer >= 1"),
    (G.detail_metrics, {"duration": 0.0}, "duration", "a number > 0 s"),
    (G.detail_metrics, {"duration": NAN}, "duration", "a number > 0 s"),
    (G.detail_metrics, {"rtol": 1.0}, "rtol", RTOL),
    (G.detail_metrics, {"atol": -1e-12}, "atol", ATOL),
    (G.detail_metrics, {"sample_rate": 0.0}, "sample_rate", "a number > 0 1/s"),
], ids=stable_id)
def test_the_other_runs_refuse_bad_arguments_by_name(fun, kwargs, name, valid):
    _refused(fun, P, name=name, valid=valid, **kwargs)



# ==== the fast and the DAE engine agree =============================================================================
#
# The engine of the clearance chapter's runs (issue 20, item 4): the fast minimal-coordinate model or the DAE.
#
# * ``poincare_run(engine="fast")`` and ``engine="dae"`` integrate the same equations: their samples, end-point
#   errors and impact counts agree, and the gap shrinks with the tolerance (it is integration error), with the
#   same period reading, for B1 and for the lever pin C;
# * the Lyapunov job on the fast engine has the DAE job's renormalisation settings and stored fields;
# * the engine is part of every key: a sweep store or a verdict-run store written on one engine is never read
#   for the other; stores written before keys had an engine are the DAE's;
# * the fast engine takes one clearance joint: several are refused, naming ``engine`` and ``clearance_joint``.

#: The gap fast - DAE (normalised units) must shrink at least this much from rtol 1e-9 to the tighter rtol:
#: integration error shrinks with the tolerance, a modelling difference would not (measured: 60x for B1 from
#: 1e-9 to 1e-11, 5x for C from 1e-9 to 1e-10).
SHRINK = 3.0


#: Largest normalised gap at the tighter rtol (measured: 7e-6 for B1 at 1e-11, 1.2e-7 for C at 1e-10).
GAP_TIGHT = 1e-4


def _pair(joint, f, c, rtol, **kw):
    return {e: G.poincare_run(P, f, c, joints=[joint], engine=e, rtol=rtol, atol=rtol * 1e-3, **kw) for e in ENGINES}


def _gaps(runs, c):
    a, b = runs["fast"], runs["dae"]
    return (float(np.max(np.abs(a.samples - b.samples))), float(np.max(np.abs(a.dE - b.dE))) / c)


@pytest.mark.parametrize("joint, f, c, rt_tight", [("B1", 12.0, 1e-4, 1e-11), ("C", 12.0, 1e-4, 1e-10)])
def test_fast_and_dae_poincare_runs_agree_to_the_integration_error(joint, f, c, rt_tight):
    kw = dict(n_transient=6, n_samples=6, k_max=2)
    loose, tight = _pair(joint, f, c, 1e-9, **kw), _pair(joint, f, c, rt_tight, **kw)
    (s9, e9), (st, et) = _gaps(loose, c), _gaps(tight, c)
    assert st < s9 / SHRINK and st < GAP_TIGHT, (s9, st)
    assert et < max(e9 / SHRINK, 1e-9) and et < GAP_TIGHT, (e9, et)
    a, b = loose["fast"], loose["dae"]
    assert a.period == b.period == 1                      # the same reading: period-1 after 6 periods
    assert a.n_episodes == b.n_episodes
    assert type(a) is type(b) is G.PoincareRun and a.engine == "fast" and b.engine == "dae"
    for k in B.FIELDS + ("dE", "dvE", "e_local", "e_dot", "eps", "t"):
        assert np.shape(getattr(a, k)) == np.shape(getattr(b, k)), k
    assert abs(a.peak_force - b.peak_force) <= 1e-2 * b.peak_force + 1e-9


def test_the_chapters_engine_is_the_fast_model_and_a_run_without_one_is_the_dae():
    """The chapter's ladders and sweeps run on the fast model by default (``engine="dae"`` reads or recomputes them on
    the seed's DAE); a function called without an engine is the seed's DAE (the reference route other tests compare
    the fast model with)."""
    assert DEFAULT_ENGINE == "fast" and study_settings(quick=True).engine == "fast"
    assert study_settings(quick=True, engine="dae").engine == "dae"
    assert REFERENCE_ENGINE == B.LEGACY_ENGINE == "dae"
    assert G.poincare_run(P, 12.0, 5e-4, n_transient=0, n_samples=2, rtol=1e-6, atol=1e-9).engine == "dae"
    assert B.sweep_key(P, [(12.0, 5e-4)])["engine"] == "dae"


def test_a_fast_lyapunov_run_refuses_a_baumgarte_factor():
    with pytest.raises(ParameterError, match=names("alpha = 50.0", "engine = 'fast'")):
        G.lyapunov_run(P, 12.0, 5e-4, n_transient=0, n_periods=4, alpha=50.0, engine="fast")


def test_a_fast_run_with_several_clearance_joints_is_refused_by_name():
    for call in (lambda: G.poincare_run(P, 12.0, 5e-4, n_transient=0, n_samples=2, joints=["B1", "E2"],
                                        engine="fast"),
                 lambda: G.lyapunov_run(P, 12.0, 5e-4, joints="B1, E2", engine="fast"),
                 lambda: study_settings(quick=True, clearance_joint="B1,E2", engine="fast"),
                 lambda: B.sweep_key(G.with_changes(P, **{"clearance.joints": "B1, C"}), [(12.0, 5e-4)],
                                     engine="fast")):
        with pytest.raises(ParameterError, match=names("engine = 'fast'", "clearance_joint", "one", "2 named")):
            call()
    assert check_engine("dae", "B1, E2") == ["B1", "E2"]
    with pytest.raises(ParameterError, match=names("engine = 'DAE'", "one of", "'fast'", "'dae'")):
        check_engine("DAE", "B1")


#: Largest ratio of the two engines' errors at one study rtol (measured 2.0 at 10 Hz / 0.5 mm, rtol 1e-10).
SAME_ACCURACY = 2.5


def test_a_rung_means_the_same_accuracy_on_both_engines(monkeypatch):
    """At one study rtol the fast engine's Poincaré samples are as accurate as the DAE's within a factor
    ``SAME_ACCURACY`` (each against itself at rtol / 100): the reason for
    :data:`robolib.gearshift.runs.FAST_TOLERANCE_DIVISOR`. Without the divisor the fast model at the same rtol is
    an order of magnitude less accurate (so the check can fail)."""
    from robolib.gearshift import runs as R

    def error(engine, rt):
        run = lambda r: G.poincare_run(P, 10.0, 5e-4, n_transient=2, n_samples=2, joints=["B1"], engine=engine,  # noqa
                                       rtol=r, atol=r * 1e-3, k_max=1).samples
        return float(np.abs(run(rt) - run(rt / 100)).max())

    rt = 1e-10
    dae, fast = error("dae", rt), error("fast", rt)
    assert dae / SAME_ACCURACY <= fast <= SAME_ACCURACY * dae, (fast, dae)
    monkeypatch.setattr(R, "FAST_TOLERANCE_DIVISOR", 1.0)
    assert error("fast", rt) > 2 * SAME_ACCURACY * dae
