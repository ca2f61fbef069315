"""Gear-shift manipulator of a driving robot with joint clearance (seed 001), and the slider-crank check.

* :mod:`.model` -- parameters, the two-link chain, the gear-shift mechanism and its clearance model,
  end-effector errors, the slider-crank validation case;
* :mod:`.fast` -- the fast formulation beside the DAE: minimal coordinates in the journal eccentricity
  (closed-form kinematics, no constraint solve), its compiled integrator and the stroboscopic return map;
* :mod:`.runs` -- nonlinear-dynamics runs (journal orbits, Poincare runs, Lyapunov exponents);
* :mod:`.store` -- the stored bifurcation sweep (``make bifurcation``);
* :mod:`.drawing` -- drawings of the mechanism and its clearance joint;
* :mod:`.orbits` -- periodic orbits of the return map, their Floquet multipliers and continuation;
* :mod:`.case_verdict` -- :func:`verdict`, the chapter's verdict of any case in one call (orbit, tolerance ladder,
  exponent);
* :mod:`.lyapunov` -- the largest Lyapunov exponent from the tangent-linear flow (fast model and DAE), with the
  saltation of the onset-speed memory at each contact onset.

Its chapter is :mod:`robolib.studies.clearance_dynamics`.
"""

from robolib.gearshift import case_verdict, drawing, fast, lyapunov, model, orbits, runs, store  # noqa: F401
from robolib.gearshift.case_verdict import Verdict, verdict
from robolib.gearshift.fast import FastClearance, FastResult
from robolib.gearshift.lyapunov import Exponent, TangentExponent, lyapunov_exponent
from robolib.gearshift.model import *
from robolib.gearshift.orbits import ContactMargin, FrequencyBranch, OrbitResult
from robolib.gearshift.runs import *
from robolib.gearshift.store import SweepSource

__all__ = [*model.__all__, *runs.__all__, "FastClearance", "FastResult", "OrbitResult", "ContactMargin", "Exponent", "TangentExponent", "lyapunov_exponent", "Verdict", "verdict",
           "FrequencyBranch", "SweepSource"]
