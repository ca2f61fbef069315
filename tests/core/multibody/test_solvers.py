"""The solvers of the multibody core (robolib.core.multibody.solvers): assembly, kinematic state, inverse dynamics."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fuzzing import names

from robolib import ConvergenceError, ParameterError, SingularityError
from robolib import gearshift as G
from robolib import multibody as mb
from robolib.core.multibody import (
    Body,
    Constant,
    ConstantSpeed,
    Driver,
    GroundPin,
    Mechanism,
    PointSpringDamper,
)
from robolib.core.multibody import solvers as MS
from robolib.core.multibody.mechanism import SINGULAR_TOL

# ==== the Newton route, multiplier torques and a mechanism that does not assemble ===================================

GS = G.build_gearshift()


SC = G.build_slider_crank()


@pytest.mark.parametrize("model, t", [(GS, 0.21), (SC, 2.3e-3)], ids=["gearshift", "slider-crank"])
def test_newton_route_equals_closed_form(model, t):
    q_cf, qd_cf, qdd_cf = model.ideal_state(t)
    rng = np.random.default_rng(3)
    q, qd, qdd = mb.kinematic_state(model.mech, q_cf + rng.normal(scale=1e-3, size=q_cf.size), t)
    np.testing.assert_allclose(q, q_cf, atol=1e-12)
    np.testing.assert_allclose(qd, qd_cf, atol=1e-10 * max(1, np.abs(qd_cf).max()))
    np.testing.assert_allclose(qdd, qdd_cf, atol=1e-9 * max(1, np.abs(qdd_cf).max()))


def test_multiplier_torques_equal_virtual_power_torques():
    im = G.ideal_motion(GS, np.linspace(0.0, 0.5, 11))
    for k, t in enumerate(im["t"]):
        vp = mb.virtual_power_torques(GS.mech, im["q"][k], im["qd"][k], im["qdd"][k], t)
        for name, tau in vp.items():
            assert im["torques"][name][k] == pytest.approx(tau, rel=1e-9, abs=1e-12)
    # the augmented (DAE) solve gives the same multipliers as inverse dynamics on the ideal motion
    q, qd, qdd = GS.ideal_state(0.17)
    qdd_aug, lam = GS.mech.accelerations(q, qd, 0.17)
    np.testing.assert_allclose(qdd_aug, qdd, atol=1e-9 * np.abs(qdd).max())
    np.testing.assert_allclose(lam, mb.inverse_dynamics(GS.mech, q, qd, qdd, 0.17), atol=1e-9 * np.abs(lam).max())


# ----------------------------------------------------------------------------- bad input
def _bar(name="bar"):
    return mb.Body(name, 1.0, 0.1)


def test_mechanism_that_does_not_assemble():
    # four-bar whose coupler (0.1) cannot bridge ground pins 1 m apart with 0.2 m cranks
    bodies = [_bar("a"), _bar("b"), _bar("c")]
    joints = [mb.GroundPin("A", "a", (-0.1, 0), (0, 0)), mb.Pin("B", "a", (0.1, 0), "b", (-0.05, 0)),
              mb.Pin("C", "b", (0.05, 0), "c", (-0.1, 0)), mb.GroundPin("D", "c", (0.1, 0), (1.0, 0)),
              mb.Driver("drive", "a", mb.Constant(0.3))]
    mech = mb.Mechanism(bodies, joints, name="four-bar")
    with pytest.raises(ConvergenceError, match=names("four-bar", "does not assemble")):
        mb.assemble(mech, np.zeros(9))
    with pytest.raises(ParameterError, match="q_guess"):
        mb.assemble(mech, np.zeros(5))



# ==== inverse dynamics and virtual power by hand; singular Jacobians ================================================

# ----------------------------------------------------------------------------- the integrator's entry points


def driven_crank():
    """A crank on a ground pin, driven at constant speed, its tip on a spring: a smooth, driven motion."""
    return Mechanism([Body("crank", 0.4, 2e-3)],
                     [GroundPin("O", "crank", (-0.05, 0.01), (0.0, 0.0)), Driver("motor", "crank", ConstantSpeed(0.2, 3.0))],
                     [PointSpringDamper("s", "crank", (0.05, 0.01), (0.2, 0.1), stiffness=50.0, damping=0.3)])


# ----------------------------------------------------------------------------- solvers


def crank_by_hand(t):
    """Closed-form state of the driven crank and its motor torque: the moment of the tip force about the pin."""
    th, w = 0.2 + 3.0 * t, 3.0
    c, s = math.cos(th), math.sin(th)
    rot = np.array([[c, -s], [s, c]])
    a = rot @ np.array([-0.05, 0.01])                 # pin point relative to the centre of mass
    r = -a
    rd = -w * np.array([-a[1], a[0]])
    rdd = w * w * a                                   # centripetal, towards the pin
    tip = rot @ np.array([0.05, 0.01])
    P = r + tip
    vP = rd + w * np.array([-tip[1], tip[0]])
    F = -50.0 * (P - np.array([0.2, 0.1])) - 0.3 * vP
    # torque about the pin (fixed point): tau + (P - 0) x F = I_O theta'' = 0
    tau = -(P[0] * F[1] - P[1] * F[0])
    return np.array([*r, th]), np.array([*rd, w]), np.array([*rdd, 0.0]), tau


@pytest.mark.parametrize("t", [0.0, 0.37, 1.2])
def test_kinematic_state_inverse_dynamics_and_virtual_power_by_hand(t):
    m = driven_crank()
    q_ref, qd_ref, qdd_ref, tau = crank_by_hand(t)
    q, qd, qdd = MS.kinematic_state(m, q_ref + 0.01, t)
    np.testing.assert_allclose(q, q_ref, atol=1e-12)
    np.testing.assert_allclose(qd, qd_ref, atol=1e-12)
    np.testing.assert_allclose(qdd, qdd_ref, atol=1e-10)
    lam = MS.inverse_dynamics(m, q, qd, qdd, t)
    assert MS.driving_torques(m, lam)["motor"] == pytest.approx(tau, rel=1e-10)
    assert MS.virtual_power_torques(m, q, qd, qdd, t)["motor"] == pytest.approx(tau, rel=1e-10)
    assert abs(tau) > 0.05


def test_virtual_power_of_a_free_body_with_one_motor_equals_the_multiplier():
    """A non-square Jacobian (1 row, 3 coordinates): the least-norm virtual velocity is the motor's own."""
    m = Mechanism([Body("a", 1.3, 0.2)], [Driver("d", "a", ConstantSpeed(0.1, 2.0))],
                  [PointSpringDamper("s", "a", (0.1, 0.05), (0.3, -0.2), stiffness=20.0, damping=0.4)])
    q, qd = np.array([0.05, -0.02, 0.1]), np.array([0.3, 0.1, 2.0])
    qdd, lam = m.accelerations(q, qd, 0.0, alpha=0.0, beta=0.0)
    assert MS.virtual_power_torques(m, q, qd, qdd, 0.0)["d"] == pytest.approx(-lam[0], rel=1e-12)
    g = m.applied_forces(q, qd)
    assert -lam[0] == pytest.approx(0.2 * qdd[2] - g[2], rel=1e-12)


def test_a_singular_square_jacobian_and_a_mechanism_without_constraints():
    m = Mechanism([Body("a", 1.0, 0.1)], [Driver("x1", "a", Constant(0.0), coord="x", motor=False),
                                          Driver("x2", "a", Constant(0.0), coord="x", motor=False),
                                          Driver("th", "a", Constant(0.3))])
    with pytest.raises(SingularityError, match=names("constraint Jacobian", "singular")):
        MS.kinematic_state(m, [0.1, 0.0, 0.2], 0.0)
    free = Mechanism([Body("a", 1.0, 0.1)], [])
    np.testing.assert_array_equal(MS.assemble(free, [0.1, 0.2, 0.3]), [0.1, 0.2, 0.3])
    # a guess already assembled is returned as it is (no Newton step)
    crank = driven_crank()
    q_ref = crank_by_hand(0.0)[0]
    q_ok = MS.assemble(crank, q_ref + 1e-3)
    assert MS.assemble(crank, q_ok) is not q_ok and np.array_equal(MS.assemble(crank, q_ok), q_ok)
    with pytest.raises(ParameterError, match="q_guess"):
        MS.assemble(crank, [0.0, 0.0])



# ==== assembly, kinematic state and virtual power at their tolerances ===============================================
#
# Tests that kill the surviving mutants of robolib/core/multibody/solvers.py (``make mutate``).
#
# Each value is checked against an answer that does not come from the solvers' code:
#
# * ``assemble`` and ``kinematic_state`` on a rod pinned at one end (``x = L/2 cos theta``, ...) driven by a
#   motion with a nonzero acceleration: position, velocity and acceleration in closed form; one Newton step
#   from a guess is also a closed form (the driver row is linear, so ``theta_1 = theta_0`` and the pin rows
#   keep a second-order rest ``L/2 (cos g - d sin g - cos theta)``), which places ``assemble``'s final
#   acceptance band ``max|H| < 100 tol`` after ``max_iter`` steps exactly; a nearly singular start
#   (``sin theta ~ 1e-9`` with an unreachable x driver) makes a Newton step larger than 1e6 and the
#   solver must give up with a ConvergenceError;
# * ``_solve_square``'s singularity test on ``diag(1, e)``, whose reciprocal condition number is ``e``;
# * the motor torque of the rod three ways: by hand (``I_O theta'' - (P x F)`` about the fixed pin, with
#   the spring force ``F`` at the tip ``P``), from the multipliers (``inverse_dynamics`` +
#   ``driving_torques``) and by virtual power (``virtual_power_torques``), also with a second (guide) driver;
# * ``energy_terms`` against ``m v^2/2 + I w^2/2`` and ``k |P - anchor|^2 / 2`` of a batch of states.

L, MASS, K_SPRING, DAMPING = 0.8, 1.5, 30.0, 0.4


INERTIA = MASS * L ** 2 / 12


I_PIN = INERTIA + MASS * (L / 2) ** 2           # about the pin at the rod's end


ANCHOR = np.array([0.3, -1.0])


EXACT = 1e-12           # closed forms that hold to round-off


TORQUE_RTOL = 1e-10     # three routes to the same torque


class Harmonic:
    """``theta(t) = a + b sin(w t)``: a motion with velocity and acceleration (picklable)."""

    def __init__(self, a, b, w):
        self.a, self.b, self.w = a, b, w

    def __call__(self, t):
        s, c = math.sin(self.w * t), math.cos(self.w * t)
        return (self.a + self.b * s, self.b * self.w * c, -self.b * self.w ** 2 * s)


MOTION = Harmonic(0.5, 0.7, 3.0)


def rod(extra_joints=()):
    """A rod pinned at (-L/2, 0) to the origin, its tip (L/2, 0) on a spring-damper to ANCHOR, motor-driven."""
    return Mechanism([Body("rod", MASS, INERTIA)],
                     [GroundPin("O", "rod", (-L / 2, 0.0), (0.0, 0.0)), Driver("motor", "rod", MOTION),
                      *extra_joints],
                     [PointSpringDamper("k", "rod", (L / 2, 0.0), tuple(ANCHOR), K_SPRING, DAMPING)], name="rod")


def rod_by_hand(t):
    """Closed-form q, qd, qdd of the driven rod at t and the motor torque about the pin."""
    th, w, a = MOTION(t)
    c, s = math.cos(th), math.sin(th)
    q = np.array([L / 2 * c, L / 2 * s, th])
    qd = np.array([-L / 2 * s * w, L / 2 * c * w, w])
    qdd = np.array([-L / 2 * (c * w * w + s * a), L / 2 * (c * a - s * w * w), a])
    P = np.array([L * c, L * s])
    vP = w * np.array([-L * s, L * c])
    F = -K_SPRING * (P - ANCHOR) - DAMPING * vP
    tau = I_PIN * a - (P[0] * F[1] - P[1] * F[0])
    return q, qd, qdd, tau


# ----------------------------------------------------------------------------- assemble, kinematic_state
@pytest.mark.parametrize("t", [0.0, 0.4, 1.3])
def test_kinematic_state_of_the_driven_rod_in_closed_form(t):
    m = rod()
    q_ref, qd_ref, qdd_ref, _ = rod_by_hand(t)
    assert abs(qdd_ref[2]) > 0.5 or t == 0.0
    q, qd, qdd = MS.kinematic_state(m, q_ref + np.array([0.05, -0.03, 0.2]), t)
    np.testing.assert_allclose(q, q_ref, atol=EXACT)
    np.testing.assert_allclose(qd, qd_ref, atol=EXACT)
    np.testing.assert_allclose(qdd, qdd_ref, atol=1e-10)
    np.testing.assert_allclose(MS.assemble(m, q_ref + 0.05, t), q_ref, atol=EXACT)


def test_assemble_defaults_to_t_zero_and_keeps_an_assembled_guess():
    m = rod()
    q0 = rod_by_hand(0.0)[0]
    np.testing.assert_allclose(MS.assemble(m, q0 + 0.1), q0, atol=EXACT)
    assert np.abs(MS.assemble(m, q0 + 0.1) - rod_by_hand(1.0)[0]).max() > 0.05     # t matters here
    guess = q0 + np.array([4e-13, 0.0, 0.0])                  # within tol = 1e-12: no Newton step at all
    got = MS.assemble(m, guess)
    np.testing.assert_array_equal(got, guess)
    assert got is not guess


def one_newton_step(g, theta):
    """The pin rows' rest after one Newton step from (L/2 cos g, L/2 sin g, g) towards theta."""
    d = theta - g
    return max(abs(L / 2 * (math.cos(g) - d * math.sin(g) - math.cos(theta))),
               abs(L / 2 * (math.sin(g) + d * math.cos(g) - math.sin(theta))))


def test_the_acceptance_band_after_the_last_newton_step():
    """max_iter = 1 from a guess 0.05 rad off: the rest r after the step is accepted if r < 100 tol."""
    m = rod()
    th = MOTION(0.0)[0]
    g = th + 0.05
    guess = np.array([L / 2 * math.cos(g), L / 2 * math.sin(g), g])
    r = one_newton_step(g, th)
    assert 1e-5 < r < 1e-3
    q1 = MS.assemble(m, guess, 0.0, tol=r / 50, max_iter=1)
    assert q1[2] == pytest.approx(th, abs=EXACT)
    assert np.abs(m.residual(q1)).max() == pytest.approx(r, rel=1e-6)
    MS.assemble(m, guess, 0.0, tol=r / 99.5, max_iter=1)
    with pytest.raises(ConvergenceError, match=names("rod", "does not assemble", "t = 0 s", "1 Newton")):
        MS.assemble(m, guess, 0.0, tol=r / 100.5, max_iter=1)
    np.testing.assert_allclose(MS.assemble(m, guess, 0.0, tol=r / 100.5, max_iter=3), rod_by_hand(0.0)[0],
                               atol=EXACT)


def test_a_newton_step_beyond_1e6_gives_up():
    """x driven to 0.6 > L/2: unreachable; from sin(theta) = 1e-9 the first step is ~1e8 rad."""
    m = Mechanism([Body("rod", MASS, INERTIA)],
                  [GroundPin("O", "rod", (-L / 2, 0.0), (0.0, 0.0)),
                   Driver("x", "rod", lambda t: (0.6, 0.0, 0.0), coord="x", motor=False)], name="reach")
    with pytest.raises(ConvergenceError, match=names("reach", "does not assemble")):
        MS.assemble(m, [L / 2, 0.0, 1e-9])
    with pytest.raises(ConvergenceError, match="does not assemble"):
        MS.assemble(m, [0.1, 0.2, 0.3])
    with pytest.raises(ParameterError, match="q_guess"):
        MS.assemble(m, [0.1, 0.2])


def test_solve_square_singularity_threshold_and_the_least_norm_solution():
    b = np.array([1.0, 2.0])
    with pytest.raises(SingularityError, match=names("what", "constraint Jacobian", "singular")):
        MS._solve_square(np.diag([1.0, 0.75 * SINGULAR_TOL]), b, "what")
    x = MS._solve_square(np.diag([1.0, 1.5 * SINGULAR_TOL]), b, "what")
    np.testing.assert_allclose(x, [1.0, 2.0 / (1.5 * SINGULAR_TOL)], rtol=1e-12)
    J = np.array([[1.0, 2.0, 2.0]])                            # one row: the least-norm solution J^T / |J|^2
    np.testing.assert_allclose(MS._solve_square(J, np.array([9.0]), "what"), [1.0, 2.0, 2.0], rtol=1e-12)


# ----------------------------------------------------------------------------- torques
@pytest.mark.parametrize("t", [0.0, 0.4, 1.3])
def test_motor_torque_three_ways(t):
    m = rod()
    q, qd, qdd, tau = rod_by_hand(t)
    lam = MS.inverse_dynamics(m, q, qd, qdd, t)
    assert lam.shape == (3,)
    assert MS.driving_torques(m, lam) == {"motor": pytest.approx(tau, rel=TORQUE_RTOL)}
    assert MS.virtual_power_torques(m, q, qd, qdd, t) == {"motor": pytest.approx(tau, rel=TORQUE_RTOL)}
    assert MS.virtual_power_torques(m, q, qd, qdd) == MS.virtual_power_torques(m, q, qd, qdd, 0.0)
    np.testing.assert_array_equal(MS.inverse_dynamics(m, q, qd, qdd), MS.inverse_dynamics(m, q, qd, qdd, 0.0))
    # the pin's multipliers are the reaction: J^T lambda = g - M qdd on the x and y rows
    g = m.applied_forces(q, qd)
    np.testing.assert_allclose(-lam[:2], MASS * qdd[:2] - g[:2], rtol=1e-10, atol=1e-12)


def test_a_guide_driver_and_a_batch_of_multipliers():
    """A second driver (a guide on y, not a motor) on a free rod: each driver's torque by both routes."""
    m = Mechanism([Body("rod", MASS, INERTIA)],
                  [Driver("guide", "rod", lambda t: (0.2, 0.0, 0.0), coord="y", motor=False),
                   Driver("spin", "rod", MOTION)],
                  [PointSpringDamper("k", "rod", (L / 2, 0.0), tuple(ANCHOR), K_SPRING, DAMPING)], name="two")
    q, qd, qdd = np.array([0.1, 0.2, 0.6]), np.array([0.3, 0.0, 1.1]), np.array([-0.4, 0.0, 2.5])
    lam = MS.inverse_dynamics(m, q, qd, qdd)
    g = m.applied_forces(q, qd)
    # rows: guide (y), spin (theta); the x equation has no multiplier, so take the x row out of the check
    by_hand = {"guide": MASS * qdd[1] - g[1], "spin": INERTIA * qdd[2] - g[2]}
    assert MS.driving_torques(m, lam) == {k: pytest.approx(v, rel=TORQUE_RTOL) for k, v in by_hand.items()}
    assert MS.virtual_power_torques(m, q, qd, qdd) == {k: pytest.approx(v, rel=TORQUE_RTOL)
                                                       for k, v in by_hand.items()}
    batch = np.array([[1.0, -2.0], [3.0, 4.0], [0.5, 0.25]])
    out = MS.driving_torques(m, batch)
    np.testing.assert_array_equal(out["guide"], [-1.0, -3.0, -0.5])
    np.testing.assert_array_equal(out["spin"], [2.0, -4.0, -0.25])
    assert list(out) == ["guide", "spin"]
    with pytest.raises(ParameterError, match="lam"):
        MS.driving_torques(m, [1.0, 2.0, 3.0])


# ----------------------------------------------------------------------------- energy_terms
def test_energy_terms_by_hand():
    m = rod()
    th = np.array([0.1, 1.2, -0.7])
    w = np.array([0.5, -2.0, 3.0])
    q = np.stack([L / 2 * np.cos(th), L / 2 * np.sin(th), th], axis=-1)
    qd = np.stack([-L / 2 * np.sin(th) * w, L / 2 * np.cos(th) * w, w], axis=-1)
    E = MS.energy_terms(m, q, qd)
    np.testing.assert_allclose(E["kinetic"], 0.5 * I_PIN * w ** 2, rtol=EXACT)
    tip = np.stack([L * np.cos(th), L * np.sin(th)], axis=-1)
    np.testing.assert_allclose(E["potential"], 0.5 * K_SPRING * np.sum((tip - ANCHOR) ** 2, axis=-1), rtol=EXACT)
    assert set(E) == {"kinetic", "potential"}
