"""robolib: verified kernels and studies for parallel-robot kinematics and dynamics.

One package per mechanism, each holding its model, kinematics/dynamics, drawing and the
study of its chapter, over shared cores and the book's helpers:

=====================  =====================================================================
``robolib.prp3``       3-PRP parallel robot (seed 003): kinematics, workspace, drawing, study
``robolib.redundant``  2-DOF redundantly actuated planar robot (seed 000): model, dynamics,
                       simulation with friction, sympy derivation, drawing, studies
``robolib.stewart``    6-UPS Gough-Stewart platform (seed 004): kinematics, Newton-Euler and
                       virtual-work dynamics, ID-PID control, drawing, study
``robolib.gearshift``  gear-shift manipulator with joint clearance (seed 001): model, runs,
                       stored runs, drawing, study
``robolib.core``       shared cores: errors, params, rotations, constraints, friction,
                       multibody, contact, clearance joints, nonlinear tools, compiled kernels
``robolib.book``       book helpers: claims register, notebook tables and Explore panels,
                       drawing labels
``robolib.study``      the studies by name: ``python -m robolib.study NAME -p key value``
=====================  =====================================================================

The cores keep their short names: ``from robolib import nonlinear`` (or ``multibody``,
``constraints``, ``friction``, ``contact``, ``clearance``, ``rotations``, ``params``,
``errors``) gives the module in :mod:`robolib.core`, and ``robolib.claims`` /
``robolib.notebook`` the modules in :mod:`robolib.book`.

>>> from robolib import nonlinear, core
>>> nonlinear is core.nonlinear
True
"""

from __future__ import annotations

from .core.errors import (
    ConvergenceError,
    ParameterError,
    ParameterFileError,
    RobolibError,
    SingularityError,
    UnreachableError,
)
from .core.params import DATA_DIR, load_yaml, resolve_data_path

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


import importlib
import importlib.abc
import importlib.util
import sys

#: Short names of modules that live in a subpackage: ``robolib.<short>`` is ``<target>``.
MOVED = {
    **{name: f"robolib.core.{name}" for name in ("errors", "params", "rotations", "constraints", "friction",
                                                 "multibody", "contact", "clearance", "nonlinear", "_kernels")},
    "claims": "robolib.book.claims",
    "notebook": "robolib.book.notebook",
}
#: The mechanism packages, imported on first use (``robolib.prp3`` without an import statement).
MECHANISMS = ("prp3", "redundant", "stewart", "gearshift")


class _ShortNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import robolib.nonlinear`` gives the module ``robolib.core.nonlinear`` itself (one module, two names)."""

    def find_spec(self, fullname, path=None, target=None):
        short = fullname.removeprefix(__name__ + ".")
        if short in MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(MOVED[spec.name.removeprefix(__name__ + ".")])
        self._specs[id(module)] = module.__spec__         # the import system overwrites it with the alias's
        return module

    def exec_module(self, module):
        """Nothing to run: the target module is already executed. Give it back its own ``__spec__``."""
        module.__spec__ = self._specs.pop(id(module), module.__spec__)

    def __init__(self):
        self._specs: dict = {}


if not any(isinstance(f, _ShortNames) for f in sys.meta_path):
    sys.meta_path.insert(0, _ShortNames())


def __getattr__(name):
    if name in MOVED or name in MECHANISMS or name in ("core", "book", "study"):
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
