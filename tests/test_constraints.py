"""Tests of robolib.core.constraints: the three routes to constrained accelerations agree."""

import numpy as np
import pytest

from robolib import ParameterError, SingularityError
from robolib import constraints as C


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
    with pytest.raises(SingularityError, match="M is not positive definite"):
        C.udwadia_kalaba(-M, Q, A, b)
    with pytest.raises(ParameterError, match="M must be symmetric"):
        C.udwadia_kalaba(M + np.triu(np.ones_like(M), 1), Q, A, b)
    with pytest.raises(ParameterError, match="Q must have shape"):
        C.udwadia_kalaba(M, Q[:3], A, b)
    with pytest.raises(ParameterError, match="A must have shape"):
        C.lagrange_multipliers(M, Q, A[:, :3], b)
    with pytest.raises(ParameterError, match="b must have shape"):
        C.kkt_solve(M, Q, A, b[:1])
    with pytest.raises(ParameterError, match="layer 1"):
        C.udwadia_kalaba_sequential(M, Q, [(A, b), (A[:, :2], b)])
    with pytest.raises(SingularityError, match="KKT"):
        C.kkt_solve(M, Q, np.vstack([A, A[:1]]), np.r_[b, b[:1]])
