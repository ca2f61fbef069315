"""The settings of the clearance chapter's study: its parameters checked, the quick reductions, derived values.

:func:`study_settings` turns the keyword parameters of
:func:`robolib.studies.clearance_dynamics.study.run` (the chapter's ``parameters`` cell)
into a :class:`StudySettings`: the parameter sets of the runs, the verdict cases
with their tolerance ladders, the sweep grids and the fixed settings of the
chapter (slider-crank clearances, Explore grid, transient-study windows). Bad
input raises :class:`robolib.ParameterError` naming the parameter, before any
run starts.

>>> s = study_settings(quick=True)
>>> s.cases, s.rtols[(10.0, 0.5)], s.rt_default(10.0, 0.5)
([(10.0, 0.5)], [1e-06, 1e-08], 1e-08)
>>> s.at_of(1e-9), s.lyapunov_periods(10.0)
(1e-12, 4)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from robolib.core.errors import ParameterError, SingularityError, UnreachableError
from robolib.core.params import Parameter, validate_parameters
from robolib.gearshift.model import (
    CLEARANCE_JOINTS,
    build_gearshift,
    check_clearance,
    clearance_model,
    load_parameters,
    with_changes,
)
from robolib.gearshift.runs import DEFAULT_ENGINE, ENGINES
from robolib.gearshift.runs import check_engine as _check_engine_joints

#: The contact laws of ``contact_law`` (:mod:`robolib.core.contact`).
CONTACT_LAWS = ("lankarani_nikravesh", "flores", "hertz")
#: The cases the chapter's prose discusses by name, (Hz, mm): a run without one registers it as not computed.
CITED_CASES = ((10.0, 0.5), (6.0, 0.5), (2.0, 0.1))
#: Fewest measured drive periods of a Lyapunov estimate (whatever ``lyapunov_span`` asks).
LYAPUNOV_PERIODS_MIN = 8
#: Simulated time measured per Lyapunov estimate, s: 16 s is 96 periods at 6 Hz, where the chaotic exponent's
#: batch error needs about a hundred.
LYAPUNOV_SPAN = 16.0
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
    lyapunov_periods_min: int
    lyapunov_span: float
    sc_cs_mm: list = field(default_factory=lambda: list(SLIDER_CLEARANCES_MM))
    explore_c: list = field(default_factory=lambda: list(EXPLORE_CLEARANCES_MM))
    explore_f: list = field(default_factory=lambda: list(EXPLORE_FREQUENCIES))
    n_frames: int = N_FRAMES
    tr_study: list = field(default_factory=lambda: list(TRANSIENT_STUDY))
    ns_study: list = field(default_factory=lambda: list(SAMPLE_STUDY))
    #: the model of the Poincaré runs and Lyapunov estimates of the verdict study and the sweeps (:data:`ENGINES`)
    engine: str = DEFAULT_ENGINE

    def __getattr__(self, name):
        """The study parameters by name (``s.seed``, ``s.n_jobs``, ``s.quick``, ...)."""
        params = self.__dict__.get("params", {})
        if name in params:
            return params[name]
        raise AttributeError(name)

    def at_of(self, rt: float) -> float:
        """atol that goes with rtol ``rt``: the parameter file's ratio atol/rtol, exactly its atol at its rtol."""
        return self.atol if rt == self.rtol else self.atol * (rt / self.rtol)

    def lyapunov_periods(self, f: float) -> int:
        """Measured drive periods of a Lyapunov estimate at ``f`` [Hz]: ``lyapunov_span`` s, at least
        ``lyapunov_periods_min``."""
        return max(self.lyapunov_periods_min, int(round(self.lyapunov_span * f)))

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


# --------------------------------------------------------------------------- checks of structured parameters
#: The valid values of the structured parameters, in words (the error messages and the chapter's parameter table).
VALID_JOINTS = f"comma-separated revolute joints among {', '.join(CLEARANCE_JOINTS)}, each at most once"
VALID_CASES = "a non-empty list of distinct [frequency Hz, clearance mm] pairs, both numbers > 0"
VALID_LADDER = "a list of at least 2 relative tolerances in (0, 1), strictly decreasing (loosest first)"
VALID_LADDERS = ("a non-empty list of tolerance ladders, one per verdict case, each at least 2 relative tolerances "
                 "in (0, 1), strictly decreasing (loosest first)")
VALID_RANGE = "a pair [low, high] of numbers with 0 < low <= high"
VALID_JOBS = "-1 (all cores) or an integer >= 1"
VALID_ENGINE = ("'fast' (the minimal-coordinate model, one clearance joint) or 'dae' (the seed's Baumgarte DAE, "
                "any clearance joints)")


def _refuse(name: str, value, valid: str, why: str):
    raise ParameterError(f"{name} = {value!r} is not valid: {name} must be {valid} ({why})")


def _positive_number(x) -> bool:
    return (isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))
            and math.isfinite(float(x)) and x > 0)


def check_clearance_joint(name: str, value: str) -> None:
    """``clearance_joint``: comma-separated revolute joints of the manipulator, none twice.

    >>> check_clearance_joint("clearance_joint", "B1,E2")
    >>> check_clearance_joint("clearance_joint", "B1,B9")
    Traceback (most recent call last):
        ...
    robolib.ParameterError: clearance_joint = 'B1,B9' is not valid: clearance_joint must be comma-separated revolute joints among A1, A2, A3, B1, B2, B3, E2, E3, C, each at most once ('B9' is not one)
    """
    names = [x.strip() for x in value.split(",") if x.strip()]
    bad = [x for x in names if x not in CLEARANCE_JOINTS]
    if not names:
        _refuse(name, value, VALID_JOINTS, "no joint named")
    if bad:
        _refuse(name, value, VALID_JOINTS, f"{', '.join(map(repr, bad))} {'is' if len(bad) == 1 else 'are'} not one")
    twice = sorted({x for x in names if names.count(x) > 1})
    if twice:
        _refuse(name, value, VALID_JOINTS, f"{', '.join(map(repr, twice))} named twice")


def check_cases(name: str, value) -> None:
    """``verdict_cases``: distinct ``[f Hz, c mm]`` pairs, both positive and finite.

    >>> check_cases("verdict_cases", [[10.0, 0.5], [6.0, 0.5]])
    >>> check_cases("verdict_cases", [[10.0, 0.0]])
    Traceback (most recent call last):
        ...
    robolib.ParameterError: verdict_cases = [[10.0, 0.0]] is not valid: verdict_cases must be a non-empty list of distinct [frequency Hz, clearance mm] pairs, both numbers > 0 (case 1 has clearance 0.0)
    """
    if len(value) == 0:
        _refuse(name, value, VALID_CASES, "the list is empty")
    for i, fc in enumerate(value):
        if not isinstance(fc, (list, tuple)) or len(fc) != 2:
            _refuse(name, value, VALID_CASES, f"case {i + 1} is {fc!r}, not a pair")
        for x, what in zip(fc, ("frequency", "clearance")):
            if not _positive_number(x):
                _refuse(name, value, VALID_CASES, f"case {i + 1} has {what} {x!r}")
    seen = [tuple(float(x) for x in fc) for fc in value]
    twice = sorted({fc for fc in seen if seen.count(fc) > 1})
    if twice:
        _refuse(name, value, VALID_CASES, f"case {list(twice[0])} is repeated")


def _ladder_problem(rts) -> str | None:
    """What is wrong with one tolerance ladder, or None."""
    if not isinstance(rts, (list, tuple)):
        return f"{rts!r} is not a list"
    if len(rts) < 2:
        return f"{len(rts)} tolerance{'' if len(rts) == 1 else 's'}"
    for r in rts:
        if not _positive_number(r) or not r < 1:
            return f"{r!r} is not in (0, 1)"
    for a, b in zip(rts, rts[1:]):
        if not b < a:
            return f"{b!r} does not follow {a!r} as a tighter tolerance"
    return None


def check_ladder(name: str, value) -> None:
    """``convergence_rtols``: one tolerance ladder, loosest first.

    >>> check_ladder("convergence_rtols", [1e-6, 1e-8])
    >>> check_ladder("convergence_rtols", [1e-8, 1e-6])
    Traceback (most recent call last):
        ...
    robolib.ParameterError: convergence_rtols = [1e-08, 1e-06] is not valid: convergence_rtols must be a list of at least 2 relative tolerances in (0, 1), strictly decreasing (loosest first) (1e-06 does not follow 1e-08 as a tighter tolerance)
    """
    why = _ladder_problem(value)
    if why:
        _refuse(name, value, VALID_LADDER, why)


def check_ladders(name: str, value) -> None:
    """``case_rtols``: one tolerance ladder per verdict case (their number is checked with ``verdict_cases``).

    >>> check_ladders("case_rtols", [[1e-6, 1e-9], [1e-6, 1e-8, 1e-10]])
    >>> check_ladders("case_rtols", [[1e-6, 0.0]])
    Traceback (most recent call last):
        ...
    robolib.ParameterError: case_rtols = [[1e-06, 0.0]] is not valid: case_rtols must be a non-empty list of tolerance ladders, one per verdict case, each at least 2 relative tolerances in (0, 1), strictly decreasing (loosest first) (ladder 1: 0.0 is not in (0, 1))
    """
    if len(value) == 0:
        _refuse(name, value, VALID_LADDERS, "the list is empty")
    for i, rts in enumerate(value):
        why = _ladder_problem(rts)
        if why:
            _refuse(name, value, VALID_LADDERS, f"ladder {i + 1}: {why}")


def check_range(name: str, value) -> None:
    """``freq_range``, ``clearance_range_mm``: ``[low, high]``, ``0 < low <= high``.

    >>> check_range("freq_range", [12.0, 1.0])
    Traceback (most recent call last):
        ...
    robolib.ParameterError: freq_range = [12.0, 1.0] is not valid: freq_range must be a pair [low, high] of numbers with 0 < low <= high (low 12 > high 1)
    """
    if len(value) != 2:
        _refuse(name, value, VALID_RANGE, f"{len(value)} entries")
    for x in value:
        if not _positive_number(x):
            _refuse(name, value, VALID_RANGE, f"{x!r} is not a number > 0")
    if value[1] < value[0]:
        _refuse(name, value, VALID_RANGE, f"low {value[0]:g} > high {value[1]:g}")



# --------------------------------------------------------------------------- conditions between parameters, model
def check_conditions(p: dict) -> None:
    """Conditions between the study's parameters (``p``: all of them, each valid on its own).

    >>> check_conditions({"quick": False, "verdict_cases": [[10.0, 0.5]], "case_rtols": [[1e-6, 1e-8]] * 2})
    Traceback (most recent call last):
        ...
    robolib.ParameterError: case_rtols must have one ladder per verdict case: 2 ladders for 1 cases (verdict_cases)
    >>> check_conditions({"quick": True, "verdict_cases": [[10.0, 0.5]], "case_rtols": [], "clearance_joint": "B1,E2",
    ...                   "engine": "fast"})
    Traceback (most recent call last):
        ...
    robolib.ParameterError: engine = 'fast' is not valid with clearance_joint = 'B1,E2': the fast engine models one clearance joint (2 named); use engine = 'dae' for several
    """
    if not p["quick"] and len(p["case_rtols"]) != len(p["verdict_cases"]):
        raise ParameterError(f"case_rtols must have one ladder per verdict case: {len(p['case_rtols'])} ladders for "
                             f"{len(p['verdict_cases'])} cases (verdict_cases)")
    _check_engine_joints(p.get("engine", DEFAULT_ENGINE), p["clearance_joint"])


def run_clearances_mm(p: dict) -> list:
    """Every clearance a run of the study asks for, ``(parameter, value [mm])``."""
    return ([("clearance_mm", p["clearance_mm"]), ("freq_sweep_clearance_mm", p["freq_sweep_clearance_mm"]),
             ("clearance_range_mm", max(p["clearance_range_mm"]))]
            + [("verdict_cases", fc[1]) for fc in p["verdict_cases"]])


def check_model(p: dict, file_params: dict) -> None:
    """Conditions that depend on the parameter file, computed before any run.

    Every clearance of the run must be smaller than the file's journal radius (the contact laws are those of a
    journal in a slightly larger bearing), and the shift stroke must stay reachable and away from the chains'
    singular poses over a whole drive period (checked at 32 instants of the closed-form motion).
    """

    for name, c_mm in run_clearances_mm(p):
        check_clearance(file_params, c_mm, name, "mm")      # the library's check, with the parameter's name
    try:
        gs = build_gearshift(with_changes(file_params, **{"motion.frequency": 1.0}))
        for k in range(32):
            gs.ideal_state(k / 32)
    except (UnreachableError, SingularityError) as exc:
        raise ParameterError(f"parameter_file = {p['parameter_file']!r} is not valid: its shift stroke must stay "
                             f"within the mechanism's reach over a drive period ({exc})") from None


_POS = {"low": 0.0, "open_low": True}
#: The study's parameters (the chapter's ``parameters`` cell) with their units and valid values, in the order of
#: :func:`robolib.studies.clearance_dynamics.study.run`'s signature. Every call checks them before any work; conditions between parameters
#: and those that depend on the parameter file are :func:`check_conditions` and
#: :func:`check_model`.
PARAMETERS = {
    "parameter_file": Parameter("gearshift/default.yaml", "mechanism, contact and solver data, units in the file",
                                kind="file"),
    "clearance_joint": Parameter("B1", f"the joints with clearance, {VALID_JOINTS}", kind="text",
                                 check=check_clearance_joint),
    "clearance_mm": Parameter(0.1, "radial clearance c of the detailed run, below the journal radius of the "
                              "parameter file", unit="mm", **_POS),
    "contact_law": Parameter("lankarani_nikravesh", "normal contact law", kind="choice", choices=CONTACT_LAWS),
    "detail_frequency": Parameter(2.0, "drive (shift) frequency of the detailed run", unit="Hz", **_POS),
    "detail_duration": Parameter(1.0, f"simulated time of the detailed run, at least one interval of its "
                                 f"{DETAIL_SAMPLE_RATE / 1e3:g} kHz samples", unit="s",
                                 low=1.0 / DETAIL_SAMPLE_RATE),
    "verdict_cases": Parameter([[10.0, 0.5], [6.0, 0.5], [2.0, 0.1]],
                               f"frequency and clearance of each case of the verdict study: {VALID_CASES}, the "
                               f"clearances below the journal radius", unit="Hz, mm", kind="list", check=check_cases),
    "convergence_rtols": Parameter([1e-6, 1e-8, 1e-9, 1e-10], f"relative tolerances of the detailed run's "
                                   f"convergence study, atol is rtol/1000: {VALID_LADDER}", kind="list",
                                   check=check_ladder),
    "case_rtols": Parameter([[1e-6, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12], [1e-6, 1e-8, 1e-9, 1e-10], [1e-6, 1e-9, 1e-10]],
                            f"tolerance ladder per verdict case, atol is rtol/1000: {VALID_LADDERS}", kind="list",
                            check=check_ladders),
    "freq_range": Parameter([1.0, 12.0], f"drive-frequency sweep range: {VALID_RANGE}", unit="Hz", kind="list",
                            check=check_range),
    "freq_step": Parameter(0.25, "drive-frequency sweep resolution", unit="Hz", **_POS),
    "freq_sweep_clearance_mm": Parameter(0.5, "clearance of the drive-frequency sweep, below the journal radius",
                                         unit="mm", **_POS),
    "clearance_range_mm": Parameter([0.02, 0.5], f"clearance sweep range: {VALID_RANGE}, high below the journal "
                                    f"radius", unit="mm", kind="list", check=check_range),
    "n_clearance": Parameter(25, "number of clearance values in the clearance sweep", kind="integer", low=1),
    "clearance_sweep_frequency": Parameter(6.0, "drive frequency of the clearance sweep", unit="Hz", **_POS),
    "n_transient": Parameter(20, "drive periods discarded before Poincaré sampling and before the Lyapunov "
                             "estimate", kind="integer", low=0),
    "n_poincare": Parameter(60, "Poincaré samples, one per drive period, per verdict run and sweep point; the "
                            "period test compares at least two", kind="integer", low=2),
    "lyapunov_span": Parameter(LYAPUNOV_SPAN, "simulated time measured per Lyapunov estimate (eight renormalisations of "
                               "the tangent per drive period), at least 8 drive periods", unit="s", low=0.0),
    "engine": Parameter(DEFAULT_ENGINE, f"the model of the verdict ladders, their Lyapunov estimates and the sweeps: "
                        f"{VALID_ENGINE}; 'fast' (the default) computes them, 'dae' reads the stored DAE runs where "
                        f"their settings match (the orbits and the branch always use the fast model)", kind="choice", choices=ENGINES),
    "n_jobs": Parameter(2, f"parallel processes of the sweeps, joblib: {VALID_JOBS}", kind="integer", low=-1,
                        exclude=(0,)),
    "seed": Parameter(0, "seed of the random initial separation of the Lyapunov estimates", kind="integer", low=0),
    "quick": Parameter(False, "True: tiny sweeps and short runs, for tests", kind="boolean"),
}


def study_settings(**params) -> StudySettings:
    """Check the study's parameters and derive its :class:`StudySettings` (``quick``: the tiny test settings).

    ``params``: keyword parameters of :func:`robolib.studies.clearance_dynamics.study.run`; the others take its
    defaults (``engine``: :data:`DEFAULT_ENGINE` while the study's parameters do not declare it). Raises
    :class:`robolib.ParameterError` before any run: for an unknown name or a value outside its declared range
    (:data:`robolib.studies.clearance_dynamics.study.PARAMETERS`), for parameters that do not fit together (:func:`check_conditions`) and for a run the parameter file cannot carry (:func:`check_model`).
    """

    params = {k: v.default for k, v in PARAMETERS.items()} | params
    validate_parameters(PARAMETERS, params, "clearance_dynamics")     # each on its own (names, types, ranges)
    check_conditions(params)
    p = params
    try:
        file_params = load_parameters(p["parameter_file"])
    except ParameterError as exc:
        raise ParameterError(f"parameter_file = {p['parameter_file']!r} is not valid: it must be a gear-shift "
                             f"parameter file like 'gearshift/default.yaml' ({exc})") from None
    check_model(p, file_params)
    base = with_changes(file_params, **{"clearance.joints": p["clearance_joint"], "clearance.law": p["contact_law"]})
    p_detail = with_changes(base, **{"clearance.radial_clearance": float(p["clearance_mm"]) * 1e-3,
                                     "motion.frequency": float(p["detail_frequency"])})
    clearance_model(build_gearshift(p_detail))  # a mechanism or clearance model that does not build fails here
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
                      lyapunov_periods_min=LYAPUNOV_PERIODS_MIN, lyapunov_span=float(p["lyapunov_span"]),
                      engine=p.get("engine", DEFAULT_ENGINE))
    if p["quick"]:
        s.detail_duration = min(s.detail_duration, 0.2)
        s.cases = sorted(s.cases, key=lambda fc: -fc[0])[:1]
        s.rtols = {s.cases[0]: [1e-6, 1e-8]}
        s.convergence_rtols = [1e-6, 1e-8]
        s.n_transient, s.n_poincare, s.lyapunov_periods_min, s.lyapunov_span = 2, 4, 4, 0.0
        s.freqs = np.array([10.0])
        s.clearances_mm = np.array([float(c_hi)])
        s.sc_cs_mm = [0.5, 0.1, 0.02]
        s.explore_c, s.explore_f = [0.1, 0.5], [8.0, 10.0]
        s.tr_study, s.ns_study = [1, 2, 3], [4, 6]
        s.n_frames = 8
    return s


__all__ = ["PARAMETERS", "CONTACT_LAWS", "CLEARANCE_JOINTS", "CITED_CASES", "LYAPUNOV_PERIODS_MIN", "LYAPUNOV_SPAN", "SLIDER_CLEARANCES_MM",
           "EXPLORE_CLEARANCES_MM", "EXPLORE_FREQUENCIES", "N_FRAMES", "TRANSIENT_STUDY", "SAMPLE_STUDY",
           "DETAIL_SAMPLE_RATE", "VALID_JOINTS", "VALID_CASES", "VALID_LADDER", "VALID_LADDERS", "VALID_RANGE",
           "VALID_JOBS", "VALID_ENGINE", "StudySettings", "check_clearance_joint", "check_cases", "check_ladder",
           "check_ladders", "check_range", "check_conditions", "run_clearances_mm",
           "check_model", "study_settings"]
