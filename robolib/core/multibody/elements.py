"""The elements a planar mechanism is made of: bodies, joints, drivers and force elements (data).

* :class:`Body` -- mass and centroidal inertia;
* :class:`GroundPin`, :class:`Pin` -- revolute joints (2 rows each), :class:`AngleLock` (1 row),
  :class:`Driver` (1 row; its multiplier is the motor torque/force) with the drive functions
  :class:`Constant` and :class:`ConstantSpeed`;
* :class:`PointSpringDamper` -- a force element with its potential energy and dissipated power.

Each checks its fields when it is made (:mod:`._checks`); :class:`robolib.core.multibody.Mechanism`
assembles them.

>>> Body("bar", 1.0, 1.0 / 12).mass
1.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from robolib.core.checks import real
from robolib.core.errors import ParameterError
from robolib.core.multibody import _checks as chk

#: Name of the fixed ground frame in joint definitions.
GROUND = "ground"
_COORD = {"x": 0, "y": 1, "theta": 2}


# --------------------------------------------------------------------------- data
@dataclass(frozen=True)
class Body:
    """A rigid body: ``mass`` (kg) and centroidal ``inertia`` (kg m^2).

    >>> Body("link", 0.25, 0.25 * 0.12**2 / 12).inertia > 0
    True
    """

    name: str
    mass: float
    inertia: float

    def __post_init__(self):
        chk.text("name", self.name)
        for what, unit in (("mass", "kg"), ("inertia", "kg m^2")):
            v = getattr(self, what)
            ok = isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, (bool, np.bool_)) \
                and math.isfinite(v) and v > 0
            if not ok:
                raise ParameterError(f"body {self.name!r}: {what} must be positive and finite, got {v!r} ({unit})")


@dataclass(frozen=True)
class GroundPin:
    """Revolute joint of ``body`` to ground: point ``point`` (body frame, m) stays at ``ground`` (global, m)."""

    name: str
    body: str
    point: tuple
    ground: tuple

    def __post_init__(self):
        chk.text("name", self.name), chk.text("body", self.body)
        chk.real_array("point", self.point, shape=(2,)), chk.real_array("ground", self.ground, shape=(2,))


@dataclass(frozen=True)
class Pin:
    """Revolute joint: ``point_i`` of ``body_i`` coincides with ``point_j`` of ``body_j`` (body frames, m)."""

    name: str
    body_i: str
    point_i: tuple
    body_j: str
    point_j: tuple

    def __post_init__(self):
        chk.text("name", self.name), chk.text("body_i", self.body_i), chk.text("body_j", self.body_j)
        chk.real_array("point_i", self.point_i, shape=(2,)), chk.real_array("point_j", self.point_j, shape=(2,))


@dataclass(frozen=True)
class AngleLock:
    """``theta_j - theta_i - offset = 0`` (rad); ``body_i`` may be :data:`GROUND` (theta = 0)."""

    name: str
    body_i: str
    body_j: str
    offset: float = 0.0

    def __post_init__(self):
        chk.text("name", self.name), chk.text("body_i", self.body_i), chk.text("body_j", self.body_j)
        real("offset", self.offset, unit="rad")


@dataclass(frozen=True)
class Driver:
    """Prescribed motion ``q[body, coord] - f(t) = 0``.

    ``motion(t)`` returns ``(f, df/dt, d2f/dt2)`` (rad or m). ``coord`` is
    ``"theta"`` (a motor), ``"x"`` or ``"y"``; ``motor=False`` marks a row that
    is a guide (e.g. a slider held on a line), not an actuator.
    """

    name: str
    body: str
    motion: Callable[[float], tuple]
    coord: str = "theta"
    motor: bool = True

    def __post_init__(self):
        chk.text("name", self.name), chk.text("body", self.body)
        if not callable(self.motion):
            raise ParameterError(f"driver {self.name!r}: motion must be callable t -> (f, df, ddf), got "
                                 f"{self.motion!r:.60}")
        if not isinstance(self.coord, str) or self.coord not in _COORD:
            raise ParameterError(f"driver {self.name!r}: coord must be one of {list(_COORD)}, got {self.coord!r}")
        chk.flag("motor", self.motor)


class Constant:
    """A constant motion ``f(t) = value`` for :class:`Driver` (picklable).

    >>> Constant(0.3)(1.0)
    (0.3, 0.0, 0.0)
    """

    def __init__(self, value: float = 0.0):
        self.value = real("value", value)

    def __call__(self, t):
        return (self.value, 0.0, 0.0)

    def kernel_row(self):
        """Compiled form for the step loop: kind 0, value."""
        return (0.0, self.value)


class ConstantSpeed:
    """``f(t) = phi0 + omega t`` (rad, rad/s), picklable.

    >>> ConstantSpeed(0.0, 2.0)(0.5)
    (1.0, 2.0, 0.0)
    """

    def __init__(self, phi0: float, omega: float):
        self.phi0, self.omega = real("phi0", phi0, unit="rad"), real("omega", omega, unit="rad/s")

    def __call__(self, t):
        return (self.phi0 + self.omega * t, self.omega, 0.0)

    def kernel_row(self):
        """Compiled form for the step loop: kind 1, phi0, omega."""
        return (1.0, self.phi0, self.omega)


@dataclass(frozen=True)
class PointSpringDamper:
    """Isotropic planar spring--damper pulling ``point`` (body frame) of ``body`` to ``anchor`` (global).

    Force ``F = -k (p - anchor) - c dp/dt`` (N) with ``k`` in N/m, ``c`` in N s/m;
    potential ``k |p - anchor|^2 / 2``; dissipated power ``c |dp/dt|^2``.
    """

    name: str
    body: str
    point: tuple
    anchor: tuple
    stiffness: float
    damping: float = 0.0

    def __post_init__(self):
        chk.text("name", self.name), chk.text("body", self.body)
        chk.real_array("point", self.point, shape=(2,)), chk.real_array("anchor", self.anchor, shape=(2,))
        real("stiffness", self.stiffness, low=0.0, unit="N/m")
        real("damping", self.damping, low=0.0, unit="N s/m")
