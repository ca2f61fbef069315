"""Poincaré readings of a clearance joint in any planar mechanism: is the steady motion periodic?

A mechanism driven with period ``T`` is sampled once per period after a transient. The journal
centre of one clearance joint (:func:`robolib.core.clearance.journal_orbit`) is normalised,
``s = (e_local / c, e_dot / (c omega))`` with ``omega = 2 pi / T``, and tested for a period
(:func:`robolib.core.nonlinear.period_k`) within a tolerance tied to the integration noise: one
more period is integrated from the final state at ``rtol`` and at ``rtol / NOISE_RTOL_DIVISOR``,
the normalised difference of the two end states is the noise of one return, and the tolerance is
``PERIOD_TOL_FACTOR`` times it (:func:`poincare_reading`). Read at a ladder of tolerances, the
readings give the verdict of :func:`robolib.core.nonlinear.ladder_verdict` (:func:`ladder_reading`):
a period confirmed at the two tightest tolerances, the limit of a converging sequence, irregular,
or not converged. The gear-shift chapter reads its cases the same way
(:func:`robolib.gearshift.poincare_run`).

>>> from robolib.core.multibody import Body, ConstantSpeed, Driver, GroundPin, Mechanism, Pin
>>> from robolib.core.clearance import ClearanceModel, ClearanceSpec
>>> crank = Mechanism([Body("crank", 0.5, 4e-4), Body("bob", 0.2, 1e-5)],
...                   [GroundPin("O", "crank", (-0.05, 0.0), (0.0, 0.0)), Driver("m", "crank", ConstantSpeed(0, 6.0)),
...                    Pin("P", "crank", (0.05, 0.0), "bob", (0.0, 0.0))], gravity=(0.0, -9.81))
>>> cm = ClearanceModel(crank, [ClearanceSpec("P", clearance=1e-4)])
>>> r = poincare_reading(cm, [0.05, 0, 0, 0.1, 0, 0], [0, 0.3, 6.0, 0, 0.6, 0], 2 * np.pi / 6, 1e-8, 4, 8)
>>> r.period, r.samples.shape
(1, (8, 4))
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from robolib.core.checks import count, flag, real, real_array
from robolib.core.clearance import ClearanceModel, check_model, journal_orbit
from robolib.core.errors import ParameterError
from robolib.core.nonlinear import PERIOD_K_MAX, ladder_verdict, period_k, period_name, poincare_times, repeat_residuals

#: Period-test tolerance = this factor times the measured one-return integration noise (normalised units).
PERIOD_TOL_FACTOR = 20.0
#: Positivity guard only (a noise measured as exactly zero): far below any integration noise.
PERIOD_TOL_FLOOR = 1e-12
#: The noise is measured by redoing one return with rtol divided by this.
NOISE_RTOL_DIVISOR = 100.0


@dataclass(frozen=True)
class PoincareReading:
    """One Poincaré reading (:func:`poincare_reading`).

    ``t`` (N,) sample times (s); ``samples`` (N, 4) the normalised journal state
    ``(e_local / c, e_dot / (c omega))``; ``period`` the reading (k >= 1, 0 irregular);
    ``noise`` the one-return integration noise and ``period_tol`` the tolerance (normalised);
    ``residuals`` (k_max,) the misfit of the samples with themselves at lags 1..k_max; ``rtol``;
    ``n_steps``; ``wall_s`` (s).
    """

    t: np.ndarray
    samples: np.ndarray
    period: int
    noise: float
    period_tol: float
    residuals: np.ndarray
    rtol: float
    n_steps: int
    wall_s: float


@dataclass(frozen=True)
class LadderReading:
    """Poincaré readings at a ladder of tolerances and their verdict (:func:`ladder_reading`).

    ``readings`` one :class:`PoincareReading` per tolerance, loosest first; ``kind`` and ``k`` the
    verdict of :func:`robolib.core.nonlinear.ladder_verdict` (``"confirmed"``, ``"limit"``,
    ``"irregular"``, ``"not converged"``).
    """

    readings: tuple
    kind: str
    k: int

    def summary(self) -> str:
        """One line: the verdict and the period read at each tolerance."""
        seq = ", ".join(f"{r.rtol:.0e}: {period_name(r.period)}" for r in self.readings)
        what = f"period {self.k}" if self.k >= 1 else ""
        return f"{self.kind} {what}".strip() + f" (period test at rtol {seq})"


def poincare_reading(cm: ClearanceModel, q0, qd0, period: float, rtol: float, n_transient: int = 20,
                     n_samples: int = 40, joint: int = 0, atol: float | None = None,
                     k_max: int | None = None) -> PoincareReading:
    """Sample the motion of ``cm`` from ``(q0, qd0)`` (n,; m, rad and m/s, rad/s) once per drive ``period`` (s)
    after ``n_transient`` periods, ``n_samples`` times, and read its period (module docstring).

    ``joint``: which clearance joint's journal is sampled; ``rtol`` (0 < rtol < 1) and ``atol`` (default
    ``rtol * 1e-3`` of the clearance, m) the integration tolerances; ``k_max`` the longest lag tested
    (default ``min(8, n_samples // 3)``). Returns a :class:`PoincareReading`.
    """
    cm = check_model("cm", cm)
    period = real("period", period, low=0.0, open_low=True, unit="s")
    rtol = real("rtol", rtol, low=0.0, high=1.0, open_low=True, open_high=True)
    n_transient, n_samples = count("n_transient", n_transient, low=0), count("n_samples", n_samples, low=3)
    joint = count("joint", joint, low=0, high=len(cm.specs) - 1)
    c = cm.specs[joint].clearance
    atol = rtol * 1e-3 * c if atol is None else real("atol", atol, low=0.0, open_low=True, unit="m")
    km = min(PERIOD_K_MAX, n_samples // 3) if k_max is None else count("k_max", k_max, low=1, high=n_samples - 1)
    ts = poincare_times(period, n_transient, n_samples)
    wall = time.perf_counter()
    r = cm.simulate((0.0, float(ts[-1])), q0, qd0, t_eval=ts, rtol=rtol, atol=atol)
    scale = np.array([c, c, c * 2 * np.pi / period, c * 2 * np.pi / period])
    orb = journal_orbit(cm, r.q, r.qd, joint)
    s = np.hstack([orb.e_local, orb.e_dot]) / scale
    n, ends = cm.reduced.n, []
    for div in (1.0, NOISE_RTOL_DIVISOR):   # one more return at rtol and at rtol / NOISE_RTOL_DIVISOR
        rr = cm.simulate((ts[-1], ts[-1] + period), r.y_final[:n], r.y_final[n:2 * n], t_eval=[ts[-1] + period],
                         ddelta0=r.ddelta0_final, rtol=rtol / div, atol=atol / div)
        o = journal_orbit(cm, rr.q, rr.qd, joint)
        ends.append(np.concatenate([o.e_local[0], o.e_dot[0]]) / scale)
    noise = float(np.max(np.abs(ends[0] - ends[1])))
    tol = max(PERIOD_TOL_FACTOR * noise, PERIOD_TOL_FLOOR)
    return PoincareReading(ts, s, period_k(s, tol, km), noise, tol, repeat_residuals(s, km), rtol, r.n_steps,
                           time.perf_counter() - wall)


def ladder_reading(cm: ClearanceModel, q0, qd0, period: float, rtols=(1e-8, 1e-9, 1e-10, 1e-11),
                   n_transient: int = 20, n_samples: int = 40, joint: int = 0, progress: bool = True) -> LadderReading:
    """:func:`poincare_reading` at each tolerance of ``rtols`` (loosest to tightest, at least two), and the
    verdict of :func:`robolib.core.nonlinear.ladder_verdict`; ``progress``: a tqdm bar. Returns a
    :class:`LadderReading` (``summary()`` in one line).
    """
    check_model("cm", cm)
    rt = real_array("rtols", rtols, shape=(None,))
    if len(rt) < 2 or np.any(rt <= 0) or np.any(rt >= 1) or np.any(np.diff(rt) >= 0):
        raise ParameterError(f"rtols must be two or more tolerances in (0, 1) from loosest to tightest, got "
                             f"{rt.tolist()}")
    bar = None
    if flag("progress", progress):
        from tqdm.auto import tqdm
        bar = tqdm(total=len(rt), desc="tolerance ladder", leave=False)
    readings = []
    for r in rt:
        readings.append(poincare_reading(cm, q0, qd0, period, float(r), n_transient, n_samples, joint))
        if bar is not None:
            bar.update()
    if bar is not None:
        bar.close()
    km = min(len(x.residuals) for x in readings)
    kind, k = ladder_verdict(rt, [x.period for x in readings], [x.residuals[:km] for x in readings])
    return LadderReading(tuple(readings), kind, k)


__all__ = ["PoincareReading", "LadderReading", "poincare_reading", "ladder_reading", "PERIOD_TOL_FACTOR",
           "PERIOD_TOL_FLOOR", "NOISE_RTOL_DIVISOR"]
