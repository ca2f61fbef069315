"""robolib.gearshift fuzzed: every public entry point names a bad argument; properties on random valid inputs.

Part 1 (tests/fuzzing.py): for each public function of :mod:`robolib.gearshift.model`, ``.runs`` and
``.store`` a valid call -- tiny: one or two drive periods at 12 Hz -- and, per argument, the kind of value
it takes; a bad value must raise a :class:`robolib.RobolibError` naming the argument before any
integration. The cases of issue 21 are asserted by name: ``poincare_run(p, frequency=0.0)``, ``nan`` and
``rtol=0.0`` are refused.

Part 2: properties: the 2R chain's inverse kinematics puts the chain end at E on random reachable points,
with rates that match finite differences; the slider-crank closed form against finite differences of
the slider position; ``with_changes`` changes exactly one leaf.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from fuzzing import budget, entry_point_tests
from hypothesis import assume, given
from hypothesis import strategies as st

from robolib import ParameterError, RobolibError
from robolib import gearshift as G
from robolib.gearshift import store as B

pytestmark = pytest.mark.fuzz  # make fuzz: -m fuzz with a larger budget

P = G.load_parameters()
GS = G.build_gearshift(P)
SC = G.build_slider_crank()
Q, QD, QDD = (np.stack(a) for a in zip(*[GS.ideal_state(t) for t in (0.0, 0.1)]))
CM = G.clearance_model(GS)

#: Optional numbers (None = the parameter set's value): the harness's bad values without None.
OPT_POS = st.sampled_from([0.0, -1.0, float("nan"), float("inf"), "x", True, [1.0]])
OPT_RTOL = st.sampled_from([0.0, 1.0, 2.0, -1e-9, float("nan"), "x", True])
OPT_COUNT = st.sampled_from([0, -1, 1.5, True, "3", float("nan")])
CASE = st.sampled_from([(0.0, 0.1), (12.0, 0.0), (float("nan"), 0.1), (12.0, -1.0), 12.0, (12.0,), None, "ab",
                        ("12", 0.1), (True, 0.1)])
PAIR = (2,)
SIGN = st.sampled_from([0.0, 0.5, 2.0, float("nan"), "x", None, True])
NOT_PARAMS = st.sampled_from([None, 1.0, "x", [], {"geometry": {}}])
JOB = st.sampled_from([("poincare", 0.0, 0.5, 1e-6, 0, 2, None, 1.0), ("poincare", 12.0, 0.5, 0.0, 0, 2, None, 1.0),
                       ("poincare", 12.0, 0.5, 1e-6, -1, 2, None, 1.0), ("other", 12.0, 0.5, 1e-6, 0, 2, None, 1.0),
                       ("poincare", 12.0, float("nan"), 1e-6, 0, 2, None, 1.0), "job", None, (1, 2)])
ENGINE = st.sampled_from(["x", "DAE", "", None, 1, True, ["fast"]])
POINTS = st.sampled_from([[(0.0, 0.5)], [(12.0, -0.1)], [(float("nan"), 0.5)], [(12.0,)], None, "x", [12.0]])

ENTRY_POINTS = {
    # runs
    "poincare_run": (G.poincare_run, dict(params=P, frequency=12.0, clearance=5e-4, n_transient=0, n_samples=2,
                                          rtol=1e-6, atol=1e-9, k_max=1),
                     {"frequency": OPT_POS, "clearance": OPT_POS, "n_transient": "seed",
                      "n_samples": st.one_of(st.just(1), st.sampled_from([0, -1, 1.5, True, "3", None])),
                      "rtol": OPT_RTOL, "atol": OPT_POS, "k_max": OPT_COUNT, "params": NOT_PARAMS,
                      "engine": ENGINE}),
    "lyapunov_run": (G.lyapunov_run, dict(params=P, frequency=12.0, clearance=5e-4, n_transient=0, n_renorm=1,
                                          tau_periods=1.0, d0=1e-6, seed=0, rtol=1e-6, atol=1e-9, alpha=None),
                     {"frequency": OPT_POS, "clearance": OPT_POS, "n_transient": "seed", "n_renorm": "count",
                      "tau_periods": "positive", "d0": OPT_POS, "seed": "seed", "rtol": OPT_RTOL, "atol": OPT_POS,
                      "alpha": st.sampled_from([-1.0, float("nan"), float("inf"), "x", True]), "engine": ENGINE}),
    "orbit_run": (G.orbit_run, dict(params=P, frequency=12.0, clearance=5e-4, n_transient=0, n_periods=1,
                                    samples_per_period=5),
                  {"frequency": OPT_POS, "clearance": OPT_POS, "n_transient": "seed", "n_periods": "count",
                   "samples_per_period": "count"}),
    "detail_metrics": (G.detail_metrics, dict(params=P, duration=0.01, rtol=1e-6, atol=1e-9, sample_rate=1000.0),
                       {"duration": "positive", "rtol": OPT_RTOL, "atol": OPT_POS, "sample_rate": "positive"}),
    "explore_run": (G.explore_run, dict(params=P, case=(12.0, 0.5), seconds=0.05, samples_per_second=200.0),
                    {"case": CASE, "seconds": "positive", "samples_per_second": "positive"}),
    "ClearanceFlow": (G.ClearanceFlow, dict(params=P, clearance=5e-4, rtol=1e-6, atol=1e-9),
                      {"clearance": OPT_POS, "rtol": OPT_RTOL, "atol": OPT_POS}),
    "check_engine": (G.runs.check_engine, dict(engine="fast", joints="B1"), {"engine": ENGINE}),
    "store_path": (B.store_path, dict(engine="fast"), {"engine": ENGINE}),
    # model
    "build_gearshift": (G.build_gearshift, dict(params=P), {"params": st.sampled_from([1.0, "x", [], {"geometry": {}}])}),
    "clearance_model": (G.clearance_model, dict(model=GS, clearance=5e-4), {"clearance": OPT_POS}),
    "clearance_specs": (G.clearance_specs, dict(params=P, joints=["B1"], clearance=5e-4),
                        {"clearance": OPT_POS, "joints": st.sampled_from([1.0, [1], [], True, [""]])}),
    "with_changes": (G.with_changes, dict(params=P), {}),
    "chain_ik": (G.chain_ik, dict(A=(0.0, 0.0), E=(0.12, 0.12), Ed=(0.0, 0.1), Edd=(0.0, 0.0), l1=0.12, l2=0.12,
                                  sign=1.0),
                 {"A": PAIR, "E": PAIR, "Ed": PAIR, "Edd": PAIR, "l1": "positive", "l2": "positive", "sign": SIGN}),
    "ShiftStroke": (G.ShiftStroke, dict(E0=(0.12, 0.07), amplitude=0.03, frequency=2.0),
                    {"E0": PAIR, "amplitude": "nonnegative", "frequency": "positive"}),
    "ideal_motion": (G.ideal_motion, dict(model=GS, t=[0.0, 0.1]), {"t": "array"}),
    "simulate_ideal": (G.simulate_ideal, dict(model=GS, t_end=0.01, rtol=1e-6, atol=1e-9),
                       {"t_end": "positive", "rtol": OPT_RTOL, "atol": OPT_POS}),
    "simulate_clearance": (G.simulate_clearance, dict(model=GS, t_end=0.01, t_start=0.0, rtol=1e-6, atol=1e-9),
                           {"t_end": "positive", "t_start": "real", "rtol": OPT_RTOL, "atol": OPT_POS}),
    "chain1_variables": (G.chain1_variables, dict(gs=GS, q=Q, qd=QD, qdd=QDD),
                         {"q": (2, 21), "qd": (2, 21), "qdd": (2, 21)}),
    "end_effector_errors": (G.end_effector_errors, dict(gs=GS, q=Q, qd=QD, qdd=QDD, q_id=Q, qd_id=QD, qdd_id=QDD),
                            {"q": (2, 21), "qd": (2, 21), "qdd": (2, 21), "q_id": (2, 21), "qd_id": (2, 21),
                             "qdd_id": (2, 21)}),
    "slider_closed_form": (G.slider_closed_form, dict(phi=np.array([0.0, 1.0]), omega=10.0, r=0.05, L=0.12),
                           {"phi": "array", "omega": "real", "r": "positive",
                            "L": st.one_of(st.just(0.05), st.just(0.01), st.sampled_from([0.0, -1.0, np.nan, "x"]))}),
    "journal_orbit": (G.journal_orbit, dict(cm=CM, q=Q, qd=QD, joint=0),
                      {"q": (2, 21), "qd": (2, 21), "joint": st.sampled_from([-1, 1, 1.5, True, "0", None])}),
    # store
    "sweep_points": (B.sweep_points, dict(frequencies=[2.0, 4.0], freq_clearance_mm=0.5, clearances_mm=[0.1],
                                          clearance_frequency=6.0),
                     {"frequencies": st.sampled_from([[0.0], [np.nan], ["x"], None, 2.0]),
                      "freq_clearance_mm": "positive", "clearances_mm": st.sampled_from([[-0.1], [np.inf], None]),
                      "clearance_frequency": "positive"}),
    "run_sweep": (B.run_sweep, dict(params=P, points=[(12.0, 0.5)], n_transient=0, n_samples=2, rtol=1e-6,
                                    atol=1e-9),
                  {"points": POINTS, "n_transient": "seed",
                   "n_samples": st.one_of(st.just(1), st.sampled_from([0, -1, 1.5, True, "3"])),
                   "rtol": OPT_RTOL, "atol": OPT_POS, "engine": ENGINE}),
    "sweep_key": (B.sweep_key, dict(params=P, points=[(12.0, 0.5)], n_transient=0, n_samples=2, rtol=1e-6, atol=1e-9),
                  {"params": NOT_PARAMS, "points": POINTS, "n_transient": "seed", "n_samples": "count",
                   "rtol": OPT_RTOL, "atol": OPT_POS, "engine": ENGINE}),
    "check_params": (G.model.check_params, dict(params=P), {"params": NOT_PARAMS}),
    "study_run": (B.study_run, dict(job=("poincare", 12.0, 0.5, 1e-6, 0, 2, None, 1.0), params=P, seed=0),
                  {"job": JOB, "seed": "seed", "engine": ENGINE}),
}

#: Public names of the three modules that are not in the table, and why.
NOT_FUZZED = {
    "load_parameters": "a loader of a validated YAML file (tests/test_params.py checks the schema)",
    "load_slider_crank": "a loader of a validated YAML file",
    "build_slider_crank": "takes a parameter set (validated by its loader's schema)",
    "ChainDrive": "built by build_gearshift from validated parameters (its IK is chain_ik, fuzzed)",
    "GearShift": "result container of build_gearshift", "SliderCrank": "result container of build_slider_crank",
    "StoredLyapunov": "result container", "JournalOrbit": "result container of journal_orbit",
    "PoincarePoint": "result container (the stored fields of poincare_run)", "PoincareRun": "result container of "
    "poincare_run", "OrbitRun": "result container of orbit_run", "DetailMetrics": "result container of "
    "detail_metrics", "SweepSource": "result container of load_or_run", "RunSources": "result container of "
    "load_or_run_study", "save": "writes records that run_sweep made (tests/test_gearshift_bifurcation.py)",
    "load": "reads a store (its key compared, tests/test_gearshift_bifurcation.py)",
    "load_or_run": "load + run_sweep (both covered)", "stored_jobs": "reads the verdict store",
    "load_or_run_study": "store + study_run (covered)", "default_params": "takes no argument",
    "main": "the command line (argparse names its options; tests/test_gearshift_bifurcation.py)",
    "checkpoint_files": "point_files of run_sweep's task (tests/test_sweep_checkpoint.py)",
    "check_arguments": "the checker itself (every row above goes through it)",
    "FastFlow": "an internal helper of lyapunov_run(engine='fast'), which checks its arguments first",
    "engine_tolerances": "an internal helper of the fast runs (their engine and tolerances are checked first)",
    "check_clearance": "the journal-radius condition every route passes (after check_arguments has checked the "
                       "value): test_a_clearance_at_or_above_the_journal_radius_is_refused_by_every_entry_point",
}

test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS, copy_kwargs=True)


def test_the_table_covers_the_public_functions():
    from robolib.gearshift import model, runs

    public = {n for m in (model, runs, B) for n in getattr(m, "__all__", dir(m))
              if not n.startswith("_") and callable(getattr(m, n, None)) and getattr(getattr(m, n), "__module__", "")
              in (model.__name__, runs.__name__, B.__name__)}
    covered = set(ENTRY_POINTS) | set(NOT_FUZZED) | {"ideal_state"}
    assert sorted(public - covered) == []


@pytest.mark.parametrize("changes", [dict(frequency=0.0), dict(frequency=float("nan")), dict(rtol=0.0),
                                     dict(frequency=-2.0), dict(atol=0.0), dict(clearance=float("inf"))])
def test_the_issue_cases_are_refused_by_name(changes):
    (name, value), = changes.items()
    with pytest.raises(ParameterError, match=name) as exc:
        G.poincare_run(P, **{"frequency": 12.0, "n_transient": 0, "n_samples": 2} | changes)
    assert "not valid" in str(exc.value) and ("> 0" in str(exc.value) or "(0, 1)" in str(exc.value))


def test_a_parameter_set_with_a_bad_frequency_is_named():
    bad = G.with_changes(P, **{"motion.frequency": 0.0})
    with pytest.raises(RobolibError, match="frequency"):
        G.build_gearshift(bad)
    with pytest.raises(ParameterError, match="unknown parameter"):
        G.with_changes(P, **{"motion.frequenzy": 1.0})


# ---- part 2: properties ------------------------------------------------------------------------------
@budget(40)
@given(l1=st.floats(0.05, 0.3), l2=st.floats(0.05, 0.3), r=st.floats(0.05, 0.95), phi=st.floats(-math.pi, math.pi),
       sign=st.sampled_from([-1.0, 1.0]), vx=st.floats(-1, 1), vy=st.floats(-1, 1), ax=st.floats(-5, 5),
       ay=st.floats(-5, 5))
def test_chain_ik_reaches_e_and_its_rates_match_finite_differences(l1, l2, r, phi, sign, vx, vy, ax, ay):
    """E on a random reachable circle (|l1 - l2| < d < l1 + l2): the chain end is at E, and the angle rates
    and accelerations are the derivatives of the angles along E(t) = E + v t + a t^2 / 2."""
    lo, hi = abs(l1 - l2), l1 + l2
    d = lo + r * (hi - lo)
    assume(d > 1e-3 and hi - d > 1e-3 * hi and d - lo > 1e-3 * hi)
    A = (0.01, -0.02)

    def at(t):
        E = (A[0] + d * math.cos(phi) + vx * t + ax * t * t / 2, A[1] + d * math.sin(phi) + vy * t + ay * t * t / 2)
        return G.chain_ik(A, E, (vx + ax * t, vy + ay * t), (ax, ay), l1, l2, sign), E

    (t1, t2, w1, w2, a1, a2), E = at(0.0)
    end = (A[0] + l1 * math.cos(t1) + l2 * math.cos(t2), A[1] + l1 * math.sin(t1) + l2 * math.sin(t2))
    assert math.dist(end, E) < 1e-12
    h = 1e-6
    (p, _), (m, _) = at(h), at(-h)
    unwrap = lambda x: (x + math.pi) % (2 * math.pi) - math.pi  # noqa: E731
    for k, (rate, acc) in enumerate([(w1, a1), (w2, a2)]):
        fd = unwrap(p[k] - m[k]) / (2 * h)
        fdd = (p[2 + k] - m[2 + k]) / (2 * h)
        scale = 1.0 / min(abs(math.sin(t2 - t1)), 1.0) ** 3
        assert abs(fd - rate) <= 1e-5 * scale * (1 + abs(rate))
        assert abs(fdd - acc) <= 1e-4 * scale * (1 + abs(acc))


@budget(30)
@given(phi=st.floats(-10, 10), omega=st.floats(-50, 50), r=st.floats(0.01, 0.1), ratio=st.floats(1.2, 5.0))
def test_slider_closed_form_rates_match_finite_differences(phi, omega, r, ratio):
    L, h = r * ratio, 1e-5
    x, xd, xdd = G.slider_closed_form(phi, omega, r, L)
    xp, xdp, _ = G.slider_closed_form(phi + h, omega, r, L)
    xm, xdm, _ = G.slider_closed_form(phi - h, omega, r, L)
    assert abs((xp - xm) / (2 * h) * omega - xd) <= 1e-6 * (abs(omega) * r + 1e-12)
    assert abs((xdp - xdm) / (2 * h) * omega - xdd) <= 1e-5 * (omega * omega * r + 1e-12)
    assert r * math.cos(phi) + math.sqrt(L * L - (r * math.sin(phi)) ** 2) == pytest.approx(x, rel=1e-14)


@budget(20)
@given(path=st.sampled_from(["motion.frequency", "clearance.radial_clearance", "gearbox.damping", "solver.rtol"]),
       value=st.floats(1e-6, 10.0))
def test_with_changes_changes_exactly_one_leaf(path, value):
    if path == "clearance.radial_clearance":
        value *= 4.9e-4                       # below the journal radius 5 mm (a larger one is refused)
    q = G.with_changes(P, **{path: value})
    a, b = path.split(".")
    assert q[a][b] == value
    plain_q, plain_p = B._plain(q), B._plain(P)
    plain_q[a][b] = plain_p[a][b]
    assert plain_q == plain_p, "nothing else changed"
    G.model.check_params(q)


# ---- the semantic check at the edge: a clearance at or above the journal radius (mm given as m) ------------------
BAD_SET = G.with_changes(P, **{"clearance.radial_clearance": 0.2})      # 0.2 m: 0.2 mm meant
JOB_200MM = ("poincare", 12.0, 200.0, 1e-6, 0, 2, None, 1.0)
RUN = dict(n_transient=0)


def _orbits():
    from robolib.gearshift import orbits as O
    return O


#: Every gear-shift entry point a clearance reaches, called with the mistake: (call, the argument it must name).
TOO_LARGE = {
    "poincare_run": (lambda: G.poincare_run(P, 12.0, 0.2, n_samples=2, **RUN), "clearance"),
    "poincare_run fast": (lambda: G.poincare_run(P, 12.0, 0.2, n_samples=2, engine="fast", **RUN), "clearance"),
    "poincare_run set": (lambda: G.poincare_run(BAD_SET, 12.0, n_samples=2, **RUN), "clearance.radial_clearance"),
    "lyapunov_run": (lambda: G.lyapunov_run(P, 12.0, 0.2, n_renorm=1, **RUN), "clearance"),
    "lyapunov_run fast": (lambda: G.lyapunov_run(P, 12.0, 0.2, n_renorm=1, engine="fast", **RUN), "clearance"),
    "orbit_run": (lambda: G.orbit_run(P, 12.0, 0.2, n_periods=1, **RUN), "clearance"),
    "detail_metrics set": (lambda: G.detail_metrics(BAD_SET, duration=0.01), "clearance.radial_clearance"),
    "explore_run": (lambda: G.explore_run(P, (12.0, 200.0)), "case[1]"),
    "ClearanceFlow": (lambda: G.ClearanceFlow(P, clearance=0.2), "clearance"),
    "FastClearance": (lambda: G.FastClearance(P, clearance=0.2), "clearance"),
    "FastClearance set": (lambda: G.FastClearance(BAD_SET), "clearance.radial_clearance"),
    "clearance_specs": (lambda: G.clearance_specs(P, ["B1"], 0.2), "clearance"),
    "clearance_model": (lambda: G.clearance_model(GS, clearance=0.2), "clearance"),
    "build_gearshift set": (lambda: G.build_gearshift(BAD_SET), "clearance.radial_clearance"),
    "check_params set": (lambda: G.model.check_params(BAD_SET), "clearance.radial_clearance"),
    "stroboscopic_map": (lambda: _orbits().stroboscopic_map(P, 12.0, 0.2), "clearance"),
    "StroboscopicMap set": (lambda: _orbits().StroboscopicMap(BAD_SET, 12.0, 5e-4), "clearance.radial_clearance"),
    "periodic_orbit_at": (lambda: _orbits().periodic_orbit_at(P, 12.0, 0.2, n_transient=0, n_samples=2), "clearance"),
    "fast_lyapunov": (lambda: _orbits().fast_lyapunov(P, 12.0, 0.2, n_renorm=1, n_transient=0), "clearance"),
    "frequency_branch": (lambda: _orbits().frequency_branch(P, 0.2, 11.0, 12.0, n_transient=0), "clearance"),
    "sweep_key": (lambda: B.sweep_key(P, [(12.0, 0.5), (12.0, 200.0)]), "points[1] clearance"),
    "run_sweep": (lambda: B.run_sweep(P, [(12.0, 200.0)], n_transient=0, n_samples=2), "points[0] clearance"),
    "load_or_run": (lambda: B.load_or_run(P, [(12.0, 200.0)], n_transient=0, n_samples=2), "points[0] clearance"),
    "checkpoint_files": (lambda: B.checkpoint_files("x", P, [(12.0, 200.0)]), "points[0] clearance"),
    "study_run": (lambda: B.study_run(JOB_200MM, P), "job clearance c"),
    "stored_jobs": (lambda: B.stored_jobs(P, [JOB_200MM]), "job clearance c"),
    "load_or_run_study": (lambda: B.load_or_run_study(P, [JOB_200MM]), "job clearance c"),
}


@pytest.mark.parametrize("entry", list(TOO_LARGE))
def test_a_clearance_at_or_above_the_journal_radius_is_refused_by_every_entry_point(entry):
    """0.2 m for 0.2 mm is 40 journal radii: refused before any work, naming the argument, the radius and the unit."""
    call, name = TOO_LARGE[entry]
    with pytest.raises(ParameterError, match=re.escape(name)) as exc:
        call()
    assert "journal radius 5 mm" in str(exc.value) and "40x" in str(exc.value)


def test_a_clearance_as_large_as_the_journal_is_refused_and_one_just_below_is_not():
    assert G.model.check_clearance(P, 5e-3 * (1 - 1e-12)) < 5e-3
    with pytest.raises(ParameterError, match="clearance.*1x the journal radius"):
        G.clearance_specs(P, ["B1"], 5e-3)


@pytest.mark.parametrize("loader, file", [(G.load_parameters, "gearshift/default.yaml"),
                                          (G.load_slider_crank, "gearshift/slider_crank.yaml")])
def test_a_parameter_file_with_a_clearance_at_or_above_its_journal_radius_is_refused(loader, file, tmp_path):
    from robolib import DATA_DIR, ParameterFileError
    text = (DATA_DIR / file).read_text()
    line = next(x for x in text.splitlines() if x.strip().startswith("radial_clearance:"))
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace(line, line.split(":")[0] + ": 0.5  # m (0.5 mm meant)"))
    with pytest.raises(ParameterFileError, match=r"bad\.yaml.*radial_clearance.*journal radius") as exc:
        loader(bad)
    assert "metres" in str(exc.value)
