"""The Stewart platform's dynamics (robolib.stewart.dynamics) against independent routes."""

from __future__ import annotations

import numpy as np
import pytest
import yaml
from fuzzing import SETTINGS, names
from hypothesis import assume, given
from hypothesis import strategies as st

from robolib import ParameterError, SingularityError, UnreachableError, stewart
from robolib.core.params import resolve_data_path
from robolib.core.rotations import matrix_rpy, rpy_matrix, rpy_rates_to_twist, skew
from robolib.stewart import _kernels
from robolib.stewart import dynamics as D

# ==== Newton-Euler, virtual work and the reference engine agree =====================================================
#
# Tests of robolib.stewart against independent routes (the verification list of the Models page of the book).
#
# * parameter files: schema errors name the field;
# * IK <-> FK (Newton) round trip; J and leg angular velocity/acceleration vs
#   finite differences of the exact motion;
# * U-joint Newton-Euler vs pinocchio (constrained multibody, loops closed by point
#   constraints) on random states of both parameter sets, and the measured
#   virtual-work deviation from it;
# * virtual work == Newton-Euler with point-mass legs; M symmetric positive
#   definite and V^T M V / 2 == kinetic energy; power balance;
# * closed loop: exact-model computed-torque error dynamics, NE vs VW controllers;
# * virtual-work forward dynamics (one-pass mass matrix vs wrench columns vs kinetic
#   energy), each model as the whole simulation, the plain-numpy "as written"
#   derivations and closed loop vs the compiled kernels, the tracking metrics on
#   closed forms;
# * stroke and joint-angle limits: 5-m legs refused everywhere, boundary values
#   (exactly at a limit is allowed), masks, a simulation that leaves its stroke.

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


# --------------------------------------------------------------------------- stroke and joint limits
def _leg_vectors(m, X):
    """Independent route: leg vectors t + R p_i - b_i and their directions (numpy, no robolib kinematics)."""
    R = rpy_matrix(X[3:])
    L = X[:3] + m.platform_joints @ R.T - m.base_joints
    return R, L, L / np.linalg.norm(L, axis=1)[:, None]


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
        with pytest.raises(UnreachableError, match=names("leg 1", "5.", "above", "length_max", "1.8 m")):
            call()
    with pytest.raises(UnreachableError, match=names("state 1", "batch")):
        stewart.inverse_dynamics(m, [m.home_pose, far], z, z)
    with pytest.raises(UnreachableError, match="initial|pose"):
        stewart.simulate(m, duration=0.01, initial_error=[0, 0, 4.3, 0, 0, 0])
    with pytest.raises(UnreachableError, match="forward_kinematics"):
        stewart.forward_kinematics(m, np.full(6, 1.9), guess=m.home_pose + [0, 0, 0.5, 0, 0, 0])


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
        angle = names(f"leg {leg + 1}", f"{name} angle", "exceeds", f"{joint}_max_angle")
        with pytest.raises(UnreachableError, match=angle):
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


def test_decode_status():
    dec = stewart._kernels.decode_status
    assert dec(0) == (0, None) and dec(3) == (3, None)
    assert dec(1) == (1, 0) and dec(5 + 16 * 5) == (5, 5)



# ==== dynamics properties on random states ==========================================================================

M = stewart.load("stewart/tsai2000.yaml")


HYD = stewart.load("stewart/hydraulic.yaml")


MODELS = {"tsai2000": M, "hydraulic": HYD}


UNIT6 = st.lists(st.floats(-1.0, 1.0), min_size=6, max_size=6).map(np.array)


MODEL = st.sampled_from(sorted(MODELS))


def reachable(model, *poses) -> bool:
    return all(bool(stewart.check_limits(model, X, mask=True)) for X in poses)


@pytest.mark.fuzz
@SETTINGS
@given(name=MODEL, u=UNIT6, a=UNIT6)
def test_newton_euler_equals_virtual_work_at_rest_for_point_mass_legs(name, u, a):
    pm = stewart.point_mass_legs(MODELS[name])
    X, dV = pm.home_pose + u * SPREAD, a * [3.0, 3.0, 3.0, 5.0, 5.0, 5.0]
    assume(reachable(pm, X))
    z = np.zeros(6)
    f_ne = stewart.inverse_dynamics(pm, X, z, dV)
    f_vw = stewart.inverse_dynamics(pm, X, z, dV, method="virtual_work")
    assert np.abs(f_vw - f_ne).max() <= 1e-11 * np.abs(f_ne).max()


@pytest.mark.fuzz
@SETTINGS
@given(name=MODEL, method=st.sampled_from(sorted(stewart.METHODS)), u=UNIT6, v=UNIT6, a=UNIT6,
       e=st.one_of(st.none(), UNIT6))
def test_inverse_then_forward_dynamics_returns_the_acceleration(name, method, u, v, a, e):
    m = MODELS[name]
    X, V, dV = m.home_pose + u * SPREAD, v * [0.5, 0.5, 0.5, 1.0, 1.0, 1.0], a * [3.0, 3.0, 3.0, 5.0, 5.0, 5.0]
    Fe = None if e is None else e * 20.0
    assume(reachable(m, X))
    f = stewart.inverse_dynamics(m, X, V, dV, method=method, external=Fe)
    assert np.abs(stewart.forward_dynamics(m, X, V, f, method=method, external=Fe) - dV).max() \
        < 1e-9 * (1 + np.abs(dV).max())


@pytest.mark.fuzz
@SETTINGS
@given(name=MODEL, u=UNIT6, v=UNIT6, a=UNIT6)
def test_power_balance_at_a_random_state(name, u, v, a):
    """``f . dl = d/dt (T + U) + dissipation`` (U-joint Newton-Euler) at a random state ``(X, V, dV)``.

    The platform moves along ``t -> p + dp t + ddp t^2 / 2``, ``rpy + drpy t + ddrpy t^2 / 2``, whose
    twist and acceleration at ``t = 0`` are the state's; ``dE/dt`` by central differences along it.
    """
    m, h = MODELS[name], 1e-4
    X0 = m.home_pose + u * SPREAD
    dX, ddX = v * [0.5, 0.5, 0.5, 1.0, 1.0, 1.0], a * [3.0, 3.0, 3.0, 5.0, 5.0, 5.0]

    def state(t):
        X, dXt = X0 + dX * t + 0.5 * ddX * t * t, dX + ddX * t
        w, al = rpy_rates_to_twist(X[3:], dXt[3:], ddX[3:])
        return X, np.r_[dXt[:3], w], np.r_[ddX[:3], al]

    (Xm, Vm, _), (X, V, dV), (Xp, Vp, _) = state(-h), state(0.0), state(h)
    assume(reachable(m, Xm, X, Xp))
    E = [float(stewart.kinetic_energy(m, Xk, Vk) + stewart.potential_energy(m, Xk)) for Xk, Vk in ((Xm, Vm), (Xp, Vp))]
    dE = (E[1] - E[0]) / (2 * h)
    P = stewart.inverse_dynamics(m, X, V, dV) @ (stewart.jacobian(m, X) @ V)
    D = float(stewart.dissipation(m, X, V))
    # relative to the powers, with a floor for the rounding of E (J) in the difference at a near-rest state
    assert abs(P - dE - D) < 1e-6 * (abs(P) + abs(dE) + abs(D)) + 1e-8 * (1 + abs(E[0]))



# ==== status words, energies and limit messages =====================================================================
#
# Stewart dynamics: checks that kill the mutants the sections above let live (make mutate).
#
# The status words must name the right leg (1-based) and the right error class; the numpy route's default is the
# U-joint-spin model, the one the compiled default (Newton-Euler) uses.

HYDRAULIC = stewart.load("stewart/hydraulic.yaml")


@pytest.mark.parametrize("leg", [0, 3, 5])
def test_status_words_name_the_leg_one_based(leg):
    for code, words in ((1, f"leg {leg + 1} of zero length"), (2, f"leg {leg + 1} along its fixed U axis"),
                        (4, f"leg {leg + 1} shorter than its stroke limit"),
                        (6, f"leg {leg + 1}'s U-joint angle beyond"), (7, f"leg {leg + 1}'s S-joint angle beyond")):
        text = D.status_message(code + _kernels.LEG_CODE * leg)
        assert text.startswith(words), text
        assert text.count("leg ") == 1, text                 # named once, not for every phrase
    assert "leg" not in D.status_message(3)                  # a parallel singularity concerns no single leg


def test_status_error_classes_split_at_the_stroke_limits():
    assert D.status_error(1) is SingularityError and D.status_error(3) is SingularityError
    for code in (4, 5, 6, 7):
        assert D.status_error(code) is UnreachableError


def test_numpy_route_defaults_to_the_spinning_legs():
    rng = np.random.default_rng(5)
    X = HYDRAULIC.home_pose + rng.uniform(-1, 1, (4, 6)) * [0.05, 0.05, 0.05, 0.1, 0.1, 0.1]
    V, dV = rng.normal(size=(4, 6)), rng.normal(size=(4, 6)) * 3.0
    f = D.inverse_dynamics_numpy(HYDRAULIC, X, V, dV)
    np.testing.assert_allclose(f, D.inverse_dynamics(HYDRAULIC, X, V, dV), rtol=1e-11, atol=1e-9)
    assert np.abs(f - D.inverse_dynamics_numpy(HYDRAULIC, X, V, dV, spin=False)).max() > 1e-9


def test_kinetic_energy_with_off_axis_leg_centres_of_mass():
    # the shipped legs have their centres of mass on the leg axis, where the cross term
    # 2 dl s . (omega x x_rod) of the rod's speed vanishes; off the axis V^T M V / 2 must still equal T
    from robolib.stewart.model import Body
    rod, cyl = HYDRAULIC.rod, HYDRAULIC.cylinder
    m = HYDRAULIC.with_(rod=Body(rod.mass, rod.com + np.array([0.03, -0.02, 0.0]), rod.inertia),
                    cylinder=Body(cyl.mass, cyl.com + np.array([-0.01, 0.025, 0.0]), cyl.inertia))
    rng = np.random.default_rng(9)
    X = m.home_pose + rng.uniform(-1, 1, (5, 6)) * [0.05, 0.05, 0.05, 0.1, 0.1, 0.1]
    V = rng.normal(size=(5, 6))
    T = stewart.dynamics_terms(m, X, V)
    ke = stewart.kinetic_energy(m, X, V)
    np.testing.assert_allclose(0.5 * np.einsum("ki,kij,kj->k", V, T.M, V), ke, rtol=1e-11)


def test_energy_and_batch_errors_name_the_arguments():
    from robolib import ParameterError
    X = np.tile(HYDRAULIC.home_pose, (2, 1))
    with pytest.raises(ParameterError, match="pose.*twist|twist.*pose"):
        stewart.kinetic_energy(HYDRAULIC, X, np.zeros((3, 6)))


def test_limit_messages_say_which_state():
    far = HYDRAULIC.home_pose + np.array([0.0, 0.0, 5.0, 0.0, 0.0, 0.0])          # every leg beyond its stroke
    with pytest.raises(UnreachableError, match="the state"):
        stewart.inverse_dynamics(HYDRAULIC, far, np.zeros(6), np.zeros(6))
    X = np.stack([HYDRAULIC.home_pose, far, far])
    with pytest.raises(UnreachableError, match=names("state 1", "batch")):
        stewart.inverse_dynamics(HYDRAULIC, X, np.zeros(6), np.zeros(6))
