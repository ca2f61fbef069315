"""3-PRP kinematics: checks that kill the mutants test_prp3.py and test_fuzz_prp3.py let live (make mutate).

A second parameter set in metres (every length below 1, so a constant slipping from 0 to 1 shows), a geometry
file in radians with every field distinct, the ``errors="mask"`` paths of every entry point, and the paper's rule
checked against the chain closure of every IK solution.
"""

import numpy as np
import pytest

from robolib import ParameterError, UnreachableError, prp3

MM = prp3.Geometry()
#: The paper's robot in metres (the same shape, lengths / 1000).
METRE = prp3.Geometry(l0=0.1375, l1=0.2, l2=0.5, r=0.038, h=0.035, lx_range=(0.0, 0.4), ly_range=(0.0, 0.4),
                      unit="m")
#: Chain-closure tolerance (m) of the metre geometry.
CLOSE_TOL = 1e-12


def _rod_lengths(geom, lx, ly, theta, P):
    C = prp3.slider_points(geom, lx, ly, theta)
    return np.linalg.norm(np.asarray(P)[..., None, :] + geom.r * prp3.V - C, axis=-1)


def test_lengths_below_one_are_a_valid_geometry_and_scale_the_kinematics():
    J_mm = prp3.forward(MM, 200.0, 150.0, 0.3)
    J_m = prp3.forward(METRE, 0.2, 0.15, 0.3)
    np.testing.assert_allclose(J_m, J_mm / 1000.0, rtol=1e-12)
    np.testing.assert_allclose(_rod_lengths(METRE, 0.2, 0.15, 0.3, J_m), METRE.l2, atol=CLOSE_TOL)
    lx, ly, th = prp3.inverse(METRE, J_m, mode=tuple(prp3.working_mode(METRE, 0.2, 0.15, 0.3)))
    np.testing.assert_allclose([lx, ly, th], [0.2, 0.15, 0.3], atol=1e-12)


def test_a_non_finite_dimension_is_named_with_its_sign_condition():
    with pytest.raises(ParameterError, match=r"l0 must be a finite positive number, got nan"):
        prp3.Geometry(l0=float("nan"))
    with pytest.raises(ParameterError, match=r"r must be a finite non-negative number"):
        prp3.Geometry(r=float("inf"))
    with pytest.raises(ParameterError, match=r"h must be a finite number"):
        prp3.Geometry(h=float("inf"))


def test_geometry_file_in_radians_with_distinct_fields(tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text("name: t\nunits: {length: m, angle: rad}\nl0: 0.13\nl1: 0.21\nl2: 0.52\nr: 0.037\nh: 0.034\n"
                    "lx_range: [0.01, 0.41]\nly_range: [0.02, 0.42]\ntheta_range: [-1.2, 1.3]\n")
    g = prp3.load_geometry(path)
    assert (g.l0, g.l1, g.l2, g.r, g.h) == (0.13, 0.21, 0.52, 0.037, 0.034)
    assert g.lx_range == (0.01, 0.41) and g.ly_range == (0.02, 0.42) and g.theta_range == (-1.2, 1.3)
    assert g.unit == "m"
    path.write_text(path.read_text().replace("angle: rad", "angle: deg").replace("[-1.2, 1.3]", "[-90, 45]"))
    assert prp3.load_geometry(path).theta_range == pytest.approx((-np.pi / 2, np.pi / 4), rel=1e-15)


def test_a_scalar_input_is_named_without_a_batch_index():
    with pytest.raises(UnreachableError) as err:
        prp3.forward(MM, 200.0, 200.0, 1.6)
    assert str(err.value).endswith("lx=200, ly=200, theta=1.6")
    with pytest.raises(UnreachableError, match=r"theta=1\.6 \(first at index \(1,\); 1 of 2 inputs\)$"):
        prp3.forward(MM, 200.0, 200.0, [0.0, 1.6])


def test_mirror_root_ignores_the_actuator_ranges_and_masks_nan():
    J = prp3.forward(MM, 200.0, 200.0, 1.6, limits=False)          # theta beyond its range, reachable
    M = prp3.mirror_root(MM, 200.0, 200.0, 1.6)
    np.testing.assert_allclose(_rod_lengths(MM, 200.0, 200.0, 1.6, M), MM.l2, rtol=1e-12)
    assert np.linalg.norm(M - J) > 1.0
    out = prp3.mirror_root(MM, [200.0, np.nan], 200.0, 0.0, errors="mask")
    assert np.isfinite(out[0]).all() and np.isnan(out[1]).all()
    P = prp3.forward(MM, [200.0, 200.0], 200.0, 0.0)
    P[1] = np.nan
    out = prp3.mirror_root(MM, [200.0, 200.0], 200.0, 0.0, P, errors="mask")
    assert np.isfinite(out[0]).all() and np.isnan(out[1]).all()


def test_closure_matrices_and_jacobian_mask_nan_rows():
    P = prp3.forward(MM, [200.0, 200.0], 200.0, 0.0)
    A, bq = prp3.closure_matrices(MM, [200.0, np.nan], 200.0, 0.0, errors="mask")
    assert np.isfinite(A[0]).all() and np.isnan(A[1]).all()
    P[1] = np.nan
    A, bq = prp3.closure_matrices(MM, [200.0, 200.0], 200.0, 0.0, P, errors="mask")
    assert np.isfinite(A[0]).all() and np.isnan(A[1]).all()
    Jac = prp3.jacobian(MM, [200.0, np.nan], 200.0, 0.0, errors="mask")
    np.testing.assert_allclose(Jac[0], prp3.jacobian(MM, 200.0, 200.0, 0.0), rtol=1e-14)
    assert np.isnan(Jac[1]).all()
    with pytest.raises(ParameterError, match="lx"):
        prp3.jacobian(MM, np.nan, 200.0, 0.0)


def test_paper_rule_takes_the_positive_root_that_closes_the_chains():
    rng = np.random.default_rng(1)
    lx, ly, th = rng.uniform(-0.4, 0.6, 2000), rng.uniform(-0.4, 0.6, 2000), rng.uniform(-1.5, 1.5, 2000)
    J = prp3.forward(METRE, lx, ly, th, errors="mask", limits=False)
    q = np.stack(prp3.inverse(METRE, J, mode="paper", errors="mask", limits=False), -1)
    ok = np.isfinite(q).all(-1)
    assert ok.sum() > 500
    q, J = q[ok], J[ok]
    np.testing.assert_allclose(_rod_lengths(METRE, q[:, 0], q[:, 1], q[:, 2], J), METRE.l2, atol=CLOSE_TOL)
    assert (q[:, :2] > 0).all()
    # the other root of each slider (from all eight IK solutions) is not positive: the rule decided
    sol = prp3.inverse_all(METRE, J).q
    for k in range(2):
        other = np.where(np.isclose(sol[:, 0, k], q[:, k], atol=1e-9), sol[:, -1, k], sol[:, 0, k])
        assert (other <= 1e-12).all()
    assert np.all(np.abs(q[:, 2]) <= np.abs(sol[:, :, 2]).min(-1) + 1e-12)   # the crank root of smaller |theta|


def test_paper_rule_outcome_counts_inputs_outside_the_actuator_ranges():
    out = prp3.paper_rule_outcome(MM, [200.0, 200.0, -30.0], 200.0, [0.0, 1.6, 0.0])
    assert out.n == 3
    assert out.crank_hit == 1.0
