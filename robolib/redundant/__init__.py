"""2-DOF redundantly actuated planar parallel robot with joint friction (seed 000).

* :mod:`.model` -- the robot's parameters, subsystem models, kinematics and the two constraint layers;
* :mod:`.dynamics` -- forward dynamics by five routes, inverse kinematics, reference motion,
  inverse dynamics with the redundancy resolved;
* :mod:`.simulation` -- forward simulation with friction and the friction studies' library functions;
* :mod:`.symbolic` -- the sympy derivation of the subsystem equations;
* :mod:`.drawing` -- drawings of the robot and its labelled mechanism figure.

>>> from robolib import redundant
>>> robot = redundant.load("redundant/default.yaml")
>>> robot.mu
0.1
"""

from robolib.redundant import drawing, dynamics, model, simulation, symbolic  # noqa: F401
from robolib.redundant.dynamics import *
from robolib.redundant.model import *
from robolib.redundant.model import SINGULAR_TOL  # noqa: F401
from robolib.redundant.simulation import *

__all__ = [*model.__all__, *dynamics.__all__, *simulation.__all__]
