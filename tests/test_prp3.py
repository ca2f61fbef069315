"""Verification of the 3-PRP kinematics (the Models page of the book, section Verification)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.optimize import least_squares

import robolib
from robolib import prp3

GEOM = prp3.Geometry()
N_BIG = 1_000_000
#: Round-trip targets of the issue, for inputs at least FAR_LEN / FAR_ANG from a mode boundary.
TOL_LEN, TOL_ANG = 1e-9, 1e-12
FAR_LEN, FAR_ANG = 1.0, 1e-3


@pytest.fixture(scope="module")
def big_round_trip():
    return prp3.round_trip(GEOM, N_BIG, seed=20241129)


def closure_residual(geom, q, P):
    C = prp3.slider_points(geom, q[..., 0], q[..., 1], q[..., 2])
    rods = P[..., None, :] + geom.r * prp3.V - C
    return np.abs(np.linalg.norm(rods, axis=-1) - geom.l2)


# ----------------------------------------------------------------------------- round trips
def test_home_input_defines_the_default_mode():
    assert tuple(prp3.working_mode(GEOM, 200.0, 200.0, 0.0)) == prp3.DEFAULT_MODE


def test_round_trip_1e6_default_mode_far_from_boundaries(big_round_trip):
    rt = big_round_trip
    assert len(rt.q) + rt.n_unreachable == N_BIG
    default = np.all(rt.mode == prp3.DEFAULT_MODE, axis=1)
    far = (rt.distance[:, 0] >= FAR_LEN) & (rt.distance[:, 1] >= FAR_LEN) & (rt.distance[:, 2] >= FAR_ANG)
    sel = default & far
    assert sel.sum() > 0.15 * N_BIG  # the default mode is a large share of the box
    err = rt.error[sel]
    assert err[:, :2].max() < TOL_LEN
    assert err[:, 2].max() < TOL_ANG


def test_round_trip_every_mode_is_accurate_near_boundaries_too(big_round_trip):
    rt = big_round_trip
    assert np.all(np.isfinite(rt.error))
    assert len(np.unique(rt.mode, axis=0)) == 8  # a uniform box sample meets all eight modes
    far = (rt.distance[:, 0] >= FAR_LEN) & (rt.distance[:, 1] >= FAR_LEN) & (rt.distance[:, 2] >= FAR_ANG)
    for m in prp3.ALL_MODES:
        sel = far & np.all(rt.mode == m, axis=1)
        assert rt.error[sel, :2].max() < TOL_LEN, m
        assert rt.error[sel, 2].max() < 1e-11, m
    # near a boundary the slider error is bounded by c / distance (see the error-law test)
    for k in range(2):
        d = np.maximum(rt.distance[:, k], 1e-300)
        assert np.max(rt.error[:, k] * d) < 1e-9


#: Exponent of the slider round-trip error against the distance from the mode boundary:
#: a rounding error dD of the discriminant D moves the root by dD / (2 sqrt(D)), and
#: sqrt(D) is the distance, so error ~ distance**-1 (spec, "The paper's experiment").
PREDICTED_EXPONENT, EXPONENT_TOL = -1.0, 0.1


def test_error_law_exponent_is_minus_one(big_round_trip):
    """The fitted exponent of the largest-error curve is -1 within 0.1 (not -1/2, and not only a bound)."""
    rt = big_round_trip
    law = prp3.error_law(rt.distance[:, :2].ravel(), rt.error[:, :2].ravel(), draws=20, seed=1)
    assert abs(law.exponent - PREDICTED_EXPONENT) < EXPONENT_TOL, law.exponent
    assert law.fit_range[0] < 0.05 and law.fit_range[1] > 100.0  # the fit spans > 3 decades
    assert len(law.centres) >= 20
    # the residuals of the fitted line are small: one power law over the whole range
    resid = np.log10(law.worst) - (law.log10_prefactor + law.exponent * np.log10(law.centres))
    assert np.abs(resid).max() < 0.5
    # the plain per-bin maxima (count-biased) give a shallower, but still not -1/2, slope
    assert -1.0 < law.raw_exponent < -0.75
    # prefactor: some units of rounding of D ~ eps * l2^2 (within a factor 30)
    c = 10 ** law.log10_prefactor
    eps = np.finfo(float).eps
    assert eps * GEOM.l2 ** 2 / 30 < c < 30 * eps * GEOM.l2 ** 2


def test_error_law_recovers_a_known_exponent_and_rejects_bad_input():
    rng = np.random.default_rng(2)
    d = 10 ** rng.uniform(-3, 2.5, 200_000)
    for p in (-0.5, -1.0, -2.0):
        e = 1e-10 * d ** p * rng.uniform(0.2, 1.0, d.size)
        assert prp3.error_law(d, e, lo=1e-3).exponent == pytest.approx(p, abs=0.05)
    with pytest.raises(robolib.ParameterError, match="differ in shape"):
        prp3.error_law(d, d[:-1])
    with pytest.raises(robolib.ParameterError, match="usable samples"):
        prp3.error_law(d[:10], d[:10])


def test_round_trip_keeps_points_and_clips_rounding_at_the_boundary(big_round_trip):
    rt = big_round_trip
    assert rt.points.shape == rt.q.shape and np.isfinite(rt.points).all()
    assert np.isfinite(rt.distance).all()
    back = prp3.forward(GEOM, *rt.q[:1000].T)
    assert np.array_equal(back, rt.points[:1000])


def test_fk_of_ik_recovers_points_or_their_mirror_image():
    """FK(IK(P, mode)) == P when P lies below the plane of that solution's
    sphere centres (the FK branch), and P mirrored through that plane otherwise."""
    lx, ly, th = prp3.sample_inputs(GEOM, 20_000, seed=3)
    P = prp3.forward(GEOM, lx, ly, th, errors="mask")
    P = P[np.isfinite(P).all(-1)]
    n_same = 0
    for m in prp3.ALL_MODES:
        q = np.stack(prp3.inverse(GEOM, P, mode=m, errors="mask", limits=False), -1)
        assert np.isfinite(q).all()  # without limits every mode reaches every sampled point
        back = prp3.forward(GEOM, *q.T, errors="mask", limits=False)
        c = prp3.sphere_centres(GEOM, *q.T)
        n = np.cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0])
        n /= np.linalg.norm(n, axis=1, keepdims=True) * np.sign(n[:, 2:3])
        height = np.einsum("ij,ij->i", P - c[:, 0], n)
        below = height < 0
        mirrored = P - 2 * height[:, None] * n
        err = np.where(below, np.linalg.norm(back - P, axis=-1), np.linalg.norm(back - mirrored, axis=-1))
        # FK is ill-conditioned near a forward singularity (rods nearly coplanar,
        # e.g. P near the centres' plane or c1 near c2): error ~ eps / measure
        fwd = prp3.singularity_measures(GEOM, *q.T).forward
        assert err[fwd > 1e-3].max() < 1e-9
        assert np.max(err * fwd) < 1e-13 * GEOM.l2
        n_same += below.sum()
    assert n_same > 4 * len(P)  # most solutions are on the FK branch


def test_closure_residuals_at_fk_outputs():
    lx, ly, th = prp3.sample_inputs(GEOM, 100_000, seed=4)
    P = prp3.forward(GEOM, lx, ly, th, errors="mask")
    ok = np.isfinite(P).all(-1)
    res = closure_residual(GEOM, np.stack([lx, ly, th], -1)[ok], P[ok])
    assert res.max() < 1e-10 * GEOM.l2


def test_fk_root_is_below_the_plane_of_the_centres():
    lx, ly, th = prp3.sample_inputs(GEOM, 10_000, seed=5)
    P = prp3.forward(GEOM, lx, ly, th, errors="mask")
    ok = np.isfinite(P).all(-1)
    c = prp3.sphere_centres(GEOM, lx, ly, th)[ok]
    n = np.cross(c[:, 1] - c[:, 0], c[:, 2] - c[:, 0])
    n *= np.sign(n[:, 2:3])
    assert np.all(np.einsum("ij,ij->i", P[ok] - c[:, 0], n) < 0)


def test_fk_matches_a_generic_numerical_solve():
    """scipy least-squares on the three closure equations from a start 20 mm away."""
    rng = np.random.default_rng(6)
    lx, ly, th = prp3.sample_inputs(GEOM, 200, seed=6)
    P = prp3.forward(GEOM, lx, ly, th, errors="mask")
    worst = 0.0
    for k in np.flatnonzero(np.isfinite(P).all(-1))[:100]:
        C = prp3.sphere_centres(GEOM, lx[k], ly[k], th[k])
        start = P[k] + rng.normal(scale=20.0, size=3)
        sol = least_squares(lambda J: np.linalg.norm(J - C, axis=-1) - GEOM.l2, start, xtol=1e-15, ftol=1e-15, gtol=1e-15)
        worst = max(worst, np.linalg.norm(sol.x - P[k]))
    assert worst < 1e-8


def test_jacobian_matches_central_differences():
    lx, ly, th = prp3.sample_inputs(GEOM, 500, seed=7)
    keep = np.isfinite(prp3.forward(GEOM, lx, ly, th, errors="mask")).all(-1)
    keep &= prp3.singularity_measures(GEOM, lx, ly, th).forward > 1e-3
    lx, ly, th = lx[keep], ly[keep], th[keep]
    jac = prp3.jacobian(GEOM, lx, ly, th)
    steps = (1e-4, 1e-4, 1e-7)
    fd = np.empty_like(jac)
    for k, hstep in enumerate(steps):
        q_hi = [lx, ly, th]
        q_lo = [lx, ly, th]
        q_hi = [a + (hstep if i == k else 0.0) for i, a in enumerate(q_hi)]
        q_lo = [a - (hstep if i == k else 0.0) for i, a in enumerate(q_lo)]
        fd[..., k] = (prp3.forward(GEOM, *q_hi, limits=False) - prp3.forward(GEOM, *q_lo, limits=False)) / (2 * hstep)
    scale = np.linalg.norm(jac, axis=(-2, -1), keepdims=True)
    assert np.max(np.abs(fd - jac) / scale) < 1e-6


def test_y_mirror_symmetry():
    lx, ly, th = prp3.sample_inputs(GEOM, 10_000, seed=8)
    a = prp3.forward(GEOM, lx, ly, th, errors="mask")
    b = prp3.forward(GEOM, ly, lx, th, errors="mask")
    ok = np.isfinite(a).all(-1)
    assert np.array_equal(ok, np.isfinite(b).all(-1))
    assert np.max(np.abs(prp3.mirror_y(a[ok]) - b[ok])) < 1e-10


def test_inverse_all_contains_the_input_and_every_solution_closes():
    lx, ly, th = prp3.sample_inputs(GEOM, 2_000, seed=9)
    P = prp3.forward(GEOM, lx, ly, th, errors="mask")
    ok = np.isfinite(P).all(-1)
    q, P = np.stack([lx, ly, th], -1)[ok], P[ok]
    sol = prp3.inverse_all(GEOM, P)
    assert sol.q.shape == (len(P), 8, 3)
    res = closure_residual(GEOM, sol.q[sol.real], np.repeat(P[:, None], 8, 1)[sol.real])
    assert res.max() < 1e-9
    dist = np.abs(sol.q - q[:, None, :]).max(-1)
    assert np.all(np.nanmin(dist, axis=1) < 1e-7)
    assert np.all(sol.within_limits.sum(1) >= 1)


def test_paper_rules_hit_rates_match_a_direct_count():
    lx, ly, th = prp3.sample_inputs(GEOM, 3_000, seed=10)
    out = prp3.paper_rule_outcome(GEOM, lx, ly, th)
    # direct count through inverse_all: rule picks per chain, compared with the true input
    P = prp3.forward(GEOM, lx, ly, th, errors="mask")
    ok = np.isfinite(P).all(-1)
    q = np.stack([lx, ly, th], -1)[ok]
    sol = prp3.inverse_all(GEOM, P[ok]).q  # (m, 8, 3); modes ordered by itertools.product
    hits = []
    for i in range(len(q)):
        s_roots = [{sol[i, 0, 0], sol[i, 4, 0]}, {sol[i, 0, 1], sol[i, 2, 1]}]
        slider_ok = True
        for k, roots in enumerate(s_roots):
            pos = [r for r in roots if r > 0]
            slider_ok &= len(pos) == 1 and abs(pos[0] - q[i, k]) < 1e-6
        t_roots = [sol[i, 0, 2], sol[i, 1, 2]]
        t_pick = min(t_roots, key=abs)
        hits.append((slider_ok, abs(t_pick - q[i, 2]) < 1e-6))
    hits = np.array(hits)
    assert out.n == len(q)
    assert out.slider_hit == pytest.approx(hits[:, 0].mean(), abs=1e-12)
    assert out.crank_hit == pytest.approx(hits[:, 1].mean(), abs=1e-12)
    assert out.all_hit == pytest.approx(hits.all(1).mean(), abs=1e-12)
    assert out.all_hit < 1.0  # the rules are not a unique choice for this geometry


# ----------------------------------------------------------------------------- workspace
def test_workspace_volume_jacobian_integral_matches_hit_or_miss():
    """Volume of the default mode two ways: the integral of |det dJ/dq| over the
    inputs of that mode, and hit-or-miss sampling of task space through the IK."""
    ws = prp3.workspace(GEOM, n=400_000, seed=11)
    assert sum(w.fraction for m, w in ws.items() if m is not None) == pytest.approx(ws[None].fraction)
    w = ws[prp3.DEFAULT_MODE]
    vol, se = prp3.volume_hit_or_miss(GEOM, prp3.DEFAULT_MODE, n=400_000, seed=12)
    assert w.volume_jacobian_se < 0.02 * w.volume_jacobian
    assert abs(vol - w.volume_jacobian) < 4 * np.hypot(se, w.volume_jacobian_se)
    # sampled workspace points are inside by the membership test
    assert prp3.in_workspace(GEOM, w.points[:5000]).all()


def test_workspace_is_mirror_symmetric_in_y():
    ws = prp3.workspace(GEOM, n=200_000, seed=13)
    ext = ws[None].extents
    assert ext[1, 0] == pytest.approx(-ext[1, 1], rel=0.02)
    # mode (s1, s2, s3) mirrors to (s2, s1, s3): same volume
    a, b = ws[(-1, 1, 1)], ws[(1, -1, 1)]
    assert a.volume_jacobian == pytest.approx(b.volume_jacobian, abs=4 * np.hypot(a.volume_jacobian_se, b.volume_jacobian_se))


# ----------------------------------------------------------------------------- bad input
def test_unreachable_and_singular_inputs_raise_named_errors():
    lx, ly, th = prp3.sample_inputs(GEOM, 100_000, seed=12)
    masked = ~np.isfinite(prp3.forward(GEOM, lx, ly, th, errors="mask")).all(-1)
    k = np.flatnonzero(masked)[0]
    with pytest.raises(robolib.UnreachableError, match=r"cannot meet: lx=.*ly=.*theta="):
        prp3.forward(GEOM, lx[k], ly[k], th[k])
    with pytest.raises(robolib.UnreachableError, match=r"first at index \(\d+,\)"):
        prp3.forward(GEOM, lx, ly, th)
    with pytest.raises(robolib.UnreachableError, match="lx outside its actuator range"):
        prp3.forward(GEOM, -5.0, 100.0, 0.0)
    with pytest.raises(robolib.SingularityError, match="collinear"):
        prp3.forward(GEOM, GEOM.r, GEOM.r, 0.3)  # c1 = c2 = origin
    with pytest.raises(ValueError):  # both error classes are also ValueErrors
        prp3.forward(GEOM, GEOM.r, GEOM.r, 0.3)
    with pytest.raises(robolib.UnreachableError, match="out of reach of chain"):
        prp3.inverse(GEOM, [0.0, 0.0, -2000.0])
    with pytest.raises(robolib.UnreachableError, match="working mode .* outside its actuator range"):
        prp3.inverse(GEOM, prp3.forward(GEOM, 200.0, 200.0, 0.0), mode=(1, 1, -1))


# One point per chain that the other two chains reach and this one cannot (no actuator limits).
#: chain 2: the rod of length l2 cannot reach slider 2's rail from this point;
#: chain 1: its mirror image in y; chain 3: too close to the crank pivot (|w| < l2 - l1).
CHAIN_POINTS = {1: (468.3, 327.4, -201.5), 2: (468.3, -327.4, -201.5), 3: (-100.0, 0.0, -175.0)}
CHAIN_NAMES = {1: "chain 1 (slider lx)", 2: "chain 2 (slider ly)", 3: "chain 3 (crank theta)"}


#: The crank pin's circle (unit radius, XZ plane) at 20001 angles: distances to it bracket l2 iff chain 3 reaches.
_CRANK_T = np.linspace(-np.pi, np.pi, 20001)
_CRANK_CIRCLE = np.stack([np.cos(_CRANK_T), np.zeros_like(_CRANK_T), np.sin(_CRANK_T)], -1)


def _reach(P):
    """Reachability of each chain computed here from the geometry, independently of prp3.inverse."""
    P = np.asarray(P, float)
    out = []
    for k, u in ((0, prp3.U1), (1, prp3.U2)):
        # chain k reaches P iff the rail line {s u} comes within l2 of the sphere centre w = P + r v_k
        w = P + GEOM.r * prp3.V[k]
        out.append(np.linalg.norm(w - (w @ u) * u) <= GEOM.l2)
    # crank: the circle of radius l1 about the pivot in the XZ plane meets the sphere of radius l2 about w
    w = P + GEOM.r * prp3.V[2] - GEOM.crank_pivot
    dist = np.linalg.norm(w - GEOM.l1 * _CRANK_CIRCLE, axis=1)
    out.append(dist.min() <= GEOM.l2 <= dist.max())
    return out


@pytest.mark.parametrize("chain", [1, 2, 3])
def test_a_point_only_one_chain_cannot_reach_raises_naming_that_chain(chain):
    P = np.array(CHAIN_POINTS[chain])
    reach = _reach(P)
    assert reach == [k + 1 != chain for k in range(3)], reach  # the example is what it claims to be
    others = "|".join(re.escape(CHAIN_NAMES[k]) for k in CHAIN_NAMES if k != chain)
    for mode in prp3.ALL_MODES:
        with pytest.raises(robolib.UnreachableError, match=re.escape(f"out of reach of {CHAIN_NAMES[chain]}: x=")) as exc:
            prp3.inverse(GEOM, P, mode=mode, limits=False)
        assert not re.search(others, str(exc.value))
    # in a batch: the error names the chain and the row; masked, only that row is NaN
    batch = np.array([prp3.forward(GEOM, 200.0, 200.0, 0.0), P, prp3.forward(GEOM, 100.0, 300.0, 0.5)])
    with pytest.raises(robolib.UnreachableError, match=re.escape(CHAIN_NAMES[chain]) + r".*first at index \(1,\); 1 of 3"):
        prp3.inverse(GEOM, batch, mode=(-1, -1, 1), limits=False)
    q = np.stack(prp3.inverse(GEOM, batch, mode=(-1, -1, 1), errors="mask", limits=False), -1)
    assert np.isnan(q[1]).all() and np.isfinite(q[[0, 2]]).all()
    # the other two chains do have real solutions there
    parts = prp3._ik_parts(GEOM, P)
    ok = [parts.disc[0] >= 0, parts.disc[1] >= 0, abs(parts.ratio) <= 1]
    assert ok == reach


def test_every_chain_check_is_exercised_by_a_random_sample():
    """Points of a box: inverse raises (or masks) exactly where the independent test says some chain fails."""
    rng = np.random.default_rng(21)
    P = rng.uniform([-200, -500, -600], [800, 500, 200], size=(300, 3))
    q = np.stack(prp3.inverse(GEOM, P, errors="mask", limits=False), -1)
    expected = np.array([all(_reach(p)) for p in P])
    assert 0.2 < expected.mean() < 0.9
    assert np.array_equal(np.isfinite(q).all(-1), expected)
    for p, e in zip(P[:60], expected[:60]):
        reach = _reach(p)
        if e:
            prp3.inverse(GEOM, p, limits=False)
            continue
        first = reach.index(False) + 1
        with pytest.raises(robolib.UnreachableError, match=re.escape(CHAIN_NAMES[first])):
            prp3.inverse(GEOM, p, limits=False)


def test_paper_rules_option_of_inverse():
    lx, ly, th = prp3.sample_inputs(GEOM, 20_000, seed=22)
    P = prp3.forward(GEOM, lx, ly, th, errors="mask")
    ok = np.isfinite(P).all(-1)
    q = np.stack([lx, ly, th], -1)[ok]
    got = np.stack(prp3.inverse(GEOM, P[ok], mode=prp3.PAPER_RULES, errors="mask", limits=False), -1)
    decided = np.isfinite(got).all(-1)
    hit = decided & np.all(np.abs(got - q) < 1e-6, axis=-1)
    out = prp3.paper_rule_outcome(GEOM, lx, ly, th)
    assert hit.mean() == pytest.approx(out.all_hit, abs=1e-12)
    assert (~decided).mean() == pytest.approx(out.slider_ambiguous, abs=1e-12)
    with pytest.raises(prp3.RuleAmbiguityError, match="slider lx has two positive roots"):
        prp3.inverse(GEOM, prp3.forward(GEOM, 200.0, 200.0, 0.0), mode="paper")
    assert issubclass(prp3.RuleAmbiguityError, robolib.RobolibError)
    with pytest.raises(robolib.ParameterError, match="three signs"):
        prp3.inverse(GEOM, P[ok][:1], mode="papers")


def test_masked_rows_are_nan_and_selectable():
    P = prp3.forward(GEOM, [200.0, GEOM.r, 500.0], [200.0, GEOM.r, 200.0], 0.0, errors="mask")
    assert np.isfinite(P[0]).all() and np.isnan(P[1:]).all()
    q = prp3.inverse(GEOM, P, errors="mask")
    assert np.isfinite(q[0][0]) and np.isnan(q[0][1:]).all()


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: prp3.inverse(GEOM, [1.0, 2.0]), r"shape \(\.\.\., 3\), got shape \(2,\)"),
        (lambda: prp3.inverse(GEOM, [[0, 0, -400]], mode=(1, 0, 1)), "three signs"),
        (lambda: prp3.inverse(GEOM, [np.nan, 0, -400]), "NaN"),
        (lambda: prp3.forward(GEOM, [1.0, 2.0], [1.0, 2.0, 3.0], 0.0), "do not broadcast"),
        (lambda: prp3.forward(GEOM, 200.0, 200.0, 0.0, errors="ignore"), "errors must be"),
        (lambda: prp3.Geometry(l1=0.0), "l1 must be positive"),
        (lambda: prp3.Geometry(lx_range=(400.0, 0.0)), "lx_range"),
        (lambda: prp3.sample_inputs(GEOM, 0, seed=1), "positive integer"),
    ],
)
def test_bad_input_messages(call, match):
    with pytest.raises(robolib.ParameterError, match=match):
        call()


def test_jacobian_at_a_forward_singularity_raises():
    # the collinear-centres input is singular for the Jacobian too
    with pytest.raises(robolib.SingularityError, match="jacobian"):
        prp3.jacobian(GEOM, GEOM.r, GEOM.r, 0.3)


def test_geometry_file_round_trip_and_errors(tmp_path):
    assert prp3.load_geometry("prp3/paper.yaml") == GEOM
    text = robolib.resolve_data_path("prp3/paper.yaml").read_text()
    broken = tmp_path / "broken.yaml"
    broken.write_text(text.replace("l2: 500.0", "l2: five hundred"))
    with pytest.raises(robolib.ParameterFileError, match=r"broken.yaml: field 'l2' must be a number"):
        prp3.load_geometry(broken)
    broken.write_text("\n".join(ln for ln in text.splitlines() if not ln.startswith("h:")))
    with pytest.raises(robolib.ParameterFileError, match=r"broken.yaml: field 'h' is missing"):
        prp3.load_geometry(broken)
    broken.write_text(text.replace("  angle: deg", "  angle: grad"))
    with pytest.raises(robolib.ParameterFileError, match=r"field 'units.angle' must be one of"):
        prp3.load_geometry(broken)
