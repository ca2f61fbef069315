"""Gear-shift manipulator of a driving robot with joint clearance (seed 001), and the slider-crank check.

* :mod:`.model` -- parameters, the two-link chain, the gear-shift mechanism and its clearance model,
  end-effector errors, the slider-crank validation case;
* :mod:`.fast` -- the fast formulation beside the DAE: minimal coordinates in the journal eccentricity
  (closed-form kinematics, no constraint solve), its compiled integrator and the stroboscopic return map;
* :mod:`.runs` -- nonlinear-dynamics runs (journal orbits, Poincare runs, Lyapunov exponents);
* :mod:`.store` -- the stored bifurcation sweep and verdict runs (``make bifurcation``);
* :mod:`.drawing` -- drawings of the mechanism and its clearance joint;
* :mod:`.study` -- the chapter's study (``robolib.study clearance_dynamics``), over :mod:`.settings`
  (parameter checks), :mod:`.checks` (model checks, detailed run, slider-crank), :mod:`.verdicts` (tolerance
  ladders, replicates, Lyapunov), :mod:`.sweeps` (bifurcation sweeps) and :mod:`.figures`.
"""

from __future__ import annotations

from .model import (  # noqa: F401
    _drive_angle_py, build_gearshift, build_slider_crank, chain1_variables, chain_ik, CHAIN_SINGULAR_TOL,
    ChainDrive, clearance_model, clearance_specs, end_effector_errors, GearShift, ideal_motion,
    load_parameters, load_slider_crank, SCHEMA, ShiftStroke, simulate_clearance, simulate_ideal,
    slider_closed_form, SLIDER_CRANK_SCHEMA, SliderCrank, with_changes,
)
from .runs import (  # noqa: F401
    ClearanceFlow, detail_metrics, explore_run, journal_orbit, LYAPUNOV_RENORM, lyapunov_run, LYAPUNOV_TAU,
    LYAPUNOV_TRANSIENT, NOISE_RTOL_DIVISOR, orbit_run, PERIOD_TOL_FACTOR, PERIOD_TOL_FLOOR, poincare_run,
    POINCARE_SAMPLES, POINCARE_TRANSIENT,
)
from .fast import FastClearance, FastResult  # noqa: E402,F401
from . import drawing, fast, store  # noqa: E402,F401

__all__ = ["SCHEMA", "SLIDER_CRANK_SCHEMA", "load_parameters", "load_slider_crank", "with_changes", "chain_ik", "ShiftStroke", "ChainDrive", "GearShift", "build_gearshift", "clearance_specs", "clearance_model", "ideal_motion", "simulate_ideal", "simulate_clearance", "chain1_variables", "end_effector_errors", "SliderCrank", "slider_closed_form", "build_slider_crank", "journal_orbit", "poincare_run", "ClearanceFlow", "lyapunov_run", "orbit_run", "POINCARE_TRANSIENT", "POINCARE_SAMPLES", "PERIOD_TOL_FACTOR", "PERIOD_TOL_FLOOR", "NOISE_RTOL_DIVISOR", "LYAPUNOV_TRANSIENT", "LYAPUNOV_RENORM", "LYAPUNOV_TAU", "detail_metrics", "explore_run", "FastClearance", "FastResult"]
