"""Constraint dynamics shared by every mechanism: Udwadia–Kalaba and multipliers.

A mechanism described in ``n`` (possibly redundant) coordinates ``q`` obeys

    M(q) ddq = Q(q, dq, t) + Q_c,        A(q) ddq = b(q, dq, t)

with ``M`` symmetric positive definite (n x n), ``Q`` the applied and
velocity-product forces, ``A ddq = b`` the constraints in second-order form
(m rows) and ``Q_c`` the ideal constraint force. Three routes give the same
accelerations, and the tests check that they agree to 1e-10:

* :func:`udwadia_kalaba` — one step, ``B = A M^(-1/2)``, ``+`` the Moore–Penrose
  inverse::

      ddq = a0 + M^(-1/2) B^+ (b - A a0),   a0 = M^-1 Q,
      Q_c = M^(1/2) B^+ (b - A a0)

* :func:`udwadia_kalaba_sequential` — the same equation applied one constraint
  layer after the other, each later layer projected onto the null space of the
  earlier ones: ``ddq_k = ddq_(k-1) + M^(-1/2) (B_k P_(k-1))^+ (b_k - A_k ddq_(k-1))``,
  ``P_k = P_(k-1) - (B_k P_(k-1))^+ (B_k P_(k-1))``, ``P_0 = I``.

* :func:`lagrange_multipliers` — ``Q_c = A^T lambda`` with the Schur complement
  ``(A M^-1 A^T) lambda = b - A a0`` (requires ``A`` of full row rank), and
  :func:`kkt_solve`, the augmented (KKT) system solved directly.

:func:`baumgarte` adds the drift-stabilising terms ``-2 alpha dPhi - beta^2 Phi``
to ``b``. Units follow the caller's (SI in robolib); shapes are documented per
function. These kernels take one configuration at a time (no batch axis).

>>> M = np.diag([2.0, 1.0]); Q = np.array([0.0, -9.81]); A = np.array([[1.0, -1.0]]); b = np.zeros(1)
>>> ddq, Qc = udwadia_kalaba(M, Q, A, b)
>>> np.round(ddq, 6)
array([-3.27, -3.27])
>>> ddq2, lam = lagrange_multipliers(M, Q, A, b)
>>> bool(np.allclose(ddq, ddq2)), bool(np.allclose(Qc, A.T @ lam))
(True, True)
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from robolib.core import checks
from robolib.core.errors import ParameterError, SingularityError

#: Singular-value cut-off of the Moore–Penrose inverse, relative to the 2-norm of the layer's ``B = A M^(-1/2)``.
PINV_RCOND = 1e-12
#: Smallest eigenvalue of ``M`` relative to its largest for ``M`` to count as positive definite.
MASS_PD_TOL = 1e-14
#: Smallest eigenvalue of ``A M^-1 A^T`` relative to its largest below which ``A``
#: counts as rank deficient (redundant or singular constraints) for the multiplier route.
RANK_TOL = 1e-11


def _check_square_spd(M: np.ndarray, name: str = "M") -> tuple[np.ndarray, np.ndarray]:
    """Eigen-decomposition of ``M``; raises if ``M`` is not symmetric positive definite."""
    M = checks.real_array(name, M)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ParameterError(f"{name} must be a square matrix, got shape {M.shape}")
    if not np.allclose(M, M.T, rtol=1e-12, atol=1e-14 * max(1.0, np.abs(M).max())):
        raise ParameterError(f"{name} must be symmetric")
    w, V = np.linalg.eigh(M)
    if w[0] <= MASS_PD_TOL * max(w[-1], 0.0) or w[-1] <= 0:
        raise SingularityError(f"{name} is not positive definite (eigenvalues {w[0]:.3g} .. {w[-1]:.3g})")
    return w, V


def _check_system(M, Q, A, b):
    n = np.shape(M)[0]
    Q = checks.real_array("Q", Q, allow_empty=True)
    A = checks.real_array("A", A, allow_empty=True)
    b = checks.real_array("b", b, allow_empty=True)
    if Q.shape != (n,):
        raise ParameterError(f"Q must have shape ({n},), got {Q.shape}")
    if A.ndim != 2 or A.shape[1] != n:
        raise ParameterError(f"A must have shape (m, {n}), got {A.shape}")
    if b.shape != (A.shape[0],):
        raise ParameterError(f"b must have shape ({A.shape[0]},) (one entry per row of A), got {b.shape}")
    return Q, A, b


def _pinv(X: np.ndarray, scale: float) -> np.ndarray:
    """Moore–Penrose inverse dropping singular values below ``PINV_RCOND * scale``.

    ``scale`` is the size of the *unprojected* constraint matrix, so a later layer
    that the earlier ones already enforce (``B_k P ~ 0`` up to round-off) is
    ignored instead of amplifying round-off noise.
    """
    U, s, Vt = np.linalg.svd(X, full_matrices=False)
    keep = s > PINV_RCOND * scale
    return (Vt[keep].T / s[keep]) @ U[:, keep].T


def mass_sqrt(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(M^(1/2), M^(-1/2))`` of a symmetric positive-definite matrix ``M`` (n, n).

    Both are the symmetric (principal) roots, from the eigen-decomposition.

    >>> Mh, Mih = mass_sqrt(np.array([[4.0, 0.0], [0.0, 9.0]]))
    >>> np.diag(Mh), np.round(np.diag(Mih), 6)
    (array([2., 3.]), array([0.5     , 0.333333]))
    """
    return _roots(*_check_square_spd(M))


def _roots(w, V) -> tuple[np.ndarray, np.ndarray]:
    """``(M^(1/2), M^(-1/2))`` from the eigen-decomposition ``(w, V)`` of ``M``."""
    r = np.sqrt(w)
    return (V * r) @ V.T, (V / r) @ V.T


def baumgarte(b: np.ndarray, phi: np.ndarray, dphi: np.ndarray, alpha: float = 0.0, beta: float = 0.0) -> np.ndarray:
    """Baumgarte-stabilised right-hand side ``b - 2 alpha dPhi - beta^2 Phi`` (m,).

    ``alpha``, ``beta`` in 1/s (``alpha = beta`` gives critical damping of the
    constraint error ``Phi``).

    >>> baumgarte(np.zeros(1), np.array([1e-3]), np.array([0.0]), 10.0, 10.0)
    array([-0.1])
    """
    alpha = checks.real("Baumgarte gain alpha", alpha, low=0.0, unit="1/s")
    beta = checks.real("Baumgarte gain beta", beta, low=0.0, unit="1/s")
    b, phi, dphi = (checks.real_array(n, v) for n, v in (("b", b), ("phi", phi), ("dphi", dphi)))
    if not b.shape == phi.shape == dphi.shape:
        raise ParameterError(f"b, phi and dphi must have the same shape (one entry per constraint row), got "
                             f"{b.shape}, {phi.shape}, {dphi.shape}")
    return b - 2.0 * alpha * dphi - beta**2 * phi


def udwadia_kalaba(M: np.ndarray, Q: np.ndarray, A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One-step Udwadia–Kalaba equation: ``(ddq, Q_c)``, both shape (n,).

    ``M`` (n, n) SPD mass matrix, ``Q`` (n,) applied plus velocity-product
    forces, ``A`` (m, n), ``b`` (m,) the constraints ``A ddq = b``. Works for
    redundant (rank-deficient) but consistent constraints, thanks to the
    Moore–Penrose inverse.

    >>> ddq, Qc = udwadia_kalaba(np.eye(2), np.array([1.0, 0.0]), np.array([[0.0, 1.0]]), np.zeros(1))
    >>> ddq, Qc
    (array([1., 0.]), array([0., 0.]))
    """
    w, V = _check_square_spd(M)
    Q, A, b = _check_system(M, Q, A, b)
    M_half, M_ihalf = _roots(w, V)
    a0 = (V / w) @ (V.T @ Q)
    B = A @ M_ihalf
    y = _pinv(B, np.linalg.norm(B, 2) if B.size else 0.0) @ (b - A @ a0)
    return a0 + M_ihalf @ y, M_half @ y


def udwadia_kalaba_sequential(
    M: np.ndarray, Q: np.ndarray, layers: Sequence[tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Udwadia–Kalaba applied one constraint layer after the other.

    ``layers`` is a sequence of ``(A_k, b_k)`` (each ``A_k`` of shape (m_k, n)).
    Returns ``ddq`` (n,) and the list of the layer corrections
    ``M^(1/2) (B_k P_(k-1))^+ (b_k - A_k ddq_(k-1))`` (each (n,); they sum to
    the total constraint force ``Q_c``). For consistent constraints the result
    equals :func:`udwadia_kalaba` with the stacked ``A``, ``b``. Note that a
    later layer's correction also re-balances the forces of earlier layers,
    so the per-layer corrections are *not* the per-layer reactions (use
    :func:`lagrange_multipliers` for those).

    >>> M = np.diag([1.0, 2.0, 3.0]); Q = np.array([1.0, 1.0, 1.0])
    >>> L1 = (np.array([[1.0, -1.0, 0.0]]), np.zeros(1)); L2 = (np.array([[0.0, 1.0, -1.0]]), np.zeros(1))
    >>> ddq, parts = udwadia_kalaba_sequential(M, Q, [L1, L2])
    >>> np.round(ddq, 12)
    array([0.5, 0.5, 0.5])
    """
    w, V = _check_square_spd(M)
    n = len(w)
    Q = checks.real_array("Q", Q)
    if Q.shape != (n,):
        raise ParameterError(f"Q must have shape ({n},), got {Q.shape}")
    M_half, M_ihalf = _roots(w, V)
    ddq = (V / w) @ (V.T @ Q)
    P = np.eye(n)
    if isinstance(layers, (str, bytes)) or not isinstance(layers, Sequence):
        raise ParameterError(f"layers must be a sequence of (A_k, b_k) pairs, got {type(layers).__name__}")
    parts = []
    for k, layer in enumerate(layers):
        if isinstance(layer, (str, bytes)) or not isinstance(layer, Sequence) or len(layer) != 2:
            raise ParameterError(f"layers[{k}] (layer {k}) must be a pair (A, b), got {layer!r:.80}")
        A = checks.real_array(f"layers[{k}] (layer {k}): A", layer[0], allow_empty=True)
        b = checks.real_array(f"layers[{k}] (layer {k}): b", layer[1], allow_empty=True)
        if A.ndim != 2 or A.shape[1] != n or b.shape != (A.shape[0],):
            raise ParameterError(f"layers[{k}] (layer {k}): A must be (m, {n}) and b (m,), got {A.shape} and "
                                 f"{b.shape}")
        B = A @ M_ihalf
        BP = B @ P
        BPp = _pinv(BP, np.linalg.norm(B, 2) if B.size else 0.0)
        y = BPp @ (b - A @ ddq)
        ddq = ddq + M_ihalf @ y
        parts.append(M_half @ y)
        P = P - BPp @ BP
    return ddq, parts


def lagrange_multipliers(M: np.ndarray, Q: np.ndarray, A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Accelerations and multipliers from the Schur complement: ``(ddq (n,), lambda (m,))``.

    Solves ``(A M^-1 A^T) lambda = b - A M^-1 Q``, then
    ``ddq = M^-1 (Q + A^T lambda)``; ``A^T lambda`` is the constraint force.
    ``lambda_j`` is the force (or torque) that constraint row ``j`` exerts
    along its gradient. Raises :class:`~robolib.SingularityError` when ``A``
    is rank deficient (the multipliers are then not unique).

    >>> ddq, lam = lagrange_multipliers(np.eye(2), np.array([1.0, 0.0]), np.array([[1.0, 0.0]]), np.zeros(1))
    >>> ddq, lam
    (array([0., 0.]), array([-1.]))
    """
    w, V = _check_square_spd(M)
    Q, A, b = _check_system(M, Q, A, b)
    Minv = (V / w) @ V.T
    S = A @ Minv @ A.T
    ws, Vs = np.linalg.eigh(S)
    if ws.size and (ws[-1] <= 0 or ws[0] <= RANK_TOL * ws[-1]):
        raise SingularityError(
            f"constraint matrix A is rank deficient (eigenvalues of A M^-1 A^T {ws[0]:.3g} .. {ws[-1]:.3g}); "
            "the multipliers are not unique"
        )
    a0 = Minv @ Q
    lam = (Vs / ws) @ (Vs.T @ (b - A @ a0))
    return a0 + Minv @ (A.T @ lam), lam


def kkt_solve(M: np.ndarray, Q: np.ndarray, A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Solve the augmented system ``[[M, -A^T], [A, 0]] [ddq; lambda] = [Q; b]`` directly.

    An independent route to :func:`lagrange_multipliers` (one LU solve of the
    (n+m)-square KKT matrix). Returns ``(ddq (n,), lambda (m,))``.

    >>> ddq, lam = kkt_solve(np.eye(2), np.array([1.0, 0.0]), np.array([[1.0, 0.0]]), np.zeros(1))
    >>> ddq, lam
    (array([0., 0.]), array([-1.]))
    """
    M = checks.real_array("M", M)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ParameterError(f"M must be a square matrix, got shape {M.shape}")
    Q, A, b = _check_system(M, Q, A, b)
    n, m = M.shape[0], A.shape[0]
    K = np.zeros((n + m, n + m))
    K[:n, :n] = M
    K[:n, n:] = -A.T
    K[n:, :n] = A
    try:
        x = np.linalg.solve(K, np.concatenate([Q, b]))
    except np.linalg.LinAlgError:
        raise SingularityError("KKT matrix is singular (rank-deficient constraints A)") from None
    return x[:n], x[n:]


__all__ = [
    "PINV_RCOND",
    "RANK_TOL",
    "mass_sqrt",
    "baumgarte",
    "udwadia_kalaba",
    "udwadia_kalaba_sequential",
    "lagrange_multipliers",
    "kkt_solve",
]
