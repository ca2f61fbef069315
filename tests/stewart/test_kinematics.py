"""The Stewart platform's kinematics (robolib.stewart.kinematics)."""

from __future__ import annotations

import numpy as np
import pytest
from fuzzing import SETTINGS, names
from hypothesis import assume, given
from hypothesis import strategies as st

from robolib import ConvergenceError, ParameterError, SingularityError, UnreachableError, stewart
from robolib.core.rotations import matrix_rpy, rpy_matrix, skew
from robolib.stewart import kinematics as K

# ==== inverse and forward kinematics, Jacobians and conventions =====================================================

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


def moved_pose(X, V, eps):
    """Pose after moving for time eps with constant twist V (exact rigid motion, base frame)."""
    w = V[3:]
    th = np.linalg.norm(w) * eps
    K = skew(w / np.linalg.norm(w))
    dR = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
    R = dR @ rpy_matrix(X[3:])
    return np.concatenate((X[:3] + V[:3] * eps, matrix_rpy(R)))


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
    with pytest.raises(ConvergenceError, match=names("did not converge", "2 iterations")):
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


# --------------------------------------------------------------------------- stroke and joint limits
def _leg_vectors(m, X):
    """Independent route: leg vectors t + R p_i - b_i and their directions (numpy, no robolib kinematics)."""
    R = rpy_matrix(X[3:])
    L = X[:3] + m.platform_joints @ R.T - m.base_joints
    return R, L, L / np.linalg.norm(L, axis=1)[:, None]


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
        with pytest.raises(UnreachableError, match=names(f"leg {leg + 1}", "length", word, which)):
            call()
    assert not stewart.check_limits(out, X, mask=True)



# ==== kinematics properties on random poses =========================================================================

M = stewart.load("stewart/tsai2000.yaml")


HYD = stewart.load("stewart/hydraulic.yaml")


MODELS = {"tsai2000": M, "hydraulic": HYD}


UNIT6 = st.lists(st.floats(-1.0, 1.0), min_size=6, max_size=6).map(np.array)


MODEL = st.sampled_from(sorted(MODELS))


def reachable(model, *poses) -> bool:
    return all(bool(stewart.check_limits(model, X, mask=True)) for X in poses)


def rigidly_moved_pose(X, V, h):
    """Pose after moving for time ``h`` with the constant twist ``V`` (exact rigid motion, base frame)."""
    w = V[3:]
    th = np.linalg.norm(w) * h
    K = skew(w / np.linalg.norm(w)) if np.linalg.norm(w) > 0 else np.zeros((3, 3))
    dR = np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K
    return np.concatenate((X[:3] + V[:3] * h, matrix_rpy(dR @ rpy_matrix(X[3:]))))


@pytest.mark.fuzz
@SETTINGS
@given(name=MODEL, u=UNIT6)
def test_fk_of_ik_returns_the_pose(name, u):
    m = MODELS[name]
    X = m.home_pose + u * SPREAD
    assume(reachable(m, X))
    X_fk = stewart.forward_kinematics(m, stewart.inverse_kinematics(m, X))   # Newton from home
    assert np.abs(X_fk - X).max() < 1e-10


@pytest.mark.fuzz
@SETTINGS
@given(name=MODEL, u=UNIT6, v=UNIT6)
def test_jacobian_matches_finite_differences_of_leg_lengths(name, u, v):
    m, h = MODELS[name], 1e-6
    X, V = m.home_pose + u * SPREAD, v * [0.5, 0.5, 0.5, 1.0, 1.0, 1.0]
    Xp, Xm = rigidly_moved_pose(X, V, h), rigidly_moved_pose(X, V, -h)
    assume(reachable(m, X, Xp, Xm))
    fd = (stewart.inverse_kinematics(m, Xp) - stewart.inverse_kinematics(m, Xm)) / (2 * h)
    assert np.abs(stewart.jacobian(m, X) @ V - fd).max() < 1e-8



# ==== kinematics against the leg-vector reference, at the limits and in the messages ================================
#
# Stewart kinematics: checks that kill the mutants the sections above let live (make mutate).
#
# Each value is checked through an independent route (the leg vectors ``t + R p_i - b_i`` written out with numpy,
# finite differences of the rotation), on batches with two leading axes (so an axis slip shows) and with every
# limit kind present in one draw.

TSAI = stewart.load("stewart/tsai2000.yaml")


#: Step (rad, s) of the central differences of the rotation and their tolerance.
FD_STEP = 1e-6


FD_TOL = 1e-7


def _legs(m, X):
    """Independent route, batched: leg vectors ``L`` (..., 6, 3), lengths (..., 6), directions, rotations."""
    X = np.asarray(X, float)
    R = rpy_matrix(X[..., 3:])
    L = X[..., None, :3] + np.einsum("...ij,kj->...ki", R, m.platform_joints) - m.base_joints
    length = np.linalg.norm(L, axis=-1)
    return L, length, L / length[..., None], R


def _limit_code_reference(m, X):
    """The first violated limit kind (4 short, 5 long, 6 U angle, 7 S angle; 0 none) from the leg vectors."""
    lim = m.limits
    _, length, s, R = _legs(m, X)
    _, _, s0, _ = _legs(m, m.home_pose)
    ang_u = np.arccos(np.clip(np.sum(s * s0, -1), -1, 1))
    ang_s = np.arccos(np.clip(np.einsum("...ki,...ij,kj->...k", s, R, s0), -1, 1))
    kinds = [length < lim["length_min"], length > lim["length_max"],
             ang_u > lim["ujoint_max_angle"], ang_s > lim["sjoint_max_angle"]]
    out = np.zeros(X.shape[:-1], int)
    for code, bad in reversed(list(zip((4, 5, 6, 7), kinds))):
        out = np.where(bad.any(-1), code, out)
    return out


def test_limit_codes_equal_the_leg_vector_reference_on_a_two_axis_batch():
    rng = np.random.default_rng(3)
    X = (TSAI.home_pose + rng.uniform(-1, 1, (400, 6)) * [0.3, 0.3, 0.3, 0.4, 0.4, 0.4]).reshape(20, 20, 6)
    codes = stewart.limit_codes(TSAI, X)
    assert codes.shape == (20, 20) and codes.dtype.kind == "i"
    ref = _limit_code_reference(TSAI, X)
    assert set(np.unique(ref)) == {0, 4, 5, 6, 7}          # every kind is in the draw
    np.testing.assert_array_equal(codes, ref)
    assert set(K.LIMIT_CODES) == {0, 4, 5, 6, 7}
    # each code agrees with the quantity check_limits names for that pose when the other limits are relaxed
    relaxed = {"length_min": 1e-3, "length_max": 1e3, "ujoint_max_angle": 3.1, "sjoint_max_angle": 3.1}
    words = {4: ("length_min", "below the stroke limit length_min"), 5: ("length_max", "above the stroke limit length_max"),
             6: ("ujoint_max_angle", "exceeds ujoint_max_angle"), 7: ("sjoint_max_angle", "exceeds sjoint_max_angle")}
    for code, (key, word) in words.items():
        m = TSAI.with_(limits={**relaxed, key: TSAI.limits[key]})
        k = tuple(np.argwhere(ref == code)[0])
        assert stewart.limit_codes(m, X[k]) == code
        with pytest.raises(UnreachableError, match=word):
            stewart.check_limits(m, X[k])
    assert stewart.check_limits(TSAI, X[tuple(np.argwhere(ref == 0)[0])]) is None


def test_joint_points_are_the_leg_ends():
    rng = np.random.default_rng(11)
    X = (TSAI.home_pose + rng.uniform(-1, 1, (6, 6)) * [0.05, 0.05, 0.05, 0.2, 0.2, 0.2]).reshape(2, 3, 6)
    B, P = stewart.joint_points(TSAI, X)
    L, length, _, R = _legs(TSAI, X)
    np.testing.assert_allclose(B, TSAI.base_joints, rtol=0, atol=0)
    np.testing.assert_allclose(P - B, L, rtol=0, atol=1e-13)
    np.testing.assert_allclose(np.linalg.norm(P - B, axis=-1), stewart.inverse_kinematics(TSAI, X), rtol=1e-13)
    # the S centres are rigidly attached to the platform: P_i - t = R p_i
    np.testing.assert_allclose(P - X[..., None, :3], np.einsum("...ij,kj->...ki", R, TSAI.platform_joints),
                               atol=1e-13)


def _twist_from_rotation(rpy, drpy):
    """Angular velocity w with dR/dt = [w]x R, by central differences of R(rpy + t drpy)."""
    dR = (rpy_matrix(rpy + FD_STEP * drpy) - rpy_matrix(rpy - FD_STEP * drpy)) / (2 * FD_STEP)
    W = dR @ rpy_matrix(rpy).T
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


@pytest.mark.parametrize("rpy", [[0.3, -0.4, 0.7], [0.2, 0.5, np.pi / 2], [-0.1, 0.3, -np.pi / 2]])
def test_pose_rates_reproduce_the_twist(rpy):
    """``dX/dt`` turns the body rates back into the twist (finite differences of R), yaw at +-90 deg included."""
    twist = np.array([0.4, -1.1, 2.3, 0.9, -0.6, 1.7])
    X = np.concatenate([[0.1, 0.2, 1.0], rpy])
    dX = stewart.pose_rates(X, twist)
    assert dX.shape == (6,)
    np.testing.assert_array_equal(dX[:3], twist[:3])
    np.testing.assert_allclose(_twist_from_rotation(X[3:], dX[3:]), twist[3:], atol=FD_TOL)
    batch = stewart.pose_rates(np.tile(X, (2, 3, 1)), np.tile(twist, (2, 3, 1)))
    assert batch.shape == (2, 3, 6)
    np.testing.assert_allclose(batch, np.broadcast_to(dX, (2, 3, 6)), rtol=1e-14)


def test_pose_rates_refuse_pitch_at_90_degrees():
    with pytest.raises(SingularityError, match="pitch"):
        stewart.pose_rates([0, 0, 1, 0.1, np.pi / 2, 0.3], np.ones(6))


def test_fk_lengths_must_be_positive_naming_the_first_bad_one():
    l = stewart.inverse_kinematics(TSAI, TSAI.home_pose)
    for bad, value in ((0.0, "0.0"), (-0.2, "-0.2")):
        q = l.copy()
        q[1] = 0.9          # short but valid: only index 3 is bad
        q[3] = bad
        with pytest.raises(ParameterError, match=names("lengths", "positive", "(m)", value, "index 3")):
            stewart.forward_kinematics(TSAI, q)
        qq = np.stack([l, q])
        with pytest.raises(ParameterError, match=names(value, "index (1, 3)")):
            stewart.forward_kinematics(TSAI, qq)


@pytest.mark.parametrize("tol", [0.0, -1e-12])
def test_fk_tolerance_must_be_positive_metres(tol):
    l = stewart.inverse_kinematics(TSAI, TSAI.home_pose)
    with pytest.raises(ParameterError, match=names("tol", "> 0", "m")):
        stewart.forward_kinematics(TSAI, l, tol=tol)


def test_fk_on_a_two_axis_batch_equals_single_solves():
    rng = np.random.default_rng(21)
    X = (TSAI.home_pose + rng.uniform(-1, 1, (6, 6)) * [0.05, 0.05, 0.05, 0.1, 0.1, 0.1]).reshape(2, 3, 6)
    _, l, _, _ = _legs(TSAI, X)
    Y = stewart.forward_kinematics(TSAI, l)
    assert Y.shape == (2, 3, 6)
    np.testing.assert_allclose(Y, X, atol=1e-10)


def test_unreachable_batch_member_is_named_by_its_index():
    far = TSAI.home_pose + [0, 0, 4.0, 0, 0, 0]
    with pytest.raises(UnreachableError, match=names("pose 1", "batch", "unreachable", "leg 1")):
        stewart.check_limits(TSAI, [TSAI.home_pose, far])
    # the index of a 2-axis batch prints as [np.int64(1), np.int64(0)] today (numpy 2 reprs; reported): accept both
    index = r"pose \[(np\.int64\()?1\)?, (np\.int64\()?0\)?\](?s:.*)"
    with pytest.raises(UnreachableError, match=index + names("unreachable", "leg 1")):
        stewart.check_limits(TSAI, [[TSAI.home_pose, TSAI.home_pose], [far, TSAI.home_pose]])
    with pytest.raises(UnreachableError, match=r"^pose is unreachable: leg 1 length"):
        stewart.check_limits(TSAI, far)


def _rotation_about(w, t):
    """exp(t [w]x) (Rodrigues), (3, 3)."""
    th = np.linalg.norm(w) * t
    k = w / np.linalg.norm(w)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K


def test_leg_rates_without_acceleration_are_the_velocity_products():
    """accel omitted = zero platform acceleration: dl, ddl equal central differences of |t + R p - b| along
    the motion of constant twist t(tau) = t0 + v tau, R(tau) = exp(tau [w]x) R0."""
    X0 = TSAI.home_pose + [0.03, -0.02, 0.04, 0.1, -0.05, 0.2]
    V = np.array([0.2, -0.1, 0.3, 0.7, -0.4, 0.9])
    mo = stewart.leg_motion(TSAI, X0, V)
    np.testing.assert_array_equal(mo.ddl, stewart.leg_motion(TSAI, X0, V, np.zeros(6)).ddl)
    R0 = rpy_matrix(X0[3:])
    h = 1e-4

    def lengths(tau):
        R = _rotation_about(V[3:], tau) @ R0
        return np.linalg.norm(X0[:3] + V[:3] * tau + TSAI.platform_joints @ R.T - TSAI.base_joints, axis=1)

    l_m, l_0, l_p = lengths(-h), lengths(0.0), lengths(h)
    np.testing.assert_allclose(mo.dl, (l_p - l_m) / (2 * h), atol=1e-8)
    np.testing.assert_allclose(mo.ddl, (l_p - 2 * l_0 + l_m) / h ** 2, atol=1e-5)


def test_leg_motion_refuses_batches_that_do_not_broadcast():
    X = np.tile(TSAI.home_pose, (2, 1))
    with pytest.raises(ParameterError, match=names("pose", "(2, 6)", "twist", "(3, 6)", "broadcast")):
        stewart.leg_motion(TSAI, X, np.zeros((3, 6)))
    with pytest.raises(ParameterError, match=names("pose", "(2, 6)", "twist", "(2, 6)", "accel", "(3, 6)",
                                                 "broadcast")):
        stewart.leg_motion(TSAI, X, np.zeros((2, 6)), np.zeros((3, 6)))


@pytest.mark.parametrize("joint", ["ujoint", "sjoint"])
def test_joint_angle_in_the_message_is_the_angle_of_the_named_leg(joint):
    X = TSAI.home_pose + [0.08, -0.05, 0.02, 0.25, -0.2, 0.3]
    _, _, s, R = _legs(TSAI, X)
    _, _, s0, _ = _legs(TSAI, TSAI.home_pose)
    ref = s0 if joint == "ujoint" else s0 @ R.T
    ang = np.degrees(np.arccos(np.clip(np.sum(s * ref, -1), -1, 1)))
    limit = 0.5 * (ang.min() + ang.max())
    m = TSAI.with_(limits={"length_min": 1e-3, "length_max": 1e3, "ujoint_max_angle": 3.1, "sjoint_max_angle": 3.1,
                           f"{joint}_max_angle": float(np.radians(limit))})
    leg = int(np.argmax(ang > limit))
    with pytest.raises(UnreachableError) as err:
        stewart.check_limits(m, X)
    name = "U-joint" if joint == "ujoint" else "S-joint"
    assert f"leg {leg + 1} {name} angle {ang[leg]:.4g} deg exceeds {joint}_max_angle = {limit:.4g} deg" in str(err.value)


@pytest.mark.parametrize("joint", ["ujoint", "sjoint"])
def test_numpy_route_allows_a_leg_exactly_at_its_joint_angle_limit(joint):
    X = TSAI.home_pose + [0.08, -0.05, 0.02, 0.25, -0.2, 0.3]
    _, _, s, R = _legs(TSAI, X)
    _, _, s0, _ = _legs(TSAI, TSAI.home_pose)
    ref = s0 if joint == "ujoint" else s0 @ R.T
    edge = float(np.arccos(np.clip(np.sum(s * ref, -1), -1, 1)).max())
    relaxed = {"length_min": 1e-3, "length_max": 1e3, "ujoint_max_angle": 3.1, "sjoint_max_angle": 3.1}
    at = TSAI.with_(limits={**relaxed, f"{joint}_max_angle": edge})
    assert stewart.check_limits(at, X) is None and stewart.check_limits(at, X, mask=True)
    assert stewart.limit_codes(at, X) == 0
    out = TSAI.with_(limits={**relaxed, f"{joint}_max_angle": edge - 1e-6})
    assert stewart.limit_codes(out, X) == (6 if joint == "ujoint" else 7)


def test_bad_state_messages_quote_the_input_up_to_60_characters():
    for text, shown in (("abc", "'abc'"), ("x" * 58, "'" + "x" * 58 + "'"), ("x" * 59, "'" + "x" * 56 + "...")):
        with pytest.raises(ParameterError) as err:
            K.as_state(text, "pose")
        assert str(err.value) == f"pose must be finite real numbers of shape (..., 6), got {shown} (str)"


def test_batch_shape_of_one_or_several_states():
    assert K.batch_shape(pose=np.zeros((2, 6))) == (2, 6)
    assert K.batch_shape(pose=np.zeros((2, 6)), twist=np.zeros((2, 6))) == (2, 6)
    assert K.batch_shape(pose=np.zeros((2, 1, 6)), twist=np.zeros((3, 6))) == (2, 3, 6)


def test_integer_states_are_taken_as_floats():
    arr = K.as_state(np.arange(6), "twist")
    assert arr.dtype == float and arr.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    X = np.array([0, 0, 1, 0, 0, 0])
    np.testing.assert_array_equal(stewart.pose_rates(X, np.arange(6)), np.arange(6.0))


def test_non_finite_state_is_named_by_its_index():
    X = np.tile(TSAI.home_pose, (2, 1))
    X[1, 3] = np.inf
    with pytest.raises(ParameterError, match=names("pose", "finite", "inf", "index (1, 3)")):
        K.as_state(X, "pose")
    with pytest.raises(ParameterError, match=names("twist", "finite", "nan", "index 4")):
        K.as_state([0, 0, 0, 0, np.nan, 0], "twist")


def test_forward_kinematics_names_lengths_too_large_to_solve():
    """Leg lengths beyond FK_LENGTH_MAX_FACTOR times the model's size are refused by name, not by an overflow."""
    import robolib.stewart as S
    from robolib import ParameterError
    from robolib.stewart.kinematics import FK_LENGTH_MAX_FACTOR

    m = S.load("stewart/tsai2000.yaml")
    with pytest.raises(ParameterError, match=names("lengths", "1e+06", "model's size")):
        S.forward_kinematics(m, np.full(6, 1e200))
    assert FK_LENGTH_MAX_FACTOR == 1e6
    assert "LIMIT_CODES" in S.__all__ and S.LIMIT_CODES is S.kinematics.LIMIT_CODES


def test_pose_rates_broadcasts_a_single_twist_over_a_batch_of_poses():
    """A (2, 3, 6) batch of poses with one (6,) twist: every pose gets that twist's rates (at zero angles: the twist)."""
    poses = np.zeros((2, 3, 6))
    poses[1, 2, 3:] = [0.1, -0.2, 0.3]
    twist = np.arange(1.0, 7.0)
    out = stewart.pose_rates(poses, twist)
    assert out.shape == (2, 3, 6)
    assert np.allclose(out[0, 0], twist, rtol=0, atol=0)
    assert np.allclose(out[1, 2], stewart.pose_rates(poses[1, 2], twist), rtol=0, atol=1e-15)


def test_the_size_limit_of_forward_kinematics_at_its_boundary():
    """The model's size is max |b_i| + max |p_i| + |z_home| (written out here); lengths just below the limit
    FK_LENGTH_MAX_FACTOR * size pass the size check (they fail later, as unreachable), just above it they
    are refused, and the message states the limit in metres. A model with a lifted home pose and scaled
    joint circles breaks the symmetries of the default."""
    import dataclasses

    from robolib.stewart.kinematics import FK_LENGTH_MAX_FACTOR

    for m in (TSAI, dataclasses.replace(TSAI, base_joints=TSAI.base_joints * [1.7, 0.6, 1.0],
                                        platform_joints=TSAI.platform_joints * 0.3,
                                        home_pose=TSAI.home_pose + [0.0, 0.0, 0.4, 0.0, 0.0, 0.0])):
        size = (max(np.sqrt((b ** 2).sum()) for b in m.base_joints)
                + max(np.sqrt((p ** 2).sum()) for p in m.platform_joints) + abs(m.home_pose[2]))
        limit = FK_LENGTH_MAX_FACTOR * size
        stated = names("1e+06", "model's size", f"{limit:g} m")
        with pytest.raises(ParameterError, match=stated):
            K.forward_kinematics(m, np.full(6, limit * (1 + 1e-9)))
        with pytest.raises(ConvergenceError):                      # past the size check: Newton cannot reach it
            K.forward_kinematics(m, np.full(6, limit * (1 - 1e-9)), max_iter=3)


# --------------------------------------------------------------------------- how far a pose coordinate can move
@pytest.mark.parametrize("file", ["stewart/tsai2000.yaml", "stewart/hydraulic.yaml"])
@pytest.mark.parametrize("coordinate", range(6))
def test_a_limit_interval_ends_where_the_limits_start_to_refuse(file, coordinate):
    m = stewart.load(file)
    pose = m.home_pose + [0.01, -0.02, 0.03, 0.02, -0.01, 0.05]  # off home: breaks the geometry's symmetry
    lo, hi = stewart.limit_interval(m, coordinate, pose)
    unit = np.eye(6)[coordinate]
    assert lo < 0 < hi
    inside = pose + np.linspace(lo, hi, 201)[:, None] * unit
    assert stewart.check_limits(m, inside, mask=True).all()
    beyond = pose + np.array([lo - 1e-6, hi + 1e-6])[:, None] * unit
    assert not stewart.check_limits(m, beyond, mask=True).any()


def test_the_heave_interval_of_tsai_s_platform_ends_at_the_stroke_above_and_the_u_joint_angle_below():
    m = stewart.load("stewart/tsai2000.yaml")
    lo, hi = stewart.limit_interval(m, 2)
    up = stewart.inverse_kinematics(m, m.home_pose + [0, 0, hi, 0, 0, 0])
    assert up.max() == pytest.approx(m.limits["length_max"], abs=1e-8)
    with pytest.raises(UnreachableError, match="U-joint angle"):
        stewart.check_limits(m, m.home_pose + [0, 0, lo - 1e-6, 0, 0, 0])


def test_a_limit_interval_refuses_a_bad_coordinate_or_a_pose_outside_the_limits():
    m = stewart.load("stewart/tsai2000.yaml")
    with pytest.raises(ParameterError, match="coordinate"):
        stewart.limit_interval(m, 6)
    with pytest.raises(UnreachableError):
        stewart.limit_interval(m, 0, m.home_pose + [0, 0, 4.0, 0, 0, 0])
