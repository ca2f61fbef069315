"""Simulations of the redundant robot (robolib.redundant.simulation)."""

import dataclasses

import numpy as np
import pytest
from fuzzing import names

from robolib import (
    ParameterError,
)
from robolib import friction as fr
from robolib import redundant as R

# ==== simulation: energy, friction, drift and calibration ===========================================================

ROBOT = R.load("redundant/default.yaml")


MODELS = list(R.FRICTION_MODELS)


# --------------------------------------------------------------------------- simulation and energy
@pytest.mark.parametrize("integrator", ["rk4", "adaptive"])
def test_energy_conserved_without_friction(integrator):
    q0, dq0 = R.initial_state(ROBOT, ROBOT.centroid + [0.02, -0.01], [0.15, 0.1])
    sim = R.simulate(ROBOT, q0, dq0, np.zeros(3), 3.0, integrator=integrator, rtol=1e-10, atol=1e-12)
    T = sim.kinetic_energy
    assert T[0] > 1e-3
    err = np.abs(T - T[0]).max() / T[0]
    assert err < {"rk4": 1e-7, "adaptive": 1e-8}[integrator]  # RK4 with the default 4 ms step: ~3e-8
    if integrator == "rk4":  # fourth order: halving the step divides the error by ~16
        half = R.simulate(ROBOT, q0, dq0, np.zeros(3), 3.0, dt=R.DT / 2, record_every=2)
        err2 = np.abs(half.kinetic_energy - T[0]).max() / T[0]
        assert 8 < err / err2 < 32
    assert np.all(sim.dissipated_energy == 0) and np.all(sim.motor_work == 0)
    # the motion is not trivial: the end effector travels
    assert np.linalg.norm(sim.end_effector[-1] - sim.end_effector[0]) > 0.05


@pytest.mark.parametrize("friction", MODELS[1:])
def test_friction_dissipates(friction):
    q, dq, _ = R.reference_motion(ROBOT, [0.0])
    sched = R.reference_torque(ROBOT, samples=100, preload=0.5)
    sim = R.simulate(ROBOT, q[0], dq[0], sched, 2.0, friction=friction)
    power = R.friction_power(sim)
    assert np.all(power <= 0)
    assert np.all(np.diff(sim.dissipated_energy) >= 0) and sim.dissipated_energy[-1] > 0
    # energy balance: T - T0 = motor work - dissipated energy (up to the RK4 error)
    bal = sim.kinetic_energy - sim.kinetic_energy[0] - sim.motor_work + sim.dissipated_energy
    assert np.abs(bal).max() < 1e-6 * max(1.0, sim.motor_work.max())
    # dissipated energy agrees with the trapezoidal integral of the recorded power
    trap = -np.concatenate([[0], np.cumsum(0.5 * (power[1:] + power[:-1]) * np.diff(sim.t))])
    assert np.abs(trap - sim.dissipated_energy).max() < 1e-3 * sim.dissipated_energy[-1] + 1e-9


@pytest.mark.slow
def test_drift_bound_and_tracking_over_10s():
    q, dq, _ = R.reference_motion(ROBOT, [0.0])
    sched = R.reference_torque(ROBOT)
    sim = R.simulate(ROBOT, q[0], dq[0], sched, 10.0, record_every=5)
    assert sim.drift.max() < R.DRIFT_BOUND
    # under the friction-free inverse-dynamics torques the robot follows the circle
    assert np.abs(sim.end_effector - R.reference_circle(ROBOT, sim.t).p).max() < 1e-8
    # without Baumgarte stabilisation the drift is larger
    raw = R.simulate(ROBOT, q[0], dq[0], sched, 10.0, record_every=50, baumgarte=(0.0, 0.0))
    assert raw.drift.max() > 10 * sim.drift.max()


@pytest.mark.slow
@pytest.mark.parametrize("friction", ["stribeck", "coulomb_consistent"])
def test_smooth_sign_eps_to_zero_convergence(friction):
    """Halving eps roughly halves (or better) the change of the simulated end point: the results converge."""
    q, dq, _ = R.reference_motion(ROBOT, [0.0])
    sched = R.reference_torque(ROBOT, samples=200)
    ends = []
    for eps in (0.04, 0.02, 0.01, 0.005):
        robot = dataclasses.replace(ROBOT, smooth_eps=eps)
        sim = R.simulate(robot, q[0], dq[0], sched, 1.0, friction=friction, integrator="adaptive",
                         rtol=1e-9, atol=1e-12, dt=0.5)
        ends.append(sim.end_effector[-1])
    d = np.linalg.norm(np.diff(ends, axis=0), axis=1)
    assert np.all(d[1:] / d[:-1] < 0.6), d
    # geometric series: the limit is within d[-1] * r / (1 - r) of the smallest-eps result
    assert d[-1] < 1e-3


def test_simulate_bad_inputs():
    q0, dq0 = R.initial_state(ROBOT, ROBOT.centroid)
    with pytest.raises(ParameterError, match="not assembled"):
        R.simulate(ROBOT, q0 + 1e-3, dq0, np.zeros(3), 0.1)
    with pytest.raises(ParameterError, match="t_end"):
        R.simulate(ROBOT, q0, dq0, np.zeros(3), -1.0)
    with pytest.raises(ParameterError, match="integrator"):
        R.simulate(ROBOT, q0, dq0, np.zeros(3), 0.1, integrator="euler")
    with pytest.raises(ParameterError, match="torque"):
        R.simulate(ROBOT, q0, dq0, np.zeros(2), 0.1)


# --------------------------------------------------------------------------- friction studies
def _stribeck_rms(robot, Tc, q, dq, ddq, ratio=1.5, ws=0.1, bv=0.0):
    rb = dataclasses.replace(robot, coulomb_torque=Tc, static_torque=ratio * Tc, stribeck_velocity=ws, viscous=bv,
                             calibrated_for=None)
    return R.rms(R.inverse_dynamics(rb, q, dq, ddq, "stribeck").friction_torque)


@pytest.mark.parametrize("change, circle, bv", [
    ({}, {}, 0.0),
    ({"end_effector_mass": 0.8}, {}, 0.0),       # the robot changes
    ({}, {"period": 1.0, "radius": 0.03}, 0.0),  # the motion changes
    ({"mu": 0.3}, {}, 2e-4),                     # with a viscous term
])
def test_calibration_equals_root_of_the_rms_equation(change, circle, bv):
    """calibrate_stribeck (closed-form quadratic) == a bracketing root search on full inverse dynamics."""
    from scipy.optimize import brentq

    robot = dataclasses.replace(ROBOT, **change)
    cal = R.calibrate_stribeck(robot, samples=300, viscous=bv, **circle)
    t = np.linspace(0, circle.get("period", R.CIRCLE_PERIOD), 300, endpoint=False)
    q, dq, ddq = R.reference_motion(robot, t, **circle)
    target = R.rms(R.inverse_dynamics(robot, q, dq, ddq, "coulomb_consistent").friction_torque)
    root = brentq(lambda Tc: _stribeck_rms(robot, Tc, q, dq, ddq, bv=bv) - target, 0.0, 1.0, xtol=1e-16, rtol=1e-13)
    assert np.isclose(cal.coulomb_torque, root, rtol=1e-9)
    assert np.isclose(cal.coulomb_rms, target, rtol=1e-12) and np.isclose(cal.stribeck_rms, target, rtol=1e-9)
    assert cal.static_torque == pytest.approx(1.5 * cal.coulomb_torque) and cal.viscous == bv
    cal_robot = cal.apply(robot)
    assert cal_robot.coulomb_torque == cal.coulomb_torque and cal_robot.mu == robot.mu
    if change or circle:  # a different robot or motion needs a different level
        assert not np.isclose(cal.coulomb_torque, R.calibrate_stribeck(ROBOT, samples=300).coulomb_torque, rtol=0.02)


def test_default_file_is_calibrated_and_geared_set_is_not():
    cal = R.calibrate_stribeck(ROBOT)
    assert np.isclose(ROBOT.coulomb_torque, cal.coulomb_torque, rtol=2e-3)  # rounded to 3 digits in the file
    assert ROBOT.static_torque == pytest.approx(1.5 * ROBOT.coulomb_torque, rel=2e-3)
    assert ROBOT.stribeck_velocity == 0.1 and ROBOT.viscous == 0.0
    t = np.linspace(0, R.CIRCLE_PERIOD, 400, endpoint=False)
    q, dq, ddq = R.reference_motion(ROBOT, t)
    rms = {m: R.rms(R.inverse_dynamics(ROBOT, q, dq, ddq, m).friction_torque) for m in ("coulomb_consistent", "stribeck")}
    assert abs(rms["stribeck"] / rms["coulomb_consistent"] - 1) < 0.05  # issue 12, "Done when"
    geared = R.load("redundant/geared.yaml")
    assert (geared.coulomb_torque, geared.static_torque, geared.viscous) == (0.10, 0.15, 0.01)
    for f in ("mu", "journal_radius", "end_effector_mass", "link_length", "smooth_eps"):
        assert getattr(geared, f) == getattr(ROBOT, f)


def test_stribeck_level_for_rms_bad_input():
    with pytest.raises(ParameterError, match=names("target_rms", "viscous term")):
        fr.stribeck_level_for_rms([1.0, -1.0], 0.001, viscous=0.01)
    with pytest.raises(ParameterError, match="static_ratio"):
        fr.stribeck_level_for_rms([1.0], 0.001, static_ratio=0.5)
    with pytest.raises(ParameterError, match="zero"):
        fr.stribeck_level_for_rms([0.0, 0.0], 0.001)
    with pytest.raises(ParameterError, match="samples"):
        R.calibrate_stribeck(ROBOT, samples=3)


def test_operating_point_energy_equals_simulated_dissipation():
    """Friction energy per period from inverse dynamics == the dissipation integrated by simulate
    under each law's own compensating torques (the robot then follows the circle)."""
    pt = R.operating_point(ROBOT, samples=400, simulate_motion=False)
    q, dq, _ = R.reference_motion(ROBOT, [0.0])
    for law in R.COMPARED_LAWS:
        sched = R.reference_torque(ROBOT, law, 0.0, 400)
        sim = R.simulate(ROBOT, q[0], dq[0], sched, R.CIRCLE_PERIOD, friction=law)
        assert np.isclose(sim.dissipated_energy[-1], pt[law]["energy"], rtol=2e-3), law
        assert pt[law]["energy"] > 0 and pt[law]["friction_max"] >= pt[law]["friction_rms"] > 0
    # at equal RMS level the two laws' RMS torques agree (the calibration)
    assert abs(pt["stribeck"]["friction_rms"] / pt["coulomb_consistent"]["friction_rms"] - 1) < 0.05


def test_friction_sweep_physics_and_bad_input():
    sw = R.friction_sweep(ROBOT, "end_effector_mass", [0.0, 0.5, 1.0], samples=60, simulate_motion=False)
    c, s = sw["coulomb_consistent"]["friction_rms"], sw["stribeck"]["friction_rms"]
    assert np.all(np.diff(c) > 0)  # heavier payload: larger bearing loads, more Coulomb friction
    assert np.allclose(s, s[0], rtol=1e-12)  # the Stribeck torque depends on the rates only
    # faster circle: inertial bearing loads grow like (2 pi / period)^2, the Stribeck level hardly changes
    sp_ = R.friction_sweep(ROBOT, "period", [1.0, 2.0], samples=100, simulate_motion=False)
    ratio = sp_["coulomb_consistent"]["friction_rms"][0] / sp_["coulomb_consistent"]["friction_rms"][1]
    assert 3.0 < ratio < 5.0
    # joblib route gives the same numbers
    par = R.friction_sweep(ROBOT, "preload", [0.0, 0.5], samples=40, simulate_motion=False, n_jobs=2)
    seq = R.friction_sweep(ROBOT, "preload", [0.0, 0.5], samples=40, simulate_motion=False)
    assert np.allclose(par["coulomb_consistent"]["friction_rms"], seq["coulomb_consistent"]["friction_rms"])
    with pytest.raises(ParameterError, match=names("parameter", "one of")):
        R.friction_sweep(ROBOT, "colour", [1.0])
    with pytest.raises(ParameterError, match="laws"):
        R.operating_point(ROBOT, laws=("viscous",))


def test_decoupling_error_bound_and_growth():
    """The decoupled model's error stays below mu R ||dF/dtau|| and grows linearly with mu R."""
    mu_r = np.array([5e-4, 1e-3, 2e-3, 8e-3])
    err, est = R.decoupling_map(ROBOT, mu_r, "preload", [-0.5, 0.0, 0.5], samples=80)
    assert np.all(err <= est * (1 + 1e-9)) and np.all(err > 0)
    slope = np.diff(np.log(err[:, 1])) / np.diff(np.log(mu_r))
    assert np.all(np.abs(slope - 1) < 0.1), slope
    # estimate: mu R times the largest passive-link force per unit preload (independent of speed and preload)
    assert np.allclose(est / mu_r[:, None], est[0, 0] / mu_r[0])
    with pytest.raises(ParameterError, match="parameter"):
        R.decoupling_map(ROBOT, [1e-3], "mass", [1.0])


def test_a_coulomb_failure_message_agrees_with_its_own_contraction_factor():
    """Below the limit, the message blames the state (it diverged first), not the friction law."""
    from robolib.core.errors import ConvergenceError
    from robolib.redundant.simulation import _failure_reason

    robot = R.load()
    q, dq, _ = R.reference_motion(robot, [0.0])
    y = np.r_[q[0], dq[0] * 1e6]
    why = _failure_reason(robot, y, "coulomb_consistent", ConvergenceError("consistent Coulomb friction did not converge"))
    assert "below 0.759" in why and "not below" not in why and "state itself went wrong" in why


def test_the_stribeck_law_warns_after_mu_changes_until_the_level_is_calibrated_again():
    from robolib import StaleCalibrationWarning

    robot = R.load()
    assert robot.calibrated_for == pytest.approx(robot.mu * robot.journal_radius)
    q, dq, ddq = R.reference_motion(robot, [0.1])
    changed = dataclasses.replace(robot, mu=0.05)
    with pytest.warns(StaleCalibrationWarning, match=r"mu R(?s:.*)0\.001(?s:.*)0\.0005"):
        R.inverse_dynamics(changed, q, dq, ddq, "stribeck")
    recalibrated = R.calibrate_stribeck(changed, samples=100).apply(changed)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        R.inverse_dynamics(recalibrated, q, dq, ddq, "stribeck")            # calibrated for its own mu R
        R.inverse_dynamics(changed, q, dq, ddq, "coulomb_consistent")       # the Coulomb laws take mu directly
        R.inverse_dynamics(R.load("redundant/geared.yaml"), q, dq, ddq, "stribeck")  # a level set by hand
        R.inverse_dynamics(dataclasses.replace(changed, calibrated_for=None), q, dq, ddq, "stribeck")
    assert recalibrated.calibrated_for == pytest.approx(0.05 * robot.journal_radius)


# ---- a preload held open-loop: its growth, and the range a simulation can follow ---------------------------------
def test_the_followable_preload_range_predicts_where_the_open_loop_simulations_stop():
    """followable_preload comes from a linearisation (preload_growth); the simulations of operating_point check it:
    inside the range on the negative side the Stribeck run follows the circle, beyond either end both laws stop."""
    lo, hi = R.followable_preload(ROBOT, R.CIRCLE_PERIOD)
    assert -1e5 < lo < -1e3 and 1.0 < hi < 100.0                   # measured: -2.9e4 and 17 N m
    for p, follows in ((0.8 * lo, True), (1.3 * lo, False), (1.3 * hi, False)):
        pt = R.operating_point(ROBOT, preload=p, samples=40, on_failure="stop")
        assert (pt["stribeck"]["stopped"] == "") is follows, (p, pt["stribeck"]["stopped"])
        if not follows:
            assert pt["coulomb_consistent"]["stopped"], p


def test_a_preload_grows_deviations_like_the_linearised_rate():
    """At preload p the deviation from the circle under compensated Stribeck friction grows like exp(sqrt(k p) t) with
    preload_growth's largest eigenvalue k; without the preload it does not grow so."""
    k = R.preload_growth(ROBOT, R.reference_circle(ROBOT, np.linspace(0, 2, 8, endpoint=False)).p)
    assert np.all(np.isreal(k)) and k.min() > 0                      # both modes grow for p > 0 on this circle
    q0, dq0 = R.initial_state(ROBOT, ROBOT.centroid + [R.CIRCLE_RADIUS, 0.0], [0.0, 2 * np.pi * R.CIRCLE_RADIUS / 2])
    rates = {}
    for p in (3.0, 0.0):
        sim = R.simulate(ROBOT, q0, dq0, R.reference_torque(ROBOT, "stribeck", p, 200), 1.0, friction="stribeck")
        dev = np.linalg.norm(sim.end_effector - R.reference_circle(ROBOT, sim.t).p, axis=-1)
        late = sim.t > 0.5
        rates[p] = np.polyfit(sim.t[late], np.log(dev[late]), 1)[0]
    assert rates[3.0] == pytest.approx(np.sqrt(k.max() * 3.0), rel=0.15), (rates, np.sqrt(k.max() * 3.0))
    assert rates[0.0] < 0.4 * rates[3.0]
