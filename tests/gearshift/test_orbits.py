"""Periodic orbits of the gear shift on the fast model (robolib.gearshift.orbits)."""

from __future__ import annotations

import inspect
import math
import pickle
from types import SimpleNamespace

import numpy as np
import pytest
from fuzzing import bad_values, entry_point_tests
from hypothesis import strategies as st

from robolib import ParameterError, RobolibError
from robolib.core import continuation as CO
from robolib.core import periodic as PO
from robolib.core.periodic import floquet_multipliers, monodromy
from robolib.gearshift import fast as F
from robolib.gearshift import lyapunov as LY
from robolib.gearshift import orbits as O
from robolib.gearshift.fast import FastClearance
from robolib.studies.clearance_dynamics import orbit_study as S

# ==== every entry point of the orbit tools names a bad argument before any integration ==============================
#
# The fast clearance model and the periodic-orbit tools fuzzed: every public entry point names a bad argument.
#
# Tables (tests/fuzzing.py) for :mod:`robolib.gearshift.fast` (:class:`FastClearance` and its methods),
# :mod:`robolib.gearshift.orbits`, the cheap argument checks of :mod:`robolib.studies.clearance_dynamics.orbit_study`, and the
# arguments of :mod:`robolib.core.periodic` / :mod:`robolib.core.continuation` that tests/core/test_periodic.py does
# not fuzz. Each valid call is tiny (12 Hz or 6 Hz, rtol 1e-6, at most a few drive periods; simulations of
# 1 ms); a bad value must raise a :class:`robolib.RobolibError` naming the argument before any integration.
#
# Coverage is checked per argument: every parameter of every table entry's signature is fuzzed here or in
# tests/core/test_periodic.py, or listed in :data:`NOT_FUZZED_ARGS` with the reason; every public name of the
# five modules is a table entry or in :data:`NOT_FUZZED` with the reason.

# ---- the valid objects (tiny) ---------------------------------------------------------------------------
FC = F.FastClearance(joint="B1")                       # 2 Hz, 0.5 mm (the parameter file's)


FC_E2 = F.FastClearance(joint="E2")                    # a bearing on a moving body (e_local rotates)


RES = FC.simulate((0.0, 1e-3), rtol=1e-6, atol=1e-9)   # every accepted step of 1 ms


K0 = FC.kinematics((0.0, 0.0), (0.0, 0.0), 0.0)


Q2 = np.stack([K0["q"], K0["q"]])


QD2 = np.stack([K0["qd"], K0["qd"]])


#: The return map at 12 Hz / 0.5 mm, rtol 1e-6 (one return ~4 ms).
P12 = O.stroboscopic_map(None, 12.0, 5e-4, rtol=1e-6)


#: A converged period-1 orbit of the 4 Hz map: attracting (multipliers below 0.5 in modulus), so the transient
#: reaches it whatever the machine's rounding (the 12 Hz orbit sits near a fold and is not found on every CPU).
P4 = O.stroboscopic_map(None, 4.0, 5e-4, rtol=1e-6)


ORBIT = O.periodic_orbit_at(None, 4.0, 5e-4, rtol=1e-6, n_transient=20, n_samples=1).orbit


#: A valid state of the section (the orbit's point), for either map.
XS = ORBIT.x.copy()


def logistic(r):
    return lambda x: np.array([r * x[0] * (1.0 - x[0])])


LOGISTIC_ORBIT = PO.periodic_orbit(logistic(2.5), [0.5])            # converged, n = 1, multiplier -0.5


NO_PD_ORBIT = PO.periodic_orbit(logistic(1.5), [0.5])               # multiplier +0.5: no doubling near


PD_ORBIT = PO.periodic_orbit(logistic(3.2), [0.7])                   # past the doubling at r = 3


UNCONVERGED = PO.periodic_orbit(logistic(2.5), [0.5], max_iter=0, strict=False)


# ---- local kinds -------------------------------------------------------------------------------------------
def optional(shape):
    """Bad values of an optional array of ``shape`` (None = the default is valid)."""
    return bad_values(shape).filter(lambda v: v is not None)


#: An optional positive number (None = the default is valid).
OPT_POS = st.sampled_from([0.0, -1.0, float("nan"), float("inf"), "x", True, [1.0]])


#: An optional relative tolerance in (0, 1).
OPT_RTOL = st.sampled_from([0.0, 1.0, 2.0, -1e-9, float("nan"), "x", True, [1e-6]])


OPT_REAL = st.sampled_from([float("nan"), float("inf"), "x", True, [0.0]])


OPT_COUNT = st.sampled_from([0, -1, 1.5, True, "3", float("nan")])


PARAMS = st.sampled_from([1.0, "x", [], {"geometry": {}}])            # None = the parameter file is valid


JOINT = st.sampled_from(["B4", "", None, 1, True, ["B1"], "b1"])


MEMORY = st.sampled_from(["x", None, 1, "Reset", ["reset"]])


UPDATE = st.sampled_from(["x", None, 1, "Newton", ["newton"]])


SCHEME = st.sampled_from(["x", None, 1, "Central", ["central"]])


FLAG = st.sampled_from(["x", None, 1.5, 2, "True", [True]])


MAP = st.sampled_from([None, 1.0, "x", logistic(2.5), np.ones(4)])   # not a StroboscopicMap


ORBIT_BAD = st.sampled_from([None, 1.0, "x", LOGISTIC_ORBIT, UNCONVERGED, {"x": XS}])


RESULT = st.sampled_from([None, 1.0, "x", {}, [], RES.__dict__])


X5 = st.sampled_from([np.r_[XS, -1.0], np.r_[XS, 0.0], np.r_[XS, np.nan], np.ones(6), np.ones(3), "x", None])


RATIOS = st.sampled_from([[1.0, np.nan, 1.0], [1.0, 1.0], [1.0, -1.0, 1.0], [1.0, 0.0, 1.0], "x", None, True, [],
                          [[1.0, 1.0, 1.0]]])


CASE = st.sampled_from([(0.0, 0.5), (12.0, 0.0), (float("nan"), 0.5), (12.0, -1.0), 12.0, (12.0,), None, "ab",
                        ("12", 0.5), (True, 0.5), (12.0, float("inf"))])


Z_BAD = st.sampled_from([np.array([[1.0, np.nan]] * 5), np.array([[1.0, np.inf]] * 5), "x", None, True,
                         np.zeros((0, 2)), np.ones(5), np.ones((5, 2, 2)), np.array([["a", "b"]] * 5)])


PMAP = st.sampled_from([None, 1.0, "x", np.ones(4), (lambda x: "a"), (lambda x: np.ones(2))])   # for R^1


SCALE1 = st.sampled_from([0.0, -1.0, float("nan"), "x", True, np.ones(2), np.array([0.0]), np.ones((1, 1))])


H_MAX = st.sampled_from([0.0, -1.0, float("nan"), "x", True, None, [1.0]])


T_EVAL = st.sampled_from([[2e-3], [-1e-3], [5e-4, 1e-4], [np.nan], "x", True, [], [[5e-4]]])


T_SPAN = st.sampled_from([(0.0, 0.0), (1e-3, 0.0), (0.0, np.nan), (np.inf, 1.0), (0.0,), (0.0, 1e-3, 2e-3), "x",
                          None, True, ("0", "1")])


SAMPLES_N4 = st.sampled_from([np.ones((2, 5)), np.ones((0, 4)), np.ones(4), np.full((2, 4), np.nan), "x", True])


ATTRACTOR = st.sampled_from([1.0, "x", [], {"k": 0}, {"k": "1"}, {}])


CASES = st.sampled_from([None, 1.0, "x", [], {(12.0, 0.5): 1.0}])


DS_MAX = st.sampled_from([0.05, 0.0, -1.0, float("nan"), float("inf"), "x", True])   # ds_max >= ds = 0.1


MAP_AT = st.sampled_from([None, 1.0, "x", (lambda p: 1.0)])


KIND_NAME = st.sampled_from(["x", None, 1, "period doubling", ["fold"]])


def settings_ns(**changes):
    """Study settings of :func:`orbit_study.orbit_tasks`: no case, quick (a cheap valid call)."""
    d = dict(params={"quick": True}, base=None, joints=["B1"], freq_range=[2.0, 12.0], freq_sweep_clearance_mm=0.5,
             cases=[], n_jobs=1)
    d.update(changes)
    return SimpleNamespace(**d)


ENTRY_POINTS = {
    # ---- robolib.gearshift.fast
    "FastClearance": (F.FastClearance, dict(params=None, joint="B1", clearance=5e-4, frequency=2.0,
                                            error_scale="mechanism"),
                      {"params": PARAMS, "joint": JOINT, "clearance": OPT_POS, "frequency": OPT_POS,
                       "error_scale": st.sampled_from(["x", None, 1, "Mechanism"])}),
    "FastClearance.kinematics": (FC.kinematics, dict(e=(1e-5, 0.0), ed=(0.0, 0.0), t=0.01),
                                 {"e": (2,), "ed": (2,), "t": "real"}),
    "FastClearance.full_state": (FC.full_state, dict(e=(1e-5, 0.0), ed=(0.0, 0.0), t=0.01),
                                 {"e": (2,), "ed": (2,), "t": "real"}),
    "FastClearance.state_from_full": (FC.state_from_full, dict(q=K0["q"], qd=K0["qd"]), {"q": (21,), "qd": (21,)}),
    "FastClearance.trajectory": (FC.trajectory, dict(t=[0.0, 1e-3], e=np.zeros((2, 2)), ed=np.zeros((2, 2))),
                                 {"t": (2,), "e": (2, 2), "ed": (2, 2)}),
    "FastClearance.e_local": (FC_E2.e_local, dict(q=Q2, e=np.full((2, 2), 1e-5)), {"q": (2, 21), "e": (2, 2)}),
    "FastClearance.e_local(ground)": (FC.e_local, dict(q=Q2, e=np.full((2, 2), 1e-5)), {"q": (2, 21), "e": (2, 2)}),
    "FastClearance.rhs": (FC.rhs, dict(t=0.01, y=np.zeros(6), ddelta0=0.1),
                          {"t": "real", "y": (6,), "ddelta0": OPT_POS}),
    "FastClearance.simulate": (FC.simulate, dict(t_span=(0.0, 1e-3), e0=(0.0, 0.0), ed0=(0.0, 0.0), t_eval=[1e-3],
                                                 rtol=1e-6, atol=1e-9, ddelta0=0.1, full=False, h_max=1.0,
                                                 max_steps=100_000),
                               {"t_span": T_SPAN, "e0": (2,), "ed0": (2,), "t_eval": T_EVAL, "rtol": OPT_RTOL,
                                "atol": OPT_POS, "ddelta0": OPT_POS, "full": FLAG, "h_max": H_MAX,
                                "max_steps": "count"}),
    "FastClearance.return_map": (FC.return_map, dict(x=np.zeros(4), t0=0.0, n_periods=1, rtol=1e-5, atol=1e-8),
                                 {"x": (4,), "t0": "real", "n_periods": "count", "rtol": OPT_RTOL, "atol": OPT_POS}),
    "FastClearance.return_map(memory)": (FC.return_map, dict(x=np.r_[np.zeros(4), 0.1], rtol=1e-5, atol=1e-8),
                                         {"x": X5}),
    "FastClearance.contact_forces": (FC.contact_forces, dict(result=RES), {"result": RESULT}),
    "FastClearance.mode_shares": (FC.mode_shares, dict(result=RES, t0=0.0, t1=1e-3),
                                  {"result": RESULT, "t0": OPT_REAL, "t1": st.sampled_from([-1.0, 0.0, float("nan"),
                                                                                             "x", True])}),
    "FastClearance.contact_modes": (FC.contact_modes, dict(result=RES), {"result": RESULT}),
    "FastClearance.energy_balance": (FC.energy_balance, dict(result=RES), {"result": RESULT}),
    "FastClearance.as_clearance_result": (FC.as_clearance_result, dict(result=RES), {"result": RESULT}),
    # ---- robolib.gearshift.orbits
    "StroboscopicMap": (O.StroboscopicMap, dict(params=None, frequency=12.0, clearance=5e-4, joint="B1", rtol=1e-6,
                                                atol=1e-9, memory="reset"),
                        {"params": PARAMS, "frequency": "positive", "clearance": "positive", "joint": JOINT,
                         "rtol": OPT_RTOL, "atol": OPT_POS, "memory": MEMORY}),
    "stroboscopic_map": (O.stroboscopic_map, dict(params=None, frequency=12.0, clearance=5e-4, joint="B1", rtol=1e-6,
                                                  atol=1e-9, memory="carried"),
                         {"params": PARAMS, "frequency": "positive", "clearance": "positive", "joint": JOINT,
                          "rtol": OPT_RTOL, "atol": OPT_POS, "memory": MEMORY}),
    "StroboscopicMap.__call__": (P12.__call__, dict(x=XS), {"x": (4,)}),
    "StroboscopicMap.with_rtol": (P12.with_rtol, dict(rtol=1e-7), {"rtol": st.sampled_from([0.0, 1.0, -1e-9, np.nan,
                                                                                            "x", True, None])}),
    "StroboscopicMap.noise": (P12.noise, dict(x=XS), {"x": (4,)}),
    "StroboscopicMap.samples": (P12.samples, dict(n_periods=1, x0=XS), {"n_periods": "count", "x0": optional((4,))}),
    "memory_sensitivity": (O.memory_sensitivity, dict(P=P4, orbit=ORBIT), {"P": MAP, "orbit": ORBIT_BAD}),
    "motion_orbit": (O.motion_orbit, dict(P=P4, orbit=ORBIT, sensitivity=0.0, max_iter=1),
                     {"P": MAP, "orbit": ORBIT_BAD, "sensitivity": "nonnegative", "max_iter": "seed"}),
    "liouville_log_determinant": (O.liouville_log_determinant, dict(P=P12, x=XS, k=1, rel_step=1e-6),
                                  {"P": MAP, "x": (4,), "k": "count",
                                   "rel_step": st.sampled_from([0.0, -1e-6, 1.0, np.nan, "x", True, None])}),
    "return_noise": (O.return_noise, dict(P=P12, x=XS, k=1), {"P": MAP, "x": (4,), "k": "count"}),
    "multiplier_floor": (O.multiplier_floor, dict(noise=1e-7, step=1e-3), {"noise": "nonnegative", "step": "positive"}),
    "perturbation_ratios": (O.perturbation_ratios, dict(P=P12, x=XS, k=1, amplitude=1e-3, n_returns=1, seed=0),
                            {"P": MAP, "x": (4,), "k": "count", "amplitude": "positive", "n_returns": "count",
                             "seed": "seed"}),
    "contraction_per_return": (O.contraction_per_return, dict(ratios=[5.0, 0.4, 0.16]), {"ratios": RATIOS}),
    "section_contact_margin": (O.section_contact_margin, dict(P=P4, orbit=ORBIT), {"P": MAP, "orbit": ORBIT_BAD}),
    "periodic_orbit_at": (O.periodic_orbit_at, dict(params=None, frequency=12.0, clearance=5e-4, k=1, x0=XS,
                                                    joint="B1", rtol=1e-6, n_transient=0, n_samples=1, samples=None,
                                                    update="newton", max_iter=3, memory="reset"),
                          {"params": PARAMS, "frequency": "positive", "clearance": "positive", "k": "count",
                           "x0": optional((4,)), "joint": JOINT, "rtol": OPT_RTOL, "n_transient": "seed",
                           "n_samples": "count",
                           "samples": SAMPLES_N4, "update": UPDATE, "max_iter": "seed", "memory": MEMORY}),
    "frequency_branch": (O.frequency_branch, dict(params=None, clearance=1e-4, f0=6.0, f1=6.05, joint="B1", rtol=1e-6,
                                                  ds=0.05, p_tol=0.1, tol=1e-2, x0=None, n_transient=2, pd_span=0.5,
                                                  update="broyden", ds_min=0.04, scheme="central"),
                         {"params": PARAMS, "clearance": "positive", "f0": "positive", "f1": "positive",
                          "joint": JOINT, "rtol": OPT_RTOL, "ds": "positive", "p_tol": OPT_POS, "tol": "positive",
                          "x0": optional((4,)), "n_transient": "seed", "pd_span": "positive", "update": UPDATE,
                          "ds_min": OPT_POS, "scheme": SCHEME}),
    # ---- robolib.studies.clearance_dynamics.orbit_study (the cheap checks; the study functions are run by its own tests)
    "close_returns": (S.close_returns, dict(z=np.ones((5, 2)), k=2, n=1), {"z": Z_BAD, "k": "count", "n": "seed"}),
    # ---- robolib.core.periodic / .continuation: the arguments tests/core/test_periodic.py leaves out
    "periodic_orbit(options)": (PO.periodic_orbit, dict(P=logistic(2.5), x0=[0.5], max_iter=25, scheme="central",
                                                        scale=1.0, variational=False, strict=True, update="broyden",
                                                        M0=np.array([[-0.5]])),
                                {"P": PMAP, "max_iter": "seed", "scheme": SCHEME, "scale": SCALE1,
                                 "variational": FLAG, "strict": FLAG, "update": UPDATE, "M0": optional((1, 1))}),
    "monodromy(options)": (PO.monodromy, dict(P=logistic(2.5), x=[0.5], scheme="forward", scale=1.0,
                                              variational=False),
                           {"P": PMAP, "scheme": SCHEME, "scale": SCALE1, "variational": FLAG}),
    "orbit_points(P)": (PO.orbit_points, dict(P=logistic(2.5), x=[0.5]), {"P": PMAP}),
    "difference_step(scheme)": (PO.difference_step, dict(noise=1e-9, scheme="forward"), {"scheme": SCHEME}),
    "period_doubling_start": (PO.period_doubling_start, dict(P=logistic(3.2), orbit=PD_ORBIT, h=0.1),
                              {"P": PMAP, "orbit": st.sampled_from([None, 1.0, "x", NO_PD_ORBIT, UNCONVERGED]),
                               "h": "positive"}),
    "continue_orbits(options)": (CO.continue_orbits, dict(map_at=logistic, x0=[0.6], p0=2.5, p1=2.7, ds=0.1,
                                                          ds_min=0.01, ds_max=0.2, max_steps=10, locate=True),
                                 {"map_at": MAP_AT, "ds_min": OPT_POS, "ds_max": DS_MAX, "max_steps": "count",
                                  "locate": FLAG}),
    "Branch.of_kind": (CO.continue_orbits(logistic, [0.6], 2.5, 3.2, 0.1).of_kind, dict(kind="period-doubling"),
                       {"kind": KIND_NAME}),
}


#: Study-level entry points of orbit_study.py: the argument, the bad value the fuzzing found, and what it did before
#: the check (an explicit value each, so a missing check costs one tiny run, not a hypothesis search).
ORBIT_STUDY_ROWS = {
    "case_orbits": (S.case_orbits, dict(params=None, case=(12.0, 0.5), rtol=1e-6, periods=(1,), n_starts=0,
                                        n_samples=2, n_renorm=1)),
    "orbit_verdict_name": (S.orbit_verdict_name, dict(attractor=None)),
    "orbit_table": (S.orbit_table, dict(cases={})),
    "section_units": (S.section_units, dict(P=P12, samples=np.zeros((2, 4)), found=[])),
    "orbit_tasks": (S.orbit_tasks, dict(s=settings_ns(), n_jobs=1)),
}


ORBIT_STUDY_XFAIL = [
    ("case_orbits", "case", (0.0, 0.5), "the error names frequency, not case: check case = (f Hz, c mm) and say "
                                       "'case = ... is not valid: case[0] (frequency) must be > 0 Hz'"),
    ("case_orbits", "case", (12.0, -1.0), "the error names clearance, not case"),
    ("case_orbits", "case", ("12", 0.5), "the error names frequency, not case"),
    ("case_orbits", "periods", (), "periods is not checked: a non-empty tuple of integers >= 1 (() returns a "
                                   "result with no orbit tried)"),
    ("case_orbits", "n_starts", -1, "n_starts is not checked (checks.count low=0)"),
    ("case_orbits", "n_samples", 0, "n_samples is not checked (checks.count): 0 gives a bare numpy error later"),
    ("orbit_verdict_name", "attractor", "x", "attractor is not checked: None or a dict with an integer k >= 1"),
    ("orbit_verdict_name", "attractor", {"k": 0}, "attractor['k'] is not checked (an integer >= 1)"),
    ("section_units", "P", None, "P is not checked (orbits._check_map(P) at entry)"),
    ("section_units", "samples", np.zeros((0, 4)), "samples is not checked: checks.real_array('samples', samples, "
                                                  "shape=(None, 4)) at entry"),
    ("section_units", "samples", np.full((2, 4), 1.0), "a sample out of reach raises UnreachableError naming the "
                                                     "joint and time, not samples"),
    ("section_units", "found", None, "found is not checked: a list of orbit summaries with k and points (k, 4)"),
    ("section_units", "found", [{"k": 1}], "found's entries are not checked (a KeyError)"),
    ("orbit_tasks", "s", None, "s is not checked: the study settings (params, base, joints, cases, ...)"),
    ("orbit_tasks", "s", settings_ns(joints=[]), "s.joints is not checked (an IndexError): one clearance joint"),
    ("orbit_table", "cases", None, "cases is not checked: a dict {(f, c_mm): case_orbits result}"),
    ("orbit_table", "cases", {(12.0, 0.5): 1.0}, "the case values are not checked (case_orbits results)"),
]


#: Public names of the five modules that are not table entries, and why.
NOT_FUZZED = {
    # fast
    "FastResult": "result container of FastClearance.simulate (its fields are checked where a method takes one)",
    "ERROR_SCALE": "a constant", "BRANCH_TOL": "a constant",
    # orbits
    "OrbitResult": "result container of periodic_orbit_at",
    "ContactMargin": "result container of section_contact_margin", "FrequencyBranch": "result container of "
    "frequency_branch", "SectionUnits": "result container of section_units", "CaseOrbits": "result container of "
    "case_orbits", "BranchStudy": "result container of branch_study",
    # orbit_study (study level: settings validated by the study's declared parameters, results by their producers)
    "register_case": "registers claims from a case_orbits result", "register_branch": "claims from branch_study",
    "register_crossings": "claims from branch_study", "register_past_loss": "claims from branch_study", "register_onsets": "claims from branch_study",
    "register_brute_agreement": "claims from branch_study and the sweep",
    "register_ladder_agreement": "claims from case_orbits results and the verdict study",
    "register_models": "claims from case_orbits results", "register_distance": "claims from case_orbits results", "register_exponent_checks": "claims from case_orbits results",
    "dae_rtol": "a lookup of the study's cases", "dae_jobs": "verdict-store jobs (verdict_store.study_run checks them)",
    "dae_exponent_jobs": "jobs of the study settings (declared and checked by the study)",
    "floquet_exponent": "reads an OrbitResult (checked where it is made)",
    "exponent_text": "formats an exponent a case_orbits result holds (checked where it is made)", "exponent_table": "a table of case_orbits "
    "results", "exponent": "lyapunov_exponent (fuzzed in tests/gearshift/test_lyapunov.py) at the chapter's tolerance",
    "register_cited": "takes only the claims register", "orbit_study": "the study step (settings declared and checked "
    "by robolib.studies.clearance_dynamics.study); its tasks are case_orbits and branch_study",
    "branch_study": "frequency_branch (fuzzed) on study settings (minutes per call)",
    "branch_figure": "plots a branch_study result", "orbits_figure": "plots case_orbits results",
    "case_orbits": "ORBIT_STUDY_ROWS (explicit bad values)", "orbit_verdict_name": "ORBIT_STUDY_ROWS",
    "orbit_table": "ORBIT_STUDY_ROWS", "section_units": "ORBIT_STUDY_ROWS",
    "orbit_tasks": "ORBIT_STUDY_ROWS",
    # periodic / continuation
    "ShootingError": "an exception class", "PeriodicOrbit": "result container of periodic_orbit",
    "Bifurcation": "result container", "Branch": "result container of continue_orbits (of_kind fuzzed)",
    "floquet_multipliers": "tests/core/test_periodic.py ENTRY_POINTS (M)",
}


#: Arguments of table entries that are not fuzzed, and why.
NOT_FUZZED_ARGS = {
    "FastClearance.return_map(memory)": dict.fromkeys(("t0", "n_periods", "rtol", "atol"),
                                                      "the 4-component row fuzzes them"),
    "periodic_orbit(options)": dict.fromkeys(("x0", "k", "tol", "step", "period"), "tests/core/test_periodic.py"),
    "monodromy(options)": dict.fromkeys(("x", "k", "step"), "tests/core/test_periodic.py"),
    "orbit_points(P)": dict.fromkeys(("x", "k"), "tests/core/test_periodic.py"),
    "difference_step(scheme)": {"noise": "tests/core/test_periodic.py"},
    "continue_orbits(options)": {**dict.fromkeys(("x0", "p0", "p1", "ds", "k", "p_tol"), "tests/core/test_periodic.py"),
                                 "newton": "periodic_orbit's keyword options (fuzzed in its row); unknown ones in "
                                           "test_unknown_newton_options_are_named"},
    "period_doubling_start": {"newton": "periodic_orbit's keyword options; unknown ones in "
                                        "test_unknown_newton_options_are_named"},
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


def _public(module) -> set:
    return {n for n in getattr(module, "__all__", dir(module)) if not n.startswith("_")
            and getattr(getattr(module, n, None), "__module__", module.__name__) == module.__name__}


@pytest.mark.fuzz
def test_the_tables_cover_the_public_names():
    covered = {name.split("(")[0].split(".")[0] for name in ENTRY_POINTS} | set(NOT_FUZZED)
    public = set().union(*(_public(m) for m in (F, O, S, PO, CO)))
    public = {n for n in public if callable(getattr(F, n, None) or getattr(O, n, None) or getattr(S, n, None)
                                            or getattr(PO, n, None) or getattr(CO, n, None))}
    assert sorted(public - covered) == []
    assert sorted(set(ORBIT_STUDY_ROWS) - set(NOT_FUZZED)) == []


@pytest.mark.fuzz
@pytest.mark.parametrize("cls", [F.FastClearance, O.StroboscopicMap])
def test_the_tables_cover_the_public_methods(cls):
    methods = {n for n, v in vars(cls).items() if callable(v) and (not n.startswith("_") or n == "__call__")}
    covered = {name.split("(")[0].split(".")[1] for name in ENTRY_POINTS if name.startswith(cls.__name__ + ".")}
    assert sorted(methods - covered) == []


@pytest.mark.fuzz
@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_every_argument_is_fuzzed_or_excused(entry):
    fn, kwargs, kinds = ENTRY_POINTS[entry]
    params = set(inspect.signature(fn).parameters)
    excused = NOT_FUZZED_ARGS.get(entry, set())
    assert sorted(params - set(kinds) - set(excused)) == []
    assert set(kwargs) <= params and set(kinds) <= params


@pytest.mark.fuzz
def test_the_periodic_table_of_test_periodic_still_fuzzes_the_excused_arguments():
    from core import test_periodic

    for entry, names in [("periodic_orbit(options)", {"x0", "k", "tol", "step", "period"}),
                         ("monodromy(options)", {"x", "k", "step"}), ("orbit_points(P)", {"x", "k"}),
                         ("difference_step(scheme)", {"noise"}),
                         ("continue_orbits(options)", {"x0", "p0", "p1", "ds", "k", "p_tol"})]:
        assert names <= set(test_periodic.ENTRY_POINTS[entry.split("(")[0]][2]), entry
    assert set(test_periodic.ENTRY_POINTS["floquet_multipliers"][2]) == {"M"}


# ---- the checks found by fuzzing, asserted by name and by message -----------------------------------------
@pytest.mark.fuzz
@pytest.mark.parametrize("call,name,range_text", [
    (lambda: O.stroboscopic_map(None, 12.0, 5e-4, rtol=1.0), "rtol", "(0, 1)"),
    (lambda: O.stroboscopic_map(1.0, 12.0, 5e-4), "params", "mapping"),
    (lambda: P12.with_rtol("x"), "rtol", "(0, 1)"),
    (lambda: O.return_noise(None, XS), "P", "StroboscopicMap"),
    (lambda: O.memory_sensitivity(P12, LOGISTIC_ORBIT), "orbit", "(k, 4)"),
    (lambda: O.liouville_log_determinant(P12, XS, rel_step=0.0), "rel_step", "(0, 1)"),
    (lambda: O.frequency_branch(None, 1e-4, 6.0, 6.05, pd_span=0.0), "pd_span", "> 0"),
    (lambda: FC.trajectory([0.0, "x"], np.zeros((2, 2)), np.zeros((2, 2))), "t", "real"),
    (lambda: FC.trajectory([0.0, 1e-3], np.zeros((3, 2)), np.zeros((2, 2))), "e", "(2, 2)"),
    (lambda: FC.rhs(np.nan, np.zeros(6)), "t", "finite"),
    (lambda: FC.simulate((0.0, 1e-3), full="yes"), "full", "True or False"),
    (lambda: FC.return_map(np.r_[np.zeros(4), -1.0]), "x", "> 0"),
    (lambda: FC.energy_balance(None), "result", "FastResult"),
    (lambda: PO.periodic_orbit(logistic(2.5), [0.5], variational=None), "variational", "True or False"),
    (lambda: CO.continue_orbits(logistic, [0.6], 2.5, 2.7, 0.1).of_kind("pd"), "kind", "period-doubling"),
    (lambda: CO.continue_orbits(None, [0.6], 2.5, 2.7, 0.1), "map_at", "callable"),
    (lambda: CO.continue_orbits(logistic, [0.6], 2.5, 2.7, 0.1, locate="no"), "locate", "True or False"),
    (lambda: PO.monodromy(logistic(2.5), [0.5], variational=None), "variational", "True or False"),
    (lambda: FC_E2.e_local(Q2, np.zeros((3, 2))), "q (..., 21) and e (..., 2)", "broadcastable"),
    (lambda: FC.e_local(None, np.zeros(2)), "q", "real numbers"),     # a ground bearing ignored q
    (lambda: O.frequency_branch(None, 1e-4, f0=0.0), "f0", "> 0 Hz"),
    (lambda: O.frequency_branch(None, 1e-4, f0=6.0, f1=6.0), "f1", "differ from f0"),
    (lambda: O.section_contact_margin(P12, UNCONVERGED), "orbit", "converged"),
    (lambda: O.periodic_orbit_at(None, 12.0, 5e-4, update="secant"), "update", "'newton' or 'broyden'"),
])
def test_the_found_defects_are_refused_by_name(call, name, range_text):
    with pytest.raises(RobolibError) as exc:
        call()
    assert name in str(exc.value) and range_text in str(exc.value), str(exc.value)


@pytest.mark.fuzz
def test_the_orbit_of_the_table_is_an_orbit_of_its_map():
    """ORBIT (the valid ``orbit`` argument) returns to itself under P4 within the shooting tolerance it met (10 x
    the measured one-return noise at rtol 1e-6), is attracting, and is not the resting start."""
    assert ORBIT.converged and ORBIT.points.shape == (1, 4)
    assert np.max(np.abs(P4(XS) - XS) / P4.scale) <= ORBIT.tol
    assert np.max(np.abs(XS) / P4.scale) > 0.1
    assert np.max(np.abs(ORBIT.multipliers)) < 0.9


@pytest.mark.fuzz
@pytest.mark.parametrize("call", [
    lambda: O.periodic_orbit_at(None, 12.0, 5e-4, rtol=1e-6, n_transient=0, n_samples=1, max_iter=-1),
    lambda: O.periodic_orbit_at(None, 12.0, 5e-4, rtol=1e-6, n_transient=0, n_samples=1, update="x"),
    lambda: O.frequency_branch(None, 1e-4, 6.0, 6.05, rtol=1e-6, n_transient=2, pd_span=0.0),
    lambda: O.frequency_branch(None, 1e-4, 6.0, 6.05, rtol=1e-6, n_transient=2, ds=0.0),
    lambda: O.frequency_branch(None, 1e-4, 6.0, 6.05, rtol=1e-6, n_transient=2, scheme="x"),
    lambda: O.liouville_log_determinant(P12, XS, rel_step=0.0),
    lambda: O.perturbation_ratios(P12, XS, amplitude=0.0),
    lambda: FC.simulate((0.0, 1e-3), full=None),
])
def test_a_bad_argument_is_refused_before_any_integration(call, monkeypatch):
    """With the integrator replaced by one that fails, a bad argument still raises its own ParameterError."""
    def no_integration(*args, **kwargs):
        raise AssertionError("integrated before refusing the bad argument")

    compiled = property(lambda self: no_integration, lambda self, value: None)   # models built inside get it too
    monkeypatch.setattr(F.FastClearance, "_integ", compiled, raising=False)
    monkeypatch.setattr(F.FastClearance, "_rhs", compiled, raising=False)
    with pytest.raises(AssertionError, match="integrated before"):
        FC.simulate((0.0, 1e-3))                                                  # the replacement is in force
    with pytest.raises(ParameterError):
        call()



# ==== periodic orbits of the gear shift through independent routes ==================================================
#
# Periodic orbits of the gear-shift on the fast model (robolib.gearshift.orbits): independent routes.
#
# The case is 10 Hz / 0.5 mm (a period-2 orbit; one return ~0.07 s at rtol 1e-11), shared by the tests.

FREQ, C = 10.0, 5e-4


#: Two tolerances of the same orbit: the orbit points agree within this factor times the looser shooting tol.
RTOL_AGREE_FACTOR = 3.0


#: Largest |mu| from two difference steps / two rtols agree to this (absolute).
MU_AGREE = 0.05


#: The exponent's uncertainty (1/s) over 30 periods must be informative: below the Floquet exponent's size (~4.5 /s)
#: plus a margin (measured 3.4 /s over 40 periods from the centred start).
LYAP_U_MAX = 6.0


@pytest.fixture(scope="module")
def case():
    return O.periodic_orbit_at(None, FREQ, C, k=2, n_transient=30, n_samples=12)


def test_orbit_exists_is_stable_period_two(case):
    assert case.orbit is not None, case.reason
    assert case.residual <= case.tol
    assert case.orbit.minimal_period == 2
    assert case.stable and case.max_mu < 1 - O.STABILITY_MARGIN
    assert case.lyapunov == pytest.approx(math.log(case.max_mu) / (2 / FREQ))


def test_orbit_equals_long_simulation_samples(case):
    """A run from the chapter's initial state lands on the orbit points (independent of shooting)."""
    assert case.converges, case.sim_distances
    fc = FastClearance(None, clearance=C, frequency=FREQ)
    T = 1 / FREQ
    r = fc.simulate((0.0, 44 * T), t_eval=[42 * T, 43 * T, 44 * T], rtol=O.ORBIT_RTOL)
    s = np.hstack([r.e, r.ed])
    P = O.stroboscopic_map(None, FREQ, C)
    d = O._distances(s, case.motion_points, P.scale)
    assert np.all(d <= O.MOTION_FACTOR * case.tol), d
    # consecutive samples sit on different orbit points (period 2, not 1)
    near = [int(np.argmin(np.max(np.abs(case.motion_points - v) / P.scale, axis=1))) for v in s]
    assert near[0] != near[1] and near[0] == near[2]


def test_motion_follows_the_orbit_with_memory_carried_not_the_reset_one(case):
    """At 10 Hz / 0.5 mm a contact spans phase 0 at one orbit point: the reset map's orbit lies there off the
    simulated motion (which carries the memory) by far more than the tolerance; the carried orbit does not."""
    assert case.memory > 0.0
    P = O.stroboscopic_map(None, FREQ, C)
    tail = P.samples(44)[-4:]
    off_reset = np.max(O._distances(tail, case.orbit.points, P.scale))
    off_carried = np.max(O._distances(tail, case.motion_points, P.scale))
    assert off_carried <= O.MOTION_FACTOR * case.tol
    assert off_reset > 3.0 * off_carried, (off_reset, off_carried)


def test_residual_at_noise_level_and_shrinks_with_rtol(case):
    """At rtol 1e-10 the orbit is the same within its (larger) tolerance; the noise falls with rtol."""
    r10 = O.periodic_orbit_at(None, FREQ, C, k=2, x0=case.orbit.x, samples=case.orbit.points, rtol=1e-10)
    assert r10.orbit is not None, r10.reason
    assert case.noise < r10.noise
    assert case.residual <= case.tol < r10.tol
    P = O.stroboscopic_map(None, FREQ, C)
    gap = float(np.max(np.abs(r10.orbit.x - case.orbit.x) / P.scale))
    assert gap <= RTOL_AGREE_FACTOR * r10.tol


@pytest.fixture(scope="module")
def smooth():
    """10 Hz / 0.1 mm: a period-1 orbit whose map is smooth at the difference step (complex pair |mu| ~ 0.15)."""
    return O.periodic_orbit_at(None, FREQ, 1e-4, k=1, n_transient=30, n_samples=6)


def test_multipliers_agree_between_difference_steps(smooth):
    assert smooth.orbit is not None, smooth.reason
    P = O.stroboscopic_map(None, FREQ, 1e-4)
    mu = floquet_multipliers(monodromy(P, smooth.orbit.x, k=1, step=3 * P.step, scale=P.scale))
    assert abs(abs(mu[0]) - smooth.max_mu) <= MU_AGREE
    assert np.allclose(np.sort(np.abs(mu))[::-1][:2], np.sort(np.abs(smooth.multipliers))[::-1][:2], atol=MU_AGREE)


def test_det_monodromy_against_liouville(case):
    """det D P^2 = exp(integral of div f): damping makes it far below 1; the differenced det agrees (both tiny)."""
    P = O.stroboscopic_map(None, FREQ, C)
    log_det = O.liouville_log_determinant(P, case.orbit.x, k=2)
    assert log_det < math.log(1e-6)
    assert abs(case.det) < 1e-6
    # |det| <= product of the moduli: consistent with the multipliers
    assert abs(case.det) <= np.prod(np.abs(case.multipliers)) * (1 + 1e-6) + 1e-300


def test_memory_reset_small_against_orbit_size(case):
    """The onset-speed memory reset at phase 0 changes P^2 at the orbit by < 1e-3 c (phase 0 is in contact)."""
    assert case.memory < 1e-3


def test_map_picklable_and_bad_input():
    P = O.stroboscopic_map(None, FREQ, C)
    x = np.array([-0.14468, 0.99001, 1.10206, 0.16508]) * P.scale
    Q = pickle.loads(pickle.dumps(P))
    assert np.array_equal(P(x), Q(x))
    with pytest.raises(ParameterError, match="k = 0"):
        O.periodic_orbit_at(None, FREQ, C, k=0)
    with pytest.raises(ParameterError, match=r"frequency = -1\.0"):
        O.periodic_orbit_at(None, -1.0, C)
    with pytest.raises(ParameterError, match="clearance"):
        O.stroboscopic_map(None, FREQ, 0.0)
    with pytest.raises(ParameterError, match="x0"):
        O.periodic_orbit_at(None, FREQ, C, x0=np.zeros(3))
    with pytest.raises(ParameterError, match="memory"):
        O.stroboscopic_map(None, FREQ, C, memory="forget")
    with pytest.raises(ParameterError):
        P(np.zeros(5))


def test_exponent_routes_agree(case):
    """ln max|mu| / (kT) from the differenced monodromy = the tangent-linear time-series exponent within 5 %."""
    L = LY.tangent_lyapunov(None, FREQ, C, x0=case.orbit.x, n_transient=2, n_periods=20, rtol=1e-10)
    assert 0 < L.uncertainty < LYAP_U_MAX
    assert abs(L.exponent - case.lyapunov) <= 0.05 * abs(case.lyapunov), (L.exponent, case.lyapunov)


# --- multipliers: accuracy, the direct route, the smooth scale (issue 20 item 2 follow-up) ---------------------------

#: Direct route (perturbation ratios, no differencing): amplitude (scaled), returns of P^k and the tolerance.
DIRECT_AMPLITUDE = 1e-4


DIRECT_RTOL = 1e-12


#: A stencil wider than the section's contact depth reads max|mu| off the direct route by more than this.
WIDE_STENCIL_OFF = 0.5


WIDE_STEP = 1e-3


#: 2 Hz / 0.1 mm: the previous Floquet reading (max|mu| ~ 1e-4, ln|mu|/T = -19 /s) and the perturbation size of the
#: direct route there (scaled; a smaller one shrinks into the noise at once).
READ_2HZ = 1e-4


DIRECT_AMPLITUDE_2HZ = 3e-2


def test_multiplier_error_direct_route_and_smooth_scale(case):
    """10 Hz: max|mu(P^2)| resolved (0.409 ± 0.013), the direct route agrees, the stencil is inside the contact depth
    and the orbit's contact onsets are far from grazing."""
    assert case.resolved and case.mu_error < 0.1 and case.mu_upper < 1 - O.STABILITY_MARGIN
    assert case.mu_error >= case.mu_floor > 0
    assert case.lyapunov_lower <= case.lyapunov <= case.lyapunov_upper
    cm = case.contact
    assert cm.smooth_at_step and cm.stencil < cm.depth < 1e-2
    assert cm.n_onsets > 10 and cm.min_onset_speed > 0.05
    P = O.stroboscopic_map(None, FREQ, C, rtol=DIRECT_RTOL)
    ratios = O.perturbation_ratios(P, case.orbit.x, k=2, amplitude=DIRECT_AMPLITUDE, n_returns=3)
    assert np.all(np.diff(ratios) < 0)
    assert abs(O.contraction_per_return(ratios) - case.max_mu) <= MU_AGREE


def test_stencil_wider_than_contact_depth_misreads(case):
    """A step whose e-stencil crosses the contact boundary at the section reads a wrong multiplier (the neighbour
    starts in free flight: a new onset and memory), so the smooth scale is a real limit, not a precaution."""
    assert WIDE_STEP > case.contact.depth
    P = O.stroboscopic_map(None, FREQ, C)
    mu = floquet_multipliers(monodromy(P, case.orbit.x, k=2, step=WIDE_STEP, scale=P.scale))
    assert abs(abs(mu[0]) - case.max_mu) > WIDE_STENCIL_OFF


@pytest.fixture(scope="module")
def strong():
    """2 Hz / 0.1 mm: a period-1 orbit contracting far below the differencing noise."""
    return O.periodic_orbit_at(None, 2.0, 1e-4, k=1, n_transient=30, n_samples=6)


def test_contraction_below_noise_is_a_bound(strong):
    """The differenced max|mu| is below its error (noise / step): only a bound; the direct route shows the true
    contraction is below the old reading 1e-4; the time-series exponent lies within the bound."""
    r = strong
    assert r.orbit is not None and r.residual <= r.tol and r.converges
    assert not r.resolved and r.mu_floor > READ_2HZ and r.lyapunov_lower == -math.inf
    assert r.contact.smooth_at_step
    P = O.stroboscopic_map(None, 2.0, 1e-4, rtol=DIRECT_RTOL)
    ratio = O.perturbation_ratios(P, r.orbit.x, k=1, amplitude=DIRECT_AMPLITUDE_2HZ, n_returns=1)[0]
    assert ratio < READ_2HZ / 10
    L = LY.tangent_lyapunov(None, 2.0, 1e-4, x0=r.orbit.x, n_transient=1, n_periods=4, n_align=1, rtol=1e-9)
    assert L.exponent + L.uncertainty < math.log(READ_2HZ) * 2.0   # below the old Floquet reading's -19 /s
    assert L.exponent - L.uncertainty <= r.lyapunov_upper


def test_multiplier_helpers_reject_bad_input():
    with pytest.raises(ParameterError, match="step"):
        O.multiplier_floor(1e-7, 0.0)
    with pytest.raises(ParameterError, match="ratios"):
        O.contraction_per_return([1.0, 0.5])
    with pytest.raises(ParameterError, match="amplitude"):
        O.perturbation_ratios(O.stroboscopic_map(None, FREQ, C), np.zeros(4), amplitude=-1.0)
