"""The clearance chapter's periodic orbits: shooting at each verdict case, and the period-1 branch in frequency.

A periodic verdict here means three things, each a claim: the orbit exists (shooting on the
k-th return map converged, its residual at the level of the integration noise), it is stable
(its largest Floquet multiplier, with its differencing error, below ``1 - STABILITY_MARGIN``),
and the motion from the chapter's initial state converges to it. For every verdict case
:func:`case_orbits` tries the periods ``ORBIT_PERIODS`` in turn, each from the last transient
sample and then from the closest returns of the simulated motion (the samples ``n`` with the
smallest ``|s_{n+k} - s_n|``: where the motion passes near a period-k orbit), and stops at the
first stable orbit the motion converges to. A case without one keeps the orbits it found
(unstable ones, inside the irregular motion). Its largest Lyapunov exponent comes by three routes: ``ln max|mu|
/ (kT)`` of the stable orbit, and the tangent-linear time series (:func:`robolib.gearshift.lyapunov.lyapunov_exponent`)
on the fast model and on the seed's DAE; they must agree (an irregular case: positive on both models).

:func:`branch_study` continues the period-1 orbit in frequency from the sweep's lowest
frequency (:func:`robolib.gearshift.orbits.frequency_branch`) and locates its first period
doubling, which the brute-force frequency sweep must bracket (period-1 just below, not
period-1 just above).

>>> close_returns(np.array([[0.0], [1.0], [0.1], [1.1], [0.5], [0.5]]), 2, 2)
[0, 2]
>>> orbit_verdict_name(None)
'no stable orbit'
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from robolib.book.notebook import markdown_table
from robolib.book.text import and_text
from robolib.core import nonlinear as N
from robolib.core.errors import ParameterError, SingularityError, UnreachableError
from robolib.core.periodic import STABILITY_MARGIN
from robolib.gearshift import case_verdict as V
from robolib.gearshift import lyapunov as LY
from robolib.gearshift import orbits as O
from robolib.gearshift.runs import FAST_TOLERANCE_DIVISOR
from robolib.studies.clearance_dynamics.figures import (
    CONSTRAINED_WIDTH,
    FULL_WIDTH,
    bracket_text,
    crossing_text,
    orbit_distance,
    unresolved,
)
from robolib.studies.clearance_dynamics.verdict_store import load_or_run_study
from robolib.studies.clearance_dynamics.verdicts import case_id, register_uncited

#: Periods tried per case, smallest first (a period-4 orbit would follow a second doubling).
ORBIT_PERIODS = V.PERIODS
#: Starts per period besides the last transient sample: the samples of the closest returns (for periods up to
#: CLOSE_RETURN_K_MAX; a longer period is tried from the last transient sample only: each failed start of P^4 costs
#: tens of evaluations of the map).
CLOSE_RETURN_STARTS = V.CLOSE_RETURN_STARTS
CLOSE_RETURN_K_MAX = V.CLOSE_RETURN_K_MAX
#: Poincaré samples of the simulated motion after ``orbits.ORBIT_TRANSIENT`` periods.
ORBIT_SAMPLES = 24
#: Continuation of the period-1 branch: from the sweep's lowest frequency up to BRANCH_F_MAX (Hz; past its first
#: loss of stability, the sweep shows the rest), step BRANCH_DS (Hz, halved after a failed solve down to
#: BRANCH_DS_MIN), crossings located to a bracket of BRANCH_P_TOL (Hz).
BRANCH_F_MAX = 4.0
BRANCH_DS = 0.25
BRANCH_DS_MIN = 0.03
BRANCH_P_TOL = 1e-2
#: Direct route at the points around the first loss of stability: a perturbation of this scaled size, followed
#: over this many returns; it must shrink below the stable end and grow at the unstable end.
DIRECT_AMPLITUDE = 1e-4
DIRECT_RETURNS = 4
#: A stable branch point is compared with the sweep only if its transient has died out there: ``max|mu|`` to the
#: power of the sweep's transient periods below this (else the sweep still carries the approach to the orbit).
TRANSIENT_LEFT = 1e-3
#: Normalised units (0.1 % of c): a brute-force sweep point lies on the branch when its last sample is this close to
#: the branch's orbit point, and off it when farther. The sweep starts with the journal centred, about one unit from
#: the orbit point, so after its transient at most TRANSIENT_LEFT of that start is left: the same number.
BRUTE_AGREE = TRANSIENT_LEFT


@dataclass(frozen=True)
class SectionUnits:
    """Phase-0 states in the chapter's Poincaré units ``(e_local / c, ed / (c omega))`` (:func:`section_units`).

    Fields:

    * ``samples``: (m, 4) the simulated samples (dimensionless).
    * ``orbits``: ``{k: (k, 4)}`` the points of each orbit found, by period (dimensionless).
    * ``history``: (ORBIT_TRANSIENT + m, 4) every sample from the journal centred on (dimensionless), or None.
    """

    samples: np.ndarray
    orbits: dict
    history: np.ndarray | None = None


@dataclass(frozen=True)
class CaseOrbits:
    """Shooting at one verdict case (:func:`case_orbits`).

    Fields:

    * ``case``: ``(f [Hz], c [mm])``.
    * ``samples``: (n_samples + 1, 4) the simulated Poincaré states after ``orbits.ORBIT_TRANSIENT`` periods (m, m/s).
    * ``history``: (ORBIT_TRANSIENT + n_samples + 1, 4) all of them from the start (m, m/s).
    * ``scale``: (4,) ``(c, c, c omega, c omega)`` (m, m/s).
    * ``found``: the orbits found, one per period (:class:`robolib.gearshift.orbits.OrbitResult`, minimal period k).
    * ``attractor``: the stable one the motion converges to (one of ``found``), or None.
    * ``attempts``: ``(k, start index, outcome)`` per shooting.
    * ``lyapunov``: the time-series exponent on the fast model (:class:`robolib.gearshift.lyapunov.Exponent`, 1/s).
    * ``dae``: the same on the DAE (:class:`robolib.gearshift.lyapunov.Exponent`), or None when not computed.
    * ``checks``: at the first case, ``{"alpha": the DAE run at ALPHA_HIGH, "no saltation": the fast run without the
      memory's saltation}`` (:class:`robolib.gearshift.lyapunov.TangentExponent` each), else None.
    * ``section``: the samples and orbit points in the chapter's units (:class:`SectionUnits`).
    * ``wall_s``: wall time, s.
    * ``refined``: the attractor again at a tenth of the tolerance (:class:`robolib.gearshift.orbits.OrbitResult`,
      shot from the attractor, compared with samples simulated at that tolerance), or None without an attractor.
    * ``refined_history``: those samples from the start (m, m/s), or None.
    * ``rtol``: the tolerance of the shooting and the samples (the first rung).
    """

    case: tuple
    samples: np.ndarray
    history: np.ndarray
    scale: np.ndarray
    found: list
    attractor: O.OrbitResult | None
    attempts: list
    lyapunov: LY.Exponent
    section: SectionUnits
    wall_s: float
    dae: LY.Exponent | None = None
    checks: dict | None = None
    refined: O.OrbitResult | None = None
    refined_history: np.ndarray | None = None
    rtol: float = O.ORBIT_RTOL


@dataclass(frozen=True)
class BranchStudy:
    """The period-1 branch at the frequency sweep's clearance and its first loss of stability (:func:`branch_study`).

    Fields:

    * ``f``: (m,) the branch's frequencies, Hz.
    * ``section``: (m, 4) its orbit points in the chapter's sample units (dimensionless).
    * ``mu``: (m,) the largest ``abs(multiplier)``; mu_real: (m,) that multiplier's real part.
    * ``stable``: (m,) bool per point.
    * ``bifurcations``: ``[(kind, f [Hz], (lo, hi) bracket [Hz], note)]`` located along the branch.
    * ``first_loss``: index of the first unstable point after a stable one, or None.
    * ``direct``: ``{index: perturbation ratios per return}`` at the two points around it.
    * ``onsets``: ``{index: contact onsets per period}`` at those points.
    * ``clearance_mm``: the branch's clearance, mm.
    * ``branch2``: the period-2 branch's outcome (text) or None.
    * ``stop_reason``: why the continuation stopped.
    * ``evaluations``: evaluations of the return map.
    * ``wall_s``: wall time, s.
    """

    f: np.ndarray
    section: np.ndarray
    mu: np.ndarray
    mu_real: np.ndarray
    stable: np.ndarray
    bifurcations: list
    first_loss: int | None
    direct: dict
    onsets: dict
    clearance_mm: float
    branch2: str | None
    stop_reason: str
    evaluations: int
    wall_s: float


close_returns = V.close_returns


def orbit_verdict_name(attractor) -> str:
    """The orbit verdict in words: ``stable period-k`` (``attractor`` an :class:`robolib.gearshift.orbits.OrbitResult`)
    or ``no stable orbit`` (None).

    >>> orbit_verdict_name(None)
    'no stable orbit'
    """
    return "no stable orbit" if attractor is None else f"stable period-{attractor.k}"


def case_orbits(params, case, joint: str = "B1", rtol=None, periods=ORBIT_PERIODS,
                n_starts: int = CLOSE_RETURN_STARTS, n_samples: int = ORBIT_SAMPLES,
                lyapunov_periods: int = LY.N_PERIODS, seed: int = 0, **exponent_kw) -> CaseOrbits:
    """Shooting at one case ``(f [Hz], c [mm])`` from the chapter's initial state (picklable: a sweep task).

    Returns a :class:`CaseOrbits`: the simulated samples, the orbits found (one per period, minimal period = k),
    the stable one the motion converges to (or None), the attempts, the fast model's Lyapunov exponent
    (:func:`exponent`, ``lyapunov_periods`` measured periods, ``seed`` of its tangent's start and ``exponent_kw``
    further arguments of :func:`robolib.gearshift.lyapunov.lyapunov_exponent`) and the section in the chapter's units.
    """
    f, c = float(case[0]), float(case[1]) * 1e-3
    wall = time.perf_counter()
    a = V.find_attractor(params, f, c, joint, rtol, periods=periods, n_starts=n_starts, n_samples=n_samples)
    P, S, samples, found, attractor, attempts = a.map, a.history, a.samples, a.found, a.orbit, a.attempts
    L = exponent(params, (f, c * 1e3), joint, "fast", lyapunov_periods, seed=seed, **exponent_kw)
    refined, history = (None, None) if attractor is None else V.refined_orbit(params, joint, P.rtol, attractor, n_samples, REFINE_DIVISOR)
    sec = section_units(P, S, found)
    return CaseOrbits((f, c * 1e3), samples, S, P.scale, found, attractor, attempts, L,
                      SectionUnits(sec.samples[len(S) - len(samples):], sec.orbits, sec.samples), time.perf_counter() - wall, refined=refined,
                      refined_history=history, rtol=P.rtol)


#: The cited cases with a stable orbit (the prose cites their distance claims).
PERIODIC_CITED = ((10.0, 0.5), (2.0, 0.1))
#: The attractor's second rung: the tolerance divided by this (the motion's distance to the orbit must fall with it).
REFINE_DIVISOR = 10.0
#: The orbit's accuracy (its shooting tolerance, 10 x the one-return noise) falls at least this many times from a rung
#: to the next (5.5-fold at 2 Hz / 0.1 mm, 10-fold at 10 Hz / 0.5 mm from rtol 1e-11 to 1e-12; the reset memory's
#: offset, 2.5e-3 at 10 Hz, not at all).
DISTANCE_FALL = 3.0


#: Tolerances of the Lyapunov exponents as the study's rungs, refined tenfold: the fast model at the parameter file's
#: rtol (integrated at a tenth of it, :data:`robolib.gearshift.runs.FAST_TOLERANCE_DIVISOR`: the same accuracy of
#: the motion as the DAE at the rung); the DAE at the same rung except in :data:`DAE_RTOL_CASES` (the variational
#: equation's differences of a right-hand side that solves a linear system are noisy at the half-width that is
#: accurate, and the error control follows the noise).
LYAP_RTOL = {"fast": 1e-9, "dae": 1e-9}
#: The DAE's rung where its tangent is too costly at the default (1e-9 -> 1e-10): at 2 Hz / 0.1 mm the journal stays in
#: contact and a drive period costs 17 s at 1e-9 and 139 s at 1e-10 (the change from 1e-8 to 1e-9 is 0.13 /s there);
#: at 10 Hz / 0.5 mm the DAE moves from -9.7 (1e-8) to -4.12 (1e-9) and -4.43 /s (1e-10), so 1e-8 is not a rung there.
DAE_RTOL_CASES = {(2.0, 0.1): 1e-8}
#: Largest relative uncertainty of a periodic case's exponent, and of an irregular case's.
LYAP_REL_PERIODIC = 0.15
LYAP_REL_IRREGULAR = 0.25


def exponent(params, case, joint: str, model: str, n_periods: int, **kw) -> LY.Exponent:
    """The largest Lyapunov exponent of case ``(f [Hz], c [mm])`` on ``model`` ("fast" or "dae") at the study
    rung :data:`LYAP_RTOL` (:func:`robolib.gearshift.lyapunov.lyapunov_exponent`; ``kw`` its further arguments)."""
    rt = LYAP_RTOL[model] / (FAST_TOLERANCE_DIVISOR if model == "fast" else 1)
    return LY.lyapunov_exponent(params, float(case[0]), float(case[1]) * 1e-3, joint, model=model, rtol=rt,
                                n_periods=n_periods, **kw)


def section_units(P: O.StroboscopicMap, samples, found) -> SectionUnits:
    """The simulated samples and the orbit points in the chapter's Poincaré units ``(e_local / c, ed / (c omega))``
    (the bearing body's frame, as :func:`robolib.gearshift.poincare_run` samples): a :class:`SectionUnits`.
    ``samples`` (m >= 1, 4) in m, m/s; ``found`` a list of converged orbits (:class:`robolib.gearshift.orbits.OrbitResult`,
    points (k, 4)). A state the mechanism cannot assemble at raises ParameterError naming ``samples``/``found``.
    """
    fc = P.model

    def units(x, name):
        x = np.atleast_2d(x)
        try:
            q = np.array([fc.full_state(xi[:2], xi[2:4], 0.0)[0] for xi in x])
        except (UnreachableError, SingularityError) as exc:
            raise ParameterError(f"{name} is not valid: a state the mechanism cannot assemble at phase 0 ({exc})") \
                from None
        e_loc = fc.e_local(q, x[:, :2])
        return np.concatenate([e_loc / P.clearance, x[:, 2:4] / (P.clearance * P.omega)], axis=1)

    return SectionUnits(units(samples, "samples"),
                        {d.k: units(np.array(d.orbit.points), f"found[{i}]") for i, d in enumerate(found)})


#: Quick settings (tests): periods tried, close-return starts, samples, Lyapunov periods; no branch.
QUICK = {"periods": (1, 2), "n_starts": 0, "n_samples": 6}
QUICK_LYAPUNOV_PERIODS = 4


#: Quick settings of the exponents (tests): transient periods (the DAE's, from the store's jobs, keep N_ALIGN).
QUICK_EXPONENT = {"n_transient": 4}
#: The DAE's second Baumgarte factor (1/s) of the alpha check, at the first case.
ALPHA_HIGH = 50.0


def _orbit_task(spec: SimpleNamespace, item):
    """One task of :func:`orbit_tasks`: ``("case", (f, c_mm))``, ``("dae", (f, c_mm))`` (its DAE exponent),
    ``("alpha", (f, c_mm))`` (one DAE run at ``ALPHA_HIGH``), ``("no saltation", (f, c_mm))`` (one fast run
    without the memory's saltation) or ``("branch", None)``."""
    kind, arg = item
    if kind == "case":
        return case_orbits(spec.base, arg, joint=spec.joint, lyapunov_periods=spec.periods[arg], **spec.case_kw,
                           **spec.exp_kw)
    if kind == "no saltation":
        f, c = float(arg[0]), float(arg[1]) * 1e-3
        return LY.tangent_lyapunov(spec.base, f, c, spec.joint, saltation=False, n_periods=spec.periods[arg],
                                   rtol=LYAP_RTOL["fast"] / FAST_TOLERANCE_DIVISOR / LY.RTOL_DIVISOR, **spec.exp_kw)
    return branch_study(spec.branch)


def dae_rtol(case) -> float:
    """The DAE's rung for the exponent of ``case`` (f [Hz], c [mm]): :data:`DAE_RTOL_CASES` or ``LYAP_RTOL["dae"]``."""
    return DAE_RTOL_CASES.get((float(case[0]), float(case[1])), LYAP_RTOL["dae"])


def dae_jobs(s, case, periods: int, n_transient: int) -> list:
    """The DAE's three exponent runs of ``case`` as verdict-store jobs
    (:func:`robolib.studies.clearance_dynamics.verdict_store.study_run`: rtol :data:`LYAP_RTOL` ``["dae"]``, then a
    tenth of it, then that with the half-width times EPS_FACTOR)."""
    f, c = case
    rt = dae_rtol(case)
    return [("lyapunov", f, c, rt, n_transient, periods, None, 1.0),
            ("lyapunov", f, c, rt / LY.RTOL_DIVISOR, n_transient, periods, None, 1.0),
            ("lyapunov", f, c, rt / LY.RTOL_DIVISOR, n_transient, periods, None, LY.EPS_FACTOR)]


def dae_exponent_jobs(s) -> tuple[dict, tuple]:
    """``({case: its three DAE jobs (dae_jobs)}, the alpha check's job)`` of the study settings ``s``: what the
    store must hold for a run to read the DAE's exponents (``ROBOLIB_WRITE_STUDY_STORE=1 python -m
    robolib.studies.clearance_dynamics.orbit_study`` computes and stores them)."""
    quick = bool(s.params.get("quick"))
    cases = [tuple(fc) for fc in s.cases]
    ntr = QUICK_EXPONENT["n_transient"] if quick else LY.N_TRANSIENT
    per = {fc: (QUICK_LYAPUNOV_PERIODS if quick else s.lyapunov_periods(fc[0])) for fc in cases}
    jobs = {fc: dae_jobs(s, fc, per[fc], ntr) for fc in cases}
    return jobs, ("lyapunov", *cases[0], dae_rtol(cases[0]) / LY.RTOL_DIVISOR, ntr, per[cases[0]], ALPHA_HIGH, 1.0)


def orbit_tasks(s, n_jobs=None) -> tuple[dict, BranchStudy | None]:
    """:func:`case_orbits` for every verdict case of the study settings ``s``, each case's DAE exponent, the alpha
    and saltation checks at the first case, and :func:`branch_study`, in parallel (the longest first);
    ``({(f, c_mm): CaseOrbits}, BranchStudy or None)``, the DAE exponent in ``CaseOrbits.dae`` and the checks in
    ``CaseOrbits.checks`` of the first case. ``QUICK`` settings and no branch when ``s.params["quick"]``."""
    quick = bool(s.params.get("quick"))
    cases = [tuple(fc) for fc in s.cases]
    spec = SimpleNamespace(base=s.base, joint=s.joints[0], case_kw=QUICK if quick else {},
                           exp_kw=(QUICK_EXPONENT if quick else {}) | {"seed": s.seed},
                           periods={fc: (QUICK_LYAPUNOV_PERIODS if quick else s.lyapunov_periods(fc[0]))
                                    for fc in cases},
                           branch=SimpleNamespace(base=s.base, joints=s.joints, freq_range=list(s.freq_range),
                                                  freq_sweep_clearance_mm=s.freq_sweep_clearance_mm))
    items = ([] if quick else [("branch", None)]) + [("case", fc) for fc in cases] + [("no saltation", cases[0])]
    _, out = N.sweep(functools.partial(_orbit_task, spec), items, n_jobs=s.n_jobs if n_jobs is None else n_jobs)
    res = dict(zip(items, out))
    # the DAE's exponents: stored (data/gearshift/verdict_runs.json) where the store has them, else computed
    jobs, alpha = dae_exponent_jobs(s)
    runs, _ = load_or_run_study(s.base, [j for js in jobs.values() for j in js] + [alpha], seed=s.seed,
                                n_jobs=s.n_jobs if n_jobs is None else n_jobs, engine="dae")
    got = {fc: dataclasses.replace(res[("case", fc)], dae=LY.combine(*(runs[j] for j in jobs[fc]), "dae"))
           for fc in cases}
    got[cases[0]] = dataclasses.replace(got[cases[0]], checks={"alpha": runs[alpha],
                                                               "no saltation": res[("no saltation", cases[0])]})
    return got, res.get(("branch", None))


def _supported(x: float, u: float, sign: bool = False) -> str:
    """``x`` to the decimal of its uncertainty ``u``'s leading digit (at most 3 decimals; a leading 1 or 2 keeps two
    digits): ``_supported(0.403, 0.011)`` is ``'0.403'``, ``_supported(8.40, 1.45, True)`` ``'+8.4'``,
    ``_supported(-4.47, 0.054)`` ``'-4.47'`` (a minus sign)."""
    if not (u > 0 and math.isfinite(u)):
        return f"{x:{'+' if sign else ''}.2f}".replace("-", "−")
    lead = math.floor(math.log10(u))                         # a leading 1 or 2 keeps a second digit (as 0.13)
    decimals = min(3, max(0, -lead + (1 if round(u / 10.0 ** lead, 9) < 3 else 0)))
    return f"{x:{'+' if sign else ''}.{decimals}f}".replace("-", "−")


def _mu_text(o: O.OrbitResult) -> str:
    """The largest multiplier in words, to the digits its error supports (a bound when the computed value is below
    its numerical error)."""
    if o.resolved:
        return f"largest multiplier {_supported(o.max_mu, o.mu_error)}"
    return f"largest multiplier below {o.mu_upper:.2g}, too small to resolve"


def _pm(x: float, u: float, unit: str = " /s") -> str:
    """An exponent and its uncertainty, both to the decimal of the uncertainty's leading digit (:func:`_supported`),
    the uncertainty rounded up: the one format of the lecture, the claims and the evidence tables. ``unit``: ``""``
    in a table whose header gives it.

    >>> _pm(-4.539, 0.13), _pm(8.4013, 1.45, unit="")
    ('−4.54 ± 0.13 /s', '+8.4 ± 1.5')
    >>> _pm(-29.0618, 4.0e-4)
    '−29.062 ± 0.001 /s'
    """
    value = _supported(x, u, sign=True)
    decimals = len(value.split(".")[1]) if "." in value else 0
    spread = math.ceil(u * 10**decimals - 1e-9) / 10**decimals if u > 0 and math.isfinite(u) else u
    return f"{value} ± {spread:.{decimals}f}{unit}"


def exponent_text(E: LY.Exponent, unit: str = " /s") -> str:
    """A time-series exponent in the book's one format: :func:`_pm` of its value and uncertainty.

    >>> exponent_text(SimpleNamespace(exponent=8.4013, uncertainty=1.45), unit="")
    '+8.4 ± 1.5'
    """
    return _pm(E.exponent, E.uncertainty, unit)


def floquet_exponent(o: O.OrbitResult) -> tuple[float, float]:
    """``(lambda, u)`` of an orbit's Floquet route ``ln max|mu| / (kT)``: the middle of its interval
    ``[ln(max|mu| - err), ln(max|mu| + err)] / (kT)`` and its half-width (1/s)."""
    return 0.5 * (o.lyapunov_lower + o.lyapunov_upper), 0.5 * (o.lyapunov_upper - o.lyapunov_lower)


def register_case(reg, d: CaseOrbits) -> None:
    """Claims ``clearance_orbit_<case>`` (the orbit verdict), ``clearance_orbit_routes_<case>`` (the Floquet route
    against the time series) and ``clearance_exponent_models_<case>`` (the fast model against the DAE) of one
    :func:`case_orbits` result with its DAE exponent."""
    f, c_mm = d.case
    a, L, found = d.attractor, d.lyapunov, d.found
    lo_ts, hi_ts = L.interval
    tried = sorted({k for k, _, _ in d.attempts}) or list(ORBIT_PERIODS)
    ks = ", ".join(str(k) for k in tried[:-1]) + (" or " if len(tried) > 1 else "") + str(tried[-1])
    u_txt = (f"u = (batch error^2 + the change from the rung rtol {LYAP_RTOL['fast']:g} to "
             f"{LYAP_RTOL['fast'] / LY.RTOL_DIVISOR:g} (the fast model at a tenth of each)^2 + the change with the "
             f"differences' half-width x {LY.EPS_FACTOR:g}^2)^1/2")
    if a is not None:
        reg.claim(case_id("clearance_orbit", f, c_mm), f"at {f:g} Hz / {c_mm:g} mm a stable period-{a.k} orbit exists "
                  "and the motion from the chapter's initial state converges to it",
                  value={"residual": a.residual, "tol": a.tol, "max_mu": a.max_mu, "mu_upper": a.mu_upper,
                         "distance": a.sim_distance},
                  criterion=f"shooting on P^k converged with residual <= tol ({O.SHOOT_TOL_FACTOR:g} x the measured "
                            f"one-return noise), max|mu| + err < {1 - STABILITY_MARGIN:g} (err: noise / difference "
                            f"step + the change at {O.STEP_SPREAD_FACTOR:g} x the step), and the last simulated samples "
                            f"within {O.MOTION_FACTOR:g} x tol of the orbit's points with the onset-speed memory carried "
                            "(the simulation's own orbit)",
                  holds=bool(a.residual <= a.tol and a.mu_upper < 1 - STABILITY_MARGIN and a.converges),
                  text=f"a stable period-{a.k} orbit ({_mu_text(a)}) that the motion converges to")
        register_distance(reg, d)
        if a.resolved:
            lf, uf = floquet_exponent(a)
            ok = abs(L.exponent - lf) <= L.uncertainty + uf and L.relative <= LYAP_REL_PERIODIC
            what = (f"at {f:g} Hz / {c_mm:g} mm the Floquet exponent and the time-series exponent agree, the latter "
                    f"known to {LYAP_REL_PERIODIC:.0%}")
            crit = (f"|lambda_ts - lambda_F| <= u_ts + u_F (lambda_F ± u_F = ln(max|mu| ± err) / (kT)), and "
                    f"u_ts <= {LYAP_REL_PERIODIC:g} |lambda_ts|")
            text = f"{_pm(lf, uf)} from the multipliers and {exponent_text(L)} from the time series"
        else:
            ok = hi_ts <= a.lyapunov_upper
            what, crit = (f"at {f:g} Hz / {c_mm:g} mm the time-series exponent lies below the Floquet bound",
                          "lambda_ts + u <= ln(max|mu| + err) / (kT) (the multipliers are below their error: a bound)")
            text = (f"{exponent_text(L)} from the time series, below the bound of "
                    f"{a.lyapunov_upper:+.1f} /s from the multipliers").replace("-", "−")
    else:
        unstable = [o for o in found if o.max_mu - o.mu_error > 1 + STABILITY_MARGIN]
        n_starts = len(d.attempts)
        reg.claim(case_id("clearance_orbit", f, c_mm), f"at {f:g} Hz / {c_mm:g} mm shooting finds no stable orbit of "
                  f"period {ks} in its {n_starts} attempts that the motion from the chapter's initial state converges "
                  "to, and the time-series exponent is positive",
                  value={"periods_tried": tried, "found": [(o.k, o.max_mu) for o in found],
                         "lyapunov": [L.exponent, L.uncertainty]},
                  criterion=f"shooting for each period {ks} from the last transient sample and, for periods up to "
                            f"{CLOSE_RETURN_K_MAX}, also from the {CLOSE_RETURN_STARTS} closest returns finds no orbit "
                            f"with max|mu| + err < {1 - STABILITY_MARGIN:g} that the motion converges to, and "
                            "lambda_ts - u > 0",
                  holds=bool(lo_ts > 0),
                  text=f"no stable orbit of period {ks}" + (
                      ", only " + " and ".join(f"an unstable period-{o.k} orbit ({_mu_text(o)})" for o in found)
                      if found else " and no orbit at all"))
        ok = (bool(unstable) and lo_ts > 0 and L.relative <= LYAP_REL_IRREGULAR
              and all(math.log(o.max_mu - o.mu_error) > 0 for o in unstable))
        what = (f"at {f:g} Hz / {c_mm:g} mm the unstable orbits' Floquet exponents and the time-series exponent are "
                f"positive, the latter known to {LYAP_REL_IRREGULAR:.0%}")
        crit = (f"at least one orbit found with max|mu| - err > {1 + STABILITY_MARGIN:g}, lambda_ts - u > 0 and "
                f"u <= {LYAP_REL_IRREGULAR:g} lambda_ts")
        text = (" and ".join(f"{math.log(o.max_mu) / (o.k / f):+.1f} /s" for o in unstable)
                + " from the multipliers of the unstable period-"
                + " and period-".join(str(o.k) for o in unstable)
                + (" orbits" if len(unstable) > 1 else " orbit")
                + f", {exponent_text(L)} from the time series"
                if unstable else "no unstable orbit found to compare with")
    reg.claim(case_id("clearance_orbit_routes", f, c_mm), what,
              value={"time_series": [L.exponent, L.uncertainty],
                     "floquet": [(o.k, o.lyapunov, o.lyapunov_lower, o.lyapunov_upper) for o in found]},
              criterion=crit + "; " + u_txt, holds=bool(ok), text=text)
    register_models(reg, d)


def register_distance(reg, d: CaseOrbits) -> None:
    """Claim ``clearance_orbit_distance_<case>``: the motion's distance to its stable orbit is within the orbit's
    accuracy (``MOTION_FACTOR`` x its shooting tolerance) at two tolerances, and both the accuracy and the distance
    fall when the tolerance falls ``REFINE_DIVISOR``-fold (the accuracy at least ``DISTANCE_FALL``-fold)."""
    f, c_mm = d.case
    a, r = d.attractor, d.refined
    cid, what = (case_id("clearance_orbit_distance", f, c_mm),
                 f"at {f:g} Hz / {c_mm:g} mm the motion's distance to the stable orbit is within the orbit's accuracy, "
                 "and both fall with the tolerance")
    crit = (f"at rtol and at rtol / {REFINE_DIVISOR:g}: the largest distance of the last simulated samples to the orbit "
            f"(memory carried) <= {O.MOTION_FACTOR:g} x the shooting tolerance (tol = {O.SHOOT_TOL_FACTOR:g} x the "
            f"one-return noise); tol falls at least {DISTANCE_FALL:g}-fold and the distance falls; the same orbit "
            f"(period k, points within {O.MOTION_FACTOR:g} x tol of the first rung's)")
    if r is None or r.orbit is None:
        reg.claim_not_computed(cid, what, criterion=crit, reason="the orbit was not shot again at the finer tolerance")
        return
    gap = np.abs(r.motion_points[:, None, :] - a.motion_points[None, :, :]) / d.scale
    same = r.k == a.k and float(np.max(np.min(np.max(gap, axis=2), axis=1))) <= O.MOTION_FACTOR * a.tol
    within = all(o.sim_distance <= O.MOTION_FACTOR * o.tol for o in (a, r))
    n = max(2 * a.k, 4)
    reset = [float(np.max(np.min(np.max(np.abs(h[-n:, None, :4] - o.orbit.points[None, :, :4]) / d.scale, axis=2),
                                 axis=1))) for h, o in ((d.history, a), (d.refined_history, r))]
    reg.claim(cid, what, value={"distance": [a.sim_distance, r.sim_distance], "tol": [a.tol, r.tol],
                                "distance_reset_orbit": reset},
              criterion=crit, holds=bool(same and within and r.tol * DISTANCE_FALL <= a.tol
                                         and r.sim_distance < a.sim_distance),
              text=f"{a.sim_distance:.1e} at the tolerance rtol = {d.rtol:g} and {r.sim_distance:.1e} at "
                   f"{d.rtol / REFINE_DIVISOR:g}")


def register_models(reg, d: CaseOrbits) -> None:
    """Claim ``clearance_exponent_models_<case>``: the fast model's and the DAE's exponents agree within their
    combined uncertainty (a stable orbit), or are both positive and known to ``LYAP_REL_IRREGULAR`` (none)."""
    f, c_mm = d.case
    L, D = d.lyapunov, d.dae
    if D is None:
        reg.claim_not_computed(case_id("clearance_exponent_models", f, c_mm), f"at {f:g} Hz / {c_mm:g} mm the fast "
                               "model and the DAE give the same Lyapunov exponent", criterion="the DAE's exponent",
                               reason="the DAE's exponent was not computed for this case")
        return
    if d.attractor is not None:
        ok = abs(L.exponent - D.exponent) <= L.uncertainty + D.uncertainty
        what = f"at {f:g} Hz / {c_mm:g} mm the fast model and the DAE give the same Lyapunov exponent"
        crit = "|lambda_fast - lambda_dae| <= u_fast + u_dae"
    else:
        ok = all(E.interval[0] > 0 and E.relative <= LYAP_REL_IRREGULAR for E in (L, D))
        what = (f"at {f:g} Hz / {c_mm:g} mm the exponent is positive on both models, each known to "
                f"{LYAP_REL_IRREGULAR:.0%}")
        crit = f"lambda - u > 0 and u <= {LYAP_REL_IRREGULAR:g} lambda on the fast model and on the DAE"
    reg.claim(case_id("clearance_exponent_models", f, c_mm), what,
              value={"fast": [L.exponent, L.uncertainty], "dae": [D.exponent, D.uncertainty]},
              criterion=crit + f" (the DAE at the rungs rtol {dae_rtol(d.case):g} -> "
                               f"{dae_rtol(d.case) / LY.RTOL_DIVISOR:g}, the fast model at a tenth of "
                               f"{LYAP_RTOL['fast']:g} -> {LYAP_RTOL['fast'] / LY.RTOL_DIVISOR:g})",
              holds=bool(ok), text=f"{exponent_text(L)} on the fast model, {exponent_text(D)} on the DAE")


def register_exponent_checks(reg, d: CaseOrbits) -> None:
    """Claims of the first case's checks: ``clearance_exponent_alpha`` (the DAE's exponent at another
    Baumgarte factor agrees with the file's within the sum of their standard errors) and ``clearance_exponent_saltation`` (without the memory's saltation the time series misses the
    Floquet exponent, with it it meets it)."""
    f, c_mm = d.case
    D, Da = d.dae, d.checks["alpha"]
    reg.claim("clearance_exponent_alpha", f"at {f:g} Hz / {c_mm:g} mm the DAE's exponent at the "
              f"Baumgarte factor {ALPHA_HIGH:g} /s agrees with the one at the file's within the sum of their "
              "batch-means standard errors", value=[D.exponent, Da.exponent],
              criterion="|lambda(alpha_high) - lambda| <= u + the batch error at alpha_high",
              holds=bool(abs(Da.exponent - D.exponent) <= D.uncertainty + Da.uncertainty),
              text=f"{Da.exponent:+.2f} /s at alpha = {ALPHA_HIGH:g} /s against {exponent_text(D)}")
    a, Ln, L = d.attractor, d.checks["no saltation"], d.lyapunov
    if a is None or not a.resolved:
        reg.claim_not_computed("clearance_exponent_saltation", f"at {f:g} Hz / {c_mm:g} mm the memory's saltation "
                               "decides the agreement with the Floquet exponent", criterion="a resolved stable orbit",
                               reason="the first case has no resolved stable orbit")
        return
    lf, uf = floquet_exponent(a)
    apart = abs(Ln.exponent - lf) > uf + Ln.uncertainty + L.tolerance_change + L.eps_change
    reg.claim("clearance_exponent_saltation", f"at {f:g} Hz / {c_mm:g} mm the time-series exponent meets the one from "
              "the multipliers only when the tangent jumps at each contact onset (the saltation of the onset-speed "
              "memory)", value={"without": Ln.exponent, "with": L.exponent,
                                                                          "floquet": [lf, uf]},
              criterion="without the saltation |lambda - lambda_F| > u_F + its batch error + the tolerance and "
                        "half-width changes of the run with it; with it the routes agree (clearance_orbit_routes)",
              holds=bool(apart and abs(L.exponent - lf) <= L.uncertainty + uf),
              text=f"{Ln.exponent:+.2f} /s without the saltation, {exponent_text(L)} with it, {_pm(lf, uf)} from the "
                   "multipliers")


def register_ladder_agreement(reg, cases: dict, ladder: dict) -> None:
    """Claim ``clearance_orbit_ladder``: the orbit verdicts and the tolerance ladders' verdicts name the same
    motion (period-k, confirmed or in the limit, for a stable period-k orbit; irregular for none).

    ``ladder``: ``{(f, c_mm): (kind, k)}`` of :class:`robolib.studies.clearance_dynamics.verdicts.VerdictStudy`.
    """
    rows, agree = [], []
    for fc, d in cases.items():
        kind, k = ladder[fc]
        a = d.attractor
        same = (a is not None and kind in ("confirmed", "limit") and k == a.k) or (a is None and kind == "irregular")
        agree.append(same)
        lad = f"{N.period_name(k)} ({kind})" if kind in ("confirmed", "limit") else kind
        rows.append(f"{fc[0]:g} Hz / {fc[1]:g} mm: {orbit_verdict_name(a)}, ladder {lad}")
    reg.claim("clearance_orbit_ladder", "the orbit verdicts and the tolerance ladders' verdicts name the same motion "
              "in every case", value=rows, criterion="stable period-k orbit <=> ladder period-k (confirmed or in the "
              "limit); no stable orbit <=> ladder irregular", holds=bool(agree) and all(agree),
              text="; ".join(rows))


def register_cited(reg) -> None:
    """Placeholders for the cited cases this run lacks (the prose cites them)."""
    register_uncited(reg, [("clearance_orbit", "the orbit study"), ("clearance_orbit_routes", "the orbit study"),
                           ("clearance_exponent_models", "the orbit study")])
    for f, c in PERIODIC_CITED:
        if case_id("clearance_orbit_distance", f, c) not in reg.claims:
            reg.claim_not_computed(case_id("clearance_orbit_distance", f, c), f"the motion's distance to the stable orbit "
                                   f"at {f:g} Hz / {c:g} mm", criterion="the case is one of this run's verdict_cases, "
                                   "with a stable orbit", reason="the case is not in this run's verdict_cases")


def orbit_study(s, v, reg) -> tuple[dict, BranchStudy | None]:
    """Shooting at every verdict case of the settings ``s``, the period-1 branch, and the cases' claims: per case
    :func:`register_case`, then :func:`register_ladder_agreement` with the verdict study ``v`` and
    :func:`register_cited` (the branch's claim needs the sweep: :func:`register_branch`). The fast model has one
    clearance joint: with several the cases are registered as not computed. Returns ``({(f, c_mm): CaseOrbits}, branch)``
    (:func:`orbit_tasks`)."""
    if len(s.joints) != 1:
        for f, c in s.cases:
            for p in ("clearance_orbit", "clearance_orbit_routes", "clearance_exponent_models"):
                reg.claim_not_computed(case_id(p, f, c), f"the orbit study at {f:g} Hz / {c:g} mm",
                                       criterion="one clearance joint (the fast model's)",
                                       reason=f"the fast model has one clearance joint, this run has {len(s.joints)}")
        register_cited(reg)
        return {}, None
    cases, branch = orbit_tasks(s)
    for d in cases.values():
        register_case(reg, d)
    register_exponent_checks(reg, cases[tuple(s.cases[0])])
    register_ladder_agreement(reg, cases, v.ladder)
    register_cited(reg)
    return cases, branch


def branch_study(s) -> BranchStudy:
    """The period-1 branch at the frequency sweep's clearance from ``freq_range[0]`` to ``BRANCH_F_MAX`` Hz
    (:func:`robolib.gearshift.orbits.frequency_branch`, Newton), its first loss of stability and the direct route
    there (picklable inputs: a sweep task).

    Returns a :class:`BranchStudy`.
    """
    wall = time.perf_counter()
    c = s.freq_sweep_clearance_mm * 1e-3
    f0, f1 = float(s.freq_range[0]), min(float(s.freq_range[1]), BRANCH_F_MAX)
    b = O.frequency_branch(s.base, c, f0=f0, f1=f1, joint=s.joints[0], ds=BRANCH_DS, p_tol=BRANCH_P_TOL,
                           update="newton", ds_min=BRANCH_DS_MIN, pd_span=BRANCH_DS)
    br = b.branch
    maps = [O.stroboscopic_map(s.base, float(f), c, s.joints[0]) for f in br.parameters]
    sec = np.array([section_units(P, x[None, :], []).samples[0] for P, x in zip(maps, br.points)])
    stable = np.asarray(br.stable, bool)
    first = next((i for i in range(1, len(stable)) if stable[i - 1] and not stable[i]), None)
    direct, onsets = {}, {}
    if first is not None:
        for i in (first - 1, first):
            direct[i] = O.perturbation_ratios(maps[i], br.points[i], 1, amplitude=DIRECT_AMPLITUDE,
                                              n_returns=DIRECT_RETURNS).tolist()
            onsets[i] = O.section_contact_margin(maps[i], br.orbits[i]).n_onsets
    mu0 = br.multipliers[:, 0]
    b2 = b.branch2
    return BranchStudy(br.parameters, sec, np.abs(mu0), mu0.real, stable,
                       [(z.kind, z.parameter, z.bracket, z.note) for z in br.bifurcations], first, direct, onsets,
                       s.freq_sweep_clearance_mm,
                       b2 if isinstance(b2, str) or b2 is None else f"period-2 branch: {b2.stop_reason}",
                       br.stop_reason, b.evaluations, time.perf_counter() - wall)


def register_branch(reg, d: BranchStudy, f_runs, freqs) -> None:
    """Claim ``clearance_orbit_first_pd``: where the continued period-1 branch first loses stability, by which
    multiplier, with the direct route there and the brute-force sweep around it (``f_runs``: the frequency sweep's
    Poincaré runs at ``freqs`` Hz: :class:`robolib.gearshift.runs.PoincarePoint`)."""
    i = d.first_loss
    if i is None:
        reg.claim("clearance_orbit_first_pd", f"the period-1 branch at c = {d.clearance_mm:g} mm loses stability "
                  f"below {d.f[-1]:g} Hz", value=None, criterion="a stable point followed by an unstable one",
                  holds=False, text=f"it does not lose stability on the branch computed ({d.stop_reason})")
        return
    fa, fb = float(d.f[i - 1]), float(d.f[i])
    pds = [z for z in d.bifurcations if z[0] == "period-doubling" and fa <= z[1] <= fb]
    lo, hi = (pds[0][2] if pds else (fa, fb))
    ra, rb = d.direct[i - 1], d.direct[i]
    grows, shrinks = rb[-1] > rb[0] > 1.0, ra[-1] < 1.0
    freqs = np.asarray(freqs, float)
    below = [j for j in range(len(freqs)) if freqs[j] <= lo + 1e-12]
    above = [j for j in range(len(freqs)) if freqs[j] >= hi - 1e-12]
    jb, ja = (below[-1] if below else None), (above[0] if above else None)
    brute_ok = jb is not None and ja is not None and f_runs[jb].period == 1 and f_runs[ja].period != 1
    read = (lambda j: N.period_name(f_runs[j].period) if j is not None else "not in the sweep")  # noqa: E731
    said = (lambda j: "period-1" if j is not None and f_runs[j].period == 1 else  # noqa: E731
            "not period-1" if j is not None else "not in the sweep")
    mu_a, mu_b = d.mu_real[i - 1], d.mu_real[i]
    reg.claim("clearance_orbit_first_pd", f"the period-1 branch at c = {d.clearance_mm:g} mm, continued from "
              f"{d.f[0]:g} Hz, first loses stability with a multiplier past −1 between its points at {fa:g} and "
              f"{fb:g} Hz (the continuation locates the crossing between {lo:.3f} and {hi:.3f} Hz; a small disturbance "
              f"of the orbit grows {rb[-1] / rb[0]:.0f}-fold in {DIRECT_RETURNS - 1} periods at {fb:g} Hz; the sweep "
              f"reads {said(jb)} at {freqs[jb] if jb is not None else float('nan'):g} Hz and {said(ja)} at "
              f"{freqs[ja] if ja is not None else float('nan'):g} Hz)",
              value={"bracket": [lo, hi], "mu": [float(mu_a), float(mu_b)], "direct": [ra, rb],
                     "brute": [read(jb), read(ja)]},
              criterion=f"the largest multiplier real, above -1 at the last stable point and below -1 at the first "
                        f"unstable one; a perturbation of {DIRECT_AMPLITUDE:g} (scaled) shrinks over "
                        f"{DIRECT_RETURNS} periods at the first and grows at every period at the second (direct route, "
                        f"no differencing); the brute-force sweep reads period-1 at its last frequency below the "
                        f"bracket and not period-1 at its first above",
              holds=bool(-1 < mu_a and mu_b < -1 and grows and shrinks and brute_ok),
              text=(f"between its computed points at {fa:g} and {fb:g} Hz, where its largest multiplier is "
                    f"{mu_a:+.2f} and {mu_b:+.2f}").replace("-", "−"))


def register_crossings(reg, d: BranchStudy) -> None:
    """Claim ``clearance_orbit_crossings``: every crossing of -1 located along the branch, with its bracket (and
    whether Newton failed inside it: the map is not smooth there), and where the branch ends."""
    pds = [z for z in d.bifurcations if z[0] == "period-doubling"]
    def bracket(lo, hi):   # rounded outwards, as the first loss's figure label and claim round it
        return bracket_text(lo, hi).replace("between", "bracket").replace(" and ", "–").removesuffix(" Hz")

    parts = [f"{p:.3f} Hz ({bracket(lo, hi)}" + ("; Newton fails inside it" if "Newton failed" in note else "") + ")"
             for _, p, (lo, hi), note in pds]
    reg.claim("clearance_orbit_crossings", f"the located crossings of −1 along the period-1 branch from {d.f[0]:g} "
              f"to {d.f[-1]:g} Hz" + (f": {'; '.join(parts)}" if parts else ""), value=[[p, list(b)] for _, p, b, _ in pds],
              criterion="a sign change of det(M + I) between consecutive branch points, located by regula falsi on f "
                        f"to a bracket of {BRANCH_P_TOL:g} Hz unless Newton fails inside it; at least one",
              holds=bool(pds), text=(" and ".join(crossing_text(pd) + (" (unresolved)" if unresolved(pd) else "")
                                                  for pd in pds) if pds else "nowhere") +
              (f", and the branch is {'stable' if d.stable[-1] else 'unstable'} at {d.f[-1]:g} Hz, where it ends"))


def register_past_loss(reg, d: BranchStudy) -> None:
    """Claim ``clearance_branch_past_loss``: past its first loss of stability the continued branch has stable and
    unstable points side by side (the multiplier jumps as the contact sequence changes), with the spacing of the
    points: the crossings between them are bracketed where a sign change falls between two points, not resolved."""
    i = d.first_loss
    if i is None:
        reg.claim_not_computed("clearance_branch_past_loss", "the branch past its first loss of stability",
                               criterion="a first loss of stability", reason="the branch does not lose stability")
        return
    f, st = np.asarray(d.f[i:], float), np.asarray(d.stable[i:], bool)
    gaps = np.diff(np.asarray(d.f, float)[i - 1:])
    say = (lambda m: and_text([f"{x:g}" for x in f[m]]) + " Hz")  # noqa: E731
    reg.claim("clearance_branch_past_loss", "past its first loss of stability the continued period-1 branch has "
              "both stable and unstable points", value={"f": f.tolist(), "stable": st.tolist()},
              criterion="at least one stable and one unstable branch point above the first unstable one (included)",
              holds=bool(st.any() and (~st).any()),
              text=f"stable at {say(st)}, unstable at {say(~st)}, its points {gaps.min():.2g}–{gaps.max():.2g} Hz "
                   "apart")


def register_onsets(reg, d: BranchStudy) -> None:
    """Claim ``clearance_orbit_onsets``: the number of contact onsets per period differs between the last stable and
    the first unstable branch point (the map changes piecewise there)."""
    i = d.first_loss
    n = d.onsets
    ok = i is not None and i in n and (i - 1) in n
    reg.claim("clearance_orbit_onsets", "the number of contact onsets per period of the period-1 orbit changes "
              "between the last stable and the first unstable point of the branch",
              value=[n.get(i - 1), n.get(i)] if ok else None,
              criterion="onsets per period (contact episodes starting inside the period) differ at the two points",
              holds=bool(ok and n[i - 1] != n[i]),
              text=(f"from {n[i - 1]} contact onsets per period at {d.f[i - 1]:g} Hz to {n[i]} at {d.f[i]:g} Hz" if ok else
                    "the branch does not lose stability"))


def register_brute_agreement(reg, d: BranchStudy, f_runs, freqs, n_transient: int) -> None:
    """Claim ``clearance_orbit_brute``: at every sweep frequency on the branch, the sweep settles on a stable branch
    point (its last sample within ``BRUTE_AGREE`` of the orbit point) and not on an unstable one (it does not read
    period-1 there, and its last sample lies farther than ``BRUTE_AGREE`` from the orbit point). The sweep's period-test reading at a stable point is reported beside it: where the test reads
    irregular on samples that lie on the orbit, the return-to-return integration scatter exceeds the test's
    tolerance (its noise is measured on one return). A stable point whose approach has not died out within the
    sweep's ``n_transient`` periods (``max|mu|^n_transient > TRANSIENT_LEFT``) is listed as slow and not compared."""
    freqs = np.asarray(freqs, float)
    rows, bad, slow, test_off = [], [], [], []
    for j, f in enumerate(d.f):
        hit = np.flatnonzero(np.abs(freqs - f) <= 1e-9)
        if not len(hit):
            continue
        r = f_runs[int(hit[0])]
        gap = float(np.max(np.abs(r.samples[-1] - d.section[j])))
        st = bool(d.stable[j])
        if st and d.mu[j] ** n_transient > TRANSIENT_LEFT:
            slow.append(f"{f:g} Hz (|μ| = {d.mu[j]:.2f}; the sweep reads {N.period_name(r.period)})")
            continue
        ok = gap <= BRUTE_AGREE if st else (r.period != 1 and gap > BRUTE_AGREE)
        rows.append((float(f), st, N.period_name(r.period), gap))
        if not ok:
            bad.append(f"{f:g} Hz (branch {'stable' if st else 'unstable'}, sweep {N.period_name(r.period)}, "
                       f"distance {gap:.1e})")
        elif st and r.period != 1:
            test_off.append((N.period_name(r.period), f"{f:g}"))
    n_st = sum(1 for _, st, _, _ in rows if st)
    near = max((g for _, st, _, g in rows if st), default=0.0)
    far = min((g for _, st, _, g in rows if not st), default=0.0)
    reg.claim("clearance_orbit_brute", "where the continued branch is stable the brute-force sweep settles on its "
              "orbit, and where it is unstable the sweep reads another motion", value={"rows": rows, "slow": slow},
              criterion=f"at every sweep frequency on the branch: stable (and max|mu|^{n_transient} <= "
                        f"{TRANSIENT_LEFT:g}, the sweep's transient over) -> the sweep's last sample lies within "
                        f"{BRUTE_AGREE:g} (normalised) of the orbit point; unstable -> the sweep does not read "
                        f"period-1 and its last sample lies farther than {BRUTE_AGREE:g} from the orbit point; at least "
                        "one of each",
              holds=bool(rows) and not bad and 0 < n_st < len(rows),
              text=(("in disagreement with the orbit at " + ", ".join(bad)) if bad else
                    (f"the sweep's last sample lies within {BRUTE_AGREE:g} of the orbit at each of the {n_st} stable "
                     f"frequencies compared (at most {near:.2g}); at the {len(rows) - n_st} unstable "
                     f"one{'' if len(rows) - n_st == 1 else 's'} it reads no period-1 motion and lies "
                     f"{far:.2g} or more from the orbit"))
                   + ("; at " + "; at ".join(
                       f"{and_text([f for n, f in test_off if n == name])} Hz its one-tolerance period test reads {name} "
                       "all the same" for name in dict.fromkeys(n for n, _ in test_off)) if test_off else "")
                   + (f"; {len(slow)} stable frequenc{'y is' if len(slow) == 1 else 'ies are'} not compared, the "
                      "approach too slow for the sweep's transient" if slow else ""))


def branch_figure(d: BranchStudy | None, f_runs, freqs) -> Figure:
    """(a) The frequency sweep's Poincaré samples e_x/c (dots) up to the branch's end, and the continued period-1
    branch (solid: stable, open markers dashed: unstable), the first loss of stability shaded; (b) the largest
    ``abs(multiplier)`` along the branch (log), with ``abs(mu) = 1``. ``d`` None (quick runs): a figure that says so."""

    fig = Figure(figsize=(FULL_WIDTH, 3.8), layout="tight")
    a0, a1 = fig.subplots(1, 2)
    if d is None:
        for ax in (a0, a1):
            ax.text(0.5, 0.5, "the branch is not computed in quick runs", ha="center", va="center")
            ax.set_axis_off()
        return fig
    fmax = float(d.f[-1]) + 0.5
    for f, r in zip(freqs, f_runs):
        if f <= fmax:
            a0.plot(np.full(len(r.samples), f), r.samples[:, 0], "k.", ms=2, zorder=3)
    f, x, st = np.asarray(d.f), d.section[:, 0], d.stable
    a0.plot(f, np.where(st, x, np.nan), "-o", color="tab:blue", ms=4, label="period-1 branch, stable")
    a0.plot(f, x, "--", color="tab:red", lw=0.8)
    a0.plot(f[~st], x[~st], "s", mfc="none", mec="tab:red", ms=6, label="period-1 branch, unstable")
    a1.semilogy(f, np.maximum(d.mu, 1e-8), "-o", color="0.3", ms=4)
    a1.semilogy(f[~st], np.maximum(d.mu[~st], 1e-8), "s", mfc="none", mec="tab:red", ms=7)
    a1.axhline(1.0, color="k", lw=0.8, ls=":")
    for ax in (a0, a1):
        for kind, p, (lo, hi), _ in d.bifurcations:
            if kind == "period-doubling":
                ax.axvspan(lo, hi, color="tab:orange", alpha=0.35)
        ax.set_xlabel(f"drive frequency f [Hz] at c = {d.clearance_mm:g} mm")
    a0.set_ylabel(r"$e_x/c$ at phase 0")
    a0.legend(fontsize=8)
    a1.set_ylabel("largest |Floquet multiplier|")
    return fig


def _mu_cell(o: O.OrbitResult) -> str:
    return f"{o.max_mu:.3g} ± {o.mu_error:.2g}" if o.resolved else f"≤ {o.mu_upper:.2g} (a bound)"


def orbit_table(cases: dict) -> str:
    """Markdown: per case and orbit found, its period, residual and tolerance, largest multiplier (a bound when below
    its differencing error), stability, the simulated motion's distance from the stable orbit, and the two exponents."""
    rows = []
    for (f, c), d in cases.items():
        ts = exponent_text(d.lyapunov, unit="")
        for o in d.found or [None]:
            if o is None:
                rows.append([f"{f:g} Hz, {c:g} mm", "none found", "-", "-", "-", "-", "-", ts])
                continue
            fl = (f"{o.lyapunov_lower:+.2f} to {o.lyapunov_upper:+.2f}" if o.resolved else
                  f"≤ {o.lyapunov_upper:+.1f}")
            stab = "stable" if o.mu_upper < 1 - STABILITY_MARGIN else "unstable"
            dist = "-" if o is not d.attractor else f"{o.sim_distance:.1e}"   # at a tenth of rtol: evidence page
            rows.append([f"{f:g} Hz, {c:g} mm", o.k, f"{o.residual:.1e} / {o.tol:.1e}", _mu_cell(o), stab,
                         dist, fl, ts])
    rt = next((d.rtol for d in cases.values()), O.ORBIT_RTOL)
    return markdown_table(["case", "k", "residual / tol.", "max |μ|", "stability",
                           f"motion's distance (rtol {rt:g})",
                           "λ Floquet [1/s]", "λ time series [1/s]"], rows)


def exponent_table(cases: dict) -> str:
    """Markdown: per case, the largest Lyapunov exponent by route and model (the Floquet route of the stable orbit, the
    tangent-linear time series on the fast model and on the DAE) with the parts of each uncertainty."""
    rows = []
    for (f, c), d in cases.items():
        a = d.attractor
        if a is None:
            fl = "no stable orbit"
        elif a.resolved:
            fl = "{:+.2f} ± {:.2f}".format(*floquet_exponent(a))
        else:
            fl = f"≤ {a.lyapunov_upper:+.1f} (a bound)"
        for name, E in (("fast model", d.lyapunov), ("DAE", d.dae)):
            if E is None:
                continue
            rt = (LYAP_RTOL["fast"] / FAST_TOLERANCE_DIVISOR if E.model == "fast" else dae_rtol((f, c))) / LY.RTOL_DIVISOR
            rows.append([f"{f:g} Hz, {c:g} mm", fl, name, exponent_text(E, unit=""), f"{E.batch:.3f}",
                         f"{E.tolerance_change:.3f}", f"{E.eps_change:.3f}", f"{rt:g}",
                         len(E.runs[1].log_stretch) // LY.PER_PERIOD])
    return markdown_table(["case", "Floquet λ [1/s]", "model", "time series λ ± u [1/s]", "batch", "tolerance",
                           "half-width", "rtol", "periods"], rows)


def orbits_figure(cases: dict) -> Figure:
    """Per case: the simulated Poincaré samples (dots) and the orbit points found (stable: filled circles, unstable:
    open squares) in the (e_x/c, ė_x/(cω)) plane, and the distance of each sample to the nearest orbit point."""

    n = len(cases)
    fig = Figure(figsize=(min(3.4, CONSTRAINED_WIDTH / n) * n, 5.4), layout="constrained")  # within the column
    axs = fig.subplots(2, n, squeeze=False)
    for j, ((f, c), d) in enumerate(cases.items()):
        ax, ax2, sec = axs[0, j], axs[1, j], d.section
        ax.plot(sec.samples[:, 0], sec.samples[:, 2], ".", color="0.3", ms=4, label="simulated samples", zorder=3)
        for o in d.found:
            pts, st = sec.orbits[o.k], o is d.attractor
            ax.plot(pts[:, 0], pts[:, 2], "o" if st else "s", ms=8 if st else 7, mfc="tab:blue" if st else "none",
                    mec="tab:blue" if st else "tab:red", label="stable orbit" if st else "unstable orbit")
        ax.set_title(f"{f:g} Hz, {c:g} mm", fontsize=10)
        ax.set_xlabel(r"$e_x/c$")
        dist = orbit_distance(d)  # of each sample to the nearest point of the orbits found, at the shooting's rtol
        if dist is not None:
            ax2.semilogy(np.arange(len(dist)), np.maximum(dist, 1e-12), ".-", color="k", lw=0.8, ms=3)
            ax2.axvline(O.ORBIT_TRANSIENT, color="0.6", ls=":", lw=0.8)
        ax2.set_xlabel("drive period n")
        for get, put in ((ax.get_xlim, ax.set_xlim), (ax.get_ylim, ax.set_ylim)):
            lo, hi = get()                          # at least 0.1 wide, every sample inside with a margin
            mid, half = (lo + hi) / 2, max((hi - lo) / 2 * 1.15, 0.05)
            put(mid - half, mid + half)
        for axis in (ax.xaxis, ax.yaxis):           # few ticks, no offset (a 0.1-wide window far from 0)
            axis.set_major_locator(MaxNLocator(3)), axis.get_major_formatter().set_useOffset(False)
    axs[0, 0].set_ylabel(r"$\dot e_x/(c\omega)$")           # one y label per row: the panels of a row show the same quantities
    axs[1, 0].set_ylabel("distance to the orbit")
    handles = {h.get_label(): h for ax in axs[0] for h in ax.get_legend_handles_labels()[0]}
    fig.legend(list(handles.values()), list(handles), loc="outside upper center", ncol=3, fontsize=8, frameon=False)
    return fig


__all__ = ["SectionUnits", "CaseOrbits", "BranchStudy", "ORBIT_PERIODS", "CLOSE_RETURN_STARTS", "CLOSE_RETURN_K_MAX", "ORBIT_SAMPLES", "BRANCH_F_MAX", "BRANCH_DS", "BRANCH_DS_MIN", "BRANCH_P_TOL", "DIRECT_AMPLITUDE",
           "DIRECT_RETURNS", "branch_study", "register_branch", "register_crossings", "register_past_loss", "register_onsets", "register_brute_agreement", "BRUTE_AGREE", "TRANSIENT_LEFT", "branch_figure", "close_returns", "orbit_verdict_name", "case_orbits",
           "section_units", "orbit_tasks", "register_case", "register_ladder_agreement", "register_models", "register_exponent_checks", "floquet_exponent", "exponent_text", "exponent", "exponent_table", "LYAP_RTOL", "DAE_RTOL_CASES", "dae_rtol",
           "dae_jobs", "dae_exponent_jobs", "LYAP_REL_PERIODIC", "LYAP_REL_IRREGULAR", "ALPHA_HIGH", "register_cited", "orbit_study", "orbit_table", "QUICK", "orbits_figure", "register_distance", "REFINE_DIVISOR",
           "DISTANCE_FALL", "PERIODIC_CITED"]


if __name__ == "__main__":   # the DAE's exponents of the default study, into the verdict store (see dae_exponent_jobs)
    from robolib.studies.clearance_dynamics.settings import study_settings

    _s = study_settings()
    _jobs, _alpha = dae_exponent_jobs(_s)
    _, _info = load_or_run_study(_s.base, [j for js in _jobs.values() for j in js] + [_alpha], seed=_s.seed,
                                 n_jobs=_s.n_jobs, engine="dae")
    print(f"DAE exponent runs: {_info.stored} stored, {_info.computed} computed in {_info.wall_s:.0f} s")
