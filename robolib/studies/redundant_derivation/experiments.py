"""The numerical checks of the derivation chapter: the sympy derivation against robolib's kernels.

Each function runs one experiment of the chapter *Redundant planar robot:
derivation* and returns the largest differences it found (plain floats, in the
SI unit of the compared entries). :func:`robolib.studies.redundant_derivation.study.run`
turns them into claims. The random draws follow one generator ``rng`` in the
chapter's order (kernel checks, constraint layers, identity check), so a seed
reproduces every number.

* :func:`pendulum_example` -- the Udwadia–Kalaba equation on the smallest example, a point held on a circle;
* :func:`kernel_errors` -- ``M_i``, ``C_i``, ``C_i dq_i`` and the Lagrange–Euler residual;
* :func:`layer_errors` -- both constraint layers ``(A1, b1, A2, b2)``;
* :func:`route_deviations` -- every route to the constrained accelerations and reactions;
* :func:`redundancy_checks` -- preload direction, minimum-norm torques, reactions per unit preload;
* :func:`integration_runs` -- free motion (energy) and driven motion (constraint drift).

>>> import numpy as np
>>> from robolib import redundant
>>> robot = redundant.load()
>>> q, dq, _ = redundant.reference_motion(robot, [0.3])
>>> M, Q, (A1, b1), (A2, b2) = cut_system(robot, q[0], dq[0], np.zeros(3))
>>> M.shape, Q.shape, A1.shape, A2.shape
((12, 12), (12,), (4, 12), (6, 12))
"""

from __future__ import annotations

import numpy as np

from robolib.core import constraints
from robolib.redundant import symbolic as sym
from robolib.redundant.dynamics import (
    forward_dynamics,
    initial_state,
    inverse_dynamics,
    minimum_norm_torques,
    preload_direction,
    preload_reactions,
    reference_circle,
    reference_motion,
)
from robolib.redundant.model import (
    BAUMGARTE,
    CIRCLE_PERIOD,
    DT,
    FRICTION_MODELS,
    base_constraints,
    bias_forces,
    closure_constraints,
    mass_matrix,
    subsystem_coriolis_matrix,
    subsystem_mass_matrix,
)
from robolib.redundant.simulation import reference_torque, simulate

#: Random cut-chain states of the kernel checks: positions U[-POSITION_RANGE, POSITION_RANGE] m,
#: angles U[-pi, pi] rad, rates U[-RATE_RANGE, RATE_RANGE] (m/s, rad/s),
#: accelerations U[-ACC_RANGE, ACC_RANGE] (m/s^2, rad/s^2).
POSITION_RANGE = 0.5
RATE_RANGE = 3.0
ACC_RANGE = 10.0
#: m, standard deviation of the active-joint offset from its base point in the layer check
#: (near, not on, the base: the layers must agree off the constraint manifold too).
BASE_JITTER = 0.01
#: Indices of the active-link angles ``a_i`` in ``q`` (12,): where the motor torques act.
ACTIVE = np.array([2, 6, 10])
#: Preloads (N m) of the redundancy check.
PRELOADS = (0.0, 1.0)
#: Fewest states of the redundancy check along the circle (it uses ``n_checks // 3`` otherwise).
MIN_CIRCLE_STATES = 20
#: Recording interval (RK4 steps) of the driven runs.
RECORD_EVERY = 5
#: The lecture's worked example, a pendulum in Cartesian coordinates: mass (kg), gravity (m/s^2), rod length (m),
#: angle from the downward vertical (rad) and angular velocity (rad/s). The lecture's visible cell types the same values.
PENDULUM = {"m": 1.0, "g": 9.81, "length": 0.5, "theta": 0.6, "omega": 2.0}


def pendulum_example(m: float, g: float, length: float, theta: float, omega: float) -> dict[str, float]:
    """The Udwadia–Kalaba equation for a point mass ``m`` held on a circle of radius ``length`` under gravity ``g``.

    Coordinates ``q = (x, y)`` with the pivot at the origin, the constraint ``x^2 + y^2 = length^2`` differentiated
    twice, ``A = (x, y)``, ``b = -(dx^2 + dy^2)``, at the angle ``theta`` from the downward vertical and the angular
    velocity ``omega``. Returns the errors against the textbook pendulum: ``ddtheta`` (rad/s^2, the angular
    acceleration ``(x ddy - y ddx) / length^2`` against ``-(g / length) sin theta``), ``tension`` (N, ``|Q_c|`` against
    ``m (g cos theta + length omega^2)``) and ``across_rod`` (N, the part of ``Q_c`` across the rod: zero), and
    ``violation`` (m/s^2, ``b - A a0`` of the free fall).

    >>> ex = pendulum_example(**PENDULUM)
    >>> max(ex["ddtheta"], ex["tension"], ex["across_rod"]) < 1e-12
    True
    """
    x, y = length * np.sin(theta), -length * np.cos(theta)
    dx, dy = length * omega * np.cos(theta), length * omega * np.sin(theta)
    M, Q = m * np.eye(2), np.array([0.0, -m * g])
    A, b = np.array([[x, y]]), np.array([-(dx**2 + dy**2)])
    ddq, Qc = constraints.udwadia_kalaba(M, Q, A, b)
    ddtheta = (x * ddq[1] - y * ddq[0]) / length**2
    return {"ddtheta": float(abs(ddtheta + g / length * np.sin(theta))),
            "tension": float(abs(np.linalg.norm(Qc) - m * (g * np.cos(theta) + length * omega**2))),
            "across_rod": float(abs(x * Qc[1] - y * Qc[0]) / length),
            "violation": float((b - A @ np.linalg.solve(M, Q))[0])}


def random_chain_state(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One random cut-chain state ``(q_i, dq_i, ddq_i)``, each (4,), ``q_i = (x, y, a, b)`` (m, m, rad, rad).

    >>> [v.shape for v in random_chain_state(np.random.default_rng(0))]
    [(4,), (4,), (4,)]
    """
    qi = np.r_[rng.uniform(-POSITION_RANGE, POSITION_RANGE, 2), rng.uniform(-np.pi, np.pi, 2)]
    return qi, rng.uniform(-RATE_RANGE, RATE_RANGE, 4), rng.uniform(-ACC_RANGE, ACC_RANGE, 4)


def kernel_errors(robot, n_checks: int, rng: np.random.Generator) -> dict[str, float]:
    """Largest differences between the sympy subsystem model and robolib's hand-written kernels.

    At ``n_checks`` random states per chain: ``M`` (``M_i`` vs
    ``subsystem_mass_matrix``; kg, kg m, kg m^2), ``C`` (``C_i`` vs
    ``subsystem_coriolis_matrix``), ``h`` (``C_i dq_i`` vs ``bias_forces``; N, N m)
    and ``le`` (the Lagrange–Euler residual of the sympy ``M_i``, ``C_i`` at
    random accelerations; N, N m).

    >>> from robolib import redundant
    >>> err = kernel_errors(redundant.load(), 2, np.random.default_rng(1))
    >>> sorted(err), max(err.values()) < 1e-12
    (['C', 'M', 'h', 'le'], True)
    """
    err = {"M": 0.0, "C": 0.0, "h": 0.0, "le": 0.0}
    for chain in range(3):
        pvals = sym.parameter_tuple(robot, chain)
        residual = sym.residual_function(chain == 0)
        blk = slice(4 * chain, 4 * chain + 4)
        for _ in range(n_checks):
            qi, dqi, ddqi = random_chain_state(rng)
            Ms, Cs = sym.numeric_subsystem(robot, chain, qi, dqi)
            q12, dq12 = np.zeros(12), np.zeros(12)
            q12[blk], dq12[blk] = qi, dqi
            h = bias_forces(robot, q12, dq12)[blk]
            res = np.asarray(residual(tuple(qi), tuple(dqi), tuple(ddqi), pvals), dtype=float)
            err["M"] = max(err["M"], np.abs(Ms - subsystem_mass_matrix(robot, chain, qi)).max())
            err["C"] = max(err["C"], np.abs(Cs - subsystem_coriolis_matrix(robot, chain, qi, dqi)).max())
            err["h"] = max(err["h"], np.abs(Cs @ dqi - h).max())
            err["le"] = max(err["le"], np.abs(res).max())
    return {k: float(v) for k, v in err.items()}


def layer_errors(robot, n_checks: int, rng: np.random.Generator) -> dict[str, float]:
    """Largest difference of each constraint-layer part ``A1``, ``b1``, ``A2``, ``b2``: sympy vs robolib.

    ``n_checks`` random states with the active joints near (``BASE_JITTER``),
    not on, their base points, random angles and rates. ``A`` entries are
    dimensionless or m, ``b`` entries m/s^2.

    >>> from robolib import redundant
    >>> err = layer_errors(redundant.load(), 2, np.random.default_rng(1))
    >>> list(err), max(err.values()) < 1e-12
    (['A1', 'b1', 'A2', 'b2'], True)
    """
    f_layers = sym.layers_function()
    err = dict.fromkeys(["A1", "b1", "A2", "b2"], 0.0)
    for _ in range(n_checks):
        q = np.concatenate([np.r_[robot.base[i] + rng.normal(0, BASE_JITTER, 2), rng.uniform(-np.pi, np.pi, 2)]
                            for i in range(3)])
        dq = rng.uniform(-RATE_RANGE, RATE_RANGE, 12)
        sym_parts = [np.asarray(m, dtype=float) for m in f_layers(q, dq, robot.link_length)]
        rob_parts = [*closure_constraints(robot, q, dq)[2:], *base_constraints(robot, q, dq)[2:]]
        for key, s, r in zip(err, sym_parts, rob_parts):
            err[key] = max(err[key], float(np.abs(s.reshape(r.shape) - r).max()))
    return err


def cut_system(robot, q, dq, tau):
    """``M`` (12, 12), ``Q = E tau - C dq`` (12,) and the layers ``(A1, b1)``, ``(A2, b2)`` of the cut model.

    From robolib's kernels at the state ``q``, ``dq`` (12,) with motor torques ``tau`` (3,) N m.
    """
    M = mass_matrix(robot, q)
    Q = -bias_forces(robot, q, dq)
    Q[ACTIVE] += tau  # motor torques act on the active-link angles a_i
    _, _, A1, b1 = closure_constraints(robot, q, dq)
    _, _, A2, b2 = base_constraints(robot, q, dq)
    return M, Q, (A1, b1), (A2, b2)


def identity_states(robot, n_checks: int, rng: np.random.Generator, tau_range: float):
    """``(times (n,), q (n, 12), dq (n, 12), tau (n, 3))``: states on the reference circle, random torques.

    Times uniform over one period (s); torques uniform in ``[-tau_range, tau_range]`` N m.
    """
    times = rng.uniform(0, CIRCLE_PERIOD, n_checks)
    qs, dqs, _ = reference_motion(robot, times)
    taus = rng.uniform(-tau_range, tau_range, (n_checks, 3))
    return times, qs, dqs, taus


def route_deviations(robot, qs, dqs, taus) -> dict[str, float]:
    """Largest deviations between the routes to the constrained motion at the given states.

    Relative to the single-step Udwadia–Kalaba accelerations (scaled by
    ``max(1, max|ddq|)``): ``sequential`` (the patent's two layers),
    ``multipliers`` (Schur complement), ``kkt`` (augmented system), ``fast``
    (``forward_dynamics``). Absolute: ``qc`` (U–K force vs ``A^T lambda``, N, N m),
    ``reactions`` (layer-2 multipliers vs ``forward_dynamics``' reactions and KKT
    multipliers, N), ``layer2`` (the sequential layer-2 correction vs
    ``A_2^T lambda_2``, N: *not* round-off), ``reaction_max`` (N, the largest bearing-reaction component
    ``|lambda_2|``, for scale) and ``layer2_split`` (N: that correction against
    ``A_2^T lambda_2 + A_1^T (lambda_1 - lambda_1')``, with ``lambda_1'`` the multipliers of the closure alone:
    the correction is the bearing reaction plus the change of the closure forces, to round-off).

    >>> from robolib import redundant
    >>> robot = redundant.load()
    >>> _, qs, dqs, taus = identity_states(robot, 2, np.random.default_rng(0), 0.5)
    >>> dev = route_deviations(robot, qs, dqs, taus)
    >>> dev["sequential"] < 1e-10, dev["layer2"] > 1e-3
    (True, True)
    """
    dev = dict.fromkeys(["sequential", "multipliers", "kkt", "fast", "qc", "reactions", "layer2", "layer2_split",
                         "reaction_max"], 0.0)
    for q, dq, tau in zip(qs, dqs, taus):
        M, Q, (A1, b1), (A2, b2) = cut_system(robot, q, dq, tau)
        A, b = np.vstack([A1, A2]), np.concatenate([b1, b2])
        dd_uk, Qc = constraints.udwadia_kalaba(M, Q, A, b)
        dd_seq, parts = constraints.udwadia_kalaba_sequential(M, Q, [(A1, b1), (A2, b2)])
        dd_lm, lam = constraints.lagrange_multipliers(M, Q, A, b)
        dd_kkt, lam_kkt = constraints.kkt_solve(M, Q, A, b)
        dd_fast, F_fast = forward_dynamics(robot, q, dq, tau)
        scale = max(1.0, np.abs(dd_uk).max())
        for key, dd in (("sequential", dd_seq), ("multipliers", dd_lm), ("kkt", dd_kkt), ("fast", dd_fast)):
            dev[key] = max(dev[key], np.abs(dd - dd_uk).max() / scale)
        dev["qc"] = max(dev["qc"], np.abs(Qc - A.T @ lam).max())
        dev["reactions"] = max(dev["reactions"], np.abs(lam[4:].reshape(3, 2) - F_fast).max(),
                               np.abs(lam_kkt - lam).max())
        dev["layer2"] = max(dev["layer2"], np.abs(parts[1] - A2.T @ lam[4:]).max())
        dev["reaction_max"] = max(dev["reaction_max"], np.abs(lam[4:]).max())
        _, lam1 = constraints.lagrange_multipliers(M, Q, A1, b1)  # the closure alone, as layer 1 sees it
        split = A2.T @ lam[4:] + A1.T @ (lam[:4] - lam1)
        dev["layer2_split"] = max(dev["layer2_split"], np.abs(parts[1] - split).max())
    return {k: float(v) for k, v in dev.items()}


def other_layer_order(robot, q, dq, tau) -> dict[str, float]:
    """Exercise 3: the two layers applied base first; largest differences to the patent's order.

    ``ddq`` (relative units of ddq, m/s^2 and rad/s^2) between the orders (closure, base) and
    (base, closure); ``correction`` (N): the base-first correction vs the bearing reactions
    ``A_2^T lambda_2``.
    """
    M, Q, (A1, b1), (A2, b2) = cut_system(robot, q, dq, tau)
    dd12, _ = constraints.udwadia_kalaba_sequential(M, Q, [(A1, b1), (A2, b2)])
    dd21, parts21 = constraints.udwadia_kalaba_sequential(M, Q, [(A2, b2), (A1, b1)])
    _, lam = constraints.lagrange_multipliers(M, Q, np.vstack([A1, A2]), np.concatenate([b1, b2]))
    return {"ddq": float(np.abs(dd12 - dd21).max()), "correction": float(np.abs(parts21[0] - A2.T @ lam[4:]).max())}


def circle_states(robot, n_checks: int):
    """``(t (n,), q, dq, ddq)``: ``max(n_checks // 3, MIN_CIRCLE_STATES)`` equally spaced states of the circle."""
    t = np.linspace(0.0, CIRCLE_PERIOD, max(n_checks // 3, MIN_CIRCLE_STATES), endpoint=False)
    return (t, *reference_motion(robot, t))


def sympy_preload_direction(q) -> np.ndarray:
    """Unit preload directions (n, 3) from the sympy :func:`~robolib.redundant.symbolic.preload_direction`.

    ``q`` (n, 12); sign as in robolib (``sum(n) > 0``).
    """
    f_n = sym.preload_function()
    n = np.array([np.asarray(f_n(qk[ACTIVE], qk[ACTIVE + 1]), dtype=float).ravel() for qk in np.atleast_2d(q)])
    return n / np.linalg.norm(n, axis=1, keepdims=True) * np.sign(n.sum(axis=1, keepdims=True))


def redundancy_checks(robot, n_checks: int) -> dict[str, float]:
    """The redundancy resolution checked along the reference circle (every friction model, :data:`PRELOADS`).

    ``n``: closed-form preload direction vs ``inverse_dynamics``' SVD null
    vector; ``n_sympy``: sympy vs closed form; ``tau`` (N m): minimum-norm
    torques plus preload vs ``inverse_dynamics``; ``tau_min_perp`` (N m):
    largest ``|n . tau_min|``; ``F`` (N): reaction change per unit preload vs
    ``preload_reactions``; ``load_min``, ``load_max`` (N per N m): range of the
    bearing load per unit preload along the circle; ``n_states`` the states used.

    >>> from robolib import redundant
    >>> red = redundancy_checks(redundant.load(), 3)
    >>> red["n_states"], red["tau"] < 1e-10, 1.0 < red["load_min"] < red["load_max"] < 5.0
    (20, True, True)
    """
    _, q, dq, ddq = circle_states(robot, n_checks)
    n_closed = preload_direction(robot, q)
    red = {"n": 0.0, "n_sympy": float(np.abs(sympy_preload_direction(q) - n_closed).max()), "tau": 0.0}
    for friction in FRICTION_MODELS:
        for pre in PRELOADS:
            r = inverse_dynamics(robot, q, dq, ddq, friction, pre)
            red["n"] = max(red["n"], float(np.abs(r.null_direction - n_closed).max()))
            tau_ts = minimum_norm_torques(robot, q, dq, ddq, r.friction_torque, pre)
            red["tau"] = max(red["tau"], float(np.abs(tau_ts - r.tau).max()))
    r0 = inverse_dynamics(robot, q, dq, ddq)
    r1 = inverse_dynamics(robot, q, dq, ddq, None, 1.0)
    dF = preload_reactions(robot, q)
    red["tau_min_perp"] = float(np.abs(np.einsum("ni,ni->n", r0.tau, r0.null_direction)).max())
    red["F"] = float(np.abs((r1.reactions - r0.reactions) - dF).max())
    load = np.linalg.norm(dF, axis=-1)
    red.update(load_min=float(load.min()), load_max=float(load.max()), n_states=len(q))
    return red


#: Labels of the two integration runs: Baumgarte-stabilised and unstabilised.
STABILISED = f"Baumgarte α = β = {BAUMGARTE[0]:g} /s"
UNSTABILISED = "no stabilisation"
GAINS = {STABILISED: BAUMGARTE, UNSTABILISED: (0.0, 0.0)}


def integration_runs(robot, t_free: float, t_drift: float, free_start, free_velocity) -> dict:
    """Free motion (zero torque, no friction) and driven motion (friction-free circle torques), both gains.

    ``free_start`` (2,) m: start of the end-effector relative to the base
    centroid, ``free_velocity`` (2,) m/s its velocity; runs of ``t_free`` and
    ``t_drift`` seconds. Returns ``free``, ``driven`` (label -> :class:`Simulation`),
    ``ke_rel`` (label -> largest ``|T/T0 - 1|``), ``travel`` (m, end-effector
    displacement of the stabilised free run), ``track`` (m, largest distance of
    the stabilised driven run from the circle), ``drift`` (label -> largest
    ``max |Phi|``, m), ``ke_step`` (the unstabilised free run's energy error at
    the default step over that at half the step: ~16 for fourth-order RK4) and
    ``drift_growth`` (label -> largest drift over the second half of the driven
    run over that of the first half).
    """
    q0f, dq0f = initial_state(robot, robot.centroid + np.asarray(free_start, float), free_velocity)
    free = {k: simulate(robot, q0f, dq0f, np.zeros(3), t_free, baumgarte=g) for k, g in GAINS.items()}
    q0, dq0, _ = reference_motion(robot, [0.0])
    sched = reference_torque(robot)
    driven = {k: simulate(robot, q0[0], dq0[0], sched, t_drift, baumgarte=g, record_every=RECORD_EVERY)
              for k, g in GAINS.items()}
    ke_rel = {k: float(np.abs(s.kinetic_energy / s.kinetic_energy[0] - 1).max()) for k, s in free.items()}
    stab = driven[STABILISED]
    track = float(np.abs(stab.end_effector - reference_circle(robot, stab.t).p).max())
    travel = float(np.linalg.norm(free[STABILISED].end_effector[-1] - free[STABILISED].end_effector[0]))
    drift = {k: float(s.drift.max()) for k, s in driven.items()}
    half = simulate(robot, q0f, dq0f, np.zeros(3), t_free, dt=DT / 2, record_every=2, baumgarte=GAINS[UNSTABILISED])
    ke_half = float(np.abs(half.kinetic_energy / half.kinetic_energy[0] - 1).max())
    ke_step = ke_rel[UNSTABILISED] / ke_half if ke_half > 0 else float("inf")
    growth = {k: _growth(s.t, s.drift) for k, s in driven.items()}
    return {"free": free, "driven": driven, "ke_rel": ke_rel, "travel": travel, "track": track, "drift": drift,
            "ke_step": float(ke_step), "drift_growth": growth, "stretch": stretch_passage(robot, free)}


#: s, the energy error "before the stretched pose" is taken up to this long before the closest approach.
STRETCH_LEAD = 0.3


def stretch_passage(robot, free: dict) -> dict:
    """Where the free motion comes closest to a stretched chain (``|p - O_i| = 2 l``: the chain's links aligned, the
    edge of its workspace and a singular pose of the chain).

    Returns ``t`` (s, time of the closest approach), ``chain`` (1-based), ``gap`` (m, 2 l - |p - O_i| there),
    ``t_end`` (s, end of the run) and ``before`` (label -> largest energy error over ``t < t - STRETCH_LEAD``
    over the largest over the whole run; nan if that window is empty).
    """
    s = next(iter(free.values()))
    gap = 2 * robot.link_length - np.linalg.norm(s.end_effector[:, None, :] - np.asarray(robot.base)[None], axis=-1)
    k = int(np.argmin(gap.min(axis=1)))
    chain = int(np.argmin(gap[k]))
    t_star = float(s.t[k])
    before = {}
    for label, run in free.items():
        e = np.abs(run.kinetic_energy / run.kinetic_energy[0] - 1)
        early = run.t < t_star - STRETCH_LEAD
        before[label] = float(e[early].max() / e.max()) if early.any() and e.max() > 0 else float("nan")
    return {"t": t_star, "chain": chain + 1, "gap": float(gap[k, chain]), "t_end": float(s.t[-1]), "before": before}


def _growth(t, x) -> float:
    """``max x`` over the second half of ``t`` over ``max x`` over the first half (inf if that is 0).

    >>> _growth(np.arange(4.0), np.array([1.0, 2.0, 3.0, 8.0]))
    4.0
    """
    late = t > 0.5 * (t[0] + t[-1])
    early = float(np.max(x[~late]))
    return float(np.max(x[late])) / early if early > 0 else float("inf")


__all__ = ["PENDULUM", "pendulum_example", "random_chain_state", "kernel_errors", "layer_errors", "cut_system", "identity_states", "route_deviations",
           "other_layer_order", "circle_states", "sympy_preload_direction", "redundancy_checks", "integration_runs",
           "STABILISED", "UNSTABILISED", "GAINS"]
