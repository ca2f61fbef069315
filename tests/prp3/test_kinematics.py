"""The 3-PRP kinematics (robolib.prp3.kinematics)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from fuzzing import budget, names
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy.optimize import least_squares

import robolib
from robolib import ParameterError, SingularityError, UnreachableError, prp3
from robolib.studies.prp3_roundtrip import study as s3

# ==== forward and inverse kinematics against independent routes =====================================================
#
# Verification of the 3-PRP kinematics (the Models page of the book, section Verification).

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


#: Exponent of the slider round-trip error against the distance from the mode boundary:
#: a rounding error dD of the discriminant D moves the root by dD / (2 sqrt(D)), and
#: sqrt(D) is the distance, so error ~ distance**-1 (spec, "The paper's experiment").
PREDICTED_EXPONENT, EXPONENT_TOL = -1.0, 0.1


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


# ----------------------------------------------------------------------------- bad input
def test_unreachable_and_singular_inputs_raise_named_errors():
    lx, ly, th = prp3.sample_inputs(GEOM, 100_000, seed=12)
    masked = ~np.isfinite(prp3.forward(GEOM, lx, ly, th, errors="mask")).all(-1)
    k = np.flatnonzero(masked)[0]
    with pytest.raises(robolib.UnreachableError, match=names("cannot meet", "lx=", "ly=", "theta=")):
        prp3.forward(GEOM, lx[k], ly[k], th[k])
    with pytest.raises(robolib.UnreachableError, match=r"first at index \(\d+,\)"):
        prp3.forward(GEOM, lx, ly, th)
    with pytest.raises(robolib.UnreachableError, match=names("lx", "actuator range")):
        prp3.forward(GEOM, -5.0, 100.0, 0.0)
    with pytest.raises(robolib.SingularityError, match="collinear"):
        prp3.forward(GEOM, GEOM.r, GEOM.r, 0.3)  # c1 = c2 = origin
    with pytest.raises(ValueError):  # both error classes are also ValueErrors
        prp3.forward(GEOM, GEOM.r, GEOM.r, 0.3)
    with pytest.raises(robolib.UnreachableError, match=names("out of reach", "chain")):
        prp3.inverse(GEOM, [0.0, 0.0, -2000.0])
    with pytest.raises(robolib.UnreachableError, match=names("working mode", "actuator range")):
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
        with pytest.raises(robolib.UnreachableError, match=names("out of reach", CHAIN_NAMES[chain], "x=")) as exc:
            prp3.inverse(GEOM, P, mode=mode, limits=False)
        assert not re.search(others, str(exc.value))
    # in a batch: the error names the chain and the row; masked, only that row is NaN
    batch = np.array([prp3.forward(GEOM, 200.0, 200.0, 0.0), P, prp3.forward(GEOM, 100.0, 300.0, 0.5)])
    with pytest.raises(robolib.UnreachableError, match=names(CHAIN_NAMES[chain], "(1,)", "1 of 3")):
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
    with pytest.raises(prp3.RuleAmbiguityError, match=names("slider lx", "two positive roots")):
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
        (lambda: prp3.Geometry(l1=0.0), names("l1", "positive")),
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
    with pytest.raises(robolib.ParameterFileError, match=names("broken.yaml", "l2", "number")):
        prp3.load_geometry(broken)
    broken.write_text("\n".join(ln for ln in text.splitlines() if not ln.startswith("h:")))
    with pytest.raises(robolib.ParameterFileError, match=names("broken.yaml", "h", "missing")):
        prp3.load_geometry(broken)
    broken.write_text(text.replace("  angle: deg", "  angle: grad"))
    with pytest.raises(robolib.ParameterFileError, match=names("units.angle", "one of")):
        prp3.load_geometry(broken)



# ==== kinematics properties on random valid inputs ==================================================================

# ---- the geometry file: once missing, once malformed ----------------------------------------------------
@pytest.mark.fuzz
def test_a_missing_or_malformed_geometry_file_is_named(tmp_path):
    with pytest.raises(robolib.ParameterFileError, match=names("nowhere.yaml", "not found")):
        prp3.load_geometry(tmp_path / "nowhere.yaml")
    text = robolib.resolve_data_path("prp3/paper.yaml").read_text()
    bad = tmp_path / "bad.yaml"
    for content, match in [("l0: [\n", "not valid YAML"), ("- 1\n- 2\n", "mapping"),
                           (text.replace("l2: 500.0", "l2: .nan"), "l2"),
                           (text.replace("lx_range: [0.0, 400.0]", "lx_range: [400.0, 0.0]"), r"bad.yaml.*lx_range")]:
        bad.write_text(content)
        with pytest.raises(robolib.ParameterFileError, match=match):
            prp3.load_geometry(bad)
    bad.write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(robolib.ParameterFileError, match=names("bad.yaml", "cannot be read")):
        prp3.load_geometry(bad)
    with pytest.raises(robolib.ParameterError, match=names("path", "file name")):
        prp3.load_geometry(None)


# ---- properties on random valid inputs ------------------------------------------------------------------
PROPS = budget(25)


LO, HI = GEOM.actuator_box.T


#: Inputs inside the actuator box, a millionth of each range away from its ends (an IK solution there may
#: round to just outside the range).
_MARGIN = 1e-6 * (HI - LO)


LX, LY, THETA = (st.floats(LO[k] + _MARGIN[k], HI[k] - _MARGIN[k]) for k in range(3))


#: The chapter's round-trip targets far from a mode boundary, and its symmetry tolerance (robolib.studies.prp3_roundtrip.study).


#: Forward-singularity measure above which FK is well conditioned (tests/test_prp3.py).
FWD_OK = 1e-3


def _reachable_point(lx, ly, theta):
    """The forward image of an in-range input, or reject the example (unreachable or singular)."""
    P = prp3.forward(GEOM, lx, ly, theta, errors="mask")
    assume(np.isfinite(P).all())
    return P


def _far(P) -> bool:
    """At least FAR_LEN / FAR_ANG from every mode boundary (the crank's two roots meet at acos = 0 and at pi)."""
    d = prp3.mode_distance(GEOM, P)
    return bool(d[0] >= FAR_LEN and d[1] >= FAR_LEN and FAR_ANG <= d[2] <= np.pi - FAR_ANG)


def _angle_error(a, b):
    return np.abs(np.pi - np.mod(np.pi - (a - b), 2.0 * np.pi))


@pytest.mark.fuzz
@PROPS
@given(lx=LX, ly=LY, theta=THETA)
def test_fk_of_ik_gives_the_point_or_its_mirror_root_in_every_mode(lx, ly, theta):
    """FK(IK(P, mode)) is P, or P is the mirror root of that input (the other FK solution), for all eight modes:
    within 1e-9 where FK is well conditioned, and within eps-like error / (forward-singularity measure) anywhere."""
    P = _reachable_point(lx, ly, theta)
    sol = prp3.inverse_all(GEOM, P)
    assert sol.real.all()                             # without limits every mode reaches an FK image
    for q in sol.q:
        fwd = prp3.singularity_measures(GEOM, *q).forward
        J = prp3.forward(GEOM, *q, limits=False, errors="mask")
        if not np.isfinite(J).all():                  # only at a forward singularity (collinear centres)
            assert not fwd > FWD_OK, (q, P)
            continue
        M = prp3.mirror_root(GEOM, *q, points=J)
        err = min(np.linalg.norm(J - P), np.linalg.norm(M - P))
        assert err * fwd < 1e-13 * GEOM.l2, (q, J, M, P)
        if fwd > FWD_OK:
            assert err < 1e-9, (q, J, M, P)


@pytest.mark.fuzz
@PROPS
@given(lx=LX, ly=LY, theta=THETA)
def test_mirror_symmetry_y_swaps_the_sliders(lx, ly, theta):
    """FK(ly, lx, theta) == mirror_y(FK(lx, ly, theta)), the same reachability; IK, modes and Jacobian mirror too."""
    a = prp3.forward(GEOM, lx, ly, theta, errors="mask")
    b = prp3.forward(GEOM, ly, lx, theta, errors="mask")
    assert np.isfinite(a).all() == np.isfinite(b).all()
    assume(np.isfinite(a).all())
    assert np.abs(prp3.mirror_y(a) - b).max() < s3.SYMMETRY_TOL
    m = prp3.working_mode(GEOM, lx, ly, theta)
    assert prp3.working_mode(GEOM, ly, lx, theta).tolist() == [m[1], m[0], m[2]] or not _far(a)
    q = prp3.inverse(GEOM, prp3.mirror_y(a), mode=(int(m[1]), int(m[0]), int(m[2])), limits=False)
    if _far(a):
        assert abs(q[0] - ly) < TOL_LEN and abs(q[1] - lx) < TOL_LEN and _angle_error(q[2], theta) < TOL_ANG
    assume(prp3.singularity_measures(GEOM, lx, ly, theta).forward > FWD_OK)
    ja, jb = prp3.jacobian(GEOM, lx, ly, theta), prp3.jacobian(GEOM, ly, lx, theta)
    flip = np.diag([1.0, -1.0, 1.0])
    assert np.abs(flip @ ja[:, [1, 0, 2]] - jb).max() < 1e-9 * np.abs(ja).max()


@pytest.mark.fuzz
@PROPS
@given(lx=LX, ly=LY, theta=THETA)
def test_jacobian_matches_central_differences_of_forward(lx, ly, theta):
    P = _reachable_point(lx, ly, theta)
    assume(prp3.singularity_measures(GEOM, lx, ly, theta).forward > FWD_OK)
    jac = prp3.jacobian(GEOM, lx, ly, theta)
    q = np.array([lx, ly, theta])
    fd = np.empty((3, 3))
    for k, step in enumerate((1e-4, 1e-4, 1e-7)):
        dq = np.zeros(3)
        dq[k] = step
        hi = prp3.forward(GEOM, *(q + dq), limits=False, errors="mask")
        lo = prp3.forward(GEOM, *(q - dq), limits=False, errors="mask")
        assume(np.isfinite(hi).all() and np.isfinite(lo).all())
        fd[:, k] = (hi - lo) / (2 * step)
    assert np.abs(fd - jac).max() < 1e-6 * np.linalg.norm(jac), (P, jac, fd)


@pytest.mark.fuzz
@PROPS
@given(lx=LX, ly=LY, theta=THETA)
def test_working_mode_and_inverse_agree(lx, ly, theta):
    """The IK in the input's working mode is the input; the IK in any mode has that mode; inverse_all and
    in_workspace agree with both (far from a mode boundary, where the signs are decided)."""
    P = _reachable_point(lx, ly, theta)
    assume(_far(P))
    mode = tuple(int(s) for s in prp3.working_mode(GEOM, lx, ly, theta))
    q = np.array(prp3.inverse(GEOM, P, mode=mode))   # in range: the input is
    assert np.abs(q[:2] - [lx, ly]).max() < TOL_LEN and _angle_error(q[2], theta) < TOL_ANG
    assert prp3.in_workspace(GEOM, P, mode=mode)
    sol = prp3.inverse_all(GEOM, P)
    row = [tuple(m) for m in sol.modes.tolist()].index(mode)
    assert sol.within_limits[row] and np.allclose(sol.q[row], q, rtol=0, atol=1e-9)
    for m, qm, inside in zip(sol.modes, sol.q, sol.within_limits):
        m = tuple(int(s) for s in m)
        assert prp3.working_mode(GEOM, *qm, points=P).tolist() == list(m)
        got = np.array(prp3.inverse(GEOM, P, mode=m, errors="mask"))
        assert np.isfinite(got).all() == inside       # limits: a solution outside the ranges is masked
        if inside:
            assert np.allclose(got, qm, rtol=0, atol=1e-9)


@pytest.mark.fuzz
@PROPS
@given(shape=st.sampled_from([(1,), (3,), (2, 2), (1, 3, 1)]), data=st.data())
def test_kernels_take_any_leading_shape(shape, data):
    """A batch of inputs of any leading shape gives outputs of that shape, row by row the scalar results."""
    n = int(np.prod(shape))
    q = np.stack(prp3.sample_inputs(GEOM, n, data.draw(st.integers(0, 2 ** 32 - 1), label="seed")), -1)
    lx, ly, th = (q[:, k].reshape(shape) for k in range(3))
    P = prp3.forward(GEOM, lx, ly, th, errors="mask")
    assert P.shape == shape + (3,)
    assume(np.isfinite(P).all())
    assert prp3.mirror_y(P).shape == P.shape and prp3.slider_points(GEOM, lx, ly, th).shape == shape + (3, 3)
    modes = prp3.working_mode(GEOM, lx, ly, th)
    assert modes.shape == shape + (3,)
    back = prp3.inverse(GEOM, P, mode=prp3.DEFAULT_MODE, errors="mask")
    assert all(b.shape == shape for b in back)
    for i in np.ndindex(shape):
        np.testing.assert_allclose(P[i], prp3.forward(GEOM, lx[i], ly[i], th[i]), rtol=0, atol=1e-12 * GEOM.l2)
        np.testing.assert_array_equal(modes[i], prp3.working_mode(GEOM, lx[i], ly[i], th[i]))



# ==== kinematics on a second geometry, at the boundaries and in the messages ========================================
#
# 3-PRP kinematics: checks that kill the mutants test_prp3.py and test_fuzz_prp3.py let live (make mutate).
#
# A second parameter set in metres (every length below 1, so a constant slipping from 0 to 1 shows), a geometry
# file in radians with every field distinct, the ``errors="mask"`` paths of every entry point, and the paper's rule
# checked against the chain closure of every IK solution.

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
    with pytest.raises(ParameterError, match=names("l0", "finite positive", "nan")):
        prp3.Geometry(l0=float("nan"))
    with pytest.raises(ParameterError, match=names("r", "finite non-negative")):
        prp3.Geometry(r=float("inf"))
    with pytest.raises(ParameterError, match=names("h", "finite number")):
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
    with pytest.raises(UnreachableError, match=names("theta=1.6", "(1,)", "1 of 2")):
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
    with pytest.raises(SingularityError, match=names("mirror_root", "collinear")):
        prp3.mirror_root(COLLINEAR, 400.0, 400.0, 0.0, points=[140.0, 0.0, 0.0])


def test_errors_name_the_first_bad_element_of_a_batch_and_count_them():
    with pytest.raises(SingularityError, match=names("lx=38", "ly=38", "theta=0.3", "(1,)", "1 of 2")):
        prp3.forward(MM, [200.0, MM.r], [200.0, MM.r], [0.0, 0.3])
    with pytest.raises(SingularityError, match=names("jacobian", "lx=38", "ly=38", "theta=0.3") + "$"):
        prp3.jacobian(MM, MM.r, MM.r, 0.3)
    with pytest.raises(UnreachableError, match=names("cannot meet", "lx=386.1317342", "ly=365.8262599",
                                               "theta=-0.11723993", "(1,)", "1 of 2")):
        prp3.forward(MM, [200.0, 386.13173416], [200.0, 365.8262599], [0.0, -0.11723993])
    with pytest.raises(UnreachableError, match=names("theta", "outside", "lx=200", "ly=200", "theta=1.6") + "$"):
        prp3.forward(MM, 200.0, 200.0, 1.6)
    # lx at the end of its (closed) range is valid and closes every chain
    np.testing.assert_allclose(_rod_lengths(MM, 400.0, 200.0, 0.0, prp3.forward(MM, 400.0, 200.0, 0.0)), MM.l2)


def test_inverse_errors_name_the_point_coordinates():
    P = (468.3, 327.4, -201.5)                                      # out of reach of chain 1 only
    with pytest.raises(UnreachableError, match=names("chain 1 (slider lx)", _fmt(P))):
        prp3.inverse(MM, P)
    J = prp3.forward(MM, 200.0, 150.0, 0.3)                           # both roots of a slider positive
    with pytest.raises(prp3.RuleAmbiguityError, match=re.escape(_fmt(J)) + "$"):
        prp3.inverse(MM, J, mode="paper")
    with pytest.raises(UnreachableError, match=names("[0, 400]", _fmt(J), "ly=")) as err:
        prp3.inverse(MM, J, mode=(-1, 1, -1))
    ly = float(str(err.value).rsplit("ly=", 1)[1])                   # the named root closes chain 2
    np.testing.assert_allclose(np.linalg.norm(J + MM.r * prp3.U2 - ly * prp3.U2), MM.l2, rtol=1e-9)
    P = (198.6, 94.9, -365.7)                                       # the paper's rules pick ly = 578.5 > 400
    with pytest.raises(UnreachableError, match=names("paper's rules", "ly", "actuator range", "[0, 400]", _fmt(P))):
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
    with pytest.raises(ParameterError, match=names("inf", "index 1", "NaN", "errors='mask'")):
        prp3.forward(MM, [200.0, np.inf], 200.0, 0.0)
    with pytest.raises(ParameterError, match=names("inf", "only NaN", "errors='mask'")):
        prp3.forward(MM, np.inf, 200.0, 0.0, errors="mask")
    with pytest.raises(ParameterError, match=names("inf", "index (1, 2)", "NaN rows", "errors='mask'")):
        prp3.inverse(MM, [[0.0, 0.0, -400.0], [0.0, 0.0, np.inf]])
    with pytest.raises(ParameterError, match=names("inf", "index 0", "only NaN rows", "errors='mask'")):
        prp3.inverse(MM, [np.inf, 0.0, -400.0], errors="mask")
    with pytest.raises(ParameterError, match=names("lx", "(2,)", "ly", "(3,)", "theta", "(4,)")):
        prp3.forward(MM, [1.0, 2.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0])
    with pytest.raises(ParameterError, match=names("None", "(NoneType)")):
        prp3.inverse(MM, None)
    with pytest.raises(ParameterError, match=names("points", "array of numbers")):
        prp3.inverse(MM, [[0.0, 0.0, -400.0], [0.0, 0.0]])                # ragged
    with pytest.raises(ParameterError, match=names("three signs", "+1", "-1", "'paper'", "mode=")):
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
