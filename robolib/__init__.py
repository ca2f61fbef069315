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
notebook
    Small helpers used by the study notebooks (parameter checking).
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
