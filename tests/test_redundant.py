"""Tests of robolib.redundant (the Verification list of the Models page) and its sympy derivation."""

import dataclasses

import numpy as np
import pytest
import yaml

import robolib
from robolib import (
    ConvergenceError,
    ParameterError,
    ParameterFileError,
    RobolibError,
    SingularityError,
    UnreachableError,
)
from robolib import constraints as C
from robolib import friction as fr
from robolib import redundant as R

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


# --------------------------------------------------------------------------- parameters
def test_default_parameter_file():
    path = robolib.DATA_DIR / "redundant" / "default.yaml"
    raw = yaml.safe_load(path.read_text())
    assert set(raw) == {"base", "link_length", "active", "passive", "end_effector_mass", "friction"}
    assert set(raw["active"]) == set(raw["passive"]) == {"mass", "com", "inertia"}
    assert set(raw["friction"]) == {"mu", "journal_radius", "coulomb_torque", "static_torque",
                                    "stribeck_velocity", "viscous", "smooth_eps"}
    text = path.read_text()
    for unit in ("m", "kg", "kg m^2", "N m", "rad/s", "N m s/rad"):
        assert f"# {unit}" in text or f"{unit}," in text or f" {unit} " in text
    l = ROBOT.link_length
    sides = [np.linalg.norm(ROBOT.base[i] - ROBOT.base[j]) for i, j in ((0, 1), (1, 2), (2, 0))]
    assert np.allclose(sides, 0.5)
    assert np.isclose(ROBOT.active_inertia, ROBOT.active_mass * l**2 / 12)
    assert np.isclose(ROBOT.passive_inertia, ROBOT.passive_mass * l**2 / 12)
    assert ROBOT.active_com == ROBOT.passive_com == l / 2


def _write(tmp_path, mutate):
    src = robolib.DATA_DIR / "redundant" / "default.yaml"
    data = yaml.safe_load(src.read_text())
    mutate(data)
    p = tmp_path / "bad.yaml"
    p.write_text(yaml.safe_dump(data))
    return p


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d["active"].__setitem__("mass", -0.5), "active.mass"),
    (lambda d: d.__setitem__("link_length", -0.25), "link_length"),
    (lambda d: d["friction"].__setitem__("mu", -0.1), "friction.mu"),
    (lambda d: d.__setitem__("gravity", 9.81), "gravity"),
    (lambda d: d["passive"].pop("inertia"), "passive.inertia"),
    (lambda d: d.__setitem__("base", [[0, 0], [1, 0]]), "base"),
    (lambda d: d["active"].__setitem__("com", 0.3), "active_com"),
])
def test_bad_parameter_file(tmp_path, mutate, field):
    with pytest.raises(ParameterFileError, match=field.replace(".", r"\.")):
        R.load(_write(tmp_path, mutate))


@pytest.mark.parametrize("field, value", [("active_mass", -1.0), ("link_length", 0.0), ("passive_com", 0.3),
                                          ("end_effector_mass", -0.1), ("smooth_eps", 0.0), ("mu", float("nan"))])
def test_bad_robot_parameters(field, value):
    with pytest.raises(ParameterError, match=field):
        dataclasses.replace(ROBOT, **{field: value})


# --------------------------------------------------------------------------- subsystem model
def test_subsystem_matrices_christoffel_and_fd():
    """M_i symmetric PD, dM_i/dt - 2 C_i skew (finite differences), C_i dq_i = bias forces."""
    rng = np.random.default_rng(1)
    for chain in range(3):
        qi = rng.standard_normal(4)
        dqi = rng.standard_normal(4)
        M = R.subsystem_mass_matrix(ROBOT, chain, qi)
        assert np.allclose(M, M.T) and np.all(np.linalg.eigvalsh(M) > 0)
        h = 1e-6
        Mdot = (R.subsystem_mass_matrix(ROBOT, chain, qi + h * dqi) - R.subsystem_mass_matrix(ROBOT, chain, qi - h * dqi)) / (2 * h)
        Cm = R.subsystem_coriolis_matrix(ROBOT, chain, qi, dqi)
        N = Mdot - 2 * Cm
        assert np.abs(N + N.T).max() < 1e-8
        q = np.zeros(12)
        dq = np.zeros(12)
        q[4 * chain: 4 * chain + 4] = qi
        dq[4 * chain: 4 * chain + 4] = dqi
        assert np.allclose(R.bias_forces(ROBOT, q, dq)[4 * chain: 4 * chain + 4], Cm @ dqi, atol=1e-14)
        # kinetic energy 1/2 dq^T M dq equals the sum of the link energies computed from point velocities
        T = R.kinetic_energy(ROBOT, q, dq)
        assert np.isclose(T, 0.5 * dqi @ M @ dqi)


@pytest.mark.slow
def test_sympy_derivation_equals_numeric_kernels():
    from robolib.redundant import symbolic as S

    rng = np.random.default_rng(11)
    # Lagrange-Euler with the derived M_i, C_i reproduces d/dt dT/d(dq) - dT/dq (numerically, random points)
    for ee in (False, True):
        res = S.lagrange_euler_residual(ee)
        syms = list(S.Q) + list(S.DQ) + list(S.DDQ)
        f = S.sp.lambdify((syms, tuple(S.parameter_values(ROBOT).keys())), res, "numpy")
        for _ in range(3):
            r = np.array(f(rng.standard_normal(12), tuple(S.parameter_values(ROBOT, 0 if ee else 1).values())), dtype=float)
            assert np.abs(r).max() < 1e-13
    for chain in range(3):
        for _ in range(3):
            qi, dqi = rng.standard_normal(4), rng.standard_normal(4)
            Ms, Cs = S.numeric_subsystem(ROBOT, chain, qi, dqi)
            assert np.abs(Ms - R.subsystem_mass_matrix(ROBOT, chain, qi)).max() < 1e-14
            assert np.abs(Cs - R.subsystem_coriolis_matrix(ROBOT, chain, qi, dqi)).max() < 1e-14
    # the tidied (display) forms the derivation notebook prints are the same functions
    syms = (tuple(S.Q), tuple(S.DQ), tuple(S.parameter_values(ROBOT).keys()))
    pv = tuple(S.parameter_values(ROBOT, 0).values())
    for name in ("mass_matrix", "coriolis_matrix"):
        raw = S.sp.lambdify(syms, getattr(S, name)(True), "numpy")
        tidy = S.sp.lambdify(syms, getattr(S, name)(True, simplify=True), "numpy")
        for _ in range(3):
            qi, dqi = rng.standard_normal(4), rng.standard_normal(4)
            assert np.abs(np.array(raw(qi, dqi, pv), dtype=float) - np.array(tidy(qi, dqi, pv), dtype=float)).max() < 1e-14
    # the two constraint layers in second-order form equal the numeric A1, b1, A2, b2
    A1, b1, A2, b2, qs, dqs = S.constraint_layers()
    f = S.sp.lambdify((qs, dqs, S.l), [A1, b1, A2, b2], "numpy")
    for q, dq, _ in random_states(12, n=3):
        A1n, b1n, A2n, b2n = (np.array(x, dtype=float) for x in f(q, dq, ROBOT.link_length))
        _, _, A1r, b1r = R.closure_constraints(ROBOT, q, dq)
        _, _, A2r, b2r = R.base_constraints(ROBOT, q, dq)
        assert np.abs(A1n - A1r).max() < 1e-14 and np.abs(b1n.ravel() - b1r).max() < 1e-13
        assert np.abs(A2n - A2r).max() == 0 and np.abs(b2n.ravel() - b2r).max() == 0


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
    with pytest.raises(ParameterError, match="q must have shape"):
        R.forward_dynamics(ROBOT, q[:6], dq, tau)
    with pytest.raises(ParameterError, match="dq must be finite"):
        R.forward_dynamics(ROBOT, q, dq * np.nan, tau)
    with pytest.raises(ParameterError, match="tau must have shape"):
        R.forward_dynamics(ROBOT, q, dq, np.zeros(2))
    with pytest.raises(ParameterError, match="friction must be one of"):
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
    with pytest.raises(SingularityError, match="configuration q is singular"):
        R.forward_dynamics(ROBOT, q, np.zeros(12), np.zeros(3), method=method)
    with pytest.raises(SingularityError, match="singular"):
        R.joint_rates(ROBOT, q, [0.0, 0.0])
    with pytest.raises(SingularityError, match="configuration q is singular"):
        R.inverse_dynamics(ROBOT, q, np.zeros(12), np.zeros(12))
    # a regular configuration nearby is fine
    q_ok, dq_ok = R.initial_state(ROBOT, ROBOT.base[0] + [0.1, 0.08])
    R.forward_dynamics(ROBOT, q_ok, dq_ok, np.zeros(3), method=method)


def test_unreachable_and_folded_targets():
    with pytest.raises(UnreachableError, match=r"target p = \[2\.0, 2\.0\].*chain 1"):
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
    with pytest.raises(ParameterError, match="violate the constraints"):
        R.inverse_dynamics(ROBOT, q + 1e-3, dq, ddq)
    with pytest.raises(ParameterError, match="violate the constraints"):
        R.inverse_dynamics(ROBOT, q, dq, ddq + 1.0)


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


def test_symbolic_preload_direction_matches_numeric():
    import sympy as sp

    from robolib.redundant import symbolic as S

    n_sym = S.preload_direction()
    f = sp.lambdify((S.A_ANGLES, S.B_ANGLES), n_sym, "numpy")
    q, _, _ = R.reference_motion(ROBOT, np.linspace(0, 2, 7))
    for qk in q:
        v = np.asarray(f(qk[ACTIVE], qk[[3, 7, 11]]), dtype=float).ravel()
        v = v / np.linalg.norm(v) * np.sign(v.sum())
        assert np.allclose(v, R.preload_direction(ROBOT, qk), atol=1e-12)


# --------------------------------------------------------------------------- friction studies
def _stribeck_rms(robot, Tc, q, dq, ddq, ratio=1.5, ws=0.1, bv=0.0):
    rb = dataclasses.replace(robot, coulomb_torque=Tc, static_torque=ratio * Tc, stribeck_velocity=ws, viscous=bv)
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
    with pytest.raises(ParameterError, match="viscous term alone"):
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
    with pytest.raises(ParameterError, match="parameter must be"):
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
