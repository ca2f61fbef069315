"""Stewart dynamics: checks that kill the mutants test_stewart.py and test_fuzz_stewart.py let live (make mutate).

The status words must name the right leg (1-based) and the right error class; the numpy route's default is the
U-joint-spin model, the one the compiled default (Newton-Euler) uses.
"""

import numpy as np
import pytest

from robolib import SingularityError, UnreachableError, stewart
from robolib.stewart import _kernels
from robolib.stewart import dynamics as D

MODEL = stewart.load("stewart/hydraulic.yaml")


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
    X = MODEL.home_pose + rng.uniform(-1, 1, (4, 6)) * [0.05, 0.05, 0.05, 0.1, 0.1, 0.1]
    V, dV = rng.normal(size=(4, 6)), rng.normal(size=(4, 6)) * 3.0
    f = D.inverse_dynamics_numpy(MODEL, X, V, dV)
    np.testing.assert_allclose(f, D.inverse_dynamics(MODEL, X, V, dV), rtol=1e-11, atol=1e-9)
    assert np.abs(f - D.inverse_dynamics_numpy(MODEL, X, V, dV, spin=False)).max() > 1e-9


def test_kinetic_energy_with_off_axis_leg_centres_of_mass():
    # the shipped legs have their centres of mass on the leg axis, where the cross term
    # 2 dl s . (omega x x_rod) of the rod's speed vanishes; off the axis V^T M V / 2 must still equal T
    from robolib.stewart.model import Body
    rod, cyl = MODEL.rod, MODEL.cylinder
    m = MODEL.with_(rod=Body(rod.mass, rod.com + np.array([0.03, -0.02, 0.0]), rod.inertia),
                    cylinder=Body(cyl.mass, cyl.com + np.array([-0.01, 0.025, 0.0]), cyl.inertia))
    rng = np.random.default_rng(9)
    X = m.home_pose + rng.uniform(-1, 1, (5, 6)) * [0.05, 0.05, 0.05, 0.1, 0.1, 0.1]
    V = rng.normal(size=(5, 6))
    T = stewart.dynamics_terms(m, X, V)
    ke = stewart.kinetic_energy(m, X, V)
    np.testing.assert_allclose(0.5 * np.einsum("ki,kij,kj->k", V, T.M, V), ke, rtol=1e-11)


def test_energy_and_batch_errors_name_the_arguments():
    from robolib import ParameterError
    X = np.tile(MODEL.home_pose, (2, 1))
    with pytest.raises(ParameterError, match="pose.*twist|twist.*pose"):
        stewart.kinetic_energy(MODEL, X, np.zeros((3, 6)))


def test_limit_messages_say_which_state():
    far = MODEL.home_pose + np.array([0.0, 0.0, 5.0, 0.0, 0.0, 0.0])          # every leg beyond its stroke
    with pytest.raises(UnreachableError, match="the state"):
        stewart.inverse_dynamics(MODEL, far, np.zeros(6), np.zeros(6))
    X = np.stack([MODEL.home_pose, far, far])
    with pytest.raises(UnreachableError, match="state 1 of the batch"):
        stewart.inverse_dynamics(MODEL, X, np.zeros(6), np.zeros(6))
