"""The redundant robot's dynamics (robolib.redundant.dynamics)."""

from __future__ import annotations

import dataclasses
import importlib
import math
import re

import numpy as np
import pytest
import yaml
from fuzzing import budget, names
from hypothesis import assume, given
from hypothesis import strategies as st

import robolib
from robolib import (
    ConvergenceError,
    ParameterError,
    RobolibError,
    SingularityError,
    UnreachableError,
)
from robolib import constraints as C
from robolib import friction as fr
from robolib import redundant as R

# ==== the forward and inverse dynamics routes agree =================================================================
#
# Tests of robolib.redundant (the Verification list of the Models page) and its sympy derivation.

ROBOT = R.load("redundant/default.yaml")


ACTIVE = [2, 6, 10]


MODELS = list(R.FRICTION_MODELS)


def random_states(seed, n=6, speed=0.3):
    """Assembled (q, dq) at random end-effector points near the centroid, random velocities, torques."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        p = ROBOT.centroid + rng.uniform(-0.08, 0.08, 2)
        q, dq = R.initial_state(ROBOT, p, rng.standard_normal(2) * speed)
        out.append((q, dq, rng.standard_normal(3) * 0.2))
    return out


# --------------------------------------------------------------------------- independent 6-coordinate model
def six_coordinate_dynamics(robot, q12, dq12, tau):
    """Independent model: absolute angles (theta_i, phi_i) of the links, chains pinned to the base,
    closure E_1 = E_2 = E_3 by multipliers; bearing reactions from each chain's linear momentum.

    Returns (ddq in the 12 cut coordinates, reactions (3, 2)).
    """
    l = robot.link_length
    th = q12[ACTIVE]
    ph = q12[ACTIVE] + q12[[3, 7, 11]]
    dth = dq12[ACTIVE]
    dph = dq12[ACTIVE] + dq12[[3, 7, 11]]
    e = lambda ang: np.array([np.cos(ang), np.sin(ang)])
    de = lambda ang: np.array([-np.sin(ang), np.cos(ang)])
    M = np.zeros((6, 6))
    h = np.zeros(6)  # M ddq + h = Q + A^T mu
    points = []  # (chain, mass, d_theta, d_phi)
    for i in range(3):
        points += [(i, robot.active_mass, robot.active_com, 0.0), (i, robot.passive_mass, l, robot.passive_com)]
        M[2 * i, 2 * i] += robot.active_inertia
        M[2 * i + 1, 2 * i + 1] += robot.passive_inertia
    points.append((0, robot.end_effector_mass, l, l))
    jac = {}
    for i, m, d1, d2 in points:
        J = np.zeros((2, 6))
        J[:, 2 * i] = d1 * de(th[i])
        J[:, 2 * i + 1] = d2 * de(ph[i])
        bias = -d1 * e(th[i]) * dth[i] ** 2 - d2 * e(ph[i]) * dph[i] ** 2
        M += m * J.T @ J
        h += m * J.T @ bias
        jac.setdefault(i, []).append((m, J, bias))
    Q = np.zeros(6)
    Q[[0, 2, 4]] = tau
    JT, gT = [], []
    for i in range(3):
        J = np.zeros((2, 6))
        J[:, 2 * i] = l * de(th[i])
        J[:, 2 * i + 1] = l * de(ph[i])
        JT.append(J)
        gT.append(-l * e(th[i]) * dth[i] ** 2 - l * e(ph[i]) * dph[i] ** 2)
    A = np.vstack([JT[0] - JT[1], JT[0] - JT[2]])
    b = -np.concatenate([gT[0] - gT[1], gT[0] - gT[2]])
    K = np.block([[M, -A.T], [A, np.zeros((4, 4))]])
    sol = np.linalg.solve(K, np.concatenate([Q - h, b]))
    dd, mu = sol[:6], sol[6:]
    tip_force = [mu[0:2] + mu[2:4], -mu[0:2], -mu[2:4]]
    F = np.zeros((3, 2))
    for i in range(3):
        ma = sum(m * (J @ dd + bias) for m, J, bias in jac[i])  # sum of m * a over the chain
        F[i] = ma - tip_force[i]
    ddq = np.zeros(12)
    ddq[ACTIVE] = dd[[0, 2, 4]]
    ddq[[3, 7, 11]] = dd[[1, 3, 5]] - dd[[0, 2, 4]]
    return ddq, F


def _write(tmp_path, mutate):
    src = robolib.DATA_DIR / "redundant" / "default.yaml"
    data = yaml.safe_load(src.read_text())
    mutate(data)
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


# --------------------------------------------------------------------------- forward dynamics
@pytest.mark.parametrize("friction", MODELS)
def test_all_routes_agree(friction):
    """Sequential layers == single-step U-K == multipliers (12 coordinates) == KKT == block elimination,
    on assembled states and (with Baumgarte terms) on slightly unassembled ones."""
    states = random_states(3)
    rng = np.random.default_rng(33)
    for q, dq, tau in states:
        ref = R.solve_dynamics(ROBOT, q, dq, tau, friction, method="multipliers")
        for method in R.METHODS:
            d = R.solve_dynamics(ROBOT, q, dq, tau, friction, method=method)
            assert np.abs(d.ddq - ref.ddq).max() < 1e-10 * max(1, np.abs(ref.ddq).max()), method
            assert np.abs(d.reactions - ref.reactions).max() < 1e-10, method
    for q, dq, tau in states:
        q = q + 1e-4 * rng.standard_normal(12)
        dq = dq + 1e-3 * rng.standard_normal(12)
        kw = dict(baumgarte=(20.0, 30.0))
        ref = R.solve_dynamics(ROBOT, q, dq, tau, friction, method="multipliers", **kw)
        for method in R.METHODS:
            d = R.solve_dynamics(ROBOT, q, dq, tau, friction, method=method, **kw)
            assert np.abs(d.ddq - ref.ddq).max() < 1e-10 * max(1, np.abs(ref.ddq).max()), method
            assert np.abs(d.reactions - ref.reactions).max() < 1e-10, method
            assert np.abs(d.friction_torque - ref.friction_torque).max() < 1e-13, method
            assert np.abs(d.multipliers - ref.multipliers).max() < 1e-10, method


def test_layers_from_public_matrices():
    """The same identity built from the public pieces: M, C dq, layer 1 and layer 2."""
    for q, dq, tau in random_states(4, n=3):
        M = R.mass_matrix(ROBOT, q)
        Q = -R.bias_forces(ROBOT, q, dq)
        Q[ACTIVE] += tau
        _, _, A1, b1 = R.closure_constraints(ROBOT, q, dq)
        _, _, A2, b2 = R.base_constraints(ROBOT, q, dq)
        seq, _ = C.udwadia_kalaba_sequential(M, Q, [(A1, b1), (A2, b2)])
        single, Qc = C.udwadia_kalaba(M, Q, np.vstack([A1, A2]), np.r_[b1, b2])
        ddq, lam = C.lagrange_multipliers(M, Q, np.vstack([A1, A2]), np.r_[b1, b2])
        assert np.abs(seq - single).max() < 1e-10 and np.abs(ddq - single).max() < 1e-10
        ddq_r, F = R.forward_dynamics(ROBOT, q, dq, tau)
        assert np.abs(ddq_r - ddq).max() < 1e-10
        assert np.abs(F - lam[4:].reshape(3, 2)).max() < 1e-10
        # the layer-2 correction of the sequential formula is NOT the reaction (it rebalances layer 1)
        _, parts = C.udwadia_kalaba_sequential(M, Q, [(A1, b1), (A2, b2)])
        assert np.abs(parts[1][[0, 1, 4, 5, 8, 9]] - lam[4:]).max() > 1e-6


def test_independent_six_coordinate_model():
    for q, dq, tau in random_states(5, n=8):
        ddq6, F6 = six_coordinate_dynamics(ROBOT, q, dq, tau)
        ddq, F = R.forward_dynamics(ROBOT, q, dq, tau)
        assert np.abs(ddq - ddq6).max() < 1e-9 * max(1, np.abs(ddq6).max())
        assert np.abs(F - F6).max() < 1e-9 * max(1, np.abs(F6).max())
        # with friction, the model equals the friction-free one driven by tau + tau_f
        for friction in ("stribeck", "coulomb_consistent"):
            d = R.solve_dynamics(ROBOT, q, dq, tau, friction)
            ddq6, F6 = six_coordinate_dynamics(ROBOT, q, dq, tau + d.friction_torque)
            assert np.abs(d.ddq - ddq6).max() < 1e-9 * max(1, np.abs(ddq6).max())
            assert np.abs(d.reactions - F6).max() < 1e-9 * max(1, np.abs(F6).max())


def test_friction_models_in_forward_dynamics():
    for q, dq, tau in random_states(6):
        w = dq[ACTIVE]
        s = R.solve_dynamics(ROBOT, q, dq, tau, "stribeck")
        assert np.allclose(s.friction_torque, fr.stribeck(w, ROBOT.coulomb_torque, ROBOT.static_torque,
                                                          ROBOT.stribeck_velocity, ROBOT.viscous, ROBOT.smooth_eps),
                           rtol=1e-14, atol=1e-16)
        free = R.solve_dynamics(ROBOT, q, dq, tau, None)
        dec = R.solve_dynamics(ROBOT, q, dq, tau, "coulomb")
        con = R.solve_dynamics(ROBOT, q, dq, tau, "coulomb_consistent")
        law = lambda F: fr.coulomb_load(w, F, ROBOT.mu, ROBOT.journal_radius, ROBOT.smooth_eps)
        # decoupled: loads of the friction-free solve; consistent: loads of its own final solve
        assert np.allclose(dec.friction_torque, law(free.reactions), rtol=1e-13, atol=1e-18)
        assert np.abs(con.friction_torque - law(con.reactions)).max() < 1e-12
        assert np.abs(dec.friction_torque - law(dec.reactions)).max() > 0  # one pass is not a fixed point
        # reported reactions are those of the final solve (friction included)
        assert np.allclose(dec.reactions, R.forward_dynamics(ROBOT, q, dq, tau + dec.friction_torque)[1], atol=1e-12)
        for d in (s, dec, con):
            assert np.all(d.friction_torque * w <= 0)


def test_bad_inputs_forward_dynamics():
    q, dq, tau = random_states(7, n=1)[0]
    with pytest.raises(ParameterError, match=names("q", "shape")):
        R.forward_dynamics(ROBOT, q[:6], dq, tau)
    with pytest.raises(ParameterError, match=names("dq", "finite")):
        R.forward_dynamics(ROBOT, q, dq * np.nan, tau)
    with pytest.raises(ParameterError, match=names("tau", "shape")):
        R.forward_dynamics(ROBOT, q, dq, np.zeros(2))
    with pytest.raises(ParameterError, match=names("friction", "one of")):
        R.forward_dynamics(ROBOT, q, dq, tau, friction="viscous")
    with pytest.raises(ParameterError, match="method"):
        R.forward_dynamics(ROBOT, q, dq, tau, method="newton")


def singular_configuration():
    """End effector on base point A_1 (|A_1 A_2| = |A_1 A_3| = 2 l): chain 1 folded, chains 2 and 3
    stretched. All three chains are singular, their tip forces along three concurrent lines can
    balance, so the layer-1 + layer-2 constraint matrix is rank deficient (reactions indeterminate)."""
    E = ROBOT.base[0]
    q = np.zeros(12)
    q[[0, 1, 4, 5, 8, 9]] = ROBOT.base.ravel()
    q[2], q[3] = 0.7, np.pi  # folded: tip back on A_1
    for i in (1, 2):
        d = E - ROBOT.base[i]
        q[4 * i + 2] = np.arctan2(d[1], d[0])
    assert np.abs(R.tips(ROBOT, q) - E).max() < 1e-12
    return q


@pytest.mark.parametrize("method", R.METHODS[:3])
def test_singular_configuration_raises(method):
    q = singular_configuration()
    with pytest.raises(SingularityError, match=names("q", "singular")):
        R.forward_dynamics(ROBOT, q, np.zeros(12), np.zeros(3), method=method)
    with pytest.raises(SingularityError, match="singular"):
        R.joint_rates(ROBOT, q, [0.0, 0.0])
    with pytest.raises(SingularityError, match=names("q", "singular")):
        R.inverse_dynamics(ROBOT, q, np.zeros(12), np.zeros(12))
    # a regular configuration nearby is fine
    q_ok, dq_ok = R.initial_state(ROBOT, ROBOT.base[0] + [0.1, 0.08])
    R.forward_dynamics(ROBOT, q_ok, dq_ok, np.zeros(3), method=method)


def test_unreachable_and_folded_targets():
    with pytest.raises(UnreachableError, match=names("target p", "[2.0, 2.0]", "chain 1")):
        R.inverse_kinematics(ROBOT, [2.0, 2.0])
    with pytest.raises(UnreachableError, match="unreachable"):
        R.reference_motion(ROBOT, [0.0], radius=0.4)
    with pytest.raises(SingularityError, match="A_2"):
        R.inverse_kinematics(ROBOT, ROBOT.base[1])
    with pytest.raises(ParameterError, match="elbows"):
        R.inverse_kinematics(ROBOT, ROBOT.centroid, elbows=(1, 0, 1))
    assert issubclass(UnreachableError, RobolibError)


# --------------------------------------------------------------------------- kinematics, inverse dynamics
def test_inverse_kinematics_and_rates_by_finite_differences():
    t = np.linspace(0, 2, 41)
    tr = R.reference_circle(ROBOT, t)
    for elbows in [(1, 1, 1), (-1, 1, -1)]:
        q, dq, ddq = R.joint_trajectory(ROBOT, tr, elbows)
        assert np.abs(R.tips(ROBOT, q) - tr.p[:, None, :]).max() < 1e-14
        assert np.all(np.sign(q[:, [3, 7, 11]]) == elbows)
        h = 1e-5
        qp, dqp, _ = R.joint_trajectory(ROBOT, R.reference_circle(ROBOT, t + h), elbows)
        qm, dqm, _ = R.joint_trajectory(ROBOT, R.reference_circle(ROBOT, t - h), elbows)
        assert np.abs((qp - qm) / (2 * h) - dq).max() < 1e-7
        assert np.abs((dqp - dqm) / (2 * h) - ddq).max() < 1e-6
        for j in range(0, 41, 10):
            assert max(R.constraint_residual(ROBOT, q[j], dq[j])) < 1e-14


@pytest.mark.parametrize("friction", MODELS)
def test_inverse_dynamics_round_trip(friction):
    t = np.linspace(0, 2, 9)[:-1]
    q, dq, ddq = R.reference_motion(ROBOT, t)
    for preload in (0.0, 0.5):
        res = R.inverse_dynamics(ROBOT, q, dq, ddq, friction=friction, preload=preload)
        assert res.tau.shape == (8, 3) and res.reactions.shape == (8, 3, 2)
        for j in range(len(t)):
            d = R.solve_dynamics(ROBOT, q[j], dq[j], res.tau[j], friction)
            if friction == "coulomb":
                # decoupled: FD evaluates the loads with the compensated torques, ID without them, so the
                # round trip is off by a second-order amount, small next to the friction compensation itself
                effect = np.abs(R.forward_dynamics(ROBOT, q[j], dq[j], res.tau[j])[0] - ddq[j]).max()
                assert np.abs(d.ddq - ddq[j]).max() < 0.05 * effect
            else:
                assert np.abs(d.ddq - ddq[j]).max() < 1e-9
                assert np.abs(d.reactions - res.reactions[j]).max() < 1e-9
                assert np.abs(d.friction_torque - res.friction_torque[j]).max() < 1e-12


def test_minimum_norm_and_preload():
    q, dq, ddq = R.reference_motion(ROBOT, np.linspace(0, 2, 7))
    base = R.inverse_dynamics(ROBOT, q, dq, ddq)
    n = base.null_direction
    assert np.allclose(np.linalg.norm(n, axis=1), 1) and np.all(n.sum(axis=1) > 0)
    assert np.abs(np.einsum("ij,ij->i", base.tau, n)).max() < 1e-12  # minimum norm: no preload component
    for j in range(len(q)):
        # the preload direction produces no motion, only internal load
        ddq0, F0 = R.forward_dynamics(ROBOT, q[j], dq[j], base.tau[j])
        ddq1, F1 = R.forward_dynamics(ROBOT, q[j], dq[j], base.tau[j] + 2.0 * n[j])
        assert np.abs(ddq1 - ddq0).max() < 1e-10 and np.abs(F1 - F0).max() > 1.0
        # any torque giving the same motion has a larger norm
        assert np.linalg.norm(base.tau[j] + 0.1 * n[j]) > np.linalg.norm(base.tau[j])
    pre = R.inverse_dynamics(ROBOT, q, dq, ddq, preload=2.0)
    assert np.allclose(pre.tau - base.tau, 2.0 * n, atol=1e-12)
    # preload raises the bearing loads and hence the Coulomb friction
    c0 = R.inverse_dynamics(ROBOT, q, dq, ddq, friction="coulomb_consistent")
    c2 = R.inverse_dynamics(ROBOT, q, dq, ddq, friction="coulomb_consistent", preload=2.0)
    assert np.abs(c2.friction_torque).sum() > 2 * np.abs(c0.friction_torque).sum()
    assert np.linalg.norm(c2.reactions, axis=-1).mean() > 2 * np.linalg.norm(c0.reactions, axis=-1).mean()


def test_preload_statics():
    """At rest under a pure preload the robot stays at rest and the base reactions and motor torques
    balance: sum F_i = 0 and sum (A_i x F_i + tau_i) = 0 (the whole robot is in equilibrium)."""
    rng = np.random.default_rng(21)
    for _ in range(4):
        q0, dq0 = R.initial_state(ROBOT, ROBOT.centroid + rng.uniform(-0.06, 0.06, 2))
        n = R.inverse_dynamics(ROBOT, q0, dq0, np.zeros(12)).null_direction
        tau = 1.5 * n
        ddq, F = R.forward_dynamics(ROBOT, q0, dq0, tau)
        assert np.abs(ddq).max() < 1e-12
        assert np.abs(F.sum(axis=0)).max() < 1e-12 and np.abs(F).max() > 0.5
        moment = np.sum(ROBOT.base[:, 0] * F[:, 1] - ROBOT.base[:, 1] * F[:, 0]) + tau.sum()
        assert abs(moment) < 1e-12


def test_inverse_dynamics_rejects_unassembled_motion():
    q, dq, ddq = R.reference_motion(ROBOT, [0.0])
    with pytest.raises(ParameterError, match=names("q, dq, ddq", "violate", "constraints")):
        R.inverse_dynamics(ROBOT, q + 1e-3, dq, ddq)
    with pytest.raises(ParameterError, match=names("q, dq, ddq", "violate", "constraints")):
        R.inverse_dynamics(ROBOT, q, dq, ddq + 1.0)


def test_consistent_coulomb_nonconvergence_is_reported():
    robot = dataclasses.replace(ROBOT, mu=50.0, journal_radius=0.5)
    q, dq, tau = random_states(8, n=1)[0]
    with pytest.raises(ConvergenceError, match="consistent Coulomb"):
        R.forward_dynamics(robot, q, dq, tau, friction="coulomb_consistent")


# --------------------------------------------------------------------------- redundancy in closed form
def test_preload_direction_reactions_and_minimum_norm_torques():
    """Task-space route (J_a, Lami) == the SVD/multiplier route of inverse_dynamics, at random motions."""
    rng = np.random.default_rng(31)
    for _ in range(5):
        p = ROBOT.centroid + rng.uniform(-0.08, 0.08, 2)
        q = R.inverse_kinematics(ROBOT, p)
        dq, ddq = R.joint_rates(ROBOT, q, rng.standard_normal(2) * 0.3, rng.standard_normal(2))
        n = R.preload_direction(ROBOT, q)
        Ja = R.actuation_jacobian(ROBOT, q)
        # J_a by finite differences of the inverse kinematics (independent of the closed form)
        h = 1e-6
        fd = np.stack([(R.inverse_kinematics(ROBOT, p + h * e)[ACTIVE] - R.inverse_kinematics(ROBOT, p - h * e)[ACTIVE])
                       / (2 * h) for e in np.eye(2)], axis=-1)
        assert np.allclose(Ja, fd, rtol=1e-6, atol=1e-6)
        assert np.allclose(Ja.T @ n, 0, atol=1e-12) and np.isclose(np.linalg.norm(n), 1) and n.sum() > 0
        for friction in MODELS:
            for pre in (0.0, 0.7):
                r = R.inverse_dynamics(ROBOT, q, dq, ddq, friction, pre)
                assert np.allclose(r.null_direction, n, atol=1e-12)
                tau = R.minimum_norm_torques(ROBOT, q, dq, ddq, r.friction_torque, pre)
                assert np.allclose(tau, r.tau, atol=1e-12)
        # minimum norm: no preload component without friction; the torques are the least-norm solution
        r0 = R.inverse_dynamics(ROBOT, q, dq, ddq)
        assert abs(r0.tau @ n) < 1e-12
        # statics of the preload: forward dynamics under n alone leaves the robot at rest (dq = 0) ...
        ddq_n, F_n = R.forward_dynamics(ROBOT, q, np.zeros(12), n)
        assert np.allclose(ddq_n, 0, atol=1e-10)
        # ... and the bearings carry the passive links' axial forces (Lami)
        assert np.allclose(F_n, R.preload_reactions(ROBOT, q), atol=1e-10)


# --------------------------------------------------------------------------- friction studies
def _stribeck_rms(robot, Tc, q, dq, ddq, ratio=1.5, ws=0.1, bv=0.0):
    rb = dataclasses.replace(robot, coulomb_torque=Tc, static_torque=ratio * Tc, stribeck_velocity=ws, viscous=bv,
                             calibrated_for=None)
    return R.rms(R.inverse_dynamics(rb, q, dq, ddq, "stribeck").friction_torque)



# ==== dynamics properties on random states ==========================================================================

# ---- properties on random valid inputs ---------------------------------------------------------------
PROPERTY = budget(25)


#: End-effector points within 0.15 m of the base centroid: 0.14 .. 0.44 m from every base point, inside
#: the 2 l = 0.5 m reach, so every chain stays at least ~30 degrees from stretched or folded.
POINTS = st.builds(lambda r, th: ROBOT.centroid + r * np.array([math.cos(th), math.sin(th)]),
                   st.floats(0.0, 0.15), st.floats(-math.pi, math.pi))


ELBOW_SIGNS = st.tuples(*[st.sampled_from([1, -1])] * 3)


PLANAR = st.builds(np.array, st.lists(st.floats(-1.0, 1.0), min_size=2, max_size=2))


TORQUES = st.builds(np.array, st.lists(st.floats(-1.0, 1.0), min_size=3, max_size=3))


GAINS = st.tuples(st.floats(0.0, 50.0), st.floats(0.0, 50.0))


def assembled(p, v, elbows, acc=None):
    """Assembled ``(q, dq[, ddq])`` with the end-effector at ``p`` moving at ``v`` (accelerating at ``acc``);
    configurations where the three passive links are (nearly) parallel -- the motors lose control of
    one direction -- are skipped."""
    q = R.inverse_kinematics(ROBOT, p, elbows)
    sv = np.linalg.svd(R.actuation_jacobian(ROBOT, q) * ROBOT.link_length, compute_uv=False)
    assume(sv[-1] > 0.05 * sv[0])
    if acc is None:
        return q, R.joint_rates(ROBOT, q, v)
    return (q, *R.joint_rates(ROBOT, q, v, acc))


def _close(x, ref, rel):
    return float(np.abs(np.asarray(x) - ref).max()) <= rel * max(1.0, float(np.abs(ref).max()))


@pytest.mark.fuzz
@PROPERTY
@given(p=POINTS, v=PLANAR, elbows=ELBOW_SIGNS, tau=TORQUES, friction=st.sampled_from(R.FRICTION_MODELS),
       method=st.sampled_from(R.METHODS), baumgarte=GAINS)
def test_accelerations_satisfy_both_constraint_layers(p, v, elbows, tau, friction, method, baumgarte):
    """After a forward-dynamics (Udwadia-Kalaba) step, A1 ddq = b1 (closure) and A2 ddq = b2 (base),
    with the Baumgarte terms -2 alpha dphi - beta^2 phi (zero up to rounding on an assembled state)."""
    q, dq = assembled(p, v, elbows)
    ddq, _ = R.forward_dynamics(ROBOT, q, dq, tau, friction, method=method, baumgarte=baumgarte)
    alpha, beta = baumgarte
    for layer in (R.closure_constraints, R.base_constraints):
        phi, dphi, A, b = layer(ROBOT, q, dq)
        rhs = b - 2 * alpha * dphi - beta**2 * phi
        scale = max(1.0, float(np.abs(A).max() * np.abs(ddq).max()), float(np.abs(rhs).max()))
        assert np.abs(A @ ddq - rhs).max() <= 1e-11 * scale, layer.__name__


@pytest.mark.fuzz
@PROPERTY
@given(p=POINTS, v=PLANAR, acc=PLANAR, elbows=ELBOW_SIGNS, preload=st.floats(-2.0, 2.0),
       friction=st.sampled_from(R.FRICTION_MODELS))
def test_inverse_then_forward_dynamics_returns_the_commanded_accelerations(p, v, acc, elbows, preload, friction):
    """forward_dynamics(inverse_dynamics(ddq).tau) = ddq: exactly (to rounding) without friction, with Stribeck
    friction and with consistent Coulomb friction; the decoupled Coulomb model evaluates the bearing loads
    with different torques in the two directions, so there the round trip is off by a second-order amount,
    small next to the friction compensation itself."""
    q, dq, ddq = assembled(p, v, elbows, acc)
    res = R.inverse_dynamics(ROBOT, q, dq, ddq, friction, preload)
    d = R.solve_dynamics(ROBOT, q, dq, res.tau, friction)
    if friction == "coulomb":
        effect = np.abs(R.forward_dynamics(ROBOT, q, dq, res.tau)[0] - ddq).max()
        assert np.abs(d.ddq - ddq).max() <= 0.05 * effect + 1e-9
    else:
        assert _close(d.ddq, ddq, 1e-9)
        assert _close(d.reactions, res.reactions, 1e-9)
        assert np.abs(d.friction_torque - res.friction_torque).max() <= 1e-12


@pytest.mark.fuzz
@PROPERTY
@given(p=POINTS, v=PLANAR, elbows=ELBOW_SIGNS, tau=TORQUES, friction=st.sampled_from(R.FRICTION_MODELS),
       baumgarte=GAINS, drift=st.floats(0.0, 1e-4))
def test_the_five_forward_dynamics_routes_agree(p, v, elbows, tau, friction, baumgarte, drift):
    """reduced == multipliers == kkt == udwadia_kalaba == sequential (accelerations, reactions, friction,
    multipliers), on assembled states and, with ``drift`` > 0 and Baumgarte terms, on unassembled ones."""
    q, dq = assembled(p, v, elbows)
    rng = np.random.default_rng(0)                 # a fixed direction of drift; its size is drawn
    q = q + drift * rng.standard_normal(12)
    dq = dq + 10 * drift * rng.standard_normal(12)
    ref = R.solve_dynamics(ROBOT, q, dq, tau, friction, method="multipliers", baumgarte=baumgarte)
    for method in R.METHODS:
        d = R.solve_dynamics(ROBOT, q, dq, tau, friction, method=method, baumgarte=baumgarte)
        assert _close(d.ddq, ref.ddq, 1e-10), method
        assert _close(d.reactions, ref.reactions, 1e-10), method
        assert np.abs(d.friction_torque - ref.friction_torque).max() <= 1e-12, method
        assert _close(d.multipliers, ref.multipliers, 1e-10), method



# ==== a second robot, the routes and the refusals through independent answers =======================================
#
# Redundant robot dynamics: checks that kill the mutants the sections above let live (make mutate)
# (make mutate).
#
# * A second robot that breaks the default's symmetries (a scalene base, unequal link masses, centres of mass off
#   the link middles, a heavier end-effector, non-default friction constants), checked against the independent
#   six-coordinate model above (six_coordinate_dynamics), so a sign or factor that the default's equal links hide shows.
# * The near-singular path of the block elimination (states within 1e-7 m of the singular configuration, where
#   the 4x4 closure system is ill-conditioned but still regular), checked against the 12-coordinate multipliers.
# * The friction laws checked from their definitions on the final reactions (the fixed point of the consistent
#   Coulomb model, the one pass of the decoupled model, the Stribeck formula), on the second robot.
# * Inverse dynamics checked through forward dynamics and statics on the second robot: the torques reproduce the
#   motion, ``n . tau`` is the preload, the null direction matches the closed form, a batch equals its samples.
# * Inverse kinematics at its boundaries: a point exactly ``2 l`` from a base point, one just beyond, and a point
#   that only one chain cannot reach.

#: A robot with no symmetry of the default left: scalene base, every mass, centre of mass and inertia distinct.
SKEW = dataclasses.replace(
    ROBOT, base=np.array([[0.02, -0.01], [0.54, 0.03], [0.21, 0.46]]), active_mass=0.7, active_com=0.08,
    active_inertia=0.0041, passive_mass=0.3, passive_com=0.17, passive_inertia=0.0013, end_effector_mass=0.35,
    mu=0.13, journal_radius=0.008, coulomb_torque=4.1e-4, static_torque=7.3e-4, stribeck_velocity=0.07,
    viscous=2.0e-4, smooth_eps=0.02, calibrated_for=None)  # a Stribeck level set by hand


#: SKEW with every mass and inertia 1e6x larger: the tip mobilities (1/kg) are 1e6 and the closure determinants
#: 1e12 times smaller than SKEW's (far below 1, so no threshold may be absolute); 1e6x the torques, same motion.
HEAVY = dataclasses.replace(
    SKEW, active_mass=7e5, active_inertia=4.1e3, passive_mass=3e5, passive_inertia=1.3e3, end_effector_mass=3.5e5)


#: SKEW with every mass and inertia 1e6x smaller (a miniature robot: mobilities 1e6 larger).
LIGHT = dataclasses.replace(
    SKEW, active_mass=7e-7, active_inertia=4.1e-9, passive_mass=3e-7, passive_inertia=1.3e-9, end_effector_mass=3.5e-7)


#: Agreement of two exact routes (relative to the largest acceleration or reaction).
ROUTE_TOL = 1e-9


#: Agreement of the routes within 1e-7 m of a singular configuration (condition number ~ 1e7).
NEAR_SINGULAR_TOL = 1e-6


def skew_states(seed, n=6, speed=0.4, robot=SKEW):
    """Assembled (q, dq) of ``robot`` near its base centroid on random elbow branches, random torques."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        p = robot.centroid + rng.uniform(-0.07, 0.07, 2)
        elbows = tuple(rng.choice([-1, 1], 3))
        q, dq = R.initial_state(robot, p, rng.standard_normal(2) * speed, elbows=elbows)
        out.append((q, dq, rng.standard_normal(3) * 0.3))
    return out


def rel(a, b):
    return np.abs(np.asarray(a) - np.asarray(b)).max() / max(1.0, np.abs(b).max())


# --------------------------------------------------------------------------- a second robot, forward dynamics
@pytest.mark.parametrize("method", R.METHODS)
def test_second_robot_equals_the_independent_six_coordinate_model(method):
    for q, dq, tau in skew_states(1):
        ddq6, F6 = six_coordinate_dynamics(SKEW, q, dq, tau)
        d = R.solve_dynamics(SKEW, q, dq, tau, method=method)
        assert rel(d.ddq, ddq6) < ROUTE_TOL, method
        assert rel(d.reactions, F6) < ROUTE_TOL, method
        assert rel(d.multipliers[4:], F6.ravel()) < ROUTE_TOL, method


@pytest.mark.parametrize("method", R.METHODS)
def test_second_robot_with_baumgarte_terms_equals_the_multipliers(method):
    rng = np.random.default_rng(2)
    for q, dq, tau in skew_states(3, n=4):
        q = q + 1e-4 * rng.standard_normal(12)
        dq = dq + 1e-3 * rng.standard_normal(12)
        for gains in ((20.0, 30.0), (0.0, 45.0), (35.0, 0.0)):
            ref = R.solve_dynamics(SKEW, q, dq, tau, method="multipliers", baumgarte=gains)
            d = R.solve_dynamics(SKEW, q, dq, tau, method=method, baumgarte=gains)
            assert rel(d.ddq, ref.ddq) < ROUTE_TOL and rel(d.multipliers, ref.multipliers) < ROUTE_TOL, (method, gains)


def test_baumgarte_terms_drive_the_constraint_error_as_a_damped_oscillator():
    """With gains (alpha, beta) every constraint row obeys ddphi = -2 alpha dphi - beta^2 phi (finite differences
    of phi along the solved acceleration), an independent check of the stabilised right-hand side."""
    rng = np.random.default_rng(4)
    alpha, beta = 17.0, 23.0
    for q, dq, tau in skew_states(5, n=3):
        q = q + 1e-4 * rng.standard_normal(12)
        dq = dq + 1e-3 * rng.standard_normal(12)
        ddq, _ = R.forward_dynamics(SKEW, q, dq, tau, baumgarte=(alpha, beta))
        phi = lambda x: np.r_[R.closure_constraints(SKEW, x, dq)[0], R.base_constraints(SKEW, x, dq)[0]]
        h = 1e-4
        # phi(q(t)) along q(t) = q + dq t + ddq t^2 / 2: second derivative by central differences
        path = lambda t: q + dq * t + 0.5 * ddq * t * t
        dd_phi = (phi(path(h)) - 2 * phi(path(0.0)) + phi(path(-h))) / (h * h)
        d_phi = (phi(path(h)) - phi(path(-h))) / (2 * h)
        assert np.abs(dd_phi + 2 * alpha * d_phi + beta * beta * phi(q)).max() < 1e-4 * max(1, np.abs(dd_phi).max())


@pytest.mark.parametrize("friction", ["stribeck", "coulomb", "coulomb_consistent"])
def test_second_robot_friction_laws_from_their_definitions(friction):
    for q, dq, tau in skew_states(6, n=5):
        w = dq[ACTIVE]
        d = R.solve_dynamics(SKEW, q, dq, tau, friction)
        ref = R.solve_dynamics(SKEW, q, dq, tau, friction, method="multipliers")
        assert rel(d.ddq, ref.ddq) < ROUTE_TOL and rel(d.reactions, ref.reactions) < ROUTE_TOL
        assert np.abs(d.friction_torque - ref.friction_torque).max() < 1e-14
        # the motion is the friction-free motion under tau + tau_f (independent model)
        ddq6, F6 = six_coordinate_dynamics(SKEW, q, dq, tau + d.friction_torque)
        assert rel(d.ddq, ddq6) < ROUTE_TOL and rel(d.reactions, F6) < ROUTE_TOL
        sg = np.tanh(w / SKEW.smooth_eps)
        muR = SKEW.mu * SKEW.journal_radius
        if friction == "stribeck":
            law = -(SKEW.coulomb_torque + (SKEW.static_torque - SKEW.coulomb_torque)
                    * np.exp(-(w / SKEW.stribeck_velocity) ** 2)) * sg - SKEW.viscous * w
            assert np.abs(d.friction_torque - law).max() < 1e-16
        elif friction == "coulomb":  # one pass: the loads of the friction-free solve
            F0 = R.forward_dynamics(SKEW, q, dq, tau)[1]
            assert np.abs(d.friction_torque + muR * np.linalg.norm(F0, axis=1) * sg).max() < 1e-15
        else:  # the fixed point: the friction of the final reactions
            assert np.abs(d.friction_torque + muR * np.linalg.norm(d.reactions, axis=1) * sg).max() < 1e-15
        assert np.abs(d.friction_torque).min() > 0


def test_consistent_coulomb_fixed_point_by_a_damped_iteration_of_the_public_solver():
    """The consistent model's torques are the fixed point of tau_f = law(F(tau + tau_f)), found here by iterating
    the friction-free public solver (an independent route to the fixed point, large friction)."""
    robot = dataclasses.replace(SKEW, mu=0.4, journal_radius=0.02)
    for q, dq, tau in skew_states(7, n=3, robot=robot):
        w = dq[ACTIVE]
        sg = np.tanh(w / robot.smooth_eps)
        tf = np.zeros(3)
        for _ in range(200):
            F = R.forward_dynamics(robot, q, dq, tau + tf)[1]
            tf = -robot.mu * robot.journal_radius * np.linalg.norm(F, axis=1) * sg
        d = R.solve_dynamics(robot, q, dq, tau, "coulomb_consistent")
        assert np.abs(d.friction_torque - tf).max() < 1e-13
        dec = R.solve_dynamics(robot, q, dq, tau, "coulomb")
        assert np.abs(dec.friction_torque - tf).max() > 1e-9  # one pass is not the fixed point


# --------------------------------------------------------------------------- near the singular configuration
def _near_singular_states():
    """Assembled states within 1e-7 m of the singular configuration (end-effector on A_1: chain 1 folded, chains
    2 and 3 stretched), in three directions, with small velocities."""
    out = []
    for direction in ([1.0, 1.0], [1.0, 0.0], [0.3, 1.0]):
        u = np.asarray(direction) / np.linalg.norm(direction)
        q, dq = R.initial_state(ROBOT, ROBOT.base[0] + 1e-7 * u, [0.01, -0.02])
        out.append((q, dq, np.array([0.1, -0.2, 0.05])))
    return out


@pytest.mark.parametrize("friction", [None, "stribeck", "coulomb", "coulomb_consistent"])
def test_near_singular_elimination_equals_the_multipliers(monkeypatch, friction):
    """There the closure system's eigenvalue ratio is ~1e-7: the elimination takes its checked path (an
    eigenvalue test, then the same formulas), which must still give the 12-coordinate answer. (The consistent
    Coulomb iteration contracts there only for a small mu R: the reactions are ~1e7 times as sensitive.)"""
    robot = dataclasses.replace(ROBOT, mu=1e-9, calibrated_for=None) if friction == "coulomb_consistent" else ROBOT
    ratios = []
    eigvalsh = np.linalg.eigvalsh

    def spy(K):
        w = eigvalsh(K)
        ratios.append(w[0] / w[-1])
        return w

    for q, dq, tau in _near_singular_states():
        ref = R.solve_dynamics(robot, q, dq, tau, friction, method="multipliers")
        ratios.clear()
        with monkeypatch.context() as m:
            m.setattr(np.linalg, "eigvalsh", spy)
            d = R.solve_dynamics(robot, q, dq, tau, friction, method="reduced")
        assert ratios and 1e-10 < ratios[0] < 1e-5  # the checked path ran, and found the system regular
        assert rel(d.ddq, ref.ddq) < NEAR_SINGULAR_TOL
        assert rel(d.reactions, ref.reactions) < NEAR_SINGULAR_TOL
        assert rel(d.multipliers, ref.multipliers) < NEAR_SINGULAR_TOL
        assert np.abs(d.friction_torque - ref.friction_torque).max() <= NEAR_SINGULAR_TOL * np.abs(
            ref.friction_torque).max()


def test_singular_configuration_is_refused_by_every_route():
    q = singular_configuration()
    for method in R.METHODS:
        with pytest.raises(SingularityError, match="singular"):
            R.solve_dynamics(ROBOT, q, np.zeros(12), np.zeros(3), "coulomb_consistent", method=method)


# --------------------------------------------------------------------------- inverse dynamics, second robot
def _skew_motion(n=7, elbows=(1, -1, 1)):
    t = np.linspace(0.0, 1.7, n)
    tr = R.reference_circle(SKEW, t, radius=0.04, period=1.3, center=SKEW.centroid + [0.01, -0.02])
    return R.joint_trajectory(SKEW, tr, elbows)


@pytest.mark.parametrize("friction", [None, "stribeck", "coulomb_consistent"])
def test_second_robot_inverse_dynamics_reproduces_the_motion(friction):
    q, dq, ddq = _skew_motion()
    for preload in (0.0, -0.7):
        res = R.inverse_dynamics(SKEW, q, dq, ddq, friction, preload)
        # the preload is the torques' component along the null direction, which is the closed form's
        assert np.abs(np.einsum("ij,ij->i", res.tau, res.null_direction) - preload).max() < 1e-12
        assert np.abs(res.null_direction - R.preload_direction(SKEW, q)).max() < 1e-12
        mn = R.minimum_norm_torques(SKEW, q, dq, ddq, res.friction_torque, preload)
        assert np.abs(mn - res.tau).max() < 1e-11
        for j in range(len(q)):
            d = R.solve_dynamics(SKEW, q[j], dq[j], res.tau[j], friction)
            assert rel(d.ddq, ddq[j]) < ROUTE_TOL
            assert rel(d.reactions, res.reactions[j]) < ROUTE_TOL
            assert np.abs(d.friction_torque - res.friction_torque[j]).max() < 1e-13
            one = R.inverse_dynamics(SKEW, q[j], dq[j], ddq[j], friction, preload)  # a batch equals its samples
            assert np.abs(one.tau - res.tau[j]).max() < 1e-13
            assert np.abs(one.reactions - res.reactions[j]).max() < 1e-12


def test_second_robot_inverse_dynamics_reactions_balance_the_whole_robot():
    """At rest with zero acceleration any torques in the null direction are held by the base alone:
    sum F_i = 0 and the moments about the origin balance the motor torques (Newton-Euler for the whole robot)."""
    rng = np.random.default_rng(9)
    for _ in range(3):
        q, dq = R.initial_state(SKEW, SKEW.centroid + rng.uniform(-0.05, 0.05, 2), elbows=(1, 1, -1))
        res = R.inverse_dynamics(SKEW, q, dq, np.zeros(12), preload=1.3)
        F = res.reactions
        assert np.abs(res.tau - 1.3 * res.null_direction).max() < 1e-12
        assert np.abs(F.sum(axis=0)).max() < 1e-12 and np.abs(F).max() > 0.5
        moment = np.sum(SKEW.base[:, 0] * F[:, 1] - SKEW.base[:, 1] * F[:, 0]) + res.tau.sum()
        assert abs(moment) < 1e-12
        assert np.abs(F - 1.3 * R.preload_reactions(SKEW, q)).max() < 1e-12


def test_decoupled_coulomb_inverse_dynamics_uses_the_friction_free_loads():
    q, dq, ddq = _skew_motion(5)
    for preload in (0.0, 0.4):
        free = R.inverse_dynamics(SKEW, q, dq, ddq, None, preload)
        dec = R.inverse_dynamics(SKEW, q, dq, ddq, "coulomb", preload)
        sg = fr.smooth_sign(dq[:, ACTIVE], SKEW.smooth_eps)
        law = -SKEW.mu * SKEW.journal_radius * np.linalg.norm(free.reactions, axis=-1) * sg
        assert np.abs(dec.friction_torque - law).max() < 1e-15
        # the torques are the friction-free ones minus the friction, projected off the null direction
        n = free.null_direction
        t = dec.friction_torque
        expect = free.tau - (t - n * np.einsum("ij,ij->i", n, t)[:, None])
        assert np.abs(dec.tau - expect).max() < 1e-14


# --------------------------------------------------------------------------- inverse kinematics boundaries
def test_inverse_kinematics_at_the_reach_boundary():
    l = ROBOT.link_length
    A1, A2, A3 = ROBOT.base
    # exactly 2 l from A_2 (chain 2 stretched, b = 0), well inside the others' reach
    u = np.array([np.cos(np.radians(150.0)), np.sin(np.radians(150.0))])
    p = A2 + 2 * l * u
    assert np.linalg.norm(p - A1) < 2 * l and np.linalg.norm(p - A3) < 2 * l
    q = R.inverse_kinematics(ROBOT, p)
    assert abs(q[7]) < 1e-7 and np.abs(R.tips(ROBOT, q) - p).max() < 1e-12
    assert abs(q[6] - np.arctan2(u[1], u[0])) < 1e-7
    with pytest.raises(UnreachableError, match=names("chain 2", "distance", "A_2", "exceeds")):
        R.inverse_kinematics(ROBOT, A2 + 2 * l * (1 + 1e-9) * u)
    # a point that only chain 3 cannot reach: the batch names the point and the chain
    far = np.array([0.25, -0.07])
    assert np.linalg.norm(far - A1) < 2 * l and np.linalg.norm(far - A2) < 2 * l
    with pytest.raises(UnreachableError, match=names("target p", "[0.25, -0.07]", "unreachable", "chain 3")):
        R.inverse_kinematics(ROBOT, [ROBOT.centroid, far])


@pytest.mark.parametrize("elbows", [(1, 1, 1), (-1, 1, -1), (1, -1, -1)])
def test_inverse_kinematics_angles_from_the_law_of_cosines(elbows):
    """Each chain's passive angle b_i from the law of cosines, |b| = arccos((r^2 - 2 l^2) / (2 l^2)), and its
    active angle a_i = atan2(d) - b_i / 2 (the isosceles triangle A_i, elbow, tip), on the second robot."""
    rng = np.random.default_rng(11)
    p = SKEW.centroid + rng.uniform(-0.08, 0.08, (5, 2))
    q = R.inverse_kinematics(SKEW, p, elbows)
    l = SKEW.link_length
    for i in range(3):
        d = p - SKEW.base[i]
        r = np.linalg.norm(d, axis=1)
        b = elbows[i] * np.arccos((r * r - 2 * l * l) / (2 * l * l))
        assert np.abs(q[:, 4 * i + 3] - b).max() < 1e-12
        a = np.arctan2(d[:, 1], d[:, 0]) - 0.5 * b
        assert np.abs(np.angle(np.exp(1j * (q[:, 4 * i + 2] - a)))).max() < 1e-12
        assert np.abs(q[:, 4 * i: 4 * i + 2] - SKEW.base[i]).max() == 0
    assert np.abs(R.tips(SKEW, q) - p[:, None, :]).max() < 1e-12


# --------------------------------------------------------------------------- the routes are different routes
def test_each_method_takes_its_own_route(monkeypatch):
    """The agreement of the five routes means something only if each is a different computation: each method
    calls its own solver and no other (spies on the constraint solvers and the block elimination)."""
    import robolib.redundant.dynamics as D

    calls = []

    def spy(name, fn):
        def wrapped(*a, **k):
            calls.append(name)
            return fn(*a, **k)
        return wrapped

    for name in ("kkt_solve", "udwadia_kalaba", "udwadia_kalaba_sequential"):
        monkeypatch.setattr(D._con, name, spy(name, getattr(D._con, name)))
    monkeypatch.setattr(D, "_core", spy("_core", D._core))
    q, dq, tau = skew_states(12, n=1)[0]
    expect = {"reduced": ["_core"], "multipliers": [], "kkt": ["kkt_solve"], "udwadia_kalaba": ["udwadia_kalaba"],
              "sequential": ["udwadia_kalaba_sequential"]}
    assert set(expect) == set(R.METHODS)
    for method in R.METHODS:
        calls.clear()
        R.solve_dynamics(SKEW, q, dq, tau, method=method)
        assert calls == expect[method], method


@pytest.mark.parametrize("robot", [ROBOT, SKEW, HEAVY, LIGHT], ids=["default", "skew", "heavy", "light"])
def test_regular_states_skip_the_eigenvalue_test(monkeypatch, robot):
    """The block elimination tests the closure matrix's eigenvalues only when its determinants are small relative
    to its own scale: on regular states (random branches, masses from 1e-7 to 7e5 kg) it runs no eigenvalue
    decomposition (its speed)."""
    calls = []
    eigvalsh = np.linalg.eigvalsh
    monkeypatch.setattr(np.linalg, "eigvalsh", lambda K: calls.append(1) or eigvalsh(K))
    for q, dq, tau in skew_states(13, n=8, robot=robot):
        R.solve_dynamics(robot, q, dq, tau, "coulomb_consistent")
    assert calls == []


# --------------------------------------------------------------------------- boundary values of the friction
@pytest.mark.parametrize("field", ["mu", "journal_radius"])
def test_zero_bearing_friction_is_the_friction_free_model(field):
    """mu = 0 or R = 0 (the boundary of a non-negative field): the Coulomb models give zero friction torque, and
    the consistent model's iteration stops at once instead of reporting non-convergence."""
    robot = dataclasses.replace(SKEW, **{field: 0.0})
    q, dq, ddq = _skew_motion(4)
    for friction in ("coulomb", "coulomb_consistent"):
        for j in range(len(q)):
            for method in ("reduced", "multipliers"):
                d = R.solve_dynamics(robot, q[j], dq[j], [0.1, -0.2, 0.3], friction, method=method)
                free = R.solve_dynamics(robot, q[j], dq[j], [0.1, -0.2, 0.3], method=method)
                assert np.all(d.friction_torque == 0.0)
                assert np.array_equal(d.ddq, free.ddq)
        res = R.inverse_dynamics(robot, q, dq, ddq, friction, 0.2)
        assert np.all(res.friction_torque == 0.0)
        assert np.array_equal(res.tau, R.inverse_dynamics(robot, q, dq, ddq, None, 0.2).tau)


def test_a_joint_at_rest_has_no_coulomb_friction():
    q, _ = R.initial_state(SKEW, SKEW.centroid)
    for friction in ("coulomb", "coulomb_consistent", "stribeck"):
        d = R.solve_dynamics(SKEW, q, np.zeros(12), [0.2, 0.1, -0.3], friction)
        assert np.all(d.friction_torque == 0.0), friction


# --------------------------------------------------------------------------- inverse dynamics: what it refuses
def _fast_and_slow_motion():
    """Two assembled samples of the default robot: at rest (b = 0) and moving at 2 m/s (|b| ~ 50 m/s^2)."""
    q = R.inverse_kinematics(ROBOT, [ROBOT.centroid, ROBOT.centroid + [0.03, -0.02]])
    dq, ddq = R.joint_rates(ROBOT, q, [[0.0, 0.0], [2.0, -1.0]], [[0.0, 0.0], [0.5, 0.3]])
    return q, dq, ddq


def test_inverse_dynamics_refuses_each_kind_of_violation_at_its_sample():
    q, dq, ddq = _fast_and_slow_motion()
    R.inverse_dynamics(ROBOT, q, dq, ddq)
    bad_q, bad_dq, bad_ddq = q.copy(), dq.copy(), ddq.copy()
    bad_q[1, 0] += 1e-4  # a base point moved: position residual only in sample 1
    with pytest.raises(ValueError, match=names("violate", "constraints", "sample 1", "residual 1.00e-04,")):
        R.inverse_dynamics(ROBOT, bad_q, dq, ddq)
    bad_dq[1, 1] += 1e-4  # velocity residual only
    with pytest.raises(ValueError, match=r"at sample 1 .*residual \d\.\d\de-1\d, 1\.00e-04, "):
        R.inverse_dynamics(ROBOT, q, bad_dq, ddq)
    bad_ddq[0, 0] += 1.5e-6  # at rest: b = 0, the acceleration tolerance is ASSEMBLY_TOL itself
    with pytest.raises(ValueError, match=names("sample 0", "1.50e-06 > 1e-06")):
        R.inverse_dynamics(ROBOT, q, dq, bad_ddq)


def test_the_acceleration_tolerance_is_relative_to_the_sample_own_bias():
    """The acceleration residual is measured against max(1, |b|) of the sample itself: 1e-5 m/s^2 is a
    violation at rest but within tolerance at 2 m/s, where |b| is tens of m/s^2."""
    q, dq, ddq = _fast_and_slow_motion()
    b = np.abs(R.closure_constraints(ROBOT, q[1], dq[1])[3]).max()
    assert b > 20.0
    fast = ddq.copy()
    fast[1, 0] += 1e-5
    R.inverse_dynamics(ROBOT, q, dq, fast)  # accepted: 1e-5 < 1e-6 * |b|
    R.inverse_dynamics(ROBOT, q[1], dq[1], fast[1])
    slow = ddq.copy()
    slow[0, 0] += 1e-5
    with pytest.raises(ValueError, match="at sample 0"):
        R.inverse_dynamics(ROBOT, q, dq, slow)


def _collinear_passive_links():
    """An assembled configuration whose three passive links lie on one line (the end-effector can move across it
    with the motors locked): the torques cannot balance a force across the line. Elbows of chains 1 and 2 at the
    midpoint P1 of A_1 A_2, chain 3's elbow P2 on A_3's circle 2 l from P1, the end-effector midway."""
    l = ROBOT.link_length
    A = ROBOT.base
    P1 = 0.5 * (A[0] + A[1])
    d = np.linalg.norm(A[2] - P1)
    # P2 = A_3 + l (cos t, sin t) with |P2 - P1| = 2 l: law of cosines in the triangle P1, A_3, P2
    t0 = np.arctan2(*(P1 - A[2])[::-1])
    t = t0 + np.arccos((d * d + l * l - 4 * l * l) / (2 * d * l))
    P2 = A[2] + l * np.array([np.cos(t), np.sin(t)])
    E = 0.5 * (P1 + P2)
    q = np.zeros(12)
    for i, P in enumerate((P1, P1, P2)):
        a = np.arctan2(*(P - A[i])[::-1])
        q[4 * i: 4 * i + 4] = [*A[i], a, np.arctan2(*(E - P)[::-1]) - a]
    assert np.abs(R.tips(ROBOT, q) - E).max() < 1e-12
    return q


def test_inverse_dynamics_refuses_the_forward_singularity_at_its_sample():
    qs = _collinear_passive_links()
    q = np.stack([R.inverse_kinematics(ROBOT, ROBOT.centroid), qs])
    with pytest.raises(SingularityError, match=names("singular", "sample 1", "torques and reactions",
                                                     "not determined")):
        R.inverse_dynamics(ROBOT, q, np.zeros(12), np.zeros(12))
    # the forward dynamics is determined there (the mechanism moves freely across the line)
    ddq, _ = R.forward_dynamics(ROBOT, qs, np.zeros(12), [0.1, 0.2, 0.3])
    assert np.all(np.isfinite(ddq))


def test_inverse_dynamics_names_the_sample_without_a_preload_direction():
    q = singular_configuration()
    qq = np.stack([R.inverse_kinematics(ROBOT, ROBOT.centroid)] * 2 + [q])
    with pytest.raises(SingularityError, match=names("singular", "sample 2")):
        R.inverse_dynamics(ROBOT, qq, np.zeros(12), np.zeros(12))


# --------------------------------------------------------------------------- the preload direction
def test_preload_direction_sign_and_batch_on_random_configurations():
    rng = np.random.default_rng(17)
    p = SKEW.centroid + rng.uniform(-0.1, 0.1, (40, 2))
    qs = np.stack([R.inverse_kinematics(SKEW, pi, tuple(rng.choice([-1, 1], 3))) for pi in p])
    n = R.preload_direction(SKEW, qs)
    s = n.sum(axis=-1)
    assert np.all(s > 0) and np.any(s < 1)  # the sign rule, on a sample where sum(n) < 1 occurs
    assert np.abs(np.linalg.norm(n, axis=-1) - 1).max() < 1e-14
    for j in range(len(qs)):  # a batch equals its samples
        assert np.abs(R.preload_direction(SKEW, qs[j]) - n[j]).max() < 1e-15
    # n spans the null space of J_a^T
    assert np.abs(np.einsum("nki,nk->ni", R.actuation_jacobian(SKEW, qs), n)).max() < 1e-12
    res = R.inverse_dynamics(SKEW, qs, np.zeros(12), np.zeros(12))
    assert np.abs(res.null_direction - n).max() < 1e-12


# --------------------------------------------------------------------------- defaults, units and chain numbers
def test_defaults_carry_no_preload():
    q, dq, ddq = _skew_motion(5)
    res = R.inverse_dynamics(SKEW, q, dq, ddq)
    assert np.abs(np.einsum("ij,ij->i", res.tau, res.null_direction)).max() < 1e-12
    assert np.abs(R.minimum_norm_torques(SKEW, q, dq, ddq) - res.tau).max() < 1e-12
    tr = R.reference_circle(SKEW, np.linspace(0.0, 1.7, 5), radius=0.04, period=1.3, center=SKEW.centroid + [0.01, -0.02])
    task = R.task_inverse_dynamics(SKEW, tr, elbows=(1, -1, 1))
    assert np.abs(task.tau - res.tau).max() < 1e-12


@pytest.mark.parametrize("call, message", [
    (lambda: R.inverse_dynamics(ROBOT, *R.reference_motion(ROBOT, [0.0]), preload=np.nan), r"preload .* N m"),
    (lambda: R.minimum_norm_torques(ROBOT, *R.reference_motion(ROBOT, [0.0]), preload=np.inf), r"preload .* N m"),
    (lambda: R.task_inverse_dynamics(ROBOT, R.reference_circle(ROBOT, [0.0]), preload="x"), r"preload .* N m"),
    (lambda: R.reference_circle(ROBOT, [0.0], radius=-1.0), r"radius must be a number >= 0 m"),
    (lambda: R.reference_circle(ROBOT, [0.0], period=0.0), r"period must be a number > 0 s"),
])
def test_bad_values_are_refused_with_their_unit(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_singular_chains_are_named_by_their_number():
    l = ROBOT.link_length
    A1, A2, A3 = ROBOT.base
    u = np.array([np.cos(np.radians(150.0)), np.sin(np.radians(150.0))])
    q = R.inverse_kinematics(ROBOT, A2 + 2 * l * u)  # chain 2 stretched (b = 0 after the clip)
    assert q[7] == 0.0
    with pytest.raises(SingularityError, match=names("chain 2", "stretched or folded")):
        R.joint_rates(ROBOT, q, [0.1, 0.0])
    ok = R.inverse_kinematics(ROBOT, ROBOT.centroid)
    w = np.array([np.cos(np.radians(-90.0)), np.sin(np.radians(-90.0))])
    q3 = R.inverse_kinematics(ROBOT, A3 + 2 * l * w)  # chain 3 stretched, in the second sample of a batch
    with pytest.raises(SingularityError, match=names("chain 3", "stretched or folded")):
        R.joint_rates(ROBOT, np.stack([ok, q3]), [0.1, 0.0])
    with pytest.raises(SingularityError, match=names("chain 2", "folded")):
        R.inverse_kinematics(ROBOT, A2)
    # the folded-chain threshold is CHAIN_SINGULAR_TOL * l (2.5e-10 m here): 1e-9 m from A_2 is a valid target
    q = R.inverse_kinematics(ROBOT, A2 + [0.0, 1e-9])
    assert abs(abs(q[7]) - np.pi) < 1e-7


def test_a_target_a_rounding_error_beyond_the_reach_is_the_stretched_chain():
    l = ROBOT.link_length
    u = np.array([np.cos(np.radians(150.0)), np.sin(np.radians(150.0))])
    p = ROBOT.base[1] + 2 * l * (1 + 5e-13) * u
    q = R.inverse_kinematics(ROBOT, p)
    assert np.all(np.isfinite(q)) and q[7] == 0.0
    with pytest.raises(UnreachableError, match=names("exceeds", "2 * link_length", "0.5 m")):
        R.inverse_kinematics(ROBOT, ROBOT.base[1] + 2 * l * (1 + 1e-9) * u)


# --------------------------------------------------------------------------- a heavy robot (scaled units)
@pytest.mark.parametrize("method", R.METHODS)
def test_a_heavy_robot_equals_the_independent_six_coordinate_model(method):
    for q, dq, tau in skew_states(8, n=4, robot=HEAVY):
        tau = 1e6 * tau
        ddq6, F6 = six_coordinate_dynamics(HEAVY, q, dq, tau)
        d = R.solve_dynamics(HEAVY, q, dq, tau, method=method)
        assert np.abs(d.ddq - ddq6).max() < ROUTE_TOL * np.abs(ddq6).max(), method
        assert np.abs(d.reactions - F6).max() < ROUTE_TOL * np.abs(F6).max(), method
        # the same motion as the light robot under 1/1000 of the torques
        light = R.solve_dynamics(SKEW, q, dq, 1e-6 * tau, method=method)
        assert np.abs(d.ddq - light.ddq).max() < ROUTE_TOL * np.abs(light.ddq).max(), method


# --------------------------------------------------------------------------- the rank test itself
_D = importlib.import_module("robolib.redundant.dynamics")


@pytest.mark.parametrize("w, singular", [
    ([1e-3, 0.5, 0.7, 1.0], False),
    ([2e-11, 0.5, 0.7, 1.0], True),       # ratio 2e-11
    ([0.0, 0.5, 0.7, 1.0], True),
    ([2e-13, 1e-3, 1e-3, 1e-3], False),   # ratio 2e-10: a scale far from 1 (not an absolute threshold)
    ([5e-14, 1e-3, 1e-3, 1e-3], True),    # ratio 5e-11
    ([1e-11, 1e-2, 1e-2, 1.0], True),     # the ratio to the largest eigenvalue, not to the second
    ([1e-9, 1e-9, 1e-9, 1.0], False),     # ratio 1e-9 with a repeated small eigenvalue
])
def test_the_rank_test_compares_the_extreme_eigenvalues(w, singular):
    w = np.array(w)
    if singular:
        with pytest.raises(SingularityError, match=names("eigenvalue ratio", "K", f"{w[0] / w[-1]:.2e}", "<= 1e-10")):
            _D._refuse_rank_deficient(w, "K")
    else:
        _D._refuse_rank_deficient(w, "K")


def _diagonal_closure(w):
    """The closure matrix ``[[A, G1], [G1, C]]`` with G1 = 0: eigenvalues ``w``, detA = w0 w1, detS = w2 w3."""
    return (w[0], 0.0, w[1]), (0.0, 0.0, 0.0), (w[2], 0.0, w[3])


@pytest.mark.parametrize("detA, detS", [(0.0, 0.5), (-1e-30, 0.5), (0.5, 0.0), (0.5, -1e-30), (-1.0, -1.0)])
def test_a_non_positive_determinant_is_refused_even_with_regular_eigenvalues(detA, detS):
    A, G1, C = _diagonal_closure([0.2, 0.3, 0.4, 0.5])
    with pytest.raises(SingularityError, match="4x4 closure matrix"):
        _D._check_closure_regular(A, G1, C, detA, detS)


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 0.9, 40.0])
def test_a_regular_closure_matrix_passes_at_any_scale(scale):
    w = scale * np.array([0.2, 0.3, 0.4, 0.5])
    A, G1, C = _diagonal_closure(w)
    _D._check_closure_regular(A, G1, C, w[0] * w[1], w[2] * w[3])
    A, G1, C = _diagonal_closure(scale * np.array([1e-12, 0.3, 0.4, 0.5]))
    with pytest.raises(SingularityError, match=names("4x4 closure matrix", "2.00e-12")):
        _D._check_closure_regular(A, G1, C, scale * scale * 0.3e-12, scale * scale * 0.2)


def test_the_rank_test_of_the_full_system_reports_its_ratio(monkeypatch):
    """The multiplier routes test A M^-1 A^T: at the singular configuration its printed ratio is the smallest over
    the largest eigenvalue of that matrix (computed here from the public constraint Jacobians and mass matrix)."""
    q = singular_configuration()
    with pytest.raises(SingularityError, match=names("ratio", "A M^-1 A^T", "<= 1e-10")) as info:
        R.solve_dynamics(ROBOT, q, np.zeros(12), np.zeros(3), method="multipliers")
    shown = float(re.search(r"A M\^-1 A\^T = (\S+) <=", str(info.value)).group(1))
    A = np.vstack([R.closure_constraints(ROBOT, q, np.zeros(12))[2], R.base_constraints(ROBOT, q, np.zeros(12))[2]])
    w = np.linalg.eigvalsh(A @ np.linalg.solve(R.mass_matrix(ROBOT, q), A.T))
    assert abs(shown) <= 1e-10 and w[1] / w[-1] > 1e-6  # one eigenvalue is (numerically) zero, the next is not
    assert abs(shown) <= 10 * abs(w[0]) / w[-1] + 1e-15


def test_the_preload_singularity_reports_the_extreme_singular_values():
    qs = _collinear_passive_links()
    with pytest.raises(SingularityError, match=r"singular values (\S+) \.\. (\S+)\)") as info:
        R.inverse_dynamics(ROBOT, qs[None], np.zeros((1, 12)), np.zeros((1, 12)))
    small, large = map(float, re.search(r"singular values (\S+) \.\. (\S+)\)", str(info.value)).groups())
    z = np.zeros(12)
    A = np.vstack([R.closure_constraints(ROBOT, qs, z)[2], R.base_constraints(ROBOT, qs, z)[2]])
    W = np.zeros((12, 13))
    W[ACTIVE, np.arange(3)] = 1.0
    W[:, 3:] = A.T
    sv = np.linalg.svd(W, compute_uv=False)
    assert sv[1] > 1e-3 * sv[0] and sv[-2] > 1e-6 * sv[0]  # one singular value vanishes, the others do not
    assert small <= 1e-10 * large
    assert large == pytest.approx(sv[0], rel=1e-2)


def test_the_reference_circle_takes_one_axis_of_times():
    tr = R.reference_circle(SKEW, np.linspace(0.0, 1.0, 5), radius=0.03, period=0.8)
    assert tr.p.shape == tr.v.shape == tr.a.shape == (5, 2)
    assert np.allclose(np.linalg.norm(tr.p - SKEW.centroid, axis=-1), 0.03)
    assert np.allclose(tr.a, -(2 * np.pi / 0.8) ** 2 * (tr.p - SKEW.centroid))
    assert R.reference_circle(SKEW, 0.2).p.shape == (1, 2)
    with pytest.raises(ParameterError, match=names("t", "1-D array", "(N,)", "s", "(2, 3)")):
        R.reference_circle(SKEW, np.zeros((2, 3)))
