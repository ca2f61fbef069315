"""The clearance chapter's verdict for any case, in one call (``gearshift.verdict``): orbit, ladder, exponent.

:func:`verdict` answers, for a clearance ``c`` (m) in joint ``joint`` at drive frequency ``f`` (Hz), what the
chapter answers for its three cases, on the fast model:

1. **the orbit** (:func:`find_attractor`): the motion from the journal centred, then shooting for a period-k
   orbit for ``k`` in ``periods`` from the last transient sample and from the closest returns of the motion,
   stopping at the first stable orbit that the motion converges to (its multipliers, stability, and the motion's
   distance to it), or none;
2. **the tolerance ladder**: the period test of Poincaré runs at a ladder of tolerances, read by
   :func:`robolib.core.nonlinear.ladder_verdict` (confirmed period-k, period-k in the limit, irregular, not
   converged) -- the time series alone, a check on 1;
3. **the largest Lyapunov exponent** with its uncertainty (:func:`robolib.gearshift.lyapunov.lyapunov_exponent`);
   for a stable orbit it must meet ``ln max|mu| / (kT)``.

A sweep's per-point result (:func:`robolib.gearshift.store.run_sweep`) is a *reading* of the period test at one
tolerance; this is the *verdict*. Progress is shown with tqdm (a bar in Jupyter) unless ``progress=False``.

>>> v = verdict("B1", 5e-4, 10.0, quick=True, progress=False)
>>> v.orbit is not None, v.orbit.k
(True, 2)
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from robolib.core import checks
from robolib.core import nonlinear as N
from robolib.core.errors import ParameterError
from robolib.core.periodic import STABILITY_MARGIN
from robolib.gearshift import lyapunov as LY
from robolib.gearshift import orbits as O
from robolib.gearshift.model import check_params, load_parameters
from robolib.gearshift.runs import poincare_run

#: Periods tried, smallest first; close-return starts per period (up to CLOSE_RETURN_K_MAX); samples compared.
PERIODS = (1, 2, 4)
CLOSE_RETURN_STARTS = 2
CLOSE_RETURN_K_MAX = 2
ORBIT_SAMPLES = 24
#: The default tolerance ladder of the period test (fast model; loosest first).
LADDER = (1e-8, 1e-9, 1e-10)
#: Poincaré runs of the ladder: transient periods and samples.
LADDER_TRANSIENT = 20
LADDER_SAMPLES = 60
#: Measured periods of the exponent.
LYAPUNOV_PERIODS = 24


def close_returns(z, k: int, n: int) -> list:
    """Indices of the ``n`` samples with the smallest ``max |z_{i+k} - z_i|`` (z (m, d) scaled samples), closest
    first, each at least k samples from the ones before (one start per pass near an orbit).

    >>> close_returns(np.array([[0.0], [1.0], [0.1], [1.1], [0.5], [0.5]]), 2, 2)
    [0, 2]
    """
    z = checks.real_array("z", z, shape=(None, None))
    k, n = checks.count("k", k, low=1), checks.count("n", n, low=0)
    d = np.max(np.abs(z[k:] - z[:-k]), axis=1) if len(z) > k else np.zeros(0)
    out = []
    for i in np.argsort(d, kind="stable"):
        if all(abs(int(i) - j) >= k for j in out):
            out.append(int(i))
        if len(out) == n:
            break
    return out


@dataclass(frozen=True)
class Attractor:
    """What :func:`find_attractor` found.

    * ``map``: the stroboscopic map (:class:`robolib.gearshift.orbits.StroboscopicMap`).
    * ``history``: (ORBIT_TRANSIENT + n_samples + 1, 4) the motion's Poincaré states from the start (m, m/s).
    * ``samples``: the last ``n_samples + 1`` of them.
    * ``found``: the orbits found, one per period (:class:`robolib.gearshift.orbits.OrbitResult`).
    * ``orbit``: the stable one the motion converges to (one of ``found``), or None.
    * ``attempts``: ``(k, start index, outcome)`` per shooting.
    """

    map: O.StroboscopicMap
    history: np.ndarray
    samples: np.ndarray
    found: list
    orbit: O.OrbitResult | None
    attempts: list


def _periods(periods) -> list:
    """``periods``: a non-empty list of periods k >= 1, or :class:`robolib.ParameterError` naming it."""
    periods = [checks.count("periods", k) for k in (periods if isinstance(periods, (list, tuple)) else [periods])]
    if not periods:
        raise ParameterError("periods must name at least one period k >= 1")
    return periods


def find_attractor(params, frequency, clearance, joint="B1", rtol=None, periods=PERIODS,
                   n_starts=CLOSE_RETURN_STARTS, n_samples=ORBIT_SAMPLES, step=None) -> Attractor:
    """The stable periodic orbit the motion from the journal centred converges to, by shooting (see the module).

    ``frequency`` (Hz), ``clearance`` (m, radial), ``joint`` the clearance joint, ``rtol`` the map's tolerance
    (default :data:`robolib.gearshift.orbits.ORBIT_RTOL`); ``periods`` tried in turn, each from the last transient
    sample and, for periods up to ``CLOSE_RETURN_K_MAX``, from ``n_starts`` closest returns; ``n_samples``
    Poincaré samples after ``ORBIT_TRANSIENT`` periods. ``step()``: called after each period tried (progress).
    Returns an :class:`Attractor`. Bad arguments raise :class:`robolib.ParameterError` naming them.
    """
    periods = _periods(periods)
    n_starts = checks.count("n_starts", n_starts, low=0)
    n_samples = checks.count("n_samples", n_samples)
    P = O.stroboscopic_map(params, frequency, clearance, joint, rtol)
    S = P.samples(O.ORBIT_TRANSIENT + n_samples)
    samples = S[O.ORBIT_TRANSIENT:]
    z = samples / P.scale
    found, attempts, attractor = [], [], None
    for k in periods:
        extra = n_starts if k <= CLOSE_RETURN_K_MAX else 0
        for i in [0] + [j for j in close_returns(z, k, extra + 1) if j != 0][:extra]:
            r = O.periodic_orbit_at(params, P.frequency, P.clearance, k=k, x0=samples[i], joint=joint, rtol=P.rtol,
                                    samples=samples)
            kmin = r.minimal_period if r.orbit is not None else None
            attempts.append((k, i, r.reason if kmin in (None, k) else f"minimal period {kmin}"))
            if r.orbit is not None and kmin == k:
                found.append(r)
                break
        if step is not None:
            step()
        if found and found[-1].k == k and found[-1].mu_upper < 1 - STABILITY_MARGIN and found[-1].converges:
            attractor = found[-1]
            break
    return Attractor(P, S, samples, found, attractor, attempts)


def refined_orbit(params, joint: str, rtol: float, orbit: O.OrbitResult, n_samples: int = ORBIT_SAMPLES,
                  divisor: float = 10.0):
    """``(result, history)``: a stable orbit ``orbit`` found at ``rtol`` shot again at ``rtol / divisor`` from its own
    point (:func:`robolib.gearshift.orbits.periodic_orbit_at`), against a simulation from the journal centred at that
    tolerance (``history``: its Poincaré samples from the start, m, m/s): the motion's distance to the orbit must fall
    with the tolerance (``result.sim_distance``)."""
    P = O.stroboscopic_map(params, orbit.frequency, orbit.clearance, joint, rtol / divisor)
    S = P.samples(O.ORBIT_TRANSIENT + n_samples)
    r = O.periodic_orbit_at(params, orbit.frequency, orbit.clearance, k=orbit.k, x0=orbit.orbit.x, joint=joint,
                            rtol=P.rtol, samples=S[O.ORBIT_TRANSIENT:])
    return r, S


@dataclass(frozen=True)
class Verdict:
    """The verdict of one case (:func:`verdict`).

    * ``joint``, ``clearance`` (m), ``frequency`` (Hz).
    * ``attractor``: the orbit search (:class:`Attractor`); ``orbit``: its stable orbit or None.
    * ``ladder``: ``(kind, k)`` of :func:`robolib.core.nonlinear.ladder_verdict`; ``readings``: the period test's
      reading per rung (k, 0 = irregular); ``rtols``: the rungs.
    * ``exponent``: the largest Lyapunov exponent (:class:`robolib.gearshift.lyapunov.Exponent`, 1/s).
    * ``wall_s``: wall time, s.
    """

    joint: str
    clearance: float
    frequency: float
    attractor: Attractor
    ladder: tuple
    readings: list
    rtols: tuple
    exponent: LY.Exponent
    wall_s: float

    @property
    def orbit(self) -> O.OrbitResult | None:
        return self.attractor.orbit

    @property
    def motion(self) -> str:
        """``"period-k"`` (a stable orbit), ``"irregular"`` (none, and a positive exponent) or ``"undecided"``."""
        if self.orbit is not None:
            return f"period-{self.orbit.k}"
        return "irregular" if self.exponent.interval[0] > 0 else "undecided"

    @property
    def consistent(self) -> bool:
        """The three parts say the same: the ladder names the orbit's period (or irregular for none) and the
        exponent has the orbit's sign (negative; for a resolved orbit it meets the Floquet interval)."""
        kind, k = self.ladder
        E, o = self.exponent, self.orbit
        if o is None:
            return kind == "irregular" and E.interval[0] > 0
        meets = (not o.resolved and E.interval[1] <= o.lyapunov_upper) or \
            (o.resolved and E.interval[0] <= o.lyapunov_upper and o.lyapunov_lower <= E.interval[1])
        return kind in ("confirmed", "limit") and k == o.k and E.interval[1] < 0 and meets

    def summary(self) -> str:
        """One line, e.g. ``B1, 0.5 mm, 10 Hz: stable period-2 orbit (max|mu| 0.403); ladder period-2 (limit);
        lambda = -4.45 ± 0.05 /s; consistent``."""
        o = self.orbit
        tried = ", ".join(str(k) for k in dict.fromkeys(k for k, *_ in self.attractor.attempts))
        orb = (f"stable period-{o.k} orbit (max|μ| {'≤ ' if not o.resolved else ''}"
               f"{o.max_mu if o.resolved else o.mu_upper:.3g})" if o is not None
               else f"no stable orbit of period {tried}")
        kind, k = self.ladder
        lad = f"ladder {N.period_name(k)} ({kind})" if kind in ("confirmed", "limit") else f"ladder {kind}"
        lo, hi = self.exponent.interval
        tail = ("consistent" if self.consistent else
                "the exponent's sign is not resolved (more lyapunov_periods narrow it)"
                if o is None and kind == "irregular" and lo <= 0 < hi else "the parts disagree")
        return (f"{self.joint}, {self.clearance * 1e3:g} mm, {self.frequency:g} Hz: {orb}; {lad}; "
                f"λ = {self.exponent.text()}; {tail}")


def _bar(total: int, enabled: bool, desc: str):
    """A tqdm bar (a no-op object when disabled)."""
    if enabled:
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc, leave=False)

    class _Off:
        def update(self, n=1):
            pass

        def close(self):
            pass

    return _Off()


def verdict(joint, clearance, frequency, params=None, rtols=LADDER, periods=PERIODS,
            lyapunov_periods=LYAPUNOV_PERIODS, quick=False, progress=True) -> Verdict:
    """The chapter's verdict for a clearance ``clearance`` (m, radial) in ``joint`` at ``frequency`` (Hz).

    ``params``: a gear-shift parameter set (default the data file's); ``rtols`` the tolerance ladder of the
    period test (fast model, loosest first, at least two); ``periods`` the orbit periods tried;
    ``lyapunov_periods`` the exponent's measured drive periods; ``quick``: short runs for a first look or a test
    (2 periods tried, a 2-rung ladder with 12 samples, an exponent over 4 periods at a looser tolerance);
    ``progress``: a tqdm bar. Returns a :class:`Verdict` (``summary()`` in one line). Bad arguments raise
    :class:`robolib.ParameterError` naming them before any integration (a clearance in mm, 40 times the journal
    radius, is refused: the unit is metres).

    >>> v = verdict("B1", 1e-4, 2.0, quick=True, progress=False)
    >>> v.motion, v.exponent.exponent < -20
    ('period-1', True)
    """
    if params is not None:
        check_params(params)
    params = load_parameters() if params is None else params
    frequency = checks.real("frequency", frequency, low=0.0, open_low=True, unit="Hz")
    clearance = checks.real("clearance", clearance, low=0.0, open_low=True, unit="m")
    rtols = tuple(checks.real_array("rtols", rtols, shape=(None,)).tolist())
    if len(rtols) < 2 or any(not 0 < r < 1 for r in rtols) or any(b >= a for a, b in zip(rtols, rtols[1:])):
        raise ParameterError(f"rtols = {list(rtols)} is not valid: rtols must be at least 2 relative tolerances in "
                             f"(0, 1), strictly decreasing (loosest first)")
    lyapunov_periods = checks.count("lyapunov_periods", lyapunov_periods)
    periods = _periods(periods)
    quick, progress = checks.flag("quick", quick), checks.flag("progress", progress)
    O.stroboscopic_map(params, frequency, clearance, joint)          # the joint and the clearance, before any work
    if quick:
        periods, rtols, n_samples, lyapunov_periods, exp_kw = (1, 2), rtols[-2:], 12, 4, dict(
            n_transient=4, n_align=1, rtol=1e-8)
    else:
        n_samples, exp_kw = LADDER_SAMPLES, {}
    wall = time.perf_counter()
    bar = _bar(len(periods) + len(rtols) + 1, progress, f"verdict {joint} {clearance * 1e3:g} mm {frequency:g} Hz")
    try:
        att = find_attractor(params, frequency, clearance, joint, periods=periods, n_samples=n_samples // 2,
                             step=bar.update)
        got = []
        for rt in rtols:
            got.append(poincare_run(params, frequency, clearance, n_transient=LADDER_TRANSIENT, n_samples=n_samples,
                                    joints=[joint], rtol=rt, atol=rt * 1e-3, engine="fast").point())
            bar.update()
        ladder = N.ladder_verdict(list(rtols), [r.period for r in got], [r.residuals for r in got])
        E = LY.lyapunov_exponent(params, frequency, clearance, joint, n_periods=lyapunov_periods, **exp_kw)
        bar.update()
    finally:
        bar.close()
    return Verdict(joint, clearance, frequency, att, ladder, [r.period for r in got], rtols, E,
                   time.perf_counter() - wall)


__all__ = ["Attractor", "Verdict", "close_returns", "find_attractor", "refined_orbit", "verdict", "PERIODS", "LADDER"]
