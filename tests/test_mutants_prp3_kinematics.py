"""3-PRP kinematics: checks that kill the mutants test_prp3.py and test_fuzz_prp3.py let live (make mutate).

A second parameter set in metres (every length below 1, so a constant slipping from 0 to 1 shows), a geometry
file in radians with every field distinct, the ``errors="mask"`` paths of every entry point, and the paper's rule
checked against the chain closure of every IK solution.
"""

import re
import warnings

import numpy as np
import pytest

from robolib import ParameterError, SingularityError, UnreachableError, prp3

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


# ------------------------------------------------------------------ survivors of the full run (issue 21, item 5)
# Exact geometries: every float operation below is exact, so each configuration sits ON a boundary.
#: r = 0: the point (0, 0, -l2) has b = 0 and disc = 0 on both sliders (both roots of lx and ly are 0).
R0 = prp3.Geometry(r=0.0)
R0_POINT = (0.0, 0.0, -500.0)
#: Tangent spheres, crank folded onto the rod: lx = ly = L80 puts the centres at (80, -+80, 0), (240, 0, 0);
#: the three spheres of radius 100 touch at J = (140, 0, 0) (z^2 = 0) and k3 / rho = 1 exactly.
TANGENT = prp3.Geometry(l0=80.0, l1=160.0, l2=100.0, r=0.0, h=0.0)
L80 = float(np.nextafter(80.0 * np.sqrt(2.0), 0.0))        # the double with L80 * sqrt(1/2) == 80.0 exactly
#: Exactly collinear centres at lx = ly = 400, theta = 0: c1 = (A, -A, 0), c2 = (A, A, 0), c3 = (A, 0, 0).
A400 = 400.0 * prp3.kinematics.SQRT1_2
COLLINEAR = prp3.Geometry(l0=A400 / 2, l1=A400 / 2, r=0.0, h=0.0)
#: Central-difference steps of the independent singularity measures (length, rad) and their tolerance.
FD_LEN, FD_ANG, FD_RTOL = 1e-4, 1e-6, 1e-6


def _fmt(P):
    return f"x={P[0]:.10g}, y={P[1]:.10g}, z={P[2]:.10g}"


def test_the_exact_boundary_geometries_are_exact():
    assert L80 * prp3.kinematics.SQRT1_2 == 80.0
    J = prp3.forward(TANGENT, L80, L80, 0.0)
    assert J.tolist() == [140.0, 0.0, 0.0]                             # the double root of tangent spheres
    np.testing.assert_allclose(_rod_lengths(TANGENT, L80, L80, 0.0, J), TANGENT.l2, rtol=1e-15)


def test_a_point_on_both_slider_mode_boundaries_is_reachable_and_at_the_actuator_limits():
    # disc = 0 exactly: reachable (>= 0), distance 0, roots lx = ly = 0 = the ends of their ranges (inclusive)
    d = prp3.mode_distance(R0, R0_POINT)
    assert d[:2].tolist() == [0.0, 0.0] and 0.5 < d[2] < 1.5
    lx, ly, th = prp3.inverse(R0, R0_POINT)
    assert (float(lx), float(ly)) == (0.0, 0.0)
    np.testing.assert_allclose(_rod_lengths(R0, lx, ly, th, R0_POINT), R0.l2, rtol=1e-14)
    edge = prp3.Geometry(r=0.0, lx_range=(-400.0, 0.0))                # lx = 0 is its max, ly = 0 its min
    assert np.isfinite(prp3.inverse(edge, R0_POINT)).all()
    sol = prp3.inverse_all(edge, R0_POINT)
    assert sol.within_limits.tolist() == [m[2] == 1 for m in prp3.ALL_MODES]   # theta < -pi/2 if sigma_3 = -1
    # both roots 0: neither is positive, the paper's slider rule does not decide
    with pytest.raises(prp3.RuleAmbiguityError, match="slider lx"):
        prp3.inverse(R0, R0_POINT, mode="paper")


def test_tangent_spheres_and_a_folded_crank_are_reachable():
    J = [140.0, 0.0, 0.0]
    d = prp3.mode_distance(TANGENT, J)                                 # |k3 / rho| = 1: on the crank's boundary
    np.testing.assert_allclose(d, [np.sqrt(200.0), np.sqrt(200.0), 0.0], rtol=1e-15)
    q = prp3.inverse(TANGENT, J, mode=(1, 1, 1))
    np.testing.assert_allclose(q, [L80, L80, 0.0], rtol=1e-15, atol=1e-15)


def test_exactly_and_nearly_collinear_centres_are_singular_not_unreachable():
    # theta = 0: the centres are exactly collinear (j = 0, y = -inf inside, no warning escapes)
    with pytest.raises(SingularityError, match="collinear"):
        prp3.forward(COLLINEAR, 400.0, 400.0, 0.0)
    # theta = 1e-12: j ~ 1.4e-10, below COLLINEAR_TOL * (max(d, |i|) + l2) ~ 1e-9
    with pytest.raises(SingularityError, match="collinear"):
        prp3.forward(COLLINEAR, 400.0, 400.0, 1e-12)
    # d ~ 1.4e-10: the two slider centres nearly coincide
    with pytest.raises(SingularityError, match="collinear"):
        prp3.forward(MM, MM.r + 1e-10, MM.r + 1e-10, 0.0)
    # the mirror root of collinear centres has no plane to mirror in: NaN, no warning
    assert np.isnan(prp3.mirror_root(COLLINEAR, 400.0, 400.0, 0.0, errors="mask")).all()
    # with the forward image given (forward's check skipped), errors="raise" still refuses it (it returned NaN)
    with pytest.raises(SingularityError, match="mirror_root: the sphere centres are collinear"):
        prp3.mirror_root(COLLINEAR, 400.0, 400.0, 0.0, points=[140.0, 0.0, 0.0])


def test_errors_name_the_first_bad_element_of_a_batch_and_count_them():
    with pytest.raises(SingularityError, match=r"lx=38, ly=38, theta=0\.3 \(first at index \(1,\); 1 of 2 inputs\)$"):
        prp3.forward(MM, [200.0, MM.r], [200.0, MM.r], [0.0, 0.3])
    with pytest.raises(SingularityError, match=r"jacobian.*: lx=38, ly=38, theta=0\.3$"):
        prp3.jacobian(MM, MM.r, MM.r, 0.3)
    with pytest.raises(UnreachableError, match=r"cannot meet: lx=386\.1317342, ly=365\.8262599, theta=-0\.11723993 "
                                               r"\(first at index \(1,\); 1 of 2 inputs\)$"):
        prp3.forward(MM, [200.0, 386.13173416], [200.0, 365.8262599], [0.0, -0.11723993])
    with pytest.raises(UnreachableError, match=r"theta outside .*: lx=200, ly=200, theta=1\.6$"):
        prp3.forward(MM, 200.0, 200.0, 1.6)
    # lx at the end of its (closed) range is valid and closes every chain
    np.testing.assert_allclose(_rod_lengths(MM, 400.0, 200.0, 0.0, prp3.forward(MM, 400.0, 200.0, 0.0)), MM.l2)


def test_inverse_errors_name_the_point_coordinates():
    P = (468.3, 327.4, -201.5)                                      # out of reach of chain 1 only
    with pytest.raises(UnreachableError, match=re.escape("chain 1 (slider lx): " + _fmt(P))):
        prp3.inverse(MM, P)
    J = prp3.forward(MM, 200.0, 150.0, 0.3)                           # both roots of a slider positive
    with pytest.raises(prp3.RuleAmbiguityError, match=re.escape(_fmt(J)) + "$"):
        prp3.inverse(MM, J, mode="paper")
    with pytest.raises(UnreachableError, match=re.escape("range [0, 400]: " + _fmt(J) + ", ly=")) as err:
        prp3.inverse(MM, J, mode=(-1, 1, -1))
    ly = float(str(err.value).rsplit("ly=", 1)[1])                   # the named root closes chain 2
    np.testing.assert_allclose(np.linalg.norm(J + MM.r * prp3.U2 - ly * prp3.U2), MM.l2, rtol=1e-9)
    P = (198.6, 94.9, -365.7)                                       # the paper's rules pick ly = 578.5 > 400
    with pytest.raises(UnreachableError, match=re.escape("in working mode paper's rules the solution ly lies "
                                                         "outside its actuator range [0, 400]: " + _fmt(P))):
        prp3.inverse(MM, P, mode="paper")


def test_the_paper_rule_on_a_single_point_and_on_masked_rows():
    q = (389.38410991, 119.36048921, -0.58438021)
    J = prp3.forward(MM, *q)
    np.testing.assert_allclose(prp3.inverse(MM, J, mode="paper"), q, atol=1e-9)   # a single point, shape ()
    out = prp3.inverse(MM, [J, (0.0, 0.0, -2000.0), (np.nan,) * 3], mode="paper", errors="mask")
    got = np.stack(out, -1)
    np.testing.assert_allclose(got[0], q, atol=1e-9)
    assert np.isnan(got[1:]).all()


def test_bad_value_messages_give_the_hint_the_index_and_the_shapes():
    with pytest.raises(ParameterError, match=r"inf at index 1 \(NaN inputs are accepted with errors='mask'\)$"):
        prp3.forward(MM, [200.0, np.inf], 200.0, 0.0)
    with pytest.raises(ParameterError, match=r"got inf \(only NaN marks a masked input with errors='mask'\)$"):
        prp3.forward(MM, np.inf, 200.0, 0.0, errors="mask")
    with pytest.raises(ParameterError, match=r"inf at index \(1, 2\) \(NaN rows are accepted with errors='mask'\)$"):
        prp3.inverse(MM, [[0.0, 0.0, -400.0], [0.0, 0.0, np.inf]])
    with pytest.raises(ParameterError, match=r"got inf at index 0 \(only NaN rows are accepted with errors='mask'\)$"):
        prp3.inverse(MM, [np.inf, 0.0, -400.0], errors="mask")
    with pytest.raises(ParameterError, match=r"lx has shape \(2,\), ly \(3,\), theta \(4,\)$"):
        prp3.forward(MM, [1.0, 2.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ParameterError, match=r"got None \(NoneType\)$"):
        prp3.inverse(MM, None)
    with pytest.raises(ParameterError, match=r"points must be an array of numbers"):
        prp3.inverse(MM, [[0.0, 0.0, -400.0], [0.0, 0.0]])                # ragged
    with pytest.raises(ParameterError, match=r"three signs \(\+1 or -1\) or 'paper', got mode="):
        prp3.inverse(MM, [0.0, 0.0, -400.0], mode=(1, 2, 1))
    with pytest.raises(ParameterError, match=r"three signs \(\+1 or -1\), got mode="):
        prp3.volume_hit_or_miss(MM, mode=(1, 2, 1), n=10)
    for mode in (iter(prp3.DEFAULT_MODE), b"\x01\x01\x01"):            # iterable but not a sequence of signs
        with pytest.raises(ParameterError, match="mode"):
            prp3.inverse(MM, [0.0, 0.0, -400.0], mode=mode)


def test_one_point_serves_a_batch_of_inputs_with_the_same_image():
    J = prp3.forward(MM, 200.0, 200.0, 0.0)
    modes = prp3.working_mode(MM, [200.0, 200.0], 200.0, 0.0, points=J)   # leading shape () with (2,)
    assert modes.tolist() == [list(prp3.DEFAULT_MODE)] * 2


def test_mode_distance_masks_nan_rows_and_points_on_the_crank_axis():
    J = prp3.forward(MM, 200.0, 200.0, 0.0)
    d = prp3.mode_distance(MM, [J, (np.nan,) * 3], errors="mask")
    np.testing.assert_allclose(d[0], prp3.mode_distance(MM, J), rtol=1e-15)
    assert np.isnan(d[1]).all()
    # on the crank axis (rho = 0): k3 != 0 gives k3 / rho = inf, k3 = 0 (3-4-5 lengths) gives 0 / 0
    axis = (MM.l0 - MM.r, 0.0, MM.h)
    assert np.isnan(prp3.mode_distance(MM, axis, errors="mask")[2])
    with pytest.raises(UnreachableError, match="chain 3"):
        prp3.mode_distance(MM, axis)
    g345 = prp3.Geometry(l0=1.0, l1=3.0, l2=5.0, r=0.0, h=0.0)
    assert np.isnan(prp3.mode_distance(g345, (1.0, 4.0, 0.0), errors="mask")[2])


def _measures_by_finite_differences(geom, q):
    """Singularity measures of one input from FK, slider points and central differences (not the closure matrices)."""
    q = np.asarray(q, float)
    J = prp3.forward(geom, *q, limits=False)
    rods = (J + geom.r * prp3.V - prp3.slider_points(geom, *q)) / geom.l2          # unit rod directions
    steps = np.diag([FD_LEN, FD_LEN, FD_ANG])
    motion = np.array([(prp3.slider_points(geom, *(q + s))[k] - prp3.slider_points(geom, *(q - s))[k]) / (2 * s[k])
                       for k, s in enumerate(steps)])                                  # dC_k / dq_k
    cosines = np.abs(np.einsum("kj,kj->k", rods, motion)) / np.linalg.norm(motion, axis=-1)
    jac = np.stack([(prp3.forward(geom, *(q + s), limits=False) - prp3.forward(geom, *(q - s), limits=False))
                    / (2 * s[k]) for k, s in enumerate(steps)], -1)
    jac[:, 2] /= geom.l1                                                 # theta as arc length of the crank
    return abs(np.linalg.det(rods)), cosines.min(), np.linalg.cond(jac)


def test_singularity_measures_match_finite_differences_and_mask_unreachable_inputs():
    geom = prp3.Geometry(l0=120.0, l1=170.0, l2=450.0, r=30.0, h=20.0)   # no parameter equal to another
    # generic inputs, then three near a mode boundary of chain 1, 2, 3 (where that chain's cosine is the minimum)
    q = np.array([[200.0, 200.0, 0.0], [320.0, 90.0, 0.7], [60.0, 250.0, -0.9], [150.0, 380.0, 1.2],
                  [250.1, 90.58, 1.53], [95.31, 263.78, 1.41], [332.44, 328.99, -0.59]])
    assert np.isfinite(prp3.forward(geom, *q.T)).all()
    ref = np.array([_measures_by_finite_differences(geom, row) for row in q])
    chains = [np.argmin(np.abs(prp3.closure_matrices(geom, *row)[1]) / [1, 1, geom.l1]) for row in q]
    batch = np.concatenate([q, [[400.0, 400.0, 0.0]]])                   # + an unreachable input
    assert not np.isfinite(prp3.forward(geom, *batch[-1], errors="mask")).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # a map over the box: NaN where unreachable, no warnings
        out = prp3.singularity_measures(geom, *batch.reshape(1, -1, 3).T.swapaxes(1, 2))   # shape (1, n)
    for got, want in zip(out, ref.T):
        assert got.shape == (1, len(batch))
        np.testing.assert_allclose(got[0, :-1], want, rtol=FD_RTOL)
        assert np.isnan(got[0, -1])
    assert set(chains) == {0, 1, 2}                 # each chain's cosine is the smallest at some input


def test_paper_rule_rates_do_not_depend_on_the_length_unit():
    lx, ly, th = prp3.sample_inputs(MM, 3000, seed=4)
    mm = prp3.paper_rule_outcome(MM, lx, ly, th)
    um = prp3.Geometry(l0=137500.0, l1=200000.0, l2=500000.0, r=38000.0, h=35000.0, lx_range=(0.0, 4e5),
                       ly_range=(0.0, 4e5), unit="um")
    nm = prp3.Geometry(l0=137.5e6, l1=200e6, l2=500e6, r=38e6, h=35e6, lx_range=(0.0, 4e8), ly_range=(0.0, 4e8),
                       unit="nm")
    for geom, scale in ((METRE, 1e-3), (um, 1e3), (nm, 1e6)):
        out = prp3.paper_rule_outcome(geom, lx * scale, ly * scale, th)
        assert out.n == mm.n
        np.testing.assert_allclose(out[:4], mm[:4], atol=1.5 / mm.n)
    assert 0.05 < mm.slider_hit < 0.95 and 0.05 < mm.crank_hit <= 1.0


def test_paper_rule_crank_on_its_fold_where_rounding_leaves_the_acos_domain():
    # the rod folded back onto the crank (|k3 / rho| = 1): the FK images of these inputs give |k3/rho| = 1 +- eps
    th = np.linspace(-1.5, 1.5, 61)
    fold = np.stack([np.cos(th), 0.0 * th, np.sin(th)], -1)
    for geom in (MM, prp3.Geometry(l1=200.0, l2=150.0)):             # k3 / rho = -1, then +1
        P = geom.crank_pivot - geom.r * prp3.V[2] + (geom.l1 - geom.l2) * fold
        Q = prp3.inverse_all(geom, P).q.reshape(-1, 3)
        back = prp3.forward(geom, *Q.T, errors="mask", limits=False)
        Q = Q[np.abs(back - np.repeat(P, 8, 0)).max(-1) < 1e-6]    # inputs whose FK root is that point
        assert len(Q) > 20
        assert prp3.paper_rule_outcome(geom, *Q.T).crank_hit == 1.0


def test_the_slider_rule_misses_a_negative_input_whose_other_root_is_barely_positive():
    # rail 1 meets the sphere of radius l2 about w1 = J + r u1 at s = eps and s = m: the rule takes eps > 0,
    # the true input is m < 0, so the rule misses (however close eps is to 0); slider 2's input is its positive root
    eps, m = 1e-4, -50.0
    half = (eps - m) / 2
    c = -400.0
    a = -np.sqrt(MM.l2 ** 2 - half ** 2 - c ** 2)
    J = (eps + m) / 2 * prp3.U1 + a * prp3.U2 + c * np.array([0.0, 0.0, 1.0]) - MM.r * prp3.U1
    q = prp3.inverse(MM, J, mode=(-1, 1, 1), limits=False)
    np.testing.assert_allclose(q[0], m, atol=1e-9)
    np.testing.assert_allclose(prp3.forward(MM, *q, limits=False), J, atol=1e-9)   # FK gives this root back
    roots = prp3.inverse_all(MM, J).q[:, :2]
    np.testing.assert_allclose(roots.max(0)[0], eps, atol=1e-9)
    assert roots.min(0)[1] < 0 < roots.max(0)[1] == pytest.approx(float(q[1]))
    out = prp3.paper_rule_outcome(MM, *q)
    assert (out.slider_hit, out.slider_ambiguous, out.crank_hit, out.n) == (0.0, 0.0, 1.0, 1)
