"""2-DOF redundantly actuated planar parallel robot with joint friction (seed 000).

* :mod:`.model` -- the robot's parameters, subsystem models, kinematics and the two constraint layers;
* :mod:`.dynamics` -- forward dynamics by five routes, inverse kinematics, reference motion,
  inverse dynamics with the redundancy resolved;
* :mod:`.simulation` -- forward simulation with friction and the friction studies' library functions;
* :mod:`.symbolic` -- the sympy derivation of the subsystem equations;
* :mod:`.drawing` -- drawings of the robot and its labelled mechanism figure.

>>> from robolib import redundant
>>> robot = redundant.load("redundant/default.yaml")
>>> robot.mu
0.1
"""

from __future__ import annotations

from robolib.redundant import drawing, symbolic  # noqa: E402,F401
from robolib.redundant.dynamics import (  # noqa: F401
    Dynamics,
    InverseDynamics,
    TaskTrajectory,
    actuation_jacobian,
    forward_dynamics,
    initial_state,
    inverse_dynamics,
    inverse_kinematics,
    joint_rates,
    joint_trajectory,
    minimum_norm_torques,
    preload_direction,
    preload_reactions,
    reference_circle,
    reference_motion,
    solve_dynamics,
    task_inverse_dynamics,
)
from robolib.redundant.model import (  # noqa: F401
    ASSEMBLY_TOL,
    BAUMGARTE,
    CHAIN_SINGULAR_TOL,
    CIRCLE_PERIOD,
    CIRCLE_RADIUS,
    COULOMB_MAX_ITER,
    COULOMB_TOL,
    DEFAULT_ELBOWS,
    DRIFT_BOUND,
    DT,
    FRICTION_MODELS,
    METHODS,
    SINGULAR_TOL,
    Robot,
    base_constraints,
    bias_forces,
    closure_constraints,
    constraint_residual,
    end_effector,
    kinetic_energy,
    load,
    mass_matrix,
    subsystem_coriolis_matrix,
    subsystem_mass_matrix,
    tips,
)
from robolib.redundant.simulation import (  # noqa: F401
    COMPARED_LAWS,
    SWEEP_PARAMETERS,
    Simulation,
    StribeckCalibration,
    TorqueSchedule,
    calibrate_stribeck,
    decoupling_error,
    decoupling_map,
    friction_comparison,
    friction_power,
    friction_sweep,
    operating_point,
    reference_torque,
    rms,
    simulate,
)

__all__ = ["friction_comparison", "actuation_jacobian", "preload_direction", "preload_reactions", "minimum_norm_torques", "rms", "StribeckCalibration", "calibrate_stribeck", "COMPARED_LAWS", "operating_point", "SWEEP_PARAMETERS", "friction_sweep", "decoupling_error", "decoupling_map", "FRICTION_MODELS", "METHODS", "DEFAULT_ELBOWS", "CIRCLE_RADIUS", "CIRCLE_PERIOD", "BAUMGARTE", "DT", "DRIFT_BOUND", "Robot", "load", "subsystem_mass_matrix", "subsystem_coriolis_matrix", "mass_matrix", "bias_forces", "kinetic_energy", "tips", "end_effector", "closure_constraints", "base_constraints", "constraint_residual", "Dynamics", "solve_dynamics", "forward_dynamics", "inverse_kinematics", "joint_rates", "TaskTrajectory", "reference_circle", "joint_trajectory", "reference_motion", "initial_state", "InverseDynamics", "inverse_dynamics", "task_inverse_dynamics", "TorqueSchedule", "reference_torque", "Simulation", "simulate", "friction_power"]
