"""The redundant robot's model and parameter files (robolib.redundant.model)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
import yaml
from fuzzing import budget, names
from hypothesis import given
from hypothesis import strategies as st

import robolib
from robolib import (
    ParameterError,
    ParameterFileError,
)
from robolib import redundant as R

# ==== parameter files and subsystem matrices ========================================================================

ROBOT = R.load("redundant/default.yaml")


# --------------------------------------------------------------------------- parameters
def test_default_parameter_file():
    path = robolib.DATA_DIR / "redundant" / "default.yaml"
    raw = yaml.safe_load(path.read_text())
    assert set(raw) == {"base", "link_length", "active", "passive", "end_effector_mass", "friction"}
    assert set(raw["active"]) == set(raw["passive"]) == {"mass", "com", "inertia"}
    assert set(raw["friction"]) == {"mu", "journal_radius", "coulomb_torque", "static_torque",
                                    "stribeck_velocity", "viscous", "smooth_eps", "calibrated_for_mu_r"}
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



# ==== the model and its files on random inputs ======================================================================

GEARED = R.load("redundant/geared.yaml")


@pytest.mark.fuzz
@pytest.mark.parametrize("field", ["active_com", "passive_com"])
def test_a_centre_of_mass_off_the_link_is_named(field):
    with pytest.raises(ParameterError, match=field):
        dataclasses.replace(ROBOT, **{field: ROBOT.link_length * 1.01})


@pytest.mark.fuzz
def test_load_refuses_a_missing_or_malformed_file(tmp_path):
    with pytest.raises(ParameterFileError, match=names("no_such_robot.yaml", "not found")):
        R.load("no_such_robot.yaml")
    bad = tmp_path / "malformed.yaml"
    bad.write_text("base: [[0, 0], [0.5, 0]\nlink_length: : 0.25\n")
    with pytest.raises(ParameterFileError, match=names("malformed.yaml", "not valid YAML")):
        R.load(bad)
    for path in (None, 3.0, True, ["redundant/default.yaml"]):
        with pytest.raises(ParameterFileError, match="path"):
            R.load(path)


# ---- properties on random valid inputs ---------------------------------------------------------------
PROPERTY = budget(25)


SPEEDS = st.one_of(st.just(0.0), st.floats(1e-3, 100.0), st.floats(-100.0, -1e-3))


@pytest.mark.fuzz
@PROPERTY
@given(robot=st.sampled_from([ROBOT, GEARED]),
       q=st.builds(np.array, st.lists(st.floats(-10.0, 10.0), min_size=12, max_size=12)),
       dq=st.builds(np.array, st.lists(SPEEDS, min_size=12, max_size=12)))
def test_kinetic_energy_is_nonnegative_and_zero_only_at_rest(robot, q, dq):
    """1/2 dq^T M(q) dq >= 0 at any configuration (assembled or not), = 0 exactly when dq = 0, and the same
    as the quadratic form of mass_matrix; a batch of states gives the energy of each."""
    T = float(R.kinetic_energy(robot, q, dq))
    assert T >= 0.0
    assert (T == 0.0) == (not np.any(dq)), T
    M = R.mass_matrix(robot, q)
    assert math.isclose(T, 0.5 * dq @ M @ dq, rel_tol=1e-12, abs_tol=1e-300)
    Tb = R.kinetic_energy(robot, np.stack([q, q]), np.stack([dq, np.zeros(12)]))
    assert Tb.shape == (2,) and math.isclose(Tb[0], T, rel_tol=1e-14) and Tb[1] == 0.0
