"""Constraint dynamics (robolib.core.constraints): the routes to constrained accelerations."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest
from fuzzing import entry_point_tests, names

# ---- properties on random valid inputs ---------------------------------------------------------------------
from hypothesis import strategies as st

from robolib import (
    ParameterError,
    SingularityError,
    constraints,
)
from robolib import constraints as C
from robolib.core import params

# ==== the three routes to constrained accelerations agree ===========================================================
#
# Tests of robolib.core.constraints: the three routes to constrained accelerations agree.

def random_system(rng, n=7, m=4):
    X = rng.standard_normal((n, n))
    M = X @ X.T + n * np.eye(n)
    Q = rng.standard_normal(n)
    A = rng.standard_normal((m, n))
    b = rng.standard_normal(m)
    return M, Q, A, b


def rel(x, y):
    return np.abs(x - y).max() / max(1.0, np.abs(y).max())


@pytest.mark.parametrize("seed", range(5))
def test_single_step_equals_multipliers_and_kkt(seed):
    M, Q, A, b = random_system(np.random.default_rng(seed))
    ddq_uk, Qc = C.udwadia_kalaba(M, Q, A, b)
    ddq_l, lam = C.lagrange_multipliers(M, Q, A, b)
    ddq_k, lam_k = C.kkt_solve(M, Q, A, b)
    assert rel(ddq_uk, ddq_l) < 1e-10
    assert rel(ddq_uk, ddq_k) < 1e-10
    assert rel(lam, lam_k) < 1e-10
    # the U-K constraint force lies in the row space of A: Q_c = A^T lambda
    assert rel(Qc, A.T @ lam) < 1e-10
    # and the equations of motion and the constraints hold
    assert rel(M @ ddq_uk, Q + Qc) < 1e-10
    assert rel(A @ ddq_uk, b) < 1e-10


@pytest.mark.parametrize("seed", range(5))
def test_sequential_layers_equal_single_step(seed):
    rng = np.random.default_rng(100 + seed)
    M, Q, A, b = random_system(rng, n=9, m=6)
    single, Qc = C.udwadia_kalaba(M, Q, A, b)
    for split in ([4], [2, 4], [1, 3, 5]):
        layers = [(A[i:j], b[i:j]) for i, j in zip([0] + split, split + [6])]
        seq, parts = C.udwadia_kalaba_sequential(M, Q, layers)
        assert rel(seq, single) < 1e-10
        assert rel(sum(parts), Qc) < 1e-10


def test_gauss_principle():
    """Independent route: U-K minimises the Gauss constraint (ddq - a0)^T M (ddq - a0) on A ddq = b."""
    rng = np.random.default_rng(7)
    M, Q, A, b = random_system(rng)
    ddq, _ = C.udwadia_kalaba(M, Q, A, b)
    a0 = np.linalg.solve(M, Q)
    gauss = lambda x: (x - a0) @ M @ (x - a0)
    N = np.linalg.svd(A)[2][A.shape[0]:].T  # null space of A
    for _ in range(20):
        other = ddq + N @ rng.standard_normal(N.shape[1]) * 1e-3
        assert np.abs(A @ other - b).max() < 1e-10
        assert gauss(other) > gauss(ddq)


def test_redundant_consistent_constraints():
    """Repeated rows: U-K (Moore-Penrose) still works, the multipliers are not unique."""
    M, Q, A, b = random_system(np.random.default_rng(3), n=6, m=3)
    A2 = np.vstack([A, A[:1]])
    b2 = np.r_[b, b[:1]]
    ddq1, _ = C.udwadia_kalaba(M, Q, A, b)
    ddq2, _ = C.udwadia_kalaba(M, Q, A2, b2)
    seq, _ = C.udwadia_kalaba_sequential(M, Q, [(A, b), (A[:1], b[:1])])
    assert rel(ddq1, ddq2) < 1e-10
    assert rel(seq, ddq1) < 1e-10
    with pytest.raises(SingularityError, match="rank deficient"):
        C.lagrange_multipliers(M, Q, A2, b2)


def test_mass_sqrt():
    M, *_ = random_system(np.random.default_rng(5))
    Mh, Mih = C.mass_sqrt(M)
    assert rel(Mh @ Mh, M) < 1e-12
    assert rel(Mih @ Mh, np.eye(len(M))) < 1e-12
    assert rel(Mh, Mh.T) < 1e-14


def test_baumgarte():
    phi, dphi = np.array([1e-3, -2e-3]), np.array([0.1, 0.0])
    out = C.baumgarte(np.array([1.0, 2.0]), phi, dphi, alpha=3.0, beta=4.0)
    assert np.allclose(out, [1.0 - 2 * 3 * 0.1 - 16 * 1e-3, 2.0 + 16 * 2e-3])
    with pytest.raises(ParameterError, match="alpha"):
        C.baumgarte(np.zeros(1), np.zeros(1), np.zeros(1), alpha=-1.0)


def test_bad_inputs():
    M, Q, A, b = random_system(np.random.default_rng(9))
    with pytest.raises(SingularityError, match=names("M", "positive definite")):
        C.udwadia_kalaba(-M, Q, A, b)
    with pytest.raises(ParameterError, match=names("M", "symmetric")):
        C.udwadia_kalaba(M + np.triu(np.ones_like(M), 1), Q, A, b)
    with pytest.raises(ParameterError, match=names("Q", "shape")):
        C.udwadia_kalaba(M, Q[:3], A, b)
    with pytest.raises(ParameterError, match=names("A", "shape")):
        C.lagrange_multipliers(M, Q, A[:, :3], b)
    with pytest.raises(ParameterError, match=names("b", "shape")):
        C.kkt_solve(M, Q, A, b[:1])
    with pytest.raises(ParameterError, match="layer 1"):
        C.udwadia_kalaba_sequential(M, Q, [(A, b), (A[:, :2], b)])
    with pytest.raises(SingularityError, match="KKT"):
        C.kkt_solve(M, Q, np.vstack([A, A[:1]]), np.r_[b, b[:1]])



# ==== constraint dynamics off the well-conditioned O(1) default =====================================================
#
# Constraint dynamics off the well-conditioned O(1) default: checks that kill the mutants
# test_constraints.py let live (make mutate).
#
# Independent routes: a closed-form constrained system (a point mass on a line), invariance under a change
# of mass units, the Gauss principle, the empty constraint set (free motion), and the input checks at
# their boundaries (indefinite or slightly asymmetric M, a one-dimensional A, mismatched Baumgarte terms).

ROUTES = ("udwadia_kalaba", "lagrange_multipliers", "kkt_solve")


def system(seed=0, n=5, m=2):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, n))
    return X @ X.T + n * np.eye(n), rng.standard_normal(n), rng.standard_normal((m, n)), rng.standard_normal(m)


def accelerations(route, M, Q, A, b):
    if route == "sequential":
        return C.udwadia_kalaba_sequential(M, Q, [(A, b)])[0]
    return getattr(C, route)(M, Q, A, b)[0]


@pytest.mark.parametrize("route", ROUTES + ("sequential",))
def test_point_mass_on_an_inclined_line_closed_form(route):
    # mass m in the plane, gravity g, constrained to the line x sin(a) - y cos(a) = 0 (A ddq = 0):
    # ddq = g sin(a) (-cos(a), -sin(a)) down the slope; the normal reaction is m g cos(a)
    m, g, a = 2.5, 9.81, 0.4
    M, Q = m * np.eye(2), np.array([0.0, -m * g])
    A, b = np.array([[np.sin(a), -np.cos(a)]]), np.zeros(1)
    ddq = accelerations(route, M, Q, A, b)
    np.testing.assert_allclose(ddq, g * np.sin(a) * np.array([-np.cos(a), -np.sin(a)]), rtol=1e-12, atol=1e-14)
    if route != "sequential":
        lam = getattr(C, route)(M, Q, A, b)[1]
        Qc = lam if route == "udwadia_kalaba" else A.T @ lam
        assert np.linalg.norm(Qc) == pytest.approx(m * g * np.cos(a), rel=1e-12)


@pytest.mark.parametrize("route", ROUTES + ("sequential",))
@pytest.mark.parametrize("scale", [1e-9, 1e6])
def test_mass_units_scale_the_accelerations(route, scale):
    # M -> s M, Q -> s Q (another mass unit) leaves ddq unchanged; the constraint force scales by s
    M, Q, A, b = system(3)
    ref = accelerations(route, M, Q, A, b)
    np.testing.assert_allclose(accelerations(route, scale * M, scale * Q, A, b), ref, rtol=1e-9, atol=1e-12)
    if route == "udwadia_kalaba":
        Qc = C.udwadia_kalaba(M, Q, A, b)[1]
        np.testing.assert_allclose(C.udwadia_kalaba(scale * M, scale * Q, A, b)[1], scale * Qc, rtol=1e-9,
                                   atol=1e-12 * scale)


@pytest.mark.parametrize("route", ROUTES + ("sequential",))
def test_no_constraints_is_free_motion(route):
    # m = 0 rows: ddq = M^-1 Q and no constraint force
    M, Q, _, _ = system(4)
    A, b = np.zeros((0, 5)), np.zeros(0)
    np.testing.assert_allclose(accelerations(route, M, Q, A, b), np.linalg.solve(M, Q), rtol=1e-12)
    if route in ("lagrange_multipliers", "kkt_solve"):
        assert getattr(C, route)(M, Q, A, b)[1].shape == (0,)          # no multipliers
    if route == "udwadia_kalaba":
        assert np.all(C.udwadia_kalaba(M, Q, A, b)[1] == 0.0)           # no constraint force
    if route == "sequential":
        ddq, parts = C.udwadia_kalaba_sequential(M, Q, [])
        np.testing.assert_allclose(ddq, np.linalg.solve(M, Q), rtol=1e-12)
        assert parts == []


def test_sequential_parts_sum_to_the_constraint_force_with_three_layers():
    M, Q, A, b = system(8, n=6, m=4)
    ddq, Qc = C.udwadia_kalaba(M, Q, A, b)
    seq, parts = C.udwadia_kalaba_sequential(M, Q, [(A[:1], b[:1]), (A[1:3], b[1:3]), (A[3:], b[3:])])
    np.testing.assert_allclose(seq, ddq, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sum(parts), Qc, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(M @ seq - Q, Qc, rtol=1e-10, atol=1e-12)


def test_indefinite_and_slightly_asymmetric_mass_matrices_are_refused():
    M, Q, A, b = system(5)
    w, V = np.linalg.eigh(M)
    indefinite = (V * np.r_[-1.0, w[1:]]) @ V.T
    for f in (C.udwadia_kalaba, C.lagrange_multipliers):
        with pytest.raises(SingularityError, match="positive definite"):
            f(indefinite, Q, A, b)
    with pytest.raises(SingularityError, match="positive definite"):
        C.mass_sqrt(indefinite)
    skew = M.copy()
    skew[0, 1] += 1e-6 * np.abs(M).max()
    with pytest.raises(ParameterError, match="symmetric"):
        C.udwadia_kalaba(skew, Q, A, b)
    # a well-conditioned matrix of tiny entries (another unit) is positive definite
    Mh, Mih = C.mass_sqrt(1e-16 * M)
    np.testing.assert_allclose(Mh @ Mih, np.eye(5), atol=1e-9)
    # singular to round-off: eigenvalue ratio 1e-16
    with pytest.raises(SingularityError):
        C.mass_sqrt(np.diag([1.0, 1e-16]))
    with pytest.raises(ParameterError, match="square"):
        C.mass_sqrt(np.ones((2, 3)))
    with pytest.raises(ParameterError, match="finite"):
        C.mass_sqrt(np.array([[1.0, 0.0], [0.0, np.inf]]))


def test_constraint_matrix_of_the_wrong_rank_or_dimension_is_refused():
    M, Q, A, b = system(6)
    for f in (C.udwadia_kalaba, C.lagrange_multipliers, C.kkt_solve):
        with pytest.raises(ParameterError, match=names("A", "shape")):
            f(M, Q, A[0], b[:1])                              # one row given as a 1-d vector
        with pytest.raises(ParameterError, match=names("Q", "shape")):
            f(M, Q[:, None], A, b)
    with pytest.raises(SingularityError, match="rank deficient"):
        C.lagrange_multipliers(M, Q, np.zeros((1, 5)), np.zeros(1))
    with pytest.raises(ParameterError, match="layer 0"):
        C.udwadia_kalaba_sequential(M, Q, [(A, b[:1])])
    with pytest.raises(ParameterError, match=names("Q", "shape")):
        C.udwadia_kalaba_sequential(M, Q[:2], [(A, b)])


def test_baumgarte_terms_and_shapes():
    b, phi, dphi = np.array([0.3, -0.1, 2.0]), np.array([1e-2, 0.0, -3e-2]), np.array([0.5, -0.2, 0.0])
    np.testing.assert_allclose(C.baumgarte(b, phi, dphi, 1.5, 7.0), b - 3.0 * dphi - 49.0 * phi, rtol=1e-15)
    np.testing.assert_array_equal(C.baumgarte(b, phi, dphi), b)            # default gains: no stabilisation
    with pytest.raises(ParameterError, match="same shape"):
        C.baumgarte(b, phi[:2], dphi)
    with pytest.raises(ParameterError, match="same shape"):
        C.baumgarte(b, phi, dphi[:2])
    with pytest.raises(ParameterError, match="beta"):
        C.baumgarte(b, phi, dphi, 1.0, -1.0)


def test_symmetry_check_tolerates_round_off_only():
    M = np.diag([10.0, 20.0, 30.0]) + np.array([[0.0, 3.0, 1.0], [3.0, 0.0, 2.0], [1.0, 2.0, 0.0]])
    Q, A, b = np.ones(3), np.array([[1.0, 2.0, 0.5]]), np.zeros(1)
    for i, j, delta in ((0, 1, 1e-9 * 30), (0, 1, -1e-9 * 30)):           # relative asymmetry 1e-9 of the entry
        bad = M.copy()
        bad[i, j] += delta
        with pytest.raises(ParameterError, match="symmetric"):
            C.udwadia_kalaba(bad, Q, A, b)
    D = np.diag([10.0, 20.0, 30.0])                                      # asymmetry where M is zero
    bad = D.copy()
    bad[0, 2] = 1e-10
    with pytest.raises(ParameterError, match="symmetric"):
        C.udwadia_kalaba(bad, Q, A, b)
    ok = D.copy()
    ok[0, 2] = 1e-13                                                    # round-off level: accepted
    np.testing.assert_allclose(C.udwadia_kalaba(ok, Q, A, b)[0], C.udwadia_kalaba(D, Q, A, b)[0], rtol=1e-9)


def test_positive_definiteness_is_relative_to_the_largest_eigenvalue():
    # MASS_PD_TOL = 1e-14: eigenvalues (1e-12, 1, 1e3) have ratio 1e-15 -> singular; (1e-12, 1, 1) -> fine
    with pytest.raises(SingularityError, match=names("positive definite", "1e-12", "1e+03")):
        C.mass_sqrt(np.diag([1e-12, 1.0, 1e3]))
    Mh, _ = C.mass_sqrt(np.diag([1e-12, 1.0, 1.0]))
    np.testing.assert_allclose(np.diag(Mh), [1e-6, 1.0, 1.0], rtol=1e-12)
    with pytest.raises(SingularityError, match=names("eigenvalues", "-2", "5")):
        C.mass_sqrt(np.diag([-2.0, 1.0, 5.0]))
    with pytest.raises(ParameterError, match="square"):
        C.kkt_solve(np.ones((2, 3)), np.ones(2), np.ones((1, 2)), np.zeros(1))


def test_multiplier_route_rank_test_is_relative_to_the_largest_eigenvalue():
    # RANK_TOL = 1e-11: with M = I, rows of norms (1e-3, 1, 1e3) give A A^T eigenvalues (1e-6, 1, 1e6), ratio 1e-12
    M, Q = np.eye(3), np.array([1.0, -2.0, 0.5])
    A = np.diag([1e-3, 1.0, 1e3])
    with pytest.raises(SingularityError, match=names("rank deficient", "A M^-1 A^T", "1e-06", "1e+06")):
        C.lagrange_multipliers(M, Q, A, np.zeros(3))
    A_ok = np.diag([1e-2, 1.0, 1e3])                                       # ratio 1e-10: full rank
    ddq, lam = C.lagrange_multipliers(M, Q, A_ok, np.zeros(3))
    np.testing.assert_allclose(ddq, 0.0, atol=1e-9)
    np.testing.assert_allclose(A_ok.T @ lam, -Q, rtol=1e-9)


@pytest.mark.parametrize("scale", [1e-9, 1.0, 1e6])
def test_redundant_layer_is_ignored_in_any_mass_unit(scale):
    # a later layer the earlier ones already enforce (B_k P ~ round-off) must not amplify round-off
    M, Q, A, b = system(12, n=6, m=3)
    ref, _ = C.udwadia_kalaba(M, Q, A, b)
    layers = [(A, b), (A[1:2] + A[2:3], b[1:2] + b[2:3]), (2.0 * A[:1], 2.0 * b[:1])]
    seq, parts = C.udwadia_kalaba_sequential(scale * M, scale * Q, layers)
    np.testing.assert_allclose(seq, ref, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(parts[1], 0.0, atol=1e-9 * scale * np.abs(Q).max())


def test_shape_messages_give_the_expected_shape():
    M, Q, A, b = system(2, n=5, m=2)
    with pytest.raises(ParameterError, match=names("b", "shape", "(2,)")):
        C.udwadia_kalaba(M, Q, A, b[:1])
    with pytest.raises(ParameterError, match=names("alpha", "1/s")):
        C.baumgarte(b, b, b, alpha=-1.0)
    with pytest.raises(ParameterError, match=names("beta", "1/s")):
        C.baumgarte(b, b, b, beta=-1.0)



# ==== the constraint routes name a bad argument =====================================================================

# ---- the entry points: (callable, valid keyword arguments, {argument: kind}) -------------------------
SCHEMA = {"mass": params.number(unit="kg", positive=True), "com": params.vector(2, unit="m")}


FLAG = st.sampled_from([None, 1, 0.0, "yes", "False"])          # a flag is True or False, nothing else


FIELD_UNIT = st.sampled_from([3.0, True, ["m"]])                 # a unit is text (or None)


OUT = Path(tempfile.mkdtemp(prefix="robolib-fuzz-files-"))       # the file rows write here


ENTRY_POINTS = {
    "constraints.udwadia_kalaba": (constraints.udwadia_kalaba, dict(M=np.eye(2), Q=np.array([1.0, 0.0]),
                                                                    A=np.array([[0.0, 1.0]]), b=np.zeros(1)),
                                   {"M": (2, 2), "Q": (2,), "A": (1, 2), "b": (1,)}),
    "constraints.lagrange_multipliers": (constraints.lagrange_multipliers, dict(M=np.eye(2), Q=np.array([1.0, 0.0]),
                                                                                A=np.array([[0.0, 1.0]]), b=np.zeros(1)),
                                         {"M": (2, 2), "Q": (2,), "A": (1, 2), "b": (1,)}),
    "constraints.kkt_solve": (constraints.kkt_solve, dict(M=np.eye(2), Q=np.array([1.0, 0.0]), A=np.array([[0.0, 1.0]]),
                                                          b=np.zeros(1)),
                              {"M": (2, 2), "Q": (2,), "A": (1, 2), "b": (1,)}),
    "constraints.baumgarte": (constraints.baumgarte, dict(b=np.zeros(1), phi=np.array([1e-3]), dphi=np.zeros(1),
                                                          alpha=10.0, beta=10.0),
                              {"b": (1,), "phi": (1,), "dphi": (1,), "alpha": "nonnegative", "beta": "nonnegative"}),
    "constraints.mass_sqrt": (constraints.mass_sqrt, dict(M=np.diag([4.0, 9.0])), {"M": (2, 2)}),
    "constraints.udwadia_kalaba_sequential": (
        constraints.udwadia_kalaba_sequential,
        dict(M=np.diag([1.0, 2.0, 3.0]), Q=np.ones(3),
             layers=[(np.array([[1.0, -1.0, 0.0]]), np.zeros(1)), (np.array([[0.0, 1.0, -1.0]]), np.zeros(1))]),
        {"M": (3, 3), "Q": (3,),
         "layers": st.sampled_from([None, 3.0, "x", [None], [(np.ones((1, 3)),)], [(np.ones((1, 2)), np.zeros(1))],
                                    [(np.array([[np.nan, 0.0, 0.0]]), np.zeros(1))],
                                    [(np.ones((1, 3)), np.zeros(2))]])}),
}


test_every_valid_call_works, test_a_bad_argument_is_named = entry_point_tests(ENTRY_POINTS)
