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

from robolib.gearshift import drawing, fast, model, orbits, runs, store  # noqa: F401
from robolib.gearshift.fast import FastClearance, FastResult
from robolib.gearshift.model import *
from robolib.gearshift.model import CHAIN_SINGULAR_TOL, _drive_angle_py  # noqa: F401
from robolib.gearshift.orbits import ContactMargin, FastLyapunov, FrequencyBranch, OrbitResult
from robolib.gearshift.runs import *
from robolib.gearshift.store import RunSources, StoredLyapunov, SweepSource

__all__ = [*model.__all__, *runs.__all__, "FastClearance", "FastResult", "OrbitResult", "ContactMargin", "FastLyapunov",
           "FrequencyBranch", "SweepSource", "RunSources", "StoredLyapunov"]
