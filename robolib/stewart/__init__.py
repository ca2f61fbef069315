"""6-UPS Gough-Stewart platform: U-joint Newton-Euler vs virtual work (the Models page of the book).

Public API (``from robolib import stewart``):

* model: :func:`load`, :func:`from_dict`, :class:`StewartModel`, :func:`point_mass_legs`
* kinematics: :func:`inverse_kinematics`, :func:`forward_kinematics`, :func:`jacobian`,
  :func:`leg_geometry`, :func:`leg_frames`, :func:`joint_points`, :func:`leg_motion`, :func:`pose_rates`,
  :func:`check_limits` (stroke and joint-angle limits: ``UnreachableError`` or a mask)
* dynamics: :func:`inverse_dynamics`, :func:`inverse_dynamics_numpy`, :func:`dynamics_terms`, :func:`forward_dynamics`,
  :func:`kinetic_energy`, :func:`potential_energy`, :func:`dissipation`
* control: :class:`Trajectory` (sines; ``Trajectory.from_hz``), :class:`PoseFunction` (any function of time), :func:`trajectory_from_model`, :func:`joint_references`,
  :func:`simulate`, :class:`SimResult`, :func:`tracking_metrics`
* both derivations in plain numpy, for timing: :mod:`robolib.stewart.aswritten`


Its chapter is :mod:`robolib.studies.stewart_timing`.

>>> from robolib import stewart
>>> m = stewart.load("stewart/tsai2000.yaml")
>>> stewart.inverse_dynamics(m, m.home_pose, np.zeros(6), np.zeros(6)).shape
(6,)
"""

import numpy as np  # noqa: F401  (doctest namespace)

from robolib.stewart import aswritten, dynamics
from robolib.stewart.control import (
    PoseFunction,
    SimResult,
    Trajectory,
    joint_references,
    sampled_loop_radius,
    simulate,
    tracking_metrics,
    trajectory_from_model,
)
from robolib.stewart.dynamics import *
from robolib.stewart.kinematics import (
    LIMIT_CODES,
    LegGeometry,
    LegMotion,
    check_limits,
    forward_kinematics,
    inverse_kinematics,
    jacobian,
    joint_points,
    leg_frames,
    leg_geometry,
    leg_motion,
    limit_codes,
    limit_interval,
    pose_rates,
)
from robolib.stewart.model import Body, StewartModel, from_dict, load, point_mass_legs

__all__ = ["Body", "StewartModel", "load", "from_dict", "point_mass_legs", "LIMIT_CODES", "LegGeometry", "LegMotion",
           "leg_geometry", "leg_frames", "joint_points", "inverse_kinematics", "forward_kinematics", "jacobian", "leg_motion",
           "pose_rates", "check_limits", "limit_codes", "limit_interval", *dynamics.__all__, "Trajectory", "PoseFunction", "sampled_loop_radius", "trajectory_from_model",
           "joint_references", "simulate", "SimResult", "tracking_metrics", "aswritten"]
