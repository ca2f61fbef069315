"""3-PRP parallel robot (seed 003): closed-form kinematics, working modes, Jacobian, workspace.

* :mod:`.kinematics` -- geometry, forward and inverse kinematics, working modes, the paper's rules, Jacobian;
* :mod:`.sampling` -- workspace sampling and volumes, the large round trip and its error law;
* :mod:`.drawing` -- the labelled mechanism drawing and the Explore figure.

Its chapter is :mod:`robolib.studies.prp3_roundtrip`.

>>> from robolib import prp3
>>> g = prp3.load_geometry("prp3/paper.yaml")
>>> q = prp3.inverse(g, prp3.forward(g, 200.0, 200.0, 0.0))
>>> [round(float(v), 6) for v in q]
[200.0, 200.0, 0.0]
"""

from robolib.prp3 import drawing, kinematics, sampling  # noqa: F401
from robolib.prp3.kinematics import *
from robolib.prp3.kinematics import (  # noqa: F401
    HOME_INPUT,
    RULE_MATCH_TOL,
    SINGULAR_TOL,
    SQRT1_2,
    U1,
    U2,
    V,
    _ik_parts,
)
from robolib.prp3.sampling import *

__all__ = [*kinematics.__all__, *sampling.__all__]
