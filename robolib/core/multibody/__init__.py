"""Planar multibody core in absolute coordinates (x, y, theta per body).

* :mod:`.elements` -- bodies, joints, drivers, force elements (data);
* :mod:`.mechanism` -- the :class:`Mechanism` (constraints, Jacobian, gamma,
  Baumgarte-stabilised augmented solve);
* :mod:`.solvers` -- assembly, kinematic state, inverse dynamics, driving torques, energy terms;
* :mod:`.integrator` -- Dormand-Prince 5(4), the compiled stepping loop, :func:`simulate`, :func:`project`.
"""

from robolib.core.multibody import integrator, mechanism, solvers
from robolib.core.multibody.integrator import *
from robolib.core.multibody.integrator import EPISODE_CHUNK, OUTPUT_CHUNK  # noqa: F401
from robolib.core.multibody.mechanism import *
from robolib.core.multibody.mechanism import (  # noqa: F401
    BAUMGARTE_ALPHA,
    BAUMGARTE_BETA,
    SINGULAR_TOL,
    _numba,
)
from robolib.core.multibody.solvers import *

__all__ = [*mechanism.__all__, *solvers.__all__, *integrator.__all__]
