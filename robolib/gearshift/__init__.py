"""Gear-shift manipulator of a driving robot with joint clearance (seed 001), and the slider-crank check.

* :mod:`.model` -- parameters, the two-link chain, the gear-shift mechanism and its clearance model,
  end-effector errors, the slider-crank validation case;
* :mod:`.fast` -- the fast formulation beside the DAE: minimal coordinates in the journal eccentricity
  (closed-form kinematics, no constraint solve), its compiled integrator and the stroboscopic return map;
* :mod:`.runs` -- nonlinear-dynamics runs (journal orbits, Poincare runs, Lyapunov exponents);
* :mod:`.store` -- the stored bifurcation sweep and verdict runs (``make bifurcation``);
* :mod:`.drawing` -- drawings of the mechanism and its clearance joint;
* :mod:`.orbits` -- periodic orbits of the return map, their Floquet multipliers and continuation,
  Lyapunov exponents of the fast model.

Its chapter is :mod:`robolib.studies.clearance_dynamics`.
"""

from __future__ import annotations

from robolib.gearshift import drawing, fast, orbits, store  # noqa: E402,F401
from robolib.gearshift.fast import FastClearance, FastResult  # noqa: E402,F401
from robolib.gearshift.model import (  # noqa: F401
    CHAIN_SINGULAR_TOL,
    CLEARANCE_JOINTS,
    SCHEMA,
    SLIDER_CRANK_SCHEMA,
    ChainDrive,
    GearShift,
    ShiftStroke,
    SliderCrank,
    _drive_angle_py,
    build_gearshift,
    build_slider_crank,
    chain1_variables,
    chain_ik,
    clearance_model,
    clearance_specs,
    end_effector_errors,
    ideal_motion,
    load_parameters,
    load_slider_crank,
    simulate_clearance,
    simulate_ideal,
    slider_closed_form,
    with_changes,
)
from robolib.gearshift.orbits import ContactMargin, FastLyapunov, FrequencyBranch, OrbitResult  # noqa: F401
from robolib.gearshift.runs import (  # noqa: F401
    LYAPUNOV_RENORM,
    LYAPUNOV_TAU,
    LYAPUNOV_TRANSIENT,
    NOISE_RTOL_DIVISOR,
    PERIOD_TOL_FACTOR,
    PERIOD_TOL_FLOOR,
    POINCARE_SAMPLES,
    POINCARE_TRANSIENT,
    ClearanceFlow,
    DetailMetrics,
    JournalOrbit,
    OrbitRun,
    PoincarePoint,
    PoincareRun,
    detail_metrics,
    explore_run,
    journal_orbit,
    lyapunov_run,
    orbit_run,
    poincare_run,
)
from robolib.gearshift.store import RunSources, StoredLyapunov, SweepSource  # noqa: F401

__all__ = ["CLEARANCE_JOINTS", "SCHEMA", "SLIDER_CRANK_SCHEMA", "load_parameters", "load_slider_crank", "with_changes", "chain_ik", "ShiftStroke", "ChainDrive", "GearShift", "build_gearshift", "clearance_specs", "clearance_model", "ideal_motion", "simulate_ideal", "simulate_clearance", "chain1_variables", "end_effector_errors", "SliderCrank", "slider_closed_form", "build_slider_crank", "journal_orbit", "poincare_run", "ClearanceFlow", "lyapunov_run", "orbit_run", "POINCARE_TRANSIENT", "POINCARE_SAMPLES", "PERIOD_TOL_FACTOR", "PERIOD_TOL_FLOOR", "NOISE_RTOL_DIVISOR", "LYAPUNOV_TRANSIENT", "LYAPUNOV_RENORM", "LYAPUNOV_TAU", "detail_metrics", "explore_run", "FastClearance", "FastResult",
           "JournalOrbit", "PoincarePoint", "PoincareRun", "OrbitRun", "DetailMetrics",
           "OrbitResult", "ContactMargin", "FastLyapunov", "FrequencyBranch", "SweepSource", "RunSources", "StoredLyapunov"]
