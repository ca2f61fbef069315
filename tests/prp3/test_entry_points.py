"""The public interface of robolib.prp3: every entry point names a bad argument."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from fuzzing import bad_values, budget, entry_point_tests
from hypothesis import assume
from hypothesis import strategies as st

import robolib
from robolib import prp3
from robolib.studies.prp3_roundtrip import study as s3

# ==== every public entry point of robolib.prp3 names a bad argument; edges and unreachable inputs ===================
#
# The 3-PRP entry points fuzzed (issue 21, item 1), and properties on random valid inputs.
#
# Part 1, bad arguments: for every public function of :mod:`robolib.prp3` the table gives a valid call
# and, per argument, the kind of value it takes (the kinds of tests/fuzzing.py, and the local kinds
# below for what the harness has no kind for: actuator inputs that broadcast, batches of points of any
# leading shape, working modes, the ``errors`` / ``limits`` options, ranges and bounds). Hypothesis
# draws a bad value of that kind and the call must raise a :class:`robolib.RobolibError` that names
# the argument -- not a bare Python/numpy error, not a silent NaN, not a result. Model objects
# (``geom``) are not fuzzed; the geometry file of :func:`~robolib.prp3.load_geometry` is tested once
# missing and once malformed. Failures shrink to the simplest bad value.
#
# Part 2, properties on random valid inputs (hypothesis shrinks a failing input and reports it): the
# round trip IK(FK(q)) in each working mode below the chapter's tolerances far from a mode boundary,
# FK(IK(P)) in every mode (the point or its mirror root), the mirror symmetry y -> -y that swaps the
# sliders, the Jacobian against central differences of the forward kinematics, and the consistency of
# :func:`~robolib.prp3.working_mode` with :func:`~robolib.prp3.inverse`.

GEOM = prp3.Geometry()


NAN, INF = float("nan"), float("inf")


# ---- local kinds: the bad values of arguments the harness has no kind for -----------------------------
class Kind:
    """A kind of argument defined here: its name (for the test ids) and the strategy of its bad values."""

    def __init__(self, name: str, bad):
        self.name, self.bad = name, bad

    def __repr__(self):
        return self.name


LEADING = st.sampled_from([(), (1,), (2,), (2, 3)])


def _with_entry(shape, bad, i):
    a = np.ones(shape)
    a.flat[i % a.size] = bad
    return a


def _inputs(mask: bool) -> Kind:
    """An actuator input ``lx, ly`` or ``theta``: a finite number or an array of them that broadcasts with the
    other two (the valid calls hold arrays of shape (2,)). With ``errors="mask"`` NaN is valid, inf is not."""
    non_finite = [INF, -INF] if mask else [NAN, INF, -INF]
    return Kind("inputs*" + ("(mask)" if mask else ""), st.one_of(
        st.sampled_from(non_finite + ["x", None, True, np.array(["a"]), np.zeros(0), np.array([True, False]),
                                      np.full(3, 0.1), [[0.1, 0.2], [0.1]], {}]),
        st.builds(lambda bad, i: _with_entry((2,), bad, i), st.sampled_from(non_finite), st.integers(0, 1)),
    ))


def _points(mask: bool = False, lead: bool = False) -> Kind:
    """Points ``(..., 3)`` (any leading shape): NaN/inf entries, text, None, bools, empty, other trailing shapes.
    ``lead``: the points of given inputs, whose leading shape must broadcast with theirs (2,); there
    ``None`` is the default (compute them), so not a bad value."""
    non_finite = [INF, -INF] if mask else [NAN, INF, -INF]
    extra = [np.ones((5, 3))] if lead else []
    bad = st.one_of(
        st.builds(lambda shape, bad, i: _with_entry(shape + (3,), bad, i), LEADING, st.sampled_from(non_finite),
                  st.integers(0, 99)),
        st.sampled_from(["x", None, True, 1.0, np.zeros((0, 3)), np.zeros(0), np.array(["a"] * 3),
                         np.ones(3, dtype=bool), [[1.0, 2.0, 3.0], [1.0, 2.0]], {}] + extra),
        st.builds(lambda shape, k: np.ones(shape + (k,)), LEADING, st.sampled_from([1, 2, 4])),
    )
    return Kind("points(...,3)" + ("(mask)" if mask else "") + ("@inputs" if lead else ""),
                bad.filter(lambda v: v is not None) if lead else bad)


#: A set of points ``(m, 3)`` (2-D; ``m = 0`` is valid: the volume of no points is 0).
POINT_SET = Kind("point set (m,3)", st.one_of(
    st.builds(lambda m, bad, i: _with_entry((m, 3), bad, i), st.integers(1, 6), st.sampled_from([NAN, INF, -INF]),
              st.integers(0, 99)),
    st.sampled_from(["x", None, True, 1.0, np.ones(3), np.ones((2, 2, 3)), np.zeros(0), np.array([["a"] * 3]),
                     np.ones((4, 3), dtype=bool)]),
    st.builds(lambda m, k: np.ones((m, k)), st.integers(1, 6), st.sampled_from([1, 2, 4])),
))


_SIGN_TRIPLES_BAD = [(1, 0, 1), (1, 1), (1, 1, 1, 1), "x", None, 1, 1.0, (1.5, 1, 1), (True, -1, 1), (1, NAN, 1),
                     (1, INF, 1), (1, -INF, 1), "papers", np.array([1, 1, 2]), [[1, 1, 1]], {}, (1, "1", 1)]


#: A working mode: three signs (+1 / -1), so "paper" is bad too; ``MODE_OR_PAPER`` also takes "paper" (the
#: paper's rules, :data:`robolib.prp3.PAPER_RULES`).
MODE = Kind("mode", st.sampled_from(_SIGN_TRIPLES_BAD + ["paper"]))


MODE_OR_PAPER = Kind("mode|paper", st.sampled_from(_SIGN_TRIPLES_BAD))
WS = prp3.workspace_samples(GEOM, n=2000, seed=0)
#: A per-sample mask of the wrong length, or not boolean.
WHERE = Kind("where", st.sampled_from([np.ones(3, bool), np.ones(WS.det.shape), "x"]))


#: The ``errors`` option ("raise" or "mask") and the ``limits`` flag (True / False).
ERRORS = Kind("errors", st.sampled_from(["ignore", "RAISE", "", None, 1, True, ["raise"], np.array(["raise"])]))


FLAG = Kind("flag", st.sampled_from([None, "yes", "False", 1, 0, 1.5, NAN, [True], np.array([True, False])]))


#: The length unit of a geometry: text.
TEXT = Kind("text", st.sampled_from([None, 1.0, True, b"mm", ["mm"]]))


#: An actuator range ``(min, max)`` with min < max; box ``bounds`` ``(3, 2)`` of (min, max) rows, finite volume
#: (``None``, the default, takes them from a workspace).
RANGE = Kind("range", st.one_of(bad_values((2,)), st.sampled_from([(1.0, 1.0), (400.0, 0.0), 5.0])))


BOUNDS = Kind("bounds", st.one_of(bad_values((3, 2)).filter(lambda v: v is not None), st.sampled_from([
    np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]), np.array([[0.0, 0.0], [0.0, 1.0], [0.0, 1.0]]),
    np.array([[-1e308, 1e308], [0.0, 1.0], [0.0, 1.0]]), np.array([[0.0, 1e300], [0.0, 1e300], [0.0, 1e300]])])))


#: Non-negative numbers of any shape (distances, errors): NaN, inf, text, bools, empty, a negative entry.
NONNEGATIVE_ARRAY = Kind("nonnegative array", st.one_of(
    bad_values("array"), st.builds(lambda n: np.r_[np.ones(n), -1.0], st.integers(0, 5))))


INPUTS, INPUTS_MASK = _inputs(False), _inputs(True)


POINTS, POINTS_MASK, POINTS_AT = _points(), _points(mask=True), _points(lead=True)


IN3 = {"lx": INPUTS, "ly": INPUTS, "theta": INPUTS}


IN3_MASK = {"lx": INPUTS_MASK, "ly": INPUTS_MASK, "theta": INPUTS_MASK}


# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
Q = dict(lx=np.array([200.0, 150.0]), ly=200.0, theta=np.array([0.0, 0.3]))   # two reachable inputs


P2 = prp3.forward(GEOM, **Q)                                                  # their forward images (2, 3)


HOME_P = prp3.forward(GEOM, *prp3.HOME_INPUT)


SMALL_BOX = np.array([[200.0, 300.0], [-50.0, 50.0], [-500.0, -400.0]])


LAW_D = np.logspace(-3, 2, 2000)


GEOM_ARGS = dict(l0=137.5, l1=200.0, l2=500.0, r=38.0, h=35.0, lx_range=(0.0, 400.0), ly_range=(0.0, 400.0),
                 theta_range=(-np.pi / 2, np.pi / 2), unit="mm")


ENTRY_POINTS = {
    "Geometry": (prp3.Geometry, GEOM_ARGS,
                 {"l0": "positive", "l1": "positive", "l2": "positive", "r": "nonnegative", "h": "real",
                  "lx_range": RANGE, "ly_range": RANGE, "theta_range": RANGE, "unit": TEXT}),
    "slider_points": (prp3.slider_points, dict(geom=GEOM, **Q), IN3),
    "sphere_centres": (prp3.sphere_centres, dict(geom=GEOM, **Q), IN3),
    "forward": (prp3.forward, dict(geom=GEOM, **Q), {**IN3, "errors": ERRORS, "limits": FLAG}),
    "forward(mask)": (prp3.forward, dict(geom=GEOM, **Q, errors="mask"), IN3_MASK),
    "mirror_root": (prp3.mirror_root, dict(geom=GEOM, **Q, points=P2), {**IN3, "points": POINTS_AT, "errors": ERRORS}),
    "mirror_root(mask)": (prp3.mirror_root, dict(geom=GEOM, **Q, points=P2, errors="mask"), {**IN3_MASK}),
    "inverse": (prp3.inverse, dict(geom=GEOM, points=P2, mode=prp3.DEFAULT_MODE),
                {"points": POINTS, "mode": MODE_OR_PAPER, "errors": ERRORS, "limits": FLAG}),
    "inverse(mask)": (prp3.inverse, dict(geom=GEOM, points=P2, errors="mask"), {"points": POINTS_MASK}),
    "inverse_all": (prp3.inverse_all, dict(geom=GEOM, points=P2), {"points": POINTS}),
    "working_mode": (prp3.working_mode, dict(geom=GEOM, **Q, points=P2), {**IN3, "points": POINTS_AT}),
    "mode_distance": (prp3.mode_distance, dict(geom=GEOM, points=P2), {"points": POINTS, "errors": ERRORS}),
    "mode_distance(mask)": (prp3.mode_distance, dict(geom=GEOM, points=P2, errors="mask"), {"points": POINTS_MASK}),
    "paper_rule_outcome": (prp3.paper_rule_outcome, dict(geom=GEOM, **Q), IN3),
    "closure_matrices": (prp3.closure_matrices, dict(geom=GEOM, **Q, points=P2),
                         {**IN3, "points": POINTS_AT, "errors": ERRORS}),
    "jacobian": (prp3.jacobian, dict(geom=GEOM, **Q), {**IN3, "errors": ERRORS}),
    "jacobian(mask)": (prp3.jacobian, dict(geom=GEOM, **Q, errors="mask"), IN3_MASK),
    "singularity_measures": (prp3.singularity_measures, dict(geom=GEOM, **Q), IN3),
    "sample_inputs": (prp3.sample_inputs, dict(geom=GEOM, n=100, seed=0), {"n": "count", "seed": "seed"}),
    "workspace": (prp3.workspace, dict(geom=GEOM, n=500, seed=0, voxel=20.0),
                  {"n": "count", "seed": "seed", "voxel": "positive"}),
    "workspace_samples": (prp3.workspace_samples, dict(geom=GEOM, n=500, seed=0), {"n": "count", "seed": "seed"}),
    "WorkspaceSamples.volume": (WS.volume, dict(mode=prp3.DEFAULT_MODE, where=None), {"mode": MODE, "where": WHERE}),
    "WorkspaceSamples.share": (WS.share, dict(where=WS.condition < 10, mode=prp3.DEFAULT_MODE),
                               {"where": WHERE, "mode": MODE}),
    "voxel_volume": (prp3.voxel_volume, dict(points=np.ones((5, 3)), voxel=2.0), {"points": POINT_SET, "voxel": "positive"}),
    "mirror_y": (prp3.mirror_y, dict(points=P2), {"points": POINTS}),
    "in_workspace": (prp3.in_workspace, dict(geom=GEOM, points=P2, mode=prp3.DEFAULT_MODE, tol=1e-6),
                     {"points": POINTS, "mode": MODE_OR_PAPER, "tol": "nonnegative"}),
    "volume_hit_or_miss": (prp3.volume_hit_or_miss, dict(geom=GEOM, mode=prp3.DEFAULT_MODE, n=200, seed=0,
                                                         bounds=SMALL_BOX),
                           {"mode": MODE, "n": "count", "seed": "seed", "bounds": BOUNDS}),
    "round_trip": (prp3.round_trip, dict(geom=GEOM, n=200, seed=0), {"n": "count", "seed": "seed"}),
    "error_law": (prp3.error_law, dict(distance=LAW_D, error=1e-10 / LAW_D, draws=10, bins=20, lo=1e-3, seed=0),
                  {"distance": NONNEGATIVE_ARRAY, "error": NONNEGATIVE_ARRAY, "draws": "count", "bins": "count",
                   "lo": "positive", "seed": "seed"}),
}


#: Public functions of robolib.prp3 left out of the table (the other public names are constants, result records
#: and the error class): the loader, whose bad input is a file -- tested below, missing and malformed.
NOT_FUZZED = {"load_geometry"}


@pytest.mark.fuzz
def test_the_table_covers_every_public_function():
    """Every public callable of robolib.prp3 (``__all__``) except records, errors and the loader is in the table."""
    callables = set()
    for name in prp3.__all__:
        obj = getattr(prp3, name)
        if inspect.isfunction(obj) or obj is prp3.Geometry:
            callables.add(name)
    assert callables - NOT_FUZZED == {e.split("(")[0] for e in ENTRY_POINTS if "." not in e}
    for name, (_, _, kinds) in ENTRY_POINTS.items():   # every argument but the model has a kind
        fn = ENTRY_POINTS[name][0]
        params = set(inspect.signature(fn).parameters) - {"geom"}
        if "(mask)" not in name:
            assert params == set(kinds), (name, params ^ set(kinds))


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)


@pytest.mark.fuzz
def test_edges_of_the_valid_ranges_are_valid():
    """The ends of the ranges are accepted: an angle 0 or negative, an empty set of points, tol 0, seed 0, n 1."""
    prp3.forward(GEOM, 200.0, 200.0, -0.5)
    prp3.forward(GEOM, 0.0, 0.0, 0.0)
    assert prp3.voxel_volume(np.zeros((0, 3)), 1.0) == 0.0
    prp3.in_workspace(GEOM, HOME_P, tol=0.0)
    assert [len(a) for a in prp3.sample_inputs(GEOM, 1, 0)] == [1, 1, 1]
    prp3.Geometry(r=0.0, h=-10.0, theta_range=(-1.0, 0.0))
    prp3.inverse(GEOM, HOME_P, mode=np.array([-1, -1, 1]))
    prp3.inverse(GEOM, HOME_P, mode=(-1.0, -1.0, 1.0))
    prp3.forward(GEOM, [200.0, np.nan], 200.0, 0.0, errors="mask")


@pytest.mark.fuzz
def test_unreachable_inputs_get_a_named_error_not_a_result():
    """Inputs of the right kind outside the domain: a named error (or NaN on request), never a made-up value."""
    far = (-2000.0, 2000.0, 0.0)                      # the rods cannot meet
    with pytest.raises(robolib.UnreachableError, match="working mode"):
        prp3.working_mode(GEOM, *far)                 # used to give the signs (-1, -1, -1)
    with pytest.raises(robolib.UnreachableError, match="mirror root"):
        prp3.mirror_root(GEOM, *far)
    assert np.isnan(prp3.mirror_root(GEOM, *far, errors="mask")).all()
    with pytest.raises(robolib.UnreachableError, match="closure matrices"):
        prp3.closure_matrices(GEOM, *far)
    with pytest.raises(robolib.UnreachableError, match="chain 1"):
        prp3.mode_distance(GEOM, [0.0, 0.0, -2000.0])
    assert np.isnan(prp3.mode_distance(GEOM, [0.0, 0.0, -2000.0], errors="mask")).all()  # the crank too (was 0)
    with pytest.raises(robolib.UnreachableError, match="none of the 1 inputs"):
        prp3.paper_rule_outcome(GEOM, *far)           # used to be NaN rates after a numpy warning
    with pytest.raises(robolib.ParameterError, match="voxel"):
        prp3.voxel_volume(np.ones((2, 3)), 1e-300)    # used to overflow the voxel indices


# ---- properties on random valid inputs ------------------------------------------------------------------
PROPS = budget(25)


LO, HI = GEOM.actuator_box.T


#: Inputs inside the actuator box, a millionth of each range away from its ends (an IK solution there may
#: round to just outside the range).
_MARGIN = 1e-6 * (HI - LO)


LX, LY, THETA = (st.floats(LO[k] + _MARGIN[k], HI[k] - _MARGIN[k]) for k in range(3))


#: The chapter's round-trip targets far from a mode boundary, and its symmetry tolerance (robolib.studies.prp3_roundtrip.study).
TOL_LEN, TOL_ANG, FAR_LEN, FAR_ANG = s3.TOL_LEN, s3.TOL_ANG, s3.FAR_LEN, s3.FAR_ANG


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


#: Crank round-trip tolerance in the modes other than the default [rad]. The chapter's 1e-12 rad (TOL_ANG) is its
#: claim for the default mode, measured over 10^6 samples; in mode (-1, 1, -1) hypothesis found 1.01e-12 rad at
#: lx = 1 mm, ly = 91.9375 mm, theta = 0.375 (kept below as an example), so the other modes are held to 1e-11.
TOL_ANG_OTHER_MODES = 1e-11
