"""robolib: verified kernels and studies for parallel-robot kinematics and dynamics.

Three layers; each imports only the layers below it (the contract in ``pyproject.toml``,
checked by the test suite):

=========================  ==================================================================
**chapters**
``robolib.study``          the studies by name: ``python -m robolib.study NAME -p key value``
``robolib.studies``        one package per chapter, named as its notebook (``clearance_dynamics``,
                           ``prp3_roundtrip``, ...): settings, experiments, claims, figures, exercises
``robolib.book``           the book's helpers: claims register, study result, tables, Explore panels
**library**
``robolib.prp3``           3-PRP parallel robot (seed 003): kinematics, workspace sampling, drawing
``robolib.redundant``      2-DOF redundantly actuated planar robot (seed 000): model, dynamics,
                           simulation with friction, sympy derivation, drawing
``robolib.stewart``        6-UPS Gough-Stewart platform (seed 004): kinematics, Newton-Euler and
                           virtual-work dynamics, ID-PID control, drawing
``robolib.gearshift``      gear-shift manipulator with joint clearance (seed 001): model, fast
                           formulation, runs, periodic orbits, stored runs, drawing
**cores**
``robolib.core``           errors, parameter files and specs, rotations, constraints, friction,
                           multibody, contact, clearance joints, nonlinear tools, sweeps, drawing
=========================  ==================================================================

The mechanism packages and the cores are attributes of the package:
``from robolib import prp3, nonlinear`` gives :mod:`robolib.prp3` and :mod:`robolib.core.nonlinear`
(the cores keep their short names: ``nonlinear``, ``multibody``, ``constraints``, ``friction``,
``contact``, ``clearance``, ``rotations``, ``params``, ``errors``).

>>> from robolib import nonlinear, core
>>> nonlinear is core.nonlinear
True
"""

from __future__ import annotations

__version__ = "0.1.0"

from robolib import core, gearshift, prp3, redundant, stewart  # noqa: E402
from robolib.core import clearance, constraints, contact, errors, friction, multibody, nonlinear, params, rotations  # noqa: E402
from robolib.core.errors import *  # noqa: E402
from robolib.core.params import DATA_DIR, load_yaml, resolve_data_path  # noqa: E402

__all__ = [*errors.__all__, "DATA_DIR", "load_yaml", "resolve_data_path", "core", "prp3", "redundant", "stewart", "gearshift",
           "clearance", "constraints", "contact", "errors", "friction", "multibody", "nonlinear", "params", "rotations"]
