"""Planar multibody core in absolute coordinates (x, y, theta per body).

* :mod:`.elements` -- bodies, joints, drivers, force elements (data);
* :mod:`.mechanism` -- the :class:`Mechanism` (constraints, Jacobian, gamma,
  Baumgarte-stabilised augmented solve);
* :mod:`.solvers` -- assembly, kinematic state, inverse dynamics, driving torques, energy terms;
* :mod:`.integrator` -- Dormand-Prince 5(4), the compiled stepping loop, :func:`simulate`, :func:`project`.
"""

from __future__ import annotations

from robolib.core.multibody.integrator import (  # noqa: F401
    EPISODE_CHUNK,
    OUTPUT_CHUNK,
    IntegrationResult,
    dopri5,
    hermite,
    integrate_compiled,
    project,
    resolve_backend,
    simulate,
)
from robolib.core.multibody.mechanism import (  # noqa: F401
    ASSEMBLY_MAX_ITER,
    ASSEMBLY_TOL,
    BAUMGARTE_ALPHA,
    BAUMGARTE_BETA,
    GROUND,
    SINGULAR_TOL,
    AngleLock,
    Body,
    Constant,
    ConstantSpeed,
    Driver,
    GroundPin,
    Mechanism,
    Pin,
    PointSpringDamper,
    _numba,
    rotate,
)
from robolib.core.multibody.solvers import (  # noqa: F401
    assemble,
    driving_torques,
    energy_terms,
    inverse_dynamics,
    kinematic_state,
    virtual_power_torques,
)

__all__ = ["GROUND", "Body", "GroundPin", "Pin", "AngleLock", "Driver", "Constant", "ConstantSpeed", "PointSpringDamper", "Mechanism", "rotate", "assemble", "kinematic_state", "inverse_dynamics", "driving_torques", "virtual_power_torques", "energy_terms", "dopri5", "hermite", "integrate_compiled", "IntegrationResult", "simulate", "project", "resolve_backend"]
