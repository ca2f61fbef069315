"""Tests of robolib.stewart against independent routes (the verification list of the Models page of the book).

* parameter files: schema errors name the field;
* IK <-> FK (Newton) round trip; J and leg angular velocity/acceleration vs
  finite differences of the exact motion;
* U-joint Newton-Euler vs pinocchio (constrained multibody, loops closed by point
  constraints) on random states of both parameter sets, and the measured
  virtual-work deviation from it;
* virtual work == Newton-Euler with point-mass legs; M symmetric positive
  definite and V^T M V / 2 == kinetic energy; power balance;
* closed loop: exact-model computed-torque error dynamics, NE vs VW controllers;
* virtual-work forward dynamics (one-pass mass matrix vs wrench columns vs kinetic
  energy), each model as the whole simulation, the plain-numpy "as written"
  derivations and closed loop vs the compiled kernels, the tracking metrics on
  closed forms;
* stroke and joint-angle limits: 5-m legs refused everywhere, boundary values
  (exactly at a limit is allowed), masks, a simulation that leaves its stroke.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml

from robolib import ConvergenceError, ParameterError, ParameterFileError, SingularityError, UnreachableError, stewart
from robolib.core.params import resolve_data_path
from robolib.core.rotations import matrix_rpy, rpy_matrix, rpy_rates_to_twist, skew

SETS = ("tsai2000", "hydraulic")
#: Pose perturbation (m, m, m, rad, rad, rad) around home for random states.
SPREAD = np.array([0.1, 0.1, 0.1, 0.15, 0.15, 0.15])


@pytest.fixture(scope="module", params=SETS)
def model(request):
    return stewart.load(f"stewart/{request.param}.yaml")


def random_states(m, n, seed):
    rng = np.random.default_rng(seed)
    X = m.home_pose + rng.uniform(-1, 1, (n, 6)) * SPREAD
    V = rng.normal(size=(n, 6)) * [0.5, 0.5, 0.5, 1.0, 1.0, 1.0]
    dV = rng.normal(size=(n, 6)) * [3.0, 3.0, 3.0, 5.0, 5.0, 5.0]
    return X, V, dV


def rel_err(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def raw(name):
    return yaml.safe_load(resolve_data_path(f"stewart/{name}.yaml").read_text())


def moved_pose(X, V, eps):
    """Pose after moving for time eps with constant twist V (exact rigid motion, base frame)."""
    w = V[3:]
    th = np.linalg.norm(w) * eps
    K = skew(w / np.linalg.norm(w))
    dR = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
    R = dR @ rpy_matrix(X[3:])
    return np.concatenate((X[:3] + V[:3] * eps, matrix_rpy(R)))


# --------------------------------------------------------------------------- parameter files
def test_load_both_sets():
    for name in SETS:
        m = stewart.load(f"stewart/{name}.yaml")
        assert m.name == name and m.ujoint_axes_auto
        assert np.allclose(np.linalg.norm(m.ujoint_axes, axis=1), 1.0)
        assert np.allclose(m.ujoint_axes[:, 2], 0.0)  # auto: e_z x s_i0 is horizontal
        assert m.trajectory is not None and m.controller is not None
    h = stewart.load("stewart/hydraulic.yaml")
    assert np.linalg.norm(h.cylinder.com[:2]) > 0, "hydraulic set must have an off-axis cylinder CoM"
    assert np.abs(h.cylinder.inertia - np.diag(np.diag(h.cylinder.inertia))).max() > 0
    assert h.ujoint_viscous > 0 and h.sjoint_viscous > 0 and h.prismatic_viscous > 0


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.update(colour="red"), "colour"),
    (lambda d: d["platform"].update(volume=1.0), "platform.volume"),
    (lambda d: d.pop("home_pose"), "home_pose"),
    (lambda d: d["friction"].pop("sjoint_viscous"), "friction.sjoint_viscous"),
    (lambda d: d.update(base_joints=[[0, 0, 0]] * 5), "base_joints"),
    (lambda d: d["cylinder"].update(mass=-0.1), "cylinder.mass"),
    (lambda d: d.update(ujoint_axes="manual"), "ujoint_axes"),
    (lambda d: d["rod"].update(inertia=[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), "rod.inertia"),
    (lambda d: d["platform"].update(inertia=[[1, 0, 0], [0, -1, 0], [0, 0, 1]]), "platform.inertia"),
    (lambda d: d["trajectory"].pop("phase"), "trajectory.phase"),
    (lambda d: d["controller"].update(kq=1.0), "controller.kq"),
])
def test_load_rejects_bad_fields(mutate, field):
    d = copy.deepcopy(raw("tsai2000"))
    mutate(d)
    with pytest.raises(ParameterFileError, match=f"'{field}'"):
        stewart.from_dict(d, source="bad.yaml")


def test_explicit_ujoint_axes_equal_auto():
    m = stewart.load("stewart/hydraulic.yaml")
    d = raw("hydraulic")
    d["ujoint_axes"] = m.ujoint_axes.tolist()
    m2 = stewart.from_dict(d)
    assert not m2.ujoint_axes_auto
    X, V, dV = random_states(m, 3, 7)
    assert np.array_equal(stewart.inverse_dynamics(m, X, V, dV), stewart.inverse_dynamics(m2, X, V, dV))
    d.pop("trajectory")
    d.pop("controller")
    assert stewart.from_dict(d).trajectory is None  # simulation blocks are optional as a whole


def test_missing_file():
    with pytest.raises(ParameterFileError, match="nowhere.yaml"):
        stewart.load("stewart/nowhere.yaml")


# --------------------------------------------------------------------------- kinematics
def test_rpy_rates_to_twist_vs_finite_differences():
    rng = np.random.default_rng(3)
    rpy, drpy, ddrpy = rng.normal(size=3) * 0.5, rng.normal(size=3), rng.normal(size=3)
    h = 1e-5
    ang = lambda t: rpy + drpy * t + 0.5 * ddrpy * t ** 2  # noqa: E731
    w_of = lambda t: rpy_rates_to_twist(ang(t), drpy + ddrpy * t)  # noqa: E731
    dR = (rpy_matrix(ang(h)) - rpy_matrix(ang(-h))) / (2 * h)
    W = dR @ rpy_matrix(ang(0)).T
    w_fd = np.array([W[2, 1], W[0, 2], W[1, 0]])
    w, al = rpy_rates_to_twist(rpy, drpy, ddrpy)
    assert np.abs(w - w_fd).max() < 1e-9
    assert np.abs(al - (w_of(h) - w_of(-h)) / (2 * h)).max() < 1e-8


def test_ik_fk_round_trip(model):
    X, _, _ = random_states(model, 20, 11)
    l = stewart.inverse_kinematics(model, X)
    guess = X + np.random.default_rng(12).uniform(-1, 1, X.shape) * 0.02
    X_fk = stewart.forward_kinematics(model, l, guess=guess)
    assert np.abs(X_fk - X).max() < 1e-10
    assert np.abs(stewart.inverse_kinematics(model, X_fk) - l).max() <= stewart.kinematics.FK_TOL
    # from home as the only guess, for poses near home
    X1 = X[0]
    assert np.abs(stewart.forward_kinematics(model, l[0]) - X1).max() < 1e-10


def test_fk_reports_non_convergence():
    m = stewart.load("stewart/tsai2000.yaml")
    with pytest.raises(ConvergenceError, match="forward_kinematics"):
        stewart.forward_kinematics(m, [1.0, 1.0, 1.0, 1.0, 1.0, 100.0])
    with pytest.raises(ConvergenceError, match="did not converge in 2 iterations"):
        stewart.forward_kinematics(m, stewart.inverse_kinematics(m, m.home_pose + 0.05), max_iter=2)


def test_jacobian_vs_finite_differences(model):
    X, V, _ = random_states(model, 5, 21)
    h = 1e-6
    for Xk, Vk in zip(X, V):
        fd = (stewart.inverse_kinematics(model, moved_pose(Xk, Vk, h))
              - stewart.inverse_kinematics(model, moved_pose(Xk, Vk, -h))) / (2 * h)
        assert np.abs(stewart.jacobian(model, Xk) @ Vk - fd).max() < 1e-8


def test_leg_angular_motion_vs_finite_differences(model):
    """omega from dF/dt F^T of the leg frames; alpha, ddl from differences of omega, dl (trajectory)."""
    tr = stewart.trajectory_from_model(model)
    tr = stewart.Trajectory(tr.home, tr.amplitude * 0.5 + [0, 0, 0, 0.1, 0.1, 0.1], tr.frequency, tr.phase + 0.3)
    h = 1e-5
    for t in (0.3, 1.1, 2.7):
        ts = np.array([t - h, t, t + h])
        X, V, dV = tr(ts)
        F = stewart.leg_frames(model, X)
        mo = stewart.leg_motion(model, X, V, dV)
        Wm = np.einsum("kij,klj->kil", (F[2] - F[0]) / (2 * h), F[1])
        w_fd = np.stack((Wm[:, 2, 1], Wm[:, 0, 2], Wm[:, 1, 0]), axis=-1)
        assert np.abs(Wm + np.swapaxes(Wm, -1, -2)).max() < 1e-8  # c_i really is fixed in a rigid leg frame
        assert np.abs(mo.omega[1] - w_fd).max() < 1e-8
        assert np.abs(mo.alpha[1] - (mo.omega[2] - mo.omega[0]) / (2 * h)).max() < 1e-6
        assert np.abs(mo.ddl[1] - (mo.dl[2] - mo.dl[0]) / (2 * h)).max() < 1e-6
        g = stewart.leg_geometry(model, X[1])
        assert np.abs((mo.omega[1] * g.n).sum(-1)).max() < 1e-12  # U joint: no rotation about n_i
        assert np.abs(mo.spin[1]).max() > 1e-4  # the legs do spin on this trajectory


def test_conventions_of_u_axes_and_leg_frame(model):
    """auto: a_i = normalize(e_z x s_i0) at home, fixed; leg frame [c, s x c, s] with c = normalize(s x a)."""
    g0 = stewart.leg_geometry(model, model.home_pose)
    a_ref = np.cross([0.0, 0.0, 1.0], g0.s)
    a_ref /= np.linalg.norm(a_ref, axis=1, keepdims=True)
    assert np.abs(model.ujoint_axes - a_ref).max() < 1e-15
    X, _, _ = random_states(model, 3, 4)
    F = stewart.leg_frames(model, X)
    g = stewart.leg_geometry(model, X)
    c_ref = np.cross(g.s, model.ujoint_axes)
    c_ref /= np.linalg.norm(c_ref, axis=-1, keepdims=True)
    assert np.abs(F[..., 0] - c_ref).max() < 1e-15 and np.abs(F[..., 2] - g.s).max() < 1e-15
    assert np.abs(F[..., 1] - np.cross(g.s, c_ref)).max() < 1e-15
    assert np.abs(g.n - np.cross(model.ujoint_axes, c_ref)).max() < 1e-15
    assert np.allclose(np.linalg.det(F), 1.0)


def test_no_spin_kinematics_drops_spin(model):
    X, V, dV = random_states(model, 4, 5)
    mo = stewart.leg_motion(model, X, V, dV, spin=False)
    g = stewart.leg_geometry(model, X)
    assert np.abs((mo.omega * g.s).sum(-1)).max() < 1e-12
    assert np.abs((mo.alpha * g.s).sum(-1)).max() < 1e-12


# --------------------------------------------------------------------------- dynamics vs pinocchio
@pytest.fixture(scope="module")
def references():
    pytest.importorskip("pinocchio")
    from robolib.stewart.pinocchio_ref import PinocchioStewart

    return {name: PinocchioStewart(stewart.load(f"stewart/{name}.yaml")) for name in SETS}


def test_newton_euler_matches_pinocchio(model, references):
    ref = references[model.name]
    X, V, dV = random_states(model, 12, 31)
    f_ne = stewart.inverse_dynamics(model, X, V, dV)
    f_ref = np.array([ref.inverse_dynamics(*s) for s in zip(X, V, dV)])
    err = rel_err(f_ne, f_ref)
    print(f"\n{model.name}: NE vs pinocchio max relative error {err:.2e}")
    assert err < 1e-9
    # forward dynamics: my M, C V, G, F_f vs pinocchio's KKT system
    f = np.random.default_rng(32).normal(size=(3, 6)) * np.abs(f_ref).max()
    for k in range(3):
        a_mine = stewart.forward_dynamics(model, X[k], V[k], f[k])
        a_ref = ref.forward_dynamics(X[k], V[k], f[k])
        assert np.abs(a_mine - a_ref).max() < 1e-9 * np.abs(a_ref).max()
        # pinocchio's own closed-loop API: RigidConstraintModel(CONTACT_3D) + constraintDynamics
        a_pin = ref.forward_dynamics_constrained(X[k], V[k], f[k])
        assert np.abs(a_mine - a_pin).max() < 1e-9 * np.abs(a_pin).max()


def test_virtual_work_deviation_from_pinocchio(model, references):
    """Quantify (not assume) how far the no-spin virtual-work model is from the reference."""
    ref = references[model.name]
    X, V, dV = random_states(model, 12, 41)
    f_ref = np.array([ref.inverse_dynamics(*s) for s in zip(X, V, dV)])
    f_vw = stewart.inverse_dynamics(model, X, V, dV, method="virtual_work")
    rel = np.abs(f_vw - f_ref).max(axis=1) / np.abs(f_ref).max(axis=1)
    rest = np.zeros(6)
    X_off = X[0]  # away from home: with auto U axes n_i = s_i at home, so the models coincide there
    f0_ref = ref.inverse_dynamics(X_off, rest, rest)
    rest_rel = rel_err(stewart.inverse_dynamics(model, X_off, rest, rest, method="virtual_work"), f0_ref)
    home_rel = rel_err(stewart.inverse_dynamics(model, model.home_pose, rest, rest, method="virtual_work"),
                       ref.inverse_dynamics(model.home_pose, rest, rest))
    print(f"\n{model.name}: VW vs pinocchio relative force error over 12 random states: "
          f"median {np.median(rel):.2e}, max {rel.max():.2e}; at rest: at home {home_rel:.1e}, "
          f"off home {rest_rel:.2e}")
    assert rel.min() > 1e-7  # the models do differ (legs spin) ...
    assert rel.max() < 5e-2  # ... but VW is a close approximation
    assert home_rel < 1e-12
    if model.name == "tsai2000":
        assert rest_rel < 1e-12  # on-axis leg CoM: no-spin is exact at rest
    else:
        assert rest_rel > 1e-6  # off-axis cylinder CoM: no-spin is wrong even at rest


def test_virtual_work_equals_newton_euler_for_point_mass_legs(model):
    pm = stewart.point_mass_legs(model).with_(ujoint_viscous=0.0, sjoint_viscous=0.0)
    X, V, dV = random_states(model, 20, 51)
    f_ne = stewart.inverse_dynamics(pm, X, V, dV)
    f_vw = stewart.inverse_dynamics(pm, X, V, dV, method="virtual_work")
    assert rel_err(f_vw, f_ne) < 1e-12
    # while with the real legs they differ
    assert rel_err(stewart.inverse_dynamics(model, X, V, dV, method="virtual_work"),
                   stewart.inverse_dynamics(model, X, V, dV)) > 1e-7


def test_compiled_kernel_equals_numpy_route(model):
    """The compiled single-state kernel vs the numpy implementation vectorised over legs and batch."""
    X, V, dV = random_states(model, 10, 53)
    for spin, method in ((True, "newton_euler"), (False, "virtual_work")):
        assert rel_err(stewart.inverse_dynamics_numpy(model, X, V, dV, spin=spin),
                       stewart.inverse_dynamics(model, X, V, dV, method=method)) < 1e-12


def test_virtual_work_equals_no_spin_newton_euler(model):
    """Tsai's body-Jacobian form and the classical no-spin Newton-Euler are the same model."""
    X, V, dV = random_states(model, 10, 52)
    assert rel_err(stewart.inverse_dynamics(model, X, V, dV, method="virtual_work"),
                   stewart.inverse_dynamics(model, X, V, dV, method="newton_euler_nospin")) < 1e-12


# --------------------------------------------------------------------------- state-equation terms
@pytest.mark.parametrize("method", ["newton_euler", "virtual_work"])
def test_terms_mass_matrix_and_energy(model, method):
    X, V, dV = random_states(model, 8, 61)
    T = stewart.dynamics_terms(model, X, V, method=method)
    f = stewart.inverse_dynamics(model, X, V, dV, method=method)
    lhs = np.einsum("kij,kj->ki", T.M, dV) + T.CV + T.G + T.Ff
    assert np.abs(lhs - np.einsum("kji,kj->ki", T.J, f)).max() < 1e-10 * np.abs(lhs).max()
    assert np.abs(T.J - stewart.jacobian(model, X)).max() < 1e-14
    assert np.abs(T.M - np.swapaxes(T.M, -1, -2)).max() < 1e-12 * np.abs(T.M).max()
    assert np.linalg.eigvalsh(T.M).min() > 0
    ke = stewart.kinetic_energy(model, X, V, spin=(method == "newton_euler"))
    assert np.abs(0.5 * np.einsum("ki,kij,kj->k", V, T.M, V) - ke).max() < 1e-12 * ke.max()
    # structure: G independent of V, C V quadratic, F_f linear in V
    T2 = stewart.dynamics_terms(model, X, 2 * V, method=method)
    assert np.abs(T2.G - T.G).max() < 1e-12 * np.abs(T.G).max()
    assert np.abs(T2.CV - 4 * T.CV).max() < 1e-10 * np.abs(T2.CV).max()
    assert np.abs(T2.Ff - 2 * T.Ff).max() <= 1e-10 * max(np.abs(T2.Ff).max(), 1e-300)
    # forward dynamics inverts inverse dynamics
    assert np.abs(stewart.forward_dynamics(model, X, V, f, method=method) - dV).max() < 1e-9


def test_external_wrench(model):
    """A payload wrench F_e: forward dynamics inverts inverse dynamics, and a pure extra weight
    equals a heavier platform at rest."""
    X, V, dV = random_states(model, 4, 63)
    Fe = np.random.default_rng(64).normal(size=(4, 6)) * 10
    f = stewart.inverse_dynamics(model, X, V, dV, external=Fe)
    assert np.abs(stewart.forward_dynamics(model, X, V, f, external=Fe) - dV).max() < 1e-9
    dm = 2.0  # kg added at the platform CoM
    rho = np.einsum("kij,j->ki", stewart.leg_geometry(model, X).R, model.platform.com)
    wrench = np.concatenate((np.broadcast_to(dm * model.gravity, (4, 3)), np.cross(rho, dm * model.gravity)), axis=1)
    heavy = model.with_(platform=stewart.Body(model.platform.mass + dm, model.platform.com, model.platform.inertia))
    z = np.zeros(6)
    assert rel_err(stewart.inverse_dynamics(model, X, z, z, external=wrench),
                   stewart.inverse_dynamics(heavy, X, z, z)) < 1e-12


def test_one_pass_mass_matrix_equals_column_by_column(model):
    """The plant's one-pass M (forward dynamics) vs M from six unit-acceleration evaluations."""
    X, _, _ = random_states(model, 5, 65)
    for Xk in X:
        for spin, method in ((True, "newton_euler"), (False, "newton_euler_nospin")):
            M = np.empty((6, 6))
            assert stewart._kernels.ne_mass_matrix(model.packed, Xk.copy(), spin, M) == 0
            M_ref = stewart.dynamics_terms(model, Xk, np.zeros(6), method=method).M
            assert np.abs(M - M_ref).max() < 1e-13 * np.abs(M_ref).max()


def test_gravity_term_is_gradient_of_potential(model):
    X, _, _ = random_states(model, 3, 62)
    h = 1e-6
    for Xk in X:
        G = stewart.dynamics_terms(model, Xk, np.zeros(6)).G
        for j in range(6):
            e = np.zeros(6)
            e[j] = 1.0
            dU = (stewart.potential_energy(model, moved_pose(Xk, e, h))
                  - stewart.potential_energy(model, moved_pose(Xk, e, -h))) / (2 * h) if j >= 3 else \
                (stewart.potential_energy(model, Xk + h * e) - stewart.potential_energy(model, Xk - h * e)) / (2 * h)
            assert abs(G[j] - dU) < 1e-6 * np.abs(G).max()


def test_power_balance(model):
    """f . dl = dE/dt + dissipation along a trajectory (NE); the no-spin VW forces violate it."""
    tr = stewart.trajectory_from_model(model)
    h = 1e-4
    ts = np.array([0.4, 1.3, 2.2])
    for t in ts:
        X, V, dV = tr(np.array([t - h, t, t + h]))
        E = stewart.kinetic_energy(model, X, V) + stewart.potential_energy(model, X)
        dE = (E[2] - E[0]) / (2 * h)
        dl = stewart.jacobian(model, X[1]) @ V[1]
        P = stewart.inverse_dynamics(model, X[1], V[1], dV[1]) @ dl
        D = stewart.dissipation(model, X[1], V[1])
        scale = abs(P) + abs(D) + abs(dE)
        assert abs(P - dE - D) < 1e-6 * scale
        P_vw = stewart.inverse_dynamics(model, X[1], V[1], dV[1], method="virtual_work") @ dl
        assert abs(P_vw - dE - D) > 100 * abs(P - dE - D)


# --------------------------------------------------------------------------- API: batch and errors
def test_batch_shapes_match_single_calls():
    m = stewart.load("stewart/hydraulic.yaml")
    X, V, dV = random_states(m, 6, 71)
    Xb, Vb, dVb = X.reshape(2, 3, 6), V.reshape(2, 3, 6), dV.reshape(2, 3, 6)
    for method in ("newton_euler", "virtual_work"):
        fb = stewart.inverse_dynamics(m, Xb, Vb, dVb, method=method)
        assert fb.shape == (2, 3, 6)
        single = np.array([stewart.inverse_dynamics(m, *s, method=method) for s in zip(X, V, dV)])
        assert np.array_equal(fb.reshape(6, 6), single)
    assert stewart.inverse_dynamics(m, X, np.zeros(6), np.zeros(6)).shape == (6, 6)  # broadcasting
    assert stewart.dynamics_terms(m, Xb, Vb).M.shape == (2, 3, 6, 6)
    assert stewart.forward_dynamics(m, Xb, Vb, np.zeros(6)).shape == (2, 3, 6)


def test_bad_inputs_raise_named_errors():
    m = stewart.load("stewart/tsai2000.yaml")
    z = np.zeros(6)
    with pytest.raises(ParameterError, match="pose"):
        stewart.inverse_dynamics(m, np.zeros(5), z, z)
    with pytest.raises(ParameterError, match="accel"):
        stewart.inverse_dynamics(m, m.home_pose, z, [np.nan] * 6)
    with pytest.raises(ParameterError, match="method"):
        stewart.inverse_dynamics(m, m.home_pose, z, z, method="kane")
    with pytest.raises(ParameterError, match="model"):
        stewart.jacobian("tsai2000", m.home_pose)
    with pytest.raises(ParameterError, match="lengths"):
        stewart.forward_kinematics(m, [-1.0] * 6)
    # a leg through its U axis: S centre of leg 5 moved onto b_5 + a_5
    X = m.home_pose.copy()
    X[:3] = m.base_joints[4] + m.ujoint_axes[4] - m.platform_joints[4]
    with pytest.raises(SingularityError, match="U-joint singularity"):
        stewart.inverse_dynamics(m, X, z, z)
    with pytest.raises(SingularityError, match="U-joint singularity"):
        stewart.leg_motion(m, X, z)
    # a zero-length leg
    X[:3] = m.base_joints[0] - m.platform_joints[0]
    with pytest.raises(SingularityError, match="zero"):
        stewart.inverse_kinematics(m, X)


# --------------------------------------------------------------------------- control
needs_numba = pytest.mark.skipif(not stewart._kernels.HAVE_NUMBA,
                                 reason="numba not installed: the pure-Python simulation loop is too slow here")


@needs_numba
def test_exact_model_pd_error_dynamics():
    """NE controller on the NE plant: e'' + kd e' + kp e = 0 (up to the zero-order hold)."""
    m = stewart.load("stewart/hydraulic.yaml")
    kp, kd = 400.0, 30.0
    res = stewart.simulate(m, "newton_euler", pid=False, gains={"kp": kp, "kd": kd}, duration=0.4, step=1e-4)
    e0 = res.error[0]
    de0 = (stewart.joint_references(m, stewart.trajectory_from_model(m), res.t[:1])[1][0]
           - stewart.jacobian(m, res.pose[0]) @ res.twist[0])
    # closed form of e'' + kd e' + kp e = 0 (underdamped: kd^2 < 4 kp)
    a, wd = kd / 2, np.sqrt(kp - kd ** 2 / 4)
    t = res.t[:, None]
    e_pred = np.exp(-a * t) * (e0 * np.cos(wd * t) + (de0 + a * e0) / wd * np.sin(wd * t))
    err = np.abs(res.error - e_pred).max() / np.abs(e0).max()
    print(f"\nexact-model PD error vs closed form: {err:.2e} of the initial error")
    assert err < 2e-3


@needs_numba
def test_closed_loop_ne_vs_vw_controllers():
    m = stewart.load("stewart/tsai2000.yaml")
    rows = {}
    for ctrl in ("newton_euler", "virtual_work"):
        for pid in (False, True):
            r = stewart.simulate(m, ctrl, pid=pid, duration=3.0)
            assert r.t.shape == (3001,) and r.forces.shape == (3001, 6)
            assert np.all(np.isfinite(r.forces))
            rows[(ctrl, pid)] = float(np.sqrt(np.mean(r.error[-1000:] ** 2)))
            assert np.abs(r.error[-1000:]).max() < 1e-3 * np.abs(r.error[0]).max() + 1e-5
    for (ctrl, pid), v in rows.items():
        print(f"\n{ctrl:13s} {'PID' if pid else 'PD '}: RMS leg error over the last second {v:.3e} m")
    # exact model + PID: the steady residual comes only from the zero-order hold
    assert rows[("newton_euler", True)] < 1e-5


def test_simulate_rejects_bad_options():
    m = stewart.load("stewart/tsai2000.yaml")
    with pytest.raises(ParameterError, match="gains"):
        stewart.simulate(m, gains={"kq": 1.0}, duration=0.01)
    with pytest.raises(ParameterError, match="duration"):
        stewart.simulate(m, duration=-1.0)
    with pytest.raises(ParameterError, match="initial_error"):
        stewart.simulate(m, duration=0.01, initial_error=[0.0] * 3)


# --------------------------------------------------------------------------- virtual-work forward dynamics
def test_virtual_work_mass_matrix_routes(model):
    """VW mass matrix: one-pass sum_k J_k^T M_k J_k (compiled and as written) == columns of the VW wrench,
    and V^T M V / 2 == the no-spin kinetic energy (numpy route)."""
    X, V, _ = random_states(model, 5, 81)
    T = stewart.dynamics_terms(model, X, V, method="virtual_work")  # columns of the wrench kernel
    M1 = np.empty((6, 6))
    work = np.empty((4, 3, 6))
    for k in range(len(X)):
        assert stewart._kernels.vw_mass_matrix(model.packed, X[k].copy(), M1, work) == 0
        assert np.abs(M1 - T.M[k]).max() < 1e-12 * np.abs(T.M[k]).max()
        M2 = stewart.aswritten.vw_mass_matrix_aswritten(model, X[k])
        assert np.abs(M2 - T.M[k]).max() < 1e-12 * np.abs(T.M[k]).max()
        E = 0.5 * V[k] @ T.M[k] @ V[k]
        assert abs(E - stewart.kinetic_energy(model, X[k], V[k], spin=False)) < 1e-12 * E


def test_virtual_work_forward_dynamics(model):
    """VW forward dynamics inverts VW inverse dynamics; with point-mass legs it equals NE forward dynamics."""
    X, V, dV = random_states(model, 6, 82)
    f = stewart.inverse_dynamics(model, X, V, dV, method="virtual_work")
    assert np.abs(stewart.forward_dynamics(model, X, V, f, method="virtual_work") - dV).max() < 1e-10
    pm = stewart.point_mass_legs(model).with_(ujoint_viscous=0.0, sjoint_viscous=0.0)
    fp = stewart.inverse_dynamics(pm, X, V, dV)
    a_vw = stewart.forward_dynamics(pm, X, V, fp, method="virtual_work")
    a_ne = stewart.forward_dynamics(pm, X, V, fp)
    assert np.abs(a_vw - a_ne).max() < 1e-9 * np.abs(dV).max()


@needs_numba
def test_each_model_as_whole_simulation():
    """VW as plant and controller: the exact-model error dynamics hold for it too (it is consistent with itself)."""
    m = stewart.load("stewart/hydraulic.yaml")
    res = {meth: stewart.simulate(m, meth, plant=meth, duration=2.0) for meth in ("newton_euler", "virtual_work")}
    for meth, r in res.items():
        assert r.plant == meth and r.controller == meth
        assert np.abs(r.error[-500:]).max() < 1e-3 * np.abs(r.error[0]).max()
    # both closed loops obey the same error dynamics: their errors agree far better than the initial error
    d = np.abs(res["virtual_work"].error - res["newton_euler"].error).max()
    assert d < 1e-3 * np.abs(res["newton_euler"].error[0]).max()


# --------------------------------------------------------------------------- as written (plain numpy)
def test_as_written_equals_compiled(model):
    """Plain-numpy derivations (per-leg NE recursion; Tsai's explicit body Jacobians) == compiled kernels."""
    aw = stewart.aswritten
    X, V, dV = random_states(model, 4, 91)
    forces = np.random.default_rng(92).normal(size=(4, 6)) * 50
    for meth in ("newton_euler", "virtual_work"):
        for k in range(4):
            ref = stewart.inverse_dynamics(model, X[k], V[k], dV[k], method=meth)
            assert rel_err(aw.inverse_dynamics_aswritten(model, X[k], V[k], dV[k], meth), ref) < 1e-12
            M = stewart.dynamics_terms(model, X[k], V[k], method=meth).M
            assert np.abs(aw._MASS[meth](model, X[k]) - M).max() < 1e-12 * np.abs(M).max()
            a = stewart.forward_dynamics(model, X[k], V[k], forces[k], method=meth)
            assert np.abs(aw.forward_dynamics_aswritten(model, X[k], V[k], forces[k], meth) - a).max() \
                < 1e-10 * (1 + np.abs(a).max())
    with pytest.raises(ParameterError, match="method"):
        aw.inverse_dynamics_aswritten(model, X[0], V[0], dV[0], "kane")
    with pytest.raises(ParameterError, match="one state"):
        aw.inverse_dynamics_aswritten(model, X, V, dV)


@needs_numba
def test_as_written_closed_loop_equals_compiled():
    m = stewart.load("stewart/hydraulic.yaml")
    tr = stewart.trajectory_from_model(m)
    e0 = m.trajectory["initial_error"]
    g = {"kp": 1200.0, "kd": 60.0, "ki": 8000.0}
    for ctrl, plant in (("newton_euler", "newton_euler"), ("virtual_work", "virtual_work"),
                        ("virtual_work", "newton_euler")):
        r = stewart.simulate(m, ctrl, plant=plant, gains=g, duration=0.01, step=1e-3, trajectory=tr, initial_error=e0)
        t, e, wall = stewart.aswritten.simulate_aswritten(m, ctrl, plant, gains=g, duration=0.01, step=1e-3,
                                                         trajectory=tr, initial_error=e0)
        assert np.array_equal(t, r.t) and wall > 0
        assert np.abs(e - r.error).max() < 1e-10 * np.abs(e0).max()


# --------------------------------------------------------------------------- tracking metrics
def test_tracking_metrics_closed_forms():
    t = np.linspace(0.0, 4.0, 4001)
    amp = np.array([1.0, 2.0, 0.5, 0.1, 0.0, 3.0]) * 1e-6
    e = np.exp(-10 * t)[:, None] * 1e-2 + np.sin(7 * t)[:, None] * amp  # decay + a steady oscillation
    m = stewart.tracking_metrics(t, e, window=4 * np.pi / 7)  # two periods of sin(7 t)
    # peak-to-peak of the largest oscillation over two periods: 2 * 3e-6
    assert abs(m["fluctuation"] - 2 * 3e-6) < 1e-3 * 6e-6
    # mean of max_i |e_i| = 3e-6 |sin 7t| over whole half-periods: 3e-6 * 2/pi (sampling: to 0.2 %)
    assert abs(m["static"] / (3e-6 * 2 / np.pi) - 1) < 2e-3
    # e stays below 1 % of e(0) = 1e-2 once 1e-2 exp(-10 t) + 3e-6 |sin 7t| < 1e-4: between the two roots
    lo, hi = np.log(1e-2 / (1e-4 + 3e-6)) / 10, np.log(1e-2 / (1e-4 - 3e-6)) / 10
    assert lo - 1e-3 <= m["convergence_time"] <= hi + 1e-3
    never = stewart.tracking_metrics(t, np.ones((len(t), 6)), window=1.0)
    assert never["convergence_time"] == np.inf and never["fluctuation"] == 0.0
    with pytest.raises(ParameterError, match="window"):
        stewart.tracking_metrics(t, e, window=10.0)
    with pytest.raises(ParameterError, match="error"):
        stewart.tracking_metrics(t, e[:, :3], window=1.0)


# --------------------------------------------------------------------------- stroke and joint limits
def _leg_vectors(m, X):
    """Independent route: leg vectors t + R p_i - b_i and their directions (numpy, no robolib kinematics)."""
    R = rpy_matrix(X[3:])
    L = X[:3] + m.platform_joints @ R.T - m.base_joints
    return R, L, L / np.linalg.norm(L, axis=1)[:, None]


def test_limit_blocks_in_both_files():
    for name in SETS:
        m = stewart.load(f"stewart/{name}.yaml")
        lim = m.limits
        assert set(lim) == {"length_min", "length_max", "ujoint_max_angle", "sjoint_max_angle"}
        l_home = stewart.inverse_kinematics(m, m.home_pose)
        assert lim["length_min"] < l_home.min() and l_home.max() < lim["length_max"]
        # the default trajectory stays inside every limit
        tr = stewart.trajectory_from_model(m)
        assert stewart.check_limits(m, tr(np.linspace(0, 15, 1501))[0], mask=True).all()
    d = raw("tsai2000")
    d["limits"]["length_max"] = 0.5
    with pytest.raises(ParameterFileError, match="limits.length_max"):
        stewart.from_dict(d)
    d = raw("tsai2000")
    d["limits"]["length_max"] = 1.0  # home legs are 1.26 m
    with pytest.raises(ParameterFileError, match="home_pose"):
        stewart.from_dict(d)
    d = raw("tsai2000")
    d.pop("limits")
    m = stewart.from_dict(d)
    assert m.limits is None
    far = m.home_pose + [0, 0, 4.0, 0, 0, 0]
    assert stewart.inverse_dynamics(m, far, np.zeros(6), np.zeros(6)).shape == (6,)  # no limits: no check


def test_five_metre_legs_are_unreachable():
    """Tsai's platform with legs of about 5 m: every entry point refuses it, naming the leg and the limit."""
    m = stewart.load("stewart/tsai2000.yaml")
    far = m.home_pose + [0, 0, 4.3, 0, 0, 0]
    _, L, _ = _leg_vectors(m, far)
    assert np.linalg.norm(L, axis=1).min() > 4.9
    z = np.zeros(6)
    calls = [lambda: stewart.inverse_kinematics(m, far), lambda: stewart.jacobian(m, far),
             lambda: stewart.leg_motion(m, far, z), lambda: stewart.dynamics_terms(m, far, z),
             lambda: stewart.forward_dynamics(m, far, z, z), lambda: stewart.check_limits(m, far),
             lambda: stewart.aswritten.inverse_dynamics_aswritten(m, far, z, z, "virtual_work")]
    calls += [lambda meth=meth: stewart.inverse_dynamics(m, far, z, z, method=meth)
              for meth in ("newton_euler", "virtual_work", "newton_euler_nospin")]
    for call in calls:
        with pytest.raises(UnreachableError, match=r"leg 1 length 5\.\d+ m is above the stroke limit length_max = 1\.8 m"):
            call()
    with pytest.raises(UnreachableError, match="state 1 of the batch"):
        stewart.inverse_dynamics(m, [m.home_pose, far], z, z)
    with pytest.raises(UnreachableError, match="initial|pose"):
        stewart.simulate(m, duration=0.01, initial_error=[0, 0, 4.3, 0, 0, 0])
    with pytest.raises(UnreachableError, match="forward_kinematics"):
        stewart.forward_kinematics(m, np.full(6, 1.9), guess=m.home_pose + [0, 0, 0.5, 0, 0, 0])


@pytest.mark.parametrize("which", ["length_max", "length_min"])
def test_stroke_limit_boundary(which):
    """Exactly at the stroke limit is allowed; 1e-9 relative beyond it is not (both kernels, both routes)."""
    base = stewart.load("stewart/tsai2000.yaml")
    X = base.home_pose + ([0.05, 0.02, 0.15, 0.02, -0.03, 0.04] if which == "length_max"
                          else [0.05, 0.02, -0.2, 0.02, -0.03, 0.04])
    _, L, _ = _leg_vectors(base, X)
    lengths = np.linalg.norm(L, axis=1)
    leg = int(np.argmax(lengths) if which == "length_max" else np.argmin(lengths))
    edge = float(lengths[leg])
    z = np.zeros(6)
    at = base.with_(limits={**base.limits, which: edge})
    for meth in ("newton_euler", "virtual_work"):
        assert np.all(np.isfinite(stewart.inverse_dynamics(at, X, z, z, method=meth)))
        assert np.all(np.isfinite(stewart.forward_dynamics(at, X, z, z, method=meth)))
    assert stewart.check_limits(at, X) is None
    beyond = edge * (1 - 1e-9) if which == "length_max" else edge * (1 + 1e-9)
    out = base.with_(limits={**base.limits, which: beyond})
    word = "above" if which == "length_max" else "below"
    for call in (lambda: stewart.inverse_kinematics(out, X), lambda: stewart.inverse_dynamics(out, X, z, z),
                 lambda: stewart.forward_dynamics(out, X, z, z, method="virtual_work")):
        with pytest.raises(UnreachableError, match=f"leg {leg + 1} length .* is {word} the stroke limit {which}"):
            call()
    assert not stewart.check_limits(out, X, mask=True)


@pytest.mark.parametrize("joint", ["ujoint", "sjoint"])
def test_joint_angle_limit_boundary(joint):
    base = stewart.load("stewart/hydraulic.yaml")
    X = base.home_pose + [0.08, -0.05, 0.02, 0.1, -0.08, 0.12]
    R, L, s = _leg_vectors(base, X)
    _, _, s0 = _leg_vectors(base, base.home_pose)
    ref = s0 if joint == "ujoint" else s0 @ R.T   # U: base-fixed neutral axis; S: platform-fixed socket axis
    ang = np.arccos(np.clip(np.sum(s * ref, axis=1), -1, 1))
    leg = int(np.argmax(ang))
    z = np.zeros(6)
    at = base.with_(limits={**base.limits, f"{joint}_max_angle": float(ang[leg])})
    assert np.all(np.isfinite(stewart.inverse_dynamics(at, X, z, z)))
    out = base.with_(limits={**base.limits, f"{joint}_max_angle": float(ang[leg]) - 1e-6})
    name = "U-joint" if joint == "ujoint" else "S-joint"
    for meth in ("newton_euler", "virtual_work"):
        with pytest.raises(UnreachableError, match=f"leg {leg + 1} {name} angle .* exceeds {joint}_max_angle"):
            stewart.inverse_dynamics(out, X, z, z, method=meth)


def test_limit_mask_matches_single_checks():
    m = stewart.load("stewart/tsai2000.yaml")
    rng = np.random.default_rng(95)
    X = m.home_pose + rng.uniform(-1, 1, (40, 6)) * [0.6, 0.6, 0.6, 0.5, 0.5, 0.5]
    mask = stewart.check_limits(m, X, mask=True)
    assert 0 < mask.sum() < len(X)  # the draw straddles the limits
    for k in range(len(X)):
        try:
            stewart.inverse_dynamics(m, X[k], np.zeros(6), np.zeros(6))
            ok = True
        except UnreachableError:
            ok = False
        assert ok == mask[k]


@needs_numba
def test_simulation_stops_at_the_stroke_limit():
    """A plant that drifts out of its stroke mid-run stops with UnreachableError naming the leg and the time."""
    base = stewart.load("stewart/tsai2000.yaml")
    m = base.with_(limits={**base.limits, "length_max": 1.278})
    tr = stewart.Trajectory(m.home_pose, np.array([0, 0, 0.01, 0, 0, 0.0]), np.full(6, 3.0), np.zeros(6))
    assert stewart.check_limits(m, tr(np.linspace(0, 3, 301))[0], mask=True).all()
    with pytest.raises(UnreachableError, match=r"simulate: at t = .* s the newton_euler plant reached leg \d"):
        stewart.simulate(m, gains={"kp": 0.0, "kd": 0.0, "ki": 0.0}, duration=3.0, trajectory=tr,
                         initial_error=[0, 0, 0.03, 0, 0, 0])


def test_decode_status():
    dec = stewart._kernels.decode_status
    assert dec(0) == (0, None) and dec(3) == (3, None)
    assert dec(1) == (1, 0) and dec(5 + 16 * 5) == (5, 5)
