"""The verdict of a case in one call (robolib.gearshift.case_verdict, ``gearshift.verdict``): the chapter's verdicts, and bad arguments named."""

import functools
import inspect

import numpy as np
import pytest
from fuzzing import entry_point_tests
from hypothesis import strategies as st

from robolib import ParameterError
from robolib import gearshift as G
from robolib.gearshift import case_verdict as V


@functools.lru_cache(maxsize=None)
def _quick(joint, c, f):
    """A quick verdict, computed once per session."""
    return V.verdict(joint, c, f, quick=True, progress=False)


@pytest.mark.parametrize("f, c, motion, k", [(10.0, 5e-4, "period-2", 2), (2.0, 1e-4, "period-1", 1)])
def test_quick_verdicts_of_the_chapters_periodic_cases(f, c, motion, k):
    v = _quick("B1", c, f)
    assert v.motion == motion and v.orbit.k == k and v.orbit.converges
    assert v.exponent.interval[1] < 0 and v.orbit.mu_upper < 1
    assert v.summary().startswith(f"B1, {c * 1e3:g} mm, {f:g} Hz: stable period-{k} orbit")
    assert len(v.readings) == 2 and v.rtols == V.LADDER[-2:]


def test_a_chaotic_case_has_no_stable_orbit():
    """Clearance at the fixed pin A2, 0.2 mm, 8 Hz (a case the chapter does not run; +37 ± 15 /s over 6 periods):
    no stable orbit; a quick run's four periods do not decide the exponent's sign, and the verdict says so."""
    v = V.verdict("A2", 2e-4, 8.0, quick=True, progress=False)
    assert v.orbit is None and v.motion == ("irregular" if v.exponent.interval[0] > 0 else "undecided")
    assert "no stable orbit of period 1, 2" in v.summary() and not v.consistent


def test_consistency_follows_the_three_parts():
    v = _quick("B1", 1e-4, 2.0)
    assert v.consistent == (v.ladder[0] in ("confirmed", "limit") and v.ladder[1] == 1)
    import dataclasses

    assert not dataclasses.replace(v, ladder=("irregular", 0)).consistent


def test_the_library_search_is_the_chapters():
    """The chapter's case_orbits calls find_attractor: same orbits, same attempts."""
    from robolib.studies.clearance_dynamics import orbit_study as S

    a = V.find_attractor(None, 10.0, 5e-4, periods=(1, 2), n_starts=0, n_samples=6)
    d = S.case_orbits(None, (10.0, 0.5), periods=(1, 2), n_starts=0, n_samples=6, lyapunov_periods=1, n_transient=1,
                      n_align=0)
    assert [o.k for o in a.found] == [o.k for o in d.found] and a.attempts == d.attempts
    np.testing.assert_array_equal(a.orbit.orbit.x, d.attractor.orbit.x)


def test_the_motion_s_distance_to_the_orbit_falls_with_the_tolerance():
    """2 Hz / 0.1 mm: shot again at a tenth of the tolerance, the orbit's accuracy and the motion's distance fall."""
    from robolib.gearshift import orbits as O

    o = _quick("B1", 1e-4, 2.0).orbit
    r, history = V.refined_orbit(None, "B1", O.ORBIT_RTOL, o, n_samples=6)
    assert r.k == o.k == 1 and r.converges and history.shape == (O.ORBIT_TRANSIENT + 7, 4)
    assert 3.0 * r.tol <= o.tol and r.sim_distance < o.sim_distance


def test_a_clearance_in_millimetres_is_refused_before_any_integration():
    with pytest.raises(ParameterError, match="clearance"):
        V.verdict("A2", 0.2, 8.0, progress=False)
    with pytest.raises(ParameterError, match="rtols"):
        V.verdict("A2", 2e-4, 8.0, rtols=[1e-9, 1e-8], progress=False)
    assert G.verdict is V.verdict                      # the package's one-call name


# ---- every argument of the public functions named when bad ------------------------------------------------------
ENTRY_POINTS = {
    "verdict": (V.verdict, dict(joint="B1", clearance=5e-4, frequency=12.0, params=None, rtols=[1e-6, 1e-7],
                                periods=(1,), lyapunov_periods=1, quick=True, progress=False),
                {"joint": st.sampled_from(["B4", "", None, 1]), "clearance": "positive", "frequency": "positive",
                 "params": st.sampled_from([1.0, "x", [], {"geometry": {}}]),
                 "rtols": st.sampled_from([[1e-9], [1e-8, 1e-8], [1e-9, 1e-8], [0.0, 1e-9], "x"]),
                 "periods": st.sampled_from([[], [0], [1.5], "x"]), "lyapunov_periods": "count",
                 "quick": st.sampled_from([None, "yes", 2]), "progress": st.sampled_from([None, "yes", 2])}),
    "find_attractor": (V.find_attractor, dict(params=None, frequency=12.0, clearance=5e-4, joint="B1", rtol=1e-6,
                                              periods=(1,), n_starts=0, n_samples=2, step=None),
                       {"frequency": "positive", "clearance": "positive", "joint": st.sampled_from(["B4", "", 1]),
                        "rtol": st.sampled_from([0.0, 1.0, "x"]), "periods": st.sampled_from([[], [0], [1.5]]),
                        "n_starts": "seed", "n_samples": "count"}),
    "close_returns": (V.close_returns, dict(z=np.zeros((4, 1)), k=1, n=1),
                      {"z": st.sampled_from([np.zeros(3), "x", [[float("nan")]], None]), "k": "count", "n": "seed"}),
}
NOT_FUZZED = {"Attractor": "result container of find_attractor", "Verdict": "result container of verdict",
              "refined_orbit": "takes an orbit find_attractor found (its arguments checked there)"}
NOT_FUZZED_ARGS = {"verdict": set(), "find_attractor": {"params", "step"}, "close_returns": set()}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.fuzz
def test_the_table_covers_the_public_names_and_arguments():
    public = {n for n in V.__all__ if callable(getattr(V, n))}
    assert sorted(public - set(ENTRY_POINTS) - set(NOT_FUZZED)) == []
    for name, (fn, _, kinds) in ENTRY_POINTS.items():
        assert sorted(set(inspect.signature(fn).parameters) - set(kinds) - NOT_FUZZED_ARGS[name]) == [], name
