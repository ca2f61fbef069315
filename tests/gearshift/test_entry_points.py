"""The public interface of robolib.gearshift: every entry point names a bad argument."""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import entry_point_tests
from hypothesis import strategies as st

from robolib import ParameterError
from robolib import gearshift as G
from robolib.gearshift import store as B

# ==== every public entry point of robolib.gearshift names a bad argument ============================================
#
# robolib.gearshift fuzzed: every public entry point names a bad argument; properties on random valid inputs.
#
# Part 1 (tests/fuzzing.py): for each public function of :mod:`robolib.gearshift.model`, ``.runs`` and
# ``.store`` a valid call -- tiny: one or two drive periods at 12 Hz -- and, per argument, the kind of value
# it takes; a bad value must raise a :class:`robolib.RobolibError` naming the argument before any
# integration. The cases of issue 21 are asserted by name: ``poincare_run(p, frequency=0.0)``, ``nan`` and
# ``rtol=0.0`` are refused.
#
# Part 2: properties: the 2R chain's inverse kinematics puts the chain end at E on random reachable points,
# with rates that match finite differences; the slider-crank closed form against finite differences of
# the slider position; ``with_changes`` changes exactly one leaf.

P = G.load_parameters()


GS = G.build_gearshift(P)


SC = G.build_slider_crank()


Q, QD, QDD = (np.stack(a) for a in zip(*[GS.ideal_state(t) for t in (0.0, 0.1)]))


CM = G.clearance_model(GS)


#: Optional numbers (None = the parameter set's value): the harness's bad values without None.
OPT_POS = st.sampled_from([0.0, -1.0, float("nan"), float("inf"), "x", True, [1.0]])


OPT_RTOL = st.sampled_from([0.0, 1.0, 2.0, -1e-9, float("nan"), "x", True])


OPT_COUNT = st.sampled_from([0, -1, 1.5, True, "3", float("nan")])




PAIR = (2,)


SIGN = st.sampled_from([0.0, 0.5, 2.0, float("nan"), "x", None, True])


NOT_PARAMS = st.sampled_from([None, 1.0, "x", [], {"geometry": {}}])


ENGINE = st.sampled_from(["x", "DAE", "", None, 1, True, ["fast"]])


POINTS = st.sampled_from([[(0.0, 5e-4)], [(12.0, -1e-4)], [(float("nan"), 5e-4)], [(12.0,)], None, "x", [12.0],
                          [(12.0, 0.5)]])


ENTRY_POINTS = {
    # runs
    "poincare_run": (G.poincare_run, dict(params=P, frequency=12.0, clearance=5e-4, n_transient=0, n_samples=2,
                                          rtol=1e-6, atol=1e-9, k_max=1),
                     {"frequency": OPT_POS, "clearance": OPT_POS, "n_transient": "seed",
                      "n_samples": st.one_of(st.just(1), st.sampled_from([0, -1, 1.5, True, "3", None])),
                      "rtol": OPT_RTOL, "atol": OPT_POS, "k_max": OPT_COUNT, "params": NOT_PARAMS,
                      "engine": ENGINE}),
    "lyapunov_run": (G.lyapunov_run, dict(params=P, frequency=12.0, clearance=5e-4, n_transient=0, n_periods=1,
                                          seed=0, rtol=1e-6, alpha=None),
                     {"frequency": OPT_POS, "clearance": OPT_POS, "n_transient": "seed", "n_periods": "count",
                      "seed": "seed", "rtol": OPT_RTOL,
                      "alpha": st.sampled_from([-1.0, float("nan"), float("inf"), "x", True]), "engine": ENGINE}),
    "orbit_run": (G.orbit_run, dict(params=P, frequency=12.0, clearance=5e-4, n_transient=0, n_periods=1,
                                    samples_per_period=5),
                  {"frequency": OPT_POS, "clearance": OPT_POS, "n_transient": "seed", "n_periods": "count",
                   "samples_per_period": "count"}),
    "detail_metrics": (G.detail_metrics, dict(params=P, duration=0.01, rtol=1e-6, atol=1e-9, sample_rate=1000.0),
                       {"duration": "positive", "rtol": OPT_RTOL, "atol": OPT_POS, "sample_rate": "positive"}),
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
    "sweep_points": (B.sweep_points, dict(frequencies=[2.0, 4.0], freq_clearance=5e-4, clearances=[1e-4],
                                          clearance_frequency=6.0),
                     {"frequencies": st.sampled_from([[0.0], [np.nan], ["x"], None, 2.0]),
                      "freq_clearance": "positive", "clearances": st.sampled_from([[-1e-4], [np.inf], None]),
                      "clearance_frequency": "positive"}),
    "run_sweep": (B.run_sweep, dict(params=P, points=[(12.0, 5e-4)], n_transient=0, n_samples=2, rtol=1e-6,
                                    atol=1e-9),
                  {"points": POINTS, "n_transient": "seed",
                   "n_samples": st.one_of(st.just(1), st.sampled_from([0, -1, 1.5, True, "3"])),
                   "rtol": OPT_RTOL, "atol": OPT_POS, "engine": ENGINE}),
    "sweep_key": (B.sweep_key, dict(params=P, points=[(12.0, 5e-4)], n_transient=0, n_samples=2, rtol=1e-6, atol=1e-9),
                  {"params": NOT_PARAMS, "points": POINTS, "n_transient": "seed", "n_samples": "count",
                   "rtol": OPT_RTOL, "atol": OPT_POS, "engine": ENGINE}),
    "check_params": (G.model.check_params, dict(params=P), {"params": NOT_PARAMS}),
}


#: Public names of the three modules that are not in the table, and why.
NOT_FUZZED = {
    "load_parameters": "a loader of a validated YAML file (tests/core/test_params.py checks the schema)",
    "load_slider_crank": "a loader of a validated YAML file",
    "build_slider_crank": "takes a parameter set (validated by its loader's schema)",
    "ChainDrive": "built by build_gearshift from validated parameters (its IK is chain_ik, fuzzed)",
    "GearShift": "result container of build_gearshift", "SliderCrank": "result container of build_slider_crank",
    "JournalOrbit": "result container of journal_orbit",
    "PoincarePoint": "result container (the stored fields of poincare_run)", "PoincareRun": "result container of "
    "poincare_run", "OrbitRun": "result container of orbit_run", "DetailMetrics": "result container of "
    "detail_metrics", "SweepSource": "result container of load_or_run", "save": "writes records that run_sweep made (tests/gearshift/test_store.py)",
    "load": "reads a store (its key compared, tests/gearshift/test_store.py)",
    "load_or_run": "load + run_sweep (both covered)", "default_params": "takes no argument",
    "main": "the command line (argparse names its options; tests/gearshift/test_store.py)",
    "checkpoint_files": "point_files of run_sweep's task (tests/core/test_parallel.py)",
    "check_arguments": "the checker itself (every row above goes through it)",
    "engine_tolerances": "an internal helper of the fast runs (their engine and tolerances are checked first)",
    "check_clearance": "the journal-radius condition every route passes (after check_arguments has checked the "
                       "value): test_a_clearance_at_or_above_the_journal_radius_is_refused_by_every_entry_point",
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS, copy_kwargs=True)


@pytest.mark.fuzz
def test_the_table_covers_the_public_functions():
    from robolib.gearshift import model, runs

    public = {n for m in (model, runs, B) for n in getattr(m, "__all__", dir(m))
              if not n.startswith("_") and callable(getattr(m, n, None)) and getattr(getattr(m, n), "__module__", "")
              in (model.__name__, runs.__name__, B.__name__)}
    covered = set(ENTRY_POINTS) | set(NOT_FUZZED) | {"ideal_state"}
    assert sorted(public - covered) == []


@pytest.mark.fuzz
@pytest.mark.parametrize("changes", [dict(frequency=0.0), dict(frequency=float("nan")), dict(rtol=0.0),
                                     dict(frequency=-2.0), dict(atol=0.0), dict(clearance=float("inf"))])
def test_the_issue_cases_are_refused_by_name(changes):
    (name, value), = changes.items()
    with pytest.raises(ParameterError, match=name) as exc:
        G.poincare_run(P, **{"frequency": 12.0, "n_transient": 0, "n_samples": 2} | changes)
    assert "not valid" in str(exc.value) and ("> 0" in str(exc.value) or "(0, 1)" in str(exc.value))
