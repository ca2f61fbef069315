"""Planar multibody core in absolute coordinates (x, y, theta per body).

* :mod:`.elements` -- bodies, joints, drivers, force elements (data);
* :mod:`.mechanism` -- the :class:`Mechanism` (constraints, Jacobian, gamma,
  Baumgarte-stabilised augmented solve);
* :mod:`.solvers` -- assembly, kinematic state, inverse dynamics, driving torques, energy terms;
* :mod:`.integrator` -- Dormand-Prince 5(4), the compiled stepping loop, :func:`simulate`, :func:`project`.
"""

from __future__ import annotations

from .mechanism import (  # noqa: F401
    _numba, AngleLock, ASSEMBLY_MAX_ITER, ASSEMBLY_TOL, BAUMGARTE_ALPHA, BAUMGARTE_BETA, Body, Constant,
    ConstantSpeed, Driver, GROUND, GroundPin, Mechanism, Pin, PointSpringDamper, rotate, SINGULAR_TOL,
)
from .solvers import (  # noqa: F401
    assemble, driving_torques, energy_terms, inverse_dynamics, kinematic_state, virtual_power_torques,
)
from .integrator import (  # noqa: F401
    dense_output, dopri5, EPISODE_CHUNK, hermite, initial_step, integrate_compiled, IntegrationResult,
    OUTPUT_CHUNK, project, resolve_backend, simulate,
)

__all__ = ["GROUND", "Body", "GroundPin", "Pin", "AngleLock", "Driver", "Constant", "ConstantSpeed", "PointSpringDamper", "Mechanism", "rotate", "assemble", "kinematic_state", "inverse_dynamics", "driving_torques", "virtual_power_torques", "energy_terms", "dopri5", "hermite", "dense_output", "integrate_compiled", "initial_step", "IntegrationResult", "simulate", "project", "resolve_backend"]
