"""The Stewart platform's model and parameter files (robolib.stewart.model)."""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest
import yaml
from fuzzing import SETTINGS, names
from hypothesis import assume, given
from hypothesis import strategies as st

from robolib import ParameterError, ParameterFileError, stewart
from robolib.core.params import resolve_data_path

# ==== parameter files and limit blocks ==============================================================================

SETS = ("tsai2000", "hydraulic")


#: Pose perturbation (m, m, m, rad, rad, rad) around home for random states.
SPREAD = np.array([0.1, 0.1, 0.1, 0.15, 0.15, 0.15])


def random_states(m, n, seed):
    rng = np.random.default_rng(seed)
    X = m.home_pose + rng.uniform(-1, 1, (n, 6)) * SPREAD
    V = rng.normal(size=(n, 6)) * [0.5, 0.5, 0.5, 1.0, 1.0, 1.0]
    dV = rng.normal(size=(n, 6)) * [3.0, 3.0, 3.0, 5.0, 5.0, 5.0]
    return X, V, dV


def raw(name):
    return yaml.safe_load(resolve_data_path(f"stewart/{name}.yaml").read_text())


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



# ==== loaders and model fields named ================================================================================

M = stewart.load("stewart/tsai2000.yaml")


RAW = yaml.safe_load(resolve_data_path("stewart/tsai2000.yaml").read_text())


BAD_FIELD = st.sampled_from([float("nan"), float("inf"), None, "x", True, -1.0, [], [[1.0]]])


@pytest.mark.fuzz
def test_with_names_an_unknown_or_bad_field():
    with pytest.raises(ParameterError, match="gravty"):
        M.with_(gravty=np.zeros(3))
    with pytest.raises(ParameterError, match="gravity"):
        M.with_(gravity=[0.0, 0.0, float("nan")])
    with pytest.raises(ParameterError, match="cylinder"):
        M.with_(cylinder=None)
    assert M.with_(ujoint_viscous=0.5).packed[stewart.model.OFF_FU] == 0.5


@pytest.mark.fuzz
def test_load_refuses_missing_and_malformed_files(tmp_path):
    with pytest.raises(ParameterFileError, match="nowhere.yaml"):
        stewart.load(tmp_path / "nowhere.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(ParameterFileError, match="not valid YAML"):
        stewart.load(bad)
    bad.write_bytes(b"\xff\xfe\x00name")
    with pytest.raises(ParameterFileError, match="bad.yaml"):
        stewart.load(bad)
    bad.write_text("- a list\n- not a mapping\n")
    with pytest.raises(ParameterFileError, match=names("top level", "mapping")):
        stewart.load(bad)
    raw = copy.deepcopy(RAW)
    raw["rod"]["mass"] = float("nan")
    bad.write_text(yaml.safe_dump(raw))
    with pytest.raises(ParameterFileError, match=names("bad.yaml", "rod.mass", "finite")):
        stewart.load(bad)
    for path in (None, 3, ["stewart/tsai2000.yaml"]):
        with pytest.raises(ParameterError, match="path"):
            stewart.load(path)


def _field_paths(d, prefix=""):
    for k, v in d.items():
        yield prefix + k
        if isinstance(v, dict):
            yield from _field_paths(v, prefix + k + ".")


FIELD_PATHS = sorted(_field_paths(RAW))


@pytest.mark.fuzz
@SETTINGS
@given(field=st.sampled_from(FIELD_PATHS), bad=BAD_FIELD)
def test_from_dict_names_a_bad_field(field, bad):
    assume(not (field == "name" and isinstance(bad, str)))
    data = copy.deepcopy(RAW)
    *path, key = field.split(".")
    node = data
    for p in path:
        node = node[p]
    node[key] = bad
    with pytest.raises(ParameterFileError, match=rf"'{re.escape(field)}'|: {re.escape(field)} must be a mapping"):
        stewart.from_dict(data)
