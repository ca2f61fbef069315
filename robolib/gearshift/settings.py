"""The settings of the clearance chapter's study: its parameters checked, the quick reductions, derived values.

:func:`study_settings` turns the keyword parameters of
:func:`robolib.gearshift.study.clearance_study` (the chapter's ``parameters`` cell)
into a :class:`StudySettings`: the parameter sets of the runs, the verdict cases
with their tolerance ladders, the sweep grids and the fixed settings of the
chapter (slider-crank clearances, Explore grid, transient-study windows). Bad
input raises :class:`robolib.ParameterError` naming the parameter, before any
run starts.

>>> s = study_settings(quick=True)
>>> s.cases, s.rtols[(10.0, 0.5)], s.rt_default(10.0, 0.5)
([(10.0, 0.5)], [1e-06, 1e-08], 1e-08)
>>> s.at_of(1e-9), s.n_ren(10.0)
(1e-12, 4)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import ParameterError
from .model import build_gearshift, load_parameters, with_changes
from .runs import LYAPUNOV_TAU

#: The contact laws of ``contact_law`` (:mod:`robolib.core.contact`).
CONTACT_LAWS = ("lankarani_nikravesh", "flores", "hertz")
#: Revolute joints of the manipulator that can have clearance (``clearance_joint``).
CLEARANCE_JOINTS = ("A1", "A2", "A3", "B1", "B2", "B3", "E2", "E3", "C")
#: The cases the chapter's prose discusses by name, (Hz, mm): a run without one registers it as not computed.
CITED_CASES = ((10.0, 0.5), (6.0, 0.5), (2.0, 0.1))
#: Fewest renormalisations of a Lyapunov estimate (whatever ``lyapunov_span`` asks).
N_RENORM_MIN = 8
#: Clearances of the slider-crank validation [mm], largest first.
SLIDER_CLEARANCES_MM = (0.5, 0.2, 0.1, 0.05, 0.02, 0.01)
#: The Explore panel's grid: clearances [mm] and drive frequencies [Hz].
EXPLORE_CLEARANCES_MM = (0.02, 0.05, 0.1, 0.2, 0.5)
EXPLORE_FREQUENCIES = (2.0, 4.0, 6.0, 8.0, 10.0)
#: Frames of the animation of the detailed run's last drive period.
N_FRAMES = 30
#: Transient study: transients [periods] at the first sample count, and sample counts at the second transient.
TRANSIENT_STUDY = (10, 20, 40)
SAMPLE_STUDY = (60, 120)
#: Sample rate of the detailed run [1/s] (dense output).
DETAIL_SAMPLE_RATE = 20000.0


@dataclass
class StudySettings:
    """Everything a run of the clearance study uses, derived from its parameters (after the quick reductions).

    ``base``: the parameter set of every run (file, clearance joint and law);
    ``p_detail``: the detailed run's (its clearance and frequency); ``cases``: the
    verdict cases ``(f [Hz], c [mm])``; ``rtols``: each case's tolerance ladder,
    loosest first; ``freqs`` [Hz] and ``clearances_mm``: the sweep grids.
    """

    params: dict
    base: dict
    p_detail: dict
    joints: list
    rtol: float
    atol: float
    alpha: float
    detail_duration: float
    cases: list
    rtols: dict
    convergence_rtols: list
    freqs: np.ndarray
    clearances_mm: np.ndarray
    n_transient: int
    n_poincare: int
    n_renorm_min: int
    lyapunov_span: float
    sc_cs_mm: list = field(default_factory=lambda: list(SLIDER_CLEARANCES_MM))
    explore_c: list = field(default_factory=lambda: list(EXPLORE_CLEARANCES_MM))
    explore_f: list = field(default_factory=lambda: list(EXPLORE_FREQUENCIES))
    n_frames: int = N_FRAMES
    tr_study: list = field(default_factory=lambda: list(TRANSIENT_STUDY))
    ns_study: list = field(default_factory=lambda: list(SAMPLE_STUDY))

    def __getattr__(self, name):
        """The study parameters by name (``s.seed``, ``s.n_jobs``, ``s.quick``, ...)."""
        params = self.__dict__.get("params", {})
        if name in params:
            return params[name]
        raise AttributeError(name)

    def at_of(self, rt: float) -> float:
        """atol that goes with rtol ``rt``: the parameter file's ratio atol/rtol, exactly its atol at its rtol."""
        return self.atol if rt == self.rtol else self.atol * (rt / self.rtol)

    def n_ren(self, f: float) -> int:
        """Renormalisations of a Lyapunov estimate at ``f`` [Hz]: ``lyapunov_span`` s, at least ``n_renorm_min``."""
        return max(self.n_renorm_min, int(round(self.lyapunov_span * f / LYAPUNOV_TAU)))

    def rt_default(self, f: float, c: float) -> float:
        """The rung of case ``(f, c)``'s ladder closest to the parameter file's rtol (in log)."""
        return min(self.rtols[(f, c)], key=lambda r: abs(math.log(r / self.rtol)))

    @property
    def case0(self) -> tuple:
        """The first verdict case: the transient study and the alpha check run on it."""
        return self.cases[0]

    @property
    def windows(self) -> list:
        """Transient study windows ``(transient periods, samples)`` of one long run."""
        return [(tr, self.ns_study[0]) for tr in self.tr_study] + [(self.tr_study[1], ns) for ns in self.ns_study[1:]]


def _number(name, value, *, positive=False, nonnegative=False):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(value)):
        raise ParameterError(f"{name} must be a finite number, got {value!r}")
    if positive and not value > 0:
        raise ParameterError(f"{name} must be positive, got {value!r}")
    if nonnegative and not value >= 0:
        raise ParameterError(f"{name} must be >= 0, got {value!r}")
    return float(value)


def _integer(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _ladder(name, rts, n_min=2):
    """A tolerance ladder: ``n_min`` or more positive rtol, loosest first (strictly decreasing)."""
    if not isinstance(rts, (list, tuple)) or len(rts) < n_min:
        raise ParameterError(f"{name} must be a list of at least {n_min} tolerances, got {rts!r}")
    out = [_number(name, r, positive=True) for r in rts]
    if any(b >= a for a, b in zip(out, out[1:])):
        raise ParameterError(f"{name} must go from the loosest to the tightest tolerance, got {out}")
    return out


def _pair(name, value, positive=True):
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ParameterError(f"{name} must be a pair [low, high], got {value!r}")
    lo, hi = (_number(name, v, positive=positive) for v in value)
    if hi < lo:
        raise ParameterError(f"{name} must be [low, high] with low <= high, got {value!r}")
    return lo, hi


def check_parameters(p: dict) -> None:
    """Raise :class:`robolib.ParameterError` naming the first bad parameter of the study (``p``: all of them).

    >>> check_parameters({"clearance_mm": -0.1})
    Traceback (most recent call last):
        ...
    robolib.errors.ParameterError: clearance_mm must be positive, got -0.1
    """
    if "parameter_file" in p and not isinstance(p["parameter_file"], str):
        raise ParameterError(f"parameter_file must be a path (text), got {p['parameter_file']!r}")
    if "clearance_joint" in p:
        names = [s.strip() for s in str(p["clearance_joint"]).split(",") if s.strip()]
        bad = [n for n in names if n not in CLEARANCE_JOINTS]
        if not names or bad or not isinstance(p["clearance_joint"], str):
            raise ParameterError(f"clearance_joint must name revolute joints among {', '.join(CLEARANCE_JOINTS)} "
                                 f"(comma-separated), got {p['clearance_joint']!r}")
    if "contact_law" in p and p["contact_law"] not in CONTACT_LAWS:
        raise ParameterError(f"contact_law must be one of {', '.join(CONTACT_LAWS)}, got {p['contact_law']!r}")
    for name in ("clearance_mm", "detail_frequency", "detail_duration", "freq_step",
                 "freq_sweep_clearance_mm", "clearance_sweep_frequency"):
        if name in p:
            _number(name, p[name], positive=True)
    if "lyapunov_span" in p:
        _number("lyapunov_span", p["lyapunov_span"], nonnegative=True)
    for name in ("freq_range", "clearance_range_mm"):
        if name in p:
            _pair(name, p[name])
    if "n_clearance" in p:
        _integer("n_clearance", p["n_clearance"], 1)
    if "n_transient" in p:
        _integer("n_transient", p["n_transient"], 0)
    if "n_poincare" in p:
        _integer("n_poincare", p["n_poincare"], 2)
    if "seed" in p:
        _integer("seed", p["seed"], 0)
    if "n_jobs" in p and (isinstance(p["n_jobs"], bool) or not isinstance(p["n_jobs"], (int, np.integer))
                          or p["n_jobs"] == 0 or p["n_jobs"] < -1):
        raise ParameterError(f"n_jobs must be a positive integer or -1 (all cores), got {p['n_jobs']!r}")
    if "quick" in p and not isinstance(p["quick"], (bool, np.bool_)):
        raise ParameterError(f"quick must be True or False, got {p['quick']!r}")
    if "convergence_rtols" in p:
        _ladder("convergence_rtols", p["convergence_rtols"])
    if "verdict_cases" in p:
        cases = p["verdict_cases"]
        if not isinstance(cases, (list, tuple)) or not cases:
            raise ParameterError(f"verdict_cases must be a non-empty list of [frequency Hz, clearance mm], "
                                 f"got {cases!r}")
        for fc in cases:
            if not isinstance(fc, (list, tuple)) or len(fc) != 2:
                raise ParameterError(f"verdict_cases: each case is [frequency Hz, clearance mm], got {fc!r}")
            for x in fc:
                _number("verdict_cases", x, positive=True)
        if len({tuple(float(x) for x in fc) for fc in cases}) != len(cases):
            raise ParameterError(f"verdict_cases must not repeat a case, got {cases!r}")
    if "case_rtols" in p:
        ladders = p["case_rtols"]
        if not isinstance(ladders, (list, tuple)) or not ladders:
            raise ParameterError(f"case_rtols must be a list of tolerance ladders, one per verdict case, "
                                 f"got {ladders!r}")
        for rts in ladders:
            _ladder("case_rtols", rts)
        if not p.get("quick") and "verdict_cases" in p and len(ladders) != len(p["verdict_cases"]):
            raise ParameterError(f"case_rtols must have one ladder per verdict case: {len(ladders)} ladders for "
                                 f"{len(p['verdict_cases'])} cases")


def study_settings(**params) -> StudySettings:
    """Check the study's parameters and derive its :class:`StudySettings` (``quick``: the tiny test settings).

    ``params``: keyword parameters of :func:`robolib.gearshift.study.clearance_study`; the others take its
    defaults. An unknown name is an error that names it.
    """
    import inspect

    from .study import clearance_study

    defaults = {k: v.default for k, v in inspect.signature(clearance_study).parameters.items()}
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        raise ParameterError(f"unknown parameter(s) {unknown} of the clearance study; it declares {sorted(defaults)}")
    params = defaults | params
    check_parameters(params)
    p = params
    try:
        file_params = load_parameters(p["parameter_file"])
    except ParameterError as exc:
        raise ParameterError(f"parameter_file: {exc}") from None
    base = with_changes(file_params, **{"clearance.joints": p["clearance_joint"], "clearance.law": p["contact_law"]})
    p_detail = with_changes(base, **{"clearance.radial_clearance": float(p["clearance_mm"]) * 1e-3,
                                     "motion.frequency": float(p["detail_frequency"])})
    build_gearshift(p_detail)     # a mechanism that does not assemble fails here, before any run
    cases = [tuple(float(x) for x in fc) for fc in p["verdict_cases"]]
    ladders = [[float(r) for r in rts] for rts in p["case_rtols"]]
    (f_lo, f_hi), (c_lo, c_hi) = p["freq_range"], p["clearance_range_mm"]
    s = StudySettings(params=params, base=base, p_detail=p_detail,
                      joints=[x.strip() for x in p["clearance_joint"].split(",") if x.strip()],
                      rtol=base["solver"]["rtol"], atol=base["solver"]["atol"],
                      alpha=base["solver"]["baumgarte_alpha"], detail_duration=float(p["detail_duration"]),
                      cases=cases, rtols=dict(zip(cases, ladders)),
                      convergence_rtols=[float(r) for r in p["convergence_rtols"]],
                      freqs=np.round(np.arange(f_lo, f_hi + 1e-9, p["freq_step"]), 6),
                      clearances_mm=np.round(np.linspace(c_lo, c_hi, p["n_clearance"]), 6),
                      n_transient=int(p["n_transient"]), n_poincare=int(p["n_poincare"]),
                      n_renorm_min=N_RENORM_MIN, lyapunov_span=float(p["lyapunov_span"]))
    if p["quick"]:
        s.detail_duration = min(s.detail_duration, 0.2)
        s.cases = sorted(s.cases, key=lambda fc: -fc[0])[:1]
        s.rtols = {s.cases[0]: [1e-6, 1e-8]}
        s.convergence_rtols = [1e-6, 1e-8]
        s.n_transient, s.n_poincare, s.n_renorm_min, s.lyapunov_span = 2, 4, 4, 0.0
        s.freqs = np.array([10.0])
        s.clearances_mm = np.array([float(c_hi)])
        s.sc_cs_mm = [0.5, 0.1, 0.02]
        s.explore_c, s.explore_f = [0.1, 0.5], [8.0, 10.0]
        s.tr_study, s.ns_study = [1, 2, 3], [4, 6]
        s.n_frames = 8
    return s


__all__ = ["CONTACT_LAWS", "CLEARANCE_JOINTS", "CITED_CASES", "N_RENORM_MIN", "SLIDER_CLEARANCES_MM",
           "EXPLORE_CLEARANCES_MM", "EXPLORE_FREQUENCIES", "N_FRAMES", "TRANSIENT_STUDY", "SAMPLE_STUDY",
           "DETAIL_SAMPLE_RATE", "StudySettings", "check_parameters", "study_settings"]
