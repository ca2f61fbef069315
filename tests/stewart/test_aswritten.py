"""The Stewart platform's derivations as written (robolib.stewart.aswritten)."""

from __future__ import annotations

import numpy as np
import pytest

from robolib import ParameterError, stewart

# ==== the derivations as written equal the compiled ones ============================================================

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


# --------------------------------------------------------------------------- control
needs_numba = pytest.mark.skipif(not stewart._kernels.HAVE_NUMBA,
                                 reason="numba not installed: the pure-Python simulation loop is too slow here")


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
