"""robolib: verified kernels for parallel-robot kinematics and dynamics.

The package holds the numerical kernels of the workbench; the notebooks in
``notebooks/`` tell the studies and the book publishes them.

Modules
-------
errors
    The error hierarchy (:class:`RobolibError` and its subclasses).
params
    Loader for the YAML parameter files in ``data/``.
prp3
    3-PRP parallel robot: closed-form forward/inverse kinematics, working
    modes, Jacobian, workspace.
constraints
    Constraint-dynamics core: Udwadia-Kalaba equation (single step and in
    sequential layers), Lagrange multipliers / KKT, Baumgarte terms.
friction
    Joint friction laws: smooth sign, load-dependent Coulomb, Stribeck, viscous.
redundant
    2-DOF redundantly actuated planar robot: subsystems, constraint layers,
    forward/inverse dynamics with friction, simulation, energy bookkeeping.
redundant_symbolic
    The sympy derivation of the redundant robot's subsystem equations.
rotations
    Rotation matrices, Euler angles (Rz Ry Rx), skew matrices.
stewart
    6-UPS Gough-Stewart platform: kinematics with the universal-joint
    constraint, Newton-Euler and virtual-work dynamics, ID-PID control.
multibody
    Planar multibody core in absolute coordinates: bodies, joints, constraint
    Jacobian, gamma, Baumgarte-stabilised augmented solve, energy bookkeeping.
contact
    Contact laws: Hertz stiffness, Lankarani-Nikravesh / Flores / Hertz normal
    force, Ambrosio's modified Coulomb friction.
clearance
    Revolute joints with clearance on the multibody core, contact episodes.
gearshift
    The driving robot's gear-shift manipulator and the slider-crank validation case.
nonlinear
    Poincare sections, bifurcation sweeps (joblib), largest Lyapunov exponent, spectra.
viz
    Matplotlib drawings used by the notebooks.
notebook
    Small helpers used by the study notebooks (parameter checks, tables, explore widgets).
"""

from __future__ import annotations

from .errors import (
    ConvergenceError,
    ParameterError,
    ParameterFileError,
    RobolibError,
    SingularityError,
    UnreachableError,
)
from .params import DATA_DIR, load_yaml, resolve_data_path

__version__ = "0.1.0"

__all__ = [
    "RobolibError",
    "UnreachableError",
    "SingularityError",
    "ParameterError",
    "ParameterFileError",
    "ConvergenceError",
    "DATA_DIR",
    "load_yaml",
    "resolve_data_path",
]
